//! What every dispatch table shares: filling from a get-proc-addr function, the presence
//! bitset, slot access, and the report of AOSP's "disabled" stubs.
//!
//! Hand-written (vkgen's `generator/src/emit/runtime/dispatch_table.rs`) and copied verbatim
//! into each generated crate, so that it is compiled, linted and reviewed as Rust; the tables
//! themselves (`dispatch.rs`) are data the generator writes.

use core::ffi::CStr;
use std::sync::OnceLock;

use crate::vk;

/// The first name `gpa` resolves, in order (a command's name, then its aliases).
pub(crate) fn first(
    gpa: &mut dyn FnMut(&CStr) -> vk::PFN_vkVoidFunction,
    names: &[&CStr],
) -> vk::PFN_vkVoidFunction {
    names.iter().find_map(|n| gpa(n))
}

/// Where the stubs of exported extension commands report being called without their
/// extension enabled, as `(extension, command)` (the loader installs its logger).
pub static DISABLED_REPORT: OnceLock<fn(&'static CStr, &'static CStr)> = OnceLock::new();

/// AOSP's `disabled…` functions' report.
pub(crate) fn disabled(extension: &'static CStr, command: &'static CStr) {
    if let Some(report) = DISABLED_REPORT.get() {
        report(extension, command);
    }
}

/// A dispatch table: `LEN` function pointers, then the bitset of those the provider gave.
///
/// # Safety
/// An implementor is `#[repr(C)]` and starts with exactly [`LEN`](SlotTable::LEN) fields of
/// function-pointer type (each the size and alignment of `unsafe extern "system" fn()`).
pub(crate) unsafe trait SlotTable: Sized {
    /// Number of entries (slots).
    const LEN: usize;
    /// The presence bitset (bit `slot % 64` of word `slot / 64`).
    fn present(&self) -> &[u64];
    /// As [`present`](SlotTable::present), to update.
    fn present_mut(&mut self) -> &mut [u64];

    /// Whether `slot` holds the provider's function (not a stub).
    fn is_present(&self, slot: usize) -> bool {
        slot < Self::LEN && self.present()[slot / 64] & (1 << (slot % 64)) != 0
    }

    /// The entry at `slot`, stubs included; `None` out of range.
    fn get(&self, slot: usize) -> vk::PFN_vkVoidFunction {
        if slot >= Self::LEN {
            return None;
        }
        // SAFETY: the trait's contract puts LEN function pointers at the start of the repr(C)
        // table, and `slot < LEN`: the read is in bounds, aligned and initialised.
        Some(unsafe { *(self as *const Self as *const unsafe extern "system" fn()).add(slot) })
    }

    /// Replaces the entry at `slot` and marks it present (out of range: nothing).
    ///
    /// # Safety
    /// `f` has the signature of the command at `slot`.
    unsafe fn set(&mut self, slot: usize, f: unsafe extern "system" fn()) {
        if slot >= Self::LEN {
            return;
        }
        // SAFETY: in bounds and aligned as in `get`; the caller vouches that `f` has the
        // slot's signature, so the field's type stays truthful.
        unsafe { *(self as *mut Self as *mut unsafe extern "system" fn()).add(slot) = f };
        self.present_mut()[slot / 64] |= 1 << (slot % 64);
    }
}
