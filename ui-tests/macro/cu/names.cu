// Parameter names as C code has them: upper case, camelCase, names of the view's own setters,
// a Rust keyword, and names that meet after snake_case.
extern "C" __global__ void scale_rows(float* A, int N, int ldA, unsigned grid, float alphaValue,
                                      const float* X, int type, int n) {}
