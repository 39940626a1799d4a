//! `vkgen features`: Android's Vulkan system-feature files, computed from the device.
//!
//! AOSP ships these as prebuilt XML files (`frameworks/native/data/etc/`); nothing in its Vulkan
//! code computes them, and CTS `VulkanFeaturesTest` checks the claims against the vkjson of the
//! "best" device. vkgen computes them with the same rules (`shared/reference/android-vulkan-loader.md`
//! §6, and CTS `VulkanFeaturesTest.java`):
//!
//! * `android.hardware.vulkan.level`: `-1` (no file) without `textureCompressionETC2`; `0` with it;
//!   `1` when also all of [`LEVEL_1_FEATURES`] are supported. This is CTS's `determineHardwareLevel`
//!   list (11 features besides ETC2: it includes `geometryShader`, `tessellationShader` and
//!   `textureCompressionASTC_LDR`, and not `drawIndirectFirstInstance`, `depthClamp`,
//!   `depthBiasClamp` or `samplerAnisotropy`).
//! * `android.hardware.vulkan.compute`: `0` when `variablePointers` is supported and
//!   `maxPerStageDescriptorStorageBuffers >= 16` (CTS `determineHardwareCompute`); else no file.
//! * `android.hardware.vulkan.version`: the best device's `major << 22 | minor << 12 | patch` with
//!   patch 0, except Vulkan 1.0, which is claimed as 1.0.3 (`0x00400003`; AOSP's only 1.0 file,
//!   `version-1_0_3.xml`); CTS requires the claimed patch to be at most the device's, so a 1.0
//!   device below patch 3 claims its own patch.
//! * `android.software.vulkan.deqp.level`: `year << 16 | month << 8 | day` of `--deqp-date`
//!   (2019-03-01 → `0x07E30301`); only written when a date is given, since it claims which dEQP
//!   release passed, which no device query can tell.
//!
//! The best device is CTS's `getBestDevice`: the last device whose level, compute and version are
//! all at least the best so far.

use std::fmt::Write as _;
use std::path::{Path, PathBuf};

use ash::vk;
use serde::Serialize;
use serde_json::Value;

use super::session::{Device, Session};
use super::{version_string, DeviceError};

/// The features CTS requires for level 0.
pub const LEVEL_0_FEATURES: &[&str] = &["textureCompressionETC2"];

/// The features CTS requires, besides [`LEVEL_0_FEATURES`], for level 1.
pub const LEVEL_1_FEATURES: &[&str] = &[
    "fullDrawIndexUint32",
    "imageCubeArray",
    "independentBlend",
    "geometryShader",
    "tessellationShader",
    "sampleRateShading",
    "textureCompressionASTC_LDR",
    "fragmentStoresAndAtomics",
    "shaderImageGatherExtended",
    "shaderUniformBufferArrayDynamicIndexing",
    "shaderSampledImageArrayDynamicIndexing",
];

/// The minimum `maxPerStageDescriptorStorageBuffers` for compute level 0.
pub const COMPUTE_MIN_STORAGE_BUFFERS: u64 = 16;

/// `android.hardware.vulkan.version` for a device API version (see the module docs).
pub fn version_value(api_version: u32) -> u32 {
    let (major, minor) = (
        vk::api_version_major(api_version),
        vk::api_version_minor(api_version),
    );
    let patch = if (major, minor) == (1, 0) {
        vk::api_version_patch(api_version).min(3)
    } else {
        0
    };
    (major << 22) | (minor << 12) | patch
}

/// `android.software.vulkan.deqp.level` for a `YYYY-MM-DD` date.
pub fn deqp_level(date: &str) -> Result<u32, String> {
    let bad = || format!("--deqp-date `{date}` is not a date like 2019-03-01");
    let parts: Vec<&str> = date.split('-').collect();
    let [y, m, d] = parts.as_slice() else {
        return Err(bad());
    };
    if y.len() != 4 || m.len() != 2 || d.len() != 2 {
        return Err(bad());
    }
    let num = |s: &str| s.parse::<u32>().map_err(|_| bad());
    let (year, month, day) = (num(y)?, num(m)?, num(d)?);
    let leap = year % 4 == 0 && (year % 100 != 0 || year % 400 == 0);
    let days = match month {
        1 | 3 | 5 | 7 | 8 | 10 | 12 => 31,
        4 | 6 | 9 | 11 => 30,
        2 if leap => 29,
        2 => 28,
        _ => {
            return Err(format!(
                "--deqp-date `{date}`: month {month} does not exist"
            ))
        }
    };
    if day == 0 || day > days {
        return Err(format!(
            "--deqp-date `{date}`: day {day} does not exist in that month"
        ));
    }
    Ok((year << 16) | (month << 8) | day)
}

