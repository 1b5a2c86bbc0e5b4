//! The tensor-parallel MLP block (`src/tp_mlp`): the whole block against a float64 CPU forward
//! pass at batches 1, 3, 8 (`TpMlpVec`), 32 and 128 (`TpMlp`), outputs poisoned before the
//! run, at world size 1 on one GPU and at world size 2 when two GPUs are present
//! (`CUDA_GRAPH_REQUIRE_GPUS=2` makes their absence a failure); either program with a shard
//! made for another world size is an error at build, naming the buffer or the node.

use std::time::Duration;

use cuda_graph::comm::Communicator;
use cuda_graph_flagships::harness::Gpu;
use cuda_graph_flagships::tp_mlp::{self, RankSetup, TpMlp};

const WAIT: Duration = Duration::from_secs(120);

#[test]
fn the_block_at_world_size_one_matches_float64() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let comms = Communicator::local(std::slice::from_ref(&gpu.ctx), WAIT).unwrap();
    let ranks = vec![RankSetup::new(&comms[0]).unwrap()];
    for batch in [1u32, 3, 8, 32, 128] {
        // Three steps: inputs 0, 1, 0; the output is the last one's.
        let out = tp_mlp::run(&ranks, &comms, batch, 3, 0, WAIT).unwrap();
        let want = if batch <= tp_mlp::VEC_BATCH {
            "TpMlpVec"
        } else {
            "TpMlp"
        };
        assert_eq!(out.program, want);
        let x = tp_mlp::inputs_of(0, batch);
        let y = &out.outputs[0];
        assert_eq!(y.len(), (batch * tp_mlp::HIDDEN) as usize);
        assert!(
            y.iter().all(|v| v.is_finite()),
            "batch {batch}: unwritten output"
        );
        let err = tp_mlp::max_rel_error(&x, y, batch);
        assert!(
            err < 1e-5,
            "batch {batch}: {err:e} off the float64 reference"
        );
        // Every row differs from its input: the block ran on it.
        assert!(y[..16].iter().zip(&x).any(|(a, b)| a != b));
    }
}

#[test]
fn a_shard_of_another_world_size_is_an_error_at_build() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let comms = Communicator::local(std::slice::from_ref(&gpu.ctx), WAIT).unwrap();
    let mut setup = RankSetup::new(&comms[0]).unwrap();
    // Rank 0's weights of a world of 2: half the rows this world size needs.
    setup.shard = tp_mlp::DeviceShard::upload(&setup.stream, &tp_mlp::Shard::new(0, 2).unwrap());
    let batch = 4;
    let mut bufs = tp_mlp::Rank::new(&setup.stream, batch, tp_mlp::INTER);
    let e = tp_mlp::vec_inputs(&comms[0], &mut bufs, &setup.shard, batch)
        .map(|_| ())
        .unwrap_err()
        .to_string();
    assert!(
        e.contains("`w1` holds 33554432 elements but rank 0 of 1 needs 67108864 for a batch of 4"),
        "{e}"
    );
    let up = tp_mlp::gemm(&setup.blas, tp_mlp::up_cfg(batch, tp_mlp::INTER));
    let down = tp_mlp::gemm(&setup.blas, tp_mlp::down_cfg(batch, tp_mlp::INTER));
    let e = TpMlp::build(
        &setup.module,
        tp_mlp::inputs(
            &comms[0],
            &mut bufs,
            &setup.shard,
            batch,
            &setup.capture,
            &up,
            &down,
        ),
    )
    .map(|_| ())
    .unwrap_err()
    .to_string();
    assert!(e.contains("`g1`"), "{e}");
    assert!(
        e.contains("the weight holds 33554432 elements but this rank's GEMM (16384 x 4096 times 4096 x 4) needs 67108864"),
        "{e}"
    );
}

#[test]
fn a_batch_the_small_program_does_not_take_is_an_error() {
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let comms = Communicator::local(std::slice::from_ref(&gpu.ctx), WAIT).unwrap();
    let setup = RankSetup::new(&comms[0]).unwrap();
    for batch in [0, tp_mlp::VEC_BATCH + 1] {
        let mut bufs = tp_mlp::Rank::new(&setup.stream, batch.max(1), tp_mlp::INTER);
        let e = tp_mlp::vec_inputs(&comms[0], &mut bufs, &setup.shard, batch)
            .map(|_| ())
            .unwrap_err()
            .to_string();
        assert!(e.contains("TpMlpVec takes batches of 1 to 8 rows"), "{e}");
    }
}

#[test]
fn the_small_program_fits_batches_of_one_to_eight_on_up_to_sixteen_ranks() {
    for world in [1, 2, 4, 8, 16] {
        assert!((1..=8).all(|b| tp_mlp::vec_fits(world, b)), "world {world}");
        assert!(!tp_mlp::vec_fits(world, 0) && !tp_mlp::vec_fits(world, 9));
    }
    // 512 columns a rank: whole tiles of 512 (batches above 4), not of 1024.
    assert!(!tp_mlp::vec_fits(32, 1) && !tp_mlp::vec_fits(32, 4));
    assert!(tp_mlp::vec_fits(32, 5) && tp_mlp::vec_fits(32, 8));
    // Not a divisor of the inner width.
    assert!(!tp_mlp::vec_fits(3, 1));
}

#[test]
fn the_block_over_two_gpus_matches_float64_and_the_ranks_agree() {
    let Some(gpus) = Gpu::find_many(2) else {
        return;
    };
    let ctxs: Vec<_> = gpus.iter().map(|g| g.ctx.clone()).collect();
    let comms = Communicator::local(&ctxs, WAIT).unwrap();
    let ranks: Vec<RankSetup> = comms.iter().map(|c| RankSetup::new(c).unwrap()).collect();
    for batch in [1u32, 5, 32] {
        // Four steps: inputs 0, 1, 0, 1.
        let out = tp_mlp::run(&ranks, &comms, batch, 4, 0, WAIT).unwrap();
        let x = tp_mlp::inputs_of(1, batch);
        for (r, y) in out.outputs.iter().enumerate() {
            assert!(
                y.iter().all(|v| v.is_finite()),
                "batch {batch}, rank {r}: unwritten output"
            );
        }
        assert!(
            out.outputs.iter().all(|o| o == &out.outputs[0]),
            "batch {batch}: the ranks disagree"
        );
        let err = tp_mlp::max_rel_error(&x, &out.outputs[0], batch);
        assert!(
            err < 1e-5,
            "batch {batch}: {err:e} off the float64 reference"
        );
    }
}
