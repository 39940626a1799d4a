//! The decoded program: a flat op array over per-invocation 64-bit registers.
//!
//! Why registers: SPIR-V ids are module-unique and Vulkan forbids recursion, so every id can own
//! a fixed register range (its flattened scalars, column-major for matrices); calls copy arguments
//! into the callee's parameter registers. Integers are kept zero-extended to their width, floats
//! as their bit pattern, booleans as 0/1, pointers as `region << 40 | byte offset`.

use crate::alu::AluOp;
use crate::vecops::VecFn;

pub type Reg = u32;

/// A register that always reads 0 (the template reserves register 0 for it).
pub const ZERO: Reg = 0;

/// One scalar of a load/store: its byte offset from the pointer and its memory size.
#[derive(Clone, Copy, Debug)]
pub struct Flat {
    pub off: u32,
    pub size: u8,
    /// Booleans occupy 4 bytes in (function/workgroup) memory and read back as 0/1.
    pub boolean: bool,
}

/// A control-flow edge: the target pc and the OpPhi parallel copies (dst, src, count) it implies.
/// While lowering, `pc` holds the target label and `from` the source label (fixup resolves both).
#[derive(Clone, Debug, Default)]
pub struct Edge {
    pub pc: u32,
    pub from: u32,
    pub copies: Box<[(Reg, Reg, u32)]>,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum AtomicOp {
    Load,
    Store,
    Exchange,
    CompareExchange,
    IAdd,
    ISub,
    SMin,
    UMin,
    SMax,
    UMax,
    And,
    Or,
    Xor,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum CarryOp {
    IAddCarry,
    ISubBorrow,
    UMulExtended,
    SMulExtended,
}

#[derive(Clone, Debug)]
pub enum Op {
    /// Component-wise scalar op; `splat` bit i makes argument i a scalar for every component.
    Alu {
        op: AluOp,
        w: u8,
        w2: u8,
        n: u16,
        splat: u8,
        dst: Reg,
        a: [Reg; 4],
    },
    Copy {
        dst: Reg,
        src: Reg,
        n: u32,
    },
    /// dst+i = src[i] (composite construct, shuffle, extract/insert of constant paths).
    Gather {
        dst: Reg,
        src: Box<[Reg]>,
    },
    Select {
        dst: Reg,
        c: Reg,
        a: Reg,
        b: Reg,
        n: u32,
        c_splat: bool,
    },
    ExtractDyn {
        dst: Reg,
        v: Reg,
        idx: Reg,
        idx_w: u8,
        count: u32,
    },
    InsertDyn {
        dst: Reg,
        v: Reg,
        val: Reg,
        idx: Reg,
        idx_w: u8,
        count: u32,
    },
    Bitcast {
        dst: Reg,
        src: Reg,
        from_w: u8,
        from_n: u8,
        to_w: u8,
    },
    /// Column-major (r x k) * (k x c).
    MatMul {
        w: u8,
        r: u16,
        k: u16,
        c: u16,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Vec {
        f: VecFn,
        w: u8,
        n: u16,
        dst: Reg,
        a: [Reg; 3],
    },
    Carry {
        op: CarryOp,
        w: u8,
        n: u16,
        dst: Reg,
        a: Reg,
        b: Reg,
    },
    Access {
        dst: Reg,
        base: Reg,
        off: u64,
        dyns: Box<[(Reg, u8, u64)]>,
        /// First index selects a descriptor-array element: (index reg, width, element count).
        desc: Option<(Reg, u8, u32)>,
    },
    LoadS {
        dst: Reg,
        ptr: Reg,
        size: u8,
        boolean: bool,
    },
    StoreS {
        ptr: Reg,
        src: Reg,
        size: u8,
        boolean: bool,
    },
    Load {
        dst: Reg,
        ptr: Reg,
        flat: Box<[Flat]>,
    },
    Store {
        ptr: Reg,
        src: Reg,
        flat: Box<[Flat]>,
    },
    ArrayLen {
        dst: Reg,
        ptr: Reg,
        member_off: u64,
        stride: u64,
    },
    Atomic {
        op: AtomicOp,
        w: u8,
        dst: Reg,
        ptr: Reg,
        a: Reg,
        b: Reg,
    },
    Branch(Edge),
    CondBranch {
        c: Reg,
        t: Edge,
        f: Edge,
    },
    Switch {
        sel: Reg,
        w: u8,
        cases: Box<[(u64, Edge)]>,
        default: Edge,
    },
    Call {
        func: u32,
        args: Box<[(Reg, Reg, u32)]>,
        dst: Reg,
        n: u32,
    },
    Return,
    ReturnValue {
        src: Reg,
        n: u32,
    },
    /// A workgroup-scope OpControlBarrier.
    Barrier,
    /// OpMemoryBarrier or a narrower-scope control barrier: a fence only.
    Fence,
    Unreachable,
    /// A PhysicalStorageBuffer address op (`address`).
    Psb(crate::address::PsbOp),
    /// An integer dot product (`lower_dot`).
    Dot(Box<crate::lower_dot::DotOp>),
    /// Subgroup ballot with subgroup size 1: (v, 0, 0, 0).
    Ballot {
        dst: Reg,
        v: Reg,
    },
}

/// A built-in input the scheduler writes per invocation, at `off` in the input region.
#[derive(Clone, Copy, Debug)]
pub enum BuiltinKind {
    GlobalId,
    LocalId,
    LocalIndex,
    WorkgroupId,
    NumWorkgroups,
    WorkgroupSize,
    SubgroupSize,
    SubgroupLocalId,
    SubgroupId,
    NumSubgroups,
    /// SubgroupEq/Ge/Le masks (bit 0 set) and Gt/Lt masks (0).
    Mask(bool),
}

/// Everything `dispatch` needs, immutable after decode.
pub struct Module {
    pub ops: Vec<Op>,
    pub entry_pc: u32,
    pub template: Vec<u64>,
    pub local_size: [u32; 3],
    pub bindings: Vec<(u32, u32, u32)>,
    /// First buffer region of each binding (parallel to `bindings`).
    pub binding_regions: Vec<u32>,
    pub wg_init: Vec<u8>,
    pub arena_init: Vec<u8>,
    pub input_size: usize,
    pub builtins: Vec<(u32, BuiltinKind)>,
    pub max_call_depth: usize,
    /// Taken branches one invocation may execute before `Trap::Budget`.
    pub branch_budget: u64,
}
