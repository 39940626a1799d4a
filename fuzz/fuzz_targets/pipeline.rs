//! parse → overlay → select → every emitter (plus vkjson's structure layouts and `vkgen diff`),
//! on arbitrary bytes.
//!
//! The input is vk.xml; if it contains `<!--vkgen-overlay-->`, the bytes after it are the Android
//! overlay (else the built-in one is used). Findings: any panic, any error that is not a located
//! input error (`FILE:LINE:COL`, exit code 2), any generated `.rs` file that is not Rust, and an
//! overlay that changed a vk.xml definition VK_ANDROID_native_buffer does not require (issue 25).
//!
//! Parsing is not compiling (issue 36 item 9: crates that parsed but failed with E0107 and
//! E0599). Compiling every input would stop the fuzzer, so with `VKGEN_FUZZ_SAMPLE=<dir>` one
//! generated crate in [`SAMPLE_EVERY`] (picked by the input's hash, so reruns agree), at most
//! [`SAMPLE_MAX`], is written there; `scripts/fuzz-compile-sample <dir>` (which `scripts/fuzz`
//! runs after the fuzzer when the variable is set) runs `cargo check` on each.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

const MARKER: &[u8] = b"<!--vkgen-overlay-->";

/// One generated crate in this many is kept for compiling (`VKGEN_FUZZ_SAMPLE`).
const SAMPLE_EVERY: u64 = 32;
/// At most this many crates are kept.
const SAMPLE_MAX: usize = 200;

/// Writes `g` under `$VKGEN_FUZZ_SAMPLE/<hash of data>/` when the input is one of the sample.
fn keep_sample(data: &[u8], g: &vkgen::Generated) {
    use std::hash::{Hash, Hasher};
    let Some(dir) = std::env::var_os("VKGEN_FUZZ_SAMPLE") else {
        return;
    };
    let mut h = std::collections::hash_map::DefaultHasher::new();
    data.hash(&mut h);
    let hash = h.finish();
    if hash % SAMPLE_EVERY != 0 {
        return;
    }
    let dir = Path::new(&dir);
    let kept = std::fs::read_dir(dir).map_or(0, |d| d.count());
    if kept < SAMPLE_MAX {
        let _ = vkgen::write(&g.files, &dir.join(format!("{hash:016x}")));
    }
}

fn located(msg: &str, files: &[&str]) -> bool {
    files.iter().any(|f| {
        msg.strip_prefix(f)
            .and_then(|r| r.strip_prefix(':'))
            .and_then(|r| r.split_once(':'))
            .and_then(|(line, rest)| {
                let (col, _) = rest.split_once(':')?;
                Some(line.parse::<u32>().is_ok() && col.parse::<u32>().is_ok())
            })
            .unwrap_or(false)
    })
}

/// Issue 25's overlay class: after a successful load, every type and command of vk.xml that
/// VK_ANDROID_native_buffer does not require is vk.xml's own definition (an opaque platform type
/// may become external), whatever the overlay said. Duplicates within vk.xml are covered by the
/// load itself: a second, different definition must be a located error, never a silent winner.
fn overlay_stays_within_its_extension(vk: &[u8], reg: &vkgen::model::Registry) {
    use vkgen::model::TypeKind;
    let Ok(text) = vkgen::registry::decode(vk, Path::new("vk.xml")) else {
        return;
    };
    let Ok(base) = vkgen::registry::parse_str(text, Path::new("vk.xml"), &mut Vec::new()) else {
        return;
    };
    let mut required = std::collections::HashSet::new();
    if let Some(x) = reg.extension(vkgen::registry::OVERLAY_EXTENSION) {
        for r in &x.requires {
            required.extend(r.types.iter().cloned());
            required.extend(r.commands.iter().cloned());
        }
    }
    for (name, t) in base.types.iter().filter(|(n, _)| !required.contains(*n)) {
        let Some(m) = reg.types.get(name) else { continue };
        let same = m.alias == t.alias && m.kind == t.kind && m.requires == t.requires;
        let opaque = matches!(
            t.kind,
            TypeKind::External
                | TypeKind::Define
                | TypeKind::Basetype {
                    underlying: None,
                    pointer: false
                }
        ) && m.kind == TypeKind::External;
        assert!(same || opaque, "the overlay replaced type {name}");
    }
    for (name, c) in base.commands.iter().filter(|(n, _)| !required.contains(*n)) {
        if let Some(m) = reg.commands.get(name) {
            assert!(
                m.params == c.params && m.ret == c.ret && m.alias == c.alias,
                "the overlay replaced command {name}"
            );
        }
    }
}

fuzz_target!(|data: &[u8]| {
    let (vk, over) = match data.windows(MARKER.len()).position(|w| w == MARKER) {
        Some(i) => (&data[..i], Some(&data[i + MARKER.len()..])),
        None => (data, None),
    };
    let over = over.map(|o| (o, Path::new("overlay.xml")));
    let files = ["vk.xml", "overlay.xml", vkgen::BUILTIN_ANDROID_EXT_PATH];
    let loaded = match vkgen::load_bytes(vk, Path::new("vk.xml"), over) {
        Ok(l) => l,
        Err(e) => {
            let msg = e.to_string();
            assert_eq!(e.exit_code(), 2, "{msg}");
            assert!(located(&msg, &files), "unlocated error: {msg}");
            return;
        }
    };
    let reg = &loaded.registry;
    overlay_stays_within_its_extension(vk, reg);
    // vkjson's structure layouts (huge arrays must be errors) and `vkgen diff` on the same input.
    let structs = reg
        .types
        .values()
        .filter(|t| {
            matches!(
                t.kind,
                vkgen::model::TypeKind::Struct(_) | vkgen::model::TypeKind::Union(_)
            )
        })
        .take(256);
    for t in structs {
        if let Ok(l) = vkgen::device::layout::layout(reg, &t.name) {
            assert!(
                l.size <= vkgen::device::layout::MAX_LAYOUT_SIZE,
                "{}",
                t.name
            );
        }
    }
    let _ = vkgen::diff::diff(reg, "a.xml", reg, "b.xml");
    let source = vkgen::registry::Source {
        path: "vk.xml".into(),
        how: "fuzz",
    };
    match vkgen::generate_loaded(loaded, source, &vkgen::Options::default()) {
        Ok(g) => {
            for f in g.files.iter().filter(|f| f.path.ends_with(".rs")) {
                if let Err(e) = syn::parse_file(&f.contents) {
                    panic!("generated {} is not Rust: {e}", f.path);
                }
            }
            keep_sample(data, &g);
        }
        Err(e) => {
            let msg = e.to_string();
            // A registry without a usable version is an option error, a lookup table over its
            // limit a limit error, one the fixed runtime cannot be generated against (a
            // structure of ash's form redefined, no resolvers) a located refusal; anything
            // else is a bug.
            assert!(
                matches!(
                    e,
                    vkgen::Error::Options(_)
                        | vkgen::Error::Limit(_)
                        | vkgen::Error::Unsupported { .. }
                ),
                "generation failed after a successful load: {msg}"
            );
        }
    }
});
