//! Issue 23: an ash 0.38 type is reused only when its layout equals the registry's definition;
//! otherwise the generated crate defines the type from the registry. The regression case is
//! VK_KHR_shader_float_controls, whose members changed between spec revisions
//! (fixtures/float-controls-old.xml has the 1.1.96 members), so a registry of that time got ash's
//! later structure under its name and its generated tables did not compile.

use std::path::Path;
use std::process::Command;

mod common;

const OLD: &str = include_str!("fixtures/float-controls-old.xml");

/// The fixture as later registries have it: the two independence enums replace the two
/// VkBool32 members (spelled with the KHR enum name, which ash has as an alias).
fn new_members(text: &str) -> String {
    text.replace(
        "<member><type>VkBool32</type> <name>separateDenormSettings</name></member>",
        "<member><type>VkShaderFloatControlsIndependenceKHR</type> <name>denormBehaviorIndependence</name></member>",
    )
    .replace(
        "<member><type>VkBool32</type> <name>separateRoundingModeSettings</name></member>",
        "<member><type>VkShaderFloatControlsIndependenceKHR</type> <name>roundingModeIndependence</name></member>",
    )
    .replace(
        "<type name=\"VkResult\" category=\"enum\"/>",
        "<type name=\"VkResult\" category=\"enum\"/>\n    <type name=\"VkShaderFloatControlsIndependenceKHR\" category=\"enum\"/>",
    )
    .replace(
        "<enums name=\"VkResult\" type=\"enum\">",
        "<enums name=\"VkShaderFloatControlsIndependenceKHR\" type=\"enum\"><enum value=\"0\" name=\"VK_SHADER_FLOAT_CONTROLS_INDEPENDENCE_32_BIT_ONLY_KHR\"/></enums>\n  <enums name=\"VkResult\" type=\"enum\">",
    )
}

fn load(text: &str) -> vkgen::registry::Loaded {
    vkgen::load_bytes(text.as_bytes(), Path::new("vk.xml"), None).unwrap()
}

fn generate(text: &str) -> vkgen::Generated {
    let source = vkgen::registry::Source {
        path: "vk.xml".into(),
        how: "test",
    };
    vkgen::generate_loaded(load(text), source, &vkgen::Options::default()).unwrap()
}

fn file<'a>(g: &'a vkgen::Generated, path: &str) -> &'a str {
    &g.files.iter().find(|f| f.path == path).unwrap().contents
}

fn not_reused(text: &str) -> Vec<String> {
    let loaded = load(text);
    vkgen::ash_types::AshTypes::for_registry(&loaded.registry)
        .not_reused()
        .iter()
        .cloned()
        .collect()
}

const STRUCT: &str = "pub struct PhysicalDeviceFloatControlsPropertiesKHR {";

#[test]
fn old_float_controls_are_emitted_from_the_registry() {
    assert_eq!(
        not_reused(OLD),
        ["VkPhysicalDeviceFloatControlsPropertiesKHR"]
    );
    let g = generate(OLD);
    let vk = file(&g, "src/vk.rs");
    let at = vk.find(STRUCT).expect("the structure is emitted");
    let body = &vk[at..at + vk[at..].find("\n}\n").unwrap()];
    assert!(
        body.contains("pub separate_denorm_settings: crate::vk::Bool32,")
            && body.contains("pub separate_rounding_mode_settings: crate::vk::Bool32,")
            && !body.contains("denorm_behavior_independence"),
        "{body}"
    );
    assert!(vk.contains("impl Default for PhysicalDeviceFloatControlsPropertiesKHR {"));
    assert!(vk.contains("StructureType::from_raw(1000197000)"));
    // The properties table reads the emitted structure (no ash lifetime parameter).
    let features = file(&g, "src/features.rs");
    assert!(
        features.contains("crate::vk::PhysicalDeviceFloatControlsPropertiesKHR, Properties;"),
        "{features}"
    );
    assert!(features.contains("separate_denorm_settings"));
    for f in g.files.iter().filter(|f| f.path.ends_with(".rs")) {
        syn::parse_file(&f.contents).unwrap_or_else(|e| panic!("{}: {e}", f.path));
    }
}

#[test]
fn new_float_controls_reuse_ash() {
    let text = new_members(OLD);
    assert!(not_reused(&text).is_empty(), "{:?}", not_reused(&text));
    let g = generate(&text);
    assert!(!file(&g, "src/vk.rs").contains(STRUCT));
    assert!(file(&g, "src/features.rs")
        .contains("crate::vk::PhysicalDeviceFloatControlsPropertiesKHR<'static>, Properties;"));
}

