//! The kit's queue and sync core (issue 20) through the real entry points of a small CPU
//! "copy engine": `vkCmdFillBuffer` / `vkCmdCopyBuffer` on one-word buffers, run by the
//! vendor's `driver_submit` on the submitting or submit thread (queue 0) or on the vendor's own
//! worker thread that completes later (queue 1, an asynchronous queue). Ordering is checked by
//! the work's effects: a copy that ran before the fill it waited for copies the old word.
//!
//! Covered: timeline wait-before-signal across queues, a binary semaphore signalled on one
//! queue and waited on the other (10 rounds, the signal still pending when the wait is
//! submitted), a host `vkSignalSemaphore` releasing a held batch, `vkWaitSemaphores` and
//! `vkWaitForFences` any/all with timeouts, a completion on a vendor's "hardware" payload, `vkQueueWaitIdle` / `vkDeviceWaitIdle` over held
//! batches, device destruction with held work, and a vendor completion reporting failure
//! (`VK_ERROR_DEVICE_LOST`).

#![warn(clippy::undocumented_unsafe_blocks)]

mod support;

use std::collections::HashMap;
use std::ffi::CStr;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::mpsc::{channel, Sender};
use std::sync::Mutex;
use std::thread::JoinHandle;
use std::time::{Duration, Instant};

use ash::vk;
use ash::vk::Handle as _;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::{get_instance_proc_addr, Driver};
use vkgen_driver::kit::command::CommandBuffer;
use vkgen_driver::kit::queue::{Batch, Completion};
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc};
use vkgen_driver::sync_fd::{FenceSignaller, NativeFence};

/// A fill with this word fails on the device (the vendor reports the batch lost).
const POISON: u32 = 0xDEAD;

/// A fill with this word completes when [`HARDWARE_DONE`] fires (queue 0 hands the kit its
/// "hardware" payload through `Completion::after` instead of completing on return).
const HARDWARE: u32 = 0xA11;
static HARDWARE_DONE: Mutex<Option<NativeFence>> = Mutex::new(None);

/// The engine's memory: one word per buffer.
static MEMORY: Mutex<Option<HashMap<u64, u32>>> = Mutex::new(None);
static NEXT_BUFFER: AtomicU64 = AtomicU64::new(1);

fn word(buffer: vk::Buffer) -> Option<u32> {
    MEMORY
        .lock()
        .unwrap()
        .as_ref()
        .and_then(|m| m.get(&buffer.as_raw()).copied())
}

#[derive(Clone, Copy, Debug)]
enum Op {
    Fill(u64, u32),
    Copy(u64, u64),
}

/// Runs `ops`; a poisoned fill fails the batch. Fills are slow, so that a batch ordered after
/// one would see its effect missing if it ran early.
fn run(ops: &[Op]) -> Result<(), vk::Result> {
    for op in ops {
        match *op {
            Op::Fill(_, POISON) => return Err(vk::Result::ERROR_DEVICE_LOST),
            Op::Fill(dst, v) => {
                std::thread::sleep(Duration::from_millis(3));
                MEMORY
                    .lock()
                    .unwrap()
                    .get_or_insert_with(HashMap::new)
                    .insert(dst, v);
            }
            Op::Copy(src, dst) => {
                let mut m = MEMORY.lock().unwrap();
                let m = m.get_or_insert_with(HashMap::new);
                let v = m.get(&src).copied().unwrap_or(0);
                m.insert(dst, v);
            }
        }
    }
    Ok(())
}

type Job = (Vec<Op>, Completion);

/// Queue 1's hardware: a thread that runs batches in order and completes each after it ran.
#[derive(Default)]
struct Worker {
    jobs: Mutex<Option<Sender<Job>>>,
    thread: Mutex<Option<JoinHandle<()>>>,
}

impl Worker {
    fn start() -> Self {
        let (tx, rx) = channel::<Job>();
        let thread = std::thread::spawn(move || {
            for (ops, completion) in rx {
                std::thread::sleep(Duration::from_millis(2));
                if let Err(e) = run(&ops) {
                    completion.fail(e);
                }
            }
        });
        Self {
            jobs: Mutex::new(Some(tx)),
            thread: Mutex::new(Some(thread)),
        }
    }
}

