//! `AHardwareBuffer` on Linux hosts: the NDK object over the runtime's gralloc, so code written
//! against `android/hardware_buffer.h` runs here and drivers import what it allocates.
//!
//! # Design
//! * **The object is an `ANativeWindowBuffer`.** On Android an `AHardwareBuffer*` is a
//!   `GraphicBuffer`, whose head is an `ANativeWindowBuffer` (the NDK converts between the two by
//!   a cast). [`HardwareBuffer`] keeps that identity: `#[repr(C)]`, `ANativeWindowBuffer` first
//!   (magic `_bfr`, `common.incRef`/`decRef` on an `Arc`, the gralloc `native_handle_t` in
//!   `handle`). The BufferQueue's buffers are the same objects, so a window's buffer is an
//!   `AHardwareBuffer` and `VkNativeBufferANDROID::ahb` can point at it.
//! * **Any copy of this code can use any buffer.** A buffer crosses shared objects: the
//!   application allocates through `libnativewindow.so`, the driver (`vulkan.*.so`, with its own
//!   copy of this crate) imports it. Nothing here needs the concrete Rust type of a buffer it is
//!   given: [`HardwareBufferRef`] reads the `ANativeWindowBuffer` header and the gralloc handle,
//!   holds a reference through the header's own `incRef`/`decRef`, and maps or imports the
//!   handle's memfd. Only allocation makes a [`HardwareBuffer`].
//! * **Bad pointers are errors, not crashes.** Headers and handles are copied out with
//!   `process_vm_readv` on our own process, which reports an unmapped address as `EFAULT`
//!   instead of faulting; a pointer that is not an `AHardwareBuffer` fails the magic, version,
//!   refcount or handle checks ([`HardwareBufferError`]). Vulkan turns every such failure into
//!   `VK_ERROR_INVALID_EXTERNAL_HANDLE`, the NDK functions into `-EINVAL`.
//! * **Formats** are the gralloc's ([`PixelFormat`]): the colour formats, `BLOB`, and the 4:2:0
//!   formats NV12 (`Y8Cb8Cr8_420`), NV21 and YV12 with Android's plane layouts. One layer, one
//!   mip level.
//! * **The C ABI** ([`ndk`]) is plain `extern "C"` functions with the NDK's names; the
//!   `libnativewindow.so` crate exports them (`#[no_mangle]` here would export them from every
//!   driver too).

use std::cell::UnsafeCell;
use std::ffi::{c_int, c_void};
use std::mem::{size_of, MaybeUninit};
use std::os::fd::BorrowedFd;
use std::panic::{catch_unwind, AssertUnwindSafe};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, Mutex, MutexGuard, PoisonError};

pub use vkgen_abi::hardware_buffer::{
    format, usage, AHardwareBuffer, AHardwareBufferDesc, AHardwareBufferPlane,
    AHardwareBufferPlanes, ARect,
};
use vkgen_abi::native_window::{
    ANativeWindowBuffer, AndroidNativeBase, NativeHandle, PfnNativeBaseRef,
    ANDROID_NATIVE_BUFFER_MAGIC, NATIVE_HANDLE_VERSION,
};

use crate::gralloc::{self, Allocator, BufferDesc, GrallocError, PixelFormat, HANDLE_NUM_INTS};

