//! Driver-side Vulkan objects: dispatchable handles, non-dispatchable handles and host memory.
//!
//! # Dispatchable objects
//! `VkInstance`, `VkPhysicalDevice`, `VkDevice`, `VkQueue` and `VkCommandBuffer` are pointers to
//! driver memory whose first word belongs to the loader: the driver stores
//! [`LOADER_MAGIC`] there (`HWVULKAN_DISPATCH_MAGIC` for Android's HAL, `ICD_LOADER_MAGIC` for
//! Khronos loaders: both are `0x01CDC0DE`) and the loader replaces it with its dispatch-table
//! pointer. [`Dispatchable<T>`] is that layout: `#[repr(C)] { loader slot, signature, value }`.
//! The slot is an `UnsafeCell` because the loader writes it behind the driver's back.
//!
//! # Non-dispatchable objects
//! Objects with state are [`Object<T>`] (`{ signature, value }`) in host memory; the handle is
//! their address, which is unique while the object lives. Stateless objects (descriptor sets of
//! the null driver) can use [`HandleCounter`], Android nulldrv's scheme: bit 63 set, a 7-bit
//! kind in bits 62..56 and a 56-bit counter, so they can never collide with an address (user
//! space addresses have bit 63 clear).
//!
//! # Signatures
//! Word 1 of every object is `"vkge" << 32 | VkObjectType`. Handle-to-reference lookups
//! ([`Dispatchable::from_raw`], [`Object::from_raw`]) check that the handle is non-null and
//! aligned and that the signature matches the expected type, so a null or wrongly typed handle
//! becomes `None` instead of undefined behaviour; destroying an object clears its signature, which
//! catches most double destroys. This is "safe-ish": a dangling pointer to unmapped memory still
//! faults, as it would in any C driver.
//!
//! # Host memory
//! [`HostAllocator`] is a copy of the application's `VkAllocationCallbacks` (or the Rust global
//! allocator when they are null). [`HostBox<T>`] is a `Box` that allocates through it with a
//! `VkSystemAllocationScope`, remembers the allocator it used (so destruction frees with the same
//! callbacks even if the application passes different compatible ones), and turns allocation
//! failure into `VK_ERROR_OUT_OF_HOST_MEMORY` after dropping the value, so nothing leaks.
//! Only the objects themselves go through the callbacks; Rust collections inside them use the
//! global allocator, as the spec allows for internal allocations.

use std::alloc::Layout;
use std::cell::UnsafeCell;
use std::ffi::c_void;
use std::marker::PhantomData;
use std::mem::ManuallyDrop;
use std::ops::{Deref, DerefMut};
use std::ptr::{self, NonNull};
use std::sync::atomic::{AtomicU64, Ordering};

use ash::vk;

/// What a driver stores in word 0 of a fresh dispatchable object.
pub const LOADER_MAGIC: usize = 0x01CD_C0DE;

const _: () = assert!(LOADER_MAGIC == vkgen_abi::hal::HWVULKAN_DISPATCH_MAGIC);
const _: () = assert!(LOADER_MAGIC == vkgen_abi::icd::ICD_LOADER_MAGIC);

/// High half of every object signature: `"vkge"`.
const SIGNATURE_BASE: u64 = 0x766B_6765 << 32;

/// The signature word of live objects of type `ty`.
pub const fn signature(ty: vk::ObjectType) -> u64 {
    SIGNATURE_BASE | ty.as_raw() as u32 as u64
}

/// A type stored behind a Vulkan handle.
pub trait ObjectKind {
    /// The handle's `VkObjectType`, used for the signature.
    const OBJECT_TYPE: vk::ObjectType;
}

/// Word 0 of a dispatchable object: the loader's.
#[repr(transparent)]
pub struct LoaderSlot(UnsafeCell<usize>);

// SAFETY: the driver only writes the slot when the object is created (before the handle escapes);
// afterwards only the loader writes it, once, before dispatching through it, and the driver only
// reads it for diagnostics. Those accesses are ordered by handing the handle over.
unsafe impl Sync for LoaderSlot {}

impl LoaderSlot {
    /// A slot holding [`LOADER_MAGIC`].
    pub const fn new() -> Self {
        Self(UnsafeCell::new(LOADER_MAGIC))
    }

    /// The word as it is now (the magic, or the loader's dispatch pointer).
    pub fn get(&self) -> usize {
        // SAFETY: a plain aligned word read; see the `Sync` impl for the ordering argument.
        unsafe { ptr::read_volatile(self.0.get()) }
    }

