//! Transfer commands run on host memory by the kit ([`Kit::HOST_TRANSFERS`]): with the
//! resource objects on every buffer and image lives in host memory, so a fill, an update, a
//! copy, a clear, a blit or a resolve the vendor's engine does not run is a loop over bytes
//! the kit can write once for every CPU (or bring-up, or unified-memory) driver.
//!
//! * `buffers`: `vkCmdFillBuffer`, `vkCmdUpdateBuffer`, `vkCmdCopyBuffer{,2}`;
//! * `copies`: `vkCmdCopyBufferToImage{,2}`, `vkCmdCopyImageToBuffer{,2}` (the buffer side
//!   by [`buffer_copy_layout`](crate::kit::format::buffer_copy_layout): row length, image
//!   height, depth/stencil aspect sizes, compressed blocks) and `vkCmdCopyImage{,2}`;
//! * `clears`: `vkCmdClearColorImage`, `vkCmdClearDepthStencilImage` (values packed by
//!   [`kit::format::pack`](crate::kit::format::pack));
//! * `blits`: `vkCmdBlitImage{,2}` (`NEAREST`, `LINEAR`) and `vkCmdResolveImage{,2}`;
//! * `access`: checked host ranges and where an aspect of a texel lies in the linear layout;
//! * `vkCmdPipelineBarrier{,2}` are no-ops: a host engine runs each command to its end, in
//!   recorded order, so a barrier has nothing left to order.
//!
//! Design notes. The hook is the one events and timestamps use (`kit/command/applied.rs`):
//! at replay, a recorded transfer command whose method the engine does not define (nor the
//! `…2` method its 1.0 form routes to, `recorder::implemented`) is run here instead, in
//! recorded order, on [`CommandBuffer::replay`](crate::kit::command::CommandBuffer::replay)
//! and `replay_tracked` alike. An engine that defines the method keeps the command — the kit
//! never runs a command twice, and a vendor can take over one command at a time. Every region
//! is checked against the buffer's size and the image's mips, layers and extent before a byte
//! moves, and every byte moves through a bounds-checked range (`access::Host`): a bad
//! region is dropped with a logged warning (valid usage made it undefined; the kit makes it
//! harmless), never a crash or a write outside the object. The requirements report counts
//! these commands as run ([`provides`]), and the format-feature check asks [`runs_on`] which
//! formats the kit's version of a command can serve.

mod access;
mod blits;
mod buffers;
mod clears;
mod copies;

use vkgen_generated::commands::CommandId;
use vkgen_generated::recorder::{implemented, Cmd, Execute};
use vkgen_generated::vk;

use crate::kit::api::Kit;
use crate::kit::format;
use crate::util::slice;

/// The commands the kit runs with [`Kit::HOST_TRANSFERS`] (both forms of each `…2` pair).
pub const COMMANDS: &[CommandId] = &[
    CommandId::CMD_FILL_BUFFER,
    CommandId::CMD_UPDATE_BUFFER,
    CommandId::CMD_COPY_BUFFER,
    CommandId::CMD_COPY_BUFFER2,
    CommandId::CMD_COPY_BUFFER_TO_IMAGE,
    CommandId::CMD_COPY_BUFFER_TO_IMAGE2,
    CommandId::CMD_COPY_IMAGE_TO_BUFFER,
    CommandId::CMD_COPY_IMAGE_TO_BUFFER2,
    CommandId::CMD_COPY_IMAGE,
    CommandId::CMD_COPY_IMAGE2,
    CommandId::CMD_CLEAR_COLOR_IMAGE,
    CommandId::CMD_CLEAR_DEPTH_STENCIL_IMAGE,
    CommandId::CMD_BLIT_IMAGE,
    CommandId::CMD_BLIT_IMAGE2,
    CommandId::CMD_RESOLVE_IMAGE,
    CommandId::CMD_RESOLVE_IMAGE2,
    CommandId::CMD_PIPELINE_BARRIER,
    CommandId::CMD_PIPELINE_BARRIER2,
];

