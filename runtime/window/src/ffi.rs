//! Every `extern "C"` entry point of the `ANativeWindow` / `ANativeWindowBuffer` objects, the
//! window's function table made of them, and the [`BufferQueue`] constructors that install it.
//!
//! Each entry point validates its pointers, turns the C arguments into typed values, calls
//! [`BufferQueue`]'s safe producer methods and writes results back, inside `catch_unwind` (a
//! panic answers [`INTERNAL_ERROR`]). Fence fds handed to `queueBuffer`/`cancelBuffer` become
//! [`NativeFence`]s before anything else, so they are closed on every path.
//!
//! The objects themselves ([`WindowObject`], the buffer type) are in [`crate::object`];
//! `incRef`/`decRef` here are strong-count operations on the raw pointer C holds.

use std::ffi::c_int;
use std::mem::size_of;
use std::ptr;
use std::sync::Arc;

use vkgen_abi::native_window::*;
use vkgen_platform::sync_fd::NativeFence;

use crate::c_abi::{vkgen_window_perform, AndroidNativeRect, PerformArgs};
use crate::config::{WindowConfig, WindowError, INTERNAL_ERROR};
use crate::object::WindowObject;
use crate::queue::{
    AbiResult, BufferQueue, FrameRate, Perform, PerformOut, MAX_DAMAGE_RECTS, MAX_HDR10_PLUS_BYTES,
};

const EINVAL: c_int = -libc::EINVAL;

/// The `ANativeWindow` every queue starts with: the header, and this module's entry points as
/// its function table.
fn window_object(dpi: f32) -> WindowObject {
    WindowObject::new(ANativeWindow {
        common: AndroidNativeBase {
            magic: ANDROID_NATIVE_WINDOW_MAGIC,
            version: size_of::<ANativeWindow>() as c_int,
            reserved: [ptr::null_mut(); 4],
            inc_ref: Some(window_inc_ref),
            dec_ref: Some(window_dec_ref),
        },
        flags: 0,
        min_swap_interval: 0,
        max_swap_interval: 1,
        xdpi: dpi,
        ydpi: dpi,
        oem: [0; 4],
        set_swap_interval: Some(set_swap_interval),
        dequeue_buffer_deprecated: Some(dequeue_buffer_deprecated),
        lock_buffer_deprecated: Some(buffer_op_deprecated),
        queue_buffer_deprecated: Some(buffer_op_deprecated),
        query: Some(query),
        perform: Some(vkgen_window_perform),
        cancel_buffer_deprecated: Some(buffer_op_deprecated),
        dequeue_buffer: Some(dequeue_buffer),
        queue_buffer: Some(queue_buffer),
        cancel_buffer: Some(cancel_buffer),
    })
}

/// The constructors live here because a queue's first field is its C object, whose function
/// table is this module's entry points.
impl BufferQueue {
    /// A new queue (not connected to any producer).
    ///
    /// # Panics
    /// If `config` is invalid; [`BufferQueue::try_new`] reports that as an error instead.
    pub fn new(config: WindowConfig) -> Arc<Self> {
        Self::try_new(config).unwrap_or_else(|e| panic!("BufferQueue::new: {e}"))
    }

    /// A new queue, or why `config` is invalid (size outside 1..=32768, unsupported format,
    /// `max_buffer_count` outside 1..=64 or not above `min_undequeued`, zero `refresh_ns`).
    pub fn try_new(config: WindowConfig) -> Result<Arc<Self>, WindowError> {
        install_perform_dispatch();
        let window = window_object(config.dpi);
        Self::with_window(config, window)
    }

    /// The queue behind a window this crate made, with a new strong reference; `None` for a
    /// null pointer or another implementation's window.
    ///
    /// # Safety
    /// `window` must be null or point to a live `ANativeWindow` (of any implementation): its
    /// header and, if the function table is this crate's, the queue behind it must be readable.
    pub unsafe fn from_window(window: *const ANativeWindow) -> Option<Arc<Self>> {
        // SAFETY: `window` is null or a live `ANativeWindow` whose header (and queue, if the table
        // is ours) is readable (this function's contract), what `queue_from_window` reads.
        let q = unsafe { queue_from_window(window) }?;
        q.strong()
    }
}

/// Runs an entry point's body, turning a panic into [`INTERNAL_ERROR`].
fn guard(what: &str, body: impl FnOnce() -> c_int) -> c_int {
    vkgen_abi::guard::guard(what, INTERNAL_ERROR, body)
}

