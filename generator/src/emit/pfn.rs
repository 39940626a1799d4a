//! `src/pfn.rs`: one function-pointer type per selected command, aliases as type aliases.

use quote::quote;

use super::{ident, Ctx};
use crate::error::Result;

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut items = Vec::new();
    for c in &cx.sel.commands {
        let pfn = ident(&format!("PFN_{}", c.name));
        let doc = format!(
            "[`{}`]({})",
            c.name,
            cx.spec_link(&c.name).trim_matches(['<', '>'])
        );
        if c.name != c.canonical {
            let target = ident(&format!("PFN_{}", c.canonical));
            items.push(quote!(#[doc = #doc] pub type #pfn = #target;));
            continue;
        }
        let cmd = cx.command(&c.name);
        let (names, types) = cx.params(cmd);
        let ret = cx.ret_tokens(&cmd.ret);
        items.push(quote! {
            #[doc = #doc]
            pub type #pfn = unsafe extern "system" fn(#(#names: #types),*) -> #ret;
        });
    }
    let tokens = quote! {
        #![allow(non_camel_case_types, clippy::all)]
        #(#items)*
    };
    super::format_file(
        "pfn.rs",
        "Function-pointer types of every selected command.",
        tokens,
    )
}
