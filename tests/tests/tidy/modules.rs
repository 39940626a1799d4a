//! A crate's module graph at file level, from the syntax tree: one node per source file (found by
//! following `mod x;` from the crate root, `#[path]` included), one arrow for every path a file
//! names that lands in another file's module — `use` trees with their nested groups, globs and
//! renames, paths in expressions, types, patterns and bounds, and `crate::`/`super::`/`self::`
//! paths inside macro calls (`format!`, `matches!`, …; not `quote!`, whose `crate::` is the
//! generated crate's). A path resolves through `crate`, `self`, `super` and child modules to the
//! longest known module prefix; the file that module lives in is the arrow's head. `#[cfg(test)]`
//! items are left out: test code may reach anywhere.

use std::collections::{BTreeMap, BTreeSet};
use std::fs;
use std::path::{Path, PathBuf};

use proc_macro2::{TokenStream, TokenTree};
use syn::visit::{self, Visit};

use super::hooks::called_table;
use super::syntax::{is_cfg_test, item_attrs};

/// Paths a macro call names that its tokens do not show: `loader_hooks!(<table>, …)` names the
/// functions of its generated table (`tidy/hooks.rs`), table name → paths.
pub type MacroPaths = BTreeMap<String, Vec<Vec<String>>>;

/// Files by their module path (`crate`, `crate::a::b`), and the arrows between them.
#[derive(Debug, Default)]
pub struct Graph {
    /// Module path of each file's own module → the file.
    pub files: BTreeMap<String, PathBuf>,
    /// Every module (inline ones too) → the module path of the file that holds it.
    owner: BTreeMap<String, String>,
    /// File module → file modules it names.
    pub edges: BTreeMap<String, BTreeSet<String>>,
    /// Files that did not parse or could not be read, with why.
    pub errors: Vec<String>,
}

/// The file `mod name;` in `parent_file` (inside its inline modules `inline`) names, `#[path]`
/// honoured: children of `mod.rs`, `lib.rs` and `main.rs` sit beside them, those of `a.rs` in `a/`.
fn child_file(
    parent_file: &Path,
    inline: &[String],
    name: &str,
    attrs: &[syn::Attribute],
) -> PathBuf {
    let dir = parent_file.parent().unwrap_or(Path::new(""));
    let stem = parent_file
        .file_stem()
        .and_then(|s| s.to_str())
        .unwrap_or("");
    let dir_owner = matches!(stem, "mod" | "lib" | "main");
    let mut base = if dir_owner {
        dir.to_path_buf()
    } else {
        dir.join(stem)
    };
    for m in inline {
        base.push(m);
    }
    for a in attrs {
        if a.path().is_ident("path") {
            if let syn::Meta::NameValue(nv) = &a.meta {
                if let syn::Expr::Lit(syn::ExprLit {
                    lit: syn::Lit::Str(s),
                    ..
                }) = &nv.value
                {
                    // Outside inline modules `#[path]` is relative to the declaring file's
                    // directory; inside them, to the inline module's directory.
                    let from = if inline.is_empty() {
                        dir.to_path_buf()
                    } else {
                        base
                    };
                    return from.join(s.value());
                }
            }
        }
    }
    let flat = base.join(format!("{name}.rs"));
    if flat.exists() {
        flat
    } else {
        base.join(name).join("mod.rs")
    }
}

/// Collects the modules a file declares (inline ones and `mod x;` files to parse next).
struct Declarations<'a> {
    file: &'a Path,
    module: Vec<String>,
    inline: Vec<String>,
    owner: &'a mut BTreeMap<String, String>,
    file_module: String,
    next: Vec<(Vec<String>, PathBuf)>,
}

impl<'ast> Visit<'ast> for Declarations<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_cfg_test(item_attrs(item)) {
            return;
        }
        visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        let name = m.ident.to_string();
        let mut path = self.module.clone();
        path.push(name.clone());
        match &m.content {
            Some((_, items)) => {
                self.owner.insert(path.join("::"), self.file_module.clone());
                self.module.push(name.clone());
                self.inline.push(name);
                for i in items {
                    self.visit_item(i);
                }
                self.inline.pop();
                self.module.pop();
            }
            None => {
                let f = child_file(self.file, &self.inline, &name, &m.attrs);
                self.next.push((path, f));
            }
        }
    }
}

/// Gathers the module paths a file names, each as written plus the module it was written in.
struct Names<'m> {
    hooks: &'m MacroPaths,
    module: Vec<String>,
    found: Vec<(Vec<String>, Vec<String>)>,
}