impl Drop for Worker {
    fn drop(&mut self) {
        self.jobs.lock().unwrap().take();
        if let Some(t) = self.thread.lock().unwrap().take() {
            t.join().unwrap();
        }
    }
}

struct Engine;

impl DriverModule for Engine {
    const NAME: &'static CStr = c"kit queue engine";
}

impl Kit for Engine {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = Option<Worker>;
    type CommandBuffer = Mutex<Vec<Op>>;
    type CommandPool = ();
    const SYNC_OBJECTS: bool = true;

    fn physical_devices(
        _instance: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        let mut d = PhysicalDeviceDesc::new(c"copy engine", ());
        d.queue_families[0].queue_count = 2;
        Ok(vec![d])
    }

    fn queue_data(
        _device: &(),
        _family: u32,
        index: u32,
        _flags: vk::DeviceQueueCreateFlags,
    ) -> Result<Option<Worker>, vk::Result> {
        Ok((index == 1).then(Worker::start))
    }

    fn driver_submit(
        queue: &kit::Queue<Self>,
        batch: &Batch,
        completion: Completion,
    ) -> Result<(), vk::Result> {
        let mut ops = Vec::new();
        for &cb in &batch.command_buffers {
            // SAFETY: the batch holds command buffers of this device, alive until it completes.
            if let Some(cb) = unsafe { CommandBuffer::<Self>::from_handle(cb) } {
                ops.extend(cb.data.lock().unwrap().iter().copied());
            }
        }
        let hardware = ops.iter().any(|op| matches!(op, Op::Fill(_, HARDWARE)));
        match &queue.data {
            None if hardware => {
                run(&ops)?;
                let done = HARDWARE_DONE.lock().unwrap().take();
                let done = done.ok_or(vk::Result::ERROR_DEVICE_LOST)?;
                completion.after(std::sync::Arc::new(done), 0);
                Ok(())
            }
            None => run(&ops),
            Some(w) => {
                let jobs = w.jobs.lock().unwrap();
                let tx = jobs.as_ref().ok_or(vk::Result::ERROR_DEVICE_LOST)?;
                tx.send((ops, completion))
                    .map_err(|_| vk::Result::ERROR_DEVICE_LOST)
            }
        }
    }
}

impl kit::native_buffer::NativeBuffers for Engine {}

/// Appends `op` to `cb`'s recording.
fn record(cb: vk::CommandBuffer, op: Op) {
    // SAFETY: the application records into a live command buffer of this driver.
    if let Some(cb) = unsafe { CommandBuffer::<Engine>::from_handle(cb) } {
        cb.data.lock().unwrap().push(op);
    }
}

#[vkgen_driver::driver(kit)]
impl Driver for Engine {
    const API_VERSION: u32 = vk::API_VERSION_1_3;

    unsafe fn create_buffer(
        _device: vk::Device,
        _info: *const vk::BufferCreateInfo<'_>,
        _allocator: *const vk::AllocationCallbacks<'_>,
        buffer: *mut vk::Buffer,
    ) -> vk::Result {
        let id = NEXT_BUFFER.fetch_add(1, Ordering::Relaxed);
        // SAFETY: the application's output slot.
        unsafe { *buffer = vk::Buffer::from_raw(id) };
        vk::Result::SUCCESS
    }

    unsafe fn destroy_buffer(
        _device: vk::Device,
        _buffer: vk::Buffer,
        _allocator: *const vk::AllocationCallbacks<'_>,
    ) {
    }

    unsafe fn begin_command_buffer(
        cb: vk::CommandBuffer,
        _info: *const vk::CommandBufferBeginInfo<'_>,
    ) -> vk::Result {
        // SAFETY: the application begins a live command buffer of this driver.
        if let Some(cb) = unsafe { CommandBuffer::<Engine>::from_handle(cb) } {
            cb.data.lock().unwrap().clear();
        }
        vk::Result::SUCCESS
    }

