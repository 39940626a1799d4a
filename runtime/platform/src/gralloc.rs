//! Gralloc-like buffers on a Linux host, so the Android WSI path (`ANativeWindow` buffers reaching
//! the driver as `VkNativeBufferANDROID::handle`) can run without Android.
//!
//! A buffer is a sealed memfd plus a real heap-allocated `native_handle_t` describing it (one fd;
//! ints for magic, size, stride, format, usage). The driver side parses such a handle back with
//! [`BufferDesc::from_native_handle`] or takes its own reference with [`Buffer::import`]; because
//! handles arrive through C, parsing validates every field and never reads past what the header
//! claims once that header is known to be ours.

use std::ffi::c_int;
use std::mem::size_of;
use std::os::fd::{AsFd, AsRawFd, BorrowedFd, OwnedFd, RawFd};
use std::ptr::{self, NonNull};

use ash::vk;
use rustix::fs::{MemfdFlags, SealFlags};
use rustix::io::Errno;
use rustix::mm::{MapFlags, ProtFlags};
use vkgen_abi::native_window::buffer_usage;
use vkgen_abi::native_window::{
    android_native_make_constant, ANativeWindowBuffer, NativeHandle,
    ANATIVEWINDOWBUFFER_RESERVED_PROC, ANDROID_NATIVE_BUFFER_MAGIC, HAL_PIXEL_FORMAT_BGRA_8888,
    HAL_PIXEL_FORMAT_BLOB, HAL_PIXEL_FORMAT_RGBA_10101010, HAL_PIXEL_FORMAT_RGBA_1010102,
    HAL_PIXEL_FORMAT_RGBA_8888, HAL_PIXEL_FORMAT_RGBA_FP16, HAL_PIXEL_FORMAT_RGBX_8888,
    HAL_PIXEL_FORMAT_RGB_565, HAL_PIXEL_FORMAT_R_8, HAL_PIXEL_FORMAT_YCBCR_420_888,
    HAL_PIXEL_FORMAT_YCRCB_420_SP, HAL_PIXEL_FORMAT_YV12, NATIVE_HANDLE_VERSION,
};

/// First int of every handle this module creates: tells our handles from another gralloc's.
pub const HANDLE_MAGIC: c_int = android_native_make_constant(*b"vkgb");
/// Number of ints in our `native_handle_t` (after its single fd).
pub const HANDLE_NUM_INTS: usize = 11;
/// Largest width or height [`Allocator::allocate`] accepts (common `maxImageDimension2D`).
pub const MAX_DIMENSION: u32 = 1 << 15;
/// Rows are padded to a multiple of this many bytes, as GPU allocators commonly require.
pub const ROW_ALIGNMENT: u64 = 64;
/// Luma rows of YV12 buffers are padded to this, so each chroma row (half as long) still meets
/// [`ROW_ALIGNMENT`] and every plane starts [`ROW_ALIGNMENT`]-aligned. (NV12/NV21 chroma rows
/// are as long as luma rows: [`ROW_ALIGNMENT`] serves.)
pub const YV12_ROW_ALIGNMENT: u64 = 2 * ROW_ALIGNMENT;
/// Largest `BLOB` buffer (bytes): `width` is an `int` in `ANativeWindowBuffer`.
pub const MAX_BLOB_SIZE: u32 = i32::MAX as u32;

const MEMFD_NAME: &str = "vkgen-gralloc";

