//! X11 surfaces on Linux hosts (`VK_KHR_xcb_surface`, `VK_KHR_xlib_surface`): an X window
//! becomes an Android surface on a BufferQueue whose consumer, a presenter thread, draws every
//! frame into the window (see [`super`] for the shared design).
//!
//! * **Connection.** The presenter opens its own connection (x11rb, pure Rust) to the display
//!   the application's `xcb_connection_t*` / `Display*` is connected to (`super::x11_display`
//!   names it; `$DISPLAY` only when the application passes none or it cannot be named), on the
//!   screen whose root is the window's: X window ids are server-wide, and never using the
//!   application's connection from the presenter thread keeps its use of it as it expects.
//!   The one exception is inside `vkCreate*SurfaceKHR`, on the application's thread: a round
//!   trip on its connection (`super::x11_sync`) so that the presenter's first `GetGeometry`
//!   comes after the application's `CreateWindow`, which it need not have flushed. Where no
//!   round trip can be made (no connection given, libxcb not found) a `BadWindow` /
//!   `BadDrawable` answer is retried a few times instead.
//! * **Presenting.** The presenter is the display: once per refresh period (60 Hz) it takes the
//!   oldest queued frame (its acquire fence waited for by the BufferQueue), converts it from
//!   RGBA to the window's 24-bit TrueColor (BGRX) and draws it. With MIT-SHM (version 1.2, on a
//!   local socket) the frame is written into a `memfd` segment the server maps read-only
//!   (`ShmAttachFd`) and drawn with `ShmPutImage`: no pixel travels through the socket. The
//!   segment is rewritten only after a round trip (the geometry poll below) since the last
//!   `ShmPutImage`, so the server has finished reading it. Without MIT-SHM (a remote display, an
//!   old server, a refused attach, or `VKGEN_X11_SHM=0`) frames go through core `PutImage`, in
//!   row bands no larger than the server's maximum request. FIFO is thus paced at the refresh
//!   rate; when IMMEDIATE and FIFO_RELAXED frames are shown is [`super::pacing`]'s model.
//! * **Resize.** The presenter polls the window's geometry; a new size becomes the queue's
//!   default size, so the swapchain answers `VK_SUBOPTIMAL_KHR` / `VK_ERROR_OUT_OF_DATE_KHR` as it
//!   does for any Android window whose size changed.
//! * **Close.** When the window is gone (`GetGeometry` fails) the queue is abandoned, and the
//!   swapchain and surface queries answer `VK_ERROR_SURFACE_LOST_KHR`.
//!
//! `VKGEN_LOG=info` says which presenter (MIT-SHM or PutImage) serves a surface, why MIT-SHM was
//! not used, and why a window was refused.

use std::sync::atomic::Ordering;
use std::sync::Arc;
use std::time::{Duration, Instant};

use vkgen_abi::vk_error;
use vkgen_window::{BufferQueue, QueueMode, WindowConfig};
use x11rb::connection::{Connection, RequestConnection};
use x11rb::protocol::shm::ConnectionExt as _;
use x11rb::protocol::xproto::{ConnectionExt as _, CreateGCAux, ImageFormat};
use x11rb::rust_connection::RustConnection;

use super::adopt::adopt;
use super::frames::{rgba_to_bgrx, SharedMemory};
use super::pacing::{Clock, Pacing, Wait};
use super::presenters::{Controls, Kind};
use super::{x11_display, x11_sync};
use crate::ffi::guard;
use vkgen_generated::vk;

/// The presenter's refresh period: one frame shown, and the window's geometry read, per period.
const REFRESH: Duration = Duration::from_nanos(16_666_667);

/// Without a round trip on the application's connection, how often and how far apart a
/// `BadWindow` / `BadDrawable` geometry answer is retried (the window may not be created yet).
const UNORDERED_RETRIES: u32 = 10;
const UNORDERED_RETRY_PAUSE: Duration = Duration::from_millis(10);

/// `VKGEN_X11_SHM=0` makes the X11 presenter use core `PutImage` even where MIT-SHM works.
pub const X11_SHM_ENV: &str = "VKGEN_X11_SHM";

