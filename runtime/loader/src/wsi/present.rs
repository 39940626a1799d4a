//! `vkQueuePresentKHR` (AOSP `QueuePresentKHR`) and `vkSetHdrMetadataEXT`.
//!
//! The `pNext` chain may carry `VkPresentRegionsKHR` (incremental present),
//! `VkPresentTimesInfoGOOGLE` (display timing), `VkSwapchainPresentFenceInfoEXT` and
//! `VkSwapchainPresentModeInfoEXT` (swapchain maintenance1). For each swapchain, in order:
//! 1. `vkQueueSignalReleaseImageANDROID(queue, waits, image, &fd)`: the driver's release fence
//!    (−1: already done). The wait semaphores go to every swapchain of the present, as AOSP
//!    android16 passes them (a divergence from the spec's letter, where a binary semaphore is
//!    waited on once: see docs/aosp-parity.md). The image keeps a `dup` of the fence.
//! 2. A retired swapchain: the image is released (the fence waited for, nothing queued) and the
//!    result is `VK_ERROR_OUT_OF_DATE_KHR`. Otherwise, if the driver succeeded:
//!    * a present fence gets the fd imported (`vkImportFenceFdKHR`, `TEMPORARY`, `SYNC_FD`, a
//!      `dup`; closed by us if the import fails);
//!    * regions become `native_window_set_surface_damage` rectangles with the y axis flipped
//!      (Android's origin is bottom-left), not in mailbox mode; layers > 0 are ignored;
//!    * present times: see [`super::timing`];
//!    * a present-mode change between the two shared modes toggles auto-refresh;
//!    * `queueBuffer(buffer, fd)` (which always takes the fd): failure is
//!      `VK_ERROR_SURFACE_LOST_KHR`; success returns the image to the window;
//!    * a shared swapchain dequeues its buffer again at once and expects the same one.
//! 3. Any failure retires the swapchain. Then the window's transform hint is read: a hint that
//!    differs from `preTransform` is `VK_SUBOPTIMAL_KHR` (on Android the only source of it: a
//!    resize is not; on a Linux host's desktop window a size other than the swapchain's is).
//! 4. `pResults[i]` gets the swapchain's result; the call returns the worst of them
//!    ([`super::formats::worst_present_result`]).

use std::ffi::c_int;
use std::os::fd::{AsRawFd, IntoRawFd, OwnedFd};

use vkgen_abi::native_window as nw;
use vkgen_abi::vk_error;

use super::formats::{is_shared, worst_present_result};
use super::swapchain::{device_wsi, lookup, release_image, Image, State, Swapchain};
use super::timing_record::{TimingInfo, MAX_TIMING_INFOS};
use super::window::{dup_fd, strerror, take_fd, NativeRect, Window, OK};
use super::window_err::{map_window_err, WindowCall};

/// The command the window failures of this file are logged under.
const PRESENT: &str = "vkQueuePresentKHR";
use crate::dispatch_data::term::DeviceFns;
use crate::dispatch_data::term::DeviceWsi;
use crate::ffi::guard;
use vkgen_generated::chain::find_in_chain;
use vkgen_generated::vk;

/// Borrows a `(count, pointer)` array of the application's (empty for null).
///
/// # Safety
/// `ptr` must be null or point at `count` elements that outlive `'a`.
pub(super) unsafe fn array<'a, T>(ptr: *const T, count: u32) -> &'a [T] {
    if ptr.is_null() || count == 0 {
        &[]
    } else {
        // SAFETY: `ptr` is non-null and `count` non-zero in this branch, and the caller guarantees
        // `count` elements that outlive `'a`.
        unsafe { std::slice::from_raw_parts(ptr, count as usize) }
    }
}

/// What the present's `pNext` chain asks for.
#[derive(Default)]
struct Extras<'a> {
    regions: &'a [vk::PresentRegionKHR<'a>],
    times: &'a [vk::PresentTimeGOOGLE],
    fences: &'a [vk::Fence],
    modes: &'a [vk::PresentModeKHR],
}

