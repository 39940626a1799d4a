//! The driver level: the bottom of every instance and device call chain (Android's
//! `vulkan::driver`, Khronos' terminators).
//!
//! The last layer's `pfnNext*ProcAddr` (or the api level itself, with no layers) is
//! [`get_instance_proc_addr`] / [`get_device_proc_addr`] / [`get_physical_device_proc_addr`].
//! They return the loader's hooks for the few commands that need bookkeeping, and the drivers'
//! own functions for everything else:
//! * **instance** ([`instance`]): `vkCreateInstance` creates one driver instance per driver
//!   (extension list and `apiVersion` sanitised per driver, loader chain structs stripped,
//!   required procs checked); `vkDestroyInstance`, `vkEnumeratePhysicalDevices` and
//!   `vkEnumeratePhysicalDeviceGroups` stamp or wrap physical devices;
//! * **physical device** ([`physical_device`]): `vkEnumerateDeviceExtensionProperties` filters
//!   the driver's list; `vkCreateDevice` routes to the physical device's driver;
//! * **device** ([`device`]): `vkCreateDevice`/`vkDestroyDevice` own the [`DeviceData`];
//!   `vkGetDeviceQueue{,2}` and `vkAllocateCommandBuffers` call the driver, then stamp word 0
//!   of the new objects.
//! * **WSI** ([`crate::wsi`]): the surface, swapchain and present commands are the loader's
//!   own at this level (drivers only implement `VK_ANDROID_native_buffer`), as is
//!   `vkBindImageMemory2` on devices with a swapchain (for `VkBindImageMemorySwapchainInfoKHR`).
//!
//! **Handle modes.** With exactly one driver instance (every Android device, most hosts) the
//! terminator hands the driver's own `VkInstance` and `VkPhysicalDevice`s up, with word 0
//! pointing at the [`InstanceData`] (Android's model): every command the loader does not hook is
//! the driver's own function, called with the driver's own handles. With zero or several
//! drivers the `VkInstance` is a loader object and physical devices are loader wrappers
//! (`{word 0, driver handle, driver table}`, Khronos' model); physical-device commands then go
//! through per-slot stubs that swap in the driver handle and jump to the driver's function, and
//! the instance-level debug extensions fan out to every driver.
//!
//! [`DeviceData`]: crate::dispatch_data::DeviceData
//! [`InstanceData`]: crate::dispatch_data::InstanceData

pub mod debug_report;
pub mod device;
pub mod fan_out;
pub mod instance;
pub mod physical_device;
mod queue_family;

use std::ffi::{c_char, CStr};

use vkgen_generated::commands::{self, Level};

pub use device::TermDevice;
pub use instance::{DriverInstance, TermInstance};

use crate::device_table::CommandSet;
use crate::dispatch_data::{device_data, instance_data, DeviceData};
use crate::ffi::{cstr, guard, to_void};
use vkgen_generated::vk;

/// The terminator's `vkGetInstanceProcAddr`: the `pfnNextGetInstanceProcAddr` of the last layer.
///
/// # Safety
/// `instance` must be null or an instance (or physical device) of this loader; `name` a C
/// string.
pub unsafe extern "system" fn get_instance_proc_addr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    guard("vkGetInstanceProcAddr (terminator)", None, || {
        // SAFETY: the caller passes a C string.
        let name = unsafe { cstr(name) }?;
        // SAFETY: `instance` is what the loader's chain passes down: null for a global query or an
        // instance (or physical device) of this loader, as `instance_proc` needs.
        unsafe { instance_proc(instance, name) }
    })
}

