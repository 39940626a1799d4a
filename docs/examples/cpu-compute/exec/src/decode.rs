//! Module-level decoding: capabilities, entry point, decorations, types, constants, globals.
//!
//! Why a single pass: SPIR-V's logical layout puts annotations before types and types before
//! functions, so every fact a later instruction needs is known when it arrives. Anything outside
//! the allow-lists below is refused here with its name, before a single op is lowered.

use crate::ir::{BuiltinKind, Module, Reg};
use crate::layout::{reg_count, LayoutDecor, Layouts, Scalar, Ty};
use crate::Refusal;
use spirv::{BuiltIn, Capability, Decoration, Op, StorageClass};
use std::collections::{HashMap, HashSet};

pub const REGION_PUSH: u64 = 1;
pub const REGION_WG: u64 = 2;
pub const REGION_ARENA: u64 = 3;
pub const REGION_INPUT: u64 = 4;
pub const FIRST_BUFFER: u64 = 5;

/// Every capability a module may declare; anything else is refused by name.
pub const SUPPORTED_CAPABILITIES: &[Capability] = &[
    Capability::Shader,
    Capability::Matrix,
    Capability::Int64,
    Capability::Int16,
    Capability::Int8,
    Capability::Float64,
    Capability::Float16,
    Capability::StorageBuffer16BitAccess,
    Capability::UniformAndStorageBuffer16BitAccess,
    Capability::StoragePushConstant16,
    Capability::StorageBuffer8BitAccess,
    Capability::UniformAndStorageBuffer8BitAccess,
    Capability::StoragePushConstant8,
    Capability::Int64Atomics,
    Capability::GroupNonUniform,
    Capability::GroupNonUniformVote,
    Capability::GroupNonUniformArithmetic,
    Capability::GroupNonUniformBallot,
    Capability::GroupNonUniformShuffle,
    Capability::GroupNonUniformShuffleRelative,
    Capability::GroupNonUniformClustered,
    Capability::VulkanMemoryModel,
    Capability::VulkanMemoryModelDeviceScope,
    Capability::ShaderNonUniform,
    Capability::DenormPreserve,
    Capability::SignedZeroInfNanPreserve,
    Capability::RoundingModeRTE,
    Capability::PhysicalStorageBufferAddresses,
    Capability::DotProduct,
    Capability::DotProductInputAll,
    Capability::DotProductInput4x8Bit,
    Capability::DotProductInput4x8BitPacked,
];

const EXTENSIONS: &[&str] = &[
    "SPV_KHR_storage_buffer_storage_class",
    "SPV_KHR_16bit_storage",
    "SPV_KHR_8bit_storage",
    "SPV_KHR_vulkan_memory_model",
    "SPV_KHR_non_semantic_info",
    "SPV_KHR_float_controls",
    "SPV_KHR_shader_ballot",
    "SPV_EXT_descriptor_indexing",
    "SPV_GOOGLE_user_type",
    "SPV_GOOGLE_decorate_string",
    "SPV_GOOGLE_hlsl_functionality1",
    "SPV_KHR_physical_storage_buffer",
    "SPV_EXT_physical_storage_buffer",
    "SPV_KHR_integer_dot_product",
];

/// Decoder state shared by module-level decoding and function lowering.
pub struct Dec<'a> {
    pub types: HashMap<u32, Ty>,
    pub id_ty: HashMap<u32, u32>,
    pub regs: HashMap<u32, Reg>,
    pub template: Vec<u64>,
    pub dec: LayoutDecor,
    pub layouts: Layouts,
    pub ptr_layout: HashMap<u32, usize>,
    pub builtin: HashMap<u32, BuiltIn>,
    pub set: HashMap<u32, u32>,
    pub binding: HashMap<u32, u32>,
    pub spec_id: HashMap<u32, u32>,
    pub spec: &'a [(u32, Vec<u8>)],
    pub desc_arrays: HashMap<u32, u32>,
    pub glsl_set: Option<u32>,
    pub ignored_sets: HashSet<u32>,
    pub bindings: Vec<(u32, u32, u32)>,
    pub binding_regions: Vec<u32>,
    pub binding_vars: Vec<u32>,
    pub next_region: u64,
    pub wg_init: Vec<u8>,
    pub arena_init: Vec<u8>,
    pub builtins: Vec<(u32, BuiltinKind)>,
    pub input_size: usize,
    pub entry_fn: Option<u32>,
    pub entry_name: String,
    pub local_size: [u32; 3],
    pub local_size_id: Option<[u32; 3]>,
    pub wg_size_const: Option<u32>,
    pub used: HashSet<u32>,
    pub consts: HashSet<u32>,
}

