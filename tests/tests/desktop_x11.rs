//! Desktop programs present through the Android WSI path on Linux hosts (issue 12): Debian's
//! unmodified `vkcube` runs under Xvfb through our `libvulkan.so` with lavapipe behind
//! `vulkan.host.so` (HAL): `VK_KHR_xcb_surface` is the loader's, the swapchain is the Android
//! one over the driver's `VK_ANDROID_native_buffer`, and the loader's X11 presenter draws the
//! frames into vkcube's window, which the test reads back from the X server. vkcube and zink
//! also run with lavapipe as a Khronos ICD, which the loader serves through its native-buffer
//! adapter (`driver/adapter.rs`), so the same Android swapchain path presents there.
//!
//! Skips loudly (a message, no failure) only when Xvfb or vkcube is not installed.
//! `VKGEN_SCREENSHOT=<file.png>` saves the captured frame (how docs/vkcube-ours.png was made).

mod client_support;
mod desktop_support;
mod wsi_support;
mod x11_support;

use std::path::Path;
use std::process::Stdio;
use std::time::{Duration, Instant};

use client_support::{which, ClientEnv, Stack};
use vkgen_tests::{paths, require};
use x11_support::{capture, Xvfb};
use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};

#[test]
fn vkcube_presents_through_our_loader_and_the_host_driver_under_xvfb() {
    vkcube_under_xvfb(Stack::OursHal);
}

/// lavapipe as a Khronos ICD: the loader serves it through its native-buffer adapter, so the
/// swapchain is still the Android one.
#[test]
fn vkcube_presents_through_our_loader_and_lavapipe_as_an_icd_under_xvfb() {
    vkcube_under_xvfb(Stack::OursIcd);
}

