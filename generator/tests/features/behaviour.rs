//! Hand-written checks of the generated feature and property tables. Compiled against the
//! checked-in crate (generator/tests/features.rs) and, copied, against the output for each
//! registry of `fill_matrix`; uses only names every 1.3+ selection has.

use vkgen_generated::features::{Features, Properties, FEATURE_STRUCTS, PROPERTY_STRUCTS};
use vkgen_generated::vk;

/// Aliases agree: one field fills every structure carrying the member.
#[test]
fn alias_fields_agree() {
    let f = Features {
        shader_draw_parameters: true,
        multiview: true,
        ..Default::default()
    };
    let mut draw = vk::PhysicalDeviceShaderDrawParametersFeatures::default();
    let mut multiview = vk::PhysicalDeviceMultiviewFeatures::default();
    let mut v11 = vk::PhysicalDeviceVulkan11Features::default();
    draw.p_next = (&mut multiview as *mut vk::PhysicalDeviceMultiviewFeatures<'_>).cast();
    multiview.p_next = (&mut v11 as *mut vk::PhysicalDeviceVulkan11Features<'_>).cast();
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut draw as *mut vk::PhysicalDeviceShaderDrawParametersFeatures<'_>).cast(),
        ..Default::default()
    };
    // SAFETY: a valid chain of three feature structures.
    unsafe { f.write_chain(&mut f2) };
    assert_eq!(draw.shader_draw_parameters, vk::TRUE);
    assert_eq!(v11.shader_draw_parameters, vk::TRUE);
    assert_eq!(multiview.multiview, vk::TRUE);
    assert_eq!(v11.multiview, vk::TRUE);
    assert_eq!(v11.protected_memory, vk::FALSE);
    assert_eq!(f2.features.geometry_shader, vk::FALSE);
}

/// Structures in any order, an unknown sType in the middle left untouched, NULL is safe.
#[test]
fn chain_in_any_order_with_unknown_structure() {
    #[repr(C)]
    struct Unknown {
        s_type: i32,
        p_next: *mut core::ffi::c_void,
        payload: [u32; 8],
    }
    let f = Features::all_true();
    let mut v13 = vk::PhysicalDeviceVulkan13Features::default();
    let mut unknown = Unknown {
        s_type: 0x7FFF_0042,
        p_next: (&mut v13 as *mut vk::PhysicalDeviceVulkan13Features<'_>).cast(),
        payload: [0xDEAD_BEEF; 8],
    };
    let mut v12 = vk::PhysicalDeviceVulkan12Features {
        p_next: (&mut unknown as *mut Unknown).cast(),
        ..Default::default()
    };
    let mut f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut v12 as *mut vk::PhysicalDeviceVulkan12Features<'_>).cast(),
        ..Default::default()
    };
    // SAFETY: a valid chain; the unknown structure has a header.
    unsafe { f.write_chain(&mut f2) };
    assert_eq!(f2.features.geometry_shader, vk::TRUE);
    assert_eq!(v12.timeline_semaphore, vk::TRUE);
    assert_eq!(v13.dynamic_rendering, vk::TRUE);
    assert_eq!(unknown.payload, [0xDEAD_BEEF; 8]);
    assert_eq!(unknown.s_type, 0x7FFF_0042);
    // The links are kept.
    assert_eq!(v12.p_next, (&mut unknown as *mut Unknown).cast());
    // SAFETY: NULL is accepted everywhere.
    unsafe {
        f.write_chain(core::ptr::null_mut());
        f.write_features10(core::ptr::null_mut());
        assert!(!f.write_struct(core::ptr::null_mut()));
        assert_eq!(
            Features::from_device_create_info(core::ptr::null()),
            Features::default()
        );
    }
    assert!(FEATURE_STRUCTS
        .iter()
        .any(|s| s.0 == vk::StructureType::PHYSICAL_DEVICE_VULKAN_1_3_FEATURES));
}

/// vkCreateDevice: the union of pEnabledFeatures and the chain (Features2 included), and the
/// first requested feature the device lacks.
#[test]
fn create_info_union_and_first_missing() {
    let enabled10 = vk::PhysicalDeviceFeatures {
        geometry_shader: vk::TRUE,
        ..Default::default()
    };
    let mut v12 = vk::PhysicalDeviceVulkan12Features {
        descriptor_indexing: vk::TRUE,
        ..Default::default()
    };
    let f2 = vk::PhysicalDeviceFeatures2 {
        p_next: (&mut v12 as *mut vk::PhysicalDeviceVulkan12Features<'_>).cast(),
        features: vk::PhysicalDeviceFeatures {
            tessellation_shader: vk::TRUE,
            ..Default::default()
        },
        ..Default::default()
    };
    let draw = vk::PhysicalDeviceShaderDrawParametersFeatures {
        p_next: (&f2 as *const vk::PhysicalDeviceFeatures2<'_>) as *mut _,
        shader_draw_parameters: vk::TRUE,
        ..Default::default()
    };
    let info = vk::DeviceCreateInfo {
        p_next: (&draw as *const vk::PhysicalDeviceShaderDrawParametersFeatures<'_>).cast(),
        p_enabled_features: &enabled10,
        ..Default::default()
    };
    // SAFETY: a valid create info and chain.
    let wanted = unsafe { Features::from_device_create_info(&info) };
    let expected = Features {
        geometry_shader: true,
        tessellation_shader: true,
        descriptor_indexing: true,
        shader_draw_parameters: true,
        ..Default::default()
    };
    assert_eq!(wanted, expected);

    let mut device = Features::all_true();
    assert_eq!(device.first_missing(&wanted), None);
    device.geometry_shader = false;
    assert_eq!(device.first_missing(&wanted), Some("geometryShader"));
    device.geometry_shader = true;
    device.shader_draw_parameters = false;
    assert_eq!(device.first_missing(&wanted), Some("shaderDrawParameters"));
    assert_eq!(device.get("shaderDrawParameters"), Some(false));
    assert!(device.set("shaderDrawParameters", true));
    assert_eq!(device.first_missing(&wanted), None);
    assert_eq!(device.get("noSuchFeature"), None);
    let mut u = Features::default();
    u.union_with(&wanted);
    assert_eq!(u, wanted);
}

/// Properties: the 1.0 structure round-trips, aliases agree (core 1.1 and IDProperties; the
/// subgroup members core renamed), and unknown structures are untouched.
#[test]
fn properties_fill_and_round_trip() {
    let mut p = Properties {
        api_version: vk::make_api_version(0, 1, 3, 0),
        vendor_id: 0x1234,
        max_image_dimension2_d: 4096,
        residency_standard2_d_block_shape: true,
        subgroup_size: 32,
        subgroup_supported_stages: vk::ShaderStageFlags::COMPUTE,
        max_multiview_view_count: 6,
        ..Default::default()
    };
    p.device_uuid = [7; 16];
    p.device_name[..4].copy_from_slice(&[b'a' as _, b'c' as _, b'm' as _, b'e' as _]);
    p.point_size_range = [1.0, 64.0];
    p.driver_id = vk::DriverId::MESA_LLVMPIPE;

    let p10 = p.properties10();
    assert_eq!(p10.limits.max_image_dimension2_d, 4096);
    assert_eq!(
        p10.sparse_properties.residency_standard2_d_block_shape,
        vk::TRUE
    );
    assert_eq!(p10.limits.point_size_range, [1.0, 64.0]);
    let mut q = Properties::default();
    q.from_properties10(&p10);
    assert_eq!(q.properties10().limits.max_image_dimension2_d, 4096);
    assert_eq!(q.vendor_id, 0x1234);
    assert_eq!(q.device_name[..4], p.device_name[..4]);

    let mut id = vk::PhysicalDeviceIDProperties::default();
    let mut subgroup = vk::PhysicalDeviceSubgroupProperties {
        p_next: (&mut id as *mut vk::PhysicalDeviceIDProperties<'_>).cast(),
        ..Default::default()
    };
    let mut v11 = vk::PhysicalDeviceVulkan11Properties {
        p_next: (&mut subgroup as *mut vk::PhysicalDeviceSubgroupProperties<'_>).cast(),
        ..Default::default()
    };
    let mut v12 = vk::PhysicalDeviceVulkan12Properties {
        p_next: (&mut v11 as *mut vk::PhysicalDeviceVulkan11Properties<'_>).cast(),
        ..Default::default()
    };
    let mut p2 = vk::PhysicalDeviceProperties2 {
        p_next: (&mut v12 as *mut vk::PhysicalDeviceVulkan12Properties<'_>).cast(),
        ..Default::default()
    };
    // SAFETY: a valid chain.
    unsafe { p.write_chain(&mut p2) };
    assert_eq!(p2.properties.vendor_id, 0x1234);
    assert_eq!(id.device_uuid, [7; 16]);
    assert_eq!(v11.device_uuid, [7; 16]);
    assert_eq!(v11.subgroup_size, 32);
    assert_eq!(subgroup.subgroup_size, 32);
    assert!(subgroup.supported_stages == vk::ShaderStageFlags::COMPUTE);
    assert!(v11.subgroup_supported_stages == vk::ShaderStageFlags::COMPUTE);
    assert_eq!(v11.max_multiview_view_count, 6);
    assert!(v12.driver_id == vk::DriverId::MESA_LLVMPIPE);
    assert!(PROPERTY_STRUCTS
        .iter()
        .any(|s| s.0 == vk::StructureType::PHYSICAL_DEVICE_ID_PROPERTIES));
    // SAFETY: NULL is accepted.
    unsafe { p.write_chain(core::ptr::null_mut()) };
    let _ = format!("{p:?}");
}
