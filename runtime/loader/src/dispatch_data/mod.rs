//! The loader's per-instance and per-device data, and word 0 of dispatchable objects.
//!
//! **Layout.** Every dispatchable object the application sees has, in its first pointer-sized
//! word, the address of the loader data of its parent:
//! * `VkInstance` and `VkPhysicalDevice` → [`InstanceData`];
//! * `VkDevice`, `VkQueue` and `VkCommandBuffer` → [`DeviceData`].
//!
//! Both are `#[repr(C)]` with the generated dispatch table as their **first field**, which is
//! what the generated trampolines read (`**(handle as *const *const Table)`), and what layers
//! use as their dispatch key (all objects of one instance, or one device, share the pointer).
//! The table is filled from the head of the layer chain once the chain has created the object;
//! the rest of each struct holds the api level's data ([`ApiInstance`], [`ApiDevice`], set once)
//! and the terminator's ([`TermInstance`], [`TermDevice`], defined in [`term`] so that every
//! level reading them sits above this module).
//!
//! **Who writes word 0.** Drivers create their dispatchable objects with the magic
//! `0x01CDC0DE` (`ICD_LOADER_MAGIC` = `HWVULKAN_DISPATCH_MAGIC`) in word 0. The terminator
//! overwrites it ([`install`]) for the driver's instance (when it is handed up unwrapped),
//! physical devices, device, queues and command buffers; layers that create dispatchable objects
//! of their own call [`set_instance_loader_data`] / [`set_device_loader_data`]. A word that holds
//! neither the magic nor already the same pointer is never overwritten: the call fails with
//! `VK_ERROR_INITIALIZATION_FAILED` and a log line.
//!
//! **Lifetime.** The terminator allocates the data when the driver object is created and frees
//! it when the driver object is destroyed. The records are placed in the application's
//! `VkAllocationCallbacks` as AOSP's `AllocateInstanceData`/`AllocateDeviceData` place them
//! ([`crate::host_alloc`]: INSTANCE and DEVICE scope, the instance's allocator for a device
//! created without one, the default allocator without any); the callbacks also reach layers and
//! drivers untouched. Live instance and device data are registered
//! ([`is_live_instance`], [`is_live_device`]) so creation, destruction and the loader-data
//! callbacks can reject a handle that is not one of ours instead of following a stray pointer.

use std::cell::UnsafeCell;
use std::collections::BTreeSet;
use std::ffi::c_void;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Arc, Mutex, OnceLock};

use vkgen_abi::vk_error;

use crate::extensions::ExtensionSet;
use crate::ffi::guard;
use crate::host_alloc::{HostAllocator, HostVec};
use crate::layers::Layer;
use vkgen_generated::dispatch::{DeviceDispatchTable, InstanceDispatchTable};
use vkgen_generated::vk;

pub mod term;

pub use term::{DriverInstance, PhysicalDeviceWrapper, TermDevice, TermInstance};

/// The magic drivers put in word 0 of every dispatchable object they create.
pub const LOADER_MAGIC: usize = vkgen_abi::icd::ICD_LOADER_MAGIC;
const _: () = assert!(LOADER_MAGIC == vkgen_abi::hal::HWVULKAN_DISPATCH_MAGIC);

/// Loader data of one instance (and of its physical devices).
#[repr(C)]
pub struct InstanceData {
    /// The dispatch table the trampolines use: filled from the head of the instance's layer
    /// chain. Must stay the first field (`UnsafeCell` is `repr(transparent)`): it is written once,
    /// by the thread creating the instance, before the application gets the handle.
    pub dispatch: UnsafeCell<InstanceDispatchTable>,
    /// What the api level knows (set once the chain has created the instance).
    pub api: OnceLock<ApiInstance>,
    /// What the terminator knows.
    pub term: TermInstance,
    /// The allocator the data was created with (scope INSTANCE): `vkDestroyInstance` frees
    /// with it when given no `pAllocator`, and devices created without one use it (AOSP's
    /// `InstanceData::allocator`).
    pub allocator: HostAllocator,
}

