//! Android libhardware HAL ABI (`hardware/hardware.h`) and the Vulkan HAL on top of it
//! (`hardware/hwvulkan.h`).
//!
//! Android's `libvulkan.so` finds a driver by `dlopen`ing `vulkan.<name>.so`, looking up the data
//! symbol `HMI` and calling `HMI.common.methods->open(…, "vk0", …)`. That handshake is pure C
//! layout, so the structs here mirror the C declarations field for field; the tests lock the LP64
//! sizes and offsets (measured with gcc on x86-64, identical on aarch64).

use std::ffi::{c_char, c_int, c_void, CStr};
use std::ptr;

use ash::vk;

/// `HWVULKAN_HARDWARE_MODULE_ID`: the module id the loader asks libhardware for.
pub const HWVULKAN_HARDWARE_MODULE_ID: &CStr = c"vulkan";
/// `HWVULKAN_DEVICE_0`: the only device id `hw_module_methods_t::open` is called with.
pub const HWVULKAN_DEVICE_0: &CStr = c"vk0";
/// `HAL_MODULE_INFO_SYM_AS_STR`: the data symbol every HAL module exports.
pub const HAL_MODULE_INFO_SYM_AS_STR: &CStr = c"HMI";

/// `HARDWARE_MODULE_TAG` = `'HWMT'`.
pub const HARDWARE_MODULE_TAG: u32 = make_tag(*b"HWMT");
/// `HARDWARE_DEVICE_TAG` = `'HWDT'`.
pub const HARDWARE_DEVICE_TAG: u32 = make_tag(*b"HWDT");
/// `HARDWARE_HAL_API_VERSION` = `HARDWARE_MAKE_API_VERSION(1, 0)`.
pub const HARDWARE_HAL_API_VERSION: u16 = 0x0100;

/// `HWVULKAN_MODULE_API_VERSION_0_1` = `HARDWARE_MODULE_API_VERSION(0, 1)`.
pub const HWVULKAN_MODULE_API_VERSION_0_1: u16 = hardware_module_api_version(0, 1);
/// `HWVULKAN_DEVICE_API_VERSION_0_1` = `HARDWARE_DEVICE_API_VERSION_2(0, 1, 0)`.
pub const HWVULKAN_DEVICE_API_VERSION_0_1: u32 = hardware_device_api_version_2(0, 1, 0);

/// `HWVULKAN_DISPATCH_MAGIC`: first word of every dispatchable object a HAL driver returns, until
/// the loader overwrites it with its dispatch-table pointer.
pub const HWVULKAN_DISPATCH_MAGIC: usize = 0x01CD_C0DE;

/// Builds a four-character tag the way the C headers' multi-char literals do (`'HWMT'`: first
/// character in the most significant byte).
const fn make_tag(c: [u8; 4]) -> u32 {
    u32::from_be_bytes(c)
}

/// `HARDWARE_MODULE_API_VERSION(maj, min)` = `HARDWARE_MAKE_API_VERSION`: `(maj << 8) | min`.
pub const fn hardware_module_api_version(maj: u8, min: u8) -> u16 {
    ((maj as u16) << 8) | min as u16
}

/// `HARDWARE_DEVICE_API_VERSION_2(maj, min, hdr)`: `(maj << 24) | (min << 16) | hdr`.
pub const fn hardware_device_api_version_2(maj: u8, min: u8, hdr: u16) -> u32 {
    ((maj as u32) << 24) | ((min as u32) << 16) | hdr as u32
}

/// `hw_module_methods_t::open`: opens device `id` of `module` and stores it in `*device`.
pub type PfnHwModuleOpen = unsafe extern "C" fn(
    module: *const HwModule,
    id: *const c_char,
    device: *mut *mut HwDevice,
) -> c_int;

/// `hw_device_t::close`.
pub type PfnHwDeviceClose = unsafe extern "C" fn(device: *mut HwDevice) -> c_int;

