//! `<require>` blocks' `<feature name="…" struct="…"/>` entries: the device features a core
//! version or an extension makes mandatory (vk.xml lists them since 1.3.2xx; older registries have
//! none, and their blocks get an empty list).

use roxmltree::Node;

use super::parse::{api_list, api_matches};
use crate::model::Require;

/// A `Require` for block `r` with its condition, `api=` list and required features; the caller
/// adds the types, commands and enums.
pub(super) fn require_block(depends: Option<String>, r: Node) -> Require {
    let features = r
        .children()
        .filter(|n| n.is_element() && n.tag_name().name() == "feature" && api_matches(*n))
        .filter_map(|n| {
            Some((
                n.attribute("struct")?.to_owned(),
                n.attribute("name")?.to_owned(),
            ))
        })
        .collect();
    Require {
        depends,
        api: api_list(r),
        features,
        ..Default::default()
    }
}
