//! The create commands and the rules every element of a `vkCreate*Pipelines` call follows
//! (zeroed outputs, per-element failure, early return, compile-required, cache lookups and
//! creation feedback); see the [parent docs](super).

use std::time::Instant;

use vkgen_abi::vk_error;
use vkgen_generated::recorder::Owned;
use vkgen_generated::vk;

use super::object::{ComputePipeline, Pipeline};
use crate::handles::create_object;
use crate::kit::api::Kit;
use crate::kit::descriptor::PipelineLayout;
use crate::kit::objects::Device;
use crate::kit::resources::desc::VendorData;
use crate::kit::shader::{PipelineCache, ShaderStage};
use crate::util::{guard, slice};

use super::shared::{base, feedback, flags2, lookup, Built, Flags2};

/// The cache behind a create call's `pipelineCache`, if any.
///
/// # Safety
/// `cache` is null or a live `VkPipelineCache` of this driver.
unsafe fn cache_of<'a>(cache: vk::PipelineCache) -> Option<&'a PipelineCache> {
    // SAFETY: the caller's null or live handle.
    unsafe { PipelineCache::from_handle(cache) }
}

/// The loop every create command runs: outputs zeroed, each element built by `build`,
/// handed to the vendor, stored; failures leave a null handle and, with early return, stop.
/// Returns the first error, else `PIPELINE_COMPILE_REQUIRED` if an element needed it.
///
/// # Safety
/// `out` holds `n` writable handles; `build` reads valid create infos.
pub(super) unsafe fn create_all<D: Kit>(
    device: &Device<D>,
    n: usize,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Pipeline,
    mut build: impl FnMut(usize, &[vk::Pipeline]) -> (Flags2, Result<Built, vk::Result>),
) -> vk::Result {
    for i in 0..n {
        // SAFETY: `n` writable handles (the caller's promise).
        unsafe { out.add(i).write(vk::Pipeline::null()) };
    }
    let mut made: Vec<vk::Pipeline> = Vec::with_capacity(n);
    let (mut error, mut compile_required) = (None, false);
    for i in 0..n {
        let (flags, built) = build(i, &made);
        let result = built.and_then(|b| {
            D::compile_pipeline(device, &b.pipeline)?;
            // SAFETY: the application's allocator (the command's -pAllocator- VUID).
            unsafe { create_object(b.pipeline, p_allocator) }
        });
        match result {
            Ok(h) => {
                let h = vk::Handle::from_raw(h);
                made.push(h);
                // SAFETY: element `i < n` of the caller's output.
                unsafe { out.add(i).write(h) };
                continue;
            }
            Err(vk::Result::PIPELINE_COMPILE_REQUIRED) => compile_required = true,
            Err(e) => {
                error.get_or_insert(e);
            }
        }
        made.push(vk::Pipeline::null());
        if flags.contains(Flags2::EARLY_RETURN_ON_FAILURE) {
            break;
        }
    }
    match (error, compile_required) {
        (Some(e), _) => e,
        (None, true) => vk::Result::PIPELINE_COMPILE_REQUIRED,
        (None, false) => vk::Result::SUCCESS,
    }
}

/// One compute pipeline.
///
/// # Safety
/// `ci` is a valid create info.
unsafe fn build_compute(
    ci: &vk::ComputePipelineCreateInfo<'_>,
    flags: Flags2,
    cache: Option<&PipelineCache>,
    made: &[vk::Pipeline],
) -> Result<Built, vk::Result> {
    // SAFETY: the application's valid stage and layout handle (the caller's promise).
    let stage = unsafe { ShaderStage::from_create_info(&ci.stage) }?;
    if stage.stage != vk::ShaderStageFlags::COMPUTE {
        return Err(vk_error!(
            vk::Result::ERROR_UNKNOWN,
            "vkCreateComputePipelines: stage {:?} is not COMPUTE",
            stage.stage
        ));
    }
    // SAFETY: `layout` is null or a live layout of this driver (the create info's valid
    // usage); `from_handle` checks the type.
    let Some(layout) = (unsafe { PipelineLayout::from_handle(ci.layout) }) else {
        return Err(vk_error!(
            vk::Result::ERROR_UNKNOWN,
            "vkCreateComputePipelines: no pipeline layout"
        ));
    };
    let base = base(flags, ci.base_pipeline_handle, ci.base_pipeline_index, made)?;
    let hits = lookup(cache, std::slice::from_ref(&stage), flags)?;
    // SAFETY: a valid create info whose pointers are valid for this call.
    let create_info = unsafe { Owned::new(std::ptr::from_ref(ci).cast()) }
        .ok_or(vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
    Ok(Built {
        pipeline: Pipeline::Compute(ComputePipeline {
            stage,
            layout: layout.layout.clone(),
            flags,
            base,
            create_info,
            vendor: VendorData::default(),
        }),
        hits,
    })
}

/// A pipeline create info: what the shared body of the create commands reads of it.
trait PipelineCreateInfo {
    fn p_next(&self) -> *const std::ffi::c_void;
    fn flags(&self) -> vk::PipelineCreateFlags;
}

impl PipelineCreateInfo for vk::ComputePipelineCreateInfo<'_> {
    fn p_next(&self) -> *const std::ffi::c_void {
        self.p_next
    }
    fn flags(&self) -> vk::PipelineCreateFlags {
        self.flags
    }
}

