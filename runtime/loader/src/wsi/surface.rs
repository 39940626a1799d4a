//! `VkSurfaceKHR` on an `ANativeWindow`, and every surface query.
//!
//! **Creation** (`vkCreateAndroidSurfaceKHR`): a strong reference to the window, its consumer
//! usage (`NATIVE_WINDOW_GET_CONSUMER_USAGE64`; failure → `VK_ERROR_SURFACE_LOST_KHR`), then
//! `native_window_api_connect(NATIVE_WINDOW_API_EGL)`: a window another producer (or another
//! surface) is connected to gives `VK_ERROR_NATIVE_WINDOW_IN_USE_KHR`. Destruction disconnects.
//! A NULL surface handle is ignored by `vkDestroySurfaceKHR`; an unknown one too (logged).
//!
//! **Capabilities** (v1 answers through v2) from the window's `DEFAULT_WIDTH`,
//! `DEFAULT_HEIGHT`, `TRANSFORM_HINT`, `MAX_BUFFER_COUNT` and `MIN_UNDEQUEUED_BUFFERS`:
//! image count `min(max_buffers, min_undequeued + 2)` ..= `max_buffers` (1..=1 for a shared
//! present mode named by `VkSurfacePresentModeEXT`); current extent = the window's default size
//! (never swapped for rotation: pre-rotating apps swap it themselves), min 1×1, max 4096² raised
//! to the current extent (a Wayland surface on a Linux host: current `0xFFFFFFFF`, max 4096², the
//! swapchain decides; its present rectangle is `0xFFFFFFFF` too); one layer; the eight rotate/mirror transforms plus INHERIT, current =
//! the transform hint; composite alpha INHERIT only (composition is the window manager's; a desktop
//! surface on a Linux host: OPAQUE and INHERIT, as desktop WSI); usage
//! TRANSFER_SRC/DST, SAMPLED, STORAGE, COLOR_ATTACHMENT, INPUT_ATTACHMENT. Output chain:
//! `VkSharedPresentSurfaceCapabilitiesKHR` (same usage), `VkSurfaceProtectedCapabilitiesKHR`
//! (`supportsProtected = TRUE`), `VkSurfacePresentScalingCapabilitiesEXT` (STRETCH, no gravity),
//! `VkSurfacePresentModeCompatibilityEXT` (the mode itself, plus the other shared mode for a
//! shared one).
//!
//! **NULL surface**: only with `VK_GOOGLE_surfaceless_query` enabled on the instance (else
//! `VK_ERROR_SURFACE_LOST_KHR`): capabilities then report `0xFFFFFFFF` sizes and image counts,
//! formats assume wide-colour support, present modes are `FIFO` (plus the shared ones), as
//! AOSP android16. An unknown non-NULL handle is `VK_ERROR_SURFACE_LOST_KHR`.
//!
//! Formats, present modes: see [`super::formats`]. Presentation support is always TRUE (any
//! queue can present to any window). Device groups: one device, `LOCAL` only; one present
//! rectangle, the window's size.

use std::ffi::c_int;
use std::sync::atomic::{AtomicBool, AtomicU64};
use std::sync::{Arc, Mutex};

use vkgen_abi::native_window as nw;
use vkgen_abi::vk_error;
use vkgen_generated::extensions::ExtensionId;

use super::formats::{self, SUPPORTED_TRANSFORMS};
use super::registry::AppAllocation;
use super::registry::Registry;
use super::window::{strerror, Window};
use super::window_err::{map_window_err, window_status, WindowCall};
use crate::dispatch_data::InstanceData;
use crate::driver_handles::{driver_device_extensions, resolve, Resolved};
use crate::ffi::{fill_array, guard};
use vkgen_generated::chain::find_in_chain;
use vkgen_generated::chain::for_each_out;
use vkgen_generated::vk;

/// The live surfaces.
pub static SURFACES: Registry<Surface> = Registry::new(0x5355);

/// A `VkSurfaceKHR`.
#[derive(Debug)]
pub struct Surface {
    /// The window (a strong reference, connected as the EGL-API producer while the surface
    /// lives).
    pub window: Window,
    /// The consumer's usage bits, read once at creation (gralloc usage of every buffer).
    pub consumer_usage: u64,
    /// The surface's current swapchain (AOSP's `swapchain_handle`): 0 when none; a swapchain
    /// whose handle is not this one is retired ("orphaned").
    pub current: AtomicU64,
    /// Whether a swapchain was ever created: the next one reconnects the window first.
    pub used_by_swapchain: AtomicBool,
    /// Serialises swapchain creation and destruction on this surface.
    pub lock: Mutex<()>,
    /// The instance handle it was created with (for cleanup at `vkDestroyInstance`).
    pub instance: u64,
    _allocation: AppAllocation,
}

