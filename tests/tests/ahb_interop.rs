//! Android's Vulkan 1.1 interop through our loader and `vulkan.host.so` (HAL) on the host ICD
//! (lavapipe in CI): `AHardwareBuffer` memory, 4:2:0 frames, and the loader passing the
//! driver extension through.
//!
//! 1. A camera-like producer written in C against `android/hardware_buffer.h` (built here with
//!    the system compiler against vkgen's header and `libnativewindow.so`) writes NV12 and YV12
//!    frames into `AHardwareBuffer`s from the CPU; the Vulkan consumer imports each buffer
//!    (dedicated, the format from `vkGetAndroidHardwareBufferPropertiesANDROID`; NV21 by its
//!    external format, where the host can sample one), converts it
//!    to RGBA — through a Y′CbCr conversion sampler with the suggested model, range and chroma
//!    offsets where the device has `samplerYcbcrConversion`, else through per-plane views
//!    (`R8`, `R8G8`) and a compute shader — and reads back: every pixel within 1 LSB of the CPU
//!    reference.
//! 2. Export → import: an RGBA image cleared by the GPU on one instance's device is exported as
//!    an `AHardwareBuffer` and imported on a second instance's device; the contents arrive.
//! 3. The properties query refuses a buffer without GPU usage and pointers that are not buffers
//!    with `VK_ERROR_INVALID_EXTERNAL_HANDLE`; an import of the wrong size likewise.
//!
//! `VKGEN_AHB_ICD` names another host ICD manifest (the GPU run uses NVIDIA's).

mod ahb_support;
mod wsi_support;

use std::ffi::c_void;
use std::ptr;

use ahb_support::*;
use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

fn assert_within_one_lsb(got: &[[u8; 3]], want: &[[u8; 3]], w: u32, what: &str) {
    assert_eq!(got.len(), want.len());
    for (i, (g, r)) in got.iter().zip(want).enumerate() {
        let off = g.iter().zip(r).map(|(a, b)| a.abs_diff(*b)).max().unwrap();
        assert!(
            off <= 1,
            "{what}: pixel ({}, {}) is {g:?}, the CPU reference says {r:?}",
            i as u32 % w,
            i as u32 / w
        );
    }
}

#[test]
fn camera_frames_convert_to_rgba_within_one_lsb() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child("camera_frames_convert_to_rgba_within_one_lsb", &env, || {
        let dir = tempfile::tempdir().unwrap();
        let ndk = Ndk::load(dir.path());
        let vk = Vk::new(&loader);
        println!(
            "conversion: {}",
            if vk.ycbcr {
                "Y'CbCr sampler"
            } else {
                "plane views + compute shader"
            }
        );
        let (w, h) = (96, 64);
        for (ahb_format, format) in [
            (AHB_FORMAT_NV12, vk::Format::G8_B8R8_2PLANE_420_UNORM),
            (AHB_FORMAT_YV12, vk::Format::G8_B8_R8_3PLANE_420_UNORM),
            // No Vulkan name: an external format, sampled only through a conversion.
            (AHB_FORMAT_NV21, vk::Format::UNDEFINED),
        ] {
            for frame in 0..3 {
                let b = ndk.produce(w, h, ahb_format, frame);
                let (_, fmt) = vk.properties(b).unwrap();
                assert_eq!(fmt.format, format);
                assert_ne!(fmt.external_format, 0);
                assert_eq!(
                    fmt.suggested_ycbcr_model,
                    vk::SamplerYcbcrModelConversion::YCBCR_601
                );
                assert_eq!(fmt.suggested_ycbcr_range, vk::SamplerYcbcrRange::ITU_NARROW);
                if format == vk::Format::UNDEFINED && !vk.ycbcr {
                    // Without the host's conversion an external format has no features.
                    assert_eq!(fmt.format_features, vk::FormatFeatureFlags::empty());
                    ndk.release(b);
                    continue;
                }
                assert!(fmt
                    .format_features
                    .contains(vk::FormatFeatureFlags::SAMPLED_IMAGE));
                let flags = if vk.ycbcr {
                    vk::ImageCreateFlags::empty()
                } else {
                    vk::ImageCreateFlags::MUTABLE_FORMAT
                };
                let (image, memory) =
                    vk.import_image(b, format, (w, h), vk::ImageUsageFlags::SAMPLED, flags);
                // The memory holds its own reference: the producer's can go now.
                ndk.release(b);
                let got = convert(&vk, image, format, &fmt, (w, h));
                let want = reference(&ndk, w, h, frame);
                assert_within_one_lsb(&got, &want, w, &format!("{format:?} frame {frame}"));
                // SAFETY: the conversion finished (waited for).
                unsafe {
                    vk.device.destroy_image(image, None);
                    vk.device.free_memory(memory, None);
                }
            }
        }
        println!(
            "NV12, YV12{}: 3 frames each, every pixel within 1 LSB of the CPU reference",
            if vk.ycbcr {
                " and NV21 (external format)"
            } else {
                " (NV21 reported without features: no host conversion)"
            }
        );
    });
}

