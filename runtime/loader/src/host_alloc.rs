//! The application's `VkAllocationCallbacks` for the loader's own per-instance and per-device
//! data, as AOSP's `driver.cpp` (`AllocateInstanceData`, `AllocateDeviceData`,
//! `CreateInfoWrapper`) and `api.cpp` (`LayerChain`) use them.
//!
//! **AOSP's rules.** `vkCreateInstance` places its instance data in the `pAllocator` the
//! application passed (scope INSTANCE), or in the default allocator without one; `vkCreateDevice`
//! places the device data in its `pAllocator` (scope DEVICE), or without one in the *instance's*
//! allocator. The arrays built only for the duration of a create call (the extension names the
//! driver sees, the layer list handed to layers) come from the same allocator with scope COMMAND.
//! A failed allocation makes the command return `VK_ERROR_OUT_OF_HOST_MEMORY`. Destroying frees
//! with the `pAllocator` given to `vkDestroy*`, or, without one, with the allocator the data was
//! created with (AOSP keeps a copy of it in the data).
//!
//! **Design.** [`HostAllocator`] is a copyable value — the callbacks (or "the default") and a
//! scope — implementing `allocator_api2`'s `Allocator`, so the records are ordinary
//! `allocator_api2` boxes and vectors (`Box<InstanceData, HostAllocator>`,
//! `Vec<*const c_char, HostAllocator>`): Rust runs the destructors and frees through the same
//! callbacks, on every error path included, with no hand-written placement code. `try_*`
//! constructors turn a failed allocation into `VK_ERROR_OUT_OF_HOST_MEMORY` ([`oom`]) instead of
//! aborting. The default is Rust's global allocator (AOSP's is `posix_memalign`; both honour the
//! alignment). The callbacks' alignment is checked: a callback returning memory misaligned for
//! the layout is treated as a failed allocation (and the block freed), never dereferenced.
//!
//! Which records live where:
//! * INSTANCE scope: [`InstanceData`](crate::dispatch_data::InstanceData) itself, the loader's own
//!   `VkInstance` object, the vector of driver instances, each driver's dispatch table, the
//!   active-layer list (AOSP's `LayerChain` layer array; made before any layer is called) and the
//!   wrapped physical devices (made at the first `vkEnumeratePhysicalDevices` on an instance of
//!   several drivers, or the first command that resolves one of its physical devices);
//! * DEVICE scope: [`DeviceData`](crate::dispatch_data::DeviceData) and the device's layer list;
//! * OBJECT scope: each `VK_EXT_debug_report` callback's node (AOSP's
//!   `DebugReportCallbackList::AddCallback`), in `vkCreateDebugReportCallbackEXT`'s allocator,
//!   else the instance's;
//! * COMMAND scope: the extension-name arrays passed to each driver's `vkCreateInstance` /
//!   `vkCreateDevice` and the layer-name array passed down the instance chain.
//!
//! The extension sets inside the records are fixed-size bitsets held inline, and the layers
//! the lists point at are shared by every instance (AOSP keeps its layer libraries and extension
//! tables in static storage too), so the global allocator holds none of an instance's or a
//! device's records; it only serves temporaries that die within one command.
//!
//! A record is freed where its last owner drops it: the top-level record with the destroy
//! command's allocator (or the stored one), the vectors and tables inside it with the allocator
//! that made them. The spec makes the two compatible (VUID-vkDestroyInstance-instance-00630), so
//! either may free memory of the other. The callbacks are called during the create and destroy
//! commands, and with the instance's allocator by the commands that build the wrapped physical
//! devices (the spec's "most specific allocator available" for an instance's own data), on the
//! calling thread.

use std::alloc::Layout;
use std::ffi::c_void;
use std::ptr::NonNull;

use allocator_api2::alloc::{AllocError, Allocator, Global};
use vkgen_abi::vk_error;

use vkgen_generated::vk;

pub use allocator_api2::boxed::Box as HostBox;
pub use allocator_api2::vec::Vec as HostVec;

/// The three callbacks the loader uses, copied out of the application's structure (AOSP keeps a
/// copy too: the application's struct need not outlive the call).
#[derive(Clone, Copy)]
struct Callbacks {
    user: *mut c_void,
    allocation: unsafe extern "system" fn(
        *mut c_void,
        usize,
        usize,
        vk::SystemAllocationScope,
    ) -> *mut c_void,
    free: unsafe extern "system" fn(*mut c_void, *mut c_void),
}