/// Destroys the surfaces of `instance` the application did not destroy (called by
/// `vkDestroyInstance`): disconnects their windows.
pub fn destroy_all_of_instance(instance: vk::Instance) {
    let raw = vk::Handle::as_raw(instance);
    for s in SURFACES.remove_where(|s| s.instance == raw) {
        log::warn!("vkDestroyInstance: a VkSurfaceKHR was not destroyed; destroying it now");
        // A desktop surface's presenter stops with it.
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        super::desktop::presenters::forget_surface_at(Arc::as_ptr(&s) as usize);
        s.window.api_disconnect(nw::NATIVE_WINDOW_API_EGL);
    }
}

/// What a surface argument names.
pub enum SurfaceArg {
    /// NULL, with `VK_GOOGLE_surfaceless_query` enabled.
    Surfaceless,
    /// A live surface.
    Live(Arc<Surface>),
}

impl SurfaceArg {
    /// The surface, if not surfaceless.
    pub fn live(&self) -> Option<&Surface> {
        match self {
            Self::Surfaceless => None,
            Self::Live(s) => Some(s),
        }
    }
}

/// Resolves a surface argument of a query: NULL needs `VK_GOOGLE_surfaceless_query`, an unknown
/// handle is lost.
pub fn surface_arg(
    instance: &InstanceData,
    surface: vk::SurfaceKHR,
    what: &str,
) -> Result<SurfaceArg, vk::Result> {
    let raw = vk::Handle::as_raw(surface);
    if raw == 0 {
        if instance
            .term
            .enabled_extensions
            .contains(ExtensionId::GOOGLE_SURFACELESS_QUERY)
        {
            return Ok(SurfaceArg::Surfaceless);
        }
        return Err(vk_error!(
            vk::Result::ERROR_SURFACE_LOST_KHR,
            "{what}: VK_NULL_HANDLE surface needs VK_GOOGLE_surfaceless_query"
        ));
    }
    SURFACES.get(raw).map(SurfaceArg::Live).ok_or_else(|| {
        vk_error!(
            vk::Result::ERROR_SURFACE_LOST_KHR,
            "{what}: {raw:#x} is not a live VkSurfaceKHR"
        )
    })
}

/// Resolves a physical device for a WSI query.
///
/// # Safety
/// `pd` must be null or a physical device of this loader.
unsafe fn physical<'a>(pd: vk::PhysicalDevice, what: &str) -> Result<Resolved<'a>, vk::Result> {
    // SAFETY: the caller guarantees `pd` is null or a physical device of this loader, which is
    // `resolve`'s requirement.
    unsafe { resolve(pd) }.ok_or_else(|| {
        vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{what}: {pd:?} is not a physical device of this loader"
        )
    })
}

/// Runs a `VkResult` command body under [`guard`], mapping `Err` to its code.
fn run(what: &'static str, body: impl FnOnce() -> Result<vk::Result, vk::Result>) -> vk::Result {
    guard(what, vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        match body() {
            Ok(r) | Err(r) => r,
        }
    })
}

/// `vkCreateAndroidSurfaceKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn create_android_surface(
    instance: vk::Instance,
    info: *const vk::AndroidSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    let _trace = crate::trace::section("CreateAndroidSurfaceKHR");
    run("vkCreateAndroidSurfaceKHR", || {
        // SAFETY: `info` is the application's pCreateInfo, null (refused here) or a valid create
        // info for this call (VUID-vkCreateAndroidSurfaceKHR-pCreateInfo-parameter).
        let (Some(info), false) = (unsafe { info.as_ref() }, out.is_null()) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkCreateAndroidSurfaceKHR: null pCreateInfo or pSurface"
            ));
        };
        // AOSP's `CreateAndroidSurfaceKHR`: without a pAllocator, the instance's (scope OBJECT).
        let instance_callbacks = if allocator.is_null() {
            // SAFETY: `instance` is the application's live instance of this loader
            // (VUID-vkCreateAndroidSurfaceKHR-instance-parameter), which outlives the call.
            unsafe { crate::dispatch_data::instance_data(vk::Handle::as_raw(instance) as usize) }
                .and_then(|d| d.allocator.app_callbacks())
        } else {
            None
        };
        let allocator = instance_callbacks
            .as_ref()
            .map_or(allocator, |cb| std::ptr::from_ref(cb).cast());
        // SAFETY: `allocator` is the application's pAllocator, null or valid callbacks
        // (VUID-vkCreateAndroidSurfaceKHR-pAllocator-parameter) that stay valid until the surface
        // is destroyed with compatible ones, or the instance's, which outlive its surfaces.
        let allocation = unsafe {
            AppAllocation::new(
                allocator,
                std::mem::size_of::<Surface>(),
                std::mem::align_of::<Surface>(),
            )
        }?;
        // SAFETY: the application's window (or null, refused).
        let window = unsafe { Window::retain(info.window.cast()) }.map_err(|e| {
            vk_error!(
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "vkCreateAndroidSurfaceKHR: not an ANativeWindow ({e:?})"
            )
        })?;
        let consumer_usage = window.consumer_usage().map_err(|e| {
            map_window_err(
                e,
                WindowCall::Other,
                "vkCreateAndroidSurfaceKHR",
                "native_window_get_consumer_usage",
            )
        })?;
        let err = window.api_connect(nw::NATIVE_WINDOW_API_EGL);
        window_status(
            err,
            WindowCall::Connect,
            "vkCreateAndroidSurfaceKHR",
            "native_window_api_connect",
        )?;
        let handle = SURFACES.reserve();
        SURFACES.insert(
            handle,
            Arc::new(Surface {
                window,
                consumer_usage,
                current: AtomicU64::new(0),
                used_by_swapchain: AtomicBool::new(false),
                lock: Mutex::new(()),
                instance: vk::Handle::as_raw(instance),
                _allocation: allocation,
            }),
        );
        // SAFETY: non-null per the check above.
        unsafe { *out = vk::Handle::from_raw(handle) };
        Ok(vk::Result::SUCCESS)
    })
}

