//! Android HAL driver loading (`driver.cpp`'s `Hal::Open` / `LoadBuiltinDriver`).
//!
//! A Vulkan HAL driver is `vulkan.<name>.so` in the vendor `hw` dir, `<name>` being
//! `ro.hardware.vulkan`, else `ro.board.platform`. It exports a writable `hwvulkan_module_t HMI`;
//! the loader stores the library handle in `HMI.common.dso` (drivers and libhardware read it back
//! to unload), then opens device `"vk0"`, whose `hwvulkan_device_t` carries the three global entry
//! points. Unlike Android, which trusts the module, every step is checked and a malformed module
//! becomes a typed [`HalError`] instead of a crash: before any pointer the module hands over is
//! dereferenced it is checked against the module's mapped image (`HMI`, `id`, `methods` and
//! `open` inside the module's own readable/executable segments, the opened device readable, its
//! entry points in executable code; see `image` for exactly what that can and cannot catch), the
//! tag and id are verified, `dso` is written with a syscall that reports `EFAULT` rather than
//! faulting when `HMI` is read-only, and null entry points are rejected. A module whose pointers
//! pass those checks but are still wrong (readable garbage, an address inside the wrong
//! function) can crash the process, as on Android.
//!
//! **Where** is `hal_search.rs`'s: the namespaces, module names and dirs `Hal::Open` tries.
//!
//! The filesystem root is configurable ([`super::DriverSettings::hal_root`], env `VKGEN_HAL_ROOT`)
//! so a Linux host can carry an Android-style tree; on a real device it is `/`.

use std::ffi::{c_void, CStr};
use std::path::{Path, PathBuf};
use std::ptr::NonNull;

use ash::vk;
use libloading::os::unix::Library;
use vkgen_abi::hal::{
    HwDevice, HwModule, HwModuleMethods, HwvulkanDevice, PfnHwDeviceClose, PfnHwModuleOpen,
    HAL_MODULE_INFO_SYM_AS_STR, HARDWARE_DEVICE_TAG, HARDWARE_MODULE_TAG, HWVULKAN_DEVICE_0,
    HWVULKAN_HARDWARE_MODULE_ID,
};

use super::image::{is_code, is_readable, store_word, Image, PF_R, PF_X};
use super::library::{open_library, symbol_address};
use super::linker::interface::Linker;

