//! The create commands and the rules every element of a `vkCreate*Pipelines` call follows
//! (zeroed outputs, per-element failure, early return, compile-required, cache lookups and
//! creation feedback); see the [parent docs](super).

use std::time::Instant;

use vkgen_abi::vk_error;
use vkgen_generated::recorder::Owned;
use vkgen_generated::vk;

use super::{cache_of, ComputePipeline, Pipeline};
use crate::handles::create_object;
use crate::kit::api::Kit;
use crate::kit::descriptor::PipelineLayout;
use crate::kit::objects::Device;
use crate::kit::resources::desc::VendorData;
use crate::kit::shader::{PipelineCache, ShaderStage};
use crate::util::{find_in_chain, guard, slice};

type Flags2 = vk::PipelineCreateFlags2KHR;

/// An element's flags: `VkPipelineCreateFlags2CreateInfoKHR`'s when chained, else the
/// 32-bit ones widened.
///
/// # Safety
/// `p_next` is a valid chain.
pub(super) unsafe fn flags2(
    p_next: *const std::ffi::c_void,
    flags: vk::PipelineCreateFlags,
) -> Flags2 {
    // SAFETY: the caller's valid chain.
    let f2 = unsafe {
        find_in_chain::<vk::PipelineCreateFlags2CreateInfoKHR<'_>>(
            p_next,
            vk::StructureType::PIPELINE_CREATE_FLAGS_2_CREATE_INFO_KHR,
        )
    };
    f2.map_or(Flags2::from_raw(u64::from(flags.as_raw())), |f| f.flags)
}

/// What one element's build produced before it becomes an object.
pub(super) struct Built {
    pub pipeline: Pipeline,
    /// Per own stage: whether the cache had it.
    pub hits: Vec<bool>,
}

/// Looks every stage up in `cache` (inserting the misses); `Err(PIPELINE_COMPILE_REQUIRED)`
/// when `flags` asks to fail rather than compile and one missed.
pub(super) fn lookup(
    cache: Option<&PipelineCache>,
    stages: &[ShaderStage],
    flags: Flags2,
) -> Result<Vec<bool>, vk::Result> {
    let hits: Vec<bool> = stages
        .iter()
        .map(|s| cache.is_some_and(|c| c.lookup_or_insert(&s.key(), &[])))
        .collect();
    if flags.contains(Flags2::FAIL_ON_PIPELINE_COMPILE_REQUIRED) && hits.iter().any(|h| !h) {
        return Err(vk::Result::PIPELINE_COMPILE_REQUIRED);
    }
    Ok(hits)
}

/// Fills `VkPipelineCreationFeedbackCreateInfo` of `p_next`, if chained.
///
/// # Safety
/// `p_next` is a valid chain whose feedback pointers are valid for writes.
pub(super) unsafe fn feedback(p_next: *const std::ffi::c_void, hits: &[bool], started: Instant) {
    // SAFETY: the caller's valid chain.
    let Some(fb) = (unsafe {
        find_in_chain::<vk::PipelineCreationFeedbackCreateInfo<'_>>(
            p_next,
            vk::StructureType::PIPELINE_CREATION_FEEDBACK_CREATE_INFO,
        )
    }) else {
        return;
    };
    type F = vk::PipelineCreationFeedbackFlags;
    let hit = |h: bool| {
        if h {
            F::VALID | F::APPLICATION_PIPELINE_CACHE_HIT
        } else {
            F::VALID
        }
    };
    let all = !hits.is_empty() && hits.iter().all(|&h| h);
    let duration = u64::try_from(started.elapsed().as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: `pPipelineCreationFeedback` is valid for a write
    // (VUID-VkPipelineCreationFeedbackCreateInfo-pPipelineCreationFeedback-parameter).
    if let Some(p) = unsafe { fb.p_pipeline_creation_feedback.as_mut() } {
        *p = vk::PipelineCreationFeedback {
            flags: hit(all),
            duration,
        };
    }
    for i in 0..fb.pipeline_stage_creation_feedback_count as usize {
        let p = fb.p_pipeline_stage_creation_feedbacks;
        if p.is_null() {
            break;
        }
        let flags = hits.get(i).map_or(F::empty(), |&h| hit(h));
        // SAFETY: `pipelineStageCreationFeedbackCount` writable elements (the structure's
        // valid usage); a stage past the pipeline's own is reported not valid.
        unsafe {
            p.add(i)
                .write(vk::PipelineCreationFeedback { flags, duration: 0 })
        };
    }
}

/// The base of a derivative: the handle, or an earlier element of this call.
pub(super) fn base(
    flags: Flags2,
    handle: vk::Pipeline,
    index: i32,
    made: &[vk::Pipeline],
) -> Result<Option<vk::Pipeline>, vk::Result> {
    if !flags.contains(Flags2::DERIVATIVE) {
        return Ok(None);
    }
    if handle != vk::Pipeline::null() {
        return Ok(Some(handle));
    }
    match usize::try_from(index).ok().and_then(|i| made.get(i)) {
        Some(&p) => Ok(Some(p)),
        None => Err(vk_error!(
            vk::Result::ERROR_UNKNOWN,
            "derivative pipeline: basePipelineIndex {index} is not an earlier element"
        )),
    }
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
