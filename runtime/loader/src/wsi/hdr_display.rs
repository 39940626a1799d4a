//! `android::sysprop::has_HDR_display(false)`, which decides whether the loader offers
//! `VK_EXT_hdr_metadata` (AOSP `driver.cpp` `EnumerateDeviceExtensionProperties`).
//!
//! AOSP's function (SurfaceFlinger's `SurfaceFlingerProperties.cpp`) reads the system property
//! `ro.surface_flinger.has_HDR_display` through the generated sysprop accessor, whose boolean
//! parser knows only `1`/`true` and `0`/`false`, any letter case; any other value, or none,
//! is "no value", and then it asks the ConfigStore HAL
//! (`android.hardware.configstore@1.0::ISurfaceFlingerConfigs::hasHDRDisplay`), falling back to
//! the default (`false`) when that service is absent. vkgen parses the property exactly so —
//! `yes`/`on`, which `android::base::GetBoolProperty` would take as true, are no value here too.
//!
//! **Divergence: no ConfigStore.** Where the property gives no value, vkgen answers the default
//! (`false`) without asking ConfigStore. ConfigStore is a HIDL service: reaching it needs
//! `libhidlbase`/`libhwbinder` (and the `hwservicemanager` lookup), which would put system-only
//! libraries in the loader's `DT_NEEDED` (liblog, libnativewindow, libdl and libc only). Android
//! 10 deprecated the ConfigStore HAL in favour of these `ro.surface_flinger.*` properties, and
//! the property's own definition (`SurfaceFlingerProperties.sysprop`) is where a device declares
//! an HDR display ("set ro.surface_flinger.has_HDR_display to true in device.mk"), so only a
//! device that still ships ConfigStore and leaves the property unset gets a different answer.
//! Neither the ANativeWindow `perform` ABI nor any other property says whether the display is
//! HDR (AOSP's `android::gui` HDR queries need binder too).

use crate::properties::Properties;

/// SurfaceFlinger's HDR-display flag: `VK_EXT_hdr_metadata` is offered only with it (AOSP).
pub const HDR_DISPLAY_PROPERTY: &str = "ro.surface_flinger.has_HDR_display";

/// Whether the device has an HDR display, as `has_HDR_display(false)` decides (module notes).
pub fn has_hdr_display(properties: &Properties) -> bool {
    match properties
        .get(HDR_DISPLAY_PROPERTY)
        .and_then(parse_sysprop_bool)
    {
        Some(value) => value,
        None => config_store_has_hdr_display(),
    }
}

/// The sysprop generator's boolean parser (`DoParse<bool>`): `1`/`true` and `0`/`false`,
/// compared without regard to case; anything else is no value.
fn parse_sysprop_bool(value: &str) -> Option<bool> {
    if ["1", "true"].iter().any(|v| value.eq_ignore_ascii_case(v)) {
        Some(true)
    } else if ["0", "false"].iter().any(|v| value.eq_ignore_ascii_case(v)) {
        Some(false)
    } else {
        None
    }
}

/// ConfigStore's answer where it is not asked (see the module notes): `getBool`'s default.
fn config_store_has_hdr_display() -> bool {
    log::debug!("{HDR_DISPLAY_PROPERTY} has no boolean value; ConfigStore is not asked: false");
    false
}

#[cfg(test)]
mod tests {
    use super::*;

    fn with(value: Option<&str>) -> bool {
        let text = value.map_or(String::new(), |v| format!("{HDR_DISPLAY_PROPERTY}={v}\n"));
        has_hdr_display(&Properties::parse(&text))
    }

    #[test]
    fn sysprop_parses_only_one_and_true_in_any_case() {
        for yes in ["1", "true", "TRUE", "True"] {
            assert!(with(Some(yes)), "{yes}");
        }
        // GetBoolProperty's extra spellings are no value to sysprop: the default.
        for no in ["0", "false", "FALSE", "yes", "on", "y", "2", ""] {
            assert!(!with(Some(no)), "{no}");
        }
        assert!(!with(None));
    }
}
