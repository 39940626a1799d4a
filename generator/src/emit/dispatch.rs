//! `src/dispatch.rs`: the instance- and device-level dispatch tables. Fields are plain function
//! pointers, never null (a generated stub stands in for what the provider lacks), so a trampoline
//! is two loads and a jump; a bitset remembers which entries are real.

use proc_macro2::{Literal, TokenStream};
use quote::{format_ident, quote};

use super::{text, Ctx, Level};
use crate::error::Result;
use crate::names;

pub fn emit(cx: &Ctx) -> Result<String> {
    let (inst, mut fills) = table(
        cx,
        "InstanceDispatchTable",
        |l| l.is_instance_table(),
        "instance (`VkInstance`, `VkPhysicalDevice`)",
    );
    let (dev, dev_fills) = table(
        cx,
        "DeviceDispatchTable",
        |l| l == Level::Device,
        "device (`VkDevice`, `VkQueue`, `VkCommandBuffer`)",
    );
    fills.extend(dev_fills);
    let tokens = quote! {
        #![allow(clippy::missing_safety_doc, clippy::too_many_arguments)]
        use core::ffi::CStr;
        use crate::{pfn, vk};
        use crate::dispatch_table::{first, disabled, SlotTable};
        pub use crate::dispatch_table::DISABLED_REPORT;

        #inst
        #dev
    };
    let mut out = super::format_file(
        "dispatch.rs",
        "Dispatch tables filled from a get-proc-addr function; missing entries point at stubs that\nreturn VK_ERROR_FEATURE_NOT_PRESENT (or nothing), so callers never jump to null. Stubs of\nexported extension commands are AOSP's \"disabled\" functions: they report the call through\n`DISABLED_REPORT` and return VK_SUCCESS (or nothing).",
        tokens,
    )?;
    for (marker, items) in fills {
        out = text::fill(&out, &marker, &items);
    }
    Ok(text::fill(
        &out,
        "__vkgen_set_body!",
        "// SAFETY: the caller vouches for `f`'s signature, which is `SlotTable::set`'s contract.\nunsafe { SlotTable::set(self, slot, f) }\n",
    ))
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
) -> (TokenStream, Vec<(String, String)>) {
    let tname = format_ident!("{}", name);
    let snake = heck::ToSnakeCase::to_snake_case(name);
    let stub_mod = format_ident!("{}_stubs", snake);
    let cmds: Vec<_> = cx
        .sel
        .canonical_commands()
        .filter(|c| pick(c.level))
        .collect();
    let words_n = cmds.len().div_ceil(64).max(1);
    let (mut fields, mut inits, mut loads, mut stubs) =
        (String::new(), String::new(), String::new(), String::new());
    inits.push_str("Self {\n");
    for (i, c) in cmds.iter().enumerate() {
        let field = names::command_field(&c.name);
        fields.push_str(&text::doc_link(cx, &c.name));
        fields.push_str(&format!("pub {field}: pfn::PFN_{},\n", c.name));
        inits.push_str(&format!("    {field}: {stub_mod}::{field},\n"));
        let mut all_names = vec![format!("c\"{}\"", c.name)];
        all_names.extend(
            cx.sel
                .commands
                .iter()
                .filter(|a| a.canonical == c.name && a.name != c.name)
                .map(|a| format!("c\"{}\"", a.name)),
        );
        loads.push_str(&format!(
            "if let Some(f) = first(gpa, &[{}]) {{\n",
            all_names.join(", ")
        ));
        loads.push_str(
            "    // SAFETY: the provider returned this function for this name, so it has this\n",
        );
        loads.push_str("    // signature (the caller's contract).\n");
        loads.push_str(&format!(
            "    t.{field} = unsafe {{ core::mem::transmute::<unsafe extern \"system\" fn(), pfn::PFN_{}>(f) }};\n",
            c.name
        ));
        loads.push_str(&format!(
            "    t.present[{}] |= 1 << {};\n}}\n",
            i / 64,
            i % 64
        ));
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
    let m_fields = format!("__vkgen_fields_{snake}");
    let m_stubs = format!("__vkgen_stubs_{snake}");
    let m_inits = format!("__vkgen_inits_{snake}");
    let m_loads = format!("__vkgen_loads_{snake}");
    let (f_id, s_id, i_id, l_id) = (
        format_ident!("{}", m_fields),
        format_ident!("{}", m_stubs),
        format_ident!("{}", m_inits),
        format_ident!("{}", m_loads),
    );
    let mut fills = vec![
        (m_fields, fields),
        (m_stubs, stubs),
        (m_inits, inits),
        (m_loads, loads),
    ];
    let n = Literal::usize_unsuffixed(cmds.len());
    let words = Literal::usize_unsuffixed(cmds.len().div_ceil(64).max(1));
    let doc = format!("Every {what} command of the selection, in registry order.");
    let m_impl = format!("__vkgen_slot_table_{snake}");
    let impl_id = format_ident!("{}", m_impl);
    fills.push((
        m_impl,
        format!(
            "// SAFETY: `{name}` is repr(C) and starts with its LEN function-pointer fields (the\n\
             // generator writes one per slot, `present` last).\n\
             unsafe impl SlotTable for {name} {{\n    \
             const LEN: usize = {n};\n    \
             fn present(&self) -> &[u64] {{\n        &self.present\n    }}\n    \
             fn present_mut(&mut self) -> &mut [u64] {{\n        &mut self.present\n    }}\n\
             }}\n",
            n = cmds.len()
        ),
    ));
    let tokens = quote! {
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
                let mut t = Self::empty();
                #l_id!();
                t
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
    };
    (tokens, fills)
}
