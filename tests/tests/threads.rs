//! Trampolines under concurrency: eight threads call exported trampolines
//! (`vkGetDeviceQueue`, `vkCreateFence`/`vkGetFenceStatus`/`vkDestroyFence`,
//! `vkGetPhysicalDeviceProperties`) on a long-lived lavapipe device while two more threads
//! create and destroy devices (and use them through the same trampolines) the whole time.
//! Every queue must carry its device's loader data in word 0, every call must succeed.

mod common;

use std::ffi::{c_void, CStr, CString};
use std::sync::atomic::{AtomicBool, Ordering};

use ash::vk;
use common::*;
use vkgen_tests::env::in_child;
use vkgen_tests::{paths, require};

/// The exported trampolines the threads call, from `dlsym` on our loader.
#[derive(Clone, Copy)]
struct Trampolines {
    get_device_queue: vk::PFN_vkGetDeviceQueue,
    create_fence: vk::PFN_vkCreateFence,
    get_fence_status: vk::PFN_vkGetFenceStatus,
    destroy_fence: vk::PFN_vkDestroyFence,
    get_physical_device_properties: vk::PFN_vkGetPhysicalDeviceProperties,
    create_device: vk::PFN_vkCreateDevice,
    destroy_device: vk::PFN_vkDestroyDevice,
}

impl Trampolines {
    fn load(loader: &std::path::Path) -> Self {
        let c = CString::new(loader.to_str().unwrap()).unwrap();
        // SAFETY: our loader is already loaded (the entry holds it); RTLD_NOLOAD runs nothing.
        let handle = unsafe { libc::dlopen(c.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD) };
        assert!(!handle.is_null());
        /// The exported symbol `name` as the function type `F`.
        ///
        /// # Safety
        /// `F` must be the type of the command named `name`.
        unsafe fn sym<F: Copy>(handle: *mut c_void, name: &CStr) -> F {
            assert_eq!(std::mem::size_of::<F>(), std::mem::size_of::<*mut c_void>());
            // SAFETY: a live handle and a C string.
            let p = unsafe { libc::dlsym(handle, name.as_ptr()) };
            assert!(!p.is_null(), "{name:?}");
            // SAFETY: same size (checked); the caller vouches for the type.
            unsafe { std::mem::transmute_copy::<*mut c_void, F>(&p) }
        }
        // SAFETY: each exported symbol has the type of the command it is named after.
        unsafe {
            Self {
                get_device_queue: sym(handle, c"vkGetDeviceQueue"),
                create_fence: sym(handle, c"vkCreateFence"),
                get_fence_status: sym(handle, c"vkGetFenceStatus"),
                destroy_fence: sym(handle, c"vkDestroyFence"),
                get_physical_device_properties: sym(handle, c"vkGetPhysicalDeviceProperties"),
                create_device: sym(handle, c"vkCreateDevice"),
                destroy_device: sym(handle, c"vkDestroyDevice"),
            }
        }
    }

    /// One round of device-level work through the trampolines; returns the queue.
    fn use_device(&self, device: vk::Device) -> vk::Queue {
        let mut queue = vk::Queue::null();
        // SAFETY: family 0, index 0 exists on every device the test creates.
        unsafe { (self.get_device_queue)(device, 0, 0, &mut queue) };
        assert_ne!(queue, vk::Queue::null());
        assert_eq!(
            word0(vk::Handle::as_raw(queue)),
            word0(vk::Handle::as_raw(device))
        );
        let info = vk::FenceCreateInfo::default();
        let mut fence = vk::Fence::null();
        // SAFETY: a live device and a valid create info.
        let r = unsafe { (self.create_fence)(device, &info, std::ptr::null(), &mut fence) };
        assert_eq!(r, vk::Result::SUCCESS);
        // SAFETY: the fence was just created on `device`.
        let status = unsafe { (self.get_fence_status)(device, fence) };
        assert_eq!(status, vk::Result::NOT_READY);
        // SAFETY: a fence of `device` this thread created and nothing else uses.
        unsafe { (self.destroy_fence)(device, fence, std::ptr::null()) };
        queue
    }

    fn create_device(&self, pd: vk::PhysicalDevice) -> vk::Device {
        let priorities = [1.0f32];
        let queues = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(0)
            .queue_priorities(&priorities)];
        let info = vk::DeviceCreateInfo::default().queue_create_infos(&queues);
        let mut device = vk::Device::null();
        // SAFETY: a valid create info for this physical device.
        let r = unsafe { (self.create_device)(pd, &info, std::ptr::null(), &mut device) };
        assert_eq!(r, vk::Result::SUCCESS);
        device
    }
}

fn word0(raw: u64) -> usize {
    // SAFETY: dispatchable handles point at objects whose first word is readable.
    unsafe { *(raw as usize as *const usize) }
}

#[test]
fn trampolines_while_devices_come_and_go() {
    const CALLERS: usize = 8;
    const ROUNDS: usize = 1_000;
    const CHURNERS: usize = 2;
    const DEVICES_PER_CHURNER: usize = 15;
    let root = tempfile::tempdir().unwrap();
    let env = isolated_env(&root, &[require(paths::lavapipe_manifest())]);
    in_child("trampolines_while_devices_come_and_go", &env, || {
        let loader = require(paths::loader_under_test());
        let entry = require(vkgen_tests::compute::load_entry(&loader));
        let t = Trampolines::load(&loader);
        let instance = try_instance(&entry, &[]).expect("vkCreateInstance");
        // SAFETY: a live instance.
        let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
        let shared = t.create_device(pd);
        let churning = AtomicBool::new(true);
        std::thread::scope(|s| {
            let churners: Vec<_> = (0..CHURNERS)
                .map(|_| {
                    s.spawn(|| {
                        for _ in 0..DEVICES_PER_CHURNER {
                            let device = t.create_device(pd);
                            t.use_device(device);
                            // SAFETY: the device is idle and its fence is gone.
                            unsafe { (t.destroy_device)(device, std::ptr::null()) };
                        }
                    })
                })
                .collect();
            let callers: Vec<_> = (0..CALLERS)
                .map(|_| {
                    s.spawn(|| {
                        let mut rounds = 0;
                        // At least ROUNDS, and on until the churners are done.
                        while rounds < ROUNDS || churning.load(Ordering::Relaxed) {
                            t.use_device(shared);
                            let mut p = vk::PhysicalDeviceProperties::default();
                            // SAFETY: a physical device of the live instance.
                            unsafe { (t.get_physical_device_properties)(pd, &mut p) };
                            assert!(p
                                .device_name_as_c_str()
                                .unwrap()
                                .to_bytes()
                                .starts_with(b"llvmpipe"));
                            rounds += 1;
                        }
                        rounds
                    })
                })
                .collect();
            for c in churners {
                c.join().expect("a device churner failed");
            }
            churning.store(false, Ordering::Relaxed);
            let total: usize = callers
                .into_iter()
                .map(|c| c.join().expect("a trampoline caller failed"))
                .sum();
            println!(
                "{total} trampoline rounds on {CALLERS} threads while {} devices came and went",
                CHURNERS * DEVICES_PER_CHURNER
            );
        });
        // SAFETY: children before parents; everything is idle.
        unsafe {
            (t.destroy_device)(shared, std::ptr::null());
            instance.destroy_instance(None);
        }
    });
}
