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
//! rest. The manifest is parsed by the platform's rules, the library `dlopen`ed (`RTLD_NOW | RTLD_LOCAL`, kept
//! for the life of the process), interface version 7 offered through
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
//!   `AHardwareBuffer` images ([`hardware_buffer`]).
//! * `vkAllocateMemory`, `vkFreeMemory`, `vkCreateBuffer`, `vkCreateImageView`,
//!   `vkGet{AndroidHardwareBufferProperties,MemoryAndroidHardwareBuffer}ANDROID` and the
//!   image-format / external-buffer queries: `VK_ANDROID_external_memory_android_hardware_buffer`
//!   over host-pointer imports, with multi-planar formats emulated by plane images where the
//!   host has none ([`hardware_buffer`]).
//! * `vkQueueSubmit{,2}`, `vkCreate{Semaphore,Fence}`, `vkDestroySemaphore`, the fd commands and
//!   the external semaphore/fence queries: `SYNC_FD` emulated where the host lacks the fd
//!   extensions ([`sync_fd`]); with no emulating device a submission costs one atomic load more
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
//!   `sync_file` is returned. Otherwise (lavapipe) an eventfd [`FenceSignaller`] fd is returned
//!   and the device's worker thread (started on first use) waits for the host fence, signals the
//!   eventfd and recycles the fence.

pub mod adapter;
mod copy_backed;
mod device;
mod hardware_buffer;
mod icd;
mod native_buffer;
mod queue_family;
mod registry;
mod sync_fd;
mod sync_waiter;

use std::collections::{HashMap, HashSet};
use std::ffi::{c_char, c_void, CStr};
use std::os::fd::BorrowedFd;
use std::path::{Path, PathBuf};
use std::ptr::{self, NonNull};
use std::sync::mpsc;
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, OnceLock, PoisonError, RwLock};
use std::thread::JoinHandle;

use vkgen_abi::icd::{
    PFN_vk_icdGetPhysicalDeviceProcAddr, PFN_vk_icdNegotiateLoaderICDInterfaceVersion,
};
use vkgen_abi::native_window::buffer_usage;
use vkgen_generated::commands::{self, CommandId, Level};
use vkgen_generated::driver::Driver;
use vkgen_generated::extensions::{self, ExtensionId};
use vkgen_generated::vk;

use crate::export::DriverModule;
use crate::gralloc::Buffer;
use crate::kit::native_buffer::{
    create_native_buffer_image, native_buffer_of, GrallocQueries, GrallocUsage, NativeBufferImport,
    NativeBuffers,
};
use crate::sync_fd::FenceSignaller;
use crate::sync_fd::NativeFence;
use device::*;
use icd::*;
use native_buffer::*;
use registry::*;
use vkgen_platform::icd_manifest::{IcdManifest, IcdSearchConfig};

pub use icd::{candidate_manifests, discover, host_icd, HostError, HostIcd, ADAPTER_SLOTS};

use crate::util::{
    cstr_from_array, extension_properties, fence_error_result, find_in_chain, for_each_out,
    write_array, ChainEdit,
};

/// Environment variable naming the host ICD's manifest (overrides the search).
pub const HOST_ICD_ENV: &str = "VKGEN_HOST_ICD";
/// `VK_ANDROID_native_buffer`'s spec version as advertised.
pub const NATIVE_BUFFER_SPEC_VERSION: u32 = 11;

const NATIVE_BUFFER_NAME: &CStr = c"VK_ANDROID_native_buffer";
const MEMORY_HOST_NAME: &CStr = c"VK_EXT_external_memory_host";
const FENCE_FD_NAME: &CStr = c"VK_KHR_external_fence_fd";
/// The newest API the generated tables describe.
const MAX_API_VERSION: u32 = vkgen_generated::API_VERSION | vkgen_generated::HEADER_VERSION;

/// The host driver. See the [module docs](self).
///
/// `SLOT` says which ICD it serves: slot 0 the one it finds itself ([`host_icd`]:
/// `vulkan.host.so` loaded as a HAL module or ICD), slots 1 ..= [`ADAPTER_SLOTS`] the ICDs a
/// loader hands it ([`adapter`]). Every hook is the same code; the slot only picks the ICD, so
/// that global commands (`vkCreateInstance`, which carry no handle) reach the right one and
/// several ICDs are served in one process.
#[derive(Debug)]
pub struct HostDriver<const SLOT: usize = 0>;

