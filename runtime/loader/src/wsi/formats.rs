//! Surface formats, colour spaces, transforms and present modes: the pure tables of AOSP's
//! `swapchain.cpp`.
//!
//! * **Formats** ([`surface_formats`]) are AOSP's list, entry for entry and in its order,
//!   because applications and ANGLE pick "the first format that fits" and must pick on vkgen
//!   what they pick on a phone. Whether an optional format is offered is the allocator's call
//!   (`AHardwareBuffer_isSupported` on Android; on Linux hosts the same rules of the runtime's
//!   gralloc, asked in-process), not the driver's: the window's buffers come from the
//!   allocator, and AOSP asks nothing else. The one driver condition is AOSP's:
//!   `R10X6G10X6B10X6A10X6_UNORM_4PACK16` needs `VK_EXT_rgba10x6_formats` in the driver's list.
//!   AOSP's colour-space table repeats `DISPLAY_P3_LINEAR` (its `DCI_P3_LINEAR` alias); the
//!   duplicate is kept, so an application sees the same list as on Android.
//! * **Pixel formats** ([`native_pixel_format`]) and **dataspaces** ([`dataspace`]): Vulkan →
//!   `HAL_PIXEL_FORMAT_*` / `HAL_DATASPACE_*`. An unknown colour space is
//!   `HAL_DATASPACE_UNKNOWN`, which `vkCreateSwapchainKHR` refuses with
//!   `VK_ERROR_INITIALIZATION_FAILED`; `PASS_THROUGH` is `ARBITRARY` (the consumer's default
//!   dataspace is kept).
//! * **Transforms**: native (`NATIVE_WINDOW_TRANSFORM_*`, flips then rotation) ↔ Vulkan
//!   (`VkSurfaceTransformFlagBitsKHR`), and the *inverse* the window is told
//!   ([`invert_transform_to_native`]): the app pre-rotated by `preTransform`, so the compositor
//!   must undo it.
//! * **Present-result ranking** ([`worst_present_result`]).

use std::ffi::c_int;

use vkgen_abi::native_window as nw;

use vkgen_generated::vk;

type Xf = vk::SurfaceTransformFlagsKHR;

/// The eight rotate/mirror transforms plus `INHERIT` (`kSupportedTransforms`).
pub const SUPPORTED_TRANSFORMS: vk::SurfaceTransformFlagsKHR = Xf::from_raw(
    Xf::IDENTITY.as_raw()
        | Xf::ROTATE_90.as_raw()
        | Xf::ROTATE_180.as_raw()
        | Xf::ROTATE_270.as_raw()
        | Xf::HORIZONTAL_MIRROR.as_raw()
        | Xf::HORIZONTAL_MIRROR_ROTATE_90.as_raw()
        | Xf::HORIZONTAL_MIRROR_ROTATE_180.as_raw()
        | Xf::HORIZONTAL_MIRROR_ROTATE_270.as_raw()
        | Xf::INHERIT.as_raw(),
);

/// `TranslateNativeToVulkanTransform`.
pub fn native_to_vulkan_transform(native: c_int) -> vk::SurfaceTransformFlagsKHR {
    use nw::*;
    match native {
        0 => Xf::IDENTITY,
        NATIVE_WINDOW_TRANSFORM_FLIP_H => Xf::HORIZONTAL_MIRROR,
        NATIVE_WINDOW_TRANSFORM_FLIP_V => Xf::HORIZONTAL_MIRROR_ROTATE_180,
        NATIVE_WINDOW_TRANSFORM_ROT_180 => Xf::ROTATE_180,
        NATIVE_WINDOW_TRANSFORM_ROT_90 => Xf::ROTATE_90,
        x if x == NATIVE_WINDOW_TRANSFORM_FLIP_H | NATIVE_WINDOW_TRANSFORM_ROT_90 => {
            Xf::HORIZONTAL_MIRROR_ROTATE_90
        }
        x if x == NATIVE_WINDOW_TRANSFORM_FLIP_V | NATIVE_WINDOW_TRANSFORM_ROT_90 => {
            Xf::HORIZONTAL_MIRROR_ROTATE_270
        }
        NATIVE_WINDOW_TRANSFORM_ROT_270 => Xf::ROTATE_270,
        // INVERSE_DISPLAY and anything unknown.
        _ => Xf::IDENTITY,
    }
}