/// Why a pointer is not a usable `AHardwareBuffer`.
#[derive(Debug, thiserror::Error)]
pub enum HardwareBufferError {
    #[error("null AHardwareBuffer")]
    Null,
    #[error("AHardwareBuffer {0:#x} is not readable memory")]
    Unreadable(usize),
    #[error("not an ANativeWindowBuffer (magic {0:#x})")]
    Magic(c_int),
    #[error("ANativeWindowBuffer version {0} is not this ABI's")]
    Version(c_int),
    #[error("the buffer has no incRef/decRef")]
    NoRefcount,
    #[error("the buffer's gralloc handle: {0}")]
    Handle(#[source] GrallocError),
    #[error("the buffer's header ({header}) disagrees with its gralloc handle")]
    Mismatch { header: &'static str },
    #[error("{0}")]
    Gralloc(#[from] GrallocError),
}

/// Result alias of this module.
pub type Result<T, E = HardwareBufferError> = std::result::Result<T, E>;

/// First word after the header of our buffers: tells a [`HardwareBuffer`] from other
/// `ANativeWindowBuffer`s that happen to share the function pointers' address range.
const COOKIE: u64 = u64::from_be_bytes(*b"vkgenahb");

static NEXT_ID: AtomicU64 = AtomicU64::new(1);

/// A buffer this runtime allocated: `ANativeWindowBuffer` first, `Arc`-owned, the gralloc
/// [`Buffer`](gralloc::Buffer) inside. See the [module docs](self).
#[repr(C)]
pub struct HardwareBuffer {
    /// In an `UnsafeCell`: C receives a `*mut ANativeWindowBuffer`.
    anwb: UnsafeCell<ANativeWindowBuffer>,
    cookie: u64,
    id: u64,
    desc: BufferDesc,
    /// `Buffer::map` needs `&mut`; consumers map while producers may look the buffer up.
    gralloc: Mutex<gralloc::Buffer>,
}

// SAFETY: the `ANativeWindowBuffer` is written only in `new`, before the `Arc` is shared; its
// `handle` points into the gralloc buffer's own immutable allocation. The gralloc buffer is
// `Send` and behind a `Mutex`.
unsafe impl Send for HardwareBuffer {}
// SAFETY: a `&HardwareBuffer` gives only reads of data written before the `Arc` was shared, and the
// gralloc buffer behind a `Mutex`.
unsafe impl Sync for HardwareBuffer {}

impl std::fmt::Debug for HardwareBuffer {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HardwareBuffer")
            .field("id", &self.id)
            .field("desc", &self.desc)
            .finish_non_exhaustive()
    }
}

impl HardwareBuffer {
    /// Wraps a gralloc buffer.
    pub fn new(buffer: gralloc::Buffer) -> Arc<Self> {
        // SAFETY: `ANativeWindowBuffer` is plain data for which all-zero is valid (null
        // pointers, `None` function pointers).
        let mut anwb: ANativeWindowBuffer = unsafe { std::mem::zeroed() };
        buffer.init_window_buffer(&mut anwb);
        anwb.common.inc_ref = Some(inc_ref);
        anwb.common.dec_ref = Some(dec_ref);
        Arc::new(Self {
            anwb: UnsafeCell::new(anwb),
            cookie: COOKIE,
            id: NEXT_ID.fetch_add(1, Ordering::Relaxed),
            desc: *buffer.desc(),
            gralloc: Mutex::new(buffer),
        })
    }

    /// `AHardwareBuffer_allocate`: a zero-filled buffer as `desc` describes, if
    /// `is_supported` says so.
    pub fn allocate(desc: &AHardwareBufferDesc) -> Result<Arc<Self>> {
        check_supported(desc)?;
        let format = c_int::try_from(desc.format)
            .map_err(|_| GrallocError::UnsupportedFormat(c_int::MAX))?;
        let buffer = Allocator::new().allocate(desc.width, desc.height, format, desc.usage)?;
        Ok(Self::new(buffer))
    }

    /// The `ANativeWindowBuffer*` handed to C (with the provenance of the whole `Arc`).
    pub fn as_native(this: &Arc<Self>) -> *mut ANativeWindowBuffer {
        Arc::as_ptr(this).cast_mut().cast::<ANativeWindowBuffer>()
    }

    /// The same pointer as an `AHardwareBuffer*`.
    pub fn as_ahb(this: &Arc<Self>) -> *mut AHardwareBuffer {
        Self::as_native(this).cast()
    }

    /// Hands one reference to C: the caller of `AHardwareBuffer_allocate` releases it.
    pub fn into_raw(this: Arc<Self>) -> *mut AHardwareBuffer {
        Arc::into_raw(this).cast_mut().cast()
    }

    /// A new `Arc` to the buffer behind `ahb` if it is one of this copy of the runtime's.
    ///
    /// # Safety
    /// `ahb` is null or an `AHardwareBuffer` the caller holds a reference to.
    pub unsafe fn from_ahb(ahb: *const AHardwareBuffer) -> Option<Arc<Self>> {
        // SAFETY: `ahb` is null or a buffer the caller holds a reference to (this function's
        // contract); `is_ours` reads only memory it has checked is readable.
        if !unsafe { is_ours(ahb.cast()) } {
            return None;
        }
        let this = ahb.cast::<Self>();
        // SAFETY: ours, so it sits in an `Arc` with at least the caller's strong reference.
        unsafe {
            Arc::increment_strong_count(this);
            Some(Arc::from_raw(this))
        }
    }

    pub fn desc(&self) -> &BufferDesc {
        &self.desc
    }

    /// Unique within the process (`AHardwareBuffer_getId` answers the memfd's inode instead,
    /// which every importer sees the same).
    pub fn id(&self) -> u64 {
        self.id
    }

    pub fn gralloc(&self) -> MutexGuard<'_, gralloc::Buffer> {
        self.gralloc.lock().unwrap_or_else(PoisonError::into_inner)
    }
}

/// Whether `base` is the header of one of this copy's [`HardwareBuffer`]s.
///
/// # Safety
/// `base` must be null or point to memory that stays mapped during the call.
pub unsafe fn is_ours(base: *const AndroidNativeBase) -> bool {
    if base.is_null() || !base.cast::<HardwareBuffer>().is_aligned() {
        return false;
    }
    let Some(header) = read_unaligned_checked::<ANativeWindowBuffer>(base.cast()) else {
        return false;
    };
    if header.common.magic != ANDROID_NATIVE_BUFFER_MAGIC
        || header.common.inc_ref.map(|f| f as *const ())
            != Some(inc_ref as PfnNativeBaseRef as *const ())
    {
        return false;
    }
    let cookie = base
        .cast::<u8>()
        .wrapping_add(std::mem::offset_of!(HardwareBuffer, cookie));
    read_unaligned_checked::<u64>(cookie.cast()) == Some(COOKIE)
}

unsafe extern "C" fn inc_ref(base: *mut AndroidNativeBase) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: only our buffers point here, and the caller holds a reference.
        if unsafe { is_ours(base) } {
            // SAFETY: `base` is the address of a `HardwareBuffer` inside an `Arc` (from
            // `Arc::as_ptr`/`into_raw`) with at least the caller's strong reference.
            unsafe { Arc::increment_strong_count(base.cast_const().cast::<HardwareBuffer>()) };
        }
    }));
}

