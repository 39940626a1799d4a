//! Issue 25 item 4: the X11 presenter draws on the display of the application's own connection,
//! not on `$DISPLAY`. Two Xvfb servers: the application (a child) connects through libxcb to
//! server A, creates its window there and passes its real `xcb_connection_t*` to
//! `vkCreateXcbSurfaceKHR`, while its `DISPLAY` names server B (or is unset). A cleared colour
//! must reach the window on A (read back with `GetImage`), and nothing of it may appear on B.
//!
//! Skips loudly (a message, no failure) only when Xvfb is not installed.

mod wsi_support;
mod x11_support;

use std::io::BufRead as _;
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use x11_support::{capture, which, Xvfb};
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, ImageFormat, WindowClass};
use x11rb::xcb_ffi::XCBConnection;

/// The child's application display (server A); its `DISPLAY` is server B.
const APP_DISPLAY: &str = "VKGEN_TEST_X11_APP_DISPLAY";
/// Window size, and the colour presented (exact in 8-bit UNORM) as the window must show it.
const W: u16 = 32;
const H: u16 = 24;
const CLEAR: [f32; 3] = [1.0, 0.2, 0.6];
const WANT: [u8; 3] = [255, 51, 153];

/// A second Xvfb (the helper's holds a per-binary lock), killed on drop.
struct SecondXvfb {
    child: Child,
    display: String,
}

impl SecondXvfb {
    fn start() -> Option<SecondXvfb> {
        let mut child = Command::new(which("Xvfb")?)
            .args(["-displayfd", "1", "-screen", "0", "720x720x24"])
            .args(["-nolisten", "tcp"])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut line = String::new();
        let read = std::io::BufReader::new(child.stdout.take()?).read_line(&mut line);
        let mut xvfb = SecondXvfb {
            child,
            display: String::new(),
        };
        let n: u32 = line.trim().parse().ok().filter(|_| read.is_ok())?;
        xvfb.display = format!(":{n}");
        Some(xvfb)
    }
}

impl Drop for SecondXvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// The app on server A with `DISPLAY` naming server B: the frame reaches A, not B.
#[test]
fn x11_presents_on_the_applications_display_not_display_env() {
    run(
        "x11_presents_on_the_applications_display_not_display_env",
        false,
    );
}

/// The app on server A with `DISPLAY` unset: presenting still works.
#[test]
fn x11_presents_on_the_applications_display_with_display_unset() {
    run(
        "x11_presents_on_the_applications_display_with_display_unset",
        true,
    );
}

