//! The null driver in-process, through the generated `vkGetInstanceProcAddr::<NullDriver>`:
//! proc-address rules, allocation callbacks and out-of-memory paths, and the native-buffer fence
//! fd hand-over (10 000 cycles with the fd count checked, error paths included).
//!
//! Tests that count fds or allocations share one mutex: libtest runs tests on parallel threads.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_int, c_void, CStr};
use std::ptr;
use std::sync::atomic::{AtomicIsize, AtomicUsize, Ordering};
use std::sync::Mutex;
use std::time::{Duration, Instant};

use ash::vk;
use vkgen_driver::sync_fd::FenceSignaller;
use vkgen_generated::driver::{get_device_proc_addr, get_instance_proc_addr};
use vulkan_null::NullDriver;

// The driver runtime's test helper (one copy for both crates).
#[path = "../../../driver/tests/support/glsl.rs"]
mod glsl;

static SERIAL: Mutex<()> = Mutex::new(());

fn serial() -> std::sync::MutexGuard<'static, ()> {
    SERIAL.lock().unwrap_or_else(|e| e.into_inner())
}

fn entry() -> ash::Entry {
    // SAFETY: the generated GIPA of the null driver is a valid static entry point.
    unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: get_instance_proc_addr::<NullDriver>,
        })
    }
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

fn gipa(instance: vk::Instance, name: &CStr) -> bool {
    // SAFETY: a lookup with a valid name and a null or live instance.
    unsafe { get_instance_proc_addr::<NullDriver>(instance, name.as_ptr()) }.is_some()
}

fn gdpa(device: vk::Device, name: &CStr) -> bool {
    // SAFETY: a lookup with a valid name and a live device.
    unsafe { get_device_proc_addr::<NullDriver>(device, name.as_ptr()) }.is_some()
}

struct Objects {
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
}

impl Objects {
    fn new(
        entry: &ash::Entry,
        allocator: Option<&vk::AllocationCallbacks<'_>>,
    ) -> Result<Self, vk::Result> {
        // SAFETY: plain Vulkan use of the null driver.
        unsafe {
            let instance = entry.create_instance(&vk::InstanceCreateInfo::default(), allocator)?;
            let pd = instance.enumerate_physical_devices()?[0];
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default().queue_priorities(&prio)];
            let names = [c"VK_ANDROID_native_buffer".as_ptr()];
            let ci = vk::DeviceCreateInfo::default()
                .queue_create_infos(&qci)
                .enabled_extension_names(&names);
            let device = match instance.create_device(pd, &ci, allocator) {
                Ok(d) => d,
                Err(e) => {
                    instance.destroy_instance(allocator);
                    return Err(e);
                }
            };
            let queue = device.get_device_queue(0, 0);
            Ok(Self {
                instance,
                device,
                queue,
            })
        }
    }

    fn destroy(self, allocator: Option<&vk::AllocationCallbacks<'_>>) {
        // SAFETY: everything created from them is gone.
        unsafe {
            self.device.destroy_device(allocator);
            self.instance.destroy_instance(allocator);
        }
    }
}

