//! Driver kit II acceptance (issue 20): the example vendor driver in `docs/examples/copy-engine`
//! — a CPU copy-and-fill engine with a graphics+compute and a transfer-only queue family, host
//! memory and a worker thread per queue, written on the kit's queue core, resource objects and
//! generated recorder — is copied outside the checkout, given its vendored runtime by
//! `vkgen driver`, built there, and passes `client/copy_client.c` (every byte, timeline
//! wait-before-signal across queues, a binary semaphore across queues, a host signal, pool
//! reset and re-record) through Debian's loader (ICD manifest) and through ours (HAL root),
//! with `VK_LAYER_KHRONOS_validation` on and reporting nothing. The dynamic linker's log proves
//! which loader ran.

use std::time::Duration;

use vkgen_tests::env::Env;

mod example_support;
mod wsi_support;

use example_support::Validation;

#[test]
fn the_copy_engine_passes_its_client_through_both_loaders_with_validation() {
    let example = example_support::build("copy-engine", "1.3", &[]);
    let text = std::fs::read_to_string(&example.manifest).unwrap();
    assert!(text.contains(r#""api_version": "1.3.0""#), "{text}");
    let client = example.dir.path().join("copy_client");
    example_support::compile_c(
        &example.crate_dir.join("client/copy_client.c"),
        &example.crate_dir.join("client"),
        &client,
    );
    let loaders = example_support::loaders(&example, "copy-engine");
    for stack in [&loaders.debian, &loaders.ours] {
        let out = example_support::run_on(
            stack,
            Validation::On,
            &Env::new(),
            &client,
            &[],
            Duration::from_secs(120),
        );
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(
            stdout.contains("every byte checked") && stdout.contains("; 0 validation messages"),
            "{}: {stdout}\n{}",
            stack.name,
            String::from_utf8_lossy(&out.stderr)
        );
    }
}
