//! AOSP's `ATRACE_CALL()` / `ATRACE_BEGIN(name)` / `ATRACE_END()` (libcutils' trace, with
//! `ATRACE_TAG_GRAPHICS` as `api.cpp` and `driver.cpp` define it): systrace/Perfetto sections
//! around the loader's entry points and driver calls.
//!
//! **What libcutils does.** A section is written only while the graphics tag (bit 1) is set in
//! the `debug.atrace.tags.enableflags` property (parsed as `strtoull(value, NULL, 0)`): the begin
//! marker `B|<pid>|<name>` and the end marker `E|<pid>` go to `/sys/kernel/tracing/trace_marker`
//! (`/sys/kernel/debug/tracing/trace_marker` on older kernels), opened once. libcutils re-reads the
//! property when its serial changes, so `atrace` turning the tag on reaches running apps.
//!
//! **Here.** [`section`] returns a guard that writes the begin marker when the tag is on and the
//! end marker when dropped (an `ATRACE_CALL()` is a section for the rest of the scope). The names
//! are AOSP's: the C++ function's name for an `ATRACE_CALL()` (`CreateInstance`,
//! `EnumeratePhysicalDevices`, `LoadBuiltinDriver`, ...), the literal for an `ATRACE_BEGIN`
//! (`driver.CreateDevice`, `hwvulkan module open`, ...). Where the markers go is the platform's
//! [`Marker`]:
//! * Android: `trace_marker` written directly as libcutils does, and the property watched through
//!   bionic's `__system_property_find`/`__system_property_serial` (libc), so `libvulkan.so` needs
//!   no libcutils (and no libandroid, whose `ATrace_*` would use the app tag, not graphics);
//! * Linux hosts: `VKGEN_TRACE_MARKER` names a file that stands in for `trace_marker` (one marker
//!   a line), with the tag read once from the `VKGEN_PROPERTIES` file; unset, nothing is traced;
//! * unit tests: a per-thread recorder (`record`).
//!
//! The check costs an atomic load (plus the property serial on Android) when tracing is off.

use std::sync::OnceLock;

mod marker;
pub use marker::{
    begin_marker, end_marker, graphics_enabled, parse_tags, Marker, ATRACE_TAG_GRAPHICS,
    TAGS_PROPERTY,
};

/// Host stand-in for `trace_marker`: a file the markers are appended to, one a line.
pub const TRACE_MARKER_ENV: &str = "VKGEN_TRACE_MARKER";

/// The platform's marker output; `None` where nothing can be traced.
fn platform() -> Option<&'static dyn Marker> {
    static PLATFORM: OnceLock<Option<Box<dyn Marker>>> = OnceLock::new();
    PLATFORM.get_or_init(platform_marker).as_deref()
}

#[cfg(target_os = "android")]
fn platform_marker() -> Option<Box<dyn Marker>> {
    android::TraceMarker::open().map(|m| Box::new(m) as Box<dyn Marker>)
}

#[cfg(not(target_os = "android"))]
fn platform_marker() -> Option<Box<dyn Marker>> {
    let path = crate::host_env::trusted_env_path(TRACE_MARKER_ENV)?;
    match HostMarker::open(&path, crate::properties::Properties::system()) {
        Ok(marker) => Some(Box::new(marker)),
        Err(e) => {
            log::warn!("{TRACE_MARKER_ENV}={}: {e}; not tracing", path.display());
            None
        }
    }
}

/// The host double of `trace_marker`: markers appended to a file, one a line (opened for each,
/// so that unloading the loader leaves no descriptor behind), with the tags the properties had
/// when the double was made.
#[cfg(not(target_os = "android"))]
pub struct HostMarker {
    path: std::path::PathBuf,
    tags: u64,
    /// One writer at a time: lines of concurrent threads never interleave.
    lock: std::sync::Mutex<()>,
}

#[cfg(not(target_os = "android"))]
impl HostMarker {
    /// Appends to `path` (created now if missing), with the tags in `properties`.
    pub fn open(
        path: &std::path::Path,
        properties: &crate::properties::Properties,
    ) -> std::io::Result<Self> {
        append(path, "")?;
        Ok(Self {
            path: path.to_path_buf(),
            tags: properties.get(TAGS_PROPERTY).map_or(0, parse_tags),
            lock: std::sync::Mutex::new(()),
        })
    }
}

/// Appends `text` to `path`, creating it.
#[cfg(not(target_os = "android"))]
pub(crate) fn append(path: &std::path::Path, text: &str) -> std::io::Result<()> {
    use std::io::Write;
    std::fs::OpenOptions::new()
        .create(true)
        .append(true)
        .open(path)?
        .write_all(text.as_bytes())
}

#[cfg(not(target_os = "android"))]
impl Marker for HostMarker {
    fn tags(&self) -> u64 {
        self.tags
    }

    fn write(&self, marker: &str) {
        let _one = self.lock.lock().unwrap_or_else(|p| p.into_inner());
        if let Err(e) = append(&self.path, &format!("{marker}\n")) {
            log::debug!("{TRACE_MARKER_ENV}: {e}");
        }
    }
}

/// An open section: its end marker is written when it is dropped.
#[must_use = "a section ends when the guard is dropped"]
pub struct Section {
    marker: Option<&'static dyn Marker>,
    #[cfg(test)]
    recorded: bool,
}

