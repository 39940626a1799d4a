//! The generated command recorder on a kit driver that opts in with one line
//! (`RECORD_COMMANDS = true`) and runs nothing but its `Execute` engine: commands go through
//! the real entry points (`vkGetDeviceProcAddr`), are replayed with their exact arguments after
//! the application overwrote its memory (arrays, blobs and `pNext` chains deep-copied; an
//! unknown structure dropped), secondaries run inline through `vkCmdExecuteCommands`, and
//! pools and buffers reset, re-record and trim.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::CStr;

mod support;

use ash::vk;
use ash::vk::Handle as _;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::commands::{self, CommandId};
use vkgen_driver::generated::driver::{get_device_proc_addr, Driver};
use vkgen_driver::kit::command::{self, CommandBuffer, Execute, Recorder};
use vkgen_driver::kit::{self, Kit};

struct Rec;

impl DriverModule for Rec {
    const NAME: &'static CStr = c"recorder fixture";
}

impl Kit for Rec {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const RECORD_COMMANDS: bool = true;
}

impl kit::native_buffer::NativeBuffers for Rec {}

#[vkgen_driver::driver(kit)]
impl Driver for Rec {}

/// The engine: what it was asked to run, as text.
#[derive(Default)]
struct Engine {
    log: Vec<String>,
}

#[vkgen_driver::execute]
impl Execute for Engine {
    fn unimplemented(&mut self, cmd: CommandId) {
        let name = commands::info(cmd).name().to_string_lossy();
        self.log.push(format!("unimplemented {name}"));
    }

    unsafe fn cmd_fill_buffer(&mut self, dst: vk::Buffer, offset: u64, size: u64, data: u32) {
        self.log
            .push(format!("fill {} {offset} {size} {data:#x}", dst.as_raw()));
    }

    unsafe fn cmd_update_buffer(
        &mut self,
        dst: vk::Buffer,
        offset: u64,
        size: u64,
        data: *const std::ffi::c_void,
    ) {
        // SAFETY: the replay passes the recorded copy of `size` bytes.
        let bytes = unsafe { std::slice::from_raw_parts(data.cast::<u8>(), size as usize) };
        self.log
            .push(format!("update {} {offset} {bytes:?}", dst.as_raw()));
    }

    unsafe fn cmd_copy_buffer(
        &mut self,
        src: vk::Buffer,
        dst: vk::Buffer,
        count: u32,
        regions: *const vk::BufferCopy,
    ) {
        // SAFETY: the replay passes the recorded copy of `count` regions.
        let r = unsafe { std::slice::from_raw_parts(regions, count as usize) };
        let r: Vec<_> = r
            .iter()
            .map(|r| (r.src_offset, r.dst_offset, r.size))
            .collect();
        self.log
            .push(format!("copy {} {} {r:?}", src.as_raw(), dst.as_raw()));
    }

    unsafe fn cmd_begin_rendering(&mut self, info: *const vk::RenderingInfo<'_>) {
        // SAFETY: the replay passes the recorded copy: its arrays and chain are the arena's.
        let info = unsafe { &*info };
        // SAFETY: `color_attachment_count` attachments, copied with the structure.
        let colors = unsafe {
            std::slice::from_raw_parts(
                info.p_color_attachments,
                info.color_attachment_count as usize,
            )
        };
        let views: Vec<u64> = colors.iter().map(|c| c.image_view.as_raw()).collect();
        let mut chain = Vec::new();
        let mut next = info.p_next.cast::<vk::BaseInStructure<'_>>();
        while !next.is_null() {
            // SAFETY: every element of the recorded chain is a known structure the recorder
            // copied whole.
            let s = unsafe { &*next };
            if s.s_type == vk::StructureType::DEVICE_GROUP_RENDER_PASS_BEGIN_INFO {
                // SAFETY: the element's type says what it is.
                let g = unsafe { &*next.cast::<vk::DeviceGroupRenderPassBeginInfo<'_>>() };
                let areas = match g.device_render_area_count {
                    0 => &[][..],
                    // SAFETY: `device_render_area_count` areas, copied with the structure.
                    n => unsafe { std::slice::from_raw_parts(g.p_device_render_areas, n as usize) },
                };
                let w: Vec<u32> = areas.iter().map(|a| a.extent.width).collect();
                chain.push(format!("group {:#x} {w:?}", g.device_mask));
            } else {
                chain.push(format!("{:?}", s.s_type));
            }
            next = s.p_next;
        }
        self.log.push(format!(
            "rendering {}x{} {views:?} {chain:?}",
            info.render_area.extent.width, info.render_area.extent.height
        ));
    }
}

struct Fixture {
    instance: ash::Instance,
    device: ash::Device,
    pool: vk::CommandPool,
}

impl Fixture {
    fn new(pool_flags: vk::CommandPoolCreateFlags) -> Self {
        let (instance, device) = support::instance_and_device::<Rec>(vk::API_VERSION_1_3, 1);
        let info = vk::CommandPoolCreateInfo::default().flags(pool_flags);
        // SAFETY: a live device and a valid create info.
        let pool = unsafe { device.create_command_pool(&info, None) }.unwrap();
        Self {
            instance,
            device,
            pool,
        }
    }

