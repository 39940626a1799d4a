//! `libvulkan_host.so` (passthrough to lavapipe here) loaded as loaders load it: through its HAL
//! module in-process, and as an ICD of Debian's Khronos loader (child processes with
//! `VK_DRIVER_FILES`). Compute round trips, vulkaninfo, a missing host ICD, and the native-buffer
//! path: rendering into a memfd gralloc buffer, and 10 000 acquire/release cycles with the fd
//! count checked.

#![warn(clippy::undocumented_unsafe_blocks)]

use std::ffi::{c_int, CStr};
use std::os::fd::IntoRawFd;
use std::path::PathBuf;
use std::time::{Duration, Instant};

use ash::vk;
use ash::vk::Handle;
use vkgen_abi::native_window::{buffer_usage, HAL_PIXEL_FORMAT_RGBA_8888};
use vkgen_driver::gralloc::{Allocator, Buffer};
use vkgen_driver::sync_fd::{FenceSignaller, NativeFence};
use vkgen_driver::testing::HalLibrary;
use vkgen_generated::vk as gvk;
use vkgen_tests::env::{controlled_command, in_child, output_with_timeout, Env};

fn library() -> PathBuf {
    static LIB: std::sync::OnceLock<Result<PathBuf, String>> = std::sync::OnceLock::new();
    LIB.get_or_init(|| vkgen_driver::testing::build_driver("vkgen-driver-host", "vulkan_host"))
        .clone()
        .unwrap_or_else(|e| panic!("{e}"))
}

/// The environment every child starts from: children lose `VKGEN_*`, so a prebuilt-library
/// directory is handed on explicitly.
fn base_env() -> Env {
    match std::env::var_os(vkgen_driver::testing::DRIVER_LIB_DIR_ENV) {
        Some(dir) => Env::new().set(vkgen_driver::testing::DRIVER_LIB_DIR_ENV, dir),
        None => Env::new(),
    }
}

fn open() -> HalLibrary {
    // SAFETY: the library is our host driver.
    unsafe { HalLibrary::open(&library()) }.unwrap_or_else(|e| panic!("{e}"))
}

/// A manifest for the host driver in a temporary directory.
fn manifest() -> (tempfile::TempDir, PathBuf) {
    let dir = tempfile::tempdir().unwrap();
    let path = dir.path().join("vkgen_host.json");
    std::fs::write(
        &path,
        format!(
            r#"{{"file_format_version":"1.0.0","ICD":{{"library_path":"{}","api_version":"1.3.239"}}}}"#,
            library().display()
        ),
    )
    .unwrap();
    (dir, path)
}

fn open_fds() -> usize {
    std::fs::read_dir("/proc/self/fd").unwrap().count()
}

/// The descriptor count once asynchronous work has settled: the driver's release worker and
/// lavapipe's threads close descriptors of earlier work a little later, so a snapshot taken
/// mid-flight is off by one either way. Settled = the same count `quiet` apart, or `expected`.
fn settled_fds(expected: Option<usize>) -> usize {
    let quiet = Duration::from_millis(50);
    let deadline = std::time::Instant::now() + Duration::from_secs(5);
    let mut last = open_fds();
    loop {
        if expected == Some(last) || std::time::Instant::now() > deadline {
            return last;
        }
        std::thread::sleep(quiet);
        let now = open_fds();
        if expected.is_none() && now == last {
            return now;
        }
        last = now;
    }
}

/// `fd -> target` of every open descriptor, for leak reports.
fn fd_targets() -> Vec<String> {
    let mut v: Vec<String> = std::fs::read_dir("/proc/self/fd")
        .unwrap()
        .filter_map(|e| e.ok())
        .map(|e| {
            format!(
                "{} -> {}",
                e.file_name().to_string_lossy(),
                std::fs::read_link(e.path())
                    .map(|p| p.display().to_string())
                    .unwrap_or_default()
            )
        })
        .collect();
    v.sort();
    v
}

#[test]
fn hal_compute_roundtrip() {
    let hal = open();
    let entry = hal.entry();
    let names = vkgen_tests::require(vkgen_tests::compute::physical_device_names(&entry));
    assert!(names.iter().any(|n| n.starts_with("llvmpipe")), "{names:?}");
    let got = vkgen_tests::require(vkgen_tests::compute::run_fill_compute(
        &entry, 10_000, 0x9E37,
    ));
    vkgen_tests::require(vkgen_tests::compute::verify_fill(&got, 10_000, 0x9E37));
    // SAFETY: a global query.
    let v = unsafe { entry.try_enumerate_instance_version() }
        .unwrap()
        .unwrap();
    assert!(v <= vkgen_generated::API_VERSION | vkgen_generated::HEADER_VERSION);
}

