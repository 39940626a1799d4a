//! Lowering: types and constants at module level, then function bodies into `ir::Op`s.
//!
//! Why labels are patched afterwards: branches and calls may name blocks and functions that
//! appear later, and OpPhi copies belong to the predecessor's edge, so edges and calls are
//! emitted with ids and resolved in `fixup` once every label has a pc.

use crate::decode::{bad, op_name, word, Dec, REGION_ARENA};
use crate::ir::{Edge, Op, Reg};
use crate::layout::{reg_count, scalar_of, Layout, Scalar, Ty};
use crate::Refusal;
use spirv::Op as S;
use std::collections::{HashMap, HashSet};

pub struct Lowered {
    pub ops: Vec<Op>,
    pub func_pc: HashMap<u32, u32>,
    pub max_depth: usize,
}

/// OpPhi copies (dst, src, count) per (predecessor label, block label).
type PhiCopies = HashMap<(u32, u32), Vec<(Reg, Reg, u32)>>;

#[derive(Default)]
pub struct Fn {
    pub ops: Vec<Op>,
    label_pc: HashMap<u32, u32>,
    phi: PhiCopies,
    pub cur_label: u32,
    cur_fn: u32,
    func_pc: HashMap<u32, u32>,
    params: HashMap<u32, Vec<(Reg, u32)>>,
    calls: Vec<(usize, u32, u32)>,
    /// Function variables only ever loaded and stored whole: they live in registers.
    promotable: HashSet<u32>,
    promoted: HashMap<u32, (Reg, u32)>,
}

/// Function-storage variables whose id appears only as the pointer of OpLoad/OpStore (never in
/// an access chain, call, phi or copy): glslang's unoptimised output keeps every local in one,
/// and a register copy is far cheaper than a bounds-checked memory access.
fn promotable(insts: &[(u16, &[u32])]) -> HashSet<u32> {
    let (mut cands, mut escaped) = (HashSet::new(), HashSet::new());
    for &(code, ops) in insts {
        match S::from_u32(code as u32) {
            Some(S::Variable) if ops.len() >= 3 => drop(cands.insert(ops[1])),
            Some(S::Load) => {}
            Some(S::Store) => drop(ops.get(1).map(|v| escaped.insert(*v))),
            Some(S::Line | S::NoLine) => {}
            _ => escaped.extend(ops.iter().filter(|w| cands.contains(*w)).copied()),
        }
    }
    cands.retain(|v| !escaped.contains(v));
    cands
}

