//! Shader modules and pipeline caches ([`Kit::SHADER_OBJECTS`], Mesa's `vk_shader_module`,
//! the stage half of `vk_pipeline` and `vk_pipeline_cache`).
//!
//! * [`SpirvModule`] ([`spirv`]): the code, validated once (`binary`: header, version ≤ 1.6,
//!   every instruction's word count) and reflected; [`SpirvModule::instructions`] is its instruction
//!   stream — each [`Instruction`] an opcode and its operand words in module order — which a
//!   CPU executor walks (decode opcodes with `spirv_headers::Op::from_u32`).
//! * [`ShaderModule`] ([`module`]): `VkShaderModule`, holding an `Arc` of the code, and the
//!   `VK_EXT_shader_module_identifier` queries (the code's SHA-256).
//! * [`ShaderStage`] ([`stage`]): a `VkPipelineShaderStageCreateInfo` resolved — entry point,
//!   execution model, workgroup size (`LocalSize`, `LocalSizeId`, the `WorkgroupSize` built-in,
//!   specialized), bindings, push-constant range, specialization, required subgroup size, and a
//!   32-byte [`ShaderStage::key`]. `VK_KHR_maintenance5`'s inline `VkShaderModuleCreateInfo`
//!   works in place of a module.
//! * [`PipelineCache`] ([`cache`]): `VkPipelineCache` with the spec's header, data round trips,
//!   merges, and [`PipelineCache::lookup_or_insert`] for the pipeline helper's creation feedback.
//!
//! The parsing crate is `spirq` (docs/architecture.md, "SPIR-V": what each candidate accepts
//! and costs); the facts it does not give, or gives slowly, the kit reads itself (`facts`).

use vkgen_generated::entries::EntryTable;

use super::api::Kit;

mod binary;
pub mod cache;
mod facts;
pub mod module;
mod reflect;
pub mod spirv;
pub mod stage;

pub use binary::{Instruction, Instructions, SpirvError, MAGIC, MAX_MINOR};
pub use cache::PipelineCache;
pub use module::ShaderModule;
/// SPIR-V's enums (`Op`, `ExecutionModel`, `Decoration`, …), from the grammar the parser uses.
pub use spirq::spirv as spirv_headers;
/// A stage's execution model (SPIR-V's enum).
pub use spirq::spirv::ExecutionModel;
pub use spirv::SpirvModule;
pub use stage::{ShaderStage, StageBinding, StageRequest};

/// The component as a table (see [`super::entries`]), empty unless the driver opted in.
pub fn entries<D: Kit>() -> EntryTable {
    if !D::SHADER_OBJECTS {
        return EntryTable::EMPTY;
    }
    bring_up_entries::<D>()
}

/// The component's table whatever [`Kit::SHADER_OBJECTS`] says: the shader modules and
/// pipeline caches of the kit's bring-up table ([`super::bring_up::entries`]);
/// caches carry `D`'s physical device's `pipelineCacheUUID`.
pub fn bring_up_entries<D: Kit>() -> EntryTable {
    module::entries().or(&cache::entries::<D>())
}
