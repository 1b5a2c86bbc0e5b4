//! Writes the benchmark's `cuda_graph!` graphs (chains and fan-outs of 10, 100, 1000 and 10000
//! tiny kernels) into OUT_DIR. Only `benches/graphs/main.rs` includes them; this is string building only.

use std::fmt::Write as _;

fn main() {
    let out = std::env::var("OUT_DIR").expect("cargo sets OUT_DIR");
    let mut src = String::new();
    for n in [10usize, 100, 1000, 10000] {
        // A chain: k0 -> k1 -> ... , all on the same 32 floats.
        let _ = writeln!(src, "cuda_graph::cuda_graph! {{\n    pub graph Chain{n} {{");
        src.push_str("        kernel tiny(y: &mut [f32], offset: u32, a: f32);\n");
        src.push_str("        buffer mut y: f32;\n        param a: f32;\n");
        for i in 0..n {
            let _ = writeln!(src, "        k{i} = tiny<<<1, 32>>>(y, 0, a);");
        }
        let chain: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        let _ = writeln!(src, "        {};\n    }}\n}}", chain.join(" -> "));
        // A fan-out: k0 -> [k1 .. k(n-2)] -> k(n-1); the leaves write disjoint slices.
        let _ = writeln!(src, "cuda_graph::cuda_graph! {{\n    pub graph Fan{n} {{");
        src.push_str("        kernel tiny(y: &mut [f32], offset: u32, a: f32);\n");
        src.push_str("        #[disjoint]\n        buffer mut y: f32;\n        param a: f32;\n");
        for i in 0..n {
            let offset = if i == 0 || i == n - 1 { 0 } else { i * 32 };
            let _ = writeln!(src, "        k{i} = tiny<<<1, 32>>>(y, {offset}, a);");
        }
        let leaves: Vec<String> = (1..n - 1).map(|i| format!("k{i}")).collect();
        let _ = writeln!(
            src,
            "        k0 -> [{}] -> k{};\n    }}\n}}",
            leaves.join(", "),
            n - 1
        );
    }
    std::fs::write(format!("{out}/bench_graphs.rs"), src).expect("write the bench graphs");
    std::fs::write(format!("{out}/bench_pdl.rs"), pdl()).expect("write the PDL graphs");
    println!("cargo:rerun-if-changed=build.rs");
}

/// The programmatic-launch benchmark's graphs: chains of 10, 100 and 1000 `pdl_step`
/// kernels, and a 64-kernel decode-like chain (norm, elementwise, reduction, scale), every
/// edge programmatic (`#[programmatic]` on the graph: each target waits, each source
/// triggers, as the macro proves from `kernels/pdl.cu`).
fn pdl() -> String {
    let mut src = String::new();
    for n in [10usize, 100, 1000] {
        let _ = writeln!(
            src,
            "cuda_graph::cuda_graph! {{\n    #[programmatic]\n    pub graph PdlChain{n} {{"
        );
        src.push_str("        source \"kernels/pdl.cu\";\n        kernel pdl_step;\n");
        src.push_str("        buffer mut y: f32;\n");
        for i in 0..n {
            let _ = writeln!(src, "        k{i} = pdl_step<<<1, 32>>>(y);");
        }
        let chain: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
        let _ = writeln!(src, "        {};\n    }}\n}}", chain.join(" -> "));
    }
    src.push_str("cuda_graph::cuda_graph! {\n    #[programmatic]\n    pub graph PdlDecode {\n");
    src.push_str("        source \"kernels/pdl.cu\";\n");
    src.push_str("        kernel pdl_norm;\n        kernel pdl_axpy;\n        kernel pdl_sum;\n        kernel pdl_scale;\n");
    src.push_str(
        "        buffer mut x: f32;\n        buffer mut h: f32;\n        buffer mut s: f32;\n",
    );
    src.push_str("        param n: i32;\n        param blocks: u32;\n");
    for i in 0..64 {
        let node = match i % 4 {
            0 => "pdl_norm<<<1, 1024>>>(x, h, n)",
            1 => "pdl_axpy<<<blocks, 256>>>(h, x, 0.25, n)",
            2 => "pdl_sum<<<1, 1024>>>(x, s, n)",
            _ => "pdl_scale<<<blocks, 256>>>(s, x, n)",
        };
        let _ = writeln!(src, "        d{i} = {node};");
    }
    let chain: Vec<String> = (0..64).map(|i| format!("d{i}")).collect();
    let _ = writeln!(src, "        {};\n    }}\n}}", chain.join(" -> "));
    src
}
