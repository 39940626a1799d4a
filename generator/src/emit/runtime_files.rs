//! The hand-written runtime files a generated crate carries (`emit/runtime/*.rs`): real Rust,
//! compiled and linted where it runs (in the generated crate; `phf.rs` also here), copied
//! verbatim with the generated-file preamble so its comments and SAFETY notes arrive intact.
//! Everything else the emitters write is data (tables, per-command items).

use super::PREAMBLE;

/// `src/chain.rs`: the `pNext` walkers and their one bound.
pub const CHAIN: &str = include_str!("runtime/chain.rs");
/// `src/two_call.rs`: the two-call enumeration helpers (writer and reader).
pub const TWO_CALL: &str = include_str!("runtime/two_call.rs");
/// `src/dispatch_table.rs`: slot access and fill helpers of the dispatch tables.
pub const DISPATCH_TABLE: &str = include_str!("runtime/dispatch_table.rs");
/// `src/driver_resolve.rs`: the driver-side get-proc-addr rules and the entry-point guard.
pub const DRIVER_RESOLVE: &str = include_str!("runtime/driver_resolve.rs");
/// `src/recorder_runtime.rs`: the command recorder's arena, recording and chain walk.
pub const RECORDER_RUNTIME: &str = include_str!("runtime/recorder_runtime.rs");

/// `text` with the generated-file preamble (the regenerate line is added with every file's).
pub fn copy(text: &str) -> String {
    format!("// {PREAMBLE}\n{text}")
}
