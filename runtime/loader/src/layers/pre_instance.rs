//! Pre-instance functions (Linux hosts): an active implicit manifest layer whose manifest (format
//! 1.1.2+) has `pre_instance_functions` intercepts `vkEnumerateInstanceExtensionProperties`,
//! `vkEnumerateInstanceLayerProperties` and `vkEnumerateInstanceVersion`, as the Khronos loader
//! lets it (`LoaderLayerInterface.md`, "Pre-Instance Functions"): the loader calls the first
//! layer's function with a `VkEnumerateInstance*Chain` whose links lead, layer by layer, to the
//! loader's own answer (the terminator). Link `i` holds layer `i`'s function and points at link
//! `i + 1`; the last link holds the terminator and no next link. The layer nearest the
//! application (discovery order) is called first.

use std::ffi::{c_char, CStr};

use ash::vk;

/// `VkChainType`.
const CHAIN_TYPE_EXTENSIONS: u32 = 1;
const CHAIN_TYPE_LAYERS: u32 = 2;
const CHAIN_TYPE_VERSION: u32 = 3;
/// `VK_CURRENT_CHAIN_VERSION`.
const CHAIN_VERSION: u32 = 1;

/// `VkChainHeader`.
#[repr(C)]
#[derive(Debug, Clone, Copy)]
pub struct ChainHeader {
    /// `VkChainType`.
    pub ty: u32,
    /// `VK_CURRENT_CHAIN_VERSION`.
    pub version: u32,
    /// The size of the whole link.
    pub size: u32,
}

/// `VkEnumerateInstanceExtensionPropertiesChain`'s function.
pub type ExtensionsFn = unsafe extern "system" fn(
    *const ExtensionsChain,
    *const c_char,
    *mut u32,
    *mut vk::ExtensionProperties,
) -> vk::Result;
/// `VkEnumerateInstanceLayerPropertiesChain`'s function.
pub type LayersFn =
    unsafe extern "system" fn(*const LayersChain, *mut u32, *mut vk::LayerProperties) -> vk::Result;
/// `VkEnumerateInstanceVersionChain`'s function.
pub type VersionFn = unsafe extern "system" fn(*const VersionChain, *mut u32) -> vk::Result;

macro_rules! chain {
    ($(#[$doc:meta])* $name:ident, $f:ty, $ty:expr) => {
        $(#[$doc])*
        #[repr(C)]
        #[derive(Debug)]
        pub struct $name {
            /// Type, version and size.
            pub header: ChainHeader,
            /// The function to call with `next`.
            pub next_layer: $f,
            /// The link `next_layer` receives.
            pub next: *const $name,
        }

        impl Link for $name {
            type F = $f;
            fn new(next_layer: $f) -> Self {
                Self {
                    header: ChainHeader {
                        ty: $ty,
                        version: CHAIN_VERSION,
                        size: std::mem::size_of::<Self>() as u32,
                    },
                    next_layer,
                    next: std::ptr::null(),
                }
            }
            fn set_next(&mut self, next: *const Self) {
                self.next = next;
            }
            fn head(&self) -> ($f, *const Self) {
                (self.next_layer, self.next)
            }
        }
    };
}

/// One chain link type.
pub trait Link: Sized {
    /// Its function type.
    type F: Copy;
    /// A link holding `next_layer` and no next link.
    fn new(next_layer: Self::F) -> Self;
    /// Points it at `next`.
    fn set_next(&mut self, next: *const Self);
    /// Its function and the link to call it with.
    fn head(&self) -> (Self::F, *const Self);
}

chain!(
    /// `VkEnumerateInstanceExtensionPropertiesChain`.
    ExtensionsChain,
    ExtensionsFn,
    CHAIN_TYPE_EXTENSIONS
);
chain!(
    /// `VkEnumerateInstanceLayerPropertiesChain`.
    LayersChain,
    LayersFn,
    CHAIN_TYPE_LAYERS
);
chain!(
    /// `VkEnumerateInstanceVersionChain`.
    VersionChain,
    VersionFn,
    CHAIN_TYPE_VERSION
);

/// The links for `layers` (nearest the application first) then `terminator`, each pointing at
/// the next; the boxed slice keeps their addresses. Call `links[0]`'s [`Link::head`].
pub fn build<L: Link>(layers: &[L::F], terminator: L::F) -> Box<[L]> {
    let mut links: Box<[L]> = layers
        .iter()
        .copied()
        .chain(std::iter::once(terminator))
        .map(L::new)
        .collect();
    for i in 1..links.len() {
        let next: *const L = &links[i];
        links[i - 1].set_next(next);
    }
    links
}

/// The function `symbol` names in `library` as `F`, if exported.
///
/// # Safety
/// `F` must be the pre-instance function type `symbol` has.
pub(super) unsafe fn symbol_as<F: Copy>(
    library: &libloading::os::unix::Library,
    symbol: &CStr,
) -> Option<F> {
    // SAFETY: the caller guarantees `F` is the pre-instance function type of `symbol`, which is
    // what `typed` requires.
    unsafe { super::entry_points::typed(library, symbol) }
}

#[cfg(test)]
mod tests {
    use super::*;

    unsafe extern "system" fn terminator(_: *const VersionChain, v: *mut u32) -> vk::Result {
        // SAFETY: the test passes a valid pointer.
        unsafe { *v = 10 };
        vk::Result::SUCCESS
    }

    /// A layer that calls down, then adds 1.
    unsafe extern "system" fn plus_one(chain: *const VersionChain, v: *mut u32) -> vk::Result {
        // SAFETY: the loader hands a valid link whose function takes the next link.
        let r = unsafe { ((*chain).next_layer)((*chain).next, v) };
        // SAFETY: the test passes a valid pointer.
        unsafe { *v += 1 };
        r
    }

    /// A layer that answers without calling down.
    unsafe extern "system" fn answers(_: *const VersionChain, v: *mut u32) -> vk::Result {
        // SAFETY: the test passes a valid pointer.
        unsafe { *v = 100 };
        vk::Result::SUCCESS
    }

    fn call(layers: &[VersionFn]) -> u32 {
        let links = build::<VersionChain>(layers, terminator);
        assert_eq!(links.len(), layers.len() + 1);
        assert!(links.last().unwrap().next.is_null());
        assert_eq!(links[0].header.ty, CHAIN_TYPE_VERSION);
        assert_eq!(
            links[0].header.size as usize,
            std::mem::size_of::<VersionChain>()
        );
        let mut v = 0;
        // SAFETY: the links live across the call; every function takes these arguments.
        let r = unsafe { (links[0].next_layer)(links[0].next, &mut v) };
        assert_eq!(r, vk::Result::SUCCESS);
        v
    }

    #[test]
    fn chains_lead_to_the_terminator() {
        assert_eq!(call(&[]), 10);
        assert_eq!(call(&[plus_one]), 11);
        assert_eq!(call(&[plus_one, plus_one]), 12);
        assert_eq!(call(&[plus_one, answers, plus_one]), 101);
    }
}
