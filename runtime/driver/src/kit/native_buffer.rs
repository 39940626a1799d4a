//! `VK_ANDROID_native_buffer`'s gralloc and native-fence half, as a kit component: what every
//! Android driver writes, once.
//!
//! * **Gralloc usage** from a small description ([`GrallocUsage`]: bits per image usage, for
//!   shared presentable images, and which of the four query versions the driver offers,
//!   [`GrallocQueries`]). The kit answers `vkGetSwapchainGrallocUsage{,2,3,4}ANDROID` from it
//!   and exposes exactly the versions listed, so a loader picks the one the driver really has
//!   (most Android drivers offer only `…Usage2`).
//! * **Native fences** over a sync hook ([`NativeBuffers::signal_on_native_fence`],
//!   [`NativeBuffers::release_native_fence`]): `vkAcquireImageANDROID` takes the fd on every path
//!   (closed on failure, bad fds refused with `VK_ERROR_INVALID_EXTERNAL_HANDLE`), duplicates it
//!   for the semaphore and the fence before touching either, and hands the vendor owned
//!   [`NativeFence`]s; `vkQueueSignalReleaseImageANDROID` writes `-1` first (so no error path
//!   leaves garbage) and then the fd the vendor's fence yields, which the caller owns.
//!
//! The sync hooks take raw handles, not kit objects, so the component serves any driver (and
//! the null driver's serves a bring-up driver's devices while `Kit::NULL_OBJECTS` is on).
//!
//! * **Image import** (Mesa's `vk_android_import_anb`): the vendor's `vkCreateImage` hands its
//!   create info to [`create_native_buffer_image`]; for an image whose chain holds a
//!   `VkNativeBufferANDROID` the kit validates the structure and the gralloc handle behind it
//!   (a null or malformed handle, a buffer smaller than the image, an image that is not one 2D
//!   level and layer → `VK_ERROR_INVALID_EXTERNAL_HANDLE`), dups the buffer's fd and calls
//!   [`NativeBuffers::import_native_buffer`] with a [`NativeBufferImport`]: the one place where
//!   the buffer layout meets the hardware's tiling.

use std::ffi::c_int;

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use vkgen_generated::driver::Driver;

use crate::gralloc::Buffer;
use crate::sync_fd::NativeFence;
use crate::util::{fence_error_result, find_in_chain, guard, slice, take_native_fence};
use vkgen_abi::native_window::NativeHandle;

/// A validated `VkNativeBufferANDROID`, as [`NativeBuffers::import_native_buffer`] gets it.
pub struct NativeBufferImport<'a> {
    /// The application's (loader's) create info, chain included.
    pub create_info: &'a vk::ImageCreateInfo<'a>,
    /// The gralloc buffer: its layout ([`Buffer::desc`]: size, stride, format, offset) and a
    /// dup of its fd, closed when the import is dropped.
    pub buffer: Buffer,
    /// The structure's own fields: stride (pixels), HAL format, 32-bit usage, and the 64-bit
    /// usages of spec 6 and 9.
    pub stride: c_int,
    pub format: c_int,
    pub usage: c_int,
    pub usage2: vk::NativeBufferUsage2ANDROID,
    pub usage3: u64,
    /// `VkSwapchainImageCreateInfoANDROID::usage` (shared presentable images), if chained.
    pub swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
}

/// Which `vkGetSwapchainGrallocUsage*ANDROID` versions the driver offers.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct GrallocQueries {
    /// `vkGetSwapchainGrallocUsageANDROID` (spec 5: 32-bit usage).
    pub v1: bool,
    /// `vkGetSwapchainGrallocUsage2ANDROID` (spec 6: consumer/producer usage).
    pub v2: bool,
    /// `vkGetSwapchainGrallocUsage3ANDROID` (spec 9: `VkGrallocUsageInfoANDROID`).
    pub v3: bool,
    /// `vkGetSwapchainGrallocUsage4ANDROID` (spec 10: with the swapchain usage).
    pub v4: bool,
}

impl GrallocQueries {
    /// Only `…Usage2`, as most Android drivers.
    pub const V2: Self = Self {
        v1: false,
        v2: true,
        v3: false,
        v4: false,
    };
    /// All four.
    pub const ALL: Self = Self {
        v1: true,
        v2: true,
        v3: true,
        v4: true,
    };
    /// None: the driver implements the queries itself, or has no native buffers.
    pub const NONE: Self = Self {
        v1: false,
        v2: false,
        v3: false,
        v4: false,
    };
}

