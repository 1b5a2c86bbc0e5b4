//! A 2-D heat solver in one launch: sweeps of diffusion steps (a repeat block) inside a WHILE
//! loop that a kernel ends once the plate has settled, its kernels in a `.cu` file written as
//! the docs say (no declaration of `cudaGraphSetConditional`: cuda-graph's device API). The
//! plate is solved twice, with `set_alpha` between, and each solution is checked against the
//! same solver in float64 on the CPU.
//!
//! Run: `cargo run --release --example heat` (exits 2 with a message when there is no GPU).
#![deny(warnings)]

use std::process::ExitCode;

use cuda_graph::prelude::*;

cuda_graph! {
    /// Diffusion on an `nx` by `ny` plate (top row held at 1, the other edges at 0) until the
    /// largest change over a sweep of `2 * steps` steps is below `tol`, or `max_sweeps` sweeps.
    pub graph Heat {
        source "examples/kernels/heat.cu";
        kernel start;
        kernel step;
        kernel converged;

        buffer mut u: f32;
        buffer mut v: f32;
        buffer mut last: f32;
        buffer mut change: f32;
        buffer mut sweeps: u32;
        param alpha: f32;
        param nx: u32;
        param ny: u32;
        param steps: u32;
        param tol: f32;
        param max_sweeps: u32;
        cond again = 1;

        init = start<<<(nx * ny).div_ceil(256), 256>>>(u, last, sweeps, nx, nx * ny);
        solve = while again {
            sweep = repeat s in 0..steps {
                there = step<<<(nx.div_ceil(16), ny.div_ceil(16)), (16, 16)>>>(u, v, alpha, nx, ny);
                back = step<<<(nx.div_ceil(16), ny.div_ceil(16)), (16, 16)>>>(v, u, alpha, nx, ny);
                there -> back;
                carry back -> there;
            }
            check = converged<<<1, 256>>>(u, last, change, sweeps, tol, max_sweeps, nx * ny, again);
            sweep -> check;
        }
        init -> solve;
    }
}

const NX: usize = 64;
const NY: usize = 48;
const STEPS: u32 = 10;
const TOL: f32 = 1e-4;
const MAX_SWEEPS: u32 = 5000;

fn main() -> ExitCode {
    let ctx = match cuda_graph::context(0) {
        Ok(ctx) => ctx,
        Err(e) => {
            eprintln!("heat needs a CUDA GPU: {e}");
            return ExitCode::from(2);
        }
    };
    match run(&ctx) {
        Ok(()) => ExitCode::SUCCESS,
        Err(e) => {
            eprintln!("heat failed: {e}");
            ExitCode::FAILURE
        }
    }
}

fn run(
    ctx: &std::sync::Arc<cuda_graph::cudarc::driver::CudaContext>,
) -> Result<(), Box<dyn std::error::Error>> {
    let stream = ctx.default_stream();
    let cells = NX * NY;
    let poison = f32::from_bits(0x7fc0_dead);
    let mut u = stream.clone_htod(&vec![poison; cells])?;
    let mut v = stream.clone_htod(&vec![poison; cells])?;
    let mut last = stream.clone_htod(&vec![poison; cells])?;
    let mut change = stream.clone_htod(&[poison])?;
    let mut sweeps = stream.clone_htod(&[u32::MAX])?;

    let graph = Heat::build_from_source(
        ctx,
        HeatInputs {
            u: &mut u,
            v: &mut v,
            last: &mut last,
            change: &mut change,
            sweeps: &mut sweeps,
            alpha: 0.2,
            nx: NX as u32,
            ny: NY as u32,
            steps: STEPS,
            tol: TOL,
            max_sweeps: MAX_SWEEPS,
        },
    )?;
    let mut exec = graph.instantiate()?;
    for alpha in [0.2f32, 0.1] {
        exec.set_alpha(alpha)?;
        let t = std::time::Instant::now();
        exec.launch(&stream)?;
        stream.synchronize()?;
        let took = t.elapsed();
        let done = stream.clone_dtoh(exec.sweeps()?)?[0];
        let last_change = stream.clone_dtoh(exec.change()?)?[0];
        let field = stream.clone_dtoh(exec.u()?)?;
        if done == 0 || done > MAX_SWEEPS {
            return Err(format!("the GPU reports {done} sweeps").into());
        }

        // The same solver in float64: as many sweeps as the GPU ran, and when its own rule
        // stops (which may differ by one sweep where the change is within rounding of `tol`).
        let (reference, cpu_sweeps) = solve_f64(alpha as f64, done);
        let worst = field
            .iter()
            .zip(&reference)
            .map(|(&g, &c)| (g as f64 - c).abs())
            .fold(0.0, f64::max);
        println!(
            "alpha {alpha}: {done} sweeps of {} steps in one launch ({:.1} ms), last change {last_change:.2e}; \
             float64 stops after {cpu_sweeps}; largest difference from float64 {worst:.2e}",
            2 * STEPS,
            took.as_secs_f64() * 1e3
        );
        if done.abs_diff(cpu_sweeps) > 1 || done >= MAX_SWEEPS {
            return Err(format!("the GPU ran {done} sweeps, float64 {cpu_sweeps}").into());
        }
        if worst > 1e-4 || last_change >= TOL {
            return Err(format!("{worst:.2e} from float64, last change {last_change:.2e}").into());
        }
    }
    Ok(())
}

/// The plate after `sweeps` sweeps in float64, and the sweeps after which the GPU's rule
/// (largest change below `tol`, or `MAX_SWEEPS`) stops in float64. `sweeps` is at most
/// `MAX_SWEEPS`.
fn solve_f64(alpha: f64, sweeps: u32) -> (Vec<f64>, u32) {
    let mut u: Vec<f64> = (0..NX * NY)
        .map(|i| if i < NX { 1.0 } else { 0.0 })
        .collect();
    let mut v = u.clone();
    let mut at = None;
    let mut kept = None;
    let mut n = 0;
    while (kept.is_none() || at.is_none()) && n < MAX_SWEEPS {
        let before = u.clone();
        for _ in 0..2 * STEPS {
            for y in 0..NY {
                for x in 0..NX {
                    let i = y * NX + x;
                    v[i] = if x == 0 || y == 0 || x == NX - 1 || y == NY - 1 {
                        u[i]
                    } else {
                        u[i] + alpha * (u[i - 1] + u[i + 1] + u[i - NX] + u[i + NX] - 4.0 * u[i])
                    };
                }
            }
            std::mem::swap(&mut u, &mut v);
        }
        n += 1;
        let most = u
            .iter()
            .zip(&before)
            .map(|(a, b)| (a - b).abs())
            .fold(0.0, f64::max);
        if at.is_none() && (most < TOL as f64 || n >= MAX_SWEEPS) {
            at = Some(n);
        }
        if n == sweeps {
            kept = Some(u.clone());
        }
    }
    let kept = kept.expect("sweeps is at most MAX_SWEEPS");
    (kept, at.unwrap_or(MAX_SWEEPS))
}

/// Its kernels compiled as `build_from_source` will for sm_90 and sm_80, to machine code, with
/// no GPU (`cargo test` runs it; without NVRTC it prints why and passes).
#[test]
fn the_kernels_compile_for_sm_90_and_sm_80() {
    use cuda_graph::check::Arch;
    for arch in [Arch::SM_90, Arch::SM_80] {
        if let Err(e) = Heat::check_source(arch) {
            panic!("{arch}: {e}");
        }
    }
}
