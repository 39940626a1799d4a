//! Tidy: the conventions the code base follows, checked on every `cargo test` (rust-analyzer's
//! `xtask/src/tidy.rs` is the model). Each check names the file and line it objects to and what
//! to do about it.
//!
//! Where a convention arrived after the code it governs (stock SAFETY phrases, large files,
//! long functions), the allow-lists below hold today's numbers as ceilings: a listed file may
//! shrink but not grow, and a file not listed starts clean. Lower a ceiling when you fix one;
//! never raise one without saying why in the commit.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use vkgen_tests::paths::workspace_root;

#[path = "tidy/env_reads.rs"]
mod env_reads;

/// The workspace's `.rs` files, relative to the root, without build outputs, fuzz corpora and
/// the example crate (which is a separate project a user copies).
fn rust_files() -> Vec<PathBuf> {
    let root = workspace_root();
    let mut out = Vec::new();
    let mut stack = vec![root.clone()];
    while let Some(dir) = stack.pop() {
        let Ok(entries) = fs::read_dir(&dir) else {
            continue;
        };
        for e in entries.flatten() {
            let p = e.path();
            let name = e.file_name().to_string_lossy().into_owned();
            if p.is_dir() {
                if name.starts_with('.') || name == "target" || name == "corpus" {
                    continue;
                }
                stack.push(p);
            } else if name.ends_with(".rs") {
                out.push(p.strip_prefix(&root).expect("under the root").to_path_buf());
            }
        }
    }
    out.sort();
    out
}

fn read(rel: &Path) -> String {
    fs::read_to_string(workspace_root().join(rel)).unwrap_or_default()
}

/// Test code: integration tests, benches, test helpers, `#[cfg(test)]` modules' own files.
fn is_test_code(rel: &Path) -> bool {
    let s = rel.to_string_lossy();
    s.starts_with("tests/")
        || s.contains("/tests/")
        || s.contains("/benches/")
        || s.starts_with("fuzz/")
        || s.ends_with("/testing.rs")
}

fn is_generated(rel: &Path) -> bool {
    rel.starts_with("generated/")
}

/// The text of `line` before a `//` comment (strings are not parsed: good enough for the
/// patterns below, which never occur inside string literals in this code base).
fn code_part(line: &str) -> &str {
    match line.find("//") {
        Some(i) => &line[..i],
        None => line,
    }
}

fn is_comment(line: &str) -> bool {
    line.trim_start().starts_with("//")
}

/// Whether the `unsafe {` block on line `i` has a `// SAFETY:` note: on the same line, or in
/// the comment run above the statement it belongs to (the statement may span lines).
fn unsafe_block_is_documented(lines: &[&str], i: usize) -> bool {
    if lines[i].contains("SAFETY:") {
        return true;
    }
    let mut j = i;
    let mut steps = 0;
    while j > 0 && steps < 12 {
        j -= 1;
        steps += 1;
        let l = lines[j];
        if is_comment(l) {
            if l.contains("SAFETY:") {
                return true;
            }
            continue;
        }
        let code = code_part(l).trim_end();
        if code.is_empty() {
            return false;
        }
        // The end of an earlier statement or the start of the enclosing block: the note, if
        // any, had to be below it.
        if code.ends_with(';') || code.ends_with('{') || code.ends_with('}') {
            return false;
        }
    }
    false
}

/// Lines with an `unsafe` block.
fn unsafe_blocks(text: &str) -> Vec<usize> {
    text.lines()
        .enumerate()
        .filter(|(_, l)| {
            let c = code_part(l);
            c.contains("unsafe {") && !is_comment(l)
        })
        .map(|(i, _)| i)
        .collect()
}

#[test]
fn every_unsafe_block_says_why() {
    // Hand-written code: the workspace lint `clippy::undocumented_unsafe_blocks` (checked by
    // `every_package_takes_the_workspace_lints`) does it precisely. Generated code is not
    // linted that way (it also compiles as a standalone crate), so it is checked here.
    let mut missing = Vec::new();
    for rel in rust_files().into_iter().filter(|r| is_generated(r)) {
        let text = read(&rel);
        let lines: Vec<&str> = text.lines().collect();
        for i in unsafe_blocks(&text) {
            if !unsafe_block_is_documented(&lines, i) {
                missing.push(format!("{}:{}: {}", rel.display(), i + 1, lines[i].trim()));
            }
        }
    }
    assert!(
        missing.is_empty(),
        "unsafe blocks without a `// SAFETY:` note (fix the emitter in generator/src/emit, \
         then regenerate):\n{}",
        missing.join("\n")
    );
}

