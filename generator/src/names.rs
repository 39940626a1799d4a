//! Rust names for Vulkan things, following ash's conventions so that generated code and ash agree:
//! `VkImageUsageFlagBits` → `ImageUsageFlags`, `VK_STRUCTURE_TYPE_FOO` in `VkStructureType` → `FOO`,
//! `vkCreateImage` → `create_image`, `pNext` → `p_next`.

use heck::{ToShoutySnakeCase, ToSnakeCase};

/// heck's `snake_case` of `s`.
pub fn snake(s: &str) -> String {
    ascii_case(s, false).unwrap_or_else(|| s.to_snake_case())
}

/// heck's `SHOUTY_SNAKE_CASE` of `s`.
pub fn shouty(s: &str) -> String {
    ascii_case(s, true).unwrap_or_else(|| s.to_shouty_snake_case())
}

/// heck 0.5's word splitting (its `transform`) for an ASCII `s`, the words joined by `_` in one
/// case; `None` for other text, which goes to heck. A registry spells a few thousand names tens
/// of thousands of times, and heck, which formats character by character through `fmt`, was a
/// twelfth of a whole `generate` (issue 35); tests compare the two on every name of the registry
/// matrix and on arbitrary ASCII.
fn ascii_case(s: &str, upper: bool) -> Option<String> {
    #[derive(Clone, Copy, PartialEq)]
    enum Mode {
        Boundary,
        Lower,
        Upper,
    }
    if !s.is_ascii() {
        return None;
    }
    let mut out = String::with_capacity(s.len() + 4);
    let mut first = true;
    let mut push = |word: &str, out: &mut String| {
        if !first {
            out.push('_');
        }
        first = false;
        let start = out.len();
        out.push_str(word);
        let pushed = &mut out[start..];
        if upper {
            pushed.make_ascii_uppercase();
        } else {
            pushed.make_ascii_lowercase();
        }
    };
    for word in s.split(|c: char| !c.is_ascii_alphanumeric()) {
        let b = word.as_bytes();
        let (mut init, mut mode) = (0, Mode::Boundary);
        for i in 0..b.len() {
            let c = b[i];
            let Some(&next) = b.get(i + 1) else {
                push(&word[init..], &mut out);
                break;
            };
            let next_mode = if c.is_ascii_lowercase() {
                Mode::Lower
            } else if c.is_ascii_uppercase() {
                Mode::Upper
            } else {
                mode
            };
            if next_mode == Mode::Lower && next.is_ascii_uppercase() {
                push(&word[init..=i], &mut out);
                (init, mode) = (i + 1, Mode::Boundary);
            } else if mode == Mode::Upper && c.is_ascii_uppercase() && next.is_ascii_lowercase() {
                push(&word[init..i], &mut out);
                (init, mode) = (i, Mode::Boundary);
            } else {
                mode = next_mode;
            }
        }
    }
    Some(out)
}

/// Rust type name in the `vk` module (without the module path).
pub fn type_name(vk: &str) -> String {
    let base = vk.strip_prefix("Vk").unwrap_or(vk);
    // `replacen("FlagBits", "Flags", 1)`, without building a substring searcher for each of the
    // ~50,000 names a run converts.
    let b = base.as_bytes();
    match memchr::memchr_iter(b'F', b).find(|&i| b[i..].starts_with(b"FlagBits")) {
        Some(i) => format!("{}Flags{}", &base[..i], &base[i + "FlagBits".len()..]),
        None => base.to_owned(),
    }
}

/// `vkCreateImage` → `create_image`.
pub fn command_field(cmd: &str) -> String {
    let base = cmd.strip_prefix("vk").unwrap_or(cmd);
    escape(&snake(base))
}

/// Struct member / parameter name.
pub fn field_name(c: &str) -> String {
    if c == "type" {
        return "ty".into();
    }
    escape(&snake(c))
}

