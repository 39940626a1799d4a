//! How `vkgen driver` writes into a driver crate that exists: file by file, in place
//! (issue 33 part 3).
//!
//! A driver crate is the vendor's directory — their repository, an editor saving into it,
//! cargo's `target/`, `.git`, a shell whose working directory is inside it — not a tree
//! generated output may replace. Rebuilding the whole directory and swapping it in (what
//! [`crate::write`] does for `vkgen generate`'s output) left that shell in a deleted
//! directory, reset directory modes and owners, and lost what other processes wrote during the
//! run. So a re-run writes only the files vkgen owns (the ones it was given) and touches
//! nothing else:
//!
//! - an unchanged file is left alone (inode and mtime kept);
//! - a changed or missing file is written to a temporary file beside it and renamed over the
//!   old one, so a reader (cargo, an editor) sees the old file or the new one, never a part;
//!   it keeps the old file's permissions and, where the process may set them (under `sudo`),
//!   its owner and group; a new file made by root takes its directory's owner and group;
//! - a missing directory is created (by root: with its parent's owner); an existing
//!   directory is never replaced, moved, re-moded or re-owned;
//! - a symlink where a directory belongs is refused (nothing is written through it to
//!   somewhere outside the crate); a symlink where a file belongs is replaced by the file.
//!
//! Before anything is written every changed file's directory is checked (a real directory, or
//! one to create, and writable), so a read-only directory fails the run up front rather than
//! half-way. `vkgen.toml` goes last: a run that fails midway leaves the old record, and
//! `--check` then names what is stale. Runs in the same crate take turns on an `flock` of the
//! crate directory.
//!
//! A crate that does not exist yet has nothing to preserve: it is built whole in a staging
//! directory and renamed into place ([`crate::write`]), so a failed first run leaves nothing.

use std::fs::{self, Metadata};
use std::io::{self, Write};
use std::path::{Component, Path, PathBuf};
use std::sync::atomic::{AtomicU32, Ordering};

use crate::error::{Error, Result};
use crate::OutputFile;

/// Writes `files` (paths relative to `dir`) into crate `dir` as the module docs say.
pub fn write(files: &[OutputFile], dir: &Path) -> Result<()> {
    for f in files {
        let rel = Path::new(&f.path);
        if rel.is_absolute() || rel.components().any(|c| !matches!(c, Component::Normal(_))) {
            return Err(Error::Options(format!(
                "refusing to write outside --out: {}",
                f.path
            )));
        }
    }
    if fs::symlink_metadata(dir).is_err() {
        return crate::write(files, dir);
    }
    let _lock = lock(dir)?;
    let mut changed: Vec<&OutputFile> = files.iter().filter(|f| differs(dir, f)).collect();
    if changed.is_empty() {
        return Ok(());
    }
    // The record last (stable: the rest keep their order).
    changed.sort_by_key(|f| f.path == crate::record::FILE);
    for f in &changed {
        preflight(dir, Path::new(&f.path))?;
    }
    for f in &changed {
        place(dir, f)?;
    }
    Ok(())
}

/// Whether `f` is not already in `dir` as a regular file with its contents.
fn differs(dir: &Path, f: &OutputFile) -> bool {
    let path = dir.join(&f.path);
    let regular = fs::symlink_metadata(&path).is_ok_and(|m| m.is_file());
    !regular || fs::read(&path).ok().as_deref() != Some(f.contents.as_bytes())
}

/// An exclusive `flock` on the crate directory, released when the handle drops.
fn lock(dir: &Path) -> Result<fs::File> {
    let f = fs::File::open(dir).map_err(|e| Error::io(dir, e))?;
    #[cfg(unix)]
    rustix::fs::flock(&f, rustix::fs::FlockOperation::LockExclusive)
        .map_err(|e| Error::io(dir, e.into()))?;
    Ok(f)
}

/// Refuses, before anything is written, a file whose way from `dir` crosses a symlink or a
/// file where a directory belongs, or whose nearest existing directory is read-only.
fn preflight(dir: &Path, rel: &Path) -> Result<()> {
    let mut at = dir.to_owned();
    let mut deepest = dir.to_owned();
    for c in rel.parent().into_iter().flat_map(Path::components) {
        at.push(c);
        match fs::symlink_metadata(&at) {
            Ok(m) if m.is_dir() => deepest.clone_from(&at),
            Ok(m) if m.file_type().is_symlink() => {
                return Err(refusal(
                    &at,
                    "is a symlink: vkgen writes nothing through it",
                ))
            }
            Ok(_) => return Err(refusal(&at, "is not a directory")),
            Err(e) if e.kind() == io::ErrorKind::NotFound => break,
            Err(e) => return Err(Error::io(&at, e)),
        }
    }
    if !writable(&deepest) {
        return Err(refusal(&deepest, "is read-only: nothing was written"));
    }
    Ok(())
}

