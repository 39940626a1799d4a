//! Android's layer model: layer libraries found by file name, activated by name.
//!
//! There are no JSON manifests. [`discovery`] scans the app's library dirs (and, on debuggable
//! builds, `/data/local/debug/vulkan`, and the GPU debug settings' layer apps) for
//! `libVkLayer*.so`, opens each library and asks it which layers it contains through its exported
//! `vkEnumerate*` functions. [`activation`] turns the app's `ppEnabledLayerNames` plus the
//! [`gpu_debug`] settings or the `debug.vulkan.*` properties into an ordered list of those layers.
//!
//! The result is a [`LayerRegistry`] of [`Layer`]s. As AOSP's `LayerLibrary` does, discovery
//! opens each library, enumerates it and closes it again: the registry's layers are *closed*
//! (their properties and extension lists only). Activating a layer ([`Layer::open`]) opens its
//! library again and resolves its entry points; the opened layer keeps the library mapped (an
//! `Arc<LayerLibrary>` shared by the layers of one opening) as long as any `Arc<Layer>` of it
//! lives, so the last instance (and its devices) using a library unloads it: `dlopen` keeps the
//! count AOSP's `LayerLibrary::refcount_` keeps.
//! The instance/device chain builder only needs each layer's properties, extension lists and
//! `Get*ProcAddr` pointers, which is what [`Layer`] exposes.
//!
//! Files: [`library`] (one library and its [`Layer`]s), [`registry`] (what discovery found),
//! `error` ([`LayerError`]), `settings` ([`LayerSettings`]: what discovery reads); this file
//! only declares and re-exports.

pub mod activation;
#[cfg(test)]
pub(crate) mod apk_tests;
pub mod discovery;
mod entry_points;
mod error;
pub mod filters;
pub mod gpu_debug;
pub mod host;
pub mod library;
pub mod manifest;
pub mod pre_instance;
pub mod registry;
mod settings;

pub use activation::{activate, property_layer_names, requested_layer_names};
pub use discovery::{layer_files, search_dirs};
pub use entry_points::Negotiation;
pub use error::{map_layer_err, LayerError};
pub use gpu_debug::{AppIdentity, FrameworkSetup, GpuDebug};
pub use host::HostLayer;
pub use library::{load_layer_library, Layer, LayerLibrary};
pub use manifest::{HostLayers, LayerEnv};
pub use registry::LayerRegistry;
pub use settings::LayerSettings;

#[cfg(test)]
mod tests {
    use std::ffi::CString;
    use std::path::Path;

    use super::*;
    use crate::layers::discovery::tests::{app_config, build_layer, Fixture};
    use ash::vk;

    /// Whether `path` is mapped in this process (`RTLD_NOLOAD` opens nothing new).
    fn is_loaded(path: &Path) -> bool {
        let c = CString::new(path.to_str().unwrap()).unwrap();
        // SAFETY: RTLD_NOLOAD only looks the library up; a handle it returns is closed at once.
        unsafe {
            let h = libc::dlopen(c.as_ptr(), libc::RTLD_NOLOAD | libc::RTLD_NOW);
            if h.is_null() {
                return false;
            }
            libc::dlclose(h);
            true
        }
    }

    /// AOSP's `LayerLibrary` refcount: discovery opens a library to enumerate it and closes it;
    /// activation opens it again; it is unloaded when the last opened layer (the last instance
    /// using it) is gone.
    #[test]
    fn layer_libraries_are_closed_after_discovery_and_refcounted_when_active() {
        let dir = tempfile::tempdir().unwrap();
        let path = build_layer(
            dir.path(),
            "libVkLayer_rc.so",
            &Fixture {
                layers: &["VK_LAYER_test_rc1", "VK_LAYER_test_rc2"],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
        let registry = LayerRegistry::discover(&app_config(&[dir.path()]));
        assert_eq!(registry.len(), 2);
        assert!(!is_loaded(&path), "still mapped after discovery");
        let first = registry.find(c"VK_LAYER_test_rc1").unwrap().open().unwrap();
        assert!(is_loaded(&path));
        let second = registry.find(c"VK_LAYER_test_rc2").unwrap().open().unwrap();
        drop(first);
        assert!(is_loaded(&path), "unloaded while a layer still uses it");
        drop(second);
        assert!(!is_loaded(&path), "still mapped after its last user");
        // A library gone since discovery: its layer is no longer present.
        std::fs::remove_file(&path).unwrap();
        let e = registry
            .find(c"VK_LAYER_test_rc1")
            .unwrap()
            .open()
            .unwrap_err();
        assert_eq!(map_layer_err(&e), vk::Result::ERROR_LAYER_NOT_PRESENT);
    }
}