/// CTS's hardware level from `VkPhysicalDeviceFeatures` (decoded): `None` is CTS's `-1`. The
/// second value lists what the next level lacks.
pub fn hardware_level(features: &serde_json::Map<String, Value>) -> (Option<u32>, Vec<String>) {
    let lacks = |list: &[&str]| -> Vec<String> {
        list.iter()
            .filter(|f| features.get(**f) != Some(&Value::Bool(true)))
            .map(|f| (*f).to_owned())
            .collect()
    };
    let l0 = lacks(LEVEL_0_FEATURES);
    if !l0.is_empty() {
        return (None, l0);
    }
    let l1 = lacks(LEVEL_1_FEATURES);
    if l1.is_empty() {
        (Some(1), Vec::new())
    } else {
        (Some(0), l1)
    }
}

/// CTS's compute level: `Some(0)` or `None` (CTS's `-1`).
pub fn compute_level(variable_pointers: bool, max_storage_buffers: u64) -> Option<u32> {
    (variable_pointers && max_storage_buffers >= COMPUTE_MIN_STORAGE_BUFFERS).then_some(0)
}

/// What one device supports.
#[derive(Debug, Serialize)]
pub struct Evaluation {
    pub index: usize,
    pub name: String,
    pub api_version: String,
    pub level: Option<u32>,
    /// Features the next level needs and the device lacks.
    pub level_lacks: Vec<String>,
    pub compute: Option<u32>,
    pub variable_pointers: bool,
    pub max_per_stage_descriptor_storage_buffers: u64,
    /// `android.hardware.vulkan.version` value.
    pub version: u32,
}

/// One permission file.
#[derive(Debug, Serialize)]
pub struct PermissionFile {
    pub file: String,
    pub feature: String,
    pub version: u32,
    #[serde(skip)]
    pub contents: String,
}

#[derive(Debug, Serialize)]
pub struct Report {
    pub loader: String,
    pub devices: Vec<Evaluation>,
    pub best_device: usize,
    pub files: Vec<PermissionFile>,
}

fn evaluate(s: &Session, dev: &Device) -> Result<Evaluation, DeviceError> {
    let vp = s
        .reg
        .resolve_type("VkPhysicalDeviceVariablePointersFeatures")
        .map(|t| t.name.clone());
    let mut structs: Vec<String> = vp.iter().cloned().collect();
    structs.push("VkPhysicalDeviceVulkan11Features".to_owned());
    let features = s.features(dev, &structs)?;
    let core = features
        .get("VkPhysicalDeviceFeatures")
        .cloned()
        .unwrap_or_default();
    let (level, level_lacks) = hardware_level(&core);
    let variable_pointers = structs.iter().any(|n| {
        features.get(n).and_then(|f| f.get("variablePointers")) == Some(&Value::Bool(true))
    });
    let max_storage = dev
        .properties
        .get("limits")
        .and_then(|l| l.get("maxPerStageDescriptorStorageBuffers"))
        .and_then(Value::as_u64)
        .unwrap_or(0);
    Ok(Evaluation {
        index: dev.index,
        name: dev.name.clone(),
        api_version: version_string(dev.api_version),
        level,
        level_lacks,
        compute: compute_level(variable_pointers, max_storage),
        variable_pointers,
        max_per_stage_descriptor_storage_buffers: max_storage,
        version: version_value(dev.api_version),
    })
}

/// Keeps XML comments well-formed whatever a driver calls its device.
fn comment_safe(s: &str) -> String {
    let mut out = s.replace("--", "- -");
    if out.ends_with('-') {
        out.push(' ');
    }
    out
}

/// An AOSP-style permission file.
pub fn permission_xml(feature: &str, version: u32, comment: &str) -> String {
    let mut s = String::from("<?xml version=\"1.0\" encoding=\"utf-8\"?>\n");
    let _ = writeln!(s, "<!-- {} -->", comment_safe(comment));
    s.push_str("<permissions>\n");
    let _ = writeln!(
        s,
        "    <feature name=\"{feature}\" version=\"{version}\" />"
    );
    s.push_str("</permissions>\n");
    s
}

fn file(feature: &str, suffix: &str, version: u32, what: &str, source: &str) -> PermissionFile {
    let comment = format!(
        "Generated by `vkgen features` from {source}.\n     {feature} = {version} ({version:#010x}): {what}."
    );
    PermissionFile {
        file: format!("{feature}-{suffix}.xml"),
        feature: feature.to_owned(),
        version,
        contents: permission_xml(feature, version, &comment),
    }
}

