//! The presenter threads of desktop surfaces, by surface: which window system each surface
//! presents to ([`Kind`]), what its presenter is told ([`Controls`]), and stopping it when the
//! surface goes. Keyed by the surface's handle and address, so the surface code
//! (`crate::wsi::surface`) asks here without this module naming it.

use std::collections::HashMap;
use std::sync::atomic::{AtomicBool, AtomicU8, Ordering};
use std::sync::{Arc, Mutex};

use super::pacing::Pacing;
use vkgen_generated::vk;

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
    /// How the surface's swapchain's frames are paced, a [`Pacing`] (its present mode):
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

/// Records the presenter `thread` of the surface `handle` (at `surface`, its address).
pub(super) fn register(
    handle: u64,
    surface: usize,
    kind: Kind,
    controls: Controls,
    thread: std::thread::JoinHandle<()>,
) {
    let mut map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
    map.get_or_insert_with(HashMap::new).insert(
        handle,
        Presenter {
            surface,
            kind,
            controls,
            thread: Some(thread),
        },
    );
}

/// The window system the surface at `addr` presents to, if it is a desktop surface.
pub fn kind_at(addr: usize) -> Option<Kind> {
    let map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
    map.as_ref()?
        .values()
        .find(|p| p.surface == addr)
        .map(|p| p.kind)
}

/// Tells the presenter of the surface at `addr` (if it is a desktop surface) its swapchain's
/// present mode (from `vkCreateSwapchainKHR`).
pub fn set_present_mode_at(addr: usize, mode: vk::PresentModeKHR) {
    let map = PRESENTERS.lock().unwrap_or_else(|p| p.into_inner());
    if let Some(p) = map
        .as_ref()
        .and_then(|m| m.values().find(|p| p.surface == addr))
    {
        Pacing::for_mode(mode).store(&p.controls.pacing);
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