/// Types, constants and OpUndef outside functions.
pub fn module_value(d: &mut Dec, op: S, code: u16, ops: &[u32]) -> Result<(), Refusal> {
    match op {
        S::TypeVoid => drop(d.types.insert(word(ops, 0)?, Ty::Void)),
        S::TypeBool => drop(d.types.insert(word(ops, 0)?, Ty::Scalar(Scalar::Bool))),
        S::TypeInt => {
            let w = word(ops, 1)?;
            if ![8, 16, 32, 64].contains(&w) {
                return Err(Refusal::Unsupported(format!("{w}-bit integers")));
            }
            d.types
                .insert(word(ops, 0)?, Ty::Scalar(Scalar::Int(w as u8)));
        }
        S::TypeFloat => {
            let w = word(ops, 1)?;
            if ![16, 32, 64].contains(&w) || ops.len() > 2 {
                return Err(Refusal::Unsupported(format!("{w}-bit float encoding")));
            }
            d.types
                .insert(word(ops, 0)?, Ty::Scalar(Scalar::Float(w as u8)));
        }
        S::TypeVector => {
            let (s, _) = scalar_of(&d.types, word(ops, 1)?)?;
            let n = word(ops, 2)?;
            if !(2..=16).contains(&n) {
                return Err(bad("vector size"));
            }
            d.types.insert(word(ops, 0)?, Ty::Vector(s, n));
        }
        S::TypeMatrix => {
            let col = word(ops, 1)?;
            if !matches!(d.types.get(&col), Some(Ty::Vector(Scalar::Float(_), _))) {
                return Err(bad("matrix column type"));
            }
            let cols = word(ops, 2)?.clamp(1, 16);
            d.types.insert(word(ops, 0)?, Ty::Matrix { col, cols });
        }
        S::TypeArray => {
            let (elem, len) = (word(ops, 1)?, d.const_value(word(ops, 2)?)? as u32);
            crate::layout::ty(&d.types, elem)?;
            if len == 0 {
                return Err(bad("array of length 0"));
            }
            d.types.insert(word(ops, 0)?, Ty::Array { elem, len });
        }
        S::TypeRuntimeArray => {
            crate::layout::ty(&d.types, word(ops, 1)?)?;
            d.types.insert(
                word(ops, 0)?,
                Ty::RuntimeArray {
                    elem: word(ops, 1)?,
                },
            );
        }
        S::TypeStruct => {
            for &m in &ops[1..] {
                crate::layout::ty(&d.types, m)?;
            }
            d.types.insert(word(ops, 0)?, Ty::Struct(ops[1..].to_vec()));
        }
        S::TypePointer => {
            let c = word(ops, 1)?;
            let class = spirv::StorageClass::from_u32(c)
                .ok_or_else(|| bad(format!("storage class {c}")))?;
            d.types.insert(
                word(ops, 0)?,
                Ty::Pointer {
                    class,
                    pointee: word(ops, 2)?,
                },
            );
        }
        S::TypeFunction => drop(d.types.insert(word(ops, 0)?, Ty::Function)),
        S::TypeForwardPointer => crate::lower_psb::forward_pointer(d, ops)?,
        S::TypeImage | S::TypeSampler | S::TypeSampledImage => {
            return Err(Refusal::Unsupported(op_name(code)))
        }
        _ => return module_constant(d, op, code, ops),
    }
    Ok(())
}

/// Constants, specialization constants and OpUndef outside functions.
fn module_constant(d: &mut Dec, op: S, code: u16, ops: &[u32]) -> Result<(), Refusal> {
    match op {
        S::ConstantTrue | S::ConstantFalse | S::SpecConstantTrue | S::SpecConstantFalse => {
            if !matches!(d.types.get(&word(ops, 0)?), Some(Ty::Scalar(Scalar::Bool))) {
                return Err(bad("boolean constant of a non-boolean type"));
            }
            let r = d.alloc(word(ops, 1)?, word(ops, 0)?)?;
            let mut v = matches!(op, S::ConstantTrue | S::SpecConstantTrue) as u64;
            if let Some(bytes) = spec_bytes(
                d,
                word(ops, 1)?,
                matches!(op, S::SpecConstantTrue | S::SpecConstantFalse),
            ) {
                v = bytes.iter().any(|&b| b != 0) as u64;
            }
            d.template[r as usize] = v;
            d.consts.insert(word(ops, 1)?);
        }
        S::Constant | S::SpecConstant => scalar_constant(d, ops, op == S::SpecConstant)?,
        S::ConstantComposite | S::SpecConstantComposite => {
            let (ty, id) = (word(ops, 0)?, word(ops, 1)?);
            let r = d.alloc(id, ty)? as usize;
            let mut at = r;
            for &c in &ops[2..] {
                let (src, n) = (
                    d.reg(c)? as usize,
                    reg_count(&d.types, d.type_of(c)?, 0)? as usize,
                );
                for k in 0..n {
                    let v = d.template[src + k];
                    if let Some(slot) = d.template.get_mut(at + k) {
                        *slot = v;
                    }
                }
                at += n;
            }
            d.consts.insert(id);
            if d.builtin.get(&id) == Some(&spirv::BuiltIn::WorkgroupSize) {
                d.wg_size_const = Some(id);
            }
        }
        S::ConstantNull | S::Undef => {
            d.alloc(word(ops, 1)?, word(ops, 0)?)?;
            d.consts.insert(word(ops, 1)?);
        }
        S::SpecConstantOp => spec_constant_op(d, ops)?,
        _ => return Err(Refusal::Instruction(op_name(code))),
    }
    Ok(())
}

