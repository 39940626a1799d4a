//! The driver side of `vkGet*ProcAddr`: which commands a [`Driver`](super::Driver) exposes,
//! and the panic guard around every generated entry point.
//!
//! Hand-written (vkgen's `generator/src/emit/runtime/driver_resolve.rs`) and copied verbatim
//! into each generated crate as `driver`'s child module, so that it is compiled, linted and
//! reviewed as Rust; `driver.rs` holds what the generator writes per command (the hooks, the
//! entry points, the command → entry-point table).
//!
//! The rules are the spec's: a command is exposed when it is core up to the driver's API
//! version or belongs to an extension the driver supports; device-level lookups also need the
//! extension enabled on that device (Android 15+); a command the driver neither implements
//! nor has a fallback for is NULL, unless the driver asks for stubs.

use core::ffi::{c_char, CStr};
use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::OnceLock;

use crate::commands::{self, CommandId, Level, Origin};
use crate::extensions::ExtensionId;
use crate::vk;

/// What the rules ask of a driver: [`Driver`](super::Driver)'s answers and its entry points,
/// as this file sees them. Every `Driver` has them (`driver.rs` implements this for all of
/// them); naming the trait here rather than `Driver` keeps this file from reaching back into
/// its parent, which re-exports it.
pub trait Lookup {
    /// [`Driver::API_VERSION`](super::Driver::API_VERSION).
    const API_VERSION: u32;
    /// [`Driver::STUB_UNIMPLEMENTED`](super::Driver::STUB_UNIMPLEMENTED).
    const STUB_UNIMPLEMENTED: bool;
    /// [`Driver::implements`](super::Driver::implements).
    fn implements(cmd: CommandId) -> bool;
    /// [`Driver::fallback`](super::Driver::fallback).
    fn fallback(cmd: CommandId) -> vk::PFN_vkVoidFunction;
    /// [`Driver::supports_extension`](super::Driver::supports_extension).
    fn supports_extension(ext: ExtensionId) -> bool;
    /// [`Driver::intercepts`](super::Driver::intercepts).
    fn intercepts(cmd: CommandId) -> bool;
    /// [`Driver::passthrough`](super::Driver::passthrough).
    ///
    /// # Safety
    /// As for `passthrough`.
    unsafe fn passthrough(
        level: Level,
        handle: u64,
        name: &CStr,
        cmd: Option<CommandId>,
    ) -> vk::PFN_vkVoidFunction;
    /// [`Driver::is_enabled_on_device`](super::Driver::is_enabled_on_device).
    ///
    /// # Safety
    /// As for `is_enabled_on_device`.
    unsafe fn is_enabled_on_device(device: u64, ext: ExtensionId) -> bool;
    /// [`entry_point`](super::entry_point) of this driver.
    fn entry_point(cmd: CommandId) -> vk::PFN_vkVoidFunction;
}

/// Where a panic caught at an entry point is reported, as `(command, payload)`; the driver
/// runtime installs its logger here (vkgen-driver: the one boundary guard's report).
pub static PANIC_REPORT: OnceLock<fn(&'static str, &(dyn Any + Send))> = OnceLock::new();

/// Runs `f`; a panic is reported (see [`PANIC_REPORT`]) and becomes `fail` instead of
/// unwinding into C.
#[inline(always)]
pub(crate) fn guard<R>(command: &'static str, fail: R, f: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(f)) {
        Ok(r) => r,
        Err(payload) => {
            if let Some(report) = PANIC_REPORT.get() {
                report(command, payload.as_ref());
            }
            fail
        }
    }
}

/// A core command (not an extension alias of one) of a version the driver implements.
fn is_core<D: Lookup>(info: &'static commands::CommandInfo) -> bool {
    matches!(
        (info.origin, info.canonical().origin),
        (Origin::Core(_), Origin::Core(v)) if v <= D::API_VERSION
    )
}

/// Whether the driver exposes `cmd`: core up to its API version, or one of its extensions.
pub fn exposes<D: Lookup>(cmd: CommandId) -> bool {
    let info = commands::info(cmd);
    if is_core::<D>(info) {
        return true;
    }
    info.extensions().iter().any(|&e| D::supports_extension(e))
}

