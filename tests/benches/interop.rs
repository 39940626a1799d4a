//! `AHardwareBuffer` interop benchmark (issue 13): our loader + `vulkan.host.so` (HAL) over the
//! host ICD (lavapipe here; NVIDIA on the GPU machine with `VKGEN_AHB_ICD=<its manifest>`).
//!
//! 1. **Import cost per frame** (CPU): a camera frame (NV12, 1920×1080 by default) written by
//!    the C producer into an `AHardwareBuffer` is imported as the tests do —
//!    `vkGetAndroidHardwareBufferPropertiesANDROID`, `vkCreateImage` (external), a dedicated
//!    `vkAllocateMemory` importing the buffer, `vkBindImageMemory` — and released again
//!    (`vkDestroyImage`, `vkFreeMemory`); four buffers are cycled, the median of all frames is
//!    reported. Zero copy on lavapipe; on NVIDIA the image is copy-backed (see the host
//!    backend's `copy_backed`), so its own memory is allocated here too.
//! 2. **GPU time** (timestamps, median): the acquire from the foreign producer (nothing on a
//!    zero-copy host; the staging → image copy on a copy-backed one), the conversion pass to
//!    RGBA (the Y′CbCr sampler where the device has `samplerYcbcrConversion`, else plane views +
//!    compute) into a device-local buffer, and, as the yardstick, `vkCmdCopyImage` of an RGBA8
//!    image of the same size (device-local, `OPTIMAL`). The tests check the pass's pixels.
//!    The ratio pass / copy says what sampling a camera frame costs against moving the RGBA
//!    frame the pass produces.
//!
//! The measurement runs in a child process (this binary re-executed with
//! `VKGEN_INTEROP_BENCH_CHILD`) with the loader's HAL configuration. `VKGEN_BENCH_ROUNDS`
//! (default 50) sets the GPU passes, `VKGEN_INTEROP_BENCH_SIZE=WxH` the frame size.
//!
//! Prerequisites: `cargo build --release --workspace`. Run:
//! `cargo bench -p vkgen-tests --bench interop`.

#[path = "../tests/ahb_support/mod.rs"]
mod ahb_support;
#[path = "../tests/wsi_support/mod.rs"]
mod wsi_support;

use std::time::{Duration, Instant};

use ahb_support::{Converter, Ndk, Vk, AHB_FORMAT_NV12};
use ash::vk;
use serde_json::{json, Value};
use vkgen_tests::env::{controlled_command, describe_status, output_with_timeout};
use vkgen_tests::paths;

const CHILD_VAR: &str = "VKGEN_INTEROP_BENCH_CHILD";
const RESULT_PREFIX: &str = "INTEROP_BENCH_RESULT ";
const IMPORT_FRAMES: usize = 200;

fn main() {
    // libtest-style arguments (`--bench`) are ignored.
    if std::env::var_os(CHILD_VAR).is_some() {
        child();
    } else {
        parent();
    }
}

fn rounds() -> usize {
    std::env::var("VKGEN_BENCH_ROUNDS")
        .ok()
        .and_then(|v| v.parse().ok())
        .filter(|&n| n > 0)
        .unwrap_or(50)
}

fn size() -> (u32, u32) {
    std::env::var("VKGEN_INTEROP_BENCH_SIZE")
        .ok()
        .and_then(|v| {
            let (w, h) = v.split_once('x')?;
            Some((w.parse().ok()?, h.parse().ok()?))
        })
        .unwrap_or((1920, 1080))
}

