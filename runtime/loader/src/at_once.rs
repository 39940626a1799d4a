//! The loader's side of a vkgen driver's batch lookups (issue 35): `vkgenGetDeviceProcAddrs`
//! and `vkgenGetInstanceProcAddrs` (`vkgen_generated::driver::get_device_proc_addrs` and
//! `get_instance_proc_addrs`) answer many `CommandId`s in one call with what the driver's
//! `vkGet*ProcAddr` would answer name by name. A driver finds them by their private names; a
//! driver that does not know them answers NULL, and one of another registry refuses the ids
//! (`commands::FINGERPRINT`); either way the caller asks name by name instead.

use vkgen_generated::commands::{self, COMMANDS};
use vkgen_generated::vk;

/// Both batch lookups' type, over the handle they are asked on (`vk::Device` or
/// `vk::Instance`).
pub(crate) type Batch<H> = unsafe extern "system" fn(
    handle: H,
    fingerprint: u64,
    count: u32,
    ids: *const u16,
    functions: *mut vk::PFN_vkVoidFunction,
) -> vk::Result;

/// What the driver's batch lookup `found` (its `vkGet*ProcAddr`'s answer for the batch's name,
/// `what`) answers on `handle` for `ids`, spread by id over the whole registry; `None` where the
/// driver has no such function or refuses.
///
/// # Safety
/// `found`, if any, is the driver's answer for `what`'s name, so of type [`Batch<H>`]; `handle`
/// is the driver's live object it was asked on.
pub(crate) unsafe fn answers_by_id<H: Copy>(
    what: &str,
    found: vk::PFN_vkVoidFunction,
    handle: H,
    ids: &[u16],
) -> Option<Vec<vk::PFN_vkVoidFunction>> {
    // SAFETY: the caller's contract: the driver answered the batch's private name with a
    // function of this type (the name is not a registry name, so no other function has it).
    let at_once: Batch<H> = unsafe { std::mem::transmute_copy(&found?) };
    let mut answers: Vec<vk::PFN_vkVoidFunction> = vec![None; ids.len()];
    // SAFETY: `ids` holds `ids.len()` ids of this registry and `answers` room for as many;
    // `handle` is the driver's live object (the contract).
    let result = unsafe {
        at_once(
            handle,
            commands::FINGERPRINT,
            u32::try_from(ids.len()).ok()?,
            ids.as_ptr(),
            answers.as_mut_ptr(),
        )
    };
    if result != vk::Result::SUCCESS {
        log::debug!("{what}: {result:?}; asking name by name");
        return None;
    }
    let mut by_id = vec![None; COMMANDS.len()];
    for (&id, f) in ids.iter().zip(answers) {
        if let Some(slot) = by_id.get_mut(usize::from(id)) {
            *slot = f;
        }
    }
    Some(by_id)
}