/// What [`get_instance_proc_addr`] answers for `id`, when that is the driver's own function,
/// taken from the driver's table instead of asking the driver again; `None` where the
/// terminator must be asked (its hooks, zero or several drivers, a command without a slot).
///
/// With one driver and no hook, `instance_proc` answers the driver's function for the name, and
/// the driver's table asked the driver for every name of every slot at `vkCreateInstance` (the
/// defining name first, then its aliases): an absent slot is NULL from the driver for each of
/// them, a present one the first name's answer. So the api level, filling its own table over
/// the terminator with no layer in between, gets the same table without asking the driver for
/// each name a second time.
///
/// # Safety
/// `instance` is a live instance of this loader (its creation past the terminator).
pub(crate) unsafe fn instance_table_answer(
    instance: vk::Instance,
    id: commands::CommandId,
) -> Option<vk::PFN_vkVoidFunction> {
    // SAFETY: the caller's live instance of this loader.
    let data = unsafe { instance_data(vk::Handle::as_raw(instance) as usize) }?;
    let term = &data.term;
    if !term.passthrough {
        return None;
    }
    let names = instance_names();
    let debug_report = term
        .enabled_extensions
        .contains(vkgen_generated::extensions::ExtensionId::EXT_DEBUG_REPORT);
    if names.hooked.contains(id) || (debug_report && names.debug_report.contains(id)) {
        return None;
    }
    let info = commands::info(id);
    let slot = info.slot()?;
    let table = &term.drivers.first()?.table;
    let f = if table.is_present(slot) {
        table.get(slot)
    } else {
        None
    };
    Some(if names.queue_family.contains(id) {
        queue_family::wrap(info.name(), f)
    } else {
        f
    })
}

/// What [`instance_proc`] does with each registry name, by id, made once per process: the
/// api level fills every instance's table through [`instance_table_answer`], which tests these
/// bits instead of matching each name against the hooks' (issue 35).
struct InstanceNames {
    /// [`hook`] answers it.
    hooked: CommandSet,
    /// `debug_report::provided` answers it (the loader's, when the instance enabled the
    /// extension).
    debug_report: CommandSet,
    /// `queue_family::wrap` may wrap the driver's answer.
    queue_family: CommandSet,
}

fn instance_names() -> &'static InstanceNames {
    static NAMES: std::sync::OnceLock<InstanceNames> = std::sync::OnceLock::new();
    NAMES.get_or_init(|| InstanceNames {
        hooked: CommandSet::matching(|_, info| hook(info.name()).is_some()),
        debug_report: CommandSet::matching(|_, info| debug_report::provided(info.name()).is_some()),
        queue_family: CommandSet::matching(|_, info| queue_family::wraps(info.name())),
    })
}

/// # Safety
/// As [`get_instance_proc_addr`].
unsafe fn instance_proc(instance: vk::Instance, name: &CStr) -> vk::PFN_vkVoidFunction {
    // SAFETY: `instance` is null (a global query) or a live instance of this loader:
    // `get_instance_proc_addr`'s caller, the loader's own chain, passes only those.
    let data = unsafe { instance_data(vk::Handle::as_raw(instance) as usize) };
    if let Some(hook) = hook(name) {
        if let Some(data) = data {
            if !instance_hook_enabled(name, &data.term.enabled_extensions) {
                log::debug!(
                    "vkGetInstanceProcAddr({name:?}): its instance extension is not enabled"
                );
                return None;
            }
        }
        return hook;
    }
    let term = &data?.term;
    // The loader's own debug report, in front of any driver's (AOSP always intercepts it).
    if let Some(f) = debug_report::hook(term, name) {
        return f;
    }
    if term.passthrough {
        let driver = &term.drivers[0];
        // SAFETY: the driver's live instance and a C string.
        let f = unsafe { (driver.gipa)(driver.handle, name.as_ptr()) };
        return queue_family::wrap(name, f);
    }
    if let Some(f) = instance::fan_out_hook(term, name) {
        return f;
    }
    let info = commands::lookup(name).map(commands::info);
    match info {
        Some(info) if info.level == Level::PhysicalDevice => {
            queue_family::wrap(name, physical_device::unwrap_stub(info.slot()?))
        }
        _ => {
            log::debug!(
                "{name:?}: not available through the loader's own instance (several or no drivers)"
            );
            None
        }
    }
}