const _: () = assert!(std::mem::offset_of!(InstanceData, dispatch) == 0);
const _: () = assert!(std::mem::offset_of!(DeviceData, dispatch) == 0);

impl InstanceData {
    /// The api-level dispatch table.
    pub fn dispatch(&self) -> &InstanceDispatchTable {
        // SAFETY: the table is only written by `set_dispatch`, before the handle is published
        // to the application; afterwards it is read-only.
        unsafe { &*self.dispatch.get() }
    }

    /// Installs the api-level dispatch table.
    ///
    /// # Safety
    /// Only while creating the instance, before any other thread can reach this data and while
    /// no reference from [`InstanceData::dispatch`] is alive.
    pub(crate) unsafe fn set_dispatch(&self, table: InstanceDispatchTable) {
        // SAFETY: the caller is creating this instance, so no other thread holds the handle yet and
        // no `dispatch()` reference is alive: this write is the cell's only access.
        unsafe { *self.dispatch.get() = table };
    }
}

impl DeviceData {
    /// The api-level dispatch table.
    pub fn dispatch(&self) -> &DeviceDispatchTable {
        // SAFETY: written only by `set_dispatch` before publication, read-only afterwards.
        unsafe { &*self.dispatch.get() }
    }

    /// Installs the api-level dispatch table.
    ///
    /// # Safety
    /// As [`InstanceData::set_dispatch`], while creating the device.
    pub(crate) unsafe fn set_dispatch(&self, table: DeviceDispatchTable) {
        // SAFETY: the caller is creating this device, so no other thread holds the handle yet and
        // no `dispatch()` reference is alive: this write is the cell's only access.
        unsafe { *self.dispatch.get() = table };
    }

    /// The parent instance's data.
    pub fn instance(&self) -> &InstanceData {
        // SAFETY: a device's instance outlives it (destroying an instance with live devices is
        // invalid usage).
        unsafe { &*self.instance }
    }
}

/// The api level's part of [`InstanceData`].
pub struct ApiInstance {
    /// The handle the application got (from the head of the chain).
    pub handle: vk::Instance,
    /// `vkGetInstanceProcAddr` of the head of the chain.
    pub head_gipa: vk::PFN_vkGetInstanceProcAddr,
    /// The active layers, index 0 nearest the application (in the instance's allocator, scope
    /// INSTANCE, as AOSP's `LayerChain` layer array).
    pub layers: HostVec<Arc<Layer>, HostAllocator>,
    /// The application's `apiVersion` (1.0 when it gave none).
    pub api_version: u32,
    /// The instance extensions the application enabled.
    pub enabled_extensions: ExtensionSet,
    /// The loader's own `VK_EXT_debug_report` callback logging ERROR and WARNING messages
    /// (`debug.vulkan.enable_callback` on a debuggable build); destroyed with the instance.
    pub logging_callback: Option<vk::DebugReportCallbackEXT>,
}

/// Loader data of one device (and of its queues and command buffers).
#[repr(C)]
pub struct DeviceData {
    /// The dispatch table the trampolines use: filled from the head of the device's layer
    /// chain. Must stay the first field; written once, before the application gets the handle.
    pub dispatch: UnsafeCell<DeviceDispatchTable>,
    /// What the api level knows (set once the chain has created the device).
    pub api: OnceLock<ApiDevice>,
    /// What the terminator knows.
    pub term: TermDevice,
    /// Every answer `vkGetDeviceProcAddr` gave for a registry command, remembered as asked
    /// (here, not in [`ApiDevice`], so that its 6 KB are written once in place instead of
    /// copied with the api level's data).
    pub later: crate::device_table::LaterAnswers,
    /// The parent instance's loader data.
    pub instance: *const InstanceData,
    /// The allocator the data was created with (scope DEVICE), for `vkDestroyDevice` without a
    /// `pAllocator` (AOSP's `DeviceData::allocator`).
    pub allocator: HostAllocator,
}

