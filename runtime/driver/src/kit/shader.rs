// STAND-IN for shader's module (contract)
//! Shader modules, resolved pipeline stages and pipeline caches — a stand-in with the
//! contract's shape so `kit::pipeline` builds and tests before the shader helper's module
//! lands (it replaces this file). Its SPIR-V "parse" reads only the header, the entry points
//! and `LocalSize`; bindings are left empty.

#![allow(clippy::missing_safety_doc)]

use std::collections::HashSet;
use std::hash::{Hash, Hasher};
use std::sync::{Arc, Mutex};

use vkgen_generated::vk;

use crate::handles::{Object, ObjectKind};
use crate::util::{find_in_chain, lock, slice};

#[derive(Debug)]
pub struct SpirvError(pub &'static str);

pub struct SpirvModule {
    words: Vec<u32>,
}

impl SpirvModule {
    pub fn parse(words: &[u32]) -> Result<SpirvModule, SpirvError> {
        if words.len() < 5 || words[0] != 0x0723_0203 {
            return Err(SpirvError("no SPIR-V header"));
        }
        Ok(SpirvModule {
            words: words.to_vec(),
        })
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }

    pub fn hash(&self) -> [u8; 32] {
        hash32(|h| self.words.hash(h))
    }

    /// `(execution model, name, function id)` of each `OpEntryPoint`, and `LocalSize` per id.
    fn entry(&self, name: &str) -> Option<(u32, Option<[u32; 3]>)> {
        let mut model = None;
        let mut size = None;
        let mut i = 5;
        while i < self.words.len() {
            let (op, n) = (self.words[i] & 0xffff, (self.words[i] >> 16) as usize);
            let ins = self.words.get(i..i + n.max(1))?;
            if op == 15 && ins.len() >= 4 {
                let bytes: Vec<u8> = ins[3..].iter().flat_map(|w| w.to_le_bytes()).collect();
                let s = bytes.split(|&b| b == 0).next().unwrap_or_default();
                if s == name.as_bytes() {
                    model = Some((ins[1], ins[2]));
                }
            }
            if op == 16 && ins.len() >= 6 && ins[2] == 17 {
                if let Some((_, id)) = model.filter(|m| m.1 == ins[1]) {
                    let _ = id;
                    size = Some([ins[3], ins[4], ins[5]]);
                }
            }
            i += n.max(1);
        }
        model.map(|(m, _)| (m, size))
    }
}

fn hash32(f: impl Fn(&mut std::collections::hash_map::DefaultHasher)) -> [u8; 32] {
    let mut out = [0u8; 32];
    for (i, chunk) in out.chunks_mut(8).enumerate() {
        let mut h = std::collections::hash_map::DefaultHasher::new();
        i.hash(&mut h);
        f(&mut h);
        chunk.copy_from_slice(&h.finish().to_le_bytes());
    }
    out
}

pub struct ShaderModule {
    pub code: Arc<SpirvModule>,
}

impl ObjectKind for ShaderModule {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::SHADER_MODULE;
}

impl ShaderModule {
    pub unsafe fn from_handle<'a>(h: vk::ShaderModule) -> Option<&'a Self> {
        // SAFETY: the caller's null or live handle; the signature is checked.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum ExecutionModel {
    Vertex,
    TessellationControl,
    TessellationEvaluation,
    Geometry,
    Fragment,
    GLCompute,
    Other(u32),
}

#[derive(Clone, Debug)]
pub struct StageBinding {
    pub set: u32,
    pub binding: u32,
    pub descriptor_type: vk::DescriptorType,
    pub count: u32,
}

#[derive(Clone)]
pub struct ShaderStage {
    pub stage: vk::ShaderStageFlags,
    pub flags: vk::PipelineShaderStageCreateFlags,
    pub module: Arc<SpirvModule>,
    pub entry_point: String,
    pub execution_model: ExecutionModel,
    pub workgroup_size: Option<[u32; 3]>,
    pub bindings: Vec<StageBinding>,
    pub push_constants: Option<std::ops::Range<u32>>,
    pub specialization: Vec<(u32, Vec<u8>)>,
    pub required_subgroup_size: Option<u32>,
}

impl ShaderStage {
    pub unsafe fn from_create_info(
        info: &vk::PipelineShaderStageCreateInfo<'_>,
    ) -> Result<ShaderStage, vk::Result> {
        // SAFETY: the application's valid chain and handle (the caller's promise).
        let module = match unsafe { ShaderModule::from_handle(info.module) } {
            Some(m) => m.code.clone(),
            None => {
                // SAFETY: the stage's `pNext` chain is the application's, valid for the call.
                let inline = unsafe {
                    find_in_chain::<vk::ShaderModuleCreateInfo<'_>>(
                        info.p_next,
                        vk::StructureType::SHADER_MODULE_CREATE_INFO,
                    )
                }
                .ok_or(vk::Result::ERROR_UNKNOWN)?;
                // SAFETY: `codeSize` bytes of code.
                let words = unsafe { slice(inline.p_code, (inline.code_size / 4) as u32) };
                Arc::new(SpirvModule::parse(words).map_err(|_| vk::Result::ERROR_UNKNOWN)?)
            }
        };
        // SAFETY: a valid NUL-terminated name.
        let name = unsafe { std::ffi::CStr::from_ptr(info.p_name) }
            .to_string_lossy()
            .into_owned();
        let (model, size) = module.entry(&name).ok_or(vk::Result::ERROR_UNKNOWN)?;
        let execution_model = match model {
            0 => ExecutionModel::Vertex,
            1 => ExecutionModel::TessellationControl,
            2 => ExecutionModel::TessellationEvaluation,
            3 => ExecutionModel::Geometry,
            4 => ExecutionModel::Fragment,
            5 => ExecutionModel::GLCompute,
            m => ExecutionModel::Other(m),
        };
        let mut specialization = Vec::new();
        // SAFETY: a valid specialization info or null.
        if let Some(s) = unsafe { info.p_specialization_info.as_ref() } {
            // SAFETY: `mapEntryCount` entries over `dataSize` bytes.
            let data = unsafe { slice(s.p_data.cast::<u8>(), s.data_size as u32) };
            // SAFETY: `pMapEntries` holds `mapEntryCount` entries (VkSpecializationInfo's VUIDs).
            for e in unsafe { slice(s.p_map_entries, s.map_entry_count) } {
                let r = e.offset as usize..e.offset as usize + e.size;
                specialization.push((e.constant_id, data.get(r).unwrap_or_default().to_vec()));
            }
        }
        Ok(ShaderStage {
            stage: info.stage,
            flags: info.flags,
            module,
            entry_point: name,
            execution_model,
            workgroup_size: size,
            bindings: Vec::new(),
            push_constants: None,
            specialization,
            required_subgroup_size: None,
        })
    }

    pub fn key(&self) -> [u8; 32] {
        hash32(|h| {
            self.module.words.hash(h);
            self.entry_point.hash(h);
            self.stage.as_raw().hash(h);
            self.flags.as_raw().hash(h);
            self.specialization.hash(h);
        })
    }
}

#[derive(Default)]
pub struct PipelineCache {
    keys: Mutex<HashSet<[u8; 32]>>,
}

impl ObjectKind for PipelineCache {
    const OBJECT_TYPE: vk::ObjectType = vk::ObjectType::PIPELINE_CACHE;
}

impl PipelineCache {
    pub unsafe fn from_handle<'a>(h: vk::PipelineCache) -> Option<&'a Self> {
        // SAFETY: the caller's null or live handle; the signature is checked.
        unsafe { Object::<Self>::from_handle(h) }.map(|o| &**o)
    }

    pub fn lookup_or_insert(&self, key: &[u8; 32], data: &[u8]) -> bool {
        let _ = data;
        !lock(&self.keys).insert(*key)
    }
}