fn vkcube_under_xvfb(path: Stack) {
    let Some(vkcube) = which("vkcube") else {
        eprintln!("SKIPPED: vkcube (Debian vulkan-tools) is not installed");
        return;
    };
    let Some(xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let client = ClientEnv::new(path);
    let mut cmd = client.command(&vkcube, &vkgen_tests::env::Env::new());
    cmd.args(["--c", "400"])
        .env("DISPLAY", &xvfb.display)
        .env("VKGEN_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start vkcube");
    // Capture while it renders: the cube is drawn over a grey-blue background.
    let started = Instant::now();
    let mut best: Option<(u16, u16, Vec<u8>)> = None;
    while started.elapsed() < Duration::from_secs(60) {
        std::thread::sleep(Duration::from_millis(300));
        if child.try_wait().unwrap().is_some() {
            break;
        }
        let shot = capture(&xvfb.display);
        let distinct = distinct_colours(&shot.2);
        if distinct > 50 {
            best = Some(shot);
            break;
        }
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "vkcube ({path:?}) failed ({}):\n{}\n{stderr}",
        out.status,
        String::from_utf8_lossy(&out.stdout)
    );
    assert!(
        stderr.contains(path.log_marker()),
        "VKGEN_LOG does not show the {path:?} path:\n{stderr}"
    );
    assert!(
        stderr.contains("presented by the X11 MIT-SHM presenter"),
        "VKGEN_LOG does not name the presenter:\n{stderr}"
    );
    let (w, h, rgba) = best.expect("no frame with more than 50 colours reached the window");
    if let Some(path) = std::env::var_os("VKGEN_SCREENSHOT") {
        write_png(Path::new(&path), w.into(), h.into(), &rgba);
    }
}

fn distinct_colours(rgba: &[u8]) -> usize {
    let mut seen = std::collections::HashSet::new();
    for p in rgba.chunks_exact(4).step_by(7) {
        seen.insert([p[0], p[1], p[2]]);
        if seen.len() > 1000 {
            break;
        }
    }
    seen.len()
}

fn write_png(path: &Path, w: u32, h: u32, rgba: &[u8]) {
    let file = std::fs::File::create(path).unwrap();
    let mut enc = png::Encoder::new(std::io::BufWriter::new(file), w, h);
    enc.set_color(png::ColorType::Rgba);
    enc.set_depth(png::BitDepth::Eight);
    enc.write_header().unwrap().write_image_data(rgba).unwrap();
}

/// A swapchain on an X window through our loader and `vulkan.host.so`: a cleared image reaches
/// the window pixel for pixel (read back with `GetImage`); resizing the window makes the
/// swapchain `SUBOPTIMAL` or `OUT_OF_DATE`; destroying it makes it `SURFACE_LOST` (or
/// `OUT_OF_DATE`, the answer for an abandoned Android window).
#[test]
fn x11_swapchain_pixels_resize_and_close() {
    const SCENARIO: &str = "x11_swapchain_pixels_resize_and_close";
    if vkgen_tests::env::child_scenario().is_some() {
        x11_child(&std::env::var("DISPLAY").unwrap());
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let (env, _root) = wsi_support::hal_env("host", "");
    let out = vkgen_tests::env::run_child(SCENARIO, &env.set("DISPLAY", &xvfb.display));
    require(vkgen_tests::env::check_child(SCENARIO, &out));
}

/// An X window of `w`×`h` on `display` behind a Vulkan xcb surface of an instance of the loader
/// under test, and the compute-capable device the swapchain children use: their shared setup.
struct XcbSurface {
    conn: x11rb::rust_connection::RustConnection,
    win: u32,
    _entry: ash::Entry,
    instance: vkgen_tests::compute::OwnedInstance,
    surface_fns: ash::khr::surface::Instance,
    surface: ash::vk::SurfaceKHR,
    pd: ash::vk::PhysicalDevice,
    family: u32,
}

fn xcb_surface(display: &str, w: u16, h: u16) -> XcbSurface {
    use ash::vk;
    use x11rb::connection::Connection as _;
    use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, WindowClass};
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let scr = &conn.setup().roots[screen];
    let win = conn.generate_id().unwrap();
    conn.create_window(
        scr.root_depth,
        win,
        scr.root,
        0,
        0,
        w,
        h,
        0,
        WindowClass::INPUT_OUTPUT,
        scr.root_visual,
        &CreateWindowAux::new().background_pixel(scr.black_pixel),
    )
    .unwrap();
    conn.map_window(win).unwrap();
    conn.flush().unwrap();
    let loader = require(paths::loader_under_test());
    let entry = require(vkgen_tests::compute::load_entry(&loader));
    let instance = vkgen_tests::compute::create_instance(
        &entry,
        &[],
        &[ash::khr::surface::NAME, ash::khr::xcb_surface::NAME],
    )
    .unwrap();
    let xcb = ash::khr::xcb_surface::Instance::new(&entry, &instance);
    let surface_fns = ash::khr::surface::Instance::new(&entry, &instance);
    // Our loader presents through its own connection: the application's may be null.
    let info = vk::XcbSurfaceCreateInfoKHR::default().window(win);
    // SAFETY: a live instance and a valid create info.
    let surface = unsafe { xcb.create_xcb_surface(&info, None) }.unwrap();
    let (pd, family) = require(vkgen_tests::compute::pick_compute_device(&instance));
    XcbSurface {
        conn,
        win,
        _entry: entry,
        instance,
        surface_fns,
        surface,
        pd,
        family,
    }
}

/// A command pool of `family` (resettable buffers), one command buffer from it and an
/// unsignalled fence: what each swapchain child records and waits with.
fn recording_objects(
    device: &ash::Device,
    family: u32,
) -> (ash::vk::CommandPool, ash::vk::CommandBuffer, ash::vk::Fence) {
    use ash::vk;
    // SAFETY: a live device; the create infos outlive the calls.
    unsafe {
        let pool = device
            .create_command_pool(
                &vk::CommandPoolCreateInfo::default()
                    .queue_family_index(family)
                    .flags(vk::CommandPoolCreateFlags::RESET_COMMAND_BUFFER),
                None,
            )
            .unwrap();
        let cb = device
            .allocate_command_buffers(
                &vk::CommandBufferAllocateInfo::default()
                    .command_pool(pool)
                    .command_buffer_count(1),
            )
            .unwrap()[0];
        let fence = device
            .create_fence(&vk::FenceCreateInfo::default(), None)
            .unwrap();
        (pool, cb, fence)
    }
}

/// A device on `pd` with one queue of `family` and `VK_KHR_swapchain`.
fn swapchain_device(
    instance: &ash::Instance,
    pd: ash::vk::PhysicalDevice,
    family: u32,
) -> ash::Device {
    use ash::vk;
    let prio = [1.0f32];
    let q = [vk::DeviceQueueCreateInfo::default()
        .queue_family_index(family)
        .queue_priorities(&prio)];
    let names = [ash::khr::swapchain::NAME.as_ptr()];
    // SAFETY: `pd` is `instance`'s; the create info and its arrays outlive the call.
    unsafe {
        instance.create_device(
            pd,
            &vk::DeviceCreateInfo::default()
                .queue_create_infos(&q)
                .enabled_extension_names(&names),
            None,
        )
    }
    .unwrap()
}

fn x11_child(display: &str) {
    use ash::vk;
    use x11rb::protocol::xproto::ConfigureWindowAux;
    let XcbSurface {
        conn,
        win,
        _entry,
        instance,
        surface_fns,
        surface,
        pd,
        family,
    } = xcb_surface(display, 64, 48);
    // SAFETY: plain Vulkan use of live objects from here on.
    unsafe {
        let device = swapchain_device(&instance, pd, family);
        let queue = device.get_device_queue(family, 0);
        let sc_fns = ash::khr::swapchain::Device::new(&instance, &device);
        let caps = surface_fns
            .get_physical_device_surface_capabilities(pd, surface)
            .unwrap();
        assert_eq!(
            (caps.current_extent.width, caps.current_extent.height),
            (64, 48),
            "the surface has the window's size"
        );
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
            .image_usage(vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::COLOR_ATTACHMENT)
            .pre_transform(caps.current_transform)
            .composite_alpha(vk::CompositeAlphaFlagsKHR::INHERIT)
            .present_mode(vk::PresentModeKHR::FIFO)
            .clipped(true);
        let sc = sc_fns.create_swapchain(&sci, None).unwrap();
        let images = sc_fns.get_swapchain_images(sc).unwrap();
        let (pool, cb, fence) = recording_objects(&device, family);
        let done = device
            .create_semaphore(&vk::SemaphoreCreateInfo::default(), None)
            .unwrap();

        // Frame: clear to magenta-ish, present.
        let (index, _) = sc_fns
            .acquire_next_image(sc, u64::MAX, vk::Semaphore::null(), fence)
            .unwrap();
        device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        device.reset_fences(&[fence]).unwrap();
        let image = images[index as usize];
        let range = vk::ImageSubresourceRange::default()
            .aspect_mask(vk::ImageAspectFlags::COLOR)
            .level_count(1)
            .layer_count(1);
        let barrier = |old, new, src, dst| {
            vk::ImageMemoryBarrier::default()
                .old_layout(old)
                .new_layout(new)
                .src_access_mask(src)
                .dst_access_mask(dst)
                .image(image)
                .subresource_range(range)
        };
        device
            .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
            .unwrap();
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier(
                vk::ImageLayout::UNDEFINED,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::AccessFlags::empty(),
                vk::AccessFlags::TRANSFER_WRITE,
            )],
        );
        let colour = vk::ClearColorValue {
            float32: [1.0, 0.0, 1.0, 1.0],
        };
        device.cmd_clear_color_image(
            cb,
            image,
            vk::ImageLayout::TRANSFER_DST_OPTIMAL,
            &colour,
            &[range],
        );
        device.cmd_pipeline_barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            &[],
            &[],
            &[barrier(
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                vk::ImageLayout::PRESENT_SRC_KHR,
                vk::AccessFlags::TRANSFER_WRITE,
                vk::AccessFlags::empty(),
            )],
        );
        device.end_command_buffer(cb).unwrap();
        let signal = [done];
        let cbs = [cb];
        device
            .queue_submit(
                queue,
                &[vk::SubmitInfo::default()
                    .command_buffers(&cbs)
                    .signal_semaphores(&signal)],
                fence,
            )
            .unwrap();
        let scs = [sc];
        let idx = [index];
        sc_fns
            .queue_present(
                queue,
                &vk::PresentInfoKHR::default()
                    .wait_semaphores(&signal)
                    .swapchains(&scs)
                    .image_indices(&idx),
            )
            .unwrap();
        device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
        device.reset_fences(&[fence]).unwrap();

        // The window shows it, every pixel.
        let deadline = Instant::now() + Duration::from_secs(10);
        let pixels = loop {
            std::thread::sleep(Duration::from_millis(50));
            let img = conn
                .get_image(ImageFormat::Z_PIXMAP, win, 0, 0, 64, 48, !0)
                .unwrap()
                .reply()
                .unwrap();
            let rgb: Vec<[u8; 3]> = img
                .data
                .chunks_exact(4)
                .map(|p| [p[2], p[1], p[0]])
                .collect();
            if rgb.iter().all(|p| *p == [255, 0, 255]) || Instant::now() > deadline {
                break rgb;
            }
        };
        let wrong = pixels.iter().filter(|p| **p != [255, 0, 255]).count();
        assert_eq!(wrong, 0, "{wrong} of {} window pixels differ", pixels.len());

        // Resize: the swapchain no longer matches the window.
        conn.configure_window(win, &ConfigureWindowAux::new().width(100).height(80))
            .unwrap();
        conn.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let resized = loop {
            std::thread::sleep(Duration::from_millis(50));
            let caps = surface_fns
                .get_physical_device_surface_capabilities(pd, surface)
                .unwrap();
            if caps.current_extent.width == 100 || Instant::now() > deadline {
                break caps.current_extent;
            }
        };
        assert_eq!((resized.width, resized.height), (100, 80));
        let r = match sc_fns.acquire_next_image(sc, u64::MAX, vk::Semaphore::null(), fence) {
            Ok((i, suboptimal)) => {
                device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
                device.reset_fences(&[fence]).unwrap();
                let idx = [i];
                match sc_fns.queue_present(
                    queue,
                    &vk::PresentInfoKHR::default()
                        .swapchains(&scs)
                        .image_indices(&idx),
                ) {
                    Ok(true) => vk::Result::SUBOPTIMAL_KHR,
                    Ok(false) if suboptimal => vk::Result::SUBOPTIMAL_KHR,
                    Ok(false) => vk::Result::SUCCESS,
                    Err(e) => e,
                }
            }
            Err(e) => e,
        };
        assert!(
            r == vk::Result::SUBOPTIMAL_KHR || r == vk::Result::ERROR_OUT_OF_DATE_KHR,
            "after a resize: {r:?}"
        );

        // Close: the surface is lost.
        conn.destroy_window(win).unwrap();
        conn.flush().unwrap();
        let deadline = Instant::now() + Duration::from_secs(10);
        let lost = loop {
            std::thread::sleep(Duration::from_millis(50));
            let r = surface_fns.get_physical_device_surface_capabilities(pd, surface);
            if r.is_err() || Instant::now() > deadline {
                break r.err();
            }
        };
        assert!(
            matches!(
                lost,
                Some(vk::Result::ERROR_SURFACE_LOST_KHR | vk::Result::ERROR_OUT_OF_DATE_KHR)
            ),
            "after the window closed: {lost:?}"
        );
        sc_fns.destroy_swapchain(sc, None);
        device.destroy_semaphore(done, None);
        device.destroy_fence(fence, None);
        device.destroy_command_pool(pool, None);
        device.destroy_device(None);
        surface_fns.destroy_surface(surface, None);
    }
}

