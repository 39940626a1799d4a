//! Issue 36 item 4: `vkCreateXcbSurfaceKHR` raced the application's `CreateWindow`. The
//! presenter asks for the window's geometry on a connection of its own, so a `CreateWindow`
//! still in the application's libxcb buffer (or unread by the server) made ~1% of surfaces
//! `VK_ERROR_SURFACE_LOST_KHR` under load. The exact race, made certain: a child creates each
//! window on its libxcb connection and, *without flushing*, creates the surface on it at once,
//! then asks for the surface's capabilities (the window's size), many times over. Every surface
//! must be created and report its window's size.
//!
//! The same for Xlib: windows from `XCreateSimpleWindow` (held in Xlib's buffer) and
//! `vkCreateXlibSurfaceKHR` at once, first with libX11 alone (the loader syncs with `XSync`),
//! then with libX11-xcb loaded too (through the display's XCB connection).
//!
//! Skips loudly (a message, no failure) only when Xvfb (or, for Xlib, libX11) is missing.

mod wsi_support;
mod x11_support;

use x11_support::Xvfb;
use x11rb::connection::Connection as _;
use x11rb::protocol::xproto::{ConnectionExt as _, CreateWindowAux, WindowClass};
use x11rb::xcb_ffi::XCBConnection;

/// How many window + surface pairs the child makes.
const ROUNDS: u32 = 200;

#[test]
fn xcb_surfaces_of_unflushed_windows_are_never_lost() {
    in_child(
        "xcb_surfaces_of_unflushed_windows_are_never_lost",
        app_child,
    );
}

#[test]
fn xlib_surfaces_of_unflushed_windows_are_never_lost() {
    in_child(
        "xlib_surfaces_of_unflushed_windows_are_never_lost",
        xlib_child,
    );
}

/// Runs `child` (given the display) in a child process on an Xvfb of its own.
fn in_child(scenario: &str, child: fn(&str)) {
    if vkgen_tests::env::child_scenario().is_some() {
        child(&std::env::var("DISPLAY").unwrap());
        println!("\n{} {scenario}", vkgen_tests::env::DONE_MARKER);
        return;
    }
    let Some(xvfb) = Xvfb::start() else {
        eprintln!("SKIPPED: Xvfb (Debian xvfb) could not be started");
        return;
    };
    let (env, _root) = wsi_support::hal_env("host", "");
    let env = env.set("DISPLAY", &xvfb.display);
    let out = vkgen_tests::env::run_child(scenario, &env);
    vkgen_tests::require(vkgen_tests::env::check_child(scenario, &out));
}

