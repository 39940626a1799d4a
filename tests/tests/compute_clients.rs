//! Unmodified third-party compute clients through our loader (issue 12), with lavapipe behind
//! `vulkan.host.so` (HAL). FFmpeg's Vulkan filters (Debian's ffmpeg 5.1): frames go to Vulkan
//! images and back (`hwupload` → filter → `hwdownload`).
//! * The round trip with no filter equals the CPU frames exactly.
//! * `hflip_vulkan` and `transpose_vulkan` equal, byte for byte, what the same FFmpeg produces
//!   through Debian's loader on lavapipe. (FFmpeg 5.1's flip shaders do not match the CPU
//!   `hflip` on lavapipe whichever loader runs them, so the CPU comparison is the round trip's.)
//!
//! Skips loudly when ffmpeg is not installed.

mod wsi_support;

use std::path::{Path, PathBuf};
use std::time::Duration;

use vkgen_tests::env::{controlled_command, output_with_timeout, Env};
use vkgen_tests::{paths, require};

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// Runs ffmpeg on a 128×96 test pattern (2 frames) with `filters`, returning the RGBA bytes.
fn ffmpeg(bin: &Path, env: &Env, vulkan: bool, filters: &str, out: &Path) -> Vec<u8> {
    let mut cmd = controlled_command(bin, env);
    cmd.args(["-hide_banner", "-loglevel", "error"]);
    if vulkan {
        cmd.args(["-init_hw_device", "vulkan=vk:0", "-filter_hw_device", "vk"]);
    }
    cmd.args([
        "-f",
        "lavfi",
        "-i",
        "testsrc=size=128x96:rate=1",
        "-frames:v",
        "2",
        "-vf",
        filters,
        "-f",
        "rawvideo",
        "-y",
    ])
    .arg(out);
    let o = output_with_timeout(&mut cmd, Duration::from_secs(120)).unwrap();
    assert!(
        o.status.success(),
        "ffmpeg -vf {filters}: {}\n{}",
        o.status,
        String::from_utf8_lossy(&o.stderr)
    );
    let bytes = std::fs::read(out).unwrap();
    assert_eq!(
        bytes.len(),
        128 * 96 * 4 * 2,
        "ffmpeg -vf {filters}: frame size"
    );
    bytes
}

#[test]
fn ffmpeg_vulkan_filters_through_our_loader() {
    let Some(bin) = which("ffmpeg") else {
        eprintln!("SKIPPED: ffmpeg (Debian ffmpeg) is not installed");
        return;
    };
    let loader = require(paths::loader_under_test()).canonicalize().unwrap();
    let (hal, _root) = wsi_support::hal_env("host", "");
    let work = tempfile::tempdir().unwrap();
    let shim = work.path().join("lib");
    std::fs::create_dir(&shim).unwrap();
    for name in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(&loader, shim.join(name)).unwrap();
    }
    let ours = hal.set("LD_LIBRARY_PATH", &shim);
    let debian = require(paths::lavapipe_env());
    let out = |n: &str| work.path().join(n);

    let cpu = ffmpeg(&bin, &ours, false, "format=rgba", &out("cpu"));
    let round_trip = ffmpeg(
        &bin,
        &ours,
        true,
        "format=rgba,hwupload,hwdownload,format=rgba",
        &out("rt"),
    );
    assert!(round_trip == cpu, "the Vulkan round trip changed pixels");

    for filter in ["hflip_vulkan", "transpose_vulkan"] {
        let chain = format!("format=rgba,hwupload,{filter},hwdownload,format=rgba");
        let a = ffmpeg(&bin, &ours, true, &chain, &out("ours"));
        let b = ffmpeg(&bin, &debian, true, &chain, &out("debian"));
        assert!(
            a == b,
            "{filter}: our loader and Debian's give different frames"
        );
    }
}
