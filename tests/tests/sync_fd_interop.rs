//! `SYNC_FD` semaphores and fences through our loader and `vulkan.host.so` on the host ICD
//! (lavapipe in CI, which has no fd extensions: the host driver emulates them).
//!
//! * A semaphore signalled by a submission on one instance's device, exported as a `SYNC_FD`
//!   and imported into a semaphore of a second instance's device: the second device's
//!   submission waiting on it does not run before the first one's (held back by a timeline
//!   semaphore the test signals from the CPU), and runs once it did.
//! * Fence export after completion is `-1`; a fence imported from an fd is signalled exactly
//!   when the fd is.
//! * Other handle types, timeline semaphores and a closed fd are
//!   `VK_ERROR_INVALID_EXTERNAL_HANDLE`, nothing crashes, and the process's fd count is the
//!   same after 300 export → import cycles.
//!
//! `VKGEN_AHB_ICD` names another host ICD manifest (the GPU run uses NVIDIA's).

mod wsi_support;

use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::path::Path;
use std::time::{Duration, Instant};

use ash::vk;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

struct Dev {
    _entry: ash::Entry,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    sem_fd: ash::khr::external_semaphore_fd::Device,
    fence_fd: ash::khr::external_fence_fd::Device,
    pool: vk::CommandPool,
}

impl Dev {
    fn new(loader: &Path) -> Self {
        let entry = require(vkgen_tests::compute::load_entry(loader));
        let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
        // SAFETY: plain Vulkan use with valid structures.
        unsafe {
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let family = instance
                .get_physical_device_queue_family_properties(pd)
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::TRANSFER))
                .unwrap() as u32;
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&prio)];
            let names = [
                ash::khr::external_semaphore_fd::NAME.as_ptr(),
                ash::khr::external_fence_fd::NAME.as_ptr(),
            ];
            let mut v12 = vk::PhysicalDeviceVulkan12Features::default().timeline_semaphore(true);
            let device = instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&qci)
                        .enabled_extension_names(&names)
                        .push_next(&mut v12),
                    None,
                )
                .unwrap();
            let pool = device
                .create_command_pool(
                    &vk::CommandPoolCreateInfo::default().queue_family_index(family),
                    None,
                )
                .unwrap();
            Self {
                sem_fd: ash::khr::external_semaphore_fd::Device::new(&instance, &device),
                fence_fd: ash::khr::external_fence_fd::Device::new(&instance, &device),
                queue: device.get_device_queue(family, 0),
                _entry: entry,
                instance,
                device,
                pool,
            }
        }
    }

    fn semaphore(&self, timeline: bool) -> vk::Semaphore {
        let mut export = vk::ExportSemaphoreCreateInfo::default()
            .handle_types(vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        let mut ty =
            vk::SemaphoreTypeCreateInfo::default().semaphore_type(vk::SemaphoreType::TIMELINE);
        let mut ci = vk::SemaphoreCreateInfo::default();
        ci = if timeline {
            ci.push_next(&mut ty)
        } else {
            ci.push_next(&mut export)
        };
        // SAFETY: valid create info.
        unsafe { self.device.create_semaphore(&ci, None) }.unwrap()
    }

    /// A fence exportable as `SYNC_FD` (the spec requires it of `vkGetFenceFdKHR`'s fence).
    fn fence(&self) -> vk::Fence {
        let mut export = vk::ExportFenceCreateInfo::default()
            .handle_types(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // SAFETY: valid create info.
        unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default().push_next(&mut export), None)
        }
        .unwrap()
    }

    fn export(&self, s: vk::Semaphore) -> Result<i32, vk::Result> {
        let info = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(s)
            .handle_type(vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD);
        // SAFETY: valid info.
        unsafe { self.sem_fd.get_semaphore_fd(&info) }
    }

    fn import(
        &self,
        s: vk::Semaphore,
        fd: i32,
        ty: vk::ExternalSemaphoreHandleTypeFlags,
    ) -> Result<(), vk::Result> {
        let info = vk::ImportSemaphoreFdInfoKHR::default()
            .semaphore(s)
            .handle_type(ty)
            .flags(vk::SemaphoreImportFlags::TEMPORARY)
            .fd(fd);
        // SAFETY: valid info (the fd is handed over on success).
        unsafe { self.sem_fd.import_semaphore_fd(&info) }
    }

    /// Submits `cb` (if any) waiting on `waits` (binary, or timeline with value) and signalling
    /// `signal`, with `fence`.
    fn submit(
        &self,
        waits: &[(vk::Semaphore, u64)],
        cb: Option<vk::CommandBuffer>,
        signal: Option<vk::Semaphore>,
        fence: vk::Fence,
    ) {
        let sems: Vec<_> = waits.iter().map(|w| w.0).collect();
        let values: Vec<_> = waits.iter().map(|w| w.1).collect();
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
        let signals: Vec<_> = signal.into_iter().collect();
        let signal_values = vec![0; signals.len()];
        let cbs: Vec<_> = cb.into_iter().collect();
        let mut tl = vk::TimelineSemaphoreSubmitInfo::default()
            .wait_semaphore_values(&values)
            .signal_semaphore_values(&signal_values);
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&sems)
            .wait_dst_stage_mask(&stages)
            .command_buffers(&cbs)
            .signal_semaphores(&signals)
            .push_next(&mut tl);
        // SAFETY: valid batch on the device's queue.
        unsafe { self.device.queue_submit(self.queue, &[submit], fence) }.unwrap();
    }

    /// A command buffer that fills `buffer` with `value`.
    fn fill(&self, buffer: vk::Buffer, value: u32) -> vk::CommandBuffer {
        // SAFETY: plain recording.
        unsafe {
            let cb = self
                .device
                .allocate_command_buffers(
                    &vk::CommandBufferAllocateInfo::default()
                        .command_pool(self.pool)
                        .command_buffer_count(1),
                )
                .unwrap()[0];
            self.device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            self.device
                .cmd_fill_buffer(cb, buffer, 0, vk::WHOLE_SIZE, value);
            self.device.end_command_buffer(cb).unwrap();
            cb
        }
    }

    fn host_buffer(&self) -> (vk::Buffer, vk::DeviceMemory, *mut u32) {
        // SAFETY: our own instance and device (one physical device).
        let (b, m, p) = require(unsafe {
            let pd = self.instance.enumerate_physical_devices().unwrap()[0];
            vkgen_tests::compute::mapped_host_buffer(
                &self.instance,
                pd,
                &self.device,
                256,
                vk::BufferUsageFlags::TRANSFER_DST,
            )
        });
        (b, m, p.cast())
    }
}

