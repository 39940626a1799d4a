//! Android's window-system ABI: `ANativeWindow` (`system/window.h`), `ANativeWindowBuffer`
//! (`nativebase/nativebase.h`), `native_handle_t` (`cutils/native_handle.h`) and the constants the
//! Vulkan WSI passes through `query`/`perform` (HAL pixel formats, dataspaces, gralloc usage).
//!
//! `VK_KHR_android_surface` hands the loader an `ANativeWindow*` and the loader hands the driver
//! `native_handle_t*`s through `VkNativeBufferANDROID`; both sides are C, so the layouts below are
//! field-for-field copies of AOSP's and locked by LP64 tests.
//!
//! `perform` is variadic in C. Stable Rust can call a variadic function pointer but cannot define
//! one, so a window implemented in Rust needs a C shim for that slot (or must rely on the platform
//! ABI passing the leading integer arguments identically, as x86-64 SysV and AAPCS64 on Linux do).

use std::ffi::{c_int, c_void};
use std::mem::size_of;

/// `ANDROID_NATIVE_MAKE_CONSTANT(a, b, c, d)`: first character in the most significant byte.
pub const fn android_native_make_constant(c: [u8; 4]) -> c_int {
    u32::from_be_bytes(c) as c_int
}

/// `ANDROID_NATIVE_WINDOW_MAGIC` = `'_wnd'`.
pub const ANDROID_NATIVE_WINDOW_MAGIC: c_int = android_native_make_constant(*b"_wnd");
/// `ANDROID_NATIVE_BUFFER_MAGIC` = `'_bfr'`.
pub const ANDROID_NATIVE_BUFFER_MAGIC: c_int = android_native_make_constant(*b"_bfr");

// ---------------------------------------------------------------------------------------------
// cutils/native_handle.h

/// `native_handle_t`: a header followed by `numFds` fds and then `numInts` ints in `data`.
///
/// Only ever handled through raw pointers: the trailing data lies outside `size_of::<Self>()`, so
/// a `&NativeHandle` would not cover it.
#[doc(alias = "native_handle_t")]
#[doc(alias = "native_handle")]
#[repr(C)]
#[derive(Debug)]
pub struct NativeHandle {
    /// `sizeof(native_handle_t)`, i.e. [`NATIVE_HANDLE_VERSION`].
    pub version: c_int,
    pub num_fds: c_int,
    pub num_ints: c_int,
    pub data: [c_int; 0],
}

/// The `version` every valid `native_handle_t` carries: `sizeof(native_handle_t)` = 12.
pub const NATIVE_HANDLE_VERSION: c_int = size_of::<NativeHandle>() as c_int;
/// `NATIVE_HANDLE_MAX_FDS` (libcutils).
pub const NATIVE_HANDLE_MAX_FDS: c_int = 1024;
/// `NATIVE_HANDLE_MAX_INTS` (libcutils).
pub const NATIVE_HANDLE_MAX_INTS: c_int = 1024;

/// `buffer_handle_t`.
#[allow(non_camel_case_types)]
pub type buffer_handle_t = *const NativeHandle;

impl NativeHandle {
    /// Pointer to `data[0]`, with the provenance of `this` (so it may reach past the header).
    ///
    /// # Safety
    /// `this` must be non-null and point into a single allocation that holds the header.
    pub unsafe fn data_ptr(this: *const Self) -> *const c_int {
        // SAFETY: the caller guarantees `this` points at a header; `addr_of!` creates no reference.
        unsafe { std::ptr::addr_of!((*this).data).cast::<c_int>() }
    }

    /// The fds, `data[0..numFds]`. A negative count reads as zero.
    ///
    /// # Safety
    /// `this` must point to a readable handle whose allocation holds `numFds + numInts` ints after
    /// the header and that outlives `'a`.
    pub unsafe fn fds<'a>(this: *const Self) -> &'a [c_int] {
        // SAFETY: the caller guarantees the header and data are readable for 'a.
        unsafe {
            let n = usize::try_from((*this).num_fds).unwrap_or(0);
            std::slice::from_raw_parts(Self::data_ptr(this), n)
        }
    }

    /// The ints, `data[numFds..numFds + numInts]`. Negative counts read as zero.
    ///
    /// # Safety
    /// As for [`NativeHandle::fds`].
    pub unsafe fn ints<'a>(this: *const Self) -> &'a [c_int] {
        // SAFETY: the caller guarantees the header and data are readable for 'a.
        unsafe {
            let fds = usize::try_from((*this).num_fds).unwrap_or(0);
            let n = usize::try_from((*this).num_ints).unwrap_or(0);
            std::slice::from_raw_parts(Self::data_ptr(this).add(fds), n)
        }
    }
}

