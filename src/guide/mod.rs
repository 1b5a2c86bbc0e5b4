#![doc = include_str!("00_index.md")]

/// Declarations, nodes and edges, and what the macro generates from them.
pub mod ch01_grammar {
    #![doc = include_str!("01_grammar.md")]
}
/// IF, IF/ELSE, WHILE and SWITCH nodes, decided on the device.
pub mod ch02_conditionals {
    #![doc = include_str!("02_conditionals.md")]
}
/// Graph-owned scratch memory placed by the macro.
pub mod ch03_temporaries {
    #![doc = include_str!("03_temporaries.md")]
}
/// Layers written once and run `n` times.
pub mod ch04_repeat {
    #![doc = include_str!("04_repeat.md")]
}
/// Library work (cuBLAS, cuBLASLt, any stream work) captured as nodes.
pub mod ch05_captured {
    #![doc = include_str!("05_captured.md")]
}
/// Communicators, collectives and peer copies.
pub mod ch06_several_gpus {
    #![doc = include_str!("06_several_gpus.md")]
}
/// Kernels checked against their CUDA source at compile time.
pub mod ch07_source_checks {
    #![doc = include_str!("07_source_checks.md")]
}
/// Programmatic dependent launch, proved from the source.
pub mod ch08_programmatic {
    #![doc = include_str!("08_programmatic.md")]
}
/// What the macro reports, and how.
pub mod ch09_diagnostics {
    #![doc = include_str!("09_diagnostics.md")]
}
/// The runtime on its own: graphs built node by node, without the macro.
pub mod ch10_runtime {
    #![doc = include_str!("10_runtime.md")]
}
/// A Llama checkpoint decoded in one launch a generation.
pub mod ch11_llama {
    #![doc = include_str!("11_llama.md")]
}
/// Running the tests on a GPU, under compute-sanitizer, and the soak.
pub mod ch12_testing {
    #![doc = include_str!("12_testing.md")]
}
/// Nodes and edges written once and placed in several graphs.
pub mod ch13_blocks {
    #![doc = include_str!("13_blocks.md")]
}