    /// Whether the slot still holds the driver's magic (the low 32 bits, as `vk_icd.h` compares).
    pub fn is_magic(&self) -> bool {
        self.get() & 0xFFFF_FFFF == LOADER_MAGIC
    }
}

impl Default for LoaderSlot {
    fn default() -> Self {
        Self::new()
    }
}

impl std::fmt::Debug for LoaderSlot {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "LoaderSlot({:#x})", self.get())
    }
}

/// A dispatchable object: loader slot, signature, then the driver's data.
#[repr(C)]
#[derive(Debug)]
pub struct Dispatchable<T> {
    loader: LoaderSlot,
    signature: u64,
    value: T,
}

impl<T: ObjectKind> Dispatchable<T> {
    /// A fresh object with the loader magic in word 0.
    pub const fn new(value: T) -> Self {
        Self {
            loader: LoaderSlot::new(),
            signature: signature(T::OBJECT_TYPE),
            value,
        }
    }

    /// The handle value: the object's address.
    pub fn raw_handle(&self) -> u64 {
        ptr::from_ref(self) as usize as u64
    }

    /// The handle as a typed Vulkan handle.
    pub fn handle<H: vk::Handle>(&self) -> H {
        H::from_raw(self.raw_handle())
    }

    /// Word 0.
    pub fn loader_slot(&self) -> &LoaderSlot {
        &self.loader
    }

    /// The object behind `raw`, if `raw` is non-null, aligned and carries `T`'s signature.
    ///
    /// # Safety
    /// A non-null `raw` must be a handle this driver returned (of any type) that has not been
    /// destroyed, and the object must outlive `'a`. [`HandleCounter`] handles are rejected
    /// without being dereferenced.
    pub unsafe fn from_raw<'a>(raw: u64) -> Option<&'a Self> {
        if raw & HandleCounter::TAG != 0 {
            return None;
        }
        let p = raw as usize as *const Self;
        if p.is_null() || !p.is_aligned() {
            return None;
        }
        // SAFETY: the caller guarantees a live driver object; every driver object starts with at
        // least two words (slot/signature or signature/value), so reading word 1 through a
        // `u64` pointer is in bounds for any of them.
        let sig = unsafe { ptr::addr_of!((*p).signature).read() };
        if sig != signature(T::OBJECT_TYPE) {
            return None;
        }
        // SAFETY: the signature says this is a `Dispatchable<T>`, alive per the caller.
        Some(unsafe { &*p })
    }

    /// The object behind a typed handle; see [`Dispatchable::from_raw`].
    ///
    /// # Safety
    /// As for [`Dispatchable::from_raw`].
    pub unsafe fn from_handle<'a, H: vk::Handle>(handle: H) -> Option<&'a Self> {
        // SAFETY: `handle` is null or a live handle of this driver (this function's contract),
        // which is `from_raw`'s contract for its raw value.
        unsafe { Self::from_raw(handle.as_raw()) }
    }
}

impl<T> Deref for Dispatchable<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Dispatchable<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T> Drop for Dispatchable<T> {
    fn drop(&mut self) {
        self.signature = 0;
    }
}

/// A non-dispatchable object with state: signature, then the driver's data.
#[repr(C)]
#[derive(Debug)]
pub struct Object<T> {
    signature: u64,
    value: T,
}

impl<T: ObjectKind> Object<T> {
    pub const fn new(value: T) -> Self {
        Self {
            signature: signature(T::OBJECT_TYPE),
            value,
        }
    }

    /// The object behind `raw`, if `raw` is non-null, aligned and carries `T`'s signature.
    ///
    /// # Safety
    /// As for [`Dispatchable::from_raw`]. Handles from a [`HandleCounter`] are rejected without
    /// being dereferenced (bit 63 set).
    pub unsafe fn from_raw<'a>(raw: u64) -> Option<&'a Self> {
        if raw & HandleCounter::TAG != 0 {
            return None;
        }
        let p = raw as usize as *const Self;
        if p.is_null() || !p.is_aligned() {
            return None;
        }
        // SAFETY: the caller guarantees a live driver object; word 0 of every non-dispatchable
        // object is its signature (and of a dispatchable one its loader slot, which never equals
        // a signature: the loader writes a pointer or the magic).
        let sig = unsafe { ptr::addr_of!((*p).signature).read() };
        if sig != signature(T::OBJECT_TYPE) {
            return None;
        }
        // SAFETY: the signature says this is an `Object<T>`, alive per the caller.
        Some(unsafe { &*p })
    }

