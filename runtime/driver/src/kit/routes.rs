//! Commands the Vulkan 1.3 `…2` forms supersede, routed to the vendor's `…2` hook when it has
//! no hook of its own for the old form (Mesa's `vk_common_QueueSubmit`,
//! `vk_common_CmdPipelineBarrier`, `vk_common_CmdCopyBuffer`, …): a driver implements
//! synchronization2, copy_commands2 and the render-pass-2 entry points once, and applications
//! using the 1.0 forms reach the same code.
//!
//! Each route builds the `…2` structures on the stack (or in a `Vec` for arrays) from the 1.0
//! arguments and calls the hook; `pNext` chains of the 1.0 structures that the `…2` structures
//! also accept (image and buffer barriers, render-pass begin) are passed along, the rest
//! (carried by a 1.0 structure's chain: timeline values, device-group masks, protected submit)
//! are folded into the `…2` fields that replace them.

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;
use crate::util::find_in_chain;
use crate::util::{guard, slice};
use vkgen_generated::recorder::{barrier_dependency, event_dependency, stages2};

/// The routes of this module as a component table (see [`super::entries`]): each command
/// whose `…2` form the vendor implements, routed to it.
pub fn entries<D: Kit>() -> EntryTable {
    let mut table = EntryTable::EMPTY;
    // The queue core's `vkQueueSubmit2` serves as the vendor's when it has none.
    if super::queue::serves::<D>() {
        table.queue_submit = Some(queue_submit::<D>);
    }
    route!(table, D:
        queue_submit => QUEUE_SUBMIT2 via queue_submit,
        cmd_pipeline_barrier => CMD_PIPELINE_BARRIER2 via cmd_pipeline_barrier,
        cmd_set_event => CMD_SET_EVENT2 via cmd_set_event,
        cmd_reset_event => CMD_RESET_EVENT2 via cmd_reset_event,
        cmd_wait_events => CMD_WAIT_EVENTS2 via cmd_wait_events,
        cmd_write_timestamp => CMD_WRITE_TIMESTAMP2 via cmd_write_timestamp,
        cmd_copy_buffer => CMD_COPY_BUFFER2 via cmd_copy_buffer,
        cmd_copy_image => CMD_COPY_IMAGE2 via cmd_copy_image,
        cmd_blit_image => CMD_BLIT_IMAGE2 via cmd_blit_image,
        cmd_copy_buffer_to_image => CMD_COPY_BUFFER_TO_IMAGE2 via cmd_copy_buffer_to_image,
        cmd_copy_image_to_buffer => CMD_COPY_IMAGE_TO_BUFFER2 via cmd_copy_image_to_buffer,
        cmd_resolve_image => CMD_RESOLVE_IMAGE2 via cmd_resolve_image,
        cmd_begin_render_pass => CMD_BEGIN_RENDER_PASS2 via cmd_begin_render_pass,
        cmd_next_subpass => CMD_NEXT_SUBPASS2 via cmd_next_subpass,
        cmd_end_render_pass => CMD_END_RENDER_PASS2 via cmd_end_render_pass,
    );
    table
}

/// The `vkQueueSubmit2` that `vkQueueSubmit` reaches: the vendor's hook, else the queue core's.
///
/// # Safety
/// The valid usage of `vkQueueSubmit2`.
unsafe fn submit2<D: Kit>(
    queue: vk::Queue,
    count: u32,
    p_submits: *const vk::SubmitInfo2<'_>,
    fence: vk::Fence,
) -> vk::Result {
    // SAFETY: the caller's arguments are valid for `vkQueueSubmit2`, which both implement.
    unsafe {
        if D::implements(vkgen_generated::commands::CommandId::QUEUE_SUBMIT2) {
            D::queue_submit2(queue, count, p_submits, fence)
        } else {
            super::queue::queue_submit2::<D>(queue, count, p_submits, fence)
        }
    }
}

/// The `…2` semaphore infos of a 1.0 submission's semaphores: the value, stage (all commands
/// where `stages` has none, as for signals) and device index of each, where given.
fn semaphore_infos<'a>(
    sems: &[vk::Semaphore],
    values: &[u64],
    stages: &[vk::PipelineStageFlags],
    indices: &[u32],
) -> Vec<vk::SemaphoreSubmitInfo<'a>> {
    sems.iter()
        .enumerate()
        .map(|(i, &semaphore)| vk::SemaphoreSubmitInfo {
            semaphore,
            value: values.get(i).copied().unwrap_or(0),
            stage_mask: stages
                .get(i)
                .map_or(vk::PipelineStageFlags2::ALL_COMMANDS, |&m| stages2(m)),
            device_index: indices.get(i).copied().unwrap_or(0),
            ..Default::default()
        })
        .collect()
}