pub fn bad(s: impl Into<String>) -> Refusal {
    Refusal::Malformed(s.into())
}

pub fn word(ops: &[u32], i: usize) -> Result<u32, Refusal> {
    ops.get(i).copied().ok_or_else(|| bad("missing operand"))
}

/// A nul-terminated literal string starting at word `i`, and the word after it.
pub fn string(ops: &[u32], i: usize) -> Result<(String, usize), Refusal> {
    let mut bytes = Vec::new();
    for (k, w) in ops.iter().enumerate().skip(i) {
        for b in w.to_le_bytes() {
            if b == 0 {
                return Ok((String::from_utf8_lossy(&bytes).into_owned(), k + 1));
            }
            bytes.push(b);
        }
    }
    Err(bad("unterminated string"))
}

/// Splits a SPIR-V binary into (opcode, operands) after checking the header.
pub fn split_words(words: &[u32]) -> Result<Vec<(u16, &[u32])>, Refusal> {
    if words.len() < 5 || words[0] != 0x0723_0203 {
        return Err(bad("not a SPIR-V binary (magic)"));
    }
    let mut out = Vec::new();
    let mut i = 5;
    while i < words.len() {
        let n = (words[i] >> 16) as usize;
        if n == 0 || i + n > words.len() {
            return Err(bad(format!("bad instruction length at word {i}")));
        }
        out.push((words[i] as u16, &words[i + 1..i + n]));
        i += n;
    }
    Ok(out)
}

pub fn op_name(code: u16) -> String {
    match Op::from_u32(code as u32) {
        Some(op) => format!("Op{op:?}"),
        None => format!("opcode {code}"),
    }
}

/// Decodes `insts` into the executable module for `entry`.
pub fn decode(
    insts: &[(u16, &[u32])],
    entry: &str,
    spec: &[(u32, Vec<u8>)],
) -> Result<Module, Refusal> {
    let mut d = Dec::new(spec, entry);
    let mut i = 0;
    while i < insts.len() && insts[i].0 != Op::Function as u16 {
        let (code, ops) = insts[i];
        d.module_inst(code, ops)?;
        i += 1;
    }
    let entry_fn = d
        .entry_fn
        .ok_or_else(|| Refusal::NoEntryPoint(entry.to_string()))?;
    let lowered = crate::lower::lower_functions(&mut d, &insts[i..])?;
    d.finish(entry_fn, lowered)
}

impl<'a> Dec<'a> {
    fn new(spec: &'a [(u32, Vec<u8>)], entry: &str) -> Self {
        Dec {
            types: HashMap::new(),
            id_ty: HashMap::new(),
            regs: HashMap::new(),
            template: vec![0],
            dec: LayoutDecor::default(),
            layouts: Layouts::default(),
            ptr_layout: HashMap::new(),
            builtin: HashMap::new(),
            set: HashMap::new(),
            binding: HashMap::new(),
            spec_id: HashMap::new(),
            spec,
            desc_arrays: HashMap::new(),
            glsl_set: None,
            ignored_sets: HashSet::new(),
            bindings: Vec::new(),
            binding_regions: Vec::new(),
            binding_vars: Vec::new(),
            next_region: FIRST_BUFFER,
            wg_init: Vec::new(),
            arena_init: Vec::new(),
            builtins: Vec::new(),
            input_size: 0,
            entry_fn: None,
            entry_name: entry.to_string(),
            local_size: [1, 1, 1],
            local_size_id: None,
            wg_size_const: None,
            used: HashSet::new(),
            consts: HashSet::new(),
        }
    }