/// Core commands up to the driver's version, or a command of an extension enabled on `device`.
fn enabled_on_device<D: Lookup>(device: u64, cmd: CommandId) -> bool {
    let info = commands::info(cmd);
    if is_core::<D>(info) {
        return true;
    }
    info.extensions()
        .iter()
        // SAFETY: `device` is the handle the application passed to this driver's own
        // vkGetDeviceProcAddr, so it is a device this driver created.
        .any(|&e| unsafe { D::is_enabled_on_device(device, e) })
}

/// The proc address of `name` at `level` for `handle`, by the rules in the module docs.
///
/// # Safety
/// `name` is null or a NUL-terminated string; `handle` is null or a handle of this driver
/// of the kind `level` says.
unsafe fn resolve<D: Lookup>(
    level: Level,
    handle: u64,
    name: *const c_char,
    allowed: &[Level],
) -> vk::PFN_vkVoidFunction {
    if name.is_null() {
        return None;
    }
    // SAFETY: non-null, and NUL-terminated per the caller's contract (Vulkan's pName rule).
    let name = unsafe { CStr::from_ptr(name) };
    let Some(id) = commands::lookup(name) else {
        if level == Level::Device && name == GET_DEVICE_PROC_ADDRS_NAME {
            let f: PfnGetDeviceProcAddrs = get_device_proc_addrs::<D>;
            // SAFETY: every function pointer has the same representation; the caller casts it
            // back to `PfnGetDeviceProcAddrs`, the type this name stands for.
            return Some(unsafe {
                core::mem::transmute::<PfnGetDeviceProcAddrs, unsafe extern "system" fn()>(f)
            });
        }
        if level == Level::Instance && handle != 0 && name == GET_INSTANCE_PROC_ADDRS_NAME {
            let f: PfnGetInstanceProcAddrs = get_instance_proc_addrs::<D>;
            // SAFETY: every function pointer has the same representation; the caller casts it
            // back to `PfnGetInstanceProcAddrs`, the type this name stands for.
            return Some(unsafe {
                core::mem::transmute::<PfnGetInstanceProcAddrs, unsafe extern "system" fn()>(f)
            });
        }
        // SAFETY: `level` and `handle` are the caller's, which `passthrough` takes as they are.
        return unsafe { D::passthrough(level, handle, name, None) };
    };
    // SAFETY: the caller's contract, with `id` the command `name` names.
    unsafe { resolve_known::<D>(level, handle, name, id, allowed) }
}