    fn buffers(&self, level: vk::CommandBufferLevel, n: u32) -> Vec<vk::CommandBuffer> {
        let info = vk::CommandBufferAllocateInfo::default()
            .command_pool(self.pool)
            .level(level)
            .command_buffer_count(n);
        // SAFETY: a live pool of the device.
        unsafe { self.device.allocate_command_buffers(&info) }.unwrap()
    }

    fn begin(&self, cb: vk::CommandBuffer) {
        // SAFETY: a command buffer of this fixture, not pending.
        unsafe {
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
        }
        .unwrap();
    }

    fn end(&self, cb: vk::CommandBuffer) {
        // SAFETY: a command buffer of this fixture in the recording state.
        unsafe { self.device.end_command_buffer(cb) }.unwrap();
    }
}

impl Drop for Fixture {
    fn drop(&mut self) {
        // SAFETY: objects of this fixture, children first.
        unsafe {
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// Overwrites the application's memory after recording (volatile: the write must happen even
/// though the test never reads the value again).
fn scribble<T>(place: &mut T, value: T) {
    // SAFETY: a valid, exclusively borrowed place.
    unsafe { std::ptr::write_volatile(place, value) };
}

fn buf(raw: u64) -> vk::Buffer {
    vk::Buffer::from_raw(raw)
}

/// What `cb`'s replay asks the engine to run.
fn replay(cb: vk::CommandBuffer) -> Vec<String> {
    let mut e = Engine::default();
    // SAFETY: a live command buffer of the fixture driver.
    let cb = unsafe { CommandBuffer::<Rec>::from_handle(cb) }.expect("a kit command buffer");
    cb.replay(&mut e);
    e.log
}

#[test]
fn fill_update_copy_replay_with_the_recorded_arguments() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let cb = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    let mut data = [1u8, 2, 3, 4, 5, 6, 7, 8];
    let mut regions = [
        vk::BufferCopy {
            src_offset: 0,
            dst_offset: 16,
            size: 4,
        },
        vk::BufferCopy {
            src_offset: 8,
            dst_offset: 32,
            size: 12,
        },
    ];
    f.begin(cb);
    // SAFETY: a recording command buffer; the arguments are valid for each call.
    unsafe {
        f.device.cmd_fill_buffer(cb, buf(7), 4, 64, 0xdead_beef);
        f.device.cmd_update_buffer(cb, buf(8), 12, &data);
        f.device.cmd_copy_buffer(cb, buf(7), buf(8), &regions);
        f.device.cmd_draw(cb, 3, 1, 0, 0);
    }
    f.end(cb);
    // The application reuses its memory right after recording.
    scribble(&mut data, [0xee; 8]);
    scribble(&mut regions[1].size, 999);
    scribble(&mut regions[0], vk::BufferCopy::default());
    assert_eq!(
        replay(cb),
        [
            "fill 7 4 64 0xdeadbeef",
            "update 8 12 [1, 2, 3, 4, 5, 6, 7, 8]",
            "copy 7 8 [(0, 16, 4), (8, 32, 12)]",
            "unimplemented vkCmdDraw",
        ]
    );
    // Replays are repeatable (a buffer may be submitted again).
    assert_eq!(replay(cb).len(), 4);
}

#[test]
fn pnext_chains_are_deep_copied_and_unknown_structures_dropped() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let cb = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    let mut colors = [
        vk::RenderingAttachmentInfo::default().image_view(vk::ImageView::from_raw(11)),
        vk::RenderingAttachmentInfo::default().image_view(vk::ImageView::from_raw(12)),
    ];
    let mut areas = [
        vk::Rect2D {
            extent: vk::Extent2D {
                width: 5,
                height: 5,
            },
            ..Default::default()
        },
        vk::Rect2D {
            extent: vk::Extent2D {
                width: 6,
                height: 6,
            },
            ..Default::default()
        },
    ];
    // An extension structure no registry has: its size is unknowable, so it is dropped.
    let mut unknown = vk::BaseInStructure {
        s_type: vk::StructureType::from_raw(1_999_999_000),
        ..Default::default()
    };
    // Raw pointers (not the builders' borrows), so the test may overwrite the memory after.
    let mut group = vk::DeviceGroupRenderPassBeginInfo::default().device_mask(0b11);
    group.device_render_area_count = 2;
    group.p_device_render_areas = areas.as_ptr();
    group.p_next = std::ptr::from_ref(&unknown).cast();
    let mut info = vk::RenderingInfo::default()
        .render_area(vk::Rect2D {
            extent: vk::Extent2D {
                width: 64,
                height: 32,
            },
            ..Default::default()
        })
        .layer_count(1);
    info.color_attachment_count = 2;
    info.p_color_attachments = colors.as_ptr();
    info.p_next = std::ptr::from_ref(&group).cast();
    f.begin(cb);
    // SAFETY: a recording command buffer and a valid rendering info.
    unsafe {
        f.device.cmd_begin_rendering(cb, &info);
        f.device.cmd_end_rendering(cb);
    }
    f.end(cb);
    scribble(&mut colors[0].image_view, vk::ImageView::null());
    scribble(&mut areas[1].extent.width, 0);
    scribble(&mut group.device_mask, 0);
    scribble(&mut unknown.s_type, vk::StructureType::APPLICATION_INFO);
    scribble(&mut info.render_area.extent.width, 1);
    assert_eq!(
        replay(cb),
        [
            "rendering 64x32 [11, 12] [\"group 0x3 [5, 6]\"]",
            "unimplemented vkCmdEndRendering",
        ]
    );
}

/// The recorder's warnings, as the driver logs them (the test binary links the driver, so one
/// `log` logger sees them).
fn recorder_warnings() -> &'static std::sync::Mutex<Vec<String>> {
    struct Capture(std::sync::Mutex<Vec<String>>);
    impl log::Log for Capture {
        fn enabled(&self, _: &log::Metadata<'_>) -> bool {
            true
        }
        fn log(&self, r: &log::Record<'_>) {
            let line = r.args().to_string();
            if line.starts_with("recorder: ") {
                self.0.lock().unwrap().push(line);
            }
        }
        fn flush(&self) {}
    }
    static LOGGER: std::sync::OnceLock<&'static Capture> = std::sync::OnceLock::new();
    let logger = LOGGER.get_or_init(|| {
        let c: &'static Capture = Box::leak(Box::new(Capture(Default::default())));
        log::set_logger(c).expect("no other logger in this test binary");
        log::set_max_level(log::LevelFilter::Warn);
        // Points the recorder's reports at `log`, as every way into a built driver does first
        // (this fixture calls the entry points directly).
        vkgen_driver::export::init_logging();
        c
    });
    &logger.0
}

/// Issue 36: a cyclic chain is copied up to the bound, not until memory runs out, and an
/// unknown structure in every command logs a bounded number of lines, not one per command.
#[test]
fn cyclic_chains_end_and_drop_warnings_are_rate_limited() {
    use vkgen_driver::generated::recorder::Arena;
    let warnings = recorder_warnings();
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let cb = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    // The engine reads the attachments, so there is one (a null array is no slice).
    let colors = [vk::RenderingAttachmentInfo::default().image_view(vk::ImageView::from_raw(7))];
    let mut group = vk::DeviceGroupRenderPassBeginInfo::default().device_mask(0b1);
    // The structure is its own successor.
    group.p_next = std::ptr::from_ref(&group).cast();
    let mut info = vk::RenderingInfo::default().layer_count(1);
    info.color_attachment_count = 1;
    info.p_color_attachments = colors.as_ptr();
    info.p_next = std::ptr::from_ref(&group).cast();
    f.begin(cb);
    // SAFETY: a recording command buffer; the chain is cyclic but every element is valid.
    unsafe { f.device.cmd_begin_rendering(cb, &info) };
    f.end(cb);
    let log = replay(cb);
    let groups = log[0].matches("group 0x1").count();
    assert_eq!(groups, Arena::MAX_CHAIN_ELEMENTS, "{}", &log[0][..200]);
    assert!(warnings
        .lock()
        .unwrap()
        .iter()
        .any(|w| w.contains("was cut")));
    // 1,000 commands, each with a structure the recorder cannot know.
    let unknown = vk::BaseInStructure {
        s_type: vk::StructureType::from_raw(1_999_999_000),
        ..Default::default()
    };
    let mut info = vk::RenderingInfo::default().layer_count(1);
    info.color_attachment_count = 1;
    info.p_color_attachments = colors.as_ptr();
    info.p_next = std::ptr::from_ref(&unknown).cast();
    let cb = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    f.begin(cb);
    for _ in 0..1000 {
        // SAFETY: a recording command buffer and a valid rendering info.
        unsafe { f.device.cmd_begin_rendering(cb, &info) };
    }
    f.end(cb);
    assert_eq!(replay(cb).len(), 1000, "every command is still recorded");
    let w = warnings.lock().unwrap();
    assert!(
        w.len() <= Arena::MAX_DROP_REPORTS,
        "{} lines: {w:?}",
        w.len()
    );
    assert_eq!(
        w.iter().filter(|l| l.contains("are not reported")).count(),
        1,
        "{w:?}"
    );
}

#[test]
fn secondaries_replay_inline_through_execute_commands() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let primary = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    let secondaries = f.buffers(vk::CommandBufferLevel::SECONDARY, 2);
    for (i, &s) in secondaries.iter().enumerate() {
        let inheritance = vk::CommandBufferInheritanceInfo::default();
        let begin = vk::CommandBufferBeginInfo::default().inheritance_info(&inheritance);
        // SAFETY: a secondary of this fixture, recorded once.
        unsafe {
            f.device.begin_command_buffer(s, &begin).unwrap();
            f.device
                .cmd_fill_buffer(s, buf(20 + i as u64), 0, 4, i as u32);
        }
        f.end(s);
    }
    f.begin(primary);
    // SAFETY: a recording primary and two executable secondaries of the same pool.
    unsafe {
        f.device.cmd_fill_buffer(primary, buf(1), 0, 4, 0xa);
        f.device.cmd_execute_commands(primary, &secondaries);
        f.device.cmd_fill_buffer(primary, buf(2), 0, 4, 0xb);
    }
    f.end(primary);
    assert_eq!(
        replay(primary),
        [
            "fill 1 0 4 0xa",
            "fill 20 0 4 0x0",
            "fill 21 0 4 0x1",
            "fill 2 0 4 0xb"
        ]
    );
}

