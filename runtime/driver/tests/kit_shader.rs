//! The kit's shader modules and stage reflection (issue 30, item 2): GLSL compiled at test
//! time, parsed and reflected through the public API, and modules created through the real
//! entry points of a driver that turns `SHADER_OBJECTS` on.

use std::ffi::CStr;
use std::sync::Arc;

mod support;

use ash::vk;
use ash::vk::Handle as _;
use proptest::prelude::*;
use support::glsl::compile;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::shader::{
    spirv_headers, ExecutionModel, ShaderModule, ShaderStage, SpirvError, SpirvModule,
    StageBinding, StageRequest,
};
use vkgen_driver::kit::{self, Kit};

struct Fixture;

impl DriverModule for Fixture {
    const NAME: &'static CStr = c"shader fixture";
}

impl Kit for Fixture {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const SHADER_OBJECTS: bool = true;
}

impl kit::native_buffer::NativeBuffers for Fixture {}

#[vkgen_driver::driver(kit)]
impl Driver for Fixture {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
}

const COMPUTE: &str = r#"
#version 450
#extension GL_EXT_nonuniform_qualifier : require
layout(local_size_x_id = 0, local_size_y = 2) in;
layout(constant_id = 1) const int N = 4;
layout(constant_id = 3) const bool FLAG = true;
const int M = N * 2;
layout(set = 0, binding = 0) buffer B { uint data[]; } b[3];
layout(set = 0, binding = 1) uniform U { vec4 v; } u;
layout(set = 1, binding = 0) buffer Runtime { uint x; } rt[];
layout(set = 2, binding = 7) buffer Unused { uint y; } unused;
layout(push_constant) uniform P { layout(offset = 4) uint a; uint b; } pc;
shared uint s[64];
uint helper(uint i) { return rt[i].x + pc.b; }
void main() {
    s[gl_LocalInvocationIndex % 64] = pc.a;
    barrier();
    b[1].data[gl_GlobalInvocationID.x] = s[0] + uint(M) + uint(u.v.x) + helper(0) + (FLAG ? 1 : 0);
}
"#;

fn stage<'a>(
    stage: vk::ShaderStageFlags,
    entry: &'a str,
    spec: Vec<(u32, Vec<u8>)>,
) -> StageRequest<'a> {
    StageRequest {
        stage,
        entry_point: entry,
        specialization: spec,
        ..Default::default()
    }
}

fn resolve(words: &[u32], req: &StageRequest<'_>) -> Result<ShaderStage, vk::Result> {
    ShaderStage::resolve(Arc::new(SpirvModule::parse(words).unwrap()), req)
}

fn binding(set: u32, binding: u32, t: vk::DescriptorType, count: u32) -> StageBinding {
    StageBinding {
        set,
        binding,
        descriptor_type: t,
        count,
    }
}

