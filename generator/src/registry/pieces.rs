//! Cutting vk.xml into pieces that roxmltree parses on threads of their own (issue 35).
//!
//! roxmltree's tokenizer is one pass on one thread, and on vk.xml (3.3 MB) it was the longest
//! serial stretch of `vkgen generate`. vk.xml is a flat list of big sections under `<registry>`,
//! so it cuts well: at the start of any child of `<registry>`, and inside `<types>`, `<commands>`
//! and `<extensions>` at the start of any child. Each piece becomes a document of its own: the
//! text before and including the `<registry …>` start tag, the section's start tag again when the
//! piece begins inside a section, the piece's bytes, and the end tags the piece left open.
//! Positions map back by one shift per piece ([`Piece::original`]).
//!
//! The cut is only planned when the scan understands the whole document: one root element,
//! nothing but whitespace, comments and processing instructions around it, no DTD (whose
//! entities a piece would lose), every tag closed. Anything else, and any piece roxmltree
//! refuses, sends the caller back to parsing the document whole, so every error message and
//! position is the one-document parse's.
//!
//! The same scan finds the attribute bomb ([`scan`]): one pass over the markup for both.

use std::ops::Range;

use memchr::memmem;

/// One piece of markup: a tag, comment, CDATA section, processing instruction or declaration.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum Kind {
    Comment,
    Cdata,
    Pi,
    /// `<!DOCTYPE …>` or another `<!` declaration.
    Decl,
    Open {
        empty: bool,
    },
    Close,
}

/// A markup item at `start..end` of the text; `closed` is false when the text ends inside it.
#[derive(Clone, Copy, Debug)]
pub(super) struct Item {
    pub(super) kind: Kind,
    pub(super) start: usize,
    pub(super) end: usize,
    pub(super) closed: bool,
    /// `=` signs outside quoted values (and, in a declaration, inside them too): the attribute
    /// count [`scan`] bounds.
    pub(super) equals: usize,
}

/// The markup items of `text` in order. Text between items is not looked at.
pub(super) fn markup(text: &[u8]) -> impl Iterator<Item = Item> + '_ {
    let mut i = 0;
    std::iter::from_fn(move || {
        let start = i + memchr::memchr(b'<', text.get(i..)?)?;
        let rest = &text[start..];
        let skip_to = |kind, end: &[u8]| match memmem::find(&rest[1..], end) {
            Some(p) => (kind, start + 1 + p + end.len(), true, 0),
            None => (kind, text.len(), false, 0),
        };
        let (kind, end, closed, equals) = if rest.starts_with(b"<!--") {
            skip_to(Kind::Comment, b"-->")
        } else if rest.starts_with(b"<![CDATA[") {
            skip_to(Kind::Cdata, b"]]>")
        } else if rest.starts_with(b"<?") {
            skip_to(Kind::Pi, b"?>")
        } else {
            tag(text, start)
        };
        i = end;
        Some(Item {
            kind,
            start,
            end,
            closed,
            equals,
        })
    })
}

/// The tag or declaration at `start`: up to the first `>` outside quoted values (and, in a
/// `<!DOCTYPE … [ … ]>`, outside the brackets).
fn tag(text: &[u8], start: usize) -> (Kind, usize, bool, usize) {
    let decl = text.get(start + 1) == Some(&b'!');
    let kind = match text.get(start + 1) {
        Some(b'!') => Kind::Decl,
        Some(b'/') => Kind::Close,
        _ => Kind::Open { empty: false },
    };
    let (mut depth, mut equals) = (0usize, 0usize);
    let mut j = start + 1;
    while j < text.len() {
        match text[j] {
            q @ (b'"' | b'\'') => {
                let value = &text[j + 1..];
                let len = memchr::memchr(q, value);
                if decl {
                    // Entity values may hold markup with attributes.
                    let value = &value[..len.unwrap_or(value.len())];
                    equals += memchr::memchr_iter(b'=', value).count();
                }
                let Some(len) = len else {
                    return (kind, text.len(), false, equals);
                };
                j += len + 1;
            }
            b'[' => depth += 1,
            b']' => depth = depth.saturating_sub(1),
            b'=' => equals += 1,
            b'>' if depth == 0 => {
                let kind = match kind {
                    Kind::Open { .. } => Kind::Open {
                        empty: text[j - 1] == b'/' && j - 1 > start + 1,
                    },
                    k => k,
                };
                return (kind, j + 1, true, equals);
            }
            _ => {}
        }
        j += 1;
    }
    (kind, text.len(), false, equals)
}

/// The name of the tag at `item` (`<name …` or `</name …`).
fn name(text: &[u8], item: &Item) -> Range<usize> {
    let from = item.start + if item.kind == Kind::Close { 2 } else { 1 };
    let len = text[from..item.end]
        .iter()
        .position(|&b| b.is_ascii_whitespace() || b == b'/' || b == b'>')
        .unwrap_or(item.end - from);
    from..from + len
}

