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
    fill_all(formatted, &[(marker, items)])
}

/// [`fill`] for each `(marker, items)` of `fills`, as if one after another in that order (a
/// marker in an earlier marker's items is filled too), in one pass: `dispatch.rs` fills 18
/// markers, and filling them one by one rebuilt the whole file 18 times (half of that emitter).
/// Markers start with no whitespace, so an items line holds one exactly when its indented form
/// does.
pub fn fill_all(formatted: &str, fills: &[(&str, &str)]) -> String {
    debug_assert!(fills
        .iter()
        .all(|(m, _)| !m.is_empty() && !m.starts_with(' ')));
    let common = fills
        .iter()
        .fold(fills.first().map_or("", |f| f.0), |p, (m, _)| {
            let n = p.bytes().zip(m.bytes()).take_while(|(a, b)| a == b).count();
            &p[..n]
        });
    let items: usize = fills.iter().map(|(_, items)| items.len()).sum();
    let mut out = String::with_capacity(formatted.len() + items);
    for line in formatted.split_inclusive('\n') {
        expand(line, "", fills, common, &mut out);
    }
    out
}

/// `indent` + `line` into `out`, or, where `line` holds one of `fills`' markers, the first's
/// items indented like it, each expanded against the markers after that one. `common` is a
/// prefix every marker starts with (a line without it holds none).
fn expand(line: &str, indent: &str, fills: &[(&str, &str)], common: &str, out: &mut String) {
    let marked = if line.contains(common) {
        fills.iter().position(|(m, _)| line.contains(m))
    } else {
        None
    };
    let Some(k) = marked else {
        out.push_str(indent);
        out.push_str(line);
        return;
    };
    let own = &line[..line.len() - line.trim_start_matches(' ').len()];
    let indent = format!("{indent}{own}");
    for item_line in fills[k].1.split_inclusive('\n') {
        if item_line.trim().is_empty() {
            out.push_str(item_line);
        } else {
            expand(item_line, &indent, &fills[k + 1..], common, out);
        }
    }
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

#[cfg(test)]
mod tests {
    use super::fill_all;

    /// One marker filled the way `fill` did before `fill_all`: a pass over the whole text.
    fn fill_one(formatted: &str, marker: &str, items: &str) -> String {
        let mut out = String::new();
        for line in formatted.split_inclusive('\n') {
            if line.contains(marker) {
                let indent: String = line.chars().take_while(|c| *c == ' ').collect();
                for item_line in items.split_inclusive('\n') {
                    if !item_line.trim().is_empty() {
                        out.push_str(&indent);
                    }
                    out.push_str(item_line);
                }
            } else {
                out.push_str(line);
            }
        }
        out
    }

    #[test]
    fn one_pass_equals_filling_one_marker_after_another() {
        let text = "mod a {\n    __m_one!();\n}\n  __m_two!();\n__m_one!(); __m_three!()\nplain\n";
        let fills = [
            // Items holding later markers (filled too) and an earlier one (left alone).
            ("__m_one!", "x\n\n  __m_two!();\n  __m_one!();\ny"),
            ("__m_two!", "inner {\n    __m_three!();\n}\n"),
            ("__m_three!", "leaf\n"),
            ("@other", "unused\n"),
        ];
        for n in 0..=fills.len() {
            let sequential = fills[..n]
                .iter()
                .fold(text.to_owned(), |t, (m, i)| fill_one(&t, m, i));
            assert_eq!(fill_all(text, &fills[..n]), sequential, "{n} markers");
        }
    }
}