fn status(r: AbiResult<()>) -> c_int {
    r.err().unwrap_or(0)
}

/// The queue behind `window` if it is one of ours: right magic, our function table, our cookie.
///
/// # Safety
/// `window` must be null or point to a readable `ANativeWindow` of any implementation; if it is
/// one of ours, the queue must stay alive for `'a`.
pub(crate) unsafe fn queue_from_window<'a>(
    window: *const ANativeWindow,
) -> Option<&'a BufferQueue> {
    if window.is_null() || !window.cast::<BufferQueue>().is_aligned() {
        return None;
    }
    // SAFETY: non-null and aligned; the caller guarantees an `ANativeWindow` is readable there.
    let (magic, query_fn) = unsafe {
        (
            ptr::addr_of!((*window).common.magic).read(),
            ptr::addr_of!((*window).query).read(),
        )
    };
    // Only our windows have our `query`; past that the object is known to be a `BufferQueue`.
    let ours = query as PfnQuery as *const ();
    if magic != ANDROID_NATIVE_WINDOW_MAGIC || query_fn.map(|f| f as *const ()) != Some(ours) {
        return None;
    }
    let q = window.cast::<BufferQueue>();
    // SAFETY: it is one of ours, so a whole `BufferQueue` (its `WindowObject` first) lives there
    // for 'a.
    let ours = unsafe { WindowObject::has_cookie(ptr::addr_of!((*q).window)) };
    // SAFETY: the function table and the cookie say a `BufferQueue` lives at `q`, and the caller
    // keeps it alive for 'a.
    ours.then(|| unsafe { &*q })
}

unsafe extern "C" fn window_inc_ref(base: *mut AndroidNativeBase) {
    guard("ANativeWindow::incRef", || {
        // SAFETY: only our windows point here, and the caller holds a reference.
        if unsafe { queue_from_window(base.cast()) }.is_some() {
            // SAFETY: `base` is the address of a `BufferQueue` inside an `Arc` (the pointer
            // came from `Weak::as_ptr`) with at least the caller's strong reference.
            unsafe { Arc::increment_strong_count(base.cast_const().cast::<BufferQueue>()) };
        }
        0
    });
}

unsafe extern "C" fn window_dec_ref(base: *mut AndroidNativeBase) {
    guard("ANativeWindow::decRef", || {
        // SAFETY: only our windows point here, and the caller holds a reference, so
        // `queue_from_window` reads a live header.
        if unsafe { queue_from_window(base.cast()) }.is_some() {
            // SAFETY: `base` is a `BufferQueue` inside an `Arc` with at least the caller's strong
            // reference, which the caller gives up here; it may be the last one (the queue is then
            // dropped here).
            unsafe { Arc::decrement_strong_count(base.cast_const().cast::<BufferQueue>()) };
        }
        0
    });
}

unsafe extern "C" fn set_swap_interval(window: *mut ANativeWindow, interval: c_int) -> c_int {
    guard("setSwapInterval", || {
        // SAFETY: only our windows point here; the caller holds a reference.
        match unsafe { queue_from_window(window) } {
            Some(q) => status(q.set_swap_interval(interval)),
            None => EINVAL,
        }
    })
}

/// `dequeueBuffer_DEPRECATED` (no fence out-parameter): not supported.
unsafe extern "C" fn dequeue_buffer_deprecated(
    _window: *mut ANativeWindow,
    _buffer: *mut *mut ANativeWindowBuffer,
) -> c_int {
    -libc::ENOSYS
}

/// `lockBuffer_DEPRECATED`, `queueBuffer_DEPRECATED`, `cancelBuffer_DEPRECATED`: not supported.
unsafe extern "C" fn buffer_op_deprecated(
    _window: *mut ANativeWindow,
    _buffer: *mut ANativeWindowBuffer,
) -> c_int {
    -libc::ENOSYS
}

unsafe extern "C" fn query(window: *const ANativeWindow, what: c_int, value: *mut c_int) -> c_int {
    guard("query", || {
        // SAFETY: only our windows point here; the caller holds a reference.
        let Some(q) = (unsafe { queue_from_window(window) }) else {
            return EINVAL;
        };
        if value.is_null() {
            return EINVAL;
        }
        match q.query(what) {
            Ok(v) => {
                // SAFETY: non-null; the caller passes a writable `int*`.
                unsafe { value.write_unaligned(v) };
                0
            }
            Err(e) => e,
        }
    })
}

