//! The lookup table against AOSP's declarations (`data/platform-symbols.json`), and the
//! table's resolution when a name is missing.

use std::collections::BTreeMap;
use std::ffi::c_void;

use super::{LibcxxString, PlatformFns, LOOKUPS};

const DATA: &str = include_str!("../../data/platform-symbols.json");

/// The Rust type a C/C++ parameter or return type crosses as. Opaque pointers (namespaces, the
/// GraphicsEnv singleton) are `*mut c_void`; unscoped enums are `int`; a reference is a
/// pointer; `const std::string&` is a pointer to libc++'s layout.
fn rust_type_of(c: &str) -> Result<&'static str, String> {
    Ok(match c {
        "void" => "",
        "void*"
        | "android_namespace_t*"
        | "struct NativeLoaderNamespace*"
        | "NativeLoaderNamespace*"
        | "GraphicsEnv&"
        | "GraphicsEnv*" => "*mut c_void",
        "const char*" => "*const c_char",
        "char*" => "*mut c_char",
        "char**" => "*mut *mut c_char",
        "const char* const*" => "*const *const c_char",
        "int" => "c_int",
        "bool" => "bool",
        "bool*" => "*mut bool",
        "uint32_t" => "u32",
        "int64_t" => "i64",
        "uint64_t" => "u64",
        "const std::string&" => "*const LibcxxString",
        "GpuStatsInfo::Api" | "GpuStatsInfo::Driver" | "GpuStatsInfo::Stats" => "c_int",
        other => return Err(format!("no Rust mapping for the C type {other:?}")),
    })
}

/// A parameter's type without its name, default value or top-level `const`.
fn parameter_type(param: &str) -> String {
    let param = param.split('=').next().unwrap_or("").trim();
    // The name is the last identifier when something precedes it (`const char*` alone has none).
    let (ty, _name) = match param.rfind(|c: char| !(c.is_alphanumeric() || c == '_')) {
        Some(i) if !param[i + 1..].is_empty() && !is_type_word(&param[i + 1..]) => {
            (param[..=i].trim(), &param[i + 1..])
        }
        _ => (param, ""),
    };
    let ty = ty.replace(" *", "*").replace(" &", "&");
    // `const T` by value is T to the caller.
    match ty.strip_prefix("const ") {
        Some(rest) if !rest.contains(['*', '&']) => rest.to_owned(),
        _ => ty,
    }
}

fn is_type_word(word: &str) -> bool {
    matches!(
        word,
        "int" | "bool" | "void" | "char" | "uint32_t" | "int64_t" | "uint64_t"
    ) || word.starts_with("GpuStatsInfo")
}

/// `unsafe extern "C" fn(…) -> …` for a declaration as the data file writes it.
fn expected_rust_type(declaration: &str, member: bool, is_static: bool) -> Result<String, String> {
    let declaration = declaration.trim().trim_end_matches(';');
    let declaration = declaration.strip_prefix("static ").unwrap_or(declaration);
    let open = declaration.find('(').ok_or("no parameter list")?;
    let close = declaration.rfind(')').ok_or("no parameter list")?;
    let head = &declaration[..open];
    let name_start = head
        .rfind(|c: char| !(c.is_alphanumeric() || c == '_'))
        .map_or(0, |i| i + 1);
    let ret = rust_type_of(&parameter_type(&head[..name_start]))?;
    let mut params = Vec::new();
    if member && !is_static {
        params.push("*mut c_void".to_owned());
    }
    for p in declaration[open + 1..close].split(',') {
        if p.trim().is_empty() {
            continue;
        }
        params.push(rust_type_of(&parameter_type(p))?.to_owned());
    }
    let ret = if ret.is_empty() {
        String::new()
    } else {
        format!(" -> {ret}")
    };
    Ok(format!(
        "unsafe extern \"C\" fn({}){ret}",
        params.join(", ")
    ))
}

fn normalise(ty: &str) -> String {
    ty.chars().filter(|c| !c.is_whitespace()).collect()
}