// ---------------------------------------------------------------------------------------------
// nativebase/nativebase.h

/// `android_native_base_t::incRef` / `decRef`.
pub type PfnNativeBaseRef = unsafe extern "C" fn(base: *mut AndroidNativeBase);

/// `android_native_base_t`: common header of windows and buffers (magic, size, refcounting).
#[doc(alias = "android_native_base_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct AndroidNativeBase {
    /// [`ANDROID_NATIVE_WINDOW_MAGIC`] or [`ANDROID_NATIVE_BUFFER_MAGIC`].
    pub magic: c_int,
    /// `sizeof` the full object.
    pub version: c_int,
    pub reserved: [*mut c_void; 4],
    pub inc_ref: Option<PfnNativeBaseRef>,
    pub dec_ref: Option<PfnNativeBaseRef>,
}

/// Number of `reserved_proc` words in [`ANativeWindowBuffer`]: the 64-bit `usage` took the first
/// `sizeof(uint64_t) / sizeof(void*)` of the original eight.
pub const ANATIVEWINDOWBUFFER_RESERVED_PROC: usize =
    8 - size_of::<u64>() / size_of::<*mut c_void>();

/// `ANativeWindowBuffer` (`android_native_buffer_t`): a gralloc buffer as a window hands it out.
#[doc(alias = "ANativeWindowBuffer_t")]
#[doc(alias = "android_native_buffer_t")]
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ANativeWindowBuffer {
    pub common: AndroidNativeBase,
    pub width: c_int,
    pub height: c_int,
    /// In pixels.
    pub stride: c_int,
    /// A `HAL_PIXEL_FORMAT_*`.
    pub format: c_int,
    /// The low 32 bits of `usage`, kept for gralloc0 clients.
    pub usage_deprecated: c_int,
    pub layer_count: usize,
    pub reserved: [*mut c_void; 1],
    pub handle: buffer_handle_t,
    /// [`buffer_usage`] bits.
    pub usage: u64,
    pub reserved_proc: [*mut c_void; ANATIVEWINDOWBUFFER_RESERVED_PROC],
}

// ---------------------------------------------------------------------------------------------
// system/window.h

/// `ANativeWindow::setSwapInterval`.
pub type PfnSetSwapInterval =
    unsafe extern "C" fn(window: *mut ANativeWindow, interval: c_int) -> c_int;
/// `ANativeWindow::dequeueBuffer_DEPRECATED`.
pub type PfnDequeueBufferDeprecated = unsafe extern "C" fn(
    window: *mut ANativeWindow,
    buffer: *mut *mut ANativeWindowBuffer,
) -> c_int;
/// `lockBuffer_DEPRECATED`, `queueBuffer_DEPRECATED`, `cancelBuffer_DEPRECATED`.
pub type PfnBufferOpDeprecated =
    unsafe extern "C" fn(window: *mut ANativeWindow, buffer: *mut ANativeWindowBuffer) -> c_int;
/// `ANativeWindow::query`: `*value = attribute what`; 0 or `-errno`.
pub type PfnQuery =
    unsafe extern "C" fn(window: *const ANativeWindow, what: c_int, value: *mut c_int) -> c_int;
/// `ANativeWindow::perform`: variadic, arguments depend on `operation` (`NATIVE_WINDOW_SET_*`).
pub type PfnPerform =
    unsafe extern "C" fn(window: *mut ANativeWindow, operation: c_int, ...) -> c_int;
/// `ANativeWindow::dequeueBuffer`: returns a buffer and an acquire fence fd (-1 = ready), owned
/// by the caller.
pub type PfnDequeueBuffer = unsafe extern "C" fn(
    window: *mut ANativeWindow,
    buffer: *mut *mut ANativeWindowBuffer,
    fence_fd: *mut c_int,
) -> c_int;
/// `ANativeWindow::queueBuffer` / `cancelBuffer`: the window takes ownership of `fence_fd`, even
/// on failure.
pub type PfnQueueBuffer = unsafe extern "C" fn(
    window: *mut ANativeWindow,
    buffer: *mut ANativeWindowBuffer,
    fence_fd: c_int,
) -> c_int;

