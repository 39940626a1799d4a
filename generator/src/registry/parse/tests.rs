//! The registry cut into pieces (`pieces.rs`) reads into the same model, the same warnings and
//! the same errors, at the same positions, as the one-document parse.

use std::path::{Path, PathBuf};

use super::parse_in;

/// The registry matrix: `$VKGEN_REGISTRY_DIR`, else `../shared/registry` beside the checkout.
fn matrix() -> Vec<PathBuf> {
    let dir = std::env::var_os("VKGEN_REGISTRY_DIR").map_or_else(
        || Path::new(env!("CARGO_MANIFEST_DIR")).join("../../shared/registry"),
        PathBuf::from,
    );
    let mut files: Vec<_> = std::fs::read_dir(&dir)
        .unwrap_or_else(|e| panic!("REGISTRY MATRIX MISSING: {}: {e}", dir.display()))
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|x| x == "xml"))
        .collect();
    files.sort();
    assert!(files.len() >= 5, "{files:?}");
    files
}

/// `text` parsed in `pieces` pieces: the model (as its `Debug` text) or the error, and warnings.
fn outcome(text: &str, pieces: usize) -> (String, Vec<String>) {
    let mut warnings = Vec::new();
    let result = match parse_in(text, Path::new("vk.xml"), &mut warnings, pieces) {
        Ok(reg) => format!("{reg:?}"),
        Err(e) => format!("error: {e}"),
    };
    (result, warnings)
}

#[test]
fn every_registry_reads_the_same_in_pieces() {
    for path in matrix() {
        let text = std::fs::read_to_string(&path).unwrap();
        let whole = outcome(&text, 1);
        assert!(
            !whole.0.starts_with("error"),
            "{}: {}",
            path.display(),
            whole.0
        );
        for pieces in [2, 5, 12] {
            let cut = super::pieces::scan(text.as_bytes(), pieces).1;
            assert!(cut.is_some(), "{} is not cut in {pieces}", path.display());
            assert!(
                outcome(&text, pieces) == whole,
                "{} in {pieces}",
                path.display()
            );
        }
    }
}

/// Faults placed late in the document (in the last pieces): each gives the error or warning
/// the whole parse gives, at the same line and column.
#[test]
fn faults_late_in_the_registry_read_the_same_in_pieces() {
    let path = matrix().pop().unwrap();
    let text = std::fs::read_to_string(path).unwrap();
    let late = |needle: &str| text.rfind(needle).expect(needle);
    let member = {
        let at = late("<member><type>uint32_t</type>");
        let end = at + text[at..].find("</member>").unwrap() + "</member>".len();
        (at, text[at..end].to_owned())
    };
    let ext = late("<extension name=");
    // What each fault's message says (in the error or a warning), so each is the fault meant.
    let faults: Vec<(&str, &str, String)> = vec![
        (
            "unknown element",
            "ignored unknown element <zzz>",
            text.replacen("</registry>", "<zzz/></registry>", 1),
        ),
        (
            "enum group redefined",
            "<enums> block `VkResult` is defined again",
            text.replacen(
                "</registry>",
                "<enums name=\"VkResult\" type=\"enum\"><enum value=\"0\" name=\"VK_X\"/></enums></registry>",
                1,
            ),
        ),
        ("duplicate member", "is declared twice", {
            let mut t = text.clone();
            t.insert_str(member.0, &member.1);
            t
        }),
        ("bad extension type", "bogus", {
            let at = late(" type=\"device\"");
            format!(
                "{} type=\"bogus{}",
                &text[..at],
                &text[at + " type=\"device".len()..]
            )
        }),
        ("xml error", "error: ", {
            let mut t = text.clone();
            t.insert_str(ext, "<bad attr=1>");
            t
        }),
        ("text outside the root", "error: ", format!("{text}tail")),
    ];
    for (what, says, faulty) in faults {
        let whole = outcome(&faulty, 1);
        let said = format!("{} {}", whole.0, whole.1.join("\n"));
        assert!(
            said.contains(says),
            "{what}: {}",
            &said[..said.len().min(300)]
        );
        assert!(outcome(&faulty, 6) == whole, "{what}: {whole:?}");
    }
}
