//! The baseline tests against our loader, `target/<profile>/libvulkan.so` (build it with
//! `cargo build -p vkgen-loader`, or `--release` for release-profile tests), plus the
//! Android-style layer tests: the app layer dir, the debug layer dir
//! (`<VKGEN_HAL_ROOT>/data/local/debug/vulkan`) and `debug.vulkan.layers`, the last two only on
//! debuggable configs (`ro.debuggable=1` in the `VKGEN_PROPERTIES` file).
//!
//! `VKGEN_TEST_LOADER=<path>` runs these tests against another loader library instead (for
//! example Debian's, to check the tests: everything but
//! `validation_layer_via_app_layer_path_our_loader` passes with it, since Debian's loader
//! has no `VKGEN_APP_LAYER_PATH`; `system_loader_baseline.rs` checks its `VK_LAYER_PATH`
//! equivalent).
//!
//! Our loader takes its drivers from `VK_DRIVER_FILES` (lavapipe's manifest), like the Khronos
//! loader, once no Android HAL module is found: every test points `VKGEN_HAL_ROOT` at an empty
//! directory so that nothing on the host (a `/vendor/lib64/hw`, a debug layer dir) can interfere.

use tempfile::TempDir;
use vkgen_tests::env::{in_child, Env};
use vkgen_tests::{paths, require, scenarios, validation};

/// Lavapipe as the only driver, and an empty Android root. Keep the directory alive until the
/// child has finished.
fn our_env() -> (Env, TempDir) {
    let hal_root = require(validation::empty_dir());
    let env = require(paths::lavapipe_env()).set("VKGEN_HAL_ROOT", hal_root.path());
    (env, hal_root)
}

#[test]
fn fill_compute_our_loader() {
    let loader = require(paths::loader_under_test());
    let (env, _hal_root) = our_env();
    in_child("fill_compute_our_loader", &env, || {
        scenarios::fill_compute(&loader);
    });
}

/// The loader is transparent: with the native-buffer adapter off, lavapipe looks the same
/// through ours as through Debian's.
#[test]
fn vulkaninfo_our_loader_matches_system_loader() {
    let ours = require(paths::loader_under_test());
    let system = require(paths::system_loader());
    let (env, _hal_root) = our_env();
    let diff = scenarios::vulkaninfo_diff(&system, &ours, &env.set("VKGEN_ICD_ADAPTER", "0"));
    assert!(
        diff.is_empty(),
        "vulkaninfo --json differs between Debian's loader (a) and {} (b) outside the \
         loader-owned paths:\n{}",
        ours.display(),
        diff.join("\n")
    );
}

/// Through the native-buffer adapter (the default), lavapipe gains only the host driver's
/// interop extensions besides the loader-owned WSI ones; everything else is lavapipe's.
#[test]
fn vulkaninfo_through_the_adapter_adds_only_the_host_drivers_extensions() {
    let ours = require(paths::loader_under_test());
    let system = require(paths::system_loader());
    let (env, _hal_root) = our_env();
    let diff = scenarios::vulkaninfo_diff(&system, &ours, &env);
    let added = [
        "VK_ANDROID_external_memory_android_hardware_buffer",
        "VK_EXT_queue_family_foreign",
        "VK_KHR_external_fence_fd",
        "VK_KHR_external_semaphore_fd",
    ];
    let unexpected: Vec<&String> = diff
        .iter()
        .filter(|line| {
            !added.iter().any(|e| {
                line.starts_with(&format!("capabilities/device/extensions/{e}: only in b"))
            })
        })
        .collect();
    assert!(
        unexpected.is_empty(),
        "vulkaninfo --json through the adapter differs beyond its extensions:\n{unexpected:#?}"
    );
    assert_eq!(
        diff.len(),
        added.len(),
        "the adapter's extensions: {diff:#?}"
    );
}

/// Debian's Khronos validation layer reached only through `VKGEN_APP_LAYER_PATH` (a directory
/// holding just the symlink `libVkLayer_khronos_validation.so`); `VK_LAYER_PATH` points at an
/// empty directory so that no Khronos-style search can find it.
#[test]
fn validation_layer_via_app_layer_path_our_loader() {
    let loader = require(paths::loader_under_test());
    let app_layers = require(validation::app_layer_dir());
    let empty = require(validation::empty_dir());
    let (env, _hal_root) = our_env();
    let env = env
        .set("VKGEN_APP_LAYER_PATH", app_layers.path())
        .set("VK_LAYER_PATH", empty.path());
    in_child(
        "validation_layer_via_app_layer_path_our_loader",
        &env,
        || {
            scenarios::validation_layer_reachable(&loader);
        },
    );
}

