//! `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr` as applications see them.
//!
//! `vkGetInstanceProcAddr(instance, name)`:
//! * `vkGetInstanceProcAddr` itself → ours, with or without an instance;
//! * `instance == NULL` → the global commands (`vkCreateInstance`,
//!   `vkEnumerateInstance{Version,ExtensionProperties,LayerProperties}`) → ours; anything else →
//!   `NULL`;
//! * a global command with an instance → `NULL` (Android; the spec's "any other case");
//! * an exported command (core, or an exported extension) → the loader's exported symbol (a
//!   trampoline, or the loader's own implementation for `commands::LOADER_INTERCEPTED`), so the
//!   result dispatches through word 0 of its handle;
//! * anything else → the head of the instance's layer chain (the driver's own function when no
//!   layer intercepts it).
//!
//! `vkGetDeviceProcAddr(device, name)`:
//! * null device or name → `NULL`;
//! * a command that is not device-level (global, instance, physical device) → `NULL`;
//! * `vkGetDeviceProcAddr`, `vkDestroyDevice` → ours;
//! * a command the loader hooks (its own implementations, WSI) of an extension the device (or,
//!   for device commands of instance extensions, the instance) did not enable, unless it is core
//!   at or below the device's effective API version → `NULL` (AOSP filters only its hooks);
//! * a name the device's table asked the chain for at `vkCreateDevice` (the commands the device
//!   can expose, `device_table`) → the chain's answer then, from the table (NULL if it had
//!   none), without calling down the chain again;
//! * (any registry command answered before on this device is answered as then, from one word per
//!   command: `device_table::LaterAnswers`);
//! * anything else (core above the device's version, extensions not enabled, names unknown to
//!   the registry) → the head of the device's layer chain: the driver's own function unless a
//!   layer or the loader intercepts it (without layers, a name the terminator would pass on
//!   unchanged goes to the driver's `vkGetDeviceProcAddr` directly).

use std::ffi::CStr;
use std::sync::OnceLock;

use vkgen_generated::commands::{self, CommandId, CommandInfo, Level, Origin};

use crate::device_table::CommandSet;
use crate::dispatch_data::{device_data, instance_data, ApiDevice};

use crate::terminator;
use vkgen_generated::vk;

/// The exported function named `name` ([`super::exports::exported_function`]), which the two
/// queries answer exported names with.
pub(crate) type Exported = fn(&CStr) -> vk::PFN_vkVoidFunction;

/// `vkGetInstanceProcAddr`'s answer for `name` (the entry point is in [`super::exports`]).
///
/// # Safety
/// `instance` null or a live instance of this loader.
pub(crate) unsafe fn instance_proc_addr(
    instance: vk::Instance,
    name: &CStr,
    exported_function: Exported,
) -> vk::PFN_vkVoidFunction {
    if name == c"vkGetInstanceProcAddr" {
        return exported_function(name);
    }
    let info = commands::lookup(name).map(commands::info);
    let raw = vk::Handle::as_raw(instance) as usize;
    if raw == 0 {
        return match info {
            Some(info) if info.level == Level::Global => exported_function(name),
            _ => {
                log::debug!("vkGetInstanceProcAddr(NULL, {name:?}): not a global command");
                None
            }
        };
    }
    match info {
        Some(info) if info.level == Level::Global => {
            log::debug!(
                "vkGetInstanceProcAddr(instance, {name:?}): global commands need a NULL instance"
            );
            return None;
        }
        Some(info) if info.exported => return exported_function(name),
        _ => {}
    }
    // SAFETY: `raw` is non-null here (null returned above) and the application's live instance of
    // this loader (VUID-vkGetInstanceProcAddr-instance-parameter).
    let data = unsafe { instance_data(raw) }?;
    let (handle, head) = match data.api.get() {
        Some(api) => (api.handle, api.head_gipa),
        // Only reachable while the instance is being created.
        None => (
            instance,
            terminator::get_instance_proc_addr as vk::PFN_vkGetInstanceProcAddr,
        ),
    };
    // SAFETY: the head of the chain with the instance it created and a C string.
    unsafe { head(handle, name.as_ptr()) }
}

