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
