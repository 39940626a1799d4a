//! Device creation with the spec's checks (queues, extensions and their `depends=`, features),
//! destruction and queue lookup.

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

use std::ffi::CString;
use std::ptr::NonNull;

use vkgen_generated::extensions::ExtensionKind;
use vkgen_generated::vk;

use crate::handles::{create_dispatchable, destroy_dispatchable, Dispatchable, HostAllocator};
use crate::kit::api::Kit;
use crate::kit::debug::Severity;
use crate::kit::extensions::parse_enabled;
use crate::kit::objects::{Device, DeviceInfo, PhysicalDevice, Queue};
use crate::kit::tables::Features;
use crate::util::{guard, slice};

/// [`vkCreateDevice`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkCreateDevice.html)
pub unsafe extern "system" fn create_device<D: Kit>(
    physical_device: vk::PhysicalDevice,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    p_device: *mut vk::Device,
) -> vk::Result {
    guard(
        "vkCreateDevice",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            // SAFETY: `physical_device` is a handle this driver enumerated (vkCreateDevice's valid
            // usage); `from_handle` checks its signature.
            let Some(pd) = (unsafe { PhysicalDevice::<D>::from_handle(physical_device) }) else {
                return vkgen_abi::vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateDevice: {physical_device:?} is no physical device of this driver"
                );
            };
            // SAFETY: the application's vkCreateDevice create info and allocator, unchanged, for
            // `create_device_impl`, whose contract is the command's; `pd` was checked just above.
            match unsafe { create_device_impl::<D>(pd, p_create_info, p_allocator) } {
                Ok(handle) => {
                    // SAFETY: `pDevice` is the application's output pointer, valid for a write
                    // (vkCreateDevice's valid usage).
                    unsafe { *p_device = handle };
                    vk::Result::SUCCESS
                }
                Err(e) => e,
            }
        },
    )
}

unsafe fn create_device_impl<D: Kit>(
    pd: &Dispatchable<PhysicalDevice<D>>,
    p_create_info: *const vk::DeviceCreateInfo<'_>,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<vk::Device, vk::Result> {
    let instance = pd.instance();
    // Every refusal is made here: logged, and told to the application's debug messengers.
    let refuse = |r: vk::Result, why: &str| {
        let msg = CString::new(format!("vkCreateDevice: {why}")).unwrap_or_default();
        instance.log(
            Severity::Error,
            (vk::ObjectType::PHYSICAL_DEVICE, pd.raw_handle()),
            &msg,
        );
        vkgen_abi::vk_error!(r, "vkCreateDevice: {why}")
    };
    // SAFETY: `p_create_info` is the application's pointer, null or valid for this call; null is
    // refused.
    let ci = unsafe { p_create_info.as_ref() }
        .ok_or_else(|| refuse(vk::Result::ERROR_INITIALIZATION_FAILED, "no create info"))?;
    let mut queues = Vec::new();
    // SAFETY: `ci` is the application's create info (checked non-null above), whose
    // `pQueueCreateInfos` holds `queueCreateInfoCount` structures; `slice` takes null as empty.
    for q in unsafe { slice(ci.p_queue_create_infos, ci.queue_create_info_count) } {
        let fam = pd.queue_families.get(q.queue_family_index as usize);
        if q.queue_count == 0 || fam.is_none_or(|f| q.queue_count > f.queue_count) {
            return Err(refuse(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                &format!(
                    "{} queue(s) of family {}: the device has no such queues",
                    q.queue_count, q.queue_family_index
                ),
            ));
        }
        queues.push((q.queue_family_index, q.queue_count, q.flags));
    }
    let api_version = instance.info.api_version.min(pd.api_version());
    // SAFETY: `ppEnabledExtensionNames` holds `enabledExtensionCount` C strings.
    let enabled = unsafe {
        parse_enabled(
            ci.pp_enabled_extension_names,
            ci.enabled_extension_count,
            ExtensionKind::Device,
            &pd.extensions,
            &instance.enabled_extensions,
            api_version,
        )
    }
    .map_err(|e| refuse(e.result(), &e.to_string()))?;
    // SAFETY: `p_create_info` was read just above, so it is non-null and valid with its chain for
    // this call, which is what the feature walk reads.
    let features = unsafe { Features::from_device_create_info(p_create_info) };
    if let Some(missing) = pd.features.first_missing(&features) {
        return Err(refuse(
            vk::Result::ERROR_FEATURE_NOT_PRESENT,
            &format!("feature {missing} is not supported"),
        ));
    }
    let info = DeviceInfo {
        enabled_extensions: enabled,
        enabled_features: features.clone(),
        queues: queues.clone(),
        api_version,
    };
    let data = D::device_data(pd, &info)?;
    let value = Device::<D> {
        physical: NonNull::from(pd),
        info,
        enabled_extensions: enabled,
        enabled_features: features,
        // SAFETY: the application's callbacks or null.
        allocator: unsafe { HostAllocator::from_ptr(p_allocator) },
        queues: Default::default(),
        data,
    };
    // SAFETY: the application's callbacks or null.
    let ptr =
        unsafe { create_dispatchable(value, p_allocator, vk::SystemAllocationScope::DEVICE) }?;
    // SAFETY: just created, not yet shared.
    let dev = unsafe { ptr.as_ref() };
    let mut list = Vec::new();
    for &(family, count, flags) in &queues {
        for index in 0..count {
            match D::queue_data(&dev.data, family, index, flags) {
                Ok(data) => list.push(Dispatchable::new(Queue::<D> {
                    device: ptr,
                    family,
                    index,
                    flags,
                    core: Default::default(),
                    data,
                })),
                Err(e) => {
                    drop(list);
                    // SAFETY: our own fresh object, never handed out.
                    unsafe { destroy_dispatchable::<Device<D>>(dev.raw_handle()) };
                    return Err(e);
                }
            }
        }
    }
    let _ = dev.queues.set(list);
    Ok(dev.handle())
}

