//! The kit's render passes on dynamic rendering (`RENDER_PASS_OBJECTS`): a driver that
//! records commands and whose engine knows only `vkCmdBeginRendering`/`vkCmdEndRendering` and
//! `vkCmdPipelineBarrier2` is driven through the real entry points with ash; the replay shows
//! exactly what each render pass became (load/store/resolve ops, clear values, barriers with
//! their layouts and subresources), for two subpasses with an input attachment and resolves,
//! multiview, imageless framebuffers, the 1.0 create info, and secondaries that inherit.

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::Mutex;

mod support;
// The recording engine, beside this file (a folder without `main.rs` is no test target).
#[path = "render_pass/engine.rs"]
mod engine;

use ash::vk;
use ash::vk::Handle as _;
use engine::Engine;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::commands;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::command::CommandBuffer;
use vkgen_driver::kit::render_pass::{RenderPass, SubpassRendering};
use vkgen_driver::kit::{self, Kit};

struct Rp;

impl DriverModule for Rp {
    const NAME: &'static CStr = c"render pass fixture";
}

/// What the last `vkBeginCommandBuffer` of a secondary inherited, as the vendor's hook saw it:
/// (render pass null, view mask, colour formats, depth, stencil, samples, flags).
type Inherited = (
    bool,
    u32,
    Vec<vk::Format>,
    vk::Format,
    vk::Format,
    vk::SampleCountFlags,
    vk::RenderingFlags,
);
static INHERITED: Mutex<Option<Inherited>> = Mutex::new(None);

impl Kit for Rp {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RECORD_COMMANDS: bool = true;
    const RESOURCE_OBJECTS: bool = true;
    const RENDER_PASS_OBJECTS: bool = true;

    fn command_buffer_begin(
        _cb: &kit::command::CommandBuffer<Self>,
        info: &vk::CommandBufferBeginInfo<'_>,
    ) -> Result<(), vk::Result> {
        // SAFETY: the kit passes a valid begin info; its inheritance info is null or valid.
        let Some(inh) = (unsafe { info.p_inheritance_info.as_ref() }) else {
            return Ok(());
        };
        let mut next = inh.p_next.cast::<vk::BaseInStructure<'_>>();
        while !next.is_null() {
            // SAFETY: a valid chain of the begin info.
            let s = unsafe { &*next };
            if s.s_type == vk::StructureType::COMMAND_BUFFER_INHERITANCE_RENDERING_INFO {
                // SAFETY: the sType says what the structure is.
                let r = unsafe { &*next.cast::<vk::CommandBufferInheritanceRenderingInfo<'_>>() };
                // SAFETY: `color_attachment_count` formats.
                let formats = unsafe {
                    std::slice::from_raw_parts(
                        r.p_color_attachment_formats,
                        r.color_attachment_count as usize,
                    )
                };
                *INHERITED.lock().unwrap() = Some((
                    inh.render_pass == vk::RenderPass::null(),
                    r.view_mask,
                    formats.to_vec(),
                    r.depth_attachment_format,
                    r.stencil_attachment_format,
                    r.rasterization_samples,
                    r.flags,
                ));
            }
            next = s.p_next;
        }
        Ok(())
    }
}

impl kit::native_buffer::NativeBuffers for Rp {}

#[vkgen_driver::driver(kit)]
impl Driver for Rp {}

struct Fixture {
    instance: ash::Instance,
    device: ash::Device,
    pool: vk::CommandPool,
    names: HashMap<u64, String>,
    images: Vec<vk::Image>,
    views: Vec<vk::ImageView>,
}

impl Fixture {
    fn new() -> Self {
        let (instance, device) = support::instance_and_device::<Rp>(vk::API_VERSION_1_3, 1);
        let info = vk::CommandPoolCreateInfo::default();
        // SAFETY: a live device and a valid create info.
        let pool = unsafe { device.create_command_pool(&info, None) }.unwrap();
        Self {
            instance,
            device,
            pool,
            names: HashMap::new(),
            images: Vec::new(),
            views: Vec::new(),
        }
    }

    /// A `layers`-layer 2D image of `format` with a view of all of it, named `name` (image)
    /// and `name.v` (view).
    fn view(
        &mut self,
        name: &str,
        format: vk::Format,
        samples: vk::SampleCountFlags,
        layers: u32,
    ) -> vk::ImageView {
        self.image_view(name, format, samples, (vk::ImageType::TYPE_2D, 1), layers)
    }

    /// A 3D colour image `depth` slices deep with a 2D-array view of every slice.
    fn view_3d(&mut self, name: &str, depth: u32) -> vk::ImageView {
        self.image_view(name, RGBA, ONE, (vk::ImageType::TYPE_3D, depth), depth)
    }

