//! The terminator's part of the loader data ([`TermInstance`] in [`InstanceData`](super::InstanceData),
//! [`TermDevice`] in [`DeviceData`](super::DeviceData)) and what it holds: the driver instances, the wrapped
//! physical devices, the `VK_EXT_debug_report` callbacks and each device's WSI functions.
//!
//! Only the data lives here, below every level that reads it; the commands that fill and use
//! it are [`crate::terminator`]'s and [`crate::wsi`]'s (their `impl` blocks included), and each
//! type is re-exported where it used to be defined (`terminator::TermInstance`,
//! `wsi::DeviceWsi`, ...).

use std::sync::atomic::AtomicU64;
use std::sync::{Mutex, OnceLock};

use vkgen_generated::pfn;

use crate::extensions::ExtensionSet;
use crate::host_alloc::{HostAllocator, HostBox, HostVec};
use crate::init::DriverEntry;
use vkgen_generated::dispatch::InstanceDispatchTable;
use vkgen_generated::vk;

/// The terminator's part of [`InstanceData`](super::InstanceData) (its commands are in [`crate::terminator`]).
pub struct TermInstance {
    /// One driver instance per driver that accepted the instance (in the application's
    /// allocator, [`crate::host_alloc`]).
    pub drivers: HostVec<DriverInstance, HostAllocator>,
    /// Exactly one driver instance: its handles are handed up unwrapped.
    pub passthrough: bool,
    /// The `VkInstance` the terminator handed up (the driver's in passthrough mode, else
    /// `own_object`).
    pub handle: vk::Instance,
    /// The instance extensions requested at the terminator (the application's and any a layer
    /// added).
    pub enabled_extensions: ExtensionSet,
    /// The loader's own dispatchable `VkInstance` object (its address is `handle` when not
    /// passthrough); only owned here.
    pub(crate) _own_object: HostBox<LoaderObject, HostAllocator>,
    /// Wrapped physical devices of all drivers (not passthrough), built on first enumeration in
    /// the instance's allocator (scope INSTANCE: they live as long as the instance); never
    /// modified afterwards, so their addresses (the handles) are stable.
    pub(crate) physical_devices: OnceLock<HostVec<PhysicalDeviceWrapper, HostAllocator>>,
    /// The loader's `VK_EXT_debug_report` callbacks ([`crate::terminator::debug_report`]).
    pub debug_report: Callbacks,
}

/// A dispatchable object owned by the loader: just word 0.
#[repr(C)]
pub(crate) struct LoaderObject {
    pub(crate) loader_data: usize,
}

/// One driver's instance inside a loader instance.
pub struct DriverInstance {
    /// The driver.
    pub driver: &'static DriverEntry,
    /// The driver's `VkInstance`.
    pub handle: vk::Instance,
    /// The driver's functions for this instance (physical-device stubs jump through it), in
    /// the application's allocator.
    pub table: HostBox<InstanceDispatchTable, HostAllocator>,
    /// The driver's `vkGetInstanceProcAddr`.
    pub gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The driver's `vkGetDeviceProcAddr`.
    pub gdpa: vk::PFN_vkGetDeviceProcAddr,
    /// The `apiVersion` the driver instance was created with.
    pub api_version: u32,
    /// The extensions the driver instance was created with.
    pub enabled_extensions: ExtensionSet,
}

impl DriverInstance {
    /// The driver's name, for logs.
    pub fn name(&self) -> &str {
        self.driver.driver.name()
    }
}

/// The terminator's part of [`DeviceData`](super::DeviceData): the driver functions the hooks call.
pub struct TermDevice {
    /// Index of the driver instance in the parent's `TermInstance::drivers`.
    pub driver_index: usize,
    /// The driver's physical device.
    pub physical_device: vk::PhysicalDevice,
    /// `VkPhysicalDeviceProperties::apiVersion` of the driver's physical device.
    pub physical_device_api_version: u32,
    /// The driver's `vkGetDeviceProcAddr`.
    pub gdpa: vk::PFN_vkGetDeviceProcAddr,
    /// The driver's `vkDestroyDevice`.
    pub destroy_device: vk::PFN_vkDestroyDevice,
    /// The driver's `vkGetDeviceQueue`.
    pub get_device_queue: vk::PFN_vkGetDeviceQueue,
    /// The driver's `vkGetDeviceQueue2`, if it has one for this device.
    pub get_device_queue2: Option<vk::PFN_vkGetDeviceQueue2>,
    /// The driver's `vkAllocateCommandBuffers`.
    pub allocate_command_buffers: vk::PFN_vkAllocateCommandBuffers,
    /// The driver's `vkFreeCommandBuffers`.
    pub free_command_buffers: vk::PFN_vkFreeCommandBuffers,
    /// The loader's WSI for this device: present when the driver device was created with
    /// `VK_ANDROID_native_buffer` (the application enabled `VK_KHR_swapchain`).
    pub wsi: Option<DeviceWsi>,
    /// The device extensions requested at the terminator (the application's and any a layer
    /// added): the loader's device hooks are handed out only for these.
    pub enabled_extensions: ExtensionSet,
}