unsafe extern "C" fn dequeue_buffer(
    window: *mut ANativeWindow,
    buffer: *mut *mut ANativeWindowBuffer,
    fence_fd: *mut c_int,
) -> c_int {
    guard("dequeueBuffer", || {
        // SAFETY: only our windows point here; the caller holds a reference.
        let Some(q) = (unsafe { queue_from_window(window) }) else {
            return EINVAL;
        };
        if buffer.is_null() || fence_fd.is_null() {
            return EINVAL;
        }
        let (out, fd, rc) = match q.dequeue() {
            Ok((b, fence)) => (b, fence.into_raw(), 0),
            Err(e) => (ptr::null_mut(), -1, e),
        };
        // SAFETY: both non-null; the caller passes writable out-parameters. From here the
        // caller owns `fd`.
        unsafe {
            buffer.write_unaligned(out);
            fence_fd.write_unaligned(fd);
        }
        rc
    })
}

unsafe extern "C" fn queue_buffer(
    window: *mut ANativeWindow,
    buffer: *mut ANativeWindowBuffer,
    fence_fd: c_int,
) -> c_int {
    // SAFETY: the ABI hands the window ownership of `fence_fd` (when >= 0), even on failure;
    // dropping the `NativeFence` on any path closes it.
    let fence = unsafe { NativeFence::from_raw(fence_fd) };
    guard("queueBuffer", move || {
        // SAFETY: only our windows point here; the caller holds a reference.
        match unsafe { queue_from_window(window) } {
            Some(q) => status(q.queue(buffer, fence)),
            None => EINVAL,
        }
    })
}

unsafe extern "C" fn cancel_buffer(
    window: *mut ANativeWindow,
    buffer: *mut ANativeWindowBuffer,
    fence_fd: c_int,
) -> c_int {
    // SAFETY: as in `queue_buffer`: the window owns `fence_fd` from here on.
    let fence = unsafe { NativeFence::from_raw(fence_fd) };
    guard("cancelBuffer", move || {
        // SAFETY: only our windows point here; the caller holds a reference.
        match unsafe { queue_from_window(window) } {
            Some(q) => status(q.cancel(buffer, fence)),
            None => EINVAL,
        }
    })
}

/// Installs [`perform_dispatch`] as `csrc/perform.c`'s handler (idempotent; before any window
/// exists, so before any `perform` call).
pub(crate) fn install_perform_dispatch() {
    static ONCE: std::sync::Once = std::sync::Once::new();
    ONCE.call_once(|| {
        // SAFETY: a plain store of a function pointer with the handler's exact C signature.
        unsafe { crate::c_abi::vkgen_window_set_dispatch(perform_dispatch) }
    });
}

/// Called by `csrc/perform.c` with the decoded variadic arguments.
///
/// # Safety
/// `args` must point to a [`PerformArgs`] whose pointers are what `operation` expects (see the
/// operation table in `csrc/perform.c`).
unsafe extern "C" fn perform_dispatch(
    window: *mut ANativeWindow,
    operation: c_int,
    args: *const PerformArgs,
) -> c_int {
    guard("perform", || {
        // SAFETY: only our windows' `perform` calls this; the caller holds a reference.
        let Some(q) = (unsafe { queue_from_window(window) }) else {
            return EINVAL;
        };
        if args.is_null() {
            return EINVAL;
        }
        // SAFETY: non-null; the shim passes its local argument block.
        let args = unsafe { args.read() };
        // SAFETY: the pointers in `args` are what the caller passed for `operation`.
        let op = match unsafe { decode(operation, &args) } {
            Ok(op) => op,
            Err(e) => return e,
        };
        match q.perform(op) {
            // SAFETY: `decode` checked the required out-pointers are non-null; the caller passed
            // writable ones of the operation's types.
            Ok(out) => unsafe { write_out(&args, out) },
            Err(e) => e,
        }
    })
}

/// Reads one optional struct argument.
///
/// # Safety
/// `p` must be null or point to a readable `T`.
unsafe fn read_opt<T: Copy>(p: *const T) -> Option<T> {
    // SAFETY: `p` was checked non-null and points to a readable `T` (this function's contract); an
    // unaligned read accepts any C caller's pointer.
    (!p.is_null()).then(|| unsafe { p.read_unaligned() })
}