/// Why a window cannot be presented to.
#[derive(Debug, thiserror::Error)]
enum RefuseReason {
    #[error("cannot connect to the X display: {0}")]
    Connect(String),
    #[error("window {0:#x}: {1}")]
    Window(u32, String),
    #[error("the screen's root visual is {0}-bit, not 24/32-bit TrueColor")]
    Depth(u8),
    #[error("BufferQueue: {0}")]
    Queue(String),
}

/// Creates the surface for X window `window` (xcb or Xlib alike); `ordered` when a round trip
/// on the application's connection has been made since it created the window.
///
/// # Safety
/// `instance` is a live instance of this loader; `out` valid for a write.
unsafe fn create_x11_surface(
    command: &str,
    instance: vk::Instance,
    window: u32,
    display: Option<String>,
    ordered: bool,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    match &display {
        Some(name) => log::info!("{command}: presenting on the application's display {name:?}"),
        None => log::info!("{command}: application's display unknown; presenting on $DISPLAY"),
    }
    let (queue, conn, blit) = match connect(window, display.as_deref(), ordered) {
        Ok(v) => v,
        Err(e) => {
            let result = match e {
                RefuseReason::Connect(_) | RefuseReason::Window(..) => {
                    vk::Result::ERROR_SURFACE_LOST_KHR
                }
                _ => vk::Result::ERROR_INITIALIZATION_FAILED,
            };
            return vk_error!(result, "{command}: no presenter for the window: {e}");
        }
    };
    let how = match blit {
        Blit::Shm(_) => "MIT-SHM",
        Blit::PutImage => "PutImage",
    };
    let body = {
        let queue = Arc::clone(&queue);
        move |controls| present_loop(conn, window, queue, blit, controls)
    };
    // SAFETY: the caller guarantees `instance` is a live instance of this loader and `out`
    // writable, which is all `adopt` needs beyond the queue it gets here.
    let r = unsafe { adopt(command, Kind::X11, instance, &queue, allocator, out, body) };
    if r == vk::Result::SUCCESS {
        log::info!("{command}: window {window:#x} presented by the X11 {how} presenter");
    }
    r
}

/// A connection to `display` (`None`: `$DISPLAY`), a BufferQueue sized to `window`, and how
/// frames will be drawn. `ordered`: see [`create_x11_surface`].
fn connect(
    window: u32,
    display: Option<&str>,
    ordered: bool,
) -> Result<(Arc<BufferQueue>, RustConnection, Blit), RefuseReason> {
    let (conn, default_screen) =
        RustConnection::connect(display).map_err(|e| RefuseReason::Connect(e.to_string()))?;
    let geometry = geometry(&conn, window, ordered)?;
    let roots = &conn.setup().roots;
    let screen = roots
        .iter()
        .position(|s| s.root == geometry.root)
        .unwrap_or(default_screen);
    let depth = roots.get(screen).map_or(0, |s| s.root_depth);
    if depth != 24 && depth != 32 {
        return Err(RefuseReason::Depth(depth));
    }
    let config = WindowConfig {
        queue_mode: QueueMode::Fifo,
        refresh_ns: REFRESH.as_nanos() as u64,
        ..WindowConfig::with_size(
            u32::from(geometry.width).max(1),
            u32::from(geometry.height).max(1),
        )
    };
    let queue = BufferQueue::try_new(config).map_err(|e| RefuseReason::Queue(e.to_string()))?;
    let size = usize::from(geometry.width).max(1) * usize::from(geometry.height).max(1) * 4;
    let blit = match ShmSegment::attach(&conn, size) {
        Ok(seg) => Blit::Shm(seg),
        Err(why) => {
            log::info!("X11 presenter: window {window:#x}: no MIT-SHM ({why}); using PutImage");
            Blit::PutImage
        }
    };
    Ok((queue, conn, blit))
}

