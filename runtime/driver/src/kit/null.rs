//! The null driver: every command is valid and cheap, nothing is rendered (AOSP `nulldrv`).
//!
//! It exists so the loader can be tested end to end without a GPU: instances, devices, queues,
//! command buffers and every object type are real, distinct handles; the things a loader or a
//! swapchain implementation observes behave as on a real driver:
//!
//! * **Identity.** The version the generated tables describe (1.4 from vk-1.4.359;
//!   `vkEnumerateInstanceVersion` 1.4.`HEADER`); instance extension
//!   `VK_KHR_get_physical_device_properties2`; device extensions `VK_ANDROID_native_buffer` spec
//!   11, `VK_KHR_external_fence_fd` and `VK_KHR_external_semaphore_fd` (`SYNC_FD`),
//!   `VK_ANDROID_external_memory_android_hardware_buffer`, `VK_EXT_queue_family_foreign` and
//!   `VK_EXT_image_compression_control(_swapchain)` with both features (so the loader's
//!   native-buffer-spec-9 rule has a driver to be tested on; `VKGEN_NULL_IMAGE_COMPRESSION=0`
//!   takes them away: the negative case). Its `VkImageCompressionPropertiesEXT`: fixed rates
//!   2 and 4 BPC (`FIXED_RATE_EXPLICIT`) for any fixed-rate request, `DISABLED` for disabled. One
//!   physical device ("vkgen null device", type OTHER, the tables' apiVersion, the spec's minimum
//!   limits, one 256 MiB heap with one `DEVICE_LOCAL | HOST_VISIBLE | HOST_COHERENT` type), one
//!   queue family (graphics | compute | transfer) with one queue. Core features: only
//!   `robustBufferAccess` (as nulldrv), plus the 1.1–1.3 features that apiVersion 1.3 makes
//!   mandatory in the `Features2` chain; `VkPhysicalDevicePresentationPropertiesANDROID` reports
//!   `sharedImage = VK_TRUE`.
//! * **Objects.** The kit's, as a vendor's are (issue 30's dogfood): instances, devices,
//!   queues, command pools and buffers are kit base objects; memory, buffers, images, views,
//!   samplers, query pools and private-data slots are the kit's resource objects
//!   ([`Kit::RESOURCE_OBJECTS`], [`kit::resources`]). The null driver's own, until the kit has
//!   them: events ([`Object`]s with a flag), descriptor sets ([`HandleCounter`] handles) and
//!   stateless pipelines, shader modules, pipeline caches and layouts, set layouts, pools,
//!   update templates, render passes, framebuffers, buffer views and Y′CbCr conversions. All
//!   host memory for objects honours `VkAllocationCallbacks`; a failed allocation is
//!   `VK_ERROR_OUT_OF_HOST_MEMORY` with nothing leaked (array creations roll back and null
//!   their outputs).
//! * **Memory.** The kit's: real zeroed host memory charged to the 256 MiB heap (more is
//!   `VK_ERROR_OUT_OF_DEVICE_MEMORY`), so map / write / read round trips work. With
//!   `VK_ANDROID_external_memory_android_hardware_buffer` ([`Kit::HARDWARE_BUFFERS`]) imported
//!   and exported memory is the `AHardwareBuffer`'s own pages, shared with its other users.
//! * **Commands.** Recorded by the kit ([`Kit::RECORD_COMMANDS`]) and replayed at submission
//!   into an engine that renders nothing (`kit/null/engine.rs`); submitted queries become
//!   available with the value 0.
//! * **Synchronisation.** The kit's sync component ([`kit::sync`]): work completes at
//!   submission (`vkQueueSubmit2`, and `vkQueueSubmit` routed to it, first waits for the native
//!   fence fds pending on its wait semaphores, then signals its semaphores, timeline values
//!   included, and fence); fences and semaphores export and import `SYNC_FD`s.
//! * **Native buffers.** The kit's `vkCreateImage` imports `VkNativeBufferANDROID` (validated
//!   by the native-buffer component): the image is bound to the gralloc buffer's pages and
//!   keeps a dup of its fd; the GrallocUsage queries answer 0. `vkAcquireImageANDROID` always
//!   closes the fd it is given (also on failure); a dup goes to the semaphore and to the fence,
//!   which become signalled exactly when the fd fires (`-1`: at once).
//!   `vkQueueSignalReleaseImageANDROID` waits for its semaphores' fds and returns `-1`.
//! * **Everything else** is a no-op: `unimplemented()` answers `VK_SUCCESS`, and queries with
//!   outputs write zero counts or neutral values.
//!
//! It is also the kit's bring-up fallback (see [`Kit::NULL_OBJECTS`]), which is why it lives in
//! the kit; the backends re-export it as `backend::null`.

