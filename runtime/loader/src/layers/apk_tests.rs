//! The APK reader against zips written by Python's `zipfile` (aligned as `zipalign` does).
use std::path::{Path, PathBuf};

use ash::vk;

use crate::layers::discovery::tests::{app_config, build_layer, Fixture};
use crate::layers::{layer_files, LayerRegistry};

/// Writes `apk` holding `lib` as the STORED, page-aligned entry `entry` (as `zipalign` lays
/// out a library kept in the APK).
pub(crate) fn write_apk(apk: &Path, lib: &Path, entry: &str) {
    let script = r#"
import sys, zipfile
apk, lib, page, name = sys.argv[1], sys.argv[2], int(sys.argv[3]), sys.argv[4]
data = open(lib, "rb").read()
with zipfile.ZipFile(apk, "w") as z:
    info = zipfile.ZipInfo(name)
    info.compress_type = zipfile.ZIP_STORED
    start = z.fp.tell() + 30 + len(name.encode()) + 4
    pad = (-start) % page
    info.extra = (0xD935).to_bytes(2, "little") + pad.to_bytes(2, "little") + bytes(pad)
    z.writestr(info, data)
"#;
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(apk)
        .arg(lib)
        .arg(rustix::param::page_size().to_string())
        .arg(entry)
        .status()
        .expect("python3 runs");
    assert!(status.success());
}

/// AOSP's `ForEachFileInZip`: an `<apk>!/lib/<abi>` dir lists the entries directly in it
/// that are STORED and page-aligned (the APK made by Python's `zipfile`, alignment padding
/// in an extra field as `zipalign` does); such a layer is discovered, closed, and opened on
/// activation like any other.
#[test]
fn apk_layer_dirs_list_stored_page_aligned_entries() {
    let dir = tempfile::tempdir().unwrap();
    let lib = build_layer(
        dir.path(),
        "libVkLayer_apk.so",
        &Fixture {
            layers: &["VK_LAYER_test_apk"],
            generic_gpa: true,
            ..Fixture::default()
        },
    );
    let apk = dir.path().join("base.apk");
    let script = r#"
import sys, zipfile
apk, lib, page = sys.argv[1], sys.argv[2], int(sys.argv[3])
data = open(lib, "rb").read()
with zipfile.ZipFile(apk, "w") as z:
    def stored(name, aligned):
        info = zipfile.ZipInfo(name)
        info.compress_type = zipfile.ZIP_STORED
        start = z.fp.tell() + 30 + len(name.encode()) + 4
        pad = (-start) % page + (0 if aligned else 1)
        info.extra = (0xD935).to_bytes(2, "little") + pad.to_bytes(2, "little") + bytes(pad)
        z.writestr(info, data)
    stored("lib/x86_64/libVkLayer_apk.so", True)
    stored("lib/x86_64/libVkLayer_unaligned.so", False)
    z.writestr("lib/x86_64/libVkLayer_deflated.so", data, compress_type=zipfile.ZIP_DEFLATED)
    stored("lib/x86_64/sub/libVkLayer_nested.so", True)
    stored("lib/x86_64/notalayer.so", True)
"#;
    let page = rustix::param::page_size().to_string();
    let status = std::process::Command::new("python3")
        .args(["-c", script])
        .arg(&apk)
        .arg(&lib)
        .arg(&page)
        .status()
        .expect("python3 runs");
    assert!(status.success());
    std::fs::remove_file(&lib).unwrap();
    let names: Vec<String> = crate::apk::stored_entries(&apk, "lib/x86_64")
        .into_iter()
        .map(|e| e.name)
        .collect();
    assert_eq!(names, ["libVkLayer_apk.so", "notalayer.so"]);
    let apk_dir = PathBuf::from(format!("{}!/lib/x86_64", apk.display()));
    let config = app_config(&[apk_dir.as_path()]);
    assert_eq!(layer_files(&config), [apk_dir.join("libVkLayer_apk.so")]);
    let registry = LayerRegistry::discover(&config);
    let layer = registry
        .find(c"VK_LAYER_test_apk")
        .expect("layer in the APK");
    assert!(!layer.library().is_open());
    let opened = layer.open().unwrap();
    assert!(opened.library().is_open());
    assert_eq!(opened.library().path(), apk_dir.join("libVkLayer_apk.so"));
    // Its code is mapped from the APK's copy: the fixture's GIPA runs (and knows no
    // global command).
    // SAFETY: a global lookup through the opened layer's own GIPA.
    let f = unsafe {
        (opened.get_instance_proc_addr())(vk::Instance::null(), c"vkCreateInstance".as_ptr())
    };
    assert!(f.is_none());
}
