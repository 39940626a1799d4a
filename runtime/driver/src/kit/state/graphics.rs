//! One graphics state value compiled from a `VkGraphicsPipelineCreateInfo` (Mesa's
//! `vk_graphics_pipeline_state`): state groups as Mesa cuts them — vertex input (VI), input
//! assembly (IA), tessellation (TS), viewports (VP), rasterization (RS), multisample (MS),
//! depth/stencil (DS), colour blend (CB), rendering formats (RP) — each present only when the
//! pipeline (or library) provides it, plus the set of dynamic states.
//!
//! Why groups are `Option`s: a graphics pipeline library provides some groups only
//! ([`Subsets`], the table of the facts file §A6), and linking merges them, the first library
//! that has a group winning — except that a complete render-pass group beats an incomplete one.
//! A group's values are the create info's even where a state is dynamic: the command buffer's
//! [`super::DynamicState`] overrides them at draw time, which is why [`DynamicSet`] travels
//! with the state.
//!
//! Which `VkDynamicState` a recorded command sets is registry data
//! (`vkgen_generated::dynamic_state`); [`DynamicSet`] is a bitset over its table.

use vkgen_generated::dynamic_state::{self, DYNAMIC_STATES};
use vkgen_generated::vk;

use crate::util::slice;

/// A set of dynamic states: bit `i` is `DYNAMIC_STATES[i]`.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct DynamicSet(pub [u64; 2]);

impl DynamicSet {
    pub fn contains(&self, s: vk::DynamicState) -> bool {
        dynamic_state::index(s).is_some_and(|i| self.has(i))
    }

    pub fn has(&self, i: usize) -> bool {
        self.0.get(i / 64).is_some_and(|w| w & (1 << (i % 64)) != 0)
    }

    pub fn insert(&mut self, s: vk::DynamicState) {
        if let Some(i) = dynamic_state::index(s) {
            self.set(i);
        }
    }

    pub fn set(&mut self, i: usize) {
        if let Some(w) = self.0.get_mut(i / 64) {
            *w |= 1 << (i % 64);
        }
    }

    pub fn union(&self, o: &DynamicSet) -> DynamicSet {
        DynamicSet([self.0[0] | o.0[0], self.0[1] | o.0[1]])
    }

    pub fn is_empty(&self) -> bool {
        self.0 == [0, 0]
    }

    /// The states in the set, in registry order.
    pub fn iter(&self) -> impl Iterator<Item = vk::DynamicState> + '_ {
        (0..DYNAMIC_STATES.len())
            .filter(|&i| self.has(i))
            .map(|i| DYNAMIC_STATES[i].state)
    }
}

/// `VkGraphicsPipelineLibraryFlagsEXT`: which parts a pipeline (library) provides.
pub type Subsets = vk::GraphicsPipelineLibraryFlagsEXT;

/// Every subset: a complete pipeline.
pub fn all_subsets() -> Subsets {
    Subsets::VERTEX_INPUT_INTERFACE
        | Subsets::PRE_RASTERIZATION_SHADERS
        | Subsets::FRAGMENT_SHADER
        | Subsets::FRAGMENT_OUTPUT_INTERFACE
}

