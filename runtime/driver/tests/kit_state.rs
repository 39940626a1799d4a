//! The kit's bound-state tracking (issue 30 item 4): what the engine finds at each draw and
//! dispatch of a tracked replay — a graphics state compiled with and without dynamic states
//! (dynamic values set before the bind survive it, a static pipeline keeps its own), the
//! descriptor-set disturbance rule, push descriptors, vertex buffers, and the generated map of
//! which command sets each dynamic state.

#[path = "support/pipeline.rs"]
mod fixture;
mod support;

use ash::vk;
use fixture::*;
use vkgen_driver::generated::commands::CommandId;
use vkgen_driver::generated::dynamic_state;
use vkgen_driver::kit::command::Recorder;
use vkgen_driver::kit::descriptor::Descriptor;

/// A complete graphics pipeline of the triangle shaders; `dynamic` states dynamic, with the
/// viewport pointer dangling when the viewport is dynamic (the spec lets it be: ignored).
fn graphics(s: &Setup, layout: vk::PipelineLayout, dynamic: &[vk::DynamicState]) -> vk::Pipeline {
    let vert = make_module(&spirv("triangle.vert", None));
    let frag = make_module(&spirv("triangle.frag", None));
    let stages = [
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::VERTEX)
            .module(vert)
            .name(c"main"),
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::FRAGMENT)
            .module(frag)
            .name(c"main"),
    ];
    let vi = vk::PipelineVertexInputStateCreateInfo::default();
    let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_LIST);
    let viewports = [vk::Viewport {
        width: 100.0,
        height: 100.0,
        max_depth: 1.0,
        ..Default::default()
    }];
    let scissors = [vk::Rect2D::default()];
    let mut vp = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    if dynamic.contains(&vk::DynamicState::VIEWPORT) {
        vp.p_viewports = std::ptr::dangling();
    }
    let rs = vk::PipelineRasterizationStateCreateInfo::default().line_width(2.0);
    let ms = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let att = [vk::PipelineColorBlendAttachmentState::default()];
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
    let dy = vk::PipelineDynamicStateCreateInfo::default().dynamic_states(dynamic);
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .stages(&stages)
        .vertex_input_state(&vi)
        .input_assembly_state(&ia)
        .viewport_state(&vp)
        .rasterization_state(&rs)
        .multisample_state(&ms)
        .color_blend_state(&cb)
        .dynamic_state(&dy)
        .layout(layout);
    // SAFETY: a live device and a valid create info (the dangling pointer is one it ignores).
    unsafe {
        s.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
    }
    .unwrap()[0]
}

#[test]
fn draws_see_the_graphics_state_with_and_without_dynamic_states() {
    let s = setup();
    let layout = make_layout(&[]);
    let fixed = graphics(&s, layout, &[]);
    let dynamic = graphics(
        &s,
        layout,
        &[vk::DynamicState::VIEWPORT, vk::DynamicState::LINE_WIDTH],
    );
    let (vb, _) = s.buffer(256);
    let seen = s.run(|d, cb| {
        let v = [vk::Viewport {
            width: 50.0,
            height: 25.0,
            max_depth: 1.0,
            ..Default::default()
        }];
        // SAFETY: recording into a live command buffer with live objects.
        unsafe {
            // Set before the bind: kept for the pipeline that has them dynamic.
            d.cmd_set_viewport(cb, 0, &v);
            d.cmd_set_line_width(cb, 3.0);
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, dynamic);
            d.cmd_bind_vertex_buffers(cb, 0, &[vb, vb], &[0, 16]);
            d.cmd_draw(cb, 3, 1, 0, 0);
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, fixed);
            // Static in this pipeline: its own line width stays.
            d.cmd_set_line_width(cb, 4.0);
            d.cmd_draw(cb, 3, 1, 0, 0);
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::GRAPHICS, dynamic);
            d.cmd_draw_indexed_indirect(cb, vb, 0, 1, 20);
        }
    });
    let width = |i: usize| {
        seen[i]
            .state
            .as_ref()
            .unwrap()
            .vp
            .as_ref()
            .unwrap()
            .viewports[0]
            .width
    };
    let line = |i: usize| seen[i].state.as_ref().unwrap().rs.unwrap().line_width;
    assert_eq!(seen.len(), 3);
    assert_eq!((width(0), line(0)), (50.0, 3.0), "dynamic values");
    assert_eq!((width(1), line(1)), (100.0, 2.0), "the static pipeline's");
    assert_eq!(
        (width(2), line(2)),
        (50.0, 4.0),
        "the last values, on the indirect draw too"
    );
    assert_eq!(seen[2].what, "draw_indexed_indirect");
    assert_eq!(seen[0].vertex_buffers, 2);
    let st = seen[0].state.as_ref().unwrap();
    assert!(st.is_dynamic(vk::DynamicState::VIEWPORT) && !st.is_dynamic(vk::DynamicState::SCISSOR));
}