    fn image_view(
        &mut self,
        name: &str,
        format: vk::Format,
        samples: vk::SampleCountFlags,
        (image_type, depth): (vk::ImageType, u32),
        layers: u32,
    ) -> vk::ImageView {
        let aspect = match format {
            vk::Format::D24_UNORM_S8_UINT => {
                vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL
            }
            _ => vk::ImageAspectFlags::COLOR,
        };
        let info = vk::ImageCreateInfo::default()
            .image_type(image_type)
            .format(format)
            .extent(vk::Extent3D {
                width: 64,
                height: 64,
                depth,
            })
            .mip_levels(1)
            .array_layers(if depth > 1 { 1 } else { layers })
            .samples(samples)
            .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::INPUT_ATTACHMENT);
        // SAFETY: a live device and a valid create info.
        let image = unsafe { self.device.create_image(&info, None) }.unwrap();
        let view_info = vk::ImageViewCreateInfo::default()
            .image(image)
            .view_type(vk::ImageViewType::TYPE_2D_ARRAY)
            .format(format)
            .subresource_range(vk::ImageSubresourceRange {
                aspect_mask: aspect,
                base_mip_level: 0,
                level_count: 1,
                base_array_layer: 0,
                layer_count: layers,
            });
        // SAFETY: a live image of the device.
        let view = unsafe { self.device.create_image_view(&view_info, None) }.unwrap();
        self.names.insert(image.as_raw(), name.to_string());
        self.names.insert(view.as_raw(), format!("{name}.v"));
        self.images.push(image);
        self.views.push(view);
        view
    }

    fn framebuffer(
        &self,
        pass: vk::RenderPass,
        views: &[vk::ImageView],
        layers: u32,
    ) -> vk::Framebuffer {
        let info = vk::FramebufferCreateInfo::default()
            .render_pass(pass)
            .attachments(views)
            .width(64)
            .height(64)
            .layers(layers);
        // SAFETY: a live device; the views are live.
        unsafe { self.device.create_framebuffer(&info, None) }.unwrap()
    }

    fn buffer(&self, level: vk::CommandBufferLevel) -> vk::CommandBuffer {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(level)
            .command_buffer_count(1);
        // SAFETY: a live pool of the device.
        unsafe { self.device.allocate_command_buffers(&info) }.unwrap()[0]
    }

