//! Platform functions the loader must not link against (libvndksupport, libdl_android,
//! libgraphicsenv, libnativeloader: a vendor or NDK-built copy of this loader does not have
//! them), looked up at run time so that `libvulkan.so`'s `DT_NEEDED` stays liblog,
//! libnativewindow, libdl and libc. Shared by the linker ([`crate::driver::linker`]), the GPU
//! statistics ([`crate::gpu_stats`]) and GraphicsEnv's layer settings ([`crate::graphics_env`]).
//!
//! Every lookup is one row of [`LOOKUPS`], declared once with its Rust type by
//! `platform_functions!`; `data/platform-symbols.json` holds the same names with the
//! declarations AOSP publishes for them (file and revision), and the test
//! `lookups_match_aosp_declarations` checks each row's name, library and Rust type against it.
//!
//! The table resolves as a whole: AOSP's libvulkan links all of these libraries, so on a device
//! without one of them it would not load at all. A missing name is therefore not "the call
//! returned null" (which would leave an app with the stub HAL and zero GPUs, or no layers, and no
//! word why) but [`MissingSymbol`]: logged to logcat naming it, and the loader's initialisation
//! fails (`vkCreateInstance` returns `VK_ERROR_INITIALIZATION_FAILED`, `init`).

use std::ffi::{c_char, c_int, c_void, CStr};

/// libc++'s `std::basic_string<char>` (`std::__1`, ABI v1): three words (24 bytes on LP64), read
/// through the `const std::string&` GraphicsEnv's getters return, never written or freed.
#[repr(C)]
pub struct LibcxxString {
    bytes: [u8; 3 * WORD],
}

const WORD: usize = std::mem::size_of::<usize>();

impl LibcxxString {
    /// The string's bytes: long form when bit 0 of byte 0 is set (capacity, then size at word 1
    /// and the data pointer at word 2), else short (length `byte0 >> 1`, the bytes from offset 1).
    ///
    /// # Safety
    /// `self` must be a live libc++ string (for the long form, its data pointer valid for its
    /// size).
    pub unsafe fn to_bytes(&self) -> Vec<u8> {
        let b = &self.bytes;
        if b[0] & 1 == 0 {
            let len = usize::from(b[0] >> 1).min(3 * WORD - 2);
            return b[1..1 + len].to_vec();
        }
        let word = |at: usize| {
            let mut w = [0u8; WORD];
            w.copy_from_slice(&b[at..at + WORD]);
            usize::from_ne_bytes(w)
        };
        let (size, data) = (word(WORD), word(2 * WORD) as *const u8);
        if data.is_null() {
            return Vec::new();
        }
        // SAFETY: by this function's contract the long form's pointer holds `size` bytes.
        unsafe { std::slice::from_raw_parts(data, size) }.to_vec()
    }
}

/// One lookup: the library it is `dlopen`ed from when the process does not already have it, the
/// symbol and the Rust type it is called through, as written in the table.
#[derive(Debug, Clone, Copy)]
pub struct Lookup {
    /// `libgraphicsenv.so`, ...
    pub library: &'static CStr,
    /// The exported (for C++ members, mangled) name.
    pub symbol: &'static CStr,
    /// `stringify!` of the function type.
    pub rust_type: &'static str,
}

/// A platform function the process does not have.
#[derive(Debug, Clone, thiserror::Error)]
#[error("platform symbol {symbol} ({library}) not found: {reason}")]
pub struct MissingSymbol {
    /// The library it should be in.
    pub library: String,
    /// The symbol.
    pub symbol: String,
    /// `dlerror()`'s text, or why nothing was found.
    pub reason: String,
}

/// LP64 and ILP32 mangle `int64_t`/`uint64_t` differently (`l`/`m`, `x`/`y`).
#[cfg(target_pointer_width = "64")]
mod mangled {
    pub const SET_DRIVER_LOADED: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv15setDriverLoadedENS_12GpuStatsInfo3ApiEbl";
    pub const SET_TARGET_STATS: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv14setTargetStatsENS_12GpuStatsInfo5StatsEm";
}

#[cfg(not(target_pointer_width = "64"))]
mod mangled {
    pub const SET_DRIVER_LOADED: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv15setDriverLoadedENS_12GpuStatsInfo3ApiEbx";
    pub const SET_TARGET_STATS: &std::ffi::CStr =
        c"_ZN7android11GraphicsEnv14setTargetStatsENS_12GpuStatsInfo5StatsEy";
}