#[test]
fn pool_reset_buffer_reset_rerecord_and_trim() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER);
    let cbs = f.buffers(vk::CommandBufferLevel::PRIMARY, 2);
    let big = vec![7u8; 60_000];
    for &cb in &cbs {
        f.begin(cb);
        // SAFETY: a recording command buffer; 60 000 bytes fit an update (≤ 65 536).
        unsafe { f.device.cmd_update_buffer(cb, buf(3), 0, &big) };
        f.end(cb);
        assert_eq!(replay(cb).len(), 1);
    }
    let held = |cb: vk::CommandBuffer| {
        // SAFETY: the closure is only called with live command buffers of this fixture.
        unsafe { CommandBuffer::<Rec>::from_handle(cb) }
            .unwrap()
            .recording()
            .capacity()
    };
    assert!(held(cbs[0]) >= 60_000);

    // Pool reset: every buffer back to initial, memory kept (no RELEASE_RESOURCES) ...
    // SAFETY: a live pool whose buffers are not pending.
    unsafe {
        f.device
            .reset_command_pool(f.pool, vk::CommandPoolResetFlags::empty())
    }
    .unwrap();
    assert!(cbs.iter().all(|&cb| replay(cb).is_empty()));
    assert!(held(cbs[0]) >= 60_000);
    // ... and given back by a trim.
    // SAFETY: a live pool.
    unsafe {
        f.device
            .trim_command_pool(f.pool, vk::CommandPoolTrimFlags::empty())
    };
    assert_eq!(held(cbs[0]), 0);

    // Re-record after the pool reset.
    f.begin(cbs[0]);
    // SAFETY: a recording command buffer.
    unsafe { f.device.cmd_fill_buffer(cbs[0], buf(4), 0, 4, 1) };
    f.end(cbs[0]);
    assert_eq!(replay(cbs[0]), ["fill 4 0 4 0x1"]);

    // A buffer reset (the pool allows it) touches only that buffer; RELEASE frees its memory.
    f.begin(cbs[1]);
    // SAFETY: a recording command buffer.
    unsafe { f.device.cmd_fill_buffer(cbs[1], buf(5), 0, 4, 2) };
    f.end(cbs[1]);
    // SAFETY: an executable, not pending command buffer of a RESET_COMMAND_BUFFER pool.
    unsafe {
        f.device
            .reset_command_buffer(cbs[1], vk::CommandBufferResetFlags::RELEASE_RESOURCES)
    }
    .unwrap();
    assert!(replay(cbs[1]).is_empty());
    assert_eq!(held(cbs[1]), 0);
    assert_eq!(replay(cbs[0]), ["fill 4 0 4 0x1"]);

    // Beginning again resets implicitly.
    f.begin(cbs[0]);
    f.end(cbs[0]);
    assert!(replay(cbs[0]).is_empty());

    // The pool's buffers, in allocation order.
    // SAFETY: a live pool of this fixture.
    let pool = unsafe { command::CommandPool::<Rec>::from_handle(f.pool) }.unwrap();
    let mut seen = Vec::new();
    pool.for_each_buffer(|cb| seen.push(std::ptr::from_ref(cb) as u64));
    assert_eq!(seen, cbs.iter().map(|c| c.as_raw()).collect::<Vec<_>>());
}