impl Drop for Section {
    fn drop(&mut self) {
        #[cfg(test)]
        if self.recorded {
            tests_support::push(end_marker(std::process::id()));
        }
        if let Some(marker) = self.marker {
            // Sections sit at `extern "system"` entry points, outside their panic guards: a
            // panic writing the marker is dropped here rather than crossing into C.
            let _ = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
                marker.write(&end_marker(std::process::id()));
            }));
        }
    }
}

/// `ATRACE_CALL()` (`name` is the AOSP function's) or `ATRACE_BEGIN(name)`: a section until the
/// guard is dropped, written only while the graphics tag is enabled. Never panics (see the
/// `Drop`), so it may open an entry point before the entry point's own guard.
pub fn section(name: &str) -> Section {
    #[cfg(test)]
    if tests_support::push_begin(name) {
        return Section {
            marker: None,
            recorded: true,
        };
    }
    // A marker only writes; a panic inside leaves nothing half-updated that is used again.
    let marker = std::panic::catch_unwind(std::panic::AssertUnwindSafe(|| {
        let marker = platform().filter(|m| graphics_enabled(m.tags()));
        if let Some(m) = marker {
            m.write(&begin_marker(std::process::id(), name));
        }
        marker
    }))
    .unwrap_or(None);
    Section {
        marker,
        #[cfg(test)]
        recorded: false,
    }
}

/// Runs `body` with this thread's sections recorded (as their markers) instead of written, and
/// returns them: the host double the loader's unit tests assert AOSP's sections with.
#[cfg(test)]
pub fn record<R>(body: impl FnOnce() -> R) -> (R, Vec<String>) {
    tests_support::RECORDING.with(|r| *r.borrow_mut() = Some(Vec::new()));
    let result = body();
    let markers = tests_support::RECORDING.with(|r| r.borrow_mut().take().unwrap_or_default());
    (result, markers)
}

#[cfg(test)]
mod tests_support {
    use std::cell::RefCell;

    thread_local! {
        pub(super) static RECORDING: RefCell<Option<Vec<String>>> = const { RefCell::new(None) };
    }

    /// Records a begin marker if this thread is recording.
    pub(super) fn push_begin(name: &str) -> bool {
        RECORDING.with(|r| match r.borrow_mut().as_mut() {
            Some(markers) => {
                markers.push(super::begin_marker(std::process::id(), name));
                true
            }
            None => false,
        })
    }

    pub(super) fn push(marker: String) {
        RECORDING.with(|r| {
            if let Some(markers) = r.borrow_mut().as_mut() {
                markers.push(marker);
            }
        });
    }
}

#[cfg(target_os = "android")]
mod android;

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn tags_parse_as_strtoull_base_0() {
        assert_eq!(parse_tags("0x2"), 2);
        assert_eq!(parse_tags("0X1e"), 0x1e);
        assert_eq!(parse_tags("2"), 2);
        assert_eq!(parse_tags("010"), 8);
        assert_eq!(parse_tags("0"), 0);
        assert_eq!(parse_tags(" 6 trailing"), 6);
        assert_eq!(parse_tags("0x"), 0);
        assert_eq!(parse_tags("garbage"), 0);
        assert_eq!(parse_tags("99999999999999999999999"), 0);
        assert!(graphics_enabled(parse_tags("0x2")));
        assert!(graphics_enabled(parse_tags("0xffffffffffffffff")));
        assert!(!graphics_enabled(parse_tags("0x4")));
        assert!(!graphics_enabled(parse_tags("1")));
    }

    #[test]
    fn markers_are_libcutils() {
        assert_eq!(begin_marker(42, "CreateInstance"), "B|42|CreateInstance");
        assert_eq!(end_marker(42), "E|42");
    }

    #[test]
    fn sections_nest_and_end_when_dropped() {
        let ((), markers) = record(|| {
            let _outer = section("CreateDevice");
            {
                let _inner = section("driver.CreateDevice");
            }
        });
        let pid = std::process::id();
        assert_eq!(
            markers,
            [
                format!("B|{pid}|CreateDevice"),
                format!("B|{pid}|driver.CreateDevice"),
                format!("E|{pid}"),
                format!("E|{pid}"),
            ]
        );
    }

    #[test]
    #[cfg(not(target_os = "android"))]
    fn the_host_marker_writes_only_with_the_graphics_tag() {
        let dir = tempfile::tempdir().unwrap();
        let path = dir.path().join("trace_marker");
        let on = crate::properties::Properties::parse("debug.atrace.tags.enableflags=0x3\n");
        let marker = HostMarker::open(&path, &on).unwrap();
        assert!(graphics_enabled(marker.tags()));
        marker.write("B|1|x");
        marker.write("E|1");
        assert_eq!(std::fs::read_to_string(&path).unwrap(), "B|1|x\nE|1\n");
        let off = crate::properties::Properties::parse("debug.atrace.tags.enableflags=0x4\n");
        assert!(!graphics_enabled(
            HostMarker::open(&path, &off).unwrap().tags()
        ));
        let unset = crate::properties::Properties::empty();
        assert!(!graphics_enabled(
            HostMarker::open(&path, &unset).unwrap().tags()
        ));
    }
}
