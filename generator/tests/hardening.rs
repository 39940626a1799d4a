//! Issue 11: hostile registries give a located error (`FILE:LINE:COL`, exit 2) or correct output,
//! never a panic, a wrong value or a partial `--out`. One regression test per item of the issue,
//! named after it, plus a structured-mutation property test over the same classes.

use std::path::Path;
use std::process::Command;

use proptest::prelude::*;

mod common;

/// A small registry that generates (fixtures/harden.xml): one bitmask with hex values ending in
/// F, one struct with a constant-length array, one command.
const BASE: &str = include_str!("fixtures/harden.xml");

fn load(text: &str) -> Result<vkgen::registry::Loaded, vkgen::Error> {
    vkgen::load_bytes(text.as_bytes(), Path::new("vk.xml"), None)
}

fn generate(text: &str) -> Result<vkgen::Generated, vkgen::Error> {
    let loaded = load(text)?;
    let source = vkgen::registry::Source {
        path: "vk.xml".into(),
        how: "test",
    };
    vkgen::generate_loaded(loaded, source, &vkgen::Options::default())
}

/// `(line, col)` when `msg` is `FILE:LINE:COL: …` for `file`.
fn location(msg: &str, file: &str) -> Option<(u32, u32)> {
    let rest = msg.strip_prefix(file)?.strip_prefix(':')?;
    let mut parts = rest.splitn(3, ':');
    let line = parts.next()?.parse().ok()?;
    let col = parts.next()?.parse().ok()?;
    Some((line, col))
}

/// The error is a located input error in `vk.xml` mentioning `needle`; returns its line.
#[track_caller]
fn assert_located(r: Result<impl std::fmt::Debug, vkgen::Error>, needle: &str) -> u32 {
    let e = r.expect_err("hostile input must be refused");
    let msg = e.to_string();
    assert_eq!(e.exit_code(), 2, "{msg}");
    let (line, col) = location(&msg, "vk.xml").unwrap_or_else(|| panic!("not located: {msg}"));
    assert!(line >= 1 && col >= 1, "{msg}");
    assert!(msg.contains(needle), "`{needle}` not in: {msg}");
    line
}

fn line_of(text: &str, needle: &str) -> u32 {
    let at = text.find(needle).expect("needle in text");
    text[..at].matches('\n').count() as u32 + 1
}

fn file<'a>(g: &'a vkgen::Generated, path: &str) -> &'a str {
    &g.files.iter().find(|f| f.path == path).unwrap().contents
}

/// Every generated Rust file parses.
fn assert_rust(g: &vkgen::Generated) {
    for f in g.files.iter().filter(|f| f.path.ends_with(".rs")) {
        syn::parse_file(&f.contents).unwrap_or_else(|e| panic!("{}: {e}", f.path));
    }
}

#[test]
fn base_registry_generates() {
    let g = generate(BASE).unwrap();
    assert_rust(&g);
    assert!(file(&g, "src/vk.rs").contains("pub arr: [u32; 4]"));
}

#[test]
fn hex_literals_ending_in_f_parse_exactly() {
    let g = generate(BASE).unwrap();
    let vk = file(&g, "src/vk.rs");
    assert!(
        vk.contains("pub const ALL: Self = Self(0x7fffffff);"),
        "{vk}"
    );
    assert!(vk.contains("pub const LOW: Self = Self(0x1f);"), "{vk}");
    let text = BASE.replace("0x0000001F", "0xFF");
    assert!(file(&generate(&text).unwrap(), "src/vk.rs").contains("Self(0xff)"));
}

/// The example: vk-1.4.359 writes `0x7FFFFFFF`, vkgen used to emit 0x7.
#[test]
fn hex_literals_ending_in_f_parse_exactly_in_vk_1_4_359() {
    let opts = vkgen::Options {
        registry: Some(common::registry("1.4.359")),
        ..Default::default()
    };
    let (loaded, _) = vkgen::load(&opts).unwrap();
    let g = &loaded.registry.enums["VkSpirvResourceTypeFlagBitsEXT"];
    let all = g
        .values
        .iter()
        .find(|v| v.name == "VK_SPIRV_RESOURCE_TYPE_ALL_EXT")
        .unwrap();
    assert_eq!(
        vkgen::registry::enum_value(g, &all.value, 0),
        Some(0x7fff_ffff)
    );
}