/// Why a HAL driver could not be used. Every variant names the module path.
#[derive(Debug, thiserror::Error)]
pub enum HalError {
    /// No candidate file exists or could be `dlopen`ed (Android's `-ENOENT`): not an error,
    /// the loader falls through. Maps to `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("no HAL driver (tried: {})", display_paths(.tried))]
    NotFound { tried: Vec<PathBuf> },
    /// An updatable driver is configured but none of its files loads, or what loads is no HAL
    /// module (AOSP: `LOG_ALWAYS_FATAL`). Maps to `VK_ERROR_INITIALIZATION_FAILED`.
    #[error("the updatable driver could not be loaded (tried: {})", display_paths(.tried))]
    UpdatableDriverMissing { tried: Vec<PathBuf> },
    /// The library has no `HMI` symbol: not a HAL module. Maps to
    /// `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("{}: no HMI symbol: {source}", .path.display())]
    NoHmi {
        path: PathBuf,
        source: libloading::Error,
    },
    /// `HMI.common.tag` is not `HARDWARE_MODULE_TAG`. Maps to `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("{}: HMI tag {tag:#010x} is not HARDWARE_MODULE_TAG", .path.display())]
    BadModuleTag { path: PathBuf, tag: u32 },
    /// `HMI.common.id` is null or not `"vulkan"`. Maps to `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("{}: HMI id {} is not \"vulkan\"", .path.display(), .id.as_deref().map_or("NULL".to_owned(), |i| format!("{i:?}")))]
    BadModuleId { path: PathBuf, id: Option<String> },
    /// A pointer of the module (`HMI` itself, `id`, `methods`, `open`) is not inside the
    /// module's mapped image with the access it needs (a 4-byte `HMI`, a wild `id`). Maps to
    /// `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("{}: {what} is not inside the module's mapped image", .path.display())]
    BadModulePointer { path: PathBuf, what: &'static str },
    /// The device `open` returned is not readable, or one of its entry points (or `close`) is
    /// not executable code of a loaded object. Maps to `VK_ERROR_INITIALIZATION_FAILED`.
    #[error("{}: {what} is not a valid pointer", .path.display())]
    BadDevicePointer { path: PathBuf, what: &'static str },
    /// `HMI.common.methods` or its `open` is null. Maps to `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("{}: HMI has no open method", .path.display())]
    NoOpenMethod { path: PathBuf },
    /// `HMI` is in read-only memory, so `dso` cannot be stored (Android would crash here).
    /// Maps to `VK_ERROR_INCOMPATIBLE_DRIVER`.
    #[error("{}: HMI is not writable (declare it non-const): {source}", .path.display())]
    HmiNotWritable {
        path: PathBuf,
        source: std::io::Error,
    },
    /// `methods->open(module, "vk0", &dev)` returned non-zero (a negative errno). Maps to
    /// `VK_ERROR_INITIALIZATION_FAILED`, as Android's `OpenHAL` failure.
    #[error("{}: opening device vk0 failed: {} ({code})", .path.display(), std::io::Error::from_raw_os_error(code.saturating_neg()))]
    OpenFailed { path: PathBuf, code: i32 },
    /// `open` succeeded but returned a null device. Maps to `VK_ERROR_INITIALIZATION_FAILED`.
    #[error("{}: open returned a null device", .path.display())]
    NullDevice { path: PathBuf },
    /// The device's `common.tag` is not `HARDWARE_DEVICE_TAG`; the device is abandoned without
    /// calling its `close`, which cannot be trusted. Maps to `VK_ERROR_INITIALIZATION_FAILED`.
    #[error("{}: device tag {tag:#010x} is not HARDWARE_DEVICE_TAG", .path.display())]
    BadDeviceTag { path: PathBuf, tag: u32 },
    /// One of the device's three entry points is null (the device is closed again). Maps to
    /// `VK_ERROR_INITIALIZATION_FAILED`.
    #[error("{}: device has null entry points: {}", .path.display(), .missing.join(", "))]
    NullProcs {
        path: PathBuf,
        missing: Vec<&'static str>,
    },
}

fn display_paths(paths: &[PathBuf]) -> String {
    if paths.is_empty() {
        return "no candidate names set".to_owned();
    }
    paths
        .iter()
        .map(|p| p.display().to_string())
        .collect::<Vec<_>>()
        .join(", ")
}

impl HalError {
    /// Whether the failure happened after the module was accepted, i.e. the HAL exists but its
    /// device is broken. Android then fails instance creation instead of using the stub HAL.
    pub fn is_fatal(&self) -> bool {
        matches!(
            self,
            HalError::OpenFailed { .. }
                | HalError::UpdatableDriverMissing { .. }
                | HalError::NullDevice { .. }
                | HalError::BadDeviceTag { .. }
                | HalError::NullProcs { .. }
                | HalError::BadDevicePointer { .. }
        )
    }
}

/// The HAL's error mapper (wgpu-hal's `map_*_err`): a [`HalError`] (the search, `dlopen`, the
/// module checks, the `open("vk0")` status, the device checks) as the `VkResult`
/// `vkCreateInstance` gives:
///
/// * `VK_ERROR_INCOMPATIBLE_DRIVER` when no usable module was found: nothing to `dlopen`
///   (`NotFound`, Android's `-ENOENT`), not a HAL module (`NoHmi`, `BadModuleTag`,
///   `BadModuleId`, `NoOpenMethod`), a malformed one (`BadModulePointer`, `HmiNotWritable`).
///   The loader goes on without a HAL driver.
/// * `VK_ERROR_INITIALIZATION_FAILED` when the module was accepted but its device is unusable:
///   a non-zero `open()` status (`OpenFailed`), `NullDevice`, `BadDeviceTag`,
///   `BadDevicePointer`, `NullProcs`; and a configured updatable driver that does not load
///   (`UpdatableDriverMissing`). Android fails instance creation there (`OpenHAL`).
///
/// It does not log: `hal_search::load` logs the rejection with the module's path, and the command that
/// returns the result logs it with `vk_error!`.
pub fn map_hal_err(err: &HalError) -> vk::Result {
    if err.is_fatal() {
        vk::Result::ERROR_INITIALIZATION_FAILED
    } else {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER
    }
}

/// An opened HAL driver: the device returned by `open("vk0")` and its three global entry points.
/// Dropping it calls the device's `close` and then unloads the library.
pub struct HalDriver {
    path: PathBuf,
    device: NonNull<HwvulkanDevice>,
    enumerate_instance_extension_properties: vk::PFN_vkEnumerateInstanceExtensionProperties,
    create_instance: vk::PFN_vkCreateInstance,
    get_instance_proc_addr: vk::PFN_vkGetInstanceProcAddr,
    close: Option<PfnHwDeviceClose>,
    /// Dropped after `Drop::drop` has closed the device, so `close` still has its code mapped;
    /// `None` once [`HalDriver::unload_builtin`] has closed and unloaded it.
    library: std::sync::Mutex<Option<Library>>,
}

// SAFETY: the device record is owned by the driver and never written by us after `open`; the
// entry points are Vulkan globals, which the spec requires to be callable from any thread.
unsafe impl Send for HalDriver {}
// SAFETY: see `Send`; `&HalDriver` only exposes reads of immutable data.
unsafe impl Sync for HalDriver {}

impl std::fmt::Debug for HalDriver {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HalDriver")
            .field("path", &self.path)
            .field("device", &self.device)
            .finish_non_exhaustive()
    }
}

impl HalDriver {
    /// The module file this driver was loaded from.
    pub fn path(&self) -> &Path {
        &self.path
    }