#[test]
fn exported_buffer_carries_the_image_to_another_instance() {
    let (env, _root) = wsi_support::host_env_for_interop();
    export_import_round_trip(
        "exported_buffer_carries_the_image_to_another_instance",
        &env,
        false,
    );
}

/// The same round trip with both images copy-backed (their own memory, the contents copied at
/// the ownership transfers): what a host whose `LINEAR` layout is not the allocator's (NVIDIA)
/// does, forced here on lavapipe.
#[test]
fn copy_backed_images_carry_the_contents_at_ownership_transfers() {
    let (env, _root) = wsi_support::host_env_for_interop();
    let env = env.set("VKGEN_HOST_AHB_COPY", "1");
    export_import_round_trip(
        "copy_backed_images_carry_the_contents_at_ownership_transfers",
        &env,
        false,
    );
}

/// The copy-backed round trip with the release and the acquire through
/// `vkCmdPipelineBarrier2KHR` (the host driver rewrites both barrier generations).
#[test]
fn copy_backed_images_follow_synchronization2_barriers() {
    let (env, _root) = wsi_support::host_env_for_interop();
    let env = env.set("VKGEN_HOST_AHB_COPY", "1");
    export_import_round_trip(
        "copy_backed_images_follow_synchronization2_barriers",
        &env,
        true,
    );
}

fn export_import_round_trip(scenario: &str, env: &vkgen_tests::env::Env, sync2: bool) {
    let loader = require(paths::loader_under_test());
    in_child(scenario, env, || {
        let dir = tempfile::tempdir().unwrap();
        let ndk = Ndk::load(dir.path());
        let a = Vk::with_sync2(&loader, sync2);
        let b = Vk::with_sync2(&loader, sync2);
        let (w, h) = (40, 24);
        let usage = vk::ImageUsageFlags::TRANSFER_DST
            | vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::SAMPLED;
        let image = a.external_image(
            vk::Format::R8G8B8A8_UNORM,
            (w, h),
            usage,
            vk::ImageCreateFlags::empty(),
        );
        let mut export = vk::ExportMemoryAllocateInfo::default()
            .handle_types(vk::ExternalMemoryHandleTypeFlags::ANDROID_HARDWARE_BUFFER_ANDROID);
        let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
        // SAFETY: plain Vulkan use.
        let (memory, ahb) = unsafe {
            let reqs = a.device.get_image_memory_requirements(image);
            let info = vk::MemoryAllocateInfo::default()
                .memory_type_index(reqs.memory_type_bits.trailing_zeros())
                .push_next(&mut export)
                .push_next(&mut dedicated);
            let memory = a.device.allocate_memory(&info, None).expect("export");
            a.device.bind_image_memory(image, memory, 0).unwrap();
            let colour = vk::ClearColorValue {
                // 128/255 exactly: 0.5 lies between two UNORM8 codes, which drivers round
                // either way (NVIDIA's OPTIMAL clear gives 127).
                float32: [1.0, 128.0 / 255.0, 0.0, 1.0],
            };
            a.run(|cb| {
                let range = vk::ImageSubresourceRange {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    level_count: 1,
                    layer_count: 1,
                    ..Default::default()
                };
                let to_dst = vk::ImageMemoryBarrier::default()
                    .old_layout(vk::ImageLayout::UNDEFINED)
                    .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .image(image)
                    .subresource_range(range);
                a.device.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::TOP_OF_PIPE,
                    vk::PipelineStageFlags::TRANSFER,
                    vk::DependencyFlags::empty(),
                    &[],
                    &[],
                    &[to_dst],
                );
                a.device.cmd_clear_color_image(
                    cb,
                    image,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &colour,
                    &[range],
                );
                // Release to the foreign consumer.
                let release = vk::ImageMemoryBarrier::default()
                    .src_queue_family_index(a.family)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_FOREIGN_EXT)
                    .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                    .new_layout(vk::ImageLayout::GENERAL)
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .image(image)
                    .subresource_range(range);
                a.image_barrier(
                    cb,
                    (
                        vk::PipelineStageFlags::TRANSFER,
                        vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                    ),
                    release,
                );
            });
            let get = vk::MemoryGetAndroidHardwareBufferInfoANDROID::default().memory(memory);
            let ahb = a.ahb.get_memory_android_hardware_buffer(&get).unwrap();
            (memory, ahb.cast::<c_void>())
        };
        // The exported buffer is described like the image.
        let (props, fmt) = b.properties(ahb).expect("properties on the other instance");
        assert_eq!(fmt.format, vk::Format::R8G8B8A8_UNORM);
        assert!(props.allocation_size >= u64::from(w * h * 4));
        let (image_b, memory_b) = b.import_image(
            ahb,
            vk::Format::R8G8B8A8_UNORM,
            (w, h),
            vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::SAMPLED,
            vk::ImageCreateFlags::empty(),
        );
        // The exporter's objects go first: the buffer lives on in the import.
        // SAFETY: finished work; nothing uses them.
        unsafe {
            a.device.destroy_image(image, None);
            a.device.free_memory(memory, None);
        }
        ndk.release(ahb);
        let size = u64::from(w * h * 4);
        let (buf, buf_mem, mapped) = b.host_buffer(size, vk::BufferUsageFlags::TRANSFER_DST);
        b.run(|cb| {
            b.acquire_from_foreign(cb, image_b, vk::ImageLayout::TRANSFER_SRC_OPTIMAL);
            let region = vk::BufferImageCopy::default()
                .image_subresource(vk::ImageSubresourceLayers {
                    aspect_mask: vk::ImageAspectFlags::COLOR,
                    layer_count: 1,
                    ..Default::default()
                })
                .image_extent(vk::Extent3D {
                    width: w,
                    height: h,
                    depth: 1,
                });
            // SAFETY: a recording command buffer, valid objects.
            unsafe {
                b.device.cmd_copy_image_to_buffer(
                    cb,
                    image_b,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    buf,
                    &[region],
                )
            };
        });
        // SAFETY: finished work; host-visible memory.
        unsafe {
            let bytes = std::slice::from_raw_parts(mapped, size as usize);
            for (i, px) in bytes.chunks_exact(4).enumerate() {
                assert_eq!(
                    px,
                    [255, 128, 0, 255],
                    "pixel {i} on the importing instance"
                );
            }
            b.device.destroy_buffer(buf, None);
            b.device.free_memory(buf_mem, None);
            b.device.destroy_image(image_b, None);
            b.device.free_memory(memory_b, None);
        }
        println!("{w}x{h} RGBA exported by one instance, imported by another: contents preserved");
    });
}

