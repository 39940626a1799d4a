//! Reading vk.xml into the model. One roxmltree pass over each file; the Android native-buffer
//! description from `registry/` is parsed the same way and laid over vk.xml by element name.
//!
//! Schema drift policy: unknown elements and attributes are tolerated with a warning (revisions we
//! have never seen must still generate), unknown values of attributes whose meaning we rely on
//! (`category`, extension `type`) are errors, and references to things nothing defines are errors
//! naming the referring element.

pub mod cdecl;
pub mod depends;
mod features;
pub mod text;

use text::{attribute_bomb, normalize_newlines};
pub use text::{LineIndex, MAX_ATTRIBUTES};

use std::path::{Path, PathBuf};

use roxmltree::{Document, Node};

use crate::error::{Error, Result};
use crate::model::*;
use crate::names;

/// The parsed registry plus what the parser had to say about it.
#[derive(Debug)]
pub struct Loaded {
    pub registry: Registry,
    pub warnings: Vec<String>,
}

/// Reads and parses `vk_xml`, then lays `overlay` (our Android native-buffer description) over it.
pub fn load(vk_xml: &Path, overlay: Option<&Path>) -> Result<Loaded> {
    let bytes = read_registry(vk_xml)?;
    let mut warnings = Vec::new();
    let mut registry = parse_str(decode(&bytes, vk_xml)?, vk_xml, &mut warnings)?;
    if let Some(path) = overlay {
        let bytes = read_registry(path)?;
        let over = parse_str(decode(&bytes, path)?, path, &mut warnings)?;
        overlay_from(&mut registry, over, vk_xml, path)?;
    } else {
        finish(&mut registry, vk_xml)?;
    }
    Ok(Loaded { registry, warnings })
}

/// Lower-case hex SHA-256 of `bytes` (what `sha256sum` prints).
pub fn sha256_hex(bytes: &[u8]) -> String {
    use sha2::Digest;
    sha2::Sha256::digest(bytes)
        .iter()
        .map(|b| format!("{b:02x}"))
        .collect()
}

/// Largest registry file vkgen reads (vk.xml 1.4 is about 3.3 MB).
pub const MAX_REGISTRY_BYTES: usize = 64 << 20;

/// Reads a registry file of at most [`MAX_REGISTRY_BYTES`]: a larger one (or an endless one such
/// as `/dev/zero`) is refused after reading one byte past the limit, never read whole.
pub fn read_registry(path: &Path) -> Result<Vec<u8>> {
    use std::io::Read;
    let file = std::fs::File::open(path).map_err(|e| Error::io(path, e))?;
    // The size from the metadata is only a hint (a FIFO has none; a file may grow): the bounded
    // read below is what enforces the limit.
    let hint = file.metadata().map_or(0, |m| m.len());
    if hint > MAX_REGISTRY_BYTES as u64 {
        return Err(too_big(path, hint));
    }
    let mut bytes = Vec::with_capacity(usize::try_from(hint).unwrap_or(0));
    file.take(MAX_REGISTRY_BYTES as u64 + 1)
        .read_to_end(&mut bytes)
        .map_err(|e| Error::io(path, e))?;
    if bytes.len() > MAX_REGISTRY_BYTES {
        return Err(too_big(path, bytes.len() as u64));
    }
    Ok(bytes)
}

fn too_big(path: &Path, len: u64) -> Error {
    Error::Xml {
        path: path.to_owned(),
        line: 1,
        col: 1,
        message: format!(
            "file is at least {len} bytes; registries over {MAX_REGISTRY_BYTES} bytes are refused"
        ),
    }
}

/// The registry text, or `FILE:LINE:COL` of the first byte that is not UTF-8.
pub fn decode<'a>(bytes: &'a [u8], path: &Path) -> Result<&'a str> {
    if bytes.len() > MAX_REGISTRY_BYTES {
        return Err(Error::Xml {
            path: path.to_owned(),
            line: 1,
            col: 1,
            message: format!(
                "file is {} bytes; registries over {MAX_REGISTRY_BYTES} bytes are refused",
                bytes.len()
            ),
        });
    }
    std::str::from_utf8(bytes).map_err(|e| {
        let good = &bytes[..e.valid_up_to()];
        // The prefix is valid UTF-8; lines end at LF, CR LF or a lone CR, as XML reads them.
        let (line, col) = match std::str::from_utf8(good) {
            Ok(t) => LineIndex::new(t).line_col(good.len()),
            Err(_) => (1, 1),
        };
        Error::Xml {
            path: path.to_owned(),
            line,
            col,
            message: format!("invalid UTF-8 (byte 0x{:02x})", bytes[e.valid_up_to()]),
        }
    })
}

/// Lays `over` over `base` by element name, then merges enum additions and checks references.
/// Errors in the overlay's elements are reported against `path` too; prefer [`overlay_from`].
pub fn overlay_and_finish(base: &mut Registry, over: Registry, path: &Path) -> Result<()> {
    overlay_from(base, over, path, path)
}

/// Lays `over` (read from `over_path`) over `base` (read from `base_path`), merges enum additions
/// and checks the result; errors in elements the overlay contributed name `over_path`.
pub fn overlay_from(
    base: &mut Registry,
    over: Registry,
    base_path: &Path,
    over_path: &Path,
) -> Result<()> {
    let origin = OverlayOrigin {
        path: over_path.to_owned(),
        types: over.types.keys().cloned().collect(),
        commands: over.commands.keys().cloned().collect(),
        extensions: over.extensions.iter().map(|e| e.name.clone()).collect(),
        enums: over.enums.keys().cloned().collect(),
        constants: over.constants.keys().cloned().collect(),
        features: over.features.iter().map(|f| f.name.clone()).collect(),
    };
    check_overlay(base, &over, base_path, over_path)?;
    apply_overlay(base, over);
    base.overlay_origin = Some(origin);
    finish(base, base_path)
}

