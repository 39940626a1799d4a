//! Clear values to texel bytes and back, for every uncompressed format of the table.
//!
//! Where each bit goes is not in the registry: it lists components, not padding or the shared
//! exponent. The layout is read from the format's name instead, which the spec defines to
//! spell it ("Format Definition": components in order, `X` for unused bits, `PACKnn` for
//! components packed into an `nn`-bit word with the first component in the most significant
//! bits, `nPACKnn` for n such words). Each texel is a list of [`Field`]s — a component's bit
//! offset and width in the block, read little-endian — and packing and unpacking are the same
//! walk over it. The name's components must be the table's, in order; a format whose name does
//! not spell its layout that way (none in 1.4.359) is refused, never guessed.
//!
//! Values follow the spec's conversions ("Fixed-Point Data Conversions", "Floating Point
//! Conversions"): UNORM/SNORM round to nearest from clamped floats, scaled formats round the
//! float to an integer, sRGB applies the sRGB transfer function to R, G and B, 16-bit floats
//! round to nearest even, the 10- and 11-bit unsigned floats are halves with fewer mantissa
//! bits, and E5B9G9R9 uses the spec's shared-exponent algorithm. Combined depth/stencil
//! formats are packed per aspect in their copy layout (D24 in the low 24 bits of 4 bytes), as
//! a copy or a CPU engine's per-aspect clear needs them.

use vkgen_generated::formats::{ComponentName, NumericFormat};
use vkgen_generated::vk;

use super::rows::{info, FormatInfo};

/// One component's place in a texel block.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Field {
    /// `R`, `G`, `B`, `A`, `D`, `S`, or `E` for the shared exponent.
    pub name: char,
    /// Bit offset from the block's first bit (bytes little-endian, bit 0 the lowest).
    pub shift: u32,
    pub bits: u32,
    pub numeric: NumericFormat,
}

/// `(letter, bits)` runs of the name's layout tokens (`R10X6G10X6`, `X8`, `D24`, …).
fn name_layout(name: &str) -> Vec<(char, u32)> {
    let mut out = Vec::new();
    for token in name.trim_start_matches("VK_FORMAT_").split('_') {
        let mut runs = Vec::new();
        let mut chars = token.chars().peekable();
        let mut ok = !token.is_empty();
        while let Some(c) = chars.next() {
            let mut digits = String::new();
            while let Some(d) = chars.next_if(char::is_ascii_digit) {
                digits.push(d);
            }
            match ("RGBADSXE".contains(c), digits.parse::<u32>()) {
                (true, Ok(bits)) if bits > 0 => runs.push((c, bits)),
                _ => {
                    ok = false;
                    break;
                }
            }
        }
        if ok {
            out.extend(runs);
        }
    }
    out
}

/// The fields of a format's texel block; `None` for compressed or multi-planar formats and
/// names that do not spell the table's components.
pub fn fields(f: &FormatInfo) -> Option<Vec<Field>> {
    if !f.is_packable() {
        return None;
    }
    let layout = name_layout(f.name);
    let named: Vec<char> = layout
        .iter()
        .map(|&(c, _)| c)
        .filter(|c| !matches!(c, 'X' | 'E'))
        .collect();
    let table: Vec<char> = f.components.iter().map(|c| letter(c.name)).collect();
    if named != table {
        return None;
    }
    let total: u32 = layout.iter().map(|&(_, b)| b).sum();
    let word = if f.packed > 0 { f.packed } else { total };
    if total != f.block_size * 8 || word == 0 || !total.is_multiple_of(word) {
        return None;
    }
    let mut out = Vec::new();
    let mut components = f.components.iter();
    let mut at = 0u32;
    for &(name, bits) in &layout {
        // PACK: the first component of each word in its most significant bits.
        let shift = if f.packed > 0 {
            let word_start = at / word * word;
            word_start + (word - (at - word_start) - bits)
        } else {
            at
        };
        at += bits;
        let numeric = match name {
            'X' => continue,
            'E' => NumericFormat::Ufloat,
            _ => components.next()?.numeric_format,
        };
        out.push(Field {
            name,
            shift,
            bits,
            numeric,
        });
    }
    Some(out)
}

