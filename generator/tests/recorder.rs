//! The generated command recorder across the registry matrix: every `vkCmd*` of the selection
//! has a record, a recording entry point, an `Execute` method and an entry-table arm; what
//! vk.xml states only in prose (the `VkWriteDescriptorSet` arrays, the acceleration-structure
//! range arrays) is copied by its rule; `pNext` structures get their `sType` table entry.

mod common;

fn recorder(version: &str) -> (String, Vec<String>) {
    let g = vkgen::generate(&common::options(version))
        .unwrap_or_else(|e| panic!("vk-{version}.xml: {e}"));
    let file = |p: &str| {
        g.files
            .iter()
            .find(|f| f.path == p)
            .unwrap_or_else(|| panic!("no {p}"))
            .contents
            .clone()
    };
    let pfn = file("src/pfn.rs");
    // Canonical commands are the PFN types with their own signature (aliases are `= PFN_x;`).
    let commands = pfn
        .lines()
        .filter_map(|l| l.strip_prefix("pub type PFN_vkCmd"))
        .filter(|l| l.contains("unsafe extern"))
        .map(|l| format!("vkCmd{}", &l[..l.find(' ').unwrap()]))
        .collect();
    (file("src/recorder.rs"), commands)
}

#[test]
fn every_vkcmd_is_recorded_in_every_registry() {
    for v in ["1.1.130", "1.2.203", "1.3.239", "1.3.281", "1.4.359"] {
        let (rec, commands) = recorder(v);
        assert!(commands.len() > 80, "{v}: {} commands", commands.len());
        for c in &commands {
            let variant = c.trim_start_matches("vkCmd");
            assert!(
                rec.contains(&format!("\n    {variant} {{"))
                    || rec.contains(&format!("\n    {variant},")),
                "{v}: no record for {c}"
            );
            assert!(
                rec.contains(&format!("guard(\"{c}\"")),
                "{v}: no recording entry point for {c}"
            );
            let field = vkgen::names::command_field(c);
            assert!(
                rec.contains(&format!("{field}: Some(entry::{field}::<R>),")),
                "{v}: no entry-table slot for {c} ({field})"
            );
        }
        assert_eq!(
            rec.matches("\n    unsafe fn cmd_").count(),
            commands.len(),
            "{v}: one Execute method per command"
        );
    }
}

#[test]
fn prose_rules_and_chains_are_generated() {
    let (rec, _) = recorder("1.4.359");
    // Only the array the descriptor type uses is copied.
    assert!(rec.contains("s.p_buffer_info = match s.descriptor_type.as_raw() {"));
    // ppBuildRangeInfos[i] holds pInfos[i].geometryCount ranges.
    assert!(rec.contains("(*p_infos.add(i)).geometry_count as usize"));
    // vkCmdDrawMultiEXT keeps the application's stride.
    assert!(rec.contains("a.strided(p_vertex_info, draw_count as usize, stride as usize)"));
    // A structure that extends VkRenderingInfo is in the chain table, with its fix-up.
    assert!(rec.contains("fix_DeviceGroupRenderPassBeginInfo as Fix"));
    // Unions are copied bit for bit: no fix-up reaches into them.
    assert!(!rec.contains("fn fix_AccelerationStructureGeometryTrianglesDataKHR"));
}

/// The `routed_to` arm of `from`, if the registry's recorder routes it.
fn route(rec: &str, from: &str) -> Option<String> {
    let arm = rec.lines().find(|l| l.contains(&format!("// {from} → ")))?;
    Some(arm.rsplit(" → ").next()?.to_owned())
}

#[test]
fn the_1_0_forms_are_routed_to_the_2_forms_the_registry_has() {
    let (rec, _) = recorder("1.1.130");
    assert_eq!(
        route(&rec, "vkCmdBeginRenderPass").as_deref(),
        Some("vkCmdBeginRenderPass2KHR")
    );
    assert_eq!(
        route(&rec, "vkCmdCopyBuffer"),
        None,
        "1.1.130 has no copy_commands2"
    );
    let (rec, _) = recorder("1.2.203");
    assert_eq!(
        route(&rec, "vkCmdCopyBuffer").as_deref(),
        Some("vkCmdCopyBuffer2KHR")
    );
    assert_eq!(
        route(&rec, "vkCmdWaitEvents").as_deref(),
        Some("vkCmdWaitEvents2KHR")
    );
    assert!(rec.contains("self.cmd_wait_events2_khr(event_count, p_events, infos.as_ptr())"));
    let (rec, _) = recorder("1.4.359");
    for (from, to) in [
        ("vkCmdCopyBuffer", "vkCmdCopyBuffer2"),
        ("vkCmdPipelineBarrier", "vkCmdPipelineBarrier2"),
        ("vkCmdWriteTimestamp", "vkCmdWriteTimestamp2"),
        ("vkCmdBindIndexBuffer", "vkCmdBindIndexBuffer2"),
        ("vkCmdPushDescriptorSet", "vkCmdPushDescriptorSet2"),
        ("vkCmdEndRenderPass", "vkCmdEndRenderPass2"),
    ] {
        assert_eq!(route(&rec, from).as_deref(), Some(to), "{from}");
    }
    // The 1.0 stage masks go into every converted barrier; a bind point becomes stages.
    assert!(rec.contains("|r| crate::vk::MemoryBarrier2 { p_next: r.p_next.cast(), src_stage_mask: crate::vk::PipelineStageFlags2::from_raw(src_stage_mask.as_raw() as _)"));
    assert!(rec.contains("stage_flags: runtime::routes::bind_point_stages(pipeline_bind_point)"));
    // A `…2` form that takes what the 1.0 form cannot give (a device address) is not a route.
    assert_eq!(route(&rec, "vkCmdDrawIndirect"), None);
    assert_eq!(route(&rec, "vkCmdTraceRaysIndirectKHR"), None);
}
