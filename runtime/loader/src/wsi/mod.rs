//! The loader's window-system integration: surfaces and swapchains on `ANativeWindow`, built on
//! the driver's `VK_ANDROID_native_buffer` (AOSP `libvulkan/swapchain.cpp`).
//!
//! On Android the loader, not the driver, implements presentation. Applications see
//! `VK_KHR_surface`, `VK_KHR_android_surface`, `VK_KHR_swapchain` (the driver's
//! `VK_ANDROID_native_buffer`, renamed), `VK_KHR_get_surface_capabilities2`,
//! `VK_KHR_shared_presentable_image`, `VK_GOOGLE_display_timing`, `VK_KHR_incremental_present`,
//! `VK_EXT_swapchain_colorspace`, `VK_KHR_surface_protected_capabilities`,
//! `VK_EXT_surface_maintenance1`, `VK_EXT_swapchain_maintenance1` and
//! `VK_GOOGLE_surfaceless_query`; drivers never see any of them (see [`crate::extensions`] for
//! which are advertised when). The driver only ever sees images created or bound with a
//! `VkNativeBufferANDROID`, `vkAcquireImageANDROID` and `vkQueueSignalReleaseImageANDROID`.
//!
//! Modules:
//! * [`window`] — the `ANativeWindow` / `ANativeWindowBuffer` ABI and native fence fds — the only
//!   way the loader touches a window;
//! * [`surface`] — `VkSurfaceKHR` (connects the window as EGL-API producer), capabilities,
//!   formats, present modes, presentation support, device-group and present-rectangle queries;
//! * [`swapchain`] — `VkSwapchainKHR` creation in AOSP's order (reset and configure the window,
//!   gralloc usage, dequeue every buffer and create its `VkImage` with `VkNativeBufferANDROID`,
//!   cancel them all), images, acquire, retirement through `oldSwapchain`, destruction,
//!   `vkBindImageMemory2` with `VkBindImageMemorySwapchainInfoKHR`;
//! * [`present`] — `vkQueuePresentKHR` and its fence flow, incremental present, present fences and
//!   modes, `VK_SUBOPTIMAL_KHR` only for a transform-hint mismatch, worst-first result combination;
//! * [`timing`] — `VK_GOOGLE_display_timing`;
//! * `gralloc_usage` — the swapchain buffers' gralloc usage (`FRONT_BUFFER` for shared
//!   swapchains as the allocator allows) and `AHardwareBuffer_isSupported`;
//! * `mutable_format` — `VK_KHR_swapchain_mutable_format`'s view-format list;
//! * [`hdr_display`] — `has_HDR_display`, which gates `VK_EXT_hdr_metadata`;
//! * [`formats`] — the pure tables (formats, colour spaces, transforms, present modes, results);
//! * [`layer_compat`] — Android surfaces for layers built without
//!   `VK_KHR_android_surface` (desktop validation layers);
//! * `desktop` (Linux hosts only) — X11 and Wayland surfaces as Android surfaces on an
//!   in-process BufferQueue, each shown by a presenter thread.
//!
//! **Handles.** `VkSurfaceKHR` and `VkSwapchainKHR` are counters (never reused), looked up in
//! process-wide registries ([`Registry`]) that hold `Arc`s: a stale, foreign or NULL handle is
//! found missing and answered with an error code (or ignored by a destroy), never followed.
//! Objects live on the Rust heap; when the application passes `VkAllocationCallbacks`, one
//! allocation of the object's size is also made through them (scope `OBJECT`) and freed with
//! the object, so an allocator that fails gives `VK_ERROR_OUT_OF_HOST_MEMORY` as in AOSP and
//! allocation-tracking allocators see a balanced pair.
//!
//! **Call routing.** The terminator's `vkGet{Instance,Device}ProcAddr` return these functions
//! ([`instance_hook`], [`device_hook`]) for the WSI command names, so they sit at the bottom of
//! every chain like the driver's own functions do and layers see them as the "driver".
//! Per device, [`DeviceWsi`] holds the driver functions the WSI calls (created by the
//! terminator's `vkCreateDevice` when the driver device got `VK_ANDROID_native_buffer`).

#[cfg(all(feature = "desktop", not(target_os = "android")))]
pub mod desktop;
pub mod formats;
mod gralloc_usage;
pub mod hdr_display;
pub mod layer_compat;
mod mutable_format;
pub mod present;
pub mod surface;
pub mod swapchain;
mod swapchain_create;
pub mod timing;
pub mod window;
pub mod window_err;