/// Turns a `perform` call into a [`Perform`]; `-EINVAL` for unknown codes, null required
/// pointers and out-of-range sizes.
///
/// # Safety
/// The pointers in `a` must be valid for `operation` as the shim's table describes.
unsafe fn decode(operation: c_int, a: &PerformArgs) -> AbiResult<Perform> {
    use Perform as P;
    // `int` arguments arrive sign-extended.
    let int = |i: usize| a.ints[i] as c_int;
    let flag = |i: usize| a.ints[i] != 0;
    let size = |i: usize| a.ints[i] as u64 as usize;
    let out = |i: usize| {
        if a.ptrs[i].is_null() {
            Err(EINVAL)
        } else {
            Ok(())
        }
    };
    Ok(match operation {
        NATIVE_WINDOW_CONNECT | NATIVE_WINDOW_DISCONNECT => P::Deprecated,
        NATIVE_WINDOW_SET_USAGE => P::SetUsage(u64::from(a.ints[0] as u32)),
        NATIVE_WINDOW_SET_USAGE64 => P::SetUsage(a.ints[0] as u64),
        // SAFETY: null or a readable rect.
        NATIVE_WINDOW_SET_CROP => P::SetCrop(unsafe { read_opt(a.ptrs[0].cast()) }),
        NATIVE_WINDOW_SET_BUFFER_COUNT => P::SetBufferCount(a.ints[0]),
        NATIVE_WINDOW_SET_BUFFERS_GEOMETRY => P::SetBuffersGeometry(int(0), int(1), int(2)),
        NATIVE_WINDOW_SET_BUFFERS_TRANSFORM => P::SetBuffersTransform(int(0)),
        NATIVE_WINDOW_SET_BUFFERS_STICKY_TRANSFORM => P::SetBuffersStickyTransform(int(0)),
        NATIVE_WINDOW_SET_BUFFERS_TIMESTAMP => P::SetBuffersTimestamp(a.ints[0]),
        NATIVE_WINDOW_SET_BUFFERS_DIMENSIONS => P::SetBuffersDimensions(int(0), int(1)),
        NATIVE_WINDOW_SET_BUFFERS_USER_DIMENSIONS => P::SetBuffersUserDimensions(int(0), int(1)),
        NATIVE_WINDOW_SET_BUFFERS_FORMAT => P::SetBuffersFormat(int(0)),
        NATIVE_WINDOW_SET_SCALING_MODE => P::SetScalingMode(int(0)),
        NATIVE_WINDOW_API_CONNECT => P::ApiConnect(int(0)),
        NATIVE_WINDOW_API_DISCONNECT => P::ApiDisconnect(int(0)),
        NATIVE_WINDOW_SET_BUFFERS_DATASPACE => P::SetBuffersDataspace(int(0)),
        NATIVE_WINDOW_SET_SURFACE_DAMAGE => {
            let (rects, n) = (a.ptrs[0].cast::<AndroidNativeRect>(), size(0));
            if n > MAX_DAMAGE_RECTS || (n > 0 && rects.is_null()) {
                return Err(EINVAL);
            }
            let read = |i: usize| {
                // SAFETY: the caller passes `n` readable rects (any alignment is accepted).
                unsafe { rects.add(i).read_unaligned() }
            };
            P::SetSurfaceDamage((0..n).map(read).collect())
        }
        NATIVE_WINDOW_SET_SHARED_BUFFER_MODE => P::SetSharedBufferMode(flag(0)),
        NATIVE_WINDOW_SET_AUTO_REFRESH => P::SetAutoRefresh(flag(0)),
        NATIVE_WINDOW_GET_REFRESH_CYCLE_DURATION => {
            out(0)?;
            P::GetRefreshCycleDuration
        }
        NATIVE_WINDOW_GET_NEXT_FRAME_ID => {
            out(0)?;
            P::GetNextFrameId
        }
        NATIVE_WINDOW_ENABLE_FRAME_TIMESTAMPS => P::EnableFrameTimestamps(flag(0)),
        NATIVE_WINDOW_GET_COMPOSITOR_TIMING => P::GetCompositorTiming,
        NATIVE_WINDOW_GET_FRAME_TIMESTAMPS => P::GetFrameTimestamps(a.ints[0] as u64),
        NATIVE_WINDOW_GET_CONSUMER_USAGE64 => {
            out(0)?;
            P::GetConsumerUsage
        }
        NATIVE_WINDOW_SET_BUFFERS_SMPTE2086_METADATA => {
            // SAFETY: null (clear) or a readable struct.
            P::SetSmpte2086(unsafe { read_opt(a.ptrs[0].cast()) })
        }
        NATIVE_WINDOW_SET_BUFFERS_CTA861_3_METADATA => {
            // SAFETY: null (clear) or a readable struct.
            P::SetCta8613(unsafe { read_opt(a.ptrs[0].cast()) })
        }
        NATIVE_WINDOW_SET_BUFFERS_HDR10_PLUS_METADATA => {
            let (data, n) = (a.ptrs[0].cast::<u8>().cast_const(), size(0));
            if n > MAX_HDR10_PLUS_BYTES || (n > 0 && data.is_null()) {
                return Err(EINVAL);
            }
            P::SetHdr10Plus((n > 0).then(|| {
                // SAFETY: the caller passes `n` readable bytes.
                unsafe { std::slice::from_raw_parts(data, n) }.to_vec()
            }))
        }
        NATIVE_WINDOW_SET_AUTO_PREROTATION => P::SetAutoPrerotation(flag(0)),
        NATIVE_WINDOW_GET_LAST_DEQUEUE_START => {
            out(0)?;
            P::GetLastDequeueStart
        }
        NATIVE_WINDOW_SET_DEQUEUE_TIMEOUT => P::SetDequeueTimeout(a.ints[0]),
        NATIVE_WINDOW_GET_LAST_DEQUEUE_DURATION => {
            out(0)?;
            P::GetLastDequeueDuration
        }
        NATIVE_WINDOW_GET_LAST_QUEUE_DURATION => {
            out(0)?;
            P::GetLastQueueDuration
        }
        NATIVE_WINDOW_SET_FRAME_RATE => P::SetFrameRate(FrameRate {
            frame_rate: a.real as f32,
            compatibility: int(0),
            change_strategy: int(1),
        }),
        NATIVE_WINDOW_ALLOCATE_BUFFERS => P::AllocateBuffers,
        _ => return Err(EINVAL),
    })
}

