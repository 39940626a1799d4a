//! Unmodified third-party compute clients from PyPI through our loader (issue 12), each on both
//! of its ways to a driver: lavapipe as a Khronos ICD, and lavapipe behind `vulkan.host.so`
//! (HAL). They bring their own Vulkan code — wgpu-native's Rust backend (wgpu-py), Taichi's
//! SPIR-V code generator and runtime, ncnn's shader library — and each finds the loader by
//! name at run time, so they exercise paths our own tests do not write. Each script
//! (`tests/clients/*.py`) checks its results exactly:
//! * wgpu-py: a WGSL kernel on `u32` arrays (wrapping multiply, xor) equals numpy;
//! * Taichi (`ti.vulkan`): integer kernels (shifts, xor, modulo, an `i64` atomic sum) equal numpy;
//! * ncnn: convolution + ReLU + max-pool on integer-valued data equals ncnn's CPU path and
//!   numpy bit for bit (fp16/bf16 storage and Winograd off, so every sum is exact).
//!
//! ncnn's own loader (simplevk) opens the driver a set `VK_DRIVER_FILES` or `VK_ICD_FILENAMES`
//! names directly, skipping `libvulkan.so`; the linker-log check caught that, and the ICD path
//! therefore puts lavapipe's manifest in the standard search path instead (`client_support`).
//!
//! The versions are pinned in `tests/clients/requirements.txt`; `.ci/setup` installs them into
//! `target/py-venv`. A test skips loudly only when that venv or its package is missing.

mod client_support;
mod wsi_support;

use std::path::PathBuf;
use std::time::Duration;

use client_support::{ClientEnv, Stack};
use vkgen_tests::env::{controlled_command, output_with_timeout, Env};
use vkgen_tests::paths;

/// The venv's Python when it can import `module`, else `None` after saying why.
fn python_with(module: &str) -> Option<PathBuf> {
    let python = paths::target_dir().join("py-venv/bin/python");
    if !python.is_file() {
        eprintln!(
            "SKIPPED: {} is missing: run `bash .ci/setup` (it creates the venv from \
             tests/clients/requirements.txt)",
            python.display()
        );
        return None;
    }
    let mut cmd = controlled_command(&python, &Env::new());
    cmd.args(["-c", &format!("import {module}")]);
    let out = output_with_timeout(&mut cmd, Duration::from_secs(60)).unwrap();
    if !out.status.success() {
        eprintln!(
            "SKIPPED: the venv cannot import {module} (run `bash .ci/setup`): {}",
            String::from_utf8_lossy(&out.stderr)
        );
        return None;
    }
    Some(python)
}

/// Runs `tests/clients/<script>` on `stack`; the script exits non-zero on any mismatch. Returns
/// its stdout, which has to contain `expect`.
fn run_client(module: &str, script: &str, stack: Stack, expect: &str) {
    let Some(python) = python_with(module) else {
        return;
    };
    let client = ClientEnv::new(stack);
    let script = paths::workspace_root().join("tests/clients").join(script);
    // Taichi writes its caches under $HOME; keep them in the scratch directory.
    let extra = Env::new()
        .set("HOME", client.work_dir())
        .set("TI_OFFLINE_CACHE", "0");
    let mut cmd = client.command(&python, &extra);
    cmd.current_dir(client.work_dir()).arg(&script);
    let (out, took) = client.run(module, cmd, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(expect),
        "{module} on {}: no {expect:?} in its output:\n{stdout}\n{}",
        stack.name(),
        String::from_utf8_lossy(&out.stderr)
    );
    eprintln!("{module} on {}: {took:.1?}\n{stdout}", stack.name());
}

#[test]
fn wgpu_compute_through_our_loader_on_lavapipe_as_icd() {
    run_client(
        "wgpu",
        "wgpu_compute.py",
        Stack::OursIcd,
        "65536 of 65536 equal the CPU",
    );
}

#[test]
fn wgpu_compute_through_our_loader_on_the_host_driver() {
    run_client(
        "wgpu",
        "wgpu_compute.py",
        Stack::OursHal,
        "65536 of 65536 equal the CPU",
    );
}

#[test]
fn taichi_compute_through_our_loader_on_lavapipe_as_icd() {
    run_client(
        "taichi",
        "taichi_compute.py",
        Stack::OursIcd,
        "4096 of 4096 equal the CPU",
    );
}

#[test]
fn taichi_compute_through_our_loader_on_the_host_driver() {
    run_client(
        "taichi",
        "taichi_compute.py",
        Stack::OursHal,
        "4096 of 4096 equal the CPU",
    );
}

#[test]
fn ncnn_compute_through_our_loader_on_lavapipe_as_icd() {
    run_client(
        "ncnn",
        "ncnn_compute.py",
        Stack::OursIcd,
        "768 of 768 equal the CPU path",
    );
}

#[test]
fn ncnn_compute_through_our_loader_on_the_host_driver() {
    run_client(
        "ncnn",
        "ncnn_compute.py",
        Stack::OursHal,
        "768 of 768 equal the CPU path",
    );
}
