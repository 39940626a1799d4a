//! What the kit reads from a module itself, in one pass over its instruction stream: entry
//! points with their execution modes and interfaces, specialization constants (id, byte size,
//! default), the `WorkgroupSize` built-in, resource variables (set, binding) and which of them
//! each function uses.
//!
//! Why not all from `spirq`: its static-use analysis follows every call path and took about a
//! second on a 400-function call chain (docs/architecture.md), and it gives neither the
//! byte size of a specialization constant (`VkSpecializationMapEntry::size` must match it)
//! nor the `WorkgroupSize` built-in. Static use here is a walk of the entry point's call tree:
//! a function "uses" a resource variable when one of its id operands names it (instructions
//! with literal operands are read only at their id positions; a literal equal to a variable's
//! id could only add a binding, never lose one). The 1.4+ interface list alone is not enough:
//! glslang lists every global there, used or not.

use std::collections::{HashMap, HashSet};

use spirq::spirv::ExecutionModel;

use super::binary::{Instruction, Instructions, SpirvError};

const OP_EXT_INST: u16 = 12;
const OP_LINE: u16 = 8;
const OP_ENTRY_POINT: u16 = 15;
const OP_EXECUTION_MODE: u16 = 16;
const OP_TYPE_BOOL: u16 = 20;
const OP_TYPE_INT: u16 = 21;
const OP_TYPE_FLOAT: u16 = 22;
const OP_TYPE_ARRAY: u16 = 28;
const OP_TYPE_RUNTIME_ARRAY: u16 = 29;
const OP_TYPE_POINTER: u16 = 32;
const OP_CONSTANT: u16 = 43;
const OP_CONSTANT_COMPOSITE: u16 = 44;
const OP_SPEC_CONSTANT_TRUE: u16 = 48;
const OP_SPEC_CONSTANT_FALSE: u16 = 49;
const OP_SPEC_CONSTANT: u16 = 50;
const OP_SPEC_CONSTANT_COMPOSITE: u16 = 51;
const OP_FUNCTION: u16 = 54;
const OP_FUNCTION_END: u16 = 56;
const OP_FUNCTION_CALL: u16 = 57;
const OP_VARIABLE: u16 = 59;
const OP_LOAD: u16 = 61;
const OP_STORE: u16 = 62;
const OP_COPY_MEMORY: u16 = 63;
const OP_COPY_MEMORY_SIZED: u16 = 64;
const OP_DECORATE: u16 = 71;
const OP_VECTOR_SHUFFLE: u16 = 79;
const OP_COMPOSITE_EXTRACT: u16 = 81;
const OP_COMPOSITE_INSERT: u16 = 82;
const OP_LOOP_MERGE: u16 = 246;
const OP_SELECTION_MERGE: u16 = 247;
const OP_SWITCH: u16 = 251;
const OP_EXECUTION_MODE_ID: u16 = 331;

const DECORATION_SPEC_ID: u32 = 1;
const DECORATION_BUFFER_BLOCK: u32 = 3;
const DECORATION_BUILT_IN: u32 = 11;
const DECORATION_BINDING: u32 = 33;
const DECORATION_DESCRIPTOR_SET: u32 = 34;
const BUILT_IN_WORKGROUP_SIZE: u32 = 25;
const MODE_LOCAL_SIZE: u32 = 17;
const MODE_LOCAL_SIZE_ID: u32 = 38;

const CLASS_UNIFORM_CONSTANT: u32 = 0;
const CLASS_UNIFORM: u32 = 2;
const CLASS_PUSH_CONSTANT: u32 = 9;
const CLASS_STORAGE_BUFFER: u32 = 12;

/// One `OpEntryPoint` and its execution modes.
#[derive(Clone, Debug)]
pub(super) struct EntryFacts {
    pub name: String,
    pub model: ExecutionModel,
    pub function: u32,
    pub interface: Vec<u32>,
    /// `LocalSize` literals, or `LocalSizeId`'s ids.
    pub local_size: Option<[u32; 3]>,
    pub local_size_id: Option<[u32; 3]>,
}

/// One specialization constant id of the module: its byte size as `VkSpecializationMapEntry`
/// gives it (`VkBool32` for booleans) and its default value in those bytes.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(super) struct SpecConstant {
    pub spec_id: u32,
    pub size: usize,
    pub default: Vec<u8>,
}

