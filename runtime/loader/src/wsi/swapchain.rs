//! `VkSwapchainKHR` on a surface's window (AOSP `CreateSwapchainKHR`, `AcquireNextImageKHR`,
//! `DestroySwapchainKHR`, `ReleaseSwapchainImage`, `OrphanSwapchain`).
//!
//! Creation lives in `swapchain_create.rs`, which documents its order.
//!
//! **Acquire**: retired → `VK_ERROR_OUT_OF_DATE_KHR`. Shared: index 0 and
//! `vkAcquireImageANDROID(fd −1)`. Otherwise the dequeue timeout is set when it changed
//! (`UINT64_MAX`-like values beyond `INT64_MAX` mean −1, forever) and a buffer dequeued:
//! `TIMED_OUT`/`INVALID_OPERATION` → `VK_TIMEOUT` (`VK_NOT_READY` for timeout 0), other errors →
//! `VK_ERROR_SURFACE_LOST_KHR`. The buffer is matched to its slot (or bound to a free deferred
//! slot); an unknown buffer is cancelled → `VK_ERROR_OUT_OF_DATE_KHR`. The loader keeps the
//! dequeue fence and hands the driver a `dup` (the driver owns and closes it, even on failure;
//! if `dup` fails the loader waits for the fence and passes −1). A driver failure cancels the
//! buffer with the original fence and is returned.
//!
//! **Release** of an image: a dequeued one is cancelled with its fence (the release fence if
//! one is given, else the dequeue fence); a shared buffer is never cancelled, the fence is
//! waited for and closed instead; a retired swapchain's window is not touched. A pending
//! release fence (a present still in flight) defers destroying the `VkImage` when retiring.
//!
//! **After the consumer abandons the window** the answers are AOSP's (android16 `swapchain.cpp`),
//! which this loader keeps rather than unifying: a failed present orphans the swapchain (no longer
//! current), so `vkCreateSwapchainKHR` naming it as `oldSwapchain` is
//! `VK_ERROR_NATIVE_WINDOW_IN_USE_KHR` (step 2), while a NULL `oldSwapchain` — or the current one
//! when no present failed — reaches the window and is `VK_ERROR_SURFACE_LOST_KHR`; the surface
//! queries read the window and are `VK_ERROR_SURFACE_LOST_KHR` (test
//! `wsi_abandoned_window_answers_match_aosp`).
//!
//! Swapchains live in [`SWAPCHAINS`]; an unknown handle is answered with
//! `VK_ERROR_SURFACE_LOST_KHR` (commands) or ignored (destroy).

use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::os::fd::{AsFd, OwnedFd};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex, MutexGuard};

use vkgen_abi::native_window as nw;
use vkgen_abi::vk_error;

use super::formats::gralloc0_to_gralloc1;
use super::registry::AppAllocation;
use super::registry::Registry;
use super::surface::Surface;
use super::timing_record::TimingInfo;
use super::window::{dup_fd, strerror, sync_wait, Buffer, Window, OK};
use super::window_err::{map_window_err, WindowCall};
use crate::dispatch_data::term::DeviceFns;
use crate::dispatch_data::term::DeviceWsi;
use vkgen_generated::chain::find_in_chain;

/// The command the acquire's window failures are logged under.
const ACQUIRE: &str = "vkAcquireNextImageKHR";
use crate::dispatch_data::device_data;
use crate::ffi::guard;
use vkgen_generated::vk;

/// The live swapchains.
pub static SWAPCHAINS: Registry<Swapchain> = Registry::new(0x5357);

/// One swapchain image slot.
#[derive(Debug, Default)]
pub struct Image {
    /// The driver's image (null once released).
    pub image: vk::Image,
    /// The window buffer behind it (none yet for a deferred slot).
    pub buffer: Option<Buffer>,
    /// The fence `dequeueBuffer` gave, while the application holds the image.
    pub dequeue_fence: Option<OwnedFd>,
    /// A `dup` of the fence of the image's last present.
    pub release_fence: Option<OwnedFd>,
    /// The application holds the image (acquired, not yet presented or released).
    pub dequeued: bool,
}