/// The application's allocator (or the default) with the scope of what it allocates.
#[derive(Clone, Copy)]
pub struct HostAllocator {
    callbacks: Option<Callbacks>,
    scope: vk::SystemAllocationScope,
}

impl std::fmt::Debug for HostAllocator {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("HostAllocator")
            .field("application", &self.callbacks.is_some())
            .field("scope", &self.scope)
            .finish()
    }
}

impl HostAllocator {
    /// The default allocator (Rust's global one) for `scope`.
    pub const fn default_for(scope: vk::SystemAllocationScope) -> Self {
        Self {
            callbacks: None,
            scope,
        }
    }

    /// The application's `pAllocator` for `scope`, or `None` when it is null. Callbacks without
    /// `pfnAllocation` or `pfnFree` (invalid usage) are treated as no callbacks, with a log line:
    /// the loader cannot allocate through them.
    ///
    /// # Safety
    /// `p_allocator` must be null or point at valid callbacks for this call.
    pub unsafe fn from_app(
        p_allocator: *const vk::AllocationCallbacks<'_>,
        scope: vk::SystemAllocationScope,
    ) -> Option<Self> {
        // SAFETY: the caller guarantees `p_allocator` is null or valid for this call; only the
        // three members are copied.
        let app = unsafe { p_allocator.as_ref() }?;
        let (Some(allocation), Some(free)) = (app.pfn_allocation, app.pfn_free) else {
            log::error!(
                "VkAllocationCallbacks without pfnAllocation or pfnFree: the loader's own data \
                 uses the default allocator"
            );
            return None;
        };
        Some(Self {
            callbacks: Some(Callbacks {
                user: app.p_user_data,
                allocation,
                free,
            }),
            scope,
        })
    }

    /// The application's `pAllocator` for `scope`, or `fallback` (re-scoped) without one.
    ///
    /// # Safety
    /// As [`HostAllocator::from_app`].
    pub unsafe fn app_or(
        p_allocator: *const vk::AllocationCallbacks<'_>,
        fallback: HostAllocator,
        scope: vk::SystemAllocationScope,
    ) -> Self {
        // SAFETY: the caller's guarantee on `p_allocator` is `from_app`'s.
        unsafe { Self::from_app(p_allocator, scope) }.unwrap_or(fallback.with_scope(scope))
    }

    /// The same callbacks for another scope.
    pub const fn with_scope(self, scope: vk::SystemAllocationScope) -> Self {
        Self {
            callbacks: self.callbacks,
            scope,
        }
    }

    /// The application's callbacks as a `VkAllocationCallbacks` (no reallocation: the loader
    /// never reallocates), for a WSI object that takes its instance's or device's allocator;
    /// `None` for the default allocator.
    pub fn app_callbacks(&self) -> Option<vk::AllocationCallbacks<'static>> {
        let cb = self.callbacks?;
        Some(
            vk::AllocationCallbacks::default()
                .user_data(cb.user)
                .pfn_allocation(Some(cb.allocation))
                .pfn_free(Some(cb.free)),
        )
    }

    /// Whether this is the application's allocator (not the default).
    pub fn is_application(&self) -> bool {
        self.callbacks.is_some()
    }

    /// The scope allocations are made with.
    pub fn scope(&self) -> vk::SystemAllocationScope {
        self.scope
    }
}

// SAFETY: `allocate` returns either Global's block or a block from the application's
// pfnAllocation checked to be non-null and aligned for the layout, of at least its size; a
// block stays valid until `deallocate` hands it back to the allocator that made it (Global for
// `callbacks: None`, pfnFree otherwise — copies of a `HostAllocator` share the callbacks, and
// differently-created callbacks are compatible by the spec's rule for destroy allocators).
unsafe impl Allocator for HostAllocator {
    fn allocate(&self, layout: Layout) -> Result<NonNull<[u8]>, AllocError> {
        let Some(cb) = self.callbacks else {
            return Global.allocate(layout);
        };
        if layout.size() == 0 {
            // A zero-size block is never handed to the callbacks (pfnAllocation may return
            // NULL for size 0): an aligned dangling pointer, as Global gives.
            return Global.allocate(layout);
        }
        // SAFETY: the application's pfnAllocation (valid per VUID-VkAllocationCallbacks-
        // pfnAllocation-00632) with its user data, a non-zero size and a power-of-two alignment.
        let raw = unsafe { (cb.allocation)(cb.user, layout.size(), layout.align(), self.scope) };
        let block = NonNull::new(raw.cast::<u8>()).ok_or(AllocError)?;
        if block.as_ptr().align_offset(layout.align()) != 0 {
            log::error!(
                "pfnAllocation returned {raw:?}, not aligned to {} bytes: treated as a failure",
                layout.align()
            );
            // SAFETY: the block pfnAllocation just returned, given back once through pfnFree.
            unsafe { (cb.free)(cb.user, raw) };
            return Err(AllocError);
        }
        Ok(NonNull::slice_from_raw_parts(block, layout.size()))
    }

