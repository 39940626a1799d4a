//! Reading the files a user names (`--registry`, `vkgen.toml`, profiles): regular files only,
//! never more than a limit. A FIFO would block `open` or `read` for ever and a link to
//! `/dev/zero` would be read until memory runs out (issue 36), so the file is opened without
//! blocking, its kind is taken from the open descriptor (not the path, which may change
//! between a check and the open), and the read stops one byte past the limit.

use std::io::{Error, ErrorKind, Read};
use std::os::unix::fs::OpenOptionsExt;
use std::path::Path;

/// Why a bounded read failed: an I/O error (including "not a regular file"), or the file is
/// larger than the limit (at least this many bytes).
#[derive(Debug)]
pub enum ReadError {
    Io(Error),
    TooBig(u64),
}

impl From<ReadError> for Error {
    fn from(e: ReadError) -> Self {
        match e {
            ReadError::Io(e) => e,
            ReadError::TooBig(n) => Error::new(
                ErrorKind::InvalidData,
                format!("the file is at least {n} bytes, more than vkgen reads"),
            ),
        }
    }
}

/// The bytes of the regular file at `path` (links followed), at most `max` of them.
pub fn read_regular(path: &Path, max: u64) -> Result<Vec<u8>, ReadError> {
    // O_NONBLOCK: opening a FIFO for reading would otherwise wait for a writer; it has no
    // effect on a regular file's reads.
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(rustix::fs::OFlags::NONBLOCK.bits() as i32)
        .open(path)
        .map_err(ReadError::Io)?;
    let meta = file.metadata().map_err(ReadError::Io)?;
    if !meta.is_file() {
        return Err(ReadError::Io(Error::new(
            ErrorKind::InvalidInput,
            format!("not a regular file ({})", kind(&meta.file_type())),
        )));
    }
    // The size is a hint (a file may grow while read): the bounded read enforces the limit.
    if meta.len() > max {
        return Err(ReadError::TooBig(meta.len()));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(meta.len()).unwrap_or(0));
    file.take(max + 1)
        .read_to_end(&mut bytes)
        .map_err(ReadError::Io)?;
    if bytes.len() as u64 > max {
        return Err(ReadError::TooBig(bytes.len() as u64));
    }
    Ok(bytes)
}

/// [`read_regular`] as UTF-8 text.
pub fn read_regular_text(path: &Path, max: u64) -> Result<String, Error> {
    let bytes = read_regular(path, max)?;
    String::from_utf8(bytes).map_err(|e| Error::new(ErrorKind::InvalidData, e))
}

fn kind(t: &std::fs::FileType) -> &'static str {
    use std::os::unix::fs::FileTypeExt;
    if t.is_dir() {
        "a directory"
    } else if t.is_fifo() {
        "a FIFO"
    } else if t.is_char_device() {
        "a character device"
    } else if t.is_block_device() {
        "a block device"
    } else if t.is_socket() {
        "a socket"
    } else {
        "not a plain file"
    }
}
