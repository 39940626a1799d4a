//! The kit's pipeline caches (issue 30, item 4's cache part) through the real entry points of
//! a driver that turns `SHADER_OBJECTS` on: the spec's header from the device's properties,
//! the size query, `VK_INCOMPLETE` with a valid prefix, initial data round trips, a foreign
//! header ignored, and merges.

use std::ffi::CStr;

mod support;

use ash::vk;
use vkgen_driver::export::DriverModule;
use vkgen_driver::generated::driver::Driver;
use vkgen_driver::kit::shader::PipelineCache;
use vkgen_driver::kit::{self, Kit, PhysicalDeviceDesc};

struct Fixture;

const UUID: [u8; 16] = *b"vkgen-cache-test";

impl DriverModule for Fixture {
    const NAME: &'static CStr = c"cache fixture";
}

impl Kit for Fixture {
    type Instance = ();
    type PhysicalDevice = ();
    type Device = ();
    type Queue = ();
    type CommandBuffer = ();
    type CommandPool = ();
    const SHADER_OBJECTS: bool = true;

    fn physical_devices(
        _instance: &kit::Instance<Self>,
    ) -> Result<Vec<PhysicalDeviceDesc<Self>>, vk::Result> {
        let mut d = PhysicalDeviceDesc::new(c"cache fixture", ());
        d.properties.vendor_id = 0x1234;
        d.properties.device_id = 0x5678;
        d.properties.pipeline_cache_uuid = UUID;
        Ok(vec![d])
    }
}

impl kit::native_buffer::NativeBuffers for Fixture {}