/// SAFETY notes that say nothing about the block they stand above.
const STOCK_PHRASES: &[&str] = &[
    "as above",
    "per the contract",
    "per valid usage",
    "forwarded contract",
];

/// Today's stock-phrase count per file (a ceiling; see the module docs).
const STOCK_PHRASE_CEILINGS: &[(&str, usize)] = &include!("tidy/stock_phrase_ceilings.in");

fn stock_phrase_counts() -> BTreeMap<String, usize> {
    let mut counts = BTreeMap::new();
    for rel in rust_files() {
        let text = read(&rel);
        let n = text
            .lines()
            .filter(|l| is_comment(l) && l.contains("SAFETY:"))
            .filter(|l| {
                let lower = l.to_lowercase();
                STOCK_PHRASES.iter().any(|p| lower.contains(p))
            })
            .count();
        if n > 0 {
            counts.insert(rel.to_string_lossy().into_owned(), n);
        }
    }
    counts
}

#[test]
fn safety_notes_say_why_not_as_above() {
    let ceilings: BTreeMap<&str, usize> = STOCK_PHRASE_CEILINGS.iter().copied().collect();
    let mut over = Vec::new();
    for (file, n) in stock_phrase_counts() {
        let allowed = ceilings.get(file.as_str()).copied().unwrap_or(0);
        if n > allowed {
            over.push(format!("{file}: {n} (ceiling {allowed})"));
        }
    }
    assert!(
        over.is_empty(),
        "SAFETY notes made of a stock phrase ({STOCK_PHRASES:?}); say why *this* block is \
         sound (which pointer, which contract, checked where):\n{}",
        over.join("\n")
    );
}

/// Hand-written non-test files over this many lines need an entry below.
const MAX_FILE_LINES: usize = 1000;
const FILE_SIZE_CEILINGS: &[(&str, usize)] = &include!("tidy/file_size_ceilings.in");

fn hand_written_sources() -> Vec<PathBuf> {
    rust_files()
        .into_iter()
        .filter(|r| !is_generated(r) && !is_test_code(r))
        .collect()
}

#[test]
fn files_stay_small() {
    let ceilings: BTreeMap<&str, usize> = FILE_SIZE_CEILINGS.iter().copied().collect();
    let mut over = Vec::new();
    for rel in hand_written_sources() {
        let n = read(&rel).lines().count();
        let key = rel.to_string_lossy();
        let allowed = ceilings
            .get(key.as_ref())
            .copied()
            .unwrap_or(MAX_FILE_LINES);
        if n > allowed {
            over.push(format!("{key}: {n} lines (ceiling {allowed})"));
        }
    }
    assert!(
        over.is_empty(),
        "files over their size ceiling; split them by concern:\n{}",
        over.join("\n")
    );
}

/// Functions (non-test, hand-written) longer than this need a reason in their doc: a doc line
/// starting with `Long:` saying why the length is the clearer form.
const MAX_FN_LINES: usize = 120;

/// `(name, first line, length)` of each function with a body in `text`, and whether its doc
/// comment gives a `Long:` reason.
fn functions(text: &str) -> Vec<(String, usize, usize, bool)> {
    let lines: Vec<&str> = text.lines().collect();
    let mut out = Vec::new();
    let mut i = 0;
    while i < lines.len() {
        let code = code_part(lines[i]);
        let trimmed = code.trim_start();
        let is_fn = trimmed.starts_with("fn ")
            || [
                "pub ",
                "pub(crate) ",
                "pub(super) ",
                "const ",
                "unsafe ",
                "extern ",
            ]
            .iter()
            .any(|p| trimmed.starts_with(p) && trimmed.contains("fn "));
        if !is_fn || is_comment(lines[i]) {
            i += 1;
            continue;
        }
        let name = trimmed
            .split("fn ")
            .nth(1)
            .and_then(|r| r.split(['(', '<', ' ']).next())
            .unwrap_or("?")
            .to_string();
        // Find the body's opening brace (or a `;` for a declaration without a body).
        let mut depth = 0i64;
        let mut opened = false;
        let mut j = i;
        'scan: while j < lines.len() {
            for ch in code_part(lines[j]).chars() {
                match ch {
                    '{' => {
                        depth += 1;
                        opened = true;
                    }
                    '}' => {
                        depth -= 1;
                        if opened && depth == 0 {
                            break 'scan;
                        }
                    }
                    ';' if !opened => break 'scan,
                    _ => {}
                }
            }
            j += 1;
        }
        if opened {
            let mut k = i;
            let mut reason = false;
            while k > 0 {
                k -= 1;
                let l = lines[k].trim_start();
                if l.starts_with("///") {
                    reason |= l.trim_start_matches('/').trim_start().starts_with("Long:");
                } else if !l.starts_with("#[") {
                    break;
                }
            }
            out.push((name, i + 1, j + 1 - i, reason));
        }
        i += 1;
    }
    out
}