/// `vkDestroySurfaceKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn destroy_surface(
    _instance: vk::Instance,
    surface: vk::SurfaceKHR,
    _allocator: *const vk::AllocationCallbacks<'_>,
) {
    let _trace = crate::trace::section("DestroySurfaceKHR");
    guard("vkDestroySurfaceKHR", (), || {
        let raw = vk::Handle::as_raw(surface);
        if raw == 0 {
            return;
        }
        let Some(surface) = SURFACES.remove(raw) else {
            log::error!("vkDestroySurfaceKHR: {raw:#x} is not a live VkSurfaceKHR");
            return;
        };
        // A desktop surface's presenter stops with it.
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        super::desktop::presenters::forget(raw);
        let err = surface.window.api_disconnect(nw::NATIVE_WINDOW_API_EGL);
        if err != super::window::OK {
            log::warn!(
                "vkDestroySurfaceKHR: native_window_api_disconnect failed: {}",
                strerror(err)
            );
        }
        let current = surface.current.load(std::sync::atomic::Ordering::Acquire);
        if current != 0 {
            log::warn!("vkDestroySurfaceKHR: surface {raw:#x} still has swapchain {current:#x}");
        }
    });
}

/// `vkGetPhysicalDeviceSurfaceSupportKHR`: always TRUE.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn surface_support(
    _pd: vk::PhysicalDevice,
    _family: u32,
    _surface: vk::SurfaceKHR,
    supported: *mut vk::Bool32,
) -> vk::Result {
    run("vkGetPhysicalDeviceSurfaceSupportKHR", || {
        // SAFETY: `supported` is the application's pSupported: null (refused here) or writable for
        // this call (VUID-vkGetPhysicalDeviceSurfaceSupportKHR-pSupported-parameter).
        let Some(out) = (unsafe { supported.as_mut() }) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkGetPhysicalDeviceSurfaceSupportKHR: null pSupported"
            ));
        };
        *out = vk::TRUE;
        Ok(vk::Result::SUCCESS)
    })
}

/// `SupportedUsageFlags` of every Android surface.
pub const SUPPORTED_USAGE: vk::ImageUsageFlags = vk::ImageUsageFlags::from_raw(
    vk::ImageUsageFlags::TRANSFER_SRC.as_raw()
        | vk::ImageUsageFlags::TRANSFER_DST.as_raw()
        | vk::ImageUsageFlags::SAMPLED.as_raw()
        | vk::ImageUsageFlags::STORAGE.as_raw()
        | vk::ImageUsageFlags::COLOR_ATTACHMENT.as_raw()
        | vk::ImageUsageFlags::INPUT_ATTACHMENT.as_raw(),
);

/// Queries a window attribute for the capabilities: failure is a lost surface.
#[track_caller]
fn query(window: &Window, what: c_int, name: &str) -> Result<c_int, vk::Result> {
    window.query(what).map_err(|e| {
        let what = format!("NATIVE_WINDOW_{name} query");
        map_window_err(
            e,
            WindowCall::Other,
            "vkGetPhysicalDeviceSurfaceCapabilitiesKHR",
            &what,
        )
    })
}

/// `0xFFFFFFFF` × `0xFFFFFFFF`: "the swapchain decides" (a Wayland surface's current extent and
/// present rectangle).
pub const UNDEFINED_EXTENT: vk::Extent2D = vk::Extent2D {
    width: u32::MAX,
    height: u32::MAX,
};