#[derive(Clone, Copy, Debug)]
enum Const {
    Literal(u32),
    Spec { spec_id: u32, default: u32 },
}

#[derive(Clone, Copy, Debug, Default)]
struct Resource {
    set: u32,
    binding: u32,
    push_constant: bool,
    /// A `Uniform` variable of a `BufferBlock` struct (or array of them): SPIR-V < 1.4's
    /// storage buffer.
    buffer_block: bool,
}

#[derive(Default, Debug)]
struct Function {
    calls: Vec<u32>,
    uses: HashSet<u32>,
}

/// See the module docs.
#[derive(Default, Debug)]
pub(super) struct Facts {
    pub entry_points: Vec<EntryFacts>,
    /// Sorted by id, one per id.
    pub spec_constants: Vec<SpecConstant>,
    minor: u32,
    consts: HashMap<u32, Const>,
    composites: HashMap<u32, Vec<u32>>,
    workgroup_size: Option<u32>,
    resources: HashMap<u32, Resource>,
    functions: HashMap<u32, Function>,
}

/// Scalar types by id: byte size as a specialization constant has it.
type Scalars = HashMap<u32, usize>;

#[derive(Default)]
struct Decorations {
    buffer_blocks: HashSet<u32>,
    /// Pointer and array types: the type they point to or hold.
    inner: HashMap<u32, u32>,
    spec_ids: HashMap<u32, u32>,
    sets: HashMap<u32, u32>,
    bindings: HashMap<u32, u32>,
}

impl Facts {
    pub(super) fn gather(minor: u32, instructions: Instructions<'_>) -> Result<Facts, SpirvError> {
        let mut f = Facts {
            minor,
            ..Facts::default()
        };
        let mut deco = Decorations::default();
        let mut scalars = Scalars::new();
        let mut current: Option<u32> = None;
        let mut vars: Vec<(u32, u32, u32)> = Vec::new();
        for i in instructions {
            let o = i.operands;
            let at = |k: usize| o.get(k).copied().unwrap_or(0);
            match i.opcode {
                OP_ENTRY_POINT => f.entry_point(&i)?,
                OP_EXECUTION_MODE | OP_EXECUTION_MODE_ID => {
                    f.execution_mode(at(0), at(1), &o[2.min(o.len())..])
                }
                OP_DECORATE => match at(1) {
                    DECORATION_SPEC_ID => drop(deco.spec_ids.insert(at(0), at(2))),
                    DECORATION_BUFFER_BLOCK => drop(deco.buffer_blocks.insert(at(0))),
                    DECORATION_DESCRIPTOR_SET => drop(deco.sets.insert(at(0), at(2))),
                    DECORATION_BINDING => drop(deco.bindings.insert(at(0), at(2))),
                    DECORATION_BUILT_IN if at(2) == BUILT_IN_WORKGROUP_SIZE => {
                        f.workgroup_size = Some(at(0))
                    }
                    _ => {}
                },
                OP_TYPE_BOOL => drop(scalars.insert(at(0), 4)),
                OP_TYPE_ARRAY | OP_TYPE_RUNTIME_ARRAY => drop(deco.inner.insert(at(0), at(1))),
                OP_TYPE_POINTER => drop(deco.inner.insert(at(0), at(2))),
                OP_TYPE_INT | OP_TYPE_FLOAT => drop(scalars.insert(at(0), (at(1) / 8) as usize)),
                OP_CONSTANT => drop(f.consts.insert(at(1), Const::Literal(at(2)))),
                OP_SPEC_CONSTANT_TRUE | OP_SPEC_CONSTANT_FALSE | OP_SPEC_CONSTANT => {
                    f.spec_constant(&deco, &scalars, i.opcode, o)
                }
                OP_CONSTANT_COMPOSITE | OP_SPEC_CONSTANT_COMPOSITE if o.len() >= 2 => {
                    f.composites.insert(o[1], o[2..].to_vec());
                }
                OP_VARIABLE if current.is_none() => {
                    if let CLASS_UNIFORM_CONSTANT
                    | CLASS_UNIFORM
                    | CLASS_PUSH_CONSTANT
                    | CLASS_STORAGE_BUFFER = at(2)
                    {
                        vars.push((at(1), at(2), at(0)));
                    }
                }
                OP_FUNCTION => {
                    current = Some(at(1));
                    f.functions.entry(at(1)).or_default();
                    // Globals precede every function: the resource set is complete now.
                    f.add_resources(&deco, &mut vars);
                }
                OP_FUNCTION_END => current = None,
                op => {
                    if let Some(func) = current {
                        f.note_use(func, op, o);
                    }
                }
            }
        }
        f.add_resources(&deco, &mut vars);
        f.spec_constants.sort_by_key(|s| s.spec_id);
        f.spec_constants.dedup_by_key(|s| s.spec_id);
        Ok(f)
    }

