//! A complete compute round trip through the loader under test: instance, physical device,
//! device, buffer and memory, descriptors, the `fill.comp` pipeline, a dispatch, a fence
//! wait and a read-back, everything destroyed in order afterwards.
//!
//! The owned wrappers ([`OwnedInstance`], [`OwnedDevice`]) destroy their object on drop.
//! Declare them (and anything created from them) in creation order: Rust drops locals in
//! reverse order, which is Vulkan's destruction order.

use std::ffi::CStr;
use std::path::Path;
use std::time::Duration;

use ash::vk;

/// The `apiVersion` every harness instance asks for.
pub const APP_API_VERSION: u32 = vk::API_VERSION_1_1;

/// `fill.comp`'s `local_size_x`.
pub const FILL_LOCAL_SIZE: u32 = 64;

/// What `fill.comp` writes before it runs (so stale memory cannot pass for a result).
const SENTINEL: u32 = 0xDEAD_BEEF;

/// How long a fence wait may take before the harness calls it a hang.
const FENCE_TIMEOUT: Duration = Duration::from_secs(120);

/// Loads a Vulkan loader library by path.
pub fn load_entry(path: &Path) -> Result<ash::Entry, String> {
    if !path.is_file() {
        return Err(format!("Vulkan loader {} does not exist", path.display()));
    }
    // SAFETY: loading a library runs its initialisers; `path` names a Vulkan loader, which is
    // what this harness exists to load, and `Entry` keeps the library loaded for as long as it
    // (and every function pointer taken from it) lives.
    unsafe { ash::Entry::load_from(path) }
        .map_err(|e| format!("cannot load Vulkan loader {}: {e}", path.display()))
}

/// The reference result of `fill.comp`: `(i * multiplier + 7) ^ (i >> 3)`, wrapping.
pub fn expected_fill(n: u32, multiplier: u32) -> Vec<u32> {
    (0..n)
        .map(|i| i.wrapping_mul(multiplier).wrapping_add(7) ^ (i >> 3))
        .collect()
}

/// Compares a `fill.comp` result with [`expected_fill`]; the error names the first
/// mismatches and how many elements differ.
pub fn verify_fill(got: &[u32], n: u32, multiplier: u32) -> Result<(), String> {
    let expected = expected_fill(n, multiplier);
    if got.len() != expected.len() {
        return Err(format!(
            "fill result has {} elements, expected {n}",
            got.len()
        ));
    }
    let bad: Vec<usize> = (0..expected.len())
        .filter(|&i| got[i] != expected[i])
        .collect();
    if bad.is_empty() {
        return Ok(());
    }
    let first: Vec<String> = bad
        .iter()
        .take(8)
        .map(|&i| format!("[{i}] = {:#010x}, expected {:#010x}", got[i], expected[i]))
        .collect();
    Err(format!(
        "fill(n = {n}, multiplier = {multiplier:#x}): {} of {n} elements wrong; first: {}",
        bad.len(),
        first.join(", ")
    ))
}

/// An instance destroyed on drop. Everything created from it must be dropped first.
pub struct OwnedInstance {
    instance: ash::Instance,
}

impl OwnedInstance {
    /// The instance's dispatch table.
    pub fn raw(&self) -> &ash::Instance {
        &self.instance
    }
}

impl std::ops::Deref for OwnedInstance {
    type Target = ash::Instance;
    fn deref(&self) -> &ash::Instance {
        &self.instance
    }
}

impl Drop for OwnedInstance {
    fn drop(&mut self) {
        // SAFETY: the instance was created by `create_instance` and is destroyed exactly once,
        // here; its children are owned by values declared (and therefore dropped) after it.
        unsafe { self.instance.destroy_instance(None) };
    }
}

/// A device destroyed on drop (after waiting for it to go idle). Everything created from it
/// must be dropped first.
pub struct OwnedDevice {
    device: ash::Device,
}

impl OwnedDevice {
    /// The device's dispatch table.
    pub fn raw(&self) -> &ash::Device {
        &self.device
    }
}

