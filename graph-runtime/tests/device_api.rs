//! cuda-graph's device API under NVRTC, compiled to machine code with no GPU: a kernel calls
//! `cudaGraphSetConditional`, `cudaGridDependencySynchronize` and
//! `cudaTriggerProgrammaticLaunchCompletion` and names `cudaGraphConditionalHandle` and the
//! half and fp8 types with no declaration of its own; a file that declares them as CUDA's
//! headers do, or includes `<cuda_device_runtime_api.h>`, still compiles; a declaration that
//! differs is NVRTC's error; a missing header is an error that names it.
//!
//! Each test needs NVRTC: without it, it prints why and passes (CI sets
//! `CUDA_GRAPH_REQUIRE_NVRTC=1` and installs NVRTC, so there it fails instead).

use cuda_graph_runtime::check::{self, Arch, Checked};
use cuda_graph_runtime::error::ModuleError;
use cuda_graph_runtime::kernel::Compile;

/// Every item, no declaration.
const BARE: &str = r#"
extern "C" __global__ void k(cudaGraphConditionalHandle c, const __half* h, const __nv_bfloat16* b,
                             const __nv_fp8_e5m2* e, float* y) {
    cudaGridDependencySynchronize();
    cudaTriggerProgrammaticLaunchCompletion();
    y[threadIdx.x] = __half2float(h[threadIdx.x]) + __bfloat162float(b[threadIdx.x]) + float(e[0]);
    if (threadIdx.x == 0) cudaGraphSetConditional(c, y[0] > 0.0f);
}
"#;

/// What the kernel files of earlier versions wrote by hand, and what CUDA's header defines.
const DECLARED: &str = r#"
typedef unsigned long long cudaGraphConditionalHandle;
extern "C" __device__ __cudart_builtin__ void cudaGraphSetConditional(
    cudaGraphConditionalHandle handle, unsigned int value);
static inline __device__ __cudart_builtin__ void cudaTriggerProgrammaticLaunchCompletion(void) {
    asm volatile("griddepcontrol.launch_dependents;":::);
}
static inline __device__ __cudart_builtin__ void cudaGridDependencySynchronize(void) {
    asm volatile("griddepcontrol.wait;":::"memory");
}
"#;

fn compiled(arch: Arch, src: &str, opts: &Compile<'_>) -> Option<Result<Checked, ModuleError>> {
    let r = check::source(arch, src, opts, &["k"]);
    match &r {
        Ok(c) if c.skipped() => None,
        _ => Some(r),
    }
}

fn ok(arch: Arch, src: &str, opts: &Compile<'_>) {
    if let Some(r) = compiled(arch, src, opts) {
        match r {
            Ok(Checked::Compiled {
                arch: a,
                cubin_bytes,
                ..
            }) => {
                assert_eq!(a, arch);
                assert!(cubin_bytes > 0);
            }
            other => panic!("{arch}: {other:?}"),
        }
    }
}

#[test]
fn every_item_needs_no_declaration_on_sm_90_and_sm_80() {
    let opts = Compile::new().file_name("bare.cu");
    for arch in [Arch::SM_90, Arch::SM_80] {
        ok(arch, BARE, &opts);
    }
}

#[test]
fn a_file_that_declares_them_as_cuda_does_still_compiles() {
    let src = format!("{DECLARED}{BARE}");
    // The header's own definitions use `griddepcontrol`, which only sm_90 and later have.
    ok(Arch::SM_90, &src, &Compile::new().file_name("declared.cu"));
    // Declared with its own body: the file's function is the one called (a wait that does not
    // wait is the file's choice, and the macro's proof then reads that body).
    let own = format!(
        "__device__ void cudaGridDependencySynchronize() {{}}\n\
         __device__ void cudaTriggerProgrammaticLaunchCompletion() {{}}\n{BARE}"
    );
    let opts = Compile::new().file_name("own.cu");
    ok(Arch::SM_80, &own, &opts);
    if let Some(ptx) = ptx(&own) {
        assert!(!ptx.contains("griddepcontrol"), "{ptx}");
    }
    if let Some(ptx) = ptx(BARE) {
        assert!(ptx.contains("griddepcontrol.wait"), "{ptx}");
        assert!(ptx.contains("griddepcontrol.launch_dependents"), "{ptx}");
    }
}