/// `struct hw_module_methods_t`.
#[doc(alias = "hw_module_methods_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
pub struct HwModuleMethods {
    pub open: Option<PfnHwModuleOpen>,
}

/// `struct hw_module_t` (248 bytes on LP64, 128 on ILP32).
///
/// The reserved words are `uint64_t` on LP64 and `uint32_t` on ILP32 (libhardware pads under
/// `__LP64__`), which is exactly `usize`.
#[doc(alias = "hw_module_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HwModule {
    /// Must be [`HARDWARE_MODULE_TAG`].
    pub tag: u32,
    pub module_api_version: u16,
    /// Must be [`HARDWARE_HAL_API_VERSION`].
    pub hal_api_version: u16,
    pub id: *const c_char,
    pub name: *const c_char,
    pub author: *const c_char,
    pub methods: *mut HwModuleMethods,
    /// Written by libhardware with the `dlopen` handle after loading, which is why the exported
    /// `HMI` must live in writable memory (a Rust `static mut`, not a `static`).
    pub dso: *mut c_void,
    pub reserved: [usize; 32 - 7],
}

// SAFETY: the pointers reference immutable, 'static C strings and method tables (or are null); the
// only field anyone writes after construction is `dso`, and libhardware writes it once during
// module load, before any other thread can observe the module. Sharing is therefore sound, and it
// lets a driver keep its module in a `static`.
unsafe impl Sync for HwModule {}
// SAFETY: the module holds only 'static, never-freed data (the `Sync` note above), so moving it to
// another thread cannot outlive or free anything.
unsafe impl Send for HwModule {}

impl HwModule {
    /// A module header with the tags and versions libhardware checks already filled in.
    pub const fn new(
        module_api_version: u16,
        id: &'static CStr,
        name: &'static CStr,
        author: &'static CStr,
        methods: &'static HwModuleMethods,
    ) -> Self {
        Self {
            tag: HARDWARE_MODULE_TAG,
            module_api_version,
            hal_api_version: HARDWARE_HAL_API_VERSION,
            id: id.as_ptr(),
            name: name.as_ptr(),
            author: author.as_ptr(),
            // libhardware declares the pointer mutable but never writes through it.
            methods: ptr::from_ref(methods).cast_mut(),
            dso: ptr::null_mut(),
            reserved: [0; 25],
        }
    }
}

/// `struct hw_device_t` (120 bytes on LP64, 64 on ILP32).
#[doc(alias = "hw_device_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HwDevice {
    /// Must be [`HARDWARE_DEVICE_TAG`].
    pub tag: u32,
    pub version: u32,
    pub module: *mut HwModule,
    /// `uint64_t` on LP64, `uint32_t` on ILP32, as in [`HwModule::reserved`].
    pub reserved: [usize; 12],
    pub close: Option<PfnHwDeviceClose>,
}

// SAFETY: `module` points at the driver's 'static module record; a device is immutable once
// `open` has returned it, so concurrent reads are fine and it may live in a `static`.
unsafe impl Sync for HwDevice {}
// SAFETY: a device holds only its 'static module pointer and function pointers, none of them tied
// to a thread, so it may move between threads.
unsafe impl Send for HwDevice {}

/// `hwvulkan_module_t`, the type of the exported `HMI` symbol of a Vulkan HAL driver.
///
/// Export it as `#[no_mangle] pub static mut HMI: HwvulkanModule`: libhardware stores the
/// `dlopen` handle in `common.dso` after loading, and a plain `static` would sit in read-only
/// memory (the write would fault). `Sync` is implemented anyway so a read-only copy can be a
/// `static` where nothing writes it (tests, a stub HAL).
#[doc(alias = "hwvulkan_module_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HwvulkanModule {
    pub common: HwModule,
}

