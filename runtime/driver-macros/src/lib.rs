//! `#[vkgen_driver::driver]`: put it on `impl Driver for X { … }` and the block gains
//! `fn implements(cmd)` answering true exactly for the hooks the block defines, so that the
//! generated get-proc-addr functions hand out those commands and nothing the driver left out
//! (the Vulkan rule: an unsupported command's proc address is NULL, not a stub).
//!
//! `#[vkgen_driver::driver(kit)]` also routes every other command to the driver kit's common
//! implementations (`vkgen_driver::kit::fallback`) and takes the supported and enabled
//! extensions from the kit's tables, for types that implement `kit::Kit`. Items the block
//! defines itself are left alone.
//!
//! `#[vkgen_driver::execute]`: put it on `impl Execute for E { … }` (the command recorder's
//! replay engine) and the block gains `fn implements(cmd)` answering true for the `cmd_*`
//! methods it defines and for the 1.0 forms the recorder routes to one of them
//! (`cmd_copy_buffer` when it defines `cmd_copy_buffer2`), so the requirements report can
//! name every advertised command the engine does not run.
//!
//! Why a macro: a trait cannot tell whether an impl overrode a default method, and a list kept
//! by hand drifts from the code. The hook → command mapping is by name: hook `create_buffer` is
//! `CommandId::CREATE_BUFFER` in the generated crate, so a name that is no hook fails to compile.

use proc_macro::TokenStream;
use quote::{format_ident, quote};
use syn::parse::Parser;
use syn::punctuated::Punctuated;
use syn::{parse_macro_input, ImplItem, ItemImpl, Meta, Token};

/// The `Driver` trait's methods that are not command hooks.
const NOT_HOOKS: &[&str] = &[
    "implements",
    "fallback",
    "supports_extension",
    "intercepts",
    "passthrough",
    "is_enabled_on_device",
    "unimplemented",
];

#[proc_macro_attribute]
pub fn driver(attr: TokenStream, item: TokenStream) -> TokenStream {
    let args = match Punctuated::<Meta, Token![,]>::parse_terminated.parse(attr) {
        Ok(a) => a,
        Err(e) => return e.to_compile_error().into(),
    };
    let mut kit = false;
    for a in &args {
        match a {
            Meta::Path(p) if p.is_ident("kit") => kit = true,
            other => {
                return syn::Error::new_spanned(other, "expected `kit` or nothing")
                    .to_compile_error()
                    .into()
            }
        }
    }
    let mut imp = parse_macro_input!(item as ItemImpl);
    let mut defined = std::collections::BTreeSet::new();
    for it in &imp.items {
        if let ImplItem::Fn(f) = it {
            defined.insert(f.sig.ident.to_string());
        }
    }
    let hooks: Vec<_> = defined
        .iter()
        .filter(|n| !NOT_HOOKS.contains(&n.as_str()))
        .map(|n| format_ident!("{}", n.trim_start_matches("r#").to_uppercase()))
        .collect();
    let id = quote!(::vkgen_driver::generated::commands::CommandId);
    if !defined.contains("implements") {
        let body = if hooks.is_empty() {
            quote!(false)
        } else {
            quote!(matches!(cmd, #(#id::#hooks)|*))
        };
        imp.items.push(syn::parse_quote! {
            fn implements(cmd: #id) -> bool {
                #body
            }
        });
    }
    if kit && !defined.contains("fallback") {
        imp.items.push(syn::parse_quote! {
            fn fallback(cmd: #id) -> ::vkgen_driver::ash::vk::PFN_vkVoidFunction {
                ::vkgen_driver::kit::fallback::<Self>(cmd)
            }
        });
    }
    if kit && !defined.contains("supports_extension") {
        imp.items.push(syn::parse_quote! {
            fn supports_extension(ext: ::vkgen_driver::generated::extensions::ExtensionId) -> bool {
                ::vkgen_driver::kit::supports_extension::<Self>(ext)
            }
        });
    }
    if kit && !defined.contains("is_enabled_on_device") {
        imp.items.push(syn::parse_quote! {
            unsafe fn is_enabled_on_device(
                device: u64,
                ext: ::vkgen_driver::generated::extensions::ExtensionId,
            ) -> bool {
                // SAFETY: the generated resolver passes a device handle of this driver.
                unsafe { ::vkgen_driver::kit::is_enabled_on_device::<Self>(device, ext) }
            }
        });
    }
    quote!(#imp).into()
}

/// The `Execute` trait's methods that are not commands.
const NOT_COMMANDS: &[&str] = &["implements", "unimplemented"];

#[proc_macro_attribute]
pub fn execute(attr: TokenStream, item: TokenStream) -> TokenStream {
    if !attr.is_empty() {
        return syn::Error::new(proc_macro2::Span::call_site(), "expected no arguments")
            .to_compile_error()
            .into();
    }
    let mut imp = parse_macro_input!(item as ItemImpl);
    let mut defined = std::collections::BTreeSet::new();
    for it in &imp.items {
        if let ImplItem::Fn(f) = it {
            defined.insert(f.sig.ident.to_string());
        }
    }
    if defined.contains("implements") {
        return quote!(#imp).into();
    }
    let commands: Vec<_> = defined
        .iter()
        .filter(|n| !NOT_COMMANDS.contains(&n.as_str()))
        .map(|n| format_ident!("{}", n.trim_start_matches("r#").to_uppercase()))
        .collect();
    let id = quote!(::vkgen_driver::generated::commands::CommandId);
    let defines = if commands.is_empty() {
        quote!(false)
    } else {
        quote!(matches!(cmd, #(#id::#commands)|*))
    };
    // A 1.0 form the block leaves out runs when its `…2` method does (the generated default
    // method converts): the recorder's route table says which.
    imp.items.push(syn::parse_quote! {
        fn implements(cmd: #id) -> bool {
            fn defines(cmd: #id) -> bool {
                #defines
            }
            ::vkgen_driver::generated::recorder::implemented(cmd, defines)
        }
    });
    quote!(#imp).into()
}