/// A physical device as handed up when several drivers are loaded (the stubs that read it are
/// in `terminator/physical_device.rs`).
#[repr(C)]
pub struct PhysicalDeviceWrapper {
    /// Word 0: the instance's loader data.
    pub(crate) loader_data: usize,
    /// The driver's own handle.
    pub(crate) driver_handle: vk::PhysicalDevice,
    /// The driver's function table for its instance.
    pub(crate) driver_table: *const InstanceDispatchTable,
    /// Index of the driver instance in [`TermInstance::drivers`].
    pub(crate) driver_index: usize,
}

impl PhysicalDeviceWrapper {
    /// The handle applications and layers see.
    pub fn handle(&self) -> vk::PhysicalDevice {
        vk::Handle::from_raw(std::ptr::from_ref(self) as u64)
    }

    /// The driver's handle.
    pub fn driver_handle(&self) -> vk::PhysicalDevice {
        self.driver_handle
    }

    /// The driver instance it belongs to.
    pub fn driver_index(&self) -> usize {
        self.driver_index
    }
}

/// One application callback, in the allocator `vkCreateDebugReportCallbackEXT` was given (else
/// the instance's), scope OBJECT, as AOSP's `DebugReportCallbackList::AddCallback` places it.
pub(crate) struct Node {
    /// The handle the application got.
    pub(crate) handle: u64,
    pub(crate) flags: vk::DebugReportFlagsEXT,
    pub(crate) callback: vk::PFN_vkDebugReportCallbackEXT,
    pub(crate) user: usize,
    /// `(driver index, driver callback)` for each driver instance with the extension.
    pub(crate) drivers: HostVec<(usize, u64), HostAllocator>,
    /// The next callback, created after this one.
    pub(crate) next: Option<HostBox<Node, HostAllocator>>,
}

/// The `VK_EXT_debug_report` callbacks of one instance (managed by
/// [`crate::terminator::debug_report`]): AOSP's linked list of nodes, each its own block of the
/// application's allocator, so the list needs no block of its own.
#[derive(Default)]
pub struct Callbacks {
    pub(crate) head: Mutex<Option<HostBox<Node, HostAllocator>>>,
    pub(crate) next: AtomicU64,
}

impl Drop for Callbacks {
    fn drop(&mut self) {
        // Unlinked one by one: dropping the head alone would recurse once per node.
        let head = self.head.get_mut().unwrap_or_else(|p| p.into_inner());
        let mut node = head.take();
        while let Some(mut n) = node {
            node = n.next.take();
        }
    }
}

/// The driver functions the WSI calls for one device.
#[derive(Clone, Copy)]
pub struct DeviceFns {
    /// The driver's device (the same handle the application has: devices are not wrapped).
    pub device: vk::Device,
    /// The driver's physical device.
    pub physical_device: vk::PhysicalDevice,
    pub create_image: vk::PFN_vkCreateImage,
    pub destroy_image: vk::PFN_vkDestroyImage,
    pub bind_image_memory2: Option<vk::PFN_vkBindImageMemory2>,
    pub acquire_image: pfn::PFN_vkAcquireImageANDROID,
    pub signal_release_image: pfn::PFN_vkQueueSignalReleaseImageANDROID,
    pub gralloc_usage: Option<pfn::PFN_vkGetSwapchainGrallocUsageANDROID>,
    pub gralloc_usage2: Option<pfn::PFN_vkGetSwapchainGrallocUsage2ANDROID>,
    pub gralloc_usage3: Option<pfn::PFN_vkGetSwapchainGrallocUsage3ANDROID>,
    pub gralloc_usage4: Option<pfn::PFN_vkGetSwapchainGrallocUsage4ANDROID>,
    pub import_fence_fd: Option<vk::PFN_vkImportFenceFdKHR>,
    /// The driver instance's `vkGetPhysicalDeviceImageFormatProperties2{,KHR}`.
    pub image_format_properties2: Option<vk::PFN_vkGetPhysicalDeviceImageFormatProperties2>,
}

impl std::fmt::Debug for DeviceFns {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("DeviceFns")
            .field("device", &self.device)
            .field("gralloc_usage4", &self.gralloc_usage4.is_some())
            .field("gralloc_usage3", &self.gralloc_usage3.is_some())
            .field("gralloc_usage2", &self.gralloc_usage2.is_some())
            .field("gralloc_usage", &self.gralloc_usage.is_some())
            .field("import_fence_fd", &self.import_fence_fd.is_some())
            .finish_non_exhaustive()
    }
}

/// A device's WSI state: present when the driver device was created with
/// `VK_ANDROID_native_buffer` (the application enabled `VK_KHR_swapchain`). Loaded by
/// [`crate::wsi`] (`DeviceWsi::load`), which uses it.
#[derive(Debug)]
pub struct DeviceWsi {
    pub fns: DeviceFns,
    /// The application enabled `VK_EXT_swapchain_maintenance1` (present fences, present-mode
    /// changes, deferred allocation, image release).
    pub maintenance1: bool,
    /// The application enabled `VK_KHR_shared_presentable_image`.
    pub shared_presentable_image: bool,
}
