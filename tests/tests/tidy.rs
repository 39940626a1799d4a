//! Tidy: the conventions the code base follows, checked on every `cargo test` (rust-analyzer's
//! `xtask/src/tidy.rs` is the model). Each check names the file and line it objects to and what
//! to do about it.
//!
//! Lengths and the module graph come from the syntax tree (`syn`: `tidy/syntax.rs`,
//! `tidy/modules.rs`), so a string holding `}`, a `#[cfg(test)]` module in the middle of a file
//! or a nested `use crate::{a::{self, b}}` cannot fool them; test code is measured under its own,
//! looser ceiling. There is no per-function escape hatch: a function long because it is a table
//! makes the table data. `files_stay_small` and `functions_stay_short` print the ten longest of
//! each kind on every run (past the harness's capture), so a reviewer sees the trend rather
//! than the ceiling.
//!
//! Where a convention arrived after the code it governs (stock SAFETY phrases, large files,
//! long functions, module cycles), the allow-lists in `tidy/*.in` hold today's numbers as
//! ceilings: a listed entry may shrink but not grow, and anything not listed starts clean. Lower
//! a ceiling when you fix one (the stale check insists); never raise one without saying why in
//! the commit.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use vkgen_tests::paths::workspace_root;

#[path = "tidy/env_reads.rs"]
mod env_reads;
#[path = "tidy/hooks.rs"]
mod hooks;
#[path = "tidy/modules.rs"]
mod modules;
#[path = "tidy/syntax.rs"]
mod syntax;

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

/// Ceilings on lines, measured on the syntax tree (`tidy/syntax.rs`): code and test code apart.
/// A file or function past its ceiling is split where it has a seam; where it is long because it
/// is a table, the table becomes data.
const MAX_FILE_LINES: usize = 1000;
const MAX_TEST_FILE_LINES: usize = 2000;
const MAX_FN_LINES: usize = 120;
const MAX_TEST_FN_LINES: usize = 250;
/// Today's excess, keyed `file` (code lines) or `file (tests)` (test lines).
const FILE_SIZE_CEILINGS: &[(&str, usize)] = &include!("tidy/file_size_ceilings.in");
/// Today's excess, keyed `file name`.
const LONG_FN_CEILINGS: &[(&str, usize)] = &include!("tidy/long_fn_ceilings.in");

/// `(file, measure)` of every file that parsed, and why each other one did not.
type Measures = (Vec<(String, syntax::FileMeasure)>, Vec<String>);

/// Every hand-written file's measure (generated/ is written by the emitters, whose own
/// functions are measured here), and the files that did not parse.
fn measures() -> &'static Measures {
    static M: std::sync::OnceLock<Measures> = std::sync::OnceLock::new();
    M.get_or_init(|| {
        let mut ok = Vec::new();
        let mut bad = Vec::new();
        for rel in rust_files().into_iter().filter(|r| !is_generated(r)) {
            match syntax::measure(&read(&rel), is_test_code(&rel)) {
                Ok(m) => ok.push((rel.to_string_lossy().into_owned(), m)),
                Err(e) => bad.push(format!("{}: {e}", rel.display())),
            }
        }
        (ok, bad)
    })
}

/// A measured length past its limit: `(key, where, length, limit)`.
type Over = (String, String, usize, usize);

/// Functions of `file` past the default limit (their ceiling decides whether that is an error).
fn long_functions_in(file: &str, m: &syntax::FileMeasure) -> Vec<Over> {
    m.functions
        .iter()
        .filter_map(|f| {
            let limit = if f.test {
                MAX_TEST_FN_LINES
            } else {
                MAX_FN_LINES
            };
            (f.len > limit).then(|| {
                let key = format!("{file} {}", f.name);
                (key, format!("{file}:{} {}", f.line, f.name), f.len, limit)
            })
        })
        .collect()
}

/// Code and test-code line counts of `file` past the default limits.
fn long_file(file: &str, m: &syntax::FileMeasure) -> Vec<Over> {
    let mut out = Vec::new();
    if m.code_lines > MAX_FILE_LINES {
        out.push((
            file.to_string(),
            file.to_string(),
            m.code_lines,
            MAX_FILE_LINES,
        ));
    }
    if m.test_lines > MAX_TEST_FILE_LINES {
        let key = format!("{file} (tests)");
        out.push((key.clone(), key, m.test_lines, MAX_TEST_FILE_LINES));
    }
    out
}