/// The window's geometry; when not `ordered`, a window the server does not know (yet) is asked
/// for again, [`UNORDERED_RETRIES`] times at most.
fn geometry(
    conn: &RustConnection,
    window: u32,
    ordered: bool,
) -> Result<x11rb::protocol::xproto::GetGeometryReply, RefuseReason> {
    use x11rb::errors::ReplyError;
    use x11rb::protocol::ErrorKind;
    let mut attempt = 0;
    loop {
        let answer = conn
            .get_geometry(window)
            .map_err(|e| RefuseReason::Window(window, e.to_string()))?
            .reply();
        match answer {
            Ok(g) => return Ok(g),
            Err(ReplyError::X11Error(e))
                if !ordered
                    && attempt < UNORDERED_RETRIES
                    && matches!(e.error_kind, ErrorKind::Window | ErrorKind::Drawable) =>
            {
                attempt += 1;
                std::thread::sleep(UNORDERED_RETRY_PAUSE);
            }
            Err(e) => return Err(RefuseReason::Window(window, e.to_string())),
        }
    }
}

/// How the presenter draws frames.
enum Blit {
    /// MIT-SHM: through a shared-memory segment and `ShmPutImage`.
    Shm(ShmSegment),
    /// Core `PutImage`, in row bands.
    PutImage,
}

/// A `memfd` segment mapped here and attached to the server (read-only there) with
/// `ShmAttachFd`.
struct ShmSegment {
    /// The server's id of the segment.
    seg: u32,
    memory: SharedMemory,
}

impl ShmSegment {
    /// Maps a `len`-byte segment and attaches it to the server behind `conn`; the error says why
    /// MIT-SHM cannot be used.
    fn attach(conn: &RustConnection, len: usize) -> Result<Self, String> {
        if crate::host_env::trusted_env(X11_SHM_ENV).is_some_and(|v| v == "0") {
            return Err(format!("{X11_SHM_ENV}=0"));
        }
        if !is_local_socket(conn) {
            return Err("the display is not on a local socket".into());
        }
        let version = conn
            .shm_query_version()
            .map_err(|e| e.to_string())?
            .reply()
            .map_err(|_| "the server has no MIT-SHM extension".to_owned())?;
        if (version.major_version, version.minor_version) < (1, 2) {
            return Err(format!(
                "MIT-SHM {}.{} has no ShmAttachFd",
                version.major_version, version.minor_version
            ));
        }
        let memory = SharedMemory::new(c"vkgen-x11-present", len)?;
        let fd = memory.fd.try_clone().map_err(|e| format!("dup: {e}"))?;
        let seg = conn.generate_id().map_err(|e| e.to_string())?;
        conn.shm_attach_fd(seg, fd, true)
            .map_err(|e| format!("ShmAttachFd: {e}"))?
            .check()
            .map_err(|e| format!("ShmAttachFd: {e}"))?;
        Ok(ShmSegment { seg, memory })
    }

    /// Detaches the segment from the server (the mapping goes with `self`).
    fn detach(self, conn: &RustConnection) {
        let _ = conn.shm_detach(self.seg);
    }
}

/// Whether `conn` talks to the server over a Unix-domain socket (the only kind that passes
/// file descriptors; a TCP display is remote or at least not sharing memory).
fn is_local_socket(conn: &RustConnection) -> bool {
    use std::os::fd::AsRawFd as _;
    let fd = conn.stream().as_raw_fd();
    let mut domain: libc::c_int = 0;
    let mut len = std::mem::size_of::<libc::c_int>() as libc::socklen_t;
    // SAFETY: a live socket of the connection; `domain` and `len` are valid for the writes.
    let r = unsafe {
        libc::getsockopt(
            fd,
            libc::SOL_SOCKET,
            libc::SO_DOMAIN,
            std::ptr::from_mut(&mut domain).cast(),
            &mut len,
        )
    };
    r == 0 && domain == libc::AF_UNIX
}