#[test]
fn lookups_match_aosp_declarations() {
    let data: serde_json::Value = serde_json::from_str(DATA).expect("platform-symbols.json");
    let sources = data["sources"].as_object().expect("sources");
    let mut declared: BTreeMap<String, &serde_json::Value> = BTreeMap::new();
    for entry in data["symbols"].as_array().expect("symbols") {
        let symbol = entry["symbol"].as_str().expect("symbol").to_owned();
        // Each row names where AOSP declares it, at a recorded revision.
        let source = entry["source"].as_str().expect("source");
        let revision = sources[source]["revision"].as_str().expect("revision");
        assert_eq!(revision.len(), 40, "{symbol}: revision of {source}");
        assert!(entry["file"].as_str().is_some_and(|f| !f.is_empty()));
        assert!(entry["line"].as_u64().is_some_and(|l| l > 0));
        assert!(
            declared.insert(symbol.clone(), entry).is_none(),
            "{symbol} twice"
        );
    }
    let mut looked_up = Vec::new();
    for lookup in LOOKUPS {
        let symbol = lookup.symbol.to_str().expect("ASCII symbol");
        let entry = declared
            .get(symbol)
            .unwrap_or_else(|| panic!("{symbol} is looked up but not in platform-symbols.json"));
        assert_eq!(
            lookup.library.to_str().ok(),
            entry["library"].as_str(),
            "{symbol}: library"
        );
        let expected = expected_rust_type(
            entry["declaration"].as_str().expect("declaration"),
            entry["member_of"].is_string(),
            entry["static"].as_bool().unwrap_or(false),
        )
        .unwrap_or_else(|e| panic!("{symbol}: {e}"));
        assert_eq!(
            normalise(lookup.rust_type),
            normalise(&expected),
            "{symbol}: the Rust type does not match AOSP's declaration {}",
            entry["declaration"]
        );
        // A C++ member's name is its mangling: class and method name appear in it.
        if let Some(class) = entry["member_of"].as_str() {
            for part in class.split("::") {
                assert!(
                    symbol.contains(&format!("{}{part}", part.len())),
                    "{symbol}"
                );
            }
        }
        looked_up.push(symbol.to_owned());
    }
    let unused: Vec<&String> = declared.keys().filter(|s| !looked_up.contains(s)).collect();
    assert!(
        unused.is_empty(),
        "in the data file but never looked up: {unused:?}"
    );
}

#[test]
fn declarations_parse_as_their_abi() {
    assert_eq!(
        expected_rust_type(
            "bool CloseNativeLibrary(void* handle, const bool needs_native_bridge, char** error_msg);",
            false,
            false
        )
        .unwrap(),
        "unsafe extern \"C\" fn(*mut c_void, bool, *mut *mut c_char) -> bool"
    );
    assert_eq!(
        expected_rust_type(
            "void setTargetStats(const GpuStatsInfo::Stats stats, const uint64_t value = 0);",
            true,
            false
        )
        .unwrap(),
        "unsafe extern \"C\" fn(*mut c_void, c_int, u64)"
    );
    assert_eq!(
        expected_rust_type(
            "android_namespace_t* android_get_exported_namespace(const char*);",
            false,
            false
        )
        .unwrap(),
        "unsafe extern \"C\" fn(*const c_char) -> *mut c_void"
    );
    assert!(expected_rust_type("float f(double x);", false, false).is_err());
}

/// A symbol table the tests control: every name of [`LOOKUPS`] but `missing`.
fn table_without(
    missing: &str,
) -> impl FnMut(&std::ffi::CStr, &std::ffi::CStr) -> Result<*mut c_void, String> + '_ {
    extern "C" fn placeholder() {}
    move |_library, symbol| {
        if symbol.to_bytes() == missing.as_bytes() {
            Ok(std::ptr::null_mut())
        } else {
            Ok(placeholder as *mut c_void)
        }
    }
}

