//! Extension tables: which extensions a driver supports and which an instance or device enabled,
//! as bit sets over the generated [`ExtensionId`]s (names and spec versions come from the
//! registry through [`vkgen_generated::extensions`]).
//!
//! Creation validates the application's list as Mesa's `vk_instance_init`/`vk_device_init` do and
//! goes one step further: an extension whose registry `depends=` expression is not satisfied by
//! the enabled set and the API version is refused too. Both answer
//! `VK_ERROR_EXTENSION_NOT_PRESENT`, the one code the spec lets creation return for a bad name.

use std::ffi::{c_char, CStr};

use vkgen_generated::extensions::{self as exts, ExtensionId, ExtensionKind};
use vkgen_generated::vk;

use crate::util::{extension_properties, write_array};

const WORDS: usize = exts::EXTENSIONS.len().div_ceil(64);

/// A set of extensions.
#[derive(Clone, Copy, PartialEq, Eq, Default)]
pub struct ExtensionSet([u64; WORDS]);

impl ExtensionSet {
    /// The set holding `ids`.
    pub fn from_ids(ids: &[ExtensionId]) -> Self {
        let mut s = Self::default();
        for &id in ids {
            s.insert(id);
        }
        s
    }

    pub fn insert(&mut self, id: ExtensionId) {
        self.0[id.0 as usize / 64] |= 1 << (id.0 % 64);
    }

    pub fn contains(&self, id: ExtensionId) -> bool {
        self.0[id.0 as usize / 64] & (1 << (id.0 % 64)) != 0
    }

    /// Members in [`ExtensionId`] order.
    pub fn iter(&self) -> impl Iterator<Item = ExtensionId> + '_ {
        (0..exts::EXTENSIONS.len() as u16)
            .map(ExtensionId)
            .filter(|&id| self.contains(id))
    }

    pub fn union(&self, other: &Self) -> Self {
        let mut s = *self;
        for (a, b) in s.0.iter_mut().zip(other.0) {
            *a |= b;
        }
        s
    }

    /// Writes `VkExtensionProperties` for the members (the two-call idiom).
    ///
    /// # Safety
    /// As for [`write_array`].
    pub unsafe fn write_properties(
        &self,
        p_count: *mut u32,
        p_properties: *mut vk::ExtensionProperties,
    ) -> vk::Result {
        let list: Vec<_> = self
            .iter()
            .map(|id| {
                let info = exts::info(id);
                extension_properties(info.name(), info.spec_version)
            })
            .collect();
        // SAFETY: `p_count` and `p_properties` are the caller's two-call idiom pointers, null or
        // valid for `*p_count` elements (this function's contract, the one `write_array` asks for).
        unsafe { write_array(&list, p_count, p_properties) }
    }
}

impl std::fmt::Debug for ExtensionSet {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        f.debug_set()
            .entries(self.iter().map(|id| exts::info(id).name()))
            .finish()
    }
}

