//! Render passes for a driver that records nothing (`RECORD_COMMANDS` off) and hooks
//! `vkCmdBeginRendering`, `vkCmdEndRendering` and `vkCmdPipelineBarrier2` itself: the kit's
//! render passes reach those hooks directly, at the time of the application's call — the 1.0
//! commands too, through the `…2` routes.

use std::ffi::CStr;
use std::sync::Mutex;

mod support;

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::{self, Kit};

struct Hooks;

/// What the hooks were called with, in order.
static CALLS: Mutex<Vec<String>> = Mutex::new(Vec::new());

impl DriverModule for Hooks {
    const NAME: &'static CStr = c"render pass hooks fixture";
}

impl Kit for Hooks {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RENDER_PASS_OBJECTS: bool = true;
}

impl kit::native_buffer::NativeBuffers for Hooks {}

#[vkgen_driver::driver(kit)]
impl Driver for Hooks {
    unsafe fn cmd_begin_rendering(_cb: vk::CommandBuffer, info: *const vk::RenderingInfo<'_>) {
        // SAFETY: the kit passes a valid rendering info for the call.
        let info = unsafe { &*info };
        // SAFETY: one colour attachment in this test's pass.
        let color = unsafe { &*info.p_color_attachments };
        CALLS.lock().unwrap().push(format!(
            "begin {} {:?} {:?}",
            info.color_attachment_count, color.load_op, color.store_op
        ));
    }

    unsafe fn cmd_end_rendering(_cb: vk::CommandBuffer) {
        CALLS.lock().unwrap().push("end".into());
    }

    unsafe fn cmd_pipeline_barrier2(_cb: vk::CommandBuffer, info: *const vk::DependencyInfo<'_>) {
        // SAFETY: the kit passes a valid dependency info for the call.
        let info = unsafe { &*info };
        CALLS.lock().unwrap().push(format!(
            "barrier {} {}",
            info.memory_barrier_count, info.image_memory_barrier_count
        ));
    }
}

#[test]
fn the_vendors_hooks_run_at_the_applications_call() {
    let (instance, device) = support::instance_and_device::<Hooks>(vk::API_VERSION_1_3, 1);
    let attachments = [vk::AttachmentDescription {
        format: vk::Format::R8G8B8A8_UNORM,
        samples: vk::SampleCountFlags::TYPE_1,
        load_op: vk::AttachmentLoadOp::CLEAR,
        store_op: vk::AttachmentStoreOp::STORE,
        initial_layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        final_layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
        ..Default::default()
    }];
    let color = [vk::AttachmentReference {
        attachment: 0,
        layout: vk::ImageLayout::COLOR_ATTACHMENT_OPTIMAL,
    }];
    let subpasses = [vk::SubpassDescription::default().color_attachments(&color)];
    let deps = [vk::SubpassDependency {
        src_subpass: vk::SUBPASS_EXTERNAL,
        dst_subpass: 0,
        src_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        dst_stage_mask: vk::PipelineStageFlags::COLOR_ATTACHMENT_OUTPUT,
        ..Default::default()
    }];
    let info = vk::RenderPassCreateInfo::default()
        .attachments(&attachments)
        .subpasses(&subpasses)
        .dependencies(&deps);
    // SAFETY: a live device and valid create infos; the command buffer records nothing but
    // reaches the hooks, and every object is destroyed before the device.
    unsafe {
        let pass = device.create_render_pass(&info, None).unwrap();
        // The view is the vendor's: an opaque handle the kit never looks into.
        let views = [vk::Handle::from_raw(0x1234)];
        let fb_info = vk::FramebufferCreateInfo::default()
            .render_pass(pass)
            .attachments(&views)
            .width(8)
            .height(8)
            .layers(1);
        let fb = device.create_framebuffer(&fb_info, None).unwrap();
        let pool = device
            .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
            .unwrap();
        let cb = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        let clear = [vk::ClearValue::default()];
        let begin = vk::RenderPassBeginInfo::default()
            .render_pass(pass)
            .framebuffer(fb)
            .render_area(vk::Rect2D {
                offset: vk::Offset2D::default(),
                extent: vk::Extent2D {
                    width: 8,
                    height: 8,
                },
            })
            .clear_values(&clear);
        device.cmd_begin_render_pass(cb, &begin, vk::SubpassContents::INLINE);
        assert_eq!(
            *CALLS.lock().unwrap(),
            ["barrier 1 0", "begin 1 CLEAR STORE"],
            "the dependency from outside is a memory barrier; no layout changes"
        );
        device.cmd_end_render_pass(cb);
        assert_eq!(
            *CALLS.lock().unwrap(),
            ["barrier 1 0", "begin 1 CLEAR STORE", "end"]
        );
        device.end_command_buffer(cb).unwrap();
        device.destroy_command_pool(pool, None);
        device.destroy_framebuffer(fb, None);
        device.destroy_render_pass(pass, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
