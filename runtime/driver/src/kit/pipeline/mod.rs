//! Compute and graphics pipelines as kit objects (Mesa's `vk_pipeline`), for drivers that turn
//! [`Kit::PIPELINE_OBJECTS`] on: `vkCreateComputePipelines`, `vkCreateGraphicsPipelines` and
//! `vkDestroyPipeline`.
//!
//! A pipeline keeps its create info deep-copied with the generated recorder's structure
//! copier ([`Owned`](vkgen_generated::recorder::Owned): the same fix-ups that copy a `vkCmd*`'s
//! arguments), its stages resolved
//! ([`ShaderStage::from_create_info`](crate::kit::shader::ShaderStage::from_create_info): parsed
//! module, entry point, workgroup size, bindings, specialization), its layout held by `Arc` (the
//! application may destroy the `VkPipelineLayout` while the pipeline lives), and for graphics one
//! compiled
//! [`GraphicsState`](crate::kit::state::GraphicsState). Pointers the spec says are ignored (a state
//! of a subset the pipeline does not provide, viewports that are dynamic, …) may be dangling, so
//! they are nulled before the copy ([`graphics`]).
//!
//! The spec's creation rules ([`create`]): every output is zeroed first; a failed element
//! leaves its handle null and the others are still created unless
//! `VK_PIPELINE_CREATE_EARLY_RETURN_ON_PIPELINE_COMPILE_FAILURE_BIT`;
//! `VK_PIPELINE_CREATE_FAIL_ON_PIPELINE_COMPILE_REQUIRED_BIT` answers
//! `VK_PIPELINE_COMPILE_REQUIRED` unless every stage was in the pipeline cache
//! ([`PipelineCache::lookup_or_insert`](crate::kit::shader::PipelineCache::lookup_or_insert)
//! with [`ShaderStage::key`](crate::kit::shader::ShaderStage::key)); creation feedback reports
//! `VALID` and `APPLICATION_PIPELINE_CACHE_HIT` when every stage hit. The flags are
//! `VkPipelineCreateFlags2CreateInfoKHR`'s 64-bit ones when chained.
//!
//! Graphics pipeline libraries (`VK_EXT_graphics_pipeline_library`): a library provides the
//! subsets its `VkGraphicsPipelineLibraryCreateInfoEXT` names; linking
//! (`VkPipelineLibraryCreateInfoKHR`) merges the libraries' states by group and appends their
//! stages ([`GraphicsState::merge`](crate::kit::state::GraphicsState::merge)).
//!
//! The engine's part is [`Kit::compile_pipeline`]: called for every pipeline the kit built,
//! before its handle is returned; an error fails that element (a CPU executor refusing an
//! instruction it cannot run answers here, not at draw time).

#![allow(clippy::missing_safety_doc)]

use vkgen_generated::entries::EntryTable;
use vkgen_generated::vk;

use super::api::Kit;
use crate::handles::destroy_object;
use crate::util::guard;

pub mod create;
pub mod graphics;
pub(crate) mod object;
mod shared;

pub use object::{ComputePipeline, GraphicsPipeline, Pipeline};

/// [`vkDestroyPipeline`](https://registry.khronos.org/vulkan/specs/latest/man/html/vkDestroyPipeline.html)
unsafe extern "system" fn destroy_pipeline(
    _device: vk::Device,
    pipeline: vk::Pipeline,
    _p_allocator: *const vk::AllocationCallbacks<'_>,
) {
    guard("vkDestroyPipeline", (), || {
        // SAFETY: `pipeline` is null or a pipeline no pending work uses
        // (VUID-vkDestroyPipeline-pipeline-00765).
        unsafe { destroy_object::<Pipeline>(vk::Handle::as_raw(pipeline)) };
    });
}

/// The component as a table (see [`super::entries`]), empty unless the driver opted in.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::PIPELINE_OBJECTS {
        return EntryTable::EMPTY;
    }
    bring_up_entries::<D>()
}

/// The component's table whatever [`Kit::PIPELINE_OBJECTS`] says: the pipelines of the null
/// driver's bring-up table ([`super::bring_up::entries`]), built from the bring-up
/// table's shader modules and layouts and shown to `D`'s [`Kit::compile_pipeline`] on `D`'s
/// device. Without `PIPELINE_OBJECTS` nothing replays them through
/// [`super::command::CommandBuffer::replay_tracked`]: a bring-up driver's engine sees the
/// bound handles only.
pub fn bring_up_entries<D: Kit>() -> EntryTable {
    EntryTable {
        create_compute_pipelines: Some(create::create_compute_pipelines::<D>),
        create_graphics_pipelines: Some(create::create_graphics_pipelines::<D>),
        destroy_pipeline: Some(destroy_pipeline),
        ..EntryTable::EMPTY
    }
}
