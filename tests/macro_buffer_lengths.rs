//! Buffers with declared lengths (`buffer x: [T; len];`), run on a GPU with exact values read
//! back: `build` refuses a buffer shorter than its length, a param setter refuses a value that
//! would leave a bound buffer short (and nothing changes: the next launch writes what the last
//! did), a rebinding setter refuses a short buffer, a length that overflows is an error, not a
//! small number; a param that only shapes the grid keeps its setter unchecked.

mod common;

use cuda_graph::error::{BuildError, EditError, ShortBuffer};
use cuda_graph::prelude::*;

cuda_graph! {
    /// `y = 2x + 1` over `n` elements, copied to the host.
    graph Affine {
        source "tests/kernels/buffer_lengths.cu";
        kernel affine;
        buffer x: [f32; n];
        buffer mut y: [f32; n];
        host_buffer mut out: [f32; n];
        param n: u32;
        param block: u32;
        run = affine<<<n.div_ceil(block), block>>>(x, y, n);
        back = memcpy(out, y);
        run -> back;
    }

    /// `w[l] = x + l` for each buffer of a stack, over `n * rows` elements.
    graph Rows {
        source "tests/kernels/buffer_lengths.cu";
        kernel shift;
        buffer x: [f32; n * rows];
        buffer mut w[2]: [f32; n * rows];
        param n: u32;
        param rows: u32;
        each = repeat l in 0..2 {
            s = shift<<<(n * rows).div_ceil(128), 128>>>(x, w[l], l as f32, n * rows);
        }
    }
}

fn input(n: usize) -> Vec<f32> {
    (0..n).map(|i| 0.5 * i as f32 - 3.0).collect()
}

fn short(e: cuda_graph::Error) -> ShortBuffer {
    match e {
        cuda_graph::Error::Build(BuildError::ShortBuffer(s)) => *s,
        other => panic!("expected a short buffer, got {other}"),
    }
}

#[test]
fn build_refuses_a_buffer_shorter_than_its_length() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Affine::SOURCE).unwrap();
    let x = gpu.upload(&input(999));
    let mut y = gpu.upload(&vec![f32::NAN; 1000]);
    let mut out = vec![f32::NAN; 1000];
    let e = Affine::build(
        &module,
        AffineInputs {
            x: &x,
            y: &mut y,
            out: &mut out,
            n: 1000,
            block: 128,
        },
    )
    .err()
    .expect("x holds 999 of 1000");
    let s = short(e);
    assert_eq!(
        (
            s.buffer.as_str(),
            s.position,
            s.len,
            s.needed,
            s.values.as_str()
        ),
        ("x", None, 999, Some(1000), "n = 1000")
    );
    assert_eq!(
        cuda_graph::Error::from(BuildError::from(s)).to_string(),
        "buffer `x` holds 999 elements, fewer than its declared length `n` = 1000 with n = 1000; bind a buffer at least that long, or build with smaller params"
    );
    // A short host buffer too.
    let x = gpu.upload(&input(1000));
    let mut out = vec![f32::NAN; 10];
    let e = Affine::build(
        &module,
        AffineInputs {
            x: &x,
            y: &mut y,
            out: &mut out,
            n: 1000,
            block: 128,
        },
    )
    .err()
    .expect("out holds 10 of 1000");
    assert_eq!((short(e).buffer.as_str(), 10), ("out", 10));
}

