//! Layer dirs inside an APK (`/data/app/…/base.apk!/lib/<abi>`), as AOSP's `ForEachFileInZip`
//! (`layers_extensions.cpp`) lists them, and, on Linux hosts, how the host linker opens a library
//! stored in one. A module of its own, below both `layers` (which lists the entries) and
//! `driver::linker` (whose host stand-in opens them).
//!
//! Only entries directly in the dir, STORED (not compressed) and whose data starts on a page
//! boundary are candidates: those are what the bionic linker can map straight from the APK
//! (`dlopen("base.apk!/lib/<abi>/libVkLayer_x.so")`), which is how Android opens them. On Linux
//! hosts glibc cannot open a library inside a zip, so the entry's bytes (it is stored, so they
//! are the library itself) are copied into a sealed `memfd` and that is opened through
//! `/proc/self/fd` (a Linux-host divergence; the zip rules themselves are AOSP's).
//!
//! The zip reader is the minimum these rules need: the end-of-central-directory record (no
//! ZIP64), the central directory's method, sizes and local-header offsets, and each local header's
//! name and extra lengths (the data offset). Anything malformed lists nothing, logged.

use std::io::{Read, Seek, SeekFrom};
use std::path::{Path, PathBuf};

use libloading::os::unix::Library;

/// `!/` separates the APK from the dir inside it, as in AOSP's layer paths.
pub const SEPARATOR: &str = "!/";

/// The central directory is at most this far from the end, and holds at most this many entries
/// we look at (an APK is attacker-supplied on debuggable builds).
const MAX_EOCD_SEARCH: u64 = 0xFFFF + 22;
const MAX_ENTRIES: usize = 1 << 16;
const MAX_CENTRAL_DIRECTORY: u64 = 64 << 20;

const EOCD_SIGNATURE: u32 = 0x0605_4b50;
const CENTRAL_SIGNATURE: u32 = 0x0201_4b50;
const LOCAL_SIGNATURE: u32 = 0x0403_4b50;
/// Compression method 0.
const STORED: u16 = 0;

/// `path` split at [`SEPARATOR`] into the APK and the dir inside it, if it names one.
pub fn split(path: &Path) -> Option<(PathBuf, String)> {
    let s = path.to_str()?;
    let (zip, dir) = s.split_once(SEPARATOR)?;
    Some((PathBuf::from(zip), dir.trim_end_matches('/').to_owned()))
}

/// One STORED entry: where its bytes are in the APK.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Entry {
    /// The file name inside the dir.
    pub name: String,
    /// Offset of the data in the APK.
    pub offset: u64,
    /// Its length.
    pub size: u64,
}

fn u16_at(b: &[u8], at: usize) -> Option<u16> {
    Some(u16::from_le_bytes(b.get(at..at + 2)?.try_into().ok()?))
}

fn u32_at(b: &[u8], at: usize) -> Option<u32> {
    Some(u32::from_le_bytes(b.get(at..at + 4)?.try_into().ok()?))
}

/// The central directory's bytes and its entry count.
fn central_directory(file: &mut std::fs::File) -> std::io::Result<Option<(Vec<u8>, usize)>> {
    let len = file.metadata()?.len();
    let start = len.saturating_sub(MAX_EOCD_SEARCH);
    file.seek(SeekFrom::Start(start))?;
    let mut tail = Vec::new();
    file.take(MAX_EOCD_SEARCH).read_to_end(&mut tail)?;
    let Some(eocd) = (0..tail.len().saturating_sub(21))
        .rev()
        .find(|&i| u32_at(&tail, i) == Some(EOCD_SIGNATURE))
    else {
        return Ok(None);
    };
    let (Some(count), Some(size), Some(offset)) = (
        u16_at(&tail, eocd + 10),
        u32_at(&tail, eocd + 12),
        u32_at(&tail, eocd + 16),
    ) else {
        return Ok(None);
    };
    if u64::from(size) > MAX_CENTRAL_DIRECTORY || u64::from(offset) + u64::from(size) > len {
        return Ok(None);
    }
    file.seek(SeekFrom::Start(u64::from(offset)))?;
    let mut cd = vec![0; size as usize];
    file.read_exact(&mut cd)?;
    Ok(Some((cd, usize::from(count).min(MAX_ENTRIES))))
}

/// Where the data of the entry whose local header is at `local` starts.
fn data_offset(file: &mut std::fs::File, local: u64) -> std::io::Result<Option<u64>> {
    let mut header = [0u8; 30];
    file.seek(SeekFrom::Start(local))?;
    file.read_exact(&mut header)?;
    if u32_at(&header, 0) != Some(LOCAL_SIGNATURE) {
        return Ok(None);
    }
    let name = u16_at(&header, 26).map_or(0, u64::from);
    let extra = u16_at(&header, 28).map_or(0, u64::from);
    Ok(Some(local + 30 + name + extra))
}