#[test]
fn exports_only_hmi_and_icd_entry_points() {
    let hal = open();
    for cmd in vkgen_generated::commands::COMMANDS.iter() {
        // SAFETY: only the presence of the symbol is checked.
        let found = unsafe { hal.symbol::<*const std::ffi::c_void>(cmd.name()) };
        assert!(found.is_none(), "{:?} is exported", cmd.name());
    }
}

#[test]
fn khronos_loader_compute_roundtrip() {
    let (_dir, manifest) = manifest();
    in_child(
        "khronos_loader_compute_roundtrip",
        &base_env().set("VK_DRIVER_FILES", &manifest),
        || {
            let loader = vkgen_tests::require(vkgen_tests::paths::system_loader());
            let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
            let names = vkgen_tests::require(vkgen_tests::compute::physical_device_names(&entry));
            assert_eq!(names.len(), 1, "{names:?}");
            assert!(names[0].starts_with("llvmpipe"), "{names:?}");
            let got = vkgen_tests::require(vkgen_tests::compute::run_fill_compute(&entry, 4096, 7));
            vkgen_tests::require(vkgen_tests::compute::verify_fill(&got, 4096, 7));
        },
    );
}

/// `vulkaninfo` (full and `--summary`) through Debian's loader with only the host driver.
///
/// vulkaninfo dlopens `libvulkan.so` first, and cargo puts `target/<profile>` (holding our own
/// loader) on `LD_LIBRARY_PATH`, so a directory of symlinks to Debian's loader goes first.
#[test]
fn vulkaninfo_through_the_khronos_loader() {
    let (dir, manifest) = manifest();
    let system = vkgen_tests::require(vkgen_tests::paths::system_loader());
    let shim = dir.path().join("lib");
    std::fs::create_dir(&shim).unwrap();
    for name in ["libvulkan.so", "libvulkan.so.1"] {
        std::os::unix::fs::symlink(&system, shim.join(name)).unwrap();
    }
    let vulkaninfo = vkgen_tests::require(vkgen_tests::paths::vulkaninfo_bin());
    let env = base_env()
        .set("VK_DRIVER_FILES", &manifest)
        .set("LD_LIBRARY_PATH", &shim);
    for args in [&["--summary"][..], &[][..]] {
        let mut cmd = controlled_command(&vulkaninfo, &env);
        cmd.args(args);
        let out = vkgen_tests::require(output_with_timeout(&mut cmd, Duration::from_secs(120)));
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            out.status.success(),
            "vulkaninfo {args:?} failed: {}\n{stdout}\n{}",
            out.status,
            String::from_utf8_lossy(&out.stderr)
        );
        assert!(stdout.contains("llvmpipe"), "{stdout}");
        if args.is_empty() {
            assert!(
                stdout.contains("VK_ANDROID_native_buffer"),
                "ANB advertised"
            );
        }
    }
}

#[test]
fn missing_host_icd_is_incompatible_driver() {
    let (_dir, manifest) = manifest();
    let env = base_env()
        .set("VKGEN_HOST_ICD", "/nonexistent/vkgen-no-icd.json")
        .set("VK_DRIVER_FILES", &manifest);
    in_child("missing_host_icd_is_incompatible_driver", &env, || {
        let hal = open();
        let entry = hal.entry();
        // SAFETY: global queries and a creation that must fail cleanly.
        unsafe {
            assert_eq!(
                entry
                    .enumerate_instance_extension_properties(None)
                    .unwrap()
                    .len(),
                0
            );
            assert_eq!(
                entry
                    .create_instance(&vk::InstanceCreateInfo::default(), None)
                    .err(),
                Some(vk::Result::ERROR_INCOMPATIBLE_DRIVER)
            );
        }
        // Through Debian's loader: no devices, no crash.
        let loader = vkgen_tests::require(vkgen_tests::paths::system_loader());
        let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
        // SAFETY: a creation through the system loader's entry with a default create info on this
        // stack frame; it must fail cleanly.
        let r = unsafe { entry.create_instance(&vk::InstanceCreateInfo::default(), None) };
        match r {
            Err(e) => assert_eq!(e, vk::Result::ERROR_INCOMPATIBLE_DRIVER),
            Ok(instance) => {
                // SAFETY: a live instance, destroyed right after.
                unsafe {
                    assert!(instance
                        .enumerate_physical_devices()
                        .unwrap_or_default()
                        .is_empty());
                    instance.destroy_instance(None);
                }
            }
        }
    });
}

// ---------------------------------------------------------------------------------------------
// Native buffers

