//! The document walk: `<registry>`'s children in order, and the declarations (types, their
//! members, commands) each read into the model. Enumerants and the `<require>` blocks of features
//! and extensions are in `interface.rs`; this file keeps the element cursor (`Cx`) they share.

use std::path::Path;

use roxmltree::{Document, Node};

use super::compare::same;
use super::text::{clip, normalize_newlines, sha256_hex, LineIndex, MAX_ATTRIBUTES};
use super::values::array_len;
use super::{cdecl, pieces, sections};
use crate::error::{Error, Result};
use crate::model::*;
use crate::names;
use crate::par::joined;

/// Parses registry text without overlay or validation. A second definition of a type, command,
/// API constant, `<enums>` block, enumerant, feature or extension is an error naming both places,
/// unless it is identical to the first (vk.xml repeats some definitions verbatim).
pub fn parse_str(text: &str, path: &Path, warnings: &mut Vec<String>) -> Result<Registry> {
    parse_in(text, path, warnings, pieces_for(text.len()))
}

/// How many pieces (`pieces.rs`) a text of `len` bytes is cut into: one per core, up to 16;
/// a text under 256 KiB (the overlay, the tests' registries) is parsed whole.
fn pieces_for(len: usize) -> usize {
    if len < 256 * 1024 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |n| n.get().min(16))
}

/// [`parse_str`], the document cut into about `pieces` pieces where it can be.
pub(super) fn parse_in(
    text: &str,
    path: &Path,
    warnings: &mut Vec<String>,
    pieces: usize,
) -> Result<Registry> {
    // The digest needs only the bytes and nothing needs it before the model is built, so it is
    // made on a thread of its own for the whole parse (on a CPU without SHA instructions it
    // takes as long as the markup scan).
    std::thread::scope(|s| {
        let sha = s.spawn(|| sha256_hex(text.as_bytes()));
        let mut reg = parse_text(text, path, warnings, pieces)?;
        reg.source_sha256 = joined(sha);
        Ok(reg)
    })
}

/// [`parse_in`] but for the digest: the model's `source_sha256` is left empty.
fn parse_text(
    text: &str,
    path: &Path,
    warnings: &mut Vec<String>,
    pieces: usize,
) -> Result<Registry> {
    let start = std::time::Instant::now();
    let normalized = normalize_newlines(text);
    let normalized: &str = &normalized;
    // The position index needs only the text, so it is made on another thread while this one
    // scans the markup.
    let (index, (bomb, plan)) = std::thread::scope(|s| {
        let index = s.spawn(|| LineIndex::new(normalized));
        let scan = pieces::scan(normalized.as_bytes(), pieces);
        (joined(index), scan)
    });
    // Stages of the pieces' parse only (the overlay's and the tests' small texts are whole).
    let stage = |what, start| {
        if pieces > 1 {
            crate::timings::stage(what, start);
        }
    };
    stage("markup scan (index beside it)", start);
    if let Some(at) = bomb {
        let (line, col) = index.line_col(at);
        return Err(Error::Xml {
            path: path.to_owned(),
            line,
            col,
            message: format!("element with more than {MAX_ATTRIBUTES} attributes"),
        });
    }
    let start = std::time::Instant::now();
    let parts = plan.map(|plan| plan.pieces(normalized)).unwrap_or_default();
    stage("piece texts", start);
    let start = std::time::Instant::now();
    let docs = parse_pieces(&parts, path, &index);
    stage("pieces parsed (in parallel)", start);
    if let Some(docs) = docs {
        let (docs, aheads): (Vec<_>, Vec<_>) = docs.into_iter().unzip();
        let trees = docs
            .iter()
            .zip(aheads)
            .zip(&parts)
            .map(|((doc, ahead), part)| Tree {
                cx: Cx {
                    path,
                    index: &index,
                    piece: Some(part),
                },
                root: doc.root_element(),
                ahead,
            });
        let start = std::time::Instant::now();
        let built = build(trees.collect(), warnings);
        stage("fold", start);
        return built;
    }
    let doc = Document::parse_with_options(
        normalized,
        roxmltree::ParsingOptions {
            allow_dtd: true,
            ..Default::default()
        },
    )
    .map_err(|e| {
        let pos = e.pos();
        Error::Xml {
            path: path.to_owned(),
            line: pos.row,
            col: pos.col,
            message: e.to_string(),
        }
    })?;
    let root = doc.root_element();
    let cx = Cx {
        path,
        index: &index,
        piece: None,
    };
    if root.tag_name().name() != "registry" {
        return Err(cx.schema(
            root,
            format!(
                "root element is <{}>, expected <registry>",
                root.tag_name().name()
            ),
        ));
    }
    let ahead = parse_ahead(&cx, root, true);
    build(vec![Tree { cx, root, ahead }], warnings)
}

