//! Fence and buffer fds cross `dequeueBuffer`/`queueBuffer`/`cancelBuffer` every frame; one leak
//! per frame exhausts the fd table within hours. These tests count `/proc/self/fd` around many
//! cycles through the C ABI, error paths included, and check that the window closes every fence
//! fd it is given, on every path.
//!
//! The tests share one mutex: the harness runs tests on parallel threads, and an fd opened by a
//! neighbouring test would show up as a leak here.

mod common;

use std::ffi::c_int;
use std::mem::size_of;
use std::sync::{Arc, Mutex, MutexGuard};

use common::*;
use vkgen_abi::native_window::*;
use vkgen_platform::sync_fd::{FenceSignaller, NativeFence};
use vkgen_window::c_abi::helpers as nw;
use vkgen_window::{BufferQueue, WindowConfig};

static SERIAL: Mutex<()> = Mutex::new(());
const CYCLES: usize = 10_000;

fn serial() -> MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

/// One dequeue/queue/cancel/acquire/release cycle with every error path the producer can hit.
fn cycle(q: &BufferQueue, win: Win, i: usize) {
    // SAFETY: all-zero is a valid ANativeWindowBuffer value; it is not one of ours.
    let mut foreign: ANativeWindowBuffer = unsafe { std::mem::zeroed() };
    let (b1, f1) = win.dequeue().unwrap();
    let (b2, f2) = win.dequeue().unwrap();
    // Fences handed out are the consumer's release fences or ones we cancelled with; the
    // producer owns and closes them.
    for fd in [f1, f2] {
        // SAFETY: dequeue made us the owner.
        let fence = unsafe { NativeFence::from_raw(fd) };
        assert!(fence.wait(Some(std::time::Duration::from_secs(5))).unwrap());
    }
    // Over the producer's limit: INVALID_OPERATION at once.
    assert_eq!(win.dequeue().unwrap_err(), ENOSYS);
    // Invalid buffer pointers: the fence is still consumed.
    assert_eq!(win.queue(&mut foreign, signalled_fence()), EINVAL);
    assert_eq!(win.queue(std::ptr::null_mut(), signalled_fence()), EINVAL);
    assert_eq!(win.cancel(&mut foreign, signalled_fence()), EINVAL);
    // Queue, then the double queue and the cancel of a queued buffer.
    assert_eq!(win.queue(b1, signalled_fence()), 0);
    assert_eq!(win.queue(b1, signalled_fence()), EINVAL);
    assert_eq!(win.cancel(b1, signalled_fence()), EINVAL);
    // Cancel, then the cancel of a free buffer.
    assert_eq!(win.cancel(b2, signalled_fence()), 0);
    assert_eq!(win.cancel(b2, signalled_fence()), EINVAL);
    // Bad perform arguments.
    assert_eq!(
        // SAFETY: valid window; null is what is being rejected.
        unsafe { nw::vkgen_native_window_get_next_frame_id(win.0, std::ptr::null_mut()) },
        EINVAL
    );
    // Every other cycle the consumer takes the frame and releases it with a fence; otherwise
    // the next queue replaces it and its acquire fence comes back at the next dequeue.
    if i & 1 == 0 {
        let frame = q.acquire_latest().expect("frame");
        let release = FenceSignaller::new().unwrap();
        release.signal().unwrap();
        q.release(frame, release.fence().unwrap());
    }
}

#[test]
fn ten_thousand_cycles_do_not_leak() {
    let _guard = serial();
    let before = open_fds();
    {
        let q = BufferQueue::new(WindowConfig::with_size(8, 8));
        let win = Win::of(&q);
        assert_eq!(win.connect(), 0);
        assert_eq!(win.set_buffer_count(3), 0);
        assert_eq!(win.set_dequeue_timeout(0), 0);
        // The first queue turns the dequeue limit on (buffer count - min undequeued = 2).
        let b = win.dequeue_ready();
        assert_eq!(win.queue(b, -1), 0);
        for i in 0..100 {
            cycle(&q, win, i);
        }
        let steady = open_fds();
        for i in 100..CYCLES {
            cycle(&q, win, i);
        }
        assert_eq!(open_fds(), steady, "fds accumulate while the queue runs");
        let c = q.counters();
        assert_eq!(c.queues as usize, CYCLES + 1);
        assert_eq!(c.cancels as usize, CYCLES);
        assert_eq!(c.dequeues as usize, 2 * CYCLES + 1);
        assert!(c.allocations <= 3);
        assert_eq!(win.disconnect(), 0);
    }
    assert_eq!(open_fds(), before);
}

