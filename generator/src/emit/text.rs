//! Text emission for the per-command items, which make up most of the generated code. Building
//! them as token streams and running syn + prettyplease over 2 MB was most of vkgen's run time, so
//! repetitive items are written as formatted text directly, and the hand-shaped surroundings still
//! go through quote + prettyplease with a placeholder line where the items belong.

use super::{Ctx, Place};
use crate::model::CType;

/// The Rust spelling of a C base type, from inside the generated crate.
pub fn base_str(cx: &Ctx, base: &str, place: Place) -> String {
    if let Some(prim) = crate::select::primitive_rust(base) {
        return prim.to_owned();
    }
    let external = matches!(
        cx.reg().types.get(base).map(|t| &t.kind),
        Some(crate::model::TypeKind::External)
    );
    if external {
        if cx.ash.has(base) {
            return format!("crate::vk::{base}");
        }
        if cx.ash.has(&format!("native::{base}")) {
            return format!("crate::vk::native::{base}");
        }
        return "core::ffi::c_void".to_owned();
    }
    // Registry names are not trusted to be identifiers (see `emit::ident`).
    let name = super::ident(&crate::names::type_name(base)).to_string();
    if cx.has_lifetime(base) {
        match place {
            Place::Field => format!("crate::vk::{name}<'static>"),
            Place::Signature => format!("crate::vk::{name}<'_>"),
        }
    } else {
        format!("crate::vk::{name}")
    }
}

/// A full C type: pointers and arrays.
pub fn type_str(cx: &Ctx, ty: &CType, place: Place) -> String {
    let mut t = base_str(cx, &ty.base, place);
    for (i, _) in ty.pointers.iter().enumerate() {
        let pointee_const = if i == 0 {
            ty.base_const
        } else {
            ty.pointers[i - 1]
        };
        t = if pointee_const {
            format!("*const {t}")
        } else {
            format!("*mut {t}")
        };
    }
    for len in ty.array.iter().rev() {
        t = format!("[{t}; {}]", cx.array_len(len));
    }
    t
}

/// A parameter's type: C array parameters decay to pointers.
pub fn param_type_str(cx: &Ctx, ty: &CType) -> String {
    if ty.array.is_empty() {
        return type_str(cx, ty, Place::Signature);
    }
    let mut decayed = ty.clone();
    decayed.array.clear();
    decayed.pointers.insert(0, false);
    type_str(cx, &decayed, Place::Signature)
}

/// `None` for void.
pub fn ret_str(cx: &Ctx, ret: &CType) -> Option<String> {
    if ret.is_void() || ret.base.is_empty() {
        None
    } else {
        Some(type_str(cx, ret, Place::Signature))
    }
}

/// The value a command returns when it cannot do its job: the error for `VkResult`, null for
/// pointers and function pointers, zero/false for the rest, nothing for void.
pub fn failure_str(ret: &CType) -> &'static str {
    if ret.is_void() || ret.base.is_empty() {
        "()"
    } else if ret.base == "VkResult" && !ret.is_pointer() {
        "crate::vk::Result::ERROR_FEATURE_NOT_PRESENT"
    } else if ret.is_pointer() {
        "core::ptr::null_mut()"
    } else if ret.base == "PFN_vkVoidFunction" {
        "None"
    } else {
        // The remaining returns are integers (`uint32_t`, `uint64_t`, `VkBool32`, `VkDeviceSize`,
        // `VkDeviceAddress`): zero.
        "Default::default()"
    }
}

/// A function's signature, written like prettyplease would: on one line when it fits in 100
/// columns, otherwise one parameter per line.
pub struct Sig<'a> {
    /// Everything before the name: `pub unsafe extern "system" fn`.
    pub head: &'a str,
    pub name: &'a str,
    /// `<D: Driver>` or empty.
    pub generics: &'a str,
    pub params: &'a [(String, String)],
    pub ret: Option<&'a str>,
}

impl Sig<'_> {
    /// Writes `sig {` (the caller writes the body and the closing brace).
    pub fn write_open(&self, out: &mut String, indent: &str) {
        let ret = self.ret.map(|r| format!(" -> {r}")).unwrap_or_default();
        let one_line = format!(
            "{indent}{} {}{}({}){ret} {{",
            self.head,
            self.name,
            self.generics,
            self.params
                .iter()
                .map(|(n, t)| format!("{n}: {t}"))
                .collect::<Vec<_>>()
                .join(", ")
        );
        if one_line.len() <= 100 {
            out.push_str(&one_line);
            out.push('\n');
            return;
        }
        out.push_str(&format!(
            "{indent}{} {}{}(\n",
            self.head, self.name, self.generics
        ));
        for (n, t) in self.params {
            out.push_str(&format!("{indent}    {n}: {t},\n"));
        }
        out.push_str(&format!("{indent}){ret} {{\n"));
    }
}

/// Replaces the line holding `marker` (a placeholder item prettyplease printed) by `items`,
/// indented like that line.
pub fn fill(formatted: &str, marker: &str, items: &str) -> String {
    let mut out = String::with_capacity(formatted.len() + items.len());
    for line in formatted.split_inclusive('\n') {
        if line.contains(marker) {
            let indent: String = line.chars().take_while(|c| *c == ' ').collect();
            for item_line in items.split_inclusive('\n') {
                if item_line.trim().is_empty() {
                    out.push_str(item_line);
                } else {
                    out.push_str(&indent);
                    out.push_str(item_line);
                }
            }
        } else {
            out.push_str(line);
        }
    }
    out
}

/// `/// [`vkX`](link)` doc line.
pub fn doc_link(cx: &Ctx, name: &str) -> String {
    format!(
        "/// [`{name}`]({})\n",
        cx.spec_link(name).trim_matches(['<', '>'])
    )
}

/// `(name, type)` pairs of a command's parameters.
pub fn params(cx: &Ctx, cmd: &crate::model::Command) -> Vec<(String, String)> {
    cmd.params
        .iter()
        .map(|p| (super::param_name(&p.name), param_type_str(cx, &p.ty)))
        .collect()
}