#[derive(Clone, Debug, Default)]
pub struct VertexInput {
    pub bindings: Vec<vk::VertexInputBindingDescription>,
    pub attributes: Vec<vk::VertexInputAttributeDescription>,
    /// `(binding, divisor)` from `VkPipelineVertexInputDivisorStateCreateInfo`.
    pub divisors: Vec<(u32, u32)>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct InputAssembly {
    pub topology: vk::PrimitiveTopology,
    pub primitive_restart: bool,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Tessellation {
    pub patch_control_points: u32,
    pub domain_origin: vk::TessellationDomainOrigin,
}

#[derive(Clone, Debug, Default)]
pub struct Viewports {
    pub viewport_count: u32,
    pub scissor_count: u32,
    pub viewports: Vec<vk::Viewport>,
    pub scissors: Vec<vk::Rect2D>,
}

#[derive(Clone, Copy, Debug, Default, PartialEq)]
pub struct Rasterization {
    pub depth_clamp: bool,
    pub rasterizer_discard: bool,
    pub polygon_mode: vk::PolygonMode,
    pub cull_mode: vk::CullModeFlags,
    pub front_face: vk::FrontFace,
    pub depth_bias_enable: bool,
    /// `(constant, clamp, slope)`.
    pub depth_bias: (f32, f32, f32),
    pub line_width: f32,
}

#[derive(Clone, Debug, Default, PartialEq)]
pub struct Multisample {
    pub samples: vk::SampleCountFlags,
    pub sample_shading: Option<f32>,
    /// All ones when the create info gives none.
    pub sample_mask: u64,
    pub alpha_to_coverage: bool,
    pub alpha_to_one: bool,
}

#[derive(Clone, Copy, Debug, Default)]
pub struct DepthStencil {
    pub depth_test: bool,
    pub depth_write: bool,
    pub depth_compare: vk::CompareOp,
    pub depth_bounds_test: bool,
    pub depth_bounds: (f32, f32),
    pub stencil_test: bool,
    pub front: vk::StencilOpState,
    pub back: vk::StencilOpState,
}

#[derive(Clone, Debug, Default)]
pub struct ColorBlend {
    pub logic_op: Option<vk::LogicOp>,
    pub attachments: Vec<vk::PipelineColorBlendAttachmentState>,
    pub blend_constants: [f32; 4],
    /// `VkPipelineColorWriteCreateInfoEXT`, one bit per attachment (all on without it).
    pub color_write_enables: u32,
}

/// Whether two arrays of plain Vulkan values hold the same bytes (ash's structures have no
/// `PartialEq`; compare-and-set only needs "unchanged").
fn same<T: Pod>(a: &[T], b: &[T]) -> bool {
    let bytes = |s: &[T]| {
        // SAFETY: `T: Pod` are `repr(C)` structures of 4-byte scalars only, so every byte of
        // the slice is initialised (no padding).
        unsafe { std::slice::from_raw_parts(s.as_ptr().cast::<u8>(), std::mem::size_of_val(s)) }
    };
    bytes(a) == bytes(b)
}

/// The Vulkan structures [`same`] compares: `repr(C)`, 4-byte scalar members only.
trait Pod: Copy {}
impl Pod for vk::VertexInputBindingDescription {}
impl Pod for vk::VertexInputAttributeDescription {}
impl Pod for vk::Viewport {}
impl Pod for vk::Rect2D {}
impl Pod for vk::StencilOpState {}
impl Pod for vk::PipelineColorBlendAttachmentState {}

impl PartialEq for VertexInput {
    fn eq(&self, o: &Self) -> bool {
        same(&self.bindings, &o.bindings)
            && same(&self.attributes, &o.attributes)
            && self.divisors == o.divisors
    }
}

impl PartialEq for Viewports {
    fn eq(&self, o: &Self) -> bool {
        (self.viewport_count, self.scissor_count) == (o.viewport_count, o.scissor_count)
            && same(&self.viewports, &o.viewports)
            && same(&self.scissors, &o.scissors)
    }
}

impl PartialEq for DepthStencil {
    fn eq(&self, o: &Self) -> bool {
        (
            self.depth_test,
            self.depth_write,
            self.depth_compare,
            self.depth_bounds_test,
            self.depth_bounds,
            self.stencil_test,
        ) == (
            o.depth_test,
            o.depth_write,
            o.depth_compare,
            o.depth_bounds_test,
            o.depth_bounds,
            o.stencil_test,
        ) && same(&[self.front, self.back], &[o.front, o.back])
    }
}

impl PartialEq for ColorBlend {
    fn eq(&self, o: &Self) -> bool {
        (
            self.logic_op,
            self.blend_constants,
            self.color_write_enables,
        ) == (o.logic_op, o.blend_constants, o.color_write_enables)
            && same(&self.attachments, &o.attachments)
    }
}

/// The formats the pipeline renders to (from `VkPipelineRenderingCreateInfo` or the render
/// pass's subpass).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct RenderingFormats {
    pub view_mask: u32,
    pub color_formats: Vec<vk::Format>,
    pub depth_format: vk::Format,
    pub stencil_format: vk::Format,
    /// Whether this came from a render pass or a rendering info (a library without either
    /// has an incomplete group that a linked complete one replaces).
    pub complete: bool,
}

/// A pipeline's graphics state. See the [module docs](self).
#[derive(Clone, Debug, Default, PartialEq)]
pub struct GraphicsState {
    /// The subsets this state holds (all four for a complete pipeline).
    pub subsets: Subsets,
    pub dynamic: DynamicSet,
    pub vi: Option<VertexInput>,
    pub ia: Option<InputAssembly>,
    pub ts: Option<Tessellation>,
    pub vp: Option<Viewports>,
    pub rs: Option<Rasterization>,
    pub ms: Option<Multisample>,
    pub ds: Option<DepthStencil>,
    pub cb: Option<ColorBlend>,
    pub rp: Option<RenderingFormats>,
}

fn b(v: vk::Bool32) -> bool {
    v != vk::FALSE
}

/// Which chain element to read from a structure's `pNext`.
///
/// # Safety
/// `p_next` is a valid chain.
unsafe fn find<'a, T>(p_next: *const std::ffi::c_void, s: vk::StructureType) -> Option<&'a T> {
    // SAFETY: the caller's valid chain.
    unsafe { crate::util::find_in_chain::<T>(p_next, s) }
}

impl GraphicsState {
    /// Compiles the groups of `subsets` from `info` (already sanitised: pointers the spec
    /// says are ignored are null), with `rendering` the formats it renders to.
    ///
    /// # Safety
    /// `info` and every pointer it holds are valid.
    pub unsafe fn compile(
        info: &vk::GraphicsPipelineCreateInfo<'_>,
        subsets: Subsets,
        rendering: Option<RenderingFormats>,
    ) -> GraphicsState {
        let mut s = GraphicsState {
            subsets,
            ..Default::default()
        };
        // SAFETY: valid structures (the caller's promise) for every read below.
        unsafe {
            if let Some(d) = info.p_dynamic_state.as_ref() {
                for &st in slice(d.p_dynamic_states, d.dynamic_state_count) {
                    s.dynamic.insert(st);
                }
            }
            if subsets.contains(Subsets::VERTEX_INPUT_INTERFACE) {
                s.vi = info.p_vertex_input_state.as_ref().map(|v| vertex_input(v));
                s.ia = info.p_input_assembly_state.as_ref().map(|a| InputAssembly {
                    topology: a.topology,
                    primitive_restart: b(a.primitive_restart_enable),
                });
            }
            if subsets.contains(Subsets::PRE_RASTERIZATION_SHADERS) {
                s.ts = info.p_tessellation_state.as_ref().map(|t| tessellation(t));
                s.vp = info.p_viewport_state.as_ref().map(|v| viewports(v));
                s.rs = info.p_rasterization_state.as_ref().map(|r| Rasterization {
                    depth_clamp: b(r.depth_clamp_enable),
                    rasterizer_discard: b(r.rasterizer_discard_enable),
                    polygon_mode: r.polygon_mode,
                    cull_mode: r.cull_mode,
                    front_face: r.front_face,
                    depth_bias_enable: b(r.depth_bias_enable),
                    depth_bias: (
                        r.depth_bias_constant_factor,
                        r.depth_bias_clamp,
                        r.depth_bias_slope_factor,
                    ),
                    line_width: r.line_width,
                });
            }
            let fragment = Subsets::FRAGMENT_SHADER | Subsets::FRAGMENT_OUTPUT_INTERFACE;
            if subsets.intersects(fragment) {
                s.ms = info.p_multisample_state.as_ref().map(|m| multisample(m));
                s.rp = rendering;
            }
            if subsets.contains(Subsets::FRAGMENT_SHADER) {
                s.ds = info.p_depth_stencil_state.as_ref().map(|d| DepthStencil {
                    depth_test: b(d.depth_test_enable),
                    depth_write: b(d.depth_write_enable),
                    depth_compare: d.depth_compare_op,
                    depth_bounds_test: b(d.depth_bounds_test_enable),
                    depth_bounds: (d.min_depth_bounds, d.max_depth_bounds),
                    stencil_test: b(d.stencil_test_enable),
                    front: d.front,
                    back: d.back,
                });
            }
            if subsets.contains(Subsets::FRAGMENT_OUTPUT_INTERFACE) {
                s.cb = info.p_color_blend_state.as_ref().map(|c| color_blend(c));
            }
        }
        s
    }

