//! The allocator's unit tests: layouts, handles, imports and mappings.

use super::*;
use vkgen_abi::native_window::buffer_usage;

const USAGE: u64 = buffer_usage::GPU_RENDER_TARGET
    | buffer_usage::COMPOSER_OVERLAY
    | buffer_usage::CPU_READ_OFTEN
    | buffer_usage::FRONT_BUFFER;

#[test]
fn stride_is_padded_to_64_bytes() {
    let cases = [
        (1, PixelFormat::Rgba8888, 16),
        (16, PixelFormat::Rgba8888, 16),
        (17, PixelFormat::Rgba8888, 32),
        (100, PixelFormat::Rgb565, 128),
        (65, PixelFormat::R8, 128),
        (9, PixelFormat::RgbaFp16, 16),
        (1920, PixelFormat::Bgra8888, 1920),
    ];
    for (width, format, stride) in cases {
        let d = BufferDesc::new(width, 3, format, 0).unwrap();
        assert_eq!(d.stride, stride, "{width} {format:?}");
        assert_eq!(d.row_bytes() % ROW_ALIGNMENT, 0);
        assert_eq!(d.size, d.row_bytes() * 3);
    }
}

#[test]
fn formats_map_to_vulkan_and_back() {
    for f in PixelFormat::ALL {
        assert_eq!(PixelFormat::from_hal(f.hal()).unwrap(), f);
        assert_eq!(vk_format(f.hal()).unwrap(), f.vk_format());
        let back = PixelFormat::from_vk(f.vk_format()).unwrap();
        // RGBX shares RGBA's Vulkan format; everything else is one-to-one.
        assert_eq!(back.bytes_per_pixel(), f.bytes_per_pixel());
    }
    assert_eq!(PixelFormat::R8.vk_format(), vk::Format::R8_UNORM);
    assert_eq!(
        PixelFormat::Rgba1010102.vk_format(),
        vk::Format::A2B10G10R10_UNORM_PACK32
    );
    assert_eq!(
        PixelFormat::from_vk(vk::Format::R8G8B8A8_SRGB),
        Some(PixelFormat::Rgba8888)
    );
    assert_eq!(PixelFormat::from_vk(vk::Format::D16_UNORM), None);
    assert_eq!(bytes_per_pixel(HAL_PIXEL_FORMAT_RGBA_FP16).unwrap(), 8);
    assert!(matches!(
        bytes_per_pixel(3),
        Err(GrallocError::UnsupportedFormat(3))
    ));
}

#[test]
fn allocate_rejects_bad_requests() {
    let a = Allocator::new();
    assert!(matches!(
        a.allocate(4, 4, 0x7777, 0),
        Err(GrallocError::UnsupportedFormat(0x7777))
    ));
    assert!(matches!(
        a.allocate(0, 4, HAL_PIXEL_FORMAT_RGBA_8888, 0),
        Err(GrallocError::InvalidDimensions { .. })
    ));
    assert!(matches!(
        a.allocate(4, MAX_DIMENSION + 1, HAL_PIXEL_FORMAT_RGBA_8888, 0),
        Err(GrallocError::InvalidDimensions { .. })
    ));
}

#[test]
fn allocation_is_a_sealed_memfd_of_the_right_size() {
    let b = Allocator::new()
        .allocate(33, 7, HAL_PIXEL_FORMAT_RGB_565, USAGE)
        .unwrap();
    let d = *b.desc();
    assert_eq!((d.width, d.height, d.stride), (33, 7, 64));
    assert_eq!(d.size, 64 * 2 * 7);
    let st = rustix::fs::fstat(b.fd()).unwrap();
    assert_eq!(st.st_size as u64, d.size);
    let seals = rustix::fs::fcntl_get_seals(b.fd()).unwrap();
    assert!(seals.contains(SealFlags::SHRINK | SealFlags::GROW | SealFlags::SEAL));
    let flags = rustix::io::fcntl_getfd(b.fd()).unwrap();
    assert!(flags.contains(rustix::io::FdFlags::CLOEXEC));
}

#[test]
fn native_handle_round_trip() {
    let b = Allocator::new()
        .allocate(640, 480, HAL_PIXEL_FORMAT_RGBA_1010102, USAGE)
        .unwrap();
    let h = b.native_handle();
    // SAFETY: `h` is owned by `b`, which outlives these reads.
    unsafe {
        assert_eq!((*h).version, 12);
        assert_eq!((*h).num_fds, 1);
        assert_eq!((*h).num_ints, HANDLE_NUM_INTS as c_int);
        assert_eq!(NativeHandle::fds(h), &[b.fd().as_raw_fd()]);
        assert_eq!(NativeHandle::ints(h)[0], HANDLE_MAGIC);
        assert_eq!(BufferDesc::from_native_handle(h).unwrap(), *b.desc());
    }
    assert_eq!(b.desc().usage, USAGE, "64-bit usage survives the int split");
}

/// A copy of a valid handle's storage that tests can corrupt.
fn handle_words(b: &Buffer) -> Vec<c_int> {
    // SAFETY: the handle owned by `b` holds 4 + HANDLE_NUM_INTS ints.
    unsafe { std::slice::from_raw_parts(b.native_handle().cast::<c_int>(), 4 + HANDLE_NUM_INTS) }
        .to_vec()
}

