//! The engine of `kit_render_pass`: it runs nothing and writes down what it was asked to
//! run — dynamic rendering with its attachments' ops, barriers with their layouts and
//! subresources — with handles by the fixture's names, so a test compares text.

use std::collections::HashMap;

use ash::vk;
use ash::vk::Handle as _;
use vkgen_driver::generated::commands::{self, CommandId};
use vkgen_driver::kit::command::Execute;

/// A recorded array (null when empty).
///
/// # Safety
/// A non-null `p` points at `n` elements.
unsafe fn arr<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() {
        &[]
    } else {
        // SAFETY: non-null and `n` long (the caller's contract).
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// Flags as text, `0` for none (ash prints nothing for an empty set).
fn fl(flags: impl std::fmt::Debug) -> String {
    match format!("{flags:?}") {
        s if s.is_empty() => "0".into(),
        s => s,
    }
}

/// The engine: what it was asked to run, as text, with handles by the fixture's names.
#[derive(Default)]
pub struct Engine {
    pub names: HashMap<u64, String>,
    pub log: Vec<String>,
}

impl Engine {
    fn name(&self, raw: u64) -> String {
        match raw {
            0 => "-".into(),
            r => self
                .names
                .get(&r)
                .cloned()
                .unwrap_or_else(|| format!("#{r}")),
        }
    }

    fn attachment(&self, a: &vk::RenderingAttachmentInfo<'_>, depth: bool) -> String {
        let mut s = format!(
            "{} {:?} {:?} {:?}",
            self.name(a.image_view.as_raw()),
            a.image_layout,
            a.load_op,
            a.store_op
        );
        if a.load_op == vk::AttachmentLoadOp::CLEAR {
            // SAFETY: plain data in either interpretation; the attachment's kind picks it.
            let c = unsafe {
                if depth {
                    let d = a.clear_value.depth_stencil;
                    format!(" clear {} {}", d.depth, d.stencil)
                } else {
                    format!(" clear {:?}", a.clear_value.color.float32)
                }
            };
            s += &c;
        }
        if a.resolve_mode != vk::ResolveModeFlags::NONE {
            s += &format!(
                " resolve {:?} {} {:?}",
                a.resolve_mode,
                self.name(a.resolve_image_view.as_raw()),
                a.resolve_image_layout
            );
        }
        s
    }
}

#[vkgen_driver::execute]
impl Execute for Engine {
    fn unimplemented(&mut self, cmd: CommandId) {
        let name = commands::info(cmd).name().to_string_lossy();
        self.log.push(format!("unimplemented {name}"));
    }

    unsafe fn cmd_begin_rendering(&mut self, info: *const vk::RenderingInfo<'_>) {
        // SAFETY: the replay passes the recorded copy.
        let info = unsafe { &*info };
        let mut s = format!(
            "begin {}x{} layers {} mask {:#x} {}",
            info.render_area.extent.width,
            info.render_area.extent.height,
            info.layer_count,
            info.view_mask,
            fl(info.flags)
        );
        // SAFETY: the recorded arrays and attachment pointers (null or one element).
        unsafe {
            for c in arr(info.p_color_attachments, info.color_attachment_count) {
                s += &format!(" | color {}", self.attachment(c, false));
            }
            if let Some(d) = info.p_depth_attachment.as_ref() {
                s += &format!(" | depth {}", self.attachment(d, true));
            }
            if let Some(d) = info.p_stencil_attachment.as_ref() {
                s += &format!(" | stencil {}", self.attachment(d, true));
            }
        }
        self.log.push(s);
    }

    unsafe fn cmd_end_rendering(&mut self) {
        self.log.push("end".into());
    }

    unsafe fn cmd_pipeline_barrier2(&mut self, info: *const vk::DependencyInfo<'_>) {
        // SAFETY: the replay passes the recorded copy with its arrays.
        let info = unsafe { &*info };
        let mut s = "barrier".to_string();
        // SAFETY: the recorded arrays of their counts.
        let (mem, img) = unsafe {
            (
                arr(info.p_memory_barriers, info.memory_barrier_count),
                arr(
                    info.p_image_memory_barriers,
                    info.image_memory_barrier_count,
                ),
            )
        };
        for m in mem {
            s += &format!(
                " | memory {} {} -> {} {}",
                fl(m.src_stage_mask),
                fl(m.src_access_mask),
                fl(m.dst_stage_mask),
                fl(m.dst_access_mask)
            );
        }
        for b in img {
            let r = b.subresource_range;
            s += &format!(
                " | {} {:?} {:?} -> {:?} mip {} layers {}+{}",
                self.name(b.image.as_raw()),
                r.aspect_mask,
                b.old_layout,
                b.new_layout,
                r.base_mip_level,
                r.base_array_layer,
                r.layer_count
            );
        }
        self.log.push(s);
    }
}