    unsafe fn end_command_buffer(_cb: vk::CommandBuffer) -> vk::Result {
        vk::Result::SUCCESS
    }

    unsafe fn cmd_fill_buffer(
        cb: vk::CommandBuffer,
        dst: vk::Buffer,
        _offset: vk::DeviceSize,
        _size: vk::DeviceSize,
        data: u32,
    ) {
        record(cb, Op::Fill(dst.as_raw(), data));
    }

    unsafe fn cmd_copy_buffer(
        cb: vk::CommandBuffer,
        src: vk::Buffer,
        dst: vk::Buffer,
        _count: u32,
        _regions: *const vk::BufferCopy,
    ) {
        record(cb, Op::Copy(src.as_raw(), dst.as_raw()));
    }
}

struct Client {
    instance: ash::Instance,
    device: ash::Device,
    /// Queue 0 runs batches on the kit's threads, queue 1 on the vendor's worker.
    queues: [vk::Queue; 2],
    pool: vk::CommandPool,
}

const FOREVER: u64 = u64::MAX;
const SECONDS_5: u64 = 5_000_000_000;

impl Client {
    fn new() -> Self {
        let (instance, device) = support::instance_and_device::<Engine>(vk::API_VERSION_1_3, 2);
        // SAFETY: plain Vulkan use of the live 1.3 device just made.
        unsafe {
            let queues = [device.get_device_queue(0, 0), device.get_device_queue(0, 1)];
            let pool = device
                .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
                .unwrap();
            Self {
                instance,
                device,
                queues,
                pool,
            }
        }
    }

    fn buffer(&self) -> vk::Buffer {
        // SAFETY: a live device.
        unsafe {
            self.device
                .create_buffer(&vk::BufferCreateInfo::default().size(4), None)
        }
        .unwrap()
    }

    /// A command buffer recording `ops`.
    fn commands(&self, ops: &[Op]) -> vk::CommandBuffer {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .command_buffer_count(1);
        // SAFETY: recording on a live pool of a live device.
        unsafe {
            let cb = self.device.allocate_command_buffers(&info).unwrap()[0];
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            for op in ops {
                match *op {
                    Op::Fill(dst, v) => {
                        self.device
                            .cmd_fill_buffer(cb, vk::Buffer::from_raw(dst), 0, 4, v)
                    }
                    Op::Copy(src, dst) => self.device.cmd_copy_buffer(
                        cb,
                        vk::Buffer::from_raw(src),
                        vk::Buffer::from_raw(dst),
                        &[vk::BufferCopy::default().size(4)],
                    ),
                }
            }
            self.device.end_command_buffer(cb).unwrap();
            cb
        }
    }

