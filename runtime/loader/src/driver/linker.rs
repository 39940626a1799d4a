//! Linker namespaces: how the loader asks the dynamic linker for a driver or a layer, as AOSP's
//! `driver.cpp` (`LoadDriver`, `Hal::UnloadBuiltinDriver`) and `layers_extensions.cpp`
//! (`LayerLibrary::Open`) do.
//!
//! | What | AOSP call | [`Linker`] method |
//! |---|---|---|
//! | built-in HAL | `android_load_sphal_library(name, RTLD_NOW \| RTLD_LOCAL)` | [`Linker::load_sphal_library`] |
//! | unloading it after a zygote preload | `android_unload_sphal_library(dso)` | [`Linker::unload_sphal_library`] |
//! | updatable driver | `GraphicsEnv::getDriverNamespace()`, then `android_dlopen_ext(name, …, ANDROID_DLEXT_USE_NAMESPACE)` | [`Linker::driver_namespace`], [`Linker::dlopen_ext`] |
//! | APEX driver | `android_get_exported_namespace(ro.vulkan.apex, . → _)`, then `android_dlopen_ext` | [`Linker::exported_namespace`], [`Linker::dlopen_ext`] |
//! | app layer | `OpenNativeLibraryInNamespace(GraphicsEnv::getAppNamespace(), path)` | [`Linker::open_in_app_namespace`] |
//! | `/data/local/debug/vulkan` layer, or no app namespace | `dlopen(path, RTLD_NOW \| RTLD_LOCAL)` | [`Linker::dlopen`] |
//!
//! An app layer path may name a dir inside the APK (`base.apk!/lib/<abi>/libVkLayer_x.so`): it is
//! opened the same way (bionic maps the entry); the host linker opens the entry's bytes instead.
//!
//! On Android (`AndroidLinker`) the platform functions are looked up at run time (`dlsym`), so
//! `libvulkan.so` still needs only liblog, libnativewindow, libdl and libc; a missing function
//! fails initialisation, naming it ([`Linker::platform_ready`], [`crate::platform_symbols`]). On
//! other hosts
//! ([`HostLinker`]) a namespace is a list of dirs on the configured root (the driver namespace is
//! the `VKGEN_UPDATABLE_DRIVER_DIR` setting, an APEX's is `<root>/apex/<ro.vulkan.apex>/lib64`,
//! sphal's is [`super::layout::sphal_dirs`]) and every open is a plain `dlopen`; tests wrap
//! it to record the calls.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use libloading::os::unix::Library;

use super::layout::{sphal_dirs, LIB};
use super::library::open_library;
use super::settings::DriverSettings;

pub mod interface;
pub use interface::{LinkError, Linker, LinkerNamespace, Opened};

/// AOSP's `kSystemLayerLibraryDir`: layers under it are opened with plain `dlopen`.
const SYSTEM_LAYER_LIBRARY_DIR: &str = "/data/local/debug/vulkan";

/// `LayerLibrary::Open`: an app namespace and a path outside `/data/local/debug/vulkan` (on
/// hosts: `<root>/data/local/debug/vulkan`) → the app's namespace, else `dlopen`. The test is
/// AOSP's string prefix, not a path-component one.
pub fn open_layer(linker: &dyn Linker, root: &Path, path: &Path) -> Result<Library, LinkError> {
    let debug_dir = if root == Path::new("/") {
        PathBuf::from(SYSTEM_LAYER_LIBRARY_DIR)
    } else {
        root.join(&SYSTEM_LAYER_LIBRARY_DIR[1..])
    };
    let in_debug_dir = path
        .to_string_lossy()
        .starts_with(&*debug_dir.to_string_lossy());
    let opened = match linker.app_namespace() {
        Some(ns) if !in_debug_dir => linker.open_in_app_namespace(&ns, path)?,
        _ => linker.dlopen(path)?,
    };
    Ok(opened.library)
}

/// The linker `settings` ask for: their test double when they have one, else the platform's.
pub fn for_settings(settings: &DriverSettings) -> Arc<dyn Linker> {
    if let Some(linker) = &settings.linker {
        return Arc::clone(linker);
    }
    #[cfg(target_os = "android")]
    {
        Arc::new(AndroidLinker)
    }
    #[cfg(not(target_os = "android"))]
    {
        Arc::new(HostLinker::new(settings))
    }
}

