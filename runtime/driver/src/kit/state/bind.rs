//! The bind commands' effect on a [`BoundState`]: pipelines, descriptor sets (with the spec's
//! disturbance rule), push descriptors, push constants, vertex and index buffers, rendering.
//! Both forms of each command land here (1.0 and maintenance6's `…2`), since the recorder
//! records whichever the application called.

use std::sync::Arc;

use vkgen_generated::recorder::Cmd;
use vkgen_generated::vk;

use super::bound::{
    recorded, BindPointState, BoundSet, BoundState, IndexBinding, Rendering, SetBinding,
    VertexBinding,
};
use crate::kit::descriptor::{
    DescriptorStore, DescriptorUpdateTemplate, PipelineLayout, PipelineLayoutInfo,
};
use crate::kit::pipeline::Pipeline;

/// Binding set `n` with `layout`: lower sets bound with a layout not compatible for them are
/// disturbed, and every higher set when the old set `n` was not compatible for `n`.
fn disturb(point: &mut BindPointState, layout: &PipelineLayoutInfo, n: usize) {
    for i in 0..n.min(point.sets.len()) {
        if point.sets[i]
            .as_ref()
            .is_some_and(|s| !s.layout().compatible_up_to(layout, i as u32))
        {
            point.sets[i] = None;
        }
    }
    let keep_higher = point
        .sets
        .get(n)
        .and_then(Option::as_ref)
        .is_some_and(|s| s.layout().compatible_up_to(layout, n as u32));
    if !keep_higher && point.sets.len() > n + 1 {
        point.sets.truncate(n + 1);
    }
    if point.sets.len() <= n {
        point.sets.resize_with(n + 1, || None);
    }
}

fn layout_of(h: vk::PipelineLayout) -> Option<Arc<PipelineLayoutInfo>> {
    // SAFETY: a layout named by a recorded bind command is alive while the command buffer
    // records (VUID-vkDestroyPipelineLayout-pipelineLayout-02004 lets it be destroyed after),
    // or `from_handle` refuses it.
    unsafe { PipelineLayout::from_handle(h) }.map(|l| l.layout.clone())
}

/// The bind points whose stages `stages` names.
fn points(stages: vk::ShaderStageFlags) -> Vec<vk::PipelineBindPoint> {
    let mut v = Vec::new();
    if stages.intersects(
        vk::ShaderStageFlags::ALL_GRAPHICS
            | vk::ShaderStageFlags::TASK_EXT
            | vk::ShaderStageFlags::MESH_EXT,
    ) {
        v.push(vk::PipelineBindPoint::GRAPHICS);
    }
    if stages.contains(vk::ShaderStageFlags::COMPUTE) {
        v.push(vk::PipelineBindPoint::COMPUTE);
    }
    v
}

fn point_mut(s: &mut BoundState, p: vk::PipelineBindPoint) -> Option<&mut BindPointState> {
    match p {
        vk::PipelineBindPoint::COMPUTE => Some(&mut s.compute),
        vk::PipelineBindPoint::GRAPHICS => Some(&mut s.graphics),
        _ => None,
    }
}

fn bind_sets(
    point: &mut BindPointState,
    layout: vk::PipelineLayout,
    first: u32,
    sets: &[vk::DescriptorSet],
    offsets: &[u32],
) {
    let Some(layout) = layout_of(layout) else {
        return;
    };
    let mut offsets = offsets.iter().copied();
    for (i, &set) in sets.iter().enumerate() {
        let n = first as usize + i;
        let count = layout
            .set_layouts
            .get(n)
            .and_then(Option::as_ref)
            .map_or(0, |l| l.dynamic_descriptor_count() as usize);
        let dynamic_offsets: Vec<u32> = offsets.by_ref().take(count).collect();
        disturb(point, &layout, n);
        point.sets[n] = (set != vk::DescriptorSet::null()).then(|| {
            SetBinding::Set(BoundSet {
                set,
                layout: layout.clone(),
                dynamic_offsets,
            })
        });
    }
}

fn push_constants(point: &mut BindPointState, offset: u32, bytes: &[u8]) {
    let end = offset as usize + bytes.len();
    if point.push_constants.len() < end {
        point.push_constants.resize(end, 0);
    }
    point.push_constants[offset as usize..end].copy_from_slice(bytes);
}

