//! Whole-graph updates through the runtime API (the macro leaves template edits to
//! `graph_mut()`): one changed node (`exec_update`, paired with the raw driver's on graphs made
//! in both orders), and a new node (`reinstantiate`).

use super::*;

type Args = (BufMut<f32>, u32, f32);

pub(crate) fn build_runtime<'a>(
    ctx: &Arc<cuda_graph::cudarc::driver::CudaContext>,
    kernel: &'a Kernel,
    names: &[String],
    y: &'a mut CudaSlice<f32>,
    shape: Shape,
) -> (Graph<'a>, Vec<KernelNode<Args>>) {
    let n = names.len();
    let mut g = Graph::new(ctx).unwrap();
    let yb = g.bind_mut(y).unwrap();
    let mut nodes: Vec<KernelNode<Args>> = Vec::with_capacity(n);
    let cfg = LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (32, 1, 1),
        shared_mem_bytes: 0,
    };
    for (i, name) in names.iter().enumerate() {
        let (deps, offset) = shape.node(i, n);
        let deps: Vec<&dyn cuda_graph::node::Dep> = deps
            .iter()
            .map(|&d| &nodes[d] as &dyn cuda_graph::node::Dep)
            .collect();
        let node = g
            .add_kernel(name, &deps, kernel, cfg, (yb, offset, 1.0f32))
            .unwrap();
        nodes.push(node);
    }
    (g, nodes)
}

/// Where a child process measures the whole-graph update of one order: `SHAPE:NODES:RAW_FIRST`.
pub(crate) const UPDATE_ENV: &str = "CUDA_GRAPH_BENCH_UPDATE";

/// One changed node and `cuGraphExecUpdate_v2`, raw and through the runtime API, paired, on a
/// fresh pair of executable graphs, the raw one made first if `raw_first`: samples in
/// microseconds, [raw, cuda-graph].
fn update_samples(
    c: &mut Ctx<'_>,
    y: &mut CudaSlice<f32>,
    shape: Shape,
    n: usize,
    raw_first: bool,
) -> [Vec<f64>; 2] {
    let (min, budget) = reps_for(n);
    let ctx = c.stream.context().clone();
    let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let kernel = c.kernel;
    let (f, s, yp) = (c.f, c.stream.cu_stream(), device_ptr(y, &c.stream));
    let early = raw_first.then(|| raw::make(f, yp, shape, n));
    let (g, nodes) = build_runtime(&ctx, kernel, &names, &mut *y, shape);
    let mut exec = g.instantiate().unwrap();
    let (mut rg, re) = early.unwrap_or_else(|| raw::make(f, yp, shape, n));
    exec.launch(&c.stream).unwrap();
    raw::launch(re, s);
    let (mid, rmid) = (nodes[n / 2], n / 2);
    let samples = paired_samples(
        min,
        budget,
        || {
            let kp = rg.params[rmid].node(f, 0.5);
            unsafe { raw::check(sys::cuGraphKernelNodeSetParams_v2(rg.nodes[rmid], &kp)) };
            let t = Instant::now();
            let mut info = unsafe { std::mem::zeroed::<sys::CUgraphExecUpdateResultInfo>() };
            unsafe { raw::check(sys::cuGraphExecUpdate_v2(re, rg.g, &mut info)) };
            t.elapsed()
        },
        || {
            exec.graph_mut()
                .node(mid)
                .unwrap()
                .set_arg::<2>(0.25)
                .unwrap();
            let t = Instant::now();
            let path = exec.update().unwrap();
            let d = t.elapsed();
            assert_eq!(path, cuda_graph::exec::UpdatePath::InPlace);
            d
        },
    );
    drop(exec);
    raw::destroy(rg, Some(re));
    samples
}

/// The child's side of the update's `pooled_samples`: measures one order and prints its samples.
pub(crate) fn update_child(c: &mut Ctx<'_>, spec: &str) {
    let (shape, n, raw_first) = setters::child_spec(UPDATE_ENV, spec);
    let mut y = c.stream.alloc_zeros::<f32>(n * 32 + 32).unwrap();
    setters::print_samples(&update_samples(c, &mut y, shape, n, raw_first));
}

/// Whole-graph updates through the runtime API (the macro leaves template edits to
/// `inner_mut()`): one changed node (`exec_update`), and a new node (`reinstantiate`).
pub fn bench(c: &mut Ctx<'_>, y: &mut CudaSlice<f32>, shape: Shape, n: usize) {
    let (min, budget) = reps_for(n);
    let ctx = c.stream.context().clone();
    let names: Vec<String> = (0..n).map(|i| format!("k{i}")).collect();
    let kernel = c.kernel;
    // Paired with the floor, on fresh executable graphs made in both orders, each order in a
    // process of its own (half the samples each), as the setters are: where the driver's
    // records of a graph land changes its cost, and in one process that depends on what the
    // benchmarks before it freed.
    let samples = setters::pooled_samples(UPDATE_ENV, shape, n, |raw_first| {
        update_samples(&mut *c, &mut *y, shape, n, raw_first)
    });
    let [mr, mc] = samples.map(|v| {
        let k = v.len();
        (median(v), k)
    });
    c.push(
        "exec_update",
        shape,
        n,
        "raw",
        "driver, paired, both orders, a process each",
        mr,
    );
    c.push("exec_update", shape, n, "cuda_graph", "runtime API", mc);
    let (g, nodes) = build_runtime(&ctx, kernel, &names, &mut *y, shape);
    let mut exec = g.instantiate().unwrap();
    exec.launch(&c.stream).unwrap();
    c.stream.synchronize().unwrap();
    let mut last: cuda_graph::node::NodeId = nodes.last().expect("n > 0").id();
    let mut extra = 0usize;
    let m = measure(min, budget, || {
        extra += 1;
        last = exec
            .graph_mut()
            .add_empty(&format!("extra{extra}"), &[&last])
            .unwrap()
            .id();
        let t = Instant::now();
        let path = exec.update().unwrap();
        let d = t.elapsed();
        assert!(matches!(
            path,
            cuda_graph::exec::UpdatePath::Reinstantiated { .. }
        ));
        d
    });
    c.push("reinstantiate", shape, n, "cuda_graph", "runtime API", m);
}