#[test]
fn compute_stage_reflects_bindings_push_constants_and_specialized_workgroup_size() {
    // vulkan1.3 → SPIR-V 1.6 (`OpExecutionModeId LocalSizeId`); vulkan1.0 → SPIR-V 1.0
    // (`LocalSize` and a `WorkgroupSize` built-in of spec constants).
    for target in ["vulkan1.3", "vulkan1.0"] {
        let words = compile("comp", target, COMPUTE);
        let default = resolve(
            &words,
            &stage(vk::ShaderStageFlags::COMPUTE, "main", vec![]),
        )
        .unwrap();
        assert_eq!(default.execution_model, ExecutionModel::GLCompute);
        assert_eq!(default.workgroup_size, Some([1, 2, 1]), "{target}");
        assert_eq!(
            default.bindings,
            vec![
                binding(0, 0, vk::DescriptorType::STORAGE_BUFFER, 3),
                binding(0, 1, vk::DescriptorType::UNIFORM_BUFFER, 1),
                binding(1, 0, vk::DescriptorType::STORAGE_BUFFER, 0),
            ],
            "{target}: the unused (2, 7) is not the stage's"
        );
        assert_eq!(default.push_constants, Some(4..12), "{target}");
        assert_eq!(
            default.specialization,
            vec![
                (0, 1u32.to_le_bytes().to_vec()),
                (1, 4i32.to_le_bytes().to_vec()),
                (3, 1u32.to_le_bytes().to_vec())
            ],
            "{target}: every constant, with the module's defaults"
        );
        let spec = vec![
            (0, 16u32.to_le_bytes().to_vec()),
            (3, 0u32.to_le_bytes().to_vec()),
            (99, vec![1]),
        ];
        let special = resolve(&words, &stage(vk::ShaderStageFlags::COMPUTE, "main", spec)).unwrap();
        assert_eq!(special.workgroup_size, Some([16, 2, 1]), "{target}");
        assert_eq!(special.specialization[0], (0, 16u32.to_le_bytes().to_vec()));
        assert_eq!(special.specialization[2], (3, vec![0; 4]));
        assert_ne!(
            special.key(),
            default.key(),
            "specialization is part of the key"
        );
        assert_eq!(
            default.key(),
            resolve(
                &words,
                &stage(vk::ShaderStageFlags::COMPUTE, "main", vec![])
            )
            .unwrap()
            .key()
        );
    }
}

#[test]
fn spirv_1_6_keeps_its_version_and_exposes_the_instruction_stream() {
    let words = compile("comp", "vulkan1.3", COMPUTE);
    let m = SpirvModule::parse(&words).unwrap();
    assert_eq!(m.minor_version(), 6);
    assert_eq!(m.words(), &words[..]);
    let ops: Vec<_> = m.instructions().map(|i| i.op()).collect();
    assert!(ops.contains(&Some(spirv_headers::Op::ExecutionModeId)));
    assert_eq!(
        m.instructions().last().unwrap().op(),
        Some(spirv_headers::Op::FunctionEnd)
    );
    let words_seen: usize = m.instructions().map(|i| 1 + i.operands.len()).sum();
    assert_eq!(
        words_seen + 5,
        words.len(),
        "the stream covers every word after the header"
    );
    let entry = m
        .instructions()
        .find(|i| i.op() == Some(spirv_headers::Op::EntryPoint))
        .unwrap();
    assert_eq!(entry.string(2).unwrap().0, "main");
    assert_eq!(
        m.entry_points().collect::<Vec<_>>(),
        vec![("main", ExecutionModel::GLCompute)]
    );
}

#[test]
fn eight_sixteen_and_sixty_four_bit_constants_take_their_sizes() {
    let src = r#"
#version 450
#extension GL_EXT_shader_explicit_arithmetic_types : require
#extension GL_EXT_shader_8bit_storage : require
#extension GL_EXT_shader_16bit_storage : require
layout(local_size_x = 1) in;
layout(constant_id = 0) const int8_t A = int8_t(3);
layout(constant_id = 1) const uint16_t B = uint16_t(5);
layout(constant_id = 2) const uint64_t C = 7ul;
layout(constant_id = 3) const double D = 1.5;
layout(set = 0, binding = 0) buffer O { int8_t a; uint16_t b; uint64_t c; double d; };
void main() { a = A; b = B; c = C; d = D; }
"#;
    let words = compile("comp", "vulkan1.3", src);
    let s = resolve(
        &words,
        &stage(
            vk::ShaderStageFlags::COMPUTE,
            "main",
            vec![(2, 9u64.to_le_bytes().to_vec())],
        ),
    )
    .unwrap();
    assert_eq!(
        s.specialization,
        vec![
            (0, vec![3]),
            (1, vec![5, 0]),
            (2, 9u64.to_le_bytes().to_vec()),
            (3, 1.5f64.to_le_bytes().to_vec())
        ]
    );
    assert_eq!(
        resolve(
            &words,
            &stage(vk::ShaderStageFlags::COMPUTE, "main", vec![(2, vec![0; 4])])
        )
        .unwrap_err(),
        vk::Result::ERROR_UNKNOWN,
        "a 4-byte value for a 64-bit constant"
    );
}