pub use crate::dispatch_data::term::{DeviceFns, DeviceWsi};

use std::collections::BTreeMap;
use std::ffi::{c_void, CStr};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use vkgen_abi::vk_error;
use vkgen_generated::extensions::{self as ext, ExtensionId};

use crate::dispatch_data::DriverInstance;
use crate::driver_handles::{resolve, slot_of, Resolved};
use crate::extensions::LoaderDeviceSupport;
use crate::ffi::to_void;
use crate::{driver, vk};

/// Property that says the platform's compositor reports present timestamps (gates
/// `VK_GOOGLE_display_timing`, as in Android).
pub const PRESENT_TIMESTAMP_PROPERTY: &str = "service.sf.present_timestamp";

/// A registry of live WSI objects by handle.
pub struct Registry<T> {
    map: RwLock<BTreeMap<u64, Arc<T>>>,
    next: AtomicU64,
    /// High bits stamped into every handle (tells surfaces from swapchains in logs).
    tag: u64,
}

impl<T> Registry<T> {
    /// An empty registry whose handles carry `tag` in their top 16 bits.
    pub const fn new(tag: u16) -> Self {
        Self {
            map: RwLock::new(BTreeMap::new()),
            next: AtomicU64::new(1),
            tag: (tag as u64) << 48,
        }
    }

    /// A fresh handle (never 0, never reused).
    pub fn reserve(&self) -> u64 {
        self.tag | (self.next.fetch_add(1, Ordering::Relaxed) & 0xFFFF_FFFF_FFFF)
    }

    /// Publishes `object` under `handle`.
    pub fn insert(&self, handle: u64, object: Arc<T>) {
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(handle, object);
    }

    /// The live object `handle` names.
    pub fn get(&self, handle: u64) -> Option<Arc<T>> {
        if handle == 0 {
            return None;
        }
        self.map
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&handle)
            .cloned()
    }

    /// Unpublishes `handle`, returning its object.
    pub fn remove(&self, handle: u64) -> Option<Arc<T>> {
        if handle == 0 {
            return None;
        }
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&handle)
    }

    /// Unpublishes every object `pick` selects, returning them.
    pub fn remove_where(&self, mut pick: impl FnMut(&T) -> bool) -> Vec<Arc<T>> {
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        let handles: Vec<u64> = map
            .iter()
            .filter(|(_, v)| pick(v))
            .map(|(&k, _)| k)
            .collect();
        handles.iter().filter_map(|h| map.remove(h)).collect()
    }

    /// How many objects are live.
    pub fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no object is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One allocation made through the application's `VkAllocationCallbacks` for a WSI object,
/// freed (through the same callbacks) when dropped. Empty without callbacks.
#[derive(Debug)]
pub struct AppAllocation {
    callbacks: Option<(vk::PFN_vkFreeFunction, *mut c_void)>,
    memory: *mut c_void,
}

// SAFETY: the callbacks are the application's, which the spec requires to be callable from any
// thread that uses the object; the memory is opaque to us.
unsafe impl Send for AppAllocation {}
// SAFETY: see `Send`; the fields are never mutated after creation.
unsafe impl Sync for AppAllocation {}

impl AppAllocation {
    /// Allocates `size` bytes (aligned to `align`) through `allocator`, if any.
    ///
    /// # Safety
    /// `allocator` must be null or valid callbacks.
    pub unsafe fn new(
        allocator: *const vk::AllocationCallbacks<'_>,
        size: usize,
        align: usize,
    ) -> Result<Self, vk::Result> {
        // SAFETY: the caller guarantees `allocator` is null or valid callbacks for the allocation's
        // lifetime.
        let Some(cb) = (unsafe { allocator.as_ref() }) else {
            return Ok(Self {
                callbacks: None,
                memory: std::ptr::null_mut(),
            });
        };
        let (Some(alloc), Some(free)) = (cb.pfn_allocation, cb.pfn_free) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "VkAllocationCallbacks without pfnAllocation/pfnFree"
            ));
        };
        // SAFETY: the application's allocation callback with its own user data.
        let memory = unsafe {
            alloc(
                cb.p_user_data,
                size,
                align,
                vk::SystemAllocationScope::OBJECT,
            )
        };
        if memory.is_null() {
            return Err(vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "the application's pfnAllocation returned null"
            ));
        }
        Ok(Self {
            callbacks: Some((Some(free), cb.p_user_data)),
            memory,
        })
    }
}