/// `TranslateVulkanToNativeTransform`.
pub fn vulkan_to_native_transform(t: vk::SurfaceTransformFlagsKHR) -> c_int {
    use nw::*;
    match t {
        Xf::ROTATE_90 => NATIVE_WINDOW_TRANSFORM_ROT_90,
        Xf::ROTATE_180 => NATIVE_WINDOW_TRANSFORM_ROT_180,
        Xf::ROTATE_270 => NATIVE_WINDOW_TRANSFORM_ROT_270,
        Xf::HORIZONTAL_MIRROR => NATIVE_WINDOW_TRANSFORM_FLIP_H,
        Xf::HORIZONTAL_MIRROR_ROTATE_90 => {
            NATIVE_WINDOW_TRANSFORM_FLIP_H | NATIVE_WINDOW_TRANSFORM_ROT_90
        }
        Xf::HORIZONTAL_MIRROR_ROTATE_180 => NATIVE_WINDOW_TRANSFORM_FLIP_V,
        Xf::HORIZONTAL_MIRROR_ROTATE_270 => {
            NATIVE_WINDOW_TRANSFORM_FLIP_V | NATIVE_WINDOW_TRANSFORM_ROT_90
        }
        // IDENTITY, INHERIT and anything else.
        _ => 0,
    }
}

/// `InvertTransformToNative`: the transform the compositor must apply to undo `preTransform`.
pub fn invert_transform_to_native(t: vk::SurfaceTransformFlagsKHR) -> c_int {
    use nw::*;
    match t {
        Xf::ROTATE_90 => NATIVE_WINDOW_TRANSFORM_ROT_270,
        Xf::ROTATE_180 => NATIVE_WINDOW_TRANSFORM_ROT_180,
        Xf::ROTATE_270 => NATIVE_WINDOW_TRANSFORM_ROT_90,
        Xf::HORIZONTAL_MIRROR => NATIVE_WINDOW_TRANSFORM_FLIP_H,
        Xf::HORIZONTAL_MIRROR_ROTATE_90 => {
            NATIVE_WINDOW_TRANSFORM_FLIP_H | NATIVE_WINDOW_TRANSFORM_ROT_90
        }
        Xf::HORIZONTAL_MIRROR_ROTATE_180 => NATIVE_WINDOW_TRANSFORM_FLIP_V,
        Xf::HORIZONTAL_MIRROR_ROTATE_270 => {
            NATIVE_WINDOW_TRANSFORM_FLIP_V | NATIVE_WINDOW_TRANSFORM_ROT_90
        }
        _ => 0,
    }
}

/// `GetNativePixelFormat`: unknown formats fall back to `RGBA_8888`, as in AOSP.
pub fn native_pixel_format(format: vk::Format) -> c_int {
    match format {
        vk::Format::R8G8B8A8_UNORM | vk::Format::R8G8B8A8_SRGB => nw::HAL_PIXEL_FORMAT_RGBA_8888,
        vk::Format::R5G6B5_UNORM_PACK16 => nw::HAL_PIXEL_FORMAT_RGB_565,
        vk::Format::R16G16B16A16_SFLOAT => nw::HAL_PIXEL_FORMAT_RGBA_FP16,
        vk::Format::A2B10G10R10_UNORM_PACK32 => nw::HAL_PIXEL_FORMAT_RGBA_1010102,
        vk::Format::R8_UNORM => nw::HAL_PIXEL_FORMAT_R_8,
        vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16 => nw::HAL_PIXEL_FORMAT_RGBA_10101010,
        other => {
            log::warn!("unsupported swapchain format {other:?}; using RGBA_8888");
            nw::HAL_PIXEL_FORMAT_RGBA_8888
        }
    }
}

/// `HAL_DATASPACE_BT2020_LINEAR_EXTENDED` (not in the ABI mirror).
const BT2020_LINEAR_EXTENDED: c_int = nw::HAL_DATASPACE_STANDARD_BT2020
    | nw::HAL_DATASPACE_TRANSFER_LINEAR
    | nw::HAL_DATASPACE_RANGE_EXTENDED;

/// AIDL `Dataspace::ADOBE_RGB_LINEAR` (not in the ABI mirror).
pub const ADOBE_RGB_LINEAR: c_int = nw::HAL_DATASPACE_STANDARD_ADOBE_RGB
    | nw::HAL_DATASPACE_TRANSFER_LINEAR
    | nw::HAL_DATASPACE_RANGE_FULL;