/// The api level's part of [`DeviceData`].
pub struct ApiDevice {
    /// The handle the application got.
    pub handle: vk::Device,
    /// `vkGetDeviceProcAddr` of the head of the device chain.
    pub head_gdpa: vk::PFN_vkGetDeviceProcAddr,
    /// The layers in the device chain (the instance's global layers), in the device's
    /// allocator (scope DEVICE).
    pub layers: HostVec<Arc<Layer>, HostAllocator>,
    /// The device's effective API version: the lower of the instance's `apiVersion` and the
    /// physical device's.
    pub api_version: u32,
    /// The device extensions the application enabled.
    pub enabled_extensions: ExtensionSet,
    /// The instance extensions of the parent instance.
    pub instance_extensions: ExtensionSet,
    /// Which names the table asked the chain for, and which it got
    /// ([`crate::device_table`]): `vkGetDeviceProcAddr` answers those from the table.
    pub answers: crate::device_table::TableAnswers,
}

static LIVE_INSTANCES: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());
static LIVE_DEVICES: Mutex<BTreeSet<usize>> = Mutex::new(BTreeSet::new());

fn live(set: &Mutex<BTreeSet<usize>>) -> std::sync::MutexGuard<'_, BTreeSet<usize>> {
    // A panic while holding the lock cannot leave the set inconsistent (single insert/remove).
    set.lock().unwrap_or_else(|p| p.into_inner())
}

/// Records `data` as a live instance.
pub(crate) fn register_instance(data: *const InstanceData) {
    live(&LIVE_INSTANCES).insert(data as usize);
}

/// Forgets `data`; returns whether it was live.
pub(crate) fn unregister_instance(data: *const InstanceData) -> bool {
    live(&LIVE_INSTANCES).remove(&(data as usize))
}

/// Whether `data` is the data of a live instance.
pub fn is_live_instance(data: *const InstanceData) -> bool {
    live(&LIVE_INSTANCES).contains(&(data as usize))
}

/// Records `data` as a live device.
pub(crate) fn register_device(data: *const DeviceData) {
    live(&LIVE_DEVICES).insert(data as usize);
}

/// Forgets `data`; returns whether it was live.
pub(crate) fn unregister_device(data: *const DeviceData) -> bool {
    live(&LIVE_DEVICES).remove(&(data as usize))
}

/// Whether `data` is the data of a live device.
pub fn is_live_device(data: *const DeviceData) -> bool {
    live(&LIVE_DEVICES).contains(&(data as usize))
}

/// Word 0 of a dispatchable object, as an atomic (drivers, layers and other application
/// threads may touch other objects concurrently; the word itself is only ever written with
/// compare-and-swap).
///
/// # Safety
/// `object` must be non-null and point at a live dispatchable object (pointer-aligned, first
/// word readable and writable) for `'a`.
unsafe fn word0<'a>(object: usize) -> &'a AtomicUsize {
    // SAFETY: the caller guarantees `object` is a live dispatchable object, whose first word is
    // pointer-aligned and readable and writable; every loader access to it is atomic.
    unsafe { AtomicUsize::from_ptr(object as *mut usize) }
}

/// Reads word 0 of a dispatchable handle (0 for a null handle).
///
/// # Safety
/// `object` must be null or a live dispatchable object.
pub unsafe fn loader_word(object: usize) -> usize {
    if object == 0 {
        return 0;
    }
    // SAFETY: `object` is non-zero (checked above) and the caller guarantees it is live.
    unsafe { word0(object) }.load(Ordering::Acquire)
}

/// Stamps `data` into word 0 of the dispatchable object `object` (`what` names it for the log):
/// accepted when the word holds the driver magic or already `data`.
///
/// # Safety
/// `object` must be null or a live dispatchable object.
pub unsafe fn install(object: usize, data: usize, what: &str) -> Result<(), vk::Result> {
    if object == 0 {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{what}: null dispatchable handle; cannot store the loader's data"
        ));
    }
    // SAFETY: `object` is non-zero (checked above) and the caller guarantees it is live.
    let word = unsafe { word0(object) };
    let current = word.load(Ordering::Acquire);
    if current == data {
        return Ok(());
    }
    if current & 0xffff_ffff != LOADER_MAGIC {
        return Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{what} {object:#x}: invalid dispatchable object magic {current:#x} (expected \
             {LOADER_MAGIC:#x} or the loader's data); the driver or layer does not leave word 0 \
             to the loader"
        ));
    }
    match word.compare_exchange(current, data, Ordering::AcqRel, Ordering::Acquire) {
        Ok(_) => Ok(()),
        Err(now) if now == data => Ok(()),
        Err(now) => Err(vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "{what} {object:#x}: word 0 changed concurrently to {now:#x}"
        )),
    }
}