fn escape(s: &str) -> String {
    match s {
        "type" | "ref" | "match" | "mod" | "move" | "loop" | "in" | "fn" | "impl" | "use"
        | "where" | "box" | "async" | "await" | "dyn" | "abstract" | "final" | "override"
        | "macro" => {
            format!("r#{s}")
        }
        // Keywords a raw identifier cannot spell: a C parameter `self` is `self_` in Rust.
        "self" | "super" | "crate" | "Self" => format!("{s}_"),
        _ => s.to_owned(),
    }
}

/// Names no Rust rendering of a registry name may be, even where they are valid C.
pub const REFUSED_NAMES: &[&str] = &["Self", "crate", "super", "_"];

/// Whether `name` (a registry name) is a C identifier whose Rust spelling `rendered` is a Rust
/// identifier (plain or raw). The error says why not.
pub fn check_identifier(name: &str, rendered: &str) -> Result<(), String> {
    let c_ident = name
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && name.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !c_ident {
        return Err("not a C identifier".into());
    }
    if REFUSED_NAMES.contains(&name) {
        return Err("a Rust keyword vkgen cannot spell as an identifier".into());
    }
    if !is_rust_identifier(rendered) {
        return Err(format!("its Rust name `{rendered}` is not an identifier"));
    }
    Ok(())
}

/// Whether `s` is a Rust identifier, plain (`foo`) or raw (`r#type`).
pub fn is_rust_identifier(s: &str) -> bool {
    let (raw, body) = match s.strip_prefix("r#") {
        Some(b) => (true, b),
        None => (false, s),
    };
    let ident_chars = body
        .bytes()
        .next()
        .is_some_and(|b| b.is_ascii_alphabetic() || b == b'_')
        && body.bytes().all(|b| b.is_ascii_alphanumeric() || b == b'_');
    if !ident_chars || body == "_" {
        return false;
    }
    if raw {
        !matches!(body, "self" | "Self" | "super" | "crate")
    } else {
        !is_reserved(body)
    }
}

/// Whether an identifier-shaped word is one `syn` refuses as a plain identifier: the strict,
/// reserved and weak keywords it lists (syn 2's `accept_as_ident`). Asking syn itself tokenized
/// each name, a tenth of a whole `generate` in the emitters; a test keeps the two in step.
pub fn is_reserved(word: &str) -> bool {
    matches!(
        word,
        "_" | "abstract"
            | "as"
            | "async"
            | "await"
            | "become"
            | "box"
            | "break"
            | "const"
            | "continue"
            | "crate"
            | "do"
            | "dyn"
            | "else"
            | "enum"
            | "extern"
            | "false"
            | "final"
            | "fn"
            | "for"
            | "if"
            | "impl"
            | "in"
            | "let"
            | "loop"
            | "macro"
            | "match"
            | "mod"
            | "move"
            | "mut"
            | "override"
            | "priv"
            | "pub"
            | "ref"
            | "return"
            | "Self"
            | "self"
            | "static"
            | "struct"
            | "super"
            | "trait"
            | "true"
            | "try"
            | "type"
            | "typeof"
            | "unsafe"
            | "unsized"
            | "use"
            | "virtual"
            | "where"
            | "while"
            | "yield"
    )
}

const VENDOR_TAGS: &[&str] = &[
    "KHR",
    "EXT",
    "NV",
    "NVX",
    "AMD",
    "AMDX",
    "ANDROID",
    "ARM",
    "QCOM",
    "GOOGLE",
    "INTEL",
    "HUAWEI",
    "VALVE",
    "FB",
    "MESA",
    "IMG",
    "MVK",
    "NN",
    "GGP",
    "FUCHSIA",
    "QNX",
    "SEC",
    "MSFT",
    "LUNARG",
    "SAMSUNG",
    "OHOS",
    "BRCM",
    "VIV",
    "ANDROIDX",
    "KHX",
    "JUICE",
    "NZXT",
    "LGE",
    "RASTERGRID",
    "IMAGINATION",
    "TIZEN",
    "RENDERDOC",
];

fn vendor_suffix(name: &str) -> Option<&'static str> {
    VENDOR_TAGS
        .iter()
        .copied()
        .filter(|t| name.ends_with(t))
        .max_by_key(|t| t.len())
}

