//! A SPIR-V compute-shader executor for a CPU Vulkan device.
//!
//! Design: [`Program::new`] decodes one compute entry point once (at `vkCreateComputePipelines`)
//! into a compact register IR (`ir`): every SSA id owns a fixed range of 64-bit registers holding
//! its flattened scalars, every pointer is one register (`memory` region + byte offset) whose
//! pointee layout is known statically, and constants (specialization applied) live in a register
//! template copied once per invocation state. Anything the decoder does not understand is a
//! [`Refusal`] naming it, so a pipeline either runs exactly or is refused at creation.
//! [`Program::dispatch`] runs workgroups on scoped OS threads (`sched`); the invocations of one
//! workgroup run on one thread as resumable states so `OpControlBarrier` needs no OS threads.

mod address;
mod alu;
mod decode;
mod ir;
mod layout;
mod lower;
mod lower_dot;
mod lower_ext;
mod lower_group;
mod lower_psb;
mod memory;
mod run;
mod sched;
mod vecops;
mod verify;

pub use decode::SUPPORTED_CAPABILITIES;

/// Why a module is refused at pipeline creation; the text names what is missing.
#[derive(Debug, thiserror::Error)]
pub enum Refusal {
    #[error("capability {0} is not supported")]
    Capability(String),
    #[error("instruction {0} is not supported")]
    Instruction(String),
    #[error("{0}")]
    Unsupported(String),
    #[error("malformed SPIR-V: {0}")]
    Malformed(String),
    #[error("no compute entry point named {0}")]
    NoEntryPoint(String),
}

/// A runtime failure of a dispatch. Out-of-bounds access and missing bindings are not traps
/// (robust buffer access); these are the cases where no defined result exists.
#[derive(Debug, thiserror::Error)]
pub enum Trap {
    #[error("OpUnreachable was executed")]
    Unreachable,
    #[error("atomic access at a misaligned address")]
    MisalignedAtomic,
    #[error("call depth exceeded {0}")]
    CallDepth(usize),
    #[error("an invocation exceeded the step budget of {0} instructions")]
    Budget(u64),
    #[error("internal executor error: {0}")]
    Internal(String),
}

/// A host memory range a buffer descriptor resolves to: the bound buffer's memory plus the
/// descriptor's offset (and any dynamic offset), `len` its range (for `VK_WHOLE_SIZE` the rest of
/// the buffer). Every access is bounds-checked against it and OpArrayLength is computed from it.
///
/// Whoever creates a `Span` (an implementor of [`Resources`]) promises that `ptr..ptr+len` stays
/// valid for reads and writes by any thread for the whole dispatch; the executor never touches a
/// byte outside it.
#[derive(Clone, Copy, Debug)]
pub struct Span {
    pub ptr: *mut u8,
    pub len: usize,
}

// SAFETY: a Span is only an address range; the contract above makes the memory it names valid
// from every thread of a dispatch, and all concurrent access to it goes through the bounds-checked
// loads, stores and real atomics of `memory`.
unsafe impl Send for Span {}
// SAFETY: as for Send: sharing the range description between threads is what a dispatch does.
unsafe impl Sync for Span {}

/// The bound descriptors and push constants of one dispatch.
///
/// # Safety
/// Every [`Span`] returned by `buffer` or `address_range` must be valid for reads and writes of
/// `len` bytes from any thread until `dispatch` returns (the Vulkan rule that bound memory
/// outlives the submission gives the driver exactly this; for device addresses, the rule that
/// a buffer whose address a shader uses stays alive and bound to memory).
pub unsafe trait Resources: Sync {
    fn buffer(&self, set: u32, binding: u32, element: u32) -> Option<Span>;
    fn push_constants(&self) -> &[u8];
    /// The live buffer memory containing device address `addr` (bufferDeviceAddress: the device
    /// address of a buffer is its host address), or None where no buffer holds it — the shader's
    /// access then reads 0 or is dropped. The default resolves nothing.
    fn address_range(&self, addr: u64) -> Option<Span> {
        let _ = addr;
        None
    }
}

