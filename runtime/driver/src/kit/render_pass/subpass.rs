//! One subpass as dynamic rendering (Mesa's `begin_subpass`, `load_attachment` and the end of
//! `vk_common_CmdEndRenderPass2`); the rules are listed in the [module docs](super).

use vkgen_generated::vk;

use super::layouts::Layouts;
use super::pass::{Subpass, SubpassAttachment};
use super::state::{ActivePass, Op, Rendering};

type Info = vk::RenderingAttachmentInfo<'static>;
type Load = vk::AttachmentLoadOp;
type Store = vk::AttachmentStoreOp;

impl ActivePass {
    fn rendering(&self, view_mask: u32, flags: vk::RenderingFlags) -> Rendering {
        let multiview = self.pass.is_multiview;
        Rendering {
            flags,
            render_area: self.render_area,
            layer_count: if multiview { 1 } else { self.layers },
            view_mask: if multiview { view_mask } else { 0 },
            colors: Vec::new(),
            depth: None,
            stencil: None,
            device_group: self.device_group.clone(),
        }
    }

    /// Whether none of `mask`'s views of `index` is loaded yet (then they all count as
    /// loaded). Partly loaded views stay as they are: the subpass loads with `LOAD` and its
    /// new views get their own clear ([`Self::load_alone`]).
    fn first_load(&mut self, index: u32, mask: u32) -> bool {
        let att = &mut self.attachments[index as usize];
        let first = att.views_loaded & mask == 0;
        if first {
            att.views_loaded |= mask;
        }
        first
    }

    /// The colour attachment `i` of subpass `sp` (Mesa's load/store/resolve rules).
    fn color_info(&mut self, sp: &Subpass, i: usize) -> Info {
        let Some(u) = sp.colors[i] else {
            return Info::default();
        };
        let desc = self.pass.attachments[u.attachment as usize];
        let mut info = Info {
            image_view: self.attachments[u.attachment as usize].view,
            image_layout: u.layout,
            store_op: if sp.view_mask & !u.last_views == 0 {
                desc.store_op
            } else {
                Store::STORE
            },
            ..Default::default()
        };
        if self.first_load(u.attachment, sp.view_mask) {
            info.load_op = desc.load_op;
            info.clear_value = self.attachments[u.attachment as usize].clear;
        } else {
            info.load_op = Load::LOAD;
        }
        if let Some(Some(r)) = sp.resolves.get(i) {
            // The resolve overwrites the whole attachment: it is its load.
            self.attachments[r.attachment as usize].views_loaded |= sp.view_mask;
            let format = self.pass.attachments[r.attachment as usize].format;
            info.resolve_mode = if super::formats::is_integer(format) {
                vk::ResolveModeFlags::SAMPLE_ZERO
            } else {
                vk::ResolveModeFlags::AVERAGE
            };
            info.resolve_image_view = self.attachments[r.attachment as usize].view;
            info.resolve_image_layout = r.layout;
        }
        info
    }

    /// The depth and stencil attachments of subpass `sp`: each present when the attachment's
    /// format has the aspect; resolve modes masked by the resolve target's aspects.
    fn depth_stencil_info(&mut self, sp: &Subpass) -> (Option<Info>, Option<Info>) {
        let Some(u) = sp.depth_stencil else {
            return (None, None);
        };
        let desc = self.pass.attachments[u.attachment as usize];
        let view = self.attachments[u.attachment as usize].view;
        let first = self.first_load(u.attachment, sp.view_mask);
        let clear = self.attachments[u.attachment as usize].clear;
        let last = sp.view_mask & !u.last_views == 0;
        let make = |layout, load, store| Info {
            image_view: view,
            image_layout: layout,
            load_op: if first { load } else { Load::LOAD },
            store_op: if last { store } else { Store::STORE },
            clear_value: if first {
                clear
            } else {
                vk::ClearValue::default()
            },
            ..Default::default()
        };
        let mut depth = make(u.layout, desc.load_op, desc.store_op);
        let mut stencil = make(
            u.stencil_layout,
            desc.stencil_load_op,
            desc.stencil_store_op,
        );
        if let Some(r) = sp.depth_stencil_resolve {
            let target = self.pass.attachments[r.attachment as usize].aspects;
            let resolve_view = self.attachments[r.attachment as usize].view;
            let mut resolved = vk::ImageAspectFlags::empty();
            if target.contains(vk::ImageAspectFlags::DEPTH) && !sp.depth_resolve_mode.is_empty() {
                depth.resolve_mode = sp.depth_resolve_mode;
                depth.resolve_image_view = resolve_view;
                depth.resolve_image_layout = r.layout;
                resolved |= vk::ImageAspectFlags::DEPTH;
            }
            if target.contains(vk::ImageAspectFlags::STENCIL) && !sp.stencil_resolve_mode.is_empty()
            {
                stencil.resolve_mode = sp.stencil_resolve_mode;
                stencil.resolve_image_view = resolve_view;
                stencil.resolve_image_layout = r.stencil_layout;
                resolved |= vk::ImageAspectFlags::STENCIL;
            }
            if resolved == desc.aspects {
                self.attachments[r.attachment as usize].views_loaded |= sp.view_mask;
            }
        }
        let has = |a| desc.aspects.contains(a);
        (
            has(vk::ImageAspectFlags::DEPTH).then_some(depth),
            has(vk::ImageAspectFlags::STENCIL).then_some(stencil),
        )
    }