/// The mutable part of a swapchain.
#[derive(Debug)]
pub struct State {
    pub images: Vec<Image>,
    /// The present mode in effect (changes with `VkSwapchainPresentModeInfoEXT`).
    pub present_mode: vk::PresentModeKHR,
    /// The dequeue timeout last given to the window (ns, −1 = forever).
    pub dequeue_timeout: i64,
    pub frame_timestamps_enabled: bool,
    /// The window's refresh cycle, ns.
    pub refresh_duration: i64,
    pub timing: VecDeque<TimingInfo>,
}

/// A `VkSwapchainKHR`.
#[derive(Debug)]
pub struct Swapchain {
    pub handle: u64,
    pub surface: Arc<Surface>,
    pub fns: DeviceFns,
    /// A shared-presentable-image swapchain (one image, always dequeued).
    pub shared: bool,
    /// `preTransform` as a native transform (compared with the window's hint at present).
    pub pre_transform: c_int,
    /// The application enabled `VK_EXT_swapchain_maintenance1`.
    pub maintenance1: bool,
    /// `imageExtent` of the create info.
    pub extent: vk::Extent2D,
    /// `VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR`: the view formats of the create info's
    /// `VkImageFormatListCreateInfo`, handed to the driver with every image.
    pub format_list: Option<Vec<vk::Format>>,
    pub(super) state: Mutex<State>,
    pub(super) _allocation: AppAllocation,
}

impl Swapchain {
    /// Whether this is its surface's current swapchain (not retired).
    pub fn is_current(&self) -> bool {
        self.surface.current.load(Ordering::Acquire) == self.handle
    }

    /// The surface's window.
    pub fn window(&self) -> &Window {
        &self.surface.window
    }

    /// The mutable state (applications synchronise swapchain access externally, so this is
    /// uncontended in correct programs).
    pub fn lock(&self) -> MutexGuard<'_, State> {
        self.state.lock().unwrap_or_else(|p| p.into_inner())
    }

    /// `OrphanSwapchain`: releases the images the application does not hold and retires the
    /// swapchain. No-op if it is already retired.
    pub fn orphan(&self, st: &mut State) {
        if !self.is_current() {
            return;
        }
        for img in st.images.iter_mut().filter(|i| !i.dequeued) {
            release_image(&self.fns, self.shared, None, None, img, true);
        }
        let _ = self.surface.current.compare_exchange(
            self.handle,
            0,
            Ordering::AcqRel,
            Ordering::Acquire,
        );
        st.timing.clear();
    }
}

/// The live swapchain `handle` names (logged when unknown).
pub fn lookup(handle: vk::SwapchainKHR, what: &str) -> Option<Arc<Swapchain>> {
    let raw = vk::Handle::as_raw(handle);
    let sc = SWAPCHAINS.get(raw);
    if sc.is_none() {
        log::error!("{what}: {raw:#x} is not a live VkSwapchainKHR");
    }
    sc
}

/// `ReleaseSwapchainImage`.
pub fn release_image(
    fns: &DeviceFns,
    shared: bool,
    window: Option<&Window>,
    release_fence: Option<OwnedFd>,
    img: &mut Image,
    defer_if_pending: bool,
) {
    let _trace = crate::trace::section("ReleaseSwapchainImage");
    if img.dequeued {
        // With a release fence (from a present), the application chained the dequeue fence to
        // it, so the dequeue fence can go; without (destruction, errors) the dequeue fence is
        // the best there is.
        let fence = match release_fence {
            Some(f) => {
                img.dequeue_fence = None;
                Some(f)
            }
            None => img.dequeue_fence.take(),
        };
        match (window, &img.buffer) {
            (Some(w), Some(buffer)) if !shared => {
                let err = w.cancel_buffer(buffer, fence);
                if err != OK {
                    log::warn!("cancelBuffer failed: {}", strerror(err));
                }
            }
            _ => {
                if let Some(f) = fence {
                    if let Err(e) = sync_wait(f.as_fd(), -1) {
                        log::warn!("waiting for a swapchain image's fence failed: {e}");
                    }
                }
            }
        }
        img.dequeued = false;
    }
    if defer_if_pending {
        if let Some(f) = &img.release_fence {
            if matches!(sync_wait(f.as_fd(), 0), Ok(false)) {
                // Still being presented: destroying the image now would pull it from under the
                // driver; the swapchain's destruction frees it.
                return;
            }
        }
    }
    img.release_fence = None;
    if img.image != vk::Image::null() {
        let _trace = crate::trace::section("DestroyImage");
        // SAFETY: the driver's image of this device, no longer used by the application.
        unsafe { (fns.destroy_image)(fns.device, img.image, std::ptr::null()) };
        img.image = vk::Image::null();
    }
    img.buffer = None;
}

