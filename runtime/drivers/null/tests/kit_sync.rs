//! The kit's sync component on the null driver (which opts in with `Kit::SYNC_OBJECTS`):
//! `VK_KHR_external_fence_fd` / `VK_KHR_external_semaphore_fd` with `SYNC_FD` — copy-transference
//! export (with its reset / wait side effect), temporary import (`-1` = signalled), ordering
//! through an imported fd (the queue core holds the batch until it fires), exact errors for other handle types, closed fds and timeline
//! semaphores (the fd then stays the caller's), the external property queries, and fd counts
//! level over 10 000 export/import cycles including the error paths. Also the native-buffer
//! image import the kit validates before the driver's `import_native_buffer`.
//!
//! Tests that count fds share one mutex: libtest runs tests on parallel threads.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::os::fd::{AsRawFd, FromRawFd, IntoRawFd, OwnedFd};
use std::sync::Mutex;

use ash::vk;
use vkgen_generated::driver::get_instance_proc_addr;
use vulkan_null::NullDriver;

static SERIAL: Mutex<()> = Mutex::new(());

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

struct Objects {
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    fence_fd: ash::khr::external_fence_fd::Device,
    semaphore_fd: ash::khr::external_semaphore_fd::Device,
}

impl Objects {
    fn new() -> Self {
        // SAFETY: the generated GIPA of the null driver is a valid static entry point; plain
        // Vulkan use of the null driver follows.
        unsafe {
            let entry = ash::Entry::from_static_fn(ash::StaticFn {
                get_instance_proc_addr: get_instance_proc_addr::<NullDriver>,
            });
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_2);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
            let names = [
                ash::khr::external_fence_fd::NAME.as_ptr(),
                ash::khr::external_semaphore_fd::NAME.as_ptr(),
            ];
            let ci = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&names);
            let device = instance.create_device(pd, &ci, None).unwrap();
            let queue = device.get_device_queue(0, 0);
            Self {
                fence_fd: ash::khr::external_fence_fd::Device::new(&instance, &device),
                semaphore_fd: ash::khr::external_semaphore_fd::Device::new(&instance, &device),
                instance,
                device,
                queue,
            }
        }
    }

    fn fence(&self, signalled: bool) -> vk::Fence {
        let flags = if signalled {
            vk::FenceCreateFlags::SIGNALED
        } else {
            vk::FenceCreateFlags::empty()
        };
        // SAFETY: a live device.
        unsafe {
            self.device
                .create_fence(&vk::FenceCreateInfo::default().flags(flags), None)
        }
        .unwrap()
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

    fn status(&self, fence: vk::Fence) -> vk::Result {
        // SAFETY: a live fence.
        let f = self.device.fp_v1_0().get_fence_status;
        // SAFETY: `get_fence_status` of the test's live device, called with that device and a fence
        // the test created on it.
        unsafe { f(self.device.handle(), fence) }
    }

    fn export_fence(
        &self,
        fence: vk::Fence,
        ty: vk::ExternalFenceHandleTypeFlags,
    ) -> Result<i32, vk::Result> {
        let info = vk::FenceGetFdInfoKHR::default()
            .fence(fence)
            .handle_type(ty);
        // SAFETY: a valid info on a live device.
        unsafe { self.fence_fd.get_fence_fd(&info) }
    }

    fn import_fence(
        &self,
        fence: vk::Fence,
        ty: vk::ExternalFenceHandleTypeFlags,
        fd: i32,
    ) -> Result<(), vk::Result> {
        let info = vk::ImportFenceFdInfoKHR::default()
            .fence(fence)
            .flags(vk::FenceImportFlags::TEMPORARY)
            .handle_type(ty)
            .fd(fd);
        // SAFETY: a valid info on a live device.
        unsafe { self.fence_fd.import_fence_fd(&info) }
    }

    fn export_semaphore(
        &self,
        s: vk::Semaphore,
        ty: vk::ExternalSemaphoreHandleTypeFlags,
    ) -> Result<i32, vk::Result> {
        let info = vk::SemaphoreGetFdInfoKHR::default()
            .semaphore(s)
            .handle_type(ty);
        // SAFETY: a valid info on a live device.
        unsafe { self.semaphore_fd.get_semaphore_fd(&info) }
    }

    fn import_semaphore(
        &self,
        s: vk::Semaphore,
        ty: vk::ExternalSemaphoreHandleTypeFlags,
        fd: i32,
    ) -> Result<(), vk::Result> {
        let info = vk::ImportSemaphoreFdInfoKHR::default()
            .semaphore(s)
            .flags(vk::SemaphoreImportFlags::TEMPORARY)
            .handle_type(ty)
            .fd(fd);
        // SAFETY: a valid info on a live device.
        unsafe { self.semaphore_fd.import_semaphore_fd(&info) }
    }

    /// An empty submission waiting on `wait` (if any) and signalling `fence`.
    fn submit(&self, wait: Option<vk::Semaphore>, fence: vk::Fence) {
        let waits: Vec<vk::Semaphore> = wait.into_iter().collect();
        let stages = vec![vk::PipelineStageFlags::ALL_COMMANDS; waits.len()];
        let submit = vk::SubmitInfo::default()
            .wait_semaphores(&waits)
            .wait_dst_stage_mask(&stages);
        // SAFETY: a valid submission on a live queue.
        unsafe { self.device.queue_submit(self.queue, &[submit], fence) }.unwrap();
    }
}

