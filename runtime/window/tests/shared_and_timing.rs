//! Shared-buffer mode and the fake display's frame timestamps.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use vkgen_abi::native_window::*;
use vkgen_platform::sync_fd::{FenceSignaller, NativeFence};
use vkgen_window::c_abi::helpers as nw;
use vkgen_window::timing::now_ns;
use vkgen_window::{BufferQueue, FrameTimestamps, WindowConfig};

#[test]
fn shared_buffer_mode() {
    let q = BufferQueue::new(WindowConfig::with_size(8, 4));
    let win = Win::of(&q);
    // libvulkan's shared-present swapchain: shared mode, continuous refresh, one image.
    assert_eq!(win.connect(), 0);
    assert_eq!(win.set_shared(true), 0);
    assert_eq!(win.set_auto_refresh(true), 0);
    assert_eq!(win.set_buffer_count(2), 0);
    let b = win.dequeue_ready();
    // Dequeue returns the same buffer again, without a queue in between.
    for _ in 0..3 {
        assert_eq!(win.dequeue_ready(), b);
    }
    fill(b, |x, _| vec![x as u8, 1, 2, 255]);
    // Queue repeatedly without dequeueing.
    for _ in 0..3 {
        assert_eq!(win.queue(b, signalled_fence()), 0);
    }
    assert_eq!(q.frame_count(), 3);
    assert_eq!(
        q.pending_frames(),
        1,
        "a newer queue of the shared buffer replaces the older"
    );
    let f = q.acquire_latest().unwrap();
    assert!(f.shared_buffer && f.auto_refresh);
    assert_eq!(f.frame_number, 3);
    assert_eq!(f.pixel(5, 2), [5, 1, 2, 255]);
    let id = f.buffer_id;
    // Auto-refresh: the consumer latches the shared buffer again with nothing new queued, and
    // sees what the producer wrote since.
    fill(b, |_, _| vec![7, 7, 7, 7]);
    let again = q
        .acquire_latest()
        .expect("auto-refresh re-acquires the shared buffer");
    assert_eq!((again.buffer_id, again.frame_number), (id, 3));
    assert_eq!(again.pixel(0, 0), [7, 7, 7, 7]);
    // The consumer's release fence guards the producer's next dequeue, still of the same buffer.
    let release = FenceSignaller::new().unwrap();
    q.release(f, release.fence().unwrap());
    q.release(again, NativeFence::signalled());
    let s = FenceSignaller::new().unwrap();
    q.release(q.acquire_latest().unwrap(), s.fence().unwrap());
    let (b2, fd) = win.dequeue().unwrap();
    assert_eq!(b2, b);
    assert!(fd >= 0);
    // SAFETY: ours now.
    let fence = unsafe { NativeFence::from_raw(fd) };
    assert!(!fence.is_signalled().unwrap());
    s.signal().unwrap();
    assert!(fence.is_signalled().unwrap());
    // Demand refresh: without auto-refresh nothing new means no frame.
    assert_eq!(win.set_auto_refresh(false), 0);
    assert!(q.acquire_latest().is_none());
    assert!(q.producer_state().shared_buffer_mode);
    // Cancel keeps the buffer with the producer.
    assert_eq!(win.cancel(b, -1), 0);
    assert_eq!(win.dequeue_ready(), b);
    assert_eq!(q.allocated_buffers(), 1);

    // Leaving shared mode: the buffer is an ordinary dequeued buffer again.
    assert_eq!(win.set_shared(false), 0);
    assert_eq!(win.queue(b, -1), 0);
    assert_eq!(win.queue(b, -1), EINVAL, "no longer shared: double queue");
    let f = q.acquire_latest().unwrap();
    assert!(!f.shared_buffer);
    let other = win.dequeue_ready();
    assert_ne!(other, b, "the acquired buffer is not handed out");
    assert_eq!(win.cancel(other, -1), 0);
}

