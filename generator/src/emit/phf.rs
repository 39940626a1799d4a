//! Perfect hashing of names, built at generation time ("hash and displace"): a lookup is one
//! word-at-a-time hash of the name, one mix, and one string compare — no chain of compares, no
//! collisions.
//! The same functions run here (to build the tables) and in the generated crate (`src/phf.rs`).

/// The hash itself, one file compiled here and copied into every generated crate.
#[path = "runtime/phf.rs"]
mod probe;
pub(crate) use probe::{bucket, hash, mix};

#[derive(Debug)]
pub struct Table {
    /// Displacement per bucket.
    pub disp: Vec<u32>,
    /// Key index per slot, `u16::MAX` when empty. Slot count is a power of two.
    pub slots: Vec<u16>,
}

/// Most keys a table holds (the registry refuses more names when it loads).
pub use crate::model::MAX_LOOKUP_NAMES as MAX_KEYS;

/// Largest slot count tried before giving up (distinct 64-bit hashes fit long before).
const MAX_SLOTS: usize = 1 << 24;

/// Builds a perfect hash for `keys`. Deterministic for a given key list. Duplicate keys, more than
/// [`MAX_KEYS`] keys, or two keys with the same 64-bit hash (which no displacement can separate,
/// so the table would grow without bound) are errors, never a table that loses a name.
pub fn build(keys: &[&str]) -> Result<Table, String> {
    if keys.len() > MAX_KEYS {
        return Err(format!(
            "{} names do not fit a lookup table (at most {MAX_KEYS})",
            keys.len()
        ));
    }
    let mut seen: std::collections::HashMap<u64, &str> = std::collections::HashMap::new();
    for k in keys {
        if let Some(other) = seen.insert(hash(k.as_bytes()), k) {
            return Err(if other == *k {
                format!("name `{k}` appears twice in a lookup table")
            } else {
                format!("names `{other}` and `{k}` have the same hash")
            });
        }
    }
    let n = keys.len().max(1);
    let mut m = (2 * n).next_power_of_two();
    loop {
        let b = n.div_ceil(3).max(1);
        let hashes: Vec<u64> = keys.iter().map(|k| hash(k.as_bytes())).collect();
        let mut buckets: Vec<Vec<usize>> = vec![Vec::new(); b];
        for (i, h) in hashes.iter().enumerate() {
            buckets[bucket(*h, b)].push(i);
        }
        let mut order: Vec<usize> = (0..b).collect();
        order.sort_by_key(|&i| (std::cmp::Reverse(buckets[i].len()), i));
        let mut slots = vec![u16::MAX; m];
        let mut disp = vec![0u32; b];
        let mut ok = true;
        'bucket: for bi in order {
            if buckets[bi].is_empty() {
                continue;
            }
            for d in 0..(1u32 << 20) {
                let mut taken: Vec<usize> = Vec::with_capacity(buckets[bi].len());
                let fits = buckets[bi].iter().all(|&k| {
                    let s = (mix(hashes[k], d) as usize) & (m - 1);
                    if slots[s] != u16::MAX || taken.contains(&s) {
                        false
                    } else {
                        taken.push(s);
                        true
                    }
                });
                if fits {
                    for (&k, &s) in buckets[bi].iter().zip(&taken) {
                        slots[s] = k as u16;
                    }
                    disp[bi] = d;
                    continue 'bucket;
                }
            }
            ok = false;
            break;
        }
        if ok {
            return Ok(Table { disp, slots });
        }
        m *= 2;
        if m > MAX_SLOTS {
            return Err(format!("no perfect hash for {} names", keys.len()));
        }
    }
}

/// `const DISP` / `const SLOTS` of a table as formatted text (numbers wrapped at 100 columns).
pub fn table_text(t: &Table) -> String {
    fn array(out: &mut String, decl: &str, values: impl Iterator<Item = String>) {
        out.push_str(decl);
        out.push_str(" = [\n");
        let mut line = String::from("   ");
        for v in values {
            if line.len() + v.len() + 2 > 100 {
                out.push_str(&line);
                out.push('\n');
                line = String::from("   ");
            }
            line.push(' ');
            line.push_str(&v);
            line.push(',');
        }
        if !line.trim().is_empty() {
            out.push_str(&line);
            out.push('\n');
        }
        out.push_str("];\n");
    }
    let mut out = String::new();
    array(
        &mut out,
        &format!("const DISP: [u32; {}]", t.disp.len()),
        t.disp.iter().map(u32::to_string),
    );
    array(
        &mut out,
        &format!("const SLOTS: [u16; {}]", t.slots.len()),
        t.slots.iter().map(u16::to_string),
    );
    out
}

/// Opens the name comment after a row's `BlobStr` (a row no longer shows its name otherwise). A
/// constant, not part of the rows' format strings: a `//` inside a literal hides the rest of the
/// line from line-based checks such as the tidy test's function lengths.
pub const NAME_NOTE: &str = "//";

/// A table's string blob being built: every distinct string once, each followed by a NUL, found
/// by the `BlobStr::new(at, len)` the generated tables hold (`runtime/phf.rs`).
#[derive(Debug, Default)]
pub struct Blob {
    text: String,
    seen: std::collections::HashMap<String, (u16, u16)>,
}