#[test]
fn proc_addr_rules() {
    let null = vk::Instance::null();
    // Global commands with a null instance; nothing else.
    for name in [
        c"vkCreateInstance",
        c"vkEnumerateInstanceVersion",
        c"vkEnumerateInstanceExtensionProperties",
        c"vkEnumerateInstanceLayerProperties",
        c"vkGetInstanceProcAddr",
    ] {
        assert!(gipa(null, name), "GIPA(NULL, {name:?})");
    }
    for name in [
        c"vkDestroyInstance",
        c"vkEnumeratePhysicalDevices",
        c"vkCreateDevice",
        c"vkGetDeviceProcAddr",
        c"vkQueueSubmit",
        c"vkAcquireImageANDROID",
        c"vkNotACommand",
    ] {
        assert!(!gipa(null, name), "GIPA(NULL, {name:?}) must be NULL");
    }
    let entry = entry();
    let o = Objects::new(&entry, None).unwrap();
    let inst = o.instance.handle();
    for name in [
        c"vkDestroyInstance",
        c"vkCreateDevice",
        c"vkGetDeviceProcAddr",
        c"vkGetPhysicalDeviceProperties2",
        c"vkGetPhysicalDeviceProperties2KHR",
        c"vkQueueSubmit",
        c"vkCmdDraw",
        c"vkAcquireImageANDROID",
        c"vkQueueSignalReleaseImageANDROID",
        c"vkGetSwapchainGrallocUsage4ANDROID",
    ] {
        assert!(gipa(inst, name), "GIPA(instance, {name:?})");
    }
    // Extensions the driver does not support are not exposed.
    for name in [
        c"vkCreateSwapchainKHR",
        c"vkCreateAndroidSurfaceKHR",
        c"vkCmdDrawMeshTasksEXT",
    ] {
        assert!(!gipa(inst, name), "GIPA(instance, {name:?}) must be NULL");
    }
    let dev = o.device.handle();
    for name in [
        c"vkQueueSubmit",
        c"vkCreateImage",
        c"vkAcquireImageANDROID",
        c"vkGetDeviceProcAddr",
    ] {
        assert!(gdpa(dev, name), "GDPA(device, {name:?})");
    }
    for name in [
        c"vkCreateInstance",
        c"vkDestroyInstance",
        c"vkGetPhysicalDeviceProperties",
        c"vkEnumeratePhysicalDevices",
        c"vkCreateDevice",
        c"vkGetInstanceProcAddr",
        c"vkCreateSwapchainKHR",
    ] {
        assert!(!gdpa(dev, name), "GDPA(device, {name:?}) must be NULL");
    }
    // SAFETY: null device / name are handled.
    unsafe {
        assert!(
            get_device_proc_addr::<NullDriver>(vk::Device::null(), c"vkQueueSubmit".as_ptr())
                .is_none()
        );
        assert!(get_instance_proc_addr::<NullDriver>(inst, ptr::null()).is_none());
    }
    o.destroy(None);
}

#[test]
fn enumeration_two_call_idiom() {
    let entry = entry();
    let f = entry.fp_v1_0().enumerate_instance_extension_properties;
    let mut count = 0;
    // SAFETY: two-call idiom with valid pointers.
    unsafe {
        assert_eq!(
            f(ptr::null(), &mut count, ptr::null_mut()),
            vk::Result::SUCCESS
        );
        assert_eq!(count, 1);
        let mut props = [vk::ExtensionProperties::default(); 2];
        count = 0;
        assert_eq!(
            f(ptr::null(), &mut count, props.as_mut_ptr()),
            vk::Result::INCOMPLETE
        );
        assert_eq!(count, 0);
        count = 2;
        assert_eq!(
            f(ptr::null(), &mut count, props.as_mut_ptr()),
            vk::Result::SUCCESS
        );
        assert_eq!(count, 1);
        assert_eq!(
            f(c"VK_LAYER_foo".as_ptr(), &mut count, props.as_mut_ptr()),
            vk::Result::ERROR_LAYER_NOT_PRESENT
        );
    }
    let o = Objects::new(&entry, None).unwrap();
    // SAFETY: `o.instance` is live (dropped after this block) and every count and array passed
    // below is a local that outlives its call.
    unsafe {
        let pd = o.instance.enumerate_physical_devices().unwrap()[0];
        let f = o.instance.fp_v1_0().enumerate_physical_devices;
        let mut n = 0;
        let mut pds = [vk::PhysicalDevice::null(); 1];
        assert_eq!(
            f(o.instance.handle(), &mut n, pds.as_mut_ptr()),
            vk::Result::INCOMPLETE
        );
        let groups = o.instance.enumerate_physical_device_groups_len().unwrap();
        assert_eq!(groups, 1);
        let mut g = [vk::PhysicalDeviceGroupProperties::default()];
        o.instance.enumerate_physical_device_groups(&mut g).unwrap();
        assert_eq!(
            (g[0].physical_device_count, g[0].physical_devices[0]),
            (1, pd)
        );
        let families = o.instance.get_physical_device_queue_family_properties(pd);
        assert_eq!(families.len(), 1);
        assert!(families[0].queue_flags.contains(
            vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE | vk::QueueFlags::TRANSFER
        ));
        assert_eq!(families[0].queue_count, 1);
    }
    o.destroy(None);
}

// ---------------------------------------------------------------------------------------------
// Allocation callbacks

/// Live allocations made through [`CALLBACKS`], and how many more may succeed (-1: unlimited).
static LIVE: AtomicUsize = AtomicUsize::new(0);
static TOTAL: AtomicUsize = AtomicUsize::new(0);
static BUDGET: AtomicIsize = AtomicIsize::new(-1);

