use cuda_graph::cuda_graph;

cuda_graph! {
    graph Inner {
        kernel sum(y: &[f32], out: &mut [f32], n: u32);
        buffer y: f32;
        buffer mut out: f32;
        param n: u32;
        total = sum<<<1, 32>>>(y, out, n);
    }

    graph Outer {
        buffer mut out: f32;
        param n: u32;
        temp t: [f32; n];
        sub = child(Inner { y: t, out: out, n: n });
    }
}

fn main() {}
