//! Perfect-hash probing shared by the command and extension lookups: one FNV-1a pass over the
//! name, one mix with the bucket's displacement, one slot read; the caller compares the key
//! stored there, so a lookup is a single string compare.
//!
//! Hand-written (vkgen's `generator/src/emit/runtime/phf.rs`). The generator compiles this
//! same file to build the tables and copies it verbatim into each generated crate to probe
//! them, so the two can never hash differently.

/// FNV-1a, 64 bit.
#[inline]
pub(crate) const fn fnv1a(bytes: &[u8]) -> u64 {
    let mut h: u64 = 0xcbf2_9ce4_8422_2325;
    let mut i = 0;
    while i < bytes.len() {
        h ^= bytes[i] as u64;
        h = h.wrapping_mul(0x0100_0000_01b3);
        i += 1;
    }
    h
}

/// Mixes a name's hash with its bucket's displacement `d` (splitmix64's finaliser).
#[inline]
pub(crate) const fn mix(h: u64, d: u32) -> u64 {
    let mut z = h ^ (d as u64).wrapping_mul(0x9e37_79b9_7f4a_7c15);
    z = (z ^ (z >> 30)).wrapping_mul(0xbf58_476d_1ce4_e5b9);
    z = (z ^ (z >> 27)).wrapping_mul(0x94d0_49bb_1331_11eb);
    z ^ (z >> 31)
}

/// The only slot `bytes` can occupy; the caller compares the key stored there.
#[inline]
#[allow(dead_code)] // the generator builds tables and never probes them
pub(crate) fn slot(bytes: &[u8], disp: &[u32], slots: &[u16]) -> Option<u16> {
    let h = fnv1a(bytes);
    let d = disp[(h % disp.len() as u64) as usize];
    let s = slots[(mix(h, d) as usize) & (slots.len() - 1)];
    if s == u16::MAX {
        None
    } else {
        Some(s)
    }
}
