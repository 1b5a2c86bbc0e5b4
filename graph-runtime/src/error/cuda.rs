//! What the errors of cudarc's own calls say when they reach `Error` through `?`: the
//! library, what it was doing where cudarc says, and the status code by its name.
//! cudarc's `Display` of these is their `Debug`, and the driver's asks the driver for a text,
//! so the names are written here from the codes alone.

use cudarc::driver::DriverError;
use cudarc::nvrtc::CompileError;

/// `CUDA_ERROR_OUT_OF_MEMORY`.
pub(super) fn driver(e: &DriverError) -> String {
    format!("{:?}", e.0)
}

/// What failed in NVRTC, its status, and the compiler's log when there is one.
pub(super) fn nvrtc(e: &CompileError) -> String {
    let (what, code) = match e {
        CompileError::CreationError(c) => ("create the program", c),
        CompileError::CompileError {
            nvrtc,
            options,
            log,
        } => {
            let log = log.to_string_lossy();
            let log = log.trim();
            let options = if options.is_empty() {
                String::new()
            } else {
                format!(", options {}", options.join(" "))
            };
            return if log.is_empty() {
                format!(
                    "NVRTC could not compile the CUDA source ({:?}{options})",
                    nvrtc.0
                )
            } else {
                format!(
                    "NVRTC could not compile the CUDA source ({:?}{options}): {log}",
                    nvrtc.0
                )
            };
        }
        CompileError::GetLogError(c) => ("read the compile log", c),
        CompileError::GetPtxError(c) => ("read the compiled PTX", c),
        CompileError::DestroyError(c) => ("destroy the program", c),
    };
    format!("NVRTC could not {what}: {:?}", code.0)
}

/// An NCCL status and what it means (NCCL's documentation of `ncclResult_t`).
#[cfg(feature = "nccl")]
pub(super) fn nccl(e: &cudarc::nccl::result::NcclError) -> String {
    use cudarc::nccl::sys::ncclResult_t::*;
    let meaning = match e.0 {
        ncclUnhandledCudaError => "a CUDA call inside NCCL failed",
        ncclSystemError => "a system call failed (memory, sockets, shared memory)",
        ncclInternalError => "NCCL failed internally",
        ncclInvalidArgument => {
            "an argument was invalid (a null pointer, a count or a rank out of range)"
        }
        ncclInvalidUsage => "the calls were made in an order NCCL does not allow",
        ncclRemoteError => "a remote rank failed, or the connection to it",
        _ => "",
    };
    if meaning.is_empty() {
        format!("{:?}", e.0)
    } else {
        format!("{:?}: {meaning}", e.0)
    }
}

#[cfg(test)]
mod tests {
    use std::error::Error as _;
    use std::ffi::CString;

    use cudarc::driver::sys::CUresult;
    use cudarc::driver::DriverError;
    use cudarc::nvrtc::result::NvrtcError;
    use cudarc::nvrtc::sys::nvrtcResult;
    use cudarc::nvrtc::CompileError;

    use crate::{Error, Result};

    /// `?` on `r` in a function returning the crate's `Result`.
    fn through<E>(r: std::result::Result<(), E>) -> Result<()>
    where
        Error: From<E>,
    {
        r?;
        Ok(())
    }

    #[test]
    fn driver_error_names_the_code_and_keeps_its_source() {
        let code = DriverError(CUresult::CUDA_ERROR_OUT_OF_MEMORY);
        let e = through(Err(code)).unwrap_err();
        assert!(matches!(e, Error::Driver(c) if c == code));
        let e = through(Err(code)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a CUDA driver call failed: CUDA_ERROR_OUT_OF_MEMORY"
        );
        // The driver's own text is one `source()` away (not printed here: it asks the driver).
        let src = e.source().and_then(|s| s.downcast_ref::<DriverError>());
        assert_eq!(src, Some(&code));
    }

    #[test]
    fn nvrtc_error_says_what_failed_with_the_log() {
        let failed = CompileError::CompileError {
            nvrtc: NvrtcError(nvrtcResult::NVRTC_ERROR_COMPILATION),
            options: vec!["--std=c++17".into()],
            log: CString::new("k.cu(3): error: identifier \"x\" is undefined\n").unwrap(),
        };
        let e = through(Err(failed.clone())).unwrap_err();
        assert_eq!(
            e.to_string(),
            "NVRTC could not compile the CUDA source (NVRTC_ERROR_COMPILATION, options --std=c++17): k.cu(3): error: identifier \"x\" is undefined"
        );
        let src = e.source().and_then(|s| s.downcast_ref::<CompileError>());
        assert_eq!(src, Some(&failed));

        let created =
            CompileError::CreationError(NvrtcError(nvrtcResult::NVRTC_ERROR_OUT_OF_MEMORY));
        assert_eq!(
            through(Err(created)).unwrap_err().to_string(),
            "NVRTC could not create the program: NVRTC_ERROR_OUT_OF_MEMORY"
        );
        let no_log = CompileError::CompileError {
            nvrtc: NvrtcError(nvrtcResult::NVRTC_ERROR_INVALID_OPTION),
            options: Vec::new(),
            log: CString::default(),
        };
        assert_eq!(
            through(Err(no_log)).unwrap_err().to_string(),
            "NVRTC could not compile the CUDA source (NVRTC_ERROR_INVALID_OPTION)"
        );
    }

    #[cfg(feature = "cublas")]
    #[test]
    fn cublas_error_names_the_library_and_status() {
        use cudarc::cublas::result::CublasError;
        use cudarc::cublas::sys::cublasStatus_t;
        let status = CublasError(cublasStatus_t::CUBLAS_STATUS_NOT_INITIALIZED);
        let e = through(Err(status)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a cuBLAS call failed: CUBLAS_STATUS_NOT_INITIALIZED"
        );
        let src = e.source().and_then(|s| s.downcast_ref::<CublasError>());
        assert_eq!(src, Some(&status));
    }

    #[cfg(feature = "cublaslt")]
    #[test]
    fn cublaslt_error_names_the_library_and_status() {
        use cudarc::cublaslt::result::CublasError;
        use cudarc::cublaslt::sys::cublasStatus_t;
        let status = CublasError(cublasStatus_t::CUBLAS_STATUS_ARCH_MISMATCH);
        let e = through(Err(status)).unwrap_err();
        assert_eq!(
            e.to_string(),
            "a cuBLASLt call failed: CUBLAS_STATUS_ARCH_MISMATCH"
        );
        let src = e.source().and_then(|s| s.downcast_ref::<CublasError>());
        assert_eq!(src, Some(&status));
    }

    #[cfg(feature = "nccl")]
    #[test]
    fn nccl_error_names_the_status_and_its_meaning() {
        use cudarc::nccl::result::NcclError;
        use cudarc::nccl::sys::ncclResult_t;
        let e = through(Err(NcclError(ncclResult_t::ncclRemoteError))).unwrap_err();
        assert!(matches!(&e, Error::Nccl(n) if n.0 == ncclResult_t::ncclRemoteError));
        assert_eq!(
            e.to_string(),
            "an NCCL call failed: ncclRemoteError: a remote rank failed, or the connection to it"
        );
    }
}
