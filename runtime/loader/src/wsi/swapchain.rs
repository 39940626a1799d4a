//! `VkSwapchainKHR` on a surface's window (AOSP `CreateSwapchainKHR`, `AcquireNextImageKHR`,
//! `DestroySwapchainKHR`, `ReleaseSwapchainImage`, `OrphanSwapchain`).
//!
//! **Creation order** (each window failure is `VK_ERROR_SURFACE_LOST_KHR` unless noted):
//! 1. the format and colour space must map to a pixel format and a dataspace (unknown colour
//!    space → `VK_ERROR_INITIALIZATION_FAILED`);
//! 2. the surface's current swapchain must be `oldSwapchain`, else
//!    `VK_ERROR_NATIVE_WINDOW_IN_USE_KHR`; the old swapchain is retired ("orphaned": its
//!    images the application does not hold are released, and it is no longer current);
//! 3. reset the window: if a swapchain used it before, disconnect and reconnect the EGL API
//!    (frees every buffer, so all can be dequeued again); dequeue timeout −1;
//!    `setSwapInterval(MAILBOX ? 0 : 1)`; shared-buffer mode and auto-refresh off;
//! 4. configure it: buffers format, dataspace (unless `PASS_THROUGH`), dimensions, transform =
//!    the **inverse** of `preTransform`, scaling `SCALE_TO_WINDOW`; shared present modes turn on
//!    shared-buffer mode (and auto-refresh for `CONTINUOUS`) and add
//!    `VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID`;
//! 5. image count = `minImageCount` clamped to the surface capabilities for the present mode;
//!    the window gets `max(min_undequeued + 1, count)` buffers;
//! 6. gralloc usage: the driver's `vkGetPhysicalDeviceImageFormatProperties2` with
//!    `VkPhysicalDeviceExternalImageFormatInfo(AHB)` → `VkAndroidHardwareBufferUsageANDROID`
//!    (sRGB asked as UNORM; shared adds `FRONT_BUFFER`); if that fails, the first of
//!    `vkGetSwapchainGrallocUsage4/3/2/ANDROID` the driver has (a driver error there is
//!    `VK_ERROR_SURFACE_LOST_KHR`); the window's usage = consumer | producer (| `PROTECTED`);
//!    then the transform hint and refresh duration are read. An application
//!    `VkImageCompressionControlEXT` goes (unchained) into each of these queries, so the driver
//!    can turn fixed-rate compression into its gralloc usage bits — AOSP leaves that mapping to
//!    the driver;
//! 7. images: every buffer is dequeued and a `VkImage` created for it with
//!    `VkNativeBufferANDROID` → `VkSwapchainImageCreateInfoANDROID` (→ the application's
//!    `VkImageCompressionControlEXT`, → the mutable-format list) in the chain (2D, one mip,
//!    one layer, OPTIMAL, `PROTECTED` if asked); then every buffer is cancelled back (a shared
//!    swapchain keeps its one buffer dequeued). A `dequeueBuffer` failure is
//!    `VK_ERROR_OUT_OF_DEVICE_MEMORY` for `-ENOMEM`, else `VK_ERROR_SURFACE_LOST_KHR`. With
//!    `VK_SWAPCHAIN_CREATE_DEFERRED_MEMORY_ALLOCATION_BIT_EXT` (not shared) the images are
//!    created unbound (`VkImageSwapchainCreateInfoKHR`) and bound at first acquire with
//!    `vkBindImageMemory2(VkNativeBufferANDROID → VkBindImageMemorySwapchainInfoKHR)`.
//!    Any failure destroys what was made.
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

use vkgen_abi::native_window::{self as nw, buffer_usage};

use super::formats::{self, gralloc0_to_gralloc1, gralloc1_to_buffer_usage};
use super::surface::{capabilities, Surface, SURFACES};
use super::timing::TimingInfo;
use super::window::{
    dup_fd, strerror, sync_wait, Buffer, Window, INVALID_OPERATION, OK, TIMED_OUT,
};
use super::{find_in_chain, AppAllocation, DeviceFns, DeviceWsi, Registry};
use crate::dispatch_data::device_data;
use crate::ffi::{guard, guard_result};
use crate::vk;
use vkgen_generated::vk::StructureTypeExt as _;

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
    state: Mutex<State>,
    _allocation: AppAllocation,
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
        // SAFETY: the driver's image of this device, no longer used by the application.
        unsafe { (fns.destroy_image)(fns.device, img.image, std::ptr::null()) };
        img.image = vk::Image::null();
    }
    img.buffer = None;
}

