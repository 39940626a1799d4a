//! `vkCreateInstance` and `vkCreateDevice` on the host: what the device needs for native
//! buffers, `AHardwareBuffer` memory and `SYNC_FD`, set up beside the host's own device; and
//! its teardown.

use std::collections::HashMap;
use std::ffi::{c_char, c_void, CStr};
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use super::icd::*;
use super::names::*;
use super::native_buffer::*;
use super::registry::*;
use super::{copy_backed, hardware_buffer, sync_fd};

/// `vkCreateDevice`. `force_emulate`: the host's own `SYNC_FD` failed its probe on a first
/// try ([`sync_fd::host_sync_fd_works`]), so this device emulates it.
///
/// # Safety
/// The application's valid arguments.
pub(super) unsafe fn create_host_device(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
    force_emulate: bool,
) -> vk::Result {
    let Some(inst) = instance_of(physical_device) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice: {physical_device:?} is no physical device of a host instance"
        );
    };
    // SAFETY: `pCreateInfo` is the application's pointer to its create info, null or valid for
    // the whole call; `as_ref` turns a null one into the refusal below.
    let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice without a create info"
        );
    };
    // SAFETY: `ci` is the application's create info, whose `ppEnabledExtensionNames` holds
    // `enabledExtensionCount` pointers to NUL-terminated names for the whole call.
    let names = unsafe { enabled_names(ci) };
    // SAFETY: `physical_device` was found in `inst` just above.
    let plan = match unsafe { plan_extensions(&inst, physical_device, &names, force_emulate) } {
        Ok(plan) => plan,
        Err(r) => return r,
    };
    let mut ci2 = *ci;
    let mut timeline_chain = None;
    if let Some(host_names) = &plan.host_names {
        ci2.enabled_extension_count = host_names.len() as u32;
        ci2.pp_enabled_extension_names = host_names.as_ptr();
    }
    if plan.emulate_sync {
        // SAFETY: `ci.p_next` is the application's create-info chain, valid for this call;
        // the copy it returns is kept alive in `timeline_chain` until the host's call returns.
        let chain = unsafe { sync_fd::with_timeline_feature(ci.p_next) };
        ci2.p_next = chain.head();
        timeline_chain = Some(chain);
    }
    let mut device = vk::Device::null();
    // SAFETY: the host's vkCreateDevice for a physical device of `inst`; `ci2` points at the
    // application's arrays and at `plan.host_names` / `timeline_chain`, all alive until the
    // call returns; the allocator is the application's own.
    let r = unsafe {
        (inst.fns.fp_v1_0().create_device)(physical_device, &ci2, p_allocator, &mut device)
    };
    drop(timeline_chain);
    if r != vk::Result::SUCCESS {
        return r;
    }
    let gdpa = inst.fns.fp_v1_0().get_device_proc_addr;
    // SAFETY: `device` is what the ICD's vkCreateDevice just returned with `p_allocator`.
    let (fns, answers) = match unsafe { load_checked(gdpa, device, p_allocator) } {
        Ok(loaded) => loaded,
        Err(r) => return r,
    };
    let family = first_queue_family(ci);
    let wants_sync =
        [sync_fd::SEMAPHORE_FD_NAME, sync_fd::FENCE_FD_NAME].map(|n| names.contains(&n));
    if !plan.emulate_sync && (wants_sync[0] || wants_sync[1]) {
        // SAFETY: `device` is the new device, unknown to the application yet; `family` is the
        // first family it was created with, so its queue 0 exists.
        let works = unsafe {
            let queue = fns.get_device_queue(family, 0);
            sync_fd::host_sync_fd_works(&fns, gdpa, device, queue, wants_sync[0], wants_sync[1])
        };
        if !works {
            log::info!("the host's SYNC_FD does not work on this device: emulated");
            // SAFETY: the device was never handed out; the probe waited for its work, so
            // nothing of it is in flight; the allocator is the one it was created with.
            unsafe { fns.destroy_device(p_allocator.as_ref()) };
            // SAFETY: the caller's own arguments, still valid: the failed device is gone and
            // nothing was written through `p_device`.
            return unsafe {
                create_host_device(physical_device, p_create_info, p_allocator, p_device, true)
            };
        }
    }
    let load = host_loader(gdpa, device);
    let anb = (plan.wants_anb || plan.wants_ahb || plan.emulate_sync).then(|| {
        // SAFETY: `fns` is the live new device of `physical_device` (of `inst`), created with
        // a queue in `family`.
        unsafe { anb_device(&inst, physical_device, &fns, family, load, plan.sync_fd) }
    });
    let internal_queue = anb.as_ref().map(|a| *lock(&a.internal_queue));
    let ahb = match (&anb, plan.wants_ahb) {
        // SAFETY: `device` is live and `plan_extensions` enabled VK_EXT_external_memory_host
        // on it whenever the application asked for AHardwareBuffer memory.
        (Some(a), true) => Some(unsafe { hardware_buffer::state::AhbDevice::new(&fns, a, device) }),
        _ => None,
    };
    let sync = if plan.emulate_sync {
        sync_fd::state::SyncEmulation::new(&fns, load)
    } else {
        None
    };
    let state = Arc::new(HostDevice {
        handle: device,
        fns,
        answers,
        gdpa,
        instance: inst.clone(),
        physical: physical_device,
        anb,
        ahb,
        sync,
    });
    register_device(state, internal_queue);
    // SAFETY: `pDevice` is the application's output pointer, valid for a write.
    unsafe { *p_device = device };
    vk::Result::SUCCESS
}

