//! `src/driver.rs`: the driver entry skeleton. A driver implements the `Driver` trait (one hook per
//! command; defaults give the "not implemented" answer), and the generated get-proc-addr functions
//! hand out `extern "system"` entry points that call the hooks behind a panic guard. Which commands a
//! driver exposes follows from its API version and extensions, as the spec's proc-addr rules ask.

use proc_macro2::TokenStream;
use quote::quote;

use std::collections::BTreeMap;

use super::{text, Ctx};
use crate::error::Result;
use crate::names;
use crate::select::SelCommand;

/// The three per-command pieces `driver.rs` is filled with.
#[derive(Default)]
struct Rows {
    /// The `Driver` trait's hooks, each with its "not implemented" default.
    hooks: String,
    /// The guarded `extern "system"` entry points.
    entries: String,
    /// The arms of `entry_point`'s match.
    arms: String,
}

pub fn emit(cx: &Ctx) -> Result<String> {
    let index = cx.command_index();
    let commands: Vec<&SelCommand> = cx.sel.canonical_commands().collect();
    // The rows of each chunk of commands on a thread of its own, joined in order, beside the
    // skeleton's formatting: this was the longest emitter.
    let (parts, out) = std::thread::scope(|s| {
        let skeleton = s.spawn(|| {
            super::format_file(
                "driver.rs",
                "Driver entry skeleton: the `Driver` trait (one hook per command), panic-guarded entry\npoints and the command → entry-point table; the get-proc-addr rules are `driver_resolve.rs`.",
                skeleton(),
            )
        });
        let parts = crate::par::map_chunks(&commands, |chunk| {
            let mut rows = Rows::default();
            for c in chunk {
                rows.push(cx, &index, c);
            }
            vec![rows]
        });
        let out = crate::par::joined(skeleton);
        (parts, out)
    });
    let mut rows = Rows {
        arms: String::from("match cmd.0 {\n"),
        ..Rows::default()
    };
    for part in parts {
        rows.hooks.push_str(&part.hooks);
        rows.entries.push_str(&part.entries);
        rows.arms.push_str(&part.arms);
    }
    rows.arms.push_str("    _ => None,\n}\n");
    let out = out?;
    Ok(text::fill_all(
        &out,
        &[
            ("__VKGEN_HOOKS", &rows.hooks),
            ("__vkgen_entries!", &rows.entries),
            ("__vkgen_lookup!", LOOKUP),
            ("__vkgen_entry_point!", &rows.arms),
        ],
    ))
}

/// Every `Driver` as the get-proc-addr rules see it (`driver_resolve.rs`'s `Lookup`, which
/// names nothing of `driver.rs`: the arrows run from here to there). Text, not `quote!`, for
/// its SAFETY comments.
const LOOKUP: &str = r#"
/// Every driver, as the get-proc-addr rules see it.
impl<D: Driver> resolve::Lookup for D {
    const API_VERSION: u32 = <D as Driver>::API_VERSION;
    const STUB_UNIMPLEMENTED: bool = <D as Driver>::STUB_UNIMPLEMENTED;
    fn implements(cmd: CommandId) -> bool {
        <D as Driver>::implements(cmd)
    }
    fn fallback(cmd: CommandId) -> vk::PFN_vkVoidFunction {
        <D as Driver>::fallback(cmd)
    }
    fn supports_extension(ext: ExtensionId) -> bool {
        <D as Driver>::supports_extension(ext)
    }
    fn intercepts(cmd: CommandId) -> bool {
        <D as Driver>::intercepts(cmd)
    }
    unsafe fn passthrough(
        level: Level,
        handle: u64,
        name: &CStr,
        cmd: Option<CommandId>,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: the caller's contract is `passthrough`'s.
        unsafe { <D as Driver>::passthrough(level, handle, name, cmd) }
    }
    unsafe fn is_enabled_on_device(device: u64, ext: ExtensionId) -> bool {
        // SAFETY: the caller's contract is `is_enabled_on_device`'s.
        unsafe { <D as Driver>::is_enabled_on_device(device, ext) }
    }
    fn entry_point(cmd: CommandId) -> vk::PFN_vkVoidFunction {
        entry_point::<D>(cmd)
    }
}
"#;