/// The terminator's `vkGetPhysicalDeviceProcAddr` (layer interface 2): physical-device
/// commands only.
///
/// # Safety
/// As [`get_instance_proc_addr`].
pub unsafe extern "system" fn get_physical_device_proc_addr(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    guard(
        "vk_layerGetPhysicalDeviceProcAddr (terminator)",
        None,
        || {
            // SAFETY: the caller passes a C string.
            let name = unsafe { cstr(name) }?;
            match commands::lookup(name).map(commands::info) {
                // SAFETY: `instance` comes from a layer's vk_layerGetPhysicalDeviceProcAddr and is
                // null or an instance of this loader, as the layer interface requires; `name` was
                // read above.
                Some(info) if info.level == Level::PhysicalDevice => unsafe {
                    instance_proc(instance, name)
                },
                Some(_) => None,
                // SAFETY: `instance` comes from a layer's vk_layerGetPhysicalDeviceProcAddr and is
                // null or an instance of this loader, as the layer interface requires; `name` was
                // read above.
                None => unsafe { physical_device::unknown_physical_device_proc(instance, name) },
            }
        },
    )
}

/// The names [`get_device_proc_addr`] answers itself (besides the loader's hooks).
const DEVICE_PROC_SPECIALS: [&CStr; 4] = [
    c"vkFreeCommandBuffers",
    c"vkGetDeviceQueue2",
    c"vkBindImageMemory2",
    c"vkBindImageMemory2KHR",
];

/// Whether [`get_device_proc_addr`] hands `name` to the driver's `vkGetDeviceProcAddr`
/// unchanged: every name but [`DEVICE_PROC_SPECIALS`], the terminator's own device hooks
/// (`vkGetDeviceQueue`, `vkAllocateCommandBuffers`, the WSI's, …) and whatever else the caller
/// knows the loader hooks (`hooked`). On a device without layers the loader asks the driver for
/// such a name itself (`vkGetDeviceProcAddr`, the device's table), skipping this function's
/// second look at the name.
pub(crate) fn forwards_to_driver(name: &CStr, hooked: bool) -> bool {
    !hooked && !DEVICE_PROC_SPECIALS.contains(&name) && device_hook(name).is_none()
}

/// The terminator's `vkGetDeviceProcAddr`: the `pfnNextGetDeviceProcAddr` of the last layer.
///
/// # Safety
/// `device` must be null or a device of this loader; `name` a C string.
pub unsafe extern "system" fn get_device_proc_addr(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    guard("vkGetDeviceProcAddr (terminator)", None, || {
        // SAFETY: the caller passes a C string.
        let name = unsafe { cstr(name) }?;
        // SAFETY: `device` is null or a live device of this loader: the terminator's GDPA is
        // reached only through a device chain the loader built
        // (VUID-vkGetDeviceProcAddr-device-parameter).
        let data = unsafe { device_data(vk::Handle::as_raw(device) as usize) };
        if name == c"vkFreeCommandBuffers" {
            // The driver's own, which the device's creation already asked it for
            // (`DeviceProcs`): the same answer without asking twice.
            return to_void(data?.term.free_command_buffers);
        }
        if name == c"vkGetDeviceQueue2" {
            // Only where the driver has it: the hook needs the driver's function.
            return data?.term.get_device_queue2.and(to_void(
                device::get_device_queue2 as vk::PFN_vkGetDeviceQueue2,
            ));
        }
        if name == c"vkBindImageMemory2" || name == c"vkBindImageMemory2KHR" {
            // The loader's hook (for swapchain binds) only on devices with its WSI and a
            // driver that binds with VkBindImageMemory2.
            let data = data?;
            if data
                .term
                .wsi
                .as_ref()
                .is_some_and(|w| w.fns.bind_image_memory2.is_some())
            {
                // SAFETY: the driver's live device and a C string.
                return unsafe { (data.term.gdpa)(device, name.as_ptr()) }
                    .and(crate::wsi::bind_image_memory2_hook());
            }
            // SAFETY: `device` is the driver's live device (the terminator sits directly above the
            // driver) and `name` a NUL-terminated string borrowed for this call.
            return unsafe { (data.term.gdpa)(device, name.as_ptr()) };
        }
        if let Some(hook) = device_hook(name) {
            if let Some(data) = data {
                if !device_hook_enabled(name, data) {
                    log::debug!("vkGetDeviceProcAddr({name:?}): its extension is not enabled");
                    return None;
                }
            }
            return hook;
        }
        let data = data?;
        // SAFETY: the driver's live device and a C string.
        unsafe { (data.term.gdpa)(device, name.as_ptr()) }
    })
}

