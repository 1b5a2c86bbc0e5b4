//! Programmatic edges: one written `#[programmatic]` into a kernel that waits, and, with
//! `#[programmatic]` on the graph, every edge whose target waits (reading before its wait only
//! buffers no node writes) and whose source triggers.
//! The DOT shows them bold.
#![deny(warnings)]
use cuda_graph::cuda_graph;

cuda_graph! {
    graph Explicit {
        source "../macro/cu/pdl.cu";
        kernel produce;
        kernel consume;
        buffer mut y: f32;
        buffer mut z: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        b = consume<<<4, 256>>>(y, z, n);
        #[programmatic]
        a -> b;
    }

    #[programmatic]
    graph Auto {
        source "../macro/cu/pdl.cu";
        kernel produce;
        kernel no_trigger;
        kernel consume;
        kernel consume_late;
        buffer mut y: f32;
        buffer mut z: f32;
        buffer mut w: f32;
        buffer mut v: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        b = consume<<<4, 256>>>(y, z, n);
        c = no_trigger<<<4, 256>>>(w, n);
        d = consume<<<4, 256>>>(w, v, n);
        e = consume_late<<<4, 256>>>(z, y, n);
        a -> b -> e;
        c -> d;
    }
}

cuda_graph! {
    // `prefetch` reads `w` before it waits: weights no node writes may take a programmatic
    // edge; a `buffer mut` may not (that edge stays plain).
    #[programmatic]
    graph Early {
        source "../macro/cu/pdl.cu";
        kernel produce;
        kernel prefetch;
        buffer weights: f32;
        buffer mut scratch: f32;
        buffer mut y: f32;
        buffer mut z: f32;
        buffer mut v: f32;
        buffer mut u: f32;
        param n: i32;
        a = produce<<<4, 256>>>(y, n);
        b = prefetch<<<4, 256>>>(weights, y, z, n);
        c = produce<<<4, 256>>>(v, n);
        d = prefetch<<<4, 256>>>(scratch, v, u, n);
        a -> b;
        c -> d;
    }
}

fn main() {
    // Its kernels compiled as `build_from_source` will, to machine code (NVRTC alone; without
    // it, a printed skip).
    use cuda_graph::check::{self, Arch};
    if let Err(e) = check::graphs(&[("Explicit", Explicit::check_source), ("Auto", Auto::check_source), ("Early", Early::check_source)], &[Arch::SM_90, Arch::SM_80]) {
        panic!("{e}");
    }
    assert!(Early::DOT.contains("\"a\" -> \"b\" [style=bold, label=\"programmatic\"];"));
    assert!(Early::DOT.contains("\"c\" -> \"d\";"));
    assert!(Explicit::DOT.contains("\"a\" -> \"b\" [style=bold, label=\"programmatic\"];"));
    // `produce` triggers and `consume` waits: upgraded. `no_trigger` never triggers, and
    // `consume_late` reads before it waits: both stay plain.
    assert!(Auto::DOT.contains("\"a\" -> \"b\" [style=bold, label=\"programmatic\"];"));
    assert!(Auto::DOT.contains("\"c\" -> \"d\";"));
    assert!(Auto::DOT.contains("\"b\" -> \"e\";"));
}