fn letter(n: ComponentName) -> char {
    match n {
        ComponentName::R => 'R',
        ComponentName::G => 'G',
        ComponentName::B => 'B',
        ComponentName::A => 'A',
        ComponentName::D => 'D',
        ComponentName::S => 'S',
    }
}

fn channel(name: char) -> usize {
    match name {
        'G' => 1,
        'B' => 2,
        'A' => 3,
        _ => 0,
    }
}

fn put(bytes: &mut [u8], shift: u32, bits: u32, value: u64) {
    for i in 0..bits {
        let bit = shift + i;
        let (byte, mask) = ((bit / 8) as usize, 1u8 << (bit % 8));
        if let Some(b) = bytes.get_mut(byte) {
            if value >> i & 1 == 1 {
                *b |= mask;
            } else {
                *b &= !mask;
            }
        }
    }
}

fn get(bytes: &[u8], shift: u32, bits: u32) -> u64 {
    (0..bits).fold(0u64, |v, i| {
        let bit = shift + i;
        let set = bytes
            .get((bit / 8) as usize)
            .is_some_and(|b| b >> (bit % 8) & 1 == 1);
        v | (u64::from(set) << i)
    })
}

fn mask(bits: u32) -> u64 {
    if bits >= 64 {
        u64::MAX
    } else {
        (1u64 << bits) - 1
    }
}

/// Whether the clear value's `uint32`/`int32` members (not `float32`) carry this format.
fn is_integer(n: NumericFormat) -> bool {
    matches!(n, NumericFormat::Uint | NumericFormat::Sint)
}

/// `color` as the texel bytes of `format` (one block: two texels for a 4:2:2 format, whose G
/// component repeats). `None` for formats [`fields`] cannot lay out, or without a colour
/// component.
pub fn pack_color(format: vk::Format, color: &vk::ClearColorValue) -> Option<Vec<u8>> {
    let f = info(format)?;
    let fields = fields(f)?;
    if !f.aspects.contains(vk::ImageAspectFlags::COLOR) {
        return None;
    }
    let mut out = vec![0u8; f.block_size as usize];
    // SAFETY: every member of VkClearColorValue is 16 plain bytes; reading any is sound.
    let (floats, ints, uints) = unsafe { (color.float32, color.int32, color.uint32) };
    if let Some(e) = fields.iter().find(|x| x.name == 'E') {
        let rgb = [floats[0], floats[1], floats[2]];
        let (exp, mantissas) = shared_exponent(rgb, fields.iter().find(|x| x.name == 'R')?.bits);
        put(&mut out, e.shift, e.bits, u64::from(exp));
        for x in fields.iter().filter(|x| x.name != 'E') {
            put(
                &mut out,
                x.shift,
                x.bits,
                u64::from(mantissas[channel(x.name)]),
            );
        }
        return Some(out);
    }
    for x in &fields {
        let c = channel(x.name);
        let raw = encode(x, floats[c], ints[c], uints[c]);
        put(&mut out, x.shift, x.bits, raw & mask(x.bits));
    }
    Some(out)
}

