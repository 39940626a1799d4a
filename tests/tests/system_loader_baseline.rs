//! The harness run against Debian's loader (`libvulkan.so.1`) and lavapipe. These tests
//! validate the harness itself: if they fail, a failure of `our_loader.rs` means nothing.
//!
//! Vulkan work runs in child processes with `VK_DRIVER_FILES` = lavapipe's manifest.

use vkgen_tests::env::{in_child, Env};
use vkgen_tests::{paths, require, scenarios, validation, vulkaninfo};

fn lavapipe_env() -> Env {
    require(paths::lavapipe_env())
}

#[test]
fn fill_compute_system_loader() {
    let loader = require(paths::system_loader());
    in_child("fill_compute_system_loader", &lavapipe_env(), || {
        scenarios::fill_compute(&loader);
    });
}

#[test]
fn vulkaninfo_system_loader_self_diff_is_empty() {
    let loader = require(paths::system_loader());
    let env = lavapipe_env();
    let a = require(vulkaninfo::run_vulkaninfo(&loader, &env));
    scenarios::check_lavapipe_report(&a, "vulkaninfo via Debian's loader (1st run)");
    let b = require(vulkaninfo::run_vulkaninfo(&loader, &env));
    scenarios::check_lavapipe_report(&b, "vulkaninfo via Debian's loader (2nd run)");
    assert_eq!(vulkaninfo::diff_reports(&a, &a, &[]), Vec::<String>::new());
    let diff = vulkaninfo::diff_reports(&a, &b, &vulkaninfo::default_ignores());
    assert!(
        diff.is_empty(),
        "two vulkaninfo runs of the same stack differ:\n{}",
        diff.join("\n")
    );
    // The same through the scenario used for our loader.
    let diff = scenarios::vulkaninfo_diff(&loader, &loader, &env);
    assert!(diff.is_empty(), "self diff:\n{}", diff.join("\n"));
}

#[test]
fn diff_reports_detects_injected_difference() {
    let loader = require(paths::system_loader());
    let a = require(vulkaninfo::run_vulkaninfo(&loader, &lavapipe_env()));
    scenarios::check_lavapipe_report(&a, "vulkaninfo via Debian's loader");
    let mut b = a.clone();

    let dev = "/capabilities/device";
    let limit = b
        .pointer_mut(&format!(
            "{dev}/properties/VkPhysicalDeviceProperties/limits/maxImageDimension2D"
        ))
        .expect("maxImageDimension2D in the report");
    let old_limit = limit.as_u64().expect("maxImageDimension2D is a number");
    *limit = (old_limit + 1).into();
    let extensions = b
        .pointer_mut(&format!("{dev}/extensions"))
        .and_then(|v| v.as_object_mut())
        .expect("device extension map");
    let removed = extensions
        .remove("VK_KHR_maintenance1")
        .expect("lavapipe has VK_KHR_maintenance1");
    extensions.insert("VK_VKGEN_injected".to_owned(), 1.into());
    // Loader-owned and volatile: reported only without the default ignores.
    let swapchain = extensions
        .get_mut("VK_KHR_swapchain")
        .expect("lavapipe has VK_KHR_swapchain");
    let old_swapchain = swapchain.clone();
    *swapchain = 999.into();
    let queue_count = b
        .pointer_mut(&format!(
            "{dev}/queueFamiliesProperties/0/VkQueueFamilyProperties/queueCount"
        ))
        .expect("queue family 0 queueCount");
    let old_queue_count = queue_count.clone();
    *queue_count = 7.into();
    let profile = b
        .pointer_mut("/profiles")
        .and_then(|v| v.as_object_mut())
        .and_then(|m| m.values_mut().next())
        .expect("one profile");
    let date = profile
        .pointer_mut("/history/0/date")
        .expect("profile history date");
    let old_date = date.clone();
    *date = "1999-12-31".into();
    let profile_name = a["profiles"]
        .as_object()
        .and_then(|m| m.keys().next())
        .expect("profile name")
        .clone();

    let mut expected = vec![
        format!(
            "capabilities/device/properties/VkPhysicalDeviceProperties/limits/maxImageDimension2D: {old_limit} != {}",
            old_limit + 1
        ),
        format!("capabilities/device/extensions/VK_KHR_maintenance1: only in a ({removed})"),
        "capabilities/device/extensions/VK_VKGEN_injected: only in b (1)".to_owned(),
        format!(
            "capabilities/device/queueFamiliesProperties/0/VkQueueFamilyProperties/queueCount: {old_queue_count} != 7"
        ),
    ];
    let mut diff = vulkaninfo::diff_reports(&a, &b, &vulkaninfo::default_ignores());
    diff.sort();
    expected.sort();
    assert_eq!(diff, expected);

    let mut diff_all = vulkaninfo::diff_reports(&a, &b, &[]);
    diff_all.sort();
    expected.push(format!(
        "capabilities/device/extensions/VK_KHR_swapchain: {old_swapchain} != 999"
    ));
    expected.push(format!(
        "profiles/{profile_name}/history/0/date: {old_date} != \"1999-12-31\""
    ));
    expected.sort();
    assert_eq!(diff_all, expected);

    // And the reverse direction swaps "only in a" and "only in b".
    let reverse = vulkaninfo::diff_reports(&b, &a, &vulkaninfo::default_ignores());
    assert!(reverse.contains(&format!(
        "capabilities/device/extensions/VK_KHR_maintenance1: only in b ({removed})"
    )));
    assert!(reverse
        .contains(&"capabilities/device/extensions/VK_VKGEN_injected: only in a (1)".to_owned()));
    assert_eq!(reverse.len(), 4, "{reverse:#?}");
}

/// The equivalent, for Debian's loader, of our loader's `VKGEN_APP_LAYER_PATH` layer test:
/// the layer reached only through `VK_LAYER_PATH` (a directory with a copy of its manifest).
#[test]
fn validation_layer_via_vk_layer_path_system_loader() {
    let loader = require(paths::system_loader());
    let layer_dir = require(validation::khronos_layer_dir());
    let env = lavapipe_env().set("VK_LAYER_PATH", layer_dir.path());
    in_child(
        "validation_layer_via_vk_layer_path_system_loader",
        &env,
        || {
            scenarios::validation_layer_reachable(&loader);
        },
    );
}

/// Negative control: with `VK_LAYER_PATH` pointing at an empty directory, Debian's loader
/// does not offer the validation layer (so the positive test really goes through the path).
#[test]
fn validation_layer_absent_with_empty_vk_layer_path_system_loader() {
    let loader = require(paths::system_loader());
    let empty = require(validation::empty_dir());
    let env = lavapipe_env().set("VK_LAYER_PATH", empty.path());
    in_child(
        "validation_layer_absent_with_empty_vk_layer_path_system_loader",
        &env,
        || scenarios::validation_layer_absent(&loader),
    );
}

/// The child mechanism itself: a scenario name that matches no test must fail, not pass.
#[test]
fn child_with_unknown_scenario_fails() {
    if vkgen_tests::env::child_scenario().is_some() {
        return;
    }
    let output = vkgen_tests::env::run_child("no_such_scenario", &Env::new());
    let err = vkgen_tests::env::check_child("no_such_scenario", &output)
        .expect_err("a child that ran no test must not count as passed");
    assert!(
        err.contains("did not run scenario no_such_scenario"),
        "{err}"
    );
}