#[test]
fn graphics_stages_reflect_every_descriptor_kind() {
    let vert = compile(
        "vert",
        "vulkan1.0",
        r#"
#version 450
layout(location = 0) in vec4 p;
layout(push_constant) uniform P { layout(offset = 16) mat4 m; } pc;
void main() { gl_Position = pc.m * p; }
"#,
    );
    let v = resolve(&vert, &stage(vk::ShaderStageFlags::VERTEX, "main", vec![])).unwrap();
    assert_eq!(
        (v.execution_model, v.workgroup_size),
        (ExecutionModel::Vertex, None)
    );
    assert_eq!(v.push_constants, Some(16..80));
    assert!(v.bindings.is_empty());
    let frag = compile(
        "frag",
        "vulkan1.0",
        r#"
#version 450
layout(set = 0, binding = 0) uniform sampler2D combined;
layout(set = 0, binding = 1) uniform texture2D tex[4];
layout(set = 0, binding = 2) uniform sampler smp;
layout(input_attachment_index = 0, set = 1, binding = 0) uniform subpassInput ia;
layout(set = 1, binding = 1) uniform samplerBuffer utb;
layout(set = 1, binding = 2, r32f) uniform imageBuffer stb;
layout(set = 1, binding = 3, rgba8) uniform image2D img;
layout(location = 0) out vec4 o;
void main() {
    o = texture(combined, vec2(0)) + texture(sampler2D(tex[2], smp), vec2(0)) + subpassLoad(ia)
      + texelFetch(utb, 0) + imageLoad(stb, 0) + imageLoad(img, ivec2(0));
}
"#,
    );
    let f = resolve(
        &frag,
        &stage(vk::ShaderStageFlags::FRAGMENT, "main", vec![]),
    )
    .unwrap();
    use vk::DescriptorType as T;
    assert_eq!(
        f.bindings,
        vec![
            binding(0, 0, T::COMBINED_IMAGE_SAMPLER, 1),
            binding(0, 1, T::SAMPLED_IMAGE, 4),
            binding(0, 2, T::SAMPLER, 1),
            binding(1, 0, T::INPUT_ATTACHMENT, 1),
            binding(1, 1, T::UNIFORM_TEXEL_BUFFER, 1),
            binding(1, 2, T::STORAGE_TEXEL_BUFFER, 1),
            binding(1, 3, T::STORAGE_IMAGE, 1),
        ]
    );
    assert_eq!(f.push_constants, None);
}

#[test]
fn an_absent_entry_point_or_a_stage_of_another_model_is_an_error() {
    let words = compile("comp", "vulkan1.3", COMPUTE);
    for (s, name) in [
        (vk::ShaderStageFlags::COMPUTE, "mian"),
        (vk::ShaderStageFlags::VERTEX, "main"),
    ] {
        assert_eq!(
            resolve(&words, &stage(s, name, vec![])).unwrap_err(),
            vk::Result::ERROR_UNKNOWN
        );
    }
}

fn valid() -> Vec<u32> {
    compile("comp", "vulkan1.3", COMPUTE)
}

