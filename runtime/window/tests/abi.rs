//! The `ANativeWindow` ABI as C sees it: header, function table, connect/disconnect, `query`,
//! every `perform` code through the C shim, refcounting.

mod common;

use std::ffi::c_int;
use std::mem::size_of;
use std::sync::Arc;
use std::time::Duration;

use common::*;
use vkgen_abi::native_window::*;
use vkgen_window::c_abi::helpers as nw;
use vkgen_window::{
    AndroidNativeRect, AndroidXyColor, BufferQueue, Cta8613Metadata, FrameRate, QueueMode,
    Smpte2086Metadata, WindowConfig,
};

fn queue() -> Arc<BufferQueue> {
    BufferQueue::new(WindowConfig {
        width: 320,
        height: 240,
        transform_hint: NATIVE_WINDOW_TRANSFORM_ROT_90,
        min_undequeued: 2,
        max_buffer_count: 6,
        consumer_usage: buffer_usage::GPU_TEXTURE | buffer_usage::CPU_READ_OFTEN,
        refresh_ns: 8_333_333,
        ..Default::default()
    })
}

#[test]
fn header_and_function_table() {
    let q = queue();
    let w = q.window();
    // SAFETY: the queue is alive.
    let anw = unsafe { w.read() };
    assert_eq!(anw.common.magic, ANDROID_NATIVE_WINDOW_MAGIC);
    assert_eq!(anw.common.version, size_of::<ANativeWindow>() as c_int);
    assert_eq!((anw.min_swap_interval, anw.max_swap_interval), (0, 1));
    assert!(anw.xdpi > 0.0 && anw.ydpi > 0.0);
    assert!(anw.common.inc_ref.is_some() && anw.common.dec_ref.is_some());
    assert!(anw.set_swap_interval.is_some());
    assert!(anw.dequeue_buffer_deprecated.is_some());
    assert!(anw.lock_buffer_deprecated.is_some());
    assert!(anw.queue_buffer_deprecated.is_some());
    assert!(anw.query.is_some());
    assert!(anw.perform.is_some());
    assert!(anw.cancel_buffer_deprecated.is_some());
    assert!(anw.dequeue_buffer.is_some());
    assert!(anw.queue_buffer.is_some());
    assert!(anw.cancel_buffer.is_some());

    // Deprecated entry points refuse without touching their arguments.
    let mut b = std::ptr::null_mut();
    // SAFETY: valid window; the deprecated calls must not dereference anything.
    unsafe {
        assert_eq!((anw.dequeue_buffer_deprecated.unwrap())(w, &mut b), ENOSYS);
        assert_eq!((anw.lock_buffer_deprecated.unwrap())(w, b), ENOSYS);
        assert_eq!((anw.queue_buffer_deprecated.unwrap())(w, b), ENOSYS);
        assert_eq!((anw.cancel_buffer_deprecated.unwrap())(w, b), ENOSYS);
        assert_eq!(
            (anw.dequeue_buffer_deprecated.unwrap())(w, std::ptr::null_mut()),
            ENOSYS
        );
    }
    // SAFETY: the queue is alive.
    assert!(unsafe { BufferQueue::from_window(w) }.is_some_and(|q2| Arc::ptr_eq(&q, &q2)));
}

#[test]
fn bad_pointers_are_refused_not_dereferenced() {
    let q = queue();
    let win = Win::of(&q);
    // SAFETY: valid window; null value/out pointers must be rejected before use.
    unsafe {
        let anw = win.0.read();
        assert_eq!(
            (anw.query.unwrap())(win.0, NATIVE_WINDOW_WIDTH, std::ptr::null_mut()),
            EINVAL
        );
        assert_eq!(win.connect(), 0);
        let mut fd = 0;
        assert_eq!(
            (anw.dequeue_buffer.unwrap())(win.0, std::ptr::null_mut(), &mut fd),
            EINVAL
        );
        let mut b = std::ptr::null_mut();
        assert_eq!(
            (anw.dequeue_buffer.unwrap())(win.0, &mut b, std::ptr::null_mut()),
            EINVAL
        );
        // A null window through our own function table.
        let mut v = 0;
        assert_eq!(
            (anw.query.unwrap())(std::ptr::null(), NATIVE_WINDOW_WIDTH, &mut v),
            EINVAL
        );
        assert_eq!(
            (anw.set_swap_interval.unwrap())(std::ptr::null_mut(), 1),
            EINVAL
        );
        // Getters with a null out-pointer.
        assert_eq!(
            nw::vkgen_native_window_get_refresh_cycle_duration(win.0, std::ptr::null_mut()),
            EINVAL
        );
        assert_eq!(
            nw::vkgen_native_window_get_next_frame_id(win.0, std::ptr::null_mut()),
            EINVAL
        );
        assert_eq!(
            nw::vkgen_native_window_get_consumer_usage(win.0, std::ptr::null_mut()),
            EINVAL
        );
        assert_eq!(
            nw::vkgen_native_window_set_surface_damage(win.0, std::ptr::null(), 3),
            EINVAL
        );
        assert_eq!(
            nw::vkgen_native_window_set_buffers_hdr10_plus_metadata(win.0, 4, std::ptr::null()),
            EINVAL
        );
        // A window of another implementation is not mistaken for ours.
        let mut foreign = win.0.read();
        foreign.query = None;
        assert!(BufferQueue::from_window(&foreign).is_none());
        assert!(BufferQueue::from_window(std::ptr::null()).is_none());
    }
}