/// Desktop surfaces answer as desktop WSI does (issue 24): capabilities include
/// `VK_COMPOSITE_ALPHA_OPAQUE_BIT_KHR`, the formats are exactly 8-bit BGRA and RGBA, UNORM and
/// SRGB (no 10-bit or FP16 format the presenter would round to 8 bits), and a BGRA8 or RGBA8
/// swapchain created with OPAQUE presents its colours exactly: each is cleared to a colour with
/// distinct red, green and blue, and the window read back from the X server must show exactly
/// that colour (BGRA mapped to RGBA would swap red and blue). On `vulkan.host.so` (HAL).
#[test]
fn x11_bgra_and_rgba_opaque_swapchains_present_exact_colours() {
    x11_colours_on(
        "x11_bgra_and_rgba_opaque_swapchains_present_exact_colours",
        Stack::OursHal,
    );
}

/// The same with lavapipe as a Khronos ICD, served through the native-buffer adapter.
#[test]
fn x11_bgra_and_rgba_opaque_swapchains_present_exact_colours_through_the_adapter() {
    x11_colours_on(
        "x11_bgra_and_rgba_opaque_swapchains_present_exact_colours_through_the_adapter",
        Stack::OursIcd,
    );
}

/// Runs [`x11_colours_child`] in a child on `stack` (its loader log must show that path).
fn x11_colours_on(scenario: &str, stack: Stack) {
    if vkgen_tests::env::child_scenario().is_some() {
        x11_colours_child(&std::env::var("DISPLAY").unwrap());
        println!("\n{} {scenario}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let (env, _root) = match stack {
        Stack::OursHal => wsi_support::hal_env("host", ""),
        _ => {
            // An empty Android root: no HAL module, so the ICD is used.
            let root = require(vkgen_tests::validation::empty_dir());
            let env = require(paths::lavapipe_env()).set("VKGEN_HAL_ROOT", root.path());
            (env, root)
        }
    };
    let env = env.set("DISPLAY", &xvfb.display).set("VKGEN_LOG", "info");
    let out = vkgen_tests::env::run_child(scenario, &env);
    require(vkgen_tests::env::check_child(scenario, &out));
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(stack.log_marker()),
        "{scenario}: the loader did not take the {stack:?} path:\n{stderr}"
    );
}

