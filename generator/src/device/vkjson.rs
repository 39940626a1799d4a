//! `vkgen vkjson`: the instance and every physical device as one JSON document — the role of
//! Android's `vkjson` (`cmd gpu vkjson`), in vkgen's own layout.
//!
//! ```text
//! { "vkgen": { loader, registry },
//!   "instance": { apiVersion, apiVersionText, extensions[], layers[] },
//!   "devices": [ {
//!       "properties": VkPhysicalDeviceProperties (limits and sparseProperties inside),
//!       "features": VkPhysicalDeviceFeatures,
//!       "extendedProperties": { "VkPhysicalDeviceVulkan11Properties": {…}, … },
//!       "extendedFeatures": { "VkPhysicalDeviceVulkan12Features": {…}, … },
//!       "memory": VkPhysicalDeviceMemoryProperties (arrays cut to their counts),
//!       "queues": [VkQueueFamilyProperties],
//!       "extensions": [], "layers": [],
//!       "formats": { "VK_FORMAT_…": VkFormatProperties } (formats with any feature bit),
//!       "externalFenceProperties": { "VK_EXTERNAL_FENCE_HANDLE_TYPE_…_BIT": VkExternalFenceProperties },
//!       "externalSemaphoreProperties": { … },
//!       "skippedStructures": [ { structure, reason } ] } ] }
//! ```
//!
//! `properties`/`features` keep Android vkjson's names, so CTS-style readers find
//! `properties.limits.maxPerStageDescriptorStorageBuffers` and `features.textureCompressionETC2`.
//! Enums are value names, flags are arrays of bit names, `VkBool32` is `true`/`false`. Object keys
//! are sorted and lists are in enumeration order, so two runs on one device give identical output.

use serde_json::{json, Map, Value};

use super::session::{Device, Session};
use super::{version_string, DeviceError};

/// One device's document.
pub fn device_json(s: &Session, dev: &Device) -> Result<Value, DeviceError> {
    let (fstructs, mut skipped) = s.extending_structs(dev, "VkPhysicalDeviceFeatures2");
    let (pstructs, pskipped) = s.extending_structs(dev, "VkPhysicalDeviceProperties2");
    skipped.extend(pskipped);
    let mut features = s.features(dev, &fstructs)?;
    let mut properties = s.properties(dev, &pstructs)?;
    let core_features = features
        .remove("VkPhysicalDeviceFeatures")
        .unwrap_or_default();
    let core_properties = properties
        .remove("VkPhysicalDeviceProperties")
        .unwrap_or_else(|| dev.properties.clone());
    let mut formats = Map::new();
    for (name, value) in s.formats(dev) {
        let p = s.format_properties(dev, value)?;
        let any = p
            .values()
            .any(|v| v.as_array().is_some_and(|a| !a.is_empty()));
        if any {
            formats.insert(name, Value::Object(p));
        }
    }
    let queues: Vec<Value> = s
        .queue_families(dev)?
        .into_iter()
        .map(Value::Object)
        .collect();
    Ok(json!({
        "properties": core_properties,
        "features": core_features,
        "extendedProperties": properties,
        "extendedFeatures": features,
        "memory": s.memory(dev)?,
        "queues": queues,
        "extensions": dev.extensions,
        "layers": dev.layers,
        "formats": formats,
        "externalFenceProperties": s.external_sync(dev, false)?,
        "externalSemaphoreProperties": s.external_sync(dev, true)?,
        "skippedStructures": skipped,
    }))
}

/// The whole document.
pub fn document(s: &Session, registry: &str) -> Result<Value, DeviceError> {
    let devices = s
        .devices
        .iter()
        .map(|d| device_json(s, d))
        .collect::<Result<Vec<_>, _>>()?;
    Ok(json!({
        "vkgen": {
            "loader": s.loader.display(),
            "registry": registry,
        },
        "instance": {
            "apiVersion": s.instance_version,
            "apiVersionText": version_string(s.instance_version),
            "extensions": s.instance_extensions,
            "layers": s.instance_layers,
        },
        "devices": devices,
    }))
}