    unsafe fn deallocate(&self, ptr: NonNull<u8>, layout: Layout) {
        match self.callbacks {
            // SAFETY: the caller hands back a block `allocate` made with this layout; without
            // callbacks (or for size 0 with them) that block came from Global.
            None => unsafe { Global.deallocate(ptr, layout) },
            // SAFETY: a zero-size block came from Global too (see `allocate`).
            Some(_) if layout.size() == 0 => unsafe { Global.deallocate(ptr, layout) },
            // SAFETY: a non-zero block from pfnAllocation of these (or compatible) callbacks,
            // freed once.
            Some(cb) => unsafe { (cb.free)(cb.user, ptr.as_ptr().cast()) },
        }
    }
}

/// The error for a failed allocation of `what` in `command`, logged.
pub fn oom(command: &str, what: &str) -> vk::Result {
    vk_error!(
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        "{command}: the allocator returned no memory for {what}"
    )
}

/// `value` in a box of `alloc`, or `VK_ERROR_OUT_OF_HOST_MEMORY` (`value` dropped).
pub fn try_box<T>(
    value: T,
    alloc: HostAllocator,
    command: &str,
    what: &str,
) -> Result<HostBox<T, HostAllocator>, vk::Result> {
    HostBox::try_new_in(value, alloc).map_err(|_| oom(command, what))
}

/// `items` in a vector of `alloc` (exactly their number), or `VK_ERROR_OUT_OF_HOST_MEMORY`.
pub fn try_collect<T>(
    items: impl IntoIterator<Item = T>,
    alloc: HostAllocator,
    command: &str,
    what: &str,
) -> Result<HostVec<T, HostAllocator>, vk::Result> {
    let items = items.into_iter();
    let mut vec = HostVec::new_in(alloc);
    vec.try_reserve_exact(items.size_hint().0)
        .map_err(|_| oom(command, what))?;
    for item in items {
        try_push(&mut vec, item, command, what)?;
    }
    Ok(vec)
}

/// Pushes `item`, growing through the allocator, or `VK_ERROR_OUT_OF_HOST_MEMORY`.
pub fn try_push<T>(
    vec: &mut HostVec<T, HostAllocator>,
    item: T,
    command: &str,
    what: &str,
) -> Result<(), vk::Result> {
    vec.try_reserve(1).map_err(|_| oom(command, what))?;
    vec.push(item);
    Ok(())
}

#[cfg(test)]
mod tests {
    use std::sync::Mutex;

    use super::*;

    /// What the test callbacks saw: `(size, alignment, scope)` per allocation, frees, and the
    /// allocation index that fails (`usize::MAX`: none).
    struct Log {
        allocations: Vec<(usize, usize, vk::SystemAllocationScope)>,
        frees: usize,
        fail_at: usize,
        /// Hand out blocks one byte past an aligned address (a broken allocator).
        misalign: bool,
    }

    unsafe extern "system" fn allocation(
        user: *mut c_void,
        size: usize,
        align: usize,
        scope: vk::SystemAllocationScope,
    ) -> *mut c_void {
        // SAFETY: `user` is the test's `Mutex<Log>`, alive for the test.
        let log = unsafe { &*user.cast::<Mutex<Log>>() };
        let mut log = log.lock().unwrap_or_else(|p| p.into_inner());
        let index = log.allocations.len();
        log.allocations.push((size, align, scope));
        if index == log.fail_at {
            return std::ptr::null_mut();
        }
        let layout = Layout::from_size_align(size + align, align).unwrap();
        // SAFETY: a non-zero layout. The block is never given back (`free` only counts): these
        // tests leak a few hundred bytes rather than track layouts.
        let base = unsafe { std::alloc::alloc(layout) };
        // One byte in stays inside the block (its size is `size + align`).
        let p = if log.misalign {
            base.wrapping_add(1)
        } else {
            base
        };
        p.cast()
    }

