use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        kernel wide(p0: u32, p1: u32, p2: u32, p3: u32, p4: u32, p5: u32, p6: u32, p7: u32, p8: u32, p9: u32, p10: u32, p11: u32, p12: u32, p13: u32, p14: u32, p15: u32, p16: u32, p17: u32, p18: u32, p19: u32, p20: u32, p21: u32, p22: u32, p23: u32, p24: u32, p25: u32, p26: u32, p27: u32, p28: u32, p29: u32, p30: u32, p31: u32, p32: u32, p33: u32, p34: u32, p35: u32, p36: u32, p37: u32, p38: u32, p39: u32, p40: u32);
        param n: u32;
        k = wide<<<1, 1>>>(n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n, n);
    }
}

fn main() {}
