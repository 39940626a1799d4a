//! The command buffer's dynamic graphics state (Mesa's `vk_dynamic_graphics_state`): the last
//! recorded setter of every `VkDynamicState`, and the resolved [`GraphicsState`] a draw uses —
//! the bound pipeline's static groups with the dynamic values applied over them.
//!
//! Why the last *command* is kept: which command sets which state is registry data
//! (`vkgen_generated::dynamic_state::set_by`), so every dynamic state of every registry is
//! tracked and reachable ([`DynamicState::last`]) even where [`apply`] has no decoder for it
//! (the NV and vendor setters); re-applying the kept setters after a pipeline bind is also how
//! state set before the bind survives it, as the spec says it does when the pipeline has that
//! state dynamic. Writes are compare-and-set: a state is marked dirty only when its value
//! changed.

use vkgen_generated::dynamic_state::{self, DYNAMIC_STATES};
use vkgen_generated::recorder::Cmd;
use vkgen_generated::vk;

use super::graphics::{DynamicSet, GraphicsState};
use crate::util::slice;

/// Dynamic state of a command buffer; see the [module docs](self).
#[derive(Default)]
pub struct DynamicState {
    last: Vec<Option<Cmd>>,
    /// States set in this command buffer.
    pub set: DynamicSet,
    /// States whose value changed since [`DynamicState::clear_dirty`].
    pub dirty: DynamicSet,
}

impl DynamicState {
    /// The last recorded command that set `state` (its arguments are valid during the replay).
    pub fn last(&self, state: vk::DynamicState) -> Option<&Cmd> {
        let i = dynamic_state::index(state)?;
        self.last.get(i)?.as_ref()
    }

    /// Records `cmd` if it sets dynamic states; applies it to `resolved` (when a pipeline is
    /// bound) and marks what changed dirty.
    ///
    /// # Safety
    /// `cmd`'s pointers are valid (a recorded command during its replay).
    pub unsafe fn observe(&mut self, cmd: &Cmd, resolved: Option<&mut GraphicsState>) {
        let states = dynamic_state::set_by(cmd.id());
        if states.is_empty() {
            return;
        }
        // Vertex buffers bound without strides set no stride.
        if let Cmd::BindVertexBuffers2 { p_strides, .. } = *cmd {
            if p_strides.is_null() {
                return;
            }
        }
        if self.last.len() < DYNAMIC_STATES.len() {
            self.last.resize(DYNAMIC_STATES.len(), None);
        }
        for &i in states {
            self.last[i] = Some(*cmd);
            self.set.set(i);
        }
        // A state the bound pipeline has static keeps the pipeline's value; the setter waits
        // in `last` for a pipeline that has it dynamic.
        if let Some(r) = resolved.filter(|r| states.iter().any(|&i| r.dynamic.has(i))) {
            let before = r.clone();
            // SAFETY: the caller's valid command.
            unsafe { apply(cmd, r) };
            if *r != before {
                for &i in states {
                    self.dirty.set(i);
                }
            }
        }
    }

    /// `pipeline`'s state with the kept setters of its dynamic states applied.
    ///
    /// # Safety
    /// The kept commands' pointers are valid (during the replay of their recording).
    pub unsafe fn resolve(&self, pipeline: &GraphicsState) -> GraphicsState {
        let mut r = pipeline.clone();
        let mut applied: Vec<usize> = Vec::new();
        for (i, cmd) in self.last.iter().enumerate() {
            let Some(cmd) = cmd else { continue };
            // One command may set several states: apply it once.
            let id = cmd.id().0 as usize;
            if pipeline.dynamic.has(i) && !applied.contains(&id) {
                applied.push(id);
                // SAFETY: the caller's valid commands.
                unsafe { apply(cmd, &mut r) };
            }
        }
        r
    }

    pub fn clear_dirty(&mut self) {
        self.dirty = DynamicSet::default();
    }

    /// Back to nothing set (a new recording).
    pub fn reset(&mut self) {
        *self = DynamicState::default();
    }
}

fn on(v: vk::Bool32) -> bool {
    v != vk::FALSE
}