#[test]
fn c_integer_literals_parse_exactly() {
    use vkgen::registry::parse_c_int as p;
    assert_eq!(p("0x0000001F"), Some(0x1f));
    assert_eq!(p("0x7FFFFFFF"), Some(0x7fff_ffff));
    assert_eq!(p("0xFF"), Some(0xff));
    assert_eq!(p("0xff"), Some(0xff));
    assert_eq!(p("42"), Some(42));
    assert_eq!(p("-1"), Some(-1));
    assert_eq!(p("(~0U)"), Some(0xffff_ffff));
    assert_eq!(p("~0U"), Some(0xffff_ffff));
    assert_eq!(p("(~0ULL)"), Some(-1)); // u64::MAX as an i64 bit pattern
    assert_eq!(
        vkgen::registry::parse_c_literal("(~0ULL)").unwrap().value,
        u64::MAX as i128
    );
    assert_eq!(p("(~0U-1)"), Some(0xffff_fffe));
    assert_eq!(p("(~1U)"), Some(0xffff_fffe));
    assert_eq!(p("(~0)"), Some(-1));
    for (lit, v) in [
        ("1U", 1),
        ("1L", 1),
        ("1UL", 1),
        ("1ULL", 1),
        ("1u", 1),
        ("16ull", 16),
    ] {
        assert_eq!(p(lit), Some(v), "{lit}");
    }
    for bad in [
        "1000.0F", "1000.0f", "", "0x", "1F", "0xFFG", "1UUL", "\"text\"", "(1", "1)", "~", "--1",
    ] {
        assert_eq!(p(bad), None, "{bad}");
    }
    // A one-million-character value is refused at once, without recursion.
    assert_eq!(p(&"~".repeat(1_000_000)), None);
    assert_eq!(
        p(&format!("{}0{}", "(".repeat(500_000), ")".repeat(500_000))),
        None
    );
}

#[test]
fn unparsable_enum_value_is_a_located_error() {
    let text = BASE.replace("value=\"0x0000001F\"", "value=\"0x1G\"");
    let line = assert_located(load(&text), "bad integer literal");
    assert_eq!(line, line_of(&text, "0x1G"));
}

#[test]
fn enum_value_out_of_range_is_a_located_error() {
    let text = BASE.replace("0x7FFFFFFF", "0x1FFFFFFFF");
    assert_located(load(&text), "does not fit");
    let text = BASE.replace(
        "value=\"0\" name=\"VK_SUCCESS\"",
        "value=\"4294967295\" name=\"VK_SUCCESS\"",
    );
    assert_located(load(&text), "does not fit enum VkResult");
}

#[test]
fn undefined_array_length_is_a_located_error() {
    let text = BASE.replace("<enum>VK_HARDEN_SIZE</enum>", "<enum>VK_NOT_DEFINED</enum>");
    let line = assert_located(load(&text), "VK_NOT_DEFINED");
    assert_eq!(line, line_of(&text, "name=\"VkHardenThingEXT\""));
}

#[test]
fn oversized_array_length_is_a_located_error() {
    let text = BASE.replace("[<enum>VK_HARDEN_SIZE</enum>]", "[99999999999]");
    let line = assert_located(load(&text), "array length");
    assert_eq!(line, line_of(&text, "[99999999999]"));
    let text = BASE.replace(
        "value=\"4\" name=\"VK_HARDEN_SIZE\"",
        "value=\"(~0U)\" name=\"VK_HARDEN_SIZE\"",
    );
    assert_located(load(&text), "outside 1..=");
    let text = BASE.replace("[<enum>VK_HARDEN_SIZE</enum>]", "[0]");
    assert_located(load(&text), "array length 0");
    let text = BASE.replace(
        "value=\"4\" name=\"VK_HARDEN_SIZE\"",
        "value=\"1000.0F\" name=\"VK_HARDEN_SIZE\"",
    );
    assert_located(load(&text), "not an integer");
}

#[test]
fn required_command_in_alias_cycle_is_a_located_error() {
    let text = BASE.replace(
        "<commands>",
        "<commands>\n<command name=\"vkCycleA\" alias=\"vkCycleB\"/>\n<command name=\"vkCycleB\" alias=\"vkCycleA\"/>",
    )
    .replace("<command name=\"vkHardenThingEXT\"/>", "<command name=\"vkHardenThingEXT\"/><command name=\"vkCycleA\"/>");
    let line = assert_located(load(&text), "alias cycle");
    assert_eq!(line, line_of(&text, "<command name=\"vkCycleA\""));
}