/// `vkQueuePresentKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn queue_present(
    queue: vk::Queue,
    info: *const vk::PresentInfoKHR<'_>,
) -> vk::Result {
    let _trace = crate::trace::section("QueuePresentKHR");
    guard(
        "vkQueuePresentKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `queue` is the application's queue of this loader's device
            // (VUID-vkQueuePresentKHR-queue-parameter); `device_wsi` reads its word 0.
            let wsi = match unsafe {
                device_wsi(vk::Handle::as_raw(queue) as usize, "vkQueuePresentKHR")
            } {
                Ok(w) => w,
                Err(e) => return e,
            };
            // SAFETY: `info` is the application's pPresentInfo: null (refused here) or a valid
            // present info for this call (VUID-vkQueuePresentKHR-pPresentInfo-parameter).
            let Some(info) = (unsafe { info.as_ref() }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkQueuePresentKHR: null pPresentInfo"
                );
            };
            // SAFETY: the application's valid chain and arrays.
            let extras = unsafe { extras(info) };
            // SAFETY: `pSwapchains`, `pImageIndices` and `pWaitSemaphores` hold `swapchainCount`
            // and `waitSemaphoreCount` entries (VUID-VkPresentInfoKHR-*-parameter) that live for
            // this call.
            let (swapchains, indices, waits) = unsafe {
                (
                    array(info.p_swapchains, info.swapchain_count),
                    array(info.p_image_indices, info.swapchain_count),
                    array(info.p_wait_semaphores, info.wait_semaphore_count),
                )
            };
            let mut final_result = vk::Result::SUCCESS;
            for (i, (&handle, &index)) in swapchains.iter().zip(indices).enumerate() {
                let result = match lookup(handle, "vkQueuePresentKHR") {
                    None => vk_error!(
                        vk::Result::ERROR_SURFACE_LOST_KHR,
                        "vkQueuePresentKHR: unknown swapchain"
                    ),
                    Some(sc) => present_one(wsi, queue, &sc, index, waits, &extras, i),
                };
                if !info.p_results.is_null() {
                    // SAFETY: `pResults` is non-null here and then holds `swapchainCount` entries
                    // (VUID-VkPresentInfoKHR-pResults-parameter); `i` < `swapchainCount`.
                    unsafe { *info.p_results.add(i) = result };
                }
                final_result = worst_present_result(final_result, result);
            }
            final_result
        },
    )
}

/// # Safety
/// `info`'s chain and arrays must be valid.
unsafe fn extras<'a>(info: &'a vk::PresentInfoKHR<'a>) -> Extras<'a> {
    let mut e = Extras::default();
    // SAFETY: the application's valid chain; each sType names its structure.
    unsafe {
        if let Some(r) = find_in_chain::<vk::PresentRegionsKHR<'_>>(
            info.p_next,
            vk::StructureType::PRESENT_REGIONS_KHR,
        ) {
            e.regions = array(r.p_regions, r.swapchain_count);
        }
        if let Some(t) = find_in_chain::<vk::PresentTimesInfoGOOGLE<'_>>(
            info.p_next,
            vk::StructureType::PRESENT_TIMES_INFO_GOOGLE,
        ) {
            e.times = array(t.p_times, t.swapchain_count);
        }
        if let Some(f) = find_in_chain::<vk::SwapchainPresentFenceInfoEXT<'_>>(
            info.p_next,
            vk::StructureType::SWAPCHAIN_PRESENT_FENCE_INFO_EXT,
        ) {
            e.fences = array(f.p_fences, f.swapchain_count);
        }
        if let Some(m) = find_in_chain::<vk::SwapchainPresentModeInfoEXT<'_>>(
            info.p_next,
            vk::StructureType::SWAPCHAIN_PRESENT_MODE_INFO_EXT,
        ) {
            e.modes = array(m.p_present_modes, m.swapchain_count);
        }
    }
    e
}