/// `GetNativeDataspace`: `HAL_DATASPACE_UNKNOWN` for colour spaces Android cannot express.
/// `DOLBYVISION_EXT` is `BT2020_PQ`, as AOSP maps it (never offered as a surface format, but a
/// swapchain may ask for it). `DISPLAY_P3_LINEAR_EXT` is the value of AOSP's
/// `DCI_P3_LINEAR_EXT` case (`DCI_P3_LINEAR`, the same bits as `DISPLAY_P3_LINEAR`).
pub fn dataspace(cs: vk::ColorSpaceKHR, format: vk::Format) -> c_int {
    use vk::ColorSpaceKHR as C;
    match cs {
        C::SRGB_NONLINEAR => nw::HAL_DATASPACE_V0_SRGB,
        C::DISPLAY_P3_NONLINEAR_EXT => nw::HAL_DATASPACE_DISPLAY_P3,
        C::EXTENDED_SRGB_LINEAR_EXT => nw::HAL_DATASPACE_V0_SCRGB_LINEAR,
        C::EXTENDED_SRGB_NONLINEAR_EXT => nw::HAL_DATASPACE_V0_SCRGB,
        C::DISPLAY_P3_LINEAR_EXT => nw::HAL_DATASPACE_DISPLAY_P3_LINEAR,
        C::DCI_P3_NONLINEAR_EXT => nw::HAL_DATASPACE_DCI_P3,
        C::BT709_LINEAR_EXT => nw::HAL_DATASPACE_V0_SRGB_LINEAR,
        C::BT709_NONLINEAR_EXT => nw::HAL_DATASPACE_V0_SRGB,
        C::BT2020_LINEAR_EXT if format == vk::Format::R16G16B16A16_SFLOAT => BT2020_LINEAR_EXTENDED,
        C::BT2020_LINEAR_EXT => nw::HAL_DATASPACE_BT2020_LINEAR,
        C::HDR10_ST2084_EXT | C::DOLBYVISION_EXT => nw::HAL_DATASPACE_BT2020_PQ,
        C::HDR10_HLG_EXT => nw::HAL_DATASPACE_BT2020_HLG,
        C::ADOBERGB_LINEAR_EXT => ADOBE_RGB_LINEAR,
        C::ADOBERGB_NONLINEAR_EXT => nw::HAL_DATASPACE_ADOBE_RGB,
        C::PASS_THROUGH_EXT => nw::HAL_DATASPACE_ARBITRARY,
        _ => nw::HAL_DATASPACE_UNKNOWN,
    }
}

/// AOSP's `colorSpaceSupportedByVkEXTSwapchainColorspace`, in its order. Its last entry,
/// `VK_COLOR_SPACE_DCI_P3_LINEAR_EXT`, is the deprecated alias of `DISPLAY_P3_LINEAR_EXT`
/// (the second entry), so AOSP — and this loader — report that colour space twice per format.
pub const EXTENDED_COLOR_SPACES: [vk::ColorSpaceKHR; 12] = [
    vk::ColorSpaceKHR::DISPLAY_P3_NONLINEAR_EXT,
    vk::ColorSpaceKHR::DISPLAY_P3_LINEAR_EXT,
    vk::ColorSpaceKHR::DCI_P3_NONLINEAR_EXT,
    vk::ColorSpaceKHR::BT709_LINEAR_EXT,
    vk::ColorSpaceKHR::BT709_NONLINEAR_EXT,
    vk::ColorSpaceKHR::BT2020_LINEAR_EXT,
    vk::ColorSpaceKHR::HDR10_ST2084_EXT,
    vk::ColorSpaceKHR::HDR10_HLG_EXT,
    vk::ColorSpaceKHR::ADOBERGB_LINEAR_EXT,
    vk::ColorSpaceKHR::ADOBERGB_NONLINEAR_EXT,
    vk::ColorSpaceKHR::PASS_THROUGH_EXT,
    // VK_COLOR_SPACE_DCI_P3_LINEAR_EXT (= DISPLAY_P3_LINEAR_EXT).
    vk::ColorSpaceKHR::DISPLAY_P3_LINEAR_EXT,
];

/// AOSP's `colorSpaceSupportedByVkEXTSwapchainColorspaceOnFP16SurfaceOnly`.
pub const FP16_ONLY_COLOR_SPACES: [vk::ColorSpaceKHR; 2] = [
    vk::ColorSpaceKHR::EXTENDED_SRGB_LINEAR_EXT,
    vk::ColorSpaceKHR::EXTENDED_SRGB_NONLINEAR_EXT,
];

