//! Instance-level terminators: driver instances, physical device enumeration, and the
//! instance-level debug extensions fanned out to several drivers.
//!
//! `vkCreateInstance` here creates one driver instance per loaded driver. Each driver gets
//! (Android's `CreateInfoWrapper`): the application's `pNext` without the loader's leading chain
//! nodes, no layers, only the extensions it reports (plus promoted instance extensions when it is
//! older than the loader) and a sanitised `apiVersion`. A driver without `vkCreateInstance`, or
//! whose instance lacks a required proc (`vkDestroyInstance`, `vkEnumeratePhysicalDevices`, ...),
//! gives `VK_ERROR_INCOMPATIBLE_DRIVER` (its instance destroyed again); a driver's own failure
//! is returned as is. With several drivers the failing ones are skipped (logged) as long as one
//! succeeds. The driver tables are loaded once per driver instance.

use std::ffi::{c_char, CStr};
use std::sync::OnceLock;

use vkgen_abi::layer::LOADER_INSTANCE_CREATE_INFO;
use vkgen_abi::vk_error;
use vkgen_generated::extensions::{self as ext, ExtensionId};

use super::physical_device;
use crate::dispatch_data::term::LoaderObject;
use crate::dispatch_data::{
    checked_instance_data, install, instance_data, register_instance, unregister_instance,
    InstanceData,
};
pub use crate::dispatch_data::{DriverInstance, TermInstance};
use crate::driver_handles::slot_of;
use crate::extensions::{self, ExtensionSet};
use crate::ffi::{
    app_api_version, cstr, enumerate, fill_array, guard, guard_result, name_list, version_string,
};
use crate::host_alloc::{try_box, try_collect, HostAllocator, HostBox, HostVec};
use crate::init::{self, DriverEntry};
use crate::{chain, driver};
use vkgen_generated::dispatch::InstanceDispatchTable;
use vkgen_generated::vk;

/// Procs every driver instance must provide; without one the driver is incompatible.
const REQUIRED_INSTANCE_PROCS: &[&CStr] = &[
    c"vkDestroyInstance",
    c"vkEnumeratePhysicalDevices",
    c"vkGetPhysicalDeviceProperties",
    c"vkEnumerateDeviceExtensionProperties",
    c"vkCreateDevice",
    c"vkGetDeviceProcAddr",
];

/// `vkCreateInstance` at the bottom of the chain.
///
/// # Safety
/// Called through the chain with a valid create info (whose `pNext` starts with the loader's
/// chain nodes) and out-pointer.
pub unsafe extern "system" fn create_instance(
    info: *const vk::InstanceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> vk::Result {
    guard_result(
        "vkCreateInstance (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        // SAFETY: `info`, `allocator` and `out` come unchanged from the chain's vkCreateInstance
        // call, whose VUIDs give `create_instance_impl` what it needs (null pointers are checked
        // there).
        || unsafe { create_instance_impl(info, allocator, out) },
    )
}

/// # Safety
/// As [`create_instance`].
unsafe fn create_instance_impl(
    info: *const vk::InstanceCreateInfo<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::Instance,
) -> Result<(), vk::Result> {
    // SAFETY: `info` is the pointer the application (or the layer below it) passed to
    // vkCreateInstance: null (checked here) or a valid create info for this call,
    // VUID-vkCreateInstance-pCreateInfo-parameter.
    let Some(info) = (unsafe { info.as_ref() }) else {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: null create info"
        ));
    };
    if out.is_null() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance: null pInstance"
        ));
    }
    let loader = init::loader();
    let drivers = loader
        .drivers
        .as_ref()
        .map_err(|f| vk_error!(f.result, "vkCreateInstance: {}", f.message))?;
    // SAFETY: the create info's arrays are valid per the Vulkan contract.
    let requested = unsafe {
        name_list(
            info.enabled_extension_count,
            info.pp_enabled_extension_names,
        )
    };
    // SAFETY: `info.p_application_info` is null or a valid VkApplicationInfo,
    // VUID-VkInstanceCreateInfo-pApplicationInfo-parameter.
    let app_version = unsafe { app_api_version(info.p_application_info) };
    // SAFETY: the caller guarantees `info` is a valid create info, so its pNext chain is valid for
    // this call.
    let p_next = unsafe { chain::skip_loader_structs(info.p_next, LOADER_INSTANCE_CREATE_INFO) };
    // SAFETY: `p_next` is a suffix of the create info's valid pNext chain, which
    // `skip_loader_structs` returned above.
    if unsafe { chain::has_loader_struct(p_next, LOADER_INSTANCE_CREATE_INFO) } {
        log::warn!(
            "vkCreateInstance: a loader chain struct after the leading ones reaches the driver"
        );
    }
    // AOSP's `AllocateInstanceData`, before any driver is called: the application's allocator
    // (else the default) with scope INSTANCE; no memory, no instance.
    // SAFETY: `allocator` is null or the application's valid callbacks (VUID-vkCreateInstance-
    // pAllocator-parameter).
    let data_alloc = unsafe { HostAllocator::app_or(allocator, INSTANCE_DEFAULT, INSTANCE) };
    let data_mem = HostBox::<InstanceData, _>::try_new_uninit_in(data_alloc)
        .map_err(|_| crate::host_alloc::oom(COMMAND, "the instance data"))?;
    let mut own_object = try_box(
        LoaderObject {
            loader_data: crate::dispatch_data::LOADER_MAGIC,
        },
        data_alloc,
        COMMAND,
        "the loader's VkInstance",
    )?;
    // SAFETY: `info` is valid for this call and `p_next` a suffix of its chain; `allocator` is
    // null or the application's valid callbacks.
    let created = unsafe {
        create_driver_instances(
            drivers,
            info,
            p_next,
            &requested,
            app_version,
            (allocator, data_alloc),
        )
    }?;
    let passthrough = created.len() == 1;
    let handle = if passthrough {
        created[0].handle
    } else {
        vk::Handle::from_raw(std::ptr::from_mut(&mut *own_object) as u64)
    };
    let data = HostBox::write(
        data_mem,
        InstanceData {
            dispatch: std::cell::UnsafeCell::new(InstanceDispatchTable::empty()),
            api: OnceLock::new(),
            term: TermInstance {
                drivers: created,
                passthrough,
                handle,
                enabled_extensions: ExtensionSet::from_names(requested.iter().copied()),
                _own_object: own_object,
                physical_devices: OnceLock::new(),
                debug_report: Default::default(),
            },
            allocator: data_alloc,
        },
    );
    let data = HostBox::into_raw(data);
    // SAFETY: `handle` is the driver's live instance or our own object.
    if let Err(e) = unsafe {
        install(
            vk::Handle::as_raw(handle) as usize,
            data as usize,
            "VkInstance",
        )
    } {
        // SAFETY: `data` was just leaked above from a box of `data_alloc` and is not registered
        // anywhere.
        let data = unsafe { HostBox::from_raw_in(data, data_alloc) };
        // SAFETY: the driver instances were created with `allocator`.
        unsafe { destroy_driver_instances(&data.term, allocator) };
        return Err(e);
    }
    register_instance(data);
    // SAFETY: `info` is the valid create info this call got, its application info null or valid.
    unsafe { crate::gpu_stats::report_instance(&*loader.stats, info, &requested) };
    // SAFETY: `out` was checked non-null at the top and is the application's pInstance, writable
    // for this call (VUID-vkCreateInstance-pInstance-parameter).
    unsafe { *out = handle };
    Ok(())
}

