//! Physical devices at the bottom of the chain: the loader's wrappers for several drivers and
//! their stubs, and the extension list applications see. Which driver a `VkPhysicalDevice`
//! belongs to (`crate::driver_handles`) and the wrapper's data ([`PhysicalDeviceWrapper`], in
//! `dispatch_data`) are shared with the WSI, so they live below both.
//!
//! **One driver** (passthrough): the driver's physical devices go up unwrapped, word 0 pointing
//! at the instance's loader data; their commands are the driver's own functions.
//!
//! **Several (or no) drivers**: each physical device goes up as a [`PhysicalDeviceWrapper`]
//! `{word 0 = loader data, driver handle, driver table}`. Its commands are per-slot stubs (one
//! per [`InstanceDispatchTable`](vkgen_generated::dispatch::InstanceDispatchTable) slot) that replace the first argument with the driver's handle
//! and tail-jump to the driver's function in that slot, without touching any other argument, so
//! one stub serves every signature. Such stubs cannot be written in Rust (they must not have a
//! frame); they are naked functions for x86-64 and AArch64. On other architectures
//! [`WRAPPING_SUPPORTED`] is false and only the first driver is used.

use std::ffi::{c_char, CStr};

use vkgen_abi::vk_error;

use crate::dispatch_data::instance_data;
pub use crate::dispatch_data::PhysicalDeviceWrapper;
use crate::driver_handles::{driver_device_extensions, resolve};
use crate::extensions;
use crate::ffi::{cstr, fill_array, guard};
use vkgen_generated::vk;

/// Offset of the driver handle (read by the stubs).
const HANDLE_OFFSET: usize = std::mem::offset_of!(PhysicalDeviceWrapper, driver_handle);
/// Offset of the driver table pointer (read by the stubs).
const TABLE_OFFSET: usize = std::mem::offset_of!(PhysicalDeviceWrapper, driver_table);
const _: () = assert!(std::mem::offset_of!(PhysicalDeviceWrapper, loader_data) == 0);

/// `vkEnumerateDeviceExtensionProperties` at the bottom of the chain: the driver's list as
/// applications see it ([`extensions::visible_device_extensions`]).
///
/// # Safety
/// Vulkan's contract for the command, with a physical device of this loader.
pub unsafe extern "system" fn enumerate_device_extension_properties(
    pd: vk::PhysicalDevice,
    layer_name: *const c_char,
    count: *mut u32,
    out: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard(
        "vkEnumerateDeviceExtensionProperties (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: a C string or null.
            if let Some(layer) = unsafe { cstr(layer_name) } {
                return vk_error!(
                    vk::Result::ERROR_LAYER_NOT_PRESENT,
                    "vkEnumerateDeviceExtensionProperties: no layer {layer:?} below the chain"
                );
            }
            // SAFETY: `pd` is the application's physical device, one this loader's instance handed
            // out (VUID-vkEnumerateDeviceExtensionProperties-physicalDevice-parameter); its
            // instance outlives this call.
            let Some(resolved) = (unsafe { resolve(pd) }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumerateDeviceExtensionProperties: {pd:?} is not a physical device of this loader"
                );
            };
            // SAFETY: `resolved.handle` is the driver's own live physical device that `resolve`
            // found, of `resolved.driver`.
            let raw = match unsafe { driver_device_extensions(resolved.driver, resolved.handle) } {
                Ok(list) => list,
                Err(e) => return e,
            };
            // SAFETY: `resolved.handle` is the driver's own live physical device of
            // `resolved.driver` and `raw` its raw extension list.
            let support =
                unsafe { crate::wsi::device_support(resolved.driver, resolved.handle, &raw) };
            // An ICD without native buffers has no swapchain: say so where the adapter is
            // missing (builds without the adapter have no ICD swapchains to lose).
            #[cfg(all(feature = "desktop", not(target_os = "android")))]
            if !support.hal && support.native_buffer_spec.is_none() {
                crate::driver::adapter::warn_unadapted_icd(resolved.driver.name());
            }
            let visible =
                extensions::visible_device_extensions(&raw, resolved.driver.name(), &support);
            // SAFETY: `count` and `out` are the application's count (null is refused by
            // `fill_array`) and array (null, or holding `*count` elements), valid for this call per
            // the command's VUIDs.
            unsafe { fill_array(&visible, count, out) }
        },
    )
}

/// `vkEnumerateDeviceLayerProperties` at the bottom of the chain: no layers below.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn enumerate_device_layer_properties(
    _pd: vk::PhysicalDevice,
    count: *mut u32,
    out: *mut vk::LayerProperties,
) -> vk::Result {
    guard(
        "vkEnumerateDeviceLayerProperties (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        // SAFETY: `count` and `out` are the application's count (null is refused by `fill_array`)
        // and array (null, or holding `*count` elements), valid for this call per the command's
        // VUIDs.
        || unsafe { fill_array::<vk::LayerProperties>(&[], count, out) },
    )
}