unsafe extern "C" fn dec_ref(base: *mut AndroidNativeBase) {
    let _ = catch_unwind(AssertUnwindSafe(|| {
        // SAFETY: only our buffers point here, and the caller holds a reference; `is_ours` reads
        // only memory it checked is readable.
        if unsafe { is_ours(base) } {
            // SAFETY: `base` is a `HardwareBuffer` inside an `Arc` with at least the caller's
            // strong reference, which the caller gives up here; this may drop the last one.
            unsafe { Arc::decrement_strong_count(base.cast_const().cast::<HardwareBuffer>()) };
        }
    }));
}

/// Copies a `T` from `addr` without trusting that `addr` is mapped: `process_vm_readv` on our
/// own process answers `EFAULT` for an unmapped address. Where the call is not allowed (a
/// seccomp filter), falls back to a plain read, so only a truly wild pointer can fault then.
fn read_unaligned_checked<T: Copy>(addr: *const T) -> Option<T> {
    let mut out = MaybeUninit::<T>::uninit();
    let local = libc::iovec {
        iov_base: out.as_mut_ptr().cast(),
        iov_len: size_of::<T>(),
    };
    let remote = libc::iovec {
        iov_base: addr.cast_mut().cast(),
        iov_len: size_of::<T>(),
    };
    // SAFETY: `local` describes our own `out`, writable for `size_of::<T>()` bytes; the kernel
    // checks `remote` and never faults on it.
    let n = unsafe { libc::process_vm_readv(libc::getpid(), &local, 1, &remote, 1, 0) };
    if n == size_of::<T>() as isize {
        // SAFETY: fully written; callers use this only for plain-data `T` (ints, pointers,
        // `Option<fn>`), for which any bit pattern the kernel copied is valid.
        return Some(unsafe { out.assume_init() });
    }
    let errno = std::io::Error::last_os_error().raw_os_error();
    if n < 0 && matches!(errno, Some(libc::ENOSYS) | Some(libc::EPERM)) {
        // SAFETY: no way to check here; the caller's contract says `addr` is readable.
        return Some(unsafe { addr.read_unaligned() });
    }
    None
}

/// A counted reference to any `AHardwareBuffer` (ours or another runtime copy's): the header
/// and handle checked and copied out, a reference taken through the header's `incRef` and given
/// back through its `decRef`.
#[derive(Debug)]
pub struct HardwareBufferRef {
    ptr: NonNull<ANativeWindowBuffer>,
    dec_ref: PfnNativeBaseRef,
    inc_ref: PfnNativeBaseRef,
    desc: BufferDesc,
    handle: *const NativeHandle,
}

// SAFETY: the reference is counted by the buffer's own (thread-safe) refcount; the copied
// fields are plain data; the handle is only read through checked reads.
unsafe impl Send for HardwareBufferRef {}
// SAFETY: a `&HardwareBufferRef` gives only its copied plain fields and checked reads of the
// handle; the refcount it holds is thread-safe.
unsafe impl Sync for HardwareBufferRef {}

impl HardwareBufferRef {
    /// Checks `ahb` and takes a reference to it.
    ///
    /// # Safety
    /// If `ahb` is an `AHardwareBuffer`, the caller holds a reference to it for the duration of
    /// the call. Any other pointer is answered with an error (see the module docs).
    pub unsafe fn acquire(ahb: *const AHardwareBuffer) -> Result<Self> {
        // SAFETY: `ahb` is referenced by the caller for this call if it is a buffer (this
        // function's contract), and `inspect` answers any other pointer with an error.
        let (header, desc) = unsafe { inspect(ahb) }?;
        let (Some(inc_ref), Some(dec_ref)) = (header.common.inc_ref, header.common.dec_ref) else {
            return Err(HardwareBufferError::NoRefcount);
        };
        let ptr = NonNull::new(ahb.cast_mut().cast::<ANativeWindowBuffer>())
            .ok_or(HardwareBufferError::Null)?;
        // SAFETY: a checked buffer header with the caller's reference held.
        unsafe { inc_ref(ptr.as_ptr().cast()) };
        Ok(Self {
            ptr,
            dec_ref,
            inc_ref,
            desc,
            handle: header.handle,
        })
    }