fn x11_colours_child(display: &str) {
    use ash::vk;
    const W: u16 = 40;
    const H: u16 = 30;
    let XcbSurface {
        conn,
        win,
        _entry,
        instance,
        surface_fns,
        surface,
        pd,
        family,
    } = xcb_surface(display, W, H);
    // SAFETY: plain Vulkan use of live objects from here on.
    unsafe {
        let caps = surface_fns
            .get_physical_device_surface_capabilities(pd, surface)
            .unwrap();
        assert!(
            caps.supported_composite_alpha
                .contains(vk::CompositeAlphaFlagsKHR::OPAQUE),
            "desktop surfaces offer OPAQUE: {:?}",
            caps.supported_composite_alpha
        );
        let formats = surface_fns
            .get_physical_device_surface_formats(pd, surface)
            .unwrap();
        let srgb = vk::ColorSpaceKHR::SRGB_NONLINEAR;
        let expected: Vec<_> = [
            vk::Format::B8G8R8A8_SRGB,
            vk::Format::B8G8R8A8_UNORM,
            vk::Format::R8G8B8A8_SRGB,
            vk::Format::R8G8B8A8_UNORM,
        ]
        .map(|format| vk::SurfaceFormatKHR {
            format,
            color_space: srgb,
        })
        .to_vec();
        assert_eq!(formats, expected, "desktop surface formats");

        let device = swapchain_device(&instance, pd, family);
        let queue = device.get_device_queue(family, 0);
        let sc_fns = ash::khr::swapchain::Device::new(&instance, &device);
        let (pool, cb, fence) = recording_objects(&device, family);
        // (format, clear colour, what the window must show as RGB): UNORM values that are
        // exact in 8 bits; SRGB with 0 and 1 only (exact through the sRGB encode).
        let cases = [
            (vk::Format::B8G8R8A8_UNORM, [1.0, 0.2, 0.0], [255, 51, 0]),
            (vk::Format::R8G8B8A8_UNORM, [0.0, 0.2, 1.0], [0, 51, 255]),
            (vk::Format::B8G8R8A8_SRGB, [0.0, 1.0, 1.0], [0, 255, 255]),
            (vk::Format::R8G8B8A8_SRGB, [1.0, 1.0, 0.0], [255, 255, 0]),
        ];
        for (format, clear, want) in cases {
            let sci = vk::SwapchainCreateInfoKHR::default()
                .surface(surface)
                .min_image_count(caps.min_image_count)
                .image_format(format)
                .image_color_space(srgb)
                .image_extent(caps.current_extent)
                .image_array_layers(1)
                .image_usage(
                    vk::ImageUsageFlags::TRANSFER_DST | vk::ImageUsageFlags::COLOR_ATTACHMENT,
                )
                .pre_transform(caps.current_transform)
                .composite_alpha(vk::CompositeAlphaFlagsKHR::OPAQUE)
                .present_mode(vk::PresentModeKHR::FIFO)
                .clipped(true);
            let sc = sc_fns.create_swapchain(&sci, None).unwrap();
            let images = sc_fns.get_swapchain_images(sc).unwrap();
            let (index, _) = sc_fns
                .acquire_next_image(sc, u64::MAX, vk::Semaphore::null(), fence)
                .unwrap();
            device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            device.reset_fences(&[fence]).unwrap();
            let range = vk::ImageSubresourceRange::default()
                .aspect_mask(vk::ImageAspectFlags::COLOR)
                .level_count(1)
                .layer_count(1);
            let barrier = |old, new, src, dst| {
                vk::ImageMemoryBarrier::default()
                    .old_layout(old)
                    .new_layout(new)
                    .src_access_mask(src)
                    .dst_access_mask(dst)
                    .image(images[index as usize])
                    .subresource_range(range)
            };
            device
                .begin_command_buffer(cb, &vk::CommandBufferBeginInfo::default())
                .unwrap();
            device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TOP_OF_PIPE,
                vk::PipelineStageFlags::TRANSFER,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::UNDEFINED,
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::AccessFlags::empty(),
                    vk::AccessFlags::TRANSFER_WRITE,
                )],
            );
            device.cmd_clear_color_image(
                cb,
                images[index as usize],
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                &vk::ClearColorValue {
                    float32: [clear[0], clear[1], clear[2], 1.0],
                },
                &[range],
            );
            device.cmd_pipeline_barrier(
                cb,
                vk::PipelineStageFlags::TRANSFER,
                vk::PipelineStageFlags::BOTTOM_OF_PIPE,
                vk::DependencyFlags::empty(),
                &[],
                &[],
                &[barrier(
                    vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                    vk::ImageLayout::PRESENT_SRC_KHR,
                    vk::AccessFlags::TRANSFER_WRITE,
                    vk::AccessFlags::empty(),
                )],
            );
            device.end_command_buffer(cb).unwrap();
            let cbs = [cb];
            device
                .queue_submit(
                    queue,
                    &[vk::SubmitInfo::default().command_buffers(&cbs)],
                    fence,
                )
                .unwrap();
            device.wait_for_fences(&[fence], true, u64::MAX).unwrap();
            device.reset_fences(&[fence]).unwrap();
            let scs = [sc];
            let idx = [index];
            sc_fns
                .queue_present(
                    queue,
                    &vk::PresentInfoKHR::default()
                        .swapchains(&scs)
                        .image_indices(&idx),
                )
                .unwrap();
            let deadline = Instant::now() + Duration::from_secs(10);
            let pixels = loop {
                std::thread::sleep(Duration::from_millis(50));
                let img = conn
                    .get_image(ImageFormat::Z_PIXMAP, win, 0, 0, W, H, !0)
                    .unwrap()
                    .reply()
                    .unwrap();
                // Xvfb's 24-bit TrueColor is BGRX in memory.
                let rgb: Vec<[u8; 3]> = img
                    .data
                    .chunks_exact(4)
                    .map(|p| [p[2], p[1], p[0]])
                    .collect();
                if rgb.iter().all(|p| *p == want) || Instant::now() > deadline {
                    break rgb;
                }
            };
            let wrong: Vec<_> = pixels.iter().filter(|p| **p != want).collect();
            assert!(
                wrong.is_empty(),
                "{format:?}: {} of {} window pixels are not {want:?}, e.g. {:?}",
                wrong.len(),
                pixels.len(),
                wrong[0]
            );
            device.queue_wait_idle(queue).unwrap();
            sc_fns.destroy_swapchain(sc, None);
        }
        device.destroy_fence(fence, None);
        device.destroy_command_pool(pool, None);
        device.destroy_device(None);
        surface_fns.destroy_surface(surface, None);
    }
}

