//! `vkCreateSwapchainKHR` (AOSP `CreateSwapchainKHR`): configuring the surface's window, the
//! buffers' gralloc usage and the swapchain's images. The swapchain's life after creation is
//! [`super::swapchain`]'s.
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
//!    the window gets `max(min_undequeued + 1, count)` buffers; a mutable-format swapchain's
//!    view formats are read (an empty or absent list is `VK_ERROR_INITIALIZATION_FAILED`,
//!    [`super::mutable_format`]);
//! 6. gralloc usage ([`super::gralloc_usage`]): the driver's AHardwareBuffer usage, with
//!    `FRONT_BUFFER` for a shared swapchain only if the allocator has it, else the driver's
//!    `vkGetSwapchainGrallocUsage*ANDROID`; the window's usage = consumer | producer
//!    (| `PROTECTED`); then the transform hint and refresh duration are read;
//! 7. images: every buffer is dequeued and a `VkImage` created for it with
//!    `VkNativeBufferANDROID` → `VkSwapchainImageCreateInfoANDROID` (→ the application's
//!    `VkImageCompressionControlEXT`, → the mutable-format list) in the chain (2D, one mip,
//!    one layer, OPTIMAL, `PROTECTED` if asked); then every buffer is cancelled back (a shared
//!    swapchain keeps its one buffer dequeued). A `dequeueBuffer` failure is
//!    `VK_ERROR_OUT_OF_DEVICE_MEMORY` for `-ENOMEM`, else `VK_ERROR_SURFACE_LOST_KHR`. With
//!    `VK_SWAPCHAIN_CREATE_DEFERRED_MEMORY_ALLOCATION_BIT_EXT` (not shared; honoured whenever
//!    the flag is set, as AOSP, which does not look at the enabled extensions) the images are
//!    created unbound (`VkImageSwapchainCreateInfoKHR` → the mutable-format list) and bound at
//!    first acquire with `vkBindImageMemory2(VkNativeBufferANDROID →
//!    VkBindImageMemorySwapchainInfoKHR)`.
//!    Any failure destroys what was made.

use std::collections::VecDeque;
use std::ffi::{c_int, c_void};
use std::sync::atomic::Ordering;
use std::sync::{Arc, Mutex};

use vkgen_abi::native_window::{self as nw, buffer_usage};
use vkgen_abi::vk_error;

use super::formats;
use super::gralloc_usage::{image_flags, producer_usage, Request};
use super::mutable_format;
use super::registry::AppAllocation;
use super::surface::{capabilities, Surface, SURFACES};
use super::swapchain::{
    destroy_internal, device_wsi, native_buffer, Image, State, Swapchain, SWAPCHAINS,
};
use super::window::{strerror, Window, OK};
use super::window_err::{map_window_err, window_status, WindowCall};
use crate::dispatch_data::term::DeviceWsi;
use crate::ffi::guard_result;
use vkgen_generated::chain::find_in_chain;
use vkgen_generated::vk;

/// A creation step's window status, through the one mapper ([`map_window_err`]: every
/// failure of these calls is `VK_ERROR_SURFACE_LOST_KHR`).
#[track_caller]
fn step(err: c_int, what: &str) -> Result<(), vk::Result> {
    window_status(err, WindowCall::Other, CREATE, what)
}

/// The command every log line of this file names.
const CREATE: &str = "vkCreateSwapchainKHR";

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
    let _trace = crate::trace::section("CreateSwapchainKHR");
    guard_result(
        "vkCreateSwapchainKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        // SAFETY: `device`, `info`, `allocator` and `out` are the application's, unchanged: valid
        // per VUID-vkCreateSwapchainKHR-*-parameter, with null `info` and `out` refused in
        // `create_swapchain_impl`.
        || unsafe { create_swapchain_impl(device, info, allocator, out) },
    )
}