/// Presents image `index` of one swapchain; returns its result (steps 1 to 3 of the module
/// notes).
fn present_one(
    wsi: &DeviceWsi,
    queue: vk::Queue,
    sc: &Swapchain,
    index: u32,
    waits: &[vk::Semaphore],
    extras: &Extras<'_>,
    i: usize,
) -> vk::Result {
    let fns = &sc.fns;
    let mut st = sc.lock();
    let Some(img) = st.images.get(index as usize) else {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DATE_KHR,
            "vkQueuePresentKHR: image index {index} out of range"
        );
    };
    let image = img.image;
    let mut result = vk::Result::SUCCESS;
    let mut fd: c_int = -1;
    // SAFETY: the driver's function with the application's queue and semaphores and the
    // swapchain's image.
    let r = unsafe {
        (fns.signal_release_image)(queue, waits.len() as u32, waits.as_ptr(), image, &mut fd)
    };
    // SAFETY: the driver hands the fence fd (or −1) to the caller.
    let mut fence = unsafe { take_fd(fd) };
    if r != vk::Result::SUCCESS {
        log::error!("vkQueueSignalReleaseImageANDROID failed: {r:?}");
        result = r;
    }
    let release_dup = fence.as_ref().and_then(|f| dup_fd(f).ok());
    st.images[index as usize].release_fence = release_dup;

    if !sc.is_current() {
        release_image(
            fns,
            sc.shared,
            None,
            fence,
            &mut st.images[index as usize],
            true,
        );
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DATE_KHR,
            "vkQueuePresentKHR: the swapchain is retired"
        );
    }
    if result == vk::Result::SUCCESS {
        result = queue_image(wsi, sc, &mut st, index as usize, &mut fence, extras, i);
    }
    // An fd the window never got (driver failure) is closed here.
    if let Some(f) = fence.take() {
        log::trace!("closing unused release fence {}", f.as_raw_fd());
    }
    if result != vk::Result::SUCCESS {
        sc.orphan(&mut st);
    }
    window_result(sc, result)
}

/// Step 2 for a current swapchain whose image the driver released: the present's extras for
/// swapchain `i`, then the buffer to the window (`fence` goes with it).
fn queue_image(
    wsi: &DeviceWsi,
    sc: &Swapchain,
    st: &mut State,
    index: usize,
    fence: &mut Option<OwnedFd>,
    extras: &Extras<'_>,
    i: usize,
) -> vk::Result {
    let window = sc.window();
    if let Some(&present_fence) = extras.fences.get(i) {
        if wsi.maintenance1 {
            signal_present_fence(&sc.fns, present_fence, fence.as_ref());
        }
    }
    let mailbox = st.present_mode == vk::PresentModeKHR::MAILBOX;
    if let Some(region) = extras.regions.get(i).filter(|_| !mailbox) {
        // SAFETY: `p_rectangles` holds `rectangle_count` rectangles
        // (VUID-VkPresentRegionKHR-pRectangles-parameter) that live for this call.
        let rects = unsafe { array(region.p_rectangles, region.rectangle_count) };
        let native: Vec<NativeRect> = rects.iter().map(damage_rect).collect();
        let err = window.set_surface_damage(&native);
        if err != OK {
            log::warn!("native_window_set_surface_damage failed: {}", strerror(err));
        }
    }
    if let Some(time) = extras.times.get(i) {
        record_present_time(window, st, time);
    }
    if let Some(&mode) = extras.modes.get(i) {
        change_present_mode(window, st, mode);
    }
    queue_buffer(window, sc.shared, &mut st.images[index], fence)
}

/// A `VkSwapchainPresentFenceInfoEXT` fence: signalled by a `dup` of the release fence.
fn signal_present_fence(fns: &DeviceFns, present_fence: vk::Fence, fence: Option<&OwnedFd>) {
    let Some(import) = fns.import_fence_fd else {
        return;
    };
    if present_fence == vk::Fence::null() {
        return;
    }
    let copy = fence
        .and_then(|f| dup_fd(f).ok())
        .map_or(-1, IntoRawFd::into_raw_fd);
    let import_info = vk::ImportFenceFdInfoKHR {
        fence: present_fence,
        flags: vk::FenceImportFlags::TEMPORARY,
        handle_type: vk::ExternalFenceHandleTypeFlags::SYNC_FD,
        fd: copy,
        ..Default::default()
    };
    // SAFETY: the driver's vkImportFenceFdKHR for its live device, with the application's fence
    // (VUID-VkSwapchainPresentFenceInfoEXT-pFences-parameter) and an fd that is ours.
    let r = unsafe { import(fns.device, &import_info) };
    if r != vk::Result::SUCCESS {
        log::error!("vkImportFenceFdKHR for a present fence failed: {r:?}");
        // The import takes the fd only when it succeeds.
        // SAFETY: `copy` is our `dup` (or −1), which the failed import left to us.
        drop(unsafe { take_fd(copy) });
    }
}

