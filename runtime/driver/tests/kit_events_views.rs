//! Issue 30: events, buffer views and sampler YCbCr conversions as kit objects
//! (`RESOURCE_OBJECTS`), the event and timestamp commands an engine does not run applied at
//! replay, and `vkQueueBindSparse` ordered by the queue core (`SYNC_OBJECTS`) — driven
//! through the real entry points with ash, by a driver whose engine executes nothing.

use std::ffi::CStr;
use std::time::{Duration, Instant};

mod support;

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::commands::CommandId;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::command::{CommandBuffer, Execute};
use vkgen_driver::kit::queue::{Batch, Completion};
use vkgen_driver::kit::requirements::{unimplemented_commands, Missing};
use vkgen_driver::kit::resources::{BufferView, Sampler};
use vkgen_driver::kit::{self, Kit};

struct Fixture;

impl DriverModule for Fixture {
    const NAME: &'static CStr = c"events fixture";
}

/// An engine that runs nothing: every effect left is the kit's.
struct Nothing;
impl Execute for Nothing {}

impl Kit for Fixture {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RECORD_COMMANDS: bool = true;
    const SYNC_OBJECTS: bool = true;
    const RESOURCE_OBJECTS: bool = true;

    fn driver_submit(
        _queue: &kit::Queue<Self>,
        batch: &Batch,
        _completion: Completion,
    ) -> Result<(), vk::Result> {
        for &cb in &batch.command_buffers {
            // SAFETY: the batch holds command buffers of this device, alive until it completes.
            if let Some(cb) = unsafe { CommandBuffer::<Self>::from_handle(cb) } {
                cb.replay(&mut Nothing);
            }
        }
        Ok(())
    }
}

impl kit::native_buffer::NativeBuffers for Fixture {}

#[vkgen_driver::driver(kit)]
impl Driver for Fixture {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
}

struct Setup {
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    pool: vk::CommandPool,
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: objects of this test, destroyed once, children first.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn setup() -> Setup {
    let (instance, device) = support::instance_and_device::<Fixture>(vk::API_VERSION_1_3, 1);
    // SAFETY: a live device with one queue of family 0.
    let (queue, pool) = unsafe {
        (
            device.get_device_queue(0, 0),
            device
                .create_command_pool(&vk::CommandPoolCreateInfo::default(), None)
                .unwrap(),
        )
    };
    Setup {
        instance,
        device,
        queue,
        pool,
    }
}

impl Setup {
    /// A primary command buffer recorded by `f`.
    fn record(&self, f: impl FnOnce(&ash::Device, vk::CommandBuffer)) -> vk::CommandBuffer {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .command_buffer_count(1);
        // SAFETY: a live pool of this device; the buffer is recorded once, then submitted.
        unsafe {
            let cb = self.device.allocate_command_buffers(&info).unwrap()[0];
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            f(&self.device, cb);
            self.device.end_command_buffer(cb).unwrap();
            cb
        }
    }

    /// Submits `cb` with a new fence, returned.
    fn submit(&self, cb: vk::CommandBuffer) -> vk::Fence {
        let cbs = [vk::CommandBufferSubmitInfo::default().command_buffer(cb)];
        let submit = [vk::SubmitInfo2::default().command_buffer_infos(&cbs)];
        // SAFETY: a recorded command buffer of this device and a new fence.
        unsafe {
            let fence = self
                .device
                .create_fence(&vk::FenceCreateInfo::default(), None)
                .unwrap();
            self.device
                .queue_submit2(self.queue, &submit, fence)
                .unwrap();
            fence
        }
    }

    fn event(&self, flags: vk::EventCreateFlags) -> vk::Event {
        // SAFETY: a valid create info.
        unsafe {
            self.device
                .create_event(&vk::EventCreateInfo::default().flags(flags), None)
        }
        .unwrap()
    }

