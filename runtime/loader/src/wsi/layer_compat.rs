//! Android surfaces seen by layers built without `VK_KHR_android_surface` ("desktop" layers).
//!
//! Layers that track surfaces (the Khronos validation layer) learn about one only when its
//! creation passes through them. A layer built for Linux does not intercept
//! `vkCreateAndroidSurfaceKHR`, so the call goes straight to the loader and the layer later meets
//! a `VkSurfaceKHR` it never saw: the validation layer then dereferences a missing state object
//! (or, with handle wrapping, passes `VK_NULL_HANDLE` down). On Android the layers are built for
//! Android and this never happens.
//!
//! To let such layers run over the loader's WSI, an instance whose application enables
//! `VK_KHR_android_surface` while layers are active is created with `VK_EXT_headless_surface`
//! also named in the create info the *layers* see (never the driver: the terminator passes a
//! driver only extensions it reports, and no driver's own surface is used). After creation, if
//! no layer intercepts `vkCreateAndroidSurfaceKHR` but one intercepts
//! `vkCreateHeadlessSurfaceEXT`, the instance's `vkCreateAndroidSurfaceKHR` entry becomes
//! [`create_android_surface_through_layers`]: it parks the application's
//! `VkAndroidSurfaceCreateInfoKHR` in a thread-local and calls `vkCreateHeadlessSurfaceEXT` at
//! the head of the chain; the layers record a surface, and the terminator's
//! `vkCreateHeadlessSurfaceEXT` ([`create_headless_surface`]) creates the Android surface from
//! the parked info. Without a parked info that command fails with
//! `VK_ERROR_EXTENSION_NOT_PRESENT` (headless surfaces are blocked on Android).
//!
//! Android builds compile this out of the decision (nothing is ever appended there, as AOSP):
//! it is a Linux-host divergence, listed in docs/aosp-parity.md.

use std::cell::Cell;
use std::ffi::CStr;

use vkgen_abi::vk_error;

use crate::dispatch_data::instance_data;
use crate::ffi::{guard, to_void};
use vkgen_generated::dispatch::InstanceDispatchTable;
use vkgen_generated::vk;

/// The extension named to layers alongside `VK_KHR_android_surface`.
pub const HEADLESS_SURFACE: &CStr = c"VK_EXT_headless_surface";
const ANDROID_SURFACE: &CStr = c"VK_KHR_android_surface";

thread_local! {
    /// The application's create info while its surface creation runs through the layers.
    static PARKED: Cell<*const vk::AndroidSurfaceCreateInfoKHR<'static>> =
        const { Cell::new(std::ptr::null()) };
}

/// The extension list layers get: the application's, plus `VK_EXT_headless_surface` when it
/// enables `VK_KHR_android_surface` and layers are active.
pub fn layer_extensions<'a>(requested: &[&'a CStr], layers_active: bool) -> Option<Vec<&'a CStr>> {
    // On Android the layers are Android's and AOSP appends nothing to their extension list.
    if cfg!(target_os = "android")
        || !layers_active
        || !requested.contains(&ANDROID_SURFACE)
        || requested.contains(&HEADLESS_SURFACE)
    {
        return None;
    }
    let mut list = requested.to_vec();
    list.push(HEADLESS_SURFACE);
    Some(list)
}

/// Redirects the instance's `vkCreateAndroidSurfaceKHR` when the layers need it (see the module
/// docs). `head_gipa` is the head of the instance's chain.
///
/// # Safety
/// `instance` must be the live instance `table` belongs to, still being created.
pub unsafe fn patch_table(
    table: &mut InstanceDispatchTable,
    instance: vk::Instance,
    head_gipa: vk::PFN_vkGetInstanceProcAddr,
) {
    let ours_android = super::surface::create_android_surface as vk::PFN_vkCreateAndroidSurfaceKHR;
    let ours_headless = create_headless_surface as vk::PFN_vkCreateHeadlessSurfaceEXT;
    let as_addr = |f: vk::PFN_vkVoidFunction| f.map(|f| f as usize);
    // SAFETY: the head of the chain with its instance and C strings.
    let (android, headless) = unsafe {
        (
            head_gipa(instance, c"vkCreateAndroidSurfaceKHR".as_ptr()),
            head_gipa(instance, c"vkCreateHeadlessSurfaceEXT".as_ptr()),
        )
    };
    let android_is_ours = as_addr(android) == as_addr(to_void(ours_android));
    let headless_layered =
        headless.is_some() && as_addr(headless) != as_addr(to_void(ours_headless));
    if !(android_is_ours && headless_layered) {
        return;
    }
    let Some(slot) = crate::driver_handles::slot_of(c"vkCreateAndroidSurfaceKHR") else {
        return;
    };
    log::info!(
        "a layer tracks headless surfaces but not Android ones: Android surfaces are created \
         through vkCreateHeadlessSurfaceEXT so the layers see them"
    );
    let shim = create_android_surface_through_layers as vk::PFN_vkCreateAndroidSurfaceKHR;
    // SAFETY: the slot of vkCreateAndroidSurfaceKHR gets a function of that type.
    unsafe {
        table.set(
            slot,
            std::mem::transmute::<vk::PFN_vkCreateAndroidSurfaceKHR, unsafe extern "system" fn()>(
                shim,
            ),
        )
    };
}