impl Rows {
    /// The hook, the entry point and the `entry_point` arm of canonical command `c`.
    fn push(&mut self, cx: &Ctx, index: &BTreeMap<&str, usize>, c: &SelCommand) {
        let cmd = cx.command(&c.name);
        let field = names::command_field(&c.name);
        let params = text::params(cx, cmd);
        let args = params
            .iter()
            .map(|(n, _)| n.as_str())
            .collect::<Vec<_>>()
            .join(", ");
        let ret = text::ret_str(cx, &cmd.ret);
        let fail = text::failure_str(&cmd.ret);
        let id = index[c.name.as_str()];
        let default_body = match c.name.as_str() {
            "vkGetInstanceProcAddr" => format!(
                "// SAFETY: the hook's contract is the resolver's: a null or live instance of\n    \
                 // this driver, a null or NUL-terminated name.\n    \
                 unsafe {{ get_instance_proc_addr::<Self>({args}) }}"
            ),
            "vkGetDeviceProcAddr" => format!(
                "// SAFETY: the hook's contract is the resolver's: a null or live device of this\n    \
                 // driver, a null or NUL-terminated name.\n    \
                 unsafe {{ get_device_proc_addr::<Self>({args}) }}"
            ),
            _ if cmd.ret.base == "VkResult" && !cmd.ret.is_pointer() => {
                format!("Self::unimplemented(CommandId({id}))")
            }
            _ => fail.to_owned(),
        };
        self.hooks.push('\n');
        self.hooks.push_str(&text::doc_link(cx, &c.name));
        self.hooks.push_str(&format!(
            "#[doc(alias = \"{}\")]\n#[allow(unused_variables)]\n",
            c.name
        ));
        text::Sig {
            head: "unsafe fn",
            name: &field,
            generics: "",
            params: &params,
            ret: ret.as_deref(),
        }
        .write_open(&mut self.hooks, "");
        self.hooks.push_str(&format!("    {default_body}\n}}\n"));

        self.entries.push('\n');
        self.entries.push_str(&text::doc_link(cx, &c.name));
        text::Sig {
            head: "pub unsafe extern \"system\" fn",
            name: &field,
            generics: "<D: Driver>",
            params: &params,
            ret: ret.as_deref(),
        }
        .write_open(&mut self.entries, "");
        self.entries.push_str("    // SAFETY: the caller passes arguments valid for this command; the hook's contract.\n");
        self.entries.push_str(&format!(
            "    guard(\"{}\", {fail}, || unsafe {{ D::{field}({args}) }})\n}}\n",
            c.name
        ));

        let mut ids = vec![id.to_string()];
        ids.extend(
            cx.sel
                .commands
                .iter()
                .filter(|a| a.canonical == c.name && a.name != c.name)
                .map(|a| index[a.name.as_str()].to_string()),
        );
        self.arms
            .push_str(&format!("    {} => {{\n", ids.join(" | ")));
        self.arms.push_str(&format!(
            "        let f: crate::pfn::PFN_{} = entry::{field}::<D>;\n",
            c.name
        ));
        self.arms.push_str("        // SAFETY: every function pointer has the same representation; callers cast back.\n");
        self.arms.push_str(&format!(
            "        Some(unsafe {{ core::mem::transmute::<crate::pfn::PFN_{}, unsafe extern \"system\" fn()>(f) }})\n    }}\n",
            c.name
        ));
    }
}