/// The command named in allocation failures.
const COMMAND: &str = "vkCreateInstance";
const INSTANCE: vk::SystemAllocationScope = vk::SystemAllocationScope::INSTANCE;
/// AOSP's `GetDefaultAllocator()` for the instance data.
const INSTANCE_DEFAULT: HostAllocator = HostAllocator::default_for(INSTANCE);

/// The application's `pAllocator` as given (for the drivers) and the allocator of the loader's
/// own instance data ([`crate::host_alloc`]).
type Allocators<'a> = (*const vk::AllocationCallbacks<'a>, HostAllocator);

/// One instance per driver (the first only where physical devices cannot be wrapped); the
/// drivers that fail are skipped while one succeeds, else the first failure is returned.
///
/// # Safety
/// As [`create_driver_instance`].
unsafe fn create_driver_instances(
    drivers: &'static [DriverEntry],
    info: &vk::InstanceCreateInfo<'_>,
    p_next: *const std::ffi::c_void,
    requested: &[&CStr],
    app_version: u32,
    allocators: Allocators<'_>,
) -> Result<HostVec<DriverInstance, HostAllocator>, vk::Result> {
    let candidates: &'static [DriverEntry] =
        if drivers.len() > 1 && !physical_device::WRAPPING_SUPPORTED {
            log::warn!(
                "several drivers, but physical-device wrapping is not built for this \
                 architecture: only {} is used",
                drivers[0].driver.name()
            );
            &drivers[..1]
        } else {
            drivers
        };
    // Room for every driver up front: pushing below never allocates, so no driver instance is
    // created that the vector could then fail to hold.
    let mut created = HostVec::new_in(allocators.1);
    created
        .try_reserve_exact(candidates.len())
        .map_err(|_| crate::host_alloc::oom(COMMAND, "the driver instances"))?;
    let mut first_error = None;
    for driver in candidates {
        // SAFETY: the caller guarantees `info` and its chain are valid, `p_next` a suffix of it,
        // and the application's allocator null or valid.
        match unsafe {
            create_driver_instance(driver, info, p_next, requested, app_version, allocators)
        } {
            Ok(instance) => created.push(instance),
            Err(e) => {
                log::warn!(
                    "driver {}: instance creation failed with {e:?}",
                    driver.driver.name()
                );
                first_error.get_or_insert(e);
            }
        }
    }
    if created.is_empty() {
        if let Some(e) = first_error {
            return Err(e);
        }
        log::info!("vkCreateInstance: no driver; the instance has no physical devices");
    } else if first_error.is_some() {
        log::warn!(
            "vkCreateInstance: continuing with the {} driver(s) that created an instance",
            created.len()
        );
    }
    Ok(created)
}

