//! The host driver: passthrough to a real Khronos ICD (lavapipe, NVIDIA), plus
//! `VK_ANDROID_native_buffer` on top.
//!
//! # Which ICD
//! Served for a loader (`libvulkan.so` on a Linux host, [`adapter`]): the ICD the loader scanned,
//! opened and negotiated, handed over through `vkgen_host_adapt_icd`, one slot per ICD; nothing
//! is searched or opened here. On its own (`vulkan.host.so` as a HAL module or ICD, slot 0):
//! the ICD is opened **directly**, never through the system loader: its manifest is
//! `$VKGEN_HOST_ICD` if set (only that one), else the first usable one of the platform's
//! Khronos search ([`candidate_manifests`]: `$XDG_CONFIG_HOME`, `$XDG_CONFIG_DIRS`, `/etc`,
//! `$XDG_DATA_HOME`, `$XDG_DATA_DIRS`, each `+ vulkan/icd.d`, then NVIDIA's container location
//! `/usr/local/nvidia/share/vulkan/icd.d`; setuid-safe), NVIDIA first, then lavapipe, then the
//! rest. The manifest is parsed by the platform's rules, the library `dlopen`ed (`RTLD_NOW |
//! RTLD_LOCAL`, kept for the life of the process), interface version 7 offered through
//! `vk_icdNegotiateLoaderICDInterfaceVersion` (at least 2 required, so dispatchable objects
//! carry `ICD_LOADER_MAGIC`), and `vk_icdGetInstanceProcAddr` used for everything. Libraries that
//! export `HMI` are vkgen drivers and are skipped, so a manifest for this very driver in a standard
//! directory cannot make it load itself. No usable ICD means `vkCreateInstance` returns
//! `VK_ERROR_INCOMPATIBLE_DRIVER` (no devices are ever enumerated) and nothing crashes.
//!
//! # Passthrough
//! A Khronos ICD keeps word 0 of its dispatchable objects for the loader, which is exactly the
//! contract of Android's HAL, so host handles go straight up. [`HostDriver::intercepts`] is true
//! only for the commands below; every other proc address is the host's own function
//! (`vk_icdGetInstanceProcAddr(instance, name)`, the host's `vkGetDeviceProcAddr(device, name)` at
//! device level, `vk_icdGetPhysicalDeviceProcAddr` for physical-device lookups): zero overhead.
//! [`HostDriver::supports_extension`] answers from the host's instance extensions and the union
//! of its devices' extensions (probed once with a throw-away instance), so commands of
//! extensions the host lacks are not exposed.
//!
//! Intercepted, with the reason:
//! * `vkCreateInstance` (no host → `VK_ERROR_INCOMPATIBLE_DRIVER`; the host instance gets
//!   apiVersion ≥ 1.1 so the 1.1 entry points used below exist), `vkDestroyInstance`,
//!   `vkEnumerateInstanceVersion` (clamped to 1.3, the generated API), and
//!   `vkEnumerateInstanceExtensionProperties` (answers without a host): bookkeeping.
//! * `vkGetInstanceProcAddr` / `vkGetDeviceProcAddr`: so that proc addresses asked of the driver
//!   go through these rules rather than straight to the host.
//! * `vkEnumerateDeviceExtensionProperties`: adds `VK_ANDROID_native_buffer` (spec 11) where the
//!   host has `VK_EXT_external_memory_host`.
//! * `vkCreateDevice` / `vkDestroyDevice`: strips ANB before the host sees it and enables what
//!   it needs (`VK_EXT_external_memory_host`; `VK_KHR_external_fence_fd` where the host can
//!   export `SYNC_FD` fences); per-device state; the release worker thread is joined at destroy.
//! * `vkGetDeviceQueue{,2}`: remembers which device a queue belongs to.
//! * `vkGetPhysicalDeviceProperties2{,KHR}`: fills `VkPhysicalDevicePresentationPropertiesANDROID`
//!   (`sharedImage = VK_TRUE`: the import below is zero-copy, so producer and consumer share
//!   the memory).
//! * `vkCreateImage` / `vkBindImageMemory{,2}` / `vkDestroyImage`: `VkNativeBufferANDROID`, and
//!   `AHardwareBuffer` images (`hardware_buffer`).
//! * `vkAllocateMemory`, `vkFreeMemory`, `vkCreateBuffer`, `vkCreateImageView`,
//!   `vkGet{AndroidHardwareBufferProperties,MemoryAndroidHardwareBuffer}ANDROID` and the
//!   image-format / external-buffer queries: `VK_ANDROID_external_memory_android_hardware_buffer`
//!   over host-pointer imports, with multi-planar formats emulated by plane images where the
//!   host has none (`hardware_buffer`).
//! * `vkQueueSubmit{,2}`, `vkCreate{Semaphore,Fence}`, `vkDestroySemaphore`, the fd commands and
//!   the external semaphore/fence queries: `SYNC_FD` emulated where the host lacks the fd
//!   extensions (`sync_fd`); with no emulating device a submission costs one atomic load more
//!   than the host's own.
//! * `vkGetSwapchainGrallocUsage{,2,3,4}ANDROID`, `vkAcquireImageANDROID`,
//!   `vkQueueSignalReleaseImageANDROID`.
//!
//! # Native buffers: `VK_EXT_external_memory_host`
//! A gralloc buffer is a memfd. `VK_KHR_external_memory_fd`'s `OPAQUE_FD` means "an fd this
//! driver exported", not a memfd, so importing one is invalid (lavapipe would misinterpret it).
//! Instead the memfd is `mmap`ed `MAP_SHARED` and the mapping imported as host memory
//! (`VkImportMemoryHostPointerInfoEXT`, `HOST_ALLOCATION`): zero-copy, and works on lavapipe and
//! NVIDIA. The image is created `LINEAR` with `VkExternalMemoryImageCreateInfo(HOST_ALLOCATION)`;
//! its row pitch must equal the buffer's (lavapipe: `align(align(w, 4) * bpp, 64)`, which is what
//! our gralloc allocates), otherwise `VK_ERROR_INVALID_EXTERNAL_HANDLE`. The import must cover the
//! image's memory requirements (lavapipe pads height to 4 rows) in whole multiples of
//! `minImportedHostPointerAlignment`, which can be more than the file holds: the mapping is an
//! anonymous reservation of the full size with the file mapped over its start (`MAP_FIXED`), so
//! the padding is private scratch memory and never touches pages beyond the end of the file.
//! Images created with `VkNativeBufferANDROID` are bound at creation; images created with
//! `VkImageSwapchainCreateInfoKHR` are created importable and bound when `vkBindImageMemory2`
//! brings the `VkNativeBufferANDROID` (spec ≥ 8).
//!
//! # Native fences
//! * `vkAcquireImageANDROID` takes the fd (closing it on every path), waits for it on the calling
//!   thread, closes it, then signals the semaphore and/or fence with an empty `vkQueueSubmit` on
//!   the device's first queue (under a per-device lock; the application must not use that queue
//!   concurrently from another thread, which it must not anyway while it is inside
//!   `vkAcquireNextImageKHR` on the same swapchain's device, the only caller).
//! * `vkQueueSignalReleaseImageANDROID` submits a batch waiting on the semaphores (all stages)
//!   with a pooled fence. Where the host exports `SYNC_FD` fences (NVIDIA), the fence's
//!   `sync_file` is returned. Otherwise (lavapipe) an eventfd
//!   [`FenceSignaller`](crate::sync_fd::FenceSignaller) fd is returned and the device's worker
//!   thread (started on first use) waits for the host fence, signals the eventfd and recycles the
//!   fence.

