//! Conjugate gradient on the 2-D Poisson matrix (5-point stencil on an `m x m` grid, CSR), three
//! ways with the same kernels (`kernels/cg.cu`):
//!
//! - [`CgSolve`]: the whole solve is one graph launch; the iterations are a WHILE node whose
//!   condition the `check` kernel sets on the device;
//! - [`CgIteration`]: one graph launch per iteration, the host reading the decision back after
//!   each (the setup nodes run in the first launch of a solve only: they are disabled after it
//!   and enabled again for the next solve, three setter calls);
//! - [`host_loop`]: no graph, every kernel launched on a cudarc stream, the host synchronizing
//!   after each iteration.
//!
//! Shared by `examples/cg.rs`, `tests/cg.rs` and the workspace's `benches/cg.rs`. Vectors are `f32`, dot
//! products are accumulated in `f64`; [`reference()`] is the same algorithm on the CPU in `f64`.

#![allow(dead_code)]

use std::sync::Arc;

use cuda_graph::cudarc::driver::{CudaSlice, CudaStream, LaunchConfig, PushKernelArg};
use cuda_graph::prelude::*;

cuda_graph! {
    /// The start of a solve: the scalars cleared, `x = 0`, `r = p = b`, the first `r.r`.
    pub block cg_setup {
        source "kernels/cg.cu";
        kernel cg_reset;
        kernel cg_init;
        kernel cg_start;
        buffer b: f32;
        buffer mut x: f32;
        buffer mut r: f32;
        buffer mut p: f32;
        buffer mut s: f64;
        param n: u32;
        param tol: f64;
        reset = cg_reset<<<1, 32>>>(s);
        init  = cg_init<<<n.div_ceil(256), 256>>>(b, x, r, p, s, n);
        start = cg_start<<<1, 1>>>(s, tol);
        reset -> init -> start;
    }

    /// One step down the direction: `ap = A p`, `p.ap`, then `x += alpha p`, `r -= alpha ap`.
    pub block cg_step {
        source "kernels/cg.cu";
        kernel cg_spmv;
        kernel cg_pap;
        kernel cg_update;
        buffer rowptr: u32;
        buffer col: u32;
        buffer val: f32;
        buffer mut x: f32;
        buffer mut r: f32;
        buffer mut p: f32;
        buffer mut ap: f32;
        buffer mut s: f64;
        param n: u32;
        spmv    = cg_spmv<<<n.div_ceil(256), 256>>>(rowptr, col, val, p, ap, n);
        pap     = cg_pap<<<n.div_ceil(256), 256>>>(p, ap, s, n);
        descend = cg_update<<<n.div_ceil(256), 256>>>(p, ap, x, r, s, n);
        spmv -> pap -> descend;
    }

    /// The whole solve as one launch: the setup, then a WHILE node running the iterations
    /// until `cg_check_loop` clears `again`.
    pub graph CgSolve {
        source "kernels/cg.cu";
        kernel cg_check_loop;
        kernel cg_direction;

        inputs cg_setup;
        inputs cg_step;
        param max_iters: u32;
        cond again = 1;

        setup = use cg_setup;
        solve = while again {
            step      = use cg_step;
            check     = cg_check_loop<<<1, 1>>>(s, max_iters, again);
            direction = cg_direction<<<n.div_ceil(256), 256>>>(r, p, s, n);
            step -> check -> direction;
        }
        setup -> solve;
    }

    /// One iteration per launch; the setup's nodes are enabled for the first launch of a
    /// solve.
    pub graph CgIteration {
        source "kernels/cg.cu";
        kernel cg_check;
        kernel cg_direction;

        inputs cg_setup;
        inputs cg_step;
        param max_iters: u32;

        setup     = use cg_setup;
        step      = use cg_step;
        check     = cg_check<<<1, 1>>>(s, max_iters);
        direction = cg_direction<<<n.div_ceil(256), 256>>>(r, p, s, n);
        setup -> step -> check -> direction;
    }
}

/// Where the kernels keep the iteration count in `s`.
pub const ITERS: usize = 5;
/// Where the kernels keep the "done" flag in `s`.
pub const DONE: usize = 6;
/// Scalars at the start of `s`: what the host reads.
pub const SCALARS: usize = 8;
/// Elements of `s`: the scalars, then the partial sums of the dot products (`S_LEN` in `cg.cu`).
pub const S_LEN: usize = SCALARS + 3 * 8 * 16;

