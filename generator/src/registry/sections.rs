//! Results of elements parsed ahead of the fold that orders them: `parse::parse_str` reads
//! vk.xml's big sections — `<types>`, `<commands>`, `<extensions>`, and the `<feature>` and
//! `<enums>` elements — on threads (each piece of a cut document, `pieces.rs`, on its own; a
//! document parsed whole, one thread per section), then takes their results one element at a
//! time in document order. Building the model from the tree was half of parsing on one thread.
//!
//! The fold still decides everything (duplicates, the order of errors, where warnings go): a
//! section's parse stops at its first error, and each element's warnings travel with its result,
//! so the output, errors and warnings equal a one-thread parse's.

use roxmltree::Node;

use crate::error::Result;
use crate::model::{Constant, EnumGroup};

/// An `<enums>` element as read ahead of the fold.
pub(super) enum Enums {
    /// The API constants, up to and including the first that cannot be read.
    Constants(Vec<Result<Constant>>),
    Group(EnumGroup),
}

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

/// Parses `nodes` in order, stopping after the first error (the fold stops there too).
pub(super) fn ahead<'a, 'i: 'a, T>(
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
