//! Device addresses back to memory: every live [`DeviceMemory`](super::DeviceMemory)'s host
//! range, by base address, so an engine that follows a `VkDeviceAddress` (a shader's
//! `PhysicalStorageBuffer` pointer, an indirect address) can check it lands inside live memory
//! before touching it. The kit's device address of a buffer is its host address
//! (`vkGetBufferDeviceAddress`), so the lookup is a range search.
//!
//! Why process-wide and not per device: an address names no device, and the map only answers
//! "which live allocation holds this byte"; allocations never overlap.

use std::collections::BTreeMap;
use std::sync::RwLock;

/// Base address → length of every live allocation.
static LIVE: RwLock<BTreeMap<usize, usize>> = RwLock::new(BTreeMap::new());

pub(super) fn register(base: *mut u8, len: u64) {
    let len = usize::try_from(len).unwrap_or(usize::MAX);
    LIVE.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .insert(base as usize, len);
}

pub(super) fn unregister(base: *mut u8) {
    LIVE.write()
        .unwrap_or_else(std::sync::PoisonError::into_inner)
        .remove(&(base as usize));
}

/// The live device memory holding byte `address`: a pointer to that byte and how many bytes
/// of the allocation follow it (at least 1). `None` for an address no live allocation holds.
pub fn memory_at(address: u64) -> Option<(*mut u8, usize)> {
    let address = usize::try_from(address).ok()?;
    let live = LIVE
        .read()
        .unwrap_or_else(std::sync::PoisonError::into_inner);
    let (&base, &len) = live.range(..=address).next_back()?;
    let into = address - base;
    // Lazily: `len - into` would underflow for an address past the allocation.
    (into < len).then(|| (address as *mut u8, len - into))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn an_address_resolves_only_inside_a_live_allocation() {
        let mut a = vec![0u8; 64];
        let mut b = vec![0u8; 16];
        let (pa, pb) = (a.as_mut_ptr(), b.as_mut_ptr());
        register(pa, 64);
        register(pb, 16);
        assert_eq!(memory_at(pa as u64), Some((pa, 64)));
        assert_eq!(memory_at(pa as u64 + 63), Some((pa.wrapping_add(63), 1)));
        assert_eq!(memory_at(pb as u64 + 5), Some((pb.wrapping_add(5), 11)));
        unregister(pa);
        assert_eq!(memory_at(pa as u64 + 1), None);
        unregister(pb);
        assert_eq!(memory_at(pb as u64), None);
        assert_eq!(memory_at(0), None);
    }
}
