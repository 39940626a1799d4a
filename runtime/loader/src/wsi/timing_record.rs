//! `VK_GOOGLE_display_timing`'s records ([`TimingInfo`]): what a swapchain keeps per present
//! (its state holds them) and how the ready ones are reported ([`take_ready`]); the commands
//! that fill and report them are in `super::timing`.

use std::collections::VecDeque;

use vkgen_abi::native_window as nw;
use vkgen_generated::vk;

/// How many present records a swapchain keeps (`MAX_TIMING_INFOS`).
pub const MAX_TIMING_INFOS: usize = 10;
/// How many frames old a record must be before its timestamps are looked at
/// (`MIN_NUM_FRAMES_AGO`).
pub const MIN_NUM_FRAMES_AGO: usize = 5;

/// One present's timing record.
#[derive(Clone, Copy, Debug)]
pub struct TimingInfo {
    /// What the application gets.
    pub values: vk::PastPresentationTimingGOOGLE,
    /// The window's id of the frame.
    pub native_frame_id: u64,
    pub desired_present: i64,
    pub actual_present: i64,
    pub render_complete: i64,
    pub composition_latch: i64,
}

impl TimingInfo {
    /// A record for a present with `time`, which became window frame `native_frame_id`.
    pub fn new(time: &vk::PresentTimeGOOGLE, native_frame_id: u64) -> Self {
        let p = nw::NATIVE_WINDOW_TIMESTAMP_PENDING;
        Self {
            values: vk::PastPresentationTimingGOOGLE {
                present_id: time.present_id,
                desired_present_time: time.desired_present_time,
                actual_present_time: 0,
                earliest_present_time: 0,
                present_margin: 0,
            },
            native_frame_id,
            desired_present: p,
            actual_present: p,
            render_complete: p,
            composition_latch: p,
        }
    }

    /// Whether every timestamp the report needs has arrived.
    pub fn ready(&self) -> bool {
        let p = nw::NATIVE_WINDOW_TIMESTAMP_PENDING;
        self.desired_present != p
            && self.actual_present != p
            && self.render_complete != p
            && self.composition_latch != p
    }

    /// Derives the reported values from the timestamps, with `refresh` the refresh cycle (ns).
    pub fn calculate(&mut self, refresh: i64) {
        let invalid = nw::NATIVE_WINDOW_TIMESTAMP_INVALID;
        if self.actual_present == invalid
            || self.render_complete == invalid
            || self.composition_latch == invalid
        {
            log::error!("display timing: unexpectedly received an invalid timestamp");
            self.values.actual_present_time = 0;
            self.values.earliest_present_time = 0;
            self.values.present_margin = 0;
            return;
        }
        self.values.actual_present_time = self.actual_present as u64;
        let mut margin = self.composition_latch - self.render_complete;
        let mut early = self.actual_present;
        while refresh > 0 && margin > refresh && early - refresh > self.composition_latch {
            early -= refresh;
            margin -= refresh;
        }
        self.values.earliest_present_time = early as u64;
        self.values.present_margin = margin as u64;
    }
}

/// Copies out up to `capacity` ready records and drops what was reported, plus the unready
/// records older than the newest ready one (`copy_ready_timings`).
pub fn take_ready(
    timing: &mut VecDeque<TimingInfo>,
    capacity: usize,
) -> Vec<vk::PastPresentationTimingGOOGLE> {
    let Some(last_ready) = timing.iter().rposition(TimingInfo::ready) else {
        return Vec::new();
    };
    let mut out = Vec::new();
    let mut remove = 0;
    for ti in timing.iter().take(last_ready + 1) {
        if out.len() >= capacity {
            break;
        }
        if ti.ready() {
            out.push(ti.values);
        }
        remove += 1;
    }
    timing.drain(..remove);
    out
}
