//! Producer → consumer round trips through the C ABI: pixels written through the buffer's native
//! handle come back from `acquire_latest`, as PNG too; per-frame metadata; buffer reuse, age and
//! reallocation; the exact call sequence of libvulkan's swapchain.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use vkgen_abi::native_window::*;
use vkgen_platform::sync_fd::{FenceSignaller, NativeFence};
use vkgen_window::c_abi::helpers as nw;
use vkgen_window::{AndroidNativeRect, BufferQueue, Cta8613Metadata, QueueMode, WindowConfig};

fn connected(config: WindowConfig) -> (Arc<BufferQueue>, Win) {
    let q = BufferQueue::new(config);
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    (q, win)
}

#[test]
fn pixels_round_trip_and_png() {
    let (q, win) = connected(WindowConfig::with_size(40, 30));
    let (b, fd) = win.dequeue().unwrap();
    assert_eq!(fd, -1, "a new buffer is ready at once");
    let desc = anwb(b);
    assert_eq!((desc.width, desc.height, desc.stride), (40, 30, 48));
    assert_eq!(
        desc.usage,
        buffer_usage::GPU_TEXTURE | buffer_usage::COMPOSER_OVERLAY
    );
    fill(b, |x, y| pattern(x, y, 0x5A).to_vec());

    // The acquire fence signals later, from another thread: the consumer must wait for it.
    let (signaller, fence_fd) = fence();
    assert_eq!(win.queue(b, fence_fd), 0);
    assert_eq!(q.frame_count(), 1);
    assert_eq!(q.pending_frames(), 1);
    let start = Instant::now();
    let t = thread::spawn(move || {
        thread::sleep(Duration::from_millis(50));
        signaller.signal().unwrap();
    });
    let frame = q.acquire_latest().expect("a frame");
    assert!(
        start.elapsed() >= Duration::from_millis(45),
        "waited for the fence"
    );
    t.join().unwrap();
    assert!(q.acquire_latest().is_none(), "nothing newer");

    assert_eq!(frame.frame_number, 1);
    assert_eq!((frame.width, frame.height, frame.stride), (40, 30, 48));
    assert_eq!(frame.format, HAL_PIXEL_FORMAT_RGBA_8888);
    assert_eq!(frame.pixels.len(), 40 * 30 * 4);
    assert_eq!(frame.raw, frame.pixels, "RGBA8888 needs no conversion");
    for (x, y) in [(0, 0), (39, 0), (0, 29), (39, 29), (17, 11)] {
        assert_eq!(frame.pixel(x, y), pattern(x, y, 0x5A), "({x}, {y})");
    }

    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("frame.png");
    frame.write_png(&path).unwrap();
    let decoder = png::Decoder::new(std::fs::File::open(&path).unwrap());
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    assert_eq!((info.width, info.height), (40, 30));
    assert_eq!(info.color_type, png::ColorType::Rgba);
    assert_eq!(info.bit_depth, png::BitDepth::Eight);
    assert_eq!(&buf[..info.buffer_size()], &frame.pixels[..]);

    // Release with a fence: the next dequeue of that buffer hands it to the producer.
    let release = FenceSignaller::new().unwrap();
    let buffer_id = frame.buffer_id;
    q.release(frame, release.fence().unwrap());
    let (b2, fd2) = win.dequeue().unwrap();
    assert_eq!(b2, b, "the only allocated buffer is reused");
    assert!(fd2 >= 0, "the consumer's release fence comes back");
    // SAFETY: the dequeue made us the owner of fd2.
    let fence2 = unsafe { NativeFence::from_raw(fd2) };
    assert!(!fence2.is_signalled().unwrap());
    release.signal().unwrap();
    assert!(fence2.is_signalled().unwrap());
    assert_eq!(win.q(NATIVE_WINDOW_BUFFER_AGE), 1);
    assert_eq!(win.cancel(b2, -1), 0);

    let c = q.counters();
    assert_eq!(
        (
            c.dequeues,
            c.queues,
            c.cancels,
            c.acquires,
            c.releases,
            c.allocations
        ),
        (2, 1, 1, 1, 1, 1)
    );
    let next = {
        let (b3, fd3) = win.dequeue().unwrap();
        assert_eq!(fd3, -1, "cancelled with -1");
        fill(b3, |_, _| vec![9, 9, 9, 9]);
        assert_eq!(win.queue(b3, -1), 0);
        q.acquire_latest().unwrap()
    };
    assert_eq!(next.buffer_id, buffer_id);
    assert_eq!(next.pixel(3, 3), [9, 9, 9, 9]);
}

