//! `vkgen diff` over the registry matrix 1.1.130 → 1.2.203 → 1.3.239 → 1.4.359: known facts of
//! each spec bump, through the library and through the CLI.

mod common;

use std::collections::BTreeSet;
use std::process::Command;

use vkgen::diff::{self, Diff};

fn run(old: &str, new: &str) -> Diff {
    diff::run(&common::registry(old), &common::registry(new), None).unwrap()
}

/// Every command the new registry's features of `version` (public and internal) require.
fn core_commands_of(reg_version: &str, version: (u32, u32)) -> BTreeSet<String> {
    let (loaded, _) = vkgen::load(&common::options(reg_version)).unwrap();
    let reg = &loaded.registry;
    let earlier: BTreeSet<&String> = reg
        .features
        .iter()
        .filter(|f| f.version < version)
        .flat_map(|f| f.requires.iter().flat_map(|r| &r.commands))
        .collect();
    reg.features
        .iter()
        .filter(|f| f.version == version)
        .flat_map(|f| f.requires.iter().flat_map(|r| &r.commands))
        .filter(|c| !earlier.contains(c))
        .cloned()
        .collect()
}

fn promotion<'d>(d: &'d Diff, ext: &str) -> &'d diff::Promotion {
    d.promotions
        .iter()
        .find(|p| p.extension == ext)
        .unwrap_or_else(|| panic!("{ext} not among the promotions"))
}

fn names<T>(items: &[T], f: impl Fn(&T) -> &str) -> BTreeSet<String> {
    items.iter().map(|i| f(i).to_owned()).collect()
}

#[test]
fn bump_1_1_to_1_2_promotes_timeline_semaphores() {
    let d = run("1.1.130", "1.2.203");
    assert_eq!(
        (
            d.old.highest_version.as_str(),
            d.new.highest_version.as_str()
        ),
        ("1.1", "1.2")
    );
    let p = promotion(&d, "VK_KHR_timeline_semaphore");
    assert_eq!(p.promoted_to, "VK_VERSION_1_2");
    assert_eq!(p.core_version.as_deref(), Some("1.2"));
    assert!(!p.new_extension, "timeline semaphores existed in 1.1.130");
    assert_eq!(
        p.core_commands,
        [
            "vkGetSemaphoreCounterValue",
            "vkSignalSemaphore",
            "vkWaitSemaphores"
        ]
    );
    assert!(
        p.core_types.contains(&"VkSemaphoreWaitInfo".to_owned()),
        "{:?}",
        p.core_types
    );
    assert!(d
        .became_aliases
        .iter()
        .any(|a| a.name == "vkWaitSemaphoresKHR" && a.alias_of == "vkWaitSemaphores"));
    assert_eq!(d.new_versions.len(), 1);
    assert_eq!(d.new_versions[0].version, "1.2");
    assert_eq!(d.new_versions[0].commands, 13);
    let wait = d
        .commands
        .added
        .iter()
        .find(|c| c.name == "vkWaitSemaphores")
        .unwrap();
    assert_eq!(wait.provided_by, ["1.2"]);
    // The loader exports exactly the new core commands.
    assert_eq!(
        names(&d.loader.exports_added, |s| s),
        core_commands_of("1.2.203", (1, 2))
    );
    assert!(d.loader.exports_removed.is_empty());
    assert_eq!(
        d.loader.exported_after - d.loader.exported_before,
        d.loader.exports_added.len()
    );
    assert!(d.new_dispatchable_handles.is_empty());
}

