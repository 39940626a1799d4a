//! The GPU debug settings (`Settings.Global`): what the loader takes from them, and on hosts
//! the framework's side that turns them into GraphicsEnv's strings.
//!
//! On a device the framework does the work before the app's first Vulkan call. `LoadedApk`
//! appends each `gpu_debug_layer_app` package's `nativeLibraryDir:sourceDir!/lib/<abi>:` to the
//! app's permitted library path when `gpu_debug_app` names this app; `GraphicsEnvironment.
//! setupGpuLayers` then, when the app is debuggable (or the build is) and
//! `enable_gpu_debug_layers` is non-zero and `gpu_debug_app` names this app, starts the layer
//! path with that permitted path and hands `gpu_debug_layers` to `GraphicsEnv::setDebugLayers`;
//! it always appends the app's native library search path (with no separator added). The loader
//! reads the result through `GraphicsEnv::getLayerPaths()` and `getDebugLayers()`
//! ([`crate::graphics_env`]): the layer apps' dirs come first, before the app's own.
//!
//! In the loader (`api.cpp`, `layers_extensions.cpp`) the debug layers take priority: when the
//! setting names any, the `debug.vulkan.*` properties are not read at all; they also are the
//! only implicit layers whose instance extensions `vkEnumerateInstanceExtensionProperties(NULL)`
//! lists.
//!
//! On Linux hosts ([`FrameworkSetup`]) `VKGEN_SETTINGS` is the settings file (`key=value`),
//! `VKGEN_APP_PACKAGE` the app's package and `VKGEN_APP_DEBUGGABLE=1` its debuggable flag; a
//! package's `nativeLibraryDir` is `<root>/data/app/<package>/lib` and its `sourceDir`
//! `<root>/data/app/<package>/base.apk` (Android's `/data/app/<package>/lib/<abi>` and
//! `.../base.apk`).

use std::ffi::CString;
use std::path::PathBuf;

use crate::properties::Properties;

/// Who the running app is, as far as the settings care.
#[derive(Debug, Clone, Default)]
pub struct AppIdentity {
    /// The package name; `None` when unknown (then no setting can target the app).
    pub package: Option<String>,
    /// `android:debuggable` of the app.
    pub debuggable: bool,
}

/// What `getDebugLayers()` gives the loader.
#[derive(Debug, Clone, Default)]
pub struct GpuDebug {
    /// `gpu_debug_layers`, split at `:` as `android::base::Split` does (no trimming); an empty
    /// name is dropped, as it matches no layer there either.
    pub layers: Vec<CString>,
}

impl GpuDebug {
    /// The layers of `GraphicsEnv::getDebugLayers()`'s string.
    pub fn from_debug_layers(setting: &str) -> GpuDebug {
        let layers = setting
            .split(':')
            .filter(|n| !n.is_empty())
            .filter_map(|n| CString::new(n).ok())
            .collect();
        GpuDebug { layers }
    }
}

/// The Android ABI name of this build's libraries (`lib/<abi>` in an APK).
pub const ABI: &str = if cfg!(target_arch = "aarch64") {
    "arm64-v8a"
} else if cfg!(target_arch = "x86_64") {
    "x86_64"
} else if cfg!(target_arch = "arm") {
    "armeabi-v7a"
} else {
    "x86"
};

/// The framework's inputs on hosts: what `LoadedApk` and `setupGpuLayers` read.
#[derive(Debug, Clone, Default)]
pub struct FrameworkSetup {
    /// `Settings.Global` (the four GPU debug keys).
    pub settings: Properties,
    /// The running app.
    pub app: AppIdentity,
    /// `ro.debuggable`: a debuggable build lets the settings target any app.
    pub build_debuggable: bool,
    /// The root the packages' dirs are under.
    pub root: PathBuf,
    /// The app's native library search path (`:`-separated, `!/` entries for libraries kept in
    /// the APK), appended to the layer path as it is.
    pub library_search_path: String,
}

impl FrameworkSetup {
    /// Whether `setupGpuLayers` applies the settings to this app.
    fn targets_app(&self) -> bool {
        if !(self.app.debuggable || self.build_debuggable) {
            return false;
        }
        let enabled = self
            .settings
            .get("enable_gpu_debug_layers")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .is_some_and(|v| v != 0);
        let targeted = match (self.settings.get("gpu_debug_app"), &self.app.package) {
            (Some(want), Some(package)) => want == package,
            _ => false,
        };
        enabled && targeted
    }