#[test]
fn formats_convert_to_rgba8() {
    let (q, win) = connected(WindowConfig::with_size(4, 2));
    // (format, one pixel in that format, its RGBA8)
    let cases: [(i32, Vec<u8>, [u8; 4]); 7] = [
        (
            HAL_PIXEL_FORMAT_RGBA_8888,
            vec![10, 20, 30, 40],
            [10, 20, 30, 40],
        ),
        (
            HAL_PIXEL_FORMAT_RGBX_8888,
            vec![10, 20, 30, 40],
            [10, 20, 30, 255],
        ),
        (
            HAL_PIXEL_FORMAT_BGRA_8888,
            vec![10, 20, 30, 40],
            [30, 20, 10, 40],
        ),
        (
            HAL_PIXEL_FORMAT_RGB_565,
            0x001fu16.to_le_bytes().to_vec(),
            [0, 0, 255, 255],
        ),
        (
            HAL_PIXEL_FORMAT_RGBA_FP16,
            [0x3c00u16, 0, 0x3800, 0x3c00]
                .iter()
                .flat_map(|h| h.to_le_bytes())
                .collect(),
            [255, 0, 128, 255],
        ),
        (
            HAL_PIXEL_FORMAT_RGBA_1010102,
            (0x3ffu32 << 10 | 2 << 30).to_le_bytes().to_vec(),
            [0, 255, 0, 170],
        ),
        (HAL_PIXEL_FORMAT_R_8, vec![77], [77, 0, 0, 255]),
    ];
    for (format, px, rgba) in cases {
        assert_eq!(win.set_format(format), 0);
        assert_eq!(win.q(NATIVE_WINDOW_FORMAT), format);
        let b = win.dequeue_ready();
        assert_eq!(anwb(b).format, format, "reallocated in the new format");
        fill(b, |_, _| px.clone());
        assert_eq!(win.queue(b, -1), 0);
        let f = q.acquire_latest().unwrap();
        assert_eq!(f.format, format);
        assert_eq!(f.raw.len(), 4 * 2 * px.len());
        assert_eq!(&f.raw[..px.len()], &px[..]);
        assert!(
            f.pixels.chunks(4).all(|p| p == rgba),
            "format {format:#x}: {:?}",
            &f.pixels[..4]
        );
        let release = q.counters().releases;
        drop(f);
        assert_eq!(
            q.counters().releases,
            release + 1,
            "dropping a frame releases it"
        );
    }
}

