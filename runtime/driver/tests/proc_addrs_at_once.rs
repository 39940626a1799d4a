//! `vkgenGetDeviceProcAddrs` and `vkgenGetInstanceProcAddrs` (issue 35), the driver side: the
//! loader fills a device's table and its table of the driver's instance with one call each, by
//! `CommandId`, and must get exactly what `vkGetDeviceProcAddr` / `vkGetInstanceProcAddr` give
//! name by name — through the resolver's rules for a driver without its own
//! `get_device_proc_addr`, and through the driver's hook when it has one. Ids from a loader of
//! another registry, ids outside this one and null arrays or handles are refused with nothing
//! written.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_char, CStr};
use std::sync::atomic::{AtomicUsize, Ordering};

use vkgen_driver::generated::commands::{self, CommandId, COMMANDS, FINGERPRINT};
use vkgen_driver::generated::driver::{
    get_device_proc_addr, get_device_proc_addrs, get_instance_proc_addr, get_instance_proc_addrs,
    Driver, PfnGetDeviceProcAddrs, PfnGetInstanceProcAddrs, GET_DEVICE_PROC_ADDRS_NAME,
    GET_INSTANCE_PROC_ADDRS_NAME,
};
use vkgen_driver::generated::vk;

/// A 1.1 driver with two device hooks.
struct Plain;

#[vkgen_driver::driver]
impl Driver for Plain {
    const API_VERSION: u32 = vk::API_VERSION_1_1;

    unsafe fn create_fence(
        _: vk::Device,
        _: *const vk::FenceCreateInfo<'_>,
        _: *const vk::AllocationCallbacks<'_>,
        _: *mut vk::Fence,
    ) -> vk::Result {
        vk::Result::SUCCESS
    }

