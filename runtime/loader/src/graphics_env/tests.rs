//! GraphicsEnv's layer strings as the loader uses them, through the host double: the calls the
//! Android path makes, the search order they give, and how the layers they name are opened.

use std::path::{Path, PathBuf};
use std::sync::Arc;

use super::{GraphicsEnv, HostGraphicsEnv, RecordingGraphicsEnv};
use crate::config::LoaderConfig;
use crate::driver::linker::RecordingLinker;
use crate::layers::apk_tests::write_apk;
use crate::layers::discovery::tests::{build_layer, Fixture};
use crate::layers::discovery::DEBUG_LAYER_DIR;
use crate::layers::gpu_debug::ABI;
use crate::layers::{search_dirs, AppIdentity, FrameworkSetup, LayerRegistry};
use crate::properties::Properties;
use crate::testutil::isolated_config;

const GAME: &str = "com.example.game";
const LAYERS_APP: &str = "com.example.layers";

/// A debuggable `com.example.game` whose libraries stay in its APK, with the GPU debug settings
/// naming `VK_LAYER_A` from `com.example.layers`.
fn setup(root: &Path, debuggable: bool) -> FrameworkSetup {
    let game = root.join("data/app").join(GAME);
    FrameworkSetup {
        settings: Properties::from_pairs([
            ("enable_gpu_debug_layers", "1"),
            ("gpu_debug_app", GAME),
            ("gpu_debug_layers", "VK_LAYER_A"),
            ("gpu_debug_layer_app", LAYERS_APP),
        ]),
        app: AppIdentity {
            package: Some(GAME.into()),
            debuggable,
        },
        build_debuggable: false,
        root: root.to_path_buf(),
        library_search_path: format!(
            "{}:{}!/lib/{ABI}",
            game.join("lib").display(),
            game.join("base.apk").display()
        ),
    }
}

fn config_through(root: &Path, env: &dyn GraphicsEnv) -> LoaderConfig {
    isolated_config(root).with_graphics_env(env)
}

#[test]
fn layer_dirs_are_graphics_envs_in_aosp_order() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let env = RecordingGraphicsEnv::new(HostGraphicsEnv::new(&setup(r, true)));
    let config = config_through(r, &env);
    let app = |pkg: &str| r.join("data/app").join(pkg);
    let layer_paths = format!(
        "{}:{}!/lib/{ABI}:{}:{}!/lib/{ABI}",
        app(LAYERS_APP).join("lib").display(),
        app(LAYERS_APP).join("base.apk").display(),
        app(GAME).join("lib").display(),
        app(GAME).join("base.apk").display(),
    );
    // `DiscoverLayers`: isDebuggable(), then getLayerPaths(); then the settings' layers.
    assert_eq!(
        env.take(),
        [
            "isDebuggable() -> true".to_owned(),
            format!("getLayerPaths() -> {layer_paths:?}"),
            "getDebugLayers() -> \"VK_LAYER_A\"".to_owned(),
        ]
    );
    // The debug dir, the layer app's dirs (its APK's included), then the app's own.
    let mut expected = vec![r.join(DEBUG_LAYER_DIR)];
    expected.extend(layer_paths.split(':').map(PathBuf::from));
    assert_eq!(search_dirs(&config.layer_settings()), expected);
    assert_eq!(config.gpu_debug.layers, [c"VK_LAYER_A"]);

    // A release app on a user build: no debug dir, no settings, its own dirs only.
    let env = RecordingGraphicsEnv::new(HostGraphicsEnv::new(&setup(r, false)));
    let config = config_through(r, &env);
    assert_eq!(
        search_dirs(&config.layer_settings()),
        [
            app(GAME).join("lib"),
            PathBuf::from(format!(
                "{}!/lib/{ABI}",
                app(GAME).join("base.apk").display()
            ))
        ]
    );
    assert!(config.gpu_debug.layers.is_empty());
    assert_eq!(env.take()[0], "isDebuggable() -> false");
}

/// The NDK workflow: `libVkLayer_*.so` in the APK's `jniLibs`, kept uncompressed in the APK. It
/// is found through `getLayerPaths()`'s `base.apk!/lib/<abi>` entry and opened, like every app
/// layer, with `OpenNativeLibraryInNamespace` in the app's namespace, never plain `dlopen`.
#[test]
fn apk_layers_open_in_the_app_namespace() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    let game = r.join("data/app").join(GAME);
    std::fs::create_dir_all(game.join("lib")).unwrap();
    let lib = build_layer(
        &game.join("lib"),
        "libVkLayer_in_apk.so",
        &Fixture {
            layers: &["VK_LAYER_test_in_apk"],
            generic_gpa: true,
            ..Fixture::default()
        },
    );
    write_apk(
        &game.join("base.apk"),
        &lib,
        &format!("lib/{ABI}/libVkLayer_in_apk.so"),
    );
    std::fs::remove_file(&lib).unwrap();
    let env = HostGraphicsEnv::new(&setup(r, false));
    let mut config = config_through(r, &env);
    let linker = Arc::new(RecordingLinker::new(&config.driver_settings()));
    config.linker = Some(linker.clone());
    let registry = LayerRegistry::discover(&config.layer_settings());
    assert!(registry.find(c"VK_LAYER_test_in_apk").is_some());
    assert_eq!(
        linker.take(),
        ["OpenNativeLibraryInNamespace(app, libVkLayer_in_apk.so) -> loaded"]
    );
    // Activation opens it again the same way.
    let layer = registry
        .find(c"VK_LAYER_test_in_apk")
        .unwrap()
        .open()
        .unwrap();
    assert!(layer.library().is_open());
    assert_eq!(
        linker.take(),
        ["OpenNativeLibraryInNamespace(app, libVkLayer_in_apk.so) -> loaded"]
    );
}

/// The GPU debug layer app's copy of a file name wins over the app's own, since its dirs come
/// first in `getLayerPaths()`.
#[test]
fn the_layer_apps_dirs_are_searched_first() {
    let root = tempfile::tempdir().unwrap();
    let r = root.path();
    for (pkg, layer) in [(LAYERS_APP, "VK_LAYER_A"), (GAME, "VK_LAYER_game_copy")] {
        let dir = r.join("data/app").join(pkg).join("lib");
        std::fs::create_dir_all(&dir).unwrap();
        build_layer(
            &dir,
            "libVkLayer_same.so",
            &Fixture {
                layers: &[layer],
                generic_gpa: true,
                ..Fixture::default()
            },
        );
    }
    let config = config_through(r, &HostGraphicsEnv::new(&setup(r, true)));
    let registry = LayerRegistry::discover(&config.layer_settings());
    assert!(registry.find(c"VK_LAYER_A").is_some());
    assert!(registry.find(c"VK_LAYER_game_copy").is_none());
}
