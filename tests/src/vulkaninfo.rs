//! `vulkaninfo --json` through a chosen loader, and differences between two reports.
//!
//! vulkaninfo (1.3.239) dlopens `libvulkan.so`, then `libvulkan.so.1`. [`run_vulkaninfo`]
//! puts a temporary directory with both names symlinked to the loader under test first on
//! `LD_LIBRARY_PATH`, and proves from the dynamic linker's log (`LD_DEBUG=libs`) that this
//! library, and no other `libvulkan.so*`, was initialised.
//!
//! The JSON is a Vulkan Profiles document (schema `profiles-0.8-latest`) for the first GPU:
//!
//! ```text
//! $schema
//! capabilities/device/extensions/<VK_EXT_name>: spec version
//! capabilities/device/features/<VkPhysicalDevice*Features>/...
//! capabilities/device/properties/<VkPhysicalDevice*Properties>/...
//! capabilities/device/formats/<VK_FORMAT_*>/{VkFormatProperties,VkFormatProperties3,...}
//! capabilities/device/queueFamiliesProperties/<i>/VkQueueFamilyProperties/...
//! profiles/VP_VULKANINFO_<device>_<driver version>/{version,api-version,label,description,
//!     contributors,history/<i>/{revision,date,author,comment},capabilities}
//! ```
//!
//! It holds device-level data only: no instance extensions, no layers, no instance or loader
//! version (`api-version` is the device's `apiVersion`). So the loader-owned parts are the
//! device extensions an Android-style loader implements or hides itself (WSI), listed in
//! [`LOADER_OWNED_PATHS`]; [`VOLATILE_PATHS`] holds what changes from run to run.

use std::path::{Path, PathBuf};

use serde_json::Value;

use crate::env::{controlled_command, output_with_timeout, Env, CHILD_TIMEOUT};

/// Parts of a report owned by an Android-style loader rather than the driver: the WSI device
/// extensions the loader implements on top of `VK_ANDROID_native_buffer` (and that extension,
/// which it hides), with their feature / property structures. A driver like lavapipe exposes
/// its own swapchain extensions, with spec versions that need not match the loader's.
pub const LOADER_OWNED_PATHS: &[&str] = &[
    "capabilities/device/extensions/VK_KHR_swapchain",
    "capabilities/device/extensions/VK_KHR_swapchain_mutable_format",
    "capabilities/device/extensions/VK_KHR_incremental_present",
    "capabilities/device/extensions/VK_KHR_shared_presentable_image",
    "capabilities/device/extensions/VK_GOOGLE_display_timing",
    "capabilities/device/extensions/VK_EXT_hdr_metadata",
    "capabilities/device/extensions/VK_EXT_swapchain_maintenance1",
    "capabilities/device/extensions/VK_ANDROID_native_buffer",
    "capabilities/device/features/VkPhysicalDeviceSwapchainMaintenance1FeaturesEXT",
    "capabilities/device/properties/VkPhysicalDevicePresentationPropertiesANDROID",
];

/// Parts of a report that differ between runs of the same stack: the export date.
pub const VOLATILE_PATHS: &[&str] = &["profiles/*/history/*/date"];

/// [`LOADER_OWNED_PATHS`] and [`VOLATILE_PATHS`]: what a loader-vs-loader diff ignores.
pub fn default_ignores() -> Vec<&'static str> {
    LOADER_OWNED_PATHS
        .iter()
        .chain(VOLATILE_PATHS)
        .copied()
        .collect()
}

/// The `libvulkan.so*` names vulkaninfo (and applications) open.
const SHIM_NAMES: &[&str] = &["libvulkan.so", "libvulkan.so.1"];

