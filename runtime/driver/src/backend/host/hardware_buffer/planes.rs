//! Where an `AHardwareBuffer`'s planes go: the plane formats of the multi-planar formats, the
//! allocator's plane layouts as Vulkan sees them, and how a dedicated image is placed.

use vkgen_generated::vk;

use super::state::PlaneBind;
use crate::gralloc::{BufferDesc, PixelFormat, PlaneLayout};

/// How a dedicated image is placed on a buffer.
pub(super) enum Plan {
    /// On the pages: host binds, and the bytes they need.
    OnPages(Vec<PlaneBind>, u64),
    /// The host's layout differs: its own memory, copied ([`copy_backed`]).
    Copied,
}

/// The planes of a multi-planar format: each plane's compatible format and its size divisor.
pub(super) fn plane_formats(format: vk::Format) -> Option<&'static [(vk::Format, u32)]> {
    Some(match format {
        vk::Format::G8_B8R8_2PLANE_420_UNORM => {
            &[(vk::Format::R8_UNORM, 1), (vk::Format::R8G8_UNORM, 2)]
        }
        vk::Format::G8_B8_R8_3PLANE_420_UNORM => &[
            (vk::Format::R8_UNORM, 1),
            (vk::Format::R8_UNORM, 2),
            (vk::Format::R8_UNORM, 2),
        ],
        _ => return None,
    })
}

pub(super) const PLANE_ASPECTS: [vk::ImageAspectFlags; 3] = [
    vk::ImageAspectFlags::PLANE_0,
    vk::ImageAspectFlags::PLANE_1,
    vk::ImageAspectFlags::PLANE_2,
];

/// The buffer's planes in Vulkan plane order (Y, Cb, Cr; one plane for other formats), each
/// plane's first byte. NV12's interleaved chroma plane starts at its Cb sample.
pub(super) fn vulkan_planes(desc: &BufferDesc) -> Vec<PlaneLayout> {
    let mut planes = desc.planes();
    match desc.format {
        PixelFormat::Nv12 => planes.truncate(2),
        // Sampled as NV12 with Cb and Cr swapped (`kit_ahb::sampling_format`): its interleaved
        // plane starts at its Cr sample.
        PixelFormat::Nv21 => {
            planes.swap_remove(1);
        }
        _ => {}
    }
    planes
}
