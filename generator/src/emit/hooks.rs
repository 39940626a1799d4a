//! `src/hooks.rs`: the loader's name→function tables (`policy::LOADER_HOOKS`, issue 34 item 4).
//!
//! Each table becomes one arm of the exported `loader_hooks!` macro: a `match` on the command
//! name whose arms cast the loader's function to the command's function-pointer type as the
//! registry defines it (`pfn::PFN_vkX`, or a type written here for a command the selection
//! leaves out, such as the desktop surfaces), so a loader function whose signature drifts from
//! the registry does not compile. The macro expands in the loader, where the rows' `crate::`
//! paths and `cfg`s mean the loader's. `LOADER_HOOKS` lists the same rows as data, for tests
//! and tidy's module graph.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::{text, Ctx, PREAMBLE};
use crate::error::{Error, Result};
use crate::policy::{self, Hook, HookTable};

/// A table's rows the registry defines, each with the path of its function-pointer type inside
/// the generated crate (`pfn::PFN_vkX` when selected, `hooks::PFN_vkX` otherwise).
pub struct Row<'p> {
    pub hook: &'p Hook,
    pub pfn: String,
}

/// The rows of `table` this registry can type. A command the registry lacks is an error on the
/// registry the tables are written for and newer ones, and dropped on older ones.
pub fn rows<'p>(cx: &Ctx, table: &'p HookTable) -> Result<Vec<Row<'p>>> {
    let reg = cx.reg();
    let mut out = Vec::new();
    for hook in table.rows {
        if !hook.function.starts_with("crate::") {
            return Err(Error::Policy(format!(
                "LOADER_HOOKS table `{}`: the function of {} (`{}`) is not a path from the \
                 loader's root (`crate::…`)",
                table.name, hook.command, hook.function
            )));
        }
        if reg.resolve_command(hook.command).is_none() {
            if reg.header_version >= policy::LOADER_HOOKS_HEADER {
                return Err(Error::Policy(format!(
                    "LOADER_HOOKS table `{}` names {}, which vk.xml (header {}) does not define",
                    table.name, hook.command, reg.header_version
                )));
            }
            continue;
        }
        let module = if cx.sel.command(hook.command).is_some() {
            "pfn"
        } else {
            "hooks"
        };
        out.push(Row {
            hook,
            pfn: format!("$crate::{module}::PFN_{}", hook.command),
        });
    }
    Ok(out)
}

/// `#[cfg(…)] ` for a row compiled only under a cfg, else nothing.
fn cfg_attr(hook: &Hook) -> String {
    hook.cfg
        .map(|c| format!("#[cfg({c})] "))
        .unwrap_or_default()
}

/// The function-pointer type of a hooked command the selection leaves out, from the registry.
fn local_pfn(cx: &Ctx, name: &str) -> String {
    let cmd = cx.command(name);
    let params = text::params(cx, cmd)
        .iter()
        .map(|(n, t)| format!("    {n}: {t},\n"))
        .collect::<String>();
    let ret = text::ret_str(cx, &cmd.ret)
        .map(|r| format!(" -> {r}"))
        .unwrap_or_default();
    format!(
        "{}pub type PFN_{name} = unsafe extern \"system\" fn(\n{params}){ret};\n",
        text::doc_link(cx, name)
    )
}