/// The optional formats, in report order, each with the `AHARDWAREBUFFER_FORMAT_*` that
/// `AHardwareBuffer_isSupported` is asked about.
pub const OPTIONAL_FORMATS: [(vk::Format, u32); 5] = [
    (
        vk::Format::R5G6B5_UNORM_PACK16,
        nw::HAL_PIXEL_FORMAT_RGB_565 as u32,
    ),
    (
        vk::Format::R16G16B16A16_SFLOAT,
        nw::HAL_PIXEL_FORMAT_RGBA_FP16 as u32,
    ),
    (
        vk::Format::A2B10G10R10_UNORM_PACK32,
        nw::HAL_PIXEL_FORMAT_RGBA_1010102 as u32,
    ),
    (vk::Format::R8_UNORM, nw::HAL_PIXEL_FORMAT_R_8 as u32),
    (
        vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16,
        nw::HAL_PIXEL_FORMAT_RGBA_10101010 as u32,
    ),
];

/// The surface formats of a surface, exactly as AOSP's `GetPhysicalDeviceSurfaceFormatsKHR`
/// builds them: RGBA8 UNORM and SRGB in `SRGB_NONLINEAR`; with `colorspace_ext` each of
/// [`EXTENDED_COLOR_SPACES`] for UNORM then SRGB in turn; then each optional format the
/// allocator supports (`allocator_supports(AHARDWAREBUFFER_FORMAT_*)`, AOSP's
/// `AHardwareBuffer_isSupported`) in `SRGB_NONLINEAR` followed, with `colorspace_ext`, by the
/// extended colour spaces (FP16 also by [`FP16_ONLY_COLOR_SPACES`]); `R8_UNORM` only as
/// `PASS_THROUGH` and only with `colorspace_ext`; the R10X6 format only when the driver lists
/// `VK_EXT_rgba10x6_formats` (`rgba10x6_ext`). Every colour space listed has a dataspace.
pub fn surface_formats(
    colorspace_ext: bool,
    rgba10x6_ext: bool,
    mut allocator_supports: impl FnMut(u32) -> bool,
) -> Vec<vk::SurfaceFormatKHR> {
    let pair = |format, color_space| vk::SurfaceFormatKHR {
        format,
        color_space,
    };
    let srgb = vk::ColorSpaceKHR::SRGB_NONLINEAR;
    let mut formats = vec![
        pair(vk::Format::R8G8B8A8_UNORM, srgb),
        pair(vk::Format::R8G8B8A8_SRGB, srgb),
    ];
    let mappable = |format: vk::Format, cs: vk::ColorSpaceKHR| {
        dataspace(cs, format) != nw::HAL_DATASPACE_UNKNOWN
    };
    if colorspace_ext {
        for cs in EXTENDED_COLOR_SPACES {
            for format in [vk::Format::R8G8B8A8_UNORM, vk::Format::R8G8B8A8_SRGB] {
                if mappable(format, cs) {
                    formats.push(pair(format, cs));
                }
            }
        }
    }
    for (format, ahb_format) in OPTIONAL_FORMATS {
        if !allocator_supports(ahb_format) {
            continue;
        }
        if format == vk::Format::R8_UNORM {
            if colorspace_ext {
                formats.push(pair(format, vk::ColorSpaceKHR::PASS_THROUGH_EXT));
            }
            continue;
        }
        if format == vk::Format::R10X6G10X6B10X6A10X6_UNORM_4PACK16 && !rgba10x6_ext {
            continue;
        }
        formats.push(pair(format, srgb));
        if !colorspace_ext {
            continue;
        }
        let fp16_only: &[vk::ColorSpaceKHR] = if format == vk::Format::R16G16B16A16_SFLOAT {
            &FP16_ONLY_COLOR_SPACES
        } else {
            &[]
        };
        for &cs in EXTENDED_COLOR_SPACES.iter().chain(fp16_only) {
            if mappable(format, cs) {
                formats.push(pair(format, cs));
            }
        }
    }
    formats
}

/// The surface formats of a desktop surface (Linux hosts' X11 and Wayland windows): those its
/// presenter shows exactly, 8-bit BGRA and RGBA, UNORM and SRGB, in `SRGB_NONLINEAR`, BGRA
/// first as desktop WSI lists them. The presenter shows 8 bits a channel in sRGB, so wider
/// formats (10-bit, FP16) and other colour spaces are not offered: an application would pick
/// one and get it rounded. BGRA needs the allocator's `HAL_PIXEL_FORMAT_BGRA_8888`
/// (`allocator_supports`).
pub fn desktop_surface_formats(
    mut allocator_supports: impl FnMut(u32) -> bool,
) -> Vec<vk::SurfaceFormatKHR> {
    let srgb = vk::ColorSpaceKHR::SRGB_NONLINEAR;
    let bgra = allocator_supports(nw::HAL_PIXEL_FORMAT_BGRA_8888 as u32);
    [
        (vk::Format::B8G8R8A8_SRGB, bgra),
        (vk::Format::B8G8R8A8_UNORM, bgra),
        (vk::Format::R8G8B8A8_SRGB, true),
        (vk::Format::R8G8B8A8_UNORM, true),
    ]
    .into_iter()
    .filter(|&(_, offered)| offered)
    .map(|(format, _)| vk::SurfaceFormatKHR {
        format,
        color_space: srgb,
    })
    .collect()
}

