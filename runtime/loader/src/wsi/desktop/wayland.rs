//! Wayland surfaces on Linux hosts (`VK_KHR_wayland_surface`): a `wl_surface` becomes an
//! Android surface on a BufferQueue whose consumer, a presenter thread, attaches every frame to
//! the surface (see [`super`] for the shared design).
//!
//! * **Connection.** Wayland objects belong to one client connection, so the presenter cannot
//!   open its own: it joins the application's `wl_display*` as a guest (`wayland-client` over
//!   `wayland-backend`'s libwayland backend, `Backend::from_foreign_display`), with its own
//!   event queue — every object it creates (registry, `wl_shm`, pools, buffers, frame
//!   callbacks) is made through a proxy wrapper on that queue, so the application's queues never
//!   see their events, and the application's `wl_surface` is only sent requests. libwayland's
//!   `prepare_read`/`read_events` protocol lets the presenter and the application's own
//!   dispatching read the socket side by side. libwayland-client is opened at run time
//!   (`dlopen`): the loader links no Wayland library, and a missing one fails surface creation
//!   with `VK_ERROR_INITIALIZATION_FAILED`.
//! * **Presenting.** For each frame (its acquire fence waited for by the BufferQueue) the
//!   presenter takes a released `wl_shm` buffer of the frame's size (a `memfd` pool each, at
//!   most [`MAX_BUFFERS`] of one size; buffers of an older size are destroyed once released),
//!   converts RGBA to `XRGB8888`, and attaches, damages (`damage_buffer` from `wl_surface` v4),
//!   asks for a `wl_surface.frame` callback and commits. A buffer is written only after the
//!   compositor released it.
//! * **Pacing.** The next frame is taken when the last commit's frame callback is done — the
//!   compositor's refresh, so FIFO runs at the display's rate. A compositor sends no callbacks
//!   to a hidden surface; after [`CALLBACK_TIMEOUT`] without one the presenter goes on anyway
//!   (so a hidden window renders at a few frames a second instead of blocking the application
//!   forever in `vkAcquireNextImageKHR`). IMMEDIATE attaches each frame without waiting.
//! * **Size.** A `wl_surface` has no size of its own: the surface's current extent is
//!   `0xFFFFFFFF` (so is its present rectangle), the swapchain's extent is the buffers' size,
//!   and the queue's default size follows the frames the swapchain queues.
//! * **Loss.** A connection error (the compositor went away, a protocol error) abandons the
//!   queue: swapchains and surface queries answer `VK_ERROR_SURFACE_LOST_KHR` or
//!   `VK_ERROR_OUT_OF_DATE_KHR`.

use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::Arc;
use std::time::{Duration, Instant};

use vkgen_abi::vk_error;
use vkgen_window::{BufferQueue, QueueMode, WindowConfig};
use wayland_backend::client::{Backend, ObjectId};
use wayland_client::globals::{registry_queue_init, GlobalListContents};
use wayland_client::protocol::{
    wl_buffer::{self, WlBuffer},
    wl_callback::{self, WlCallback},
    wl_registry::{self, WlRegistry},
    wl_shm::{self, WlShm},
    wl_shm_pool::WlShmPool,
    wl_surface::WlSurface,
};
use wayland_client::{Connection, Dispatch, EventQueue, Proxy, QueueHandle};

use super::adopt::adopt;
use super::frames::{rgba_to_bgrx, SharedMemory};
use super::presenters::{Controls, Kind};
use crate::ffi::guard;
use vkgen_generated::vk;

/// How long the presenter waits for a frame callback before it presents the next frame anyway.
pub const CALLBACK_TIMEOUT: Duration = Duration::from_millis(250);

/// The most `wl_shm` buffers of one size (more would only queue up in the compositor).
pub const MAX_BUFFERS: usize = 3;

/// How often the presenter looks at its stop flag while idle.
const IDLE_POLL: Duration = Duration::from_millis(50);

/// The refresh period the queue reports before the compositor paces anything (60 Hz).
const REFRESH_NS: u64 = 16_666_667;

/// What the presenter's event queue updates.
#[derive(Default)]
struct State {
    /// The serial of the newest commit whose frame callback is done.
    done_serial: u64,
}

impl Dispatch<WlRegistry, GlobalListContents> for State {
    fn event(
        _: &mut Self,
        _: &WlRegistry,
        _: wl_registry::Event,
        _: &GlobalListContents,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        // Globals coming and going later do not matter: only `wl_shm` is used.
    }
}

impl Dispatch<WlShm, ()> for State {
    fn event(
        _: &mut Self,
        _: &WlShm,
        _: wl_shm::Event,
        _: &(),
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        // Formats: ARGB8888 and XRGB8888 are always supported, and only XRGB8888 is used.
    }
}

wayland_client::delegate_noop!(State: WlShmPool);

