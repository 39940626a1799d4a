//! The format table as the kit sees it, packing exact values and round trips over every
//! uncompressed format, and copy regions to byte ranges.

use super::*;
use vk::Format as F;
use vk::ImageAspectFlags as A;
use vkgen_generated::vk;

fn color(c: [f32; 4]) -> vk::ClearColorValue {
    vk::ClearColorValue { float32: c }
}

fn floats(c: vk::ClearColorValue) -> [f32; 4] {
    // SAFETY: the union is 16 plain bytes; unpack_color wrote float32 for these float formats.
    unsafe { c.float32 }
}

fn word(bytes: &[u8]) -> u64 {
    bytes
        .iter()
        .rev()
        .fold(0u64, |v, &b| (v << 8) | u64::from(b))
}

#[test]
fn info_gives_sizes_and_aspects_from_the_registry() {
    assert!(!all().is_empty());
    assert!(info(F::UNDEFINED).is_none());
    let ds = info(F::D24_UNORM_S8_UINT).unwrap();
    assert_eq!((ds.block_size, ds.aspects), (4, A::DEPTH | A::STENCIL));
    assert_eq!(ds.aspect_copy_size(A::DEPTH), Some(4));
    assert_eq!(ds.aspect_copy_size(A::STENCIL), Some(1));
    assert_eq!(ds.aspect_copy_size(A::COLOR), None);
    let d32s8 = info(F::D32_SFLOAT_S8_UINT).unwrap();
    assert_eq!(
        (d32s8.block_size, d32s8.aspect_copy_size(A::DEPTH)),
        (5, Some(4))
    );
    assert_eq!(
        info(F::D16_UNORM_S8_UINT)
            .unwrap()
            .aspect_copy_size(A::DEPTH),
        Some(2)
    );
    let bc7 = info(F::BC7_SRGB_BLOCK).unwrap();
    assert_eq!(
        (bc7.block_size, bc7.block_extent, bc7.aspects),
        (16, [4, 4, 1], A::COLOR)
    );
    assert!(bc7.is_compressed() && !bc7.is_packable());
    let nv12 = info(F::G8_B8R8_2PLANE_420_UNORM).unwrap();
    assert_eq!(nv12.aspects, A::COLOR | A::PLANE_0 | A::PLANE_1);
    assert_eq!(
        nv12.aspect_format(A::PLANE_1).unwrap().format,
        F::R8G8_UNORM
    );
    let e = vk::Extent3D {
        width: 5,
        height: 3,
        depth: 1,
    };
    assert_eq!(
        nv12.plane_extent(1, e),
        vk::Extent3D {
            width: 3,
            height: 2,
            depth: 1
        }
    );
    assert_eq!(
        bc7.blocks(vk::Extent3D {
            width: 5,
            height: 8,
            depth: 1
        }),
        [2, 2, 1]
    );
    assert_eq!(bc7.block_offset([5, 9, 0], 32, 0), 2 * 32 + 16);
}