/// XML's whitespace (`S`): space, tab, CR, LF — not form feed, which `is_ascii_whitespace`
/// also takes and roxmltree refuses outside the root, where no piece would see it.
fn is_xml_space(b: &u8) -> bool {
    matches!(b, b' ' | b'\t' | b'\n' | b'\r')
}

/// The sections whose children a cut may fall between.
const SPLIT_INSIDE: &[&[u8]] = &[b"types", b"commands", b"extensions"];

/// A place the document may be cut: before byte `at`, inside the section whose start tag is
/// `inside` (`None`: between children of the root).
#[derive(Clone, Debug)]
struct Cut {
    at: usize,
    inside: Option<Section>,
}

/// A section of the root: its start tag and its name.
#[derive(Clone, Debug)]
struct Section {
    tag: Range<usize>,
    name: Range<usize>,
}

/// How a document is cut: the head every piece starts with, the root's name, and the pieces.
#[derive(Debug)]
pub(super) struct Plan {
    head: Range<usize>,
    root: Range<usize>,
    spans: Vec<(Cut, Cut)>,
}

/// One piece as a document of its own.
pub(super) struct Piece {
    pub(super) text: String,
    /// Bytes of `text` before the piece's own bytes (the head and any section start tag).
    prefix: usize,
    /// Where the piece's own bytes start in the original text.
    start: usize,
}

impl Piece {
    /// The original text's offset of `at`, an offset in this piece's text after its prefix.
    /// Offsets inside the prefix (the root and a repeated section start tag) map to the
    /// piece's start.
    pub(super) fn original(&self, at: usize) -> usize {
        at.saturating_sub(self.prefix) + self.start
    }
}

/// The first tag with more than [`super::text::MAX_ATTRIBUTES`] attributes, and a plan that cuts
/// `text` into about `pieces` pieces (`None`: parse it whole).
///
/// The bomb: roxmltree checks each new attribute against all earlier ones of its element, so an
/// element with 100,000 attributes takes minutes to parse; attributes are counted as `=` outside
/// quoted values, and a DTD's internal subset counts as one tag, since the entities it declares
/// may expand to elements. Malformed text is left to roxmltree.
pub(super) fn scan(text: &[u8], pieces: usize) -> (Option<usize>, Option<Plan>) {
    let mut planner = Planner::default();
    let mut planning = pieces > 1;
    let mut bomb = None;
    let mut last_end = 0;
    for item in markup(text) {
        if item.equals > super::text::MAX_ATTRIBUTES {
            bomb = Some(item.start);
            break;
        }
        if planning {
            planning = planner.step(text, &item, last_end).is_some();
            last_end = item.end;
        }
        if !item.closed {
            planning = false;
        }
    }
    let plan = match (planning, bomb) {
        (true, None) => planner.finish(text, last_end, pieces),
        _ => None,
    };
    (bomb, plan)
}

/// The scan's state while planning.
#[derive(Default)]
struct Planner {
    depth: usize,
    head: Option<Range<usize>>,
    root: Option<Range<usize>>,
    /// Where `</root>` starts, once seen.
    root_close: Option<usize>,
    section: Option<Section>,
    cuts: Vec<Cut>,
}

impl Planner {
    /// Takes `item` (the previous one ended at `last_end`); `None` when the document is not one
    /// this plan can cut.
    fn step(&mut self, text: &[u8], item: &Item, last_end: usize) -> Option<()> {
        if self.depth == 0 && !text[last_end..item.start].iter().all(is_xml_space) {
            return None;
        }
        match item.kind {
            Kind::Comment | Kind::Pi => {}
            Kind::Decl => return None,
            Kind::Cdata => (self.depth > 0).then_some(())?,
            Kind::Open { empty } => {
                match self.depth {
                    0 if self.root.is_none() && !empty => {
                        self.head = Some(0..item.end);
                        self.root = Some(name(text, item));
                    }
                    0 => return None,
                    1 => {
                        self.cuts.push(Cut {
                            at: item.start,
                            inside: None,
                        });
                        let n = name(text, item);
                        self.section = (!empty && SPLIT_INSIDE.contains(&&text[n.clone()]))
                            .then_some(Section {
                                tag: item.start..item.end,
                                name: n,
                            });
                    }
                    2 => {
                        if let Some(section) = &self.section {
                            self.cuts.push(Cut {
                                at: item.start,
                                inside: Some(section.clone()),
                            });
                        }
                    }
                    _ => {}
                }
                if !empty {
                    self.depth += 1;
                }
            }
            Kind::Close => {
                self.depth = self.depth.checked_sub(1)?;
                match self.depth {
                    0 => {
                        let root = self.root.clone()?;
                        let own = &text[name(text, item)];
                        (own == &text[root] && self.root_close.is_none()).then_some(())?;
                        self.root_close = Some(item.start);
                    }
                    1 => self.section = None,
                    _ => {}
                }
            }
        }
        Some(())
    }

