//! [`ShaderStage`]: one `VkPipelineShaderStageCreateInfo` resolved against its module — the
//! entry point, workgroup size, resource bindings, push-constant range and specialization an
//! engine needs, computed once at pipeline creation.
//!
//! Reflection is `spirq`'s (types, descriptor kinds, array sizes, push-constant block layout,
//! specialization through `OpSpecConstantOp`) narrowed to what the entry point statically
//! uses by the kit's `facts` pass; the module's default reflection is kept in the [`SpirvModule`]
//! and redone only when the stage specializes a constant the module declares.
//!
//! Errors: a missing entry point (VUID-VkPipelineShaderStageCreateInfo-pName-00707), a bad
//! specialization (VUID-VkSpecializationInfo-offset-00773,
//! VUID-VkSpecializationMapEntry-constantID-00776) or bad inline SPIR-V are invalid usage with no
//! dedicated result; `VK_ERROR_UNKNOWN` is the one every pipeline-creation command may return for
//! them ("the application has provided invalid input"), never `VK_ERROR_INVALID_SHADER_NV` (an NV
//! extension's).

use std::ops::Range;
use std::sync::Arc;

use sha2::{Digest, Sha256};
use spirq::entry_point::EntryPoint;
use spirq::prelude::{ConstantValue, DescriptorType, Variable};
use spirq::spirv::ExecutionModel;
use vkgen_abi::vk_error;
use vkgen_generated::vk;

use super::module::ShaderModule;
use super::reflect::reflect;
use super::spirv::SpirvModule;
use crate::util::{find_in_chain, slice};

/// One resource binding a stage uses, as the shader declares it (the layout may make a
/// uniform buffer `_DYNAMIC` or an inline uniform block; the shader cannot tell). `count` is
/// the array size, 1 for a single descriptor and 0 for a runtime array.
#[derive(Clone, Copy, Debug, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct StageBinding {
    pub set: u32,
    pub binding: u32,
    pub descriptor_type: vk::DescriptorType,
    pub count: u32,
}

/// See the module docs. Bindings are sorted by `(set, binding)`, one per variable;
/// `specialization` holds every specialization constant of the module, sorted by id, with
/// the stage's value or the module's default, in the constant's byte size.
#[derive(Clone, Debug)]
pub struct ShaderStage {
    pub stage: vk::ShaderStageFlags,
    pub flags: vk::PipelineShaderStageCreateFlags,
    pub module: Arc<SpirvModule>,
    pub entry_point: String,
    pub execution_model: ExecutionModel,
    pub workgroup_size: Option<[u32; 3]>,
    pub bindings: Vec<StageBinding>,
    pub push_constants: Option<Range<u32>>,
    pub specialization: Vec<(u32, Vec<u8>)>,
    pub required_subgroup_size: Option<u32>,
}

/// What a stage asks of its module, without the Vulkan structure (see [`ShaderStage::resolve`]).
#[derive(Clone, Debug, Default)]
pub struct StageRequest<'a> {
    pub stage: vk::ShaderStageFlags,
    pub flags: vk::PipelineShaderStageCreateFlags,
    pub entry_point: &'a str,
    /// `(constant_id, bytes)` as `VkSpecializationInfo` gives them.
    pub specialization: Vec<(u32, Vec<u8>)>,
    pub required_subgroup_size: Option<u32>,
}

