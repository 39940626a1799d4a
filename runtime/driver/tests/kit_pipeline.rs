//! The kit's pipelines (`PIPELINE_OBJECTS`, issue 30 item 4) through the real entry points:
//! a compute pipeline whose dispatch the engine runs from the resolved bound state alone
//! (workgroup size, a storage buffer's host bytes at its dynamic offset, push constants),
//! creation feedback and cache hits, `VK_PIPELINE_COMPILE_REQUIRED`, the per-element create
//! rules with a vendor that refuses a pipeline, derivatives, and graphics pipeline libraries
//! linked by state group.

#[path = "support/pipeline.rs"]
mod fixture;
mod support;

use ash::vk;
use fixture::*;
use vkgen_driver::kit::pipeline::Pipeline;
use vkgen_driver::kit::state::graphics::all_subsets;

fn fill(i: u32, multiplier: u32) -> u32 {
    (i.wrapping_mul(multiplier).wrapping_add(7)) ^ (i >> 3)
}

#[test]
fn dispatch_reads_workgroup_size_dynamic_offset_buffer_and_push_constants() {
    let s = setup();
    let (buf, host) = s.buffer(1024);
    let sl = set_layout(
        &[(0, vk::DescriptorType::STORAGE_BUFFER_DYNAMIC)],
        vk::DescriptorSetLayoutCreateFlags::empty(),
    );
    let layout = make_layout(std::slice::from_ref(&sl));
    let set = make_set(&sl, buf, 0, 256);
    let pipeline = s.compute(make_module(&spirv("fill.comp", None)), layout);
    let seen = s.run(|d, cb| {
        // SAFETY: recording into a live command buffer with live objects.
        unsafe {
            d.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, pipeline);
            d.cmd_bind_descriptor_sets(
                cb,
                vk::PipelineBindPoint::COMPUTE,
                layout,
                0,
                &[set],
                &[512],
            );
            d.cmd_push_constants(
                cb,
                layout,
                vk::ShaderStageFlags::COMPUTE,
                0,
                &3u32.to_le_bytes(),
            );
            d.cmd_dispatch(cb, 1, 1, 1);
        }
    });
    assert_eq!(seen.len(), 1);
    assert_eq!(seen[0].workgroup, Some([64, 1, 1]));
    assert_eq!(seen[0].push, 3u32.to_le_bytes());
    // SAFETY: the buffer's 1024 mapped bytes, no longer written (the queue is idle).
    let bytes = unsafe { std::slice::from_raw_parts(host, 1024) };
    let mut expected = vec![0u8; 1024];
    for i in 0..64u32 {
        let at = 512 + 4 * i as usize;
        expected[at..at + 4].copy_from_slice(&fill(i, 3).to_le_bytes());
    }
    assert_eq!(
        bytes,
        &expected[..],
        "64 elements written at the dynamic offset, nothing else"
    );
}

fn create_with_feedback(
    s: &Setup,
    cache: vk::PipelineCache,
    module: vk::ShaderModule,
    layout: vk::PipelineLayout,
    flags: vk::PipelineCreateFlags,
) -> (
    Result<vk::Pipeline, vk::Result>,
    vk::PipelineCreationFeedback,
    vk::PipelineCreationFeedback,
) {
    let mut whole = vk::PipelineCreationFeedback::default();
    let mut stages = [vk::PipelineCreationFeedback::default()];
    let mut fb = vk::PipelineCreationFeedbackCreateInfo::default()
        .pipeline_creation_feedback(&mut whole)
        .pipeline_stage_creation_feedbacks(&mut stages);
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(module)
        .name(c"main");
    let ci = vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout)
        .flags(flags)
        .push_next(&mut fb);
    // SAFETY: a live device and a valid create info with its feedback outputs.
    let r = unsafe { s.device.create_compute_pipelines(cache, &[ci], None) };
    let r = r.map(|v| v[0]).map_err(|(v, e)| {
        assert_eq!(
            v,
            [vk::Pipeline::null()],
            "a failed element's handle is null"
        );
        e
    });
    (r, whole, stages[0])
}

#[test]
fn creation_feedback_reports_a_cache_hit_on_the_second_create() {
    let s = setup();
    let layout = make_layout(&[]);
    let module = make_module(&spirv("fill.comp", None));
    let cache = make_cache();
    type F = vk::PipelineCreationFeedbackFlags;
    let none = vk::PipelineCreateFlags::empty();
    let (first, whole, stage) = create_with_feedback(&s, cache, module, layout, none);
    assert!(first.is_ok());
    assert_eq!((whole.flags, stage.flags), (F::VALID, F::VALID));
    let (second, whole, stage) = create_with_feedback(&s, cache, module, layout, none);
    assert!(second.is_ok());
    let hit = F::VALID | F::APPLICATION_PIPELINE_CACHE_HIT;
    assert_eq!((whole.flags, stage.flags), (hit, hit));
    let (_, whole, _) = create_with_feedback(&s, vk::PipelineCache::null(), module, layout, none);
    assert_eq!(whole.flags, F::VALID, "no cache, no hit");
}

