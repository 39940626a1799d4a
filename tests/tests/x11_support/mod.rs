//! Shared by the tests that run X11 programs (`desktop_x11.rs`, `desktop_clients.rs`): an
//! Xvfb server on a display of its own, and a read-back of its root window.

#![allow(dead_code)]

use std::path::{Path, PathBuf};
use std::process::{Child, Command, Stdio};

use x11rb::connection::Connection;
use x11rb::protocol::xproto::{ConnectionExt as _, ImageFormat};

/// An Xvfb server on a free display, killed on drop. One at a time per test binary: with two
/// servers started side by side, vkcube's libxcb at times could not connect to either
/// ("Cannot connect to XCB"), though each had accepted x11rb's connection.
pub struct Xvfb {
    child: Child,
    pub display: String,
    _one_at_a_time: std::sync::MutexGuard<'static, ()>,
}

/// Serialises the Xvfb users of one test binary.
static ONE_XVFB: std::sync::Mutex<()> = std::sync::Mutex::new(());

impl Xvfb {
    /// Starts Xvfb on a display it picks itself (`-displayfd`), so parallel tests never share.
    pub fn start() -> Option<Xvfb> {
        use std::io::BufRead as _;
        // A test that panicked while holding it poisoned nothing it shares.
        let one_at_a_time = ONE_XVFB
            .lock()
            .unwrap_or_else(std::sync::PoisonError::into_inner);
        let bin = which("Xvfb")?;
        let mut child = Command::new(&bin)
            .args([
                "-displayfd",
                "1",
                "-screen",
                "0",
                "720x720x24",
                "-nolisten",
                "tcp",
            ])
            .stdout(Stdio::piped())
            .stderr(Stdio::null())
            .spawn()
            .ok()?;
        let mut line = String::new();
        let stdout = child.stdout.take()?;
        let ok = std::io::BufReader::new(stdout).read_line(&mut line).is_ok();
        let n: u32 = match line.trim().parse() {
            Ok(n) if ok => n,
            _ => {
                let _ = child.kill();
                let _ = child.wait();
                return None;
            }
        };
        let xvfb = Xvfb {
            child,
            display: format!(":{n}"),
            _one_at_a_time: one_at_a_time,
        };
        x11rb::connect(Some(&xvfb.display)).ok()?;
        Some(xvfb)
    }
}

impl Xvfb {
    /// Kills the server now (a display server that dies under its clients).
    pub fn kill(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

impl Drop for Xvfb {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

pub fn which(name: &str) -> Option<PathBuf> {
    std::env::var_os("PATH")?
        .to_str()?
        .split(':')
        .map(|d| Path::new(d).join(name))
        .find(|p| p.is_file())
}

/// The root window's pixels as RGBA (Xvfb's 24-bit TrueColor is BGRX in memory).
pub fn capture(display: &str) -> (u16, u16, Vec<u8>) {
    // A connection attempt can be cut off while a client is being killed (seen with mpv):
    // retried a few times before it counts as a failure.
    let mut attempt = 0;
    let (conn, screen) = loop {
        match x11rb::connect(Some(display)) {
            Ok(c) => break c,
            Err(e) if attempt >= 5 => panic!("connect to Xvfb: {e:?}"),
            Err(_) => attempt += 1,
        }
        std::thread::sleep(std::time::Duration::from_millis(200));
    };
    let root = conn.setup().roots[screen].root;
    let g = conn.get_geometry(root).unwrap().reply().unwrap();
    let img = conn
        .get_image(ImageFormat::Z_PIXMAP, root, 0, 0, g.width, g.height, !0)
        .unwrap()
        .reply()
        .unwrap();
    let rgba = img
        .data
        .chunks_exact(4)
        .flat_map(|p| [p[2], p[1], p[0], 0xff])
        .collect();
    (g.width, g.height, rgba)
}
