//! Test bodies shared by the baseline (Debian's loader) and our-loader test files. Each takes
//! the loader library to test and panics, with a message saying what went wrong, on failure;
//! the ones that depend on loader environment variables run inside [`crate::env::in_child`].

use std::path::Path;

use crate::{compute, require, validation, vulkaninfo};

/// Elements per fill dispatch (1024 workgroups of 64).
pub const FILL_N: u32 = 65_536;

/// The multipliers each fill test runs with: identity, a prime, and one that wraps.
pub const FILL_MULTIPLIERS: [u32; 3] = [1, 1_000_003, 0x9E37_79B9];

/// Loads `loader`, requires lavapipe to be its only physical device (so `VK_DRIVER_FILES`,
/// or whatever the child's environment selects drivers with, took effect), and runs
/// `fill.comp` for [`FILL_N`] elements with each of [`FILL_MULTIPLIERS`], comparing every
/// element with [`compute::expected_fill`].
pub fn fill_compute(loader: &Path) {
    let entry = require(compute::load_entry(loader));
    let names = require(compute::physical_device_names(&entry));
    assert!(
        names.len() == 1 && names[0].starts_with("llvmpipe"),
        "expected lavapipe (llvmpipe) as the only physical device through {}, got {names:?}",
        loader.display()
    );
    for multiplier in FILL_MULTIPLIERS {
        let got = require(compute::run_fill_compute(&entry, FILL_N, multiplier));
        require(compute::verify_fill(&got, FILL_N, multiplier));
        println!(
            "fill n={FILL_N} multiplier={multiplier:#x}: all {} elements correct via {}",
            got.len(),
            loader.display()
        );
    }
}

/// The validation layer is offered by `loader`, and enabling it with `VK_EXT_debug_utils`
/// delivers an ERROR for a zero-sized buffer and none for correct use.
pub fn validation_layer_reachable(loader: &Path) {
    let entry = require(compute::load_entry(loader));
    let outcome = require(validation::run_validation_misuse(&entry));
    require(validation::check_validation_outcome(&outcome));
    println!(
        "validation layer via {}: {} error(s) for the misuse, first: {}; vkCreateBuffer returned {:?}",
        loader.display(),
        outcome.errors_from_misuse.len(),
        outcome.errors_from_misuse[0],
        outcome.misuse_result
    );
}

/// The validation layer is *not* offered by `loader` (negative control: the child's
/// environment does not point at it), and enabling it fails with
/// `VK_ERROR_LAYER_NOT_PRESENT`.
pub fn validation_layer_absent(loader: &Path) {
    let entry = require(compute::load_entry(loader));
    let layers = require(validation::instance_layer_names(&entry));
    let name = validation::VALIDATION_LAYER.to_string_lossy();
    assert!(
        !layers.iter().any(|l| *l == name),
        "{name} is offered by {} without being pointed at it; layers: {layers:?}",
        loader.display()
    );
    assert_eq!(
        validation::try_enable_validation_layer(&entry),
        ash::vk::Result::ERROR_LAYER_NOT_PRESENT,
        "enabling the absent {name} through {}",
        loader.display()
    );
}

/// Basic shape checks on a vulkaninfo report of lavapipe: the device is llvmpipe, it has a
/// sizeable extension list, format list and one queue family with compute.
pub fn check_lavapipe_report(report: &serde_json::Value, what: &str) {
    let device_name = report
        .pointer("/capabilities/device/properties/VkPhysicalDeviceProperties/deviceName")
        .and_then(|v| v.as_str())
        .unwrap_or_else(|| panic!("{what}: report has no deviceName"));
    assert!(
        device_name.starts_with("llvmpipe"),
        "{what}: reported device {device_name:?}, expected llvmpipe"
    );
    let extensions = report
        .pointer("/capabilities/device/extensions")
        .and_then(|v| v.as_object())
        .unwrap_or_else(|| panic!("{what}: report has no device extension map"));
    assert!(
        extensions.len() >= 20,
        "{what}: only {} device extensions",
        extensions.len()
    );
    let formats = report
        .pointer("/capabilities/device/formats")
        .and_then(|v| v.as_object())
        .unwrap_or_else(|| panic!("{what}: report has no format map"));
    assert!(
        formats.len() >= 50,
        "{what}: only {} formats",
        formats.len()
    );
    let queue_flags = report
        .pointer(
            "/capabilities/device/queueFamiliesProperties/0/VkQueueFamilyProperties/queueFlags",
        )
        .and_then(|v| v.as_array())
        .unwrap_or_else(|| panic!("{what}: report has no queue family 0 flags"));
    assert!(
        queue_flags.iter().any(|f| f == "VK_QUEUE_COMPUTE_BIT"),
        "{what}: queue family 0 flags {queue_flags:?} lack compute"
    );
}

/// Runs vulkaninfo through `loader_a` and `loader_b` (each with `env`) and returns the
/// differences outside [`vulkaninfo::default_ignores`], after checking both reports'
/// shape with [`check_lavapipe_report`].
pub fn vulkaninfo_diff(loader_a: &Path, loader_b: &Path, env: &crate::env::Env) -> Vec<String> {
    let a = require(vulkaninfo::run_vulkaninfo(loader_a, env));
    check_lavapipe_report(&a, &format!("vulkaninfo via {}", loader_a.display()));
    let b = require(vulkaninfo::run_vulkaninfo(loader_b, env));
    check_lavapipe_report(&b, &format!("vulkaninfo via {}", loader_b.display()));
    vulkaninfo::diff_reports(&a, &b, &vulkaninfo::default_ignores())
}