#[test]
fn type_alias_cycle_is_detected_at_load() {
    let text = BASE.replace(
        "<type name=\"VkResult\" category=\"enum\"/>",
        "<type name=\"VkResult\" category=\"enum\"/>\n<type category=\"struct\" name=\"VkLoopA\" alias=\"VkLoopB\"/>\n<type category=\"struct\" name=\"VkLoopB\" alias=\"VkLoopA\"/>",
    )
    .replace("<member><type>uint32_t</type> <name>x</name></member>", "<member><type>VkLoopA</type> <name>x</name></member>");
    let line = assert_located(load(&text), "`VkLoopA`: alias cycle");
    assert_eq!(line, line_of(&text, "name=\"VkLoopA\""));
}

#[test]
fn constant_alias_cycle_used_as_array_length_is_detected_at_load() {
    let text = BASE.replace(
        "<enum type=\"uint32_t\" value=\"4\" name=\"VK_HARDEN_SIZE\"/>",
        "<enum name=\"VK_HARDEN_SIZE\" alias=\"VK_HARDEN_OTHER\"/><enum name=\"VK_HARDEN_OTHER\" alias=\"VK_HARDEN_SIZE\"/>",
    );
    assert_located(load(&text), "alias cycle");
}

#[test]
fn enum_value_alias_cycle_is_detected_at_load() {
    let text = BASE.replace(
        "<enum value=\"0x0000001F\" name=\"VK_HARDEN_LOW_EXT\"/>",
        "<enum alias=\"VK_HARDEN_B_EXT\" name=\"VK_HARDEN_A_EXT\"/><enum alias=\"VK_HARDEN_A_EXT\" name=\"VK_HARDEN_B_EXT\"/>",
    );
    assert_located(load(&text), "alias cycle");
}

#[test]
fn overlong_alias_chain_is_a_located_error() {
    let mut chain = String::new();
    for i in 0..20 {
        chain.push_str(&format!(
            "<type category=\"struct\" name=\"VkChain{i}\" alias=\"VkChain{}\"/>\n",
            i + 1
        ));
    }
    chain.push_str("<type category=\"struct\" name=\"VkChain20\"><member><type>uint32_t</type> <name>x</name></member></type>\n");
    let text = BASE.replace(
        "<type name=\"VkResult\" category=\"enum\"/>",
        &format!("<type name=\"VkResult\" category=\"enum\"/>\n{chain}"),
    );
    assert_located(load(&text), "alias chain longer than");
}

#[test]
fn offset_extnumber_overflow_is_a_located_error() {
    let ext = |attrs: &str| {
        BASE.replace(
            "</registry>",
            &format!(
                "<extensions><extension name=\"VK_EXT_harden\" number=\"7\" type=\"device\" supported=\"vulkan\"><require><enum {attrs} extends=\"VkResult\" name=\"VK_HARDEN_RESULT_EXT\"/></require></extension></extensions>\n</registry>"
            ),
        )
    };
    for attrs in [
        "offset=\"0\" extnumber=\"9223372036854775807\"",
        "offset=\"9223372036854775807\"",
        "offset=\"0\" extnumber=\"2000000\"",
        "offset=\"-1\"",
        "offset=\"0\" extnumber=\"0\"",
        "offset=\"1000\"",
    ] {
        let text = ext(attrs);
        let line = assert_located(load(&text), "");
        assert_eq!(line, line_of(&text, "VK_HARDEN_RESULT_EXT"), "{attrs}");
    }
    // The largest valid one is exact.
    let text = ext("offset=\"999\" extnumber=\"1147483\" dir=\"-\"");
    let l = load(&text).unwrap();
    let v = &l.registry.enums["VkResult"].values;
    assert_eq!(
        v.iter()
            .find(|v| v.name == "VK_HARDEN_RESULT_EXT")
            .unwrap()
            .value,
        vkgen::model::EnumVal::Value(-(1_000_000_000 + 1_147_482 * 1000 + 999))
    );
}

#[test]
fn non_numeric_extension_spec_version_is_a_located_error() {
    let text = BASE.replace(
        "</registry>",
        "<extensions><extension name=\"VK_EXT_harden\" number=\"7\" type=\"device\" supported=\"vulkan\"><require>\n<enum value=\"1.5\" name=\"VK_EXT_HARDEN_SPEC_VERSION\"/></require></extension></extensions>\n</registry>",
    );
    let line = assert_located(load(&text), "spec version `1.5`");
    assert_eq!(line, line_of(&text, "VK_EXT_HARDEN_SPEC_VERSION"));
}