impl Drop for Objects {
    fn drop(&mut self) {
        // SAFETY: the test's objects, children first.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

/// A pollable fd standing in for a sync file: readable once written.
fn eventfd() -> OwnedFd {
    // SAFETY: eventfd takes no pointers; a non-negative result is a new fd we own.
    let fd = unsafe { libc::eventfd(0, libc::EFD_CLOEXEC | libc::EFD_NONBLOCK) };
    assert!(fd >= 0);
    // SAFETY: `fd` was checked non-negative just above: a new eventfd that nothing else owns.
    unsafe { OwnedFd::from_raw_fd(fd) }
}

fn fire(fd: &OwnedFd) {
    let one = 1u64.to_ne_bytes();
    // SAFETY: writing 8 bytes from a live buffer to an eventfd.
    let written = unsafe { libc::write(fd.as_raw_fd(), one.as_ptr().cast(), 8) };
    assert_eq!(written, 8);
}

fn readable(fd: i32) -> bool {
    let mut p = libc::pollfd {
        fd,
        events: libc::POLLIN,
        revents: 0,
    };
    // SAFETY: one valid pollfd.
    unsafe { libc::poll(&mut p, 1, 0) == 1 }
}

fn is_open(fd: i32) -> bool {
    // SAFETY: F_GETFD on any integer only reports whether it is open.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

const FENCE_SYNC: vk::ExternalFenceHandleTypeFlags = vk::ExternalFenceHandleTypeFlags::SYNC_FD;
const SEM_SYNC: vk::ExternalSemaphoreHandleTypeFlags =
    vk::ExternalSemaphoreHandleTypeFlags::SYNC_FD;

#[test]
fn fence_export_after_submit_is_signalled_and_resets_the_fence() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let fence = o.fence(false);
    o.submit(None, fence);
    assert_eq!(o.status(fence), vk::Result::SUCCESS);
    // Signalled: -1 (the spec allows it), and the copy export resets the fence.
    assert_eq!(o.export_fence(fence, FENCE_SYNC), Ok(-1));
    assert_eq!(o.status(fence), vk::Result::NOT_READY);
    // Unsignalled: an fd that fires when the fence is signalled.
    let fd = o.export_fence(fence, FENCE_SYNC).unwrap();
    assert!(fd >= 0 && !readable(fd));
    o.submit(None, fence);
    assert!(readable(fd), "the exported fd fires with the fence");
    // SAFETY: the exported fd is ours.
    drop(unsafe { OwnedFd::from_raw_fd(fd) });
    // SAFETY: a live fence.
    unsafe { o.device.destroy_fence(fence, None) };
}

#[test]
fn imported_fence_fd_orders_the_wait() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let fence = o.fence(false);
    let sync = eventfd();
    let keep = sync.try_clone().unwrap();
    o.import_fence(fence, FENCE_SYNC, sync.into_raw_fd())
        .unwrap();
    assert_eq!(o.status(fence), vk::Result::NOT_READY);
    // SAFETY: a live fence; a zero timeout.
    let waited = unsafe { o.device.wait_for_fences(&[fence], true, 0) };
    assert_eq!(waited, Err(vk::Result::TIMEOUT));
    let firer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(20));
        fire(&keep);
    });
    // SAFETY: `fence` is a live fence of the test's device; the wait is bounded (5 s) so a bug
    // fails the test instead of hanging it.
    unsafe { o.device.wait_for_fences(&[fence], true, 5_000_000_000) }.unwrap();
    firer.join().unwrap();
    // -1 imports a signalled payload.
    // SAFETY: a live fence.
    unsafe { o.device.reset_fences(&[fence]) }.unwrap();
    o.import_fence(fence, FENCE_SYNC, -1).unwrap();
    assert_eq!(o.status(fence), vk::Result::SUCCESS);
    // SAFETY: a live fence.
    unsafe { o.device.destroy_fence(fence, None) };
}

