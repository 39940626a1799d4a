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

mod adopt;
mod frames;
pub mod pacing;
pub mod presenters;
pub mod wayland;
pub mod x11;
mod x11_display;
mod x11_sync;

use vkgen_generated::vk;

pub use presenters::{forget, forget_surface_at, Controls, Kind};

pub use wayland::{create_wayland_surface, wayland_presentation_support};
pub use x11::{
    create_xcb_surface, create_xlib_surface, xcb_presentation_support, xlib_presentation_support,
};

/// The window system `surface` presents to, if it is a desktop surface.
pub fn kind(surface: &super::surface::Surface) -> Option<Kind> {
    presenters::kind_at(std::ptr::from_ref(surface) as usize)
}

/// Tells the presenter of `surface` (if it is a desktop surface) its swapchain's present mode
/// (from `vkCreateSwapchainKHR`).
pub fn set_present_mode(surface: &super::surface::Surface, mode: vk::PresentModeKHR) {
    presenters::set_present_mode_at(std::ptr::from_ref(surface) as usize, mode);
}