/// `vkQueueSubmit` as `vkQueueSubmit2`: wait stages per semaphore, timeline values
/// (`VkTimelineSemaphoreSubmitInfo`), device indices and masks (`VkDeviceGroupSubmitInfo`) and
/// `VkProtectedSubmitInfo` carried into the `…2` fields.
unsafe extern "system" fn queue_submit<D: Kit>(
    queue: vk::Queue,
    count: u32,
    p_submits: *const vk::SubmitInfo<'_>,
    fence: vk::Fence,
) -> vk::Result {
    guard(
        "vkQueueSubmit",
        vk::Result::ERROR_OUT_OF_HOST_MEMORY,
        || {
            // SAFETY: `pSubmits` holds `submitCount` submit infos (the command's valid usage).
            let submits = unsafe { slice(p_submits, count) };
            let mut waits: Vec<Vec<vk::SemaphoreSubmitInfo<'_>>> =
                Vec::with_capacity(submits.len());
            let mut cbs: Vec<Vec<vk::CommandBufferSubmitInfo<'_>>> =
                Vec::with_capacity(submits.len());
            let mut signals: Vec<Vec<vk::SemaphoreSubmitInfo<'_>>> =
                Vec::with_capacity(submits.len());
            let mut flags = Vec::with_capacity(submits.len());
            for s in submits {
                // SAFETY: a valid input chain.
                let (timeline, group, protected) = unsafe {
                    (
                        find_in_chain::<vk::TimelineSemaphoreSubmitInfo<'_>>(
                            s.p_next,
                            vk::StructureType::TIMELINE_SEMAPHORE_SUBMIT_INFO,
                        ),
                        find_in_chain::<vk::DeviceGroupSubmitInfo<'_>>(
                            s.p_next,
                            vk::StructureType::DEVICE_GROUP_SUBMIT_INFO,
                        ),
                        find_in_chain::<vk::ProtectedSubmitInfo<'_>>(
                            s.p_next,
                            vk::StructureType::PROTECTED_SUBMIT_INFO,
                        ),
                    )
                };
                // SAFETY: the arrays hold the counts the structures give (valid usage).
                let (wait_values, signal_values, wait_indices, masks, signal_indices) = unsafe {
                    (
                        timeline.map_or(&[][..], |t| {
                            slice(t.p_wait_semaphore_values, t.wait_semaphore_value_count)
                        }),
                        timeline.map_or(&[][..], |t| {
                            slice(t.p_signal_semaphore_values, t.signal_semaphore_value_count)
                        }),
                        group.map_or(&[][..], |g| {
                            slice(g.p_wait_semaphore_device_indices, g.wait_semaphore_count)
                        }),
                        group.map_or(&[][..], |g| {
                            slice(g.p_command_buffer_device_masks, g.command_buffer_count)
                        }),
                        group.map_or(&[][..], |g| {
                            slice(
                                g.p_signal_semaphore_device_indices,
                                g.signal_semaphore_count,
                            )
                        }),
                    )
                };
                // SAFETY: the submit info's arrays hold the counts it gives (valid usage).
                let (wait_sems, stages, cmd_bufs, signal_sems) = unsafe {
                    (
                        slice(s.p_wait_semaphores, s.wait_semaphore_count),
                        slice(s.p_wait_dst_stage_mask, s.wait_semaphore_count),
                        slice(s.p_command_buffers, s.command_buffer_count),
                        slice(s.p_signal_semaphores, s.signal_semaphore_count),
                    )
                };
                waits.push(semaphore_infos(
                    wait_sems,
                    wait_values,
                    stages,
                    wait_indices,
                ));
                cbs.push(
                    cmd_bufs
                        .iter()
                        .enumerate()
                        .map(|(i, &command_buffer)| vk::CommandBufferSubmitInfo {
                            command_buffer,
                            device_mask: masks.get(i).copied().unwrap_or(0),
                            ..Default::default()
                        })
                        .collect(),
                );
                signals.push(semaphore_infos(
                    signal_sems,
                    signal_values,
                    &[],
                    signal_indices,
                ));
                flags.push(if protected.is_some_and(|p| p.protected_submit != 0) {
                    vk::SubmitFlags::PROTECTED
                } else {
                    vk::SubmitFlags::empty()
                });
            }
            let infos: Vec<vk::SubmitInfo2<'_>> = (0..submits.len())
                .map(|i| {
                    vk::SubmitInfo2::default()
                        .flags(flags[i])
                        .wait_semaphore_infos(&waits[i])
                        .command_buffer_infos(&cbs[i])
                        .signal_semaphore_infos(&signals[i])
                })
                .collect();
            let n = u32::try_from(infos.len()).unwrap_or(u32::MAX);
            // SAFETY: the vendor's hook (or the queue core) with structures built from the
            // application's valid 1.0 arguments, alive for the call.
            unsafe { submit2::<D>(queue, n, infos.as_ptr(), fence) }
        },
    )
}