use std::ffi::{c_void, CStr};
use std::marker::PhantomData;
use std::sync::atomic::{AtomicBool, Ordering};

use vkgen_generated::commands::CommandId;
use vkgen_generated::driver::Driver;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::vk;

use crate::export::DriverModule;
use crate::handles::{create_object, destroy_object, HandleCounter, Object, ObjectKind};
use crate::kit::native_buffer::{GrallocQueries, NativeBuffers};
use crate::kit::{self, Kit, PhysicalDeviceDesc};
use crate::sync_fd::NativeFence;
use crate::util::copy_cstr;

/// The null driver. See the [module docs](self).
#[derive(Debug)]
pub struct NullDriver;

/// The device's name.
pub const DEVICE_NAME: &CStr = c"vkgen null device";
/// The size of the only memory heap.
pub const HEAP_SIZE: u64 = crate::kit::defaults::HEAP_SIZE;
/// `vkEnumerateInstanceVersion` and the physical device's `apiVersion`: the newest version the
/// generated tables describe (1.4 from vk-1.4.359), patch = the registry's header version.
pub const INSTANCE_VERSION: u32 = vkgen_generated::API_VERSION | vkgen_generated::HEADER_VERSION;
/// `VK_ANDROID_native_buffer`'s spec version.
pub const NATIVE_BUFFER_SPEC_VERSION: u32 = 11;

/// Set to `0` to take image compression control away (no `VK_EXT_image_compression_control`
/// or `_swapchain`, features off): the loader's negative case.
pub const IMAGE_COMPRESSION_ENV: &str = "VKGEN_NULL_IMAGE_COMPRESSION";

/// The fixed rates the null device "compresses" every format at, when asked for a fixed rate.
pub const COMPRESSION_FIXED_RATES: vk::ImageCompressionFixedRateFlagsEXT =
    vk::ImageCompressionFixedRateFlagsEXT::from_raw(
        vk::ImageCompressionFixedRateFlagsEXT::TYPE_2BPC.as_raw()
            | vk::ImageCompressionFixedRateFlagsEXT::TYPE_4BPC.as_raw(),
    );

/// Whether the null device offers image compression control (unless
/// [`IMAGE_COMPRESSION_ENV`] is `0`).
fn image_compression_enabled() -> bool {
    vkgen_platform::env::trusted_env(IMAGE_COMPRESSION_ENV).is_none_or(|v| v != "0")
}

/// Kind of descriptor-set counter handles.
const DESCRIPTOR_SET_KIND: u8 = 1;

static COUNTER: HandleCounter = HandleCounter::new();

mod engine;
#[macro_use]
mod objects;
use objects::*;

impl DriverModule for NullDriver {
    const NAME: &'static CStr = c"vkgen null Vulkan driver";
}

/// Instances, physical devices, devices and queues are the kit's; the null device is the kit's
/// default description under this driver's name and native-buffer extension.
impl Kit for NullDriver {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    // Queues, fences and semaphores are the kit's; `driver_submit` replays into a no-op engine.
    const SYNC_OBJECTS: bool = true;
    // Memory, buffers, images (native-buffer ones too), views, samplers, query pools and
    // private data are the kit's.
    const RESOURCE_OBJECTS: bool = true;
    // Every `vkCmd*` is recorded, and replayed at submission (`null/engine.rs`).
    const RECORD_COMMANDS: bool = true;
    // `AHardwareBuffer` memory: the buffer's pages are the memory (the kit's memory objects).
    const HARDWARE_BUFFERS: bool = true;

    fn driver_submit(
        _queue: &kit::Queue<Self>,
        batch: &kit::queue::Batch,
        _completion: kit::queue::Completion,
    ) -> Result<(), vk::Result> {
        for &cb in &batch.command_buffers {
            // SAFETY: a submitted command buffer of this driver, pending until the completion
            // drops at the end of this call; `from_handle` checks the type.
            if let Some(cb) = unsafe { kit::command::CommandBuffer::<Self>::from_handle(cb) } {
                cb.replay(&mut engine::NullEngine);
            }
        }
        Ok(())
    }