/// Runs `vulkaninfo --json` with `loader` as its Vulkan loader, in the controlled environment
/// of [`crate::env`] plus `env`, and returns the parsed report.
pub fn run_vulkaninfo(loader: &Path, env: &Env) -> Result<Value, String> {
    let vulkaninfo = crate::paths::vulkaninfo_bin()?;
    let loader = loader
        .canonicalize()
        .map_err(|e| format!("loader {} not usable: {e}", loader.display()))?;
    let work = tempfile::Builder::new()
        .prefix("vkgen-vulkaninfo-")
        .tempdir()
        .map_err(|e| format!("cannot create a temporary directory: {e}"))?;
    let shim = work.path().join("lib");
    std::fs::create_dir(&shim).map_err(|e| format!("cannot create {}: {e}", shim.display()))?;
    for name in SHIM_NAMES {
        std::os::unix::fs::symlink(&loader, shim.join(name))
            .map_err(|e| format!("cannot symlink {name} -> {}: {e}", loader.display()))?;
    }
    let ld_path = match std::env::var_os("LD_LIBRARY_PATH") {
        Some(old) if !old.is_empty() => {
            let mut dirs = vec![shim.clone()];
            dirs.extend(std::env::split_paths(&old));
            std::env::join_paths(dirs).map_err(|e| format!("bad LD_LIBRARY_PATH: {e}"))?
        }
        _ => shim.clone().into_os_string(),
    };
    let ld_log = work.path().join("ld-debug");
    let report_path = work.path().join("vulkaninfo.json");

    let mut cmd = controlled_command(&vulkaninfo, env);
    cmd.current_dir(work.path())
        .env("LD_LIBRARY_PATH", ld_path)
        .env("LD_DEBUG", "libs")
        .env("LD_DEBUG_OUTPUT", &ld_log)
        .arg("--json")
        .arg("-o")
        .arg(&report_path);
    let output = output_with_timeout(&mut cmd, CHILD_TIMEOUT)?;
    let stdout = String::from_utf8_lossy(&output.stdout);
    let stderr = String::from_utf8_lossy(&output.stderr);
    if !output.status.success() {
        return Err(format!(
            "vulkaninfo --json with loader {} failed ({}):\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
            loader.display(),
            crate::env::describe_status(output.status)
        ));
    }
    check_loader_used(work.path(), "ld-debug", &shim).map_err(|e| {
        format!(
            "vulkaninfo with loader {}: {e}\n--- stderr ---\n{stderr}",
            loader.display()
        )
    })?;
    let text = std::fs::read_to_string(&report_path).map_err(|e| {
        format!(
            "vulkaninfo wrote no report {} ({e}):\n--- stdout ---\n{stdout}\n--- stderr ---\n{stderr}",
            report_path.display()
        )
    })?;
    serde_json::from_str(&text).map_err(|e| {
        format!(
            "vulkaninfo report {} is not JSON: {e}",
            report_path.display()
        )
    })
}

/// Checks the dynamic linker's logs (`<dir>/<prefix>.<pid>`) for the initialisation of a
/// library from `shim`, and for no other `libvulkan.so*`.
fn check_loader_used(dir: &Path, prefix: &str, shim: &Path) -> Result<(), String> {
    let mut logs = String::new();
    let entries =
        std::fs::read_dir(dir).map_err(|e| format!("cannot list {}: {e}", dir.display()))?;
    for entry in entries {
        let path = entry
            .map_err(|e| format!("cannot list {}: {e}", dir.display()))?
            .path();
        let is_log = path
            .file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n.starts_with(&format!("{prefix}.")));
        if is_log {
            logs.push_str(
                &std::fs::read_to_string(&path)
                    .map_err(|e| format!("cannot read {}: {e}", path.display()))?,
            );
        }
    }
    if logs.is_empty() {
        return Err("no dynamic-linker log (LD_DEBUG) was written".to_owned());
    }
    let initialised: Vec<PathBuf> = logs
        .lines()
        .filter_map(|line| {
            line.split_once("calling init: ")
                .map(|(_, p)| PathBuf::from(p.trim()))
        })
        .collect();
    let is_vulkan_loader = |p: &PathBuf| {
        p.file_name()
            .and_then(|n| n.to_str())
            .is_some_and(|n| n == "libvulkan.so" || n.starts_with("libvulkan.so."))
    };
    let loaders: Vec<&PathBuf> = initialised.iter().filter(|p| is_vulkan_loader(p)).collect();
    let ours = loaders.iter().filter(|p| p.parent() == Some(shim)).count();
    let others: Vec<&&PathBuf> = loaders
        .iter()
        .filter(|p| p.parent() != Some(shim))
        .collect();
    if ours == 0 {
        return Err(format!(
            "the loader under test (via {}) was never initialised; Vulkan loaders initialised: {loaders:?}",
            shim.display()
        ));
    }
    if !others.is_empty() {
        return Err(format!(
            "another Vulkan loader was initialised besides the one under test: {others:?}"
        ));
    }
    Ok(())
}

