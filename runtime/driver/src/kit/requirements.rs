//! What the registry and the specification require of a device of a version: the features vk.xml
//! marks as required (`<require><feature …/>`, generated as
//! [`REQUIRED_FEATURES`](crate::generated::features::REQUIRED_FEATURES)) per core version and per
//! extension, the limits the specification requires per core version
//! ([`REQUIRED_LIMITS`](crate::generated::features::REQUIRED_LIMITS), from Khronos'
//! Vulkan-Profiles), the `depends=` of every advertised extension, and which features a
//! version and its extensions can expose at all
//! ([`FEATURE_ORIGINS`](crate::generated::features::FEATURE_ORIGINS)).
//!
//! [`PhysicalDeviceDesc::new`](super::PhysicalDeviceDesc::new) starts from a device that meets
//! them ([`with_required_features`], [`with_required_limits`], [`with_feature_limits`]);
//! [`missing`] lists what a vendor's description misses (call it from a test).
//!
//! Beyond the tables, the [`cross`] checks relate values the tables cannot: the limits a
//! supported feature makes non-zero (`REQUIRED_LIMITS` rows with `features`, from the
//! specification's tables via `registry/limits/feature_limits.json`), timestamps against every
//! queue family's `timestampValidBits` and `timestampPeriod`, and `driverID` against the
//! registry's `VkDriverId` values.

pub mod cross;
pub mod finding;
pub mod report;
pub mod rules;

pub use cross::{cross_check, with_feature_limits};
pub use finding::Missing;
pub use report::{
    format_findings, report_dropped, unimplemented_commands, unrunnable_format_features,
};
pub use rules::*;

use super::api::{Kit, PhysicalDeviceDesc};

/// [`check`] of a vendor's physical-device description plus [`unimplemented_commands`] of the
/// driver for it: empty when the device is a valid device of the version it claims and every
/// command it promises has an implementation. Vendors call it from a test:
/// `assert_eq!(missing(&desc), [])` (or run the whole report,
/// [`crate::testing::requirements`]).
pub fn missing<D: Kit>(desc: &PhysicalDeviceDesc<D>) -> Vec<Missing> {
    let mut out = check(&desc.properties, &desc.features, &desc.extensions);
    out.extend(cross_check(&desc.properties, &desc.queue_families));
    let table = super::assembly::command_map::<D>();
    out.extend(unimplemented_commands::<D>(
        table,
        desc.properties.api_version,
        &desc.extensions,
        None,
    ));
    out.extend(format_findings::<D>(desc.formats.iter(), table, None));
    out
}