#[test]
fn every_fence_given_to_the_window_is_closed() {
    let _guard = serial();
    let q = BufferQueue::new(WindowConfig::with_size(4, 4));
    let win = Win::of(&q);
    let check = |what: &str, rc: c_int, want: c_int, fd: i32| {
        assert_eq!(rc, want, "{what}");
        assert!(!fd_is_open(fd), "{what}: fence fd {fd} left open");
    };
    // Not connected.
    let (_s, fd) = fence();
    let mut foreign: ANativeWindowBuffer =
        // SAFETY: all-zero is a valid value; it is not one of ours.
        unsafe { std::mem::zeroed() };
    check(
        "queue before connect",
        win.queue(&mut foreign, fd),
        ENODEV,
        fd,
    );
    let (_s, fd) = fence();
    check(
        "cancel before connect",
        win.cancel(&mut foreign, fd),
        ENODEV,
        fd,
    );
    assert_eq!(win.connect(), 0);
    let (_s, fd) = fence();
    check(
        "queue of a foreign buffer",
        win.queue(&mut foreign, fd),
        EINVAL,
        fd,
    );
    let b = win.dequeue_ready();
    // A queued frame keeps its fence (the consumer waits on it, then closes it).
    let (s, queued_fd) = fence();
    assert_eq!(win.queue(b, queued_fd), 0);
    assert!(fd_is_open(queued_fd));
    let (_s, fd) = fence();
    check("double queue", win.queue(b, fd), EINVAL, fd);
    s.signal().unwrap();
    let frame = q.acquire_latest().unwrap();
    assert!(
        !fd_is_open(queued_fd),
        "closed once the consumer waited for it"
    );
    let (_s, fd) = fence();
    check(
        "cancel of an acquired buffer",
        win.cancel(b, fd),
        EINVAL,
        fd,
    );
    q.release(frame, NativeFence::signalled());
    // A null window through our function table still consumes the fd.
    let (_s, fd) = fence();
    // SAFETY: the table is ours; the window pointer is what is being rejected.
    let rc = unsafe { (win.0.read().queue_buffer.unwrap())(std::ptr::null_mut(), b, fd) };
    check("queue on a null window", rc, EINVAL, fd);
    // Abandoned consumer.
    let b = win.dequeue_ready();
    q.abandon();
    let (_s, fd) = fence();
    check("queue after abandon", win.queue(b, fd), ENODEV, fd);
}

#[test]
fn buffer_refcount_outlives_the_slot() {
    let _guard = serial();
    let q = BufferQueue::new(WindowConfig::with_size(16, 8));
    let win = Win::of(&q);
    assert_eq!(win.connect(), 0);
    let fds_before = open_fds();
    let b = win.dequeue_ready();
    let desc = anwb(b);
    assert_eq!(desc.common.magic, ANDROID_NATIVE_BUFFER_MAGIC);
    assert_eq!(
        desc.common.version,
        size_of::<ANativeWindowBuffer>() as c_int
    );
    assert_eq!((desc.width, desc.height), (16, 8));
    assert_eq!(desc.format, HAL_PIXEL_FORMAT_RGBA_8888);
    assert!(!desc.handle.is_null());
    // SAFETY: the handle belongs to the live buffer.
    let h = unsafe { &*desc.handle };
    assert_eq!((h.version, h.num_fds), (NATIVE_HANDLE_VERSION, 1));
    assert_eq!(open_fds(), fds_before + 1, "one memfd for the buffer");

    // The loader keeps sp<ANativeWindowBuffer> for its images.
    // SAFETY: live buffer of this window.
    unsafe { (desc.common.inc_ref.unwrap())(b.cast()) };
    // Disconnect frees every slot; the buffer lives on through our reference.
    assert_eq!(win.disconnect(), 0);
    assert_eq!(q.allocated_buffers(), 0);
    assert_eq!(open_fds(), fds_before + 1);
    fill(b, |x, y| pattern(x, y, 1).to_vec());
    assert_eq!(anwb(b).width, 16);
    // SAFETY: we give up the reference we took; it is the last one.
    unsafe { (desc.common.dec_ref.unwrap())(b.cast()) };
    assert_eq!(open_fds(), fds_before, "the last decRef closes the memfd");

    // The queue dropped while C still references a buffer: the buffer outlives it.
    assert_eq!(win.connect(), 0);
    let b = win.dequeue_ready();
    let desc = anwb(b);
    // SAFETY: live buffer of this window.
    unsafe { (desc.common.inc_ref.unwrap())(b.cast()) };
    let weak = Arc::downgrade(&q);
    drop(q);
    assert!(weak.upgrade().is_none());
    assert_eq!(anwb(b).height, 8);
    fill(b, |_, _| vec![1, 2, 3, 4]);
    // SAFETY: the last reference.
    unsafe { (desc.common.dec_ref.unwrap())(b.cast()) };
    assert_eq!(open_fds(), fds_before);
}

#[test]
fn dropping_a_queue_with_frames_and_fences_in_flight_closes_everything() {
    let _guard = serial();
    let before = open_fds();
    {
        let q = BufferQueue::new(WindowConfig {
            queue_mode: vkgen_window::QueueMode::Fifo,
            ..WindowConfig::with_size(4, 4)
        });
        let win = Win::of(&q);
        assert_eq!(win.connect(), 0);
        let mut signallers = Vec::new();
        for _ in 0..3 {
            let b = win.dequeue_ready();
            let (s, fd) = fence();
            signallers.push(s);
            assert_eq!(win.queue(b, fd), 0);
        }
        let b = win.dequeue_ready();
        let (_s, fd) = fence();
        assert_eq!(win.cancel(b, fd), 0);
        signallers[0].signal().unwrap();
        let held = q.acquire_next().unwrap();
        assert_eq!(q.pending_frames(), 2);
        drop(q);
        drop(held);
    }
    assert_eq!(open_fds(), before);
}
