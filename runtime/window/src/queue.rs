//! The queue itself: slots, producer operations with Android's `BufferQueueProducer`/`Surface`
//! rules, and the consumer API. Everything here is safe Rust on typed values; [`crate::ffi`]
//! turns C calls into these and their results into errno codes.
//!
//! Slot states follow `BufferSlot`: FREE → (dequeue) DEQUEUED → (queue) QUEUED → (consumer
//! acquire) ACQUIRED → (release) FREE, with cancel taking DEQUEUED back to FREE and a replaced or
//! skipped frame taking QUEUED back to FREE. In shared-buffer mode the one shared slot stays
//! DEQUEUED: the producer owns it for good, and queued/acquired frames of it are tracked by the
//! frame queue alone.

use std::collections::VecDeque;
use std::ffi::c_int;
use std::sync::{Arc, Condvar, Mutex, MutexGuard, PoisonError, Weak};
use std::time::{Duration, Instant};

use vkgen_abi::native_window::*;
use vkgen_platform::gralloc::{Allocator, GrallocError, PixelFormat, MAX_DIMENSION};
use vkgen_platform::sync_fd::NativeFence;

use crate::c_abi::{AndroidNativeRect, Cta8613Metadata, Smpte2086Metadata};
use crate::config::{QueueMode, WindowConfig, WindowError, NUM_BUFFER_SLOTS};
use crate::frame::{to_rgba8, Frame, FrameOwner, FrameToken, HdrMetadata};
use crate::object::{WindowBuffer, WindowObject};
use crate::timing::{now_ns, FrameTimestamps, Timeline};

mod consumer;
mod producer;

/// A negative errno, as the ABI reports it.
pub(crate) type Errno = c_int;
pub(crate) type AbiResult<T> = Result<T, Errno>;

const EINVAL: Errno = -libc::EINVAL;
const ENODEV: Errno = -libc::ENODEV;
const ENOSYS: Errno = -libc::ENOSYS;

/// Most rects `SET_SURFACE_DAMAGE` accepts.
pub const MAX_DAMAGE_RECTS: usize = 1 << 16;
/// Most bytes `SET_BUFFERS_HDR10_PLUS_METADATA` accepts.
pub const MAX_HDR10_PLUS_BYTES: usize = 1 << 16;

/// `ANativeWindow_setFrameRate*` arguments.
#[derive(Clone, Copy, Debug, PartialEq)]
pub struct FrameRate {
    pub frame_rate: f32,
    pub compatibility: i32,
    pub change_strategy: i32,
}

/// Everything the producer has set through `perform`/`setSwapInterval`, as the consumer sees it.
#[derive(Clone, Debug, PartialEq)]
pub struct ProducerState {
    /// `NATIVE_WINDOW_API_*` of the connected producer.
    pub connected_api: Option<c_int>,
    /// Producer usage (`SET_USAGE`/`SET_USAGE64`); allocations add the consumer usage.
    pub usage: u64,
    /// Requested `HAL_PIXEL_FORMAT_*`; 0 = the consumer default.
    pub format: c_int,
    /// Requested dataspace; `HAL_DATASPACE_UNKNOWN` = the consumer default.
    pub dataspace: c_int,
    /// `SET_BUFFERS_DIMENSIONS`; `(0, 0)` = the default size.
    pub dimensions: (u32, u32),
    /// `SET_BUFFERS_USER_DIMENSIONS`; `(0, 0)` = none (overrides the default size).
    pub user_dimensions: (u32, u32),
    pub transform: c_int,
    pub sticky_transform: c_int,
    pub scaling_mode: c_int,
    pub crop: Option<AndroidNativeRect>,
    /// `SET_BUFFER_COUNT`; 0 = not set (all `max_buffer_count` slots).
    pub buffer_count: u32,
    pub swap_interval: c_int,
    /// `SET_DEQUEUE_TIMEOUT`; `None` = block forever.
    pub dequeue_timeout: Option<Duration>,
    pub shared_buffer_mode: bool,
    pub auto_refresh: bool,
    pub frame_timestamps_enabled: bool,
    pub auto_prerotation: bool,
    pub hdr: HdrMetadata,
    pub frame_rate: Option<FrameRate>,
    /// Damage for the next queued frame (cleared by each queue).
    pub damage: Vec<AndroidNativeRect>,
    /// Requested present time for the next queued frame (cleared by each queue); `None` = auto.
    pub timestamp: Option<i64>,
}

