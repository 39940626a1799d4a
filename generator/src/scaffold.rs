//! `vkgen driver`: a standalone driver crate for vendors (filled in below).