    fn semaphore(&self, timeline: bool) -> vk::Semaphore {
        let mut ty = vk::SemaphoreTypeCreateInfo::default().semaphore_type(if timeline {
            vk::SemaphoreType::TIMELINE
        } else {
            vk::SemaphoreType::BINARY
        });
        // SAFETY: a live device.
        unsafe {
            self.device
                .create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None)
        }
        .unwrap()
    }

    fn fence(&self) -> vk::Fence {
        // SAFETY: a live device.
        unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default(), None)
        }
        .unwrap()
    }

    /// `vkQueueSubmit2` of one batch on queue `q`: waits and signals as (semaphore, value).
    fn submit(
        &self,
        q: usize,
        waits: &[(vk::Semaphore, u64)],
        ops: &[Op],
        signals: &[(vk::Semaphore, u64)],
        fence: vk::Fence,
    ) -> Result<(), vk::Result> {
        let info = |&(semaphore, value): &(vk::Semaphore, u64)| {
            vk::SemaphoreSubmitInfo::default()
                .semaphore(semaphore)
                .value(value)
                .stage_mask(vk::PipelineStageFlags2::ALL_COMMANDS)
        };
        let waits: Vec<_> = waits.iter().map(info).collect();
        let signals: Vec<_> = signals.iter().map(info).collect();
        let cbs: Vec<_> = (!ops.is_empty())
            .then(|| vk::CommandBufferSubmitInfo::default().command_buffer(self.commands(ops)))
            .into_iter()
            .collect();
        let submit = vk::SubmitInfo2::default()
            .wait_semaphore_infos(&waits)
            .command_buffer_infos(&cbs)
            .signal_semaphore_infos(&signals);
        // SAFETY: a valid submission on a live queue.
        unsafe { self.device.queue_submit2(self.queues[q], &[submit], fence) }
    }

    fn host_signal(&self, s: vk::Semaphore, value: u64) {
        // SAFETY: a live timeline semaphore.
        unsafe {
            self.device
                .signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(s).value(value))
        }
        .unwrap();
    }

    fn wait_semaphores(
        &self,
        waits: &[(vk::Semaphore, u64)],
        any: bool,
        timeout: u64,
    ) -> vk::Result {
        let (sems, values): (Vec<_>, Vec<_>) = waits.iter().copied().unzip();
        let flags = if any {
            vk::SemaphoreWaitFlags::ANY
        } else {
            vk::SemaphoreWaitFlags::empty()
        };
        let info = vk::SemaphoreWaitInfo::default()
            .flags(flags)
            .semaphores(&sems)
            .values(&values);
        // SAFETY: live semaphores.
        match unsafe { self.device.wait_semaphores(&info, timeout) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }

    fn wait_fences(&self, fences: &[vk::Fence], all: bool, timeout: u64) -> vk::Result {
        // SAFETY: live fences.
        match unsafe { self.device.wait_for_fences(fences, all, timeout) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }

    fn status(&self, f: vk::Fence) -> vk::Result {
        // SAFETY: a live fence.
        match unsafe { self.device.get_fence_status(f) } {
            Ok(true) => vk::Result::SUCCESS,
            Ok(false) => vk::Result::NOT_READY,
            Err(e) => e,
        }
    }

    fn queue_wait_idle(&self, q: usize) -> vk::Result {
        // SAFETY: a live queue.
        match unsafe { self.device.queue_wait_idle(self.queues[q]) } {
            Ok(()) => vk::Result::SUCCESS,
            Err(e) => e,
        }
    }
}

impl Drop for Client {
    fn drop(&mut self) {
        // SAFETY: the test's objects, children first; the device is idle or lost.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Long enough for a batch that was (wrongly) not held to have run.
fn settle() {
    std::thread::sleep(Duration::from_millis(30));
}

#[test]
fn timeline_wait_before_signal_across_queues() {
    let e = Client::new();
    let (a, b) = (e.buffer(), e.buffer());
    let t = e.semaphore(true);
    let done = e.fence();
    // The waiter first: it copies `a`, which only the signaller's batch fills.
    e.submit(1, &[(t, 1)], &[Op::Copy(a.as_raw(), b.as_raw())], &[], done)
        .unwrap();
    settle();
    assert_eq!(e.status(done), vk::Result::NOT_READY, "ran before its wait");
    assert_eq!(word(b), None);
    e.submit(
        0,
        &[],
        &[Op::Fill(a.as_raw(), 7)],
        &[(t, 1)],
        vk::Fence::null(),
    )
    .unwrap();
    assert_eq!(e.wait_fences(&[done], true, SECONDS_5), vk::Result::SUCCESS);
    assert_eq!(word(b), Some(7), "the waiter's copy ran after the fill");
}

#[test]
fn binary_semaphore_across_queues_ten_rounds() {
    let e = Client::new();
    let gate = e.semaphore(true);
    let s = e.semaphore(false);
    let a = e.buffer();
    for round in 1..=10u32 {
        let b = e.buffer();
        let done = e.fence();
        // The signal is submitted but held (its batch waits on the gate) when the wait on the
        // other queue is submitted: the wait must still see it complete first.
        e.submit(
            0,
            &[(gate, u64::from(round))],
            &[Op::Fill(a.as_raw(), round)],
            &[(s, 0)],
            vk::Fence::null(),
        )
        .unwrap();
        e.submit(1, &[(s, 0)], &[Op::Copy(a.as_raw(), b.as_raw())], &[], done)
            .unwrap();
        // SAFETY: a live semaphore of the sync component.
        let core = unsafe { kit::sync::semaphore(s) }.unwrap();
        assert_eq!(
            core.is_pending(),
            Ok(true),
            "round {round}: the held signal"
        );
        if round % 2 == 0 {
            settle();
            assert_eq!(e.status(done), vk::Result::NOT_READY, "round {round}");
        }
        e.host_signal(gate, u64::from(round));
        assert_eq!(e.wait_fences(&[done], true, SECONDS_5), vk::Result::SUCCESS);
        assert_eq!(core.is_pending(), Ok(false), "round {round}");
        assert_eq!(
            word(b),
            Some(round),
            "round {round}: copy ordered after fill"
        );
    }
}

#[test]
fn host_signal_releases_a_held_batch() {
    let e = Client::new();
    let a = e.buffer();
    let t = e.semaphore(true);
    let done = e.fence();
    e.submit(0, &[(t, 5)], &[Op::Fill(a.as_raw(), 1)], &[], done)
        .unwrap();
    e.host_signal(t, 4);
    settle();
    assert_eq!(e.status(done), vk::Result::NOT_READY);
    assert_eq!(word(a), None);
    e.host_signal(t, 5);
    assert_eq!(e.wait_fences(&[done], true, SECONDS_5), vk::Result::SUCCESS);
    assert_eq!(word(a), Some(1));
    // SAFETY: a live timeline semaphore.
    assert_eq!(unsafe { e.device.get_semaphore_counter_value(t) }, Ok(5));
}

#[test]
fn wait_semaphores_any_all_and_timeouts() {
    let e = Client::new();
    let (t1, t2) = (e.semaphore(true), e.semaphore(true));
    let both = [(t1, 1), (t2, 1)];
    assert_eq!(e.wait_semaphores(&both, false, 0), vk::Result::TIMEOUT);
    assert_eq!(e.wait_semaphores(&both, true, 0), vk::Result::TIMEOUT);
    let start = Instant::now();
    assert_eq!(
        e.wait_semaphores(&both, true, 20_000_000),
        vk::Result::TIMEOUT
    );
    assert!(start.elapsed() >= Duration::from_millis(19));
    // Signalled by a batch: any is satisfied, all is not.
    e.submit(0, &[], &[], &[(t1, 1)], vk::Fence::null())
        .unwrap();
    assert_eq!(
        e.wait_semaphores(&both, true, SECONDS_5),
        vk::Result::SUCCESS
    );
    assert_eq!(
        e.wait_semaphores(&both, false, 10_000_000),
        vk::Result::TIMEOUT
    );
    let device = e.device.clone();
    let later = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(20));
        // SAFETY: a live timeline semaphore (the test waits for this thread before cleanup).
        unsafe {
            device.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(t2).value(1))
        }
        .unwrap();
    });
    assert_eq!(
        e.wait_semaphores(&both, false, FOREVER),
        vk::Result::SUCCESS
    );
    later.join().unwrap();
}

