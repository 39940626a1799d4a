//! `cargo bench -p vkgen-driver --bench spirv_parse`: what a shader module costs the kit, on
//! modules big enough to show it (docs/architecture.md, "SPIR-V", quotes the numbers).
//!
//! Two generated compute shaders of 400 functions each, compiled now with glslangValidator at
//! `--target-env vulkan1.3` (SPIR-V 1.6, ~390 KB): `flat` (main calls every function) and
//! `chain` (each function calls the previous one — the worst case for a call-graph walk).
//! Measured: [`SpirvModule::parse`] (checks, facts, `spirq` reflection: what
//! `vkCreateShaderModule` pays), a walk of the instruction stream (what an executor pays per
//! pass), a specialized [`ShaderStage::resolve`] (a second reflection), and `spirq` with its
//! own static-use analysis (`ref_all_rscs(false)`), which the kit does not use because of the
//! `chain` number.

use std::hint::black_box;
use std::sync::Arc;

use criterion::{criterion_group, criterion_main, Criterion};
use vkgen_driver::kit::shader::{ShaderStage, SpirvModule, StageRequest};
use vkgen_generated::vk;

fn glsl(chain: bool) -> String {
    let n = 400;
    let mut src = vec![
        "#version 450".to_string(),
        "layout(local_size_x_id = 0) in;".into(),
        "layout(set = 0, binding = 0) buffer B { uint d[]; };".into(),
    ];
    for i in 0..n {
        let prev = if chain && i > 0 {
            format!("f{}(x ^ {i}u)", i - 1)
        } else {
            "x".into()
        };
        src.push(format!(
            "uint f{i}(uint x) {{ uint a = x * {}u + {prev}; for (uint k = 0u; k < (x & 7u); k++) \
             {{ a = (a << 3) ^ (a >> 5) ^ k; if ((a & 1u) == 0u) a += d[k]; }} return a; }}",
            i * 7 + 3
        ));
    }
    let calls: String = (0..n)
        .step_by(if chain { 7 } else { 1 })
        .map(|i| format!(" acc += f{i}(gl_GlobalInvocationID.x + {i}u);"))
        .collect();
    src.push(format!(
        "void main() {{ uint acc = 0u;{calls} d[gl_GlobalInvocationID.x] = acc; }}"
    ));
    src.join("\n")
}

fn compile(src: &str) -> Vec<u32> {
    let dir = std::env::temp_dir().join(format!("vkgen-spirv-bench-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let (input, output) = (dir.join("big.comp"), dir.join("big.spv"));
    std::fs::write(&input, src).unwrap();
    let ok = std::process::Command::new("glslangValidator")
        .args(["-V", "--target-env", "vulkan1.3", "-o"])
        .arg(&output)
        .arg(&input)
        .stdout(std::process::Stdio::null())
        .status()
        .expect("glslangValidator (apt-get install glslang-tools)")
        .success();
    assert!(ok, "glslangValidator failed");
    let bytes = std::fs::read(&output).unwrap();
    let _ = std::fs::remove_dir_all(&dir);
    bytes
        .chunks_exact(4)
        .map(|c| u32::from_le_bytes([c[0], c[1], c[2], c[3]]))
        .collect()
}

fn bench(c: &mut Criterion) {
    for (name, chain) in [("flat", false), ("chain", true)] {
        let words = compile(&glsl(chain));
        eprintln!("{name}: {} KB", words.len() * 4 / 1024);
        let mut g = c.benchmark_group(name);
        g.sample_size(10);
        g.bench_function("SpirvModule::parse", |b| {
            b.iter(|| SpirvModule::parse(black_box(&words)).unwrap())
        });
        let module = Arc::new(SpirvModule::parse(&words).unwrap());
        g.bench_function("instruction walk", |b| {
            b.iter(|| {
                module
                    .instructions()
                    .map(|i| i.operands.len())
                    .sum::<usize>()
            })
        });
        let request = StageRequest {
            stage: vk::ShaderStageFlags::COMPUTE,
            entry_point: "main",
            specialization: vec![(0, 64u32.to_le_bytes().to_vec())],
            ..Default::default()
        };
        g.bench_function("ShaderStage::resolve (specialized)", |b| {
            b.iter(|| ShaderStage::resolve(module.clone(), &request).unwrap())
        });
        g.bench_function("spirq with its static-use analysis", |b| {
            b.iter(|| {
                spirq::ReflectConfig::new()
                    .spv(words.clone())
                    .ref_all_rscs(false)
                    .reflect()
                    .unwrap()
            })
        });
        g.finish();
    }
}

criterion_group!(benches, bench);
criterion_main!(benches);