impl Drop for AppAllocation {
    fn drop(&mut self) {
        if let Some((Some(free), user_data)) = self.callbacks {
            // SAFETY: frees what `new` allocated, with the same callbacks.
            unsafe { free(user_data, self.memory) };
        }
    }
}

impl DeviceWsi {
    /// Loads the driver functions for a device created with `VK_ANDROID_native_buffer`.
    /// `Err(VK_ERROR_INCOMPATIBLE_DRIVER)` when the ANB entry points are missing, or none of
    /// `vkGetSwapchainGrallocUsage{,2,3,4}ANDROID` resolves (Android's rule).
    ///
    /// # Safety
    /// `device` must be the driver's live device of `driver_pd`, created through `driver`.
    pub unsafe fn load(
        driver: &DriverInstance,
        driver_pd: vk::PhysicalDevice,
        device: vk::Device,
        app_extensions: &[&CStr],
    ) -> Result<Self, vk::Result> {
        let gdpa = driver.gdpa;
        // SAFETY: the driver's live device and C strings.
        let get = |n: &CStr| unsafe { gdpa(device, n.as_ptr()) };
        macro_rules! load {
            ($name:literal) => {
                // SAFETY: the driver returns the named command's own type.
                unsafe { driver::void_fn_as(get($name)) }
            };
        }
        let (Some(create_image), Some(destroy_image), Some(acquire_image), Some(signal)) = (
            load!(c"vkCreateImage"),
            load!(c"vkDestroyImage"),
            load!(c"vkAcquireImageANDROID"),
            load!(c"vkQueueSignalReleaseImageANDROID"),
        ) else {
            return Err(vk_error!(
                vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                "driver {}: VK_ANDROID_native_buffer device lacks vkCreateImage / \
                 vkDestroyImage / vkAcquireImageANDROID / vkQueueSignalReleaseImageANDROID",
                driver.name()
            ));
        };
        let bind2: Option<vk::PFN_vkBindImageMemory2> =
            load!(c"vkBindImageMemory2").or_else(|| load!(c"vkBindImageMemory2KHR"));
        let fns = DeviceFns {
            device,
            physical_device: driver_pd,
            create_image,
            destroy_image,
            bind_image_memory2: bind2,
            acquire_image,
            signal_release_image: signal,
            gralloc_usage: load!(c"vkGetSwapchainGrallocUsageANDROID"),
            gralloc_usage2: load!(c"vkGetSwapchainGrallocUsage2ANDROID"),
            gralloc_usage3: load!(c"vkGetSwapchainGrallocUsage3ANDROID"),
            gralloc_usage4: load!(c"vkGetSwapchainGrallocUsage4ANDROID"),
            import_fence_fd: load!(c"vkImportFenceFdKHR"),
            image_format_properties2: instance_fn(
                driver,
                c"vkGetPhysicalDeviceImageFormatProperties2",
            ),
        };
        if fns.gralloc_usage.is_none()
            && fns.gralloc_usage2.is_none()
            && fns.gralloc_usage3.is_none()
            && fns.gralloc_usage4.is_none()
        {
            return Err(vk_error!(
                vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                "driver {}: VK_ANDROID_native_buffer without any \
                 vkGetSwapchainGrallocUsage*ANDROID: VK_ERROR_INCOMPATIBLE_DRIVER",
                driver.name()
            ));
        }
        let has = |id: ExtensionId| app_extensions.contains(&ext::info(id).name());
        Ok(Self {
            fns,
            maintenance1: has(ExtensionId::EXT_SWAPCHAIN_MAINTENANCE1),
            shared_presentable_image: has(ExtensionId::KHR_SHARED_PRESENTABLE_IMAGE),
        })
    }
}

/// A driver instance-level function by its core name (falling back to the `KHR` alias).
fn instance_fn<F: Copy>(driver: &DriverInstance, core: &CStr) -> Option<F> {
    let slot = slot_of(core)?;
    if !driver.table.is_present(slot) {
        return None;
    }
    // SAFETY: the slot holds the driver's function of the command's type (the generated table
    // loads the KHR alias into the core slot when that is what the driver has).
    unsafe { driver::void_fn_as(driver.table.get(slot)) }
}

