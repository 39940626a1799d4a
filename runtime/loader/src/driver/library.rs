//! The small `dlopen`/`dlsym` helpers drivers and layer discovery share: opening a library,
//! finding a symbol without ever turning a null into a function pointer, and the library-loading
//! error mapper.

use std::ffi::{c_void, CStr};
use std::path::Path;
use std::ptr::NonNull;

use libloading::os::unix::{Library, RTLD_LOCAL, RTLD_NOW};
use vkgen_generated::vk;

/// `dlopen(path, RTLD_NOW | RTLD_LOCAL)`: resolve everything up front so a broken library fails
/// here, not in the middle of a Vulkan call, and keep its symbols out of the global namespace so
/// drivers and layers cannot interpose on each other (or on us).
pub(crate) fn open_library(path: &Path) -> Result<Library, libloading::Error> {
    // SAFETY: loading a library runs its initialisers; that is the point of loading a driver or
    // layer, and which files are eligible is decided by the caller's search rules.
    unsafe { Library::open(Some(path), RTLD_NOW | RTLD_LOCAL) }
}

/// The library-loading error mapper (wgpu-hal's `map_*_err`): a driver library that
/// [`open_library`] could not load (a missing file or dependency, the wrong architecture, a
/// symbol `RTLD_NOW` cannot resolve, a failing initialiser) as a `VkResult`: always
/// `VK_ERROR_INCOMPATIBLE_DRIVER`, a driver the loader does not have. (A layer library that does
/// not load is a layer that is not there: [`crate::layers::LayerError`] says
/// `VK_ERROR_LAYER_NOT_PRESENT`.) It does not log: the caller names the library.
pub(crate) fn map_library_err(_err: &libloading::Error) -> vk::Result {
    vk::Result::ERROR_INCOMPATIBLE_DRIVER
}

/// The address a symbol resolves to, or `None` when it is absent or resolves to null (a weak
/// undefined symbol), so callers never turn a null into a function pointer.
pub(crate) fn symbol_address(library: &Library, name: &CStr) -> Option<NonNull<c_void>> {
    // SAFETY: asking for the symbol as a raw pointer makes no claim about its type.
    let symbol = unsafe { library.get::<*mut c_void>(name.to_bytes_with_nul()) }.ok()?;
    NonNull::new(*symbol)
}

/// Reinterprets a resolved symbol (or a `PFN_vkVoidFunction`) as the function type `F`.
///
/// # Safety
/// The symbol must really be a function of type `F`.
pub(crate) unsafe fn as_fn<F: Copy>(address: NonNull<c_void>) -> F {
    const { assert!(std::mem::size_of::<F>() == std::mem::size_of::<*mut c_void>()) };
    // SAFETY: sizes match (checked above); the caller vouches for the type.
    unsafe { std::mem::transmute_copy(&address.as_ptr()) }
}

/// [`as_fn`] for a `PFN_vkVoidFunction` returned by a proc-addr lookup.
///
/// # Safety
/// As [`as_fn`].
pub(crate) unsafe fn void_fn_as<F: Copy>(f: vk::PFN_vkVoidFunction) -> Option<F> {
    let address = NonNull::new(f? as *mut c_void)?;
    // SAFETY: `address` is non-null (checked above) and the caller guarantees `F` is the function
    // pointer type of what the lookup returned, which is `as_fn`'s requirement.
    Some(unsafe { as_fn(address) })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn missing_symbols_are_none() {
        // libc is always loaded; `dlopen` of it by soname gives us a handle to probe.
        let libc = open_library(Path::new("libc.so.6")).expect("libc");
        assert!(symbol_address(&libc, c"getpid").is_some());
        assert!(symbol_address(&libc, c"definitely_not_a_symbol_vkgen").is_none());
    }
}