#[test]
fn every_vkcmd_has_a_recording_entry_point() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let mut recorded = 0;
    for i in 0..commands::COMMANDS.len() {
        let id = CommandId(i as u16);
        let info = commands::info(id);
        if !info.name().to_bytes().starts_with(b"vkCmd") {
            continue;
        }
        recorded += 1;
        assert!(
            vkgen_driver::generated::recorder::entries::<Recorder<Rec>>()
                .get(id)
                .is_some(),
            "{:?} has no recording entry point",
            info.name()
        );
        let canonical = vkgen_driver::generated::driver::canonical(id);
        assert!(
            Rec::fallback(canonical).is_some(),
            "{:?} is not handed out by the kit",
            info.name()
        );
    }
    assert!(recorded > 250, "{recorded} vkCmd* commands");
    // Core commands through the real proc-addr path.
    for name in [
        c"vkCmdFillBuffer",
        c"vkCmdCopyBuffer2",
        c"vkCmdBeginRendering",
        c"vkCmdPushConstants2",
    ] {
        // SAFETY: a live device of the fixture and a NUL-terminated name.
        let f = unsafe { get_device_proc_addr::<Rec>(f.device.handle(), name.as_ptr()) };
        assert!(f.is_some(), "{name:?}");
    }
}

#[test]
fn the_execute_macro_reports_the_methods_an_engine_defines() {
    assert!(Engine::implements(CommandId::CMD_FILL_BUFFER));
    assert!(Engine::implements(CommandId::CMD_BEGIN_RENDERING));
    assert!(!Engine::implements(CommandId::CMD_DRAW));
    let missing: Vec<CommandId> = command::unimplemented::<Engine>().collect();
    assert_eq!(missing.len(), command::COMMANDS.len() - 4);
    assert!(missing.contains(&CommandId::CMD_DRAW));
    // What the fixture advertises and nothing runs: core commands, not unsupported extensions'
    // (the requirements report's recorder view).
    use vkgen_driver::kit::requirements::{unimplemented_commands, Missing};
    let got = unimplemented_commands::<Rec>(
        kit::command_map::<Rec>(),
        Rec::API_VERSION,
        Rec::device_extensions(),
        Some(Engine::implements),
    );
    let advertised: Vec<&str> = got
        .iter()
        .filter_map(|m| match m {
            Missing::Unexecuted { command, .. } => Some(*command),
            _ => None,
        })
        .collect();
    assert!(advertised.contains(&"vkCmdDraw"));
    assert!(advertised.contains(&"vkCmdCopyBuffer2"));
    assert!(!advertised.contains(&"vkCmdFillBuffer"));
    assert!(!advertised.contains(&"vkCmdDrawMultiEXT"));
    // Without the engine it is the entry-table view alone: recorded commands are not NULL.
    let table_view = unimplemented_commands::<Rec>(
        kit::command_map::<Rec>(),
        Rec::API_VERSION,
        Rec::device_extensions(),
        None,
    );
    assert!(!table_view.iter().any(|m| matches!(
        m,
        Missing::Unexecuted { .. }
            | Missing::Command {
                command: "vkCmdDraw",
                ..
            }
    )));
}