/// Writes a `perform` result to the caller's out-pointers (null optional ones are skipped).
///
/// # Safety
/// The non-null pointers in `a` must be writable values of the operation's out types.
unsafe fn write_out(a: &PerformArgs, out: PerformOut) -> c_int {
    let put = |i: usize, v: i64| {
        let p = a.ptrs[i].cast::<i64>();
        if !p.is_null() {
            // SAFETY: per the caller, a writable `int64_t`/`nsecs_t` (or `uint64_t`: same size).
            unsafe { p.write_unaligned(v) };
        }
    };
    match out {
        PerformOut::Nothing => {}
        PerformOut::I64(v) => put(0, v),
        PerformOut::U64(v) => put(0, v as i64),
        PerformOut::CompositorTiming(values) => {
            for (i, v) in values.into_iter().enumerate() {
                put(i, v);
            }
        }
        PerformOut::Timestamps(ts) => {
            for (i, v) in ts.to_array().into_iter().enumerate() {
                put(i, v);
            }
        }
    }
    0
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn panics_stop_at_the_boundary() {
        assert_eq!(guard("test", || panic!("boom")), INTERNAL_ERROR);
        assert_eq!(guard("test", || 7), 7);
    }

    #[test]
    fn rust_side_refuses_codes_the_shim_would_not_forward() {
        let args = PerformArgs {
            real: 0.0,
            ints: [0; 4],
            ptrs: [ptr::null_mut(); 9],
        };
        for op in [
            NATIVE_WINDOW_LOCK,
            NATIVE_WINDOW_SET_SIDEBAND_STREAM,
            1000,
            -1,
        ] {
            // SAFETY: no pointer is read for codes that are refused.
            assert_eq!(unsafe { decode(op, &args) }, Err(EINVAL), "{op}");
        }
        // SAFETY: the getter checks its out-pointer before anything else.
        let getter = unsafe { decode(NATIVE_WINDOW_GET_NEXT_FRAME_ID, &args) };
        assert_eq!(getter, Err(EINVAL));
    }

    #[test]
    fn objects_start_with_their_abi_struct() {
        assert_eq!(std::mem::offset_of!(BufferQueue, window), 0);
    }
}