#[test]
fn per_frame_metadata() {
    let (q, win) = connected(WindowConfig {
        dataspace: HAL_DATASPACE_V0_SRGB,
        ..WindowConfig::with_size(8, 8)
    });
    let w = win.0;
    let damage = [AndroidNativeRect {
        left: 0,
        top: 8,
        right: 4,
        bottom: 4,
    }];
    let cta = Cta8613Metadata {
        max_content_light_level: 500.0,
        max_frame_average_light_level: 100.0,
    };
    // SAFETY: valid window; the pointers point at live locals.
    unsafe {
        assert_eq!(
            nw::vkgen_native_window_set_buffers_transform(w, NATIVE_WINDOW_TRANSFORM_ROT_90),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_surface_damage(w, damage.as_ptr(), 1),
            0
        );
        assert_eq!(nw::vkgen_native_window_set_buffers_timestamp(w, 42), 0);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_cta861_3_metadata(w, &cta),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_scaling_mode(w, NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW),
            0
        );
    }
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    let f = q.acquire_latest().unwrap();
    assert_eq!(f.transform, NATIVE_WINDOW_TRANSFORM_ROT_90);
    assert_eq!(
        f.dataspace, HAL_DATASPACE_V0_SRGB,
        "UNKNOWN → consumer default"
    );
    assert_eq!(f.damage, damage);
    assert_eq!((f.timestamp_ns, f.auto_timestamp), (42, false));
    assert_eq!(f.hdr.cta861_3, Some(cta));
    assert_eq!(f.scaling_mode, NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW);
    assert!(!f.shared_buffer && !f.auto_refresh);
    q.release(f, NativeFence::signalled());

    // Damage and timestamp are per frame; the rest sticks.
    // SAFETY: valid window.
    unsafe {
        assert_eq!(
            nw::vkgen_native_window_set_buffers_data_space(w, HAL_DATASPACE_BT2020_PQ),
            0
        )
    };
    let b = win.dequeue_ready();
    let before = vkgen_window::timing::now_ns();
    assert_eq!(win.queue(b, -1), 0);
    let f = q.acquire_latest().unwrap();
    assert!(f.damage.is_empty());
    assert!(f.auto_timestamp && f.timestamp_ns >= before);
    assert_eq!(f.transform, NATIVE_WINDOW_TRANSFORM_ROT_90);
    assert_eq!(f.dataspace, HAL_DATASPACE_BT2020_PQ);
    assert_eq!(f.hdr.cta861_3, Some(cta));
}

#[test]
fn latest_only_replaces_and_fifo_keeps_order() {
    // LatestOnly (default): each queue replaces the frame the consumer has not taken, and the
    // replaced buffer goes straight back to the producer, so it never runs out.
    let (q, win) = connected(WindowConfig {
        max_buffer_count: 3,
        ..WindowConfig::with_size(4, 4)
    });
    assert_eq!(win.set_dequeue_timeout(0), 0);
    for i in 0..20u8 {
        let b = win.dequeue_ready();
        fill(b, |_, _| vec![i, 0, 0, 255]);
        assert_eq!(win.queue(b, -1), 0);
    }
    assert_eq!(q.pending_frames(), 1);
    let f = q.acquire_latest().unwrap();
    assert_eq!((f.frame_number, f.pixel(0, 0)[0]), (20, 19));
    assert_eq!(q.counters().dropped_frames, 19);
    assert!(q.allocated_buffers() <= 3);
    drop(f);

    // Fifo: frames wait in order; acquire_next takes the oldest, acquire_latest skips ahead.
    let (q, win) = connected(WindowConfig {
        queue_mode: QueueMode::Fifo,
        max_buffer_count: 5,
        ..WindowConfig::with_size(4, 4)
    });
    for i in 0..4u8 {
        let b = win.dequeue_ready();
        fill(b, |_, _| vec![i, 0, 0, 255]);
        assert_eq!(win.queue(b, -1), 0);
    }
    assert_eq!(q.pending_frames(), 4);
    assert_eq!(win.q(NATIVE_WINDOW_CONSUMER_RUNNING_BEHIND), 1);
    let a = q.acquire_next().unwrap();
    let b = q.acquire_next().unwrap();
    assert_eq!((a.frame_number, b.frame_number), (1, 2));
    assert_eq!((a.pixel(1, 1)[0], b.pixel(1, 1)[0]), (0, 1));
    assert_ne!(a.buffer_id, b.buffer_id);
    let c = q.acquire_latest().unwrap();
    assert_eq!(c.frame_number, 4);
    assert_eq!(q.counters().dropped_frames, 1, "frame 3 skipped");
    assert_eq!(q.pending_frames(), 0);

    // Swap interval 0 (async) replaces even in Fifo mode.
    assert_eq!(win.set_swap_interval(0), 0);
    for _ in 0..2 {
        let b = win.dequeue_ready();
        assert_eq!(win.queue(b, -1), 0);
    }
    assert_eq!(q.pending_frames(), 1);
}

