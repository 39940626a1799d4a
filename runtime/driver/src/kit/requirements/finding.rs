//! What a check finds: a [`Missing`] requirement, and how a limit's value reads in one.

use vkgen_generated::features::RequiredLimit;

use super::super::tables::Properties;

/// Something a device description misses.
#[derive(Debug, Clone, PartialEq, Eq, thiserror::Error)]
pub enum Missing {
    /// A feature `by` (a `VK_VERSION_X_Y` or an advertised extension) requires is off.
    #[error("{by} requires feature {feature}")]
    Feature {
        feature: &'static str,
        by: &'static str,
    },
    /// A limit misses what `by` requires: `kind` is vk.xml's `limittype` (`max`: at least
    /// `required`; `min`: at most; `range`: covering it; `bitmask`: holding its bits).
    #[error("{by} requires {limit} {required} ({kind}), has {have}")]
    Limit {
        limit: &'static str,
        by: &'static str,
        kind: &'static str,
        required: &'static str,
        have: String,
    },
    /// A feature the description turns on that its API version and advertised extensions
    /// cannot expose (none of `exposed_by` holds): an application never sees it. What a
    /// down-bump (`vkgen driver --api-version` lower than the description was written for)
    /// silently loses.
    #[error("feature {feature} is on but dropped: only {exposed_by} expose it")]
    Dropped {
        feature: &'static str,
        exposed_by: &'static str,
    },
    /// An advertised extension's `depends=` is not met by the advertised set and the version.
    #[error("{extension} needs {depends}")]
    Dependency {
        extension: &'static str,
        depends: &'static str,
    },
    /// A command of the version or of an advertised extension (`by`) that would get no proc
    /// address: no hook, no kit implementation, no bring-up answer. An application that
    /// trusts the version or the extension would call NULL.
    #[error("{by} requires {command}, which has no implementation")]
    Command {
        command: &'static str,
        by: &'static str,
    },
    /// A format feature the device advertises (on `count` formats, `examples` the first)
    /// while the driver runs none of the commands that use it (`commands`: e.g. `BLIT_DST`
    /// without `vkCmdBlitImage`/`vkCmdBlitImage2` in the engine's `Execute::implements`).
    /// Known only where the engine's list is given (a recording driver) or the command has
    /// no implementation at all. A command the kit runs for the engine
    /// ([`Kit::HOST_TRANSFERS`](crate::kit::Kit::HOST_TRANSFERS)) counts on the formats the kit
    /// serves ([`runs_on`](crate::kit::transfer::runs_on)).
    #[error("format feature {feature} is advertised on {count} formats ({examples}) but the driver runs none of {commands}")]
    FormatFeature {
        feature: &'static str,
        commands: String,
        count: usize,
        examples: String,
    },
    /// Timestamps that contradict each other: `timestampComputeAndGraphics` with a graphics
    /// or compute family of no valid bits, valid bits outside 36–64, a period of 0 (`family`:
    /// the queue family, if one is at fault).
    #[error("timestamps: {detail}")]
    Timestamps { family: Option<u32>, detail: String },
    /// `driverID` is not one of the registry's `VkDriverId` values (0 is none): the vendor
    /// sets `properties.driver_id` to the ID Khronos registered for its driver.
    #[error("driverID {have} is not a VkDriverId of the registry: set properties.driver_id (PhysicalDeviceDesc) to your driver's registered ID")]
    DriverId { have: i32 },
    /// A `vkCmd*` of the version or of an advertised extension (`by`) that the kit records
    /// but neither a hook, the engine nor the kit at replay runs
    /// ([`kit_applies`](crate::kit::command::kit_applies): events, timestamps, with
    /// `HOST_TRANSFERS` the transfers): its replay reaches `Execute::unimplemented`.
    #[error("{by} requires {command}, which is recorded but not executed by the engine")]
    Unexecuted {
        command: &'static str,
        by: &'static str,
    },
}

impl Missing {
    /// Whether the device breaks the specification or the promise of an extension: a
    /// required feature or limit, a dependency, a NULL command. A dropped feature or an
    /// unexecuted recorded command is a warning: the device is valid, it does less.
    pub fn is_mandatory(&self) -> bool {
        !matches!(
            self,
            Missing::Dropped { .. } | Missing::Unexecuted { .. } | Missing::FormatFeature { .. }
        )
    }
}

/// A limit's value in `properties`, as its row writes it.
pub(crate) struct Have<'a>(pub &'a RequiredLimit, pub &'a Properties);

impl std::fmt::Display for Have<'_> {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        (self.0.have)(self.1, f)
    }
}