#[test]
fn binding_an_incompatible_set_disturbs_the_others() {
    let s = setup();
    let (buf, _) = s.buffer(256);
    let storage = [(0, vk::DescriptorType::STORAGE_BUFFER)];
    let none = vk::DescriptorSetLayoutCreateFlags::empty();
    let (a, b) = (set_layout(&storage, none), set_layout(&storage, none));
    let l1 = make_layout(&[a.clone(), b.clone()]);
    // Identically defined, another object: compatible.
    let l1_twin = make_layout(&[set_layout(&storage, none), set_layout(&storage, none)]);
    let other = set_layout(&[(0, vk::DescriptorType::UNIFORM_BUFFER)], none);
    let l2 = make_layout(&[other.clone(), b.clone()]);
    let pipeline = s.compute(make_module(&spirv("fill.comp", None)), l1);
    let (s0, s1, s2) = (
        make_set(&a, buf, 0, 64),
        make_set(&b, buf, 64, 64),
        make_set(&other, buf, 128, 64),
    );
    let c = vk::PipelineBindPoint::COMPUTE;
    let seen = s.run(|d, cb| {
        // SAFETY: recording into a live command buffer with live objects.
        unsafe {
            d.cmd_bind_pipeline(cb, c, pipeline);
            d.cmd_bind_descriptor_sets(cb, c, l1, 0, &[s0, s1], &[]);
            d.cmd_dispatch(cb, 1, 1, 1);
            d.cmd_bind_descriptor_sets(cb, c, l1_twin, 0, &[s0], &[]);
            d.cmd_dispatch(cb, 1, 1, 1);
            d.cmd_bind_descriptor_sets(cb, c, l2, 0, &[s2], &[]);
            d.cmd_dispatch(cb, 1, 1, 1);
            d.cmd_bind_descriptor_sets(cb, c, l1, 0, &[s0, s1], &[]);
            d.cmd_bind_descriptor_sets(cb, c, l2, 1, &[s1], &[]);
            d.cmd_dispatch(cb, 1, 1, 1);
        }
    });
    let sets: Vec<Vec<u32>> = seen.iter().map(|x| x.sets.clone()).collect();
    assert_eq!(
        sets,
        [vec![0, 1], vec![0, 1], vec![0], vec![1]],
        "compatible rebinding keeps set 1; an incompatible set 0 disturbs set 1; set 1 bound \
         with a layout incompatible for set 0 disturbs set 0"
    );
    assert_eq!(
        seen[0].descriptor,
        Some(Descriptor::Buffer {
            buffer: buf,
            offset: 0,
            range: 64
        })
    );
}