/// [`native_pixel_format`] for a desktop surface's swapchain: BGRA8 stays BGRA
/// (`HAL_PIXEL_FORMAT_BGRA_8888`, which the presenter reads as BGRA) instead of AOSP's
/// fallback to `RGBA_8888`, which would swap red and blue.
pub fn desktop_pixel_format(format: vk::Format) -> c_int {
    match format {
        vk::Format::B8G8R8A8_UNORM | vk::Format::B8G8R8A8_SRGB => nw::HAL_PIXEL_FORMAT_BGRA_8888,
        other => native_pixel_format(other),
    }
}

/// Whether a present mode is one of the shared-presentable-image modes.
pub fn is_shared(mode: vk::PresentModeKHR) -> bool {
    mode == vk::PresentModeKHR::SHARED_DEMAND_REFRESH
        || mode == vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH
}

/// `vkGetPhysicalDeviceSurfacePresentModesKHR`'s list: `MAILBOX` when the window can hold one
/// more buffer than it keeps undequeued plus one, `FIFO` always, the shared modes when the
/// driver supports shared images. `FIFO_RELAXED` and `IMMEDIATE` are offered only on desktop
/// surfaces of Linux hosts (`surface::surface_present_modes`).
pub fn present_modes(mailbox: bool, shared_image: bool) -> Vec<vk::PresentModeKHR> {
    let mut modes = Vec::with_capacity(4);
    if mailbox {
        modes.push(vk::PresentModeKHR::MAILBOX);
    }
    modes.push(vk::PresentModeKHR::FIFO);
    if shared_image {
        modes.push(vk::PresentModeKHR::SHARED_DEMAND_REFRESH);
        modes.push(vk::PresentModeKHR::SHARED_CONTINUOUS_REFRESH);
    }
    modes
}

/// `WorstPresentResult`: the spec's ranking for `vkQueuePresentKHR`, worst first: DEVICE_LOST,
/// SURFACE_LOST, OUT_OF_DATE, OUT_OF_DEVICE_MEMORY, OUT_OF_HOST_MEMORY, SUBOPTIMAL, SUCCESS;
/// anything else unexpected wins over success.
pub fn worst_present_result(a: vk::Result, b: vk::Result) -> vk::Result {
    const WORST_TO_BEST: [vk::Result; 6] = [
        vk::Result::ERROR_DEVICE_LOST,
        vk::Result::ERROR_SURFACE_LOST_KHR,
        vk::Result::ERROR_OUT_OF_DATE_KHR,
        vk::Result::ERROR_OUT_OF_DEVICE_MEMORY,
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        vk::Result::SUBOPTIMAL_KHR,
    ];
    for r in WORST_TO_BEST {
        if a == r || b == r {
            return r;
        }
    }
    if a != vk::Result::SUCCESS {
        a
    } else {
        b
    }
}