/// The presenter: shows each new frame, follows the window's size, abandons the queue when the
/// window is gone.
fn present_loop(
    conn: RustConnection,
    window: u32,
    queue: Arc<BufferQueue>,
    mut blit: Blit,
    controls: Controls,
) {
    let stop = controls.stop;
    let Ok(gc) = conn.generate_id() else {
        queue.abandon();
        return;
    };
    let created = conn
        .create_gc(gc, window, &CreateGCAux::new())
        .map(|cookie| cookie.check().is_ok());
    if !matches!(created, Ok(true)) {
        log::warn!("X11 presenter: window {window:#x} is gone");
        queue.abandon();
        return;
    }
    let (mut width, mut height) = (0u16, 0u16);
    let depth = conn.setup().roots[0].root_depth;
    let mut clock = Clock::new(REFRESH, Instant::now());
    while !stop.load(Ordering::Acquire) {
        // Also the round trip after which a shared-memory segment may be rewritten.
        match conn.get_geometry(window).map(|c| c.reply()) {
            Ok(Ok(g)) => {
                if (g.width, g.height) != (width, height) {
                    if width != 0 {
                        log::info!(
                            "X11 presenter: window {window:#x} resized to {}x{}",
                            g.width,
                            g.height
                        );
                    }
                    (width, height) = (g.width, g.height);
                    let _ = queue.resize(u32::from(width).max(1), u32::from(height).max(1));
                }
            }
            _ => {
                log::info!("X11 presenter: window {window:#x} closed; the surface is lost");
                queue.abandon();
                if let Blit::Shm(seg) = blit {
                    seg.detach(&conn);
                }
                return;
            }
        }
        let shown = match queue.try_acquire_next() {
            Ok(Some(frame)) => {
                blit = match blit {
                    Blit::Shm(seg) => shm_put_frame(&conn, window, gc, depth, seg, &frame),
                    Blit::PutImage => {
                        put_frame(&conn, window, gc, depth, &frame);
                        Blit::PutImage
                    }
                };
                true
            }
            Ok(None) => false,
            Err(e) => {
                log::warn!("X11 presenter: acquire failed: {e}");
                false
            }
        };
        // The next turn: at the next refresh, or (IMMEDIATE, a late FIFO_RELAXED frame) as
        // soon as a frame is queued (`pacing`).
        let now = Instant::now();
        match clock.after_turn(Pacing::load(&controls.pacing), shown, now) {
            Wait::Refresh(at) => std::thread::sleep(at.saturating_duration_since(now)),
            Wait::FrameOrUntil(at) => {
                queue.wait_for_frame(at.saturating_duration_since(now));
            }
        }
    }
    if let Blit::Shm(seg) = blit {
        seg.detach(&conn);
    }
    let _ = conn.free_gc(gc);
    let _ = conn.flush();
}

/// Draws `frame` (RGBA) at the window's origin as BGRX through the shared-memory segment `seg`,
/// replaced by a larger one when the frame does not fit; if that fails, the presenter goes on
/// with `PutImage`. Returns how the next frame is to be drawn.
fn shm_put_frame(
    conn: &RustConnection,
    window: u32,
    gc: u32,
    depth: u8,
    mut seg: ShmSegment,
    frame: &vkgen_window::Frame,
) -> Blit {
    let (w, h) = (frame.width as usize, frame.height as usize);
    if w == 0 || h == 0 || w > u16::MAX as usize || h > u16::MAX as usize {
        return Blit::Shm(seg);
    }
    let size = w * h * 4;
    if size > seg.memory.len() {
        seg.detach(conn);
        seg = match ShmSegment::attach(conn, size) {
            Ok(seg) => seg,
            Err(why) => {
                log::warn!(
                    "X11 presenter: window {window:#x}: MIT-SHM lost ({why}); using PutImage"
                );
                put_frame(conn, window, gc, depth, frame);
                return Blit::PutImage;
            }
        };
    }
    // The server finished reading the segment: the geometry poll's round trip followed the last
    // ShmPutImage.
    rgba_to_bgrx(&frame.pixels, &mut seg.memory.bytes()[..size]);
    let r = conn.shm_put_image(
        window,
        gc,
        w as u16,
        h as u16,
        0,
        0,
        w as u16,
        h as u16,
        0,
        0,
        depth,
        ImageFormat::Z_PIXMAP.into(),
        false,
        seg.seg,
        0,
    );
    if let Err(e) = r {
        log::warn!("X11 presenter: ShmPutImage failed: {e}");
    }
    let _ = conn.flush();
    Blit::Shm(seg)
}