#[test]
fn connect_disconnect_and_second_connect() {
    let q = queue();
    let win = Win::of(&q);
    // Not connected: dequeue and disconnect fail with NO_INIT.
    assert_eq!(win.dequeue().unwrap_err(), ENODEV);
    assert_eq!(win.disconnect(), ENODEV);
    assert_eq!(win.connect(), 0);
    // Second connect, as libvulkan's CreateAndroidSurface on a window in use.
    assert_eq!(win.connect(), EINVAL);
    // SAFETY: valid window.
    unsafe {
        assert_eq!(
            nw::vkgen_native_window_api_connect(win.0, NATIVE_WINDOW_API_CPU),
            EINVAL
        );
        // Disconnecting another API than the connected one.
        assert_eq!(
            nw::vkgen_native_window_api_disconnect(win.0, NATIVE_WINDOW_API_CPU),
            EINVAL
        );
        // The deprecated argument-less forms are accepted and change nothing.
        assert_eq!(nw::vkgen_native_window_connect_deprecated(win.0), 0);
        // An unknown API.
        assert_eq!(win.disconnect(), 0);
        assert_eq!(nw::vkgen_native_window_api_connect(win.0, 99), EINVAL);
    }
    assert_eq!(q.producer_state().connected_api, None);
    assert_eq!(win.connect(), 0);
    assert_eq!(
        q.producer_state().connected_api,
        Some(NATIVE_WINDOW_API_EGL)
    );
    assert_eq!(win.disconnect(), 0);
    let c = q.counters();
    assert_eq!((c.connects, c.disconnects), (2, 2));
}