    /// The `AHardwareBuffer*` (for `vkGetMemoryAndroidHardwareBufferANDROID`, which hands out
    /// another reference: [`HardwareBufferRef::into_raw`] on a clone).
    pub fn as_ptr(&self) -> *mut AHardwareBuffer {
        self.ptr.as_ptr().cast()
    }

    /// Gives this reference to the caller (who releases it with `AHardwareBuffer_release`).
    pub fn into_raw(self) -> *mut AHardwareBuffer {
        let p = self.as_ptr();
        std::mem::forget(self);
        p
    }

    pub fn desc(&self) -> &BufferDesc {
        &self.desc
    }

    /// `AHardwareBuffer_describe`.
    pub fn describe(&self) -> AHardwareBufferDesc {
        describe_desc(&self.desc)
    }

    /// The gralloc handle (owned by the buffer, valid while this reference lives).
    pub fn native_handle(&self) -> *const NativeHandle {
        self.handle
    }

    /// A gralloc buffer of its own over the same memory (the memfd duplicated).
    pub fn import(&self) -> Result<gralloc::Buffer> {
        // SAFETY: `inspect` validated the handle, which the buffer owns and keeps (with its fd
        // open) at least as long as our reference.
        unsafe { gralloc::Buffer::import(self.handle) }.map_err(HardwareBufferError::Handle)
    }

    /// `AHardwareBuffer_getId`: the memfd's inode, the same in every process and importer.
    pub fn id(&self) -> u64 {
        // SAFETY: `inspect` validated the handle and its fd index when this reference was taken,
        // and the buffer keeps the handle alive at least as long as our reference.
        let fd = unsafe { NativeHandle::data_ptr(self.handle).read() };
        // SAFETY: the buffer keeps the fd open while we hold our reference.
        let fd = unsafe { BorrowedFd::borrow_raw(fd) };
        rustix::fs::fstat(fd).map_or(0, |st| st.st_ino)
    }
}

impl Clone for HardwareBufferRef {
    fn clone(&self) -> Self {
        // SAFETY: we hold a reference, so the buffer is alive.
        unsafe { (self.inc_ref)(self.ptr.as_ptr().cast()) };
        Self { ..*self }
    }
}

impl Drop for HardwareBufferRef {
    fn drop(&mut self) {
        // SAFETY: gives back the reference `acquire`/`clone` took.
        unsafe { (self.dec_ref)(self.ptr.as_ptr().cast()) };
    }
}

/// Reads and validates the header and gralloc handle of `ahb` without taking a reference.
///
/// # Safety
/// As for [`HardwareBufferRef::acquire`].
unsafe fn inspect(ahb: *const AHardwareBuffer) -> Result<(ANativeWindowBuffer, BufferDesc)> {
    if ahb.is_null() {
        return Err(HardwareBufferError::Null);
    }
    let header = read_unaligned_checked::<ANativeWindowBuffer>(ahb.cast())
        .ok_or(HardwareBufferError::Unreadable(ahb as usize))?;
    if header.common.magic != ANDROID_NATIVE_BUFFER_MAGIC {
        return Err(HardwareBufferError::Magic(header.common.magic));
    }
    if header.common.version != size_of::<ANativeWindowBuffer>() as c_int {
        return Err(HardwareBufferError::Version(header.common.version));
    }
    let handle = header.handle;
    if handle.is_null() {
        return Err(HardwareBufferError::Handle(GrallocError::InvalidHandle(
            "null handle",
        )));
    }
    // Copy the handle out (header, one fd, our ints) before parsing it: a foreign or corrupt
    // handle may be shorter, which the parse then rejects from the copied header alone.
    let words = read_unaligned_checked::<[c_int; 4 + HANDLE_NUM_INTS]>(handle.cast())
        .or_else(|| read_unaligned_checked::<[c_int; 3]>(handle.cast()).map(pad_header))
        .ok_or(HardwareBufferError::Unreadable(handle as usize))?;
    if words[0] != NATIVE_HANDLE_VERSION {
        return Err(HardwareBufferError::Handle(GrallocError::InvalidHandle(
            "version is not sizeof(native_handle_t)",
        )));
    }
    // SAFETY: `words` is a local copy holding a full-size handle body.
    let desc = unsafe { BufferDesc::from_native_handle(words.as_ptr().cast()) }
        .map_err(HardwareBufferError::Handle)?;
    let agrees = [
        ("width", header.width == desc.width as c_int),
        ("height", header.height == desc.height as c_int),
        ("format", header.format == desc.format.hal()),
        ("stride", header.stride == desc.stride as c_int),
    ];
    if let Some((what, _)) = agrees.iter().find(|(_, ok)| !ok) {
        return Err(HardwareBufferError::Mismatch { header: what });
    }
    Ok((header, desc))
}