/// The capabilities of a surface (or of none, surfaceless), for `present_mode` when known.
pub fn capabilities(
    surface: Option<&Surface>,
    present_mode: Option<vk::PresentModeKHR>,
) -> Result<vk::SurfaceCapabilitiesKHR, vk::Result> {
    let (width, height, hint, min_images, max_images) = match surface {
        None => (u32::MAX, u32::MAX, 0, u32::MAX, u32::MAX),
        Some(s) => {
            let w = &s.window;
            let width = query(w, nw::NATIVE_WINDOW_DEFAULT_WIDTH, "DEFAULT_WIDTH")?;
            let height = query(w, nw::NATIVE_WINDOW_DEFAULT_HEIGHT, "DEFAULT_HEIGHT")?;
            let hint = query(w, nw::NATIVE_WINDOW_TRANSFORM_HINT, "TRANSFORM_HINT")?;
            let max = query(w, nw::NATIVE_WINDOW_MAX_BUFFER_COUNT, "MAX_BUFFER_COUNT")?;
            let min_undequeued = query(
                w,
                nw::NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS,
                "MIN_UNDEQUEUED_BUFFERS",
            )?;
            let max = max.max(0) as u32;
            let (min_images, max_images) = if present_mode.is_some_and(formats::is_shared) {
                (1, 1)
            } else {
                (
                    max.min((min_undequeued.max(0) as u32).saturating_add(2)),
                    max,
                )
            };
            (
                width.max(0) as u32,
                height.max(0) as u32,
                hint,
                min_images,
                max_images,
            )
        }
    };
    #[allow(unused_mut)]
    let (mut current, mut max) = (
        vk::Extent2D { width, height },
        vk::Extent2D {
            width: width.max(4096),
            height: height.max(4096),
        },
    );
    // A Wayland surface (Linux hosts) has no size of its own: the swapchain decides it.
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    if surface.and_then(desktop_kind) == Some(super::desktop::presenters::Kind::Wayland) {
        current = UNDEFINED_EXTENT;
        max = vk::Extent2D {
            width: 4096,
            height: 4096,
        };
    }
    Ok(vk::SurfaceCapabilitiesKHR {
        min_image_count: min_images,
        max_image_count: max_images,
        current_extent: current,
        min_image_extent: vk::Extent2D {
            width: 1,
            height: 1,
        },
        max_image_extent: max,
        max_image_array_layers: 1,
        supported_transforms: SUPPORTED_TRANSFORMS,
        current_transform: formats::native_to_vulkan_transform(hint),
        supported_composite_alpha: composite_alphas(surface),
        supported_usage_flags: SUPPORTED_USAGE,
    })
}

/// `vkGetPhysicalDeviceSurfaceCapabilitiesKHR` (through the v2 path).
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn surface_capabilities(
    pd: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    out: *mut vk::SurfaceCapabilitiesKHR,
) -> vk::Result {
    let _trace = crate::trace::section("GetPhysicalDeviceSurfaceCapabilitiesKHR");
    run("vkGetPhysicalDeviceSurfaceCapabilitiesKHR", || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceSurfaceCapabilitiesKHR-physicalDevice-parameter).
        let r = unsafe { physical(pd, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR") }?;
        let arg = surface_arg(r.data, surface, "vkGetPhysicalDeviceSurfaceCapabilitiesKHR")?;
        // SAFETY: `out` is the application's pSurfaceCapabilities: null (refused here) or writable
        // for this call
        // (VUID-vkGetPhysicalDeviceSurfaceCapabilitiesKHR-pSurfaceCapabilities-parameter).
        let Some(out) = (unsafe { out.as_mut() }) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkGetPhysicalDeviceSurfaceCapabilitiesKHR: null pSurfaceCapabilities"
            ));
        };
        *out = capabilities(arg.live(), None)?;
        Ok(vk::Result::SUCCESS)
    })
}

/// `vkGetPhysicalDeviceSurfaceCapabilities2KHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn surface_capabilities2(
    pd: vk::PhysicalDevice,
    info: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>,
    out: *mut vk::SurfaceCapabilities2KHR<'_>,
) -> vk::Result {
    let _trace = crate::trace::section("GetPhysicalDeviceSurfaceCapabilities2KHR");
    run("vkGetPhysicalDeviceSurfaceCapabilities2KHR", || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceSurfaceCapabilities2KHR-physicalDevice-parameter).
        let r = unsafe { physical(pd, "vkGetPhysicalDeviceSurfaceCapabilities2KHR") }?;
        // SAFETY: `info` and `out` are the application's: each null (refused here) or valid for
        // this call (VUID-vkGetPhysicalDeviceSurfaceCapabilities2KHR-pSurfaceInfo-parameter,
        // -pSurfaceCapabilities-parameter).
        let (Some(info), Some(out)) = (unsafe { info.as_ref() }, unsafe { out.as_mut() }) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkGetPhysicalDeviceSurfaceCapabilities2KHR: null pSurfaceInfo or pSurfaceCapabilities"
            ));
        };
        let arg = surface_arg(
            r.data,
            info.surface,
            "vkGetPhysicalDeviceSurfaceCapabilities2KHR",
        )?;
        // SAFETY: the application's valid input chain.
        let mode = unsafe {
            find_in_chain::<vk::SurfacePresentModeEXT<'_>>(
                info.p_next,
                vk::StructureType::SURFACE_PRESENT_MODE_EXT,
            )
        }
        .map(|m| m.present_mode);
        let caps = capabilities(arg.live(), mode)?;
        out.surface_capabilities = caps;
        // SAFETY: the application's valid output chain; each structure is cast to the type its
        // sType names.
        unsafe {
            for_each_out(out.p_next, |s| match (*s).s_type {
                vk::StructureType::SHARED_PRESENT_SURFACE_CAPABILITIES_KHR => {
                    let p = s.cast::<vk::SharedPresentSurfaceCapabilitiesKHR<'_>>();
                    (*p).shared_present_supported_usage_flags = caps.supported_usage_flags;
                }
                vk::StructureType::SURFACE_PROTECTED_CAPABILITIES_KHR => {
                    let p = s.cast::<vk::SurfaceProtectedCapabilitiesKHR<'_>>();
                    (*p).supports_protected = vk::TRUE;
                }
                vk::StructureType::SURFACE_PRESENT_SCALING_CAPABILITIES_EXT => {
                    let p = s.cast::<vk::SurfacePresentScalingCapabilitiesEXT<'_>>();
                    (*p).supported_present_scaling = vk::PresentScalingFlagsEXT::STRETCH;
                    (*p).supported_present_gravity_x = vk::PresentGravityFlagsEXT::empty();
                    (*p).supported_present_gravity_y = vk::PresentGravityFlagsEXT::empty();
                    (*p).min_scaled_image_extent = caps.min_image_extent;
                    (*p).max_scaled_image_extent = caps.max_image_extent;
                }
                vk::StructureType::SURFACE_PRESENT_MODE_COMPATIBILITY_EXT => {
                    let p = s.cast::<vk::SurfacePresentModeCompatibilityEXT<'_>>();
                    let compatible = compatible_modes(mode);
                    if (*p).p_present_modes.is_null() {
                        (*p).present_mode_count = compatible.len() as u32;
                    } else {
                        let n = ((*p).present_mode_count as usize).min(compatible.len());
                        std::ptr::copy_nonoverlapping(compatible.as_ptr(), (*p).p_present_modes, n);
                        (*p).present_mode_count = n as u32;
                    }
                }
                _ => {}
            })
        };
        Ok(vk::Result::SUCCESS)
    })
}

