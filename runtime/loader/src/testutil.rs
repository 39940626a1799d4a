//! Helpers the loader's unit tests share: isolated configurations and C fixtures.

use std::path::{Path, PathBuf};
use std::process::Command;

use crate::config::LoaderConfig;
use crate::driver::DriverSettings;
use crate::layers::LayerSettings;

/// A config rooted at `root` that sees no HAL, no layers and no ICD manifests unless the test
/// puts them there: nothing leaks in from the machine or the environment.
pub fn isolated_config(root: &Path) -> LoaderConfig {
    // Lets `VKGEN_LOG=debug cargo test` show why fixtures were rejected.
    crate::logging::init();
    LoaderConfig {
        hal_root: root.to_path_buf(),
        icd: crate::driver::icd::IcdSearchConfig::isolated(root),
        ..LoaderConfig::default()
    }
}

/// [`isolated_config`]'s driver settings.
pub fn isolated_driver(root: &Path) -> DriverSettings {
    isolated_config(root).driver_settings()
}

/// [`isolated_config`]'s layer settings.
pub fn isolated_layers(root: &Path) -> LayerSettings {
    isolated_config(root).layer_settings()
}

/// Compiles `source` into `dir/name` as a shared library (`cc -shared -fPIC`), with only the
/// symbols marked `EXPORT` visible, like a real driver built with `-fvisibility=hidden`.
pub fn compile_so(dir: &Path, name: &str, source: &str) -> PathBuf {
    crate::logging::init();
    let src = dir.join(format!("{name}.c"));
    let out = dir.join(name);
    let full = format!(
        "#define EXPORT __attribute__((visibility(\"default\")))\n\
         #include <stdint.h>\n#include <stddef.h>\n#include <string.h>\n#include <stdio.h>\n{source}"
    );
    std::fs::write(&src, full).expect("write fixture source");
    let output = Command::new("cc")
        .args([
            "-shared",
            "-fPIC",
            "-fvisibility=hidden",
            "-O1",
            "-Wall",
            "-Werror",
        ])
        // Fixtures compile out parts of themselves per variant; leftovers are expected.
        .args(["-Wno-unused-function", "-Wno-unused-variable"])
        .arg("-Wl,-z,relro,-z,now")
        .arg("-o")
        .arg(&out)
        .arg(&src)
        .output()
        .expect("run cc (gcc must be installed for the loader tests)");
    assert!(
        output.status.success(),
        "cc failed for {name}:\n{}",
        String::from_utf8_lossy(&output.stderr)
    );
    out
}

/// Minimal Vulkan declarations the C fixtures share (only what they use).
pub const VK_DECLS: &str = r#"
typedef int32_t VkResult;
typedef void* VkInstance;
typedef void (*PFN_vkVoidFunction)(void);
#define VK_SUCCESS 0
#define VK_INCOMPLETE 5
#define VK_ERROR_INITIALIZATION_FAILED (-3)
#define VK_ERROR_LAYER_NOT_PRESENT (-6)
#define VK_ERROR_INCOMPATIBLE_DRIVER (-9)
#define VK_MAKE_API_VERSION(v, ma, mi, p) ((((uint32_t)(v)) << 29) | (((uint32_t)(ma)) << 22) | (((uint32_t)(mi)) << 12) | ((uint32_t)(p)))
typedef struct { char layerName[256]; uint32_t specVersion; uint32_t implementationVersion; char description[256]; } VkLayerProperties;
typedef struct { char extensionName[256]; uint32_t specVersion; } VkExtensionProperties;
"#;