/// One parsed document (the whole text, or one piece of it) with its sections parsed ahead.
struct Tree<'a, 'i> {
    cx: Cx<'a>,
    root: Node<'a, 'i>,
    ahead: Sections,
}

/// Each piece parsed (and its sections read into the model) on a thread of its own; `None`
/// when there are none, or when roxmltree refuses one or its root is not `<registry>` — the
/// whole document is parsed then, for that parse's error and position.
fn parse_pieces<'a>(
    parts: &'a [pieces::Piece],
    path: &'a Path,
    index: &'a LineIndex<'a>,
) -> Option<Vec<(Document<'a>, Sections)>> {
    let one = |part: &'a pieces::Piece| {
        let doc = Document::parse(&part.text).ok()?;
        let root = doc.root_element();
        if root.tag_name().name() != "registry" {
            return None;
        }
        let cx = Cx {
            path,
            index,
            piece: Some(part),
        };
        let ahead = parse_ahead(&cx, root, false);
        Some((doc, ahead))
    };
    let (first, rest) = parts.split_first()?;
    std::thread::scope(|s| {
        let threads: Vec<_> = rest.iter().map(|part| s.spawn(move || one(part))).collect();
        let first = one(first);
        let rest: Vec<_> = threads.into_iter().map(joined).collect();
        std::iter::once(first).chain(rest).collect()
    })
}

/// The model from the tree: sections in document order, each element checked against what came
/// before (a second, different definition is an error; an identical one is skipped).
fn build(trees: Vec<Tree>, warnings: &mut Vec<String>) -> Result<Registry> {
    let mut reg = Registry::default();
    // Extensions by name, so that a second definition is found without a quadratic scan.
    let mut extension_at = FirstAt::new();
    let mut feature_at = FirstAt::new();
    for Tree {
        cx,
        root,
        mut ahead,
    } in trees
    {
        let cx = &cx;
        fold(
            cx,
            root,
            &mut ahead,
            &mut reg,
            (&mut feature_at, &mut extension_at),
            warnings,
        )?;
    }
    Ok(reg)
}

/// Where each feature or extension was first defined, by name.
type FirstAt = std::collections::HashMap<String, (u32, u32)>;

/// One tree's sections folded into `reg`.
fn fold(
    cx: &Cx,
    root: Node,
    ahead: &mut Sections,
    reg: &mut Registry,
    (feature_at, extension_at): (&mut FirstAt, &mut FirstAt),
    warnings: &mut Vec<String>,
) -> Result<()> {
    let path = cx.path;
    for child in root.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "types" => {
                for t in type_elements(child) {
                    let ty = match ahead.types.next(warnings) {
                        Some(parsed) => parsed,
                        None => cx.parse_type(t, warnings),
                    }?;
                    if let Some(old) = reg.types.get(&ty.name) {
                        if !same(old, &ty, |t| (t.line, t.col) = (0, 0)) {
                            return Err(cx.redefined(t, "type", &ty.name, (old.line, old.col)));
                        }
                        continue;
                    }
                    if ty.name == "VK_HEADER_VERSION" {
                        reg.header_version = header_version(t)
                            .ok_or_else(|| cx.schema(t, "bad VK_HEADER_VERSION".into()))?;
                    }
                    reg.types.insert(ty.name.clone(), ty);
                }
            }
            "enums" => {
                let enums = match ahead.enums.next(warnings) {
                    Some(read) => read,
                    None => cx.read_enums(child, warnings),
                };
                cx.fold_enums(enums?, reg)?;
            }
            "commands" => {
                for c in command_elements(child) {
                    let cmd = match ahead.commands.next(warnings) {
                        Some(parsed) => parsed,
                        None => cx.parse_command(c),
                    }?;
                    if let Some(old) = reg.commands.get(&cmd.name) {
                        if !same(old, &cmd, |c| (c.line, c.col) = (0, 0)) {
                            return Err(cx.redefined(c, "command", &cmd.name, (old.line, old.col)));
                        }
                        continue;
                    }
                    reg.command_order.push(cmd.name.clone());
                    reg.commands.insert(cmd.name.clone(), cmd);
                }
            }
            "feature" => {
                let parsed = match ahead.features.next(warnings) {
                    Some(parsed) => parsed,
                    None => cx.parse_feature(child, warnings),
                };
                if let Some(f) = parsed? {
                    if let Some(&first) = feature_at.get(&f.name) {
                        return Err(cx.redefined(child, "feature", &f.name, first));
                    }
                    feature_at.insert(f.name.clone(), (f.line, f.col));
                    reg.features.push(f);
                }
            }
            "extensions" => {
                for e in extension_elements(child) {
                    let x = match ahead.extensions.next(warnings) {
                        Some(parsed) => parsed,
                        None => cx.parse_extension(e, warnings),
                    }?;
                    if let Some(&first) = extension_at.get(&x.name) {
                        return Err(cx.redefined(e, "extension", &x.name, first));
                    }
                    extension_at.insert(x.name.clone(), (x.line, x.col));
                    reg.extensions.push(x);
                }
            }
            "formats" => reg.formats = cx.parse_formats(child, warnings)?,
            "comment" | "platforms" | "tags" | "spirvextensions" | "spirvcapabilities" | "sync"
            | "videocodecs" => {}
            other => warnings.push(format!(
                "{}:{}: ignored unknown element <{other}>",
                path.display(),
                cx.line(child)
            )),
        }
    }
    Ok(())
}

