//! The SPIR-V binary layer: the header and word-count checks, and the instruction stream of a
//! checked binary. Nothing here knows about reflection; [`super::spirv`] builds on it.
//!
//! Validation is what the kit must check before any walker trusts the words: the header
//! (magic, a byte-swapped magic refused by name — the words came from a file of the other
//! endianness —, version 1.0–1.6, a non-zero id bound), then every instruction's word count
//! (non-zero, not past the end). After that, iterating [`Instructions`] cannot fail: each
//! [`Instruction`] is an opcode and its operand words, in module order.

/// SPIR-V's magic number, and what it reads as from a binary of the other endianness.
pub const MAGIC: u32 = 0x0723_0203;
const MAGIC_SWAPPED: u32 = MAGIC.swap_bytes();
/// The newest SPIR-V minor version the kit reads (1.6, what Vulkan 1.3 and 1.4 take).
pub const MAX_MINOR: u32 = 6;
pub(super) const HEADER_WORDS: usize = 5;

/// Why a binary is not SPIR-V the kit reads.
#[derive(Clone, Debug, PartialEq, Eq, thiserror::Error)]
pub enum SpirvError {
    #[error("{0} words: shorter than the 5-word SPIR-V header")]
    TooShort(usize),
    #[error("code size {0} bytes is not a multiple of 4")]
    Unaligned(usize),
    #[error("magic number {0:#010x} is byte-swapped: the binary has the other endianness")]
    ByteSwapped(u32),
    #[error("magic number {0:#010x} is not SPIR-V's (0x07230203)")]
    BadMagic(u32),
    #[error("version word {0:#010x} is not SPIR-V 1.0 to 1.{MAX_MINOR}")]
    Version(u32),
    #[error("id bound 0: no module has no ids")]
    ZeroBound,
    #[error("instruction at word {0} has word count 0")]
    ZeroWordCount(usize),
    #[error("instruction at word {at} has {count} words, past the module's end at word {len}")]
    Truncated { at: usize, count: usize, len: usize },
    #[error("malformed module: {0}")]
    Malformed(String),
}

/// One instruction: its opcode and operand words (result type and result id included, as the
/// binary has them), `offset` words into the module.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Instruction<'a> {
    pub offset: usize,
    pub opcode: u16,
    pub operands: &'a [u32],
}

impl<'a> Instruction<'a> {
    /// The opcode as `spirv::Op` (`None` for one the grammar the crate carries does not know).
    pub fn op(&self) -> Option<spirq::spirv::Op> {
        spirq::spirv::Op::from_u32(u32::from(self.opcode))
    }

    /// The literal string starting at operand `at` and the operand index after it (`None`
    /// when it has no terminating NUL or is not UTF-8).
    pub fn string(&self, at: usize) -> Option<(String, usize)> {
        let mut bytes = Vec::new();
        for (i, w) in self.operands.get(at..)?.iter().enumerate() {
            for b in w.to_le_bytes() {
                if b == 0 {
                    return Some((String::from_utf8(bytes).ok()?, at + i + 1));
                }
                bytes.push(b);
            }
        }
        None
    }
}

/// The instructions of a validated module, in order (see the module docs).
#[derive(Clone)]
pub struct Instructions<'a> {
    words: &'a [u32],
    at: usize,
}

impl<'a> Iterator for Instructions<'a> {
    type Item = Instruction<'a>;

    fn next(&mut self) -> Option<Instruction<'a>> {
        let first = *self.words.get(self.at)?;
        let count = (first >> 16) as usize;
        // `parse` checked every count; the guard keeps a bug from looping or slicing out.
        let end = self
            .at
            .checked_add(count)
            .filter(|&e| count > 0 && e <= self.words.len())?;
        let i = Instruction {
            offset: self.at,
            opcode: (first & 0xffff) as u16,
            operands: &self.words[self.at + 1..end],
        };
        self.at = end;
        Some(i)
    }
}