fn refusal(path: &Path, what: &str) -> Error {
    Error::Options(format!("{} {what}", path.display()))
}

/// Writable by its mode (even for root, who could write it anyway) and by this process.
fn writable(p: &Path) -> bool {
    let mode_ok = fs::metadata(p).is_ok_and(|m| !m.permissions().readonly());
    #[cfg(unix)]
    let access_ok = rustix::fs::access(p, rustix::fs::Access::WRITE_OK).is_ok();
    #[cfg(not(unix))]
    let access_ok = true;
    mode_ok && access_ok
}

/// Creates the missing directories on the way to `rel`'s parent (checked by [`preflight`]).
fn make_dirs(dir: &Path, rel: &Path) -> Result<PathBuf> {
    let mut at = dir.to_owned();
    for c in rel.parent().into_iter().flat_map(Path::components) {
        let parent = at.clone();
        at.push(c);
        if fs::symlink_metadata(&at).is_ok() {
            continue;
        }
        fs::create_dir(&at).map_err(|e| Error::io(&at, e))?;
        let owner = fs::metadata(&parent).map_err(|e| Error::io(&parent, e))?;
        inherit_owner(&at, None, &owner)?;
    }
    Ok(at)
}

/// Writes `f` to a temporary file beside its place and renames it there.
fn place(dir: &Path, f: &OutputFile) -> Result<()> {
    static SEQ: AtomicU32 = AtomicU32::new(0);
    let rel = Path::new(&f.path);
    let parent = make_dirs(dir, rel)?;
    let path = dir.join(rel);
    let name = rel.file_name().unwrap_or_default().to_string_lossy();
    let tmp = parent.join(format!(
        ".{name}.vkgen-{}-{}",
        std::process::id(),
        SEQ.fetch_add(1, Ordering::Relaxed)
    ));
    let old = fs::symlink_metadata(&path).ok().filter(Metadata::is_file);
    let staged = (|| -> Result<()> {
        let mut file = fs::OpenOptions::new()
            .write(true)
            .create_new(true)
            .open(&tmp)
            .map_err(|e| Error::io(&path, e))?;
        file.write_all(f.contents.as_bytes())
            .map_err(|e| Error::io(&path, e))?;
        match &old {
            Some(m) => {
                // Owner first: a change of owner may clear mode bits the old file had.
                inherit_owner(&tmp, Some(&file), m)?;
                file.set_permissions(m.permissions())
                    .map_err(|e| Error::io(&path, e))
            }
            None => {
                let owner = fs::metadata(&parent).map_err(|e| Error::io(&parent, e))?;
                inherit_owner(&tmp, Some(&file), &owner)
            }
        }
    })();
    let renamed = staged.and_then(|()| fs::rename(&tmp, &path).map_err(|e| Error::io(&path, e)));
    if renamed.is_err() {
        let _ = fs::remove_file(&tmp);
    }
    renamed
}

/// Gives `path` (open as `file`, when it is one) the owner and group of `like` — the file it
/// replaces, or for something new its directory. A process that may not (not root, another
/// user's file) leaves the kernel's choice: the caller's, who is then the owner anyway.
#[cfg(unix)]
fn inherit_owner(path: &Path, file: Option<&fs::File>, like: &Metadata) -> Result<()> {
    use rustix::fs::{Gid, Uid};
    use std::os::unix::fs::MetadataExt;
    let replacing = file.is_some() && like.is_file();
    if !replacing && !rustix::process::geteuid().is_root() {
        // A new file or directory of an ordinary user is theirs, its group the kernel's
        // (the directory's where it is setgid).
        return Ok(());
    }
    let now = fs::symlink_metadata(path).map_err(|e| Error::io(path, e))?;
    if (now.uid(), now.gid()) == (like.uid(), like.gid()) {
        return Ok(());
    }
    let (uid, gid) = (Uid::from_raw(like.uid()), Gid::from_raw(like.gid()));
    let changed = match file {
        Some(f) => rustix::fs::fchown(f, Some(uid), Some(gid)),
        None => rustix::fs::chown(path, Some(uid), Some(gid)),
    };
    match changed {
        Ok(()) | Err(rustix::io::Errno::PERM) => Ok(()),
        Err(e) => Err(Error::io(path, e.into())),
    }
}

#[cfg(not(unix))]
fn inherit_owner(_: &Path, _: Option<&fs::File>, _: &Metadata) -> Result<()> {
    Ok(())
}