/// The three sections, the features and the `<enums>` blocks parsed ahead of the fold.
pub(super) struct Sections {
    pub(super) types: sections::Parsed<Type>,
    pub(super) commands: sections::Parsed<Command>,
    pub(super) extensions: sections::Parsed<Extension>,
    /// `<feature>` elements (`None`: one not for Vulkan).
    pub(super) features: sections::Parsed<Option<Feature>>,
    pub(super) enums: sections::Parsed<sections::Enums>,
}

/// The `<type>` elements of a `<types>` section that are the fold's.
pub(super) fn type_elements<'a, 'i>(section: Node<'a, 'i>) -> impl Iterator<Item = Node<'a, 'i>> {
    section
        .children()
        .filter(|t| t.is_element() && t.tag_name().name() == "type" && api_matches(*t))
}

/// The `<command>` elements of a `<commands>` section that are the fold's.
pub(super) fn command_elements<'a, 'i>(
    section: Node<'a, 'i>,
) -> impl Iterator<Item = Node<'a, 'i>> {
    section
        .children()
        .filter(|c| c.has_tag_name("command") && api_matches(*c))
}

/// The `<extension>` elements of an `<extensions>` section.
pub(super) fn extension_elements<'a, 'i>(
    section: Node<'a, 'i>,
) -> impl Iterator<Item = Node<'a, 'i>> {
    section.children().filter(|e| e.has_tag_name("extension"))
}

/// Parses the three sections, the features and the `<enums>` blocks under `root`, four of them
/// on scoped threads when `threads`.
fn parse_ahead(cx: &Cx, root: Node, threads: bool) -> Sections {
    let sections = move |name: &'static str| {
        root.children()
            .filter(move |c| c.is_element() && c.tag_name().name() == name)
    };
    let types = || {
        sections::ahead(sections("types").flat_map(type_elements), |t, w| {
            cx.parse_type(t, w)
        })
    };
    let commands = || {
        sections::ahead(sections("commands").flat_map(command_elements), |c, _| {
            cx.parse_command(c)
        })
    };
    let extensions = || {
        sections::ahead(
            sections("extensions").flat_map(extension_elements),
            |e, w| cx.parse_extension(e, w),
        )
    };
    let features = || sections::ahead(sections("feature"), |f, w| cx.parse_feature(f, w));
    let enums = || sections::ahead(sections("enums"), |e, w| cx.read_enums(e, w));
    if !threads {
        return Sections {
            types: types(),
            commands: commands(),
            extensions: extensions(),
            features: features(),
            enums: enums(),
        };
    }
    std::thread::scope(|s| {
        let types = s.spawn(types);
        let commands = s.spawn(commands);
        let features = s.spawn(features);
        let enums = s.spawn(enums);
        let extensions = extensions();
        Sections {
            types: joined(types),
            commands: joined(commands),
            extensions,
            features: joined(features),
            enums: joined(enums),
        }
    })
}

/// The member or parameter names of one declaration seen so far, with where each was declared:
/// two fields of one name would make a struct or function the generated crate cannot compile.
/// Kept as byte offsets: a position is turned into a line and column only for the error.
#[derive(Default)]
struct FieldNames(std::collections::HashMap<String, usize>);

