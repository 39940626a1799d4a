//! The host driver's type: one per ICD slot.

use std::sync::OnceLock;

use super::icd::{host_icd, HostIcd, SLOTS};

/// The host driver. See the [module docs](super).
///
/// `SLOT` says which ICD it serves: slot 0 the one it finds itself ([`host_icd`]:
/// `vulkan.host.so` loaded as a HAL module or ICD), slots 1 ..= [`ADAPTER_SLOTS`](super::ADAPTER_SLOTS) the ICDs a
/// loader hands it ([`adapter`](super::adapter)). Every hook is the same code; the slot only picks the ICD, so
/// that global commands (`vkCreateInstance`, which carry no handle) reach the right one and
/// several ICDs are served in one process.
#[derive(Debug)]
pub struct HostDriver<const SLOT: usize = 0>;

impl<const SLOT: usize> HostDriver<SLOT> {
    /// The ICD this slot serves.
    pub(super) fn icd() -> Option<&'static HostIcd> {
        if SLOT == 0 {
            host_icd()
        } else {
            SLOTS
                .get(SLOT)
                .and_then(OnceLock::get)
                .and_then(Option::as_ref)
        }
    }
}
