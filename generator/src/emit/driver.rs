//! `src/driver.rs`: the driver entry skeleton. A driver implements the `Driver` trait (one hook per
//! command; defaults give the "not implemented" answer), and the generated get-proc-addr functions
//! hand out `extern "system"` entry points that call the hooks behind a panic guard. Which commands a
//! driver exposes follows from its API version and extensions, as the spec's proc-addr rules ask.

use proc_macro2::TokenStream;
use quote::quote;

use super::{text, Ctx};
use crate::error::Result;
use crate::names;

pub fn emit(cx: &Ctx) -> Result<String> {
    let (mut hooks, mut entries, mut arms) = (
        String::new(),
        String::new(),
        String::from("match cmd.0 {\n"),
    );
    let index = cx.command_index();
    for c in cx.sel.canonical_commands() {
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
            "vkGetInstanceProcAddr" => {
                format!("unsafe {{ get_instance_proc_addr::<Self>({args}) }}")
            }
            "vkGetDeviceProcAddr" => format!("unsafe {{ get_device_proc_addr::<Self>({args}) }}"),
            _ if cmd.ret.base == "VkResult" && !cmd.ret.is_pointer() => {
                format!("Self::unimplemented(CommandId({id}))")
            }
            _ => fail.to_owned(),
        };
        hooks.push('\n');
        hooks.push_str(&text::doc_link(cx, &c.name));
        hooks.push_str(&format!(
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
        .write_open(&mut hooks, "");
        hooks.push_str(&format!("    {default_body}\n}}\n"));

        entries.push('\n');
        entries.push_str(&text::doc_link(cx, &c.name));
        text::Sig {
            head: "pub unsafe extern \"system\" fn",
            name: &field,
            generics: "<D: Driver>",
            params: &params,
            ret: ret.as_deref(),
        }
        .write_open(&mut entries, "");
        entries.push_str("    // SAFETY: the caller passes arguments valid for this command; the hook's contract.\n");
        entries.push_str(&format!(
            "    guard({fail}, || unsafe {{ D::{field}({args}) }})\n}}\n"
        ));

        let mut ids = vec![id.to_string()];
        ids.extend(
            cx.sel
                .commands
                .iter()
                .filter(|a| a.canonical == c.name && a.name != c.name)
                .map(|a| index[a.name.as_str()].to_string()),
        );
        arms.push_str(&format!("    {} => {{\n", ids.join(" | ")));
        arms.push_str(&format!(
            "        let f: crate::pfn::PFN_{} = entry::{field}::<D>;\n",
            c.name
        ));
        arms.push_str("        // SAFETY: every function pointer has the same representation; callers cast back.\n");
        arms.push_str(&format!(
            "        Some(unsafe {{ core::mem::transmute::<crate::pfn::PFN_{}, unsafe extern \"system\" fn()>(f) }})\n    }}\n",
            c.name
        ));
    }
    arms.push_str("    _ => None,\n}\n");
    let tokens: TokenStream = quote! {
        #![allow(clippy::missing_safety_doc, clippy::too_many_arguments, clippy::unused_unit, unused_unsafe)]
        use core::ffi::{c_char, CStr};
        use crate::commands::{self, CommandId, Level, Origin};
        use crate::extensions::ExtensionId;
        use crate::vk;

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
            ///
            /// # Safety
            /// `handle` is the instance or device handle the proc address is asked for, or null.
            unsafe fn passthrough(level: Level, handle: u64, name: &CStr) -> vk::PFN_vkVoidFunction {
                let _ = (level, handle, name);
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

        /// Runs `f`; a panic becomes `fail` instead of unwinding into C.
        #[inline(always)]
        fn guard<R>(fail: R, f: impl FnOnce() -> R) -> R {
            match std::panic::catch_unwind(std::panic::AssertUnwindSafe(f)) {
                Ok(r) => r,
                Err(_) => fail,
            }
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

        /// A core command (not an extension alias of one) of a version the driver implements.
        fn is_core<D: Driver>(info: &'static commands::CommandInfo) -> bool {
            matches!((info.origin, info.canonical().origin), (Origin::Core(_), Origin::Core(v)) if v <= D::API_VERSION)
        }

        /// Whether the driver exposes `cmd`: core up to its API version, or one of its extensions.
        pub fn exposes<D: Driver>(cmd: CommandId) -> bool {
            let info = commands::info(cmd);
            if is_core::<D>(info) {
                return true;
            }
            info.extensions.iter().any(|&e| D::supports_extension(e))
        }

        /// Core commands up to the driver's version, or a command of an extension enabled on `device`.
        fn enabled_on_device<D: Driver>(device: u64, cmd: CommandId) -> bool {
            let info = commands::info(cmd);
            if is_core::<D>(info) {
                return true;
            }
            // SAFETY: `device` came to the driver's own vkGetDeviceProcAddr.
            info.extensions.iter().any(|&e| unsafe { D::is_enabled_on_device(device, e) })
        }

        unsafe fn resolve<D: Driver>(level: Level, handle: u64, name: *const c_char, allowed: &[Level]) -> vk::PFN_vkVoidFunction {
            if name.is_null() {
                return None;
            }
            // SAFETY: Vulkan passes a NUL-terminated name.
            let name = unsafe { CStr::from_ptr(name) };
            let Some(id) = commands::lookup(name) else {
                // SAFETY: forwarded.
                return unsafe { D::passthrough(level, handle, name) };
            };
            let info = commands::info(id);
            if !allowed.contains(&info.level) || !exposes::<D>(id) {
                return None;
            }
            if !D::intercepts(id) {
                // The driver underneath decides: its absence is the answer (NULL).
                // SAFETY: forwarded.
                return unsafe { D::passthrough(level, handle, name) };
            }
            if level == Level::Device && handle != 0 && !enabled_on_device::<D>(handle, id) {
                return None;
            }
            let canonical = canonical(id);
            if D::implements(canonical) || is_proc_addr(canonical) {
                return entry_point::<D>(id);
            }
            if let Some(f) = D::fallback(canonical) {
                return Some(f);
            }
            if D::STUB_UNIMPLEMENTED {
                return entry_point::<D>(id);
            }
            None
        }

        /// The command an alias names (itself for a command).
        pub fn canonical(mut id: CommandId) -> CommandId {
            while let Some(a) = commands::info(id).alias_of {
                id = a;
            }
            id
        }

        /// The two get-proc-addr commands: always the driver's (their defaults are the resolvers).
        fn is_proc_addr(id: CommandId) -> bool {
            id == CommandId::GET_INSTANCE_PROC_ADDR || id == CommandId::GET_DEVICE_PROC_ADDR
        }

        /// Whether `cmd`'s proc address is the driver's hook, a fallback, or absent (for tests
        /// and tools; the resolvers apply the version, extension and level rules first).
        pub fn provider<D: Driver>(cmd: CommandId) -> Provider {
            let c = canonical(cmd);
            if D::implements(c) || is_proc_addr(c) {
                Provider::Hook
            } else if D::fallback(c).is_some() {
                Provider::Fallback
            } else if D::STUB_UNIMPLEMENTED {
                Provider::Stub
            } else {
                Provider::Absent
            }
        }

        /// Who answers a command (see [`provider`]).
        #[derive(Clone, Copy, PartialEq, Eq, Debug)]
        pub enum Provider {
            /// The driver's own hook.
            Hook,
            /// [`Driver::fallback`].
            Fallback,
            /// A stub answering [`Driver::unimplemented`].
            Stub,
            /// No proc address.
            Absent,
        }

        /// The driver's `vkGetInstanceProcAddr` (also `vk_icdGetInstanceProcAddr` and the HAL's):
        /// with a null instance only global commands; otherwise every level.
        pub unsafe extern "system" fn get_instance_proc_addr<D: Driver>(instance: vk::Instance, name: *const c_char) -> vk::PFN_vkVoidFunction {
            let handle = vk::Handle::as_raw(instance);
            let allowed: &[Level] = if handle == 0 {
                &[Level::Global]
            } else {
                &[Level::Global, Level::Instance, Level::PhysicalDevice, Level::Device]
            };
            // SAFETY: forwarded.
            guard(None, || unsafe { resolve::<D>(Level::Instance, handle, name, allowed) })
        }

        /// The driver's `vkGetDeviceProcAddr`: device-level commands only.
        pub unsafe extern "system" fn get_device_proc_addr<D: Driver>(device: vk::Device, name: *const c_char) -> vk::PFN_vkVoidFunction {
            let handle = vk::Handle::as_raw(device);
            if handle == 0 {
                return None;
            }
            // SAFETY: forwarded.
            guard(None, || unsafe { resolve::<D>(Level::Device, handle, name, &[Level::Device]) })
        }

        /// `vk_icdGetPhysicalDeviceProcAddr`: physical-device-level commands only.
        pub unsafe extern "system" fn get_physical_device_proc_addr<D: Driver>(instance: vk::Instance, name: *const c_char) -> vk::PFN_vkVoidFunction {
            let handle = vk::Handle::as_raw(instance);
            // SAFETY: forwarded.
            guard(None, || unsafe { resolve::<D>(Level::PhysicalDevice, handle, name, &[Level::PhysicalDevice]) })
        }

    };
    let out = super::format_file(
        "driver.rs",
        "Driver entry skeleton: the `Driver` trait (one hook per command), panic-guarded entry\npoints, and the driver-side get-proc-addr functions.",
        tokens,
    )?;
    let out = text::fill(&out, "__VKGEN_HOOKS", &hooks);
    let out = text::fill(&out, "__vkgen_entries!", &entries);
    Ok(text::fill(&out, "__vkgen_entry_point!", &arms))
}