/// `vkGetDeviceProcAddr`'s answer for `name` (the entry point is in [`super::exports`]).
///
/// # Safety
/// `device` null or a live device of this loader.
pub(crate) unsafe fn device_proc_addr(
    device: vk::Device,
    name: &CStr,
    exported_function: Exported,
) -> vk::PFN_vkVoidFunction {
    // SAFETY: `device` is the application's: null or a live device of this loader
    // (VUID-vkGetDeviceProcAddr-device-parameter).
    let data = unsafe { device_data(vk::Handle::as_raw(device) as usize) }?;
    let id = commands::lookup(name);
    let info = id.map(commands::info);
    if let (Some(id), Some(info)) = (id, info) {
        if info.level != Level::Device {
            log::debug!("vkGetDeviceProcAddr({name:?}): not a device-level command");
            return None;
        }
        if id == CommandId::GET_DEVICE_PROC_ADDR || id == CommandId::DESTROY_DEVICE {
            return exported_function(name);
        }
    }
    let Some(api) = data.api.get() else {
        // Only reachable while the device is being created.
        // SAFETY: the terminator with this device and a C string.
        return unsafe { terminator::get_device_proc_addr(device, name.as_ptr()) };
    };
    if let Some(f) = id.and_then(|id| data.later.get(id)) {
        // Answered before on this device (the rules below give the same answer again).
        return f;
    }
    let is_hooked = id.is_some_and(|id| hooked().contains(id));
    if let (Some(id), Some(info)) = (id, info) {
        // AOSP (`driver::GetDeviceProcAddr`): only the commands the loader hooks are filtered
        // by the enabled extensions and version; every other name is the driver's answer.
        if is_hooked && !command_enabled(info, api) {
            log::debug!(
                "vkGetDeviceProcAddr({name:?}): a loader hook whose extension is not enabled \
                 and which is not core at the device's API version"
            );
            return data.later.remember(id, None);
        }
        // The chain was asked for this name at vkCreateDevice (`device_table`): its answer
        // then is its answer now, without the chain's own name lookups.
        let f = match api.answers.recorded(id) {
            Some(true) => info.slot().and_then(|slot| data.dispatch().get(slot)),
            Some(false) => None,
            // SAFETY: as the chain call below.
            None => unsafe { chain_proc_addr(device, data, api, name, is_hooked) },
        };
        return data.later.remember(id, f);
    }
    // SAFETY: `device` is the application's live device whose data and api-level data these
    // are, and `name` a C string.
    unsafe { chain_proc_addr(device, data, api, name, is_hooked) }
}

/// The device chain's answer for `name` (`is_hooked`: whether it is a loader hook).
///
/// # Safety
/// `device` is a live device of this loader, `data` and `api` its data, `name` a C string.
unsafe fn chain_proc_addr(
    device: vk::Device,
    data: &crate::dispatch_data::DeviceData,
    api: &ApiDevice,
    name: &CStr,
    is_hooked: bool,
) -> vk::PFN_vkVoidFunction {
    // No layers: the chain is the terminator, which passes most names to the driver as they
    // are; those go to the driver directly (the same answer, one look at the name fewer).
    if api.head_gdpa as *const () == terminator::get_device_proc_addr as *const ()
        && api.handle == device
        && terminator::forwards_to_driver(name, is_hooked)
    {
        // SAFETY: the driver's vkGetDeviceProcAddr with its own live device (the chain's only
        // level is the terminator, which passes this name on with this handle).
        return unsafe { (data.term.gdpa)(device, name.as_ptr()) };
    }
    // SAFETY: the head of the device chain with the device it created and a C string.
    unsafe { (api.head_gdpa)(api.handle, name.as_ptr()) }
}

/// The commands [`loader_hooked`] names, as a set computed once: `vkGetDeviceProcAddr` tests a
/// bit instead of comparing the name with each hook's.
fn hooked() -> &'static CommandSet {
    static HOOKED: OnceLock<CommandSet> = OnceLock::new();
    HOOKED.get_or_init(|| CommandSet::matching(|_, info| loader_hooked(info.name(), info)))
}

/// The device-level commands the terminator hands to the driver's `vkGetDeviceProcAddr` as
/// they are ([`terminator::forwards_to_driver`]), as a set computed once: a device without layers
/// asks the driver for these directly when its table is filled (`device_table::load`).
pub(crate) fn forwarded() -> &'static CommandSet {
    static FORWARDED: OnceLock<CommandSet> = OnceLock::new();
    FORWARDED.get_or_init(|| {
        let hooked = hooked();
        CommandSet::matching(|id, info| {
            info.level == Level::Device
                && terminator::forwards_to_driver(info.name(), hooked.contains(id))
        })
    })
}

/// Whether the loader hooks `name`: its own implementations (`commands::LOADER_INTERCEPTED`),
/// its swapchain (`wsi::device_hook`) and the commands of the extensions it implements.
pub(crate) fn loader_hooked(name: &CStr, info: &CommandInfo) -> bool {
    commands::LOADER_INTERCEPTED.contains(&name)
        || crate::wsi::device_hook(name).is_some()
        || info.extensions().iter().any(|&e| {
            let policy = vkgen_generated::extensions::info(e).policy;
            // Driver-private (`VK_ANDROID_native_buffer`) commands are the loader's business too.
            policy.loader_implemented || policy.internal
        })
}