    fn entry_point(&mut self, i: &Instruction<'_>) -> Result<(), SpirvError> {
        let bad = || SpirvError::Malformed(format!("OpEntryPoint at word {}", i.offset));
        let model = i
            .operands
            .first()
            .and_then(|&m| ExecutionModel::from_u32(m))
            .ok_or_else(bad)?;
        let function = *i.operands.get(1).ok_or_else(bad)?;
        let (name, next) = i.string(2).ok_or_else(bad)?;
        self.entry_points.push(EntryFacts {
            name,
            model,
            function,
            interface: i.operands[next..].to_vec(),
            local_size: None,
            local_size_id: None,
        });
        Ok(())
    }

    fn execution_mode(&mut self, function: u32, mode: u32, args: &[u32]) {
        let Some(xyz) = args.get(..3).map(|a| [a[0], a[1], a[2]]) else {
            return;
        };
        for e in self
            .entry_points
            .iter_mut()
            .filter(|e| e.function == function)
        {
            match mode {
                MODE_LOCAL_SIZE => e.local_size = Some(xyz),
                MODE_LOCAL_SIZE_ID => e.local_size_id = Some(xyz),
                _ => {}
            }
        }
    }

    fn spec_constant(&mut self, deco: &Decorations, scalars: &Scalars, opcode: u16, o: &[u32]) {
        let (Some(&ty), Some(&id)) = (o.first(), o.get(1)) else {
            return;
        };
        let value = match opcode {
            OP_SPEC_CONSTANT_TRUE => 1,
            OP_SPEC_CONSTANT_FALSE => 0,
            _ => o.get(2).copied().unwrap_or(0),
        };
        let Some(&spec_id) = deco.spec_ids.get(&id) else {
            self.consts.insert(id, Const::Literal(value));
            return;
        };
        self.consts.insert(
            id,
            Const::Spec {
                spec_id,
                default: value,
            },
        );
        let size = scalars.get(&ty).copied().unwrap_or(4).clamp(1, 8);
        let default: Vec<u8> = o
            .get(2..)
            .filter(|_| opcode == OP_SPEC_CONSTANT)
            .map_or_else(
                || value.to_le_bytes().to_vec(),
                |w| w.iter().flat_map(|x| x.to_le_bytes()).collect(),
            );
        let mut default = default;
        default.resize(size, 0);
        self.spec_constants.push(SpecConstant {
            spec_id,
            size,
            default,
        });
    }

    fn add_resources(&mut self, deco: &Decorations, vars: &mut Vec<(u32, u32, u32)>) {
        for (id, class, ty) in vars.drain(..) {
            // Pointer → (arrays →) struct; bounded, as a malformed module may loop.
            let mut t = ty;
            for _ in 0..8 {
                match deco.inner.get(&t) {
                    Some(&inner) => t = inner,
                    None => break,
                }
            }
            self.resources.insert(
                id,
                Resource {
                    set: deco.sets.get(&id).copied().unwrap_or(0),
                    binding: deco.bindings.get(&id).copied().unwrap_or(0),
                    push_constant: class == CLASS_PUSH_CONSTANT,
                    buffer_block: class == CLASS_UNIFORM && deco.buffer_blocks.contains(&t),
                },
            );
        }
    }

    /// Whether the variable at `(set, binding)` is a SPIR-V < 1.4 storage buffer (`Uniform` +
    /// `BufferBlock`), which `spirq` misreads as a uniform buffer when it is a runtime array.
    pub(super) fn is_buffer_block(&self, set: u32, binding: u32) -> bool {
        self.resources
            .values()
            .any(|r| r.buffer_block && r.set == set && r.binding == binding)
    }

