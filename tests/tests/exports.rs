//! The shape of `libvulkan.so`: soname `libvulkan.so.1`, and exactly the symbols of
//! `generated/libvulkan.map` (the generated trampolines plus the loader's own entry points)
//! exported, plus on Linux hosts [`DESKTOP_EXPORTS`]: the entry points desktop programs link
//! that AOSP's list lacks, so that ours exports every `vk*` symbol Debian's Khronos
//! `libvulkan.so.1` does and a program linked against it with `-z now` starts with ours.

use std::collections::BTreeSet;
use std::process::Command;

use vkgen_tests::env::controlled_command;
use vkgen_tests::{paths, require};

/// Linux hosts: what `libvulkan.so` exports beyond the map (`runtime/loader/src/api/desktop.rs`).
#[cfg(not(target_os = "android"))]
const DESKTOP_EXPORTS: &[&str] = &[
    "vkCreateXcbSurfaceKHR",
    "vkCreateXlibSurfaceKHR",
    "vkGetPhysicalDeviceXcbPresentationSupportKHR",
    "vkGetPhysicalDeviceXlibPresentationSupportKHR",
    "vkCreateWaylandSurfaceKHR",
    "vkGetPhysicalDeviceWaylandPresentationSupportKHR",
    "vkGetPhysicalDeviceDisplayPropertiesKHR",
    "vkGetPhysicalDeviceDisplayPlanePropertiesKHR",
    "vkGetDisplayPlaneSupportedDisplaysKHR",
    "vkGetDisplayModePropertiesKHR",
    "vkCreateDisplayModeKHR",
    "vkGetDisplayPlaneCapabilitiesKHR",
    "vkCreateDisplayPlaneSurfaceKHR",
    "vkGetPhysicalDeviceDisplayProperties2KHR",
    "vkGetPhysicalDeviceDisplayPlaneProperties2KHR",
    "vkGetDisplayModeProperties2KHR",
    "vkGetDisplayPlaneCapabilities2KHR",
    "vkCreateSharedSwapchainsKHR",
    "vkCreateHeadlessSurfaceEXT",
    "vkGetPhysicalDeviceSurfaceCapabilities2KHR",
    "vkGetPhysicalDeviceSurfaceFormats2KHR",
];

/// The defined dynamic symbols of `library`, without version suffixes.
fn exported_symbols(library: &std::path::Path) -> BTreeSet<String> {
    let nm = tool_output("nm", &["-D", "--defined-only", library.to_str().unwrap()]);
    nm.lines()
        .filter_map(|l| l.split_whitespace().nth(2))
        .map(|s| s.split('@').next().unwrap().to_owned())
        .collect()
}

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
    let exported = exported_symbols(&loader);
    let mut expected = map_symbols();
    // Linux hosts: the entry points desktop programs link directly (the Khronos loader exports
    // them); compiled out for Android, where the map is all.
    #[cfg(not(target_os = "android"))]
    expected.extend(DESKTOP_EXPORTS.iter().map(|s| s.to_string()));
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

/// Debian's Khronos loader's `vk*` exports (its only exports).
#[cfg(not(target_os = "android"))]
fn debian_vk_exports() -> BTreeSet<String> {
    let debian = require(paths::system_loader());
    let symbols = exported_symbols(&debian);
    let vk: BTreeSet<String> = symbols
        .iter()
        .filter(|s| s.starts_with("vk"))
        .cloned()
        .collect();
    assert!(vk.len() > 200, "{} exports only {vk:?}", debian.display());
    vk
}

/// Ours ⊇ Debian's: no `vk*` symbol a program linked against the Khronos loader can miss.
#[cfg(not(target_os = "android"))]
#[test]
fn every_khronos_export_is_exported() {
    let ours = exported_symbols(&require(paths::loader_under_test()));
    let missing: Vec<_> = debian_vk_exports().difference(&ours).cloned().collect();
    assert!(
        missing.is_empty(),
        "Debian's libvulkan.so.1 exports {missing:?}, ours does not"
    );
}

