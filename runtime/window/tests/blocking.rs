//! Dequeue blocking and timeouts, wake-ups from other threads, and several producer threads at
//! once.

mod common;

use std::sync::Arc;
use std::thread;
use std::time::{Duration, Instant};

use common::*;
use vkgen_platform::sync_fd::NativeFence;
use vkgen_window::{BufferQueue, QueueMode, WindowConfig};

/// Connected, buffer count 3 with 1 undequeued: after the first queue the producer may hold 2.
fn limited(mode: QueueMode) -> (Arc<BufferQueue>, Win) {
    let q = BufferQueue::new(WindowConfig {
        queue_mode: mode,
        ..WindowConfig::with_size(8, 8)
    });
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    assert_eq!(win.set_buffer_count(3), 0);
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    (q, win)
}

#[test]
fn over_the_producer_limit_fails_at_once() {
    let (_q, win) = limited(QueueMode::LatestOnly);
    let held = [win.dequeue_ready(), win.dequeue_ready()];
    // Android's INVALID_OPERATION, whatever the timeout: waiting could never help.
    for timeout in [0, 50_000_000, -1] {
        assert_eq!(win.set_dequeue_timeout(timeout), 0);
        let start = Instant::now();
        assert_eq!(win.dequeue().unwrap_err(), ENOSYS);
        assert!(start.elapsed() < Duration::from_millis(40));
    }
    assert_eq!(win.cancel(held[0], -1), 0);
    assert!(win.dequeue().is_ok());
}

/// The producer holds one buffer and the consumer the other two.
fn consumer_holds_the_rest(q: &BufferQueue, win: Win) -> [vkgen_window::Frame; 2] {
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    let first = q.acquire_latest().unwrap();
    let b = win.dequeue_ready();
    assert_eq!(win.queue(b, -1), 0);
    let second = q.acquire_latest().unwrap();
    let _mine = win.dequeue_ready();
    [first, second]
}

#[test]
fn dequeue_waits_for_the_consumer_until_the_timeout() {
    let (q, win) = limited(QueueMode::LatestOnly);
    let _held = consumer_holds_the_rest(&q, win);
    assert_eq!(win.set_dequeue_timeout(0), 0);
    let start = Instant::now();
    assert_eq!(
        win.dequeue().unwrap_err(),
        ETIMEDOUT,
        "timeout 0: TIMED_OUT at once"
    );
    assert!(start.elapsed() < Duration::from_millis(40));
    assert_eq!(win.set_dequeue_timeout(60_000_000), 0);
    let start = Instant::now();
    assert_eq!(win.dequeue().unwrap_err(), ETIMEDOUT);
    let waited = start.elapsed();
    assert!(waited >= Duration::from_millis(60), "{waited:?}");
    assert!(waited < Duration::from_secs(5), "{waited:?}");
}

#[test]
fn blocked_dequeue_wakes_when_the_consumer_releases() {
    let (q, win) = limited(QueueMode::LatestOnly);
    let [first, second] = consumer_holds_the_rest(&q, win);
    let first_id = first.buffer_id;
    assert_eq!(win.set_dequeue_timeout(-1), 0);
    let consumer = {
        let q = q.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            q.release(first, NativeFence::signalled());
        })
    };
    let start = Instant::now();
    let (b, _fd) = win.dequeue().expect("woken by the release");
    assert!(start.elapsed() >= Duration::from_millis(40));
    consumer.join().unwrap();
    let again = {
        assert_eq!(win.queue(b, -1), 0);
        q.acquire_latest().unwrap()
    };
    assert_eq!(again.buffer_id, first_id, "the released buffer");
    drop(second);
}

#[test]
fn fifo_producer_waits_for_the_consumer() {
    let (q, win) = limited(QueueMode::Fifo);
    // Frame 1 is pending; two more fill every slot.
    for _ in 0..2 {
        let b = win.dequeue_ready();
        assert_eq!(win.queue(b, -1), 0);
    }
    assert_eq!(q.pending_frames(), 3);
    assert_eq!(win.set_dequeue_timeout(0), 0);
    assert_eq!(
        win.dequeue().unwrap_err(),
        ETIMEDOUT,
        "every buffer is queued"
    );
    assert_eq!(win.set_dequeue_timeout(-1), 0);
    let consumer = {
        let q = q.clone();
        thread::spawn(move || {
            thread::sleep(Duration::from_millis(50));
            let f = q.acquire_next().unwrap();
            assert_eq!(f.frame_number, 1);
            q.release(f, NativeFence::signalled());
        })
    };
    let start = Instant::now();
    let b = win.dequeue_ready();
    assert!(start.elapsed() >= Duration::from_millis(40));
    consumer.join().unwrap();
    assert_eq!(win.cancel(b, -1), 0);
}

