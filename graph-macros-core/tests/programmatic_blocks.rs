//! `#[programmatic]` on a graph and its repeat blocks: the edge from the kernel before a block
//! to its first iteration's first kernel, and from its last iteration's last kernel to the
//! kernel after it, are upgraded by the rule every other edge follows (the target waits,
//! reading early only buffers without `mut`; the source triggers), where a carry edge makes
//! that kernel the only one the outside edge reaches. Checked on the model the macro builds;
//! `tests/programmatic.rs` runs such a graph on the GPU.
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

use cuda_graph_macros_core::check_in;
use cuda_graph_macros_core::model::{Graph, NodeOp};
use cuda_graph_macros_core::validate::Dirs;
use quote::quote;

const SRC: &str = r#"
__device__ __forceinline__ void go() { asm volatile("griddepcontrol.launch_dependents;"); }
__device__ __forceinline__ void wait() { asm volatile("griddepcontrol.wait;" ::: "memory"); }

extern "C" __global__ void step(const float* in, float* out, int n) {
  go();
  wait();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] + 1.0f;
}

extern "C" __global__ void silent(const float* in, float* out, int n) {
  wait();
  int i = blockIdx.x * blockDim.x + threadIdx.x;
  if (i < n) out[i] = in[i] * 2.0f;
}

extern "C" __global__ void eager(const float* in, float* out, int n) {
  go();
  float v = in[threadIdx.x];
  wait();
  if ((int)threadIdx.x < n) out[threadIdx.x] = v;
}
"#;

/// The one graph `body` makes (its items after the declarations of `x`, `a`, `d`, `n` and
/// `count`; `kernels`: the kernels it launches), checked without errors.
fn graph(kernels: &[&str], body: proc_macro2::TokenStream) -> Graph {
    let kernels = kernels.iter().map(|k| quote::format_ident!("{k}"));
    // The source, written once for every test of the process (they run in parallel).
    static DIR: std::sync::OnceLock<std::path::PathBuf> = std::sync::OnceLock::new();
    let dir = DIR
        .get_or_init(|| {
            let d = std::env::temp_dir().join(format!("cg-prog-blocks-{}", std::process::id()));
            std::fs::create_dir_all(&d).unwrap();
            std::fs::write(d.join("k.cu"), SRC).unwrap();
            d
        })
        .clone();
    let input = quote! {
        #[programmatic]
        graph G {
            source "k.cu";
            #(kernel #kernels;)*
            buffer x: f32;
            buffer mut a: f32;
            buffer mut d: f32;
            param n: i32;
            param count: u32;
            #body
        }
    };
    let dirs = Dirs {
        manifest: Some(dir),
        call: None,
    };
    let (mut graphs, errors) = check_in(input, &dirs).unwrap();
    assert!(errors.is_empty(), "{:?}", errors.messages());
    graphs.remove(0)
}

/// Edges by node name.
type Pairs = Vec<(String, String)>;

/// The block's programmatic edges in and out, by node name.
fn boundaries(g: &Graph) -> (Pairs, Pairs) {
    let name = |i: u32| g.nodes[i as usize].name.to_string();
    let r = g
        .nodes
        .iter()
        .find_map(|n| match &n.op {
            NodeOp::Repeat(r) => Some(r),
            _ => None,
        })
        .expect("a repeat block");
    let pairs = |v: &[(u32, u32)]| v.iter().map(|&(a, b)| (name(a), name(b))).collect();
    (pairs(&r.entries), pairs(&r.exits))
}

fn pair(a: &str, b: &str) -> Pairs {
    vec![(a.to_owned(), b.to_owned())]
}

/// `s0 -> body -> s9`, the body `u -> v` carried from `v` to `u`: `kernels` names the kernel of
/// s0, u, v and s9, and `early` the buffer u and s9 read (`a`: written by the graph; `x`: not).
fn carried(kernels: [&str; 4], early: &str) -> Graph {
    let [k0, ku, kv, k9] = kernels.map(|k| quote::format_ident!("{k}"));
    let early = quote::format_ident!("{early}");
    let mut names: Vec<&str> = kernels.to_vec();
    names.sort();
    names.dedup();
    graph(
        &names,
        quote! {
            buffer mut b: f32;
            s0 = #k0<<<4, 256>>>(x, a, n);
            body = repeat l in 0..count {
                u = #ku<<<4, 256>>>(#early, b, n);
                v = #kv<<<4, 256>>>(b, a, n);
                u -> v;
                carry v -> u;
            }
            s9 = #k9<<<4, 256>>>(#early, d, n);
            s0 -> body -> s9;
        },
    )
}

#[test]
fn a_carried_block_takes_programmatic_edges_in_and_out() {
    let g = carried(["step", "step", "step", "step"], "a");
    assert_eq!(boundaries(&g), (pair("s0", "u"), pair("v", "s9")));
}

#[test]
fn without_a_carry_edge_every_iteration_is_reached_and_the_edges_stay_plain() {
    let g = graph(
        &["step"],
        quote! {
            buffer mut bs[count]: f32;
            buffer mut cs[count]: f32;
            s0 = step<<<4, 256>>>(x, a, n);
            body = repeat l in 0..count {
                u = step<<<4, 256>>>(a, bs[l], n);
                v = step<<<4, 256>>>(bs[l], cs[l], n);
                u -> v;
            }
            s9 = step<<<4, 256>>>(a, d, n);
            s0 -> body -> s9;
        },
    );
    assert_eq!(boundaries(&g), (vec![], vec![]));
}

#[test]
fn a_source_that_never_triggers_keeps_its_edge_plain() {
    let g = carried(["silent", "step", "silent", "step"], "a");
    assert_eq!(boundaries(&g), (vec![], vec![]));
}

#[test]
fn a_target_that_reads_a_written_buffer_before_its_wait_keeps_its_edge_plain() {
    let g = carried(["step", "eager", "step", "eager"], "a");
    assert_eq!(boundaries(&g), (vec![], vec![]));
    // Reading a buffer no node writes before the wait is fine.
    let g = carried(["step", "eager", "step", "eager"], "x");
    assert_eq!(boundaries(&g), (pair("s0", "u"), pair("v", "s9")));
}
