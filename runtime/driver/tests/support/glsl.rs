//! GLSL compiled at test time with `glslangValidator` (Debian's glslang-tools), so no SPIR-V
//! blob is checked in.

use std::sync::atomic::{AtomicUsize, Ordering};

/// `src` compiled for `stage` (`comp`, `vert`, `frag`, …) at `--target-env target`
/// (`vulkan1.0` … `vulkan1.3`), as words. Panics with glslang's output when it fails.
pub fn compile(stage: &str, target: &str, src: &str) -> Vec<u32> {
    static N: AtomicUsize = AtomicUsize::new(0);
    let dir = std::env::temp_dir().join(format!(
        "vkgen-glsl-{}-{}",
        std::process::id(),
        N.fetch_add(1, Ordering::Relaxed)
    ));
    std::fs::create_dir_all(&dir).unwrap();
    let input = dir.join(format!("shader.{stage}"));
    let output = dir.join("shader.spv");
    std::fs::write(&input, src).unwrap();
    let run = std::process::Command::new("glslangValidator")
        .args(["-V", "--target-env", target, "-o"])
        .arg(&output)
        .arg(&input)
        .output()
        .expect("glslangValidator (apt-get install glslang-tools)");
    assert!(
        run.status.success(),
        "glslangValidator failed:\n{}{}",
        String::from_utf8_lossy(&run.stdout),
        String::from_utf8_lossy(&run.stderr)
    );
    let bytes = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}
