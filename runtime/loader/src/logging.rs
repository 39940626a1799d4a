//! Diagnostics for the loader.
//!
//! The loader lives inside someone else's process, so it must never print anything unless asked
//! to and must not fight the host over the global `log` logger. Every module logs through the `log`
//! facade; on Linux hosts [`init`] installs a stderr backend only when `VKGEN_LOG` is set
//! (env_logger filter syntax, e.g. `VKGEN_LOG=debug` or `VKGEN_LOG=vulkan::driver=trace`). If the
//! application already installed a logger, that logger keeps receiving our records and
//! `VKGEN_LOG` is ignored.
//!
//! On Android an app's stderr is `/dev/null` and the system log is where AOSP's libvulkan reports
//! (`ALOGE`/`ALOGW` always reach logcat), so there [`init`] always installs the logcat backend
//! ([`vkgen_abi::logcat`], tag `vulkan` as AOSP's `LOG_TAG`): warnings and errors (an Android
//! build reads no environment variable, so `VKGEN_LOG` is host-only).
//!
//! Init is idempotent and cheap after the first call (`std::sync::Once`), so every entry point
//! that may be the first one into the library can call it.

use std::sync::Once;

/// Environment variable holding the env_logger filter; unset means "no loader logging".
pub const LOG_ENV: &str = "VKGEN_LOG";

static INIT: Once = Once::new();

/// Installs the logger: on Linux hosts the stderr logger if `VKGEN_LOG` asks for it, on Android
/// the logcat logger. Safe to call any number of times from any thread; only the first call does
/// work.
pub fn init() {
    INIT.call_once(|| {
        #[cfg(not(target_os = "android"))]
        init_stderr();
        #[cfg(target_os = "android")]
        init_logcat();
    });
}

#[cfg(not(target_os = "android"))]
fn init_stderr() {
    let Some(filter) = vkgen_platform::env::trusted_env(LOG_ENV) else {
        return;
    };
    let filter = filter.to_string_lossy();
    let mut builder = env_logger::Builder::new();
    builder
        .parse_filters(&filter)
        .target(env_logger::Target::Stderr);
    // `try_init` fails only when the host installed its own logger first; theirs wins.
    if builder.try_init().is_err() {
        log::debug!("{LOG_ENV} ignored: the process already has a logger");
    }
}

/// AOSP libvulkan's `LOG_TAG`: the loader's logcat lines carry it.
pub const LOG_TAG: &std::ffi::CStr = c"vulkan";

/// The logcat logger's filter: `VKGEN_LOG`'s value (env_logger syntax), else warnings and
/// errors ([`vkgen_abi::logcat::DEFAULT_FILTER`]), as `log`'s maximum level and a per-record
/// check. Compiled everywhere so that host tests see what Android builds install.
pub fn logcat_filter(
    setting: Option<&str>,
) -> (
    log::LevelFilter,
    impl Fn(&log::Metadata<'_>) -> bool + Send + Sync + 'static,
) {
    let text = setting.unwrap_or(vkgen_abi::logcat::DEFAULT_FILTER);
    // env_logger only parses the filter here (same syntax as on hosts); liblog writes.
    let filter = env_logger::Builder::new().parse_filters(text).build();
    let max_level = filter.filter();
    (max_level, move |m: &log::Metadata<'_>| {
        log::Log::enabled(&filter, m)
    })
}

/// Warnings and errors: an Android build reads no environment variable, so `VKGEN_LOG` is a
/// host-only setting.
#[cfg(target_os = "android")]
fn init_logcat() {
    let (max_level, enabled) = logcat_filter(None);
    // Fails only when a logger is already installed in this library; that one then gets our records.
    if vkgen_abi::logcat::install(LOG_TAG, max_level, enabled).is_err() {
        log::debug!("logcat logger not installed: the library already has a logger");
    }
}

#[cfg(test)]
mod tests {
    use std::ffi::{c_int, CStr};
    use std::sync::Mutex;

    use log::Log;
    use vkgen_abi::logcat::{priority, Logcat};

    static LINES: Mutex<Vec<(c_int, String, String)>> = Mutex::new(Vec::new());

    fn capture(prio: c_int, tag: &CStr, text: &CStr) {
        LINES.lock().unwrap().push((
            prio,
            tag.to_string_lossy().into_owned(),
            text.to_string_lossy().into_owned(),
        ));
    }

    /// What the Android logger writes for one record of each level at `target`, under `setting`.
    fn logcat_lines(setting: Option<&str>, target: &str) -> Vec<(c_int, String, String)> {
        let (max_level, enabled) = super::logcat_filter(setting);
        let logger = Logcat::new(super::LOG_TAG, enabled, capture);
        for level in [
            log::Level::Error,
            log::Level::Warn,
            log::Level::Info,
            log::Level::Debug,
            log::Level::Trace,
        ] {
            if level <= max_level {
                logger.log(
                    &log::Record::builder()
                        .level(level)
                        .target(target)
                        .args(format_args!("{level}"))
                        .build(),
                );
            }
        }
        std::mem::take(&mut *LINES.lock().unwrap())
    }

    /// Android builds: tag `vulkan` (AOSP's LOG_TAG), warnings and errors by default (what
    /// AOSP's ALOGW/ALOGE always log), `VKGEN_LOG`'s filter when set.
    #[test]
    fn the_android_logger_tags_vulkan_and_filters_as_vkgen_log_says() {
        let line = |prio, text: &str| (prio, "vulkan".to_owned(), text.to_owned());
        assert_eq!(
            logcat_lines(None, "vulkan::driver"),
            [line(priority::ERROR, "ERROR"), line(priority::WARN, "WARN")]
        );
        assert_eq!(
            logcat_lines(Some("debug"), "vulkan::driver").len(),
            4,
            "debug and above"
        );
        assert_eq!(
            logcat_lines(Some("error,vulkan::wsi=trace"), "vulkan::driver"),
            [line(priority::ERROR, "ERROR")]
        );
        assert_eq!(
            logcat_lines(Some("error,vulkan::wsi=trace"), "vulkan::wsi").last(),
            Some(&line(priority::VERBOSE, "TRACE"))
        );
    }

    #[test]
    fn init_is_idempotent() {
        super::init();
        super::init();
        // Logging with or without a backend must never fail or panic.
        log::info!("logging initialised twice without harm");
    }
}