    /// The object behind a typed handle; see [`Object::from_raw`].
    ///
    /// # Safety
    /// As for [`Object::from_raw`].
    pub unsafe fn from_handle<'a, H: vk::Handle>(handle: H) -> Option<&'a Self> {
        // SAFETY: `handle` is null or a live handle of this driver (this function's contract),
        // which is `from_raw`'s contract for its raw value.
        unsafe { Self::from_raw(handle.as_raw()) }
    }
}

impl<T> Deref for Object<T> {
    type Target = T;
    fn deref(&self) -> &T {
        &self.value
    }
}

impl<T> DerefMut for Object<T> {
    fn deref_mut(&mut self) -> &mut T {
        &mut self.value
    }
}

impl<T> Drop for Object<T> {
    fn drop(&mut self) {
        self.signature = 0;
    }
}

/// Android nulldrv's non-dispatchable handles: `1 << 63 | kind << 56 | counter`.
#[derive(Debug)]
pub struct HandleCounter(AtomicU64);

impl HandleCounter {
    /// Bit 63: set in every counter handle, clear in every user-space address.
    pub const TAG: u64 = 1 << 63;
    const COUNTER_MASK: u64 = (1 << 56) - 1;

    pub const fn new() -> Self {
        Self(AtomicU64::new(0))
    }

    /// A fresh handle of `kind` (0..=127; higher bits are masked off). The counter starts at 1
    /// and wraps after 2^56 handles.
    pub fn next(&self, kind: u8) -> u64 {
        let n = self.0.fetch_add(1, Ordering::Relaxed).wrapping_add(1) & Self::COUNTER_MASK;
        Self::TAG | (u64::from(kind & 0x7F) << 56) | n
    }

    /// The kind of a counter handle, `None` for anything else (null, addresses).
    pub fn kind_of(raw: u64) -> Option<u8> {
        (raw & Self::TAG != 0).then_some(((raw >> 56) & 0x7F) as u8)
    }
}

impl Default for HandleCounter {
    fn default() -> Self {
        Self::new()
    }
}

/// Where host memory comes from: the application's `VkAllocationCallbacks`, or the global
/// allocator.
#[derive(Clone, Copy, Debug, Default)]
pub struct HostAllocator {
    callbacks: Option<Callbacks>,
}

#[derive(Clone, Copy, Debug)]
struct Callbacks {
    user_data: *mut c_void,
    allocation: unsafe extern "system" fn(
        *mut c_void,
        usize,
        usize,
        vk::SystemAllocationScope,
    ) -> *mut c_void,
    free: unsafe extern "system" fn(*mut c_void, *mut c_void),
}

// SAFETY: Vulkan requires the callbacks (and their user data) to be usable from whichever thread
// creates or destroys an object with them; the driver calls them only there.
unsafe impl Send for HostAllocator {}
// SAFETY: see `Send`; a `&HostAllocator` only allows calling the callbacks.
unsafe impl Sync for HostAllocator {}

impl HostAllocator {
    /// The global allocator.
    pub const fn system() -> Self {
        Self { callbacks: None }
    }

    /// The application's callbacks, copied; null (or callbacks without `pfnAllocation` /
    /// `pfnFree`, which valid usage forbids) means the global allocator.
    ///
    /// # Safety
    /// `p` is null or points to a valid `VkAllocationCallbacks` whose functions stay callable for
    /// as long as objects allocated with them live (the Vulkan rule).
    pub unsafe fn from_ptr(p: *const vk::AllocationCallbacks<'_>) -> Self {
        // SAFETY: `p` is null or valid callbacks (this function's contract); `as_ref` turns null
        // into the system allocator.
        let Some(cb) = (unsafe { p.as_ref() }) else {
            return Self::system();
        };
        match (cb.pfn_allocation, cb.pfn_free) {
            (Some(allocation), Some(free)) => Self {
                callbacks: Some(Callbacks {
                    user_data: cb.p_user_data,
                    allocation,
                    free,
                }),
            },
            _ => Self::system(),
        }
    }

    /// Whether this is the application's allocator.
    pub fn is_application(&self) -> bool {
        self.callbacks.is_some()
    }