const LONG_FN_CEILINGS: &[(&str, usize)] = &include!("tidy/long_fn_ceilings.in");

fn long_functions() -> Vec<(String, usize)> {
    let mut out = Vec::new();
    for rel in hand_written_sources() {
        let text = read(&rel);
        // Unit tests at the bottom of a file are test code.
        let text = match text.find("#[cfg(test)]") {
            Some(i) => &text[..i],
            None => &text[..],
        };
        for (name, line, len, reason) in functions(text) {
            if len > MAX_FN_LINES && !reason {
                out.push((format!("{}:{line} {name}", rel.display()), len));
            }
        }
    }
    out
}

#[test]
fn functions_stay_short() {
    let ceilings: BTreeMap<&str, usize> = LONG_FN_CEILINGS.iter().copied().collect();
    let mut over = Vec::new();
    for (at, len) in long_functions() {
        // Ceilings are keyed by `file name` (line numbers move).
        let key = {
            let (file, rest) = at.split_once(':').expect("file:line name");
            let name = rest.split_once(' ').map_or("", |(_, n)| n);
            format!("{file} {name}")
        };
        let allowed = ceilings.get(key.as_str()).copied().unwrap_or(MAX_FN_LINES);
        if len > allowed {
            over.push(format!("{at}: {len} lines (ceiling {allowed})"));
        }
    }
    assert!(
        over.is_empty(),
        "functions over {MAX_FN_LINES} lines without a `/// Long: <why>` doc line; split them \
         (or say why one piece reads better):\n{}",
        over.join("\n")
    );
}

/// Workspace members, from the root manifest.
fn members() -> Vec<String> {
    let text = read(Path::new("Cargo.toml"));
    let start = text.find("members = [").expect("workspace members");
    let end = start + text[start..].find(']').expect("end of members");
    text[start..end]
        .lines()
        .skip(1)
        .filter_map(|l| {
            let l = l.trim().trim_end_matches(',');
            l.strip_prefix('"')?.strip_suffix('"').map(str::to_string)
        })
        .collect()
}

#[test]
fn every_package_takes_the_workspace_lints() {
    let root = read(Path::new("Cargo.toml"));
    for lint in ["undocumented_unsafe_blocks", "unsafe_op_in_unsafe_fn"] {
        assert!(
            root.contains(lint),
            "[workspace.lints] lost `{lint}`; it is the workspace's unsafe rule"
        );
    }
    let mut missing = Vec::new();
    for m in members() {
        // generated/ is also a standalone crate (`vkgen generate --out` writes it for users
        // outside this workspace), where `workspace = true` would not resolve; its unsafe
        // blocks are checked by `every_unsafe_block_says_why`.
        if m == "generated" {
            continue;
        }
        let manifest = read(&Path::new(&m).join("Cargo.toml"));
        if !manifest.contains("[lints]\nworkspace = true") {
            missing.push(m);
        }
    }
    assert!(
        missing.is_empty(),
        "packages without `[lints] workspace = true`: {missing:?}"
    );
    // Per-crate opt-outs of the unsafe rule would undo it.
    let mut opt_outs = Vec::new();
    for rel in rust_files() {
        for (i, l) in read(&rel).lines().enumerate() {
            // Spelled in two pieces so that this check does not find itself.
            if l.contains(concat!("allow(clippy::", "undocumented_unsafe_blocks"))
                || l.contains(concat!("allow(", "unsafe_op_in_unsafe_fn"))
            {
                opt_outs.push(format!("{}:{}", rel.display(), i + 1));
            }
        }
    }
    assert!(opt_outs.is_empty(), "unsafe-rule opt-outs: {opt_outs:?}");
}