impl Default for ProducerState {
    fn default() -> Self {
        Self {
            connected_api: None,
            usage: 0,
            format: 0,
            dataspace: HAL_DATASPACE_UNKNOWN,
            dimensions: (0, 0),
            user_dimensions: (0, 0),
            transform: 0,
            sticky_transform: 0,
            scaling_mode: NATIVE_WINDOW_SCALING_MODE_FREEZE,
            crop: None,
            buffer_count: 0,
            swap_interval: 1,
            dequeue_timeout: None,
            shared_buffer_mode: false,
            auto_refresh: false,
            frame_timestamps_enabled: false,
            auto_prerotation: false,
            hdr: HdrMetadata::default(),
            frame_rate: None,
            damage: Vec::new(),
            timestamp: None,
        }
    }
}

impl ProducerState {
    /// What `Surface::disconnect` resets; format, user dimensions, swap interval, dequeue
    /// timeout, HDR metadata and frame rate survive, as they do on Android.
    fn reset_on_disconnect(&mut self) {
        let keep = Self {
            connected_api: None,
            format: self.format,
            user_dimensions: self.user_dimensions,
            swap_interval: self.swap_interval,
            dequeue_timeout: self.dequeue_timeout,
            hdr: std::mem::take(&mut self.hdr),
            frame_rate: self.frame_rate,
            ..Self::default()
        };
        *self = keep;
    }
}

/// Successful operations so far, for tests to assert on.
#[derive(Clone, Copy, Debug, Default, PartialEq, Eq)]
pub struct Counters {
    pub connects: u64,
    pub disconnects: u64,
    pub dequeues: u64,
    pub queues: u64,
    pub cancels: u64,
    pub acquires: u64,
    pub releases: u64,
    /// Gralloc allocations (first use of a slot or reallocation).
    pub allocations: u64,
    /// Queued frames that never reached the consumer (replaced, skipped by `acquire_latest`, or
    /// discarded by a disconnect).
    pub dropped_frames: u64,
}

/// Why `dequeueBuffer` cannot have a buffer right now.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum NoSlot {
    /// The producer already holds all it may: its own doing, so waiting cannot help.
    OverLimit,
    /// Every other buffer is queued or with the consumer: wait for a release.
    AllBusy,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
enum SlotState {
    Free,
    Dequeued,
    Queued,
    Acquired,
}

#[derive(Debug)]
struct Slot {
    buffer: Option<Arc<WindowBuffer>>,
    state: SlotState,
    /// Fence to hand out with the next dequeue of this slot.
    fence: NativeFence,
    /// Number of the last frame queued from this buffer (0 = none), for `BUFFER_AGE`.
    frame_number: u64,
    /// When the slot last became free, to hand out the least recently used buffer first.
    free_seq: u64,
}

impl Slot {
    fn empty() -> Self {
        Self {
            buffer: None,
            state: SlotState::Free,
            fence: NativeFence::signalled(),
            frame_number: 0,
            free_seq: 0,
        }
    }

    fn holds(&self, buffer: &Arc<WindowBuffer>) -> bool {
        self.buffer.as_ref().is_some_and(|b| Arc::ptr_eq(b, buffer))
    }
}

/// The producer's description of one queued frame.
#[derive(Clone, Debug)]
struct FrameMeta {
    frame_number: u64,
    transform: c_int,
    dataspace: c_int,
    damage: Vec<AndroidNativeRect>,
    crop: Option<AndroidNativeRect>,
    scaling_mode: c_int,
    timestamp_ns: i64,
    auto_timestamp: bool,
    shared_buffer: bool,
    auto_refresh: bool,
    hdr: HdrMetadata,
}

#[derive(Debug)]
struct PendingFrame {
    buffer: Arc<WindowBuffer>,
    /// `None` once the producer disconnected (the frame outlives its slot).
    slot: Option<usize>,
    /// The acquire fence from `queueBuffer`.
    fence: NativeFence,
    /// A later queue may replace it before the consumer takes it.
    droppable: bool,
    meta: FrameMeta,
}

#[derive(Debug)]
struct State {
    // Consumer-controlled.
    default_width: u32,
    default_height: u32,
    default_format: c_int,
    default_dataspace: c_int,
    transform_hint: c_int,
    min_undequeued: u32,
    max_buffer_count: u32,
    consumer_usage: u64,
    abandoned: bool,
    // Producer-controlled.
    p: ProducerState,
    // Queue state.
    slots: Vec<Slot>,
    shared_slot: Option<usize>,
    /// Set by the first queue after a connect; until then every slot may be dequeued.
    buffer_has_been_queued: bool,
    pending: VecDeque<PendingFrame>,
    /// The last frame queued in shared-buffer mode, re-acquirable while auto-refresh is on.
    last_shared: Option<(Arc<WindowBuffer>, usize, FrameMeta)>,
    frame_counter: u64,
    free_seq: u64,
    buffer_age: u64,
    last_dequeue_start: i64,
    last_dequeue_duration: i64,
    last_queue_duration: i64,
    timeline: Timeline,
    counters: Counters,
}