/// `DestroySwapchainInternal`: releases every image (cancelling through the window only if the
/// swapchain is current) and retires it.
fn destroy_internal(sc: &Swapchain) {
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
        log::error!("{what}: not a device of this loader");
        vk::Result::ERROR_INITIALIZATION_FAILED
    })?;
    data.term.wsi.as_ref().ok_or_else(|| {
        log::error!("{what}: the device was created without VK_KHR_swapchain");
        vk::Result::ERROR_INITIALIZATION_FAILED
    })
}

/// Logs a window failure of a creation step and maps it to `VK_ERROR_SURFACE_LOST_KHR`.
fn step(err: c_int, what: &str) -> Result<(), vk::Result> {
    if err == OK {
        Ok(())
    } else {
        log::error!("vkCreateSwapchainKHR: {what} failed: {}", strerror(err));
        Err(vk::Result::ERROR_SURFACE_LOST_KHR)
    }
}

/// `vkCreateSwapchainKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn create_swapchain(
    device: vk::Device,
    info: *const vk::SwapchainCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SwapchainKHR,
) -> vk::Result {
    guard_result(
        "vkCreateSwapchainKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        // SAFETY: `device`, `info`, `allocator` and `out` are the application's, unchanged: valid
        // per VUID-vkCreateSwapchainKHR-*-parameter, with null `info` and `out` refused in
        // `create_swapchain_impl`.
        || unsafe { create_swapchain_impl(device, info, allocator, out) },
    )
}

