//! Turning a desktop window into a surface: the Android surface on the window's BufferQueue,
//! and the presenter thread that shows what is queued ([`adopt`], for `super::x11` and
//! `super::wayland`).

use std::sync::Arc;

use vkgen_window::BufferQueue;

use super::presenters::{self, Controls, Kind};
use crate::wsi::surface::{create_android_surface, destroy_surface, SURFACES};
use vkgen_generated::vk;

/// Makes the Android surface for `queue`'s window and starts its presenter thread, running
/// `body` (which must return soon after its `stop` flag is set); on failure the
/// surface is destroyed again and `body` dropped unrun.
///
/// # Safety
/// `instance` is a live instance of this loader; `out` valid for a write.
pub(super) unsafe fn adopt(
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
    let r = unsafe { create_android_surface(instance, &info, allocator, out) };
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
            let surface = SURFACES.get(handle).map_or(0, |s| Arc::as_ptr(&s) as usize);
            presenters::register(handle, surface, kind, controls, t);
            vk::Result::SUCCESS
        }
        Err(e) => {
            // SAFETY: the surface just created, unused.
            unsafe { destroy_surface(instance, vk::Handle::from_raw(handle), allocator) };
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