impl Blob {
    /// `BlobStr::new(at, len)` of `s`, added unless the blob already holds it. `u16` offsets
    /// keep a table entry small; a blob that outgrows them is an error, never a wrong offset.
    pub fn add(&mut self, s: &str) -> crate::error::Result<String> {
        if s.contains('\0') {
            return Err(crate::error::Error::Limit(format!(
                "string `{s}` holds a NUL"
            )));
        }
        let (at, len) = match self.seen.get(s) {
            Some(&v) => v,
            None => {
                let fits = |n: usize| u16::try_from(n).ok().filter(|&v| v != u16::MAX);
                let (Some(at), Some(len), Some(_)) = (
                    fits(self.text.len()),
                    fits(s.len()),
                    fits(self.text.len() + s.len() + 1),
                ) else {
                    return Err(crate::error::Error::Limit(format!(
                        "string blob over {} bytes at `{s}`",
                        u16::MAX - 1
                    )));
                };
                self.text.push_str(s);
                self.text.push('\0');
                self.seen.insert(s.to_owned(), (at, len));
                (at, len)
            }
        };
        Ok(format!("BlobStr::new({at}, {len})"))
    }

    /// `BlobStr::NONE` for `None`, else [`Blob::add`].
    pub fn add_opt(&mut self, s: Option<&str>) -> crate::error::Result<String> {
        s.map_or_else(|| Ok("BlobStr::NONE".to_owned()), |s| self.add(s))
    }

    /// `const {name}: &str` holding the blob, one string per line.
    pub fn text(&self, doc: &str, name: &str) -> String {
        let mut out = format!("/// {doc}\nconst {name}: &str = \"\\\n");
        for s in self.text.split_terminator('\0') {
            out.push_str("    ");
            out.push_str(&s.escape_default().to_string());
            out.push_str("\\0\\\n");
        }
        out.push_str("\";\n");
        out
    }
}

/// The generated crate's `src/phf.rs`: `probe`'s file as it is.
pub fn runtime_file() -> crate::error::Result<String> {
    Ok(super::runtime_files::copy(include_str!("runtime/phf.rs")))
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_key_has_its_own_slot() {
        let keys: Vec<String> = (0..900).map(|i| format!("vkCommand{i}")).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        let t = build(&refs).unwrap();
        for (i, k) in refs.iter().enumerate() {
            let h = hash(k.as_bytes());
            let d = t.disp[bucket(h, t.disp.len())];
            assert_eq!(
                t.slots[(mix(h, d) as usize) & (t.slots.len() - 1)],
                i as u16
            );
        }
    }

    #[test]
    fn blob_strings_are_stored_once_and_nul_terminated() {
        let mut b = Blob::default();
        assert_eq!(b.add("vkA").unwrap(), "BlobStr::new(0, 3)");
        assert_eq!(b.add("").unwrap(), "BlobStr::new(4, 0)");
        assert_eq!(b.add("vkA").unwrap(), "BlobStr::new(0, 3)");
        assert_eq!(b.add_opt(None).unwrap(), "BlobStr::NONE");
        assert_eq!(b.text, "vkA\0\0");
        assert_eq!(
            b.text("d", "S"),
            "/// d\nconst S: &str = \"\\\n    vkA\\0\\\n    \\0\\\n\";\n"
        );
        assert!(b.add("a\0b").is_err());
        let mut big = Blob::default();
        let long = "x".repeat(40_000);
        big.add(&long).unwrap();
        assert!(big.add(&"y".repeat(40_000)).is_err());
    }

    #[test]
    fn duplicate_keys_and_overflow_are_errors() {
        assert!(build(&["vkA", "vkB", "vkA"]).unwrap_err().contains("twice"));
        let keys: Vec<String> = (0..=MAX_KEYS).map(|i| format!("vkCommand{i}")).collect();
        let refs: Vec<&str> = keys.iter().map(String::as_str).collect();
        assert!(build(&refs).unwrap_err().contains("do not fit"));
        // The largest table that fits still gives every key its own slot.
        let t = build(&refs[..MAX_KEYS]).unwrap();
        assert!(t
            .slots
            .iter()
            .all(|&s| s == u16::MAX || (s as usize) < MAX_KEYS));
    }

    /// Every byte of a name reaches the hash and the compare, whatever the name's length
    /// (the whole words, the overlapping last one, the zero-extended short one).
    #[test]
    fn hash_and_compare_see_every_byte() {
        for n in 0..40usize {
            let a: Vec<u8> = (0..n).map(|i| b'a' + (i % 26) as u8).collect();
            assert!(probe::same(&a, &a.clone()));
            if n > 0 {
                assert_ne!(hash(&a), hash(&a[..n - 1]), "length {n}");
                assert!(!probe::same(&a, &a[..n - 1]));
            }
            for i in 0..n {
                let mut b = a.clone();
                b[i] ^= 0x20;
                assert_ne!(hash(&a), hash(&b), "length {n}, byte {i}");
                assert!(!probe::same(&a, &b), "length {n}, byte {i}");
            }
        }
    }
}
