//! FFI plumbing shared by every `extern "system"` function the loader defines.
//!
//! * [`guard`]: no panic may unwind out of an `extern "system"` function, into C code that cannot
//!   handle it. Every entry point and hook runs its body under [`guard`], which turns a panic into
//!   the command's failure value (with an error log line naming the command).
//! * [`fill_array`] / [`enumerate`]: the Vulkan two-call idiom in both directions, with
//!   `VK_INCOMPLETE` when the caller's array is too small.
//! * [`cstr`] / [`name_list`]: borrowing C strings the application handed us.

use std::ffi::{c_char, CStr};

use vkgen_abi::vk_error;

use vkgen_generated::vk;

/// Runs `body`, returning `failure` (and logging the command and the payload) if it panics:
/// the one boundary guard, `vkgen_abi::guard`.
pub(crate) use vkgen_abi::guard::guard;

/// [`guard`] for bodies written with `?`: `Ok(())` is `VK_SUCCESS`, `Err(e)` returns `e`.
pub(crate) fn guard_result(
    command: &'static str,
    failure: vk::Result,
    body: impl FnOnce() -> Result<(), vk::Result>,
) -> vk::Result {
    guard(command, failure, || {
        body().err().unwrap_or(vk::Result::SUCCESS)
    })
}

/// Writes `items` to a caller's `(pCount, pItems)` pair through the workspace's one two-call
/// helper (`vkgen_generated::two_call::write_array`: the count alone with a null `out`, else
/// `min(*count, len)` items and `VK_INCOMPLETE` when that was not all), logging the one error it
/// gives, a null count pointer.
///
/// # Safety
/// `count` must be null or valid for reads and writes; `out`, when non-null, must be valid for
/// `*count` writes.
pub(crate) unsafe fn fill_array<T: Copy>(items: &[T], count: *mut u32, out: *mut T) -> vk::Result {
    // SAFETY: the caller's contract is `write_array`'s.
    let r = unsafe { vkgen_generated::two_call::write_array(items, count, out) };
    if r == vk::Result::ERROR_INITIALIZATION_FAILED {
        return vk_error!(r, "enumeration called with a null count pointer");
    }
    r
}

/// Reads a two-call enumeration through the workspace's one reader
/// (`vkgen_generated::two_call::read_array`: retried while the count grows between the calls,
/// the count bounded so a broken driver cannot make us allocate gigabytes), logging a count
/// past the bound.
pub(crate) fn enumerate<T: Copy + Default>(
    call: impl FnMut(*mut u32, *mut T) -> vk::Result,
) -> Result<Vec<T>, vk::Result> {
    use vkgen_generated::two_call::{read_array, ReadError};
    read_array(call).map_err(|e| match e {
        ReadError::Failed(r) => r,
        ReadError::TooMany(count) => vk_error!(
            vk::Result::ERROR_INITIALIZATION_FAILED,
            "enumeration reported {count} entries; treated as a failure"
        ),
    })
}

/// Borrows a C string, `None` for null.
///
/// # Safety
/// `ptr` must be null or point at a NUL-terminated string that outlives `'a`.
pub(crate) unsafe fn cstr<'a>(ptr: *const c_char) -> Option<&'a CStr> {
    if ptr.is_null() {
        None
    } else {
        // SAFETY: `ptr` is non-null (this branch) and the caller guarantees it is NUL-terminated
        // and outlives `'a`.
        Some(unsafe { CStr::from_ptr(ptr) })
    }
}