/// [`vkDestroyDevice`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyDevice.html)
pub unsafe extern "system" fn destroy_device<D: Kit>(
    device: vk::Device,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyDevice", (), || {
        // SAFETY: null or a live device of this driver; the lookup checks the type.
        if let Some(d) = unsafe { Device::<D>::from_handle(device) } {
            // Submit threads first, while the device and the vendor's data they may use live.
            for q in d.queues() {
                q.core.shutdown();
            }
        }
        // SAFETY: null or a live device the application is done with.
        unsafe { destroy_dispatchable::<Device<D>>(vk::Handle::as_raw(device)) };
    })
}

/// [`vkGetDeviceQueue`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceQueue.html):
/// a queue created without flags, or null.
pub unsafe extern "system" fn get_device_queue<D: Kit>(
    device: vk::Device,
    family: u32,
    index: u32,
    p_queue: *mut vk::Queue,
) {
    let info = vk::DeviceQueueInfo2 {
        queue_family_index: family,
        queue_index: index,
        ..Default::default()
    };
    // SAFETY: `device` and `p_queue` are the application's vkGetDeviceQueue arguments, unchanged;
    // `info` lives on this stack frame for the call.
    unsafe { get_device_queue2::<D>(device, &info, p_queue) }
}

/// [`vkGetDeviceQueue2`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkGetDeviceQueue2.html)
pub unsafe extern "system" fn get_device_queue2<D: Kit>(
    device: vk::Device,
    p_queue_info: *const vk::DeviceQueueInfo2<'_>,
    p_queue: *mut vk::Queue,
) {
    guard("vkGetDeviceQueue2", (), || {
        // SAFETY: `device` is a live device of this driver (vkGetDeviceQueue2's valid usage) and
        // `from_handle` checks its signature; `pQueueInfo` is null or valid for this call.
        let (Some(dev), Some(info)) = (unsafe { Device::<D>::from_handle(device) }, unsafe {
            p_queue_info.as_ref()
        }) else {
            return;
        };
        let q = dev
            .queue(info.queue_family_index, info.queue_index, info.flags)
            .map_or(vk::Queue::null(), |q| q.handle());
        // SAFETY: `pQueue` is the application's output pointer, null or valid for a write.
        if let Some(out) = unsafe { p_queue.as_mut() } {
            *out = q;
        }
    })
}
