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
//! * **Objects.** The kit's, as a vendor's are (issue 30's dogfood); the null driver has no
//!   object of its own: instances, devices, queues, command pools and buffers are kit base
//!   objects; memory, buffers, buffer views, images, views, samplers, Y′CbCr conversions, query
//!   pools, events and private-data slots the kit's resource objects
//!   ([`Kit::RESOURCE_OBJECTS`], [`kit::resources`]); set layouts, pools, sets, update
//!   templates and pipeline layouts its descriptor objects ([`Kit::DESCRIPTOR_OBJECTS`]);
//!   shader modules (the SPIR-V is validated) and pipeline caches its shader objects
//!   ([`Kit::SHADER_OBJECTS`]); pipelines its pipeline objects ([`Kit::PIPELINE_OBJECTS`]);
//!   render passes and framebuffers its render passes on dynamic rendering
//!   ([`Kit::RENDER_PASS_OBJECTS`]); `vkQueueBindSparse` the queue core's. All
//!   host memory for objects honours `VkAllocationCallbacks`; a failed allocation is
//!   `VK_ERROR_OUT_OF_HOST_MEMORY` with nothing leaked (array creations roll back and null
//!   their outputs).
//! * **Memory.** The kit's: real zeroed host memory charged to the 256 MiB heap (more is
//!   `VK_ERROR_OUT_OF_DEVICE_MEMORY`), so map / write / read round trips work. With
//!   `VK_ANDROID_external_memory_android_hardware_buffer` ([`Kit::HARDWARE_BUFFERS`]) imported
//!   and exported memory is the `AHardwareBuffer`'s own pages, shared with its other users.
//! * **Commands.** Recorded by the kit ([`Kit::RECORD_COMMANDS`]) and replayed at submission
//!   with bound-state tracking ([`kit::command::CommandBuffer::replay_tracked`]) into an
//!   engine that renders nothing (`engine.rs`); submitted queries become available
//!   with the value 0.
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
//! It is a kit client like any vendor's driver: the kit knows no driver, and its bring-up
//! answers ([`Kit::NULL_OBJECTS`]) come from the kit's own components
//! (`vkgen_driver::kit::bring_up`), not from this crate.

use std::ffi::CStr;

use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::commands::CommandId;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::generated::vk;
use vkgen_driver::kit::native_buffer::{GrallocQueries, NativeBuffers};
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc};
use vkgen_driver::util::copy_cstr;

use crate::engine;

/// The null driver: the kit's objects, a no-op replay engine (the crate docs say what it offers).
#[derive(Debug)]
pub struct NullDriver;

/// The device's name.
pub const DEVICE_NAME: &CStr = c"vkgen null device";
/// The size of the only memory heap.
pub const HEAP_SIZE: u64 = kit::defaults::HEAP_SIZE;
/// `vkEnumerateInstanceVersion` and the physical device's `apiVersion`: the newest version the
/// generated tables describe (1.4 from vk-1.4.359), patch = the registry's header version.
pub const INSTANCE_VERSION: u32 =
    vkgen_driver::generated::API_VERSION | vkgen_driver::generated::HEADER_VERSION;
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
    // Memory, buffers (and their views), images (native-buffer ones too), views, samplers,
    // YCbCr conversions, query pools, events and private data are the kit's.
    const RESOURCE_OBJECTS: bool = true;
    // Set layouts, pools, sets, update templates and pipeline layouts are the kit's.
    const DESCRIPTOR_OBJECTS: bool = true;
    // Shader modules (SPIR-V validated) and pipeline caches are the kit's.
    const SHADER_OBJECTS: bool = true;
    // Pipelines are the kit's, and the replay tracks bound state (`engine.rs`).
    const PIPELINE_OBJECTS: bool = true;
    // Render passes and framebuffers are the kit's, recorded as dynamic rendering.
    const RENDER_PASS_OBJECTS: bool = true;
    // Every `vkCmd*` is recorded, and replayed at submission (`engine.rs`).
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
                cb.replay_tracked(&mut engine::NullEngine::default());
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
            vkgen_driver::util::find_in_chain::<vk::ImageCompressionControlEXT<'_>>(
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
    // Every gralloc query, answering 0 (nulldrv); native fences on the null sync objects (the
    // defaults: the kit's semaphores and fences; no rendering to wait for, so an image is
    // released once its waits resolve).
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::ALL;
    const NATIVE_FENCES: bool = true;
}

#[vkgen_driver::driver(kit)]
impl Driver for NullDriver {
    const API_VERSION: u32 = vkgen_driver::generated::API_VERSION;
    // AOSP nulldrv: every command exists and succeeds.
    const STUB_UNIMPLEMENTED: bool = true;

    fn unimplemented(_cmd: CommandId) -> vk::Result {
        vk::Result::SUCCESS
    }
    // No hooks: every object is the kit's (queue core, sync, resources, descriptors, shaders,
    // pipelines, render passes); what no component implements is the stub above.
}