/// Why an application's extension list was refused (each is `VK_ERROR_EXTENSION_NOT_PRESENT`).
#[derive(Debug, PartialEq, Eq, thiserror::Error)]
pub enum ExtensionError {
    #[error("extension name pointer is null")]
    NullName,
    #[error("{0:?} is not an extension this driver knows")]
    Unknown(String),
    #[error("{0:?} is a {1} extension, enabled at the wrong level")]
    WrongLevel(String, &'static str),
    #[error("{0:?} is not supported by this driver")]
    Unsupported(String),
    #[error("{name:?} needs {depends} (registry depends=), which the enabled set does not meet")]
    Dependency { name: String, depends: &'static str },
}

impl ExtensionError {
    /// The `VkResult` creation returns, the one mapper of these refusals: every one is
    /// `VK_ERROR_EXTENSION_NOT_PRESENT`. Not logged here: the creating command logs it with
    /// its own context (`vkgen_abi::vk_error!`).
    pub fn result(&self) -> vk::Result {
        vk::Result::ERROR_EXTENSION_NOT_PRESENT
    }
}

/// Parses `names` (an application's `ppEnabledExtensionNames`) into a set of `kind` extensions
/// drawn from `supported`, and checks every member's dependencies against the set, `also`
/// (the instance's extensions, for a device) and `api_version`.
///
/// # Safety
/// `names` is null (with `count == 0`) or holds `count` pointers, each null or a C string.
pub unsafe fn parse_enabled(
    names: *const *const c_char,
    count: u32,
    kind: ExtensionKind,
    supported: &ExtensionSet,
    also: &ExtensionSet,
    api_version: u32,
) -> Result<ExtensionSet, ExtensionError> {
    let mut set = ExtensionSet::default();
    let names: &[*const c_char] = if names.is_null() || count == 0 {
        &[]
    } else {
        // SAFETY: `count` pointers per the caller.
        unsafe { std::slice::from_raw_parts(names, count as usize) }
    };
    for &p in names {
        if p.is_null() {
            return Err(ExtensionError::NullName);
        }
        // SAFETY: a C string per the caller.
        let name = unsafe { CStr::from_ptr(p) };
        let lossy = || name.to_string_lossy().into_owned();
        let id = exts::lookup(name).ok_or_else(|| ExtensionError::Unknown(lossy()))?;
        let info = exts::info(id);
        if info.kind != kind {
            let level = match info.kind {
                ExtensionKind::Instance => "instance",
                ExtensionKind::Device => "device",
            };
            return Err(ExtensionError::WrongLevel(lossy(), level));
        }
        if !supported.contains(id) {
            return Err(ExtensionError::Unsupported(lossy()));
        }
        set.insert(id);
    }
    let all = set.union(also);
    for id in set.iter() {
        let info = exts::info(id);
        if !depends_hold(info.depends(), &all, api_version) {
            return Err(ExtensionError::Dependency {
                name: info.name().to_string_lossy().into_owned(),
                depends: info.depends(),
            });
        }
    }
    Ok(set)
}

/// Evaluates a registry `depends=` expression (`+` and, `,` or, parentheses; operands are
/// extension names and `VK_VERSION_X_Y`) against an enabled set and an API version. Empty is
/// true. An extension operand is met when enabled or promoted to a core version `api_version`
/// includes; an unknown name is false (it cannot be enabled through this driver). The
/// expression comes from the generator's validated registry; a malformed one is false.
pub fn depends_hold(expr: &str, enabled: &ExtensionSet, api_version: u32) -> bool {
    eval_depends(expr, &|name| operand_holds(name, enabled, api_version))
}

/// One extension or `VK_VERSION_X_Y` operand of a `depends=` expression (see [`depends_hold`]).
pub(crate) fn operand_holds(name: &str, enabled: &ExtensionSet, api_version: u32) -> bool {
    if let Some(v) = name.strip_prefix("VK_VERSION_") {
        let mut it = v.split('_').map(str::parse::<u32>);
        return match (it.next(), it.next()) {
            (Some(Ok(major)), Some(Ok(minor))) => {
                vk::make_api_version(0, major, minor, 0) <= api_version
            }
            _ => false,
        };
    }
    let Ok(c) = std::ffi::CString::new(name) else {
        return false;
    };
    // An extension promoted to core is met by that core version (older registries write
    // `depends="VK_KHR_get_physical_device_properties2"` without the `,VK_VERSION_1_1`).
    exts::lookup(&c).is_some_and(|id| {
        enabled.contains(id) || exts::info(id).promoted_to.is_some_and(|v| v <= api_version)
    })
}

/// Evaluates a `depends=` expression with `operand` answering each name. Empty is true; a
/// malformed expression is false.
pub(crate) fn eval_depends(expr: &str, operand: &dyn Fn(&str) -> bool) -> bool {
    if expr.trim().is_empty() {
        return true;
    }
    // Shunting-free evaluation: a stack of (accumulated-or, current-and) pairs per paren level.
    let mut stack: Vec<(bool, bool)> = vec![(false, true)];
    let mut token = String::new();
    let flush = |token: &mut String, top: &mut (bool, bool)| {
        if !token.is_empty() {
            top.1 &= operand(token);
            token.clear();
        }
    };
    for ch in expr.chars() {
        match ch {
            '(' => stack.push((false, true)),
            ')' => {
                let Some(mut top) = stack.pop() else {
                    return false;
                };
                flush(&mut token, &mut top);
                let value = top.0 | top.1;
                let Some(outer) = stack.last_mut() else {
                    return false;
                };
                outer.1 &= value;
            }
            '+' => {
                let Some(top) = stack.last_mut() else {
                    return false;
                };
                flush(&mut token, top);
            }
            ',' => {
                let Some(top) = stack.last_mut() else {
                    return false;
                };
                flush(&mut token, top);
                top.0 |= top.1;
                top.1 = true;
            }
            c if c.is_whitespace() => {}
            c => token.push(c),
        }
    }
    let Some(mut top) = stack.pop() else {
        return false;
    };
    if !stack.is_empty() {
        return false;
    }
    flush(&mut token, &mut top);
    top.0 | top.1
}

#[cfg(test)]
mod tests {
    use super::*;

    fn set(names: &[&CStr]) -> ExtensionSet {
        ExtensionSet::from_ids(
            &names
                .iter()
                .map(|n| exts::lookup(n).unwrap())
                .collect::<Vec<_>>(),
        )
    }

    #[test]
    fn depends_expressions() {
        let s = set(&[c"VK_KHR_surface", c"VK_KHR_get_physical_device_properties2"]);
        let v10 = vk::API_VERSION_1_0;
        assert!(depends_hold("", &s, v10));
        assert!(depends_hold("VK_KHR_surface", &s, v10));
        assert!(!depends_hold("VK_KHR_swapchain", &s, v10));
        assert!(depends_hold("VK_KHR_swapchain,VK_KHR_surface", &s, v10));
        assert!(!depends_hold("VK_KHR_swapchain+VK_KHR_surface", &s, v10));
        assert!(depends_hold(
            "(VK_KHR_get_physical_device_properties2,VK_VERSION_1_1)+VK_KHR_surface",
            &s,
            v10
        ));
        assert!(!depends_hold("VK_VERSION_1_1", &s, v10));
        // Promoted to 1.1: met at 1.1 without being enabled.
        assert!(!depends_hold("VK_KHR_maintenance1", &s, v10));
        assert!(depends_hold("VK_KHR_maintenance1", &s, vk::API_VERSION_1_1));
        assert!(depends_hold("VK_VERSION_1_1", &s, vk::API_VERSION_1_3));
        assert!(!depends_hold("(VK_KHR_surface", &s, v10));
        assert!(!depends_hold("VK_KHR_surface)", &s, v10));
    }

    #[test]
    fn parse_refuses_unknown_unsupported_wrong_level_and_unmet_dependencies() {
        let supported = set(&[
            c"VK_KHR_surface",
            c"VK_KHR_get_surface_capabilities2",
            c"VK_EXT_debug_report",
        ]);
        let none = ExtensionSet::default();
        let parse = |names: &[&CStr]| {
            let ptrs: Vec<_> = names.iter().map(|n| n.as_ptr()).collect();
            // SAFETY: valid C strings.
            unsafe {
                parse_enabled(
                    ptrs.as_ptr(),
                    ptrs.len() as u32,
                    ExtensionKind::Instance,
                    &supported,
                    &none,
                    vk::API_VERSION_1_0,
                )
            }
        };
        assert_eq!(
            parse(&[c"VK_KHR_surface"]).unwrap(),
            set(&[c"VK_KHR_surface"])
        );
        assert!(matches!(
            parse(&[c"VK_bogus"]),
            Err(ExtensionError::Unknown(_))
        ));
        assert!(matches!(
            parse(&[c"VK_KHR_swapchain"]),
            Err(ExtensionError::WrongLevel(..))
        ));
        assert!(matches!(
            parse(&[c"VK_KHR_device_group_creation"]),
            Err(ExtensionError::Unsupported(_))
        ));
        assert!(matches!(
            parse(&[c"VK_KHR_get_surface_capabilities2"]),
            Err(ExtensionError::Dependency { .. })
        ));
        assert!(parse(&[c"VK_KHR_get_surface_capabilities2", c"VK_KHR_surface"]).is_ok());
    }
}
