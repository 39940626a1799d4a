//! What the `SYNC_FD` emulation keeps per device, held by the host device record.

use std::collections::{HashMap, HashSet};
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use super::super::sync_waiter::Waiter;

/// What the emulation keeps per device.
pub(in crate::backend::host) struct SyncEmulation {
    /// Signalled (at the next value) by every batch that signals an exportable semaphore.
    pub(super) tracker: vk::Semaphore,
    pub(super) tracker_value: Mutex<u64>,
    /// Exportable binary semaphores: the tracker value of their last signal, and whether an
    /// export consumed it (so the next signal must first wait).
    pub(super) exportable: Mutex<HashMap<u64, (u64, bool)>>,
    /// Semaphores with an imported fd: the gate and value a wait on them becomes.
    pub(super) imported: Mutex<HashMap<u64, (vk::Semaphore, u64)>>,
    /// Gates ready for reuse, with their current value.
    pub(super) gates: Arc<Mutex<Vec<(vk::Semaphore, u64)>>>,
    pub(super) timeline_semaphores: Mutex<HashSet<u64>>,
    /// Fences a batch (or a fence import) of the device signals: the ones an export may wait
    /// for. An export of any other unsignalled fence is invalid usage and is refused rather
    /// than waited for forever.
    pub(in crate::backend::host) pending_fences: Mutex<HashSet<u64>>,
    /// The one thread that waits for imports and exports.
    pub(super) waiter: Waiter,
}
