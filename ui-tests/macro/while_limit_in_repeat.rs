use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel step(x: &mut [u32], n: u32);
        buffer mut x: u32;
        param n: u32;
        cond go = 1;
        layers = repeat _ in 0..4 {
            spin = while go, max 8 {
                s = step<<<1, 32>>>(x, n);
            }
        }
    }
}

fn main() {}