impl HwvulkanModule {
    /// An `HMI` record for a Vulkan driver: id `"vulkan"`, module API 0.1.
    pub const fn new(
        name: &'static CStr,
        author: &'static CStr,
        methods: &'static HwModuleMethods,
    ) -> Self {
        Self {
            common: HwModule::new(
                HWVULKAN_MODULE_API_VERSION_0_1,
                HWVULKAN_HARDWARE_MODULE_ID,
                name,
                author,
                methods,
            ),
        }
    }
}

/// `hwvulkan_device_t` (144 bytes on LP64): what `open(…, "vk0", …)` returns.
#[doc(alias = "hwvulkan_device_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct HwvulkanDevice {
    pub common: HwDevice,
    pub enumerate_instance_extension_properties:
        Option<vk::PFN_vkEnumerateInstanceExtensionProperties>,
    pub create_instance: Option<vk::PFN_vkCreateInstance>,
    pub get_instance_proc_addr: Option<vk::PFN_vkGetInstanceProcAddr>,
}

// SAFETY: plain function pointers plus the `HwDevice` header, which is `Sync` (see there).
unsafe impl Sync for HwvulkanDevice {}
// SAFETY: plain function pointers plus the `HwDevice` header, none of them tied to a thread, so the
// device may move between threads.
unsafe impl Send for HwvulkanDevice {}

/// `hwvulkan_dispatch_t`: the first word of every dispatchable object (`VkInstance`,
/// `VkPhysicalDevice`, `VkDevice`, `VkQueue`, `VkCommandBuffer`) a HAL driver creates. The driver
/// stores [`HWVULKAN_DISPATCH_MAGIC`] in `magic`; the loader checks it and replaces it with its
/// dispatch-table pointer in `vtbl`.
#[doc(alias = "hwvulkan_dispatch_t")]
#[repr(C)]
#[derive(Clone, Copy)]
pub union HwvulkanDispatch {
    pub magic: usize,
    pub vtbl: *const c_void,
}

impl HwvulkanDispatch {
    /// The value a driver initialises a fresh dispatchable object with.
    pub const MAGIC: Self = Self {
        magic: HWVULKAN_DISPATCH_MAGIC,
    };

    /// Whether the word still holds the driver's magic, i.e. the loader has not claimed it yet.
    pub fn is_magic(&self) -> bool {
        // SAFETY: both members are one pointer-sized word with no invalid bit patterns, so reading
        // it as an integer is always defined.
        unsafe { self.magic == HWVULKAN_DISPATCH_MAGIC }
    }
}

impl std::fmt::Debug for HwvulkanDispatch {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        // SAFETY: see `is_magic`; any bit pattern is a valid `usize`.
        let word = unsafe { self.magic };
        write!(f, "HwvulkanDispatch({word:#x})")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{align_of, offset_of, size_of};

