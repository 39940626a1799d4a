//! An in-process Android `BufferQueue` behind the real `ANativeWindow` C ABI, for running the
//! loader's WSI (`VK_KHR_android_surface`, `VK_KHR_swapchain`) on Linux.
//!
//! The loader touches windows only through `ANativeWindow` (`system/window.h`: the
//! `android_native_base_t` header with magic, version and refcounting, the function-pointer table,
//! the `query`/`perform` codes), so the same loader code serves a real Android `Surface`. This
//! crate is the other end: a window whose producer side speaks exactly that ABI and whose consumer
//! side is a Rust API, used by the loader's desktop presenters (X11, Wayland: each shows the
//! frames a swapchain queues) and by tests.
//!
//! # Design
//!
//! * **One object, one refcount.** [`BufferQueue`] is `#[repr(C)]` and starts with the
//!   `ANativeWindow`, so the `ANativeWindow*` handed to C *is* the queue: `common.incRef`/`decRef`
//!   are `Arc` strong-count increments/decrements on it, and the last reference (Rust `Arc` or C
//!   `decRef`) frees it. Buffers work the same way: each `ANativeWindowBuffer*` is the head of an
//!   `Arc`-owned `AHardwareBuffer` ([`HardwareBuffer`](vkgen_platform::hardware_buffer::HardwareBuffer))
//!   that also holds the gralloc
//!   [`Buffer`](vkgen_platform::gralloc::Buffer) (sealed memfd + real `native_handle_t`), so a buffer
//!   the loader still references survives its slot being reallocated or the producer
//!   disconnecting.
//! * **Android's producer rules** (`BufferQueueProducer`/`Surface`), in `queue.rs`: up to
//!   `max_buffer_count` slots (settable, default 8; Android's `NUM_BUFFER_SLOTS` is 64, the most
//!   accepted); buffers are allocated lazily at dequeue with the requested size/format/usage (plus
//!   the consumer usage) and reallocated when those change; after the first queue the producer
//!   may hold at most `buffer count − min undequeued` buffers (before it, all of them, which is
//!   how libvulkan dequeues every image at swapchain creation); swap interval 0 is async mode
//!   (one more undequeued buffer, and a queued frame replaces one the consumer has not taken);
//!   shared-buffer mode keeps one buffer permanently dequeued. A producer already holding all
//!   the buffers it may gets `-ENOSYS` (Android's `INVALID_OPERATION`) at once; a dequeue that
//!   finds every other buffer queued or with the consumer waits up to the dequeue timeout
//!   (`SET_DEQUEUE_TIMEOUT`; negative = forever, 0 = not at all), then fails with `-ETIMEDOUT`
//!   (`TIMED_OUT`). Those are the two codes libvulkan turns into `VK_TIMEOUT`/`VK_NOT_READY`.
//! * **Fences** are the driver runtime's [`NativeFence`](vkgen_platform::sync_fd::NativeFence)s:
//!   `queueBuffer`/`cancelBuffer` take ownership of the fd first thing, so it is closed on every
//!   path, errors included; `dequeueBuffer` hands the caller the slot's release fence (from the
//!   consumer's release, a cancel, or a frame that was replaced) or `-1`.
//! * **`perform` is variadic.** Stable Rust cannot define a variadic function, so
//!   `csrc/perform.c` reads each operation's arguments with the types AOSP's callers pass and
//!   calls `ffi.rs`'s dispatcher with a fixed struct ([`c_abi`]); unknown codes are refused in C
//!   before any `va_arg`. The codes reach C from the ABI mirror (`runtime/abi`) through a header
//!   `build.rs` generates, so they are written down once.
//! * **Threads:** all state sits behind one `Mutex` with a `Condvar` for blocked dequeues;
//!   producer calls may come from any thread, consumer calls too. Every `extern "C"` entry point
//!   catches panics and answers [`INTERNAL_ERROR`] instead; a poisoned lock is recovered (the
//!   state is kept consistent at every unlock).
//! * **Errors** at the ABI are Android's negative errnos: `-EINVAL` (bad argument, unknown
//!   buffer, buffer in the wrong state, unsupported code), `-ENODEV` (not connected / consumer
//!   abandoned: Android's `NO_INIT`), `-ETIMEDOUT` (no buffer in time), `-ENOMEM` (allocation
//!   failed), `-ENOSYS` (Android's `INVALID_OPERATION`: dequeue over the producer's limit,
//!   deprecated entry points, `GET_FRAME_TIMESTAMPS` before `ENABLE_FRAME_TIMESTAMPS`).
//! * **Consumer side** ([`BufferQueue::acquire_latest`] and friends): a frame's acquire fence is
//!   waited for, the buffer mapped and copied out as RGBA8 ([`frame::to_rgba8`]), and the buffer
//!   stays acquired until [`BufferQueue::release`] (or the [`Frame`] is dropped). A fake display
//!   ([`timing`]) turns queue/acquire times into the `GET_FRAME_TIMESTAMPS` values on a vsync
//!   grid of `refresh_ns`.

#![warn(clippy::undocumented_unsafe_blocks)]

pub mod c_abi;
mod config;
mod ffi;
pub mod frame;
mod object;
mod queue;
pub mod timing;

pub use c_abi::{AndroidNativeRect, AndroidXyColor, Cta8613Metadata, Smpte2086Metadata};
pub use config::{QueueMode, WindowConfig, WindowError, INTERNAL_ERROR, NUM_BUFFER_SLOTS};
pub use frame::{Frame, HdrMetadata};
pub use queue::{
    BufferQueue, Counters, FrameRate, ProducerState, MAX_DAMAGE_RECTS, MAX_HDR10_PLUS_BYTES,
};
pub use timing::FrameTimestamps;
