//! Exporting a [`Driver`] from a `cdylib`: the Android HAL module and the Khronos ICD entry
//! points, from one macro.
//!
//! [`export_driver!`](crate::export_driver) expands, in the driver library's root, to exactly
//! four exported symbols:
//!
//! * `HMI`: a **writable** `hwvulkan_module_t` (`static mut`; Android's loader stores the
//!   `dlopen` handle in `HMI.common.dso`). Tag `HWMT`, id `"vulkan"`, name and author from
//!   [`DriverModule`]. `methods->open(…, "vk0", …)` returns a static `hwvulkan_device_t` whose
//!   three procs are the generated `entry::enumerate_instance_extension_properties::<D>`,
//!   `entry::create_instance::<D>` and `get_instance_proc_addr::<D>`; any other id gives
//!   `-ENOENT`, null pointers `-EINVAL`; `close` returns 0 (the device is static).
//! * `vk_icdNegotiateLoaderICDInterfaceVersion`: interface versions 2 ..= 7 (capped by
//!   [`DriverModule::max_icd_interface_version`]).
//! * `vk_icdGetInstanceProcAddr`: the generated get-proc-addr, plus the interface-7 names
//!   `vk_icdNegotiateLoaderICDInterfaceVersion` / `vk_icdGetPhysicalDeviceProcAddr`.
//! * `vk_icdGetPhysicalDeviceProcAddr`: physical-device-level commands only.
//!
//! No `vk*` symbol is exported, so a driver never clashes with the loader that loaded it, and
//! the same library serves Android's HAL loader (ours) and Khronos loaders (through a manifest).
//!
//! The functions behind the exports live in [`entry`], generic over the driver and guarded so
//! that no panic crosses `extern` boundaries.

use std::ffi::{c_char, c_int, CStr};
use vkgen_abi::guard::guard;

use ash::vk;
use vkgen_abi::hal::{
    HwDevice, HwModule, HwvulkanDevice, HARDWARE_DEVICE_TAG, HWVULKAN_DEVICE_0,
    HWVULKAN_DEVICE_API_VERSION_0_1,
};
use vkgen_abi::icd::{
    ICD_GET_PHYSICAL_DEVICE_PROC_ADDR_NAME, NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME,
};
use vkgen_generated::driver::{self as gen, Driver};

/// The oldest Khronos loader–ICD interface a vkgen driver speaks: 2, the first with negotiation
/// and `ICD_LOADER_MAGIC` in dispatchable objects.
pub const MIN_ICD_INTERFACE_VERSION: u32 = 2;
/// The newest: 7 (`vk_icd*` functions also reachable through `vk_icdGetInstanceProcAddr`).
pub const MAX_ICD_INTERFACE_VERSION: u32 = 7;

/// What the HAL module and the ICD negotiation say about a driver, beyond [`Driver`].
pub trait DriverModule: Driver {
    /// `HMI.common.name`.
    const NAME: &'static CStr = c"vkgen Vulkan driver";
    /// `HMI.common.author`.
    const AUTHOR: &'static CStr = c"vkgen";

    /// The newest loader–ICD interface version this driver answers, clamped to
    /// [`MIN_ICD_INTERFACE_VERSION`] ..= [`MAX_ICD_INTERFACE_VERSION`].
    fn max_icd_interface_version() -> u32 {
        MAX_ICD_INTERFACE_VERSION
    }
}

/// The `hwvulkan_device_t` that `open("vk0")` hands out, for `module`.
pub const fn hal_device<D: Driver>(
    module: *mut HwModule,
    close: vkgen_abi::hal::PfnHwDeviceClose,
) -> HwvulkanDevice {
    HwvulkanDevice {
        common: HwDevice {
            tag: HARDWARE_DEVICE_TAG,
            version: HWVULKAN_DEVICE_API_VERSION_0_1,
            module,
            reserved: [0; 12],
            close: Some(close),
        },
        enumerate_instance_extension_properties: Some(
            entry::hal_enumerate_instance_extension_properties::<D>,
        ),
        create_instance: Some(entry::hal_create_instance::<D>),
        get_instance_proc_addr: Some(gen::get_instance_proc_addr::<D>),
    }
}