#[test]
fn fences_any_and_all() {
    let e = Client::new();
    let (t1, t2) = (e.semaphore(true), e.semaphore(true));
    let (f1, f2) = (e.fence(), e.fence());
    e.submit(0, &[(t1, 1)], &[], &[], f1).unwrap();
    e.submit(1, &[(t2, 1)], &[], &[], f2).unwrap();
    assert_eq!(e.wait_fences(&[f1, f2], false, 0), vk::Result::TIMEOUT);
    assert_eq!(
        e.wait_fences(&[f1, f2], false, 10_000_000),
        vk::Result::TIMEOUT
    );
    e.host_signal(t1, 1);
    assert_eq!(
        e.wait_fences(&[f1, f2], false, SECONDS_5),
        vk::Result::SUCCESS
    );
    assert_eq!(
        e.wait_fences(&[f1, f2], true, 10_000_000),
        vk::Result::TIMEOUT
    );
    e.host_signal(t2, 1);
    assert_eq!(
        e.wait_fences(&[f1, f2], true, SECONDS_5),
        vk::Result::SUCCESS
    );
    // SAFETY: live fences, no longer in use.
    unsafe { e.device.reset_fences(&[f1, f2]) }.unwrap();
    assert_eq!(e.status(f1), vk::Result::NOT_READY);
    assert_eq!(e.status(f2), vk::Result::NOT_READY);
}

