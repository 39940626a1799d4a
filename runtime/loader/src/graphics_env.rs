//! `android::GraphicsEnv` as the loader reads it for layers: `isDebuggable()`, `getLayerPaths()`
//! and `getDebugLayers()` (`layers_extensions.cpp`'s `DiscoverLayers`, `api.cpp`'s
//! `OverrideLayerNames::GetLayersFromSettings` and `ForEachLayerFromSettings`).
//!
//! The framework sets these strings for the app before its first Vulkan call
//! ([`crate::layers::gpu_debug`]); the loader only splits them:
//! * layer dirs, in order: `/data/local/debug/vulkan` when `isDebuggable()`, then each `:` entry
//!   of `getLayerPaths()` — the GPU debug layer apps' dirs first (`nativeLibraryDir`, then
//!   `base.apk!/lib/<abi>`), then the app's native library dirs, including
//!   `base.apk!/lib/<abi>` when its libraries stay in the APK;
//! * debug layers: `getDebugLayers()` split at `:`.
//!
//! On Android (`AndroidGraphicsEnv`) these are GraphicsEnv's members, called through
//! [`crate::platform_symbols`]; the `const std::string&` they return is read in libc++'s layout.
//! On hosts ([`HostGraphicsEnv`]) the same strings are composed from the host stand-ins
//! (`VKGEN_APP_LAYER_PATH`, `VKGEN_SETTINGS`, `VKGEN_APP_PACKAGE`, `VKGEN_APP_DEBUGGABLE`) the way
//! the framework composes them, and [`RecordingGraphicsEnv`] records the calls the Android path
//! makes, so the tests that build a config through it see exactly what a device's loader asks.

use std::fmt;
use std::sync::Mutex;

#[cfg(not(target_os = "android"))]
use crate::host_env::{trusted_env, trusted_env_path};
use crate::layers::FrameworkSetup;
#[cfg(not(target_os = "android"))]
use crate::properties::Properties;

/// `:`-separated app library dirs searched for `libVkLayer*.so` (Android's `getLayerPaths()`).
pub const APP_LAYER_PATH_ENV: &str = "VKGEN_APP_LAYER_PATH";
/// Host stand-in for Android's `Settings.Global` (`key=value` lines): the GPU debug settings
/// `enable_gpu_debug_layers`, `gpu_debug_app`, `gpu_debug_layers`, `gpu_debug_layer_app`.
pub const SETTINGS_ENV: &str = "VKGEN_SETTINGS";
/// The package name of the running app (what `gpu_debug_app` is compared with).
pub const APP_PACKAGE_ENV: &str = "VKGEN_APP_PACKAGE";
/// `1` when the running app is debuggable (its manifest's `android:debuggable`).
pub const APP_DEBUGGABLE_ENV: &str = "VKGEN_APP_DEBUGGABLE";

/// The GraphicsEnv members the loader's layer code calls.
pub trait GraphicsEnv: Send + Sync + fmt::Debug {
    /// `isDebuggable()`: the process is dumpable (a debuggable app) or the build is debuggable.
    fn is_debuggable(&self) -> bool;
    /// `getLayerPaths()`: `:`-separated dirs, `<apk>!/<dir>` for a dir inside an APK.
    fn layer_paths(&self) -> String;
    /// `getDebugLayers()`: the `gpu_debug_layers` setting when it applies to this app, else empty.
    fn debug_layers(&self) -> String;
}

/// GraphicsEnv's members in libgraphicsenv; a process without them (logged, and initialisation
/// fails) reads as a release app with no layer paths.
#[cfg(target_os = "android")]
#[derive(Debug, Clone, Copy, Default)]
pub struct AndroidGraphicsEnv;

#[cfg(target_os = "android")]
impl AndroidGraphicsEnv {
    /// `GraphicsEnv::getInstance()` and the table, or `None`.
    fn instance() -> Option<(
        &'static crate::platform_symbols::PlatformFns,
        *mut std::ffi::c_void,
    )> {
        let p = crate::platform_symbols::platform().ok()?;
        // SAFETY: the singleton accessor takes no arguments and returns the process's instance.
        let env = unsafe { (p.graphics_env)() };
        (!env.is_null()).then_some((p, env))
    }

