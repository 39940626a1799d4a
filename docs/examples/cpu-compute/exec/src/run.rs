//! The interpreter loop of one invocation, resumable at workgroup barriers.
//!
//! Why resumable: every invocation of a workgroup runs on the same OS thread; at a workgroup
//! OpControlBarrier the loop saves its pc and returns `Stop::Barrier`, the scheduler runs the
//! other invocations up to the barrier, then resumes each. Value ops are shared with
//! specialization-constant folding (`exec_pure`).

use crate::alu::{eval, mask, sext};
use crate::ir::{CarryOp, Edge, Module, Op, Reg};
use crate::memory::{Regions, OFF_MASK};
use crate::Trap;

/// Taken branches one invocation may execute before it is stopped as a runaway loop.
pub const BRANCH_BUDGET: u64 = 1 << 32;

pub enum Stop {
    Done,
    Barrier,
}

pub struct Frame {
    ret_pc: u32,
    dst: Reg,
    n: u32,
}

pub struct Inv {
    pub pc: u32,
    pub stack: Vec<Frame>,
    pub done: bool,
    pub budget: u64,
}

#[inline]
#[allow(clippy::too_many_arguments)]
fn alu(
    op: crate::alu::AluOp,
    w: u8,
    w2: u8,
    n: u16,
    splat: u8,
    dst: Reg,
    a: &[Reg; 4],
    r: &mut [u64],
) {
    let d = dst as usize;
    if n == 1 {
        r[d] = eval(
            op,
            w,
            w2,
            r[a[0] as usize],
            r[a[1] as usize],
            r[a[2] as usize],
            r[a[3] as usize],
        );
        return;
    }
    for i in 0..n as usize {
        let arg = |k: usize| r[a[k] as usize + if splat >> k & 1 == 1 { 0 } else { i }];
        let v = eval(op, w, w2, arg(0), arg(1), arg(2), arg(3));
        r[d + i] = v;
    }
}

fn bitcast(dst: Reg, src: Reg, from_w: u8, from_n: u8, to_w: u8, r: &mut [u64]) {
    let mut bytes = [0u8; 128];
    let fb = (from_w / 8) as usize;
    for i in 0..from_n as usize {
        let v = r[src as usize + i].to_le_bytes();
        bytes[i * fb..(i + 1) * fb].copy_from_slice(&v[..fb]);
    }
    let tb = (to_w / 8) as usize;
    for i in 0..(fb * from_n as usize) / tb {
        let mut v = [0u8; 8];
        v[..tb].copy_from_slice(&bytes[i * tb..(i + 1) * tb]);
        r[dst as usize + i] = u64::from_le_bytes(v);
    }
}

fn carry(op: CarryOp, w: u8, n: u16, dst: Reg, a: Reg, b: Reg, r: &mut [u64]) {
    let n = n as usize;
    for i in 0..n {
        let (x, y) = (r[a as usize + i], r[b as usize + i]);
        let (lo, hi) = match op {
            CarryOp::IAddCarry => {
                let s = x as u128 + y as u128;
                (s as u64, (s >> w) as u64 & 1)
            }
            CarryOp::ISubBorrow => (x.wrapping_sub(y), (x < y) as u64),
            CarryOp::UMulExtended => {
                let p = x as u128 * y as u128;
                (p as u64, (p >> w) as u64)
            }
            CarryOp::SMulExtended => {
                let p = sext(x, w) as i128 * sext(y, w) as i128;
                (p as u64, (p >> w) as u64)
            }
        };
        r[dst as usize + i] = mask(lo, w);
        r[dst as usize + n + i] = mask(hi, w);
    }
}