    /// Records `f` into a fresh primary and returns what its replay ran.
    fn record(&self, f: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Vec<String> {
        let cb = self.buffer(vk::CommandBufferLevel::PRIMARY);
        // SAFETY: a fresh command buffer of this fixture.
        unsafe {
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
        }
        f(&self.device, cb);
        // SAFETY: recording.
        unsafe { self.device.end_command_buffer(cb) }.unwrap();
        let mut e = Engine {
            names: self.names.clone(),
            log: Vec::new(),
        };
        // SAFETY: a live command buffer of the fixture driver.
        let buffer = unsafe { CommandBuffer::<Rp>::from_handle(cb) }.expect("a kit command buffer");
        buffer.replay(&mut e);
        e.log
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        // SAFETY: objects of this fixture, children first.
        unsafe {
            for &v in &self.views {
                self.device.destroy_image_view(v, None);
            }
            for &i in &self.images {
                self.device.destroy_image(i, None);
            }
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn att2(
    format: vk::Format,
    samples: vk::SampleCountFlags,
    load: vk::AttachmentLoadOp,
    store: vk::AttachmentStoreOp,
    final_layout: vk::ImageLayout,
) -> vk::AttachmentDescription2<'static> {
    vk::AttachmentDescription2::default()
        .format(format)
        .samples(samples)
        .load_op(load)
        .store_op(store)
        .stencil_load_op(load)
        .stencil_store_op(store)
        .initial_layout(vk::ImageLayout::UNDEFINED)
        .final_layout(final_layout)
}

fn ref2(attachment: u32, layout: vk::ImageLayout) -> vk::AttachmentReference2<'static> {
    vk::AttachmentReference2::default()
        .attachment(attachment)
        .layout(layout)
}

type L = vk::ImageLayout;
type Op = vk::AttachmentLoadOp;
type St = vk::AttachmentStoreOp;
const MS: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_4;
const ONE: vk::SampleCountFlags = vk::SampleCountFlags::TYPE_1;
const RGBA: vk::Format = vk::Format::R8G8B8A8_UNORM;
const DS: vk::Format = vk::Format::D24_UNORM_S8_UINT;

/// The two-subpass pass's dependencies: into subpass 0, 0 → 1 (the input read), out of 1.
fn dependencies() -> [vk::SubpassDependency; 3] {
    type S = vk::PipelineStageFlags;
    type A = vk::AccessFlags;
    [
        vk::SubpassDependency {
            src_subpass: vk::SUBPASS_EXTERNAL,
            dst_subpass: 0,
            src_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
            dst_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
            src_access_mask: A::empty(),
            dst_access_mask: A::COLOR_ATTACHMENT_WRITE,
            dependency_flags: vk::DependencyFlags::empty(),
        },
        vk::SubpassDependency {
            src_subpass: 0,
            dst_subpass: 1,
            src_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
            dst_stage_mask: S::FRAGMENT_SHADER,
            src_access_mask: A::COLOR_ATTACHMENT_WRITE,
            dst_access_mask: A::INPUT_ATTACHMENT_READ,
            dependency_flags: vk::DependencyFlags::BY_REGION,
        },
        vk::SubpassDependency {
            src_subpass: 1,
            dst_subpass: vk::SUBPASS_EXTERNAL,
            src_stage_mask: S::COLOR_ATTACHMENT_OUTPUT,
            dst_stage_mask: S::TRANSFER,
            src_access_mask: A::COLOR_ATTACHMENT_WRITE,
            dst_access_mask: A::TRANSFER_READ,
            dependency_flags: vk::DependencyFlags::empty(),
        },
    ]
}

fn dependencies2() -> Vec<vk::SubpassDependency2<'static>> {
    dependencies()
        .iter()
        .map(|d| vk::SubpassDependency2 {
            src_subpass: d.src_subpass,
            dst_subpass: d.dst_subpass,
            src_stage_mask: d.src_stage_mask,
            dst_stage_mask: d.dst_stage_mask,
            src_access_mask: d.src_access_mask,
            dst_access_mask: d.dst_access_mask,
            dependency_flags: d.dependency_flags,
            ..Default::default()
        })
        .collect()
}

/// Attachments: 0 colour ×4, 1 depth/stencil ×4, 2 the colour's resolve. Subpass 0 draws
/// colour + depth and resolves 0 into 2; subpass 1 reads 2 as an input attachment, draws into
/// 0 again and tests against a read-only depth.
fn two_subpass_pass(device: &ash::Device) -> vk::RenderPass {
    let attachments = [
        att2(RGBA, MS, Op::CLEAR, St::DONT_CARE, L::TRANSFER_SRC_OPTIMAL),
        att2(
            DS,
            MS,
            Op::CLEAR,
            St::DONT_CARE,
            L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        ),
        att2(RGBA, ONE, Op::DONT_CARE, St::STORE, L::PRESENT_SRC_KHR),
    ];
    let color0 = [ref2(0, L::COLOR_ATTACHMENT_OPTIMAL)];
    let resolve0 = [ref2(2, L::COLOR_ATTACHMENT_OPTIMAL)];
    let depth0 = ref2(1, L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    let input1 = [ref2(2, L::SHADER_READ_ONLY_OPTIMAL).aspect_mask(vk::ImageAspectFlags::COLOR)];
    let depth1 = ref2(1, L::DEPTH_STENCIL_READ_ONLY_OPTIMAL);
    let subpasses = [
        vk::SubpassDescription2::default()
            .color_attachments(&color0)
            .resolve_attachments(&resolve0)
            .depth_stencil_attachment(&depth0),
        vk::SubpassDescription2::default()
            .input_attachments(&input1)
            .color_attachments(&color0)
            .depth_stencil_attachment(&depth1),
    ];
    let deps = dependencies2();
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&deps);
    // SAFETY: a live device and a valid create info.
    unsafe { device.create_render_pass2(&info, None) }.unwrap()
}

fn clears() -> [vk::ClearValue; 3] {
    [
        vk::ClearValue {
            color: vk::ClearColorValue {
                float32: [1.0, 0.0, 0.0, 1.0],
            },
        },
        vk::ClearValue {
            depth_stencil: vk::ClearDepthStencilValue {
                depth: 1.0,
                stencil: 7,
            },
        },
        vk::ClearValue::default(),
    ]
}

fn area() -> vk::Rect2D {
    vk::Rect2D {
        offset: vk::Offset2D::default(),
        extent: vk::Extent2D {
            width: 64,
            height: 64,
        },
    }
}

#[test]
fn two_subpasses_become_two_renderings_with_mesas_ops_and_barriers() {
    let mut f = Fixture::new();
    let views = [
        f.view("color", RGBA, MS, 1),
        f.view("depth", DS, MS, 1),
        f.view("resolve", RGBA, ONE, 1),
    ];
    let pass = two_subpass_pass(&f.device);
    let fb = f.framebuffer(pass, &views, 1);
    let clear = clears();
    let log = f.record(|d, cb| {
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area())
            .clear_values(&clear);
        // SAFETY: a recording primary; the pass and framebuffer are live.
        unsafe {
            d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            d.cmd_next_subpass(cb, vk::SubpassContents::INLINE);
            d.cmd_end_render_pass(cb);
        }
    });
    let expected = [
        "barrier | memory COLOR_ATTACHMENT_OUTPUT 0 -> COLOR_ATTACHMENT_OUTPUT COLOR_ATTACHMENT_WRITE \
         | color COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 0+1 \
         | resolve COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 0+1 \
         | depth DEPTH | STENCIL UNDEFINED -> DEPTH_STENCIL_ATTACHMENT_OPTIMAL mip 0 layers 0+1",
        "begin 64x64 layers 1 mask 0x0 0 \
         | color color.v COLOR_ATTACHMENT_OPTIMAL CLEAR STORE clear [1.0, 0.0, 0.0, 1.0] resolve AVERAGE resolve.v COLOR_ATTACHMENT_OPTIMAL \
         | depth depth.v DEPTH_STENCIL_ATTACHMENT_OPTIMAL CLEAR STORE clear 1 7 \
         | stencil depth.v DEPTH_STENCIL_ATTACHMENT_OPTIMAL CLEAR STORE clear 1 7",
        "end",
        "barrier | memory COLOR_ATTACHMENT_OUTPUT COLOR_ATTACHMENT_WRITE -> FRAGMENT_SHADER INPUT_ATTACHMENT_READ \
         | resolve COLOR COLOR_ATTACHMENT_OPTIMAL -> SHADER_READ_ONLY_OPTIMAL mip 0 layers 0+1 \
         | depth DEPTH | STENCIL DEPTH_STENCIL_ATTACHMENT_OPTIMAL -> DEPTH_STENCIL_READ_ONLY_OPTIMAL mip 0 layers 0+1",
        "begin 64x64 layers 1 mask 0x0 0 \
         | color color.v COLOR_ATTACHMENT_OPTIMAL LOAD DONT_CARE \
         | depth depth.v DEPTH_STENCIL_READ_ONLY_OPTIMAL LOAD DONT_CARE \
         | stencil depth.v DEPTH_STENCIL_READ_ONLY_OPTIMAL LOAD DONT_CARE",
        "end",
        "barrier | memory COLOR_ATTACHMENT_OUTPUT COLOR_ATTACHMENT_WRITE -> ALL_TRANSFER TRANSFER_READ \
         | color COLOR COLOR_ATTACHMENT_OPTIMAL -> TRANSFER_SRC_OPTIMAL mip 0 layers 0+1 \
         | depth DEPTH | STENCIL DEPTH_STENCIL_READ_ONLY_OPTIMAL -> DEPTH_STENCIL_ATTACHMENT_OPTIMAL mip 0 layers 0+1 \
         | resolve COLOR SHADER_READ_ONLY_OPTIMAL -> PRESENT_SRC_KHR mip 0 layers 0+1",
    ];
    assert_eq!(log, expected, "{log:#?}");
    // The pass's pipelines render with these formats.
    // SAFETY: a live render pass of the fixture driver.
    let rp = unsafe { RenderPass::from_handle(pass) }.unwrap();
    assert_eq!(
        rp.subpass_rendering(1),
        Some(SubpassRendering {
            view_mask: 0,
            color_formats: vec![RGBA],
            depth_format: DS,
            stencil_format: DS,
            samples: MS,
        })
    );
    assert_eq!(rp.subpass_rendering(2), None);
    // SAFETY: objects of the fixture, no longer used.
    unsafe {
        f.device.destroy_framebuffer(fb, None);
        f.device.destroy_render_pass(pass, None);
    }
}