fn run(scenario: &str, unset_display: bool) {
    if vkgen_tests::env::child_scenario().is_some() {
        let b = std::env::var("DISPLAY").unwrap();
        if unset_display {
            std::env::remove_var("DISPLAY");
        }
        app_child(&std::env::var(APP_DISPLAY).unwrap(), &b);
        println!("\n{} {scenario}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(a) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let Some(b) = SecondXvfb::start() else {
        eprintln!("SKIPPED: a second Xvfb could not be started");
        return;
    };
    let (env, _root) = wsi_support::hal_env("host", "");
    let env = env
        .set("DISPLAY", &b.display)
        .set(APP_DISPLAY, &a.display)
        .set("VKGEN_LOG", "info");
    let out = vkgen_tests::env::run_child(scenario, &env);
    vkgen_tests::require(vkgen_tests::env::check_child(scenario, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    let used = format!("presenting on the application's display \"{}\"", a.display);
    assert!(
        stderr.contains(&used),
        "{scenario}: no `{used}` in:\n{stderr}"
    );
}

/// The application: a libxcb connection to `app_display`, a window there, an xcb surface with
/// the real connection, one cleared frame presented; it must show on the window and not on
/// `other` (the display `DISPLAY` named).
fn app_child(app_display: &str, other: &str) {
    use ash::vk;
    let name = std::ffi::CString::new(app_display).unwrap();
    let (conn, screen) = XCBConnection::connect(Some(&name)).unwrap();
    let scr = &conn.setup().roots[screen];
    let win = conn.generate_id().unwrap();
    let aux = CreateWindowAux::new().background_pixel(scr.black_pixel);
    let (depth, root, visual) = (scr.root_depth, scr.root, scr.root_visual);
    conn.create_window(
        depth,
        win,
        root,
        0,
        0,
        W,
        H,
        0,
        WindowClass::INPUT_OUTPUT,
        visual,
        &aux,
    )
    .unwrap();
    conn.map_window(win).unwrap();
    conn.flush().unwrap();
    let loader = vkgen_tests::require(vkgen_tests::paths::loader_under_test());
    let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
    let exts = [ash::khr::surface::NAME, ash::khr::xcb_surface::NAME];
    let instance = vkgen_tests::compute::create_instance(&entry, &[], &exts).unwrap();
    let xcb = ash::khr::xcb_surface::Instance::new(&entry, &instance);
    let info = vk::XcbSurfaceCreateInfoKHR::default()
        .connection(conn.get_raw_xcb_connection().cast())
        .window(win);
    // SAFETY: a live instance; the connection is live for the surface's lifetime.
    let surface = unsafe { xcb.create_xcb_surface(&info, None) }.unwrap();
    let (pd, family) = vkgen_tests::require(vkgen_tests::compute::pick_compute_device(&instance));
    present_clear(&entry, &instance, surface, (pd, family), || {
        check(&conn, win, app_display, other);
    });
    // SAFETY: the surface's swapchain is gone (present_clear destroyed it).
    unsafe { ash::khr::surface::Instance::new(&entry, &instance).destroy_surface(surface, None) };
}

/// The window on `app_display` shows [`WANT`] everywhere; `other`'s screen nowhere.
fn check(conn: &XCBConnection, win: u32, app_display: &str, other: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    let pixels = loop {
        std::thread::sleep(Duration::from_millis(50));
        let img = conn.get_image(ImageFormat::Z_PIXMAP, win, 0, 0, W, H, !0);
        let data = img.unwrap().reply().unwrap().data;
        // Xvfb's 24-bit TrueColor is BGRX in memory.
        let rgb: Vec<[u8; 3]> = data.chunks_exact(4).map(|p| [p[2], p[1], p[0]]).collect();
        if rgb.iter().all(|p| *p == WANT) || Instant::now() > deadline {
            break rgb;
        }
    };
    let wrong = pixels.iter().filter(|p| **p != WANT).count();
    assert_eq!(
        wrong, 0,
        "{wrong} window pixels on {app_display} are not {WANT:?}"
    );
    let (_, _, rgba) = capture(other);
    let leaked = rgba.chunks_exact(4).filter(|p| p[..3] == WANT).count();
    assert_eq!(
        leaked, 0,
        "{leaked} pixels of the frame were drawn on {other}"
    );
}

/// Creates a swapchain on `surface`, clears one image to [`CLEAR`], presents it and runs
/// `check` while the swapchain is alive.
fn present_clear(
    entry: &ash::Entry,
    instance: &ash::Instance,
    surface: ash::vk::SurfaceKHR,
    (pd, family): (ash::vk::PhysicalDevice, u32),
    check: impl FnOnce(),
) {
    use ash::vk;
    let surface_fns = ash::khr::surface::Instance::new(entry, instance);
    let prio = [1.0f32];
    let q = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&prio)];
    let names = [ash::khr::swapchain::NAME.as_ptr()];
    let dci = vk::DeviceCreateInfo::default()
        .queue_create_infos(&q)
        .enabled_extension_names(&names);
    // SAFETY: plain Vulkan use of live objects from here on; every create info outlives its call.
    unsafe {
        let caps = surface_fns
            .get_physical_device_surface_capabilities(pd, surface)
            .unwrap();
        let device = instance.create_device(pd, &dci, None).unwrap();
        let queue = device.get_device_queue(family, 0);
        let sc_fns = ash::khr::swapchain::Device::new(instance, &device);
        let sci = vk::SwapchainCreateInfoKHR::default()
            .surface(surface)
            .min_image_count(caps.min_image_count)
            .image_format(vk::Format::B8G8R8A8_UNORM)
            .image_color_space(vk::ColorSpaceKHR::SRGB_NONLINEAR)
            .image_extent(caps.current_extent)
            .image_array_layers(1)
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        let sc = sc_fns.create_swapchain(&sci, None).unwrap();
        let images = sc_fns.get_swapchain_images(sc).unwrap();
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        let (index, _) = sc_fns
            .acquire_next_image(sc, u64::MAX, vk::Semaphore::null(), fence)
            .unwrap();
        device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        device.reset_fences(&[fence]).unwrap();
        let pci = vk::CommandPoolCreateInfo::default().queue_family_index(family);
        let pool = device.create_command_pool(&pci, None).unwrap();
        let cbi = vk::CommandBufferAllocateInfo::default()
            .command_pool(pool)
            .command_buffer_count(1);
        let cb = device.allocate_command_buffers(&cbi).unwrap()[0];
        let image = images[index as usize];
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let barrier = |old, new, src, dst| {
            [vk::ImageMemoryBarrier::default()
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(src)
                .dst_access_mask(dst)
                .image(image)
                .subresource_range(range)]
        };
        let (top, transfer, bottom) = (
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
        );
        let dst = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        let write = vk::AccessFlags::TRANSFER_WRITE;
        let none = vk::AccessFlags::empty();
        let deps = vk::DependencyFlags::empty();
        device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        let to_dst = barrier(vk::ImageLayout::UNDEFINED, dst, none, write);
        device.cmd_pipeline_barrier(cb, top, transfer, deps, &[], &[], &to_dst);
        let colour = vk::ClearColorValue {
            float32: [CLEAR[0], CLEAR[1], CLEAR[2], 1.0],
        };
        device.cmd_clear_color_image(cb, image, dst, &colour, &[range]);
        let to_present = barrier(dst, vk::ImageLayout::PRESENT_SRC_KHR, write, none);
        device.cmd_pipeline_barrier(cb, transfer, bottom, deps, &[], &[], &to_present);
        device.end_command_buffer(cb).unwrap();
        let cbs = [cb];
        let submit = [vk::SubmitInfo::default().command_buffers(&cbs)];
        device.queue_submit(queue, &submit, fence).unwrap();
        device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        let (scs, idx) = ([sc], [index]);
        let present = vk::PresentInfoKHR::default()
            .swapchains(&scs)
            .image_indices(&idx);
        sc_fns.queue_present(queue, &present).unwrap();
        check();
        device.queue_wait_idle(queue).unwrap();
        sc_fns.destroy_swapchain(sc, None);
        device.destroy_fence(fence, None);
        device.destroy_command_pool(pool, None);
        device.destroy_device(None);
    }
}
