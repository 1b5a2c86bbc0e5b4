///The inputs of the [`Saxpy`] graph: the buffers it borrows, its params, callbacks and events.
pub struct SaxpyInputs<'a> {
    ///a buffer `x`.
    pub x: &'a ::cuda_graph::cudarc::driver::CudaSlice<f32>,
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<f32>,
    ///a buffer `total`.
    pub total: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<f32>,
    ///a param `a`.
    pub a: f32,
    ///a param `n`.
    pub n: u32,
}
///The inputs of [`Saxpy`] used as a child graph (`child(Saxpy { ... })`): buffer handles of the parent, constant params, callbacks and events.
pub struct SaxpyChild {
    ///a buffer `x`.
    pub x: ::cuda_graph::buffer::Buf<f32>,
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<f32>,
    ///a buffer `total`.
    pub total: ::cuda_graph::buffer::BufMut<f32>,
    ///a param `a`.
    pub a: f32,
    ///a param `n`.
    pub n: u32,
}
///The node handles of a [`Saxpy`] graph built as a child of another (`child(Saxpy { ... })`): one accessor per node, for the parent's `edit_<node>`.
pub struct SaxpyNodes {
    __cg: <Saxpy<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
/// y = a*x + y, then total = sum(y).
pub struct Saxpy<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Saxpy<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Saxpy`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).
pub struct SaxpyExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Saxpy<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
const _: () = {
    /// The inputs bound to the graph: params, buffer handles, callbacks, events.
    pub struct __CgInputs<'a> {
        b_x: ::cuda_graph::buffer::Buf<f32>,
        b_y: ::cuda_graph::buffer::BufMut<f32>,
        b_total: ::cuda_graph::buffer::BufMut<f32>,
        p_a: f32,
        p_n: u32,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    /// The node handles, one array per handle type.
    pub struct __CgNodes {
        n0: ::std::boxed::Box<[::cuda_graph::node::MemsetNode<f32>; 1]>,
        n1: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<
                (
                    f32,
                    ::cuda_graph::buffer::Buf<f32>,
                    ::cuda_graph::buffer::BufMut<f32>,
                    u32,
                ),
            >; 1],
        >,
        n2: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<
                (::cuda_graph::buffer::Buf<f32>, ::cuda_graph::buffer::BufMut<f32>, u32),
            >; 1],
        >,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> ::cuda_graph::__private::Generated<'a> for Saxpy<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl SaxpyNodes {
        ///The handle of node `clear`.
        pub fn clear(&self) -> ::cuda_graph::node::MemsetNode<f32> {
            self.__cg.n0[0]
        }
        ///The handle of node `step`.
        pub fn step(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (f32, ::cuda_graph::buffer::Buf<f32>, ::cuda_graph::buffer::BufMut<f32>, u32),
        > {
            self.__cg.n1[0]
        }
        ///The handle of node `reduce`.
        pub fn reduce(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (::cuda_graph::buffer::Buf<f32>, ::cuda_graph::buffer::BufMut<f32>, u32),
        > {
            self.__cg.n2[0]
        }
    }
    impl<'a> Saxpy<'a> {
        /// The graph as DOT text, computed at compile time from the names written here.
        pub const DOT: &'static str = "digraph \"Saxpy\" {\n  rankdir=TB;\n  \"clear\" [label=\"clear\\nmemset\", shape=parallelogram];\n  \"step\" [label=\"step\\nkernel\", shape=box];\n  \"reduce\" [label=\"reduce\\nkernel\", shape=box];\n  \"step\" -> \"reduce\";\n  \"clear\" -> \"reduce\";\n}\n";
        /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
        /// file.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, unsigned int n);\nextern \"C\" __global__ void sum(const float* y, float* total, unsigned int n);\n";
        /// The temporaries (graph-owned memory): name, element type and length, as
        /// written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// The graph as DOT text (no GPU needed).
        pub fn to_dot() -> &'static str {
            Self::DOT
        }
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &::cuda_graph::Module,
            inputs: SaxpyInputs<'a>,
        ) -> ::cuda_graph::Result<Self> {
            let mut __cg_g = ::cuda_graph::Graph::new(__cg_module.context())?
                .with_name("Saxpy");
            let mut __cg_s = __CgInputs {
                b_x: __cg_g.bind(inputs.x)?,
                b_y: __cg_g.bind_mut(inputs.y)?,
                b_total: __cg_g.bind_mut(inputs.total)?,
                p_a: inputs.a,
                p_n: inputs.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok(Self {
                __cg_graph: __cg_g,
                __cg: __CgState { inputs: __cg_s, nodes },
            })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> ::core::result::Result<SaxpyExec<'a>, ::cuda_graph::error::UpdateError> {
            self.instantiate_with(::cuda_graph::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: ::cuda_graph::exec::Instantiate<'_>,
        ) -> ::core::result::Result<SaxpyExec<'a>, ::cuda_graph::error::UpdateError> {
            ::core::result::Result::Ok(SaxpyExec {
                __cg_exec: self.__cg_graph.instantiate_with(opts)?,
                __cg: self.__cg,
            })
        }
        /// The runtime template graph.
        pub fn graph(&self) -> &::cuda_graph::Graph<'a> {
            &self.__cg_graph
        }
        /// Builds this graph as a child of `parent` (used by `child(...)` nodes).
        #[doc(hidden)]
        pub fn __cg_child(
            parent: &::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_args: SaxpyChild,
        ) -> ::cuda_graph::Result<(::cuda_graph::Graph<'a>, SaxpyNodes)> {
            let mut __cg_g = parent.child_graph()?;
            let mut __cg_s = __CgInputs {
                b_x: __cg_args.x,
                b_y: __cg_args.y,
                b_total: __cg_args.total,
                p_a: __cg_args.a,
                p_n: __cg_args.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok((__cg_g, SaxpyNodes { __cg: nodes }))
        }
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_populate(
            __cg_g: &mut ::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_s: &mut __CgInputs<'a>,
        ) -> ::cuda_graph::Result<__CgNodes> {
            let __cg_k0 = __cg_module.function("saxpy")?;
            let __cg_k1 = __cg_module.function("sum")?;
            __cg_g.reserve(3usize, 2usize, 2usize);
            let mut __cg_h0: ::std::vec::Vec<::cuda_graph::node::MemsetNode<f32>> = ::std::vec::Vec::with_capacity(
                1usize,
            );
            let mut __cg_h1: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<
                    (
                        f32,
                        ::cuda_graph::buffer::Buf<f32>,
                        ::cuda_graph::buffer::BufMut<f32>,
                        u32,
                    ),
                >,
            > = ::std::vec::Vec::with_capacity(1usize);
            let mut __cg_h2: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<
                    (
                        ::cuda_graph::buffer::Buf<f32>,
                        ::cuda_graph::buffer::BufMut<f32>,
                        u32,
                    ),
                >,
            > = ::std::vec::Vec::with_capacity(1usize);
            {
                let __cg_n = __cg_g
                    .add_memset(
                        "clear",
                        &[],
                        __cg_s.b_total,
                        Self::__cg_value_0(0, __cg_s),
                    )?;
                __cg_h0.push(__cg_n);
            }
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("step", &[])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h1.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k0,
                            Self::__cg_cfg_1(__cg_j, __cg_s),
                            Self::__cg_args_1(__cg_j, __cg_s),
                        )?;
                    __cg_h1.push(__cg_n);
                }
            }
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("reduce", &[1u32, 0u32])];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h2.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k1,
                            Self::__cg_cfg_2(__cg_j, __cg_s),
                            Self::__cg_args_2(__cg_j, __cg_s),
                        )?;
                    __cg_h2.push(__cg_n);
                }
            }
            ::core::result::Result::Ok(__CgNodes {
                n0: match ::core::convert::TryFrom::try_from(
                    __cg_h0.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
                n1: match ::core::convert::TryFrom::try_from(
                    __cg_h1.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
                n2: match ::core::convert::TryFrom::try_from(
                    __cg_h2.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
            })
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_value_0(__cg_j: usize, __cg_s: &__CgInputs<'a>) -> f32 {
            match __cg_j {
                0 => {
                    let __cg_v: f32 = 0.0;
                    __cg_v
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_1(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (
            f32,
            ::cuda_graph::buffer::Buf<f32>,
            ::cuda_graph::buffer::BufMut<f32>,
            u32,
        ) {
            match __cg_j {
                0 => {
                    let a = ::core::clone::Clone::clone(&__cg_s.p_a);
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: f32 = a;
                            __cg_v
                        },
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<f32> = __cg_s.b_x;
                            __cg_v
                        },
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<f32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = n;
                            __cg_v
                        },
                    )
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_cfg_1(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> ::cuda_graph::LaunchConfig {
            match __cg_j {
                0 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(n.div_ceil(256)),
                        block_dim: ::cuda_graph::__private::dim3(256),
                        shared_mem_bytes: 0u32,
                    }
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_2(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (::cuda_graph::buffer::Buf<f32>, ::cuda_graph::buffer::BufMut<f32>, u32) {
            match __cg_j {
                0 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<f32> = __cg_s
                                .b_y
                                .read();
                            __cg_v
                        },
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<f32> = __cg_s
                                .b_total;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = n;
                            __cg_v
                        },
                    )
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_cfg_2(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> ::cuda_graph::LaunchConfig {
            match __cg_j {
                0 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(1),
                        shared_mem_bytes: 0u32,
                    }
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
    }
    impl<'a> SaxpyExec<'a> {
        /// Launches the graph on `stream`.
        pub fn launch(
            &mut self,
            stream: &::std::sync::Arc<::cuda_graph::cudarc::driver::CudaStream>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::LaunchError> {
            self.__cg_exec.launch(stream)
        }
        /// Waits for every launch, then reports a host-callback panic if one happened.
        pub fn synchronize(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::LaunchError> {
            self.__cg_exec.synchronize()
        }
        /// Applies template edits made through `inner_mut().graph_mut()`.
        pub fn update(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::exec::UpdatePath,
            ::cuda_graph::error::UpdateError,
        > {
            self.__cg_exec.update()
        }
        /// Bytes of graph-owned memory the temporaries hold, all together (sized from the
        /// params when the graph was built).
        pub fn temporary_bytes(&self) -> usize {
            self.__cg_exec.graph().temporary_bytes()
        }
        /// The runtime executable graph.
        pub fn inner(&self) -> &::cuda_graph::GraphExec<'a> {
            &self.__cg_exec
        }
        /// The runtime executable graph, mutable.
        pub fn inner_mut(&mut self) -> &mut ::cuda_graph::GraphExec<'a> {
            &mut self.__cg_exec
        }
        /// The runtime executable graph, taken out.
        pub fn into_inner(self) -> ::cuda_graph::GraphExec<'a> {
            self.__cg_exec
        }
        ///Buffer `x`, for cudarc calls between launches.
        pub fn x(
            &self,
        ) -> ::core::result::Result<
            &::cuda_graph::cudarc::driver::CudaSlice<f32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_x)
        }
        ///Binds another buffer as `x` and re-points every node that uses it. On failure nothing changes.
        pub fn set_x(
            &mut self,
            buffer: &'a ::cuda_graph::cudarc::driver::CudaSlice<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_h = self.__cg.inputs.b_x;
            let __cg_old = self.__cg_exec.swap_buffer(__cg_h, buffer)?;
            match self.__cg_refresh_0() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    let _ = self.__cg_exec.restore_buffer(__cg_h, __cg_old);
                    let _ = self.__cg_refresh_0();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_0(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n1[__cg_j])?
                    .set_arg::<1usize>(Saxpy::__cg_args_1(__cg_j, &self.__cg.inputs).1)?;
            }
            ::core::result::Result::Ok(())
        }
        ///Buffer `y`, for cudarc calls between launches.
        pub fn y(
            &self,
        ) -> ::core::result::Result<
            &::cuda_graph::cudarc::driver::CudaSlice<f32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, f32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_h = self.__cg.inputs.b_y;
            let __cg_old = self.__cg_exec.swap_buffer_mut(__cg_h, buffer)?;
            match self.__cg_refresh_1() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    let _ = self.__cg_exec.restore_buffer(__cg_h, __cg_old);
                    let _ = self.__cg_refresh_1();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_1(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n1[__cg_j])?
                    .set_arg::<2usize>(Saxpy::__cg_args_1(__cg_j, &self.__cg.inputs).2)?;
            }
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<0usize>(Saxpy::__cg_args_2(__cg_j, &self.__cg.inputs).0)?;
            }
            ::core::result::Result::Ok(())
        }
        ///Buffer `total`, for cudarc calls between launches.
        pub fn total(
            &self,
        ) -> ::core::result::Result<
            &::cuda_graph::cudarc::driver::CudaSlice<f32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_total)
        }
        ///Buffer `total`, writable (a view), e.g. to upload new input.
        pub fn total_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, f32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_total)
        }
        ///Binds another buffer as `total` and re-points every node that uses it. On failure nothing changes.
        pub fn set_total(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_h = self.__cg.inputs.b_total;
            let __cg_old = self.__cg_exec.swap_buffer_mut(__cg_h, buffer)?;
            match self.__cg_refresh_2() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    let _ = self.__cg_exec.restore_buffer(__cg_h, __cg_old);
                    let _ = self.__cg_refresh_2();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_2(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_dst(self.__cg.inputs.b_total)?;
            }
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<1usize>(Saxpy::__cg_args_2(__cg_j, &self.__cg.inputs).1)?;
            }
            ::core::result::Result::Ok(())
        }
        ///The current value of param `a`.
        pub fn a(&self) -> f32 {
            ::core::clone::Clone::clone(&self.__cg.inputs.p_a)
        }
        ///Sets param `a` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_a(
            &mut self,
            value: f32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.p_a, value);
            match self.__cg_refresh_3() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_a = __cg_old;
                    let _ = self.__cg_refresh_3();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_3(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n1[__cg_j])?
                    .set_arg::<
                        0usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_a))?;
            }
            ::core::result::Result::Ok(())
        }
        ///The current value of param `n`.
        pub fn n(&self) -> u32 {
            ::core::clone::Clone::clone(&self.__cg.inputs.p_n)
        }
        ///Sets param `n` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_n(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.p_n, value);
            match self.__cg_refresh_4() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_n = __cg_old;
                    let _ = self.__cg_refresh_4();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_4(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n1[__cg_j])?
                    .set(
                        Saxpy::__cg_args_1(__cg_j, &self.__cg.inputs),
                        Saxpy::__cg_cfg_1(__cg_j, &self.__cg.inputs),
                    )?;
            }
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<
                        2usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_n))?;
            }
            ::core::result::Result::Ok(())
        }
    }
    /// Handles of the bound buffers, for the node views' buffer setters.
    #[derive(Clone, Copy, Debug)]
    pub struct __CgHandles {
        pub x: ::cuda_graph::buffer::Buf<f32>,
        pub y: ::cuda_graph::buffer::BufMut<f32>,
        pub total: ::cuda_graph::buffer::BufMut<f32>,
    }
    impl<'a> SaxpyExec<'a> {
        /// Handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> __CgHandles {
            __CgHandles {
                x: self.__cg.inputs.b_x,
                y: self.__cg.inputs.b_y,
                total: self.__cg.inputs.b_total,
            }
        }
    }
    pub struct __CgView0Saxpy<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (
                f32,
                ::cuda_graph::buffer::Buf<f32>,
                ::cuda_graph::buffer::BufMut<f32>,
                u32,
            ),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView0Saxpy<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (
                f32,
                ::cuda_graph::buffer::Buf<f32>,
                ::cuda_graph::buffer::BufMut<f32>,
                u32,
            ),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView0Saxpy<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView0Saxpy<'v, 'a> {
        ///Sets kernel parameter `a` of this node only.
        pub fn set_a(
            &mut self,
            value: f32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `x` of this node only.
        pub fn set_x(
            &mut self,
            value: ::cuda_graph::buffer::Buf<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<2usize>(value)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<3usize>(value)
        }
    }
    impl<'a> SaxpyExec<'a> {
        ///The view of node `step`: its typed setters.
        pub fn step(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Saxpy<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Saxpy(self.__cg_exec.node(self.__cg.nodes.n1[0])?),
            )
        }
    }
    pub struct __CgView1Sum<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::Buf<f32>, ::cuda_graph::buffer::BufMut<f32>, u32),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView1Sum<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::Buf<f32>, ::cuda_graph::buffer::BufMut<f32>, u32),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView1Sum<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView1Sum<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            value: ::cuda_graph::buffer::Buf<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `total` of this node only.
        pub fn set_total(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<2usize>(value)
        }
    }
    impl<'a> SaxpyExec<'a> {
        ///The view of node `reduce`: its typed setters.
        pub fn reduce(
            &mut self,
        ) -> ::core::result::Result<
            __CgView1Sum<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView1Sum(self.__cg_exec.node(self.__cg.nodes.n2[0])?),
            )
        }
    }
    impl<'a> SaxpyExec<'a> {
        ///The view of node `clear`: its typed setters.
        pub fn clear(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::MemsetNode<
                f32,
            > as ::cuda_graph::node::NodeHandle>::OnExec<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n0[0])
        }
    }
};