    /// Allocates `layout` (size > 0). `None` on failure, including a misaligned result from the
    /// application (which is then freed again).
    pub fn allocate(
        &self,
        layout: Layout,
        scope: vk::SystemAllocationScope,
    ) -> Option<NonNull<u8>> {
        debug_assert!(layout.size() > 0);
        match self.callbacks {
            None => {
                // SAFETY: non-zero size (all callers allocate headers of at least two words).
                NonNull::new(unsafe { std::alloc::alloc(layout) })
            }
            Some(cb) => {
                // SAFETY: the callbacks are valid per `from_ptr`'s contract.
                let p =
                    unsafe { (cb.allocation)(cb.user_data, layout.size(), layout.align(), scope) };
                let p = NonNull::new(p.cast::<u8>())?;
                if p.as_ptr().align_offset(layout.align()) != 0 {
                    // SAFETY: `p` came from this allocator's `pfnAllocation` just now.
                    unsafe { (cb.free)(cb.user_data, p.as_ptr().cast()) };
                    return None;
                }
                Some(p)
            }
        }
    }

    /// Frees memory from [`HostAllocator::allocate`] of this allocator with the same `layout`.
    ///
    /// # Safety
    /// `p` must come from `self.allocate(layout, _)` and not have been freed.
    pub unsafe fn free(&self, p: NonNull<u8>, layout: Layout) {
        match self.callbacks {
            // SAFETY: `p` came from `self.allocate(layout, _)`, which with no callbacks is the
            // global allocator with this `layout`, and was not freed (this function's contract).
            None => unsafe { std::alloc::dealloc(p.as_ptr(), layout) },
            // SAFETY: `p` came from these callbacks' `pfnAllocation` and was not freed (this
            // function's contract); the callbacks are still callable (`from_ptr`'s contract).
            Some(cb) => unsafe { (cb.free)(cb.user_data, p.as_ptr().cast()) },
        }
    }
}

/// Storage of a [`HostBox`]: the value first (so a pointer to the value is a pointer to the
/// allocation, and a dispatchable value's loader slot is word 0), then the allocator.
#[repr(C)]
struct HostBoxInner<T> {
    value: T,
    allocator: HostAllocator,
}

/// An owned value in memory from a [`HostAllocator`], freed with the same allocator on drop.
pub struct HostBox<T> {
    ptr: NonNull<HostBoxInner<T>>,
    _owns: PhantomData<T>,
}

// SAFETY: a HostBox owns its value like a Box; the allocator is Send/Sync.
unsafe impl<T: Send> Send for HostBox<T> {}
// SAFETY: a `&HostBox<T>` gives only `&T` (which `T: Sync` allows to share) and the allocator,
// which is `Sync`.
unsafe impl<T: Sync> Sync for HostBox<T> {}

impl<T> HostBox<T> {
    /// Moves `value` into memory from `allocator`. On allocation failure `value` is dropped and
    /// the result is `VK_ERROR_OUT_OF_HOST_MEMORY`.
    pub fn try_new(
        value: T,
        allocator: HostAllocator,
        scope: vk::SystemAllocationScope,
    ) -> Result<Self, vk::Result> {
        let layout = Layout::new::<HostBoxInner<T>>();
        let Some(p) = allocator.allocate(layout, scope) else {
            drop(value);
            return Err(vkgen_abi::vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "no host memory for a {}-byte object ({scope:?})",
                layout.size()
            ));
        };
        let inner = p.cast::<HostBoxInner<T>>();
        // SAFETY: `inner` is fresh, suitably sized and aligned memory.
        unsafe { inner.as_ptr().write(HostBoxInner { value, allocator }) };
        Ok(Self {
            ptr: inner,
            _owns: PhantomData,
        })
    }

    /// Gives up ownership; the pointer is the value's address (and the allocation's).
    pub fn into_raw(this: Self) -> NonNull<T> {
        let this = ManuallyDrop::new(this);
        this.ptr.cast()
    }

    /// Takes ownership back.
    ///
    /// # Safety
    /// `p` must come from [`HostBox::into_raw`] of a `HostBox<T>` and not be used afterwards.
    pub unsafe fn from_raw(p: NonNull<T>) -> Self {
        Self {
            ptr: p.cast(),
            _owns: PhantomData,
        }
    }

    /// The allocator the memory came from.
    pub fn allocator(this: &Self) -> HostAllocator {
        // SAFETY: `ptr` is live while `this` is.
        unsafe { (*this.ptr.as_ptr()).allocator }
    }
}

impl<T> Deref for HostBox<T> {
    type Target = T;
    fn deref(&self) -> &T {
        // SAFETY: `ptr` is live and initialised while `self` is.
        unsafe { &(*self.ptr.as_ptr()).value }
    }
}