/// The present modes a swapchain of `mode` can switch to: itself, and the other shared mode.
pub fn compatible_modes(mode: Option<vk::PresentModeKHR>) -> Vec<vk::PresentModeKHR> {
    use vk::PresentModeKHR as M;
    match mode {
        None => Vec::new(),
        Some(M::SHARED_DEMAND_REFRESH) => {
            vec![M::SHARED_DEMAND_REFRESH, M::SHARED_CONTINUOUS_REFRESH]
        }
        Some(M::SHARED_CONTINUOUS_REFRESH) => {
            vec![M::SHARED_CONTINUOUS_REFRESH, M::SHARED_DEMAND_REFRESH]
        }
        Some(m) => vec![m],
    }
}

/// AOSP's stand-in consumer usage for a NULL surface (`VK_GOOGLE_surfaceless_query`): "the
/// values seen on Pixel".
const SURFACELESS_CONSUMER_USAGE: u64 = nw::buffer_usage::COMPOSER_OVERLAY;

/// `AHardwareBuffer_isSupported` for a 1×1 single-layer buffer of `format` and `usage` (AOSP's
/// probe for the optional surface formats).
fn allocator_supports(format: u32, usage: u64) -> bool {
    super::gralloc_usage::is_supported(&vkgen_abi::hardware_buffer::AHardwareBufferDesc {
        width: 1,
        height: 1,
        layers: 1,
        format,
        usage,
        ..Default::default()
    })
}

/// The window system a desktop surface (Linux hosts) presents to, if `surface` is one: its
/// presenter is found by the surface's address.
#[cfg(all(feature = "desktop", not(target_os = "android")))]
fn desktop_kind(surface: &Surface) -> Option<super::desktop::presenters::Kind> {
    super::desktop::presenters::kind_at(std::ptr::from_ref(surface) as usize)
}

/// Whether `surface` is a desktop surface (an X11 or Wayland window on a Linux host), whose
/// presenter answers some queries differently from an Android window.
pub(crate) fn is_desktop(surface: Option<&Surface>) -> bool {
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    {
        surface.and_then(desktop_kind).is_some()
    }
    #[cfg(not(all(feature = "desktop", not(target_os = "android"))))]
    {
        let _ = surface;
        false
    }
}

/// The composite alphas `surface` offers: INHERIT (AOSP); a desktop surface also OPAQUE, desktop
/// WSI's answer, which programs written for it require. Either way the frame is shown opaque.
fn composite_alphas(surface: Option<&Surface>) -> vk::CompositeAlphaFlagsKHR {
    if is_desktop(surface) {
        vk::CompositeAlphaFlagsKHR::OPAQUE | vk::CompositeAlphaFlagsKHR::INHERIT
    } else {
        vk::CompositeAlphaFlagsKHR::INHERIT
    }
}

/// For a swapchain of `format` on `surface`: its buffers' `HAL_PIXEL_FORMAT_*` (a desktop
/// surface keeps BGRA buffers BGRA: [`formats::desktop_pixel_format`]) and the composite alphas
/// the surface offers.
pub(crate) fn buffer_format(
    surface: &Surface,
    format: vk::Format,
) -> (c_int, vk::CompositeAlphaFlagsKHR) {
    let pixel_format = if is_desktop(Some(surface)) {
        formats::desktop_pixel_format(format)
    } else {
        formats::native_pixel_format(format)
    };
    (pixel_format, composite_alphas(Some(surface)))
}