/// Evaluates every device and builds the files for the best one.
pub fn report(s: &Session, deqp: Option<(&str, u32)>) -> Result<Report, DeviceError> {
    let devices = s
        .devices
        .iter()
        .map(|d| evaluate(s, d))
        .collect::<Result<Vec<_>, _>>()?;
    let key = |e: &Evaluation| {
        (
            e.level.map_or(-1, i64::from),
            e.compute.map_or(-1, i64::from),
            i64::from(e.version),
        )
    };
    let mut best = 0;
    let mut best_key = (-1, -1, -1);
    for (i, e) in devices.iter().enumerate() {
        let k = key(e);
        if k.0 >= best_key.0 && k.1 >= best_key.1 && k.2 >= best_key.2 {
            best = i;
            best_key = k;
        }
    }
    let b = &devices[best];
    let source = format!(
        "device {} \"{}\" (Vulkan {})",
        b.index, b.name, b.api_version
    );
    let mut files = Vec::new();
    if let Some(level) = b.level {
        files.push(file(
            "android.hardware.vulkan.level",
            &level.to_string(),
            level,
            if level == 1 {
                "textureCompressionETC2 and the 11 CTS level-1 features"
            } else {
                "textureCompressionETC2"
            },
            &source,
        ));
    }
    if let Some(c) = b.compute {
        files.push(file(
            "android.hardware.vulkan.compute",
            &c.to_string(),
            c,
            "variablePointers and at least 16 storage buffers per stage",
            &source,
        ));
    }
    let v = b.version;
    let (major, minor, patch) = (v >> 22, (v >> 12) & 0x3ff, v & 0xfff);
    let suffix = if patch != 0 {
        format!("{major}_{minor}_{patch}")
    } else {
        format!("{major}_{minor}")
    };
    files.push(file(
        "android.hardware.vulkan.version",
        &suffix,
        v,
        &format!("Vulkan {major}.{minor}.{patch} (major << 22 | minor << 12 | patch)"),
        &source,
    ));
    if let Some((date, value)) = deqp {
        files.push(file(
            "android.software.vulkan.deqp.level",
            date,
            value,
            &format!("dEQP release {date} (year << 16 | month << 8 | day)"),
            "the dEQP date given on the command line",
        ));
    }
    Ok(Report {
        loader: s.loader.display(),
        devices,
        best_device: best,
        files,
    })
}

/// Writes the files into `dir` (created if missing); returns their paths and warnings about
/// permission files already there that this run did not write (left alone).
pub fn write(report: &Report, dir: &Path) -> Result<(Vec<PathBuf>, Vec<String>), DeviceError> {
    std::fs::create_dir_all(dir).map_err(|e| DeviceError::Io {
        path: dir.to_owned(),
        source: e,
    })?;
    let mut written = Vec::new();
    for f in &report.files {
        let p = dir.join(&f.file);
        std::fs::write(&p, &f.contents).map_err(|e| DeviceError::Io {
            path: p.clone(),
            source: e,
        })?;
        written.push(p);
    }
    let mut warnings = Vec::new();
    if let Ok(rd) = std::fs::read_dir(dir) {
        let mut others: Vec<String> = rd
            .filter_map(|e| e.ok()?.file_name().into_string().ok())
            .filter(|n| {
                (n.starts_with("android.hardware.vulkan.")
                    || n.starts_with("android.software.vulkan."))
                    && n.ends_with(".xml")
                    && !report.files.iter().any(|f| &f.file == n)
            })
            .collect();
        others.sort();
        for n in others {
            warnings.push(format!(
                "{} was not written by this run and may contradict it",
                dir.join(n).display()
            ));
        }
    }
    Ok((written, warnings))
}

