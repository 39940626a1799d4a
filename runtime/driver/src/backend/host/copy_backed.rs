//! `AHardwareBuffer` images the host cannot place on the buffer's pages.
//!
//! The zero-copy import binds a `LINEAR` host image at the buffer's plane offsets, which needs
//! the host's row pitch to equal the allocator's. NVIDIA pitches `LINEAR` rows to 256 bytes where
//! the runtime's gralloc uses 64 (as lavapipe does), so there an import would fail. Such an
//! image instead gets its own device memory, and the buffer's pages, imported as host memory,
//! back a *staging* host buffer. Contents move where the spec already makes the application
//! say that the buffer changes hands: the queue-family ownership transfers from and to
//! `VK_QUEUE_FAMILY_FOREIGN_EXT` / `VK_QUEUE_FAMILY_EXTERNAL` that external memory requires.
//!
//! * An **acquire** (source family foreign or external) is preceded by a copy of the planes from
//!   the staging buffer into the image (`UNDEFINED` → `TRANSFER_DST_OPTIMAL`), and the
//!   application's barrier becomes a plain layout transition from `TRANSFER_DST_OPTIMAL` that
//!   waits for the copy.
//! * A **release** (destination family foreign or external) becomes a transition to
//!   `TRANSFER_SRC_OPTIMAL`, followed by a copy of the planes into the staging buffer and a
//!   barrier that makes the copy visible to the host.
//!
//! So a frame costs one copy each way instead of none; everything else (views, Y′CbCr
//! samplers, `OPTIMAL`-like speed of the host's own memory) is the host's. Ownership transfers
//! through `vkCmdWaitEvents` are not rewritten (none of Android's producers use them).
//!
//! The table is process-wide (command-buffer commands carry no device here); while no image is
//! copy-backed, a barrier costs one atomic load more than the host's.

use std::collections::HashMap;
use std::sync::atomic::{AtomicUsize, Ordering};
use std::sync::{Mutex, OnceLock};

use vkgen_generated::vk;

use super::icd::ADAPTER_SLOTS;
use super::registry::{lock, slice, HostDevice};

/// What a copy-backed image needs at its ownership transfers.
#[derive(Clone)]
pub(super) struct CopyBacked {
    /// The host buffer over the `AHardwareBuffer`'s pages.
    pub staging: vk::Buffer,
    /// One region per plane, buffer offsets and row lengths as the allocator lays them out.
    pub regions: Vec<vk::BufferImageCopy>,
    copy_to_image: vk::PFN_vkCmdCopyBufferToImage,
    copy_to_buffer: vk::PFN_vkCmdCopyImageToBuffer,
}

impl CopyBacked {
    pub(super) fn new(
        dev: &HostDevice,
        staging: vk::Buffer,
        regions: Vec<vk::BufferImageCopy>,
    ) -> Self {
        Self {
            staging,
            regions,
            copy_to_image: dev.fns.fp_v1_0().cmd_copy_buffer_to_image,
            copy_to_buffer: dev.fns.fp_v1_0().cmd_copy_image_to_buffer,
        }
    }
}

static IMAGES: Mutex<Option<HashMap<u64, CopyBacked>>> = Mutex::new(None);
static COUNT: AtomicUsize = AtomicUsize::new(0);
/// The host's `vkCmdPipelineBarrier` / `vkCmdPipelineBarrier2` (ICD entry points dispatch on the
/// command buffer, so any device's serve every command buffer of that ICD), per slot.
type HostBarriers = (
    vk::PFN_vkCmdPipelineBarrier,
    Option<vk::PFN_vkCmdPipelineBarrier2>,
);
static HOST: [OnceLock<HostBarriers>; ADAPTER_SLOTS + 1] =
    [const { OnceLock::new() }; ADAPTER_SLOTS + 1];

/// Remembers the host's barrier commands (every device creation).
pub(super) fn note_host_barriers(dev: &HostDevice) {
    let v2 = {
        let f = dev
            .proc_addr(c"vkCmdPipelineBarrier2")
            .or_else(|| dev.proc_addr(c"vkCmdPipelineBarrier2KHR"));
        // SAFETY: the host's vkCmdPipelineBarrier2, which has this type.
        f.map(|f| unsafe {
            std::mem::transmute::<unsafe extern "system" fn(), vk::PFN_vkCmdPipelineBarrier2>(f)
        })
    };
    let _ = HOST[dev.instance.slot].set((dev.fns.fp_v1_0().cmd_pipeline_barrier, v2));
}

