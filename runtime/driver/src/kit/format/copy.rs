//! Buffer↔image copy regions as byte ranges (the spec's "Copying Data Between Buffers and
//! Images"), so an engine's `cmd_copy_buffer_to_image` / `cmd_copy_image_to_buffer` is a loop
//! over rows rather than 40 lines of addressing.
//!
//! The rules: the buffer is addressed in texel blocks of the *aspect's* format — a plane's
//! compatible format, the depth-only or stencil-only format of one aspect of a combined
//! depth/stencil format (D24 copies as 4 bytes, stencil as 1, D32S8's depth as 4) — with rows
//! of `bufferRowLength` texels and slices of `bufferImageHeight` rows, 0 meaning "tight"
//! (the region's extent), each rounded up to whole blocks; array layers follow one another as
//! further slices. A row length or image height below the extent, or not a multiple of the
//! block extent, breaks a valid-usage rule: it is refused ([`CopyError`]), never rounded into
//! someone else's bytes.

use std::ops::Range;

use vkgen_generated::vk;

use super::rows::{info, FormatInfo};

/// The parts of a `VkBufferImageCopy`/`VkBufferImageCopy2` that decide the buffer's bytes.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct CopyRegion {
    pub buffer_offset: u64,
    pub buffer_row_length: u32,
    pub buffer_image_height: u32,
    pub aspect: vk::ImageAspectFlags,
    /// Resolved: not `VK_REMAINING_ARRAY_LAYERS`.
    pub layer_count: u32,
    pub image_extent: vk::Extent3D,
}

impl From<&vk::BufferImageCopy> for CopyRegion {
    fn from(r: &vk::BufferImageCopy) -> Self {
        CopyRegion {
            buffer_offset: r.buffer_offset,
            buffer_row_length: r.buffer_row_length,
            buffer_image_height: r.buffer_image_height,
            aspect: r.image_subresource.aspect_mask,
            layer_count: r.image_subresource.layer_count,
            image_extent: r.image_extent,
        }
    }
}

impl From<&vk::BufferImageCopy2<'_>> for CopyRegion {
    fn from(r: &vk::BufferImageCopy2<'_>) -> Self {
        CopyRegion {
            buffer_offset: r.buffer_offset,
            buffer_row_length: r.buffer_row_length,
            buffer_image_height: r.buffer_image_height,
            aspect: r.image_subresource.aspect_mask,
            layer_count: r.image_subresource.layer_count,
            image_extent: r.image_extent,
        }
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CopyError {
    /// The registry does not describe the format (or the tables have no `<formats>`).
    UnknownFormat,
    /// The format has no such aspect, or more than one aspect bit was given.
    Aspect,
    /// `VK_REMAINING_ARRAY_LAYERS`: resolve it against the image first.
    UnresolvedLayers,
    /// `bufferRowLength` / `bufferImageHeight` below the extent or not whole blocks.
    Pitch,
    /// The region's bytes overflow 64 bits.
    Overflow,
}

impl std::fmt::Display for CopyError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.write_str(match self {
            CopyError::UnknownFormat => "the format table does not describe the format",
            CopyError::Aspect => "the aspect is not exactly one aspect of the format",
            CopyError::UnresolvedLayers => "layerCount is VK_REMAINING_ARRAY_LAYERS",
            CopyError::Pitch => {
                "bufferRowLength/bufferImageHeight is below the extent or not whole blocks"
            }
            CopyError::Overflow => "the region's byte range overflows",
        })
    }
}

impl std::error::Error for CopyError {}

/// Where a region's texel blocks lie in the buffer.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct BufferCopyLayout {
    /// The format the buffer holds (the aspect's single-plane format).
    pub format: &'static FormatInfo,
    /// Bytes per block in the buffer.
    pub block_size: u32,
    pub offset: u64,
    /// Bytes from one block row to the next.
    pub row_pitch: u64,
    /// Bytes from one slice (depth slice or array layer) to the next.
    pub slice_pitch: u64,
    /// Bytes of one block row the copy moves.
    pub row_bytes: u64,
    /// Block rows per slice.
    pub rows: u32,
    /// Depth slices (in blocks) times layers.
    pub slices: u32,
    /// Every byte the copy reads or writes lies in here (empty for an empty extent).
    pub range: Range<u64>,
}

impl BufferCopyLayout {
    /// `(slice, row, bytes)` of every block row the copy moves, in buffer order.
    pub fn row_ranges(&self) -> impl Iterator<Item = (u32, u32, Range<u64>)> + '_ {
        (0..self.slices).flat_map(move |s| {
            (0..self.rows).map(move |r| {
                let at =
                    self.offset + u64::from(s) * self.slice_pitch + u64::from(r) * self.row_pitch;
                (s, r, at..at + self.row_bytes)
            })
        })
    }
}

/// The buffer side of copy `region` for an image of `format`.
pub fn buffer_copy_layout(
    format: vk::Format,
    region: &CopyRegion,
) -> Result<BufferCopyLayout, CopyError> {
    let image = info(format).ok_or(CopyError::UnknownFormat)?;
    if region.aspect.as_raw().count_ones() != 1 {
        return Err(CopyError::Aspect);
    }
    // Planes are copied in their compatible format, depth and stencil in their own; a
    // single-aspect format (COLOR, or D16 alone) copies as itself.
    let f = image
        .aspect_format(region.aspect)
        .ok_or(CopyError::Aspect)?;
    if region.layer_count == vk::REMAINING_ARRAY_LAYERS {
        return Err(CopyError::UnresolvedLayers);
    }
    let e = region.image_extent;
    let [bw, bh, _] = f.block_extent.map(|b| b.max(1));
    let tight = |given: u32, extent: u32, block: u32| match given {
        0 => Ok(extent),
        g if g < extent || !g.is_multiple_of(block) => Err(CopyError::Pitch),
        g => Ok(g),
    };
    let row_length = tight(region.buffer_row_length, e.width, bw)?;
    let image_height = tight(region.buffer_image_height, e.height, bh)?;
    let [w_blocks, h_blocks, d_blocks] = f.blocks(e);
    let block = u64::from(f.block_size);
    let row_pitch = u64::from(row_length.div_ceil(bw)) * block;
    let slice_pitch = row_pitch
        .checked_mul(u64::from(image_height.div_ceil(bh)))
        .ok_or(CopyError::Overflow)?;
    let row_bytes = u64::from(w_blocks) * block;
    let slices = d_blocks
        .checked_mul(region.layer_count.max(1))
        .ok_or(CopyError::Overflow)?;
    let empty = w_blocks == 0 || h_blocks == 0 || slices == 0;
    let end = if empty {
        Some(region.buffer_offset)
    } else {
        // The last byte: last slice, last row, end of its blocks.
        u64::from(slices - 1)
            .checked_mul(slice_pitch)
            .and_then(|s| s.checked_add(u64::from(h_blocks - 1).checked_mul(row_pitch)?))
            .and_then(|s| s.checked_add(row_bytes))
            .and_then(|s| s.checked_add(region.buffer_offset))
    };
    Ok(BufferCopyLayout {
        format: f,
        block_size: f.block_size,
        offset: region.buffer_offset,
        row_pitch,
        slice_pitch,
        row_bytes,
        rows: h_blocks,
        slices,
        range: region.buffer_offset..end.ok_or(CopyError::Overflow)?,
    })
}
