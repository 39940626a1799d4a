//! Wayland surfaces through the Android WSI path on Linux hosts (issue 12): under a headless
//! Weston (pixman renderer), the test is a Wayland client with an `xdg_toplevel`; its
//! `wl_display*` and `wl_surface*` become a `VkSurfaceKHR` through our `libvulkan.so` with
//! lavapipe behind `vulkan.host.so` (HAL), and the loader's presenter attaches the swapchain's
//! frames to the surface as `wl_shm` buffers. The compositor's own pixels are read back with
//! `weston-screenshooter` (Weston runs with `--debug`, which allows it).
//!
//! Debian's unmodified `vkcube-wayland` runs there through our loader too, on both paths:
//! `vulkan.host.so` as the HAL module, and lavapipe as a Khronos ICD served through the
//! loader's native-buffer adapter.
//!
//! Skips loudly (a message, no failure) only when Weston (Debian weston) or vkcube-wayland
//! (Debian vulkan-tools) is not installed.

mod client_support;
mod desktop_support;
mod wsi_support;

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};
use std::time::{Duration, Instant};

use client_support::{ClientEnv, Stack};
use vkgen_tests::{paths, require};

/// A headless Weston on its own socket in its own `XDG_RUNTIME_DIR`, killed on drop.
struct Weston {
    child: Child,
    runtime_dir: tempfile::TempDir,
    socket: String,
}

impl Weston {
    fn start() -> Option<Weston> {
        use std::os::unix::fs::PermissionsExt as _;
        let bin = which("weston")?;
        which("weston-screenshooter")?;
        let runtime_dir = tempfile::tempdir().ok()?;
        std::fs::set_permissions(runtime_dir.path(), std::fs::Permissions::from_mode(0o700))
            .ok()?;
        let socket = format!("vkgen-test-{}", std::process::id());
        let log = std::fs::File::create(runtime_dir.path().join("weston.log")).ok()?;
        let child = Command::new(bin)
            .args([
                "--backend=headless-backend.so",
                "--use-pixman",
                "--width=640",
                "--height=480",
                "--idle-time=0",
                "--debug",
                &format!("--socket={socket}"),
            ])
            .env("XDG_RUNTIME_DIR", runtime_dir.path())
            .env_remove("WAYLAND_DISPLAY")
            .env_remove("DISPLAY")
            .stdout(Stdio::null())
            .stderr(log)
            .spawn()
            .ok()?;
        let mut weston = Weston {
            child,
            runtime_dir,
            socket,
        };
        let deadline = Instant::now() + Duration::from_secs(20);
        while !weston.runtime_dir.path().join(&weston.socket).exists() {
            if Instant::now() > deadline || weston.child.try_wait().ok()?.is_some() {
                eprintln!("weston did not start:\n{}", weston.log());
                return None;
            }
            std::thread::sleep(Duration::from_millis(50));
        }
        Some(weston)
    }

    fn log(&self) -> String {
        std::fs::read_to_string(self.runtime_dir.path().join("weston.log")).unwrap_or_default()
    }
}