#[test]
fn buffer_age_rotation_and_reallocation() {
    let (q, win) = connected(WindowConfig {
        queue_mode: QueueMode::Fifo,
        max_buffer_count: 3,
        min_undequeued: 1,
        ..WindowConfig::with_size(8, 8)
    });
    assert_eq!(win.set_buffer_count(3), 0);
    // A consumer that releases at once: the free buffer is reused (Android hands out allocated
    // free buffers before empty slots), one frame old each time.
    let mut first = None;
    for i in 0..4 {
        let b = win.dequeue_ready();
        assert_eq!(win.q(NATIVE_WINDOW_BUFFER_AGE), if i == 0 { 0 } else { 1 });
        assert_eq!(*first.get_or_insert(b), b);
        assert_eq!(win.queue(b, -1), 0);
        let f = q.acquire_next().unwrap();
        q.release(f, NativeFence::signalled());
    }
    // A consumer that keeps showing a frame until the next one arrives: two buffers alternate,
    // each two frames old when it comes back.
    let mut shown = None;
    let mut order = Vec::new();
    for i in 0..6 {
        let b = win.dequeue_ready();
        let age = win.q(NATIVE_WINDOW_BUFFER_AGE);
        order.push(b);
        assert_eq!(win.queue(b, -1), 0);
        let f = q.acquire_next().unwrap();
        if let Some(previous) = shown.replace(f) {
            q.release(previous, NativeFence::signalled());
        }
        if i >= 2 {
            assert_eq!(age, 2, "frame {i}");
            assert_eq!(order[i], order[i - 2]);
            assert_ne!(order[i], order[i - 1]);
        }
    }
    drop(shown);
    assert_eq!(q.counters().allocations, 2);

    // A resize reallocates at the next dequeue; the old buffer pointer is gone.
    q.resize(16, 4).unwrap();
    let b = win.dequeue_ready();
    assert_eq!((anwb(b).width, anwb(b).height), (16, 4));
    assert_eq!(win.q(NATIVE_WINDOW_BUFFER_AGE), 0);
    assert_eq!(q.counters().allocations, 3);
    assert_eq!(win.cancel(b, -1), 0);

    // New usage bits not covered by the buffer reallocate too; a subset does not.
    let allocs = q.counters().allocations;
    // SAFETY: valid window.
    unsafe {
        assert_eq!(
            nw::vkgen_native_window_set_usage(w_of(&win), buffer_usage::CPU_WRITE_OFTEN),
            0
        )
    };
    let b = win.dequeue_ready();
    assert!(anwb(b).usage & buffer_usage::CPU_WRITE_OFTEN != 0);
    assert_eq!(q.counters().allocations, allocs + 1);
    assert_eq!(win.cancel(b, -1), 0);
    // SAFETY: valid window.
    unsafe { assert_eq!(nw::vkgen_native_window_set_usage(w_of(&win), 0), 0) };
    let b = win.dequeue_ready();
    assert_eq!(q.counters().allocations, allocs + 1);
    assert_eq!(win.cancel(b, -1), 0);
}

fn w_of(win: &Win) -> *mut ANativeWindow {
    win.0
}