/// The X11 presenter's two paths show the same pixels: under Xvfb (a local socket, MIT-SHM 1.2)
/// frames go through a shared-memory segment and `ShmPutImage`; `VKGEN_X11_SHM=0` forces core
/// `PutImage`. Each run presents two different test patterns and then, after the window grew
/// and the swapchain was recreated at the new size (a larger segment), a third; each must reach
/// the window byte for byte (read back with `GetImage`). `VKGEN_LOG=info` names the path taken.
#[test]
fn x11_shm_and_put_image_show_the_same_pixels() {
    const SCENARIO: &str = "x11_shm_and_put_image_show_the_same_pixels";
    if vkgen_tests::env::child_scenario().is_some() {
        x11_pattern_child(&std::env::var("DISPLAY").unwrap());
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let (env, _root) = wsi_support::hal_env("host", "");
    let env = env.set("DISPLAY", &xvfb.display).set("VKGEN_LOG", "info");
    for (force_put_image, expected) in [
        (false, "presented by the X11 MIT-SHM presenter"),
        (true, "presented by the X11 PutImage presenter"),
    ] {
        let env = if force_put_image {
            env.clone().set("VKGEN_X11_SHM", "0")
        } else {
            env.clone()
        };
        let out = vkgen_tests::env::run_child(SCENARIO, &env);
        require(vkgen_tests::env::check_child(SCENARIO, &out));
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            stderr.contains(expected),
            "VKGEN_X11_SHM={}: the log does not say {expected:?}:\n{stderr}",
            if force_put_image { "0" } else { "(unset)" }
        );
    }
}

