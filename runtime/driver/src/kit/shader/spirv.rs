//! [`SpirvModule`]: a SPIR-V binary, validated once (`binary`), with its instruction
//! stream and what reflection needs from it.
//!
//! [`SpirvModule::instructions`] cannot fail: each [`Instruction`](super::Instruction) is an opcode
//! and its operand words, in module order, which is how a CPU executor walks the code
//! (`spirv_headers::Op::from_u32(opcode)` names it). Reflection
//! (`facts`, and `spirq` for types and descriptors) runs once here too, with the
//! module's default specialization, so a module `spirq` cannot read fails at
//! `vkCreateShaderModule` rather than at the first pipeline.

use sha2::{Digest, Sha256};

use super::binary::{self, Instructions, SpirvError};
use super::facts::Facts;
use super::reflect;

/// A validated SPIR-V module (see the module docs).
pub struct SpirvModule {
    words: Box<[u32]>,
    hash: [u8; 32],
    pub(super) facts: Facts,
    /// `spirq`'s reflection with the module's default specialization.
    pub(super) reflected: Vec<spirq::entry_point::EntryPoint>,
}

impl std::fmt::Debug for SpirvModule {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_struct("SpirvModule")
            .field("words", &self.words.len())
            .field("version", &format_args!("1.{}", self.minor_version()))
            .field("entry_points", &self.facts.entry_points)
            .finish()
    }
}

impl SpirvModule {
    /// Validates `words` (see the module docs) and reflects the module.
    pub fn parse(words: &[u32]) -> Result<SpirvModule, SpirvError> {
        binary::check(words)?;
        let hash: [u8; 32] = Sha256::new()
            .chain_update(words_as_bytes(words))
            .finalize()
            .into();
        let mut module = SpirvModule {
            words: words.into(),
            hash,
            facts: Facts::default(),
            reflected: Vec::new(),
        };
        module.facts = Facts::gather(module.minor_version(), module.instructions())?;
        module.reflected = reflect::reflect(&module.words, &[])?;
        Ok(module)
    }

    /// [`SpirvModule::parse`] of `vkShaderModuleCreateInfo`-style bytes (little-endian words).
    pub fn parse_bytes(bytes: &[u8]) -> Result<SpirvModule, SpirvError> {
        if !bytes.len().is_multiple_of(4) {
            return Err(SpirvError::Unaligned(bytes.len()));
        }
        let words: Vec<u32> = bytes
            .chunks_exact(4)
            .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
            .collect();
        Self::parse(&words)
    }

    pub fn words(&self) -> &[u32] {
        &self.words
    }

    /// A 32-byte identity of the code (SHA-256 of its bytes), for caches and stage keys.
    pub fn hash(&self) -> [u8; 32] {
        self.hash
    }

    /// The `N` of SPIR-V 1.N.
    pub fn minor_version(&self) -> u32 {
        (self.words[1] >> 8) & 0xff
    }

    /// The id bound of the header (every id is below it).
    pub fn bound(&self) -> u32 {
        self.words[3]
    }

    /// Every instruction after the header, in order.
    pub fn instructions(&self) -> Instructions<'_> {
        binary::instructions(&self.words)
    }

    /// The module's entry points: name and execution model, in declaration order.
    pub fn entry_points(&self) -> impl Iterator<Item = (&str, spirq::spirv::ExecutionModel)> {
        self.facts
            .entry_points
            .iter()
            .map(|e| (e.name.as_str(), e.model))
    }
}

fn words_as_bytes(words: &[u32]) -> Vec<u8> {
    words.iter().flat_map(|w| w.to_le_bytes()).collect()
}