/// Draws `frame` (RGBA) at the window's origin as BGRX, in bands within the request limit.
fn put_frame(conn: &RustConnection, window: u32, gc: u32, depth: u8, frame: &vkgen_window::Frame) {
    let (w, h) = (frame.width as usize, frame.height as usize);
    if w == 0 || h == 0 || w > u16::MAX as usize || h > u16::MAX as usize {
        return;
    }
    let mut bgrx = vec![0; w * h * 4];
    rgba_to_bgrx(&frame.pixels, &mut bgrx);
    let row = w * 4;
    let max = conn.maximum_request_bytes().saturating_sub(64).max(row);
    let rows_per_band = (max / row).max(1);
    let mut y = 0;
    while y < h {
        let n = rows_per_band.min(h - y);
        let data = &bgrx[y * row..(y + n) * row];
        if let Err(e) = conn.put_image(
            ImageFormat::Z_PIXMAP,
            window,
            gc,
            w as u16,
            n as u16,
            0,
            y as i16,
            0,
            depth,
            data,
        ) {
            log::warn!("X11 presenter: PutImage failed: {e}");
            return;
        }
        y += n;
    }
    let _ = conn.flush();
}

/// `vkCreateXcbSurfaceKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn create_xcb_surface(
    instance: vk::Instance,
    info: *const vk::XcbSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard(
        "vkCreateXcbSurfaceKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `info` is the application's pCreateInfo: null (refused here) or a valid
            // create info for this call (VUID-vkCreateXcbSurfaceKHR-pCreateInfo-parameter).
            let (Some(info), false) = (unsafe { info.as_ref() }, out.is_null()) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateXcbSurfaceKHR: null pCreateInfo or pSurface"
                );
            };
            // SAFETY: `info.connection` is null or the application's live `xcb_connection_t*`
            // (the command's contract), and `instance` / `out` are as the command requires.
            unsafe {
                let display = x11_display::from_xcb(info.connection.cast());
                let ordered = x11_sync::round_trip_xcb(info.connection.cast());
                create_x11_surface(
                    "vkCreateXcbSurfaceKHR",
                    instance,
                    info.window,
                    display,
                    ordered,
                    allocator,
                    out,
                )
            }
        },
    )
}

/// `vkCreateXlibSurfaceKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn create_xlib_surface(
    instance: vk::Instance,
    info: *const vk::XlibSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    guard(
        "vkCreateXlibSurfaceKHR",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `info` is the application's pCreateInfo: null (refused here) or a valid
            // create info for this call (VUID-vkCreateXlibSurfaceKHR-pCreateInfo-parameter).
            let (Some(info), false) = (unsafe { info.as_ref() }, out.is_null()) else {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "vkCreateXlibSurfaceKHR: null pCreateInfo or pSurface"
                );
            };
            let Ok(window) = u32::try_from(info.window) else {
                return vk_error!(
                    vk::Result::ERROR_SURFACE_LOST_KHR,
                    "vkCreateXlibSurfaceKHR: window {:#x} is not an X id",
                    info.window
                );
            };
            // SAFETY: `info.dpy` is null or the application's live `Display*` (the command's
            // contract), and `instance` / `out` are as the command requires.
            unsafe {
                let display = x11_display::from_xlib(info.dpy.cast());
                let ordered = x11_sync::round_trip_xlib(info.dpy.cast());
                create_x11_surface(
                    "vkCreateXlibSurfaceKHR",
                    instance,
                    window,
                    display,
                    ordered,
                    allocator,
                    out,
                )
            }
        },
    )
}

/// `vkGetPhysicalDeviceXcbPresentationSupportKHR`: every queue presents (the presenter is the
/// loader's).
///
/// # Safety
/// None beyond the command's contract: no argument is dereferenced.
pub unsafe extern "system" fn xcb_presentation_support(
    _pd: vk::PhysicalDevice,
    _family: u32,
    _connection: *mut vk::xcb_connection_t,
    _visual: vk::xcb_visualid_t,
) -> vk::Bool32 {
    vk::TRUE
}

/// `vkGetPhysicalDeviceXlibPresentationSupportKHR`: as for xcb.
///
/// # Safety
/// None beyond the command's contract: no argument is dereferenced.
pub unsafe extern "system" fn xlib_presentation_support(
    _pd: vk::PhysicalDevice,
    _family: u32,
    _dpy: *mut vk::Display,
    _visual: vk::VisualID,
) -> vk::Bool32 {
    vk::TRUE
}
