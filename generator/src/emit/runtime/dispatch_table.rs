//! What every dispatch table shares: filling from a get-proc-addr function, the presence
//! bitset, slot access, and the report of AOSP's "disabled" stubs.
//!
//! **Filling.** A table is filled by one loop over data, not by code per slot: the generator
//! writes, per slot, the commands whose names fill it (the defining command first, then its
//! aliases in registry order) as `CommandId`s, and [`fill`] asks the provider for them in that
//! order until one answers. The provider gets the `CommandId` (its name is
//! `commands::info(id).name()`), so a caller can skip commands without asking anyone or even
//! reading their names (the loader asks a device's chain only for what the device can expose,
//! issue 22) and record which names it asked.
//!
//! Hand-written (vkgen's `generator/src/emit/runtime/dispatch_table.rs`) and copied verbatim
//! into each generated crate, so that it is compiled, linted and reviewed as Rust; the tables
//! themselves (`dispatch.rs`) are data the generator writes.

use core::ffi::CStr;
use std::sync::OnceLock;

use crate::commands::CommandId;
use crate::vk;

/// The commands of `slot` in a table whose slot `s` is filled from
/// `commands[starts[s]..starts[s + 1]]` (empty for a slot out of range).
pub(crate) fn slot_commands(
    starts: &[u16],
    commands: &'static [CommandId],
    slot: usize,
) -> &'static [CommandId] {
    match (starts.get(slot), starts.get(slot + 1)) {
        (Some(&a), Some(&b)) => commands.get(usize::from(a)..usize::from(b)).unwrap_or(&[]),
        _ => &[],
    }
}

/// Fills every slot of `table` with the first of its commands (see [`slot_commands`]) that
/// `gpa` answers, asked in order; a slot nobody answers keeps its stub.
///
/// # Safety
/// `starts` and `commands` are the generator's lists for `T`, so every command listed for a slot
/// has that slot's signature; `gpa` returns, for a command, a function of that command's type.
pub(crate) unsafe fn fill<T, F>(
    table: &mut T,
    starts: &[u16],
    commands: &'static [CommandId],
    gpa: &mut F,
) where
    T: SlotTable,
    F: FnMut(CommandId) -> vk::PFN_vkVoidFunction + ?Sized,
{
    for slot in 0..T::LEN {
        for &id in slot_commands(starts, commands, slot) {
            if let Some(f) = gpa(id) {
                // SAFETY: `f` is what the provider returned for `id`, one of the names of `slot`
                // (the generator's lists), so it has the slot's signature.
                unsafe { table.set(slot, f) };
                break;
            }
        }
    }
}

/// [`fill`] visiting only the slots of `wanted`'s commands: each such slot once (its commands
/// asked in `fill`'s order, those outside `wanted` included), every other slot left with its
/// stub. For a `gpa` that answers `None` outside `wanted` without asking anyone, the table is
/// `fill`'s; a device's table visits ~140 of its ~600 slots (issue 35).
///
/// # Safety
/// `slot_commands` gives `T`'s generated lists (as [`slot_commands`] does for `fill`'s
/// `starts` and `commands`); `gpa` returns, for a command, a function of that command's type.
pub(crate) unsafe fn fill_some<T, F>(
    table: &mut T,
    slot_commands: fn(usize) -> &'static [CommandId],
    wanted: impl IntoIterator<Item = CommandId>,
    gpa: &mut F,
) where
    T: SlotTable,
    F: FnMut(CommandId) -> vk::PFN_vkVoidFunction + ?Sized,
{
    let mut visited = vec![0u64; T::LEN.div_ceil(64)];
    for id in wanted {
        let Some(slot) = crate::commands::info(id).slot() else {
            continue;
        };
        let list = slot_commands(slot);
        // A command of another table (the slot numbers of each level start at 0).
        if !list.contains(&id) {
            continue;
        }
        let (word, bit) = (slot / 64, 1u64 << (slot % 64));
        match visited.get_mut(word) {
            Some(w) if *w & bit == 0 => *w |= bit,
            _ => continue,
        }
        for &c in list {
            if let Some(f) = gpa(c) {
                // SAFETY: as in `fill`: `f` is the answer for `c`, one of `slot`'s names.
                unsafe { table.set(slot, f) };
                break;
            }
        }
    }
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