/// `image` (bound) is copy-backed from now on.
pub(super) fn register(image: vk::Image, backed: CopyBacked) {
    let mut table = lock(&IMAGES);
    if table
        .get_or_insert_with(HashMap::new)
        .insert(vk::Handle::as_raw(image), backed)
        .is_none()
    {
        COUNT.fetch_add(1, Ordering::AcqRel);
    }
}

/// `image` is gone (or its memory is).
pub(super) fn forget(image: vk::Image) {
    let mut table = lock(&IMAGES);
    if let Some(t) = table.as_mut() {
        if t.remove(&vk::Handle::as_raw(image)).is_some() {
            COUNT.fetch_sub(1, Ordering::AcqRel);
        }
    }
}

fn foreign(family: u32) -> bool {
    family == vk::QUEUE_FAMILY_FOREIGN_EXT || family == vk::QUEUE_FAMILY_EXTERNAL
}

/// What one barrier call needs around it.
#[derive(Default)]
struct Transfers {
    /// Copy-backed images acquired: filled from staging before the application's barrier.
    acquires: Vec<(vk::Image, vk::ImageSubresourceRange, CopyBacked)>,
    /// Copy-backed images released: copied to staging after it.
    releases: Vec<(vk::Image, CopyBacked)>,
}

/// An image barrier of either `vkCmdPipelineBarrier` generation, as [`plan`] rewrites it.
trait OwnershipBarrier {
    fn image(&self) -> vk::Image;
    fn families(&self) -> (u32, u32);
    fn range(&self) -> vk::ImageSubresourceRange;
    /// Becomes the transition out of the staging copy's `TRANSFER_DST_OPTIMAL`, after it.
    fn after_fill(&mut self);
    /// Becomes the transition into `TRANSFER_SRC_OPTIMAL`, before the copy to staging.
    fn before_drain(&mut self);
    fn ignore_families(&mut self);
}

impl OwnershipBarrier for vk::ImageMemoryBarrier<'_> {
    fn image(&self) -> vk::Image {
        self.image
    }
    fn families(&self) -> (u32, u32) {
        (self.src_queue_family_index, self.dst_queue_family_index)
    }
    fn range(&self) -> vk::ImageSubresourceRange {
        self.subresource_range
    }
    fn after_fill(&mut self) {
        self.old_layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        self.src_access_mask = vk::AccessFlags::TRANSFER_WRITE;
    }
    fn before_drain(&mut self) {
        self.new_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        self.dst_access_mask = vk::AccessFlags::TRANSFER_READ;
    }
    fn ignore_families(&mut self) {
        self.src_queue_family_index = vk::QUEUE_FAMILY_IGNORED;
        self.dst_queue_family_index = vk::QUEUE_FAMILY_IGNORED;
    }
}

impl OwnershipBarrier for vk::ImageMemoryBarrier2<'_> {
    fn image(&self) -> vk::Image {
        self.image
    }
    fn families(&self) -> (u32, u32) {
        (self.src_queue_family_index, self.dst_queue_family_index)
    }
    fn range(&self) -> vk::ImageSubresourceRange {
        self.subresource_range
    }
    fn after_fill(&mut self) {
        self.old_layout = vk::ImageLayout::TRANSFER_DST_OPTIMAL;
        self.src_stage_mask |= vk::PipelineStageFlags2::COPY;
        self.src_access_mask = vk::AccessFlags2::TRANSFER_WRITE;
    }
    fn before_drain(&mut self) {
        self.new_layout = vk::ImageLayout::TRANSFER_SRC_OPTIMAL;
        self.dst_stage_mask |= vk::PipelineStageFlags2::COPY;
        self.dst_access_mask = vk::AccessFlags2::TRANSFER_READ;
    }
    fn ignore_families(&mut self) {
        self.src_queue_family_index = vk::QUEUE_FAMILY_IGNORED;
        self.dst_queue_family_index = vk::QUEUE_FAMILY_IGNORED;
    }
}

