//! `src/dispatch.rs`: the instance- and device-level dispatch tables. Fields are plain function
//! pointers, never null (a generated stub stands in for what the provider lacks), so a trampoline
//! is two loads and a jump; a bitset remembers which entries are real.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{ident, Ctx, Level};
use crate::error::Result;
use crate::names;

pub fn emit(cx: &Ctx) -> Result<String> {
    let inst = table(
        cx,
        "InstanceDispatchTable",
        |l| l.is_instance_table(),
        "instance (`VkInstance`, `VkPhysicalDevice`)",
    );
    let dev = table(
        cx,
        "DeviceDispatchTable",
        |l| l == Level::Device,
        "device (`VkDevice`, `VkQueue`, `VkCommandBuffer`)",
    );
    let tokens = quote! {
        #![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
        use core::ffi::CStr;
        use crate::{pfn, vk};

        /// The first name `gpa` resolves, in order.
        fn first(gpa: &mut dyn FnMut(&CStr) -> vk::PFN_vkVoidFunction, names: &[&CStr]) -> vk::PFN_vkVoidFunction {
            names.iter().find_map(|n| gpa(n))
        }

        #inst
        #dev
    };
    super::format_file(
        "dispatch.rs",
        "Dispatch tables filled from a get-proc-addr function; missing entries point at stubs that\nreturn VK_ERROR_FEATURE_NOT_PRESENT (or nothing), so callers never jump to null.",
        tokens,
    )
}

fn table(cx: &Ctx, name: &str, pick: impl Fn(Level) -> bool, what: &str) -> TokenStream {
    let tname = format_ident!("{}", name);
    let stub_mod = format_ident!("{}_stubs", heck::ToSnakeCase::to_snake_case(name));
    let mut fields = Vec::new();
    let mut inits = Vec::new();
    let mut loads = Vec::new();
    let mut stubs = Vec::new();
    let cmds: Vec<_> = cx
        .sel
        .canonical_commands()
        .filter(|c| pick(c.level))
        .collect();
    for (i, c) in cmds.iter().enumerate() {
        let field = ident(&names::command_field(&c.name));
        let pfn = ident(&format!("PFN_{}", c.name));
        let doc = format!(
            "[`{}`]({})",
            c.name,
            cx.spec_link(&c.name).trim_matches(['<', '>'])
        );
        fields.push(quote!(#[doc = #doc] pub #field: pfn::#pfn));
        inits.push(quote!(#field: #stub_mod::#field));
        let mut all_names = vec![c.name.clone()];
        all_names.extend(
            cx.sel
                .commands
                .iter()
                .filter(|a| a.canonical == c.name && a.name != c.name)
                .map(|a| a.name.clone()),
        );
        let lits = all_names
            .iter()
            .map(|n| Literal::c_string(&std::ffi::CString::new(n.clone()).expect("no NUL")));
        let word = Literal::usize_unsuffixed(i / 64);
        let bit = Literal::u64_unsuffixed(1u64 << (i % 64));
        loads.push(quote! {
            if let Some(f) = first(gpa, &[#(#lits),*]) {
                // SAFETY: the provider returned this function for this name, so it has this
                // signature (the caller's contract).
                t.#field = unsafe { core::mem::transmute::<unsafe extern "system" fn(), pfn::#pfn>(f) };
                t.present[#word] |= #bit;
            }
        });
        let cmd = cx.command(&c.name);
        let types: Vec<TokenStream> = cmd.params.iter().map(|p| cx.param_type(&p.ty)).collect();
        let args: Vec<_> = (0..types.len()).map(|i| format_ident!("_a{}", i)).collect();
        let ret = cx.ret_tokens(&cmd.ret);
        let fail = cx.failure_value(&cmd.ret);
        stubs.push(quote! {
            pub(super) unsafe extern "system" fn #field(#(#args: #types),*) -> #ret { #fail }
        });
    }
    let n = Literal::usize_unsuffixed(cmds.len());
    let words = Literal::usize_unsuffixed(cmds.len().div_ceil(64).max(1));
    let doc = format!("Every {what} command of the selection, in registry order.");
    quote! {
        #[doc = #doc]
        #[repr(C)]
        #[derive(Clone)]
        pub struct #tname {
            #(#fields,)*
            present: [u64; #words],
        }

        #[allow(unused_variables, clippy::unused_unit)]
        mod #stub_mod {
            #(#stubs)*
        }

        impl #tname {
            /// Number of entries (slots).
            pub const LEN: usize = #n;

            /// A table of stubs only.
            pub fn empty() -> Self {
                Self { #(#inits,)* present: [0; #words] }
            }

            /// Fills the table from `gpa`, trying each command's name and then its aliases.
            ///
            /// # Safety
            /// `gpa` must return functions whose signatures match the names asked for.
            pub unsafe fn load(gpa: &mut dyn FnMut(&CStr) -> vk::PFN_vkVoidFunction) -> Self {
                let mut t = Self::empty();
                #(#loads)*
                t
            }

            /// Whether `slot` holds the provider's function (not a stub).
            pub fn is_present(&self, slot: usize) -> bool {
                slot < Self::LEN && self.present[slot / 64] & (1 << (slot % 64)) != 0
            }

            /// The entry at `slot` (see `commands::CommandInfo::slot`), stubs included.
            pub fn get(&self, slot: usize) -> vk::PFN_vkVoidFunction {
                if slot >= Self::LEN {
                    return None;
                }
                // SAFETY: the struct is repr(C) and starts with LEN function pointers, which have
                // the size and alignment of `unsafe extern "system" fn()`.
                unsafe { Some(*(self as *const Self as *const unsafe extern "system" fn()).add(slot)) }
            }

            /// Replaces the entry at `slot` (the loader installs its own hooks this way).
            ///
            /// # Safety
            /// `f` must have the signature of the command at `slot`.
            pub unsafe fn set(&mut self, slot: usize, f: unsafe extern "system" fn()) {
                if slot >= Self::LEN {
                    return;
                }
                // SAFETY: as in `get`; the caller vouches for the signature.
                unsafe { *(self as *mut Self as *mut unsafe extern "system" fn()).add(slot) = f };
                self.present[slot / 64] |= 1 << (slot % 64);
            }
        }

        impl core::fmt::Debug for #tname {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                let present = (0..Self::LEN).filter(|&s| self.is_present(s)).count();
                write!(f, "{} {{ {present} of {} present }}", stringify!(#tname), Self::LEN)
            }
        }
    }
}