    fn wait(&self, fence: vk::Fence) {
        // SAFETY: a fence of this device.
        unsafe { self.device.wait_for_fences(&[fence], true, u64::MAX) }.unwrap();
    }
}

#[test]
fn events_answer_the_host_and_refuse_it_when_device_only() {
    let s = setup();
    let d = &s.device;
    let e = s.event(vk::EventCreateFlags::empty());
    let only = s.event(vk::EventCreateFlags::DEVICE_ONLY);
    // SAFETY: events of this device; `fp_v1_0` calls show the raw VK_EVENT_SET/RESET answers.
    unsafe {
        let status = d.fp_v1_0().get_event_status;
        assert_eq!(
            status(d.handle(), e),
            vk::Result::EVENT_RESET,
            "created unset"
        );
        d.set_event(e).unwrap();
        assert_eq!(status(d.handle(), e), vk::Result::EVENT_SET);
        assert_eq!(d.get_event_status(e), Ok(true));
        d.reset_event(e).unwrap();
        assert_eq!(d.get_event_status(e), Ok(false));
        assert!(
            d.set_event(only).is_err(),
            "the host may not set a device-only event"
        );
        assert!(d.get_event_status(only).is_err());
        d.destroy_event(e, None);
        d.destroy_event(only, None);
    }
}

/// The stage and dependency every recorded set uses.
fn dependency() -> vk::DependencyInfo<'static> {
    vk::DependencyInfo::default()
}

#[test]
fn recorded_sets_resets_and_timestamps_apply_at_replay_in_order() {
    let s = setup();
    let d = &s.device;
    let set = s.event(vk::EventCreateFlags::empty());
    let reset = s.event(vk::EventCreateFlags::empty());
    // SAFETY: objects of this device.
    let pool = unsafe {
        d.set_event(reset).unwrap();
        d.create_query_pool(
            &vk::QueryPoolCreateInfo::default()
                .query_type(vk::QueryType::TIMESTAMP)
                .query_count(3),
            None,
        )
        .unwrap()
    };
    let dep = dependency();
    let stage = vk::PipelineStageFlags2::ALL_COMMANDS;
    // SAFETY: valid commands recorded into a buffer of this device.
    let cb = s.record(|d, cb| unsafe {
        d.cmd_reset_query_pool(cb, pool, 0, 3);
        d.cmd_write_timestamp2(cb, stage, pool, 0);
        d.cmd_set_event2(cb, set, &dep);
        // Set by the host, then set and reset by the device: the last one recorded wins.
        d.cmd_set_event2(cb, reset, &dep);
        d.cmd_reset_event2(cb, reset, stage);
        d.cmd_wait_events2(cb, &[set], &[dep]);
        d.cmd_write_timestamp(cb, vk::PipelineStageFlags::BOTTOM_OF_PIPE, pool, 1);
    });
    // SAFETY: objects of this device, idle once the fence signalled.
    unsafe {
        assert_eq!(
            d.get_event_status(set),
            Ok(false),
            "recording changes nothing"
        );
        let fence = s.submit(cb);
        s.wait(fence);
        assert_eq!(d.get_event_status(set), Ok(true));
        assert_eq!(d.get_event_status(reset), Ok(false));
        let mut stamps = [0u64; 2];
        d.get_query_pool_results(pool, 0, &mut stamps, vk::QueryResultFlags::TYPE_64)
            .unwrap();
        assert!(0 < stamps[0] && stamps[0] <= stamps[1], "{stamps:?}");
        let mut third = [0u64; 1];
        assert_eq!(
            d.get_query_pool_results(pool, 2, &mut third, vk::QueryResultFlags::TYPE_64),
            Err(vk::Result::NOT_READY),
            "reset and never written"
        );
        d.destroy_fence(fence, None);
        d.destroy_query_pool(pool, None);
        d.destroy_event(set, None);
        d.destroy_event(reset, None);
    }
}