#[vkgen_driver::driver(kit)]
impl Driver for Fixture {
    const API_VERSION: u32 = vk::API_VERSION_1_3;
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

fn cache(d: &ash::Device, initial: &[u8]) -> vk::PipelineCache {
    // SAFETY: a live device and a create info that lives for the call.
    unsafe {
        d.create_pipeline_cache(
            &vk::PipelineCacheCreateInfo::default().initial_data(initial),
            None,
        )
    }
    .unwrap()
}

fn kit_cache<'a>(c: vk::PipelineCache) -> &'a PipelineCache {
    // SAFETY: a live cache of this test's driver.
    unsafe { PipelineCache::from_handle(c) }.unwrap()
}

fn data(d: &ash::Device, c: vk::PipelineCache) -> Vec<u8> {
    // SAFETY: a live cache of this device.
    unsafe { d.get_pipeline_cache_data(c) }.unwrap()
}

#[test]
fn an_empty_cache_is_the_specs_header_of_this_device() {
    let s = setup();
    let c = cache(&s.device, &[]);
    let bytes = data(&s.device, c);
    assert_eq!(bytes.len(), 32);
    let word = |i: usize| u32::from_le_bytes(bytes[i..i + 4].try_into().unwrap());
    assert_eq!(
        (word(0), word(4), word(8), word(12)),
        (32, 1, 0x1234, 0x5678)
    );
    assert_eq!(bytes[16..], UUID);
    // SAFETY: a cache of this test, unused.
    unsafe { s.device.destroy_pipeline_cache(c, None) };
}

#[test]
fn data_round_trips_and_a_foreign_header_is_ignored() {
    let s = setup();
    let c = cache(&s.device, &[]);
    let k = kit_cache(c);
    assert!(!k.lookup_or_insert(&[1; 32], b"one"));
    assert!(
        k.lookup_or_insert(&[1; 32], b"ignored"),
        "a second insert is a hit"
    );
    assert!(!k.lookup_or_insert(&[2; 32], b""));
    let bytes = data(&s.device, c);
    assert_eq!(bytes.len(), 32 + (36 + 3) + 36);

    let again = cache(&s.device, &bytes);
    let a = kit_cache(again);
    assert_eq!(a.len(), 2);
    assert!(
        a.lookup_or_insert(&[1; 32], b"x"),
        "initial data counts as cached"
    );
    assert_eq!(&*a.get(&[1; 32]).unwrap(), b"one");
    assert_eq!(data(&s.device, again), bytes, "byte for byte");

    for corrupt in [8usize, 12, 16, 0, 4] {
        let mut foreign = bytes.clone();
        foreign[corrupt] ^= 1;
        let f = cache(&s.device, &foreign);
        assert!(
            kit_cache(f).is_empty(),
            "header byte {corrupt} changed: ignored"
        );
        // SAFETY: a cache of this test, unused.
        unsafe { s.device.destroy_pipeline_cache(f, None) };
    }
    let short = cache(&s.device, &bytes[..bytes.len() - 5]);
    assert_eq!(kit_cache(short).len(), 1, "a truncated entry ends the data");
    // SAFETY: caches of this test, unused.
    unsafe {
        for x in [c, again, short] {
            s.device.destroy_pipeline_cache(x, None);
        }
    }
}

#[test]
fn a_short_buffer_gets_a_valid_prefix_and_incomplete() {
    let s = setup();
    let c = cache(&s.device, &[]);
    let k = kit_cache(c);
    for i in 0..4u8 {
        k.lookup_or_insert(&[i; 32], &[i; 10]);
    }
    let full = data(&s.device, c);
    assert_eq!(full.len(), 32 + 4 * 46);
    let get = |size: usize| {
        let mut buf = vec![0xEEu8; size];
        let mut n = size;
        // SAFETY: `buf` holds `n` bytes; a live cache of this device.
        let r = unsafe {
            (s.device.fp_v1_0().get_pipeline_cache_data)(
                s.device.handle(),
                c,
                &mut n,
                buf.as_mut_ptr().cast(),
            )
        };
        (r, n, buf)
    };
    let (r, n, buf) = get(31);
    assert_eq!(
        (r, n),
        (vk::Result::INCOMPLETE, 0),
        "shorter than the header: nothing"
    );
    assert!(buf.iter().all(|&b| b == 0xEE));
    let (r, n, buf) = get(32 + 46 * 2 + 45);
    assert_eq!((r, n), (vk::Result::INCOMPLETE, 32 + 46 * 2));
    assert_eq!(buf[..n], full[..n]);
    let prefix = cache(&s.device, &buf[..n]);
    assert_eq!(kit_cache(prefix).len(), 2, "the prefix is valid cache data");
    let (r, n, _) = get(full.len());
    assert_eq!((r, n), (vk::Result::SUCCESS, full.len()));
    // SAFETY: caches of this test, unused.
    unsafe {
        s.device.destroy_pipeline_cache(c, None);
        s.device.destroy_pipeline_cache(prefix, None);
    }
}

#[test]
fn merging_adds_the_sources_entries() {
    let s = setup();
    let dst = cache(&s.device, &[]);
    let a = cache(&s.device, &[]);
    let b = cache(&s.device, &[]);
    kit_cache(dst).lookup_or_insert(&[1; 32], b"dst");
    kit_cache(a).lookup_or_insert(&[1; 32], b"a");
    kit_cache(a).lookup_or_insert(&[2; 32], b"a");
    kit_cache(b).lookup_or_insert(&[3; 32], b"b");
    // SAFETY: live caches of this device; `dst` is not a source.
    unsafe { s.device.merge_pipeline_caches(dst, &[a, b]) }.unwrap();
    let d = kit_cache(dst);
    assert_eq!(d.len(), 3);
    assert_eq!(
        &*d.get(&[1; 32]).unwrap(),
        b"dst",
        "the destination's entry stays"
    );
    assert_eq!(&*d.get(&[3; 32]).unwrap(), b"b");
    let merged = data(&s.device, dst);
    let round = cache(&s.device, &merged);
    assert_eq!(kit_cache(round).len(), 3);
    // SAFETY: caches of this test, unused.
    unsafe {
        for x in [dst, a, b, round] {
            s.device.destroy_pipeline_cache(x, None);
        }
    }
}
