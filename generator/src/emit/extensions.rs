//! `src/extensions.rs`: the extension table (name, number, spec version, kind, promotion,
//! dependencies, Android policy) with a perfect-hash lookup.

use proc_macro2::Literal;
use quote::quote;

use super::{ident, phf, version_literal, Ctx};
use crate::error::Result;
use crate::model::{parse_version, ExtensionKind};
use crate::policy;

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut infos = Vec::new();
    let mut ids = Vec::new();
    for (i, e) in cx.sel.extensions.iter().enumerate() {
        let name = Literal::c_string(&std::ffi::CString::new(e.name.clone()).expect("no NUL"));
        let number = Literal::u32_unsuffixed(e.number);
        let spec = Literal::u32_unsuffixed(e.spec_version);
        let kind = match e.kind {
            Some(ExtensionKind::Instance) => quote!(ExtensionKind::Instance),
            _ => quote!(ExtensionKind::Device),
        };
        let promoted = match e
            .promoted_to
            .as_deref()
            .filter(|p| p.starts_with("VK_VERSION_"))
            .and_then(parse_version)
        {
            Some(v) => {
                let v = version_literal(v);
                quote!(Some(#v))
            }
            None => quote!(None),
        };
        let promoted_ext = match e
            .promoted_to
            .as_deref()
            .filter(|p| !p.starts_with("VK_VERSION_"))
        {
            Some(p) => quote!(Some(#p)),
            None => quote!(None),
        };
        let depends = e.depends.clone().unwrap_or_default();
        let platform = match &e.platform {
            Some(p) => quote!(Some(#p)),
            None => quote!(None),
        };
        let deprecated_by = match &e.deprecated_by {
            Some(p) => quote!(Some(#p)),
            None => quote!(None),
        };
        let blocked = policy::is_blocked(&e.name);
        let exported = policy::is_exported_extension(&e.name);
        let loader_implemented = policy::is_loader_implemented(&e.name);
        let intercepted = policy::is_intercepted_extension(&e.name);
        let internal = policy::is_internal(&e.name);
        infos.push(quote! {
            ExtensionInfo {
                name: #name,
                number: #number,
                spec_version: #spec,
                kind: #kind,
                promoted_to: #promoted,
                promoted_to_extension: #promoted_ext,
                deprecated_by: #deprecated_by,
                depends: #depends,
                platform: #platform,
                policy: Policy {
                    blocked: #blocked,
                    exported: #exported,
                    loader_implemented: #loader_implemented,
                    intercepted: #intercepted,
                    internal: #internal,
                },
            }
        });
        let c = ident(e.name.trim_start_matches("VK_").to_uppercase().as_str());
        let lit = Literal::u16_unsuffixed(i as u16);
        let doc = format!("`{}`", e.name);
        ids.push(quote!(#[doc = #doc] pub const #c: ExtensionId = ExtensionId(#lit);));
    }
    let keys: Vec<&str> = cx.sel.extensions.iter().map(|e| e.name.as_str()).collect();
    let table = phf::table_tokens(&phf::build(&keys));
    let n = Literal::usize_unsuffixed(keys.len());
    let blocked = policy::BLOCKED_EXTENSIONS
        .iter()
        .map(|b| Literal::c_string(&std::ffi::CString::new(*b).expect("no NUL")));
    let tokens = quote! {
        use core::ffi::CStr;

        /// Index into [`EXTENSIONS`].
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub struct ExtensionId(pub u16);

        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum ExtensionKind { Instance, Device }

        /// Android's rules for an extension (generator/src/policy.rs).
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub struct Policy {
            /// Never exposed by the Android loader.
            pub blocked: bool,
            /// Its commands are exported from libvulkan.so.
            pub exported: bool,
            /// Implemented by the loader itself (WSI), not passed to the driver.
            pub loader_implemented: bool,
            /// The loader hooks some of its commands.
            pub intercepted: bool,
            /// Private between loader and driver (`VK_ANDROID_native_buffer`); never shown to apps.
            pub internal: bool,
        }

        #[derive(Debug)]
        pub struct ExtensionInfo {
            pub name: &'static CStr,
            pub number: u32,
            pub spec_version: u32,
            pub kind: ExtensionKind,
            /// The core version it was promoted to.
            pub promoted_to: Option<u32>,
            /// The extension it was promoted to, where it was promoted to one.
            pub promoted_to_extension: Option<&'static str>,
            pub deprecated_by: Option<&'static str>,
            /// The registry's dependency expression (`+` and, `,` or).
            pub depends: &'static str,
            pub platform: Option<&'static str>,
            pub policy: Policy,
        }

        impl ExtensionId {
            #(#ids)*
        }

        pub static EXTENSIONS: [ExtensionInfo; #n] = [#(#infos),*];

        /// Extensions the Android loader never exposes (not in [`EXTENSIONS`]: the selection drops
        /// them), for filtering what drivers and layers report.
        pub const BLOCKED: &[&CStr] = &[#(#blocked),*];

        /// Whether Android blocks the extension `name`.
        pub fn is_blocked(name: &CStr) -> bool {
            BLOCKED.contains(&name)
        }

        #table

        /// Finds an extension by name: one hash, one compare.
        #[inline]
        pub fn lookup(name: &CStr) -> Option<ExtensionId> {
            let bytes = name.to_bytes();
            let i = crate::phf::slot(bytes, &DISP, &SLOTS)?;
            (EXTENSIONS[i as usize].name.to_bytes() == bytes).then_some(ExtensionId(i))
        }

        #[inline]
        pub fn info(id: ExtensionId) -> &'static ExtensionInfo {
            &EXTENSIONS[id.0 as usize]
        }
    };
    super::format_file(
        "extensions.rs",
        "Extension table with Android policy flags and a perfect-hash lookup.",
        tokens,
    )
}
