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
//! * **Objects.** Dispatchable objects are [`Dispatchable`]s (instance embeds its physical
//!   device, device embeds its queue, command buffers come from their pool's allocator and die
//!   with it); every other object with state is an [`Object`], stateless descriptor sets are
//!   [`HandleCounter`] handles. All host memory for objects honours `VkAllocationCallbacks`; a
//!   failed allocation is `VK_ERROR_OUT_OF_HOST_MEMORY` with nothing leaked (array creations
//!   roll back and null their outputs).
//! * **Memory.** `vkAllocateMemory` returns real zeroed host memory (page aligned), so map /
//!   write / read round trips work; more than the heap size is `VK_ERROR_OUT_OF_DEVICE_MEMORY`.
//!   With `VK_ANDROID_external_memory_android_hardware_buffer` (the kit's component) imported
//!   and exported memory is the `AHardwareBuffer`'s own pages, shared with its other users.
//! * **Synchronisation.** The kit's sync component ([`kit::sync`]): work completes at
//!   submission (`vkQueueSubmit2`, and `vkQueueSubmit` routed to it, first waits for the native
//!   fence fds pending on its wait semaphores, then signals its semaphores, timeline values
//!   included, and fence); fences and semaphores export and import `SYNC_FD`s.
//! * **Native buffers.** `vkCreateImage` imports `VkNativeBufferANDROID` through the kit's
//!   component (validated; the image keeps a dup of the buffer's fd); the GrallocUsage
//!   queries answer 0. `vkAcquireImageANDROID` always closes the fd it is given (also on
//!   failure); a dup goes to the semaphore and to the fence, which become signalled exactly when
//!   the fd fires (`-1`: at once). `vkQueueSignalReleaseImageANDROID` waits for its semaphores'
//!   fds and returns `-1`.
//! * **Everything else** is a no-op: `unimplemented()` answers `VK_SUCCESS`, and queries with
//!   outputs write zero counts or neutral values.
//!
//! It is also the kit's bring-up fallback (see [`Kit::NULL_OBJECTS`]), which is why it lives in
//! the kit; the backends re-export it as `backend::null`.

use std::alloc::Layout;
use std::collections::HashMap;
use std::ffi::{c_void, CStr};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Mutex;

use vkgen_generated::commands::CommandId;
use vkgen_generated::driver::Driver;
use vkgen_generated::entries::EntryTable;
use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::vk;

use crate::export::DriverModule;
use crate::gralloc::{Buffer as GrallocBuffer, SharedMapping};
use crate::handles::{create_object, destroy_object, HandleCounter, Object, ObjectKind};
use crate::hardware_buffer::HardwareBufferRef;
use crate::kit::hardware_buffer::{ExportTarget, HardwareBufferAllocation};
use crate::kit::native_buffer::{
    create_native_buffer_image, GrallocQueries, NativeBufferImport, NativeBuffers,
};
use crate::kit::{self, Kit, PhysicalDeviceDesc};
use crate::sync_fd::NativeFence;
use crate::util::{copy_cstr, for_each_out, lock, write_array_with};

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

/// Page alignment of device memory (and `minMemoryMapAlignment` is far below it).
const MEMORY_ALIGNMENT: usize = 4096;
/// Kind of descriptor-set counter handles.
const DESCRIPTOR_SET_KIND: u8 = 1;