fn timestamps(win: Win, frame: u64) -> Result<FrameTimestamps, i32> {
    let mut v = [0i64; 9];
    let [a, b, c, d, e, f, g, h, i] = &mut v;
    // SAFETY: valid window; nine writable int64_t.
    let rc = unsafe {
        nw::vkgen_native_window_get_frame_timestamps(win.0, frame, a, b, c, d, e, f, g, h, i)
    };
    if rc != 0 {
        return Err(rc);
    }
    Ok(FrameTimestamps {
        requested_present: v[0],
        acquire: v[1],
        latch: v[2],
        first_refresh_start: v[3],
        last_refresh_start: v[4],
        gpu_composition_done: v[5],
        display_present: v[6],
        dequeue_ready: v[7],
        release: v[8],
    })
}

fn settled(t: &FrameTimestamps) -> bool {
    !t.to_array().contains(&NATIVE_WINDOW_TIMESTAMP_PENDING)
}

/// Polls until frame `n`'s timestamps satisfy `ready` (the fake display runs on real time).
fn wait_for(win: Win, n: u64, ready: impl Fn(&FrameTimestamps) -> bool) -> FrameTimestamps {
    let deadline = Instant::now() + Duration::from_secs(5);
    loop {
        let t = timestamps(win, n).unwrap();
        if ready(&t) {
            return t;
        }
        assert!(
            Instant::now() < deadline,
            "frame {n} never got there: {t:?}"
        );
        thread::sleep(Duration::from_millis(2));
    }
}

/// Polls until all of frame `n`'s timestamps are known.
fn wait_settled(win: Win, n: u64) -> FrameTimestamps {
    wait_for(win, n, settled)
}

const REFRESH: i64 = 4_000_000;

fn timed_queue() -> (Arc<BufferQueue>, Win) {
    let q = BufferQueue::new(WindowConfig {
        refresh_ns: REFRESH as u64,
        ..WindowConfig::with_size(4, 4)
    });
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    assert_eq!(
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_enable_frame_timestamps(win.0, true) },
        0
    );
    (q, win)
}

#[test]
fn frame_timestamps_are_plausible() {
    let (q, win) = timed_queue();
    let start = now_ns();
    let mut ids = Vec::new();
    for _ in 0..6 {
        let mut id = 0u64;
        assert_eq!(
            // SAFETY: valid window and out-pointer.
            unsafe { nw::vkgen_native_window_get_next_frame_id(win.0, &mut id) },
            0
        );
        ids.push(id);
        let b = win.dequeue_ready();
        assert_eq!(win.queue(b, signalled_fence()), 0);
        thread::sleep(Duration::from_millis(1));
    }
    assert_eq!(
        ids,
        [1, 2, 3, 4, 5, 6],
        "GET_NEXT_FRAME_ID is the next frame number"
    );

    // Right after queueing, display times are still in the future.
    let last = timestamps(win, 6).unwrap();
    assert_eq!(
        last.release, NATIVE_WINDOW_TIMESTAMP_PENDING,
        "still on screen"
    );
    assert_eq!(last.last_refresh_start, NATIVE_WINDOW_TIMESTAMP_PENDING);

    let all: Vec<_> = (1..=5).map(|n| wait_settled(win, n)).collect();
    let mut previous: Option<FrameTimestamps> = None;
    for (i, t) in all.iter().enumerate() {
        assert!(t.requested_present >= start, "frame {}: {t:?}", i + 1);
        assert!(
            t.acquire >= t.requested_present,
            "auto timestamp = queue time"
        );
        assert!(t.latch >= t.acquire);
        assert!(t.gpu_composition_done > t.latch);
        assert!(t.display_present > t.latch, "present after latch");
        assert!(t.gpu_composition_done < t.display_present);
        assert_eq!(t.first_refresh_start, t.display_present);
        assert!(t.last_refresh_start >= t.first_refresh_start);
        assert!(t.release > t.display_present);
        assert!(t.dequeue_ready >= t.display_present);
        assert!(t.release <= now_ns());
        // On the vsync grid, one frame per refresh (swap interval 1).
        if let Some(p) = previous {
            assert!(t.requested_present >= p.requested_present);
            assert!(t.latch >= p.latch + REFRESH);
            assert!(t.display_present >= p.display_present + REFRESH);
            assert_eq!(p.last_refresh_start, t.latch);
            assert_eq!(p.release, t.display_present);
        }
        previous = Some(*t);
    }
    // Values, once reported, never change.
    assert_eq!(timestamps(win, 1).unwrap(), all[0]);
    assert_eq!(q.frame_timestamps(3), Some(all[2]));
    // Unknown frames.
    assert_eq!(timestamps(win, 7).unwrap_err(), EINVAL);
    assert_eq!(timestamps(win, 0).unwrap_err(), EINVAL);
}