fn parent() {
    let exe = std::env::current_exe().expect("the bench binary");
    let (env, _root) = wsi_support::host_env_for_interop();
    let (w, h) = size();
    let env = env
        .set(CHILD_VAR, "1")
        .set("VKGEN_BENCH_ROUNDS", rounds().to_string())
        .set("VKGEN_INTEROP_BENCH_SIZE", format!("{w}x{h}"));
    let mut cmd = controlled_command(&exe, &env);
    let out = output_with_timeout(&mut cmd, Duration::from_secs(600)).expect("the bench child");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    let Some(line) = stdout.lines().find_map(|l| l.strip_prefix(RESULT_PREFIX)) else {
        panic!(
            "bench child failed ({}):\n{stdout}\n{stderr}",
            describe_status(out.status)
        );
    };
    let r: Value = serde_json::from_str(line).expect("child JSON");
    let f = |k: &str| r[k].as_f64().unwrap_or(f64::NAN);
    println!();
    println!(
        "AHardwareBuffer interop, {}x{} NV12, device: {}, conversion: {}",
        w,
        h,
        r["device"].as_str().unwrap_or("?"),
        r["conversion"].as_str().unwrap_or("?")
    );
    println!("| measurement | median |");
    println!("| --- | --- |");
    println!(
        "| import per frame: properties, image, dedicated import, bind (CPU, {IMPORT_FRAMES} frames) | {:.1} µs |",
        f("import_us")
    );
    println!(
        "| release per frame: destroy image, free memory (CPU) | {:.1} µs |",
        f("release_us")
    );
    println!(
        "| acquire from the producer (GPU) | {:.1} µs |",
        f("acquire_us")
    );
    println!("| conversion pass to RGBA (GPU) | {:.1} µs |", f("pass_us"));
    println!(
        "| RGBA8 image copy, same size (GPU) | {:.1} µs |",
        f("copy_us")
    );
    println!(
        "| pass / copy | {:.2} ; pass throughput {:.0} Mpixel/s |",
        f("pass_us") / f("copy_us"),
        f64::from(w * h) / f("pass_us")
    );
    println!("{RESULT_PREFIX}{r}");
}

fn median(mut v: Vec<f64>) -> f64 {
    v.sort_by(f64::total_cmp);
    v[v.len() / 2]
}

