//! [`super::marker::Marker`] on Android: libcutils' `trace-dev.inc` without libcutils. The markers are
//! written to `trace_marker`, opened once; the tags are re-read whenever the property's serial
//! changes, found with bionic's `__system_property_find` and `__system_property_serial` (libc).

use std::ffi::{c_char, CString};
use std::fs::File;
use std::io::Write;
use std::sync::atomic::{AtomicPtr, AtomicU64, Ordering};

use super::marker::{parse_tags, Marker, TAGS_PROPERTY};

/// bionic's opaque `prop_info`.
#[repr(C)]
struct PropInfo {
    _opaque: [u8; 0],
}

extern "C" {
    fn __system_property_find(name: *const c_char) -> *const PropInfo;
    fn __system_property_serial(info: *const PropInfo) -> u32;
}

/// libcutils' two `trace_marker` paths, the tracefs one first.
const MARKER_PATHS: [&str; 2] = [
    "/sys/kernel/tracing/trace_marker",
    "/sys/kernel/debug/tracing/trace_marker",
];

/// `trace_marker` and the watched tags property.
pub(super) struct TraceMarker {
    file: File,
    /// The property's `prop_info` once found (bionic keeps it for the process's life).
    info: AtomicPtr<PropInfo>,
    /// The serial the tags were read at, plus one (0: never read).
    seen: AtomicU64,
    tags: AtomicU64,
}

impl TraceMarker {
    /// `trace_marker` opened for writing, or `None` (no tracefs, or the app may not write it).
    pub(super) fn open() -> Option<Self> {
        let file = MARKER_PATHS
            .iter()
            .find_map(|p| std::fs::OpenOptions::new().write(true).open(p).ok())?;
        Some(Self {
            file,
            info: AtomicPtr::new(std::ptr::null_mut()),
            seen: AtomicU64::new(0),
            tags: AtomicU64::new(0),
        })
    }

    fn property_info(&self) -> Option<*const PropInfo> {
        let info = self.info.load(Ordering::Acquire);
        if !info.is_null() {
            return Some(info);
        }
        let name = CString::new(TAGS_PROPERTY).ok()?;
        // SAFETY: a NUL-terminated name; bionic returns null or a prop_info that lives for the
        // process.
        let found = unsafe { __system_property_find(name.as_ptr()) };
        if found.is_null() {
            return None;
        }
        self.info.store(found.cast_mut(), Ordering::Release);
        Some(found)
    }
}

impl Marker for TraceMarker {
    fn tags(&self) -> u64 {
        let Some(info) = self.property_info() else {
            return 0;
        };
        // SAFETY: `info` is a prop_info bionic returned; reading its serial is an atomic load.
        let serial = u64::from(unsafe { __system_property_serial(info) }) + 1;
        if self.seen.load(Ordering::Acquire) != serial {
            // Two threads may both re-read: they store the same value.
            let tags = crate::properties::android::get(TAGS_PROPERTY).map_or(0, |v| parse_tags(&v));
            self.tags.store(tags, Ordering::Release);
            self.seen.store(serial, Ordering::Release);
        }
        self.tags.load(Ordering::Acquire)
    }

    fn write(&self, marker: &str) {
        // One write(2) per marker, as libcutils: the kernel takes each as one trace record.
        let _ = (&self.file).write(marker.as_bytes());
    }
}