/// `struct ANativeWindow`.
#[repr(C)]
#[derive(Clone, Copy, Debug)]
pub struct ANativeWindow {
    pub common: AndroidNativeBase,
    pub flags: u32,
    pub min_swap_interval: c_int,
    pub max_swap_interval: c_int,
    pub xdpi: f32,
    pub ydpi: f32,
    pub oem: [isize; 4],
    pub set_swap_interval: Option<PfnSetSwapInterval>,
    pub dequeue_buffer_deprecated: Option<PfnDequeueBufferDeprecated>,
    pub lock_buffer_deprecated: Option<PfnBufferOpDeprecated>,
    pub queue_buffer_deprecated: Option<PfnBufferOpDeprecated>,
    pub query: Option<PfnQuery>,
    pub perform: Option<PfnPerform>,
    pub cancel_buffer_deprecated: Option<PfnBufferOpDeprecated>,
    pub dequeue_buffer: Option<PfnDequeueBuffer>,
    pub queue_buffer: Option<PfnQueueBuffer>,
    pub cancel_buffer: Option<PfnQueueBuffer>,
}

// Attributes for `query()`.
pub const NATIVE_WINDOW_WIDTH: c_int = 0;
pub const NATIVE_WINDOW_HEIGHT: c_int = 1;
pub const NATIVE_WINDOW_FORMAT: c_int = 2;
pub const NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS: c_int = 3;
pub const NATIVE_WINDOW_QUEUES_TO_WINDOW_COMPOSER: c_int = 4;
pub const NATIVE_WINDOW_CONCRETE_TYPE: c_int = 5;
pub const NATIVE_WINDOW_DEFAULT_WIDTH: c_int = 6;
pub const NATIVE_WINDOW_DEFAULT_HEIGHT: c_int = 7;
pub const NATIVE_WINDOW_TRANSFORM_HINT: c_int = 8;
pub const NATIVE_WINDOW_CONSUMER_RUNNING_BEHIND: c_int = 9;
/// Deprecated: 32-bit; use `perform(NATIVE_WINDOW_GET_CONSUMER_USAGE64)`.
pub const NATIVE_WINDOW_CONSUMER_USAGE_BITS: c_int = 10;
pub const NATIVE_WINDOW_STICKY_TRANSFORM: c_int = 11;
pub const NATIVE_WINDOW_DEFAULT_DATASPACE: c_int = 12;
pub const NATIVE_WINDOW_BUFFER_AGE: c_int = 13;
pub const NATIVE_WINDOW_LAST_DEQUEUE_DURATION: c_int = 14;
pub const NATIVE_WINDOW_LAST_QUEUE_DURATION: c_int = 15;
pub const NATIVE_WINDOW_LAYER_COUNT: c_int = 16;
pub const NATIVE_WINDOW_IS_VALID: c_int = 17;
pub const NATIVE_WINDOW_FRAME_TIMESTAMPS_SUPPORTS_PRESENT: c_int = 18;
pub const NATIVE_WINDOW_CONSUMER_IS_PROTECTED: c_int = 19;
pub const NATIVE_WINDOW_DATASPACE: c_int = 20;
pub const NATIVE_WINDOW_MAX_BUFFER_COUNT: c_int = 21;

