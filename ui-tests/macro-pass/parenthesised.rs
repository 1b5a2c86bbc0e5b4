//! Every place the grammar takes an expression, written in parentheses (the grammar asks for
//! them around an expression with `>>`, and users add them around counts and arguments): the
//! generated code draws no `unused_parens` (nor any other) warning.
#![deny(warnings)]
use cuda_graph::buffer::Stack;
use cuda_graph::cuda_graph;
use cuda_graph::kernel::Cond;

cuda_graph! {
    /// A child whose input the parent gives as a parenthesised expression.
    graph Inner {
        kernel scale(y: &mut [f32], a: f32, n: u32);
        buffer mut y: f32;
        param n: u32;
        step = scale<<<(n >> 8), (256)>>>(y, (2.0), (n));
    }

    /// Launch dimensions, shared memory, kernel arguments, a memset value, a temporary's
    /// length, a stack's count and index, a repeat count, a condition's default and a child's
    /// input, each in parentheses (some twice).
    graph Parens {
        kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
        kernel mix(a: &[u32], k: u32, out: &mut [u32], n: u32);
        kernel fill(y: &mut [f32], n: u32);
        kernel decide(c: Cond, n: u32);
        buffer x: f32;
        buffer mut y: f32;
        buffer w[(k + 1)]: u32;
        buffer mut out: u32;
        temp t: [f32; (n * 2)];
        param a: f32;
        param n: u32;
        param k: u32;
        param v: f32;
        cond go = (1);

        clear = memset(y, (v * 2.0));
        warm  = fill<<<((n >> 8) + 1), 256>>>(t, (n * 2));
        step  = saxpy<<<((n >> 8), 1, 1), ((256), 1), (n * 4)>>>((a * 0.5), x, y, (n >> 1));
        again = saxpy<<<(n.div_ceil(256)), 256, ((n >> 2) * 4)>>>(((a * 0.5)), t, y, ((n)));
        sub   = child(Inner { y: y, n: (n * 2) });
        body  = repeat l in 0..(k * 2) {
            first = mix<<<(n >> 8), 256>>>(w[(l % 2)], (l as u32), out, (n));
            other = mix<<<1, 256>>>(w[(k)], ((k >> 1)), out, n);
            first -> other;
            carry other -> first;
        }
        lp = while go {
            stop = decide<<<1, 1>>>(go, (n >> 3));
        }
        clear -> warm -> step -> again -> sub -> body -> lp;
    }
}

// Collectives (feature `nccl`, on in `cargo test --workspace`): counts, a root and a peer in
// parentheses, and a temporary's length that uses `world`.
#[cfg(feature = "nccl")]
mod tp {
    use cuda_graph::cuda_graph;

    cuda_graph! {
        /// Every collective with its count, root or peer in parentheses.
        pub graph Parens {
            comm tp;
            buffer mut part: f32;
            buffer mut y: f32;
            temp half: [f32; (4096 / world)];
            param batch: u32;
            ar = all_reduce(part -> y, (batch * 4096), sum) on tp;
            rs = reduce_scatter(y -> half, ((batch * 4096) / world), avg) on tp;
            ag = all_gather(half -> part, (4096 / world)) on tp;
            bc = broadcast(y -> y, (batch), root = (0)) on tp;
            tx = send(y, (16), to = ((rank + 1) % world)) on tp;
            rx = recv(part, (16), from = ((rank + world - 1) % world)) on tp;
            ar -> rs -> ag -> bc -> tx -> rx;
        }
    }

    pub fn dot() -> &'static str {
        Parens::DOT
    }
}

fn main() {
    #[cfg(feature = "nccl")]
    assert!(tp::dot().contains("\"ar\" -> \"rs\";"));
    fn _inputs<'a>(
        x: &'a cuda_graph::buffer::CudaSlice<f32>,
        y: &'a mut cuda_graph::buffer::CudaSlice<f32>,
        w: &'a [cuda_graph::buffer::CudaSlice<u32>],
        out: &'a mut cuda_graph::buffer::CudaSlice<u32>,
    ) -> ParensInputs<'a> {
        ParensInputs { x, y, w: Stack::slices(w), out, a: 1.0, n: 1024, k: 3, v: 0.5 }
    }
    fn _build<'a>(
        m: &cuda_graph::Module,
        inputs: ParensInputs<'a>,
    ) -> cuda_graph::Result<ParensExec<'a>> {
        let mut exec = Parens::build(m, inputs)?.instantiate()?;
        exec.set_n(2048)?;
        exec.set_a(2.0)?;
        Ok(exec)
    }
    assert!(Parens::DOT.contains("\"warm\" -> \"step\";"));
    assert!(Inner::DOT.contains("\"step\""));
}