/// The macro arm that answers `table`'s names, and the one that lists them.
fn macro_arms(table: &HookTable, rows: &[Row]) -> String {
    let mut out = String::new();
    let name = table.name;
    let _ = writeln!(out, "    ({name}, $name:expr) => {{");
    out.push_str("        match ::core::ffi::CStr::to_bytes($name) {\n");
    for r in rows {
        let (cmd, pfn) = (r.hook.command, &r.pfn);
        let _ = writeln!(out, "            {}b\"{cmd}\" => {{", cfg_attr(r.hook));
        let _ = writeln!(out, "                let f: {pfn} = {};", r.hook.function);
        out.push_str(
            "                // SAFETY: every function pointer has the same representation; the \
             caller casts it\n                // back to the type of the command it asked for.\n",
        );
        let _ = writeln!(
            out,
            "                ::core::option::Option::Some(::core::option::Option::Some(unsafe {{ \
             ::core::mem::transmute::<{pfn}, unsafe extern \"system\" fn()>(f) }}))"
        );
        out.push_str("            }\n");
    }
    out.push_str("            _ => ::core::option::Option::None,\n        }\n    };\n");
    let _ = writeln!(out, "    (names {name}) => {{{{");
    out.push_str("        const NAMES: &[&::core::ffi::CStr] = &[\n");
    for r in rows {
        let _ = writeln!(
            out,
            "            {}c\"{}\",",
            cfg_attr(r.hook),
            r.hook.command
        );
    }
    out.push_str("        ];\n        NAMES\n    }};\n");
    out
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut tables = Vec::new();
    for t in policy::LOADER_HOOKS {
        tables.push((t, rows(cx, t)?));
    }
    let mut out = format!(
        "// {PREAMBLE}\n//! The loader's name→function tables (vkgen's `policy::LOADER_HOOKS`): \
         [`loader_hooks!`](crate::loader_hooks)\n//! answers a command name with the loader's \
         own function, cast to the command's type as the\n//! registry defines it. \
         [`LOADER_HOOKS`] lists the same rows as data.\n\n\
         #![allow(non_camel_case_types, clippy::all)]\n\nuse core::ffi::CStr;\n\n"
    );
    out.push_str(
        "/// One row of a hook table.\n#[derive(Clone, Copy, Debug, PartialEq, Eq)]\n\
         pub struct LoaderHook {\n    /// The table: `loader_hooks!`'s first argument.\n    \
         pub table: &'static str,\n    pub command: &'static CStr,\n    \
         /// The loader's function, as a path from the loader crate's root.\n    \
         pub function: &'static str,\n    \
         /// The `cfg` the loader compiles the function under (`None`: always).\n    \
         pub cfg: Option<&'static str>,\n}\n\n",
    );
    out.push_str("/// Every row of every table, table by table.\npub const LOADER_HOOKS: &[LoaderHook] = &[\n");
    for (t, rows) in &tables {
        for r in rows {
            let cfg = r
                .hook
                .cfg
                .map(|c| format!("Some({c:?})"))
                .unwrap_or_else(|| "None".to_owned());
            let _ = writeln!(
                out,
                "    LoaderHook {{ table: {:?}, command: c\"{}\", function: {:?}, cfg: {cfg} }},",
                t.name, r.hook.command, r.hook.function
            );
        }
    }
    out.push_str("];\n\n");
    let names: BTreeSet<&str> = tables
        .iter()
        .flat_map(|(_, rows)| rows.iter().map(|r| r.hook.command))
        .collect();
    out.push_str("/// Every hooked command name, sorted, each once.\npub const LOADER_HOOK_NAMES: &[&CStr] = &[\n");
    for n in &names {
        let _ = writeln!(out, "    c\"{n}\",");
    }
    out.push_str("];\n");
    let local: BTreeSet<&str> = tables
        .iter()
        .flat_map(|(_, rows)| rows.iter())
        .filter(|r| r.pfn.starts_with("$crate::hooks::"))
        .map(|r| r.hook.command)
        .collect();
    for name in local {
        out.push('\n');
        out.push_str(&local_pfn(cx, name));
    }
    out.push_str(
        "\n/// `loader_hooks!(<table>, name)`: the loader's function for `name` (a `&CStr`) in \
         `<table>`, as\n/// `Option<PFN_vkVoidFunction>` (`None`: not one of the table's). \
         `loader_hooks!(names <table>)`:\n/// the table's names the loader compiles. Expanded \
         in the loader: the rows' `crate::` paths\n/// and `cfg`s are the loader's.\n",
    );
    for (t, _) in &tables {
        let _ = writeln!(out, "///\n/// `{}`: {}", t.name, t.doc);
    }
    out.push_str("#[macro_export]\nmacro_rules! loader_hooks {\n");
    for (t, rows) in &tables {
        out.push_str(&macro_arms(t, rows));
    }
    out.push_str("}\n");
    Ok(out)
}