/// Makes a new device known: its host submit and barrier commands, and the registry entries
/// of the device and of its internal queue (whose submissions the driver intercepts).
fn register_device(state: Arc<HostDevice>, internal_queue: Option<vk::Queue>) {
    sync_fd::submit::note_host_submit(&state);
    copy_backed::note_host_barriers(&state);
    let mut reg = registry_mut();
    reg.devices
        .insert(vk::Handle::as_raw(state.handle), state.clone());
    if let Some(q) = internal_queue {
        reg.queues.insert(vk::Handle::as_raw(q), state);
    }
}

/// The extensions the application enabled, as names.
///
/// # Safety
/// `ci.pp_enabled_extension_names` holds `ci.enabled_extension_count` pointers, each null or
/// to a NUL-terminated string alive for `'a`.
unsafe fn enabled_names<'a>(ci: &vk::DeviceCreateInfo<'a>) -> Vec<&'a CStr> {
    // SAFETY: the array and its length, as the caller promises.
    unsafe { slice(ci.pp_enabled_extension_names, ci.enabled_extension_count) }
        .iter()
        .filter(|p| !p.is_null())
        // SAFETY: a non-null entry of that array, a NUL-terminated name (the caller's promise).
        .map(|&p| unsafe { CStr::from_ptr(p) })
        .collect()
}

/// The first queue family the device is created with (0 without any): the one its internal
/// queue and the `SYNC_FD` probe use.
fn first_queue_family(ci: &vk::DeviceCreateInfo<'_>) -> u32 {
    // SAFETY: `ci` is the application's valid create info, whose `pQueueCreateInfos` holds
    // `queueCreateInfoCount` structures (`slice` takes a null or empty array as empty).
    unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) }
        .first()
        .map_or(0, |q| q.queue_family_index)
}

/// What the host device is created with, beside what the application asked for.
struct ExtensionPlan {
    wants_anb: bool,
    wants_ahb: bool,
    /// A `SYNC_FD` extension the application enabled is emulated over timeline semaphores.
    emulate_sync: bool,
    /// The host exports `SYNC_FD` fences itself (`VK_KHR_external_fence_fd` is enabled).
    sync_fd: bool,
    /// The host's `ppEnabledExtensionNames`: the application's less the ones this driver
    /// provides, plus the ones those need; `None` leaves the application's list as it is.
    host_names: Option<Vec<*const c_char>>,
}