/// How the driver's swapchain images map to gralloc usage bits.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct GrallocUsage {
    /// Always set (e.g. the hardware's "GPU render target" bits).
    pub base: u64,
    /// `(image usage, bits)`: the bits when the image usage includes that usage.
    pub per_image_usage: &'static [(vk::ImageUsageFlags, u64)],
    /// Added for shared presentable images (`VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID`).
    pub shared: u64,
}

impl GrallocUsage {
    /// The usage for an image usage and swapchain usage.
    pub fn usage(
        &self,
        image: vk::ImageUsageFlags,
        swapchain: vk::SwapchainImageUsageFlagsANDROID,
    ) -> u64 {
        let mut u = self.base;
        for &(flag, bits) in self.per_image_usage {
            if image.intersects(flag) {
                u |= bits;
            }
        }
        if swapchain.contains(vk::SwapchainImageUsageFlagsANDROID::SHARED) {
            u |= self.shared;
        }
        u
    }
}

/// A driver's native-buffer configuration and sync hooks. Every kit driver has it (a `Kit`
/// supertrait, all defaults: nothing exposed); a driver outside the kit (the host passthrough)
/// implements it and routes `Driver::fallback` to `entry`.
pub trait NativeBuffers: Driver {
    /// The `vkGetSwapchainGrallocUsage*ANDROID` versions answered from
    /// [`NativeBuffers::gralloc_usage`].
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::NONE;

    /// Whether `vkAcquireImageANDROID` / `vkQueueSignalReleaseImageANDROID` are provided over
    /// [`NativeBuffers::signal_on_native_fence`] and [`NativeBuffers::release_native_fence`].
    const NATIVE_FENCES: bool = false;

    /// The gralloc usage of the driver's swapchain images.
    fn gralloc_usage() -> GrallocUsage {
        GrallocUsage::default()
    }

    /// `vkAcquireImageANDROID`'s work: make `semaphore` / `fence` (each may be null, and then
    /// its copy is `None`) signal when their copy of the acquire fence signals. The copies are
    /// the driver's (dropping one closes it); the original is already closed. Default: the
    /// kit's sync objects ([`Kit::SYNC_OBJECTS`](crate::kit::Kit::SYNC_OBJECTS)) take the
    /// payloads ([`crate::kit::sync::signal_on_native_fence`]); a driver with its own
    /// semaphores and fences overrides it.
    fn signal_on_native_fence(
        device: vk::Device,
        semaphore: vk::Semaphore,
        semaphore_fence: Option<NativeFence>,
        fence: vk::Fence,
        fence_fence: Option<NativeFence>,
    ) -> Result<(), vk::Result> {
        let _ = device;
        crate::kit::sync::object::signal_on_native_fence(
            semaphore,
            semaphore_fence,
            fence,
            fence_fence,
        )
    }

    /// `vkCreateImage` with a `VkNativeBufferANDROID`, already validated: create the image on
    /// `import.buffer`'s memory (the kit owns neither the image nor its memory; the driver
    /// frees both at `vkDestroyImage`). The default refuses, for drivers without swapchains.
    fn import_native_buffer(
        device: vk::Device,
        import: NativeBufferImport<'_>,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> Result<vk::Image, vk::Result> {
        let _ = (device, import, allocator);
        Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "VkNativeBufferANDROID: this driver imports no native buffers"
        ))
    }

    /// `vkQueueSignalReleaseImageANDROID`'s work: a native fence that signals once `wait` have
    /// (`NativeFence::signalled()` when the work is already done); the caller gets its fd.
    /// Default: released once the kit's semaphores in `wait` resolve
    /// ([`crate::kit::queue::release_after_waits`]: a driver whose rendering is done when its
    /// batches complete); a driver with its own semaphores, or rendering still in flight after
    /// them, overrides it.
    fn release_native_fence(
        queue: vk::Queue,
        wait: &[vk::Semaphore],
        image: vk::Image,
    ) -> Result<NativeFence, vk::Result> {
        let _ = (queue, image);
        crate::kit::queue::batch::release_after_waits(wait)
    }
}