/// Lists the differences between two JSON reports, one line per differing path
/// (`a/b/0/c: <a value> != <b value>`, or `only in a` / `only in b`), skipping every path
/// matched by a pattern in `ignore`.
///
/// A pattern is a `/`-separated path whose segments match object keys or array indices
/// literally, or any one segment when `*`; it ignores the path it matches and everything
/// below it.
pub fn diff_reports(a: &Value, b: &Value, ignore: &[&str]) -> Vec<String> {
    let patterns: Vec<Vec<&str>> = ignore.iter().map(|p| p.split('/').collect()).collect();
    let mut out = Vec::new();
    let mut path = Vec::new();
    diff_value(a, b, &mut path, &patterns, &mut out);
    out
}

fn is_ignored(path: &[String], patterns: &[Vec<&str>]) -> bool {
    patterns.iter().any(|pattern| {
        pattern.len() <= path.len()
            && pattern
                .iter()
                .zip(path)
                .all(|(p, segment)| *p == "*" || p == segment)
    })
}

fn show(value: &Value) -> String {
    const MAX: usize = 160;
    let text = value.to_string();
    if text.chars().count() <= MAX {
        text
    } else {
        let cut: String = text.chars().take(MAX).collect();
        format!("{cut}...")
    }
}

fn diff_value(
    a: &Value,
    b: &Value,
    path: &mut Vec<String>,
    patterns: &[Vec<&str>],
    out: &mut Vec<String>,
) {
    if is_ignored(path, patterns) {
        return;
    }
    match (a, b) {
        (Value::Object(ma), Value::Object(mb)) => {
            for (key, va) in ma {
                path.push(key.clone());
                match mb.get(key) {
                    Some(vb) => diff_value(va, vb, path, patterns, out),
                    None if !is_ignored(path, patterns) => {
                        out.push(format!("{}: only in a ({})", path.join("/"), show(va)));
                    }
                    None => {}
                }
                path.pop();
            }
            for (key, vb) in mb {
                if ma.contains_key(key) {
                    continue;
                }
                path.push(key.clone());
                if !is_ignored(path, patterns) {
                    out.push(format!("{}: only in b ({})", path.join("/"), show(vb)));
                }
                path.pop();
            }
        }
        (Value::Array(va), Value::Array(vb)) => {
            for i in 0..va.len().max(vb.len()) {
                path.push(i.to_string());
                match (va.get(i), vb.get(i)) {
                    (Some(x), Some(y)) => diff_value(x, y, path, patterns, out),
                    (Some(x), None) if !is_ignored(path, patterns) => {
                        out.push(format!("{}: only in a ({})", path.join("/"), show(x)));
                    }
                    (None, Some(y)) if !is_ignored(path, patterns) => {
                        out.push(format!("{}: only in b ({})", path.join("/"), show(y)));
                    }
                    _ => {}
                }
                path.pop();
            }
        }
        _ if a == b => {}
        _ => out.push(format!(
            "{}: {} != {}",
            display_path(path),
            show(a),
            show(b)
        )),
    }
}