#[test]
fn properties_refuse_what_is_not_an_importable_buffer() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child(
        "properties_refuse_what_is_not_an_importable_buffer",
        &env,
        || {
            let dir = tempfile::tempdir().unwrap();
            let ndk = Ndk::load(dir.path());
            let vk = Vk::new(&loader);
            let before = std::fs::read_dir("/proc/self/fd").unwrap().count();
            // CPU-only usage: not importable.
            let cpu_only = ndk.allocate(16, 16, AHB_FORMAT_RGBA8, 0x33);
            assert_eq!(
                vk.properties(cpu_only).err(),
                Some(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)
            );
            ndk.release(cpu_only);
            let garbage = [0x41u8; 512];
            for p in [
                ptr::null(),
                0x18 as *const c_void,
                garbage.as_ptr().cast::<c_void>(),
            ] {
                assert_eq!(
                    vk.properties(p).err(),
                    Some(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
                    "{p:?}"
                );
            }
            // An import whose size is not the buffer's.
            let good = ndk.allocate(16, 16, AHB_FORMAT_RGBA8, 0x100);
            let (props, _) = vk.properties(good).unwrap();
            let image = vk.external_image(
                vk::Format::R8G8B8A8_UNORM,
                (16, 16),
                vk::ImageUsageFlags::SAMPLED,
                vk::ImageCreateFlags::empty(),
            );
            let mut import =
                vk::ImportAndroidHardwareBufferInfoANDROID::default().buffer(good.cast());
            let mut dedicated = vk::MemoryDedicatedAllocateInfo::default().image(image);
            let info = vk::MemoryAllocateInfo::default()
                .allocation_size(props.allocation_size * 2)
                .memory_type_index(props.memory_type_bits.trailing_zeros())
                .push_next(&mut import)
                .push_next(&mut dedicated);
            // SAFETY: valid structures (the size is the point).
            let r = unsafe { vk.device.allocate_memory(&info, None) };
            assert_eq!(r, Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE));
            // SAFETY: unused.
            unsafe { vk.device.destroy_image(image, None) };
            ndk.release(good);
            assert_eq!(
                std::fs::read_dir("/proc/self/fd").unwrap().count(),
                before,
                "no fd leaked on the error paths"
            );
        },
    );
}