/// Whether driver `D` has the kit run `cmd` (canonical id) when its engine does not.
pub fn provides<D: Kit>(cmd: CommandId) -> bool {
    D::HOST_TRANSFERS && D::RESOURCE_OBJECTS && COMMANDS.contains(&cmd)
}

/// Whether the kit's version of `cmd` (canonical id) serves images of `format`: copies need
/// the format table's row (any format, compressed and planar included), clears, blits and
/// resolves a format the packer lays out (uncompressed, single-plane).
pub fn runs_on(cmd: CommandId, format: vk::Format) -> bool {
    let Some(f) = format::info(format) else {
        return false;
    };
    match cmd {
        CommandId::CMD_CLEAR_COLOR_IMAGE
        | CommandId::CMD_CLEAR_DEPTH_STENCIL_IMAGE
        | CommandId::CMD_BLIT_IMAGE
        | CommandId::CMD_BLIT_IMAGE2
        | CommandId::CMD_RESOLVE_IMAGE
        | CommandId::CMD_RESOLVE_IMAGE2 => f.is_packable(),
        _ => COMMANDS.contains(&cmd),
    }
}

/// Whether the kit ran `cmd` (the replay then skips the engine); see the module notes.
pub(crate) fn apply<D: Kit, E: Execute>(cmd: &Cmd) -> bool {
    if !(D::HOST_TRANSFERS && D::RESOURCE_OBJECTS) {
        return false;
    }
    let Some(id) = transfer_id(cmd) else {
        return false;
    };
    if implemented(id, E::implements) {
        return false;
    }
    // A host engine runs each command to its end, in order (the kit's transfers and a
    // vendor's engine on the same thread): a barrier has nothing left to order.
    if matches!(
        cmd,
        Cmd::PipelineBarrier { .. } | Cmd::PipelineBarrier2 { .. }
    ) {
        return true;
    }
    // SAFETY: `cmd` is a record of a pending command buffer: its handles are the
    // application's, live while the buffer is pending (the commands' valid usage), and its
    // pointers are copies in the recording, `*_count` long.
    unsafe { run(cmd) };
    true
}

/// The id of a transfer command the kit runs.
fn transfer_id(cmd: &Cmd) -> Option<CommandId> {
    Some(match cmd {
        Cmd::FillBuffer { .. } => CommandId::CMD_FILL_BUFFER,
        Cmd::UpdateBuffer { .. } => CommandId::CMD_UPDATE_BUFFER,
        Cmd::CopyBuffer { .. } => CommandId::CMD_COPY_BUFFER,
        Cmd::CopyBuffer2 { .. } => CommandId::CMD_COPY_BUFFER2,
        Cmd::CopyBufferToImage { .. } => CommandId::CMD_COPY_BUFFER_TO_IMAGE,
        Cmd::CopyBufferToImage2 { .. } => CommandId::CMD_COPY_BUFFER_TO_IMAGE2,
        Cmd::CopyImageToBuffer { .. } => CommandId::CMD_COPY_IMAGE_TO_BUFFER,
        Cmd::CopyImageToBuffer2 { .. } => CommandId::CMD_COPY_IMAGE_TO_BUFFER2,
        Cmd::CopyImage { .. } => CommandId::CMD_COPY_IMAGE,
        Cmd::CopyImage2 { .. } => CommandId::CMD_COPY_IMAGE2,
        Cmd::ClearColorImage { .. } => CommandId::CMD_CLEAR_COLOR_IMAGE,
        Cmd::ClearDepthStencilImage { .. } => CommandId::CMD_CLEAR_DEPTH_STENCIL_IMAGE,
        Cmd::BlitImage { .. } => CommandId::CMD_BLIT_IMAGE,
        Cmd::BlitImage2 { .. } => CommandId::CMD_BLIT_IMAGE2,
        Cmd::ResolveImage { .. } => CommandId::CMD_RESOLVE_IMAGE,
        Cmd::ResolveImage2 { .. } => CommandId::CMD_RESOLVE_IMAGE2,
        Cmd::PipelineBarrier { .. } => CommandId::CMD_PIPELINE_BARRIER,
        Cmd::PipelineBarrier2 { .. } => CommandId::CMD_PIPELINE_BARRIER2,
        _ => return None,
    })
}