// Operations for `perform()`. Values follow AOSP `system/window.h`; note that 18 is
// SET_SIDEBAND_STREAM, which shifts everything from SET_BUFFERS_DATASPACE (19) to
// GET_HDR_SUPPORT (29) by one compared with a list that omits it.
pub const NATIVE_WINDOW_SET_USAGE: c_int = 0;
pub const NATIVE_WINDOW_CONNECT: c_int = 1;
pub const NATIVE_WINDOW_DISCONNECT: c_int = 2;
pub const NATIVE_WINDOW_SET_CROP: c_int = 3;
pub const NATIVE_WINDOW_SET_BUFFER_COUNT: c_int = 4;
pub const NATIVE_WINDOW_SET_BUFFERS_GEOMETRY: c_int = 5;
pub const NATIVE_WINDOW_SET_BUFFERS_TRANSFORM: c_int = 6;
pub const NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP: c_int = 7;
pub const NATIVE_WINDOW_SET_BUFFERS_DIMENSIONS: c_int = 8;
pub const NATIVE_WINDOW_SET_BUFFERS_FORMAT: c_int = 9;
pub const NATIVE_WINDOW_SET_SCALING_MODE: c_int = 10;
pub const NATIVE_WINDOW_LOCK: c_int = 11;
pub const NATIVE_WINDOW_UNLOCK_AND_POST: c_int = 12;
pub const NATIVE_WINDOW_API_CONNECT: c_int = 13;
pub const NATIVE_WINDOW_API_DISCONNECT: c_int = 14;
pub const NATIVE_WINDOW_SET_BUFFERS_USER_DIMENSIONS: c_int = 15;
pub const NATIVE_WINDOW_SET_POST_TRANSFORM_CROP: c_int = 16;
pub const NATIVE_WINDOW_SET_BUFFERS_STICKY_TRANSFORM: c_int = 17;
pub const NATIVE_WINDOW_SET_SIDEBAND_STREAM: c_int = 18;
pub const NATIVE_WINDOW_SET_BUFFERS_DATASPACE: c_int = 19;
pub const NATIVE_WINDOW_SET_SURFACE_DAMAGE: c_int = 20;
pub const NATIVE_WINDOW_SET_SHARED_BUFFER_MODE: c_int = 21;
pub const NATIVE_WINDOW_SET_AUTO_REFRESH: c_int = 22;
pub const NATIVE_WINDOW_GET_REFRESH_CYCLE_DURATION: c_int = 23;
pub const NATIVE_WINDOW_GET_NEXT_FRAME_ID: c_int = 24;
pub const NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS: c_int = 25;
pub const NATIVE_WINDOW_GET_COMPOSITOR_TIMING: c_int = 26;
pub const NATIVE_WINDOW_GET_FRAME_TIMESTAMPS: c_int = 27;
/// Removed from recent AOSP (the number stays reserved).
pub const NATIVE_WINDOW_GET_WIDE_COLOR_SUPPORT: c_int = 28;
/// Removed from recent AOSP (the number stays reserved).
pub const NATIVE_WINDOW_GET_HDR_SUPPORT: c_int = 29;
pub const NATIVE_WINDOW_SET_USAGE64: c_int = 30;
pub const NATIVE_WINDOW_GET_CONSUMER_USAGE64: c_int = 31;
pub const NATIVE_WINDOW_SET_BUFFERS_SMPTE2086_METADATA: c_int = 32;
pub const NATIVE_WINDOW_SET_BUFFERS_CTA861_3_METADATA: c_int = 33;
pub const NATIVE_WINDOW_SET_BUFFERS_HDR10_PLUS_METADATA: c_int = 34;
pub const NATIVE_WINDOW_SET_AUTO_PREROTATION: c_int = 35;
pub const NATIVE_WINDOW_GET_LAST_DEQUEUE_START: c_int = 36;
pub const NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT: c_int = 37;
pub const NATIVE_WINDOW_GET_LAST_DEQUEUE_DURATION: c_int = 38;
pub const NATIVE_WINDOW_GET_LAST_QUEUE_DURATION: c_int = 39;
pub const NATIVE_WINDOW_SET_FRAME_RATE: c_int = 40;
pub const NATIVE_WINDOW_SET_CANCEL_INTERCEPTOR: c_int = 41;
pub const NATIVE_WINDOW_SET_DEQUEUE_INTERCEPTOR: c_int = 42;
pub const NATIVE_WINDOW_SET_PERFORM_INTERCEPTOR: c_int = 43;
pub const NATIVE_WINDOW_SET_QUEUE_INTERCEPTOR: c_int = 44;
pub const NATIVE_WINDOW_ALLOCATE_BUFFERS: c_int = 45;
pub const NATIVE_WINDOW_GET_LAST_QUEUED_BUFFER: c_int = 46;
pub const NATIVE_WINDOW_SET_QUERY_INTERCEPTOR: c_int = 47;
pub const NATIVE_WINDOW_SET_FRAME_TIMELINE_INFO: c_int = 48;
pub const NATIVE_WINDOW_GET_LAST_QUEUED_BUFFER2: c_int = 49;
pub const NATIVE_WINDOW_SET_BUFFERS_ADDITIONAL_OPTIONS: c_int = 50;

// Parameter of NATIVE_WINDOW_[API_][DIS]CONNECT.
pub const NATIVE_WINDOW_API_EGL: c_int = 1;
pub const NATIVE_WINDOW_API_CPU: c_int = 2;
pub const NATIVE_WINDOW_API_MEDIA: c_int = 3;
pub const NATIVE_WINDOW_API_CAMERA: c_int = 4;

// Parameter of NATIVE_WINDOW_SET_BUFFERS_TRANSFORM and result of NATIVE_WINDOW_TRANSFORM_HINT
// (the HAL_TRANSFORM_* values).
pub const NATIVE_WINDOW_TRANSFORM_FLIP_H: c_int = 0x01;
pub const NATIVE_WINDOW_TRANSFORM_FLIP_V: c_int = 0x02;
/// Applied after the flips.
pub const NATIVE_WINDOW_TRANSFORM_ROT_90: c_int = 0x04;
pub const NATIVE_WINDOW_TRANSFORM_ROT_180: c_int = 0x03;
pub const NATIVE_WINDOW_TRANSFORM_ROT_270: c_int = 0x07;
pub const NATIVE_WINDOW_TRANSFORM_INVERSE_DISPLAY: c_int = 0x08;

