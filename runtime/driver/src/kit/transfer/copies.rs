//! `vkCmdCopyBufferToImage{,2}`, `vkCmdCopyImageToBuffer{,2}` and `vkCmdCopyImage{,2}`: byte
//! copies by texel block. The buffer side follows [`buffer_copy_layout`] (row length, image
//! height, aspect copy sizes); the image side the linear layout ([`super::access`]). A
//! combined depth/stencil aspect moves its own bytes of each texel: D24's three depth bytes
//! become the low three of the buffer's 32-bit word (the top byte written as 0), the
//! stencil byte one byte of the buffer.

use vkgen_generated::vk;

use super::access::dropped;
use super::access::{self, bits, buffer, Aspect, Host, ImageMem};
use crate::kit::format::{buffer_copy_layout, CopyRegion};

/// One buffer↔image region, from either form of the command.
pub(super) struct BufferImage {
    pub(super) copy: CopyRegion,
    pub(super) subresource: vk::ImageSubresourceLayers,
    pub(super) offset: vk::Offset3D,
}

impl From<&vk::BufferImageCopy> for BufferImage {
    fn from(r: &vk::BufferImageCopy) -> Self {
        BufferImage {
            copy: r.into(),
            subresource: r.image_subresource,
            offset: r.image_offset,
        }
    }
}

impl From<&vk::BufferImageCopy2<'_>> for BufferImage {
    fn from(r: &vk::BufferImageCopy2<'_>) -> Self {
        BufferImage {
            copy: r.into(),
            subresource: r.image_subresource,
            offset: r.image_offset,
        }
    }
}

/// Copies `regions` between `buf` and `img`: into the image when `to_image`.
///
/// # Safety
/// Recorded handles of a pending command buffer (live, or refused by type).
pub(super) unsafe fn buffer_image(
    what: &str,
    buf: vk::Buffer,
    img: vk::Image,
    regions: impl Iterator<Item = BufferImage>,
    to_image: bool,
) {
    // SAFETY: the caller's recorded handles.
    let (b, i) = match unsafe { (buffer(buf), ImageMem::new(img)) } {
        (Ok(b), Ok(i)) => (b, i),
        (Err(why), _) | (_, Err(why)) => return dropped(what, 0, &why),
    };
    for (n, r) in regions.enumerate() {
        if let Err(why) = buffer_image_region(b, &i, r, to_image) {
            dropped(what, n, &why);
        }
    }
}

fn buffer_image_region(
    b: Host,
    i: &ImageMem<'_>,
    r: BufferImage,
    to_image: bool,
) -> Result<(), String> {
    let sub = r.subresource;
    let a = i.aspect(sub.aspect_mask)?;
    let layers = i.layers(sub.base_array_layer, sub.layer_count);
    let copy = CopyRegion {
        layer_count: layers,
        ..r.copy
    };
    let l = buffer_copy_layout(i.image.desc.format, &copy).map_err(|e| e.to_string())?;
    if l.range.end > b.len() {
        return Err(format!("buffer bytes {:?} of {}", l.range, b.len()));
    }
    let (start, count) = i.block_box(
        &a,
        sub.mip_level,
        (sub.base_array_layer, layers),
        r.offset,
        copy.image_extent,
    )?;
    let depth = count[2].max(1);
    let size = u64::from(l.block_size);
    let moved = a.bytes.min(size);
    for (s, row, range) in l.row_ranges() {
        let layer = sub.base_array_layer + s / depth;
        let at = [start[0], start[1] + row, start[2] + s % depth];
        let texel = i.texel(&a, sub.mip_level, layer, at, 0);
        if a.whole() && i.samples == 1 && a.block == size {
            row_copy(b, range.start, i.host, texel, l.row_bytes, to_image)?;
            continue;
        }
        for x in 0..count[0] {
            let texel = i.texel(&a, sub.mip_level, layer, [at[0] + x, at[1], at[2]], 0);
            let buf_at = range.start + u64::from(x) * size;
            row_copy(b, buf_at, i.host, texel, moved, to_image)?;
            if !to_image && moved < size {
                let pad = vec![0u8; (size - moved) as usize];
                access::write(b, buf_at + moved, &pad);
            }
        }
    }
    Ok(())
}

/// One run of bytes between the buffer and the image, in the copy's direction.
fn row_copy(b: Host, at: u64, img: Host, texel: u64, n: u64, to_image: bool) -> Result<(), String> {
    let ok = if to_image {
        access::copy(b, at, img, texel, n)
    } else {
        access::copy(img, texel, b, at, n)
    };
    ok.then_some(())
        .ok_or_else(|| format!("{n} bytes at image byte {texel} / buffer byte {at}"))
}

/// One image↔image region, from either form of the command.
pub(super) struct ImageImage {
    pub(super) src: vk::ImageSubresourceLayers,
    pub(super) src_offset: vk::Offset3D,
    pub(super) dst: vk::ImageSubresourceLayers,
    pub(super) dst_offset: vk::Offset3D,
    pub(super) extent: vk::Extent3D,
}

impl From<&vk::ImageCopy> for ImageImage {
    fn from(r: &vk::ImageCopy) -> Self {
        ImageImage {
            src: r.src_subresource,
            src_offset: r.src_offset,
            dst: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
        }
    }
}

impl From<&vk::ImageCopy2<'_>> for ImageImage {
    fn from(r: &vk::ImageCopy2<'_>) -> Self {
        ImageImage {
            src: r.src_subresource,
            src_offset: r.src_offset,
            dst: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
        }
    }
}