fn child() {
    let loader = paths::our_loader();
    let (w, h) = size();
    let dir = tempfile::tempdir().expect("temporary directory");
    let ndk = Ndk::load(dir.path());
    let vk = Vk::new(&loader);
    let d = &vk.device;
    // SAFETY: a core query on our own physical device.
    let props = unsafe { vk.instance.get_physical_device_properties(vk.pd) };
    let device_name = props
        .device_name_as_c_str()
        .map(|c| c.to_string_lossy().into_owned())
        .unwrap_or_default();
    let format = vk::Format::G8_B8R8_2PLANE_420_UNORM;
    let flags = if vk.ycbcr {
        vk::ImageCreateFlags::empty()
    } else {
        vk::ImageCreateFlags::MUTABLE_FORMAT
    };
    let usage = vk::ImageUsageFlags::SAMPLED;

    // 1. Import cost per frame.
    let buffers: Vec<_> = (0..4)
        .map(|frame| ndk.produce(w, h, AHB_FORMAT_NV12, frame))
        .collect();
    let mut import_us = Vec::with_capacity(IMPORT_FRAMES);
    let mut release_us = Vec::with_capacity(IMPORT_FRAMES);
    for i in 0..IMPORT_FRAMES {
        let b = buffers[i % buffers.len()];
        let start = Instant::now();
        let (image, memory) = vk.import_image(b, format, (w, h), usage, flags);
        let imported = Instant::now();
        // SAFETY: never used.
        unsafe {
            d.destroy_image(image, None);
            d.free_memory(memory, None);
        }
        import_us.push((imported - start).as_secs_f64() * 1e6);
        release_us.push(imported.elapsed().as_secs_f64() * 1e6);
    }

    // 2. GPU passes on one imported frame, against an RGBA8 copy.
    let (_, fmt) = vk.properties(buffers[0]).expect("properties");
    let (image, memory) = vk.import_image(buffers[0], format, (w, h), usage, flags);
    let converter = Converter::with_output(&vk, image, format, &fmt, (w, h), true);
    let period = f64::from(props.limits.timestamp_period);
    // SAFETY: plain Vulkan objects of our device, destroyed below after the queue is idle.
    let (pool, rgba) = unsafe {
        let pool = d
            .create_query_pool(
                &vk::QueryPoolCreateInfo::default()
                    .query_type(vk::QueryType::TIMESTAMP)
                    .query_count(5),
                None,
            )
            .expect("timestamp pool");
        let rgba = [0, 1].map(|_| rgba_image(&vk, (w, h)));
        (pool, rgba)
    };
    let range = vk::ImageSubresourceRange {
        aspect_mask: vk::ImageAspectFlags::COLOR,
        level_count: 1,
        layer_count: 1,
        ..Default::default()
    };
    vk.run(|cb| {
        let to = |image, layout| {
            vk::ImageMemoryBarrier::default()
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(layout)
                .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::TRANSFER_WRITE)
                .image(image)
                .subresource_range(range)
        };
        // SAFETY: a recording command buffer; our images.
        unsafe {
            d.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[
                    to(rgba[0].0, vk::ImageLayout::TRANSFER_SRC_OPTIMAL),
                    to(rgba[1].0, vk::ImageLayout::TRANSFER_DST_OPTIMAL),
                ],
            )
        };
    });
    let (mut acquire_us, mut pass_us, mut copy_us) = (Vec::new(), Vec::new(), Vec::new());
    let copy = vk::ImageCopy {
        src_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            layer_count: 1,
            ..Default::default()
        },
        dst_subresource: vk::ImageSubresourceLayers {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            layer_count: 1,
            ..Default::default()
        },
        extent: vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        },
        ..Default::default()
    };
    for _ in 0..rounds() {
        vk.run(|cb| {
            let stage = vk::PipelineStageFlags::ALL_COMMANDS;
            // SAFETY: a recording command buffer; our pool, images and pipeline.
            unsafe {
                d.cmd_reset_query_pool(cb, pool, 0, 5);
                d.cmd_write_timestamp(cb, stage, pool, 0);
                vk.acquire_from_foreign(cb, image, vk::ImageLayout::SHADER_READ_ONLY_OPTIMAL);
                d.cmd_write_timestamp(cb, stage, pool, 1);
                converter.record_dispatch(cb);
                d.cmd_write_timestamp(cb, stage, pool, 2);
                d.cmd_pipeline_barrier(
                    cb,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    vk::PipelineStageFlags::ALL_COMMANDS,
                    vk::DependencyFlags::empty(),
                    &[vk::MemoryBarrier::default()
                        .src_access_mask(vk::AccessFlags::MEMORY_WRITE)
                        .dst_access_mask(vk::AccessFlags::MEMORY_READ)],
                    &[],
                    &[],
                );
                d.cmd_write_timestamp(cb, stage, pool, 3);
                d.cmd_copy_image(
                    cb,
                    rgba[0].0,
                    vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                    rgba[1].0,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    &[copy],
                );
                d.cmd_write_timestamp(cb, stage, pool, 4);
            }
        });
        let mut t = [0u64; 5];
        // SAFETY: the five timestamps were written by the submission `run` waited for.
        unsafe {
            d.get_query_pool_results(pool, 0, &mut t, vk::QueryResultFlags::TYPE_64)
                .expect("timestamps")
        };
        let us = |a: u64, b: u64| (b.wrapping_sub(a)) as f64 * period / 1e3;
        acquire_us.push(us(t[0], t[1]));
        pass_us.push(us(t[1], t[2]));
        copy_us.push(us(t[3], t[4]));
    }
    drop(converter);
    // SAFETY: the queue is idle (`run` waits); our objects.
    unsafe {
        d.destroy_query_pool(pool, None);
        for (i, m) in rgba {
            d.destroy_image(i, None);
            d.free_memory(m, None);
        }
        d.destroy_image(image, None);
        d.free_memory(memory, None);
    }
    for b in buffers {
        ndk.release(b);
    }
    let result = json!({
        "device": device_name,
        "conversion": if vk.ycbcr { "Y'CbCr sampler" } else { "plane views + compute" },
        "width": w,
        "height": h,
        "import_us": median(import_us),
        "release_us": median(release_us),
        "acquire_us": median(acquire_us),
        "pass_us": median(pass_us),
        "copy_us": median(copy_us),
    });
    println!("{RESULT_PREFIX}{result}");
}

/// A device-local `OPTIMAL` RGBA8 image usable as a copy source and destination.
///
/// # Safety
/// Plain Vulkan calls on `vk`'s device; the caller destroys what it gets.
unsafe fn rgba_image(vk: &Vk, (w, h): (u32, u32)) -> (vk::Image, vk::DeviceMemory) {
    let d = &vk.device;
    let ci = vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: w,
            height: h,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::TRANSFER_SRC | vk::ImageUsageFlags::TRANSFER_DST);
    // SAFETY: `d` is a live device and `ci` a valid create info; the image is destroyed below.
    unsafe {
        let image = d.create_image(&ci, None).expect("RGBA image");
        let reqs = d.get_image_memory_requirements(image);
        let index = vk.device_local_type(reqs.memory_type_bits);
        let memory = d
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(reqs.size)
                    .memory_type_index(index),
                None,
            )
            .expect("image memory");
        d.bind_image_memory(image, memory, 0).expect("bind");
        (image, memory)
    }
}