/// # Safety
/// As [`create_swapchain`].
unsafe fn create_swapchain_impl(
    device: vk::Device,
    info: *const vk::SwapchainCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SwapchainKHR,
) -> Result<(), vk::Result> {
    // SAFETY: `device` is the application's device of this loader
    // (VUID-vkCreateSwapchainKHR-device-parameter); `device_wsi` reads its word 0.
    let wsi = unsafe { device_wsi(vk::Handle::as_raw(device) as usize, "vkCreateSwapchainKHR") }?;
    // SAFETY: `info` is the application's pCreateInfo: null (refused here) or a valid create info
    // for this call (VUID-vkCreateSwapchainKHR-pCreateInfo-parameter).
    let (Some(info), false) = (unsafe { info.as_ref() }, out.is_null()) else {
        log::error!("vkCreateSwapchainKHR: null pCreateInfo or pSwapchain");
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    };
    log::debug!(
        "vkCreateSwapchainKHR: surface={:#x} minImageCount={} format={:?} colorSpace={:?} \
         extent={}x{} usage={:?} preTransform={:?} presentMode={:?} oldSwapchain={:#x}",
        vk::Handle::as_raw(info.surface),
        info.min_image_count,
        info.image_format,
        info.image_color_space,
        info.image_extent.width,
        info.image_extent.height,
        info.image_usage,
        info.pre_transform,
        info.present_mode,
        vk::Handle::as_raw(info.old_swapchain),
    );
    // 1. Format and colour space.
    let dataspace = formats::dataspace(info.image_color_space, info.image_format);
    if dataspace == nw::HAL_DATASPACE_UNKNOWN {
        log::error!(
            "vkCreateSwapchainKHR: unsupported colour space {:?}",
            info.image_color_space
        );
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    if info.image_array_layers != 1 {
        log::warn!(
            "vkCreateSwapchainKHR: imageArrayLayers {} not supported; using 1",
            info.image_array_layers
        );
    }
    let Some(surface) = SURFACES.get(vk::Handle::as_raw(info.surface)) else {
        log::error!(
            "vkCreateSwapchainKHR: {:#x} is not a live VkSurfaceKHR",
            vk::Handle::as_raw(info.surface)
        );
        return Err(vk::Result::ERROR_SURFACE_LOST_KHR);
    };
    let (pixel_format, composite_alphas) =
        super::surface::buffer_format(&surface, info.image_format);
    if !composite_alphas.contains(info.composite_alpha) || info.composite_alpha.is_empty() {
        log::error!(
            "vkCreateSwapchainKHR: compositeAlpha {:?} not supported ({composite_alphas:?} only)",
            info.composite_alpha
        );
    }
    let _surface_lock = surface.lock.lock().unwrap_or_else(|p| p.into_inner());

    // 2. One live swapchain per window; retire the old one.
    let old = vk::Handle::as_raw(info.old_swapchain);
    let current = surface.current.load(Ordering::Acquire);
    if current != old {
        log::error!(
            "vkCreateSwapchainKHR: the surface already has swapchain {current:#x}, but \
             oldSwapchain is {old:#x}: VK_ERROR_NATIVE_WINDOW_IN_USE_KHR"
        );
        return Err(vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR);
    }
    if old != 0 {
        if let Some(old_sc) = SWAPCHAINS.get(old) {
            let mut st = old_sc.lock();
            old_sc.orphan(&mut st);
        }
    }

    // 3. Reset the window.
    let window = &surface.window;
    if surface.used_by_swapchain.swap(true, Ordering::AcqRel) {
        let err = window.api_disconnect(nw::NATIVE_WINDOW_API_EGL);
        if err != OK {
            log::warn!("native_window_api_disconnect failed: {}", strerror(err));
        }
        let err = window.api_connect(nw::NATIVE_WINDOW_API_EGL);
        if err != OK {
            log::warn!("native_window_api_connect failed: {}", strerror(err));
        }
    }
    step(
        window.perform_i64(nw::NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT, -1),
        "perform(SET_DEQUEUE_TIMEOUT)",
    )?;
    // IMMEDIATE (desktop surfaces only) queues as MAILBOX does; its presenter does the rest.
    let mailbox = matches!(
        info.present_mode,
        vk::PresentModeKHR::MAILBOX | vk::PresentModeKHR::IMMEDIATE
    );
    step(
        window.set_swap_interval(if mailbox { 0 } else { 1 }),
        "setSwapInterval",
    )?;
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    super::desktop::set_immediate(&surface, info.present_mode == vk::PresentModeKHR::IMMEDIATE);
    step(
        window.perform_int(nw::NATIVE_WINDOW_SET_SHARED_BUFFER_MODE, 0),
        "native_window_set_shared_buffer_mode(false)",
    )?;
    step(
        window.perform_int(nw::NATIVE_WINDOW_SET_AUTO_REFRESH, 0),
        "native_window_set_auto_refresh(false)",
    )?;

    // 4. Configure it.
    step(
        window.perform_int(nw::NATIVE_WINDOW_SET_BUFFERS_FORMAT, pixel_format),
        "native_window_set_buffers_format",
    )?;
    if dataspace != nw::HAL_DATASPACE_ARBITRARY {
        step(
            window.perform_int(nw::NATIVE_WINDOW_SET_BUFFERS_DATASPACE, dataspace),
            "native_window_set_buffers_data_space",
        )?;
    }
    let (width, height) = (
        c_int::try_from(info.image_extent.width).unwrap_or(c_int::MAX),
        c_int::try_from(info.image_extent.height).unwrap_or(c_int::MAX),
    );
    step(
        window.set_buffers_dimensions(width, height),
        "native_window_set_buffers_dimensions",
    )?;
    step(
        window.perform_int(
            nw::NATIVE_WINDOW_SET_BUFFERS_TRANSFORM,
            formats::invert_transform_to_native(info.pre_transform),
        ),
        "native_window_set_buffers_transform",
    )?;
    step(
        window.perform_int(
            nw::NATIVE_WINDOW_SET_SCALING_MODE,
            nw::NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW,
        ),
        "native_window_set_scaling_mode",
    )?;
    let shared = formats::is_shared(info.present_mode);
    let mut swapchain_usage = vk::SwapchainImageUsageFlagsANDROID::empty();
    if shared {
        swapchain_usage |= vk::SwapchainImageUsageFlagsANDROID::SHARED;
        step(
            window.perform_int(nw::NATIVE_WINDOW_SET_SHARED_BUFFER_MODE, 1),
            "native_window_set_shared_buffer_mode(true)",
        )?;
    }
    if info.present_mode == vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH {
        step(
            window.perform_int(nw::NATIVE_WINDOW_SET_AUTO_REFRESH, 1),
            "native_window_set_auto_refresh(true)",
        )?;
    }

    // 5. Image and buffer counts.
    let min_undequeued = window
        .query_non_negative(nw::NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS)
        .map_err(|e| {
            log::error!(
                "NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS query failed: {}",
                strerror(e)
            );
            vk::Result::ERROR_SURFACE_LOST_KHR
        })?;
    let caps = capabilities(Some(&*surface), Some(info.present_mode))?;
    let num_images = info
        .min_image_count
        .max(caps.min_image_count)
        .min(caps.max_image_count.max(caps.min_image_count))
        .max(1);
    let buffer_count = (min_undequeued + 1).max(num_images);
    step(
        window.set_buffer_count(buffer_count as usize),
        "native_window_set_buffer_count",
    )?;

    // 6. Usage, hint, refresh.
    let protected = info.flags.contains(vk::SwapchainCreateFlagsKHR::PROTECTED);
    // SAFETY: the application's valid create info and chain.
    let compression = unsafe { image_compression(info) };
    // SAFETY: the device's driver functions with a valid create info.
    let producer =
        unsafe { producer_usage(&wsi.fns, info, swapchain_usage, compression.as_ref()) }?;
    let mut usage = surface.consumer_usage | producer;
    if protected {
        usage |= buffer_usage::PROTECTED;
    }
    step(window.set_usage(usage), "native_window_set_usage")?;
    window
        .query(nw::NATIVE_WINDOW_TRANSFORM_HINT)
        .map_err(|e| {
            log::error!("NATIVE_WINDOW_TRANSFORM_HINT query failed: {}", strerror(e));
            vk::Result::ERROR_SURFACE_LOST_KHR
        })?;
    let refresh_duration = window.refresh_cycle_duration().map_err(|e| {
        log::error!(
            "native_window_get_refresh_cycle_duration failed: {}",
            strerror(e)
        );
        vk::Result::ERROR_SURFACE_LOST_KHR
    })?;

    // 7. The swapchain and its images.
    // SAFETY: `allocator` is the application's pAllocator, null or valid callbacks
    // (VUID-vkCreateSwapchainKHR-pAllocator-parameter) that stay valid until the swapchain is
    // destroyed.
    let allocation = unsafe {
        AppAllocation::new(
            allocator,
            std::mem::size_of::<Swapchain>(),
            std::mem::align_of::<Swapchain>(),
        )
    }?;
    let handle = SWAPCHAINS.reserve();
    let image_count = if shared { 1 } else { num_images as usize };
    let sc = Swapchain {
        handle,
        surface: surface.clone(),
        fns: wsi.fns,
        shared,
        pre_transform: formats::vulkan_to_native_transform(info.pre_transform),
        maintenance1: wsi.maintenance1,
        extent: info.image_extent,
        // SAFETY: the application's valid create info and chain.
        format_list: unsafe { mutable_format_list(info) },
        state: Mutex::new(State {
            images: (0..image_count).map(|_| Image::default()).collect(),
            present_mode: info.present_mode,
            dequeue_timeout: -1,
            frame_timestamps_enabled: false,
            refresh_duration,
            timing: VecDeque::new(),
        }),
        _allocation: allocation,
    };
    let mut image_info = vk::ImageCreateInfo {
        flags: image_flags(info),
        image_type: vk::ImageType::TYPE_2D,
        format: info.image_format,
        extent: vk::Extent3D {
            width: info.image_extent.width,
            height: info.image_extent.height,
            depth: 1,
        },
        mip_levels: 1,
        array_layers: 1,
        samples: vk::SampleCountFlags::TYPE_1,
        tiling: vk::ImageTiling::OPTIMAL,
        usage: info.image_usage,
        sharing_mode: info.image_sharing_mode,
        queue_family_index_count: info.queue_family_index_count,
        p_queue_family_indices: info.p_queue_family_indices,
        initial_layout: vk::ImageLayout::UNDEFINED,
        ..Default::default()
    };
    let deferred = wsi.maintenance1
        && info
            .flags
            .contains(vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT)
        && !shared;
    let result = {
        let mut st = sc.lock();
        // SAFETY: the device's driver, a create info whose pointers outlive the calls.
        let r = unsafe {
            if deferred {
                create_deferred_images(&sc, &mut st, &mut image_info)
            } else {
                create_images(
                    &sc,
                    &mut st,
                    &mut image_info,
                    swapchain_usage,
                    compression.as_ref(),
                )
            }
        };
        drop(st);
        r
    };
    if let Err(e) = result {
        destroy_internal(&sc);
        return Err(e);
    }
    surface.current.store(handle, Ordering::Release);
    SWAPCHAINS.insert(handle, Arc::new(sc));
    // SAFETY: non-null per the check above.
    unsafe { *out = vk::Handle::from_raw(handle) };
    Ok(())
}

/// A `VkNativeBufferANDROID` describing `buffer`, with `p_next` after it.
fn native_buffer(buffer: &Buffer, p_next: *const c_void) -> vk::NativeBufferANDROID {
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

/// The swapchain images' create flags: `PROTECTED` for a protected swapchain, and for
/// `VK_SWAPCHAIN_CREATE_MUTABLE_FORMAT_BIT_KHR` `MUTABLE_FORMAT | EXTENDED_USAGE` (AOSP: views
/// of another format may need usages the image's own format lacks).
fn image_flags(info: &vk::SwapchainCreateInfoKHR<'_>) -> vk::ImageCreateFlags {
    let mut flags = vk::ImageCreateFlags::empty();
    if info.flags.contains(vk::SwapchainCreateFlagsKHR::PROTECTED) {
        flags |= vk::ImageCreateFlags::PROTECTED;
    }
    if info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
    {
        flags |= vk::ImageCreateFlags::MUTABLE_FORMAT | vk::ImageCreateFlags::EXTENDED_USAGE;
    }
    flags
}

/// The view formats of a mutable-format swapchain (`None` for others). The spec requires a
/// `VkImageFormatListCreateInfo` with such a swapchain; without one the images are created
/// mutable with no list, and the omission is logged.
///
/// # Safety
/// `info`'s chain is valid.
unsafe fn mutable_format_list(info: &vk::SwapchainCreateInfoKHR<'_>) -> Option<Vec<vk::Format>> {
    if !info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::MUTABLE_FORMAT)
    {
        return None;
    }
    // SAFETY: the caller guarantees `info.p_next` is a valid chain; the struct is cast only for its
    // sType.
    let list = unsafe {
        find_in_chain::<vk::ImageFormatListCreateInfo<'_>>(
            info.p_next,
            vk::StructureType::IMAGE_FORMAT_LIST_CREATE_INFO,
        )
    };
    match list {
        Some(l) => {
            // SAFETY: `p_view_formats` holds `view_format_count` formats
            // (VUID-VkImageFormatListCreateInfo-pViewFormats-parameter) that live for this call.
            let formats = unsafe { super::present::array(l.p_view_formats, l.view_format_count) };
            Some(formats.to_vec())
        }
        None => {
            log::error!(
                "vkCreateSwapchainKHR: MUTABLE_FORMAT without VkImageFormatListCreateInfo \
                 (VUID-VkSwapchainCreateInfoKHR-flags-03168)"
            );
            Some(Vec::new())
        }
    }
}

