//! `vkCmdBlitImage{,2}` and `vkCmdResolveImage{,2}` on uncompressed single-plane formats.
//!
//! A blit maps each destination texel centre back into the source box (flips included):
//! `NEAREST` takes the texel it falls in, `LINEAR` filters the four around it in x and y
//! (the nearest slice in z) on the values [`unpack_color`] reads, clamped to the edge, and
//! [`pack_color`] writes them in the destination's format. A `NEAREST` blit between images of
//! one format, and any depth/stencil blit (only `NEAREST` is valid there), copies the texel's
//! bytes instead: no value goes through a float. A resolve averages the samples of a
//! float or normalized format and takes sample 0 of an integer one; from a single-sample
//! image it is a byte copy.

use vkgen_generated::vk;

use super::access::dropped;
use super::access::{self, bits, Aspect, ImageMem};
use crate::kit::format::{pack_color, unpack_color, NumericFormat};

/// One blit region, from either form of the command.
pub(super) struct Blit {
    pub(super) src: vk::ImageSubresourceLayers,
    pub(super) src_offsets: [vk::Offset3D; 2],
    pub(super) dst: vk::ImageSubresourceLayers,
    pub(super) dst_offsets: [vk::Offset3D; 2],
}

impl From<&vk::ImageBlit> for Blit {
    fn from(r: &vk::ImageBlit) -> Self {
        Blit {
            src: r.src_subresource,
            src_offsets: r.src_offsets,
            dst: r.dst_subresource,
            dst_offsets: r.dst_offsets,
        }
    }
}

impl From<&vk::ImageBlit2<'_>> for Blit {
    fn from(r: &vk::ImageBlit2<'_>) -> Self {
        Blit {
            src: r.src_subresource,
            src_offsets: r.src_offsets,
            dst: r.dst_subresource,
            dst_offsets: r.dst_offsets,
        }
    }
}

/// The source and destination images of a blit or resolve, or why the command is dropped.
///
/// # Safety
/// Recorded handles of a pending command buffer (live, or refused by type).
unsafe fn pair<'a>(src: vk::Image, dst: vk::Image) -> Result<(ImageMem<'a>, ImageMem<'a>), String> {
    // SAFETY: the caller's recorded handles.
    let (s, d) = unsafe { (ImageMem::new(src)?, ImageMem::new(dst)?) };
    for i in [&s, &d] {
        if !i.info.is_packable() {
            return Err(format!("{} is compressed or multi-planar", i.info.name));
        }
    }
    Ok((s, d))
}

/// `vkCmdBlitImage{,2}`.
///
/// # Safety
/// As [`pair`].
pub(super) unsafe fn blit(
    what: &str,
    src: vk::Image,
    dst: vk::Image,
    regions: impl Iterator<Item = Blit>,
    filter: vk::Filter,
) {
    // SAFETY: the caller's recorded handles.
    let (s, d) = match unsafe { pair(src, dst) } {
        Ok(p) => p,
        Err(why) => return dropped(what, 0, &why),
    };
    for (n, r) in regions.enumerate() {
        for bit in bits(r.src.aspect_mask) {
            let aspects = s.aspect(bit).and_then(|sa| Ok((sa, d.aspect(bit)?)));
            if let Err(why) = aspects.and_then(|(sa, da)| blit_region(&s, &sa, &d, &da, &r, filter))
            {
                dropped(what, n, &why);
            }
        }
    }
}

/// The destination texels `lo..hi` of one axis and, for each, where its centre falls in the
/// source (in source texels).
fn axis(dst: [i32; 2], src: [i32; 2]) -> (i32, i32, impl Fn(i32) -> f64) {
    let (lo, hi) = (dst[0].min(dst[1]), dst[0].max(dst[1]));
    let span = i64::from(dst[1]) - i64::from(dst[0]);
    let scale = if span == 0 {
        0.0
    } else {
        (i64::from(src[1]) - i64::from(src[0])) as f64 / span as f64
    };
    let (d0, s0) = (f64::from(dst[0]), f64::from(src[0]));
    (lo, hi, move |x| s0 + (f64::from(x) + 0.5 - d0) * scale)
}