/// AOSP `driver::GetInstanceProcAddr`: an instance-level hook of an instance extension is handed
/// out only when the instance enabled one of its extensions (core and device-level hooks always;
/// AOSP sets the `KHR_swapchain` bit on every instance). With the table filled from here, the
/// exported commands of a disabled extension reach the generated "disabled" stubs.
fn instance_hook_enabled(name: &CStr, enabled: &crate::extensions::ExtensionSet) -> bool {
    use vkgen_generated::extensions::{self as ext, ExtensionKind};
    let Some(info) = commands::lookup(name).map(commands::info) else {
        return true;
    };
    if info.level == Level::Device || matches!(info.origin, commands::Origin::Core(_)) {
        return true;
    }
    let instance_exts: Vec<_> = info
        .extensions()
        .iter()
        .copied()
        .filter(|&e| ext::info(e).kind == ExtensionKind::Instance)
        .collect();
    instance_exts.len() < info.extensions().len()
        || instance_exts.iter().any(|&e| enabled.contains(e))
}

/// AOSP `driver::GetDeviceProcAddr`: a device hook of an extension is handed out only when the
/// device (or, for device commands of instance extensions, its instance) enabled one of its
/// extensions, or it is core at the device's version.
fn device_hook_enabled(name: &CStr, data: &DeviceData) -> bool {
    let term = &data.term;
    let Some(info) = commands::lookup(name).map(commands::info) else {
        return true;
    };
    if let commands::Origin::Core(v) = info.origin {
        if v & !0xfff <= term.physical_device_api_version & !0xfff {
            return true;
        }
    }
    // SAFETY: a device's instance outlives it.
    let instance = unsafe { data.instance.as_ref() };
    info.extensions().is_empty()
        || info.extensions().iter().any(|&e| {
            term.enabled_extensions.contains(e)
                || instance.is_some_and(|i| i.term.enabled_extensions.contains(e))
        })
}

/// The hooks that work without an instance: global commands and the commands whose
/// terminator must see every call, by name.
fn hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(terminator_instance, name)
        .or_else(|| crate::wsi::instance_hook(name))
        .or_else(|| device_hook(name))
}

/// The device-level hooks (`vkGetDeviceQueue2` is handled by the callers, which know whether
/// the driver has it).
fn device_hook(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(terminator_device, name)
        .or_else(|| crate::wsi::device_hook(name))
}

#[cfg(test)]
mod tests {
    use std::collections::{BTreeMap, BTreeSet};

    use vkgen_generated::hooks::LOADER_HOOKS;
    use vkgen_generated::loader_hooks;

    use super::*;

    unsafe extern "system" fn driver_function() {}