/// The entries of `dir` in the APK `zip` that AOSP's `ForEachFileInZip` offers: directly in
/// `dir`, STORED, data page-aligned; in central-directory order. A missing or malformed APK
/// lists nothing (logged).
pub fn stored_entries(zip: &Path, dir: &str) -> Vec<Entry> {
    match try_stored_entries(zip, dir) {
        Ok(list) => list,
        Err(e) => {
            log::warn!("layer APK {}: {e}", zip.display());
            Vec::new()
        }
    }
}

fn try_stored_entries(zip: &Path, dir: &str) -> std::io::Result<Vec<Entry>> {
    let mut file = std::fs::File::open(zip)?;
    let Some((cd, count)) = central_directory(&mut file)? else {
        log::warn!("layer APK {}: no usable central directory", zip.display());
        return Ok(Vec::new());
    };
    let page = rustix::param::page_size() as u64;
    let prefix = format!("{dir}/");
    let mut out = Vec::new();
    let mut at = 0usize;
    for _ in 0..count {
        if u32_at(&cd, at) != Some(CENTRAL_SIGNATURE) {
            break;
        }
        let field = |off| u16_at(&cd, at + off).map_or(0, usize::from);
        let (name_len, extra_len, comment_len) = (field(28), field(30), field(32));
        let method = u16_at(&cd, at + 10);
        let size = u32_at(&cd, at + 20).map_or(0, u64::from);
        let local = u32_at(&cd, at + 42).map_or(0, u64::from);
        let name = cd
            .get(at + 46..at + 46 + name_len)
            .map(|b| String::from_utf8_lossy(b).into_owned());
        at += 46 + name_len + extra_len + comment_len;
        let Some(file_name) = name
            .as_deref()
            .and_then(|n| n.strip_prefix(&prefix))
            .filter(|n| !n.is_empty() && !n.contains('/'))
        else {
            continue;
        };
        if method != Some(STORED) {
            log::debug!(
                "{}!/{prefix}{file_name}: compressed; skipped",
                zip.display()
            );
            continue;
        }
        match data_offset(&mut file, local)? {
            Some(offset) if offset % page == 0 => out.push(Entry {
                name: file_name.to_owned(),
                offset,
                size,
            }),
            _ => log::debug!(
                "{}!/{prefix}{file_name}: not page-aligned; skipped",
                zip.display()
            ),
        }
    }
    Ok(out)
}

/// Opens the library at `path` (`<apk>!/<dir>/<file>`): bionic maps it from the APK itself;
/// elsewhere its stored bytes go through a sealed `memfd`.
pub fn open(path: &Path) -> Result<Library, String> {
    #[cfg(target_os = "android")]
    {
        dlopen(path)
    }
    #[cfg(not(target_os = "android"))]
    {
        open_through_memfd(path)
    }
}

#[cfg(not(target_os = "android"))]
fn open_through_memfd(path: &Path) -> Result<Library, String> {
    use rustix::fs::{MemfdFlags, SealFlags};
    let (zip, inner) = split(path).ok_or("not an APK path")?;
    let (dir, file_name) = inner.rsplit_once('/').ok_or("no dir inside the APK")?;
    let entry = stored_entries(&zip, dir)
        .into_iter()
        .find(|e| e.name == file_name)
        .ok_or("no such stored, page-aligned entry")?;
    let mut apk = std::fs::File::open(&zip).map_err(|e| e.to_string())?;
    apk.seek(SeekFrom::Start(entry.offset))
        .map_err(|e| e.to_string())?;
    let fd = rustix::fs::memfd_create(file_name, MemfdFlags::CLOEXEC | MemfdFlags::ALLOW_SEALING)
        .map_err(|e| e.to_string())?;
    let mut copy = std::fs::File::from(fd);
    let copied = std::io::copy(&mut apk.take(entry.size), &mut copy).map_err(|e| e.to_string())?;
    if copied != entry.size {
        return Err(format!("entry truncated: {copied} of {} bytes", entry.size));
    }
    rustix::fs::fcntl_add_seals(
        &copy,
        SealFlags::WRITE | SealFlags::GROW | SealFlags::SHRINK,
    )
    .map_err(|e| e.to_string())?;
    let proc_path = PathBuf::from(format!(
        "/proc/self/fd/{}",
        std::os::fd::AsRawFd::as_raw_fd(&copy)
    ));
    // The mapping outlives the fd, which `copy` closes when dropped.
    dlopen(&proc_path)
}

/// `dlopen(path, RTLD_NOW | RTLD_LOCAL)`, as every library the loader opens.
fn dlopen(path: &Path) -> Result<Library, String> {
    use libloading::os::unix::{RTLD_LOCAL, RTLD_NOW};
    // SAFETY: loading a layer library runs its initialisers; that is the point of loading it,
    // and which entries are eligible is decided by the caller's search rules.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }.map_err(|e| e.to_string())
}

// Tests: `layers::apk_tests` (they build layer fixtures, which are the layers module's).