#[test]
fn query_values() {
    let q = queue();
    let win = Win::of(&q);
    assert_eq!(win.q(NATIVE_WINDOW_DEFAULT_WIDTH), 320);
    assert_eq!(win.q(NATIVE_WINDOW_DEFAULT_HEIGHT), 240);
    assert_eq!(win.q(NATIVE_WINDOW_WIDTH), 320);
    assert_eq!(win.q(NATIVE_WINDOW_HEIGHT), 240);
    assert_eq!(win.q(NATIVE_WINDOW_FORMAT), HAL_PIXEL_FORMAT_RGBA_8888);
    assert_eq!(
        win.q(NATIVE_WINDOW_TRANSFORM_HINT),
        NATIVE_WINDOW_TRANSFORM_ROT_90
    );
    assert_eq!(win.q(NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS), 2);
    assert_eq!(win.q(NATIVE_WINDOW_MAX_BUFFER_COUNT), 6);
    assert_eq!(
        win.q(NATIVE_WINDOW_CONSUMER_USAGE_BITS) as u32 as u64,
        buffer_usage::GPU_TEXTURE | buffer_usage::CPU_READ_OFTEN
    );
    assert_eq!(win.q(NATIVE_WINDOW_CONCRETE_TYPE), NATIVE_WINDOW_SURFACE);
    assert_eq!(win.q(NATIVE_WINDOW_BUFFER_AGE), 0);
    assert_eq!(win.q(NATIVE_WINDOW_CONSUMER_RUNNING_BEHIND), 0);
    assert_eq!(win.q(NATIVE_WINDOW_FRAME_TIMESTAMPS_SUPPORTS_PRESENT), 1);
    assert_eq!(win.q(NATIVE_WINDOW_IS_VALID), 1);
    assert_eq!(win.q(NATIVE_WINDOW_LAYER_COUNT), 1);
    assert_eq!(win.q(NATIVE_WINDOW_CONSUMER_IS_PROTECTED), 0);
    assert_eq!(
        win.q(NATIVE_WINDOW_DEFAULT_DATASPACE),
        HAL_DATASPACE_UNKNOWN
    );
    assert_eq!(win.q(NATIVE_WINDOW_DATASPACE), HAL_DATASPACE_UNKNOWN);
    assert_eq!(win.q(NATIVE_WINDOW_STICKY_TRANSFORM), 0);
    assert_eq!(win.q(NATIVE_WINDOW_QUEUES_TO_WINDOW_COMPOSER), 0);
    assert!(win.q(NATIVE_WINDOW_LAST_DEQUEUE_DURATION) >= 0);
    assert!(win.q(NATIVE_WINDOW_LAST_QUEUE_DURATION) >= 0);
    assert_eq!(win.query(1000), Err(EINVAL));
    assert_eq!(win.query(-1), Err(EINVAL));

    // Async mode (swap interval 0) needs one more undequeued buffer, as Android's.
    assert_eq!(win.set_swap_interval(0), 0);
    assert_eq!(win.q(NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS), 3);
    assert_eq!(win.set_swap_interval(7), 0, "clamped to maxSwapInterval");
    assert_eq!(q.producer_state().swap_interval, 1);
    assert_eq!(win.q(NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS), 2);

    // Consumer-side setters show up in the queries.
    q.set_transform_hint(NATIVE_WINDOW_TRANSFORM_ROT_270);
    q.resize(100, 50).unwrap();
    q.set_min_undequeued(1).unwrap();
    q.set_max_buffer_count(4).unwrap();
    q.set_default_dataspace(HAL_DATASPACE_V0_SRGB);
    q.set_consumer_usage(buffer_usage::PROTECTED);
    assert_eq!(
        win.q(NATIVE_WINDOW_TRANSFORM_HINT),
        NATIVE_WINDOW_TRANSFORM_ROT_270
    );
    assert_eq!(
        (
            win.q(NATIVE_WINDOW_DEFAULT_WIDTH),
            win.q(NATIVE_WINDOW_DEFAULT_HEIGHT)
        ),
        (100, 50)
    );
    assert_eq!(win.q(NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS), 1);
    assert_eq!(win.q(NATIVE_WINDOW_MAX_BUFFER_COUNT), 4);
    assert_eq!(
        win.q(NATIVE_WINDOW_DEFAULT_DATASPACE),
        HAL_DATASPACE_V0_SRGB
    );
    assert_eq!(win.q(NATIVE_WINDOW_CONSUMER_IS_PROTECTED), 1);
    assert!(q.set_min_undequeued(4).is_err());
    assert!(q.set_max_buffer_count(65).is_err());
    assert!(q.resize(0, 5).is_err());

    // Producer dimensions win over the default size; user dimensions over the default.
    assert_eq!(win.set_dimensions(30, 20), 0);
    assert_eq!(
        (win.q(NATIVE_WINDOW_WIDTH), win.q(NATIVE_WINDOW_HEIGHT)),
        (30, 20)
    );
    // SAFETY: valid window.
    unsafe {
        assert_eq!(
            nw::vkgen_native_window_set_buffers_user_dimensions(win.0, 12, 10),
            0
        )
    };
    assert_eq!(win.q(NATIVE_WINDOW_DEFAULT_WIDTH), 12);
    assert_eq!(win.set_dimensions(0, 0), 0);
    assert_eq!(win.q(NATIVE_WINDOW_WIDTH), 12);
}