/// The path dependencies of the package in `dir` (normal ones: `[dependencies]` and target
/// dependency tables, not dev or build).
fn path_dependencies(dir: &Path) -> Vec<PathBuf> {
    let text = read(&dir.join("Cargo.toml"));
    let mut out = Vec::new();
    let mut normal = false;
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('[') {
            normal = t == "[dependencies]"
                || (t.starts_with("[target.") && t.ends_with(".dependencies]"));
            continue;
        }
        if !normal {
            continue;
        }
        if let Some(p) = quoted_path(t) {
            out.push(normalize(&dir.join(p)));
        }
        // `vkgen-abi.workspace = true` / `x = { workspace = true, … }`: the workspace's path.
        let name = t.split(['.', ' ', '=']).next().unwrap_or("");
        if t.contains("workspace = true") {
            if let Some(p) = workspace_paths().get(name) {
                out.push(normalize(p));
            }
        }
    }
    out
}

/// The `path = "…"` of a dependency line.
fn quoted_path(line: &str) -> Option<&str> {
    let rest = &line[line.find("path = \"")? + 8..];
    Some(&rest[..rest.find('"')?])
}

/// `[workspace.dependencies]` entries with a path (the workspace's own crates), by name.
fn workspace_paths() -> BTreeMap<String, PathBuf> {
    let text = read(Path::new("Cargo.toml"));
    let mut out = BTreeMap::new();
    let mut section = false;
    for l in text.lines() {
        let t = l.trim();
        if t.starts_with('[') {
            section = t == "[workspace.dependencies]";
            continue;
        }
        if let (true, Some(p)) = (section, quoted_path(t)) {
            let name = t.split([' ', '=']).next().unwrap_or("");
            out.insert(name.to_owned(), PathBuf::from(p));
        }
    }
    out
}

fn normalize(p: &Path) -> PathBuf {
    let mut out = PathBuf::new();
    for c in p.components() {
        match c {
            std::path::Component::ParentDir => {
                out.pop();
            }
            std::path::Component::CurDir => {}
            other => out.push(other),
        }
    }
    out
}

#[test]
fn the_loader_links_nothing_driver_side() {
    let mut seen = BTreeSet::new();
    let mut stack = vec![PathBuf::from("runtime/loader")];
    while let Some(dir) = stack.pop() {
        for dep in path_dependencies(&dir) {
            if seen.insert(dep.clone()) {
                stack.push(dep);
            }
        }
    }
    let driver_side: Vec<_> = seen
        .iter()
        .filter(|p| {
            p.starts_with("runtime/driver")
                || p.starts_with("runtime/drivers")
                || p.starts_with("runtime/driver-macros")
        })
        .collect();
    assert!(
        driver_side.is_empty(),
        "libvulkan.so links driver-side crates {driver_side:?}: the loader meets drivers only at \
         the C ABI (docs/architecture.md)"
    );
    assert!(
        seen.contains(Path::new("runtime/abi")),
        "dependency walk found nothing: {seen:?}"
    );
}

/// A crate's top-level modules (`src/x.rs` or `src/x/`) and which others each one names
/// (`crate::x`, or `super::x` from a top-level module), test modules left out.
fn module_graph(src: &Path) -> BTreeMap<String, BTreeSet<String>> {
    let root = workspace_root().join(src);
    let mut files: BTreeMap<String, Vec<PathBuf>> = BTreeMap::new();
    for e in fs::read_dir(&root).into_iter().flatten().flatten() {
        let p = e.path();
        let name = e.file_name().to_string_lossy().into_owned();
        if let Some(stem) = name.strip_suffix(".rs") {
            if stem != "lib" && stem != "main" {
                files.entry(stem.to_string()).or_default().push(p);
            }
        } else if p.is_dir() {
            let mut stack = vec![p];
            while let Some(d) = stack.pop() {
                for f in fs::read_dir(&d).into_iter().flatten().flatten() {
                    let fp = f.path();
                    if fp.is_dir() {
                        stack.push(fp);
                    } else if fp.extension().is_some_and(|x| x == "rs") {
                        files.entry(name.clone()).or_default().push(fp);
                    }
                }
            }
        }
    }
    let mut graph: BTreeMap<String, BTreeSet<String>> = BTreeMap::new();
    for (module, paths) in &files {
        let edges = graph.entry(module.clone()).or_default();
        for p in paths {
            let text = fs::read_to_string(p).unwrap_or_default();
            let text = match text.find("#[cfg(test)]") {
                Some(i) => &text[..i],
                None => &text[..],
            };
            let top_level =
                p.parent() == Some(root.as_path()) || p.ends_with(format!("{module}/mod.rs"));
            for line in text.lines().filter(|l| !is_comment(l)) {
                let code = code_part(line);
                let mut names = Vec::new();
                for (prefix, ok) in [("crate::", true), ("super::", top_level)] {
                    if !ok {
                        continue;
                    }
                    let mut rest = code;
                    while let Some(i) = rest.find(prefix) {
                        rest = &rest[i + prefix.len()..];
                        let name: String = rest
                            .chars()
                            .take_while(|c| c.is_alphanumeric() || *c == '_')
                            .collect();
                        names.push(name);
                    }
                }
                for n in names {
                    if n != *module && files.contains_key(&n) {
                        edges.insert(n);
                    }
                }
            }
        }
    }
    graph
}