/// [`ROUNDS`] times: a window of a new size, its surface created before anything is flushed,
/// the surface's current extent read; counts what failed and asserts nothing did.
fn app_child(display: &str) {
    use ash::vk;
    let name = std::ffi::CString::new(display).unwrap();
    let (conn, screen) = XCBConnection::connect(Some(&name)).unwrap();
    let scr = &conn.setup().roots[screen];
    let (depth, root, visual) = (scr.root_depth, scr.root, scr.root_visual);
    let loader = vkgen_tests::require(vkgen_tests::paths::loader_under_test());
    let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
    let exts = [ash::khr::surface::NAME, ash::khr::xcb_surface::NAME];
    let instance = vkgen_tests::compute::create_instance(&entry, &[], &exts).unwrap();
    let (pd, _) = vkgen_tests::require(vkgen_tests::compute::pick_compute_device(&instance));
    let xcb = ash::khr::xcb_surface::Instance::new(&entry, &instance);
    let surfaces = ash::khr::surface::Instance::new(&entry, &instance);
    let mut failures = Vec::new();
    for round in 0..ROUNDS {
        let (w, h) = (16 + (round % 64) as u16, 16 + (round / 64) as u16);
        let win = conn.generate_id().unwrap();
        let aux = CreateWindowAux::new().background_pixel(scr.black_pixel);
        conn.create_window(
            depth,
            win,
            root,
            0,
            0,
            w,
            h,
            0,
            WindowClass::INPUT_OUTPUT,
            visual,
            &aux,
        )
        .unwrap();
        // No flush: the CreateWindow is still in this connection's buffer.
        let info = vk::XcbSurfaceCreateInfoKHR::default()
            .connection(conn.get_raw_xcb_connection().cast())
            .window(win);
        // SAFETY: a live instance and connection; the window id is the one just requested.
        match unsafe { xcb.create_xcb_surface(&info, None) } {
            Ok(surface) => {
                // SAFETY: a live physical device and surface of this instance.
                let caps =
                    unsafe { surfaces.get_physical_device_surface_capabilities(pd, surface) };
                match caps {
                    Ok(c)
                        if c.current_extent
                            == vk::Extent2D::default().width(w.into()).height(h.into()) => {}
                    other => failures.push(format!(
                        "round {round}: capabilities {other:?}, window {w}x{h}"
                    )),
                }
                // SAFETY: the surface has no swapchain.
                unsafe { surfaces.destroy_surface(surface, None) };
            }
            Err(e) => failures.push(format!("round {round}: vkCreateXcbSurfaceKHR: {e:?}")),
        }
        conn.destroy_window(win).unwrap();
    }
    conn.flush().unwrap();
    assert!(
        failures.is_empty(),
        "{} of {ROUNDS} surfaces failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // SAFETY: every surface is destroyed.
    unsafe { instance.destroy_instance(None) };
}

/// Xlib's entry points the child uses, from libX11 opened at run time.
struct Xlib {
    _lib: libloading::Library,
    open: unsafe extern "C" fn(*const std::ffi::c_char) -> *mut std::ffi::c_void,
    root: unsafe extern "C" fn(*mut std::ffi::c_void) -> std::ffi::c_ulong,
    #[allow(clippy::type_complexity)]
    create: unsafe extern "C" fn(
        *mut std::ffi::c_void,
        std::ffi::c_ulong,
        i32,
        i32,
        u32,
        u32,
        u32,
        std::ffi::c_ulong,
        std::ffi::c_ulong,
    ) -> std::ffi::c_ulong,
    destroy: unsafe extern "C" fn(*mut std::ffi::c_void, std::ffi::c_ulong) -> i32,
    sync: unsafe extern "C" fn(*mut std::ffi::c_void, i32) -> i32,
}

impl Xlib {
    fn load() -> Option<Xlib> {
        // SAFETY: libX11's constructors have no preconditions; each symbol is cast to its
        // documented C prototype.
        unsafe {
            let lib = libloading::Library::new("libX11.so.6").ok()?;
            Some(Xlib {
                open: *lib.get(b"XOpenDisplay\0").ok()?,
                root: *lib.get(b"XDefaultRootWindow\0").ok()?,
                create: *lib.get(b"XCreateSimpleWindow\0").ok()?,
                destroy: *lib.get(b"XDestroyWindow\0").ok()?,
                sync: *lib.get(b"XSync\0").ok()?,
                _lib: lib,
            })
        }
    }
}

/// [`ROUNDS`] Xlib windows, each surface created before Xlib sent anything; half with libX11
/// alone, half with libX11-xcb loaded as well.
fn xlib_child(display: &str) {
    use ash::vk;
    let Some(x) = Xlib::load() else {
        eprintln!("SKIPPED: libX11.so.6 cannot be loaded");
        return;
    };
    let name = std::ffi::CString::new(display).unwrap();
    // A fresh server has refused Xlib's first connection once (CI: "XOpenDisplay(:0) failed"
    // right after x11rb had connected): a few tries before calling it broken.
    let mut dpy = std::ptr::null_mut();
    for _ in 0..10 {
        // SAFETY: a NUL-terminated display name.
        dpy = unsafe { (x.open)(name.as_ptr()) };
        if !dpy.is_null() {
            break;
        }
        std::thread::sleep(std::time::Duration::from_millis(100));
    }
    assert!(!dpy.is_null(), "XOpenDisplay({display}) failed 10 times");
    // SAFETY: a live display.
    let root = unsafe { (x.root)(dpy) };
    let loader = vkgen_tests::require(vkgen_tests::paths::loader_under_test());
    let entry = vkgen_tests::require(vkgen_tests::compute::load_entry(&loader));
    let exts = [ash::khr::surface::NAME, ash::khr::xlib_surface::NAME];
    let instance = vkgen_tests::compute::create_instance(&entry, &[], &exts).unwrap();
    let xlib = ash::khr::xlib_surface::Instance::new(&entry, &instance);
    let surfaces = ash::khr::surface::Instance::new(&entry, &instance);
    let mut x11_xcb = None;
    let mut failures = Vec::new();
    for round in 0..ROUNDS {
        if round == ROUNDS / 2 {
            // SAFETY: loading libX11-xcb runs no code that needs more than libX11, loaded.
            x11_xcb = unsafe { libloading::Library::new("libX11-xcb.so.1") }.ok();
        }
        let (w, h) = (16 + round % 64, 16 + round / 64);
        // SAFETY: a live display and its root window; Xlib only buffers the request.
        let win = unsafe { (x.create)(dpy, root, 0, 0, w, h, 0, 0, 0) };
        let info = vk::XlibSurfaceCreateInfoKHR::default()
            .dpy(dpy.cast())
            .window(win);
        // SAFETY: a live instance and display; the window id is the one just requested.
        match unsafe { xlib.create_xlib_surface(&info, None) } {
            Ok(surface) => {
                // SAFETY: the surface has no swapchain.
                unsafe { surfaces.destroy_surface(surface, None) };
            }
            Err(e) => failures.push(format!(
                "round {round} (libX11-xcb {}): {e:?}",
                if x11_xcb.is_some() {
                    "loaded"
                } else {
                    "not loaded"
                }
            )),
        }
        // SAFETY: the window this loop created, on the live display.
        unsafe { (x.destroy)(dpy, win) };
    }
    // SAFETY: the live display.
    unsafe { (x.sync)(dpy, 0) };
    assert!(
        failures.is_empty(),
        "{} of {ROUNDS} Xlib surfaces failed:\n{}",
        failures.len(),
        failures.join("\n")
    );
    // SAFETY: every surface is destroyed.
    unsafe { instance.destroy_instance(None) };
}