/// The 2-D Poisson matrix of an `m x m` grid: 4 on the diagonal, -1 for each neighbour.
pub struct Poisson {
    /// The grid's side.
    pub m: usize,
    /// Unknowns (rows of the matrix): `m * m`.
    pub n: usize,
    /// CSR row offsets, `n + 1` of them.
    pub rowptr: Vec<u32>,
    /// The column of each nonzero, row by row.
    pub col: Vec<u32>,
    /// The value of each nonzero, row by row.
    pub val: Vec<f32>,
}

impl Poisson {
    /// The matrix of an `m x m` grid, its unknowns in row-major grid order.
    pub fn new(m: usize) -> Self {
        let n = m * m;
        let (mut rowptr, mut col, mut val) = (vec![0u32], Vec::new(), Vec::new());
        for i in 0..m {
            for j in 0..m {
                let mut put = |c: usize, v: f32| {
                    col.push(c as u32);
                    val.push(v);
                };
                if i > 0 {
                    put((i - 1) * m + j, -1.0);
                }
                if j > 0 {
                    put(i * m + j - 1, -1.0);
                }
                put(i * m + j, 4.0);
                if j + 1 < m {
                    put(i * m + j + 1, -1.0);
                }
                if i + 1 < m {
                    put((i + 1) * m + j, -1.0);
                }
                rowptr.push(col.len() as u32);
            }
        }
        Poisson {
            m,
            n,
            rowptr,
            col,
            val,
        }
    }

    /// A right-hand side with no zeros and some structure.
    pub fn rhs(&self) -> Vec<f32> {
        (0..self.n).map(|i| 1.0 + (i % 7) as f32 * 0.25).collect()
    }

    /// `A x` in `f64`.
    pub fn apply(&self, x: &[f64]) -> Vec<f64> {
        (0..self.n)
            .map(|i| {
                let (a, b) = (self.rowptr[i] as usize, self.rowptr[i + 1] as usize);
                (a..b)
                    .map(|k| self.val[k] as f64 * x[self.col[k] as usize])
                    .sum()
            })
            .collect()
    }
}

/// CG on the CPU in `f64`, with the kernels' stopping rule: the solution and the iterations.
pub fn reference(a: &Poisson, b: &[f32], tol: f64, max_iters: u32) -> (Vec<f64>, u32) {
    let dot = |u: &[f64], v: &[f64]| u.iter().zip(v).map(|(x, y)| x * y).sum::<f64>();
    let mut x = vec![0.0; a.n];
    let mut r: Vec<f64> = b.iter().map(|&v| v as f64).collect();
    let mut p = r.clone();
    let mut rr = dot(&r, &r);
    let tol2 = tol * tol * rr;
    let mut iters = 0;
    loop {
        let ap = a.apply(&p);
        let alpha = rr / dot(&p, &ap);
        for i in 0..a.n {
            x[i] += alpha * p[i];
            r[i] -= alpha * ap[i];
        }
        let rr_new = dot(&r, &r);
        iters += 1;
        if rr_new <= tol2 || iters >= max_iters {
            return (x, iters);
        }
        let beta = rr_new / rr;
        rr = rr_new;
        for i in 0..a.n {
            p[i] = r[i] + beta * p[i];
        }
    }
}

/// `|b - A x| / |b|`, in `f64`.
pub fn relative_residual(a: &Poisson, x: &[f32], b: &[f32]) -> f64 {
    let x: Vec<f64> = x.iter().map(|&v| v as f64).collect();
    let ax = a.apply(&x);
    let num: f64 = ax.iter().zip(b).map(|(u, &v)| (v as f64 - u).powi(2)).sum();
    let den: f64 = b.iter().map(|&v| (v as f64).powi(2)).sum();
    (num / den).sqrt()
}

/// The device buffers of one problem.
pub struct Buffers {
    /// The matrix's CSR row offsets, `n + 1` of them.
    pub rowptr: CudaSlice<u32>,
    /// The matrix's column of each nonzero.
    pub col: CudaSlice<u32>,
    /// The matrix's value of each nonzero.
    pub val: CudaSlice<f32>,
    /// The right-hand side, `n` elements.
    pub b: CudaSlice<f32>,
    /// The solution, `n` elements.
    pub x: CudaSlice<f32>,
    /// The residual `b - A x`, `n` elements.
    pub r: CudaSlice<f32>,
    /// The search direction, `n` elements.
    pub p: CudaSlice<f32>,
    /// `A p`, `n` elements.
    pub ap: CudaSlice<f32>,
    /// The scalars ([`SCALARS`]), then the dot products' partial sums: [`S_LEN`] in all.
    pub s: CudaSlice<f64>,
}

