//! Comparing registry definitions: a name defined twice is accepted when both definitions are
//! the same once where they were written is left out (vk.xml and the overlay, or two
//! `<require>` blocks, repeating one definition).

/// Whether two definitions are the same once `strip` has cleared where each was written.
pub(super) fn same<T: Clone + PartialEq>(a: &T, b: &T, strip: impl Fn(&mut T)) -> bool {
    let (mut a, mut b) = (a.clone(), b.clone());
    strip(&mut a);
    strip(&mut b);
    a == b
}
