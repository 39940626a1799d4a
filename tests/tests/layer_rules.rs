//! AOSP android16's layer rules (issue 10, rules 3 and 5) through our loader on lavapipe, with
//! Debian's validation layer as the layer under test:
//! * `debug.vulkan.layers` applies on any build (AOSP dropped the debuggable gate in 2020), but
//!   layers still come only from the permitted dirs (the debug dir only when debuggable);
//! * the GPU debug settings (`Settings.Global`: `enable_gpu_debug_layers`, `gpu_debug_app`,
//!   `gpu_debug_layers`, `gpu_debug_layer_app`; `VKGEN_SETTINGS` on hosts) take priority over the
//!   properties, apply only to a debuggable target app, and bring their layer app's lib dir;
//! * `vkEnumerateInstanceExtensionProperties(NULL)` lists the settings' layers' extensions and
//!   leaves out the property-enabled layers';
//! * `vkEnumerateDeviceLayerProperties` lists the instance's active layers;
//! * `debug.vulkan.*` is read at every `vkCreateInstance`, not once per process;
//! * Linux hosts: Khronos manifests (`VK_LAYER_PATH`) and `VK_INSTANCE_LAYERS` enable the layer
//!   without the application naming it (issue 24), read at every `vkCreateInstance`.

use std::ffi::CStr;
use std::path::Path;

use ash::vk;
use tempfile::TempDir;
use vkgen_tests::env::{in_child, Env};
use vkgen_tests::validation::{self, VALIDATION_LAYER};
use vkgen_tests::{compute, paths, require};

/// An instance extension only the validation layer provides (lavapipe has none of it).
const LAYER_ONLY_EXTENSION: &CStr = c"VK_EXT_validation_features";

/// A root with `build.prop` = `props` and, when given, `settings` as the settings file; lavapipe
/// is the driver. Returns the root too (it must outlive the child).
fn env_with(props: &str, settings: Option<&str>) -> (Env, TempDir) {
    let root = require(validation::empty_dir());
    let prop_file = root.path().join("build.prop");
    std::fs::write(&prop_file, props).unwrap();
    let mut env = require(paths::lavapipe_env())
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VKGEN_PROPERTIES", &prop_file);
    if let Some(settings) = settings {
        let file = root.path().join("settings");
        std::fs::write(&file, settings).unwrap();
        env = env.set("VKGEN_SETTINGS", file);
    }
    (env, root)
}

/// Links the validation layer into `dir`.
fn put_validation_layer(dir: &Path) {
    std::fs::create_dir_all(dir).unwrap();
    std::os::unix::fs::symlink(
        require(paths::validation_layer_lib()),
        dir.join("libVkLayer_khronos_validation.so"),
    )
    .unwrap();
}

