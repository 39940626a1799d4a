//! `vkCmdClearColorImage` and `vkCmdClearDepthStencilImage`: the clear value packed once
//! ([`pack_color`], [`pack_depth`], [`pack_stencil`]) and written to every texel and sample of
//! every subresource of the ranges. A format the packer cannot lay out (compressed,
//! multi-planar) drops the command with a warning.

use vkgen_generated::vk;

use super::access::dropped;
use super::access::{self, bits, Aspect, ImageMem};
use crate::kit::format::{pack_color, pack_depth, pack_stencil};

/// `vkCmdClearColorImage`.
///
/// # Safety
/// `image` is a recorded handle of a pending command buffer (live, or refused by type).
pub(super) unsafe fn color(
    image: vk::Image,
    color: &vk::ClearColorValue,
    ranges: &[vk::ImageSubresourceRange],
) {
    const WHAT: &str = "vkCmdClearColorImage";
    // SAFETY: the caller's recorded handle.
    let i = match unsafe { ImageMem::new(image) } {
        Ok(i) => i,
        Err(why) => return dropped(WHAT, 0, &why),
    };
    let Some(value) = pack_color(i.image.desc.format, color) else {
        return dropped(WHAT, 0, &format!("{} cannot be packed", i.info.name));
    };
    for (n, r) in ranges.iter().enumerate() {
        let done = i
            .aspect(vk::ImageAspectFlags::COLOR)
            .and_then(|a| clear_range(&i, &a, r, &value));
        if let Err(why) = done {
            dropped(WHAT, n, &why);
        }
    }
}

/// `vkCmdClearDepthStencilImage`: each range's DEPTH and STENCIL bits.
///
/// # Safety
/// As [`color`].
pub(super) unsafe fn depth_stencil(
    image: vk::Image,
    value: &vk::ClearDepthStencilValue,
    ranges: &[vk::ImageSubresourceRange],
) {
    const WHAT: &str = "vkCmdClearDepthStencilImage";
    // SAFETY: the caller's recorded handle.
    let i = match unsafe { ImageMem::new(image) } {
        Ok(i) => i,
        Err(why) => return dropped(WHAT, 0, &why),
    };
    let format = i.image.desc.format;
    for (n, r) in ranges.iter().enumerate() {
        for bit in bits(r.aspect_mask) {
            let bytes = match bit {
                vk::ImageAspectFlags::DEPTH => pack_depth(format, value.depth),
                vk::ImageAspectFlags::STENCIL => pack_stencil(format, value.stencil),
                _ => None,
            };
            let done = match bytes {
                Some(b) => i.aspect(bit).and_then(|a| {
                    // The aspect's bytes in memory: D24's low three of its copy word.
                    let mem = &b[..(a.bytes as usize).min(b.len())];
                    clear_range(&i, &a, r, mem)
                }),
                None => Err(format!("{} has no {bit:?} to clear", i.info.name)),
            };
            if let Err(why) = done {
                dropped(WHAT, n, &why);
            }
        }
    }
}

/// Writes `value` (aspect `a`'s bytes of one texel) over every texel of range `r`.
fn clear_range(
    i: &ImageMem<'_>,
    a: &Aspect,
    r: &vk::ImageSubresourceRange,
    value: &[u8],
) -> Result<(), String> {
    let desc = &i.image.desc;
    let levels = if r.level_count == vk::REMAINING_MIP_LEVELS {
        desc.mip_levels.saturating_sub(r.base_mip_level)
    } else {
        r.level_count
    };
    if r.base_mip_level
        .checked_add(levels)
        .is_none_or(|end| end > desc.mip_levels)
    {
        return Err(format!(
            "mip levels {}..+{levels} of {}",
            r.base_mip_level, desc.mip_levels
        ));
    }
    let layers = i.layers(r.base_array_layer, r.layer_count);
    // One row of the aspect's texels, every sample: written with one copy when the aspect is
    // the whole texel, texel by texel otherwise.
    let whole_row = |w: u32| value.repeat((u64::from(w) * i.samples) as usize);
    for mip in r.base_mip_level..r.base_mip_level + levels {
        let e = i.extent(a, mip);
        let (start, count) = i.block_box(
            a,
            mip,
            (r.base_array_layer, layers),
            vk::Offset3D::default(),
            e,
        )?;
        let row = whole_row(count[0]);
        for layer in r.base_array_layer..r.base_array_layer + layers {
            for z in start[2]..start[2] + count[2] {
                for y in start[1]..start[1] + count[1] {
                    let at = |x: u32, s: u64| i.texel(a, mip, layer, [x, y, z], s);
                    let ok = if a.whole() {
                        access::write(i.host, at(0, 0), &row)
                    } else {
                        (0..count[0])
                            .all(|x| (0..i.samples).all(|s| access::write(i.host, at(x, s), value)))
                    };
                    if !ok {
                        return Err(format!("row {y} of mip {mip} lies outside the image"));
                    }
                }
            }
        }
    }
    Ok(())
}