/// Why a gralloc operation failed.
#[derive(Debug, thiserror::Error)]
pub enum GrallocError {
    #[error("unsupported HAL pixel format {0:#x}")]
    UnsupportedFormat(c_int),
    #[error("invalid buffer dimensions {width}x{height} (1..={MAX_DIMENSION} each; BLOB: Nx1)")]
    InvalidDimensions { width: u32, height: u32 },
    #[error("buffer size overflows")]
    SizeOverflow,
    #[error("memfd_create failed: {0}")]
    Memfd(#[source] Errno),
    #[error("sizing the buffer memfd failed: {0}")]
    Resize(#[source] Errno),
    #[error("sealing the buffer memfd failed: {0}")]
    Seal(#[source] Errno),
    #[error("fstat on the buffer fd failed: {0}")]
    Stat(#[source] Errno),
    #[error("duplicating the buffer fd failed: {0}")]
    Dup(#[source] std::io::Error),
    #[error("mmap of the buffer failed: {0}")]
    Map(#[source] Errno),
    #[error("buffer fd is not sealed against shrinking, so a mapping of it could fault")]
    NotSealed,
    #[error("buffer fd holds {actual} bytes but the handle describes {expected}")]
    FdTooSmall { expected: u64, actual: u64 },
    #[error("invalid native handle: {0}")]
    InvalidHandle(&'static str),
}

/// Result alias of this module.
pub type Result<T, E = GrallocError> = std::result::Result<T, E>;

/// What a driver was doing with a gralloc buffer (an `AHardwareBuffer` is one) when it failed:
/// the failure's `VkResult` depends on it (see [`map_gralloc_err`]).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum BufferOp {
    /// Taking a buffer the application or the loader handed over (`VkNativeBufferANDROID`,
    /// `VkImportAndroidHardwareBufferInfoANDROID`, a properties query), or mapping it.
    Import,
    /// Allocating a buffer to export (`VkExportMemoryAllocateInfo` with the handle type).
    Allocate,
}

/// A gralloc or `AHardwareBuffer` failure ([`GrallocError`],
/// [`HardwareBufferError`](crate::hardware_buffer::HardwareBufferError)) as a `VkResult`, the
/// one mapper of this source; logged here with `what` (the operation that failed):
///
/// * [`BufferOp::Import`] → `VK_ERROR_INVALID_EXTERNAL_HANDLE`: the handle is not a buffer
///   this runtime can use, whatever the cause;
/// * [`BufferOp::Allocate`] → `VK_ERROR_OUT_OF_DEVICE_MEMORY`: no buffer could be made for the
///   export (the memory it would live in is what ran out, or the description is one the
///   allocator refuses).
pub fn map_gralloc_err(what: &str, err: &dyn std::fmt::Display, op: BufferOp) -> vk::Result {
    let result = match op {
        BufferOp::Import => vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
        BufferOp::Allocate => vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
    };
    log::log!(vkgen_abi::error::level(result), "{result:?}: {what}: {err}");
    result
}

/// The HAL pixel formats this allocator supports.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum PixelFormat {
    Rgba8888,
    Rgbx8888,
    Bgra8888,
    Rgb565,
    RgbaFp16,
    Rgba1010102,
    /// `HAL_PIXEL_FORMAT_RGBA_10101010` (`AHARDWAREBUFFER_FORMAT_R10G10B10A10_UNORM`): four
    /// 16-bit little-endian words, each component in the top 10 bits (Vulkan's
    /// `R10X6G10X6B10X6A10X6_UNORM_4PACK16`).
    Rgba10101010,
    R8,
    /// `HAL_PIXEL_FORMAT_BLOB`: `width` bytes of untyped data, `height` 1.
    Blob,
    /// `HAL_PIXEL_FORMAT_YCBCR_420_888` (`AHARDWAREBUFFER_FORMAT_Y8Cb8Cr8_420`), laid out as
    /// NV12: the Y plane, then one plane of interleaved Cb/Cr samples.
    Nv12,
    /// `HAL_PIXEL_FORMAT_YCrCb_420_SP`: NV21, as NV12 with Cr before Cb.
    Nv21,
    /// `HAL_PIXEL_FORMAT_YV12`: the Y plane, then the Cr plane, then the Cb plane.
    Yv12,
}

/// One plane of a buffer, as `AHardwareBuffer_lockPlanes` describes it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct PlaneLayout {
    /// Byte offset of the plane's first sample from the buffer's first byte (`BufferDesc::offset`).
    pub offset: u64,
    /// Bytes between two samples of this plane in a row (2 for interleaved chroma).
    pub pixel_stride: u32,
    /// Bytes between two rows.
    pub row_stride: u64,
    pub width: u32,
    pub height: u32,
}

impl PixelFormat {
    /// The colour formats (one plane of whole pixels): what a window may be configured with.
    pub const ALL: [Self; 8] = [
        Self::Rgba8888,
        Self::Rgbx8888,
        Self::Bgra8888,
        Self::Rgb565,
        Self::RgbaFp16,
        Self::Rgba1010102,
        Self::Rgba10101010,
        Self::R8,
    ];
    /// The 4:2:0 formats.
    pub const YUV: [Self; 3] = [Self::Nv12, Self::Nv21, Self::Yv12];

    /// From a `HAL_PIXEL_FORMAT_*` value.
    pub fn from_hal(format: c_int) -> Result<Self> {
        Ok(match format {
            HAL_PIXEL_FORMAT_RGBA_8888 => Self::Rgba8888,
            HAL_PIXEL_FORMAT_RGBX_8888 => Self::Rgbx8888,
            HAL_PIXEL_FORMAT_BGRA_8888 => Self::Bgra8888,
            HAL_PIXEL_FORMAT_RGB_565 => Self::Rgb565,
            HAL_PIXEL_FORMAT_RGBA_FP16 => Self::RgbaFp16,
            HAL_PIXEL_FORMAT_RGBA_1010102 => Self::Rgba1010102,
            HAL_PIXEL_FORMAT_RGBA_10101010 => Self::Rgba10101010,
            HAL_PIXEL_FORMAT_R_8 => Self::R8,
            HAL_PIXEL_FORMAT_BLOB => Self::Blob,
            HAL_PIXEL_FORMAT_YCBCR_420_888 => Self::Nv12,
            HAL_PIXEL_FORMAT_YCRCB_420_SP => Self::Nv21,
            HAL_PIXEL_FORMAT_YV12 => Self::Yv12,
            other => return Err(GrallocError::UnsupportedFormat(other)),
        })
    }

    /// The `HAL_PIXEL_FORMAT_*` value.
    pub const fn hal(self) -> c_int {
        match self {
            Self::Rgba8888 => HAL_PIXEL_FORMAT_RGBA_8888,
            Self::Rgbx8888 => HAL_PIXEL_FORMAT_RGBX_8888,
            Self::Bgra8888 => HAL_PIXEL_FORMAT_BGRA_8888,
            Self::Rgb565 => HAL_PIXEL_FORMAT_RGB_565,
            Self::RgbaFp16 => HAL_PIXEL_FORMAT_RGBA_FP16,
            Self::Rgba1010102 => HAL_PIXEL_FORMAT_RGBA_1010102,
            Self::Rgba10101010 => HAL_PIXEL_FORMAT_RGBA_10101010,
            Self::R8 => HAL_PIXEL_FORMAT_R_8,
            Self::Blob => HAL_PIXEL_FORMAT_BLOB,
            Self::Nv12 => HAL_PIXEL_FORMAT_YCBCR_420_888,
            Self::Nv21 => HAL_PIXEL_FORMAT_YCRCB_420_SP,
            Self::Yv12 => HAL_PIXEL_FORMAT_YV12,
        }
    }

    /// Whether this is one of the 4:2:0 formats.
    pub const fn is_yuv(self) -> bool {
        matches!(self, Self::Nv12 | Self::Nv21 | Self::Yv12)
    }

    /// Bytes per pixel of the (first) plane; always a power of two, so a padded row is a whole
    /// number of pixels.
    pub const fn bytes_per_pixel(self) -> u32 {
        match self {
            Self::R8 | Self::Blob | Self::Nv12 | Self::Nv21 | Self::Yv12 => 1,
            Self::Rgb565 => 2,
            Self::Rgba8888 | Self::Rgbx8888 | Self::Bgra8888 | Self::Rgba1010102 => 4,
            Self::RgbaFp16 | Self::Rgba10101010 => 8,
        }
    }

    const fn row_alignment(self) -> u64 {
        match self {
            Self::Blob => 1,
            Self::Yv12 => YV12_ROW_ALIGNMENT,
            _ => ROW_ALIGNMENT,
        }
    }

    /// The Vulkan format with the same memory layout, as AOSP's swapchain and Android's
    /// `AHardwareBuffer` format table map them (RGBX reads as RGBA; the X channel is undefined).
    /// `UNDEFINED` for `BLOB` (not an image) and NV21 (no Vulkan name: an external format).
    pub const fn vk_format(self) -> vk::Format {
        match self {
            Self::Rgba8888 | Self::Rgbx8888 => vk::Format::R8G8B8A8_UNORM,
            Self::Bgra8888 => vk::Format::B8G8R8A8_UNORM,
            Self::Rgb565 => vk::Format::R5G6B5_UNORM_PACK16,
            Self::RgbaFp16 => vk::Format::R16G16B16A16_SFLOAT,
            Self::Rgba1010102 => vk::Format::A2B10G10R10_UNORM_PACK32,
            Self::Rgba10101010 => vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16,
            Self::R8 => vk::Format::R8_UNORM,
            Self::Nv12 => vk::Format::G8_B8R8_2PLANE_420_UNORM,
            Self::Yv12 => vk::Format::G8_B8_R8_3PLANE_420_UNORM,
            Self::Blob | Self::Nv21 => vk::Format::UNDEFINED,
        }
    }

    /// The buffer format a swapchain (or exported) image of `format` is allocated with; SRGB
    /// formats share their UNORM twin's buffer format (the encoding is a view property).
    pub fn from_vk(format: vk::Format) -> Option<Self> {
        Some(match format {
            vk::Format::R8G8B8A8_UNORM | vk::Format::R8G8B8A8_SRGB => Self::Rgba8888,
            vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB => Self::Bgra8888,
            vk::Format::R5G6B5_UNORM_PACK16 => Self::Rgb565,
            vk::Format::R16G16B16A16_SFLOAT => Self::RgbaFp16,
            vk::Format::A2B10G10R10_UNORM_PACK32 => Self::Rgba1010102,
            vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16 => Self::Rgba10101010,
            vk::Format::R8_UNORM => Self::R8,
            vk::Format::G8_B8R8_2PLANE_420_UNORM => Self::Nv12,
            vk::Format::G8_B8_R8_3PLANE_420_UNORM => Self::Yv12,
            _ => return None,
        })
    }
}

/// Bytes per pixel of a `HAL_PIXEL_FORMAT_*`.
pub fn bytes_per_pixel(format: c_int) -> Result<u32> {
    PixelFormat::from_hal(format).map(PixelFormat::bytes_per_pixel)
}

/// The Vulkan format of a `HAL_PIXEL_FORMAT_*`.
pub fn vk_format(format: c_int) -> Result<vk::Format> {
    PixelFormat::from_hal(format).map(PixelFormat::vk_format)
}

/// What a buffer's native handle says about it.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct BufferDesc {
    pub width: u32,
    pub height: u32,
    /// Row pitch in pixels.
    pub stride: u32,
    pub format: PixelFormat,
    /// `buffer_usage` bits.
    pub usage: u64,
    /// Bytes of pixel data (`stride * height * bpp`).
    pub size: u64,
    /// Byte offset of the first pixel in the fd.
    pub offset: u64,
}

impl BufferDesc {
    /// The layout [`Allocator::allocate`] uses: rows padded to [`ROW_ALIGNMENT`] bytes
    /// ([`YV12_ROW_ALIGNMENT`] for YV12, none for `BLOB`), offset 0, planes back to back.
    pub fn new(width: u32, height: u32, format: PixelFormat, usage: u64) -> Result<Self> {
        check_dimensions(format, width, height)?;
        let bpp = u64::from(format.bytes_per_pixel());
        let row = (u64::from(width) * bpp).next_multiple_of(format.row_alignment());
        let stride = u32::try_from(row / bpp).map_err(|_| GrallocError::SizeOverflow)?;
        let mut desc = Self {
            width,
            height,
            stride,
            format,
            usage,
            size: 0,
            offset: 0,
        };
        desc.size = desc.planes_end()?;
        Ok(desc)
    }

    /// The planes (Y, Cb, Cr for the 4:2:0 formats, as `AHardwareBuffer_lockPlanes` orders
    /// them; one plane otherwise). Offsets are relative to [`BufferDesc::offset`].
    pub fn planes(&self) -> Vec<PlaneLayout> {
        let row = self.row_bytes();
        let luma = PlaneLayout {
            offset: 0,
            pixel_stride: self.format.bytes_per_pixel(),
            row_stride: row,
            width: self.width,
            height: self.height,
        };
        let (cw, ch) = (self.width.div_ceil(2), self.height.div_ceil(2));
        let y_size = row * u64::from(self.height);
        match self.format {
            PixelFormat::Nv12 | PixelFormat::Nv21 => {
                let chroma = |offset| PlaneLayout {
                    offset,
                    pixel_stride: 2,
                    row_stride: row,
                    width: cw,
                    height: ch,
                };
                let (cb, cr) = if self.format == PixelFormat::Nv12 {
                    (y_size, y_size + 1)
                } else {
                    (y_size + 1, y_size)
                };
                vec![luma, chroma(cb), chroma(cr)]
            }
            PixelFormat::Yv12 => {
                // Android's YV12: chroma rows are align(stride / 2, 16) bytes, Cr first.
                let c_row = (row / 2).next_multiple_of(16);
                let c_size = c_row * u64::from(ch);
                let chroma = |offset| PlaneLayout {
                    offset,
                    pixel_stride: 1,
                    row_stride: c_row,
                    width: cw,
                    height: ch,
                };
                vec![luma, chroma(y_size + c_size), chroma(y_size)]
            }
            _ => vec![luma],
        }
    }

    /// Bytes from [`BufferDesc::offset`] to the end of the last plane, rounded up to whole
    /// luma rows: what a mapping, or a LINEAR image of any plane bound at its offset, may touch.
    fn planes_end(&self) -> Result<u64> {
        let data_end = self.planes().iter().try_fold(0u64, |end, p| {
            let last_row = p.row_stride.checked_mul(u64::from(p.height - 1))?;
            let last_sample = u64::from(p.pixel_stride) * u64::from(p.width - 1) + 1;
            let plane_end = p.offset.checked_add(last_row)?.checked_add(last_sample)?;
            Some(end.max(plane_end))
        });
        data_end
            .and_then(|e| e.checked_next_multiple_of(self.row_bytes().max(1)))
            .ok_or(GrallocError::SizeOverflow)
    }

    /// Row pitch in bytes.
    pub fn row_bytes(&self) -> u64 {
        u64::from(self.stride) * u64::from(self.format.bytes_per_pixel())
    }

    /// `offset + size`: how large the fd must be.
    pub fn end(&self) -> Result<u64> {
        self.offset
            .checked_add(self.size)
            .ok_or(GrallocError::SizeOverflow)
    }

    /// Parses a handle created by [`Buffer::native_handle`] (in this or another process).
    ///
    /// # Safety
    /// `handle` must be null or point to a readable `native_handle_t` header. The trailing data is
    /// only read after the header has been checked to announce exactly our one fd and
    /// [`HANDLE_NUM_INTS`] ints, so it must be readable whenever the header says so.
    pub unsafe fn from_native_handle(handle: *const NativeHandle) -> Result<Self> {
        // SAFETY: `handle` is null or a readable header (this function's contract), and
        // `parse_handle` reads the trailing data only after the header announces it.
        unsafe { parse_handle(handle) }.map(|(desc, _fd)| desc)
    }

    fn validate(&self) -> Result<()> {
        check_dimensions(self.format, self.width, self.height)
            .map_err(|_| GrallocError::InvalidHandle("width or height out of range"))?;
        if self.stride < self.width {
            return Err(GrallocError::InvalidHandle("stride smaller than width"));
        }
        let needed = self
            .planes_end()
            .map_err(|_| GrallocError::InvalidHandle("stride * height overflows"))?;
        if self.size < needed {
            return Err(GrallocError::InvalidHandle(
                "size smaller than the planes need",
            ));
        }
        self.end()
            .map_err(|_| GrallocError::InvalidHandle("offset + size overflows"))?;
        Ok(())
    }

    fn to_ints(self) -> [c_int; HANDLE_NUM_INTS] {
        let (usage_lo, usage_hi) = split_u64(self.usage);
        let (size_lo, size_hi) = split_u64(self.size);
        let (offset_lo, offset_hi) = split_u64(self.offset);
        [
            HANDLE_MAGIC,
            u32_to_int(self.width),
            u32_to_int(self.height),
            u32_to_int(self.stride),
            self.format.hal(),
            usage_lo,
            usage_hi,
            size_lo,
            size_hi,
            offset_lo,
            offset_hi,
        ]
    }

    fn from_ints(ints: &[c_int; HANDLE_NUM_INTS]) -> Result<Self> {
        let [magic, width, height, stride, format, usage_lo, usage_hi, size_lo, size_hi, offset_lo, offset_hi] =
            *ints;
        if magic != HANDLE_MAGIC {
            return Err(GrallocError::InvalidHandle("not a vkgen gralloc handle"));
        }
        let dim = |v: c_int| {
            u32::try_from(v).map_err(|_| GrallocError::InvalidHandle("negative dimension"))
        };
        let desc = Self {
            width: dim(width)?,
            height: dim(height)?,
            stride: dim(stride)?,
            format: PixelFormat::from_hal(format)
                .map_err(|_| GrallocError::InvalidHandle("unsupported pixel format"))?,
            usage: join_u64(usage_lo, usage_hi),
            size: join_u64(size_lo, size_hi),
            offset: join_u64(offset_lo, offset_hi),
        };
        desc.validate()?;
        Ok(desc)
    }
}

fn check_dimensions(format: PixelFormat, width: u32, height: u32) -> Result<()> {
    let ok = match format {
        PixelFormat::Blob => (1..=MAX_BLOB_SIZE).contains(&width) && height == 1,
        _ => (1..=MAX_DIMENSION).contains(&width) && (1..=MAX_DIMENSION).contains(&height),
    };
    if ok {
        Ok(())
    } else {
        Err(GrallocError::InvalidDimensions { width, height })
    }
}

/// Bit-preserving split into the two `int`s a native handle stores.
fn split_u64(v: u64) -> (c_int, c_int) {
    (v as u32 as c_int, (v >> 32) as u32 as c_int)
}

fn join_u64(lo: c_int, hi: c_int) -> u64 {
    u64::from(lo as u32) | (u64::from(hi as u32) << 32)
}

/// Callers pass values already limited to [`MAX_DIMENSION`]-derived ranges, which fit in `int`.
fn u32_to_int(v: u32) -> c_int {
    c_int::try_from(v).unwrap_or(c_int::MAX)
}

/// Reads and validates a handle, returning the description and the (borrowed) fd number.
///
/// # Safety
/// See [`BufferDesc::from_native_handle`].
unsafe fn parse_handle(handle: *const NativeHandle) -> Result<(BufferDesc, RawFd)> {
    if handle.is_null() {
        return Err(GrallocError::InvalidHandle("null handle"));
    }
    if !handle.cast::<c_int>().is_aligned() {
        return Err(GrallocError::InvalidHandle("misaligned handle"));
    }
    // SAFETY: non-null and aligned; the caller guarantees the header is readable.
    let (version, num_fds, num_ints) =
        unsafe { ((*handle).version, (*handle).num_fds, (*handle).num_ints) };
    if version != NATIVE_HANDLE_VERSION {
        return Err(GrallocError::InvalidHandle(
            "version is not sizeof(native_handle_t)",
        ));
    }
    if num_fds != 1 {
        return Err(GrallocError::InvalidHandle("expected exactly one fd"));
    }
    if usize::try_from(num_ints) != Ok(HANDLE_NUM_INTS) {
        return Err(GrallocError::InvalidHandle("unexpected number of ints"));
    }
    // SAFETY: the header announces 1 + HANDLE_NUM_INTS data ints, which the caller guarantees
    // are readable; `data_ptr` keeps the provenance of `handle`.
    let (fd, ints) = unsafe {
        let data = NativeHandle::data_ptr(handle);
        (
            data.read(),
            data.add(1).cast::<[c_int; HANDLE_NUM_INTS]>().read(),
        )
    };
    if fd < 0 {
        return Err(GrallocError::InvalidHandle("negative fd"));
    }
    Ok((BufferDesc::from_ints(&ints)?, fd))
}

/// Turns front-buffer usage off (`0`): the allocator then refuses `FRONT_BUFFER` as a gralloc
/// without front-buffer rendering does, in both [`Allocator::allocate`] and
/// `AHardwareBuffer_isSupported`, so the loader's fallback for such devices (AOSP: the
/// `vkGetSwapchainGrallocUsage*ANDROID` queries for shared swapchains) runs on a Linux host.
pub const FRONT_BUFFER_ENV: &str = "VKGEN_GRALLOC_FRONT_BUFFER";

/// Whether this allocator can give buffers `usage`: every bit but `FRONT_BUFFER` when
/// [`FRONT_BUFFER_ENV`] is `0`.
pub fn check_usage(usage: u64) -> Result<()> {
    let front_buffer_off = crate::env::trusted_env(FRONT_BUFFER_ENV).is_some_and(|v| v == "0");
    if front_buffer_off && usage & buffer_usage::FRONT_BUFFER != 0 {
        return Err(GrallocError::InvalidHandle(
            "front-buffer usage is not supported by this allocator",
        ));
    }
    Ok(())
}

/// Allocates [`Buffer`]s from sealed memfds.
#[derive(Clone, Copy, Debug, Default)]
pub struct Allocator {
    _private: (),
}

impl Allocator {
    pub const fn new() -> Self {
        Self { _private: () }
    }

    /// Allocates a zero-filled `width`×`height` buffer of HAL pixel format `format`.
    pub fn allocate(&self, width: u32, height: u32, format: c_int, usage: u64) -> Result<Buffer> {
        check_usage(usage)?;
        let desc = BufferDesc::new(width, height, PixelFormat::from_hal(format)?, usage)?;
        let fd =
            rustix::fs::memfd_create(MEMFD_NAME, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)
                .map_err(GrallocError::Memfd)?;
        rustix::fs::ftruncate(&fd, desc.end()?).map_err(GrallocError::Resize)?;
        // Fixing the size lets every mapping (ours or an importer's) rely on the pages existing:
        // a shrink would turn accesses into SIGBUS.
        rustix::fs::fcntl_add_seals(&fd, SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL)
            .map_err(GrallocError::Seal)?;
        Ok(Buffer::new(desc, fd))
    }
}

/// A gralloc buffer: the memfd and the `native_handle_t` describing it, both freed on drop.
#[derive(Debug)]
pub struct Buffer {
    desc: BufferDesc,
    fd: OwnedFd,
    /// `[version, numFds, numInts, fd, ints…]` from `Box<[c_int]>::into_raw`; kept raw so the
    /// pointer handed to C stays valid however the `Buffer` is moved.
    handle: NonNull<[c_int]>,
}

// SAFETY: the handle allocation is owned exclusively by this Buffer and never mutated after
// construction; the fd is an `OwnedFd`. Nothing here is tied to a thread.
unsafe impl Send for Buffer {}
// SAFETY: all `&self` methods only read the immutable handle and desc.
unsafe impl Sync for Buffer {}

impl Buffer {
    fn new(desc: BufferDesc, fd: OwnedFd) -> Self {
        let mut data: Vec<c_int> = Vec::with_capacity(4 + HANDLE_NUM_INTS);
        data.extend([
            NATIVE_HANDLE_VERSION,
            1,
            HANDLE_NUM_INTS as c_int,
            fd.as_raw_fd(),
        ]);
        data.extend(desc.to_ints());
        let handle = NonNull::from(Box::leak(data.into_boxed_slice()));
        Self { desc, fd, handle }
    }

    /// Takes a reference of its own to the buffer a handle describes: validates the handle, dups
    /// its fd and checks the fd really holds `offset + size` bytes.
    ///
    /// # Safety
    /// As for [`BufferDesc::from_native_handle`]; in addition the handle's fd must be open while
    /// this runs. CPU access to the memory through other buffers or processes must be ordered with
    /// fences by the caller, as with any gralloc buffer.
    pub unsafe fn import(handle: *const NativeHandle) -> Result<Self> {
        // SAFETY: `handle` is null or a readable header (this function's contract), and
        // `parse_handle` reads the trailing data only after the header announces it.
        let (desc, raw) = unsafe { parse_handle(handle)? };
        // SAFETY: the caller guarantees the handle's fd is open for the duration of this call,
        // and the borrow does not outlive it.
        let borrowed = unsafe { BorrowedFd::borrow_raw(raw) };
        let fd = borrowed.try_clone_to_owned().map_err(GrallocError::Dup)?;
        let actual =
            u64::try_from(rustix::fs::fstat(&fd).map_err(GrallocError::Stat)?.st_size).unwrap_or(0);
        let expected = desc.end()?;
        if actual < expected {
            return Err(GrallocError::FdTooSmall { expected, actual });
        }
        Ok(Self::new(desc, fd))
    }

    pub fn desc(&self) -> &BufferDesc {
        &self.desc
    }

    /// The memfd; the native handle refers to this same fd number.
    pub fn fd(&self) -> BorrowedFd<'_> {
        self.fd.as_fd()
    }

    /// The `native_handle_t` (`buffer_handle_t`) describing this buffer, valid while `self` lives.
    /// It does not own the fd: nobody may `native_handle_close` it.
    pub fn native_handle(&self) -> *const NativeHandle {
        self.handle.as_ptr().cast::<NativeHandle>().cast_const()
    }

    /// Fills `out` with this buffer's description, the way a window's buffer queue would before
    /// handing it to `dequeueBuffer`'s caller. `common.incRef`/`decRef` are left for the owner of
    /// `out` to set.
    pub fn init_window_buffer(&self, out: &mut ANativeWindowBuffer) {
        out.common.magic = ANDROID_NATIVE_BUFFER_MAGIC;
        out.common.version = size_of::<ANativeWindowBuffer>() as c_int;
        out.common.reserved = [ptr::null_mut(); 4];
        out.width = u32_to_int(self.desc.width);
        out.height = u32_to_int(self.desc.height);
        out.stride = u32_to_int(self.desc.stride);
        out.format = self.desc.format.hal();
        // gralloc0 clients read only the low 32 bits.
        out.usage_deprecated = split_u64(self.desc.usage).0;
        out.layer_count = 1;
        out.reserved = [ptr::null_mut(); 1];
        out.handle = self.native_handle();
        out.usage = self.desc.usage;
        out.reserved_proc = [ptr::null_mut(); ANATIVEWINDOWBUFFER_RESERVED_PROC];
    }

    /// Maps the pixels for CPU access (shared, read/write). Exclusive borrow: within this process
    /// one mapping per `Buffer` at a time, so the slices it hands out cannot alias each other.
    pub fn map(&mut self) -> Result<Mapping<'_>> {
        let seals = rustix::fs::fcntl_get_seals(&self.fd).map_err(|_| GrallocError::NotSealed)?;
        if !seals.contains(SealFlags::SHRINK) {
            return Err(GrallocError::NotSealed);
        }
        let end = usize::try_from(self.desc.end()?).map_err(|_| GrallocError::SizeOverflow)?;
        let offset = usize::try_from(self.desc.offset).map_err(|_| GrallocError::SizeOverflow)?;
        let len = end - offset;
        // SAFETY: a fresh mapping at an address the kernel picks aliases no Rust object; `end`
        // bytes exist in the fd (checked at allocation/import) and the SHRINK seal keeps them.
        let base = unsafe {
            rustix::mm::mmap(
                ptr::null_mut(),
                end,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &self.fd,
                0,
            )
        }
        .map_err(GrallocError::Map)?;
        let base = NonNull::new(base.cast::<u8>()).ok_or(GrallocError::Map(Errno::FAULT))?;
        Ok(Mapping {
            base,
            map_len: end,
            offset,
            len,
            _buffer: std::marker::PhantomData,
        })
    }
}

impl Buffer {
    /// Maps the whole buffer (from byte 0 of the fd to [`BufferDesc::end`]) shared read/write,
    /// keeping the buffer (and its fd) with the mapping: what outlives a borrow, such as an
    /// `AHardwareBuffer_lock` or memory imported from a buffer.
    pub fn into_mapping(self) -> Result<SharedMapping> {
        let seals = rustix::fs::fcntl_get_seals(&self.fd).map_err(|_| GrallocError::NotSealed)?;
        if !seals.contains(SealFlags::SHRINK) {
            return Err(GrallocError::NotSealed);
        }
        let len = usize::try_from(self.desc.end()?).map_err(|_| GrallocError::SizeOverflow)?;
        // SAFETY: a fresh mapping at an address the kernel picks aliases no Rust object; `len`
        // bytes exist in the fd (checked at allocation/import) and the SHRINK seal keeps them.
        let base = unsafe {
            rustix::mm::mmap(
                ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &self.fd,
                0,
            )
        }
        .map_err(GrallocError::Map)?;
        let base = NonNull::new(base.cast::<u8>()).ok_or(GrallocError::Map(Errno::FAULT))?;
        Ok(SharedMapping {
            base,
            len,
            buffer: self,
        })
    }
}

/// A whole buffer mapped shared, owning the buffer; unmapped on drop. The memory is shared with
/// every other mapping and importer of the buffer, so it is handed out as a raw pointer: ordering
/// the accesses is the owner's (fences, as with any gralloc buffer).
#[derive(Debug)]
pub struct SharedMapping {
    base: NonNull<u8>,
    len: usize,
    buffer: Buffer,
}

// SAFETY: plain shared memory owned by this value; see the type's docs for access ordering.
unsafe impl Send for SharedMapping {}
// SAFETY: `&self` only hands out the address.
unsafe impl Sync for SharedMapping {}

impl SharedMapping {
    /// Byte 0 of the fd (not of the pixels: add [`BufferDesc::offset`]).
    pub fn as_ptr(&self) -> *mut u8 {
        self.base.as_ptr()
    }