fn spec_bytes<'b>(d: &Dec<'b>, id: u32, is_spec: bool) -> Option<&'b [u8]> {
    if !is_spec {
        return None;
    }
    let sid = d.spec_id.get(&id)?;
    d.spec
        .iter()
        .find(|(k, _)| k == sid)
        .map(|(_, v)| v.as_slice())
}

fn scalar_constant(d: &mut Dec, ops: &[u32], spec: bool) -> Result<(), Refusal> {
    let (ty, id) = (word(ops, 0)?, word(ops, 1)?);
    let (s, n) = scalar_of(&d.types, ty)?;
    if n != 1 || s == Scalar::Bool {
        return Err(bad("OpConstant of a non-scalar type"));
    }
    let mut v = word(ops, 2)? as u64 | (ops.get(3).copied().unwrap_or(0) as u64) << 32;
    if let Some(bytes) = spec_bytes(d, id, spec) {
        let mut b = [0u8; 8];
        let k = bytes.len().min(8);
        b[..k].copy_from_slice(&bytes[..k]);
        v = u64::from_le_bytes(b);
    }
    let r = d.alloc(id, ty)?;
    d.template[r as usize] = crate::alu::mask(v, s.width());
    d.consts.insert(id);
    Ok(())
}

/// Folds an OpSpecConstantOp by lowering its inner op and running it on the template.
fn spec_constant_op(d: &mut Dec, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, code) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?);
    let inner = S::from_u32(code).ok_or_else(|| Refusal::Instruction(format!("opcode {code}")))?;
    let mut args = vec![ty, id];
    args.extend_from_slice(&ops[3..]);
    let mut f = Fn::default();
    if !crate::lower_ext::pure(d, &mut f, inner, &args)? {
        return Err(Refusal::Instruction(format!(
            "OpSpecConstantOp {}",
            op_name(code as u16)
        )));
    }
    for op in &f.ops {
        if !crate::verify::fits(op, d.template.len()) {
            return Err(bad("OpSpecConstantOp operands disagree with their types"));
        }
        crate::run::exec_pure(op, &mut d.template).map_err(|e| bad(e.to_string()))?;
    }
    d.consts.insert(id);
    Ok(())
}

/// Lowers every function; returns the op array with labels and calls resolved.
pub fn lower_functions(d: &mut Dec, insts: &[(u16, &[u32])]) -> Result<Lowered, Refusal> {
    let mut f = Fn {
        promotable: promotable(insts),
        ..Fn::default()
    };
    let mut ret_tys: HashMap<u32, u32> = HashMap::new();
    for &(code, ops) in insts {
        let op = S::from_u32(code as u32).ok_or_else(|| Refusal::Instruction(op_name(code)))?;
        match op {
            S::Function => {
                f.cur_fn = word(ops, 1)?;
                ret_tys.insert(f.cur_fn, word(ops, 0)?);
                f.func_pc.insert(f.cur_fn, f.ops.len() as u32);
                f.params.entry(f.cur_fn).or_default();
            }
            S::FunctionParameter => {
                let (ty, id) = (word(ops, 0)?, word(ops, 1)?);
                let r = d.alloc(id, ty)?;
                if let Some(Ty::Pointer { pointee, .. }) = d.types.get(&ty).cloned() {
                    let l = d.layout_of(pointee)?;
                    d.ptr_layout.insert(id, l);
                }
                let n = reg_count(&d.types, ty, 0)?;
                f.params.entry(f.cur_fn).or_default().push((r, n));
            }
            S::FunctionEnd => f.cur_fn = 0,
            S::Label => {
                f.cur_label = word(ops, 0)?;
                f.label_pc.insert(f.cur_label, f.ops.len() as u32);
            }
            _ if f.cur_fn == 0 => return Err(bad(format!("{} outside a function", op_name(code)))),
            _ => body(d, &mut f, op, code, ops)?,
        }
    }
    fixup(f)
}

fn edge(f: &Fn, to: u32) -> Edge {
    Edge {
        pc: to,
        from: f.cur_label,
        copies: Box::new([]),
    }
}

