//! A fake display for `GET_FRAME_TIMESTAMPS`, `GET_COMPOSITOR_TIMING` and
//! `GET_REFRESH_CYCLE_DURATION`: a vsync clock ticking every `refresh_ns` on `CLOCK_MONOTONIC`
//! (the clock Android's `nsecs_t` timestamps and libvulkan's `systemTime()` use), from the
//! queue's creation on.
//!
//! The display is virtual: it never touches buffers (the test consumer does that), it only derives
//! when each queued frame *would* have been shown, from what the producer did:
//!
//! * requested present = the `SET_BUFFERS_TIMESTAMP` value, or the queue time when none was set
//!   (Android's auto timestamp);
//! * acquire = when the frame's acquire fence was seen signalled (at queue if it already was,
//!   otherwise when polled or waited for later; pending until then);
//! * latch = the first vsync at or after `max(acquire, queue, requested − refresh)`; at swap
//!   interval ≥ 1 also at least one refresh after the previous frame's latch (one frame per vsync),
//!   at swap interval 0 a frame whose successor latches on the same vsync is dropped, and all its
//!   display times read `INVALID`;
//! * GPU composition done = latch + refresh/4; first refresh start = display present =
//!   latch + refresh;
//! * last refresh start = the next shown frame's latch (the frame stays on screen until the
//!   refresh in which its successor appears); dequeue ready = release = the successor's present
//!   (the display lets a buffer go once the next one is on screen).
//!
//! A time later than "now", or one that depends on a frame not queued yet, reads
//! `NATIVE_WINDOW_TIMESTAMP_PENDING`, so callers see the values appear as the clock passes them,
//! and every value, once reported, never changes.

use std::collections::VecDeque;

use vkgen_abi::native_window::{NATIVE_WINDOW_TIMESTAMP_INVALID, NATIVE_WINDOW_TIMESTAMP_PENDING};

/// How many frames `GET_FRAME_TIMESTAMPS` can look back (libvulkan looks at least 5 back).
pub const FRAME_HISTORY: usize = 64;

/// `CLOCK_MONOTONIC` in nanoseconds.
pub fn now_ns() -> i64 {
    let mut ts = libc::timespec {
        tv_sec: 0,
        tv_nsec: 0,
    };
    // SAFETY: `ts` is a valid out-pointer; CLOCK_MONOTONIC always exists on Linux.
    let rc = unsafe { libc::clock_gettime(libc::CLOCK_MONOTONIC, &mut ts) };
    debug_assert_eq!(rc, 0);
    // `time_t`/`c_long` are 32-bit on some targets.
    #[allow(clippy::useless_conversion)]
    let (sec, nsec) = (i64::from(ts.tv_sec), i64::from(ts.tv_nsec));
    sec.saturating_mul(1_000_000_000).saturating_add(nsec)
}

/// The nine values of `NATIVE_WINDOW_GET_FRAME_TIMESTAMPS`, in its argument order. Each is a
/// `CLOCK_MONOTONIC` time in ns, [`NATIVE_WINDOW_TIMESTAMP_PENDING`] or
/// [`NATIVE_WINDOW_TIMESTAMP_INVALID`].
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FrameTimestamps {
    pub requested_present: i64,
    pub acquire: i64,
    pub latch: i64,
    pub first_refresh_start: i64,
    pub last_refresh_start: i64,
    pub gpu_composition_done: i64,
    pub display_present: i64,
    pub dequeue_ready: i64,
    pub release: i64,
}

impl FrameTimestamps {
    /// In `native_window_get_frame_timestamps` argument order.
    pub fn to_array(self) -> [i64; 9] {
        [
            self.requested_present,
            self.acquire,
            self.latch,
            self.first_refresh_start,
            self.last_refresh_start,
            self.gpu_composition_done,
            self.display_present,
            self.dequeue_ready,
            self.release,
        ]
    }
}

#[derive(Clone, Copy, Debug)]
struct FrameRecord {
    frame_number: u64,
    queue_ns: i64,
    requested_ns: i64,
    /// Swap interval ≥ 1 at queue time.
    fifo: bool,
    acquire_ns: Option<i64>,
}

/// What the virtual display did with one frame.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum Shown {
    /// Acquire time (or a predecessor's) not known yet.
    Unknown,
    Latched(i64),
    /// Replaced before it reached the screen; the vsync at which that happened.
    Dropped(i64),
}

#[derive(Debug)]
pub(crate) struct Timeline {
    epoch_ns: i64,
    refresh_ns: i64,
    records: VecDeque<FrameRecord>,
}