/// The entries of `over` past their ceiling (an allow-list entry, else the default limit).
fn past_ceilings(over: Vec<Over>, ceilings: &[(&str, usize)]) -> Vec<String> {
    let ceilings: BTreeMap<&str, usize> = ceilings.iter().copied().collect();
    over.into_iter()
        .filter_map(|(key, at, len, limit)| {
            let allowed = ceilings.get(key.as_str()).copied().unwrap_or(limit);
            (len > allowed).then(|| format!("{at}: {len} lines (ceiling {allowed})"))
        })
        .collect()
}

/// Writes past the test harness's capture, so that every run shows the trend.
fn report(title: &str, mut rows: Vec<(usize, String)>) {
    use std::io::Write;
    rows.sort_by(|a, b| b.0.cmp(&a.0).then_with(|| a.1.cmp(&b.1)));
    let mut text = format!("tidy: the 10 longest {title}:\n");
    for (n, at) in rows.into_iter().take(10) {
        text.push_str(&format!("  {n:5}  {at}\n"));
    }
    let _ = std::io::stderr().write_all(text.as_bytes());
}

#[test]
fn every_file_parses() {
    let (_, bad) = measures();
    assert!(
        bad.is_empty(),
        "files tidy cannot parse:\n{}",
        bad.join("\n")
    );
}

#[test]
fn files_stay_small() {
    let (files, _) = measures();
    for test in [false, true] {
        let rows = files
            .iter()
            .map(|(f, m)| (if test { m.test_lines } else { m.code_lines }, f.clone()))
            .filter(|(n, _)| *n > 0)
            .collect();
        report(
            if test {
                "test files (test lines)"
            } else {
                "files (code lines)"
            },
            rows,
        );
    }
    let over = files.iter().flat_map(|(f, m)| long_file(f, m)).collect();
    let over = past_ceilings(over, FILE_SIZE_CEILINGS);
    assert!(
        over.is_empty(),
        "files over their size ceiling ({MAX_FILE_LINES} code lines, {MAX_TEST_FILE_LINES} test \
         lines); split them by concern:\n{}",
        over.join("\n")
    );
}

#[test]
fn functions_stay_short() {
    let (files, _) = measures();
    for test in [false, true] {
        let rows = files
            .iter()
            .flat_map(|(file, m)| {
                m.functions
                    .iter()
                    .filter(move |f| f.test == test)
                    .map(move |f| (f.len, format!("{file}:{} {}", f.line, f.name)))
            })
            .collect();
        report(if test { "test functions" } else { "functions" }, rows);
    }
    let over = files
        .iter()
        .flat_map(|(f, m)| long_functions_in(f, m))
        .collect();
    let over = past_ceilings(over, LONG_FN_CEILINGS);
    assert!(
        over.is_empty(),
        "functions over {MAX_FN_LINES} lines ({MAX_TEST_FN_LINES} for test code); split them at \
         their steps, or make a table data:\n{}",
        over.join("\n")
    );
}

/// A function of `len` body lines with `inner` inside, as `fn name() { … }`.
fn long_fn(name: &str, len: usize, inner: &str) -> String {
    format!("fn {name}() {{\n{inner}{}}}\n", "    x();\n".repeat(len))
}

#[test]
fn a_brace_in_a_string_hides_no_long_function() {
    // The line scanner closed `hidden` at the `}` inside the string and measured 3 lines.
    let text = long_fn("hidden", 130, "    let s = \"}\";\n    let c = '}';\n");
    let m = syntax::measure(&text, false).expect("parses");
    let over = past_ceilings(long_functions_in("f.rs", &m), &[]);
    assert_eq!(over, ["f.rs:1 hidden: 134 lines (ceiling 120)"]);
}