macro_rules! platform_functions {
    ($( $(#[$doc:meta])* $field:ident: $library:literal, $symbol:expr => $ty:ty; )*) => {
        /// Every platform function, resolved.
        #[derive(Debug, Clone, Copy)]
        pub struct PlatformFns {
            $( $(#[$doc])* pub $field: $ty, )*
        }

        /// Every lookup the Android build makes, in [`PlatformFns`]'s order.
        pub const LOOKUPS: &[Lookup] = &[
            $( Lookup { library: $library, symbol: $symbol, rust_type: stringify!($ty) }, )*
        ];

        impl PlatformFns {
            /// Every function from `find(library, symbol)` (null when absent); the first one
            /// missing is the error.
            pub fn resolve(
                mut find: impl FnMut(&CStr, &CStr) -> Result<*mut c_void, String>,
            ) -> Result<Self, MissingSymbol> {
                Ok(Self {
                    $( $field: {
                        let (library, symbol): (&CStr, &CStr) = ($library, $symbol);
                        let address = find(library, symbol).map_err(|reason| MissingSymbol {
                            library: library.to_string_lossy().into_owned(),
                            symbol: symbol.to_string_lossy().into_owned(),
                            reason,
                        })?;
                        if address.is_null() {
                            return Err(MissingSymbol {
                                library: library.to_string_lossy().into_owned(),
                                symbol: symbol.to_string_lossy().into_owned(),
                                reason: "dlsym returned null".into(),
                            });
                        }
                        // SAFETY: a non-null address of the function the row names, whose C
                        // type is the row's Rust type (`lookups_match_aosp_declarations`
                        // checks it against AOSP's declaration); both are pointer-sized.
                        unsafe { std::mem::transmute::<*mut c_void, $ty>(address) }
                    }, )*
                })
            }
        }
    };
}

platform_functions! {
    /// `android_load_sphal_library(name, flags)`.
    load_sphal: c"libvndksupport.so", c"android_load_sphal_library"
        => unsafe extern "C" fn(*const c_char, c_int) -> *mut c_void;
    /// `android_unload_sphal_library(handle)`.
    unload_sphal: c"libvndksupport.so", c"android_unload_sphal_library"
        => unsafe extern "C" fn(*mut c_void) -> c_int;
    /// `android_get_exported_namespace(name)`.
    get_exported_namespace: c"libdl_android.so", c"android_get_exported_namespace"
        => unsafe extern "C" fn(*const c_char) -> *mut c_void;
    /// `OpenNativeLibraryInNamespace(ns, path, &needs_native_bridge, &error)`.
    open_in_namespace: c"libnativeloader.so", c"OpenNativeLibraryInNamespace"
        => unsafe extern "C" fn(*mut c_void, *const c_char, *mut bool, *mut *mut c_char) -> *mut c_void;
    /// `NativeLoaderFreeErrorMessage(message)`.
    free_error: c"libnativeloader.so", c"NativeLoaderFreeErrorMessage"
        => unsafe extern "C" fn(*mut c_char);
    /// `CloseNativeLibrary(handle, needs_native_bridge, &error)`.
    close_native: c"libnativeloader.so", c"CloseNativeLibrary"
        => unsafe extern "C" fn(*mut c_void, bool, *mut *mut c_char) -> bool;
    /// `GraphicsEnv::getInstance()`: the process's singleton (`GraphicsEnv&`).
    graphics_env: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv11getInstanceEv"
        => unsafe extern "C" fn() -> *mut c_void;
    /// `GraphicsEnv::isDebuggable()`.
    is_debuggable: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv12isDebuggableEv"
        => unsafe extern "C" fn(*mut c_void) -> bool;
    /// `GraphicsEnv::getDriverNamespace()`.
    driver_namespace: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv18getDriverNamespaceEv"
        => unsafe extern "C" fn(*mut c_void) -> *mut c_void;
    /// `GraphicsEnv::setTargetStats(stats, value)`.
    set_target_stats: c"libgraphicsenv.so", mangled::SET_TARGET_STATS
        => unsafe extern "C" fn(*mut c_void, c_int, u64);
    /// `GraphicsEnv::setDriverToLoad(driver)`.
    set_driver_to_load: c"libgraphicsenv.so",
        c"_ZN7android11GraphicsEnv15setDriverToLoadENS_12GpuStatsInfo6DriverE"
        => unsafe extern "C" fn(*mut c_void, c_int);
    /// `GraphicsEnv::setDriverLoaded(api, loaded, time)`.
    set_driver_loaded: c"libgraphicsenv.so", mangled::SET_DRIVER_LOADED
        => unsafe extern "C" fn(*mut c_void, c_int, bool, i64);
    /// `GraphicsEnv::setVulkanInstanceExtensions(count, names)`.
    set_instance_extensions: c"libgraphicsenv.so",
        c"_ZN7android11GraphicsEnv27setVulkanInstanceExtensionsEjPKPKc"
        => unsafe extern "C" fn(*mut c_void, u32, *const *const c_char);
    /// `GraphicsEnv::setVulkanDeviceExtensions(count, names)`.
    set_device_extensions: c"libgraphicsenv.so",
        c"_ZN7android11GraphicsEnv25setVulkanDeviceExtensionsEjPKPKc"
        => unsafe extern "C" fn(*mut c_void, u32, *const *const c_char);
    /// `GraphicsEnv::addVulkanEngineName(name)`.
    add_engine_name: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv19addVulkanEngineNameEPKc"
        => unsafe extern "C" fn(*mut c_void, *const c_char);
    /// `GraphicsEnv::getAppNamespace()` (a `NativeLoaderNamespace*`).
    app_namespace: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv15getAppNamespaceEv"
        => unsafe extern "C" fn(*mut c_void) -> *mut c_void;
    /// `GraphicsEnv::getLayerPaths()`.
    layer_paths: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv13getLayerPathsEv"
        => unsafe extern "C" fn(*mut c_void) -> *const LibcxxString;
    /// `GraphicsEnv::getDebugLayers()`.
    debug_layers: c"libgraphicsenv.so", c"_ZN7android11GraphicsEnv14getDebugLayersEv"
        => unsafe extern "C" fn(*mut c_void) -> *const LibcxxString;
}

/// The last `dlerror()` text.
#[cfg(target_os = "android")]
pub fn dlerror() -> String {
    // SAFETY: dlerror returns null or a NUL-terminated thread-local string valid until the next
    // dl call on this thread; it is copied at once.
    let e = unsafe { libc::dlerror() };
    if e.is_null() {
        return "unknown dlerror".into();
    }
    // SAFETY: non-null (checked), NUL-terminated by dlerror's contract.
    unsafe { CStr::from_ptr(e) }.to_string_lossy().into_owned()
}

/// `name` from the process (`RTLD_DEFAULT`), else from `library` (`dlopen`ed and kept for the
/// process's life: the functions found in it are cached).
#[cfg(target_os = "android")]
fn dlsym(library: &CStr, name: &CStr) -> Result<*mut c_void, String> {
    // SAFETY: `name` is NUL-terminated; dlsym only reads it.
    let address = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if !address.is_null() {
        return Ok(address);
    }
    // SAFETY: a system library's initialisers are the platform's own; `library` is
    // NUL-terminated.
    let handle = unsafe { libc::dlopen(library.as_ptr(), libc::RTLD_NOW | libc::RTLD_LOCAL) };
    if handle.is_null() {
        return Err(dlerror());
    }
    // SAFETY: `handle` was just returned by dlopen; `name` is NUL-terminated.
    let address = unsafe { libc::dlsym(handle, name.as_ptr()) };
    if address.is_null() {
        return Err(dlerror());
    }
    Ok(address)
}

/// The platform's functions, resolved once; the error (logged to logcat the first time) names
/// the first one missing.
#[cfg(target_os = "android")]
pub fn platform() -> Result<&'static PlatformFns, &'static MissingSymbol> {
    static PLATFORM: std::sync::OnceLock<Result<PlatformFns, MissingSymbol>> =
        std::sync::OnceLock::new();
    PLATFORM
        .get_or_init(|| {
            let resolved = PlatformFns::resolve(dlsym);
            if let Err(e) = &resolved {
                log::error!("{e}: this process cannot use Vulkan");
            }
            resolved
        })
        .as_ref()
}

#[cfg(test)]
mod tests;
