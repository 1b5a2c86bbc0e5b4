// An executable graph cannot outlive what its child graph borrows.
use cuda_graph::cudarc::driver::CudaContext;
use cuda_graph::Graph;

fn main() {
    let ctx = CudaContext::new(0).unwrap();
    let mut g = Graph::new(&ctx).unwrap();
    {
        let label = String::from("child");
        let mut child = g.child_graph().unwrap();
        child.add_host("say", &[], || println!("{label}")).unwrap();
        g.add_child("sub", &[], child).unwrap();
    }
    let exec = g.instantiate().unwrap();
    drop(exec);
}
