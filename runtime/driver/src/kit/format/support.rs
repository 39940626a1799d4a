//! The formats a device declares and their features: [`FormatSupport`], kept in the device
//! description ([`crate::kit::PhysicalDeviceDesc::formats`]) and answered by the default
//! [`crate::kit::Kit::format_properties`]. A format the description does not list has no
//! features (`vkGetPhysicalDeviceFormatProperties` zeroes), so a vendor whose engine handles
//! eight formats lists eight, and the requirements report ([`unrunnable`]) names features
//! advertised on commands the engine does not run.
//!
//! The default ([`FormatSupport::kit_default`]) is what the kit advertised before a device
//! could declare anything: every uncompressed single-plane format of Vulkan 1.0 plus the two
//! 16-bit A4 formats, sampled, blit and transfer everywhere, colour formats as storage,
//! attachments, blend and texel buffers, depth/stencil formats as depth attachments. It holds
//! every format the spec's "Required Format Support" tables make mandatory for 1.0–1.4 with
//! at least their mandatory features, and passes `vulkaninfo`; it is a superset of the
//! mandatory set, not the mandatory set itself (see the report in the session notes).

use vkgen_generated::vk;

use super::rows::info;

/// Declared formats, sorted by value, each with its `VkFormatProperties`.
#[derive(Clone, Debug, Default)]
pub struct FormatSupport {
    entries: Vec<(vk::Format, vk::FormatProperties)>,
}

impl FormatSupport {
    /// No format at all.
    pub fn none() -> Self {
        Self::default()
    }

    /// The kit's default device (module docs).
    pub fn kit_default() -> Self {
        let mut s = Self::none();
        for raw in (1..=130).chain([
            vk::Format::A4R4G4B4_UNORM_PACK16.as_raw(),
            vk::Format::A4B4G4R4_UNORM_PACK16.as_raw(),
        ]) {
            let f = vk::Format::from_raw(raw);
            s.set(f, default_properties(f));
        }
        s
    }

    /// Declares `format` with `properties` (replacing an earlier declaration); an empty
    /// `properties` removes it.
    pub fn set(&mut self, format: vk::Format, properties: vk::FormatProperties) {
        let at = self
            .entries
            .binary_search_by_key(&format.as_raw(), |(f, _)| f.as_raw());
        let empty = is_empty(&properties);
        match (at, empty) {
            (Ok(i), true) => {
                let _ = self.entries.remove(i);
            }
            (Ok(i), false) => self.entries[i].1 = properties,
            (Err(i), false) => self.entries.insert(i, (format, properties)),
            (Err(_), true) => {}
        }
    }

    /// What `format` is declared with; nothing for a format not declared.
    pub fn get(&self, format: vk::Format) -> vk::FormatProperties {
        self.entries
            .binary_search_by_key(&format.as_raw(), |(f, _)| f.as_raw())
            .map(|i| self.entries[i].1)
            .unwrap_or_default()
    }

    /// Keeps only the formats `keep` accepts (a vendor's "these eight").
    pub fn retain(&mut self, mut keep: impl FnMut(vk::Format) -> bool) {
        self.entries.retain(|(f, _)| keep(*f));
    }

    /// Removes `features` from every declared format's every tiling and its buffer features
    /// (e.g. `BLIT_SRC | BLIT_DST` for an engine without blits); formats left with nothing
    /// are dropped.
    pub fn without(&mut self, features: vk::FormatFeatureFlags) {
        for (_, p) in &mut self.entries {
            p.linear_tiling_features &= !features;
            p.optimal_tiling_features &= !features;
            p.buffer_features &= !features;
        }
        self.entries.retain(|(_, p)| !is_empty(p));
    }

    /// The declared formats in value order.
    pub fn iter(&self) -> impl Iterator<Item = (vk::Format, vk::FormatProperties)> + '_ {
        self.entries.iter().copied()
    }
}

/// Whether `p` advertises nothing.
pub fn is_empty(p: &vk::FormatProperties) -> bool {
    (p.linear_tiling_features | p.optimal_tiling_features | p.buffer_features).is_empty()
}

fn is_depth_stencil(format: vk::Format) -> bool {
    info(format).is_some_and(|f| f.is_depth_stencil())
}