    /// `getDebugLayerPathsFromSettings()`: each layer app's `nativeLibraryDir:sourceDir!/lib/<abi>:`.
    fn debug_layer_paths(&self) -> String {
        let mut paths = String::new();
        for package in self
            .settings
            .get("gpu_debug_layer_app")
            .unwrap_or("")
            .split(':')
        {
            // A package name never holds a path separator; refuse ones that would escape.
            if package.is_empty() || package.contains('/') || package == ".." {
                continue;
            }
            let dir = self.root.join("data/app").join(package);
            paths.push_str(&format!(
                "{}:{}!/lib/{ABI}:",
                dir.join("lib").display(),
                dir.join("base.apk").display()
            ));
        }
        paths
    }

    /// `(getLayerPaths(), getDebugLayers())` as the framework sets them for this app.
    pub fn layer_strings(&self) -> (String, String) {
        if !self.targets_app() {
            return (self.library_search_path.clone(), String::new());
        }
        let layers = self
            .settings
            .get("gpu_debug_layers")
            .unwrap_or("")
            .to_owned();
        (
            format!("{}{}", self.debug_layer_paths(), self.library_search_path),
            layers,
        )
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn setup(pairs: &[(&str, &str)], debuggable: bool) -> FrameworkSetup {
        FrameworkSetup {
            settings: Properties::from_pairs(pairs.iter().copied()),
            app: AppIdentity {
                package: Some("com.example.game".into()),
                debuggable,
            },
            build_debuggable: false,
            root: PathBuf::from("/r"),
            library_search_path: "/r/data/app/com.example.game/lib".into(),
        }
    }

    const ALL: [(&str, &str); 4] = [
        ("enable_gpu_debug_layers", "1"),
        ("gpu_debug_app", "com.example.game"),
        ("gpu_debug_layers", "VK_LAYER_A:VK_LAYER_B"),
        ("gpu_debug_layer_app", "com.example.layers"),
    ];

    #[test]
    fn settings_apply_to_the_debuggable_target_app_only() {
        let (paths, layers) = setup(&ALL, true).layer_strings();
        // The layer app's dirs first, then the app's own search path.
        assert_eq!(
            paths,
            format!(
                "/r/data/app/com.example.layers/lib:\
                 /r/data/app/com.example.layers/base.apk!/lib/{ABI}:\
                 /r/data/app/com.example.game/lib"
            )
        );
        assert_eq!(layers, "VK_LAYER_A:VK_LAYER_B");
        // A release app on a user build: ignored (CtsRootlessGpuDebugHostTest).
        let (paths, layers) = setup(&ALL, false).layer_strings();
        assert_eq!(paths, "/r/data/app/com.example.game/lib");
        assert!(layers.is_empty());
        // A debuggable build lets any app be targeted.
        let mut s = setup(&ALL, false);
        s.build_debuggable = true;
        assert_eq!(s.layer_strings().1, "VK_LAYER_A:VK_LAYER_B");
        // Another app, or the switch off: nothing.
        let mut other = ALL;
        other[1].1 = "com.example.other";
        assert!(setup(&other, true).layer_strings().1.is_empty());
        let mut off = ALL;
        off[0].1 = "0";
        assert!(setup(&off, true).layer_strings().1.is_empty());
    }

    #[test]
    fn layer_app_names_cannot_escape_the_app_dir() {
        let mut s = ALL;
        s[3].1 = "../../etc:a/b:..:ok.pkg";
        let (paths, _) = setup(&s, true).layer_strings();
        assert!(paths.starts_with("/r/data/app/ok.pkg/lib:"), "{paths}");
        assert!(!paths.contains("etc"), "{paths}");
    }

    #[test]
    fn debug_layer_names_are_split_without_trimming() {
        // `android::base::Split`: " VK_LAYER_B" keeps its space (and so matches no layer).
        let g = GpuDebug::from_debug_layers("VK_LAYER_A: VK_LAYER_B::");
        assert_eq!(g.layers, [c"VK_LAYER_A", c" VK_LAYER_B"]);
    }
}