/// The creation order of the module notes, one function per step.
///
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
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateSwapchainKHR: null pCreateInfo or pSwapchain"
        ));
    };
    log_create_info(info);
    let target = window_format(info)?;
    let surface = &target.surface;
    let _surface_lock = surface.lock.lock().unwrap_or_else(|p| p.into_inner());
    retire_old_swapchain(surface, info)?;
    reset_window(surface, info)?;
    let swapchain_usage = configure_window(&surface.window, info, &target)?;
    let num_images = set_buffer_count(surface, info)?;
    // SAFETY: `info` is the application's valid create info, its pNext chain and the arrays it
    // points to valid (VUID-VkSwapchainCreateInfoKHR-pNext-pNext) for this call.
    let view_formats = unsafe { mutable_format::view_formats(info) }?;
    // SAFETY: as for the view formats just above: the application's valid chain.
    let compression = unsafe { image_compression(info) };
    let request = Request {
        info,
        pixel_format: target.pixel_format,
        swapchain_usage,
        compression: compression
            .as_ref()
            .map_or(std::ptr::null(), |c| std::ptr::from_ref(c).cast()),
    };
    // SAFETY: `wsi.fns` are the live device's driver functions; the request's compression
    // structure is the unchained copy that lives on this frame.
    let (refresh_duration, transform_hint) = unsafe { set_usage(wsi, surface, &request) }?;
    // AOSP's `CreateSwapchainKHR`: without a pAllocator, the device's (scope OBJECT).
    let device_callbacks = if allocator.is_null() {
        // SAFETY: `device` is the application's live device of this loader (checked above by
        // `device_wsi`), which outlives the call.
        unsafe { crate::dispatch_data::device_data(vk::Handle::as_raw(device) as usize) }
            .and_then(|d| d.allocator.app_callbacks())
    } else {
        None
    };
    let allocator = device_callbacks
        .as_ref()
        .map_or(allocator, |cb| std::ptr::from_ref(cb).cast());
    // SAFETY: `allocator` is the application's pAllocator, null or valid callbacks
    // (VUID-vkCreateSwapchainKHR-pAllocator-parameter) that stay valid until the swapchain is
    // destroyed, or the device's, which outlive its swapchains.
    let mut sc =
        unsafe { new_swapchain(wsi, surface, info, allocator, num_images, refresh_duration) }?;
    sc.format_list = view_formats;
    // SAFETY: `sc.fns` are the live device's driver functions; `info` (with its queue family
    // array) and `compression` outlive the image creation.
    unsafe { make_images(&sc, info, swapchain_usage, compression.as_ref()) }?;
    let handle = sc.handle;
    report_swapchain(transform_hint, sc.pre_transform);
    surface.current.store(handle, Ordering::Release);
    SWAPCHAINS.insert(handle, Arc::new(sc));
    // SAFETY: `out` was checked non-null above and is the application's pSwapchain, writable for
    // this call (VUID-vkCreateSwapchainKHR-pSwapchain-parameter).
    unsafe { *out = vk::Handle::from_raw(handle) };
    Ok(())
}

/// The create info as one debug line (what a failing application asked for).
fn log_create_info(info: &vk::SwapchainCreateInfoKHR<'_>) {
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
}

/// The live surface a create info names and the window format its images get (step 1).
struct Target {
    surface: Arc<Surface>,
    /// The window's pixel format (`AHARDWAREBUFFER_FORMAT_*`).
    pixel_format: c_int,
    /// The window's dataspace (`HAL_DATASPACE_*`).
    dataspace: c_int,
}

/// Step 1: the format and colour space must map to a window format and dataspace, and the
/// surface must be live.
fn window_format(info: &vk::SwapchainCreateInfoKHR<'_>) -> Result<Target, vk::Result> {
    let dataspace = formats::dataspace(info.image_color_space, info.image_format);
    if dataspace == nw::HAL_DATASPACE_UNKNOWN {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateSwapchainKHR: unsupported colour space {:?}",
            info.image_color_space
        ));
    }
    if info.image_array_layers != 1 {
        log::warn!(
            "vkCreateSwapchainKHR: imageArrayLayers {} not supported; using 1",
            info.image_array_layers
        );
    }
    let Some(surface) = SURFACES.get(vk::Handle::as_raw(info.surface)) else {
        return Err(vk_error!(
            vk::Result::ERROR_SURFACE_LOST_KHR,
            "vkCreateSwapchainKHR: {:#x} is not a live VkSurfaceKHR",
            vk::Handle::as_raw(info.surface)
        ));
    };
    let (pixel_format, composite_alphas) =
        super::surface::buffer_format(&surface, info.image_format);
    if !composite_alphas.contains(info.composite_alpha) || info.composite_alpha.is_empty() {
        log::error!(
            "vkCreateSwapchainKHR: compositeAlpha {:?} not supported ({composite_alphas:?} only)",
            info.composite_alpha
        );
    }
    Ok(Target {
        surface,
        pixel_format,
        dataspace,
    })
}

