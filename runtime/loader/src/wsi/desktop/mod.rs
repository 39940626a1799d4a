//! Desktop surfaces on Linux hosts — X11 (`VK_KHR_xcb_surface`, `VK_KHR_xlib_surface`, [`x11`])
//! and Wayland (`VK_KHR_wayland_surface`, [`wayland`]) — presented through the one Android path:
//! a desktop surface is an Android surface on an in-process BufferQueue (`vkgen_window`) whose
//! consumer, a presenter thread, shows every queued buffer in the window. Swapchains, acquire,
//! present modes and fences are the Android WSI's, unchanged; only the consumer differs.
//! Compiled out for Android targets, where these extensions stay blocked.
//!
//! * **X11** ([`x11`]): the presenter has its own connection to the application's display
//!   (not necessarily `$DISPLAY`) and is the display, refreshing at 60 Hz: each refresh it draws the oldest queued frame with MIT-SHM
//!   (`ShmPutImage` from a `memfd` segment) or, without it, core `PutImage`; the window's size is
//!   the surface's current extent, and a closed window loses the surface.
//! * **Wayland** ([`wayland`]): objects belong to one connection, so the presenter uses the
//!   application's `wl_display*` (a guest `wayland-client` connection with its own event queue)
//!   and attaches each frame to the application's `wl_surface` as a `wl_shm` buffer, paced by
//!   `wl_surface.frame` callbacks; the current extent is undefined (`0xFFFFFFFF`): the swapchain
//!   decides the size.
//!
//! The queue is Android's synchronous one, so present modes are honoured as on Android: FIFO
//! (swap interval 1) queues every frame and a producer that runs out of buffers waits for the
//! presenter; MAILBOX (swap interval 0) replaces a frame not yet shown with the newer one.
//! Desktop surfaces also offer IMMEDIATE (Android windows have no such mode): the queue runs
//! as for MAILBOX and the presenter ([`Controls::pacing`]) shows each frame as soon as it is
//! queued instead of at the next refresh or frame callback, so the application is not paced.
//! X11 surfaces also offer FIFO_RELAXED: the queue runs as for FIFO and the presenter, which is
//! the display and so knows when a refresh went by without a new frame, shows a late frame at
//! once ([`pacing`] defines "late"). Wayland surfaces do not: the compositor, not the
//! presenter, decides when a frame reaches the screen, so there is no late frame to hurry.
//! A presenter that panics abandons its queue (the swapchain then answers
//! `VK_ERROR_OUT_OF_DATE_KHR` / `VK_ERROR_SURFACE_LOST_KHR`) rather than leaving the application
//! blocked; `vkDestroySurfaceKHR` (or `vkDestroyInstance` for a surface left alive) stops and
//! joins it.
//!
//! `VKGEN_LOG=info` says which presenter serves a surface, and why a window was refused.

pub mod pacing;
pub mod wayland;
pub mod x11;
mod x11_display;
mod x11_sync;

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use vkgen_window::BufferQueue;

use vkgen_generated::vk;

pub use wayland::{create_wayland_surface, wayland_presentation_support};
pub use x11::{
    create_xcb_surface, create_xlib_surface, xcb_presentation_support, xlib_presentation_support,
};

/// The presenter of each desktop surface, by surface handle.
static PRESENTERS: Mutex<Option<HashMap<u64, Presenter>>> = Mutex::new(None);

/// The window system a desktop surface presents to.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Kind {
    /// An X window: the window's size is the surface's (`currentExtent`).
    X11,
    /// A `wl_surface`: the swapchain decides the size (`currentExtent` is `0xFFFFFFFF`).
    Wayland,
}

/// What a presenter thread is told while it runs.
#[derive(Clone, Default)]
pub struct Controls {
    /// Set when the surface goes: the presenter returns soon after.
    pub stop: Arc<AtomicBool>,
    /// How the surface's swapchain's frames are paced, a [`pacing::Pacing`] (its present mode):
    /// `IMMEDIATE` shows each frame as soon as it is queued, not at the next refresh (X11) or
    /// frame callback (Wayland); `FIFO_RELAXED` (X11) a late one.
    pub pacing: Arc<AtomicU8>,
}