#[test]
fn queue_and_device_wait_idle_wait_for_held_batches() {
    let e = Client::new();
    let (a, b) = (e.buffer(), e.buffer());
    let t = e.semaphore(true);
    e.submit(
        1,
        &[(t, 1)],
        &[Op::Fill(a.as_raw(), 3)],
        &[],
        vk::Fence::null(),
    )
    .unwrap();
    let signal_later = |value: u64| {
        let device = e.device.clone();
        std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(30));
            let info = vk::SemaphoreSignalInfo::default().semaphore(t).value(value);
            // SAFETY: a live timeline semaphore (the test joins this thread before cleanup).
            unsafe { device.signal_semaphore(&info) }.unwrap();
        })
    };
    let later = signal_later(1);
    let start = Instant::now();
    assert_eq!(e.queue_wait_idle(1), vk::Result::SUCCESS);
    assert!(start.elapsed() >= Duration::from_millis(25));
    assert_eq!(word(a), Some(3));
    later.join().unwrap();
    // Both queues held: the device waits for both.
    e.submit(
        0,
        &[(t, 2)],
        &[Op::Fill(b.as_raw(), 4)],
        &[],
        vk::Fence::null(),
    )
    .unwrap();
    e.submit(
        1,
        &[(t, 2)],
        &[Op::Fill(a.as_raw(), 5)],
        &[],
        vk::Fence::null(),
    )
    .unwrap();
    let later = signal_later(2);
    // SAFETY: a live device.
    unsafe { e.device.device_wait_idle() }.unwrap();
    assert_eq!((word(a), word(b)), (Some(5), Some(4)));
    later.join().unwrap();
}

#[test]
fn destroying_a_device_with_held_work_returns() {
    let (tx, rx) = channel();
    let worker = std::thread::spawn(move || {
        let e = Client::new();
        let t = e.semaphore(true);
        let s = e.semaphore(false);
        let a = e.buffer();
        e.submit(
            0,
            &[(t, 1)],
            &[Op::Fill(a.as_raw(), 1)],
            &[(s, 0)],
            vk::Fence::null(),
        )
        .unwrap();
        e.submit(1, &[(s, 0)], &[Op::Fill(a.as_raw(), 2)], &[], e.fence())
            .unwrap();
        // SAFETY: the test's objects; the held batches are abandoned with the device.
        unsafe {
            e.device.destroy_command_pool(e.pool, None);
            e.device.destroy_device(None);
            e.instance.destroy_instance(None);
        }
        std::mem::forget(e);
        tx.send(()).unwrap();
    });
    rx.recv_timeout(Duration::from_secs(10))
        .expect("vkDestroyDevice hung on held work");
    worker.join().unwrap();
}

#[test]
fn a_failed_completion_is_device_lost() {
    let e = Client::new();
    let a = e.buffer();
    let t = e.semaphore(true);
    let done = e.fence();
    e.submit(1, &[], &[Op::Fill(a.as_raw(), POISON)], &[(t, 1)], done)
        .unwrap();
    let lost = vk::Result::ERROR_DEVICE_LOST;
    assert_eq!(e.wait_fences(&[done], true, SECONDS_5), lost);
    assert_eq!(e.wait_semaphores(&[(t, 1)], false, SECONDS_5), lost);
    assert_eq!(e.queue_wait_idle(1), lost);
    assert_eq!(e.submit(1, &[], &[], &[], vk::Fence::null()), Err(lost));
    // SAFETY: a live device.
    assert_eq!(unsafe { e.device.device_wait_idle() }, Err(lost));
    // The synchronous queue's failure is reported by the submission itself.
    assert_eq!(
        e.submit(
            0,
            &[],
            &[Op::Fill(a.as_raw(), POISON)],
            &[],
            vk::Fence::null()
        ),
        Err(lost)
    );
}