/// Which of `names` the host gets, and what this driver adds for the ones it provides.
/// Fails with `VK_ERROR_EXTENSION_NOT_PRESENT` where native buffers or AHardwareBuffer memory
/// are asked for and the host cannot import host memory.
///
/// # Safety
/// `physical_device` belongs to `inst`.
unsafe fn plan_extensions(
    inst: &HostInstance,
    physical_device: vk::PhysicalDevice,
    names: &[&CStr],
    force_emulate: bool,
) -> Result<ExtensionPlan, vk::Result> {
    let wants_anb = names.contains(&NATIVE_BUFFER_NAME);
    let wants_ahb = names.contains(&hardware_buffer::NAME);
    // SAFETY: `physical_device` belongs to `inst` (the caller's promise).
    let available = unsafe { device_extensions(inst, physical_device) };
    let emulate_sync = force_emulate || sync_fd::emulated(&available, names);
    let mut plan = ExtensionPlan {
        wants_anb,
        wants_ahb,
        emulate_sync,
        sync_fd: false,
        host_names: None,
    };
    if !(wants_anb || wants_ahb || emulate_sync) {
        return Ok(plan);
    }
    if (wants_anb || wants_ahb) && !has_extension(&available, MEMORY_HOST_NAME) {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_EXTENSION_NOT_PRESENT,
            "native buffers need the host's {}",
            MEMORY_HOST_NAME.to_string_lossy()
        ));
    }
    let ours = |n: &CStr| {
        n == NATIVE_BUFFER_NAME
            || n == hardware_buffer::NAME
            || ((n == hardware_buffer::QUEUE_FAMILY_FOREIGN_NAME
                || n == sync_fd::SEMAPHORE_FD_NAME
                || n == sync_fd::FENCE_FD_NAME)
                && !has_extension(&available, n))
    };
    if has_extension(&available, FENCE_FD_NAME) {
        let info = vk::PhysicalDeviceExternalFenceInfo::default()
            .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let mut props = vk::ExternalFenceProperties::default();
        // SAFETY: the host's core 1.1 query for a physical device of `inst`, with an input and
        // an output structure that live on this stack frame.
        unsafe {
            (inst
                .fns
                .fp_v1_1()
                .get_physical_device_external_fence_properties)(
                physical_device, &info, &mut props
            )
        };
        plan.sync_fd = !force_emulate
            && props
                .external_fence_features
                .contains(vk::ExternalFenceFeatureFlags::EXPORTABLE);
    }
    let mut host_names: Vec<*const c_char> = names
        .iter()
        .filter(|&&n| !ours(n))
        .map(|n| n.as_ptr())
        .collect();
    let timeline_ext = c"VK_KHR_timeline_semaphore";
    for (needed, want) in [
        (MEMORY_HOST_NAME, wants_anb || wants_ahb),
        (FENCE_FD_NAME, plan.sync_fd),
        (
            timeline_ext,
            emulate_sync && has_extension(&available, timeline_ext),
        ),
    ] {
        if want && !names.contains(&needed) {
            host_names.push(needed.as_ptr());
        }
    }
    plan.host_names = Some(host_names);
    Ok(plan)
}

/// `vkGetDeviceProcAddr` of the host for `device`, in the shape ash's loaders take.
fn host_loader(
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    device: vk::Device,
) -> impl Fn(&CStr) -> *const c_void + Copy {
    move |name: &CStr| {
        // SAFETY: the host's vkGetDeviceProcAddr with its live device and a NUL-terminated
        // name; the result (maybe null) is a function pointer, which ash takes as a raw one.
        unsafe {
            std::mem::transmute::<vk::PFN_vkVoidFunction, *const c_void>(gdpa(
                device,
                name.as_ptr(),
            ))
        }
    }
}