#[test]
fn bad_headers_and_word_counts_are_errors() {
    let good = valid();
    assert!(matches!(
        SpirvModule::parse(&good[..4]),
        Err(SpirvError::TooShort(4))
    ));
    let swapped: Vec<u32> = good.iter().map(|w| w.swap_bytes()).collect();
    assert!(matches!(
        SpirvModule::parse(&swapped),
        Err(SpirvError::ByteSwapped(_))
    ));
    let mut magic = good.clone();
    magic[0] = 0xdead_beef;
    assert!(matches!(
        SpirvModule::parse(&magic),
        Err(SpirvError::BadMagic(0xdead_beef))
    ));
    let mut version = good.clone();
    version[1] = 0x0001_0700;
    assert!(matches!(
        SpirvModule::parse(&version),
        Err(SpirvError::Version(_))
    ));
    let mut bound = good.clone();
    bound[3] = 0;
    assert!(matches!(
        SpirvModule::parse(&bound),
        Err(SpirvError::ZeroBound)
    ));
    let mut truncated = good.clone();
    truncated.extend([(4 << 16) | 1, 0]);
    assert!(matches!(
        SpirvModule::parse(&truncated),
        Err(SpirvError::Truncated { count: 4, .. })
    ));
    let mut zero = good.clone();
    zero[5] = 0;
    assert!(matches!(
        SpirvModule::parse(&zero),
        Err(SpirvError::ZeroWordCount(5))
    ));
    assert!(matches!(
        SpirvModule::parse_bytes(&[3, 2, 35, 7, 0]),
        Err(SpirvError::Unaligned(5))
    ));
    let garbage: Vec<u32> = (0..64u32).map(|i| i.wrapping_mul(0x9e37_79b9)).collect();
    assert!(SpirvModule::parse(&garbage).is_err());
}

proptest! {
    #![proptest_config(ProptestConfig { cases: 256, ..ProptestConfig::default() })]
    /// Random word mutations of a valid module parse or fail; they never panic and a parsed
    /// one's instruction stream still covers the module exactly.
    #[test]
    fn mutated_modules_never_panic(edits in proptest::collection::vec((any::<prop::sample::Index>(), any::<u32>()), 1..6), cut in any::<prop::sample::Index>()) {
        static GOOD: std::sync::OnceLock<Vec<u32>> = std::sync::OnceLock::new();
        let good = GOOD.get_or_init(valid);
        let mut words = good.clone();
        for (at, w) in edits {
            let i = at.index(words.len());
            words[i] = w;
        }
        let words = &words[..cut.index(words.len() + 1)];
        if let Ok(m) = SpirvModule::parse(words) {
            let seen: usize = m.instructions().map(|i| 1 + i.operands.len()).sum();
            prop_assert_eq!(seen + 5, words.len());
            for (name, model) in m.entry_points() {
                if let Some(s) = vkgen_driver::kit::shader::stage::stage_of(model) {
                    let _ = ShaderStage::resolve(Arc::new(SpirvModule::parse(words).unwrap()), &stage(s, name, vec![]));
                }
            }
        }
    }
}

struct Setup {
    instance: ash::Instance,
    device: ash::Device,
}

impl Drop for Setup {
    fn drop(&mut self) {
        // SAFETY: objects of this test, destroyed once, children first.
        unsafe {
            self.device.destroy_device(None);
            self.instance.destroy_instance(None);
        }
    }
}

fn setup() -> Setup {
    let (instance, device) = support::instance_and_device::<Fixture>(vk::API_VERSION_1_3, 1);
    Setup { instance, device }
}

#[test]
fn shader_modules_keep_validated_code_and_refuse_bad_code() {
    let s = setup();
    let words = valid();
    // SAFETY: a live device and valid create infos; the module is destroyed below.
    unsafe {
        let m = s
            .device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            .unwrap();
        let module = ShaderModule::from_handle(m).unwrap();
        assert_eq!(module.code.words(), &words[..]);
        let code = module.code.clone();
        s.device.destroy_shader_module(m, None);
        assert_eq!(code.words(), &words[..], "the code outlives its handle");
        let swapped: Vec<u32> = words.iter().map(|w| w.swap_bytes()).collect();
        let mut cut = words.clone();
        cut.extend([(9 << 16) | 1]);
        for bad in [&words[..3], &swapped[..], &cut[..]] {
            assert_eq!(
                s.device
                    .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(bad), None),
                Err(vk::Result::ERROR_UNKNOWN)
            );
        }
    }
}

