//! Issue 36 item 9: generation that exits 0 with a crate that does not compile. Each mutation of
//! a small registry (the float-controls fixture) found by the fuzzer's classes — a structure the
//! generated runtime code names (`vk::PhysicalDeviceFeatures2<'_>`, …) re-emitted because its
//! layout differs from ash's, a registry without `vkGetInstanceProcAddr` /
//! `vkGetDeviceProcAddr` — must give either a located error (`vk.xml:LINE:COL: …`) or a crate
//! that `cargo check` accepts: parsing the output as Rust (what the fuzz target does) is not
//! enough. The crates are checked in the matrix test's target dir, so ash builds once.

mod common;

use std::path::Path;
use std::process::Command;

const BASE: &str = include_str!("fixtures/float-controls-old.xml");

/// What generating a mutated registry must give.
enum Want {
    /// A located error whose message contains this.
    Error(&'static str),
    /// A crate that compiles.
    Compiles,
}

fn generate(text: &str) -> vkgen::Result<vkgen::Generated> {
    let loaded = vkgen::load_bytes(text.as_bytes(), Path::new("vk.xml"), None)?;
    let source = vkgen::registry::Source {
        path: "vk.xml".into(),
        how: "test",
    };
    vkgen::generate_loaded(loaded, source, &vkgen::Options::default())
}

/// `cargo check` of `g` in a temp dir: the compiler's errors when it fails.
fn check(g: &vkgen::Generated) -> Result<(), String> {
    let tmp = tempfile::tempdir().unwrap();
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
    if out.status.success() {
        Ok(())
    } else {
        Err(String::from_utf8_lossy(&out.stderr).into_owned())
    }
}

/// A structure definition added to the fixture's types, and required by Vulkan 1.0.
fn with_type(text: &str, name: &str, def: &str) -> String {
    text.replace("  </types>", &format!("    {def}\n  </types>"))
        .replace(
            "<require><type name=\"VkBool32\"/>",
            &format!("<require><type name=\"VkBool32\"/><type name=\"{name}\"/>"),
        )
}

/// The fixture without command `name`: neither defined nor required.
fn without_command(text: &str, def: &str, name: &str) -> String {
    text.replace(def, "")
        .replace(&format!("<command name=\"{name}\"/>"), "")
}

fn mutations() -> Vec<(&'static str, String, Want)> {
    let gipa = "<command><proto><type>PFN_vkVoidFunction</type> <name>vkGetInstanceProcAddr</name></proto><param optional=\"true\"><type>VkInstance</type> <name>instance</name></param><param len=\"null-terminated\">const <type>char</type>* <name>pName</name></param></command>";
    let gdpa = "<command><proto><type>PFN_vkVoidFunction</type> <name>vkGetDeviceProcAddr</name></proto><param><type>VkDevice</type> <name>device</name></param><param len=\"null-terminated\">const <type>char</type>* <name>pName</name></param></command>";
    let features2 = "<type category=\"struct\" name=\"VkPhysicalDeviceFeatures2\"><member values=\"VK_STRUCTURE_TYPE_APPLICATION_INFO\"><type>VkStructureType</type> <name>sType</name></member><member><type>void</type>* <name>pNext</name></member><member><type>VkBool32</type> <name>features</name></member></type>";
    let base_out = "<type category=\"struct\" name=\"VkBaseOutStructure\"><member><type>VkStructureType</type> <name>sType</name></member><member><type>void</type>* <name>pNext</name></member><member><type>uint32_t</type> <name>extra</name></member></type>";
    let no_gipa = |text: &str| without_command(text, gipa, "vkGetInstanceProcAddr");
    let no_gdpa = |text: &str| without_command(text, gdpa, "vkGetDeviceProcAddr");
    assert!(BASE.contains(gipa) && BASE.contains(gdpa));
    vec![
        ("the fixture itself", BASE.to_owned(), Want::Compiles),
        (
            "VkPhysicalDeviceFeatures2 of another layout",
            with_type(BASE, "VkPhysicalDeviceFeatures2", features2),
            Want::Error("VkPhysicalDeviceFeatures2"),
        ),
        (
            "VkBaseOutStructure of another layout",
            with_type(BASE, "VkBaseOutStructure", base_out),
            Want::Error("VkBaseOutStructure"),
        ),
        (
            "no vkGetInstanceProcAddr",
            no_gipa(BASE),
            Want::Error("vkGetInstanceProcAddr"),
        ),
        (
            "no vkGetDeviceProcAddr",
            no_gdpa(BASE),
            Want::Error("vkGetDeviceProcAddr"),
        ),
        (
            "neither",
            no_gdpa(&no_gipa(BASE)),
            Want::Error("vkGetInstanceProcAddr"),
        ),
        (
            "vkGetDeviceProcAddr defined but required by no feature",
            BASE.replace("<command name=\"vkGetDeviceProcAddr\"/>", ""),
            Want::Error("vkGetDeviceProcAddr"),
        ),
    ]
}

#[test]
fn mutated_registries_give_located_errors_or_crates_that_compile() {
    let mut failures = Vec::new();
    for (what, text, want) in mutations() {
        let got = generate(&text);
        match (want, got) {
            (Want::Compiles, Ok(g)) => {
                if let Err(e) = check(&g) {
                    failures.push(format!("{what}: generated, but does not compile:\n{e}"));
                }
            }
            (Want::Compiles, Err(e)) => failures.push(format!("{what}: refused: {e}")),
            (Want::Error(name), Err(e)) => {
                let msg = e.to_string();
                let located = msg
                    .strip_prefix("vk.xml:")
                    .and_then(|r| r.split_once(':'))
                    .is_some_and(|(line, _)| line.parse::<u32>().is_ok_and(|l| l > 0));
                if !located || !msg.contains(name) {
                    failures.push(format!("{what}: not a located error naming {name}: {msg}"));
                }
            }
            (Want::Error(name), Ok(g)) => {
                let compiled = check(&g).err().unwrap_or_else(|| "it compiles".into());
                failures.push(format!(
                    "{what}: generated without an error naming {name}; cargo check: {compiled}"
                ));
            }
        }
    }
    assert!(failures.is_empty(), "{}", failures.join("\n\n"));
}