/// The file the rows are filled into: the `Driver` trait, the `entry` module and `entry_point`.
fn skeleton() -> TokenStream {
    quote! {
        #![allow(clippy::missing_safety_doc, clippy::too_many_arguments, clippy::unused_unit, unused_unsafe)]
        use core::ffi::CStr;
        use crate::commands::{CommandId, Level};
        use crate::extensions::ExtensionId;
        use crate::vk;
        // The get-proc-addr rules and the entry-point guard: hand-written, copied beside this file.
        #[path = "driver_resolve.rs"]
        mod resolve;
        pub(crate) use resolve::guard;
        pub use resolve::{
            canonical, exposes, get_device_proc_addr, get_device_proc_addrs,
            get_instance_proc_addr, get_instance_proc_addrs, get_physical_device_proc_addr,
            provider, PfnGetDeviceProcAddrs, PfnGetInstanceProcAddrs, Provider,
            GET_DEVICE_PROC_ADDRS_NAME, GET_INSTANCE_PROC_ADDRS_NAME, PANIC_REPORT,
        };

        /// A Vulkan driver: one hook per command. Only the hooks a driver implements get proc
        /// addresses; the rest are absent (NULL from every get-proc-addr path), unless
        /// [`fallback`](Driver::fallback) supplies a common implementation (the driver kit's
        /// `vk_common`-style defaults) or the driver opts into stubs with
        /// [`STUB_UNIMPLEMENTED`](Driver::STUB_UNIMPLEMENTED).
        ///
        /// Which hooks are implemented is [`implements`](Driver::implements): put
        /// `#[vkgen_driver::driver]` on the `impl Driver for …` block and it is written from the
        /// methods the block defines.
        ///
        /// Hooks are `unsafe` because they receive raw Vulkan arguments whose validity is the
        /// application's responsibility (valid usage).
        pub trait Driver: Sized + 'static {
            /// Whether the hook of `cmd` (a canonical command, never an alias) is implemented by
            /// this type. Commands whose hook is not implemented get no proc address unless
            /// [`fallback`](Driver::fallback) has one.
            fn implements(cmd: CommandId) -> bool { let _ = cmd; false }

            /// A common implementation of `cmd` (canonical) for a driver that does not implement
            /// its hook: how a driver kit routes `vkGetPhysicalDeviceFeatures` to the `…2` query,
            /// answers the extension enumerations from its tables, and the like.
            fn fallback(cmd: CommandId) -> vk::PFN_vkVoidFunction { let _ = cmd; None }

            /// Expose every hook, implemented or not; the unimplemented ones answer
            /// [`unimplemented`](Driver::unimplemented) (void ones do nothing). For null drivers
            /// only: a real driver must not hand out commands it does not implement.
            const STUB_UNIMPLEMENTED: bool = false;

            /// The API version the driver implements: commands of later core versions are not exposed.
            const API_VERSION: u32 = crate::API_VERSION;

            /// Whether the driver exposes this extension's commands.
            fn supports_extension(ext: ExtensionId) -> bool { let _ = ext; false }

            /// Whether `cmd` goes to the hook. Commands not intercepted go to `passthrough` first.
            fn intercepts(cmd: CommandId) -> bool { let _ = cmd; true }

            /// A function of the driver underneath (passthrough drivers), or `None` to use the hook.
            /// `cmd` is the registry's command `name` names (`None` for a name it does not know),
            /// already looked up, so a driver keyed by command need not hash the name again.
            ///
            /// # Safety
            /// `handle` is the instance or device handle the proc address is asked for, or null.
            unsafe fn passthrough(level: Level, handle: u64, name: &CStr, cmd: Option<CommandId>) -> vk::PFN_vkVoidFunction {
                let _ = (level, handle, name, cmd);
                None
            }

            /// Whether `ext` was enabled on `device` (a device created by this driver). Device-level
            /// proc addresses of commands whose extensions are all disabled are NULL (spec, Android
            /// 15+). The default says every supported extension is enabled.
            ///
            /// # Safety
            /// `device` is a handle this driver created.
            unsafe fn is_enabled_on_device(device: u64, ext: ExtensionId) -> bool {
                let _ = device;
                Self::supports_extension(ext)
            }

            /// What a stubbed hook returns when [`STUB_UNIMPLEMENTED`](Driver::STUB_UNIMPLEMENTED)
            /// exposes it.
            fn unimplemented(cmd: CommandId) -> vk::Result {
                let _ = cmd;
                vk::Result::ERROR_FEATURE_NOT_PRESENT
            }

            const __VKGEN_HOOKS: () = ();
        }

        /// The `extern "system"` entry points, one per command, generic over the driver.
        pub mod entry {
            use super::*;
            __vkgen_entries!();
        }

        /// The entry point of `cmd` (aliases map to their command), ignoring support rules.
        pub fn entry_point<D: Driver>(cmd: CommandId) -> vk::PFN_vkVoidFunction {
            __vkgen_entry_point!()
        }

        __vkgen_lookup!();

    }
}