/// Creates the instance of one driver.
///
/// # Safety
/// `info` must be valid, `p_next` a valid chain, the application's allocator null or valid.
unsafe fn create_driver_instance(
    driver: &'static DriverEntry,
    info: &vk::InstanceCreateInfo<'_>,
    p_next: *const std::ffi::c_void,
    requested: &[&CStr],
    app_version: u32,
    (allocator, data_alloc): Allocators<'_>,
) -> Result<DriverInstance, vk::Result> {
    let name = driver.driver.name();
    let Some(create) = driver.create_instance else {
        return Err(vk_error!(
            vk::Result::ERROR_INCOMPATIBLE_DRIVER,
            "driver {name}: no vkCreateInstance: VK_ERROR_INCOMPATIBLE_DRIVER"
        ));
    };
    if let Some(failure) = driver.driver.version_failure() {
        log::error!("driver {name}: vkEnumerateInstanceVersion failed: vkCreateInstance returns {failure:?}");
        return Err(failure);
    }
    let driver_version = driver.driver.api_version();
    let mut names = extensions::filter_for_driver(requested, &driver.extensions, name);
    for promoted in extensions::promoted_instance_extensions(
        driver_version,
        vkgen_generated::API_VERSION,
        &driver.extensions,
    ) {
        if !names.contains(&promoted) {
            log::debug!(
                "driver {name} (Vulkan {}): enabling promoted {promoted:?} for the loader's core entry points",
                version_string(driver_version)
            );
            names.push(promoted);
        }
    }
    // AOSP's `CreateInfoWrapper` builds this array with the allocator, scope COMMAND.
    let name_ptrs = try_collect(
        names.iter().map(|n| n.as_ptr()),
        data_alloc.with_scope(vk::SystemAllocationScope::COMMAND),
        COMMAND,
        "the driver's extension names",
    )?;
    let api_version = extensions::sanitize_api_version(app_version, driver_version);
    // SAFETY: `p_application_info` is null or a valid VkApplicationInfo,
    // VUID-VkInstanceCreateInfo-pApplicationInfo-parameter; it is copied before the call returns.
    let app_info = unsafe { info.p_application_info.as_ref() }.map(|app| {
        let mut app = *app;
        if api_version != app_version {
            log::info!(
                "driver {name} (Vulkan {}): apiVersion {} lowered to {}",
                version_string(driver_version),
                version_string(app_version),
                version_string(api_version)
            );
            app.api_version = api_version;
        }
        app
    });
    let mut driver_info = *info;
    driver_info.flags = extensions::driver_instance_flags(info.flags, &names);
    driver_info.p_next = p_next;
    driver_info.enabled_layer_count = 0;
    driver_info.pp_enabled_layer_names = std::ptr::null();
    driver_info.enabled_extension_count = name_ptrs.len() as u32;
    driver_info.pp_enabled_extension_names = if name_ptrs.is_empty() {
        std::ptr::null()
    } else {
        name_ptrs.as_ptr()
    };
    driver_info.p_application_info = app_info
        .as_ref()
        .map_or(std::ptr::null(), std::ptr::from_ref);
    let mut handle = vk::Instance::null();
    let result = {
        let _trace = crate::trace::section("driver.CreateInstance");
        // SAFETY: a valid create info whose pointers outlive the call.
        unsafe { create(&driver_info, allocator, &mut handle) }
    };
    if result != vk::Result::SUCCESS {
        return Err(result);
    }
    // SAFETY: `handle` is the instance the driver just created with `allocator`.
    let (table, gdpa) = unsafe { driver_procs(driver, handle, (allocator, data_alloc)) }?;
    let gipa = driver.gipa();
    log::debug!("driver {name}: instance {handle:?} created ({:?})", *table);
    Ok(DriverInstance {
        driver,
        handle,
        table,
        gipa,
        gdpa,
        api_version,
        enabled_extensions: ExtensionSet::from_names(names.iter().copied()),
    })
}

/// A driver instance's dispatch table, in the application's allocator.
type DriverTable = HostBox<InstanceDispatchTable, HostAllocator>;

