//! The integer values vk.xml writes as text: C constant expressions (`(~0U-1)`), API constants
//! through their aliases, array dimensions, enumerants through their aliases. Pure functions over
//! strings and the model, used by the parser, the checks and the emitters alike.

use super::text::clip;
use crate::model::*;

/// C integer literals as vk.xml writes them: `42`, `0x7FFFFFFF`, `-1`, `(~0U)`, `(~0ULL)`, `(~0U-1)`,
/// with any of the suffixes `U L UL LU LL ULL LLU` (either case). The value is the C value in its
/// C type, as an `i64` bit pattern for `unsigned long long` values above `i64::MAX`. Anything else
/// (floats, strings, other expressions) is `None`. See [`parse_c_literal`] for the exact value.
pub fn parse_c_int(s: &str) -> Option<i64> {
    let v = parse_c_literal(s)?;
    i64::try_from(v.value)
        .ok()
        .or_else(|| u64::try_from(v.value).ok().map(|u| u as i64))
}

/// An integer constant expression of vk.xml, evaluated with C's rules (LP64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CInt {
    /// The exact value (never wrapped to `i64`).
    pub value: i128,
    /// 32 or 64.
    pub bits: u32,
    pub unsigned: bool,
}

impl CInt {
    fn wrap(value: i128, bits: u32, unsigned: bool) -> CInt {
        let m = 1i128 << bits;
        let mut v = value.rem_euclid(m);
        if !unsigned && v >= m / 2 {
            v -= m;
        }
        CInt {
            value: v,
            bits,
            unsigned,
        }
    }
}

/// Longest literal text `parse_c_literal` looks at; vk.xml's longest is 26 characters.
pub const MAX_LITERAL_LEN: usize = 64;

/// Parses the literal forms listed at [`parse_c_int`] exactly. Iterative and bounded: at most
/// [`MAX_LITERAL_LEN`] characters, one binary `+`/`-`, one unary operator per operand.
pub fn parse_c_literal(s: &str) -> Option<CInt> {
    let s = s.trim();
    if s.len() > MAX_LITERAL_LEN {
        return None;
    }
    let s = strip_parens(s)?;
    // A binary `-`/`+` after the first character (not an exponent: floats are refused anyway).
    let op = s
        .char_indices()
        .skip(1)
        .find(|&(i, c)| (c == '-' || c == '+') && !s[..i].trim_end().ends_with(['-', '+', '~']));
    match op {
        None => operand(s),
        Some((i, c)) => {
            let a = operand(strip_parens(s[..i].trim())?)?;
            let b = operand(strip_parens(s[i + 1..].trim())?)?;
            // Usual arithmetic conversions: the wider type; unsigned wins at equal width.
            let bits = a.bits.max(b.bits);
            let unsigned = (a.bits == bits && a.unsigned) || (b.bits == bits && b.unsigned);
            let v = if c == '-' {
                a.value - b.value
            } else {
                a.value + b.value
            };
            Some(CInt::wrap(v, bits, unsigned))
        }
    }
}

fn strip_parens(mut s: &str) -> Option<&str> {
    while let Some(inner) = s.strip_prefix('(') {
        s = inner.strip_suffix(')')?.trim();
    }
    (!s.is_empty() && !s.contains(['(', ')'])).then_some(s)
}

/// `[~|-]` literal with suffix.
fn operand(s: &str) -> Option<CInt> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix('~') {
        let v = literal(strip_parens(rest.trim())?)?;
        return Some(CInt::wrap(!v.value, v.bits, v.unsigned));
    }
    if let Some(rest) = s.strip_prefix('-') {
        let v = literal(strip_parens(rest.trim())?)?;
        return Some(CInt::wrap(-v.value, v.bits, v.unsigned));
    }
    literal(s)
}

/// One integer literal: decimal or `0x` hex digits, then a suffix. C picks the type: the first of
/// int, unsigned int (hex only), long, unsigned long (hex only) that holds the value, from the
/// suffix's minimum up.
fn literal(s: &str) -> Option<CInt> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let (num, suffix) = digits.split_at(end);
    if num.is_empty() {
        return None;
    }
    let (u, l) = match suffix.to_ascii_uppercase().as_str() {
        "" => (false, false),
        "U" => (true, false),
        "L" | "LL" => (false, true),
        "UL" | "LU" | "ULL" | "LLU" => (true, true),
        _ => return None,
    };
    if radix == 10 && num.len() > 1 && num.starts_with('0') {
        return None; // octal: not a form vk.xml uses
    }
    let v = u64::from_str_radix(num, radix).ok()? as i128;
    let candidates: &[(u32, bool)] = match (u, l, radix == 16) {
        (false, false, false) => &[(32, false), (64, false)],
        (false, false, true) => &[(32, false), (32, true), (64, false), (64, true)],
        (true, false, _) => &[(32, true), (64, true)],
        (false, true, false) => &[(64, false)],
        (false, true, true) => &[(64, false), (64, true)],
        (true, true, _) => &[(64, true)],
    };
    candidates.iter().find_map(|&(bits, unsigned)| {
        let max = if unsigned {
            (1i128 << bits) - 1
        } else {
            (1i128 << (bits - 1)) - 1
        };
        (v <= max).then_some(CInt {
            value: v,
            bits,
            unsigned,
        })
    })
}

/// The integer value of API constant `name`, following aliases (loading rejects alias cycles
/// and chains longer than [`MAX_ALIAS_CHAIN`]).
pub fn constant_value(reg: &Registry, name: &str) -> Option<i64> {
    let mut c = reg.constants.get(name)?;
    for _ in 0..=MAX_ALIAS_CHAIN {
        match &c.alias {
            Some(a) => c = reg.constants.get(a)?,
            None => return parse_c_int(&c.value),
        }
    }
    None
}

/// Largest array dimension vkgen accepts (vk.xml's largest is 256).
pub const MAX_ARRAY_LEN: u64 = 1 << 16;

/// The length of an array dimension, or why it has none.
pub fn array_len(reg: &Registry, len: &ArrayLen) -> std::result::Result<usize, String> {
    let v = match len {
        ArrayLen::Literal(n) => u64::from(*n),
        ArrayLen::Constant(c) => {
            let k = reg
                .constants
                .get(c)
                .ok_or_else(|| format!("array length `{}` is not a defined constant", clip(c)))?;
            let v = constant_value(reg, c).ok_or_else(|| {
                format!("array length {c} = `{}` is not an integer", clip(&k.value))
            })?;
            u64::try_from(v).map_err(|_| format!("array length {c} = {v} is negative"))?
        }
    };
    if v == 0 || v > MAX_ARRAY_LEN {
        return Err(format!("array length {v} is outside 1..={MAX_ARRAY_LEN}"));
    }
    Ok(v as usize)
}

/// Enum value helper shared by emitters: the integer an `EnumVal` stands for within its group.
/// Loading rejects alias cycles and chains longer than [`MAX_ALIAS_CHAIN`]; `depth` is the number
/// of aliases already followed.
pub fn enum_value(group: &EnumGroup, v: &EnumVal, depth: u32) -> Option<i64> {
    let mut v = v;
    for _ in (depth as usize)..=MAX_ALIAS_CHAIN {
        match v {
            // The bit pattern: `0x8000000000000000` in a 64-bit group is bit 63, as `bitpos="63"`.
            EnumVal::Value(x) => return Some(*x as i64),
            EnumVal::Bitpos(b) => return 1i64.checked_shl(*b),
            EnumVal::Alias(a) => v = &group.values.iter().find(|x| &x.name == a)?.value,
        }
    }
    None
}