unsafe extern "system" fn test_alloc(
    _: *mut c_void,
    size: usize,
    align: usize,
    _: vk::SystemAllocationScope,
) -> *mut c_void {
    let ok = BUDGET
        .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |b| match b {
            -1 => Some(-1),
            0 => None,
            b => Some(b - 1),
        })
        .is_ok();
    if !ok {
        return ptr::null_mut();
    }
    LIVE.fetch_add(1, Ordering::SeqCst);
    TOTAL.fetch_add(1, Ordering::SeqCst);
    let align = align.max(16);
    // SAFETY: a valid alignment (power of two) and a size rounded up to it.
    unsafe { libc::aligned_alloc(align, size.next_multiple_of(align)) }
}

unsafe extern "system" fn test_free(_: *mut c_void, p: *mut c_void) {
    if !p.is_null() {
        LIVE.fetch_sub(1, Ordering::SeqCst);
        // SAFETY: from `test_alloc`.
        unsafe { libc::free(p) };
    }
}

unsafe extern "system" fn test_realloc(
    _: *mut c_void,
    _: *mut c_void,
    _: usize,
    _: usize,
    _: vk::SystemAllocationScope,
) -> *mut c_void {
    ptr::null_mut()
}

fn callbacks() -> vk::AllocationCallbacks<'static> {
    vk::AllocationCallbacks {
        pfn_allocation: Some(test_alloc),
        pfn_reallocation: Some(test_realloc),
        pfn_free: Some(test_free),
        ..Default::default()
    }
}

/// An empty compute shader: the kit's shader modules take only valid SPIR-V with its entry
/// point. Compiled once (the allocation test creates it again for every failing allocation).
fn empty_compute() -> &'static [u32] {
    static CODE: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
    CODE.get_or_init(|| {
        glsl::compile(
            "comp",
            "vulkan1.0",
            "#version 450\nlayout(local_size_x = 1) in;\nvoid main() {}\n",
        )
    })
}

/// Creates and destroys a set of objects with the callbacks, failing allocation number `fail_at`
/// (if any); returns the first error.
fn object_round(entry: &ash::Entry, cb: &vk::AllocationCallbacks<'_>) -> Result<(), vk::Result> {
    let o = Objects::new(entry, Some(cb))?;
    let d = &o.device;
    let mut result = Ok(());
    // SAFETY: plain Vulkan use; every object made is destroyed below, also on failure.
    unsafe {
        let fence = d.create_fence(&vk::FenceCreateInfo::default(), Some(cb));
        let pool = d.create_command_pool(&vk::CommandPoolCreateInfo::default(), Some(cb));
        let cbs = pool.as_ref().ok().map(|&p| {
            d.allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(p)
                    .command_buffer_count(4),
            )
        });
        let sampler = d.create_sampler(&vk::SamplerCreateInfo::default(), Some(cb));
        let layout = d.create_pipeline_layout(&vk::PipelineLayoutCreateInfo::default(), Some(cb));
        let pipelines = layout.as_ref().ok().map(|&l| {
            let module = d.create_shader_module(
                &vk::ShaderModuleCreateInfo::default().code(empty_compute()),
                Some(cb),
            );
            let r = module.as_ref().ok().map(|&m| {
                let stage = vk::PipelineShaderStageCreateInfo::default()
                    .stage(vk::ShaderStageFlags::COMPUTE)
                    .module(m)
                    .name(c"main");
                let infos = [vk::ComputePipelineCreateInfo::default()
                    .stage(stage)
                    .layout(l); 3];
                d.create_compute_pipelines(vk::PipelineCache::null(), &infos, Some(cb))
            });
            if let Ok(m) = module {
                d.destroy_shader_module(m, Some(cb));
            }
            r.unwrap_or(Err((vec![], vk::Result::ERROR_OUT_OF_HOST_MEMORY)))
        });
        match &pipelines {
            Some(Ok(ps)) => ps.iter().for_each(|&p| d.destroy_pipeline(p, Some(cb))),
            Some(Err((ps, e))) => {
                // The spec's rule for pipeline arrays: the failed elements are null, the
                // others are made (the kit's pipelines); those are destroyed like any other.
                assert!(
                    ps.is_empty() || ps.contains(&vk::Pipeline::null()),
                    "a failed creation nulls the failed element"
                );
                ps.iter()
                    .filter(|&&p| p != vk::Pipeline::null())
                    .for_each(|&p| d.destroy_pipeline(p, Some(cb)));
                result = result.and(Err(*e));
            }
            None => {}
        }
        match cbs {
            Some(Ok(_)) | None => {}
            Some(Err(e)) => result = result.and(Err(e)),
        }
        for r in [
            fence.map(|_| ()),
            pool.map(|_| ()),
            sampler.map(|_| ()),
            layout.map(|_| ()),
        ] {
            result = result.and(r);
        }
        if let Ok(f) = fence {
            d.destroy_fence(f, Some(cb));
        }
        if let Ok(p) = pool {
            d.destroy_command_pool(p, Some(cb));
        }
        if let Ok(s) = sampler {
            d.destroy_sampler(s, Some(cb));
        }
        if let Ok(l) = layout {
            d.destroy_pipeline_layout(l, Some(cb));
        }
    }
    o.destroy(Some(cb));
    result
}