/// An engine that runs only the `…2` copy and barrier (and a fill): the 1.0 forms an
/// application records reach it converted. Buffers are 64 bytes of host memory by handle.
#[derive(Default)]
struct Engine2 {
    memory: std::collections::BTreeMap<u64, Vec<u8>>,
    barriers: Vec<String>,
    unimplemented: Vec<CommandId>,
}

impl Engine2 {
    fn buffer(&mut self, b: vk::Buffer) -> &mut Vec<u8> {
        self.memory.entry(b.as_raw()).or_insert_with(|| vec![0; 64])
    }
}

#[vkgen_driver::execute]
impl Execute for Engine2 {
    fn unimplemented(&mut self, cmd: CommandId) {
        self.unimplemented.push(cmd);
    }

    unsafe fn cmd_fill_buffer(&mut self, dst: vk::Buffer, offset: u64, size: u64, data: u32) {
        let range = offset as usize..(offset + size) as usize;
        for word in self.buffer(dst)[range].chunks_mut(4) {
            word.copy_from_slice(&data.to_le_bytes()[..word.len()]);
        }
    }

    unsafe fn cmd_copy_buffer2(&mut self, info: *const vk::CopyBufferInfo2<'_>) {
        // SAFETY: the replay passes the route's info, built from the recorded arguments.
        let info = unsafe { &*info };
        assert_eq!(info.s_type, vk::StructureType::COPY_BUFFER_INFO_2);
        // SAFETY: `region_count` regions converted from the recorded `VkBufferCopy` array.
        let regions =
            unsafe { std::slice::from_raw_parts(info.p_regions, info.region_count as usize) };
        let src = self.buffer(info.src_buffer).clone();
        let dst = self.buffer(info.dst_buffer);
        for r in regions {
            assert_eq!(r.s_type, vk::StructureType::BUFFER_COPY_2);
            let (s, d, n) = (
                r.src_offset as usize,
                r.dst_offset as usize,
                r.size as usize,
            );
            dst[d..d + n].copy_from_slice(&src[s..s + n]);
        }
    }

