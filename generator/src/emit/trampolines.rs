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

use proc_macro2::TokenStream;
use quote::quote;

use super::{ident, Ctx, Level};
use crate::error::Result;
use crate::{names, policy};

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut fns = Vec::new();
    for c in cx
        .sel
        .commands
        .iter()
        .filter(|c| c.exported && !policy::is_loader_intercepted_command(&c.name))
    {
        let table = match c.level {
            Level::Instance | Level::PhysicalDevice => quote!(InstanceDispatchTable),
            Level::Device => quote!(DeviceDispatchTable),
            Level::Global => continue,
        };
        let cmd = cx.command(&c.name);
        let (args, types) = cx.params(cmd);
        let ret = cx.ret_tokens(&cmd.ret);
        let fail = cx.failure_value(&cmd.ret);
        let field = ident(&names::command_field(&c.canonical));
        let name = ident(&c.name);
        let first = &args[0];
        let doc = format!(
            "[`{}`]({})",
            c.name,
            cx.spec_link(&c.name).trim_matches(['<', '>'])
        );
        fns.push(quote! {
            #[doc = #doc]
            #[no_mangle]
            pub unsafe extern "system" fn #name(#(#args: #types),*) -> #ret {
                let table = crate::vk::Handle::as_raw(#first) as usize as *const *const crate::dispatch::#table;
                if table.is_null() {
                    return #fail;
                }
                // SAFETY: a valid dispatchable handle's first word points at the loader's data for
                // it, which starts with this level's dispatch table (the API contract of libvulkan).
                unsafe { ((**table).#field)(#(#args),*) }
            }
        });
    }
    let tokens: TokenStream = quote! { #(#fns)* };
    let parsed: syn::File = syn::parse2(tokens).map_err(|e| crate::error::Error::Format {
        file: "trampolines.rs".into(),
        message: e.to_string(),
    })?;
    Ok(format!(
        "// {}\n// Exported trampolines of libvulkan.so, included by the loader with `include!`\n// (see the module docs of generator/src/emit/trampolines.rs for why).\n\n{}",
        super::PREAMBLE,
        prettyplease::unparse(&parsed)
    ))
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