#[test]
fn allocation_callbacks_and_out_of_memory() {
    let _g = serial();
    let entry = entry();
    let cb = callbacks();
    LIVE.store(0, Ordering::SeqCst);
    TOTAL.store(0, Ordering::SeqCst);
    BUDGET.store(-1, Ordering::SeqCst);
    object_round(&entry, &cb).unwrap();
    let needed = TOTAL.load(Ordering::SeqCst);
    assert!(
        needed >= 10,
        "objects go through the callbacks ({needed} allocations)"
    );
    assert_eq!(LIVE.load(Ordering::SeqCst), 0, "everything freed");
    // Fail each allocation in turn: always OUT_OF_HOST_MEMORY, never a leak.
    for fail_at in 0..needed {
        BUDGET.store(fail_at as isize, Ordering::SeqCst);
        let r = object_round(&entry, &cb);
        BUDGET.store(-1, Ordering::SeqCst);
        assert_eq!(
            r,
            Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY),
            "failing allocation #{fail_at}"
        );
        assert_eq!(
            LIVE.load(Ordering::SeqCst),
            0,
            "leak when allocation #{fail_at} failed"
        );
    }
}

// ---------------------------------------------------------------------------------------------
// Native buffers

struct Anb {
    acquire: vk::PFN_vkAcquireImageANDROID,
    release: vk::PFN_vkQueueSignalReleaseImageANDROID,
}

fn anb(o: &Objects) -> Anb {
    let load = |name: &CStr| {
        // SAFETY: a device-level lookup on a live device.
        unsafe { (o.instance.fp_v1_0().get_device_proc_addr)(o.device.handle(), name.as_ptr()) }
            .expect("ANB command exposed")
    };
    // SAFETY: the looked-up functions have these types.
    unsafe {
        Anb {
            acquire: std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkAcquireImageANDROID,
            >(load(c"vkAcquireImageANDROID")),
            release: std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkQueueSignalReleaseImageANDROID,
            >(load(c"vkQueueSignalReleaseImageANDROID")),
        }
    }
}

fn fd_is_open(fd: c_int) -> bool {
    // SAFETY: F_GETFD on any number is defined.
    unsafe { libc::fcntl(fd, libc::F_GETFD) >= 0 }
}