/// One component's bits from the clear value's members.
fn encode(x: &Field, float: f32, int: i32, uint: u32) -> u64 {
    let n = x.bits;
    let umax = mask(n) as f64;
    let smax = (mask(n) >> 1) as f64;
    let f = f64::from(float);
    match x.numeric {
        NumericFormat::Unorm => (f.clamp(0.0, 1.0) * umax).round() as u64,
        NumericFormat::Srgb if x.name != 'A' => {
            (f64::from(srgb_encode(float.clamp(0.0, 1.0))) * umax).round() as u64
        }
        NumericFormat::Srgb => (f.clamp(0.0, 1.0) * umax).round() as u64,
        NumericFormat::Snorm => (f.clamp(-1.0, 1.0) * smax).round() as i64 as u64,
        NumericFormat::Uscaled => f.round().clamp(0.0, umax) as u64,
        NumericFormat::Sscaled => f.round().clamp(-smax - 1.0, smax) as i64 as u64,
        NumericFormat::Uint => u64::from(uint).min(mask(n)),
        NumericFormat::Sint => i64::from(int).clamp(-(smax as i64) - 1, smax as i64) as u64,
        NumericFormat::Sfixed5 => (f * 32.0).round().clamp(-smax - 1.0, smax) as i64 as u64,
        NumericFormat::Bool => u64::from(float != 0.0),
        NumericFormat::Sfloat => match n {
            16 => u64::from(f32_to_f16(float)),
            64 => f.to_bits(),
            _ => u64::from(float.to_bits()),
        },
        NumericFormat::Ufloat => u64::from(f32_to_ufloat(float, n.saturating_sub(5))),
    }
}

/// The texel bytes of `format` read back as a clear value: `float32` for float, normalized,
/// scaled and sRGB formats (sRGB decoded to linear), `uint32`/`int32` for integer formats;
/// missing components read as 0, alpha as 1. For a 4:2:2 block, the first texel.
pub fn unpack_color(format: vk::Format, bytes: &[u8]) -> Option<vk::ClearColorValue> {
    let f = info(format)?;
    let fields = fields(f)?;
    if bytes.len() < f.block_size as usize || !f.aspects.contains(vk::ImageAspectFlags::COLOR) {
        return None;
    }
    let integer = fields.iter().any(|x| is_integer(x.numeric));
    let mut floats = [0.0, 0.0, 0.0, 1.0f32];
    let mut ints = [0, 0, 0, 1i32];
    let mut seen = [false; 4];
    let exponent = fields
        .iter()
        .find(|x| x.name == 'E')
        .map(|e| get(bytes, e.shift, e.bits) as i32);
    for x in fields.iter().filter(|x| x.name != 'E') {
        let c = channel(x.name);
        if std::mem::replace(&mut seen[c], true) {
            continue;
        }
        let raw = get(bytes, x.shift, x.bits);
        match exponent {
            Some(e) => floats[c] = raw as f32 * 2f32.powi(e - 15 - x.bits as i32),
            None if integer => ints[c] = decode_int(x, raw),
            None => floats[c] = decode_float(x, raw),
        }
    }
    Some(if integer {
        vk::ClearColorValue { int32: ints }
    } else {
        vk::ClearColorValue { float32: floats }
    })
}

fn sign_extend(raw: u64, bits: u32) -> i64 {
    let shift = 64 - bits.min(64);
    ((raw << shift) as i64) >> shift
}

fn decode_int(x: &Field, raw: u64) -> i32 {
    match x.numeric {
        NumericFormat::Sint => sign_extend(raw, x.bits) as i32,
        _ => raw as u32 as i32,
    }
}

fn decode_float(x: &Field, raw: u64) -> f32 {
    let n = x.bits;
    let umax = mask(n) as f64;
    let smax = (mask(n) >> 1) as f64;
    match x.numeric {
        NumericFormat::Unorm => (raw as f64 / umax) as f32,
        NumericFormat::Srgb if x.name != 'A' => srgb_decode((raw as f64 / umax) as f32),
        NumericFormat::Srgb => (raw as f64 / umax) as f32,
        // -2^(n-1) maps to -1.0 as well as -(2^(n-1) - 1) does.
        NumericFormat::Snorm => ((sign_extend(raw, n) as f64) / smax).max(-1.0) as f32,
        NumericFormat::Uscaled => raw as f32,
        NumericFormat::Sscaled => sign_extend(raw, n) as f32,
        NumericFormat::Sfixed5 => sign_extend(raw, n) as f32 / 32.0,
        NumericFormat::Bool => f32::from(u8::from(raw != 0)),
        NumericFormat::Sfloat => match n {
            16 => f16_to_f32(raw as u16),
            64 => f64::from_bits(raw) as f32,
            _ => f32::from_bits(raw as u32),
        },
        NumericFormat::Ufloat => ufloat_to_f32(raw as u32, n.saturating_sub(5)),
        NumericFormat::Uint | NumericFormat::Sint => raw as f32,
    }
}