    /// The subpass's incoming dependencies merged into one memory barrier (a view-local one
    /// only when its offset lands on a view of its source subpass).
    fn incoming(&self, dst: u32) -> Option<vk::MemoryBarrier2<'static>> {
        let view_mask = self.pass.subpasses[dst as usize].view_mask;
        let mut barrier = None;
        for d in self
            .pass
            .dependencies
            .iter()
            .filter(|d| d.dst_subpass == dst)
        {
            if d.flags.contains(vk::DependencyFlags::VIEW_LOCAL) {
                let Some(src) = self.pass.subpasses.get(d.src_subpass as usize) else {
                    continue;
                };
                let views = if d.view_offset >= 0 {
                    view_mask.checked_shl(d.view_offset as u32).unwrap_or(0)
                } else {
                    view_mask
                        .checked_shr(d.view_offset.unsigned_abs())
                        .unwrap_or(0)
                };
                if src.view_mask & views == 0 {
                    continue;
                }
            }
            let b: &mut vk::MemoryBarrier2<'static> = barrier.get_or_insert_with(Default::default);
            b.src_stage_mask |= d.src_stage_mask;
            b.src_access_mask |= d.src_access_mask;
            b.dst_stage_mask |= d.dst_stage_mask;
            b.dst_access_mask |= d.dst_access_mask;
        }
        barrier
    }

    /// A clear of attachment use `u` the subpass's rendering cannot do (an attachment whose
    /// first use is as an input attachment): its own begin/end pair over the new views.
    fn load_alone(&mut self, u: &SubpassAttachment, view_mask: u32, ops: &mut Vec<Op>) {
        let att = &mut self.attachments[u.attachment as usize];
        let views = view_mask & !att.views_loaded;
        if views == 0 {
            return;
        }
        att.views_loaded |= views;
        let desc = self.pass.attachments[u.attachment as usize];
        let depth_or_stencil = desc
            .aspects
            .intersects(vk::ImageAspectFlags::DEPTH | vk::ImageAspectFlags::STENCIL);
        let clears = (desc.aspects.intersects(!vk::ImageAspectFlags::STENCIL)
            && desc.load_op == Load::CLEAR)
            || (desc.aspects.contains(vk::ImageAspectFlags::STENCIL)
                && desc.stencil_load_op == Load::CLEAR);
        if !clears {
            return;
        }
        let (view, clear_value) = (att.view, att.clear);
        let make = |layout, load_op| Info {
            image_view: view,
            image_layout: layout,
            load_op,
            store_op: Store::STORE,
            clear_value,
            ..Default::default()
        };
        let mut r = self.rendering(views, vk::RenderingFlags::empty());
        if depth_or_stencil {
            r.depth = desc
                .aspects
                .contains(vk::ImageAspectFlags::DEPTH)
                .then(|| make(u.layout, desc.load_op));
            r.stencil = desc
                .aspects
                .contains(vk::ImageAspectFlags::STENCIL)
                .then(|| make(u.stencil_layout, desc.stencil_load_op));
        } else {
            r.colors.push(make(u.layout, desc.load_op));
        }
        ops.push(Op::Begin(r));
        ops.push(Op::End);
    }

    /// What beginning the current subpass takes: its barrier (incoming dependencies and the
    /// transitions to the subpass's layouts), the clears it cannot fold, its rendering.
    pub fn begin_subpass(&mut self, contents: vk::SubpassContents, ops: &mut Vec<Op>) {
        let pass = self.pass.clone();
        let idx = self.subpass;
        let sp = &pass.subpasses[idx as usize];
        let flags = if contents == vk::SubpassContents::INLINE {
            vk::RenderingFlags::empty()
        } else {
            vk::RenderingFlags::CONTENTS_SECONDARY_COMMAND_BUFFERS
        };
        let mut rendering = self.rendering(sp.view_mask, flags);
        rendering.colors = (0..sp.colors.len())
            .map(|i| self.color_info(sp, i))
            .collect();
        (rendering.depth, rendering.stencil) = self.depth_stencil_info(sp);
        let memory = self.incoming(idx);
        let mut images = Vec::new();
        for u in sp.uses() {
            let to = Layouts {
                layout: u.layout,
                stencil: u.stencil_layout,
            };
            self.transition(u.attachment, sp.view_mask, to, &mut images);
        }
        if memory.is_some() || !images.is_empty() {
            ops.push(Op::Barrier { memory, images });
        }
        for u in sp.uses() {
            self.load_alone(u, sp.view_mask, ops);
        }
        ops.push(Op::Begin(rendering));
    }

    /// What ending the pass takes after the last subpass's `End`: every attachment to its
    /// final layouts, with the dependencies into `VK_SUBPASS_EXTERNAL` as the memory barrier.
    pub fn end_pass(&mut self, ops: &mut Vec<Op>) {
        let pass = self.pass.clone();
        let mut images = Vec::new();
        for (i, a) in pass.attachments.iter().enumerate() {
            let to = Layouts {
                layout: a.final_layout,
                stencil: a.final_stencil_layout,
            };
            self.transition(i as u32, pass.view_mask, to, &mut images);
        }
        let memory = self.incoming_external();
        if memory.is_some() || !images.is_empty() {
            ops.push(Op::Barrier { memory, images });
        }
    }

    fn incoming_external(&self) -> Option<vk::MemoryBarrier2<'static>> {
        let mut barrier = None;
        for d in self.pass.dependencies.iter() {
            if d.dst_subpass != vk::SUBPASS_EXTERNAL || d.src_subpass == vk::SUBPASS_EXTERNAL {
                continue;
            }
            let b: &mut vk::MemoryBarrier2<'static> = barrier.get_or_insert_with(Default::default);
            b.src_stage_mask |= d.src_stage_mask;
            b.src_access_mask |= d.src_access_mask;
            b.dst_stage_mask |= d.dst_stage_mask;
            b.dst_access_mask |= d.dst_access_mask;
        }
        barrier
    }
}