#[test]
fn parameter_named_self_is_emitted_as_self_() {
    let text = BASE.replace("<name>pThing</name>", "<name>self</name>");
    let g = generate(&text).unwrap();
    assert_rust(&g);
    let all: String = g.files.iter().map(|f| f.contents.as_str()).collect();
    assert!(all.contains("self_"), "self_ not emitted");
    assert!(!all.contains("r#self"));
    let text = BASE.replace("<name>x</name>", "<name>self</name>");
    let g = generate(&text).unwrap();
    assert_rust(&g);
    assert!(file(&g, "src/vk.rs").contains("pub self_: u32"));
}

#[test]
fn non_identifier_names_are_located_errors() {
    for bad in [
        "Self", "crate", "super", "_", "p#Thing", "1abc", "a b", "self.x",
    ] {
        let text = BASE.replace("<name>pThing</name>", &format!("<name>{bad}</name>"));
        let r = load(&text);
        if bad.contains(' ') || bad.contains('.') {
            // Not one declaration any more: still a located error.
            assert!(r.is_err(), "{bad}");
            continue;
        }
        let line = assert_located(r, "");
        assert_eq!(
            line,
            line_of(&text, &format!("<name>{bad}</name>")),
            "{bad}"
        );
    }
    for bad in ["Self", "crate", "_"] {
        let text = BASE.replace("<name>x</name>", &format!("<name>{bad}</name>"));
        assert_located(load(&text), bad);
    }
    let text = BASE.replace("VkHardenThingEXT", "VkSelf");
    assert_located(load(&text), "VkSelf");
}

#[test]
fn command_name_with_hash_never_reaches_the_version_script() {
    let text = BASE.replace("vkHardenThingEXT", "vkHarden#ThingEXT");
    let line = assert_located(load(&text), "vkHarden#ThingEXT");
    assert_eq!(line, line_of(&text, "<proto>"));
    let text = BASE.replace("name=\"VK_HARDEN_LOW_EXT\"", "name=\"VK_HARDEN#LOW\"");
    assert_located(load(&text), "VK_HARDEN#LOW");
}

#[test]
fn bad_feature_numbers_are_located_errors() {
    for bad in [
        "1.5000", "200.1", "1", "1.x", "-1.0", "1.0.0", "128.0", "1.1024",
    ] {
        let text = BASE.replace("number=\"1.0\"", &format!("number=\"{bad}\""));
        let line = assert_located(load(&text), "bad feature number");
        assert_eq!(line, line_of(&text, "<feature"), "{bad}");
    }
    let text = BASE.replace("number=\"1.0\"", "number=\"127.1023\"");
    let g = generate(&text).unwrap();
    assert!(file(&g, "src/lib.rs").contains(&format!(
        "API_VERSION: u32 = {}",
        (127u32 << 22) | (1023 << 12)
    )));
}

#[test]
fn deep_depends_nesting_does_not_overflow_the_stack() {
    let deep = format!(
        "{}VK_VERSION_1_0{}",
        "(".repeat(100_000),
        ")".repeat(100_000)
    );
    let text = BASE.replace(
        "<require><type",
        &format!("<require depends=\"{deep}\"><type"),
    );
    run_on_big_stackless_thread(move || assert!(generate(&text).is_ok()));
}

#[test]
fn long_depends_operand_lists_do_not_overflow_the_stack() {
    let long = vec!["VK_VERSION_1_0"; 300_000].join("+");
    let text = BASE.replace(
        "<require><type",
        &format!("<require depends=\"{long}\"><type"),
    );
    run_on_big_stackless_thread(move || assert!(generate(&text).is_ok()));
    let unbalanced = format!("{}VK_VERSION_1_0", "(".repeat(100_000));
    let text = BASE.replace(
        "<require><type",
        &format!("<require depends=\"{unbalanced}\"><type"),
    );
    run_on_big_stackless_thread(move || {
        assert_located(load(&text), "missing `)`");
    });
}

#[test]
fn million_character_value_is_a_located_error() {
    let huge = "~".repeat(1_000_000) + "0";
    let text = BASE.replace("value=\"0x7FFFFFFF\"", &format!("value=\"{huge}\""));
    run_on_big_stackless_thread(move || {
        assert_located(load(&text), "bad integer literal");
    });
}

