//! [`super::interface::Linker`] on Android: bionic's and the platform's namespace functions.
//!
//! `android_dlopen_ext` is libdl's (already `DT_NEEDED`). The others live in platform libraries
//! libvulkan must not depend on at link time (libvndksupport, libdl_android, libgraphicsenv,
//! libnativeloader: a vendor or NDK-built copy of this loader does not have them), so they are
//! looked up when first needed, first among the libraries the process already has
//! (`RTLD_DEFAULT`: an app process has all of them) and then by `dlopen`ing their library
//! ([`crate::platform_symbols`]). A function that cannot be found is an error naming it (in
//! logcat, and initialisation fails), never a call that quietly "returned null".

use std::ffi::{c_char, c_int, c_void, CStr, CString};
use std::os::unix::ffi::OsStrExt;
use std::path::{Path, PathBuf};

use libloading::os::unix::Library;

use super::interface::{LinkError, Linker, LinkerNamespace, Opened};
use crate::platform_symbols::{dlerror, PlatformFns};

/// bionic's `android_dlextinfo` (`<android/dlext.h>`).
#[repr(C)]
struct AndroidDlextinfo {
    flags: u64,
    reserved_addr: *mut c_void,
    reserved_size: usize,
    relro_fd: c_int,
    library_fd: c_int,
    library_fd_offset: i64,
    library_namespace: *mut c_void,
}

const ANDROID_DLEXT_USE_NAMESPACE: u64 = 0x200;

extern "C" {
    fn android_dlopen_ext(
        filename: *const c_char,
        flags: c_int,
        extinfo: *const AndroidDlextinfo,
    ) -> *mut c_void;
}

/// The platform's functions, or the error naming the one missing, as a [`LinkError`].
fn platform(what: &str) -> Result<&'static PlatformFns, LinkError> {
    crate::platform_symbols::platform()
        .map_err(|e| LinkError::new(e.to_string(), vec![PathBuf::from(what)]))
}

fn c_string(s: &[u8]) -> Result<CString, LinkError> {
    CString::new(s).map_err(|_| LinkError::new("name contains a NUL byte", Vec::new()))
}

/// A handle bionic returned as a [`Library`] (whose drop `dlclose`s it), or the error.
fn opened(
    handle: *mut c_void,
    what: &[u8],
    error: impl FnOnce() -> String,
) -> Result<Opened, LinkError> {
    let path = PathBuf::from(std::ffi::OsStr::from_bytes(what));
    if handle.is_null() {
        return Err(LinkError::new(error(), vec![path]));
    }
    // SAFETY: `handle` is a live dlopen handle (all of android_dlopen_ext,
    // android_load_sphal_library, OpenNativeLibraryInNamespace for a non-bridged library and
    // dlopen return those) owned by nobody else.
    let library = unsafe { Library::from_raw(handle) };
    Ok(Opened { library, path })
}

/// `GraphicsEnv::getInstance().<member>()`; `None` also when the platform lacks a function
/// (already logged by [`crate::platform_symbols::platform`], and initialisation fails).
fn graphics_env_namespace(
    member: impl FnOnce(&PlatformFns) -> unsafe extern "C" fn(*mut c_void) -> *mut c_void,
    name: &str,
) -> Option<LinkerNamespace> {
    let p = crate::platform_symbols::platform().ok()?;
    // SAFETY: the singleton accessor takes no arguments and returns the process's instance.
    let env = unsafe { (p.graphics_env)() };
    if env.is_null() {
        return None;
    }
    // SAFETY: a non-virtual getter called on the live singleton it belongs to.
    let ns = unsafe { member(p)(env) };
    (!ns.is_null()).then(|| LinkerNamespace {
        name: name.into(),
        raw: ns as usize,
        dirs: Vec::new(),
    })
}

/// The Android [`Linker`].
#[derive(Debug, Clone, Copy, Default)]
pub struct AndroidLinker;

const LIB_DL_FLAGS: c_int = libc::RTLD_NOW | libc::RTLD_LOCAL;

impl Linker for AndroidLinker {
    fn platform_ready(&self) -> Result<(), String> {
        crate::platform_symbols::platform()
            .map(|_| ())
            .map_err(|e| e.to_string())
    }

    fn driver_namespace(&self) -> Option<LinkerNamespace> {
        graphics_env_namespace(|p| p.driver_namespace, "updatable gfx driver")
    }