impl Drop for Dev {
    fn drop(&mut self) {
        // SAFETY: idle device; the tests destroy what they create.
        unsafe {
            let _ = self.device.device_wait_idle();
            self.device.destroy_command_pool(self.pool, None);
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// The process's fds, not counting GPU device nodes: a host ICD opens its own lazily (NVIDIA opens
/// another `/dev/nvidia0` at its first semaphore import) and keeps them, while everything the
/// runtime creates (eventfds, sync files, memfds) is an anonymous inode or a memfd, and the
/// test's own `/dev/null` stays counted.
fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| {
            std::fs::read_link(e.path()).map_or(true, |t| {
                let t = t.to_string_lossy();
                !t.starts_with("/dev/nvidia") && !t.starts_with("/dev/dri/")
            })
        })
        .count()
}

/// The process's fds as `fd -> target`, to name what leaked.
fn fd_table() -> Vec<String> {
    std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| {
            let e = e.ok()?;
            let target = std::fs::read_link(e.path()).ok()?;
            Some(format!(
                "{} -> {}",
                e.file_name().to_string_lossy(),
                target.display()
            ))
        })
        .collect()
}

/// Waits until the process's fd count is `want` (the driver's waiter threads close imported
/// fds as they finish) or a few seconds passed; returns the last count.
fn settle_fds(want: usize) -> usize {
    let start = Instant::now();
    loop {
        let n = open_fds();
        if n == want || start.elapsed() > Duration::from_secs(5) {
            return n;
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

#[test]
fn semaphore_fd_orders_work_across_devices() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child("semaphore_fd_orders_work_across_devices", &env, || {
        let a = Dev::new(&loader);
        let b = Dev::new(&loader);
        let gate = a.semaphore(true);
        let (buffer, memory, mapped) = b.host_buffer();
        let fill = b.fill(buffer, 0xC0FFEE);
        let mut checked = 0;
        let mut warm = None;
        for round in 0..300u64 {
            if round == 5 {
                warm = Some(open_fds());
            }
            let sa = a.semaphore(false);
            // A's signal is held back by the gate, which the test signals from the CPU.
            a.submit(&[(gate, round + 1)], None, Some(sa), vk::Fence::null());
            let fd = a.export(sa).expect("export");
            assert!(fd >= 0, "a pending signal exports a real fd");
            let sb = b.semaphore(false);
            b.import(sb, fd, vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD)
                .expect("import");
            let done = b.fence();
            // SAFETY: mapped, host-coherent memory no work uses now.
            unsafe { mapped.write_volatile(0) };
            b.submit(&[(sb, 0)], Some(fill), None, done);
            if round % 50 == 0 {
                // Ordering: B's work does not run while A's signal is held back.
                std::thread::sleep(Duration::from_millis(50));
                // SAFETY: live fence; mapped memory.
                unsafe {
                    assert_eq!(b.device.get_fence_status(done), Ok(false), "round {round}");
                    assert_eq!(mapped.read_volatile(), 0, "B's fill has not run");
                }
                checked += 1;
            }
            let info = vk::SemaphoreSignalInfo::default()
                .semaphore(gate)
                .value(round + 1);
            // SAFETY: a timeline semaphore of A; valid waits.
            unsafe {
                a.device.signal_semaphore(&info).unwrap();
                b.device
                    .wait_for_fences(&[done], true, 5_000_000_000)
                    .expect("B's work runs once A's signal is released");
                assert_eq!(mapped.read_volatile(), 0xC0FFEE);
                a.device.queue_wait_idle(a.queue).unwrap();
                b.device.destroy_fence(done, None);
                b.device.destroy_semaphore(sb, None);
                a.device.destroy_semaphore(sa, None);
            }
        }
        assert_eq!(checked, 6);
        let warm = warm.unwrap();
        // At round 5 a waiter thread may still hold round 4's imported fd, so the warm count
        // can be one above the level: the test is that 295 more cycles add none.
        let after = settle_fds(warm);
        assert!(
            after <= warm,
            "fds grow over 300 export → import cycles: {warm} → {after}"
        );
        // SAFETY: idle devices.
        unsafe {
            b.device.destroy_buffer(buffer, None);
            b.device.free_memory(memory, None);
            a.device.destroy_semaphore(gate, None);
        }
        println!("300 cross-device SYNC_FD hand-overs, ordering checked 6 times, fds level");
    });
}

#[test]
fn fence_fds_and_refusals() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child("fence_fds_and_refusals", &env, || {
        let d = Dev::new(&loader);
        let before = open_fds();
        let table = fd_table();
        // Export after completion: -1 (signalled), and the fence is reset.
        let f = d.fence();
        d.submit(&[], None, None, f);
        let info = vk::FenceGetFdInfoKHR::default()
            .fence(f)
            .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // SAFETY: valid objects throughout.
        unsafe {
            let fd = d.fence_fd.get_fence_fd(&info).unwrap();
            if fd >= 0 {
                drop(OwnedFd::from_raw_fd(fd));
            }
            assert_eq!(
                d.device.get_fence_status(f),
                Ok(false),
                "export resets the fence"
            );
            // Import an eventfd: signalled exactly when the eventfd is.
            let efd = rustix::event::eventfd(0, rustix::event::EventfdFlags::CLOEXEC).unwrap();
            let signaller = efd.try_clone().unwrap();
            let import = vk::ImportFenceFdInfoKHR::default()
                .fence(f)
                .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD)
                .flags(vk::FenceImportFlags::TEMPORARY)
                .fd(efd.into_raw_fd());
            d.fence_fd.import_fence_fd(&import).unwrap();
            std::thread::sleep(Duration::from_millis(50));
            assert_eq!(d.device.get_fence_status(f), Ok(false));
            rustix::io::write(&signaller, &1u64.to_ne_bytes()).unwrap();
            d.device.wait_for_fences(&[f], true, 5_000_000_000).unwrap();
            drop(signaller);
            d.device.destroy_fence(f, None);

            // Refusals: another handle type, a timeline semaphore, a closed fd.
            let s = d.semaphore(false);
            let dup = OwnedFd::from(std::fs::File::open("/dev/null").unwrap());
            assert_eq!(
                d.import(
                    s,
                    dup.as_raw_fd(),
                    vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD
                ),
                Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE)
            );
            drop(dup);
            assert_eq!(
                d.import(s, 1 << 20, vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD),
                Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
                "a closed fd"
            );
            let t = d.semaphore(true);
            assert_eq!(d.export(t), Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE));
            d.device.destroy_semaphore(t, None);

            // FFmpeg 5.1's frame semaphores: timeline, exportable as OPAQUE_FD without asking
            // whether it can be. Created (lavapipe cannot export it: the type is dropped), a
            // working timeline; the export itself fails where the host cannot do it.
            let mut export = vk::ExportSemaphoreCreateInfo::default()
                .handle_types(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
            let mut ty = vk::SemaphoreTypeCreateInfo::default()
                .semaphore_type(vk::SemaphoreType::TIMELINE)
                .initial_value(1);
            let ci = vk::SemaphoreCreateInfo::default()
                .push_next(&mut export)
                .push_next(&mut ty);
            let t = d.device.create_semaphore(&ci, None).unwrap();
            d.device
                .signal_semaphore(&vk::SemaphoreSignalInfo::default().semaphore(t).value(3))
                .unwrap();
            assert_eq!(d.device.get_semaphore_counter_value(t), Ok(3));
            let info = vk::SemaphoreGetFdInfoKHR::default()
                .semaphore(t)
                .handle_type(vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD);
            match d.sem_fd.get_semaphore_fd(&info) {
                Ok(fd) => drop(OwnedFd::from_raw_fd(fd)),
                Err(e) => assert_eq!(e, vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
            }
            d.device.destroy_semaphore(t, None);
            d.device.destroy_semaphore(s, None);

            // FFmpeg 5.1 asks for OPAQUE_FD export as soon as the fd extension is there,
            // without querying whether it is exportable; creation still succeeds and SYNC_FD
            // export works (the host is asked only for what it can export).
            let mut both = vk::ExportSemaphoreCreateInfo::default().handle_types(
                vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD
                    | vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD,
            );
            let s = d
                .device
                .create_semaphore(
                    &vk::SemaphoreCreateInfo::default().push_next(&mut both),
                    None,
                )
                .expect("a semaphore asking for OPAQUE_FD and SYNC_FD export");
            d.submit(&[], None, Some(s), vk::Fence::null());
            let fd = d.export(s).expect("SYNC_FD export of that semaphore");
            if fd >= 0 {
                drop(OwnedFd::from_raw_fd(fd));
            }
            // The batch that signals it must complete before the semaphore goes.
            d.device.device_wait_idle().unwrap();
            d.device.destroy_semaphore(s, None);
            let mut opaque = vk::ExportFenceCreateInfo::default()
                .handle_types(vk::ExternalFenceHandleTypeFlags::OPAQUE_FD);
            let f = d
                .device
                .create_fence(&vk::FenceCreateInfo::default().push_next(&mut opaque), None)
                .expect("a fence asking for OPAQUE_FD export");
            d.device.destroy_fence(f, None);
        }
        let after = settle_fds(before);
        let new: Vec<String> = fd_table()
            .into_iter()
            .filter(|e| !table.contains(e))
            .collect();
        assert_eq!(after, before, "no fd leaked; new: {new:?}");
    });
}

