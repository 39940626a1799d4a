//! Render passes and framebuffers on dynamic rendering (Mesa's `vk_render_pass` and
//! `vk_framebuffer`), for drivers that turn [`Kit::RENDER_PASS_OBJECTS`] on: the vendor's
//! engine implements `vkCmdBeginRendering`/`vkCmdEndRendering` and
//! `vkCmdPipelineBarrier2`, and the kit answers every render-pass command with them.
//!
//! * Objects: `vkCreateRenderPass` (read as the `VkRenderPassCreateInfo2` it means,
//!   [`pass_from_create_info`]), `vkCreateRenderPass2`, `vkDestroyRenderPass`,
//!   `vkGetRenderAreaGranularity` and `vkGetRenderingAreaGranularity` (1×1), framebuffers incl.
//!   imageless ones ([`Framebuffer`]). [`RenderPass::subpass_rendering`] gives a subpass's
//!   `VkPipelineRenderingCreateInfo` equivalent (the pipelines of a render pass use it), and
//!   a secondary command buffer continuing a subpass begins as one inheriting dynamic
//!   rendering ([`with_inheritance_rendering`]).
//! * Commands: `vkCmdBeginRenderPass{,2}`, `vkCmdNextSubpass{,2}` and
//!   `vkCmdEndRenderPass{,2}` (the 1.0 forms through [`crate::kit::routes`]) reach the engine
//!   as `vkCmdPipelineBarrier2`, `vkCmdBeginRendering` and `vkCmdEndRendering` — through the
//!   vendor's hooks where it has them, else the kit's command map, so with
//!   [`Kit::RECORD_COMMANDS`] they are recorded (deep-copied, like any application call) and
//!   the engine's replay never sees a render pass.
//!
//! # Conversion rules (Mesa's)
//!
//! Each subpass is one `BeginRendering`…`EndRendering`, preceded by at most one
//! `PipelineBarrier2`; `vkCmdEndRenderPass` adds one more barrier after the last `End`.
//!
//! * **Views.** Without multiview a subpass's view mask counts as 1 and rendering gets the
//!   framebuffer's layer count and view mask 0; with it, layer count 1 and the subpass's mask.
//! * **Load.** An attachment's first use for a set of views (none of the subpass's views loaded
//!   yet) takes the pass's load op and clear value (`stencilLoadOp` for the stencil aspect);
//!   every later use `LOAD`. A resolve target counts as loaded by its resolve. A `CLEAR` the
//!   subpass's rendering cannot carry gets an extra begin/end pair over the views concerned,
//!   before the subpass's own: an attachment first used as an input attachment only, and,
//!   with multiview, views new to a subpass whose other views were loaded already.
//! * **Store.** The pass's store op only when no later subpass uses the attachment in any of
//!   the subpass's views; `STORE` otherwise.
//! * **Resolve.** A colour resolve is `SAMPLE_ZERO` for an integer format, else `AVERAGE`.
//!   Depth and stencil resolves take `VkSubpassDescriptionDepthStencilResolve`'s modes, each
//!   only when the resolve target has the aspect.
//! * **Depth/stencil.** The depth attachment is present when the format has depth, the stencil
//!   attachment when it has stencil, each with its own layout
//!   (`VkAttachmentReferenceStencilLayout`) and load/store ops.
//! * **Layouts.** Tracked per attachment and view, starting at the initial layouts
//!   (`VkAttachmentDescriptionStencilLayout` for stencil). Before each subpass, every
//!   attachment it uses goes to the reference's layout; at the end of the pass, every
//!   attachment to its final layout. A transition is an image barrier over the view's
//!   subresources ([`crate::kit::resources::ImageView`] gives image and range): one mip level;
//!   layer `base + view` with multiview, the framebuffer's layers without, the whole mip
//!   level of a 3D image; two barriers when depth and stencil layouts differ. Stages and
//!   accesses are all the layouts allow ([`layouts`]). A view that is no kit image view
//!   gets no barrier (there is no image to name).
//! * **Dependencies.** Those into a subpass (including from `VK_SUBPASS_EXTERNAL` and self
//!   dependencies) merge into the barrier before it as one memory barrier; a view-local one
//!   only if its view offset lands on a view of its source subpass. A chained
//!   `VkMemoryBarrier2` replaces a dependency's masks. Dependencies into
//!   `VK_SUBPASS_EXTERNAL` merge into the final barrier (the kit's addition to Mesa, whose
//!   final barrier has only the layouts).
//! * **Contents.** `VK_SUBPASS_CONTENTS_SECONDARY_COMMAND_BUFFERS` (and maintenance7's
//!   inline-and-secondary) begin rendering with `CONTENTS_SECONDARY_COMMAND_BUFFERS`.
//! * **Device groups.** A chained `VkDeviceGroupRenderPassBeginInfo` is chained to every
//!   `VkRenderingInfo` of the instance.
//!
//! Not converted (as in Mesa): preserve attachments (LOAD/STORE keep them anyway), the
//! input-attachment feedback-loop layout and flags, fragment shading-rate and density-map
//! attachments, `VkRenderingAttachmentInitialLayoutInfoMESA` (transitions are barriers here).

