//! `Kit::HOST_TRANSFERS`: a driver whose engine executes nothing gets every transfer command
//! run by the kit on host memory — fills, updates, buffer copies, buffer↔image copies (row
//! length and image height, a D24S8 aspect copy), image copies, clears, blits (NEAREST and
//! LINEAR scaling) and resolves — byte for byte, through the real entry points with ash; a
//! region out of range is dropped and the rest of the command buffer still runs; a method the
//! engine defines wins over the kit's; and the requirements report counts the commands and
//! their format features as run. Every fixture's queue runs on `kit::queue::Worker`.

use std::ffi::CStr;
use std::sync::atomic::{AtomicUsize, Ordering};

mod support;

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::command::{CommandBuffer, Execute};
use vkgen_driver::kit::queue::{Batch, Completion, Worker};
use vkgen_driver::kit::requirements::{format_findings, unimplemented_commands, Missing};
use vkgen_driver::kit::{self, Kit};

/// An engine that runs nothing: every effect is the kit's.
struct Nothing;
impl Execute for Nothing {}

/// Counts the fills it runs (the one transfer it defines) and leaves the buffer alone.
struct FillCounter;
static FILLS: AtomicUsize = AtomicUsize::new(0);

#[vkgen_driver::execute]
impl Execute for FillCounter {
    unsafe fn cmd_fill_buffer(&mut self, _: vk::Buffer, _: u64, _: u64, _: u32) {
        FILLS.fetch_add(1, Ordering::SeqCst);
    }
}

/// A fixture driver: every component a CPU driver uses, `HOST_TRANSFERS` as given, each
/// queue's batches replayed on `$engine` by the kit's queue worker.
macro_rules! fixture {
    ($name:ident, $label:literal, $host:expr, $engine:ident) => {
        struct $name;
        impl DriverModule for $name {
            const NAME: &'static CStr = $label;
        }
        impl Kit for $name {
            type Instance = ();
            type PhysicalDevice = ();
            type Device = ();
            type Queue = Worker;
            type CommandBuffer = ();
            type CommandPool = ();
            const RECORD_COMMANDS: bool = true;
            const SYNC_OBJECTS: bool = true;
            const RESOURCE_OBJECTS: bool = true;
            const HOST_TRANSFERS: bool = $host;
            fn driver_submit(
                queue: &kit::Queue<Self>,
                batch: &Batch,
                done: Completion,
            ) -> Result<(), vk::Result> {
                queue.data.replay(batch, done, |cb: &CommandBuffer<Self>| {
                    cb.replay(&mut $engine)
                });
                Ok(())
            }
        }
        impl kit::native_buffer::NativeBuffers for $name {}
        #[vkgen_driver::driver(kit)]
        impl Driver for $name {
            const API_VERSION: u32 = vk::API_VERSION_1_3;
        }
    };
}

fixture!(Host, c"host transfers fixture", true, Nothing);
fixture!(Plain, c"no host transfers fixture", false, Nothing);
fixture!(Filler, c"an engine with its own fill", true, FillCounter);