/// One colour attachment of a 2-layer image, drawn in views 0 and 1, then in view 1 alone.
fn multiview_pass_1_0(device: &ash::Device) -> vk::RenderPass {
    let attachments = [vk::AttachmentDescription {
        format: RGBA,
        samples: ONE,
        load_op: Op::CLEAR,
        store_op: St::DONT_CARE,
        stencil_load_op: Op::DONT_CARE,
        stencil_store_op: St::DONT_CARE,
        initial_layout: L::UNDEFINED,
        final_layout: L::SHADER_READ_ONLY_OPTIMAL,
        ..Default::default()
    }];
    let color = [vk::AttachmentReference {
        attachment: 0,
        layout: L::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let subpasses = [
        vk::SubpassDescription::default().color_attachments(&color),
        vk::SubpassDescription::default().color_attachments(&color),
    ];
    let deps = [vk::SubpassDependency {
        src_subpass: 0,
        dst_subpass: 1,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        src_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_WRITE,
        dst_access_mask: vk::AccessFlags::COLOR_ATTACHMENT_READ,
        dependency_flags: vk::DependencyFlags::VIEW_LOCAL,
    }];
    let masks = [0b11, 0b10];
    let offsets = [0];
    let correlation = [0b11];
    let mut multiview = vk::RenderPassMultiviewCreateInfo::default()
        .view_masks(&masks)
        .view_offsets(&offsets)
        .correlation_masks(&correlation);
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&deps)
        .push_next(&mut multiview);
    // SAFETY: a live device and a valid create info.
    unsafe { device.create_render_pass(&info, None) }.unwrap()
}

#[test]
fn multiview_loads_once_per_view_and_transitions_each_views_layer() {
    let mut f = Fixture::new();
    let view = f.view("mv", RGBA, ONE, 2);
    let pass = multiview_pass_1_0(&f.device);
    let fb = f.framebuffer(pass, &[view], 1);
    let clear = [clears()[0]];
    let log = f.record(|d, cb| {
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area())
            .clear_values(&clear);
        // SAFETY: a recording primary; the pass and framebuffer are live.
        unsafe {
            d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            d.cmd_next_subpass(cb, vk::SubpassContents::INLINE);
            d.cmd_end_render_pass(cb);
        }
    });
    let expected = [
        "barrier | mv COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 0+1 \
         | mv COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 1+1",
        // View 1 is drawn again later: STORE, not the pass's DONT_CARE.
        "begin 64x64 layers 1 mask 0x3 0 \
         | color mv.v COLOR_ATTACHMENT_OPTIMAL CLEAR STORE clear [1.0, 0.0, 0.0, 1.0]",
        "end",
        // The view-local dependency lands on view 1 of subpass 0 (offset 0): it applies.
        "barrier | memory COLOR_ATTACHMENT_OUTPUT COLOR_ATTACHMENT_WRITE -> COLOR_ATTACHMENT_OUTPUT COLOR_ATTACHMENT_READ",
        "begin 64x64 layers 1 mask 0x2 0 | color mv.v COLOR_ATTACHMENT_OPTIMAL LOAD DONT_CARE",
        "end",
        "barrier | mv COLOR COLOR_ATTACHMENT_OPTIMAL -> SHADER_READ_ONLY_OPTIMAL mip 0 layers 0+1 \
         | mv COLOR COLOR_ATTACHMENT_OPTIMAL -> SHADER_READ_ONLY_OPTIMAL mip 0 layers 1+1",
    ];
    assert_eq!(log, expected, "{log:#?}");
    // SAFETY: a live render pass of the fixture driver.
    let rp = unsafe { RenderPass::from_handle(pass) }.unwrap();
    assert!(rp.is_multiview);
    assert_eq!(rp.view_mask, 0b11);
    assert_eq!(rp.correlated_view_masks, [0b11]);
    assert_eq!(rp.subpass_rendering(1).unwrap().view_mask, 0b10);
    // SAFETY: objects of the fixture, no longer used.
    unsafe {
        f.device.destroy_framebuffer(fb, None);
        f.device.destroy_render_pass(pass, None);
    }
}

