//! The driver kit: what every vkgen driver gets without writing it (Mesa's `vk_instance`,
//! `vk_physical_device`, `vk_device`, `vk_queue` and `vk_common_*` fallbacks, in Rust).
//!
//! A vendor describes hardware; the kit answers the API around it:
//!
//! * [`Kit`] is the vendor's trait: the instance version and extensions, the physical devices
//!   (a [`PhysicalDeviceDesc`]: flat [`Features`] and [`Properties`] tables generated from the
//!   registry, queue families, memory types, device extensions), and the vendor data of each
//!   base object. Everything has a default but the object types.
//! * [`objects`] holds the base objects the kit creates and the vendor's data rides in:
//!   [`Instance`], [`PhysicalDevice`], [`Device`], [`Queue`] (loader slot in word 0, allocator,
//!   application info, enabled extensions and features, debug callbacks).
//! * [`common`] implements, once and generically, the commands whose behaviour follows from
//!   those tables: global and instance enumeration, every physical-device query and its `…2`
//!   twin, instance and device creation with the spec's checks (unknown or unsupported extension
//!   → `VK_ERROR_EXTENSION_NOT_PRESENT`, unmet `depends=` likewise, unsupported feature →
//!   `VK_ERROR_FEATURE_NOT_PRESENT`), queues, `VK_EXT_debug_report` and `VK_EXT_debug_utils`.
//! * [`fallback`] is how they reach the get-proc-addr functions: `#[vkgen_driver::driver(kit)]`
//!   makes it the driver's [`Driver::fallback`], so a command answers with, in order, the
//!   vendor's hook, the kit's common implementation (including "one hook per concept" routing:
//!   `vkBindBufferMemory` through the vendor's `vkBindBufferMemory2` and back, the 1.0 queries
//!   through the `…2` ones, and in [`routes`] `vkQueueSubmit`, barriers, events, timestamps,
//!   copies and render-pass commands through their Vulkan 1.3 `…2` forms, and in [`routes_1_4`]
//!   map/unmap, index-buffer, subresource-layout, descriptor-set, push-constant and
//!   push-descriptor commands to and from their Vulkan 1.4 forms), the null driver's object
//!   commands while [`Kit::NULL_OBJECTS`] is on (bring-up), and otherwise nothing — a NULL
//!   proc address, never a stub.
//! * [`null`] is that null driver, a kit driver itself (AOSP `nulldrv`): it lives here, below
//!   the backends, because the kit's bring-up falls back to it; [`crate::backend::null`]
//!   re-exports it as the backend it also is.
//!
//! Why tables and not hooks for queries: a device that answers `vkGetPhysicalDeviceFeatures2`
//! by hand has to know every feature structure of every registry it is built against; a table
//! generated from the registry fills any chain in any order, and regenerating on a spec bump
//! adds the new structures without touching the driver.

/// A kit function as the `PFN_vkVoidFunction` of the command it implements; `$f` is checked
/// against that command's type `$t` first.
macro_rules! kit_fn {
    ($f:expr, $t:ident) => {{
        let f: vkgen_generated::pfn::$t = $f;
        // SAFETY: every function pointer has the same representation; callers cast back to
        // `$t`, the type of the command they asked for.
        Some(unsafe {
            std::mem::transmute::<vkgen_generated::pfn::$t, unsafe extern "system" fn()>(f)
        })
    }};
}

pub mod command;
pub mod common;
pub mod debug;
pub mod defaults;
pub mod extensions;
pub mod hardware_buffer;
pub mod native_buffer;
pub mod null;
pub mod objects;
pub mod requirements;
pub mod routes;
pub mod routes_1_4;
pub mod sync;
mod tables;

use vkgen_generated::commands::CommandId;
use vkgen_generated::driver::{entry_point, Driver};
use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::vk;

pub use extensions::{ExtensionError, ExtensionSet};
pub use objects::{Device, DeviceInfo, Instance, InstanceInfo, PhysicalDevice, Queue};
pub use tables::{Features, Properties};

use crate::export::DriverModule;