/// `vkCmdPipelineBarrier` as `vkCmdPipelineBarrier2`.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn cmd_pipeline_barrier<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::PipelineStageFlags,
    dst: vk::PipelineStageFlags,
    flags: vk::DependencyFlags,
    memory_count: u32,
    memory: *const vk::MemoryBarrier<'_>,
    buffer_count: u32,
    buffers: *const vk::BufferMemoryBarrier<'_>,
    image_count: u32,
    images: *const vk::ImageMemoryBarrier<'_>,
) {
    guard("vkCmdPipelineBarrier", (), || {
        // SAFETY: the application's arrays with their counts (VUID-vkCmdPipelineBarrier-*-parameter);
        // the vendor's hook gets a dependency info valid for the call.
        unsafe {
            barrier_dependency(
                src,
                dst,
                memory_count,
                memory,
                buffer_count,
                buffers,
                image_count,
                images,
                |info| {
                    let info = vk::DependencyInfo {
                        dependency_flags: flags,
                        ..*info
                    };
                    D::cmd_pipeline_barrier2(cb, &info)
                },
            )
        }
    })
}

/// `vkCmdWaitEvents` as `vkCmdWaitEvents2`: every event gets the same dependency.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn cmd_wait_events<D: Kit>(
    cb: vk::CommandBuffer,
    event_count: u32,
    events: *const vk::Event,
    src: vk::PipelineStageFlags,
    dst: vk::PipelineStageFlags,
    memory_count: u32,
    memory: *const vk::MemoryBarrier<'_>,
    buffer_count: u32,
    buffers: *const vk::BufferMemoryBarrier<'_>,
    image_count: u32,
    images: *const vk::ImageMemoryBarrier<'_>,
) {
    guard("vkCmdWaitEvents", (), || {
        // SAFETY: the application's arrays with their counts (VUID-vkCmdWaitEvents-*-parameter);
        // the vendor's hook gets one dependency per event in `infos`.
        unsafe {
            barrier_dependency(
                src,
                dst,
                memory_count,
                memory,
                buffer_count,
                buffers,
                image_count,
                images,
                |info| {
                    let infos = vec![*info; event_count as usize];
                    D::cmd_wait_events2(cb, event_count, events, infos.as_ptr())
                },
            )
        }
    })
}

/// `vkCmdSetEvent` as `vkCmdSetEvent2` with an execution dependency on `stage_mask`.
unsafe extern "system" fn cmd_set_event<D: Kit>(
    cb: vk::CommandBuffer,
    event: vk::Event,
    stage_mask: vk::PipelineStageFlags,
) {
    guard("vkCmdSetEvent", (), || {
        event_dependency(stage_mask, |info| {
            // SAFETY: the vendor's hook with a dependency info valid for the call.
            unsafe { D::cmd_set_event2(cb, event, info) }
        })
    })
}

/// `vkCmdResetEvent` as `vkCmdResetEvent2`.
unsafe extern "system" fn cmd_reset_event<D: Kit>(
    cb: vk::CommandBuffer,
    event: vk::Event,
    stage_mask: vk::PipelineStageFlags,
) {
    // SAFETY: the vendor's hook with the converted mask.
    guard("vkCmdResetEvent", (), || unsafe {
        D::cmd_reset_event2(cb, event, stages2(stage_mask))
    })
}

/// `vkCmdWriteTimestamp` as `vkCmdWriteTimestamp2`.
unsafe extern "system" fn cmd_write_timestamp<D: Kit>(
    cb: vk::CommandBuffer,
    stage: vk::PipelineStageFlags,
    pool: vk::QueryPool,
    query: u32,
) {
    // SAFETY: the vendor's hook with the converted stage.
    guard("vkCmdWriteTimestamp", (), || unsafe {
        D::cmd_write_timestamp2(cb, stages2(stage), pool, query)
    })
}