    /// The register range of `id`, allocating it (as type `ty`) on first sight.
    pub fn alloc(&mut self, id: u32, ty: u32) -> Result<Reg, Refusal> {
        if let Some(&r) = self.regs.get(&id) {
            // Only an OpPhi's forward reference allocates early, with the same type.
            if self.id_ty.get(&id) != Some(&ty) {
                return Err(bad(format!("%{id} defined twice with different types")));
            }
            return Ok(r);
        }
        let n = reg_count(&self.types, ty, 0)? as usize;
        let r = self.template.len();
        if r + n > 1 << 24 {
            return Err(Refusal::Unsupported("more than 2^24 registers".into()));
        }
        self.template.resize(r + n, 0);
        self.regs.insert(id, r as Reg);
        self.id_ty.insert(id, ty);
        Ok(r as Reg)
    }

    /// The register of an already defined id.
    pub fn reg(&mut self, id: u32) -> Result<Reg, Refusal> {
        self.used.insert(id);
        self.regs
            .get(&id)
            .copied()
            .ok_or_else(|| bad(format!("%{id} used before its definition")))
    }

    pub fn type_of(&self, id: u32) -> Result<u32, Refusal> {
        self.id_ty
            .get(&id)
            .copied()
            .ok_or_else(|| bad(format!("%{id} has no type")))
    }

    /// Fresh template registers holding `vals` (constants the lowering invents, e.g. 1).
    pub fn const_regs(&mut self, vals: &[u64]) -> Reg {
        let r = self.template.len();
        self.template.extend_from_slice(vals);
        r as Reg
    }

    /// The value of a constant scalar id (already in the template).
    pub fn const_value(&self, id: u32) -> Result<u64, Refusal> {
        let r = self
            .regs
            .get(&id)
            .ok_or_else(|| bad(format!("%{id} is not a constant")))?;
        self.template
            .get(*r as usize)
            .copied()
            .ok_or_else(|| bad(format!("%{id} is not a scalar constant")))
    }

    fn module_inst(&mut self, code: u16, ops: &[u32]) -> Result<(), Refusal> {
        let op = Op::from_u32(code as u32).ok_or_else(|| Refusal::Instruction(op_name(code)))?;
        match op {
            Op::Capability => {
                let c = word(ops, 0)?;
                let cap =
                    Capability::from_u32(c).ok_or_else(|| Refusal::Capability(format!("{c}")))?;
                if !SUPPORTED_CAPABILITIES.contains(&cap) {
                    return Err(Refusal::Capability(format!("{cap:?}")));
                }
            }
            Op::Extension => {
                let (name, _) = string(ops, 0)?;
                if !EXTENSIONS.contains(&name.as_str()) {
                    return Err(Refusal::Unsupported(format!("extension {name}")));
                }
            }
            Op::ExtInstImport => {
                let (name, _) = string(ops, 1)?;
                if name == "GLSL.std.450" {
                    self.glsl_set = Some(word(ops, 0)?);
                } else if name.starts_with("NonSemantic.") {
                    self.ignored_sets.insert(word(ops, 0)?);
                } else {
                    return Err(Refusal::Unsupported(format!(
                        "extended instruction set {name}"
                    )));
                }
            }
            Op::MemoryModel => {
                use spirv::AddressingModel as A;
                let am = word(ops, 0)?;
                if am != A::Logical as u32 && am != A::PhysicalStorageBuffer64 as u32 {
                    return Err(Refusal::Unsupported(
                        "addressing model other than Logical or PhysicalStorageBuffer64".into(),
                    ));
                }
            }
            Op::EntryPoint => self.entry_point(ops)?,
            Op::ExecutionMode | Op::ExecutionModeId => {
                self.execution_mode(ops, op == Op::ExecutionModeId)?
            }
            Op::Source
            | Op::SourceContinued
            | Op::SourceExtension
            | Op::Name
            | Op::MemberName
            | Op::String
            | Op::Line
            | Op::NoLine
            | Op::ModuleProcessed
            | Op::Nop
            | Op::DecorateString
            | Op::MemberDecorateString => {}
            Op::Decorate | Op::DecorateId => self.decorate(ops)?,
            Op::MemberDecorate => self.member_decorate(ops)?,
            Op::Variable => self.global_variable(ops)?,
            Op::ExtInst if self.ignored_sets.contains(&word(ops, 2)?) => {}
            _ => crate::lower::module_value(self, op, code, ops)?,
        }
        Ok(())
    }

