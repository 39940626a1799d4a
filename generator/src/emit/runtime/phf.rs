//! Perfect-hash probing shared by the command and extension lookups: one pass over the name
//! sixteen bytes at a time, one mix with the bucket's displacement, one slot read; the caller
//! compares the key stored there, so a lookup is a single string compare.
//!
//! The hash reads whole 64-bit words and folds them in pairs with one 64×64→128-bit multiply
//! (wyhash's "mum"): a Vulkan name of 20–40 bytes costs two or three dependent multiplies, where
//! the byte-serial FNV-1a this replaced paid one multiply per byte (issue 22: FNV was the hot
//! spot of `vkGetDeviceProcAddr`, run once in the loader and once more in a vkgen driver). The
//! bucket is picked from the hash's high half by a multiply (Lemire's fast range), not a
//! division.
//!
//! The tables keep their strings in one blob each, referred to by [`BlobStr`] offsets: in a
//! position-independent library every `&'static str` inside a static is a 16-byte pointer plus
//! a 24-byte dynamic relocation that the dynamic linker applies at load; storing offsets instead
//! took 47 KB off the stripped `libvulkan.so` (issue 21).
//!
//! Hand-written (vkgen's `generator/src/emit/runtime/phf.rs`). The generator compiles this
//! same file to build the tables and copies it verbatim into each generated crate to probe
//! them, so the two can never hash differently.

/// The multiplier of every fold (the 64-bit golden ratio, odd).
const K0: u64 = 0x9e37_79b9_7f4a_7c15;
/// The second constant a fold mixes in (wyhash's `wyp1`).
const K1: u64 = 0xe703_7ed1_a0b4_28db;

/// `a × b` as a 128-bit product, its halves xor-ed: every input bit reaches most output bits.
#[inline(always)]
const fn fold(a: u64, b: u64) -> u64 {
    let p = (a as u128) * (b as u128);
    (p as u64) ^ ((p >> 64) as u64)
}

/// The little-endian word at `bytes[at..at + 8]` (0 past the end, which no caller reads).
#[inline(always)]
fn word(bytes: &[u8], at: usize) -> u64 {
    bytes
        .get(at..at + 8)
        .and_then(|w| <[u8; 8]>::try_from(w).ok())
        .map_or(0, u64::from_le_bytes)
}

/// The bytes of a name shorter than a word, zero-extended.
#[inline(always)]
fn short(bytes: &[u8]) -> u64 {
    let mut w = [0u8; 8];
    let n = bytes.len().min(8);
    w[..n].copy_from_slice(&bytes[..n]);
    u64::from_le_bytes(w)
}

/// The name's 64-bit hash. Each fold takes two words (wyhash's 16-byte step): a 20–40 byte
/// Vulkan name costs two or three dependent multiplies, half of one word a fold (issue 35). The
/// last 16 bytes are read as two (overlapping) words, and the length is in the seed, so names
/// that share those bytes still differ.
#[inline(always)]
pub(crate) fn hash(bytes: &[u8]) -> u64 {
    let n = bytes.len();
    let seed = fold(n as u64 ^ K0, K1);
    if n < 8 {
        return fold(seed ^ short(bytes), K0);
    }
    if n <= 16 {
        return fold(seed ^ word(bytes, 0), K1 ^ word(bytes, n - 8));
    }
    let mut h = seed;
    let mut i = 0;
    while i + 16 < n {
        h = fold(h ^ word(bytes, i), K1 ^ word(bytes, i + 8));
        i += 16;
    }
    fold(h ^ word(bytes, n - 16), K0 ^ word(bytes, n - 8))
}

/// Whether `a` and `b` hold the same bytes: a word at a time, inline (the stored key and the
/// name probed are short; a `memcmp` call costs more than the compare).
#[inline(always)]
#[allow(dead_code)] // the generator builds tables and never probes them
pub(crate) fn same(a: &[u8], b: &[u8]) -> bool {
    let n = a.len();
    if n != b.len() {
        return false;
    }
    if n < 8 {
        return short(a) == short(b);
    }
    let mut i = 0;
    while i + 8 < n {
        if word(a, i) != word(b, i) {
            return false;
        }
        i += 8;
    }
    word(a, n - 8) == word(b, n - 8)
}

/// The bucket of hash `h` among `buckets` (`buckets > 0`): the high half of `h × buckets`.
#[inline(always)]
pub(crate) const fn bucket(h: u64, buckets: usize) -> usize {
    (((h >> 32) * buckets as u64) >> 32) as usize
}

/// Mixes a name's hash with its bucket's displacement `d`.
#[inline(always)]
pub(crate) const fn mix(h: u64, d: u32) -> u64 {
    fold(h ^ (d as u64).wrapping_mul(K0), K1)
}

/// The only slot `bytes` can occupy; the caller compares the key stored there.
#[inline(always)]
#[allow(dead_code)] // the generator builds tables and never probes them
pub(crate) fn slot(bytes: &[u8], disp: &[u32], slots: &[u16]) -> Option<u16> {
    let h = hash(bytes);
    let d = *disp.get(bucket(h, disp.len()))?;
    let s = slots[(mix(h, d) as usize) & (slots.len() - 1)];
    if s == u16::MAX {
        None
    } else {
        Some(s)
    }
}

/// A string of a table's blob: `len` bytes from `at`, followed in the blob by a NUL (so a name is
/// also a C string). Two `u16`s where a `&'static str` would cost 16 bytes and a relocation.
#[derive(Clone, Copy, PartialEq, Eq)]
#[allow(dead_code)] // the generator builds tables and never reads them
pub(crate) struct BlobStr {
    at: u16,
    len: u16,
}

#[allow(dead_code)] // the generator builds tables and never reads them
impl BlobStr {
    /// No string (an absent `Option<&str>`).
    pub(crate) const NONE: BlobStr = BlobStr {
        at: u16::MAX,
        len: u16::MAX,
    };

    /// The string at `at`, `len` bytes long (the generator's offsets into the blob).
    pub(crate) const fn new(at: u16, len: u16) -> BlobStr {
        BlobStr { at, len }
    }

    /// Its bytes, without the NUL; empty for [`BlobStr::NONE`].
    #[inline]
    pub(crate) fn bytes(self, blob: &'static str) -> &'static [u8] {
        let at = self.at as usize;
        blob.as_bytes()
            .get(at..at + self.len as usize)
            .unwrap_or(&[])
    }

    /// It as a string; `None` for [`BlobStr::NONE`].
    pub(crate) fn get(self, blob: &'static str) -> Option<&'static str> {
        let at = self.at as usize;
        blob.get(at..at + self.len as usize)
    }

    /// It as a C string (the blob's NUL after it included); empty for [`BlobStr::NONE`].
    pub(crate) fn c_str(self, blob: &'static str) -> &'static core::ffi::CStr {
        let at = self.at as usize;
        // The generator ends every string with one NUL and none holds another (they come from
        // XML, which cannot carry U+0000), so only the last byte is checked: scanning each name
        // for interior NULs was a tenth of the loader's vkCreateDevice (issue 35). The generated
        // tables' test `every_name_is_a_c_string_that_finds_its_row` walks every row.
        match blob.as_bytes().get(at..=at + self.len as usize) {
            // SAFETY: `bytes` ends with its NUL and holds no other (above).
            Some(bytes @ [.., 0]) => unsafe {
                core::ffi::CStr::from_bytes_with_nul_unchecked(bytes)
            },
            _ => c"",
        }
    }
}
