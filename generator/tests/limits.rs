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