fn blit_region(
    s: &ImageMem<'_>,
    sa: &Aspect,
    d: &ImageMem<'_>,
    da: &Aspect,
    r: &Blit,
    filter: vk::Filter,
) -> Result<(), String> {
    let [s0, s1] = r.src_offsets;
    let [d0, d1] = r.dst_offsets;
    let layers = s.layers(r.src.base_array_layer, r.src.layer_count);
    let dst_layers = d.layers(r.dst.base_array_layer, r.dst.layer_count);
    if layers != dst_layers {
        return Err(format!(
            "{layers} source layers to {dst_layers} destination layers"
        ));
    }
    // Both boxes must lie in their images (each offset pair may be flipped).
    let check =
        |i: &ImageMem<'_>, a: &Aspect, sub: &vk::ImageSubresourceLayers, o: [vk::Offset3D; 2]| {
            let lo = vk::Offset3D {
                x: o[0].x.min(o[1].x),
                y: o[0].y.min(o[1].y),
                z: o[0].z.min(o[1].z),
            };
            let extent = vk::Extent3D {
                width: o[0].x.abs_diff(o[1].x),
                height: o[0].y.abs_diff(o[1].y),
                depth: o[0].z.abs_diff(o[1].z),
            };
            i.block_box(a, sub.mip_level, (sub.base_array_layer, layers), lo, extent)
        };
    check(s, sa, &r.src, r.src_offsets)?;
    check(d, da, &r.dst, r.dst_offsets)?;
    let size = s.extent(sa, r.src.mip_level);
    let bytes_only = sa.format.format == da.format.format
        && (filter == vk::Filter::NEAREST || s.info.is_depth_stencil());
    let (xl, xh, fx) = axis([d0.x, d1.x], [s0.x, s1.x]);
    let (yl, yh, fy) = axis([d0.y, d1.y], [s0.y, s1.y]);
    let (zl, zh, fz) = axis([d0.z, d1.z], [s0.z, s1.z]);
    let clamp = |v: i64, n: u32| v.clamp(0, i64::from(n.max(1)) - 1) as u32;
    let mut texel = vec![0u8; sa.bytes as usize];
    for layer in 0..layers {
        let (sl, dl) = (
            r.src.base_array_layer + layer,
            r.dst.base_array_layer + layer,
        );
        for z in zl..zh {
            let sz = clamp(fz(z).floor() as i64, size.depth);
            for y in yl..yh {
                for x in xl..xh {
                    let to = d.texel(da, r.dst.mip_level, dl, [x as u32, y as u32, z as u32], 0);
                    let (u, v) = (fx(x), fy(y));
                    let src_at = |tx: i64, ty: i64| {
                        s.texel(
                            sa,
                            r.src.mip_level,
                            sl,
                            [clamp(tx, size.width), clamp(ty, size.height), sz],
                            0,
                        )
                    };
                    let ok = if bytes_only {
                        let from = src_at(u.floor() as i64, v.floor() as i64);
                        access::copy(s.host, from, d.host, to, sa.bytes)
                    } else {
                        let value = if filter == vk::Filter::NEAREST {
                            read_color(
                                s,
                                sa,
                                src_at(u.floor() as i64, v.floor() as i64),
                                &mut texel,
                            )
                        } else {
                            bilinear(s, sa, u - 0.5, v - 0.5, &src_at, &mut texel)
                        };
                        value
                            .and_then(|c| pack_color(da.format.format, &c))
                            .is_some_and(|b| access::write(d.host, to, &b))
                    };
                    if !ok {
                        return Err(format!(
                            "texel ({x}, {y}, {z}) could not be read or written"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

/// The colour at byte `at` of the source.
fn read_color(
    s: &ImageMem<'_>,
    a: &Aspect,
    at: u64,
    buf: &mut [u8],
) -> Option<vk::ClearColorValue> {
    access::read(s.host, at, buf).then_some(())?;
    unpack_color(a.format.format, buf)
}

/// The four texels around `(u, v)` (texel-centre coordinates), weighted.
fn bilinear(
    s: &ImageMem<'_>,
    a: &Aspect,
    u: f64,
    v: f64,
    src_at: &dyn Fn(i64, i64) -> u64,
    buf: &mut [u8],
) -> Option<vk::ClearColorValue> {
    let (x0, y0) = (u.floor(), v.floor());
    let (tx, ty) = ((u - x0) as f32, (v - y0) as f32);
    let (x0, y0) = (x0 as i64, y0 as i64);
    let mut sum = [0f32; 4];
    for (dx, dy, w) in [
        (0, 0, (1.0 - tx) * (1.0 - ty)),
        (1, 0, tx * (1.0 - ty)),
        (0, 1, (1.0 - tx) * ty),
        (1, 1, tx * ty),
    ] {
        let c = read_color(s, a, src_at(x0 + dx, y0 + dy), buf)?;
        // SAFETY: every member of VkClearColorValue is 16 plain bytes (LINEAR is valid only
        // on formats `unpack_color` reads as floats).
        let f = unsafe { c.float32 };
        for (acc, v) in sum.iter_mut().zip(f) {
            *acc += w * v;
        }
    }
    Some(vk::ClearColorValue { float32: sum })
}

/// One resolve region, from either form of the command.
pub(super) struct Resolve {
    pub(super) src: vk::ImageSubresourceLayers,
    pub(super) src_offset: vk::Offset3D,
    pub(super) dst: vk::ImageSubresourceLayers,
    pub(super) dst_offset: vk::Offset3D,
    pub(super) extent: vk::Extent3D,
}

impl From<&vk::ImageResolve> for Resolve {
    fn from(r: &vk::ImageResolve) -> Self {
        Resolve {
            src: r.src_subresource,
            src_offset: r.src_offset,
            dst: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
        }
    }
}

impl From<&vk::ImageResolve2<'_>> for Resolve {
    fn from(r: &vk::ImageResolve2<'_>) -> Self {
        Resolve {
            src: r.src_subresource,
            src_offset: r.src_offset,
            dst: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
        }
    }
}

/// `vkCmdResolveImage{,2}`.
///
/// # Safety
/// As [`pair`].
pub(super) unsafe fn resolve(
    what: &str,
    src: vk::Image,
    dst: vk::Image,
    regions: impl Iterator<Item = Resolve>,
) {
    // SAFETY: the caller's recorded handles.
    let (s, d) = match unsafe { pair(src, dst) } {
        Ok(p) => p,
        Err(why) => return dropped(what, 0, &why),
    };
    for (n, r) in regions.enumerate() {
        if let Err(why) = resolve_region(&s, &d, &r) {
            dropped(what, n, &why);
        }
    }
}

fn resolve_region(s: &ImageMem<'_>, d: &ImageMem<'_>, r: &Resolve) -> Result<(), String> {
    let sa = s.aspect(vk::ImageAspectFlags::COLOR)?;
    let da = d.aspect(vk::ImageAspectFlags::COLOR)?;
    if sa.bytes != da.bytes {
        return Err(format!(
            "{} does not resolve into {}",
            s.info.name, d.info.name
        ));
    }
    let layers = s.layers(r.src.base_array_layer, r.src.layer_count);
    let (s0, n) = s.block_box(
        &sa,
        r.src.mip_level,
        (r.src.base_array_layer, layers),
        r.src_offset,
        r.extent,
    )?;
    let (d0, _) = d.block_box(
        &da,
        r.dst.mip_level,
        (r.dst.base_array_layer, layers),
        r.dst_offset,
        r.extent,
    )?;
    let integer = s
        .info
        .components
        .iter()
        .any(|c| matches!(c.numeric_format, NumericFormat::Uint | NumericFormat::Sint));
    let average = s.samples > 1 && !integer;
    let mut buf = vec![0u8; sa.bytes as usize];
    for layer in 0..layers {
        for z in 0..n[2] {
            for y in 0..n[1] {
                for x in 0..n[0] {
                    let at = |smp| {
                        let p = [s0[0] + x, s0[1] + y, s0[2] + z];
                        s.texel(&sa, r.src.mip_level, r.src.base_array_layer + layer, p, smp)
                    };
                    let to = d.texel(
                        &da,
                        r.dst.mip_level,
                        r.dst.base_array_layer + layer,
                        [d0[0] + x, d0[1] + y, d0[2] + z],
                        0,
                    );
                    let ok = if average {
                        let mut sum = [0f32; 4];
                        let all = (0..s.samples).all(|smp| {
                            read_color(s, &sa, at(smp), &mut buf).is_some_and(|c| {
                                // SAFETY: 16 plain bytes; a non-integer format reads as floats.
                                let f = unsafe { c.float32 };
                                sum.iter_mut().zip(f).for_each(|(a, v)| *a += v);
                                true
                            })
                        });
                        let mean = vk::ClearColorValue {
                            float32: sum.map(|v| v / s.samples as f32),
                        };
                        all && pack_color(da.format.format, &mean)
                            .is_some_and(|b| access::write(d.host, to, &b))
                    } else {
                        access::copy(s.host, at(0), d.host, to, sa.bytes)
                    };
                    if !ok {
                        return Err(format!(
                            "texel ({x}, {y}, {z}) could not be read or written"
                        ));
                    }
                }
            }
        }
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::axis;

    #[test]
    fn destination_centres_map_back_into_the_source() {
        // 2 → 4 texels: centres 0.5…3.5 land on 0.25, 0.75, 1.25, 1.75.
        let (lo, hi, f) = axis([0, 4], [0, 2]);
        assert_eq!((lo, hi), (0, 4));
        assert_eq!(
            (lo..hi).map(&f).collect::<Vec<_>>(),
            [0.25, 0.75, 1.25, 1.75]
        );
        // A flipped destination walks the source backwards.
        let (lo, hi, f) = axis([4, 0], [0, 4]);
        assert_eq!((lo, hi), (0, 4));
        assert_eq!((lo..hi).map(&f).collect::<Vec<_>>(), [3.5, 2.5, 1.5, 0.5]);
        // An empty destination axis has no texels (and no division by zero).
        let (lo, hi, _) = axis([3, 3], [0, 2]);
        assert_eq!(lo, hi);
    }
}
