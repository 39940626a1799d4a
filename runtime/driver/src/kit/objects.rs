//! The kit's base objects. Each is the `value` of a [`Dispatchable`] (loader slot in word 0,
//! type signature in word 1, checked on every handle lookup) and carries the vendor's data in
//! `data`. Parents outlive children by the API's rules (an instance outlives its physical
//! devices and devices, a device its queues), so children keep plain back-pointers.
//!
//! Physical devices and queues are created with their parent and stored in it (Mesa's
//! `vk_physical_device` list and `vk_device::queues`), so their handles are stable addresses
//! inside the parent's allocation and die with it.

use std::ffi::{CStr, CString};
use std::ptr::NonNull;
use std::sync::OnceLock;

use vkgen_generated::vk;

use super::debug::Callbacks;
use super::extensions::ExtensionSet;
use super::tables::{Features, Properties};
use super::types::KitTypes;
use crate::handles::{Dispatchable, HostAllocator, ObjectKind};

/// What `vkCreateInstance` asked for, validated.
#[derive(Debug, Clone)]
pub struct InstanceInfo {
    /// `VkApplicationInfo::apiVersion`, 1.0 when absent or zero.
    pub api_version: u32,
    pub application_name: Option<CString>,
    pub application_version: u32,
    pub engine_name: Option<CString>,
    pub engine_version: u32,
    pub enabled_extensions: ExtensionSet,
}

/// What `vkCreateDevice` asked for, validated.
#[derive(Debug, Clone)]
pub struct DeviceInfo {
    pub enabled_extensions: ExtensionSet,
    /// The union of `pEnabledFeatures` and every feature structure of the create info's chain.
    pub enabled_features: Features,
    /// `(family, count, flags)` per `VkDeviceQueueCreateInfo`.
    pub queues: Vec<(u32, u32, vk::DeviceQueueCreateFlags)>,
    /// The version the device runs at: `min(instance apiVersion, device apiVersion)`.
    pub api_version: u32,
}

/// `VkInstance`.
pub struct Instance<D: KitTypes> {
    pub info: InstanceInfo,
    pub enabled_extensions: ExtensionSet,
    pub allocator: HostAllocator,
    /// `VK_EXT_debug_report` callbacks and `VK_EXT_debug_utils` messengers.
    pub debug: Callbacks,
    pub(super) physical: OnceLock<Vec<Dispatchable<PhysicalDevice<D>>>>,
    pub data: D::Instance,
}

/// `VkPhysicalDevice`.
pub struct PhysicalDevice<D: KitTypes> {
    pub(super) instance: NonNull<Dispatchable<Instance<D>>>,
    pub properties: Properties,
    pub features: Features,
    pub queue_families: Vec<vk::QueueFamilyProperties>,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    /// Bytes the process has allocated per memory heap ([`super::resources`]): what
    /// `VK_EXT_memory_budget` reports as usage, and what a new allocation must fit beside.
    pub heaps: super::resources::desc::HeapUsage,
    pub extensions: ExtensionSet,
    /// The description's declared formats ([`super::PhysicalDeviceDesc::formats`]).
    pub formats: super::format::FormatSupport,
    pub data: D::PhysicalDevice,
}

/// `VkDevice`.
pub struct Device<D: KitTypes> {
    pub(super) physical: NonNull<Dispatchable<PhysicalDevice<D>>>,
    pub info: DeviceInfo,
    pub enabled_extensions: ExtensionSet,
    pub enabled_features: Features,
    pub allocator: HostAllocator,
    pub(super) queues: OnceLock<Vec<Dispatchable<Queue<D>>>>,
    pub data: D::Device,
}

/// `VkQueue`.
pub struct Queue<D: KitTypes> {
    pub(super) device: NonNull<Dispatchable<Device<D>>>,
    pub family: u32,
    pub index: u32,
    pub flags: vk::DeviceQueueCreateFlags,
    /// The kit's queue core (submissions held until their waits resolve, the submit thread).
    /// Before `data`: dropping it stops the thread, which may still be using `data`.
    pub core: super::queue::batch::QueueCore,
    pub data: D::Queue,
}