/// Writes the values `cmd` sets into `s` (creating the groups it needs); `false` for a
/// command this decoder does not know (its values stay reachable through
/// [`DynamicState::last`]).
///
/// # Safety
/// `cmd`'s pointers are valid.
pub unsafe fn apply(cmd: &Cmd, s: &mut GraphicsState) -> bool {
    // SAFETY: the recorded arrays hold their counts (the caller's valid command).
    unsafe {
        match *cmd {
            Cmd::SetViewport {
                first_viewport,
                viewport_count,
                p_viewports,
            } => {
                let vp = s.vp.get_or_insert_with(Default::default);
                put(
                    &mut vp.viewports,
                    first_viewport,
                    slice(p_viewports, viewport_count),
                );
            }
            Cmd::SetScissor {
                first_scissor,
                scissor_count,
                p_scissors,
            } => {
                let vp = s.vp.get_or_insert_with(Default::default);
                put(
                    &mut vp.scissors,
                    first_scissor,
                    slice(p_scissors, scissor_count),
                );
            }
            Cmd::SetViewportWithCount {
                viewport_count,
                p_viewports,
            } => {
                let vp = s.vp.get_or_insert_with(Default::default);
                vp.viewport_count = viewport_count;
                vp.viewports = slice(p_viewports, viewport_count).to_vec();
            }
            Cmd::SetScissorWithCount {
                scissor_count,
                p_scissors,
            } => {
                let vp = s.vp.get_or_insert_with(Default::default);
                vp.scissor_count = scissor_count;
                vp.scissors = slice(p_scissors, scissor_count).to_vec();
            }
            Cmd::SetLineWidth { line_width } => rs(s).line_width = line_width,
            Cmd::SetDepthBias {
                depth_bias_constant_factor: c,
                depth_bias_clamp: cl,
                depth_bias_slope_factor: sl,
            } => rs(s).depth_bias = (c, cl, sl),
            Cmd::SetBlendConstants { blend_constants } => {
                let cb = s.cb.get_or_insert_with(Default::default);
                cb.blend_constants
                    .copy_from_slice(slice(blend_constants, 4));
            }
            Cmd::SetDepthBounds {
                min_depth_bounds,
                max_depth_bounds,
            } => ds(s).depth_bounds = (min_depth_bounds, max_depth_bounds),
            Cmd::SetStencilCompareMask {
                face_mask,
                compare_mask,
            } => faces(s, face_mask, |f| f.compare_mask = compare_mask),
            Cmd::SetStencilWriteMask {
                face_mask,
                write_mask,
            } => faces(s, face_mask, |f| f.write_mask = write_mask),
            Cmd::SetStencilReference {
                face_mask,
                reference,
            } => faces(s, face_mask, |f| f.reference = reference),
            Cmd::SetStencilOp {
                face_mask,
                fail_op,
                pass_op,
                depth_fail_op,
                compare_op,
            } => faces(s, face_mask, |f| {
                (f.fail_op, f.pass_op, f.depth_fail_op, f.compare_op) =
                    (fail_op, pass_op, depth_fail_op, compare_op);
            }),
            _ => return apply_extended(cmd, s),
        }
    }
    true
}

