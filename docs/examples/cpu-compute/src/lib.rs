//! cpu-compute: a Vulkan 1.3 device on vkgen's driver kit whose engine runs compute shaders on
//! the CPU — the proof that a vendor with a shader core ships on the kit (issue 31). The kit
//! answers the API: queues and sync, memory and buffers, descriptors, shader modules and
//! pipelines (parsed and reflected), the recorder and the bound state at every dispatch, and
//! the transfer commands on host memory (`HOST_TRANSFERS`). This file describes the device,
//! compiles each compute pipeline into the executor (`cpu_compute_exec`, the crate in
//! `exec/`) and runs dispatches with it, workgroups spread over every core.
//!
//! Honest features: the device advertises what the executor runs ([`cpu_compute_exec::SUPPORTED`]);
//! a shader that needs more is refused at `vkCreateComputePipelines` with the reason logged.

pub mod vkgen;

use cpu_compute_exec::{Program, Resources, Span, SUPPORTED};
use vkgen_driver::abi::vk_error;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::generated::vk;
use vkgen_driver::kit::command::{CommandBuffer, Execute};
use vkgen_driver::kit::native_buffer::{GrallocQueries, NativeBuffers};
use vkgen_driver::kit::pipeline::{ComputePipeline, Pipeline};
use vkgen_driver::kit::queue::{Batch, Completion, Worker};
use vkgen_driver::kit::resources::{address, Buffer};
use vkgen_driver::kit::state::{Bound, BoundState, Tracked};
use vkgen_driver::kit::{self, Device, Kit, PhysicalDeviceDesc, Queue};

pub struct CpuCompute;

impl DriverModule for CpuCompute {
    const NAME: &'static core::ffi::CStr = c"cpu-compute Vulkan driver";
}

// The device description.
impl Kit for CpuCompute {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = Worker;
    type CommandBuffer = ();
    type CommandPool = ();
    const SYNC_OBJECTS: bool = true;
    const RESOURCE_OBJECTS: bool = true;
    const RECORD_COMMANDS: bool = true;
    const HOST_TRANSFERS: bool = true;
    const DESCRIPTOR_OBJECTS: bool = true;
    const SHADER_OBJECTS: bool = true;
    const PIPELINE_OBJECTS: bool = true;
    const RENDER_PASS_OBJECTS: bool = true;

    fn physical_devices(
        _: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        // The default: one graphics+compute+transfer family, one host-visible coherent heap,
        // every feature Vulkan 1.3 requires. Add what the executor runs beyond that.
        let mut d = PhysicalDeviceDesc::new(c"cpu-compute", ());
        let (f, p) = (&mut d.features, &mut d.properties);
        for (name, on) in SUPPORTED.vulkan_features() {
            f.set(name, on);
        }
        p.subgroup_size = SUPPORTED.subgroup_size;
        p.min_subgroup_size = SUPPORTED.subgroup_size;
        p.max_subgroup_size = SUPPORTED.subgroup_size;
        p.subgroup_supported_stages = vk::ShaderStageFlags::COMPUTE;
        p.required_subgroup_size_stages = vk::ShaderStageFlags::COMPUTE;
        let ops = SUPPORTED.subgroup_operations.vk_bits();
        p.subgroup_supported_operations = vk::SubgroupFeatureFlags::from_raw(ops);
        p.max_compute_shared_memory_size = 32768;
        p.max_compute_work_group_invocations = SUPPORTED.max_workgroup_invocations;
        p.max_compute_work_group_size = [SUPPORTED.max_workgroup_invocations, 1024, 64];
        // Fragment outputs share this with storage resources (wgpu divides it among them).
        p.max_fragment_combined_output_resources = 64;
        p.max_per_stage_descriptor_storage_buffers = 16;
        p.max_descriptor_set_storage_buffers = 96;
        p.max_descriptor_set_storage_buffers_dynamic = 8;
        Ok(vec![d])
    }