    /// Mapped bytes ([`BufferDesc::end`]).
    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn buffer(&self) -> &Buffer {
        &self.buffer
    }
}

impl Drop for SharedMapping {
    fn drop(&mut self) {
        // SAFETY: exactly what `into_mapping` mapped; the address is not used after this.
        if let Err(e) = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), self.len) } {
            log::error!("munmap of a gralloc mapping failed: {e}");
        }
    }
}

impl Drop for Buffer {
    fn drop(&mut self) {
        // SAFETY: `handle` came from `Box::into_raw` (via `Box::leak`) in `new` and is freed
        // only here.
        drop(unsafe { Box::from_raw(self.handle.as_ptr()) });
    }
}

/// A CPU mapping of a [`Buffer`]'s pixels; unmapped on drop.
#[derive(Debug)]
pub struct Mapping<'a> {
    base: NonNull<u8>,
    map_len: usize,
    offset: usize,
    len: usize,
    _buffer: std::marker::PhantomData<&'a mut Buffer>,
}

// SAFETY: the mapping is plain shared memory owned by this value; access goes through `&self` /
// `&mut self` slices, so Rust's borrow rules order it like any owned buffer.
unsafe impl Send for Mapping<'_> {}
// SAFETY: see `Send`; `&Mapping` only yields shared slices.
unsafe impl Sync for Mapping<'_> {}

impl Mapping<'_> {
    /// The `desc.size` bytes of pixel data, rows `row_bytes()` apart.
    pub fn as_slice(&self) -> &[u8] {
        // SAFETY: `offset + len == map_len` bytes are mapped readable for the life of `self`.
        unsafe { std::slice::from_raw_parts(self.base.as_ptr().add(self.offset), self.len) }
    }

    /// Mutable view of the pixel data.
    pub fn as_mut_slice(&mut self) -> &mut [u8] {
        // SAFETY: as in `as_slice`, mapped writable; `&mut self` makes the slice unique.
        unsafe { std::slice::from_raw_parts_mut(self.base.as_ptr().add(self.offset), self.len) }
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }
}

impl Drop for Mapping<'_> {
    fn drop(&mut self) {
        // SAFETY: `base`/`map_len` are exactly what `mmap` returned, and no slice borrowed from
        // `self` can outlive it.
        if let Err(e) = unsafe { rustix::mm::munmap(self.base.as_ptr().cast(), self.map_len) } {
            log::error!("munmap of a gralloc mapping failed: {e}");
        }
    }
}

#[cfg(test)]
mod tests;
