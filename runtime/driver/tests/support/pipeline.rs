//! The pipeline tests' fixture: a kit driver with commands recorded, the sync core, resource
//! objects and `PIPELINE_OBJECTS`, whose submit replays every command buffer through a CPU
//! engine with bound-state tracking (`replay_tracked`). The engine runs `tests/shaders/fill.comp`
//! by hand at `cmd_dispatch` — from the resolved state alone — and snapshots what each draw and
//! dispatch sees for the tests to check.
//!
//! Descriptor set layouts, pipeline layouts, sets, shader modules and caches are made here with
//! the contract's fields (`make_*`): the shader and descriptor components are other helpers'
//! and their entry points are not in this branch; at merge these helpers become the entry
//! points.
#![allow(dead_code)]

use std::ffi::CStr;
use std::sync::{Arc, Mutex};

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::handles::create_object;
use vkgen_driver::kit::command::{CommandBuffer, Execute};
use vkgen_driver::kit::descriptor::{
    Descriptor, DescriptorSet, DescriptorSetLayout, DescriptorStore, DescriptorUpdateTemplate,
    PipelineLayout, PipelineLayoutInfo, SetLayout, SetLayoutBinding, TemplateEntry, UpdateTemplate,
};
use vkgen_driver::kit::pipeline::Pipeline;
use vkgen_driver::kit::queue::{Batch, Completion};
use vkgen_driver::kit::shader::{PipelineCache, ShaderModule, SpirvModule};
use vkgen_driver::kit::state::{BoundState, GraphicsState, Tracked};
use vkgen_driver::kit::{self, Kit};

pub struct Fx;

impl DriverModule for Fx {
    const NAME: &'static CStr = c"pipeline fixture";
}

impl Kit for Fx {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RECORD_COMMANDS: bool = true;
    const SYNC_OBJECTS: bool = true;
    const RESOURCE_OBJECTS: bool = true;
    const PIPELINE_OBJECTS: bool = true;

    fn compile_pipeline(
        _device: &kit::Device<Self>,
        pipeline: &Pipeline,
    ) -> Result<(), vk::Result> {
        // The engine refuses what it cannot run: here, an entry point named `refused`.
        match pipeline.stages().iter().any(|s| s.entry_point == "refused") {
            true => Err(vk::Result::ERROR_UNKNOWN),
            false => Ok(()),
        }
    }

    fn driver_submit(
        _queue: &kit::Queue<Self>,
        batch: &Batch,
        _completion: Completion,
    ) -> Result<(), vk::Result> {
        for &cb in &batch.command_buffers {
            // SAFETY: the batch holds command buffers of this device, alive until it completes.
            if let Some(cb) = unsafe { CommandBuffer::<Self>::from_handle(cb) } {
                cb.replay_tracked(&mut Engine::default());
            }
        }
        Ok(())
    }
}

impl kit::native_buffer::NativeBuffers for Fx {}

#[vkgen_driver::driver(kit)]
impl Driver for Fx {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
}

/// What one draw or dispatch saw.
#[derive(Clone, Debug)]
pub struct Seen {
    pub what: &'static str,
    pub workgroup: Option<[u32; 3]>,
    /// Set numbers with something bound.
    pub sets: Vec<u32>,
    /// `descriptor(0, 0, 0)`.
    pub descriptor: Option<Descriptor>,
    pub push: Vec<u8>,
    pub state: Option<GraphicsState>,
    pub vertex_buffers: usize,
    pub index_size: Option<Option<u64>>,
}

/// Every draw and dispatch of the process's replays, in order.
pub static SEEN: Mutex<Vec<Seen>> = Mutex::new(Vec::new());

#[derive(Default)]
pub struct Engine {
    bound: BoundState,
}

impl Tracked for Engine {
    fn bound(&mut self) -> &mut BoundState {
        &mut self.bound
    }
}

impl Engine {
    fn graphics_seen(&self, what: &'static str) {
        let g = self.bound.graphics();
        SEEN.lock().unwrap().push(Seen {
            what,
            workgroup: None,
            sets: sets(&self.bound, vk::PipelineBindPoint::GRAPHICS),
            descriptor: g.as_ref().and_then(|g| g.descriptor(0, 0, 0)),
            push: g
                .as_ref()
                .map(|g| g.push_constants().to_vec())
                .unwrap_or_default(),
            state: self.bound.graphics_state().cloned(),
            vertex_buffers: self.bound.vertex_buffers.iter().flatten().count(),
            index_size: self.bound.index_buffer.map(|i| i.size),
        });
    }
}

fn sets(b: &BoundState, p: vk::PipelineBindPoint) -> Vec<u32> {
    let pt = b.point(p);
    (0..pt.sets.len() as u32)
        .filter(|&i| pt.sets[i as usize].is_some())
        .collect()
}

