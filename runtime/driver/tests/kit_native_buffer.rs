//! Driver kit acceptance 4 (issue 9): the native-buffer component on a fixture driver that
//! offers only `vkGetSwapchainGrallocUsage2ANDROID` and writes no native-buffer code at all:
//! only `…Usage2` has a proc address (so a loader picks it), its answer follows the driver's
//! description, and the fd count is level over 10 000 acquire/release cycles that include the
//! error paths (closed and invalid fds, `-1`, a failing sync hook, a bad queue).

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_char, c_int, CStr};
use std::os::fd::IntoRawFd;
use std::sync::Mutex;

use ash::vk;
use ash::vk::Handle as _;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::{get_device_proc_addr, get_instance_proc_addr, Driver};
use vkgen_driver::generated::extensions::ExtensionId;
use vkgen_driver::kit::native_buffer::{GrallocQueries, GrallocUsage, NativeBuffers};
use vkgen_driver::kit::Kit;
use vkgen_driver::sync_fd::{FenceSignaller, NativeFence};

struct Anb;

/// Fences the fixture's "hardware" holds until release; `FAIL_NEXT` makes the hook fail.
static HELD: Mutex<Vec<NativeFence>> = Mutex::new(Vec::new());
static FAIL_NEXT: Mutex<bool> = Mutex::new(false);

const RENDER: u64 = 0x200;
const TEXTURE: u64 = 0x100;
const FRONT: u64 = 0x1_0000_0000;

impl DriverModule for Anb {
    const NAME: &'static CStr = c"native-buffer fixture";
}

impl Kit for Anb {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();

    fn device_extensions() -> &'static [ExtensionId] {
        &[ExtensionId::ANDROID_NATIVE_BUFFER]
    }
}

impl NativeBuffers for Anb {
    const GRALLOC_QUERIES: GrallocQueries = GrallocQueries::V2;
    const NATIVE_FENCES: bool = true;

    fn gralloc_usage() -> GrallocUsage {
        GrallocUsage {
            base: RENDER,
            per_image_usage: &[(vk::ImageUsageFlags::SAMPLED, TEXTURE)],
            shared: FRONT,
        }
    }

    fn signal_on_native_fence(
        _device: vk::Device,
        _semaphore: vk::Semaphore,
        semaphore_fence: Option<NativeFence>,
        _fence: vk::Fence,
        fence_fence: Option<NativeFence>,
    ) -> Result<(), vk::Result> {
        if std::mem::take(&mut *FAIL_NEXT.lock().unwrap()) {
            return Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY);
        }
        HELD.lock()
            .unwrap()
            .extend(semaphore_fence.into_iter().chain(fence_fence));
        Ok(())
    }

    fn release_native_fence(
        _queue: vk::Queue,
        _wait: &[vk::Semaphore],
        _image: vk::Image,
    ) -> Result<NativeFence, vk::Result> {
        HELD.lock().unwrap().clear();
        let s = FenceSignaller::new().map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)?;
        s.signal().map_err(|_| vk::Result::ERROR_DEVICE_LOST)?;
        s.fence().map_err(|_| vk::Result::ERROR_OUT_OF_HOST_MEMORY)
    }
}

#[vkgen_driver::driver(kit)]
impl Driver for Anb {
    const API_VERSION: u32 = vk::API_VERSION_1_1;
}