#[test]
fn a_missing_symbol_fails_the_whole_table_naming_it() {
    assert!(PlatformFns::resolve(table_without("none")).is_ok());
    for lookup in LOOKUPS {
        let name = lookup.symbol.to_str().unwrap();
        let e = PlatformFns::resolve(table_without(name)).unwrap_err();
        assert_eq!(e.symbol, name);
        assert_eq!(e.library, lookup.library.to_str().unwrap());
        assert!(e.to_string().contains(name), "{e}");
    }
    // A library that does not open is reported with its dlerror.
    let e = PlatformFns::resolve(|_, _| Err("libvndksupport.so: not found".into())).unwrap_err();
    assert_eq!(e.symbol, "android_load_sphal_library");
    assert!(e.to_string().contains("not found"), "{e}");
}

#[test]
fn libcxx_strings_read_in_both_forms() {
    const W: usize = std::mem::size_of::<usize>();
    // Short: length << 1 in byte 0, the bytes from offset 1.
    let mut short = LibcxxString { bytes: [0; 3 * W] };
    short.bytes[0] = 5 << 1;
    short.bytes[1..6].copy_from_slice(b"a:b!/");
    // SAFETY: a well-formed short string.
    assert_eq!(unsafe { short.to_bytes() }, b"a:b!/");
    // Long: bit 0 set, the size at word 1, the data pointer at word 2.
    let text = b"/data/app/x/base.apk!/lib/arm64-v8a:/data/app/x/lib/arm64";
    let mut long = LibcxxString { bytes: [0; 3 * W] };
    long.bytes[0] = 1 | 64;
    long.bytes[W..2 * W].copy_from_slice(&text.len().to_ne_bytes());
    long.bytes[2 * W..3 * W].copy_from_slice(&(text.as_ptr() as usize).to_ne_bytes());
    // SAFETY: a long string whose pointer holds `text.len()` bytes.
    assert_eq!(unsafe { long.to_bytes() }, text);
    // Empty.
    let empty = LibcxxString { bytes: [0; 3 * W] };
    // SAFETY: a well-formed empty short string.
    assert!(unsafe { empty.to_bytes() }.is_empty());
}

/// Every platform lookup goes through the table: outside this module no Android code calls
/// `dlsym` itself or names a platform library or a GraphicsEnv member (`wsi/desktop/`, the
/// desktop presenters' `dlsym` of the application's X11 functions, is compiled out of Android
/// builds with the `desktop` feature).
#[test]
fn no_platform_lookup_outside_the_table() {
    fn walk(dir: &std::path::Path, out: &mut Vec<std::path::PathBuf>) {
        for entry in std::fs::read_dir(dir).expect("src dir") {
            let path = entry.expect("dir entry").path();
            if path.is_dir() {
                walk(&path, out);
            } else if path.extension().is_some_and(|e| e == "rs") {
                out.push(path);
            }
        }
    }
    let src = std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("src");
    let mut files = Vec::new();
    walk(&src, &mut files);
    let forbidden = [
        "libc::dlsym(",
        "c\"_ZN7android",
        "c\"libvndksupport",
        "c\"libdl_android",
        "c\"libnativeloader",
        "c\"libgraphicsenv",
    ];
    let mut found = Vec::new();
    for file in &files {
        let rel = file.strip_prefix(&src).unwrap_or(file);
        let rel_s = rel.to_string_lossy();
        if rel_s.starts_with("platform_symbols") || rel_s.starts_with("wsi/desktop") {
            continue;
        }
        let text = std::fs::read_to_string(file).expect("read source");
        for f in forbidden {
            if text.contains(f) {
                found.push(format!("{rel_s}: {f}"));
            }
        }
    }
    assert!(
        found.is_empty(),
        "platform lookups outside the table: {found:?}"
    );
    // The scan sees what it looks for.
    let own = std::fs::read_to_string(src.join("platform_symbols.rs")).unwrap();
    assert!(own.contains(forbidden[0]) && own.contains(forbidden[1]));
}
