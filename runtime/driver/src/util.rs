//! Small helpers every backend needs: the two-call enumeration idiom, `pNext` chains, fixed-size
//! C strings, and taking ownership of native fence fds handed over the HAL.

use std::ffi::{c_char, c_void, CStr};
use std::os::fd::RawFd;

use ash::vk;

use crate::sync_fd::{FenceError, NativeFence};

// The two-call idiom and the pNext walkers are the generated crate's (one of each for the
// workspace, one chain bound: `vkgen_generated::chain::MAX_CHAIN`), under the paths backends
// always used.
pub use vkgen_generated::chain::{chain, find_in_chain, for_each_out, MAX_CHAIN};
pub use vkgen_generated::two_call::{write_array, write_array_with};

/// Copies `s` into a fixed-size C string array (`VkExtensionProperties::extensionName` etc.),
/// truncating if needed and always NUL-terminating.
pub fn copy_cstr(dst: &mut [c_char], s: &CStr) {
    let bytes = s.to_bytes();
    let n = bytes.len().min(dst.len().saturating_sub(1));
    for (d, &b) in dst.iter_mut().zip(&bytes[..n]) {
        *d = b as c_char;
    }
    for d in &mut dst[n..] {
        *d = 0;
    }
}

/// `VkExtensionProperties { name, spec }`.
pub fn extension_properties(name: &CStr, spec_version: u32) -> vk::ExtensionProperties {
    let mut p = vk::ExtensionProperties {
        spec_version,
        ..Default::default()
    };
    copy_cstr(&mut p.extension_name, name);
    p
}

/// The name in a fixed-size C string array (up to the first NUL, or the whole array).
pub fn cstr_from_array(a: &[c_char]) -> &[u8] {
    // SAFETY: `c_char` and `u8` have the same size and alignment.
    let bytes = unsafe { std::slice::from_raw_parts(a.as_ptr().cast::<u8>(), a.len()) };
    let end = bytes.iter().position(|&b| b == 0).unwrap_or(bytes.len());
    &bytes[..end]
}

/// The size of the input structures that can appear in the chains the runtime edits
/// (`VkImageCreateInfo`, `VkBindImageMemoryInfo`), so they can be copied with a new `pNext`.
fn known_struct_size(s_type: vk::StructureType) -> Option<usize> {
    use std::mem::size_of;
    use vk::StructureType as S;
    Some(match s_type {
        S::NATIVE_BUFFER_ANDROID => size_of::<vk::NativeBufferANDROID>(),
        S::SWAPCHAIN_IMAGE_CREATE_INFO_ANDROID => size_of::<vk::SwapchainImageCreateInfoANDROID>(),
        S::IMAGE_SWAPCHAIN_CREATE_INFO_KHR => size_of::<vk::ImageSwapchainCreateInfoKHR<'_>>(),
        S::BIND_IMAGE_MEMORY_SWAPCHAIN_INFO_KHR => {
            size_of::<vk::BindImageMemorySwapchainInfoKHR<'_>>()
        }
        S::IMAGE_FORMAT_LIST_CREATE_INFO => size_of::<vk::ImageFormatListCreateInfo<'_>>(),
        S::EXTERNAL_MEMORY_IMAGE_CREATE_INFO => size_of::<vk::ExternalMemoryImageCreateInfo<'_>>(),
        S::IMAGE_STENCIL_USAGE_CREATE_INFO => size_of::<vk::ImageStencilUsageCreateInfo<'_>>(),
        S::IMAGE_COMPRESSION_CONTROL_EXT => size_of::<vk::ImageCompressionControlEXT<'_>>(),
        S::DEDICATED_ALLOCATION_IMAGE_CREATE_INFO_NV => {
            size_of::<vk::DedicatedAllocationImageCreateInfoNV<'_>>()
        }
        S::BIND_IMAGE_PLANE_MEMORY_INFO => size_of::<vk::BindImagePlaneMemoryInfo<'_>>(),
        S::BIND_IMAGE_MEMORY_DEVICE_GROUP_INFO => {
            size_of::<vk::BindImageMemoryDeviceGroupInfo<'_>>()
        }
        _ => return None,
    })
}

/// A read-only `pNext` chain with some structure types left out, without modifying the
/// application's structures where possible.
///
/// Nodes after the last removed one are reused as they are. A kept node before it needs a new
/// `pNext`: known structure types are copied into storage owned by this value; an unknown one is
/// relinked in place and restored when this value drops (the only write to application memory,
/// and only for the duration of the call that uses the chain).
pub struct ChainEdit {
    head: *const c_void,
    /// Copies of relinked nodes, 8-byte aligned.
    _copies: Vec<Box<[u64]>>,
    /// `(node, original pNext)` of nodes relinked in place.
    restore: Vec<(
        *mut vk::BaseOutStructure<'static>,
        *mut vk::BaseOutStructure<'static>,
    )>,
}