/// Step 7: dequeue every buffer, create its image, cancel them all (but a shared one).
///
/// # Safety
/// `image_info`'s pointers must be valid; `sc.fns` the device's driver functions.
unsafe fn create_images(
    sc: &Swapchain,
    st: &mut State,
    image_info: &mut vk::ImageCreateInfo<'_>,
    swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
    compression: Option<&vk::ImageCompressionControlEXT<'_>>,
) -> Result<(), vk::Result> {
    let window = sc.window();
    // VK_KHR_swapchain_mutable_format: the application's format list goes to the driver with
    // every image (AOSP; the image is MUTABLE_FORMAT | EXTENDED_USAGE, see `image_flags`).
    let format_list = sc
        .format_list
        .as_ref()
        .map(|formats| vk::ImageFormatListCreateInfo {
            view_format_count: formats.len() as u32,
            p_view_formats: formats.as_ptr(),
            ..Default::default()
        });
    let format_list_ptr: *const c_void = format_list
        .as_ref()
        .map_or(std::ptr::null(), |l| std::ptr::from_ref(l).cast());
    // The application's VkImageCompressionControlEXT (AOSP: after the swapchain image info).
    let compression = compression.map(|c| vk::ImageCompressionControlEXT {
        p_next: format_list_ptr,
        ..*c
    });
    #[allow(clippy::needless_update)] // complete for vkgen's copy, not for ash's
    let swapchain_image = vk::SwapchainImageCreateInfoANDROID {
        s_type: vk::StructureType::SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID,
        p_next: compression
            .as_ref()
            .map_or(format_list_ptr, |c| std::ptr::from_ref(c).cast()),
        usage: swapchain_usage,
        // (ash's own copy of the structure, from newer registries, has a lifetime marker.)
        ..Default::default()
    };
    let mut result = Ok(());
    for (i, img) in st.images.iter_mut().enumerate() {
        let (buffer, fence) = match window.dequeue_buffer() {
            Ok(b) => b,
            Err(err) => {
                log::error!(
                    "vkCreateSwapchainKHR: dequeueBuffer[{i}] failed: {}",
                    strerror(err)
                );
                result = Err(if err == -libc::ENOMEM {
                    vk::Result::ERROR_OUT_OF_DEVICE_MEMORY
                } else {
                    vk::Result::ERROR_SURFACE_LOST_KHR
                });
                break;
            }
        };
        let nb = native_buffer(&buffer, std::ptr::addr_of!(swapchain_image).cast());
        img.buffer = Some(buffer);
        img.dequeue_fence = fence;
        img.dequeued = true;
        image_info.p_next = std::ptr::addr_of!(nb).cast();
        // SAFETY: the driver's vkCreateImage with a valid create info (the chain lives on this
        // frame).
        let r = unsafe {
            (sc.fns.create_image)(sc.fns.device, image_info, std::ptr::null(), &mut img.image)
        };
        image_info.p_next = std::ptr::null();
        if r != vk::Result::SUCCESS {
            log::error!("vkCreateSwapchainKHR: vkCreateImage with a native buffer failed: {r:?}");
            img.image = vk::Image::null();
            result = Err(r);
            break;
        }
    }
    // Return the buffers to the window (the swapchain keeps its references); a shared buffer
    // stays dequeued for good.
    for img in st.images.iter_mut().filter(|i| i.dequeued) {
        if !sc.shared {
            if let Some(buffer) = &img.buffer {
                let err = window.cancel_buffer(buffer, img.dequeue_fence.take());
                if err != OK {
                    log::warn!(
                        "vkCreateSwapchainKHR: cancelBuffer failed: {}",
                        strerror(err)
                    );
                }
            }
            img.dequeued = false;
        }
    }
    result
}