    fn instance_version() -> u32 {
        INSTANCE_VERSION
    }

    fn instance_extensions() -> &'static [ExtensionId] {
        &[ExtensionId::KHR_GET_PHYSICAL_DEVICE_PROPERTIES2]
    }

    fn device_extensions() -> &'static [ExtensionId] {
        &[
            ExtensionId::ANDROID_NATIVE_BUFFER,
            ExtensionId::KHR_EXTERNAL_FENCE_FD,
            ExtensionId::KHR_EXTERNAL_SEMAPHORE_FD,
            ExtensionId::EXT_QUEUE_FAMILY_FOREIGN,
            ExtensionId::ANDROID_EXTERNAL_MEMORY_ANDROID_HARDWARE_BUFFER,
            ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL,
            ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL_SWAPCHAIN,
        ]
    }

    fn image_compression_properties(
        physical: &kit::PhysicalDevice<Self>,
        info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    ) -> (
        vk::ImageCompressionFlagsEXT,
        vk::ImageCompressionFixedRateFlagsEXT,
    ) {
        if !physical
            .extensions
            .contains(ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL)
        {
            return Default::default();
        }
        // SAFETY: the application's valid input chain.
        let control = unsafe {
            crate::util::find_in_chain::<vk::ImageCompressionControlEXT<'_>>(
                info.p_next,
                vk::StructureType::IMAGE_COMPRESSION_CONTROL_EXT,
            )
        };
        match control.map(|c| c.flags) {
            Some(vk::ImageCompressionFlagsEXT::DISABLED) => (
                vk::ImageCompressionFlagsEXT::DISABLED,
                vk::ImageCompressionFixedRateFlagsEXT::NONE,
            ),
            Some(
                vk::ImageCompressionFlagsEXT::FIXED_RATE_DEFAULT
                | vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT,
            ) => (
                vk::ImageCompressionFlagsEXT::FIXED_RATE_EXPLICIT,
                COMPRESSION_FIXED_RATES,
            ),
            _ => Default::default(),
        }
    }

    fn physical_devices(
        _instance: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        let mut d = PhysicalDeviceDesc::new(DEVICE_NAME, ());
        let compression = image_compression_enabled();
        if !compression {
            d.extensions.retain(|e| {
                ![
                    ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL,
                    ExtensionId::EXT_IMAGE_COMPRESSION_CONTROL_SWAPCHAIN,
                ]
                .contains(e)
            });
        }
        d.features.image_compression_control = compression;
        d.features.image_compression_control_swapchain = compression;
        let p = &mut d.properties;
        p.pipeline_cache_uuid = *b"vkgen-null-cache";
        p.device_uuid = *b"vkgen-null-dev-0";
        p.driver_uuid = *b"vkgen-null-drv-0";
        copy_cstr(&mut p.driver_name, c"vkgen null");
        copy_cstr(&mut p.driver_info, c"AOSP nulldrv behaviour");
        p.shared_image = true;
        p.subgroup_size = 1;
        p.subgroup_supported_stages = vk::ShaderStageFlags::COMPUTE;
        p.subgroup_supported_operations = vk::SubgroupFeatureFlags::BASIC;
        p.point_clipping_behavior = vk::PointClippingBehavior::ALL_CLIP_PLANES;
        p.max_multiview_view_count = 6;
        p.max_multiview_instance_index = (1 << 27) - 1;
        p.max_per_set_descriptors = 1024;
        p.max_memory_allocation_size = HEAP_SIZE;
        p.max_buffer_size = HEAP_SIZE;
        p.max_timeline_semaphore_value_difference = (1 << 31) - 1;
        p.framebuffer_integer_color_sample_counts = vk::SampleCountFlags::TYPE_1;
        p.min_subgroup_size = 1;
        p.max_subgroup_size = 1;
        p.max_compute_workgroup_subgroups = 128;
        p.required_subgroup_size_stages = vk::ShaderStageFlags::COMPUTE;
        p.max_inline_uniform_block_size = 256;
        p.max_per_stage_descriptor_inline_uniform_blocks = 4;
        p.max_per_stage_descriptor_update_after_bind_inline_uniform_blocks = 4;
        p.max_descriptor_set_inline_uniform_blocks = 4;
        p.max_descriptor_set_update_after_bind_inline_uniform_blocks = 4;
        p.max_inline_uniform_total_size = 256;
        // The features Vulkan 1.3 makes mandatory, as nulldrv at 1.3 (plus robustBufferAccess).
        let f = &mut d.features;
        for on in [
            &mut f.multiview,
            &mut f.timeline_semaphore,
            &mut f.uniform_buffer_standard_layout,
            &mut f.shader_subgroup_extended_types,
            &mut f.separate_depth_stencil_layouts,
            &mut f.host_query_reset,
            &mut f.imageless_framebuffer,
            &mut f.buffer_device_address,
            &mut f.vulkan_memory_model,
            &mut f.vulkan_memory_model_device_scope,
            &mut f.robust_image_access,
            &mut f.inline_uniform_block,
            &mut f.pipeline_creation_cache_control,
            &mut f.private_data,
            &mut f.shader_demote_to_helper_invocation,
            &mut f.shader_terminate_invocation,
            &mut f.subgroup_size_control,
            &mut f.compute_full_subgroups,
            &mut f.synchronization2,
            &mut f.shader_zero_initialize_workgroup_memory,
            &mut f.dynamic_rendering,
            &mut f.shader_integer_dot_product,
            &mut f.maintenance4,
        ] {
            *on = true;
        }
        Ok(vec![d])
    }
}