impl<T> DerefMut for HostBox<T> {
    fn deref_mut(&mut self) -> &mut T {
        // SAFETY: as in `deref`, and `&mut self` makes the access unique.
        unsafe { &mut (*self.ptr.as_ptr()).value }
    }
}

impl<T> Drop for HostBox<T> {
    fn drop(&mut self) {
        let inner = self.ptr.as_ptr();
        // SAFETY: `inner` is live and initialised; it is dropped once and then freed with the
        // allocator (read out first) and layout it was allocated with.
        unsafe {
            let allocator = (*inner).allocator;
            ptr::drop_in_place(inner);
            allocator.free(self.ptr.cast(), Layout::new::<HostBoxInner<T>>());
        }
    }
}

impl<T: std::fmt::Debug> std::fmt::Debug for HostBox<T> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_tuple("HostBox").field(&**self).finish()
    }
}

/// Creates a dispatchable object in host memory; the result is its handle.
///
/// # Safety
/// `p_allocator` as for [`HostAllocator::from_ptr`].
pub unsafe fn create_dispatchable<T: ObjectKind>(
    value: T,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    scope: vk::SystemAllocationScope,
) -> Result<NonNull<Dispatchable<T>>, vk::Result> {
    // SAFETY: `p_allocator` is null or valid callbacks that outlive the object (this function's
    // contract, the one `from_ptr` asks for).
    let allocator = unsafe { HostAllocator::from_ptr(p_allocator) };
    HostBox::try_new(Dispatchable::new(value), allocator, scope).map(HostBox::into_raw)
}

/// Destroys a dispatchable object made by [`create_dispatchable`]. Null or mistyped handles are
/// ignored (`false`).
///
/// # Safety
/// `raw` is null or a live handle of this driver that nothing uses any more.
pub unsafe fn destroy_dispatchable<T: ObjectKind>(raw: u64) -> bool {
    // SAFETY: `raw` is null or a live handle of this driver (this function's contract); `from_raw`
    // checks its signature before the object is dropped.
    match unsafe { Dispatchable::<T>::from_raw(raw) } {
        None => false,
        Some(obj) => {
            // SAFETY: the object was made by `create_dispatchable` (a `HostBox`), per the
            // signature and the caller.
            drop(unsafe { HostBox::from_raw(NonNull::from(obj)) });
            true
        }
    }
}

/// Creates a non-dispatchable object in host memory; the result is its handle.
///
/// # Safety
/// `p_allocator` as for [`HostAllocator::from_ptr`].
pub unsafe fn create_object<T: ObjectKind>(
    value: T,
    p_allocator: *const vk::AllocationCallbacks<'_>,
) -> Result<u64, vk::Result> {
    // SAFETY: `p_allocator` is null or valid callbacks that outlive the object (this function's
    // contract, the one `from_ptr` asks for).
    let allocator = unsafe { HostAllocator::from_ptr(p_allocator) };
    let b = HostBox::try_new(
        Object::new(value),
        allocator,
        vk::SystemAllocationScope::OBJECT,
    )?;
    Ok(HostBox::into_raw(b).as_ptr() as usize as u64)
}

