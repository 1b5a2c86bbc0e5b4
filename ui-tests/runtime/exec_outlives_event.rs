// An executable graph cannot outlive an event it records.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    {
        let done = ctx.new_event(None).unwrap();
        g.add_event_record("done", &[], &done).unwrap();
    }
    let exec = g.instantiate().unwrap();
    drop(exec);
}