/// Namespaces as dirs on the configured root; every open a plain `dlopen` (see the module docs).
#[derive(Debug, Clone)]
pub struct HostLinker {
    driver_dir: Option<PathBuf>,
    /// `(namespace name, its dir)` for the APEX `ro.vulkan.apex` names.
    apex: Option<(String, PathBuf)>,
    sphal: Vec<PathBuf>,
}

impl HostLinker {
    /// The namespaces `config` describes.
    pub fn new(config: &DriverSettings) -> Self {
        let apex = config
            .properties
            .get("ro.vulkan.apex")
            .map(str::trim)
            .filter(|a| !a.is_empty() && !a.contains('/') && *a != "..")
            .map(|a| {
                (
                    a.replace('.', "_"),
                    config.hal_root.join("apex").join(a).join(LIB),
                )
            });
        Self {
            driver_dir: config.updatable_driver_dir.clone(),
            apex,
            sphal: sphal_dirs()
                .iter()
                .map(|d| config.hal_root.join(d))
                .collect(),
        }
    }

    /// The first of `dirs` holding a `name` that loads; every file tried is in the error.
    fn open_in_dirs(name: &str, dirs: &[PathBuf]) -> Result<Opened, LinkError> {
        let mut tried = Vec::new();
        let mut message = format!("{name}: not found");
        for dir in dirs {
            let path = dir.join(name);
            if !path.exists() {
                log::debug!("{}: no such file", path.display());
                tried.push(path);
                continue;
            }
            match open_library(&path) {
                Ok(library) => return Ok(Opened { library, path }),
                Err(e) => {
                    log::warn!("{}: dlopen failed: {e}", path.display());
                    message = e.to_string();
                    tried.push(path);
                }
            }
        }
        Err(LinkError::new(message, tried))
    }
}

impl Linker for HostLinker {
    fn driver_namespace(&self) -> Option<LinkerNamespace> {
        let dir = self.driver_dir.clone()?;
        Some(LinkerNamespace {
            name: "updatable gfx driver".into(),
            raw: 0,
            dirs: vec![dir],
        })
    }

    fn exported_namespace(&self, name: &str) -> Option<LinkerNamespace> {
        let (apex, dir) = self.apex.as_ref()?;
        (apex == name).then(|| LinkerNamespace {
            name: name.to_owned(),
            raw: 0,
            dirs: vec![dir.clone()],
        })
    }

    fn dlopen_ext(&self, name: &str, ns: &LinkerNamespace) -> Result<Opened, LinkError> {
        Self::open_in_dirs(name, &ns.dirs)
    }

    fn load_sphal_library(&self, name: &str) -> Result<Opened, LinkError> {
        Self::open_in_dirs(name, &self.sphal)
    }

    fn unload_sphal_library(&self, library: Library) {
        if let Err(e) = library.close() {
            log::warn!("unloading the built-in driver: {e}");
        }
    }

    fn app_namespace(&self) -> Option<LinkerNamespace> {
        // A host process has one namespace, which is the app's.
        Some(LinkerNamespace {
            name: "app".into(),
            raw: 0,
            dirs: Vec::new(),
        })
    }

    fn open_in_app_namespace(
        &self,
        _ns: &LinkerNamespace,
        path: &Path,
    ) -> Result<Opened, LinkError> {
        self.dlopen(path)
    }

    fn dlopen(&self, path: &Path) -> Result<Opened, LinkError> {
        // bionic maps an `apk!/` entry itself; glibc cannot, so the host stand-in opens the
        // entry's bytes (`crate::apk`).
        let library = if crate::apk::split(path).is_some() {
            crate::apk::open(path).map_err(|message| LinkError {
                message,
                tried: vec![path.to_path_buf()],
            })?
        } else {
            open_library(path).map_err(|e| LinkError {
                message: e.to_string(),
                tried: vec![path.to_path_buf()],
            })?
        };
        Ok(Opened {
            library,
            path: path.to_path_buf(),
        })
    }
}

#[cfg(target_os = "android")]
pub use android::AndroidLinker;