/// Runs `f` on a thread with a small (256 KiB) stack: recursion proportional to the input would
/// overflow it at once.
fn run_on_big_stackless_thread(f: impl FnOnce() + Send + 'static) {
    std::thread::Builder::new()
        .stack_size(256 << 10)
        .spawn(f)
        .unwrap()
        .join()
        .unwrap();
}

#[test]
fn vkjson_huge_array_member_is_an_error_not_a_panic() {
    for (len, size) in [("99999", "65536"), ("65536", "65536")] {
        let text = BASE
            .replace(
                "value=\"4\" name=\"VK_HARDEN_SIZE\"",
                &format!("value=\"{size}\" name=\"VK_HARDEN_SIZE\""),
            )
            .replace(
                "<member><type>uint32_t</type> <name>x</name></member>",
                &format!(
                    "<member><type>uint32_t</type> <name>x</name>[{}][{len}]</member>",
                    if len == "99999" { "1" } else { "65536" }
                ),
            );
        match load(&text) {
            Err(e) => assert_located(Err::<(), _>(e), "array length"),
            Ok(l) => {
                let e = vkgen::device::layout::layout(&l.registry, "VkHardenThingEXT").unwrap_err();
                assert!(e.to_string().contains("larger than"), "{e}");
                0
            }
        };
    }
}

#[test]
fn out_holds_the_old_tree_or_the_new_tree_after_a_write_error() {
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("gen");
    let g = generate(BASE).unwrap();
    vkgen::write(&g.files, &out).unwrap();
    std::fs::write(out.join("KEEP.md"), "not generated").unwrap();
    let old: Vec<(String, String)> = snapshot(&out);
    // A new set whose last file cannot be written (its parent is an existing file).
    let mut files = g.files.clone();
    files[0].contents.push_str("// changed\n");
    files.push(vkgen::OutputFile {
        path: "KEEP.md/impossible.rs".into(),
        contents: "x".into(),
    });
    assert!(vkgen::write(&files, &out).is_err());
    assert_eq!(snapshot(&out), old, "a failed write changed --out");
    // No staging directory is left behind.
    let left: Vec<_> = std::fs::read_dir(dir.path())
        .unwrap()
        .map(|e| e.unwrap().file_name())
        .collect();
    assert_eq!(left, vec![std::ffi::OsString::from("gen")]);
    // A successful write replaces the whole tree and keeps files it does not generate.
    files.pop();
    vkgen::write(&files, &out).unwrap();
    let new = snapshot(&out);
    assert!(new
        .iter()
        .any(|(p, c)| p == &files[0].path && c.ends_with("// changed\n")));
    assert!(new.iter().any(|(p, _)| p == "KEEP.md"));
    // A symlinked --out keeps being a symlink; the tree it points at is replaced.
    let link = dir.path().join("link");
    std::os::unix::fs::symlink(&out, &link).unwrap();
    files[0].contents.push_str("// again\n");
    vkgen::write(&files, &link).unwrap();
    assert!(link.is_symlink());
    assert!(std::fs::read_to_string(out.join(&files[0].path))
        .unwrap()
        .ends_with("// again\n"));
    std::fs::remove_file(&link).unwrap();
    // Paths out of --out are refused before anything is written.
    let evil = vec![vkgen::OutputFile {
        path: "../evil".into(),
        contents: String::new(),
    }];
    assert!(vkgen::write(&evil, &out).is_err());
    assert!(!dir.path().join("evil").exists());
}

fn snapshot(dir: &Path) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut todo = vec![dir.to_owned()];
    while let Some(d) = todo.pop() {
        for e in std::fs::read_dir(&d).unwrap() {
            let p = e.unwrap().path();
            if p.is_dir() {
                todo.push(p);
            } else {
                let rel = p.strip_prefix(dir).unwrap().display().to_string();
                out.push((rel, std::fs::read_to_string(&p).unwrap()));
            }
        }
    }
    out.sort();
    out
}

#[test]
fn cli_generate_writes_nothing_on_error() {
    let dir = tempfile::tempdir().unwrap();
    let reg = dir.path().join("vk.xml");
    std::fs::write(&reg, BASE.replace("0x7FFFFFFF", "0xZZ")).unwrap();
    let out = dir.path().join("out");
    let o = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["generate", "--registry"])
        .arg(&reg)
        .arg("--out")
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(stderr.contains(&format!("{}:", reg.display())), "{stderr}");
    assert!(!out.exists());
}

