//! What the loader asks the dynamic linker ([`Linker`], see `super`'s table of AOSP calls) and
//! what it gets back: the types every linker (`super::HostLinker`, `super::AndroidLinker`,
//! `super::RecordingLinker`) and every caller (the HAL search, layer discovery) share.

use std::fmt;
use std::path::{Path, PathBuf};

use libloading::os::unix::Library;

/// A linker namespace: AOSP's `android_namespace_t*` (or the app's `NativeLoaderNamespace*`).
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct LinkerNamespace {
    /// For logs: "updatable gfx driver", the APEX namespace name, "app".
    pub name: String,
    /// The platform's namespace pointer (0 on hosts).
    pub raw: usize,
    /// The namespace's search path on hosts (empty on Android, where the linker knows it).
    pub dirs: Vec<PathBuf>,
}

/// Why the linker did not load a library; `tried` lists what was looked at, for
/// `HalError::NotFound`.
#[derive(Debug, Clone, thiserror::Error)]
#[error("{message}")]
pub struct LinkError {
    /// `dlerror()`'s text, or why nothing was tried.
    pub message: String,
    /// The files (hosts) or names (Android) that were tried.
    pub tried: Vec<PathBuf>,
}

impl LinkError {
    pub(super) fn new(message: impl Into<String>, tried: Vec<PathBuf>) -> Self {
        Self {
            message: message.into(),
            tried,
        }
    }
}

impl From<libloading::Error> for LinkError {
    fn from(e: libloading::Error) -> Self {
        Self::new(e.to_string(), Vec::new())
    }
}

/// A library the linker loaded and where it came from (a file on hosts, a name on Android).
#[derive(Debug)]
pub struct Opened {
    /// The library; dropping it `dlclose`s it.
    pub library: Library,
    /// What was loaded, for logs and `HalDriver::path`.
    pub path: PathBuf,
}

/// The dynamic-linker calls the loader makes (see the module docs for the AOSP call each stands
/// for).
pub trait Linker: Send + Sync + fmt::Debug {
    /// Whether every platform function the loader calls is there: on Android the
    /// [`crate::platform_symbols`] table, whose first missing name is the error (AOSP's libvulkan
    /// links those libraries, so without one it would not load at all). Hosts have none to miss.
    fn platform_ready(&self) -> Result<(), String> {
        Ok(())
    }
    /// `GraphicsEnv::getDriverNamespace()`: set when this app uses the updatable driver.
    fn driver_namespace(&self) -> Option<LinkerNamespace>;
    /// `android_get_exported_namespace(name)`.
    fn exported_namespace(&self, name: &str) -> Option<LinkerNamespace>;
    /// `android_dlopen_ext(name, RTLD_NOW | RTLD_LOCAL, {ANDROID_DLEXT_USE_NAMESPACE, ns})`.
    fn dlopen_ext(&self, name: &str, ns: &LinkerNamespace) -> Result<Opened, LinkError>;
    /// `android_load_sphal_library(name, RTLD_NOW | RTLD_LOCAL)`.
    fn load_sphal_library(&self, name: &str) -> Result<Opened, LinkError>;
    /// `android_unload_sphal_library(handle)`.
    fn unload_sphal_library(&self, library: Library);
    /// `GraphicsEnv::getAppNamespace()`.
    fn app_namespace(&self) -> Option<LinkerNamespace>;
    /// `OpenNativeLibraryInNamespace(ns, path, &needs_native_bridge, &error)`.
    fn open_in_app_namespace(&self, ns: &LinkerNamespace, path: &Path)
        -> Result<Opened, LinkError>;
    /// `dlopen(path, RTLD_NOW | RTLD_LOCAL)`.
    fn dlopen(&self, path: &Path) -> Result<Opened, LinkError>;
}
