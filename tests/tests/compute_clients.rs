//! Unmodified third-party compute clients through our loader (issue 12), on both of its ways to
//! a driver: lavapipe as a Khronos ICD, and lavapipe behind `vulkan.host.so` (HAL). FFmpeg's
//! Vulkan filters (Debian's ffmpeg 5.1): frames go to Vulkan images and back (`hwupload` →
//! filter → `hwdownload`).
//! * The round trip with no filter equals the CPU frames exactly.
//! * `hflip_vulkan` and `transpose_vulkan` equal, byte for byte, what the same FFmpeg produces
//!   through Debian's loader on lavapipe. (FFmpeg 5.1's flip shaders do not match the CPU
//!   `hflip` on lavapipe whichever loader runs them, so the CPU comparison is the round trip's.)
//!
//! Every run checks, in the dynamic linker's log, that our `libvulkan.so` (or, for the
//! reference, Debian's) and the expected driver were the ones loaded. Skips loudly when ffmpeg
//! is not installed.

mod client_support;
mod wsi_support;

use std::path::Path;
use std::time::Duration;

use client_support::{which, ClientEnv, Stack};
use vkgen_tests::env::Env;

/// Runs ffmpeg on a 128×96 test pattern (2 frames) with `filters`, returning the RGBA bytes.
fn ffmpeg(bin: &Path, stack: &ClientEnv, vulkan: bool, filters: &str) -> Vec<u8> {
    let out = stack.work_dir().join("frames.rgba");
    let mut cmd = stack.command(bin, &Env::new());
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
    .arg(&out);
    let what = format!("ffmpeg -vf {filters}");
    if vulkan {
        stack.run(&what, cmd, Duration::from_secs(60));
    } else {
        let o = vkgen_tests::env::output_with_timeout(&mut cmd, Duration::from_secs(60)).unwrap();
        assert!(
            o.status.success(),
            "{what}: {}",
            String::from_utf8_lossy(&o.stderr)
        );
    }
    let bytes = std::fs::read(&out).unwrap();
    assert_eq!(bytes.len(), 128 * 96 * 4 * 2, "{what}: frame size");
    bytes
}

fn ffmpeg_filters(stack: Stack) {
    let Some(bin) = which("ffmpeg") else {
        eprintln!("SKIPPED: ffmpeg (Debian ffmpeg) is not installed");
        return;
    };
    let ours = ClientEnv::new(stack);
    let debian = ClientEnv::new(Stack::Debian);

    let cpu = ffmpeg(&bin, &ours, false, "format=rgba");
    let round_trip = ffmpeg(
        &bin,
        &ours,
        true,
        "format=rgba,hwupload,hwdownload,format=rgba",
    );
    assert!(
        round_trip == cpu,
        "{}: the Vulkan round trip changed pixels",
        stack.name()
    );

    for filter in ["hflip_vulkan", "transpose_vulkan"] {
        let chain = format!("format=rgba,hwupload,{filter},hwdownload,format=rgba");
        let a = ffmpeg(&bin, &ours, true, &chain);
        let b = ffmpeg(&bin, &debian, true, &chain);
        assert!(
            a == b,
            "{filter}: {} and Debian's loader give different frames",
            stack.name()
        );
        assert!(a != cpu, "{filter}: the frames did not change");
    }
}

#[test]
fn ffmpeg_vulkan_filters_through_our_loader_on_the_host_driver() {
    ffmpeg_filters(Stack::OursHal);
}

#[test]
fn ffmpeg_vulkan_filters_through_our_loader_on_lavapipe_as_icd() {
    ffmpeg_filters(Stack::OursIcd);
}
