//! `src/commands.rs`: per-command metadata and the O(1) name → command lookup.

use std::collections::BTreeMap;

use proc_macro2::Literal;
use quote::quote;

use super::{phf, text, Ctx, Level};
use crate::error::Result;
use crate::policy;

/// Table slot of each canonical command within its level's dispatch table.
pub fn slots(cx: &Ctx) -> BTreeMap<String, usize> {
    let mut out = BTreeMap::new();
    let (mut inst, mut dev) = (0usize, 0usize);
    for c in cx.sel.canonical_commands() {
        match c.level {
            Level::Instance | Level::PhysicalDevice => {
                out.insert(c.name.clone(), inst);
                inst += 1;
            }
            Level::Device => {
                out.insert(c.name.clone(), dev);
                dev += 1;
            }
            Level::Global => {}
        }
    }
    out
}

/// The generated text of the command table: `CommandId` constants, the rows, the name blob and
/// the extension lists.
struct Rows {
    ids: String,
    infos: String,
    names: phf::Blob,
    /// Every command's extension list, one after another (`CommandInfo::extensions` ranges).
    extension_lists: Vec<usize>,
}

fn rows(cx: &Ctx) -> Result<Rows> {
    let slots = slots(cx);
    let ext_index: BTreeMap<&str, usize> = cx
        .sel
        .extensions
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    let index = cx.command_index();
    let mut out = Rows {
        ids: String::new(),
        infos: format!(
            "pub static COMMANDS: [CommandInfo; {}] = [\n",
            cx.sel.commands.len()
        ),
        names: phf::Blob::default(),
        extension_lists: Vec::new(),
    };
    for (i, c) in cx.sel.commands.iter().enumerate() {
        let origin = match (c.core, c.extensions.first()) {
            (Some(v), _) => format!("Origin::Core({})", crate::model::api_version(v)),
            (None, Some(e)) => format!("Origin::Extension(ExtensionId({}))", ext_index[e.as_str()]),
            (None, None) => "Origin::Core(0)".to_owned(),
        };
        let exts: Vec<usize> = c.extensions.iter().map(|e| ext_index[e.as_str()]).collect();
        let exts_at = out
            .extension_lists
            .windows(exts.len().max(1))
            .position(|w| exts.is_empty() || w == exts.as_slice())
            .unwrap_or_else(|| {
                out.extension_lists.extend(&exts);
                out.extension_lists.len() - exts.len()
            });
        let alias = if c.name != c.canonical {
            format!("Some(CommandId({}))", index[c.canonical.as_str()])
        } else {
            "None".to_owned()
        };
        let slot = slots
            .get(&c.canonical)
            .map(|s| format!("Some({s})"))
            .unwrap_or_else(|| "None".to_owned());
        let name = out.names.add(&c.name)?;
        out.infos.push_str(&format!(
            "    CommandInfo {{\n        name: {name}, {} {}\n        level: Level::{},\n        origin: {origin},\n        extensions: ({exts_at}, {}),\n        exported: {},\n        alias_of: {alias},\n        slot: {slot},\n    }},\n",
            phf::NAME_NOTE,
            c.name,
            c.level.name(),
            exts.len(),
            c.exported
        ));
        let const_name = super::ident(&crate::names::shouty(c.name.trim_start_matches("vk")));
        out.ids.push_str(&format!(
            "/// `{}`\npub const {const_name}: CommandId = CommandId({i});\n",
            c.name
        ));
    }
    out.infos.push_str("];\n");
    Ok(out)
}

/// `COMMAND_EXTENSIONS`, the lists `CommandInfo::extensions` ranges point into.
fn extension_lists_text(lists: &[usize]) -> String {
    let mut out = format!(
        "/// The extension lists of [`COMMANDS`], one after another (see `CommandInfo::extensions`).\n\
         static COMMAND_EXTENSIONS: [ExtensionId; {}] = [\n",
        lists.len()
    );
    for chunk in lists.chunks(8) {
        let items: Vec<String> = chunk.iter().map(|e| format!("ExtensionId({e})")).collect();
        out.push_str(&format!("    {},\n", items.join(", ")));
    }
    out.push_str("];\n");
    out
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let rows = rows(cx)?;
    let keys: Vec<&str> = cx.sel.commands.iter().map(|c| c.name.as_str()).collect();
    let table = phf::table_text(
        &phf::build(&keys).map_err(|m| crate::error::Error::Limit(format!("commands: {m}")))?,
    );
    let data = format!(
        "{}{}{table}",
        rows.names
            .text("Every command name, each followed by a NUL.", "NAMES"),
        extension_lists_text(&rows.extension_lists)
    );
    let out = super::format_file(
        "commands.rs",
        "Command metadata (dispatch level, origin, export) and a perfect-hash name lookup.",
        tokens(cx),
    )?;
    Ok(text::fill_all(
        &out,
        &[
            ("__VKGEN_IDS", &rows.ids),
            ("__vkgen_commands!", &rows.infos),
            ("__vkgen_phf!", &data),
        ],
    ))
}