/// The subgroup operation classes the executor runs (subgroup size 1).
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct SubgroupOps {
    pub basic: bool,
    pub vote: bool,
    pub arithmetic: bool,
    pub ballot: bool,
    pub shuffle: bool,
    pub shuffle_relative: bool,
    pub clustered: bool,
    pub quad: bool,
}

impl SubgroupOps {
    /// The classes as `VkSubgroupFeatureFlags` bits (BASIC = 1 … QUAD = 0x80: fixed by the
    /// Vulkan registry), for the driver's `subgroupSupportedOperations`.
    pub const fn vk_bits(&self) -> u32 {
        let classes = [
            self.basic,
            self.vote,
            self.arithmetic,
            self.ballot,
            self.shuffle,
            self.shuffle_relative,
            self.clustered,
            self.quad,
        ];
        let mut bits = 0;
        let mut i = 0;
        while i < classes.len() {
            if classes[i] {
                bits |= 1 << i;
            }
            i += 1;
        }
        bits
    }
}

/// What the executor runs, for the driver's honest feature bits.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Supported {
    pub int64: bool,
    pub int16: bool,
    pub int8: bool,
    pub float64: bool,
    pub float16: bool,
    pub storage_buffer_16bit: bool,
    pub storage_buffer_8bit: bool,
    pub uniform_16bit: bool,
    pub push_constant_16bit: bool,
    pub storage_buffer_8bit_uniform: bool,
    pub push_constant_8bit: bool,
    pub variable_pointers: bool,
    pub subgroup_size: u32,
    pub subgroup_operations: SubgroupOps,
    pub vulkan_memory_model: bool,
    pub vulkan_memory_model_device_scope: bool,
    pub shader_float_atomics: bool,
    pub int64_atomics: bool,
    /// Workgroup memory is zeroed (and `OpVariable` initializers applied) per workgroup.
    pub zero_initialize_workgroup_memory: bool,
    /// Descriptor arrays must have a fixed size (no RuntimeDescriptorArray).
    pub runtime_descriptor_array: bool,
    /// Largest workgroup (invocations) `dispatch` accepts.
    pub max_workgroup_invocations: u32,
    /// PhysicalStorageBuffer pointers resolved through [`Resources::address_range`].
    pub buffer_device_address: bool,
    /// OpSDot/OpUDot/OpSUDot and their AccSat forms, on vectors and 4x8-bit packed scalars.
    pub integer_dot_product: bool,
}

