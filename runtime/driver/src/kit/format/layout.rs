//! The packed linear layout of kit images: what a CPU device reads and writes, and what
//! `vkGetImageSubresourceLayout` reports for every tiling (a CPU device has no other). Also
//! reachable as `kit::resources::linear_layout`.
//!
//! Each array layer holds its mip levels in order; each level its planes in order (one for a
//! single-plane format), each plane's block rows tightly packed; layers, levels and planes
//! start on [`ALIGNMENT`]. Block sizes come from the format table ([`super::memory_block`]):
//! compressed formats by whole blocks, combined depth/stencil as one texel holding both
//! aspects (D32S8 in 8 bytes), multi-planar planes in their compatible formats at their
//! subsampled extents. A format the table lacks is sized at 16 bytes per texel, which
//! over-allocates but never under-allocates.

use vkgen_generated::vk;

use super::rows::{info, memory_block};
use crate::kit::resources::desc::ImageDesc;

/// Alignment of an image's memory and of each of its subresources and planes.
pub const ALIGNMENT: u64 = 256;

/// One plane of one mip level: offset from the level's start, and its pitches.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct PlaneLayout {
    pub offset: u64,
    pub size: u64,
    pub row_pitch: u64,
    pub depth_pitch: u64,
}

/// One mip level's place in a layer of the linear layout.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct LevelLayout {
    /// From the layer's start.
    pub offset: u64,
    /// Every plane's bytes.
    pub size: u64,
    /// Plane 0's pitches (the only plane of a single-plane format).
    pub row_pitch: u64,
    pub depth_pitch: u64,
    /// `planes[i]` for `VK_IMAGE_ASPECT_PLANE_i_BIT`; only `planes[0]` is used by a
    /// single-plane format, where it is the level itself.
    pub planes: [PlaneLayout; 3],
}

/// The packed linear layout of one image.
#[derive(Clone, Debug, Default, PartialEq, Eq)]
pub struct LinearLayout {
    pub levels: Vec<LevelLayout>,
    /// Bytes from one array layer to the next.
    pub array_pitch: u64,
    pub total: u64,
}

impl LinearLayout {
    /// `vkGetImageSubresourceLayout`'s answer for `aspect` (a plane's for PLANE_i, the level's
    /// otherwise) of `mip_level` in `array_layer`.
    pub fn subresource(
        &self,
        aspect: vk::ImageAspectFlags,
        mip_level: u32,
        array_layer: u32,
    ) -> vk::SubresourceLayout {
        let l = self
            .levels
            .get(mip_level as usize)
            .copied()
            .unwrap_or_default();
        let plane = match aspect {
            vk::ImageAspectFlags::PLANE_1 => l.planes[1],
            vk::ImageAspectFlags::PLANE_2 => l.planes[2],
            _ if aspect == vk::ImageAspectFlags::PLANE_0 => l.planes[0],
            _ => PlaneLayout {
                offset: 0,
                size: l.size,
                row_pitch: l.row_pitch,
                depth_pitch: l.depth_pitch,
            },
        };
        vk::SubresourceLayout {
            offset: u64::from(array_layer) * self.array_pitch + l.offset + plane.offset,
            size: plane.size,
            row_pitch: plane.row_pitch,
            array_pitch: self.array_pitch,
            depth_pitch: plane.depth_pitch,
        }
    }
}

/// The linear layout of an image `desc` describes.
pub fn linear_layout(desc: &ImageDesc) -> LinearLayout {
    let samples = u64::from(desc.samples.as_raw().max(1));
    // (format, width divisor, height divisor) of each plane.
    let planes: Vec<(vk::Format, u32, u32)> = match info(desc.format) {
        Some(f) if !f.planes.is_empty() => f
            .planes
            .iter()
            .map(|p| {
                let div = |d: u8| u32::from(d.max(1));
                (p.compatible, div(p.width_divisor), div(p.height_divisor))
            })
            .collect(),
        _ => vec![(desc.format, 1, 1)],
    };
    let mut levels = Vec::with_capacity(desc.mip_levels as usize);
    let mut offset = 0u64;
    for level in 0..desc.mip_levels.clamp(1, 32) {
        let dim = |d: u32| (d >> level).max(1);
        let (w, h, d) = (
            dim(desc.extent.width),
            dim(desc.extent.height),
            dim(desc.extent.depth),
        );
        let mut out = LevelLayout {
            offset,
            ..LevelLayout::default()
        };
        let mut at = 0u64;
        for (i, &(format, wd, hd)) in planes.iter().take(3).enumerate() {
            let (bytes, bw, bh) = memory_block(format);
            // Saturating: an absurd extent gives an unsatisfiable size, not a wrapped one.
            let row_pitch = u64::from(w.div_ceil(wd).div_ceil(bw))
                .saturating_mul(bytes)
                .saturating_mul(samples);
            let depth_pitch = row_pitch.saturating_mul(u64::from(h.div_ceil(hd).div_ceil(bh)));
            let size = depth_pitch.saturating_mul(u64::from(d));
            out.planes[i] = PlaneLayout {
                offset: at,
                size,
                row_pitch,
                depth_pitch,
            };
            at = at.saturating_add(size);
            if i + 1 < planes.len() {
                at = align(at);
            }
        }
        out.size = at;
        out.row_pitch = out.planes[0].row_pitch;
        out.depth_pitch = out.planes[0].depth_pitch;
        levels.push(out);
        offset = align(offset.saturating_add(at));
    }
    let array_pitch = offset.max(ALIGNMENT);
    LinearLayout {
        levels,
        array_pitch,
        total: array_pitch.saturating_mul(u64::from(desc.array_layers.max(1))),
    }
}

fn align(v: u64) -> u64 {
    v.checked_next_multiple_of(ALIGNMENT).unwrap_or(u64::MAX)
}