impl NativeBuffers for NullDriver {
    // Every gralloc query, answering 0 (nulldrv); native fences on the null sync objects.
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::ALL;
    const NATIVE_FENCES: bool = true;

    fn signal_on_native_fence(
        _device: vk::Device,
        semaphore: vk::Semaphore,
        semaphore_fence: Option<NativeFence>,
        fence: vk::Fence,
        fence_fence: Option<NativeFence>,
    ) -> Result<(), vk::Result> {
        kit::sync::signal_on_native_fence(semaphore, semaphore_fence, fence, fence_fence)
    }

    fn release_native_fence(
        _queue: vk::Queue,
        wait: &[vk::Semaphore],
        _image: vk::Image,
    ) -> Result<NativeFence, vk::Result> {
        // No rendering to wait for: the image is released once the waits resolve. Not through
        // the typed queue core: drivers in bring-up reach this hook with their own queues.
        kit::queue::release_after_waits(wait)
    }
}

/// The null driver's command map as the kit's bring-up table ([`Kit::NULL_OBJECTS`]) of
/// driver `D`: its hooks; the kit's resource objects on `D`'s own devices (the objects the
/// null driver runs on: driver-independent structs, and the commands that read a device read
/// it as `D`'s); its native-buffer component and `…2` routes (these take raw handles, so they
/// serve another kit driver's objects too); its sync component; then its stubs. Never its kit
/// commons, nor anything else instantiated for the null driver that reads a base object: that
/// would read `D`'s instance, device or command buffers as the null driver's.
pub fn bring_up_entries<D: Kit>() -> EntryTable {
    *kit::cached_entries::<BringUp<D>>(build_bring_up::<D>)
}

/// The key [`bring_up_entries`] of `D` is cached under (the null driver's own map is another).
struct BringUp<D>(PhantomData<D>);

fn build_bring_up<D: Kit>() -> EntryTable {
    let mut hooks = EntryTable::entry_points::<NullDriver>();
    hooks.retain(<NullDriver as Driver>::implements);
    let hooks = hooks
        .or(&kit::resources::bring_up_entries::<D>())
        .or(&kit::native_buffer::entries::<NullDriver>())
        .or(&kit::routes::entries::<NullDriver>());
    // The 1.4 routes exist only in tables generated from a 1.4 registry (build.rs).
    #[cfg(vk_1_4)]
    let hooks = hooks.or(&kit::routes_1_4::entries::<NullDriver>());
    hooks
        .or(&kit::sync::entries::<NullDriver>())
        .or(&EntryTable::entry_points::<NullDriver>())
}

#[crate::driver(kit)]
impl Driver for NullDriver {
    const API_VERSION: u32 = vkgen_generated::API_VERSION;
    // AOSP nulldrv: every command exists and succeeds.
    const STUB_UNIMPLEMENTED: bool = true;

    fn unimplemented(_cmd: CommandId) -> vk::Result {
        vk::Result::SUCCESS
    }

    // --- global ---------------------------------------------------------------------------

    // --- instance -------------------------------------------------------------------------

    // --- device ---------------------------------------------------------------------------