/// A handle header whose body could not be read: zero ints, so the parse refuses it.
fn pad_header(h: [c_int; 3]) -> [c_int; 4 + HANDLE_NUM_INTS] {
    let mut w = [0; 4 + HANDLE_NUM_INTS];
    w[..3].copy_from_slice(&h);
    w[2] = -1;
    w
}

fn describe_desc(d: &BufferDesc) -> AHardwareBufferDesc {
    AHardwareBufferDesc {
        width: d.width,
        height: d.height,
        layers: 1,
        format: d.format.hal() as u32,
        usage: d.usage,
        stride: d.stride,
        rfu0: 0,
        rfu1: 0,
    }
}

/// Why `desc` cannot be allocated, if it cannot (`AHardwareBuffer_isSupported` is the negation).
pub fn check_supported(desc: &AHardwareBufferDesc) -> Result<(), GrallocError> {
    let format =
        c_int::try_from(desc.format).map_err(|_| GrallocError::UnsupportedFormat(c_int::MAX))?;
    let format = PixelFormat::from_hal(format)?;
    // AOSP's AHardwareBuffer_isValidDescription: "rfu fields must be 0".
    if desc.rfu0 != 0 || desc.rfu1 != 0 {
        return Err(GrallocError::InvalidHandle(
            "the reserved fields (rfu0, rfu1) must be 0",
        ));
    }
    if desc.layers != 1 {
        return Err(GrallocError::InvalidHandle("only one layer is supported"));
    }
    gralloc::check_usage(desc.usage)?;
    if desc.usage & usage::PROTECTED_CONTENT != 0 {
        return Err(GrallocError::InvalidHandle(
            "protected content is not supported",
        ));
    }
    if desc.usage & usage::GPU_CUBE_MAP != 0 || desc.usage & usage::GPU_MIPMAP_COMPLETE != 0 {
        return Err(GrallocError::InvalidHandle(
            "cube maps and mip chains are not supported",
        ));
    }
    if format.is_yuv() && (!desc.width.is_multiple_of(2) || !desc.height.is_multiple_of(2)) {
        return Err(GrallocError::InvalidDimensions {
            width: desc.width,
            height: desc.height,
        });
    }
    BufferDesc::new(desc.width, desc.height, format, desc.usage).map(drop)
}

pub mod ndk {
    //! The NDK's `AHardwareBuffer_*` functions (and the two `ANativeWindowBuffer` casts) as
    //! `extern "C"` functions; `libnativewindow.so` exports them under these names. Errors are
    //! Android's negative errnos (`BAD_VALUE` = `-EINVAL`, `NO_MEMORY` = `-ENOMEM`); a panic is
    //! caught and answered `-EINVAL`.
    #![allow(non_snake_case)]

    use super::*;
    use crate::sync_fd::NativeFence;
    use std::collections::HashMap;

    const BAD_VALUE: c_int = -libc::EINVAL;
    const NO_MEMORY: c_int = -libc::ENOMEM;

    /// The CPU mappings of locked buffers, by buffer address (nested locks stack).
    static LOCKS: Mutex<Option<HashMap<usize, Vec<Locked>>>> = Mutex::new(None);

    struct Locked {
        mapping: gralloc::SharedMapping,
        _buffer: HardwareBufferRef,
    }

    fn guard(body: impl FnOnce() -> c_int) -> c_int {
        vkgen_abi::guard::guard("AHardwareBuffer", BAD_VALUE, body)
    }

    fn errno(e: &HardwareBufferError) -> c_int {
        match e {
            HardwareBufferError::Gralloc(
                GrallocError::Memfd(_) | GrallocError::Resize(_) | GrallocError::Map(_),
            ) => NO_MEMORY,
            _ => BAD_VALUE,
        }
    }

    /// `AHardwareBuffer_allocate`.
    ///
    /// # Safety
    /// `desc` null or readable; `out` null or writable.
    pub unsafe extern "C" fn AHardwareBuffer_allocate(
        desc: *const AHardwareBufferDesc,
        out: *mut *mut AHardwareBuffer,
    ) -> c_int {
        guard(|| {
            // SAFETY: `desc` is null or readable (this function's contract); `as_ref` turns null
            // into BAD_VALUE.
            let Some(desc) = (unsafe { desc.as_ref() }) else {
                return BAD_VALUE;
            };
            if out.is_null() {
                return BAD_VALUE;
            }
            match HardwareBuffer::allocate(desc) {
                Ok(b) => {
                    // SAFETY: `out` was checked non-null above and is the caller's writable output
                    // (`AHardwareBuffer_allocate`'s contract).
                    unsafe { out.write(HardwareBuffer::into_raw(b)) };
                    0
                }
                Err(e) => {
                    log::warn!("AHardwareBuffer_allocate({desc:?}): {e}");
                    errno(&e)
                }
            }
        })
    }

