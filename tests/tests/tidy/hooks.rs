//! The loader's name→function tables are generated (issue 34 item 4): `generated/src/hooks.rs`
//! holds the rows (`LOADER_HOOKS`) and the `loader_hooks!` macro the loader calls. Two things
//! follow for tidy: a `loader_hooks!(<table>, …)` call names every function of its table (arrows
//! of the module graph, which the call's own tokens do not show), and a hand-written
//! `b"vkX" =>` arm in the loader is a table kept by hand again.

use std::collections::BTreeMap;

use syn::visit::{self, Visit};

/// Table name → the function paths of its rows (`crate::a::f` as segments), from the text of
/// `generated/src/hooks.rs`: the `LoaderHook { table: "…", function: "…", … }` rows.
pub fn table_paths(text: &str) -> Result<BTreeMap<String, Vec<Vec<String>>>, String> {
    let file = syn::parse_file(text).map_err(|e| format!("hooks.rs: {e}"))?;
    let mut rows = Rows::default();
    rows.visit_file(&file);
    if rows.tables.is_empty() {
        return Err("hooks.rs: no `LoaderHook { table, function, … }` rows".into());
    }
    Ok(rows.tables)
}

#[derive(Default)]
struct Rows {
    tables: BTreeMap<String, Vec<Vec<String>>>,
}

fn str_field(s: &syn::ExprStruct, name: &str) -> Option<String> {
    s.fields.iter().find_map(|f| match (&f.member, &f.expr) {
        (
            syn::Member::Named(m),
            syn::Expr::Lit(syn::ExprLit {
                lit: syn::Lit::Str(v),
                ..
            }),
        ) if m == name => Some(v.value()),
        _ => None,
    })
}

impl<'ast> Visit<'ast> for Rows {
    fn visit_expr_struct(&mut self, s: &'ast syn::ExprStruct) {
        if s.path.is_ident("LoaderHook") {
            if let (Some(table), Some(function)) = (str_field(s, "table"), str_field(s, "function"))
            {
                let path = function.split("::").map(str::to_owned).collect();
                self.tables.entry(table).or_default().push(path);
            }
        }
        visit::visit_expr_struct(self, s);
    }
}

/// The table a `loader_hooks!` call's tokens ask (`terminator_instance, name` or
/// `names terminator_instance`).
pub fn called_table(tokens: proc_macro2::TokenStream) -> Option<String> {
    tokens.into_iter().find_map(|t| match t {
        proc_macro2::TokenTree::Ident(i) if i != "names" => Some(i.to_string()),
        _ => None,
    })
}

/// `line: pattern` of every match arm in `text` whose pattern is (or alternates) a byte string
/// starting with `vk`: a command name matched by hand.
pub fn hand_written_arms(text: &str) -> Result<Vec<String>, String> {
    let file = syn::parse_file(text).map_err(|e| e.to_string())?;
    let mut arms = Arms::default();
    arms.visit_file(&file);
    Ok(arms.found)
}

#[derive(Default)]
struct Arms {
    found: Vec<String>,
}

fn names_a_command(p: &syn::Pat) -> Option<String> {
    match p {
        syn::Pat::Lit(syn::ExprLit {
            lit: syn::Lit::ByteStr(b),
            ..
        }) if b.value().starts_with(b"vk") => Some(String::from_utf8_lossy(&b.value()).into()),
        syn::Pat::Or(o) => o.cases.iter().find_map(names_a_command),
        syn::Pat::Paren(p) => names_a_command(&p.pat),
        _ => None,
    }
}

impl<'ast> Visit<'ast> for Arms {
    fn visit_arm(&mut self, a: &'ast syn::Arm) {
        if let Some(name) = names_a_command(&a.pat) {
            let line = syn::spanned::Spanned::span(&a.pat).start().line;
            self.found.push(format!("{line}: b\"{name}\""));
        }
        visit::visit_arm(self, a);
    }
}
