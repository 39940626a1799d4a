//! Issue 36: the overlay (our `VK_ANDROID_native_buffer` description) may not reuse numbers
//! vk.xml has given out. An `sType` equal to another structure's, or an extension number that
//! is another extension's, is a located error in the overlay naming the vk.xml definition.

use std::path::Path;

/// A small registry that generates (fixtures/harden.xml).
const BASE: &str = include_str!("fixtures/harden.xml");
const OVERLAY_PATH: &str = "android_native_buffer.xml";

fn load(vk_xml: &str, overlay: &str) -> Result<vkgen::registry::Loaded, vkgen::Error> {
    vkgen::load_bytes(
        vk_xml.as_bytes(),
        Path::new("vk.xml"),
        Some((overlay.as_bytes(), Path::new(OVERLAY_PATH))),
    )
}

fn line_of(text: &str, needle: &str) -> usize {
    text[..text.find(needle).expect("needle in text")]
        .matches('\n')
        .count()
        + 1
}

#[track_caller]
fn assert_overlay_error(
    r: Result<vkgen::registry::Loaded, vkgen::Error>,
    line: usize,
    needle: &str,
) {
    let e = r.expect_err("a colliding overlay value is refused");
    let msg = e.to_string();
    assert_eq!(e.exit_code(), 2, "{msg}");
    assert!(
        msg.starts_with(&format!("{OVERLAY_PATH}:{line}:")),
        "located in the overlay at line {line}: {msg}"
    );
    assert!(msg.contains(needle), "`{needle}` not in {msg}");
}

#[test]
fn the_builtin_overlay_collides_with_nothing() {
    load(BASE, vkgen::BUILTIN_ANDROID_EXT).unwrap();
}

#[test]
fn an_overlay_stype_equal_to_another_structures_is_refused() {
    let old = r#"<enum offset="0" extends="VkStructureType" name="VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID"/>"#;
    assert!(vkgen::BUILTIN_ANDROID_EXT.contains(old));
    let overlay = vkgen::BUILTIN_ANDROID_EXT.replace(
        old,
        r#"<enum value="0" extends="VkStructureType" name="VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID"/>"#,
    );
    let line = line_of(
        &overlay,
        "name=\"VK_STRUCTURE_TYPE_NATIVE_BUFFER_ANDROID\"/>",
    );
    assert_overlay_error(
        load(BASE, &overlay),
        line,
        &format!(
            "value 0 of `VK_STRUCTURE_TYPE_APPLICATION_INFO`, at vk.xml:{}:",
            line_of(BASE, "VK_STRUCTURE_TYPE_APPLICATION_INFO")
        ),
    );
}

#[test]
fn an_overlay_extension_number_of_another_extension_is_refused() {
    let at = BASE.find("</registry>").unwrap();
    let vk_xml = format!(
        "{}<extensions>\n<extension name=\"VK_EXT_eleven\" number=\"11\" type=\"device\" supported=\"vulkan\"><require/></extension>\n</extensions>\n{}",
        &BASE[..at],
        &BASE[at..]
    );
    let overlay = vkgen::BUILTIN_ANDROID_EXT;
    let line = line_of(overlay, "<extension name=\"VK_ANDROID_native_buffer\"");
    assert_overlay_error(
        load(&vk_xml, overlay),
        line,
        "extension number 11 of VK_ANDROID_native_buffer is already VK_EXT_eleven's, at vk.xml:",
    );
}