    /// The per-id sets `instance_table_answer` reads say what the name matches say, for every
    /// registry command.
    #[test]
    fn instance_names_are_the_name_matches() {
        let names = instance_names();
        for (i, info) in commands::COMMANDS.iter().enumerate() {
            let (id, name) = (commands::CommandId(i as u16), info.name());
            assert_eq!(names.hooked.contains(id), hook(name).is_some(), "{name:?}");
            assert_eq!(
                names.debug_report.contains(id),
                debug_report::provided(name).is_some(),
                "{name:?}"
            );
            let f: vk::PFN_vkVoidFunction = Some(driver_function);
            assert_eq!(
                names.queue_family.contains(id),
                addr(Some(queue_family::wrap(name, f))) != addr(Some(f)),
                "{name:?}"
            );
        }
        let id = |n: &CStr| commands::lookup(n).unwrap();
        assert!(names.hooked.contains(id(c"vkEnumeratePhysicalDevices")));
        assert!(names
            .debug_report
            .contains(id(c"vkCreateDebugReportCallbackEXT")));
        assert!(names
            .queue_family
            .contains(id(c"vkGetPhysicalDeviceQueueFamilyProperties")));
        assert!(!names.hooked.contains(id(c"vkGetPhysicalDeviceFeatures")));
    }

    fn addr(f: Option<vk::PFN_vkVoidFunction>) -> Option<usize> {
        f.flatten().map(|f| f as usize)
    }

    /// Every name of every generated table (`policy::LOADER_HOOKS`) that this build compiles
    /// answers a function through the lookup the loader asks that table through; names of one
    /// function answer the same one (`vkEnumeratePhysicalDeviceGroups` and its KHR alias).
    #[test]
    fn every_generated_hook_name_answers_a_function() {
        let driver: vk::PFN_vkVoidFunction = Some(driver_function);
        type Lookup<'a> = &'a dyn Fn(&CStr) -> Option<usize>;
        let tables: [(&str, &[&CStr], Lookup); 7] = [
            ("fan_out", loader_hooks!(names fan_out), &|n| {
                addr(instance::fan_out_functions(n))
            }),
            (
                "terminator_instance",
                loader_hooks!(names terminator_instance),
                &|n| addr(hook(n)),
            ),
            (
                "terminator_device",
                loader_hooks!(names terminator_device),
                &|n| addr(device_hook(n)),
            ),
            ("wsi_instance", loader_hooks!(names wsi_instance), &|n| {
                addr(crate::wsi::instance_hook(n)).filter(|&a| addr(hook(n)) == Some(a))
            }),
            ("wsi_device", loader_hooks!(names wsi_device), &|n| {
                addr(device_hook(n))
            }),
            ("debug_report", loader_hooks!(names debug_report), &|n| {
                addr(debug_report::provided(n))
            }),
            ("queue_family", loader_hooks!(names queue_family), &|n| {
                let ours = queue_family::wrap(n, driver).map(|f| f as usize);
                ours.filter(|&a| Some(a) != driver.map(|d| d as usize))
            }),
        ];
        for row in LOADER_HOOKS {
            assert!(
                tables.iter().any(|t| t.0 == row.table),
                "table {} has no lookup in this test",
                row.table
            );
        }
        let mut by_function: BTreeMap<&str, BTreeSet<usize>> = BTreeMap::new();
        let mut answered = 0;
        for (table, names, lookup) in tables {
            let rows: Vec<_> = LOADER_HOOKS.iter().filter(|h| h.table == table).collect();
            for row in rows.iter().filter(|r| r.cfg.is_none()) {
                assert!(
                    names.contains(&row.command),
                    "{table}: {:?} not compiled",
                    row.command
                );
            }
            for &name in names {
                let row = rows.iter().find(|r| r.command == name);
                let row = row.unwrap_or_else(|| panic!("{table}: {name:?} is no row"));
                let f = lookup(name).unwrap_or_else(|| panic!("{table}: {name:?} answers nothing"));
                by_function.entry(row.function).or_default().insert(f);
                answered += 1;
            }
        }
        assert!(answered >= 40, "only {answered} names answered");
        for (function, addrs) in by_function {
            assert_eq!(addrs.len(), 1, "{function} answers as {addrs:?}");
        }
        assert!(hook(c"vkCreateFence").is_none());
        assert!(debug_report::provided(c"vkCreateFence").is_none());
        let passed = queue_family::wrap(c"vkCreateFence", driver).map(|f| f as usize);
        assert_eq!(passed, driver.map(|d| d as usize));
    }
}