    /// Links `lib` into `self` (Mesa's `vk_graphics_pipeline_state_merge`): subsets and
    /// dynamic states are or-ed; a group `self` lacks is taken from `lib`; a complete
    /// render-pass group replaces an incomplete one.
    pub fn merge(&mut self, lib: &GraphicsState) {
        self.subsets |= lib.subsets;
        self.dynamic = self.dynamic.union(&lib.dynamic);
        fn take<T: Clone>(dst: &mut Option<T>, src: &Option<T>) {
            if dst.is_none() {
                dst.clone_from(src);
            }
        }
        take(&mut self.vi, &lib.vi);
        take(&mut self.ia, &lib.ia);
        take(&mut self.ts, &lib.ts);
        take(&mut self.vp, &lib.vp);
        take(&mut self.rs, &lib.rs);
        take(&mut self.ms, &lib.ms);
        take(&mut self.ds, &lib.ds);
        take(&mut self.cb, &lib.cb);
        match (&self.rp, &lib.rp) {
            (None, Some(_)) => self.rp.clone_from(&lib.rp),
            (Some(a), Some(l)) if !a.complete && l.complete => self.rp.clone_from(&lib.rp),
            _ => {}
        }
    }

    /// Whether `state` is dynamic in this pipeline.
    pub fn is_dynamic(&self, state: vk::DynamicState) -> bool {
        self.dynamic.contains(state)
    }
}

/// # Safety
/// `v` and its arrays and chain are valid.
unsafe fn vertex_input(v: &vk::PipelineVertexInputStateCreateInfo<'_>) -> VertexInput {
    // SAFETY: the caller's valid structure, arrays and chain.
    unsafe {
        let divisors = find::<vk::PipelineVertexInputDivisorStateCreateInfoKHR<'_>>(
            v.p_next,
            vk::StructureType::PIPELINE_VERTEX_INPUT_DIVISOR_STATE_CREATE_INFO_KHR,
        )
        .map(|d| {
            slice(d.p_vertex_binding_divisors, d.vertex_binding_divisor_count)
                .iter()
                .map(|x| (x.binding, x.divisor))
                .collect()
        })
        .unwrap_or_default();
        VertexInput {
            bindings: slice(
                v.p_vertex_binding_descriptions,
                v.vertex_binding_description_count,
            )
            .to_vec(),
            attributes: slice(
                v.p_vertex_attribute_descriptions,
                v.vertex_attribute_description_count,
            )
            .to_vec(),
            divisors,
        }
    }
}