/// A physical-device command unknown to the generated registry, asked through the layer
/// interface's `GetPhysicalDeviceProcAddr`: only a single driver can answer it (its handles are
/// not wrapped), through its own `vk_icdGetPhysicalDeviceProcAddr`.
///
/// # Safety
/// `instance` null or an instance of this loader; `name` a C string.
pub(crate) unsafe fn unknown_physical_device_proc(
    instance: vk::Instance,
    name: &CStr,
) -> vk::PFN_vkVoidFunction {
    // SAFETY: the caller guarantees `instance` is null or a live instance of this loader.
    let data = unsafe { instance_data(vk::Handle::as_raw(instance) as usize) }?;
    if !data.term.passthrough {
        return None;
    }
    let driver = &data.term.drivers[0];
    match driver.driver.driver.source() {
        crate::driver::DriverSource::Icd(icd) => {
            let gpdpa = icd.get_physical_device_proc_addr_fn()?;
            // SAFETY: the driver's live instance and a C string.
            unsafe { gpdpa(driver.handle, name.as_ptr()) }
        }
        crate::driver::DriverSource::Hal(_) => None,
    }
}

/// Whether this build has the physical-device stubs that several drivers need.
pub const WRAPPING_SUPPORTED: bool = cfg!(any(target_arch = "x86_64", target_arch = "aarch64"));

/// The stub for instance-table slot `slot`: replaces the wrapper in the first argument with the
/// driver's handle and jumps to the driver's function in that slot.
pub(crate) fn unwrap_stub(slot: usize) -> vk::PFN_vkVoidFunction {
    stubs::STUBS.get(slot).copied()
}

#[cfg(any(target_arch = "x86_64", target_arch = "aarch64"))]
mod stubs {
    //! The stubs are `global_asm!` (no frame, no prologue: they only swap the first argument
    //! and jump). The wrapper offsets are literals in the assembly, checked against the struct
    //! below; each starts with the branch-target landing pad (`endbr64` / `bti c`, both no-ops
    //! on CPUs or processes without CET/BTI). They are `.hidden`: never exported.

    use super::{HANDLE_OFFSET, TABLE_OFFSET};

    const _: () = assert!(HANDLE_OFFSET == 8 && TABLE_OFFSET == 16);
    const _: () = assert!(std::mem::size_of::<unsafe extern "system" fn()>() == 8);

    #[cfg(target_arch = "x86_64")]
    #[rustfmt::skip]
    macro_rules! stub_asm {
        ($name:ident, $slot:literal) => {
            std::arch::global_asm!(concat!(
                ".text\n.p2align 4\n",
                ".globl ", stringify!($name), "\n",
                ".hidden ", stringify!($name), "\n",
                ".type ", stringify!($name), ",@function\n",
                stringify!($name), ":\n",
                "endbr64\n",
                // rdi = wrapper: the driver table and the driver handle.
                "mov rax, qword ptr [rdi + 16]\n",
                "mov rdi, qword ptr [rdi + 8]\n",
                "jmp qword ptr [rax + 8*", stringify!($slot), "]\n",
                ".size ", stringify!($name), ", .-", stringify!($name), "\n",
            ));
        };
    }

    #[cfg(target_arch = "aarch64")]
    #[rustfmt::skip]
    macro_rules! stub_asm {
        ($name:ident, $slot:literal) => {
            std::arch::global_asm!(concat!(
                ".text\n.p2align 4\n",
                ".globl ", stringify!($name), "\n",
                ".hidden ", stringify!($name), "\n",
                ".type ", stringify!($name), ",%function\n",
                stringify!($name), ":\n",
                "hint #34\n",
                // x0 = wrapper: the driver table and the driver handle.
                "ldr x16, [x0, #16]\n",
                "ldr x0, [x0, #8]\n",
                "ldr x16, [x16, #(8*", stringify!($slot), ")]\n",
                "br x16\n",
                ".size ", stringify!($name), ", .-", stringify!($name), "\n",
            ));
        };
    }

    macro_rules! stubs {
        ($($slot:literal $name:ident)*) => {
            $(stub_asm!($name, $slot);)*
            extern "system" {
                $(fn $name();)*
            }
            /// One stub per instance-table slot.
            pub(super) static STUBS: &[unsafe extern "system" fn()] = &[$($name),*];
        };
    }