/// The new driver instance's dispatch table (in `data_alloc`) and `vkGetDeviceProcAddr`; a
/// driver missing a required proc is `VK_ERROR_INCOMPATIBLE_DRIVER`, a table that cannot be
/// allocated `VK_ERROR_OUT_OF_HOST_MEMORY`, and either way its instance is destroyed again.
///
/// # Safety
/// `handle` must be a live instance `driver` created with `allocator`, not handed out.
unsafe fn driver_procs(
    driver: &DriverEntry,
    handle: vk::Instance,
    (allocator, data_alloc): Allocators<'_>,
) -> Result<(DriverTable, vk::PFN_vkGetDeviceProcAddr), vk::Result> {
    let name = driver.driver.name();
    let gipa = driver.gipa();
    // SAFETY: `handle` is the driver's live instance (the contract).
    let at_once = unsafe { driver_instance_answers(gipa, handle) };
    let lookup = |n: &CStr| match &at_once {
        Some(by_id) => vkgen_generated::commands::lookup(n)
            .and_then(|id| by_id.get(usize::from(id.0)).copied().flatten()),
        // SAFETY: the driver's live instance and C strings.
        None => unsafe { gipa(handle, n.as_ptr()) },
    };
    let missing: Vec<&CStr> = REQUIRED_INSTANCE_PROCS
        .iter()
        .copied()
        .filter(|n| lookup(n).is_none())
        .collect();
    // SAFETY: the driver returns vkDestroyInstance's type for its name.
    let destroy: Option<vk::PFN_vkDestroyInstance> =
        unsafe { driver::void_fn_as(lookup(c"vkDestroyInstance")) };
    // SAFETY: the driver's GetInstanceProcAddr returns vkGetDeviceProcAddr's type for that name.
    let gdpa: Option<vk::PFN_vkGetDeviceProcAddr> =
        unsafe { driver::void_fn_as(lookup(c"vkGetDeviceProcAddr")) };
    let incompatible = || {
        vk_error!(
            vk::Result::ERROR_INCOMPATIBLE_DRIVER,
            "driver {name}: required instance procs missing ({})",
            missing
                .iter()
                .map(|n| n.to_string_lossy())
                .collect::<Vec<_>>()
                .join(", ")
        )
    };
    let table = match (missing.is_empty(), gdpa) {
        (true, Some(gdpa)) => {
            // SAFETY: the driver returns functions of the types their names say (by id: the
            // same answers, `vkgenGetInstanceProcAddrs`).
            let table = unsafe {
                match &at_once {
                    Some(by_id) => InstanceDispatchTable::load_with(&mut |id| {
                        by_id.get(usize::from(id.0)).copied().flatten()
                    }),
                    None => InstanceDispatchTable::load(&mut |n| lookup(n)),
                }
            };
            try_box(table, data_alloc, COMMAND, "a driver's dispatch table").map(|t| (t, gdpa))
        }
        _ => Err(incompatible()),
    };
    table.inspect_err(|_| match destroy {
        // SAFETY: the caller guarantees `handle` was created with `allocator` and is not handed
        // out; it is destroyed once, here.
        Some(destroy) => unsafe { destroy(handle, allocator) },
        None => log::error!("driver {name}: cannot destroy its instance; it leaks"),
    })
}

/// What a vkgen driver's `vk_icdGetInstanceProcAddr` answers on `handle` for every command
/// [`driver_procs`] asks (the instance table's, the required procs, `vkGetDeviceProcAddr`), in
/// one `vkgenGetInstanceProcAddrs` call, by id; `None` where the driver has no such function
/// or refuses the ids (another registry's): the names are then asked one by one (issue 35: ~75
/// name lookups in each library per instance).
///
/// # Safety
/// `handle` is the live instance of the driver whose lookup `gipa` is.
unsafe fn driver_instance_answers(
    gipa: vk::PFN_vkGetInstanceProcAddr,
    handle: vk::Instance,
) -> Option<Vec<vk::PFN_vkVoidFunction>> {
    use vkgen_generated::commands;
    use vkgen_generated::driver::GET_INSTANCE_PROC_ADDRS_NAME;
    // SAFETY: the driver's lookup with its live instance (the contract) and a C string; a
    // driver that does not know the name answers NULL.
    let found = unsafe { gipa(handle, GET_INSTANCE_PROC_ADDRS_NAME.as_ptr()) };
    found?;
    static IDS: OnceLock<Vec<u16>> = OnceLock::new();
    let ids = IDS.get_or_init(|| {
        let mut set = crate::device_table::CommandSet::default();
        for slot in 0..InstanceDispatchTable::LEN {
            for &id in InstanceDispatchTable::slot_commands(slot) {
                set.insert(id);
            }
        }
        for name in REQUIRED_INSTANCE_PROCS
            .iter()
            .chain([&c"vkGetDeviceProcAddr"])
        {
            if let Some(id) = commands::lookup(name) {
                set.insert(id);
            }
        }
        set.iter().map(|id| id.0).collect()
    });
    // SAFETY: `found` is the driver's answer for the batch's name on `handle`, its live
    // instance.
    unsafe { crate::at_once::answers_by_id("vkgenGetInstanceProcAddrs", found, handle, ids) }
}

/// Destroys every driver instance of `term`.
///
/// # Safety
/// The driver instances must be live and created with `allocator`.
unsafe fn destroy_driver_instances(
    term: &TermInstance,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    for driver in &term.drivers {
        // SAFETY: the caller guarantees each driver instance is live and was created with
        // `allocator`; each is destroyed once, here.
        unsafe { (driver.table.destroy_instance)(driver.handle, allocator) };
    }
}