/// `VkPhysicalDevicePresentationPropertiesANDROID::sharedImage` of a driver's physical device
/// (Android's `QueryPresentationProperties`: FALSE unless GPDP2 fills it).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn shared_image_supported(driver: &DriverInstance, pd: vk::PhysicalDevice) -> bool {
    let Some(gpdp2) = instance_fn::<vk::PFN_vkGetPhysicalDeviceProperties2>(
        driver,
        c"vkGetPhysicalDeviceProperties2",
    ) else {
        return false;
    };
    let mut presentation = vk::PhysicalDevicePresentationPropertiesANDROID::default();
    let mut props = vk::PhysicalDeviceProperties2 {
        p_next: std::ptr::addr_of_mut!(presentation).cast(),
        ..Default::default()
    };
    // SAFETY: the driver's query with a valid chain (drivers skip structures they don't know).
    unsafe { gpdp2(pd, &mut props) };
    presentation.shared_image == vk::TRUE
}

/// The driver physical device's `apiVersion`, patch bits cleared (0 when it cannot be asked).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn device_api_version(driver: &DriverInstance, pd: vk::PhysicalDevice) -> u32 {
    let Some(gpdp) = instance_fn::<vk::PFN_vkGetPhysicalDeviceProperties>(
        driver,
        c"vkGetPhysicalDeviceProperties",
    ) else {
        return 0;
    };
    let mut props = vk::PhysicalDeviceProperties::default();
    // SAFETY: the driver's query with a valid output structure.
    unsafe { gpdp(pd, &mut props) };
    props.api_version & !0xfff
}

/// Whether a driver's physical device imports `SYNC_FD` fences, decided as AOSP's
/// `CanSupportSwapchainMaintenance1Extension`: the driver's core
/// `vkGetPhysicalDeviceExternalFenceProperties` reports `IMPORTABLE` (the device extension list
/// is not consulted; present fences are skipped, logged, where `vkImportFenceFdKHR` is missing).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn sync_fd_fence_import(driver: &DriverInstance, pd: vk::PhysicalDevice) -> bool {
    let Some(query) = instance_fn::<vk::PFN_vkGetPhysicalDeviceExternalFenceProperties>(
        driver,
        c"vkGetPhysicalDeviceExternalFenceProperties",
    ) else {
        return false;
    };
    let info = vk::PhysicalDeviceExternalFenceInfo::default()
        .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
    let mut props = vk::ExternalFenceProperties::default();
    // SAFETY: the driver's query with valid structures.
    unsafe { query(pd, &info, &mut props) };
    props
        .external_fence_features
        .contains(vk::ExternalFenceFeatureFlags::IMPORTABLE)
}

/// What the loader's WSI can offer on a driver's physical device (for its extension list).
///
/// # Safety
/// `pd` must be a live physical device of `driver`; `device_extensions` its raw list.
pub unsafe fn device_support(
    driver: &DriverInstance,
    pd: vk::PhysicalDevice,
    device_extensions: &[vk::ExtensionProperties],
) -> LoaderDeviceSupport {
    let anb = ext::info(ExtensionId::ANDROID_NATIVE_BUFFER).name();
    let spec = device_extensions
        .iter()
        .find(|e| crate::extensions::name_of(e) == anb)
        .map(|e| e.spec_version);
    let hal = driver.driver.is_hal();
    // AOSP asks the HAL whether or not it has ANB; an ICD without it can have no swapchain.
    if spec.is_none() && !hal {
        return LoaderDeviceSupport::default();
    }
    LoaderDeviceSupport {
        native_buffer_spec: spec,
        hal,
        // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is all
        // the query needs.
        shared_image: unsafe { shared_image_supported(driver, pd) },
        // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is all
        // the fence query needs.
        sync_fd_fence_import: unsafe { sync_fd_fence_import(driver, pd) },
        present_timestamp: crate::init::loader()
            .config
            .properties
            .get_bool(PRESENT_TIMESTAMP_PROPERTY, false),
        hdr_display: hdr_display::has_hdr_display(&crate::init::loader().config.properties),
        // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is all
        // the query needs.
        device_api_version: unsafe { device_api_version(driver, pd) },
        image_compression_control: spec
            .is_some_and(|s| s >= crate::extensions::NATIVE_BUFFER_SPEC_IMAGE_COMPRESSION)
            // SAFETY: the caller guarantees `pd` is a live physical device of `driver`, which is
            // all the query needs.
            && unsafe { driver_image_compression_control(driver, pd) },
    }
}