/// Rewrites the ownership transfers of copy-backed images among `barriers` and says what to
/// record around them.
fn plan<B: OwnershipBarrier>(barriers: &mut [B]) -> Transfers {
    let mut t = Transfers::default();
    let table = lock(&IMAGES);
    let Some(table) = table.as_ref() else {
        return t;
    };
    for b in barriers {
        let Some(backed) = table.get(&vk::Handle::as_raw(b.image())) else {
            continue;
        };
        match b.families() {
            (src, dst) if foreign(src) && !foreign(dst) => {
                t.acquires.push((b.image(), b.range(), backed.clone()));
                b.after_fill();
            }
            (src, dst) if foreign(dst) && !foreign(src) => {
                t.releases.push((b.image(), backed.clone()));
                b.before_drain();
            }
            _ => continue,
        }
        b.ignore_families();
    }
    t
}

/// Records the staging → image copies of `t.acquires`.
///
/// # Safety
/// `cb` is recording.
unsafe fn record_acquires(
    barrier: vk::PFN_vkCmdPipelineBarrier,
    cb: vk::CommandBuffer,
    t: &Transfers,
) {
    if t.acquires.is_empty() {
        return;
    }
    let to_dst: Vec<vk::ImageMemoryBarrier<'_>> = t
        .acquires
        .iter()
        .map(|(image, range, _)| {
            vk::ImageMemoryBarrier::default()
                .old_layout(vk::ImageLayout::UNDEFINED)
                .new_layout(vk::ImageLayout::TRANSFER_DST_OPTIMAL)
                .dst_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                .image(*image)
                .subresource_range(*range)
        })
        .collect();
    // SAFETY: a recording command buffer; valid barriers of live images.
    unsafe {
        barrier(
            cb,
            vk::PipelineStageFlags::TOP_OF_PIPE | vk::PipelineStageFlags::HOST,
            vk::PipelineStageFlags::TRANSFER,
            vk::DependencyFlags::empty(),
            0,
            std::ptr::null(),
            0,
            std::ptr::null(),
            to_dst.len() as u32,
            to_dst.as_ptr(),
        );
        for (image, _, b) in &t.acquires {
            (b.copy_to_image)(
                cb,
                b.staging,
                *image,
                vk::ImageLayout::TRANSFER_DST_OPTIMAL,
                b.regions.len() as u32,
                b.regions.as_ptr(),
            );
        }
    }
}

/// Records the image → staging copies of `t.releases` and makes them visible to the host.
///
/// # Safety
/// `cb` is recording; the images are in `TRANSFER_SRC_OPTIMAL` by the barrier just recorded.
unsafe fn record_releases(
    barrier: vk::PFN_vkCmdPipelineBarrier,
    cb: vk::CommandBuffer,
    t: &Transfers,
) {
    if t.releases.is_empty() {
        return;
    }
    let mut visible = Vec::new();
    // SAFETY: a recording command buffer; the copies read images in the layout the
    // application's rewritten barrier left them in.
    unsafe {
        for (image, b) in &t.releases {
            (b.copy_to_buffer)(
                cb,
                *image,
                vk::ImageLayout::TRANSFER_SRC_OPTIMAL,
                b.staging,
                b.regions.len() as u32,
                b.regions.as_ptr(),
            );
            visible.push(
                vk::BufferMemoryBarrier::default()
                    .src_access_mask(vk::AccessFlags::TRANSFER_WRITE)
                    .dst_access_mask(vk::AccessFlags::HOST_READ | vk::AccessFlags::MEMORY_READ)
                    .src_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .dst_queue_family_index(vk::QUEUE_FAMILY_IGNORED)
                    .buffer(b.staging)
                    .size(vk::WHOLE_SIZE),
            );
        }
        barrier(
            cb,
            vk::PipelineStageFlags::TRANSFER,
            vk::PipelineStageFlags::HOST | vk::PipelineStageFlags::BOTTOM_OF_PIPE,
            vk::DependencyFlags::empty(),
            0,
            std::ptr::null(),
            visible.len() as u32,
            visible.as_ptr(),
            0,
            std::ptr::null(),
        );
    }
}