#[test]
fn every_perform_code_the_loader_uses() {
    let q = queue();
    let win = Win::of(&q);
    let w = win.0;
    let usage = buffer_usage::GPU_RENDER_TARGET | buffer_usage::FRONT_BUFFER;
    let damage = [
        AndroidNativeRect {
            left: 1,
            top: 9,
            right: 5,
            bottom: 2,
        },
        AndroidNativeRect {
            left: 0,
            top: 4,
            right: 4,
            bottom: 0,
        },
    ];
    let crop = AndroidNativeRect {
        left: 1,
        top: 2,
        right: 30,
        bottom: 40,
    };
    let smpte = Smpte2086Metadata {
        display_primary_red: AndroidXyColor { x: 0.68, y: 0.32 },
        display_primary_green: AndroidXyColor { x: 0.265, y: 0.69 },
        display_primary_blue: AndroidXyColor { x: 0.15, y: 0.06 },
        white_point: AndroidXyColor {
            x: 0.3127,
            y: 0.329,
        },
        max_luminance: 1000.0,
        min_luminance: 0.001,
    };
    let cta = Cta8613Metadata {
        max_content_light_level: 800.0,
        max_frame_average_light_level: 400.0,
    };
    let hdr10 = [1u8, 2, 3, 4, 5];
    // SAFETY: valid window; all pointers point at live locals of the right types.
    unsafe {
        assert_eq!(win.connect(), 0);
        assert_eq!(win.set_dequeue_timeout(-1), 0);
        assert_eq!(nw::vkgen_native_window_set_usage(w, usage), 0);
        assert_eq!(win.set_format(HAL_PIXEL_FORMAT_RGB_565), 0);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_data_space(w, HAL_DATASPACE_DISPLAY_P3),
            0
        );
        assert_eq!(win.set_dimensions(33, 44), 0);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_transform(w, NATIVE_WINDOW_TRANSFORM_FLIP_H),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_buffers_sticky_transform(
                w,
                NATIVE_WINDOW_TRANSFORM_ROT_180
            ),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_scaling_mode(w, NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW),
            0
        );
        assert_eq!(nw::vkgen_native_window_set_crop(w, &crop), 0);
        assert_eq!(win.set_buffer_count(4), 0);
        assert_eq!(win.set_shared(false), 0);
        assert_eq!(win.set_auto_refresh(true), 0);
        assert_eq!(
            nw::vkgen_native_window_set_surface_damage(w, damage.as_ptr(), damage.len()),
            0
        );
        assert_eq!(nw::vkgen_native_window_set_buffers_timestamp(w, 123_456), 0);
        assert_eq!(nw::vkgen_native_window_enable_frame_timestamps(w, true), 0);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_smpte2086_metadata(w, &smpte),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_buffers_cta861_3_metadata(w, &cta),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_buffers_hdr10_plus_metadata(w, hdr10.len(), hdr10.as_ptr()),
            0
        );
        assert_eq!(nw::vkgen_native_window_set_auto_prerotation(w, true), 0);
        assert_eq!(nw::vkgen_native_window_set_frame_rate(w, 59.5, 1, 1), 0);

        let mut refresh = 0i64;
        assert_eq!(
            nw::vkgen_native_window_get_refresh_cycle_duration(w, &mut refresh),
            0
        );
        assert_eq!(refresh, 8_333_333);
        let mut next = 0u64;
        assert_eq!(nw::vkgen_native_window_get_next_frame_id(w, &mut next), 0);
        assert_eq!(next, 1);
        let mut consumer = 0u64;
        assert_eq!(
            nw::vkgen_native_window_get_consumer_usage(w, &mut consumer),
            0
        );
        assert_eq!(
            consumer,
            buffer_usage::GPU_TEXTURE | buffer_usage::CPU_READ_OFTEN
        );
        let (mut deadline, mut interval, mut latency) = (0i64, 0i64, 0i64);
        assert_eq!(
            nw::vkgen_native_window_get_compositor_timing(
                w,
                &mut deadline,
                &mut interval,
                &mut latency
            ),
            0
        );
        assert_eq!((interval, latency), (8_333_333, 8_333_333));
        assert!(deadline > 0);
        // Optional outputs may be null.
        assert_eq!(
            nw::vkgen_native_window_get_compositor_timing(
                w,
                std::ptr::null_mut(),
                &mut interval,
                std::ptr::null_mut()
            ),
            0
        );
        let mut t = 0i64;
        assert_eq!(nw::vkgen_native_window_get_last_dequeue_start(w, &mut t), 0);
        assert_eq!(
            nw::vkgen_native_window_get_last_dequeue_duration(w, &mut t),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_get_last_queue_duration(w, &mut t),
            0
        );
        assert_eq!(nw::vkgen_native_window_allocate_buffers(w), 0);
    }
    assert_eq!(
        q.allocated_buffers(),
        4,
        "ALLOCATE_BUFFERS fills the buffer count"
    );

    let p = q.producer_state();
    assert_eq!(p.usage, usage);
    assert_eq!(p.format, HAL_PIXEL_FORMAT_RGB_565);
    assert_eq!(p.dataspace, HAL_DATASPACE_DISPLAY_P3);
    assert_eq!(p.dimensions, (33, 44));
    assert_eq!(p.transform, NATIVE_WINDOW_TRANSFORM_FLIP_H);
    assert_eq!(p.sticky_transform, NATIVE_WINDOW_TRANSFORM_ROT_180);
    assert_eq!(p.scaling_mode, NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW);
    assert_eq!(p.crop, Some(crop));
    assert_eq!(p.buffer_count, 4);
    assert_eq!(p.dequeue_timeout, None);
    assert!(!p.shared_buffer_mode && p.auto_refresh && p.auto_prerotation);
    assert!(p.frame_timestamps_enabled);
    assert_eq!(p.damage, damage);
    assert_eq!(p.timestamp, Some(123_456));
    assert_eq!(p.hdr.smpte2086, Some(smpte));
    assert_eq!(p.hdr.cta861_3, Some(cta));
    assert_eq!(p.hdr.hdr10_plus.as_deref(), Some(&hdr10[..]));
    assert_eq!(
        p.frame_rate,
        Some(FrameRate {
            frame_rate: 59.5,
            compatibility: 1,
            change_strategy: 1
        })
    );
    assert_eq!(win.q(NATIVE_WINDOW_DATASPACE), HAL_DATASPACE_DISPLAY_P3);
    assert_eq!(win.q(NATIVE_WINDOW_FORMAT), HAL_PIXEL_FORMAT_RGB_565);
    assert_eq!(
        win.q(NATIVE_WINDOW_STICKY_TRANSFORM),
        NATIVE_WINDOW_TRANSFORM_ROT_180
    );

    // The legacy 32-bit SET_USAGE, geometry, the dequeue timeout in ns, metadata clearing.
    // SAFETY: valid window; null metadata pointers clear.
    unsafe {
        assert_eq!(nw::vkgen_native_window_set_usage32(w, 0x333), 0);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_geometry(w, 8, 9, HAL_PIXEL_FORMAT_BGRA_8888),
            0
        );
        assert_eq!(win.set_dequeue_timeout(1_500_000), 0);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_smpte2086_metadata(w, std::ptr::null()),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_buffers_hdr10_plus_metadata(w, 0, std::ptr::null()),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_surface_damage(w, std::ptr::null(), 0),
            0
        );
        assert_eq!(
            nw::vkgen_native_window_set_buffers_timestamp(w, NATIVE_WINDOW_TIMESTAMP_AUTO),
            0
        );
    }
    let p = q.producer_state();
    assert_eq!(p.usage, 0x333);
    assert_eq!(
        (p.dimensions, p.format),
        ((8, 9), HAL_PIXEL_FORMAT_BGRA_8888)
    );
    assert_eq!(p.dequeue_timeout, Some(Duration::from_nanos(1_500_000)));
    assert_eq!(p.hdr.smpte2086, None);
    assert_eq!(p.hdr.hdr10_plus, None);
    assert!(p.damage.is_empty());
    assert_eq!(p.timestamp, None);
}