    fn note_use(&mut self, function: u32, opcode: u16, o: &[u32]) {
        let Some(func) = self.functions.get_mut(&function) else {
            return;
        };
        if opcode == OP_FUNCTION_CALL {
            if let Some(&callee) = o.get(2) {
                func.calls.push(callee);
            }
        }
        for w in id_operands(opcode, o) {
            if self.resources.contains_key(w) {
                func.uses.insert(*w);
            }
        }
    }

    /// The resource variables (descriptors and push constants) `entry` statically uses: those
    /// its call tree names (and, from SPIR-V 1.4, that its interface lists — glslang lists every
    /// global there, used or not, so the interface alone over-reports).
    fn used(&self, entry: &EntryFacts) -> HashSet<u32> {
        let mut used = HashSet::new();
        let mut seen = HashSet::new();
        let mut todo = vec![entry.function];
        while let Some(f) = todo.pop() {
            if !seen.insert(f) {
                continue;
            }
            if let Some(func) = self.functions.get(&f) {
                used.extend(func.uses.iter().copied());
                todo.extend(func.calls.iter().copied());
            }
        }
        if self.minor >= 4 {
            used.retain(|id| entry.interface.contains(id));
        }
        used
    }

    /// `(set, binding)` of every descriptor `entry` uses, and whether it uses push constants.
    pub(super) fn used_bindings(&self, entry: &EntryFacts) -> (HashSet<(u32, u32)>, bool) {
        let mut push = false;
        let mut bindings = HashSet::new();
        for id in self.used(entry) {
            let r = self.resources[&id];
            if r.push_constant {
                push = true;
            } else {
                bindings.insert((r.set, r.binding));
            }
        }
        (bindings, push)
    }

    /// The value of a 32-bit scalar constant `id`, specialized by `spec`.
    fn value(&self, id: u32, spec: &[(u32, Vec<u8>)]) -> Option<u32> {
        match *self.consts.get(&id)? {
            Const::Literal(v) => Some(v),
            Const::Spec { spec_id, default } => Some(
                spec.iter()
                    .find(|(s, _)| *s == spec_id)
                    .map_or(default, |(_, b)| {
                        let mut w = [0u8; 4];
                        let n = b.len().min(4);
                        w[..n].copy_from_slice(&b[..n]);
                        u32::from_le_bytes(w)
                    }),
            ),
        }
    }

    /// The `WorkgroupSize` built-in's value, specialized (it overrides `LocalSize{,Id}`).
    pub(super) fn workgroup_size_builtin(&self, spec: &[(u32, Vec<u8>)]) -> Option<[u32; 3]> {
        let parts = self.composites.get(&self.workgroup_size?)?;
        let v = |k: usize| parts.get(k).and_then(|&id| self.value(id, spec));
        Some([v(0)?, v(1)?, v(2)?])
    }

    /// `LocalSizeId`'s value from the kit's own constants (spirq resolves the same ids through
    /// `OpSpecConstantOp` too; this is the fallback).
    pub(super) fn local_size_id(&self, ids: [u32; 3], spec: &[(u32, Vec<u8>)]) -> Option<[u32; 3]> {
        Some([
            self.value(ids[0], spec)?,
            self.value(ids[1], spec)?,
            self.value(ids[2], spec)?,
        ])
    }
}

/// The operands of an instruction in a function body that may be ids: all of them, except
/// where an instruction carries literals that could equal a variable's id.
fn id_operands(opcode: u16, o: &[u32]) -> &[u32] {
    let range = match opcode {
        OP_LOAD => 2..3,
        OP_STORE | OP_COPY_MEMORY => 0..2,
        OP_COPY_MEMORY_SIZED => 0..3,
        OP_COMPOSITE_EXTRACT => 2..3,
        OP_COMPOSITE_INSERT | OP_VECTOR_SHUFFLE => 2..4,
        OP_EXT_INST => 4..o.len(),
        OP_SWITCH => 0..1,
        OP_LOOP_MERGE | OP_SELECTION_MERGE | OP_LINE => 0..0,
        _ => 0..o.len(),
    };
    o.get(range.start.min(o.len())..range.end.min(o.len()))
        .unwrap_or(&[])
}