    /// `hwvulkan_device_t::EnumerateInstanceExtensionProperties`.
    pub fn enumerate_instance_extension_properties_fn(
        &self,
    ) -> vk::PFN_vkEnumerateInstanceExtensionProperties {
        self.enumerate_instance_extension_properties
    }

    /// `hwvulkan_device_t::CreateInstance`.
    pub fn create_instance_fn(&self) -> vk::PFN_vkCreateInstance {
        self.create_instance
    }

    /// `hwvulkan_device_t::GetInstanceProcAddr`.
    pub fn get_instance_proc_addr_fn(&self) -> vk::PFN_vkGetInstanceProcAddr {
        self.get_instance_proc_addr
    }

    /// The raw `hwvulkan_device_t*`, for code that must hand it back to the driver.
    pub fn device(&self) -> NonNull<HwvulkanDevice> {
        self.device
    }
}

impl HalDriver {
    /// `Hal::UnloadBuiltinDriver`: closes the device and unloads the library with
    /// `android_unload_sphal_library`, for a forked child that uses the updatable driver
    /// instead. The entry points must not be called afterwards: the caller drops every state
    /// that holds them (the parent's loader state is never used again in the child).
    pub fn unload_builtin(&self, linker: &dyn Linker) {
        let library = self
            .library
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if let Some(library) = library {
            let _trace = crate::trace::section("UnloadBuiltinDriver");
            log::debug!("Unload builtin Vulkan driver.");
            self.close_device();
            linker.unload_sphal_library(library);
        }
    }