/// `vkDestroyInstance` at the bottom of the chain: destroys the driver instances and frees the
/// instance's loader data.
///
/// # Safety
/// `instance` must be null or an instance the terminator created, not used afterwards.
pub unsafe extern "system" fn destroy_instance(
    instance: vk::Instance,
    allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyInstance (terminator)", (), || {
        let raw = vk::Handle::as_raw(instance) as usize;
        if raw == 0 {
            return;
        }
        // SAFETY: `raw` is non-null (checked above) and the application's live instance
        // (VUID-vkDestroyInstance-instance-parameter); `checked_instance_data` verifies word 0
        // against the registry before use.
        let Some(data) = (unsafe { checked_instance_data(raw, "vkDestroyInstance") }) else {
            return;
        };
        let ptr = std::ptr::from_ref(data).cast_mut();
        if !unregister_instance(ptr) {
            return;
        }
        // AOSP's `FreeInstanceData` with the `pAllocator` given here, else the data's own.
        // SAFETY: `allocator` is null or the application's valid callbacks
        // (VUID-vkDestroyInstance-pAllocator-parameter), compatible with the creating ones.
        let free_with = unsafe { HostAllocator::app_or(allocator, data.allocator, INSTANCE) };
        // SAFETY: registered data came from `HostBox::into_raw` in `create_instance`; it was just
        // unregistered, so nothing else frees it, and `free_with` is its allocator or one the spec
        // makes compatible with it.
        let data = unsafe { HostBox::from_raw_in(ptr, free_with) };
        // Surfaces the application forgot would keep their windows connected.
        crate::wsi::surface::destroy_all_of_instance(data.term.handle);
        // SAFETY: the driver instances are live and were created with the app's allocator.
        unsafe { destroy_driver_instances(&data.term, allocator) };
    });
}

/// The most physical devices one driver's count query may report to the application.
const MAX_DRIVER_PHYSICAL_DEVICES: u32 = 4096;

/// `vkEnumeratePhysicalDevices` at the bottom of the chain.
///
/// # Safety
/// Vulkan's contract for the command, with an instance of this loader.
pub unsafe extern "system" fn enumerate_physical_devices(
    instance: vk::Instance,
    count: *mut u32,
    out: *mut vk::PhysicalDevice,
) -> vk::Result {
    guard(
        "vkEnumeratePhysicalDevices (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let _trace = crate::trace::section("EnumeratePhysicalDevices");
            // SAFETY: the application's `instance` is a live instance of this loader, reached
            // through its dispatch (VUID-vkEnumeratePhysicalDevices-instance-parameter).
            let Some(data) = (unsafe { instance_data(vk::Handle::as_raw(instance) as usize) })
            else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumeratePhysicalDevices: not an instance of this loader"
                );
            };
            if count.is_null() {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumeratePhysicalDevices: null pPhysicalDeviceCount"
                );
            }
            let term = &data.term;
            if term.passthrough {
                let driver = &term.drivers[0];
                // SAFETY: `count` was checked non-null above and is the application's
                // pPhysicalDeviceCount, readable and writable for this call.
                let capacity = unsafe { *count };
                // SAFETY: the driver's live instance and the caller's valid pointers.
                let result =
                    unsafe { (driver.table.enumerate_physical_devices)(driver.handle, count, out) };
                if out.is_null() && result == vk::Result::SUCCESS {
                    // Issue 25: a count no application can allocate (0xFFFFFFFF) is capped.
                    // SAFETY: `count` is the application's non-null count pointer (checked
                    // above), which the driver just wrote.
                    let claimed = unsafe { *count };
                    if claimed > MAX_DRIVER_PHYSICAL_DEVICES {
                        log::warn!(
                            "driver {} claimed {claimed} physical devices; capped at \
                             {MAX_DRIVER_PHYSICAL_DEVICES}",
                            driver.name()
                        );
                        // SAFETY: the same writable count pointer.
                        unsafe { *count = MAX_DRIVER_PHYSICAL_DEVICES };
                    }
                }
                if out.is_null()
                    || (result != vk::Result::SUCCESS && result != vk::Result::INCOMPLETE)
                {
                    return result;
                }
                // Never trust the driver's count past the application's array: a driver that
                // claims more than it was given room for wrote at most `capacity` handles.
                // SAFETY: `count` was checked non-null above; the driver wrote it and it is still
                // the application's pPhysicalDeviceCount.
                let claimed = unsafe { *count };
                if claimed > capacity {
                    log::warn!(
                        "driver {} claimed {claimed} physical devices for an array of {capacity}; \
                         clamped",
                        driver.name()
                    );
                    // SAFETY: `count` was checked non-null above and is the application's writable
                    // pPhysicalDeviceCount.
                    unsafe { *count = capacity };
                    // The driver's own answer stands: turning its SUCCESS into INCOMPLETE
                    // made applications ask again forever (issue 25).
                }
                // SAFETY: the driver wrote `*count` (at most `capacity`) handles to `out`.
                let written = unsafe { std::slice::from_raw_parts(out, *count as usize) };
                for &pd in written {
                    // SAFETY: a physical device the driver just returned.
                    if let Err(e) = unsafe {
                        install(
                            vk::Handle::as_raw(pd) as usize,
                            std::ptr::from_ref(data) as usize,
                            "VkPhysicalDevice",
                        )
                    } {
                        return e;
                    }
                }
                return result;
            }
            let wrapped = match term.wrapped_physical_devices(data) {
                Ok(wrapped) => wrapped,
                Err(e) => return e,
            };
            let handles: Vec<vk::PhysicalDevice> = wrapped.iter().map(|w| w.handle()).collect();
            // SAFETY: `count` and `out` are the application's count (null is refused by
            // `fill_array`) and array (null, or holding `*count` elements), valid for this call per
            // the command's VUIDs.
            unsafe { fill_array(&handles, count, out) }
        },
    )
}