pub(crate) fn body(d: &mut Dec, f: &mut Fn, op: S, code: u16, ops: &[u32]) -> Result<(), Refusal> {
    if crate::lower_psb::body(d, f, op, code, ops)? || crate::lower_dot::body(d, f, op, ops)? {
        return Ok(());
    }
    if crate::lower_ext::pure(d, f, op, ops)? || crate::lower_ext::extended(d, f, op, ops)? {
        return Ok(());
    }
    match op {
        S::Line | S::NoLine | S::Nop | S::LoopMerge | S::SelectionMerge | S::Name => {}
        S::Undef => drop(d.alloc(word(ops, 1)?, word(ops, 0)?)?),
        S::Phi => phi(d, f, ops)?,
        S::Branch => {
            let e = edge(f, word(ops, 0)?);
            f.ops.push(Op::Branch(e));
        }
        S::BranchConditional => {
            let c = d.reg(word(ops, 0)?)?;
            let (t, e) = (edge(f, word(ops, 1)?), edge(f, word(ops, 2)?));
            f.ops.push(Op::CondBranch { c, t, f: e });
        }
        S::Switch => switch(d, f, ops)?,
        S::Return => f.ops.push(Op::Return),
        S::ReturnValue => {
            let v = word(ops, 0)?;
            let (src, n) = (d.reg(v)?, reg_count(&d.types, d.type_of(v)?, 0)?);
            f.ops.push(Op::ReturnValue { src, n });
        }
        S::Unreachable => f.ops.push(Op::Unreachable),
        S::FunctionCall => function_call(d, f, ops)?,
        S::Variable => function_variable(d, f, ops)?,
        S::Load => load(d, f, ops)?,
        S::Store => store(d, f, ops)?,
        S::CopyMemory => copy_memory(d, f, ops)?,
        S::AccessChain | S::InBoundsAccessChain => access_chain(d, f, ops)?,
        S::ArrayLength => array_length(d, f, ops)?,
        S::Kill | S::TerminateInvocation | S::DemoteToHelperInvocation => {
            return Err(Refusal::Instruction(op_name(code)))
        }
        _ => return Err(Refusal::Instruction(op_name(code))),
    }
    Ok(())
}

fn phi(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id) = (word(ops, 0)?, word(ops, 1)?);
    let dst = d.alloc(id, ty)?;
    let n = reg_count(&d.types, ty, 0)?;
    for pair in ops[2..].chunks(2) {
        let (v, parent) = (pair[0], *pair.get(1).ok_or_else(|| bad("OpPhi pair"))?);
        let src = d.alloc(v, ty)?;
        d.used.insert(v);
        if let Some(&l) = d.ptr_layout.get(&v) {
            d.ptr_layout.insert(id, l);
        }
        f.phi
            .entry((parent, f.cur_label))
            .or_default()
            .push((dst, src, n));
    }
    if d.types
        .get(&ty)
        .is_some_and(|t| matches!(t, Ty::Pointer { .. }))
        && !d.ptr_layout.contains_key(&id)
    {
        return Err(Refusal::Unsupported(
            "OpPhi of pointers defined later (variable pointers)".into(),
        ));
    }
    Ok(())
}

fn switch(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let sel_id = word(ops, 0)?;
    let sel = d.reg(sel_id)?;
    let (s, _) = scalar_of(&d.types, d.type_of(sel_id)?)?;
    let step = if s.width() > 32 { 3 } else { 2 };
    let default = edge(f, word(ops, 1)?);
    let mut cases = Vec::new();
    for c in ops[2..].chunks(step) {
        if c.len() != step {
            return Err(bad("OpSwitch target list"));
        }
        let v = if step == 3 {
            c[0] as u64 | (c[1] as u64) << 32
        } else {
            c[0] as u64
        };
        cases.push((crate::alu::mask(v, s.width()), edge(f, c[step - 1])));
    }
    f.ops.push(Op::Switch {
        sel,
        w: s.width(),
        cases: cases.into(),
        default,
    });
    Ok(())
}