#[test]
fn exact_values() {
    let srgb = pack_color(F::R8G8B8A8_SRGB, &color([0.5, 0.5, 0.5, 0.5])).unwrap();
    assert_eq!(
        srgb,
        [188, 188, 188, 128],
        "sRGB transfer on RGB, alpha linear"
    );
    let rgb565 = pack_color(F::R5G6B5_UNORM_PACK16, &color([1.0, 0.0, 1.0, 1.0])).unwrap();
    assert_eq!(word(&rgb565), 0xF81F, "R in bits 15..11, B in 4..0");
    let g = pack_color(F::R5G6B5_UNORM_PACK16, &color([0.0, 1.0, 0.0, 0.0])).unwrap();
    assert_eq!(word(&g), 0x07E0);
    let a2 = pack_color(F::A2B10G10R10_UNORM_PACK32, &color([1.0, 0.0, 0.0, 1.0])).unwrap();
    assert_eq!(word(&a2), 0xC000_03FF, "A in bits 31..30, R in 9..0");
    let a2u = vk::ClearColorValue {
        uint32: [5, 6, 7, 2],
    };
    let a2u = pack_color(F::A2B10G10R10_UINT_PACK32, &a2u).unwrap();
    assert_eq!(word(&a2u), (2 << 30) | (7 << 20) | (6 << 10) | 5);
    // B10G11R11: R 11 bits at 0, G 11 at 11, B 10 at 22; 1.0 = exponent 15, mantissa 0.
    let uf = pack_color(F::B10G11R11_UFLOAT_PACK32, &color([1.0, 2.0, 0.5, 1.0])).unwrap();
    assert_eq!(word(&uf), (15 << 6) | ((16 << 6) << 11) | ((14 << 5) << 22));
    // E5B9G9R9 of (1, 0.5, 0): max 1 → exponent 16, mantissa 256 for 1.0, 128 for 0.5.
    let e5 = pack_color(F::E5B9G9R9_UFLOAT_PACK32, &color([1.0, 0.5, 0.0, 1.0])).unwrap();
    assert_eq!(word(&e5), (16 << 27) | (128 << 9) | 256);
    let back = floats(unpack_color(F::E5B9G9R9_UFLOAT_PACK32, &e5).unwrap());
    assert_eq!(back, [1.0, 0.5, 0.0, 1.0]);
    let half = pack_color(F::R16G16B16A16_SFLOAT, &color([1.0, -2.0, 0.5, 65504.0])).unwrap();
    assert_eq!(half, [0x00, 0x3c, 0x00, 0xc0, 0x00, 0x38, 0xff, 0x7b]);
    let snorm = pack_color(F::R8G8_SNORM, &color([-1.0, 0.5, 0.0, 0.0])).unwrap();
    assert_eq!(snorm, [0x81, 64]);
    let bgra = pack_color(F::B8G8R8A8_UNORM, &color([1.0, 0.0, 0.0, 1.0])).unwrap();
    assert_eq!(bgra, [0, 0, 255, 255]);
    let padded = pack_color(F::R10X6_UNORM_PACK16, &color([1.0, 0.0, 0.0, 0.0])).unwrap();
    assert_eq!(
        word(&padded),
        0x3ff << 6,
        "R10X6: the padding is the low 6 bits"
    );
}

#[test]
fn depth_and_stencil_per_aspect() {
    assert_eq!(pack_depth(F::D16_UNORM, 1.0).unwrap(), [0xff, 0xff]);
    let d24 = pack_depth(F::D24_UNORM_S8_UINT, 1.0).unwrap();
    assert_eq!(
        d24,
        [0xff, 0xff, 0xff, 0],
        "D24 copies as 4 bytes, top 8 bits zero"
    );
    assert_eq!(
        pack_depth(F::X8_D24_UNORM_PACK32, 0.5).unwrap(),
        [0, 0, 0x80, 0]
    );
    assert_eq!(
        pack_depth(F::D32_SFLOAT_S8_UINT, 0.25).unwrap(),
        0.25f32.to_le_bytes()
    );
    assert_eq!(pack_stencil(F::D24_UNORM_S8_UINT, 0x1ab).unwrap(), [0xab]);
    assert_eq!(unpack_stencil(F::S8_UINT, &[7]), Some(7));
    assert!(pack_stencil(F::D32_SFLOAT, 1).is_none());
    assert!(pack_depth(F::S8_UINT, 1.0).is_none());
    assert!(pack_depth(F::R8_UNORM, 1.0).is_none());
    for f in [
        F::D16_UNORM,
        F::X8_D24_UNORM_PACK32,
        F::D32_SFLOAT,
        F::D24_UNORM_S8_UINT,
    ] {
        let bytes = pack_depth(f, 0.75).unwrap();
        let back = unpack_depth(f, &bytes).unwrap();
        assert!((back - 0.75).abs() < 1e-4, "{f:?}: {back}");
    }
}

/// A value every numeric format can hold in some form, per channel.
fn sample(numeric: NumericFormat, channel: usize) -> vk::ClearColorValue {
    let fl = [0.25, 0.5, 0.75, 1.0];
    match numeric {
        NumericFormat::Uint => vk::ClearColorValue {
            uint32: [1, 2, 3, 1],
        },
        NumericFormat::Sint => vk::ClearColorValue {
            int32: [-1, 2, -3, 1],
        },
        NumericFormat::Snorm | NumericFormat::Sscaled | NumericFormat::Sfixed5 => {
            color([-0.5, 0.5, -1.0, 1.0])
        }
        NumericFormat::Uscaled => color([1.0, 2.0, 3.0, 1.0]),
        _ => {
            let _ = channel;
            color(fl)
        }
    }
}

