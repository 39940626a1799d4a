//! `src/dispatch.rs`: the instance- and device-level dispatch tables. Fields are plain function
//! pointers, never null (a generated stub stands in for what the provider lacks), so a trampoline
//! is two loads and a jump; a bitset remembers which entries are real.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{text, Ctx, Level};
use crate::error::Result;
use crate::names;

pub fn emit(cx: &Ctx) -> Result<String> {
    // The two tables are independent: the instance table on a thread beside the device's.
    let ((inst, mut fills), (dev, dev_fills)) = std::thread::scope(|s| {
        let instance = s.spawn(|| {
            table(
                cx,
                "InstanceDispatchTable",
                |l| l.is_instance_table(),
                "instance (`VkInstance`, `VkPhysicalDevice`)",
            )
        });
        let device = table(
            cx,
            "DeviceDispatchTable",
            |l| l == Level::Device,
            "device (`VkDevice`, `VkQueue`, `VkCommandBuffer`)",
        );
        let instance = crate::par::joined(instance);
        (instance, device)
    });
    fills.extend(dev_fills);
    let (inst, dev) = (inst.tokens(), dev.tokens());
    let tokens = quote! {
        #![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
        use core::ffi::CStr;
        use crate::{pfn, vk};
        use crate::commands::CommandId;
        use crate::dispatch_table::{disabled, fill, fill_some, slot_commands, SlotTable};
        pub use crate::dispatch_table::DISABLED_REPORT;

        #inst
        #dev
    };
    let out = super::format_file(
        "dispatch.rs",
        "Dispatch tables filled from a get-proc-addr function; missing entries point at stubs that\nreturn VK_ERROR_FEATURE_NOT_PRESENT (or nothing), so callers never jump to null. Stubs of\nexported extension commands are AOSP's \"disabled\" functions: they report the call through\n`DISABLED_REPORT` and return VK_SUCCESS (or nothing).",
        tokens,
    )?;
    let set_body = "// SAFETY: the caller vouches for `f`'s signature, which is `SlotTable::set`'s contract.\nunsafe { SlotTable::set(self, slot, f) }\n";
    let mut all: Vec<(&str, &str)> = fills
        .iter()
        .map(|(m, i)| (m.as_str(), i.as_str()))
        .collect();
    all.push(("__vkgen_set_body!", set_body));
    Ok(text::fill_all(&out, &all))
}

/// The extension an exported, non-core command belongs to: its stub is AOSP's "disabled"
/// function (called only when the extension is not enabled, since the loader fills the slot
/// otherwise).
fn disabled_extension(c: &crate::select::SelCommand) -> Option<&str> {
    if c.exported && c.core.is_none() {
        c.extensions.first().map(String::as_str)
    } else {
        None
    }
}

/// What a disabled stub returns: AOSP's `VK_SUCCESS` for `VkResult`, nothing otherwise.
fn disabled_result(ret: &crate::model::CType) -> &'static str {
    if ret.base == "VkResult" && !ret.is_pointer() {
        "crate::vk::Result::SUCCESS"
    } else {
        text::failure_str(ret)
    }
}

/// The table's items, with placeholder markers and the text that replaces each.
fn table(
    cx: &Ctx,
    name: &str,
    pick: impl Fn(Level) -> bool,
    what: &str,
) -> (Items, Vec<(String, String)>) {
    let snake = crate::names::snake(name);
    let stub_mod = format_ident!("{}_stubs", snake);
    let cmds: Vec<_> = cx
        .sel
        .canonical_commands()
        .filter(|c| pick(c.level))
        .collect();
    let words_n = cmds.len().div_ceil(64).max(1);
    let index = cx.command_index();
    let (mut fields, mut inits, mut stubs) = (String::new(), String::new(), String::new());
    // Per slot, the commands that fill it: the defining command, then its aliases.
    let (mut starts, mut fillers) = (vec![0usize], Vec::new());
    inits.push_str("Self {\n");
    for c in &cmds {
        let field = names::command_field(&c.name);
        fields.push_str(&text::doc_link(cx, &c.name));
        fields.push_str(&format!("pub {field}: pfn::PFN_{},\n", c.name));
        inits.push_str(&format!("    {field}: {stub_mod}::{field},\n"));
        fillers.push(index[c.name.as_str()]);
        fillers.extend(
            cx.sel
                .commands
                .iter()
                .filter(|a| a.canonical == c.name && a.name != c.name)
                .map(|a| index[a.name.as_str()]),
        );
        starts.push(fillers.len());
        let cmd = cx.command(&c.name);
        let params: Vec<(String, String)> = cmd
            .params
            .iter()
            .enumerate()
            .map(|(i, p)| (format!("_a{i}"), text::param_type_str(cx, &p.ty)))
            .collect();
        let ret = text::ret_str(cx, &cmd.ret);
        let sig = text::Sig {
            head: "pub(super) unsafe extern \"system\" fn",
            name: &field,
            generics: "",
            params: &params,
            ret: ret.as_deref(),
        };
        sig.write_open(&mut stubs, "");
        match disabled_extension(c) {
            // AOSP's `disabled…` functions: an exported extension command called on an
            // instance or device that did not enable the extension logs and does nothing.
            Some(ext) => stubs.push_str(&format!(
                "    super::disabled(c\"{ext}\", c\"{}\");\n    {}\n}}\n",
                c.name,
                disabled_result(&cmd.ret)
            )),
            None => stubs.push_str(&format!("    {}\n}}\n", text::failure_str(&cmd.ret))),
        }
    }
    inits.push_str(&format!("    present: [0; {words_n}],\n}}\n"));
    let m = Markers::new(&snake);
    let mut fills = vec![
        (m.fields.clone(), fields),
        (m.stubs.clone(), stubs),
        (m.inits.clone(), inits),
        (m.lists.clone(), filler_lists(name, &starts, &fillers)),
    ];
    fills.extend(method_bodies(name, cmds.len(), &m));
    let doc = format!("Every {what} command of the selection, in registry order.");
    // Tokens are not `Send`: the items are made by whoever formats them.
    let items = Items {
        name: name.to_owned(),
        doc,
        len: cmds.len(),
        markers: m,
    };
    (items, fills)
}