impl ChainEdit {
    /// The chain at `p_next` without structures whose type is in `remove`.
    ///
    /// # Safety
    /// `p_next` is null or a valid chain that outlives the returned value and is not used by
    /// anyone else meanwhile (a node may be relinked in place, see the type docs).
    pub unsafe fn without(p_next: *const c_void, remove: &[vk::StructureType]) -> Self {
        // SAFETY: `p_next` is null or a valid chain (this function's contract, `chain`'s too),
        // which outlives the collected node pointers.
        let nodes: Vec<*const vk::BaseInStructure<'_>> =
            unsafe { chain(p_next) }.map(std::ptr::from_ref).collect();
        let mut edit = Self {
            head: std::ptr::null(),
            _copies: Vec::new(),
            restore: Vec::new(),
        };
        let mut next: *const vk::BaseInStructure<'_> = std::ptr::null();
        for &node in nodes.iter().rev() {
            // SAFETY: `node` is a live chain node.
            let (s_type, original_next) = unsafe { ((*node).s_type, (*node).p_next) };
            if remove.contains(&s_type) {
                continue;
            }
            if original_next == next {
                next = node;
                continue;
            }
            if let Some(size) = known_struct_size(s_type) {
                let mut copy = vec![0u64; size.div_ceil(8)].into_boxed_slice();
                // SAFETY: `node` holds `size` readable bytes (its type's size); `copy` holds at
                // least as many; `pNext` is at the same offset in every Vulkan structure.
                unsafe {
                    std::ptr::copy_nonoverlapping(
                        node.cast::<u8>(),
                        copy.as_mut_ptr().cast::<u8>(),
                        size,
                    );
                    (*copy.as_mut_ptr().cast::<vk::BaseInStructure<'_>>()).p_next = next;
                }
                next = copy.as_ptr().cast();
                edit._copies.push(copy);
            } else {
                let node = node.cast_mut().cast::<vk::BaseOutStructure<'static>>();
                // SAFETY: relinking in place, restored on drop (see the type docs).
                unsafe {
                    edit.restore.push((node, (*node).p_next));
                    (*node).p_next = next.cast_mut().cast();
                }
                next = node.cast_const().cast();
            }
        }
        edit.head = next.cast();
        edit
    }

    /// The edited chain.
    pub fn head(&self) -> *const c_void {
        self.head
    }
}

impl Drop for ChainEdit {
    fn drop(&mut self) {
        for &(node, original) in self.restore.iter().rev() {
            // SAFETY: `node` was a live chain node when relinked and outlives `self` (contract
            // of `without`).
            unsafe { (*node).p_next = original };
        }
    }
}

/// Takes ownership of a native fence fd received over the HAL (`vkAcquireImageANDROID`).
///
/// Negative values are the already-signalled fence. A descriptor that is not open is reported
/// as `VK_ERROR_INVALID_EXTERNAL_HANDLE` *without* being wrapped, so that nothing closes an fd
/// number some other part of the process may reuse.
///
/// # Safety
/// A non-negative `fd` that is open must be owned by the caller, who hands it over.
pub unsafe fn take_native_fence(fd: RawFd) -> Result<NativeFence, vk::Result> {
    if fd < 0 {
        return Ok(NativeFence::signalled());
    }
    // SAFETY: `fcntl(F_GETFD)` on any integer is defined; it only reports whether it is open.
    if unsafe { libc::fcntl(fd, libc::F_GETFD) } < 0 {
        return Err(vkgen_abi::vk_error!(
            vk::Result::ERROR_INVALID_EXTERNAL_HANDLE,
            "native fence fd {fd} is not open"
        ));
    }
    // SAFETY: the fd is open and, per the caller, ours to own.
    Ok(unsafe { NativeFence::from_raw(fd) })
}

/// The `VkResult` for a failed fence operation, logged:
/// [`map_fence_err`](crate::sync_fd::map_fence_err), the sync-fd source's one mapper, under a
/// generic description (callers that can say what failed call the mapper themselves).
pub fn fence_error_result(e: &FenceError) -> vk::Result {
    crate::sync_fd::map_fence_err("a native fence operation", e)
}

/// Runs `f`; a panic is logged with `command` and its payload and becomes `fail`, so no unwind
/// crosses an `extern "system"` boundary (the one boundary guard, `vkgen_abi::guard`).
pub fn guard<R>(command: &str, fail: R, f: impl FnOnce() -> R) -> R {
    vkgen_abi::guard::guard(command, fail, f)
}

/// A slice from a Vulkan array argument (empty for null or a zero count).
///
/// # Safety
/// Non-null `p` holds `n` initialised elements that outlive `'a`.
pub unsafe fn slice<'a, T>(p: *const T, n: u32) -> &'a [T] {
    if p.is_null() || n == 0 {
        &[]
    } else {
        // SAFETY: `p` is non-null here and holds `n` initialised elements that outlive `'a` (this
        // function's contract).
        unsafe { std::slice::from_raw_parts(p, n as usize) }
    }
}

/// Locks `m`, ignoring poisoning: a panic in another Vulkan call (caught at its boundary) must
/// not make the object unusable.
pub fn lock<T>(m: &std::sync::Mutex<T>) -> std::sync::MutexGuard<'_, T> {
    m.lock().unwrap_or_else(std::sync::PoisonError::into_inner)
}