struct Presenter {
    /// The address of the surface it serves (identity only, never dereferenced).
    surface: usize,
    kind: Kind,
    controls: Controls,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Drop for Presenter {
    fn drop(&mut self) {
        self.controls.stop.store(true, Ordering::Release);
        if let Some(t) = self.thread.take() {
            let _ = t.join();
        }
    }
}

/// Makes the Android surface for `queue`'s window and starts its presenter thread, running
/// `body` (which must return soon after its `stop` flag is set); on failure the
/// surface is destroyed again and `body` dropped unrun.
///
/// # Safety
/// `instance` is a live instance of this loader; `out` valid for a write.
unsafe fn adopt(
    command: &str,
    kind: Kind,
    instance: vk::Instance,
    queue: &Arc<BufferQueue>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
    body: impl FnOnce(Controls) + Send + 'static,
) -> vk::Result {
    let info = vk::AndroidSurfaceCreateInfoKHR {
        window: queue.window().cast(),
        ..Default::default()
    };
    // SAFETY: `info.window` is `queue`'s window, which `queue` keeps alive; the caller guarantees
    // `instance` is a live instance of this loader and `out` writable.
    let r = unsafe { super::surface::create_android_surface(instance, &info, allocator, out) };
    if r != vk::Result::SUCCESS {
        return r;
    }
    // SAFETY: `create_android_surface` succeeded, so it wrote the new handle to `out`, which the
    // caller guarantees is readable too.
    let handle = vk::Handle::as_raw(unsafe { *out });
    let controls = Controls::default();
    let thread = {
        let (for_body, queue) = (controls.clone(), Arc::clone(queue));
        let name = match kind {
            Kind::X11 => "vkgen-x11-present",
            Kind::Wayland => "vkgen-wl-present",
        };
        std::thread::Builder::new()
            .name(name.into())
            .spawn(move || {
                block_sigpipe();
                let run = std::panic::AssertUnwindSafe(|| body(for_body));
                if std::panic::catch_unwind(run).is_err() {
                    log::error!("desktop presenter panicked; the surface is lost");
                    queue.abandon();
                }
            })
    };
    match thread {
        Ok(t) => {
            let mut map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
            let surface = super::surface::SURFACES
                .get(handle)
                .map_or(0, |s| Arc::as_ptr(&s) as usize);
            map.get_or_insert_with(HashMap::new).insert(
                handle,
                Presenter {
                    surface,
                    kind,
                    controls,
                    thread: Some(t),
                },
            );
            vk::Result::SUCCESS
        }
        Err(e) => {
            // SAFETY: the surface just created, unused.
            unsafe {
                super::surface::destroy_surface(instance, vk::Handle::from_raw(handle), allocator)
            };
            vkgen_abi::error::map_io_err(
                &format!("{command}: cannot start the presenter thread"),
                &e,
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
            )
        }
    }
}

/// Blocks `SIGPIPE` in the calling presenter thread only (issue 25): a write to a display
/// server that died fails with `EPIPE`, the presenter abandons its queue (the surface is lost)
/// and the application, whose signal disposition is left alone, lives on. A `SIGPIPE` raised by
/// the presenter's own write is directed at this thread and dies with it.
fn block_sigpipe() {
    // SAFETY: `set` is initialised by `sigemptyset` before it is read; `pthread_sigmask` changes
    // only the calling thread's mask.
    let r = unsafe {
        let mut set = std::mem::zeroed::<libc::sigset_t>();
        libc::sigemptyset(&mut set);
        libc::sigaddset(&mut set, libc::SIGPIPE);
        libc::pthread_sigmask(libc::SIG_BLOCK, &set, std::ptr::null_mut())
    };
    if r != 0 {
        log::warn!("desktop presenter: cannot block SIGPIPE (error {r})");
    }
}

/// The window system `surface` presents to, if it is a desktop surface.
pub fn kind(surface: &super::surface::Surface) -> Option<Kind> {
    let addr = std::ptr::from_ref(surface) as usize;
    let map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
    map.as_ref()?
        .values()
        .find(|p| p.surface == addr)
        .map(|p| p.kind)
}

/// Tells the presenter of `surface` (if it is a desktop surface) its swapchain's present mode
/// (from `vkCreateSwapchainKHR`).
pub fn set_present_mode(surface: &super::surface::Surface, mode: vk::PresentModeKHR) {
    let addr = std::ptr::from_ref(surface) as usize;
    let map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = map
        .as_ref()
        .and_then(|m| m.values().find(|p| p.surface == addr))
    {
        pacing::Pacing::for_mode(mode).store(&p.controls.pacing);
    }
}

/// Stops the presenter of `surface`, if it has one (from `vkDestroySurfaceKHR`).
pub fn forget(surface: u64) {
    let presenter = PRESENTERS
        .lock()
        .unwrap_or_else(|p| p.into_inner())
        .as_mut()
        .and_then(|m| m.remove(&surface));
    drop(presenter);
}

/// Stops the presenter of the surface at `addr`, if it has one (from `vkDestroyInstance`, for a
/// surface the application did not destroy).
pub fn forget_surface_at(addr: usize) {
    let presenter = {
        let mut map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
        let m = map.as_mut();
        let handle = m
            .as_ref()
            .and_then(|m| m.iter().find(|(_, p)| p.surface == addr).map(|(h, _)| *h));
        m.zip(handle).and_then(|(m, h)| m.remove(&h))
    };
    drop(presenter);
}

/// Writes `rgba` pixels into `out` as B, G, R, 0xff bytes: X11's 24-bit TrueColor `ZPixmap`
/// and Wayland's `XRGB8888` alike (both little-endian `0xXXRRGGBB` words).
pub(crate) fn rgba_to_bgrx(rgba: &[u8], out: &mut [u8]) {
    for (d, s) in out.chunks_exact_mut(4).zip(rgba.chunks_exact(4)) {
        d.copy_from_slice(&[s[2], s[1], s[0], 0xff]);
    }
}

/// A shared, writable mapping of a new `memfd` of `len` bytes, unmapped on drop; the frame
/// memory both presenters hand to the server (MIT-SHM) or compositor (`wl_shm`).
pub(crate) struct SharedMemory {
    pub fd: std::os::fd::OwnedFd,
    ptr: std::ptr::NonNull<u8>,
    len: usize,
}

// SAFETY: the mapping is owned by the value and used by one thread at a time (a presenter's).
unsafe impl Send for SharedMemory {}

impl SharedMemory {
    pub fn new(name: &std::ffi::CStr, len: usize) -> Result<Self, String> {
        use rustix::fs::{ftruncate, memfd_create, MemfdFlags};
        use rustix::mm::{mmap, MapFlags, ProtFlags};
        let len = len.max(4);
        let fd =
            memfd_create(name, MemfdFlags::CLOEXEC).map_err(|e| format!("memfd_create: {e}"))?;
        ftruncate(&fd, len as u64).map_err(|e| format!("ftruncate: {e}"))?;
        // SAFETY: a new shared mapping of the whole file, which is `len` bytes long; nothing else
        // in this process maps it.
        let ptr = unsafe {
            mmap(
                std::ptr::null_mut(),
                len,
                ProtFlags::READ | ProtFlags::WRITE,
                MapFlags::SHARED,
                &fd,
                0,
            )
        }
        .map_err(|e| format!("mmap: {e}"))?;
        let ptr = std::ptr::NonNull::new(ptr.cast()).ok_or("mmap returned NULL")?;
        Ok(SharedMemory { fd, ptr, len })
    }

    pub fn len(&self) -> usize {
        self.len
    }

    /// The mapped bytes. The caller writes them only while the other side is not reading (see
    /// each presenter for how it knows).
    pub fn bytes(&mut self) -> &mut [u8] {
        // SAFETY: `len` mapped bytes, ours while `self` lives, borrowed mutably once.
        unsafe { std::slice::from_raw_parts_mut(self.ptr.as_ptr(), self.len) }
    }
}

impl Drop for SharedMemory {
    fn drop(&mut self) {
        // SAFETY: the mapping made in `new`, unmapped once, here; no slice of it outlives
        // `self`.
        let _ = unsafe { rustix::mm::munmap(self.ptr.as_ptr().cast(), self.len) };
    }
}