fn function_call(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, callee) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?);
    let dst = d.alloc(id, ty)?;
    let n = reg_count(&d.types, ty, 0)?;
    let mut args = Vec::new();
    for &a in &ops[3..] {
        args.push((0, d.reg(a)?, reg_count(&d.types, d.type_of(a)?, 0)?));
    }
    f.calls.push((f.ops.len(), callee, f.cur_fn));
    f.ops.push(Op::Call {
        func: callee,
        args: args.into(),
        dst,
        n,
    });
    Ok(())
}

fn store(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (p, v) = (word(ops, 0)?, word(ops, 1)?);
    let (ptr, src) = (d.reg(p)?, d.reg(v)?);
    if let Some(&(dst, n)) = f.promoted.get(&p) {
        if n != reg_count(&d.types, d.type_of(v)?, 0)? {
            return Err(bad("OpStore type does not match its variable"));
        }
        f.ops.push(Op::Copy { dst, src, n });
        return Ok(());
    }
    let op = store_op(d, p, ptr, src)?;
    f.ops.push(op);
    Ok(())
}

fn copy_memory(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (dp, sp) = (word(ops, 0)?, word(ops, 1)?);
    let l = *d
        .ptr_layout
        .get(&sp)
        .ok_or_else(|| bad("OpCopyMemory source"))?;
    let mut flat = Vec::new();
    d.layouts.flatten(l, 0, &mut flat)?;
    let tmp = d.const_regs(&vec![0; flat.len()]);
    let ptr = d.reg(sp)?;
    f.ops.push(Op::Load {
        dst: tmp,
        ptr,
        flat: flat.into(),
    });
    let ptr = d.reg(dp)?;
    let op = store_op(d, dp, ptr, tmp)?;
    f.ops.push(op);
    Ok(())
}

fn function_variable(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (pty, id) = (word(ops, 0)?, word(ops, 1)?);
    if word(ops, 2)? != spirv::StorageClass::Function as u32 {
        return Err(bad("OpVariable in a function must be Function storage"));
    }
    let pointee = match d.types.get(&pty) {
        Some(Ty::Pointer { pointee, .. }) => *pointee,
        _ => return Err(bad("OpVariable type")),
    };
    let r = d.alloc(id, pty)?;
    if f.promotable.contains(&id) {
        let n = reg_count(&d.types, pointee, 0)?;
        let st = d.const_regs(&vec![0; n as usize]);
        f.promoted.insert(id, (st, n));
        if let Some(&init) = ops.get(3) {
            let src = d.reg(init)?;
            f.ops.push(Op::Copy { dst: st, src, n });
        }
        return Ok(());
    }
    let off = d.reserve(pointee, REGION_ARENA)?;
    d.template[r as usize] = REGION_ARENA << 40 | off as u64;
    d.consts.insert(id);
    let l = d.layout_of(pointee)?;
    d.ptr_layout.insert(id, l);
    if let Some(&init) = ops.get(3) {
        let src = d.reg(init)?;
        let op = store_op(d, id, r, src)?;
        f.ops.push(op);
    }
    Ok(())
}

fn flat_of(d: &mut Dec, ptr_id: u32) -> Result<Vec<crate::ir::Flat>, Refusal> {
    let l = *d
        .ptr_layout
        .get(&ptr_id)
        .ok_or_else(|| bad(format!("%{ptr_id} is not a known pointer")))?;
    let mut flat = Vec::new();
    d.layouts.flatten(l, 0, &mut flat)?;
    Ok(flat)
}

pub(crate) fn load(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, p) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?);
    // PhysicalStorageBuffer pointers are plain 64-bit addresses in memory (`lower_psb`).
    if matches!(d.types.get(&ty), Some(Ty::Pointer { class, .. })
        if *class != spirv::StorageClass::PhysicalStorageBuffer)
    {
        return Err(Refusal::Unsupported(
            "loading a pointer (variable pointers)".into(),
        ));
    }
    let ptr = d.reg(p)?;
    let dst = d.alloc(id, ty)?;
    if let Some(&(src, n)) = f.promoted.get(&p) {
        if n != reg_count(&d.types, ty, 0)? {
            return Err(bad("OpLoad type does not match its variable"));
        }
        f.ops.push(Op::Copy { dst, src, n });
        return Ok(());
    }
    let flat = flat_of(d, p)?;
    if flat.len() as u32 != reg_count(&d.types, ty, 0)? {
        return Err(bad("OpLoad type does not match its pointer"));
    }
    f.ops.push(match flat.as_slice() {
        [one] if one.off == 0 => Op::LoadS {
            dst,
            ptr,
            size: one.size,
            boolean: one.boolean,
        },
        _ => Op::Load {
            dst,
            ptr,
            flat: flat.into(),
        },
    });
    Ok(())
}

