//! Android's log: a [`log::Log`] that hands each record to liblog's
//! `__android_log_write(prio, tag, text)` (`<android/log.h>`), so the loader's and the drivers'
//! `log` records reach logcat. On Android an app's stderr is `/dev/null`, which is why the
//! stderr logger used on Linux hosts (env_logger) is not used there.
//!
//! The logger itself is plain Rust and compiled everywhere (its host tests write into a buffer);
//! only `liblog_write` and `install`, which link liblog, are Android-only. The loader installs
//! it with the tag `vulkan` (AOSP libvulkan's `LOG_TAG`), a driver with its library's name.
//!
//! No dependency on an Android crate: the one function liblog exports that is needed is declared
//! here.

use std::ffi::{c_int, CStr, CString};

/// The `log` filter (env_logger syntax) when `VKGEN_LOG` is unset: warnings and errors, what
/// AOSP's libvulkan always logs (`ALOGW`, `ALOGE`).
pub const DEFAULT_FILTER: &str = "warn";

/// `android_LogPriority` values of `<android/log.h>` used for `log` levels.
pub mod priority {
    use std::ffi::c_int;

    /// `ANDROID_LOG_VERBOSE`.
    pub const VERBOSE: c_int = 2;
    /// `ANDROID_LOG_DEBUG`.
    pub const DEBUG: c_int = 3;
    /// `ANDROID_LOG_INFO`.
    pub const INFO: c_int = 4;
    /// `ANDROID_LOG_WARN`.
    pub const WARN: c_int = 5;
    /// `ANDROID_LOG_ERROR`.
    pub const ERROR: c_int = 6;
}

/// The logcat priority of a `log` level (`trace` is `VERBOSE`, as `ALOGV`).
pub fn priority_of(level: log::Level) -> c_int {
    match level {
        log::Level::Error => priority::ERROR,
        log::Level::Warn => priority::WARN,
        log::Level::Info => priority::INFO,
        log::Level::Debug => priority::DEBUG,
        log::Level::Trace => priority::VERBOSE,
    }
}

/// Where a formatted record goes: `(priority, tag, text)`; `liblog_write` on Android.
pub type WriteFn = fn(c_int, &CStr, &CStr);

/// The logger: every record `enabled` accepts goes to `write` as one logcat line under `tag`.
pub struct Logcat<F> {
    tag: CString,
    enabled: F,
    write: WriteFn,
}

impl<F: Fn(&log::Metadata<'_>) -> bool + Send + Sync> Logcat<F> {
    /// A logger for `tag` that logs what `enabled` accepts through `write`.
    pub fn new(tag: &CStr, enabled: F, write: WriteFn) -> Self {
        Self {
            tag: tag.to_owned(),
            enabled,
            write,
        }
    }
}

impl<F: Fn(&log::Metadata<'_>) -> bool + Send + Sync> log::Log for Logcat<F> {
    fn enabled(&self, metadata: &log::Metadata<'_>) -> bool {
        (self.enabled)(metadata)
    }

    fn log(&self, record: &log::Record<'_>) {
        if !self.enabled(record.metadata()) {
            return;
        }
        (self.write)(
            priority_of(record.level()),
            &self.tag,
            &c_text(record.args().to_string()),
        );
    }

    /// liblog writes each line through to logd; nothing is buffered here.
    fn flush(&self) {}
}

/// `text` as a C string: a NUL inside the message would end it early in C, so it is dropped.
fn c_text(text: String) -> CString {
    CString::new(text).unwrap_or_else(|e| {
        let mut bytes = e.into_vec();
        bytes.retain(|&b| b != 0);
        // No NUL is left, so this cannot fail; the default (empty) is only for form's sake.
        CString::new(bytes).unwrap_or_default()
    })
}

#[cfg(target_os = "android")]
#[link(name = "log")]
extern "C" {
    fn __android_log_write(
        prio: c_int,
        tag: *const std::ffi::c_char,
        text: *const std::ffi::c_char,
    ) -> c_int;
}

/// Writes one line to logcat through liblog.
#[cfg(target_os = "android")]
pub fn liblog_write(prio: c_int, tag: &CStr, text: &CStr) {
    // SAFETY: both pointers are NUL-terminated strings that outlive the call; liblog copies them.
    unsafe { __android_log_write(prio, tag.as_ptr(), text.as_ptr()) };
}

/// Installs a [`Logcat`] for `tag` through liblog as this library's `log` logger, with
/// `max_level` as `log`'s global maximum and `enabled` deciding per record. Fails (and changes
/// nothing) when a logger is already installed.
#[cfg(target_os = "android")]
pub fn install<F>(
    tag: &CStr,
    max_level: log::LevelFilter,
    enabled: F,
) -> Result<(), log::SetLoggerError>
where
    F: Fn(&log::Metadata<'_>) -> bool + Send + Sync + 'static,
{
    // Leaked once per library: the logger lives as long as the process, as `log` requires.
    let logger: &'static Logcat<F> = Box::leak(Box::new(Logcat::new(tag, enabled, liblog_write)));
    log::set_logger(logger)?;
    log::set_max_level(max_level);
    Ok(())
}

#[cfg(test)]
mod tests {
    use super::*;
    use log::Log;
    use std::sync::Mutex;

    static LINES: Mutex<Vec<(c_int, String, String)>> = Mutex::new(Vec::new());

    fn capture(prio: c_int, tag: &CStr, text: &CStr) {
        LINES.lock().unwrap().push((
            prio,
            tag.to_string_lossy().into_owned(),
            text.to_string_lossy().into_owned(),
        ));
    }

    #[test]
    fn records_become_logcat_lines() {
        let logger = Logcat::new(
            c"vulkan",
            |m: &log::Metadata<'_>| m.level() <= log::Level::Info,
            capture,
        );
        let record = |level, text| {
            logger.log(
                &log::Record::builder()
                    .level(level)
                    .target("vulkan::driver")
                    .args(format_args!("{text}"))
                    .build(),
            )
        };
        record(log::Level::Error, "no HAL");
        record(log::Level::Warn, "nul\0inside");
        record(log::Level::Info, "info");
        record(log::Level::Debug, "filtered out");
        record(log::Level::Trace, "filtered out");
        let lines = std::mem::take(&mut *LINES.lock().unwrap());
        let tag = || "vulkan".to_string();
        assert_eq!(
            lines,
            [
                (priority::ERROR, tag(), "no HAL".to_string()),
                (priority::WARN, tag(), "nulinside".to_string()),
                (priority::INFO, tag(), "info".to_string()),
            ]
        );
        assert_eq!(priority_of(log::Level::Debug), priority::DEBUG);
        assert_eq!(priority_of(log::Level::Trace), priority::VERBOSE);
    }
}