    unsafe fn cmd_pipeline_barrier2(&mut self, dependency: *const vk::DependencyInfo<'_>) {
        // SAFETY: the replay passes the route's dependency, built from the recorded barriers.
        let d = unsafe { &*dependency };
        // SAFETY: each array holds its count of converted barriers.
        let (memory, buffers) = unsafe {
            (
                std::slice::from_raw_parts(d.p_memory_barriers, d.memory_barrier_count as usize),
                std::slice::from_raw_parts(
                    d.p_buffer_memory_barriers,
                    d.buffer_memory_barrier_count as usize,
                ),
            )
        };
        for m in memory {
            self.barriers.push(format!(
                "memory {:?}/{:?} -> {:?}/{:?} {:?}",
                m.src_stage_mask,
                m.src_access_mask,
                m.dst_stage_mask,
                m.dst_access_mask,
                d.dependency_flags
            ));
        }
        for b in buffers {
            self.barriers.push(format!(
                "buffer {} {}+{} {:?}/{:?} -> {:?}/{:?}",
                b.buffer.as_raw(),
                b.offset,
                b.size,
                b.src_stage_mask,
                b.src_access_mask,
                b.dst_stage_mask,
                b.dst_access_mask
            ));
        }
        assert_eq!(d.image_memory_barrier_count, 0);
    }
}

#[test]
fn the_1_0_copy_and_barrier_replay_through_the_2_methods() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let cb = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    let mut regions = [
        vk::BufferCopy {
            src_offset: 0,
            dst_offset: 8,
            size: 8,
        },
        vk::BufferCopy {
            src_offset: 12,
            dst_offset: 40,
            size: 12,
        },
    ];
    let mut memory = [vk::MemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ)];
    let buffer_barrier = vk::BufferMemoryBarrier::default()
        .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
        .dst_access_mask(vk::AccessFlags::TRANSFER_READ | vk::AccessFlags::HOST_READ)
        .buffer(buf(1))
        .offset(4)
        .size(20);
    let image = vk::ImageSubresourceLayers::default()
        .aspect_mask(vk::ImageAspectFlags::COLOR)
        .layer_count(1);
    f.begin(cb);
    // SAFETY: a recording command buffer; the arguments are valid for each call.
    unsafe {
        f.device.cmd_fill_buffer(cb, buf(1), 0, 16, 0x0403_0201);
        f.device.cmd_fill_buffer(cb, buf(1), 16, 16, 0x0807_0605);
        f.device.cmd_fill_buffer(cb, buf(2), 0, 64, 0xaaaa_aaaa);
        f.device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::TRANSFER | vk::PipelineStageFlags::HOST,
            vk::DependencyFlags::BY_REGION,
            &memory,
            &[buffer_barrier],
            &[],
        );
        f.device.cmd_copy_buffer(cb, buf(1), buf(2), &regions);
        // No `…2` method for this one: the 1.0 form is reported, not run.
        f.device.cmd_copy_image(
            cb,
            vk::Image::from_raw(5),
            vk::ImageLayout::GENERAL,
            vk::Image::from_raw(6),
            vk::ImageLayout::GENERAL,
            &[vk::ImageCopy::default()
                .src_subresource(image)
                .dst_subresource(image)],
        );
    }
    f.end(cb);
    scribble(&mut regions[1].size, 0);
    scribble(&mut memory[0].dst_access_mask, vk::AccessFlags::empty());

    let mut e = Engine2::default();
    // SAFETY: a live command buffer of the fixture driver.
    let handle = unsafe { CommandBuffer::<Rec>::from_handle(cb) }.expect("a kit command buffer");
    handle.replay(&mut e);
    let mut src = vec![0u8; 64];
    for (i, b) in src[..32].iter_mut().enumerate() {
        *b = (i % 4 + 1 + 4 * (i / 16)) as u8;
    }
    let mut dst = vec![0xaa; 64];
    dst[8..16].copy_from_slice(&src[0..8]);
    dst[40..52].copy_from_slice(&src[12..24]);
    assert_eq!(e.memory[&1], src);
    assert_eq!(e.memory[&2], dst, "the 1.0 copy, run by cmd_copy_buffer2");
    assert_eq!(
        e.barriers,
        [
            // The 64-bit stage `TRANSFER` (0x1000) prints by its `…2` name.
            "memory ALL_TRANSFER/TRANSFER_WRITE -> ALL_TRANSFER | HOST/TRANSFER_READ BY_REGION",
            "buffer 1 4+20 ALL_TRANSFER/TRANSFER_WRITE -> ALL_TRANSFER | HOST/TRANSFER_READ | HOST_READ",
        ]
    );
    assert_eq!(e.unimplemented, [CommandId::CMD_COPY_IMAGE]);

    // The requirements view counts a 1.0 form as run when its `…2` target is.
    assert!(Engine2::implements(CommandId::CMD_COPY_BUFFER));
    assert!(Engine2::implements(CommandId::CMD_PIPELINE_BARRIER));
    assert!(!Engine2::implements(CommandId::CMD_COPY_IMAGE));
    let unexecuted: Vec<&str> = kit::requirements::unimplemented_commands::<Rec>(
        kit::command_map::<Rec>(),
        Rec::API_VERSION,
        Rec::device_extensions(),
        Some(Engine2::implements),
    )
    .into_iter()
    .filter_map(|m| match m {
        kit::requirements::Missing::Unexecuted { command, .. } => Some(command),
        _ => None,
    })
    .collect();
    assert!(!unexecuted.contains(&"vkCmdCopyBuffer"));
    assert!(!unexecuted.contains(&"vkCmdPipelineBarrier"));
    assert!(unexecuted.contains(&"vkCmdCopyImage"));
    assert!(unexecuted.contains(&"vkCmdCopyImage2"));
}

