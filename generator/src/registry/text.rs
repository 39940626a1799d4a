//! Positions in registry text, computed in time linear in its size: line and column lookups that
//! never rescan a line, XML end-of-line normalisation, and the attribute-count check that runs
//! before roxmltree (whose duplicate-attribute check is quadratic per element).

/// Line and column of byte offsets in a text, in `O(log lines + BLOCK)` per lookup after one
/// linear pass: line starts are a sorted table (binary search), and columns count characters from
/// the nearest [`LineIndex::BLOCK`]-byte checkpoint instead of from the start of a (possibly
/// 60 MB long) line. A block of ASCII alone (all of vk.xml's but a few) needs no count at all:
/// the parser asks for ten thousand positions, and counting was a fifth of a whole `generate`.
/// Lines end at LF, CR LF or a lone CR (XML's end-of-line handling).
pub struct LineIndex<'a> {
    text: &'a [u8],
    /// Byte offset of each line start.
    line_starts: Vec<usize>,
    /// Characters in `text[..k * BLOCK]`, for every `k`.
    block_chars: Vec<usize>,
    /// Whether block `k` is ASCII, where characters are bytes.
    block_ascii: Vec<bool>,
}

impl<'a> LineIndex<'a> {
    /// Bytes between character-count checkpoints.
    pub const BLOCK: usize = 4096;

    pub fn new(text: &'a str) -> Self {
        let bytes = text.as_bytes();
        let mut line_starts = vec![0];
        for i in memchr::memchr2_iter(b'\n', b'\r', bytes) {
            if bytes[i] == b'\n' || bytes.get(i + 1) != Some(&b'\n') {
                line_starts.push(i + 1);
            }
        }
        let mut block_chars = Vec::with_capacity(bytes.len() / Self::BLOCK + 1);
        let mut block_ascii = Vec::with_capacity(bytes.len() / Self::BLOCK + 1);
        let mut chars = 0;
        for block in bytes.chunks(Self::BLOCK) {
            let ascii = block.is_ascii();
            block_chars.push(chars);
            block_ascii.push(ascii);
            chars += if ascii {
                block.len()
            } else {
                count_chars(block)
            };
        }
        block_chars.push(chars);
        block_ascii.push(true);
        LineIndex {
            text: bytes,
            line_starts,
            block_chars,
            block_ascii,
        }
    }

    /// Characters before byte `at` (clamped to the text).
    fn chars_before(&self, at: usize) -> usize {
        let at = at.min(self.text.len());
        let block = at / Self::BLOCK;
        let within = &self.text[block * Self::BLOCK..at];
        self.block_chars[block]
            + if self.block_ascii[block] {
                within.len()
            } else {
                count_chars(within)
            }
    }

    /// 1-based line of byte `at`.
    pub fn line(&self, at: usize) -> u32 {
        let line = self.line_starts.partition_point(|&s| s <= at);
        u32::try_from(line).unwrap_or(u32::MAX)
    }

    /// 1-based `(line, column)` of byte `at`; the column counts characters, as roxmltree's do.
    pub fn line_col(&self, at: usize) -> (u32, u32) {
        let line = self.line_starts.partition_point(|&s| s <= at);
        let start = self.line_starts[line.saturating_sub(1)];
        let col = self.chars_before(at) - self.chars_before(start) + 1;
        (
            u32::try_from(line).unwrap_or(u32::MAX),
            u32::try_from(col).unwrap_or(u32::MAX),
        )
    }
}

/// Characters in a slice of UTF-8 text that may start or end inside a character: the bytes that
/// are not continuation bytes.
fn count_chars(bytes: &[u8]) -> usize {
    bytes.iter().filter(|&&b| b & 0xc0 != 0x80).count()
}

/// XML end-of-line handling done before parsing (CR LF and lone CR become LF), so that roxmltree's
/// own error positions count CR-only lines too. vk.xml uses LF only and is borrowed unchanged.
pub(super) fn normalize_newlines(text: &str) -> std::borrow::Cow<'_, str> {
    if text.contains('\r') {
        text.replace("\r\n", "\n").replace('\r', "\n").into()
    } else {
        text.into()
    }
}

/// Most attributes one element may have (vk.xml's elements have at most a dozen). roxmltree checks
/// each new attribute against all earlier ones of its element, so an element with 100,000
/// attributes takes minutes to parse: this is checked first, in one linear scan.
pub const MAX_ATTRIBUTES: usize = 256;

/// At most 80 characters of `s`, for messages about hostile input.
pub(super) fn clip(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// Lower-case hex SHA-256 of `bytes` (what `sha256sum` prints).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn line_index_counts_lf_crlf_and_lone_cr() {
        let text = "a\nbc\r\nd\re\u{e9}f";
        let ix = LineIndex::new(text);
        assert_eq!(ix.line_col(0), (1, 1));
        assert_eq!(ix.line_col(3), (2, 2));
        assert_eq!(ix.line_col(6), (3, 1));
        assert_eq!(ix.line_col(8), (4, 1));
        // After a two-byte character the column counts characters, not bytes.
        assert_eq!(ix.line_col(text.len() - 1), (4, 3));
    }

    #[test]
    fn line_index_columns_do_not_rescan_the_line() {
        // One 1 MB line of multi-byte characters: every lookup counts at most one block from its
        // checkpoint, so 10,000 lookups touch ~40 MB, not 10,000 × 1 MB.
        let text = "\u{e9}".repeat(1 << 19);
        let ix = LineIndex::new(&text);
        for k in 0..10_000usize {
            let at = (k * 104) & !1;
            assert_eq!(ix.line_col(at), (1, (at / 2 + 1) as u32));
        }
        assert_eq!(
            ix.block_chars.len(),
            text.len().div_ceil(LineIndex::BLOCK) + 1
        );
    }

    #[test]
    fn ascii_and_multi_byte_blocks_give_the_naive_columns() {
        // Blocks of ASCII (counted by length) between blocks holding `é` (counted per byte),
        // with lines crossing block edges: every offset agrees with counting from the line start.
        let mut text = String::new();
        for k in 0..40 {
            let line = if k % 3 == 0 {
                "x\u{e9}y".repeat(900)
            } else {
                "ab".repeat(1500)
            };
            text.push_str(&line);
            text.push('\n');
        }
        let ix = LineIndex::new(&text);
        let naive = |at: usize| {
            let start = text[..at].rfind('\n').map_or(0, |i| i + 1);
            let line = text[..at].matches('\n').count() + 1;
            (line as u32, (text[start..at].chars().count() + 1) as u32)
        };
        for at in (0..text.len())
            .step_by(97)
            .filter(|&at| text.is_char_boundary(at))
        {
            assert_eq!(ix.line_col(at), naive(at), "offset {at}");
        }
    }
}