/// The process's thread count.
fn threads() -> usize {
    std::fs::read_dir("/proc/self/task").unwrap().count()
}

/// Issue 25's SYNC_FD hazards, on the device `d`:
/// * importing `-1` (already signalled) into a semaphore and waiting on it completes;
/// * a fence's exported sync file (`-1` from the emulation) imported into a semaphore, waited
///   on, completes;
/// * exporting a fence that was never submitted answers at once (an error), never waits;
/// * a regular file, a pipe and a socket are refused on import (and stay the caller's);
/// * 2,000 pending imports take no thread each, and all complete once signalled.
fn sync_fd_hazards(d: &Dev) {
    let done = |fence: vk::Fence| {
        // SAFETY: a fence of the device.
        unsafe { d.device.wait_for_fences(&[fence], true, 10_000_000_000) }
    };
    // SAFETY: valid objects throughout.
    unsafe {
        let f = d.fence();
        let s = d.semaphore(false);
        d.import(s, -1, vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD)
            .expect("importing -1");
        d.submit(&[(s, 0)], None, None, f);
        done(f).expect("a wait on an imported -1 completes");

        // Export the (signalled) fence: -1; import that into the semaphore; wait.
        let info = vk::FenceGetFdInfoKHR::default()
            .fence(f)
            .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        let fd = d
            .fence_fd
            .get_fence_fd(&info)
            .expect("export a signalled fence");
        d.import(s, fd, vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD)
            .expect("import the fence's sync file");
        d.submit(&[(s, 0)], None, None, f);
        done(f).expect("a wait on the fence's sync file completes");
        d.device.reset_fences(&[f]).unwrap();

        // Never submitted: answered at once.
        let g = d.fence();
        let started = Instant::now();
        let info = vk::FenceGetFdInfoKHR::default()
            .fence(g)
            .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        match d.fence_fd.get_fence_fd(&info) {
            Ok(fd) if fd >= 0 => drop(OwnedFd::from_raw_fd(fd)),
            Ok(_) => {}
            Err(e) => assert!(e.as_raw() < 0, "{e:?}"),
        }
        assert!(started.elapsed() < Duration::from_secs(5));
        d.device.destroy_fence(g, None);
        reset_fence_export_is_answered(d);

        // Not sync files.
        let file = tempfile::tempfile().unwrap();
        let (pipe_r, _pipe_w) = rustix::pipe::pipe().unwrap();
        let (sock, _peer) = std::os::unix::net::UnixStream::pair().unwrap();
        for fd in [file.as_raw_fd(), pipe_r.as_raw_fd(), sock.as_raw_fd()] {
            assert_eq!(
                d.import(s, fd, vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD),
                Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE),
                "fd {fd} is no sync file"
            );
            assert!(rustix::io::fcntl_getfd(rustix::fd::BorrowedFd::borrow_raw(fd)).is_ok());
        }

        // Many pending imports, one waiter thread (each import holds two fds here: room for them).
        let limit = rustix::process::getrlimit(rustix::process::Resource::Nofile);
        let _ = rustix::process::setrlimit(
            rustix::process::Resource::Nofile,
            rustix::process::Rlimit {
                current: limit.maximum,
                ..limit
            },
        );
        let base = threads();
        let mut pending = Vec::new();
        for _ in 0..2000 {
            let efd = rustix::event::eventfd(0, rustix::event::EventfdFlags::CLOEXEC).unwrap();
            let signaller = efd.try_clone().unwrap();
            let sem = d.semaphore(false);
            d.import(
                sem,
                efd.into_raw_fd(),
                vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD,
            )
            .expect("import an eventfd");
            pending.push((sem, signaller));
        }
        assert!(
            threads() <= base + 4,
            "2,000 pending imports took {} threads",
            threads() - base
        );
        for (_, signaller) in &pending {
            rustix::io::write(signaller, &1u64.to_ne_bytes()).unwrap();
        }
        let waits: Vec<(vk::Semaphore, u64)> = pending.iter().map(|p| (p.0, 0)).collect();
        for chunk in waits.chunks(500) {
            d.submit(chunk, None, None, f);
            done(f).expect("waits on signalled imports complete");
            d.device.reset_fences(&[f]).unwrap();
        }
        for (sem, _) in pending {
            d.device.destroy_semaphore(sem, None);
        }
        d.device.destroy_semaphore(s, None);
        d.device.destroy_fence(f, None);
    }
}