/// An engine with only `…2` forms whose conversion is not member by member: the event
/// commands (hand-written), a renamed stage, a bind point made stages, a default size.
#[derive(Default)]
struct Events2 {
    log: Vec<String>,
}

/// A dependency's memory and buffer barriers, as text.
///
/// # Safety
/// `d` is a valid dependency info.
unsafe fn barriers(d: &vk::DependencyInfo<'_>) -> String {
    // SAFETY: the caller's dependency holds its counts of barriers (an empty array may be null).
    let (m, b) = unsafe {
        (
            slice(d.p_memory_barriers, d.memory_barrier_count),
            slice(d.p_buffer_memory_barriers, d.buffer_memory_barrier_count),
        )
    };
    let m: Vec<_> = m
        .iter()
        .map(|m| {
            (
                m.src_stage_mask.as_raw(),
                m.dst_stage_mask.as_raw(),
                m.dst_access_mask.as_raw(),
            )
        })
        .collect();
    let b: Vec<_> = b
        .iter()
        .map(|b| {
            (
                b.buffer.as_raw(),
                b.src_stage_mask.as_raw(),
                b.dst_stage_mask.as_raw(),
            )
        })
        .collect();
    format!("{m:?} {b:?}")
}

/// `n` elements at `p`, which may be null when `n` is 0 (Vulkan's empty array).
///
/// # Safety
/// `p` points at `n` elements when `n` is not 0.
unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if n == 0 {
        return &[];
    }
    // SAFETY: the caller's `n` elements at `p`.
    unsafe { std::slice::from_raw_parts(p, n as usize) }
}

#[vkgen_driver::execute]
impl Execute for Events2 {
    unsafe fn cmd_set_event2(&mut self, event: vk::Event, d: *const vk::DependencyInfo<'_>) {
        // SAFETY: the route's dependency, valid for the call.
        let text = unsafe { barriers(&*d) };
        self.log.push(format!("set {} {text}", event.as_raw()));
    }

    unsafe fn cmd_wait_events2(
        &mut self,
        count: u32,
        events: *const vk::Event,
        d: *const vk::DependencyInfo<'_>,
    ) {
        // SAFETY: the recorded events and the route's dependencies, one per event.
        let (events, deps) = unsafe {
            (
                std::slice::from_raw_parts(events, count as usize),
                std::slice::from_raw_parts(d, count as usize),
            )
        };
        for (e, d) in events.iter().zip(deps) {
            // SAFETY: a dependency of the route, valid for the call.
            let text = unsafe { barriers(d) };
            self.log.push(format!("wait {} {text}", e.as_raw()));
        }
    }

    unsafe fn cmd_write_timestamp2(
        &mut self,
        stage: vk::PipelineStageFlags2,
        _: vk::QueryPool,
        q: u32,
    ) {
        self.log
            .push(format!("timestamp {:#x} {q}", stage.as_raw()));
    }

    unsafe fn cmd_bind_descriptor_sets2(
        &mut self,
        info: *const vkgen_driver::generated::vk::BindDescriptorSetsInfo,
    ) {
        // SAFETY: the route's info, valid for the call.
        let i = unsafe { &*info };
        self.log.push(format!(
            "sets {:?} first {} count {} dynamic {}",
            i.stage_flags, i.first_set, i.descriptor_set_count, i.dynamic_offset_count
        ));
    }

    unsafe fn cmd_bind_index_buffer2(
        &mut self,
        b: vk::Buffer,
        offset: u64,
        size: u64,
        ty: vk::IndexType,
    ) {
        let whole = size == vk::WHOLE_SIZE;
        self.log.push(format!(
            "index {} {offset} whole {whole} {ty:?}",
            b.as_raw()
        ));
    }
}

