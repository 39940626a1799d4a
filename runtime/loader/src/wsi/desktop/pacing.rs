//! When a desktop presenter shows the next frame: its timing model, one state machine per
//! present mode, kept apart from the window systems so that it can be tested on its own.
//!
//! The X11 presenter *is* the display: it has a refresh (its "vertical blank") every
//! [`super::x11`] period, on a timeline that starts when the presenter does. At each refresh it
//! takes the oldest queued frame, if any, and shows it. What it does between refreshes depends
//! on the swapchain's present mode:
//!
//! * FIFO and MAILBOX ([`Pacing::Refresh`]): nothing; the next frame waits for the next refresh
//!   (MAILBOX differs in the queue, which replaces a waiting frame).
//! * FIFO_RELAXED ([`Pacing::Relaxed`]): a refresh at which no frame was queued leaves the
//!   current image up for a second period; a frame queued after such a refresh is *late* and is
//!   shown as soon as it is queued instead of at the next refresh (where a real display would
//!   tear), as the spec's "if a vertical blanking period has already passed since the last
//!   update of the current image" says. The refresh timeline is not moved: after a late frame,
//!   the next frame waits for the next refresh again.
//! * IMMEDIATE ([`Pacing::Immediate`]): every frame is shown as soon as it is queued; the
//!   period only bounds how long the presenter sleeps (it also polls the window's size).
//!
//! A presenter that falls behind its timeline (a turn later than the refresh after the one it
//! was due at) restarts the timeline from now rather than running turns back to back.

use std::sync::atomic::{AtomicU8, Ordering};
use std::time::{Duration, Instant};

use vkgen_generated::vk;

/// How a presenter paces the frames of a swapchain (see the module notes).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
#[repr(u8)]
pub enum Pacing {
    /// FIFO, MAILBOX (and the shared modes): one frame per refresh, at the refresh.
    Refresh = 0,
    /// FIFO_RELAXED: at the refresh, but a late frame at once.
    Relaxed = 1,
    /// IMMEDIATE: at once.
    Immediate = 2,
}

impl Pacing {
    /// The pacing a swapchain of `mode` gets.
    pub fn for_mode(mode: vk::PresentModeKHR) -> Pacing {
        match mode {
            vk::PresentModeKHR::IMMEDIATE => Pacing::Immediate,
            vk::PresentModeKHR::FIFO_RELAXED => Pacing::Relaxed,
            _ => Pacing::Refresh,
        }
    }

    /// The pacing stored in `cell` (by [`Pacing::store`]).
    pub fn load(cell: &AtomicU8) -> Pacing {
        match cell.load(Ordering::Acquire) {
            1 => Pacing::Relaxed,
            2 => Pacing::Immediate,
            _ => Pacing::Refresh,
        }
    }

    pub fn store(self, cell: &AtomicU8) {
        cell.store(self as u8, Ordering::Release);
    }
}

/// What a presenter waits for before its next turn.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Wait {
    /// Sleep until this refresh.
    Refresh(Instant),
    /// Wake as soon as a frame is queued, at this instant at the latest.
    FrameOrUntil(Instant),
}

/// A presenter's refresh timeline.
#[derive(Debug)]
pub struct Clock {
    period: Duration,
    /// The next refresh.
    next: Instant,
}

impl Clock {
    /// A timeline of `period` whose first refresh is `now`.
    pub fn new(period: Duration, now: Instant) -> Clock {
        Clock { period, next: now }
    }

    /// After a turn at `now` in which a frame was (`shown`) or was not shown: how to wait for
    /// the next turn.
    pub fn after_turn(&mut self, pacing: Pacing, shown: bool, now: Instant) -> Wait {
        if now >= self.next {
            // A turn at (or after) a refresh: the timeline moves on.
            self.next += self.period;
            if self.next <= now {
                self.next = now;
            }
        }
        // A turn between refreshes (a late frame, or a wake with none) keeps the timeline.
        match pacing {
            Pacing::Refresh => Wait::Refresh(self.next),
            Pacing::Relaxed if shown => Wait::Refresh(self.next),
            // Nothing shown at this refresh (or since): the next frame is late.
            Pacing::Relaxed => Wait::FrameOrUntil(self.next),
            Pacing::Immediate => {
                self.next = now + self.period;
                Wait::FrameOrUntil(self.next)
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const P: Duration = Duration::from_millis(16);

    fn at(t0: Instant, periods: f64) -> Instant {
        t0 + P.mul_f64(periods)
    }

    #[test]
    fn fifo_waits_for_every_refresh_shown_or_not() {
        let t0 = Instant::now();
        let mut c = Clock::new(P, t0);
        assert_eq!(
            c.after_turn(Pacing::Refresh, true, t0),
            Wait::Refresh(at(t0, 1.0))
        );
        let t1 = at(t0, 1.0);
        assert_eq!(
            c.after_turn(Pacing::Refresh, false, t1),
            Wait::Refresh(at(t0, 2.0))
        );
    }

    #[test]
    fn relaxed_shows_a_frame_late_after_an_empty_refresh_and_keeps_the_timeline() {
        let t0 = Instant::now();
        let mut c = Clock::new(P, t0);
        // A frame at the refresh: the next one waits for the next refresh.
        assert_eq!(
            c.after_turn(Pacing::Relaxed, true, t0),
            Wait::Refresh(at(t0, 1.0))
        );
        // None at the next refresh: whatever comes before the one after is late, shown at once.
        let t1 = at(t0, 1.0);
        assert_eq!(
            c.after_turn(Pacing::Relaxed, false, t1),
            Wait::FrameOrUntil(at(t0, 2.0))
        );
        // The late frame, shown between refreshes: the timeline stays, the next frame waits.
        let late = at(t0, 1.4);
        assert_eq!(
            c.after_turn(Pacing::Relaxed, true, late),
            Wait::Refresh(at(t0, 2.0))
        );
        // Early wake with nothing (a spurious one): still waiting for a late frame.
        let mut c = Clock::new(P, t0);
        c.after_turn(Pacing::Relaxed, false, t0);
        assert_eq!(
            c.after_turn(Pacing::Relaxed, false, at(t0, 0.5)),
            Wait::FrameOrUntil(at(t0, 1.0))
        );
    }

    #[test]
    fn immediate_waits_only_for_a_frame_and_a_late_presenter_restarts_its_timeline() {
        let t0 = Instant::now();
        let mut c = Clock::new(P, t0);
        let t = at(t0, 0.25);
        assert_eq!(
            c.after_turn(Pacing::Immediate, true, t),
            Wait::FrameOrUntil(t + P)
        );
        let mut c = Clock::new(P, t0);
        let behind = at(t0, 5.5);
        assert_eq!(
            c.after_turn(Pacing::Refresh, true, behind),
            Wait::Refresh(behind)
        );
        assert_eq!(
            c.after_turn(Pacing::Refresh, true, behind),
            Wait::Refresh(behind + P)
        );
    }

    #[test]
    fn modes_map_to_pacings_through_the_shared_cell() {
        let cell = AtomicU8::new(0);
        for (mode, want) in [
            (vk::PresentModeKHR::FIFO, Pacing::Refresh),
            (vk::PresentModeKHR::MAILBOX, Pacing::Refresh),
            (vk::PresentModeKHR::FIFO_RELAXED, Pacing::Relaxed),
            (vk::PresentModeKHR::IMMEDIATE, Pacing::Immediate),
        ] {
            Pacing::for_mode(mode).store(&cell);
            assert_eq!(Pacing::load(&cell), want, "{mode:?}");
        }
    }
}
