//! Acceptance 1: an `ash` application renders frames with known content (a clear colour and a
//! triangle, both changing every frame) through a swapchain on our loader and the host driver
//! (lavapipe behind `VK_ANDROID_native_buffer`), installed as the HAL module. The consumer side
//! of the `vkgen-window` `BufferQueue` reads every frame back, every pixel is checked, and the
//! last frame is written as a PNG (`target/wsi/triangle.png`).

mod wsi_support;

use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};
use wsi_support::{check_triangle_frame, hal_env, render_triangle_frames, window, Wsi};

/// How many frames the pixel test renders.
const FRAMES: u32 = 24;

#[test]
fn host_triangle_frames_reach_the_window() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = hal_env("host", "");
    in_child("host_triangle_frames_reach_the_window", &env, || {
        let wsi = Wsi::new(&loader, &[], &[], &[]).expect("instance and device");
        let window = window(160, 120);
        let mut checked = 0;
        let last = render_triangle_frames(&wsi, &window, FRAMES, |i, frame, clear, tri| {
            assert_eq!((frame.width, frame.height), (160, 120), "frame {i} size");
            assert_eq!(
                frame.frame_number,
                u64::from(i) + 1,
                "frames arrive in order"
            );
            if let Err(e) = check_triangle_frame(frame, clear, tri) {
                panic!("frame {i}: {e}");
            }
            checked += 1;
        })
        .unwrap_or_else(|e| panic!("{e}"));
        assert_eq!(checked, FRAMES);
        let last = last.expect("a last frame");
        let dir = paths::target_dir().join("wsi");
        std::fs::create_dir_all(&dir).unwrap();
        let png = dir.join("triangle.png");
        last.write_png(&png).expect("write the PNG");
        let bytes = std::fs::read(&png).unwrap();
        assert_eq!(&bytes[1..4], b"PNG");
        drop(last);
        let counters = window.counters();
        println!(
            "{FRAMES} frames rendered, read back and checked; last frame written to {} \
             (window: {counters:?})",
            png.display()
        );
    });
}
