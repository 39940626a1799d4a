//! Runtime code reads the environment only through `vkgen_platform::env` (issue 36): the loader
//! and the drivers run inside setuid programs, where a variable read any other way lets a user
//! choose what a privileged process loads (`VKGEN_HOST_ICD` did). Build scripts, integration tests,
//! `#[cfg(test)]` modules and the reader itself are exempt; so is the generator, a command-line
//! tool that never runs setuid. Test helpers that ship in a library (`vkgen_driver::testing`)
//! are covered: they are in every driver a setuid program may load.

use std::path::Path;

/// The one file allowed to call `std::env::var*`.
pub const READER: &str = "runtime/platform/src/env.rs";

/// Whether `rel` is runtime code the rule covers: a runtime crate's or the generated crate's
/// library sources, not build scripts, integration tests, benches or examples.
pub fn is_runtime_code(rel: &Path) -> bool {
    let s = rel.to_string_lossy();
    (s.starts_with("runtime/") || s.starts_with("generated/src/"))
        && !s.ends_with("/build.rs")
        && !["/tests/", "/benches/", "/examples/"]
            .iter()
            .any(|d| s.contains(d))
        && s != READER
}

/// 1-based lines of `text` (up to its first `#[cfg(test)]`) that read a variable directly:
/// `env::var`, `var_os`, `vars`, `vars_os` in any spelling that names `env::`, or libc's
/// `getenv`/`secure_getenv`.
pub fn direct_reads(text: &str, code_part: fn(&str) -> &str) -> Vec<usize> {
    let text = text.find("#[cfg(test)]").map_or(text, |i| &text[..i]);
    text.lines()
        .enumerate()
        .filter(|(_, line)| {
            let code = code_part(line);
            code.contains("env::var") || code.contains("getenv(")
        })
        .map(|(i, _)| i + 1)
        .collect()
}
