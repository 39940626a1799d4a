//! Building one graphics pipeline: its subsets (`VkGraphicsPipelineLibraryCreateInfoEXT`, or
//! the complete set Mesa derives), the create info with every ignored pointer nulled before
//! the deep copy, the rendering formats (a render pass's subpass through
//! [`RenderPass::subpass_rendering`], else `VkPipelineRenderingCreateInfo`), the compiled
//! [`GraphicsState`], and the linked libraries merged in.

use vkgen_abi::vk_error;
use vkgen_generated::recorder::Owned;
use vkgen_generated::vk;

use super::object::{GraphicsPipeline, Pipeline};
use super::shared::{base, lookup, Built};
use crate::kit::descriptor::PipelineLayout;
use crate::kit::render_pass::RenderPass;
use crate::kit::resources::desc::VendorData;
use crate::kit::shader::{PipelineCache, ShaderStage};
use crate::kit::state::graphics::{all_subsets, GraphicsState, RenderingFormats, Subsets};
use crate::util::{find_in_chain, slice};

type Flags2 = vk::PipelineCreateFlags2KHR;
type S = vk::ShaderStageFlags;

/// The subset a stage belongs to.
fn stage_subset(stage: S) -> Subsets {
    if stage == S::FRAGMENT {
        Subsets::FRAGMENT_SHADER
    } else {
        Subsets::PRE_RASTERIZATION_SHADERS
    }
}

fn dynamic(ci: &vk::GraphicsPipelineCreateInfo<'_>) -> Vec<vk::DynamicState> {
    // SAFETY: a valid dynamic state info or null (the create info's valid usage).
    unsafe { ci.p_dynamic_state.as_ref() }
        // SAFETY: `dynamicStateCount` states.
        .map(|d| unsafe { slice(d.p_dynamic_states, d.dynamic_state_count) }.to_vec())
        .unwrap_or_default()
}

/// The subsets `ci` provides itself (Mesa's rule, facts §A6): the library info's, none for a
/// library or linking pipeline without one, else pre-rasterization, vertex input with a
/// vertex shader, and the fragment subsets unless rasterizer discard is statically on.
///
/// # Safety
/// `ci` is a valid create info.
unsafe fn own_subsets(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    flags: Flags2,
    linking: bool,
) -> Subsets {
    // SAFETY: the caller's valid chain.
    let gpl = unsafe {
        find_in_chain::<vk::GraphicsPipelineLibraryCreateInfoEXT<'_>>(
            ci.p_next,
            vk::StructureType::GRAPHICS_PIPELINE_LIBRARY_CREATE_INFO_EXT,
        )
    };
    if let Some(g) = gpl {
        return g.flags;
    }
    if flags.contains(Flags2::LIBRARY) || linking {
        return Subsets::empty();
    }
    // SAFETY: `stageCount` valid stages.
    let stages = unsafe { slice(ci.p_stages, ci.stage_count) };
    let mut s = Subsets::PRE_RASTERIZATION_SHADERS;
    if stages.iter().any(|st| st.stage == S::VERTEX) {
        s |= Subsets::VERTEX_INPUT_INTERFACE;
    }
    let discard_dynamic = dynamic(ci).contains(&vk::DynamicState::RASTERIZER_DISCARD_ENABLE);
    // SAFETY: a valid rasterization state (required for a complete pipeline) or null.
    let discard = unsafe { ci.p_rasterization_state.as_ref() }
        .is_some_and(|r| r.rasterizer_discard_enable != vk::FALSE);
    if !discard || discard_dynamic {
        s |= Subsets::FRAGMENT_SHADER | Subsets::FRAGMENT_OUTPUT_INTERFACE;
    }
    s
}

/// Storage the sanitised create info points into.
#[derive(Default)]
struct Sanitised<'a> {
    stages: Vec<vk::PipelineShaderStageCreateInfo<'a>>,
    viewport: Option<vk::PipelineViewportStateCreateInfo<'a>>,
}

