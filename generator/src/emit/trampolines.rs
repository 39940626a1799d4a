//! `src/trampolines.rs`: the loader's exported entry points (Android's export rule: core commands
//! plus VK_KHR_surface, VK_KHR_swapchain, VK_KHR_android_surface and the AHB extension), minus the
//! ones the loader implements itself. Each reads the dispatch table from the first word of its
//! dispatchable first argument and calls through it.
//!
//! The file is included textually by the loader (`include!`), not compiled into this crate's library
//! (only under the `exports` feature, to check it): exported symbols must come from exactly one
//! shared object, and a cargo feature would leak them into every driver built in the same workspace.
//! So it has no inner attributes and refers to `crate::vk` and `crate::dispatch`, which the including
//! crate re-exports.

use super::{text, Ctx, Level};
use crate::error::Result;
use crate::{names, policy};

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut out = format!(
        "// {}\n// Exported trampolines of libvulkan.so, included by the loader with `include!`\n// (see the module docs of generator/src/emit/trampolines.rs for why).\n",
        super::PREAMBLE
    );
    for c in cx
        .sel
        .commands
        .iter()
        .filter(|c| c.exported && !policy::is_loader_intercepted_command(&c.name))
    {
        let table = match c.level {
            Level::Instance | Level::PhysicalDevice => "InstanceDispatchTable",
            Level::Device => "DeviceDispatchTable",
            Level::Global => continue,
        };
        let cmd = cx.command(&c.name);
        let params = text::params(cx, cmd);
        let ret = text::ret_str(cx, &cmd.ret);
        let field = names::command_field(&c.canonical);
        let args = params
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let first = &params[0].0;
        out.push('\n');
        out.push_str(&text::doc_link(cx, &c.name));
        out.push_str("#[no_mangle]\n");
        let sig = text::Sig {
            head: "pub unsafe extern \"system\" fn",
            name: &c.name,
            generics: "",
            params: &params,
            ret: ret.as_deref(),
        };
        sig.write_open(&mut out, "");
        out.push_str(&format!(
            "    let table = crate::vk::Handle::as_raw({first}) as usize\n        as *const *const crate::dispatch::{table};\n"
        ));
        out.push_str(&format!(
            "    if table.is_null() {{\n        return {};\n    }}\n",
            text::failure_str(&cmd.ret)
        ));
        out.push_str("    // SAFETY: a valid dispatchable handle's first word points at the loader's data for\n");
        out.push_str("    // it, which starts with this level's dispatch table (the API contract of libvulkan).\n");
        out.push_str(&format!(
            "    unsafe {{ ((**table).{field})({args}) }}\n}}\n"
        ));
    }
    Ok(out)
}

/// The exported symbol list (trampolines plus the loader's own intercepted exports).
pub fn exported_symbols(cx: &Ctx) -> Vec<String> {
    cx.sel
        .commands
        .iter()
        .filter(|c| c.exported)
        .map(|c| c.name.clone())
        .collect()
}