#[macro_use]
mod registry;
pub mod adapter;
mod copy_backed;
mod device;
mod driver;
mod external_fd;
mod hardware_buffer;
mod icd;
mod mapping;
mod names;
mod native_buffer;
mod queue_family;
mod release;
mod sync_fd;
mod sync_waiter;

use std::ffi::{c_char, CStr};
use std::sync::Arc;

use vkgen_generated::commands::{self, CommandId, Level};
use vkgen_generated::driver::Driver;
use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::vk;

use crate::export::DriverModule;
use crate::kit::native_buffer::create_native_buffer_image;
use device::*;
use icd::*;
use native_buffer::*;
use registry::*;

pub use driver::HostDriver;
pub use icd::{candidate_manifests, discover, host_icd, HostError, HostIcd, ADAPTER_SLOTS};
use names::*;
pub use names::{HOST_ICD_ENV, NATIVE_BUFFER_SPEC_VERSION};

use crate::util::{extension_properties, find_in_chain, for_each_out, write_array};

// ---------------------------------------------------------------------------------------------
// The driver

/// [`INTERCEPTED`], one bit per command: `intercepts` runs for every name the adapter is asked.
const INTERCEPTED_BITS: [u64; commands::COMMANDS.len().div_ceil(64)] = {
    let mut bits = [0; commands::COMMANDS.len().div_ceil(64)];
    let mut i = 0;
    while i < INTERCEPTED.len() {
        let c = INTERCEPTED[i].0 as usize;
        bits[c / 64] |= 1 << (c % 64);
        i += 1;
    }
    bits
};