    fn device_extensions() -> &'static [ExtensionId] {
        // The native buffers the loader's swapchain is built on (the kit's images, written by
        // copies, clears and blits).
        &[ExtensionId::ANDROID_NATIVE_BUFFER]
    }

    fn compile_pipeline(_: &Device<Self>, pipeline: &Pipeline) -> Result<(), vk::Result> {
        let Some(ComputePipeline { stage, .. }) = pipeline.compute() else {
            return Err(vk_error!(
                vk::Result::ERROR_UNKNOWN,
                "cpu-compute runs no graphics shaders: this graphics pipeline cannot be created"
            ));
        };
        let code = stage.module.instructions().map(|i| (i.opcode, i.operands));
        let program = Program::new(code, &stage.entry_point, &stage.specialization)
            .map_err(|e| vk_error!(vk::Result::ERROR_UNKNOWN, "{}: {e}", stage.entry_point))?;
        pipeline.vendor().set(program);
        Ok(())
    }

    fn driver_submit(
        queue: &Queue<Self>,
        batch: &Batch,
        done: Completion,
    ) -> Result<(), vk::Result> {
        let run = |cb: &CommandBuffer<Self>| cb.replay_tracked(&mut Engine::default());
        queue.data.replay(batch, done, run);
        Ok(())
    }
}

// The loader's swapchain images: the kit's native-buffer images and native fences (on the
// kit's sync objects).
impl NativeBuffers for CpuCompute {
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::ALL;
    const NATIVE_FENCES: bool = true;
}

#[vkgen_driver::driver(kit)]
impl Driver for CpuCompute {
    const API_VERSION: u32 = vkgen::API_VERSION;
}

vkgen_driver::export_driver!(CpuCompute);

// The engine.

/// Runs dispatches with the bound pipeline's [`Program`]; the kit does everything else.
#[derive(Default)]
struct Engine {
    bound: BoundState,
}

impl Tracked for Engine {
    fn bound(&mut self) -> &mut BoundState {
        &mut self.bound
    }
}

/// What a dispatch's shader reads: the bound descriptors and push constants.
struct Bindings<'a>(Bound<'a, ComputePipeline>);

// SAFETY: every span is a bound buffer descriptor's host bytes (`Bound::buffer` checked the
// range against the buffer) or the rest of a live allocation holding a device address
// (`memory_at`); both stay alive while the command buffer is pending (the spec's validity rules
// for bound and addressed memory), which outlasts the dispatch.
unsafe impl Resources for Bindings<'_> {
    fn buffer(&self, set: u32, binding: u32, element: u32) -> Option<Span> {
        let b = self.0.buffer(set, binding, element)?;
        Some(Span {
            ptr: b.ptr,
            len: usize::try_from(b.range).ok()?,
        })
    }

    fn push_constants(&self) -> &[u8] {
        self.0.push_constants()
    }

    fn address_range(&self, addr: u64) -> Option<Span> {
        let (ptr, len) = address::memory_at(addr)?;
        Some(Span { ptr, len })
    }
}

impl Engine {
    fn dispatch(&self, base: [u32; 3], count: [u32; 3]) {
        let Some(bound) = self.bound.compute() else {
            return;
        };
        let Some(program) = bound.pipeline.vendor.get::<Program>() else {
            return;
        };
        let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
        if let Err(e) = program.dispatch(&Bindings(bound), base, count, threads) {
            let _ = vk_error!(vk::Result::ERROR_DEVICE_LOST, "vkCmdDispatch: {e}");
        }
    }
}

#[vkgen_driver::execute]
impl Execute for Engine {
    unsafe fn cmd_dispatch(&mut self, x: u32, y: u32, z: u32) {
        self.dispatch([0; 3], [x, y, z]);
    }

    unsafe fn cmd_dispatch_base(&mut self, bx: u32, by: u32, bz: u32, x: u32, y: u32, z: u32) {
        self.dispatch([bx, by, bz], [x, y, z]);
    }

    unsafe fn cmd_dispatch_indirect(&mut self, buffer: vk::Buffer, offset: u64) {
        // SAFETY: the recorded buffer outlives the pending batch (valid usage); `from_handle`
        // checks its type.
        let Some(b) = (unsafe { Buffer::from_handle(buffer) }) else {
            return;
        };
        let Some(p) = b
            .host_ptr()
            .filter(|_| offset.saturating_add(12) <= b.desc.size)
        else {
            return;
        };
        // SAFETY: the 12 bytes of a VkDispatchIndirectCommand at `offset` lie in the buffer.
        let c = unsafe { p.add(offset as usize).cast::<[u32; 3]>().read_unaligned() };
        self.dispatch([0; 3], c);
    }
}