impl PipelineCreateInfo for vk::GraphicsPipelineCreateInfo<'_> {
    fn p_next(&self) -> *const std::ffi::c_void {
        self.p_next
    }
    fn flags(&self) -> vk::PipelineCreateFlags {
        self.flags
    }
}

/// One `Built` from a create info, its flags, the cache and the pipelines made so far.
type BuildFn<I> =
    unsafe fn(&I, Flags2, Option<&PipelineCache>, &[vk::Pipeline]) -> Result<Built, vk::Result>;

/// The body both create commands share: the device checked, each element built with `build`
/// (creation feedback filled, the create rules of [`create_all`]).
///
/// # Safety
/// The arguments are the command's (`name`'s) valid arguments.
#[allow(clippy::too_many_arguments)]
unsafe fn create_pipelines<D: Kit, I: PipelineCreateInfo>(
    name: &'static str,
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    count: u32,
    p_infos: *const I,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipelines: *mut vk::Pipeline,
    build: BuildFn<I>,
) -> vk::Result {
    guard(name, vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: the application's device handle; `from_handle` checks it is one of ours.
        let Some(dev) = (unsafe { Device::<D>::from_handle(device) }) else {
            return vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "{name}: not a device of this driver"
            );
        };
        // SAFETY: `createInfoCount` valid create infos; a null or live cache.
        let (infos, cache) = unsafe { (slice(p_infos, count), cache_of(pipeline_cache)) };
        // SAFETY: `pPipelines` holds `createInfoCount` handles.
        unsafe {
            create_all(dev, infos.len(), p_allocator, p_pipelines, |i, made| {
                let ci = &infos[i];
                let started = Instant::now();
                let flags = flags2(ci.p_next(), ci.flags());
                let built = build(ci, flags, cache, made);
                let hits = built.as_ref().map_or(&[][..], |b| &b.hits[..]);
                feedback(ci.p_next(), hits, started);
                (flags, built)
            })
        }
    })
}

/// [`vkCreateComputePipelines`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateComputePipelines.html)
pub(super) unsafe extern "system" fn create_compute_pipelines<D: Kit>(
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    count: u32,
    p_infos: *const vk::ComputePipelineCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    // SAFETY: the command's arguments, as the application passed them.
    unsafe {
        create_pipelines::<D, _>(
            "vkCreateComputePipelines",
            device,
            pipeline_cache,
            count,
            p_infos,
            p_allocator,
            p_pipelines,
            build_compute,
        )
    }
}

/// [`vkCreateGraphicsPipelines`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateGraphicsPipelines.html)
pub(super) unsafe extern "system" fn create_graphics_pipelines<D: Kit>(
    device: vk::Device,
    pipeline_cache: vk::PipelineCache,
    count: u32,
    p_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_pipelines: *mut vk::Pipeline,
) -> vk::Result {
    // SAFETY: the command's arguments, as the application passed them.
    unsafe {
        create_pipelines::<D, _>(
            "vkCreateGraphicsPipelines",
            device,
            pipeline_cache,
            count,
            p_infos,
            p_allocator,
            p_pipelines,
            super::graphics::build,
        )
    }
}
