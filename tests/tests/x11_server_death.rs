//! Issue 25: the X server dying under an application does not kill it. The loader's X11
//! presenter writes to the server's socket; with the application's `SIGPIPE` disposition the
//! default (a C program's), a write to a dead server would kill the process. The presenter
//! thread blocks `SIGPIPE` for itself, so its write fails instead and the application's next
//! present or acquire answers `VK_ERROR_SURFACE_LOST_KHR` (or `VK_ERROR_OUT_OF_DATE_KHR`).
//!
//! Skips loudly (a message, no failure) only when Xvfb is not installed.

mod wsi_support;
mod x11_support;

use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

use ash::vk;
use vkgen_tests::{paths, require};
use x11_support::Xvfb;

const SCENARIO: &str = "x11_server_death_is_surface_lost_not_sigpipe";
/// The directory the parent and the child signal each other through.
const SYNC_DIR: &str = "VKGEN_TEST_SYNC_DIR";

/// The child presents once, the parent kills Xvfb, the child presents again: it must see the
/// surface lost (or out of date) and exit normally, not by `SIGPIPE`.
#[test]
fn x11_server_death_is_surface_lost_not_sigpipe() {
    if vkgen_tests::env::child_scenario().is_some() {
        let dir = PathBuf::from(std::env::var_os(SYNC_DIR).unwrap());
        child(&std::env::var("DISPLAY").unwrap(), &dir);
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(mut xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let (env, _root) = wsi_support::hal_env("host", "");
    let dir = tempfile::tempdir().unwrap();
    let env = env.set("DISPLAY", &xvfb.display).set(SYNC_DIR, dir.path());
    let child = std::thread::spawn(move || vkgen_tests::env::run_child(SCENARIO, &env));
    let deadline = Instant::now() + Duration::from_secs(120);
    while !dir.path().join("presented").exists() && !child.is_finished() {
        assert!(Instant::now() < deadline, "the child never presented");
        std::thread::sleep(Duration::from_millis(20));
    }
    xvfb.kill();
    std::fs::write(dir.path().join("killed"), b"").unwrap();
    let out = child.join().unwrap();
    require(vkgen_tests::env::check_child(SCENARIO, &out));
}

/// Acquires an image and presents it as it is; the first failure.
///
/// # Safety
/// Live objects of one device.
unsafe fn present(
    sc_fns: &ash::khr::swapchain::Device,
    device: &ash::Device,
    queue: vk::Queue,
    sc: vk::SwapchainKHR,
    fence: vk::Fence,
) -> Result<(), vk::Result> {
    // SAFETY: the caller's live objects; the fence is unsignalled between calls.
    unsafe {
        let (index, _) =
            sc_fns.acquire_next_image(sc, 2_000_000_000, vk::Semaphore::null(), fence)?;
        device.wait_for_fences(&[fence], true, u64::MAX)?;
        device.reset_fences(&[fence])?;
        let (scs, indices) = ([sc], [index]);
        let info = vk::PresentInfoKHR::default()
            .swapchains(&scs)
            .image_indices(&indices);
        sc_fns.queue_present(queue, &info).map(|_| ())
    }
}

fn child(display: &str, dir: &Path) {
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, WindowClass};
    // A C application's disposition: Rust's runtime ignores SIGPIPE, which would hide the bug.
    // SAFETY: restoring the default action of one signal; no handler is involved.
    unsafe { libc::signal(libc::SIGPIPE, libc::SIG_DFL) };
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let scr = &conn.setup().roots[screen];
    let win = conn.generate_id().unwrap();
    let aux = CreateWindowAux::new().background_pixel(scr.black_pixel);
    let class = WindowClass::INPUT_OUTPUT;
    conn.create_window(
        24,
        win,
        scr.root,
        0,
        0,
        64,
        48,
        0,
        class,
        scr.root_visual,
        &aux,
    )
    .unwrap();
    conn.map_window(win).unwrap();
    conn.flush().unwrap();
    let entry = require(vkgen_tests::compute::load_entry(&paths::our_loader()));
    let exts = [ash::khr::surface::NAME, ash::khr::xcb_surface::NAME];
    let instance = vkgen_tests::compute::create_instance(&entry, &[], &exts).unwrap();
    let xcb = ash::khr::xcb_surface::Instance::new(&entry, &instance);
    let surface_fns = ash::khr::surface::Instance::new(&entry, &instance);
    let (pd, family) = require(vkgen_tests::compute::pick_compute_device(&instance));
    // SAFETY: plain Vulkan use of live objects from here on.
    unsafe {
        let info = vk::XcbSurfaceCreateInfoKHR::default().window(win);
        let surface = xcb.create_xcb_surface(&info, None).unwrap();
        let prio = [1.0f32];
        let q = [vk::DeviceQueueCreateInfo::default()
            .queue_family_index(family)
            .queue_priorities(&prio)];
        let names = [ash::khr::swapchain::NAME.as_ptr()];
        let dci = vk::DeviceCreateInfo::default()
            .queue_create_infos(&q)
            .enabled_extension_names(&names);
        let device = instance.create_device(pd, &dci, None).unwrap();
        let queue = device.get_device_queue(family, 0);
        let sc_fns = ash::khr::swapchain::Device::new(&instance, &device);
        let caps = surface_fns
            .get_physical_device_surface_capabilities(pd, surface)
            .unwrap();
        let format = surface_fns
            .get_physical_device_surface_formats(pd, surface)
            .unwrap()[0];
        let sci = vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(caps.min_image_count)
            .image_format(format.format)
            .image_color_space(format.color_space)
            .image_extent(caps.current_extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::INHERIT)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        let sc = sc_fns.create_swapchain(&sci, None).unwrap();
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        for _ in 0..3 {
            present(&sc_fns, &device, queue, sc, fence).expect("presenting while the server lives");
        }
        std::fs::write(dir.join("presented"), b"").unwrap();
        let deadline = Instant::now() + Duration::from_secs(60);
        while !dir.join("killed").exists() {
            assert!(Instant::now() < deadline, "the parent never killed Xvfb");
            std::thread::sleep(Duration::from_millis(20));
        }
        let deadline = Instant::now() + Duration::from_secs(30);
        let lost = loop {
            match present(&sc_fns, &device, queue, sc, fence) {
                Err(
                    e @ (vk::Result::ERROR_SURFACE_LOST_KHR | vk::Result::ERROR_OUT_OF_DATE_KHR),
                ) => break e,
                Ok(())
                | Err(vk::Result::TIMEOUT | vk::Result::NOT_READY | vk::Result::SUBOPTIMAL_KHR) => {
                }
                Err(e) => panic!("presenting after the server died: {e}"),
            }
            assert!(Instant::now() < deadline, "the surface was never lost");
            std::thread::sleep(Duration::from_millis(20));
        };
        eprintln!("after the server died: {lost}");
        // The application's own connection is dead too; it is not written to again.
        std::mem::forget(conn);
    }
}