/// The instructions of `words`, which [`check`] accepted.
pub(super) fn instructions(words: &[u32]) -> Instructions<'_> {
    Instructions {
        words,
        at: HEADER_WORDS,
    }
}

/// The header and word-count checks (see the module docs).
pub(super) fn check(words: &[u32]) -> Result<(), SpirvError> {
    check_header(words)?;
    check_instructions(words)
}

fn check_header(words: &[u32]) -> Result<(), SpirvError> {
    if words.len() < HEADER_WORDS {
        return Err(SpirvError::TooShort(words.len()));
    }
    match words[0] {
        MAGIC => {}
        MAGIC_SWAPPED => return Err(SpirvError::ByteSwapped(words[0])),
        m => return Err(SpirvError::BadMagic(m)),
    }
    let v = words[1];
    let (major, minor) = ((v >> 16) & 0xff, (v >> 8) & 0xff);
    if v & 0xff00_00ff != 0 || major != 1 || minor > MAX_MINOR {
        return Err(SpirvError::Version(v));
    }
    if words[3] == 0 {
        return Err(SpirvError::ZeroBound);
    }
    Ok(())
}

fn check_instructions(words: &[u32]) -> Result<(), SpirvError> {
    let mut at = HEADER_WORDS;
    while at < words.len() {
        let count = (words[at] >> 16) as usize;
        if count == 0 {
            return Err(SpirvError::ZeroWordCount(at));
        }
        if count > words.len() - at {
            return Err(SpirvError::Truncated {
                at,
                count,
                len: words.len(),
            });
        }
        at += count;
    }
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;

    /// A minimal module: header, `OpCapability Shader`, `OpMemoryModel Logical GLSL450`.
    fn tiny() -> Vec<u32> {
        vec![
            MAGIC,
            0x0001_0600,
            0,
            8,
            0,
            (2 << 16) | 17,
            1,
            (3 << 16) | 14,
            0,
            1,
        ]
    }

    #[test]
    fn the_stream_is_each_instruction_in_order() {
        let w = tiny();
        check(&w).unwrap();
        let v: Vec<_> = instructions(&w)
            .map(|i| (i.offset, i.opcode, i.operands.to_vec()))
            .collect();
        assert_eq!(v, vec![(5, 17, vec![1]), (7, 14, vec![0, 1])]);
    }

    #[test]
    fn each_header_field_and_word_count_is_checked() {
        let w = tiny();
        let with = |i: usize, v: u32| {
            let mut x = w.clone();
            x[i] = v;
            check(&x)
        };
        assert_eq!(
            with(0, MAGIC.swap_bytes()),
            Err(SpirvError::ByteSwapped(MAGIC.swap_bytes()))
        );
        assert_eq!(with(1, 0x0001_0700), Err(SpirvError::Version(0x0001_0700)));
        assert_eq!(with(1, 0x0002_0000), Err(SpirvError::Version(0x0002_0000)));
        assert_eq!(with(1, 0x0001_0001), Err(SpirvError::Version(0x0001_0001)));
        assert!(with(1, 0x0001_0000).is_ok(), "1.0");
        assert_eq!(with(3, 0), Err(SpirvError::ZeroBound));
        assert_eq!(with(7, 14), Err(SpirvError::ZeroWordCount(7)));
        assert_eq!(
            with(7, (4 << 16) | 14),
            Err(SpirvError::Truncated {
                at: 7,
                count: 4,
                len: 10
            })
        );
    }

    #[test]
    fn strings_end_at_their_nul() {
        // "main" + NUL fills two words; the operand after it is at index 2.
        let ops = [u32::from_le_bytes(*b"main"), 0, 7];
        let i = Instruction {
            offset: 0,
            opcode: 15,
            operands: &ops,
        };
        assert_eq!(i.string(0), Some(("main".to_string(), 2)));
        let unterminated = [u32::from_le_bytes(*b"abcd")];
        let i = Instruction {
            offset: 0,
            opcode: 15,
            operands: &unterminated,
        };
        assert_eq!(i.string(0), None);
    }
}