#[test]
fn bump_1_2_to_1_3_promotes_dynamic_rendering() {
    let d = run("1.2.203", "1.3.239");
    let p = promotion(&d, "VK_KHR_dynamic_rendering");
    assert_eq!(p.core_version.as_deref(), Some("1.3"));
    assert_eq!(
        p.core_commands,
        ["vkCmdBeginRendering", "vkCmdEndRendering"]
    );
    assert!(p.core_types.contains(&"VkRenderingInfo".to_owned()));
    assert!(d
        .became_aliases
        .iter()
        .any(|a| a.name == "vkCmdBeginRenderingKHR" && a.alias_of == "vkCmdBeginRendering"));
    assert!(d.became_aliases.iter().any(|a| a.what == "type"
        && a.name == "VkRenderingInfoKHR"
        && a.alias_of == "VkRenderingInfo"));
    let begin = d
        .commands
        .added
        .iter()
        .find(|c| c.name == "vkCmdBeginRendering")
        .unwrap();
    assert_eq!(begin.provided_by, ["1.3"]);
    assert!(d
        .loader
        .exports_added
        .contains(&"vkCmdBeginRendering".to_owned()));
    assert_eq!(
        names(&d.loader.exports_added, |s| s),
        core_commands_of("1.3.239", (1, 3))
    );
    // The driver skeleton's hook moves from the KHR name to the core one.
    let added = names(&d.driver.hooks_added, |h| &h.command);
    let removed = names(&d.driver.hooks_removed, |h| &h.command);
    assert!(added.contains("vkCmdBeginRendering"));
    assert!(removed.contains("vkCmdBeginRenderingKHR"));
    let hook = d
        .driver
        .hooks_added
        .iter()
        .find(|h| h.command == "vkCmdBeginRendering")
        .unwrap();
    assert_eq!(
        (hook.hook.as_str(), hook.level),
        ("cmd_begin_rendering", "Device")
    );
    assert_eq!(
        d.driver.hooks_after - d.driver.hooks_before + removed.len(),
        added.len()
    );
    // Other 1.3 promotions of the same bump.
    for ext in [
        "VK_KHR_synchronization2",
        "VK_KHR_maintenance4",
        "VK_EXT_extended_dynamic_state",
    ] {
        assert_eq!(
            promotion(&d, ext).core_version.as_deref(),
            Some("1.3"),
            "{ext}"
        );
    }
}

#[test]
fn bump_1_3_to_1_4_maintenance5_and_external_compute_queue() {
    let d = run("1.3.239", "1.4.359");
    let p = promotion(&d, "VK_KHR_maintenance5");
    assert_eq!(p.core_version.as_deref(), Some("1.4"));
    assert!(p.new_extension, "maintenance5 is newer than 1.3.239");
    assert!(p
        .core_commands
        .contains(&"vkCmdBindIndexBuffer2".to_owned()));
    assert!(p
        .core_commands
        .contains(&"vkGetRenderingAreaGranularity".to_owned()));
    assert_eq!(
        promotion(&d, "VK_KHR_push_descriptor")
            .core_version
            .as_deref(),
        Some("1.4")
    );
    // Promotion to another extension is reported with the target's name.
    let ts = promotion(&d, "VK_EXT_calibrated_timestamps");
    assert_eq!(
        (ts.promoted_to.as_str(), ts.core_version.as_deref()),
        ("VK_KHR_calibrated_timestamps", None)
    );

    assert_eq!(
        d.new_dispatchable_handles.len(),
        1,
        "{:?}",
        d.new_dispatchable_handles
    );
    let h = &d.new_dispatchable_handles[0];
    assert_eq!(h.name, "VkExternalComputeQueueNV");
    assert_eq!(h.parent.as_deref(), Some("VkDevice"));
    assert_eq!(h.provided_by, ["VK_NV_external_compute_queue"]);

    let core14 = core_commands_of("1.4.359", (1, 4));
    assert_eq!(core14.len(), 19);
    assert_eq!(
        names(&d.loader.exports_added, |s| s),
        core14,
        "the export set grows by the 1.4 commands"
    );
    assert!(d.loader.exports_removed.is_empty());
    assert_eq!(d.loader.exported_after, d.loader.exported_before + 19);
    assert_eq!(d.new_versions[0].version, "1.4");
    assert_eq!(d.new_versions[0].commands, 19);
    // The new handle's commands become device-level driver hooks.
    let hook = d
        .driver
        .hooks_added
        .iter()
        .find(|h| h.command == "vkGetExternalComputeQueueDataNV")
        .expect("hook for the new handle's command");
    assert_eq!(hook.level, "Device");
    // A known signature change of the bump (KHR alias type replaced by the core name).
    let c = d
        .changed_commands
        .iter()
        .find(|c| c.name == "vkGetAccelerationStructureMemoryRequirementsNV")
        .unwrap();
    assert!(
        c.old.contains("VkMemoryRequirements2KHR*") && c.new.contains("VkMemoryRequirements2*")
    );
    assert!(!d.changed_structs.is_empty());
}