/// The canonical commands the host driver handles itself (aliases follow their command).
const INTERCEPTED: &[CommandId] = &[
    CommandId::CREATE_INSTANCE,
    CommandId::DESTROY_INSTANCE,
    CommandId::ENUMERATE_INSTANCE_VERSION,
    CommandId::ENUMERATE_INSTANCE_EXTENSION_PROPERTIES,
    CommandId::GET_INSTANCE_PROC_ADDR,
    CommandId::GET_DEVICE_PROC_ADDR,
    CommandId::ENUMERATE_DEVICE_EXTENSION_PROPERTIES,
    CommandId::CREATE_DEVICE,
    CommandId::DESTROY_DEVICE,
    CommandId::GET_DEVICE_QUEUE,
    CommandId::GET_DEVICE_QUEUE2,
    CommandId::GET_PHYSICAL_DEVICE_PROPERTIES2,
    CommandId::CREATE_IMAGE,
    CommandId::DESTROY_IMAGE,
    CommandId::BIND_IMAGE_MEMORY2,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE_ANDROID,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE2_ANDROID,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE3_ANDROID,
    CommandId::GET_SWAPCHAIN_GRALLOC_USAGE4_ANDROID,
    CommandId::ACQUIRE_IMAGE_ANDROID,
    CommandId::QUEUE_SIGNAL_RELEASE_IMAGE_ANDROID,
    CommandId::GET_ANDROID_HARDWARE_BUFFER_PROPERTIES_ANDROID,
    CommandId::GET_MEMORY_ANDROID_HARDWARE_BUFFER_ANDROID,
    CommandId::ALLOCATE_MEMORY,
    CommandId::FREE_MEMORY,
    CommandId::BIND_IMAGE_MEMORY,
    CommandId::CREATE_IMAGE_VIEW,
    CommandId::CREATE_BUFFER,
    CommandId::GET_PHYSICAL_DEVICE_IMAGE_FORMAT_PROPERTIES2,
    CommandId::GET_PHYSICAL_DEVICE_EXTERNAL_BUFFER_PROPERTIES,
    CommandId::CREATE_SEMAPHORE,
    CommandId::DESTROY_SEMAPHORE,
    CommandId::CREATE_FENCE,
    CommandId::RESET_FENCES,
    CommandId::GET_SEMAPHORE_FD_KHR,
    CommandId::IMPORT_SEMAPHORE_FD_KHR,
    CommandId::GET_FENCE_FD_KHR,
    CommandId::IMPORT_FENCE_FD_KHR,
    CommandId::GET_PHYSICAL_DEVICE_EXTERNAL_SEMAPHORE_PROPERTIES,
    CommandId::GET_PHYSICAL_DEVICE_EXTERNAL_FENCE_PROPERTIES,
    CommandId::QUEUE_SUBMIT,
    CommandId::CMD_PIPELINE_BARRIER,
    CommandId::CREATE_SAMPLER_YCBCR_CONVERSION,
    CommandId::CMD_PIPELINE_BARRIER2,
    CommandId::QUEUE_SUBMIT2,
];

impl<const SLOT: usize> DriverModule for HostDriver<SLOT> {
    const NAME: &'static CStr = c"vkgen host passthrough Vulkan driver";

    fn max_icd_interface_version() -> u32 {
        Self::icd().map_or(
            crate::export::MAX_ICD_INTERFACE_VERSION,
            HostIcd::interface_version,
        )
    }
}

#[crate::driver]
impl<const SLOT: usize> Driver for HostDriver<SLOT> {
    fn fallback(cmd: CommandId) -> vk::PFN_vkVoidFunction {
        crate::kit::cached_entries::<Self>(crate::kit::native_buffer::entries::<Self>).get(cmd)
    }

    const API_VERSION: u32 = vkgen_generated::API_VERSION;

    fn supports_extension(ext: ExtensionId) -> bool {
        if matches!(
            ext,
            ExtensionId::ANDROID_NATIVE_BUFFER
                | ExtensionId::ANDROID_EXTERNAL_MEMORY_ANDROID_HARDWARE_BUFFER
                | ExtensionId::EXT_QUEUE_FAMILY_FOREIGN
                | ExtensionId::KHR_EXTERNAL_SEMAPHORE_FD
                | ExtensionId::KHR_EXTERNAL_FENCE_FD
        ) {
            return true;
        }
        let Some(host) = Self::icd() else {
            return false;
        };
        host.supports(ext)
    }

    fn intercepts(cmd: CommandId) -> bool {
        let canonical = usize::from(commands::info(cmd).alias_of.unwrap_or(cmd).0);
        INTERCEPTED_BITS
            .get(canonical / 64)
            .is_some_and(|w| w & (1 << (canonical % 64)) != 0)
    }

    unsafe fn passthrough(
        level: Level,
        handle: u64,
        name: &CStr,
        cmd: Option<CommandId>,
    ) -> vk::PFN_vkVoidFunction {
        let host = Self::icd()?;
        // A name ash asked the ICD for when it loaded the handle's table is answered as the
        // ICD answered then (`Answers`), without asking again.
        let f = match level {
            Level::Device => {
                let reg = registry();
                let dev = reg.devices.get(&handle)?;
                let recorded = cmd.and_then(|id| dev.answers.get(id));
                let gdpa = (dev.gdpa, dev.handle);
                drop(reg);
                // Device level: none of `queue_family::wrap`'s physical-device names.
                return match recorded {
                    Some(f) => f,
                    // SAFETY: the host's vkGetDeviceProcAddr with its own live device and a C
                    // string.
                    None => unsafe { (gdpa.0)(gdpa.1, name.as_ptr()) },
                };
            }
            _ => {
                // Without a vk_icdGetPhysicalDeviceProcAddr, the physical-device lookup below
                // is the one ash used too.
                let same_lookup = level == Level::Instance
                    || (level == Level::PhysicalDevice && host.gpdpa.is_none());
                let recorded = same_lookup
                    .then(|| {
                        let reg = registry();
                        let answers = &reg.instances.get(&handle)?.answers;
                        cmd.and_then(|id| answers.get(id))
                    })
                    .flatten();
                match (recorded, level) {
                    (Some(f), _) => f,
                    (None, Level::PhysicalDevice) => {
                        let lookup = host.gpdpa.unwrap_or(host.gipa);
                        // SAFETY: the host's lookup with its own instance handle (or null).
                        unsafe { lookup(vk::Handle::from_raw(handle), name.as_ptr()) }
                    }
                    // SAFETY: the host's lookup with its own instance handle (or null).
                    (None, _) => unsafe {
                        (host.gipa)(vk::Handle::from_raw(handle), name.as_ptr())
                    },
                }
            }
        };
        queue_family::wrap(name, f)
    }