    #[test]
    fn constants_match_the_headers() {
        assert_eq!(HARDWARE_MODULE_TAG, 0x4857_4D54);
        assert_eq!(HARDWARE_DEVICE_TAG, 0x4857_4454);
        assert_eq!(HWVULKAN_MODULE_API_VERSION_0_1, 0x0001);
        assert_eq!(HWVULKAN_DEVICE_API_VERSION_0_1, 0x0001_0000);
        assert_eq!(HARDWARE_HAL_API_VERSION, hardware_module_api_version(1, 0));
        assert_eq!(HWVULKAN_DISPATCH_MAGIC, 0x01CD_C0DE);
        assert_eq!(HWVULKAN_HARDWARE_MODULE_ID.to_bytes(), b"vulkan");
        assert_eq!(HWVULKAN_DEVICE_0.to_bytes(), b"vk0");
        assert_eq!(HAL_MODULE_INFO_SYM_AS_STR.to_bytes(), b"HMI");
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn lp64_layouts() {
        assert_eq!(size_of::<HwModuleMethods>(), 8);
        assert_eq!(size_of::<HwModule>(), 248);
        assert_eq!(align_of::<HwModule>(), 8);
        assert_eq!(offset_of!(HwModule, tag), 0);
        assert_eq!(offset_of!(HwModule, module_api_version), 4);
        assert_eq!(offset_of!(HwModule, hal_api_version), 6);
        assert_eq!(offset_of!(HwModule, id), 8);
        assert_eq!(offset_of!(HwModule, name), 16);
        assert_eq!(offset_of!(HwModule, author), 24);
        assert_eq!(offset_of!(HwModule, methods), 32);
        assert_eq!(offset_of!(HwModule, dso), 40);
        assert_eq!(offset_of!(HwModule, reserved), 48);

        assert_eq!(size_of::<HwDevice>(), 120);
        assert_eq!(offset_of!(HwDevice, tag), 0);
        assert_eq!(offset_of!(HwDevice, version), 4);
        assert_eq!(offset_of!(HwDevice, module), 8);
        assert_eq!(offset_of!(HwDevice, reserved), 16);
        assert_eq!(offset_of!(HwDevice, close), 112);

        assert_eq!(size_of::<HwvulkanModule>(), 248);
        assert_eq!(size_of::<HwvulkanDevice>(), 144);
        assert_eq!(offset_of!(HwvulkanDevice, common), 0);
        assert_eq!(
            offset_of!(HwvulkanDevice, enumerate_instance_extension_properties),
            120
        );
        assert_eq!(offset_of!(HwvulkanDevice, create_instance), 128);
        assert_eq!(offset_of!(HwvulkanDevice, get_instance_proc_addr), 136);

        assert_eq!(size_of::<HwvulkanDispatch>(), 8);
    }

    #[cfg(target_pointer_width = "32")]
    #[test]
    fn ilp32_layouts() {
        assert_eq!(size_of::<HwModule>(), 128);
        assert_eq!(size_of::<HwDevice>(), 64);
    }

    unsafe extern "C" fn open_nothing(
        _module: *const HwModule,
        _id: *const c_char,
        device: *mut *mut HwDevice,
    ) -> c_int {
        // SAFETY: the test passes a valid out-pointer.
        unsafe { *device = ptr::null_mut() };
        -22
    }

    static METHODS: HwModuleMethods = HwModuleMethods {
        open: Some(open_nothing),
    };
    static MODULE: HwvulkanModule = HwvulkanModule::new(c"test", c"vkgen", &METHODS);

    #[test]
    fn module_constructor_fills_what_libhardware_checks() {
        let m = &MODULE.common;
        assert_eq!(m.tag, HARDWARE_MODULE_TAG);
        assert_eq!(m.hal_api_version, HARDWARE_HAL_API_VERSION);
        assert_eq!(m.module_api_version, HWVULKAN_MODULE_API_VERSION_0_1);
        // SAFETY: `id` was built from a 'static CStr.
        assert_eq!(unsafe { CStr::from_ptr(m.id) }, HWVULKAN_HARDWARE_MODULE_ID);
        assert!(m.dso.is_null());
        assert!(m.reserved.iter().all(|&w| w == 0));
        // SAFETY: `methods` points at METHODS.
        let open = unsafe { (*m.methods).open }.expect("open set");
        let mut dev = ptr::NonNull::<HwDevice>::dangling().as_ptr();
        // SAFETY: our `open_nothing` only writes the out-pointer.
        let rc = unsafe { open(m, HWVULKAN_DEVICE_0.as_ptr(), &mut dev) };
        assert_eq!(rc, -22);
        assert!(dev.is_null());
    }

    #[test]
    fn dispatch_magic_round_trip() {
        let mut d = HwvulkanDispatch::MAGIC;
        assert!(d.is_magic());
        // black_box: the check must run on the stored word, not on what the optimiser folds it to.
        d.vtbl = std::hint::black_box(ptr::from_ref(&METHODS).cast());
        assert!(!std::hint::black_box(&d).is_magic());
    }
}