/// The surface formats of `surface` on the driver's physical device (AOSP's list: see
/// [`formats::surface_formats`]; a desktop surface's: [`formats::desktop_surface_formats`]).
fn formats_of(r: &Resolved<'_>, surface: &SurfaceArg) -> Vec<vk::SurfaceFormatKHR> {
    let colorspace = r
        .data
        .term
        .enabled_extensions
        .contains(ExtensionId::EXT_SWAPCHAIN_COLORSPACE);
    // SAFETY: the resolved driver physical device.
    let rgba10x6 = unsafe { driver_device_extensions(r.driver, r.handle) }
        .is_ok_and(|l| crate::extensions::contains(&l, c"VK_EXT_rgba10x6_formats"));
    let consumer = surface
        .live()
        .map_or(SURFACELESS_CONSUMER_USAGE, |s| s.consumer_usage);
    let usage = consumer | nw::buffer_usage::GPU_TEXTURE | nw::buffer_usage::GPU_RENDER_TARGET;
    if is_desktop(surface.live()) {
        return formats::desktop_surface_formats(|format| allocator_supports(format, usage));
    }
    formats::surface_formats(colorspace, rgba10x6, |format| {
        allocator_supports(format, usage)
    })
}

/// `vkGetPhysicalDeviceSurfaceFormatsKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn surface_formats(
    pd: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    count: *mut u32,
    out: *mut vk::SurfaceFormatKHR,
) -> vk::Result {
    let _trace = crate::trace::section("GetPhysicalDeviceSurfaceFormatsKHR");
    run("vkGetPhysicalDeviceSurfaceFormatsKHR", || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceSurfaceFormatsKHR-physicalDevice-parameter).
        let r = unsafe { physical(pd, "vkGetPhysicalDeviceSurfaceFormatsKHR") }?;
        let surface = surface_arg(r.data, surface, "vkGetPhysicalDeviceSurfaceFormatsKHR")?;
        let list = formats_of(&r, &surface);
        // SAFETY: the caller's two-call pointers.
        Ok(unsafe { fill_array(&list, count, out) })
    })
}

/// `vkGetPhysicalDeviceSurfaceFormats2KHR`: the v1 list in `surfaceFormat` of each element
/// (their `sType`/`pNext` stay the application's), with `VkImageCompressionPropertiesEXT` in an
/// element's chain filled from the driver (`compression_properties`).
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn surface_formats2(
    pd: vk::PhysicalDevice,
    info: *const vk::PhysicalDeviceSurfaceInfo2KHR<'_>,
    count: *mut u32,
    out: *mut vk::SurfaceFormat2KHR<'_>,
) -> vk::Result {
    let _trace = crate::trace::section("GetPhysicalDeviceSurfaceFormats2KHR");
    run("vkGetPhysicalDeviceSurfaceFormats2KHR", || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceSurfaceFormats2KHR-physicalDevice-parameter).
        let r = unsafe { physical(pd, "vkGetPhysicalDeviceSurfaceFormats2KHR") }?;
        // SAFETY: `info` and `count` are the application's: each null (refused here) or valid for
        // this call (VUID-vkGetPhysicalDeviceSurfaceFormats2KHR-pSurfaceInfo-parameter,
        // -pSurfaceFormatCount-parameter).
        let (Some(info), Some(n)) = (unsafe { info.as_ref() }, unsafe { count.as_mut() }) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkGetPhysicalDeviceSurfaceFormats2KHR: null pSurfaceInfo or pSurfaceFormatCount"
            ));
        };
        let surface = surface_arg(
            r.data,
            info.surface,
            "vkGetPhysicalDeviceSurfaceFormats2KHR",
        )?;
        let list = formats_of(&r, &surface);
        if out.is_null() {
            *n = list.len() as u32;
            return Ok(vk::Result::SUCCESS);
        }
        let written = (*n as usize).min(list.len());
        for (i, f) in list.iter().take(written).enumerate() {
            // SAFETY: the caller's array holds `*n >= written` initialised structures.
            let element = unsafe { &mut *out.add(i) };
            element.surface_format = *f;
            // SAFETY: the element's valid output chain.
            unsafe { compression_properties(&r, f.format, element.p_next) }?;
        }
        *n = written as u32;
        Ok(if written < list.len() {
            vk::Result::INCOMPLETE
        } else {
            vk::Result::SUCCESS
        })
    })
}

