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
use crate::frame::{to_rgba8, Frame, FrameOwner, FrameToken, HdrMetadata};
use crate::object::{WindowBuffer, WindowObject};
use crate::timing::{now_ns, FrameTimestamps, Timeline};
use crate::{QueueMode, WindowConfig, WindowError, NUM_BUFFER_SLOTS};

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

    // -----------------------------------------------------------------------------------------
    // Producer side (called from crate::ffi).

    pub(crate) fn set_swap_interval(&self, interval: c_int) -> AbiResult<()> {
        let mut st = self.lock();
        // Surface clamps to [minSwapInterval, maxSwapInterval].
        let interval = interval.clamp(0, 1);
        // Async mode needs one more undequeued buffer; like `setAsyncMode`, refuse when the
        // producer's buffer count would leave it none to dequeue.
        if interval == 0
            && st.p.buffer_count > 0
            && st.p.buffer_count.min(st.max_buffer_count) <= st.min_undequeued + 1
        {
            return Err(EINVAL);
        }
        st.p.swap_interval = interval;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    pub(crate) fn query(&self, what: c_int) -> AbiResult<c_int> {
        let st = self.lock();
        if what == NATIVE_WINDOW_IS_VALID {
            return Ok(c_int::from(!st.abandoned));
        }
        if st.abandoned {
            return Err(ENODEV);
        }
        let int = |v: u64| c_int::try_from(v).unwrap_or(c_int::MAX);
        let (w, h, format, _) = st.alloc_params();
        let (dw, dh) = st.default_size();
        Ok(match what {
            NATIVE_WINDOW_WIDTH => int(w.into()),
            NATIVE_WINDOW_HEIGHT => int(h.into()),
            NATIVE_WINDOW_FORMAT => format,
            NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS => int(st.min_undequeued().into()),
            // The consumer is a test, not SurfaceFlinger.
            NATIVE_WINDOW_QUEUES_TO_WINDOW_COMPOSER => 0,
            NATIVE_WINDOW_CONCRETE_TYPE => NATIVE_WINDOW_SURFACE,
            NATIVE_WINDOW_DEFAULT_WIDTH => int(dw.into()),
            NATIVE_WINDOW_DEFAULT_HEIGHT => int(dh.into()),
            NATIVE_WINDOW_TRANSFORM_HINT => st.transform_hint,
            NATIVE_WINDOW_CONSUMER_RUNNING_BEHIND => c_int::from(st.pending.len() >= 2),
            // The deprecated 32-bit form: the low half.
            NATIVE_WINDOW_CONSUMER_USAGE_BITS => st.consumer_usage as u32 as c_int,
            NATIVE_WINDOW_STICKY_TRANSFORM => st.p.sticky_transform,
            NATIVE_WINDOW_DEFAULT_DATASPACE => st.default_dataspace,
            NATIVE_WINDOW_BUFFER_AGE => int(st.buffer_age),
            NATIVE_WINDOW_LAST_DEQUEUE_DURATION => int((st.last_dequeue_duration / 1000) as u64),
            NATIVE_WINDOW_LAST_QUEUE_DURATION => int((st.last_queue_duration / 1000) as u64),
            NATIVE_WINDOW_LAYER_COUNT => 1,
            NATIVE_WINDOW_FRAME_TIMESTAMPS_SUPPORTS_PRESENT => 1,
            NATIVE_WINDOW_CONSUMER_IS_PROTECTED => {
                c_int::from(st.consumer_usage & buffer_usage::PROTECTED != 0)
            }
            NATIVE_WINDOW_DATASPACE => st.p.dataspace,
            NATIVE_WINDOW_MAX_BUFFER_COUNT => int(st.max_buffer_count.into()),
            _ => return Err(EINVAL),
        })
    }

    /// `dequeueBuffer`: a buffer for the producer and the fence to wait on before writing it.
    pub(crate) fn dequeue(&self) -> AbiResult<(*mut ANativeWindowBuffer, NativeFence)> {
        let start_ns = now_ns();
        let start = Instant::now();
        let mut st = self.lock();
        let timeout = st.p.dequeue_timeout;
        let deadline = timeout.and_then(|t| start.checked_add(t));
        let i = loop {
            if st.abandoned || st.p.connected_api.is_none() {
                return Err(ENODEV);
            }
            if let Some(i) = st.shared_slot.filter(|_| st.p.shared_buffer_mode) {
                break i;
            }
            match st.pick_free_slot() {
                Ok(i) => break i,
                // Android's INVALID_OPERATION, at once whatever the timeout (libvulkan maps it
                // to VK_TIMEOUT / VK_NOT_READY, like TIMED_OUT).
                Err(NoSlot::OverLimit) => return Err(ENOSYS),
                Err(NoSlot::AllBusy) => {}
            }
            st = match (timeout, deadline) {
                (None, _) | (Some(_), None) => self
                    .available
                    .wait(st)
                    .unwrap_or_else(PoisonError::into_inner),
                (Some(_), Some(deadline)) => {
                    let now = Instant::now();
                    if now >= deadline {
                        return Err(-libc::ETIMEDOUT);
                    }
                    self.available
                        .wait_timeout(st, deadline - now)
                        .unwrap_or_else(PoisonError::into_inner)
                        .0
                }
            };
        };

        let shared_established = st.is_shared_slot(i);
        if !shared_established {
            let (w, h, format, usage) = st.alloc_params();
            let fits = st.slots[i].buffer.as_ref().is_some_and(|b| {
                let d = b.desc();
                (d.width, d.height, d.format.hal()) == (w, h, format) && d.usage & usage == usage
            });
            if !fits {
                let buffer = Allocator::new()
                    .allocate(w, h, format, usage)
                    .map_err(|e| {
                        log::warn!(
                            "dequeueBuffer: allocating {w}x{h} format {format:#x} failed: {e}"
                        );
                        gralloc_errno(&e)
                    })?;
                st.counters.allocations += 1;
                let slot = &mut st.slots[i];
                slot.buffer = Some(WindowBuffer::new(buffer));
                // The old buffer's fence says nothing about the new one.
                slot.fence = NativeFence::signalled();
                slot.frame_number = 0;
            }
        }
        let Some(buffer) = st.slots[i].buffer.as_ref().map(WindowBuffer::as_native) else {
            return Err(EINVAL); // unreachable: the slot was just given a buffer
        };
        if !shared_established {
            st.slots[i].state = SlotState::Dequeued;
            if st.p.shared_buffer_mode {
                st.shared_slot = Some(i);
            }
        }
        let frame_number = st.slots[i].frame_number;
        st.buffer_age = if frame_number == 0 {
            0
        } else {
            st.frame_counter + 1 - frame_number
        };
        let fence = std::mem::take(&mut st.slots[i].fence);
        st.counters.dequeues += 1;
        st.last_dequeue_start = start_ns;
        st.last_dequeue_duration = now_ns() - start_ns;
        Ok((buffer, fence))
    }

    /// `queueBuffer`. `fence` is dropped (closed) on every error path.
    pub(crate) fn queue(
        &self,
        buffer: *mut ANativeWindowBuffer,
        fence: NativeFence,
    ) -> AbiResult<()> {
        let start = now_ns();
        let mut st = self.lock();
        if st.abandoned || st.p.connected_api.is_none() {
            return Err(ENODEV);
        }
        let i = st.slot_of(buffer).ok_or(EINVAL)?;
        if st.slots[i].state != SlotState::Dequeued {
            return Err(EINVAL);
        }
        let shared = st.is_shared_slot(i);
        st.frame_counter += 1;
        let n = st.frame_counter;
        let requested = st.p.timestamp.take();
        let dataspace = if st.p.dataspace == HAL_DATASPACE_UNKNOWN {
            st.default_dataspace
        } else {
            st.p.dataspace
        };
        let meta = FrameMeta {
            frame_number: n,
            transform: st.p.transform,
            dataspace,
            damage: std::mem::take(&mut st.p.damage),
            crop: st.p.crop,
            scaling_mode: st.p.scaling_mode,
            timestamp_ns: requested.unwrap_or(start),
            auto_timestamp: requested.is_none(),
            shared_buffer: shared,
            auto_refresh: st.p.auto_refresh,
            hdr: st.p.hdr.clone(),
        };
        let fifo = st.p.swap_interval >= 1;
        let acquired_at = fence.is_signalled().unwrap_or(false).then_some(start);
        st.timeline
            .record_queue(n, start, meta.timestamp_ns, fifo, acquired_at);
        if st.pending.back().is_some_and(|b| b.droppable) {
            let old = st.pending.pop_back().expect("checked non-empty");
            st.drop_pending(old);
        }
        let buffer = st.slots[i].buffer.clone().ok_or(EINVAL)?;
        if shared {
            st.last_shared = Some((buffer.clone(), i, meta.clone()));
        } else {
            st.slots[i].state = SlotState::Queued;
        }
        st.slots[i].frame_number = n;
        st.pending.push_back(PendingFrame {
            buffer,
            slot: Some(i),
            fence,
            droppable: shared || !fifo || self.queue_mode == QueueMode::LatestOnly,
            meta,
        });
        st.buffer_has_been_queued = true;
        st.counters.queues += 1;
        st.last_queue_duration = now_ns() - start;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// `cancelBuffer`: the buffer goes back to FREE; `fence` guards its next dequeue.
    pub(crate) fn cancel(
        &self,
        buffer: *mut ANativeWindowBuffer,
        fence: NativeFence,
    ) -> AbiResult<()> {
        let mut st = self.lock();
        if st.abandoned || st.p.connected_api.is_none() {
            return Err(ENODEV);
        }
        let i = st.slot_of(buffer).ok_or(EINVAL)?;
        if st.slots[i].state != SlotState::Dequeued {
            return Err(EINVAL);
        }
        if st.is_shared_slot(i) {
            // The shared buffer never leaves the producer.
            st.slots[i].fence = fence;
        } else {
            st.free_slot(i, fence);
        }
        st.counters.cancels += 1;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// Applies one decoded `perform` call to the queue's state.
    ///
    /// Long: one short arm per `NATIVE_WINDOW_*` operation, all under one lock.
    pub(crate) fn perform(&self, op: Perform) -> AbiResult<PerformOut> {
        use Perform as P;
        let mut st = self.lock();
        let mut wake = false;
        match op {
            P::Deprecated => {}
            P::SetUsage(usage) => st.p.usage = usage,
            P::SetCrop(crop) => st.p.crop = crop,
            P::SetBufferCount(count) => {
                if count == 0 {
                    st.p.buffer_count = 0;
                } else {
                    let count = u32::try_from(count).map_err(|_| EINVAL)?;
                    let dequeued = st
                        .slots
                        .iter()
                        .filter(|s| s.state == SlotState::Dequeued)
                        .count();
                    let min = st.min_undequeued();
                    if count > st.max_buffer_count
                        || count <= min
                        || ((count - min) as usize) < dequeued
                    {
                        return Err(EINVAL);
                    }
                    st.p.buffer_count = count;
                }
                st.trim();
                wake = true;
            }
            P::SetBuffersGeometry(w, h, format) => {
                let dims = producer_dims(w, h)?;
                if format != 0 {
                    PixelFormat::from_hal(format).map_err(|_| EINVAL)?;
                }
                st.p.dimensions = dims;
                st.p.format = format;
            }
            P::SetBuffersTransform(t) => st.p.transform = check_transform(t)?,
            P::SetBuffersStickyTransform(t) => st.p.sticky_transform = check_transform(t)?,
            P::SetBuffersTimestamp(ts) => {
                st.p.timestamp = (ts != NATIVE_WINDOW_TIMESTAMP_AUTO).then_some(ts);
            }
            P::SetBuffersDimensions(w, h) => st.p.dimensions = producer_dims(w, h)?,
            P::SetBuffersUserDimensions(w, h) => st.p.user_dimensions = producer_dims(w, h)?,
            P::SetBuffersFormat(format) => {
                if format != 0 {
                    PixelFormat::from_hal(format).map_err(|_| EINVAL)?;
                }
                st.p.format = format;
            }
            P::SetScalingMode(mode) => {
                if !(NATIVE_WINDOW_SCALING_MODE_FREEZE..=NATIVE_WINDOW_SCALING_MODE_NO_SCALE_CROP)
                    .contains(&mode)
                {
                    return Err(EINVAL);
                }
                st.p.scaling_mode = mode;
            }
            P::ApiConnect(api) => {
                if st.abandoned {
                    return Err(ENODEV);
                }
                if !(NATIVE_WINDOW_API_EGL..=NATIVE_WINDOW_API_CAMERA).contains(&api)
                    || st.p.connected_api.is_some()
                {
                    return Err(EINVAL);
                }
                st.p.connected_api = Some(api);
                st.buffer_has_been_queued = false;
                st.counters.connects += 1;
            }
            P::ApiDisconnect(api) => {
                match st.p.connected_api {
                    // Disconnecting after the consumer abandoned the queue is fine (Android).
                    None if st.abandoned => return Ok(PerformOut::Nothing),
                    None => return Err(ENODEV),
                    Some(connected) if connected != api => return Err(EINVAL),
                    Some(_) => {}
                }
                st.free_all(true);
                st.p.reset_on_disconnect();
                st.counters.disconnects += 1;
                wake = true;
            }
            P::SetBuffersDataspace(ds) => st.p.dataspace = ds,
            P::SetSurfaceDamage(rects) => st.p.damage = rects,
            P::SetSharedBufferMode(on) => {
                st.p.shared_buffer_mode = on;
                if !on {
                    // The slot stays DEQUEUED: the producer still holds the buffer and may
                    // queue or cancel it like any other.
                    st.shared_slot = None;
                    st.last_shared = None;
                }
                wake = true;
            }
            P::SetAutoRefresh(on) => st.p.auto_refresh = on,
            P::GetRefreshCycleDuration => {
                return Ok(PerformOut::I64(st.timeline.refresh_ns()));
            }
            P::GetNextFrameId => return Ok(PerformOut::U64(st.frame_counter + 1)),
            P::EnableFrameTimestamps(on) => st.p.frame_timestamps_enabled = on,
            P::GetCompositorTiming => {
                let (d, i, l) = st.timeline.compositor_timing(now_ns());
                return Ok(PerformOut::CompositorTiming([d, i, l]));
            }
            P::GetFrameTimestamps(frame_id) => {
                if !st.p.frame_timestamps_enabled {
                    return Err(ENOSYS);
                }
                st.poll_pending_acquires();
                return st
                    .timeline
                    .timestamps(frame_id, now_ns())
                    .map(PerformOut::Timestamps)
                    .ok_or(EINVAL);
            }
            P::GetConsumerUsage => {
                if st.abandoned {
                    return Err(ENODEV);
                }
                return Ok(PerformOut::U64(st.consumer_usage));
            }
            P::SetSmpte2086(m) => st.p.hdr.smpte2086 = m,
            P::SetCta8613(m) => st.p.hdr.cta861_3 = m,
            P::SetHdr10Plus(m) => st.p.hdr.hdr10_plus = m,
            P::SetAutoPrerotation(on) => st.p.auto_prerotation = on,
            P::GetLastDequeueStart => return Ok(PerformOut::I64(st.last_dequeue_start)),
            P::SetDequeueTimeout(ns) => {
                st.p.dequeue_timeout = u64::try_from(ns).ok().map(Duration::from_nanos);
            }
            P::GetLastDequeueDuration => return Ok(PerformOut::I64(st.last_dequeue_duration)),
            P::GetLastQueueDuration => return Ok(PerformOut::I64(st.last_queue_duration)),
            P::SetFrameRate(rate) => {
                if !rate.frame_rate.is_finite() || rate.frame_rate < 0.0 {
                    return Err(EINVAL);
                }
                st.p.frame_rate = Some(rate);
            }
            P::AllocateBuffers => self.allocate_free_slots(&mut st),
        }
        drop(st);
        if wake {
            self.available.notify_all();
        }
        Ok(PerformOut::Nothing)
    }

    /// `ANativeWindow_allocateBuffers`: gives every free slot within the buffer count a buffer
    /// of the current parameters. Failures are only logged (the NDK call returns nothing).
    fn allocate_free_slots(&self, st: &mut State) {
        let (w, h, format, usage) = st.alloc_params();
        for i in 0..st.total_buffers() {
            if st.slots[i].state != SlotState::Free || st.slots[i].buffer.is_some() {
                continue;
            }
            match Allocator::new().allocate(w, h, format, usage) {
                Ok(buffer) => {
                    st.counters.allocations += 1;
                    st.slots[i].buffer = Some(WindowBuffer::new(buffer));
                }
                Err(e) => {
                    log::warn!("allocateBuffers: {e}");
                    return;
                }
            }
        }
    }

    // -----------------------------------------------------------------------------------------
    // Consumer side.

    /// The newest queued frame, waiting for its acquire fence; older queued frames are skipped
    /// (their buffers go back to the producer). `None` when nothing new was queued, except in
    /// shared-buffer mode with auto-refresh, where the shared buffer is acquired again as the
    /// last frame queued from it.
    ///
    /// # Panics
    /// If the acquire fence fails or does not signal within the configured `acquire_timeout`,
    /// or the buffer cannot be mapped; [`BufferQueue::try_acquire_latest`] returns those as
    /// errors.
    pub fn acquire_latest(&self) -> Option<Frame> {
        self.try_acquire_latest()
            .unwrap_or_else(|e| panic!("acquire_latest: {e}"))
    }

    /// [`BufferQueue::acquire_latest`], reporting failures.
    pub fn try_acquire_latest(&self) -> Result<Option<Frame>, WindowError> {
        self.try_acquire(true)
    }

    /// The oldest queued frame (FIFO consumers, [`QueueMode::Fifo`]).
    ///
    /// # Panics
    /// As [`BufferQueue::acquire_latest`].
    pub fn acquire_next(&self) -> Option<Frame> {
        self.try_acquire_next()
            .unwrap_or_else(|e| panic!("acquire_next: {e}"))
    }

    /// [`BufferQueue::acquire_next`], reporting failures.
    pub fn try_acquire_next(&self) -> Result<Option<Frame>, WindowError> {
        self.try_acquire(false)
    }

    /// Waits up to `timeout` for a frame to acquire: true when one is queued (or the shared
    /// buffer auto-refreshes), false after the timeout or once the queue is abandoned. For
    /// consumers that sleep until the producer queues rather than poll.
    pub fn wait_for_frame(&self, timeout: Duration) -> bool {
        let deadline = Instant::now() + timeout;
        let mut st = self.lock();
        loop {
            if !st.pending.is_empty() || (st.last_shared.is_some() && st.p.auto_refresh) {
                return true;
            }
            let now = Instant::now();
            if st.abandoned || now >= deadline {
                return false;
            }
            st = self
                .available
                .wait_timeout(st, deadline - now)
                .unwrap_or_else(PoisonError::into_inner)
                .0;
        }
    }

    fn try_acquire(&self, latest: bool) -> Result<Option<Frame>, WindowError> {
        let item = {
            let mut st = self.lock();
            let item = if latest {
                let newest = st.pending.pop_back();
                while let Some(old) = st.pending.pop_front() {
                    st.drop_pending(old);
                }
                newest
            } else {
                st.pending.pop_front()
            };
            let item = match item {
                Some(item) => item,
                None => match &st.last_shared {
                    Some((buffer, i, meta)) if st.p.auto_refresh => PendingFrame {
                        buffer: buffer.clone(),
                        slot: Some(*i),
                        fence: NativeFence::signalled(),
                        droppable: true,
                        meta: meta.clone(),
                    },
                    _ => return Ok(None),
                },
            };
            if let Some(i) = item.slot {
                if st.slots[i].holds(&item.buffer) && st.slots[i].state == SlotState::Queued {
                    st.slots[i].state = SlotState::Acquired;
                }
            }
            st.counters.acquires += 1;
            item
        };
        self.available.notify_all();
        let PendingFrame {
            buffer,
            slot,
            fence,
            meta,
            ..
        } = item;
        let token = FrameToken {
            owner: self.weak_self.clone(),
            buffer: buffer.clone(),
            slot,
        };
        let waited = fence.wait(self.acquire_timeout);
        // Recorded on failure too, so that the fake display's later frames are not held up.
        self.lock()
            .timeline
            .set_acquired(meta.frame_number, now_ns());
        match waited {
            Ok(true) => drop(fence),
            Ok(false) => {
                // Give the buffer back guarded by the fence that has not signalled yet.
                token.release(fence);
                return Err(WindowError::FenceTimeout {
                    frame_number: meta.frame_number,
                    timeout: self.acquire_timeout.unwrap_or_default(),
                });
            }
            Err(e) => {
                token.release(fence);
                return Err(e.into());
            }
        }
        let desc = *buffer.desc();
        let copied = {
            let mut gralloc = buffer.gralloc();
            let copied = gralloc
                .map()
                .map(|mapping| to_rgba8(&desc, mapping.as_slice()));
            copied
        };
        let (pixels, raw) = match copied {
            Ok(copied) => copied,
            Err(e) => {
                token.release(NativeFence::signalled());
                return Err(e.into());
            }
        };
        Ok(Some(Frame {
            frame_number: meta.frame_number,
            width: desc.width,
            height: desc.height,
            stride: desc.stride,
            format: desc.format.hal(),
            usage: desc.usage,
            buffer_id: buffer.id(),
            pixels,
            raw,
            transform: meta.transform,
            dataspace: meta.dataspace,
            damage: meta.damage,
            crop: meta.crop,
            scaling_mode: meta.scaling_mode,
            timestamp_ns: meta.timestamp_ns,
            auto_timestamp: meta.auto_timestamp,
            shared_buffer: meta.shared_buffer,
            auto_refresh: meta.auto_refresh,
            hdr: meta.hdr,
            token: Some(token),
        }))
    }

    /// Gives an acquired frame's buffer back to the producer; its next dequeue returns
    /// `release_fence` (pass [`NativeFence::signalled`] for none). A frame of another queue, or
    /// one whose buffer the producer no longer has (it disconnected), is just dropped.
    pub fn release(&self, mut frame: Frame, release_fence: NativeFence) {
        if let Some(token) = frame.token.take() {
            if token.owner.as_ptr().cast::<()>() == self.weak_self.as_ptr().cast::<()>() {
                self.release_token(token, release_fence);
            } else {
                log::warn!(
                    "release: frame {} belongs to another queue",
                    frame.frame_number
                );
                token.release(release_fence);
            }
        }
    }

    /// Frames queued so far (the number of the last one; frame numbers start at 1).
    pub fn frame_count(&self) -> u64 {
        self.lock().frame_counter
    }

    /// Queued frames the consumer has not acquired yet.
    pub fn pending_frames(&self) -> usize {
        self.lock().pending.len()
    }

    pub fn counters(&self) -> Counters {
        self.lock().counters
    }

    /// A snapshot of what the producer has set.
    pub fn producer_state(&self) -> ProducerState {
        self.lock().p.clone()
    }

    /// Slots that currently hold a gralloc buffer.
    pub fn allocated_buffers(&self) -> usize {
        self.lock()
            .slots
            .iter()
            .filter(|s| s.buffer.is_some())
            .count()
    }

    /// What `NATIVE_WINDOW_GET_FRAME_TIMESTAMPS` would answer for `frame_number` now (also when
    /// the producer has not enabled frame timestamps); `None` if it is not in the history.
    pub fn frame_timestamps(&self, frame_number: u64) -> Option<FrameTimestamps> {
        let mut st = self.lock();
        st.poll_pending_acquires();
        st.timeline.timestamps(frame_number, now_ns())
    }

    /// `NATIVE_WINDOW_TRANSFORM_HINT` (`NATIVE_WINDOW_TRANSFORM_*`).
    pub fn set_transform_hint(&self, hint: c_int) {
        self.lock().transform_hint = hint;
    }

    /// The default buffer size (`setDefaultBufferSize`): later dequeues without explicit
    /// dimensions allocate at the new size, reallocating buffers of the old one.
    pub fn resize(&self, width: u32, height: u32) -> Result<(), WindowError> {
        check_dims(width, height)?;
        let mut st = self.lock();
        st.default_width = width;
        st.default_height = height;
        Ok(())
    }

    /// `NATIVE_WINDOW_MIN_UNDEQUEUED_BUFFERS` (before the async-mode extra one).
    pub fn set_min_undequeued(&self, min_undequeued: u32) -> Result<(), WindowError> {
        let mut st = self.lock();
        check_counts(min_undequeued, st.max_buffer_count)?;
        st.min_undequeued = min_undequeued;
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// `NATIVE_WINDOW_MAX_BUFFER_COUNT`; a producer buffer count above it is capped.
    pub fn set_max_buffer_count(&self, max_buffer_count: u32) -> Result<(), WindowError> {
        let mut st = self.lock();
        check_counts(st.min_undequeued, max_buffer_count)?;
        st.max_buffer_count = max_buffer_count;
        st.trim();
        drop(st);
        self.available.notify_all();
        Ok(())
    }

    /// Consumer usage bits (`GET_CONSUMER_USAGE64`), ORed into later allocations.
    pub fn set_consumer_usage(&self, usage: u64) {
        self.lock().consumer_usage = usage;
    }

    /// The default `HAL_PIXEL_FORMAT_*`.
    pub fn set_default_format(&self, format: c_int) -> Result<(), WindowError> {
        PixelFormat::from_hal(format)?;
        self.lock().default_format = format;
        Ok(())
    }

    /// The default dataspace (`NATIVE_WINDOW_DEFAULT_DATASPACE`).
    pub fn set_default_dataspace(&self, dataspace: c_int) {
        self.lock().default_dataspace = dataspace;
    }

    /// The consumer goes away (`consumerDisconnect`): buffers and unacquired frames are freed,
    /// blocked and later producer calls fail with `-ENODEV`, `IS_VALID` reads 0.
    pub fn abandon(&self) {
        let mut st = self.lock();
        st.abandoned = true;
        st.free_all(false);
        drop(st);
        self.available.notify_all();
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
mod tests {
    use super::*;

    #[test]
    fn config_validation() {
        let bad = [
            WindowConfig::with_size(0, 1),
            WindowConfig::with_size(1, MAX_DIMENSION + 1),
            WindowConfig {
                format: 0x7777,
                ..Default::default()
            },
            WindowConfig {
                min_undequeued: 8,
                max_buffer_count: 8,
                ..Default::default()
            },
            WindowConfig {
                max_buffer_count: NUM_BUFFER_SLOTS + 1,
                ..Default::default()
            },
            WindowConfig {
                refresh_ns: 0,
                ..Default::default()
            },
        ];
        for config in bad {
            assert!(BufferQueue::try_new(config.clone()).is_err(), "{config:?}");
        }
        BufferQueue::try_new(WindowConfig {
            max_buffer_count: NUM_BUFFER_SLOTS,
            ..Default::default()
        })
        .unwrap();
    }

    #[test]
    fn producer_dimension_rules() {
        assert_eq!(producer_dims(0, 0), Ok((0, 0)));
        assert_eq!(producer_dims(3, 4), Ok((3, 4)));
        assert_eq!(producer_dims(0, 4), Err(EINVAL));
        assert_eq!(producer_dims(-1, 4), Err(EINVAL));
        assert_eq!(producer_dims(MAX_DIMENSION as c_int + 1, 4), Err(EINVAL));
    }

    #[test]
    fn disconnect_keeps_what_android_keeps() {
        let mut p = ProducerState {
            connected_api: Some(NATIVE_WINDOW_API_EGL),
            usage: 5,
            format: HAL_PIXEL_FORMAT_RGB_565,
            dimensions: (4, 4),
            swap_interval: 0,
            shared_buffer_mode: true,
            dequeue_timeout: Some(Duration::ZERO),
            ..Default::default()
        };
        p.reset_on_disconnect();
        assert_eq!(p.connected_api, None);
        assert_eq!(p.usage, 0);
        assert_eq!(p.dimensions, (0, 0));
        assert!(!p.shared_buffer_mode);
        assert_eq!(p.format, HAL_PIXEL_FORMAT_RGB_565);
        assert_eq!(p.swap_interval, 0);
        assert_eq!(p.dequeue_timeout, Some(Duration::ZERO));
    }
}