    unsafe fn destroy_device(_: vk::Device, _: *const vk::AllocationCallbacks<'_>) {}
}

/// Calls of [`OwnHook`]'s `get_device_proc_addr`.
static OWN_HOOK_CALLS: AtomicUsize = AtomicUsize::new(0);

unsafe extern "system" fn marker_fn() {}

/// One function pointer for every use: a function item's address need not be one across uses.
static MARKER: unsafe extern "system" fn() = marker_fn;

/// A driver that answers `vkGetDeviceProcAddr` itself: `MARKER` for `vkCreateFence` only.
struct OwnHook;

#[vkgen_driver::driver]
impl Driver for OwnHook {
    unsafe fn get_device_proc_addr(_: vk::Device, name: *const c_char) -> vk::PFN_vkVoidFunction {
        OWN_HOOK_CALLS.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the batch passes names from the generated table, NUL-terminated.
        let name = unsafe { CStr::from_ptr(name) };
        (name == c"vkCreateFence").then_some(MARKER)
    }
}

/// A device handle of a driver that never reads its devices.
fn device() -> vk::Device {
    vk::Handle::from_raw(0x1000)
}

fn addr(f: vk::PFN_vkVoidFunction) -> Option<usize> {
    f.map(|f| f as usize)
}

fn id(name: &CStr) -> CommandId {
    commands::lookup(name).unwrap()
}

/// The ids the tests ask for: hooks, a command without one, one above 1.1, an extension's, the
/// proc-address command itself, and an alias.
fn ids() -> Vec<u16> {
    [
        c"vkCreateFence",
        c"vkDestroyDevice",
        c"vkCmdDraw",
        c"vkCreateRenderPass2",
        c"vkCreateSwapchainKHR",
        c"vkGetDeviceProcAddr",
        c"vkTrimCommandPoolKHR",
    ]
    .into_iter()
    .map(|n| id(n).0)
    .collect()
}

/// `vkgenGetDeviceProcAddrs` of `D` over `ids`, with `fingerprint`; the result and the answers
/// (each slot starts as `MARKER`, to show what was written).
fn at_once<D: Driver>(
    device: vk::Device,
    fingerprint: u64,
    ids: &[u16],
) -> (vk::Result, Vec<vk::PFN_vkVoidFunction>) {
    let mut out: Vec<vk::PFN_vkVoidFunction> = vec![Some(MARKER); ids.len()];
    // SAFETY: `ids` holds `ids.len()` ids and `out` room for as many answers.
    let r = unsafe {
        get_device_proc_addrs::<D>(
            device,
            fingerprint,
            ids.len() as u32,
            ids.as_ptr(),
            out.as_mut_ptr(),
        )
    };
    (r, out)
}

/// Name by name, through the generated `vkGetDeviceProcAddr`.
fn one_by_one<D: Driver>(ids: &[u16]) -> Vec<Option<usize>> {
    ids.iter()
        .map(|&i| {
            let name = commands::info(CommandId(i)).name();
            // SAFETY: a non-null device of a driver that never reads it, and a C string.
            addr(unsafe { get_device_proc_addr::<D>(device(), name.as_ptr()) })
        })
        .collect()
}

#[test]
fn by_id_is_by_name_under_the_resolvers_rules() {
    let ids = ids();
    let (r, out) = at_once::<Plain>(device(), FINGERPRINT, &ids);
    assert_eq!(r, vk::Result::SUCCESS);
    let got: Vec<_> = out.into_iter().map(addr).collect();
    assert_eq!(got, one_by_one::<Plain>(&ids));
    // The hooks and the proc-address command have functions, the rest none.
    let has: Vec<bool> = got.iter().map(Option::is_some).collect();
    assert_eq!(has, [true, true, false, false, false, true, false]);
}

#[test]
fn a_drivers_own_hook_answers_every_id() {
    let ids = ids();
    let before = OWN_HOOK_CALLS.load(Ordering::Relaxed);
    let (r, out) = at_once::<OwnHook>(device(), FINGERPRINT, &ids);
    assert_eq!(r, vk::Result::SUCCESS);
    assert!(OWN_HOOK_CALLS.load(Ordering::Relaxed) - before >= ids.len());
    let got: Vec<_> = out.into_iter().map(addr).collect();
    let expected: Vec<_> = ids
        .iter()
        .map(|&i| (CommandId(i) == id(c"vkCreateFence")).then_some(MARKER as usize))
        .collect();
    assert_eq!(got, expected);
}

#[test]
fn other_registries_and_bad_arguments_are_refused_with_nothing_written() {
    let ids = ids();
    let untouched = vec![Some(MARKER as usize); ids.len()];
    let check = |(r, out): (vk::Result, Vec<vk::PFN_vkVoidFunction>), want: vk::Result| {
        assert_eq!(r, want);
        assert_eq!(out.into_iter().map(addr).collect::<Vec<_>>(), untouched);
    };
    check(
        at_once::<Plain>(device(), FINGERPRINT ^ 1, &ids),
        vk::Result::ERROR_INCOMPATIBLE_DRIVER,
    );
    check(
        at_once::<Plain>(vk::Device::null(), FINGERPRINT, &ids),
        vk::Result::ERROR_INITIALIZATION_FAILED,
    );
    let mut outside = ids.clone();
    outside.push(COMMANDS.len() as u16);
    let (r, out) = at_once::<Plain>(device(), FINGERPRINT, &outside);
    assert_eq!(r, vk::Result::ERROR_INITIALIZATION_FAILED);
    assert!(out.iter().all(|f| addr(*f) == Some(MARKER as usize)));
    // SAFETY: null arrays are what is being refused; nothing is read or written.
    let r = unsafe {
        get_device_proc_addrs::<Plain>(
            device(),
            FINGERPRINT,
            1,
            std::ptr::null(),
            std::ptr::null_mut(),
        )
    };
    assert_eq!(r, vk::Result::ERROR_INITIALIZATION_FAILED);
}

#[test]
fn vk_get_device_proc_addr_answers_the_private_name_on_a_device_only() {
    // SAFETY: a non-null device of a driver that never reads it, and a C string.
    let f = unsafe { get_device_proc_addr::<Plain>(device(), GET_DEVICE_PROC_ADDRS_NAME.as_ptr()) };
    let expected: PfnGetDeviceProcAddrs = get_device_proc_addrs::<Plain>;
    assert_eq!(addr(f), Some(expected as usize));
    // SAFETY: a null device (answered NULL) and a C string.
    let none = unsafe {
        get_device_proc_addr::<Plain>(vk::Device::null(), GET_DEVICE_PROC_ADDRS_NAME.as_ptr())
    };
    assert!(none.is_none());
    assert!(
        commands::lookup(GET_DEVICE_PROC_ADDRS_NAME).is_none(),
        "not a registry name"
    );
}

/// An instance handle of a driver that never reads its instances.
fn instance() -> vk::Instance {
    vk::Handle::from_raw(0x2000)
}

#[test]
fn instance_ids_are_instance_names() {
    // Global, instance, physical-device and device commands, hooks and not, and an alias.
    let ids: Vec<u16> = [
        c"vkCreateInstance",
        c"vkDestroyInstance",
        c"vkEnumeratePhysicalDevices",
        c"vkGetPhysicalDeviceProperties2KHR",
        c"vkCreateDevice",
        c"vkGetDeviceProcAddr",
        c"vkCreateFence",
        c"vkDestroyDevice",
        c"vkCmdDraw",
    ]
    .into_iter()
    .map(|n| id(n).0)
    .collect();
    let mut out: Vec<vk::PFN_vkVoidFunction> = vec![Some(MARKER); ids.len()];
    // SAFETY: `ids` holds `ids.len()` ids and `out` room for as many answers.
    let r = unsafe {
        get_instance_proc_addrs::<Plain>(
            instance(),
            FINGERPRINT,
            ids.len() as u32,
            ids.as_ptr(),
            out.as_mut_ptr(),
        )
    };
    assert_eq!(r, vk::Result::SUCCESS);
    let one_by_one: Vec<_> = ids
        .iter()
        .map(|&i| {
            let name = commands::info(CommandId(i)).name();
            // SAFETY: a non-null instance of a driver that never reads it, and a C string.
            addr(unsafe { get_instance_proc_addr::<Plain>(instance(), name.as_ptr()) })
        })
        .collect();
    assert_eq!(out.into_iter().map(addr).collect::<Vec<_>>(), one_by_one);
    assert!(one_by_one[5].is_some() && one_by_one[6].is_some() && one_by_one[8].is_none());
    // Refused: another registry, a null instance (global commands are asked by name).
    for (handle, fingerprint, want) in [
        (
            instance(),
            FINGERPRINT ^ 1,
            vk::Result::ERROR_INCOMPATIBLE_DRIVER,
        ),
        (
            vk::Instance::null(),
            FINGERPRINT,
            vk::Result::ERROR_INITIALIZATION_FAILED,
        ),
    ] {
        let mut out: Vec<vk::PFN_vkVoidFunction> = vec![Some(MARKER); ids.len()];
        // SAFETY: as the call above.
        let r = unsafe {
            get_instance_proc_addrs::<Plain>(
                handle,
                fingerprint,
                ids.len() as u32,
                ids.as_ptr(),
                out.as_mut_ptr(),
            )
        };
        assert_eq!(r, want);
        assert!(out.iter().all(|f| addr(*f) == Some(MARKER as usize)));
    }
}

#[test]
fn vk_get_instance_proc_addr_answers_the_private_name_on_an_instance_only() {
    // SAFETY: a non-null instance of a driver that never reads it, and a C string.
    let f = unsafe {
        get_instance_proc_addr::<Plain>(instance(), GET_INSTANCE_PROC_ADDRS_NAME.as_ptr())
    };
    let expected: PfnGetInstanceProcAddrs = get_instance_proc_addrs::<Plain>;
    assert_eq!(addr(f), Some(expected as usize));
    // SAFETY: a null instance (a global query) and a C string.
    let global = unsafe {
        get_instance_proc_addr::<Plain>(vk::Instance::null(), GET_INSTANCE_PROC_ADDRS_NAME.as_ptr())
    };
    assert!(global.is_none());
    assert!(
        commands::lookup(GET_INSTANCE_PROC_ADDRS_NAME).is_none(),
        "not a registry name"
    );
}