#[cfg(test)]
mod tests {
    use super::*;
    use std::ptr;

    #[test]
    fn two_call_idiom() {
        let src = [1u32, 2, 3];
        let mut count = 0u32;
        // SAFETY: valid count, null output.
        let r = unsafe { write_array(&src, &mut count, ptr::null_mut()) };
        assert_eq!((r, count), (vk::Result::SUCCESS, 3));
        let mut out = [0u32; 3];
        count = 2;
        // SAFETY: `out` holds at least `count` elements.
        let r = unsafe { write_array(&src, &mut count, out.as_mut_ptr()) };
        assert_eq!((r, count, out), (vk::Result::INCOMPLETE, 2, [1, 2, 0]));
        count = 5;
        let mut big = [0u32; 5];
        // SAFETY: `big` holds 5 elements, at least `count`.
        let r = unsafe { write_array(&src, &mut count, big.as_mut_ptr()) };
        assert_eq!((r, count, &big[..3]), (vk::Result::SUCCESS, 3, &src[..]));
        count = 0;
        // SAFETY: zero-length output is never written.
        let r = unsafe { write_array(&src, &mut count, big.as_mut_ptr()) };
        assert_eq!(r, vk::Result::INCOMPLETE);
    }

    #[test]
    fn chain_edit_removes_without_touching_the_original() {
        let mut anb: vk::NativeBufferANDROID = unsafe_zeroed();
        anb.s_type = vk::StructureType::NATIVE_BUFFER_ANDROID;
        let list = vk::ImageFormatListCreateInfo {
            p_next: ptr::from_ref(&anb).cast(),
            ..Default::default()
        };
        let usage = vk::ImageStencilUsageCreateInfo {
            p_next: ptr::from_ref(&list).cast(),
            ..Default::default()
        };
        // An unknown structure type before the removed node is relinked in place.
        let mut unknown = vk::BaseInStructure {
            s_type: vk::StructureType::from_raw(0x7fff_0001),
            p_next: ptr::from_ref(&usage).cast(),
            ..Default::default()
        };
        let head = ptr::from_mut(&mut unknown).cast_const().cast::<c_void>();
        {
            // SAFETY: a valid chain on the stack that outlives the edit.
            let edit =
                unsafe { ChainEdit::without(head, &[vk::StructureType::NATIVE_BUFFER_ANDROID]) };
            // SAFETY: the edited chain is valid while `edit` lives.
            let types: Vec<_> = unsafe { chain(edit.head()) }.map(|s| s.s_type).collect();
            assert_eq!(
                types,
                [
                    vk::StructureType::from_raw(0x7fff_0001),
                    vk::StructureType::IMAGE_STENCIL_USAGE_CREATE_INFO,
                    vk::StructureType::IMAGE_FORMAT_LIST_CREATE_INFO
                ]
            );
            assert_eq!(edit.head(), head, "unknown head reused (relinked)");
        }
        // SAFETY: the original chain is intact again.
        let types: Vec<_> = unsafe { chain(head) }.map(|s| s.s_type).collect();
        assert_eq!(types.len(), 4);
        assert_eq!(
            list.p_next,
            ptr::from_ref(&anb).cast(),
            "known nodes are copied, not edited"
        );
        // Nothing to remove: the chain is reused as is.
        // SAFETY: `head` is the test's chain, intact again and alive on this stack frame.
        let edit = unsafe { ChainEdit::without(head, &[vk::StructureType::BIND_SPARSE_INFO]) };
        assert_eq!(edit.head(), head);
    }

    fn unsafe_zeroed<T: Copy>() -> T {
        // SAFETY: only used for plain-data Vulkan structures, for which all-zero is valid.
        unsafe { std::mem::zeroed() }
    }

    #[test]
    fn cstr_copy_truncates_and_terminates() {
        let mut a = [1 as c_char; 4];
        copy_cstr(&mut a, c"abcdef");
        assert_eq!(cstr_from_array(&a), b"abc");
        copy_cstr(&mut a, c"x");
        assert_eq!(a, [b'x' as c_char, 0, 0, 0]);
    }

    #[test]
    fn closed_fds_are_not_taken() {
        // SAFETY: -1 carries no fd.
        let f = unsafe { take_native_fence(-1) }.unwrap();
        assert!(f.is_trivially_signalled());
        // SAFETY: a huge fd number is not open, so nothing is taken or closed.
        let r = unsafe { take_native_fence(1_000_000) };
        assert_eq!(r.unwrap_err(), vk::Result::ERROR_INVALID_EXTERNAL_HANDLE);
    }
}
