//! `VK_GOOGLE_display_timing` (AOSP's `TimingInfo` and friends).
//!
//! * `vkGetRefreshCycleDurationGOOGLE` asks the window every time
//!   (`native_window_get_refresh_cycle_duration`; failure → `VK_ERROR_SURFACE_LOST_KHR`).
//! * A present with `VkPresentTimesInfoGOOGLE` turns on the window's frame timestamps (once),
//!   records `{presentID, desiredPresentTime}` with the window's next frame id (at most
//!   [`MAX_TIMING_INFOS`] kept) and, for a non-zero desired time, sets the buffer's timestamp.
//! * `vkGetPastPresentationTimingGOOGLE` (current swapchains only, else
//!   `VK_ERROR_OUT_OF_DATE_KHR`) turns timestamps on if needed and reports the records that are
//!   complete. Only records at least [`MIN_NUM_FRAMES_AGO`] frames old are examined; for each,
//!   `native_window_get_frame_timestamps` gives the desired-present, render-complete, latch and
//!   actual-present times. `actualPresentTime` is the display time; `presentMargin` starts as
//!   latch − render-complete and `earliestPresentTime` as the actual time, and both move one
//!   refresh cycle earlier while the margin exceeds a cycle and the earlier time is still after
//!   the latch. Reported records, and the not-ready ones older than the newest ready one, are
//!   dropped. An `INVALID` timestamp zeroes the record's times.

use std::collections::VecDeque;

use vkgen_abi::native_window as nw;
use vkgen_abi::vk_error;

use super::swapchain::{lookup, Swapchain};
use super::window_err::{map_window_err, WindowCall};
use crate::ffi::guard;
use vkgen_generated::vk;

pub use super::timing_record::{take_ready, TimingInfo, MAX_TIMING_INFOS, MIN_NUM_FRAMES_AGO};

/// Looks for newly arrived timestamps and counts the records ready to report
/// (`get_num_ready_timings`).
fn num_ready(swapchain: &Swapchain, timing: &mut VecDeque<TimingInfo>, refresh: i64) -> usize {
    if timing.len() < MIN_NUM_FRAMES_AGO {
        return 0;
    }
    let examined = timing.len() - MIN_NUM_FRAMES_AGO + 1;
    let mut ready = 0;
    for ti in timing.iter_mut().take(examined) {
        if ti.ready() {
            ready += 1;
            continue;
        }
        let Ok(t) = swapchain.window().frame_timestamps(ti.native_frame_id) else {
            continue;
        };
        ti.desired_present = t.desired_present;
        ti.render_complete = t.render_complete;
        ti.composition_latch = t.composition_latch;
        ti.actual_present = t.actual_present;
        ti.calculate(refresh);
        if ti.ready() {
            ready += 1;
        }
    }
    ready
}

/// `vkGetRefreshCycleDurationGOOGLE`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn refresh_cycle_duration(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    out: *mut vk::RefreshCycleDurationGOOGLE,
) -> vk::Result {
    let _trace = crate::trace::section("GetRefreshCycleDurationGOOGLE");
    guard(
        "vkGetRefreshCycleDurationGOOGLE",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let Some(sc) = lookup(swapchain, "vkGetRefreshCycleDurationGOOGLE") else {
                return vk_error!(
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "vkGetRefreshCycleDurationGOOGLE: unknown swapchain"
                );
            };
            // SAFETY: `out` is the application's pDisplayTimingProperties: null (refused here) or
            // writable for this call.
            let Some(out) = (unsafe { out.as_mut() }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkGetRefreshCycleDurationGOOGLE: null pDisplayTimingProperties"
                );
            };
            match sc.window().refresh_cycle_duration() {
                Ok(ns) => {
                    sc.lock().refresh_duration = ns;
                    out.refresh_duration = ns.max(0) as u64;
                    vk::Result::SUCCESS
                }
                Err(e) => map_window_err(
                    e,
                    WindowCall::Other,
                    "vkGetRefreshCycleDurationGOOGLE",
                    "native_window_get_refresh_cycle_duration",
                ),
            }
        },
    )
}