    /// `AHardwareBuffer_acquire`.
    ///
    /// # Safety
    /// `buffer` is an `AHardwareBuffer` the caller holds a reference to.
    pub unsafe extern "C" fn AHardwareBuffer_acquire(buffer: *mut AHardwareBuffer) {
        guard(|| {
            // SAFETY: `buffer` is referenced by the caller if it is an AHardwareBuffer (this
            // function's contract), and `acquire` refuses anything else; the new reference is kept
            // (forgotten) for the caller.
            if let Ok(r) = unsafe { HardwareBufferRef::acquire(buffer) } {
                let _ = r.into_raw();
            }
            0
        });
    }

    /// `AHardwareBuffer_release`.
    ///
    /// # Safety
    /// `buffer` is an `AHardwareBuffer` whose reference the caller gives up.
    pub unsafe extern "C" fn AHardwareBuffer_release(buffer: *mut AHardwareBuffer) {
        guard(|| {
            // SAFETY: `buffer` is referenced by the caller (this function's contract), and
            // `acquire` refuses anything else; dropping the checked reference and one more gives
            // back the caller's.
            if let Ok(r) = unsafe { HardwareBufferRef::acquire(buffer) } {
                let dec = r.dec_ref;
                drop(r);
                // SAFETY: the caller's reference, given up.
                unsafe { dec(buffer.cast()) };
            }
            0
        });
    }

    /// `AHardwareBuffer_describe`.
    ///
    /// # Safety
    /// `buffer` as for [`AHardwareBuffer_acquire`]; `out` null or writable.
    pub unsafe extern "C" fn AHardwareBuffer_describe(
        buffer: *const AHardwareBuffer,
        out: *mut AHardwareBufferDesc,
    ) {
        guard(|| {
            // SAFETY: `buffer` is referenced by the caller if it is an AHardwareBuffer (this
            // function's contract), and `inspect` answers any other pointer with an error.
            if let (Ok((_, d)), false) = (unsafe { inspect(buffer) }, out.is_null()) {
                // SAFETY: `out` was checked non-null in the condition, and the caller passes it
                // writable (`AHardwareBuffer_describe`'s contract).
                unsafe { out.write(describe_desc(&d)) };
            }
            0
        });
    }

    /// `AHardwareBuffer_isSupported`: 1 if `AHardwareBuffer_allocate` would succeed.
    ///
    /// # Safety
    /// `desc` null or readable.
    pub unsafe extern "C" fn AHardwareBuffer_isSupported(
        desc: *const AHardwareBufferDesc,
    ) -> c_int {
        guard(|| {
            // SAFETY: `desc` is null or readable (this function's contract); `as_ref` turns null
            // into 0.
            unsafe { desc.as_ref() }.is_some_and(|d| check_supported(d).is_ok()) as c_int
        })
    }

    /// `AHardwareBuffer_getNativeHandle`.
    ///
    /// # Safety
    /// As for [`AHardwareBuffer_describe`].
    pub unsafe extern "C" fn AHardwareBuffer_getNativeHandle(
        buffer: *const AHardwareBuffer,
    ) -> *const NativeHandle {
        catch_unwind(AssertUnwindSafe(|| {
            // SAFETY: `buffer` is referenced by the caller if it is an AHardwareBuffer (this
            // function's contract), and `inspect` answers any other pointer with an error.
            unsafe { inspect(buffer) }.map_or(ptr::null(), |(h, _)| h.handle)
        }))
        .unwrap_or(ptr::null())
    }

    /// `AHardwareBuffer_getId`.
    ///
    /// # Safety
    /// As for [`AHardwareBuffer_describe`].
    pub unsafe extern "C" fn AHardwareBuffer_getId(
        buffer: *const AHardwareBuffer,
        out: *mut u64,
    ) -> c_int {
        guard(|| {
            // SAFETY: `buffer` is referenced by the caller if it is an AHardwareBuffer (this
            // function's contract), and `acquire` refuses anything else.
            match (unsafe { HardwareBufferRef::acquire(buffer) }, out.is_null()) {
                (Ok(r), false) => {
                    // SAFETY: `out` was checked non-null in the match and is the caller's writable
                    // output (`AHardwareBuffer_getId`'s contract).
                    unsafe { out.write(r.id()) };
                    0
                }
                _ => BAD_VALUE,
            }
        })
    }