/// Runs one transfer record.
///
/// # Safety
/// As in [`apply`]: a record of a pending command buffer.
unsafe fn run(cmd: &Cmd) {
    // SAFETY: every arm rests on the function's contract — live handles, and pointers to the
    // recording's copies of the structures and their `*_count` regions.
    unsafe {
        match *cmd {
            Cmd::FillBuffer {
                dst_buffer,
                dst_offset,
                size,
                data,
            } => buffers::fill(dst_buffer, dst_offset, size, data),
            Cmd::UpdateBuffer {
                dst_buffer,
                dst_offset,
                data_size,
                p_data,
            } => buffers::update(dst_buffer, dst_offset, data_size, p_data.cast()),
            Cmd::CopyBuffer {
                src_buffer,
                dst_buffer,
                region_count,
                p_regions,
            } => buffers::copy(
                "vkCmdCopyBuffer",
                src_buffer,
                dst_buffer,
                slice(p_regions, region_count)
                    .iter()
                    .map(|r| (r.src_offset, r.dst_offset, r.size)),
            ),
            Cmd::CopyBuffer2 { p_copy_buffer_info } => {
                if let Some(i) = p_copy_buffer_info.as_ref() {
                    buffers::copy(
                        "vkCmdCopyBuffer2",
                        i.src_buffer,
                        i.dst_buffer,
                        slice(i.p_regions, i.region_count)
                            .iter()
                            .map(|r| (r.src_offset, r.dst_offset, r.size)),
                    );
                }
            }
            _ => run_image(cmd),
        }
    }
}

/// Runs one image transfer record.
///
/// # Safety
/// As [`run`].
unsafe fn run_image(cmd: &Cmd) {
    // SAFETY: every arm rests on `run`'s contract, which the caller keeps.
    unsafe {
        match *cmd {
            Cmd::CopyBufferToImage {
                src_buffer,
                dst_image,
                region_count,
                p_regions,
                ..
            } => copies::buffer_image(
                "vkCmdCopyBufferToImage",
                src_buffer,
                dst_image,
                slice(p_regions, region_count).iter().map(Into::into),
                true,
            ),
            Cmd::CopyBufferToImage2 {
                p_copy_buffer_to_image_info: i,
            } => {
                if let Some(i) = i.as_ref() {
                    copies::buffer_image(
                        "vkCmdCopyBufferToImage2",
                        i.src_buffer,
                        i.dst_image,
                        slice(i.p_regions, i.region_count).iter().map(Into::into),
                        true,
                    );
                }
            }
            Cmd::CopyImageToBuffer {
                src_image,
                dst_buffer,
                region_count,
                p_regions,
                ..
            } => copies::buffer_image(
                "vkCmdCopyImageToBuffer",
                dst_buffer,
                src_image,
                slice(p_regions, region_count).iter().map(Into::into),
                false,
            ),
            Cmd::CopyImageToBuffer2 {
                p_copy_image_to_buffer_info: i,
            } => {
                if let Some(i) = i.as_ref() {
                    copies::buffer_image(
                        "vkCmdCopyImageToBuffer2",
                        i.dst_buffer,
                        i.src_image,
                        slice(i.p_regions, i.region_count).iter().map(Into::into),
                        false,
                    );
                }
            }
            Cmd::CopyImage {
                src_image,
                dst_image,
                region_count,
                p_regions,
                ..
            } => copies::image_image(
                "vkCmdCopyImage",
                src_image,
                dst_image,
                slice(p_regions, region_count).iter().map(Into::into),
            ),
            Cmd::CopyImage2 {
                p_copy_image_info: i,
            } => {
                if let Some(i) = i.as_ref() {
                    copies::image_image(
                        "vkCmdCopyImage2",
                        i.src_image,
                        i.dst_image,
                        slice(i.p_regions, i.region_count).iter().map(Into::into),
                    );
                }
            }
            _ => run_pixels(cmd),
        }
    }
}