fn display_path(path: &[String]) -> String {
    if path.is_empty() {
        "(root)".to_owned()
    } else {
        path.join("/")
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use serde_json::json;

    #[test]
    fn diff_lists_every_kind_of_difference() {
        let a = json!({"x": 1, "o": {"k": [1, 2, 3], "s": "a"}, "gone": true});
        let b = json!({"x": 2, "o": {"k": [1, 5], "s": "a"}, "new": null});
        let d = diff_reports(&a, &b, &[]);
        assert_eq!(
            d,
            [
                "gone: only in a (true)",
                "o/k/1: 2 != 5",
                "o/k/2: only in a (3)",
                "x: 1 != 2",
                "new: only in b (null)",
            ]
        );
        assert!(diff_reports(&a, &a, &[]).is_empty());
        assert!(diff_reports(&b, &b, &[]).is_empty());
    }

    #[test]
    fn ignore_patterns_cover_subtrees_and_wildcards() {
        let a = json!({"p": {"one": {"date": 1, "v": 1}, "two": {"date": 1}}, "x": 1});
        let b = json!({"p": {"one": {"date": 2, "v": 2}, "two": {"date": 3}}, "x": 2});
        assert_eq!(
            diff_reports(&a, &b, &["p/*/date"]),
            ["p/one/v: 1 != 2", "x: 1 != 2"]
        );
        assert_eq!(diff_reports(&a, &b, &["p", "x"]), Vec::<String>::new());
        // A pattern longer than the path does not match it.
        assert_eq!(diff_reports(&a, &b, &["x/y"]).len(), 4);
        // Only-in entries are ignorable too.
        let c = json!({"e": {"A": 1}});
        let d = json!({"e": {"B": 1}});
        assert_eq!(diff_reports(&c, &d, &["e/A", "e/B"]), Vec::<String>::new());
        assert_eq!(diff_reports(&c, &d, &["e/A"]), ["e/B: only in b (1)"]);
    }

    #[test]
    fn loader_check_reads_the_linker_log() {
        let dir = tempfile::tempdir().unwrap();
        let shim = dir.path().join("lib");
        let write = |text: &str| std::fs::write(dir.path().join("ld.42"), text).unwrap();
        let init = |p: &str| format!("     42:\tcalling init: {p}\n");

        write(&format!(
            "{}{}",
            init("/lib/libc.so.6"),
            init(&format!("{}/libvulkan.so", shim.display()))
        ));
        check_loader_used(dir.path(), "ld", &shim).unwrap();

        write(&init("/lib/libc.so.6"));
        let err = check_loader_used(dir.path(), "ld", &shim).unwrap_err();
        assert!(err.contains("never initialised"), "{err}");

        write(&format!(
            "{}{}",
            init(&format!("{}/libvulkan.so.1", shim.display())),
            init("/usr/lib/x86_64-linux-gnu/libvulkan.so.1")
        ));
        let err = check_loader_used(dir.path(), "ld", &shim).unwrap_err();
        assert!(err.contains("another Vulkan loader"), "{err}");

        // Drivers are not loaders.
        write(&format!(
            "{}{}",
            init(&format!("{}/libvulkan.so", shim.display())),
            init("/usr/lib/x86_64-linux-gnu/libvulkan_lvp.so")
        ));
        check_loader_used(dir.path(), "ld", &shim).unwrap();

        let empty = tempfile::tempdir().unwrap();
        let err = check_loader_used(empty.path(), "ld", &shim).unwrap_err();
        assert!(err.contains("no dynamic-linker log"), "{err}");
    }

    #[test]
    fn type_change_at_root() {
        assert_eq!(
            diff_reports(&json!(1), &json!("1"), &[]),
            ["(root): 1 != \"1\""]
        );
    }
}