/// `vkEnumeratePhysicalDeviceGroups(KHR)` at the bottom of the chain: the drivers' groups
/// (synthesised as one device per group where a driver has no group support), with the
/// physical devices the application knows.
///
/// # Safety
/// Vulkan's contract for the command, with an instance of this loader.
pub unsafe extern "system" fn enumerate_physical_device_groups(
    instance: vk::Instance,
    count: *mut u32,
    out: *mut vk::PhysicalDeviceGroupProperties<'_>,
) -> vk::Result {
    guard(
        "vkEnumeratePhysicalDeviceGroups (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let _trace = crate::trace::section("EnumeratePhysicalDeviceGroups");
            // SAFETY: the application's `instance`, `count` and `out` are forwarded unchanged to
            // `enumerate_groups_impl`, whose contract is this command's
            // (VUID-vkEnumeratePhysicalDeviceGroups-*-parameter).
            match unsafe { enumerate_groups_impl(instance, count, out) } {
                Ok(r) | Err(r) => r,
            }
        },
    )
}

/// # Safety
/// As [`enumerate_physical_device_groups`].
unsafe fn enumerate_groups_impl(
    instance: vk::Instance,
    count: *mut u32,
    out: *mut vk::PhysicalDeviceGroupProperties<'_>,
) -> Result<vk::Result, vk::Result> {
    // SAFETY: the application's `instance` is a live instance of this loader, reached through its
    // dispatch (VUID-vkEnumeratePhysicalDeviceGroups-instance-parameter).
    let data =
        unsafe { instance_data(vk::Handle::as_raw(instance) as usize) }.ok_or_else(|| {
            vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkEnumeratePhysicalDeviceGroups: not an instance of this loader"
            )
        })?;
    if count.is_null() {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkEnumeratePhysicalDeviceGroups: null pPhysicalDeviceGroupCount"
        ));
    }
    let term = &data.term;
    let data_word = std::ptr::from_ref(data) as usize;
    let mut groups: Vec<(
        u32,
        [vk::PhysicalDevice; vk::MAX_DEVICE_GROUP_SIZE],
        vk::Bool32,
    )> = Vec::new();
    for (index, driver) in term.drivers.iter().enumerate() {
        // SAFETY: the driver's live instance.
        for group in unsafe { driver_groups(driver) }? {
            let n = (group.physical_device_count as usize).min(vk::MAX_DEVICE_GROUP_SIZE);
            let mut devices = [vk::PhysicalDevice::null(); vk::MAX_DEVICE_GROUP_SIZE];
            for (slot, &pd) in devices.iter_mut().zip(&group.physical_devices[..n]) {
                *slot = if term.passthrough {
                    // SAFETY: a physical device the driver just returned.
                    unsafe {
                        install(
                            vk::Handle::as_raw(pd) as usize,
                            data_word,
                            "VkPhysicalDevice",
                        )
                    }?;
                    pd
                } else {
                    term.wrapped_physical_devices(data)?
                        .iter()
                        .find(|w| w.driver_index() == index && w.driver_handle() == pd)
                        .map(|w| w.handle())
                        .ok_or_else(|| {
                            vk_error!(
                                vk::Result::ERROR_INITIALIZATION_FAILED,
                                "driver {}: group member {pd:?} was never enumerated",
                                driver.name()
                            )
                        })?
                };
            }
            groups.push((n as u32, devices, group.subset_allocation));
        }
    }
    // SAFETY: `count` was checked non-null at the top and is the application's
    // pPhysicalDeviceGroupCount; `out` is null or its array of `*count` initialised structs, of
    // which only the output members are written (sType/pNext stay the caller's).
    Ok(unsafe {
        vkgen_generated::two_call::write_array_with(groups.len(), count, out, |i, slot| {
            let (n, devices, subset) = &groups[i];
            slot.physical_device_count = *n;
            slot.physical_devices = *devices;
            slot.subset_allocation = *subset;
        })
    })
}

