//! Cross-checks: requirements that relate two values of a description, which no single table
//! row can state.
//!
//! * **Feature-dependent limits.** A supported feature makes some limits non-zero
//!   (`samplerAnisotropy` → `maxSamplerAnisotropy` ≥ 16, a line-rasterization feature →
//!   `lineSubPixelPrecisionBits` ≥ 4, `vertexAttributeInstanceRateDivisor` →
//!   `maxVertexAttribDivisor` ≥ 2¹⁶−1, …). They are the rows of `REQUIRED_LIMITS` with
//!   `features`, generated from `registry/limits/feature_limits.json` (the specification's
//!   "Required Limit Types" and "Required Limits" tables: neither vk.xml nor Vulkan-Profiles
//!   records the pairing). [`with_feature_limits`] raises them for the features a description
//!   turns on, as `with_required_limits` does for the version's.
//! * **Timestamps.** `timestampComputeAndGraphics` (Vulkan 1.4's profile minimum) promises
//!   timestamps on every graphics and compute queue: such a family must report 36–64
//!   `timestampValidBits` (the spec's range; 0 means none), and a device with any timestamps a
//!   `timestampPeriod` above 0.
//! * **`driverID`** must be one of the registry's `VkDriverId` values wherever the application
//!   can read it (Vulkan 1.2, or `VK_KHR_driver_properties`): 0 is none.

use vkgen_generated::extensions::ExtensionId;
use vkgen_generated::features::{RequiredLimit, DRIVER_IDS, REQUIRED_LIMITS};
use vkgen_generated::vk;

use super::finding::{Have, Missing};
use crate::kit::extensions::ExtensionSet;
use crate::kit::tables::{Features, Properties};

/// The feature rows of `REQUIRED_LIMITS` that apply with `features` on (any of a row's).
fn applicable(features: &Features) -> impl Iterator<Item = &'static RequiredLimit> + '_ {
    REQUIRED_LIMITS
        .iter()
        .filter(move |l| l.features.iter().any(|f| features.get(f).unwrap_or(false)))
}

/// `properties` with every limit a feature of `features` requires moved just far enough to
/// meet it; limits already better are kept.
pub fn with_feature_limits(properties: Properties, features: &Features) -> Properties {
    let mut p = properties;
    for l in applicable(features) {
        if !(l.met)(&p) {
            (l.raise)(&mut p);
        }
    }
    p
}

/// The feature-dependent limits `properties` misses with `features` on.
pub(super) fn feature_limits_missed(properties: &Properties, features: &Features) -> Vec<Missing> {
    applicable(features)
        .filter(|l| !(l.met)(properties))
        .map(|l| Missing::Limit {
            limit: l.limit,
            by: l.by,
            kind: l.kind,
            required: l.required,
            have: Have(l, properties).to_string(),
        })
        .collect()
}

/// Whether `id` is a `VkDriverId` of the registry the tables were generated from.
pub fn is_driver_id(id: vk::DriverId) -> bool {
    DRIVER_IDS.iter().any(|&(_, v)| v == id.as_raw())
}

/// [`Missing::DriverId`] when the application can read `driverID` and it is no `VkDriverId`.
pub(super) fn driver_id_missed(properties: &Properties, exts: &ExtensionSet) -> Option<Missing> {
    let visible = properties.api_version >= vk::API_VERSION_1_2
        || exts.contains(ExtensionId::KHR_DRIVER_PROPERTIES);
    (visible && !is_driver_id(properties.driver_id)).then(|| Missing::DriverId {
        have: properties.driver_id.as_raw(),
    })
}

/// The spec's range of meaningful timestamp bits (`timestampValidBits`), 0 aside.
const VALID_BITS: std::ops::RangeInclusive<u32> = 36..=64;

/// The checks that need the queue families: timestamps (module notes). Empty when they agree.
pub fn cross_check(
    properties: &Properties,
    queue_families: &[vk::QueueFamilyProperties],
) -> Vec<Missing> {
    let mut out = Vec::new();
    let everywhere = properties.timestamp_compute_and_graphics;
    for (i, q) in queue_families.iter().enumerate() {
        let family = Some(i as u32);
        let bits = q.timestamp_valid_bits;
        let shader_queue = q
            .queue_flags
            .intersects(vk::QueueFlags::GRAPHICS | vk::QueueFlags::COMPUTE);
        if bits != 0 && !VALID_BITS.contains(&bits) {
            out.push(Missing::Timestamps {
                family,
                detail: format!(
                    "queue family {i} reports {bits} timestampValidBits (0, or 36 to 64)"
                ),
            });
        } else if bits == 0 && everywhere && shader_queue {
            out.push(Missing::Timestamps {
                family,
                detail: format!(
                    "timestampComputeAndGraphics is on but graphics/compute queue family {i} \
                     reports 0 timestampValidBits (set e.g. 64)"
                ),
            });
        }
    }
    let any = everywhere || queue_families.iter().any(|q| q.timestamp_valid_bits != 0);
    if any && properties.timestamp_period.partial_cmp(&0.0) != Some(std::cmp::Ordering::Greater) {
        out.push(Missing::Timestamps {
            family: None,
            detail: format!(
                "the device has timestamps but timestampPeriod is {} (nanoseconds per tick, > 0)",
                properties.timestamp_period
            ),
        });
    }
    out
}
