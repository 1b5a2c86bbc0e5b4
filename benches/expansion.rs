//! How long `cuda_graph!` takes to parse, check and expand a graph of 10 to 10000 nodes (the
//! macro's own share of compile time; `benches/compile_time.sh` measures whole crate builds).
//! Runs on the host: no GPU. Results go to `$OUT/expansion.json` on the device machine, else
//! `docs/bench/raw/expansion.json`.

use cuda_graph_flagships::harness;
use cuda_graph_macros_core::{check, expand};
use std::fmt::Write as _;
use std::time::Instant;

fn chain_source(n: usize) -> String {
    let mut s = String::from("graph Chain {\n    kernel tiny(y: &mut [f32], offset: u32, a: f32);\n    buffer mut y: f32;\n    param a: f32;\n");
    for i in 0..n {
        let _ = writeln!(s, "    k{i} = tiny<<<1, 32>>>(y, 0, a);");
    }
    let chain: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let _ = writeln!(s, "    {};\n}}", chain.join(" -> "));
    s
}

fn expand_once(src: &str) -> usize {
    let tokens: proc_macro2::TokenStream = src.parse().expect("valid tokens");
    let (graphs, errors) = check(tokens).expect("a valid graph");
    assert!(errors.is_empty(), "{:?}", errors.messages());
    graphs
        .iter()
        .map(|g| expand::graph(g).to_string().len())
        .sum()
}

fn main() {
    let mut json = String::from("[\n");
    let sizes = [10usize, 100, 500, 1000, 10000];
    for (k, n) in sizes.iter().enumerate() {
        let src = chain_source(*n);
        let mut times: Vec<f64> = (0..7)
            .map(|_| {
                let t = Instant::now();
                std::hint::black_box(expand_once(&src));
                t.elapsed().as_secs_f64() * 1e6
            })
            .collect();
        times.sort_by(f64::total_cmp);
        let median = times[times.len() / 2];
        let bytes = expand_once(&src);
        println!("expansion  chain {n:>5} nodes  {median:>10.1} us  ({bytes} bytes of code)");
        let _ = writeln!(
            json,
            "  {{\"case\": \"compile\", \"shape\": \"chain\", \"nodes\": {n}, \"impl\": \"cuda_graph\", \"via\": \"macro expansion\", \"median_us\": {median:.1}, \"reps\": 7, \"gpu\": \"none (host)\", \"expanded_bytes\": {bytes}}}{}",
            if k + 1 < sizes.len() { "," } else { "" }
        );
    }
    json.push_str("]\n");
    harness::write_json("expansion.json", &json);
}