#[test]
fn overlay_errors_name_the_overlay_file_with_line() {
    let overlay = "<registry>\n<types>\n<type category=\"struct\" name=\"VkOverlayThing\">\n<member><type>VkMissing</type> <name>x</name></member>\n</type>\n</types>\n</registry>\n";
    let e = vkgen::load_bytes(
        BASE.as_bytes(),
        Path::new("vk.xml"),
        Some((overlay.as_bytes(), Path::new("over.xml"))),
    )
    .unwrap_err()
    .to_string();
    assert_eq!(location(&e, "over.xml"), Some((3, 1)), "{e}");
    // Through the CLI with --android-ext.
    let dir = tempfile::tempdir().unwrap();
    let (reg, over) = (dir.path().join("vk.xml"), dir.path().join("over.xml"));
    std::fs::write(&reg, BASE).unwrap();
    std::fs::write(&over, overlay).unwrap();
    let o = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["info", "--registry"])
        .arg(&reg)
        .arg("--android-ext")
        .arg(&over)
        .output()
        .unwrap();
    assert_eq!(o.status.code(), Some(2));
    let stderr = String::from_utf8_lossy(&o.stderr);
    assert!(
        stderr.contains(&format!("{}:3:1:", over.display())),
        "{stderr}"
    );
    // The built-in overlay is reported against its repository path.
    let e = vkgen::load_bytes(b"<registry/>", Path::new("vk.xml"), None)
        .unwrap_err()
        .to_string();
    assert!(e.starts_with(vkgen::BUILTIN_ANDROID_EXT_PATH), "{e}");
}

#[test]
fn non_utf8_input_reports_line_col() {
    let mut bytes = BASE.as_bytes().to_vec();
    let at = BASE.find("VK_HARDEN_ALL_EXT").unwrap();
    bytes[at] = 0xff;
    let e = vkgen::load_bytes(&bytes, Path::new("vk.xml"), None).unwrap_err();
    let line = line_of(BASE, "VK_HARDEN_ALL_EXT");
    let col = BASE[..at].rsplit('\n').next().unwrap().chars().count() as u32 + 1;
    assert_eq!(location(&e.to_string(), "vk.xml"), Some((line, col)), "{e}");
    assert_eq!(e.exit_code(), 2);
    let e = vkgen::load_bytes(
        BASE.as_bytes(),
        Path::new("vk.xml"),
        Some((b"\n\xc3(", Path::new("o.xml"))),
    )
    .unwrap_err();
    assert_eq!(location(&e.to_string(), "o.xml"), Some((2, 1)), "{e}");
}

#[test]
fn driver_name_1abc_is_refused() {
    for bad in ["1abc", "-x", "_x", "a.b", "", "self", "test", "crate"] {
        assert!(vkgen::scaffold::check_name(bad).is_err(), "{bad}");
    }
    for good in ["acme", "acme-2", "Acme_gpu"] {
        vkgen::scaffold::check_name(good).unwrap();
    }
    let dir = tempfile::tempdir().unwrap();
    let out = dir.path().join("d");
    let o = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(["driver", "--name", "1abc", "--out"])
        .arg(&out)
        .output()
        .unwrap();
    assert_eq!(
        o.status.code(),
        Some(2),
        "{}",
        String::from_utf8_lossy(&o.stderr)
    );
    assert!(!out.exists());
}