#[test]
fn the_1_0_create_info_reads_as_its_2_form() {
    let f = Fixture::new();
    // The two-subpass pass in its 1.0 form: same attachments, references and dependencies.
    let attachments = [
        (RGBA, MS, Op::CLEAR, St::DONT_CARE, L::TRANSFER_SRC_OPTIMAL),
        (
            DS,
            MS,
            Op::CLEAR,
            St::DONT_CARE,
            L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        ),
        (RGBA, ONE, Op::DONT_CARE, St::STORE, L::PRESENT_SRC_KHR),
    ]
    .map(
        |(format, samples, load, store, final_layout)| vk::AttachmentDescription {
            format,
            samples,
            load_op: load,
            store_op: store,
            stencil_load_op: load,
            stencil_store_op: store,
            initial_layout: L::UNDEFINED,
            final_layout,
            ..Default::default()
        },
    );
    let r = |attachment, layout| vk::AttachmentReference { attachment, layout };
    let color0 = [r(0, L::COLOR_ATTACHMENT_OPTIMAL)];
    let resolve0 = [r(2, L::COLOR_ATTACHMENT_OPTIMAL)];
    let depth0 = r(1, L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    let input1 = [r(2, L::SHADER_READ_ONLY_OPTIMAL)];
    let depth1 = r(1, L::DEPTH_STENCIL_READ_ONLY_OPTIMAL);
    let subpasses = [
        vk::SubpassDescription::default()
            .color_attachments(&color0)
            .resolve_attachments(&resolve0)
            .depth_stencil_attachment(&depth0),
        vk::SubpassDescription::default()
            .input_attachments(&input1)
            .color_attachments(&color0)
            .depth_stencil_attachment(&depth1),
    ];
    let deps = dependencies();
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&deps);
    // SAFETY: a live device and valid create infos.
    let (one, two) = unsafe {
        (
            f.device.create_render_pass(&info, None).unwrap(),
            two_subpass_pass(&f.device),
        )
    };
    // SAFETY: live render passes of the fixture driver.
    let (a, b) = unsafe { (RenderPass::from_handle(one), RenderPass::from_handle(two)) };
    let (a, b) = (a.unwrap(), b.unwrap());
    assert_eq!(*a.pass, *b.pass);
    // An input reference of 1.0 reads every aspect of its format.
    assert_eq!(
        a.subpasses[1].inputs[0].unwrap().aspects,
        vk::ImageAspectFlags::COLOR
    );
    // SAFETY: a live device; the passes are unused.
    unsafe {
        let g = f.device.get_render_area_granularity(one);
        assert_eq!((g.width, g.height), (1, 1));
        f.device.destroy_render_pass(one, None);
        f.device.destroy_render_pass(two, None);
    }
}