/// A `VkPresentTimeGOOGLE`: frame timestamps on, the frame recorded for
/// `vkGetPastPresentationTimingGOOGLE`, the desired present time to the window.
fn record_present_time(window: &Window, st: &mut State, time: &vk::PresentTimeGOOGLE) {
    if !st.frame_timestamps_enabled {
        window.perform_int(nw::NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS, 1);
        st.frame_timestamps_enabled = true;
    }
    let frame_id = window.next_frame_id().unwrap_or_else(|e| {
        log::error!("native_window_get_next_frame_id failed: {}", strerror(e));
        0
    });
    st.timing.push_back(TimingInfo::new(time, frame_id));
    while st.timing.len() > MAX_TIMING_INFOS {
        st.timing.pop_front();
    }
    if time.desired_present_time != 0 {
        window.perform_i64(
            nw::NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP,
            time.desired_present_time as i64,
        );
    }
}

/// A `VkSwapchainPresentModeInfoEXT` mode: only a change between the two shared modes is
/// possible (it toggles auto-refresh).
fn change_present_mode(window: &Window, st: &mut State, mode: vk::PresentModeKHR) {
    if mode == st.present_mode {
        return;
    }
    if is_shared(mode) && is_shared(st.present_mode) {
        let err = window.perform_int(
            nw::NATIVE_WINDOW_SET_AUTO_REFRESH,
            c_int::from(mode == vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH),
        );
        if err != OK {
            log::warn!("native_window_set_auto_refresh failed: {}", strerror(err));
        }
        st.present_mode = mode;
    } else {
        log::error!(
            "vkQueuePresentKHR: present mode {mode:?} is not compatible with {:?}",
            st.present_mode
        );
    }
}

/// `queueBuffer` of the image's buffer with `fence`; a shared swapchain dequeues its buffer
/// again at once.
fn queue_buffer(
    window: &Window,
    shared: bool,
    img: &mut Image,
    fence: &mut Option<OwnedFd>,
) -> vk::Result {
    let mut result = vk::Result::SUCCESS;
    let err = match &img.buffer {
        Some(buffer) => window.queue_buffer(buffer, fence.take()),
        None => -libc::EINVAL,
    };
    if err != OK {
        let lost = map_window_err(err, WindowCall::Other, PRESENT, "queueBuffer");
        result = worst_present_result(result, lost);
    } else {
        img.dequeue_fence = None;
        img.dequeued = false;
    }
    if shared && result == vk::Result::SUCCESS {
        match window.dequeue_buffer() {
            Err(err) => {
                let lost =
                    map_window_err(err, WindowCall::Other, PRESENT, "dequeueBuffer (shared)");
                result = worst_present_result(result, lost);
            }
            Ok((buffer, f)) => {
                if img.buffer.as_ref().map(|b| b.as_ptr()) == Some(buffer.as_ptr()) {
                    img.dequeue_fence = f;
                    img.dequeued = true;
                } else {
                    let lost = vk_error!(
                        vk::Result::ERROR_SURFACE_LOST_KHR,
                        "got a different buffer back for a shared swapchain"
                    );
                    result = worst_present_result(result, lost);
                }
            }
        }
    }
    result
}