struct Ctx {
    _hal: HalLibrary,
    instance: ash::Instance,
    device: ash::Device,
    queue: vk::Queue,
    family: u32,
    acquire: vk::PFN_vkAcquireImageANDROID,
    release: vk::PFN_vkQueueSignalReleaseImageANDROID,
}

impl Ctx {
    fn new() -> Self {
        let hal = open();
        let entry = hal.entry();
        // SAFETY: plain Vulkan use through the host driver.
        unsafe {
            let app = vk::ApplicationInfo::default().api_version(vk::API_VERSION_1_1);
            let instance = entry
                .create_instance(
                    &vk::InstanceCreateInfo::default().application_info(&app),
                    None,
                )
                .unwrap();
            let pd = instance.enumerate_physical_devices().unwrap()[0];
            let exts = instance.enumerate_device_extension_properties(pd).unwrap();
            let anb = exts
                .iter()
                .find(|e| e.extension_name_as_c_str().unwrap() == c"VK_ANDROID_native_buffer")
                .expect("ANB advertised");
            assert_eq!(anb.spec_version, 11);
            let family = instance
                .get_physical_device_queue_family_properties(pd)
                .iter()
                .position(|f| f.queue_flags.contains(vk::QueueFlags::GRAPHICS))
                .unwrap() as u32;
            let prio = [1.0];
            let qci = [vk::DeviceQueueCreateInfo::default()
                .queue_family_index(family)
                .queue_priorities(&prio)];
            let names = [c"VK_ANDROID_native_buffer".as_ptr()];
            let device = instance
                .create_device(
                    pd,
                    &vk::DeviceCreateInfo::default()
                        .queue_create_infos(&qci)
                        .enabled_extension_names(&names),
                    None,
                )
                .unwrap();
            let queue = device.get_device_queue(family, 0);
            let load = |name: &CStr| {
                (instance.fp_v1_0().get_device_proc_addr)(device.handle(), name.as_ptr())
                    .expect("ANB command exposed")
            };
            let acquire = std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkAcquireImageANDROID,
            >(load(c"vkAcquireImageANDROID"));
            let release = std::mem::transmute::<
                unsafe extern "system" fn(),
                vk::PFN_vkQueueSignalReleaseImageANDROID,
            >(load(c"vkQueueSignalReleaseImageANDROID"));
            // The presentation properties are filled.
            let mut present = gvk::PhysicalDevicePresentationPropertiesANDROID::default();
            let mut props2 = vk::PhysicalDeviceProperties2 {
                p_next: std::ptr::from_mut(&mut present).cast(),
                ..Default::default()
            };
            instance.get_physical_device_properties2(pd, &mut props2);
            assert_eq!(present.shared_image, vk::TRUE);
            Self {
                _hal: hal,
                instance,
                device,
                queue,
                family,
                acquire,
                release,
            }
        }
    }

    fn acquire(&self, fd: c_int, sem: vk::Semaphore, fence: vk::Fence) -> vk::Result {
        // SAFETY: live objects of this device.
        unsafe { (self.acquire)(self.device.handle(), vk::Image::null(), fd, sem, fence) }
    }

    /// Releases after waiting on `sems`; the returned native fence.
    fn release(&self, sems: &[vk::Semaphore], image: vk::Image) -> Result<NativeFence, vk::Result> {
        let mut fd = -2;
        // SAFETY: live objects of this device; `fd` is handed to us.
        let r =
            unsafe { (self.release)(self.queue, sems.len() as u32, sems.as_ptr(), image, &mut fd) };
        if r != vk::Result::SUCCESS {
            assert_eq!(fd, -1, "error paths return -1");
            return Err(r);
        }
        // SAFETY: the driver handed the fd over.
        Ok(unsafe { NativeFence::from_raw(fd) })
    }
}