    /// The device's `close`, if it has one; only called while the library is still loaded.
    fn close_device(&self) {
        if let Some(close) = self.close {
            // SAFETY: `close` is the driver's destructor for the device `open` returned; both
            // callers take the library out of `self.library` first, so it runs once, and only
            // then unload the library, so its code is still mapped.
            let rc = unsafe { close(self.device.as_ptr().cast::<HwDevice>()) };
            if rc != 0 {
                log::warn!("{}: device close returned {rc}", self.path.display());
            }
        }
    }
}

impl Drop for HalDriver {
    fn drop(&mut self) {
        let library = self
            .library
            .get_mut()
            .unwrap_or_else(|p| p.into_inner())
            .take();
        if library.is_some() {
            self.close_device();
        }
        drop(library);
    }
}

/// Opens one specific module file (no search); a missing or unloadable file is `NotFound`.
pub fn load_path(path: &Path) -> Result<HalDriver, HalError> {
    match open_library(path) {
        Ok(library) => load_module(path, library),
        Err(e) => {
            log::warn!("HAL module {}: dlopen failed: {e}", path.display());
            Err(HalError::NotFound {
                tried: vec![path.to_path_buf()],
            })
        }
    }
}

/// Checks and opens the module `library` loaded from `path`.
pub(super) fn load_module(path: &Path, library: Library) -> Result<HalDriver, HalError> {
    let result = load_module_inner(path, library);
    match &result {
        Ok(_) => log::info!("HAL driver {} loaded", path.display()),
        Err(e) => log::warn!("HAL driver rejected: {e}"),
    }
    result
}

fn load_module_inner(path: &Path, library: Library) -> Result<HalDriver, HalError> {
    // On any early return `library` is dropped, which dlcloses it: no handle leaks.
    let (hmi, open) = checked_module(path, &library)?;
    // libhardware's contract: the module learns its own dlopen handle through `dso`.
    let handle = library.into_raw();
    // SAFETY: `handle` came from `into_raw` just above and is owned by nobody else.
    let library = unsafe { Library::from_raw(handle) };
    // SAFETY: `hmi` points into the mapped module (checked by `checked_module`); the offset
    // stays inside the struct.
    let dso_slot = unsafe { hmi.cast::<u8>().add(std::mem::offset_of!(HwModule, dso)) };
    if let Err(source) = store_word(dso_slot.cast(), handle as usize) {
        return Err(HalError::HmiNotWritable {
            path: path.to_path_buf(),
            source,
        });
    }
    open_device(path, hmi, open, library)
}

/// The module's `HMI` and its `open` method, once every pointer on the way lies in the
/// module's own mapped image and the tag and id say it is a Vulkan HAL module.
fn checked_module(
    path: &Path,
    library: &Library,
) -> Result<(*mut HwModule, PfnHwModuleOpen), HalError> {
    let path_buf = || path.to_path_buf();
    let hmi = match symbol_address(library, HAL_MODULE_INFO_SYM_AS_STR) {
        Some(p) => p.cast::<HwModule>().as_ptr(),
        None => {
            // Ask again through libloading to report dlerror's wording.
            // SAFETY: only probes for the symbol; nothing is dereferenced.
            let source = match unsafe { library.get::<*mut c_void>(b"HMI\0") } {
                Err(e) => e,
                Ok(_) => libloading::Error::DlSymUnknown,
            };
            return Err(HalError::NoHmi {
                path: path_buf(),
                source,
            });
        }
    };
    let bad = |what| HalError::BadModulePointer {
        path: path_buf(),
        what,
    };
    // Everything the module points at must lie in its own mapped image.
    let Some(image) = Image::containing(hmi.cast_const().cast()) else {
        return Err(bad("HMI"));
    };
    if !image.contains(hmi as usize, std::mem::size_of::<HwModule>(), PF_R) {
        return Err(bad("HMI (smaller than hw_module_t)"));
    }
    // A copy, read unaligned: the symbol is foreign data that may not even be a hw_module_t.
    // SAFETY: the whole hw_module_t lies in a readable segment of the module (checked above);
    // only the copy is inspected.
    let module: HwModule = unsafe { hmi.read_unaligned() };
    if module.tag != HARDWARE_MODULE_TAG {
        return Err(HalError::BadModuleTag {
            path: path_buf(),
            tag: module.tag,
        });
    }
    let id = if module.id.is_null() {
        None
    } else {
        if image.c_str_len(module.id.cast()).is_none() {
            return Err(bad("HMI.id"));
        }
        // SAFETY: `id` is NUL-terminated inside a readable segment of the module (checked).
        Some(unsafe { CStr::from_ptr(module.id) })
    };
    if id != Some(HWVULKAN_HARDWARE_MODULE_ID) {
        return Err(HalError::BadModuleId {
            path: path_buf(),
            id: id.map(|s| s.to_string_lossy().into_owned()),
        });
    }
    let open = if module.methods.is_null() {
        None
    } else {
        if !image.contains(
            module.methods as usize,
            std::mem::size_of::<HwModuleMethods>(),
            PF_R,
        ) {
            return Err(bad("HMI.methods"));
        }
        // SAFETY: `methods` lies in a readable segment of the module (checked above).
        unsafe { module.methods.read_unaligned() }.open
    };
    let Some(open) = open else {
        return Err(HalError::NoOpenMethod { path: path_buf() });
    };
    if !image.contains(open as usize, 1, PF_X) {
        return Err(bad("HMI.methods->open"));
    }
    Ok((hmi, open))
}

/// `open(HMI, "vk0")` and the device it returns, checked: readable, tagged, its `close` and
/// entry points code, none of the three entry points null.
fn open_device(
    path: &Path,
    hmi: *mut HwModule,
    open: PfnHwModuleOpen,
    library: Library,
) -> Result<HalDriver, HalError> {
    let path_buf = || path.to_path_buf();
    let mut raw_device: *mut HwDevice = std::ptr::null_mut();
    let rc = {
        let _trace = crate::trace::section("hwvulkan module open");
        // SAFETY: `open` is the module's own method, called with its module, the device id the
        // HAL ABI defines and a valid out-pointer; the library stays loaded for the call.
        unsafe { open(hmi, HWVULKAN_DEVICE_0.as_ptr(), &mut raw_device) }
    };
    if rc != 0 {
        return Err(HalError::OpenFailed {
            path: path_buf(),
            code: rc,
        });
    }
    let Some(device_ptr) = NonNull::new(raw_device.cast::<HwvulkanDevice>()) else {
        return Err(HalError::NullDevice { path: path_buf() });
    };
    // The device may live on the module's heap: only its readability can be checked.
    if !is_readable(
        device_ptr.as_ptr().cast_const().cast(),
        std::mem::size_of::<HwvulkanDevice>(),
    ) {
        // Its `close` cannot be trusted either: the device is abandoned.
        return Err(HalError::BadDevicePointer {
            path: path_buf(),
            what: "the opened device",
        });
    }
    // SAFETY: `open` succeeded and the whole hwvulkan_device_t is readable (checked above);
    // only a copy is inspected.
    let device: HwvulkanDevice = unsafe { device_ptr.as_ptr().read_unaligned() };
    if device.common.tag != HARDWARE_DEVICE_TAG {
        return Err(HalError::BadDeviceTag {
            path: path_buf(),
            tag: device.common.tag,
        });
    }
    if device.common.close.is_some_and(|c| !is_code(c as usize)) {
        return Err(HalError::BadDevicePointer {
            path: path_buf(),
            what: "device close",
        });
    }
    let code = |f: Option<usize>| f.is_none_or(is_code);
    if !code(
        device
            .enumerate_instance_extension_properties
            .map(|f| f as usize),
    ) || !code(device.create_instance.map(|f| f as usize))
        || !code(device.get_instance_proc_addr.map(|f| f as usize))
    {
        if let Some(close) = device.common.close {
            // SAFETY: the device header is readable, tagged, and `close` is code (checked).
            unsafe { close(raw_device) };
        }
        return Err(HalError::BadDevicePointer {
            path: path_buf(),
            what: "a device entry point",
        });
    }
    let procs = (
        device.enumerate_instance_extension_properties,
        device.create_instance,
        device.get_instance_proc_addr,
    );
    let (Some(enumerate), Some(create), Some(gipa)) = procs else {
        let missing = [
            (procs.0.is_none(), "EnumerateInstanceExtensionProperties"),
            (procs.1.is_none(), "CreateInstance"),
            (procs.2.is_none(), "GetInstanceProcAddr"),
        ]
        .into_iter()
        .filter_map(|(absent, name)| absent.then_some(name))
        .collect();
        if let Some(close) = device.common.close {
            // SAFETY: the device header is valid (tag checked); closing releases what `open`
            // allocated before we drop the library.
            unsafe { close(raw_device) };
        }
        return Err(HalError::NullProcs {
            path: path_buf(),
            missing,
        });
    };
    Ok(HalDriver {
        path: path_buf(),
        device: device_ptr,
        enumerate_instance_extension_properties: enumerate,
        create_instance: create,
        get_instance_proc_addr: gipa,
        close: device.common.close,
        library: std::sync::Mutex::new(Some(library)),
    })
}

#[cfg(test)]
pub(crate) mod tests {
    use super::*;
    use crate::driver::hal_search::*;
    use crate::driver::layout::LIB;
    use crate::driver::DriverSettings;
    use crate::properties::Properties;
    use crate::testutil::{compile_so, isolated_driver, VK_DECLS};