#[cfg(target_os = "android")]
mod android;

/// A [`Linker`] that records every call before handing it to [`HostLinker`], for tests (the
/// loader's and a driver kit's) that assert AOSP's exact call sequence.
#[derive(Debug)]
pub struct RecordingLinker {
    inner: HostLinker,
    calls: std::sync::Mutex<Vec<String>>,
    /// What [`Linker::platform_ready`] answers: a device missing a platform function.
    missing: Option<crate::platform_symbols::MissingSymbol>,
}

impl RecordingLinker {
    /// Records the calls a [`HostLinker`] for `config` would get.
    pub fn new(config: &DriverSettings) -> Self {
        Self {
            inner: HostLinker::new(config),
            calls: std::sync::Mutex::new(Vec::new()),
            missing: None,
        }
    }

    /// As a device whose platform lacks `missing` (the Android table's resolution error).
    pub fn missing_platform_symbol(
        mut self,
        missing: crate::platform_symbols::MissingSymbol,
    ) -> Self {
        self.missing = Some(missing);
        self
    }

    /// The calls so far, each as `function(arguments) -> outcome`, and clears them.
    pub fn take(&self) -> Vec<String> {
        std::mem::take(&mut *self.calls.lock().unwrap_or_else(|p| p.into_inner()))
    }

    fn record(&self, call: String) {
        self.calls
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(call);
    }

    fn outcome(r: &Result<Opened, LinkError>) -> &'static str {
        if r.is_ok() {
            "loaded"
        } else {
            "null"
        }
    }

    /// The file name only: the temporary root a test builds in differs from run to run.
    fn shown(path: &Path) -> String {
        path.file_name().map_or_else(
            || path.display().to_string(),
            |n| n.to_string_lossy().into(),
        )
    }
}

impl Linker for RecordingLinker {
    fn platform_ready(&self) -> Result<(), String> {
        match &self.missing {
            Some(missing) => Err(missing.to_string()),
            None => Ok(()),
        }
    }

    fn driver_namespace(&self) -> Option<LinkerNamespace> {
        let ns = self.inner.driver_namespace();
        self.record(format!(
            "getDriverNamespace() -> {}",
            ns.as_ref().map_or("null", |n| n.name.as_str())
        ));
        ns
    }

    fn exported_namespace(&self, name: &str) -> Option<LinkerNamespace> {
        let ns = self.inner.exported_namespace(name);
        self.record(format!(
            "android_get_exported_namespace({name}) -> {}",
            if ns.is_some() { "ns" } else { "null" }
        ));
        ns
    }

    fn dlopen_ext(&self, name: &str, ns: &LinkerNamespace) -> Result<Opened, LinkError> {
        let r = self.inner.dlopen_ext(name, ns);
        self.record(format!(
            "android_dlopen_ext({name}, USE_NAMESPACE {}) -> {}",
            ns.name,
            Self::outcome(&r)
        ));
        r
    }

    fn load_sphal_library(&self, name: &str) -> Result<Opened, LinkError> {
        let r = self.inner.load_sphal_library(name);
        self.record(format!(
            "android_load_sphal_library({name}) -> {}",
            Self::outcome(&r)
        ));
        r
    }

    fn unload_sphal_library(&self, library: Library) {
        self.record("android_unload_sphal_library(dso)".into());
        self.inner.unload_sphal_library(library);
    }

    fn app_namespace(&self) -> Option<LinkerNamespace> {
        self.inner.app_namespace()
    }

    fn open_in_app_namespace(
        &self,
        ns: &LinkerNamespace,
        path: &Path,
    ) -> Result<Opened, LinkError> {
        let r = self.inner.open_in_app_namespace(ns, path);
        self.record(format!(
            "OpenNativeLibraryInNamespace({}, {}) -> {}",
            ns.name,
            Self::shown(path),
            Self::outcome(&r)
        ));
        r
    }

    fn dlopen(&self, path: &Path) -> Result<Opened, LinkError> {
        let r = self.inner.dlopen(path);
        self.record(format!(
            "dlopen({}) -> {}",
            Self::shown(path),
            Self::outcome(&r)
        ));
        r
    }
}
