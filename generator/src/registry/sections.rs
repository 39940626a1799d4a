//! vk.xml's three big sections — `<types>`, `<commands>`, `<extensions>` — parsed on threads of
//! their own ahead of `parse::parse_str`'s fold, which takes their results one element at a time
//! in document order. Building the model from the tree was half of parsing on one thread.
//!
//! The fold still decides everything (duplicates, the order of errors, where warnings go): a
//! section's parse stops at its first error, and each element's warnings travel with its result,
//! so the output, errors and warnings equal a one-thread parse's.

use roxmltree::Node;

use super::parse::{api_matches, Cx};
use crate::error::Result;
use crate::model::{Command, Extension, Type};

/// One section's results, in the order its elements come.
pub(super) struct Parsed<T> {
    items: std::vec::IntoIter<(Result<T>, Vec<String>)>,
}

impl<T> Parsed<T> {
    /// The next element's result, its warnings appended to `warnings`; `None` past the end.
    pub(super) fn next(&mut self, warnings: &mut Vec<String>) -> Option<Result<T>> {
        let (result, mut w) = self.items.next()?;
        warnings.append(&mut w);
        Some(result)
    }
}

pub(super) struct Sections {
    pub(super) types: Parsed<Type>,
    pub(super) commands: Parsed<Command>,
    pub(super) extensions: Parsed<Extension>,
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

/// Parses the three sections under `root`, two of them on scoped threads.
pub(super) fn parse_ahead(cx: &Cx, root: Node) -> Sections {
    let sections = move |name: &'static str| {
        root.children()
            .filter(move |c| c.is_element() && c.tag_name().name() == name)
    };
    std::thread::scope(|s| {
        let types = s.spawn(|| {
            ahead(sections("types").flat_map(type_elements), |t, w| {
                cx.parse_type(t, w)
            })
        });
        let commands = s.spawn(|| {
            ahead(sections("commands").flat_map(command_elements), |c, _| {
                cx.parse_command(c)
            })
        });
        let extensions = ahead(
            sections("extensions").flat_map(extension_elements),
            |e, w| cx.parse_extension(e, w),
        );
        Sections {
            types: types
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            commands: commands
                .join()
                .unwrap_or_else(|e| std::panic::resume_unwind(e)),
            extensions,
        }
    })
}

fn ahead<'a, 'i: 'a, T>(
    nodes: impl Iterator<Item = Node<'a, 'i>>,
    parse: impl Fn(Node<'a, 'i>, &mut Vec<String>) -> Result<T>,
) -> Parsed<T> {
    let mut items = Vec::new();
    for n in nodes {
        let mut w = Vec::new();
        let result = parse(n, &mut w);
        let failed = result.is_err();
        items.push((result, w));
        if failed {
            break;
        }
    }
    Parsed {
        items: items.into_iter(),
    }
}