    unsafe fn queue_bind_sparse(
        _queue: vk::Queue,
        _bind_info_count: u32,
        _p_bind_info: *const vk::BindSparseInfo<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: null or a live fence.
        if let Some(f) = unsafe { kit::sync::fence(fence) } {
            f.signal();
        }
        vk::Result::SUCCESS
    }

    // Synchronisation: fences and semaphores are the kit's sync component.

    unsafe fn create_event(
        _device: vk::Device,
        _p_create_info: *const vk::EventCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_event: *mut vk::Event,
    ) -> vk::Result {
        let event = Event {
            set: AtomicBool::new(false),
        };
        // SAFETY: `p_allocator` is the application's vkCreateEvent allocator, null or valid until
        // the event is destroyed.
        match unsafe { create_object(event, p_allocator) } {
            Ok(h) => {
                // SAFETY: `p_event` is the application's vkCreateEvent output, valid for a write.
                unsafe { *p_event = vk::Handle::from_raw(h) };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn destroy_event(
        _device: vk::Device,
        event: vk::Event,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        // SAFETY: null or a live event the application is done with.
        unsafe { destroy_object::<Event>(vk::Handle::as_raw(event)) };
    }

    unsafe fn get_event_status(_device: vk::Device, event: vk::Event) -> vk::Result {
        // SAFETY: `event` is null or a live event of this driver (vkGetEventStatus' valid usage);
        // `obj` checks its signature.
        match unsafe { obj::<Event, _>(event) } {
            Some(e) if e.set.load(Ordering::Acquire) => vk::Result::EVENT_SET,
            Some(_) => vk::Result::EVENT_RESET,
            None => vkgen_abi::vk_error!(
                vk::Result::ERROR_DEVICE_LOST,
                "{event:?} is no event of the null driver"
            ),
        }
    }

    unsafe fn set_event(_device: vk::Device, event: vk::Event) -> vk::Result {
        // SAFETY: `event` is null or a live event of this driver (vkSetEvent's valid usage); `obj`
        // checks its signature.
        if let Some(e) = unsafe { obj::<Event, _>(event) } {
            e.set.store(true, Ordering::Release);
        }
        vk::Result::SUCCESS
    }

    unsafe fn reset_event(_device: vk::Device, event: vk::Event) -> vk::Result {
        // SAFETY: `event` is null or a live event of this driver (vkResetEvent's valid usage);
        // `obj` checks its signature.
        if let Some(e) = unsafe { obj::<Event, _>(event) } {
            e.set.store(false, Ordering::Release);
        }
        vk::Result::SUCCESS
    }

    // Descriptor sets: stateless counter handles.

    unsafe fn allocate_descriptor_sets(
        _device: vk::Device,
        p_allocate_info: *const vk::DescriptorSetAllocateInfo<'_>,
        p_descriptor_sets: *mut vk::DescriptorSet,
    ) -> vk::Result {
        // SAFETY: valid input structure; the output holds `descriptorSetCount` elements.
        unsafe {
            if let Some(info) = p_allocate_info.as_ref() {
                for i in 0..info.descriptor_set_count as usize {
                    p_descriptor_sets
                        .add(i)
                        .write(vk::Handle::from_raw(COUNTER.next(DESCRIPTOR_SET_KIND)));
                }
            }
        }
        vk::Result::SUCCESS
    }

    unsafe fn free_descriptor_sets(
        _device: vk::Device,
        _descriptor_pool: vk::DescriptorPool,
        _count: u32,
        _p_descriptor_sets: *const vk::DescriptorSet,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }

    unsafe fn get_descriptor_set_layout_support(
        _device: vk::Device,
        _p_create_info: *const vk::DescriptorSetLayoutCreateInfo<'_>,
        p_support: *mut vk::DescriptorSetLayoutSupport<'_>,
    ) {
        // SAFETY: `p_support` is the application's vkGetDescriptorSetLayoutSupport output, null or
        // valid for this call; `as_mut` skips null.
        if let Some(s) = unsafe { p_support.as_mut() } {
            s.supported = vk::TRUE;
        }
    }

    // Pipelines.

    unsafe fn create_graphics_pipelines(
        _device: vk::Device,
        _pipeline_cache: vk::PipelineCache,
        create_info_count: u32,
        _p_create_infos: *const vk::GraphicsPipelineCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        // SAFETY: the output holds `createInfoCount` elements.
        unsafe {
            create_plain_array::<{ vk::ObjectType::PIPELINE.as_raw() }, _>(
                create_info_count,
                p_allocator,
                p_pipelines,
            )
        }
    }

    unsafe fn create_compute_pipelines(
        _device: vk::Device,
        _pipeline_cache: vk::PipelineCache,
        create_info_count: u32,
        _p_create_infos: *const vk::ComputePipelineCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_pipelines: *mut vk::Pipeline,
    ) -> vk::Result {
        // SAFETY: the output holds `createInfoCount` elements.
        unsafe {
            create_plain_array::<{ vk::ObjectType::PIPELINE.as_raw() }, _>(
                create_info_count,
                p_allocator,
                p_pipelines,
            )
        }
    }

    unsafe fn destroy_pipeline(
        _device: vk::Device,
        pipeline: vk::Pipeline,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        // SAFETY: null or a live pipeline the application is done with.
        unsafe {
            destroy_object::<Plain<{ vk::ObjectType::PIPELINE.as_raw() }>>(vk::Handle::as_raw(
                pipeline,
            ))
        };
    }

    unsafe fn get_pipeline_cache_data(
        _device: vk::Device,
        _pipeline_cache: vk::PipelineCache,
        p_data_size: *mut usize,
        _p_data: *mut c_void,
    ) -> vk::Result {
        // SAFETY: `p_data_size` is the application's vkGetPipelineCacheData in/out size, null or
        // valid; `as_mut` skips null.
        if let Some(size) = unsafe { p_data_size.as_mut() } {
            *size = 0;
        }
        vk::Result::SUCCESS
    }

    unsafe fn get_render_area_granularity(
        _device: vk::Device,
        _render_pass: vk::RenderPass,
        p_granularity: *mut vk::Extent2D,
    ) {
        // SAFETY: `p_granularity` is the application's vkGetRenderAreaGranularity output, null or
        // valid for a write; `as_mut` skips null.
        if let Some(g) = unsafe { p_granularity.as_mut() } {
            *g = vk::Extent2D {
                width: 1,
                height: 1,
            };
        }
    }

    plain_objects! {
        create_buffer_view / destroy_buffer_view (vk::BufferViewCreateInfo<'_>) -> vk::BufferView: BUFFER_VIEW;
        create_shader_module / destroy_shader_module (vk::ShaderModuleCreateInfo<'_>) -> vk::ShaderModule: SHADER_MODULE;
        create_pipeline_cache / destroy_pipeline_cache (vk::PipelineCacheCreateInfo<'_>) -> vk::PipelineCache: PIPELINE_CACHE;
        create_pipeline_layout / destroy_pipeline_layout (vk::PipelineLayoutCreateInfo<'_>) -> vk::PipelineLayout: PIPELINE_LAYOUT;
        create_descriptor_set_layout / destroy_descriptor_set_layout (vk::DescriptorSetLayoutCreateInfo<'_>) -> vk::DescriptorSetLayout: DESCRIPTOR_SET_LAYOUT;
        create_descriptor_pool / destroy_descriptor_pool (vk::DescriptorPoolCreateInfo<'_>) -> vk::DescriptorPool: DESCRIPTOR_POOL;
        create_framebuffer / destroy_framebuffer (vk::FramebufferCreateInfo<'_>) -> vk::Framebuffer: FRAMEBUFFER;
        create_render_pass / destroy_render_pass (vk::RenderPassCreateInfo<'_>) -> vk::RenderPass: RENDER_PASS;
        create_descriptor_update_template / destroy_descriptor_update_template (vk::DescriptorUpdateTemplateCreateInfo<'_>) -> vk::DescriptorUpdateTemplate: DESCRIPTOR_UPDATE_TEMPLATE;
        create_sampler_ycbcr_conversion / destroy_sampler_ycbcr_conversion (vk::SamplerYcbcrConversionCreateInfo<'_>) -> vk::SamplerYcbcrConversion: SAMPLER_YCBCR_CONVERSION;
    }

    unsafe fn create_render_pass2(
        _device: vk::Device,
        _p_create_info: *const vk::RenderPassCreateInfo2<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_render_pass: *mut vk::RenderPass,
    ) -> vk::Result {
        // SAFETY: `p_render_pass` is the application's vkCreateRenderPass2 output (null skipped)
        // and `p_allocator` its allocator, null or valid until the render pass is destroyed.
        unsafe {
            create_plain::<{ vk::ObjectType::RENDER_PASS.as_raw() }, _>(p_allocator, p_render_pass)
        }
    }
}
