//! Opt-in diagnostics for the loader.
//!
//! The loader lives inside someone else's process, so it must never print anything unless asked
//! to and must not fight the host over the global `log` logger. Every module logs through the `log`
//! facade; [`init`] installs a stderr backend only when `VKGEN_LOG` is set (env_logger filter
//! syntax, e.g. `VKGEN_LOG=debug` or `VKGEN_LOG=vulkan::driver=trace`). If the application already
//! installed a logger, that logger keeps receiving our records and `VKGEN_LOG` is ignored.
//!
//! Init is idempotent and cheap after the first call (`std::sync::Once`), so every entry point
//! that may be the first one into the library can call it.

use std::sync::Once;

/// Environment variable holding the env_logger filter; unset means "no loader logging".
pub const LOG_ENV: &str = "VKGEN_LOG";

static INIT: Once = Once::new();

/// Installs the stderr logger if `VKGEN_LOG` asks for it. Safe to call any number of times from
/// any thread; only the first call does work.
pub fn init() {
    INIT.call_once(|| {
        let Some(filter) = std::env::var_os(LOG_ENV) else {
            return;
        };
        let filter = filter.to_string_lossy();
        let mut builder = env_logger::Builder::new();
        builder
            .parse_filters(&filter)
            .target(env_logger::Target::Stderr);
        #[cfg(target_os = "android")]
        {
            // An app's stderr is /dev/null on Android. Logcat needs a `log::Log` that forwards
            // to liblog's `__android_log_write(prio, "vulkan", msg)` (e.g. the `android_logger`
            // crate, not a workspace dependency yet); it would be installed here instead of
            // env_logger. Until then records reach whatever logger the process installs.
        }
        // `try_init` fails only when the host installed its own logger first; theirs wins.
        if builder.try_init().is_err() {
            log::debug!("{LOG_ENV} ignored: the process already has a logger");
        }
    });
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