#[test]
fn semaphore_fd_from_one_submit_orders_another() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let (a, b) = (o.semaphore(false), o.semaphore(false));
    // `a` gets an unsignalled payload; exporting it (a wait) hands the same payload on.
    let sync = eventfd();
    let keep = sync.try_clone().unwrap();
    o.import_semaphore(a, SEM_SYNC, sync.into_raw_fd()).unwrap();
    let fd = o.export_semaphore(a, SEM_SYNC).unwrap();
    assert!(fd >= 0 && !readable(fd));
    o.import_semaphore(b, SEM_SYNC, fd).unwrap();
    // A submission waiting on `b` completes only after the fd fires.
    let fence = o.fence(false);
    let start = std::time::Instant::now();
    let firer = std::thread::spawn(move || {
        std::thread::sleep(std::time::Duration::from_millis(50));
        fire(&keep);
    });
    // The queue holds the batch (the submission itself does not block) until the fd fires.
    o.submit(Some(b), fence);
    assert_eq!(o.status(fence), vk::Result::NOT_READY);
    // SAFETY: a live fence, waiting up to 5 s.
    unsafe { o.device.wait_for_fences(&[fence], true, 5_000_000_000) }.unwrap();
    assert!(start.elapsed() >= std::time::Duration::from_millis(45));
    firer.join().unwrap();
    // A semaphore with nothing pending exports -1.
    assert_eq!(o.export_semaphore(a, SEM_SYNC), Ok(-1));
    // SAFETY: the test's objects.
    unsafe {
        o.device.destroy_fence(fence, None);
        o.device.destroy_semaphore(a, None);
        o.device.destroy_semaphore(b, None);
    }
}

#[test]
fn wrong_handles_are_refused_and_the_fd_stays_the_callers() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let fence = o.fence(true);
    let (binary, timeline) = (o.semaphore(false), o.semaphore(true));
    let fd = eventfd();
    let raw = fd.as_raw_fd();
    let bad = vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
    let opaque_f = vk::ExternalFenceHandleTypeFlags::OPAQUE_FD;
    let opaque_s = vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD;
    assert_eq!(o.import_fence(fence, opaque_f, raw), Err(bad));
    assert_eq!(o.export_fence(fence, opaque_f), Err(bad));
    assert_eq!(o.import_semaphore(binary, opaque_s, raw), Err(bad));
    assert_eq!(o.import_semaphore(timeline, SEM_SYNC, raw), Err(bad));
    assert_eq!(o.export_semaphore(timeline, SEM_SYNC), Err(bad));
    assert!(is_open(raw), "a refused import must not take the fd");
    // A closed fd.
    drop(fd);
    assert_eq!(o.import_fence(fence, FENCE_SYNC, raw), Err(bad));
    assert_eq!(o.import_semaphore(binary, SEM_SYNC, raw), Err(bad));
    // SAFETY: the test's objects.
    unsafe {
        o.device.destroy_fence(fence, None);
        o.device.destroy_semaphore(binary, None);
        o.device.destroy_semaphore(timeline, None);
    }
}

