//! The shape of `libvulkan.so`: soname `libvulkan.so.1`, and exactly the symbols of
//! `generated/libvulkan.map` (the generated trampolines plus the loader's own entry points)
//! exported, plus on Linux hosts the six X11 and Wayland surface entry points desktop programs
//! link.

use std::collections::BTreeSet;
use std::process::Command;

use vkgen_tests::{paths, require};

fn tool_output(tool: &str, args: &[&str]) -> String {
    let out = Command::new(tool)
        .args(args)
        .output()
        .unwrap_or_else(|e| panic!("cannot run {tool} (binutils): {e}"));
    assert!(
        out.status.success(),
        "{tool} {args:?} failed: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).expect("UTF-8 output")
}

/// The symbols between `global:` and `local:` of the version script.
fn map_symbols() -> BTreeSet<String> {
    let map = paths::workspace_root().join("generated/libvulkan.map");
    let text = std::fs::read_to_string(&map).expect("read generated/libvulkan.map");
    let mut in_global = false;
    let mut out = BTreeSet::new();
    for line in text.lines() {
        let line = line.split('#').next().unwrap().trim();
        match line {
            "global:" => in_global = true,
            "local:" => in_global = false,
            l if in_global && !l.is_empty() => {
                out.insert(l.trim_end_matches(';').trim().to_owned());
            }
            _ => {}
        }
    }
    out
}

#[test]
fn exported_symbols_are_exactly_the_map() {
    let loader = require(paths::loader_under_test());
    let nm = tool_output("nm", &["-D", "--defined-only", loader.to_str().unwrap()]);
    let exported: BTreeSet<String> = nm
        .lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_owned())
        .collect();
    let mut expected = map_symbols();
    // Linux hosts: the desktop surface entry points desktop programs link directly (the
    // Khronos loader exports them); compiled out for Android, where the map is all.
    #[cfg(not(target_os = "android"))]
    expected.extend(
        [
            "vkCreateXcbSurfaceKHR",
            "vkCreateXlibSurfaceKHR",
            "vkGetPhysicalDeviceXcbPresentationSupportKHR",
            "vkGetPhysicalDeviceXlibPresentationSupportKHR",
            "vkCreateWaylandSurfaceKHR",
            "vkGetPhysicalDeviceWaylandPresentationSupportKHR",
        ]
        .map(String::from),
    );
    assert!(
        expected.len() > 200,
        "the map lists only {} symbols",
        expected.len()
    );
    let extra: Vec<_> = exported.difference(&expected).collect();
    let missing: Vec<_> = expected.difference(&exported).collect();
    assert!(
        extra.is_empty() && missing.is_empty(),
        "exports differ from generated/libvulkan.map: extra {extra:?}, missing {missing:?}"
    );
}

#[test]
fn soname_is_libvulkan_so_1() {
    let loader = require(paths::loader_under_test());
    let dynamic = tool_output("readelf", &["-d", loader.to_str().unwrap()]);
    assert!(
        dynamic
            .lines()
            .any(|l| l.contains("(SONAME)") && l.contains("[libvulkan.so.1]")),
        "no SONAME libvulkan.so.1:\n{dynamic}"
    );
}