impl Timeline {
    pub fn new(refresh_ns: i64) -> Self {
        Self {
            epoch_ns: now_ns(),
            refresh_ns: refresh_ns.max(1),
            records: VecDeque::with_capacity(FRAME_HISTORY),
        }
    }

    pub fn refresh_ns(&self) -> i64 {
        self.refresh_ns
    }

    /// The first vsync at or after `t`.
    pub fn next_vsync(&self, t: i64) -> i64 {
        // Both non-negative, so the unsigned round-up division is exact.
        let since = t.saturating_sub(self.epoch_ns).max(0) as u64;
        let ticks = since.div_ceil(self.refresh_ns as u64) as i64;
        self.epoch_ns
            .saturating_add(ticks.saturating_mul(self.refresh_ns))
    }

    pub fn record_queue(
        &mut self,
        frame_number: u64,
        queue_ns: i64,
        requested_ns: i64,
        fifo: bool,
        acquire_ns: Option<i64>,
    ) {
        if self.records.len() == FRAME_HISTORY {
            self.records.pop_front();
        }
        self.records.push_back(FrameRecord {
            frame_number,
            queue_ns,
            requested_ns,
            fifo,
            acquire_ns,
        });
    }

    /// Records when frame `frame_number`'s acquire fence was seen signalled (first sighting wins).
    pub fn set_acquired(&mut self, frame_number: u64, at_ns: i64) {
        if let Some(r) = self
            .records
            .iter_mut()
            .find(|r| r.frame_number == frame_number)
        {
            r.acquire_ns.get_or_insert(at_ns);
        }
    }

    /// Whether frame `frame_number` is in the history with its acquire time still unknown.
    pub fn acquire_pending(&self, frame_number: u64) -> bool {
        self.records
            .iter()
            .any(|r| r.frame_number == frame_number && r.acquire_ns.is_none())
    }

    /// `(deadline, interval, present latency)` of `GET_COMPOSITOR_TIMING`.
    pub fn compositor_timing(&self, now: i64) -> (i64, i64, i64) {
        (self.next_vsync(now), self.refresh_ns, self.refresh_ns)
    }

    fn shown(&self) -> Vec<Shown> {
        let mut out = Vec::with_capacity(self.records.len());
        let mut prev: Option<i64> = None;
        let mut known = true;
        for r in &self.records {
            let Some(acquire) = r.acquire_ns.filter(|_| known) else {
                known = false;
                out.push(Shown::Unknown);
                continue;
            };
            let base = acquire
                .max(r.queue_ns)
                .max(r.requested_ns.saturating_sub(self.refresh_ns));
            let mut latch = self.next_vsync(base);
            if let Some(p) = prev {
                latch = latch.max(if r.fifo {
                    p.saturating_add(self.refresh_ns)
                } else {
                    p
                });
            }
            // At swap interval 0 a frame that latches on the same vsync as its predecessor
            // replaces it.
            if let (false, Some(Shown::Latched(p))) = (r.fifo, out.last().copied()) {
                if p == latch {
                    *out.last_mut().expect("checked") = Shown::Dropped(latch);
                }
            }
            out.push(Shown::Latched(latch));
            prev = Some(latch);
        }
        out
    }