    unsafe extern "system" fn free(user: *mut c_void, _memory: *mut c_void) {
        // SAFETY: `user` is the test's `Mutex<Log>`, alive for the test.
        let log = unsafe { &*user.cast::<Mutex<Log>>() };
        log.lock().unwrap_or_else(|p| p.into_inner()).frees += 1;
    }

    fn callbacks(log: &Mutex<Log>) -> vk::AllocationCallbacks<'_> {
        vk::AllocationCallbacks {
            p_user_data: std::ptr::from_ref(log).cast_mut().cast(),
            pfn_allocation: Some(allocation),
            pfn_free: Some(free),
            ..Default::default()
        }
    }

    fn log(fail_at: usize, misalign: bool) -> Mutex<Log> {
        Mutex::new(Log {
            allocations: Vec::new(),
            frees: 0,
            fail_at,
            misalign,
        })
    }

    #[repr(align(64))]
    struct Aligned([u8; 100]);

    #[test]
    fn boxes_go_through_the_callbacks_with_scope_and_alignment() {
        let log = log(usize::MAX, false);
        let cb = callbacks(&log);
        // SAFETY: `cb` is valid for the test.
        let alloc =
            unsafe { HostAllocator::from_app(&cb, vk::SystemAllocationScope::INSTANCE) }.unwrap();
        let boxed = try_box(Aligned([7; 100]), alloc, "test", "record").unwrap();
        assert_eq!(std::ptr::from_ref(&*boxed) as usize % 64, 0);
        assert_eq!(boxed.0[99], 7);
        let names = try_collect(
            [1u64, 2, 3],
            alloc.with_scope(vk::SystemAllocationScope::COMMAND),
            "test",
            "names",
        )
        .unwrap();
        assert_eq!(&names[..], [1, 2, 3]);
        {
            let l = log.lock().unwrap();
            assert_eq!(
                l.allocations,
                [
                    (
                        size_of::<Aligned>(),
                        64,
                        vk::SystemAllocationScope::INSTANCE
                    ),
                    (24, 8, vk::SystemAllocationScope::COMMAND)
                ]
            );
            assert_eq!(l.frees, 0);
        }
        drop((boxed, names));
        assert_eq!(log.lock().unwrap().frees, 2);
    }

    #[test]
    fn a_failed_or_misaligned_allocation_is_out_of_host_memory() {
        let log = log(0, false);
        let cb = callbacks(&log);
        // SAFETY: `cb` is valid for the test.
        let alloc =
            unsafe { HostAllocator::from_app(&cb, vk::SystemAllocationScope::DEVICE) }.unwrap();
        assert_eq!(
            try_box(5u32, alloc, "test", "record").err(),
            Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
        );
        assert_eq!(log.lock().unwrap().frees, 0);

        let log = self::log(usize::MAX, true);
        let cb = callbacks(&log);
        // SAFETY: `cb` is valid for the test.
        let alloc =
            unsafe { HostAllocator::from_app(&cb, vk::SystemAllocationScope::DEVICE) }.unwrap();
        assert_eq!(
            try_box(Aligned([0; 100]), alloc, "test", "record").err(),
            Some(vk::Result::ERROR_OUT_OF_HOST_MEMORY)
        );
        // The misaligned block went back to the application.
        assert_eq!(log.lock().unwrap().frees, 1);
    }

    #[test]
    fn null_or_incomplete_callbacks_fall_back() {
        // SAFETY: null is allowed.
        let none = unsafe {
            HostAllocator::from_app(std::ptr::null(), vk::SystemAllocationScope::INSTANCE)
        };
        assert!(none.is_none());
        let incomplete = vk::AllocationCallbacks::default();
        // SAFETY: a valid (if unusable) struct.
        let fallback = HostAllocator::default_for(vk::SystemAllocationScope::INSTANCE);
        // SAFETY: `incomplete` is a valid struct for the call.
        let alloc = unsafe {
            HostAllocator::app_or(&incomplete, fallback, vk::SystemAllocationScope::DEVICE)
        };
        assert!(!alloc.is_application());
        assert_eq!(alloc.scope(), vk::SystemAllocationScope::DEVICE);
        let boxed = try_box([1u8; 16], alloc, "test", "record").unwrap();
        assert_eq!(boxed[15], 1);
    }
}
