//! The symbols `libvulkan.so` exports, and the table `vkGetInstanceProcAddr` answers exported
//! names from.
//!
//! On Android the exports are the commands of `generated/libvulkan.map` (AOSP's list): the
//! generated trampolines (every exported command the loader does not implement itself),
//! included here from `generated/src/trampolines.rs`, plus the loader's own implementations in
//! [`crate::api`] (`commands::LOADER_INTERCEPTED`). A Linux host build exports more: the
//! desktop surface and display commands the Khronos loader exports ([`crate::api`]'s
//! `desktop` module), so this table is the map's part of the exports, not all of them. The table
//! holds `vkGetInstanceProcAddr` and `vkGetDeviceProcAddr`, which answer exported names from
//! it, so their entry points are here and their rules in [`super::proc_addr`], which takes the
//! table as an argument. This module is re-exported as `vkgen_loader::exports`. A trampoline
//! reads word 0 of its dispatchable first argument as a pointer to the [`crate::dispatch_data`] struct whose first field is the
//! dispatch table, and tail-calls the entry.
//!
//! [`exported_function`] maps a name to the exported function, through the generated perfect
//! hash; the table behind it is built by `build.rs` from the same map file, so it cannot drift
//! from the export list.

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

use vkgen_generated::commands;

use super::proc_addr::{device_proc_addr, instance_proc_addr};
use crate::ffi::{cstr, guard};

use vkgen_generated::vk;

/// The generated trampolines (generator output, included verbatim).
#[allow(
    clippy::all,
    clippy::pedantic,
    clippy::undocumented_unsafe_blocks,
    missing_docs,
    non_snake_case,
    unused_unsafe
)]
mod trampolines {
    // The generated crate's trampolines (checked in, or generated at build time with its
    // `regenerate` feature): build.rs writes the include of the right file.
    include!(concat!(env!("OUT_DIR"), "/trampolines.rs"));
}

#[allow(unused_imports)]
use super::device::{
    vkCreateDevice, vkDestroyDevice, vkEnumerateDeviceExtensionProperties,
    vkEnumerateDeviceLayerProperties,
};
#[allow(unused_imports)]
use super::global::{
    vkEnumerateInstanceExtensionProperties, vkEnumerateInstanceLayerProperties,
    vkEnumerateInstanceVersion,
};
#[allow(unused_imports)]
use super::instance::{vkCreateInstance, vkDestroyInstance};
#[allow(unused_imports, clippy::wildcard_imports)]
use trampolines::*;

/// `vkGetInstanceProcAddr`: [`super::proc_addr`]'s rules, exported names answered from this
/// module's table (which holds this function too).
///
/// # Safety
/// `instance` null or a live instance of this loader; `p_name` null or a C string.
#[no_mangle]
pub unsafe extern "system" fn vkGetInstanceProcAddr(
    instance: vk::Instance,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    guard("vkGetInstanceProcAddr", None, || {
        // SAFETY: `p_name` is the application's pName: null (then `cstr` gives `None`) or a
        // NUL-terminated string for this call (VUID-vkGetInstanceProcAddr-pName-parameter).
        let name = unsafe { cstr(p_name) }?;
        // SAFETY: `instance` is the application's: null or a live instance of this loader
        // (VUID-vkGetInstanceProcAddr-instance-parameter), as `instance_proc_addr` needs.
        unsafe { instance_proc_addr(instance, name, exported_function) }
    })
}

/// `vkGetDeviceProcAddr`: [`super::proc_addr`]'s rules, exported names answered from this
/// module's table.
///
/// # Safety
/// `device` null or a live device of this loader; `p_name` null or a C string.
#[no_mangle]
pub unsafe extern "system" fn vkGetDeviceProcAddr(
    device: vk::Device,
    p_name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    guard("vkGetDeviceProcAddr", None, || {
        // SAFETY: `p_name` is the application's pName: null (then `cstr` gives `None`) or a
        // NUL-terminated string for this call (VUID-vkGetDeviceProcAddr-pName-parameter).
        let name = unsafe { cstr(p_name) }?;
        // SAFETY: `device` is the application's: null or a live device of this loader
        // (VUID-vkGetDeviceProcAddr-device-parameter), as `device_proc_addr` needs.
        unsafe { device_proc_addr(device, name, exported_function) }
    })
}

/// One of this library's exported functions as `PFN_vkVoidFunction`.
fn as_void_fn(f: *const ()) -> vk::PFN_vkVoidFunction {
    // SAFETY: `f` is the address of an `extern "system"` function of this library (the build
    // script only names exported functions); callers of `vkGetInstanceProcAddr` cast it back to
    // the command's type before calling it.
    Some(unsafe { std::mem::transmute::<*const (), unsafe extern "system" fn()>(f) })
}

include!(concat!(env!("OUT_DIR"), "/exported_functions.rs"));

/// The exported functions, indexed by generated command id.
fn table() -> &'static [vk::PFN_vkVoidFunction] {
    static TABLE: OnceLock<Vec<vk::PFN_vkVoidFunction>> = OnceLock::new();
    TABLE.get_or_init(|| {
        let mut table = vec![None; commands::COMMANDS.len()];
        for (name, f) in exported_functions() {
            match commands::lookup(name) {
                Some(id) => table[usize::from(id.0)] = f,
                None => log::error!("exported {name:?} is not a command of the generated registry"),
            }
        }
        table
    })
}

/// The exported function named `name` (a trampoline or the loader's own), if `name` is
/// exported.
pub fn exported_function(name: &CStr) -> vk::PFN_vkVoidFunction {
    let id = commands::lookup(name)?;
    table().get(usize::from(id.0)).copied().flatten()
}

/// The names `libvulkan.so` exports.
pub fn exported_names() -> Vec<&'static CStr> {
    exported_functions()
        .into_iter()
        .map(|(name, _)| name)
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_exported_command_resolves_and_nothing_else() {
        let names = exported_names();
        // AOSP android16's libvulkan.map.txt: 1.0–1.4 core plus the WSI commands it exports.
        assert_eq!(names.len(), 251);
        for name in &names {
            assert!(exported_function(name).is_some(), "{name:?}");
            let info = commands::info(commands::lookup(name).unwrap());
            assert!(info.exported, "{name:?} exported but not marked so");
        }
        for info in commands::COMMANDS.iter().filter(|c| c.exported) {
            assert!(
                names.contains(&info.name()),
                "{:?} marked exported but not in the map",
                info.name()
            );
        }
        for &name in commands::LOADER_INTERCEPTED {
            assert!(names.contains(&name), "{name:?}");
        }
        assert!(exported_function(c"vkCmdDrawMultiEXT").is_none());
        assert!(exported_function(c"vkNotACommand").is_none());
        assert_eq!(
            exported_function(c"vkCreateInstance").map(|f| f as usize),
            Some(vkCreateInstance as *const () as usize)
        );
    }
}
