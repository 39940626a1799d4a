// The `pNext` walkers (hand-written: vkgen's `generator/src/emit/runtime/chain.rs`), copied
// verbatim into the generated crate: the one walker of the workspace (the loader, the driver
// runtime and this crate's feature tables and recorder all walk chains here, or with this
// bound).
//! `pNext` chains: reading, finding and writing through them, each walk cut at [`MAX_CHAIN`]
//! structures, so that an application's cyclic chain ends instead of spinning.

use core::ffi::c_void;

use crate::vk;

/// The most structures any walk follows: a chain this long is cyclic or hostile. One bound for
/// the workspace (the recorder's copies stop here too).
pub const MAX_CHAIN: usize = 1 << 12;

/// The structures of a read-only chain, head first, at most [`MAX_CHAIN`] of them.
///
/// # Safety
/// `p_next` is null or the head of a valid chain of Vulkan structures that outlives `'a`.
pub unsafe fn chain<'a>(p_next: *const c_void) -> impl Iterator<Item = &'a vk::BaseInStructure<'a>> {
    let mut cur = p_next.cast::<vk::BaseInStructure<'a>>();
    core::iter::from_fn(move || {
        // SAFETY: each pointer of a valid chain (this function's contract) is null or a live
        // structure, which starts with `sType` and `pNext`.
        let s = unsafe { cur.as_ref() }?;
        cur = s.p_next;
        Some(s)
    })
    .take(MAX_CHAIN)
}

/// The first structure of type `s_type` in a read-only chain, as `T`.
///
/// # Safety
/// As for [`chain`]; `T` is the structure type `s_type` denotes.
pub unsafe fn find_in_chain<'a, T>(p_next: *const c_void, s_type: vk::StructureType) -> Option<&'a T> {
    // SAFETY: `p_next` is null or a valid chain (this function's contract, `chain`'s too).
    let found = unsafe { chain(p_next) }.find(|s| s.s_type == s_type)?;
    // SAFETY: the caller's `T` is the structure `s_type` denotes, the sType just compared.
    Some(unsafe { &*core::ptr::from_ref(found).cast::<T>() })
}

/// Calls `f` with every structure of a writable (output) chain, at most [`MAX_CHAIN`] of them;
/// each `pNext` is read before `f` may write the structure.
///
/// # Safety
/// `p_next` is null or the head of a valid chain of writable Vulkan structures.
pub unsafe fn for_each_out(p_next: *mut c_void, mut f: impl FnMut(*mut vk::BaseOutStructure<'static>)) {
    let mut cur = p_next.cast::<vk::BaseOutStructure<'static>>();
    for _ in 0..MAX_CHAIN {
        if cur.is_null() {
            return;
        }
        // SAFETY: `cur` is a live writable structure of the chain (this function's contract);
        // its `pNext` is read before `f` runs.
        let next = unsafe { (*cur).p_next };
        f(cur);
        cur = next;
    }
}