/// `hw_module_methods_t::open` for a driver whose only device is `device`.
///
/// # Safety
/// `id` is null or a C string; `out` is null or writable; `device` is the driver's static device.
pub unsafe fn hal_open(
    id: *const c_char,
    out: *mut *mut HwDevice,
    device: *const HwvulkanDevice,
) -> c_int {
    init_logging();
    guard("hw_module_methods_t::open", -libc::EIO, || {
        if out.is_null() || id.is_null() {
            return -libc::EINVAL;
        }
        // SAFETY: `id` is a non-null C string per the caller.
        let id = unsafe { CStr::from_ptr(id) };
        if id == HWVULKAN_DEVICE_0 {
            // SAFETY: `out` is writable per the caller; `common` is at offset 0 of the device.
            unsafe { *out = device.cast_mut().cast::<HwDevice>() };
            0
        } else {
            // SAFETY: `out` was checked non-null above and is the caller's writable output (the
            // HAL's `open` contract).
            unsafe { *out = std::ptr::null_mut() };
            -libc::ENOENT
        }
    })
}

/// Installs the driver's logger once per driver library: a driver is its own shared object with
/// its own `log` state, so the loader's logger does not reach it. On Linux hosts that is a stderr
/// logger when `VKGEN_LOG` is set (env_logger filter syntax); on Android the logcat logger
/// ([`vkgen_abi::logcat`]) tagged with the driver library's name (`vulkan.null` for
/// `vulkan.null.so`), warnings and errors unless `VKGEN_LOG` says otherwise, as the loader does.
/// Every way into the driver (HAL open, ICD negotiation) calls this first.
pub fn init_logging() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // The generated entry points' guard reports through this, as every other guard does.
        let _ = gen::PANIC_REPORT.set(report_panic);
        // What the command recorder cannot copy (an unknown `pNext` structure) is logged too.
        let _ = vkgen_generated::recorder::WARN.set(|args| log::warn!("{args}"));
        #[cfg(not(target_os = "android"))]
        if vkgen_platform::env::trusted_env("VKGEN_LOG").is_some() {
            // Fails only when the process installed a logger first; that one then gets our records.
            let _ = env_logger::Builder::from_env(env_logger::Env::new().filter("VKGEN_LOG"))
                .try_init();
        }
        #[cfg(target_os = "android")]
        android_log::init();
    });
}

#[cfg(target_os = "android")]
mod android_log {
    use std::ffi::{CStr, CString};

    /// The tag when the library's file name cannot be had.
    const FALLBACK_TAG: &CStr = c"vkgen-driver";

    /// Installs the logcat logger with this library's tag and `VKGEN_LOG`'s filter (else
    /// [`vkgen_abi::logcat::DEFAULT_FILTER`]).
    pub(super) fn init() {
        let filter = vkgen_platform::env::trusted_env("VKGEN_LOG")
            .map(|v| v.to_string_lossy().into_owned())
            .unwrap_or_else(|| vkgen_abi::logcat::DEFAULT_FILTER.to_owned());
        // env_logger only parses the filter here (same syntax as on hosts); liblog writes.
        let filter = env_logger::Builder::new().parse_filters(&filter).build();
        let max_level = filter.filter();
        let enabled = move |m: &log::Metadata<'_>| log::Log::enabled(&filter, m);
        let tag = library_tag();
        // Fails only when a logger is already installed in this library; that one gets our records.
        let _ =
            vkgen_abi::logcat::install(tag.as_deref().unwrap_or(FALLBACK_TAG), max_level, enabled);
    }

