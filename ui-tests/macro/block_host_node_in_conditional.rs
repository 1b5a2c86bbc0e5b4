use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    block report {
        callback log;
        note = host(log);
    }

    graph G {
        kernel decide(value: u32, c: Cond);
        callback log;
        param go: u32;
        cond again;
        pick = decide<<<1, 1>>>(go, again);
        maybe = if again {
            r = use report;
        }
        pick -> maybe;
    }
}

fn main() {}
