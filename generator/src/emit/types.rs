//! `src/vk.rs`: `pub use ash::vk::*` plus every type of the selection that ash 0.38 lacks (1.4
//! registries, our Android native-buffer spec 11), and enum values ash lacks as extension traits.
//! Written as formatted text (see `text`): on 1.4 registries this is the largest file.

use std::collections::BTreeSet;
use std::fmt::Write;

use super::{ident, text, Ctx, Place, PREAMBLE};
use crate::error::Result;
use crate::model::*;
use crate::names;
use crate::registry::enum_value;

pub fn emit(cx: &Ctx) -> Result<String> {
    let mut out = format!(
        "// {PREAMBLE}\n//! Vulkan types: ash 0.38's, plus the ones it lacks for this registry (and the Android\n//! native-buffer types at spec 11, which replace ash's spec-8 definitions).\n\n#![allow(non_camel_case_types, non_snake_case, non_upper_case_globals, clippy::all)]\npub use ash::vk::*;\n"
    );
    let mut done: BTreeSet<String> = BTreeSet::new();
    let reg = cx.reg();
    let mut needed: BTreeSet<&str> = cx.sel.types.iter().map(String::as_str).collect();
    // The bits enum of an emitted bitmask is folded into it; an emitted FlagBits enum needs its Flags.
    for t in cx.sel.types.iter() {
        if let Some(Type {
            kind: TypeKind::Bitmask { bits: Some(b), .. },
            ..
        }) = reg.types.get(t)
        {
            needed.insert(b);
        }
    }
    let mut emitted = Vec::new();
    for name in needed {
        let Some(ty) = reg.types.get(name) else {
            continue;
        };
        if matches!(
            ty.kind,
            TypeKind::Define | TypeKind::Include | TypeKind::External
        ) || !cx.emits_type(name)
        {
            continue;
        }
        let rust = ident(&names::type_name(name)).to_string();
        if !done.insert(rust.clone()) {
            continue;
        }
        emitted.push((ty, rust));
    }
    // Enum values ash's types lack, as associated consts of per-type extension traits.
    let groups: Vec<(&EnumGroup, String)> = reg
        .enums
        .values()
        .filter_map(|group| {
            let rust = names::type_name(&group.name);
            let skip = cx.emits_type(&group.name)
                || !cx.ash.has(&rust)
                || !cx.sel.types.contains(&group.name);
            (!skip).then_some((group, rust))
        })
        .collect();
    // The types, then the traits: one fan-out for both, so the traits' threads do not wait for
    // the slowest of the types'.
    let types = super::chunks(&emitted).map(|chunk| -> super::Part {
        Box::new(move |out| {
            for (ty, rust) in chunk {
                emit_type(cx, ty, rust, out);
            }
        })
    });
    let traits = super::chunks(&groups).map(|chunk| -> super::Part {
        Box::new(move |out| {
            for (group, rust) in chunk {
                ext_trait(cx, group, rust, out);
            }
        })
    });
    out.push_str(&super::in_parallel(types.chain(traits).collect()));
    Ok(out)
}

/// The trait of `group`'s values that ash's `rust` lacks, if any.
fn ext_trait(cx: &Ctx, group: &EnumGroup, rust: &str, out: &mut String) {
    let consts: Vec<(String, String, i64)> = group_values(cx, group)
        .into_iter()
        .filter(|(cname, _, _)| !cx.ash.has(&format!("{rust}::{cname}")))
        .collect();
    if consts.is_empty() {
        return;
    }
    let _ = write!(
        out,
        "\n/// Values of `{}` that ash 0.38 lacks. Bring the trait into scope to use them.\npub trait {rust}Ext: Sized {{\n",
        group.name
    );
    for (cname, vk_name, _) in &consts {
        let _ = writeln!(out, "    /// `{vk_name}`\n    const {cname}: Self;");
    }
    let _ = writeln!(out, "}}\nimpl {rust}Ext for {rust} {{");
    for (cname, _, value) in &consts {
        let _ = writeln!(
            out,
            "    const {cname}: Self = Self::from_raw({});",
            value_literal(group, *value)
        );
    }
    out.push_str("}\n");
}

/// The selected values of an enum group: (Rust const name, vk name, value), first name wins.
fn group_values(cx: &Ctx, group: &EnumGroup) -> Vec<(String, String, i64)> {
    let mut seen = BTreeSet::new();
    let mut out = Vec::new();
    let variants = names::VariantNames::new(&group.name);
    for v in &group.values {
        if v.extension
            .as_ref()
            .is_some_and(|e| !cx.sel.is_selected_extension(e))
        {
            continue;
        }
        let cname = ident(&variants.name(&v.name)).to_string();
        if !seen.insert(cname.clone()) {
            continue;
        }
        if let Some(value) = enum_value(group, &v.value, 0) {
            out.push((cname, v.name.clone(), value));
        }
    }
    out
}