#[test]
fn desired_present_time_and_late_fences() {
    let (_q, win) = timed_queue();
    // A desired present time four refreshes out is honoured.
    let desired = now_ns() + 4 * REFRESH;
    assert_eq!(
        // SAFETY: valid window.
        unsafe { nw::vkgen_native_window_set_buffers_timestamp(win.0, desired) },
        0
    );
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    // The newest frame stays on screen: its release is pending, its present is not for long.
    let t = wait_for(win, 1, |t| {
        t.display_present != NATIVE_WINDOW_TIMESTAMP_PENDING
    });
    assert_eq!(t.release, NATIVE_WINDOW_TIMESTAMP_PENDING);
    assert_eq!(t.requested_present, desired);
    assert!(t.display_present >= desired);
    assert!(t.display_present < desired + 2 * REFRESH);

    // A frame whose acquire fence signals late: acquire (and everything after) stays pending
    // until the fence is seen signalled.
    let (s, fd) = fence();
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, fd), 0);
    thread::sleep(Duration::from_millis(20));
    let t = timestamps(win, 2).unwrap();
    assert_eq!(t.acquire, NATIVE_WINDOW_TIMESTAMP_PENDING);
    assert_eq!(t.latch, NATIVE_WINDOW_TIMESTAMP_PENDING);
    let signalled_at = now_ns();
    s.signal().unwrap();
    let t = wait_settled(win, 1); // frame 1 settles once frame 2 is known
    assert!(t.release > 0);
    let t2 = timestamps(win, 2).unwrap();
    assert!(t2.acquire >= signalled_at);
    assert!(t2.latch >= t2.acquire);
}

#[test]
fn replaced_frames_do_not_hold_up_the_timeline() {
    // LatestOnly: frame 1, whose fence never signals, is replaced by frame 2 before anyone
    // waited for it. The display must not wait for it forever.
    let (q, win) = timed_queue();
    let (_never, fd) = fence();
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, fd), 0);
    let b = win.dequeue().unwrap().0;
    assert_eq!(win.queue(b, -1), 0);
    assert_eq!(q.counters().dropped_frames, 1);
    let t = wait_for(win, 2, |t| {
        t.display_present != NATIVE_WINDOW_TIMESTAMP_PENDING
    });
    assert!(t.display_present > t.latch);
    assert!(timestamps(win, 1).unwrap().acquire > 0);
}

#[test]
fn swap_interval_zero_reports_dropped_frames_invalid() {
    let (_q, win) = timed_queue();
    assert_eq!(win.set_swap_interval(0), 0);
    // Two frames queued back to back land on the same vsync: the first is dropped. (Retried in
    // the rare case that a vsync falls between the two queues.)
    for attempt in 0..20 {
        let first = {
            let b = win.dequeue_ready();
            assert_eq!(win.queue(b, -1), 0);
            let b = win.dequeue_ready();
            assert_eq!(win.queue(b, -1), 0);
            let mut next = 0;
            assert_eq!(
                // SAFETY: valid window and out-pointer.
                unsafe { nw::vkgen_native_window_get_next_frame_id(win.0, &mut next) },
                0
            );
            next - 2
        };
        let a = wait_settled(win, first);
        if a.latch == NATIVE_WINDOW_TIMESTAMP_INVALID {
            assert_eq!(a.display_present, NATIVE_WINDOW_TIMESTAMP_INVALID);
            assert_eq!(a.first_refresh_start, NATIVE_WINDOW_TIMESTAMP_INVALID);
            let b = timestamps(win, first + 1).unwrap();
            assert!(b.latch > 0);
            assert_eq!(a.release, b.latch, "released when replaced");
            return;
        }
        assert!(attempt < 19, "never saw a dropped frame");
    }
}
