//! The GPU debug settings (`Settings.Global`), as `GraphicsEnvironment.setupGpuLayers` applies
//! them before the app's first Vulkan call: when the app is debuggable (or the build is),
//! `enable_gpu_debug_layers` is non-zero and `gpu_debug_app` names this app, then
//! `gpu_debug_layers` (`:`-separated) becomes `GraphicsEnv::getDebugLayers()` and the native
//! library dirs of the `gpu_debug_layer_app` packages join the layer search path.
//!
//! In the loader (`api.cpp`, `layers_extensions.cpp`) those layers take priority: when the
//! setting names any, the `debug.vulkan.*` properties are not read at all; they also are the
//! only implicit layers whose instance extensions `vkEnumerateInstanceExtensionProperties(NULL)`
//! lists.
//!
//! On Linux hosts `VKGEN_SETTINGS` is the settings file (`key=value`), `VKGEN_APP_PACKAGE` the
//! app's package and `VKGEN_APP_DEBUGGABLE=1` its debuggable flag; a package's native library dir
//! is `<root>/data/app/<package>/lib` (Android's `/data/app/<package>/lib/<abi>`).

use std::ffi::CString;
use std::path::{Path, PathBuf};

use crate::Properties;

/// Who the running app is, as far as the settings care.
#[derive(Debug, Clone, Default)]
pub struct AppIdentity {
    /// The package name; `None` when unknown (then no setting can target the app).
    pub package: Option<String>,
    /// `android:debuggable` of the app.
    pub debuggable: bool,
}

/// What the settings give this app.
#[derive(Debug, Clone, Default)]
pub struct GpuDebug {
    /// `gpu_debug_layers`, in order, without empty entries.
    pub layers: Vec<CString>,
    /// The `gpu_debug_layer_app` packages' library dirs, searched after the app's own.
    pub layer_dirs: Vec<PathBuf>,
}

impl GpuDebug {
    /// Applies `settings` to `app` on a device that is (`build_debuggable`) or is not a
    /// debuggable build.
    pub fn from_settings(
        settings: &Properties,
        app: &AppIdentity,
        build_debuggable: bool,
        root: &Path,
    ) -> GpuDebug {
        if !(app.debuggable || build_debuggable) {
            return GpuDebug::default();
        }
        let enabled = settings
            .get("enable_gpu_debug_layers")
            .and_then(|v| v.trim().parse::<i64>().ok())
            .is_some_and(|v| v != 0);
        let targeted = match (settings.get("gpu_debug_app"), &app.package) {
            (Some(want), Some(package)) => want.trim() == package,
            _ => false,
        };
        if !enabled || !targeted {
            return GpuDebug::default();
        }
        let layers = settings
            .get("gpu_debug_layers")
            .unwrap_or("")
            .split(':')
            .map(str::trim)
            .filter(|n| !n.is_empty())
            .filter_map(|n| CString::new(n).ok())
            .collect();
        let layer_dirs = settings
            .get("gpu_debug_layer_app")
            .unwrap_or("")
            .split(':')
            .map(str::trim)
            // A package name never holds a path separator; refuse ones that would escape.
            .filter(|p| !p.is_empty() && !p.contains('/') && *p != "..")
            .map(|p| root.join("data/app").join(p).join("lib"))
            .collect();
        GpuDebug { layers, layer_dirs }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn settings(pairs: &[(&str, &str)]) -> Properties {
        Properties::from_pairs(pairs.iter().copied())
    }

    fn app(debuggable: bool) -> AppIdentity {
        AppIdentity {
            package: Some("com.example.game".into()),
            debuggable,
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
        let root = Path::new("/r");
        let g = GpuDebug::from_settings(&settings(&ALL), &app(true), false, root);
        assert_eq!(g.layers, [c"VK_LAYER_A", c"VK_LAYER_B"]);
        assert_eq!(
            g.layer_dirs,
            [PathBuf::from("/r/data/app/com.example.layers/lib")]
        );
        // A release app on a user build: ignored (CtsRootlessGpuDebugHostTest).
        let g = GpuDebug::from_settings(&settings(&ALL), &app(false), false, root);
        assert!(g.layers.is_empty() && g.layer_dirs.is_empty());
        // A debuggable build lets any app be targeted.
        let g = GpuDebug::from_settings(&settings(&ALL), &app(false), true, root);
        assert_eq!(g.layers.len(), 2);
        // Another app, or the switch off: nothing.
        let mut other = ALL;
        other[1].1 = "com.example.other";
        assert!(
            GpuDebug::from_settings(&settings(&other), &app(true), false, root)
                .layers
                .is_empty()
        );
        let mut off = ALL;
        off[0].1 = "0";
        assert!(
            GpuDebug::from_settings(&settings(&off), &app(true), false, root)
                .layers
                .is_empty()
        );
    }

    #[test]
    fn layer_app_names_cannot_escape_the_app_dir() {
        let mut s = ALL;
        s[3].1 = "../../etc:a/b:..:ok.pkg";
        let g = GpuDebug::from_settings(&settings(&s), &app(true), false, Path::new("/r"));
        assert_eq!(g.layer_dirs, [PathBuf::from("/r/data/app/ok.pkg/lib")]);
    }
}