#[test]
fn acquire_signals_exactly_when_the_fd_fires() {
    let _g = serial();
    let entry = entry();
    let o = Objects::new(&entry, None).unwrap();
    let anb = anb(&o);
    let d = &o.device;
    // SAFETY: plain Vulkan use of live objects.
    unsafe {
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let sem = d
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let s = FenceSignaller::new().unwrap();
        let fd = s.fence().unwrap().into_raw();
        assert_eq!(
            (anb.acquire)(d.handle(), vk::Image::null(), fd, sem, fence),
            vk::Result::SUCCESS
        );
        assert!(!fd_is_open(fd), "the fd handed over is closed at once");
        assert_eq!(d.get_fence_status(fence), Ok(false));
        assert_eq!(
            d.wait_for_fences(&[fence], true, 5_000_000).unwrap_err(),
            vk::Result::TIMEOUT
        );
        // A waiting thread wakes up when the fd fires.
        let start = Instant::now();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            s.signal().unwrap();
        });
        d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        assert!(start.elapsed() >= Duration::from_millis(45));
        assert_eq!(d.get_fence_status(fence), Ok(true));
        t.join().unwrap();
        // The semaphore's wait (here in the release) consumed the fired fd.
        let sems = [sem];
        let mut out = 123;
        assert_eq!(
            (anb.release)(o.queue, 1, sems.as_ptr(), vk::Image::null(), &mut out),
            vk::Result::SUCCESS
        );
        assert_eq!(out, -1);

        // A semaphore wait holds the batch (not the submitting thread) until the fd fires.
        d.reset_fences(&[fence]).unwrap();
        let s = FenceSignaller::new().unwrap();
        let fd = s.fence().unwrap().into_raw();
        assert_eq!(
            (anb.acquire)(d.handle(), vk::Image::null(), fd, sem, vk::Fence::null()),
            vk::Result::SUCCESS
        );
        let start = Instant::now();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            s.signal().unwrap();
        });
        let waits = [vk::PipelineStageFlags::ALL_COMMANDS];
        d.queue_submit(
            o.queue,
            &[vk::SubmitInfo::default()
                .wait_semaphores(&sems)
                .wait_dst_stage_mask(&waits)],
            fence,
        )
        .unwrap();
        assert_eq!(d.get_fence_status(fence), Ok(false));
        d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        assert!(start.elapsed() >= Duration::from_millis(45));
        t.join().unwrap();

        // -1: signalled at once.
        d.reset_fences(&[fence]).unwrap();
        assert_eq!(
            (anb.acquire)(d.handle(), vk::Image::null(), -1, sem, fence),
            vk::Result::SUCCESS
        );
        assert_eq!(d.get_fence_status(fence), Ok(true));
        d.destroy_semaphore(sem, None);
        d.destroy_fence(fence, None);
    }
    o.destroy(None);
}

#[test]
fn native_buffer_cycles_do_not_leak_fds() {
    let _g = serial();
    let entry = entry();
    let o = Objects::new(&entry, None).unwrap();
    let anb = anb(&o);
    let d = &o.device;
    let before = open_fds();
    // SAFETY: plain Vulkan use of live objects.
    unsafe {
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let sem = d
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let sems = [sem];
        for i in 0..10_000 {
            let s = FenceSignaller::new().unwrap();
            if i % 3 != 0 {
                s.signal().unwrap();
            }
            let fd = s.fence().unwrap().into_raw();
            let (use_sem, use_fence) = match i % 4 {
                0 => (sem, fence),
                1 => (sem, vk::Fence::null()),
                2 => (vk::Semaphore::null(), fence),
                _ => (vk::Semaphore::null(), vk::Fence::null()),
            };
            assert_eq!(
                (anb.acquire)(d.handle(), vk::Image::null(), fd, use_sem, use_fence),
                vk::Result::SUCCESS
            );
            if i % 3 == 0 {
                s.signal().unwrap();
            }
            if use_fence != vk::Fence::null() {
                d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
                d.reset_fences(&[fence]).unwrap();
            }
            let mut out = 0;
            let n = u32::from(use_sem != vk::Semaphore::null());
            assert_eq!(
                (anb.release)(o.queue, n, sems.as_ptr(), vk::Image::null(), &mut out),
                vk::Result::SUCCESS
            );
            assert_eq!(out, -1);

            // Error paths: a closed fd number is refused without closing anything; a fence fd
            // in an error state is taken and closed, the fence then reports the failure.
            let (r, w) = rustix::pipe::pipe().unwrap();
            drop(r);
            let broken = std::os::fd::IntoRawFd::into_raw_fd(w);
            assert_eq!(
                (anb.acquire)(d.handle(), vk::Image::null(), 1 << 20, sem, fence),
                vk::Result::ERROR_INVALID_EXTERNAL_HANDLE
            );
            assert_eq!(
                (anb.acquire)(
                    d.handle(),
                    vk::Image::null(),
                    broken,
                    vk::Semaphore::null(),
                    fence
                ),
                vk::Result::SUCCESS
            );
            assert!(!fd_is_open(broken), "the fd handed over is closed at once");
            assert_eq!(
                d.get_fence_status(fence).unwrap_err(),
                vk::Result::ERROR_DEVICE_LOST
            );
            d.reset_fences(&[fence]).unwrap();
        }
        d.destroy_semaphore(sem, None);
        d.destroy_fence(fence, None);
    }
    assert_eq!(open_fds(), before, "fds leaked");
    o.destroy(None);
}