/// The push-descriptor store of set `n`, made (and the set bound) if `layout` differs.
fn push_store(
    point: &mut BindPointState,
    layout: vk::PipelineLayout,
    n: u32,
) -> Option<&DescriptorStore> {
    let layout = layout_of(layout)?;
    let set_layout = layout.set_layouts.get(n as usize)?.clone()?;
    let n = n as usize;
    let reuse = matches!(
        point.sets.get(n),
        Some(Some(SetBinding::Push { layout: l, .. })) if l.compatible_up_to(&layout, n as u32)
    );
    if !reuse {
        disturb(point, &layout, n);
        point.sets[n] = Some(SetBinding::Push {
            store: DescriptorStore::new(set_layout, 0),
            layout,
        });
    }
    match point.sets.get(n) {
        Some(Some(SetBinding::Push { store, .. })) => Some(store),
        _ => None,
    }
}

/// # Safety
/// `writes` are valid recorded writes.
unsafe fn push_writes(
    s: &mut BoundState,
    p: vk::PipelineBindPoint,
    layout: vk::PipelineLayout,
    set: u32,
    writes: &[vk::WriteDescriptorSet<'_>],
) {
    if let Some(store) = point_mut(s, p).and_then(|pt| push_store(pt, layout, set)) {
        for w in writes {
            // SAFETY: a recorded write (the caller's promise).
            unsafe { store.write(w) };
        }
    }
}

/// # Safety
/// `data` is laid out as the template says (the application's pointer: the recorder keeps
/// it, see the recorder's docs).
unsafe fn push_template(
    s: &mut BoundState,
    template: vk::DescriptorUpdateTemplate,
    layout: vk::PipelineLayout,
    set: u32,
    data: *const std::ffi::c_void,
) {
    // SAFETY: a template named by a recorded command is alive during the replay, or
    // `from_handle` refuses it.
    let Some(t) = (unsafe { DescriptorUpdateTemplate::from_handle(template) }) else {
        return;
    };
    let t = t.template.clone();
    if let Some(store) = point_mut(s, t.bind_point).and_then(|pt| push_store(pt, layout, set)) {
        // SAFETY: the caller's promise about `data`.
        unsafe { store.write_with_template(&t, data) };
    }
}

fn bind_pipeline(s: &mut BoundState, p: vk::PipelineBindPoint, pipeline: vk::Pipeline) {
    if let Some(pt) = point_mut(s, p) {
        pt.pipeline = Some(pipeline);
    }
    if p == vk::PipelineBindPoint::GRAPHICS {
        // SAFETY: a pipeline bound by a recorded command outlives the replay (valid usage), or
        // `from_handle` refuses it.
        let g = unsafe { Pipeline::from_handle(pipeline) }.and_then(Pipeline::graphics);
        // SAFETY: the kept setters are recorded commands of the recording being replayed.
        s.resolved = g.map(|g| unsafe { s.dynamic.resolve(&g.state) });
    }
}

/// # Safety
/// Valid recorded arrays.
unsafe fn bind_vertex_buffers(
    s: &mut BoundState,
    first: u32,
    n: u32,
    buffers: *const vk::Buffer,
    offsets: *const u64,
    sizes: *const u64,
    strides: *const u64,
) {
    // SAFETY: the caller's `n`-element arrays (sizes and strides may be null).
    let (b, o, sz, st) = unsafe {
        (
            recorded(buffers, n),
            recorded(offsets, n),
            recorded(sizes, n),
            recorded(strides, n),
        )
    };
    let end = (first + n) as usize;
    if s.vertex_buffers.len() < end {
        s.vertex_buffers.resize(end, None);
    }
    for i in 0..n as usize {
        s.vertex_buffers[first as usize + i] = Some(VertexBinding {
            buffer: b.get(i).copied().unwrap_or_default(),
            offset: o.get(i).copied().unwrap_or(0),
            size: sz.get(i).copied().filter(|&x| x != vk::WHOLE_SIZE),
            stride: st.get(i).copied(),
        });
    }
}

/// # Safety
/// `info` is a valid recorded rendering info.
unsafe fn begin_rendering(s: &mut BoundState, info: *const vk::RenderingInfo<'static>) {
    // SAFETY: the recorded copy, its arrays copied with it.
    let Some(i) = (unsafe { info.as_ref() }) else {
        return;
    };
    // SAFETY: the recorder copied the attachment array and the depth and stencil
    // attachments with the rendering info; they live as long as the recording.
    let (colors, depth, stencil) = unsafe {
        (
            recorded(i.p_color_attachments, i.color_attachment_count).to_vec(),
            i.p_depth_attachment.as_ref().copied(),
            i.p_stencil_attachment.as_ref().copied(),
        )
    };
    s.rendering = Some(Rendering {
        flags: i.flags,
        render_area: i.render_area,
        layer_count: i.layer_count,
        view_mask: i.view_mask,
        color_attachments: colors,
        depth_attachment: depth,
        stencil_attachment: stencil,
    });
}

/// Applies `cmd` if it is a bind command; `false` otherwise (the dynamic-state tracker then
/// looks at it). `vkCmdBindVertexBuffers2` is both: its strides are dynamic state.
///
/// # Safety
/// `cmd` is a recorded command being replayed.
pub(super) unsafe fn observe(s: &mut BoundState, cmd: &Cmd) -> bool {
    // SAFETY: the recorded arguments are valid for the replay (the caller's promise).
    unsafe {
        match *cmd {
            Cmd::BindPipeline {
                pipeline_bind_point,
                pipeline,
            } => bind_pipeline(s, pipeline_bind_point, pipeline),
            Cmd::BindDescriptorSets {
                pipeline_bind_point,
                layout,
                first_set,
                descriptor_set_count,
                p_descriptor_sets,
                dynamic_offset_count,
                p_dynamic_offsets,
            } => {
                if let Some(pt) = point_mut(s, pipeline_bind_point) {
                    bind_sets(
                        pt,
                        layout,
                        first_set,
                        recorded(p_descriptor_sets, descriptor_set_count),
                        recorded(p_dynamic_offsets, dynamic_offset_count),
                    );
                }
            }
            Cmd::PushConstants {
                stage_flags,
                offset,
                size,
                p_values,
                ..
            } => {
                let bytes = recorded(p_values.cast::<u8>(), size);
                for p in points(stage_flags) {
                    if let Some(pt) = point_mut(s, p) {
                        push_constants(pt, offset, bytes);
                    }
                }
            }
            Cmd::BindVertexBuffers {
                first_binding,
                binding_count,
                p_buffers,
                p_offsets,
            } => bind_vertex_buffers(
                s,
                first_binding,
                binding_count,
                p_buffers,
                p_offsets,
                std::ptr::null(),
                std::ptr::null(),
            ),
            Cmd::BindVertexBuffers2 {
                first_binding,
                binding_count,
                p_buffers,
                p_offsets,
                p_sizes,
                p_strides,
            } => {
                bind_vertex_buffers(
                    s,
                    first_binding,
                    binding_count,
                    p_buffers,
                    p_offsets,
                    p_sizes,
                    p_strides,
                );
                return false;
            }
            Cmd::BindIndexBuffer {
                buffer,
                offset,
                index_type,
            } => {
                s.index_buffer = Some(IndexBinding {
                    buffer,
                    offset,
                    size: None,
                    index_type,
                });
            }
            Cmd::BeginRendering { p_rendering_info } => begin_rendering(s, p_rendering_info),
            Cmd::EndRendering => s.rendering = None,
            _ => return observe_versioned(s, cmd),
        }
    }
    true
}

/// The bind commands whose variant names depend on the registry (1.4's promoted names, 1.3's
/// `KHR` ones).
///
/// # Safety
/// As [`observe`].
unsafe fn observe_versioned(s: &mut BoundState, cmd: &Cmd) -> bool {
    // SAFETY: the recorded arguments are valid for the replay (the caller's promise).
    unsafe {
        match *cmd {
            #[cfg(vk_1_4)]
            Cmd::PushDescriptorSet {
                pipeline_bind_point,
                layout,
                set,
                descriptor_write_count,
                p_descriptor_writes,
            } => push_writes(
                s,
                pipeline_bind_point,
                layout,
                set,
                recorded(p_descriptor_writes, descriptor_write_count),
            ),
            #[cfg(not(vk_1_4))]
            Cmd::PushDescriptorSetKHR {
                pipeline_bind_point,
                layout,
                set,
                descriptor_write_count,
                p_descriptor_writes,
            } => push_writes(
                s,
                pipeline_bind_point,
                layout,
                set,
                recorded(p_descriptor_writes, descriptor_write_count),
            ),
            #[cfg(vk_1_4)]
            Cmd::PushDescriptorSetWithTemplate {
                descriptor_update_template,
                layout,
                set,
                p_data,
            } => push_template(s, descriptor_update_template, layout, set, p_data),
            #[cfg(not(vk_1_4))]
            Cmd::PushDescriptorSetWithTemplateKHR {
                descriptor_update_template,
                layout,
                set,
                p_data,
            } => push_template(s, descriptor_update_template, layout, set, p_data),
            #[cfg(vk_1_4)]
            _ => return observe_1_4(s, cmd),
            #[cfg(not(vk_1_4))]
            _ => return false,
        }
    }
    true
}

/// Vulkan 1.4's (maintenance5/6) bind forms.
///
/// # Safety
/// As [`observe`].
#[cfg(vk_1_4)]
unsafe fn observe_1_4(s: &mut BoundState, cmd: &Cmd) -> bool {
    // SAFETY: the recorded arguments are valid for the replay (the caller's promise).
    unsafe {
        match *cmd {
            Cmd::BindIndexBuffer2 {
                buffer,
                offset,
                size,
                index_type,
            } => {
                s.index_buffer = Some(IndexBinding {
                    buffer,
                    offset,
                    size: (size != vk::WHOLE_SIZE).then_some(size),
                    index_type,
                });
            }
            Cmd::BindDescriptorSets2 {
                p_bind_descriptor_sets_info: i,
            } => {
                let Some(i) = i.as_ref() else { return true };
                for p in points(i.stage_flags) {
                    if let Some(pt) = point_mut(s, p) {
                        bind_sets(
                            pt,
                            i.layout,
                            i.first_set,
                            recorded(i.p_descriptor_sets, i.descriptor_set_count),
                            recorded(i.p_dynamic_offsets, i.dynamic_offset_count),
                        );
                    }
                }
            }
            Cmd::PushConstants2 {
                p_push_constants_info: i,
            } => {
                let Some(i) = i.as_ref() else { return true };
                let bytes = recorded(i.p_values.cast::<u8>(), i.size);
                for p in points(i.stage_flags) {
                    if let Some(pt) = point_mut(s, p) {
                        push_constants(pt, i.offset, bytes);
                    }
                }
            }
            Cmd::PushDescriptorSet2 {
                p_push_descriptor_set_info: i,
            } => {
                let Some(i) = i.as_ref() else { return true };
                let writes = recorded(i.p_descriptor_writes, i.descriptor_write_count);
                for p in points(i.stage_flags) {
                    push_writes(s, p, i.layout, i.set, writes);
                }
            }
            Cmd::PushDescriptorSetWithTemplate2 {
                p_push_descriptor_set_with_template_info: i,
            } => {
                let Some(i) = i.as_ref() else { return true };
                push_template(s, i.descriptor_update_template, i.layout, i.set, i.p_data);
            }
            _ => return false,
        }
    }
    true
}

#[cfg(test)]
mod tests {
    use crate::kit::descriptor::{PipelineLayoutInfo, SetLayout, SetLayoutBinding};
    use std::sync::Arc;
    use vkgen_generated::vk;

    fn layout(types: &[(u32, vk::DescriptorType, u32)]) -> Arc<SetLayout> {
        let bindings = types
            .iter()
            .map(|&(binding, descriptor_type, count)| SetLayoutBinding {
                binding,
                descriptor_type,
                count,
                stages: vk::ShaderStageFlags::ALL,
                ..Default::default()
            })
            .collect();
        Arc::new(SetLayout::new(
            vk::DescriptorSetLayoutCreateFlags::empty(),
            bindings,
        ))
    }

    fn info(sets: &[Arc<SetLayout>], ranges: Vec<vk::PushConstantRange>) -> PipelineLayoutInfo {
        PipelineLayoutInfo::new(
            vk::PipelineLayoutCreateFlags::empty(),
            sets.iter().cloned().map(Some).collect(),
            ranges,
        )
    }

    #[test]
    fn dynamic_offsets_follow_binding_then_element_order() {
        type T = vk::DescriptorType;
        // Listed out of order: binding 1 (two dynamic), binding 0 (not dynamic), binding 3.
        let l = layout(&[
            (3, T::STORAGE_BUFFER_DYNAMIC, 1),
            (0, T::STORAGE_BUFFER, 1),
            (1, T::UNIFORM_BUFFER_DYNAMIC, 2),
        ]);
        assert_eq!(l.dynamic_descriptor_count(), 3);
        assert_eq!(l.dynamic_offset_index(1, 0), Some(0));
        assert_eq!(l.dynamic_offset_index(1, 1), Some(1));
        assert_eq!(l.dynamic_offset_index(3, 0), Some(2));
        assert_eq!(l.dynamic_offset_index(0, 0), None, "not dynamic");
        assert_eq!(l.dynamic_offset_index(1, 2), None, "past the array");
    }

    #[test]
    fn compatibility_is_per_set_prefix() {
        type T = vk::DescriptorType;
        let a = layout(&[(0, T::STORAGE_BUFFER, 1)]);
        let b = layout(&[(0, T::UNIFORM_BUFFER, 1)]);
        let x = info(&[a.clone(), a.clone()], Vec::new());
        let y = info(
            &[layout(&[(0, T::STORAGE_BUFFER, 1)]), b.clone()],
            Vec::new(),
        );
        assert!(x.compatible_up_to(&y, 0), "set 0 defined identically");
        assert!(!x.compatible_up_to(&y, 1), "set 1 differs");
        let range = vk::PushConstantRange {
            stage_flags: vk::ShaderStageFlags::COMPUTE,
            offset: 0,
            size: 4,
        };
        let z = info(std::slice::from_ref(&a), vec![range]);
        assert!(!x.compatible_up_to(&z, 0), "push ranges differ");
    }
}