#[test]
fn queue_and_cancel_errors() {
    let (q, win) = connected(WindowConfig::with_size(4, 4));
    // SAFETY: all-zero is a valid ANativeWindowBuffer value; it is not one of ours.
    let mut foreign: ANativeWindowBuffer = unsafe { std::mem::zeroed() };
    assert_eq!(win.queue(&mut foreign, -1), EINVAL);
    assert_eq!(win.cancel(&mut foreign, -1), EINVAL);
    assert_eq!(win.queue(std::ptr::null_mut(), -1), EINVAL);
    // A pointer into nowhere is compared, never dereferenced.
    assert_eq!(win.queue(0x10 as *mut _, -1), EINVAL);
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    assert_eq!(win.queue(b, -1), EINVAL, "double queue");
    assert_eq!(win.cancel(b, -1), EINVAL, "cancel of a queued buffer");
    let f = q.acquire_latest().unwrap();
    assert_eq!(win.queue(b, -1), EINVAL, "queue of an acquired buffer");
    q.release(f, NativeFence::signalled());
    assert_eq!(win.cancel(b, -1), EINVAL, "cancel of a free buffer");
    // After a reconnect the old buffers are unknown.
    let b = win.dequeue_ready();
    assert_eq!(win.disconnect(), 0);
    assert_eq!(win.queue(b, -1), ENODEV);
    assert_eq!(win.connect(), 0);
    assert_eq!(win.queue(b, -1), EINVAL);
    assert_eq!(q.counters().queues, 1);
}

#[test]
fn disconnect_keeps_the_newest_frame_for_the_consumer() {
    let (q, win) = connected(WindowConfig {
        queue_mode: QueueMode::Fifo,
        ..WindowConfig::with_size(4, 4)
    });
    for i in 1..=2u8 {
        let b = win.dequeue_ready();
        fill(b, |_, _| vec![i; 4]);
        assert_eq!(win.queue(b, -1), 0);
    }
    assert_eq!(win.disconnect(), 0);
    assert_eq!(q.allocated_buffers(), 0);
    let f = q
        .acquire_latest()
        .expect("the last frame survives the disconnect");
    assert_eq!((f.frame_number, f.pixel(0, 0)), (2, [2; 4]));
    assert!(q.acquire_latest().is_none());
    // Its buffer no longer belongs to a slot; releasing it is harmless.
    q.release(f, FenceSignaller::new().unwrap().fence().unwrap());
    assert_eq!(q.allocated_buffers(), 0);
}

