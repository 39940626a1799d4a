//! `vkCreateDevice` on the host: what the device needs for native buffers, `AHardwareBuffer`
//! memory and `SYNC_FD`, set up beside the host's own device.

use super::*;

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
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: valid create info per valid usage.
    let Some(ci) = (unsafe { p_create_info.as_ref() }) else {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    };
    // SAFETY: `ppEnabledExtensionNames` holds `enabledExtensionCount` C strings.
    let names: Vec<&CStr> =
        unsafe { slice(ci.pp_enabled_extension_names, ci.enabled_extension_count) }
            .iter()
            .filter(|p| !p.is_null())
            // SAFETY: as above.
            .map(|&p| unsafe { CStr::from_ptr(p) })
            .collect();
    let wants_anb = names.contains(&NATIVE_BUFFER_NAME);
    let wants_ahb = names.contains(&hardware_buffer::NAME);
    let mut ci2 = *ci;
    let mut sync_fd = false;
    let mut host_names: Vec<*const c_char> = Vec::new();
    // SAFETY: `physical_device` belongs to `inst`.
    let available = unsafe { device_extensions(&inst, physical_device) };
    let emulate_sync = force_emulate || sync_fd::emulated(&available, &names);
    let mut timeline_chain = None;
    if wants_anb || wants_ahb || emulate_sync {
        if (wants_anb || wants_ahb) && !has_extension(&available, MEMORY_HOST_NAME) {
            return vk::Result::ERROR_EXTENSION_NOT_PRESENT;
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
            // SAFETY: core 1.1 query with valid structures.
            unsafe {
                (inst
                    .fns
                    .fp_v1_1()
                    .get_physical_device_external_fence_properties)(
                    physical_device,
                    &info,
                    &mut props,
                )
            };
            sync_fd = !force_emulate
                && props
                    .external_fence_features
                    .contains(vk::ExternalFenceFeatureFlags::EXPORTABLE);
        }
        host_names.extend(names.iter().filter(|&&n| !ours(n)).map(|n| n.as_ptr()));
        let timeline_ext = c"VK_KHR_timeline_semaphore";
        for (needed, want) in [
            (MEMORY_HOST_NAME, wants_anb || wants_ahb),
            (FENCE_FD_NAME, sync_fd),
            (
                timeline_ext,
                emulate_sync && has_extension(&available, timeline_ext),
            ),
        ] {
            if want && !names.contains(&needed) {
                host_names.push(needed.as_ptr());
            }
        }
        ci2.enabled_extension_count = host_names.len() as u32;
        ci2.pp_enabled_extension_names = host_names.as_ptr();
        if emulate_sync {
            // SAFETY: the application's valid chain.
            let chain = unsafe { sync_fd::with_timeline_feature(ci.p_next) };
            ci2.p_next = chain.head();
            timeline_chain = Some(chain);
        }
    }
    let mut device = vk::Device::null();
    // SAFETY: the host's vkCreateDevice with a valid create info (arrays outlive the call).
    let r = unsafe {
        (inst.fns.fp_v1_0().create_device)(physical_device, &ci2, p_allocator, &mut device)
    };
    drop(timeline_chain);
    if r != vk::Result::SUCCESS {
        return r;
    }
    let gdpa = inst.fns.fp_v1_0().get_device_proc_addr;
    // SAFETY: the device the ICD just created, with the application's allocator.
    if let Err(r) = unsafe { check_new_device(gdpa, device, p_allocator) } {
        return r;
    }
    // SAFETY: a live host device.
    let fns = unsafe { ash::Device::load(inst.fns.fp_v1_0(), device) };
    let wants_sync =
        [sync_fd::SEMAPHORE_FD_NAME, sync_fd::FENCE_FD_NAME].map(|n| names.contains(&n));
    if !emulate_sync && (wants_sync[0] || wants_sync[1]) {
        // SAFETY: `pQueueCreateInfos` holds `queueCreateInfoCount` structures.
        let family = unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) }
            .first()
            .map_or(0, |q| q.queue_family_index);
        // SAFETY: the new device, unknown to the application yet; queue 0 of a family it was
        // created with.
        let works = unsafe {
            let queue = fns.get_device_queue(family, 0);
            sync_fd::host_sync_fd_works(&fns, gdpa, device, queue, wants_sync[0], wants_sync[1])
        };
        if !works {
            log::info!("the host's SYNC_FD does not work on this device: emulated");
            // SAFETY: the device was never handed out; the probe waited for its work.
            unsafe { fns.destroy_device(p_allocator.as_ref()) };
            // SAFETY: forwarded.
            return unsafe {
                create_host_device(physical_device, p_create_info, p_allocator, p_device, true)
            };
        }
    }
    let load = |name: &CStr| {
        // SAFETY: the host's vkGetDeviceProcAddr; the result (maybe null) is what ash expects.
        unsafe {
            std::mem::transmute::<vk::PFN_vkVoidFunction, *const c_void>(gdpa(
                device,
                name.as_ptr(),
            ))
        }
    };
    let anb = (wants_anb || wants_ahb || emulate_sync).then(|| {
        let mut host_props = vk::PhysicalDeviceExternalMemoryHostPropertiesEXT::default();
        let mut props2 = vk::PhysicalDeviceProperties2::default().push_next(&mut host_props);
        // SAFETY: core 1.1 query with valid structures.
        unsafe {
            (inst.fns.fp_v1_1().get_physical_device_properties2)(physical_device, &mut props2)
        };
        let import_alignment = host_props.min_imported_host_pointer_alignment.max(1);
        // SAFETY: `pQueueCreateInfos` holds `queueCreateInfoCount` structures.
        let family = unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) }
            .first()
            .map_or(0, |q| q.queue_family_index);
        // SAFETY: queue 0 of a family the device was created with.
        let queue = unsafe { fns.get_device_queue(family, 0) };
        AnbDevice {
            memory_host: ash::ext::external_memory_host::DeviceFn::load(load),
            fence_fd: sync_fd.then(|| ash::khr::external_fence_fd::DeviceFn::load(load)),
            import_alignment,
            internal_queue: Mutex::new(queue),
            images: Mutex::new(HashMap::new()),
            fences: Arc::new(Mutex::new(Vec::new())),
            worker: Mutex::new(None),
        }
    });
    let internal_queue = anb.as_ref().map(|a| *lock(&a.internal_queue));
    let ahb = match (&anb, wants_ahb) {
        // SAFETY: a live device with VK_EXT_external_memory_host enabled.
        (Some(a), true) => Some(unsafe { hardware_buffer::AhbDevice::new(&fns, a, device) }),
        _ => None,
    };
    let sync = if emulate_sync {
        sync_fd::SyncEmulation::new(&fns, load)
    } else {
        None
    };
    let state = Arc::new(HostDevice {
        handle: device,
        fns,
        gdpa,
        instance: inst.clone(),
        physical: physical_device,
        anb,
        ahb,
        sync,
    });
    sync_fd::note_host_submit(&state);
    copy_backed::note_host_barriers(&state);
    {
        let mut reg = registry_mut();
        reg.devices
            .insert(vk::Handle::as_raw(device), state.clone());
        if let Some(q) = internal_queue {
            reg.queues.insert(vk::Handle::as_raw(q), state);
        }
    }
    // SAFETY: valid output pointer.
    unsafe { *p_device = device };
    vk::Result::SUCCESS
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
) -> Result<(), vk::Result> {
    if vk::Handle::as_raw(device) == 0 {
        log::warn!("vkCreateDevice succeeded with a null handle; refused");
        return Err(vk::Result::ERROR_INITIALIZATION_FAILED);
    }
    // SAFETY: lookups through the ICD with its live device.
    let lookup = |name: &CStr| unsafe { gdpa(device, name.as_ptr()) }.is_some();
    let Some(missing) = first_missing(DEVICE_COMMANDS, lookup) else {
        return Ok(());
    };
    log::warn!(
        "the host device has no {}; refused",
        missing.to_string_lossy()
    );
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
    Err(vk::Result::ERROR_INITIALIZATION_FAILED)
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
        return vk::Result::ERROR_DEVICE_LOST;
    };
    // SAFETY: forwarded with the application's valid arguments.
    let r = unsafe { (dev.fns.fp_v1_0().reset_fences)(device, count, p_fences) };
    if r == vk::Result::SUCCESS {
        // SAFETY: `count` fences per the command's contract.
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