/// `ci` with the pointers the spec lets be garbage nulled (states of subsets it does not
/// provide, stages of other subsets, tessellation without tessellation stages, the
/// fragment states under static rasterizer discard, dynamic viewports and scissors, vertex
/// input under `VERTEX_INPUT_EXT` or a mesh pipeline).
///
/// # Safety
/// `ci`'s pointers that this does not null are valid.
unsafe fn sanitise<'a>(
    ci: &vk::GraphicsPipelineCreateInfo<'a>,
    subsets: Subsets,
    keep: &mut Sanitised<'a>,
) -> vk::GraphicsPipelineCreateInfo<'a> {
    let mut s = *ci;
    let dynamic = dynamic(ci);
    let dyn_has = |d: vk::DynamicState| dynamic.contains(&d);
    // SAFETY: `stageCount` valid stages.
    keep.stages = unsafe { slice(ci.p_stages, ci.stage_count) }
        .iter()
        .filter(|st| subsets.contains(stage_subset(st.stage)))
        .copied()
        .collect();
    let stage_mask = keep.stages.iter().fold(S::empty(), |m, st| m | st.stage);
    let mesh = stage_mask.intersects(S::MESH_EXT);
    if !subsets.contains(Subsets::VERTEX_INPUT_INTERFACE) || mesh {
        s.p_vertex_input_state = std::ptr::null();
        s.p_input_assembly_state = std::ptr::null();
    }
    if dyn_has(vk::DynamicState::VERTEX_INPUT_EXT) {
        s.p_vertex_input_state = std::ptr::null();
    }
    let pre_rast = subsets.contains(Subsets::PRE_RASTERIZATION_SHADERS);
    if !pre_rast {
        s.p_viewport_state = std::ptr::null();
        s.p_rasterization_state = std::ptr::null();
    }
    let tess = S::TESSELLATION_CONTROL | S::TESSELLATION_EVALUATION;
    if !pre_rast || !stage_mask.intersects(tess) {
        s.p_tessellation_state = std::ptr::null();
    }
    // SAFETY: a valid rasterization state or null (nulled above when not provided).
    let discard = unsafe { s.p_rasterization_state.as_ref() }
        .is_some_and(|r| r.rasterizer_discard_enable != vk::FALSE)
        && !dyn_has(vk::DynamicState::RASTERIZER_DISCARD_ENABLE);
    if discard {
        s.p_viewport_state = std::ptr::null();
        s.p_multisample_state = std::ptr::null();
        s.p_depth_stencil_state = std::ptr::null();
        s.p_color_blend_state = std::ptr::null();
    }
    if !subsets.contains(Subsets::FRAGMENT_SHADER) {
        s.p_depth_stencil_state = std::ptr::null();
    }
    if !subsets.intersects(Subsets::FRAGMENT_SHADER | Subsets::FRAGMENT_OUTPUT_INTERFACE) {
        s.p_multisample_state = std::ptr::null();
    }
    if !subsets.contains(Subsets::FRAGMENT_OUTPUT_INTERFACE) {
        s.p_color_blend_state = std::ptr::null();
    }
    // SAFETY: a valid viewport state or null.
    if let Some(vp) = unsafe { s.p_viewport_state.as_ref() } {
        let mut vp = *vp;
        if dyn_has(vk::DynamicState::VIEWPORT) || dyn_has(vk::DynamicState::VIEWPORT_WITH_COUNT) {
            vp.p_viewports = std::ptr::null();
        }
        if dyn_has(vk::DynamicState::SCISSOR) || dyn_has(vk::DynamicState::SCISSOR_WITH_COUNT) {
            vp.p_scissors = std::ptr::null();
        }
        s.p_viewport_state = keep.viewport.insert(vp);
    }
    s.stage_count = keep.stages.len() as u32;
    s.p_stages = keep.stages.as_ptr();
    s
}