    /// A HAL module in C, parameterised by `#define`s so each test can break one thing.
    const HAL_SOURCE: &str = r#"
typedef struct hw_module_t hw_module_t;
typedef struct hw_device_t hw_device_t;
typedef struct { int (*open)(const hw_module_t*, const char*, hw_device_t**); } hw_module_methods_t;
struct hw_module_t { uint32_t tag; uint16_t module_api_version; uint16_t hal_api_version;
    const char* id; const char* name; const char* author; hw_module_methods_t* methods; void* dso;
    uint64_t reserved[25]; };
struct hw_device_t { uint32_t tag; uint32_t version; hw_module_t* module; uint64_t reserved[12];
    int (*close)(hw_device_t*); };
typedef struct { hw_device_t common; void* enumerate_instance_extension_properties;
    void* create_instance; PFN_vkVoidFunction (*get_instance_proc_addr)(VkInstance, const char*); }
    hwvulkan_device_t;
_Static_assert(sizeof(hw_module_t) == 248, "hw_module_t");
_Static_assert(sizeof(hwvulkan_device_t) == 144, "hwvulkan_device_t");

#ifndef MODULE_TAG
#define MODULE_TAG 0x48574D54
#endif
#ifndef MODULE_ID
#define MODULE_ID "vulkan"
#endif
#ifndef DEVICE_TAG
#define DEVICE_TAG 0x48574454
#endif
#ifndef OPEN_RC
#define OPEN_RC 0
#endif
#ifndef HMI_QUALIFIER
#define HMI_QUALIFIER
#endif

static VkResult enumerate_version(uint32_t* v) { *v = VK_MAKE_API_VERSION(0, 1, 1, 5); return VK_SUCCESS; }
static VkResult enumerate_exts(const char* l, uint32_t* c, void* p) { (void)l; (void)p; *c = 0; return VK_SUCCESS; }
static VkResult create_instance(const void* ci, const void* a, VkInstance* i) { (void)ci; (void)a; (void)i; return VK_ERROR_INITIALIZATION_FAILED; }
static PFN_vkVoidFunction gipa(VkInstance inst, const char* name) {
    (void)inst;
    if (!strcmp(name, "vkEnumerateInstanceVersion")) return (PFN_vkVoidFunction)enumerate_version;
    if (!strcmp(name, "vkCreateInstance")) return (PFN_vkVoidFunction)create_instance;
    return NULL;
}
static int close_device(hw_device_t* dev) {
    (void)dev;
    FILE* f = fopen(MARKER, "w");
    if (f) { fputs("closed", f); fclose(f); }
    return 0;
}
static hwvulkan_device_t device = {
    .common = { .tag = DEVICE_TAG, .version = 0x00010000, .close = close_device },
#ifndef NULL_PROCS
    .enumerate_instance_extension_properties = (void*)enumerate_exts,
    .create_instance = (void*)create_instance,
    .get_instance_proc_addr = gipa,
#endif
};
#if defined(TINY_HMI)
extern uint32_t HMI;
#define HMI_ADDRESS ((const hw_module_t*)&HMI)
#elif !defined(NO_HMI)
extern HMI_QUALIFIER hw_module_t HMI;
#define HMI_ADDRESS (&HMI)
#else
#define HMI_ADDRESS NULL
#endif
static int open_device(const hw_module_t* module, const char* id, hw_device_t** out) {
    /* The loader must have stored the dlopen handle before calling open. */
    if (module != HMI_ADDRESS || module->dso == NULL) return -22;
    if (strcmp(id, "vk0") != 0) return -22;
    if (OPEN_RC != 0) return OPEN_RC;
    device.common.module = (hw_module_t*)module;
#ifdef BAD_PROC_PTR
    device.get_instance_proc_addr = (void*)0x10;
#endif
#ifdef BAD_DEVICE_PTR
    *out = (hw_device_t*)0x10;
#else
    *out = &device.common;
#endif
    return 0;
}
static hw_module_methods_t methods = { .open = open_device };
#ifndef METHODS
#define METHODS &methods
#endif
#if defined(TINY_HMI)
/* A 4-byte HMI that starts with the module tag, alone in its own page-aligned section at the end
   of the image: the rest of a hw_module_t would lie past the mapping. */
EXPORT uint32_t HMI __attribute__((section(".zz_tiny_hmi"), aligned(4096))) = 0x48574D54;
#elif !defined(NO_HMI)
EXPORT HMI_QUALIFIER hw_module_t HMI = {
    .tag = MODULE_TAG, .module_api_version = 1, .hal_api_version = 0x0100,
    .id = MODULE_ID, .name = "fixture", .author = "vkgen", .methods = METHODS,
};
#endif
"#;