    fn unimplemented(cmd: CommandId) -> vk::Result {
        // Reached only for commands the host does not provide.
        vkgen_abi::vk_error!(
            vk::Result::ERROR_EXTENSION_NOT_PRESENT,
            "{cmd:?}: not on the host"
        )
    }

    // --- global ---------------------------------------------------------------------------

    unsafe fn enumerate_instance_version(p_api_version: *mut u32) -> vk::Result {
        let v = Self::icd().map_or(MAX_API_VERSION, |h| h.instance_version.min(MAX_API_VERSION));
        // SAFETY: valid output pointer (null tolerated).
        if let Some(out) = unsafe { p_api_version.as_mut() } {
            *out = v;
        }
        vk::Result::SUCCESS
    }

    unsafe fn enumerate_instance_extension_properties(
        p_layer_name: *const c_char,
        p_property_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        match Self::icd() {
            // SAFETY: the host ICD's global vkEnumerateInstanceExtensionProperties with the
            // application's layer name and two-call idiom pointers, unchanged.
            Some(h) => unsafe {
                (h.entry.fp_v1_0().enumerate_instance_extension_properties)(
                    p_layer_name,
                    p_property_count,
                    p_properties,
                )
            },
            None if !p_layer_name.is_null() => {
                vkgen_abi::vk_error!(vk::Result::ERROR_LAYER_NOT_PRESENT, "no host, no layers")
            }
            // SAFETY: no host: the application's two-call idiom pointers of
            // vkEnumerateInstanceExtensionProperties, null or valid; no extensions are written.
            None => unsafe {
                write_array::<vk::ExtensionProperties>(&[], p_property_count, p_properties)
            },
        }
    }

    unsafe fn enumerate_instance_layer_properties(
        p_property_count: *mut u32,
        p_properties: *mut vk::LayerProperties,
    ) -> vk::Result {
        // Only reached without a host (otherwise the host's function is returned).
        // SAFETY: the application's two-call idiom pointers of vkEnumerateInstanceLayerProperties,
        // null or valid; no layers are written.
        unsafe { write_array::<vk::LayerProperties>(&[], p_property_count, p_properties) }
    }

    unsafe fn create_instance(
        p_create_info: *const vk::InstanceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_instance: *mut vk::Instance,
    ) -> vk::Result {
        // SAFETY: the application's vkCreateInstance arguments, unchanged, for the function
        // with this hook's contract; `Self::icd()` and `SLOT` pick this slot's ICD.
        unsafe { create_host_instance(Self::icd(), SLOT, p_create_info, p_allocator, p_instance) }
    }

    unsafe fn destroy_instance(
        instance: vk::Instance,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let raw = vk::Handle::as_raw(instance);
        let inst = {
            let mut reg = registry_mut();
            let inst = reg.instances.remove(&raw);
            if let Some(i) = &inst {
                reg.physical.retain(|_, v| !Arc::ptr_eq(v, i));
            }
            inst
        };
        if let Some(inst) = inst {
            // SAFETY: the application is done with the instance.
            unsafe { (inst.fns.fp_v1_0().destroy_instance)(instance, p_allocator) };
        }
    }

    unsafe fn enumerate_physical_devices(
        _instance: vk::Instance,
        p_physical_device_count: *mut u32,
        p_physical_devices: *mut vk::PhysicalDevice,
    ) -> vk::Result {
        // Only reached without a host: no devices.
        // SAFETY: the application's two-call idiom pointers of vkEnumeratePhysicalDevices, null or
        // valid; no devices are written.
        unsafe {
            write_array::<vk::PhysicalDevice>(&[], p_physical_device_count, p_physical_devices)
        }
    }

    // --- physical device ------------------------------------------------------------------

    unsafe fn get_physical_device_properties2(
        physical_device: vk::PhysicalDevice,
        p_properties: *mut vk::PhysicalDeviceProperties2<'_>,
    ) {
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: the host's function (core 1.1: the host instance is ≥ 1.1) with valid
        // arguments; the host skips our ANDROID structure like any unknown one.
        unsafe {
            (inst.fns.fp_v1_1().get_physical_device_properties2)(physical_device, p_properties);
            if let Some(p) = p_properties.as_mut() {
                for_each_out(p.p_next, |s| {
                    if (*s).s_type
                        == vk::StructureType::PHYSICAL_DEVICE_PRESENTATION_PROPERTIES_ANDROID
                    {
                        (*s.cast::<vk::PhysicalDevicePresentationPropertiesANDROID>())
                            .shared_image = vk::TRUE;
                    }
                });
            }
        }
    }