#[test]
fn invalid_perform_arguments() {
    let q = queue();
    let win = Win::of(&q);
    let w = win.0;
    // SAFETY: valid window.
    unsafe {
        assert_eq!(win.set_format(0x7777), EINVAL);
        assert_eq!(win.set_format(-1), EINVAL);
        assert_eq!(win.set_dimensions(-1, 5), EINVAL);
        assert_eq!(win.set_dimensions(0, 5), EINVAL);
        assert_eq!(win.set_dimensions(1 << 20, 5), EINVAL);
        assert_eq!(
            nw::vkgen_native_window_set_buffers_transform(w, 0x40),
            EINVAL
        );
        assert_eq!(nw::vkgen_native_window_set_scaling_mode(w, 9), EINVAL);
        assert_eq!(
            nw::vkgen_native_window_set_frame_rate(w, -1.0, 0, 0),
            EINVAL
        );
        assert_eq!(
            nw::vkgen_native_window_set_frame_rate(w, f32::NAN, 0, 0),
            EINVAL
        );
        // Buffer counts: above the maximum, not above min undequeued.
        assert_eq!(win.set_buffer_count(7), EINVAL);
        assert_eq!(win.set_buffer_count(2), EINVAL);
        assert_eq!(win.set_buffer_count(3), 0);
        // Async mode would need a fourth buffer (min undequeued 2 + 1 + one to dequeue).
        assert_eq!(win.set_swap_interval(0), EINVAL);
        assert_eq!(q.producer_state().swap_interval, 1);
        assert_eq!(win.set_buffer_count(0), 0);
        // Frame timestamps must be enabled first (Android's INVALID_OPERATION).
        let mut t = 0i64;
        let p = std::ptr::null_mut::<i64>();
        assert_eq!(
            nw::vkgen_native_window_get_frame_timestamps(w, 1, &mut t, p, p, p, p, p, p, p, p),
            ENOSYS
        );
        assert_eq!(nw::vkgen_native_window_enable_frame_timestamps(w, true), 0);
        assert_eq!(
            nw::vkgen_native_window_get_frame_timestamps(w, 1, &mut t, p, p, p, p, p, p, p, p),
            EINVAL,
            "no such frame yet"
        );
    }
    // Operations the window does not support, including removed and interceptor codes: refused
    // in the C shim before any argument is read.
    for op in [
        NATIVE_WINDOW_LOCK,
        NATIVE_WINDOW_UNLOCK_AND_POST,
        NATIVE_WINDOW_SET_POST_TRANSFORM_CROP,
        NATIVE_WINDOW_SET_SIDEBAND_STREAM,
        NATIVE_WINDOW_GET_WIDE_COLOR_SUPPORT,
        NATIVE_WINDOW_GET_HDR_SUPPORT,
        NATIVE_WINDOW_SET_CANCEL_INTERCEPTOR,
        NATIVE_WINDOW_SET_DEQUEUE_INTERCEPTOR,
        NATIVE_WINDOW_SET_PERFORM_INTERCEPTOR,
        NATIVE_WINDOW_SET_QUEUE_INTERCEPTOR,
        NATIVE_WINDOW_SET_QUERY_INTERCEPTOR,
        NATIVE_WINDOW_GET_LAST_QUEUED_BUFFER,
        NATIVE_WINDOW_GET_LAST_QUEUED_BUFFER2,
        NATIVE_WINDOW_SET_FRAME_TIMELINE_INFO,
        NATIVE_WINDOW_SET_BUFFERS_ADDITIONAL_OPTIONS,
        51,
        1000,
        -1,
    ] {
        assert_eq!(
            // SAFETY: valid window; the shim reads no arguments for these codes.
            unsafe { nw::vkgen_native_window_perform_no_args(w, op) },
            EINVAL,
            "perform code {op}"
        );
    }
    // The raw variadic pointer is callable from Rust too, as C calls it.
    // SAFETY: valid window; SET_BUFFERS_FORMAT takes one int.
    let perform = unsafe { w.read() }.perform.unwrap();
    assert_eq!(
        // SAFETY: valid window; SET_BUFFERS_FORMAT takes one int.
        unsafe { perform(w, NATIVE_WINDOW_SET_BUFFERS_FORMAT, HAL_PIXEL_FORMAT_R_8) },
        0
    );
    assert_eq!(q.producer_state().format, HAL_PIXEL_FORMAT_R_8);
}