/// `android_convertGralloc0To1Usage`: the gralloc1 (producer, consumer) split of a 32-bit usage,
/// for `VkNativeBufferANDROID::usage2`.
pub fn gralloc0_to_gralloc1(usage: c_int) -> (u64, u64) {
    // GRALLOC1_PRODUCER_USAGE_*: CPU_READ(1<<1) | CPU_READ_OFTEN(1<<2) | CPU_WRITE(1<<5) |
    // CPU_WRITE_OFTEN(1<<6) | GPU_RENDER_TARGET(1<<9) | PROTECTED(1<<14) | CAMERA(1<<17) |
    // VIDEO_DECODER(1<<22) | SENSOR_DIRECT_DATA(1<<23).
    const PRODUCER_MASK: u64 = (1 << 1)
        | (1 << 2)
        | (1 << 5)
        | (1 << 6)
        | (1 << 9)
        | (1 << 14)
        | (1 << 17)
        | (1 << 22)
        | (1 << 23);
    // GRALLOC1_CONSUMER_USAGE_*: CPU_READ(1<<1) | CPU_READ_OFTEN(1<<2) | GPU_TEXTURE(1<<8) |
    // HWCOMPOSER(1<<11) | CLIENT_TARGET(1<<12) | CURSOR(1<<15) | VIDEO_ENCODER(1<<16) |
    // CAMERA(1<<18) | RENDERSCRIPT(1<<20) | GPU_DATA_BUFFER(1<<23).
    const CONSUMER_MASK: u64 = (1 << 1)
        | (1 << 2)
        | (1 << 8)
        | (1 << 11)
        | (1 << 12)
        | (1 << 15)
        | (1 << 16)
        | (1 << 18)
        | (1 << 20)
        | (1 << 23);
    const SW_READ_OFTEN: u32 = 0x3;
    const SW_WRITE_OFTEN: u32 = 0x30;
    const CPU_READ_OFTEN: u64 = (1 << 2) | (1 << 1);
    const CPU_WRITE_OFTEN: u64 = (1 << 6) | (1 << 5);
    let bits = u64::from(usage as u32);
    let mut producer = bits & PRODUCER_MASK;
    let mut consumer = bits & CONSUMER_MASK;
    if usage as u32 & SW_READ_OFTEN == SW_READ_OFTEN {
        producer |= CPU_READ_OFTEN;
        consumer |= CPU_READ_OFTEN;
    }
    if usage as u32 & SW_WRITE_OFTEN == SW_WRITE_OFTEN {
        producer |= CPU_WRITE_OFTEN;
    }
    (producer, consumer)
}

/// `convertGralloc1ToBufferUsage`: merges gralloc1 producer and consumer bits back into one
/// 64-bit `BufferUsage` (the CPU bits need remapping; the rest coincide).
pub fn gralloc1_to_buffer_usage(producer: u64, consumer: u64) -> u64 {
    use nw::buffer_usage as bu;
    const CPU_READ: u64 = 1 << 1;
    const CPU_READ_OFTEN: u64 = 1 << 2;
    const CPU_WRITE: u64 = 1 << 5;
    const CPU_WRITE_OFTEN: u64 = 1 << 6;
    const CPU_BITS: u64 = CPU_READ | CPU_READ_OFTEN | CPU_WRITE | CPU_WRITE_OFTEN;
    let merged = producer | consumer;
    let mut usage = merged & !CPU_BITS & !(bu::CPU_READ_MASK | bu::CPU_WRITE_MASK);
    if merged & CPU_READ_OFTEN != 0 {
        usage |= bu::CPU_READ_OFTEN;
    } else if merged & CPU_READ != 0 {
        usage |= bu::CPU_READ_RARELY;
    }
    if merged & CPU_WRITE_OFTEN != 0 {
        usage |= bu::CPU_WRITE_OFTEN;
    } else if merged & CPU_WRITE != 0 {
        usage |= bu::CPU_WRITE_RARELY;
    }
    usage
}

#[cfg(test)]
mod tests {
    use super::*;

    const ALL: [vk::SurfaceTransformFlagsKHR; 8] = [
        Xf::IDENTITY,
        Xf::ROTATE_90,
        Xf::ROTATE_180,
        Xf::ROTATE_270,
        Xf::HORIZONTAL_MIRROR,
        Xf::HORIZONTAL_MIRROR_ROTATE_90,
        Xf::HORIZONTAL_MIRROR_ROTATE_180,
        Xf::HORIZONTAL_MIRROR_ROTATE_270,
    ];

    #[test]
    fn transforms_round_trip_and_invert() {
        for t in ALL {
            assert_eq!(native_to_vulkan_transform(vulkan_to_native_transform(t)), t);
            assert!(SUPPORTED_TRANSFORMS.contains(t));
        }
        assert_eq!(
            invert_transform_to_native(Xf::ROTATE_90),
            nw::NATIVE_WINDOW_TRANSFORM_ROT_270
        );
        assert_eq!(
            invert_transform_to_native(Xf::ROTATE_270),
            nw::NATIVE_WINDOW_TRANSFORM_ROT_90
        );
        // Mirrors are their own inverse.
        for t in &ALL[4..] {
            assert_eq!(
                invert_transform_to_native(*t),
                vulkan_to_native_transform(*t)
            );
        }
        assert_eq!(invert_transform_to_native(Xf::INHERIT), 0);
        assert_eq!(
            native_to_vulkan_transform(nw::NATIVE_WINDOW_TRANSFORM_INVERSE_DISPLAY),
            Xf::IDENTITY
        );
    }

