//! The cost of a WHILE node's iteration limit (`while c, max n`): one WHILE loop whose body is
//! one counting kernel that ends it after N iterations, without a limit and with one that is
//! never reached (so both run the same N iterations; the limit adds its own kernel to each
//! iteration, and a memset before the loop). Times are whole launches, launch to synchronize,
//! medians, interleaved so both see the same machine; per iteration is the launch's time over
//! N, and the difference is the limit's cost per iteration.
//!
//! Results go to `$OUT/while_limit.json` on the device machine, else
//! `docs/bench/raw/while_limit.json`.

use cuda_graph::prelude::*;
use cuda_graph_flagships::harness::{self, median, Gpu};

use std::time::Instant;

cuda_graph! {
    /// The loop without a limit: the body's kernel ends it.
    graph Plain {
        source "kernels/while_limit.cu";
        kernel reset;
        kernel count_to;
        buffer mut c: u32;
        param stop: u32;
        cond again = 1;
        clear = reset<<<1, 1>>>(c);
        run = while again {
            up = count_to<<<1, 1>>>(c, stop, again);
        }
        clear -> run;
    }

    /// The same loop with a limit it never reaches.
    graph Limited {
        source "kernels/while_limit.cu";
        kernel reset;
        kernel count_to;
        buffer mut c: u32;
        param stop: u32;
        param most: u32;
        cond again = 1;
        clear = reset<<<1, 1>>>(c);
        run = while again, max most {
            up = count_to<<<1, 1>>>(c, stop, again);
        }
        clear -> run;
    }
}

fn main() {
    if !harness::bench_requested() {
        return;
    }
    let Some(gpu) = Gpu::find() else {
        return;
    };
    let ctx = gpu.ctx.clone();
    let stream = ctx.default_stream();
    let module = cuda_graph::compile(&ctx, Plain::SOURCE).expect("compile while_limit.cu");
    let mut rows = Vec::new();
    println!("| iterations | without limit | with limit | without / iteration | with / iteration | limit's cost / iteration |");
    println!("|---|---|---|---|---|---|");
    for n in [100u32, 1_000, 10_000] {
        let mut c1 = stream.alloc_zeros::<u32>(1).unwrap();
        let mut c2 = stream.alloc_zeros::<u32>(1).unwrap();
        let mut plain = Plain::build(
            &module,
            PlainInputs {
                c: &mut c1,
                stop: n,
            },
        )
        .unwrap()
        .instantiate()
        .unwrap();
        let mut limited = Limited::build(
            &module,
            LimitedInputs {
                c: &mut c2,
                stop: n,
                most: n + 1,
            },
        )
        .unwrap()
        .instantiate()
        .unwrap();
        let reps = 31;
        let (mut tp, mut tl) = (Vec::new(), Vec::new());
        for rep in 0..reps + 2 {
            let t = Instant::now();
            plain.launch(&stream).unwrap();
            stream.synchronize().unwrap();
            let p = t.elapsed().as_secs_f64() * 1e6;
            let t = Instant::now();
            limited.launch(&stream).unwrap();
            stream.synchronize().unwrap();
            let l = t.elapsed().as_secs_f64() * 1e6;
            // The first two rounds warm up (module loading, uploads, clocks).
            if rep >= 2 {
                tp.push(p);
                tl.push(l);
            }
        }
        let count = limited.run_count().unwrap();
        assert_eq!((count.iterations(), count.limit_hit()), (n, false));
        let done: Vec<u32> = stream.clone_dtoh(plain.c().unwrap()).unwrap();
        assert_eq!(done, [n]);
        let (p, l) = (median(tp), median(tl));
        let (pi, li) = (p / n as f64, l / n as f64);
        println!(
            "| {n} | {p:.1} µs | {l:.1} µs | {:.1} ns | {:.1} ns | {:.1} ns |",
            pi * 1e3,
            li * 1e3,
            (li - pi) * 1e3
        );
        for (imp, us) in [("while_plain", p), ("while_limit", l)] {
            rows.push(format!(
                "  {{\"case\": \"while_limit\", \"shape\": \"{n} iterations\", \"nodes\": 1, \"impl\": \"{imp}\", \"via\": \"one launch, {reps} runs\", \"median_us\": {us:.3}, \"per_iteration_ns\": {:.3}, \"gpu\": \"{}\"}}",
                us * 1e3 / n as f64,
                gpu.name
            ));
        }
    }
    let json = format!("[\n{}\n]\n", rows.join(",\n"));
    harness::write_json("while_limit.json", &json);
}