/// What [`table_tokens`] makes one table's items of.
struct Items {
    name: String,
    doc: String,
    len: usize,
    markers: Markers,
}

impl Items {
    fn tokens(&self) -> TokenStream {
        let tname = format_ident!("{}", self.name);
        table_tokens(&tname, &self.doc, self.len, &self.markers)
    }
}

/// The text of table `name`'s (of `n` slots) trait impl and method bodies, for `m`'s markers:
/// each `unsafe` block with its `SAFETY` note, which tokens cannot carry.
fn method_bodies(name: &str, n: usize, m: &Markers) -> [(String, String); 5] {
    let upper = crate::names::shouty(name);
    [
    (
        m.slot_table.clone(),
        format!(
            "// SAFETY: `{name}` is repr(C) and starts with its LEN function-pointer fields (the\n\
             // generator writes one per slot, `present` last).\n\
             unsafe impl SlotTable for {name} {{\n    \
             const LEN: usize = {n};\n    \
             fn present(&self) -> &[u64] {{\n        &self.present\n    }}\n    \
             fn present_mut(&mut self) -> &mut [u64] {{\n        &mut self.present\n    }}\n\
             }}\n"
        ),
    ),
    (
        m.load.clone(),
        "// SAFETY: the closure hands on `gpa`'s answer for the name of the very command it is\n\
         // given, and this function's caller vouches that `gpa` answers each name with a\n\
         // function of its type.\n\
         unsafe { Self::load_with(&mut |id| gpa(crate::commands::info(id).name())) }\n"
            .to_owned(),
    ),
    (
        m.fill.clone(),
        format!(
            "// SAFETY: the generator wrote `{upper}_STARTS` and\n\
             // `{upper}_COMMANDS` for this table, and the caller vouches that `gpa`\n\
             // answers each command with a function of its type: `fill`'s two conditions.\n\
             unsafe {{ fill(&mut t, &{upper}_STARTS, &{upper}_COMMANDS, gpa) }};\n"
        ),
    ),
    (
        m.fill_some.clone(),
        "// SAFETY: `Self::slot_commands` gives this table's generated lists, and the caller\n\
         // vouches that `gpa` answers each command with a function of its type:\n\
         // `fill_some`'s two conditions.\n\
         unsafe { fill_some(&mut t, Self::slot_commands, wanted, gpa) };\n"
            .to_owned(),
    ),
    (
        m.slot_commands.clone(),
        format!("slot_commands(&{upper}_STARTS, &{upper}_COMMANDS, slot)\n"),
    ),

    ]
}

/// The placeholder macros of one table, replaced by generated text after formatting (what
/// `quote!` cannot carry: comments, and text built elsewhere).
struct Markers {
    fields: String,
    stubs: String,
    inits: String,
    lists: String,
    slot_table: String,
    load: String,
    fill: String,
    fill_some: String,
    slot_commands: String,
}

impl Markers {
    fn new(snake: &str) -> Self {
        let m = |what: &str| format!("__vkgen_{what}_{snake}");
        Self {
            fields: m("fields"),
            stubs: m("stubs"),
            inits: m("inits"),
            lists: m("lists"),
            slot_table: m("slot_table"),
            load: m("load"),
            fill: m("fill"),
            fill_some: m("fill_some"),
            slot_commands: m("slot_commands"),
        }
    }
}