/// `DestroySwapchainInternal`: releases every image (cancelling through the window only if the
/// swapchain is current) and retires it.
pub(super) fn destroy_internal(sc: &Swapchain) {
    let _trace = crate::trace::section("DestroySwapchainInternal");
    let active = sc.is_current();
    let window = active.then(|| sc.window());
    let mut st = sc.lock();
    if let Some(w) = window {
        if st.frame_timestamps_enabled {
            w.perform_int(nw::NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS, 0);
        }
    }
    for img in st.images.iter_mut() {
        release_image(&sc.fns, sc.shared, window, None, img, false);
    }
    if active {
        let _ =
            sc.surface
                .current
                .compare_exchange(sc.handle, 0, Ordering::AcqRel, Ordering::Acquire);
    }
}

/// The device's WSI state, for a device command.
///
/// # Safety
/// `device` must be null or a device (or queue) of this loader.
pub(crate) unsafe fn device_wsi<'a>(
    object: usize,
    what: &str,
) -> Result<&'a DeviceWsi, vk::Result> {
    // SAFETY: the caller guarantees `object` is null or a device (or queue) of this loader, which
    // is `device_data`'s requirement.
    let data = unsafe { device_data(object) }.ok_or_else(|| {
        vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{what}: not a device of this loader"
        )
    })?;
    data.term.wsi.as_ref().ok_or_else(|| {
        vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{what}: the device was created without VK_KHR_swapchain"
        )
    })
}

/// A `VkNativeBufferANDROID` describing `buffer`, with `p_next` after it.
pub(super) fn native_buffer(buffer: &Buffer, p_next: *const c_void) -> vk::NativeBufferANDROID {
    let desc = buffer.desc();
    let legacy = desc.usage as c_int;
    let (producer, consumer) = gralloc0_to_gralloc1(legacy);
    vk::NativeBufferANDROID {
        s_type: vk::StructureType::NATIVE_BUFFER_ANDROID,
        p_next,
        handle: desc.handle.cast(),
        stride: desc.stride,
        format: desc.format,
        usage: legacy,
        usage2: vk::NativeBufferUsage2ANDROID { consumer, producer },
        usage3: desc.usage,
        // AOSP: `ANativeWindowBuffer_getHardwareBuffer(buffer)`, which is a cast: a window
        // buffer is an AHardwareBuffer (on Linux hosts too: vkgen-window's buffers are the
        // runtime's `HardwareBuffer`s). Valid only during the call, as spec 11 says.
        ahb: buffer.as_ptr().cast(),
    }
}

/// `vkDestroySwapchainKHR`: NULL and unknown handles are ignored.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn destroy_swapchain(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    _allocator: *const vk::AllocationCallbacks<'_>,
) {
    let _trace = crate::trace::section("DestroySwapchainKHR");
    guard("vkDestroySwapchainKHR", (), || {
        let raw = vk::Handle::as_raw(swapchain);
        if raw == 0 {
            return;
        }
        let Some(sc) = SWAPCHAINS.remove(raw) else {
            log::error!("vkDestroySwapchainKHR: {raw:#x} is not a live VkSwapchainKHR");
            return;
        };
        let _surface_lock = sc.surface.lock.lock().unwrap_or_else(|p| p.into_inner());
        destroy_internal(&sc);
    });
}

