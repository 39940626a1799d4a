//! Rust names for Vulkan things, following ash's conventions so that generated code and ash agree:
//! `VkImageUsageFlagBits` → `ImageUsageFlags`, `VK_STRUCTURE_TYPE_FOO` in `VkStructureType` → `FOO`,
//! `vkCreateImage` → `create_image`, `pNext` → `p_next`.

use std::cell::RefCell;
use std::collections::HashMap;

use heck::{ToShoutySnakeCase, ToSnakeCase};

/// heck's `snake_case` of `s`, remembered: a registry spells the same few thousand names tens of
/// thousands of times (every `sType`, every enum group's stem), and heck's conversion, which
/// formats word by word, was a tenth of a whole `generate`.
pub fn snake(s: &str) -> String {
    remembered(&SNAKE, s, |s| s.to_snake_case())
}

/// heck's `SHOUTY_SNAKE_CASE` of `s`, remembered like [`snake`].
pub fn shouty(s: &str) -> String {
    remembered(&SHOUTY, s, |s| s.to_shouty_snake_case())
}

type Memo = RefCell<HashMap<String, String>>;

thread_local! {
    static SNAKE: Memo = RefCell::new(HashMap::new());
    static SHOUTY: Memo = RefCell::new(HashMap::new());
}

/// Most names a thread remembers: a registry has fewer than 40,000 distinct ones; past this (a
/// long-lived process generating from many inputs) the memo starts again rather than grow.
const MEMO_LIMIT: usize = 1 << 16;

fn remembered(
    memo: &'static std::thread::LocalKey<Memo>,
    s: &str,
    convert: fn(&str) -> String,
) -> String {
    memo.with(|m| {
        if let Some(v) = m.borrow().get(s) {
            return v.clone();
        }
        let v = convert(s);
        let mut m = m.borrow_mut();
        if m.len() >= MEMO_LIMIT {
            m.clear();
        }
        m.insert(s.to_owned(), v.clone());
        v
    })
}

/// Rust type name in the `vk` module (without the module path).
pub fn type_name(vk: &str) -> String {
    let base = vk.strip_prefix("Vk").unwrap_or(vk);
    base.replacen("FlagBits", "Flags", 1)
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
    let group_vendor = vendor_suffix(group);
    let mut stem = group
        .strip_suffix(group_vendor.unwrap_or(""))
        .unwrap_or(group);
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
    let prefixes = [format!("VK_{shouty}_"), format!("VK_{split_digit}_")];
    let prefix = prefixes
        .iter()
        .find(|p| value.starts_with(p.as_str()))
        .cloned()
        .unwrap_or_else(|| prefixes[0].clone());
    let mut rest = value
        .strip_prefix(&prefix)
        .unwrap_or_else(|| value.strip_prefix("VK_").unwrap_or(value))
        .to_owned();
    if let Some(v) = group_vendor {
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
    fn remembered_conversions_are_heck_s() {
        for name in [
            "pNext",
            "sType",
            "VkPhysicalDevice8BitStorageFeatures",
            "vkCmdDraw",
        ] {
            for _ in 0..2 {
                assert_eq!(snake(name), name.to_snake_case());
                assert_eq!(shouty(name), name.to_shouty_snake_case());
            }
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