/// Value ops (no memory, no control). Returns false for any other op.
#[inline]
pub fn value_op(op: &Op, r: &mut [u64]) -> bool {
    match op {
        Op::Alu {
            op,
            w,
            w2,
            n,
            splat,
            dst,
            a,
        } => alu(*op, *w, *w2, *n, *splat, *dst, a, r),
        Op::Copy { dst, src, n: 1 } => r[*dst as usize] = r[*src as usize],
        Op::Copy { dst, src, n } => {
            let (s, d) = (*src as usize, *dst as usize);
            r.copy_within(s..s + *n as usize, d);
        }
        Op::Gather { dst, src } => {
            for (i, &s) in src.iter().enumerate() {
                r[*dst as usize + i] = r[s as usize];
            }
        }
        Op::Select {
            dst,
            c,
            a,
            b,
            n,
            c_splat,
        } => {
            for i in 0..*n as usize {
                let cond = r[*c as usize + if *c_splat { 0 } else { i }] != 0;
                r[*dst as usize + i] = r[if cond { *a } else { *b } as usize + i];
            }
        }
        Op::ExtractDyn {
            dst,
            v,
            idx,
            idx_w,
            count,
        } => {
            let i = mask(r[*idx as usize], *idx_w);
            r[*dst as usize] = if i < *count as u64 {
                r[*v as usize + i as usize]
            } else {
                0
            };
        }
        Op::InsertDyn {
            dst,
            v,
            val,
            idx,
            idx_w,
            count,
        } => {
            let i = mask(r[*idx as usize], *idx_w);
            let (d, s) = (*dst as usize, *v as usize);
            r.copy_within(s..s + *count as usize, d);
            if i < *count as u64 {
                r[d + i as usize] = r[*val as usize];
            }
        }
        Op::Bitcast {
            dst,
            src,
            from_w,
            from_n,
            to_w,
        } => bitcast(*dst, *src, *from_w, *from_n, *to_w, r),
        Op::MatMul {
            w,
            r: rows,
            k,
            c,
            dst,
            a,
            b,
        } => crate::vecops::matmul(
            *w,
            *rows as usize,
            *k as usize,
            *c as usize,
            *dst,
            *a,
            *b,
            r,
        ),
        Op::Vec { f, w, n, dst, a } => crate::vecops::run(*f, *w, *n as usize, *dst, *a, r),
        Op::Carry {
            op,
            w,
            n,
            dst,
            a,
            b,
        } => carry(*op, *w, *n, *dst, *a, *b, r),
        Op::Dot(d) => crate::lower_dot::run(d, r),
        Op::Ballot { dst, v } => {
            let d = *dst as usize;
            r[d] = (r[*v as usize] != 0) as u64;
            r[d + 1..d + 4].fill(0);
        }
        _ => return false,
    }
    true
}

/// Runs a value op on the constant template (OpSpecConstantOp folding).
pub fn exec_pure(op: &Op, r: &mut [u64]) -> Result<(), Trap> {
    match std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| value_op(op, r))) {
        Ok(true) => Ok(()),
        Ok(false) => Err(Trap::Internal("not a constant operation".into())),
        Err(_) => Err(Trap::Internal("constant folding out of range".into())),
    }
}

#[inline(always)]
fn take(e: &Edge, r: &mut [u64], scratch: &mut Vec<u64>) -> usize {
    if !e.copies.is_empty() {
        phi_copies(&e.copies, r, scratch);
    }
    e.pc as usize
}

/// OpPhi's parallel copies: every source is read before any destination is written.
#[inline(never)]
fn phi_copies(copies: &[(Reg, Reg, u32)], r: &mut [u64], scratch: &mut Vec<u64>) {
    scratch.clear();
    for &(_, s, n) in copies {
        scratch.extend_from_slice(&r[s as usize..(s + n) as usize]);
    }
    let mut at = 0;
    for &(d, _, n) in copies {
        r[d as usize..(d + n) as usize].copy_from_slice(&scratch[at..at + n as usize]);
        at += n as usize;
    }
}