#[vkgen_driver::execute]
impl Execute for Engine {
    /// `fill.comp`, run by hand: `data[i] = (i * multiplier + 7) ^ (i >> 3)` for every
    /// invocation inside the bound range, read from the resolved state only.
    unsafe fn cmd_dispatch(&mut self, x: u32, _y: u32, _z: u32) {
        let Some(c) = self.bound.compute() else {
            return;
        };
        let wg = c.workgroup_size();
        let push = c.push_constants().to_vec();
        SEEN.lock().unwrap().push(Seen {
            what: "dispatch",
            workgroup: Some(wg),
            sets: sets(&self.bound, vk::PipelineBindPoint::COMPUTE),
            descriptor: c.descriptor(0, 0, 0),
            push: push.clone(),
            state: None,
            vertex_buffers: 0,
            index_size: None,
        });
        assert!(!c.module().words().is_empty());
        let (Some(buf), Some(m)) = (c.buffer(0, 0, 0), push.get(..4)) else {
            return;
        };
        let multiplier = u32::from_le_bytes(m.try_into().unwrap());
        let n = (buf.range / 4) as u32;
        for i in 0..(x * wg[0]).min(n) {
            let v = (i.wrapping_mul(multiplier).wrapping_add(7)) ^ (i >> 3);
            // SAFETY: `i < range / 4`: inside the bound range of the buffer's host memory.
            unsafe { buf.ptr.cast::<u32>().add(i as usize).write_unaligned(v) };
        }
    }

    unsafe fn cmd_draw(&mut self, _v: u32, _i: u32, _fv: u32, _fi: u32) {
        self.graphics_seen("draw");
    }

    unsafe fn cmd_draw_indexed_indirect(
        &mut self,
        _buffer: vk::Buffer,
        _offset: u64,
        _count: u32,
        _stride: u32,
    ) {
        self.graphics_seen("draw_indexed_indirect");
    }
}