/// Fills each `VkImageCompressionPropertiesEXT` of a `VkSurfaceFormat2KHR`'s chain as AOSP
/// does: the driver's `vkGetPhysicalDeviceImageFormatProperties2` for the format (2D,
/// `COLOR_ATTACHMENT`, optimal tiling) with `VkImageCompressionControlEXT(FIXED_RATE_DEFAULT)`;
/// its answer is copied on success, out-of-memory errors are returned, any other failure
/// leaves the structure as the application gave it.
///
/// # Safety
/// `p_next` must be a valid output chain; `r` a resolved physical device.
unsafe fn compression_properties(
    r: &Resolved<'_>,
    format: vk::Format,
    p_next: *mut std::ffi::c_void,
) -> Result<(), vk::Result> {
    let mut targets = Vec::new();
    // SAFETY: the caller guarantees `p_next` is null or a valid output chain of the application's,
    // each struct writable for this call.
    unsafe {
        for_each_out(p_next, |s| {
            if (*s).s_type == vk::StructureType::IMAGE_COMPRESSION_PROPERTIES_EXT {
                targets.push(s.cast::<vk::ImageCompressionPropertiesEXT<'_>>());
            }
        })
    };
    if targets.is_empty() {
        return Ok(());
    }
    let Some(image_format_properties2) = super::device_support::instance_fn::<
        vk::PFN_vkGetPhysicalDeviceImageFormatProperties2,
    >(
        r.driver, c"vkGetPhysicalDeviceImageFormatProperties2"
    ) else {
        return Ok(());
    };
    let control = vk::ImageCompressionControlEXT {
        flags: vk::ImageCompressionFlagsEXT::FIXED_RATE_DEFAULT,
        ..Default::default()
    };
    let info = vk::PhysicalDeviceImageFormatInfo2 {
        p_next: std::ptr::addr_of!(control).cast(),
        format,
        ty: vk::ImageType::TYPE_2D,
        tiling: vk::ImageTiling::OPTIMAL,
        usage: vk::ImageUsageFlags::COLOR_ATTACHMENT,
        ..Default::default()
    };
    let mut answer = vk::ImageCompressionPropertiesEXT::default();
    let mut props = vk::ImageFormatProperties2 {
        p_next: std::ptr::addr_of_mut!(answer).cast(),
        ..Default::default()
    };
    // SAFETY: the driver's query for its own physical device with valid structures.
    let result = unsafe { image_format_properties2(r.handle, &info, &mut props) };
    match result {
        vk::Result::SUCCESS => {
            for t in targets {
                // SAFETY: an IMAGE_COMPRESSION_PROPERTIES_EXT structure of the chain.
                unsafe {
                    (*t).image_compression_flags = answer.image_compression_flags;
                    (*t).image_compression_fixed_rate_flags =
                        answer.image_compression_fixed_rate_flags;
                }
            }
            Ok(())
        }
        vk::Result::ERROR_OUT_OF_HOST_MEMORY | vk::Result::ERROR_OUT_OF_DEVICE_MEMORY => {
            Err(result)
        }
        _ => Ok(()),
    }
}

/// `vkGetPhysicalDeviceSurfacePresentModesKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn surface_present_modes(
    pd: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    count: *mut u32,
    out: *mut vk::PresentModeKHR,
) -> vk::Result {
    let _trace = crate::trace::section("GetPhysicalDeviceSurfacePresentModesKHR");
    run("vkGetPhysicalDeviceSurfacePresentModesKHR", || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDeviceSurfacePresentModesKHR-physicalDevice-parameter).
        let r = unsafe { physical(pd, "vkGetPhysicalDeviceSurfacePresentModesKHR") }?;
        let arg = surface_arg(r.data, surface, "vkGetPhysicalDeviceSurfacePresentModesKHR")?;
        let mailbox = match arg.live() {
            // Surfaceless (VK_GOOGLE_surfaceless_query): AOSP android16 answers FIFO (and the
            // shared modes) only, since no window says whether it could hold a mailbox buffer.
            None => false,
            Some(s) => {
                let min_undequeued = s
                    .window
                    .query_non_negative(nw::NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS)
                    .map_err(|e| {
                        let what = "NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS query";
                        map_window_err(
                            e,
                            WindowCall::Other,
                            "vkGetPhysicalDeviceSurfacePresentModesKHR",
                            what,
                        )
                    })?;
                let max_buffers = s
                    .window
                    .query_non_negative(nw::NATIVE_WINDOW_MAX_BUFFER_COUNT)
                    .map_err(|e| {
                        let what = "NATIVE_WINDOW_MAX_BUFFER_COUNT query";
                        map_window_err(
                            e,
                            WindowCall::Other,
                            "vkGetPhysicalDeviceSurfacePresentModesKHR",
                            what,
                        )
                    })?;
                min_undequeued + 1 < max_buffers
            }
        };
        // SAFETY: the resolved driver physical device.
        let shared = unsafe { super::device_support::shared_image_supported(r.driver, r.handle) };
        #[allow(unused_mut)]
        let mut list = formats::present_modes(mailbox, shared);
        // Desktop surfaces (Linux hosts) also show frames unpaced, and X11 ones late frames at
        // once (the presenter is the display there: `desktop::pacing`).
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        if let Some(kind) = arg.live().and_then(desktop_kind) {
            list.insert(0, vk::PresentModeKHR::IMMEDIATE);
            if kind == super::desktop::presenters::Kind::X11 {
                let fifo = list.iter().position(|&m| m == vk::PresentModeKHR::FIFO);
                list.insert(
                    fifo.map_or(list.len(), |i| i + 1),
                    vk::PresentModeKHR::FIFO_RELAXED,
                );
            }
        }
        // SAFETY: the caller's two-call pointers.
        Ok(unsafe { fill_array(&list, count, out) })
    })
}