    fn entry_point(&mut self, ops: &[u32]) -> Result<(), Refusal> {
        let (name, _) = string(ops, 2)?;
        if word(ops, 0)? == spirv::ExecutionModel::GLCompute as u32 && name == self.entry_name {
            self.entry_fn = Some(word(ops, 1)?);
        }
        Ok(())
    }

    fn execution_mode(&mut self, ops: &[u32], ids: bool) -> Result<(), Refusal> {
        if Some(word(ops, 0)?) != self.entry_fn {
            return Ok(());
        }
        let mode = word(ops, 1)?;
        use spirv::ExecutionMode as M;
        match M::from_u32(mode) {
            Some(M::LocalSize) if !ids => {
                self.local_size = [word(ops, 2)?, word(ops, 3)?, word(ops, 4)?]
            }
            Some(M::LocalSizeId) if ids => {
                self.local_size_id = Some([word(ops, 2)?, word(ops, 3)?, word(ops, 4)?])
            }
            Some(
                M::LocalSizeHint
                | M::SignedZeroInfNanPreserve
                | M::DenormPreserve
                | M::RoundingModeRTE,
            ) => {}
            Some(m) => return Err(Refusal::Unsupported(format!("execution mode {m:?}"))),
            None => return Err(Refusal::Unsupported(format!("execution mode {mode}"))),
        }
        Ok(())
    }

    fn decorate(&mut self, ops: &[u32]) -> Result<(), Refusal> {
        let (id, dec) = (word(ops, 0)?, word(ops, 1)?);
        let arg = ops.get(2).copied();
        let need = |a: Option<u32>| a.ok_or_else(|| bad("decoration without its operand"));
        match Decoration::from_u32(dec) {
            Some(Decoration::BuiltIn) => {
                let b = need(arg)?;
                let b = BuiltIn::from_u32(b)
                    .ok_or_else(|| Refusal::Unsupported(format!("built-in {b}")))?;
                self.builtin.insert(id, b);
            }
            Some(Decoration::DescriptorSet) => {
                self.set.insert(id, need(arg)?);
            }
            Some(Decoration::Binding) => {
                self.binding.insert(id, need(arg)?);
            }
            Some(Decoration::SpecId) => {
                self.spec_id.insert(id, need(arg)?);
            }
            Some(Decoration::ArrayStride) => {
                self.dec.array_stride.insert(id, need(arg)?);
            }
            Some(Decoration::BufferBlock | Decoration::Block) => {}
            Some(_) => {}
            None => return Err(Refusal::Unsupported(format!("decoration {dec}"))),
        }
        Ok(())
    }

    fn member_decorate(&mut self, ops: &[u32]) -> Result<(), Refusal> {
        let key = (word(ops, 0)?, word(ops, 1)?);
        let dec = word(ops, 2)?;
        match Decoration::from_u32(dec) {
            Some(Decoration::Offset) => {
                self.dec.offset.insert(key, word(ops, 3)?);
            }
            Some(Decoration::MatrixStride) => {
                self.dec.matrix_stride.insert(key, word(ops, 3)?);
            }
            Some(Decoration::RowMajor) => {
                self.dec.row_major.insert(key, true);
            }
            Some(Decoration::ColMajor) => {
                self.dec.row_major.insert(key, false);
            }
            Some(Decoration::BuiltIn) => {
                return Err(Refusal::Unsupported("a built-in as a struct member".into()));
            }
            Some(_) => {}
            None => return Err(Refusal::Unsupported(format!("decoration {dec}"))),
        }
        Ok(())
    }

    pub fn layout_of(&mut self, ty: u32) -> Result<usize, Refusal> {
        self.layouts.of(&self.types, &self.dec, ty, None, 0)
    }

    fn pointee(&self, ptr_ty: u32) -> Result<(StorageClass, u32), Refusal> {
        match self.types.get(&ptr_ty) {
            Some(Ty::Pointer { class, pointee }) => Ok((*class, *pointee)),
            _ => Err(bad(format!("%{ptr_ty} is not a pointer type"))),
        }
    }