impl std::ops::Deref for OwnedDevice {
    type Target = ash::Device;
    fn deref(&self) -> &ash::Device {
        &self.device
    }
}

impl Drop for OwnedDevice {
    fn drop(&mut self) {
        // SAFETY: the device was created by `create_device` and is destroyed exactly once, here;
        // its children are dropped before it. The idle wait's result is checked on the success
        // paths; on an error path there is nothing better to do than destroy anyway.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_device(None);
        }
    }
}

/// Creates an instance with [`APP_API_VERSION`], the given layers and extensions.
pub fn create_instance(
    entry: &ash::Entry,
    layers: &[&CStr],
    extensions: &[&CStr],
) -> Result<OwnedInstance, vk::Result> {
    let layer_ptrs: Vec<_> = layers.iter().map(|l| l.as_ptr()).collect();
    let extension_ptrs: Vec<_> = extensions.iter().map(|e| e.as_ptr()).collect();
    let app_info = vk::ApplicationInfo::default()
        .application_name(c"vkgen-tests")
        .application_version(1)
        .engine_name(c"vkgen-tests")
        .engine_version(1)
        .api_version(APP_API_VERSION);
    let create_info = vk::InstanceCreateInfo::default()
        .application_info(&app_info)
        .enabled_layer_names(&layer_ptrs)
        .enabled_extension_names(&extension_ptrs);
    // SAFETY: `create_info` and everything it points to (app info, name arrays and the
    // `'static`/borrowed C strings they point to) outlive the call.
    let instance = unsafe { entry.create_instance(&create_info, None) }?;
    Ok(OwnedInstance { instance })
}

/// The names of the physical devices the loader enumerates, in its order.
pub fn physical_device_names(entry: &ash::Entry) -> Result<Vec<String>, String> {
    let instance =
        create_instance(entry, &[], &[]).map_err(|e| format!("vkCreateInstance failed: {e:?}"))?;
    // SAFETY: `instance` is a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| format!("vkEnumeratePhysicalDevices failed: {e:?}"))?;
    devices
        .iter()
        .map(|&pd| {
            // SAFETY: `pd` was just enumerated from this live instance.
            let props = unsafe { instance.get_physical_device_properties(pd) };
            props
                .device_name_as_c_str()
                .map(|n| n.to_string_lossy().into_owned())
                .map_err(|e| format!("deviceName is not NUL-terminated: {e}"))
        })
        .collect()
}

/// The first physical device (in enumeration order) with a compute-capable queue family, and
/// the index of its first such family.
pub fn pick_compute_device(instance: &ash::Instance) -> Result<(vk::PhysicalDevice, u32), String> {
    // SAFETY: `instance` is a live instance.
    let devices = unsafe { instance.enumerate_physical_devices() }
        .map_err(|e| format!("vkEnumeratePhysicalDevices failed: {e:?}"))?;
    if devices.is_empty() {
        return Err(
            "the loader enumerates no physical devices (is lavapipe installed and \
                    VK_DRIVER_FILES set? apt-get install mesa-vulkan-drivers)"
                .to_owned(),
        );
    }
    for &pd in &devices {
        // SAFETY: `pd` was just enumerated from this live instance.
        let families = unsafe { instance.get_physical_device_queue_family_properties(pd) };
        if let Some(index) = families
            .iter()
            .position(|f| f.queue_count > 0 && f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        {
            let index = u32::try_from(index).map_err(|_| "queue family index overflow")?;
            return Ok((pd, index));
        }
    }
    Err(format!(
        "none of the {} physical devices has a compute queue",
        devices.len()
    ))
}

/// Creates a device with one queue of `queue_family` and no extensions.
pub fn create_device(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    queue_family: u32,
) -> Result<OwnedDevice, String> {
    let priorities = [1.0f32];
    let queue_info = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(queue_family)
        .queue_priorities(&priorities)];
    let create_info = vk::DeviceCreateInfo::default().queue_create_infos(&queue_info);
    // SAFETY: `physical_device` belongs to `instance`, `queue_family` is one of its families,
    // and `create_info` with the arrays it points to outlives the call.
    let device = unsafe { instance.create_device(physical_device, &create_info, None) }
        .map_err(|e| format!("vkCreateDevice failed: {e:?}"))?;
    Ok(OwnedDevice { device })
}