fn access(
    r: &[u64],
    base: Reg,
    off: u64,
    dyns: &[(Reg, u8, u64)],
    desc: &Option<(Reg, u8, u32)>,
) -> u64 {
    let p = r[base as usize];
    let mut region = p >> 40;
    if let Some((i, w, count)) = desc {
        let i = mask(r[*i as usize], *w);
        region = if i < *count as u64 { region + i } else { 0 };
    }
    let mut o = (p & OFF_MASK).wrapping_add(off);
    for &(reg, w, stride) in dyns {
        o = o.wrapping_add((sext(r[reg as usize], w) as u64).wrapping_mul(stride));
    }
    if o <= OFF_MASK {
        region << 40 | o
    } else {
        0
    }
}

/// Whole-value loads and stores, OpArrayLength and atomics (the rarer memory ops).
fn memory_op(op: &Op, r: &mut [u64], mem: &Regions) -> Result<(), Trap> {
    match op {
        Op::Load { dst, ptr, flat } => {
            let p = r[*ptr as usize];
            for (i, f) in flat.iter().enumerate() {
                let v = mem.load(p, f.off, f.size);
                r[*dst as usize + i] = if f.boolean { (v != 0) as u64 } else { v };
            }
        }
        Op::Store { ptr, src, flat } => {
            let p = r[*ptr as usize];
            for (i, f) in flat.iter().enumerate() {
                mem.store(p, f.off, f.size, r[*src as usize + i]);
            }
        }
        Op::ArrayLen {
            dst,
            ptr,
            member_off,
            stride,
        } => {
            let len = mem.len(r[*ptr as usize]) as u64;
            r[*dst as usize] = mask(len.saturating_sub(*member_off) / stride, 32);
        }
        Op::Atomic {
            op,
            w,
            dst,
            ptr,
            a,
            b,
        } => {
            let v = mem.atomic(*op, *w, r[*ptr as usize], r[*a as usize], r[*b as usize])?;
            r[*dst as usize] = v;
        }
        _ => return Err(Trap::Internal(format!("unexpected op {op:?}"))),
    }
    Ok(())
}

/// The edge `OpSwitch` takes for selector value `v`.
#[inline(always)]
fn case<'a>(v: u64, cases: &'a [(u64, Edge)], default: &'a Edge) -> &'a Edge {
    cases.iter().find(|c| c.0 == v).map_or(default, |c| &c.1)
}

/// Charges one taken branch to the invocation's budget.
#[inline(always)]
fn spend(inv: &mut Inv, m: &Module) -> Result<(), Trap> {
    inv.budget = inv
        .budget
        .checked_sub(1)
        .ok_or(Trap::Budget(m.branch_budget))?;
    Ok(())
}

/// `OpFunctionCall`: copies the arguments into the callee's parameters and pushes the return
/// frame; the callee's first op is the new pc.
#[inline]
fn call(
    m: &Module,
    inv: &mut Inv,
    r: &mut [u64],
    pc: usize,
    (func, args, dst, n): (u32, &[(u32, u32, u32)], u32, u32),
) -> Result<usize, Trap> {
    if inv.stack.len() > m.max_call_depth {
        return Err(Trap::CallDepth(inv.stack.len()));
    }
    for &(p, a, k) in args {
        r.copy_within(a as usize..(a + k) as usize, p as usize);
    }
    inv.stack.push(Frame {
        ret_pc: pc as u32,
        dst,
        n,
    });
    Ok(func as usize)
}

/// `OpReturn{,Value}`: the caller's pc (the value copied to its result), or `None` when the
/// entry point returned (the invocation is done).
#[inline]
fn ret(inv: &mut Inv, r: &mut [u64], op: &Op) -> Option<usize> {
    let Some(f) = inv.stack.pop() else {
        inv.done = true;
        return None;
    };
    if let Op::ReturnValue { src, n } = op {
        let k = (*n).min(f.n) as usize;
        r.copy_within(*src as usize..*src as usize + k, f.dst as usize);
    }
    Some(f.ret_pc as usize)
}