impl Drop for Weston {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// A swapchain on a `wl_surface` through our loader and `vulkan.host.so`: the surface reports
/// Wayland's undefined extent and presentation support; a frame reaches the compositor's output
/// pixel for pixel; 60 FIFO presents succeed, paced by the compositor's frame callbacks (not
/// faster than its refresh, not at the presenter's no-callback fallback); a swapchain recreated
/// at another size shows that size's frame; MAILBOX shows the last frame; a surface the
/// compositor never shows (no frame callbacks) does not block FIFO presents for ever.
#[test]
fn wayland_swapchain_pixels_pacing_and_resize_under_weston() {
    const SCENARIO: &str = "wayland_swapchain_pixels_pacing_and_resize_under_weston";
    if vkgen_tests::env::child_scenario().is_some() {
        wayland_child();
        println!("\n{} {SCENARIO}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(weston) = Weston::start() else {
        eprintln!("SKIPPED: weston (Debian weston) is not installed or could not be started");
        return;
    };
    let (env, _root) = wsi_support::hal_env("host", "");
    let env = env
        .set("XDG_RUNTIME_DIR", weston.runtime_dir.path())
        .set("WAYLAND_DISPLAY", &weston.socket)
        .set("VKGEN_LOG", "info");
    let out = vkgen_tests::env::run_child(SCENARIO, &env);
    if let Err(e) = vkgen_tests::env::check_child(SCENARIO, &out) {
        panic!("{e}\n--- weston log ---\n{}", weston.log());
    }
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("presented by the Wayland wl_shm presenter"),
        "VKGEN_LOG does not name the presenter:\n{stderr}"
    );
}

/// Debian's `vkcube-wayland` through our `libvulkan.so` and `vulkan.host.so` under headless
/// Weston: it runs to completion, the loader's Wayland presenter serves it, and the compositor's
/// output shows the cube (many colours) while it runs.
#[test]
fn vkcube_wayland_presents_through_our_loader_under_weston() {
    vkcube_wayland(Stack::OursHal);
}

/// The same with lavapipe as a Khronos ICD (served through the loader's native-buffer adapter).
#[test]
fn vkcube_wayland_presents_through_our_loader_and_lavapipe_as_an_icd() {
    vkcube_wayland(Stack::OursIcd);
}

fn vkcube_wayland(path: Stack) {
    let Some(vkcube) = which("vkcube-wayland") else {
        eprintln!("SKIPPED: vkcube-wayland (Debian vulkan-tools) is not installed");
        return;
    };
    let Some(weston) = Weston::start() else {
        eprintln!("SKIPPED: weston (Debian weston) is not installed or could not be started");
        return;
    };
    let client = ClientEnv::new(path);
    let mut cmd = client.command(&vkcube, &vkgen_tests::env::Env::new());
    cmd.args(["--c", "300"])
        .env("XDG_RUNTIME_DIR", weston.runtime_dir.path())
        .env("WAYLAND_DISPLAY", &weston.socket)
        .env("VKGEN_LOG", "info")
        .stdout(Stdio::piped())
        .stderr(Stdio::piped());
    let mut child = cmd.spawn().expect("start vkcube-wayland");
    let started = Instant::now();
    let mut colours = 0;
    while started.elapsed() < Duration::from_secs(60) && colours <= 50 {
        std::thread::sleep(Duration::from_millis(300));
        if child.try_wait().unwrap().is_some() {
            break;
        }
        colours = distinct_colours(&screenshot(weston.runtime_dir.path(), &weston.socket).2);
    }
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success(),
        "vkcube-wayland failed ({}):\n{}\n{stderr}\n--- weston log ---\n{}",
        out.status,
        String::from_utf8_lossy(&out.stdout),
        weston.log()
    );
    assert!(
        stderr.contains(path.log_marker()),
        "VKGEN_LOG does not show the {path:?} path:\n{stderr}"
    );
    assert!(
        stderr.contains("presented by the Wayland wl_shm presenter"),
        "VKGEN_LOG does not name the presenter:\n{stderr}"
    );
    assert!(
        colours > 50,
        "no screenshot showed the cube ({colours} colours)"
    );
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

mod client {
    //! The test's Wayland client state: `xdg_wm_base` pings answered, configures acknowledged.

    use wayland_client::globals::GlobalListContents;
    use wayland_client::protocol::{wl_compositor, wl_registry, wl_surface};
    use wayland_client::{Connection, Dispatch, QueueHandle};
    use wayland_protocols::xdg::shell::client::{xdg_surface, xdg_toplevel, xdg_wm_base};

    #[derive(Default)]
    pub struct App {
        pub configured: bool,
    }

    impl Dispatch<wl_registry::WlRegistry, GlobalListContents> for App {
        fn event(
            _: &mut Self,
            _: &wl_registry::WlRegistry,
            _: wl_registry::Event,
            _: &GlobalListContents,
            _: &Connection,
            _: &QueueHandle<Self>,
        ) {
        }
    }