impl State {
    /// Slots in use: the producer's buffer count, else every slot.
    fn total_buffers(&self) -> usize {
        let n = if self.p.buffer_count > 0 {
            self.p.buffer_count.min(self.max_buffer_count)
        } else {
            self.max_buffer_count
        };
        n as usize
    }

    /// `NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS`: one more in async mode (swap interval 0).
    fn min_undequeued(&self) -> u32 {
        self.min_undequeued + u32::from(self.p.swap_interval == 0)
    }

    fn is_shared_slot(&self, i: usize) -> bool {
        self.p.shared_buffer_mode && self.shared_slot == Some(i)
    }

    fn slot_of(&self, buffer: *const ANativeWindowBuffer) -> Option<usize> {
        if buffer.is_null() {
            return None;
        }
        self.slots.iter().position(|s| {
            s.buffer
                .as_ref()
                .is_some_and(|b| WindowBuffer::as_native(b).cast_const() == buffer)
        })
    }

    /// Buffer parameters of the next allocation: `(width, height, format, usage)`.
    fn alloc_params(&self) -> (u32, u32, c_int, u64) {
        let (w, h) = match (self.p.dimensions, self.p.user_dimensions) {
            ((0, 0), (0, 0)) => (self.default_width, self.default_height),
            ((0, 0), user) => user,
            (dims, _) => dims,
        };
        let format = if self.p.format != 0 {
            self.p.format
        } else {
            self.default_format
        };
        (w, h, format, self.p.usage | self.consumer_usage)
    }

    fn default_size(&self) -> (u32, u32) {
        match self.p.user_dimensions {
            (0, 0) => (self.default_width, self.default_height),
            user => user,
        }
    }

    /// A free slot the producer may dequeue now, least recently freed buffer first, then empty
    /// slots (Android's `mFreeBuffers` before `mFreeSlots`).
    fn pick_free_slot(&self) -> Result<usize, NoSlot> {
        let total = self.total_buffers();
        let dequeued = self
            .slots
            .iter()
            .filter(|s| s.state == SlotState::Dequeued)
            .count();
        let limit = if self.buffer_has_been_queued {
            total.saturating_sub(self.min_undequeued() as usize)
        } else {
            total
        };
        if dequeued >= limit {
            return Err(NoSlot::OverLimit);
        }
        (0..total)
            .filter(|&i| self.slots[i].state == SlotState::Free)
            .min_by_key(|&i| (self.slots[i].buffer.is_none(), self.slots[i].free_seq, i))
            .ok_or(NoSlot::AllBusy)
    }

    /// Returns slot `i` to FREE with `fence` for its next dequeue; slots beyond the buffer count
    /// also lose their buffer.
    fn free_slot(&mut self, i: usize, fence: NativeFence) {
        self.free_seq += 1;
        let total = self.total_buffers();
        let slot = &mut self.slots[i];
        slot.state = SlotState::Free;
        slot.fence = fence;
        slot.free_seq = self.free_seq;
        if i >= total {
            slot.buffer = None;
            slot.fence = NativeFence::signalled();
            slot.frame_number = 0;
        }
    }

    /// Frees the buffers of free slots beyond the buffer count.
    fn trim(&mut self) {
        let total = self.total_buffers();
        for slot in self.slots.iter_mut().skip(total) {
            if slot.state == SlotState::Free {
                *slot = Slot::empty();
            }
        }
    }

    /// A queued frame that will never reach the consumer: its buffer goes back to the producer
    /// with the frame's acquire fence as the release fence (the producer must not write before
    /// the frame's rendering is done), as `BufferQueueProducer` does for a replaced frame.
    fn drop_pending(&mut self, item: PendingFrame) {
        self.counters.dropped_frames += 1;
        // The fake display must not wait forever for a frame nobody will acquire (every later
        // frame's timing depends on it): if its fence has not been seen signalled yet, it
        // counts as acquired now.
        self.timeline.set_acquired(item.meta.frame_number, now_ns());
        let Some(i) = item.slot.filter(|&i| self.slots[i].holds(&item.buffer)) else {
            return;
        };
        match self.slots[i].state {
            SlotState::Queued => self.free_slot(i, item.fence),
            // The shared buffer stays with the producer.
            SlotState::Dequeued => self.slots[i].fence = item.fence,
            SlotState::Free | SlotState::Acquired => {}
        }
    }