/// The items of table `tname` around its markers.
fn table_tokens(tname: &proc_macro2::Ident, doc: &str, len: usize, m: &Markers) -> TokenStream {
    let id = |s: &String| format_ident!("{}", s);
    let (f_id, s_id, i_id, l_id) = (id(&m.fields), id(&m.stubs), id(&m.inits), id(&m.lists));
    let (impl_id, load_id, fill_id, slot_cmds_id) = (
        id(&m.slot_table),
        id(&m.load),
        id(&m.fill),
        id(&m.slot_commands),
    );
    let fill_some_id = id(&m.fill_some);
    let stub_mod = format_ident!("{}_stubs", crate::names::snake(tname.to_string().as_str()));
    let n = Literal::usize_unsuffixed(len);
    let words = Literal::usize_unsuffixed(len.div_ceil(64).max(1));
    quote! {
        #[doc = #doc]
        #[repr(C)]
        #[derive(Clone)]
        pub struct #tname {
            #f_id: (),
            present: [u64; #words],
        }

        #[allow(unused_variables, clippy::unused_unit)]
        mod #stub_mod {
            #s_id!();
        }

        #l_id!();

        #impl_id!();

        impl #tname {
            /// Number of entries (slots).
            pub const LEN: usize = #n;

            /// A table of stubs only.
            pub fn empty() -> Self {
                #i_id!()
            }

            /// Fills the table from `gpa`, trying each command's name and then its aliases.
            ///
            /// # Safety
            /// `gpa` must return functions whose signatures match the names asked for.
            pub unsafe fn load(gpa: &mut dyn FnMut(&CStr) -> vk::PFN_vkVoidFunction) -> Self {
                #load_id!();
            }

            /// Fills the table slot by slot, asking `gpa` for the commands of each slot (see
            /// [`Self::slot_commands`]) in order until one answers. `gpa` gets the command, so
            /// it may answer `None` for a command without asking anyone.
            ///
            /// # Safety
            /// `gpa` must return, for each command, a function of that command's type.
            pub unsafe fn load_with<F>(gpa: &mut F) -> Self
            where
                F: FnMut(CommandId) -> vk::PFN_vkVoidFunction + ?Sized,
            {
                let mut t = Self::empty();
                #fill_id!();
                t
            }

            /// [`Self::load_with`] for a `gpa` that answers `None` for every command outside
            /// `wanted` without asking anyone: the same table, visiting only the slots of
            /// `wanted`'s commands (each once, all its commands in `load_with`'s order) instead
            /// of every slot.
            ///
            /// # Safety
            /// As [`Self::load_with`].
            pub unsafe fn load_some<F>(
                wanted: impl IntoIterator<Item = CommandId>,
                gpa: &mut F,
            ) -> Self
            where
                F: FnMut(CommandId) -> vk::PFN_vkVoidFunction + ?Sized,
            {
                let mut t = Self::empty();
                #fill_some_id!();
                t
            }

            /// The commands that fill `slot`, in the order [`Self::load_with`] asks for them:
            /// the defining command, then its aliases (empty for a slot out of range).
            pub fn slot_commands(slot: usize) -> &'static [CommandId] {
                #slot_cmds_id!();
            }

            /// Whether `slot` holds the provider's function (not a stub).
            pub fn is_present(&self, slot: usize) -> bool {
                SlotTable::is_present(self, slot)
            }

            /// The entry at `slot` (see `commands::CommandInfo::slot`), stubs included.
            pub fn get(&self, slot: usize) -> vk::PFN_vkVoidFunction {
                SlotTable::get(self, slot)
            }

            /// Replaces the entry at `slot` (the loader installs its own hooks this way).
            ///
            /// # Safety
            /// `f` must have the signature of the command at `slot`.
            pub unsafe fn set(&mut self, slot: usize, f: unsafe extern "system" fn()) {
                __vkgen_set_body!();
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

/// The two statics [`dispatch_table::fill`] reads for table `name`: where each slot's commands
/// start, and the commands, as generated text.
fn filler_lists(name: &str, starts: &[usize], fillers: &[usize]) -> String {
    let upper = crate::names::shouty(name);
    let list = |items: Vec<String>| {
        let mut out = String::new();
        for chunk in items.chunks(8) {
            out.push_str(&format!("    {},\n", chunk.join(", ")));
        }
        out
    };
    format!(
        "/// Where the commands of each slot of [`{name}`] start in\n\
         /// [`{upper}_COMMANDS`] (slot `s` ends where `s + 1` starts).\n\
         static {upper}_STARTS: [u16; {}] = [\n{}];\n\
         /// The commands that fill [`{name}`], slot by slot: the defining command, then its\n\
         /// aliases.\n\
         static {upper}_COMMANDS: [CommandId; {}] = [\n{}];\n",
        starts.len(),
        list(starts.iter().map(usize::to_string).collect()),
        fillers.len(),
        list(fillers.iter().map(|i| format!("CommandId({i})")).collect()),
    )
}
