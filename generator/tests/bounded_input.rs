//! Issue 36: inputs that used to make vkgen run without bound. A bitfield wider than its type
//! (the struct emitter looped for ever on it) and a FIFO or `/dev/zero` link given as
//! `--registry` or as a crate's `vkgen.toml` (a blocking or endless read) each end quickly with
//! a located or named error.

use std::path::Path;
use std::process::{Command, Stdio};
use std::time::{Duration, Instant};

/// A small registry that generates (fixtures/harden.xml).
const BASE: &str = include_str!("fixtures/harden.xml");

fn load(text: &str) -> Result<vkgen::registry::Loaded, vkgen::Error> {
    vkgen::load_bytes(text.as_bytes(), Path::new("vk.xml"), None)
}

/// `BASE` with the struct member `x` declared with `decl` after its name (` :33`, ...) and its
/// type `ty`.
fn with_member(ty: &str, decl: &str) -> String {
    let old = "<member><type>uint32_t</type> <name>x</name></member>";
    assert!(BASE.contains(old));
    BASE.replace(
        old,
        &format!("<member><type>{ty}</type> <name>x</name>{decl}</member>"),
    )
}

#[test]
fn bitfields_wider_than_their_type_or_zero_are_located_errors() {
    for (ty, decl) in [
        ("uint32_t", ":33"),
        ("uint32_t", ":64"),
        ("uint32_t", ":0"),
        ("uint64_t", ":65"),
    ] {
        let text = with_member(ty, decl);
        let e = load(&text).expect_err(decl);
        let msg = e.to_string();
        assert_eq!(e.exit_code(), 2, "{msg}");
        let line = text[..text.find("<name>x</name>").unwrap()]
            .matches('\n')
            .count()
            + 1;
        assert!(msg.starts_with(&format!("vk.xml:{line}:")), "{msg}");
        assert!(msg.contains("bitfield width"), "{msg}");
    }
    // The widths C allows still generate: the whole type, and a 64-bit one.
    for (ty, decl) in [("uint32_t", ":32"), ("uint64_t", ":64"), ("uint32_t", ":1")] {
        let loaded = load(&with_member(ty, decl)).unwrap_or_else(|e| panic!("{decl}: {e}"));
        let source = vkgen::registry::Source {
            path: "vk.xml".into(),
            how: "test",
        };
        vkgen::generate_loaded(loaded, source, &vkgen::Options::default()).unwrap();
    }
}

/// Runs vkgen with `args`; fails the test if it has not ended after 20 s (it used to block or
/// read for ever). Returns the exit code and stderr.
fn vkgen_bounded(args: &[&std::ffi::OsStr]) -> (Option<i32>, String) {
    let mut child = Command::new(env!("CARGO_BIN_EXE_vkgen"))
        .args(args)
        .stdin(Stdio::null())
        .stdout(Stdio::null())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    let start = Instant::now();
    loop {
        if let Some(status) = child.try_wait().unwrap() {
            let mut err = String::new();
            std::io::Read::read_to_string(&mut child.stderr.take().unwrap(), &mut err).unwrap();
            return (status.code(), err);
        }
        if start.elapsed() > Duration::from_secs(20) {
            child.kill().unwrap();
            panic!("vkgen {args:?} still running after 20 s");
        }
        std::thread::sleep(Duration::from_millis(20));
    }
}

fn mkfifo(p: &Path) {
    let c = std::ffi::CString::new(p.as_os_str().as_encoded_bytes()).unwrap();
    // SAFETY: `c` is a NUL-terminated path that outlives the call.
    assert_eq!(unsafe { libc::mkfifo(c.as_ptr(), 0o600) }, 0);
}

#[test]
fn a_fifo_or_dev_zero_as_registry_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("fifo.xml");
    mkfifo(&fifo);
    let zero = dir.path().join("zero.xml");
    std::os::unix::fs::symlink("/dev/zero", &zero).unwrap();
    let out = dir.path().join("out");
    for (reg, what) in [(&fifo, "a FIFO"), (&zero, "a character device")] {
        let (code, err) = vkgen_bounded(&[
            "generate".as_ref(),
            "--registry".as_ref(),
            reg.as_os_str(),
            "--out".as_ref(),
            out.as_os_str(),
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains(&*reg.to_string_lossy()), "{err}");
        assert!(err.contains(what), "{err}");
    }
    assert!(!out.exists());
}

#[test]
fn a_fifo_or_dev_zero_as_vkgen_toml_is_refused_without_blocking() {
    let dir = tempfile::tempdir().unwrap();
    let record = |name: &str| {
        let krate = dir.path().join(name);
        std::fs::create_dir(&krate).unwrap();
        krate
    };
    let fifo_crate = record("fifo");
    mkfifo(&fifo_crate.join("vkgen.toml"));
    let zero_crate = record("zero");
    std::os::unix::fs::symlink("/dev/zero", zero_crate.join("vkgen.toml")).unwrap();
    for (krate, what) in [(&fifo_crate, "a FIFO"), (&zero_crate, "a character device")] {
        let (code, err) = vkgen_bounded(&[
            "driver".as_ref(),
            "--out".as_ref(),
            krate.as_os_str(),
            "--check".as_ref(),
        ]);
        assert_eq!(code, Some(2), "{err}");
        assert!(err.contains("vkgen.toml"), "{err}");
        assert!(err.contains(what), "{err}");
    }
}

#[test]
fn read_regular_refuses_fifos_devices_and_directories_without_blocking() {
    use std::io::ErrorKind;
    use vkgen::input::{read_regular, ReadError};
    let dir = tempfile::tempdir().unwrap();
    let fifo = dir.path().join("vk.xml");
    mkfifo(&fifo);
    let link = dir.path().join("zero.xml");
    std::os::unix::fs::symlink("/dev/zero", &link).unwrap();
    for (p, what) in [
        (&fifo, "a FIFO"),
        (&link, "a character device"),
        (&dir.path().to_owned(), "a directory"),
    ] {
        let Err(ReadError::Io(e)) = read_regular(p, 1 << 20) else {
            panic!("{} read", p.display());
        };
        assert_eq!(e.kind(), ErrorKind::InvalidInput);
        assert!(e.to_string().contains(what), "{e}");
    }
}

#[test]
fn read_regular_refuses_files_over_the_limit_and_reads_others_whole() {
    use vkgen::input::{read_regular, read_regular_text, ReadError};
    let dir = tempfile::tempdir().unwrap();
    let p = dir.path().join("f");
    std::fs::write(&p, b"0123456789").unwrap();
    assert_eq!(read_regular(&p, 10).unwrap(), b"0123456789");
    assert!(matches!(read_regular(&p, 9), Err(ReadError::TooBig(10))));
    assert_eq!(read_regular_text(&p, 10).unwrap(), "0123456789");
}
