//! The driver's handles cuda-graph hands out for calls it does not make (`Graph::cu_graph`,
//! `GraphExec::cu_graph_exec`, a node view's `cu_node`): they name the graph, the executable
//! graph and the node the setters edit, and what the driver is told through them lasts until
//! cuda-graph sets the node again.

mod common;

use std::ptr;

use common::POISON;
use cuda_graph::cudarc::driver::sys::{self, CUresult};
use cuda_graph::{Graph, GraphExec, LaunchConfig};

const N: usize = 2048;

fn ok(r: CUresult) {
    assert_eq!(r, CUresult::CUDA_SUCCESS);
}

#[test]
fn raw_handles_name_what_the_setters_edit() {
    let gpu = gpu_or_skip!();
    let lin = gpu.f("lincomb_u32");
    let a = gpu.upload(&(1..=N as u32).collect::<Vec<_>>());
    let b = gpu.upload(&(1000..1000 + N as u32).collect::<Vec<_>>());
    let mut out = gpu.poisoned(N);
    let cfg = LaunchConfig::for_num_elems(N as u32);
    let mut g = Graph::new(&gpu.ctx).unwrap();
    let (ab, bb) = (g.bind(&a).unwrap(), g.bind(&b).unwrap());
    let ob = g.bind_mut(&mut out).unwrap();
    let k = g
        .add_kernel("lin", &[], &lin, cfg, (ab, 2u32, bb, 3u32, ob, N as u32))
        .unwrap();

    // The template holds one node, the one the view names, with the kernel and launch given.
    let node = g.node(k).unwrap().cu_node();
    let mut nodes = [ptr::null_mut(); 2];
    let mut count = nodes.len();
    // SAFETY: the graph is live; `nodes` holds `count` handles.
    ok(unsafe { sys::cuGraphGetNodes(g.cu_graph(), nodes.as_mut_ptr(), &mut count) });
    assert_eq!((count, nodes[0]), (1, node));
    // SAFETY: `node` is a kernel node of the live template; `p` is a valid out-pointer.
    let p = unsafe {
        let mut p = std::mem::zeroed::<sys::CUDA_KERNEL_NODE_PARAMS>();
        ok(sys::cuGraphKernelNodeGetParams_v2(node, &mut p));
        p
    };
    assert_eq!(p.func, lin.cuda_function().cu_function());
    assert_eq!(
        (p.gridDimX, p.blockDimX, p.sharedMemBytes),
        (cfg.grid_dim.0, cfg.block_dim.0, 0)
    );

    let mut exec = g.instantiate().unwrap();
    assert_eq!(exec.node(k).unwrap().cu_node(), node);
    let enabled = |exec: &GraphExec<'_>| {
        let mut on = 7u32;
        // SAFETY: both handles are live and of one executable graph.
        ok(unsafe { sys::cuGraphNodeGetEnabled(exec.cu_graph_exec(), node, &mut on) });
        on
    };
    // What the setters do, the driver reports through the handles.
    assert_eq!(enabled(&exec), 1);
    exec.node(k).unwrap().disable().unwrap();
    assert_eq!(enabled(&exec), 0);
    exec.node(k).unwrap().enable().unwrap();
    assert_eq!(enabled(&exec), 1);

    // Disabled behind cuda-graph's back, the node does not run...
    // SAFETY: as above.
    ok(unsafe { sys::cuGraphNodeSetEnabled(exec.cu_graph_exec(), node, 0) });
    exec.launch(&gpu.stream).unwrap();
    assert!(gpu
        .read(exec.buffer(ob).unwrap())
        .iter()
        .all(|&v| v == POISON));
    // ...until cuda-graph sets it again.
    exec.node(k).unwrap().enable().unwrap();
    exec.launch(&gpu.stream).unwrap();
    let got = gpu.read(exec.buffer(ob).unwrap());
    for (i, v) in got.iter().enumerate() {
        let i = i as u32;
        assert_eq!(*v, 2 * (1 + i) + 3 * (1000 + i), "element {i}");
    }
}
