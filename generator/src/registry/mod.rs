//! Reading vk.xml into the model. roxmltree parses each file, vk.xml in pieces on threads where it
//! can be cut (`pieces.rs`); the Android native-buffer description from `registry/` is parsed the
//! same way and laid over vk.xml by element name.
//!
//! Schema drift policy: unknown elements and attributes are tolerated with a warning (revisions we
//! have never seen must still generate), unknown values of attributes whose meaning we rely on
//! (`category`, extension `type`) are errors, and references to things nothing defines are errors
//! naming the referring element.
//!
//! The parts: `pieces.rs` plans where vk.xml is cut, `parse.rs` walks the document (or its
//! pieces) and reads declarations (types, commands), `interface.rs` reads enumerants and the
//! `<require>` blocks of features and extensions, `overlay.rs` lays the overlay over vk.xml,
//! `validate.rs` checks the finished registry as a whole, and `values.rs` evaluates the integers
//! vk.xml writes as C text.

pub mod cdecl;
mod compare;
pub mod depends;
mod features;
mod formats;
mod interface;
mod overlay;
mod parse;
mod pieces;
mod sections;
pub mod text;
mod validate;
mod values;

pub use overlay::{overlay_and_finish, overlay_from, OVERLAY_EXTENSION};
pub use parse::parse_str;
pub use text::{sha256_hex, LineIndex, MAX_ATTRIBUTES};
pub use values::{
    array_len, constant_value, enum_value, parse_c_int, parse_c_literal, CInt, MAX_ARRAY_LEN,
    MAX_LITERAL_LEN,
};

use std::path::{Path, PathBuf};

use crate::error::{Error, Result};
use crate::model::*;
use validate::finish;

/// The parsed registry plus what the parser had to say about it.
#[derive(Debug)]
pub struct Loaded {
    pub registry: Registry,
    pub warnings: Vec<String>,
}

/// Reads and parses `vk_xml`, then lays `overlay` (our Android native-buffer description) over it.
pub fn load(vk_xml: &Path, overlay: Option<&Path>) -> Result<Loaded> {
    let bytes = read_registry(vk_xml)?;
    let mut warnings = Vec::new();
    let mut registry = parse_str(decode(&bytes, vk_xml)?, vk_xml, &mut warnings)?;
    if let Some(path) = overlay {
        let bytes = read_registry(path)?;
        let over = parse_str(decode(&bytes, path)?, path, &mut warnings)?;
        overlay_from(&mut registry, over, vk_xml, path, &mut warnings)?;
    } else {
        finish(&mut registry, vk_xml, &mut warnings)?;
    }
    Ok(Loaded { registry, warnings })
}

/// Largest registry file vkgen reads (vk.xml 1.4 is about 3.3 MB).
pub const MAX_REGISTRY_BYTES: usize = 64 << 20;

/// Reads a registry file of at most [`MAX_REGISTRY_BYTES`]: a larger one (or an endless one such
/// as `/dev/zero`) is refused after reading one byte past the limit, never read whole.
/// Only a regular file is read (a FIFO or a device is refused without blocking: see `input`).
pub fn read_registry(path: &Path) -> Result<Vec<u8>> {
    use crate::input::{read_regular, ReadError};
    read_regular(path, MAX_REGISTRY_BYTES as u64).map_err(|e| match e {
        ReadError::TooBig(n) => too_big(path, n),
        ReadError::Io(e) => Error::io(path, e),
    })
}

fn too_big(path: &Path, len: u64) -> Error {
    Error::Xml {
        path: path.to_owned(),
        line: 1,
        col: 1,
        message: format!(
            "file is at least {len} bytes; registries over {MAX_REGISTRY_BYTES} bytes are refused"
        ),
    }
}

/// The registry text, or `FILE:LINE:COL` of the first byte that is not UTF-8.
pub fn decode<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str> {
    if bytes.len() > MAX_REGISTRY_BYTES {
        return Err(Error::Xml {
            path: path.to_owned(),
            line: 1,
            col: 1,
            message: format!(
                "file is {} bytes; registries over {MAX_REGISTRY_BYTES} bytes are refused",
                bytes.len()
            ),
        });
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        // The prefix is valid UTF-8; lines end at LF, CR LF or a lone CR, as XML reads them.
        let (line, col) = match std::str::from_utf8(good) {
            Ok(t) => LineIndex::new(t).line_col(good.len()),
            Err(_) => (1, 1),
        };
        Error::Xml {
            path: path.to_owned(),
            line,
            col,
            message: format!("invalid UTF-8 (byte 0x{:02x})", bytes[e.valid_up_to()]),
        }
    })
}

/// Where a registry came from, reported to the user.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: PathBuf,
    pub how: &'static str,
}

/// Picks the registry: the explicit path, else `$VKGEN_REGISTRY`, else Debian's vk.xml.
pub fn locate(explicit: Option<&Path>) -> Source {
    if let Some(p) = explicit {
        return Source {
            path: p.to_owned(),
            how: "--registry",
        };
    }
    if let Some(p) = std::env::var_os("VKGEN_REGISTRY") {
        return Source {
            path: PathBuf::from(p),
            how: "$VKGEN_REGISTRY",
        };
    }
    Source {
        path: PathBuf::from(DEBIAN_REGISTRY),
        how: "Debian's libvulkan-dev",
    }
}

pub const DEBIAN_REGISTRY: &str = "/usr/share/vulkan/registry/vk.xml";