/// `vkGetPhysicalDevicePresentRectanglesKHR`: one rectangle, the window's default size.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn present_rectangles(
    pd: vk::PhysicalDevice,
    surface: vk::SurfaceKHR,
    count: *mut u32,
    out: *mut vk::Rect2D,
) -> vk::Result {
    let _trace = crate::trace::section("GetPhysicalDevicePresentRectanglesKHR");
    run("vkGetPhysicalDevicePresentRectanglesKHR", || {
        // SAFETY: `pd` is the application's physical device, one this loader handed out
        // (VUID-vkGetPhysicalDevicePresentRectanglesKHR-physicalDevice-parameter).
        let r = unsafe { physical(pd, "vkGetPhysicalDevicePresentRectanglesKHR") }?;
        let arg = surface_arg(r.data, surface, "vkGetPhysicalDevicePresentRectanglesKHR")?;
        let (width, height) = match arg.live() {
            None => (0, 0),
            Some(s) => {
                let q = |what, name| {
                    s.window.query(what).unwrap_or_else(|e| {
                        log::error!("NATIVE_WINDOW_{name} query failed: {}", strerror(e));
                        0
                    })
                };
                (
                    q(nw::NATIVE_WINDOW_DEFAULT_WIDTH, "DEFAULT_WIDTH"),
                    q(nw::NATIVE_WINDOW_DEFAULT_HEIGHT, "DEFAULT_HEIGHT"),
                )
            }
        };
        #[allow(unused_mut)]
        let mut extent = vk::Extent2D {
            width: width.max(0) as u32,
            height: height.max(0) as u32,
        };
        // A Wayland surface (Linux hosts): the usual "unknown" (Mesa's answer too).
        #[cfg(all(feature = "desktop", not(target_os = "android")))]
        if arg.live().and_then(desktop_kind) == Some(super::desktop::presenters::Kind::Wayland) {
            extent = UNDEFINED_EXTENT;
        }
        let rect = vk::Rect2D {
            offset: vk::Offset2D { x: 0, y: 0 },
            extent,
        };
        // SAFETY: the caller's two-call pointers.
        Ok(unsafe { fill_array(&[rect], count, out) })
    })
}

/// `vkGetDeviceGroupPresentCapabilitiesKHR`: a group of one, `LOCAL`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn device_group_present_capabilities(
    _device: vk::Device,
    out: *mut vk::DeviceGroupPresentCapabilitiesKHR<'_>,
) -> vk::Result {
    let _trace = crate::trace::section("GetDeviceGroupPresentCapabilitiesKHR");
    run("vkGetDeviceGroupPresentCapabilitiesKHR", || {
        // SAFETY: `out` is the application's pDeviceGroupPresentCapabilities: null (refused here)
        // or writable for this call.
        let Some(out) = (unsafe { out.as_mut() }) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkGetDeviceGroupPresentCapabilitiesKHR: null pDeviceGroupPresentCapabilities"
            ));
        };
        out.present_mask = [0; vk::MAX_DEVICE_GROUP_SIZE];
        out.present_mask[0] = 1;
        out.modes = vk::DeviceGroupPresentModeFlagsKHR::LOCAL;
        Ok(vk::Result::SUCCESS)
    })
}

/// `vkGetDeviceGroupSurfacePresentModesKHR`: `LOCAL`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn device_group_surface_present_modes(
    _device: vk::Device,
    _surface: vk::SurfaceKHR,
    modes: *mut vk::DeviceGroupPresentModeFlagsKHR,
) -> vk::Result {
    let _trace = crate::trace::section("GetDeviceGroupSurfacePresentModesKHR");
    run("vkGetDeviceGroupSurfacePresentModesKHR", || {
        // SAFETY: `modes` is the application's pModes: null (refused here) or writable for this
        // call.
        let Some(out) = (unsafe { modes.as_mut() }) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkGetDeviceGroupSurfacePresentModesKHR: null pModes"
            ));
        };
        *out = vk::DeviceGroupPresentModeFlagsKHR::LOCAL;
        Ok(vk::Result::SUCCESS)
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn surfaceless_capabilities() {
        let caps = capabilities(None, None).unwrap();
        assert_eq!(caps.min_image_count, u32::MAX);
        assert_eq!(caps.current_extent.width, u32::MAX);
        assert_eq!(caps.max_image_extent.width, u32::MAX);
        assert_eq!(
            caps.current_transform,
            vk::SurfaceTransformFlagsKHR::IDENTITY
        );
        assert_eq!(
            caps.supported_composite_alpha,
            vk::CompositeAlphaFlagsKHR::INHERIT
        );
    }

    #[test]
    fn compatible_present_modes() {
        use vk::PresentModeKHR as M;
        assert_eq!(compatible_modes(Some(M::FIFO)), [M::FIFO]);
        assert_eq!(
            compatible_modes(Some(M::SHARED_CONTINUOUS_REFRESH)),
            [M::SHARED_CONTINUOUS_REFRESH, M::SHARED_DEMAND_REFRESH]
        );
        assert!(compatible_modes(None).is_empty());
    }
}