    #[test]
    fn present_results_rank_worst_first() {
        use vk::Result as R;
        assert_eq!(
            worst_present_result(R::SUCCESS, R::SUBOPTIMAL_KHR),
            R::SUBOPTIMAL_KHR
        );
        assert_eq!(
            worst_present_result(R::ERROR_OUT_OF_DATE_KHR, R::ERROR_SURFACE_LOST_KHR),
            R::ERROR_SURFACE_LOST_KHR
        );
        assert_eq!(
            worst_present_result(R::ERROR_DEVICE_LOST, R::ERROR_SURFACE_LOST_KHR),
            R::ERROR_DEVICE_LOST
        );
        assert_eq!(
            worst_present_result(R::ERROR_OUT_OF_HOST_MEMORY, R::ERROR_OUT_OF_DEVICE_MEMORY),
            R::ERROR_OUT_OF_DEVICE_MEMORY
        );
        assert_eq!(
            worst_present_result(R::SUBOPTIMAL_KHR, R::ERROR_OUT_OF_HOST_MEMORY),
            R::ERROR_OUT_OF_HOST_MEMORY
        );
        assert_eq!(worst_present_result(R::SUCCESS, R::SUCCESS), R::SUCCESS);
    }

    fn sf(format: vk::Format, color_space: vk::ColorSpaceKHR) -> vk::SurfaceFormatKHR {
        vk::SurfaceFormatKHR {
            format,
            color_space,
        }
    }

    #[test]
    fn formats_follow_aosp_order() {
        use vk::ColorSpaceKHR as C;
        use vk::Format as F;
        let base = surface_formats(false, false, |_| false);
        assert_eq!(
            base,
            [
                sf(F::R8G8B8A8_UNORM, C::SRGB_NONLINEAR),
                sf(F::R8G8B8A8_SRGB, C::SRGB_NONLINEAR)
            ]
        );
        // Without the colour-space extension: no R8, and R10X6 only with the driver extension.
        let all = surface_formats(false, true, |_| true);
        assert_eq!(
            all.iter().map(|f| f.format).collect::<Vec<_>>(),
            [
                F::R8G8B8A8_UNORM,
                F::R8G8B8A8_SRGB,
                F::R5G6B5_UNORM_PACK16,
                F::R16G16B16A16_SFLOAT,
                F::A2B10G10R10_UNORM_PACK32,
                F::R10X6G10X6B10X6A10X6_UNORM_4PACK16
            ]
        );
        assert_eq!(surface_formats(false, false, |_| true).len(), 5);
        // With it: UNORM/SRGB interleaved per colour space, AOSP's duplicate P3 linear entry.
        let ext = surface_formats(true, true, |_| true);
        assert_eq!(ext[2], sf(F::R8G8B8A8_UNORM, C::DISPLAY_P3_NONLINEAR_EXT));
        assert_eq!(ext[3], sf(F::R8G8B8A8_SRGB, C::DISPLAY_P3_NONLINEAR_EXT));
        assert_eq!(ext[18], sf(F::R8G8B8A8_UNORM, C::ADOBERGB_LINEAR_EXT));
        assert_eq!(ext[25], sf(F::R8G8B8A8_SRGB, C::DISPLAY_P3_LINEAR_EXT));
        // 2 + 2·12 RGBA8, 13 R5G6B5, 15 FP16 (extended sRGB last), 13 A2B10G10R10, 1 R8,
        // 13 R10X6.
        assert_eq!(ext.len(), 26 + 13 + 15 + 13 + 1 + 13);
        assert_eq!(ext[26], sf(F::R5G6B5_UNORM_PACK16, C::SRGB_NONLINEAR));
        assert_eq!(ext[39], sf(F::R16G16B16A16_SFLOAT, C::SRGB_NONLINEAR));
        assert_eq!(
            ext[52],
            sf(F::R16G16B16A16_SFLOAT, C::EXTENDED_SRGB_LINEAR_EXT)
        );
        assert_eq!(
            ext[53],
            sf(F::R16G16B16A16_SFLOAT, C::EXTENDED_SRGB_NONLINEAR_EXT)
        );
        assert_eq!(ext[67], sf(F::R8_UNORM, C::PASS_THROUGH_EXT));
        for f in &ext {
            assert_ne!(
                dataspace(f.color_space, f.format),
                nw::HAL_DATASPACE_UNKNOWN,
                "{f:?}"
            );
        }
        assert!(!ext.contains(&sf(F::R8G8B8A8_UNORM, C::EXTENDED_SRGB_LINEAR_EXT)));
        assert!(!ext.contains(&sf(F::R8G8B8A8_UNORM, C::DOLBYVISION_EXT)));
        // The allocator decides: it is asked with AHARDWAREBUFFER_FORMAT_* values.
        let mut asked = Vec::new();
        let none = surface_formats(true, true, |f| {
            asked.push(f);
            false
        });
        assert_eq!(none.len(), 26);
        assert_eq!(
            asked,
            [
                nw::HAL_PIXEL_FORMAT_RGB_565 as u32,
                nw::HAL_PIXEL_FORMAT_RGBA_FP16 as u32,
                nw::HAL_PIXEL_FORMAT_RGBA_1010102 as u32,
                nw::HAL_PIXEL_FORMAT_R_8 as u32,
                nw::HAL_PIXEL_FORMAT_RGBA_10101010 as u32
            ]
        );
    }