/// A cycle in `graph`, if there is one.
fn find_cycle(graph: &BTreeMap<String, BTreeSet<String>>) -> Option<Vec<String>> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mark {
        New,
        Open,
        Done,
    }
    let mut mark: BTreeMap<&str, Mark> = graph.keys().map(|k| (k.as_str(), Mark::New)).collect();
    let mut path: Vec<String> = Vec::new();
    fn visit<'a>(
        g: &'a BTreeMap<String, BTreeSet<String>>,
        v: &'a str,
        mark: &mut BTreeMap<&'a str, Mark>,
        path: &mut Vec<String>,
    ) -> Option<Vec<String>> {
        mark.insert(v, Mark::Open);
        path.push(v.to_string());
        for w in g.get(v).into_iter().flatten() {
            match mark.get(w.as_str()).copied() {
                Some(Mark::Open) => {
                    let start = path.iter().position(|p| p == w).unwrap_or(0);
                    let mut cycle = path[start..].to_vec();
                    cycle.push(w.clone());
                    return Some(cycle);
                }
                Some(Mark::New) => {
                    if let Some(c) = visit(g, w, mark, path) {
                        return Some(c);
                    }
                }
                _ => {}
            }
        }
        path.pop();
        mark.insert(v, Mark::Done);
        None
    }
    let keys: Vec<&str> = graph.keys().map(String::as_str).collect();
    for k in keys {
        if mark[k] == Mark::New {
            if let Some(c) = visit(graph, k, &mut mark, &mut path) {
                return Some(c);
            }
        }
    }
    None
}

/// Every crate's `src/` directory.
fn crate_sources() -> Vec<PathBuf> {
    members()
        .into_iter()
        .map(|m| Path::new(&m).join("src"))
        .filter(|p| workspace_root().join(p).is_dir())
        .collect()
}

#[test]
fn no_module_cycles() {
    let mut cycles = Vec::new();
    for src in crate_sources() {
        if let Some(c) = find_cycle(&module_graph(&src)) {
            cycles.push(format!("{}: {}", src.display(), c.join(" → ")));
        }
    }
    assert!(
        cycles.is_empty(),
        "module cycles (a top-level module names another that names it back, directly or \
         through others); move the shared piece down into the module both use:\n{}",
        cycles.join("\n")
    );
}

#[test]
fn the_cycle_check_sees_cycles() {
    let mut g = BTreeMap::new();
    g.insert("a".to_string(), BTreeSet::from(["b".to_string()]));
    g.insert("b".to_string(), BTreeSet::from(["c".to_string()]));
    g.insert("c".to_string(), BTreeSet::from(["a".to_string()]));
    assert_eq!(
        find_cycle(&g),
        Some(vec!["a".into(), "b".into(), "c".into(), "a".into()])
    );
    g.insert("c".to_string(), BTreeSet::new());
    assert_eq!(find_cycle(&g), None);
}

#[test]
fn the_checks_see_what_they_check() {
    let text = "fn f() {\n    // SAFETY: fine.\n    unsafe { g() };\n    unsafe { h() };\n}\n";
    let lines: Vec<&str> = text.lines().collect();
    let blocks = unsafe_blocks(text);
    assert_eq!(blocks, vec![2, 3]);
    assert!(unsafe_block_is_documented(&lines, 2));
    assert!(!unsafe_block_is_documented(&lines, 3));
    let long = format!(
        "/// Long: a table.\nfn a() {{\n{}}}\nfn b() {{\n{}}}\n",
        "    x();\n".repeat(130),
        "    y();\n".repeat(3)
    );
    let fns = functions(&long);
    assert_eq!(fns.len(), 2);
    assert_eq!((fns[0].0.as_str(), fns[0].2, fns[0].3), ("a", 132, true));
    assert_eq!((fns[1].0.as_str(), fns[1].2, fns[1].3), ("b", 5, false));
}