/// For the vendor's `vkCreateImage`: `None` for an ordinary image (the vendor creates it), else
/// the result of importing the chained `VkNativeBufferANDROID` through
/// [`NativeBuffers::import_native_buffer`], with the image written to `p_image` on success.
///
/// # Safety
/// `p_create_info` null or a valid create info (chain included); `p_image` valid for a write.
pub unsafe fn create_native_buffer_image<D: NativeBuffers>(
    device: vk::Device,
    p_create_info: *const vk::ImageCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_image: *mut vk::Image,
) -> Option<vk::Result> {
    // SAFETY: `p_create_info` is null or the vendor's vkCreateImage create info, valid for this
    // call (this function's contract); `?` answers null with `None`.
    let ci = unsafe { p_create_info.as_ref() }?;
    // SAFETY: `ci.p_next` is that create info's chain, valid for this call (this function's
    // contract), so a structure found by its sType is that structure.
    let anb = unsafe {
        find_in_chain::<vk::NativeBufferANDROID>(
            ci.p_next,
            vk::StructureType::NATIVE_BUFFER_ANDROID,
        )
    }?;
    Some(guard(
        concat!(module_path!(), "::create_native_buffer_image"),
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `anb` is from `ci`'s valid chain.
            let import = match unsafe { validate(ci, anb) } {
                Ok(i) => i,
                Err(e) => return e,
            };
            // SAFETY: `p_allocator` is the application's vkCreateImage allocator, null or valid
            // callbacks for this call.
            let allocator = unsafe { p_allocator.as_ref() };
            match D::import_native_buffer(device, import, allocator) {
                Ok(image) => {
                    // SAFETY: `p_image` is valid for a write (this function's contract).
                    unsafe { put(p_image, image) };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    ))
}

/// The validated `VkNativeBufferANDROID` of an image create info (see
/// [`create_native_buffer_image`] for the checks), `None` when the chain holds none: how the
/// kit's own `vkCreateImage` ([`crate::kit::resources`]) imports native buffers.
///
/// # Safety
/// `ci`'s chain is valid, and a `VkNativeBufferANDROID` in it holds a null handle or the one
/// the loader passed.
pub unsafe fn native_buffer_import<'a>(
    ci: &'a vk::ImageCreateInfo<'a>,
) -> Option<Result<NativeBufferImport<'a>, vk::Result>> {
    // SAFETY: the caller's valid chain: a structure found by its sType is that structure.
    let anb = unsafe {
        find_in_chain::<vk::NativeBufferANDROID>(
            ci.p_next,
            vk::StructureType::NATIVE_BUFFER_ANDROID,
        )
    }?;
    // SAFETY: `anb` is from `ci`'s valid chain, with the loader's handle (the caller's promise).
    Some(unsafe { validate(ci, anb) })
}

/// The gralloc buffer behind a `VkNativeBufferANDROID` (also for the deferred binds of spec 8,
/// `vkBindImageMemory2` with the structure chained): the handle's header and counts checked,
/// its fd dup'ed. A null or malformed handle is `VK_ERROR_INVALID_EXTERNAL_HANDLE`, and so is
/// a spec-11 `ahb` that is not the `AHardwareBuffer` of that same handle.
///
/// # Safety
/// `anb.handle` is null or the `native_handle_t` the loader passed; `anb.ahb` null or its
/// buffer (any other pointer is refused by the checks).
pub unsafe fn native_buffer_of(anb: &vk::NativeBufferANDROID) -> Result<Buffer, vk::Result> {
    if anb.handle.is_null() {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "VkNativeBufferANDROID refused: null handle"
        ));
    }
    if !anb.ahb.is_null() {
        // SAFETY: checked before use; the loader holds a reference during the call.
        let ahb = unsafe { crate::hardware_buffer::HardwareBufferRef::acquire(anb.ahb.cast()) };
        if !ahb.is_ok_and(|b| b.native_handle() == anb.handle.cast::<NativeHandle>()) {
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
                "VkNativeBufferANDROID refused: ahb is not the buffer of handle"
            ));
        }
    }
    // SAFETY: parsing validates the native handle's header and counts, then dups its fd.
    unsafe { Buffer::import(anb.handle.cast::<NativeHandle>()) }.map_err(|e| {
        crate::gralloc::map_gralloc_err(
            "VkNativeBufferANDROID refused: gralloc handle",
            &e,
            crate::gralloc::BufferOp::Import,
        )
    })
}