    fn exported_namespace(&self, name: &str) -> Option<LinkerNamespace> {
        let get = crate::platform_symbols::platform()
            .ok()?
            .get_exported_namespace;
        let c_name = c_string(name.as_bytes()).ok()?;
        // SAFETY: the linker's lookup by NUL-terminated name; it returns null or a namespace.
        let ns = unsafe { get(c_name.as_ptr()) };
        (!ns.is_null()).then(|| LinkerNamespace {
            name: name.into(),
            raw: ns as usize,
            dirs: Vec::new(),
        })
    }

    fn dlopen_ext(&self, name: &str, ns: &LinkerNamespace) -> Result<Opened, LinkError> {
        let c_name = c_string(name.as_bytes())?;
        let info = AndroidDlextinfo {
            flags: ANDROID_DLEXT_USE_NAMESPACE,
            reserved_addr: std::ptr::null_mut(),
            reserved_size: 0,
            relro_fd: 0,
            library_fd: 0,
            library_fd_offset: 0,
            library_namespace: ns.raw as *mut c_void,
        };
        // SAFETY: `ns.raw` came from getDriverNamespace or android_get_exported_namespace,
        // which return namespaces that live for the process; `info` and the name outlive the call.
        let handle = unsafe { android_dlopen_ext(c_name.as_ptr(), LIB_DL_FLAGS, &info) };
        opened(handle, name.as_bytes(), dlerror)
    }

    fn load_sphal_library(&self, name: &str) -> Result<Opened, LinkError> {
        let load = platform(name)?.load_sphal;
        let c_name = c_string(name.as_bytes())?;
        // SAFETY: libvndksupport's loader, called with a NUL-terminated name and dlopen flags.
        let handle = unsafe { load(c_name.as_ptr(), LIB_DL_FLAGS) };
        opened(handle, name.as_bytes(), dlerror)
    }

    fn unload_sphal_library(&self, library: Library) {
        let Ok(p) = crate::platform_symbols::platform() else {
            // Unreachable in practice: the library came from android_load_sphal_library, which
            // the same table provided. Dropping it closes it.
            drop(library);
            return;
        };
        let unload = p.unload_sphal;
        let handle = library.into_raw();
        // SAFETY: `handle` is the sphal library's handle, given up by `into_raw` so that it is
        // closed exactly once, here.
        if unsafe { unload(handle) } != 0 {
            log::warn!("android_unload_sphal_library failed: {}", dlerror());
        }
    }

    fn app_namespace(&self) -> Option<LinkerNamespace> {
        graphics_env_namespace(|p| p.app_namespace, "app")
    }

    fn open_in_app_namespace(
        &self,
        ns: &LinkerNamespace,
        path: &Path,
    ) -> Result<Opened, LinkError> {
        let bytes = path.as_os_str().as_bytes();
        let p = platform(&path.to_string_lossy())?;
        let open = p.open_in_namespace;
        let c_path = c_string(bytes)?;
        let mut native_bridge = false;
        let mut error: *mut c_char = std::ptr::null_mut();
        // SAFETY: `ns.raw` is the app's NativeLoaderNamespace from GraphicsEnv, live for the
        // process; the out-pointers are valid locals.
        let handle = unsafe {
            open(
                ns.raw as *mut c_void,
                c_path.as_ptr(),
                &mut native_bridge,
                &mut error,
            )
        };
        let message = if error.is_null() {
            "OpenNativeLibraryInNamespace failed".to_owned()
        } else {
            // SAFETY: a NUL-terminated message the native loader allocated; copied before it is
            // freed below.
            let m = unsafe { CStr::from_ptr(error) }
                .to_string_lossy()
                .into_owned();
            // SAFETY: the message the call above allocated, freed once.
            unsafe { (p.free_error)(error) };
            m
        };
        if !handle.is_null() && native_bridge {
            // A bridged library's symbols need NativeBridgeGetTrampoline, which vkgen does not
            // call: the layer is treated as absent rather than dlsym'd wrongly.
            // SAFETY: the handle just opened, closed once, with the bridge flag it came with.
            unsafe { (p.close_native)(handle, true, std::ptr::null_mut()) };
            return Err(LinkError::new(
                "a native-bridge (translated ABI) layer is not supported",
                vec![path.to_path_buf()],
            ));
        }
        opened(handle, bytes, || message)
    }

    fn dlopen(&self, path: &Path) -> Result<Opened, LinkError> {
        let library = crate::driver::library::open_library(path)
            .map_err(|e| LinkError::new(e.to_string(), vec![path.to_path_buf()]))?;
        Ok(Opened {
            library,
            path: path.to_path_buf(),
        })
    }
}
