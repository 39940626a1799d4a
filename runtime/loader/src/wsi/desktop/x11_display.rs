//! Which X display the application's window lives on: the name of the display behind the
//! application's own connection (`xcb_connection_t*` or `Display*`), so the X11 presenter
//! connects to the same server instead of whatever `$DISPLAY` says.
//!
//! No X library is linked: the application has libxcb / libX11 loaded already, so their
//! functions are found with `dlsym(RTLD_DEFAULT, …)`. For XCB the connection's socket is asked
//! for its peer (`getpeername`): `/tmp/.X11-unix/X<n>` (a path or the abstract name) is display
//! `:<n>`, a TCP peer on port `6000 + n` is `host:<n>`. For Xlib `XDisplayString` names it.

use std::ffi::{c_char, c_int, c_void, CStr};

/// The display name of the application's XCB connection `conn`, or `None` (null pointer, no
/// libxcb loaded, or a socket that names no X display).
///
/// # Safety
/// `conn` is null or a live `xcb_connection_t*`.
pub(super) unsafe fn from_xcb(conn: *mut c_void) -> Option<String> {
    if conn.is_null() {
        return None;
    }
    let sym = symbol(c"libxcb.so.1", c"xcb_get_file_descriptor");
    if sym.is_null() {
        log::info!("X11 presenter: libxcb is not loaded; cannot name the application's display");
        return None;
    }
    // SAFETY: libxcb's `int xcb_get_file_descriptor(xcb_connection_t *)`.
    let get_fd: unsafe extern "C" fn(*mut c_void) -> c_int = unsafe { std::mem::transmute(sym) };
    // SAFETY: `conn` is non-null (checked above) and live (this function's contract); the call
    // only reads its fd.
    let fd = unsafe { get_fd(conn) };
    if fd < 0 {
        return None;
    }
    peer_display(fd)
}

/// The display name of the application's Xlib connection `dpy`, or `None`.
///
/// # Safety
/// `dpy` is null or a live `Display*`.
pub(super) unsafe fn from_xlib(dpy: *mut c_void) -> Option<String> {
    if dpy.is_null() {
        return None;
    }
    let sym = symbol(c"libX11.so.6", c"XConnectionNumber");
    if !sym.is_null() {
        // SAFETY: libX11's `int XConnectionNumber(Display *)`.
        let number: unsafe extern "C" fn(*mut c_void) -> c_int =
            unsafe { std::mem::transmute(sym) };
        // SAFETY: `dpy` is non-null (checked above) and live (this function's contract); the
        // call only reads its fd.
        let fd = unsafe { number(dpy) };
        if let Some(name) = (fd >= 0).then(|| peer_display(fd)).flatten() {
            return Some(name);
        }
    }
    let sym = symbol(c"libX11.so.6", c"XDisplayString");
    if sym.is_null() {
        log::info!("X11 presenter: libX11 is not loaded; cannot name the application's display");
        return None;
    }
    // SAFETY: libX11's `char *XDisplayString(Display *)`.
    let string: unsafe extern "C" fn(*mut c_void) -> *const c_char =
        unsafe { std::mem::transmute(sym) };
    // SAFETY: `dpy` is live; the answer is null or a string owned by the display.
    let s = unsafe { string(dpy) };
    // SAFETY: checked non-null; libX11 keeps the string for the display's lifetime.
    (!s.is_null()).then(|| unsafe { CStr::from_ptr(s) }.to_string_lossy().into_owned())
}

