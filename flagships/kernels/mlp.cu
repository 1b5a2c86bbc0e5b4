// The MLP graph's module (src/mlp.rs): the graph launches no kernel of its own. Each layer is
// one cuBLASLt product whose epilogue adds the bias and applies the ReLU.