/// The mutation classes of issue 11, applied to the base registry.
fn mutations() -> impl Strategy<Value = (String, &'static str)> {
    let literal = prop::sample::select(vec![
        "0x0000001F",
        "0xFF",
        "0x7FFFFFFF",
        "(~0U)",
        "(~0ULL)",
        "(~0U-1)",
        "1U",
        "1L",
        "1UL",
        "1ULL",
        "99999999999",
        "0x1FFFFFFFF",
        "-1",
        "1000.0F",
        "",
        "0x",
        "~",
        "(((1)))",
        "18446744073709551615",
    ]);
    let name = prop::sample::select(vec![
        "self", "Self", "crate", "super", "_", "a#b", "1abc", "type", "ref", "async", "r#x", "ok",
    ]);
    let length = prop::sample::select(vec![
        "[99999999999]",
        "[0]",
        "[65536]",
        "[<enum>VK_UNDEFINED</enum>]",
        "[<enum>VK_HARDEN_SIZE</enum>][65536]",
        "[3]",
    ]);
    let number = prop::sample::select(vec![
        "1.5000", "200.1", "1.0", "1.1", "127.1023", "0.0", "x",
    ]);
    let ext_number = prop::sample::select(vec![
        "0",
        "1",
        "2147483647",
        "9223372036854775807",
        "-5",
        "99",
    ]);
    let offset = prop::sample::select(vec!["0", "999", "1000", "-1", "9223372036854775807"]);
    (
        literal,
        name,
        length,
        number,
        ext_number,
        offset,
        0usize..4,
        0usize..2000,
        proptest::bool::ANY,
    )
        .prop_map(|(lit, nm, len, num, extn, off, cycle, depth, wide)| {
            let mut t = BASE
                .replace("0x7FFFFFFF", lit)
                .replace("<name>pThing</name>", &format!("<name>{nm}</name>"))
                .replace("[<enum>VK_HARDEN_SIZE</enum>]", len)
                .replace("number=\"1.0\"", &format!("number=\"{num}\""));
            let cycle_xml = match cycle {
                1 => "<type category=\"struct\" name=\"VkHardenThingEXT2\" alias=\"VkHardenThingEXT2\"/>",
                2 => "<type category=\"struct\" name=\"VkA\" alias=\"VkB\"/><type category=\"struct\" name=\"VkB\" alias=\"VkA\"/>",
                _ => "",
            };
            t = t.replace("<type name=\"VkResult\" category=\"enum\"/>", &format!("<type name=\"VkResult\" category=\"enum\"/>{cycle_xml}"));
            if cycle == 3 {
                t = t.replace("<enum type=\"uint32_t\" value=\"4\" name=\"VK_HARDEN_SIZE\"/>", "<enum name=\"VK_HARDEN_SIZE\" alias=\"VK_HARDEN_SIZE\"/>");
            }
            let depends = if wide {
                vec!["VK_VERSION_1_0"; depth.max(1)].join(",")
            } else {
                format!("{}VK_VERSION_1_0{}", "(".repeat(depth), ")".repeat(depth))
            };
            let t = t.replace(
                "</registry>",
                &format!(
                    "<extensions><extension name=\"VK_EXT_harden\" number=\"{extn}\" type=\"device\" supported=\"vulkan\" depends=\"{depends}\"><require><enum offset=\"{off}\" extends=\"VkResult\" name=\"VK_HARDEN_RESULT_EXT\"/></require></extension></extensions></registry>"
                ),
            );
            (t, lit)
        })
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 96, ..ProptestConfig::default() })]

    /// Every mutation gives a located error (and `--out` untouched) or Rust that parses with the
    /// literal's exact value; never a panic.
    #[test]
    fn structured_mutations_give_a_located_error_or_correct_output((text, lit) in mutations()) {
        let dir = tempfile::tempdir().unwrap();
        let out = dir.path().join("out");
        std::fs::create_dir(&out).unwrap();
        std::fs::write(out.join("OLD"), "old tree").unwrap();
        let r = std::panic::catch_unwind(|| generate(&text));
        let r = r.unwrap_or_else(|_| panic!("panicked on:\n{text}"));
        match r {
            Ok(g) => {
                assert_rust(&g);
                let vk = file(&g, "src/vk.rs");
                // The mutated literal was accepted: it must be emitted with its exact value.
                let v = vkgen::registry::parse_c_literal(lit).expect("accepted literal parses").value;
                prop_assert!(v >= i128::from(i32::MIN) && v <= i128::from(u32::MAX), "{} accepted for 32-bit flags", lit);
                // Negative `int` values are their two's-complement bit pattern.
                let want = format!("pub const ALL: Self = Self({:#x});", v as i64 as u32);
                prop_assert!(vk.contains(&want), "{} → {}", lit, vk);
                vkgen::write(&g.files, &out).unwrap();
                prop_assert!(out.join("src/vk.rs").exists() && out.join("OLD").exists());
            }
            Err(e) => {
                let msg = e.to_string();
                prop_assert_eq!(e.exit_code(), 2, "{}", msg);
                prop_assert!(location(&msg, "vk.xml").is_some(), "not located: {}", msg);
                prop_assert_eq!(snapshot(&out), vec![("OLD".to_owned(), "old tree".to_owned())]);
            }
        }
    }
}