#[test]
fn every_uncompressed_format_round_trips() {
    let mut colour = 0;
    for f in all().iter().filter(|f| f.compressed.is_none()) {
        if f.is_multi_planar() {
            for plane in 0..f.planes.len() {
                let p = f
                    .aspect_format(A::from_raw(A::PLANE_0.as_raw() << plane))
                    .unwrap();
                assert!(p.is_packable(), "{}: plane {plane}", f.name);
            }
            continue;
        }
        if f.aspects.contains(A::COLOR) {
            let v = sample(f.components[0].numeric_format, 0);
            let bytes = pack_color(f.format, &v).unwrap_or_else(|| panic!("{} packs", f.name));
            assert_eq!(bytes.len(), f.block_size as usize, "{}", f.name);
            let back = unpack_color(f.format, &bytes).unwrap();
            assert_eq!(
                pack_color(f.format, &back).unwrap(),
                bytes,
                "{} round trip",
                f.name
            );
            colour += 1;
        }
        if f.aspects.contains(A::DEPTH) {
            let bytes = pack_depth(f.format, 0.5).unwrap();
            assert_eq!(
                pack_depth(f.format, unpack_depth(f.format, &bytes).unwrap()).unwrap(),
                bytes
            );
        }
        if f.aspects.contains(A::STENCIL) {
            assert_eq!(
                unpack_stencil(f.format, &pack_stencil(f.format, 9).unwrap()),
                Some(9)
            );
        }
    }
    assert!(colour > 150, "{colour} colour formats");
}

#[test]
fn unorm_and_float_values_read_back() {
    let bytes = pack_color(F::R8G8B8A8_UNORM, &color([0.0, 1.0, 0.2, 1.0])).unwrap();
    let back = floats(unpack_color(F::R8G8B8A8_UNORM, &bytes).unwrap());
    assert_eq!(back[1], 1.0);
    assert!((back[2] - 0.2).abs() < 0.5 / 255.0);
    let r = pack_color(F::R32_SFLOAT, &color([3.5, 0.0, 0.0, 0.0])).unwrap();
    let back = floats(unpack_color(F::R32_SFLOAT, &r).unwrap());
    assert_eq!(
        back,
        [3.5, 0.0, 0.0, 1.0],
        "missing components read 0, alpha 1"
    );
    let s = pack_color(
        F::R8_SINT,
        &vk::ClearColorValue {
            int32: [-200, 0, 0, 0],
        },
    )
    .unwrap();
    assert_eq!(s, [0x80], "clamped to -128");
}

fn region(aspect: A, row: u32, height: u32, extent: (u32, u32, u32), layers: u32) -> CopyRegion {
    CopyRegion {
        buffer_offset: 64,
        buffer_row_length: row,
        buffer_image_height: height,
        aspect,
        layer_count: layers,
        image_extent: vk::Extent3D {
            width: extent.0,
            height: extent.1,
            depth: extent.2,
        },
    }
}