/// The readable summary.
pub fn table(r: &Report) -> String {
    let mut s = format!("loader {}\n\n", r.loader);
    let _ = writeln!(
        s,
        "{:<3} {:<40} {:<10} {:>5} {:>7} {:>10}  notes",
        "dev", "name", "vulkan", "level", "compute", "version"
    );
    let opt = |o: Option<u32>| o.map_or("-".to_owned(), |v| v.to_string());
    for e in &r.devices {
        let mut notes = Vec::new();
        if !e.level_lacks.is_empty() {
            notes.push(format!(
                "level {} lacks {}",
                e.level.map_or(0, |l| l + 1),
                e.level_lacks.join(", ")
            ));
        }
        if e.compute.is_none() {
            notes.push(format!(
                "compute: variablePointers {}, maxPerStageDescriptorStorageBuffers {}",
                e.variable_pointers, e.max_per_stage_descriptor_storage_buffers
            ));
        }
        let line = format!(
            "{:<3} {:<40} {:<10} {:>5} {:>7} {:#010x}  {}",
            e.index,
            e.name,
            e.api_version,
            opt(e.level),
            opt(e.compute),
            e.version,
            notes.join("; ")
        );
        let _ = writeln!(s, "{}", line.trim_end());
    }
    let _ = writeln!(s, "\nbest device: {}\n", r.best_device);
    for f in &r.files {
        let _ = writeln!(
            s,
            "{:<56} {:<36} {:>10} ({:#010x})",
            f.file, f.feature, f.version, f.version
        );
    }
    s
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn version_encoding_matches_aosp_files() {
        // data/etc/android.hardware.vulkan.version-1_0_3.xml, -1_1.xml, -1_3.xml, -1_4.xml.
        assert_eq!(
            version_value(vk::make_api_version(0, 1, 0, 61)),
            0x0040_0003
        );
        assert_eq!(version_value(vk::make_api_version(0, 1, 0, 3)), 4_194_307);
        assert_eq!(
            version_value(vk::make_api_version(0, 1, 1, 130)),
            0x0040_1000
        );
        assert_eq!(version_value(vk::make_api_version(0, 1, 1, 0)), 4_198_400);
        assert_eq!(
            version_value(vk::make_api_version(0, 1, 2, 203)),
            0x0040_2000
        );
        assert_eq!(
            version_value(vk::make_api_version(0, 1, 3, 239)),
            0x0040_3000
        );
        assert_eq!(version_value(vk::make_api_version(0, 1, 3, 239)), 4_206_592);
        assert_eq!(
            version_value(vk::make_api_version(0, 1, 4, 309)),
            0x0040_4000
        );
        // A 1.0 device below patch 3 cannot claim 1.0.3 (CTS: claimed patch <= device patch).
        assert_eq!(version_value(vk::make_api_version(0, 1, 0, 2)), 0x0040_0002);
    }

    #[test]
    fn deqp_level_encoding() {
        assert_eq!(deqp_level("2019-03-01"), Ok(0x07E3_0301));
        assert_eq!(deqp_level("2019-03-01"), Ok(132_317_953));
        assert_eq!(deqp_level("2020-03-01"), Ok(0x07E4_0301));
        assert_eq!(deqp_level("2025-03-01"), Ok(132_711_169));
        assert_eq!(deqp_level("2024-02-29"), Ok((2024 << 16) | (2 << 8) | 29));
        for bad in [
            "2019-3-1",
            "2019-13-01",
            "2019-02-29",
            "2019-04-31",
            "2019-00-10",
            "x",
            "2019-03-01-01",
            "",
            "20190-3-01",
        ] {
            assert!(deqp_level(bad).is_err(), "{bad}");
        }
    }

    #[test]
    fn hardware_level_follows_cts() {
        let mut f = serde_json::Map::new();
        assert_eq!(
            hardware_level(&f),
            (None, vec!["textureCompressionETC2".to_owned()])
        );
        f.insert("textureCompressionETC2".into(), Value::Bool(true));
        let (level, lacks) = hardware_level(&f);
        assert_eq!(level, Some(0));
        assert_eq!(lacks.len(), 11);
        for name in LEVEL_1_FEATURES {
            f.insert((*name).into(), Value::Bool(true));
        }
        assert_eq!(hardware_level(&f), (Some(1), vec![]));
        f.insert("tessellationShader".into(), Value::Bool(false));
        assert_eq!(
            hardware_level(&f),
            (Some(0), vec!["tessellationShader".to_owned()])
        );
    }

    #[test]
    fn compute_level_needs_both() {
        assert_eq!(compute_level(true, 16), Some(0));
        assert_eq!(compute_level(true, 15), None);
        assert_eq!(compute_level(false, 96), None);
    }

    #[test]
    fn permission_file_is_aosp_shaped() {
        let xml = permission_xml(
            "android.hardware.vulkan.version",
            4_198_400,
            "from \"a--b\"-",
        );
        assert_eq!(
            xml,
            "<?xml version=\"1.0\" encoding=\"utf-8\"?>\n<!-- from \"a- -b\"-  -->\n<permissions>\n    \
             <feature name=\"android.hardware.vulkan.version\" version=\"4198400\" />\n</permissions>\n"
        );
        roxmltree::Document::parse(&xml).expect("well-formed");
    }
}