    fn string(
        member: impl FnOnce(
            &crate::platform_symbols::PlatformFns,
        ) -> unsafe extern "C" fn(
            *mut std::ffi::c_void,
        )
            -> *const crate::platform_symbols::LibcxxString,
    ) -> String {
        let Some((p, env)) = Self::instance() else {
            return String::new();
        };
        // SAFETY: a reference getter on the live singleton; it returns the address of a member
        // string, written once at app start and never freed.
        let s = unsafe { member(p)(env) };
        if s.is_null() {
            return String::new();
        }
        // SAFETY: a live libc++ string (the member above), read, never written or freed.
        String::from_utf8_lossy(&unsafe { (*s).to_bytes() }).into_owned()
    }
}

#[cfg(target_os = "android")]
impl GraphicsEnv for AndroidGraphicsEnv {
    fn is_debuggable(&self) -> bool {
        let Some((p, env)) = Self::instance() else {
            return false;
        };
        // SAFETY: a non-virtual member on the live singleton, taking only `this`.
        unsafe { (p.is_debuggable)(env) }
    }

    fn layer_paths(&self) -> String {
        Self::string(|p| p.layer_paths)
    }

    fn debug_layers(&self) -> String {
        Self::string(|p| p.debug_layers)
    }
}

/// The strings a host's framework stand-in set (see the module docs).
#[derive(Debug, Clone, Default)]
pub struct HostGraphicsEnv {
    debuggable: bool,
    layer_paths: String,
    debug_layers: String,
}

impl HostGraphicsEnv {
    /// What the framework sets for `setup`: debuggable when the app or the build is (a
    /// debuggable app is dumpable), and [`FrameworkSetup::layer_strings`].
    pub fn new(setup: &FrameworkSetup) -> Self {
        let (layer_paths, debug_layers) = setup.layer_strings();
        Self {
            debuggable: setup.app.debuggable || setup.build_debuggable,
            layer_paths,
            debug_layers,
        }
    }

    /// The host stand-ins: `VKGEN_APP_LAYER_PATH` (the app's library search path),
    /// `VKGEN_SETTINGS`, `VKGEN_APP_PACKAGE`, `VKGEN_APP_DEBUGGABLE`, under `root`.
    #[cfg(not(target_os = "android"))]
    pub fn from_env(properties: &Properties, root: &std::path::Path) -> Self {
        let settings = trusted_env_path(SETTINGS_ENV)
            .and_then(|path| match Properties::from_file(&path) {
                Ok(s) => Some(s),
                Err(e) => {
                    log::warn!(
                        "{}={}: cannot read ({e}); no settings",
                        SETTINGS_ENV,
                        path.display()
                    );
                    None
                }
            })
            .unwrap_or_else(Properties::empty);
        let setup = FrameworkSetup {
            settings,
            app: crate::layers::AppIdentity {
                // These select GPU debug layers, so they steer code loading like the paths.
                package: trusted_env(APP_PACKAGE_ENV).and_then(|p| p.into_string().ok()),
                debuggable: trusted_env(APP_DEBUGGABLE_ENV).is_some_and(|v| v == "1"),
            },
            build_debuggable: properties.is_debuggable(),
            root: root.to_path_buf(),
            library_search_path: trusted_env(APP_LAYER_PATH_ENV)
                .map(|v| v.to_string_lossy().into_owned())
                .unwrap_or_default(),
        };
        Self::new(&setup)
    }
}

impl GraphicsEnv for HostGraphicsEnv {
    fn is_debuggable(&self) -> bool {
        self.debuggable
    }

    fn layer_paths(&self) -> String {
        self.layer_paths.clone()
    }

    fn debug_layers(&self) -> String {
        self.debug_layers.clone()
    }
}

/// A [`GraphicsEnv`] that records each call (`member() -> value`) before answering from another.
#[derive(Debug)]
pub struct RecordingGraphicsEnv<E> {
    inner: E,
    calls: Mutex<Vec<String>>,
}

impl<E: GraphicsEnv> RecordingGraphicsEnv<E> {
    /// Records the calls `inner` gets.
    pub fn new(inner: E) -> Self {
        Self {
            inner,
            calls: Mutex::new(Vec::new()),
        }
    }

    /// The calls so far, and clears them.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn record(&self, call: String) {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(call);
    }
}

impl<E: GraphicsEnv> GraphicsEnv for RecordingGraphicsEnv<E> {
    fn is_debuggable(&self) -> bool {
        let v = self.inner.is_debuggable();
        self.record(format!("isDebuggable() -> {v}"));
        v
    }

    fn layer_paths(&self) -> String {
        let v = self.inner.layer_paths();
        self.record(format!("getLayerPaths() -> {v:?}"));
        v
    }

    fn debug_layers(&self) -> String {
        let v = self.inner.debug_layers();
        self.record(format!("getDebugLayers() -> {v:?}"));
        v
    }
}

#[cfg(test)]
mod tests;
