//! Issue 20: the required limits are generated from the Vulkan-Profiles extract
//! (`registry/limits/`) per core version of the selection, with vk.xml's `limittype` — and,
//! for registries older than `limittype` (1.1.130), the kind the extract recorded from the newest
//! vk.xml; `FEATURE_ORIGINS` names the versions and extensions that expose each feature.

mod common;

fn features_rs(version: &str) -> String {
    let g = vkgen::generate(&common::options(version))
        .unwrap_or_else(|e| panic!("vk-{version}.xml: {e}"));
    g.files
        .into_iter()
        .find(|f| f.path == "src/features.rs")
        .expect("src/features.rs")
        .contents
}

/// The `RequiredLimit` row of `limit` required by `by`.
fn row<'a>(text: &'a str, by: &str, limit: &str) -> Option<&'a str> {
    let head = format!("RequiredLimit {{ by: {by:?}, limit: {limit:?},");
    text.lines().find(|l| l.trim_start().starts_with(&head))
}

#[test]
fn limits_per_version_with_their_kind_on_old_and_new_registries() {
    let data: serde_json::Value = serde_json::from_str(vkgen::emit::limits::DATA).unwrap();
    assert_eq!(
        data["source"]["path"],
        "profiles/LunarG/VP_LUNARG_minimum_requirements.json"
    );
    assert_eq!(data["source"]["sha256"].as_str().map(str::len), Some(64));

    let new = features_rs("1.4.359");
    assert!(new.contains(
        "pub const LIMITS_SOURCE: &str = \"https://github.com/KhronosGroup/Vulkan-Profiles@"
    ));
    let raised = row(&new, "VK_VERSION_1_4", "maxImageDimension2D").expect("1.4 raises it");
    assert!(
        raised.contains("kind: \"max\", required: \"8192\""),
        "{raised}"
    );
    let range = row(&new, "VK_VERSION_1_0", "viewportBoundsRange").unwrap();
    assert!(range.contains("kind: \"range\""), "{range}");
    // Rows that ask nothing are left out: an unsigned maximum of 0, a `false` property.
    assert!(row(&new, "VK_VERSION_1_0", "maxTessellationGenerationLevel").is_none());
    assert!(row(&new, "VK_VERSION_1_2", "independentResolve").is_none());
    // The 1.1 split and merged structures are one flat limit.
    let subgroup = new.matches("limit: \"subgroupSupportedStages\"").count();
    assert_eq!(subgroup, 1);
    let origins = "(\"timelineSemaphore\", \"VK_VERSION_1_2,VK_KHR_timeline_semaphore\"),";
    assert!(new.contains(origins));

    let old = features_rs("1.1.130");
    // A 1.1 selection has no later version's rows.
    assert!(!old.contains("by: \"VK_VERSION_1_2\""));
    // vk-1.1.130 has no `limittype`: the kind comes from the extract.
    let pot = row(&old, "VK_VERSION_1_0", "minMemoryMapAlignment").unwrap();
    assert!(pot.contains("kind: \"max,pot\""), "{pot}");
    let mul = row(&old, "VK_VERSION_1_0", "bufferImageGranularity").unwrap();
    assert!(mul.contains("kind: \"min,mul\""), "{mul}");
    assert!(row(&old, "VK_VERSION_1_1", "maxMultiviewViewCount").is_some());
}

/// Issue 30: the limits a supported feature requires (`registry/limits/feature_limits.json`,
/// from the specification's tables) are rows with `features`, named `feature X` in `by`, kept
/// only where the selection has the feature and the structure; `DRIVER_IDS` lists the
/// registry's `VkDriverId` values.
#[test]
fn feature_dependent_limits_and_driver_ids_per_registry() {
    let data: serde_json::Value = serde_json::from_str(vkgen::emit::limits::FEATURE_DATA).unwrap();
    assert_eq!(data["source"]["path"], "chapters/limits.adoc");
    assert!(data["rows"].as_array().is_some_and(|r| r.len() >= 15));

    let new = features_rs("1.4.359");
    let aniso = row(&new, "feature samplerAnisotropy", "maxSamplerAnisotropy").unwrap();
    assert!(
        aniso.contains("required: \"16.0\"")
            && aniso.contains("features: &[\"samplerAnisotropy\"]"),
        "{aniso}"
    );
    let lines = row(
        &new,
        "feature bresenhamLines, rectangularLines or smoothLines",
        "lineSubPixelPrecisionBits",
    )
    .unwrap();
    assert!(
        lines.contains("features: &[\"bresenhamLines\", \"rectangularLines\", \"smoothLines\"]")
    );
    let divisor = row(
        &new,
        "feature vertexAttributeInstanceRateDivisor",
        "maxVertexAttribDivisor",
    )
    .unwrap();
    assert!(divisor.contains("required: \"65535\""), "{divisor}");
    // Version rows carry no features.
    let v = row(&new, "VK_VERSION_1_4", "maxImageDimension2D").unwrap();
    assert!(v.contains("features: &[]"), "{v}");
    assert!(new.contains("(\"VK_DRIVER_ID_GOOGLE_SWIFTSHADER\", 10),"));

    // vk-1.3.239 has the line-rasterization extension's structure; 1.1.130 has no 1.2
    // descriptor-indexing feature, so no row names it.
    let mid = features_rs("1.3.239");
    assert!(row(
        &mid,
        "feature bresenhamLines, rectangularLines or smoothLines",
        "lineSubPixelPrecisionBits"
    )
    .is_some());
    let old = features_rs("1.1.130");
    assert!(!old.contains("by: \"feature descriptorIndexing\""));
    assert!(row(
        &old,
        "feature tessellationShader",
        "maxTessellationPatchSize"
    )
    .is_some());
    // Before 1.2 the enumerants carry the extension's suffix.
    assert!(old.contains("(\"VK_DRIVER_ID_GOOGLE_SWIFTSHADER_KHR\", 10),"));
}