/// The native-buffer state of a new device: host-memory import, its alignment and the
/// internal queue (queue 0 of `family`).
///
/// # Safety
/// `fns` is a live device of `physical_device`, a physical device of `inst`, created with a
/// queue in `family` and with `VK_EXT_external_memory_host` (and `VK_KHR_external_fence_fd`
/// where `fence_fd`).
unsafe fn anb_device(
    inst: &HostInstance,
    physical_device: vk::PhysicalDevice,
    fns: &ash::Device,
    family: u32,
    load: impl Fn(&CStr) -> *const c_void + Copy,
    fence_fd: bool,
) -> AnbDevice {
    let mut host_props = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
    let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut host_props);
    // SAFETY: the host's core 1.1 query for a physical device of `inst`; `props2` chains only
    // `host_props`, both on this stack frame.
    unsafe { (inst.fns.fp_v1_1().get_physical_device_properties2)(physical_device, &mut props2) };
    let import_alignment = host_props.min_imported_host_pointer_alignment.max(1);
    // SAFETY: queue 0 of `family`, a family the device was created with (the caller's promise).
    let queue = unsafe { fns.get_device_queue(family, 0) };
    AnbDevice {
        memory_host: ash::ext::external_memory_host::DeviceFn::load(load),
        fence_fd: fence_fd.then(|| ash::khr::external_fence_fd::DeviceFn::load(load)),
        import_alignment,
        internal_queue: Mutex::new(queue),
        images: Mutex::new(HashMap::new()),
        fences: Arc::new(Mutex::new(Vec::new())),
        worker: Mutex::new(None),
    }
}

/// Refuses a device the ICD created that the driver cannot use (issue 25): a null handle, or a
/// missing command the driver calls through ash (whose stubs panic where no unwinding is
/// possible). A refused device is destroyed where the ICD has `vkDestroyDevice`.
///
/// # Safety
/// `device` is what the ICD's `vkCreateDevice` returned with `p_allocator`.
unsafe fn check_new_device(
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    answers: Option<&Answers>,
) -> Result<(), vk::Result> {
    if vk::Handle::as_raw(device) == 0 {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateDevice succeeded with a null handle; refused"
        ));
    }
    // What loading the table recorded, else (a name ash does not load) the ICD's answer now.
    let lookup = |name: &CStr| {
        answers
            .and_then(|a| a.get_name(name))
            // SAFETY: the ICD's vkGetDeviceProcAddr with the non-null device it just created
            // and NUL-terminated names from `DEVICE_COMMANDS`.
            .unwrap_or_else(|| unsafe { gdpa(device, name.as_ptr()) })
            .is_some()
    };
    let Some(missing) = first_missing(DEVICE_COMMANDS, lookup) else {
        return Ok(());
    };
    // SAFETY: the ICD's vkGetDeviceProcAddr with the live device it just created.
    if let Some(destroy) = unsafe { gdpa(device, c"vkDestroyDevice".as_ptr()) } {
        // SAFETY: the ICD's vkDestroyDevice for its own device, never handed out.
        unsafe {
            let destroy = std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkDestroyDevice>(
                destroy,
            );
            destroy(device, p_allocator);
        }
    }
    Err(vkgen_abi::vk_error!(
        vk::Result::ERROR_INITIALIZATION_FAILED,
        "the host device has no {}; refused",
        missing.to_string_lossy()
    ))
}

/// The host's result where the spec allows it for the command, else the command's last allowed
/// error (NVIDIA answers an fd it cannot import with `VK_ERROR_INITIALIZATION_FAILED`).
pub(super) fn spec_result(r: vk::Result, allowed: &[vk::Result]) -> vk::Result {
    if allowed.contains(&r) {
        return r;
    }
    let mapped = allowed[allowed.len() - 1];
    log::warn!("the host ICD answered {r:?}, which the spec does not allow here: {mapped:?}");
    mapped
}