/// The names of the active layers as `vkEnumerateDeviceLayerProperties` lists them, for an
/// instance the app creates without layers.
fn device_layers(entry: &ash::Entry) -> Result<Vec<String>, vk::Result> {
    let instance = compute::create_instance(entry, &[], &[])?;
    // SAFETY: a live instance.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    // SAFETY: a physical device of the instance.
    let layers = unsafe { instance.enumerate_device_layer_properties(pd) }.unwrap();
    Ok(layers
        .iter()
        .map(|l| {
            l.layer_name_as_c_str()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect())
}

fn instance_extensions(entry: &ash::Entry) -> Vec<String> {
    // SAFETY: a global query.
    unsafe { entry.enumerate_instance_extension_properties(None) }
        .unwrap()
        .iter()
        .map(|e| {
            e.extension_name_as_c_str()
                .unwrap()
                .to_string_lossy()
                .into_owned()
        })
        .collect()
}

fn entry() -> ash::Entry {
    require(compute::load_entry(&require(paths::loader_under_test())))
}

const VALIDATION: &str = "VK_LAYER_KHRONOS_validation";

#[test]
fn debug_vulkan_layers_honoured_on_a_release_build() {
    let app_dir = require(validation::app_layer_dir());
    let (env, _root) = env_with(&format!("debug.vulkan.layers={VALIDATION}\n"), None);
    let env = env.set("VKGEN_APP_LAYER_PATH", app_dir.path());
    in_child(
        "debug_vulkan_layers_honoured_on_a_release_build",
        &env,
        || {
            assert_eq!(device_layers(&entry()).unwrap(), [VALIDATION]);
        },
    );
}

#[test]
fn debug_vulkan_layers_still_come_only_from_permitted_dirs() {
    // Release build: the debug dir is not searched, so the named layer does not exist.
    let (env, root) = env_with(&format!("debug.vulkan.layers={VALIDATION}\n"), None);
    put_validation_layer(&root.path().join("data/local/debug/vulkan"));
    in_child(
        "debug_vulkan_layers_still_come_only_from_permitted_dirs",
        &env,
        || {
            assert_eq!(
                device_layers(&entry()).unwrap_err(),
                vk::Result::ERROR_LAYER_NOT_PRESENT
            );
        },
    );
}

/// Settings naming the validation layer from the layer app `com.example.layers`, for the app
/// `com.example.game`; the properties name a layer that does not exist (fatal if consulted).
fn settings_env(app_debuggable: bool) -> (Env, TempDir) {
    let settings = format!(
        "enable_gpu_debug_layers=1\ngpu_debug_app=com.example.game\n\
         gpu_debug_layers={VALIDATION}\ngpu_debug_layer_app=com.example.layers\n"
    );
    let (env, root) = env_with("debug.vulkan.layers=VK_LAYER_missing\n", Some(&settings));
    put_validation_layer(&root.path().join("data/app/com.example.layers/lib"));
    let mut env = env.set("VKGEN_APP_PACKAGE", "com.example.game");
    if app_debuggable {
        env = env.set("VKGEN_APP_DEBUGGABLE", "1");
    }
    (env, root)
}

#[test]
fn gpu_debug_layers_setting_takes_priority_over_debug_vulkan_layers() {
    let (env, _root) = settings_env(true);
    in_child(
        "gpu_debug_layers_setting_takes_priority_over_debug_vulkan_layers",
        &env,
        || {
            let entry = entry();
            assert_eq!(device_layers(&entry).unwrap(), [VALIDATION]);
            // The settings' layers' instance extensions are enumerated with a NULL layer.
            let exts = instance_extensions(&entry);
            assert!(
                exts.iter()
                    .any(|e| e.as_bytes() == LAYER_ONLY_EXTENSION.to_bytes()),
                "{exts:?}"
            );
        },
    );
}

#[test]
fn gpu_debug_settings_ignored_for_a_release_app() {
    // CtsRootlessGpuDebugHostTest: a release app on a user build ignores the settings, so the
    // properties are consulted (and name a missing layer).
    let (env, _root) = settings_env(false);
    in_child("gpu_debug_settings_ignored_for_a_release_app", &env, || {
        assert_eq!(
            device_layers(&entry()).unwrap_err(),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );
    });
}

#[test]
fn enumerate_instance_extensions_leaves_out_property_layers_extensions() {
    let app_dir = require(validation::app_layer_dir());
    let (env, _root) = env_with(&format!("debug.vulkan.layers={VALIDATION}\n"), None);
    let env = env.set("VKGEN_APP_LAYER_PATH", app_dir.path());
    in_child(
        "enumerate_instance_extensions_leaves_out_property_layers_extensions",
        &env,
        || {
            let entry = entry();
            let exts = instance_extensions(&entry);
            assert!(
                !exts
                    .iter()
                    .any(|e| e.as_bytes() == LAYER_ONLY_EXTENSION.to_bytes()),
                "{exts:?}"
            );
            // Yet the layer is active, and an app may enable its extension by asking for it.
            assert_eq!(device_layers(&entry).unwrap(), [VALIDATION]);
        },
    );
}

#[test]
fn enumerate_device_layers_lists_the_active_instance_layers() {
    let app_dir = require(validation::app_layer_dir());
    let (env, _root) = env_with("", None);
    let env = env.set("VKGEN_APP_LAYER_PATH", app_dir.path());
    in_child(
        "enumerate_device_layers_lists_the_active_instance_layers",
        &env,
        || {
            let entry = entry();
            assert!(device_layers(&entry).unwrap().is_empty());
            let instance = compute::create_instance(&entry, &[VALIDATION_LAYER], &[]).unwrap();
            // SAFETY: a live instance.
            let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
            // SAFETY: a physical device of the instance.
            let layers = unsafe { instance.enumerate_device_layer_properties(pd) }.unwrap();
            assert_eq!(layers.len(), 1);
            assert_eq!(layers[0].layer_name_as_c_str().unwrap(), VALIDATION_LAYER);
        },
    );
}

#[test]
fn debug_vulkan_properties_are_read_at_every_create_instance() {
    let app_dir = require(validation::app_layer_dir());
    let (env, root) = env_with("", None);
    let env = env.set("VKGEN_APP_LAYER_PATH", app_dir.path());
    let _root = root;
    in_child(
        "debug_vulkan_properties_are_read_at_every_create_instance",
        &env,
        || {
            let entry = entry();
            // The loader is initialised (as a zygote preloading it would) with no layers set...
            assert!(device_layers(&entry).unwrap().is_empty());
            // ...then the property changes, and the next instance sees it. (The parent made
            // the file; this child process knows it from the environment.)
            let prop_file = std::env::var_os("VKGEN_PROPERTIES").unwrap();
            std::fs::write(&prop_file, format!("debug.vulkan.layers={VALIDATION}\n")).unwrap();
            assert_eq!(device_layers(&entry).unwrap(), [VALIDATION]);
        },
    );
}

#[test]
fn initialisation_is_once_per_process_id() {
    // A zygote preloads the loader (vkEnumerateInstanceVersion) before any app layer path
    // exists; the app forked from it sets its own path and must see its layers.
    let app_dir = require(validation::app_layer_dir());
    let (env, _root) = env_with("", None);
    let env = env.set("VKGEN_TEST_LAYER_DIR", app_dir.path());
    in_child("initialisation_is_once_per_process_id", &env, || {
        let entry = entry();
        // SAFETY: a global query; it initialises the loader in this process.
        unsafe { entry.try_enumerate_instance_version() }.unwrap();
        let dir = std::env::var_os("VKGEN_TEST_LAYER_DIR").unwrap();
        // SAFETY: fork in a test process; the child only makes Vulkan calls on its own thread
        // and leaves with _exit.
        let pid = unsafe { libc::fork() };
        assert!(pid >= 0, "fork failed");
        if pid == 0 {
            // The forked child is single-threaded: changing its environment is sound here.
            std::env::set_var("VKGEN_APP_LAYER_PATH", &dir);
            let ok = compute::create_instance(&entry, &[VALIDATION_LAYER], &[]).is_ok();
            // SAFETY: ends the forked child without running the parent's destructors.
            unsafe { libc::_exit(if ok { 0 } else { 3 }) };
        }
        let mut status = 0;
        // SAFETY: waiting for our own child.
        assert_eq!(unsafe { libc::waitpid(pid, &mut status, 0) }, pid);
        assert!(
            libc::WIFEXITED(status) && libc::WEXITSTATUS(status) == 0,
            "the forked child did not find its layer (status {status:#x})"
        );
        // The parent keeps its own state: no app layer path, no layer.
        assert_eq!(
            compute::create_instance(&entry, &[VALIDATION_LAYER], &[]).err(),
            Some(vk::Result::ERROR_LAYER_NOT_PRESENT)
        );
    });
}

/// Linux hosts (issue 24): the validation layer found through Debian's own manifest dir
/// (`VK_LAYER_PATH`; its `library_path` is a bare name for `dlopen`'s search) and enabled by
/// `VK_INSTANCE_LAYERS` alone reports a deliberate error.
#[test]
fn khronos_manifest_and_vk_instance_layers_enable_validation() {
    let manifest = require(paths::validation_layer_manifest());
    let env = require(paths::lavapipe_env())
        .set("VK_LAYER_PATH", manifest.parent().unwrap())
        .set("VK_INSTANCE_LAYERS", VALIDATION);
    in_child(
        "khronos_manifest_and_vk_instance_layers_enable_validation",
        &env,
        || {
            let outcome = validation::run_validation_misuse_naming(&entry(), &[]).unwrap();
            require(validation::check_validation_outcome(&outcome));
        },
    );
}

/// Without `VK_LAYER_PATH` no manifest layer exists. A layer only `VK_INSTANCE_LAYERS` names is
/// then skipped with a warning, as the Khronos loader does (issue 36: one stale variable failed
/// every `vkCreateInstance`); the application naming the same layer still gets
/// `VK_ERROR_LAYER_NOT_PRESENT`.
#[test]
fn vk_instance_layers_without_a_manifest_is_skipped_but_an_app_layer_fails() {
    let env = require(paths::lavapipe_env()).set("VK_INSTANCE_LAYERS", VALIDATION);
    in_child(
        "vk_instance_layers_without_a_manifest_is_skipped_but_an_app_layer_fails",
        &env,
        || {
            assert_eq!(
                validation::try_enable_validation_layer_naming(&entry(), &[]),
                vk::Result::SUCCESS
            );
            let name = std::ffi::CString::new(VALIDATION).unwrap();
            assert_eq!(
                validation::try_enable_validation_layer_naming(&entry(), &[name.as_c_str()]),
                vk::Result::ERROR_LAYER_NOT_PRESENT
            );
        },
    );
}

/// An implicit manifest (Debian's validation manifest with an `enable_environment` added, in a
/// `VK_IMPLICIT_LAYER_PATH` dir) and the child's environment for it: `enabled` sets the
/// variable; the test env's `VK_LOADER_LAYERS_DISABLE=~implicit~` is replaced by a filter
/// naming another layer.
fn implicit_validation_env(enabled: bool) -> (Env, TempDir) {
    let text = std::fs::read_to_string(require(paths::validation_layer_manifest())).unwrap();
    let mut json: serde_json::Value = serde_json::from_str(&text).unwrap();
    json["layer"]["enable_environment"] = serde_json::json!({ "VKGEN_TEST_IMPLICIT": "1" });
    json["layer"]["disable_environment"] = serde_json::json!({ "VKGEN_TEST_NO_IMPLICIT": "1" });
    let dir = tempfile::tempdir().unwrap();
    std::fs::write(dir.path().join("implicit.json"), json.to_string()).unwrap();
    let env = require(paths::lavapipe_env())
        .set("VK_IMPLICIT_LAYER_PATH", dir.path())
        .set("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_other")
        .set("VKGEN_TEST_IMPLICIT", if enabled { "1" } else { "0" });
    (env, dir)
}

/// Whether the process has `libVkLayer_khronos_validation.so` mapped.
fn validation_library_mapped() -> bool {
    std::fs::read_to_string("/proc/self/maps")
        .unwrap()
        .contains("libVkLayer_khronos_validation.so")
}

/// Linux hosts: an implicit layer is listed with its manifest's properties without its library
/// being opened; active (its extensions reported by `vkEnumerateInstanceExtensionProperties(NULL)`,
/// its library loaded by `vkCreateInstance`) only while its `enable_environment` is set.
#[test]
fn implicit_manifest_layer_inactive_without_its_enable_environment() {
    implicit_manifest_scenario(
        "implicit_manifest_layer_inactive_without_its_enable_environment",
        false,
    );
}

#[test]
fn implicit_manifest_layer_active_and_loaded_with_its_enable_environment() {
    implicit_manifest_scenario(
        "implicit_manifest_layer_active_and_loaded_with_its_enable_environment",
        true,
    );
}

fn implicit_manifest_scenario(scenario: &str, enabled: bool) {
    let (env, _dir) = implicit_validation_env(enabled);
    in_child(scenario, &env, || {
        let entry = entry();
        // SAFETY: plain global queries and instance creation on a loaded entry.
        unsafe {
            let layers = entry.enumerate_instance_layer_properties().unwrap();
            let listed = layers
                .iter()
                .any(|l| l.layer_name_as_c_str() == Ok(c"VK_LAYER_KHRONOS_validation"));
            assert!(listed, "the implicit layer is listed whether active or not");
            let exts = entry.enumerate_instance_extension_properties(None).unwrap();
            let has = exts
                .iter()
                .any(|e| e.extension_name_as_c_str() == Ok(c"VK_EXT_validation_features"));
            let active = std::env::var("VKGEN_TEST_IMPLICIT").as_deref() == Ok("1");
            assert_eq!(
                has, active,
                "the active implicit layer's extensions are listed"
            );
            assert!(!validation_library_mapped(), "opened before activation");
            let instance = entry
                .create_instance(&vk::InstanceCreateInfo::default(), None)
                .unwrap();
            assert_eq!(validation_library_mapped(), active);
            instance.destroy_instance(None);
        }
    });
}

/// Linux hosts: `VK_INSTANCE_LAYERS` and the `VK_LOADER_LAYERS_*` filters are read at every
/// `vkCreateInstance` (and global query), not once per process, as the Khronos loader does: the
/// child changes its own environment between instances.
#[test]
fn layer_variables_are_read_at_every_vk_create_instance() {
    let manifest = require(paths::validation_layer_manifest());
    let env = require(paths::lavapipe_env()).set("VK_LAYER_PATH", manifest.parent().unwrap());
    in_child(
        "layer_variables_are_read_at_every_vk_create_instance",
        &env,
        || {
            assert!(std::env::var_os("VK_INSTANCE_LAYERS").is_none());
            let entry = entry();
            // SAFETY: instance creation and destruction on a loaded entry.
            unsafe {
                let instance = entry
                    .create_instance(&vk::InstanceCreateInfo::default(), None)
                    .unwrap();
                instance.destroy_instance(None);
            }
            assert!(
                !validation_library_mapped(),
                "no layer requested, none opened"
            );
            std::env::set_var("VK_INSTANCE_LAYERS", VALIDATION);
            let outcome = validation::run_validation_misuse_naming(&entry, &[]).unwrap();
            require(validation::check_validation_outcome(&outcome));
            assert!(validation_library_mapped());
            // The filters too: `~explicit~` hides the layer, `VK_LOADER_LAYERS_ALLOW` brings it
            // back (without enabling anything).
            let listed = || {
                validation::instance_layer_names(&entry)
                    .unwrap()
                    .iter()
                    .any(|l| l == VALIDATION)
            };
            assert!(listed());
            std::env::set_var("VK_LOADER_LAYERS_DISABLE", "~explicit~");
            assert!(!listed(), "VK_LOADER_LAYERS_DISABLE read at the query");
            std::env::set_var("VK_LOADER_LAYERS_ALLOW", "*_validation");
            assert!(listed(), "VK_LOADER_LAYERS_ALLOW read at the query");
        },
    );
}

/// A layer library with pre-instance functions: `PreVersion` reports 1.9.7 after calling down,
/// `PreExtensions` adds one to the count query's answer; both check their chain link's header.
const PRE_INSTANCE_LAYER_C: &str = r#"
#include <stdint.h>
#define EXPORT __attribute__((visibility("default")))
typedef int32_t VkResult;
typedef void (*PFN_vkVoidFunction)(void);
typedef struct { char extensionName[256]; uint32_t specVersion; } VkExtensionProperties;
typedef struct { uint32_t type, version, size; } VkChainHeader;
typedef struct VersionChain {
    VkChainHeader header;
    VkResult (*pfnNextLayer)(const struct VersionChain*, uint32_t*);
    const struct VersionChain* pNextLink;
} VersionChain;
typedef struct ExtChain {
    VkChainHeader header;
    VkResult (*pfnNextLayer)(const struct ExtChain*, const char*, uint32_t*, VkExtensionProperties*);
    const struct ExtChain* pNextLink;
} ExtChain;
EXPORT PFN_vkVoidFunction vkGetInstanceProcAddr(void* i, const char* n) { (void)i; (void)n; return 0; }
EXPORT VkResult PreVersion(const VersionChain* c, uint32_t* v) {
    if (c->header.type != 3 || c->header.version != 1 || c->header.size != sizeof *c) return -3;
    VkResult r = c->pfnNextLayer(c->pNextLink, v);
    *v = (1u << 22) | (9u << 12) | 7u;
    return r;
}
EXPORT VkResult PreExtensions(const ExtChain* c, const char* l, uint32_t* n, VkExtensionProperties* p) {
    if (c->header.type != 1 || c->header.version != 1 || c->header.size != sizeof *c) return -3;
    VkResult r = c->pfnNextLayer(c->pNextLink, l, n, p);
    if (!p && r == 0) *n += 1;
    return r;
}
"#;

/// Linux hosts: an active implicit layer's `pre_instance_functions` (manifest 1.1.2) intercept
/// `vkEnumerateInstanceVersion` and `vkEnumerateInstanceExtensionProperties` through their
/// chains, and only while its `enable_environment` is set (read at each call).
#[test]
fn implicit_layer_pre_instance_functions_intercept_the_global_commands() {
    let dir = tempfile::tempdir().unwrap();
    let src = dir.path().join("pre.c");
    std::fs::write(&src, PRE_INSTANCE_LAYER_C).unwrap();
    let lib = dir.path().join("libVkLayer_pre.so");
    let cc = std::process::Command::new("cc")
        .args(["-shared", "-fPIC", "-fvisibility=hidden", "-O1", "-o"])
        .arg(&lib)
        .arg(&src)
        .output()
        .expect("run cc");
    assert!(
        cc.status.success(),
        "{}",
        String::from_utf8_lossy(&cc.stderr)
    );
    let manifest = serde_json::json!({
        "file_format_version": "1.1.2",
        "layer": {
            "name": "VK_LAYER_VKGEN_pre_instance", "type": "GLOBAL",
            "library_path": lib, "api_version": "1.3.0", "implementation_version": "1",
            "description": "pre-instance test layer",
            "enable_environment": { "VKGEN_TEST_PRE": "1" },
            "disable_environment": { "VKGEN_TEST_NO_PRE": "1" },
            "pre_instance_functions": {
                "vkEnumerateInstanceVersion": "PreVersion",
                "vkEnumerateInstanceExtensionProperties": "PreExtensions"
            }
        }
    });
    std::fs::write(dir.path().join("pre.json"), manifest.to_string()).unwrap();
    let env = require(paths::lavapipe_env())
        .set("VK_IMPLICIT_LAYER_PATH", dir.path())
        .set("VK_LOADER_LAYERS_DISABLE", "VK_LAYER_other");
    in_child(
        "implicit_layer_pre_instance_functions_intercept_the_global_commands",
        &env,
        || {
            let entry = entry();
            let count = || {
                let mut n = 0u32;
                // SAFETY: the count query of a global command, a valid pointer.
                let r = unsafe {
                    (entry.fp_v1_0().enumerate_instance_extension_properties)(
                        std::ptr::null(),
                        &mut n,
                        std::ptr::null_mut(),
                    )
                };
                assert_eq!(r, vk::Result::SUCCESS);
                n
            };
            // SAFETY: a global query on a loaded entry.
            let version = || unsafe { entry.try_enumerate_instance_version() }.unwrap();
            let (plain_version, plain_count) = (version(), count());
            assert_ne!(plain_version, Some(vk::make_api_version(0, 1, 9, 7)));
            std::env::set_var("VKGEN_TEST_PRE", "1");
            assert_eq!(version(), Some(vk::make_api_version(0, 1, 9, 7)));
            assert_eq!(count(), plain_count + 1);
            std::env::set_var("VKGEN_TEST_NO_PRE", "1");
            assert_eq!((version(), count()), (plain_version, plain_count));
        },
    );
}