    unsafe fn enumerate_device_extension_properties(
        physical_device: vk::PhysicalDevice,
        p_layer_name: *const c_char,
        p_property_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        let inst = instance_or!(physical_device, vk::Result::ERROR_INITIALIZATION_FAILED);
        if !p_layer_name.is_null() {
            // SAFETY: a layer's extensions are the host's to answer: its
            // vkEnumerateDeviceExtensionProperties for a physical device of `inst`, with the
            // application's pointers unchanged.
            return unsafe {
                (inst.fns.fp_v1_0().enumerate_device_extension_properties)(
                    physical_device,
                    p_layer_name,
                    p_property_count,
                    p_properties,
                )
            };
        }
        // SAFETY: `physical_device` was found in `inst` by `instance_or!` above.
        let mut list = unsafe { device_extensions(&inst, physical_device) };
        if has_extension(&list, MEMORY_HOST_NAME) && !has_extension(&list, NATIVE_BUFFER_NAME) {
            list.push(extension_properties(
                NATIVE_BUFFER_NAME,
                NATIVE_BUFFER_SPEC_VERSION,
            ));
        }
        let mut added = hardware_buffer::added_extensions(&list);
        added.extend(sync_fd::added_extensions(&list));
        list.extend(added);
        // SAFETY: `p_property_count` and `p_properties` are the application's two-call idiom
        // pointers of vkEnumerateDeviceExtensionProperties, null or valid for `*p_property_count`
        // elements.
        unsafe { write_array(&list, p_property_count, p_properties) }
    }

    unsafe fn create_device(
        physical_device: vk::PhysicalDevice,
        p_create_info: *const vk::DeviceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_device: *mut vk::Device,
    ) -> vk::Result {
        // SAFETY: the application's arguments, passed on unchanged to the one function that creates
        // host devices (`create_host_device` has the same contract as this hook).
        unsafe { create_host_device(physical_device, p_create_info, p_allocator, p_device, false) }
    }

    unsafe fn destroy_device(device: vk::Device, p_allocator: *const vk::AllocationCallbacks<'_>) {
        // SAFETY: `device::destroy_device` has this hook's contract; the arguments go unchanged.
        unsafe { device::destroy_device(device, p_allocator) }
    }

    // --- device ---------------------------------------------------------------------------

    unsafe fn get_device_queue(
        device: vk::Device,
        queue_family_index: u32,
        queue_index: u32,
        p_queue: *mut vk::Queue,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: the host's vkGetDeviceQueue for its own device `dev`, with the application's
        // indices and output pointer unchanged.
        unsafe {
            (dev.fns.fp_v1_0().get_device_queue)(device, queue_family_index, queue_index, p_queue)
        };
        // SAFETY: `pQueue` is the application's output pointer, null or just written by the host.
        unsafe { note_queue(dev, p_queue) };
    }

    unsafe fn get_device_queue2(
        device: vk::Device,
        p_queue_info: *const vk::DeviceQueueInfo2<'_>,
        p_queue: *mut vk::Queue,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: the host's vkGetDeviceQueue2 for its own device `dev`, with the application's
        // queue info and output pointer unchanged.
        unsafe { (dev.fns.fp_v1_1().get_device_queue2)(device, p_queue_info, p_queue) };
        // SAFETY: `pQueue` is the application's output pointer, null or just written by the host.
        unsafe { note_queue(dev, p_queue) };
    }

