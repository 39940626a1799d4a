//! Lengths from the syntax tree (`syn`), not from scanning lines: a string literal holding `}`
//! or `fn` is one token, a `#[cfg(test)]` module anywhere in a file is test code (measured under
//! the looser test ceiling, not dropped), and a `macro_rules!` definition is measured like a
//! function (a long macro is a long function written another way). Code inside a macro call
//! (`quote! { fn … }`) is not a function of this crate and counts only toward the function
//! that holds the call.

use proc_macro2::Span;
use syn::spanned::Spanned;
use syn::visit::{self, Visit};

/// One measured function or macro definition.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Measured {
    /// `name`, `Type::name` for a method, `macro_rules! name` for a macro.
    pub name: String,
    /// 1-based line of `fn` (or `macro_rules`).
    pub line: usize,
    /// Lines from `fn` to the body's closing brace, both included.
    pub len: usize,
    /// Test code: under `#[cfg(test)]`, a `#[test]`, or in a test file.
    pub test: bool,
}

/// Whether `attrs` hold `#[cfg(test)]` or `#[cfg(all(test, …))]` (not `cfg(not(test))`).
pub fn is_cfg_test(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        if !a.path().is_ident("cfg") {
            return false;
        }
        let Ok(list) = a.meta.require_list() else {
            return false;
        };
        let t: String = list
            .tokens
            .to_string()
            .chars()
            .filter(|c| !c.is_whitespace())
            .collect();
        t == "test" || t.starts_with("all(test,") || t.contains(",test,") || t.ends_with(",test)")
    })
}

fn is_test_fn(attrs: &[syn::Attribute]) -> bool {
    is_cfg_test(attrs)
        || attrs.iter().any(|a| {
            let p = a.path();
            p.is_ident("test") || p.segments.last().is_some_and(|s| s.ident == "test")
        })
}

fn lines(from: Span, to: Span) -> (usize, usize) {
    let start = from.start().line;
    (start, to.end().line + 1 - start)
}

struct Lengths {
    out: Vec<Measured>,
    /// Depth of test scopes around the visitor (a test file starts at 1).
    test: usize,
    /// The `impl` block's type, for method names.
    self_ty: Vec<String>,
    /// Lines inside `#[cfg(test)]` items at the outermost test scope.
    test_lines: usize,
}

impl Lengths {
    fn push(&mut self, name: String, from: Span, to: Span, test: bool) {
        let (line, len) = lines(from, to);
        let test = test || self.test > 0;
        self.out.push(Measured {
            name,
            line,
            len,
            test,
        });
    }

    fn method_name(&self, ident: &syn::Ident) -> String {
        match self.self_ty.last() {
            Some(t) => format!("{t}::{ident}"),
            None => ident.to_string(),
        }
    }

    /// Runs `f` inside a test scope when `attrs` say so, counting the item's lines once.
    fn scoped(&mut self, attrs: &[syn::Attribute], span: Span, f: impl FnOnce(&mut Self)) {
        let test = is_cfg_test(attrs);
        if test {
            if self.test == 0 {
                let (_, len) = lines(span, span);
                self.test_lines += len;
            }
            self.test += 1;
        }
        f(self);
        if test {
            self.test -= 1;
        }
    }
}

fn type_name(ty: &syn::Type) -> String {
    match ty {
        syn::Type::Path(p) => p
            .path
            .segments
            .last()
            .map_or_else(|| "?".into(), |s| s.ident.to_string()),
        syn::Type::Reference(r) => type_name(&r.elem),
        _ => "?".into(),
    }
}

/// The attributes of any item (the module graph skips `#[cfg(test)]` items with it too).
pub fn item_attrs(item: &syn::Item) -> &[syn::Attribute] {
    use syn::Item::*;
    match item {
        Const(i) => &i.attrs,
        Enum(i) => &i.attrs,
        ExternCrate(i) => &i.attrs,
        Fn(i) => &i.attrs,
        ForeignMod(i) => &i.attrs,
        Impl(i) => &i.attrs,
        Macro(i) => &i.attrs,
        Mod(i) => &i.attrs,
        Static(i) => &i.attrs,
        Struct(i) => &i.attrs,
        Trait(i) => &i.attrs,
        TraitAlias(i) => &i.attrs,
        Type(i) => &i.attrs,
        Union(i) => &i.attrs,
        Use(i) => &i.attrs,
        _ => &[],
    }
}

impl<'ast> Visit<'ast> for Lengths {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        let attrs = item_attrs(item);
        self.scoped(attrs, item.span(), |s| visit::visit_item(s, item));
    }

    fn visit_impl_item(&mut self, item: &'ast syn::ImplItem) {
        let attrs: &[syn::Attribute] = match item {
            syn::ImplItem::Fn(f) => &f.attrs,
            syn::ImplItem::Const(c) => &c.attrs,
            _ => &[],
        };
        self.scoped(attrs, item.span(), |s| visit::visit_impl_item(s, item));
    }

    fn visit_item_fn(&mut self, f: &'ast syn::ItemFn) {
        let name = f.sig.ident.to_string();
        let test = is_test_fn(&f.attrs);
        self.push(name, f.sig.fn_token.span, f.block.span(), test);
        visit::visit_item_fn(self, f);
    }

    fn visit_item_impl(&mut self, i: &'ast syn::ItemImpl) {
        self.self_ty.push(type_name(&i.self_ty));
        visit::visit_item_impl(self, i);
        self.self_ty.pop();
    }

    fn visit_item_trait(&mut self, t: &'ast syn::ItemTrait) {
        self.self_ty.push(t.ident.to_string());
        visit::visit_item_trait(self, t);
        self.self_ty.pop();
    }

    fn visit_impl_item_fn(&mut self, f: &'ast syn::ImplItemFn) {
        let name = self.method_name(&f.sig.ident);
        let test = is_test_fn(&f.attrs);
        self.push(name, f.sig.fn_token.span, f.block.span(), test);
        visit::visit_impl_item_fn(self, f);
    }

    fn visit_trait_item_fn(&mut self, f: &'ast syn::TraitItemFn) {
        if let Some(body) = &f.default {
            let name = self.method_name(&f.sig.ident);
            self.push(name, f.sig.fn_token.span, body.span(), false);
        }
        visit::visit_trait_item_fn(self, f);
    }

    fn visit_item_macro(&mut self, m: &'ast syn::ItemMacro) {
        if m.mac.path.is_ident("macro_rules") {
            let name = m
                .ident
                .as_ref()
                .map_or_else(|| "?".to_string(), |i| format!("macro_rules! {i}"));
            self.push(
                name,
                m.mac.path.span(),
                m.mac.delimiter.span().close(),
                false,
            );
        }
    }
}

/// What the syntax tree says about one file.
pub struct FileMeasure {
    pub functions: Vec<Measured>,
    /// Lines outside test code (the whole file for a test file: 0).
    pub code_lines: usize,
    /// Lines of test code.
    pub test_lines: usize,
}

/// Measures `text`; `test_file` marks a whole file as test code (an integration test, a bench).
pub fn measure(text: &str, test_file: bool) -> syn::Result<FileMeasure> {
    let file = syn::parse_file(text)?;
    let mut v = Lengths {
        out: Vec::new(),
        test: usize::from(test_file),
        self_ty: Vec::new(),
        test_lines: 0,
    };
    v.visit_file(&file);
    let total = text.lines().count();
    let (code_lines, test_lines) = if test_file {
        (0, total)
    } else {
        (total.saturating_sub(v.test_lines), v.test_lines)
    };
    Ok(FileMeasure {
        functions: v.out,
        code_lines,
        test_lines,
    })
}
