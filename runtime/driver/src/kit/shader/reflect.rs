//! `spirq`'s reflection of a checked binary, made robust: a panic inside the crate is an
//! error, and a module its constant evaluator refuses gets a second try (see [`reflect`]).

use std::panic::AssertUnwindSafe;

use spirq::entry_point::EntryPoint;
use spirq::prelude::{ConstantValue, ReflectConfig};

use super::binary::{self, SpirvError, HEADER_WORDS};

/// `spirq`'s reflection of every entry point with `spec` applied (all resources: static use is
/// [`super::facts`]'s). A panic inside the crate is an error, not an unwind.
///
/// `spirq` evaluates every `OpSpecConstantOp` and refuses the module when its evaluator cannot
/// (a `Select` of a boolean spec constant, a signed/unsigned `IAdd` glslang emits for a
/// conversion): valid modules. Those get a second try on a copy with each such constant made
/// `OpConstantNull` and `OpExecutionModeId` left out; the kit's own [`super::facts`] give the
/// workgroup size then (what is lost: an array size computed by a spec-constant expression).
pub(super) fn reflect(
    words: &[u32],
    spec: &[(u32, Vec<u8>)],
) -> Result<Vec<EntryPoint>, SpirvError> {
    match reflect_words(words.to_vec(), spec) {
        Ok(eps) => Ok(eps),
        Err(first) => {
            let words = without_spec_constant_ops(words);
            reflect_words(words, spec).map_err(|second| {
                log::debug!("reflection without OpSpecConstantOp failed too: {second}");
                first
            })
        }
    }
}

fn reflect_words(words: Vec<u32>, spec: &[(u32, Vec<u8>)]) -> Result<Vec<EntryPoint>, SpirvError> {
    let run = || {
        let mut cfg = ReflectConfig::new();
        cfg.spv(words)
            .ref_all_rscs(true)
            .combine_img_samplers(false);
        for (id, bytes) in spec {
            cfg.specialize(
                *id,
                ConstantValue::Typeless(bytes.clone().into_boxed_slice()),
            );
        }
        cfg.reflect()
    };
    match std::panic::catch_unwind(AssertUnwindSafe(run)) {
        Ok(Ok(eps)) => Ok(eps),
        Ok(Err(e)) => Err(SpirvError::Malformed(e.to_string())),
        Err(_) => Err(SpirvError::Malformed(
            "the reflection crate panicked".into(),
        )),
    }
}

/// A copy of the module for [`reflect`]'s second try.
fn without_spec_constant_ops(words: &[u32]) -> Vec<u32> {
    const OP_CONSTANT_NULL: u32 = 46;
    const OP_SPEC_CONSTANT_OP: u16 = 52;
    const OP_EXECUTION_MODE_ID: u16 = 331;
    let mut out = words[..HEADER_WORDS].to_vec();
    for i in binary::instructions(words) {
        match i.opcode {
            OP_SPEC_CONSTANT_OP if i.operands.len() >= 2 => {
                out.extend([(3 << 16) | OP_CONSTANT_NULL, i.operands[0], i.operands[1]]);
            }
            OP_EXECUTION_MODE_ID => {}
            _ => out.extend_from_slice(&words[i.offset..i.offset + 1 + i.operands.len()]),
        }
    }
    out
}