// Parameter of NATIVE_WINDOW_SET_SCALING_MODE.
pub const NATIVE_WINDOW_SCALING_MODE_FREEZE: c_int = 0;
pub const NATIVE_WINDOW_SCALING_MODE_SCALE_TO_WINDOW: c_int = 1;
pub const NATIVE_WINDOW_SCALING_MODE_SCALE_CROP: c_int = 2;
pub const NATIVE_WINDOW_SCALING_MODE_NO_SCALE_CROP: c_int = 3;

// Results of NATIVE_WINDOW_CONCRETE_TYPE.
pub const NATIVE_WINDOW_FRAMEBUFFER: c_int = 0;
pub const NATIVE_WINDOW_SURFACE: c_int = 1;

/// `NATIVE_WINDOW_TIMESTAMP_AUTO` for NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP.
pub const NATIVE_WINDOW_TIMESTAMP_AUTO: i64 = i64::MIN;
/// `NATIVE_WINDOW_TIMESTAMP_PENDING` from NATIVE_WINDOW_GET_FRAME_TIMESTAMPS.
pub const NATIVE_WINDOW_TIMESTAMP_PENDING: i64 = -2;
/// `NATIVE_WINDOW_TIMESTAMP_INVALID` from NATIVE_WINDOW_GET_FRAME_TIMESTAMPS.
pub const NATIVE_WINDOW_TIMESTAMP_INVALID: i64 = -1;

// ---------------------------------------------------------------------------------------------
// HAL pixel formats (android.hardware.graphics.common PixelFormat / system/graphics-base.h)

pub const HAL_PIXEL_FORMAT_RGBA_8888: c_int = 1;
pub const HAL_PIXEL_FORMAT_RGBX_8888: c_int = 2;
pub const HAL_PIXEL_FORMAT_RGB_888: c_int = 3;
pub const HAL_PIXEL_FORMAT_RGB_565: c_int = 4;
pub const HAL_PIXEL_FORMAT_BGRA_8888: c_int = 5;
pub const HAL_PIXEL_FORMAT_YCBCR_422_SP: c_int = 0x10;
pub const HAL_PIXEL_FORMAT_YCRCB_420_SP: c_int = 0x11;
pub const HAL_PIXEL_FORMAT_YCBCR_422_I: c_int = 0x14;
pub const HAL_PIXEL_FORMAT_RGBA_FP16: c_int = 0x16;
pub const HAL_PIXEL_FORMAT_RAW16: c_int = 0x20;
pub const HAL_PIXEL_FORMAT_BLOB: c_int = 0x21;
pub const HAL_PIXEL_FORMAT_IMPLEMENTATION_DEFINED: c_int = 0x22;
pub const HAL_PIXEL_FORMAT_YCBCR_420_888: c_int = 0x23;
pub const HAL_PIXEL_FORMAT_RAW_OPAQUE: c_int = 0x24;
pub const HAL_PIXEL_FORMAT_RAW10: c_int = 0x25;
pub const HAL_PIXEL_FORMAT_RAW12: c_int = 0x26;
pub const HAL_PIXEL_FORMAT_RGBA_1010102: c_int = 0x2B;
pub const HAL_PIXEL_FORMAT_DEPTH_16: c_int = 0x30;
pub const HAL_PIXEL_FORMAT_DEPTH_24: c_int = 0x31;
pub const HAL_PIXEL_FORMAT_DEPTH_24_STENCIL_8: c_int = 0x32;
pub const HAL_PIXEL_FORMAT_DEPTH_32F: c_int = 0x33;
pub const HAL_PIXEL_FORMAT_DEPTH_32F_STENCIL_8: c_int = 0x34;
pub const HAL_PIXEL_FORMAT_STENCIL_8: c_int = 0x35;
pub const HAL_PIXEL_FORMAT_YCBCR_P010: c_int = 0x36;
pub const HAL_PIXEL_FORMAT_HSV_888: c_int = 0x37;
pub const HAL_PIXEL_FORMAT_R_8: c_int = 0x38;
pub const HAL_PIXEL_FORMAT_R_16_UINT: c_int = 0x39;
pub const HAL_PIXEL_FORMAT_RG_1616_UINT: c_int = 0x3A;
pub const HAL_PIXEL_FORMAT_RGBA_10101010: c_int = 0x3B;
pub const HAL_PIXEL_FORMAT_Y8: c_int = 0x2020_3859;
pub const HAL_PIXEL_FORMAT_Y16: c_int = 0x2036_3159;
pub const HAL_PIXEL_FORMAT_YV12: c_int = 0x3231_5659;