/// `vkCmdCopyImage{,2}`: each region's blocks copied byte for byte (formats of one size
/// class; compressed ↔ uncompressed by block), every sample of a multisampled pair.
///
/// # Safety
/// As [`buffer_image`].
pub(super) unsafe fn image_image(
    what: &str,
    src: vk::Image,
    dst: vk::Image,
    regions: impl Iterator<Item = ImageImage>,
) {
    // SAFETY: the caller's recorded handles.
    let (s, d) = match unsafe { (ImageMem::new(src), ImageMem::new(dst)) } {
        (Ok(s), Ok(d)) => (s, d),
        (Err(why), _) | (_, Err(why)) => return dropped(what, 0, &why),
    };
    for (n, r) in regions.enumerate() {
        let src_bits: Vec<_> = bits(r.src.aspect_mask).collect();
        let dst_bits: Vec<_> = bits(r.dst.aspect_mask).collect();
        if src_bits.len() != dst_bits.len() || src_bits.is_empty() {
            dropped(what, n, "the source and destination aspects do not pair up");
            continue;
        }
        for (sb, db) in src_bits.into_iter().zip(dst_bits) {
            let pair = s.aspect(sb).and_then(|sa| Ok((sa, d.aspect(db)?)));
            if let Err(why) = pair.and_then(|(sa, da)| image_region(&s, &sa, &d, &da, &r)) {
                dropped(what, n, &why);
            }
        }
    }
}

/// One aspect pair of one `vkCmdCopyImage` region.
fn image_region(
    s: &ImageMem<'_>,
    sa: &Aspect,
    d: &ImageMem<'_>,
    da: &Aspect,
    r: &ImageImage,
) -> Result<(), String> {
    if sa.bytes != da.bytes || s.samples != d.samples {
        return Err(format!(
            "{} ({} bytes, {} samples) and {} ({} bytes, {} samples) are not copy-compatible",
            s.info.name, sa.bytes, s.samples, d.info.name, da.bytes, d.samples
        ));
    }
    // A 3D image's depth slices pair with the other image's layers.
    let slices = |i: &ImageMem<'_>, sub: &vk::ImageSubresourceLayers| {
        if i.is_3d() {
            (0, 1, r.extent.depth)
        } else {
            let layers = i.layers(sub.base_array_layer, sub.layer_count);
            (sub.base_array_layer, layers, layers)
        }
    };
    let (s_base, s_layers, s_slices) = slices(s, &r.src);
    let (d_base, d_layers, d_slices) = slices(d, &r.dst);
    if s_slices != d_slices {
        return Err(format!(
            "{s_slices} source slices to {d_slices} destination slices"
        ));
    }
    let with_depth = |i: &ImageMem<'_>| vk::Extent3D {
        depth: if i.is_3d() { r.extent.depth } else { 1 },
        ..r.extent
    };
    let (s0, n) = s.block_box(
        sa,
        r.src.mip_level,
        (s_base, s_layers),
        r.src_offset,
        with_depth(s),
    )?;
    // The destination's extent is the source's blocks in the destination's block size.
    let [bw, bh, _] = da.format.block_extent.map(|b| b.max(1));
    let dst_extent = vk::Extent3D {
        width: (n[0] * bw).min(
            d.extent(da, r.dst.mip_level)
                .width
                .saturating_sub(r.dst_offset.x.max(0) as u32),
        ),
        height: (n[1] * bh).min(
            d.extent(da, r.dst.mip_level)
                .height
                .saturating_sub(r.dst_offset.y.max(0) as u32),
        ),
        depth: if d.is_3d() { r.extent.depth } else { 1 },
    };
    let (d0, dn) = d.block_box(
        da,
        r.dst.mip_level,
        (d_base, d_layers),
        r.dst_offset,
        dst_extent,
    )?;
    if dn[0] != n[0] || dn[1] != n[1] {
        return Err(format!(
            "{n:?} source blocks do not fit the destination ({dn:?})"
        ));
    }
    let run = if sa.whole() && da.whole() && sa.block == da.block {
        u64::from(n[0]) * s.samples * sa.block
    } else {
        0
    };
    for slice in 0..s_slices {
        let (sl, sz) = if s.is_3d() {
            (0, s0[2] + slice)
        } else {
            (s_base + slice, s0[2])
        };
        let (dl, dz) = if d.is_3d() {
            (0, d0[2] + slice)
        } else {
            (d_base + slice, d0[2])
        };
        for y in 0..n[1] {
            let st = |x: u32, smp: u64| {
                s.texel(sa, r.src.mip_level, sl, [s0[0] + x, s0[1] + y, sz], smp)
            };
            let dt = |x: u32, smp: u64| {
                d.texel(da, r.dst.mip_level, dl, [d0[0] + x, d0[1] + y, dz], smp)
            };
            if run > 0 {
                if !access::copy(s.host, st(0, 0), d.host, dt(0, 0), run) {
                    return Err(format!("row {y} of slice {slice} lies outside an image"));
                }
                continue;
            }
            for x in 0..n[0] {
                for smp in 0..s.samples {
                    if !access::copy(s.host, st(x, smp), d.host, dt(x, smp), sa.bytes) {
                        return Err(format!("texel {x} of row {y} lies outside an image"));
                    }
                }
            }
        }
    }
    Ok(())
}
