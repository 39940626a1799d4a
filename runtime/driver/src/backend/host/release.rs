//! The release-fence worker of native-buffer devices whose host exports no `SYNC_FD` fences.

use std::sync::mpsc;
use std::sync::{Arc, Mutex};
use std::thread::JoinHandle;

use vkgen_generated::vk;

use crate::sync_fd::FenceSignaller;
use crate::util::lock;

/// One release fence to wait for, and the eventfd to signal when it is.
pub(super) struct Job {
    pub(super) fence: vk::Fence,
    pub(super) signaller: FenceSignaller,
}

/// A device's release worker: waits for the host fences of `vkQueueSignalReleaseImageANDROID`
/// (where the host exports no `SYNC_FD`), signals their eventfds and recycles them.
pub(super) struct Worker {
    pub(super) sender: mpsc::Sender<Job>,
    pub(super) thread: JoinHandle<()>,
}

impl Worker {
    pub(super) fn start(
        fns: ash::Device,
        pool: Arc<Mutex<Vec<vk::Fence>>>,
    ) -> std::io::Result<Self> {
        let (sender, rx) = mpsc::channel::<Job>();
        let thread = std::thread::Builder::new()
            .name("vkgen-release".into())
            .spawn(move || {
                for job in rx {
                    // SAFETY: the fence belongs to the device, which outlives this thread
                    // (`vkDestroyDevice` joins it first).
                    let r = unsafe { fns.wait_for_fences(&[job.fence], true, u64::MAX) };
                    if let Err(e) = job.signaller.signal() {
                        log::error!("signalling a release fence failed: {e}");
                    }
                    // SAFETY: the same device's fence, which the wait above saw signalled (or the
                    // device lost), so no batch uses it any more and it can be reset or destroyed.
                    unsafe {
                        if r.is_ok() && fns.reset_fences(&[job.fence]).is_ok() {
                            lock(&pool).push(job.fence);
                        } else {
                            fns.destroy_fence(job.fence, None);
                        }
                    }
                }
            })?;
        Ok(Self { sender, thread })
    }
}