#[test]
fn a_replayed_wait_holds_the_batch_until_the_host_sets_the_event() {
    let s = setup();
    let d = &s.device;
    let e = s.event(vk::EventCreateFlags::empty());
    let dep = dependency();
    // SAFETY: a valid command recorded into a buffer of this device.
    let cb = s.record(|d, cb| unsafe { d.cmd_wait_events2(cb, &[e], &[dep]) });
    let raw = vk::Handle::as_raw(e);
    let device = d.clone();
    // Before the setter starts: its set comes at least 150 ms after this.
    let start = Instant::now();
    let setter = std::thread::spawn(move || {
        std::thread::sleep(Duration::from_millis(150));
        // SAFETY: the test's live event; vkSetEvent may run while a batch waits on it.
        unsafe { device.set_event(vk::Handle::from_raw(raw)) }.unwrap();
    });
    let fence = s.submit(cb);
    s.wait(fence);
    assert!(
        start.elapsed() >= Duration::from_millis(150),
        "the batch completed before the host set the event"
    );
    setter.join().unwrap();
    // SAFETY: objects of this device, idle.
    unsafe {
        d.destroy_fence(fence, None);
        d.destroy_event(e, None);
    }
}

#[test]
fn buffer_views_resolve_whole_size_and_count_elements() {
    let s = setup();
    let d = &s.device;
    // SAFETY: objects of this device.
    unsafe {
        let buffer = d
            .create_buffer(
                &vk::BufferCreateInfo::default()
                    .size(1024)
                    .usage(vk::BufferUsageFlags::UNIFORM_TEXEL_BUFFER),
                None,
            )
            .unwrap();
        let view = |format, offset, range| {
            d.create_buffer_view(
                &vk::BufferViewCreateInfo::default()
                    .buffer(buffer)
                    .format(format)
                    .offset(offset)
                    .range(range),
                None,
            )
        };
        let whole = view(vk::Format::R32G32B32A32_SFLOAT, 256, vk::WHOLE_SIZE).unwrap();
        let v = BufferView::from_handle(whole).unwrap();
        assert_eq!(
            (v.buffer, v.format, v.offset, v.range, v.elements),
            (buffer, vk::Format::R32G32B32A32_SFLOAT, 256, 768, 48)
        );
        let rgb = view(vk::Format::R8G8B8_UNORM, 0, 100).unwrap();
        assert_eq!(
            BufferView::from_handle(rgb).unwrap().elements,
            33,
            "⌊100 ÷ 3⌋"
        );
        assert!(
            view(vk::Format::R8_UNORM, 1024, vk::WHOLE_SIZE).is_err(),
            "offset at the end"
        );
        assert!(
            view(vk::Format::R8_UNORM, 512, 513).is_err(),
            "past the end"
        );
        d.destroy_buffer_view(whole, None);
        d.destroy_buffer_view(rgb, None);
        d.destroy_buffer(buffer, None);
    }
}

#[test]
fn samplers_keep_the_ycbcr_conversion_they_chain() {
    let s = setup();
    let d = &s.device;
    let components = vk::ComponentMapping {
        r: vk::ComponentSwizzle::B,
        g: vk::ComponentSwizzle::IDENTITY,
        b: vk::ComponentSwizzle::R,
        a: vk::ComponentSwizzle::ONE,
    };
    // SAFETY: objects of this device.
    unsafe {
        let conversion = d
            .create_sampler_ycbcr_conversion(
                &vk::SamplerYcbcrConversionCreateInfo::default()
                    .format(vk::Format::G8_B8R8_2PLANE_420_UNORM)
                    .ycbcr_model(vk::SamplerYcbcrModelConversion::YCBCR_709)
                    .ycbcr_range(vk::SamplerYcbcrRange::ITU_NARROW)
                    .components(components)
                    .x_chroma_offset(vk::ChromaLocation::MIDPOINT)
                    .y_chroma_offset(vk::ChromaLocation::COSITED_EVEN)
                    .chroma_filter(vk::Filter::LINEAR)
                    .force_explicit_reconstruction(true),
                None,
            )
            .unwrap();
        let mut chained = vk::SamplerYcbcrConversionInfo::default().conversion(conversion);
        let with = d
            .create_sampler(
                &vk::SamplerCreateInfo::default().push_next(&mut chained),
                None,
            )
            .unwrap();
        let without = d
            .create_sampler(&vk::SamplerCreateInfo::default(), None)
            .unwrap();
        // The sampler keeps the state after the conversion is gone.
        d.destroy_sampler_ycbcr_conversion(conversion, None);
        let y = Sampler::from_handle(with).unwrap().ycbcr.expect("kept");
        assert_eq!(y.format, vk::Format::G8_B8R8_2PLANE_420_UNORM);
        assert_eq!(y.model, vk::SamplerYcbcrModelConversion::YCBCR_709);
        assert_eq!(y.range, vk::SamplerYcbcrRange::ITU_NARROW);
        assert_eq!(
            (y.components.r, y.components.b, y.components.a),
            (
                vk::ComponentSwizzle::B,
                vk::ComponentSwizzle::R,
                vk::ComponentSwizzle::ONE
            )
        );
        assert_eq!(
            (y.x_chroma_offset, y.y_chroma_offset, y.chroma_filter),
            (
                vk::ChromaLocation::MIDPOINT,
                vk::ChromaLocation::COSITED_EVEN,
                vk::Filter::LINEAR
            )
        );
        assert!(y.force_explicit_reconstruction);
        assert!(Sampler::from_handle(without).unwrap().ycbcr.is_none());
        d.destroy_sampler(with, None);
        d.destroy_sampler(without, None);
    }
}