// ---------------------------------------------------------------------------------------------
// Dataspaces (android.hardware.graphics.common Dataspace / system/graphics-base.h)

pub const HAL_DATASPACE_UNKNOWN: c_int = 0;
pub const HAL_DATASPACE_ARBITRARY: c_int = 1;

pub const HAL_DATASPACE_STANDARD_SHIFT: c_int = 16;
pub const HAL_DATASPACE_STANDARD_BT709: c_int = 1 << 16;
pub const HAL_DATASPACE_STANDARD_BT601_625: c_int = 2 << 16;
pub const HAL_DATASPACE_STANDARD_BT601_625_UNADJUSTED: c_int = 3 << 16;
pub const HAL_DATASPACE_STANDARD_BT601_525: c_int = 4 << 16;
pub const HAL_DATASPACE_STANDARD_BT601_525_UNADJUSTED: c_int = 5 << 16;
pub const HAL_DATASPACE_STANDARD_BT2020: c_int = 6 << 16;
pub const HAL_DATASPACE_STANDARD_BT2020_CONSTANT_LUMINANCE: c_int = 7 << 16;
pub const HAL_DATASPACE_STANDARD_BT470M: c_int = 8 << 16;
pub const HAL_DATASPACE_STANDARD_FILM: c_int = 9 << 16;
pub const HAL_DATASPACE_STANDARD_DCI_P3: c_int = 10 << 16;
pub const HAL_DATASPACE_STANDARD_ADOBE_RGB: c_int = 11 << 16;

pub const HAL_DATASPACE_TRANSFER_SHIFT: c_int = 22;
pub const HAL_DATASPACE_TRANSFER_LINEAR: c_int = 1 << 22;
pub const HAL_DATASPACE_TRANSFER_SRGB: c_int = 2 << 22;
pub const HAL_DATASPACE_TRANSFER_SMPTE_170M: c_int = 3 << 22;
pub const HAL_DATASPACE_TRANSFER_GAMMA2_2: c_int = 4 << 22;
pub const HAL_DATASPACE_TRANSFER_GAMMA2_6: c_int = 5 << 22;
pub const HAL_DATASPACE_TRANSFER_GAMMA2_8: c_int = 6 << 22;
pub const HAL_DATASPACE_TRANSFER_ST2084: c_int = 7 << 22;
pub const HAL_DATASPACE_TRANSFER_HLG: c_int = 8 << 22;

pub const HAL_DATASPACE_RANGE_SHIFT: c_int = 27;
pub const HAL_DATASPACE_RANGE_FULL: c_int = 1 << 27;
pub const HAL_DATASPACE_RANGE_LIMITED: c_int = 2 << 27;
pub const HAL_DATASPACE_RANGE_EXTENDED: c_int = 3 << 27;

/// `HAL_DATASPACE_V0_SRGB_LINEAR`.
pub const HAL_DATASPACE_V0_SRGB_LINEAR: c_int =
    HAL_DATASPACE_STANDARD_BT709 | HAL_DATASPACE_TRANSFER_LINEAR | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_V0_SCRGB_LINEAR` (extended-range linear sRGB).
pub const HAL_DATASPACE_V0_SCRGB_LINEAR: c_int =
    HAL_DATASPACE_STANDARD_BT709 | HAL_DATASPACE_TRANSFER_LINEAR | HAL_DATASPACE_RANGE_EXTENDED;
/// `HAL_DATASPACE_V0_SRGB`.
pub const HAL_DATASPACE_V0_SRGB: c_int =
    HAL_DATASPACE_STANDARD_BT709 | HAL_DATASPACE_TRANSFER_SRGB | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_V0_SCRGB` (extended-range sRGB).
pub const HAL_DATASPACE_V0_SCRGB: c_int =
    HAL_DATASPACE_STANDARD_BT709 | HAL_DATASPACE_TRANSFER_SRGB | HAL_DATASPACE_RANGE_EXTENDED;
/// `HAL_DATASPACE_DISPLAY_P3`.
pub const HAL_DATASPACE_DISPLAY_P3: c_int =
    HAL_DATASPACE_STANDARD_DCI_P3 | HAL_DATASPACE_TRANSFER_SRGB | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_DISPLAY_P3_LINEAR`.
pub const HAL_DATASPACE_DISPLAY_P3_LINEAR: c_int =
    HAL_DATASPACE_STANDARD_DCI_P3 | HAL_DATASPACE_TRANSFER_LINEAR | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_DCI_P3` (gamma 2.6).