#[test]
fn push_descriptors_reach_the_dispatch() {
    let s = setup();
    let (buf, host) = s.buffer(512);
    let sl = set_layout(
        &[(0, vk::DescriptorType::STORAGE_BUFFER)],
        vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR,
    );
    let layout = make_layout(&[sl]);
    let pipeline = s.compute(make_module(&spirv("fill.comp", None)), layout);
    let push = |cb, offset: u64| {
        let info = [vk::DescriptorBufferInfo {
            buffer: buf,
            offset,
            range: 128,
        }];
        let w = [vk::WriteDescriptorSet::default()
            .dst_binding(0)
            .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
            .buffer_info(&info)];
        // SAFETY: the driver's recording entry point of vkCmdPushDescriptorSet (what
        // vkGetDeviceProcAddr returns for it) with valid arguments.
        unsafe {
            vkgen_driver::generated::recorder::entry::cmd_push_descriptor_set::<Recorder<Fx>>(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                layout,
                0,
                1,
                w.as_ptr(),
            );
        }
    };
    let seen = s.run(|d, cb| {
        // SAFETY: recording into a live command buffer with live objects.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &5u32.to_le_bytes(),
            );
            push(cb, 0);
            d.cmd_dispatch(cb, 1, 1, 1);
            push(cb, 256);
            d.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &9u32.to_le_bytes(),
            );
            d.cmd_dispatch(cb, 1, 1, 1);
        }
    });
    assert_eq!(seen.len(), 2);
    // SAFETY: the buffer's 512 mapped bytes; the queue is idle.
    let bytes = unsafe { std::slice::from_raw_parts(host.cast::<u32>(), 128) };
    for i in 0..32u32 {
        assert_eq!(
            bytes[i as usize],
            (i * 5 + 7) ^ (i >> 3),
            "first push, element {i}"
        );
        assert_eq!(
            bytes[64 + i as usize],
            (i * 9 + 7) ^ (i >> 3),
            "second push, element {i}"
        );
        assert_eq!(bytes[32 + i as usize], 0, "between the two ranges");
    }
}

#[test]
fn push_template_data_is_copied_when_recorded() {
    let s = setup();
    let (buf, host) = s.buffer(256);
    let sl = set_layout(
        &[(0, vk::DescriptorType::STORAGE_BUFFER)],
        vk::DescriptorSetLayoutCreateFlags::PUSH_DESCRIPTOR_KHR,
    );
    let layout = make_layout(&[sl]);
    let pipeline = s.compute(make_module(&spirv("fill.comp", None)), layout);
    let template = make_push_template(layout);
    let seen = s.run(|d, cb| {
        let mut data = vk::DescriptorBufferInfo {
            buffer: buf,
            offset: 64,
            range: 64,
        };
        // SAFETY: recording into a live command buffer; the driver's recording entry point
        // of vkCmdPushDescriptorSetWithTemplate with data laid out as the template says.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &2u32.to_le_bytes(),
            );
            vkgen_driver::generated::recorder::entry::cmd_push_descriptor_set_with_template::<
                Recorder<Fx>,
            >(cb, template, layout, 0, std::ptr::from_ref(&data).cast());
            d.cmd_dispatch(cb, 1, 1, 1);
        }
        // The application reuses its memory once the command returns.
        data.offset = 0;
        data.range = 0;
        std::hint::black_box(&data);
    });
    assert_eq!(seen.len(), 1);
    // SAFETY: the buffer's 256 mapped bytes; the queue is idle.
    let words = unsafe { std::slice::from_raw_parts(host.cast::<u32>(), 64) };
    assert!(words[..16].iter().all(|&w| w == 0));
    for i in 0..16u32 {
        assert_eq!(
            words[16 + i as usize],
            (i * 2 + 7) ^ (i >> 3),
            "element {i}"
        );
    }
    assert!(words[32..].iter().all(|&w| w == 0));
}

#[test]
fn the_generated_map_names_each_dynamic_state_setter() {
    let setters = |s| dynamic_state::info(s).unwrap().setters;
    assert_eq!(
        setters(vk::DynamicState::VIEWPORT),
        [CommandId::CMD_SET_VIEWPORT]
    );
    assert!(setters(vk::DynamicState::VERTEX_INPUT_BINDING_STRIDE)
        .contains(&CommandId::CMD_BIND_VERTEX_BUFFERS2));
    assert_eq!(
        setters(vk::DynamicState::VIEWPORT_WITH_COUNT),
        [CommandId::CMD_SET_VIEWPORT_WITH_COUNT]
    );
    let i = dynamic_state::index(vk::DynamicState::LINE_WIDTH).unwrap();
    assert_eq!(dynamic_state::set_by(CommandId::CMD_SET_LINE_WIDTH), [i]);
    assert!(dynamic_state::DYNAMIC_STATES
        .iter()
        .all(|s| !s.setters.is_empty()));
}