struct Setup {
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
    objects: Vec<(Option<vk::Buffer>, Option<vk::Image>, vk::DeviceMemory)>,
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: objects of this test, destroyed once, children first.
        unsafe {
            let _ = self.device.device_wait_idle();
            for &(b, i, m) in &self.objects {
                if let Some(b) = b {
                    self.device.destroy_buffer(b, None);
                }
                if let Some(i) = i {
                    self.device.destroy_image(i, None);
                }
                self.device.free_memory(m, None);
            }
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// A mapped host-coherent allocation's bytes.
#[derive(Clone, Copy)]
struct Mapped(*mut u8, usize);

impl Mapped {
    fn read(&self, at: usize, n: usize) -> Vec<u8> {
        assert!(at + n <= self.1);
        // SAFETY: inside the mapping (checked), which lives as long as the test's setup.
        unsafe { std::slice::from_raw_parts(self.0.add(at), n) }.to_vec()
    }
    fn write(&self, at: usize, bytes: &[u8]) {
        assert!(at + bytes.len() <= self.1);
        // SAFETY: as in `read`; nothing else touches the memory while the queue is idle.
        unsafe { std::ptr::copy_nonoverlapping(bytes.as_ptr(), self.0.add(at), bytes.len()) };
    }
}

impl Setup {
    fn new<D: Driver>() -> Setup {
        let (instance, device) = support::instance_and_device::<D>(vk::API_VERSION_1_3, 1);
        // SAFETY: a live device with one queue of family 0.
        let (queue, pool) = unsafe {
            (
                device.get_device_queue(0, 0),
                device
                    .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
                    .unwrap(),
            )
        };
        Setup {
            instance,
            device,
            queue,
            pool,
            objects: Vec::new(),
        }
    }

    /// Bound, mapped memory for `req`.
    fn memory(&self, req: vk::MemoryRequirements) -> (vk::DeviceMemory, Mapped) {
        let info = vk::MemoryAllocateInfo::default()
            .allocation_size(req.size)
            .memory_type_index(0);
        // SAFETY: a valid allocation of the device's host-visible type 0.
        unsafe {
            let m = self.device.allocate_memory(&info, None).unwrap();
            let p = self
                .device
                .map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap();
            (m, Mapped(p.cast(), req.size as usize))
        }
    }

    fn buffer(&mut self, size: u64) -> (vk::Buffer, Mapped) {
        let info = vk::BufferCreateInfo::default()
            .size(size)
            .usage(vk::BufferUsageFlags::TRANSFER_SRC | vk::BufferUsageFlags::TRANSFER_DST);
        // SAFETY: a valid create info; the memory fits the requirements.
        unsafe {
            let b = self.device.create_buffer(&info, None).unwrap();
            let (m, p) = self.memory(self.device.get_buffer_memory_requirements(b));
            self.device.bind_buffer_memory(b, m, 0).unwrap();
            self.objects.push((Some(b), None, m));
            (b, p)
        }
    }

    /// A 2D image with one mip, its bytes, and its subresource layout (mip 0, layer 0).
    fn image(
        &mut self,
        format: vk::Format,
        (width, height): (u32, u32),
        layers: u32,
        samples: vk::SampleCountFlags,
    ) -> (vk::Image, Mapped, vk::SubresourceLayout) {
        let ds = matches!(
            format,
            vk::Format::D32_SFLOAT | vk::Format::D24_UNORM_S8_UINT | vk::Format::D32_SFLOAT_S8_UINT
        );
        let usage = vk::ImageUsageFlags::TRANSFER_SRC
            | vk::ImageUsageFlags::TRANSFER_DST
            | if ds {
                vk::ImageUsageFlags::DEPTH_STENCIL_ATTACHMENT
            } else {
                vk::ImageUsageFlags::COLOR_ATTACHMENT
            };
        let info = vk::ImageCreateInfo::default()
            .image_type(vk::ImageType::TYPE_2D)
            .format(format)
            .extent(vk::Extent3D {
                width,
                height,
                depth: 1,
            })
            .mip_levels(1)
            .array_layers(layers)
            .samples(samples)
            .tiling(vk::ImageTiling::LINEAR)
            .usage(usage);
        // SAFETY: a valid create info; the memory fits the requirements.
        unsafe {
            let i = self.device.create_image(&info, None).unwrap();
            let (m, p) = self.memory(self.device.get_image_memory_requirements(i));
            self.device.bind_image_memory(i, m, 0).unwrap();
            self.objects.push((None, Some(i), m));
            let aspect = if ds {
                vk::ImageAspectFlags::DEPTH
            } else {
                vk::ImageAspectFlags::COLOR
            };
            let sub = vk::ImageSubresource {
                aspect_mask: aspect,
                mip_level: 0,
                array_layer: 0,
            };
            (i, p, self.device.get_image_subresource_layout(i, sub))
        }
    }

    /// Records `f` into a new primary command buffer, submits it and waits for it.
    fn run(&self, f: impl FnOnce(&ash::Device, vk::CommandBuffer)) {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .command_buffer_count(1);
        // SAFETY: a live pool of this device; the buffer is recorded once and submitted.
        unsafe {
            let cb = self.device.allocate_command_buffers(&info).unwrap()[0];
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            f(&self.device, cb);
            self.device.end_command_buffer(cb).unwrap();
            let cbs = [cb];
            let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
            self.device
                .queue_submit(self.queue, &submit, vk::Fence::null())
                .unwrap();
            self.device.queue_wait_idle(self.queue).unwrap();
            self.device.free_command_buffers(self.pool, &cbs);
        }
    }
}

fn layers(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceLayers {
    vk::ImageSubresourceLayers {
        aspect_mask: aspect,
        mip_level: 0,
        base_array_layer: 0,
        layer_count: 1,
    }
}

fn range(aspect: vk::ImageAspectFlags) -> vk::ImageSubresourceRange {
    vk::ImageSubresourceRange {
        aspect_mask: aspect,
        base_mip_level: 0,
        level_count: vk::REMAINING_MIP_LEVELS,
        base_array_layer: 0,
        layer_count: vk::REMAINING_ARRAY_LAYERS,
    }
}

const COLOR: vk::ImageAspectFlags = vk::ImageAspectFlags::COLOR;
const GENERAL: vk::ImageLayout = vk::ImageLayout::GENERAL;

#[test]
fn buffer_fill_update_and_copies_move_exact_bytes() {
    let mut s = Setup::new::<Host>();
    let (a, pa) = s.buffer(64);
    let (b, pb) = s.buffer(64);
    pb.write(0, &[0xee; 64]);
    let update: Vec<u8> = (1..=8).collect();
    s.run(|d, cb| {
        // SAFETY: buffers of this device, valid ranges.
        unsafe {
            d.cmd_fill_buffer(cb, a, 0, vk::WHOLE_SIZE, 0x0403_0201);
            d.cmd_update_buffer(cb, a, 16, &update);
            d.cmd_copy_buffer(
                cb,
                a,
                b,
                &[vk::BufferCopy {
                    src_offset: 12,
                    dst_offset: 4,
                    size: 16,
                }],
            );
            let r2 = [vk::BufferCopy2::default()
                .src_offset(16)
                .dst_offset(40)
                .size(8)];
            d.cmd_copy_buffer2(
                cb,
                &vk::CopyBufferInfo2::default()
                    .src_buffer(a)
                    .dst_buffer(b)
                    .regions(&r2),
            );
        }
    });
    let mut want_a = [1u8, 2, 3, 4].repeat(16);
    want_a[16..24].copy_from_slice(&update);
    assert_eq!(pa.read(0, 64), want_a);
    let mut want_b = vec![0xee; 64];
    want_b[4..20].copy_from_slice(&want_a[12..28]);
    want_b[40..48].copy_from_slice(&update);
    assert_eq!(pb.read(0, 64), want_b);
}

#[test]
fn buffer_image_copies_follow_row_length_and_image_height() {
    let mut s = Setup::new::<Host>();
    let (img, pi, sub) = s.image(
        vk::Format::R8G8B8A8_UNORM,
        (4, 4),
        1,
        vk::SampleCountFlags::TYPE_1,
    );
    let (src, ps) = s.buffer(256);
    let (dst, pd) = s.buffer(256);
    // Texel i of the source buffer holds [i, i, i, i]; rows of 5 texels, 3 rows per image.
    let bytes: Vec<u8> = (0..64u8).flat_map(|i| [i; 4]).collect();
    ps.write(0, &bytes);
    s.run(|d, cb| {
        let clear = vk::ClearColorValue { uint32: [0; 4] };
        let into = vk::BufferImageCopy {
            buffer_offset: 8,
            buffer_row_length: 5,
            buffer_image_height: 3,
            image_subresource: layers(COLOR),
            image_offset: vk::Offset3D { x: 1, y: 1, z: 0 },
            image_extent: vk::Extent3D {
                width: 2,
                height: 2,
                depth: 1,
            },
        };
        let out = [vk::BufferImageCopy2::default()
            .buffer_offset(4)
            .image_subresource(layers(COLOR))
            .image_extent(vk::Extent3D {
                width: 4,
                height: 4,
                depth: 1,
            })];
        // SAFETY: objects of this device, regions inside them.
        unsafe {
            d.cmd_clear_color_image(cb, img, GENERAL, &clear, &[range(COLOR)]);
            d.cmd_copy_buffer_to_image(cb, src, img, GENERAL, &[into]);
            d.cmd_copy_image_to_buffer2(
                cb,
                &vk::CopyImageToBufferInfo2::default()
                    .src_image(img)
                    .src_image_layout(GENERAL)
                    .dst_buffer(dst)
                    .regions(&out),
            );
        }
    });
    // The region starts at buffer texel 2; its row r, column c is buffer texel 2 + 5r + c.
    let mut want = vec![0u8; 64];
    for (r, c) in [(0, 0), (0, 1), (1, 0), (1, 1)] {
        let t = (2 + 5 * r + c) as u8;
        let at = ((1 + r) * 4 + 1 + c) * 4;
        want[at..at + 4].copy_from_slice(&[t; 4]);
    }
    assert_eq!(pd.read(4, 64), want, "read back tightly");
    for y in 0..4 {
        let row = pi.read((sub.offset + y * sub.row_pitch) as usize, 16);
        assert_eq!(row, want[(y * 16) as usize..][..16], "image row {y}");
    }
}

#[test]
fn d24s8_aspects_copy_separately() {
    let mut s = Setup::new::<Host>();
    let (img, pi, sub) = s.image(
        vk::Format::D24_UNORM_S8_UINT,
        (2, 1),
        1,
        vk::SampleCountFlags::TYPE_1,
    );
    let (src, ps) = s.buffer(64);
    let (dst, pd) = s.buffer(64);
    // Depth words carry garbage in their top byte, which the image has no room for.
    ps.write(
        0,
        &[0x11, 0x22, 0x33, 0xff, 0x44, 0x55, 0x66, 0xff, 0x7a, 0x7b],
    );
    let region = |aspect, offset| vk::BufferImageCopy {
        buffer_offset: offset,
        image_subresource: layers(aspect),
        image_extent: vk::Extent3D {
            width: 2,
            height: 1,
            depth: 1,
        },
        ..Default::default()
    };
    s.run(|d, cb| {
        // SAFETY: objects of this device, regions inside them.
        unsafe {
            d.cmd_copy_buffer_to_image(
                cb,
                src,
                img,
                GENERAL,
                &[region(vk::ImageAspectFlags::DEPTH, 0)],
            );
            d.cmd_copy_buffer_to_image(
                cb,
                src,
                img,
                GENERAL,
                &[region(vk::ImageAspectFlags::STENCIL, 8)],
            );
            d.cmd_copy_image_to_buffer(
                cb,
                img,
                GENERAL,
                dst,
                &[region(vk::ImageAspectFlags::STENCIL, 0)],
            );
            d.cmd_copy_image_to_buffer(
                cb,
                img,
                GENERAL,
                dst,
                &[region(vk::ImageAspectFlags::DEPTH, 4)],
            );
        }
    });
    assert_eq!(
        pi.read(sub.offset as usize, 8),
        [0x11, 0x22, 0x33, 0x7a, 0x44, 0x55, 0x66, 0x7b],
        "depth in the low 24 bits, stencil in the top byte"
    );
    assert_eq!(
        pd.read(0, 12),
        [0x7a, 0x7b, 0, 0, 0x11, 0x22, 0x33, 0, 0x44, 0x55, 0x66, 0]
    );
}

#[test]
fn clears_write_the_packed_value_everywhere() {
    let mut s = Setup::new::<Host>();
    let one = vk::SampleCountFlags::TYPE_1;
    let (unorm, pu, su) = s.image(vk::Format::R8G8B8A8_UNORM, (3, 2), 2, one);
    let (srgb, ps, ss) = s.image(vk::Format::R8G8B8A8_SRGB, (2, 2), 1, one);
    let (float, pf, sf) = s.image(vk::Format::R32G32B32A32_SFLOAT, (2, 1), 1, one);
    let (depth, pz, sz) = s.image(vk::Format::D32_SFLOAT, (2, 2), 1, one);
    let (ds, pds, sds) = s.image(vk::Format::D24_UNORM_S8_UINT, (2, 1), 1, one);
    let rgba = vk::ClearColorValue {
        float32: [0.5, 1.0, 0.0, 0.25],
    };
    let floats = vk::ClearColorValue {
        float32: [1.5, -2.0, 0.125, 1e9],
    };
    s.run(|d, cb| {
        let dsv = |depth, stencil| vk::ClearDepthStencilValue { depth, stencil };
        // SAFETY: objects of this device, whole ranges.
        unsafe {
            d.cmd_clear_color_image(cb, unorm, GENERAL, &rgba, &[range(COLOR)]);
            d.cmd_clear_color_image(cb, srgb, GENERAL, &rgba, &[range(COLOR)]);
            d.cmd_clear_color_image(cb, float, GENERAL, &floats, &[range(COLOR)]);
            d.cmd_clear_depth_stencil_image(
                cb,
                depth,
                GENERAL,
                &dsv(0.75, 0),
                &[range(vk::ImageAspectFlags::DEPTH)],
            );
            let both = vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL;
            d.cmd_clear_depth_stencil_image(cb, ds, GENERAL, &dsv(1.0, 0x5a), &[range(both)]);
            d.cmd_clear_depth_stencil_image(
                cb,
                ds,
                GENERAL,
                &dsv(0.0, 0xc3),
                &[range(vk::ImageAspectFlags::STENCIL)],
            );
        }
    });
    let rows = |p: Mapped, sub: vk::SubresourceLayout, layer: u64, h: u64, n: usize| -> Vec<u8> {
        (0..h)
            .flat_map(|y| {
                p.read(
                    (sub.offset + layer * sub.array_pitch + y * sub.row_pitch) as usize,
                    n,
                )
            })
            .collect()
    };
    for layer in 0..2 {
        assert_eq!(
            rows(pu, su, layer, 2, 12),
            [128u8, 255, 0, 64].repeat(6),
            "UNORM layer {layer}"
        );
    }
    // sRGB encodes the colour (0.5 → 188), not alpha.
    assert_eq!(rows(ps, ss, 0, 2, 8), [188u8, 255, 0, 64].repeat(4));
    let want: Vec<u8> = [1.5f32, -2.0, 0.125, 1e9]
        .iter()
        .flat_map(|f| f.to_ne_bytes())
        .collect();
    assert_eq!(rows(pf, sf, 0, 1, 32), want.repeat(2));
    assert_eq!(rows(pz, sz, 0, 2, 8), 0.75f32.to_ne_bytes().repeat(4));
    // Depth 1.0 is 0xffffff; the second clear changed only the stencil byte.
    assert_eq!(rows(pds, sds, 0, 1, 8), [0xff, 0xff, 0xff, 0xc3].repeat(2));
}

#[test]
fn blits_scale_nearest_and_linear_and_image_copies_move_blocks() {
    let mut s = Setup::new::<Host>();
    let one = vk::SampleCountFlags::TYPE_1;
    let (small, pm, sm) = s.image(vk::Format::R8G8B8A8_UNORM, (2, 2), 1, one);
    let (big, pb, sb) = s.image(vk::Format::R8G8B8A8_UNORM, (4, 4), 1, one);
    let (line, pl, sl) = s.image(vk::Format::R8G8B8A8_UNORM, (2, 1), 1, one);
    let (wide, pw, sw) = s.image(vk::Format::R8G8B8A8_UNORM, (4, 1), 1, one);
    let (copy, pc, sc) = s.image(vk::Format::R8G8B8A8_UINT, (2, 2), 1, one);
    for (y, row) in [[1u8, 2], [3, 4]].iter().enumerate() {
        let texels: Vec<u8> = row.iter().flat_map(|&v| [v, v * 10, v * 20, 255]).collect();
        pm.write((sm.offset + y as u64 * sm.row_pitch) as usize, &texels);
    }
    pl.write(sl.offset as usize, &[0, 0, 0, 0, 255, 255, 255, 255]);
    let off = |x, y| vk::Offset3D { x, y, z: 0 };
    let off1 = |x, y| vk::Offset3D { x, y, z: 1 };
    s.run(|d, cb| {
        let up = vk::ImageBlit {
            src_subresource: layers(COLOR),
            src_offsets: [off(0, 0), off1(2, 2)],
            dst_subresource: layers(COLOR),
            dst_offsets: [off(0, 0), off1(4, 4)],
        };
        let stretch = [vk::ImageBlit2::default()
            .src_subresource(layers(COLOR))
            .src_offsets([off(0, 0), off1(2, 1)])
            .dst_subresource(layers(COLOR))
            .dst_offsets([off(0, 0), off1(4, 1)])];
        // A flipped copy of the small image's right column into the UINT image's left.
        let flip = vk::ImageCopy {
            src_subresource: layers(COLOR),
            src_offset: off(1, 0),
            dst_subresource: layers(COLOR),
            dst_offset: off(0, 0),
            extent: vk::Extent3D {
                width: 1,
                height: 2,
                depth: 1,
            },
        };
        // SAFETY: objects of this device, regions inside them.
        unsafe {
            d.cmd_blit_image(cb, small, GENERAL, big, GENERAL, &[up], vk::Filter::NEAREST);
            d.cmd_blit_image2(
                cb,
                &vk::BlitImageInfo2::default()
                    .src_image(line)
                    .src_image_layout(GENERAL)
                    .dst_image(wide)
                    .dst_image_layout(GENERAL)
                    .regions(&stretch)
                    .filter(vk::Filter::LINEAR),
            );
            d.cmd_copy_image(cb, small, GENERAL, copy, GENERAL, &[flip]);
        }
    });
    for y in 0..4u64 {
        let row = pb.read((sb.offset + y * sb.row_pitch) as usize, 16);
        let want: Vec<u8> = (0..4)
            .flat_map(|x| {
                pm.read(
                    (sm.offset + (y / 2) * sm.row_pitch + (x / 2) * 4) as usize,
                    4,
                )
            })
            .collect();
        assert_eq!(row, want, "NEAREST row {y}");
    }
    // Texel centres 0.25, 0.75, 1.25, 1.75 of the source, filtered with clamping at the edges.
    let r: Vec<u8> = pw
        .read(sw.offset as usize, 16)
        .chunks(4)
        .map(|t| t[0])
        .collect();
    assert_eq!(r, [0, 64, 191, 255]);
    assert_eq!(
        pc.read(sc.offset as usize, 4),
        pm.read((sm.offset + 4) as usize, 4)
    );
    assert_eq!(
        pc.read((sc.offset + sc.row_pitch) as usize, 4),
        pm.read((sm.offset + sm.row_pitch + 4) as usize, 4)
    );
}

#[test]
fn resolve_averages_samples() {
    let mut s = Setup::new::<Host>();
    let (ms, pm, sm) = s.image(
        vk::Format::R8G8B8A8_UNORM,
        (2, 1),
        1,
        vk::SampleCountFlags::TYPE_4,
    );
    let (out, po, so) = s.image(
        vk::Format::R8G8B8A8_UNORM,
        (2, 1),
        1,
        vk::SampleCountFlags::TYPE_1,
    );
    // The kit's layout: the four samples of a texel side by side.
    let samples: Vec<u8> = [[0u8, 100, 200, 255], [40, 40, 40, 40]]
        .iter()
        .flat_map(|t| t.iter().flat_map(|&v| [v, 255 - v, 8, 255]))
        .collect();
    pm.write(sm.offset as usize, &samples);
    s.run(|d, cb| {
        let r = vk::ImageResolve {
            src_subresource: layers(COLOR),
            dst_subresource: layers(COLOR),
            extent: vk::Extent3D {
                width: 2,
                height: 1,
                depth: 1,
            },
            ..Default::default()
        };
        // SAFETY: objects of this device, a region inside both.
        unsafe { d.cmd_resolve_image(cb, ms, GENERAL, out, GENERAL, &[r]) };
    });
    // (0 + 100 + 200 + 255) / 4 = 138.75 → 139; its complement 116.25 → 116.
    assert_eq!(
        po.read(so.offset as usize, 8),
        [139, 116, 8, 255, 40, 215, 8, 255]
    );
}

#[test]
fn out_of_range_regions_are_dropped_and_the_rest_runs() {
    let mut s = Setup::new::<Host>();
    let (a, pa) = s.buffer(16);
    let (b, pb) = s.buffer(16);
    let (img, pi, si) = s.image(
        vk::Format::R8G8B8A8_UNORM,
        (2, 2),
        1,
        vk::SampleCountFlags::TYPE_1,
    );
    pa.write(0, &[7; 16]);
    s.run(|d, cb| {
        let past = vk::BufferImageCopy {
            image_subresource: layers(COLOR),
            image_offset: vk::Offset3D { x: 1, y: 0, z: 0 },
            image_extent: vk::Extent3D {
                width: 2,
                height: 2,
                depth: 1,
            },
            ..Default::default()
        };
        let too_big = vk::BufferImageCopy {
            buffer_row_length: 1000,
            image_subresource: layers(COLOR),
            image_extent: vk::Extent3D {
                width: 2,
                height: 2,
                depth: 1,
            },
            ..Default::default()
        };
        let mut bad_mip = range(COLOR);
        bad_mip.base_mip_level = 3;
        let white = vk::ClearColorValue { float32: [1.0; 4] };
        // SAFETY: objects of this device; the out-of-range regions are the test.
        unsafe {
            d.cmd_fill_buffer(cb, b, 64, 16, 1);
            d.cmd_update_buffer(cb, b, 12, &[1, 2, 3, 4, 5, 6, 7, 8]);
            d.cmd_copy_buffer(
                cb,
                a,
                b,
                &[
                    vk::BufferCopy {
                        src_offset: 8,
                        dst_offset: 0,
                        size: 16,
                    },
                    vk::BufferCopy {
                        src_offset: u64::MAX - 2,
                        dst_offset: 0,
                        size: 4,
                    },
                    vk::BufferCopy {
                        src_offset: 0,
                        dst_offset: 4,
                        size: 4,
                    },
                ],
            );
            d.cmd_copy_buffer_to_image(cb, a, img, GENERAL, &[past, too_big]);
            d.cmd_copy_image_to_buffer(cb, img, GENERAL, a, &[too_big]);
            d.cmd_clear_color_image(cb, img, GENERAL, &white, &[bad_mip]);
            let blit = vk::ImageBlit {
                src_subresource: layers(COLOR),
                src_offsets: [vk::Offset3D::default(), vk::Offset3D { x: 3, y: 2, z: 1 }],
                dst_subresource: layers(COLOR),
                dst_offsets: [vk::Offset3D::default(), vk::Offset3D { x: 2, y: 2, z: 1 }],
            };
            d.cmd_blit_image(cb, img, GENERAL, img, GENERAL, &[blit], vk::Filter::NEAREST);
            d.cmd_fill_buffer(cb, b, 8, 4, 0x0909_0909);
        }
    });
    assert_eq!(
        pa.read(0, 16),
        [7; 16],
        "nothing was written into the source"
    );
    assert_eq!(
        pb.read(0, 16),
        [0, 0, 0, 0, 7, 7, 7, 7, 9, 9, 9, 9, 0, 0, 0, 0]
    );
    assert_eq!(
        pi.read(si.offset as usize, 16),
        [0; 16],
        "the image is untouched"
    );
}

#[test]
fn the_report_counts_the_kit_transfers_as_run() {
    fn unexecuted<D: Kit>() -> Vec<&'static str> {
        unimplemented_commands::<D>(
            kit::command_map::<D>(),
            vk::API_VERSION_1_3,
            &[],
            Some(Nothing::implements),
        )
        .into_iter()
        .filter_map(|m| match m {
            Missing::Unexecuted { command, .. } => Some(command),
            _ => None,
        })
        .collect()
    }
    fn features<D: Kit>() -> Vec<&'static str> {
        let formats = kit::format::FormatSupport::kit_default();
        format_findings::<D>(
            formats.iter(),
            kit::command_map::<D>(),
            Some(Nothing::implements),
        )
        .into_iter()
        .filter_map(|m| match m {
            Missing::FormatFeature { feature, .. } => Some(feature),
            _ => None,
        })
        .collect()
    }
    let transfers = [
        "vkCmdFillBuffer",
        "vkCmdUpdateBuffer",
        "vkCmdCopyBuffer",
        "vkCmdCopyBuffer2",
        "vkCmdCopyBufferToImage2",
        "vkCmdCopyImageToBuffer",
        "vkCmdCopyImage",
        "vkCmdClearColorImage",
        "vkCmdClearDepthStencilImage",
        "vkCmdBlitImage2",
        "vkCmdResolveImage",
    ];
    let (host, plain) = (unexecuted::<Host>(), unexecuted::<Plain>());
    for c in transfers {
        assert!(!host.contains(&c), "{c} is run by the kit");
        assert!(
            plain.contains(&c),
            "{c} is run by nobody without HOST_TRANSFERS"
        );
    }
    // The engine still runs no draw, and events are applied by the kit either way.
    assert!(host.contains(&"vkCmdDraw"));
    assert!(!plain.contains(&"vkCmdSetEvent"));
    let (host, plain) = (features::<Host>(), features::<Plain>());
    for f in [
        "TRANSFER_SRC",
        "TRANSFER_DST",
        "TRANSFER_DST (clears)",
        "BLIT_SRC",
        "BLIT_DST",
    ] {
        assert!(!host.contains(&f), "{f} is honoured: {host:?}");
        assert!(plain.contains(&f), "{f} is not: {plain:?}");
    }
}

#[test]
fn an_engine_method_wins_over_the_kit() {
    let mut s = Setup::new::<Filler>();
    let (a, pa) = s.buffer(16);
    let (b, pb) = s.buffer(16);
    s.run(|d, cb| {
        // SAFETY: buffers of this device, valid ranges.
        unsafe {
            d.cmd_fill_buffer(cb, a, 0, 16, 0xffff_ffff);
            d.cmd_update_buffer(cb, a, 0, &[5; 8]);
            d.cmd_copy_buffer(
                cb,
                a,
                b,
                &[vk::BufferCopy {
                    src_offset: 0,
                    dst_offset: 8,
                    size: 8,
                }],
            );
        }
    });
    assert_eq!(FILLS.load(Ordering::SeqCst), 1, "the engine ran its fill");
    assert_eq!(
        pa.read(0, 16),
        [[5u8; 8], [0; 8]].concat(),
        "and the kit did not"
    );
    assert_eq!(
        pb.read(0, 16),
        [[0u8; 8], [5; 8]].concat(),
        "the kit ran the rest"
    );
}

#[test]
fn d32s8_and_array_layers_copy_by_aspect_and_layer() {
    let mut s = Setup::new::<Host>();
    let one = vk::SampleCountFlags::TYPE_1;
    let (ds, pds, sds) = s.image(vk::Format::D32_SFLOAT_S8_UINT, (2, 1), 1, one);
    let (arr, _, _) = s.image(vk::Format::R8_UINT, (2, 2), 3, one);
    let (src, ps) = s.buffer(64);
    let (dst, pd) = s.buffer(64);
    let depth: Vec<u8> = [0.25f32, 0.5]
        .iter()
        .flat_map(|f| f.to_ne_bytes())
        .collect();
    ps.write(0, &depth);
    ps.write(8, &[0x11, 0x22]);
    // Layers 1 and 2 of the array from bytes 16..24, tightly.
    ps.write(16, &[1, 2, 3, 4, 5, 6, 7, 8]);
    s.run(|d, cb| {
        let aspect = |a, offset| vk::BufferImageCopy {
            buffer_offset: offset,
            image_subresource: layers(a),
            image_extent: vk::Extent3D {
                width: 2,
                height: 1,
                depth: 1,
            },
            ..Default::default()
        };
        let (de, st) = (vk::ImageAspectFlags::DEPTH, vk::ImageAspectFlags::STENCIL);
        let mut two = layers(COLOR);
        two.base_array_layer = 1;
        two.layer_count = 2;
        let into = vk::BufferImageCopy {
            buffer_offset: 16,
            image_subresource: two,
            image_extent: vk::Extent3D {
                width: 2,
                height: 2,
                depth: 1,
            },
            ..Default::default()
        };
        // Layer 2 copied over layer 0, then layers 0..3 read back.
        let mut from = layers(COLOR);
        from.base_array_layer = 2;
        let over = vk::ImageCopy {
            src_subresource: from,
            dst_subresource: layers(COLOR),
            extent: vk::Extent3D {
                width: 2,
                height: 2,
                depth: 1,
            },
            ..Default::default()
        };
        let mut all = layers(COLOR);
        all.layer_count = vk::REMAINING_ARRAY_LAYERS;
        let out = vk::BufferImageCopy {
            buffer_offset: 16,
            image_subresource: all,
            image_extent: vk::Extent3D {
                width: 2,
                height: 2,
                depth: 1,
            },
            ..Default::default()
        };
        // SAFETY: objects of this device, regions inside them.
        unsafe {
            d.cmd_copy_buffer_to_image(cb, src, ds, GENERAL, &[aspect(de, 0), aspect(st, 8)]);
            d.cmd_copy_image_to_buffer(cb, ds, GENERAL, dst, &[aspect(st, 0), aspect(de, 4)]);
            d.cmd_copy_buffer_to_image(cb, src, arr, GENERAL, &[into]);
            d.cmd_copy_image(cb, arr, GENERAL, arr, GENERAL, &[over]);
            d.cmd_copy_image_to_buffer(cb, arr, GENERAL, dst, &[out]);
        }
    });
    // D32S8 texels are 8 bytes in the kit's layout: depth, stencil, 3 unused.
    let texel = |t: usize| pds.read(sds.offset as usize + 8 * t, 5);
    assert_eq!(texel(0), [&depth[..4], &[0x11]].concat());
    assert_eq!(texel(1), [&depth[4..], &[0x22]].concat());
    assert_eq!(
        pd.read(0, 12),
        [&[0x11, 0x22, 0, 0][..], &depth].concat()[..12]
    );
    assert_eq!(pd.read(16, 12), [5, 6, 7, 8, 1, 2, 3, 4, 5, 6, 7, 8]);
}