#[test]
fn runtime_code_reads_the_environment_only_through_the_safe_reader() {
    let mut bad = Vec::new();
    for rel in rust_files()
        .into_iter()
        .filter(|r| env_reads::is_runtime_code(r))
    {
        for line in env_reads::direct_reads(&read(&rel), code_part) {
            bad.push(format!("{}:{line}", rel.display()));
        }
    }
    assert!(
        bad.is_empty(),
        "environment read directly in runtime code (a setuid program would honour it): {bad:?}; \
         use vkgen_platform::env::trusted_env, which ignores variables in elevated processes"
    );
    assert!(read(Path::new(env_reads::READER)).contains("std::env::var_os"));
}

#[test]
fn the_env_rule_sees_direct_reads() {
    let text = "use std::env;\nfn a() { std::env::var_os(\"X\"); }\n// env::var in a comment\n\
                fn b() { env::var(\"Y\").ok(); }\nfn c() { libc::getenv(p); }\n\
                fn d() { trusted_env(\"Z\"); }\n#[cfg(test)]\nmod tests { fn e() { std::env::var(\"W\"); } }\n";
    assert_eq!(env_reads::direct_reads(text, code_part), vec![2, 4, 5]);
    let covered = |p: &str| env_reads::is_runtime_code(Path::new(p));
    assert!(covered("runtime/driver/src/backend/host/icd.rs"));
    assert!(covered("generated/src/recorder_runtime.rs"));
    assert!(!covered("runtime/driver/build.rs"));
    assert!(!covered("runtime/drivers/host/tests/host.rs"));
    assert!(
        covered("runtime/driver/src/testing.rs"),
        "ships in the driver"
    );
    assert!(!covered(env_reads::READER));
    assert!(!covered("generator/src/registry/mod.rs"));
}

#[test]
fn generated_files_say_how_to_regenerate() {
    let mut bad = Vec::new();
    for rel in rust_files().into_iter().filter(|r| is_generated(r)) {
        let head: String = read(&rel).lines().take(3).collect::<Vec<_>>().join("\n");
        if !head.contains("generated by vkgen — do not edit") || !head.contains("Regenerate with:")
        {
            bad.push(rel.display().to_string());
        }
    }
    assert!(
        bad.is_empty(),
        "generated files whose preamble does not say `generated by vkgen — do not edit` and \
         `Regenerate with: …` in its first lines: {bad:?}"
    );
}

#[test]
fn the_tidy_allow_lists_hold_no_stale_entries() {
    // An entry for a file that is gone or back under the default limit is a ceiling nobody
    // will lower: drop it.
    let counts = stock_phrase_counts();
    let mut stale = Vec::new();
    for (file, _) in STOCK_PHRASE_CEILINGS {
        if !counts.contains_key(*file) {
            stale.push(format!("stock phrases: {file}"));
        }
    }
    for (file, _) in FILE_SIZE_CEILINGS {
        if read(Path::new(file)).lines().count() <= MAX_FILE_LINES {
            stale.push(format!("file size: {file}"));
        }
    }
    let long: BTreeSet<String> = long_functions()
        .into_iter()
        .map(|(at, _)| {
            let (file, rest) = at.split_once(':').expect("file:line name");
            format!("{file} {}", rest.split_once(' ').map_or("", |(_, n)| n))
        })
        .collect();
    for (key, _) in LONG_FN_CEILINGS {
        if !long.contains(*key) {
            stale.push(format!("long function: {key}"));
        }
    }
    assert!(stale.is_empty(), "stale tidy allow-list entries: {stale:?}");
}

/// Prints the allow-lists as they would be today (`cargo test --test tidy -- --ignored
/// --nocapture print_ceilings`), for the three `.in` files.
#[test]
#[ignore]
fn print_ceilings() {
    println!("--- stock_phrase_ceilings.in");
    for (f, n) in stock_phrase_counts() {
        println!("    (\"{f}\", {n}),");
    }
    println!("--- file_size_ceilings.in");
    for rel in hand_written_sources() {
        let n = read(&rel).lines().count();
        if n > MAX_FILE_LINES {
            println!("    (\"{}\", {n}),", rel.display());
        }
    }
    println!("--- long_fn_ceilings.in");
    for (at, len) in long_functions() {
        let (file, rest) = at.split_once(':').expect("file:line name");
        let name = rest.split_once(' ').map_or("", |(_, n)| n);
        println!("    (\"{file} {name}\", {len}),");
    }
}
