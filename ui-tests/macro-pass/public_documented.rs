//! A crate that denies missing docs (and the allow-by-default lints crates often turn on),
//! with public graphs of every input kind and node kind, kernels with C names that are not
//! snake_case: every generated public item is documented, nothing else warns.
#![deny(missing_docs, warnings)]
#![deny(
    missing_debug_implementations,
    unreachable_pub,
    unused_qualifications,
    unused_results,
    trivial_casts,
    trivial_numeric_casts,
    unused_lifetimes,
    single_use_lifetimes,
    elided_lifetimes_in_paths,
    unsafe_code,
    let_underscore_drop
)]
use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    /// A public child.
    pub graph Inner {
        kernel scale(y: &mut [f32], a: f32, n: u32);
        buffer mut y: f32;
        param n: u32;
        step = scale<<<n.div_ceil(256), 256>>>(y, 2.0, n);
    }

    /// A public graph: every node kind, each input kind.
    pub graph Public {
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        kernel mix(a: &[u32], k: u32, out: &mut [u32], n: u32);
        kernel decide(c: Cond, n: u32);
        kernel fillKernel(y: &mut [f32], nElems: u32);
        kernel ::nn::rms_Norm(y: &mut [f32], n: u32);
        buffer x: f32;
        buffer mut y: f32;
        buffer w[k]: u32;
        buffer mut out: u32;
        buffer mut out2: f32;
        host_buffer input: f32;
        temp t: [f32; n];
        param a: f32;
        param n: u32;
        param k: u32;
        callback report;
        event done;
        work w2;
        cond go = 1;
        cond pick;
        load  = memcpy(y, input);
        clear = memset(y, 0.0);
        step  = saxpy<<<n.div_ceil(256), 256>>>(a, x, t, n);
        sub   = child(Inner { y: y, n: n });
        body  = repeat l in 0..k {
            first = mix<<<1, 256>>>(w[l], 1, out, n);
            carry first -> first;
        }
        lp = while go {
            stop = decide<<<1, 1>>>(go, n);
        }
        cap = capture(w2, reads: [x], writes: [y]);
        tell = host(report);
        rec = record(done);
        sw = if pick { e = empty; };
        setp = decide<<<1, 1>>>(pick, n);
        setp -> sw;
        f1 = fillKernel<<<1, 1>>>(out2, n);
        f2 = rms_Norm<<<1, 1>>>(out2, n);
        f1 -> f2;
        load -> clear -> step -> sub -> body -> lp -> cap -> tell -> rec -> sw;
    }
}

fn main() {
    assert!(Public::DOT.contains("\"f1\" -> \"f2\";"));
    assert!(Inner::DOT.contains("\"step\""));
}