impl<const SLOT: usize> HostDriver<SLOT> {
    /// The ICD this slot serves.
    fn icd() -> Option<&'static HostIcd> {
        if SLOT == 0 {
            host_icd()
        } else {
            SLOTS
                .get(SLOT)
                .and_then(OnceLock::get)
                .and_then(Option::as_ref)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// Release fences

struct Job {
    fence: vk::Fence,
    signaller: FenceSignaller,
}

struct Worker {
    sender: mpsc::Sender<Job>,
    thread: JoinHandle<()>,
}

impl Worker {
    fn start(fns: ash::Device, pool: Arc<Mutex<Vec<vk::Fence>>>) -> std::io::Result<Self> {
        let (sender, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("vkgen-release".into())
            .spawn(move || {
                for job in rx {
                    // SAFETY: the fence belongs to the device, which outlives this thread
                    // (`vkDestroyDevice` joins it first).
                    let r = unsafe { fns.wait_for_fences(&[job.fence], true, u64::MAX) };
                    if let Err(e) = job.signaller.signal() {
                        log::error!("signalling a release fence failed: {e}");
                    }
                    // SAFETY: as above; the fence is signalled (or the device lost) and unused.
                    unsafe {
                        if r.is_ok() && fns.reset_fences(&[job.fence]).is_ok() {
                            lock(&pool).push(job.fence);
                        } else {
                            fns.destroy_fence(job.fence, None);
                        }
                    }
                }
            })?;
        Ok(Self { sender, thread })
    }
}

impl AnbDevice {
    /// An unsignalled fence from the pool, or a new one.
    fn fence(&self, dev: &HostDevice) -> Result<vk::Fence, vk::Result> {
        if let Some(f) = lock(&self.fences).pop() {
            return Ok(f);
        }
        let mut export = vk::ExportFenceCreateInfo::default()
            .handle_types(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let mut ci = vk::FenceCreateInfo::default();
        if self.fence_fd.is_some() {
            ci = ci.push_next(&mut export);
        }
        // SAFETY: valid create info for a live device.
        unsafe { dev.fns.create_fence(&ci, None) }
    }

    /// Signals `semaphore` and/or `fence` from the internal queue.
    fn signal(&self, dev: &HostDevice, semaphore: vk::Semaphore, fence: vk::Fence) -> vk::Result {
        let sems = [semaphore];
        let mut submit = vk::SubmitInfo::default();
        if semaphore != vk::Semaphore::null() {
            submit = submit.signal_semaphores(&sems);
        }
        let queue = lock(&self.internal_queue);
        // SAFETY: a queue of the device, used under our lock, with a valid batch.
        match unsafe { dev.fns.queue_submit(*queue, &[submit], fence) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }
}

/// The host's device-level command `$name` as its `vk::$pfn`; when the host has none, the
/// calling hook returns `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
/// What `vkGet{Semaphore,Fence}FdKHR` may return: anything else becomes the last.
const EXPORT_RESULTS: &[vk::Result] = &[
    vk::Result::SUCCESS,
    vk::Result::ERROR_TOO_MANY_OBJECTS,
    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
];
/// What `vkImport{Semaphore,Fence}FdKHR` may return: anything else becomes the last.
const IMPORT_RESULTS: &[vk::Result] = &[
    vk::Result::SUCCESS,
    vk::Result::ERROR_OUT_OF_HOST_MEMORY,
    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
];

macro_rules! host_device_fn {
    ($dev:expr, $name:literal, $pfn:ident) => {{
        let cname = concat!($name, "\0");
        // SAFETY: the host's vkGetDeviceProcAddr with its own live device.
        let f = unsafe { ($dev.gdpa)($dev.handle, cname.as_ptr().cast()) };
        match f {
            // SAFETY: the host returns the command of that name, of type `$pfn`.
            Some(f) => unsafe { std::mem::transmute::<unsafe extern "system" fn(), vk::$pfn>(f) },
            None => {
                return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
            }
        }
    }};
}

// ---------------------------------------------------------------------------------------------
// The driver

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
        crate::kit::native_buffer::entry::<Self>(cmd)
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
        let name = extensions::info(ext).name().to_bytes();
        host.has_instance_extension(name) || host.device_extension_names().contains(name)
    }

    fn intercepts(cmd: CommandId) -> bool {
        let canonical = commands::info(cmd).alias_of.unwrap_or(cmd);
        INTERCEPTED.contains(&canonical)
    }

    unsafe fn passthrough(level: Level, handle: u64, name: &CStr) -> vk::PFN_vkVoidFunction {
        let host = Self::icd()?;
        let f = match level {
            Level::Device => {
                let dev = registry().devices.get(&handle).cloned()?;
                // SAFETY: the host's vkGetDeviceProcAddr with its own live device.
                unsafe { (dev.gdpa)(dev.handle, name.as_ptr()) }
            }
            Level::PhysicalDevice => {
                let lookup = host.gpdpa.unwrap_or(host.gipa);
                // SAFETY: the host's lookup with its own instance handle (or null).
                unsafe { lookup(vk::Handle::from_raw(handle), name.as_ptr()) }
            }
            // SAFETY: the host's lookup with its own instance handle (or null).
            Level::Global | Level::Instance => unsafe {
                (host.gipa)(vk::Handle::from_raw(handle), name.as_ptr())
            },
        };
        queue_family::wrap(name, f)
    }

    fn unimplemented(_cmd: CommandId) -> vk::Result {
        // Reached only for commands the host does not provide.
        vk::Result::ERROR_EXTENSION_NOT_PRESENT
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
            // SAFETY: forwarded to the host's function.
            Some(h) => unsafe {
                (h.entry.fp_v1_0().enumerate_instance_extension_properties)(
                    p_layer_name,
                    p_property_count,
                    p_properties,
                )
            },
            None if !p_layer_name.is_null() => vk::Result::ERROR_LAYER_NOT_PRESENT,
            // SAFETY: two-call idiom arguments.
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
        // SAFETY: two-call idiom arguments.
        unsafe { write_array::<vk::LayerProperties>(&[], p_property_count, p_properties) }
    }

    unsafe fn create_instance(
        p_create_info: *const vk::InstanceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_instance: *mut vk::Instance,
    ) -> vk::Result {
        let Some(host) = Self::icd() else {
            return vk::Result::ERROR_INCOMPATIBLE_DRIVER;
        };
        // SAFETY: valid create info per valid usage.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: as above.
        let mut app = unsafe { ci.p_application_info.as_ref() }
            .copied()
            .unwrap_or_default();
        app.api_version = host.host_api_version(app.api_version);
        let mut ci2 = *ci;
        ci2.p_application_info = &app;
        let mut instance = vk::Instance::null();
        // SAFETY: the host's vkCreateInstance with a valid create info.
        let r = unsafe { (host.entry.fp_v1_0().create_instance)(&ci2, p_allocator, &mut instance) };
        if r != vk::Result::SUCCESS {
            return r;
        }
        if let Err(r) = check_host_instance(host, instance, app.api_version, p_allocator) {
            return r;
        }
        // SAFETY: a live host instance with every command the driver calls (checked above).
        let fns = unsafe { ash::Instance::load(host.entry.static_fn(), instance) };
        registry_mut().instances.insert(
            vk::Handle::as_raw(instance),
            Arc::new(HostInstance { fns, slot: SLOT }),
        );
        // SAFETY: valid output pointer.
        unsafe { *p_instance = instance };
        vk::Result::SUCCESS
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
        // SAFETY: two-call idiom arguments.
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
        let Some(inst) = instance_of(physical_device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        if !p_layer_name.is_null() {
            // SAFETY: forwarded to the host.
            return unsafe {
                (inst.fns.fp_v1_0().enumerate_device_extension_properties)(
                    physical_device,
                    p_layer_name,
                    p_property_count,
                    p_properties,
                )
            };
        }
        // SAFETY: `physical_device` belongs to `inst`.
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
        // SAFETY: two-call idiom arguments.
        unsafe { write_array(&list, p_property_count, p_properties) }
    }

    unsafe fn create_device(
        physical_device: vk::PhysicalDevice,
        p_create_info: *const vk::DeviceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_device: *mut vk::Device,
    ) -> vk::Result {
        // SAFETY: forwarded.
        unsafe { create_host_device(physical_device, p_create_info, p_allocator, p_device, false) }
    }

    unsafe fn destroy_device(device: vk::Device, p_allocator: *const vk::AllocationCallbacks<'_>) {
        let raw = vk::Handle::as_raw(device);
        let state = {
            let mut reg = registry_mut();
            let state = reg.devices.remove(&raw);
            if let Some(s) = &state {
                reg.queues.retain(|_, v| !Arc::ptr_eq(v, s));
            }
            state
        };
        let Some(dev) = state else {
            return;
        };
        sync_fd::forget_device(&dev);
        if let Some(sync) = &dev.sync {
            sync.shut_down(&dev);
        }
        if let Some(anb) = &dev.anb {
            // Let pending release fences complete and the worker exit.
            if let Some(w) = lock(&anb.worker).take() {
                drop(w.sender);
                if w.thread.join().is_err() {
                    log::error!("the release worker panicked");
                }
            }
            for f in std::mem::take(&mut *lock(&anb.fences)) {
                // SAFETY: pooled fences are unsignalled and unused.
                unsafe { dev.fns.destroy_fence(f, None) };
            }
            // Images the application did not destroy: their imports go with the device.
            for (_, img) in std::mem::take(&mut *lock(&anb.images)) {
                release_anb_image(&dev, img);
            }
        }
        // SAFETY: the application is done with the device.
        unsafe { (dev.fns.fp_v1_0().destroy_device)(device, p_allocator) };
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
        // SAFETY: forwarded to the host with valid arguments.
        unsafe {
            (dev.fns.fp_v1_0().get_device_queue)(device, queue_family_index, queue_index, p_queue)
        };
        // SAFETY: valid output pointer, written by the host.
        if let Some(&q) = unsafe { p_queue.as_ref() } {
            if q != vk::Queue::null() {
                registry_mut().queues.insert(vk::Handle::as_raw(q), dev);
            }
        }
    }

    unsafe fn get_device_queue2(
        device: vk::Device,
        p_queue_info: *const vk::DeviceQueueInfo2<'_>,
        p_queue: *mut vk::Queue,
    ) {
        let Some(dev) = device_of(device) else {
            return;
        };
        // SAFETY: forwarded to the host with valid arguments.
        unsafe { (dev.fns.fp_v1_1().get_device_queue2)(device, p_queue_info, p_queue) };
        // SAFETY: valid output pointer, written by the host.
        if let Some(&q) = unsafe { p_queue.as_ref() } {
            if q != vk::Queue::null() {
                registry_mut().queues.insert(vk::Handle::as_raw(q), dev);
            }
        }
    }

    unsafe fn create_image(
        device: vk::Device,
        p_create_info: *const vk::ImageCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_image: *mut vk::Image,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: valid create info.
        let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: per valid usage; a `VkNativeBufferANDROID` goes through the kit's import
        // (validated there, then `import_native_buffer` below).
        if let Some(r) = unsafe {
            create_native_buffer_image::<Self>(device, p_create_info, p_allocator, p_image)
        } {
            return r;
        }
        // SAFETY: valid create info and output pointer.
        if let Some(r) = unsafe { hardware_buffer::create_image(&dev, ci, p_allocator, p_image) } {
            return r;
        }
        // SAFETY: valid input chain.
        let for_swapchain = unsafe {
            find_in_chain::<vk::BaseInStructure<'_>>(
                ci.p_next,
                vk::StructureType::IMAGE_SWAPCHAIN_CREATE_INFO_KHR,
            )
        }
        .is_some();
        if !for_swapchain {
            // SAFETY: forwarded to the host.
            return unsafe { (dev.fns.fp_v1_0().create_image)(device, ci, p_allocator, p_image) };
        }
        let Some(anb) = &dev.anb else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // A swapchain image whose buffer comes at bind time (spec 8's deferred allocation).
        // SAFETY: the application's valid create info.
        let image = match unsafe { create_importable_image(&dev, ci, p_allocator) } {
            Ok(i) => i,
            Err(e) => return e,
        };
        lock(&anb.images).insert(vk::Handle::as_raw(image), AnbImage::Pending);
        // SAFETY: valid output pointer.
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
        // SAFETY: forwarded to the host; the application is done with the image.
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
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: `pBindInfos` holds `bindInfoCount` valid structures.
        let all = unsafe { slice(p_bind_infos, bind_info_count) };
        let rest = match hardware_buffer::bind_images(&dev, all) {
            Ok(r) => return r,
            Err(rest) => rest,
        };
        let infos = &rest[..];
        let native = |i: &vk::BindImageMemoryInfo<'_>| {
            // SAFETY: valid input chain.
            unsafe {
                find_in_chain::<vk::NativeBufferANDROID>(
                    i.p_next,
                    vk::StructureType::NATIVE_BUFFER_ANDROID,
                )
            }
        };
        let (Some(anb), true) = (&dev.anb, infos.iter().any(|i| native(i).is_some())) else {
            // SAFETY: forwarded to the host.
            return unsafe {
                (dev.fns.fp_v1_1().bind_image_memory2)(device, infos.len() as u32, infos.as_ptr())
            };
        };
        let mut others = Vec::new();
        let mut chains = Vec::new();
        for info in infos {
            match native(info) {
                Some(nb) => {
                    let raw = vk::Handle::as_raw(info.image);
                    if !matches!(lock(&anb.images).get(&raw), Some(AnbImage::Pending)) {
                        return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
                    }
                    // SAFETY: the loader's handle; parsed and dup'ed by the kit.
                    let buffer = match unsafe { native_buffer_of(nb) } {
                        Ok(b) => b,
                        Err(e) => return e,
                    };
                    // SAFETY: a pending swapchain image of this device, created importable.
                    match unsafe { bind_native_buffer(&dev, anb, info.image, buffer) } {
                        Ok(state) => {
                            lock(&anb.images).insert(raw, state);
                        }
                        Err(e) => return e,
                    }
                }
                None => {
                    // SAFETY: the application's chain, valid during this call.
                    let chain = unsafe {
                        ChainEdit::without(
                            info.p_next,
                            &[vk::StructureType::BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR],
                        )
                    };
                    let mut copy = *info;
                    copy.p_next = chain.head();
                    chains.push(chain);
                    others.push(copy);
                }
            }
        }
        if others.is_empty() {
            return vk::Result::SUCCESS;
        }
        // SAFETY: forwarded to the host; the edited chains live until after the call.
        let r = unsafe {
            (dev.fns.fp_v1_1().bind_image_memory2)(device, others.len() as u32, others.as_ptr())
        };
        drop(chains);
        r
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
        // SAFETY: one valid bind.
        unsafe { Self::bind_image_memory2(device, 1, &info) }
    }

    // --- VK_ANDROID_external_memory_android_hardware_buffer -------------------------------

    unsafe fn allocate_memory(
        device: vk::Device,
        p_allocate_info: *const vk::MemoryAllocateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_memory: *mut vk::DeviceMemory,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid allocate info and output pointer per valid usage.
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
        // SAFETY: forwarded; the application is done with the memory.
        unsafe { (dev.fns.fp_v1_0().free_memory)(device, memory, p_allocator) };
        hardware_buffer::forget_memory(&dev, memory);
    }

    unsafe fn create_image_view(
        device: vk::Device,
        p_create_info: *const vk::ImageViewCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_view: *mut vk::ImageView,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
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
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
        unsafe {
            match p_create_info.as_ref() {
                Some(ci) => hardware_buffer::create_buffer(&dev, ci, p_allocator, p_buffer),
                None => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            }
        }
    }

    unsafe fn get_android_hardware_buffer_properties_android(
        device: vk::Device,
        buffer: *const vk::AHardwareBuffer,
        p_properties: *mut vk::AndroidHardwareBufferPropertiesANDROID<'_>,
    ) -> vk::Result {
        match device_of(device) {
            // SAFETY: any buffer pointer is checked; valid output chain per valid usage.
            Some(dev) => unsafe { hardware_buffer::properties(&dev, buffer, p_properties) },
            None => vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
        }
    }

    unsafe fn get_memory_android_hardware_buffer_android(
        device: vk::Device,
        p_info: *const vk::MemoryGetAndroidHardwareBufferInfoANDROID<'_>,
        p_buffer: *mut *mut vk::AHardwareBuffer,
    ) -> vk::Result {
        // SAFETY: valid input structure and output pointer per valid usage.
        unsafe {
            match (device_of(device), p_info.as_ref()) {
                (Some(dev), Some(info)) => hardware_buffer::memory_buffer(&dev, info, p_buffer),
                _ => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            }
        }
    }

    unsafe fn get_physical_device_image_format_properties2(
        physical_device: vk::PhysicalDevice,
        p_image_format_info: *const vk::PhysicalDeviceImageFormatInfo2<'_>,
        p_image_format_properties: *mut vk::ImageFormatProperties2<'_>,
    ) -> vk::Result {
        let Some(inst) = instance_of(physical_device) else {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
        };
        // SAFETY: valid input and output structures per valid usage.
        unsafe {
            if let (Some(info), Some(props)) = (
                p_image_format_info.as_ref(),
                p_image_format_properties.as_mut(),
            ) {
                if let Some(r) =
                    hardware_buffer::image_format_properties(&inst, physical_device, info, props)
                {
                    return r;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_image_format_properties2)(
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
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: valid input and output structures per valid usage.
        unsafe {
            if let (Some(info), Some(out)) = (
                p_external_buffer_info.as_ref(),
                p_external_buffer_properties.as_mut(),
            ) {
                if info.handle_type == crate::kit::hardware_buffer::HANDLE_TYPE {
                    out.external_memory_properties =
                        crate::kit::hardware_buffer::external_memory_properties(false);
                    return;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_buffer_properties)(
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
        unsafe { sync_fd::queue_submit(SLOT, queue, submit_count, p_submits, fence) }
    }

    unsafe fn queue_submit2(
        queue: vk::Queue,
        submit_count: u32,
        p_submits: *const vk::SubmitInfo2<'_>,
        fence: vk::Fence,
    ) -> vk::Result {
        // SAFETY: the application's valid arguments, forwarded or rewritten.
        unsafe { sync_fd::queue_submit2(SLOT, queue, submit_count, p_submits, fence) }
    }

    unsafe fn create_sampler_ycbcr_conversion(
        device: vk::Device,
        p_create_info: *const vk::SamplerYcbcrConversionCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_ycbcr_conversion: *mut vk::SamplerYcbcrConversion,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
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
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
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
        // SAFETY: forwarded; the application is done with the semaphore.
        unsafe { (dev.fns.fp_v1_0().destroy_semaphore)(device, semaphore, p_allocator) };
    }

    unsafe fn create_fence(
        device: vk::Device,
        p_create_info: *const vk::FenceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_fence: *mut vk::Fence,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_OUT_OF_HOST_MEMORY;
        };
        // SAFETY: valid create info and output pointer per valid usage.
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
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_get_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkGetSemaphoreFdKHR", PFN_vkGetSemaphoreFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(unsafe { f(device, p_get_fd_info, p_fd) }, EXPORT_RESULTS);
        }
        // SAFETY: valid input structure and output pointer per valid usage.
        let (Some(info), false) = (unsafe { p_get_fd_info.as_ref() }, p_fd.is_null()) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        match sync_fd::get_semaphore_fd(&dev, info) {
            Ok(fence) => {
                // SAFETY: non-null output pointer; the application owns the fd.
                unsafe { *p_fd = fence.into_raw() };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn get_fence_fd_khr(
        device: vk::Device,
        p_get_fd_info: *const vk::FenceGetFdInfoKHR<'_>,
        p_fd: *mut std::ffi::c_int,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_get_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkGetFenceFdKHR", PFN_vkGetFenceFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(unsafe { f(device, p_get_fd_info, p_fd) }, EXPORT_RESULTS);
        }
        // SAFETY: valid input structure and output pointer per valid usage.
        let (Some(info), false) = (unsafe { p_get_fd_info.as_ref() }, p_fd.is_null()) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        match sync_fd::get_fence_fd(&dev, info) {
            Ok(fence) => {
                // SAFETY: non-null output pointer; the application owns the fd.
                unsafe { *p_fd = fence.into_raw() };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    }

    unsafe fn import_semaphore_fd_khr(
        device: vk::Device,
        p_import_semaphore_fd_info: *const vk::ImportSemaphoreFdInfoKHR<'_>,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_import_semaphore_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkImportSemaphoreFdKHR", PFN_vkImportSemaphoreFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(
                unsafe { f(device, p_import_semaphore_fd_info) },
                IMPORT_RESULTS,
            );
        }
        // SAFETY: valid input structure per valid usage.
        let Some(info) = (unsafe { p_import_semaphore_fd_info.as_ref() }) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        if info.handle_type != vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD
            || !info.flags.contains(vk::SemaphoreImportFlags::TEMPORARY)
        {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        }
        sync_fd::import(&dev, sync_fd::Target::Semaphore(info.semaphore), info.fd)
    }

    unsafe fn import_fence_fd_khr(
        device: vk::Device,
        p_import_fence_fd_info: *const vk::ImportFenceFdInfoKHR<'_>,
    ) -> vk::Result {
        let Some(dev) = device_of(device) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        // SAFETY: a valid structure or null, per valid usage.
        let sync_fd = unsafe { p_import_fence_fd_info.as_ref() }
            .is_some_and(|i| i.handle_type == vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // Other handle types are the host's even where SYNC_FD is emulated.
        if dev.sync.is_none() || !sync_fd {
            let f = host_device_fn!(dev, "vkImportFenceFdKHR", PFN_vkImportFenceFdKHR);
            // SAFETY: the host's own command with the application's arguments.
            return spec_result(unsafe { f(device, p_import_fence_fd_info) }, IMPORT_RESULTS);
        }
        // SAFETY: valid input structure per valid usage.
        let Some(info) = (unsafe { p_import_fence_fd_info.as_ref() }) else {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        };
        if info.handle_type != vk::ExternalFenceHandleTypeFlags::SYNC_FD
            || !info.flags.contains(vk::FenceImportFlags::TEMPORARY)
        {
            return vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
        }
        sync_fd::import(&dev, sync_fd::Target::Fence(info.fence), info.fd)
    }

    unsafe fn get_physical_device_external_semaphore_properties(
        physical_device: vk::PhysicalDevice,
        p_external_semaphore_info: *const vk::PhysicalDeviceExternalSemaphoreInfo<'_>,
        p_external_semaphore_properties: *mut vk::ExternalSemaphoreProperties<'_>,
    ) {
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: valid structures per valid usage; `physical_device` belongs to `inst`.
        unsafe {
            if let (Some(info), Some(out)) = (
                p_external_semaphore_info.as_ref(),
                p_external_semaphore_properties.as_mut(),
            ) {
                let sync = vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;
                let timeline = find_in_chain::<vk::SemaphoreTypeCreateInfo<'_>>(
                    info.p_next,
                    vk::StructureType::SEMAPHORE_TYPE_CREATE_INFO,
                )
                .is_some_and(|t| t.semaphore_type == vk::SemaphoreType::TIMELINE);
                // Passed through or emulated, SYNC_FD always works (a host that lists it but
                // fails its probe is emulated: `create_host_device`).
                if info.handle_type == sync {
                    let (features, _) = sync_fd::sync_fd_features();
                    out.external_semaphore_features = if timeline {
                        Default::default()
                    } else {
                        features
                    };
                    out.export_from_imported_handle_types =
                        if timeline { Default::default() } else { sync };
                    out.compatible_handle_types = if timeline { Default::default() } else { sync };
                    return;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_semaphore_properties)(
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
        let Some(inst) = instance_of(physical_device) else {
            return;
        };
        // SAFETY: valid structures per valid usage; `physical_device` belongs to `inst`.
        unsafe {
            if let (Some(info), Some(out)) = (
                p_external_fence_info.as_ref(),
                p_external_fence_properties.as_mut(),
            ) {
                let sync = vk::ExternalFenceHandleTypeFlags::SYNC_FD;
                if info.handle_type == sync {
                    out.external_fence_features = sync_fd::sync_fd_features().1;
                    out.export_from_imported_handle_types = sync;
                    out.compatible_handle_types = sync;
                    return;
                }
            }
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_fence_properties)(
                physical_device,
                p_external_fence_info,
                p_external_fence_properties,
            )
        }
    }

    // --- VK_ANDROID_native_buffer ---------------------------------------------------------
}