/// The instance data word 0 of `object` points at, without checking that it is live (the hot
/// paths trust the application's handles, as the spec allows).
///
/// # Safety
/// `object` must be null or a live `VkInstance`/`VkPhysicalDevice` of this loader; the
/// reference must not outlive the instance.
pub unsafe fn instance_data<'a>(object: usize) -> Option<&'a InstanceData> {
    // SAFETY: the caller guarantees `object` is null or a live dispatchable object of this loader,
    // which is what `loader_word` reads.
    let data = unsafe { loader_word(object) } as *const InstanceData;
    // SAFETY: a live instance's word 0 points at its live InstanceData.
    unsafe { data.as_ref() }
}

/// Like [`instance_data`], but only for registered live instance data: a handle whose word 0 is
/// not ours gives `None` (and a log line naming `what`).
///
/// # Safety
/// `object` must be null or a live dispatchable object; the reference must not outlive the
/// instance.
pub unsafe fn checked_instance_data<'a>(object: usize, what: &str) -> Option<&'a InstanceData> {
    // SAFETY: the caller guarantees `object` is null or a live dispatchable object, which is what
    // `loader_word` reads; what word 0 holds is checked against the registry below.
    let data = unsafe { loader_word(object) } as *const InstanceData;
    if data.is_null() || !is_live_instance(data) {
        log::error!("{what}: {object:#x} is not an instance (or physical device) of this loader");
        return None;
    }
    // SAFETY: registered data stays allocated until unregistered.
    Some(unsafe { &*data })
}

/// The device data word 0 of `object` points at (unchecked, see [`instance_data`]).
///
/// # Safety
/// `object` must be null or a live `VkDevice`/`VkQueue`/`VkCommandBuffer` of this loader; the
/// reference must not outlive the device.
pub unsafe fn device_data<'a>(object: usize) -> Option<&'a DeviceData> {
    // SAFETY: the caller guarantees `object` is null or a live dispatchable object of this loader,
    // which is what `loader_word` reads.
    let data = unsafe { loader_word(object) } as *const DeviceData;
    // SAFETY: a live device's word 0 points at its live DeviceData.
    unsafe { data.as_ref() }
}

/// Like [`device_data`], but only for registered live device data.
///
/// # Safety
/// As [`checked_instance_data`].
pub unsafe fn checked_device_data<'a>(object: usize, what: &str) -> Option<&'a DeviceData> {
    // SAFETY: the caller guarantees `object` is null or a live dispatchable object, which is what
    // `loader_word` reads; what word 0 holds is checked against the registry below.
    let data = unsafe { loader_word(object) } as *const DeviceData;
    if data.is_null() || !is_live_device(data) {
        log::error!(
            "{what}: {object:#x} is not a device (or queue, command buffer) of this loader"
        );
        return None;
    }
    // SAFETY: registered data stays allocated until unregistered.
    Some(unsafe { &*data })
}

/// `vkSetInstanceLoaderData`: stamps the instance's loader data (found through `instance`)
/// into `object`, a dispatchable object a layer created.
///
/// # Safety
/// Called by layers with a handle of a live instance (or physical device) of this loader and a
/// dispatchable object whose word 0 is the driver magic.
pub unsafe extern "system" fn set_instance_loader_data(
    instance: vk::Instance,
    object: *mut c_void,
) -> vk::Result {
    guard(
        "vkSetInstanceLoaderData",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let handle = vk::Handle::as_raw(instance) as usize;
            // SAFETY: layers pass a handle of this loader's instance (validated below).
            let Some(data) = (unsafe { checked_instance_data(handle, "vkSetInstanceLoaderData") })
            else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkSetInstanceLoaderData: not an instance of this loader"
                );
            };
            // SAFETY: the layer passes one of its live dispatchable objects.
            match unsafe { install(object as usize, data as *const _ as usize, "layer object") } {
                Ok(()) => vk::Result::SUCCESS,
                Err(e) => e,
            }
        },
    )
}

