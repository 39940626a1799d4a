//! `vkCmdFillBuffer`, `vkCmdUpdateBuffer` and `vkCmdCopyBuffer{,2}` on the buffers' bytes.
//! A range past the buffer (after `VK_WHOLE_SIZE` is resolved) drops its command or region
//! with a warning.

use vkgen_generated::vk;

use super::access::dropped;
use super::access::{self, buffer};

/// `vkCmdFillBuffer`: `data` repeated over `size` bytes (`VK_WHOLE_SIZE`: to the end, rounded
/// down to a multiple of 4).
///
/// # Safety
/// `dst` is a recorded handle of a pending command buffer (live, or refused by type).
pub(super) unsafe fn fill(dst: vk::Buffer, offset: u64, size: u64, data: u32) {
    const WHAT: &str = "vkCmdFillBuffer";
    // SAFETY: the caller's recorded handle.
    let host = match unsafe { buffer(dst) } {
        Ok(h) => h,
        Err(why) => return dropped(WHAT, 0, &why),
    };
    let size = if size == vk::WHOLE_SIZE {
        host.len().saturating_sub(offset) & !3
    } else {
        size
    };
    let word = data.to_ne_bytes();
    let Some(p) = host.at(offset, size) else {
        return dropped(
            WHAT,
            0,
            &format!("{size} bytes at {offset} of {}", host.len()),
        );
    };
    for i in 0..(size / 4) as usize {
        // SAFETY: `4 * i + 4 <= size` bytes from `p`, which `at` checked lie in the buffer.
        unsafe { std::ptr::copy_nonoverlapping(word.as_ptr(), p.add(4 * i), 4) };
    }
}

/// `vkCmdUpdateBuffer`: the recorded `data_size` bytes at `offset`.
///
/// # Safety
/// As [`fill`]; `data` is the recording's copy of `data_size` bytes.
pub(super) unsafe fn update(dst: vk::Buffer, offset: u64, data_size: u64, data: *const u8) {
    const WHAT: &str = "vkCmdUpdateBuffer";
    // SAFETY: the caller's recorded handle.
    let host = match unsafe { buffer(dst) } {
        Ok(h) => h,
        Err(why) => return dropped(WHAT, 0, &why),
    };
    if data.is_null() {
        return dropped(WHAT, 0, "no data");
    }
    // SAFETY: the recording's copy of `dataSize` bytes (this function's contract).
    let bytes = unsafe { std::slice::from_raw_parts(data, data_size as usize) };
    if !access::write(host, offset, bytes) {
        dropped(
            WHAT,
            0,
            &format!("{data_size} bytes at {offset} of {}", host.len()),
        );
    }
}

/// `vkCmdCopyBuffer{,2}`: each region `(src offset, dst offset, size)` moved as by `memmove`
/// (the spec makes overlapping regions undefined; a `memmove` keeps them harmless).
///
/// # Safety
/// As [`fill`], for both buffers.
pub(super) unsafe fn copy(
    what: &str,
    src: vk::Buffer,
    dst: vk::Buffer,
    regions: impl Iterator<Item = (u64, u64, u64)>,
) {
    // SAFETY: the caller's recorded handles.
    let (s, d) = match unsafe { (buffer(src), buffer(dst)) } {
        (Ok(s), Ok(d)) => (s, d),
        (Err(why), _) | (_, Err(why)) => return dropped(what, 0, &why),
    };
    for (i, (from, to, size)) in regions.enumerate() {
        if !access::copy(s, from, d, to, size) {
            dropped(
                what,
                i,
                &format!(
                    "{size} bytes from {from} of {} to {to} of {}",
                    s.len(),
                    d.len()
                ),
            );
        }
    }
}