    /// The plan, once every item is taken and the text after the last one (from `last_end`)
    /// is known to be whitespace.
    fn finish(self, text: &[u8], last_end: usize, pieces: usize) -> Option<Plan> {
        let (head, root, close) = (self.head?, self.root?, self.root_close?);
        if self.depth != 0 || !text[last_end..].iter().all(is_xml_space) {
            return None;
        }
        let target = (close - head.end) / pieces;
        let mut from = Cut {
            at: head.end,
            inside: None,
        };
        let mut spans = Vec::with_capacity(pieces);
        for cut in self.cuts {
            if cut.at - from.at >= target && close - cut.at >= target / 2 {
                spans.push((std::mem::replace(&mut from, cut.clone()), cut));
            }
        }
        let end = Cut {
            at: close,
            inside: None,
        };
        spans.push((from, end));
        (spans.len() > 1).then_some(Plan { head, root, spans })
    }
}

impl Plan {
    /// The pieces' texts, in document order.
    pub(super) fn pieces(&self, text: &str) -> Vec<Piece> {
        let head = &text[self.head.clone()];
        let root = &text[self.root.clone()];
        self.spans
            .iter()
            .map(|(from, to)| {
                let open = from.inside.as_ref().map_or("", |s| &text[s.tag.clone()]);
                let own = &text[from.at..to.at];
                let close = to.inside.as_ref().map_or("", |s| &text[s.name.clone()]);
                let mut piece = String::with_capacity(head.len() + open.len() + own.len() + 32);
                piece.push_str(head);
                piece.push_str(open);
                piece.push_str(own);
                if !close.is_empty() {
                    piece.push_str("</");
                    piece.push_str(close);
                    piece.push('>');
                }
                piece.push_str("</");
                piece.push_str(root);
                piece.push('>');
                Piece {
                    text: piece,
                    prefix: head.len() + open.len(),
                    start: from.at,
                }
            })
            .collect()
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    const DOC: &str = "<?xml version=\"1.0\"?>\n<!-- a <b> c -->\n<registry a='>'>\n\
        <comment>x</comment>\n<types c=\"1\"><type name=\"a\"/><type name=\"b\">t</type>\
        <!-- <type> --><type name=\"c\"/></types>\n<enums name=\"e\"><enum/></enums>\n\
        <commands><command><![CDATA[ </commands> ]]></command><command/></commands>\n\
        </registry>\n<?pi x?>\n";

    #[test]
    fn cuts_rebuild_documents_of_the_same_elements() {
        for n in 2..8 {
            let (bomb, plan) = scan(DOC.as_bytes(), n);
            assert_eq!(bomb, None);
            let plan = plan.expect("cuttable");
            let pieces = plan.pieces(DOC);
            assert!(pieces.len() > 1, "{n}: {plan:?}");
            let mut names = Vec::new();
            for p in &pieces {
                let doc = roxmltree::Document::parse(&p.text)
                    .unwrap_or_else(|e| panic!("{n}: {e}\n{}", p.text));
                for e in doc.descendants().filter(|e| e.has_attribute("name")) {
                    let at = p.original(e.range().start);
                    assert!(DOC[at..].starts_with(&p.text[e.range().start..e.range().end]));
                    names.push(e.attribute("name").unwrap().to_owned());
                }
            }
            assert_eq!(names, ["a", "b", "c", "e"], "{n}");
        }
    }

    #[test]
    fn attribute_bomb_is_found_in_one_pass() {
        let many: String = (0..=super::super::text::MAX_ATTRIBUTES)
            .map(|i| format!(" a{i}='='"))
            .collect();
        let text = format!("<?xml version=\"1.0\"?><!-- a=b --><r x=\"1\"><e{many}/></r>");
        assert_eq!(scan(text.as_bytes(), 1).0, text.find("<e"));
        let few: String = (0..super::super::text::MAX_ATTRIBUTES)
            .map(|i| format!(" a{i}=\">\""))
            .collect();
        assert_eq!(scan(format!("<r{few}/>").as_bytes(), 4).0, None);
        let entity = format!(
            "<!DOCTYPE r [<!ENTITY e '<x{}/>'>]><r/>",
            " a=''".repeat(300)
        );
        assert_eq!(scan(entity.as_bytes(), 1).0, Some(0));
    }

    #[test]
    fn what_a_piece_could_change_is_parsed_whole() {
        for doc in [
            "<!DOCTYPE r [<!ENTITY e '<x/>'>]><r><a/><b/></r>",
            "<r><a/><b/></r><r/>",
            "<r><a/><b/></r>text",
            "<r><a/><b/></r>\x0c",
            "text<r><a/><b/></r>",
            "<r><a/><b/></s>",
            "<r><a/><b/>",
            "<r><a/><b x='1/>",
            "<r/>",
        ] {
            assert!(scan(doc.as_bytes(), 4).1.is_none(), "{doc}");
        }
        assert!(scan(b"<r><a/><b/><c/></r>", 2).1.is_some());
    }
}
