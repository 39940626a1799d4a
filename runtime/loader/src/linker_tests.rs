//! The exact linker calls AOSP's `Hal::Open`, `Hal::UnloadBuiltinDriver` and
//! `LayerLibrary::Open` make, asserted through [`RecordingLinker`]. A top-level module: it
//! drives the HAL search, the per-process initialisation and layer discovery together.

use std::path::Path;
use std::sync::Arc;

use ash::vk;

use crate::config::LoaderConfig;
use crate::driver::hal::tests::build_hal;
use crate::driver::hal::HalError;
use crate::driver::hal_search::load;
use crate::driver::linker::{Linker, RecordingLinker};
use crate::init::Loader;
use crate::layers::discovery::tests::{build_layer, Fixture};
use crate::layers::discovery::DEBUG_LAYER_DIR;
use crate::layers::LayerRegistry;
use crate::properties::Properties;
use crate::testutil::isolated_config;

/// The APEX's library dir, as the host linker lays it out (`lib64` in 64-bit processes).
const LIB: &str = if cfg!(target_pointer_width = "64") {
    "lib64"
} else {
    "lib"
};

/// A configuration whose linker records; `a` then `b` name the module.
fn recorded(root: &Path, extra: &[(&str, &str)]) -> (LoaderConfig, Arc<RecordingLinker>) {
    let mut pairs = vec![("ro.hardware.vulkan", "a"), ("ro.board.platform", "b")];
    pairs.extend_from_slice(extra);
    let config = LoaderConfig {
        properties: Properties::from_pairs(pairs),
        ..isolated_config(root)
    };
    with_recorder(config)
}

fn with_recorder(config: LoaderConfig) -> (LoaderConfig, Arc<RecordingLinker>) {
    let linker = Arc::new(RecordingLinker::new(&config.driver_settings()));
    let config = LoaderConfig {
        linker: Some(Arc::clone(&linker) as Arc<dyn Linker>),
        ..config
    };
    (config, linker)
}

/// `LoadBuiltinDriver`: no driver namespace, no APEX property (AOSP skips the namespace lookup
/// for an empty `ro.vulkan.apex`), then `android_load_sphal_library` per property value.
#[test]
fn built_in_hal_through_sphal() {
    let root = tempfile::tempdir().unwrap();
    build_hal(root.path(), "b", &[]);
    let (config, linker) = recorded(root.path(), &[]);
    load(&config.driver_settings()).expect("the built-in HAL loads");
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> null",
            "android_load_sphal_library(vulkan.a.so) -> null",
            "android_load_sphal_library(vulkan.b.so) -> loaded",
        ]
    );
}

/// `LoadUpdatedDriver`: the driver namespace, `android_dlopen_ext` per name; the built-in HAL is
/// never asked for. Missing there, it is fatal without trying APEX or sphal.
#[test]
fn updatable_driver_through_the_driver_namespace() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, _) = build_hal(root.path(), "a", &[]);
    let updatable = root.path().join("updatable");
    std::fs::create_dir_all(&updatable).unwrap();
    let (config, linker) = with_recorder(LoaderConfig {
        updatable_driver_dir: Some(updatable.clone()),
        ..recorded(root.path(), &[("ro.vulkan.apex", "com.x.vulkan")]).0
    });
    let err = load(&config.driver_settings()).unwrap_err();
    assert!(
        matches!(err, HalError::UpdatableDriverMissing { .. }),
        "{err}"
    );
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> updatable gfx driver",
            "android_dlopen_ext(vulkan.a.so, USE_NAMESPACE updatable gfx driver) -> null",
            "android_dlopen_ext(vulkan.b.so, USE_NAMESPACE updatable gfx driver) -> null",
        ]
    );
    std::fs::copy(&built_in, updatable.join("vulkan.b.so")).unwrap();
    assert_eq!(
        load(&config.driver_settings()).unwrap().path(),
        updatable.join("vulkan.b.so")
    );
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> updatable gfx driver",
            "android_dlopen_ext(vulkan.a.so, USE_NAMESPACE updatable gfx driver) -> null",
            "android_dlopen_ext(vulkan.b.so, USE_NAMESPACE updatable gfx driver) -> loaded",
        ]
    );
}

