//! `src/vk.rs`: `pub use ash::vk::*` plus every type of the selection that ash 0.38 lacks (1.4
//! registries, our Android native-buffer spec 11), and enum values ash lacks as extension traits.

use std::collections::BTreeSet;

use proc_macro2::TokenStream;
use quote::{format_ident, quote};

use super::{ident, Ctx, Place};
use crate::error::Result;
use crate::model::*;
use crate::names;
use crate::registry::enum_value;

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut items = Vec::new();
    let mut done: BTreeSet<String> = BTreeSet::new();
    let reg = cx.reg();
    let mut needed: BTreeSet<&str> = cx.sel.types.iter().map(String::as_str).collect();
    // The bits enum of an emitted bitmask is folded into it; an emitted FlagBits enum needs its Flags.
    for t in cx.sel.types.iter() {
        if let Some(Type {
            kind: TypeKind::Bitmask { bits: Some(b), .. },
            ..
        }) = reg.types.get(t)
        {
            needed.insert(b);
        }
    }
    for name in needed {
        let Some(ty) = reg.types.get(name) else {
            continue;
        };
        if matches!(
            ty.kind,
            TypeKind::Define | TypeKind::Include | TypeKind::External
        ) || !cx.emits_type(name)
        {
            continue;
        }
        let rust = names::type_name(name);
        if !done.insert(rust.clone()) {
            continue;
        }
        if let Some(item) = emit_type(cx, ty, &rust) {
            items.push(item);
        }
    }
    // Enum values ash's types lack, as associated consts of per-type extension traits.
    let mut traits = Vec::new();
    for group in reg.enums.values() {
        let rust = names::type_name(&group.name);
        if cx.emits_type(&group.name) || !cx.ash.has(&rust) || !cx.sel.types.contains(&group.name) {
            continue;
        }
        let mut consts = Vec::new();
        let mut seen = BTreeSet::new();
        for v in &group.values {
            if v.extension
                .as_ref()
                .is_some_and(|e| !cx.sel.is_selected_extension(e))
            {
                continue;
            }
            let cname = names::variant_name(&group.name, &v.name);
            if cx.ash.has(&format!("{rust}::{cname}")) || !seen.insert(cname.clone()) {
                continue;
            }
            let Some(value) = enum_value(group, &v.value, 0) else {
                continue;
            };
            let id = ident(&cname);
            let lit = value_literal(group, value);
            let doc = format!("`{}`", v.name);
            consts.push((
                quote!(#[doc = #doc] const #id: Self;),
                quote!(const #id: Self = Self::from_raw(#lit);),
            ));
        }
        if consts.is_empty() {
            continue;
        }
        let ty = ident(&rust);
        let tr = format_ident!("{}Ext", rust);
        let doc = format!(
            "Values of `{}` that ash 0.38 lacks. Bring the trait into scope to use them.",
            group.name
        );
        let (decls, defs): (Vec<_>, Vec<_>) = consts.into_iter().unzip();
        traits.push(quote! {
            #[doc = #doc]
            pub trait #tr: Sized { #(#decls)* }
            impl #tr for #ty { #(#defs)* }
        });
    }
    let tokens = quote! {
        #![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, clippy::all)]
        pub use ash::vk::*;
        #(#items)*
        #(#traits)*
    };
    super::format_file(
        "vk.rs",
        "Vulkan types: ash 0.38's, plus the ones it lacks for this registry (and the Android\nnative-buffer types at spec 11, which replace ash's spec-8 definitions).",
        tokens,
    )
}

fn value_literal(group: &EnumGroup, v: i64) -> TokenStream {
    if group.bitmask {
        if group.width64 {
            let l = proc_macro2::Literal::u64_unsuffixed(v as u64);
            quote!(#l)
        } else {
            let l = proc_macro2::Literal::u32_unsuffixed(v as u32);
            quote!(#l)
        }
    } else {
        let l = proc_macro2::Literal::i32_unsuffixed(v as i32);
        quote!(#l)
    }
}

fn emit_type(cx: &Ctx, ty: &Type, rust: &str) -> Option<TokenStream> {
    let id = ident(rust);
    let doc = format!(
        "[`{}`]({})",
        ty.name,
        cx.spec_link(&ty.name).trim_matches(['<', '>'])
    );
    if let Some(target) = &ty.alias {
        let t = ident(&names::type_name(target));
        if names::type_name(target) == rust {
            return None;
        }
        return Some(if cx.has_lifetime(target) {
            quote!(#[doc = #doc] pub type #id<'a> = #t<'a>;)
        } else {
            quote!(#[doc = #doc] pub type #id = #t;)
        });
    }
    let reg = cx.reg();
    Some(match &ty.kind {
        TypeKind::Basetype {
            underlying,
            pointer,
        } => match underlying {
            Some(u) => {
                let u = cx.base_tokens(u, Place::Field);
                if *pointer {
                    quote!(#[doc = #doc] pub type #id = *mut #u;)
                } else {
                    quote!(#[doc = #doc] pub type #id = #u;)
                }
            }
            None => quote!(#[doc = #doc] pub type #id = core::ffi::c_void;),
        },
        TypeKind::Handle {
            dispatchable,
            object_type,
            ..
        } => {
            let obj = object_type
                .as_deref()
                .map(|o| ident(&names::variant_name("VkObjectType", o)))
                .map(|o| quote!(ObjectType::#o))
                .unwrap_or(quote!(ObjectType::UNKNOWN));
            if *dispatchable {
                quote! {
                    #[doc = #doc]
                    #[repr(transparent)]
                    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
                    pub struct #id(pub *mut u8);
                    impl Default for #id { fn default() -> Self { Self(core::ptr::null_mut()) } }
                    // SAFETY: a dispatchable handle is an opaque pointer Vulkan lets any thread use.
                    unsafe impl Send for #id {}
                    // SAFETY: as above; external synchronisation is the application's duty.
                    unsafe impl Sync for #id {}
                    impl Handle for #id {
                        const TYPE: ObjectType = #obj;
                        fn as_raw(self) -> u64 { self.0 as u64 }
                        fn from_raw(x: u64) -> Self { Self(x as *mut u8) }
                    }
                }
            } else {
                quote! {
                    #[doc = #doc]
                    #[repr(transparent)]
                    #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]
                    pub struct #id(pub u64);
                    impl Handle for #id {
                        const TYPE: ObjectType = #obj;
                        fn as_raw(self) -> u64 { self.0 }
                        fn from_raw(x: u64) -> Self { Self(x) }
                    }
                }
            }
        }
        TypeKind::Enum | TypeKind::Bitmask { .. } => {
            let (group_name, width64, bitmask) = match &ty.kind {
                TypeKind::Bitmask { bits, width64 } => (bits.clone(), *width64, true),
                _ => (
                    Some(ty.name.clone()),
                    false,
                    reg.enums.get(&ty.name).is_some_and(|g| g.bitmask),
                ),
            };
            let group = group_name.as_deref().and_then(|g| reg.enums.get(g));
            let width64 = width64 || group.is_some_and(|g| g.width64);
            let repr = if bitmask {
                if width64 {
                    quote!(u64)
                } else {
                    quote!(u32)
                }
            } else {
                quote!(i32)
            };
            let mut consts = Vec::new();
            let mut seen = BTreeSet::new();
            if let Some(g) = group {
                for v in &g.values {
                    if v.extension
                        .as_ref()
                        .is_some_and(|e| !cx.sel.is_selected_extension(e))
                    {
                        continue;
                    }
                    let cname = names::variant_name(&g.name, &v.name);
                    if !seen.insert(cname.clone()) {
                        continue;
                    }
                    let Some(value) = enum_value(g, &v.value, 0) else {
                        continue;
                    };
                    let c = ident(&cname);
                    let lit = value_literal(g, value);
                    let vdoc = format!("`{}`", v.name);
                    consts.push(quote!(#[doc = #vdoc] pub const #c: Self = Self(#lit);));
                }
            }
            quote! {
                #[doc = #doc]
                #[repr(transparent)]
                #[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]
                pub struct #id(pub #repr);
                impl #id {
                    pub const fn from_raw(x: #repr) -> Self { Self(x) }
                    pub const fn as_raw(self) -> #repr { self.0 }
                    #(#consts)*
                }
            }
        }
        TypeKind::Struct(agg) | TypeKind::Union(agg) => {
            let fields = fields(cx, &agg.members);
            if matches!(ty.kind, TypeKind::Union(_)) {
                quote! {
                    #[doc = #doc]
                    #[repr(C)]
                    #[derive(Clone, Copy)]
                    pub union #id { #(#fields,)* }
                }
            } else {
                quote! {
                    #[doc = #doc]
                    #[repr(C)]
                    #[derive(Clone, Copy)]
                    pub struct #id { #(#fields,)* }
                }
            }
        }
        TypeKind::Funcpointer { ret, params } => {
            let ret = cx.ret_tokens(ret);
            let ps = params.iter().map(|p| {
                let n = format_ident!("{}", super::param_name(&p.name));
                let t = cx.type_tokens(&p.ty, Place::Signature);
                quote!(#n: #t)
            });
            quote!(#[doc = #doc] pub type #id = Option<unsafe extern "system" fn(#(#ps),*) -> #ret>;)
        }
        TypeKind::Define | TypeKind::Include | TypeKind::External => return None,
    })
}

/// Struct fields; runs of C bitfields share one storage word, named after the members it holds.
fn fields(cx: &Ctx, members: &[Field]) -> Vec<TokenStream> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < members.len() {
        let m = &members[i];
        if m.ty.bitfield.is_some() {
            let storage = cx.base_tokens(&m.ty.base, Place::Field);
            let mut bits = 0u32;
            let mut parts = Vec::new();
            let unit = match m.ty.base.as_str() {
                "uint64_t" | "int64_t" | "VkDeviceAddress" | "VkDeviceSize" => 64,
                _ => 32,
            };
            while i < members.len() {
                let Some(b) = members[i].ty.bitfield else {
                    break;
                };
                if bits + b as u32 > unit {
                    break;
                }
                bits += b as u32;
                parts.push(
                    names::field_name(&members[i].name)
                        .trim_start_matches("r#")
                        .to_owned(),
                );
                i += 1;
            }
            let name = format_ident!("{}", parts.join("_and_"));
            out.push(quote!(pub #name: #storage));
            continue;
        }
        let name = ident(&names::field_name(&m.name));
        let t = cx.type_tokens(&m.ty, Place::Field);
        out.push(quote!(pub #name: #t));
        i += 1;
    }
    out
}