#[test]
fn stages_from_create_infos_by_handle_and_inline_with_specialization_and_subgroup_size() {
    let s = setup();
    let words = valid();
    let data = 8u32.to_le_bytes();
    let entries = [vk::SpecializationMapEntry {
        constant_id: 0,
        offset: 0,
        size: 4,
    }];
    let spec = vk::SpecializationInfo::default()
        .map_entries(&entries)
        .data(&data);
    // SAFETY: a live device and valid structures that outlive the calls.
    unsafe {
        let m = s
            .device
            .create_shader_module(&vk::ShaderModuleCreateInfo::default().code(&words), None)
            .unwrap();
        let info = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .module(m)
            .name(c"main")
            .specialization_info(&spec);
        let by_handle = ShaderStage::from_create_info(&info).unwrap();
        assert_eq!(by_handle.workgroup_size, Some([8, 2, 1]));
        assert_eq!(by_handle.required_subgroup_size, None);
        s.device.destroy_shader_module(m, None);

        let mut inline = vk::ShaderModuleCreateInfo::default().code(&words);
        let mut subgroup = vk::PipelineShaderStageRequiredSubgroupSizeCreateInfo::default()
            .required_subgroup_size(32);
        let info = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .name(c"main")
            .specialization_info(&spec)
            .push_next(&mut inline)
            .push_next(&mut subgroup);
        let inline_stage = ShaderStage::from_create_info(&info).unwrap();
        assert_eq!(inline_stage.required_subgroup_size, Some(32));
        assert_eq!(inline_stage.workgroup_size, by_handle.workgroup_size);
        assert_eq!(inline_stage.bindings, by_handle.bindings);
        assert_ne!(
            inline_stage.key(),
            by_handle.key(),
            "the subgroup size is part of the key"
        );

        let bad_entries = [vk::SpecializationMapEntry {
            constant_id: 0,
            offset: 2,
            size: 4,
        }];
        let bad = vk::SpecializationInfo::default()
            .map_entries(&bad_entries)
            .data(&data);
        let mut inline = vk::ShaderModuleCreateInfo::default().code(&words);
        let info = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .name(c"main")
            .specialization_info(&bad)
            .push_next(&mut inline);
        assert_eq!(
            ShaderStage::from_create_info(&info).unwrap_err(),
            vk::Result::ERROR_UNKNOWN,
            "past pData's end"
        );
        let none = vk::PipelineShaderStageCreateInfo::default()
            .stage(vk::ShaderStageFlags::COMPUTE)
            .name(c"main");
        assert_eq!(
            ShaderStage::from_create_info(&none).unwrap_err(),
            vk::Result::ERROR_UNKNOWN,
            "no module at all"
        );
    }
}

#[test]
fn module_identifiers_are_the_code_hash_from_a_module_or_a_create_info() {
    let s = setup();
    let words = valid();
    // The extension is not advertised by the fixture: its commands straight from the kit's map.
    let table = kit::entries::<Fixture>();
    let of_module = table.get_shader_module_identifier_ext.unwrap();
    let of_info = table.get_shader_module_create_info_identifier_ext.unwrap();
    let info = vk::ShaderModuleCreateInfo::default().code(&words);
    // SAFETY: a live device and valid structures; the module is destroyed below.
    unsafe {
        let m = s.device.create_shader_module(&info, None).unwrap();
        let mut a = vk::ShaderModuleIdentifierEXT::default();
        of_module(s.device.handle(), m, &mut a);
        let mut b = vk::ShaderModuleIdentifierEXT::default();
        of_info(s.device.handle(), &info, &mut b);
        assert_eq!(a.identifier_size, 32);
        assert_eq!(a.identifier, b.identifier);
        assert_eq!(
            a.identifier[..32],
            SpirvModule::parse(&words).unwrap().hash()
        );
        assert!(!m.is_null());
        s.device.destroy_shader_module(m, None);
    }
}