/// Issue 36: only a sync file or an eventfd is a `SYNC_FD` payload, and only as a temporary
/// import; anything else is `VK_ERROR_INVALID_EXTERNAL_HANDLE` and the fd stays the caller's.
#[test]
fn non_sync_file_fds_and_permanent_imports_are_refused() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let fence = o.fence(false);
    let binary = o.semaphore(false);
    let bad = vk::Result::ERROR_INVALID_EXTERNAL_HANDLE;
    let file = std::fs::File::open("/proc/self/status").unwrap();
    let (pipe_r, _pipe_w) = rustix::pipe::pipe().unwrap();
    for fd in [file.as_raw_fd(), pipe_r.as_raw_fd()] {
        assert_eq!(o.import_fence(fence, FENCE_SYNC, fd), Err(bad));
        assert_eq!(o.import_semaphore(binary, SEM_SYNC, fd), Err(bad));
        assert!(is_open(fd), "a refused import must not take the fd");
    }
    // A permanent import (no TEMPORARY flag) of a good fd.
    let fd = eventfd();
    let raw = fd.as_raw_fd();
    let info = vk::ImportFenceFdInfoKHR::default()
        .fence(fence)
        .handle_type(FENCE_SYNC)
        .fd(raw);
    // SAFETY: a valid info on a live device.
    assert_eq!(unsafe { o.fence_fd.import_fence_fd(&info) }, Err(bad));
    let info = vk::ImportSemaphoreFdInfoKHR::default()
        .semaphore(binary)
        .handle_type(SEM_SYNC)
        .fd(raw);
    // SAFETY: a valid info on a live device.
    let permanent = unsafe { o.semaphore_fd.import_semaphore_fd(&info) };
    assert_eq!(permanent, Err(bad));
    assert!(is_open(raw));
    // The same fd as a temporary import is taken (the driver owns it from here).
    assert_eq!(o.import_fence(fence, FENCE_SYNC, fd.into_raw_fd()), Ok(()));
    // SAFETY: the test's objects.
    unsafe {
        o.device.destroy_fence(fence, None);
        o.device.destroy_semaphore(binary, None);
    }
}

#[test]
fn external_properties_name_sync_fd_only() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    // SAFETY: a live instance.
    let pd = unsafe { o.instance.enumerate_physical_devices() }.unwrap()[0];
    for (ty, want) in [
        (FENCE_SYNC, true),
        (vk::ExternalFenceHandleTypeFlags::OPAQUE_FD, false),
    ] {
        let mut props = vk::ExternalFenceProperties::default();
        let info = vk::PhysicalDeviceExternalFenceInfo::default().handle_type(ty);
        // SAFETY: valid structures.
        unsafe {
            o.instance
                .get_physical_device_external_fence_properties(pd, &info, &mut props)
        };
        assert_eq!(
            props.external_fence_features.contains(
                vk::ExternalFenceFeatureFlags::EXPORTABLE
                    | vk::ExternalFenceFeatureFlags::IMPORTABLE
            ),
            want,
            "{ty:?}"
        );
        assert_eq!(props.compatible_handle_types.contains(FENCE_SYNC), want);
    }
    for (timeline, want) in [(false, true), (true, false)] {
        let mut ty = vk::SemaphoreTypeCreateInfo::default().semaphore_type(if timeline {
            vk::SemaphoreType::TIMELINE
        } else {
            vk::SemaphoreType::BINARY
        });
        let info = vk::PhysicalDeviceExternalSemaphoreInfo::default()
            .handle_type(SEM_SYNC)
            .push_next(&mut ty);
        let mut props = vk::ExternalSemaphoreProperties::default();
        // SAFETY: valid structures.
        unsafe {
            o.instance
                .get_physical_device_external_semaphore_properties(pd, &info, &mut props)
        };
        assert_eq!(
            props
                .external_semaphore_features
                .contains(vk::ExternalSemaphoreFeatureFlags::EXPORTABLE),
            want,
            "timeline {timeline}"
        );
    }
}