    /// Frees every slot (disconnect/abandon). Acquired buffers live on in their frames; of the
    /// queued frames only the newest is kept (when `keep_newest`), detached from its slot, the
    /// way a compositor keeps showing the last buffer after the producer went away.
    fn free_all(&mut self, keep_newest: bool) {
        let newest = if keep_newest {
            self.pending.pop_back()
        } else {
            None
        };
        while let Some(item) = self.pending.pop_front() {
            self.drop_pending(item);
        }
        if let Some(mut item) = newest {
            item.slot = None;
            self.pending.push_back(item);
        }
        for slot in &mut self.slots {
            *slot = Slot::empty();
        }
        self.shared_slot = None;
        self.last_shared = None;
        self.buffer_has_been_queued = false;
    }

    /// Records the acquire time of frames whose fence has signalled by now.
    fn poll_pending_acquires(&mut self) {
        let now = now_ns();
        for item in &self.pending {
            let n = item.meta.frame_number;
            if self.timeline.acquire_pending(n) && item.fence.is_signalled().unwrap_or(false) {
                self.timeline.set_acquired(n, now);
            }
        }
    }
}

/// A decoded `perform` call (see [`crate::ffi`] for the C side).
#[derive(Clone, Debug, PartialEq)]
pub(crate) enum Perform {
    /// The deprecated argument-less `CONNECT`/`DISCONNECT`: accepted and ignored, as `Surface`.
    Deprecated,
    SetUsage(u64),
    SetCrop(Option<AndroidNativeRect>),
    SetBufferCount(i64),
    SetBuffersGeometry(c_int, c_int, c_int),
    SetBuffersTransform(c_int),
    SetBuffersStickyTransform(c_int),
    SetBuffersTimestamp(i64),
    SetBuffersDimensions(c_int, c_int),
    SetBuffersUserDimensions(c_int, c_int),
    SetBuffersFormat(c_int),
    SetScalingMode(c_int),
    ApiConnect(c_int),
    ApiDisconnect(c_int),
    SetBuffersDataspace(c_int),
    SetSurfaceDamage(Vec<AndroidNativeRect>),
    SetSharedBufferMode(bool),
    SetAutoRefresh(bool),
    GetRefreshCycleDuration,
    GetNextFrameId,
    EnableFrameTimestamps(bool),
    GetCompositorTiming,
    GetFrameTimestamps(u64),
    GetConsumerUsage,
    SetSmpte2086(Option<Smpte2086Metadata>),
    SetCta8613(Option<Cta8613Metadata>),
    SetHdr10Plus(Option<Vec<u8>>),
    SetAutoPrerotation(bool),
    GetLastDequeueStart,
    SetDequeueTimeout(i64),
    GetLastDequeueDuration,
    GetLastQueueDuration,
    SetFrameRate(FrameRate),
    AllocateBuffers,
}

/// What a `perform` query writes back.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(crate) enum PerformOut {
    Nothing,
    I64(i64),
    U64(u64),
    CompositorTiming([i64; 3]),
    Timestamps(FrameTimestamps),
}

/// An in-process `BufferQueue`: producer side through [`BufferQueue::window`] (the C ABI),
/// consumer side through the methods below. See the crate docs for the design.
#[repr(C)]
pub struct BufferQueue {
    /// Must stay first: `ANativeWindow*` and `*const BufferQueue` are the same address.
    pub(crate) window: WindowObject,
    weak_self: Weak<BufferQueue>,
    state: Mutex<State>,
    /// Signalled whenever a slot may have become dequeueable or the connection changed.
    available: Condvar,
    queue_mode: QueueMode,
    acquire_timeout: Option<Duration>,
}

impl std::fmt::Debug for BufferQueue {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("BufferQueue")
            .field("window", &self.window())
            .field("queue_mode", &self.queue_mode)
            .finish_non_exhaustive()
    }
}

fn check_dims(width: u32, height: u32) -> Result<(), WindowError> {
    if (1..=MAX_DIMENSION).contains(&width) && (1..=MAX_DIMENSION).contains(&height) {
        Ok(())
    } else {
        Err(WindowError::InvalidConfig(format!(
            "size {width}x{height} outside 1..={MAX_DIMENSION}"
        )))
    }
}

fn check_counts(min_undequeued: u32, max_buffer_count: u32) -> Result<(), WindowError> {
    if !(1..=NUM_BUFFER_SLOTS).contains(&max_buffer_count) || min_undequeued >= max_buffer_count {
        return Err(WindowError::InvalidConfig(format!(
            "max_buffer_count {max_buffer_count} must be in 1..={NUM_BUFFER_SLOTS} and above \
             min_undequeued {min_undequeued}"
        )));
    }
    Ok(())
}