#[test]
fn event_timestamp_and_binding_forms_replay_through_their_2_methods() {
    let f = Fixture::new(vk::CommandPoolCreateFlags::empty());
    let cb = f.buffers(vk::CommandBufferLevel::PRIMARY, 1)[0];
    let events = [vk::Event::from_raw(31), vk::Event::from_raw(32)];
    let barrier = vk::BufferMemoryBarrier::default().buffer(buf(9)).size(4);
    let sets = [
        vk::DescriptorSet::from_raw(41),
        vk::DescriptorSet::from_raw(42),
    ];
    let (transfer, host) = (
        vk::PipelineStageFlags::TRANSFER,
        vk::PipelineStageFlags::HOST,
    );
    f.begin(cb);
    // SAFETY: a recording command buffer; the arguments are valid for each call.
    unsafe {
        f.device.cmd_set_event(cb, events[0], transfer);
        f.device
            .cmd_wait_events(cb, &events, transfer, host, &[], &[barrier], &[]);
        f.device
            .cmd_write_timestamp(cb, transfer, vk::QueryPool::from_raw(5), 3);
        f.device.cmd_bind_descriptor_sets(
            cb,
            vk::PipelineBindPoint::COMPUTE,
            vk::PipelineLayout::from_raw(6),
            1,
            &sets,
            &[256],
        );
        f.device
            .cmd_bind_index_buffer(cb, buf(7), 16, vk::IndexType::UINT16);
    }
    f.end(cb);
    let mut e = Events2::default();
    // SAFETY: a live command buffer of the fixture driver.
    unsafe { CommandBuffer::<Rec>::from_handle(cb) }
        .unwrap()
        .replay(&mut e);
    let (t, h) = (u64::from(transfer.as_raw()), u64::from(host.as_raw()));
    assert_eq!(
        e.log,
        [
            // An execution dependency on the stage, both scopes (Mesa's vk_common_CmdSetEvent).
            format!("set 31 [({t}, {t}, 0)] []"),
            // Each event's dependency holds the barriers with both stage masks.
            format!("wait 31 [] [(9, {t}, {h})]"),
            format!("wait 32 [] [(9, {t}, {h})]"),
            format!("timestamp {t:#x} 3"),
            "sets COMPUTE first 1 count 2 dynamic 1".to_owned(),
            "index 7 16 whole true UINT16".to_owned(),
        ]
    );
    for cmd in [
        CommandId::CMD_SET_EVENT,
        CommandId::CMD_WAIT_EVENTS,
        CommandId::CMD_WRITE_TIMESTAMP,
        CommandId::CMD_BIND_DESCRIPTOR_SETS,
        CommandId::CMD_BIND_INDEX_BUFFER,
    ] {
        assert!(Events2::implements(cmd), "{cmd:?}");
    }
    assert!(!Events2::implements(CommandId::CMD_RESET_EVENT));
}

/// Issue 30: the default format table advertises blits, copies and clears; an engine that runs
/// none of them is named per feature, and a description narrowed to what the engine runs is
/// not.
#[test]
fn the_report_names_format_features_the_engine_cannot_run() {
    use kit::format::FormatSupport;
    use kit::requirements::{format_findings, Missing};
    let features = |formats: &FormatSupport| -> Vec<(&'static str, String, usize)> {
        format_findings::<Rec>(
            formats.iter(),
            kit::command_map::<Rec>(),
            Some(Engine::implements),
        )
        .into_iter()
        .filter_map(|m| {
            let warning = !m.is_mandatory();
            match m {
                Missing::FormatFeature {
                    feature,
                    commands,
                    count,
                    ..
                } => {
                    assert!(warning, "a warning: the device is valid, it does less");
                    Some((feature, commands, count))
                }
                _ => None,
            }
        })
        .collect()
    };
    assert!(!Engine::implements(CommandId::CMD_BLIT_IMAGE));
    let all = FormatSupport::kit_default();
    let found = features(&all);
    let blit = found
        .iter()
        .find(|(f, _, _)| *f == "BLIT_DST")
        .expect("BLIT_DST is named");
    assert_eq!(blit.1, "vkCmdBlitImage/vkCmdBlitImage2");
    assert!(
        blit.2 > 100,
        "on every colour format of the default: {blit:?}"
    );
    assert!(found.iter().any(|(f, _, _)| *f == "TRANSFER_DST (clears)"));
    // Narrowed to what the engine can run (it fills and copies buffers, nothing else).
    let mut narrow = all.clone();
    narrow.without(
        vk::FormatFeatureFlags::BLIT_SRC
            | vk::FormatFeatureFlags::BLIT_DST
            | vk::FormatFeatureFlags::TRANSFER_SRC
            | vk::FormatFeatureFlags::TRANSFER_DST
            | vk::FormatFeatureFlags::COLOR_ATTACHMENT
            | vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT
            | vk::FormatFeatureFlags::SAMPLED_IMAGE
            | vk::FormatFeatureFlags::STORAGE_IMAGE
            | vk::FormatFeatureFlags::VERTEX_BUFFER,
    );
    assert_eq!(features(&narrow), []);
    assert!(narrow.iter().count() > 100, "texel-buffer formats remain");
    // The whole report of the recording driver carries the same warnings.
    let report =
        vkgen_driver::testing::requirements::report::<Rec>(Some(Engine::implements)).unwrap();
    let text = report.to_string();
    assert!(
        text.contains("warning: format feature BLIT_DST is advertised on"),
        "{text}"
    );
}
