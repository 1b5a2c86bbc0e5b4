//! Stacks of buffers: one buffer per iteration of a repeat block (`cuda_graph!`'s
//! `buffer w[n]: T;`, a layer's weights), given as a slice of buffers or as one buffer cut into
//! equal parts. [`Graph::bind_stack`](crate::Graph::bind_stack) binds one.

use cudarc::driver::CudaSlice;

/// A stack of device buffers that nodes only read.
///
/// ```no_run
/// # fn demo(stream: &std::sync::Arc<cudarc::driver::CudaStream>) -> cuda_graph_runtime::Result<()> {
/// use cuda_graph_runtime::buffer::Stack;
/// let layers = (0..4).map(|_| stream.alloc_zeros::<f32>(1024)).collect::<Result<Vec<_>, _>>()?;
/// let one = stream.alloc_zeros::<f32>(4 * 1024)?;
/// let a: Stack<'_, f32> = Stack::slices(&layers);   // four buffers
/// let b = Stack::strided(&one, 1024);                 // one buffer, four parts of 1024
/// assert_eq!((a.len(), b.len()), (4, 4));
/// # Ok(()) }
/// ```
pub enum Stack<'a, T> {
    /// One buffer per element.
    Slices(&'a [CudaSlice<T>]),
    /// One buffer, element `i` being elements `i * stride .. (i + 1) * stride` of it.
    Strided {
        /// The buffer.
        buffer: &'a CudaSlice<T>,
        /// Elements per part.
        stride: usize,
    },
}

/// A stack of device buffers that some node writes (see [`Stack`]).
pub enum StackMut<'a, T> {
    /// One buffer per element.
    Slices(&'a mut [CudaSlice<T>]),
    /// One buffer, element `i` being elements `i * stride .. (i + 1) * stride` of it.
    Strided {
        /// The buffer.
        buffer: &'a mut CudaSlice<T>,
        /// Elements per part.
        stride: usize,
    },
}

/// The number of parts of a strided stack (0 for a stride of 0, which binding refuses).
fn parts(len: usize, stride: usize) -> usize {
    len.checked_div(stride).unwrap_or(0)
}

impl<'a, T> Stack<'a, T> {
    /// A stack of the buffers of `slices`.
    pub fn slices(slices: &'a [CudaSlice<T>]) -> Self {
        Stack::Slices(slices)
    }

    /// A stack of the parts of `buffer`, `stride` elements each; binding checks that `stride`
    /// is above 0 and divides the buffer's length.
    pub fn strided(buffer: &'a CudaSlice<T>, stride: usize) -> Self {
        Stack::Strided { buffer, stride }
    }

    /// The number of buffers in the stack.
    pub fn len(&self) -> usize {
        match self {
            Stack::Slices(s) => s.len(),
            Stack::Strided { buffer, stride } => parts(buffer.len(), *stride),
        }
    }

    /// Whether the stack holds no buffer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, T> StackMut<'a, T> {
    /// A stack of the buffers of `slices`.
    pub fn slices(slices: &'a mut [CudaSlice<T>]) -> Self {
        StackMut::Slices(slices)
    }

    /// A stack of the parts of `buffer`, `stride` elements each; binding checks that `stride`
    /// is above 0 and divides the buffer's length.
    pub fn strided(buffer: &'a mut CudaSlice<T>, stride: usize) -> Self {
        StackMut::Strided { buffer, stride }
    }

    /// The number of buffers in the stack.
    pub fn len(&self) -> usize {
        match self {
            StackMut::Slices(s) => s.len(),
            StackMut::Strided { buffer, stride } => parts(buffer.len(), *stride),
        }
    }

    /// Whether the stack holds no buffer.
    pub fn is_empty(&self) -> bool {
        self.len() == 0
    }
}

impl<'a, T> From<&'a [CudaSlice<T>]> for Stack<'a, T> {
    fn from(s: &'a [CudaSlice<T>]) -> Self {
        Stack::Slices(s)
    }
}

impl<'a, T> From<&'a Vec<CudaSlice<T>>> for Stack<'a, T> {
    fn from(s: &'a Vec<CudaSlice<T>>) -> Self {
        Stack::Slices(s)
    }
}

impl<'a, T, const N: usize> From<&'a [CudaSlice<T>; N]> for Stack<'a, T> {
    fn from(s: &'a [CudaSlice<T>; N]) -> Self {
        Stack::Slices(s)
    }
}

impl<'a, T> From<&'a mut [CudaSlice<T>]> for StackMut<'a, T> {
    fn from(s: &'a mut [CudaSlice<T>]) -> Self {
        StackMut::Slices(s)
    }
}

impl<'a, T> From<&'a mut Vec<CudaSlice<T>>> for StackMut<'a, T> {
    fn from(s: &'a mut Vec<CudaSlice<T>>) -> Self {
        StackMut::Slices(s)
    }
}

impl<'a, T, const N: usize> From<&'a mut [CudaSlice<T>; N]> for StackMut<'a, T> {
    fn from(s: &'a mut [CudaSlice<T>; N]) -> Self {
        StackMut::Slices(s)
    }
}
