//! `src/pfn.rs`: one function-pointer type per selected command, aliases as type aliases.

use super::{text, Ctx, PREAMBLE};
use crate::error::Result;

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut out = format!(
        "// {PREAMBLE}\n//! Function-pointer types of every selected command.\n\n#![allow(non_camel_case_types, clippy::all)]\n"
    );
    for c in &cx.sel.commands {
        out.push('\n');
        out.push_str(&text::doc_link(cx, &c.name));
        if c.name != c.canonical {
            out.push_str(&format!("pub type PFN_{} = PFN_{};\n", c.name, c.canonical));
            continue;
        }
        let cmd = cx.command(&c.name);
        let params = text::params(cx, cmd);
        let ret = text::ret_str(cx, &cmd.ret)
            .map(|r| format!(" -> {r}"))
            .unwrap_or_default();
        let one = format!(
            "pub type PFN_{} = unsafe extern \"system\" fn({}){ret};",
            c.name,
            params
                .iter()
                .map(|(n, t)| format!("{n}: {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if one.len() <= 100 {
            out.push_str(&one);
            out.push('\n');
        } else {
            out.push_str(&format!(
                "pub type PFN_{} = unsafe extern \"system\" fn(\n",
                c.name
            ));
            for (n, t) in &params {
                out.push_str(&format!("    {n}: {t},\n"));
            }
            out.push_str(&format!("){ret};\n"));
        }
    }
    Ok(out)
}
