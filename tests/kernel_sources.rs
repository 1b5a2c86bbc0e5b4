//! The kernel sources that the tests, examples and benchmarks of this package compile through
//! the runtime API (`compile`, not a graph's `build_from_source`), compiled as they do it, to
//! machine code, with no GPU. Each source-checked graph's own file has its test of the same
//! kind (`sources_compile_to_machine_code`); `.ci/kernel-sources` lists what no test compiles,
//! and why.

use cuda_graph::check::{self, Arch};
use cuda_graph::kernel::Compile;

const BOTH: &[Arch] = &[Arch::SM_90, Arch::SM_80];
/// Sources that run `griddepcontrol` themselves: sm_90 and later only.
const HOPPER: &[Arch] = &[Arch::SM_90];

/// Each source: its path from the package's root, its text, the architectures it is for.
const SOURCES: &[(&str, &str, &[Arch])] = &[
    (
        "tests/kernels/kernels.cu",
        include_str!("kernels/kernels.cu"),
        BOTH,
    ),
    (
        "tests/kernels/cond.cu",
        include_str!("kernels/cond.cu"),
        BOTH,
    ),
    (
        "tests/kernels/faults.cu",
        include_str!("kernels/faults.cu"),
        BOTH,
    ),
    (
        "tests/kernels/pdl.cu",
        include_str!("kernels/pdl.cu"),
        HOPPER,
    ),
    (
        "examples/kernels/saxpy.cu",
        include_str!("../examples/kernels/saxpy.cu"),
        BOTH,
    ),
    (
        "examples/kernels/diamond.cu",
        include_str!("../examples/kernels/diamond.cu"),
        BOTH,
    ),
    (
        "benches/kernels/bench.cu",
        include_str!("../benches/kernels/bench.cu"),
        BOTH,
    ),
    (
        "benches/kernels/while_limit.cu",
        include_str!("../benches/kernels/while_limit.cu"),
        BOTH,
    ),
    (
        "benches/kernels/pdl.cu",
        include_str!("../benches/kernels/pdl.cu"),
        HOPPER,
    ),
];

#[test]
fn every_source_compiled_through_the_runtime_api_compiles_to_machine_code() {
    for &(rel, text, archs) in SOURCES {
        let path = format!("{}/{rel}", env!("CARGO_MANIFEST_DIR"));
        let opts = Compile::new().file_name(&path);
        for &arch in archs {
            if let Err(e) = check::source(arch, text, &opts, &[]) {
                panic!("{rel}, {arch}: {e}");
            }
        }
    }
}