fn tokens(cx: &Ctx) -> proc_macro2::TokenStream {
    let intercepted = policy::LOADER_INTERCEPTED_COMMANDS
        .iter()
        .filter(|c| cx.sel.command(c).is_some())
        .map(|c| Literal::c_string(&std::ffi::CString::new(*c).expect("no NUL")));
    let debug_and_tests = debug_and_tests();
    quote! {
        use core::ffi::CStr;
        use crate::extensions::ExtensionId;
        use crate::phf::BlobStr;

        /// How a command dispatches, from its first parameter.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Level {
            /// No dispatchable first parameter (`vkCreateInstance`, `vkGetInstanceProcAddr`).
            Global,
            /// `VkInstance`.
            Instance,
            /// `VkPhysicalDevice`: dispatches through the instance's table.
            PhysicalDevice,
            /// `VkDevice`, `VkQueue`, `VkCommandBuffer` (and device-created dispatchable handles).
            Device,
        }

        /// Where a command comes from.
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]
        pub enum Origin {
            /// Core since this API version (`VK_MAKE_API_VERSION(0, major, minor, 0)`).
            Core(u32),
            /// Only from this extension (the first of those listed in `CommandInfo::extensions`).
            Extension(ExtensionId),
        }

        /// Index into [`COMMANDS`].
        #[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, PartialOrd, Ord)]
        pub struct CommandId(pub u16);

        /// A row of [`COMMANDS`]. Names and extension lists are offsets into `NAMES` and
        /// `COMMAND_EXTENSIONS` (read through the methods): a table of small integers needs no
        /// load-time relocation in `libvulkan.so`, where a `&'static` per row costs 40 bytes.
        #[derive(Clone, Copy)]
        pub struct CommandInfo {
            name: BlobStr,
            pub level: Level,
            pub origin: Origin,
            /// `(start, count)` in `COMMAND_EXTENSIONS`.
            extensions: (u16, u16),
            /// Exported from libvulkan.so (core, or one of Android's exported extensions).
            pub exported: bool,
            /// The command this name aliases.
            pub alias_of: Option<CommandId>,
            slot: Option<u16>,
        }

        impl CommandId {
            const __VKGEN_IDS: () = ();
        }

        __vkgen_commands!();

        /// Commands the loader implements itself; no trampoline is generated for them.
        pub const LOADER_INTERCEPTED: &[&CStr] = &[#(#intercepted),*];

        __vkgen_phf!();

        /// A digest of every command name in id order (FNV-1a over the name blob): crates
        /// generated from registries that name the same commands in the same order agree on
        /// it, so a [`CommandId`] means the same command in both (a driver's
        /// `vkgenGetDeviceProcAddrs` takes ids only from a loader with its fingerprint).
        pub const FINGERPRINT: u64 = {
            let bytes = NAMES.as_bytes();
            let mut h: u64 = 0xcbf2_9ce4_8422_2325;
            let mut i = 0;
            while i < bytes.len() {
                h ^= bytes[i] as u64;
                h = h.wrapping_mul(0x0100_0000_01b3);
                i += 1;
            }
            h
        };

        /// Finds a command by name: one hash, one compare.
        #[inline]
        pub fn lookup(name: &CStr) -> Option<CommandId> {
            let bytes = name.to_bytes();
            let i = crate::phf::slot(bytes, &DISP, &SLOTS)?;
            crate::phf::same(COMMANDS[i as usize].name.bytes(NAMES), bytes).then_some(CommandId(i))
        }

        #[inline]
        pub fn info(id: CommandId) -> &'static CommandInfo {
            &COMMANDS[id.0 as usize]
        }

        impl CommandInfo {
            /// The command's name.
            pub fn name(&self) -> &'static CStr {
                self.name.c_str(NAMES)
            }

            /// Every selected extension that provides this name.
            pub fn extensions(&self) -> &'static [ExtensionId] {
                let (at, n) = (self.extensions.0 as usize, self.extensions.1 as usize);
                COMMAND_EXTENSIONS.get(at..at + n).unwrap_or(&[])
            }

            /// Index of the defining command in its level's dispatch table.
            pub fn slot(&self) -> Option<usize> {
                self.slot.map(usize::from)
            }

            /// The defining command (itself unless an alias).
            pub fn canonical(&'static self) -> &'static CommandInfo {
                match self.alias_of { Some(a) => info(a), None => self }
            }
        }

        #debug_and_tests
    }
}

/// `Debug` of the rows (through the methods: the fields are blob offsets) and the test that
/// every stored name reads back and finds its own row.
fn debug_and_tests() -> proc_macro2::TokenStream {
    quote! {
        impl core::fmt::Debug for CommandInfo {
            fn fmt(&self, f: &mut core::fmt::Formatter<'_>) -> core::fmt::Result {
                f.debug_struct("CommandInfo")
                    .field("name", &self.name())
                    .field("level", &self.level)
                    .field("origin", &self.origin)
                    .field("extensions", &self.extensions())
                    .field("exported", &self.exported)
                    .field("alias_of", &self.alias_of)
                    .field("slot", &self.slot())
                    .finish()
            }
        }

        #[cfg(test)]
        mod tests {
            use super::*;

            #[test]
            fn every_name_is_a_c_string_that_finds_its_row() {
                for (i, c) in COMMANDS.iter().enumerate() {
                    assert_eq!(c.name().to_bytes(), c.name.bytes(NAMES));
                    assert!(!c.name.bytes(NAMES).contains(&0), "{c:?}");
                    assert!(c.name().to_bytes().starts_with(b"vk"), "{c:?}");
                    assert_eq!(lookup(c.name()), Some(CommandId(i as u16)));
                    assert_eq!(c.extensions().len(), c.extensions.1 as usize);
                }
            }
        }
    }
}