fn value_literal(group: &EnumGroup, v: i64) -> String {
    match (group.bitmask, group.width64) {
        (true, true) => format!("{:#x}", v as u64),
        (true, false) => format!("{:#x}", v as u32),
        (false, _) => (v as i32).to_string(),
    }
}

fn emit_type(cx: &Ctx, ty: &Type, rust: &str, out: &mut String) {
    let doc = format!(
        "\n/// [`{}`]({})\n",
        ty.name,
        cx.spec_link(&ty.name).trim_matches(['<', '>'])
    );
    if let Some(target) = &ty.alias {
        let t = ident(&names::type_name(target)).to_string();
        if t == rust {
            return;
        }
        out.push_str(&doc);
        if cx.has_lifetime(target) {
            let _ = writeln!(out, "pub type {rust}<'a> = {t}<'a>;");
        } else {
            let _ = writeln!(out, "pub type {rust} = {t};");
        }
        return;
    }
    match &ty.kind {
        TypeKind::Basetype {
            underlying,
            pointer,
        } => {
            out.push_str(&doc);
            match underlying {
                Some(u) => {
                    let u = text::base_str(cx, u, Place::Field);
                    let star = if *pointer { "*mut " } else { "" };
                    let _ = writeln!(out, "pub type {rust} = {star}{u};");
                }
                None => {
                    let _ = writeln!(out, "pub type {rust} = core::ffi::c_void;");
                }
            }
        }
        TypeKind::Handle {
            dispatchable,
            object_type,
            ..
        } => emit_handle(*dispatchable, object_type.as_deref(), rust, &doc, out),
        TypeKind::Enum | TypeKind::Bitmask { .. } => emit_enum_or_flags(cx, ty, rust, &doc, out),
        TypeKind::Struct(agg) | TypeKind::Union(agg) => {
            emit_aggregate(cx, ty, agg, rust, &doc, out)
        }
        TypeKind::Funcpointer { ret, params } => emit_funcpointer(cx, ret, params, rust, &doc, out),
        TypeKind::Define | TypeKind::Include | TypeKind::External => {}
    }
}

/// A handle: a pointer newtype for a dispatchable one (`VK_DEFINE_HANDLE`), a `u64` otherwise.
fn emit_handle(
    dispatchable: bool,
    object_type: Option<&str>,
    rust: &str,
    doc: &str,
    out: &mut String,
) {
    let obj = object_type
        .map(|o| ident(&names::variant_name("VkObjectType", o)).to_string())
        .unwrap_or_else(|| "UNKNOWN".to_owned());
    out.push_str(doc);
    if dispatchable {
        let _ = write!(
            out,
            "#[repr(transparent)]\n#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug)]\npub struct {rust}(pub *mut u8);\n\
             impl Default for {rust} {{\n    fn default() -> Self {{\n        Self(core::ptr::null_mut())\n    }}\n}}\n\
             // SAFETY: a dispatchable handle is an opaque pointer Vulkan lets any thread use.\nunsafe impl Send for {rust} {{}}\n\
             // SAFETY: an opaque pointer; Vulkan's external-synchronisation rules, which the application\n// follows, order every use of the object from several threads.\nunsafe impl Sync for {rust} {{}}\n\
             impl Handle for {rust} {{\n    const TYPE: ObjectType = ObjectType::{obj};\n    fn as_raw(self) -> u64 {{\n        self.0 as u64\n    }}\n    fn from_raw(x: u64) -> Self {{\n        Self(x as *mut u8)\n    }}\n}}\n"
        );
    } else {
        let _ = write!(
            out,
            "#[repr(transparent)]\n#[derive(Clone, Copy, PartialEq, Eq, Hash, Debug, Default)]\npub struct {rust}(pub u64);\n\
             impl Handle for {rust} {{\n    const TYPE: ObjectType = ObjectType::{obj};\n    fn as_raw(self) -> u64 {{\n        self.0\n    }}\n    fn from_raw(x: u64) -> Self {{\n        Self(x)\n    }}\n}}\n"
        );
    }
}