#[test]
fn setters_keep_every_bound_buffer_long_enough() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Affine::SOURCE).unwrap();
    let xs = input(2000);
    let x = gpu.upload(&xs);
    let x_short = gpu.upload(&xs[..1500]);
    let x_long = gpu.upload(&xs.iter().map(|v| v + 1.0).collect::<Vec<_>>());
    let x_tiny = gpu.upload(&xs[..599]);
    let mut y = gpu.upload(&vec![f32::NAN; 1000]);
    let mut y_fresh = gpu.upload(&vec![f32::NAN; 1000]);
    let mut out = vec![f32::NAN; 1000];
    let graph = Affine::build(
        &module,
        AffineInputs {
            x: &x,
            y: &mut y,
            out: &mut out,
            n: 1000,
            block: 128,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    let want = |xs: &[f32], n: usize| xs[..n].iter().map(|v| 2.0 * v + 1.0).collect::<Vec<_>>();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.out().unwrap(), &want(&xs, 1000)[..]);

    // 1001 would run past `y` and `out` (1000): refused, naming the first, nothing changed.
    let e = exec.set_n(1001).unwrap_err();
    let EditError::ShortBuffer(s) = &e else {
        panic!("expected a short buffer, got {e}")
    };
    assert_eq!(
        (s.buffer.as_str(), s.len, s.needed),
        ("y", 1000, Some(1001))
    );
    assert!(e
        .to_string()
        .ends_with("; nothing changed (bind a longer buffer first, or set a smaller value)"));
    assert_eq!(exec.n(), 1000);
    exec.out_mut().unwrap().fill(f32::NAN);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.out().unwrap(), &want(&xs, 1000)[..]);

    // A smaller value is taken: only its elements are written (into a fresh, poisoned `y`).
    exec.set_n(600).unwrap();
    exec.set_y(&mut y_fresh).unwrap();
    exec.out_mut().unwrap().fill(f32::NAN);
    exec.launch(&gpu.stream).unwrap();
    let got = exec.out().unwrap();
    assert_eq!(&got[..600], &want(&xs, 600)[..]);
    assert!(got[600..].iter().all(|v| v.is_nan()));

    // A buffer shorter than n = 600 is refused; x stays bound.
    exec.set_n(1000).unwrap();
    let e = exec.set_x(&x_tiny).unwrap_err();
    assert!(
        matches!(&e, EditError::ShortBuffer(s) if s.buffer == "x" && s.len == 599),
        "{e}"
    );
    exec.set_x(&x_short).unwrap();
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.out().unwrap(), &want(&xs, 1000)[..]);
    // ... and then n past the new x (1500) is refused, naming it; a long x is taken.
    let e = exec.set_n(1600).unwrap_err();
    assert!(
        matches!(&e, EditError::ShortBuffer(s) if s.buffer == "x" && s.len == 1500),
        "{e}"
    );
    exec.set_x(&x_long).unwrap();
    exec.launch(&gpu.stream).unwrap();
    let xl: Vec<f32> = xs.iter().map(|v| v + 1.0).collect();
    assert_eq!(exec.out().unwrap(), &want(&xl, 1000)[..]);

    // `block` only shapes the grid: its setter checks nothing and works.
    exec.set_block(256).unwrap();
    exec.out_mut().unwrap().fill(f32::NAN);
    exec.launch(&gpu.stream).unwrap();
    assert_eq!(exec.out().unwrap(), &want(&xl, 1000)[..]);
    exec.synchronize().unwrap();
}

#[test]
fn a_length_that_overflows_is_refused_not_wrapped() {
    let gpu = gpu_or_skip!();
    let module = cuda_graph::compile(&gpu.ctx, Rows::SOURCE).unwrap();
    let (n, rows) = (300usize, 3usize);
    let xs = input(n * rows);
    let x = gpu.upload(&xs);
    let mut w = vec![
        gpu.upload(&vec![f32::NAN; n * rows]),
        gpu.upload(&vec![f32::NAN; n * rows]),
    ];
    let graph = Rows::build(
        &module,
        RowsInputs {
            x: &x,
            w: cuda_graph::buffer::StackMut::slices(&mut w),
            n: n as u32,
            rows: rows as u32,
        },
    )
    .unwrap();
    let mut exec = graph.instantiate().unwrap();
    exec.launch(&gpu.stream).unwrap();
    exec.synchronize().unwrap();

    // n * rows = 2^31 * 2 wraps to 0 in u32, which every buffer would "hold": the exact
    // product is refused.
    exec.set_rows(2).unwrap();
    let e = exec.set_n(1 << 31).unwrap_err();
    let EditError::ShortBuffer(s) = &e else {
        panic!("expected a short buffer, got {e}")
    };
    assert_eq!((s.buffer.as_str(), s.needed), ("x", Some(1 << 32)));
    assert_eq!(s.values, "n = 2147483648, rows = 2");
    assert_eq!(exec.n(), n as u32);
    drop(exec);
    let got: Vec<Vec<f32>> = w.iter().map(|b| gpu.read(b)).collect();
    for (l, row) in got.iter().enumerate() {
        let want: Vec<f32> = xs.iter().map(|v| v + l as f32).collect();
        assert_eq!(row, &want);
    }

    // A stack whose second buffer is short names it.
    let mut w = vec![
        gpu.upload(&vec![0f32; n * rows]),
        gpu.upload(&vec![0f32; n * rows - 1]),
    ];
    let e = Rows::build(
        &module,
        RowsInputs {
            x: &x,
            w: cuda_graph::buffer::StackMut::slices(&mut w),
            n: n as u32,
            rows: rows as u32,
        },
    )
    .err()
    .expect("w[1] is short");
    let s = short(e);
    assert_eq!(
        (s.buffer.as_str(), s.position, s.len),
        ("w", Some(1), n * rows - 1)
    );
}

#[test]
fn sources_compile_to_machine_code() {
    common::check_sources(
        &[
            ("Affine", Affine::check_source),
            ("Rows", Rows::check_source),
        ],
        &common::ARCHS,
    );
}