impl FieldNames {
    pub(super) fn check(
        &mut self,
        cx: &Cx,
        n: Node,
        owner: &str,
        what: &str,
        name: &str,
    ) -> Result<()> {
        match self.0.insert(name.to_owned(), cx.offset(n)) {
            None => Ok(()),
            Some(first) => Err(cx.schema(
                n,
                format!(
                    "{what} `{}` of `{}` is declared twice; the first is at {}:{}",
                    clip(name),
                    clip(owner),
                    cx.path.display(),
                    {
                        let (line, col) = cx.index.line_col(first);
                        format!("{line}:{col}")
                    }
                ),
            )),
        }
    }
}

/// `api="vulkan,vulkanbase"` keeps the element for Vulkan; absent means every API.
pub(super) fn api_matches(n: Node) -> bool {
    match n.attribute("api") {
        None => true,
        Some(a) => a.split(',').any(|t| t.trim() == "vulkan"),
    }
}

pub(super) fn api_list(n: Node) -> Vec<String> {
    n.attribute("api")
        .map(|a| a.split(',').map(|s| s.trim().to_owned()).collect())
        .unwrap_or_default()
}

fn header_version(n: Node) -> Option<u32> {
    let text: String = n
        .descendants()
        .filter(|d| d.is_text())
        .filter_map(|d| d.text())
        .collect();
    text.split_whitespace().last()?.parse().ok()
}

pub(super) struct Cx<'a> {
    pub(super) path: &'a Path,
    /// Positions: roxmltree's `text_pos_at` rescans from the top of the text each call.
    pub(super) index: &'a LineIndex<'a>,
    /// The piece of the text the nodes are from (`None`: the whole text).
    piece: Option<&'a pieces::Piece>,
}

