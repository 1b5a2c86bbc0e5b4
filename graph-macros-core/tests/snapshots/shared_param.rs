///The inputs of the [`Shared`] graph: the buffers it borrows, its params, callbacks and events.
struct SharedInputs<'a> {
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<f32>,
    ///a param `a`.
    pub a: f32,
    ///a param `n`.
    pub n: u32,
}
///The inputs of [`Shared`] used as a child graph (`child(Shared { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct SharedChild {
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<f32>,
    ///a param `a`.
    pub a: f32,
    ///a param `n`.
    pub n: u32,
}
///The node handles of a [`Shared`] graph built as a child of another (`child(Shared { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct SharedNodes {
    __cg: <Shared<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Shared<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Shared<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Shared`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).
struct SharedExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Shared<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
const _: () = {
    /// The inputs bound to the graph: params, buffer handles, callbacks, events.
    pub struct __CgInputs<'a> {
        b_y: ::cuda_graph::buffer::BufMut<f32>,
        p_a: f32,
        p_n: u32,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    /// The node handles, one array per handle type.
    pub struct __CgNodes {
        n0: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<
                (::cuda_graph::buffer::BufMut<f32>, f32, u32),
            >; 4],
        >,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> ::cuda_graph::__private::Generated<'a> for Shared<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl SharedNodes {
        ///The handle of node `s0`.
        pub fn s0(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (::cuda_graph::buffer::BufMut<f32>, f32, u32),
        > {
            self.__cg.n0[0]
        }
        ///The handle of node `s1`.
        pub fn s1(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (::cuda_graph::buffer::BufMut<f32>, f32, u32),
        > {
            self.__cg.n0[1]
        }
        ///The handle of node `s2`.
        pub fn s2(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (::cuda_graph::buffer::BufMut<f32>, f32, u32),
        > {
            self.__cg.n0[2]
        }
        ///The handle of node `s3`.
        pub fn s3(
            &self,
        ) -> ::cuda_graph::node::KernelNode<
            (::cuda_graph::buffer::BufMut<f32>, f32, u32),
        > {
            self.__cg.n0[3]
        }
    }
    impl<'a> Shared<'a> {
        /// The graph as DOT text, computed at compile time from the names written here.
        pub const DOT: &'static str = "digraph \"Shared\" {\n  rankdir=TB;\n  \"s0\" [label=\"s0\\nkernel\", shape=box];\n  \"s1\" [label=\"s1\\nkernel\", shape=box];\n  \"s2\" [label=\"s2\\nkernel\", shape=box];\n  \"s3\" [label=\"s3\\nkernel\", shape=box];\n  \"s0\" -> \"s1\";\n  \"s0\" -> \"s2\";\n  \"s0\" -> \"s3\";\n}\n";
        /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
        /// file.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void scale(float* y, float a, unsigned int n);\n";
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
            inputs: SharedInputs<'a>,
        ) -> ::cuda_graph::Result<Self> {
            let mut __cg_g = ::cuda_graph::Graph::new(__cg_module.context())?
                .with_name("Shared");
            let mut __cg_s = __CgInputs {
                b_y: __cg_g.bind_mut(inputs.y)?,
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
        ) -> ::core::result::Result<SharedExec<'a>, ::cuda_graph::error::UpdateError> {
            self.instantiate_with(::cuda_graph::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: ::cuda_graph::exec::Instantiate<'_>,
        ) -> ::core::result::Result<SharedExec<'a>, ::cuda_graph::error::UpdateError> {
            ::core::result::Result::Ok(SharedExec {
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
            __cg_args: SharedChild,
        ) -> ::cuda_graph::Result<(::cuda_graph::Graph<'a>, SharedNodes)> {
            let mut __cg_g = parent.child_graph()?;
            let mut __cg_s = __CgInputs {
                b_y: __cg_args.y,
                p_a: __cg_args.a,
                p_n: __cg_args.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok((__cg_g, SharedNodes { __cg: nodes }))
        }
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_populate(
            __cg_g: &mut ::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_s: &mut __CgInputs<'a>,
        ) -> ::cuda_graph::Result<__CgNodes> {
            let __cg_k0 = __cg_module.function("scale")?;
            __cg_g.reserve(4usize, 4usize, 3usize);
            let mut __cg_h0: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<
                    (::cuda_graph::buffer::BufMut<f32>, f32, u32),
                >,
            > = ::std::vec::Vec::with_capacity(4usize);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[
                    ("s0", &[]),
                    ("s1", &[0u32]),
                    ("s2", &[0u32]),
                    ("s3", &[0u32]),
                ];
                for &(__cg_name, __cg_deps) in __CG_NODES {
                    let __cg_j = __cg_h0.len();
                    let __cg_n = __cg_g
                        .add_kernel_after(
                            __cg_name,
                            __cg_deps,
                            &__cg_k0,
                            Self::__cg_cfg_0(__cg_j, __cg_s),
                            Self::__cg_args_0(__cg_j, __cg_s),
                        )?;
                    __cg_h0.push(__cg_n);
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
            })
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_args_0(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> (::cuda_graph::buffer::BufMut<f32>, f32, u32) {
            match __cg_j {
                0 => {
                    let a = ::core::clone::Clone::clone(&__cg_s.p_a);
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<f32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: f32 = a;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = n;
                            __cg_v
                        },
                    )
                }
                1 => {
                    let a = ::core::clone::Clone::clone(&__cg_s.p_a);
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<f32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: f32 = a;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = n;
                            __cg_v
                        },
                    )
                }
                2 => {
                    let a = ::core::clone::Clone::clone(&__cg_s.p_a);
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<f32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: f32 = a * 2.0;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = n;
                            __cg_v
                        },
                    )
                }
                3 => {
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<f32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: f32 = 1.0;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = 4;
                            __cg_v
                        },
                    )
                }
                _ => ::core::unreachable!("no such node in this group"),
            }
        }
        #[allow(unused_variables, unreachable_patterns, clippy::all)]
        #[inline(never)]
        fn __cg_cfg_0(
            __cg_j: usize,
            __cg_s: &__CgInputs<'a>,
        ) -> ::cuda_graph::LaunchConfig {
            match __cg_j {
                0 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(n),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                1 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(n),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                2 => {
                    let n = ::core::clone::Clone::clone(&__cg_s.p_n);
                    ::cuda_graph::LaunchConfig {
                        grid_dim: ::cuda_graph::__private::dim3(n),
                        block_dim: ::cuda_graph::__private::dim3(32),
                        shared_mem_bytes: 0u32,
                    }
                }
                3 => {
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
    impl<'a> SharedExec<'a> {
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
            for __cg_j in 0..4usize {
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<
                        0usize,
                    >(Shared::__cg_args_0(__cg_j, &self.__cg.inputs).0)?;
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
            match self.__cg_refresh_1() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_a = __cg_old;
                    let _ = self.__cg_refresh_1();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_1(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            for &__cg_j in &[0usize, 1usize] {
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_a))?;
            }
            {
                let __cg_j: usize = 2usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(Shared::__cg_args_0(__cg_j, &self.__cg.inputs).1)?;
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
            match self.__cg_refresh_2() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_n = __cg_old;
                    let _ = self.__cg_refresh_2();
                    ::core::result::Result::Err(e)
                }
            }
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_2(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            for &__cg_j in &[0usize, 1usize, 2usize] {
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set(
                        Shared::__cg_args_0(__cg_j, &self.__cg.inputs),
                        Shared::__cg_cfg_0(__cg_j, &self.__cg.inputs),
                    )?;
            }
            ::core::result::Result::Ok(())
        }
    }
    /// Handles of the bound buffers, for the node views' buffer setters.
    #[derive(Clone, Copy, Debug)]
    pub struct __CgHandles {
        pub y: ::cuda_graph::buffer::BufMut<f32>,
    }
    impl<'a> SharedExec<'a> {
        /// Handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> __CgHandles {
            __CgHandles {
                y: self.__cg.inputs.b_y,
            }
        }
    }
    pub struct __CgView0Scale<'v, 'a>(
        ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<f32>, f32, u32),
            ::cuda_graph::node::OnExec,
        >,
    );
    impl<'v, 'a> ::core::ops::Deref for __CgView0Scale<'v, 'a> {
        type Target = ::cuda_graph::node::KernelMut<
            'v,
            'a,
            (::cuda_graph::buffer::BufMut<f32>, f32, u32),
            ::cuda_graph::node::OnExec,
        >;
        fn deref(&self) -> &Self::Target {
            &self.0
        }
    }
    impl<'v, 'a> ::core::ops::DerefMut for __CgView0Scale<'v, 'a> {
        fn deref_mut(&mut self) -> &mut Self::Target {
            &mut self.0
        }
    }
    impl<'v, 'a> __CgView0Scale<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            value: ::cuda_graph::buffer::BufMut<f32>,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<0usize>(value)
        }
        ///Sets kernel parameter `a` of this node only.
        pub fn set_a(
            &mut self,
            value: f32,
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
    impl<'a> SharedExec<'a> {
        ///The view of node `s0`: its typed setters.
        pub fn s0(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Scale<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Scale(self.__cg_exec.node(self.__cg.nodes.n0[0])?),
            )
        }
    }
    impl<'a> SharedExec<'a> {
        ///The view of node `s1`: its typed setters.
        pub fn s1(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Scale<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Scale(self.__cg_exec.node(self.__cg.nodes.n0[1])?),
            )
        }
    }
    impl<'a> SharedExec<'a> {
        ///The view of node `s2`: its typed setters.
        pub fn s2(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Scale<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Scale(self.__cg_exec.node(self.__cg.nodes.n0[2])?),
            )
        }
    }
    impl<'a> SharedExec<'a> {
        ///The view of node `s3`: its typed setters.
        pub fn s3(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Scale<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Scale(self.__cg_exec.node(self.__cg.nodes.n0[3])?),
            )
        }
    }
};