/// [`resolve`] for a name the registry knows as `id`.
///
/// # Safety
/// As [`resolve`]; `id` is the command `name` names.
unsafe fn resolve_known<D: Lookup>(
    level: Level,
    handle: u64,
    name: &CStr,
    id: CommandId,
    allowed: &[Level],
) -> vk::PFN_vkVoidFunction {
    let info = commands::info(id);
    if !allowed.contains(&info.level) || !exposes::<D>(id) {
        return None;
    }
    if !D::intercepts(id) {
        // The driver underneath decides: its absence is the answer (NULL).
        // SAFETY: as for the unknown-name case above.
        return unsafe { D::passthrough(level, handle, name, Some(id)) };
    }
    if level == Level::Device && handle != 0 && !enabled_on_device::<D>(handle, id) {
        return None;
    }
    let canonical = canonical(id);
    if D::implements(canonical) || is_proc_addr(canonical) {
        return D::entry_point(id);
    }
    if let Some(f) = D::fallback(canonical) {
        return Some(f);
    }
    if D::STUB_UNIMPLEMENTED {
        return D::entry_point(id);
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

/// Whether `cmd`'s proc address is the driver's hook, a fallback, or absent (for tests and
/// tools; the resolvers apply the version, extension and level rules first).
pub fn provider<D: Lookup>(cmd: CommandId) -> Provider {
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
    /// [`Driver::fallback`](super::Driver::fallback).
    Fallback,
    /// A stub answering [`Driver::unimplemented`](super::Driver::unimplemented).
    Stub,
    /// No proc address.
    Absent,
}

/// The driver's `vkGetInstanceProcAddr` (also `vk_icdGetInstanceProcAddr` and the HAL's):
/// with a null instance only global commands; otherwise every level.
///
/// # Safety
/// `instance` is null or an instance of this driver; `name` is null or a C string.
pub unsafe extern "system" fn get_instance_proc_addr<D: Lookup>(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let handle = vk::Handle::as_raw(instance);
    let allowed: &[Level] = if handle == 0 {
        &[Level::Global]
    } else {
        &[
            Level::Global,
            Level::Instance,
            Level::PhysicalDevice,
            Level::Device,
        ]
    };
    // SAFETY: the function's own contract is `resolve`'s, for an instance-level lookup.
    guard("vkGetInstanceProcAddr", None, || unsafe {
        resolve::<D>(Level::Instance, handle, name, allowed)
    })
}

/// The driver's `vkGetDeviceProcAddr`: device-level commands only.
///
/// # Safety
/// `device` is null or a device of this driver; `name` is null or a C string.
pub unsafe extern "system" fn get_device_proc_addr<D: Lookup>(
    device: vk::Device,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let handle = vk::Handle::as_raw(device);
    if handle == 0 {
        return None;
    }
    // SAFETY: the function's own contract is `resolve`'s, for a device-level lookup.
    guard("vkGetDeviceProcAddr", None, || unsafe {
        resolve::<D>(Level::Device, handle, name, &[Level::Device])
    })
}

/// The name a vkgen driver's `vkGetDeviceProcAddr` answers with [`get_device_proc_addrs`]. Not
/// a registry name (those start `vk` and a capital), so no command can ever take it.
pub const GET_DEVICE_PROC_ADDRS_NAME: &CStr = c"vkgenGetDeviceProcAddrs";

/// The name a vkgen driver's `vkGetInstanceProcAddr` answers, for an instance, with
/// [`get_instance_proc_addrs`].
pub const GET_INSTANCE_PROC_ADDRS_NAME: &CStr = c"vkgenGetInstanceProcAddrs";

/// `vkgenGetDeviceProcAddrs(device, fingerprint, count, pIds, pFunctions)`: see
/// [`get_device_proc_addrs`].
pub type PfnGetDeviceProcAddrs = unsafe extern "system" fn(
    device: vk::Device,
    fingerprint: u64,
    count: u32,
    ids: *const u16,
    functions: *mut vk::PFN_vkVoidFunction,
) -> vk::Result;

/// `vkgenGetInstanceProcAddrs(instance, fingerprint, count, pIds, pFunctions)`: see
/// [`get_instance_proc_addrs`].
pub type PfnGetInstanceProcAddrs = unsafe extern "system" fn(
    instance: vk::Instance,
    fingerprint: u64,
    count: u32,
    ids: *const u16,
    functions: *mut vk::PFN_vkVoidFunction,
) -> vk::Result;

/// The answer, through `answer`, of each of `count` ids into `functions`, after the checks both
/// batch lookups make (see [`get_device_proc_addrs`]); `command` names the batch for the guard.
///
/// # Safety
/// `ids` holds `count` ids and `functions` room for `count` answers, or they are null.
unsafe fn answer_ids(
    command: &'static str,
    (fingerprint, handle): (u64, u64),
    (count, ids, functions): (u32, *const u16, *mut vk::PFN_vkVoidFunction),
    mut answer: impl FnMut(CommandId, &'static CStr) -> vk::PFN_vkVoidFunction,
) -> vk::Result {
    if fingerprint != commands::FINGERPRINT {
        return vk::Result::ERROR_INCOMPATIBLE_DRIVER;
    }
    if handle == 0 || ids.is_null() || functions.is_null() {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    let count = count as usize;
    // SAFETY: `ids` is non-null (checked above) and holds `count` ids (the caller's contract).
    let ids = unsafe { core::slice::from_raw_parts(ids, count) };
    if ids.iter().any(|&i| usize::from(i) >= commands::COMMANDS.len()) {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    // SAFETY: `functions` is non-null (checked above) and has room for `count` answers (the
    // caller's contract); nothing else refers to it during this call.
    let functions = unsafe { core::slice::from_raw_parts_mut(functions, count) };
    guard(command, vk::Result::ERROR_UNKNOWN, || {
        for (&id, out) in ids.iter().zip(functions.iter_mut()) {
            let id = CommandId(id);
            *out = answer(id, commands::info(id).name());
        }
        vk::Result::SUCCESS
    })
}

/// `vkgenGetDeviceProcAddrs`: the driver's `vkGetDeviceProcAddr` of `count` commands at once,
/// by [`CommandId`] — how the loader fills a device's dispatch table (issue 35: one call
/// instead of one name lookup in each library per command). `functions[i]` gets exactly what
/// `vkGetDeviceProcAddr(device, name of ids[i])` answers: through the driver's own hook when it
/// implements `get_device_proc_addr`, else by the resolver's rules without hashing the name.
///
/// Returns `VK_ERROR_INCOMPATIBLE_DRIVER` (and writes nothing) unless `fingerprint` is this
/// crate's [`commands::FINGERPRINT`], so ids from a loader generated from another registry are
/// never read as this one's commands; `VK_ERROR_INITIALIZATION_FAILED` for a null device or
/// array, or an id outside the registry. The caller then asks name by name.
///
/// # Safety
/// `device` is null or a device of this driver; `ids` holds `count` ids and `functions` room
/// for `count` answers (or they are null).
pub unsafe extern "system" fn get_device_proc_addrs<D: Lookup>(
    device: vk::Device,
    fingerprint: u64,
    count: u32,
    ids: *const u16,
    functions: *mut vk::PFN_vkVoidFunction,
) -> vk::Result {
    let handle = vk::Handle::as_raw(device);
    // A driver that wrote its own `get_device_proc_addr` answers through it, name by name.
    let own_hook: Option<vk::PFN_vkGetDeviceProcAddr> = D::implements(CommandId::GET_DEVICE_PROC_ADDR)
        .then(|| D::entry_point(CommandId::GET_DEVICE_PROC_ADDR))
        .flatten()
        // SAFETY: the entry point of vkGetDeviceProcAddr has its type.
        .map(|f| unsafe { core::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkGetDeviceProcAddr>(f) });
    let answer = |id: CommandId, name: &'static CStr| match own_hook {
        // SAFETY: the driver's own vkGetDeviceProcAddr, with its device (checked non-null by
        // `answer_ids` before any answer) and a name from the generated table.
        Some(gdpa) => unsafe { gdpa(device, name.as_ptr()) },
        // SAFETY: `resolve`'s contract for a device-level lookup of this driver's device, with
        // `id` the command `name` names.
        None => unsafe { resolve_known::<D>(Level::Device, handle, name, id, &[Level::Device]) },
    };
    // SAFETY: the caller's contract on `ids` and `functions`.
    unsafe {
        answer_ids(
            "vkgenGetDeviceProcAddrs",
            (fingerprint, handle),
            (count, ids, functions),
            answer,
        )
    }
}

/// `vkgenGetInstanceProcAddrs`: [`get_device_proc_addrs`] for the driver's
/// `vkGetInstanceProcAddr` on `instance` (how the loader fills its table of the driver's
/// instance): `functions[i]` gets what [`get_instance_proc_addr`] answers for the name of
/// `ids[i]` on that instance, with the same refusals (a null instance among them: global
/// commands are asked by name).
///
/// # Safety
/// `instance` is null or an instance of this driver; `ids` holds `count` ids and `functions`
/// room for `count` answers (or they are null).
pub unsafe extern "system" fn get_instance_proc_addrs<D: Lookup>(
    instance: vk::Instance,
    fingerprint: u64,
    count: u32,
    ids: *const u16,
    functions: *mut vk::PFN_vkVoidFunction,
) -> vk::Result {
    let handle = vk::Handle::as_raw(instance);
    let all = [
        Level::Global,
        Level::Instance,
        Level::PhysicalDevice,
        Level::Device,
    ];
    let answer = |id: CommandId, name: &'static CStr| {
        // SAFETY: `resolve`'s contract for an instance-level lookup of this driver's instance
        // (checked non-null by `answer_ids` before any answer), with `id` the command `name`
        // names.
        unsafe { resolve_known::<D>(Level::Instance, handle, name, id, &all) }
    };
    // SAFETY: the caller's contract on `ids` and `functions`.
    unsafe {
        answer_ids(
            "vkgenGetInstanceProcAddrs",
            (fingerprint, handle),
            (count, ids, functions),
            answer,
        )
    }
}

/// `vk_icdGetPhysicalDeviceProcAddr`: physical-device-level commands only.
///
/// # Safety
/// `instance` is null or an instance of this driver; `name` is null or a C string.
pub unsafe extern "system" fn get_physical_device_proc_addr<D: Lookup>(
    instance: vk::Instance,
    name: *const c_char,
) -> vk::PFN_vkVoidFunction {
    let handle = vk::Handle::as_raw(instance);
    // SAFETY: the function's own contract is `resolve`'s, for a physical-device lookup.
    guard("vk_icdGetPhysicalDeviceProcAddr", None, || unsafe {
        resolve::<D>(
            Level::PhysicalDevice,
            handle,
            name,
            &[Level::PhysicalDevice],
        )
    })
}