    /// The name of the shared object this code is in, without directories and `.so`:
    /// `/vendor/lib64/hw/vulkan.pastel.so` logs as `vulkan.pastel`.
    fn library_tag() -> Option<CString> {
        // SAFETY: all-zero is a valid `Dl_info` (null pointers), filled in by `dladdr`.
        let mut info: libc::Dl_info = unsafe { std::mem::zeroed() };
        let addr = library_tag as fn() -> Option<CString> as *const libc::c_void;
        // SAFETY: `addr` is an address in this library's text; `info` is writable.
        if unsafe { libc::dladdr(addr, &mut info) } == 0 || info.dli_fname.is_null() {
            return None;
        }
        // SAFETY: `dladdr` succeeded, so `dli_fname` is the library's NUL-terminated path, which
        // stays valid while the library is loaded (it is: this code runs from it).
        let path = unsafe { CStr::from_ptr(info.dli_fname) }.to_bytes();
        let name = path.rsplit(|&b| b == b'/').next().unwrap_or(path);
        let name = name.strip_suffix(b".so").unwrap_or(name);
        (!name.is_empty())
            .then(|| CString::new(name).ok())
            .flatten()
    }
}

/// A panic caught at a generated entry point: logged as the boundary guard logs its own.
fn report_panic(command: &'static str, payload: &(dyn std::any::Any + Send)) {
    log::error!(
        "panic in {command}: {}",
        vkgen_abi::guard::panic_message(payload)
    );
}

/// The `extern` functions behind the exports, generic over the driver.
pub mod entry {
    use super::*;

    /// `hw_device_t::close`: the device is static, nothing to free.
    ///
    /// # Safety
    /// Any pointer; it is not used.
    pub unsafe extern "C" fn hal_close(_device: *mut HwDevice) -> c_int {
        0
    }

    /// The driver's global command `name`, as its `vkGetInstanceProcAddr(NULL, name)` answers
    /// (the hook, the kit's fallback, or nothing), cast to `F`.
    fn global<D: Driver, F>(name: &CStr) -> Option<F> {
        // SAFETY: a NUL-terminated name; a null instance asks for global commands only.
        let f = unsafe { gen::get_instance_proc_addr::<D>(vk::Instance::null(), name.as_ptr()) }?;
        // SAFETY: the resolver returned the entry point of `name`, whose type the caller names.
        Some(unsafe { std::mem::transmute_copy::<unsafe extern "system" fn(), F>(&f) })
    }

    /// `hwvulkan_device_t::EnumerateInstanceExtensionProperties`: the driver's command, or no
    /// extensions when it has none.
    ///
    /// # Safety
    /// As for `vkEnumerateInstanceExtensionProperties`.
    pub unsafe extern "system" fn hal_enumerate_instance_extension_properties<D: Driver>(
        p_layer_name: *const c_char,
        p_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        match global::<D, vkgen_generated::pfn::PFN_vkEnumerateInstanceExtensionProperties>(
            c"vkEnumerateInstanceExtensionProperties",
        ) {
            // SAFETY: the driver's own vkEnumerateInstanceExtensionProperties, called with the HAL
            // caller's layer name and two-call idiom pointers unchanged.
            Some(f) => unsafe { f(p_layer_name, p_count, p_properties) },
            // SAFETY: no driver function: the HAL caller's two-call idiom pointers, null or valid;
            // no extensions are written.
            None => unsafe {
                crate::util::write_array::<vk::ExtensionProperties>(&[], p_count, p_properties)
            },
        }
    }