/// Checks a `VkNativeBufferANDROID` against its image and parses the gralloc handle.
///
/// # Safety
/// `anb` comes from `ci`'s valid chain; its handle is null or what the loader passed.
unsafe fn validate<'a>(
    ci: &'a vk::ImageCreateInfo<'a>,
    anb: &vk::NativeBufferANDROID,
) -> Result<NativeBufferImport<'a>, vk::Result> {
    let refuse = |why: &str| {
        vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "VkNativeBufferANDROID refused: {why}"
        )
    };
    if ci.image_type != vk::ImageType::TYPE_2D
        || ci.mip_levels != 1
        || ci.array_layers != 1
        || ci.extent.depth != 1
    {
        return Err(refuse("not a single-level, single-layer 2D image"));
    }
    // SAFETY: `anb` comes from `ci`'s valid chain and its handle is null or what the loader passed
    // (this function's contract), which `native_buffer_of` checks before reading.
    let buffer = unsafe { native_buffer_of(anb) }?;
    let desc = buffer.desc();
    if ci.extent.width > desc.width || ci.extent.height > desc.height {
        return Err(refuse(&format!(
            "image {}x{} larger than the buffer {}x{}",
            ci.extent.width, ci.extent.height, desc.width, desc.height
        )));
    }
    if anb.stride < 0 || (anb.stride as u32) < ci.extent.width {
        return Err(refuse(&format!("stride {} below the width", anb.stride)));
    }
    // SAFETY: a valid chain, as `anb`'s.
    let swapchain_usage = unsafe {
        find_in_chain::<vk::SwapchainImageCreateInfoANDROID>(
            ci.p_next,
            vk::StructureType::SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID,
        )
    }
    .map_or(vk::SwapchainImageUsageFlagsANDROID::empty(), |s| s.usage);
    Ok(NativeBufferImport {
        create_info: ci,
        buffer,
        stride: anb.stride,
        format: anb.format,
        usage: anb.usage,
        usage2: anb.usage2,
        usage3: anb.usage3,
        swapchain_usage,
    })
}

/// The component as a table (see [`crate::kit::entries`]): the gralloc usage queries the
/// driver's [`GrallocQueries`] select, and image acquire/release with
/// [`NativeBuffers::NATIVE_FENCES`].
pub fn entries<D: NativeBuffers>() -> EntryTable {
    let q = D::GRALLOC_QUERIES;
    let fences = D::NATIVE_FENCES;
    EntryTable {
        get_swapchain_gralloc_usage_android: q.v1.then_some(usage1::<D>),
        get_swapchain_gralloc_usage2_android: q.v2.then_some(usage2::<D>),
        get_swapchain_gralloc_usage3_android: q.v3.then_some(usage3::<D>),
        get_swapchain_gralloc_usage4_android: q.v4.then_some(usage4::<D>),
        acquire_image_android: fences.then_some(acquire_image::<D>),
        queue_signal_release_image_android: fences.then_some(queue_signal_release_image::<D>),
        ..EntryTable::EMPTY
    }
}

/// Writes `value` through `out` if it is non-null.
///
/// # Safety
/// `out` is null or valid for a write.
unsafe fn put<T>(out: *mut T, value: T) {
    // SAFETY: `out` is null or valid for a write (this function's contract); `as_mut` skips null.
    if let Some(o) = unsafe { out.as_mut() } {
        *o = value;
    }
}

unsafe extern "system" fn usage1<D: NativeBuffers>(
    _device: vk::Device,
    _format: vk::Format,
    image_usage: vk::ImageUsageFlags,
    out: *mut c_int,
) -> vk::Result {
    let u = D::gralloc_usage().usage(image_usage, vk::SwapchainImageUsageFlagsANDROID::empty());
    // The 32-bit query carries the low half (gralloc0's usage).
    // SAFETY: `out` is the application's vkGetSwapchainGrallocUsageANDROID output; `put` skips a
    // null one.
    unsafe { put(out, u as u32 as c_int) };
    vk::Result::SUCCESS
}

unsafe extern "system" fn usage2<D: NativeBuffers>(
    _device: vk::Device,
    _format: vk::Format,
    image_usage: vk::ImageUsageFlags,
    swapchain_usage: vk::SwapchainImageUsageFlagsANDROID,
    consumer: *mut u64,
    producer: *mut u64,
) -> vk::Result {
    let u = D::gralloc_usage().usage(image_usage, swapchain_usage);
    // SAFETY: `consumer` and `producer` are the application's vkGetSwapchainGrallocUsage2ANDROID
    // outputs; `put` skips a null one.
    unsafe {
        put(consumer, 0);
        put(producer, u);
    }
    vk::Result::SUCCESS
}