/// Runs `inv` until it returns from the entry point or reaches a workgroup barrier.
pub fn run(
    m: &Module,
    inv: &mut Inv,
    r: &mut [u64],
    mem: &mut Regions,
    scratch: &mut Vec<u64>,
) -> Result<Stop, Trap> {
    let ops = &m.ops[..];
    let mut pc = inv.pc as usize;
    // `verify` proved every register range of every op lies below the template's length and
    // every jump target below the op count (the op array ends in an Unreachable sentinel, so
    // straight-line execution cannot run past it either). These two checks make the unchecked
    // accesses below sound for this register file whatever the caller passes.
    if r.len() != m.template.len() || pc >= ops.len() {
        return Err(Trap::Internal(
            "register file does not match the program".into(),
        ));
    }
    macro_rules! reg {
        ($i:expr) => {
            // SAFETY: `verify` bounded this index by the template length, which r.len() matches.
            *unsafe { r.get_unchecked($i as usize) }
        };
    }
    macro_rules! set {
        ($i:expr, $v:expr) => {{
            let v = $v;
            // SAFETY: `verify` bounded this index by the template length, which r.len() matches.
            *unsafe { r.get_unchecked_mut($i as usize) } = v;
        }};
    }
    loop {
        // SAFETY: pc < ops.len(): it starts verified and only ever becomes a verified target,
        // a saved return pc, or the successor of a non-final op.
        let op = unsafe { ops.get_unchecked(pc) };
        pc += 1;
        match op {
            // The commonest value ops, here rather than behind `value_op`'s call.
            Op::Copy { dst, src, n: 1 } => set!(*dst, reg!(*src)),
            Op::Alu {
                op,
                w,
                w2,
                n: 1,
                dst,
                a,
                ..
            } => set!(
                *dst,
                eval(*op, *w, *w2, reg!(a[0]), reg!(a[1]), reg!(a[2]), reg!(a[3]))
            ),
            Op::LoadS {
                dst,
                ptr,
                size,
                boolean,
            } => {
                let v = mem.load(reg!(*ptr), 0, *size);
                set!(*dst, if *boolean { (v != 0) as u64 } else { v });
            }
            Op::StoreS {
                ptr,
                src,
                size,
                boolean,
            } => {
                let v = reg!(*src);
                mem.store(
                    reg!(*ptr),
                    0,
                    *size,
                    if *boolean { (v != 0) as u64 } else { v },
                );
            }
            Op::Access {
                dst,
                base,
                off,
                dyns,
                desc,
            } => set!(*dst, access(r, *base, *off, dyns, desc)),
            Op::Branch(e) => {
                pc = take(e, r, scratch);
                spend(inv, m)?;
            }
            Op::CondBranch { c, t, f } => {
                pc = take(if r[*c as usize] != 0 { t } else { f }, r, scratch);
                spend(inv, m)?;
            }
            Op::Switch {
                sel,
                w,
                cases,
                default,
            } => {
                pc = take(case(mask(r[*sel as usize], *w), cases, default), r, scratch);
                spend(inv, m)?;
            }
            Op::Call { func, args, dst, n } => pc = call(m, inv, r, pc, (*func, args, *dst, *n))?,
            Op::Return | Op::ReturnValue { .. } => match ret(inv, r, op) {
                Some(to) => pc = to,
                None => return Ok(Stop::Done),
            },
            Op::Barrier => {
                std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst);
                inv.pc = pc as u32;
                return Ok(Stop::Barrier);
            }
            Op::Fence => std::sync::atomic::fence(std::sync::atomic::Ordering::SeqCst),
            Op::Unreachable => return Err(Trap::Unreachable),
            Op::Psb(p) => crate::address::exec(p, r, mem),
            other => {
                if !value_op(other, r) {
                    memory_op(other, r, mem)?;
                }
            }
        }
    }
}
