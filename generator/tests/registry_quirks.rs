//! Issue 36: what Khronos published must generate. Each quirk of a tagged Vulkan-Headers
//! registry gets a test built from a minimal registry shaped like the real file: accepted with a
//! located warning when nothing of it reaches the output, still refused when it would.

use std::path::Path;

/// A small registry that generates (fixtures/harden.xml).
const BASE: &str = include_str!("fixtures/harden.xml");

fn load(text: &str) -> Result<vkgen::registry::Loaded, vkgen::Error> {
    vkgen::load_bytes(text.as_bytes(), Path::new("vk.xml"), None)
}

/// `BASE` with `<extensions>` holding `xml`, before `</registry>`.
fn with_extensions(xml: &str) -> String {
    let at = BASE.find("</registry>").expect("anchor in BASE");
    format!(
        "{}<extensions>\n{xml}</extensions>\n{}",
        &BASE[..at],
        &BASE[at..]
    )
}

fn line_of(text: &str, needle: &str) -> u32 {
    let at = text.find(needle).expect("needle in text");
    text[..at].matches('\n').count() as u32 + 1
}

/// Vulkan-Headers v1.2.154 to v1.2.190 (and their SDK tags), lines as published:
/// `VK_EXT_extension_357` is reserved (`supported="disabled"`) and names both of its enumerants
/// `VK_EXT_EXTENSION_357`, a `0` and a string. v1.2.170 does the same for 359, 360 and 361.
const EXT_357: &str = r#"<extension name="VK_EXT_extension_357" number="357" author="EXT" contact="Courtney Goeltzenleuchter @courtney-g" supported="disabled" specialuse="glemulation">
            <require>
                <enum value="0"                                             name="VK_EXT_EXTENSION_357"/>
                <enum value="&quot;VK_EXT_extension_357&quot;"              name="VK_EXT_EXTENSION_357"/>
            </require>
        </extension>
"#;

#[test]
fn disabled_extension_with_one_name_twice_generates_with_a_located_warning() {
    let text = with_extensions(EXT_357);
    let loaded = load(&text).expect("Khronos' published registry must load");
    let second = line_of(&text, "&quot;VK_EXT_extension_357&quot;");
    let first = line_of(&text, "value=\"0\"                    ");
    let w: Vec<_> = loaded
        .warnings
        .iter()
        .filter(|w| w.contains("VK_EXT_EXTENSION_357"))
        .collect();
    assert_eq!(w.len(), 1, "{:?}", loaded.warnings);
    assert!(
        w[0].starts_with(&format!("vk.xml:{second}:17: ")),
        "located at the ignored second definition: {}",
        w[0]
    );
    assert!(w[0].contains(&format!("vk.xml:{first}:17")), "{}", w[0]);
    assert!(w[0].contains("not supported for Vulkan"), "{}", w[0]);
    // Nothing of the disabled extension is generated, as with Khronos' generators.
    let source = vkgen::registry::Source {
        path: "vk.xml".into(),
        how: "test",
    };
    let g = vkgen::generate_loaded(loaded, source, &vkgen::Options::default()).unwrap();
    for f in &g.files {
        assert!(!f.contents.contains("EXTENSION_357"), "{} names it", f.path);
    }
}

/// A disabled extension's value must not displace or veto an emitted one: the enabled
/// extension's definition is the one kept, whichever comes first.
#[test]
fn disabled_definition_yields_to_an_emitted_one_in_either_order() {
    let enabled = "<extension name=\"VK_EXT_a\" number=\"2\" type=\"device\" supported=\"vulkan\"><require><enum value=\"1\" name=\"VK_EXT_A_SPEC_VERSION\"/><enum offset=\"0\" extends=\"VkResult\" name=\"VK_HARDEN_X\"/></require></extension>\n";
    let disabled = "<extension name=\"VK_EXT_b\" number=\"3\" supported=\"disabled\"><require><enum value=\"9\" name=\"VK_EXT_A_SPEC_VERSION\"/><enum offset=\"5\" extnumber=\"2\" extends=\"VkResult\" name=\"VK_HARDEN_X\"/></require></extension>\n";
    for text in [
        with_extensions(&format!("{enabled}{disabled}")),
        with_extensions(&format!("{disabled}{enabled}")),
    ] {
        let loaded = load(&text).expect("a disabled extension's conflict is not an error");
        assert_eq!(loaded.warnings.len(), 2, "{:?}", loaded.warnings);
        let ignored = line_of(&text, "VK_EXT_b");
        for w in &loaded.warnings {
            assert!(w.starts_with(&format!("vk.xml:{ignored}:")), "{w}");
        }
        let result = &loaded.registry.enums["VkResult"];
        let x = result
            .values
            .iter()
            .find(|v| v.name == "VK_HARDEN_X")
            .unwrap();
        assert_eq!(x.extension.as_deref(), Some("VK_EXT_a"));
    }
}

/// The check stays for everything that reaches the output: two emitted extensions that disagree
/// are still a located error.
#[test]
fn conflicts_between_emitted_extensions_stay_errors() {
    let a = "<extension name=\"VK_EXT_a\" number=\"2\" type=\"device\" supported=\"vulkan\"><require><enum value=\"0\" name=\"VK_EXT_A_NAME\"/></require></extension>\n";
    let b = "<extension name=\"VK_EXT_b\" number=\"3\" type=\"device\" supported=\"vulkan\"><require><enum value=\"&quot;VK_EXT_a&quot;\" name=\"VK_EXT_A_NAME\"/></require></extension>\n";
    let text = with_extensions(&format!("{a}{b}"));
    let e = load(&text).expect_err("an emitted conflict is refused");
    let msg = e.to_string();
    assert_eq!(e.exit_code(), 2, "{msg}");
    let line = line_of(&text, "VK_EXT_b");
    assert!(msg.starts_with(&format!("vk.xml:{line}:")), "{msg}");
    assert!(msg.contains("defined again"), "{msg}");
}