/// The associated-constant name of `value` in enum group `group` (ash's rule, approximately):
/// strip the group's prefix, `_BIT` and a vendor suffix shared with the group; keep a leading
/// `TYPE_` when the rest would start with a digit.
pub fn variant_name(group: &str, value: &str) -> String {
    VariantNames::new(group).name(value)
}

/// [`variant_name`] for many values of one group: what depends on the group alone (its vendor
/// suffix, its prefixes) is worked out once, not per value (it was most of `vk.rs`'s traits).
pub struct VariantNames<'g> {
    vendor: Option<&'g str>,
    prefixes: [String; 2],
}

impl<'g> VariantNames<'g> {
    pub fn new(group: &'g str) -> Self {
        let vendor = vendor_suffix(group);
        let mut stem = group.strip_suffix(vendor.unwrap_or("")).unwrap_or(group);
        stem = stem.strip_prefix("Vk").unwrap_or(stem);
        let stem = stem.replace("FlagBits", "").replace("Flags", "");
        let shouty = shouty(&stem);
        // `VkAccessFlagBits2` values are spelled `VK_ACCESS_2_…`.
        let split_digit = match shouty
            .char_indices()
            .rev()
            .take_while(|(_, c)| c.is_ascii_digit())
            .last()
        {
            Some((i, _)) if i > 0 && !shouty[..i].ends_with('_') => {
                format!("{}_{}", &shouty[..i], &shouty[i..])
            }
            _ => shouty.clone(),
        };
        Self {
            vendor,
            prefixes: [format!("VK_{shouty}_"), format!("VK_{split_digit}_")],
        }
    }

    /// The associated-constant name of `value` in this group.
    pub fn name(&self, value: &str) -> String {
        let prefix = self
            .prefixes
            .iter()
            .find(|p| value.starts_with(p.as_str()))
            .unwrap_or(&self.prefixes[0]);
        let mut rest = value
            .strip_prefix(prefix.as_str())
            .unwrap_or_else(|| value.strip_prefix("VK_").unwrap_or(value))
            .to_owned();
        if let Some(v) = self.vendor {
            if let Some(r) = rest.strip_suffix(&format!("_{v}")) {
                rest = r.to_owned();
            }
        }
        if let Some(r) = rest.strip_suffix("_BIT") {
            rest = r.to_owned();
        } else if let Some(pos) = rest.find("_BIT_") {
            // FOO_BIT_KHR
            rest = format!("{}{}", &rest[..pos], &rest[pos + 4..]);
        }
        let mut rest = rest.to_uppercase();
        if rest.starts_with(|c: char| c.is_ascii_digit()) {
            let last = prefix
                .trim_end_matches('_')
                .rsplit('_')
                .find(|seg| seg.starts_with(|c: char| c.is_ascii_alphabetic()))
                .unwrap_or("TYPE");
            rest = format!("{last}_{rest}");
        }
        rest
    }
}