#[test]
fn fd_counts_level_over_10k_export_import_cycles() {
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let fence = o.fence(false);
    let (a, b) = (o.semaphore(false), o.semaphore(false));
    let before = open_fds();
    for i in 0..10_000 {
        // Fence: unsignalled export (an eventfd), signal, import it back, wait, reset.
        let fd = o.export_fence(fence, FENCE_SYNC).unwrap();
        o.submit(None, fence);
        // SAFETY: a live fence.
        unsafe { o.device.reset_fences(&[fence]) }.unwrap();
        o.import_fence(fence, FENCE_SYNC, fd).unwrap();
        assert_eq!(o.status(fence), vk::Result::SUCCESS);
        // SAFETY: a live fence.
        unsafe { o.device.reset_fences(&[fence]) }.unwrap();
        // Semaphores: a fired payload passed from `a` to `b`, consumed by a submission.
        let sync = eventfd();
        fire(&sync);
        o.import_semaphore(a, SEM_SYNC, sync.into_raw_fd()).unwrap();
        let fd = o.export_semaphore(a, SEM_SYNC).unwrap();
        o.import_semaphore(b, SEM_SYNC, fd).unwrap();
        o.submit(Some(b), vk::Fence::null());
        // Error paths every tenth round.
        if i % 10 == 0 {
            let spare = eventfd();
            let bad = vk::ExternalFenceHandleTypeFlags::OPAQUE_FD;
            assert!(o.import_fence(fence, bad, spare.as_raw_fd()).is_err());
            assert!(o
                .export_semaphore(a, vk::ExternalSemaphoreHandleTypeFlags::OPAQUE_FD)
                .is_err());
        }
    }
    assert_eq!(open_fds(), before, "fds leaked over 10k cycles");
    // SAFETY: the test's objects.
    unsafe {
        o.device.destroy_fence(fence, None);
        o.device.destroy_semaphore(a, None);
        o.device.destroy_semaphore(b, None);
    }
}

/// `VkNativeBufferANDROID` import through the kit (`create_native_buffer_image` →
/// `NativeBuffers::import_native_buffer`) on the null driver: a real gralloc buffer imports, the
/// image keeps a dup of its fd until destroyed; a null or malformed handle, a buffer smaller
/// than the image and a mip-mapped image are `VK_ERROR_INVALID_EXTERNAL_HANDLE`.
#[test]
fn native_buffer_images_import_through_the_kit() {
    use vkgen_driver::gralloc::Allocator;
    use vkgen_generated::vk as gvk;
    let _s = SERIAL.lock().unwrap_or_else(|e| e.into_inner());
    let o = Objects::new();
    let buffer = Allocator::new().allocate(64, 32, 1, 0).unwrap();
    let create = |handle: *const std::ffi::c_void, w: u32, h: u32, mips: u32| {
        let anb = gvk::NativeBufferANDROID {
            handle,
            stride: 64,
            format: 1,
            ..Default::default()
        };
        let ci = vk::ImageCreateInfo {
            p_next: std::ptr::from_ref(&anb).cast(),
            image_type: vk::ImageType::TYPE_2D,
            format: vk::Format::R8G8B8A8_UNORM,
            extent: vk::Extent3D {
                width: w,
                height: h,
                depth: 1,
            },
            mip_levels: mips,
            array_layers: 1,
            samples: vk::SampleCountFlags::TYPE_1,
            usage: vk::ImageUsageFlags::COLOR_ATTACHMENT,
            ..Default::default()
        };
        // SAFETY: a valid create info whose chain lives for the call.
        unsafe { o.device.create_image(&ci, None) }
    };
    let before = open_fds();
    let image = create(buffer.native_handle().cast(), 64, 32, 1).unwrap();
    assert_eq!(
        open_fds(),
        before + 1,
        "the image holds a dup of the buffer's fd"
    );
    // SAFETY: a live image.
    unsafe { o.device.destroy_image(image, None) };
    assert_eq!(open_fds(), before);
    let bad = Err(vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    assert_eq!(create(std::ptr::null(), 64, 32, 1), bad);
    assert_eq!(create(buffer.native_handle().cast(), 128, 32, 1), bad);
    assert_eq!(create(buffer.native_handle().cast(), 64, 32, 2), bad);
    let junk = [0i32; 8];
    assert_eq!(create(junk.as_ptr().cast(), 64, 32, 1), bad);
    assert_eq!(open_fds(), before, "refused imports leak nothing");
}
