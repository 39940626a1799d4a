//! `src/extensions.rs`: the extension table (name, number, spec version, kind, promotion,
//! dependencies, Android policy) with a perfect-hash lookup.

use proc_macro2::Literal;
use quote::quote;

use super::{ident, phf, text, Ctx};
use crate::error::Result;
use crate::model::{parse_version, ExtensionKind};
use crate::policy;

/// The generated text of the extension table: `ExtensionId` constants, the rows and their
/// string blob.
struct Rows {
    ids: String,
    infos: String,
    strings: phf::Blob,
}

fn rows(cx: &Ctx) -> Result<Rows> {
    let mut out = Rows {
        ids: String::new(),
        infos: format!(
            "pub static EXTENSIONS: [ExtensionInfo; {}] = [\n",
            cx.sel.extensions.len()
        ),
        strings: phf::Blob::default(),
    };
    // Names first, so that the blob reads as the extension list.
    for e in &cx.sel.extensions {
        out.strings.add(&e.name)?;
    }
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
        let s = &mut out.strings;
        let name = s.add(&e.name)?;
        let promoted_ext = s.add_opt(
            e.promoted_to
                .as_deref()
                .filter(|p| !p.starts_with("VK_VERSION_")),
        )?;
        let deprecated_by = s.add_opt(e.deprecated_by.as_deref())?;
        let depends = s.add(e.depends.as_deref().unwrap_or_default())?;
        let platform = s.add_opt(e.platform.as_deref())?;
        out.infos.push_str(&format!(
            "    ExtensionInfo {{\n        name: {name}, {} {}\n        number: {},\n        spec_version: {},\n        kind: ExtensionKind::{kind},\n        promoted_to: {promoted},\n        promoted_to_extension: {promoted_ext},\n        deprecated_by: {deprecated_by},\n        depends: {depends},\n        platform: {platform},\n        policy: Policy {{\n            blocked: {},\n            exported: {},\n            loader_implemented: {},\n            intercepted: {},\n            internal: {},\n        }},\n    }},\n",
            phf::NAME_NOTE,
            e.name,
            e.number,
            e.spec_version,
            policy::is_blocked(&e.name),
            policy::is_exported_extension(&e.name),
            policy::is_loader_implemented(&e.name),
            policy::is_intercepted_extension(&e.name),
            policy::is_internal(&e.name),
        ));
        let c = ident(e.name.trim_start_matches("VK_").to_uppercase().as_str());
        out.ids.push_str(&format!(
            "/// `{}`\npub const {c}: ExtensionId = ExtensionId({i});\n",
            e.name
        ));
    }
    out.infos.push_str("];\n");
    Ok(out)
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let rows = rows(cx)?;
    let keys: Vec<&str> = cx.sel.extensions.iter().map(|e| e.name.as_str()).collect();
    let table = phf::table_text(
        &phf::build(&keys).map_err(|m| crate::error::Error::Limit(format!("extensions: {m}")))?,
    );
    let data = format!(
        "{}{table}",
        rows.strings.text(
            "Every name, dependency expression and platform of [`EXTENSIONS`], each once and \
             followed by a NUL.",
            "STRINGS"
        )
    );
    let out = super::format_file(
        "extensions.rs",
        "Extension table with Android policy flags and a perfect-hash lookup.",
        tokens(),
    )?;
    Ok(text::fill_all(
        &out,
        &[
            ("__VKGEN_IDS", &rows.ids),
            ("__vkgen_extensions!", &rows.infos),
            ("__vkgen_phf!", &data),
        ],
    ))
}

fn tokens() -> proc_macro2::TokenStream {
    let blocked = policy::BLOCKED_EXTENSIONS
        .iter()
        .map(|b| Literal::c_string(&std::ffi::CString::new(*b).expect("no NUL")));
    let debug_and_tests = debug_and_tests();
    quote! {
        use core::ffi::CStr;
        use crate::phf::BlobStr;

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

        /// A row of [`EXTENSIONS`]. Its strings are offsets into `STRINGS` (read through the
        /// methods): a table of small integers needs no load-time relocation in
        /// `libvulkan.so`, where a `&'static str` per field costs 40 bytes.
        #[derive(Clone, Copy)]
        pub struct ExtensionInfo {
            name: BlobStr,
            pub number: u32,
            pub spec_version: u32,
            pub kind: ExtensionKind,
            /// The core version it was promoted to.
            pub promoted_to: Option<u32>,
            promoted_to_extension: BlobStr,
            deprecated_by: BlobStr,
            depends: BlobStr,
            platform: BlobStr,
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
            crate::phf::same(EXTENSIONS[i as usize].name.bytes(STRINGS), bytes).then_some(ExtensionId(i))
        }

        #[inline]
        pub fn info(id: ExtensionId) -> &'static ExtensionInfo {
            &EXTENSIONS[id.0 as usize]
        }

        impl ExtensionInfo {
            /// The extension's name (`VK_KHR_surface`).
            pub fn name(&self) -> &'static CStr {
                self.name.c_str(STRINGS)
            }

            /// The extension it was promoted to, where it was promoted to one.
            pub fn promoted_to_extension(&self) -> Option<&'static str> {
                self.promoted_to_extension.get(STRINGS)
            }

            /// The extension or version that deprecates it.
            pub fn deprecated_by(&self) -> Option<&'static str> {
                self.deprecated_by.get(STRINGS)
            }

            /// The registry's dependency expression (`+` and, `,` or); empty for none.
            pub fn depends(&self) -> &'static str {
                self.depends.get(STRINGS).unwrap_or_default()
            }

            /// The platform it needs (`xlib`, `android`), if any.
            pub fn platform(&self) -> Option<&'static str> {
                self.platform.get(STRINGS)
            }
        }

        #debug_and_tests
    }
}

/// `Debug` of the rows (through the methods: the fields are blob offsets) and the test that
/// every stored name reads back and finds its own row.
fn debug_and_tests() -> proc_macro2::TokenStream {
    quote! {
        impl core::fmt::Debug for ExtensionInfo {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("ExtensionInfo")
                    .field("name", &self.name())
                    .field("number", &self.number)
                    .field("spec_version", &self.spec_version)
                    .field("kind", &self.kind)
                    .field("promoted_to", &self.promoted_to)
                    .field("promoted_to_extension", &self.promoted_to_extension())
                    .field("deprecated_by", &self.deprecated_by())
                    .field("depends", &self.depends())
                    .field("platform", &self.platform())
                    .field("policy", &self.policy)
                    .finish()
            }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn every_name_is_a_c_string_that_finds_its_row() {
                for (i, e) in EXTENSIONS.iter().enumerate() {
                    assert_eq!(e.name().to_bytes(), e.name.bytes(STRINGS));
                    assert!(!e.name.bytes(STRINGS).contains(&0), "{e:?}");
                    assert!(e.name().to_bytes().starts_with(b"VK_"), "{e:?}");
                    assert_eq!(lookup(e.name()), Some(ExtensionId(i as u16)));
                }
            }
        }
    }
}