/// Negative control: without `VKGEN_APP_LAYER_PATH` the layer is not offered, and enabling it
/// fails with `VK_ERROR_LAYER_NOT_PRESENT`.
#[test]
fn validation_layer_absent_without_app_layer_path_our_loader() {
    let loader = require(paths::loader_under_test());
    let empty = require(validation::empty_dir());
    let (env, _hal_root) = our_env();
    let env = env.set("VK_LAYER_PATH", empty.path());
    in_child(
        "validation_layer_absent_without_app_layer_path_our_loader",
        &env,
        || scenarios::validation_layer_absent(&loader),
    );
}

/// An Android root whose debug layer dir (`data/local/debug/vulkan`) holds the validation layer,
/// plus a properties file with `props`; lavapipe is the driver and no app layer dir is set.
fn debug_dir_env(props: &str) -> (Env, TempDir) {
    let root = require(validation::empty_dir());
    let debug_dir = root.path().join("data/local/debug/vulkan");
    std::fs::create_dir_all(&debug_dir).expect("create the debug layer dir");
    std::os::unix::fs::symlink(
        require(paths::validation_layer_lib()),
        debug_dir.join("libVkLayer_khronos_validation.so"),
    )
    .expect("link the validation layer");
    let prop_file = root.path().join("build.prop");
    std::fs::write(&prop_file, props).expect("write the properties");
    let env = require(paths::lavapipe_env())
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VKGEN_PROPERTIES", &prop_file);
    (env, root)
}

/// In `<VKGEN_HAL_ROOT>/data/local/debug/vulkan` the layer is found on a debuggable config
/// (`ro.debuggable=1`)...
#[test]
fn validation_layer_in_debug_dir_when_debuggable_our_loader() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = debug_dir_env("ro.debuggable=1\n");
    in_child(
        "validation_layer_in_debug_dir_when_debuggable_our_loader",
        &env,
        || scenarios::validation_layer_reachable(&loader),
    );
}

/// ... and ignored on a release one.
#[test]
fn validation_layer_in_debug_dir_ignored_when_not_debuggable_our_loader() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = debug_dir_env("ro.debuggable=0\n");
    in_child(
        "validation_layer_in_debug_dir_ignored_when_not_debuggable_our_loader",
        &env,
        || scenarios::validation_layer_absent(&loader),
    );
}

/// The validation layer in an app layer dir, `debug.vulkan.layers` naming it, and the given
/// debuggability; the application itself never asks for the layer.
fn property_layer_env(debuggable: bool) -> (Env, TempDir, TempDir) {
    let app_layers = require(validation::app_layer_dir());
    let root = require(validation::empty_dir());
    let prop_file = root.path().join("build.prop");
    std::fs::write(
        &prop_file,
        format!(
            "ro.debuggable={}\ndebug.vulkan.layers=VK_LAYER_KHRONOS_validation\n",
            u8::from(debuggable)
        ),
    )
    .expect("write the properties");
    let env = require(paths::lavapipe_env())
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VKGEN_PROPERTIES", &prop_file)
        .set("VKGEN_APP_LAYER_PATH", app_layers.path());
    (env, root, app_layers)
}

/// `debug.vulkan.layers=VK_LAYER_KHRONOS_validation` activates the layer on a debuggable config:
/// the misuse is reported although the application enabled no layer.
#[test]
fn debug_vulkan_layers_activates_validation_when_debuggable_our_loader() {
    let loader = require(paths::loader_under_test());
    let (env, _root, _layers) = property_layer_env(true);
    in_child(
        "debug_vulkan_layers_activates_validation_when_debuggable_our_loader",
        &env,
        || {
            let errors = misuse_errors_without_layers(&loader);
            assert!(
                errors
                    .iter()
                    .any(|e| e.contains(validation::ZERO_SIZE_BUFFER_VUID)),
                "the property-activated validation layer reported nothing useful: {errors:?}"
            );
        },
    );
}

