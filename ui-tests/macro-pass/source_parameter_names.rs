//! Kernel parameters taken from C code with names Rust would not use: setters in snake_case,
//! collisions resolved by the documented rule, no warning under `deny(warnings)`.
#![deny(warnings)]
use cuda_graph::prelude::*;

cuda_graph! {
    graph Rows {
        source "../macro/cu/names.cu";
        kernel scale_rows;
        buffer mut a: f32;
        buffer x: f32;
        param n: i32;
        go = scale_rows<<<1, 32>>>(a, n, n, 4, 2.0, x, 0, n);
    }
}

#[allow(dead_code)]
fn edit(exec: &mut RowsExec<'_>) -> Result<(), cuda_graph::Error> {
    let mut v = exec.go()?;
    v.set_n(3)?;
    v.set_ld_a(3)?;
    v.set_grid_3(8)?;
    v.set_alpha_value(0.5)?;
    v.set_type_6(1)?;
    v.set_n_7(2)?;
    v.set_grid((1, 1, 1))?;
    Ok(())
}

fn main() {
    // Its kernels compiled as `build_from_source` will, to machine code (NVRTC alone; without
    // it, a printed skip).
    use cuda_graph::check::{self, Arch};
    if let Err(e) = check::graphs(&[("Rows", Rows::check_source)], &[Arch::SM_90, Arch::SM_80]) {
        panic!("{e}");
    }
}