impl Drop for Ctx {
    fn drop(&mut self) {
        // SAFETY: everything created from them is destroyed by the tests.
        unsafe {
            self.device.device_wait_idle().unwrap();
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn native_buffer_info(b: &Buffer) -> gvk::NativeBufferANDROID {
    let d = b.desc();
    gvk::NativeBufferANDROID {
        s_type: vk::StructureType::NATIVE_BUFFER_ANDROID,
        p_next: std::ptr::null(),
        handle: b.native_handle().cast(),
        stride: d.stride as c_int,
        format: HAL_PIXEL_FORMAT_RGBA_8888,
        usage: d.usage as c_int,
        usage2: vk::NativeBufferUsage2ANDROID {
            consumer: 0,
            producer: d.usage,
        },
        usage3: d.usage,
        ahb: std::ptr::null_mut(),
    }
}

fn image_info(b: &Buffer) -> vk::ImageCreateInfo<'static> {
    vk::ImageCreateInfo::default()
        .image_type(vk::ImageType::TYPE_2D)
        .format(vk::Format::R8G8B8A8_UNORM)
        .extent(vk::Extent3D {
            width: b.desc().width,
            height: b.desc().height,
            depth: 1,
        })
        .mip_levels(1)
        .array_layers(1)
        .samples(vk::SampleCountFlags::TYPE_1)
        .tiling(vk::ImageTiling::OPTIMAL)
        .usage(vk::ImageUsageFlags::COLOR_ATTACHMENT | vk::ImageUsageFlags::TRANSFER_DST)
}

/// Clears `image` to `rgba` on the queue, signalling `sem`.
fn clear(ctx: &Ctx, image: vk::Image, rgba: [f32; 4], sem: vk::Semaphore) {
    let d = &ctx.device;
    // SAFETY: plain Vulkan use; the pool is destroyed after the queue went idle.
    unsafe {
        let pool = d
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default().queue_family_index(ctx.family),
                None,
            )
            .unwrap();
        let cb = d
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        d.begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        let range = vk::ImageSubresourceRange {
            aspect_mask: vk::ImageAspectFlags::COLOR,
            base_mip_level: 0,
            level_count: 1,
            base_array_layer: 0,
            layer_count: 1,
        };
        let to_dst = vk::ImageMemoryBarrier::default()
            .image(image)
            .subresource_range(range)
            .old_layout(vk::ImageLayout::UNDEFINED)
            .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE);
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[to_dst],
        );
        d.cmd_clear_color_image(
            cb,
            image,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &vk::ClearColorValue { float32: rgba },
            &[range],
        );
        let to_host = vk::ImageMemoryBarrier::default()
            .image(image)
            .subresource_range(range)
            .old_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
            .new_layout(vk::ImageLayout::GENERAL)
            .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
            .dst_access_mask(vk::AccessFlags::HOST_READ | vk::AccessFlags::MEMORY_READ);
        d.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::ALL_COMMANDS,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[to_host],
        );
        d.end_command_buffer(cb).unwrap();
        let cbs = [cb];
        let sems = [sem];
        d.queue_submit(
            ctx.queue,
            &[vk::SubmitInfo::default()
                .command_buffers(&cbs)
                .signal_semaphores(&sems)],
            vk::Fence::null(),
        )
        .unwrap();
        // The release fence (checked by the caller) covers this work; the pool may go once the
        // queue is idle.
        d.queue_wait_idle(ctx.queue).unwrap();
        d.destroy_command_pool(pool, None);
    }
}

fn check_pixels(b: &mut Buffer, rgba: [u8; 4]) {
    let d = *b.desc();
    let map = b.map().unwrap();
    let px = map.as_slice();
    for y in 0..d.height as usize {
        for x in 0..d.width as usize {
            let o = y * d.row_bytes() as usize + x * 4;
            let got = &px[o..o + 4];
            assert!(
                got.iter().zip(rgba).all(|(&g, e)| g.abs_diff(e) <= 1),
                "pixel ({x}, {y}) = {got:?}, expected {rgba:?}"
            );
        }
    }
}

/// Runs in a child process so no other test's fds disturb the count.
#[test]
fn native_buffer_rendering_and_cycles() {
    in_child(
        "native_buffer_rendering_and_cycles",
        &base_env(),
        native_buffer_body,
    );
}