/// Borrows a `(count, const char* const*)` name array; null entries are skipped with a log line.
///
/// # Safety
/// `names` must be null (then `count` is ignored) or point at `count` pointers, each null or a
/// NUL-terminated string outliving `'a`.
pub(crate) unsafe fn name_list<'a>(count: u32, names: *const *const c_char) -> Vec<&'a CStr> {
    if names.is_null() || count == 0 {
        return Vec::new();
    }
    // SAFETY: `names` is non-null (checked above) and the caller guarantees it points at `count`
    // pointers outliving `'a`.
    let raw = unsafe { std::slice::from_raw_parts(names, count as usize) };
    raw.iter()
        .filter_map(|&p| {
            // SAFETY: the caller guarantees each entry of `names` is null or a NUL-terminated
            // string outliving `'a`, which is `cstr`'s requirement.
            let name = unsafe { cstr(p) };
            if name.is_none() {
                log::warn!("a null name in an enabled-name array was ignored");
            }
            name
        })
        .collect()
}

/// `VkApplicationInfo::apiVersion` of a create info, with a missing app info or 0 meaning 1.0
/// (as the spec says).
///
/// # Safety
/// `info` must be null or a valid `VkApplicationInfo`.
pub(crate) unsafe fn app_api_version(info: *const vk::ApplicationInfo<'_>) -> u32 {
    // SAFETY: the caller guarantees `info` is null or a valid `VkApplicationInfo` for this call.
    match unsafe { info.as_ref() } {
        Some(app) if app.api_version != 0 => app.api_version,
        _ => vk::API_VERSION_1_0,
    }
}

/// A function pointer as `PFN_vkVoidFunction`, the type `vkGet*ProcAddr` return. Pass a
/// function *pointer* (`f as vk::PFN_vkX`), never a function item: the size check below turns a
/// zero-sized function item into a compile error.
pub(crate) fn to_void<F: Copy>(f: F) -> vk::PFN_vkVoidFunction {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<unsafe extern "system" fn()>()) };
    // SAFETY: `F` is a function pointer type of the same size (checked above); callers cast the
    // result back to `F` before calling it, as the Vulkan proc-address contract requires.
    Some(unsafe { std::mem::transmute_copy::<F, unsafe extern "system" fn()>(&f) })
}

/// `major.minor` of a version, for logs.
pub(crate) fn version_string(version: u32) -> String {
    format!(
        "{}.{}",
        vk::api_version_major(version),
        vk::api_version_minor(version)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn fill_array_reports_incomplete() {
        let items = [1u32, 2, 3];
        let mut count = 0;
        // SAFETY: `count` is a local and the array pointer null (a count query).
        let r = unsafe { fill_array(&items, &mut count, std::ptr::null_mut()) };
        assert_eq!((r, count), (vk::Result::SUCCESS, 3));
        let mut out = [0u32; 2];
        count = 2;
        // SAFETY: `out` holds `count` elements.
        let r = unsafe { fill_array(&items, &mut count, out.as_mut_ptr()) };
        assert_eq!((r, count, out), (vk::Result::INCOMPLETE, 2, [1, 2]));
        let mut out = [0u32; 4];
        count = 4;
        // SAFETY: `out` is a local array of 4 elements and `count` says 4.
        let r = unsafe { fill_array(&items, &mut count, out.as_mut_ptr()) };
        assert_eq!((r, count), (vk::Result::SUCCESS, 3));
        // SAFETY: a null count pointer is rejected before any access.
        let r = unsafe { fill_array(&items, std::ptr::null_mut(), out.as_mut_ptr()) };
        assert_eq!(r, vk::Result::ERROR_INITIALIZATION_FAILED);
    }

    #[test]
    fn guard_turns_panics_into_failure_values() {
        assert_eq!(guard("test", 7, || 1), 1);
        assert_eq!(guard("test", 7, || panic!("boom")), 7);
    }

    #[test]
    fn enumerate_retries_when_the_count_grows() {
        let mut calls = 0;
        let got = enumerate(|count, out: *mut u32| {
            calls += 1;
            // The list grows between the count query and the first fill.
            let len = if calls == 1 { 1 } else { 2 };
            let data = [10u32, 20];
            // SAFETY: the helper passes valid pointers.
            unsafe { fill_array(&data[..len], count, out) }
        })
        .unwrap();
        assert_eq!(got, [10, 20]);
        assert_eq!(calls, 4);
    }
}