/// Closes an fd this test owns.
///
/// # Safety
/// `fd` is open and owned by the caller.
unsafe fn close(fd: c_int) {
    // SAFETY: `fd` is open and owned by the caller (this function's contract), so wrapping it to
    // close it closes nothing else.
    drop(unsafe { <std::os::fd::OwnedFd as std::os::fd::FromRawFd>::from_raw_fd(fd) });
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

type PfnUsage2 = unsafe extern "system" fn(
    vk::Device,
    vk::Format,
    vk::ImageUsageFlags,
    vk::SwapchainImageUsageFlagsANDROID,
    *mut u64,
    *mut u64,
) -> vk::Result;
type PfnAcquire =
    unsafe extern "system" fn(vk::Device, vk::Image, c_int, vk::Semaphore, vk::Fence) -> vk::Result;
type PfnRelease = unsafe extern "system" fn(
    vk::Queue,
    u32,
    *const vk::Semaphore,
    vk::Image,
    *mut c_int,
) -> vk::Result;

fn gdpa<F>(device: vk::Device, name: &CStr) -> Option<F> {
    // SAFETY: a lookup with a valid name and a live device; the caller names the command's type.
    unsafe {
        get_device_proc_addr::<Anb>(device, name.as_ptr())
            .map(|f| std::mem::transmute_copy::<unsafe extern "system" fn(), F>(&f))
    }
}

#[test]
fn only_usage2_and_fd_counts_level_over_10k_cycles() {
    // SAFETY: the generated GIPA of the fixture is a valid static entry point.
    let entry = unsafe {
        ash::Entry::from_static_fn(ash::StaticFn {
            get_instance_proc_addr: get_instance_proc_addr::<Anb>,
        })
    };
    let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
    // SAFETY: plain Vulkan use of the fixture.
    let instance = unsafe {
        entry
            .create_instance(
                &vk::InstanceCreateInfo::default().application_info(&app),
                None,
            )
            .unwrap()
    };
    // SAFETY: `instance` is the live instance just created from the fixture's entry.
    let pd = unsafe { instance.enumerate_physical_devices() }.unwrap()[0];
    let prio = [1.0f32];
    let q = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(0)
        .queue_priorities(&prio)];
    let exts: [*const c_char; 1] = [c"VK_ANDROID_native_buffer".as_ptr()];
    let info = vk::DeviceCreateInfo::default()
        .queue_create_infos(&q)
        .enabled_extension_names(&exts);
    // SAFETY: `pd` is that instance's physical device, and `info` with its queue and extension
    // arrays lives on this stack frame for the call.
    let device = unsafe { instance.create_device(pd, &info, None) }.unwrap();
    // SAFETY: queue 0 of family 0 exists.
    let queue = unsafe { device.get_device_queue(0, 0) };
    let d = device.handle();

    for absent in [
        c"vkGetSwapchainGrallocUsageANDROID",
        c"vkGetSwapchainGrallocUsage3ANDROID",
        c"vkGetSwapchainGrallocUsage4ANDROID",
    ] {
        assert!(gdpa::<PfnUsage2>(d, absent).is_none(), "{absent:?} exposed");
    }
    let usage2: PfnUsage2 = gdpa(d, c"vkGetSwapchainGrallocUsage2ANDROID").unwrap();
    let acquire: PfnAcquire = gdpa(d, c"vkAcquireImageANDROID").unwrap();
    let release: PfnRelease = gdpa(d, c"vkQueueSignalReleaseImageANDROID").unwrap();
    let (mut consumer, mut producer) = (1u64, 0u64);
    // SAFETY: valid output pointers.
    let r = unsafe {
        usage2(
            d,
            vk::Format::R8G8B8A8_UNORM,
            vk::ImageUsageFlags::SAMPLED | vk::ImageUsageFlags::COLOR_ATTACHMENT,
            vk::SwapchainImageUsageFlagsANDROID::SHARED,
            &mut consumer,
            &mut producer,
        )
    };
    assert_eq!(r, vk::Result::SUCCESS);
    assert_eq!((consumer, producer), (0, RENDER | TEXTURE | FRONT));

    let sem = vk::Semaphore::from_raw(0x51);
    let fence = vk::Fence::from_raw(0x52);
    let before = open_fds();
    for i in 0..10_000u32 {
        let signaller = FenceSignaller::new().unwrap();
        signaller.signal().unwrap();
        let fd = signaller.fd().unwrap().into_raw_fd();
        let image = vk::Image::from_raw(7);
        // SAFETY: the fd is handed over, as the HAL does; handles are opaque to the fixture.
        let r = unsafe {
            match i % 5 {
                // Ordinary acquire with both objects.
                0 | 1 => acquire(d, image, fd, sem, fence),
                // -1: already signalled; the real fd is closed here.
                2 => {
                    close(fd);
                    acquire(d, image, -1, sem, vk::Fence::null())
                }
                // The sync hook fails: the fd and its copies must still be closed.
                3 => {
                    *FAIL_NEXT.lock().unwrap() = true;
                    acquire(d, image, fd, sem, fence)
                }
                // A closed fd number: refused, nothing leaks.
                _ => {
                    close(fd);
                    acquire(d, image, fd, sem, fence)
                }
            }
        };
        let expect = match i % 5 {
            3 => vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            4 => vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            _ => vk::Result::SUCCESS,
        };
        assert_eq!(r, expect, "cycle {i}");
        let mut out: c_int = 12345;
        let waits = [sem];
        let bad_queue = i % 7 == 0;
        let q = if bad_queue { vk::Queue::null() } else { queue };
        // SAFETY: valid pointers; a null queue is the error path under test.
        let r = unsafe { release(q, 1, waits.as_ptr(), image, &mut out) };
        if bad_queue {
            assert_eq!(r, vk::Result::ERROR_DEVICE_LOST);
            assert_eq!(out, -1, "an error path leaves -1, never garbage");
            HELD.lock().unwrap().clear();
        } else {
            assert_eq!(r, vk::Result::SUCCESS);
            assert!(out >= 0);
            // The caller owns the released fd.
            // SAFETY: a fresh fd the kit handed over.
            unsafe { close(out) };
        }
    }
    assert_eq!(open_fds(), before, "fd count level over 10 000 cycles");
    // SAFETY: objects of this test.
    unsafe {
        device.destroy_device(None);
        instance.destroy_instance(None);
    }
}