fn x11_pattern_child(display: &str) {
    use ash::vk;
    use x11rb::protocol::xproto::{ConfigureWindowAux, CreateWindowAux, WindowClass};
    let (conn, screen) = x11rb::connect(Some(display)).unwrap();
    let scr = &conn.setup().roots[screen];
    let win = conn.generate_id().unwrap();
    conn.create_window(
        scr.root_depth,
        win,
        scr.root,
        0,
        0,
        320,
        240,
        0,
        WindowClass::INPUT_OUTPUT,
        scr.root_visual,
        &CreateWindowAux::new().background_pixel(scr.black_pixel),
    )
    .unwrap();
    conn.map_window(win).unwrap();
    conn.flush().unwrap();

    let loader = require(paths::loader_under_test());
    let entry = require(vkgen_tests::compute::load_entry(&loader));
    let instance = vkgen_tests::compute::create_instance(
        &entry,
        &[],
        &[ash::khr::surface::NAME, ash::khr::xcb_surface::NAME],
    )
    .unwrap();
    let xcb = ash::khr::xcb_surface::Instance::new(&entry, &instance);
    let info = vk::XcbSurfaceCreateInfoKHR::default().window(win);
    // SAFETY: a live instance and a valid create info.
    let surface = unsafe { xcb.create_xcb_surface(&info, None) }.unwrap();
    let mut rig = desktop_support::Rig::new(entry, instance, surface);

    // The window's pixels as RGBA, once they equal `want` (or after 10 s).
    let window_shows = |w: u16, h: u16, want: &[u8]| {
        let deadline = Instant::now() + Duration::from_secs(10);
        loop {
            std::thread::sleep(Duration::from_millis(30));
            let img = conn
                .get_image(ImageFormat::Z_PIXMAP, win, 0, 0, w, h, !0)
                .unwrap()
                .reply()
                .unwrap();
            let rgba: Vec<u8> = img
                .data
                .chunks_exact(4)
                .flat_map(|p| [p[2], p[1], p[0], 0xff])
                .collect();
            if rgba == want || Instant::now() > deadline {
                let wrong = rgba
                    .chunks_exact(4)
                    .zip(want.chunks_exact(4))
                    .filter(|(a, b)| a != b)
                    .count();
                assert_eq!(wrong, 0, "{wrong} of {} window pixels differ", w * h);
                return;
            }
        }
    };

    let extent = rig.caps().unwrap().current_extent;
    assert_eq!((extent.width, extent.height), (320, 240));
    rig.create_swapchain(extent, vk::PresentModeKHR::FIFO);
    for seed in [0, 77] {
        let frame = desktop_support::pattern(320, 240, seed);
        assert_eq!(rig.present_rgba(&frame), Ok(false));
        window_shows(320, 240, &frame);
    }

    conn.configure_window(win, &ConfigureWindowAux::new().width(400).height(300))
        .unwrap();
    conn.flush().unwrap();
    let deadline = Instant::now() + Duration::from_secs(10);
    let extent = loop {
        std::thread::sleep(Duration::from_millis(30));
        let e = rig.caps().unwrap().current_extent;
        if e.width == 400 || Instant::now() > deadline {
            break e;
        }
    };
    assert_eq!((extent.width, extent.height), (400, 300));
    rig.create_swapchain(extent, vk::PresentModeKHR::FIFO);
    let frame = desktop_support::pattern(400, 300, 200);
    assert_eq!(rig.present_rgba(&frame), Ok(false));
    window_shows(400, 300, &frame);

    // IMMEDIATE, offered on desktop surfaces only: frames are shown as they are queued, so 60
    // presents take less than the 60 refreshes FIFO needs for them.
    // SAFETY: live physical device and surface.
    let modes = unsafe {
        rig.surface_fns
            .get_physical_device_surface_present_modes(rig.pd, rig.surface)
    }
    .unwrap();
    assert!(
        modes.contains(&vk::PresentModeKHR::IMMEDIATE),
        "IMMEDIATE not offered on an X11 surface: {modes:?}"
    );
    rig.create_swapchain(extent, vk::PresentModeKHR::IMMEDIATE);
    let frames: Vec<Vec<u8>> = (0..3)
        .map(|i| desktop_support::pattern(400, 300, 10 + i))
        .collect();
    let started = Instant::now();
    for i in 0..60 {
        assert_eq!(rig.present_rgba(&frames[i % 3]), Ok(false));
    }
    let took = started.elapsed();
    eprintln!("60 IMMEDIATE presents in {took:?}");
    assert!(
        took < Duration::from_millis(950),
        "60 IMMEDIATE presents took {took:?}: paced like FIFO"
    );
    window_shows(400, 300, &frames[59 % 3]);
}