impl Buffers {
    /// Uploads the matrix and `b`; the work vectors start poisoned (NaN), so an element no
    /// kernel writes shows in the result.
    pub fn upload(stream: &Arc<CudaStream>, a: &Poisson, b: &[f32]) -> Self {
        let poison = vec![f32::NAN; a.n];
        Buffers {
            rowptr: stream.clone_htod(&a.rowptr).unwrap(),
            col: stream.clone_htod(&a.col).unwrap(),
            val: stream.clone_htod(&a.val).unwrap(),
            b: stream.clone_htod(b).unwrap(),
            x: stream.clone_htod(&poison).unwrap(),
            r: stream.clone_htod(&poison).unwrap(),
            p: stream.clone_htod(&poison).unwrap(),
            ap: stream.clone_htod(&poison).unwrap(),
            s: stream.clone_htod(&[f64::NAN; S_LEN]).unwrap(),
        }
    }

    /// The inputs of a [`CgSolve`] graph over these buffers: `n` unknowns, stopping at
    /// `|r| <= tol |b|` or after `max_iters` iterations.
    pub fn solve_inputs(&mut self, n: u32, tol: f64, max_iters: u32) -> CgSolveInputs<'_> {
        CgSolveInputs {
            rowptr: &self.rowptr,
            col: &self.col,
            val: &self.val,
            b: &self.b,
            x: &mut self.x,
            r: &mut self.r,
            p: &mut self.p,
            ap: &mut self.ap,
            s: &mut self.s,
            n,
            tol,
            max_iters,
        }
    }

    /// The inputs of a [`CgIteration`] graph over these buffers, with the same parameters as
    /// [`solve_inputs`](Self::solve_inputs).
    pub fn iteration_inputs(&mut self, n: u32, tol: f64, max_iters: u32) -> CgIterationInputs<'_> {
        CgIterationInputs {
            rowptr: &self.rowptr,
            col: &self.col,
            val: &self.val,
            b: &self.b,
            x: &mut self.x,
            r: &mut self.r,
            p: &mut self.p,
            ap: &mut self.ap,
            s: &mut self.s,
            n,
            tol,
            max_iters,
        }
    }
}

/// What a solve leaves: the solution and the iterations it took.
pub struct Outcome {
    /// The solution, `n` elements.
    pub x: Vec<f32>,
    /// The iterations the solve took.
    pub iterations: u32,
}

/// Reads the iteration count from the scalars.
fn iterations(stream: &Arc<CudaStream>, s: &CudaSlice<f64>) -> u32 {
    stream.clone_dtoh(s).unwrap()[ITERS] as u32
}

/// One solve with the WHILE graph (launched and waited for).
pub fn solve_once(
    stream: &Arc<CudaStream>,
    exec: &mut CgSolveExec<'_>,
) -> Result<(), cuda_graph::Error> {
    exec.launch(stream)?;
    exec.synchronize()?;
    Ok(())
}

/// The WHILE graph's result.
pub fn solve_outcome(stream: &Arc<CudaStream>, exec: &CgSolveExec<'_>) -> Outcome {
    Outcome {
        x: stream.clone_dtoh(exec.x().unwrap()).unwrap(),
        iterations: iterations(stream, exec.s().unwrap()),
    }
}

/// One solve with one graph launch per iteration; `host` receives the scalars after each.
pub fn iterate(
    stream: &Arc<CudaStream>,
    exec: &mut CgIterationExec<'_>,
    max_iters: u32,
    host: &mut [f64; SCALARS],
) -> Result<u32, cuda_graph::Error> {
    for node in [0, 1, 2] {
        set_setup(exec, node, true)?;
    }
    let mut launches = 0;
    loop {
        exec.launch(stream)?;
        launches += 1;
        if launches == 1 {
            for node in [0, 1, 2] {
                set_setup(exec, node, false)?;
            }
        }
        stream
            .memcpy_dtoh(&exec.s()?.slice(..SCALARS), &mut host[..])
            .unwrap();
        stream.synchronize().unwrap();
        if host[DONE] != 0.0 || launches >= max_iters {
            return Ok(launches);
        }
    }
}

fn set_setup(
    exec: &mut CgIterationExec<'_>,
    node: usize,
    on: bool,
) -> Result<(), cuda_graph::Error> {
    match node {
        0 => exec.setup_reset()?.set_enabled(on)?,
        1 => exec.setup_init()?.set_enabled(on)?,
        _ => exec.setup_start()?.set_enabled(on)?,
    }
    Ok(())
}

