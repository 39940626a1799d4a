//! The kit's vendor-facing API: the [`Kit`] trait a driver implements and the
//! [`PhysicalDeviceDesc`] it fills, with their defaults. The components implement the API
//! around these; the assembly ([`super::assembly`]) wires them into the driver's command map.

use vkgen_generated::driver::Driver;
use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::vk;

use super::command::object::{CommandBuffer, CommandPool};
use super::objects::{Device, DeviceInfo, Instance, InstanceInfo, PhysicalDevice, Queue};
use super::pipeline::object::Pipeline;
use super::queue::batch::{Batch, Completion};
use super::requirements::cross::with_feature_limits;
use super::requirements::rules::{default_features, with_required_limits};
use super::resources::defaults::{
    default_buffer_requirements, default_image_requirements, fill_memory_budget,
};
use super::resources::desc::{BufferDesc, ImageDesc};
use super::resources::device_memory;
use super::tables::{Features, Properties};
use super::types::KitTypes;
use super::{defaults, format, native_buffer};
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
    /// The formats the device declares and their features: what the default
    /// [`Kit::format_properties`] answers (an undeclared format has none). Starts as
    /// [`format::FormatSupport::kit_default`]; narrow it to what the engine handles
    /// (`retain`, `without`, `set`), and the requirements report names features left on
    /// whose commands the engine does not run.
    pub formats: format::FormatSupport,
    pub data: D::PhysicalDevice,
}