/// A program linked `-z now` against every symbol Debian's loader exports (each called on a
/// path never taken, so every one is a PLT relocation resolved at start) starts with ours, and
/// the new desktop exports answer: `VK_KHR_display` with no displays (lavapipe has none) and
/// the blocked surfaces with `VK_ERROR_EXTENSION_NOT_PRESENT`.
#[cfg(not(target_os = "android"))]
#[test]
fn bind_now_program_linked_against_every_khronos_export_starts() {
    let loader = require(paths::loader_under_test());
    let symbols = debian_vk_exports();
    let dir = tempfile::tempdir().expect("tempdir");
    let lib_dir = dir.path().join("lib");
    std::fs::create_dir(&lib_dir).unwrap();
    for name in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(&loader, lib_dir.join(name)).unwrap();
    }
    // Every symbol, declared without a prototype of its own (a translation unit of its own,
    // so the real prototypes of main.c do not clash).
    let mut refs = String::from("#include <stdlib.h>\n");
    for s in &symbols {
        refs.push_str(&format!("extern void {s}(void);\n"));
    }
    refs.push_str("void call_everything(int really) {\n    if (!really) return;\n");
    for s in &symbols {
        refs.push_str(&format!("    {s}();\n"));
    }
    refs.push_str("}\n");
    std::fs::write(dir.path().join("refs.c"), refs).unwrap();
    std::fs::write(dir.path().join("main.c"), BIND_NOW_MAIN).unwrap();
    let program = dir.path().join("program");
    let gcc = Command::new("gcc")
        .current_dir(dir.path())
        .args(["-O0", "-o"])
        .arg(&program)
        .args(["main.c", "refs.c", "-Wl,-z,now", "-Wl,--no-as-needed"])
        .arg(format!("-L{}", lib_dir.display()))
        .arg("-lvulkan")
        .output()
        .expect("cannot run gcc");
    assert!(
        gcc.status.success(),
        "gcc failed: {}",
        String::from_utf8_lossy(&gcc.stderr)
    );
    let dynamic = tool_output("readelf", &["-d", program.to_str().unwrap()]);
    assert!(
        dynamic.contains("BIND_NOW") || dynamic.contains("NOW"),
        "not linked BIND_NOW:\n{dynamic}"
    );
    assert!(dynamic.contains("[libvulkan.so.1]"), "{dynamic}");
    let env = require(paths::lavapipe_env())
        .set("LD_LIBRARY_PATH", &lib_dir)
        .set("LD_BIND_NOW", "1");
    let out = controlled_command(&program, &env)
        .output()
        .expect("run the program");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "the program failed ({}):\n{stdout}\n{stderr}",
        out.status
    );
    // The dynamic linker found `libvulkan.so.1` in `lib_dir`: ours.
    let ours = format!("loader {}", lib_dir.join("libvulkan.so.1").display());
    let maps_ours = stdout.lines().any(|l| l == ours);
    assert!(
        maps_ours,
        "the program did not run on our loader:\n{stdout}"
    );
    for line in [
        "displays 0 0",
        "planes 0 0",
        "displays2 0 0",
        "planes2 0 0",
        "headless -7",
    ] {
        assert!(
            stdout.lines().any(|l| l == line),
            "no {line:?} in:\n{stdout}\n{stderr}"
        );
    }
}

/// `main.c` of [`bind_now_program_linked_against_every_khronos_export_starts`]: the Vulkan types
/// it needs, written out (no Vulkan headers needed).
#[cfg(not(target_os = "android"))]
const BIND_NOW_MAIN: &str = r#"
#define _GNU_SOURCE
#include <dlfcn.h>
#include <link.h>
#include <stdint.h>
#include <stdio.h>
#include <string.h>

typedef struct {
    int sType; const void *pNext; uint32_t flags; const void *pApplicationInfo;
    uint32_t enabledLayerCount; const char *const *ppEnabledLayerNames;
    uint32_t enabledExtensionCount; const char *const *ppEnabledExtensionNames;
} InstanceCreateInfo;
typedef struct { int sType; const void *pNext; uint32_t flags; } HeadlessSurfaceCreateInfo;
typedef struct { unsigned char bytes[256]; } Big;

int vkCreateInstance(const InstanceCreateInfo *, const void *, void **);
void vkDestroyInstance(void *, const void *);
int vkEnumeratePhysicalDevices(void *, uint32_t *, void **);
int vkGetPhysicalDeviceDisplayPropertiesKHR(void *, uint32_t *, Big *);
int vkGetPhysicalDeviceDisplayPlanePropertiesKHR(void *, uint32_t *, Big *);
int vkGetPhysicalDeviceDisplayProperties2KHR(void *, uint32_t *, Big *);
int vkGetPhysicalDeviceDisplayPlaneProperties2KHR(void *, uint32_t *, Big *);
int vkCreateHeadlessSurfaceEXT(void *, const HeadlessSurfaceCreateInfo *, const void *, uint64_t *);
void call_everything(int really);

static int where(struct dl_phdr_info *info, size_t size, void *data) {
    (void)size; (void)data;
    if (strstr(info->dlpi_name, "libvulkan")) printf("loader %s\n", info->dlpi_name);
    return 0;
}

int main(int argc, char **argv) {
    (void)argv;
    call_everything(argc > 1000);
    dl_iterate_phdr(where, NULL);
    InstanceCreateInfo ci = { 1, NULL, 0, NULL, 0, NULL, 0, NULL };
    void *instance = NULL;
    int r = vkCreateInstance(&ci, NULL, &instance);
    printf("instance %d\n", r);
    if (r != 0) return 1;
    void *pds[8];
    uint32_t n = 8;
    r = vkEnumeratePhysicalDevices(instance, &n, pds);
    printf("devices %d %u\n", r, n);
    if (r != 0 || n == 0) return 1;
    uint32_t count = 99;
    r = vkGetPhysicalDeviceDisplayPropertiesKHR(pds[0], &count, NULL);
    printf("displays %d %u\n", r, count);
    count = 99;
    r = vkGetPhysicalDeviceDisplayPlanePropertiesKHR(pds[0], &count, NULL);
    printf("planes %d %u\n", r, count);
    count = 99;
    r = vkGetPhysicalDeviceDisplayProperties2KHR(pds[0], &count, NULL);
    printf("displays2 %d %u\n", r, count);
    count = 99;
    r = vkGetPhysicalDeviceDisplayPlaneProperties2KHR(pds[0], &count, NULL);
    printf("planes2 %d %u\n", r, count);
    HeadlessSurfaceCreateInfo hi = { 1000256000, NULL, 0 };
    uint64_t surface = 0;
    r = vkCreateHeadlessSurfaceEXT(instance, &hi, NULL, &surface);
    printf("headless %d\n", r);
    vkDestroyInstance(instance, NULL);
    return 0;
}
"#;