static COUNTER: HandleCounter = HandleCounter::new();

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
    // Queues, fences and semaphores are the kit's; `driver_submit` (the default) has no work.
    const SYNC_OBJECTS: bool = true;
    // `AHardwareBuffer` memory: the buffer's pages are the memory.
    const HARDWARE_BUFFERS: bool = true;

    fn memory_hardware_buffer(
        _device: vk::Device,
        memory: vk::DeviceMemory,
    ) -> Option<HardwareBufferRef> {
        // SAFETY: a memory handle of this device (or garbage, which `obj` refuses).
        match unsafe { &obj::<Memory, _>(memory)?.backing } {
            Backing::HardwareBuffer { buffer, .. } => Some(buffer.clone()),
            Backing::Heap(_) => None,
        }
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

    fn import_native_buffer(
        _device: vk::Device,
        import: NativeBufferImport<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> Result<vk::Image, vk::Result> {
        // No pixels to bind: the image keeps the buffer (and its fd) alive.
        let allocator = allocator.map_or(ptr::null(), ptr::from_ref);
        new_image(import.create_info, Some(import.buffer), allocator)
    }
}

/// The null driver's command map as the kit's bring-up table ([`Kit::NULL_OBJECTS`]): its
/// hooks; its native-buffer component and `…2` routes (these take raw handles, so they serve
/// another kit driver's objects too); its sync component; then its stubs. Never its kit
/// commons: those would read the other driver's base objects as the null driver's.
pub fn bring_up_entries() -> EntryTable {
    /// The key the bring-up table is cached under (the null driver's own map is another).
    struct BringUp;
    *kit::cached_entries::<BringUp>(|| {
        let mut hooks = EntryTable::entry_points::<NullDriver>();
        hooks.retain(<NullDriver as Driver>::implements);
        let hooks = hooks
            .or(&kit::native_buffer::entries::<NullDriver>())
            .or(&kit::routes::entries::<NullDriver>());
        // The 1.4 routes exist only in tables generated from a 1.4 registry (build.rs).
        #[cfg(vk_1_4)]
        let hooks = hooks.or(&kit::routes_1_4::entries::<NullDriver>());
        hooks
            .or(&kit::sync::entries::<NullDriver>())
            .or(&EntryTable::entry_points::<NullDriver>())
    })
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

    // Memory.

    unsafe fn allocate_memory(
        _device: vk::Device,
        p_allocate_info: *const vk::MemoryAllocateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_memory: *mut vk::DeviceMemory,
    ) -> vk::Result {
        // SAFETY: `p_allocate_info` is the application's, null or valid for this call.
        let Some(info) = (unsafe { p_allocate_info.as_ref() }) else {
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "no allocate info"
            );
        };
        if info.memory_type_index != 0 {
            let index = info.memory_type_index;
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                "memory type {index}: the null device has one"
            );
        }
        // SAFETY: `info` is the application's allocate info (checked non-null above) with a chain
        // valid for this call, which is all `parse` reads.
        let memory = match unsafe { HardwareBufferAllocation::parse(info) } {
            Err(e) => Err(e),
            Ok(Some(HardwareBufferAllocation::Import { buffer, .. })) => {
                Memory::hardware_buffer(buffer)
            }
            Ok(Some(HardwareBufferAllocation::Export {
                dedicated_image,
                size,
            })) => {
                // SAFETY: null or a live image of this device.
                let target = match unsafe { obj::<Image, _>(dedicated_image) } {
                    Some(i) => ExportTarget::Image {
                        format: i.format,
                        width: i.extent.width,
                        height: i.extent.height,
                        usage: kit::hardware_buffer::usage_of_image(i.usage, i.flags),
                    },
                    None => ExportTarget::Blob { size },
                };
                target.allocate().and_then(Memory::hardware_buffer)
            }
            Ok(None) if info.allocation_size == 0 || info.allocation_size > HEAP_SIZE => {
                Err(vkgen_abi::vk_error!(
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                    "{} bytes: not in 1..={HEAP_SIZE}",
                    info.allocation_size
                ))
            }
            Ok(None) => Memory::heap(info.allocation_size),
        };
        let memory = match memory {
            Ok(m) => m,
            Err(e) => return e,
        };
        // On failure `create_object` drops the `Memory`, which frees its pages.
        // SAFETY: `p_allocator` is the application's vkAllocateMemory allocator, null or valid
        // until the memory is freed.
        match unsafe { create_object(memory, p_allocator) } {
            Ok(h) => {
                // SAFETY: `p_memory` is the application's vkAllocateMemory output, valid for a
                // write.
                unsafe { *p_memory = vk::Handle::from_raw(h) };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn free_memory(
        _device: vk::Device,
        memory: vk::DeviceMemory,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        // SAFETY: null or live memory the application is done with.
        unsafe { destroy_object::<Memory>(vk::Handle::as_raw(memory)) };
    }

    unsafe fn map_memory(
        _device: vk::Device,
        memory: vk::DeviceMemory,
        offset: vk::DeviceSize,
        _size: vk::DeviceSize,
        _flags: vk::MemoryMapFlags,
        pp_data: *mut *mut c_void,
    ) -> vk::Result {
        // SAFETY: `memory` is null or a live memory of this driver (vkMapMemory's valid usage);
        // `obj` checks its signature.
        let Some(m) = (unsafe { obj::<Memory, _>(memory) }) else {
            return vkgen_abi::vk_error!(
                vk::Result::ERROR_MEMORY_MAP_FAILED,
                "{memory:?} is no memory of the null driver"
            );
        };
        let offset = match usize::try_from(offset) {
            Ok(o) if o < m.len && !pp_data.is_null() => o,
            _ => {
                let why = format!("offset {offset} of {} bytes, or no ppData", m.len);
                return vkgen_abi::vk_error!(vk::Result::ERROR_MEMORY_MAP_FAILED, "{why}");
            }
        };
        // SAFETY: `offset` is inside the allocation; `pp_data` is writable.
        unsafe { *pp_data = m.ptr.as_ptr().add(offset).cast() };
        vk::Result::SUCCESS
    }

    unsafe fn get_device_memory_commitment(
        _device: vk::Device,
        memory: vk::DeviceMemory,
        p_committed: *mut vk::DeviceSize,
    ) {
        // SAFETY: a live memory handle; valid output pointer.
        unsafe {
            if let (Some(m), Some(out)) = (obj::<Memory, _>(memory), p_committed.as_mut()) {
                *out = m.len as u64;
            }
        }
    }

    // Buffers and images.

    unsafe fn create_buffer(
        _device: vk::Device,
        p_create_info: *const vk::BufferCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_buffer: *mut vk::Buffer,
    ) -> vk::Result {
        // SAFETY: `p_create_info` is the application's, null or valid for this call.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_INITIALIZATION_FAILED, "no create info");
        };
        // SAFETY: `p_allocator` is the application's vkCreateBuffer allocator, null or valid until
        // the buffer is destroyed.
        match unsafe { create_object(Buffer { size: ci.size }, p_allocator) } {
            Ok(h) => {
                // SAFETY: `p_buffer` is the application's vkCreateBuffer output, valid for a write.
                unsafe { *p_buffer = vk::Handle::from_raw(h) };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn destroy_buffer(
        _device: vk::Device,
        buffer: vk::Buffer,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        // SAFETY: null or a live buffer the application is done with.
        unsafe { destroy_object::<Buffer>(vk::Handle::as_raw(buffer)) };
    }

    unsafe fn get_buffer_memory_requirements2(
        _device: vk::Device,
        p_info: *const vk::BufferMemoryRequirementsInfo2<'_>,
        p_memory_requirements: *mut vk::MemoryRequirements2<'_>,
    ) {
        // SAFETY: valid input structure with a live buffer; valid output structure.
        unsafe {
            if let Some(b) = p_info.as_ref().and_then(|i| obj::<Buffer, _>(i.buffer)) {
                write_requirements2(p_memory_requirements, buffer_requirements(b.size));
            }
        }
    }

    unsafe fn get_device_buffer_memory_requirements(
        _device: vk::Device,
        p_info: *const vk::DeviceBufferMemoryRequirements<'_>,
        p_memory_requirements: *mut vk::MemoryRequirements2<'_>,
    ) {
        // SAFETY: valid input structure (with its create info); valid output structure.
        unsafe {
            if let Some(ci) = p_info.as_ref().and_then(|i| i.p_create_info.as_ref()) {
                write_requirements2(p_memory_requirements, buffer_requirements(ci.size));
            }
        }
    }

    unsafe fn create_image(
        device: vk::Device,
        p_create_info: *const vk::ImageCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_image: *mut vk::Image,
    ) -> vk::Result {
        // SAFETY: the application's vkCreateImage arguments: a create info (with chain) valid for
        // this call and `p_image` valid for a write; a `VkNativeBufferANDROID` goes through the
        // kit's import.
        if let Some(r) = unsafe {
            create_native_buffer_image::<Self>(device, p_create_info, p_allocator, p_image)
        } {
            return r;
        }
        // SAFETY: `p_create_info` is the application's, null or valid for this call.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_INITIALIZATION_FAILED, "no create info");
        };
        match new_image(ci, None, p_allocator) {
            Ok(image) => {
                // SAFETY: `p_image` is the application's vkCreateImage output, valid for a write.
                unsafe { *p_image = image };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn destroy_image(
        _device: vk::Device,
        image: vk::Image,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        // SAFETY: null or a live image the application is done with.
        unsafe { destroy_object::<Image>(vk::Handle::as_raw(image)) };
    }

    unsafe fn get_image_memory_requirements2(
        _device: vk::Device,
        p_info: *const vk::ImageMemoryRequirementsInfo2<'_>,
        p_memory_requirements: *mut vk::MemoryRequirements2<'_>,
    ) {
        // SAFETY: valid input structure with a live image; valid output structure.
        unsafe {
            if let Some(i) = p_info.as_ref().and_then(|i| obj::<Image, _>(i.image)) {
                write_requirements2(p_memory_requirements, image_requirements(i.size));
            }
        }
    }

    unsafe fn get_device_image_memory_requirements(
        _device: vk::Device,
        p_info: *const vk::DeviceImageMemoryRequirements<'_>,
        p_memory_requirements: *mut vk::MemoryRequirements2<'_>,
    ) {
        // SAFETY: valid input structure (with its create info); valid output structure.
        unsafe {
            if let Some(ci) = p_info.as_ref().and_then(|i| i.p_create_info.as_ref()) {
                write_requirements2(p_memory_requirements, image_requirements(image_size(ci)));
            }
        }
    }

    unsafe fn get_image_sparse_memory_requirements2(
        _device: vk::Device,
        _p_info: *const vk::ImageSparseMemoryRequirementsInfo2<'_>,
        p_count: *mut u32,
        p_requirements: *mut vk::SparseImageMemoryRequirements2<'_>,
    ) {
        // SAFETY: `p_count` and `p_requirements` are the application's two-call idiom pointers of
        // vkGetImageSparseMemoryRequirements2, null or valid; zero elements are written.
        let _ = unsafe { write_array_with(0, p_count, p_requirements, |_, _| {}) };
    }

    unsafe fn get_device_image_sparse_memory_requirements(
        _device: vk::Device,
        _p_info: *const vk::DeviceImageMemoryRequirements<'_>,
        p_count: *mut u32,
        p_requirements: *mut vk::SparseImageMemoryRequirements2<'_>,
    ) {
        // SAFETY: `p_count` and `p_requirements` are the application's two-call idiom pointers of
        // vkGetDeviceImageSparseMemoryRequirements, null or valid; zero elements are written.
        let _ = unsafe { write_array_with(0, p_count, p_requirements, |_, _| {}) };
    }

    unsafe fn get_image_subresource_layout(
        _device: vk::Device,
        image: vk::Image,
        p_subresource: *const vk::ImageSubresource,
        p_layout: *mut vk::SubresourceLayout,
    ) {
        // SAFETY: a live image; valid input and output pointers.
        let (Some(img), Some(sub), Some(out)) = (unsafe {
            (
                obj::<Image, _>(image),
                p_subresource.as_ref(),
                p_layout.as_mut(),
            )
        }) else {
            return;
        };
        let texel = texel_bytes(img.format);
        let level = sub.mip_level.min(img.mip_levels - 1);
        let mut offset = 0u64;
        let mut layout = vk::SubresourceLayout::default();
        for l in 0..=level {
            let w = u64::from((img.extent.width >> l).max(1));
            let h = u64::from((img.extent.height >> l).max(1));
            let d = u64::from((img.extent.depth >> l).max(1));
            layout = vk::SubresourceLayout {
                offset,
                row_pitch: w * texel,
                depth_pitch: w * h * texel,
                array_pitch: w * h * d * texel,
                size: w * h * d * texel * u64::from(img.array_layers),
            };
            offset += layout.size;
        }
        layout.offset += layout.array_pitch * u64::from(sub.array_layer.min(img.array_layers - 1));
        layout.size = layout.array_pitch;
        *out = layout;
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

    unsafe fn get_query_pool_results(
        _device: vk::Device,
        _query_pool: vk::QueryPool,
        _first_query: u32,
        _query_count: u32,
        data_size: usize,
        p_data: *mut c_void,
        _stride: vk::DeviceSize,
        _flags: vk::QueryResultFlags,
    ) -> vk::Result {
        if !p_data.is_null() {
            // SAFETY: `p_data` is non-null here and holds `dataSize` bytes (vkGetQueryPoolResults'
            // valid usage).
            unsafe { ptr::write_bytes(p_data.cast::<u8>(), 0, data_size) };
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
        create_query_pool / destroy_query_pool (vk::QueryPoolCreateInfo<'_>) -> vk::QueryPool: QUERY_POOL;
        create_buffer_view / destroy_buffer_view (vk::BufferViewCreateInfo<'_>) -> vk::BufferView: BUFFER_VIEW;
        create_image_view / destroy_image_view (vk::ImageViewCreateInfo<'_>) -> vk::ImageView: IMAGE_VIEW;
        create_shader_module / destroy_shader_module (vk::ShaderModuleCreateInfo<'_>) -> vk::ShaderModule: SHADER_MODULE;
        create_pipeline_cache / destroy_pipeline_cache (vk::PipelineCacheCreateInfo<'_>) -> vk::PipelineCache: PIPELINE_CACHE;
        create_pipeline_layout / destroy_pipeline_layout (vk::PipelineLayoutCreateInfo<'_>) -> vk::PipelineLayout: PIPELINE_LAYOUT;
        create_sampler / destroy_sampler (vk::SamplerCreateInfo<'_>) -> vk::Sampler: SAMPLER;
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

    // Private data.

    unsafe fn create_private_data_slot(
        _device: vk::Device,
        _p_create_info: *const vk::PrivateDataSlotCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_private_data_slot: *mut vk::PrivateDataSlot,
    ) -> vk::Result {
        let slot = PrivateDataSlot {
            data: Mutex::new(HashMap::new()),
        };
        // SAFETY: `p_allocator` is the application's vkCreatePrivateDataSlot allocator, null or
        // valid until the slot is destroyed.
        match unsafe { create_object(slot, p_allocator) } {
            Ok(h) => {
                // SAFETY: `p_private_data_slot` is the application's vkCreatePrivateDataSlot
                // output, valid for a write.
                unsafe { *p_private_data_slot = vk::Handle::from_raw(h) };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn destroy_private_data_slot(
        _device: vk::Device,
        private_data_slot: vk::PrivateDataSlot,
        _p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        // SAFETY: null or a live slot the application is done with.
        unsafe { destroy_object::<PrivateDataSlot>(vk::Handle::as_raw(private_data_slot)) };
    }

    unsafe fn set_private_data(
        _device: vk::Device,
        object_type: vk::ObjectType,
        object_handle: u64,
        private_data_slot: vk::PrivateDataSlot,
        data: u64,
    ) -> vk::Result {
        // SAFETY: `private_data_slot` is null or a live slot of this driver (vkSetPrivateData's
        // valid usage); `obj` checks its signature.
        match unsafe { obj::<PrivateDataSlot, _>(private_data_slot) } {
            Some(s) => {
                lock(&s.data).insert((object_type.as_raw(), object_handle), data);
                vk::Result::SUCCESS
            }
            None => vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "no such private-data slot"
            ),
        }
    }

    unsafe fn get_private_data(
        _device: vk::Device,
        object_type: vk::ObjectType,
        object_handle: u64,
        private_data_slot: vk::PrivateDataSlot,
        p_data: *mut u64,
    ) {
        // SAFETY: a live slot; valid output pointer.
        unsafe {
            let v = obj::<PrivateDataSlot, _>(private_data_slot)
                .and_then(|s| {
                    lock(&s.data)
                        .get(&(object_type.as_raw(), object_handle))
                        .copied()
                })
                .unwrap_or(0);
            if let Some(out) = p_data.as_mut() {
                *out = v;
            }
        }
    }

    // VK_ANDROID_native_buffer.
}