/// `vkResetFences`: forwarded; a reset fence is no longer one a batch signals, so a `SYNC_FD`
/// export of it before the next submission is refused instead of waited for forever (issue 25).
///
/// # Safety
/// The application's valid arguments.
pub(super) unsafe fn reset_fences(
    device: vk::Device,
    count: u32,
    p_fences: *const vk::Fence,
) -> vk::Result {
    let Some(dev) = device_of(device) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_DEVICE_LOST,
            "vkResetFences: {device:?} is no host device"
        );
    };
    // SAFETY: the host's vkResetFences for its own device `dev`, with the application's
    // `count` fences of that device unchanged.
    let r = unsafe { (dev.fns.fp_v1_0().reset_fences)(device, count, p_fences) };
    if r == vk::Result::SUCCESS {
        // SAFETY: `pFences` holds `fenceCount` handles (the host just read them successfully).
        let fences = unsafe { crate::util::slice(p_fences, count) };
        if let Some((sync, _)) = sync_fd::emulation(&dev) {
            let mut pending = lock(&sync.pending_fences);
            for fence in fences {
                pending.remove(&vk::Handle::as_raw(*fence));
            }
        }
    }
    r
}

/// `vkDestroyDevice`: forgets the device, stops its SYNC_FD emulation and release worker, releases its pooled fences and the imports of images the application did not destroy, then destroys the host device.
///
/// # Safety
/// The application's valid arguments of `vkDestroyDevice`.
pub(super) unsafe fn destroy_device(
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    let raw = vk::Handle::as_raw(device);
    let state = {
        let mut reg = registry_mut();
        let state = reg.devices.remove(&raw);
        if let Some(s) = &state {
            reg.queues.retain(|_, v| !Arc::ptr_eq(v, s));
        }
        state
    };
    let Some(dev) = state else {
        return;
    };
    sync_fd::submit::forget_device(&dev);
    if let Some(sync) = &dev.sync {
        sync.shut_down(&dev);
    }
    if let Some(anb) = &dev.anb {
        // Let pending release fences complete and the worker exit.
        if let Some(w) = lock(&anb.worker).take() {
            drop(w.sender);
            if w.thread.join().is_err() {
                log::error!("the release worker panicked");
            }
        }
        for f in std::mem::take(&mut *lock(&anb.fences)) {
            // SAFETY: pooled fences are unsignalled and unused.
            unsafe { dev.fns.destroy_fence(f, None) };
        }
        // Images the application did not destroy: their imports go with the device.
        for (_, img) in std::mem::take(&mut *lock(&anb.images)) {
            release_anb_image(&dev, img);
        }
    }
    // SAFETY: the application is done with the device.
    unsafe { (dev.fns.fp_v1_0().destroy_device)(device, p_allocator) };
}

