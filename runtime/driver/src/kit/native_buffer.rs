//! `VK_ANDROID_native_buffer`'s gralloc and native-fence half, as a kit component: what every
//! Android driver writes, once.
//!
//! * **Gralloc usage** from a small description ([`GrallocUsage`]: bits per image usage, for
//!   shared presentable images, and which of the four query versions the driver offers,
//!   [`GrallocQueries`]). The kit answers `vkGetSwapchainGrallocUsage{,2,3,4}ANDROID` from it
//!   and exposes exactly the versions listed, so a loader picks the one the driver really has
//!   (most Android drivers offer only `…Usage2`).
//! * **Native fences** over a sync hook ([`NativeBuffers::signal_on_native_fence`],
//!   [`NativeBuffers::release_native_fence`]): `vkAcquireImageANDROID` takes the fd on every path (closed
//!   on failure, bad fds refused with `VK_ERROR_INVALID_EXTERNAL_HANDLE`), duplicates it for the
//!   semaphore and the fence before touching either, and hands the vendor owned
//!   [`NativeFence`]s; `vkQueueSignalReleaseImageANDROID` writes `-1` first (so no error path
//!   leaves garbage) and then the fd the vendor's fence yields, which the caller owns.
//!
//! The sync hooks take raw handles, not kit objects, so the component serves any driver (and
//! the null driver's serves a bring-up driver's devices while `Kit::NULL_OBJECTS` is on).
//!
//! Image import (`vkCreateImage` with `VkNativeBufferANDROID`) stays the vendor's: it is where
//! the buffer layout meets the hardware's tiling.

use std::ffi::c_int;

use vkgen_generated::commands::CommandId as C;
use vkgen_generated::vk;

use vkgen_generated::driver::Driver;

use crate::sync_fd::NativeFence;
use crate::util::{fence_error_result, guard, slice, take_native_fence};

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
/// implements it and routes `Driver::fallback` to [`entry`].
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
    /// the driver's (dropping one closes it); the original is already closed.
    fn signal_on_native_fence(
        device: vk::Device,
        semaphore: vk::Semaphore,
        semaphore_fence: Option<NativeFence>,
        fence: vk::Fence,
        fence_fence: Option<NativeFence>,
    ) -> Result<(), vk::Result> {
        let _ = (device, semaphore, semaphore_fence, fence, fence_fence);
        Err(vk::Result::ERROR_INITIALIZATION_FAILED)
    }

    /// `vkQueueSignalReleaseImageANDROID`'s work: a native fence that signals once `wait` have
    /// (`NativeFence::signalled()` when the work is already done); the caller gets its fd.
    fn release_native_fence(
        queue: vk::Queue,
        wait: &[vk::Semaphore],
        image: vk::Image,
    ) -> Result<NativeFence, vk::Result> {
        let _ = (queue, wait, image);
        Err(vk::Result::ERROR_INITIALIZATION_FAILED)
    }
}

/// The component's entry point for a native-buffer command, per the driver's
/// [`GrallocQueries`] and [`NativeBuffers::NATIVE_FENCES`].
pub fn entry<D: NativeBuffers>(cmd: C) -> vk::PFN_vkVoidFunction {
    macro_rules! pfn {
        ($on:expr, $f:ident, $t:ident) => {{
            if !$on {
                return None;
            }
            let f: vkgen_generated::pfn::$t = $f::<D>;
            // SAFETY: every function pointer has the same representation; callers cast back
            // to `$t`, the type of the command they asked for.
            Some(unsafe {
                std::mem::transmute::<vkgen_generated::pfn::$t, unsafe extern "system" fn()>(f)
            })
        }};
    }
    let q = D::GRALLOC_QUERIES;
    match cmd {
        C::GET_SWAPCHAIN_GRALLOC_USAGE_ANDROID => {
            pfn!(q.v1, usage1, PFN_vkGetSwapchainGrallocUsageANDROID)
        }
        C::GET_SWAPCHAIN_GRALLOC_USAGE2_ANDROID => {
            pfn!(q.v2, usage2, PFN_vkGetSwapchainGrallocUsage2ANDROID)
        }
        C::GET_SWAPCHAIN_GRALLOC_USAGE3_ANDROID => {
            pfn!(q.v3, usage3, PFN_vkGetSwapchainGrallocUsage3ANDROID)
        }
        C::GET_SWAPCHAIN_GRALLOC_USAGE4_ANDROID => {
            pfn!(q.v4, usage4, PFN_vkGetSwapchainGrallocUsage4ANDROID)
        }
        C::ACQUIRE_IMAGE_ANDROID => {
            pfn!(D::NATIVE_FENCES, acquire_image, PFN_vkAcquireImageANDROID)
        }
        C::QUEUE_SIGNAL_RELEASE_IMAGE_ANDROID => pfn!(
            D::NATIVE_FENCES,
            queue_signal_release_image,
            PFN_vkQueueSignalReleaseImageANDROID
        ),
        _ => None,
    }
}

/// Writes `value` through `out` if it is non-null.
///
/// # Safety
/// `out` is null or valid for a write.
unsafe fn put<T>(out: *mut T, value: T) {
    // SAFETY: per the caller.
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
    // SAFETY: a valid output pointer per valid usage.
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
    // SAFETY: valid output pointers per valid usage.
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
    // SAFETY: a valid input structure per valid usage.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let u = D::gralloc_usage().usage(
        info.image_usage,
        vk::SwapchainImageUsageFlagsANDROID::empty(),
    );
    // SAFETY: a valid output pointer per valid usage.
    unsafe { put(out, u) };
    vk::Result::SUCCESS
}

unsafe extern "system" fn usage4<D: NativeBuffers>(
    _device: vk::Device,
    info: *const vk::GrallocUsageInfo2ANDROID,
    out: *mut u64,
) -> vk::Result {
    // SAFETY: a valid input structure per valid usage.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    let u = D::gralloc_usage().usage(info.image_usage, info.swapchain_image_usage);
    // SAFETY: a valid output pointer per valid usage.
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
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, move || {
        if device == vk::Device::null() {
            return vk::Result::ERROR_INITIALIZATION_FAILED;
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
    })
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
    // SAFETY: a valid output pointer per valid usage.
    unsafe { put(p_native_fence_fd, -1) };
    guard(vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        if queue == vk::Queue::null() {
            return vk::Result::ERROR_DEVICE_LOST;
        }
        // SAFETY: `waitSemaphoreCount` semaphores per valid usage.
        let wait = unsafe { slice(p_wait, wait_count) };
        match D::release_native_fence(queue, wait, image) {
            Ok(f) => {
                // SAFETY: as above; the caller owns the fd from here.
                unsafe { put(p_native_fence_fd, f.into_raw()) };
                vk::Result::SUCCESS
            }
            Err(e) => e,
        }
    })
}