/// The PTX of `src` for sm_90 (`None` without NVRTC).
fn ptx(src: &str) -> Option<String> {
    match compiled(Arch::SM_90, src, &Compile::new().file_name("ptx.cu"))? {
        Ok(Checked::Compiled { ptx, .. }) => Some(ptx),
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_file_that_includes_cuda_device_runtime_api_h_still_compiles() {
    let src = format!("#include <cuda_device_runtime_api.h>\n{BARE}");
    let Some(r) = compiled(Arch::SM_90, &src, &Compile::new().file_name("runtime.cu")) else {
        return;
    };
    match r {
        Ok(Checked::Compiled { .. }) => {}
        // The header includes `crt/host_defines.h`, which a toolkit has and the
        // `nvidia-cuda-runtime-cu12` wheel alone does not.
        Err(ModuleError::Compile { log })
            if log.contains("crt/host_defines.h")
                && std::env::var("CUDA_GRAPH_REQUIRE_GPU").as_deref() != Ok("1") =>
        {
            println!("skipped: no crt/host_defines.h beside the headers found");
        }
        other => panic!("{other:?}"),
    }
}

#[test]
fn a_declaration_that_differs_is_nvrtcs_error_at_the_files_line() {
    let src = format!(
        "// a kernel file\nextern \"C\" __device__ void cudaGraphSetConditional(unsigned long long, int);\n{BARE}"
    );
    match compiled(Arch::SM_90, &src, &Compile::new().file_name("differs.cu")) {
        None => {}
        Some(Err(ModuleError::Compile { log })) => {
            assert!(
                log.contains("differs.cu(2): error: more than one instance of overloaded function \"cudaGraphSetConditional\" has \"C\" linkage"),
                "{log}"
            );
        }
        Some(other) => panic!("{other:?}"),
    }
}

#[test]
fn without_the_half_headers_the_error_names_the_header() {
    let opts = Compile::new().file_name("bare.cu").no_toolkit_includes();
    match compiled(Arch::SM_90, BARE, &opts) {
        None => {}
        Some(Err(e @ ModuleError::MissingHeader { .. })) => {
            let ModuleError::MissingHeader {
                name,
                header,
                searched,
                ..
            } = &e
            else {
                unreachable!()
            };
            assert_eq!((name.as_str(), *header), ("__half", "cuda_fp16.h"));
            assert!(searched.is_empty());
            assert!(
                e.to_string().starts_with("`__half` comes from `cuda_fp16.h`, which is in no include directory NVRTC searched (none): install the CUDA toolkit's headers"),
                "{e}"
            );
        }
        Some(other) => panic!("{other:?}"),
    }
    // With no device API, the file declares what it uses itself.
    let opts = Compile::new().file_name("bare.cu").no_device_api();
    match compiled(Arch::SM_90, BARE, &opts) {
        None => {}
        Some(Err(ModuleError::Compile { log })) => {
            assert!(
                log.contains(
                    "bare.cu(4): error: identifier \"cudaGridDependencySynchronize\" is undefined"
                ),
                "{log}"
            );
        }
        Some(other) => panic!("{other:?}"),
    }
}

#[test]
fn machine_code_finds_what_ptx_alone_does_not() {
    // `griddepcontrol` is valid PTX for any target, but sm_80 has no such instruction.
    let src = r#"extern "C" __global__ void k(float* y) {
        asm volatile("griddepcontrol.wait;" ::: "memory");
        y[0] = 1.0f;
    }"#;
    let opts = Compile::new().file_name("asm.cu");
    ok(Arch::SM_90, src, &opts);
    match compiled(Arch::SM_80, src, &opts) {
        None => {}
        Some(Err(ModuleError::Compile { log })) => {
            assert!(
                log.contains("Instruction 'griddepcontrol' requires .target sm_90"),
                "{log}"
            );
        }
        Some(other) => panic!("{other:?}"),
    }
    // A typo in an instruction.
    let typo = src.replace("griddepcontrol.wait", "griddepcontrol.wiat");
    match compiled(Arch::SM_90, &typo, &opts) {
        None => {}
        Some(Err(ModuleError::Compile { log })) => assert!(log.contains("ptxas"), "{log}"),
        Some(other) => panic!("{other:?}"),
    }
}

#[test]
fn every_kernel_asked_for_must_be_in_what_the_architecture_compiles() {
    let src = r#"
#if __CUDA_ARCH__ >= 900
extern "C" __global__ void k(float* y) { y[0] = 1.0f; }
#endif
template <typename T> __global__ void t(T* y) { y[0] = T(2); }
"#;
    let opts = Compile::new()
        .file_name("arch.cu")
        .name_expression("t<float>");
    match check::source(Arch::SM_90, src, &opts, &["k", "t<float>"]) {
        Ok(Checked::Compiled { ptx, .. }) => assert!(ptx.contains(".entry _Z1tIfEvPT_")),
        Ok(c) => assert!(c.skipped()),
        Err(e) => panic!("{e}"),
    }
    match check::source(Arch::SM_80, src, &opts, &["k", "t<float>"]) {
        Err(ModuleError::NotInSource {
            kernel,
            arch,
            entries,
            ..
        }) => {
            assert_eq!((kernel.as_str(), arch), ("k", 80));
            assert_eq!(entries, ["_Z1tIfEvPT_"]);
        }
        Ok(c) => assert!(c.skipped()),
        Err(e) => panic!("{e}"),
    }
    // Built for sm_90 (a graph's `define __CUDA_ARCH__ = 900;`): no sm_80 device loads it.
    let pinned = opts.clone().arch(900);
    match check::source(Arch::SM_80, src, &pinned, &["k"]) {
        Err(e @ ModuleError::ArchTooOld { .. }) => assert_eq!(
            e.to_string(),
            "the kernel source is built for `__CUDA_ARCH__` 900 (sm_90), which a device of sm_80 cannot load: check it for sm_90 or newer"
        ),
        Ok(c) => assert!(c.skipped()),
        Err(e) => panic!("{e}"),
    }
    // For a newer device, the code is sm_90's, which it runs.
    match check::source(Arch::SM_100, src, &pinned, &["k"]) {
        Ok(Checked::Compiled { arch, .. }) => assert_eq!(arch, Arch::SM_90),
        Ok(c) => assert!(c.skipped()),
        Err(e) => panic!("{e}"),
    }
}