/// `vkCreateInstance` on the ICD of adapter slot `slot` (`host`: none where that slot has no
/// ICD): the host's instance, at the API version the host can give, checked for every command
/// the driver calls, and registered.
///
/// # Safety
/// The application's valid arguments of `vkCreateInstance`.
pub(super) unsafe fn create_host_instance(
    host: Option<&'static HostIcd>,
    slot: usize,
    p_create_info: *const vk::InstanceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_instance: *mut vk::Instance,
) -> vk::Result {
    let Some(host) = host else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INCOMPATIBLE_DRIVER,
            "vkCreateInstance: no host ICD (slot {slot})"
        );
    };
    // SAFETY: `pCreateInfo` is the application's pointer, null or to a create info valid for
    // this call; `as_ref` turns null into the refusal below.
    let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
        return vkgen_abi::vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "vkCreateInstance without a create info"
        );
    };
    // SAFETY: `pApplicationInfo` of that create info, null or valid for this call.
    let mut app = unsafe { ci.p_application_info.as_ref() }
        .copied()
        .unwrap_or_default();
    app.api_version = host.host_api_version(app.api_version);
    let mut ci2 = *ci;
    ci2.p_application_info = &app;
    let mut instance = vk::Instance::null();
    // SAFETY: the host's vkCreateInstance with a valid create info.
    let r = unsafe { (host.entry.fp_v1_0().create_instance)(&ci2, p_allocator, &mut instance) };
    if r != vk::Result::SUCCESS {
        return r;
    }
    // As for devices: the table is loaded first, and the check reads its recorded answers.
    let gipa = host.entry.static_fn().get_instance_proc_addr;
    static INSTANCE_NAMES: NameIds = NameIds::new();
    let loaded = (vk::Handle::as_raw(instance) != 0).then(|| {
        // SAFETY: the ICD's vk_icdGetInstanceProcAddr with the non-null instance it just
        // created and a NUL-terminated name.
        let lookup = |name: &CStr| unsafe { gipa(instance, name.as_ptr()) };
        // SAFETY: every pointer `load` returns is the ICD's own answer for that name.
        let load = |load: &mut dyn FnMut(&CStr) -> *const c_void| unsafe {
            ash::Instance::load_with(|name| load(name), instance)
        };
        // SAFETY: ash's instance table passes its static name literals.
        unsafe { Answers::record(&INSTANCE_NAMES, lookup, |_| true, load) }
    });
    let answers = loaded.as_ref().map(|l| &l.1);
    if let Err(r) = check_host_instance(host, instance, app.api_version, p_allocator, answers) {
        return r;
    }
    // `check_host_instance` refused a null instance; every command the driver calls resolved.
    let Some((fns, answers)) = loaded else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    registry_mut().instances.insert(
        vk::Handle::as_raw(instance),
        Arc::new(HostInstance { fns, answers, slot }),
    );
    // SAFETY: `p_instance` is the application's vkCreateInstance output, valid for a write.
    unsafe { *p_instance = instance };
    vk::Result::SUCCESS
}

/// The new device's table, loaded through the ICD's `vkGetDeviceProcAddr` with each answer
/// recorded, and the device checked against it.
///
/// # Safety
/// `device` is what the ICD's vkCreateDevice just returned with `p_allocator`; `gdpa` is that
/// ICD's vkGetDeviceProcAddr.
unsafe fn load_checked(
    gdpa: vk::PFN_vkGetDeviceProcAddr,
    device: vk::Device,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<(ash::Device, Answers), vk::Result> {
    // The table is loaded before the check, which then reads its recorded answers: each name
    // is asked of the ICD once. Loading calls nothing but the ICD's vkGetDeviceProcAddr.
    static DEVICE_NAMES: NameIds = NameIds::new();
    let loaded = (vk::Handle::as_raw(device) != 0).then(|| {
        // SAFETY: the ICD's vkGetDeviceProcAddr with the non-null device it just created and a
        // NUL-terminated name.
        let lookup = |name: &CStr| unsafe { gdpa(device, name.as_ptr()) };
        // SAFETY: every pointer `load` returns is the ICD's own answer for that name.
        let load = |load: &mut dyn FnMut(&CStr) -> *const c_void| unsafe {
            ash::Device::load_with(|name| load(name), device)
        };
        let wanted = super::icd::adapter_calls_through_ash;
        // SAFETY: ash's device table passes its static name literals.
        unsafe { Answers::record(&DEVICE_NAMES, lookup, wanted, load) }
    });
    let answers = loaded.as_ref().map(|l| &l.1);
    // SAFETY: `device` is what the ICD's vkCreateDevice just returned with `p_allocator`.
    unsafe { check_new_device(gdpa, device, p_allocator, answers) }?;
    // `check_new_device` refused a null device, so the table was loaded; every command ash
    // calls on it resolved through the ICD's vkGetDeviceProcAddr (checked there).
    let Some((fns, answers)) = loaded else {
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    };
    Ok((fns, answers))
}