    unsafe fn create_image(
        device: vk::Device,
        p_create_info: *const vk::ImageCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_image: *mut vk::Image,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_INITIALIZATION_FAILED);
        // SAFETY: `pCreateInfo` is the application's, null or valid for this call.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vkgen_abi::vk_error!(vk::Result::ERROR_INITIALIZATION_FAILED, "no create info");
        };
        // SAFETY: the application's create info and output pointer, valid for this call; a
        // `VkNativeBufferANDROID` in the chain goes through the kit's import (validated there, then
        // `import_native_buffer` below).
        if let Some(r) = unsafe {
            create_native_buffer_image::<Self>(device, p_create_info, p_allocator, p_image)
        } {
            return r;
        }
        // SAFETY: valid create info and output pointer.
        if let Some(r) = unsafe { hardware_buffer::create_image(&dev, ci, p_allocator, p_image) } {
            return r;
        }
        // SAFETY: `ci` is the application's create info (checked non-null above) with a chain valid
        // for this call.
        let for_swapchain = unsafe {
            find_in_chain::<vk::BaseInStructure<'_>>(
                ci.p_next,
                vk::StructureType::IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
            )
        }
        .is_some();
        if !for_swapchain {
            // SAFETY: an image neither native-buffer, AHardwareBuffer nor swapchain: the host's
            // vkCreateImage on its own device with the application's arguments unchanged.
            return unsafe { (dev.fns.fp_v1_0().create_image)(device, ci, p_allocator, p_image) };
        }
        let Some(anb) = &dev.anb else {
            let why = "a swapchain image on a device without VK_ANDROID_native_buffer";
            return vkgen_abi::vk_error!(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE, "{why}");
        };
        // A swapchain image whose buffer comes at bind time (spec 8's deferred allocation).
        // SAFETY: the application's valid create info.
        let image = match unsafe { create_importable_image(&dev, ci, p_allocator) } {
            Ok(i) => i,
            Err(e) => return e,
        };
        lock(&anb.images).insert(vk::Handle::as_raw(image), AnbImage::Pending);
        // SAFETY: `p_image` is the application's vkCreateImage output, valid for a write.
        unsafe { *p_image = image };
        vk::Result::SUCCESS
    }

    unsafe fn destroy_image(
        device: vk::Device,
        image: vk::Image,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        if hardware_buffer::destroy_image(&dev, image, p_allocator) {
            return;
        }
        // SAFETY: the host's vkDestroyImage for an image of its own device that the application is
        // done with (vkDestroyImage's valid usage).
        unsafe { (dev.fns.fp_v1_0().destroy_image)(device, image, p_allocator) };
        if let Some(anb) = &dev.anb {
            let img = lock(&anb.images).remove(&vk::Handle::as_raw(image));
            if let Some(img) = img {
                release_anb_image(&dev, img);
            }
        }
    }

    unsafe fn bind_image_memory2(
        device: vk::Device,
        bind_info_count: u32,
        p_bind_infos: *const vk::BindImageMemoryInfo<'_>,
    ) -> vk::Result {
        // SAFETY: `native_buffer::bind_image_memory2` has this hook's contract; the arguments go
        // unchanged.
        unsafe { native_buffer::bind_image_memory2(device, bind_info_count, p_bind_infos) }
    }

    unsafe fn bind_image_memory(
        device: vk::Device,
        image: vk::Image,
        memory: vk::DeviceMemory,
        memory_offset: vk::DeviceSize,
    ) -> vk::Result {
        let info = vk::BindImageMemoryInfo::default()
            .image(image)
            .memory(memory)
            .memory_offset(memory_offset);
        // SAFETY: `info` is one bind on this stack frame, of the application's image and memory,
        // unchanged.
        unsafe { Self::bind_image_memory2(device, 1, &info) }
    }

    // --- VK_ANDROID_external_memory_android_hardware_buffer -------------------------------

    unsafe fn allocate_memory(
        device: vk::Device,
        p_allocate_info: *const vk::MemoryAllocateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_memory: *mut vk::DeviceMemory,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        // SAFETY: `pAllocateInfo` is null or the application's allocate info with a chain valid for
        // this call, and `pMemory` its output pointer; both are passed to helpers with that
        // contract.
        unsafe {
            if let Some(info) = p_allocate_info.as_ref() {
                if let Some(r) = hardware_buffer::allocate_memory(&dev, info, p_allocator, p_memory)
                {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().allocate_memory)(device, p_allocate_info, p_allocator, p_memory)
        }
    }

    unsafe fn free_memory(
        device: vk::Device,
        memory: vk::DeviceMemory,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: the host's vkFreeMemory for memory of its own device that the application is done
        // with (vkFreeMemory's valid usage); our record of it goes right after.
        unsafe { (dev.fns.fp_v1_0().free_memory)(device, memory, p_allocator) };
        hardware_buffer::forget_memory(&dev, memory);
    }

    unsafe fn create_image_view(
        device: vk::Device,
        p_create_info: *const vk::ImageViewCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_view: *mut vk::ImageView,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        // SAFETY: `pCreateInfo` is null or the application's create info with a chain valid for
        // this call, and `pView` its output pointer; both are passed to a helper with that
        // contract.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = hardware_buffer::create_image_view(&dev, ci, p_allocator, p_view) {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().create_image_view)(device, p_create_info, p_allocator, p_view)
        }
    }

    unsafe fn create_buffer(
        device: vk::Device,
        p_create_info: *const vk::BufferCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_buffer: *mut vk::Buffer,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        // SAFETY: `pCreateInfo` is null or the application's create info with a chain valid for
        // this call, and `pBuffer` its output pointer; both are passed to a helper with that
        // contract.
        unsafe {
            match p_create_info.as_ref() {
                Some(ci) => hardware_buffer::create_buffer(&dev, ci, p_allocator, p_buffer),
                None => {
                    vkgen_abi::vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "no create info")
                }
            }
        }
    }

    unsafe fn get_android_hardware_buffer_properties_android(
        device: vk::Device,
        buffer: *const vk::AHardwareBuffer,
        p_properties: *mut vk::AndroidHardwareBufferPropertiesANDROID<'_>,
    ) -> vk::Result {
        match device_of(device) {
            // SAFETY: `properties` reads `buffer` only after checking it is one of our
            // AHardwareBuffers, and `pProperties` is the application's output chain, valid for this
            // call.
            Some(dev) => unsafe { hardware_buffer::properties(&dev, buffer, p_properties) },
            None => vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "{device:?} is no live device of the host driver"
            ),
        }
    }

    unsafe fn get_memory_android_hardware_buffer_android(
        device: vk::Device,
        p_info: *const vk::MemoryGetAndroidHardwareBufferInfoANDROID<'_>,
        p_buffer: *mut *mut vk::AHardwareBuffer,
    ) -> vk::Result {
        // SAFETY: `pInfo` is null or the application's input structure, and `pBuffer` its output
        // pointer, both valid for this call; `memory_buffer` checks the output pointer for null.
        unsafe {
            match (device_of(device), p_info.as_ref()) {
                (Some(dev), Some(info)) => hardware_buffer::memory_buffer(&dev, info, p_buffer),
                _ => {
                    vkgen_abi::vk_error!(vk::Result::ERROR_OUT_OF_HOST_MEMORY, "no device or info")
                }
            }
        }
    }

    unsafe fn get_physical_device_image_format_properties2(
        physical_device: vk::PhysicalDevice,
        p_image_format_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
        p_image_format_properties: *mut vk::ImageFormatProperties2<'_>,
    ) -> vk::Result {
        // SAFETY: `hardware_buffer::get_physical_device_image_format_properties2` has this hook's contract; the arguments go
        // unchanged.
        unsafe {
            hardware_buffer::get_physical_device_image_format_properties2(
                physical_device,
                p_image_format_info,
                p_image_format_properties,
            )
        }
    }

    unsafe fn get_physical_device_external_buffer_properties(
        physical_device: vk::PhysicalDevice,
        p_external_buffer_info: *const vk::PhysicalDeviceExternalBufferInfo<'_>,
        p_external_buffer_properties: *mut vk::ExternalBufferProperties<'_>,
    ) {
        // SAFETY: `hardware_buffer::get_physical_device_external_buffer_properties` has this hook's contract; the arguments go
        // unchanged.
        unsafe {
            hardware_buffer::get_physical_device_external_buffer_properties(
                physical_device,
                p_external_buffer_info,
                p_external_buffer_properties,
            )
        }
    }

    unsafe fn queue_submit(
        queue: vk::Queue,
        submit_count: u32,
        p_submits: *const vk::SubmitInfo<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { sync_fd::submit::queue_submit(SLOT, queue, submit_count, p_submits, fence) }
    }

    unsafe fn queue_submit2(
        queue: vk::Queue,
        submit_count: u32,
        p_submits: *const vk::SubmitInfo2<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { sync_fd::submit::queue_submit2(SLOT, queue, submit_count, p_submits, fence) }
    }

    unsafe fn create_sampler_ycbcr_conversion(
        device: vk::Device,
        p_create_info: *const vk::SamplerYcbcrConversionCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_ycbcr_conversion: *mut vk::SamplerYcbcrConversion,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        // SAFETY: `pCreateInfo` is null or the application's create info with a chain valid for
        // this call, and `pYcbcrConversion` its output pointer; both are passed to a helper with
        // that contract.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = hardware_buffer::create_sampler_ycbcr_conversion(
                    &dev,
                    ci,
                    p_allocator,
                    p_ycbcr_conversion,
                ) {
                    return r;
                }
            }
            (dev.fns.fp_v1_1().create_sampler_ycbcr_conversion)(
                device,
                p_create_info,
                p_allocator,
                p_ycbcr_conversion,
            )
        }
    }

    // --- AHardwareBuffer images copied at ownership transfers (copy_backed) ----------------

    unsafe fn cmd_pipeline_barrier(
        command_buffer: vk::CommandBuffer,
        src_stage_mask: vk::PipelineStageFlags,
        dst_stage_mask: vk::PipelineStageFlags,
        dependency_flags: vk::DependencyFlags,
        memory_barrier_count: u32,
        p_memory_barriers: *const vk::MemoryBarrier<'_>,
        buffer_memory_barrier_count: u32,
        p_buffer_memory_barriers: *const vk::BufferMemoryBarrier<'_>,
        image_memory_barrier_count: u32,
        p_image_memory_barriers: *const vk::ImageMemoryBarrier<'_>,
    ) {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe {
            copy_backed::cmd_pipeline_barrier(
                SLOT,
                command_buffer,
                src_stage_mask,
                dst_stage_mask,
                dependency_flags,
                memory_barrier_count,
                p_memory_barriers,
                buffer_memory_barrier_count,
                p_buffer_memory_barriers,
                image_memory_barrier_count,
                p_image_memory_barriers,
            )
        }
    }

    unsafe fn cmd_pipeline_barrier2(
        command_buffer: vk::CommandBuffer,
        p_dependency_info: *const vk::DependencyInfo<'_>,
    ) {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { copy_backed::cmd_pipeline_barrier2(SLOT, command_buffer, p_dependency_info) }
    }

    // --- SYNC_FD (emulated where the host has no fd extensions) ----------------------------

    unsafe fn create_semaphore(
        device: vk::Device,
        p_create_info: *const vk::SemaphoreCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_semaphore: *mut vk::Semaphore,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        // SAFETY: `pCreateInfo` is null or the application's create info with a chain valid for
        // this call, and `pSemaphore` its output pointer; both are passed to a helper with that
        // contract.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = sync_fd::create_semaphore(&dev, ci, p_allocator, p_semaphore) {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().create_semaphore)(device, p_create_info, p_allocator, p_semaphore)
        }
    }

    unsafe fn destroy_semaphore(
        device: vk::Device,
        semaphore: vk::Semaphore,
        p_allocator: *const vk::AllocationCallbacks<'_>,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        sync_fd::forget_semaphore(&dev, semaphore);
        // SAFETY: the host's vkDestroySemaphore for a semaphore of its own device that the
        // application is done with (vkDestroySemaphore's valid usage).
        unsafe { (dev.fns.fp_v1_0().destroy_semaphore)(device, semaphore, p_allocator) };
    }

    unsafe fn create_fence(
        device: vk::Device,
        p_create_info: *const vk::FenceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_fence: *mut vk::Fence,
    ) -> vk::Result {
        let dev = device_or!(device, vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        // SAFETY: `pCreateInfo` is null or the application's create info with a chain valid for
        // this call, and `pFence` its output pointer; both are passed to a helper with that
        // contract.
        unsafe {
            if let Some(ci) = p_create_info.as_ref() {
                if let Some(r) = sync_fd::create_fence(&dev, ci, p_allocator, p_fence) {
                    return r;
                }
            }
            (dev.fns.fp_v1_0().create_fence)(device, p_create_info, p_allocator, p_fence)
        }
    }

    unsafe fn reset_fences(
        device: vk::Device,
        count: u32,
        p_fences: *const vk::Fence,
    ) -> vk::Result {
        // SAFETY: the application's arguments, valid per the command's contract.
        unsafe { device::reset_fences(device, count, p_fences) }
    }

    unsafe fn get_semaphore_fd_khr(
        device: vk::Device,
        p_get_fd_info: *const vk::SemaphoreGetFdInfoKHR<'_>,
        p_fd: *mut std::ffi::c_int,
    ) -> vk::Result {
        // SAFETY: `external_fd::get_semaphore_fd_khr` has this hook's contract; the arguments go
        // unchanged.
        unsafe { external_fd::get_semaphore_fd_khr(device, p_get_fd_info, p_fd) }
    }

    unsafe fn get_fence_fd_khr(
        device: vk::Device,
        p_get_fd_info: *const vk::FenceGetFdInfoKHR<'_>,
        p_fd: *mut std::ffi::c_int,
    ) -> vk::Result {
        // SAFETY: `external_fd::get_fence_fd_khr` has this hook's contract; the arguments go
        // unchanged.
        unsafe { external_fd::get_fence_fd_khr(device, p_get_fd_info, p_fd) }
    }

    unsafe fn import_semaphore_fd_khr(
        device: vk::Device,
        p_import_semaphore_fd_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
    ) -> vk::Result {
        // SAFETY: `external_fd::import_semaphore_fd_khr` has this hook's contract; the arguments go
        // unchanged.
        unsafe { external_fd::import_semaphore_fd_khr(device, p_import_semaphore_fd_info) }
    }

    unsafe fn import_fence_fd_khr(
        device: vk::Device,
        p_import_fence_fd_info: *const vk::ImportFenceFdInfoKHR<'_>,
    ) -> vk::Result {
        // SAFETY: `external_fd::import_fence_fd_khr` has this hook's contract; the arguments go
        // unchanged.
        unsafe { external_fd::import_fence_fd_khr(device, p_import_fence_fd_info) }
    }

    unsafe fn get_physical_device_external_semaphore_properties(
        physical_device: vk::PhysicalDevice,
        p_external_semaphore_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
        p_external_semaphore_properties: *mut vk::ExternalSemaphoreProperties<'_>,
    ) {
        // SAFETY: `external_fd::get_physical_device_external_semaphore_properties` is this hook's
        // body, moved beside the code it uses with this hook's contract; the arguments are the
        // application's, unchanged.
        unsafe {
            external_fd::get_physical_device_external_semaphore_properties(
                physical_device,
                p_external_semaphore_info,
                p_external_semaphore_properties,
            )
        }
    }

    unsafe fn get_physical_device_external_fence_properties(
        physical_device: vk::PhysicalDevice,
        p_external_fence_info: *const vk::PhysicalDeviceExternalFenceInfo<'_>,
        p_external_fence_properties: *mut vk::ExternalFenceProperties<'_>,
    ) {
        // SAFETY: `external_fd::get_physical_device_external_fence_properties` has this hook's
        // contract; the arguments go unchanged.
        unsafe {
            external_fd::get_physical_device_external_fence_properties(
                physical_device,
                p_external_fence_info,
                p_external_fence_properties,
            )
        }
    }

    // --- VK_ANDROID_native_buffer ---------------------------------------------------------
}