#[test]
fn imageless_framebuffers_take_the_views_given_at_begin() {
    let mut f = Fixture::new();
    let view = f.view("late", RGBA, ONE, 1);
    let attachments = [
        att2(RGBA, ONE, Op::LOAD, St::STORE, L::COLOR_ATTACHMENT_OPTIMAL)
            .initial_layout(L::COLOR_ATTACHMENT_OPTIMAL),
    ];
    let color = [ref2(0, L::COLOR_ATTACHMENT_OPTIMAL)];
    let subpasses = [vk::SubpassDescription2::default().color_attachments(&color)];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: a live device and a valid create info.
    let pass = unsafe { f.device.create_render_pass2(&info, None) }.unwrap();
    let formats = [RGBA];
    let images = [vk::FramebufferAttachmentImageInfo::default()
        .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
        .width(64)
        .height(64)
        .layer_count(1)
        .view_formats(&formats)];
    let mut attachment_infos =
        vk::FramebufferAttachmentsCreateInfo::default().attachment_image_infos(&images);
    let mut fb_info = vk::FramebufferCreateInfo::default()
        .flags(vk::FramebufferCreateFlags::IMAGELESS)
        .render_pass(pass)
        .width(64)
        .height(64)
        .layers(1)
        .push_next(&mut attachment_infos);
    fb_info.attachment_count = 1;
    // SAFETY: a live device and a valid create info.
    let fb = unsafe { f.device.create_framebuffer(&fb_info, None) }.unwrap();
    // SAFETY: a live framebuffer of the fixture driver.
    let framebuffer = unsafe { kit::render_pass::Framebuffer::from_handle(fb) }.unwrap();
    assert!(framebuffer.is_imageless() && framebuffer.attachments.is_empty());
    assert_eq!(framebuffer.imageless[0].view_formats, [RGBA]);
    let views = [view];
    let log = f.record(|d, cb| {
        let mut given = vk::RenderPassAttachmentBeginInfo::default().attachments(&views);
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area())
            .push_next(&mut given);
        let sub = vk::SubpassBeginInfo::default().contents(vk::SubpassContents::INLINE);
        // SAFETY: a recording primary; the pass, framebuffer and view are live.
        unsafe {
            d.cmd_begin_render_pass2(cb, &begin, &sub);
            d.cmd_end_render_pass2(cb, &vk::SubpassEndInfo::default());
        }
    });
    // Initial, subpass and final layouts agree: no barrier at all.
    assert_eq!(
        log,
        [
            "begin 64x64 layers 1 mask 0x0 0 | color late.v COLOR_ATTACHMENT_OPTIMAL LOAD STORE",
            "end"
        ]
    );
    // SAFETY: objects of the fixture, no longer used.
    unsafe {
        f.device.destroy_framebuffer(fb, None);
        f.device.destroy_render_pass(pass, None);
    }
}