/// The kit default's features for one format it declares.
fn default_properties(format: vk::Format) -> vk::FormatProperties {
    use vk::FormatFeatureFlags as F;
    let common = F::SAMPLED_IMAGE | F::BLIT_SRC | F::TRANSFER_SRC | F::TRANSFER_DST;
    let ds = is_depth_stencil(format);
    let image = if ds {
        common | F::DEPTH_STENCIL_ATTACHMENT
    } else {
        common
            | F::STORAGE_IMAGE
            | F::COLOR_ATTACHMENT
            | F::COLOR_ATTACHMENT_BLEND
            | F::BLIT_DST
            | F::SAMPLED_IMAGE_FILTER_LINEAR
    };
    let buffer = if ds {
        F::empty()
    } else {
        F::UNIFORM_TEXEL_BUFFER | F::STORAGE_TEXEL_BUFFER | F::VERTEX_BUFFER
    };
    vk::FormatProperties {
        linear_tiling_features: image,
        optimal_tiling_features: image,
        buffer_features: buffer,
    }
}

/// Which engine commands a format feature needs: the feature, and the commands of which the
/// engine must run at least one (either form of a command with a `…2` twin).
pub const FEATURE_COMMANDS: &[(vk::FormatFeatureFlags, &str, &[&str])] = &[
    (
        vk::FormatFeatureFlags::TRANSFER_SRC,
        "TRANSFER_SRC",
        &["vkCmdCopyImageToBuffer", "vkCmdCopyImageToBuffer2"],
    ),
    (
        vk::FormatFeatureFlags::TRANSFER_DST,
        "TRANSFER_DST",
        &["vkCmdCopyBufferToImage", "vkCmdCopyBufferToImage2"],
    ),
    (
        vk::FormatFeatureFlags::TRANSFER_DST,
        "TRANSFER_DST (clears)",
        &["vkCmdClearColorImage", "vkCmdClearDepthStencilImage"],
    ),
    (
        vk::FormatFeatureFlags::BLIT_SRC,
        "BLIT_SRC",
        &["vkCmdBlitImage", "vkCmdBlitImage2"],
    ),
    (
        vk::FormatFeatureFlags::BLIT_DST,
        "BLIT_DST",
        &["vkCmdBlitImage", "vkCmdBlitImage2"],
    ),
    (
        vk::FormatFeatureFlags::COLOR_ATTACHMENT,
        "COLOR_ATTACHMENT",
        &[
            "vkCmdBeginRendering",
            "vkCmdBeginRenderPass",
            "vkCmdBeginRenderPass2",
        ],
    ),
    (
        vk::FormatFeatureFlags::DEPTH_STENCIL_ATTACHMENT,
        "DEPTH_STENCIL_ATTACHMENT",
        &[
            "vkCmdBeginRendering",
            "vkCmdBeginRenderPass",
            "vkCmdBeginRenderPass2",
        ],
    ),
    (
        vk::FormatFeatureFlags::STORAGE_IMAGE,
        "STORAGE_IMAGE",
        &["vkCmdDispatch", "vkCmdDraw"],
    ),
    (
        vk::FormatFeatureFlags::SAMPLED_IMAGE,
        "SAMPLED_IMAGE",
        &["vkCmdDispatch", "vkCmdDraw"],
    ),
    (
        vk::FormatFeatureFlags::VERTEX_BUFFER,
        "VERTEX_BUFFER",
        &["vkCmdDraw"],
    ),
];

/// One format feature advertised on formats whose commands no engine path runs.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Unrunnable {
    pub feature: &'static str,
    /// The commands of which the engine runs none.
    pub commands: &'static [&'static str],
    /// How many formats advertise it, and the first few of them.
    pub count: usize,
    pub examples: Vec<&'static str>,
}

/// The features `advertised` (every format's answer) claims on formats for which `runs` —
/// whether the driver runs a command, by name, on images of a format — holds for none of the
/// commands the feature needs. (A command the engine runs serves every format; one the kit
/// runs for it, [`crate::kit::transfer`], only those it can lay out.)
pub fn unrunnable(
    advertised: impl IntoIterator<Item = (vk::Format, vk::FormatProperties)>,
    runs: impl Fn(&str, vk::Format) -> bool,
) -> Vec<Unrunnable> {
    let advertised: Vec<_> = advertised.into_iter().collect();
    let mut out = Vec::new();
    for &(flag, feature, commands) in FEATURE_COMMANDS {
        let formats: Vec<&'static str> = advertised
            .iter()
            .filter(|(f, p)| {
                (p.linear_tiling_features | p.optimal_tiling_features | p.buffer_features)
                    .contains(flag)
                    && !commands.iter().any(|c| runs(c, *f))
            })
            .map(|(f, _)| info(*f).map_or("a format the table lacks", |i| i.name))
            .collect();
        if !formats.is_empty() {
            out.push(Unrunnable {
                feature,
                commands,
                count: formats.len(),
                examples: formats.into_iter().take(3).collect(),
            });
        }
    }
    out
}