impl Names<'_> {
    fn add(&mut self, segments: Vec<String>) {
        if !segments.is_empty() {
            self.found.push((self.module.clone(), segments));
        }
    }

    fn use_tree(&mut self, prefix: &mut Vec<String>, tree: &syn::UseTree) {
        match tree {
            syn::UseTree::Path(p) => {
                prefix.push(p.ident.to_string());
                self.use_tree(prefix, &p.tree);
                prefix.pop();
            }
            syn::UseTree::Name(n) => {
                let mut s = prefix.clone();
                if n.ident != "self" {
                    s.push(n.ident.to_string());
                }
                self.add(s);
            }
            syn::UseTree::Rename(r) => {
                let mut s = prefix.clone();
                if r.ident != "self" {
                    s.push(r.ident.to_string());
                }
                self.add(s);
            }
            syn::UseTree::Glob(_) => self.add(prefix.clone()),
            syn::UseTree::Group(g) => {
                for t in &g.items {
                    self.use_tree(prefix, t);
                }
            }
        }
    }

    /// `crate::a::b`, `super::x`, `self::y` sequences in a macro's tokens.
    fn tokens(&mut self, tokens: TokenStream) {
        let toks: Vec<TokenTree> = tokens.into_iter().collect();
        let mut i = 0;
        while i < toks.len() {
            match &toks[i] {
                TokenTree::Group(g) => self.tokens(g.stream()),
                TokenTree::Ident(id)
                    if ["crate", "super", "self"].contains(&id.to_string().as_str()) =>
                {
                    let dollar =
                        i > 0 && matches!(&toks[i - 1], TokenTree::Punct(p) if p.as_char() == '$');
                    let mut segs = vec![id.to_string()];
                    let mut j = i + 1;
                    while j + 2 < toks.len() {
                        let colons = matches!(&toks[j], TokenTree::Punct(p) if p.as_char() == ':')
                            && matches!(&toks[j + 1], TokenTree::Punct(p) if p.as_char() == ':');
                        match (&toks[j + 2], colons) {
                            (TokenTree::Ident(next), true) => {
                                segs.push(next.to_string());
                                j += 3;
                            }
                            _ => break,
                        }
                    }
                    if !dollar && segs.len() > 1 {
                        self.add(segs);
                    }
                    i = j;
                    continue;
                }
                _ => {}
            }
            i += 1;
        }
    }
}

impl<'ast> Visit<'ast> for Names<'_> {
    fn visit_item(&mut self, item: &'ast syn::Item) {
        if is_cfg_test(item_attrs(item)) {
            return;
        }
        visit::visit_item(self, item);
    }

    fn visit_item_mod(&mut self, m: &'ast syn::ItemMod) {
        if let Some((_, items)) = &m.content {
            self.module.push(m.ident.to_string());
            for i in items {
                self.visit_item(i);
            }
            self.module.pop();
        }
    }

    fn visit_item_use(&mut self, u: &'ast syn::ItemUse) {
        if u.leading_colon.is_none() {
            self.use_tree(&mut Vec::new(), &u.tree);
        }
    }

    // `pub(crate)`, `pub(super)`, `pub(in a::b)` say who may see an item, not what it uses.
    fn visit_vis_restricted(&mut self, _: &'ast syn::VisRestricted) {}

    fn visit_path(&mut self, p: &'ast syn::Path) {
        // A lone segment outside `use` is a value, type or macro in scope (a local `submit` in a
        // file with a `submit` child module, say), never a module: a module is only ever named
        // on the way to an item, `submit::x`.
        if p.leading_colon.is_none() && p.segments.len() > 1 {
            self.add(p.segments.iter().map(|s| s.ident.to_string()).collect());
        }
        visit::visit_path(self, p);
    }

    fn visit_macro(&mut self, m: &'ast syn::Macro) {
        let name = m.path.segments.last().map(|s| s.ident.to_string());
        let generated = matches!(
            name.as_deref(),
            Some("quote" | "quote_spanned" | "parse_quote" | "macro_rules")
        );
        if name.as_deref() == Some("loader_hooks") {
            let rows = called_table(m.tokens.clone()).and_then(|t| self.hooks.get(&t));
            for path in rows.into_iter().flatten() {
                self.add(path.clone());
            }
        } else if !generated {
            self.tokens(m.tokens.clone());
        }
        visit::visit_macro(self, m);
    }
}

impl Graph {
    /// The graph of the crate whose root file is `root` (absolute; names are relative to `base`),
    /// with the paths `hooks` says `loader_hooks!` calls name.
    pub fn of_crate(root: &Path, base: &Path, hooks: &MacroPaths) -> Graph {
        let mut g = Graph::default();
        let mut parsed = Vec::new();
        let mut queue = vec![(vec!["crate".to_string()], root.to_path_buf())];
        while let Some((module, file)) = queue.pop() {
            let key = module.join("::");
            let rel = file.strip_prefix(base).unwrap_or(&file).to_path_buf();
            let text = match fs::read_to_string(&file) {
                Ok(t) => t,
                Err(e) => {
                    g.errors.push(format!("{}: {e}", rel.display()));
                    continue;
                }
            };
            let ast = match syn::parse_file(&text) {
                Ok(a) => a,
                Err(e) => {
                    g.errors.push(format!("{}: {e}", rel.display()));
                    continue;
                }
            };
            g.files.insert(key.clone(), rel);
            g.owner.insert(key.clone(), key.clone());
            let mut d = Declarations {
                file: &file,
                module: module.clone(),
                inline: Vec::new(),
                owner: &mut g.owner,
                file_module: key.clone(),
                next: Vec::new(),
            };
            d.visit_file(&ast);
            queue.extend(d.next);
            parsed.push((key, module, ast));
        }
        for (key, module, ast) in parsed {
            let mut n = Names {
                hooks,
                module,
                found: Vec::new(),
            };
            n.visit_file(&ast);
            let edges = g.edges.entry(key.clone()).or_default();
            for (at, segs) in n.found {
                if let Some(to) = resolve(&g.owner, &at, &segs) {
                    if to != key {
                        edges.insert(to);
                    }
                }
            }
        }
        g
    }
}