    /// The timestamps of frame `frame_number` as of `now`; `None` if it is not in the history.
    pub fn timestamps(&self, frame_number: u64, now: i64) -> Option<FrameTimestamps> {
        let idx = self
            .records
            .iter()
            .position(|r| r.frame_number == frame_number)?;
        let r = self.records[idx];
        let shown = self.shown();
        let refresh = self.refresh_ns;
        let pending = NATIVE_WINDOW_TIMESTAMP_PENDING;
        let invalid = NATIVE_WINDOW_TIMESTAMP_INVALID;
        // The next frame that reached the screen, if known.
        let successor = shown[idx + 1..].iter().find_map(|s| match s {
            Shown::Latched(l) => Some(Some(*l)),
            Shown::Dropped(_) => None,
            Shown::Unknown => Some(None),
        });
        let successor = successor.flatten();
        let (latch, gpu, first, present, last, release) = match shown[idx] {
            Shown::Unknown => (pending, pending, pending, pending, pending, pending),
            Shown::Dropped(at) => (invalid, invalid, invalid, invalid, invalid, at),
            Shown::Latched(l) => {
                let p = l.saturating_add(refresh);
                let (last, release) = match successor {
                    Some(next) => (next, next.saturating_add(refresh)),
                    None => (pending, pending),
                };
                (l, l.saturating_add(refresh / 4), p, p, last, release)
            }
        };
        // Nothing is reported before it happened.
        let at = |t: i64| if t >= 0 && t > now { pending } else { t };
        Some(FrameTimestamps {
            requested_present: r.requested_ns,
            acquire: r.acquire_ns.map_or(pending, at),
            latch: at(latch),
            first_refresh_start: at(first),
            last_refresh_start: at(last),
            gpu_composition_done: at(gpu),
            display_present: at(present),
            dequeue_ready: at(release),
            release: at(release),
        })
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const R: i64 = 16_666_667;

    fn timeline() -> Timeline {
        let mut t = Timeline::new(R);
        t.epoch_ns = 1_000_000_000;
        t
    }

    #[test]
    fn vsync_grid() {
        let t = timeline();
        assert_eq!(t.next_vsync(0), t.epoch_ns);
        assert_eq!(t.next_vsync(t.epoch_ns), t.epoch_ns);
        assert_eq!(t.next_vsync(t.epoch_ns + 1), t.epoch_ns + R);
        assert_eq!(t.next_vsync(t.epoch_ns + R), t.epoch_ns + R);
    }

    #[test]
    fn fifo_frames_take_one_vsync_each_and_release_in_order() {
        let mut t = timeline();
        let q = t.epoch_ns + 10;
        for n in 1..=3 {
            t.record_queue(n, q, q, true, Some(q));
        }
        let far = i64::MAX;
        let ts: Vec<_> = (1..=3).map(|n| t.timestamps(n, far).unwrap()).collect();
        assert_eq!(ts[0].latch, t.epoch_ns + R);
        assert_eq!(ts[1].latch, t.epoch_ns + 2 * R);
        assert_eq!(ts[2].latch, t.epoch_ns + 3 * R);
        for f in &ts {
            assert_eq!(f.display_present, f.latch + R);
            assert!(f.gpu_composition_done > f.latch && f.gpu_composition_done < f.display_present);
        }
        assert_eq!(ts[0].last_refresh_start, ts[1].latch);
        assert_eq!(ts[0].release, ts[1].display_present);
        assert_eq!(
            ts[2].release, NATIVE_WINDOW_TIMESTAMP_PENDING,
            "still on screen"
        );
        assert!(t.timestamps(4, far).is_none());
    }

    #[test]
    fn future_and_unknown_values_are_pending() {
        let mut t = timeline();
        let q = t.epoch_ns + 10;
        t.record_queue(1, q, q, true, None);
        t.record_queue(2, q, q, true, Some(q));
        let a = t.timestamps(1, i64::MAX).unwrap();
        assert_eq!(a.acquire, NATIVE_WINDOW_TIMESTAMP_PENDING);
        assert_eq!(a.latch, NATIVE_WINDOW_TIMESTAMP_PENDING);
        // Frame 2 depends on frame 1's latch.
        assert_eq!(
            t.timestamps(2, i64::MAX).unwrap().latch,
            NATIVE_WINDOW_TIMESTAMP_PENDING
        );
        t.set_acquired(1, q + 5);
        t.set_acquired(1, q + 500); // first sighting wins
        let a = t.timestamps(1, q + 6).unwrap();
        assert_eq!(a.acquire, q + 5);
        assert_eq!(
            a.latch, NATIVE_WINDOW_TIMESTAMP_PENDING,
            "latch is in the future"
        );
        assert_eq!(t.timestamps(1, i64::MAX).unwrap().latch, t.epoch_ns + R);
    }

    #[test]
    fn desired_present_time_delays_the_latch() {
        let mut t = timeline();
        let q = t.epoch_ns + 10;
        let want = t.epoch_ns + 10 * R;
        t.record_queue(1, q, want, true, Some(q));
        let f = t.timestamps(1, i64::MAX).unwrap();
        assert_eq!(f.requested_present, want);
        assert_eq!(f.display_present, want, "presented on the vsync asked for");
    }

    #[test]
    fn swap_interval_zero_drops_frames_replaced_on_the_same_vsync() {
        let mut t = timeline();
        let q = t.epoch_ns + 10;
        t.record_queue(1, q, q, false, Some(q));
        t.record_queue(2, q + 20, q + 20, false, Some(q + 20));
        let a = t.timestamps(1, i64::MAX).unwrap();
        let b = t.timestamps(2, i64::MAX).unwrap();
        assert_eq!(a.latch, NATIVE_WINDOW_TIMESTAMP_INVALID);
        assert_eq!(a.display_present, NATIVE_WINDOW_TIMESTAMP_INVALID);
        assert_eq!(a.release, b.latch);
        assert_eq!(b.latch, t.epoch_ns + R);
    }
}
