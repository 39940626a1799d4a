//! The NDK's `AHardwareBuffer` (`android/hardware_buffer.h`, `vndk/hardware_buffer.h`): the
//! description, plane and format/usage constants. On Android an `AHardwareBuffer*` is a
//! `GraphicBuffer`, whose first member is an `ANativeWindowBuffer`
//! (`AHardwareBuffer_to_ANativeWindowBuffer` is a cast); vkgen keeps that identity, so any
//! `AHardwareBuffer*` can be read through the [`ANativeWindowBuffer`] header.
//!
//! [`ANativeWindowBuffer`]: crate::native_window::ANativeWindowBuffer

use std::ffi::c_void;

use crate::native_window as hal;

/// `AHardwareBuffer`: opaque to C, an [`ANativeWindowBuffer`](hal::ANativeWindowBuffer) here.
#[repr(C)]
pub struct AHardwareBuffer {
    _opaque: [u8; 0],
}

/// `AHardwareBuffer_Desc`.
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct AHardwareBufferDesc {
    pub width: u32,
    pub height: u32,
    pub layers: u32,
    /// An `AHARDWAREBUFFER_FORMAT_*` (numerically a HAL pixel format).
    pub format: u32,
    /// [`usage`] bits.
    pub usage: u64,
    /// Row pitch in pixels; ignored by `allocate`.
    pub stride: u32,
    pub rfu0: u32,
    pub rfu1: u64,
}

/// `AHardwareBuffer_Plane`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AHardwareBufferPlane {
    pub data: *mut c_void,
    /// Bytes between two samples of this plane in a row.
    pub pixel_stride: u32,
    /// Bytes between two rows of this plane.
    pub row_stride: u32,
}

/// `AHardwareBuffer_Planes`.
#[repr(C)]
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct AHardwareBufferPlanes {
    pub plane_count: u32,
    pub planes: [AHardwareBufferPlane; 4],
}

/// `ARect` (`android/rect.h`).
#[repr(C)]
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq, Hash)]
pub struct ARect {
    pub left: i32,
    pub top: i32,
    pub right: i32,
    pub bottom: i32,
}

/// `AHARDWAREBUFFER_FORMAT_*`: the public names of the HAL pixel formats.
pub mod format {
    use super::hal;

    pub const R8G8B8A8_UNORM: u32 = hal::HAL_PIXEL_FORMAT_RGBA_8888 as u32;
    pub const R8G8B8X8_UNORM: u32 = hal::HAL_PIXEL_FORMAT_RGBX_8888 as u32;
    pub const R8G8B8_UNORM: u32 = hal::HAL_PIXEL_FORMAT_RGB_888 as u32;
    pub const R5G6B5_UNORM: u32 = hal::HAL_PIXEL_FORMAT_RGB_565 as u32;
    /// Not public NDK API but a valid HAL format (`HAL_PIXEL_FORMAT_BGRA_8888`).
    pub const B8G8R8A8_UNORM: u32 = hal::HAL_PIXEL_FORMAT_BGRA_8888 as u32;
    pub const R16G16B16A16_FLOAT: u32 = hal::HAL_PIXEL_FORMAT_RGBA_FP16 as u32;
    pub const R10G10B10A2_UNORM: u32 = hal::HAL_PIXEL_FORMAT_RGBA_1010102 as u32;
    pub const BLOB: u32 = hal::HAL_PIXEL_FORMAT_BLOB as u32;
    pub const D16_UNORM: u32 = hal::HAL_PIXEL_FORMAT_DEPTH_16 as u32;
    /// The flexible 4:2:0 format; vkgen's gralloc lays it out as NV12.
    pub const Y8CB8CR8_420: u32 = hal::HAL_PIXEL_FORMAT_YCBCR_420_888 as u32;
    /// NV21 (`HAL_PIXEL_FORMAT_YCrCb_420_SP`): Y plane, then interleaved V/U.
    pub const YCRCB_420_SP: u32 = hal::HAL_PIXEL_FORMAT_YCRCB_420_SP as u32;
    /// Y plane, then V, then U (each chroma plane `align(stride / 2, 16)` bytes a row).
    pub const YV12: u32 = hal::HAL_PIXEL_FORMAT_YV12 as u32;
    pub const R8_UNORM: u32 = hal::HAL_PIXEL_FORMAT_R_8 as u32;
}

/// `AHARDWAREBUFFER_USAGE_*`: the NDK's names for gralloc's [`buffer_usage`](hal::buffer_usage)
/// bits (same values).
pub mod usage {
    use super::hal::buffer_usage as b;

    pub use b::{
        CPU_READ_MASK, CPU_READ_OFTEN, CPU_READ_RARELY, CPU_WRITE_MASK, CPU_WRITE_OFTEN,
        CPU_WRITE_RARELY, FRONT_BUFFER, GPU_CUBE_MAP, GPU_DATA_BUFFER, GPU_MIPMAP_COMPLETE,
        SENSOR_DIRECT_DATA,
    };
    pub const GPU_SAMPLED_IMAGE: u64 = b::GPU_TEXTURE;
    pub const GPU_FRAMEBUFFER: u64 = b::GPU_RENDER_TARGET;
    /// Same bit as `GPU_FRAMEBUFFER`.
    pub const GPU_COLOR_OUTPUT: u64 = GPU_FRAMEBUFFER;
    pub const COMPOSER_OVERLAY: u64 = b::COMPOSER_OVERLAY;
    pub const PROTECTED_CONTENT: u64 = b::PROTECTED;
    pub const VIDEO_ENCODE: u64 = b::VIDEO_ENCODER;
    /// Every usage that names GPU access: an `AHardwareBuffer` Vulkan may import has one.
    pub const GPU_ANY: u64 = GPU_SAMPLED_IMAGE
        | GPU_FRAMEBUFFER
        | GPU_DATA_BUFFER
        | GPU_CUBE_MAP
        | GPU_MIPMAP_COMPLETE
        | SENSOR_DIRECT_DATA;
}

/// `AHardwareBuffer_createFromHandle`'s `method` (`vndk/hardware_buffer.h`).
pub mod create_from_handle {
    /// The buffer takes its own copy of the handle (fds duplicated).
    pub const METHOD_REGISTER: i32 = 0;
    /// As `METHOD_REGISTER`; the caller keeps ownership of its handle either way.
    pub const METHOD_CLONE: i32 = 1;
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::mem::{offset_of, size_of};

    #[test]
    fn layouts_match_the_ndk() {
        assert_eq!(size_of::<AHardwareBufferDesc>(), 40);
        assert_eq!(offset_of!(AHardwareBufferDesc, usage), 16);
        assert_eq!(offset_of!(AHardwareBufferDesc, stride), 24);
        assert_eq!(offset_of!(AHardwareBufferDesc, rfu1), 32);
        assert_eq!(size_of::<AHardwareBufferPlane>(), 16);
        assert_eq!(size_of::<AHardwareBufferPlanes>(), 72);
        assert_eq!(size_of::<ARect>(), 16);
    }
}