/// `vkSetDeviceLoaderData`: the device-level counterpart of [`set_instance_loader_data`].
///
/// # Safety
/// As [`set_instance_loader_data`], with a device handle.
pub unsafe extern "system" fn set_device_loader_data(
    device: vk::Device,
    object: *mut c_void,
) -> vk::Result {
    guard(
        "vkSetDeviceLoaderData",
        vk::Result::ERROR_INITIALIZATION_FAILED,
        || {
            let handle = vk::Handle::as_raw(device) as usize;
            // SAFETY: layers pass a handle of this loader's device (validated below).
            let Some(data) = (unsafe { checked_device_data(handle, "vkSetDeviceLoaderData") })
            else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkSetDeviceLoaderData: not a device of this loader"
                );
            };
            // SAFETY: the layer passes one of its live dispatchable objects.
            match unsafe { install(object as usize, data as *const _ as usize, "layer object") } {
                Ok(()) => vk::Result::SUCCESS,
                Err(e) => e,
            }
        },
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn install_accepts_magic_and_same_data_only() {
        let mut object = [LOADER_MAGIC, 0usize];
        let addr = object.as_mut_ptr() as usize;
        // SAFETY: `object` is a live, aligned two-word "dispatchable object".
        unsafe {
            assert_eq!(install(addr, 0x1000, "test"), Ok(()));
            assert_eq!(loader_word(addr), 0x1000);
            // Already ours: fine.
            assert_eq!(install(addr, 0x1000, "test"), Ok(()));
            // Someone else's data: refused, word untouched.
            assert_eq!(
                install(addr, 0x2000, "test"),
                Err(vk::Result::ERROR_INITIALIZATION_FAILED)
            );
            assert_eq!(loader_word(addr), 0x1000);
            assert_eq!(
                install(0, 0x1000, "test"),
                Err(vk::Result::ERROR_INITIALIZATION_FAILED)
            );
        }
        // A driver that stores the magic in the low half of a 64-bit word with junk above.
        let mut object = [(0xABCD_usize << 32) | LOADER_MAGIC];
        // SAFETY: `object` is a live, aligned one-word array standing in for a dispatchable object.
        unsafe {
            assert_eq!(install(object.as_mut_ptr() as usize, 8, "test"), Ok(()));
        }
        let mut bad = [0x1234usize];
        // SAFETY: `bad` is a live, aligned one-word array standing in for a dispatchable object.
        unsafe {
            assert!(install(bad.as_mut_ptr() as usize, 8, "test").is_err());
        }
        assert_eq!(bad[0], 0x1234);
    }

    #[test]
    fn loader_data_callbacks_reject_foreign_handles() {
        let mut instance_like = [0x5555usize];
        let mut object = [LOADER_MAGIC];
        let instance = vk::Handle::from_raw(instance_like.as_mut_ptr() as u64);
        // SAFETY: both "objects" are live words; the instance's word 0 is not live data.
        let r = unsafe { set_instance_loader_data(instance, object.as_mut_ptr().cast()) };
        assert_eq!(r, vk::Result::ERROR_INITIALIZATION_FAILED);
        assert_eq!(object[0], LOADER_MAGIC);
        let device = vk::Handle::from_raw(instance_like.as_mut_ptr() as u64);
        // SAFETY: `instance_like` and `object` are live words; the handle's word 0 is not live
        // data.
        let r = unsafe { set_device_loader_data(device, object.as_mut_ptr().cast()) };
        assert_eq!(r, vk::Result::ERROR_INITIALIZATION_FAILED);
    }
}
