//! `src/commands.rs`: per-command metadata and the O(1) name → command lookup.

use std::collections::BTreeMap;

use heck::ToShoutySnakeCase;
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

pub fn emit(cx: &Ctx) -> Result<String> {
    let slots = slots(cx);
    let ext_index: BTreeMap<&str, usize> = cx
        .sel
        .extensions
        .iter()
        .enumerate()
        .map(|(i, e)| (e.name.as_str(), i))
        .collect();
    let index = cx.command_index();
    let mut infos = format!(
        "pub static COMMANDS: [CommandInfo; {}] = [\n",
        cx.sel.commands.len()
    );
    let mut ids = String::new();
    for (i, c) in cx.sel.commands.iter().enumerate() {
        let origin = match (c.core, c.extensions.first()) {
            (Some(v), _) => format!("Origin::Core({})", crate::model::api_version(v)),
            (None, Some(e)) => format!("Origin::Extension(ExtensionId({}))", ext_index[e.as_str()]),
            (None, None) => "Origin::Core(0)".to_owned(),
        };
        let exts: Vec<String> = c
            .extensions
            .iter()
            .map(|e| format!("ExtensionId({})", ext_index[e.as_str()]))
            .collect();
        let alias = if c.name != c.canonical {
            format!("Some(CommandId({}))", index[c.canonical.as_str()])
        } else {
            "None".to_owned()
        };
        let slot = slots
            .get(&c.canonical)
            .map(|s| format!("Some({s})"))
            .unwrap_or_else(|| "None".to_owned());
        infos.push_str(&format!(
            "    CommandInfo {{\n        name: c\"{}\",\n        level: Level::{},\n        origin: {origin},\n        extensions: &[{}],\n        exported: {},\n        alias_of: {alias},\n        slot: {slot},\n    }},\n",
            c.name,
            c.level.name(),
            exts.join(", "),
            c.exported
        ));
        let const_name = super::ident(&c.name.trim_start_matches("vk").to_shouty_snake_case());
        ids.push_str(&format!(
            "/// `{}`\npub const {const_name}: CommandId = CommandId({i});\n",
            c.name
        ));
    }
    infos.push_str("];\n");
    let keys: Vec<&str> = cx.sel.commands.iter().map(|c| c.name.as_str()).collect();
    let table = phf::table_text(
        &phf::build(&keys).map_err(|m| crate::error::Error::Limit(format!("commands: {m}")))?,
    );
    let intercepted = policy::LOADER_INTERCEPTED_COMMANDS
        .iter()
        .filter(|c| cx.sel.command(c).is_some())
        .map(|c| Literal::c_string(&std::ffi::CString::new(*c).expect("no NUL")));
    let tokens = quote! {
        use core::ffi::CStr;
        use crate::extensions::ExtensionId;

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

        #[derive(Debug)]
        pub struct CommandInfo {
            pub name: &'static CStr,
            pub level: Level,
            pub origin: Origin,
            /// Every selected extension that provides this name.
            pub extensions: &'static [ExtensionId],
            /// Exported from libvulkan.so (core, or one of Android's exported extensions).
            pub exported: bool,
            /// The command this name aliases.
            pub alias_of: Option<CommandId>,
            /// Index of the defining command in its level's dispatch table.
            pub slot: Option<usize>,
        }

        impl CommandId {
            const __VKGEN_IDS: () = ();
        }

        __vkgen_commands!();

        /// Commands the loader implements itself; no trampoline is generated for them.
        pub const LOADER_INTERCEPTED: &[&CStr] = &[#(#intercepted),*];

        __vkgen_phf!();

        /// Finds a command by name: one hash, one compare.
        #[inline]
        pub fn lookup(name: &CStr) -> Option<CommandId> {
            let bytes = name.to_bytes();
            let i = crate::phf::slot(bytes, &DISP, &SLOTS)?;
            (COMMANDS[i as usize].name.to_bytes() == bytes).then_some(CommandId(i))
        }

        #[inline]
        pub fn info(id: CommandId) -> &'static CommandInfo {
            &COMMANDS[id.0 as usize]
        }

        impl CommandInfo {
            /// The defining command (itself unless an alias).
            pub fn canonical(&'static self) -> &'static CommandInfo {
                match self.alias_of { Some(a) => info(a), None => self }
            }
        }
    };
    let out = super::format_file(
        "commands.rs",
        "Command metadata (dispatch level, origin, export) and a perfect-hash name lookup.",
        tokens,
    )?;
    let out = text::fill(&out, "__VKGEN_IDS", &ids);
    let out = text::fill(&out, "__vkgen_commands!", &infos);
    Ok(text::fill(&out, "__vkgen_phf!", &table))
}