#[test]
fn identical_registries_differ_in_nothing() {
    let d = run("1.3.239", "1.3.239");
    assert!(d.commands.added.is_empty() && d.commands.removed.is_empty());
    assert!(d.types.added.is_empty() && d.extensions.added.is_empty());
    assert!(
        d.promotions.is_empty() && d.changed_commands.is_empty() && d.changed_structs.is_empty()
    );
    assert!(d.loader.exports_added.is_empty() && d.driver.hooks_added.is_empty());
}

fn vkgen(args: &[&str]) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(args)
        .env_remove("VKGEN_REGISTRY")
        .output()
        .unwrap()
}

#[test]
fn cli_table_and_json_are_deterministic() {
    let old = common::registry("1.3.239");
    let new = common::registry("1.4.359");
    let (old, new) = (old.to_str().unwrap(), new.to_str().unwrap());
    let a = vkgen(&["diff", old, new, "--json"]);
    assert!(a.status.success(), "{}", String::from_utf8_lossy(&a.stderr));
    let b = vkgen(&["diff", old, new, "--json"]);
    assert_eq!(a.stdout, b.stdout, "same input, same output");
    let v: serde_json::Value = serde_json::from_slice(&a.stdout).unwrap();
    for key in [
        "old",
        "new",
        "new_versions",
        "commands",
        "types",
        "extensions",
        "promotions",
        "became_aliases",
        "changed_commands",
        "changed_structs",
        "new_dispatchable_handles",
        "loader",
        "driver",
    ] {
        assert!(v.get(key).is_some(), "JSON lacks {key}");
    }
    assert_eq!(
        v["new_dispatchable_handles"][0]["name"],
        "VkExternalComputeQueueNV"
    );

    let t = vkgen(&["diff", old, new]);
    assert!(t.status.success());
    let text = String::from_utf8(t.stdout).unwrap();
    assert!(
        text.contains("loader (Android selection at 1.3 → 1.4): 232 → 251 exported symbols"),
        "{text}"
    );
    assert!(text.contains("VK_KHR_maintenance5"));
    assert!(text.contains("→ core 1.4 (new extension): vkCmdBindIndexBuffer2"));
    assert!(text.contains("\nnew dispatchable handles\n  VkExternalComputeQueueNV"));
    assert!(
        !text.lines().any(|l| l.ends_with(' ')),
        "no trailing blanks"
    );
}

#[test]
fn cli_reports_bad_input_with_exit_2() {
    let good = common::registry("1.3.239");
    let out = vkgen(&["diff", good.to_str().unwrap(), "/nonexistent/vk.xml"]);
    assert_eq!(out.status.code(), Some(2));
    let err = String::from_utf8_lossy(&out.stderr);
    assert!(err.contains("/nonexistent/vk.xml"), "{err}");

    let dir = tempfile::tempdir().unwrap();
    let broken = dir.path().join("broken.xml");
    std::fs::write(&broken, "<registry><types>").unwrap();
    let out = vkgen(&["diff", broken.to_str().unwrap(), good.to_str().unwrap()]);
    assert_eq!(out.status.code(), Some(2));
    assert!(String::from_utf8_lossy(&out.stderr).contains("broken.xml:"));
}