    /// Writes the flattened constant `init` into `mem` at `off` with the layout of `ty`.
    pub fn write_init(
        &mut self,
        ty: u32,
        init: u32,
        off: usize,
        region: u64,
    ) -> Result<(), Refusal> {
        let l = self.layout_of(ty)?;
        let mut flat = Vec::new();
        self.layouts.flatten(l, 0, &mut flat)?;
        let src = self.reg(init)? as usize;
        for (i, f) in flat.iter().enumerate() {
            let v = self.template.get(src + i).copied().unwrap_or(0);
            let mem = if region == REGION_WG {
                &mut self.wg_init
            } else {
                &mut self.arena_init
            };
            let at = off + f.off as usize;
            let bytes = v.to_le_bytes();
            if let Some(dst) = mem.get_mut(at..at + f.size as usize) {
                dst.copy_from_slice(&bytes[..f.size as usize]);
            }
        }
        Ok(())
    }

    /// Reserves `ty`'s bytes in the workgroup or arena memory; returns the offset.
    pub fn reserve(&mut self, ty: u32, region: u64) -> Result<usize, Refusal> {
        let l = self.layout_of(ty)?;
        let size = self.layouts.size(l) as usize;
        let mem = if region == REGION_WG {
            &mut self.wg_init
        } else {
            &mut self.arena_init
        };
        let off = mem.len().next_multiple_of(8);
        if off + size > 64 << 20 {
            return Err(Refusal::Unsupported(
                "more than 64 MiB of shader-local memory".into(),
            ));
        }
        mem.resize(off + size, 0);
        Ok(off)
    }

    fn global_variable(&mut self, ops: &[u32]) -> Result<(), Refusal> {
        let (pty, id) = (word(ops, 0)?, word(ops, 1)?);
        let init = ops.get(3).copied();
        let (sc, pointee) = self.pointee(pty)?;
        let r = self.alloc(id, pty)?;
        self.consts.insert(id);
        let ptr = match sc {
            StorageClass::StorageBuffer | StorageClass::Uniform => {
                self.buffer_variable(id, pointee)?
            }
            StorageClass::PushConstant => {
                let l = self.layout_of(pointee)?;
                self.ptr_layout.insert(id, l);
                REGION_PUSH << 40
            }
            StorageClass::Workgroup | StorageClass::Private => {
                let region = if sc == StorageClass::Workgroup {
                    REGION_WG
                } else {
                    REGION_ARENA
                };
                let off = self.reserve(pointee, region)?;
                if let Some(init) = init {
                    self.write_init(pointee, init, off, region)?;
                }
                let l = self.layout_of(pointee)?;
                self.ptr_layout.insert(id, l);
                region << 40 | off as u64
            }
            StorageClass::Input => self.input_variable(id, pointee)?,
            other => return Err(Refusal::Unsupported(format!("storage class {other:?}"))),
        };
        self.template[r as usize] = ptr;
        Ok(())
    }

    fn buffer_variable(&mut self, id: u32, pointee: u32) -> Result<u64, Refusal> {
        let (block, count) = match self.types.get(&pointee) {
            Some(Ty::Array { elem, len }) => (*elem, *len),
            Some(Ty::RuntimeArray { .. }) => {
                return Err(Refusal::Capability("RuntimeDescriptorArray".into()))
            }
            _ => (pointee, 0),
        };
        if !matches!(self.types.get(&block), Some(Ty::Struct(_))) {
            return Err(Refusal::Unsupported(
                "a buffer variable that is not a block".into(),
            ));
        }
        let l = self.layout_of(block)?;
        self.ptr_layout.insert(id, l);
        if count > 0 {
            self.desc_arrays.insert(id, count);
        }
        let n = count.clamp(1, 1 << 16);
        let region = self.next_region;
        self.next_region += n as u64;
        if self.next_region >= 1 << 23 {
            return Err(Refusal::Unsupported(
                "more than 2^23 buffer descriptors".into(),
            ));
        }
        let set = self.set.get(&id).copied().unwrap_or(0);
        let binding = self.binding.get(&id).copied().unwrap_or(0);
        self.bindings.push((set, binding, n));
        self.binding_regions.push(region as u32);
        self.binding_vars.push(id);
        Ok(region << 40)
    }

