//! copy-engine: a CPU copy-and-fill Vulkan 1.3 device on vkgen's driver kit — the proof that a
//! vendor ships on the kit (issue 20). The kit answers the API: the queue and sync core holds
//! each batch until its waits resolve (timeline and binary semaphores across queues, host
//! signals), the resource objects keep memory and buffers, the generated recorder records
//! every `vkCmd*`, and each queue's batches run on a worker thread of its own (the kit's
//! `queue::Worker`). This file only describes the device and runs the transfer commands (its
//! own engine, on purpose: it demonstrates one; `Kit::HOST_TRANSFERS` stays off). What a copy
//! engine has no hardware for (pipelines, rendering) answers as vkgen's null driver
//! (`NULL_OBJECTS`).

pub mod vkgen;

use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::generated::vk;
use vkgen_driver::kit::command::{CommandBuffer, Execute};
use vkgen_driver::kit::native_buffer::NativeBuffers;
use vkgen_driver::kit::queue::{Batch, Completion, Worker};
use vkgen_driver::kit::resources::Buffer;
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc, Queue};

pub struct CopyEngine;

impl DriverModule for CopyEngine {
    const NAME: &'static core::ffi::CStr = c"copy-engine Vulkan driver";
}

// The device description.
impl Kit for CopyEngine {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = Worker;
    type CommandBuffer = ();
    type CommandPool = ();
    const NULL_OBJECTS: bool = true;
    const SYNC_OBJECTS: bool = true;
    const RESOURCE_OBJECTS: bool = true;
    const RECORD_COMMANDS: bool = true;

    fn physical_devices(
        _: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        // The default device has one graphics+compute+transfer family and one host-visible,
        // coherent heap; add the transfer-only family.
        let mut device = PhysicalDeviceDesc::new(c"copy-engine", ());
        let transfer = vk::QueueFamilyProperties {
            queue_flags: vk::QueueFlags::TRANSFER,
            ..device.queue_families[0]
        };
        device.queue_families.push(transfer);
        Ok(vec![device])
    }

    fn driver_submit(
        queue: &Queue<Self>,
        batch: &Batch,
        done: Completion,
    ) -> Result<(), vk::Result> {
        queue
            .data
            .replay(batch, done, |cb: &CommandBuffer<Self>| cb.replay(&mut Engine));
        Ok(())
    }
}

impl NativeBuffers for CopyEngine {}

#[vkgen_driver::driver(kit)]
impl Driver for CopyEngine {
    const API_VERSION: u32 = vkgen::API_VERSION;
}

vkgen_driver::export_driver!(CopyEngine);

// The engine.

/// Runs the transfer commands on the buffers' bytes (the kit keeps every buffer in host memory).
struct Engine;

/// `size` bytes of `buffer` from `offset` (`VK_WHOLE_SIZE`: to the end), if the buffer is bound
/// and the range lies inside it.
///
/// # Safety
/// `buffer` is null or a live buffer of this driver.
unsafe fn span(buffer: vk::Buffer, offset: u64, size: u64) -> Option<(*mut u8, usize)> {
    // SAFETY: the caller's buffer handle; `from_handle` checks its type.
    let b = unsafe { Buffer::from_handle(buffer) }?;
    let size = if size == vk::WHOLE_SIZE {
        b.desc.size.checked_sub(offset)?
    } else {
        size
    };
    if offset.checked_add(size)? > b.desc.size {
        return None;
    }
    // SAFETY: `offset` lies inside the buffer, whose bytes `host_ptr` starts.
    Some((unsafe { b.host_ptr()?.add(offset as usize) }, size as usize))
}

/// `memmove`s one region between (possibly the same) buffers.
///
/// # Safety
/// Both buffers are null or live buffers of this driver, not accessed by anyone else meanwhile.
unsafe fn copy(src: vk::Buffer, dst: vk::Buffer, from: u64, to: u64, size: u64) {
    // SAFETY: the caller's live buffers; the spans were bounds-checked.
    if let (Some((s, n)), Some((d, m))) = unsafe { (span(src, from, size), span(dst, to, size)) } {
        // SAFETY: both spans hold `min(n, m)` bytes; `copy` allows overlap.
        unsafe { std::ptr::copy(s, d, n.min(m)) };
    }
}

#[vkgen_driver::execute]
impl Execute for Engine {
    unsafe fn cmd_fill_buffer(&mut self, dst: vk::Buffer, offset: u64, size: u64, data: u32) {
        // SAFETY: the recorded buffer outlives the pending batch (valid usage).
        if let Some((d, n)) = unsafe { span(dst, offset, size) } {
            for i in 0..n / 4 {
                // SAFETY: `4 * i + 4 <= n` bytes of the span (VK_WHOLE_SIZE rounds down to 4).
                unsafe { d.add(4 * i).cast::<u32>().write_unaligned(data) };
            }
        }
    }

    unsafe fn cmd_update_buffer(
        &mut self,
        dst: vk::Buffer,
        offset: u64,
        size: u64,
        data: *const core::ffi::c_void,
    ) {
        // SAFETY: the recorded buffer outlives the batch; `data` is the recording's copy of
        // `dataSize` bytes.
        if let Some((d, n)) = unsafe { span(dst, offset, size) } {
            unsafe { std::ptr::copy_nonoverlapping(data.cast::<u8>(), d, n) };
        }
    }

    unsafe fn cmd_copy_buffer(
        &mut self,
        src: vk::Buffer,
        dst: vk::Buffer,
        count: u32,
        regions: *const vk::BufferCopy,
    ) {
        // SAFETY: the recording's copy of `regionCount` regions.
        for r in unsafe { std::slice::from_raw_parts(regions, count as usize) } {
            // SAFETY: the recorded buffers outlive the batch.
            unsafe { copy(src, dst, r.src_offset, r.dst_offset, r.size) };
        }
    }

    unsafe fn cmd_copy_buffer2(&mut self, info: *const vk::CopyBufferInfo2<'_>) {
        // SAFETY: the recording's copy of the structure and its `regionCount` regions.
        let i = unsafe { &*info };
        for r in unsafe { std::slice::from_raw_parts(i.p_regions, i.region_count as usize) } {
            // SAFETY: the recorded buffers outlive the batch.
            unsafe {
                copy(
                    i.src_buffer,
                    i.dst_buffer,
                    r.src_offset,
                    r.dst_offset,
                    r.size,
                )
            };
        }
    }

    // A queue runs its commands one after another on one thread: barriers have nothing to order.
    #[allow(clippy::too_many_arguments)]
    unsafe fn cmd_pipeline_barrier(
        &mut self,
        _: vk::PipelineStageFlags,
        _: vk::PipelineStageFlags,
        _: vk::DependencyFlags,
        _: u32,
        _: *const vk::MemoryBarrier<'_>,
        _: u32,
        _: *const vk::BufferMemoryBarrier<'_>,
        _: u32,
        _: *const vk::ImageMemoryBarrier<'_>,
    ) {
    }

    unsafe fn cmd_pipeline_barrier2(&mut self, _: *const vk::DependencyInfo<'_>) {}
}