/// `VK_UUID_SIZE` → `UUID_SIZE`.
pub fn constant_name(c: &str) -> String {
    c.strip_prefix("VK_").unwrap_or(c).to_owned()
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn reserved_words_are_the_ones_syn_refuses() {
        // Every Rust keyword of the 2015–2024 editions, weak ones included, plus words that are
        // not keywords: `is_reserved` must answer as `syn::parse_str::<Ident>` does.
        let words = [
            "_",
            "abstract",
            "as",
            "async",
            "await",
            "become",
            "box",
            "break",
            "const",
            "continue",
            "crate",
            "do",
            "dyn",
            "else",
            "enum",
            "extern",
            "false",
            "final",
            "fn",
            "for",
            "if",
            "impl",
            "in",
            "let",
            "loop",
            "macro",
            "match",
            "mod",
            "move",
            "mut",
            "override",
            "priv",
            "pub",
            "ref",
            "return",
            "Self",
            "self",
            "static",
            "struct",
            "super",
            "trait",
            "true",
            "try",
            "type",
            "typeof",
            "unsafe",
            "unsized",
            "use",
            "virtual",
            "where",
            "while",
            "yield",
            "gen",
            "union",
            "raw",
            "safe",
            "auto",
            "default",
            "macro_rules",
            "r",
            "b",
            "br",
            "c",
            "cr",
            "p_next",
            "s_type",
            "ty",
            "Self_",
            "self_",
            "_x",
            "x1",
        ];
        for w in words {
            assert_eq!(
                is_reserved(w),
                syn::parse_str::<syn::Ident>(w).is_err(),
                "`{w}`"
            );
        }
    }

    #[test]
    fn conversions_are_heck_s() {
        for name in [
            "pNext",
            "sType",
            "VkPhysicalDevice8BitStorageFeatures",
            "vkCmdDraw",
            "HTTPRequest",
            "_a__b_",
            "",
            "X",
            "a1B2cD3",
            "VK_KHR_swapchain",
        ] {
            assert_eq!(snake(name), name.to_snake_case(), "{name:?}");
            assert_eq!(shouty(name), name.to_shouty_snake_case(), "{name:?}");
        }
        // Not ASCII: heck's own.
        assert_eq!(snake("ÉtéΣ"), "ÉtéΣ".to_snake_case());
    }

    proptest::proptest! {
        /// Any ASCII text converts as heck converts it.
        #[test]
        fn ascii_conversions_are_heck_s(s in "[A-Za-z0-9_ .-]{0,24}") {
            proptest::prop_assert_eq!(snake(&s), s.to_snake_case());
            proptest::prop_assert_eq!(shouty(&s), s.to_shouty_snake_case());
        }
    }

    #[test]
    fn ash_names() {
        assert_eq!(type_name("VkImageUsageFlagBits"), "ImageUsageFlags");
        assert_eq!(type_name("VkAccessFlagBits2"), "AccessFlags2");
        assert_eq!(
            type_name("VkSwapchainImageUsageFlagBitsANDROID"),
            "SwapchainImageUsageFlagsANDROID"
        );
        assert_eq!(command_field("vkCreateImage"), "create_image");
        assert_eq!(field_name("pNext"), "p_next");
        assert_eq!(field_name("type"), "ty");
        assert_eq!(field_name("self"), "self_");
        assert!(check_identifier("self", &field_name("self")).is_ok());
        for bad in ["Self", "crate", "_", "a#b", "1abc", ""] {
            assert!(check_identifier(bad, &field_name(bad)).is_err(), "{bad}");
        }
        assert_eq!(
            variant_name(
                "VkStructureType",
                "VK_STRUCTURE_TYPE_GRALLOC_USAGE_INFO_ANDROID"
            ),
            "GRALLOC_USAGE_INFO_ANDROID"
        );
        assert_eq!(
            variant_name(
                "VkSwapchainImageUsageFlagBitsANDROID",
                "VK_SWAPCHAIN_IMAGE_USAGE_SHARED_BIT_ANDROID"
            ),
            "SHARED"
        );
        assert_eq!(
            variant_name("VkImageUsageFlagBits", "VK_IMAGE_USAGE_TRANSFER_SRC_BIT"),
            "TRANSFER_SRC"
        );
        assert_eq!(variant_name("VkImageType", "VK_IMAGE_TYPE_2D"), "TYPE_2D");
        assert_eq!(
            variant_name("VkResult", "VK_ERROR_OUT_OF_HOST_MEMORY"),
            "ERROR_OUT_OF_HOST_MEMORY"
        );
        assert_eq!(
            variant_name("VkAccessFlagBits2", "VK_ACCESS_2_SHADER_READ_BIT"),
            "SHADER_READ"
        );
        assert_eq!(
            variant_name(
                "VkImageCreateFlagBits2",
                "VK_IMAGE_CREATE_2_2D_ARRAY_COMPATIBLE_BIT"
            ),
            "CREATE_2D_ARRAY_COMPATIBLE"
        );
    }
}