impl ShaderStage {
    /// Module handle, or maintenance5's VkShaderModuleCreateInfo in pNext; VK_ERROR_UNKNOWN /
    /// INVALID_SHADER_NV-free: errors the spec allows for pipeline creation. A stage given only
    /// by `VkPipelineShaderStageModuleIdentifierCreateInfoEXT` answers
    /// `VK_PIPELINE_COMPILE_REQUIRED` (the kit keeps no identifier → code map).
    ///
    /// # Safety
    /// `info` and its chain, name, specialization info and module handle are valid.
    pub unsafe fn from_create_info(
        info: &vk::PipelineShaderStageCreateInfo<'_>,
    ) -> Result<ShaderStage, vk::Result> {
        // SAFETY: the caller's valid structure and chain.
        let module = unsafe { stage_module(info) }?;
        // SAFETY: `pName` is a valid NUL-terminated string (VUID-…-pName-parameter).
        let name = unsafe { info.p_name.as_ref() }
            .map(|_| unsafe { std::ffi::CStr::from_ptr(info.p_name) });
        let Some(name) = name.and_then(|n| n.to_str().ok()) else {
            return Err(vk_error!(
                vk::Result::ERROR_UNKNOWN,
                "stage without a UTF-8 pName"
            ));
        };
        // SAFETY: the caller's valid specialization info.
        let specialization = unsafe { specialization_entries(info.p_specialization_info) }?;
        // SAFETY: the caller's valid chain.
        let subgroup = unsafe {
            find_in_chain::<vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo<'_>>(
                info.p_next,
                vk::StructureType::PIPELINE_SHADER_STAGE_REQUIRED_SUBGROUP_SIZE_CREATE_INFO,
            )
        };
        ShaderStage::resolve(
            module,
            &StageRequest {
                stage: info.stage,
                flags: info.flags,
                entry_point: name,
                specialization,
                required_subgroup_size: subgroup.map(|s| s.required_subgroup_size),
            },
        )
    }

    /// Resolves `request` against `module` (what [`ShaderStage::from_create_info`] does after
    /// reading the structures); errors are logged.
    pub fn resolve(
        module: Arc<SpirvModule>,
        request: &StageRequest<'_>,
    ) -> Result<ShaderStage, vk::Result> {
        let Some(entry) =
            module.facts.entry_points.iter().find(|e| {
                e.name == request.entry_point && stage_of(e.model) == Some(request.stage)
            })
        else {
            return Err(vk_error!(
                vk::Result::ERROR_UNKNOWN,
                "no entry point {:?} for stage {:?} in the module (VUID-VkPipelineShaderStageCreateInfo-pName-00707)",
                request.entry_point,
                request.stage
            ));
        };
        let specialization = specialize(&module, &request.specialization)?;
        let touched: Vec<(u32, Vec<u8>)> = request
            .specialization
            .iter()
            .filter(|(id, _)| module.facts.spec_constants.iter().any(|s| s.spec_id == *id))
            .cloned()
            .collect();
        let fresh;
        let reflected = if touched.is_empty() {
            &module.reflected
        } else {
            fresh = reflect(module.words(), &touched).map_err(|e| {
                vk_error!(vk::Result::ERROR_UNKNOWN, "specializing the module: {e}")
            })?;
            &fresh
        };
        let Some(rep) = reflected
            .iter()
            .find(|r| r.name == entry.name && r.exec_model == entry.model)
        else {
            return Err(vk_error!(
                vk::Result::ERROR_UNKNOWN,
                "entry point {:?} missing from the reflection",
                entry.name
            ));
        };
        let (used, uses_push) = module.facts.used_bindings(entry);
        let mut bindings: Vec<StageBinding> = rep
            .vars
            .iter()
            .filter_map(binding_of)
            .filter(|b| used.contains(&(b.set, b.binding)))
            .map(|mut b| {
                if b.descriptor_type == vk::DescriptorType::UNIFORM_BUFFER
                    && module.facts.is_buffer_block(b.set, b.binding)
                {
                    b.descriptor_type = vk::DescriptorType::STORAGE_BUFFER;
                }
                b
            })
            .collect();
        bindings.sort();
        let push_constants = if uses_push { push_range(rep) } else { None };
        let workgroup_size = is_workgroup_model(entry.model)
            .then(|| {
                module
                    .facts
                    .workgroup_size_builtin(&specialization)
                    .or_else(|| local_size(rep))
                    .or(entry.local_size)
                    .or_else(|| {
                        entry
                            .local_size_id
                            .and_then(|ids| module.facts.local_size_id(ids, &specialization))
                    })
            })
            .flatten();
        Ok(ShaderStage {
            stage: request.stage,
            flags: request.flags,
            entry_point: entry.name.clone(),
            execution_model: entry.model,
            workgroup_size,
            bindings,
            push_constants,
            specialization,
            required_subgroup_size: request.required_subgroup_size,
            module,
        })
    }

    /// 32-byte key: code hash, entry point, stage, flags, specialization, subgroup size.
    pub fn key(&self) -> [u8; 32] {
        let mut h = Sha256::new();
        h.update(self.module.hash());
        h.update(self.entry_point.as_bytes());
        h.update([0]);
        h.update(self.stage.as_raw().to_le_bytes());
        h.update(self.flags.as_raw().to_le_bytes());
        for (id, bytes) in &self.specialization {
            h.update(id.to_le_bytes());
            h.update((bytes.len() as u32).to_le_bytes());
            h.update(bytes);
        }
        match self.required_subgroup_size {
            Some(s) => h.update([&[1u8][..], &s.to_le_bytes()].concat()),
            None => h.update([0u8]),
        }
        h.finalize().into()
    }
}