/// Step 2: one live swapchain per window; the old one is retired.
fn retire_old_swapchain(
    surface: &Surface,
    info: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<(), vk::Result> {
    let old = vk::Handle::as_raw(info.old_swapchain);
    let current = surface.current.load(Ordering::Acquire);
    if current != old {
        return Err(vk_error!(
            vk::Result::ERROR_NATIVE_WINDOW_IN_USE_KHR,
            "vkCreateSwapchainKHR: the surface already has swapchain {current:#x}, but \
             oldSwapchain is {old:#x}"
        ));
    }
    if old != 0 {
        if let Some(old_sc) = SWAPCHAINS.get(old) {
            let mut st = old_sc.lock();
            old_sc.orphan(&mut st);
        }
    }
    Ok(())
}

/// Step 3: the window as a new swapchain expects it (a window a swapchain used before is
/// reconnected, which frees every buffer).
fn reset_window(
    surface: &Surface,
    info: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<(), vk::Result> {
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
    // IMMEDIATE (desktop surfaces only) queues as MAILBOX does, FIFO_RELAXED (X11 surfaces only)
    // as FIFO does; their presenters do the rest.
    let mailbox = matches!(
        info.present_mode,
        vk::PresentModeKHR::MAILBOX | vk::PresentModeKHR::IMMEDIATE
    );
    step(
        window.set_swap_interval(if mailbox { 0 } else { 1 }),
        "setSwapInterval",
    )?;
    #[cfg(all(feature = "desktop", not(target_os = "android")))]
    super::desktop::set_present_mode(surface, info.present_mode);
    step(
        window.perform_int(nw::NATIVE_WINDOW_SET_SHARED_BUFFER_MODE, 0),
        "native_window_set_shared_buffer_mode(false)",
    )?;
    step(
        window.perform_int(nw::NATIVE_WINDOW_SET_AUTO_REFRESH, 0),
        "native_window_set_auto_refresh(false)",
    )
}

/// Step 4: the window's buffers as the create info asks; gives the swapchain image usage
/// (`SHARED` for the shared present modes).
fn configure_window(
    window: &Window,
    info: &vk::SwapchainCreateInfoKHR<'_>,
    target: &Target,
) -> Result<vk::SwapchainImageUsageFlagsANDROID, vk::Result> {
    step(
        window.perform_int(nw::NATIVE_WINDOW_SET_BUFFERS_FORMAT, target.pixel_format),
        "native_window_set_buffers_format",
    )?;
    if target.dataspace != nw::HAL_DATASPACE_ARBITRARY {
        step(
            window.perform_int(nw::NATIVE_WINDOW_SET_BUFFERS_DATASPACE, target.dataspace),
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
    let mut swapchain_usage = vk::SwapchainImageUsageFlagsANDROID::empty();
    if formats::is_shared(info.present_mode) {
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
    Ok(swapchain_usage)
}

/// Step 5: the image count (`minImageCount` clamped to the surface's capabilities for the
/// present mode) and the window's buffer count; gives the image count.
fn set_buffer_count(
    surface: &Surface,
    info: &vk::SwapchainCreateInfoKHR<'_>,
) -> Result<u32, vk::Result> {
    let window = &surface.window;
    let min_undequeued = window
        .query_non_negative(nw::NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS)
        .map_err(|e| {
            map_window_err(
                e,
                WindowCall::Other,
                CREATE,
                "NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS query",
            )
        })?;
    let caps = capabilities(Some(surface), Some(info.present_mode))?;
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
    Ok(num_images)
}

/// Step 6: the window's usage (consumer | producer | protected), then the transform hint and
/// the refresh duration, which it gives.
///
/// # Safety
/// `wsi.fns` must be a live device's driver functions; `request.compression` null or a valid
/// unchained structure.
unsafe fn set_usage(
    wsi: &DeviceWsi,
    surface: &Surface,
    request: &Request<'_>,
) -> Result<(i64, c_int), vk::Result> {
    let window = &surface.window;
    // SAFETY: the caller guarantees `wsi.fns` are a live device's driver functions and the
    // request's compression structure valid.
    let producer = unsafe { producer_usage(&wsi.fns, request) }?;
    let mut usage = surface.consumer_usage | producer;
    if request
        .info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::PROTECTED)
    {
        usage |= buffer_usage::PROTECTED;
    }
    step(window.set_usage(usage), "native_window_set_usage")?;
    let transform_hint = window
        .query(nw::NATIVE_WINDOW_TRANSFORM_HINT)
        .map_err(|e| {
            map_window_err(
                e,
                WindowCall::Other,
                CREATE,
                "NATIVE_WINDOW_TRANSFORM_HINT query",
            )
        })?;
    let refresh_duration = window.refresh_cycle_duration().map_err(|e| {
        map_window_err(
            e,
            WindowCall::Other,
            CREATE,
            "native_window_get_refresh_cycle_duration",
        )
    })?;
    Ok((refresh_duration, transform_hint))
}

/// AOSP's statistics for a created swapchain: `FALSE_PREROTATION` when the application did not
/// pre-rotate as the window's transform hint asks, then `CREATED_VULKAN_SWAPCHAIN`.
fn report_swapchain(transform_hint: c_int, pre_transform: c_int) {
    use crate::gpu_stats::{Stats, StatsCall};
    let stats = &crate::init::loader().stats;
    if transform_hint != pre_transform {
        stats.record(StatsCall::TargetStats(Stats::FalsePrerotation, 0));
    }
    stats.record(StatsCall::TargetStats(Stats::CreatedVulkanSwapchain, 0));
}

/// Step 7's swapchain object, its image slots still empty (not yet registered).
///
/// # Safety
/// `allocator` must be null or valid callbacks.
unsafe fn new_swapchain(
    wsi: &DeviceWsi,
    surface: &Arc<Surface>,
    info: &vk::SwapchainCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    num_images: u32,
    refresh_duration: i64,
) -> Result<Swapchain, vk::Result> {
    // SAFETY: the caller guarantees `allocator` is null or valid callbacks, which stay valid
    // until the swapchain (which owns the allocation) is destroyed.
    let allocation = unsafe {
        AppAllocation::new(
            allocator,
            std::mem::size_of::<Swapchain>(),
            std::mem::align_of::<Swapchain>(),
        )
    }?;
    let shared = formats::is_shared(info.present_mode);
    let image_count = if shared { 1 } else { num_images as usize };
    Ok(Swapchain {
        handle: SWAPCHAINS.reserve(),
        surface: Arc::clone(surface),
        fns: wsi.fns,
        shared,
        pre_transform: formats::vulkan_to_native_transform(info.pre_transform),
        maintenance1: wsi.maintenance1,
        extent: info.image_extent,
        format_list: None,
        state: Mutex::new(State {
            images: (0..image_count).map(|_| Image::default()).collect(),
            present_mode: info.present_mode,
            dequeue_timeout: -1,
            frame_timestamps_enabled: false,
            refresh_duration,
            timing: VecDeque::new(),
        }),
        _allocation: allocation,
    })
}

/// Step 7's images: bound to dequeued buffers, or unbound for deferred allocation; any failure
/// destroys what was made.
///
/// # Safety
/// `sc.fns` must be a live device's driver functions; `info` a valid create info.
unsafe fn make_images(
    sc: &Swapchain,
    info: &vk::SwapchainCreateInfoKHR<'_>,
    swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
    compression: Option<&vk::ImageCompressionControlEXT<'_>>,
) -> Result<(), vk::Result> {
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
    let deferred = info
        .flags
        .contains(vk::SwapchainCreateFlagsKHR::DEFERRED_MEMORY_ALLOCATION_EXT)
        && !sc.shared;
    let result = {
        let mut st = sc.lock();
        // SAFETY: the caller guarantees `sc.fns` are the live device's driver functions;
        // `image_info`'s queue family array is the application's, valid for this call.
        let r = unsafe {
            if deferred {
                create_deferred_images(sc, &mut st, &mut image_info)
            } else {
                create_images(sc, &mut st, &mut image_info, swapchain_usage, compression)
            }
        };
        drop(st);
        r
    };
    if result.is_err() {
        destroy_internal(sc);
    }
    result
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
    let format_list = mutable_format::list_info(sc.format_list.as_deref(), std::ptr::null());
    let format_list_ptr: *const c_void =
        mutable_format::head(format_list.as_ref(), std::ptr::null());
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
                let what = format!("dequeueBuffer[{i}]");
                result = Err(map_window_err(
                    err,
                    WindowCall::DequeueForImages,
                    CREATE,
                    &what,
                ));
                break;
            }
        };
        let nb = native_buffer(&buffer, std::ptr::addr_of!(swapchain_image).cast());
        img.buffer = Some(buffer);
        img.dequeue_fence = fence;
        img.dequeued = true;
        image_info.p_next = std::ptr::addr_of!(nb).cast();
        // AOSP traces this call (not the deferred images' vkCreateImage).
        let trace = crate::trace::section("CreateImage");
        // SAFETY: the driver's vkCreateImage with a valid create info (the chain lives on this
        // frame).
        let r = unsafe {
            (sc.fns.create_image)(sc.fns.device, image_info, std::ptr::null(), &mut img.image)
        };
        drop(trace);
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
    // The mutable-format list follows the swapchain info, as in AOSP.
    let format_list = mutable_format::list_info(sc.format_list.as_deref(), std::ptr::null());
    let swapchain_info = vk::ImageSwapchainCreateInfoKHR {
        p_next: mutable_format::head(format_list.as_ref(), std::ptr::null()),
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