    stubs! {
        0 vkgen_loader_pd_stub_0 1 vkgen_loader_pd_stub_1 2 vkgen_loader_pd_stub_2
        3 vkgen_loader_pd_stub_3 4 vkgen_loader_pd_stub_4 5 vkgen_loader_pd_stub_5
        6 vkgen_loader_pd_stub_6 7 vkgen_loader_pd_stub_7 8 vkgen_loader_pd_stub_8
        9 vkgen_loader_pd_stub_9 10 vkgen_loader_pd_stub_10 11 vkgen_loader_pd_stub_11
        12 vkgen_loader_pd_stub_12 13 vkgen_loader_pd_stub_13 14 vkgen_loader_pd_stub_14
        15 vkgen_loader_pd_stub_15 16 vkgen_loader_pd_stub_16 17 vkgen_loader_pd_stub_17
        18 vkgen_loader_pd_stub_18 19 vkgen_loader_pd_stub_19 20 vkgen_loader_pd_stub_20
        21 vkgen_loader_pd_stub_21 22 vkgen_loader_pd_stub_22 23 vkgen_loader_pd_stub_23
        24 vkgen_loader_pd_stub_24 25 vkgen_loader_pd_stub_25 26 vkgen_loader_pd_stub_26
        27 vkgen_loader_pd_stub_27 28 vkgen_loader_pd_stub_28 29 vkgen_loader_pd_stub_29
        30 vkgen_loader_pd_stub_30 31 vkgen_loader_pd_stub_31 32 vkgen_loader_pd_stub_32
        33 vkgen_loader_pd_stub_33 34 vkgen_loader_pd_stub_34 35 vkgen_loader_pd_stub_35
        36 vkgen_loader_pd_stub_36 37 vkgen_loader_pd_stub_37 38 vkgen_loader_pd_stub_38
        39 vkgen_loader_pd_stub_39 40 vkgen_loader_pd_stub_40 41 vkgen_loader_pd_stub_41
        42 vkgen_loader_pd_stub_42 43 vkgen_loader_pd_stub_43 44 vkgen_loader_pd_stub_44
        45 vkgen_loader_pd_stub_45 46 vkgen_loader_pd_stub_46 47 vkgen_loader_pd_stub_47
        48 vkgen_loader_pd_stub_48 49 vkgen_loader_pd_stub_49 50 vkgen_loader_pd_stub_50
        51 vkgen_loader_pd_stub_51 52 vkgen_loader_pd_stub_52 53 vkgen_loader_pd_stub_53
        54 vkgen_loader_pd_stub_54 55 vkgen_loader_pd_stub_55 56 vkgen_loader_pd_stub_56
        57 vkgen_loader_pd_stub_57 58 vkgen_loader_pd_stub_58 59 vkgen_loader_pd_stub_59
        60 vkgen_loader_pd_stub_60 61 vkgen_loader_pd_stub_61 62 vkgen_loader_pd_stub_62
        63 vkgen_loader_pd_stub_63
    }

    /// Every slot of the generated table has a stub (regenerating with more commands than this
    /// needs more stubs above).
    const _: () = assert!(vkgen_generated::dispatch::InstanceDispatchTable::LEN <= 64);
}

#[cfg(not(any(target_arch = "x86_64", target_arch = "aarch64")))]
mod stubs {
    /// No stubs on this architecture: several drivers are not supported.
    pub(super) static STUBS: &[unsafe extern "system" fn()] = &[];
}

#[cfg(all(test, any(target_arch = "x86_64", target_arch = "aarch64")))]
mod tests {
    use super::*;
    use vkgen_generated::dispatch::InstanceDispatchTable;

    static mut SEEN: (u64, u32, u64) = (0, 0, 0);

    unsafe extern "system" fn fake_properties(pd: vk::PhysicalDevice, a: u32, b: *mut u64) {
        // SAFETY: single-threaded test; `b` points at a live u64.
        unsafe {
            SEEN = (vk::Handle::as_raw(pd), a, *b);
            *b = 99;
        }
    }

    #[test]
    fn stubs_swap_the_handle_and_keep_the_other_arguments() {
        let mut table = InstanceDispatchTable::empty();
        let slot = 5;
        // SAFETY: the fake has the argument pattern the test calls it with.
        unsafe {
            table.set(
                slot,
                std::mem::transmute::<
                    unsafe extern "system" fn(vk::PhysicalDevice, u32, *mut u64),
                    unsafe extern "system" fn(),
                >(fake_properties),
            )
        };
        let wrapper = PhysicalDeviceWrapper {
            loader_data: 0,
            driver_handle: vk::Handle::from_raw(0xD0D0),
            driver_table: &table,
            driver_index: 0,
        };
        let stub = unwrap_stub(slot).unwrap();
        // SAFETY: calling the stub like the faked command; it forwards to `fake_properties`.
        let stub: unsafe extern "system" fn(vk::PhysicalDevice, u32, *mut u64) =
            unsafe { std::mem::transmute(stub) };
        let mut value = 7u64;
        // SAFETY: the wrapper and table outlive the call.
        unsafe { stub(wrapper.handle(), 42, &mut value) };
        // SAFETY: the call has returned; nothing else touches SEEN.
        let seen = unsafe { SEEN };
        assert_eq!(seen, (0xD0D0, 42, 7));
        assert_eq!(value, 99);
    }
}