/// Destroys the swapchains of `device` the application did not destroy (called by
/// `vkDestroyDevice` before the driver's device goes).
pub fn destroy_all_of_device(device: vk::Device) {
    for sc in SWAPCHAINS.remove_where(|sc| sc.fns.device == device) {
        log::warn!(
            "vkDestroyDevice: swapchain {:#x} was not destroyed; destroying it now",
            sc.handle
        );
        let _surface_lock = sc.surface.lock.lock().unwrap_or_else(|p| p.into_inner());
        destroy_internal(&sc);
    }
}

/// `vkGetSwapchainImagesKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn get_swapchain_images(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    count: *mut u32,
    out: *mut vk::Image,
) -> vk::Result {
    let _trace = crate::trace::section("GetSwapchainImagesKHR");
    guard(
        "vkGetSwapchainImagesKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let Some(sc) = lookup(swapchain, "vkGetSwapchainImagesKHR") else {
                return vk_error!(
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "vkGetSwapchainImagesKHR: unknown swapchain"
                );
            };
            if !sc.is_current() {
                log::warn!(
                    "vkGetSwapchainImagesKHR: swapchain {:#x} is retired; only the images the \
                     application holds are valid",
                    sc.handle
                );
            }
            let images: Vec<vk::Image> = sc.lock().images.iter().map(|i| i.image).collect();
            // SAFETY: the caller's two-call pointers.
            unsafe { crate::ffi::fill_array(&images, count, out) }
        },
    )
}

/// The acquire timeout as the window's dequeue timeout (ns, −1 = forever).
pub fn dequeue_timeout(timeout: u64) -> i64 {
    i64::try_from(timeout).unwrap_or(-1)
}

/// `vkAcquireNextImageKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn acquire_next_image(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
    index: *mut u32,
) -> vk::Result {
    let _trace = crate::trace::section("AcquireNextImageKHR");
    guard(
        "vkAcquireNextImageKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let Some(sc) = lookup(swapchain, "vkAcquireNextImageKHR") else {
                return vk_error!(
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "vkAcquireNextImageKHR: unknown swapchain"
                );
            };
            // SAFETY: `index` is the application's pImageIndex: null (refused here) or writable for
            // this call (VUID-vkAcquireNextImageKHR-pImageIndex-parameter).
            let Some(index) = (unsafe { index.as_mut() }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkAcquireNextImageKHR: null pImageIndex"
                );
            };
            acquire(&sc, timeout, semaphore, fence, index)
        },
    )
}

/// `vkAcquireNextImage2KHR` (one device: the mask is ignored).
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn acquire_next_image2(
    device: vk::Device,
    info: *const vk::AcquireNextImageInfoKHR<'_>,
    index: *mut u32,
) -> vk::Result {
    let _trace = crate::trace::section("AcquireNextImage2KHR");
    // SAFETY: `info` is the application's pAcquireInfo: null (refused here) or valid for this call
    // (VUID-vkAcquireNextImage2KHR-pAcquireInfo-parameter).
    let Some(info) = (unsafe { info.as_ref() }) else {
        return vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkAcquireNextImage2KHR: null pAcquireInfo"
        );
    };
    // SAFETY: `device` and `index` are the application's, unchanged, and `info`'s members were read
    // from its valid acquire info: vkAcquireNextImageKHR's contract holds.
    unsafe {
        acquire_next_image(
            device,
            info.swapchain,
            info.timeout,
            info.semaphore,
            info.fence,
            index,
        )
    }
}