/// The instance's `vkCreateAndroidSurfaceKHR` when the layers only know headless surfaces.
///
/// # Safety
/// Vulkan's contract for `vkCreateAndroidSurfaceKHR`.
pub unsafe extern "system" fn create_android_surface_through_layers(
    instance: vk::Instance,
    info: *const vk::AndroidSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard(
        "vkCreateAndroidSurfaceKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: the application's `instance` is a live instance of this loader, reached
            // through its dispatch (VUID-vkCreateAndroidSurfaceKHR-instance-parameter).
            let Some(api) = (unsafe { instance_data(vk::Handle::as_raw(instance) as usize) })
                .and_then(|d| d.api.get())
            else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateAndroidSurfaceKHR: not a (fully created) instance of this loader"
                );
            };
            // SAFETY: the head of the chain with its instance and a C string.
            let headless: Option<vk::PFN_vkCreateHeadlessSurfaceEXT> = unsafe {
                crate::driver::void_fn_as((api.head_gipa)(
                    api.handle,
                    c"vkCreateHeadlessSurfaceEXT".as_ptr(),
                ))
            };
            let Some(headless) = headless else {
                // SAFETY: `instance`, `info`, `allocator` and `out` are the application's,
                // unchanged, valid per VUID-vkCreateAndroidSurfaceKHR-*-parameter, which is
                // `create_android_surface`'s contract.
                return unsafe {
                    super::surface::create_android_surface(instance, info, allocator, out)
                };
            };
            let headless_info = vk::HeadlessSurfaceCreateInfoEXT::default();
            PARKED.with(|p| p.set(info.cast()));
            // SAFETY: the chain's function with a valid create info; the parked pointer is the
            // application's, valid for this call.
            let r = unsafe { headless(instance, &headless_info, allocator, out) };
            PARKED.with(|p| p.set(std::ptr::null()));
            r
        },
    )
}

/// The terminator's `vkCreateHeadlessSurfaceEXT`: creates the parked Android surface.
///
/// # Safety
/// Vulkan's contract for `vkCreateHeadlessSurfaceEXT`.
pub unsafe extern "system" fn create_headless_surface(
    instance: vk::Instance,
    _info: *const vk::HeadlessSurfaceCreateInfoEXT<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    let parked = PARKED.with(|p| p.replace(std::ptr::null()));
    if parked.is_null() {
        return vk_error!(
            vk::Result::ERROR_EXTENSION_NOT_PRESENT,
            "vkCreateHeadlessSurfaceEXT: headless surfaces are not supported on Android"
        );
    }
    // SAFETY: the application's create info parked for this very call.
    unsafe { super::surface::create_android_surface(instance, parked, allocator, out) }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn headless_is_added_for_layers_only_with_android_surfaces() {
        let req = [c"VK_KHR_surface", ANDROID_SURFACE];
        assert_eq!(
            layer_extensions(&req, true).unwrap(),
            [c"VK_KHR_surface", ANDROID_SURFACE, HEADLESS_SURFACE]
        );
        assert!(layer_extensions(&req, false).is_none());
        assert!(layer_extensions(&[c"VK_KHR_surface"], true).is_none());
    }

    #[test]
    fn headless_without_a_parked_surface_is_refused() {
        let mut out = vk::SurfaceKHR::null();
        // SAFETY: nothing is dereferenced without a parked info.
        let r = unsafe {
            create_headless_surface(
                vk::Instance::null(),
                std::ptr::null(),
                std::ptr::null(),
                &mut out,
            )
        };
        assert_eq!(r, vk::Result::ERROR_EXTENSION_NOT_PRESENT);
    }
}