/// Runs one clear, blit or resolve record.
///
/// # Safety
/// As [`run`].
unsafe fn run_pixels(cmd: &Cmd) {
    // SAFETY: every arm rests on `run`'s contract, which the caller keeps.
    unsafe {
        match *cmd {
            Cmd::ClearColorImage {
                image,
                p_color,
                range_count,
                p_ranges,
                ..
            } => {
                if let Some(c) = p_color.as_ref() {
                    clears::color(image, c, slice(p_ranges, range_count));
                }
            }
            Cmd::ClearDepthStencilImage {
                image,
                p_depth_stencil,
                range_count,
                p_ranges,
                ..
            } => {
                if let Some(v) = p_depth_stencil.as_ref() {
                    clears::depth_stencil(image, v, slice(p_ranges, range_count));
                }
            }
            Cmd::BlitImage {
                src_image,
                dst_image,
                region_count,
                p_regions,
                filter,
                ..
            } => blits::blit(
                "vkCmdBlitImage",
                src_image,
                dst_image,
                slice(p_regions, region_count).iter().map(Into::into),
                filter,
            ),
            Cmd::BlitImage2 {
                p_blit_image_info: i,
            } => {
                if let Some(i) = i.as_ref() {
                    blits::blit(
                        "vkCmdBlitImage2",
                        i.src_image,
                        i.dst_image,
                        slice(i.p_regions, i.region_count).iter().map(Into::into),
                        i.filter,
                    );
                }
            }
            Cmd::ResolveImage {
                src_image,
                dst_image,
                region_count,
                p_regions,
                ..
            } => blits::resolve(
                "vkCmdResolveImage",
                src_image,
                dst_image,
                slice(p_regions, region_count).iter().map(Into::into),
            ),
            Cmd::ResolveImage2 {
                p_resolve_image_info: i,
            } => {
                if let Some(i) = i.as_ref() {
                    blits::resolve(
                        "vkCmdResolveImage2",
                        i.src_image,
                        i.dst_image,
                        slice(i.p_regions, i.region_count).iter().map(Into::into),
                    );
                }
            }
            _ => {}
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_kit_serves_copies_of_every_described_format_and_pixels_of_packable_ones() {
        let bc1 = vk::Format::BC1_RGB_UNORM_BLOCK;
        let nv12 = vk::Format::G8_B8R8_2PLANE_420_UNORM;
        for f in [
            vk::Format::R8G8B8A8_UNORM,
            vk::Format::D24_UNORM_S8_UINT,
            bc1,
            nv12,
        ] {
            assert!(runs_on(CommandId::CMD_COPY_BUFFER_TO_IMAGE, f), "{f:?}");
            assert!(runs_on(CommandId::CMD_COPY_IMAGE2, f), "{f:?}");
        }
        for cmd in [CommandId::CMD_BLIT_IMAGE2, CommandId::CMD_CLEAR_COLOR_IMAGE] {
            assert!(runs_on(cmd, vk::Format::E5B9G9R9_UFLOAT_PACK32));
            assert!(!runs_on(cmd, bc1), "compressed");
            assert!(!runs_on(cmd, nv12), "multi-planar");
        }
        assert!(!runs_on(CommandId::CMD_DRAW, vk::Format::R8G8B8A8_UNORM));
        assert!(!runs_on(CommandId::CMD_COPY_IMAGE, vk::Format::UNDEFINED));
    }
}