/// Deferred allocation: unbound images, bound to buffers at first acquire.
///
/// # Safety
/// As [`create_images`].
unsafe fn create_deferred_images(
    sc: &Swapchain,
    st: &mut State,
    image_info: &mut vk::ImageCreateInfo<'_>,
) -> Result<(), vk::Result> {
    let swapchain_info = vk::ImageSwapchainCreateInfoKHR {
        swapchain: vk::Handle::from_raw(sc.handle),
        ..Default::default()
    };
    image_info.p_next = std::ptr::addr_of!(swapchain_info).cast();
    let mut result = Ok(());
    for img in st.images.iter_mut() {
        // SAFETY: the driver's vkCreateImage with a valid create info.
        let r = unsafe {
            (sc.fns.create_image)(sc.fns.device, image_info, std::ptr::null(), &mut img.image)
        };
        if r != vk::Result::SUCCESS {
            log::error!("vkCreateSwapchainKHR: vkCreateImage for a deferred image failed: {r:?}");
            img.image = vk::Image::null();
            result = Err(r);
            break;
        }
    }
    image_info.p_next = std::ptr::null();
    result
}

/// A copy of the create info's `VkImageCompressionControlEXT`, unchained (AOSP copies it
/// whenever present; its `pFixedRateFlags` stay the application's, valid during the call).
///
/// # Safety
/// `info`'s chain is valid.
unsafe fn image_compression<'a>(
    info: &'a vk::SwapchainCreateInfoKHR<'_>,
) -> Option<vk::ImageCompressionControlEXT<'a>> {
    // SAFETY: the caller guarantees `info.p_next` is a valid chain; the struct is cast only for its
    // sType.
    let found = unsafe {
        find_in_chain::<vk::ImageCompressionControlEXT<'_>>(
            info.p_next,
            vk::StructureType::IMAGE_COMPRESSION_CONTROL_EXT,
        )
    }?;
    Some(vk::ImageCompressionControlEXT {
        p_next: std::ptr::null(),
        ..*found
    })
}