/// Regions of a 1.0 copy command as their `…2` structures.
macro_rules! regions {
    ($p:expr, $n:expr, |$r:ident| $conv:expr) => {{
        // SAFETY: the application's region array with its count.
        unsafe { slice($p, $n) }
            .iter()
            .map(|$r| $conv)
            .collect::<Vec<_>>()
    }};
}

/// `vkCmdCopyBuffer` as `vkCmdCopyBuffer2`.
unsafe extern "system" fn cmd_copy_buffer<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::Buffer,
    dst: vk::Buffer,
    n: u32,
    p: *const vk::BufferCopy,
) {
    guard("vkCmdCopyBuffer", (), || {
        let r = regions!(p, n, |r| vk::BufferCopy2 {
            src_offset: r.src_offset,
            dst_offset: r.dst_offset,
            size: r.size,
            ..Default::default()
        });
        let info = vk::CopyBufferInfo2::default()
            .src_buffer(src)
            .dst_buffer(dst)
            .regions(&r);
        // SAFETY: the vendor's hook with a valid info.
        unsafe { D::cmd_copy_buffer2(cb, &info) };
    })
}

/// `vkCmdCopyImage` as `vkCmdCopyImage2`.
unsafe extern "system" fn cmd_copy_image<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::Image,
    src_layout: vk::ImageLayout,
    dst: vk::Image,
    dst_layout: vk::ImageLayout,
    n: u32,
    p: *const vk::ImageCopy,
) {
    guard("vkCmdCopyImage", (), || {
        let r = regions!(p, n, |r| vk::ImageCopy2 {
            src_subresource: r.src_subresource,
            src_offset: r.src_offset,
            dst_subresource: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
            ..Default::default()
        });
        let info = vk::CopyImageInfo2::default()
            .src_image(src)
            .src_image_layout(src_layout)
            .dst_image(dst)
            .dst_image_layout(dst_layout)
            .regions(&r);
        // SAFETY: the vendor's hook with a valid info.
        unsafe { D::cmd_copy_image2(cb, &info) };
    })
}

/// `vkCmdBlitImage` as `vkCmdBlitImage2`.
#[allow(clippy::too_many_arguments)]
unsafe extern "system" fn cmd_blit_image<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::Image,
    src_layout: vk::ImageLayout,
    dst: vk::Image,
    dst_layout: vk::ImageLayout,
    n: u32,
    p: *const vk::ImageBlit,
    filter: vk::Filter,
) {
    guard("vkCmdBlitImage", (), || {
        let r = regions!(p, n, |r| vk::ImageBlit2 {
            src_subresource: r.src_subresource,
            src_offsets: r.src_offsets,
            dst_subresource: r.dst_subresource,
            dst_offsets: r.dst_offsets,
            ..Default::default()
        });
        let info = vk::BlitImageInfo2::default()
            .src_image(src)
            .src_image_layout(src_layout)
            .dst_image(dst)
            .dst_image_layout(dst_layout)
            .regions(&r)
            .filter(filter);
        // SAFETY: the vendor's hook with a valid info.
        unsafe { D::cmd_blit_image2(cb, &info) };
    })
}

fn buffer_image_copy2(r: &vk::BufferImageCopy) -> vk::BufferImageCopy2<'static> {
    vk::BufferImageCopy2 {
        buffer_offset: r.buffer_offset,
        buffer_row_length: r.buffer_row_length,
        buffer_image_height: r.buffer_image_height,
        image_subresource: r.image_subresource,
        image_offset: r.image_offset,
        image_extent: r.image_extent,
        ..Default::default()
    }
}

/// `vkCmdCopyBufferToImage` as `vkCmdCopyBufferToImage2`.
unsafe extern "system" fn cmd_copy_buffer_to_image<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::Buffer,
    dst: vk::Image,
    dst_layout: vk::ImageLayout,
    n: u32,
    p: *const vk::BufferImageCopy,
) {
    guard("vkCmdCopyBufferToImage", (), || {
        let r = regions!(p, n, |r| buffer_image_copy2(r));
        let info = vk::CopyBufferToImageInfo2::default()
            .src_buffer(src)
            .dst_image(dst)
            .dst_image_layout(dst_layout)
            .regions(&r);
        // SAFETY: the vendor's hook with a valid info.
        unsafe { D::cmd_copy_buffer_to_image2(cb, &info) };
    })
}