impl<D: Kit> PhysicalDeviceDesc<D> {
    /// A `vulkaninfo`-clean device named `name` at the driver's API version: a valid device of
    /// that version ([`requirements`](super::requirements): every feature the version and the
    /// driver's device extensions require, every minimum limit).
    pub fn new(name: &core::ffi::CStr, data: D::PhysicalDevice) -> Self {
        let extensions = D::device_extensions().to_vec();
        let features = default_features(D::API_VERSION, &extensions);
        let properties = with_required_limits(defaults::properties(name, D::API_VERSION));
        Self {
            properties: with_feature_limits(properties, &features),
            features,
            queue_families: vec![defaults::queue_family()],
            memory: defaults::memory_properties(defaults::HEAP_SIZE),
            extensions,
            formats: format::FormatSupport::kit_default(),
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
    /// The vendor's recording state in each [`CommandBuffer`].
    type CommandBuffer: Default + Send + Sync + 'static;
    /// The vendor's data in each [`CommandPool`] (`()` when it needs none).
    type CommandPool: Default + Send + Sync + 'static;

    /// The kit's command recorder ([`command`](super::command)): every `vkCmd*` the driver does not
    /// hook is recorded (deep copies of its arguments in the command buffer) and replayed at
    /// submission through the driver's [`Execute`](super::command::Execute) engine
    /// ([`CommandBuffer::replay`]).
    const RECORD_COMMANDS: bool = false;

    /// Bring-up aid: commands neither the vendor nor the kit implements answer as the kit's
    /// components do on their own ([`bring_up`](super::bring_up): real objects, no rendering,
    /// `VK_SUCCESS` for the rest), so an unfinished driver already runs programs.
    /// Turn it off once the device commands are yours.
    const NULL_OBJECTS: bool = false;

    /// The kit's queue and sync core ([`queue`](super::queue), [`sync`](super::sync)):
    /// `vkQueueSubmit{,2}` held until their waits resolve and handed to [`Kit::driver_submit`],
    /// fences and binary/timeline semaphores the kit signals when the vendor's work completes, the
    /// host waits, queue and device idle, and `SYNC_FD` export and import
    /// (`VK_KHR_external_{fence,semaphore}_fd`). Drivers with their own queues and sync objects
    /// leave it off.
    const SYNC_OBJECTS: bool = false;

    /// The kit's resource objects ([`resources`](super::resources), Mesa's `vk_device_memory`,
    /// `vk_buffer`, `vk_image`, …): device memory (host memory, charged to its heap, mappable when
    /// host-visible), buffers, buffer views, images, image views, samplers, sampler YCbCr
    /// conversions, query pools, events and private data slots, with every command that
    /// follows from their state (with [`Kit::RECORD_COMMANDS`], also the event and timestamp
    /// commands the engine does not run, applied at replay: [`CommandBuffer::replay`]).
    /// Drivers with their own objects leave it off.
    const RESOURCE_OBJECTS: bool = false;

    /// The kit's host transfers ([`transfer`](super::transfer)): with [`Kit::RESOURCE_OBJECTS`]
    /// (all kit memory is host memory) and [`Kit::RECORD_COMMANDS`], every transfer command the
    /// engine does not run — `vkCmdFillBuffer`, `vkCmdUpdateBuffer`, `vkCmdCopyBuffer{,2}`,
    /// `vkCmdCopyBufferToImage{,2}`, `vkCmdCopyImageToBuffer{,2}`, `vkCmdCopyImage{,2}`,
    /// `vkCmdClearColorImage`, `vkCmdClearDepthStencilImage`, `vkCmdBlitImage{,2}` and
    /// `vkCmdResolveImage{,2}` — is run by the kit on the objects' bytes at replay, in recorded
    /// order (bad regions dropped with a warning). The requirements report counts them as run,
    /// and the transfer format features as honoured where the kit's version serves the format.
    /// A CPU driver turns it on and writes no transfer method; an engine method still wins.
    const HOST_TRANSFERS: bool = false;

    /// The kit's descriptor objects ([`descriptor`](super::descriptor), Mesa's
    /// `vk_descriptor_set_layout`, `vk_pipeline_layout`, `vk_descriptor_update_template`): set
    /// layouts (sorted bindings, immutable samplers, binding flags, push-descriptor and
    /// inline-uniform-block layouts), `vkGetDescriptorSetLayoutSupport` from the limits, pools with
    /// per-type accounting, sets whose
    /// [`descriptor::DescriptorStore`](super::descriptor::DescriptorStore) the engine reads at
    /// execution time, `vkUpdateDescriptorSets` writes and copies, update templates
    /// (push-descriptor ones too) and pipeline layouts with a compatibility identity. With
    /// [`Kit::RESOURCE_OBJECTS`] on, `VK_WHOLE_SIZE` buffer ranges are resolved against the kit's
    /// buffers. Drivers with their own descriptor objects leave it off.
    const DESCRIPTOR_OBJECTS: bool = false;

    /// The kit's render passes on dynamic rendering ([`render_pass`](super::render_pass), Mesa's
    /// `vk_render_pass` and `vk_framebuffer`): render passes (1.0 and `…2`), framebuffers
    /// (imageless too) and the render-area granularity; `vkCmdBeginRenderPass{,2}`,
    /// `vkCmdNextSubpass{,2}` and `vkCmdEndRenderPass{,2}` become the driver's own
    /// `vkCmdPipelineBarrier2`, `vkCmdBeginRendering` and `vkCmdEndRendering` (recorded with
    /// [`Kit::RECORD_COMMANDS`]), with the load/store/resolve ops, layout transitions and
    /// subpass dependencies the pass describes; secondaries continuing a subpass begin as
    /// dynamic-rendering secondaries. Barriers name images through the kit's image views
    /// ([`Kit::RESOURCE_OBJECTS`]). Drivers with native render passes leave it off.
    const RENDER_PASS_OBJECTS: bool = false;

    /// The kit's shader objects ([`shader`](super::shader), Mesa's `vk_shader_module` and
    /// `vk_pipeline_cache`): shader modules (SPIR-V validated and reflected once; bad code is a
    /// logged `VK_ERROR_UNKNOWN`), the `VK_EXT_shader_module_identifier` queries, and pipeline
    /// caches with the spec's header, data round trips and merges. Pipelines resolve their
    /// stages with
    /// [`shader::ShaderStage::from_create_info`](super::shader::ShaderStage::from_create_info).
    /// Drivers that compile SPIR-V themselves may still turn it on: the stage gives them the code
    /// and its reflection.
    const SHADER_OBJECTS: bool = false;

    /// The kit's pipelines and bound-state tracking ([`pipeline`](super::pipeline),
    /// [`state`](super::state), Mesa's `vk_pipeline` and `vk_graphics_state`):
    /// `vkCreateComputePipelines`, `vkCreateGraphicsPipelines` (graphics pipeline libraries,
    /// pipeline caches, creation feedback) and `vkDestroyPipeline`, each pipeline holding its
    /// resolved stages, its layout and one compiled
    /// [`state::GraphicsState`](super::state::GraphicsState); and
    /// [`CommandBuffer::replay_tracked`], which hands the engine the resolved bound
    /// state at every draw and dispatch. Needs the shader and descriptor objects
    /// (`SHADER_OBJECTS`, `DESCRIPTOR_OBJECTS`) and [`Kit::RECORD_COMMANDS`].
    const PIPELINE_OBJECTS: bool = false;

    /// The engine's look at a pipeline the kit built (with [`Kit::PIPELINE_OBJECTS`]), before
    /// its handle is returned: compile it, attach data to [`Pipeline::vendor`], or
    /// refuse it (the error fails that element of the create call, e.g.
    /// `VK_ERROR_UNKNOWN` from a CPU executor that cannot run an instruction). Default: accept.
    fn compile_pipeline(device: &Device<Self>, pipeline: &Pipeline) -> Result<(), vk::Result> {
        let _ = (device, pipeline);
        Ok(())
    }

    /// The memory requirements of a buffer (with [`Kit::RESOURCE_OBJECTS`]). Default:
    /// [`default_buffer_requirements`].
    fn buffer_requirements(
        physical: &PhysicalDevice<Self>,
        desc: &BufferDesc,
    ) -> vk::MemoryRequirements {
        default_buffer_requirements(&physical.memory, desc)
    }

    /// The memory requirements of an image (with [`Kit::RESOURCE_OBJECTS`]). Default:
    /// [`default_image_requirements`], the packed linear layout.
    fn image_requirements(
        physical: &PhysicalDevice<Self>,
        desc: &ImageDesc,
    ) -> vk::MemoryRequirements {
        default_image_requirements(&physical.memory, desc)
    }

    /// Fills an output structure of a `vkGetPhysicalDeviceProperties2` or
    /// `vkGetPhysicalDeviceMemoryProperties2` chain that the flat tables cannot hold (its
    /// members are per heap, per queue family, or live state rather than one value). Called
    /// for every structure of those chains after the tables wrote theirs; leave structures you
    /// do not know untouched. Default: [`fill_memory_budget`] for
    /// `VkPhysicalDeviceMemoryBudgetPropertiesEXT` (`VK_EXT_memory_budget`: the heap sizes as
    /// the budget, the kit's allocations as the usage). An extension you advertise whose
    /// output structure is not in the tables needs this hook (docs/writing-a-driver.md lists
    /// them).
    fn fill_extension_structure(physical: &PhysicalDevice<Self>, s: &mut vk::BaseOutStructure<'_>) {
        fill_memory_budget(physical, s);
    }

    /// Runs one batch of a `vkQueueSubmit{,2}` on `queue`; the kit calls it only once every
    /// wait of the batch is satisfied, in submission order per queue, on the submitting thread
    /// or the queue's submit thread ([`queue`](super::queue)). The batch is complete when
    /// `completion` is dropped: a CPU vendor runs the work and returns; a vendor with asynchronous
    /// hardware keeps `completion` until the hardware is done (or hands it a hardware payload with
    /// [`Completion::after`]). An error, [`Completion::fail`] or a panic marks
    /// the batch failed: the queue is lost (`VK_ERROR_DEVICE_LOST`). Default: nothing to run.
    fn driver_submit(
        queue: &Queue<Self>,
        batch: &Batch,
        completion: Completion,
    ) -> Result<(), vk::Result> {
        let _ = (queue, batch, completion);
        Ok(())
    }

    /// The binds of one `VkBindSparseInfo` of a `vkQueueBindSparse` on `queue` (with
    /// [`Kit::SYNC_OBJECTS`]: the kit orders the info's semaphores and the fence like a
    /// submit's, [`queue`](super::queue)), called when the application makes the call. Default: the
    /// kit's devices have no sparse features, so a bind is invalid usage — logged, and ignored.
    fn sparse_bind(queue: &Queue<Self>, info: &vk::BindSparseInfo<'_>) -> Result<(), vk::Result> {
        let _ = queue;
        log::error!(
            "vkQueueBindSparse: {} buffer, {} opaque image and {} image binds on a device \
             without sparse features (invalid usage; override Kit::sparse_bind)",
            info.buffer_bind_count,
            info.image_opaque_bind_count,
            info.image_bind_count
        );
        Ok(())
    }

    /// The kit's `AHardwareBuffer` component ([`hardware_buffer`](super::hardware_buffer)):
    /// `vkGetAndroidHardwareBufferPropertiesANDROID`, `vkGetMemoryAndroidHardwareBufferANDROID`
    /// (through [`Kit::memory_hardware_buffer`]) and the handle type in the external-memory
    /// queries. The driver backs memory with the buffers
    /// ([`HardwareBufferAllocation`]).
    ///
    /// [`HardwareBufferAllocation`]: super::hardware_buffer::HardwareBufferAllocation
    const HARDWARE_BUFFERS: bool = false;

    /// The memory types an `AHardwareBuffer` may be imported into. Default: all of them.
    fn hardware_buffer_memory_type_bits(physical: &PhysicalDevice<Self>) -> u32 {
        let _ = physical;
        u32::MAX >> (32 - defaults::memory_properties(defaults::HEAP_SIZE).memory_type_count)
    }

    /// The `AHardwareBuffer` behind `memory` (imported or allocated for export), for
    /// `vkGetMemoryAndroidHardwareBufferANDROID`. Default: the buffer of the kit's memory
    /// object ([`resources::external`](super::resources::external)) when the kit's memory objects
    /// serve the driver ([`Kit::RESOURCE_OBJECTS`], or the bring-up table's); none otherwise.
    fn memory_hardware_buffer(
        device: vk::Device,
        memory: vk::DeviceMemory,
    ) -> Option<crate::hardware_buffer::HardwareBufferRef> {
        let _ = device;
        if !(Self::RESOURCE_OBJECTS || Self::NULL_OBJECTS) {
            return None;
        }
        // SAFETY: with the kit's memory objects in use, `memory` is null or one of them
        // (VUID-VkMemoryGetAndroidHardwareBufferInfoANDROID-memory-parameter); a vendor's own
        // memory is refused by the type check.
        unsafe { device_memory::memory_hardware_buffer(memory) }
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
        cb: &CommandBuffer<Self>,
        info: &vk::CommandBufferBeginInfo<'_>,
    ) -> Result<(), vk::Result> {
        let _ = (cb, info);
        Ok(())
    }

    /// `vkEndCommandBuffer`, after the recording succeeded.
    fn command_buffer_end(cb: &CommandBuffer<Self>) -> Result<(), vk::Result> {
        let _ = cb;
        Ok(())
    }

    /// A command buffer goes back to the initial state (`vkResetCommandBuffer`,
    /// `vkResetCommandPool`, the implicit reset of `vkBeginCommandBuffer`); `release` asks
    /// for its memory to be freed (`…_RELEASE_RESOURCES_BIT`).
    fn command_buffer_reset(cb: &CommandBuffer<Self>, release: bool) {
        let _ = (cb, release);
    }

    /// `vkTrimCommandPool`, after the kit trimmed the pool's recordings.
    fn command_pool_trim(pool: &CommandPool<Self>) {
        let _ = pool;
    }

    /// `vkGetPhysicalDeviceFormatProperties` (the `…2` and `VkFormatProperties3` answers are
    /// derived from it). Default: what the description declares
    /// ([`PhysicalDeviceDesc::formats`]).
    fn format_properties(
        physical: &PhysicalDevice<Self>,
        format: vk::Format,
    ) -> vk::FormatProperties {
        physical.formats.get(format)
    }

    /// `vkGetPhysicalDeviceImageFormatProperties2`'s core answer. Default: derived from
    /// [`Kit::format_properties`] and the limits (`VK_ERROR_FORMAT_NOT_SUPPORTED` when the
    /// tiling lacks a usage's feature; external handle types are not supported).
    fn image_format_properties(
        physical: &PhysicalDevice<Self>,
        info: &vk::PhysicalDeviceImageFormatInfo2<'_>,
    ) -> Result<vk::ImageFormatProperties, vk::Result> {
        defaults::image_format_properties(
            Self::format_properties(physical, info.format),
            info,
            &physical.properties.properties10().limits,
        )
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

// The objects are bounded on `KitTypes` (a leaf), the hooks on `Kit`: every driver's `Kit`
// declares the types, and this gives them to the objects.
impl<D: Kit> KitTypes for D {
    type Instance = <D as Kit>::Instance;
    type PhysicalDevice = <D as Kit>::PhysicalDevice;
    type Device = <D as Kit>::Device;
    type Queue = <D as Kit>::Queue;
    type CommandBuffer = <D as Kit>::CommandBuffer;
    type CommandPool = <D as Kit>::CommandPool;
}
