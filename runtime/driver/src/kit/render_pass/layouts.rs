//! Attachment layout transitions as image memory barriers (Mesa's `transition_image_range` and
//! `stage_access_for_layout`). A render pass never says which stages touched an attachment
//! before or will after, so each side of a transition takes every stage and access its layout
//! allows (the "big hammer" Mesa uses): a depth/stencil layout covers both fragment-test
//! stages, a writable one also the transfer write a resolve is, an input-attachment layout
//! the fragment shader's input read; `UNDEFINED` covers nothing.

use vkgen_generated::vk;

type A = vk::ImageAspectFlags;
type L = vk::ImageLayout;
type S = vk::PipelineStageFlags2;
type X = vk::AccessFlags2;

/// Whether `layout` allows only reads of `aspect` (Mesa's `vk_image_layout_is_read_only`;
/// `UNDEFINED` and `PREINITIALIZED` count as read-only: nothing writes through them).
fn is_read_only(layout: L, aspect: A) -> bool {
    match layout {
        L::UNDEFINED
        | L::PREINITIALIZED
        | L::DEPTH_STENCIL_READ_ONLY_OPTIMAL
        | L::SHADER_READ_ONLY_OPTIMAL
        | L::TRANSFER_SRC_OPTIMAL
        | L::PRESENT_SRC_KHR
        | L::READ_ONLY_OPTIMAL
        | L::DEPTH_READ_ONLY_OPTIMAL
        | L::STENCIL_READ_ONLY_OPTIMAL => true,
        L::DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL => aspect == A::DEPTH,
        L::DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL => aspect == A::STENCIL,
        _ => false,
    }
}

fn supports_input_attachment(layout: L) -> bool {
    matches!(
        layout,
        L::GENERAL
            | L::DEPTH_STENCIL_READ_ONLY_OPTIMAL
            | L::SHADER_READ_ONLY_OPTIMAL
            | L::DEPTH_READ_ONLY_STENCIL_ATTACHMENT_OPTIMAL
            | L::DEPTH_ATTACHMENT_STENCIL_READ_ONLY_OPTIMAL
            | L::DEPTH_READ_ONLY_OPTIMAL
            | L::STENCIL_READ_ONLY_OPTIMAL
            | L::SHARED_PRESENT_KHR
    )
}

/// Every stage and access an attachment of `aspects` may see in `layout`.
pub fn stage_access(layout: L, aspects: A) -> (S, X) {
    let (mut stages, mut access) = (S::NONE, X::NONE);
    if supports_input_attachment(layout) {
        stages |= S::FRAGMENT_SHADER;
        access |= X::INPUT_ATTACHMENT_READ;
    }
    let writable = [A::COLOR, A::DEPTH, A::STENCIL]
        .into_iter()
        .any(|aspect| aspects.contains(aspect) && !is_read_only(layout, aspect));
    if aspects.intersects(A::DEPTH | A::STENCIL) {
        stages |= S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS;
        access |= X::DEPTH_STENCIL_ATTACHMENT_READ;
        if writable {
            stages |= S::TRANSFER;
            access |= X::DEPTH_STENCIL_ATTACHMENT_WRITE | X::TRANSFER_WRITE;
        }
    } else if writable {
        stages |= S::COLOR_ATTACHMENT_OUTPUT | S::TRANSFER;
        access |= X::COLOR_ATTACHMENT_READ | X::COLOR_ATTACHMENT_WRITE | X::TRANSFER_WRITE;
    }
    (stages, access)
}

/// One layout pair per aspect: the depth (or colour) layout and the stencil one.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Layouts {
    pub layout: L,
    pub stencil: L,
}

/// The barriers that take `range` of `image` from `old` to `new`: one for all its aspects, or
/// two (depth, then stencil) when the depth and stencil layouts differ on either side; none
/// for an aspect whose layout does not change.
pub fn transition(
    image: vk::Image,
    range: vk::ImageSubresourceRange,
    old: Layouts,
    new: Layouts,
    out: &mut Vec<vk::ImageMemoryBarrier2<'static>>,
) {
    let mut left = range.aspect_mask;
    while !left.is_empty() {
        let mut aspects = left;
        let both = A::DEPTH | A::STENCIL;
        if aspects == both && (old.layout != old.stencil || new.layout != new.stencil) {
            aspects = A::DEPTH;
        }
        let (from, to) = if aspects == A::STENCIL {
            (old.stencil, new.stencil)
        } else {
            (old.layout, new.layout)
        };
        if from != to {
            let (src_stage_mask, src_access_mask) = stage_access(from, aspects);
            let (dst_stage_mask, dst_access_mask) = stage_access(to, aspects);
            out.push(vk::ImageMemoryBarrier2 {
                src_stage_mask,
                src_access_mask,
                dst_stage_mask,
                dst_access_mask,
                old_layout: from,
                new_layout: to,
                src_queue_family_index: vk::QUEUE_FAMILY_IGNORED,
                dst_queue_family_index: vk::QUEUE_FAMILY_IGNORED,
                image,
                subresource_range: vk::ImageSubresourceRange {
                    aspect_mask: aspects,
                    ..range
                },
                ..Default::default()
            });
        }
        left &= !aspects;
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn separate_stencil_layouts_split_the_barrier() {
        let range = vk::ImageSubresourceRange {
            aspect_mask: A::DEPTH | A::STENCIL,
            level_count: 1,
            layer_count: 1,
            ..Default::default()
        };
        let mut out = Vec::new();
        let old = Layouts {
            layout: L::UNDEFINED,
            stencil: L::UNDEFINED,
        };
        let new = Layouts {
            layout: L::DEPTH_ATTACHMENT_OPTIMAL,
            stencil: L::STENCIL_READ_ONLY_OPTIMAL,
        };
        transition(vk::Image::null(), range, old, new, &mut out);
        assert_eq!(out.len(), 2);
        assert_eq!(out[0].subresource_range.aspect_mask, A::DEPTH);
        assert_eq!(out[0].new_layout, L::DEPTH_ATTACHMENT_OPTIMAL);
        assert_eq!(out[1].subresource_range.aspect_mask, A::STENCIL);
        assert_eq!(out[1].new_layout, L::STENCIL_READ_ONLY_OPTIMAL);
        // From UNDEFINED nothing was written: the test stages' reads only.
        assert_eq!(
            (out[0].src_stage_mask, out[0].src_access_mask),
            (
                S::EARLY_FRAGMENT_TESTS | S::LATE_FRAGMENT_TESTS,
                X::DEPTH_STENCIL_ATTACHMENT_READ
            )
        );
        // Same layouts on both sides: one barrier for both aspects, none when nothing changes.
        out.clear();
        let ds = Layouts {
            layout: L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
            stencil: L::DEPTH_STENCIL_ATTACHMENT_OPTIMAL,
        };
        transition(vk::Image::null(), range, old, ds, &mut out);
        assert_eq!(out.len(), 1);
        transition(vk::Image::null(), range, ds, ds, &mut out);
        assert_eq!(out.len(), 1);
    }

    #[test]
    fn colour_layouts_name_their_stages() {
        let (s, a) = stage_access(L::COLOR_ATTACHMENT_OPTIMAL, A::COLOR);
        assert!(s.contains(S::COLOR_ATTACHMENT_OUTPUT) && a.contains(X::COLOR_ATTACHMENT_WRITE));
        let (s, a) = stage_access(L::SHADER_READ_ONLY_OPTIMAL, A::COLOR);
        assert_eq!((s, a), (S::FRAGMENT_SHADER, X::INPUT_ATTACHMENT_READ));
    }
}