    fn input_variable(&mut self, id: u32, pointee: u32) -> Result<u64, Refusal> {
        let b = *self.builtin.get(&id).ok_or_else(|| {
            Refusal::Unsupported("an Input variable that is not a built-in".into())
        })?;
        let kind = match b {
            BuiltIn::GlobalInvocationId => BuiltinKind::GlobalId,
            BuiltIn::LocalInvocationId => BuiltinKind::LocalId,
            BuiltIn::LocalInvocationIndex => BuiltinKind::LocalIndex,
            BuiltIn::WorkgroupId => BuiltinKind::WorkgroupId,
            BuiltIn::NumWorkgroups => BuiltinKind::NumWorkgroups,
            BuiltIn::WorkgroupSize => BuiltinKind::WorkgroupSize,
            BuiltIn::SubgroupSize => BuiltinKind::SubgroupSize,
            BuiltIn::SubgroupLocalInvocationId => BuiltinKind::SubgroupLocalId,
            BuiltIn::SubgroupId => BuiltinKind::SubgroupId,
            BuiltIn::NumSubgroups => BuiltinKind::NumSubgroups,
            BuiltIn::SubgroupEqMask | BuiltIn::SubgroupGeMask | BuiltIn::SubgroupLeMask => {
                BuiltinKind::Mask(true)
            }
            BuiltIn::SubgroupGtMask | BuiltIn::SubgroupLtMask => BuiltinKind::Mask(false),
            other => return Err(Refusal::Unsupported(format!("built-in {other:?}"))),
        };
        let l = self.layout_of(pointee)?;
        if self.layouts.size(l) > 16 {
            return Err(Refusal::Unsupported(format!(
                "built-in {b:?} of an unexpected type"
            )));
        }
        if let Some(Ty::Vector(Scalar::Int(64), _) | Ty::Scalar(Scalar::Int(64))) =
            self.types.get(&pointee)
        {
            return Err(Refusal::Unsupported(format!("64-bit built-in {b:?}")));
        }
        self.ptr_layout.insert(id, l);
        let off = self.input_size as u32;
        self.input_size += 16;
        self.builtins.push((off, kind));
        Ok(REGION_INPUT << 40 | off as u64)
    }

    fn finish(mut self, entry_fn: u32, lowered: crate::lower::Lowered) -> Result<Module, Refusal> {
        if let Some(ids) = self.local_size_id {
            for (k, id) in ids.into_iter().enumerate() {
                self.local_size[k] = self.const_value(id)? as u32;
            }
        }
        if let Some(c) = self.wg_size_const {
            let r = self.reg(c)? as usize;
            for k in 0..3 {
                self.local_size[k] = self.template.get(r + k).copied().unwrap_or(1) as u32;
            }
        }
        let total: u64 = self
            .local_size
            .iter()
            .fold(1u64, |t, &v| t.saturating_mul(v as u64));
        if total == 0 || total > crate::SUPPORTED.max_workgroup_invocations as u64 {
            return Err(Refusal::Unsupported(format!(
                "workgroup size {:?}",
                self.local_size
            )));
        }
        let entry_pc = *lowered
            .func_pc
            .get(&entry_fn)
            .ok_or_else(|| bad("entry point function missing"))?;
        let mut used: Vec<((u32, u32, u32), u32)> = (0..self.binding_vars.len())
            .filter(|&i| self.used.contains(&self.binding_vars[i]))
            .map(|i| (self.bindings[i], self.binding_regions[i]))
            .collect();
        used.sort();
        let (bindings, regions) = used.into_iter().unzip();
        let per_inv = self.template.len() + self.arena_init.len() / 8;
        if per_inv.saturating_mul(total as usize) > 1 << 25 {
            return Err(Refusal::Unsupported(
                "more than 256 MiB of per-workgroup invocation state".into(),
            ));
        }
        let m = Module {
            ops: lowered.ops,
            entry_pc,
            template: self.template,
            local_size: self.local_size,
            bindings,
            binding_regions: regions,
            wg_init: self.wg_init,
            arena_init: self.arena_init,
            input_size: self.input_size.max(16),
            builtins: self.builtins,
            max_call_depth: lowered.max_depth,
            branch_budget: crate::run::BRANCH_BUDGET,
        };
        crate::verify::verify(&m)?;
        Ok(m)
    }
}