/// A fence a batch signalled, then reset by the application (`vkResetFences`) and exported
/// without a new batch: answered at once, not waited for forever (issue 25).
fn reset_fence_export_is_answered(d: &Dev) {
    let f = d.fence();
    d.submit(&[], None, None, f);
    // SAFETY: a fence of the device, signalled by the batch just submitted.
    unsafe {
        d.device
            .wait_for_fences(&[f], true, 10_000_000_000)
            .unwrap();
        d.device.reset_fences(&[f]).unwrap();
    }
    let fence_fd = d.fence_fd.clone();
    let (tx, rx) = std::sync::mpsc::channel();
    // The export runs on a thread of its own: a regression waits forever.
    std::thread::spawn(move || {
        let info = vk::FenceGetFdInfoKHR::default()
            .fence(f)
            .handle_type(vk::ExternalFenceHandleTypeFlags::SYNC_FD);
        // SAFETY: a live exportable fence of the device (destroyed only after the answer).
        let _ = tx.send(unsafe { fence_fd.get_fence_fd(&info) });
    });
    match rx.recv_timeout(Duration::from_secs(10)) {
        // SAFETY: an fd the export handed over.
        Ok(Ok(fd)) if fd >= 0 => drop(unsafe { OwnedFd::from_raw_fd(fd) }),
        Ok(Ok(_)) => {}
        Ok(Err(e)) => assert!(e.as_raw() < 0, "{e:?}"),
        Err(_) => panic!("exporting a reset fence did not return"),
    }
    // SAFETY: the fence is no longer in use.
    unsafe { d.device.destroy_fence(f, None) };
}

#[test]
fn sync_fd_hazards_through_the_host_driver() {
    let loader = require(paths::loader_under_test());
    let (env, _root) = wsi_support::host_env_for_interop();
    in_child("sync_fd_hazards_through_the_host_driver", &env, || {
        sync_fd_hazards(&Dev::new(&loader));
    });
}

#[test]
fn sync_fd_hazards_through_the_adapter() {
    let manifest = require(paths::lavapipe_manifest());
    let root = tempfile::tempdir().unwrap();
    let env = vkgen_tests::env::Env::new()
        .set("VKGEN_HAL_ROOT", root.path())
        .set("VK_DRIVER_FILES", &manifest);
    in_child("sync_fd_hazards_through_the_adapter", &env, || {
        sync_fd_hazards(&Dev::new(&paths::our_loader()));
    });
}
