//! Parameter types real CUDA code passes beyond scalars and pointers: a struct named by a
//! `#[repr(C)]` type of the same layout (checked where the expansion compiles), an array of
//! device addresses, a tensor map, an empty tag type, an enumerator as a template argument,
//! and a kernel of more than 24 parameters.
#![deny(warnings)]
use cuda_graph::buffer::Addr;
use cuda_graph::cuda_graph;
use cuda_graph::kernel::{Tag, TensorMap};

#[repr(C)]
#[derive(Clone, Copy)]
pub struct Params {
    scale: f32,
    n: i32,
    bias: f64,
}
unsafe impl cuda_graph::cudarc::driver::DeviceRepr for Params {}

cuda_graph! {
    graph Types {
        source "../macro/cu/types.cu";
        kernel apply(y: &mut [f32], p: Params);
        kernel gather;
        kernel load(map: TensorMap, y: &mut [f32]);
        kernel reduce<f32, true>;
        kernel scale<f32, ScaleMode::kPerToken>;
        buffer mut y: f32;
        buffer x: f32;
        buffer xs: Addr<f32>;
        buffer mut ys: Addr<f32>;
        param p: Params;
        param map: TensorMap;
        param tag: Tag;
        a = apply<<<1, 32>>>(y, p);
        b = gather<<<1, 32>>>(xs, ys, 32);
        c = load<<<1, 32>>>(map, y);
        d = reduce<<<1, 32>>>(y, x, 32, tag);
        e = scale<<<1, 32>>>(y, 32);
        a -> b -> c -> d -> e;
    }
}

cuda_graph! {
    graph Wide {
        kernel wide(p0: u32, p1: u32, p2: u32, p3: u32, p4: u32, p5: u32, p6: u32, p7: u32, p8: u32, p9: u32, p10: u32, p11: u32, p12: u32, p13: u32, p14: u32, p15: u32, p16: u32, p17: u32, p18: u32, p19: u32, p20: u32, p21: u32, p22: u32, p23: u32, p24: u32, p25: u32, p26: u32, p27: u32, p28: u32, p29: u32, p30: u32, p31: u32, p32: u32);
        param n: u32;
        k = wide<<<1, 1>>>(n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n);
    }
}

fn main() {
    let file = Types::compile_options().file().expect("the source's path");
    assert!(file.ends_with("macro/cu/types.cu"), "{file}");
    assert_eq!(
        Types::compile_options(),
        cuda_graph::kernel::Compile::new()
            .file_name(file)
            .name_expression("ops::reduce<float, true>")
            .name_expression("ops::scale<float, ops::ScaleMode::kPerToken>")
    );
    let _ = (Types::build_from_source, Wide::build);
}