/// `LoadDriverFromApex`: `ro.vulkan.apex` with `.` → `_` names the exported namespace; an APEX
/// without the module falls through (`-ENOENT`) to the built-in HAL.
#[test]
fn apex_driver_through_the_exported_namespace() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, _) = build_hal(root.path(), "a", &[]);
    let apex = root.path().join(format!("apex/com.x.vulkan/{LIB}"));
    std::fs::create_dir_all(&apex).unwrap();
    let (config, linker) = recorded(root.path(), &[("ro.vulkan.apex", "com.x.vulkan")]);
    assert_eq!(load(&config.driver_settings()).unwrap().path(), built_in);
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> null",
            "android_get_exported_namespace(com_x_vulkan) -> ns",
            "android_dlopen_ext(vulkan.a.so, USE_NAMESPACE com_x_vulkan) -> null",
            "android_dlopen_ext(vulkan.b.so, USE_NAMESPACE com_x_vulkan) -> null",
            "android_load_sphal_library(vulkan.a.so) -> loaded",
        ]
    );
    std::fs::copy(&built_in, apex.join("vulkan.a.so")).unwrap();
    assert_eq!(
        load(&config.driver_settings()).unwrap().path(),
        apex.join("vulkan.a.so")
    );
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> null",
            "android_get_exported_namespace(com_x_vulkan) -> ns",
            "android_dlopen_ext(vulkan.a.so, USE_NAMESPACE com_x_vulkan) -> loaded",
        ]
    );
}

/// A library that loads but is no HAL module (AOSP's `-EINVAL`) ends the search: the next
/// namespace is not tried.
#[test]
fn a_bad_module_stops_the_search() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, _) = build_hal(root.path(), "a", &[]);
    build_hal(root.path(), "bad", &["NO_HMI"]);
    let apex = root.path().join(format!("apex/com.x.vulkan/{LIB}"));
    std::fs::create_dir_all(&apex).unwrap();
    std::fs::copy(
        built_in.with_file_name("vulkan.bad.so"),
        apex.join("vulkan.a.so"),
    )
    .unwrap();
    let (config, linker) = recorded(root.path(), &[("ro.vulkan.apex", "com.x.vulkan")]);
    assert!(matches!(
        load(&config.driver_settings()),
        Err(HalError::NoHmi { .. })
    ));
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> null",
            "android_get_exported_namespace(com_x_vulkan) -> ns",
            "android_dlopen_ext(vulkan.a.so, USE_NAMESPACE com_x_vulkan) -> loaded",
        ]
    );
    // The same module as the updatable driver is fatal (`LoadUpdatedDriver`).
    let (config, _) = with_recorder(LoaderConfig {
        updatable_driver_dir: Some(apex.clone()),
        ..config
    });
    let err = load(&config.driver_settings()).unwrap_err();
    assert!(
        matches!(err, HalError::UpdatableDriverMissing { .. }),
        "{err}"
    );
    assert!(err.is_fatal());
}

/// `LayerLibrary::Open`: `/data/local/debug/vulkan` layers with `dlopen`, the app's through
/// `OpenNativeLibraryInNamespace` in the app's namespace.
#[test]
fn layers_through_dlopen_or_the_app_namespace() {
    let root = tempfile::tempdir().unwrap();
    let app = tempfile::tempdir().unwrap();
    let debug_dir = root.path().join(DEBUG_LAYER_DIR);
    std::fs::create_dir_all(&debug_dir).unwrap();
    let fixture = |name| Fixture {
        layers: name,
        generic_gpa: true,
        ..Fixture::default()
    };
    build_layer(&debug_dir, "libVkLayer_dbg.so", &fixture(&["VK_LAYER_dbg"]));
    build_layer(app.path(), "libVkLayer_app.so", &fixture(&["VK_LAYER_app"]));
    let (config, linker) = with_recorder(LoaderConfig {
        app_layer_path: vec![app.path().to_path_buf()],
        debuggable: true,
        ..isolated_config(root.path())
    });
    let registry = LayerRegistry::discover(&config.layer_settings());
    assert!(registry.find(c"VK_LAYER_dbg").is_some());
    assert!(registry.find(c"VK_LAYER_app").is_some());
    assert_eq!(
        linker.take(),
        [
            "dlopen(libVkLayer_dbg.so) -> loaded",
            "OpenNativeLibraryInNamespace(app, libVkLayer_app.so) -> loaded",
        ]
    );
}