/// Instance extensions the kit implements (the default of [`Kit::instance_extensions`]).
pub const KIT_INSTANCE_EXTENSIONS: &[ExtensionId] = &[
    ExtensionId::KHR_GET_PHYSICAL_DEVICE_PROPERTIES2,
    ExtensionId::KHR_EXTERNAL_MEMORY_CAPABILITIES,
    ExtensionId::KHR_EXTERNAL_SEMAPHORE_CAPABILITIES,
    ExtensionId::KHR_EXTERNAL_FENCE_CAPABILITIES,
    ExtensionId::KHR_DEVICE_GROUP_CREATION,
    ExtensionId::EXT_DEBUG_REPORT,
    ExtensionId::EXT_DEBUG_UTILS,
];

/// One physical device as the vendor describes it; [`PhysicalDeviceDesc::new`] starts from a
/// device that passes `vulkaninfo` (the spec's minimum limits, one universal queue family, one
/// host-visible heap, the null driver's format table).
pub struct PhysicalDeviceDesc<D: Kit> {
    /// Every property, flat (generated from the registry).
    pub properties: Properties,
    /// Every feature, flat (generated from the registry); creation refuses any other.
    pub features: Features,
    pub queue_families: Vec<vk::QueueFamilyProperties>,
    pub memory: vk::PhysicalDeviceMemoryProperties,
    /// The device extensions this device supports (a subset of [`Kit::device_extensions`]).
    pub extensions: Vec<ExtensionId>,
    pub data: D::PhysicalDevice,
}

impl<D: Kit> PhysicalDeviceDesc<D> {
    /// A `vulkaninfo`-clean device named `name` at the driver's API version: a valid device of
    /// that version ([`requirements`]: every feature the version and the driver's device
    /// extensions require, every minimum limit).
    pub fn new(name: &core::ffi::CStr, data: D::PhysicalDevice) -> Self {
        let extensions = D::device_extensions().to_vec();
        let features = requirements::default_features(D::API_VERSION, &extensions);
        Self {
            properties: requirements::with_required_limits(defaults::properties(
                name,
                D::API_VERSION,
            )),
            features,
            queue_families: vec![defaults::queue_family()],
            memory: defaults::memory_properties(defaults::HEAP_SIZE),
            extensions,
            data,
        }
    }
}

/// A driver built on the kit. See the [module docs](self).
pub trait Kit: Driver + DriverModule + native_buffer::NativeBuffers {
    /// The vendor's data in each [`Instance`] (`()` when it needs none).
    type Instance: Default + Send + Sync + 'static;
    /// The vendor's data in each [`PhysicalDevice`].
    type PhysicalDevice: Default + Send + Sync + 'static;
    /// The vendor's data in each [`Device`].
    type Device: Default + Send + Sync + 'static;
    /// The vendor's data in each [`Queue`].
    type Queue: Default + Send + Sync + 'static;
    /// The vendor's recording state in each [`command::CommandBuffer`].
    type CommandBuffer: Default + Send + Sync + 'static;
    /// The vendor's data in each [`command::CommandPool`] (`()` when it needs none).
    type CommandPool: Default + Send + Sync + 'static;

    /// The kit's command recorder ([`command`]): every `vkCmd*` the driver does not hook is
    /// recorded (deep copies of its arguments in the command buffer) and replayed at
    /// submission through the driver's [`command::Execute`] engine
    /// ([`command::CommandBuffer::replay`]).
    const RECORD_COMMANDS: bool = false;

    /// Bring-up aid: commands neither the vendor nor the kit implements answer as the null
    /// driver's (real objects, no rendering), so an unfinished driver already runs programs.
    /// Turn it off once the device commands are yours.
    const NULL_OBJECTS: bool = false;

    /// The kit's sync component ([`sync`]): fences and semaphores the driver signals on the CPU,
    /// with `SYNC_FD` export and import (`VK_KHR_external_{fence,semaphore}_fd`). Drivers with
    /// their own sync objects leave it off.
    const SYNC_OBJECTS: bool = false;

    /// The kit's `AHardwareBuffer` component ([`hardware_buffer`]):
    /// `vkGetAndroidHardwareBufferPropertiesANDROID`, `vkGetMemoryAndroidHardwareBufferANDROID`
    /// (through [`Kit::memory_hardware_buffer`]) and the handle type in the external-memory
    /// queries. The driver backs memory with the buffers ([`hardware_buffer::HardwareBufferAllocation`]).
    const HARDWARE_BUFFERS: bool = false;