unsafe extern "system" fn usage3<D: NativeBuffers>(
    _device: vk::Device,
    info: *const vk::GrallocUsageInfoANDROID,
    out: *mut u64,
) -> vk::Result {
    // SAFETY: `info` is the application's vkGetSwapchainGrallocUsage3ANDROID input, null or valid
    // for this call; `as_ref` turns null into the refusal below.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkGetSwapchainGrallocUsage3ANDROID without a usage info"
        );
    };
    let u = D::gralloc_usage().usage(
        info.image_usage,
        vk::SwapchainImageUsageFlagsANDROID::empty(),
    );
    // SAFETY: `out` is the application's vkGetSwapchainGrallocUsage3ANDROID output; `put` skips a
    // null one.
    unsafe { put(out, u) };
    vk::Result::SUCCESS
}

unsafe extern "system" fn usage4<D: NativeBuffers>(
    _device: vk::Device,
    info: *const vk::GrallocUsageInfo2ANDROID,
    out: *mut u64,
) -> vk::Result {
    // SAFETY: `info` is the application's vkGetSwapchainGrallocUsage4ANDROID input, null or valid
    // for this call; `as_ref` turns null into the refusal below.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkGetSwapchainGrallocUsage4ANDROID without a usage info"
        );
    };
    let u = D::gralloc_usage().usage(info.image_usage, info.swapchain_image_usage);
    // SAFETY: `out` is the application's vkGetSwapchainGrallocUsage4ANDROID output; `put` skips a
    // null one.
    unsafe { put(out, u) };
    vk::Result::SUCCESS
}

/// `vkAcquireImageANDROID`: the fd is the driver's from the first instruction, closed on every
/// path that does not hand it to the vendor.
unsafe extern "system" fn acquire_image<D: NativeBuffers>(
    device: vk::Device,
    _image: vk::Image,
    native_fence_fd: c_int,
    semaphore: vk::Semaphore,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: the HAL hands the fd over; taking it first means an unwind closes it too.
    let native = match unsafe { take_native_fence(native_fence_fd) } {
        Ok(f) => f,
        Err(e) => return e,
    };
    guard(
        "vkAcquireImageANDROID",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        move || {
            if device == vk::Device::null() {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkAcquireImageANDROID with a null device"
                );
            }
            let dup = |f: &NativeFence| f.try_clone().map_err(|e| fence_error_result(&e));
            // Both copies before any state changes: a failure leaves both objects untouched.
            let for_semaphore = match (semaphore != vk::Semaphore::null())
                .then(|| dup(&native))
                .transpose()
            {
                Ok(f) => f,
                Err(e) => return e,
            };
            let for_fence = match (fence != vk::Fence::null())
                .then(|| dup(&native))
                .transpose()
            {
                Ok(f) => f,
                Err(e) => return e,
            };
            drop(native);
            match D::signal_on_native_fence(device, semaphore, for_semaphore, fence, for_fence) {
                Ok(()) => vk::Result::SUCCESS,
                Err(e) => e,
            }
        },
    )
}

/// `vkQueueSignalReleaseImageANDROID`: `-1` is written first; the vendor's fence fd, owned by
/// the caller, replaces it.
unsafe extern "system" fn queue_signal_release_image<D: NativeBuffers>(
    queue: vk::Queue,
    wait_count: u32,
    p_wait: *const vk::Semaphore,
    image: vk::Image,
    p_native_fence_fd: *mut c_int,
) -> vk::Result {
    // SAFETY: `p_native_fence_fd` is the application's vkQueueSignalReleaseImageANDROID output;
    // `put` skips a null one. -1 goes there first so every failure below leaves no fd.
    unsafe { put(p_native_fence_fd, -1) };
    guard(
        "vkQueueSignalReleaseImageANDROID",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            if queue == vk::Queue::null() {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_DEVICE_LOST,
                    "vkQueueSignalReleaseImageANDROID with a null queue"
                );
            }
            // SAFETY: `p_wait` holds `waitSemaphoreCount` semaphores
            // (vkQueueSignalReleaseImageANDROID's valid usage); `slice` takes null or zero as
            // empty.
            let wait = unsafe { slice(p_wait, wait_count) };
            match D::release_native_fence(queue, wait, image) {
                Ok(f) => {
                    // SAFETY: `p_native_fence_fd` is the application's output (`put` skips null);
                    // the application owns the fd from here.
                    unsafe { put(p_native_fence_fd, f.into_raw()) };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}