/// A buffer's data: whether the compositor holds it (attached and not yet released).
impl Dispatch<WlBuffer, Arc<AtomicBool>> for State {
    fn event(
        _: &mut Self,
        _: &WlBuffer,
        event: wl_buffer::Event,
        busy: &Arc<AtomicBool>,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_buffer::Event::Release = event {
            busy.store(false, Ordering::Release);
        }
    }
}

/// A frame callback's data: the serial of its commit.
impl Dispatch<WlCallback, u64> for State {
    fn event(
        state: &mut Self,
        _: &WlCallback,
        event: wl_callback::Event,
        serial: &u64,
        _: &Connection,
        _: &QueueHandle<Self>,
    ) {
        if let wl_callback::Event::Done { .. } = event {
            state.done_serial = state.done_serial.max(*serial);
        }
    }
}

/// Why a `wl_surface` cannot be presented to.
#[derive(Debug, thiserror::Error)]
enum RefuseReason {
    #[error("libwayland-client.so.0 cannot be loaded")]
    NoLibrary,
    #[error("the display or the surface is NULL")]
    Null,
    #[error("the surface pointer is not a wl_surface")]
    NotASurface,
    #[error("the compositor: {0}")]
    Compositor(String),
    #[error("BufferQueue: {0}")]
    Queue(String),
}

/// The presenter's connection: the guest connection, its event queue, `wl_shm` and the
/// application's surface.
struct Client {
    conn: Connection,
    queue: EventQueue<State>,
    shm: WlShm,
    surface: WlSurface,
}

/// Joins the application's connection and finds `wl_shm` (one round trip on the presenter's
/// own queue).
///
/// # Safety
/// `display` and `surface` are the application's live `wl_display*` and `wl_surface*` (the
/// Vulkan contract: they outlive the `VkSurfaceKHR`, whose destruction stops the presenter).
unsafe fn join(
    display: *mut vk::wl_display,
    surface: *mut vk::wl_surface,
) -> Result<Client, RefuseReason> {
    if !wayland_sys::client::is_lib_available() {
        return Err(RefuseReason::NoLibrary);
    }
    if display.is_null() || surface.is_null() {
        return Err(RefuseReason::Null);
    }
    // SAFETY: `display` is non-null (checked above) and the caller guarantees it is the
    // application's live wl_display, which outlives the surface and so this backend.
    let backend = unsafe { Backend::from_foreign_display(display.cast()) };
    let conn = Connection::from_backend(backend);
    // SAFETY: `surface` is non-null (checked above) and the caller guarantees it is a live
    // wl_surface of `display`; `from_ptr` checks its interface.
    let id = unsafe { ObjectId::from_ptr(WlSurface::interface(), surface.cast()) }
        .map_err(|_| RefuseReason::NotASurface)?;
    let surface = WlSurface::from_id(&conn, id).map_err(|_| RefuseReason::NotASurface)?;
    let (globals, queue) =
        registry_queue_init::<State>(&conn).map_err(|e| RefuseReason::Compositor(e.to_string()))?;
    let shm: WlShm = globals
        .bind(&queue.handle(), 1..=1, ())
        .map_err(|e| RefuseReason::Compositor(format!("wl_shm: {e}")))?;
    Ok(Client {
        conn,
        queue,
        shm,
        surface,
    })
}

/// One `wl_shm` buffer with its own pool and memory.
struct ShmBuffer {
    buffer: WlBuffer,
    pool: WlShmPool,
    memory: SharedMemory,
    width: u32,
    height: u32,
    /// Attached and not yet released by the compositor.
    busy: Arc<AtomicBool>,
}

impl ShmBuffer {
    fn new(client: &Client, width: u32, height: u32) -> Result<Self, String> {
        let stride = width.checked_mul(4).ok_or("frame too wide")?;
        let len = (stride as usize)
            .checked_mul(height as usize)
            .filter(|&l| i32::try_from(l).is_ok())
            .ok_or("frame too large for wl_shm")?;
        let memory = SharedMemory::new(c"vkgen-wayland-present", len)?;
        let qh = client.queue.handle();
        let pool = client.shm.create_pool(
            std::os::fd::AsFd::as_fd(&memory.fd),
            memory.len() as i32,
            &qh,
            (),
        );
        let busy = Arc::new(AtomicBool::new(false));
        let buffer = pool.create_buffer(
            0,
            width as i32,
            height as i32,
            stride as i32,
            wl_shm::Format::Xrgb8888,
            &qh,
            Arc::clone(&busy),
        );
        Ok(ShmBuffer {
            buffer,
            pool,
            memory,
            width,
            height,
            busy,
        })
    }

    fn destroy(self) {
        self.buffer.destroy();
        self.pool.destroy();
    }
}

