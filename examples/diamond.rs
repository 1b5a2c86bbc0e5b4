//! A diamond DAG with a host callback, written with `cuda_graph!`:
//! `top -> [left, right] -> join -> bottom -> back -> report`.
//!
//! `top` writes t = base + i; `left` and `right` read it in parallel (l = 3t, r = 5t); `bottom`
//! combines them (out = l + 2r = 13t); `back` copies `out` to the host and `report` (a host
//! callback) counts the runs. Then `set_base` changes `top`'s argument live and the example
//! checks every value again.
//!
//! Run: `cargo run --release --example diamond` (exits 2 with a message when there is no GPU).
#![deny(warnings)]

use std::process::ExitCode;
use std::sync::atomic::{AtomicU32, Ordering};

use cuda_graph::prelude::*;

cuda_graph! {
    /// The diamond.
    pub graph Diamond {
        kernel iota(y: &mut [u32], base: u32, n: u32);
        kernel lincomb(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);

        buffer mut t: u32;
        buffer mut l: u32;
        buffer mut r: u32;
        buffer mut out: u32;
        host_buffer mut result: u32;
        param base: u32;
        param n: u32;
        callback done;

        top    = iota<<<n.div_ceil(256), 256>>>(t, base, n);
        left   = lincomb<<<n.div_ceil(256), 256>>>(t, 3, t, 0, l, n);
        right  = lincomb<<<n.div_ceil(256), 256>>>(t, 5, t, 0, r, n);
        join   = empty;
        bottom = lincomb<<<n.div_ceil(256), 256>>>(l, 1, r, 2, out, n);
        back   = memcpy(result, out);
        report = host(done);

        top -> [left, right] -> join -> bottom -> back -> report;
    }
}

fn main() -> ExitCode {
    // What it runs, computed at compile time: shown with or without a GPU.
    println!("{}", Diamond::DOT);
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("diamond needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("diamond failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>,
) -> Result<(), Box<dyn std::error::Error>> {
    const N: u32 = 1 << 16;
    let stream = ctx.default_stream();
    let module = compile(ctx, include_str!("kernels/diamond.cu"))?;
    let poison = vec![0xDEAD_BEEFu32; N as usize];
    let mut t = stream.clone_htod(&poison)?;
    let mut l = stream.clone_htod(&poison)?;
    let mut r = stream.clone_htod(&poison)?;
    let mut out = stream.clone_htod(&poison)?;
    let mut result = poison.clone();
    let runs = AtomicU32::new(0);
    let done = || {
        runs.fetch_add(1, Ordering::Relaxed);
    };

    let mut exec = Diamond::build(
        &module,
        DiamondInputs {
            t: &mut t,
            l: &mut l,
            r: &mut r,
            out: &mut out,
            result: &mut result,
            base: 100,
            n: N,
            done: &done,
        },
    )?
    .instantiate()?;

    for base in [100u32, 7] {
        exec.set_base(base)?;
        exec.launch(&stream)?;
        let host = exec.result()?;
        let bad = (0..N).find(|&i| host[i as usize] != 13 * (base + i));
        match bad {
            None => println!("base = {base}: all {N} values are 13 * (base + i)"),
            Some(i) => {
                return Err(format!(
                    "base = {base}: element {i} is {}, expected {}",
                    host[i as usize],
                    13 * (base + i)
                )
                .into())
            }
        }
    }
    exec.synchronize()?;
    println!("report ran {} times", runs.load(Ordering::Relaxed));
    Ok(())
}