fn store_op(d: &mut Dec, ptr_id: u32, ptr: Reg, src: Reg) -> Result<Op, Refusal> {
    let flat = flat_of(d, ptr_id)?;
    Ok(match flat.as_slice() {
        [one] if one.off == 0 => Op::StoreS {
            ptr,
            src,
            size: one.size,
            boolean: one.boolean,
        },
        _ => Op::Store {
            ptr,
            src,
            flat: flat.into(),
        },
    })
}

fn scalar_layout(d: &mut Dec, s: Scalar) -> usize {
    d.layouts.nodes.push(Layout::Scalar(s));
    d.layouts.nodes.len() - 1
}

pub(crate) fn access_chain(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, base_id) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?);
    if !matches!(d.types.get(&ty), Some(Ty::Pointer { .. })) {
        return Err(bad("OpAccessChain result is not a pointer"));
    }
    let mut l = *d
        .ptr_layout
        .get(&base_id)
        .ok_or_else(|| bad("OpAccessChain base is not a pointer"))?;
    let base = d.reg(base_id)?;
    let mut idx = &ops[3..];
    let mut desc = None;
    if let Some(&count) = d.desc_arrays.get(&base_id) {
        let first = *idx
            .first()
            .ok_or_else(|| Refusal::Unsupported("a pointer to a descriptor array".into()))?;
        let (s, _) = scalar_of(&d.types, d.type_of(first)?)?;
        desc = Some((d.reg(first)?, s.width(), count));
        idx = &idx[1..];
    }
    let (mut off, mut dyns) = (0u64, Vec::new());
    for &i in idx {
        let step = match d.layouts.nodes[l].clone() {
            Layout::Struct(m) => {
                let k = d.const_value(i)? as usize;
                let &(o, ml) = m
                    .get(k)
                    .ok_or_else(|| bad("struct member index out of range"))?;
                off += o as u64;
                l = ml;
                continue;
            }
            Layout::Array { elem, stride, .. } => {
                l = elem;
                stride
            }
            Layout::Vector { s, stride, .. } => {
                l = scalar_layout(d, s);
                stride
            }
            Layout::Matrix {
                s,
                rows,
                col_step,
                row_step,
                ..
            } => {
                d.layouts.nodes.push(Layout::Vector {
                    s,
                    n: rows,
                    stride: row_step,
                });
                l = d.layouts.nodes.len() - 1;
                col_step
            }
            Layout::Scalar(_) => return Err(bad("OpAccessChain indexes into a scalar")),
        };
        let (s, _) = scalar_of(&d.types, d.type_of(i)?)?;
        if d.consts.contains(&i) {
            off = off.wrapping_add(
                (crate::alu::sext(d.const_value(i)?, s.width()) as u64).wrapping_mul(step as u64),
            );
        } else {
            dyns.push((d.reg(i)?, s.width(), step as u64));
        }
    }
    let dst = d.alloc(id, ty)?;
    d.ptr_layout.insert(id, l);
    if dyns.is_empty() && desc.is_none() && d.consts.contains(&base_id) && off < 1 << 32 {
        let v = d.template.get(base as usize).copied().unwrap_or(0) + off;
        if let Some(slot) = d.template.get_mut(dst as usize) {
            *slot = v;
        }
        d.consts.insert(id);
    } else {
        f.ops.push(Op::Access {
            dst,
            base,
            off,
            dyns: dyns.into(),
            desc,
        });
    }
    Ok(())
}