    /// `hwvulkan_device_t::CreateInstance`: the driver's command; a driver without one cannot
    /// make instances (`VK_ERROR_INITIALIZATION_FAILED`).
    ///
    /// # Safety
    /// As for `vkCreateInstance`.
    pub unsafe extern "system" fn hal_create_instance<D: Driver>(
        p_create_info: *const vk::InstanceCreateInfo<'_>,
        p_allocator: *const vk::AllocationCallbacks<'_>,
        p_instance: *mut vk::Instance,
    ) -> vk::Result {
        match global::<D, vkgen_generated::pfn::PFN_vkCreateInstance>(c"vkCreateInstance") {
            // SAFETY: the driver's own vkCreateInstance, called with the HAL caller's create info,
            // allocator and output pointer unchanged.
            Some(f) => unsafe { f(p_create_info, p_allocator, p_instance) },
            None => vkgen_abi::vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "the driver resolves no vkCreateInstance"
            ),
        }
    }

    /// `vk_icdNegotiateLoaderICDInterfaceVersion`.
    ///
    /// # Safety
    /// `p_version` is null or valid for reads and writes.
    pub unsafe extern "system" fn negotiate<D: DriverModule>(p_version: *mut u32) -> vk::Result {
        init_logging();
        guard(
            "vk_icdNegotiateLoaderICDInterfaceVersion",
            vk::Result::ERROR_INCOMPATIBLE_DRIVER,
            || {
                if p_version.is_null() {
                    return vkgen_abi::vk_error!(
                        vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                        "interface negotiation without a version pointer"
                    );
                }
                // SAFETY: non-null in/out pointer from the loader.
                let loader = unsafe { *p_version };
                let ours = D::max_icd_interface_version()
                    .clamp(MIN_ICD_INTERFACE_VERSION, MAX_ICD_INTERFACE_VERSION);
                if loader < MIN_ICD_INTERFACE_VERSION {
                    return vkgen_abi::vk_error!(
                        vk::Result::ERROR_INCOMPATIBLE_DRIVER,
                        "the loader's interface {loader} is older than {MIN_ICD_INTERFACE_VERSION}"
                    );
                }
                // SAFETY: `p_version` was checked non-null above and is the loader's in/out
                // version, which it reads back after this call.
                unsafe { *p_version = loader.min(ours) };
                vk::Result::SUCCESS
            },
        )
    }

    /// `vk_icdGetInstanceProcAddr`: the interface-7 names, then the generated lookup.
    ///
    /// # Safety
    /// `instance` is null or a live instance of this driver; `p_name` is null or a C string.
    pub unsafe extern "system" fn icd_get_instance_proc_addr<D: DriverModule>(
        instance: vk::Instance,
        p_name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        if p_name.is_null() {
            return None;
        }
        let special = guard("vk_icdGetInstanceProcAddr", None, || {
            // SAFETY: non-null C string from the loader.
            let name = unsafe { CStr::from_ptr(p_name) };
            if name == NEGOTIATE_LOADER_ICD_INTERFACE_VERSION_NAME {
                let f: vkgen_abi::icd::PFN_vk_icdNegotiateLoaderICDInterfaceVersion =
                    negotiate::<D>;
                // SAFETY: function pointers of any signature have the same representation;
                // the caller casts back to the real type.
                Some(unsafe {
                    std::mem::transmute::<
                        vkgen_abi::icd::PFN_vk_icdNegotiateLoaderICDInterfaceVersion,
                        unsafe extern "system" fn(),
                    >(f)
                })
            } else if name == ICD_GET_PHYSICAL_DEVICE_PROC_ADDR_NAME {
                let f: vkgen_abi::icd::PFN_vk_icdGetPhysicalDeviceProcAddr =
                    icd_get_physical_device_proc_addr::<D>;
                // SAFETY: function pointers of any signature have the same representation; the
                // loader casts this one back to `PFN_vk_icdGetPhysicalDeviceProcAddr`, the type it
                // asked for by this name.
                Some(unsafe {
                    std::mem::transmute::<
                        vkgen_abi::icd::PFN_vk_icdGetPhysicalDeviceProcAddr,
                        unsafe extern "system" fn(),
                    >(f)
                })
            } else {
                None
            }
        });
        if special.is_some() {
            return special;
        }
        // SAFETY: forwarded loader arguments; the generated function guards its own panics.
        unsafe { gen::get_instance_proc_addr::<D>(instance, p_name) }
    }

    /// `vk_icdGetPhysicalDeviceProcAddr`.
    ///
    /// # Safety
    /// As for [`icd_get_instance_proc_addr`].
    pub unsafe extern "system" fn icd_get_physical_device_proc_addr<D: DriverModule>(
        instance: vk::Instance,
        p_name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: forwarded loader arguments; the generated function guards its own panics.
        unsafe { gen::get_physical_device_proc_addr::<D>(instance, p_name) }
    }
}