/// The body of `vkAcquireNextImageKHR`.
fn acquire(
    sc: &Swapchain,
    timeout: u64,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
    index: &mut u32,
) -> vk::Result {
    if !sc.is_current() {
        return vk_error!(
            vk::Result::ERROR_OUT_OF_DATE_KHR,
            "vkAcquireNextImageKHR: the swapchain is retired"
        );
    }
    let fns = &sc.fns;
    let mut st = sc.lock();
    if sc.shared {
        *index = 0;
        let image = st.images[0].image;
        // SAFETY: the driver's function with its own image; −1 = no fence.
        return unsafe { (fns.acquire_image)(fns.device, image, -1, semaphore, fence) };
    }
    let window = sc.window();
    let wanted = dequeue_timeout(timeout);
    if wanted != st.dequeue_timeout {
        let err = window.perform_i64(nw::NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT, wanted);
        if err != OK {
            return map_window_err(
                err,
                WindowCall::Other,
                ACQUIRE,
                "perform(SET_DEQUEUE_TIMEOUT)",
            );
        }
        st.dequeue_timeout = wanted;
    }
    let (buffer, dequeue_fence) = match window.dequeue_buffer() {
        Ok(b) => b,
        Err(err) => {
            let call = WindowCall::DequeueForAcquire { timeout };
            return map_window_err(err, call, ACQUIRE, "dequeueBuffer");
        }
    };
    let slot = st.images.iter().position(|i| {
        i.buffer
            .as_ref()
            .is_some_and(|b| b.as_ptr() == buffer.as_ptr())
    });
    let idx = match slot {
        Some(idx) => idx,
        None => match st.images.iter().position(|i| i.buffer.is_none()) {
            // A deferred-allocation slot seen for the first time: bind it now.
            Some(idx) => {
                // SAFETY: the slot's unbound image and a buffer the window just handed out.
                let r = unsafe { bind_deferred(sc, idx as u32, st.images[idx].image, &buffer) };
                if r != vk::Result::SUCCESS {
                    window.cancel_buffer(&buffer, dequeue_fence);
                    return vk_error!(
                        vk::Result::ERROR_OUT_OF_DATE_KHR,
                        "binding a deferred swapchain image failed: {r:?}"
                    );
                }
                st.images[idx].buffer = Some(buffer);
                idx
            }
            None => {
                let unknown = buffer.as_ptr();
                window.cancel_buffer(&buffer, dequeue_fence);
                return vk_error!(
                    vk::Result::ERROR_OUT_OF_DATE_KHR,
                    "dequeueBuffer returned an unknown buffer {unknown:p}: the window was \
                     reconfigured behind the swapchain"
                );
            }
        },
    };
    let img = &mut st.images[idx];
    img.dequeued = true;
    img.dequeue_fence = dequeue_fence;
    let clone = match &img.dequeue_fence {
        None => -1,
        Some(f) => match dup_fd(f) {
            Ok(c) => std::os::fd::IntoRawFd::into_raw_fd(c),
            Err(e) => {
                log::error!("dup(fence) failed ({e}); stalling until it signals");
                if let Err(e) = sync_wait(f.as_fd(), -1) {
                    log::error!("waiting for the dequeue fence failed: {e}");
                }
                -1
            }
        },
    };
    // SAFETY: the driver's function; it owns `clone` from here, on every path.
    let r = unsafe { (fns.acquire_image)(fns.device, img.image, clone, semaphore, fence) };
    if r != vk::Result::SUCCESS {
        if let Some(buffer) = &img.buffer {
            window.cancel_buffer(buffer, img.dequeue_fence.take());
        }
        img.dequeue_fence = None;
        img.dequeued = false;
        return r;
    }
    *index = idx as u32;
    vk::Result::SUCCESS
}

/// Binds a deferred swapchain image to the buffer it was first dequeued with:
/// `vkBindImageMemory2(VkNativeBufferANDROID → VkBindImageMemorySwapchainInfoKHR)`.
///
/// # Safety
/// `image` must be the swapchain's unbound image at `index`.
unsafe fn bind_deferred(
    sc: &Swapchain,
    index: u32,
    image: vk::Image,
    buffer: &Buffer,
) -> vk::Result {
    let Some(bind2) = sc.fns.bind_image_memory2 else {
        return vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "binding a deferred swapchain image: the driver has no vkBindImageMemory2"
        );
    };
    let swapchain_info = vk::BindImageMemorySwapchainInfoKHR {
        swapchain: vk::Handle::from_raw(sc.handle),
        image_index: index,
        ..Default::default()
    };
    let nb = native_buffer(buffer, std::ptr::addr_of!(swapchain_info).cast());
    let bind = vk::BindImageMemoryInfo {
        p_next: std::ptr::addr_of!(nb).cast(),
        image,
        memory: vk::DeviceMemory::null(),
        memory_offset: 0,
        ..Default::default()
    };
    // SAFETY: the driver's function with a valid chain living on this frame.
    unsafe { bind2(sc.fns.device, 1, &bind) }
}

