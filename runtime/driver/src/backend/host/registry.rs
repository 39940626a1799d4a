//! Bookkeeping: the host instances and devices the driver created, found again from the
//! handles the application passes.

use std::collections::HashMap;

use rustc_hash::FxHashMap;
use std::ffi::CStr;
use std::ptr::{self};
use std::sync::{Arc, LazyLock, Mutex, MutexGuard, PoisonError, RwLock};

use vkgen_generated::vk;

use crate::util::cstr_from_array;

use super::hardware_buffer::state::AhbDevice;
use super::icd::*;
use super::mapping::HostMapping;
use super::release::Worker;
use super::sync_fd::state::SyncEmulation;

/// The host device behind `$device`; for a handle this driver never made (or already
/// destroyed), `return`s `$err`, the command's failure result, logged where it is made.
macro_rules! device_or {
    ($device:expr, $err:expr) => {
        match device_of($device) {
            Some(dev) => dev,
            None => {
                return vkgen_abi::vk_error!(
                    $err,
                    "{:?} is no live device of the host driver",
                    $device
                )
            }
        }
    };
}

/// The host instance of `$physical_device`, as [`device_or`] for devices.
macro_rules! instance_or {
    ($physical_device:expr, $err:expr) => {
        match instance_of($physical_device) {
            Some(inst) => inst,
            None => {
                return vkgen_abi::vk_error!(
                    $err,
                    "{:?} is no physical device of a host instance",
                    $physical_device
                )
            }
        }
    };
}

// ---------------------------------------------------------------------------------------------
// Bookkeeping

pub(super) struct HostInstance {
    pub(super) fns: ash::Instance,
    /// The ICD's answers while `fns` was loaded.
    pub(super) answers: Answers,
    /// The [`HostDriver`] slot (so the ICD) the instance belongs to.
    pub(super) slot: usize,
}

/// State of a device with `VK_ANDROID_native_buffer` enabled.
pub(super) struct AnbDevice {
    pub(super) memory_host: ash::ext::external_memory_host::DeviceFn,
    pub(super) fence_fd: Option<ash::khr::external_fence_fd::DeviceFn>,
    pub(super) import_alignment: u64,
    /// The queue `vkAcquireImageANDROID` signals on, with the lock serialising our use of it.
    pub(super) internal_queue: Mutex<vk::Queue>,
    pub(super) images: Mutex<HashMap<u64, AnbImage>>,
    pub(super) fences: Arc<Mutex<Vec<vk::Fence>>>,
    pub(super) worker: Mutex<Option<Worker>>,
}

pub(super) struct HostDevice {
    pub(super) handle: vk::Device,
    pub(super) fns: ash::Device,
    /// The ICD's answers while `fns` was loaded.
    pub(super) answers: Answers,
    pub(super) gdpa: vk::PFN_vkGetDeviceProcAddr,
    pub(super) instance: Arc<HostInstance>,
    pub(super) physical: vk::PhysicalDevice,
    /// Host-memory import and native-fence state: devices with `VK_ANDROID_native_buffer` or
    /// `VK_ANDROID_external_memory_android_hardware_buffer`.
    pub(super) anb: Option<AnbDevice>,
    /// Devices with `VK_ANDROID_external_memory_android_hardware_buffer`.
    pub(super) ahb: Option<AhbDevice>,
    /// Devices with a `SYNC_FD` extension the host lacks.
    pub(super) sync: Option<SyncEmulation>,
}

impl HostDevice {
    /// The ICD's `vkGetDeviceProcAddr(name)` for this device: as recorded while its table was
    /// loaded ([`Answers`]), else asked now.
    pub(super) fn proc_addr(&self, name: &CStr) -> vk::PFN_vkVoidFunction {
        match self.answers.get_name(name) {
            Some(f) => f,
            // SAFETY: the host's vkGetDeviceProcAddr with its own live device and a C string.
            None => unsafe { (self.gdpa)(self.handle, name.as_ptr()) },
        }
    }
}

