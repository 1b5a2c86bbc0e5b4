///The inputs of the [`Temps`] graph: the buffers it borrows, its params, callbacks and events.
struct TempsInputs<'a> {
    ///a buffer `out`.
    pub out: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a param `n`.
    pub n: u32,
}
///The inputs of [`Temps`] used as a child graph (`child(Temps { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct TempsChild {
    ///a buffer `out`.
    pub out: ::cuda_graph::buffer::BufMut<u32>,
    ///a param `n`.
    pub n: u32,
}
///The node handles of a [`Temps`] graph built as a child of another (`child(Temps { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct TempsNodes {
    __cg: <Temps<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Temps<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Temps<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Temps`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).
struct TempsExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Temps<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
const _: () = {
    /// The inputs bound to the graph: params, buffer handles, callbacks, events.
    pub struct __CgInputs<'a> {
        b_out: ::cuda_graph::buffer::BufMut<u32>,
        p_n: u32,
        b_t: ::cuda_graph::buffer::BufMut<u32>,
        b_u: ::cuda_graph::buffer::BufMut<u32>,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    /// The node handles, one array per handle type.
    pub struct __CgNodes {
        n0: ::std::boxed::Box<[::cuda_graph::node::MemAllocNode<u32>; 2]>,
        n1: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>; 2],
        >,
        n2: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<
                (
                    ::cuda_graph::buffer::Buf<u32>,
                    ::cuda_graph::buffer::Buf<u32>,
                    ::cuda_graph::buffer::BufMut<u32>,
                    u32,
                ),
            >; 1],
        >,
        n3: ::std::boxed::Box<[::cuda_graph::node::MemFreeNode; 2]>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> ::cuda_graph::__private::Generated<'a> for Temps<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl TempsNodes {
        ///The handle of node `ft`.
        pub fn ft(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n1[0]
        }
        ///The handle of node `fu`.
        pub fn fu(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n1[1]
        }
        ///The handle of node `m`.
        pub fn m(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (
                ::cuda_graph::buffer::Buf<u32>,
                ::cuda_graph::buffer::Buf<u32>,
                ::cuda_graph::buffer::BufMut<u32>,
                u32,
            ),
        > {
            self.__cg.n2[0]
        }
        ///The handle of node `alloc_t`.
        pub fn alloc_t(&self) -> ::cuda_graph::node::MemAllocNode<u32> {
            self.__cg.n0[0]
        }
        ///The handle of node `free_t`.
        pub fn free_t(&self) -> ::cuda_graph::node::MemFreeNode {
            self.__cg.n3[1]
        }
        ///The handle of node `alloc_u`.
        pub fn alloc_u(&self) -> ::cuda_graph::node::MemAllocNode<u32> {
            self.__cg.n0[1]
        }
        ///The handle of node `free_u`.
        pub fn free_u(&self) -> ::cuda_graph::node::MemFreeNode {
            self.__cg.n3[0]
        }
    }
    impl<'a> Temps<'a> {
        /// The graph as DOT text, computed at compile time from the names written here.
        pub const DOT: &'static str = "digraph \"Temps\" {\n  rankdir=TB;\n  \"ft\" [label=\"ft\\nkernel\", shape=box];\n  \"fu\" [label=\"fu\\nkernel\", shape=box];\n  \"m\" [label=\"m\\nkernel\", shape=box];\n  \"alloc_t\" [label=\"alloc_t\\nmem alloc\", shape=invtrapezium];\n  \"free_t\" [label=\"free_t\\nmem free\", shape=trapezium];\n  \"alloc_u\" [label=\"alloc_u\\nmem alloc\", shape=invtrapezium];\n  \"free_u\" [label=\"free_u\\nmem free\", shape=trapezium];\n  \"ft\" -> \"m\";\n  \"fu\" -> \"m\";\n  \"alloc_t\" -> \"ft\";\n  \"m\" -> \"free_t\";\n  \"alloc_u\" -> \"fu\";\n  \"m\" -> \"free_u\";\n  \"free_u\" -> \"free_t\";\n}\n";
        /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
        /// file.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void fill(unsigned int* y, unsigned int n);\nextern \"C\" __global__ void mix(const unsigned int* a, const unsigned int* b, unsigned int* out, unsigned int n);\n";
        /// The temporaries (graph-owned memory): name, element type and length, as
        /// written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[
            ("t", "u32", "n"),
            ("u", "u32", "2 * n"),
        ];
        /// The graph as DOT text (no GPU needed).
        pub fn to_dot() -> &'static str {
            Self::DOT
        }
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &::cuda_graph::Module,
            inputs: TempsInputs<'a>,
        ) -> ::cuda_graph::Result<Self> {
            let mut __cg_g = ::cuda_graph::Graph::new(__cg_module.context())?
                .with_name("Temps");
            let mut __cg_s = __CgInputs {
                b_out: __cg_g.bind_mut(inputs.out)?,
                p_n: inputs.n,
                b_t: ::cuda_graph::buffer::BufMut::unset(),
                b_u: ::cuda_graph::buffer::BufMut::unset(),
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
        ) -> ::core::result::Result<TempsExec<'a>, ::cuda_graph::error::UpdateError> {
            self.instantiate_with(::cuda_graph::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: ::cuda_graph::exec::Instantiate<'_>,
        ) -> ::core::result::Result<TempsExec<'a>, ::cuda_graph::error::UpdateError> {
            ::core::result::Result::Ok(TempsExec {
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
            __cg_args: TempsChild,
        ) -> ::cuda_graph::Result<(::cuda_graph::Graph<'a>, TempsNodes)> {
            let mut __cg_g = parent.child_graph()?;
            let mut __cg_s = __CgInputs {
                b_out: __cg_args.out,
                p_n: __cg_args.n,
                b_t: ::cuda_graph::buffer::BufMut::unset(),
                b_u: ::cuda_graph::buffer::BufMut::unset(),
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok((__cg_g, TempsNodes { __cg: nodes }))
        }
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_populate(
            __cg_g: &mut ::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_s: &mut __CgInputs<'a>,
        ) -> ::cuda_graph::Result<__CgNodes> {
            let __cg_k0 = __cg_module.function("fill")?;
            let __cg_k1 = __cg_module.function("mix")?;
            __cg_g.reserve(7usize, 3usize, 7usize);
            let mut __cg_h0: ::std::vec::Vec<::cuda_graph::node::MemAllocNode<u32>> = ::std::vec::Vec::with_capacity(
                2usize,
            );
            let mut __cg_h1: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>,
            > = ::std::vec::Vec::with_capacity(2usize);
            let mut __cg_h2: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<
                    (
                        ::cuda_graph::buffer::Buf<u32>,
                        ::cuda_graph::buffer::Buf<u32>,
                        ::cuda_graph::buffer::BufMut<u32>,
                        u32,
                    ),
                >,
            > = ::std::vec::Vec::with_capacity(1usize);
            let mut __cg_h3: ::std::vec::Vec<::cuda_graph::node::MemFreeNode> = ::std::vec::Vec::with_capacity(
                2usize,
            );
            {
                let __cg_n = {
                    let (__cg_n, __cg_t) = __cg_g
                        .add_mem_alloc::<
                            u32,
                        >("alloc_t", &[], Self::__cg_value_0(0, __cg_s))?;
                    __cg_s.b_t = __cg_t;
                    __cg_n
                };
                __cg_h0.push(__cg_n);
            }
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("ft", &[0u32])];
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
                let __cg_n = {
                    let (__cg_n, __cg_t) = __cg_g
                        .add_mem_alloc::<
                            u32,
                        >("alloc_u", &[], Self::__cg_value_0(1, __cg_s))?;
                    __cg_s.b_u = __cg_t;
                    __cg_n
                };
                __cg_h0.push(__cg_n);
            }
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("fu", &[2u32])];
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
                const __CG_NODES: &[(&str, &[u32])] = &[("m", &[1u32, 3u32])];
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
            {
                let __cg_n = __cg_g
                    .add_mem_free(
                        "free_u",
                        &[&__cg_h2[0] as &dyn ::cuda_graph::node::Dep],
                        __cg_s.b_u,
                    )?;
                __cg_h3.push(__cg_n);
            }
            {
                let __cg_n = __cg_g
                    .add_mem_free(
                        "free_t",
                        &[
                            &__cg_h2[0] as &dyn ::cuda_graph::node::Dep,
                            &__cg_h3[0] as &dyn ::cuda_graph::node::Dep,
                        ],
                        __cg_s.b_t,
                    )?;
                __cg_h3.push(__cg_n);
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
                n3: match ::core::convert::TryFrom::try_from(
                    __cg_h3.into_boxed_slice(),
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
        fn __cg_value_0(__cg_j: usize, __cg_s: &__CgInputs<'a>) -> usize {
            match __cg_j {
                0 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (n) as usize
                }
                1 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (2 * n) as usize
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_1(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (::cuda_graph::buffer::BufMut<u32>, u32) {
            match __cg_j {
                0 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_t;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = n;
                            __cg_v
                        },
                    )
                }
                1 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_u;
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
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                1 => {
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(1),
                        block_dim: ::cuda_graph::__private::dim3(32),
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
        ) -> (
            ::cuda_graph::buffer::Buf<u32>,
            ::cuda_graph::buffer::Buf<u32>,
            ::cuda_graph::buffer::BufMut<u32>,
            u32,
        ) {
            match __cg_j {
                0 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<u32> = __cg_s
                                .b_t
                                .read();
                            __cg_v
                        },
                        {
                            let __cg_v: ::cuda_graph::buffer::Buf<u32> = __cg_s
                                .b_u
                                .read();
                            __cg_v
                        },
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_out;
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
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
    }
    impl<'a> TempsExec<'a> {
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
        ///Buffer `out`, for cudarc calls between launches.
        pub fn out(
            &self,
        ) -> ::core::result::Result<
            &::cuda_graph::cudarc::driver::CudaSlice<u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_out)
        }
        ///Buffer `out`, writable (a view), e.g. to upload new input.
        pub fn out_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_out)
        }
        ///Binds another buffer as `out` and re-points every node that uses it. On failure nothing changes.
        pub fn set_out(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_h = self.__cg.inputs.b_out;
            let __cg_old = self.__cg_exec.swap_buffer_mut(__cg_h, buffer)?;
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
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<2usize>(Temps::__cg_args_2(__cg_j, &self.__cg.inputs).2)?;
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
            match self.__cg_refresh_1() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_n = __cg_old;
                    let _ = self.__cg_refresh_1();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_1(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            for __cg_j in 0..2usize {
                self.__cg_exec
                    .node(self.__cg.nodes.n1[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_n))?;
            }
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_arg::<
                        3usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_n))?;
            }
            for __cg_j in 0..2usize {
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .ensure_fits(Temps::__cg_value_0(__cg_j, &self.__cg.inputs))?;
            }
            ::core::result::Result::Ok(())
        }
    }
    /// Handles of the bound buffers, for the node views' buffer setters.
    #[derive(Clone, Copy, Debug)]
    pub struct __CgHandles {
        pub out: ::cuda_graph::buffer::BufMut<u32>,
        pub t: ::cuda_graph::buffer::BufMut<u32>,
        pub u: ::cuda_graph::buffer::BufMut<u32>,
    }
    impl<'a> TempsExec<'a> {
        /// Handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> __CgHandles {
            __CgHandles {
                out: self.__cg.inputs.b_out,
                t: self.__cg.inputs.b_t,
                u: self.__cg.inputs.b_u,
            }
        }
    }
    pub struct __CgView0Fill<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<u32>, u32),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView0Fill<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<u32>, u32),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView0Fill<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView0Fill<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
    }
    impl<'a> TempsExec<'a> {
        ///The view of node `ft`: its typed setters.
        pub fn ft(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Fill(self.__cg_exec.node(self.__cg.nodes.n1[0])?),
            )
        }
    }
    impl<'a> TempsExec<'a> {
        ///The view of node `fu`: its typed setters.
        pub fn fu(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Fill(self.__cg_exec.node(self.__cg.nodes.n1[1])?),
            )
        }
    }
    pub struct __CgView1Mix<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (
                ::cuda_graph::buffer::Buf<u32>,
                ::cuda_graph::buffer::Buf<u32>,
                ::cuda_graph::buffer::BufMut<u32>,
                u32,
            ),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView1Mix<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (
                ::cuda_graph::buffer::Buf<u32>,
                ::cuda_graph::buffer::Buf<u32>,
                ::cuda_graph::buffer::BufMut<u32>,
                u32,
            ),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView1Mix<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView1Mix<'v, 'a> {
        ///Sets kernel parameter `a` of this node only.
        pub fn set_a(
            &mut self,
            value: ::cuda_graph::buffer::Buf<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `b` of this node only.
        pub fn set_b(
            &mut self,
            value: ::cuda_graph::buffer::Buf<u32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
        ///Sets kernel parameter `out` of this node only.
        pub fn set_out(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<u32>,
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
    impl<'a> TempsExec<'a> {
        ///The view of node `m`: its typed setters.
        pub fn m(
            &mut self,
        ) -> ::core::result::Result<
            __CgView1Mix<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView1Mix(self.__cg_exec.node(self.__cg.nodes.n2[0])?),
            )
        }
    }
};