/// # Safety
/// `t` and its chain are valid.
unsafe fn tessellation(t: &vk::PipelineTessellationStateCreateInfo<'_>) -> Tessellation {
    // SAFETY: the caller's valid chain.
    let origin = unsafe {
        find::<vk::PipelineTessellationDomainOriginStateCreateInfo<'_>>(
            t.p_next,
            vk::StructureType::PIPELINE_TESSELLATION_DOMAIN_ORIGIN_STATE_CREATE_INFO,
        )
    };
    Tessellation {
        patch_control_points: t.patch_control_points,
        domain_origin: origin.map_or(vk::TessellationDomainOrigin::UPPER_LEFT, |o| {
            o.domain_origin
        }),
    }
}

/// # Safety
/// `v` and its arrays are valid (null where dynamic).
unsafe fn viewports(v: &vk::PipelineViewportStateCreateInfo<'_>) -> Viewports {
    Viewports {
        viewport_count: v.viewport_count,
        scissor_count: v.scissor_count,
        // SAFETY: `viewportCount` viewports or null (sanitised when dynamic).
        viewports: unsafe { slice(v.p_viewports, v.viewport_count) }.to_vec(),
        // SAFETY: `scissorCount` scissors or null (sanitised when dynamic).
        scissors: unsafe { slice(v.p_scissors, v.scissor_count) }.to_vec(),
    }
}