    #[test]
    fn dataspaces_follow_aosp() {
        use vk::ColorSpaceKHR as C;
        let rgba8 = vk::Format::R8G8B8A8_UNORM;
        assert_eq!(
            dataspace(C::DOLBYVISION_EXT, rgba8),
            nw::HAL_DATASPACE_BT2020_PQ
        );
        assert_eq!(dataspace(C::ADOBERGB_LINEAR_EXT, rgba8), ADOBE_RGB_LINEAR);
        assert_eq!(
            dataspace(C::BT2020_LINEAR_EXT, vk::Format::R16G16B16A16_SFLOAT),
            BT2020_LINEAR_EXTENDED
        );
        assert_eq!(
            dataspace(C::PASS_THROUGH_EXT, rgba8),
            nw::HAL_DATASPACE_ARBITRARY
        );
    }

    #[test]
    fn desktop_formats_are_8_bit_bgra_and_rgba() {
        let srgb = vk::ColorSpaceKHR::SRGB_NONLINEAR;
        assert_eq!(
            desktop_surface_formats(|_| true),
            vec![
                sf(vk::Format::B8G8R8A8_SRGB, srgb),
                sf(vk::Format::B8G8R8A8_UNORM, srgb),
                sf(vk::Format::R8G8B8A8_SRGB, srgb),
                sf(vk::Format::R8G8B8A8_UNORM, srgb),
            ]
        );
        assert_eq!(
            desktop_surface_formats(|f| f != nw::HAL_PIXEL_FORMAT_BGRA_8888 as u32).len(),
            2
        );
        assert_eq!(
            desktop_pixel_format(vk::Format::B8G8R8A8_UNORM),
            nw::HAL_PIXEL_FORMAT_BGRA_8888
        );
        assert_eq!(
            desktop_pixel_format(vk::Format::B8G8R8A8_SRGB),
            nw::HAL_PIXEL_FORMAT_BGRA_8888
        );
        assert_eq!(
            desktop_pixel_format(vk::Format::R8G8B8A8_SRGB),
            nw::HAL_PIXEL_FORMAT_RGBA_8888
        );
        // Android surfaces keep AOSP's mapping.
        assert_eq!(
            native_pixel_format(vk::Format::B8G8R8A8_UNORM),
            nw::HAL_PIXEL_FORMAT_RGBA_8888
        );
    }

    #[test]
    fn present_modes_follow_android() {
        use vk::PresentModeKHR as M;
        assert_eq!(present_modes(false, false), [M::FIFO]);
        assert_eq!(
            present_modes(true, true),
            [
                M::MAILBOX,
                M::FIFO,
                M::SHARED_DEMAND_REFRESH,
                M::SHARED_CONTINUOUS_REFRESH
            ]
        );
    }

    #[test]
    fn gralloc_usage_conversions() {
        use nw::buffer_usage as bu;
        let (p, c) = gralloc0_to_gralloc1((bu::GPU_RENDER_TARGET | bu::GPU_TEXTURE) as c_int);
        assert_eq!(p, bu::GPU_RENDER_TARGET);
        assert_eq!(c, bu::GPU_TEXTURE);
        assert_eq!(
            gralloc1_to_buffer_usage(p, c),
            bu::GPU_RENDER_TARGET | bu::GPU_TEXTURE
        );
        let (p, c) = gralloc0_to_gralloc1((bu::CPU_READ_OFTEN | bu::CPU_WRITE_OFTEN) as c_int);
        assert_eq!(
            gralloc1_to_buffer_usage(p, c),
            bu::CPU_READ_OFTEN | bu::CPU_WRITE_OFTEN
        );
    }
}