/// `vkGetSwapchainStatusKHR`: only whether the swapchain is current.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn get_swapchain_status(
    _device: vk::Device,
    swapchain: vk::SwapchainKHR,
) -> vk::Result {
    let _trace = crate::trace::section("GetSwapchainStatusKHR");
    guard(
        "vkGetSwapchainStatusKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || match lookup(swapchain, "vkGetSwapchainStatusKHR") {
            None => vk_error!(
                vk::Result::ERROR_SURFACE_LOST_KHR,
                "vkGetSwapchainStatusKHR: unknown swapchain"
            ),
            Some(sc) if !sc.is_current() => vk_error!(
                vk::Result::ERROR_OUT_OF_DATE_KHR,
                "vkGetSwapchainStatusKHR: the swapchain is retired"
            ),
            Some(_) => vk::Result::SUCCESS,
        },
    )
}

/// The hook table's entry for `vkReleaseSwapchainImagesEXT`: [`release_swapchain_images`] at
/// the registry's command type. Before `VK_KHR_swapchain_maintenance1` (vk.xml 1.3.239, say)
/// `pReleaseInfo` is `VkReleaseSwapchainImagesInfoEXT`, which ash defines; since, vk.xml makes
/// that name an alias of `VkReleaseSwapchainImagesInfoKHR`, which the generated crate defines
/// itself (ash predates it): one C structure, two Rust types, so no one signature matches
/// both registries, and the higher-ranked lifetime of ash's pointer rules out a generic one.
pub const RELEASE_SWAPCHAIN_IMAGES: vkgen_generated::pfn::PFN_vkReleaseSwapchainImagesEXT = {
    let f: unsafe extern "system" fn(
        vk::Device,
        *const vk::ReleaseSwapchainImagesInfoEXT<'static>,
    ) -> vk::Result = release_swapchain_images;
    // SAFETY: both are `extern "system"` function pointers of two arguments returning
    // `VkResult`; the registry declares the two structures one layout (an alias), so the
    // function reads what callers of the registry's type pass.
    unsafe { std::mem::transmute(f) }
};

/// `vkReleaseSwapchainImagesEXT`: cancels the buffers (nothing for a shared swapchain).
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn release_swapchain_images(
    _device: vk::Device,
    info: *const vk::ReleaseSwapchainImagesInfoEXT<'_>,
) -> vk::Result {
    let _trace = crate::trace::section("ReleaseSwapchainImagesEXT");
    guard(
        "vkReleaseSwapchainImagesEXT",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `info` is the application's pReleaseInfo: null (refused here) or valid for
            // this call (VUID-vkReleaseSwapchainImagesEXT-pReleaseInfo-parameter).
            let Some(info) = (unsafe { info.as_ref() }) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkReleaseSwapchainImagesEXT: null pReleaseInfo"
                );
            };
            let Some(sc) = lookup(info.swapchain, "vkReleaseSwapchainImagesEXT") else {
                return vk_error!(
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "vkReleaseSwapchainImagesEXT: unknown swapchain"
                );
            };
            if sc.shared {
                return vk::Result::SUCCESS;
            }
            let indices = if info.p_image_indices.is_null() {
                &[][..]
            } else {
                // SAFETY: the application's array of `imageIndexCount` indices.
                unsafe {
                    std::slice::from_raw_parts(
                        info.p_image_indices,
                        info.image_index_count as usize,
                    )
                }
            };
            let mut st = sc.lock();
            for &i in indices {
                let Some(img) = st.images.get_mut(i as usize) else {
                    log::error!("vkReleaseSwapchainImagesEXT: image index {i} out of range");
                    continue;
                };
                if !img.dequeued {
                    continue;
                }
                if let Some(buffer) = &img.buffer {
                    sc.window().cancel_buffer(buffer, img.dequeue_fence.take());
                }
                img.dequeue_fence = None;
                img.release_fence = None;
                img.dequeued = false;
            }
            vk::Result::SUCCESS
        },
    )
}