#[test]
fn a_hardware_payload_completes_the_batch() {
    let e = Client::new();
    let a = e.buffer();
    let done = e.fence();
    let hw = FenceSignaller::new().unwrap();
    *HARDWARE_DONE.lock().unwrap() = Some(hw.fence().unwrap());
    e.submit(0, &[], &[Op::Fill(a.as_raw(), HARDWARE)], &[], done)
        .unwrap();
    settle();
    assert_eq!(
        e.status(done),
        vk::Result::NOT_READY,
        "completed before the hardware"
    );
    hw.signal().unwrap();
    assert_eq!(e.wait_fences(&[done], true, SECONDS_5), vk::Result::SUCCESS);
    assert_eq!(word(a), Some(HARDWARE));
}

/// `kit::queue::release_native_fence` (the `vkQueueSignalReleaseImageANDROID` hook): `-1` on an
/// idle queue with its waits resolved, else a sync file that fires after the held batch that
/// signals the semaphore.
#[test]
fn release_fence_follows_the_held_signal() {
    let readable = |fd: &NativeFence| fd.is_signalled().unwrap();
    let e = Client::new();
    let gate = e.semaphore(true);
    let s = e.semaphore(false);
    e.submit(0, &[], &[], &[(s, 0)], vk::Fence::null()).unwrap();
    let q = e.queues[0];
    let released = kit::queue::release_native_fence::<Engine>(q, &[s]).unwrap();
    assert!(released.is_trivially_signalled());
    e.submit(0, &[(gate, 1)], &[], &[(s, 0)], vk::Fence::null())
        .unwrap();
    let released = kit::queue::release_native_fence::<Engine>(q, &[s]).unwrap();
    settle();
    assert!(!readable(&released), "released before the signal");
    e.host_signal(gate, 1);
    assert!(released.wait(Some(Duration::from_secs(5))).unwrap());
}

/// A driver in bring-up (`NULL_OBJECTS`, no `SYNC_OBJECTS`): the null driver's fences and
/// semaphores, the queue core's queues (the scaffold's starting point).
struct BringUp;

impl DriverModule for BringUp {
    const NAME: &'static CStr = c"kit queue bring-up";
}

impl Kit for BringUp {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const NULL_OBJECTS: bool = true;
}

impl kit::native_buffer::NativeBuffers for BringUp {}

#[vkgen_driver::driver(kit)]
impl Driver for BringUp {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
}

#[test]
fn a_bring_up_driver_submits_through_the_queue_core() {
    // SAFETY: the bring-up driver's generated GIPA is a valid static entry point; plain Vulkan
    // use of its 1.3 device follows.
    unsafe {
        let entry = ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: get_instance_proc_addr::<BringUp>,
        });
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_3);
        let instance = entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap();
        let pd = instance.enumerate_physical_devices().unwrap()[0];
        let prio = [1.0];
        let qci = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
        let device = instance
            .create_device(
                pd,
                &vk::DeviceCreateInfo::default().queue_create_infos(&qci),
                None,
            )
            .unwrap();
        let queue = device.get_device_queue(0, 0);
        let mut ty =
            vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
        let t = device
            .create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None)
            .unwrap();
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        // The 1.0 submit, waiting on a value the host signals later.
        let values = [1u64];
        let mut timeline =
            vk::TimelineSemaphoreSubmitInfo::default().wait_semaphore_values(&values);
        let sems = [t];
        let stages = [vk::PipelineStageFlags::ALL_COMMANDS];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&sems)
            .wait_dst_stage_mask(&stages)
            .push_next(&mut timeline);
        device.queue_submit(queue, &[submit], fence).unwrap();
        settle();
        assert_eq!(device.get_fence_status(fence), Ok(false));
        device
            .signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(t).value(1))
            .unwrap();
        device.wait_for_fences(&[fence], true, SECONDS_5).unwrap();
        device.queue_wait_idle(queue).unwrap();
        device.destroy_fence(fence, None);
        device.destroy_semaphore(t, None);
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