/// The producer (gralloc) usage of the swapchain's buffers (AOSP `getProducerUsage`).
///
/// # Safety
/// `fns` must be a live device's driver functions.
unsafe fn producer_usage(
    fns: &DeviceFns,
    info: &vk::SwapchainCreateInfoKHR<'_>,
    swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
    compression: Option<&vk::ImageCompressionControlEXT<'_>>,
) -> Result<u64, vk::Result> {
    // Every query gets the application's VkImageCompressionControlEXT in its chain (AOSP).
    let compression_ptr: *const c_void =
        compression.map_or(std::ptr::null(), |c| std::ptr::from_ref(c).cast());
    if let Some(gpdifp2) = fns.image_format_properties2 {
        let external = vk::PhysicalDeviceExternalImageFormatInfo {
            p_next: compression_ptr,
            handle_type: vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID,
            ..Default::default()
        };
        // AHardwareBuffer has no sRGB format.
        let format = if info.image_format == vk::Format::R8G8B8A8_SRGB {
            vk::Format::R8G8B8A8_UNORM
        } else {
            info.image_format
        };
        let format_info = vk::PhysicalDeviceImageFormatInfo2 {
            p_next: std::ptr::addr_of!(external).cast(),
            format,
            ty: vk::ImageType::TYPE_2D,
            tiling: vk::ImageTiling::OPTIMAL,
            usage: info.image_usage,
            flags: image_flags(info),
            ..Default::default()
        };
        let mut ahb_usage = vk::AndroidHardwareBufferUsageANDROID::default();
        // Not needed by the loader, but some drivers (lavapipe) write it unconditionally when
        // the input has an external-format info.
        let mut external_props = vk::ExternalImageFormatProperties {
            p_next: std::ptr::addr_of_mut!(ahb_usage).cast(),
            ..Default::default()
        };
        let mut props = vk::ImageFormatProperties2 {
            p_next: std::ptr::addr_of_mut!(external_props).cast(),
            ..Default::default()
        };
        // SAFETY: the driver's query with valid structures.
        let r = unsafe { gpdifp2(fns.physical_device, &format_info, &mut props) };
        if r == vk::Result::SUCCESS {
            let mut usage = ahb_usage.android_hardware_buffer_usage;
            if swapchain_usage.contains(vk::SwapchainImageUsageFlagsANDROID::SHARED) {
                usage |= buffer_usage::FRONT_BUFFER;
            }
            return Ok(usage);
        }
        log::debug!(
            "vkGetPhysicalDeviceImageFormatProperties2 (AHB usage) failed with {r:?}; falling \
             back to vkGetSwapchainGrallocUsage*ANDROID"
        );
    }
    let failed = |r: vk::Result, which: &str| {
        log::error!("vkGetSwapchainGrallocUsage{which}ANDROID failed: {r:?}");
        vk::Result::ERROR_SURFACE_LOST_KHR
    };
    if let Some(f) = fns.gralloc_usage4 {
        let usage_info = vk::GrallocUsageInfo2ANDROID {
            s_type: vk::StructureType::GRALLOC_USAGE_INFO_2_ANDROID,
            p_next: compression_ptr,
            format: info.image_format,
            image_usage: info.image_usage,
            swapchain_image_usage: swapchain_usage,
        };
        let mut usage = 0u64;
        // SAFETY: the driver's function with valid structures.
        let r = unsafe { f(fns.device, &usage_info, &mut usage) };
        return if r == vk::Result::SUCCESS {
            Ok(usage)
        } else {
            Err(failed(r, "4"))
        };
    }
    if let Some(f) = fns.gralloc_usage3 {
        let usage_info = vk::GrallocUsageInfoANDROID {
            s_type: vk::StructureType::GRALLOC_USAGE_INFO_ANDROID,
            p_next: compression_ptr,
            format: info.image_format,
            image_usage: info.image_usage,
        };
        let mut usage = 0u64;
        // SAFETY: `f` is the driver's vkGetSwapchainGrallocUsage3ANDROID for its live `fns.device`;
        // `usage_info` and `usage` are locals that outlive the call.
        let r = unsafe { f(fns.device, &usage_info, &mut usage) };
        return if r == vk::Result::SUCCESS {
            Ok(usage)
        } else {
            Err(failed(r, "3"))
        };
    }
    if let Some(f) = fns.gralloc_usage2 {
        let (mut consumer, mut producer) = (0u64, 0u64);
        // SAFETY: `f` is the driver's vkGetSwapchainGrallocUsage2ANDROID for its live `fns.device`;
        // the usage outputs are locals that outlive the call.
        let r = unsafe {
            f(
                fns.device,
                info.image_format,
                info.image_usage,
                swapchain_usage,
                &mut consumer,
                &mut producer,
            )
        };
        return if r == vk::Result::SUCCESS {
            Ok(gralloc1_to_buffer_usage(producer, consumer))
        } else {
            Err(failed(r, "2"))
        };
    }
    if let Some(f) = fns.gralloc_usage {
        let mut legacy: c_int = 0;
        // SAFETY: `f` is the driver's vkGetSwapchainGrallocUsageANDROID for its live `fns.device`;
        // `legacy` is a local that outlives the call.
        let r = unsafe { f(fns.device, info.image_format, info.image_usage, &mut legacy) };
        return if r == vk::Result::SUCCESS {
            Ok(u64::from(legacy as u32))
        } else {
            Err(failed(r, ""))
        };
    }
    Ok(0)
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
    guard(
        "vkGetSwapchainImagesKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let Some(sc) = lookup(swapchain, "vkGetSwapchainImagesKHR") else {
                return vk::Result::ERROR_SURFACE_LOST_KHR;
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
    guard(
        "vkAcquireNextImageKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            let Some(sc) = lookup(swapchain, "vkAcquireNextImageKHR") else {
                return vk::Result::ERROR_SURFACE_LOST_KHR;
            };
            // SAFETY: `index` is the application's pImageIndex: null (refused here) or writable for
            // this call (VUID-vkAcquireNextImageKHR-pImageIndex-parameter).
            let Some(index) = (unsafe { index.as_mut() }) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
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
    // SAFETY: `info` is the application's pAcquireInfo: null (refused here) or valid for this call
    // (VUID-vkAcquireNextImage2KHR-pAcquireInfo-parameter).
    let Some(info) = (unsafe { info.as_ref() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
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
        return vk::Result::ERROR_OUT_OF_DATE_KHR;
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
            log::error!("perform(SET_DEQUEUE_TIMEOUT) failed: {}", strerror(err));
            return vk::Result::ERROR_SURFACE_LOST_KHR;
        }
        st.dequeue_timeout = wanted;
    }
    let (buffer, dequeue_fence) = match window.dequeue_buffer() {
        Ok(b) => b,
        Err(err) if err == TIMED_OUT || err == INVALID_OPERATION => {
            log::debug!("dequeueBuffer timed out: {}", strerror(err));
            return if timeout != 0 {
                vk::Result::TIMEOUT
            } else {
                vk::Result::NOT_READY
            };
        }
        Err(err) => {
            log::error!("dequeueBuffer failed: {}", strerror(err));
            return vk::Result::ERROR_SURFACE_LOST_KHR;
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
                    log::error!("binding a deferred swapchain image failed: {r:?}");
                    window.cancel_buffer(&buffer, dequeue_fence);
                    return vk::Result::ERROR_OUT_OF_DATE_KHR;
                }
                st.images[idx].buffer = Some(buffer);
                idx
            }
            None => {
                log::error!(
                    "dequeueBuffer returned an unknown buffer {:p}: the window was reconfigured \
                     behind the swapchain",
                    buffer.as_ptr()
                );
                window.cancel_buffer(&buffer, dequeue_fence);
                return vk::Result::ERROR_OUT_OF_DATE_KHR;
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
        return vk::Result::ERROR_INITIALIZATION_FAILED;
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
    guard(
        "vkGetSwapchainStatusKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || match lookup(swapchain, "vkGetSwapchainStatusKHR") {
            None => vk::Result::ERROR_SURFACE_LOST_KHR,
            Some(sc) if !sc.is_current() => vk::Result::ERROR_OUT_OF_DATE_KHR,
            Some(_) => vk::Result::SUCCESS,
        },
    )
}

/// `vkReleaseSwapchainImagesEXT`: cancels the buffers (nothing for a shared swapchain).
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn release_swapchain_images(
    _device: vk::Device,
    info: *const vk::ReleaseSwapchainImagesInfoEXT<'_>,
) -> vk::Result {
    guard(
        "vkReleaseSwapchainImagesEXT",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `info` is the application's pReleaseInfo: null (refused here) or valid for
            // this call (VUID-vkReleaseSwapchainImagesEXT-pReleaseInfo-parameter).
            let Some(info) = (unsafe { info.as_ref() }) else {
                return vk::Result::ERROR_INITIALIZATION_FAILED;
            };
            let Some(sc) = lookup(info.swapchain, "vkReleaseSwapchainImagesEXT") else {
                return vk::Result::ERROR_SURFACE_LOST_KHR;
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
                return vk::Result::ERROR_INITIALIZATION_FAILED;
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
                    return vk::Result::ERROR_OUT_OF_DEVICE_MEMORY;
                };
                let st = sc.lock();
                let Some(buffer) = st
                    .images
                    .get(si.image_index as usize)
                    .and_then(|i| i.buffer.as_ref())
                else {
                    log::error!(
                        "vkBindImageMemory2: swapchain image {} has no buffer (yet)",
                        si.image_index
                    );
                    return vk::Result::ERROR_OUT_OF_DEVICE_MEMORY;
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