/// `vkCmdCopyImageToBuffer` as `vkCmdCopyImageToBuffer2`.
unsafe extern "system" fn cmd_copy_image_to_buffer<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::Image,
    src_layout: vk::ImageLayout,
    dst: vk::Buffer,
    n: u32,
    p: *const vk::BufferImageCopy,
) {
    guard("vkCmdCopyImageToBuffer", (), || {
        let r = regions!(p, n, |r| buffer_image_copy2(r));
        let info = vk::CopyImageToBufferInfo2::default()
            .src_image(src)
            .src_image_layout(src_layout)
            .dst_buffer(dst)
            .regions(&r);
        // SAFETY: the vendor's hook with a valid info.
        unsafe { D::cmd_copy_image_to_buffer2(cb, &info) };
    })
}

/// `vkCmdResolveImage` as `vkCmdResolveImage2`.
unsafe extern "system" fn cmd_resolve_image<D: Kit>(
    cb: vk::CommandBuffer,
    src: vk::Image,
    src_layout: vk::ImageLayout,
    dst: vk::Image,
    dst_layout: vk::ImageLayout,
    n: u32,
    p: *const vk::ImageResolve,
) {
    guard("vkCmdResolveImage", (), || {
        let r = regions!(p, n, |r| vk::ImageResolve2 {
            src_subresource: r.src_subresource,
            src_offset: r.src_offset,
            dst_subresource: r.dst_subresource,
            dst_offset: r.dst_offset,
            extent: r.extent,
            ..Default::default()
        });
        let info = vk::ResolveImageInfo2::default()
            .src_image(src)
            .src_image_layout(src_layout)
            .dst_image(dst)
            .dst_image_layout(dst_layout)
            .regions(&r);
        // SAFETY: the vendor's hook with a valid info.
        unsafe { D::cmd_resolve_image2(cb, &info) };
    })
}

/// The `…2` render-pass command a 1.0 one reaches: the vendor's hook, else the kit's render
/// passes on dynamic rendering ([`super::render_pass`], which routes its 1.0 forms here).
macro_rules! render_pass2 {
    ($D:ident, $id:ident, $hook:ident($($arg:expr),*)) => {
        if $D::implements(vkgen_generated::commands::CommandId::$id) {
            $D::$hook($($arg),*)
        } else {
            super::render_pass::$hook::<$D>($($arg),*)
        }
    };
}

/// `vkCmdBeginRenderPass` as `vkCmdBeginRenderPass2`.
pub(super) unsafe extern "system" fn cmd_begin_render_pass<D: Kit>(
    cb: vk::CommandBuffer,
    begin: *const vk::RenderPassBeginInfo<'_>,
    contents: vk::SubpassContents,
) {
    let sub = vk::SubpassBeginInfo::default().contents(contents);
    // SAFETY: the vendor's `…2` hook or the kit's, both with vkCmdBeginRenderPass2's valid
    // usage: `begin` is the application's valid structure, `sub` lives for the call.
    guard("vkCmdBeginRenderPass", (), || unsafe {
        render_pass2!(
            D,
            CMD_BEGIN_RENDER_PASS2,
            cmd_begin_render_pass2(cb, begin, &sub)
        )
    })
}

/// `vkCmdNextSubpass` as `vkCmdNextSubpass2`.
pub(super) unsafe extern "system" fn cmd_next_subpass<D: Kit>(
    cb: vk::CommandBuffer,
    contents: vk::SubpassContents,
) {
    let begin = vk::SubpassBeginInfo::default().contents(contents);
    let end = vk::SubpassEndInfo::default();
    // SAFETY: the vendor's `…2` hook or the kit's, with structures that live for the call.
    guard("vkCmdNextSubpass", (), || unsafe {
        render_pass2!(D, CMD_NEXT_SUBPASS2, cmd_next_subpass2(cb, &begin, &end))
    })
}

/// `vkCmdEndRenderPass` as `vkCmdEndRenderPass2`.
pub(super) unsafe extern "system" fn cmd_end_render_pass<D: Kit>(cb: vk::CommandBuffer) {
    let end = vk::SubpassEndInfo::default();
    // SAFETY: the vendor's `…2` hook or the kit's, with a structure that lives for the call.
    guard("vkCmdEndRenderPass", (), || unsafe {
        render_pass2!(D, CMD_END_RENDER_PASS2, cmd_end_render_pass2(cb, &end))
    })
}