#[test]
fn a_long_function_after_cfg_test_is_measured() {
    // Everything after a file's first `#[cfg(test)]` was unmeasured.
    let text = format!(
        "#[cfg(test)]\nmod tests {{\n    #[test]\n    fn t() {{}}\n}}\n{}{}",
        long_fn("after", 130, ""),
        "#[cfg(test)]\nmod more {\n".to_string() + &long_fn("test_fn", 200, "") + "}\n",
    );
    let m = syntax::measure(&text, false).expect("parses");
    let over = past_ceilings(long_functions_in("f.rs", &m), &[]);
    assert_eq!(over, ["f.rs:6 after: 132 lines (ceiling 120)"]);
    let t = m.functions.iter().find(|f| f.name == "test_fn").unwrap();
    assert!(
        t.test && t.len == 202,
        "test code is measured, under its own ceiling: {t:?}"
    );
    assert_eq!((m.test_lines, m.code_lines), (5 + 205, 132));
    // Past the test ceiling, test code fails too.
    let text = format!("#[cfg(test)]\nmod t {{\n{}}}\n", long_fn("huge", 260, ""));
    let m = syntax::measure(&text, false).expect("parses");
    assert_eq!(
        past_ceilings(long_functions_in("f.rs", &m), &[]),
        ["f.rs:3 huge: 262 lines (ceiling 250)"]
    );
}