#[test]
fn integer_and_depth_stencil_resolves_input_clears_and_secondary_contents() {
    let mut f = Fixture::new();
    const UINT: vk::Format = vk::Format::R32_UINT;
    let views = [
        f.view("int", UINT, MS, 1),
        f.view("int1", UINT, ONE, 1),
        f.view("ds", DS, MS, 1),
        f.view("ds1", DS, ONE, 1),
        f.view("in", RGBA, ONE, 1),
    ];
    let attachments = [
        att2(
            UINT,
            MS,
            Op::CLEAR,
            St::DONT_CARE,
            L::COLOR_ATTACHMENT_OPTIMAL,
        ),
        att2(
            UINT,
            ONE,
            Op::DONT_CARE,
            St::STORE,
            L::COLOR_ATTACHMENT_OPTIMAL,
        ),
        att2(
            DS,
            MS,
            Op::LOAD,
            St::STORE,
            L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        )
        .initial_layout(L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        att2(
            DS,
            ONE,
            Op::DONT_CARE,
            St::STORE,
            L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        )
        .initial_layout(L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL),
        att2(RGBA, ONE, Op::CLEAR, St::STORE, L::GENERAL).initial_layout(L::GENERAL),
    ];
    let input = [ref2(4, L::GENERAL).aspect_mask(vk::ImageAspectFlags::COLOR)];
    let color = [ref2(0, L::COLOR_ATTACHMENT_OPTIMAL)];
    let resolve = [ref2(1, L::COLOR_ATTACHMENT_OPTIMAL)];
    let depth = ref2(2, L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    let depth_resolve = ref2(3, L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL);
    let mut ds_resolve = vk::SubpassDescriptionDepthStencilResolve::default()
        .depth_resolve_mode(vk::ResolveModeFlags::SAMPLE_ZERO)
        .stencil_resolve_mode(vk::ResolveModeFlags::NONE)
        .depth_stencil_resolve_attachment(&depth_resolve);
    let subpasses = [vk::SubpassDescription2::default()
        .input_attachments(&input)
        .color_attachments(&color)
        .resolve_attachments(&resolve)
        .depth_stencil_attachment(&depth)
        .push_next(&mut ds_resolve)];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: a live device and a valid create info.
    let pass = unsafe { f.device.create_render_pass2(&info, None) }.unwrap();
    let fb = f.framebuffer(pass, &views, 1);
    let mut clear = [vk::ClearValue::default(); 5];
    clear[4].color.float32 = [0.0, 0.5, 0.0, 1.0];
    let log = f.record(|d, cb| {
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area())
            .clear_values(&clear);
        let sub = vk::SubpassBeginInfo::default()
            .contents(vk::SubpassContents::SECONDARY_COMMAND_BUFFERS);
        // SAFETY: a recording primary; the pass and framebuffer are live.
        unsafe {
            d.cmd_begin_render_pass2(cb, &begin, &sub);
            d.cmd_end_render_pass2(cb, &vk::SubpassEndInfo::default());
        }
    });
    let expected = [
        "barrier | int COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 0+1 \
         | int1 COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 0+1",
        // The input attachment's clear cannot ride on the subpass's rendering: its own pair.
        "begin 64x64 layers 1 mask 0x0 0 | color in.v GENERAL CLEAR STORE clear [0.0, 0.5, 0.0, 1.0]",
        "end",
        "begin 64x64 layers 1 mask 0x0 CONTENTS_SECONDARY_COMMAND_BUFFERS \
         | color int.v COLOR_ATTACHMENT_OPTIMAL CLEAR DONT_CARE clear [0.0, 0.0, 0.0, 0.0] \
         resolve SAMPLE_ZERO int1.v COLOR_ATTACHMENT_OPTIMAL \
         | depth ds.v DEPTH_STENCIL_ATTACHMENT_OPTIMAL LOAD STORE \
         resolve SAMPLE_ZERO ds1.v DEPTH_STENCIL_ATTACHMENT_OPTIMAL \
         | stencil ds.v DEPTH_STENCIL_ATTACHMENT_OPTIMAL LOAD STORE",
        "end",
    ];
    assert_eq!(log, expected, "{log:#?}");
    // SAFETY: objects of the fixture, no longer used.
    unsafe {
        f.device.destroy_framebuffer(fb, None);
        f.device.destroy_render_pass(pass, None);
    }
}

#[test]
fn a_secondary_continuing_a_subpass_inherits_dynamic_rendering() {
    let f = Fixture::new();
    let pass = two_subpass_pass(&f.device);
    let secondary = f.buffer(vk::CommandBufferLevel::SECONDARY);
    let inheritance = vk::CommandBufferInheritanceInfo::default()
        .render_pass(pass)
        .subpass(1);
    let begin = vk::CommandBufferBeginInfo::default()
        .flags(vk::CommandBufferUsageFlags::RENDER_PASS_CONTINUE)
        .inheritance_info(&inheritance);
    // SAFETY: the begin info is valid for the call.
    let direct = unsafe {
        kit::render_pass::inheritance_rendering(vk::CommandBufferLevel::SECONDARY, &begin)
    };
    let direct = direct.expect("subpass 1 of the pass");
    assert_eq!(direct.color_formats, [RGBA]);
    // What a pipeline of that subpass renders with.
    let p = direct.pipeline_rendering_info();
    assert_eq!(
        (
            p.color_attachment_count,
            p.depth_attachment_format,
            p.stencil_attachment_format
        ),
        (1, DS, DS)
    );
    // SAFETY: a fresh secondary of the fixture; the render pass is live.
    unsafe {
        f.device.begin_command_buffer(secondary, &begin).unwrap();
        f.device.end_command_buffer(secondary).unwrap();
    }
    assert_eq!(
        INHERITED.lock().unwrap().take(),
        Some((
            true,
            0,
            vec![RGBA],
            DS,
            DS,
            MS,
            vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS
        ))
    );
    // A primary (or a secondary outside a pass) inherits nothing.
    // SAFETY: the begin info is still valid; only the level differs.
    let primary =
        unsafe { kit::render_pass::inheritance_rendering(vk::CommandBufferLevel::PRIMARY, &begin) };
    assert_eq!(primary, None);
    // SAFETY: objects of the fixture, no longer used.
    unsafe { f.device.destroy_render_pass(pass, None) };
}

#[test]
fn the_rendering_area_granularity_is_answered_where_the_tables_have_it() {
    // Vulkan 1.4 (and maintenance5's KHR name) only: a 1.3 registry has no such command.
    let Some(cmd) = commands::lookup(c"vkGetRenderingAreaGranularityKHR") else {
        return;
    };
    let f = kit::command_map::<Rp>()
        .get(cmd)
        .expect("the kit answers it");
    // SAFETY: the entry answers vkGetRenderingAreaGranularity, whose signature this is.
    let f: vk::PFN_vkGetRenderingAreaGranularityKHR = unsafe { std::mem::transmute(f) };
    let fixture = Fixture::new();
    let info = vk::RenderingAreaInfoKHR::default();
    let mut out = vk::Extent2D::default();
    // SAFETY: a live device, a valid info and output.
    unsafe { f(fixture.device.handle(), &info, &mut out) };
    assert_eq!((out.width, out.height), (1, 1));
}

#[test]
fn separate_stencil_layouts_and_3d_attachments() {
    let mut f = Fixture::new();
    let views = [f.view("ds", DS, ONE, 1), f.view_3d("vol", 4)];
    let mut stencil_final = vk::AttachmentDescriptionStencilLayout::default()
        .stencil_initial_layout(L::UNDEFINED)
        .stencil_final_layout(L::STENCIL_READ_ONLY_OPTIMAL);
    let attachments = [
        att2(DS, ONE, Op::CLEAR, St::STORE, L::DEPTH_READ_ONLY_OPTIMAL)
            .push_next(&mut stencil_final),
        att2(RGBA, ONE, Op::DONT_CARE, St::STORE, L::TRANSFER_SRC_OPTIMAL),
    ];
    let mut stencil_ref = vk::AttachmentReferenceStencilLayout::default()
        .stencil_layout(L::STENCIL_ATTACHMENT_OPTIMAL);
    let depth = ref2(0, L::DEPTH_ATTACHMENT_OPTIMAL).push_next(&mut stencil_ref);
    let color = [ref2(1, L::COLOR_ATTACHMENT_OPTIMAL)];
    let subpasses = [vk::SubpassDescription2::default()
        .color_attachments(&color)
        .depth_stencil_attachment(&depth)];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: a live device and a valid create info.
    let pass = unsafe { f.device.create_render_pass2(&info, None) }.unwrap();
    let fb = f.framebuffer(pass, &views, 1);
    let clear = clears();
    let log = f.record(|d, cb| {
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area())
            .clear_values(&clear[1..]);
        // SAFETY: a recording primary; the pass and framebuffer are live.
        unsafe {
            d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            d.cmd_end_render_pass(cb);
        }
    });
    let expected = [
        // Depth and stencil layouts differ: one barrier each. A 3D attachment's transition
        // covers the whole mip level (its 4 slices), whatever the view selects.
        "barrier | vol COLOR UNDEFINED -> COLOR_ATTACHMENT_OPTIMAL mip 0 layers 0+4 \
         | ds DEPTH UNDEFINED -> DEPTH_ATTACHMENT_OPTIMAL mip 0 layers 0+1 \
         | ds STENCIL UNDEFINED -> STENCIL_ATTACHMENT_OPTIMAL mip 0 layers 0+1",
        "begin 64x64 layers 1 mask 0x0 0 | color vol.v COLOR_ATTACHMENT_OPTIMAL DONT_CARE STORE \
         | depth ds.v DEPTH_ATTACHMENT_OPTIMAL CLEAR STORE clear 1 7 \
         | stencil ds.v STENCIL_ATTACHMENT_OPTIMAL CLEAR STORE clear 1 7",
        "end",
        "barrier | ds DEPTH DEPTH_ATTACHMENT_OPTIMAL -> DEPTH_READ_ONLY_OPTIMAL mip 0 layers 0+1 \
         | ds STENCIL STENCIL_ATTACHMENT_OPTIMAL -> STENCIL_READ_ONLY_OPTIMAL mip 0 layers 0+1 \
         | vol COLOR COLOR_ATTACHMENT_OPTIMAL -> TRANSFER_SRC_OPTIMAL mip 0 layers 0+4",
    ];
    assert_eq!(log, expected, "{log:#?}");
    // SAFETY: objects of the fixture, no longer used.
    unsafe {
        f.device.destroy_framebuffer(fb, None);
        f.device.destroy_render_pass(pass, None);
    }
}