/// `name` from the process's global scope, else from `lib` if the application loaded it
/// privately (`RTLD_LOCAL`); never loads `lib`. Null when neither has it.
pub(super) fn symbol(lib: &CStr, name: &CStr) -> *mut c_void {
    // SAFETY: a NUL-terminated symbol name looked up in the process's global scope.
    let sym = unsafe { libc::dlsym(libc::RTLD_DEFAULT, name.as_ptr()) };
    if !sym.is_null() {
        return sym;
    }
    // SAFETY: `RTLD_NOLOAD` only returns a handle to a library already loaded (no constructor
    // runs); the handle is released right after the lookup, the library stays loaded by its
    // other reference.
    unsafe {
        let handle = libc::dlopen(lib.as_ptr(), libc::RTLD_NOW | libc::RTLD_NOLOAD);
        if handle.is_null() {
            return std::ptr::null_mut();
        }
        let sym = libc::dlsym(handle, name.as_ptr());
        libc::dlclose(handle);
        sym
    }
}

/// The X display name of the server at the other end of socket `fd`.
fn peer_display(fd: c_int) -> Option<String> {
    // SAFETY: all-zero bytes are a valid `sockaddr_storage`.
    let mut addr: libc::sockaddr_storage = unsafe { std::mem::zeroed() };
    let mut len = std::mem::size_of::<libc::sockaddr_storage>() as libc::socklen_t;
    // SAFETY: `addr` and `len` are valid for writes of `len` bytes; `fd` is only queried.
    let r = unsafe { libc::getpeername(fd, std::ptr::from_mut(&mut addr).cast(), &mut len) };
    if r != 0 {
        return None;
    }
    match c_int::from(addr.ss_family) {
        libc::AF_UNIX => {
            // SAFETY: the family says the storage holds a `sockaddr_un`, which fits in it.
            let un: &libc::sockaddr_un = unsafe { &*std::ptr::from_ref(&addr).cast() };
            let used = (len as usize).saturating_sub(std::mem::size_of::<libc::sa_family_t>());
            let path: Vec<u8> = un.sun_path[..used.min(un.sun_path.len())]
                .iter()
                .map(|&c| c as u8)
                .collect();
            unix_display(&path)
        }
        libc::AF_INET => {
            // SAFETY: the family says the storage holds a `sockaddr_in`.
            let v4: &libc::sockaddr_in = unsafe { &*std::ptr::from_ref(&addr).cast() };
            let ip = std::net::Ipv4Addr::from(u32::from_be(v4.sin_addr.s_addr));
            let n = u16::from_be(v4.sin_port).checked_sub(6000)?;
            Some(format!("{ip}:{n}"))
        }
        libc::AF_INET6 => {
            // SAFETY: the family says the storage holds a `sockaddr_in6`.
            let v6: &libc::sockaddr_in6 = unsafe { &*std::ptr::from_ref(&addr).cast() };
            let ip = std::net::Ipv6Addr::from(v6.sin6_addr.s6_addr);
            let n = u16::from_be(v6.sin6_port).checked_sub(6000)?;
            Some(match ip.to_ipv4_mapped() {
                Some(v4) => format!("{v4}:{n}"),
                None => format!("{ip}:{n}"),
            })
        }
        _ => None,
    }
}

/// `:<n>` for a Unix socket path (abstract when it starts with NUL) ending `/.X11-unix/X<n>`.
fn unix_display(path: &[u8]) -> Option<String> {
    let path = path.strip_prefix(b"\0").unwrap_or(path);
    let end = path.iter().position(|&b| b == 0).unwrap_or(path.len());
    let path = std::str::from_utf8(&path[..end]).ok()?;
    let n = path.rsplit_once("/.X11-unix/X")?.1;
    (!n.is_empty() && n.bytes().all(|b| b.is_ascii_digit())).then(|| format!(":{n}"))
}

#[cfg(test)]
mod tests {
    use super::unix_display;

    #[test]
    fn unix_socket_paths_name_displays() {
        assert_eq!(unix_display(b"/tmp/.X11-unix/X3\0").as_deref(), Some(":3"));
        assert_eq!(
            unix_display(b"\0/tmp/.X11-unix/X12").as_deref(),
            Some(":12")
        );
        assert_eq!(unix_display(b"/run/other.sock"), None);
        assert_eq!(unix_display(b"/tmp/.X11-unix/X"), None);
    }
}