/// Destroys a non-dispatchable object made by [`create_object`]. Null or mistyped handles are
/// ignored (`false`), as `vkDestroy*(VK_NULL_HANDLE)` must be.
///
/// # Safety
/// `raw` is null or a live handle of this driver that nothing uses any more.
pub unsafe fn destroy_object<T: ObjectKind>(raw: u64) -> bool {
    // SAFETY: `raw` is null or a live handle of this driver (this function's contract); `from_raw`
    // checks its signature before the object is dropped.
    match unsafe { Object::<T>::from_raw(raw) } {
        None => false,
        Some(obj) => {
            // SAFETY: made by `create_object` (a `HostBox`), per the signature and the caller.
            drop(unsafe { HostBox::from_raw(NonNull::from(obj)) });
            true
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::sync::atomic::AtomicUsize;

    #[derive(Debug)]
    struct Thing(u32);
    impl ObjectKind for Thing {
        const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::DEVICE;
    }
    #[derive(Debug)]
    struct Other;
    impl ObjectKind for Other {
        const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::QUEUE;
    }

    #[test]
    fn dispatchable_layout_and_lookup() {
        // SAFETY: null callbacks select the global allocator.
        let p = unsafe {
            create_dispatchable(Thing(7), ptr::null(), vk::SystemAllocationScope::DEVICE)
        }
        .unwrap();
        let raw = p.as_ptr() as u64;
        // SAFETY: `p` is live.
        let word0 = unsafe { p.cast::<usize>().read() };
        assert_eq!(word0, LOADER_MAGIC);
        // SAFETY: `raw` is a live handle.
        let obj = unsafe { Dispatchable::<Thing>::from_raw(raw) }.unwrap();
        assert_eq!(obj.0, 7);
        assert!(obj.loader_slot().is_magic());
        assert_eq!(obj.raw_handle(), raw);
        // SAFETY: wrong type, null and misaligned handles are rejected without use.
        let rejected = unsafe {
            Dispatchable::<Other>::from_raw(raw).is_none()
                && Dispatchable::<Thing>::from_raw(0).is_none()
                && Dispatchable::<Thing>::from_raw(raw + 1).is_none()
        };
        assert!(rejected);
        // SAFETY: live, unused afterwards.
        assert!(unsafe { destroy_dispatchable::<Thing>(raw) });
        // SAFETY: null is ignored.
        assert!(!unsafe { destroy_dispatchable::<Thing>(0) });
    }

    #[test]
    fn counter_handles() {
        let c = HandleCounter::new();
        let a = c.next(5);
        let b = c.next(5);
        assert_ne!(a, b);
        assert_eq!(HandleCounter::kind_of(a), Some(5));
        assert_eq!(HandleCounter::kind_of(0x1000), None);
        assert_eq!(a >> 63, 1);
        // SAFETY: counter handles are rejected before any dereference.
        assert!(unsafe { Object::<Thing>::from_raw(a) }.is_none());
    }

    static LIVE: AtomicUsize = AtomicUsize::new(0);
    static BUDGET: AtomicUsize = AtomicUsize::new(usize::MAX);

    unsafe extern "system" fn counting_alloc(
        _: *mut c_void,
        size: usize,
        align: usize,
        _: vk::SystemAllocationScope,
    ) -> *mut c_void {
        if BUDGET
            .fetch_update(Ordering::SeqCst, Ordering::SeqCst, |b| b.checked_sub(1))
            .is_err()
        {
            return ptr::null_mut();
        }
        LIVE.fetch_add(1, Ordering::SeqCst);
        // SAFETY: test allocator; the matching free uses libc::free.
        unsafe { libc::aligned_alloc(align.max(8), size.next_multiple_of(align.max(8))) }
    }

    unsafe extern "system" fn counting_free(_: *mut c_void, p: *mut c_void) {
        if !p.is_null() {
            LIVE.fetch_sub(1, Ordering::SeqCst);
            // SAFETY: from `counting_alloc`.
            unsafe { libc::free(p) };
        }
    }

    #[test]
    fn callbacks_are_used_and_oom_is_reported() {
        let cb = vk::AllocationCallbacks {
            pfn_allocation: Some(counting_alloc),
            pfn_free: Some(counting_free),
            ..Default::default()
        };
        struct Dropped<'a>(&'a AtomicUsize);
        impl Drop for Dropped<'_> {
            fn drop(&mut self) {
                self.0.fetch_add(1, Ordering::SeqCst);
            }
        }
        impl ObjectKind for Dropped<'_> {
            const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::FENCE;
        }
        let drops = AtomicUsize::new(0);
        // SAFETY: `cb` is valid for the whole test.
        let h = unsafe { create_object(Dropped(&drops), &cb) }.unwrap();
        assert_eq!(LIVE.load(Ordering::SeqCst), 1);
        // SAFETY: live handle.
        assert!(unsafe { destroy_object::<Dropped<'_>>(h) });
        assert_eq!(LIVE.load(Ordering::SeqCst), 0);
        assert_eq!(drops.load(Ordering::SeqCst), 1);
        BUDGET.store(0, Ordering::SeqCst);
        // SAFETY: `cb` is still valid (it lives for the whole test); with no budget left the
        // allocation fails and nothing is made.
        let r = unsafe { create_object(Dropped(&drops), &cb) };
        BUDGET.store(usize::MAX, Ordering::SeqCst);
        assert_eq!(r, Err(vk::Result::ERROR_OUT_OF_HOST_MEMORY));
        assert_eq!(drops.load(Ordering::SeqCst), 2, "value dropped on OOM");
        assert_eq!(LIVE.load(Ordering::SeqCst), 0);
    }
}
