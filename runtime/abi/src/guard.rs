//! The one boundary guard: every `extern` entry point of vkgen (the loader's exports, the
//! driver kit's and the generated entry points, the backends, the window's `ANativeWindow`
//! functions) runs its body through [`guard`], so that no panic unwinds into C and every
//! caught panic is logged with the command it happened in and its payload.
//!
//! Why here: the C ABI crate is the one crate every side links, so the loader and the drivers
//! share one rule without the loader linking driver code.

use std::any::Any;
use std::panic::{catch_unwind, AssertUnwindSafe};

/// Runs `body`; if it panics, logs `command` and the payload and returns `fallback`.
///
/// `AssertUnwindSafe`: an entry point's state after a panic is either the driver's own
/// (poisoned locks are recovered where they are taken) or abandoned with the error returned.
#[inline]
pub fn guard<R>(command: &str, fallback: R, body: impl FnOnce() -> R) -> R {
    match catch_unwind(AssertUnwindSafe(body)) {
        Ok(r) => r,
        Err(payload) => {
            log::error!(
                "panic in {command}: {}; returning {}",
                panic_message(payload.as_ref()),
                std::any::type_name::<R>()
            );
            fallback
        }
    }
}

/// The message of a panic payload (`panic!("…")` gives a `&str` or a `String`).
pub fn panic_message(payload: &(dyn Any + Send)) -> &str {
    if let Some(s) = payload.downcast_ref::<&str>() {
        s
    } else if let Some(s) = payload.downcast_ref::<String>() {
        s
    } else {
        "(a non-string payload)"
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn a_panic_becomes_the_fallback() {
        let r = guard("vkTest", 7, || -> i32 { panic!("boom") });
        assert_eq!(r, 7);
        assert_eq!(guard("vkTest", 7, || 3), 3);
    }

    #[test]
    fn payload_messages() {
        let p: Box<dyn Any + Send> = Box::new("static");
        assert_eq!(panic_message(p.as_ref()), "static");
        let p: Box<dyn Any + Send> = Box::new(String::from("owned"));
        assert_eq!(panic_message(p.as_ref()), "owned");
        let p: Box<dyn Any + Send> = Box::new(5u8);
        assert_eq!(panic_message(p.as_ref()), "(a non-string payload)");
    }
}