    /// Maps `buffer` for the CPU after waiting for `fence`; the mapping stays until `unlock`.
    ///
    /// # Safety
    /// As for [`AHardwareBuffer_acquire`]; `fence` is `-1` or an fd the caller hands over.
    unsafe fn lock_mapping(
        buffer: *mut AHardwareBuffer,
        cpu_usage: u64,
        fence: c_int,
        rect: *const ARect,
    ) -> Result<(*mut u8, BufferDesc), c_int> {
        // SAFETY: the caller hands the fd over; it is closed when `fence` drops.
        let fence = unsafe { NativeFence::from_raw(fence) };
        if cpu_usage & !(usage::CPU_READ_MASK | usage::CPU_WRITE_MASK) != 0 || cpu_usage == 0 {
            return Err(BAD_VALUE);
        }
        // SAFETY: `buffer` is referenced by the caller if it is an AHardwareBuffer (this function's
        // contract), and `acquire` refuses anything else.
        let r = unsafe { HardwareBufferRef::acquire(buffer) }.map_err(|e| errno(&e))?;
        let d = *r.desc();
        let wants_read = cpu_usage & usage::CPU_READ_MASK != 0;
        let wants_write = cpu_usage & usage::CPU_WRITE_MASK != 0;
        if (wants_read && d.usage & usage::CPU_READ_MASK == 0)
            || (wants_write && d.usage & usage::CPU_WRITE_MASK == 0)
        {
            return Err(BAD_VALUE);
        }
        // SAFETY: `rect` is null or readable (this function's contract); `as_ref` turns null into
        // the whole buffer.
        if let Some(rect) = unsafe { rect.as_ref() } {
            // AOSP's GraphicBuffer::lockAsync: "locking pixels outside of buffer".
            let inside = rect.left >= 0
                && rect.top >= 0
                && i64::from(rect.right) <= i64::from(d.width)
                && i64::from(rect.bottom) <= i64::from(d.height);
            if !inside {
                return Err(BAD_VALUE);
            }
        }
        fence.wait(None).map_err(|_| BAD_VALUE)?;
        let mapping = r
            .import()
            .and_then(|b| b.into_mapping().map_err(HardwareBufferError::from))
            .map_err(|e| errno(&e))?;
        let base = mapping.as_ptr().wrapping_add(d.offset as usize);
        let mut locks = LOCKS.lock().unwrap_or_else(PoisonError::into_inner);
        locks
            .get_or_insert_with(HashMap::new)
            .entry(buffer as usize)
            .or_default()
            .push(Locked {
                mapping,
                _buffer: r,
            });
        Ok((base, d))
    }

    /// `AHardwareBuffer_lock`: the address of the first pixel (the rectangle is a hint, but one
    /// outside the buffer is refused, as AOSP does).
    ///
    /// # Safety
    /// As for [`AHardwareBuffer_acquire`]; `fence` `-1` or an fd handed over; `out` writable.
    pub unsafe extern "C" fn AHardwareBuffer_lock(
        buffer: *mut AHardwareBuffer,
        usage: u64,
        fence: i32,
        rect: *const ARect,
        out: *mut *mut c_void,
    ) -> c_int {
        guard(|| {
            if out.is_null() {
                // SAFETY: the fd is ours to close.
                drop(unsafe { NativeFence::from_raw(fence) });
                return BAD_VALUE;
            }
            // SAFETY: the caller's buffer, usage, fence and rect under `AHardwareBuffer_lock`'s
            // contract, which is `lock_mapping`'s; `out` was checked non-null above.
            match unsafe { lock_mapping(buffer, usage, fence, rect) } {
                Ok((p, _)) => {
                    // SAFETY: `out` was checked non-null above and is the caller's writable output
                    // (`AHardwareBuffer_lock`'s contract).
                    unsafe { out.write(p.cast()) };
                    0
                }
                Err(e) => e,
            }
        })
    }

    /// `AHardwareBuffer_lockAndGetInfo`.
    ///
    /// # Safety
    /// As for [`AHardwareBuffer_lock`]; the two info pointers null or writable.
    pub unsafe extern "C" fn AHardwareBuffer_lockAndGetInfo(
        buffer: *mut AHardwareBuffer,
        usage: u64,
        fence: i32,
        rect: *const ARect,
        out: *mut *mut c_void,
        bytes_per_pixel: *mut i32,
        bytes_per_stride: *mut i32,
    ) -> c_int {
        // SAFETY: the caller's arguments, under the contract `AHardwareBuffer_lock` has (this
        // function's own contract is that one plus the info pointers).
        let r = unsafe { AHardwareBuffer_lock(buffer, usage, fence, rect, out) };
        if r == 0 {
            // SAFETY: locked, so the buffer is valid.
            if let Ok((_, d)) = unsafe { inspect(buffer) } {
                let bpp = d.format.bytes_per_pixel() as i32;
                // SAFETY: `bytes_per_pixel` and `bytes_per_stride` are null or writable (this
                // function's contract); `as_mut` skips null ones.
                unsafe {
                    if let Some(p) = bytes_per_pixel.as_mut() {
                        *p = if d.format.is_yuv() { -1 } else { bpp };
                    }
                    if let Some(p) = bytes_per_stride.as_mut() {
                        *p = if d.format.is_yuv() {
                            -1
                        } else {
                            d.row_bytes() as i32
                        };
                    }
                }
            }
        }
        r
    }