pub const HAL_DATASPACE_DCI_P3: c_int =
    HAL_DATASPACE_STANDARD_DCI_P3 | HAL_DATASPACE_TRANSFER_GAMMA2_6 | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_V0_BT709`.
pub const HAL_DATASPACE_V0_BT709: c_int =
    HAL_DATASPACE_STANDARD_BT709 | HAL_DATASPACE_TRANSFER_SMPTE_170M | HAL_DATASPACE_RANGE_LIMITED;
/// `HAL_DATASPACE_BT2020_LINEAR`.
pub const HAL_DATASPACE_BT2020_LINEAR: c_int =
    HAL_DATASPACE_STANDARD_BT2020 | HAL_DATASPACE_TRANSFER_LINEAR | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_BT2020_PQ` (HDR10).
pub const HAL_DATASPACE_BT2020_PQ: c_int =
    HAL_DATASPACE_STANDARD_BT2020 | HAL_DATASPACE_TRANSFER_ST2084 | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_BT2020_HLG`.
pub const HAL_DATASPACE_BT2020_HLG: c_int =
    HAL_DATASPACE_STANDARD_BT2020 | HAL_DATASPACE_TRANSFER_HLG | HAL_DATASPACE_RANGE_FULL;
/// `HAL_DATASPACE_ADOBE_RGB` (gamma 2.2).
pub const HAL_DATASPACE_ADOBE_RGB: c_int =
    HAL_DATASPACE_STANDARD_ADOBE_RGB | HAL_DATASPACE_TRANSFER_GAMMA2_2 | HAL_DATASPACE_RANGE_FULL;

// ---------------------------------------------------------------------------------------------
// Buffer usage

/// 64-bit buffer usage bits (`android.hardware.graphics.common.BufferUsage`, the values of
/// `ANativeWindowBuffer::usage`). The low 32 bits coincide with gralloc0's `GRALLOC_USAGE_*`
/// (`CPU_READ_OFTEN` = `SW_READ_OFTEN`, `GPU_TEXTURE` = `HW_TEXTURE`, `COMPOSER_OVERLAY` =
/// `HW_COMPOSER`, …), which is why `usage_deprecated` can simply be truncated.
pub mod buffer_usage {
    pub const CPU_READ_MASK: u64 = 0xF;
    pub const CPU_READ_NEVER: u64 = 0;
    pub const CPU_READ_RARELY: u64 = 2;
    pub const CPU_READ_OFTEN: u64 = 3;
    pub const CPU_WRITE_MASK: u64 = 0xF << 4;
    pub const CPU_WRITE_NEVER: u64 = 0;
    pub const CPU_WRITE_RARELY: u64 = 2 << 4;
    pub const CPU_WRITE_OFTEN: u64 = 3 << 4;
    pub const GPU_TEXTURE: u64 = 1 << 8;
    pub const GPU_RENDER_TARGET: u64 = 1 << 9;
    pub const COMPOSER_OVERLAY: u64 = 1 << 11;
    pub const COMPOSER_CLIENT_TARGET: u64 = 1 << 12;
    pub const PROTECTED: u64 = 1 << 14;
    pub const COMPOSER_CURSOR: u64 = 1 << 15;
    pub const VIDEO_ENCODER: u64 = 1 << 16;
    pub const CAMERA_OUTPUT: u64 = 1 << 17;
    pub const CAMERA_INPUT: u64 = 1 << 18;
    pub const RENDERSCRIPT: u64 = 1 << 20;
    pub const VIDEO_DECODER: u64 = 1 << 22;
    pub const SENSOR_DIRECT_DATA: u64 = 1 << 23;
    pub const GPU_DATA_BUFFER: u64 = 1 << 24;
    pub const GPU_CUBE_MAP: u64 = 1 << 25;
    pub const GPU_MIPMAP_COMPLETE: u64 = 1 << 26;
    pub const HW_IMAGE_ENCODER: u64 = 1 << 27;
    pub const VENDOR_MASK: u64 = 0xF << 28;
    pub const FRONT_BUFFER: u64 = 1 << 32;
    pub const VENDOR_MASK_HI: u64 = 0xFFFF << 48;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::offset_of;

    #[test]
    fn magics_are_big_endian_char_codes() {
        assert_eq!(ANDROID_NATIVE_WINDOW_MAGIC, 0x5F77_6E64);
        assert_eq!(ANDROID_NATIVE_BUFFER_MAGIC, 0x5F62_6672);
    }

    #[test]
    fn derived_dataspaces() {
        assert_eq!(HAL_DATASPACE_V0_SRGB, 0x0881_0000);
        assert_eq!(HAL_DATASPACE_V0_SRGB_LINEAR, 0x0841_0000);
        assert_eq!(HAL_DATASPACE_V0_SCRGB_LINEAR, 0x1841_0000);
        assert_eq!(HAL_DATASPACE_DISPLAY_P3, 0x088A_0000);
        assert_eq!(HAL_DATASPACE_BT2020_PQ, 0x09C6_0000);
    }

    #[test]
    fn native_handle_accessors_split_fds_and_ints() {
        // Header plus 2 fds and 3 ints, laid out exactly as libcutils allocates it.
        let storage: [c_int; 8] = [NATIVE_HANDLE_VERSION, 2, 3, 10, 11, 20, 21, 22];
        let h = storage.as_ptr().cast::<NativeHandle>();
        // SAFETY: `storage` holds the header and 5 data ints and outlives the slices.
        let (fds, ints) = unsafe { (NativeHandle::fds(h), NativeHandle::ints(h)) };
        assert_eq!(fds, &[10, 11]);
        assert_eq!(ints, &[20, 21, 22]);
    }

    #[cfg(target_pointer_width = "64")]
    #[test]
    fn lp64_layouts() {
        assert_eq!(size_of::<NativeHandle>(), 12);
        assert_eq!(NATIVE_HANDLE_VERSION, 12);
        assert_eq!(offset_of!(NativeHandle, data), 12);

        assert_eq!(size_of::<AndroidNativeBase>(), 56);
        assert_eq!(offset_of!(AndroidNativeBase, reserved), 8);
        assert_eq!(offset_of!(AndroidNativeBase, inc_ref), 40);
        assert_eq!(offset_of!(AndroidNativeBase, dec_ref), 48);

        assert_eq!(ANATIVEWINDOWBUFFER_RESERVED_PROC, 7);
        assert_eq!(size_of::<ANativeWindowBuffer>(), 168);
        assert_eq!(offset_of!(ANativeWindowBuffer, width), 56);
        assert_eq!(offset_of!(ANativeWindowBuffer, height), 60);
        assert_eq!(offset_of!(ANativeWindowBuffer, stride), 64);
        assert_eq!(offset_of!(ANativeWindowBuffer, format), 68);
        assert_eq!(offset_of!(ANativeWindowBuffer, usage_deprecated), 72);
        assert_eq!(offset_of!(ANativeWindowBuffer, layer_count), 80);
        assert_eq!(offset_of!(ANativeWindowBuffer, reserved), 88);
        assert_eq!(offset_of!(ANativeWindowBuffer, handle), 96);
        assert_eq!(offset_of!(ANativeWindowBuffer, usage), 104);
        assert_eq!(offset_of!(ANativeWindowBuffer, reserved_proc), 112);

        assert_eq!(size_of::<ANativeWindow>(), 192);
        assert_eq!(offset_of!(ANativeWindow, flags), 56);
        assert_eq!(offset_of!(ANativeWindow, min_swap_interval), 60);
        assert_eq!(offset_of!(ANativeWindow, max_swap_interval), 64);
        assert_eq!(offset_of!(ANativeWindow, xdpi), 68);
        assert_eq!(offset_of!(ANativeWindow, ydpi), 72);
        assert_eq!(offset_of!(ANativeWindow, oem), 80);
        assert_eq!(offset_of!(ANativeWindow, set_swap_interval), 112);
        assert_eq!(offset_of!(ANativeWindow, dequeue_buffer_deprecated), 120);
        assert_eq!(offset_of!(ANativeWindow, lock_buffer_deprecated), 128);
        assert_eq!(offset_of!(ANativeWindow, queue_buffer_deprecated), 136);
        assert_eq!(offset_of!(ANativeWindow, query), 144);
        assert_eq!(offset_of!(ANativeWindow, perform), 152);
        assert_eq!(offset_of!(ANativeWindow, cancel_buffer_deprecated), 160);
        assert_eq!(offset_of!(ANativeWindow, dequeue_buffer), 168);
        assert_eq!(offset_of!(ANativeWindow, queue_buffer), 176);
        assert_eq!(offset_of!(ANativeWindow, cancel_buffer), 184);
    }

    #[cfg(target_pointer_width = "32")]
    #[test]
    fn ilp32_layouts() {
        assert_eq!(ANATIVEWINDOWBUFFER_RESERVED_PROC, 6);
        assert_eq!(size_of::<AndroidNativeBase>(), 32);
        assert_eq!(std::mem::offset_of!(ANativeWindowBuffer, handle), 60);
        assert_eq!(size_of::<ANativeWindowBuffer>(), 96);
        assert_eq!(size_of::<ANativeWindow>(), 108);
    }
}