/// The presenter: attaches each frame when the compositor is ready for one.
fn present_loop(mut client: Client, queue: Arc<BufferQueue>, controls: Controls) {
    let Controls { stop, pacing } = controls;
    let mut state = State::default();
    let mut buffers: Vec<ShmBuffer> = Vec::new();
    // The serial of the last commit, and when it was made.
    let (mut serial, mut committed) = (0u64, Instant::now());
    let mut size = (0, 0);
    let lost = loop {
        if stop.load(Ordering::Acquire) {
            break false;
        }
        // Whatever arrived (releases, callbacks), without waiting.
        if let Err(e) = pump(&mut client, &mut state, Duration::ZERO) {
            log::warn!("Wayland presenter: the connection failed: {e}; the surface is lost");
            break true;
        }
        // The compositor has not shown the last frame yet: wait for its callback (IMMEDIATE
        // does not wait; a frame with no released buffer is dropped).
        if super::pacing::Pacing::load(&pacing) != super::pacing::Pacing::Immediate
            && state.done_serial < serial
            && committed.elapsed() < CALLBACK_TIMEOUT
        {
            let wait = CALLBACK_TIMEOUT
                .saturating_sub(committed.elapsed())
                .min(IDLE_POLL);
            if let Err(e) = pump(&mut client, &mut state, wait) {
                log::warn!("Wayland presenter: the connection failed: {e}; the surface is lost");
                break true;
            }
            continue;
        }
        if !queue.wait_for_frame(IDLE_POLL) {
            continue;
        }
        let frame = match queue.try_acquire_next() {
            Ok(Some(frame)) => frame,
            Ok(None) => continue,
            Err(e) => {
                log::warn!("Wayland presenter: acquire failed: {e}");
                continue;
            }
        };
        if (frame.width, frame.height) != size {
            size = (frame.width, frame.height);
            log::info!("Wayland presenter: frames of {}x{}", size.0, size.1);
            // The queue's size follows the swapchain's.
            let _ = queue.resize(size.0.max(1), size.1.max(1));
        }
        match attach(&mut client, &mut state, &mut buffers, &frame, serial + 1) {
            Ok(true) => {
                serial += 1;
                committed = Instant::now();
            }
            Ok(false) => {}
            Err(e) => {
                log::warn!("Wayland presenter: the connection failed: {e}; the surface is lost");
                break true;
            }
        }
        drop(frame);
    };
    if lost {
        queue.abandon();
    }
    for b in buffers {
        b.destroy();
    }
    let _ = client.queue.flush();
}

/// Attaches `frame` to the surface in a released buffer of its size and commits with a frame
/// callback of `serial`: `Ok(false)` when the frame was dropped (no buffer could be had).
fn attach(
    client: &mut Client,
    state: &mut State,
    buffers: &mut Vec<ShmBuffer>,
    frame: &vkgen_window::Frame,
    serial: u64,
) -> Result<bool, String> {
    let (w, h) = (frame.width, frame.height);
    if w == 0 || h == 0 {
        return Ok(false);
    }
    // Buffers of another size go once the compositor is done with them.
    let (old, keep): (Vec<_>, Vec<_>) = std::mem::take(buffers)
        .into_iter()
        .partition(|b| (b.width, b.height) != (w, h) && !b.busy.load(Ordering::Acquire));
    *buffers = keep;
    for b in old {
        b.destroy();
    }
    let deadline = Instant::now() + CALLBACK_TIMEOUT;
    let index = loop {
        let free = buffers
            .iter()
            .position(|b| (b.width, b.height) == (w, h) && !b.busy.load(Ordering::Acquire));
        if let Some(i) = free {
            break i;
        }
        let of_size = buffers
            .iter()
            .filter(|b| (b.width, b.height) == (w, h))
            .count();
        if of_size < MAX_BUFFERS {
            match ShmBuffer::new(client, w, h) {
                Ok(b) => {
                    buffers.push(b);
                    break buffers.len() - 1;
                }
                Err(e) => {
                    log::warn!("Wayland presenter: no {w}x{h} buffer: {e}; frame dropped");
                    return Ok(false);
                }
            }
        }
        // All held by the compositor: wait for a release.
        if Instant::now() >= deadline {
            log::debug!("Wayland presenter: every buffer is held by the compositor; frame dropped");
            return Ok(false);
        }
        pump(client, state, IDLE_POLL.min(deadline - Instant::now()))?;
    };
    let b = &mut buffers[index];
    let len = (w * h * 4) as usize;
    // The compositor released this buffer (or never had it): nobody reads it now.
    rgba_to_bgrx(&frame.pixels, &mut b.memory.bytes()[..len]);
    b.busy.store(true, Ordering::Release);
    let surface = &client.surface;
    let qh = client.queue.handle();
    surface.attach(Some(&b.buffer), 0, 0);
    if surface.version() >= 4 {
        surface.damage_buffer(0, 0, w as i32, h as i32);
    } else {
        surface.damage(0, 0, w as i32, h as i32);
    }
    surface.frame(&qh, serial);
    surface.commit();
    client.queue.flush().map_err(|e| e.to_string())?;
    Ok(true)
}

