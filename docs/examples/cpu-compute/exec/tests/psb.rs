//! bufferDeviceAddress: GLSL buffer_reference shaders follow pointers read from buffers.
mod common;
use common::*;
use cpu_compute_exec::Program;
use std::sync::OnceLock;

/// psb.comp compiled once: the tests run in parallel and glslang's output path is per process.
fn psb_program() -> Program {
    static WORDS: OnceLock<Vec<u32>> = OnceLock::new();
    let words = WORDS.get_or_init(|| spirv("psb.comp", "vulkan1.3"));
    Program::from_words(words, "main", &[]).unwrap()
}

/// A three-node list (pointers in PSB memory), each node pointing at its own data words.
struct List {
    nodes: Vec<Vec<u64>>,
    data: Vec<Vec<u32>>,
}

fn list(n: usize) -> List {
    let mut g = Lcg(11);
    let data: Vec<Vec<u32>> = (0..3).map(|_| (0..n).map(|_| g.next()).collect()).collect();
    // Node layout (std430): next @0, data @8, scale @16.
    let mut nodes: Vec<Vec<u64>> = (0..3).map(|_| vec![0u64; 3]).collect();
    let addrs: Vec<u64> = nodes.iter().map(|v| addr_of(v)).collect();
    for k in 0..3 {
        nodes[k][0] = if k < 2 { addrs[k + 1] } else { 0 };
        nodes[k][1] = addr_of(&data[k]);
        nodes[k][2] = 3 + 2 * k as u64;
    }
    List { nodes, data }
}

fn expected(l: &List, i: usize) -> u32 {
    (0..3).fold(0u32, |acc, k| {
        acc.wrapping_add(l.data[k][i].wrapping_mul(3 + 2 * k as u32))
    })
}

#[test]
fn follows_pointers_through_buffers() {
    let prog = psb_program();
    let n = 1000usize;
    let mut l = list(n);
    let mut out = vec![0xffff_ffffu32; 2 * n];
    let mut roots = vec![addr_of(&l.nodes[0]), addr_of(&out), n as u64];
    // An address inside no buffer the Resources know: its load reads 0, its store is dropped.
    let probe = 0x10u64;
    let [n0, n1, n2] = &mut l.nodes[..] else {
        unreachable!()
    };
    let [d0, d1, d2] = &mut l.data[..] else {
        unreachable!()
    };
    let res = Res::new()
        .buf(0, 0, &mut roots)
        .addressable(n0)
        .addressable(n1)
        .addressable(n2)
        .addressable(d0)
        .addressable(d1)
        .addressable(d2)
        .addressable(&mut out)
        .push(&[probe]);
    prog.dispatch(&res, [0; 3], [(n as u32).div_ceil(64), 1, 1], 4)
        .unwrap();
    drop(res);
    for i in 0..n {
        assert_eq!(out[i], expected(&l, i), "list sum at {i}");
        // 0 (the unresolved load) + the byte offset of word i from the uvec2/u64 arithmetic.
        assert_eq!(out[n + i], 4 * i as u32, "address arithmetic at {i}");
    }
}

#[test]
fn unresolvable_addresses_read_zero_and_drop_stores() {
    let prog = psb_program();
    let n = 200usize;
    let l = list(n);
    let out = vec![0x1234_5678u32; 2 * n];
    // Pointers in the descriptor resolve to nothing: the walk reads a null `next` at once and
    // every store through `out_words` is dropped.
    let mut roots = vec![addr_of(&l.nodes[0]), addr_of(&out), n as u64];
    let res = Res::new()
        .buf(0, 0, &mut roots)
        .no_addresses()
        .push(&[addr_of(&l.data[0])]);
    prog.dispatch(&res, [0; 3], [(n as u32).div_ceil(64), 1, 1], 2)
        .unwrap();
    drop(res);
    assert!(out.iter().all(|&w| w == 0x1234_5678));
    const { assert!(cpu_compute_exec::SUPPORTED.buffer_device_address) };
    assert_eq!(l.nodes[0][2], 3, "node memory untouched");
}

#[test]
fn ptr_access_chain_uses_the_pointer_array_stride() {
    let Some(words) = assemble("psb_chain.spvasm") else {
        eprintln!("spirv-as is not installed: psb_chain.spvasm not run");
        return;
    };
    let prog = Program::from_words(&words, "main", &[]).unwrap();
    // Eight 16-byte elements {x, y, z, pad}; z of element 0 counts the invocations atomically.
    let mut data: Vec<u32> = (0..32)
        .map(|k| if k % 4 == 0 { 10 + k } else { 0 })
        .collect();
    data[2] = 100;
    let addr = addr_of(&data);
    let res = Res::new().addressable(&mut data).push(&[addr]);
    prog.dispatch(&res, [0; 3], [1, 1, 1], 1).unwrap();
    drop(res);
    for i in 0..8 {
        assert_eq!(data[4 * i], 10 + 4 * i as u32, "x of element {i}");
        assert_eq!(data[4 * i + 1], 3 * (10 + 4 * i as u32), "y of element {i}");
        assert_eq!(data[4 * i + 3], 0, "padding of element {i}");
    }
    assert_eq!(data[2], 108, "atomic through a PSB pointer");
    assert!((1..8).all(|i| data[4 * i + 2] == 0));
}