/// libvulkan's `vkCreateSwapchainKHR` + acquire/present loop, call for call (AOSP
/// swapchain.cpp), for FIFO and MAILBOX.
#[test]
fn libvulkan_swapchain_sequence() {
    for mailbox in [false, true] {
        let q = BufferQueue::new(WindowConfig {
            transform_hint: NATIVE_WINDOW_TRANSFORM_ROT_90,
            ..WindowConfig::with_size(64, 48)
        });
        let win = Win::of(&q);
        let w = win.0;
        let mut consumer_usage = 0u64;
        // CreateAndroidSurface.
        // SAFETY: valid window and out-pointer.
        unsafe {
            assert_eq!(
                nw::vkgen_native_window_get_consumer_usage(w, &mut consumer_usage),
                0
            )
        };
        assert_eq!(win.connect(), 0);
        // Capabilities.
        let min_undequeued = win.q(NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS) as u32;
        let max_buffers = win.q(NATIVE_WINDOW_MAX_BUFFER_COUNT) as u32;
        let caps_min = max_buffers.min(min_undequeued + 2);
        assert_eq!((min_undequeued, max_buffers, caps_min), (1, 8, 3));
        assert!(min_undequeued + 1 < max_buffers, "MAILBOX is offered");

        // CreateSwapchainKHR.
        assert_eq!(win.disconnect(), 0);
        assert_eq!(win.connect(), 0);
        assert_eq!(win.set_dequeue_timeout(-1), 0);
        assert_eq!(win.set_swap_interval(if mailbox { 0 } else { 1 }), 0);
        assert_eq!(win.set_shared(false), 0);
        assert_eq!(win.set_auto_refresh(false), 0);
        assert_eq!(win.set_format(HAL_PIXEL_FORMAT_RGBA_8888), 0);
        // SAFETY: valid window.
        unsafe {
            assert_eq!(
                nw::vkgen_native_window_set_buffers_data_space(w, HAL_DATASPACE_V0_SRGB),
                0
            );
            assert_eq!(win.set_dimensions(64, 48), 0);
            assert_eq!(
                nw::vkgen_native_window_set_buffers_transform(w, NATIVE_WINDOW_TRANSFORM_ROT_270),
                0
            );
            assert_eq!(
                nw::vkgen_native_window_set_scaling_mode(
                    w,
                    NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW
                ),
                0
            );
        }
        let min_undequeued = win.q(NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS) as u32;
        assert_eq!(min_undequeued, if mailbox { 2 } else { 1 });
        let num_images = 3u32.clamp(caps_min, max_buffers);
        assert_eq!(
            win.set_buffer_count((min_undequeued + 1).max(num_images) as usize),
            0
        );
        let usage = consumer_usage | buffer_usage::GPU_RENDER_TARGET;
        // SAFETY: valid window.
        unsafe { assert_eq!(nw::vkgen_native_window_set_usage(w, usage), 0) };
        assert_eq!(
            win.q(NATIVE_WINDOW_TRANSFORM_HINT),
            NATIVE_WINDOW_TRANSFORM_ROT_90
        );
        let mut refresh = 0i64;
        // SAFETY: valid window and out-pointer.
        unsafe {
            assert_eq!(
                nw::vkgen_native_window_get_refresh_cycle_duration(w, &mut refresh),
                0
            )
        };
        assert_eq!(refresh, 16_666_667);

        // Dequeue every image (allowed before the first queue), then cancel them all.
        let images: Vec<_> = (0..num_images)
            .map(|_| {
                let (b, fd) = win.dequeue().expect("dequeue all images");
                assert_eq!(fd, -1);
                // The loader keeps sp<ANativeWindowBuffer>.
                // SAFETY: live buffer.
                unsafe { (anwb(b).common.inc_ref.unwrap())(b.cast()) };
                let d = anwb(b);
                assert_eq!((d.width, d.height, d.usage), (64, 48, usage));
                b
            })
            .collect();
        let mut distinct = images.clone();
        distinct.dedup();
        assert_eq!(distinct.len(), images.len());
        for &b in &images {
            assert_eq!(win.cancel(b, -1), 0);
        }

        // Acquire / present, keeping one image acquired by the app at a time.
        for frame in 1..=10u8 {
            assert_eq!(win.set_dequeue_timeout(-1), 0);
            let (b, fd) = win.dequeue().unwrap();
            assert!(images.contains(&b), "a swapchain image");
            // SAFETY: we own the fd (the loader dups it for the driver and closes it later).
            drop(unsafe { NativeFence::from_raw(fd) });
            fill(b, |_, _| vec![frame, 0, 0, 255]);
            let (s, release_fd) = fence();
            s.signal().unwrap();
            assert_eq!(win.queue(b, release_fd), 0);
        }
        let f = q.acquire_latest().unwrap();
        assert_eq!(f.frame_number, 10);
        assert_eq!(f.pixel(10, 10), [10, 0, 0, 255]);
        assert_eq!(f.transform, NATIVE_WINDOW_TRANSFORM_ROT_270);
        assert_eq!(f.dataspace, HAL_DATASPACE_V0_SRGB);
        drop(f);

        // After the first queue the producer may hold buffer count - min undequeued buffers.
        assert_eq!(win.set_dequeue_timeout(0), 0);
        let limit = (min_undequeued + 1).max(num_images) - min_undequeued;
        let held: Vec<_> = (0..limit).map(|_| win.dequeue_ready()).collect();
        assert_eq!(
            win.dequeue().unwrap_err(),
            ENOSYS,
            "over the limit: INVALID_OPERATION"
        );
        for b in held {
            assert_eq!(win.cancel(b, -1), 0);
        }

        // DestroySwapchain / DestroySurface.
        for &b in &images {
            // SAFETY: drops the reference taken above.
            unsafe { (anwb(b).common.dec_ref.unwrap())(b.cast()) };
        }
        assert_eq!(win.disconnect(), 0);
        assert_eq!(q.counters().queues, 10);
    }
}