#[test]
fn bind_sparse_waits_and_signals_in_submission_order() {
    let s = setup();
    let d = &s.device;
    // SAFETY: objects of this device; the host signals the timeline below.
    unsafe {
        let timeline = |initial| {
            let mut ty = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(initial);
            d.create_semaphore(&vk::SemaphoreCreateInfo::default().push_next(&mut ty), None)
                .unwrap()
        };
        let (gate, done) = (timeline(0), timeline(0));
        let bind_fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let (waits, signals) = ([gate], [done]);
        let (wait_values, signal_values) = ([1u64], [5u64]);
        let mut values = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&wait_values)
            .signal_semaphore_values(&signal_values);
        let bind = vk::BindSparseInfo::default()
            .wait_semaphores(&waits)
            .signal_semaphores(&signals)
            .push_next(&mut values);
        d.queue_bind_sparse(s.queue, &[bind], bind_fence).unwrap();
        // A later submit with no waits of its own does not overtake the held bind.
        let later = s.submit(s.record(|_, _| {}));
        std::thread::sleep(Duration::from_millis(50));
        assert_eq!(
            d.get_fence_status(bind_fence),
            Ok(false),
            "the bind waits for gate = 1"
        );
        assert_eq!(d.get_fence_status(later), Ok(false), "in submission order");
        assert_eq!(d.get_semaphore_counter_value(done), Ok(0));
        d.signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(gate).value(1))
            .unwrap();
        s.wait(later);
        assert_eq!(d.get_fence_status(bind_fence), Ok(true));
        assert_eq!(d.get_semaphore_counter_value(done), Ok(5));
        for f in [bind_fence, later] {
            d.destroy_fence(f, None);
        }
        d.destroy_semaphore(gate, None);
        d.destroy_semaphore(done, None);
    }
}

#[test]
fn the_kit_answers_events_views_conversions_and_bind_sparse_without_null_objects() {
    const { assert!(!Fixture::NULL_OBJECTS) };
    let table = kit::command_map::<Fixture>();
    let missing = unimplemented_commands::<Fixture>(table, vk::API_VERSION_1_3, &[], None);
    let named = |c: &str| {
        missing
            .iter()
            .any(|m| matches!(m, Missing::Command { command, .. } if *command == c))
    };
    for c in [
        "vkCreateEvent",
        "vkDestroyEvent",
        "vkGetEventStatus",
        "vkSetEvent",
        "vkResetEvent",
        "vkCreateBufferView",
        "vkDestroyBufferView",
        "vkCreateSamplerYcbcrConversion",
        "vkDestroySamplerYcbcrConversion",
        "vkQueueBindSparse",
    ] {
        assert!(!named(c), "{c} is still missing: {missing:?}");
    }
    assert!(table.get(CommandId::QUEUE_BIND_SPARSE).is_some());
}