/// A depth value as the bytes of `format`'s depth aspect in its copy layout: D16 2 bytes, D24
/// the low 24 bits of 4 (the top 8 zero), D32 an `f32`. `None` without a depth aspect.
pub fn pack_depth(format: vk::Format, depth: f32) -> Option<Vec<u8>> {
    let d = info(format)?.aspect_format(vk::ImageAspectFlags::DEPTH)?;
    let c = d.component(ComponentName::D)?;
    let mut out = vec![0u8; d.block_size as usize];
    let raw = match c.numeric_format {
        NumericFormat::Sfloat => u64::from(depth.to_bits()),
        _ => (f64::from(depth.clamp(0.0, 1.0)) * mask(u32::from(c.bits)) as f64).round() as u64,
    };
    put(&mut out, 0, u32::from(c.bits), raw);
    Some(out)
}

/// The depth value in `bytes` of `format`'s depth aspect (copy layout, as [`pack_depth`]).
pub fn unpack_depth(format: vk::Format, bytes: &[u8]) -> Option<f32> {
    let d = info(format)?.aspect_format(vk::ImageAspectFlags::DEPTH)?;
    let c = d.component(ComponentName::D)?;
    if bytes.len() < d.block_size as usize {
        return None;
    }
    let raw = get(bytes, 0, u32::from(c.bits));
    Some(match c.numeric_format {
        NumericFormat::Sfloat => f32::from_bits(raw as u32),
        _ => (raw as f64 / mask(u32::from(c.bits)) as f64) as f32,
    })
}

/// A stencil value as the byte of `format`'s stencil aspect. `None` without one.
pub fn pack_stencil(format: vk::Format, stencil: u32) -> Option<Vec<u8>> {
    info(format)?.aspect_format(vk::ImageAspectFlags::STENCIL)?;
    Some(vec![(stencil & 0xff) as u8])
}

/// The stencil value in `bytes` of `format`'s stencil aspect.
pub fn unpack_stencil(format: vk::Format, bytes: &[u8]) -> Option<u32> {
    info(format)?.aspect_format(vk::ImageAspectFlags::STENCIL)?;
    bytes.first().map(|&b| u32::from(b))
}

/// Linear to sRGB (the spec's "sRGB EOTF" inverse).
pub fn srgb_encode(l: f32) -> f32 {
    if l <= 0.003_130_8 {
        l * 12.92
    } else {
        1.055 * l.powf(1.0 / 2.4) - 0.055
    }
}

/// sRGB to linear.
pub fn srgb_decode(s: f32) -> f32 {
    if s <= 0.040_45 {
        s / 12.92
    } else {
        ((s + 0.055) / 1.055).powf(2.4)
    }
}