/// A buffer of `size` bytes with `usage` bound to new host-visible, host-coherent memory, and
/// that memory mapped. The caller destroys both.
///
/// # Safety
/// `physical_device` is `device`'s, of `instance`.
pub unsafe fn mapped_host_buffer(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    device: &ash::Device,
    size: u64,
    usage: vk::BufferUsageFlags,
) -> Result<(vk::Buffer, vk::DeviceMemory, *mut u8), String> {
    // SAFETY: plain allocation on the caller's live objects.
    unsafe {
        let buffer = device
            .create_buffer(
                &vk::BufferCreateInfo::default().size(size).usage(usage),
                None,
            )
            .map_err(vk_err("vkCreateBuffer"))?;
        let reqs = device.get_buffer_memory_requirements(buffer);
        let mem = instance.get_physical_device_memory_properties(physical_device);
        let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
        let ty = (0..mem.memory_type_count)
            .find(|&i| {
                reqs.memory_type_bits & (1 << i) != 0
                    && mem.memory_types[i as usize].property_flags.contains(wanted)
            })
            .ok_or("no host-visible coherent memory type")?;
        let memory = device
            .allocate_memory(
                &vk::MemoryAllocateInfo::default()
                    .allocation_size(reqs.size)
                    .memory_type_index(ty),
                None,
            )
            .map_err(vk_err("vkAllocateMemory"))?;
        device
            .bind_buffer_memory(buffer, memory, 0)
            .map_err(vk_err("vkBindBufferMemory"))?;
        let p = device
            .map_memory(memory, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
            .map_err(vk_err("vkMapMemory"))?;
        Ok((buffer, memory, p.cast()))
    }
}

/// Runs `fill.comp` over `n` elements with `multiplier` on the first compute-capable device
/// of `entry`, returning what the GPU wrote. Compare with [`expected_fill`].
pub fn run_fill_compute(entry: &ash::Entry, n: u32, multiplier: u32) -> Result<Vec<u32>, String> {
    let instance = create_instance(entry, &[], &[])
        .map_err(|e| format!("vkCreateInstance (apiVersion 1.1) failed: {e:?}"))?;
    let (physical_device, _) = pick_compute_device(&instance)?;
    run_fill_compute_on(&instance, physical_device, n, multiplier)
}

/// Runs `fill.comp` on `physical_device` (of `instance`) with its first compute queue family,
/// returning what the device wrote: the round trip of [`run_fill_compute`] on a chosen device.
pub fn run_fill_compute_on(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    n: u32,
    multiplier: u32,
) -> Result<Vec<u32>, String> {
    if n == 0 {
        return Err("run_fill_compute_on: n must be at least 1".to_owned());
    }
    // SAFETY: a physical device of the live `instance`.
    let families = unsafe { instance.get_physical_device_queue_family_properties(physical_device) };
    let queue_family = families
        .iter()
        .position(|f| f.queue_flags.contains(vk::QueueFlags::COMPUTE))
        .ok_or("the device has no compute queue")? as u32;
    let device = create_device(instance, physical_device, queue_family)?;
    let result = {
        let mut objects = FillObjects::new(&device);
        fill_on_device(
            instance,
            physical_device,
            &device,
            queue_family,
            &mut objects,
            n,
            multiplier,
        )
    };
    // SAFETY: `device` is live; all its objects were destroyed above.
    unsafe { device.device_wait_idle() }
        .map_err(|e| format!("vkDeviceWaitIdle failed after the dispatch: {e:?}"))?;
    result
}

/// The device objects of one fill run; destroyed on drop in reverse creation order.
struct FillObjects<'a> {
    device: &'a ash::Device,
    buffer: vk::Buffer,
    memory: vk::DeviceMemory,
    mapped: bool,
    set_layout: vk::DescriptorSetLayout,
    descriptor_pool: vk::DescriptorPool,
    pipeline_layout: vk::PipelineLayout,
    shader_module: vk::ShaderModule,
    pipeline: vk::Pipeline,
    command_pool: vk::CommandPool,
    fence: vk::Fence,
}