/// The kernels of the host loop.
pub struct Kernels {
    /// `cg_reset`: zeroes `s`.
    pub reset: cuda_graph::Kernel,
    /// `cg_init`: `x = 0`, `r = p = b`, and the partial sums of `b . b`.
    pub init: cuda_graph::Kernel,
    /// `cg_start`: `r . r` and the stopping threshold.
    pub start: cuda_graph::Kernel,
    /// `cg_spmv`: `ap = A p`.
    pub spmv: cuda_graph::Kernel,
    /// `cg_pap`: the partial sums of `p . ap`.
    pub pap: cuda_graph::Kernel,
    /// `cg_update`: `x` and `r` stepped along `p` and `ap`, and the partial sums of the new
    /// `r . r`.
    pub update: cuda_graph::Kernel,
    /// `cg_check`: counts the iteration and leaves the decision in `s[DONE]`.
    pub check: cuda_graph::Kernel,
    /// `cg_direction`: `p = r + beta p`.
    pub direction: cuda_graph::Kernel,
}

impl Kernels {
    /// The host loop's kernels from `module` (compiled from `kernels/cg.cu`).
    pub fn load(module: &cuda_graph::Module) -> Result<Self, cuda_graph::Error> {
        Ok(Kernels {
            reset: module.function("cg_reset")?,
            init: module.function("cg_init")?,
            start: module.function("cg_start")?,
            spmv: module.function("cg_spmv")?,
            pap: module.function("cg_pap")?,
            update: module.function("cg_update")?,
            check: module.function("cg_check")?,
            direction: module.function("cg_direction")?,
        })
    }
}

/// One solve with every kernel launched on `stream` (no graph), the host waiting for the
/// decision after each iteration. Returns the iterations.
pub fn host_loop(
    stream: &Arc<CudaStream>,
    k: &Kernels,
    d: &mut Buffers,
    n: u32,
    tol: f64,
    max_iters: u32,
    host: &mut [f64; SCALARS],
) -> u32 {
    let wide = LaunchConfig {
        grid_dim: (n.div_ceil(256), 1, 1),
        block_dim: (256, 1, 1),
        shared_mem_bytes: 0,
    };
    let one = |threads: u32| LaunchConfig {
        grid_dim: (1, 1, 1),
        block_dim: (threads, 1, 1),
        shared_mem_bytes: 0,
    };
    let f = |k: &cuda_graph::Kernel| k.cuda_function().clone();
    let (reset, init, start) = (f(&k.reset), f(&k.init), f(&k.start));
    let (spmv, pap, update) = (f(&k.spmv), f(&k.pap), f(&k.update));
    let (check, direction) = (f(&k.check), f(&k.direction));
    // SAFETY (every launch below): the arguments match the kernels' parameter lists in
    // `cg.cu`, and every buffer holds `n` elements (`s`: S_LEN).
    unsafe {
        stream
            .launch_builder(&reset)
            .arg(&mut d.s)
            .launch(one(32))
            .unwrap();
        let mut l = stream.launch_builder(&init);
        l.arg(&d.b)
            .arg(&mut d.x)
            .arg(&mut d.r)
            .arg(&mut d.p)
            .arg(&mut d.s)
            .arg(&n);
        l.launch(wide).unwrap();
        stream
            .launch_builder(&start)
            .arg(&mut d.s)
            .arg(&tol)
            .launch(one(1))
            .unwrap();
    }
    let mut iters = 0;
    loop {
        // SAFETY: as above.
        unsafe {
            let mut l = stream.launch_builder(&spmv);
            l.arg(&d.rowptr)
                .arg(&d.col)
                .arg(&d.val)
                .arg(&d.p)
                .arg(&mut d.ap)
                .arg(&n);
            l.launch(wide).unwrap();
            let mut l = stream.launch_builder(&pap);
            l.arg(&d.p).arg(&d.ap).arg(&mut d.s).arg(&n);
            l.launch(wide).unwrap();
            let mut l = stream.launch_builder(&update);
            l.arg(&d.p)
                .arg(&d.ap)
                .arg(&mut d.x)
                .arg(&mut d.r)
                .arg(&mut d.s)
                .arg(&n);
            l.launch(wide).unwrap();
            let mut l = stream.launch_builder(&check);
            l.arg(&mut d.s).arg(&max_iters).launch(one(1)).unwrap();
            let mut l = stream.launch_builder(&direction);
            l.arg(&d.r)
                .arg(&mut d.p)
                .arg(&d.s)
                .arg(&n)
                .launch(wide)
                .unwrap();
        }
        iters += 1;
        stream
            .memcpy_dtoh(&d.s.slice(..SCALARS), &mut host[..])
            .unwrap();
        stream.synchronize().unwrap();
        if host[DONE] != 0.0 || iters >= max_iters {
            return iters;
        }
    }
}