/// IEEE binary16 bits of `v`, rounded to nearest even; overflow to infinity, NaN kept.
pub fn f32_to_f16(v: f32) -> u16 {
    let x = v.to_bits();
    let sign = ((x >> 16) & 0x8000) as u16;
    let exp = ((x >> 23) & 0xff) as i32;
    let man = x & 0x7f_ffff;
    if exp == 0xff {
        return sign | 0x7c00 | if man != 0 { 0x200 } else { 0 };
    }
    let e = exp - 127 + 15;
    if e >= 0x1f {
        return sign | 0x7c00;
    }
    if e <= 0 {
        if e < -10 {
            return sign;
        }
        // Subnormal: the implicit bit made explicit, shifted into place with rounding.
        let m = man | 0x80_0000;
        let shift = (14 - e) as u32;
        let half = 1u32 << (shift - 1);
        let rest = m & ((1 << shift) - 1);
        let mut r = m >> shift;
        if rest > half || (rest == half && r & 1 == 1) {
            r += 1;
        }
        return sign | r as u16;
    }
    let mut r = ((e as u32) << 10) | (man >> 13);
    let rest = man & 0x1fff;
    if rest > 0x1000 || (rest == 0x1000 && r & 1 == 1) {
        r += 1; // may carry into the exponent: the correct rounding up
    }
    sign | r as u16
}

/// `f32` of IEEE binary16 bits.
pub fn f16_to_f32(h: u16) -> f32 {
    let sign = u32::from(h & 0x8000) << 16;
    let exp = u32::from((h >> 10) & 0x1f);
    let man = u32::from(h & 0x3ff);
    let bits = match (exp, man) {
        (0, 0) => sign,
        (0, _) => return sign_of(sign) * man as f32 * 2f32.powi(-24),
        (0x1f, _) => sign | 0x7f80_0000 | (man << 13),
        _ => sign | ((exp + 127 - 15) << 23) | (man << 13),
    };
    f32::from_bits(bits)
}

fn sign_of(sign: u32) -> f32 {
    if sign != 0 {
        -1.0
    } else {
        1.0
    }
}

/// An unsigned float with a 5-bit exponent and `mantissa` bits (6 for 11-bit, 5 for 10-bit):
/// a half without its sign and low mantissa bits, rounded to nearest even. Negative → 0.
pub fn f32_to_ufloat(v: f32, mantissa: u32) -> u32 {
    if v.is_nan() {
        return (0x1f << mantissa) | 1;
    }
    if v <= 0.0 {
        return 0;
    }
    let h = u32::from(f32_to_f16(v)) & 0x7fff;
    if h >= 0x7c00 {
        return 0x1f << mantissa;
    }
    let drop = 10 - mantissa.min(10);
    let (half, rest) = (1u32 << drop >> 1, h & ((1 << drop) - 1));
    let mut r = h >> drop;
    if drop > 0 && (rest > half || (rest == half && r & 1 == 1)) {
        r += 1;
    }
    r.min(0x1f << mantissa)
}

/// `f32` of an unsigned float with a 5-bit exponent and `mantissa` bits.
pub fn ufloat_to_f32(raw: u32, mantissa: u32) -> f32 {
    f16_to_f32((raw << (10 - mantissa.min(10))) as u16 & 0x7fff)
}

/// The spec's shared-exponent conversion (E5B9G9R9): `(exponent, [r, g, b] mantissas)` with
/// `n` mantissa bits, bias 15.
fn shared_exponent(rgb: [f32; 3], n: u32) -> (u32, [u32; 3]) {
    const B: i32 = 15;
    let n = n as i32;
    let max_value = (((1 << n) - 1) as f64 / (1 << n) as f64) * 2f64.powi(31 - B);
    let c = rgb.map(|v| {
        let v = f64::from(v);
        if v.is_nan() {
            0.0
        } else {
            v.clamp(0.0, max_value)
        }
    });
    let max = c[0].max(c[1]).max(c[2]);
    let floor_log2 = if max > 0.0 {
        max.log2().floor() as i32
    } else {
        -B - 1
    };
    let mut exp = floor_log2.max(-B - 1) + 1 + B;
    let max_s = (max / 2f64.powi(exp - B - n) + 0.5).floor() as i64;
    if max_s == 1 << n {
        exp += 1;
    }
    let scale = 2f64.powi(exp - B - n);
    (exp as u32, c.map(|v| (v / scale + 0.5).floor() as u32))
}