impl<'a> FillObjects<'a> {
    fn new(device: &'a ash::Device) -> Self {
        Self {
            device,
            buffer: vk::Buffer::null(),
            memory: vk::DeviceMemory::null(),
            mapped: false,
            set_layout: vk::DescriptorSetLayout::null(),
            descriptor_pool: vk::DescriptorPool::null(),
            pipeline_layout: vk::PipelineLayout::null(),
            shader_module: vk::ShaderModule::null(),
            pipeline: vk::Pipeline::null(),
            command_pool: vk::CommandPool::null(),
            fence: vk::Fence::null(),
        }
    }
}

impl Drop for FillObjects<'_> {
    fn drop(&mut self) {
        let d = self.device;
        // SAFETY: every non-null handle was created from `d` and is destroyed once, here, after
        // waiting for the device to go idle (so no submitted work still uses them); children go
        // before their parents (command buffers with their pool, the set with its pool, the
        // memory after the buffer bound to it and after unmapping).
        unsafe {
            let _ = d.device_wait_idle();
            if self.fence != vk::Fence::null() {
                d.destroy_fence(self.fence, None);
            }
            if self.command_pool != vk::CommandPool::null() {
                d.destroy_command_pool(self.command_pool, None);
            }
            if self.pipeline != vk::Pipeline::null() {
                d.destroy_pipeline(self.pipeline, None);
            }
            if self.shader_module != vk::ShaderModule::null() {
                d.destroy_shader_module(self.shader_module, None);
            }
            if self.pipeline_layout != vk::PipelineLayout::null() {
                d.destroy_pipeline_layout(self.pipeline_layout, None);
            }
            if self.descriptor_pool != vk::DescriptorPool::null() {
                d.destroy_descriptor_pool(self.descriptor_pool, None);
            }
            if self.set_layout != vk::DescriptorSetLayout::null() {
                d.destroy_descriptor_set_layout(self.set_layout, None);
            }
            if self.buffer != vk::Buffer::null() {
                d.destroy_buffer(self.buffer, None);
            }
            if self.mapped {
                d.unmap_memory(self.memory);
            }
            if self.memory != vk::DeviceMemory::null() {
                d.free_memory(self.memory, None);
            }
        }
    }
}

fn vk_err(what: &'static str) -> impl Fn(vk::Result) -> String {
    move |e| format!("{what} failed: {e:?}")
}

