//! Where Android keeps drivers, relative to the (configurable) root: the vendor HAL dir and the
//! sphal namespace's search path, which both the HAL search (`super::hal_search`) and the host
//! linker (`super::linker::HostLinker`) use.

/// The vendor HAL dir relative to the root: `lib64` for 64-bit processes, `lib` for 32-bit ones.
#[cfg(target_pointer_width = "64")]
pub const HAL_DIR: &str = "vendor/lib64/hw";
/// The vendor HAL dir relative to the root: `lib64` for 64-bit processes, `lib` for 32-bit ones.
#[cfg(not(target_pointer_width = "64"))]
pub const HAL_DIR: &str = "vendor/lib/hw";

/// The processes' library dir name: `lib64` for 64-bit processes, `lib` for 32-bit ones.
#[cfg(target_pointer_width = "64")]
pub const LIB: &str = "lib64";
/// The processes' library dir name: `lib64` for 64-bit processes, `lib` for 32-bit ones.
#[cfg(not(target_pointer_width = "64"))]
pub const LIB: &str = "lib";

/// The sphal namespace's search path relative to the root, in order (the last is [`HAL_DIR`]).
pub fn sphal_dirs() -> [String; 4] {
    [
        format!("odm/{LIB}"),
        format!("vendor/{LIB}"),
        format!("vendor/{LIB}/egl"),
        format!("vendor/{LIB}/hw"),
    ]
}