/// The stage's module: its handle's, or maintenance5's inline `VkShaderModuleCreateInfo`.
///
/// # Safety
/// `info`'s chain and module handle are valid.
unsafe fn stage_module(
    info: &vk::PipelineShaderStageCreateInfo<'_>,
) -> Result<Arc<SpirvModule>, vk::Result> {
    if info.module != vk::ShaderModule::null() {
        // SAFETY: a valid module handle (VUID-VkPipelineShaderStageCreateInfo-module-parameter).
        return match unsafe { ShaderModule::from_handle(info.module) } {
            Some(m) => Ok(m.code.clone()),
            None => Err(vk_error!(
                vk::Result::ERROR_UNKNOWN,
                "not a shader module of this driver"
            )),
        };
    }
    // SAFETY: the caller's valid chain.
    let inline = unsafe {
        find_in_chain::<vk::ShaderModuleCreateInfo<'_>>(
            info.p_next,
            vk::StructureType::SHADER_MODULE_CREATE_INFO,
        )
    };
    if let Some(inline) = inline {
        // SAFETY: `pCode` holds `codeSize` bytes (VUID-VkShaderModuleCreateInfo-pCode-parameter).
        return unsafe { super::module::parse_create_info(inline) }.map(Arc::new);
    }
    // SAFETY: the caller's valid chain.
    let identified = unsafe {
        find_in_chain::<vk::PipelineShaderStageModuleIdentifierCreateInfoEXT<'_>>(
            info.p_next,
            vk::StructureType::PIPELINE_SHADER_STAGE_MODULE_IDENTIFIER_CREATE_INFO_EXT,
        )
    };
    if identified.is_some() {
        log::debug!("a stage by module identifier: compile required (no identifier cache)");
        return Err(vk::Result::PIPELINE_COMPILE_REQUIRED);
    }
    Err(vk_error!(
        vk::Result::ERROR_UNKNOWN,
        "stage without a module or an inline VkShaderModuleCreateInfo (VUID-VkPipelineShaderStageCreateInfo-stage-06845)"
    ))
}

/// `(constant_id, bytes)` of a `VkSpecializationInfo`, bounds-checked.
///
/// # Safety
/// `p` is null or a valid specialization info.
unsafe fn specialization_entries(
    p: *const vk::SpecializationInfo<'_>,
) -> Result<Vec<(u32, Vec<u8>)>, vk::Result> {
    // SAFETY: the caller's valid structure.
    let Some(s) = (unsafe { p.as_ref() }) else {
        return Ok(Vec::new());
    };
    let data: &[u8] = if s.data_size == 0 || s.p_data.is_null() {
        &[]
    } else {
        // SAFETY: non-null `pData` holds `dataSize` bytes
        // (VUID-VkSpecializationInfo-pData-parameter); u8 has no alignment.
        unsafe { std::slice::from_raw_parts(s.p_data.cast::<u8>(), s.data_size) }
    };
    // SAFETY: `pMapEntries` holds `mapEntryCount` entries.
    let entries = unsafe { slice(s.p_map_entries, s.map_entry_count) };
    entries
        .iter()
        .map(|e| {
            let (at, n) = (e.offset as usize, e.size);
            match data.get(at..at.saturating_add(n)) {
                Some(b) if matches!(n, 1 | 2 | 4 | 8) => Ok((e.constant_id, b.to_vec())),
                _ => Err(vk_error!(
                    vk::Result::ERROR_UNKNOWN,
                    "specialization constant {}: {n} bytes at {at} of {} (VUID-VkSpecializationInfo-offset-00773)",
                    e.constant_id,
                    data.len()
                )),
            }
        })
        .collect()
}

/// Every specialization constant of the module with the stage's value or its default.
fn specialize(
    module: &SpirvModule,
    given: &[(u32, Vec<u8>)],
) -> Result<Vec<(u32, Vec<u8>)>, vk::Result> {
    let mut out = Vec::with_capacity(module.facts.spec_constants.len());
    for c in &module.facts.spec_constants {
        // The last entry of an id wins, as a later map entry overrides an earlier one.
        let value = match given.iter().rev().find(|(id, _)| *id == c.spec_id) {
            Some((_, b)) if b.len() != c.size => {
                return Err(vk_error!(
                    vk::Result::ERROR_UNKNOWN,
                    "specialization constant {} is {} bytes, the map entry gives {} (VUID-VkSpecializationMapEntry-constantID-00776)",
                    c.spec_id,
                    c.size,
                    b.len()
                ))
            }
            Some((_, b)) => b.clone(),
            None => c.default.clone(),
        };
        out.push((c.spec_id, value));
    }
    Ok(out)
}

