//! How the WSI holds its objects: process-wide registries of live surfaces and swapchains by
//! handle ([`Registry`]), and the one allocation each object also makes through the
//! application's `VkAllocationCallbacks` ([`AppAllocation`]).

use std::collections::BTreeMap;
use std::ffi::c_void;
use std::sync::atomic::{AtomicU64, Ordering};
use std::sync::{Arc, RwLock};

use vkgen_abi::vk_error;
use vkgen_generated::vk;

/// A registry of live WSI objects by handle.
pub struct Registry<T> {
    map: RwLock<BTreeMap<u64, Arc<T>>>,
    next: AtomicU64,
    /// High bits stamped into every handle (tells surfaces from swapchains in logs).
    tag: u64,
}

impl<T> Registry<T> {
    /// An empty registry whose handles carry `tag` in their top 16 bits.
    pub const fn new(tag: u16) -> Self {
        Self {
            map: RwLock::new(BTreeMap::new()),
            next: AtomicU64::new(1),
            tag: (tag as u64) << 48,
        }
    }

    /// A fresh handle (never 0, never reused).
    pub fn reserve(&self) -> u64 {
        self.tag | (self.next.fetch_add(1, Ordering::Relaxed) & 0xFFFF_FFFF_FFFF)
    }

    /// Publishes `object` under `handle`.
    pub fn insert(&self, handle: u64, object: Arc<T>) {
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .insert(handle, object);
    }

    /// The live object `handle` names.
    pub fn get(&self, handle: u64) -> Option<Arc<T>> {
        if handle == 0 {
            return None;
        }
        self.map
            .read()
            .unwrap_or_else(|p| p.into_inner())
            .get(&handle)
            .cloned()
    }

    /// Unpublishes `handle`, returning its object.
    pub fn remove(&self, handle: u64) -> Option<Arc<T>> {
        if handle == 0 {
            return None;
        }
        self.map
            .write()
            .unwrap_or_else(|p| p.into_inner())
            .remove(&handle)
    }

    /// Unpublishes every object `pick` selects, returning them.
    pub fn remove_where(&self, mut pick: impl FnMut(&T) -> bool) -> Vec<Arc<T>> {
        let mut map = self.map.write().unwrap_or_else(|p| p.into_inner());
        let handles: Vec<u64> = map
            .iter()
            .filter(|(_, v)| pick(v))
            .map(|(&k, _)| k)
            .collect();
        handles.iter().filter_map(|h| map.remove(h)).collect()
    }

    /// How many objects are live.
    pub fn len(&self) -> usize {
        self.map.read().unwrap_or_else(|p| p.into_inner()).len()
    }

    /// Whether no object is live.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

/// One allocation made through the application's `VkAllocationCallbacks` for a WSI object,
/// freed (through the same callbacks) when dropped. Empty without callbacks.
#[derive(Debug)]
pub struct AppAllocation {
    callbacks: Option<(vk::PFN_vkFreeFunction, *mut c_void)>,
    memory: *mut c_void,
}

// SAFETY: the callbacks are the application's, which the spec requires to be callable from any
// thread that uses the object; the memory is opaque to us.
unsafe impl Send for AppAllocation {}
// SAFETY: see `Send`; the fields are never mutated after creation.
unsafe impl Sync for AppAllocation {}

impl AppAllocation {
    /// Allocates `size` bytes (aligned to `align`) through `allocator`, if any.
    ///
    /// # Safety
    /// `allocator` must be null or valid callbacks.
    pub unsafe fn new(
        allocator: *const vk::AllocationCallbacks<'_>,
        size: usize,
        align: usize,
    ) -> Result<Self, vk::Result> {
        // SAFETY: the caller guarantees `allocator` is null or valid callbacks for the allocation's
        // lifetime.
        let Some(cb) = (unsafe { allocator.as_ref() }) else {
            return Ok(Self {
                callbacks: None,
                memory: std::ptr::null_mut(),
            });
        };
        let (Some(alloc), Some(free)) = (cb.pfn_allocation, cb.pfn_free) else {
            return Err(vk_error!(
                vk::Result::ERROR_INITIALIZATION_FAILED,
                "VkAllocationCallbacks without pfnAllocation/pfnFree"
            ));
        };
        // SAFETY: the application's allocation callback with its own user data.
        let memory = unsafe {
            alloc(
                cb.p_user_data,
                size,
                align,
                vk::SystemAllocationScope::OBJECT,
            )
        };
        if memory.is_null() {
            return Err(vk_error!(
                vk::Result::ERROR_OUT_OF_HOST_MEMORY,
                "the application's pfnAllocation returned null"
            ));
        }
        Ok(Self {
            callbacks: Some((Some(free), cb.p_user_data)),
            memory,
        })
    }
}

impl Drop for AppAllocation {
    fn drop(&mut self) {
        if let Some((Some(free), user_data)) = self.callbacks {
            // SAFETY: frees what `new` allocated, with the same callbacks.
            unsafe { free(user_data, self.memory) };
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn registry_handles_are_tagged_unique_and_checked() {
        let r: Registry<u32> = Registry::new(0x5c);
        let a = r.reserve();
        let b = r.reserve();
        assert_ne!(a, b);
        assert_eq!(a >> 48, 0x5c);
        assert!(r.get(a).is_none());
        r.insert(a, Arc::new(7));
        assert_eq!(r.get(a).as_deref(), Some(&7));
        assert!(r.get(0).is_none());
        assert!(r.remove(b).is_none());
        assert_eq!(r.remove(a).as_deref(), Some(&7));
        assert!(r.is_empty());
    }
}