/// Exports a [`Driver`] (that also implements [`DriverModule`]) from a `cdylib`: the writable
/// `HMI` HAL module and the three `vk_icd*` ICD entry points. See the [module docs](self).
///
/// ```ignore
/// vkgen_driver::export_driver!(NullDriver);
/// ```
#[macro_export]
macro_rules! export_driver {
    ($driver:ty) => {
        const _: () = {
            use $crate::abi::hal::{
                HwDevice, HwModule, HwModuleMethods, HwvulkanDevice, HwvulkanModule,
            };

            static VKGEN_HAL_METHODS: HwModuleMethods = HwModuleMethods {
                open: ::core::option::Option::Some(vkgen_hal_open),
            };

            static VKGEN_HAL_DEVICE: HwvulkanDevice = $crate::export::hal_device::<$driver>(
                // `common` is the first field of `HMI`; only its address is taken here.
                ::core::ptr::addr_of_mut!(HMI).cast::<HwModule>(),
                $crate::export::entry::hal_close,
            );

            unsafe extern "C" fn vkgen_hal_open(
                _module: *const HwModule,
                id: *const ::core::ffi::c_char,
                device: *mut *mut HwDevice,
            ) -> ::core::ffi::c_int {
                // SAFETY: arguments come from the HAL loader as `hw_module_methods_t::open`
                // specifies; the device is this library's static.
                unsafe { $crate::export::hal_open(id, device, &VKGEN_HAL_DEVICE) }
            }

            /// The Android HAL module record (`hwvulkan_module_t`); writable for `dso`.
            #[no_mangle]
            pub static mut HMI: HwvulkanModule = HwvulkanModule::new(
                <$driver as $crate::export::DriverModule>::NAME,
                <$driver as $crate::export::DriverModule>::AUTHOR,
                &VKGEN_HAL_METHODS,
            );

            /// Khronos loader–ICD interface negotiation.
            #[no_mangle]
            pub unsafe extern "system" fn vk_icdNegotiateLoaderICDInterfaceVersion(
                p_version: *mut u32,
            ) -> $crate::ash::vk::Result {
                // SAFETY: the loader's `p_version` (null or valid for reads and writes, the
                // interface's contract) goes to `negotiate`, which has that contract.
                unsafe { $crate::export::entry::negotiate::<$driver>(p_version) }
            }

            /// Khronos ICD `vkGetInstanceProcAddr`.
            #[no_mangle]
            pub unsafe extern "system" fn vk_icdGetInstanceProcAddr(
                instance: $crate::ash::vk::Instance,
                p_name: *const ::core::ffi::c_char,
            ) -> $crate::ash::vk::PFN_vkVoidFunction {
                // SAFETY: the loader's instance and name (null or live, null or NUL-terminated: the
                // interface's contract) go to the function with that contract.
                unsafe {
                    $crate::export::entry::icd_get_instance_proc_addr::<$driver>(instance, p_name)
                }
            }

            /// Khronos ICD physical-device proc lookup (interface version 4+).
            #[no_mangle]
            pub unsafe extern "system" fn vk_icdGetPhysicalDeviceProcAddr(
                instance: $crate::ash::vk::Instance,
                p_name: *const ::core::ffi::c_char,
            ) -> $crate::ash::vk::PFN_vkVoidFunction {
                // SAFETY: the loader's instance and name (null or live, null or NUL-terminated: the
                // interface's contract) go to the function with that contract.
                unsafe {
                    $crate::export::entry::icd_get_physical_device_proc_addr::<$driver>(
                        instance, p_name,
                    )
                }
            }
        };
    };
}
