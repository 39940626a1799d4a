//! parse → overlay → select → every emitter (plus vkjson's structure layouts and `vkgen diff`),
//! on arbitrary bytes.
//!
//! The input is vk.xml; if it contains `<!--vkgen-overlay-->`, the bytes after it are the Android
//! overlay (else the built-in one is used). Findings: any panic, any error that is not a located
//! input error (`FILE:LINE:COL`, exit code 2), and any generated `.rs` file that is not Rust.

#![no_main]

use std::path::Path;

use libfuzzer_sys::fuzz_target;

const MARKER: &[u8] = b"<!--vkgen-overlay-->";

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
    // vkjson's structure layouts (huge arrays must be errors) and `vkgen diff` on the same input.
    let reg = &loaded.registry;
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
        }
        Err(e) => {
            let msg = e.to_string();
            // A registry without a usable version is an option error; anything else is a bug.
            assert!(
                matches!(e, vkgen::Error::Options(_)),
                "generation failed after a successful load: {msg}"
            );
        }
    }
});