/// `vkBindImageMemory2{,KHR}` of a device with WSI: binds with a `VkBindImageMemorySwapchainInfoKHR`
/// get the swapchain image's `VkNativeBufferANDROID` prepended to their chain (ANB spec 8);
/// everything goes to the driver in one call.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn bind_image_memory2(
    device: vk::Device,
    count: u32,
    infos: *const vk::BindImageMemoryInfo<'_>,
) -> vk::Result {
    let _trace = crate::trace::section("BindImageMemory2");
    guard(
        "vkBindImageMemory2",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `device` is the application's device of this loader
            // (VUID-vkBindImageMemory2-device-parameter); `device_wsi` reads its word 0.
            let wsi = match unsafe {
                device_wsi(vk::Handle::as_raw(device) as usize, "vkBindImageMemory2")
            } {
                Ok(w) => w,
                Err(e) => return e,
            };
            let Some(bind2) = wsi.fns.bind_image_memory2 else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkBindImageMemory2: the driver has no vkBindImageMemory2"
                );
            };
            let list = if infos.is_null() || count == 0 {
                &[][..]
            } else {
                // SAFETY: the application's array of `count` structures.
                unsafe { std::slice::from_raw_parts(infos, count as usize) }
            };
            let swapchain_info = |i: &vk::BindImageMemoryInfo<'_>| {
                // SAFETY: the application's valid chain.
                unsafe {
                    find_in_chain::<vk::BindImageMemorySwapchainInfoKHR<'_>>(
                        i.p_next,
                        vk::StructureType::BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR,
                    )
                }
            };
            if !list.iter().any(|i| swapchain_info(i).is_some()) {
                // SAFETY: no info names a swapchain, so the application's `device`, `count` and
                // `infos` go unchanged to the driver's vkBindImageMemory2 for its own device, under
                // that command's VUIDs.
                return unsafe { bind2(device, count, infos) };
            }
            let mut edited: Vec<vk::BindImageMemoryInfo<'_>> = list.to_vec();
            // Stable addresses: sized up front, never reallocated.
            let mut natives: Vec<vk::NativeBufferANDROID> = Vec::with_capacity(list.len());
            for bind in edited.iter_mut() {
                let Some(si) = swapchain_info(bind) else {
                    continue;
                };
                let Some(sc) = lookup(si.swapchain, "vkBindImageMemory2") else {
                    return vk_error!(
                        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                        "vkBindImageMemory2: a VkBindImageMemorySwapchainInfoKHR names an unknown swapchain"
                    );
                };
                let st = sc.lock();
                let Some(buffer) = st
                    .images
                    .get(si.image_index as usize)
                    .and_then(|i| i.buffer.as_ref())
                else {
                    return vk_error!(
                        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
                        "vkBindImageMemory2: swapchain image {} has no buffer (yet)",
                        si.image_index
                    );
                };
                natives.push(native_buffer(buffer, bind.p_next));
                let nb = natives.last().expect("just pushed");
                bind.p_next = std::ptr::from_ref(nb).cast();
                bind.memory = vk::DeviceMemory::null();
            }
            // SAFETY: the driver's function; the edited chains live until it returns.
            unsafe { bind2(device, count, edited.as_ptr()) }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn acquire_timeouts_map_to_dequeue_timeouts() {
        assert_eq!(dequeue_timeout(0), 0);
        assert_eq!(dequeue_timeout(1_000), 1_000);
        assert_eq!(dequeue_timeout(i64::MAX as u64), i64::MAX);
        assert_eq!(dequeue_timeout(u64::MAX), -1);
        assert_eq!(dequeue_timeout(i64::MAX as u64 + 1), -1);
    }
}
