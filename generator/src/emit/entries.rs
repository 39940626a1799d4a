//! `src/entries.rs`: the typed command map a driver is assembled from (Mesa's
//! `vk_device_entrypoint_table` and `vk_device_dispatch_table_from_entrypoints`).
//!
//! One `Option<PFN_vk…>` field per canonical command, so a component of the driver kit states
//! what it implements as a struct literal the compiler type-checks against the command's
//! signature, instead of a hand-written `match` that transmutes. Components are merged in
//! priority order with `or` (an empty slot takes the lower table's entry, Mesa's
//! `overwrite = false`), and `get` answers a get-proc-addr lookup by command id, aliases
//! included. Everything here is one shape repeated per command, which is why it is generated.

use std::fmt::Write;

use super::{text, Ctx, PREAMBLE};
use crate::error::Result;
use crate::names;

pub fn emit(cx: &Ctx) -> Result<String> {
    let index = cx.command_index();
    let [mut fields, mut empty, mut get, mut or, mut retain, mut all] =
        std::array::from_fn::<String, 6, _>(|_| String::new());
    for c in cx.sel.canonical_commands() {
        let field = names::command_field(&c.name);
        let id = index[c.name.as_str()];
        let ids: Vec<String> = cx
            .sel
            .commands
            .iter()
            .filter(|a| a.canonical == c.name)
            .map(|a| index[a.name.as_str()].to_string())
            .collect();
        fields.push_str(&text::doc_link(cx, &c.name));
        let _ = writeln!(fields, "#[doc(alias = \"{}\")]", c.name);
        let _ = writeln!(fields, "pub {field}: Option<crate::pfn::PFN_{}>,", c.name);
        let _ = writeln!(empty, "{field}: None,");
        let _ = writeln!(
            get,
            "{} => self.{field}.map(|f| {{\n    \
             // SAFETY: every function pointer has the same representation; the caller casts\n    \
             // the result back to `PFN_{}`, the type of the command it asked for.\n    \
             unsafe {{ core::mem::transmute::<crate::pfn::PFN_{}, unsafe extern \"system\" fn()>(f) }}\n}}),",
            ids.join(" | "),
            c.name,
            c.name
        );
        let _ = writeln!(or, "{field}: self.{field}.or(lower.{field}),");
        let _ = writeln!(
            retain,
            "if !keep(CommandId({id})) {{\n    self.{field} = None;\n}}"
        );
        let _ = writeln!(all, "{field}: Some(entry::{field}::<D>),");
    }
    let mut out = format!("// {PREAMBLE}\n");
    out.push_str(HEADER);
    let _ = write!(
        out,
        "
/// One entry point per canonical command, each typed as its command's `PFN_vk…`; `None` is
/// \"this table does not implement it\". See the module notes.
#[derive(Clone, Copy)]
pub struct EntryTable {{
    @fields
}}

impl Default for EntryTable {{
    fn default() -> Self {{
        Self::EMPTY
    }}
}}

impl EntryTable {{
    /// The table that implements nothing; `..EntryTable::EMPTY` completes a component's
    /// struct literal.
    pub const EMPTY: Self = Self {{
        @empty
    }};

    /// The entry point of `cmd` (an alias answers with its command's entry), as the
    /// `PFN_vkVoidFunction` a get-proc-addr function returns.
    pub fn get(&self, cmd: CommandId) -> vk::PFN_vkVoidFunction {{
        match cmd.0 {{
            @get
            _ => None,
        }}
    }}

    /// This table with each empty slot taken from `lower`: merging components from the
    /// highest priority down (Mesa's `overwrite = false`).
    #[must_use]
    pub fn or(self, lower: &Self) -> Self {{
        Self {{
            @or
        }}
    }}

    /// Empties every slot whose command `keep` refuses.
    pub fn retain(&mut self, keep: impl Fn(CommandId) -> bool) {{
        @retain
    }}

    /// Every entry point of driver `D`: each command's generated `extern \"system\"` function,
    /// which calls `D`'s hook (implemented or not) behind the panic guard.
    pub fn entry_points<D: Driver>() -> Self {{
        Self {{
            @all
        }}
    }}
}}
"
    );
    Ok(text::fill_all(
        &out,
        &[
            ("@fields", &fields),
            ("@empty", &empty),
            ("@get", &get),
            ("@or", &or),
            ("@retain", &retain),
            ("@all", &all),
        ],
    ))
}

const HEADER: &str = "\
//! The typed command map a driver is assembled from (Mesa's `vk_device_entrypoint_table`):
//! [`EntryTable`] has one slot per command, typed as the command, so a component states what
//! it implements as a struct literal that the compiler checks; components merge from the
//! highest priority down with [`EntryTable::or`].

#![allow(clippy::all)]

use crate::commands::CommandId;
use crate::driver::{entry, Driver};
use crate::vk;
";