/// `vkGetPastPresentationTimingGOOGLE`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn past_presentation_timing(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    count: *mut u32,
    out: *mut vk::PastPresentationTimingGOOGLE,
) -> vk::Result {
    let _trace = crate::trace::section("GetPastPresentationTimingGOOGLE");
    guard(
        "vkGetPastPresentationTimingGOOGLE",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let Some(sc) = lookup(swapchain, "vkGetPastPresentationTimingGOOGLE") else {
                return vk_error!(
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "vkGetPastPresentationTimingGOOGLE: unknown swapchain"
                );
            };
            // SAFETY: `count` is the application's pPresentationTimingCount: null (refused here) or
            // readable and writable for this call.
            let Some(count) = (unsafe { count.as_mut() }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkGetPastPresentationTimingGOOGLE: null pPresentationTimingCount"
                );
            };
            if !sc.is_current() {
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_DATE_KHR,
                    "vkGetPastPresentationTimingGOOGLE: the swapchain is retired"
                );
            }
            let mut st = sc.lock();
            if !st.frame_timestamps_enabled {
                sc.window()
                    .perform_int(nw::NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS, 1);
                st.frame_timestamps_enabled = true;
            }
            let refresh = st.refresh_duration;
            let ready = num_ready(&sc, &mut st.timing, refresh);
            if out.is_null() {
                *count = ready as u32;
                return vk::Result::SUCCESS;
            }
            let capacity = *count as usize;
            let values = take_ready(&mut st.timing, capacity);
            // SAFETY: the caller's array holds `capacity >= values.len()` elements.
            unsafe { std::ptr::copy_nonoverlapping(values.as_ptr(), out, values.len()) };
            *count = values.len() as u32;
            if capacity < ready {
                vk::Result::INCOMPLETE
            } else {
                vk::Result::SUCCESS
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    fn record(id: u32, ready: bool) -> TimingInfo {
        let mut t = TimingInfo::new(
            &vk::PresentTimeGOOGLE {
                present_id: id,
                desired_present_time: 0,
            },
            u64::from(id),
        );
        if ready {
            t.desired_present = 0;
            t.render_complete = 1_000;
            t.composition_latch = 5_000;
            t.actual_present = 10_000;
            t.calculate(16_666);
        }
        t
    }

    #[test]
    fn margins_move_earlier_by_whole_cycles() {
        let mut t = record(1, false);
        t.desired_present = 0;
        t.render_complete = 0;
        t.composition_latch = 40;
        t.actual_present = 100;
        t.calculate(10);
        // margin 40 → 30 → 20 → 10 (stops: not > 10); early 100 → 90 → 80 → 70 (> latch 40).
        assert_eq!(t.values.actual_present_time, 100);
        assert_eq!(t.values.present_margin, 10);
        assert_eq!(t.values.earliest_present_time, 70);
        assert!(t.ready());
        let mut bad = t;
        bad.actual_present = nw::NATIVE_WINDOW_TIMESTAMP_INVALID;
        bad.calculate(10);
        assert_eq!(bad.values.actual_present_time, 0);
    }

    #[test]
    fn ready_records_are_taken_and_stale_ones_dropped() {
        let mut q: VecDeque<TimingInfo> = [
            record(1, false),
            record(2, true),
            record(3, true),
            record(4, false),
        ]
        .into_iter()
        .collect();
        let got = take_ready(&mut q, 1);
        assert_eq!(got.len(), 1);
        assert_eq!(got[0].present_id, 2);
        // Record 1 (older than a ready one) and 2 (reported) are gone.
        assert_eq!(q.len(), 2);
        let got = take_ready(&mut q, 8);
        assert_eq!(got.iter().map(|v| v.present_id).collect::<Vec<_>>(), [3]);
        assert_eq!(q.len(), 1);
        assert!(take_ready(&mut q, 8).is_empty());
        assert_eq!(q.len(), 1);
    }
}