/// An enum or a flags type: a transparent integer newtype with its values as constants.
fn emit_enum_or_flags(cx: &Ctx, ty: &Type, rust: &str, doc: &str, out: &mut String) {
    let reg = cx.reg();
    let (group_name, width64, bitmask) = match &ty.kind {
        TypeKind::Bitmask { bits, width64 } => (bits.clone(), *width64, true),
        _ => (
            Some(ty.name.clone()),
            false,
            reg.enums.get(&ty.name).is_some_and(|g| g.bitmask),
        ),
    };
    let group = group_name.as_deref().and_then(|g| reg.enums.get(g));
    let width64 = width64 || group.is_some_and(|g| g.width64);
    let repr = match (bitmask, width64) {
        (true, true) => "u64",
        (true, false) => "u32",
        (false, _) => "i32",
    };
    out.push_str(doc);
    let _ = write!(
        out,
        "#[repr(transparent)]\n#[derive(Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash, Debug, Default)]\npub struct {rust}(pub {repr});\n\
         impl {rust} {{\n    pub const fn from_raw(x: {repr}) -> Self {{\n        Self(x)\n    }}\n    pub const fn as_raw(self) -> {repr} {{\n        self.0\n    }}\n"
    );
    if let Some(g) = group {
        for (cname, vk_name, value) in group_values(cx, g) {
            let _ = writeln!(
                out,
                "    /// `{vk_name}`\n    pub const {cname}: Self = Self({});",
                value_literal(g, value)
            );
        }
    }
    let _ = writeln!(out, "}}");
}

/// A struct or union of C layout, with a `Default` that sets `sType` as ash's do.
fn emit_aggregate(cx: &Ctx, ty: &Type, agg: &Aggregate, rust: &str, doc: &str, out: &mut String) {
    let reg = cx.reg();
    let keyword = if matches!(ty.kind, TypeKind::Union(_)) {
        "union"
    } else {
        "struct"
    };
    out.push_str(doc);
    let _ = writeln!(
        out,
        "#[repr(C)]\n#[derive(Clone, Copy)]\npub {keyword} {rust} {{"
    );
    for (name, t) in fields(cx, &agg.members) {
        let _ = writeln!(out, "    pub {name}: {t},");
    }
    let _ = writeln!(out, "}}");
    // As ash's structures: all zero, with the fixed sType, so code written with
    // `..Default::default()` builds whether a structure is ash's or vkgen's.
    let s_type = agg
        .members
        .iter()
        .find(|m| m.name == "sType")
        .and_then(|m| m.values.as_deref())
        .and_then(|v| crate::device::layout::enum_named(reg, "VkStructureType", v));
    let set = s_type
        .map(|v| format!("        s.s_type = crate::vk::StructureType::from_raw({v});\n"))
        .unwrap_or_default();
    let binding = if set.is_empty() { "s" } else { "mut s" };
    let _ = write!(
        out,
        "impl Default for {rust} {{\n    fn default() -> Self {{\n        \
         // SAFETY: all-zero is a valid value of every Vulkan structure member (null\n        \
         // pointers, `None` function pointers, zero numbers, enums and flags).\n        \
         let {binding}: Self = unsafe {{ core::mem::zeroed() }};\n{set}        s\n    }}\n}}\n"
    );
}

fn emit_funcpointer(
    cx: &Ctx,
    ret: &CType,
    params: &[Field],
    rust: &str,
    doc: &str,
    out: &mut String,
) {
    let ret = text::ret_str(cx, ret)
        .map(|r| format!(" -> {r}"))
        .unwrap_or_default();
    let ps: Vec<String> = params
        .iter()
        .map(|p| {
            format!(
                "{}: {}",
                super::param_name(&p.name),
                text::type_str(cx, &p.ty, Place::Signature)
            )
        })
        .collect();
    out.push_str(doc);
    let _ = writeln!(
        out,
        "pub type {rust} = Option<unsafe extern \"system\" fn({}){ret}>;",
        ps.join(", ")
    );
}

/// Struct fields as (name, type); runs of C bitfields share one storage word, named after the
/// members it holds.
fn fields(cx: &Ctx, members: &[Field]) -> Vec<(String, String)> {
    let mut out = Vec::new();
    let mut i = 0;
    while i < members.len() {
        let m = &members[i];
        if m.ty.bitfield.is_some() {
            let storage = text::base_str(cx, &m.ty.base, Place::Field);
            let mut bits = 0u32;
            let mut parts = Vec::new();
            let unit = m.ty.bitfield_unit_bits();
            while i < members.len() {
                let Some(b) = members[i].ty.bitfield else {
                    break;
                };
                // The parser refuses widths outside 1..=unit; the `parts` test keeps the loop
                // advancing whatever it is given (a too-wide first member used to loop forever).
                if bits + b as u32 > unit && !parts.is_empty() {
                    break;
                }
                bits += b as u32;
                parts.push(
                    names::field_name(&members[i].name)
                        .trim_start_matches("r#")
                        .to_owned(),
                );
                i += 1;
            }
            out.push((parts.join("_and_"), storage));
            continue;
        }
        out.push((
            ident(&names::field_name(&m.name)).to_string(),
            text::type_str(cx, &m.ty, Place::Field),
        ));
        i += 1;
    }
    out
}
