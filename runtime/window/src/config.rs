//! What a window is made with and what its calls fail with: [`WindowConfig`] (and its
//! [`QueueMode`]), [`WindowError`], and the queue's fixed limits. A data module: the crate root
//! re-exports it, and the queue, frames and C ABI read it, without naming any of them.

use std::ffi::c_int;
use std::time::Duration;

use vkgen_abi::native_window::{buffer_usage, HAL_DATASPACE_UNKNOWN, HAL_PIXEL_FORMAT_RGBA_8888};

/// Android's `BufferQueueDefs::NUM_BUFFER_SLOTS`: the most buffers a window can have.
pub const NUM_BUFFER_SLOTS: u32 = 64;

/// What an `extern "C"` entry point answers when the Rust side panicked (`-ENOTRECOVERABLE`).
pub const INTERNAL_ERROR: c_int = -libc::ENOTRECOVERABLE;

/// What happens to a queued frame the consumer has not acquired when the next one is queued.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub enum QueueMode {
    /// The newer frame replaces it and its buffer goes back to the producer, so a producer never
    /// waits for a consumer that only looks at the latest frame now and then (a test, a
    /// screenshot). Frame numbers still count every queued frame.
    #[default]
    LatestOnly,
    /// Android's synchronous `BufferQueue`: at swap interval ≥ 1 frames wait for the consumer in
    /// order, and a producer that runs out of buffers blocks until frames are acquired and
    /// released. (At swap interval 0, async mode, a frame still replaces the one before it.)
    Fifo,
}

/// How to build a [`BufferQueue`](crate::BufferQueue). `Default` gives a 64×64 RGBA_8888 window.
#[derive(Clone, Debug)]
pub struct WindowConfig {
    /// Default buffer size (`NATIVE_WINDOW_DEFAULT_WIDTH/HEIGHT`), used when the producer sets
    /// no dimensions. Changeable later with [`BufferQueue::resize`](crate::BufferQueue::resize).
    pub width: u32,
    pub height: u32,
    /// Default `HAL_PIXEL_FORMAT_*`, used when the producer sets none.
    pub format: c_int,
    /// Default dataspace (`NATIVE_WINDOW_DEFAULT_DATASPACE`), given to frames queued with
    /// `HAL_DATASPACE_UNKNOWN`.
    pub dataspace: c_int,
    /// `NATIVE_WINDOW_TRANSFORM_HINT`.
    pub transform_hint: c_int,
    /// The consumer's `maxAcquiredBufferCount`: `NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS` (one more
    /// in async mode, as Android).
    pub min_undequeued: u32,
    /// `NATIVE_WINDOW_MAX_BUFFER_COUNT`: slots available, at most [`NUM_BUFFER_SLOTS`].
    pub max_buffer_count: u32,
    /// Consumer usage bits, ORed into every allocation (`GET_CONSUMER_USAGE64`).
    pub consumer_usage: u64,
    /// Refresh period of the fake display (`GET_REFRESH_CYCLE_DURATION`), ns.
    pub refresh_ns: u64,
    pub queue_mode: QueueMode,
    /// How long the consumer waits for a frame's acquire fence; `None` = forever.
    pub acquire_timeout: Option<Duration>,
    /// `ANativeWindow::xdpi`/`ydpi`.
    pub dpi: f32,
}

impl Default for WindowConfig {
    fn default() -> Self {
        Self {
            width: 64,
            height: 64,
            format: HAL_PIXEL_FORMAT_RGBA_8888,
            dataspace: HAL_DATASPACE_UNKNOWN,
            transform_hint: 0,
            min_undequeued: 1,
            max_buffer_count: 8,
            consumer_usage: buffer_usage::GPU_TEXTURE | buffer_usage::COMPOSER_OVERLAY,
            refresh_ns: 16_666_667,
            queue_mode: QueueMode::LatestOnly,
            acquire_timeout: Some(Duration::from_secs(10)),
            dpi: 160.0,
        }
    }
}

impl WindowConfig {
    /// The default configuration with a `width`×`height` default buffer size.
    pub fn with_size(width: u32, height: u32) -> Self {
        Self {
            width,
            height,
            ..Self::default()
        }
    }
}

/// Errors of the Rust-side API (the C ABI answers negative errnos instead).
#[derive(Debug, thiserror::Error)]
pub enum WindowError {
    #[error("invalid window configuration: {0}")]
    InvalidConfig(String),
    #[error(transparent)]
    Gralloc(#[from] vkgen_platform::gralloc::GrallocError),
    #[error(transparent)]
    Fence(#[from] vkgen_platform::sync_fd::FenceError),
    #[error("the acquire fence of frame {frame_number} did not signal within {timeout:?}")]
    FenceTimeout {
        frame_number: u64,
        timeout: Duration,
    },
    #[error(transparent)]
    Io(#[from] std::io::Error),
    #[error("PNG encoding failed: {0}")]
    Png(#[from] png::EncodingError),
}