/// The driver's `VkPhysicalDeviceImageCompressionControlFeaturesEXT::imageCompressionControl`
/// (false without `vkGetPhysicalDeviceFeatures2` or its KHR alias).
///
/// # Safety
/// `pd` must be a live physical device of `driver`.
pub unsafe fn driver_image_compression_control(
    driver: &DriverInstance,
    pd: vk::PhysicalDevice,
) -> bool {
    let Some(features2) = instance_fn::<vk::PFN_vkGetPhysicalDeviceFeatures2>(
        driver,
        c"vkGetPhysicalDeviceFeatures2",
    ) else {
        return false;
    };
    let mut compression = vk::PhysicalDeviceImageCompressionControlFeaturesEXT::default();
    let mut features = vk::PhysicalDeviceFeatures2 {
        p_next: std::ptr::addr_of_mut!(compression).cast(),
        ..Default::default()
    };
    // SAFETY: the driver's query with a valid chain.
    unsafe { features2(pd, &mut features) };
    compression.image_compression_control == vk::TRUE
}

/// SurfaceFlinger's HDR-display flag: `VK_EXT_hdr_metadata` is offered only with it (AOSP).
pub const HDR_DISPLAY_PROPERTY: &str = "ro.surface_flinger.has_HDR_display";

/// The loader's WSI functions for instance and physical-device commands, by name.
pub fn instance_hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(wsi_instance, name)
}

/// The loader's WSI functions for device commands, by name (`vkBindImageMemory2` is routed by
/// the terminator, which knows whether the device has WSI).
pub fn device_hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(wsi_device, name)
}

/// `vkGetPhysicalDeviceFeatures2` (the core name only, as AOSP; the KHR alias is the driver's):
/// the driver's features, plus `VkPhysicalDeviceSwapchainMaintenance1FeaturesEXT::
/// swapchainMaintenance1 = TRUE` whenever the structure is chained (AOSP sets it whether or not
/// it offers the extension; drivers do not know the structure: the loader implements it), and
/// `imageCompressionControlSwapchain` as AOSP reports it (`image_compression_swapchain_feature`).
///
/// # Safety
/// Vulkan's contract for the command, with a physical device of this loader.
pub unsafe extern "system" fn physical_device_features2(
    pd: vk::PhysicalDevice,
    features: *mut vk::PhysicalDeviceFeatures2<'_>,
) {
    let _trace = crate::trace::section("GetPhysicalDeviceFeatures2");
    crate::ffi::guard("vkGetPhysicalDeviceFeatures2", (), || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceFeatures2-physicalDevice-parameter).
        let Some(r) = (unsafe { resolve(pd) }) else {
            log::error!(
                "vkGetPhysicalDeviceFeatures2: {pd:?} is not a physical device of this loader"
            );
            return;
        };
        let Some(slot) = slot_of(c"vkGetPhysicalDeviceFeatures2") else {
            return;
        };
        if !r.driver.table.is_present(slot) {
            log::error!(
                "vkGetPhysicalDeviceFeatures2: driver {} has neither the core command nor the KHR one",
                r.driver.name()
            );
            return;
        }
        // SAFETY: the driver's function with its own handle and the caller's structures.
        unsafe { (r.driver.table.get_physical_device_features2)(r.handle, features) };
        if features.is_null() {
            return;
        }
        // SAFETY: the application's valid output chain, filled by the driver.
        unsafe { image_compression_swapchain_feature(&r, (*features).p_next) };
        // SAFETY: `features` is non-null (checked above) and the application's, its pNext chain
        // valid and writable (VUID-VkPhysicalDeviceFeatures2-pNext-pNext); each struct is cast only
        // for the sType it carries.
        unsafe {
            for_each_out((*features).p_next, |s| {
                if (*s).s_type
                    == vk::StructureType::PHYSICAL_DEVICE_SWAPCHAIN_MAINTENANCE_1_FEATURES_EXT
                {
                    let p = s.cast::<vk::PhysicalDeviceSwapchainMaintenance1FeaturesEXT<'_>>();
                    (*p).swapchain_maintenance1 = vk::TRUE;
                }
            })
        };
    });
}