fn native_buffer_body() {
    let ctx = Ctx::new();
    let d = &ctx.device;
    let alloc = Allocator::new();
    let usage = buffer_usage::GPU_RENDER_TARGET | buffer_usage::GPU_TEXTURE;
    // SAFETY: plain Vulkan use through the host driver; everything is destroyed at the end.
    unsafe {
        let sem = d
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();
        let fence = d
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();

        // 1. VkNativeBufferANDROID at vkCreateImage; an odd size exercises the padded import.
        for (w, h) in [(64, 48), (33, 17)] {
            let mut buffer = alloc
                .allocate(w, h, HAL_PIXEL_FORMAT_RGBA_8888, usage)
                .unwrap();
            let anb = native_buffer_info(&buffer);
            let mut ci = image_info(&buffer);
            ci.p_next = std::ptr::from_ref(&anb).cast();
            let image = d.create_image(&ci, None).unwrap();
            assert_eq!(
                ctx.acquire(-1, vk::Semaphore::null(), fence),
                vk::Result::SUCCESS
            );
            d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            d.reset_fences(&[fence]).unwrap();
            clear(&ctx, image, [0.0, 0.5, 1.0, 1.0], sem);
            let done = ctx.release(&[sem], image).unwrap();
            assert!(
                done.wait(Some(Duration::from_secs(30))).unwrap(),
                "release fence fires"
            );
            drop(done);
            check_pixels(&mut buffer, [0, 128, 255, 255]);
            d.destroy_image(image, None);
        }

        // 2. Swapchain style: created with VkImageSwapchainCreateInfoKHR, bound through
        //    vkBindImageMemory2 with VkNativeBufferANDROID.
        let mut buffer = alloc
            .allocate(40, 20, HAL_PIXEL_FORMAT_RGBA_8888, usage)
            .unwrap();
        let swapchain = vk::SwapchainKHR::from_raw(0x5157_4150);
        let sci = vk::ImageSwapchainCreateInfoKHR::default().swapchain(swapchain);
        let mut ci = image_info(&buffer);
        ci.p_next = std::ptr::from_ref(&sci).cast();
        let image = d.create_image(&ci, None).unwrap();
        let mut anb = native_buffer_info(&buffer);
        let bsi = vk::BindImageMemorySwapchainInfoKHR::default()
            .swapchain(swapchain)
            .image_index(0);
        anb.p_next = std::ptr::from_ref(&bsi).cast();
        let mut bind = vk::BindImageMemoryInfo::default().image(image);
        bind.p_next = std::ptr::from_ref(&anb).cast();
        d.bind_image_memory2(&[bind]).unwrap();
        clear(&ctx, image, [1.0, 0.0, 0.0, 1.0], sem);
        let done = ctx.release(&[sem], image).unwrap();
        assert!(done.wait(Some(Duration::from_secs(30))).unwrap());
        drop(done);
        check_pixels(&mut buffer, [255, 0, 0, 255]);
        d.destroy_image(image, None);

        // 3. Acquire waits for the fd; the fence is signalled when it returns.
        let s = FenceSignaller::new().unwrap();
        let fd = s.fence().unwrap().into_raw();
        let start = Instant::now();
        let t = std::thread::spawn(move || {
            std::thread::sleep(Duration::from_millis(50));
            s.signal().unwrap();
        });
        assert_eq!(ctx.acquire(fd, sem, fence), vk::Result::SUCCESS);
        assert!(
            start.elapsed() >= Duration::from_millis(45),
            "acquire returned before the fd fired"
        );
        d.wait_for_fences(&[fence], true, 10_000_000_000).unwrap();
        d.reset_fences(&[fence]).unwrap();
        t.join().unwrap();
        ctx.release(&[sem], vk::Image::null())
            .unwrap()
            .wait(None)
            .unwrap();

        // 4. 10 000 cycles, error paths included: the fd count does not move.
        let before = settled_fds(None);
        let before_targets = fd_targets();
        for i in 0..10_000u32 {
            let fd = match i % 3 {
                0 => -1,
                _ => {
                    let s = FenceSignaller::new().unwrap();
                    s.signal().unwrap();
                    s.fence().unwrap().into_raw()
                }
            };
            let use_fence = i % 2 == 0;
            assert_eq!(
                ctx.acquire(fd, sem, if use_fence { fence } else { vk::Fence::null() }),
                vk::Result::SUCCESS
            );
            if use_fence {
                d.wait_for_fences(&[fence], true, u64::MAX).unwrap();
                d.reset_fences(&[fence]).unwrap();
            }
            let done = ctx.release(&[sem], vk::Image::null()).unwrap();
            assert!(done.wait(Some(Duration::from_secs(30))).unwrap());
            drop(done);
            if i % 100 == 0 {
                // A descriptor that is not open is refused and nothing is closed; an fd in an
                // error state is taken, closed, and reported.
                assert_eq!(
                    ctx.acquire(1 << 20, sem, fence),
                    vk::Result::ERROR_INVALID_EXTERNAL_HANDLE
                );
                let (r, w) = rustix::pipe::pipe().unwrap();
                drop(r);
                let broken = w.into_raw_fd();
                assert_eq!(
                    ctx.acquire(broken, sem, fence),
                    vk::Result::ERROR_DEVICE_LOST
                );
                // SAFETY: F_GETFD on any number is defined.
                assert!(
                    libc::fcntl(broken, libc::F_GETFD) < 0,
                    "the broken fd was closed"
                );
            }
        }
        assert_eq!(
            settled_fds(Some(before)),
            before,
            "fds leaked over 10 000 acquire/release cycles: before {before_targets:?}, after {:?}",
            fd_targets()
        );
        d.destroy_fence(fence, None);
        d.destroy_semaphore(sem, None);
    }
}
