#![deny(warnings)]
// A graph with a communicator: every collective form, `rank` and `world` in a launch
// dimension, a kernel argument, a temporary's length and a peer, and the generated API built
// and instantiated. Collectives need the `nccl` feature: trybuild builds this file with the
// facade's features, and without `nccl` it checks nothing (`cargo test --workspace` turns the
// feature on, through `flagships`).

#[cfg(feature = "nccl")]
mod tp {
    use cuda_graph::comm::Communicator;
    use cuda_graph::cuda_graph;
    use cuda_graph::cudarc::driver::CudaSlice;
    use cuda_graph::half::bf16;
    use cuda_graph::prelude::Cond;

    cuda_graph! {
        /// A tensor-parallel MLP block's collectives, one graph a rank.
        pub graph TpMlp {
            kernel gelu_bias(h: &mut [f32], b: &[f32], rank: u32, cols: u32);
            kernel widen(x: &[f32], y: &mut [bf16], n: u32);
            comm tp;
            buffer mut part: f32;
            buffer mut y: f32;
            buffer b: f32;
            buffer mut gathered: bf16;
            temp half_part: [bf16; 4096 / world];
            param batch: u32;
            up = gelu_bias<<<(batch * 4096).div_ceil(256 * world), 256>>>(part, b, rank, 4096);
            ar = all_reduce(part -> y, batch * 4096, sum) on tp;
            rs = reduce_scatter(y -> part, batch * 4096 / world, avg) on tp;
            wd = widen<<<world, 256>>>(part, half_part, 4096 / world);
            ag = all_gather(half_part -> gathered, 4096 / world) on tp;
            bc = broadcast(y -> y, batch, root = 0) on tp;
            tx = send(y, 16, to = (rank + 1) % world) on tp;
            rx = recv(part, 16, from = (rank + world - 1) % world) on tp;
            up -> ar -> rs -> wd -> ag -> bc -> tx -> rx;
        }
    }

    cuda_graph! {
        /// Layers written once, an all-reduce in each: the carry edge orders layer `l`'s
        /// all-reduce before layer `l + 1`'s on every rank.
        pub graph Layers {
            kernel partial(x: &[f32], w: &[f32], part: &mut [f32], n: u32);
            comm tp;
            buffer x: f32;
            buffer w[layers]: f32;
            buffer mut part: f32;
            param layers: u32;
            stack = repeat l in 0..layers {
                mv = partial<<<16, 256>>>(x, w[l], part, 4096 / world);
                sum = all_reduce(part -> part, 4096, sum) on tp;
                mv -> sum;
                carry sum -> mv;
            }
        }
    }

    cuda_graph! {
        /// A loop on the device whose body runs collectives: the condition is declared agreed
        /// on `tp` (every rank computes it from the all-reduced flag), so every rank runs the
        /// body as many times.
        pub graph Until {
            kernel partial(x: &[f32], w: &[f32], part: &mut [f32], n: u32);
            kernel decide(flag: &[u32], again: Cond);
            kernel vote(x: &[f32], mine: &mut [u32]);
            comm tp;
            buffer x: f32;
            buffer w[layers]: f32;
            buffer mut part: f32;
            buffer mut mine: u32;
            buffer mut flag: u32;
            param layers: u32;
            cond again on tp = 1;
            run = while again {
                stack = repeat l in 0..layers {
                    mv = partial<<<16, 256>>>(x, w[l], part, 4096 / world);
                    sum = all_reduce(part -> part, 4096, sum) on tp;
                    mv -> sum;
                    carry sum -> mv;
                }
                v = vote<<<1, 32>>>(x, mine);
                agree = all_reduce(mine -> flag, 1, max) on tp;
                d = decide<<<1, 1>>>(flag, again);
                stack -> v -> agree -> d;
            }
        }
    }

    /// One rank's graph, built and instantiated.
    pub fn build<'a>(
        module: &cuda_graph::Module,
        tp: &'a Communicator,
        part: &'a mut CudaSlice<f32>,
        y: &'a mut CudaSlice<f32>,
        b: &'a CudaSlice<f32>,
        gathered: &'a mut CudaSlice<bf16>,
    ) -> cuda_graph::Result<TpMlpExec<'a>> {
        let inputs = TpMlpInputs {
            tp,
            part,
            y,
            b,
            gathered,
            batch: 8,
        };
        let mut exec = TpMlp::build(module, inputs)?.instantiate()?;
        // Views of collective nodes are captured nodes' views; `batch` sizes a collective, so
        // it has no setter, only its accessor.
        assert_eq!(exec.batch(), 8);
        exec.ar()?.recapture()?;
        Ok(exec)
    }
}

fn main() {
    #[cfg(feature = "nccl")]
    let _ = tp::build;
    #[cfg(feature = "nccl")]
    let _ = (tp::TpMlp::DOT, tp::Layers::DOT);
}
