use cuda_graph::cuda_graph;

cuda_graph! {
    graph G {
        event done;
        rec = record(don);
        wait_it = wait(done);
        rec -> wait_it;
    }
}

fn main() {}