/// # Safety
/// `m` and its sample mask are valid.
unsafe fn multisample(m: &vk::PipelineMultisampleStateCreateInfo<'_>) -> Multisample {
    let words = (m.rasterization_samples.as_raw() as usize).div_ceil(32) as u32;
    // SAFETY: ⌈samples / 32⌉ words or null.
    let mask = unsafe { slice(m.p_sample_mask, words) };
    let sample_mask = match mask {
        [] => u64::MAX,
        [lo] => u64::from(*lo) | 0xffff_ffff_0000_0000,
        [lo, hi, ..] => u64::from(*lo) | u64::from(*hi) << 32,
    };
    Multisample {
        samples: m.rasterization_samples,
        sample_shading: b(m.sample_shading_enable).then_some(m.min_sample_shading),
        sample_mask,
        alpha_to_coverage: b(m.alpha_to_coverage_enable),
        alpha_to_one: b(m.alpha_to_one_enable),
    }
}

/// # Safety
/// `c`, its attachments and chain are valid.
unsafe fn color_blend(c: &vk::PipelineColorBlendStateCreateInfo<'_>) -> ColorBlend {
    // SAFETY: the caller's valid chain.
    let write = unsafe {
        find::<vk::PipelineColorWriteCreateInfoEXT<'_>>(
            c.p_next,
            vk::StructureType::PIPELINE_COLOR_WRITE_CREATE_INFO_EXT,
        )
    };
    let color_write_enables = match write {
        // SAFETY: `attachmentCount` enables.
        Some(w) => unsafe { slice(w.p_color_write_enables, w.attachment_count) }
            .iter()
            .enumerate()
            .filter(|(_, &e)| b(e))
            .fold(0, |m, (i, _)| m | 1 << i),
        None => u32::MAX,
    };
    ColorBlend {
        logic_op: b(c.logic_op_enable).then_some(c.logic_op),
        // SAFETY: `attachmentCount` attachments or null.
        attachments: unsafe { slice(c.p_attachments, c.attachment_count) }.to_vec(),
        blend_constants: c.blend_constants,
        color_write_enables,
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn dynamic_sets_hold_registry_states() {
        let mut d = DynamicSet::default();
        d.insert(vk::DynamicState::VIEWPORT);
        d.insert(vk::DynamicState::VERTEX_INPUT_EXT);
        assert!(d.contains(vk::DynamicState::VIEWPORT));
        assert!(!d.contains(vk::DynamicState::SCISSOR));
        let all: Vec<_> = d.iter().collect();
        assert_eq!(
            all,
            [
                vk::DynamicState::VIEWPORT,
                vk::DynamicState::VERTEX_INPUT_EXT
            ]
        );
    }

    #[test]
    fn merging_takes_missing_groups_and_a_complete_render_pass() {
        let mut a = GraphicsState {
            subsets: Subsets::PRE_RASTERIZATION_SHADERS,
            rs: Some(Rasterization {
                line_width: 2.0,
                ..Default::default()
            }),
            rp: Some(RenderingFormats::default()),
            ..Default::default()
        };
        let b = GraphicsState {
            subsets: Subsets::FRAGMENT_OUTPUT_INTERFACE,
            rs: Some(Rasterization::default()),
            cb: Some(ColorBlend::default()),
            rp: Some(RenderingFormats {
                color_formats: vec![vk::Format::B8G8R8A8_SRGB],
                complete: true,
                ..Default::default()
            }),
            ..Default::default()
        };
        a.merge(&b);
        assert_eq!(
            a.subsets,
            Subsets::PRE_RASTERIZATION_SHADERS | Subsets::FRAGMENT_OUTPUT_INTERFACE
        );
        assert_eq!(
            a.rs.unwrap().line_width,
            2.0,
            "the first library's group wins"
        );
        assert!(a.cb.is_some());
        assert_eq!(a.rp.unwrap().color_formats, [vk::Format::B8G8R8A8_SRGB]);
    }
}