/// One driver's physical device groups: its own when it has group support (core 1.1 or
/// `VK_KHR_device_group_creation` enabled), else one group per physical device.
///
/// # Safety
/// `driver.handle` must be live.
unsafe fn driver_groups(
    driver: &DriverInstance,
) -> Result<Vec<vk::PhysicalDeviceGroupProperties<'static>>, vk::Result> {
    let has_groups = (extensions::major_minor(driver.api_version) >= vk::API_VERSION_1_1
        && extensions::major_minor(driver.driver.driver.api_version()) >= vk::API_VERSION_1_1)
        || driver
            .enabled_extensions
            .contains(ExtensionId::KHR_DEVICE_GROUP_CREATION);
    let slot = slot_of(c"vkEnumeratePhysicalDeviceGroups");
    if has_groups && slot.is_some_and(|s| driver.table.is_present(s)) {
        return enumerate(|c, o| {
            // SAFETY: the driver's live instance and `enumerate`'s valid pointers.
            unsafe { (driver.table.enumerate_physical_device_groups)(driver.handle, c, o) }
        })
        .inspect_err(|e| {
            log::error!(
                "driver {}: vkEnumeratePhysicalDeviceGroups failed: {e:?}",
                driver.name()
            )
        });
    }
    let devices = enumerate(|c, o| {
        // SAFETY: the caller guarantees `driver.handle` is live, and `enumerate` passes a valid
        // count pointer and an array of the size it read back.
        unsafe { (driver.table.enumerate_physical_devices)(driver.handle, c, o) }
    })?;
    Ok(devices
        .into_iter()
        .map(|pd| {
            let mut group = vk::PhysicalDeviceGroupProperties {
                physical_device_count: 1,
                ..Default::default()
            };
            group.physical_devices[0] = pd;
            group
        })
        .collect())
}

/// The debug-extension hooks of a loader-owned instance (several or no drivers): each call goes
/// to every driver instance that enabled the extension. `None` for other names, or when the
/// instance did not enable the extension.
pub(crate) fn fan_out_hook(term: &TermInstance, name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    let needs = |id: ExtensionId| term.enabled_extensions.contains(id);
    let debug_utils = ext::lookup(c"VK_EXT_debug_utils")?;
    if !needs(debug_utils) {
        return None;
    }
    fan_out_functions(name)
}

/// The loader's fan-out function for `name` when it is one of `VK_EXT_debug_utils`' commands.
pub(super) fn fan_out_functions(name: &CStr) -> Option<vk::PFN_vkVoidFunction> {
    vkgen_generated::loader_hooks!(fan_out, name)
}

/// `vkEnumerateInstanceExtensionProperties` at the bottom of a chain (layers calling down before
/// an instance exists): the drivers' visible extensions.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn enumerate_instance_extension_properties(
    layer_name: *const c_char,
    count: *mut u32,
    out: *mut vk::ExtensionProperties,
) -> vk::Result {
    guard(
        "vkEnumerateInstanceExtensionProperties (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: a C string or null.
            if unsafe { cstr(layer_name) }.is_some() {
                return vk_error!(
                    vk::Result::ERROR_LAYER_NOT_PRESENT,
                    "vkEnumerateInstanceExtensionProperties: no layer of that name below the chain"
                );
            }
            let list = available_driver_instance_extensions(init::loader());
            // SAFETY: `count` and `out` are the application's count (null is refused by
            // `fill_array`) and array (null, or holding `*count` elements), valid for this call per
            // the command's VUIDs.
            unsafe { fill_array(list, count, out) }
        },
    )
}

/// [`driver_instance_extensions`] of `loader`'s drivers, made once per loader state.
pub(crate) fn available_driver_instance_extensions(
    loader: &init::Loader,
) -> &[vk::ExtensionProperties] {
    loader.instance_extensions_made_by(driver_instance_extensions)
}

/// The loader's and all drivers' visible instance extensions, deduplicated.
pub(crate) fn driver_instance_extensions(drivers: &[DriverEntry]) -> Vec<vk::ExtensionProperties> {
    let mut list = extensions::loader_instance_extensions().to_vec();
    let debug_report =
        extensions::debug_report_extension(drivers.iter().map(|d| d.extensions.as_slice()));
    let debug_report_name = extensions::name_of(&debug_report);
    // AOSP: the loader's entry right after its own only when the driver lacks the extension;
    // a driver's entry stays where the driver lists it, its spec clamped to the loader's.
    if !drivers
        .iter()
        .any(|d| extensions::contains(&d.extensions, debug_report_name))
    {
        list.push(debug_report);
    }
    for driver in drivers {
        list.extend(
            extensions::visible_instance_extensions(
                &driver.extensions,
                driver.driver.name(),
                driver.is_hal(),
            )
            .into_iter()
            .map(|e| {
                if extensions::name_of(&e) == debug_report_name {
                    debug_report
                } else {
                    e
                }
            }),
        );
    }
    extensions::dedup(list)
}

/// `vkEnumerateInstanceLayerProperties` at the bottom of a chain: no layers below.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn enumerate_instance_layer_properties(
    count: *mut u32,
    out: *mut vk::LayerProperties,
) -> vk::Result {
    // SAFETY: `count` and `out` are the application's count (null is refused by `fill_array`) and
    // array (null, or holding `*count` elements), valid for this call per the command's VUIDs.
    guard(
        "vkEnumerateInstanceLayerProperties (terminator)",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || unsafe { fill_array::<vk::LayerProperties>(&[], count, out) },
    )
}

