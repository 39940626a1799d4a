// The two-call enumeration helper (hand-written: vkgen's
// `generator/src/emit/runtime/two_call.rs`), copied verbatim into the generated crate: the one
// of the workspace (the loader's enumerations and the driver runtime's answer through it).
//! Vulkan's two-call idiom for `(pCount, pItems)` outputs.

use crate::vk;

/// Writes `src` to a caller's `(pCount, pItems)` pair: with `p_out` null, stores `src.len()` in
/// `*p_count`; otherwise copies `min(*p_count, len)` elements, stores that count, and answers
/// `VK_INCOMPLETE` when it is less than `len`. A null `p_count` (invalid usage) writes nothing
/// and answers `VK_ERROR_INITIALIZATION_FAILED`.
///
/// # Safety
/// `p_count` is null or valid for reads and writes; `p_out` is null or valid for `*p_count`
/// writes of `T`.
pub unsafe fn write_array<T: Copy>(src: &[T], p_count: *mut u32, p_out: *mut T) -> vk::Result {
    // SAFETY: `p_count` and `p_out` are null or valid for `*p_count` elements (this function's
    // contract, the one `write_array_with` asks for), and every `T: Copy` is an initialised
    // value to overwrite.
    unsafe { write_array_with(src.len(), p_count, p_out, |i, out| *out = src[i]) }
}

/// [`write_array`] for outputs filled in place (structures with `sType`/`pNext` the
/// application set): `fill(i, &mut out[i])` for each element written.
///
/// # Safety
/// As for [`write_array`]; `p_out`'s elements are initialised values of `T`.
pub unsafe fn write_array_with<T>(
    len: usize,
    p_count: *mut u32,
    p_out: *mut T,
    mut fill: impl FnMut(usize, &mut T),
) -> vk::Result {
    if p_count.is_null() {
        return vk::Result::ERROR_INITIALIZATION_FAILED;
    }
    let total = u32::try_from(len).unwrap_or(u32::MAX);
    if p_out.is_null() {
        // SAFETY: `p_count` is non-null (checked above) and writable (the caller's contract).
        unsafe { *p_count = total };
        return vk::Result::SUCCESS;
    }
    // SAFETY: `p_count` is non-null (checked above) and readable (the caller's contract).
    let capacity = unsafe { *p_count };
    let n = capacity.min(total);
    for i in 0..n as usize {
        // SAFETY: `i < *p_count`, and `p_out` holds `*p_count` initialised elements.
        fill(i, unsafe { &mut *p_out.add(i) });
    }
    // SAFETY: `p_count` is non-null (checked above) and writable (the caller's contract).
    unsafe { *p_count = n };
    if n < total {
        vk::Result::INCOMPLETE
    } else {
        vk::Result::SUCCESS
    }
}