/// [`apply`] for the extended dynamic states (1.3's `VK_EXT_extended_dynamic_state{,2}` and
/// the `EXT` setters the kit decodes).
///
/// # Safety
/// `cmd`'s pointers are valid.
unsafe fn apply_extended(cmd: &Cmd, s: &mut GraphicsState) -> bool {
    // SAFETY: the recorded arrays hold their counts (the caller's valid command).
    unsafe {
        match *cmd {
            Cmd::SetCullMode { cull_mode } => rs(s).cull_mode = cull_mode,
            Cmd::SetFrontFace { front_face } => rs(s).front_face = front_face,
            Cmd::SetPrimitiveTopology { primitive_topology } => {
                s.ia.get_or_insert_with(Default::default).topology = primitive_topology;
            }
            Cmd::SetPrimitiveRestartEnable {
                primitive_restart_enable: e,
            } => s.ia.get_or_insert_with(Default::default).primitive_restart = on(e),
            Cmd::SetDepthTestEnable {
                depth_test_enable: e,
            } => ds(s).depth_test = on(e),
            Cmd::SetDepthWriteEnable {
                depth_write_enable: e,
            } => ds(s).depth_write = on(e),
            Cmd::SetDepthCompareOp { depth_compare_op } => ds(s).depth_compare = depth_compare_op,
            Cmd::SetDepthBoundsTestEnable {
                depth_bounds_test_enable: e,
            } => ds(s).depth_bounds_test = on(e),
            Cmd::SetStencilTestEnable {
                stencil_test_enable: e,
            } => ds(s).stencil_test = on(e),
            Cmd::SetRasterizerDiscardEnable {
                rasterizer_discard_enable: e,
            } => rs(s).rasterizer_discard = on(e),
            Cmd::SetDepthBiasEnable {
                depth_bias_enable: e,
            } => rs(s).depth_bias_enable = on(e),
            Cmd::SetPatchControlPointsEXT {
                patch_control_points,
            } => {
                s.ts.get_or_insert_with(Default::default)
                    .patch_control_points = patch_control_points;
            }
            Cmd::SetLogicOpEXT { logic_op } => {
                s.cb.get_or_insert_with(Default::default).logic_op = Some(logic_op);
            }
            Cmd::SetColorWriteEnableEXT {
                attachment_count,
                p_color_write_enables,
            } => {
                s.cb.get_or_insert_with(Default::default)
                    .color_write_enables = slice(p_color_write_enables, attachment_count)
                    .iter()
                    .enumerate()
                    .filter(|(_, &e)| on(e))
                    .fold(0, |m, (i, _)| m | 1 << i);
            }
            Cmd::BindVertexBuffers2 {
                first_binding,
                binding_count,
                p_strides,
                ..
            } => {
                let vi = s.vi.get_or_insert_with(Default::default);
                for (i, &stride) in slice(p_strides, binding_count).iter().enumerate() {
                    let binding = first_binding + i as u32;
                    match vi.bindings.iter_mut().find(|b| b.binding == binding) {
                        Some(b) => b.stride = stride as u32,
                        None => vi.bindings.push(vk::VertexInputBindingDescription {
                            binding,
                            stride: stride as u32,
                            input_rate: vk::VertexInputRate::VERTEX,
                        }),
                    }
                }
            }
            Cmd::SetVertexInputEXT {
                vertex_binding_description_count: nb,
                p_vertex_binding_descriptions: bs,
                vertex_attribute_description_count: na,
                p_vertex_attribute_descriptions: attrs,
            } => {
                let vi = s.vi.get_or_insert_with(Default::default);
                vi.bindings = slice(bs, nb)
                    .iter()
                    .map(|b| vk::VertexInputBindingDescription {
                        binding: b.binding,
                        stride: b.stride,
                        input_rate: b.input_rate,
                    })
                    .collect();
                vi.divisors = slice(bs, nb)
                    .iter()
                    .map(|b| (b.binding, b.divisor))
                    .collect();
                vi.attributes = slice(attrs, na)
                    .iter()
                    .map(|a| vk::VertexInputAttributeDescription {
                        location: a.location,
                        binding: a.binding,
                        format: a.format,
                        offset: a.offset,
                    })
                    .collect();
            }
            _ => return false,
        }
    }
    true
}

fn put<T: Copy + Default>(v: &mut Vec<T>, first: u32, src: &[T]) {
    let end = first as usize + src.len();
    if v.len() < end {
        v.resize(end, T::default());
    }
    v[first as usize..end].copy_from_slice(src);
}

fn rs(s: &mut GraphicsState) -> &mut super::graphics::Rasterization {
    s.rs.get_or_insert_with(Default::default)
}

fn ds(s: &mut GraphicsState) -> &mut super::graphics::DepthStencil {
    s.ds.get_or_insert_with(Default::default)
}

fn faces(s: &mut GraphicsState, mask: vk::StencilFaceFlags, f: impl Fn(&mut vk::StencilOpState)) {
    let d = ds(s);
    if mask.contains(vk::StencilFaceFlags::FRONT) {
        f(&mut d.front);
    }
    if mask.contains(vk::StencilFaceFlags::BACK) {
        f(&mut d.back);
    }
}