#[test]
fn copy_regions_to_byte_ranges() {
    let tight =
        buffer_copy_layout(F::R8G8B8A8_UNORM, &region(A::COLOR, 0, 0, (5, 3, 1), 1)).unwrap();
    assert_eq!(
        (
            tight.row_pitch,
            tight.slice_pitch,
            tight.row_bytes,
            tight.rows
        ),
        (20, 60, 20, 3)
    );
    assert_eq!(tight.range, 64..124);
    let rows: Vec<_> = tight.row_ranges().map(|(_, _, r)| r).collect();
    assert_eq!(rows, [64..84, 84..104, 104..124]);

    let long =
        buffer_copy_layout(F::R8G8B8A8_UNORM, &region(A::COLOR, 8, 4, (5, 3, 1), 2)).unwrap();
    assert_eq!(
        (long.row_pitch, long.slice_pitch, long.slices),
        (32, 128, 2)
    );
    assert_eq!(long.range, 64..64 + 128 + 2 * 32 + 20);
    assert_eq!(
        buffer_copy_layout(F::R8G8B8A8_UNORM, &region(A::COLOR, 4, 0, (5, 3, 1), 1)),
        Err(CopyError::Pitch)
    );

    // BC1: 8 bytes per 4x4 block; 6x6 texels are 2x2 blocks.
    let bc1 = buffer_copy_layout(
        F::BC1_RGBA_UNORM_BLOCK,
        &region(A::COLOR, 0, 0, (6, 6, 1), 1),
    )
    .unwrap();
    assert_eq!(
        (bc1.row_pitch, bc1.rows, bc1.range.clone()),
        (16, 2, 64..96)
    );
    let bc1 = buffer_copy_layout(
        F::BC1_RGBA_UNORM_BLOCK,
        &region(A::COLOR, 8, 8, (4, 4, 1), 1),
    )
    .unwrap();
    assert_eq!((bc1.row_pitch, bc1.slice_pitch), (16, 32));
    assert_eq!(
        buffer_copy_layout(
            F::BC1_RGBA_UNORM_BLOCK,
            &region(A::COLOR, 6, 0, (4, 4, 1), 1)
        ),
        Err(CopyError::Pitch),
        "row length not whole blocks"
    );

    let depth =
        buffer_copy_layout(F::D24_UNORM_S8_UINT, &region(A::DEPTH, 0, 0, (4, 2, 1), 1)).unwrap();
    assert_eq!((depth.block_size, depth.range.clone()), (4, 64..96));
    let stencil = buffer_copy_layout(
        F::D24_UNORM_S8_UINT,
        &region(A::STENCIL, 0, 0, (4, 2, 1), 1),
    )
    .unwrap();
    assert_eq!((stencil.block_size, stencil.range.clone()), (1, 64..72));
    let d32 =
        buffer_copy_layout(F::D32_SFLOAT_S8_UINT, &region(A::DEPTH, 0, 0, (4, 2, 1), 1)).unwrap();
    assert_eq!(d32.block_size, 4);
    assert_eq!(
        buffer_copy_layout(
            F::D24_UNORM_S8_UINT,
            &region(A::DEPTH | A::STENCIL, 0, 0, (4, 2, 1), 1)
        ),
        Err(CopyError::Aspect)
    );

    // 2-plane 4:2:0: plane 1 is R8G8 at half size in both dimensions (the region's extent
    // is the plane's, as the spec has it for a plane copy).
    let p0 = buffer_copy_layout(
        F::G8_B8R8_2PLANE_420_UNORM,
        &region(A::PLANE_0, 0, 0, (8, 4, 1), 1),
    )
    .unwrap();
    assert_eq!((p0.block_size, p0.range.clone()), (1, 64..96));
    let p1 = buffer_copy_layout(
        F::G8_B8R8_2PLANE_420_UNORM,
        &region(A::PLANE_1, 0, 0, (4, 2, 1), 1),
    )
    .unwrap();
    assert_eq!(
        (p1.format.format, p1.block_size, p1.range.clone()),
        (F::R8G8_UNORM, 2, 64..80)
    );
    assert_eq!(
        buffer_copy_layout(F::R8_UNORM, &region(A::PLANE_0, 0, 0, (4, 2, 1), 1)),
        Err(CopyError::Aspect)
    );

    let empty = buffer_copy_layout(F::R8_UNORM, &region(A::COLOR, 0, 0, (0, 2, 1), 1)).unwrap();
    assert_eq!(empty.range, 64..64);
}

#[test]
fn linear_layout_follows_the_table() {
    use crate::kit::resources::ImageDesc;
    let desc = |format, w, h| ImageDesc {
        flags: vk::ImageCreateFlags::empty(),
        image_type: vk::ImageType::TYPE_2D,
        format,
        extent: vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        },
        mip_levels: 1,
        array_layers: 1,
        samples: vk::SampleCountFlags::TYPE_1,
        tiling: vk::ImageTiling::LINEAR,
        usage: vk::ImageUsageFlags::SAMPLED,
    };
    let bc7 = linear_layout(&desc(F::BC7_UNORM_BLOCK, 10, 10));
    assert_eq!((bc7.levels[0].row_pitch, bc7.levels[0].size), (48, 144));
    let nv12 = linear_layout(&desc(F::G8_B8R8_2PLANE_420_UNORM, 16, 8));
    let l = nv12.levels[0];
    assert_eq!((l.planes[0].row_pitch, l.planes[0].size), (16, 128));
    assert_eq!(
        (l.planes[1].offset, l.planes[1].row_pitch, l.planes[1].size),
        (256, 16, 64)
    );
    let sub = nv12.subresource(A::PLANE_1, 0, 0);
    assert_eq!((sub.offset, sub.row_pitch, sub.size), (256, 16, 64));
    let ds = linear_layout(&desc(F::D32_SFLOAT_S8_UINT, 4, 1));
    assert_eq!(
        ds.levels[0].row_pitch, 32,
        "D32S8 keeps both aspects in 8 bytes"
    );
}