/// Parses registry text without overlay or validation. A second definition of a type, command,
/// API constant, `<enums>` block, enumerant, feature or extension is an error naming both places,
/// unless it is identical to the first (vk.xml repeats some definitions verbatim).
pub fn parse_str(text: &str, path: &Path, warnings: &mut Vec<String>) -> Result<Registry> {
    let source_sha256 = sha256_hex(text.as_bytes());
    let text = &*normalize_newlines(text);
    let index = LineIndex::new(text);
    if let Some(at) = attribute_bomb(text.as_bytes()) {
        let (line, col) = index.line_col(at);
        return Err(Error::Xml {
            path: path.to_owned(),
            line,
            col,
            message: format!("element with more than {MAX_ATTRIBUTES} attributes"),
        });
    }
    let doc = Document::parse_with_options(
        text,
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
    let cx = Cx { path, index };
    if root.tag_name().name() != "registry" {
        return Err(cx.schema(
            root,
            format!(
                "root element is <{}>, expected <registry>",
                root.tag_name().name()
            ),
        ));
    }
    let mut reg = Registry {
        source_sha256,
        ..Registry::default()
    };
    // Extensions by name, so that a second definition is found without a quadratic scan.
    let mut extension_at: std::collections::HashMap<String, (u32, u32)> =
        std::collections::HashMap::new();
    let mut feature_at = extension_at.clone();
    for child in root.children().filter(Node::is_element) {
        match child.tag_name().name() {
            "types" => {
                for t in child.children().filter(Node::is_element) {
                    if t.tag_name().name() == "type" {
                        if !api_matches(t) {
                            continue;
                        }
                        let ty = cx.parse_type(t, warnings)?;
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
            }
            "enums" => cx.parse_enums(child, &mut reg, warnings)?,
            "commands" => {
                for c in child.children().filter(|n| n.has_tag_name("command")) {
                    if !api_matches(c) {
                        continue;
                    }
                    let cmd = cx.parse_command(c)?;
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
                if let Some(f) = cx.parse_feature(child, warnings)? {
                    if let Some(&first) = feature_at.get(&f.name) {
                        return Err(cx.redefined(child, "feature", &f.name, first));
                    }
                    feature_at.insert(f.name.clone(), (f.line, f.col));
                    reg.features.push(f);
                }
            }
            "extensions" => {
                for e in child.children().filter(|n| n.has_tag_name("extension")) {
                    let x = cx.parse_extension(e, warnings)?;
                    if let Some(&first) = extension_at.get(&x.name) {
                        return Err(cx.redefined(e, "extension", &x.name, first));
                    }
                    extension_at.insert(x.name.clone(), (x.line, x.col));
                    reg.extensions.push(x);
                }
            }
            "comment" | "platforms" | "tags" | "formats" | "spirvextensions"
            | "spirvcapabilities" | "sync" | "videocodecs" => {}
            other => warnings.push(format!(
                "{}:{}: ignored unknown element <{other}>",
                path.display(),
                cx.line(child)
            )),
        }
    }
    Ok(reg)
}

/// The member or parameter names of one declaration seen so far, with where each was declared:
/// two fields of one name would make a struct or function the generated crate cannot compile.
#[derive(Default)]
struct FieldNames(std::collections::HashMap<String, (u32, u32)>);

impl FieldNames {
    fn check(&mut self, cx: &Cx, n: Node, owner: &str, what: &str, name: &str) -> Result<()> {
        let at = cx.pos(n);
        match self.0.insert(name.to_owned(), at) {
            None => Ok(()),
            Some((line, col)) => Err(cx.schema(
                n,
                format!(
                    "{what} `{}` of `{}` is declared twice; the first is at {}:{line}:{col}",
                    clip(name),
                    clip(owner),
                    cx.path.display()
                ),
            )),
        }
    }
}

/// Whether two definitions are the same once `strip` has cleared where each was written.
fn same<T: Clone + PartialEq>(a: &T, b: &T, strip: impl Fn(&mut T)) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip(&mut a);
    strip(&mut b);
    a == b
}

/// The extension the overlay describes: the only one it may define.
pub const OVERLAY_EXTENSION: &str = "VK_ANDROID_native_buffer";

/// The overlay may only add or replace what [`OVERLAY_EXTENSION`] defines: the extension itself,
/// the types, commands and `<enums>` blocks its `<require>` blocks name, and new types those
/// reference. Anything else it defines must be new and referenced, or identical to vk.xml's; the
/// one exception is an opaque platform type (`AHardwareBuffer`) that the overlay declares as
/// external where vk.xml declares it as an opaque `struct`. Errors are located in the overlay and
/// name the vk.xml definition it would have replaced.
fn check_overlay(
    base: &Registry,
    over: &Registry,
    base_path: &Path,
    over_path: &Path,
) -> Result<()> {
    use std::collections::BTreeSet;
    let err = |(line, col): (u32, u32), message: String| Error::Schema {
        path: over_path.to_owned(),
        line,
        col,
        message,
    };
    let replaces = |what: &str, name: &str, first: Option<(u32, u32)>| {
        match first {
        Some((l, c)) => format!(
            "the overlay may only define what {OVERLAY_EXTENSION} defines, but {what} `{}` replaces the one at {}:{l}:{c}",
            clip(name),
            base_path.display()
        ),
        None => format!(
            "the overlay may only define what {OVERLAY_EXTENSION} defines, but {what} `{}` is not part of it",
            clip(name)
        ),
    }
    };
    if let Some(f) = over.features.first() {
        return Err(err((f.line, f.col), replaces("feature", &f.name, None)));
    }
    let mut req_types: BTreeSet<&str> = BTreeSet::new();
    let mut req_commands: BTreeSet<&str> = BTreeSet::new();
    for x in &over.extensions {
        if x.name != OVERLAY_EXTENSION {
            let first = base.extension(&x.name).map(|b| (b.line, b.col));
            return Err(err((x.line, x.col), replaces("extension", &x.name, first)));
        }
        for r in &x.requires {
            req_types.extend(r.types.iter().map(String::as_str));
            req_commands.extend(r.commands.iter().map(String::as_str));
        }
    }
    // Types the overlay's own extension types and commands mention.
    let mut referenced: BTreeSet<&str> = BTreeSet::new();
    for t in over
        .types
        .values()
        .filter(|t| req_types.contains(t.name.as_str()))
    {
        if let TypeKind::Struct(a) | TypeKind::Union(a) = &t.kind {
            referenced.extend(a.members.iter().map(|m| m.ty.base.as_str()));
        }
    }
    for c in over
        .commands
        .values()
        .filter(|c| req_commands.contains(c.name.as_str()))
    {
        referenced.extend(c.params.iter().map(|p| p.ty.base.as_str()));
        referenced.insert(&c.ret.base);
    }
    let opaque = |k: &TypeKind| {
        matches!(
            k,
            TypeKind::External
                | TypeKind::Define
                | TypeKind::Basetype {
                    underlying: None,
                    pointer: false
                }
        )
    };
    for t in over.types.values() {
        if req_types.contains(t.name.as_str()) {
            continue;
        }
        let ok = match base.types.get(&t.name) {
            None => referenced.contains(t.name.as_str()),
            Some(b) => {
                same(b, t, |t| (t.line, t.col) = (0, 0))
                    || (b.alias.is_none()
                        && t.alias.is_none()
                        && opaque(&b.kind)
                        && t.kind == TypeKind::External
                        && referenced.contains(t.name.as_str()))
            }
        };
        if !ok {
            let first = base.types.get(&t.name).map(|b| (b.line, b.col));
            return Err(err((t.line, t.col), replaces("type", &t.name, first)));
        }
    }
    for c in over.commands.values() {
        let ok = req_commands.contains(c.name.as_str())
            || base
                .commands
                .get(&c.name)
                .is_some_and(|b| same(b, c, |c| (c.line, c.col) = (0, 0)));
        if !ok {
            let first = base.commands.get(&c.name).map(|b| (b.line, b.col));
            return Err(err((c.line, c.col), replaces("command", &c.name, first)));
        }
    }
    for g in over.enums.values() {
        let ok = req_types.contains(g.name.as_str())
            || base.enums.get(&g.name).is_some_and(|b| {
                same(b, g, |g| {
                    (g.line, g.col) = (0, 0);
                    for v in &mut g.values {
                        (v.line, v.col) = (0, 0);
                    }
                })
            });
        if !ok {
            let first = base.enums.get(&g.name).map(|b| (b.line, b.col));
            return Err(err(
                (g.line, g.col),
                replaces("<enums> block", &g.name, first),
            ));
        }
    }
    for k in over.constants.values() {
        let ok = base
            .constants
            .get(&k.name)
            .is_some_and(|b| same(b, k, |k| (k.line, k.col) = (0, 0)));
        if !ok {
            let first = base.constants.get(&k.name).map(|b| (b.line, b.col));
            return Err(err((k.line, k.col), replaces("constant", &k.name, first)));
        }
    }
    Ok(())
}

/// Replaces vk.xml's elements by the overlay's elements of the same name and adds new ones.
fn apply_overlay(base: &mut Registry, over: Registry) {
    for (name, ty) in over.types {
        if base.types.get(&name).map(|t| &t.kind) != Some(&ty.kind) {
            base.overlay_changed.insert(name.clone());
        }
        base.types.insert(name, ty);
    }
    for (name, cmd) in over.commands {
        match base.commands.get(&name) {
            None => {
                base.command_order.push(name.clone());
                base.overlay_changed.insert(name.clone());
            }
            Some(old) if old.params != cmd.params || old.ret != cmd.ret => {
                base.overlay_changed.insert(name.clone());
            }
            Some(_) => {}
        }
        base.commands.insert(name, cmd);
    }
    base.enums.extend(over.enums);
    base.constants.extend(over.constants);
    for ext in over.extensions {
        match base.extensions.iter_mut().find(|e| e.name == ext.name) {
            Some(slot) => *slot = ext,
            None => base.extensions.push(ext),
        }
    }
    base.features.extend(over.features);
}

/// Merges values that features and extensions add to enum groups, then checks references. A value
/// added under a name its group already has must be the same value (vk.xml repeats some in several
/// extensions' `<require>` blocks); a different one is an error naming both places.
fn finish(reg: &mut Registry, path: &Path) -> Result<()> {
    let origin = reg.overlay_origin.clone();
    // The file an extension (or, for `None`, a feature or `<enums>` block) was read from.
    let file_of = |ext: Option<&String>, group: &str| -> PathBuf {
        origin
            .as_ref()
            .filter(|o| match ext {
                Some(x) => o.extensions.contains(x),
                None => o.enums.contains(group),
            })
            .map_or_else(|| path.to_owned(), |o| o.path.clone())
    };
    // Features add values with no owning extension; extensions tag theirs.
    let owners = reg
        .features
        .iter()
        .map(|f| (None, &f.requires))
        .chain(reg.extensions.iter().map(|x| (Some(&x.name), &x.requires)));
    let mut additions: Vec<(String, EnumValue)> = Vec::new();
    // Values that features and extensions define outside any group (spec versions, names).
    let mut literals: std::collections::HashMap<&str, (&str, Option<&String>, u32, u32)> =
        std::collections::HashMap::new();
    for (owner, requires) in owners {
        for e in requires.iter().flat_map(|r| &r.enums) {
            if let (Some(group), Some(v)) = (&e.extends, &e.value) {
                let value = EnumValue {
                    name: e.name.clone(),
                    value: v.clone(),
                    extension: owner.cloned(),
                    line: e.line,
                    col: e.col,
                };
                additions.push((group.clone(), value));
            } else if let (None, Some(lit)) = (&e.extends, &e.literal) {
                match literals.get(e.name.as_str()) {
                    Some(&(first, first_owner, line, col)) if first != lit => {
                        return Err(Error::Schema {
                            path: file_of(owner, ""),
                            line: e.line,
                            col: e.col,
                            message: format!(
                                "enum `{}` is defined again, differently; the first definition is at {}:{line}:{col}",
                                clip(&e.name),
                                file_of(first_owner, "").display()
                            ),
                        });
                    }
                    Some(_) => {}
                    None => {
                        literals.insert(&e.name, (lit, owner, e.line, e.col));
                    }
                }
            }
        }
    }
    // Names already in each group, so that merging stays linear in the registry's size.
    let mut present: std::collections::HashMap<String, std::collections::HashMap<String, usize>> =
        std::collections::HashMap::new();
    for (group, value) in additions {
        if let Some(g) = reg.enums.get_mut(&group) {
            let names = present.entry(group).or_insert_with(|| {
                g.values
                    .iter()
                    .enumerate()
                    .map(|(i, v)| (v.name.clone(), i))
                    .collect()
            });
            match names.get(&value.name) {
                None => {
                    names.insert(value.name.clone(), g.values.len());
                    g.values.push(value);
                }
                Some(&i) => {
                    let old = &g.values[i];
                    if !same_enum_value(&old.value, &value.value) {
                        return Err(Error::Schema {
                            path: file_of(value.extension.as_ref(), &g.name),
                            line: value.line,
                            col: value.col,
                            message: format!(
                                "enum `{}` of {} is defined again, differently; the first definition is at {}:{}:{}",
                                clip(&value.name),
                                g.name,
                                file_of(old.extension.as_ref(), &g.name).display(),
                                old.line,
                                old.col
                            ),
                        });
                    }
                }
            }
        }
    }
    validate(reg, path)
}

/// Two spellings of one enumerant value: equal, or `bitpos="b"` and `value="1<<b"`.
fn same_enum_value(a: &EnumVal, b: &EnumVal) -> bool {
    let bits = |v: &EnumVal| match v {
        EnumVal::Value(x) => Some(*x),
        EnumVal::Bitpos(p) => 1i64.checked_shl(*p),
        EnumVal::Alias(_) => None,
    };
    a == b || matches!((bits(a), bits(b)), (Some(x), Some(y)) if x == y)
}

fn validate(reg: &Registry, path: &Path) -> Result<()> {
    // Elements the overlay contributed are reported against the overlay's file.
    let origin = reg.overlay_origin.as_ref();
    let file = |set: fn(&OverlayOrigin) -> &std::collections::BTreeSet<String>, name: &str| {
        origin
            .filter(|o| set(o).contains(name))
            .map_or_else(|| path.to_owned(), |o| o.path.clone())
    };
    let type_file = |n: &str| file(|o| &o.types, n);
    let command_file = |n: &str| file(|o| &o.commands, n);
    let schema = |path: PathBuf, line: u32, col: u32, message: String| Error::Schema {
        path,
        line,
        col,
        message,
    };
    let dangling = |path: PathBuf,
                    (line, col): (u32, u32),
                    element: String,
                    what: &'static str,
                    name: &str| Error::Dangling {
        path,
        line,
        col,
        element,
        what,
        name: name.to_owned(),
    };
    check_aliases(reg, path)?;
    // The generated lookups hash every command and extension name into `u16` slots.
    let max = crate::model::MAX_LOOKUP_NAMES;
    if let Some(c) = reg.command_order.get(max).and_then(|n| reg.commands.get(n)) {
        return Err(schema(
            command_file(&c.name),
            c.line,
            c.col,
            format!("more than {max} commands: the generated lookup holds at most {max}"),
        ));
    }
    if let Some(x) = reg.extensions.get(max) {
        return Err(schema(
            file(|o| &o.extensions, &x.name),
            x.line,
            x.col,
            format!("more than {max} extensions: the generated lookup holds at most {max}"),
        ));
    }
    let known_type = |n: &str| reg.types.contains_key(n) || reg.enums.contains_key(n);
    for ty in reg.types.values() {
        if let Some(a) = &ty.alias {
            if !reg.types.contains_key(a) {
                return Err(dangling(
                    type_file(&ty.name),
                    (ty.line, ty.col),
                    format!("<type name=\"{}\">", ty.name),
                    "type",
                    a,
                ));
            }
        }
        let members = match &ty.kind {
            TypeKind::Struct(a) | TypeKind::Union(a) => &a.members[..],
            TypeKind::Funcpointer { params, .. } => &params[..],
            _ => &[],
        };
        for m in members {
            for a in &m.ty.array {
                array_len(reg, a).map_err(|msg| {
                    schema(
                        type_file(&ty.name),
                        ty.line,
                        ty.col,
                        format!("<type name=\"{}\"> member {}: {msg}", ty.name, m.name),
                    )
                })?;
            }
            if !known_type(&m.ty.base) {
                return Err(dangling(
                    type_file(&ty.name),
                    (ty.line, ty.col),
                    format!("<type name=\"{}\"> member {}", ty.name, m.name),
                    "type",
                    &m.ty.base,
                ));
            }
        }
    }
    for cmd in reg.commands.values() {
        if let Some(a) = &cmd.alias {
            if !reg.commands.contains_key(a) {
                return Err(dangling(
                    command_file(&cmd.name),
                    (cmd.line, cmd.col),
                    format!("<command name=\"{}\">", cmd.name),
                    "command",
                    a,
                ));
            }
        }
        for p in &cmd.params {
            for a in &p.ty.array {
                array_len(reg, a).map_err(|msg| {
                    schema(
                        command_file(&cmd.name),
                        cmd.line,
                        cmd.col,
                        format!("<command> {} param {}: {msg}", cmd.name, p.name),
                    )
                })?;
            }
            if !known_type(&p.ty.base) {
                return Err(dangling(
                    command_file(&cmd.name),
                    (cmd.line, cmd.col),
                    format!("<command> {} param {}", cmd.name, p.name),
                    "type",
                    &p.ty.base,
                ));
            }
        }
        if !cmd.ret.base.is_empty() && !known_type(&cmd.ret.base) {
            return Err(dangling(
                command_file(&cmd.name),
                (cmd.line, cmd.col),
                format!("<command> {}", cmd.name),
                "type",
                &cmd.ret.base,
            ));
        }
    }
    let check_require = |owner: &str, file: PathBuf, pos: (u32, u32), r: &Require| -> Result<()> {
        for c in &r.commands {
            if !reg.commands.contains_key(c) {
                return Err(dangling(
                    file,
                    pos,
                    format!("<require> of {owner}"),
                    "command",
                    c,
                ));
            }
        }
        for t in &r.types {
            if !known_type(t) {
                return Err(dangling(
                    file,
                    pos,
                    format!("<require> of {owner}"),
                    "type",
                    t,
                ));
            }
        }
        Ok(())
    };
    for f in &reg.features {
        for r in &f.requires {
            check_require(&f.name, file(|o| &o.features, &f.name), (f.line, f.col), r)?;
        }
    }
    for x in &reg.extensions {
        if x.supported.iter().any(|s| s == "disabled") {
            continue;
        }
        let xfile = file(|o| &o.extensions, &x.name);
        for r in &x.requires {
            check_require(&x.name, xfile.clone(), (x.line, x.col), r)?;
        }
        // Values an extension adds must fit the group they extend.
        for e in x.requires.iter().flat_map(|r| &r.enums) {
            if let (Some(g), Some(v)) =
                (e.extends.as_ref().and_then(|g| reg.enums.get(g)), &e.value)
            {
                check_enum_range(g, &e.name, v)
                    .map_err(|m| schema(xfile.clone(), e.line, e.col, m))?;
            }
        }
    }
    for f in &reg.features {
        for e in f.requires.iter().flat_map(|r| &r.enums) {
            if let (Some(g), Some(v)) =
                (e.extends.as_ref().and_then(|g| reg.enums.get(g)), &e.value)
            {
                check_enum_range(g, &e.name, v)
                    .map_err(|m| schema(file(|o| &o.features, &f.name), e.line, e.col, m))?;
            }
        }
    }
    for g in reg.enums.values() {
        for v in &g.values {
            check_enum_range(g, &v.name, &v.value)
                .map_err(|m| schema(file(|o| &o.enums, &g.name), v.line, v.col, m))?;
        }
    }
    for ty in reg.types.values() {
        if let TypeKind::Handle {
            parent: Some(parents),
            ..
        } = &ty.kind
        {
            for p in parents.split(',').map(str::trim) {
                if !matches!(
                    reg.resolve_type(p).map(|t| &t.kind),
                    Some(TypeKind::Handle { .. })
                ) {
                    return Err(dangling(
                        type_file(&ty.name),
                        (ty.line, ty.col),
                        format!("<type name=\"{}\"> parent", ty.name),
                        "handle",
                        p,
                    ));
                }
            }
        }
    }
    if let Some((ty, cycle)) = containment_cycle(reg) {
        return Err(schema(
            type_file(&ty.name),
            ty.line,
            ty.col,
            format!(
                "`{}` contains itself by value ({}); it would have infinite size",
                ty.name,
                cycle.join(" → ")
            ),
        ));
    }
    Ok(())
}

/// A struct or union that contains itself through members that are not pointers (directly or
/// through other structures), with the chain of type names; iterative (hostile nesting is deep).
fn containment_cycle(reg: &Registry) -> Option<(&Type, Vec<String>)> {
    let inner = |t: &Type| -> Vec<&str> {
        match &t.kind {
            TypeKind::Struct(a) | TypeKind::Union(a) => a
                .members
                .iter()
                .filter(|m| m.ty.pointers.is_empty())
                .filter_map(|m| reg.resolve_type(&m.ty.base))
                .filter(|t| matches!(t.kind, TypeKind::Struct(_) | TypeKind::Union(_)))
                .map(|t| t.name.as_str())
                .collect(),
            _ => Vec::new(),
        }
    };
    // 0 = unvisited, 1 = on the current path, 2 = done.
    let mut state: std::collections::HashMap<&str, u8> = std::collections::HashMap::new();
    for start in reg.types.values().filter(|t| t.alias.is_none()) {
        if state.contains_key(start.name.as_str()) {
            continue;
        }
        let mut path: Vec<(&str, Vec<&str>)> = vec![(start.name.as_str(), inner(start))];
        state.insert(&start.name, 1);
        while let Some((name, todo)) = path.last_mut() {
            let name: &str = name;
            match todo.pop() {
                None => {
                    state.insert(name, 2);
                    path.pop();
                }
                Some(next) => match state.get(next) {
                    Some(1) => {
                        let from = path.iter().position(|(n, _)| *n == next).unwrap_or(0);
                        let mut cycle: Vec<String> =
                            path[from..].iter().map(|(n, _)| (*n).to_owned()).collect();
                        cycle.push(next.to_owned());
                        return reg.types.get(next).map(|t| (t, cycle));
                    }
                    Some(_) => {}
                    None => {
                        state.insert(next, 1);
                        let t = reg.types.get(next).map(&inner).unwrap_or_default();
                        path.push((next, t));
                    }
                },
            }
        }
    }
    None
}

/// An enumerant must be representable in its group: `int` for enums, 32 or 64 bits for flags.
fn check_enum_range(g: &EnumGroup, name: &str, v: &EnumVal) -> std::result::Result<(), String> {
    let ok = match (v, g.bitmask, g.width64) {
        (EnumVal::Alias(_), ..) => true,
        (EnumVal::Bitpos(b), true, false) => *b < 32,
        (EnumVal::Bitpos(b), true, true) => *b < 64,
        (EnumVal::Bitpos(b), false, _) => *b < 31,
        (EnumVal::Value(x), true, false) => i32::try_from(*x).is_ok() || u32::try_from(*x).is_ok(),
        (EnumVal::Value(_), true, true) => true,
        (EnumVal::Value(x), false, _) => i32::try_from(*x).is_ok(),
    };
    if ok {
        Ok(())
    } else {
        Err(format!(
            "{name}: value {} does not fit {} {}",
            match v {
                EnumVal::Value(x) => x.to_string(),
                EnumVal::Bitpos(b) => format!("bitpos {b}"),
                EnumVal::Alias(a) => format!("alias {}", clip(a)),
            },
            if g.bitmask { "flags" } else { "enum" },
            g.name
        ))
    }
}

/// Every `alias=` chain (types, commands, API constants, enum values) ends at a definition within
/// [`MAX_ALIAS_CHAIN`] steps: a cycle or an overlong chain is an error naming its first element.
fn check_aliases(reg: &Registry, path: &Path) -> Result<()> {
    let origin = reg.overlay_origin.as_ref();
    let err = |set: fn(&OverlayOrigin) -> &std::collections::BTreeSet<String>,
               what: &str,
               name: &str,
               (line, col): (u32, u32),
               cycle: bool| {
        let path = origin
            .filter(|o| set(o).contains(name))
            .map_or_else(|| path.to_owned(), |o| o.path.clone());
        Error::Schema {
            path,
            line,
            col,
            message: if cycle {
                format!("{what} `{name}`: alias cycle")
            } else {
                format!("{what} `{name}`: alias chain longer than {MAX_ALIAS_CHAIN}")
            },
        }
    };
    // Follows `next` from `start`; Err(true) for a cycle, Err(false) for an overlong chain.
    fn walk<'a>(
        start: &'a str,
        next: impl Fn(&str) -> Option<&'a str>,
    ) -> std::result::Result<(), bool> {
        let mut seen: Vec<&str> = vec![start];
        let mut at = start;
        while let Some(n) = next(at) {
            if seen.contains(&n) {
                return Err(true);
            }
            if seen.len() > MAX_ALIAS_CHAIN {
                return Err(false);
            }
            seen.push(n);
            at = n;
        }
        Ok(())
    }
    for t in reg.types.values() {
        walk(&t.name, |n| {
            reg.types.get(n).and_then(|t| t.alias.as_deref())
        })
        .map_err(|c| err(|o| &o.types, "type", &t.name, (t.line, t.col), c))?;
    }
    for c in reg.commands.values() {
        walk(&c.name, |n| {
            reg.commands.get(n).and_then(|c| c.alias.as_deref())
        })
        .map_err(|cy| err(|o| &o.commands, "command", &c.name, (c.line, c.col), cy))?;
    }
    for k in reg.constants.values() {
        walk(&k.name, |n| {
            reg.constants.get(n).and_then(|k| k.alias.as_deref())
        })
        .map_err(|c| err(|o| &o.constants, "constant", &k.name, (k.line, k.col), c))?;
    }
    for g in reg.enums.values() {
        let by_name: std::collections::HashMap<&str, &EnumValue> =
            g.values.iter().map(|v| (v.name.as_str(), v)).collect();
        for v in &g.values {
            walk(&v.name, |n| match by_name.get(n).map(|v| &v.value) {
                Some(EnumVal::Alias(a)) => Some(a.as_str()),
                _ => None,
            })
            .map_err(|c| err(|o| &o.enums, "enum", &v.name, (v.line, v.col), c))?;
        }
    }
    Ok(())
}

/// `api="vulkan,vulkanbase"` keeps the element for Vulkan; absent means every API.
fn api_matches(n: Node) -> bool {
    match n.attribute("api") {
        None => true,
        Some(a) => a.split(',').any(|t| t.trim() == "vulkan"),
    }
}

fn api_list(n: Node) -> Vec<String> {
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

struct Cx<'a> {
    path: &'a Path,
    /// Positions: roxmltree's `text_pos_at` rescans from the top of the text each call.
    index: LineIndex<'a>,
}

impl Cx<'_> {
    fn line(&self, n: Node) -> u32 {
        self.index.line(n.range().start)
    }

    /// `element `name` is defined again differently; first defined at FILE:LINE:COL`, located at
    /// the second definition.
    fn redefined(&self, n: Node, what: &str, name: &str, (line, col): (u32, u32)) -> Error {
        self.schema(
            n,
            format!(
                "{what} `{}` is defined again, differently; the first definition is at {}:{line}:{col}",
                clip(name),
                self.path.display()
            ),
        )
    }

    /// Literal array dimensions must be in `1..=MAX_ARRAY_LEN`; named ones are checked once the
    /// constants are known (`validate`).
    fn check_array(&self, n: Node, name: &str, ty: &CType) -> Result<()> {
        for a in &ty.array {
            if let ArrayLen::Literal(_) = a {
                // A constant-free registry suffices for a literal.
                array_len(&Registry::default(), a)
                    .map_err(|m| self.schema(n, format!("{}: {m}", clip(name))))?;
            }
        }
        Ok(())
    }

    /// `(line, column)` of the node's start; the column counts characters, as roxmltree's do.
    fn pos(&self, n: Node) -> (u32, u32) {
        self.index.line_col(n.range().start)
    }

    fn schema(&self, n: Node, message: String) -> Error {
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
    fn check_name(&self, n: Node, what: &str, name: &str, rendered: &str) -> Result<()> {
        if let Err(why) = names::check_identifier(name, rendered) {
            return Err(self.schema(n, format!("{what} `{}`: {why}", clip(name))));
        }
        Ok(())
    }

    fn name_of(&self, n: Node) -> Result<String> {
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

    fn parse_type(&self, t: Node, warnings: &mut Vec<String>) -> Result<Type> {
        let name = self.name_of(t)?;
        let (line, col) = self.pos(t);
        let category = t.attribute("category");
        if category != Some("include") {
            self.check_name(t, "type", &name, &names::type_name(&name))?;
        }
        let alias = t.attribute("alias").map(str::to_owned);
        let requires = t.attribute("requires").map(str::to_owned);
        let kind = match category {
            _ if alias.is_some() => match category {
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
            },
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
            Some(c @ ("struct" | "union")) => {
                let mut members = Vec::new();
                let mut seen = FieldNames::default();
                for m in t.children().filter(|n| n.has_tag_name("member")) {
                    if !api_matches(m) {
                        continue;
                    }
                    let field = self.parse_field(m)?;
                    seen.check(self, m, &name, "member", &field.name)?;
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
                if c == "struct" {
                    TypeKind::Struct(agg)
                } else {
                    TypeKind::Union(agg)
                }
            }
            Some("funcpointer") => {
                if let Some(proto) = t.children().find(|c| c.has_tag_name("proto")) {
                    let (_, ret) = cdecl::parse_proto(&cdecl::tokenize(proto))
                        .map_err(|m| self.schema(proto, m))?;
                    let mut params = Vec::new();
                    let mut seen = FieldNames::default();
                    for p in t.children().filter(|c| c.has_tag_name("param")) {
                        let field = self.parse_field(p)?;
                        seen.check(self, p, &name, "parameter", &field.name)?;
                        params.push(field);
                    }
                    TypeKind::Funcpointer { ret, params }
                } else {
                    let (_, ret, params) = cdecl::parse_old_funcpointer(&cdecl::tokenize(t))
                        .map_err(|m| self.schema(t, m))?;
                    let mut seen = FieldNames::default();
                    for p in &params {
                        self.check_name(t, "parameter", &p.name, &names::field_name(&p.name))?;
                        self.check_array(t, &p.name, &p.ty)?;
                        seen.check(self, t, &name, "parameter", &p.name)?;
                    }
                    TypeKind::Funcpointer { ret, params }
                }
            }
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

    fn parse_field(&self, m: Node) -> Result<Field> {
        let (name, ty) =
            cdecl::parse_decl(&cdecl::tokenize(m)).map_err(|msg| self.schema(m, msg))?;
        self.check_name(m, "member", &name, &names::field_name(&name))?;
        self.check_array(m, &name, &ty)?;
        Ok(Field {
            name,
            ty,
            len: m.attribute("len").map(str::to_owned),
            optional: m
                .attribute("optional")
                .is_some_and(|o| o.starts_with("true")),
            values: m.attribute("values").map(str::to_owned),
        })
    }

    fn parse_enums(&self, n: Node, reg: &mut Registry, warnings: &mut Vec<String>) -> Result<()> {
        let name = n
            .attribute("name")
            .ok_or_else(|| self.schema(n, "<enums> without a name".into()))?;
        let kind = n.attribute("type");
        if kind == Some("constants") || name == "API Constants" {
            for e in n.children().filter(|c| c.has_tag_name("enum")) {
                if !api_matches(e) {
                    continue;
                }
                let cname = self.name_of(e)?;
                self.check_name(e, "constant", &cname, &names::constant_name(&cname))?;
                let (line, col) = self.pos(e);
                let k = Constant {
                    name: cname.clone(),
                    ty: e.attribute("type").unwrap_or("uint32_t").to_owned(),
                    value: e.attribute("value").unwrap_or("").to_owned(),
                    alias: e.attribute("alias").map(str::to_owned),
                    line,
                    col,
                };
                if let Some(old) = reg.constants.get(&cname) {
                    if !same(old, &k, |k| (k.line, k.col) = (0, 0)) {
                        return Err(self.redefined(e, "constant", &cname, (old.line, old.col)));
                    }
                    continue;
                }
                reg.constants.insert(cname, k);
            }
            return Ok(());
        }
        self.check_name(n, "enum group", name, &names::type_name(name))?;
        let bitmask = match kind {
            Some("bitmask") => true,
            Some("enum") | None => false,
            Some(other) => {
                warnings.push(format!(
                    "{}:{}: <enums type=\"{other}\"> treated as enum",
                    self.path.display(),
                    self.line(n)
                ));
                false
            }
        };
        let mut values: Vec<EnumValue> = Vec::new();
        let mut index: std::collections::HashMap<String, usize> = std::collections::HashMap::new();
        for e in n.children().filter(|c| c.has_tag_name("enum")) {
            if !api_matches(e) {
                continue;
            }
            let vname = self.name_of(e)?;
            self.check_name(e, "enum", &vname, &names::variant_name(name, &vname))?;
            let value = self
                .enum_val(e, None)?
                .ok_or_else(|| self.schema(e, format!("enum {vname} has no value")))?;
            let (line, col) = self.pos(e);
            if let Some(&i) = index.get(&vname) {
                let old = &values[i];
                if old.value != value {
                    return Err(self.redefined(e, "enum", &vname, (old.line, old.col)));
                }
                continue;
            }
            index.insert(vname.clone(), values.len());
            values.push(EnumValue {
                name: vname,
                value,
                extension: None,
                line,
                col,
            });
        }
        let (line, col) = self.pos(n);
        let group = EnumGroup {
            name: name.to_owned(),
            bitmask,
            width64: n.attribute("bitwidth") == Some("64"),
            values,
            line,
            col,
        };
        if let Some(old) = reg.enums.get(name) {
            let strip = |g: &mut EnumGroup| {
                (g.line, g.col) = (0, 0);
                for v in &mut g.values {
                    (v.line, v.col) = (0, 0);
                }
            };
            if !same(old, &group, strip) {
                return Err(self.redefined(n, "<enums> block", name, (old.line, old.col)));
            }
            return Ok(());
        }
        reg.enums.insert(name.to_owned(), group);
        Ok(())
    }

    /// The value of an `<enum>`: `value=`, `bitpos=`, `offset=` (+`extnumber=`, `dir=`) or `alias=`.
    fn enum_val(&self, e: Node, ext_number: Option<u32>) -> Result<Option<EnumVal>> {
        if let Some(v) = e.attribute("value") {
            let c = parse_c_literal(v)
                .ok_or_else(|| self.schema(e, format!("bad integer literal `{}`", clip(v))))?;
            // Enumerants are `int` (or a 64-bit flag): anything wider is a wrong value, not data.
            let value = i64::try_from(c.value)
                .ok()
                .or_else(|| u64::try_from(c.value).ok().map(|u| u as i64))
                .ok_or_else(|| {
                    self.schema(e, format!("value `{}` does not fit 64 bits", clip(v)))
                })?;
            return Ok(Some(EnumVal::Value(value)));
        }
        if let Some(b) = e.attribute("bitpos") {
            let b: u32 = b
                .parse()
                .map_err(|_| self.schema(e, format!("bad bitpos `{}`", clip(b))))?;
            if b >= 64 {
                return Err(self.schema(e, format!("bitpos {b} out of range")));
            }
            return Ok(Some(EnumVal::Bitpos(b)));
        }
        if let Some(off) = e.attribute("offset") {
            // `1000000000 + (extnumber - 1) * 1000 + offset`: offset picks one of the extension's
            // 1000 values, and the result must be an `int` enumerant.
            let off: i64 = off
                .parse()
                .ok()
                .filter(|o| (0..1000).contains(o))
                .ok_or_else(|| self.schema(e, format!("bad offset `{}` (0..=999)", clip(off))))?;
            let number = match e.attribute("extnumber") {
                Some(n) => n
                    .parse::<i64>()
                    .ok()
                    .filter(|&n| n >= 1)
                    .ok_or_else(|| self.schema(e, format!("bad extnumber `{}`", clip(n))))?,
                None => i64::from(
                    ext_number
                        .ok_or_else(|| self.schema(e, "offset enum outside an extension".into()))?,
                ),
            };
            let v = (number - 1)
                .checked_mul(1000)
                .and_then(|x| x.checked_add(1_000_000_000 + off))
                .filter(|&v| v <= i64::from(i32::MAX))
                .ok_or_else(|| {
                    self.schema(
                        e,
                        format!("extnumber {number} with offset {off} does not fit an enumerant"),
                    )
                })?;
            return Ok(Some(EnumVal::Value(if e.attribute("dir") == Some("-") {
                -v
            } else {
                v
            })));
        }
        if let Some(a) = e.attribute("alias") {
            return Ok(Some(EnumVal::Alias(a.to_owned())));
        }
        Ok(None)
    }

    fn parse_command(&self, c: Node) -> Result<Command> {
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

    fn parse_require(
        &self,
        r: Node,
        ext_number: Option<u32>,
        warnings: &mut Vec<String>,
    ) -> Result<Require> {
        // Older registries spell the condition as feature=/extension= attributes.
        let mut conds: Vec<String> = Vec::new();
        if let Some(d) = r.attribute("depends") {
            conds.push(d.to_owned());
        }
        if let Some(f) = r.attribute("feature") {
            conds.push(f.to_owned());
        }
        if let Some(x) = r.attribute("extension") {
            conds.push(x.to_owned());
        }
        let depends = match conds.len() {
            0 => None,
            1 => conds.pop(),
            _ => Some(
                conds
                    .iter()
                    .map(|c| format!("({c})"))
                    .collect::<Vec<_>>()
                    .join("+"),
            ),
        };
        if let Some(d) = &depends {
            depends::Expr::parse(d).map_err(|m| self.schema(r, m))?;
        }
        let mut req = features::require_block(depends, r);
        for item in r.children().filter(Node::is_element) {
            if !api_matches(item) {
                continue;
            }
            match item.tag_name().name() {
                "type" => req.types.push(self.name_of(item)?),
                "command" => req.commands.push(self.name_of(item)?),
                "enum" => {
                    let name = self.name_of(item)?;
                    let extends = item.attribute("extends").map(str::to_owned);
                    let value = match &extends {
                        Some(group) => {
                            self.check_name(
                                item,
                                "enum",
                                &name,
                                &names::variant_name(group, &name),
                            )?;
                            self.enum_val(item, ext_number)?
                        }
                        None => {
                            self.check_name(item, "enum", &name, &name)?;
                            None
                        }
                    };
                    let (line, col) = self.pos(item);
                    req.enums.push(RequiredEnum {
                        name,
                        extends,
                        value,
                        literal: item.attribute("value").map(str::to_owned),
                        line,
                        col,
                    });
                }
                "comment" | "feature" => {}
                other => warnings.push(format!(
                    "{}:{}: ignored unknown <{other}> in <require>",
                    self.path.display(),
                    self.line(item)
                )),
            }
        }
        Ok(req)
    }

    fn parse_feature(&self, f: Node, warnings: &mut Vec<String>) -> Result<Option<Feature>> {
        let name = self.name_of(f)?;
        self.check_name(f, "feature", &name, &name)?;
        let api = api_list(f);
        if !api.iter().any(|a| a == "vulkan") {
            return Ok(None);
        }
        let number = f
            .attribute("number")
            .ok_or_else(|| self.schema(f, format!("feature {name} without number")))?;
        // Vulkan starts at 1.0: a 0.x feature would leave no version to generate for.
        let version = parse_version(number)
            .filter(|&(major, _)| major >= 1)
            .ok_or_else(|| {
                self.schema(
                    f,
                    format!(
                        "bad feature number `{}` (MAJOR.MINOR, 1 <= major <= {MAX_MAJOR}, minor <= {MAX_MINOR})",
                        clip(number)
                    ),
                )
            })?;
        let mut requires = Vec::new();
        let mut removes = Vec::new();
        for r in f.children().filter(Node::is_element) {
            match r.tag_name().name() {
                "require" if api_matches(r) => {
                    requires.push(self.parse_require(r, None, warnings)?)
                }
                "remove" if api_matches(r) => removes.push(self.parse_require(r, None, warnings)?),
                "require" | "remove" | "comment" | "deprecate" => {}
                other => warnings.push(format!(
                    "{}:{}: ignored <{other}> in feature",
                    self.path.display(),
                    self.line(r)
                )),
            }
        }
        Ok(Some(Feature {
            name,
            api,
            version,
            internal: f.attribute("apitype") == Some("internal"),
            depends: f.attribute("depends").map(str::to_owned),
            requires,
            removes,
            line: self.pos(f).0,
            col: self.pos(f).1,
        }))
    }

    fn parse_extension(&self, e: Node, warnings: &mut Vec<String>) -> Result<Extension> {
        let name = self.name_of(e)?;
        self.check_name(e, "extension", &name, &name)?;
        let number = match e.attribute("number") {
            Some(n) => n.parse().ok().filter(|&n: &u32| n >= 1).ok_or_else(|| {
                self.schema(e, format!("extension {name}: bad number `{}`", clip(n)))
            })?,
            None => return Err(self.schema(e, format!("extension {name} without number"))),
        };
        let kind = match e.attribute("type") {
            Some("instance") => Some(ExtensionKind::Instance),
            Some("device") => Some(ExtensionKind::Device),
            None => None,
            Some(other) => {
                return Err(self.schema(e, format!("extension {name}: unknown type `{other}`")))
            }
        };
        let mut depends_parts: Vec<String> = Vec::new();
        if let Some(d) = e.attribute("depends") {
            depends_parts.push(d.to_owned());
        } else {
            // Pre-1.3.2xx: requires="A,B" (all needed) and requiresCore="1.1".
            if let Some(r) = e.attribute("requires") {
                depends_parts.extend(r.split(',').map(str::to_owned));
            }
            if let Some(c) = e.attribute("requiresCore") {
                if c != "1.0" {
                    depends_parts.push(format!("VK_VERSION_{}", c.replace('.', "_")));
                }
            }
        }
        let depends = if depends_parts.is_empty() {
            None
        } else if depends_parts.len() == 1 {
            depends_parts.pop()
        } else {
            Some(
                depends_parts
                    .iter()
                    .map(|p| format!("({p})"))
                    .collect::<Vec<_>>()
                    .join("+"),
            )
        };
        if let Some(d) = &depends {
            depends::Expr::parse(d)
                .map_err(|m| self.schema(e, format!("extension {name}: {m}")))?;
        }
        let mut requires = Vec::new();
        for r in e.children().filter(Node::is_element) {
            match r.tag_name().name() {
                "require" if api_matches(r) => {
                    requires.push(self.parse_require(r, Some(number), warnings)?)
                }
                "require" | "remove" | "comment" | "deprecate" => {}
                other => warnings.push(format!(
                    "{}:{}: ignored <{other}> in extension",
                    self.path.display(),
                    self.line(r)
                )),
            }
        }
        // A spec version that is not a number is an error, not a silent 0.
        let spec_version = match requires
            .iter()
            .flat_map(|r| &r.enums)
            .find(|en| en.name.ends_with("_SPEC_VERSION") && en.literal.is_some())
        {
            Some(en) => match en.literal.as_deref() {
                Some(l) => l.trim_matches('"').parse().map_err(|_| Error::Schema {
                    path: self.path.to_owned(),
                    line: en.line,
                    col: en.col,
                    message: format!(
                        "extension {name}: spec version `{}` is not a number",
                        clip(l)
                    ),
                })?,
                None => 0,
            },
            None => 0,
        };
        Ok(Extension {
            name,
            number,
            kind,
            supported: e
                .attribute("supported")
                .unwrap_or("")
                .split(',')
                .map(str::to_owned)
                .collect(),
            platform: e.attribute("platform").map(str::to_owned),
            author: e.attribute("author").map(str::to_owned),
            depends,
            promoted_to: e.attribute("promotedto").map(str::to_owned),
            deprecated_by: e
                .attribute("deprecatedby")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            obsoleted_by: e
                .attribute("obsoletedby")
                .filter(|s| !s.is_empty())
                .map(str::to_owned),
            provisional: e.attribute("provisional") == Some("true"),
            spec_version,
            requires,
            line: self.pos(e).0,
            col: self.pos(e).1,
        })
    }
}

/// C integer literals as vk.xml writes them: `42`, `0x7FFFFFFF`, `-1`, `(~0U)`, `(~0ULL)`, `(~0U-1)`,
/// with any of the suffixes `U L UL LU LL ULL LLU` (either case). The value is the C value in its
/// C type, as an `i64` bit pattern for `unsigned long long` values above `i64::MAX`. Anything else
/// (floats, strings, other expressions) is `None`. See [`parse_c_literal`] for the exact value.
pub fn parse_c_int(s: &str) -> Option<i64> {
    let v = parse_c_literal(s)?;
    i64::try_from(v.value)
        .ok()
        .or_else(|| u64::try_from(v.value).ok().map(|u| u as i64))
}

/// An integer constant expression of vk.xml, evaluated with C's rules (LP64).
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
pub struct CInt {
    /// The exact value (never wrapped to `i64`).
    pub value: i128,
    /// 32 or 64.
    pub bits: u32,
    pub unsigned: bool,
}

impl CInt {
    fn wrap(value: i128, bits: u32, unsigned: bool) -> CInt {
        let m = 1i128 << bits;
        let mut v = value.rem_euclid(m);
        if !unsigned && v >= m / 2 {
            v -= m;
        }
        CInt {
            value: v,
            bits,
            unsigned,
        }
    }
}

/// Longest literal text `parse_c_literal` looks at; vk.xml's longest is 26 characters.
pub const MAX_LITERAL_LEN: usize = 64;

/// Parses the literal forms listed at [`parse_c_int`] exactly. Iterative and bounded: at most
/// [`MAX_LITERAL_LEN`] characters, one binary `+`/`-`, one unary operator per operand.
pub fn parse_c_literal(s: &str) -> Option<CInt> {
    let s = s.trim();
    if s.len() > MAX_LITERAL_LEN {
        return None;
    }
    let s = strip_parens(s)?;
    // A binary `-`/`+` after the first character (not an exponent: floats are refused anyway).
    let op = s
        .char_indices()
        .skip(1)
        .find(|&(i, c)| (c == '-' || c == '+') && !s[..i].trim_end().ends_with(['-', '+', '~']));
    match op {
        None => operand(s),
        Some((i, c)) => {
            let a = operand(strip_parens(s[..i].trim())?)?;
            let b = operand(strip_parens(s[i + 1..].trim())?)?;
            // Usual arithmetic conversions: the wider type; unsigned wins at equal width.
            let bits = a.bits.max(b.bits);
            let unsigned = (a.bits == bits && a.unsigned) || (b.bits == bits && b.unsigned);
            let v = if c == '-' {
                a.value - b.value
            } else {
                a.value + b.value
            };
            Some(CInt::wrap(v, bits, unsigned))
        }
    }
}

fn strip_parens(mut s: &str) -> Option<&str> {
    while let Some(inner) = s.strip_prefix('(') {
        s = inner.strip_suffix(')')?.trim();
    }
    (!s.is_empty() && !s.contains(['(', ')'])).then_some(s)
}

/// `[~|-]` literal with suffix.
fn operand(s: &str) -> Option<CInt> {
    let s = s.trim();
    if let Some(rest) = s.strip_prefix('~') {
        let v = literal(strip_parens(rest.trim())?)?;
        return Some(CInt::wrap(!v.value, v.bits, v.unsigned));
    }
    if let Some(rest) = s.strip_prefix('-') {
        let v = literal(strip_parens(rest.trim())?)?;
        return Some(CInt::wrap(-v.value, v.bits, v.unsigned));
    }
    literal(s)
}

/// One integer literal: decimal or `0x` hex digits, then a suffix. C picks the type: the first of
/// int, unsigned int (hex only), long, unsigned long (hex only) that holds the value, from the
/// suffix's minimum up.
fn literal(s: &str) -> Option<CInt> {
    let (digits, radix) = match s.strip_prefix("0x").or_else(|| s.strip_prefix("0X")) {
        Some(h) => (h, 16),
        None => (s, 10),
    };
    let end = digits
        .find(|c: char| !c.is_digit(radix))
        .unwrap_or(digits.len());
    let (num, suffix) = digits.split_at(end);
    if num.is_empty() {
        return None;
    }
    let (u, l) = match suffix.to_ascii_uppercase().as_str() {
        "" => (false, false),
        "U" => (true, false),
        "L" | "LL" => (false, true),
        "UL" | "LU" | "ULL" | "LLU" => (true, true),
        _ => return None,
    };
    if radix == 10 && num.len() > 1 && num.starts_with('0') {
        return None; // octal: not a form vk.xml uses
    }
    let v = u64::from_str_radix(num, radix).ok()? as i128;
    let candidates: &[(u32, bool)] = match (u, l, radix == 16) {
        (false, false, false) => &[(32, false), (64, false)],
        (false, false, true) => &[(32, false), (32, true), (64, false), (64, true)],
        (true, false, _) => &[(32, true), (64, true)],
        (false, true, false) => &[(64, false)],
        (false, true, true) => &[(64, false), (64, true)],
        (true, true, _) => &[(64, true)],
    };
    candidates.iter().find_map(|&(bits, unsigned)| {
        let max = if unsigned {
            (1i128 << bits) - 1
        } else {
            (1i128 << (bits - 1)) - 1
        };
        (v <= max).then_some(CInt {
            value: v,
            bits,
            unsigned,
        })
    })
}

/// The integer value of API constant `name`, following aliases (loading rejects alias cycles
/// and chains longer than [`MAX_ALIAS_CHAIN`]).
pub fn constant_value(reg: &Registry, name: &str) -> Option<i64> {
    let mut c = reg.constants.get(name)?;
    for _ in 0..=MAX_ALIAS_CHAIN {
        match &c.alias {
            Some(a) => c = reg.constants.get(a)?,
            None => return parse_c_int(&c.value),
        }
    }
    None
}

/// Largest array dimension vkgen accepts (vk.xml's largest is 256).
pub const MAX_ARRAY_LEN: u64 = 1 << 16;

/// The length of an array dimension, or why it has none.
pub fn array_len(reg: &Registry, len: &ArrayLen) -> std::result::Result<usize, String> {
    let v = match len {
        ArrayLen::Literal(n) => u64::from(*n),
        ArrayLen::Constant(c) => {
            let k = reg
                .constants
                .get(c)
                .ok_or_else(|| format!("array length `{}` is not a defined constant", clip(c)))?;
            let v = constant_value(reg, c).ok_or_else(|| {
                format!("array length {c} = `{}` is not an integer", clip(&k.value))
            })?;
            u64::try_from(v).map_err(|_| format!("array length {c} = {v} is negative"))?
        }
    };
    if v == 0 || v > MAX_ARRAY_LEN {
        return Err(format!("array length {v} is outside 1..={MAX_ARRAY_LEN}"));
    }
    Ok(v as usize)
}

/// At most 80 characters of `s`, for messages about hostile input.
fn clip(s: &str) -> String {
    match s.char_indices().nth(80) {
        Some((i, _)) => format!("{}…", &s[..i]),
        None => s.to_owned(),
    }
}

/// Where a registry came from, reported to the user.
#[derive(Debug, Clone)]
pub struct Source {
    pub path: PathBuf,
    pub how: &'static str,
}

/// Picks the registry: the explicit path, else `$VKGEN_REGISTRY`, else Debian's vk.xml.
pub fn locate(explicit: Option<&Path>) -> Source {
    if let Some(p) = explicit {
        return Source {
            path: p.to_owned(),
            how: "--registry",
        };
    }
    if let Some(p) = std::env::var_os("VKGEN_REGISTRY") {
        return Source {
            path: PathBuf::from(p),
            how: "$VKGEN_REGISTRY",
        };
    }
    Source {
        path: PathBuf::from(DEBIAN_REGISTRY),
        how: "Debian's libvulkan-dev",
    }
}

pub const DEBIAN_REGISTRY: &str = "/usr/share/vulkan/registry/vk.xml";

/// Enum value helper shared by emitters: the integer an `EnumVal` stands for within its group.
/// Loading rejects alias cycles and chains longer than [`MAX_ALIAS_CHAIN`]; `depth` is the number
/// of aliases already followed.
pub fn enum_value(group: &EnumGroup, v: &EnumVal, depth: u32) -> Option<i64> {
    let mut v = v;
    for _ in (depth as usize)..=MAX_ALIAS_CHAIN {
        match v {
            EnumVal::Value(x) => return Some(*x),
            EnumVal::Bitpos(b) => return 1i64.checked_shl(*b),
            EnumVal::Alias(a) => v = &group.values.iter().find(|x| &x.name == a)?.value,
        }
    }
    None
}
