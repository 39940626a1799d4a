//! The null driver's own objects: events, and the stateless ones (pipelines, shader modules,
//! layouts, pools, render passes, …). Memory, buffers, images, views, samplers, query pools and
//! private data are the kit's resource objects ([`crate::kit::resources`]).

use super::*;

// ---------------------------------------------------------------------------------------------
// Objects

pub(super) struct Event {
    pub(super) set: AtomicBool,
}
/// Objects without state; the parameter is the `VkObjectType`.
pub(super) struct Plain<const TYPE: i32>;

macro_rules! kinds {
    ($($t:ty => $k:ident),* $(,)?) => {$(
        impl ObjectKind for $t {
            const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::$k;
        }
    )*};
}
kinds! {
    Event => EVENT,
}
impl<const TYPE: i32> ObjectKind for Plain<TYPE> {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::from_raw(TYPE);
}

/// The object behind a non-dispatchable handle.
///
/// # Safety
/// `h` is null or a live handle of this driver.
pub(super) unsafe fn obj<'a, T: ObjectKind, H: vk::Handle>(h: H) -> Option<&'a T> {
    // SAFETY: `h` is null or a live handle of this driver (this function's contract); `from_handle`
    // checks its signature before the object is borrowed.
    unsafe { Object::<T>::from_handle(h) }.map(|o| &**o)
}

/// Creates `n` stateless objects of one type into `out`, rolling back on failure.
///
/// # Safety
/// `out` is valid for `n` writes; `p_allocator` as for [`HostAllocator::from_ptr`].
pub(super) unsafe fn create_plain_array<const TYPE: i32, H: vk::Handle>(
    n: u32,
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    if out.is_null() {
        return vk::Result::SUCCESS;
    }
    for i in 0..n as usize {
        // SAFETY: `p_allocator` is null or callbacks valid for the objects' lifetime (this
        // function's contract, the one `create_object` asks for).
        match unsafe { create_object(Plain::<TYPE>, p_allocator) } {
            // SAFETY: `out` is valid for `n` writes.
            Ok(h) => unsafe { out.add(i).write(H::from_raw(h)) },
            Err(e) => {
                for j in 0..n as usize {
                    // SAFETY: entries before `i` are live handles made above; every entry is
                    // then overwritten with null, as the spec requires on failure.
                    unsafe {
                        if j < i {
                            destroy_object::<Plain<TYPE>>(out.add(j).read().as_raw());
                        }
                        out.add(j).write(H::from_raw(0));
                    }
                }
                return e;
            }
        }
    }
    vk::Result::SUCCESS
}

/// Creates one stateless object into `out`.
///
/// # Safety
/// `out` is null or writable; `p_allocator` as for [`HostAllocator::from_ptr`].
pub(super) unsafe fn create_plain<const TYPE: i32, H: vk::Handle>(
    p_allocator: *const vk::AllocationCallbacks<'_>,
    out: *mut H,
) -> vk::Result {
    // SAFETY: `out` is null or valid for one write, which `create_plain_array` with `n = 1` needs
    // (it skips null); `p_allocator` is passed on under the same contract.
    unsafe { create_plain_array::<TYPE, H>(1, p_allocator, out) }
}

/// Generates the create/destroy hook pairs of stateless object types.
macro_rules! plain_objects {
    ($($create:ident / $destroy:ident ($info:ty) -> $handle:ty : $kind:ident;)*) => {$(
        unsafe fn $create(
            _device: vk::Device,
            _p_create_info: *const $info,
            p_allocator: *const vk::AllocationCallbacks<'_>,
            p_out: *mut $handle,
        ) -> vk::Result {
            // SAFETY: `p_allocator` and `p_out` are the application's arguments of this create
            // command: null or valid callbacks, and an output valid for a write (or null, which
            // `create_plain` skips).
            unsafe {
                create_plain::<{ vk::ObjectType::$kind.as_raw() }, $handle>(p_allocator, p_out)
            }
        }
        unsafe fn $destroy(
            _device: vk::Device,
            object: $handle,
            _p_allocator: *const vk::AllocationCallbacks<'_>,
        ) {
            // SAFETY: `object` is null or a live handle the application no longer uses.
            unsafe {
                destroy_object::<Plain<{ vk::ObjectType::$kind.as_raw() }>>(vk::Handle::as_raw(object))
            };
        }
    )*};
}