#[test]
fn garbage_handles_are_rejected() {
    let b = Allocator::new()
        .allocate(64, 64, HAL_PIXEL_FORMAT_RGBA_8888, USAGE)
        .unwrap();
    let good = handle_words(&b);
    // SAFETY: `good` is a complete handle.
    unsafe { BufferDesc::from_native_handle(good.as_ptr().cast()) }.unwrap();

    // Patches of (word index, value): header 0..=2, fd 3, ints from 4 (magic, width, height,
    // stride, format, usage lo/hi, size lo/hi, offset lo/hi).
    let corruptions: &[&[(usize, c_int)]] = &[
        &[(0, 0)],                          // version
        &[(0, 16)],                         // version
        &[(1, 0)],                          // no fd
        &[(1, 2)],                          // two fds
        &[(1, -1)],                         // negative fd count
        &[(2, 0)],                          // no ints
        &[(2, -5)],                         // negative int count
        &[(2, 1 << 20)],                    // absurd int count: must not be read
        &[(3, -1)],                         // fd
        &[(4, 0x1234)],                     // magic
        &[(5, 0)],                          // width
        &[(5, -64)],                        // width
        &[(6, 0)],                          // height
        &[(6, MAX_DIMENSION as c_int + 1)], // height
        &[(7, 63)],                         // stride < width
        &[(7, -1)],                         // stride
        &[(8, 0x7777)],                     // format
        &[(8, HAL_PIXEL_FORMAT_RGBA_FP16)], // format needing twice the bytes
        &[(11, 100)],                       // size too small
        &[(11, 0), (12, 0)],                // size zero
        &[(13, -1), (14, -1)],              // offset + size overflows
    ];
    for &patch in corruptions {
        let mut words = good.clone();
        for &(i, v) in patch {
            words[i] = v;
        }
        // SAFETY: `words` holds a full-size handle; the header may lie, which is the point.
        let r = unsafe { BufferDesc::from_native_handle(words.as_ptr().cast()) };
        assert!(
            matches!(r, Err(GrallocError::InvalidHandle(_))),
            "corruption {patch:?} accepted: {r:?}"
        );
    }
    // SAFETY: null is explicitly allowed.
    let r = unsafe { BufferDesc::from_native_handle(ptr::null()) };
    assert!(matches!(r, Err(GrallocError::InvalidHandle("null handle"))));
}

#[test]
fn import_checks_the_fd_size() {
    let b = Allocator::new()
        .allocate(16, 16, HAL_PIXEL_FORMAT_R_8, 0)
        .unwrap();
    let mut words = handle_words(&b);
    // Claim a larger buffer than the fd holds (size_lo at data index 4 + 7).
    words[11] = c_int::try_from(b.desc().size * 2).unwrap();
    // SAFETY: `words` is a full-size handle whose fd (owned by `b`) is open.
    let r = unsafe { Buffer::import(words.as_ptr().cast()) };
    assert!(matches!(r, Err(GrallocError::FdTooSmall { .. })), "{r:?}");
}

#[test]
fn mapping_round_trip_and_sharing_through_import() {
    let mut b = Allocator::new()
        .allocate(10, 4, HAL_PIXEL_FORMAT_RGBA_8888, USAGE)
        .unwrap();
    let row = b.desc().row_bytes() as usize;
    {
        let mut m = b.map().unwrap();
        assert_eq!(m.len(), row * 4);
        assert!(m.as_slice().iter().all(|&x| x == 0), "memfd starts zeroed");
        for (i, px) in m.as_mut_slice().iter_mut().enumerate() {
            *px = (i % 251) as u8;
        }
    }
    {
        let m = b.map().unwrap();
        assert!(m
            .as_slice()
            .iter()
            .enumerate()
            .all(|(i, &x)| x == (i % 251) as u8));
    }
    // SAFETY: the handle is owned by `b`, alive, with an open fd.
    let mut imported = unsafe { Buffer::import(b.native_handle()) }.unwrap();
    assert_eq!(imported.desc(), b.desc());
    assert_ne!(imported.fd().as_raw_fd(), b.fd().as_raw_fd());
    {
        let mut m = imported.map().unwrap();
        assert_eq!(m.as_slice()[row + 3], ((row + 3) % 251) as u8);
        m.as_mut_slice()[row * 2] = 0xAB;
    }
    drop(imported);
    let m = b.map().unwrap();
    assert_eq!(m.as_slice()[row * 2], 0xAB, "writes reach the shared memfd");
}

#[test]
fn unsealed_fd_is_not_mapped() {
    let b = Allocator::new()
        .allocate(8, 8, HAL_PIXEL_FORMAT_RGBA_8888, 0)
        .unwrap();
    let desc = *b.desc();
    let fd = rustix::fs::memfd_create("unsealed", MemfdFlags::CLOEXEC).unwrap();
    rustix::fs::ftruncate(&fd, desc.size).unwrap();
    let mut forged = Buffer::new(desc, fd);
    assert!(matches!(forged.map(), Err(GrallocError::NotSealed)));
}

#[test]
fn window_buffer_is_filled() {
    let b = Allocator::new()
        .allocate(100, 50, HAL_PIXEL_FORMAT_BGRA_8888, USAGE)
        .unwrap();
    // SAFETY: ANativeWindowBuffer is plain data; all-zero is a valid (null) value.
    let mut anwb: ANativeWindowBuffer = unsafe { std::mem::zeroed() };
    b.init_window_buffer(&mut anwb);
    assert_eq!(anwb.common.magic, ANDROID_NATIVE_BUFFER_MAGIC);
    assert_eq!(
        anwb.common.version,
        size_of::<ANativeWindowBuffer>() as c_int
    );
    assert_eq!((anwb.width, anwb.height, anwb.stride), (100, 50, 112));
    assert_eq!(anwb.format, HAL_PIXEL_FORMAT_BGRA_8888);
    assert_eq!(anwb.usage, USAGE);
    assert_eq!(anwb.usage_deprecated as u32 as u64, USAGE & 0xffff_ffff);
    assert_eq!(anwb.layer_count, 1);
    assert_eq!(anwb.handle, b.native_handle());
}
