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
//! ([`vkgen_abi::logcat`], tag `vulkan` as AOSP's `LOG_TAG`): warnings and errors by default,
//! `VKGEN_LOG`'s filter when it is set.
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
    let Some(filter) = std::env::var_os(LOG_ENV) else {
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

#[cfg(target_os = "android")]
fn init_logcat() {
    let filter =
        std::env::var(LOG_ENV).unwrap_or_else(|_| vkgen_abi::logcat::DEFAULT_FILTER.to_owned());
    // env_logger only parses the filter here (same syntax as on hosts); liblog writes.
    let filter = env_logger::Builder::new().parse_filters(&filter).build();
    let max_level = filter.filter();
    let enabled = move |m: &log::Metadata<'_>| log::Log::enabled(&filter, m);
    // Fails only when a logger is already installed in this library; that one then gets our records.
    if vkgen_abi::logcat::install(c"vulkan", max_level, enabled).is_err() {
        log::debug!("logcat logger not installed: the library already has a logger");
    }
}

#[cfg(test)]
mod tests {
    #[test]
    fn init_is_idempotent() {
        super::init();
        super::init();
        // Logging with or without a backend must never fail or panic.
        log::info!("logging initialised twice without harm");
    }
}
