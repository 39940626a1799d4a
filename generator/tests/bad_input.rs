//! Malformed, truncated and dangling registries give clear errors, never panics.

mod common;

use std::process::Command;

use proptest::prelude::*;

const SMALL: &str = r#"<registry>
  <types>
    <type name="uint32_t" requires="vk_platform"/>
    <type category="define">#define <name>VK_HEADER_VERSION</name> 7</type>
    <type category="handle" objtypeenum="VK_OBJECT_TYPE_DEVICE"><type>VK_DEFINE_HANDLE</type>(<name>VkDevice</name>)</type>
    <type name="VkResult" category="enum"/>
    <type category="struct" name="VkThing"><member><type>uint32_t</type> <name>x</name></member></type>
  </types>
  <enums name="VkResult" type="enum"><enum value="0" name="VK_SUCCESS"/></enums>
  <commands>
    <command><proto><type>VkResult</type> <name>vkDoThing</name></proto><param><type>VkDevice</type> <name>device</name></param><param><type>VkThing</type>* <name>pThing</name></param></command>
  </commands>
  <feature api="vulkan" name="VK_VERSION_1_0" number="1.0"><require><command name="vkDoThing"/></require></feature>
</registry>"#;

fn load_text(text: &str) -> Result<vkgen::registry::Loaded, vkgen::Error> {
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("vk.xml");
    std::fs::write(&p, text).unwrap();
    vkgen::registry::load(&p, None)
}

#[test]
fn small_registry_loads() {
    let l = load_text(SMALL).unwrap();
    assert_eq!(l.registry.header_version, 7);
    assert_eq!(l.registry.commands["vkDoThing"].params.len(), 2);
}

#[test]
fn malformed_xml_reports_file_line_col() {
    let err = load_text("<registry>\n  <types>\n    <type name=\"x\">\n</registry>").unwrap_err();
    let msg = err.to_string();
    assert!(matches!(err, vkgen::Error::Xml { line: 4, .. }), "{msg}");
    assert!(msg.contains("vk.xml:4:"), "{msg}");
    assert_eq!(err.exit_code(), 2);
}

#[test]
fn dangling_references_name_the_element() {
    let text = SMALL.replace("<type>VkThing</type>*", "<type>VkMissing</type>*");
    let err = load_text(&text).unwrap_err().to_string();
    assert!(
        err.contains("vkDoThing") && err.contains("VkMissing"),
        "{err}"
    );
    let text = SMALL.replace(
        "<command name=\"vkDoThing\"/>",
        "<command name=\"vkNope\"/>",
    );
    let err = load_text(&text).unwrap_err().to_string();
    assert!(
        err.contains("vkNope") && err.contains("VK_VERSION_1_0"),
        "{err}"
    );
}

#[test]
fn unknown_elements_warn_and_unknown_categories_fail() {
    let text = SMALL.replace("<commands>", "<futurestuff/><commands>");
    let l = load_text(&text).unwrap();
    assert!(l.warnings.iter().any(|w| w.contains("futurestuff")));
    let text = SMALL.replace("category=\"struct\"", "category=\"hologram\"");
    assert!(load_text(&text)
        .unwrap_err()
        .to_string()
        .contains("hologram"));
}

#[test]
fn cli_exit_codes() {
    let dir = tempfile::tempdir().unwrap();
    let bad = dir.path().join("bad.xml");
    std::fs::write(&bad, "<registry><types>").unwrap();
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["info", "--registry"])
        .arg(&bad)
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("bad.xml:1:"), "{stderr}");
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["info", "--registry", "/nonexistent/vk.xml"])
        .output()
        .unwrap();
    assert_eq!(out.status.code(), Some(2));
    let out = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--help"])
        .output()
        .unwrap();
    assert!(String::from_utf8_lossy(&out.stdout).contains("--check"));
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 200, ..ProptestConfig::default() })]

    /// Any truncation of a valid registry is an error or a (smaller) registry, never a panic.
    #[test]
    fn truncation_never_panics(cut in 0usize..SMALL.len()) {
        let _ = load_text(&SMALL[..cut]);
    }

    /// Byte corruption anywhere: still no panic.
    #[test]
    fn corruption_never_panics(pos in 0usize..SMALL.len(), byte in proptest::sample::select(vec![b'<', b'>', b'"', b'/', b'*', b'[', b':', b'x', b'0'])) {
        let mut bytes = SMALL.as_bytes().to_vec();
        bytes[pos] = byte;
        if let Ok(text) = String::from_utf8(bytes) {
            if let Ok(loaded) = load_text(&text) {
                let reg = &loaded.registry;
                let _ = vkgen::select::select(reg, (1, 0), &vkgen::ash_types::AshTypes::load());
            }
        }
    }
}

#[test]
fn truncated_real_registry_never_panics() {
    let text = std::fs::read_to_string(common::registry("1.1.130")).unwrap();
    for cut in [0, 10, 1000, 100_000, text.len() / 2, text.len() - 20] {
        assert!(load_text(&text[..cut]).is_err(), "cut at {cut}");
    }
}