/// The zygote preloads the built-in HAL; its forked child, whose driver namespace is set, closes
/// the device, unloads the library with `android_unload_sphal_library` and loads the updatable
/// driver. A child without a driver namespace keeps the preloaded HAL.
#[test]
fn zygote_child_with_a_driver_namespace_swaps_the_built_in_hal() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, closed) = build_hal(root.path(), "a", &[]);
    let (config, linker) = recorded(root.path(), &[]);
    let zygote = Loader::load(config.clone());
    assert_eq!(linker.take().len(), 2, "getDriverNamespace, then sphal");

    let plain_child = Loader::load_keeping(config, Some(&zygote));
    assert_eq!(linker.take(), ["getDriverNamespace() -> null"]);
    assert!(Arc::ptr_eq(
        plain_child.drivers.as_ref().unwrap(),
        zygote.drivers.as_ref().unwrap()
    ));
    assert!(!closed.exists());

    let updatable = root.path().join("updatable");
    std::fs::create_dir_all(&updatable).unwrap();
    std::fs::copy(&built_in, updatable.join("vulkan.a.so")).unwrap();
    let (child_config, linker) = with_recorder(LoaderConfig {
        updatable_driver_dir: Some(updatable.clone()),
        ..recorded(root.path(), &[]).0
    });
    let child = Loader::load_keeping(child_config, Some(&zygote));
    assert_eq!(
        linker.take(),
        [
            "getDriverNamespace() -> updatable gfx driver",
            "android_unload_sphal_library(dso)",
            "getDriverNamespace() -> updatable gfx driver",
            "android_dlopen_ext(vulkan.a.so, USE_NAMESPACE updatable gfx driver) -> loaded",
        ]
    );
    assert_eq!(std::fs::read_to_string(&closed).unwrap(), "closed");
    let drivers = child.drivers.as_ref().unwrap();
    let crate::driver::DriverSource::Hal(hal) = drivers[0].driver.source() else {
        panic!("the child's driver is a HAL");
    };
    assert_eq!(hal.path(), updatable.join("vulkan.a.so"));
    // The parent's state is never used again in the child; it is leaked, as `loader()` does.
    std::mem::forget(zygote);
}

/// The same swap in a real forked child: the zygote (this test) preloads the built-in HAL, the
/// child, a new process id with the zygote's state copied, unloads it and loads the updatable
/// driver; the zygote's own HAL is untouched.
#[test]
fn forked_child_swaps_the_built_in_hal() {
    let root = tempfile::tempdir().unwrap();
    let (built_in, closed) = build_hal(root.path(), "a", &[]);
    let (config, _) = recorded(root.path(), &[]);
    let zygote = Loader::load(config);
    let updatable = root.path().join("updatable");
    std::fs::create_dir_all(&updatable).unwrap();
    std::fs::copy(&built_in, updatable.join("vulkan.a.so")).unwrap();
    let (child_config, linker) = with_recorder(LoaderConfig {
        updatable_driver_dir: Some(updatable.clone()),
        ..recorded(root.path(), &[]).0
    });
    // SAFETY: the child only runs the code below (no locks another test thread could hold are
    // needed beyond the allocator and the dynamic linker, which glibc resets across fork) and
    // leaves with `_exit`, never returning into the test harness.
    let pid = unsafe { libc::fork() };
    assert!(pid >= 0, "fork failed");
    if pid == 0 {
        let ok = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
            let child = Loader::load_keeping(child_config, Some(&zygote));
            let calls = linker.take();
            let swapped = calls.get(1).map(String::as_str)
                == Some("android_unload_sphal_library(dso)")
                && closed.exists();
            let path = match child.drivers.as_ref().map(|d| d[0].driver.source()) {
                Ok(crate::driver::DriverSource::Hal(hal)) => Some(hal.path().to_path_buf()),
                _ => None,
            };
            std::mem::forget(child);
            swapped && path == Some(updatable.join("vulkan.a.so"))
        }));
        // SAFETY: leaves the forked child at once, without running the harness's exit path.
        unsafe { libc::_exit(if ok.unwrap_or(false) { 0 } else { 1 }) };
    }
    let mut status = 0;
    // SAFETY: waits for the child this test forked; `status` is a valid out-pointer.
    let waited = unsafe { libc::waitpid(pid, &mut status, 0) };
    assert_eq!(waited, pid);
    assert!(
        libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
        "the child did not swap its HAL (status {status:#x})"
    );
    // The child's close wrote the marker file; the zygote's own HAL is still loaded and
    // answers (only the child's copy of the process was unloaded).
    assert!(closed.exists());
    let gipa = zygote.drivers.as_ref().unwrap()[0].gipa();
    // SAFETY: the zygote's HAL is loaded in this process; a global query with a null instance.
    let create = unsafe { gipa(vk::Instance::null(), c"vkCreateInstance".as_ptr()) };
    assert!(create.is_some());
}