    /// Builds `<root>/vendor/lib64/hw/vulkan.<name>.so` with extra `-D` lines and returns
    /// (path, close marker path).
    pub(crate) fn build_hal(root: &Path, name: &str, defines: &[&str]) -> (PathBuf, PathBuf) {
        let dir = root.join(HAL_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        let marker = root.join(format!("{name}.closed"));
        let mut src = format!("#define MARKER {:?}\n", marker.to_str().unwrap());
        for d in defines {
            src.push_str(&format!("#define {d}\n"));
        }
        src.push_str(VK_DECLS);
        src.push_str(HAL_SOURCE);
        let path = compile_so(&dir, &format!("vulkan.{name}.so"), &src);
        (path, marker)
    }

    fn config_for(root: &Path, hardware: &str) -> DriverSettings {
        DriverSettings {
            properties: Properties::from_pairs([("ro.hardware.vulkan", hardware)]),
            ..isolated_driver(root)
        }
    }

    #[test]
    fn candidates_follow_property_order_and_skip_empty_values() {
        let config = DriverSettings {
            properties: Properties::from_pairs([
                ("ro.hardware.vulkan", ""),
                ("ro.board.platform", "gs101"),
            ]),
            ..isolated_driver(Path::new("/r"))
        };
        assert_eq!(module_names(&config), ["vulkan.gs101.so"]);
        let config = DriverSettings {
            properties: Properties::from_pairs([
                ("ro.hardware.vulkan", "mali"),
                ("ro.board.platform", "../../etc"),
            ]),
            ..isolated_driver(Path::new("/r"))
        };
        assert_eq!(module_names(&config), ["vulkan.mali.so"]);
        assert!(candidates(&isolated_driver(Path::new("/r"))).is_empty());
    }

    /// AOSP's sphal namespace search path, per module name: odm, vendor, vendor/egl, vendor/hw;
    /// an APEX named by `ro.vulkan.apex` first.
    #[test]
    fn sphal_search_order_after_the_apex() {
        let config = DriverSettings {
            properties: Properties::from_pairs([
                ("ro.hardware.vulkan", "a"),
                ("ro.board.platform", "b"),
                ("ro.vulkan.apex", "com.vendor.vulkan"),
            ]),
            ..isolated_driver(Path::new("/r"))
        };
        let got: Vec<String> = candidates(&config)
            .iter()
            .map(|p| p.to_string_lossy().into_owned())
            .collect();
        let lib = LIB;
        let mut want = vec![
            format!("/r/apex/com.vendor.vulkan/{lib}/vulkan.a.so"),
            format!("/r/apex/com.vendor.vulkan/{lib}/vulkan.b.so"),
        ];
        for name in ["a", "b"] {
            for dir in sphal_dirs() {
                want.push(format!("/r/{dir}/vulkan.{name}.so"));
            }
        }
        assert_eq!(got, want);
        assert_eq!(namespaces(&config)[0].name, "apex com_vendor_vulkan");
    }

    /// An updatable driver, when configured, is the driver; configured but missing, it is fatal
    /// (AOSP aborts; vkgen fails instance creation).
    #[test]
    fn updatable_driver_first_and_fatal_when_missing() {
        let root = tempfile::tempdir().unwrap();
        let (in_hw, _) = build_hal(root.path(), "u", &[]);
        let updatable = root.path().join("updatable");
        std::fs::create_dir_all(&updatable).unwrap();
        let config = DriverSettings {
            updatable_driver_dir: Some(updatable.clone()),
            ..config_for(root.path(), "u")
        };
        let err = load(&config).unwrap_err();
        assert!(
            matches!(err, HalError::UpdatableDriverMissing { .. }),
            "{err}"
        );
        assert!(err.is_fatal());
        assert_eq!(map_hal_err(&err), vk::Result::ERROR_INITIALIZATION_FAILED);
        std::fs::copy(&in_hw, updatable.join("vulkan.u.so")).unwrap();
        assert_eq!(load(&config).unwrap().path(), updatable.join("vulkan.u.so"));
    }

    /// A module in `/vendor/lib64` (the sphal path's second dir) is found, and wins over one in
    /// `hw`.
    #[test]
    fn a_module_in_vendor_lib64_is_found_first() {
        let root = tempfile::tempdir().unwrap();
        let (in_hw, _) = build_hal(root.path(), "x", &[]);
        let vendor = root.path().join(format!("vendor/{LIB}"));
        std::fs::copy(&in_hw, vendor.join("vulkan.x.so")).unwrap();
        let hal = load(&config_for(root.path(), "x")).unwrap();
        assert_eq!(hal.path(), vendor.join("vulkan.x.so"));
    }

    #[test]
    fn no_driver_is_not_found() {
        let root = tempfile::tempdir().unwrap();
        let err = load(&config_for(root.path(), "absent")).unwrap_err();
        assert!(
            matches!(&err, HalError::NotFound { tried } if tried.len() == sphal_dirs().len()),
            "{err}"
        );
        assert!(!err.is_fatal());
        assert_eq!(map_hal_err(&err), vk::Result::ERROR_INCOMPATIBLE_DRIVER);
    }

    #[test]
    fn a_good_module_loads_and_closes_on_drop() {
        let root = tempfile::tempdir().unwrap();
        let (path, marker) = build_hal(root.path(), "good", &[]);
        // The board platform is only a fallback: ro.hardware.vulkan names the module.
        let config = DriverSettings {
            properties: Properties::from_pairs([
                ("ro.hardware.vulkan", "good"),
                ("ro.board.platform", "other"),
            ]),
            ..isolated_driver(root.path())
        };
        let hal = load(&config).expect("fixture HAL loads");
        assert_eq!(hal.path(), path);
        // SAFETY: global query on the fixture's GIPA.
        let f = unsafe {
            (hal.get_instance_proc_addr_fn())(vk::Instance::null(), c"vkCreateInstance".as_ptr())
        };
        assert!(f.is_some());
        assert!(!marker.exists());
        drop(hal);
        assert_eq!(std::fs::read_to_string(&marker).unwrap(), "closed");
    }

    #[test]
    fn falls_back_to_board_platform() {
        let root = tempfile::tempdir().unwrap();
        let (path, _) = build_hal(root.path(), "board", &[]);
        let config = DriverSettings {
            properties: Properties::from_pairs([
                ("ro.hardware.vulkan", "missing"),
                ("ro.board.platform", "board"),
            ]),
            ..isolated_driver(root.path())
        };
        assert_eq!(load(&config).unwrap().path(), path);
    }

    #[test]
    fn file_without_hmi_is_rejected() {
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "nohmi", &["NO_HMI"]);
        let err = load(&config_for(root.path(), "nohmi")).unwrap_err();
        assert!(matches!(err, HalError::NoHmi { .. }), "{err}");
        assert!(!err.is_fatal());
        assert!(err.to_string().contains("vulkan.nohmi.so"), "{err}");
    }