#[test]
fn fail_on_compile_required_answers_compile_required_until_the_cache_has_it() {
    let s = setup();
    let layout = make_layout(&[]);
    let module = make_module(&spirv("fill.comp", None));
    let cache = make_cache();
    let fail = vk::PipelineCreateFlags::FAIL_ON_PIPELINE_COMPILE_REQUIRED;
    let (r, _, _) = create_with_feedback(&s, cache, module, layout, fail);
    assert_eq!(r, Err(vk::Result::PIPELINE_COMPILE_REQUIRED));
    let (r, _, _) = create_with_feedback(&s, vk::PipelineCache::null(), module, layout, fail);
    assert_eq!(r, Err(vk::Result::PIPELINE_COMPILE_REQUIRED), "no cache");
    // The miss above inserted the stage (the contract's `lookup_or_insert`): now it hits.
    let (r, whole, _) = create_with_feedback(&s, cache, module, layout, fail);
    assert!(r.is_ok());
    assert!(whole
        .flags
        .contains(vk::PipelineCreationFeedbackFlags::APPLICATION_PIPELINE_CACHE_HIT));
}

fn compute_info<'a>(
    stage: vk::PipelineShaderStageCreateInfo<'a>,
    layout: vk::PipelineLayout,
    flags: vk::PipelineCreateFlags,
) -> vk::ComputePipelineCreateInfo<'a> {
    vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(layout)
        .flags(flags)
        .base_pipeline_index(-1)
}

#[test]
fn a_refused_element_is_null_the_rest_are_made_and_early_return_stops() {
    let s = setup();
    let layout = make_layout(&[]);
    let good = make_module(&spirv("fill.comp", None));
    let bad = make_module(&spirv("fill.comp", Some("refused")));
    let stage = |m, name: &'static std::ffi::CStr| {
        vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(m)
            .name(name)
    };
    let none = vk::PipelineCreateFlags::empty();
    let derivative = compute_info(
        stage(good, c"main"),
        layout,
        vk::PipelineCreateFlags::DERIVATIVE,
    )
    .base_pipeline_index(0);
    let infos = [
        compute_info(
            stage(good, c"main"),
            layout,
            vk::PipelineCreateFlags::ALLOW_DERIVATIVES,
        ),
        compute_info(stage(bad, c"refused"), layout, none),
        derivative,
    ];
    // SAFETY: a live device and valid create infos.
    let (made, e) = unsafe {
        s.device
            .create_compute_pipelines(vk::PipelineCache::null(), &infos, None)
    }
    .unwrap_err();
    assert_eq!(e, vk::Result::ERROR_UNKNOWN, "the vendor's error");
    assert!(made[0] != vk::Pipeline::null() && made[2] != vk::Pipeline::null());
    assert_eq!(made[1], vk::Pipeline::null());
    // SAFETY: a pipeline just made.
    let p = unsafe { Pipeline::from_handle(made[2]) }
        .and_then(Pipeline::compute)
        .unwrap();
    assert_eq!(p.base, Some(made[0]), "derivative of element 0");
    assert_eq!(
        p.create_info.get().stage.stage,
        vk::ShaderStageFlags::COMPUTE,
        "deep copy kept"
    );

    let early = [
        compute_info(stage(good, c"main"), layout, none),
        compute_info(
            stage(bad, c"refused"),
            layout,
            vk::PipelineCreateFlags::EARLY_RETURN_ON_FAILURE,
        ),
        compute_info(stage(good, c"main"), layout, none),
    ];
    // SAFETY: a live device and create infos whose stages and layout are live.
    let (made, _) = unsafe {
        s.device
            .create_compute_pipelines(vk::PipelineCache::null(), &early, None)
    }
    .unwrap_err();
    assert!(made[0] != vk::Pipeline::null());
    assert_eq!(
        &made[1..],
        [vk::Pipeline::null(); 2],
        "nothing after the early return"
    );
}