#[test]
fn views_new_to_a_later_subpass_are_cleared_by_their_own_rendering() {
    let mut f = Fixture::new();
    let view = f.view("mv", RGBA, ONE, 2);
    let attachments = [
        att2(RGBA, ONE, Op::CLEAR, St::STORE, L::COLOR_ATTACHMENT_OPTIMAL)
            .initial_layout(L::COLOR_ATTACHMENT_OPTIMAL),
    ];
    let color = [ref2(0, L::COLOR_ATTACHMENT_OPTIMAL)];
    let subpasses = [
        vk::SubpassDescription2::default()
            .view_mask(0b01)
            .color_attachments(&color),
        vk::SubpassDescription2::default()
            .view_mask(0b11)
            .color_attachments(&color),
    ];
    let info = vk::RenderPassCreateInfo2::default()
        .attachments(&attachments)
        .subpasses(&subpasses);
    // SAFETY: a live device and a valid create info.
    let pass = unsafe { f.device.create_render_pass2(&info, None) }.unwrap();
    let fb = f.framebuffer(pass, &[view], 1);
    let clear = [clears()[0]];
    let log = f.record(|d, cb| {
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(area())
            .clear_values(&clear);
        // SAFETY: a recording primary; the pass and framebuffer are live.
        unsafe {
            d.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
            d.cmd_next_subpass(cb, vk::SubpassContents::INLINE);
            d.cmd_end_render_pass(cb);
        }
    });
    let expected = [
        "begin 64x64 layers 1 mask 0x1 0 \
         | color mv.v COLOR_ATTACHMENT_OPTIMAL CLEAR STORE clear [1.0, 0.0, 0.0, 1.0]",
        "end",
        // View 1 is new in subpass 1 but view 0 must be kept: view 1 is cleared alone first.
        "begin 64x64 layers 1 mask 0x2 0 \
         | color mv.v COLOR_ATTACHMENT_OPTIMAL CLEAR STORE clear [1.0, 0.0, 0.0, 1.0]",
        "end",
        "begin 64x64 layers 1 mask 0x3 0 | color mv.v COLOR_ATTACHMENT_OPTIMAL LOAD STORE",
        "end",
    ];
    assert_eq!(log, expected, "{log:#?}");
    // SAFETY: objects of the fixture, no longer used.
    unsafe {
        f.device.destroy_framebuffer(fb, None);
        f.device.destroy_render_pass(pass, None);
    }
}