fn fill_on_device(
    instance: &ash::Instance,
    physical_device: vk::PhysicalDevice,
    device: &ash::Device,
    queue_family: u32,
    o: &mut FillObjects<'_>,
    n: u32,
    multiplier: u32,
) -> Result<Vec<u32>, String> {
    let size = vk::DeviceSize::from(n) * 4;
    let len = usize::try_from(n).map_err(|_| "n does not fit usize")?;

    // SAFETY: this covers every "see above" in this function: `instance`, `physical_device`
    // and `device` are live and related; each create-info and the arrays it points to outlive
    // the call; every handle passed was created from `device` earlier in this function and is
    // still alive (owned by `o`, destroyed only when `o` drops).
    let props = unsafe { instance.get_physical_device_properties(physical_device) };
    let groups = n.div_ceil(FILL_LOCAL_SIZE);
    let max_groups = props.limits.max_compute_work_group_count[0];
    if groups > max_groups {
        return Err(format!(
            "n = {n} needs {groups} workgroups, device allows {max_groups}"
        ));
    }
    if size > vk::DeviceSize::from(props.limits.max_storage_buffer_range) {
        return Err(format!(
            "{size} bytes exceed maxStorageBufferRange {}",
            props.limits.max_storage_buffer_range
        ));
    }

    // SAFETY: see above.
    let queue = unsafe { device.get_device_queue(queue_family, 0) };
    if queue == vk::Queue::null() {
        return Err("vkGetDeviceQueue returned VK_NULL_HANDLE".to_owned());
    }

    // Buffer and host-visible coherent memory.
    let buffer_info = vk::BufferCreateInfo::default()
        .size(size)
        .usage(vk::BufferUsageFlags::STORAGE_BUFFER)
        .sharing_mode(vk::SharingMode::EXCLUSIVE);
    // SAFETY: see above.
    o.buffer =
        unsafe { device.create_buffer(&buffer_info, None) }.map_err(vk_err("vkCreateBuffer"))?;
    // SAFETY: see above.
    let requirements = unsafe { device.get_buffer_memory_requirements(o.buffer) };
    if requirements.size < size {
        return Err(format!(
            "vkGetBufferMemoryRequirements: size {} < buffer size {size}",
            requirements.size
        ));
    }
    // SAFETY: see above.
    let memory_props = unsafe { instance.get_physical_device_memory_properties(physical_device) };
    let wanted = vk::MemoryPropertyFlags::HOST_VISIBLE | vk::MemoryPropertyFlags::HOST_COHERENT;
    let memory_type = memory_props
        .memory_types_as_slice()
        .iter()
        .enumerate()
        .position(|(i, t)| {
            requirements.memory_type_bits & (1 << i) != 0 && t.property_flags.contains(wanted)
        })
        .ok_or_else(|| {
            format!(
                "no HOST_VISIBLE|HOST_COHERENT memory type in bits {:#x}",
                requirements.memory_type_bits
            )
        })?;
    let alloc_info = vk::MemoryAllocateInfo::default()
        .allocation_size(requirements.size)
        .memory_type_index(u32::try_from(memory_type).map_err(|_| "memory type index")?);
    // SAFETY: see above.
    o.memory =
        unsafe { device.allocate_memory(&alloc_info, None) }.map_err(vk_err("vkAllocateMemory"))?;
    // SAFETY: see above; the buffer is not bound yet and offset 0 satisfies any alignment.
    unsafe { device.bind_buffer_memory(o.buffer, o.memory, 0) }
        .map_err(vk_err("vkBindBufferMemory"))?;
    // SAFETY: see above; the memory is host visible and not mapped yet.
    let ptr = unsafe { device.map_memory(o.memory, 0, size, vk::MemoryMapFlags::empty()) }
        .map_err(vk_err("vkMapMemory"))?;
    o.mapped = true;
    if ptr.is_null() || !ptr.cast::<u32>().is_aligned() {
        return Err(format!("vkMapMemory returned an unusable pointer {ptr:p}"));
    }
    // SAFETY: the mapping is `size` = n * 4 bytes long, u32-aligned (checked), stays mapped
    // until `o` drops, and nothing else accesses it while this slice exists.
    let mapped = unsafe { std::slice::from_raw_parts_mut(ptr.cast::<u32>(), len) };
    mapped.fill(SENTINEL);

    // Descriptors.
    let bindings = [vk::DescriptorSetLayoutBinding::default()
        .binding(0)
        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
        .descriptor_count(1)
        .stage_flags(vk::ShaderStageFlags::COMPUTE)];
    let layout_info = vk::DescriptorSetLayoutCreateInfo::default().bindings(&bindings);
    // SAFETY: see above.
    o.set_layout = unsafe { device.create_descriptor_set_layout(&layout_info, None) }
        .map_err(vk_err("vkCreateDescriptorSetLayout"))?;
    let pool_sizes = [vk::DescriptorPoolSize::default()
        .ty(vk::DescriptorType::STORAGE_BUFFER)
        .descriptor_count(1)];
    let pool_info = vk::DescriptorPoolCreateInfo::default()
        .max_sets(1)
        .pool_sizes(&pool_sizes);
    // SAFETY: see above.
    o.descriptor_pool = unsafe { device.create_descriptor_pool(&pool_info, None) }
        .map_err(vk_err("vkCreateDescriptorPool"))?;
    let set_layouts = [o.set_layout];
    let set_info = vk::DescriptorSetAllocateInfo::default()
        .descriptor_pool(o.descriptor_pool)
        .set_layouts(&set_layouts);
    // SAFETY: see above.
    let sets = unsafe { device.allocate_descriptor_sets(&set_info) }
        .map_err(vk_err("vkAllocateDescriptorSets"))?;
    let [set] = sets[..] else {
        return Err(format!(
            "vkAllocateDescriptorSets returned {} sets, asked for 1",
            sets.len()
        ));
    };
    // The range is exactly n elements: the shader takes n from the runtime array length.
    let buffer_infos = [vk::DescriptorBufferInfo::default()
        .buffer(o.buffer)
        .offset(0)
        .range(size)];
    let writes = [vk::WriteDescriptorSet::default()
        .dst_set(set)
        .dst_binding(0)
        .descriptor_type(vk::DescriptorType::STORAGE_BUFFER)
        .buffer_info(&buffer_infos)];
    // SAFETY: see above.
    unsafe { device.update_descriptor_sets(&writes, &[]) };

    // Pipeline.
    let push_ranges = [vk::PushConstantRange::default()
        .stage_flags(vk::ShaderStageFlags::COMPUTE)
        .offset(0)
        .size(4)];
    let pipeline_layout_info = vk::PipelineLayoutCreateInfo::default()
        .set_layouts(&set_layouts)
        .push_constant_ranges(&push_ranges);
    // SAFETY: see above.
    o.pipeline_layout = unsafe { device.create_pipeline_layout(&pipeline_layout_info, None) }
        .map_err(vk_err("vkCreatePipelineLayout"))?;
    let code = crate::paths::shader("fill.comp");
    let module_info = vk::ShaderModuleCreateInfo::default().code(&code);
    // SAFETY: see above; `code` is SPIR-V compiled by build.rs.
    o.shader_module = unsafe { device.create_shader_module(&module_info, None) }
        .map_err(vk_err("vkCreateShaderModule"))?;
    let stage = vk::PipelineShaderStageCreateInfo::default()
        .stage(vk::ShaderStageFlags::COMPUTE)
        .module(o.shader_module)
        .name(c"main");
    let pipeline_info = [vk::ComputePipelineCreateInfo::default()
        .stage(stage)
        .layout(o.pipeline_layout)];
    // SAFETY: see above.
    let pipelines =
        unsafe { device.create_compute_pipelines(vk::PipelineCache::null(), &pipeline_info, None) };
    let pipelines = match pipelines {
        Ok(pipelines) => pipelines,
        Err((partial, e)) => {
            for p in partial.into_iter().filter(|&p| p != vk::Pipeline::null()) {
                // SAFETY: `p` was created from `device` just now and is not used anywhere.
                unsafe { device.destroy_pipeline(p, None) };
            }
            return Err(format!("vkCreateComputePipelines failed: {e:?}"));
        }
    };
    let [pipeline] = pipelines[..] else {
        return Err(format!(
            "vkCreateComputePipelines returned {} pipelines, asked for 1",
            pipelines.len()
        ));
    };
    o.pipeline = pipeline;
    if o.pipeline == vk::Pipeline::null() {
        return Err("vkCreateComputePipelines succeeded with VK_NULL_HANDLE".to_owned());
    }

    // Commands.
    let pool_info = vk::CommandPoolCreateInfo::default().queue_family_index(queue_family);
    // SAFETY: see above.
    o.command_pool = unsafe { device.create_command_pool(&pool_info, None) }
        .map_err(vk_err("vkCreateCommandPool"))?;
    let cb_info = vk::CommandBufferAllocateInfo::default()
        .command_pool(o.command_pool)
        .level(vk::CommandBufferLevel::PRIMARY)
        .command_buffer_count(1);
    // SAFETY: see above.
    let cbs = unsafe { device.allocate_command_buffers(&cb_info) }
        .map_err(vk_err("vkAllocateCommandBuffers"))?;
    let [cb] = cbs[..] else {
        return Err(format!(
            "vkAllocateCommandBuffers returned {} buffers, asked for 1",
            cbs.len()
        ));
    };
    let begin =
        vk::CommandBufferBeginInfo::default().flags(vk::CommandBufferUsageFlags::ONE_TIME_SUBMIT);
    let barrier = [vk::BufferMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::SHADER_WRITE)
        .dst_access_mask(vk::AccessFlags::HOST_READ)
        .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
        .buffer(o.buffer)
        .offset(0)
        .size(vk::WHOLE_SIZE)];
    // SAFETY: see above; `cb` is a fresh primary command buffer from a pool of this queue's
    // family, recorded once here by this thread only.
    unsafe {
        device
            .begin_command_buffer(cb, &begin)
            .map_err(vk_err("vkBeginCommandBuffer"))?;
        device.cmd_bind_pipeline(cb, vk::PipelineBindPoint::COMPUTE, o.pipeline);
        device.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            o.pipeline_layout,
            0,
            &[set],
            &[],
        );
        device.cmd_push_constants(
            cb,
            o.pipeline_layout,
            vk::ShaderStageFlags::COMPUTE,
            0,
            &multiplier.to_ne_bytes(),
        );
        device.cmd_dispatch(cb, groups, 1, 1);
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::COMPUTE_SHADER,
            vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::empty(),
            &[],
            &barrier,
            &[],
        );
        device
            .end_command_buffer(cb)
            .map_err(vk_err("vkEndCommandBuffer"))?;
    }

    // Submit and wait.
    // SAFETY: see above.
    o.fence = unsafe { device.create_fence(&vk::FenceCreateInfo::default(), None) }
        .map_err(vk_err("vkCreateFence"))?;
    let cbs = [cb];
    let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
    // SAFETY: see above; `cb` is fully recorded, the queue is used by this thread only, and the
    // fence is unsignalled.
    unsafe { device.queue_submit(queue, &submit, o.fence) }.map_err(vk_err("vkQueueSubmit"))?;
    let timeout_ns = u64::try_from(FENCE_TIMEOUT.as_nanos()).unwrap_or(u64::MAX);
    // SAFETY: see above.
    match unsafe { device.wait_for_fences(&[o.fence], true, timeout_ns) } {
        Ok(()) => {}
        Err(vk::Result::TIMEOUT) => {
            return Err(format!(
                "the dispatch did not finish within {FENCE_TIMEOUT:?}"
            ))
        }
        Err(e) => return Err(format!("vkWaitForFences failed: {e:?}")),
    }
    // SAFETY: see above.
    let signalled =
        unsafe { device.get_fence_status(o.fence) }.map_err(vk_err("vkGetFenceStatus"))?;
    if !signalled {
        return Err(
            "vkWaitForFences returned VK_SUCCESS but the fence is not signalled".to_owned(),
        );
    }

    // Coherent memory, made host-visible by the barrier and the fence wait.
    Ok(mapped.to_vec())
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn expected_fill_formula() {
        let v = expected_fill(20, 3);
        assert_eq!(v.len(), 20);
        assert_eq!(v[0], 7);
        assert_eq!(v[1], 10);
        assert_eq!(v[8], (8 * 3 + 7) ^ 1);
        assert_eq!(v[19], (19 * 3 + 7) ^ 2);
        // Wrapping multiplication.
        let w = expected_fill(3, 0x8000_0001);
        assert_eq!(w, [7, 0x8000_0008, 9]);
    }

    #[test]
    fn verify_fill_reports_mismatches() {
        let mut v = expected_fill(100, 5);
        assert_eq!(verify_fill(&v, 100, 5), Ok(()));
        v[42] ^= 1;
        let err = verify_fill(&v, 100, 5).unwrap_err();
        assert!(err.contains("1 of 100 elements wrong"), "{err}");
        assert!(err.contains("[42]"), "{err}");
        assert!(verify_fill(&v[..99], 100, 5)
            .unwrap_err()
            .contains("99 elements"));
    }
}