/// `vkEnumerateInstanceVersion` at the bottom of a chain: the loader's version.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn enumerate_instance_version(version: *mut u32) -> vk::Result {
    guard(
        "vkEnumerateInstanceVersion (terminator)",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            if version.is_null() {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkEnumerateInstanceVersion: null pApiVersion"
                );
            }
            // SAFETY: `version` was checked non-null just above and is the application's
            // pApiVersion, writable for this call.
            unsafe { *version = vkgen_generated::API_VERSION };
            vk::Result::SUCCESS
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::{AtomicU32, Ordering};
    use vkgen_generated::commands::{self, CommandId};
    use vkgen_generated::driver::{PfnGetInstanceProcAddrs, GET_INSTANCE_PROC_ADDRS_NAME};

    unsafe extern "system" fn any_fn() {}
    static ANY: unsafe extern "system" fn() = any_fn;

    /// The fake driver's answer: a function for every command whose id is even.
    fn answer(id: CommandId) -> vk::PFN_vkVoidFunction {
        id.0.is_multiple_of(2).then_some(ANY)
    }

    /// How many ids the fake batch was given last.
    static ASKED: AtomicU32 = AtomicU32::new(0);

    unsafe extern "system" fn at_once(
        _: vk::Instance,
        fingerprint: u64,
        count: u32,
        ids: *const u16,
        out: *mut vk::PFN_vkVoidFunction,
    ) -> vk::Result {
        if fingerprint != commands::FINGERPRINT {
            return vk::Result::ERROR_INCOMPATIBLE_DRIVER;
        }
        ASKED.store(count, Ordering::Relaxed);
        for i in 0..count as usize {
            // SAFETY: the loader passes `count` ids and room for `count` answers.
            unsafe { *out.add(i) = answer(CommandId(*ids.add(i))) };
        }
        vk::Result::SUCCESS
    }

    unsafe extern "system" fn refusing(
        _: vk::Instance,
        _: u64,
        _: u32,
        _: *const u16,
        _: *mut vk::PFN_vkVoidFunction,
    ) -> vk::Result {
        vk::Result::ERROR_INCOMPATIBLE_DRIVER
    }

    /// A driver's lookup; `BATCH` 0: no `vkgenGetInstanceProcAddrs`, 1: one that answers, 2: one
    /// that refuses (a driver of another registry).
    unsafe extern "system" fn gipa<const BATCH: u8>(
        _: vk::Instance,
        name: *const c_char,
    ) -> vk::PFN_vkVoidFunction {
        // SAFETY: the loader passes NUL-terminated names.
        let name = unsafe { CStr::from_ptr(name) };
        if name != GET_INSTANCE_PROC_ADDRS_NAME {
            return commands::lookup(name).and_then(answer);
        }
        let f: PfnGetInstanceProcAddrs = match BATCH {
            1 => at_once,
            2 => refusing,
            _ => return None,
        };
        // SAFETY: function pointers share one representation.
        Some(unsafe {
            std::mem::transmute::<PfnGetInstanceProcAddrs, unsafe extern "system" fn()>(f)
        })
    }

    /// The answers in one call are the driver's for every name `driver_procs` asks (the
    /// instance table's, the required procs, `vkGetDeviceProcAddr`); without the batch, or with
    /// one that refuses, there are none and the names are asked one by one.
    #[test]
    fn the_instance_answers_in_one_call_are_the_drivers() {
        let handle: vk::Instance = vk::Handle::from_raw(0x10);
        // SAFETY: the fake lookups ignore the instance.
        let by_id = unsafe { driver_instance_answers(gipa::<1>, handle) }.expect("answered");
        let mut asked = 0;
        for slot in 0..InstanceDispatchTable::LEN {
            for &id in InstanceDispatchTable::slot_commands(slot) {
                let got = by_id[usize::from(id.0)].map(|f| f as usize);
                assert_eq!(got, answer(id).map(|f| f as usize), "{id:?}");
                asked += 1;
            }
        }
        for name in REQUIRED_INSTANCE_PROCS
            .iter()
            .chain([&c"vkGetDeviceProcAddr"])
        {
            let id = commands::lookup(name).unwrap();
            assert_eq!(
                by_id[usize::from(id.0)].map(|f| f as usize),
                answer(id).map(|f| f as usize)
            );
        }
        // Each command once, the required ones that are not in the table included.
        assert!(ASKED.load(Ordering::Relaxed) as usize >= asked);
        // SAFETY: the fake lookup without the batch ignores the instance.
        assert!(unsafe { driver_instance_answers(gipa::<0>, handle) }.is_none());
        // SAFETY: the fake lookup with a refusing batch ignores the instance.
        assert!(unsafe { driver_instance_answers(gipa::<2>, handle) }.is_none());
    }
}
