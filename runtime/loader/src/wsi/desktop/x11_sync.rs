//! Orders the presenter's first request after the application's (issue 36 item 4).
//!
//! The presenter reads the window's geometry on a connection of its own, but the application
//! has just created that window on *its* connection, and X orders requests per connection only:
//! the `CreateWindow` may still sit in libxcb's output buffer (an application need not flush
//! before `vkCreateXcbSurfaceKHR`) or unread in the server's socket while the presenter's
//! `GetGeometry` is answered `BadDrawable` — ~1% of surfaces lost under load. A round trip on
//! the application's own connection (`GetInputFocus` and its reply) flushes it and returns only
//! once the server has processed everything the application sent before, window included; the
//! presenter's requests come after that in the server's time. Mesa's WSI does its queries on the
//! application's connection for the same reason.
//!
//! This runs on the application's thread, inside its `vkCreate*SurfaceKHR`, and libxcb is
//! thread-safe, so using the connection here does not break the application's own use of it.
//! For Xlib the round trip goes through the `Display`'s XCB connection (`XGetXCBConnection`,
//! which first hands Xlib's own buffered requests to XCB), else `XSync`. Functions are found
//! with `dlsym` as in [`super::x11_display`]: no X library is linked.

use std::ffi::{c_uint, c_void};

use super::x11_display::symbol;

/// libxcb's `xcb_get_input_focus_cookie_t`.
#[repr(C)]
#[derive(Clone, Copy)]
struct Cookie {
    sequence: c_uint,
}

/// Makes a round trip on the application's XCB connection `conn`: `true` once the server has
/// processed every request sent on it before this call; `false` when it could not be done (null
/// connection, libxcb not loaded, the connection in error).
///
/// # Safety
/// `conn` is null or a live `xcb_connection_t*`.
pub(super) unsafe fn round_trip_xcb(conn: *mut c_void) -> bool {
    if conn.is_null() {
        return false;
    }
    let request = symbol(c"libxcb.so.1", c"xcb_get_input_focus");
    let reply = symbol(c"libxcb.so.1", c"xcb_get_input_focus_reply");
    if request.is_null() || reply.is_null() {
        log::info!("X11 presenter: libxcb is not loaded; no round trip on the app's connection");
        return false;
    }
    // SAFETY: libxcb's `xcb_get_input_focus_cookie_t xcb_get_input_focus(xcb_connection_t *)`;
    // the cookie is a struct of one `unsigned int`, returned by value as `Cookie` is.
    let request: unsafe extern "C" fn(*mut c_void) -> Cookie =
        unsafe { std::mem::transmute(request) };
    // SAFETY: libxcb's `xcb_get_input_focus_reply_t *xcb_get_input_focus_reply(
    // xcb_connection_t *, xcb_get_input_focus_cookie_t, xcb_generic_error_t **)`.
    let reply: unsafe extern "C" fn(*mut c_void, Cookie, *mut *mut c_void) -> *mut c_void =
        unsafe { std::mem::transmute(reply) };
    let mut error = std::ptr::null_mut();
    // SAFETY: `conn` is non-null and live (this function's contract; libxcb is thread-safe);
    // the reply and the error are `malloc`ed by libxcb and ours to free, each null or one
    // allocation.
    unsafe {
        let answer = reply(conn, request(conn), &mut error);
        let ok = !answer.is_null();
        libc::free(answer);
        libc::free(error);
        ok
    }
}

/// As [`round_trip_xcb`] for the application's Xlib `Display*` `dpy`.
///
/// # Safety
/// `dpy` is null or a live `Display*`, used by the calling thread as Xlib requires.
pub(super) unsafe fn round_trip_xlib(dpy: *mut c_void) -> bool {
    if dpy.is_null() {
        return false;
    }
    let get_xcb = symbol(c"libX11-xcb.so.1", c"XGetXCBConnection");
    if !get_xcb.is_null() {
        // SAFETY: libX11-xcb's `xcb_connection_t *XGetXCBConnection(Display *)`.
        let get_xcb: unsafe extern "C" fn(*mut c_void) -> *mut c_void =
            unsafe { std::mem::transmute(get_xcb) };
        // SAFETY: `dpy` is live; its XCB connection lives as long as it does.
        let conn = unsafe { get_xcb(dpy) };
        // SAFETY: null or the display's live XCB connection.
        if unsafe { round_trip_xcb(conn) } {
            return true;
        }
    }
    let sync = symbol(c"libX11.so.6", c"XSync");
    if sync.is_null() {
        log::info!("X11 presenter: libX11 is not loaded; no round trip on the app's display");
        return false;
    }
    // SAFETY: libX11's `int XSync(Display *, Bool)`.
    let sync: unsafe extern "C" fn(*mut c_void, libc::c_int) -> libc::c_int =
        unsafe { std::mem::transmute(sync) };
    // SAFETY: `dpy` is live and this is the application's thread inside its own Vulkan call
    // on that display (this function's contract); `False` keeps its event queue.
    unsafe { sync(dpy, 0) };
    true
}