// SAFETY: the back-pointers point at parents that outlive the child (API lifetime rules) and
// are only read; everything else is `Send + Sync` by the `KitTypes` bounds.
unsafe impl<D: KitTypes> Send for PhysicalDevice<D> {}
// SAFETY: the back-pointers are only read, and the parents they point at outlive the child;
// everything else is `Sync` by the `KitTypes` bounds.
unsafe impl<D: KitTypes> Sync for PhysicalDevice<D> {}
// SAFETY: a device's back-pointer (to its physical device) is only read and the parent outlives it;
// its other fields are `Send` by the `KitTypes` bounds.
unsafe impl<D: KitTypes> Send for Device<D> {}
// SAFETY: a device's back-pointer is only read and the parent outlives it; its other fields are
// `Sync` by the `KitTypes` bounds.
unsafe impl<D: KitTypes> Sync for Device<D> {}
// SAFETY: a queue's back-pointer (to its device) is only read and the device outlives it; its other
// fields are `Send` by the `KitTypes` bounds.
unsafe impl<D: KitTypes> Send for Queue<D> {}
// SAFETY: a queue's back-pointer is only read and the device outlives it; its other fields are
// `Sync` by the `KitTypes` bounds.
unsafe impl<D: KitTypes> Sync for Queue<D> {}

macro_rules! kinds {
    ($($ty:ident => $obj:ident, $handle:ident;)*) => {$(
        impl<D: KitTypes> ObjectKind for $ty<D> {
            const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::$obj;
        }
        impl<D: KitTypes> $ty<D> {
            /// The object behind `raw`, if it is a live object of this type.
            ///
            /// # Safety
            /// A non-null `raw` is a handle this driver returned that has not been destroyed.
            pub unsafe fn from_raw<'a>(raw: u64) -> Option<&'a Dispatchable<Self>> {
                // SAFETY: a non-null `raw` is a live handle of this driver (this function's
                // contract), and `Dispatchable::from_raw` checks the signature behind it.
                unsafe { Dispatchable::<Self>::from_raw(raw) }
            }

            /// The object behind a typed handle; see `from_raw`.
            ///
            /// # Safety
            /// As for `from_raw`.
            pub unsafe fn from_handle<'a>(h: vk::$handle) -> Option<&'a Dispatchable<Self>> {
                // SAFETY: `h` is null or a live handle of this driver (this function's contract),
                // which is `from_raw`'s contract for its raw value.
                unsafe { Self::from_raw(vk::Handle::as_raw(h)) }
            }
        }
    )*};
}

kinds! {
    Instance => INSTANCE, Instance;
    PhysicalDevice => PHYSICAL_DEVICE, PhysicalDevice;
    Device => DEVICE, Device;
    Queue => QUEUE, Queue;
}

impl<D: KitTypes> Instance<D> {
    /// The physical devices, in enumeration order.
    pub fn physical_devices(&self) -> &[Dispatchable<PhysicalDevice<D>>] {
        self.physical.get().map_or(&[], Vec::as_slice)
    }

    /// Sends `message` to the application's debug callbacks (report and utils).
    pub fn log(
        &self,
        severity: super::debug::Severity,
        object: (vk::ObjectType, u64),
        message: &CStr,
    ) {
        self.debug.emit(severity, object, message);
    }
}

impl<D: KitTypes> PhysicalDevice<D> {
    pub fn instance(&self) -> &Dispatchable<Instance<D>> {
        // SAFETY: the instance owns this physical device, so it is alive while `self` is.
        unsafe { self.instance.as_ref() }
    }

    /// The version the device reports (`VkPhysicalDeviceProperties::apiVersion`).
    pub fn api_version(&self) -> u32 {
        self.properties.properties10().api_version
    }
}

impl<D: KitTypes> Device<D> {
    pub fn physical(&self) -> &Dispatchable<PhysicalDevice<D>> {
        // SAFETY: physical devices live as long as their instance, which outlives its devices.
        unsafe { self.physical.as_ref() }
    }

    pub fn instance(&self) -> &Dispatchable<Instance<D>> {
        self.physical().instance()
    }

    /// The queues, in creation order.
    pub fn queues(&self) -> &[Dispatchable<Queue<D>>] {
        self.queues.get().map_or(&[], Vec::as_slice)
    }

    /// Queue `index` of `family` created with `flags`.
    pub fn queue(
        &self,
        family: u32,
        index: u32,
        flags: vk::DeviceQueueCreateFlags,
    ) -> Option<&Dispatchable<Queue<D>>> {
        self.queues()
            .iter()
            .find(|q| q.family == family && q.index == index && q.flags == flags)
    }
}

impl<D: KitTypes> Queue<D> {
    pub fn device(&self) -> &Dispatchable<Device<D>> {
        // SAFETY: the device owns its queues, so it is alive while `self` is.
        unsafe { self.device.as_ref() }
    }
}