fn binding_of(v: &Variable) -> Option<StageBinding> {
    let Variable::Descriptor {
        desc_bind,
        desc_ty,
        nbind,
        ..
    } = v
    else {
        return None;
    };
    let descriptor_type = match desc_ty {
        DescriptorType::Sampler() => vk::DescriptorType::SAMPLER,
        DescriptorType::CombinedImageSampler() => vk::DescriptorType::COMBINED_IMAGE_SAMPLER,
        DescriptorType::SampledImage() => vk::DescriptorType::SAMPLED_IMAGE,
        DescriptorType::StorageImage(_) => vk::DescriptorType::STORAGE_IMAGE,
        DescriptorType::UniformTexelBuffer() => vk::DescriptorType::UNIFORM_TEXEL_BUFFER,
        DescriptorType::StorageTexelBuffer(_) => vk::DescriptorType::STORAGE_TEXEL_BUFFER,
        DescriptorType::UniformBuffer() => vk::DescriptorType::UNIFORM_BUFFER,
        DescriptorType::StorageBuffer(_) => vk::DescriptorType::STORAGE_BUFFER,
        DescriptorType::InputAttachment(_) => vk::DescriptorType::INPUT_ATTACHMENT,
        DescriptorType::AccelStruct() => vk::DescriptorType::ACCELERATION_STRUCTURE_KHR,
    };
    Some(StageBinding {
        set: desc_bind.set(),
        binding: desc_bind.bind(),
        descriptor_type,
        count: *nbind,
    })
}

/// The bytes of every push-constant block of the module (a module normally has one; with
/// several, for different entry points, their union).
fn push_range(ep: &EntryPoint) -> Option<Range<u32>> {
    let mut range: Option<Range<u32>> = None;
    for v in &ep.vars {
        let Variable::PushConstant { ty, .. } = v else {
            continue;
        };
        let spirq::ty::Type::Struct(s) = ty else {
            continue;
        };
        for m in &s.members {
            let start = m.offset.unwrap_or(0) as u32;
            let end = start + m.ty.nbyte().unwrap_or(0) as u32;
            range = Some(match range {
                None => start..end,
                Some(r) => r.start.min(start)..r.end.max(end),
            });
        }
    }
    range
}

/// `LocalSize` / `LocalSizeId` as `spirq` evaluated them (specialized).
fn local_size(ep: &EntryPoint) -> Option<[u32; 3]> {
    use spirq::spirv::ExecutionMode as M;
    let mode = ep
        .exec_modes
        .iter()
        .find(|m| matches!(m.exec_mode, M::LocalSize | M::LocalSizeId))?;
    let v = |k: usize| match mode.operands.get(k).map(|c| &c.value) {
        Some(ConstantValue::U32(x)) => Some(*x),
        Some(ConstantValue::S32(x)) => u32::try_from(*x).ok(),
        _ => None,
    };
    Some([v(0)?, v(1)?, v(2)?])
}

fn is_workgroup_model(m: ExecutionModel) -> bool {
    // GLCompute, TaskNV, MeshNV, TaskEXT, MeshEXT.
    matches!(m as u32, 5 | 5267 | 5268 | 5364 | 5365)
}

/// The Vulkan stage of an execution model (raw values: the KHR/NV aliases share them).
pub fn stage_of(m: ExecutionModel) -> Option<vk::ShaderStageFlags> {
    use vk::ShaderStageFlags as S;
    Some(match m as u32 {
        0 => S::VERTEX,
        1 => S::TESSELLATION_CONTROL,
        2 => S::TESSELLATION_EVALUATION,
        3 => S::GEOMETRY,
        4 => S::FRAGMENT,
        5 => S::COMPUTE,
        5267 | 5364 => S::TASK_EXT,
        5268 | 5365 => S::MESH_EXT,
        5313 => S::RAYGEN_KHR,
        5314 => S::INTERSECTION_KHR,
        5315 => S::ANY_HIT_KHR,
        5316 => S::CLOSEST_HIT_KHR,
        5317 => S::MISS_KHR,
        5318 => S::CALLABLE_KHR,
        _ => return None,
    })
}