/// zink (Mesa's OpenGL on Vulkan) through our loader and `vulkan.host.so` under Xvfb:
/// `glxinfo -B` names the zink renderer, and `glxgears` renders frames for a few seconds; the
/// dynamic linker's log shows our `libvulkan.so` was the Vulkan loader zink opened.
#[test]
fn zink_glxinfo_and_glxgears_through_our_loader() {
    zink_under_xvfb(Stack::OursHal);
}

/// The same with lavapipe as a Khronos ICD (served through the native-buffer adapter).
#[test]
fn zink_glxinfo_and_glxgears_through_our_loader_and_lavapipe_as_an_icd() {
    zink_under_xvfb(Stack::OursIcd);
}

fn zink_under_xvfb(path: Stack) {
    let (Some(glxinfo), Some(glxgears)) = (which("glxinfo"), which("glxgears")) else {
        eprintln!("SKIPPED: glxinfo/glxgears (Debian mesa-utils) are not installed");
        return;
    };
    let Some(xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let client = ClientEnv::new(path);
    let zink = vkgen_tests::env::Env::new()
        .set("DISPLAY", &xvfb.display)
        .set("LIBGL_ALWAYS_SOFTWARE", "1")
        .set("GALLIUM_DRIVER", "zink");
    // glxinfo under the linker's log: our loader and the path's driver were initialised.
    let mut cmd = client.command(&glxinfo, &zink);
    cmd.arg("-B");
    let (out, _) = client.run("glxinfo -B", cmd, Duration::from_secs(60));
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains("OpenGL renderer string: zink (llvmpipe"),
        "not zink on lavapipe:\n{stdout}"
    );

    // glxgears runs until killed; it reports frames every 5 s.
    let gears_log = client.work_dir().join("ld-glxgears");
    let mut cmd = client.command(&glxgears, &zink);
    cmd.env("LD_DEBUG", "libs")
        .env("LD_DEBUG_OUTPUT", &gears_log)
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().unwrap();
    std::thread::sleep(Duration::from_millis(6500));
    let _ = child.kill();
    let out = child.wait_with_output().unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        stdout.contains(" frames in "),
        "glxgears drew no frames:\n{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    let ours = format!(
        "calling init: {}",
        client.shim().unwrap().join("libvulkan.so.1").display()
    );
    let loaded_ours = std::fs::read_dir(client.work_dir())
        .unwrap()
        .flatten()
        .filter(|e| e.file_name().to_string_lossy().starts_with("ld-glxgears"))
        .any(|e| {
            std::fs::read_to_string(e.path())
                .unwrap_or_default()
                .contains(&ours)
        });
    assert!(loaded_ours, "zink did not open our libvulkan.so");
}