/// Whether a device-level command may be returned for a device: core at or below its
/// effective API version, or provided by an extension enabled on it (or on its instance).
pub(crate) fn command_enabled(info: &CommandInfo, device: &ApiDevice) -> bool {
    if let Origin::Core(version) = info.origin {
        if version <= device.api_version {
            return true;
        }
    }
    info.extensions()
        .iter()
        .any(|&e| device.enabled_extensions.contains(e) || device.instance_extensions.contains(e))
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::extensions::ExtensionSet;
    use std::ffi::c_char;

    unsafe extern "system" fn no_gdpa(_: vk::Device, _: *const c_char) -> vk::PFN_vkVoidFunction {
        None
    }

    fn enabled(device: &ApiDevice, name: &CStr) -> bool {
        command_enabled(commands::info(commands::lookup(name).unwrap()), device)
    }

    #[test]
    fn aosp_filters_only_the_loaders_hooks() {
        let hooked = |n: &CStr| loader_hooked(n, commands::info(commands::lookup(n).unwrap()));
        assert!(hooked(c"vkCreateSwapchainKHR"), "the loader's swapchain");
        assert!(hooked(c"vkAcquireImageANDROID"), "driver-private");
        assert!(
            !hooked(c"vkGetDeviceQueue2"),
            "the driver's answer, whatever the app's version"
        );
        assert!(!hooked(c"vkCmdBeginRendering"));
        assert!(!hooked(c"vkCmdDrawMultiEXT"));
    }

    /// What a device without layers asks its driver for directly is only what the terminator
    /// would pass on unchanged: never its own hooks (the queue and command-buffer commands
    /// stamp their new objects' loader word), the WSI's, or the names it answers itself.
    #[test]
    fn the_forwarded_set_leaves_the_terminators_own_answers_to_it() {
        for name in [
            c"vkGetDeviceQueue",
            c"vkGetDeviceQueue2",
            c"vkAllocateCommandBuffers",
            c"vkFreeCommandBuffers",
            c"vkDestroyDevice",
            c"vkGetDeviceProcAddr",
            c"vkCreateSwapchainKHR",
            c"vkQueuePresentKHR",
            c"vkBindImageMemory2",
            c"vkAcquireImageANDROID",
        ] {
            let id = commands::lookup(name).unwrap();
            assert!(!forwarded().contains(id), "{name:?}");
        }
        for name in [
            c"vkCreateFence",
            c"vkCmdDraw",
            c"vkQueueSubmit",
            c"vkCmdBeginRendering",
        ] {
            assert!(
                forwarded().contains(commands::lookup(name).unwrap()),
                "{name:?}"
            );
        }
        for (i, info) in commands::COMMANDS.iter().enumerate() {
            let id = CommandId(u16::try_from(i).unwrap());
            if forwarded().contains(id) {
                assert_eq!(info.level, Level::Device, "{:?}", info.name());
                assert!(!hooked().contains(id), "{:?}", info.name());
            }
        }
    }

    #[test]
    fn the_hooked_set_is_loader_hooked() {
        for (i, info) in commands::COMMANDS.iter().enumerate() {
            let id = CommandId(u16::try_from(i).unwrap());
            assert_eq!(
                hooked().contains(id),
                loader_hooked(info.name(), info),
                "{info:?}"
            );
        }
        assert!(hooked().contains(commands::lookup(c"vkQueuePresentKHR").unwrap()));
        assert!(!hooked().contains(commands::lookup(c"vkCmdDraw").unwrap()));
    }

    #[test]
    fn device_commands_need_their_version_or_extension() {
        let device = ApiDevice {
            handle: vk::Device::null(),
            head_gdpa: no_gdpa,
            layers: crate::host_alloc::HostVec::new_in(
                crate::host_alloc::HostAllocator::default_for(vk::SystemAllocationScope::DEVICE),
            ),
            api_version: vk::API_VERSION_1_1,
            enabled_extensions: ExtensionSet::from_names([c"VK_KHR_dynamic_rendering"]),
            instance_extensions: ExtensionSet::from_names([c"VK_EXT_debug_utils"]),
            answers: Default::default(),
        };
        assert!(enabled(&device, c"vkCreateFence"));
        assert!(enabled(&device, c"vkTrimCommandPool"));
        assert!(!enabled(&device, c"vkResetQueryPool"));
        assert!(!enabled(&device, c"vkCmdBeginRendering"));
        assert!(enabled(&device, c"vkCmdBeginRenderingKHR"));
        assert!(!enabled(&device, c"vkCmdDrawMultiEXT"));
        // A device command of an instance extension.
        assert!(enabled(&device, c"vkCmdBeginDebugUtilsLabelEXT"));
        let newer = ApiDevice {
            api_version: vk::API_VERSION_1_3,
            ..device
        };
        assert!(enabled(&newer, c"vkCmdBeginRendering"));
        assert!(enabled(&newer, c"vkResetQueryPool"));
    }
}