    /// The memory types an `AHardwareBuffer` may be imported into. Default: all of them.
    fn hardware_buffer_memory_type_bits(physical: &PhysicalDevice<Self>) -> u32 {
        let _ = physical;
        u32::MAX >> (32 - defaults::memory_properties(defaults::HEAP_SIZE).memory_type_count)
    }

    /// The `AHardwareBuffer` behind `memory` (imported or allocated for export), for
    /// `vkGetMemoryAndroidHardwareBufferANDROID`. Default: none.
    fn memory_hardware_buffer(
        device: vk::Device,
        memory: vk::DeviceMemory,
    ) -> Option<crate::hardware_buffer::HardwareBufferRef> {
        let _ = (device, memory);
        None
    }

    /// `vkEnumerateInstanceVersion`: the driver's version with the registry's patch level.
    fn instance_version() -> u32 {
        vk::make_api_version(
            0,
            vk::api_version_major(Self::API_VERSION),
            vk::api_version_minor(Self::API_VERSION),
            vkgen_generated::HEADER_VERSION,
        )
    }

    /// The instance extensions the driver supports. Default: every one the kit implements
    /// ([`KIT_INSTANCE_EXTENSIONS`]); a driver may narrow the list or add its own.
    fn instance_extensions() -> &'static [ExtensionId] {
        KIT_INSTANCE_EXTENSIONS
    }

    /// Every device extension any device of the driver may support.
    fn device_extensions() -> &'static [ExtensionId] {
        &[]
    }

    /// The vendor's instance data, after the kit validated the create info. An error fails
    /// `vkCreateInstance` with it.
    fn instance_data(info: &InstanceInfo) -> Result<Self::Instance, vk::Result> {
        let _ = info;
        Ok(Default::default())
    }

    /// The instance's physical devices, asked once while the instance is created. Default: one
    /// [`PhysicalDeviceDesc::new`] named after the driver module.
    fn physical_devices(
        instance: &Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        let _ = instance;
        Ok(vec![PhysicalDeviceDesc::new(
            Self::NAME,
            Default::default(),
        )])
    }

    /// The vendor's device data, after the kit validated extensions, features and queues.
    fn device_data(
        physical: &PhysicalDevice<Self>,
        info: &DeviceInfo,
    ) -> Result<Self::Device, vk::Result> {
        let _ = (physical, info);
        Ok(Default::default())
    }

    /// The vendor's data for queue `index` of `family` of a device being created.
    fn queue_data(
        device: &Self::Device,
        family: u32,
        index: u32,
        flags: vk::DeviceQueueCreateFlags,
    ) -> Result<Self::Queue, vk::Result> {
        let _ = (device, family, index, flags);
        Ok(Default::default())
    }

    /// The vendor's state for a command buffer being allocated (`vkAllocateCommandBuffers`).
    fn command_buffer_data(
        device: &Device<Self>,
        level: vk::CommandBufferLevel,
    ) -> Result<Self::CommandBuffer, vk::Result> {
        let _ = (device, level);
        Ok(Default::default())
    }

    /// The vendor's data for a command pool being created (`vkCreateCommandPool`).
    fn command_pool_data(
        device: &Device<Self>,
        info: &vk::CommandPoolCreateInfo<'_>,
    ) -> Result<Self::CommandPool, vk::Result> {
        let _ = (device, info);
        Ok(Default::default())
    }

    /// `vkBeginCommandBuffer`, after the kit reset the buffer (recording emptied).
    fn command_buffer_begin(
        cb: &command::CommandBuffer<Self>,
        info: &vk::CommandBufferBeginInfo<'_>,
    ) -> Result<(), vk::Result> {
        let _ = (cb, info);
        Ok(())
    }

    /// `vkEndCommandBuffer`, after the recording succeeded.
    fn command_buffer_end(cb: &command::CommandBuffer<Self>) -> Result<(), vk::Result> {
        let _ = cb;
        Ok(())
    }

    /// A command buffer goes back to the initial state (`vkResetCommandBuffer`,
    /// `vkResetCommandPool`, the implicit reset of `vkBeginCommandBuffer`); `release` asks
    /// for its memory to be freed (`…_RELEASE_RESOURCES_BIT`).
    fn command_buffer_reset(cb: &command::CommandBuffer<Self>, release: bool) {
        let _ = (cb, release);
    }

    /// `vkTrimCommandPool`, after the kit trimmed the pool's recordings.
    fn command_pool_trim(pool: &command::CommandPool<Self>) {
        let _ = pool;
    }

    /// `vkGetPhysicalDeviceFormatProperties` (the `…2` and `VkFormatProperties3` answers are
    /// derived from it). Default: the null driver's table.
    fn format_properties(
        physical: &PhysicalDevice<Self>,
        format: vk::Format,
    ) -> vk::FormatProperties {
        let _ = physical;
        defaults::format_properties(format)
    }

    /// `vkGetPhysicalDeviceImageFormatProperties2`'s core answer. Default: derived from
    /// [`Kit::format_properties`] and the limits (`VK_ERROR_FORMAT_NOT_SUPPORTED` when the
    /// tiling lacks a usage's feature; external handle types are not supported).
    fn image_format_properties(
        physical: &PhysicalDevice<Self>,
        info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    ) -> Result<vk::ImageFormatProperties, vk::Result> {
        defaults::image_format_properties(Self::format_properties(physical, info.format), info)
    }

    /// `VkImageCompressionPropertiesEXT` of a successful
    /// `vkGetPhysicalDeviceImageFormatProperties2` (`VK_EXT_image_compression_control`; the
    /// application's `VkImageCompressionControlEXT`, if any, is in `info`'s chain). Default:
    /// no compression control (`DEFAULT`, no fixed rates).
    fn image_compression_properties(
        physical: &PhysicalDevice<Self>,
        info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    ) -> (
        vk::ImageCompressionFlagsEXT,
        vk::ImageCompressionFixedRateFlagsEXT,
    ) {
        let _ = (physical, info);
        Default::default()
    }
}

