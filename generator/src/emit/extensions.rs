//! `src/extensions.rs`: the extension table (name, number, spec version, kind, promotion,
//! dependencies, Android policy) with a perfect-hash lookup.

use proc_macro2::Literal;
use quote::quote;

use super::{ident, phf, text, Ctx};
use crate::error::Result;
use crate::model::{parse_version, ExtensionKind};
use crate::policy;

pub fn emit(cx: &Ctx) -> Result<String> {
    // `{:?}` of a string is a valid, escaped Rust string literal.
    let opt = |v: Option<&str>| {
        v.map(|p| format!("Some({p:?})"))
            .unwrap_or_else(|| "None".to_owned())
    };
    let mut infos = format!(
        "pub static EXTENSIONS: [ExtensionInfo; {}] = [\n",
        cx.sel.extensions.len()
    );
    let mut ids = String::new();
    for (i, e) in cx.sel.extensions.iter().enumerate() {
        let kind = match e.kind {
            Some(ExtensionKind::Instance) => "Instance",
            _ => "Device",
        };
        let promoted = e
            .promoted_to
            .as_deref()
            .filter(|p| p.starts_with("VK_VERSION_"))
            .and_then(parse_version)
            .map(|v| format!("Some({})", crate::model::api_version(v)))
            .unwrap_or_else(|| "None".to_owned());
        let promoted_ext = opt(e
            .promoted_to
            .as_deref()
            .filter(|p| !p.starts_with("VK_VERSION_")));
        infos.push_str(&format!(
            "    ExtensionInfo {{\n        name: c{:?},\n        number: {},\n        spec_version: {},\n        kind: ExtensionKind::{kind},\n        promoted_to: {promoted},\n        promoted_to_extension: {promoted_ext},\n        deprecated_by: {},\n        depends: {:?},\n        platform: {},\n        policy: Policy {{\n            blocked: {},\n            exported: {},\n            loader_implemented: {},\n            intercepted: {},\n            internal: {},\n        }},\n    }},\n",
            e.name,
            e.number,
            e.spec_version,
            opt(e.deprecated_by.as_deref()),
            e.depends.clone().unwrap_or_default(),
            opt(e.platform.as_deref()),
            policy::is_blocked(&e.name),
            policy::is_exported_extension(&e.name),
            policy::is_loader_implemented(&e.name),
            policy::is_intercepted_extension(&e.name),
            policy::is_internal(&e.name),
        ));
        let c = ident(e.name.trim_start_matches("VK_").to_uppercase().as_str());
        ids.push_str(&format!(
            "/// `{}`\npub const {c}: ExtensionId = ExtensionId({i});\n",
            e.name
        ));
    }
    infos.push_str("];\n");
    let keys: Vec<&str> = cx.sel.extensions.iter().map(|e| e.name.as_str()).collect();
    let table = phf::table_text(
        &phf::build(&keys).map_err(|m| crate::error::Error::Limit(format!("extensions: {m}")))?,
    );
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
            const __VKGEN_IDS: () = ();
        }

        __vkgen_extensions!();

        /// Extensions the Android loader never exposes (not in [`EXTENSIONS`]: the selection drops
        /// them), for filtering what drivers and layers report.
        pub const BLOCKED: &[&CStr] = &[#(#blocked),*];

        /// Whether Android blocks the extension `name`.
        pub fn is_blocked(name: &CStr) -> bool {
            BLOCKED.contains(&name)
        }

        __vkgen_phf!();

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
    let out = super::format_file(
        "extensions.rs",
        "Extension table with Android policy flags and a perfect-hash lookup.",
        tokens,
    )?;
    let out = text::fill(&out, "__VKGEN_IDS", &ids);
    let out = text::fill(&out, "__vkgen_extensions!", &infos);
    Ok(text::fill(&out, "__vkgen_phf!", &table))
}