impl Cx<'_> {
    /// The byte offset in the original text where `n` starts.
    fn offset(&self, n: Node) -> usize {
        let at = n.range().start;
        self.piece.map_or(at, |p| p.original(at))
    }

    pub(super) fn line(&self, n: Node) -> u32 {
        self.index.line(self.offset(n))
    }

    /// `element `name` is defined again differently; first defined at FILE:LINE:COL`, located at
    /// the second definition.
    pub(super) fn redefined(&self, n: Node, what: &str, name: &str, first: (u32, u32)) -> Error {
        self.redefined_at(self.pos(n), what, name, first)
    }

    /// [`Cx::redefined`], located at `(line, col)`.
    pub(super) fn redefined_at(
        &self,
        (line, col): (u32, u32),
        what: &str,
        name: &str,
        (first_line, first_col): (u32, u32),
    ) -> Error {
        Error::Schema {
            path: self.path.to_owned(),
            line,
            col,
            message: format!(
                "{what} `{}` is defined again, differently; the first definition is at {}:{first_line}:{first_col}",
                clip(name),
                self.path.display()
            ),
        }
    }

    /// Literal array dimensions must be in `1..=MAX_ARRAY_LEN`; named ones are checked once the
    /// constants are known (`validate`).
    pub(super) fn check_array(&self, n: Node, name: &str, ty: &CType) -> Result<()> {
        for a in &ty.array {
            if let ArrayLen::Literal(_) = a {
                // A constant-free registry suffices for a literal.
                array_len(&Registry::default(), a)
                    .map_err(|m| self.schema(n, format!("{}: {m}", clip(name))))?;
            }
        }
        Ok(())
    }

    /// A bitfield's width must be in `1..=` its type's bits: `:0` names nothing and a wider one is
    /// not C (the emitter packed it into no storage word at all).
    pub(super) fn check_bitfield(&self, n: Node, name: &str, ty: &CType) -> Result<()> {
        let unit = ty.bitfield_unit_bits();
        match ty.bitfield {
            Some(b) if b == 0 || u32::from(b) > unit => Err(self.schema(
                n,
                format!(
                    "{}: bitfield width {b} is outside 1..={unit} for `{}`",
                    clip(name),
                    clip(&ty.base)
                ),
            )),
            _ => Ok(()),
        }
    }

    /// `(line, column)` of the node's start; the column counts characters, as roxmltree's do.
    pub(super) fn pos(&self, n: Node) -> (u32, u32) {
        self.index.line_col(self.offset(n))
    }

    pub(super) fn schema(&self, n: Node, message: String) -> Error {
        let (line, col) = self.pos(n);
        Error::Schema {
            path: self.path.to_owned(),
            line,
            col,
            message,
        }
    }

    /// A name that becomes a Rust identifier (or a linker symbol) must be a C identifier that
    /// vkgen can spell in Rust: `self` becomes `self_` where it is a member or parameter, and
    /// `Self`, `crate`, `super`, `_` and anything that is not a C identifier are refused here.
    pub(super) fn check_name(&self, n: Node, what: &str, name: &str, rendered: &str) -> Result<()> {
        if let Err(why) = names::check_identifier(name, rendered) {
            return Err(self.schema(n, format!("{what} `{}`: {why}", clip(name))));
        }
        Ok(())
    }

    pub(super) fn name_of(&self, n: Node) -> Result<String> {
        if let Some(name) = n.attribute("name") {
            return Ok(name.to_owned());
        }
        n.children()
            .find(|c| c.has_tag_name("name"))
            .and_then(|c| c.text())
            .map(|s| s.trim().to_owned())
            .or_else(|| {
                n.children()
                    .find(|c| c.has_tag_name("proto"))
                    .and_then(|p| {
                        p.children()
                            .find(|c| c.has_tag_name("name"))
                            .and_then(|c| c.text())
                            .map(|s| s.trim().to_owned())
                    })
            })
            .ok_or_else(|| self.schema(n, format!("<{}> without a name", n.tag_name().name())))
    }

    pub(super) fn parse_type(&self, t: Node, warnings: &mut Vec<String>) -> Result<Type> {
        let name = self.name_of(t)?;
        let (line, col) = self.pos(t);
        let category = t.attribute("category");
        if category != Some("include") {
            self.check_name(t, "type", &name, &names::type_name(&name))?;
        }
        let alias = t.attribute("alias").map(str::to_owned);
        let requires = t.attribute("requires").map(str::to_owned);
        let kind = match category {
            _ if alias.is_some() => alias_kind(category),
            None => TypeKind::External,
            Some("include") => TypeKind::Include,
            Some("define") => TypeKind::Define,
            Some("basetype") => {
                let toks = cdecl::tokenize(t);
                let underlying = toks.iter().find_map(|k| match k {
                    cdecl::Token::Type(s) => Some(s.clone()),
                    _ => None,
                });
                let pointer = toks.contains(&cdecl::Token::Punct('*'));
                TypeKind::Basetype {
                    underlying,
                    pointer,
                }
            }
            Some("bitmask") => {
                let toks = cdecl::tokenize(t);
                let width64 = toks
                    .iter()
                    .any(|k| matches!(k, cdecl::Token::Type(s) if s == "VkFlags64"));
                let bits = t
                    .attribute("bitvalues")
                    .or(t.attribute("requires"))
                    .map(str::to_owned);
                TypeKind::Bitmask { bits, width64 }
            }
            Some("handle") => {
                let toks = cdecl::tokenize(t);
                let dispatchable = toks
                    .iter()
                    .any(|k| matches!(k, cdecl::Token::Type(s) if s == "VK_DEFINE_HANDLE"));
                TypeKind::Handle {
                    dispatchable,
                    parent: t.attribute("parent").map(str::to_owned),
                    object_type: t.attribute("objtypeenum").map(str::to_owned),
                }
            }
            Some("enum") => TypeKind::Enum,
            Some(c @ ("struct" | "union")) => self.aggregate_kind(t, &name, c == "struct")?,
            Some("funcpointer") => self.funcpointer_kind(t, &name)?,
            Some(other) => {
                return Err(self.schema(t, format!("unknown type category `{other}` for {name}")))
            }
        };
        let _ = warnings;
        Ok(Type {
            name,
            alias,
            kind,
            requires,
            line,
            col,
        })
    }

    /// The members of a `struct` or `union` type; a member name given twice is an error.
    fn aggregate_kind(&self, t: Node, name: &str, is_struct: bool) -> Result<TypeKind> {
        let mut members = Vec::new();
        let mut seen = FieldNames::default();
        for m in t.children().filter(|n| n.has_tag_name("member")) {
            if !api_matches(m) {
                continue;
            }
            let field = self.parse_field(m)?;
            seen.check(self, m, name, "member", &field.name)?;
            members.push(field);
        }
        let agg = Aggregate {
            members,
            returned_only: t.attribute("returnedonly") == Some("true"),
            extends: t
                .attribute("structextends")
                .map(|s| s.split(',').map(str::to_owned).collect())
                .unwrap_or_default(),
        };
        Ok(if is_struct {
            TypeKind::Struct(agg)
        } else {
            TypeKind::Union(agg)
        })
    }

    /// A function pointer type, written with `<proto>`/`<param>` children (1.3.2xx on) or as one
    /// C declaration (older registries).
    fn funcpointer_kind(&self, t: Node, name: &str) -> Result<TypeKind> {
        if let Some(proto) = t.children().find(|c| c.has_tag_name("proto")) {
            let (_, ret) =
                cdecl::parse_proto(&cdecl::tokenize(proto)).map_err(|m| self.schema(proto, m))?;
            let mut params = Vec::new();
            let mut seen = FieldNames::default();
            for p in t.children().filter(|c| c.has_tag_name("param")) {
                let field = self.parse_field(p)?;
                seen.check(self, p, name, "parameter", &field.name)?;
                params.push(field);
            }
            Ok(TypeKind::Funcpointer { ret, params })
        } else {
            let (_, ret, params) =
                cdecl::parse_old_funcpointer(&cdecl::tokenize(t)).map_err(|m| self.schema(t, m))?;
            let mut seen = FieldNames::default();
            for p in &params {
                self.check_name(t, "parameter", &p.name, &names::field_name(&p.name))?;
                self.check_array(t, &p.name, &p.ty)?;
                seen.check(self, t, name, "parameter", &p.name)?;
            }
            Ok(TypeKind::Funcpointer { ret, params })
        }
    }

    pub(super) fn parse_field(&self, m: Node) -> Result<Field> {
        let (name, ty) =
            cdecl::parse_decl(&cdecl::tokenize(m)).map_err(|msg| self.schema(m, msg))?;
        self.check_name(m, "member", &name, &names::field_name(&name))?;
        self.check_array(m, &name, &ty)?;
        self.check_bitfield(m, &name, &ty)?;
        Ok(Field {
            name,
            ty,
            len: m.attribute("len").map(str::to_owned),
            optional: m
                .attribute("optional")
                .is_some_and(|o| o.starts_with("true")),
            values: m.attribute("values").map(str::to_owned),
            limittype: m.attribute("limittype").map(str::to_owned),
        })
    }

    pub(super) fn parse_command(&self, c: Node) -> Result<Command> {
        let (line, col) = self.pos(c);
        if let Some(alias) = c.attribute("alias") {
            let name = c
                .attribute("name")
                .ok_or_else(|| self.schema(c, "aliased <command> without name".into()))?;
            self.check_name(c, "command", name, &names::command_field(name))?;
            return Ok(Command {
                name: name.to_owned(),
                alias: Some(alias.to_owned()),
                ret: CType::default(),
                params: Vec::new(),
                success_codes: Vec::new(),
                error_codes: Vec::new(),
                line,
                col,
            });
        }
        let proto = c
            .children()
            .find(|n| n.has_tag_name("proto"))
            .ok_or_else(|| self.schema(c, "<command> without <proto>".into()))?;
        let (name, ret) =
            cdecl::parse_proto(&cdecl::tokenize(proto)).map_err(|m| self.schema(proto, m))?;
        self.check_name(proto, "command", &name, &names::command_field(&name))?;
        let mut params = Vec::new();
        let mut seen = FieldNames::default();
        for p in c.children().filter(|n| n.has_tag_name("param")) {
            if !api_matches(p) {
                continue;
            }
            let field = self.parse_field(p)?;
            seen.check(self, p, &name, "parameter", &field.name)?;
            params.push(field);
        }
        let codes = |a: &str| -> Vec<String> {
            c.attribute(a)
                .map(|s| s.split(',').map(str::to_owned).collect())
                .unwrap_or_default()
        };
        Ok(Command {
            name,
            alias: None,
            ret,
            params,
            success_codes: codes("successcodes"),
            error_codes: codes("errorcodes"),
            line,
            col,
        })
    }
}

/// The kind of an `alias=` type: the category with no body (the alias target has the body).
fn alias_kind(category: Option<&str>) -> TypeKind {
    match category {
        Some("struct") => TypeKind::Struct(Aggregate::default()),
        Some("union") => TypeKind::Union(Aggregate::default()),
        Some("handle") => TypeKind::Handle {
            dispatchable: false,
            parent: None,
            object_type: None,
        },
        Some("enum") => TypeKind::Enum,
        Some("bitmask") => TypeKind::Bitmask {
            bits: None,
            width64: false,
        },
        _ => TypeKind::External,
    }
}

#[cfg(test)]
mod tests;