    #[test]
    fn wrong_module_tag_is_rejected() {
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "tag", &["MODULE_TAG 0x12345678"]);
        let err = load(&config_for(root.path(), "tag")).unwrap_err();
        assert!(
            matches!(
                err,
                HalError::BadModuleTag {
                    tag: 0x12345678,
                    ..
                }
            ),
            "{err}"
        );
        assert_eq!(map_hal_err(&err), vk::Result::ERROR_INCOMPATIBLE_DRIVER);
    }

    #[test]
    fn wrong_module_id_is_rejected() {
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "id", &["MODULE_ID \"gralloc\""]);
        let err = load(&config_for(root.path(), "id")).unwrap_err();
        match &err {
            HalError::BadModuleId { id, .. } => assert_eq!(id.as_deref(), Some("gralloc")),
            other => panic!("unexpected {other}"),
        }
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "nullid", &["MODULE_ID NULL"]);
        let err = load(&config_for(root.path(), "nullid")).unwrap_err();
        assert!(
            matches!(err, HalError::BadModuleId { id: None, .. }),
            "{err}"
        );
    }

    #[test]
    fn read_only_hmi_is_rejected_without_crashing() {
        let root = tempfile::tempdir().unwrap();
        // `const` with relocated pointers lands in RELRO, read-only after loading.
        build_hal(root.path(), "rodata", &["HMI_QUALIFIER const"]);
        let err = load(&config_for(root.path(), "rodata")).unwrap_err();
        match &err {
            HalError::HmiNotWritable { source, .. } => {
                assert_eq!(source.raw_os_error(), Some(libc::EFAULT))
            }
            other => panic!("unexpected {other}"),
        }
    }

    #[test]
    fn failing_open_reports_errno_and_is_fatal() {
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "openfail", &["OPEN_RC (-5)"]);
        let err = load(&config_for(root.path(), "openfail")).unwrap_err();
        assert!(
            matches!(err, HalError::OpenFailed { code: -5, .. }),
            "{err}"
        );
        assert!(err.is_fatal());
        assert_eq!(map_hal_err(&err), vk::Result::ERROR_INITIALIZATION_FAILED);
        assert!(err.to_string().contains("Input/output error"), "{err}");
        // The driver-set policy turns it into an error, not a silent fallback.
        let e = super::super::load_drivers(&config_for(root.path(), "openfail")).unwrap_err();
        assert_eq!(
            crate::driver::map_driver_err(&e),
            vk::Result::ERROR_INITIALIZATION_FAILED
        );
    }

    #[test]
    fn wrong_device_tag_is_rejected() {
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "devtag", &["DEVICE_TAG 0"]);
        let err = load(&config_for(root.path(), "devtag")).unwrap_err();
        assert!(
            matches!(err, HalError::BadDeviceTag { tag: 0, .. }),
            "{err}"
        );
    }

    #[test]
    fn null_procs_are_rejected_and_the_device_closed() {
        let root = tempfile::tempdir().unwrap();
        let (_, marker) = build_hal(root.path(), "nullprocs", &["NULL_PROCS"]);
        let err = load(&config_for(root.path(), "nullprocs")).unwrap_err();
        match &err {
            HalError::NullProcs { missing, .. } => assert_eq!(
                missing,
                &[
                    "EnumerateInstanceExtensionProperties",
                    "CreateInstance",
                    "GetInstanceProcAddr"
                ]
            ),
            other => panic!("unexpected {other}"),
        }
        assert!(
            marker.exists(),
            "the device must be closed on the error path"
        );
    }

    #[test]
    fn garbage_file_is_skipped_like_enoent() {
        let root = tempfile::tempdir().unwrap();
        let dir = root.path().join(HAL_DIR);
        std::fs::create_dir_all(&dir).unwrap();
        std::fs::write(dir.join("vulkan.junk.so"), b"not an ELF file").unwrap();
        let err = load(&config_for(root.path(), "junk")).unwrap_err();
        assert!(matches!(err, HalError::NotFound { .. }), "{err}");
    }

    #[test]
    fn hal_driver_wins_over_icds_and_reports_its_version() {
        let root = tempfile::tempdir().unwrap();
        build_hal(root.path(), "only", &[]);
        let drivers = super::super::load_drivers(&config_for(root.path(), "only")).unwrap();
        assert_eq!(drivers.len(), 1);
        let d = &drivers[0];
        assert!(matches!(d.source(), super::super::DriverSource::Hal(_)));
        assert!(d.name().contains("vulkan.only.so"));
        // The fixture reports 1.1.5; the patch is masked.
        assert_eq!(d.api_version(), vk::make_api_version(0, 1, 1, 0));
        // SAFETY: global lookup on a live driver.
        assert!(unsafe { d.get_instance_proc_addr(vk::Instance::null(), c"vkNope") }.is_none());
    }

    /// Issue 11: wild pointers in `HMI` and the opened device are refused before use.
    #[test]
    fn hmi_pointers_are_validated_against_the_module_image() {
        let cases: [(&str, &[&str], &str, bool); 5] = [
            ("badid", &["MODULE_ID ((const char*)0x10)"], "HMI.id", false),
            (
                "badmethods",
                &["METHODS ((hw_module_methods_t*)0x10)"],
                "HMI.methods",
                false,
            ),
            ("baddevice", &["BAD_DEVICE_PTR"], "the opened device", true),
            ("badproc", &["BAD_PROC_PTR"], "a device entry point", true),
            ("tinyhmi", &["TINY_HMI"], "HMI (smaller", false),
        ];
        for (name, defines, what, fatal) in cases {
            let root = tempfile::tempdir().unwrap();
            build_hal(root.path(), name, defines);
            let err = load(&config_for(root.path(), name)).unwrap_err();
            match &err {
                HalError::BadModulePointer { what: w, .. }
                | HalError::BadDevicePointer { what: w, .. } => {
                    assert!(w.starts_with(what), "{name}: {err}")
                }
                other => panic!("{name}: unexpected {other}"),
            }
            assert_eq!(err.is_fatal(), fatal, "{name}");
        }
    }
}