impl Supported {
    /// The Vulkan feature bits these answers decide, by their registry names (as
    /// `VkPhysicalDevice*Features` spell them), for a driver's feature table.
    pub const fn vulkan_features(&self) -> [(&'static str, bool); 15] {
        [
            ("shaderInt64", self.int64),
            ("shaderInt16", self.int16),
            ("shaderFloat64", self.float64),
            ("shaderInt8", self.int8),
            ("shaderFloat16", self.float16),
            ("storageBuffer16BitAccess", self.storage_buffer_16bit),
            ("uniformAndStorageBuffer16BitAccess", self.uniform_16bit),
            ("storagePushConstant16", self.push_constant_16bit),
            ("storageBuffer8BitAccess", self.storage_buffer_8bit),
            (
                "uniformAndStorageBuffer8BitAccess",
                self.storage_buffer_8bit_uniform,
            ),
            ("storagePushConstant8", self.push_constant_8bit),
            ("shaderBufferInt64Atomics", self.int64_atomics),
            ("shaderSharedInt64Atomics", self.int64_atomics),
            ("variablePointersStorageBuffer", self.variable_pointers),
            ("variablePointers", self.variable_pointers),
        ]
    }
}

/// Exactly what the implementation runs — no more.
pub const SUPPORTED: Supported = Supported {
    int64: true,
    int16: true,
    int8: true,
    float64: true,
    float16: true,
    storage_buffer_16bit: true,
    storage_buffer_8bit: true,
    uniform_16bit: true,
    push_constant_16bit: true,
    storage_buffer_8bit_uniform: true,
    push_constant_8bit: true,
    variable_pointers: false,
    subgroup_size: 1,
    subgroup_operations: SubgroupOps {
        basic: true,
        vote: true,
        arithmetic: true,
        ballot: true,
        shuffle: true,
        shuffle_relative: true,
        clustered: true,
        quad: false,
    },
    vulkan_memory_model: true,
    vulkan_memory_model_device_scope: true,
    shader_float_atomics: false,
    int64_atomics: true,
    zero_initialize_workgroup_memory: true,
    runtime_descriptor_array: false,
    max_workgroup_invocations: 1024,
    buffer_device_address: true,
    integer_dot_product: true,
};

/// A compute entry point decoded once and run many times.
pub struct Program {
    pub(crate) ir: ir::Module,
}

impl Program {
    /// Decodes `entry_point` from `instructions` ((opcode, operand words) in module order, as the
    /// kit's validated stream gives them), applying `specialization` ((constant_id, little-endian
    /// bytes)).
    pub fn new<'a>(
        instructions: impl IntoIterator<Item = (u16, &'a [u32])>,
        entry_point: &str,
        specialization: &[(u32, Vec<u8>)],
    ) -> Result<Program, Refusal> {
        let insts: Vec<(u16, &[u32])> = instructions.into_iter().collect();
        let ir = std::panic::catch_unwind(|| decode::decode(&insts, entry_point, specialization))
            .unwrap_or_else(|_| Err(Refusal::Malformed("decoder panicked".into())))?;
        log::debug!(
            "decoded compute entry point {entry_point}: {} ops, {} registers per invocation, workgroup {:?}",
            ir.ops.len(),
            ir.template.len(),
            ir.local_size
        );
        Ok(Program { ir })
    }

    /// Decodes a whole SPIR-V binary (header included); a convenience for tests and tools.
    pub fn from_words(
        words: &[u32],
        entry_point: &str,
        specialization: &[(u32, Vec<u8>)],
    ) -> Result<Program, Refusal> {
        let insts = decode::split_words(words)?;
        Program::new(insts, entry_point, specialization)
    }

    /// LocalSize / LocalSizeId (or the WorkgroupSize built-in constant) with specialization applied.
    pub fn workgroup_size(&self) -> [u32; 3] {
        self.ir.local_size
    }

    /// (set, binding, array_count) of every buffer resource the entry point uses. The count is
    /// never 0: runtime descriptor arrays are refused.
    pub fn bindings(&self) -> &[(u32, u32, u32)] {
        &self.ir.bindings
    }

    /// Bytes of workgroup (shared) memory one workgroup uses.
    pub fn workgroup_memory_bytes(&self) -> usize {
        self.ir.wg_init.len()
    }

    /// Limits the taken branches of one invocation (default 2^32); past it dispatch returns
    /// `Trap::Budget` instead of spinning forever on a runaway loop.
    pub fn set_branch_budget(&mut self, branches: u64) {
        self.ir.branch_budget = branches;
    }

    /// Runs workgroups `base..base+count` spread over `threads` OS threads (1 = this thread).
    pub fn dispatch(
        &self,
        resources: &dyn Resources,
        base: [u32; 3],
        count: [u32; 3],
        threads: usize,
    ) -> Result<(), Trap> {
        sched::dispatch(&self.ir, resources, base, count, threads)
    }
}

/// The decoded ops, one per line (for debugging a pipeline).
impl std::fmt::Debug for Program {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        writeln!(
            f,
            "Program {{ local_size: {:?}, registers: {}, entry: {} }}",
            self.ir.local_size,
            self.ir.template.len(),
            self.ir.entry_pc
        )?;
        for (pc, op) in self.ir.ops.iter().enumerate() {
            writeln!(f, "{pc:5}: {op:?}")?;
        }
        Ok(())
    }
}

// Program holds only owned, immutable decoded data.
const _: fn() = || {
    fn check<T: Send + Sync>() {}
    check::<Program>();
};
