//! Kernels whose parameters are more than scalars and pointers, declared without a parameter
//! list (or with one naming a `#[repr(C)]` type), built from source and run: a struct by value
//! checked against its C layout, a buffer of device addresses, a tensor map's 128 bytes, an
//! empty tag type (one byte the driver takes), an enumerator as a template argument (found in
//! the module by its name expression), and 33 arguments. Outputs are poisoned first.

mod common;

use cuda_graph::buffer::Addr;
use cuda_graph::cuda_graph;
use cuda_graph::cudarc::driver::DevicePtr;
use cuda_graph::kernel::{Tag, TensorMap};

const N: usize = 256;

/// C's `Params`: checked against its layout where the expansion compiles.
#[repr(C)]
#[derive(Clone, Copy)]
pub struct Params {
    scale: f32,
    n: i32,
    bias: f64,
}
// SAFETY: `#[repr(C)]` plain data, every bit pattern valid.
unsafe impl cuda_graph::cudarc::driver::DeviceRepr for Params {}

cuda_graph! {
    graph Types {
        source "tests/kernels/types.cu";
        kernel apply(y: &mut [f32], p: Params);
        kernel gather;
        kernel tmap;
        kernel tagged<true>;
        kernel moded = ops::moded<Mode::kB>;
        kernel wide;
        buffer mut y: f32;
        buffer mut g: f32;
        buffer xs: Addr<f32>;
        buffer mut words: u64;
        buffer mut t: f32;
        buffer mut mode: i32;
        buffer mut w: i32;
        param p: Params;
        param map: TensorMap;
        param tag: Tag;
        a = apply<<<1, 256>>>(y, p);
        b = gather<<<1, 256>>>(xs, g, 256);
        c = tmap<<<1, 32>>>(map, words);
        d = tagged<<<1, 32>>>(t, tag, 2.5);
        e = moded<<<1, 32>>>(mode);
        f = wide<<<1, 32>>>(w, 1, 2, 3, 4, 5, 6, 7, 8, 9, 10, 11, 12, 13, 14, 15, 16, 17, 18, 19, 20, 21, 22, 23, 24, 25, 26, 27, 28, 29, 30, 31, 32);
    }
}

#[test]
fn parameters_beyond_scalars_and_pointers_reach_the_kernels() {
    let gpu = gpu_or_skip!();
    let poison = f32::from_bits(0x7fc0_dead);
    let mut y = gpu.upload(&vec![poison; N]);
    let mut g = gpu.upload(&vec![poison; N]);
    let x0: Vec<f32> = (0..N).map(|i| i as f32).collect();
    let x1: Vec<f32> = (0..N).map(|i| (N - i) as f32).collect();
    let (b0, b1) = (gpu.upload(&x0), gpu.upload(&x1));
    let addr = |b: &cuda_graph::buffer::CudaSlice<f32>| {
        let (raw, _sync) = b.device_ptr(&gpu.stream);
        Addr::<f32>::from_raw(raw)
    };
    let xs = gpu.upload(&[addr(&b0), addr(&b1)]);
    let mut words = gpu.upload(&[u64::MAX; 16]);
    let mut t = gpu.upload(&[poison; 32]);
    let mut mode = gpu.upload(&[i32::MIN]);
    let mut w = gpu.upload(&[i32::MIN; 32]);
    let map = TensorMap::from_words(std::array::from_fn(|i| {
        0x0101_0101_0101_0101 * (i as u64 + 1)
    }));
    let graph = Types::build_from_source(
        &gpu.ctx,
        TypesInputs {
            y: &mut y,
            g: &mut g,
            xs: &xs,
            words: &mut words,
            t: &mut t,
            mode: &mut mode,
            w: &mut w,
            p: Params {
                scale: 0.5,
                n: N as i32,
                bias: 3.0,
            },
            map,
            tag: Tag::new(),
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let y = gpu.read(exec.y().unwrap());
    let g = gpu.read(exec.g().unwrap());
    for i in 0..N {
        assert_eq!(y[i], 0.5 * i as f32 + 3.0, "y[{i}]");
        assert_eq!(g[i], x0[i] + 10.0 * x1[i], "g[{i}]");
    }
    assert_eq!(gpu.read(exec.words().unwrap()), map.words());
    assert_eq!(gpu.read(exec.t().unwrap()), vec![-2.5f32; 32]);
    assert_eq!(gpu.read(exec.mode().unwrap()), [7]);
    let w = gpu.read(exec.w().unwrap());
    for (i, v) in w.iter().enumerate() {
        assert_eq!(*v, ((i + 1) * (i + 1)) as i32, "w[{i}]");
    }
    assert_eq!(
        Types::compile_options(),
        cuda_graph::kernel::Compile::new()
            .file_name(concat!(
                env!("CARGO_MANIFEST_DIR"),
                "/tests/kernels/types.cu"
            ))
            .name_expression("tagged<true>")
            .name_expression("ops::moded<ops::Mode::kB>")
    );
}

/// The graphs' sources compiled as `build_from_source` will, to machine code for sm_90 and
/// sm_80, with no GPU.
#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(&[("Types", Types::check_source)], &common::ARCHS);
}
