//! Perfect-hash probing shared by the command and extension lookups: one FNV-1a pass over the
//! name, one mix with the bucket's displacement, one slot read; the caller compares the key
//! stored there, so a lookup is a single string compare.
//!
//! The tables keep their strings in one blob each, referred to by [`BlobStr`] offsets: in a
//! position-independent library every `&'static str` inside a static is a 16-byte pointer plus
//! a 24-byte dynamic relocation that the dynamic linker applies at load; storing offsets instead
//! took 47 KB off the stripped `libvulkan.so` (issue 21).
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
        // The generator ends every string with one NUL and names hold none, so the check only
        // fails for a table this file's generator did not write (the generated tables' test
        // `every_name_is_a_c_string_that_finds_its_row` walks every row).
        match blob.as_bytes().get(at..=at + self.len as usize) {
            Some(bytes) => core::ffi::CStr::from_bytes_with_nul(bytes).unwrap_or(c""),
            None => c"",
        }
    }
}