/// `vkCmdPipelineBarrier`, rewritten around copy-backed images' ownership transfers.
///
/// # Safety
/// The application's valid arguments.
#[allow(clippy::too_many_arguments)]
pub(super) unsafe fn cmd_pipeline_barrier(
    slot: usize,
    cb: vk::CommandBuffer,
    src_stage: vk::PipelineStageFlags,
    dst_stage: vk::PipelineStageFlags,
    flags: vk::DependencyFlags,
    memory_count: u32,
    p_memory: *const vk::MemoryBarrier<'_>,
    buffer_count: u32,
    p_buffer: *const vk::BufferMemoryBarrier<'_>,
    image_count: u32,
    p_image: *const vk::ImageMemoryBarrier<'_>,
) {
    let Some(&(host, _)) = HOST[slot].get() else {
        return;
    };
    let forward = |src, dst, n, p| {
        // SAFETY: the application's arguments (or our rewrite of its image barriers).
        unsafe {
            host(
                cb,
                src,
                dst,
                flags,
                memory_count,
                p_memory,
                buffer_count,
                p_buffer,
                n,
                p,
            )
        }
    };
    if COUNT.load(Ordering::Acquire) == 0 {
        return forward(src_stage, dst_stage, image_count, p_image);
    }
    // SAFETY: `p_image` holds `image_count` barriers (vkCmdPipelineBarrier's valid usage, passed on
    // by the hook); `slice` takes null or zero as empty.
    let mut images = unsafe { slice(p_image, image_count) }.to_vec();
    let t = plan(&mut images);
    if t.acquires.is_empty() && t.releases.is_empty() {
        return forward(src_stage, dst_stage, image_count, p_image);
    }
    let src = if t.acquires.is_empty() {
        src_stage
    } else {
        src_stage | vk::PipelineStageFlags::TRANSFER
    };
    let dst = if t.releases.is_empty() {
        dst_stage
    } else {
        dst_stage | vk::PipelineStageFlags::TRANSFER
    };
    // SAFETY: `cb` is the application's command buffer in the recording state
    // (vkCmdPipelineBarrier's valid usage), and `images` (alive in this frame) holds `images.len()`
    // barriers.
    unsafe {
        record_acquires(host, cb, &t);
        forward(src, dst, images.len() as u32, images.as_ptr());
        record_releases(host, cb, &t);
    }
}

/// `vkCmdPipelineBarrier2`, rewritten as [`cmd_pipeline_barrier`] is.
///
/// # Safety
/// The application's valid arguments.
pub(super) unsafe fn cmd_pipeline_barrier2(
    slot: usize,
    cb: vk::CommandBuffer,
    info: *const vk::DependencyInfo<'_>,
) {
    let Some(&(host, Some(host2))) = HOST[slot].get() else {
        return;
    };
    // SAFETY: `info` is the application's `VkDependencyInfo`, null or valid for this call; `as_ref`
    // turns null into doing nothing.
    let Some(dep) = (unsafe { info.as_ref() }) else {
        return;
    };
    if COUNT.load(Ordering::Acquire) == 0 {
        // SAFETY: no image is copy-backed, so the application's own arguments go to the host's
        // vkCmdPipelineBarrier2 unchanged.
        return unsafe { host2(cb, info) };
    }
    // SAFETY: `dep` is the application's valid `VkDependencyInfo`, whose `pImageMemoryBarriers`
    // holds `imageMemoryBarrierCount` barriers.
    let mut images =
        unsafe { slice(dep.p_image_memory_barriers, dep.image_memory_barrier_count) }.to_vec();
    let t = plan(&mut images);
    if t.acquires.is_empty() && t.releases.is_empty() {
        // SAFETY: none of this barrier's images is copy-backed, so the application's own arguments
        // go to the host's vkCmdPipelineBarrier2 unchanged.
        return unsafe { host2(cb, info) };
    }
    let mut dep2 = *dep;
    dep2.image_memory_barrier_count = images.len() as u32;
    dep2.p_image_memory_barriers = images.as_ptr();
    // SAFETY: `cb` is the application's command buffer in the recording state
    // (vkCmdPipelineBarrier2's valid usage); `dep2` is its dependency info with `images` (alive in
    // this frame) in place of its image barriers.
    unsafe {
        record_acquires(host, cb, &t);
        host2(cb, &dep2);
        record_releases(host, cb, &t);
    }
}