pub(super) enum AnbImage {
    /// Created for a swapchain; the buffer arrives with `vkBindImageMemory2`.
    Pending,
    Bound {
        memory: vk::DeviceMemory,
        _mapping: HostMapping,
    },
}

#[derive(Default)]
pub(super) struct Registry {
    pub(super) instances: FxHashMap<u64, Arc<HostInstance>>,
    pub(super) physical: FxHashMap<u64, Arc<HostInstance>>,
    pub(super) devices: FxHashMap<u64, Arc<HostDevice>>,
    pub(super) queues: FxHashMap<u64, Arc<HostDevice>>,
}

pub(super) static REGISTRY: LazyLock<RwLock<Registry>> = LazyLock::new(RwLock::default);

pub(super) fn registry() -> std::sync::RwLockReadGuard<'static, Registry> {
    REGISTRY.read().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn registry_mut() -> std::sync::RwLockWriteGuard<'static, Registry> {
    REGISTRY.write().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn lock<T>(m: &Mutex<T>) -> MutexGuard<'_, T> {
    m.lock().unwrap_or_else(PoisonError::into_inner)
}

pub(super) fn instance_of(pd: vk::PhysicalDevice) -> Option<Arc<HostInstance>> {
    let raw = vk::Handle::as_raw(pd);
    if let Some(i) = registry().physical.get(&raw) {
        return Some(i.clone());
    }
    // Not seen yet (enumeration is not intercepted): ask every live instance.
    let instances: Vec<Arc<HostInstance>> = registry().instances.values().cloned().collect();
    let mut reg_updates = Vec::new();
    for inst in instances {
        let f = inst.fns.fp_v1_0().enumerate_physical_devices;
        let handle = inst.fns.handle();
        // SAFETY: a live host instance (whose command was checked at creation); the ICD's
        // count is not trusted.
        if let Some(pds) = bounded_enumerate(|n, p| unsafe { f(handle, n, p) }) {
            for p in pds {
                reg_updates.push((vk::Handle::as_raw(p), inst.clone()));
            }
        }
    }
    let mut reg = registry_mut();
    reg.physical.extend(reg_updates);
    reg.physical.get(&raw).cloned()
}

pub(super) fn device_of(device: vk::Device) -> Option<Arc<HostDevice>> {
    registry().devices.get(&vk::Handle::as_raw(device)).cloned()
}

pub(super) fn device_of_queue(queue: vk::Queue) -> Option<Arc<HostDevice>> {
    registry().queues.get(&vk::Handle::as_raw(queue)).cloned()
}

/// Slice of a possibly null `(pointer, count)` pair.
///
/// # Safety
/// A non-null `p` must be valid for `n` reads.
pub(super) unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: `p` is non-null here and valid for `n` reads (this function's contract).
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// The host's device extensions of `pd`.
///
/// # Safety
/// `pd` belongs to `inst`.
pub(super) unsafe fn device_extensions(
    inst: &HostInstance,
    pd: vk::PhysicalDevice,
) -> Vec<vk::ExtensionProperties> {
    let f = inst.fns.fp_v1_0().enumerate_device_extension_properties;
    // SAFETY: `pd` belongs to `inst` (this function's contract), so the instance's own query takes
    // it; `bounded_enumerate` does not trust the ICD's count.
    bounded_enumerate(|n, p| unsafe { f(pd, ptr::null(), n, p) }).unwrap_or_default()
}

pub(super) fn has_extension(list: &[vk::ExtensionProperties], name: &CStr) -> bool {
    list.iter()
        .any(|e| cstr_from_array(&e.extension_name) == name.to_bytes())
}

/// Makes the queue the host wrote to `p_queue` (if any) one of `dev`'s, so that submissions
/// to it find their device.
///
/// # Safety
/// `p_queue` is null or valid for a read.
pub(super) unsafe fn note_queue(dev: Arc<HostDevice>, p_queue: *const vk::Queue) {
    // SAFETY: null or valid for a read (the caller's promise); `as_ref` skips null.
    if let Some(&q) = unsafe { p_queue.as_ref() } {
        if q != vk::Queue::null() {
            registry_mut().queues.insert(vk::Handle::as_raw(q), dev);
        }
    }
}
