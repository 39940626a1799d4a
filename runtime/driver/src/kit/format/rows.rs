//! The format table's rows as [`FormatInfo`], resolved once, and the lookups on them: the leaf
//! of `format`, which its children (and the rest of the kit, through `format`'s re-exports) read.

use std::sync::OnceLock;

use vkgen_generated::formats::{
    self as table, Chroma, Component, ComponentName, Compression, FormatRow, Plane,
};
use vkgen_generated::vk;

/// One format as the registry describes it, with the aspects it has.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FormatInfo {
    pub format: vk::Format,
    /// `VK_FORMAT_…`.
    pub name: &'static str,
    /// The compatibility class: formats of one class may alias in a view.
    pub class: &'static str,
    /// Bytes per texel block (for a depth/stencil format, the registry's copy size).
    pub block_size: u32,
    /// Texels per block in x, y, z.
    pub block_extent: [u32; 3],
    /// The registry's count; not always the product of `block_extent` (4:2:2, PVRTC).
    pub texels_per_block: u32,
    /// In the registry's order: most significant bits first for a PACK format, otherwise
    /// in memory order.
    pub components: &'static [Component],
    /// Plane `i` at index `i`; empty for a single-plane format.
    pub planes: &'static [Plane],
    /// Bit width of the packed word; 0 when the format is not packed.
    pub packed: u32,
    pub compressed: Option<Compression>,
    pub chroma: Option<Chroma>,
    /// DEPTH / STENCIL from D and S components, PLANE_i for multi-planar formats (with
    /// COLOR), COLOR otherwise.
    pub aspects: vk::ImageAspectFlags,
}

/// The table row of `format`; `None` for `VK_FORMAT_UNDEFINED` and formats the registry does
/// not describe.
pub fn info(format: vk::Format) -> Option<&'static FormatInfo> {
    let t = all();
    t.binary_search_by_key(&format.as_raw(), |f| f.format.as_raw())
        .ok()
        .map(|i| &t[i])
}

/// Every format the registry describes, sorted by `VkFormat` value.
pub fn all() -> &'static [FormatInfo] {
    static TABLE: OnceLock<Vec<FormatInfo>> = OnceLock::new();
    TABLE.get_or_init(|| table::FORMATS.iter().map(FormatInfo::from_row).collect())
}

const PLANE_ASPECTS: [vk::ImageAspectFlags; 3] = [
    vk::ImageAspectFlags::PLANE_0,
    vk::ImageAspectFlags::PLANE_1,
    vk::ImageAspectFlags::PLANE_2,
];

impl FormatInfo {
    fn from_row(r: &'static FormatRow) -> FormatInfo {
        let components = r.components();
        let planes = r.planes();
        let mut aspects = vk::ImageAspectFlags::empty();
        for c in components {
            aspects |= match c.name {
                ComponentName::D => vk::ImageAspectFlags::DEPTH,
                ComponentName::S => vk::ImageAspectFlags::STENCIL,
                _ => vk::ImageAspectFlags::COLOR,
            };
        }
        for p in PLANE_ASPECTS.iter().take(planes.len()) {
            aspects |= *p;
        }
        FormatInfo {
            format: r.format,
            name: r.name(),
            class: r.class(),
            block_size: u32::from(r.block_size),
            block_extent: r.block_extent.map(u32::from),
            texels_per_block: u32::from(r.texels_per_block),
            components,
            planes,
            packed: u32::from(r.packed),
            compressed: r.compressed,
            chroma: r.chroma,
            aspects,
        }
    }

    pub fn is_compressed(&self) -> bool {
        self.compressed.is_some()
    }

    pub fn is_depth_stencil(&self) -> bool {
        self.aspects
            .intersects(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL)
    }

    pub fn is_multi_planar(&self) -> bool {
        self.planes.len() > 1
    }

    /// Whether [`pack`](super::pack) can lay its texels out: uncompressed and single-plane (a
    /// 4:2:2 block of two texels included). A multi-planar format packs plane by plane, through
    /// [`FormatInfo::aspect_format`]'s compatible formats.
    pub fn is_packable(&self) -> bool {
        self.compressed.is_none()
            && self.planes.is_empty()
            && self.components.iter().all(|c| c.bits > 0)
    }