/// On a release config the property counts too (AOSP dropped the debuggable gate in 2020): the
/// layer, found in the app's own layer dir, reports the misuse.
#[test]
fn debug_vulkan_layers_honoured_when_not_debuggable_our_loader() {
    let loader = require(paths::loader_under_test());
    let (env, _root, _layers) = property_layer_env(false);
    in_child(
        "debug_vulkan_layers_honoured_when_not_debuggable_our_loader",
        &env,
        || {
            let errors = misuse_errors_without_layers(&loader);
            assert!(
                errors
                    .iter()
                    .any(|e| e.contains(validation::ZERO_SIZE_BUFFER_VUID)),
                "the property-activated validation layer reported nothing useful: {errors:?}"
            );
        },
    );
}

/// Collects ERROR messages of a debug-utils messenger into the `Mutex<Vec<String>>` at
/// `user_data`.
unsafe extern "system" fn collect_errors(
    severity: ash::vk::DebugUtilsMessageSeverityFlagsEXT,
    _types: ash::vk::DebugUtilsMessageTypeFlagsEXT,
    data: *const ash::vk::DebugUtilsMessengerCallbackDataEXT<'_>,
    user_data: *mut std::ffi::c_void,
) -> ash::vk::Bool32 {
    if severity.contains(ash::vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        && !data.is_null()
        && !user_data.is_null()
    {
        // SAFETY: `user_data` is the live collector registered with the messenger; `data` is
        // valid for the callback.
        let (collected, data) = unsafe {
            (
                &*(user_data as *const std::sync::Mutex<Vec<String>>),
                &*data,
            )
        };
        // SAFETY: the message, when non-null, is a C string valid for the callback.
        let message = unsafe { data.message_as_c_str() }
            .map(|m| m.to_string_lossy().into_owned())
            .unwrap_or_default();
        collected
            .lock()
            .unwrap_or_else(|p| p.into_inner())
            .push(message);
    }
    ash::vk::FALSE
}

/// Instance (only `VK_EXT_debug_utils`, no layers), messenger, device, then
/// `vkCreateBuffer(size = 0)`; returns the ERROR messages that arrived.
fn misuse_errors_without_layers(loader: &std::path::Path) -> Vec<String> {
    use ash::vk;
    let entry = require(vkgen_tests::compute::load_entry(loader));
    let collected = Box::new(std::sync::Mutex::new(Vec::<String>::new()));
    let instance =
        vkgen_tests::compute::create_instance(&entry, &[], &[ash::ext::debug_utils::NAME])
            .expect("vkCreateInstance with VK_EXT_debug_utils");
    let utils = ash::ext::debug_utils::Instance::new(&entry, &instance);
    let info = vk::DebugUtilsMessengerCreateInfoEXT::default()
        .message_severity(vk::DebugUtilsMessageSeverityFlagsEXT::ERROR)
        .message_type(
            vk::DebugUtilsMessageTypeFlagsEXT::GENERAL
                | vk::DebugUtilsMessageTypeFlagsEXT::VALIDATION,
        )
        .pfn_user_callback(Some(collect_errors))
        .user_data(std::ptr::from_ref(&*collected).cast_mut().cast());
    // SAFETY: the callback only touches `collected`, which outlives the messenger.
    let messenger = unsafe { utils.create_debug_utils_messenger(&info, None) }.expect("messenger");
    let (pd, family) = require(vkgen_tests::compute::pick_compute_device(&instance));
    let device = require(vkgen_tests::compute::create_device(&instance, pd, family));
    let bad = vk::BufferCreateInfo::default()
        .size(0)
        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: deliberately invalid (size 0) but with valid pointers; a buffer that comes back
    // is destroyed at once.
    if let Ok(buffer) = unsafe { device.create_buffer(&bad, None) } {
        // SAFETY: created above, unused.
        unsafe { device.destroy_buffer(buffer, None) };
    }
    drop(device);
    // SAFETY: the messenger belongs to `instance`, which is still alive.
    unsafe { utils.destroy_debug_utils_messenger(messenger, None) };
    drop(instance);
    let errors = collected.lock().unwrap_or_else(|p| p.into_inner()).clone();
    errors
}