#[test]
fn window_refcount_keeps_the_queue_alive() {
    let q = queue();
    let weak = Arc::downgrade(&q);
    let win = Win::of(&q);
    win.inc_ref();
    win.inc_ref();
    drop(q);
    // Held only through C references now.
    assert_eq!(win.q(NATIVE_WINDOW_DEFAULT_WIDTH), 320);
    assert_eq!(win.connect(), 0);
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    win.dec_ref();
    assert!(weak.upgrade().is_some());
    assert_eq!(win.q(NATIVE_WINDOW_IS_VALID), 1);
    win.dec_ref();
    assert!(weak.upgrade().is_none(), "the last decRef frees the queue");
}

#[test]
fn abandoned_consumer() {
    let q = BufferQueue::new(WindowConfig {
        queue_mode: QueueMode::Fifo,
        ..Default::default()
    });
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    let b = win.dequeue_ready();
    q.abandon();
    assert_eq!(win.queue(b, signalled_fence()), ENODEV);
    assert_eq!(win.dequeue().unwrap_err(), ENODEV);
    assert_eq!(win.query(NATIVE_WINDOW_WIDTH), Err(ENODEV));
    assert_eq!(win.q(NATIVE_WINDOW_IS_VALID), 0);
    let mut usage = 0u64;
    assert_eq!(
        // SAFETY: valid window and out-pointer.
        unsafe { nw::vkgen_native_window_get_consumer_usage(win.0, &mut usage) },
        ENODEV
    );
    assert_eq!(
        win.disconnect(),
        0,
        "disconnecting an abandoned window is fine"
    );
    assert_eq!(win.disconnect(), 0);
    assert_eq!(win.connect(), ENODEV);
}