/// A graphics pipeline library providing `subsets`, from the parts given.
#[allow(clippy::too_many_arguments)]
fn library(
    s: &Setup,
    subsets: vk::GraphicsPipelineLibraryFlagsEXT,
    stages: &[vk::PipelineShaderStageCreateInfo<'_>],
    layout: vk::PipelineLayout,
) -> vk::Pipeline {
    let vi = vk::PipelineVertexInputStateCreateInfo::default();
    let ia = vk::PipelineInputAssemblyStateCreateInfo::default()
        .topology(vk::PrimitiveTopology::TRIANGLE_STRIP);
    let viewports = [vk::Viewport {
        width: 64.0,
        height: 32.0,
        max_depth: 1.0,
        ..Default::default()
    }];
    let scissors = [vk::Rect2D::default()];
    let vp = vk::PipelineViewportStateCreateInfo::default()
        .viewports(&viewports)
        .scissors(&scissors);
    let rs = vk::PipelineRasterizationStateCreateInfo::default()
        .cull_mode(vk::CullModeFlags::BACK)
        .line_width(1.5);
    let ms = vk::PipelineMultisampleStateCreateInfo::default()
        .rasterization_samples(vk::SampleCountFlags::TYPE_1);
    let ds = vk::PipelineDepthStencilStateCreateInfo::default()
        .depth_test_enable(true)
        .depth_compare_op(vk::CompareOp::LESS);
    let att = [vk::PipelineColorBlendAttachmentState::default()
        .color_write_mask(vk::ColorComponentFlags::RGBA)];
    let cb = vk::PipelineColorBlendStateCreateInfo::default().attachments(&att);
    let formats = [vk::Format::R8G8B8A8_UNORM];
    let mut rendering =
        vk::PipelineRenderingCreateInfo::default().color_attachment_formats(&formats);
    let mut gpl = vk::GraphicsPipelineLibraryCreateInfoEXT::default().flags(subsets);
    let ci = vk::GraphicsPipelineCreateInfo::default()
        .flags(vk::PipelineCreateFlags::LIBRARY_KHR)
        .stages(stages)
        .vertex_input_state(&vi)
        .input_assembly_state(&ia)
        .viewport_state(&vp)
        .rasterization_state(&rs)
        .multisample_state(&ms)
        .depth_stencil_state(&ds)
        .color_blend_state(&cb)
        .layout(layout)
        .push_next(&mut gpl)
        .push_next(&mut rendering);
    // SAFETY: a live device and a valid create info.
    unsafe {
        s.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
    }
    .unwrap()[0]
}

#[test]
fn graphics_pipeline_libraries_link_by_state_group() {
    let s = setup();
    let layout = make_layout(&[]);
    let vert = make_module(&spirv("triangle.vert", None));
    let frag = make_module(&spirv("triangle.frag", None));
    let stage = |st, m| {
        vk::PipelineShaderStageCreateInfo::default()
            .stage(st)
            .module(m)
            .name(c"main")
    };
    type L = vk::GraphicsPipelineLibraryFlagsEXT;
    let vs = [stage(vk::ShaderStageFlags::VERTEX, vert)];
    let fs = [stage(vk::ShaderStageFlags::FRAGMENT, frag)];
    let libs = [
        library(
            &s,
            L::VERTEX_INPUT_INTERFACE,
            &[],
            vk::PipelineLayout::null(),
        ),
        // The fragment stage passed here belongs to another subset: ignored.
        library(&s, L::PRE_RASTERIZATION_SHADERS, &[vs[0], fs[0]], layout),
        library(&s, L::FRAGMENT_SHADER, &fs, layout),
        library(
            &s,
            L::FRAGMENT_OUTPUT_INTERFACE,
            &[],
            vk::PipelineLayout::null(),
        ),
    ];
    // SAFETY: libraries just made.
    let pre = unsafe { Pipeline::from_handle(libs[1]) }
        .and_then(Pipeline::graphics)
        .unwrap();
    assert_eq!(pre.stages.len(), 1, "only the pre-rasterization stage");
    assert!(pre.state.vi.is_none() && pre.state.cb.is_none() && pre.state.rs.is_some());
    let mut link = vk::PipelineLibraryCreateInfoKHR::default().libraries(&libs);
    let ci = vk::GraphicsPipelineCreateInfo::default().push_next(&mut link);
    // SAFETY: a live device; a linking create info naming live libraries.
    let linked = unsafe {
        s.device
            .create_graphics_pipelines(vk::PipelineCache::null(), &[ci], None)
    }
    .unwrap()[0];
    // SAFETY: the libraries may go once linked: the pipeline copied what it needs.
    unsafe {
        for l in libs {
            s.device.destroy_pipeline(l, None);
        }
    }
    // SAFETY: the pipeline just made.
    let g = unsafe { Pipeline::from_handle(linked) }
        .and_then(Pipeline::graphics)
        .unwrap();
    assert_eq!(g.state.subsets, all_subsets());
    let stages: Vec<_> = g.stages.iter().map(|s| s.stage).collect();
    assert_eq!(
        stages,
        [vk::ShaderStageFlags::VERTEX, vk::ShaderStageFlags::FRAGMENT]
    );
    let st = &g.state;
    assert_eq!(
        st.ia.unwrap().topology,
        vk::PrimitiveTopology::TRIANGLE_STRIP
    );
    assert_eq!(st.vp.as_ref().unwrap().viewports[0].width, 64.0);
    assert_eq!(st.rs.unwrap().line_width, 1.5);
    assert!(st.ds.unwrap().depth_test);
    assert_eq!(st.cb.as_ref().unwrap().attachments.len(), 1);
    let rp = st.rp.as_ref().unwrap();
    assert_eq!(rp.color_formats, [vk::Format::R8G8B8A8_UNORM]);
    assert!(g.layout.is_some(), "the layout comes from a library");
}