    wayland_client::delegate_noop!(App: ignore wl_compositor::WlCompositor);
    wayland_client::delegate_noop!(App: ignore wl_surface::WlSurface);
    wayland_client::delegate_noop!(App: ignore xdg_toplevel::XdgToplevel);

    impl Dispatch<xdg_wm_base::XdgWmBase, ()> for App {
        fn event(
            _: &mut Self,
            wm: &xdg_wm_base::XdgWmBase,
            event: xdg_wm_base::Event,
            _: &(),
            _: &Connection,
            _: &QueueHandle<Self>,
        ) {
            if let xdg_wm_base::Event::Ping { serial } = event {
                wm.pong(serial);
            }
        }
    }

    impl Dispatch<xdg_surface::XdgSurface, ()> for App {
        fn event(
            app: &mut Self,
            surface: &xdg_surface::XdgSurface,
            event: xdg_surface::Event,
            _: &(),
            _: &Connection,
            _: &QueueHandle<Self>,
        ) {
            if let xdg_surface::Event::Configure { serial } = event {
                surface.ack_configure(serial);
                app.configured = true;
            }
        }
    }
}

/// The output of the compositor at `runtime_dir`/`socket` as RGBA (`weston-screenshooter`
/// writes a PNG into its working directory).
fn screenshot(runtime_dir: &Path, socket: &str) -> (u32, u32, Vec<u8>) {
    let dir = tempfile::tempdir().unwrap();
    let out = Command::new("weston-screenshooter")
        .current_dir(dir.path())
        .env("XDG_RUNTIME_DIR", runtime_dir)
        .env("WAYLAND_DISPLAY", socket)
        .output()
        .expect("run weston-screenshooter");
    assert!(
        out.status.success(),
        "weston-screenshooter: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    let png = std::fs::read_dir(dir.path())
        .unwrap()
        .flatten()
        .map(|e| e.path())
        .find(|p| p.extension().is_some_and(|e| e == "png"))
        .expect("weston-screenshooter wrote no PNG");
    let decoder = png::Decoder::new(std::io::BufReader::new(std::fs::File::open(png).unwrap()));
    let mut reader = decoder.read_info().unwrap();
    let mut buf = vec![0; reader.output_buffer_size()];
    let info = reader.next_frame(&mut buf).unwrap();
    let channels = match info.color_type {
        png::ColorType::Rgba => 4,
        png::ColorType::Rgb => 3,
        other => panic!("screenshot colour type {other:?}"),
    };
    let rgba = buf[..info.buffer_size()]
        .chunks_exact(channels)
        .flat_map(|p| [p[0], p[1], p[2], 0xff])
        .collect();
    (info.width, info.height, rgba)
}

/// Whether the `w`×`h` RGBA `frame` appears, byte for byte, somewhere in the screenshot.
fn shows(shot: &(u32, u32, Vec<u8>), w: u32, h: u32, frame: &[u8]) -> bool {
    let (sw, sh, pixels) = shot;
    let px = |x: u32, y: u32| &pixels[((y * sw + x) * 4) as usize..][..4];
    let row = (w * 4) as usize;
    for y0 in 0..sh.saturating_sub(h - 1) {
        for x0 in 0..sw.saturating_sub(w - 1) {
            if px(x0, y0) != &frame[..4] {
                continue;
            }
            let all = (0..h).all(|y| {
                let start = ((y0 + y) * sw + x0) as usize * 4;
                pixels[start..start + row] == frame[y as usize * row..][..row]
            });
            if all {
                return true;
            }
        }
    }
    false
}

/// Takes screenshots until `frame` is among the output's pixels (10 s at most).
fn assert_shown(w: u32, h: u32, frame: &[u8], what: &str) {
    let deadline = Instant::now() + Duration::from_secs(10);
    loop {
        std::thread::sleep(Duration::from_millis(100));
        let runtime_dir = std::env::var_os("XDG_RUNTIME_DIR").expect("XDG_RUNTIME_DIR");
        let socket = std::env::var("WAYLAND_DISPLAY").expect("WAYLAND_DISPLAY");
        let shot = screenshot(Path::new(&runtime_dir), &socket);
        if shows(&shot, w, h, frame) {
            return;
        }
        if Instant::now() > deadline {
            let path = std::env::temp_dir().join(format!("vkgen-wayland-{what}.png"));
            let file = std::fs::File::create(&path).unwrap();
            let mut enc = png::Encoder::new(std::io::BufWriter::new(file), shot.0, shot.1);
            enc.set_color(png::ColorType::Rgba);
            enc.set_depth(png::BitDepth::Eight);
            enc.write_header()
                .unwrap()
                .write_image_data(&shot.2)
                .unwrap();
            panic!(
                "{what}: the {w}x{h} frame is not on the compositor's output (screenshot: {})",
                path.display()
            );
        }
    }
}

fn wayland_child() {
    use ash::vk;
    use wayland_client::globals::registry_queue_init;
    use wayland_client::protocol::wl_compositor::WlCompositor;
    use wayland_client::{Connection, Proxy};
    use wayland_protocols::xdg::shell::client::xdg_wm_base::XdgWmBase;

    let conn = Connection::connect_to_env().expect("connect to weston");
    let (globals, mut queue) = registry_queue_init::<client::App>(&conn).unwrap();
    let qh = queue.handle();
    let compositor: WlCompositor = globals.bind(&qh, 4..=5, ()).unwrap();
    let wm: XdgWmBase = globals.bind(&qh, 1..=1, ()).unwrap();
    let wl_surface = compositor.create_surface(&qh, ());
    let xdg_surface = wm.get_xdg_surface(&wl_surface, &qh, ());
    let toplevel = xdg_surface.get_toplevel(&qh, ());
    toplevel.set_title("vkgen wayland test".into());
    wl_surface.commit();
    let mut app = client::App::default();
    while !app.configured {
        queue.blocking_dispatch(&mut app).unwrap();
    }

    let loader = require(paths::loader_under_test());
    let entry = require(vkgen_tests::compute::load_entry(&loader));
    let instance = vkgen_tests::compute::create_instance(
        &entry,
        &[],
        &[ash::khr::surface::NAME, ash::khr::wayland_surface::NAME],
    )
    .unwrap();
    let wl = ash::khr::wayland_surface::Instance::new(&entry, &instance);
    let display = conn.backend().display_ptr();
    let info = vk::WaylandSurfaceCreateInfoKHR::default()
        .display(display.cast())
        .surface(wl_surface.id().as_ptr().cast());
    // SAFETY: a live instance; the display and surface outlive the VkSurfaceKHR (the rig is
    // dropped first).
    let surface = unsafe { wl.create_wayland_surface(&info, None) }.unwrap();
    let (pd, family) = require(vkgen_tests::compute::pick_compute_device(&instance));
    // SAFETY: a live display.
    let supported = unsafe {
        wl.get_physical_device_wayland_presentation_support(pd, family, &mut *display.cast())
    };
    assert!(
        supported,
        "vkGetPhysicalDeviceWaylandPresentationSupportKHR"
    );
    let mut rig = desktop_support::Rig::new(entry, instance, surface);

    let caps = rig.caps().unwrap();
    assert_eq!(
        (caps.current_extent.width, caps.current_extent.height),
        (u32::MAX, u32::MAX),
        "Wayland: the swapchain decides the size"
    );
    assert!(caps.max_image_extent.width >= 640 && caps.min_image_extent.width <= 1);

    // A frame, shown byte for byte.
    let (w, h) = (240, 180);
    rig.create_swapchain(
        vk::Extent2D::default().width(w).height(h),
        vk::PresentModeKHR::FIFO,
    );
    let first = desktop_support::pattern(w, h, 0);
    assert_eq!(rig.present_rgba(&first), Ok(false));
    queue.dispatch_pending(&mut app).unwrap();
    assert_shown(w, h, &first, "first-frame");

    // 60 FIFO frames, paced by frame callbacks: no faster than a 60 Hz output allows (the
    // first few fill the swapchain's buffers without waiting), and far faster than the
    // presenter's no-callback fallback (250 ms a frame) would be.
    let frames: Vec<Vec<u8>> = (0..4u8)
        .map(|i| desktop_support::pattern(w, h, 10 + i))
        .collect();
    let start = Instant::now();
    for i in 0..60 {
        assert_eq!(rig.present_rgba(&frames[i % 4]), Ok(false), "frame {i}");
        queue.dispatch_pending(&mut app).unwrap();
    }
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(700),
        "60 FIFO frames in {took:?}: not paced"
    );
    assert!(
        took < Duration::from_secs(6),
        "60 FIFO frames in {took:?}: frame callbacks did not pace them"
    );
    assert_shown(w, h, &frames[59 % 4], "after-60-frames");

    // Resize: a swapchain at another extent; the surface takes its size. (Smaller: the window
    // stays where the shell placed it, at random, so a larger one could leave the output.)
    let (w, h) = (160, 120);
    rig.create_swapchain(
        vk::Extent2D::default().width(w).height(h),
        vk::PresentModeKHR::FIFO,
    );
    let resized = desktop_support::pattern(w, h, 99);
    assert_eq!(rig.present_rgba(&resized), Ok(false));
    queue.dispatch_pending(&mut app).unwrap();
    assert_shown(w, h, &resized, "resized");
    let caps = rig.caps().unwrap();
    assert_eq!(caps.current_extent.width, u32::MAX, "still undefined");

    // MAILBOX on the same surface: presents never wait for the compositor.
    rig.create_swapchain(
        vk::Extent2D::default().width(w).height(h),
        vk::PresentModeKHR::MAILBOX,
    );
    for i in 0..10u8 {
        let frame = desktop_support::pattern(w, h, 200 + i);
        assert_eq!(rig.present_rgba(&frame), Ok(false));
    }
    assert_shown(w, h, &desktop_support::pattern(w, h, 209), "mailbox-last");

    drop(rig);
    toplevel.destroy();
    xdg_surface.destroy();
    wl_surface.destroy();
    conn.roundtrip().unwrap();

    // A surface the compositor never shows (no role, so no frame callbacks): FIFO presents go
    // on at the presenter's fallback pace instead of blocking the application for ever.
    let hidden = compositor.create_surface(&qh, ());
    let entry = require(vkgen_tests::compute::load_entry(&loader));
    let instance = vkgen_tests::compute::create_instance(
        &entry,
        &[],
        &[ash::khr::surface::NAME, ash::khr::wayland_surface::NAME],
    )
    .unwrap();
    let wl = ash::khr::wayland_surface::Instance::new(&entry, &instance);
    let info = vk::WaylandSurfaceCreateInfoKHR::default()
        .display(display.cast())
        .surface(hidden.id().as_ptr().cast());
    // SAFETY: a live instance with VK_KHR_wayland_surface and a live wl_display/wl_surface.
    let surface = unsafe { wl.create_wayland_surface(&info, None) }.unwrap();
    let mut rig = desktop_support::Rig::new(entry, instance, surface);
    let (w, h) = (32, 32);
    rig.create_swapchain(
        vk::Extent2D::default().width(w).height(h),
        vk::PresentModeKHR::FIFO,
    );
    let frame = desktop_support::pattern(w, h, 1);
    let start = Instant::now();
    for i in 0..10 {
        assert_eq!(rig.present_rgba(&frame), Ok(false), "hidden frame {i}");
    }
    let took = start.elapsed();
    assert!(
        took >= Duration::from_millis(750) && took < Duration::from_secs(8),
        "10 FIFO frames to a hidden surface in {took:?}: not the 250 ms fallback pace"
    );
    drop(rig);
    hidden.destroy();
    conn.roundtrip().unwrap();
}
