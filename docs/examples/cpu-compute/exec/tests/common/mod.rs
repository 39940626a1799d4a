//! Test support: GLSL compiled at test time with glslangValidator, host buffers as Resources.
#![allow(dead_code)]

use cpu_compute_exec::{Program, Refusal, Resources, Span};
use std::marker::PhantomData;
use std::path::PathBuf;

/// Compiles `tests/shaders/<name>` for `env` (e.g. "vulkan1.1") and returns the SPIR-V words.
pub fn spirv(name: &str, env: &str) -> Vec<u32> {
    spirv_at(
        &PathBuf::from(env!("CARGO_MANIFEST_DIR"))
            .join("tests/shaders")
            .join(name),
        env,
    )
}

/// Compiles the GLSL file at `src` for `env`.
pub fn spirv_at(src: &std::path::Path, env: &str) -> Vec<u32> {
    let name = src.file_name().unwrap().to_string_lossy().into_owned();
    let name = name.as_str();
    // A machine without glslang (the benchmark host) reads modules compiled beforehand.
    if let Some(dir) = std::env::var_os("CCE_SPV_DIR") {
        let path = PathBuf::from(dir).join(format!("{name}-{env}.spv"));
        if let Ok(bytes) = std::fs::read(&path) {
            return bytes
                .chunks(4)
                .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
                .collect();
        }
    }
    let out = std::env::temp_dir().join(format!("cce-{}-{}-{}.spv", std::process::id(), name, env));
    let st = std::process::Command::new("/usr/bin/glslangValidator")
        .args(["-V", "--target-env", env, "-o"])
        .arg(&out)
        .arg(src)
        .output()
        .expect("glslangValidator runs");
    assert!(
        st.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&st.stdout)
    );
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    bytes
        .chunks(4)
        .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
        .collect()
}

/// Assembles `tests/shaders/<name>` with spirv-as, or None where spirv-tools is not installed.
pub fn assemble(name: &str) -> Option<Vec<u32>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name);
    let out = std::env::temp_dir().join(format!("cce-{}-{}.spv", std::process::id(), name));
    let st = std::process::Command::new("spirv-as")
        .args(["--target-env", "vulkan1.1", "-o"])
        .arg(&out)
        .arg(&src)
        .output()
        .ok()?;
    assert!(
        st.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    Some(
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

/// Compiles `tests/shaders/<name>` (WGSL) with naga as wgpu would, or None without naga.
pub fn wgsl(name: &str, args: &[&str]) -> Option<Vec<u32>> {
    let src = PathBuf::from(env!("CARGO_MANIFEST_DIR"))
        .join("tests/shaders")
        .join(name);
    let tag: String = args
        .concat()
        .chars()
        .filter(|c| c.is_ascii_alphanumeric())
        .collect();
    let out = std::env::temp_dir().join(format!("cce-{}-{}-{tag}.spv", std::process::id(), name));
    let st = match std::process::Command::new("naga")
        .args(args)
        .arg(&src)
        .arg(&out)
        .output()
    {
        Ok(st) => st,
        Err(_) => {
            eprintln!("naga is not installed: {name} not run");
            return None;
        }
    };
    assert!(
        st.status.success(),
        "{name}: {}",
        String::from_utf8_lossy(&st.stderr)
    );
    let bytes = std::fs::read(&out).unwrap();
    let _ = std::fs::remove_file(&out);
    Some(
        bytes
            .chunks(4)
            .map(|c| u32::from_le_bytes(c.try_into().unwrap()))
            .collect(),
    )
}

pub fn program(name: &str, env: &str, spec: &[(u32, Vec<u8>)]) -> Result<Program, Refusal> {
    Program::from_words(&spirv(name, env), "main", spec)
}

/// Borrowed host slices bound at (set, binding).
#[derive(Default)]
pub struct Res<'a> {
    bufs: Vec<((u32, u32, u32), Span)>,
    /// Memory reachable only by device address (bufferDeviceAddress), besides the bound buffers.
    addressable: Vec<Span>,
    /// Whether `address_range` resolves anything (false: the trait's default behaviour).
    resolve: bool,
    push: Vec<u8>,
    _borrow: PhantomData<&'a mut ()>,
}

impl<'a> Res<'a> {
    pub fn new() -> Self {
        Res {
            bufs: Vec::new(),
            addressable: Vec::new(),
            resolve: true,
            push: Vec::new(),
            _borrow: PhantomData,
        }
    }
    pub fn buf<T: Copy>(self, set: u32, binding: u32, data: &'a mut [T]) -> Self {
        self.elem(set, binding, 0, data)
    }
    pub fn elem<T: Copy>(
        mut self,
        set: u32,
        binding: u32,
        element: u32,
        data: &'a mut [T],
    ) -> Self {
        let span = Span {
            ptr: data.as_mut_ptr() as *mut u8,
            len: std::mem::size_of_val(data),
        };
        self.bufs.push(((set, binding, element), span));
        self
    }
    /// Memory a shader reaches only through its device address (its host address).
    pub fn addressable<T: Copy>(mut self, data: &'a mut [T]) -> Self {
        self.addressable.push(Span {
            ptr: data.as_mut_ptr() as *mut u8,
            len: std::mem::size_of_val(data),
        });
        self
    }
    /// Makes `address_range` resolve nothing.
    pub fn no_addresses(mut self) -> Self {
        self.resolve = false;
        self
    }
    pub fn push<T: Copy>(mut self, v: &[T]) -> Self {
        // SAFETY: T is plain data (Copy numbers in these tests); viewing it as bytes is sound.
        let b = unsafe {
            std::slice::from_raw_parts(v.as_ptr() as *const u8, std::mem::size_of_val(v))
        };
        self.push = b.to_vec();
        self
    }
}

// SAFETY: every Span borrows a slice for 'a (the PhantomData holds the &mut borrow), so it stays
// valid and unaliased by the test until the Res is dropped after dispatch.
unsafe impl Resources for Res<'_> {
    fn buffer(&self, set: u32, binding: u32, element: u32) -> Option<Span> {
        self.bufs
            .iter()
            .find(|(k, _)| *k == (set, binding, element))
            .map(|(_, s)| *s)
    }
    fn push_constants(&self) -> &[u8] {
        &self.push
    }
    fn address_range(&self, addr: u64) -> Option<Span> {
        let inside = |s: &Span| (s.ptr as u64..s.ptr as u64 + s.len as u64).contains(&addr);
        let mut all = self.bufs.iter().map(|b| &b.1).chain(&self.addressable);
        all.find(|s| self.resolve && inside(s)).copied()
    }
}

/// The device address of `data` (this executor's device address is the host address).
pub fn addr_of<T>(data: &[T]) -> u64 {
    data.as_ptr() as u64
}

pub fn spec_u32(id: u32, v: u32) -> (u32, Vec<u8>) {
    (id, v.to_le_bytes().to_vec())
}

/// A small deterministic generator for test data.
pub struct Lcg(pub u64);
impl Lcg {
    pub fn next(&mut self) -> u32 {
        self.0 = self
            .0
            .wrapping_mul(6364136223846793005)
            .wrapping_add(1442695040888963407);
        (self.0 >> 33) as u32
    }
    pub fn f32(&mut self) -> f32 {
        (self.next() % 2000) as f32 / 100.0 - 10.0
    }
}