/// The file module a path written in module `at` lands in, if it names this crate's modules.
fn resolve(owner: &BTreeMap<String, String>, at: &[String], segs: &[String]) -> Option<String> {
    let mut abs: Vec<String> = match segs[0].as_str() {
        "crate" => vec!["crate".into()],
        "self" => at.to_vec(),
        "super" => {
            let mut m = at.to_vec();
            let mut i = 0;
            while segs.get(i).is_some_and(|s| s == "super") {
                m.pop();
                i += 1;
            }
            if m.is_empty() {
                return None;
            }
            m.extend(segs[i..].iter().cloned());
            return longest(owner, &m);
        }
        first => {
            // A bare first segment is a child module of `at` (2018 paths) or not ours.
            let mut m = at.to_vec();
            m.push(first.to_string());
            if !owner.contains_key(&m.join("::")) {
                return None;
            }
            m.pop();
            m
        }
    };
    let skip = usize::from(matches!(segs[0].as_str(), "crate" | "self"));
    abs.extend(segs[skip..].iter().cloned());
    longest(owner, &abs)
}

fn longest(owner: &BTreeMap<String, String>, abs: &[String]) -> Option<String> {
    (1..=abs.len())
        .rev()
        .find_map(|n| owner.get(&abs[..n].join("::")).cloned())
}

/// Strongly connected components of more than one file (each one is a cycle, or several).
pub fn cycles(edges: &BTreeMap<String, BTreeSet<String>>) -> Vec<Vec<String>> {
    // Tarjan's algorithm, iterative in spirit but recursive here: module graphs are shallow.
    struct T<'a> {
        g: &'a BTreeMap<String, BTreeSet<String>>,
        index: BTreeMap<&'a str, usize>,
        low: BTreeMap<&'a str, usize>,
        stack: Vec<&'a str>,
        on: BTreeSet<&'a str>,
        next: usize,
        out: Vec<Vec<String>>,
    }
    fn strong<'a>(t: &mut T<'a>, v: &'a str) {
        t.index.insert(v, t.next);
        t.low.insert(v, t.next);
        t.next += 1;
        t.stack.push(v);
        t.on.insert(v);
        let g = t.g;
        for w in g.get(v).into_iter().flatten() {
            let w = w.as_str();
            if !t.index.contains_key(w) {
                strong(t, w);
                let lw = t.low[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(lw));
            } else if t.on.contains(w) {
                let iw = t.index[w];
                let lv = t.low[v];
                t.low.insert(v, lv.min(iw));
            }
        }
        if t.low[v] == t.index[v] {
            let mut comp = Vec::new();
            while let Some(w) = t.stack.pop() {
                t.on.remove(w);
                comp.push(w.to_string());
                if w == v {
                    break;
                }
            }
            if comp.len() > 1 {
                comp.sort();
                t.out.push(comp);
            }
        }
    }
    let mut t = T {
        g: edges,
        index: BTreeMap::new(),
        low: BTreeMap::new(),
        stack: Vec::new(),
        on: BTreeSet::new(),
        next: 0,
        out: Vec::new(),
    };
    for v in edges.keys() {
        if !t.index.contains_key(v.as_str()) {
            strong(&mut t, v);
        }
    }
    t.out.sort();
    t.out
}

/// One cycle through `comp`'s first file, for the message (`a → b → a`).
pub fn example_cycle(edges: &BTreeMap<String, BTreeSet<String>>, comp: &[String]) -> Vec<String> {
    let inside: BTreeSet<&str> = comp.iter().map(String::as_str).collect();
    let start = comp[0].as_str();
    // Breadth-first from the start back to it, inside the component.
    let mut prev: BTreeMap<&str, &str> = BTreeMap::new();
    let mut queue = std::collections::VecDeque::from([start]);
    while let Some(v) = queue.pop_front() {
        for w in edges.get(v).into_iter().flatten() {
            let w = w.as_str();
            if w == start {
                // Walk back to the start (which has no `prev`), then read it forwards.
                let mut back = vec![v];
                while let Some(&p) = prev.get(back[back.len() - 1]) {
                    back.push(p);
                }
                let mut path: Vec<String> = back.iter().rev().map(|s| s.to_string()).collect();
                path.push(start.to_string());
                return path;
            }
            if inside.contains(w) && !prev.contains_key(w) && w != start {
                prev.insert(w, v);
                queue.push_back(w);
            }
        }
    }
    comp.to_vec()
}