#[test]
fn disconnect_and_abandon_wake_blocked_dequeues() {
    for abandon in [false, true] {
        let (q, win) = limited(QueueMode::LatestOnly);
        let _held = consumer_holds_the_rest(&q, win);
        assert_eq!(win.set_dequeue_timeout(-1), 0);
        let t = {
            let q = q.clone();
            thread::spawn(move || {
                thread::sleep(Duration::from_millis(50));
                if abandon {
                    q.abandon();
                } else {
                    assert_eq!(win.disconnect(), 0);
                }
            })
        };
        assert_eq!(win.dequeue().unwrap_err(), ENODEV);
        t.join().unwrap();
    }
}

#[test]
fn producers_and_a_consumer_on_several_threads() {
    const THREADS: usize = 4;
    const FRAMES: usize = 300;
    let q = BufferQueue::new(WindowConfig::with_size(16, 16));
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    assert_eq!(win.set_dequeue_timeout(-1), 0);
    let producers: Vec<_> = (0..THREADS)
        .map(|t| {
            thread::spawn(move || {
                for i in 0..FRAMES {
                    let b = win.dequeue_ready();
                    fill(b, |_, _| vec![t as u8, (i % 256) as u8, 0, 255]);
                    if i % 5 == 4 {
                        assert_eq!(win.cancel(b, -1), 0);
                    } else {
                        assert_eq!(win.queue(b, signalled_fence()), 0);
                    }
                }
            })
        })
        .collect();
    let consumer = {
        let q = q.clone();
        thread::spawn(move || {
            let mut last = 0;
            let mut seen = 0;
            let queued = (THREADS * FRAMES * 4 / 5) as u64;
            while last < queued {
                if let Some(f) = q.acquire_latest() {
                    assert!(f.frame_number > last, "frames only move forward");
                    last = f.frame_number;
                    let [t, _, _, a] = f.pixel(3, 3);
                    assert!((t as usize) < THREADS && a == 255);
                    seen += 1;
                    q.release(f, NativeFence::signalled());
                } else {
                    thread::yield_now();
                }
            }
            seen
        })
    };
    for p in producers {
        p.join().unwrap();
    }
    let seen = consumer.join().unwrap();
    assert!(seen >= 1);
    let c = q.counters();
    assert_eq!(c.queues as usize, THREADS * FRAMES * 4 / 5);
    assert_eq!(c.cancels as usize, THREADS * FRAMES / 5);
    assert_eq!(c.acquires as usize, seen);
    assert_eq!(q.frame_count(), c.queues);
    assert!(c.allocations <= 8);
}

/// `wait_for_frame` sleeps until the producer queues (from another thread), times out when
/// nothing comes, and returns at once when a frame is already there or the queue is abandoned.
#[test]
fn wait_for_frame_wakes_on_queue_and_times_out() {
    let q = BufferQueue::new(WindowConfig::with_size(8, 8));
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    let start = Instant::now();
    assert!(!q.wait_for_frame(Duration::from_millis(50)));
    assert!(start.elapsed() >= Duration::from_millis(50));
    let producer = thread::spawn(move || {
        thread::sleep(Duration::from_millis(100));
        let b = win.dequeue_ready();
        assert_eq!(win.queue(b, -1), 0);
    });
    let start = Instant::now();
    assert!(q.wait_for_frame(Duration::from_secs(10)));
    assert!(start.elapsed() < Duration::from_secs(5));
    producer.join().unwrap();
    assert!(
        q.wait_for_frame(Duration::ZERO),
        "a queued frame is there at once"
    );
    assert!(q.acquire_next().is_some());
    q.abandon();
    let start = Instant::now();
    assert!(!q.wait_for_frame(Duration::from_secs(10)));
    assert!(start.elapsed() < Duration::from_secs(5));
}