fn array_length(d: &mut Dec, f: &mut Fn, ops: &[u32]) -> Result<(), Refusal> {
    let (ty, id, p, member) = (word(ops, 0)?, word(ops, 1)?, word(ops, 2)?, word(ops, 3)?);
    let l = *d
        .ptr_layout
        .get(&p)
        .ok_or_else(|| bad("OpArrayLength pointer"))?;
    let (member_off, stride) = match &d.layouts.nodes[l] {
        Layout::Struct(m) => match m.get(member as usize) {
            Some(&(o, ml)) => match d.layouts.nodes[ml] {
                Layout::Array {
                    stride, len: None, ..
                } => (o as u64, stride as u64),
                _ => return Err(bad("OpArrayLength member is not a runtime array")),
            },
            None => return Err(bad("OpArrayLength member index")),
        },
        _ => return Err(bad("OpArrayLength of a non-struct")),
    };
    let ptr = d.reg(p)?;
    let dst = d.alloc(id, ty)?;
    f.ops.push(Op::ArrayLen {
        dst,
        ptr,
        member_off,
        stride: stride.max(1),
    });
    Ok(())
}

fn resolve(e: &mut Edge, label_pc: &HashMap<u32, u32>, phi: &PhiCopies) -> Result<(), Refusal> {
    let to = e.pc;
    e.pc = *label_pc
        .get(&to)
        .ok_or_else(|| bad(format!("branch to unknown label %{to}")))?;
    if let Some(c) = phi.get(&(e.from, to)) {
        e.copies = c.clone().into();
    }
    Ok(())
}

fn fixup(mut f: Fn) -> Result<Lowered, Refusal> {
    for op in f.ops.iter_mut() {
        match op {
            Op::Branch(e) => resolve(e, &f.label_pc, &f.phi)?,
            Op::CondBranch { t, f: e, .. } => {
                resolve(t, &f.label_pc, &f.phi)?;
                resolve(e, &f.label_pc, &f.phi)?;
            }
            Op::Switch { cases, default, .. } => {
                resolve(default, &f.label_pc, &f.phi)?;
                for (_, e) in cases.iter_mut() {
                    resolve(e, &f.label_pc, &f.phi)?;
                }
            }
            _ => {}
        }
    }
    let mut graph: HashMap<u32, Vec<u32>> = HashMap::new();
    for &(at, callee, caller) in &f.calls {
        let pc = *f
            .func_pc
            .get(&callee)
            .ok_or_else(|| bad(format!("call of unknown function %{callee}")))?;
        let params = f.params.get(&callee).cloned().unwrap_or_default();
        if let Op::Call { func, args, .. } = &mut f.ops[at] {
            if args.len() != params.len() {
                return Err(bad("call argument count"));
            }
            for (a, p) in args.iter_mut().zip(&params) {
                if a.2 != p.1 {
                    return Err(bad("call argument type"));
                }
                a.0 = p.0;
            }
            *func = pc;
        }
        graph.entry(caller).or_default().push(callee);
    }
    let mut depth_memo = HashMap::new();
    let mut max_depth = 1;
    for &func in f.func_pc.keys() {
        max_depth = max_depth.max(call_depth(func, &graph, &mut depth_memo, &mut Vec::new())?);
    }
    // Falling off the last function (a block without terminator) traps instead of indexing past.
    f.ops.push(Op::Unreachable);
    Ok(Lowered {
        ops: f.ops,
        func_pc: f.func_pc,
        max_depth,
    })
}

/// Longest call chain below `func`; a cycle is recursion, which Vulkan forbids.
fn call_depth(
    func: u32,
    g: &HashMap<u32, Vec<u32>>,
    memo: &mut HashMap<u32, usize>,
    path: &mut Vec<u32>,
) -> Result<usize, Refusal> {
    if let Some(&v) = memo.get(&func) {
        return Ok(v);
    }
    if path.contains(&func) || path.len() > 256 {
        return Err(Refusal::Unsupported("recursion".into()));
    }
    path.push(func);
    let mut deepest = 0;
    for &c in g.get(&func).map(|v| v.as_slice()).unwrap_or(&[]) {
        deepest = deepest.max(call_depth(c, g, memo, path)?);
    }
    path.pop();
    memo.insert(func, deepest + 1);
    Ok(deepest + 1)
}