#[test]
fn methods_macros_and_quoted_code_are_measured_as_written() {
    let text = format!(
        "struct S;\nimpl S {{\n{}}}\nmacro_rules! m {{\n{}}}\nfn q() {{ quote! {{ {} }} }}\n",
        long_fn("method", 3, ""),
        "    () => {};\n".repeat(125),
        long_fn("inside", 200, "").replace('\n', " "),
    );
    let m = syntax::measure(&text, false).expect("parses");
    let names: Vec<(&str, usize)> = m
        .functions
        .iter()
        .map(|f| (f.name.as_str(), f.len))
        .collect();
    assert_eq!(names, [("S::method", 5), ("macro_rules! m", 127), ("q", 1)]);
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

/// Every crate root of the workspace: `src/lib.rs`, `src/main.rs`, `src/bin/*.rs`.
fn crate_roots() -> Vec<PathBuf> {
    let mut out = Vec::new();
    for m in members() {
        let src = workspace_root().join(&m).join("src");
        for f in ["lib.rs", "main.rs"] {
            if src.join(f).is_file() {
                out.push(src.join(f));
            }
        }
        let mut bins: Vec<PathBuf> = fs::read_dir(src.join("bin"))
            .into_iter()
            .flatten()
            .flatten()
            .map(|e| e.path())
            .filter(|p| p.extension().is_some_and(|x| x == "rs"))
            .collect();
        bins.sort();
        out.extend(bins);
    }
    out
}

/// Cycles of `graph`, one line each: the files in it and one way round.
fn cycle_report(g: &modules::Graph) -> Vec<String> {
    modules::cycles(&g.edges)
        .iter()
        .map(|comp| {
            let files: Vec<String> = comp
                .iter()
                .map(|m| g.files[m].display().to_string())
                .collect();
            let round = modules::example_cycle(&g.edges, comp);
            format!(
                "{} files [{}], e.g. {}",
                comp.len(),
                files.join(", "),
                round.join(" → ")
            )
        })
        .collect()
}

/// Module cycles left to untangle, as `root: files in the cycle` (a ceiling: a cycle may lose
/// files or go, never grow or appear).
const MODULE_CYCLE_CEILINGS: &[(&str, &[&str])] = &include!("tidy/module_cycle_ceilings.in");

#[test]
fn no_module_cycles() {
    let root = workspace_root();
    let allowed: Vec<(&str, BTreeSet<&str>)> = MODULE_CYCLE_CEILINGS
        .iter()
        .map(|(r, files)| (*r, files.iter().copied().collect()))
        .collect();
    let mut cycles = Vec::new();
    let mut errors = Vec::new();
    for crate_root in crate_roots() {
        let g = modules::Graph::of_crate(&crate_root, &root, &hook_tables());
        errors.extend(g.errors.iter().cloned());
        let rel = crate_root
            .strip_prefix(&root)
            .unwrap_or(&crate_root)
            .display()
            .to_string();
        for (comp, line) in modules::cycles(&g.edges).iter().zip(cycle_report(&g)) {
            let files: BTreeSet<String> = comp
                .iter()
                .map(|m| g.files[m].display().to_string())
                .collect();
            let covered = allowed
                .iter()
                .any(|(r, a)| *r == rel && files.iter().all(|f| a.contains(f.as_str())));
            if !covered {
                cycles.push(format!("{rel}: {line}"));
            }
        }
    }
    assert!(
        errors.is_empty(),
        "module files tidy cannot read or parse:\n{}",
        errors.join("\n")
    );
    assert!(
        cycles.is_empty(),
        "module cycles (a file names a module whose files name it back, directly or through \
         others; a parent re-exporting a child that uses the parent is one too): move the shared \
         piece down into a module both use, and let the parent only assemble:\n{}",
        cycles.join("\n")
    );
}

/// Table → function paths of the generated `loader_hooks!` (`generated/src/hooks.rs`).
fn hook_tables() -> modules::MacroPaths {
    let text = read(Path::new("generated/src/hooks.rs"));
    hooks::table_paths(&text).unwrap_or_else(|e| panic!("{e}"))
}

/// Writes a crate of `files` (path, text) into a temporary directory and returns its graph.
fn graph_of(files: &[(&str, &str)]) -> (modules::Graph, tempfile::TempDir) {
    graph_with_hooks(files, &modules::MacroPaths::new())
}

/// [`graph_of`], with `hooks` as the tables `loader_hooks!` calls name.
fn graph_with_hooks(
    files: &[(&str, &str)],
    hooks: &modules::MacroPaths,
) -> (modules::Graph, tempfile::TempDir) {
    let dir = tempfile::tempdir().expect("temp dir");
    for (p, text) in files {
        let p = dir.path().join(p);
        fs::create_dir_all(p.parent().unwrap()).unwrap();
        fs::write(p, text).unwrap();
    }
    let g = modules::Graph::of_crate(&dir.path().join("lib.rs"), dir.path(), hooks);
    (g, dir)
}

/// A `loader_hooks!` call names its table's functions: with the table read from a
/// `hooks.rs`-shaped file, the call in `a` closes a cycle `a` → `b` → `a` that no token of the
/// call shows.
#[test]
fn the_cycle_check_sees_through_loader_hooks() {
    let rows = "pub const LOADER_HOOKS: &[LoaderHook] = &[\n    LoaderHook { table: \"t\", \
                command: c\"vkF\", function: \"crate::b::f\", cfg: None },\n];\n";
    let tables = hooks::table_paths(rows).unwrap();
    assert_eq!(tables["t"], [vec!["crate", "b", "f"]]);
    let files = [
        ("lib.rs", "mod a;\nmod b;\n"),
        (
            "a.rs",
            "pub fn g() -> u8 { vkgen_generated::loader_hooks!(t, name) }\n",
        ),
        ("b.rs", "pub fn f() { crate::a::g(); }\n"),
    ];
    let (g, _dir) = graph_with_hooks(&files, &tables);
    assert_eq!(modules::cycles(&g.edges), [vec!["crate::a", "crate::b"]]);
    let (g, _dir) = graph_of(&files);
    assert!(modules::cycles(&g.edges).is_empty(), "{:?}", g.edges);
}

/// The loader's command names are matched only in the generated `loader_hooks!`
/// (policy::LOADER_HOOKS): no hand-written `b"vkX" =>` arm.
#[test]
fn the_loader_matches_no_command_name_by_hand() {
    let mut found = Vec::new();
    for rel in rust_files()
        .into_iter()
        .filter(|r| r.starts_with("runtime/loader/src"))
    {
        let arms = hooks::hand_written_arms(&read(&rel)).unwrap_or_else(|e| panic!("{e}"));
        found.extend(arms.into_iter().map(|a| format!("{}:{a}", rel.display())));
    }
    assert!(
        found.is_empty(),
        "hand-written name→function arms in the loader: add the row to \
         generator/src/policy.rs `LOADER_HOOKS`, regenerate, and call `loader_hooks!`:\n{}",
        found.join("\n")
    );
}

#[test]
fn the_hook_arm_check_sees_hand_written_arms() {
    let text = "fn h(n: &[u8]) -> u8 {\n    match n {\n        b\"other\" => 0,\n        \
                b\"vkA\" | b\"vkAKHR\" => 1,\n        b\"vkB\" => 2,\n        _ => 3,\n    }\n}\n\
                const S: &str = \"b\\\"vkC\\\" => 4\";\n";
    assert_eq!(
        hooks::hand_written_arms(text).unwrap(),
        ["4: b\"vkA\"", "5: b\"vkB\""]
    );
}

#[test]
fn the_cycle_check_sees_nested_use_cycles() {
    // A nested group and `self` (the old check saw `crate::x` at the start of a path only, and
    // top-level modules only).
    let (g, _d) = graph_of(&[
        ("lib.rs", "mod a;\nmod b;\n"),
        ("a.rs", "mod inner;\n"),
        (
            "a/inner.rs",
            "use crate::{b::{self, Y}, c as _};\nfn f() { b::g() }\n",
        ),
        ("b.rs", "use super::a::inner::X as _;\npub fn g() {}\n"),
    ]);
    assert!(g.errors.is_empty(), "{:?}", g.errors);
    assert_eq!(
        modules::cycles(&g.edges),
        [vec!["crate::a::inner".to_string(), "crate::b".to_string()]]
    );
    // `super::super`, a path in an expression and one inside `format!`, and a parent that
    // re-exports a child which uses it.
    let (g, _d) = graph_of(&[
        ("lib.rs", "mod p;\n"),
        ("p/mod.rs", "mod c;\npub use self::c::C;\npub struct P;\n"),
        (
            "p/c.rs",
            "pub struct C;\nfn f() { let _ = format!(\"{:?}\", super::P); }\n",
        ),
    ]);
    assert_eq!(
        modules::cycles(&g.edges),
        [vec!["crate::p".to_string(), "crate::p::c".to_string()]]
    );
    assert_eq!(
        modules::example_cycle(&g.edges, &modules::cycles(&g.edges)[0]),
        ["crate::p", "crate::p::c", "crate::p"]
    );
    // One-way arrows, a `#[cfg(test)]` module reaching back, `quote!`'s `crate::` and
    // `#[path]`: no cycle.
    let (g, _d) = graph_of(&[
        ("lib.rs", "mod a;\n#[path = \"elsewhere/b.rs\"]\nmod b;\n"),
        (
            "a.rs",
            "use crate::b::B;\npub(crate) struct A;\npub(in crate::a) fn f() {}\n#[cfg(test)]\nmod tests { use crate::b::*; }\n",
        ),
        ("elsewhere/b.rs", "pub struct B;\nfn q() { quote! { crate::a::A } }\n#[cfg(test)]\nmod tests { use crate::a::*; }\n"),
    ]);
    assert!(g.errors.is_empty(), "{:?}", g.errors);
    assert_eq!(g.files.len(), 3);
    assert!(modules::cycles(&g.edges).is_empty(), "{:?}", g.edges);
    assert_eq!(
        g.edges["crate::a"],
        BTreeSet::from(["crate::b".to_string()])
    );
    // A local variable named like a child module is no path to it; the child's own path is.
    let (g, _d) = graph_of(&[
        (
            "lib.rs", "mod s;
",
        ),
        (
            "s.rs",
            "mod submit;
fn f() { let submit = 1; g(&[submit]); }
",
        ),
        (
            "s/submit.rs",
            "fn h() { super::f() }
",
        ),
    ]);
    assert!(modules::cycles(&g.edges).is_empty(), "{:?}", g.edges);
    let (g, _d) = graph_of(&[
        (
            "lib.rs", "mod s;
",
        ),
        (
            "s.rs",
            "mod submit;
fn f() { submit::h() }
",
        ),
        (
            "s/submit.rs",
            "pub fn h() { super::f() }
",
        ),
    ]);
    assert_eq!(modules::cycles(&g.edges).len(), 1, "{:?}", g.edges);
}

#[test]
fn the_unsafe_check_sees_what_it_checks() {
    let text = "fn f() {\n    // SAFETY: fine.\n    unsafe { g() };\n    unsafe { h() };\n}\n";
    let lines: Vec<&str> = text.lines().collect();
    let blocks = unsafe_blocks(text);
    assert_eq!(blocks, vec![2, 3]);
    assert!(unsafe_block_is_documented(&lines, 2));
    assert!(!unsafe_block_is_documented(&lines, 3));
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
    let (files, _) = measures();
    let long_files: BTreeSet<String> = files
        .iter()
        .flat_map(|(f, m)| long_file(f, m))
        .map(|o| o.0)
        .collect();
    for (key, _) in FILE_SIZE_CEILINGS {
        if !long_files.contains(*key) {
            stale.push(format!("file size: {key}"));
        }
    }
    let long: BTreeSet<String> = files
        .iter()
        .flat_map(|(f, m)| long_functions_in(f, m))
        .map(|o| o.0)
        .collect();
    for (key, _) in LONG_FN_CEILINGS {
        if !long.contains(*key) {
            stale.push(format!("long function: {key}"));
        }
    }
    let root = workspace_root();
    let mut in_cycles = BTreeSet::new();
    for crate_root in crate_roots() {
        let g = modules::Graph::of_crate(&crate_root, &root, &hook_tables());
        for comp in modules::cycles(&g.edges) {
            in_cycles.extend(comp.iter().map(|m| g.files[m].display().to_string()));
        }
    }
    for (_, files) in MODULE_CYCLE_CEILINGS {
        for f in *files {
            if !in_cycles.contains(*f) {
                stale.push(format!("module cycle: {f}"));
            }
        }
    }
    assert!(stale.is_empty(), "stale tidy allow-list entries: {stale:?}");
}

/// Prints the allow-lists as they would be today (`cargo test --test tidy -- --ignored
/// --nocapture print_ceilings`), for the `.in` files.
#[test]
#[ignore]
fn print_ceilings() {
    println!("--- stock_phrase_ceilings.in");
    for (f, n) in stock_phrase_counts() {
        println!("    (\"{f}\", {n}),");
    }
    let (files, _) = measures();
    println!("--- file_size_ceilings.in");
    for (key, _, len, _) in files.iter().flat_map(|(f, m)| long_file(f, m)) {
        println!("    (\"{key}\", {len}),");
    }
    println!("--- long_fn_ceilings.in");
    for (key, _, len, _) in files.iter().flat_map(|(f, m)| long_functions_in(f, m)) {
        println!("    (\"{key}\", {len}),");
    }
    println!("--- module_cycle_ceilings.in");
    let root = workspace_root();
    for crate_root in crate_roots() {
        let g = modules::Graph::of_crate(&crate_root, &root, &hook_tables());
        let rel = crate_root
            .strip_prefix(&root)
            .unwrap_or(&crate_root)
            .display()
            .to_string();
        for comp in modules::cycles(&g.edges) {
            println!("    (\n        \"{rel}\",\n        &[");
            for m in comp {
                println!("            \"{}\",", g.files[&m].display());
            }
            println!("        ],\n    ),");
        }
    }
}

#[test]
fn the_kit_names_no_driver() {
    // The driver runtime (the kit and the backends' shared code) is below every driver: a
    // driver's name or crate in it would be an arrow back up (issue 34: the null driver lived
    // in the kit, and the kit's bring-up called it).
    let mut named = Vec::new();
    for rel in rust_files()
        .into_iter()
        .filter(|r| r.starts_with("runtime/driver/src"))
    {
        for (i, line) in read(&rel).lines().enumerate() {
            // Docs may name the reference drivers as examples; code may not.
            if is_comment(line) {
                continue;
            }
            if ["NullDriver", "vulkan_null", "backend::null", "kit::null"]
                .iter()
                .any(|n| line.contains(n))
            {
                named.push(format!("{}:{}: {}", rel.display(), i + 1, line.trim()));
            }
        }
    }
    assert!(
        named.is_empty(),
        "the driver runtime names a driver (drivers are kit clients, in runtime/drivers):\n{}",
        named.join("\n")
    );
    assert!(
        !read(Path::new("runtime/driver/Cargo.toml")).contains("drivers/"),
        "the driver runtime depends on a driver crate"
    );
}