/// SPIR-V of a GLSL file under `tests/shaders/`, compiled now with `glslangValidator`.
/// With `entry`, the entry point is renamed to it.
pub fn spirv(name: &str, entry: Option<&str>) -> Vec<u32> {
    let src = concat!(env!("CARGO_MANIFEST_DIR"), "/../../tests/shaders/");
    let tag = entry.unwrap_or("main");
    let out = std::env::temp_dir().join(format!(
        "vkgen-pipe-{}-{tag}-{name}.spv",
        std::process::id()
    ));
    let mut cmd = std::process::Command::new("glslangValidator");
    if let Some(e) = entry {
        cmd.args(["-e", e, "--source-entrypoint", "main"]);
    }
    let status = cmd
        .args(["-V", "--quiet", "-o"])
        .arg(&out)
        .arg(format!("{src}{name}"))
        .status()
        .expect("glslangValidator (apt-get install glslang-tools)");
    assert!(status.success(), "glslangValidator failed on {name}");
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

fn store<T: vkgen_driver::handles::ObjectKind, H: vk::Handle>(v: T) -> H {
    // SAFETY: no allocator; the object is destroyed with the process.
    H::from_raw(unsafe { create_object(v, std::ptr::null()) }.unwrap())
}

pub fn make_module(words: &[u32]) -> vk::ShaderModule {
    store(ShaderModule {
        code: Arc::new(SpirvModule::parse(words).unwrap()),
    })
}

pub fn make_cache() -> vk::PipelineCache {
    // An empty cache under an all-zero header (no device to take a pipelineCacheUUID from).
    store(PipelineCache::new([0; 32], &[]))
}

pub fn set_layout(
    bindings: &[(u32, vk::DescriptorType)],
    flags: vk::DescriptorSetLayoutCreateFlags,
) -> Arc<SetLayout> {
    Arc::new(SetLayout {
        flags,
        bindings: bindings
            .iter()
            .map(|&(binding, descriptor_type)| SetLayoutBinding {
                binding,
                descriptor_type,
                count: 1,
                stages: vk::ShaderStageFlags::ALL,
                flags: vk::DescriptorBindingFlags::empty(),
                immutable_samplers: Vec::new(),
                mutable_types: Vec::new(),
            })
            .collect(),
        ..SetLayout::default()
    })
}

pub fn make_set_layout(layout: &Arc<SetLayout>) -> vk::DescriptorSetLayout {
    store(DescriptorSetLayout {
        layout: layout.clone(),
    })
}

/// A pipeline layout of `sets` with one 16-byte push range; `id` its identity's first byte.
pub fn make_layout(sets: &[Arc<SetLayout>], id: u8) -> vk::PipelineLayout {
    let mut identity = [0u8; 32];
    identity[0] = id;
    store(PipelineLayout {
        layout: Arc::new(PipelineLayoutInfo {
            flags: vk::PipelineLayoutCreateFlags::empty(),
            set_layouts: sets.iter().cloned().map(Some).collect(),
            push_constant_ranges: vec![vk::PushConstantRange {
                stage_flags: vk::ShaderStageFlags::ALL,
                offset: 0,
                size: 16,
            }],
            identity,
            set_identities: vec![identity; sets.len()],
        }),
    })
}

/// A set of `layout` whose binding 0 is `buffer`'s `[offset, offset + range)`.
pub fn make_set(
    layout: &Arc<SetLayout>,
    buffer: vk::Buffer,
    offset: u64,
    range: u64,
) -> vk::DescriptorSet {
    let set = DescriptorSet {
        store: DescriptorStore::new(layout.clone(), 0),
    };
    let info = [vk::DescriptorBufferInfo {
        buffer,
        offset,
        range,
    }];
    let w = vk::WriteDescriptorSet::default()
        .dst_binding(0)
        .descriptor_type(layout.bindings[0].descriptor_type)
        .buffer_info(&info);
    // SAFETY: a valid write of one buffer descriptor.
    unsafe { set.store.write(&w) };
    store(set)
}

/// One test at a time: the engine reports through the process-wide [`SEEN`].
static SERIAL: Mutex<()> = Mutex::new(());

/// A compute push-descriptor template of one buffer info at offset 0 for binding 0.
pub fn make_push_template() -> vk::DescriptorUpdateTemplate {
    store(DescriptorUpdateTemplate {
        template: Arc::new(UpdateTemplate {
            template_type: vk::DescriptorUpdateTemplateType::PUSH_DESCRIPTORS_KHR,
            entries: vec![TemplateEntry {
                binding: 0,
                array_element: 0,
                count: 1,
                descriptor_type: vk::DescriptorType::STORAGE_BUFFER,
                offset: 0,
                stride: 24,
            }],
            set_layout: None,
            pipeline_layout: None,
            bind_point: vk::PipelineBindPoint::COMPUTE,
            set: 0,
        }),
    })
}

pub struct Setup {
    _serial: std::sync::MutexGuard<'static, ()>,
    pub instance: ash::Instance,
    pub device: ash::Device,
    pub queue: vk::Queue,
    pub pool: vk::CommandPool,
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: objects of this test, destroyed once, children first.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

pub fn setup() -> Setup {
    let serial = SERIAL
        .lock()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (instance, device) = crate::support::instance_and_device::<Fx>(vk::API_VERSION_1_3, 1);
    // SAFETY: a live device; valid create infos.
    unsafe {
        let queue = device.get_device_queue(0, 0);
        let pool = device
            .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
            .unwrap();
        Setup {
            _serial: serial,
            instance,
            device,
            queue,
            pool,
        }
    }
}

impl Setup {
    /// A host-visible buffer of `size` bytes, bound, and its host bytes.
    pub fn buffer(&self, size: u64) -> (vk::Buffer, *mut u8) {
        let d = &self.device;
        // SAFETY: a live device; valid structures; memory type 0 is host-visible.
        unsafe {
            let b = d
                .create_buffer(
                    &vk::BufferCreateInfo::default()
                        .size(size)
                        .usage(vk::BufferUsageFlags::STORAGE_BUFFER),
                    None,
                )
                .unwrap();
            let req = d.get_buffer_memory_requirements(b);
            let m = d
                .allocate_memory(
                    &vk::MemoryAllocateInfo::default().allocation_size(req.size),
                    None,
                )
                .unwrap();
            d.bind_buffer_memory(b, m, 0).unwrap();
            let p = d
                .map_memory(m, 0, vk::WHOLE_SIZE, vk::MemoryMapFlags::empty())
                .unwrap();
            (b, p.cast())
        }
    }

    /// Records with `f`, submits, waits; returns what the draws and dispatches saw.
    pub fn run(&self, f: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> Vec<Seen> {
        let d = &self.device;
        // SAFETY: a live device and pool; the buffer is recorded, submitted and waited for.
        unsafe {
            let cb = d
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            f(d, cb);
            d.end_command_buffer(cb).unwrap();
            SEEN.lock().unwrap().clear();
            let cbs = [cb];
            d.queue_submit(
                self.queue,
                &[vk::SubmitInfo::default().command_buffers(&cbs)],
                vk::Fence::null(),
            )
            .unwrap();
            d.queue_wait_idle(self.queue).unwrap();
            d.free_command_buffers(self.pool, &cbs);
            std::mem::take(&mut *SEEN.lock().unwrap())
        }
    }

    /// A compute pipeline of `fill.comp` (or the module given) on `layout`.
    pub fn compute(&self, module: vk::ShaderModule, layout: vk::PipelineLayout) -> vk::Pipeline {
        let stage = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(module)
            .name(c"main");
        let ci = vk::ComputePipelineCreateInfo::default()
            .stage(stage)
            .layout(layout);
        // SAFETY: a live device and a valid create info.
        unsafe {
            self.device
                .create_compute_pipelines(vk::PipelineCache::null(), &[ci], None)
                .unwrap()[0]
        }
    }
}

/// The raw value of a handle, for messages.
pub fn raw<H: vk::Handle>(h: H) -> u64 {
    h.as_raw()
}
