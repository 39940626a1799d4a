// The two-call enumeration helper (hand-written: vkgen's
// `generator/src/emit/runtime/two_call.rs`), copied verbatim into the generated crate: the one
// of the workspace (the loader's enumerations and the driver runtime's answer through it).
//! Vulkan's two-call idiom for `(pCount, pItems)` outputs: writing one ([`write_array`]) and
//! reading one ([`read_array`]).

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

/// The most entries [`read_array`] takes from one enumeration: a count from a driver, layer or
/// ICD sizes no allocation beyond this (real lists hold a few hundred extensions at most).
pub const MAX_READ: u32 = 4096;

/// How often [`read_array`] asks again after `VK_INCOMPLETE` (the list grew between its two
/// calls) before it gives up: a list that keeps growing is broken, not busy.
pub const MAX_READ_TRIES: usize = 8;

/// Why [`read_array`] has no list.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ReadError {
    /// A call answered this (`VK_INCOMPLETE`: still so after [`MAX_READ_TRIES`] tries).
    Failed(vk::Result),
    /// The count query reported more than [`MAX_READ`] entries.
    TooMany(u32),
}

/// The other side of [`write_array`]: reads a `(pCount, pItems)` enumeration through `call`
/// (the count with a null array, then the array), asking again while the answer is
/// `VK_INCOMPLETE`, with the count bounded by [`MAX_READ`] and only the entries the callee says
/// it wrote kept. The one reader of the workspace: the loader's enumerations of drivers and
/// layers and the host driver's of its ICD go through it, against callees they do not trust.
pub fn read_array<T: Clone + Default>(
    mut call: impl FnMut(*mut u32, *mut T) -> vk::Result,
) -> Result<Vec<T>, ReadError> {
    for _ in 0..MAX_READ_TRIES {
        let mut count = 0u32;
        let result = call(&mut count, core::ptr::null_mut());
        if result != vk::Result::SUCCESS {
            return Err(ReadError::Failed(result));
        }
        if count > MAX_READ {
            return Err(ReadError::TooMany(count));
        }
        let mut items = vec![T::default(); count as usize];
        let mut written = count;
        match call(&mut written, items.as_mut_ptr()) {
            vk::Result::SUCCESS => {
                items.truncate(written.min(count) as usize);
                return Ok(items);
            }
            vk::Result::INCOMPLETE => continue,
            other => return Err(ReadError::Failed(other)),
        }
    }
    Err(ReadError::Failed(vk::Result::INCOMPLETE))
}