fn gralloc_errno(e: &GrallocError) -> Errno {
    match e {
        GrallocError::UnsupportedFormat(_) | GrallocError::InvalidDimensions { .. } => EINVAL,
        _ => -libc::ENOMEM,
    }
}

/// `SET_BUFFERS_DIMENSIONS`-style validation: both zero (default) or both in range.
fn producer_dims(width: c_int, height: c_int) -> AbiResult<(u32, u32)> {
    let w = u32::try_from(width).map_err(|_| EINVAL)?;
    let h = u32::try_from(height).map_err(|_| EINVAL)?;
    if (w == 0) != (h == 0) || w > MAX_DIMENSION || h > MAX_DIMENSION {
        return Err(EINVAL);
    }
    Ok((w, h))
}

fn check_transform(t: c_int) -> AbiResult<c_int> {
    if t & !0xF == 0 {
        Ok(t)
    } else {
        Err(EINVAL)
    }
}

impl BufferQueue {
    /// A new queue whose head is `window` (built by `ffi.rs`, which owns the function table and
    /// the public constructors), or why `config` is invalid.
    pub(crate) fn with_window(
        config: WindowConfig,
        window: WindowObject,
    ) -> Result<Arc<Self>, WindowError> {
        check_dims(config.width, config.height)?;
        check_counts(config.min_undequeued, config.max_buffer_count)?;
        PixelFormat::from_hal(config.format)?;
        let refresh_ns = i64::try_from(config.refresh_ns)
            .ok()
            .filter(|&r| r > 0)
            .ok_or_else(|| WindowError::InvalidConfig("refresh_ns must be in 1..2^63".into()))?;
        let state = State {
            default_width: config.width,
            default_height: config.height,
            default_format: config.format,
            default_dataspace: config.dataspace,
            transform_hint: config.transform_hint,
            min_undequeued: config.min_undequeued,
            max_buffer_count: config.max_buffer_count,
            consumer_usage: config.consumer_usage,
            abandoned: false,
            p: ProducerState::default(),
            slots: (0..NUM_BUFFER_SLOTS).map(|_| Slot::empty()).collect(),
            shared_slot: None,
            buffer_has_been_queued: false,
            pending: VecDeque::new(),
            last_shared: None,
            frame_counter: 0,
            free_seq: 0,
            buffer_age: 0,
            last_dequeue_start: 0,
            last_dequeue_duration: 0,
            last_queue_duration: 0,
            timeline: Timeline::new(refresh_ns),
            counters: Counters::default(),
        };
        Ok(Arc::new_cyclic(|weak| Self {
            window,
            weak_self: weak.clone(),
            state: Mutex::new(state),
            available: Condvar::new(),
            queue_mode: config.queue_mode,
            acquire_timeout: config.acquire_timeout,
        }))
    }

    /// The `ANativeWindow*` of this queue, valid while any reference to the queue exists (an
    /// `Arc` or a C `incRef`). C code that keeps it should `incRef` it, as `sp<ANativeWindow>`
    /// does.
    pub fn window(&self) -> *mut ANativeWindow {
        // `Weak::as_ptr` carries the provenance of the whole allocation, so C may turn the
        // pointer back into `*const BufferQueue` (it is the first field, `#[repr(C)]`).
        self.weak_self.as_ptr().cast_mut().cast::<ANativeWindow>()
    }

    /// A new strong reference to this queue (`None` while it is being dropped).
    pub(crate) fn strong(&self) -> Option<Arc<Self>> {
        self.weak_self.upgrade()
    }

    fn lock(&self) -> MutexGuard<'_, State> {
        // Every critical section leaves the state consistent before anything can panic, so a
        // poisoned lock is still usable.
        self.state.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

impl FrameOwner for BufferQueue {
    fn release_token(&self, token: FrameToken, fence: NativeFence) {
        let mut st = self.lock();
        st.counters.releases += 1;
        let Some(i) = token.slot.filter(|&i| st.slots[i].holds(&token.buffer)) else {
            return;
        };
        match st.slots[i].state {
            SlotState::Acquired => st.free_slot(i, fence),
            // The shared buffer (still with the producer): the fence guards its next dequeue.
            SlotState::Dequeued => st.slots[i].fence = fence,
            SlotState::Free | SlotState::Queued => {}
        }
        drop(st);
        self.available.notify_all();
    }
}

#[cfg(test)]
mod tests;