/// What makes a layout differ, one change at a time from the matching (new) definition.
#[test]
fn layout_differences_that_count() {
    let base = new_members(OLD);
    let member = "<member><type>VkBool32</type> <name>shaderDenormPreserveFloat16</name></member>";
    let name = "VkPhysicalDeviceFloatControlsPropertiesKHR";
    for (what, replacement) in [
        (
            "a renamed member",
            "<member><type>VkBool32</type> <name>shaderDenormPreserveF16</name></member>",
        ),
        (
            "an array",
            "<member><type>VkBool32</type> <name>shaderDenormPreserveFloat16</name>[2]</member>",
        ),
        (
            "a pointer",
            "<member><type>VkBool32</type>* <name>shaderDenormPreserveFloat16</name></member>",
        ),
        (
            "a bitfield",
            "<member><type>uint32_t</type> <name>shaderDenormPreserveFloat16</name>:8</member>",
        ),
        (
            "another type of the same size",
            "<member><type>uint32_t</type> <name>shaderDenormPreserveFloat16</name></member>",
        ),
        ("a missing member", ""),
        (
            "an added member",
            &format!("{member}<member><type>VkBool32</type> <name>extra</name></member>"),
        ),
    ] {
        let text = base.replace(member, replacement);
        assert_ne!(text, base);
        assert_eq!(not_reused(&text), [name], "{what}");
    }
    // A different sType value is a different structure to ash's `Default`.
    let text = base.replace("number=\"198\"", "number=\"199\"");
    assert_eq!(not_reused(&text), [name], "sType value");
    // pNext's const-ness is a direction hint, walked through base-structure casts either way.
    let text = base.replace(
        "<member><type>void</type>* <name>pNext</name></member>",
        "<member>const <type>void</type>* <name>pNext</name></member>",
    );
    assert!(not_reused(&text).is_empty(), "pNext const-ness");
}

/// The old-registry crate compiles (warnings allowed: a ten-command registry leaves generated
/// tables empty). One shared target dir, as in the matrix test, so ash builds once.
#[test]
fn old_float_controls_crate_compiles() {
    let tmp = tempfile::tempdir().unwrap();
    let g = generate(OLD);
    vkgen::write(&g.files, tmp.path()).unwrap();
    let out = Command::new(env!("CARGO"))
        .args([
            "check",
            "--quiet",
            "--features",
            "exports",
            "--manifest-path",
        ])
        .arg(tmp.path().join("Cargo.toml"))
        .env(
            "CARGO_TARGET_DIR",
            common::workspace().join("target/matrix"),
        )
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "the old float-controls registry's crate does not compile:\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

#[test]
fn info_reports_reused_and_emitted() {
    let tmp = tempfile::tempdir().unwrap();
    let path = tmp.path().join("vk.xml");
    std::fs::write(&path, OLD).unwrap();
    let opts = vkgen::Options {
        registry: Some(path),
        ..Default::default()
    };
    let r = vkgen::info::report(&opts).unwrap();
    assert_eq!(
        r.ash.differ_from_ash,
        ["VkPhysicalDeviceFloatControlsPropertiesKHR"]
    );
    assert!(
        r.ash.differences[0].contains("separateDenormSettings"),
        "{:?}",
        r.ash.differences
    );
    assert!(r.ash.emitted >= 1);
    let table = vkgen::info::table(&r);
    assert!(
        table.contains("reused from ash 0.38") && table.contains("because ash's layout differs"),
        "{table}"
    );
}

/// ash's own registry reuses every structure ash has, and the table is what `vkgen ash-layouts`
/// makes from it.
#[test]
fn layout_table_is_fresh_and_matches_its_registry() {
    let registry = common::registry("1.3.281");
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["ash-layouts", "--check", "--registry"])
        .arg(&registry)
        .arg("--out")
        .arg(common::workspace().join("registry/ash-0.38-layouts.txt"))
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "registry/ash-0.38-layouts.txt is stale:\n{}{}",
        String::from_utf8_lossy(&out.stdout),
        String::from_utf8_lossy(&out.stderr)
    );
    let r = vkgen::info::report(&common::options("1.3.281")).unwrap();
    assert!(r.ash.differ_from_ash.is_empty(), "{:?}", r.ash.differences);
    // Any other registry is refused: the table describes ash, not the registry at hand.
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["ash-layouts", "--registry"])
        .arg(common::registry("1.3.239"))
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2), "{out:?}");
}

/// `generate` makes the selection with ash's whole list while the reuse check runs beside it
/// (issue 35); that is exact because the check takes out no name the selection asks about — an
/// external type. On every registry of the matrix: the check takes out none, and the two lists
/// give the same selection (extensions, commands, types, what was dropped and why).
#[test]
fn the_selection_made_beside_the_reuse_check_is_the_one_after_it() {
    for version in ["1.1.130", "1.2.203", "1.3.239", "1.3.281", "1.4.359"] {
        let (loaded, _) = vkgen::load(&common::options(version)).unwrap();
        let reg = &loaded.registry;
        let checked = vkgen::ash_types::AshTypes::for_registry(reg);
        assert!(!checked.took_out_an_external(reg), "{version}");
        let highest = vkgen::select::highest_version(reg);
        let full = vkgen::select::select(reg, highest, &vkgen::ash_types::AshTypes::load());
        let after = vkgen::select::select(reg, highest, &checked);
        // Extension names, then command names.
        let names = |s: &vkgen::select::Selection| {
            let extensions = s.extensions.iter().map(|e| e.name.clone());
            extensions
                .chain(s.commands.iter().map(|c| c.name.clone()))
                .collect::<Vec<_>>()
        };
        assert_eq!(names(&full), names(&after), "{version}");
        assert_eq!(full.types, after.types, "{version}");
        assert_eq!(full.dropped, after.dropped, "{version}");
    }
}