// The `unsafe` entry points are Vulkan commands: their safety contract is the command's valid
// usage in the specification, which each one links to.
#![allow(clippy::missing_safety_doc)]

mod commands;
mod convert;
mod formats;
mod framebuffer;
mod inheritance;
pub mod layouts;
mod objects;
mod pass;
pub(crate) mod state;
mod subpass;

use vkgen_generated::entries::EntryTable;

pub use commands::{cmd_begin_render_pass2, cmd_end_render_pass2, cmd_next_subpass2};
pub use convert::pass_from_create_info;
pub use framebuffer::{Framebuffer, ImagelessAttachment};
pub use inheritance::{inheritance_rendering, with_inheritance_rendering};
pub use pass::{
    Attachment, Dependency, Pass, RenderPass, Subpass, SubpassAttachment, SubpassRendering,
};

use super::api::Kit;

/// The component as a table (see [`super::entries`]), empty unless the driver opted in. It
/// sits above the recorder: its render-pass commands replace the recorded ones.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::RENDER_PASS_OBJECTS {
        return EntryTable::EMPTY;
    }
    EntryTable {
        cmd_begin_render_pass: Some(super::routes::cmd_begin_render_pass::<D>),
        cmd_begin_render_pass2: Some(cmd_begin_render_pass2::<D>),
        cmd_next_subpass: Some(super::routes::cmd_next_subpass::<D>),
        cmd_next_subpass2: Some(cmd_next_subpass2::<D>),
        cmd_end_render_pass: Some(super::routes::cmd_end_render_pass::<D>),
        cmd_end_render_pass2: Some(cmd_end_render_pass2::<D>),
        ..EntryTable::EMPTY
    }
    .or(&bring_up_entries())
}

/// The render-pass and framebuffer objects whatever [`Kit::RENDER_PASS_OBJECTS`] says: those
/// of the kit's bring-up table ([`super::bring_up::entries`]). Not the
/// `vkCmd*RenderPass*` commands: they record into the kit's command buffers and call `D`'s
/// dynamic-rendering commands, which a driver without the component need not have.
pub fn bring_up_entries() -> EntryTable {
    #[allow(unused_mut)]
    let mut table = EntryTable {
        create_render_pass: Some(objects::create_render_pass),
        create_render_pass2: Some(objects::create_render_pass2),
        destroy_render_pass: Some(objects::destroy_render_pass),
        get_render_area_granularity: Some(objects::get_render_area_granularity),
        create_framebuffer: Some(framebuffer::create_framebuffer),
        destroy_framebuffer: Some(framebuffer::destroy_framebuffer),
        ..EntryTable::EMPTY
    };
    #[cfg(vk_1_4)]
    {
        table.get_rendering_area_granularity = Some(objects::get_rendering_area_granularity);
    }
    table
}