/// Step 3's window checks after a present: a transform hint other than `preTransform` (and on
/// a Linux host's X window, a size other than the swapchain's) is `VK_SUBOPTIMAL_KHR`, a
/// failed query `VK_ERROR_SURFACE_LOST_KHR`; the worse of that and `result`.
fn window_result(sc: &Swapchain, mut result: vk::Result) -> vk::Result {
    let window = sc.window();
    match window.query(nw::NATIVE_WINDOW_TRANSFORM_HINT) {
        Err(e) => {
            let lost = map_window_err(
                e,
                WindowCall::Other,
                PRESENT,
                "NATIVE_WINDOW_TRANSFORM_HINT query",
            );
            result = worst_present_result(result, lost);
        }
        Ok(hint) if hint != sc.pre_transform => {
            result = worst_present_result(result, vk::Result::SUBOPTIMAL_KHR);
        }
        Ok(_) => {}
    }
    // An X window (Linux hosts) that no longer has the swapchain's size: the spec's SUBOPTIMAL
    // (Android windows scale instead, so AOSP never reports a resize; a Wayland surface takes
    // the swapchain's size).
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    if super::desktop::kind(sc.surface.as_ref()) == Some(super::desktop::Kind::X11) {
        let size = (
            window.query(nw::NATIVE_WINDOW_DEFAULT_WIDTH),
            window.query(nw::NATIVE_WINDOW_DEFAULT_HEIGHT),
        );
        if let (Ok(w), Ok(h)) = size {
            if (w as u32, h as u32) != (sc.extent.width, sc.extent.height) {
                result = worst_present_result(result, vk::Result::SUBOPTIMAL_KHR);
            }
        }
    }
    result
}

/// A Vulkan present rectangle as window damage: Android's y axis points up from the bottom.
fn damage_rect(r: &vk::RectLayerKHR) -> NativeRect {
    if r.layer > 0 {
        log::debug!(
            "vkQueuePresentKHR: ignoring layer {} of a present region",
            r.layer
        );
    }
    NativeRect {
        left: r.offset.x,
        bottom: r.offset.y,
        right: r.offset.x.saturating_add(r.extent.width as i32),
        top: r.offset.y.saturating_add(r.extent.height as i32),
    }
}

/// `android_xy_color`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct XyColor {
    x: f32,
    y: f32,
}

/// `android_smpte2086_metadata`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Smpte2086 {
    red: XyColor,
    green: XyColor,
    blue: XyColor,
    white: XyColor,
    max_luminance: f32,
    min_luminance: f32,
}

/// `android_cta861_3_metadata`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default)]
struct Cta861_3 {
    max_content_light_level: f32,
    max_frame_average_light_level: f32,
}

/// `vkSetHdrMetadataEXT`: SMPTE 2086 and CTA 861.3 metadata on the windows of current
/// swapchains.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn set_hdr_metadata(
    _device: vk::Device,
    count: u32,
    swapchains: *const vk::SwapchainKHR,
    metadata: *const vk::HdrMetadataEXT<'_>,
) {
    let _trace = crate::trace::section("SetHdrMetadataEXT");
    guard("vkSetHdrMetadataEXT", (), || {
        // SAFETY: the application's arrays of `count` elements.
        let (swapchains, metadata) = unsafe { (array(swapchains, count), array(metadata, count)) };
        for (&handle, m) in swapchains.iter().zip(metadata) {
            let Some(sc) = lookup(handle, "vkSetHdrMetadataEXT") else {
                continue;
            };
            if !sc.is_current() {
                continue;
            }
            let xy = |c: vk::XYColorEXT| XyColor { x: c.x, y: c.y };
            let smpte = Smpte2086 {
                red: xy(m.display_primary_red),
                green: xy(m.display_primary_green),
                blue: xy(m.display_primary_blue),
                white: xy(m.white_point),
                max_luminance: m.max_luminance,
                min_luminance: m.min_luminance,
            };
            let cta = Cta861_3 {
                max_content_light_level: m.max_content_light_level,
                max_frame_average_light_level: m.max_frame_average_light_level,
            };
            let w = sc.window();
            // SAFETY: both ops take a pointer to the struct passed, which lives on this frame.
            unsafe {
                w.perform_ptr(
                    nw::NATIVE_WINDOW_SET_BUFFERS_SMPTE2086_METADATA,
                    std::ptr::addr_of!(smpte).cast(),
                );
                w.perform_ptr(
                    nw::NATIVE_WINDOW_SET_BUFFERS_CTA861_3_METADATA,
                    std::ptr::addr_of!(cta).cast(),
                );
            }
        }
    });
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn damage_is_y_flipped() {
        let r = vk::RectLayerKHR {
            offset: vk::Offset2D { x: 10, y: 20 },
            extent: vk::Extent2D {
                width: 30,
                height: 40,
            },
            layer: 0,
        };
        assert_eq!(
            damage_rect(&r),
            NativeRect {
                left: 10,
                bottom: 20,
                right: 40,
                top: 60
            }
        );
    }
}