    /// The component named `name`.
    pub fn component(&self, name: ComponentName) -> Option<&'static Component> {
        self.components.iter().find(|c| c.name == name)
    }

    /// The single-plane format a view or copy of `aspect` uses: the plane's compatible format
    /// for PLANE_i, the depth-only or stencil-only format of one aspect of a combined
    /// depth/stencil format, the format itself for COLOR (or its only aspect).
    pub fn aspect_format(&self, aspect: vk::ImageAspectFlags) -> Option<&'static FormatInfo> {
        if let Some(i) = PLANE_ASPECTS.iter().position(|&p| p == aspect) {
            return info(self.planes.get(i)?.compatible);
        }
        if !self.aspects.contains(aspect) {
            return None;
        }
        let depth = self.component(ComponentName::D).map(|c| c.bits);
        let single = match aspect {
            vk::ImageAspectFlags::DEPTH if self.aspects != aspect => match depth? {
                16 => vk::Format::D16_UNORM,
                24 => vk::Format::X8_D24_UNORM_PACK32,
                _ => vk::Format::D32_SFLOAT,
            },
            vk::ImageAspectFlags::STENCIL if self.aspects != aspect => vk::Format::S8_UINT,
            _ => self.format,
        };
        info(single)
    }

    /// Bytes per texel block a copy of `aspect` moves to or from a buffer (the spec's
    /// "Copying Data Between Buffers and Images"): D16 2, D24 (packed in 32 bits) 4, D32 4,
    /// stencil 1, a plane its compatible format's block, COLOR the block size.
    pub fn aspect_copy_size(&self, aspect: vk::ImageAspectFlags) -> Option<u32> {
        self.aspect_format(aspect).map(|f| f.block_size)
    }

    /// Extent of plane `plane` of an image of `extent` (divided by the plane's divisors,
    /// rounded up); the extent itself for plane 0 of a single-plane format.
    pub fn plane_extent(&self, plane: usize, extent: vk::Extent3D) -> vk::Extent3D {
        match self.planes.get(plane) {
            Some(p) => vk::Extent3D {
                width: extent.width.div_ceil(u32::from(p.width_divisor.max(1))),
                height: extent.height.div_ceil(u32::from(p.height_divisor.max(1))),
                depth: extent.depth,
            },
            None => extent,
        }
    }

    /// Blocks covering `extent` in each dimension (a partial block counts whole).
    pub fn blocks(&self, extent: vk::Extent3D) -> [u32; 3] {
        let [bw, bh, bd] = self.block_extent.map(|b| b.max(1));
        [
            extent.width.div_ceil(bw),
            extent.height.div_ceil(bh),
            extent.depth.div_ceil(bd),
        ]
    }

    /// Byte offset of the block holding texel `(x, y, z)` in a layout with `row_pitch` bytes
    /// between block rows and `depth_pitch` between block slices.
    pub fn block_offset(&self, [x, y, z]: [u32; 3], row_pitch: u64, depth_pitch: u64) -> u64 {
        let [bw, bh, bd] = self.block_extent.map(|b| b.max(1));
        u64::from(z / bd) * depth_pitch
            + u64::from(y / bh) * row_pitch
            + u64::from(x / bw) * u64::from(self.block_size)
    }
}

/// Bytes per block and block extent `(bytes, width, height)` for sizing memory; 16 bytes per
/// texel for a format the table lacks (over-allocates, never under-allocates). Combined
/// depth/stencil formats keep depth and stencil apart in memory: D32S8 takes 8 bytes.
pub fn memory_block(format: vk::Format) -> (u64, u32, u32) {
    match info(format) {
        Some(f) if f.format == vk::Format::D32_SFLOAT_S8_UINT => (8, 1, 1),
        Some(f) => (
            u64::from(f.block_size),
            f.block_extent[0].max(1),
            f.block_extent[1].max(1),
        ),
        None => (16, 1, 1),
    }
}