/// Dispatches the presenter's queue, reading the socket for up to `timeout` if nothing is
/// queued for it yet.
fn pump(client: &mut Client, state: &mut State, timeout: Duration) -> Result<(), String> {
    use rustix::event::{poll, PollFd, PollFlags, Timespec};
    client
        .queue
        .dispatch_pending(state)
        .map_err(|e| e.to_string())?;
    client.queue.flush().map_err(|e| e.to_string())?;
    // `None`: events are already queued for this queue.
    if let Some(guard) = client.conn.prepare_read() {
        let fd = guard.connection_fd();
        let mut fds = [PollFd::new(&fd, PollFlags::IN)];
        let ts = Timespec {
            tv_sec: timeout.as_secs() as _,
            tv_nsec: timeout.subsec_nanos() as _,
        };
        let ready = match poll(&mut fds, Some(&ts)) {
            Ok(n) => n > 0,
            Err(rustix::io::Errno::INTR) => false,
            Err(e) => return Err(format!("poll: {e}")),
        };
        if ready {
            // Reads what is there (another reader of the application's may take part).
            guard.read().map_err(|e| e.to_string())?;
        }
        // Else the guard cancels the read when dropped.
    }
    client
        .queue
        .dispatch_pending(state)
        .map(|_| ())
        .map_err(|e| e.to_string())
}

/// `vkCreateWaylandSurfaceKHR`.
///
/// # Safety
/// Vulkan's contract for the command.
pub unsafe extern "system" fn create_wayland_surface(
    instance: vk::Instance,
    info: *const vk::WaylandSurfaceCreateInfoKHR<'_>,
    allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut vk::SurfaceKHR,
) -> vk::Result {
    const COMMAND: &str = "vkCreateWaylandSurfaceKHR";
    guard(COMMAND, vk::Result::ERROR_OUT_OF_HOST_MEMORY, || {
        // SAFETY: `info` is the application's pCreateInfo: null (refused here) or a valid create
        // info for this call (VUID-vkCreateWaylandSurfaceKHR-pCreateInfo-parameter).
        let (Some(info), false) = (unsafe { info.as_ref() }, out.is_null()) else {
            return vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "vkCreateWaylandSurfaceKHR: null pCreateInfo or pSurface"
            );
        };
        // SAFETY: `info.display` and `info.surface` are the application's live Wayland objects,
        // which the spec requires to outlive the VkSurfaceKHR and so the presenter `join` starts.
        let client = match unsafe { join(info.display, info.surface) } {
            Ok(c) => c,
            Err(e) => {
                let result = match e {
                    RefuseReason::Compositor(_) => vk::Result::ERROR_SURFACE_LOST_KHR,
                    _ => vk::Result::ERROR_INITIALIZATION_FAILED,
                };
                return vk_error!(result, "{COMMAND}: no presenter for the surface: {e}");
            }
        };
        // The size is the swapchain's; until one queues, any will do.
        let config = WindowConfig {
            queue_mode: QueueMode::Fifo,
            refresh_ns: REFRESH_NS,
            ..WindowConfig::with_size(1, 1)
        };
        let queue = match BufferQueue::try_new(config) {
            Ok(q) => q,
            Err(e) => {
                return vk_error!(
                    vk::Result::ERROR_INITIALIZATION_FAILED,
                    "{COMMAND}: {}",
                    RefuseReason::Queue(e.to_string())
                );
            }
        };
        let surface_id = client.surface.id().protocol_id();
        let body = {
            let queue = Arc::clone(&queue);
            move |controls| present_loop(client, queue, controls)
        };
        // SAFETY: `instance` is the application's live instance of this loader
        // (VUID-vkCreateWaylandSurfaceKHR-instance-parameter) and `out` was checked non-null above.
        let r = unsafe {
            adopt(
                COMMAND,
                Kind::Wayland,
                instance,
                &queue,
                allocator,
                out,
                body,
            )
        };
        if r == vk::Result::SUCCESS {
            log::info!(
                "{COMMAND}: wl_surface@{surface_id} presented by the Wayland wl_shm presenter"
            );
        }
        r
    })
}

/// `vkGetPhysicalDeviceWaylandPresentationSupportKHR`: every queue presents (the presenter is
/// the loader's).
///
/// # Safety
/// None beyond the command's contract: no argument is dereferenced.
pub unsafe extern "system" fn wayland_presentation_support(
    _pd: vk::PhysicalDevice,
    _family: u32,
    _display: *mut vk::wl_display,
) -> vk::Bool32 {
    vk::TRUE
}