/// AOSP's `GetPhysicalDeviceFeatures2` quirk, kept because the extension list depends on it:
/// `imageCompressionControlSwapchain` is reported as the driver's `imageCompressionControl`
/// (from the chain, or asked separately when the chain lacks it), whatever the driver said
/// about the swapchain feature itself.
///
/// # Safety
/// `p_next` must be the application's valid output chain, already filled by the driver.
unsafe fn image_compression_swapchain_feature(r: &Resolved<'_>, p_next: *mut c_void) {
    let mut swapchain = None;
    let mut control = None;
    // SAFETY: the caller guarantees `p_next` is the application's valid output chain; each struct
    // is cast only for the sType it carries.
    unsafe {
        for_each_out(p_next, |s| match (*s).s_type {
            vk::StructureType::PHYSICAL_DEVICE_IMAGE_COMPRESSION_CONTROL_SWAPCHAIN_FEATURES_EXT => {
                swapchain = Some(
                    s.cast::<vk::PhysicalDeviceImageCompressionControlSwapchainFeaturesEXT<'_>>(),
                );
            }
            vk::StructureType::PHYSICAL_DEVICE_IMAGE_COMPRESSION_CONTROL_FEATURES_EXT => {
                let p = s.cast::<vk::PhysicalDeviceImageCompressionControlFeaturesEXT<'_>>();
                control = Some((*p).image_compression_control == vk::TRUE);
            }
            _ => {}
        })
    };
    let Some(swapchain) = swapchain else {
        return;
    };
    // SAFETY: the resolved driver physical device.
    let control =
        control.unwrap_or_else(|| unsafe { driver_image_compression_control(r.driver, r.handle) });
    // SAFETY: a structure of the application's chain, found above.
    unsafe { (*swapchain).image_compression_control_swapchain = vk::Bool32::from(control) };
}

/// The `vkBindImageMemory2` hook (see [`swapchain::bind_image_memory2`]).
pub fn bind_image_memory2_hook() -> vk::PFN_vkVoidFunction {
    to_void(swapchain::bind_image_memory2 as vk::PFN_vkBindImageMemory2)
}

// The workspace's one pNext walker (`vkgen_generated::chain`), under the paths WSI code uses.
pub(crate) use vkgen_generated::chain::{find_in_chain, for_each_out};

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_handles_are_tagged_unique_and_checked() {
        let r: Registry<u32> = Registry::new(0x5c);
        let a = r.reserve();
        let b = r.reserve();
        assert_ne!(a, b);
        assert_eq!(a >> 48, 0x5c);
        assert!(r.get(a).is_none());
        r.insert(a, Arc::new(7));
        assert_eq!(r.get(a).as_deref(), Some(&7));
        assert!(r.get(0).is_none());
        assert!(r.remove(b).is_none());
        assert_eq!(r.remove(a).as_deref(), Some(&7));
        assert!(r.is_empty());
    }

    /// AOSP intercepts only the core `vkGetPhysicalDeviceFeatures2` (where it patches
    /// `swapchainMaintenance1`); the KHR alias is the driver's.
    #[test]
    fn features2_is_hooked_under_its_core_name_only() {
        assert!(instance_hook(c"vkGetPhysicalDeviceFeatures2").is_some());
        assert!(instance_hook(c"vkGetPhysicalDeviceFeatures2KHR").is_none());
    }

    #[test]
    fn every_wsi_command_has_a_hook() {
        for name in [
            c"vkCreateAndroidSurfaceKHR",
            c"vkDestroySurfaceKHR",
            c"vkGetPhysicalDeviceSurfaceSupportKHR",
            c"vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
            c"vkGetPhysicalDeviceSurfaceCapabilities2KHR",
            c"vkGetPhysicalDeviceSurfaceFormatsKHR",
            c"vkGetPhysicalDeviceSurfaceFormats2KHR",
            c"vkGetPhysicalDeviceSurfacePresentModesKHR",
            c"vkGetPhysicalDevicePresentRectanglesKHR",
        ] {
            assert!(instance_hook(name).is_some(), "{name:?}");
        }
        for name in [
            c"vkCreateSwapchainKHR",
            c"vkDestroySwapchainKHR",
            c"vkGetSwapchainImagesKHR",
            c"vkAcquireNextImageKHR",
            c"vkAcquireNextImage2KHR",
            c"vkQueuePresentKHR",
            c"vkGetSwapchainStatusKHR",
            c"vkReleaseSwapchainImagesEXT",
            c"vkGetDeviceGroupPresentCapabilitiesKHR",
            c"vkGetDeviceGroupSurfacePresentModesKHR",
            c"vkGetRefreshCycleDurationGOOGLE",
            c"vkGetPastPresentationTimingGOOGLE",
            c"vkSetHdrMetadataEXT",
        ] {
            assert!(device_hook(name).is_some(), "{name:?}");
        }
        assert!(device_hook(c"vkCreateImage").is_none());
    }
}