/// The formats the pipeline renders to, when it provides a subset that needs them.
///
/// # Safety
/// `ci` is a valid create info; its render pass is null or live.
unsafe fn rendering(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    subsets: Subsets,
    flags: Flags2,
) -> Option<RenderingFormats> {
    if !subsets.intersects(
        Subsets::PRE_RASTERIZATION_SHADERS
            | Subsets::FRAGMENT_SHADER
            | Subsets::FRAGMENT_OUTPUT_INTERFACE,
    ) {
        return None;
    }
    // SAFETY: a null or live render pass (the create info's valid usage).
    if let Some(rp) = unsafe { RenderPass::from_handle(ci.render_pass) } {
        let sub = rp.subpass_rendering(ci.subpass)?;
        return Some(RenderingFormats {
            view_mask: sub.view_mask,
            color_formats: sub.color_formats,
            depth_format: sub.depth_format,
            stencil_format: sub.stencil_format,
            complete: true,
        });
    }
    // SAFETY: the caller's valid chain.
    let info = unsafe {
        find_in_chain::<vk::PipelineRenderingCreateInfo<'_>>(
            ci.p_next,
            vk::StructureType::PIPELINE_RENDERING_CREATE_INFO,
        )
    };
    Some(match info {
        Some(r) => RenderingFormats {
            view_mask: r.view_mask,
            // SAFETY: `colorAttachmentCount` formats.
            color_formats: unsafe { slice(r.p_color_attachment_formats, r.color_attachment_count) }
                .to_vec(),
            depth_format: r.depth_attachment_format,
            stencil_format: r.stencil_attachment_format,
            complete: true,
        },
        // No rendering info: no attachments, which a library may still learn from another.
        None => RenderingFormats {
            complete: !flags.contains(Flags2::LIBRARY),
            ..Default::default()
        },
    })
}

/// The libraries `ci` links.
///
/// # Safety
/// `ci`'s chain is valid and its libraries live.
unsafe fn libraries<'a>(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
) -> Result<Vec<(vk::Pipeline, &'a GraphicsPipeline)>, vk::Result> {
    // SAFETY: the caller's valid chain.
    let Some(l) = (unsafe {
        find_in_chain::<vk::PipelineLibraryCreateInfoKHR<'_>>(
            ci.p_next,
            vk::StructureType::PIPELINE_LIBRARY_CREATE_INFO_KHR,
        )
    }) else {
        return Ok(Vec::new());
    };
    // SAFETY: `libraryCount` live library handles.
    unsafe { slice(l.p_libraries, l.library_count) }
        .iter()
        .map(|&h| {
            // SAFETY: a live pipeline of this driver (VUID-VkPipelineLibraryCreateInfoKHR-pLibraries-parameter).
            match unsafe { Pipeline::from_handle(h) }.and_then(Pipeline::graphics) {
                Some(g) if g.is_library() => Ok((h, g)),
                _ => Err(vk_error!(
                    vk::Result::ERROR_UNKNOWN,
                    "vkCreateGraphicsPipelines: {h:?} is no graphics pipeline library"
                )),
            }
        })
        .collect()
}

/// One graphics pipeline (or library).
///
/// # Safety
/// `ci` is a valid create info.
pub(super) unsafe fn build(
    ci: &vk::GraphicsPipelineCreateInfo<'_>,
    flags: Flags2,
    cache: Option<&PipelineCache>,
    made: &[vk::Pipeline],
) -> Result<Built, vk::Result> {
    // SAFETY: the caller's valid create info, for every call below.
    unsafe {
        let libs = libraries(ci)?;
        let subsets = own_subsets(ci, flags, !libs.is_empty());
        let mut keep = Sanitised::default();
        let clean = sanitise(ci, subsets, &mut keep);
        let mut stages = Vec::with_capacity(clean.stage_count as usize);
        for st in slice(clean.p_stages, clean.stage_count) {
            stages.push(ShaderStage::from_create_info(st)?);
        }
        let hits = lookup(cache, &stages, flags)?;
        let mut state = GraphicsState::compile(&clean, subsets, rendering(ci, subsets, flags));
        let mut layout = PipelineLayout::from_handle(ci.layout).map(|l| l.layout.clone());
        for (_, lib) in &libs {
            state.merge(&lib.state);
            stages.extend(lib.stages.iter().cloned());
            if layout.is_none() {
                layout.clone_from(&lib.layout);
            }
        }
        if !flags.contains(Flags2::LIBRARY) && state.subsets != all_subsets() && !libs.is_empty() {
            log::debug!(
                "vkCreateGraphicsPipelines: linked pipeline provides {:?} only",
                state.subsets
            );
        }
        let create_info = Owned::new(std::ptr::from_ref(&clean).cast())
            .ok_or(vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        Ok(Built {
            pipeline: Pipeline::Graphics(GraphicsPipeline {
                stages,
                layout,
                state,
                flags,
                base: base(flags, ci.base_pipeline_handle, ci.base_pipeline_index, made)?,
                libraries: libs.iter().map(|(h, _)| *h).collect(),
                create_info,
                vendor: VendorData::default(),
            }),
            hits,
        })
    }
}