    /// `AHardwareBuffer_lockPlanes`: Y, Cb, Cr for the 4:2:0 formats, one plane otherwise.
    ///
    /// # Safety
    /// As for [`AHardwareBuffer_lock`]; `out` writable.
    pub unsafe extern "C" fn AHardwareBuffer_lockPlanes(
        buffer: *mut AHardwareBuffer,
        usage: u64,
        fence: i32,
        rect: *const ARect,
        out: *mut AHardwareBufferPlanes,
    ) -> c_int {
        guard(|| {
            if out.is_null() {
                // SAFETY: the fd is ours to close.
                drop(unsafe { NativeFence::from_raw(fence) });
                return BAD_VALUE;
            }
            // SAFETY: the caller's buffer, usage, fence and rect under
            // `AHardwareBuffer_lockPlanes`' contract, which is `lock_mapping`'s; `out` was checked
            // non-null above.
            match unsafe { lock_mapping(buffer, usage, fence, rect) } {
                Ok((base, d)) => {
                    let empty = AHardwareBufferPlane {
                        data: ptr::null_mut(),
                        pixel_stride: 0,
                        row_stride: 0,
                    };
                    let mut planes = AHardwareBufferPlanes {
                        plane_count: 0,
                        planes: [empty; 4],
                    };
                    for (slot, p) in planes.planes.iter_mut().zip(d.planes()) {
                        *slot = AHardwareBufferPlane {
                            data: base.wrapping_add(p.offset as usize).cast(),
                            pixel_stride: p.pixel_stride,
                            row_stride: p.row_stride as u32,
                        };
                        planes.plane_count += 1;
                    }
                    // SAFETY: `out` was checked non-null above and is the caller's writable output
                    // (`AHardwareBuffer_lockPlanes`' contract).
                    unsafe { out.write(planes) };
                    0
                }
                Err(e) => e,
            }
        })
    }

    /// `AHardwareBuffer_unlock`: CPU access is finished when this returns, so the fence is `-1`.
    ///
    /// # Safety
    /// `fence` null or writable.
    pub unsafe extern "C" fn AHardwareBuffer_unlock(
        buffer: *mut AHardwareBuffer,
        fence: *mut i32,
    ) -> c_int {
        guard(|| {
            let mut locks = LOCKS.lock().unwrap_or_else(PoisonError::into_inner);
            let Some(stack) = locks.as_mut().and_then(|m| m.get_mut(&(buffer as usize))) else {
                return BAD_VALUE;
            };
            let Some(locked) = stack.pop() else {
                return BAD_VALUE;
            };
            if stack.is_empty() {
                locks.as_mut().map(|m| m.remove(&(buffer as usize)));
            }
            drop(locks);
            drop(locked.mapping);
            // SAFETY: `fence` is null or writable (`AHardwareBuffer_unlock`'s contract); `as_mut`
            // skips null.
            if let Some(f) = unsafe { fence.as_mut() } {
                *f = -1;
            }
            0
        })
    }

    /// `AHardwareBuffer_createFromHandle` (VNDK): a new buffer over a copy of `handle` (its fd
    /// duplicated, so the caller keeps its handle whatever `method` says).
    ///
    /// # Safety
    /// `desc` readable; `handle` a readable `native_handle_t` with open fds; `out` writable.
    pub unsafe extern "C" fn AHardwareBuffer_createFromHandle(
        desc: *const AHardwareBufferDesc,
        handle: *const NativeHandle,
        _method: i32,
        out: *mut *mut AHardwareBuffer,
    ) -> c_int {
        guard(|| {
            // SAFETY: `desc` is null or readable (this function's contract); `as_ref` turns null
            // into BAD_VALUE.
            let Some(desc) = (unsafe { desc.as_ref() }) else {
                return BAD_VALUE;
            };
            if out.is_null() {
                return BAD_VALUE;
            }
            // SAFETY: `handle` is null or a readable native handle whose fd is open for this call
            // (this function's contract), what `Buffer::import` needs.
            let Ok(buffer) = (unsafe { gralloc::Buffer::import(handle) }) else {
                return BAD_VALUE;
            };
            let d = buffer.desc();
            if (d.width, d.height, d.format.hal() as u32) != (desc.width, desc.height, desc.format)
            {
                return BAD_VALUE;
            }
            // SAFETY: `out` was checked non-null above and is the caller's writable output
            // (`AHardwareBuffer_createFromHandle`'s contract).
            unsafe { out.write(HardwareBuffer::into_raw(HardwareBuffer::new(buffer))) };
            0
        })
    }

    /// `AHardwareBuffer_to_ANativeWindowBuffer`: the same object.
    ///
    /// # Safety
    /// None beyond the NDK's: the pointer is only cast, never read.
    pub unsafe extern "C" fn AHardwareBuffer_to_ANativeWindowBuffer(
        buffer: *mut AHardwareBuffer,
    ) -> *mut ANativeWindowBuffer {
        buffer.cast()
    }

    /// `ANativeWindowBuffer_getHardwareBuffer`: the same object.
    ///
    /// # Safety
    /// None beyond the NDK's: the pointer is only cast, never read.
    pub unsafe extern "C" fn ANativeWindowBuffer_getHardwareBuffer(
        buffer: *mut ANativeWindowBuffer,
    ) -> *mut AHardwareBuffer {
        buffer.cast()
    }
}