/// Every extension a kit driver exposes commands of: the kit's, the vendor's instance and
/// device extensions. (`supports_extension` of a `#[driver(kit)]` type.)
pub fn supports_extension<D: Kit>(ext: ExtensionId) -> bool {
    D::instance_extensions().contains(&ext) || D::device_extensions().contains(&ext)
}

/// Whether `ext` was enabled on `device` (a kit device), or on its instance.
///
/// # Safety
/// `device` is a device handle this driver created.
pub unsafe fn is_enabled_on_device<D: Kit>(device: u64, ext: ExtensionId) -> bool {
    // SAFETY: forwarded contract.
    match unsafe { objects::Device::<D>::from_raw(device) } {
        Some(d) => {
            d.enabled_extensions.contains(ext) || d.instance().enabled_extensions.contains(ext)
        }
        None => false,
    }
}

/// [`Driver::fallback`] of a kit driver: the kit's common implementation of `cmd`, or the null
/// driver's while [`Kit::NULL_OBJECTS`] is on.
pub fn fallback<D: Kit>(cmd: CommandId) -> vk::PFN_vkVoidFunction {
    // The sync component first: with it on, it also answers the external fence and semaphore
    // property queries that the commons answer with "nothing" otherwise.
    if let Some(f) = sync::entry::<D>(cmd)
        .or_else(|| command::entry::<D>(cmd))
        .or_else(|| common::entry::<D>(cmd))
        .or_else(|| routes::entry::<D>(cmd))
        .or_else(|| routes_1_4::entry::<D>(cmd))
        .or_else(|| native_buffer::entry::<D>(cmd))
        .or_else(|| hardware_buffer::entry::<D>(cmd))
    {
        return Some(f);
    }
    if D::NULL_OBJECTS && !common::kit_owned(cmd) {
        // The null driver's answer for `cmd` as its own resolver gives it: its hook, its
        // native-buffer component or route (these take raw handles, so they serve this driver's
        // objects too), else its stub. Never its kit commons: those would read this driver's
        // base objects as the null driver's.
        type Null = null::NullDriver;
        if Null::implements(cmd) {
            return entry_point::<Null>(cmd);
        }
        if let Some(f) = native_buffer::entry::<Null>(cmd)
            .or_else(|| routes::entry::<Null>(cmd))
            .or_else(|| routes_1_4::entry::<Null>(cmd))
            .or_else(|| sync::entry::<Null>(cmd))
        {
            return Some(f);
        }
        return entry_point::<Null>(cmd);
    }
    None
}
