///The inputs of the [`Inner`] graph: the buffers it borrows, its params, callbacks and events.
struct InnerInputs<'a> {
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a param `v`.
    pub v: u32,
}
///The inputs of [`Inner`] used as a child graph (`child(Inner { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct InnerChild {
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<u32>,
    ///a param `v`.
    pub v: u32,
}
///The node handles of a [`Inner`] graph built as a child of another (`child(Inner { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct InnerNodes {
    __cg: <Inner<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Inner<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Inner<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Inner`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).
struct InnerExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Inner<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
const _: () = {
    /// The inputs bound to the graph: params, buffer handles, callbacks, events.
    pub struct __CgInputs<'a> {
        b_y: ::cuda_graph::buffer::BufMut<u32>,
        p_v: u32,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    /// The node handles, one array per handle type.
    pub struct __CgNodes {
        n0: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>; 1],
        >,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> ::cuda_graph::__private::Generated<'a> for Inner<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl InnerNodes {
        ///The handle of node `f`.
        pub fn f(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[0]
        }
    }
    impl<'a> Inner<'a> {
        /// The graph as DOT text, computed at compile time from the names written here.
        pub const DOT: &'static str = "digraph \"Inner\" {\n  rankdir=TB;\n  \"f\" [label=\"f\\nkernel\", shape=box];\n}\n";
        /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
        /// file.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void fill(unsigned int* y, unsigned int v);\n";
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
            inputs: InnerInputs<'a>,
        ) -> ::cuda_graph::Result<Self> {
            let mut __cg_g = ::cuda_graph::Graph::new(__cg_module.context())?
                .with_name("Inner");
            let mut __cg_s = __CgInputs {
                b_y: __cg_g.bind_mut(inputs.y)?,
                p_v: inputs.v,
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
        ) -> ::core::result::Result<InnerExec<'a>, ::cuda_graph::error::UpdateError> {
            self.instantiate_with(::cuda_graph::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: ::cuda_graph::exec::Instantiate<'_>,
        ) -> ::core::result::Result<InnerExec<'a>, ::cuda_graph::error::UpdateError> {
            ::core::result::Result::Ok(InnerExec {
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
            __cg_args: InnerChild,
        ) -> ::cuda_graph::Result<(::cuda_graph::Graph<'a>, InnerNodes)> {
            let mut __cg_g = parent.child_graph()?;
            let mut __cg_s = __CgInputs {
                b_y: __cg_args.y,
                p_v: __cg_args.v,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok((__cg_g, InnerNodes { __cg: nodes }))
        }
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_populate(
            __cg_g: &mut ::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_s: &mut __CgInputs<'a>,
        ) -> ::cuda_graph::Result<__CgNodes> {
            let __cg_k0 = __cg_module.function("fill")?;
            __cg_g.reserve(1usize, 1usize, 0usize);
            let mut __cg_h0: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>,
            > = ::std::vec::Vec::with_capacity(1usize);
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("f", &[])];
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
        ) -> (::cuda_graph::buffer::BufMut<u32>, u32) {
            match __cg_j {
                0 => {
                    let v = ::core::clone::Clone::clone(&__cg_s.p_v);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = v;
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
    impl<'a> InnerExec<'a> {
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
            &::cuda_graph::cudarc::driver::CudaSlice<u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
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
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<0usize>(Inner::__cg_args_0(__cg_j, &self.__cg.inputs).0)?;
            }
            ::core::result::Result::Ok(())
        }
        ///The current value of param `v`.
        pub fn v(&self) -> u32 {
            ::core::clone::Clone::clone(&self.__cg.inputs.p_v)
        }
        ///Sets param `v` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_v(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.p_v, value);
            match self.__cg_refresh_1() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_v = __cg_old;
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
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_v))?;
            }
            ::core::result::Result::Ok(())
        }
    }
    /// Handles of the bound buffers, for the node views' buffer setters.
    #[derive(Clone, Copy, Debug)]
    pub struct __CgHandles {
        pub y: ::cuda_graph::buffer::BufMut<u32>,
    }
    impl<'a> InnerExec<'a> {
        /// Handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> __CgHandles {
            __CgHandles {
                y: self.__cg.inputs.b_y,
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
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
    }
    impl<'a> InnerExec<'a> {
        ///The view of node `f`: its typed setters.
        pub fn f(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Fill(self.__cg_exec.node(self.__cg.nodes.n0[0])?),
            )
        }
    }
};
///The inputs of the [`Outer`] graph: the buffers it borrows, its params, callbacks and events.
struct OuterInputs<'a> {
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a host buffer `out`.
    pub out: &'a mut [u32],
    ///a callback `done`.
    pub done: &'a (dyn ::core::ops::Fn(
    ) + ::core::marker::Send + ::core::marker::Sync + 'a),
    ///an event `ev`.
    pub ev: &'a ::cuda_graph::cudarc::driver::CudaEvent,
    ///a param `v`.
    pub v: u32,
}
///The inputs of [`Outer`] used as a child graph (`child(Outer { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct OuterChild<'a> {
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<u32>,
    ///a host buffer `out`.
    pub out: ::cuda_graph::buffer::HostBufMut<u32>,
    ///a callback `done`.
    pub done: &'a (dyn ::core::ops::Fn(
    ) + ::core::marker::Send + ::core::marker::Sync + 'a),
    ///an event `ev`.
    pub ev: &'a ::cuda_graph::cudarc::driver::CudaEvent,
    ///a param `v`.
    pub v: u32,
}
///The node handles of a [`Outer`] graph built as a child of another (`child(Outer { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct OuterNodes {
    __cg: <Outer<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Outer<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Outer<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Outer`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`).
struct OuterExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Outer<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
const _: () = {
    /// The inputs bound to the graph: params, buffer handles, callbacks, events.
    pub struct __CgInputs<'a> {
        b_y: ::cuda_graph::buffer::BufMut<u32>,
        b_out: ::cuda_graph::buffer::HostBufMut<u32>,
        c_done: &'a (dyn ::core::ops::Fn(
        ) + ::core::marker::Send + ::core::marker::Sync + 'a),
        e_ev: &'a ::cuda_graph::cudarc::driver::CudaEvent,
        p_v: u32,
        k_sub: ::core::option::Option<InnerNodes>,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    /// The node handles, one array per handle type.
    pub struct __CgNodes {
        n0: ::std::boxed::Box<
            [::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>; 1],
        >,
        n1: ::std::boxed::Box<[::cuda_graph::node::ChildNode; 1]>,
        n2: ::std::boxed::Box<
            [::cuda_graph::node::MemcpyNode<
                u32,
                ::cuda_graph::memcpy::Host,
                ::cuda_graph::memcpy::Device,
            >; 1],
        >,
        n3: ::std::boxed::Box<[::cuda_graph::node::HostNode; 1]>,
        n4: ::std::boxed::Box<[::cuda_graph::node::EventRecordNode; 1]>,
        n5: ::std::boxed::Box<[::cuda_graph::node::EmptyNode; 1]>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
        module: ::cuda_graph::Module,
    }
    impl<'a> ::cuda_graph::__private::Generated<'a> for Outer<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl OuterNodes {
        ///The handle of node `first`.
        pub fn first(
            &self,
        ) -> ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)> {
            self.__cg.n0[0]
        }
        ///The handle of node `sub`.
        pub fn sub(&self) -> ::cuda_graph::node::ChildNode {
            self.__cg.n1[0]
        }
        ///The handle of node `back`.
        pub fn back(
            &self,
        ) -> ::cuda_graph::node::MemcpyNode<
            u32,
            ::cuda_graph::memcpy::Host,
            ::cuda_graph::memcpy::Device,
        > {
            self.__cg.n2[0]
        }
        ///The handle of node `tell`.
        pub fn tell(&self) -> ::cuda_graph::node::HostNode {
            self.__cg.n3[0]
        }
        ///The handle of node `rec`.
        pub fn rec(&self) -> ::cuda_graph::node::EventRecordNode {
            self.__cg.n4[0]
        }
        ///The handle of node `join`.
        pub fn join(&self) -> ::cuda_graph::node::EmptyNode {
            self.__cg.n5[0]
        }
    }
    impl<'a> Outer<'a> {
        /// The graph as DOT text, computed at compile time from the names written here.
        pub const DOT: &'static str = "digraph \"Outer\" {\n  rankdir=TB;\n  \"first\" [label=\"first\\nkernel\", shape=box];\n  \"sub\" [label=\"sub\\nchild graph\", shape=box3d];\n  \"back\" [label=\"back\\nmemcpy\", shape=parallelogram];\n  \"tell\" [label=\"tell\\nhost\", shape=ellipse];\n  \"rec\" [label=\"rec\\nevent record\", shape=diamond];\n  \"join\" [label=\"join\\nempty\", shape=point];\n  \"first\" -> \"sub\";\n  \"sub\" -> \"back\";\n  \"back\" -> \"tell\";\n  \"back\" -> \"rec\";\n  \"tell\" -> \"join\";\n  \"rec\" -> \"join\";\n}\n";
        /// The CUDA C prototypes of the kernels as declared here: a start for the `.cu`
        /// file.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void fill(unsigned int* y, unsigned int v);\n";
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
            inputs: OuterInputs<'a>,
        ) -> ::cuda_graph::Result<Self> {
            let mut __cg_g = ::cuda_graph::Graph::new(__cg_module.context())?
                .with_name("Outer");
            let mut __cg_s = __CgInputs {
                b_y: __cg_g.bind_mut(inputs.y)?,
                b_out: __cg_g.bind_host_mut(inputs.out),
                c_done: inputs.done,
                e_ev: inputs.ev,
                p_v: inputs.v,
                k_sub: ::core::option::Option::None,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok(Self {
                __cg_graph: __cg_g,
                __cg: __CgState {
                    inputs: __cg_s,
                    nodes,
                    module: ::core::clone::Clone::clone(__cg_module),
                },
            })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> ::core::result::Result<OuterExec<'a>, ::cuda_graph::error::UpdateError> {
            self.instantiate_with(::cuda_graph::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: ::cuda_graph::exec::Instantiate<'_>,
        ) -> ::core::result::Result<OuterExec<'a>, ::cuda_graph::error::UpdateError> {
            ::core::result::Result::Ok(OuterExec {
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
            __cg_args: OuterChild<'a>,
        ) -> ::cuda_graph::Result<(::cuda_graph::Graph<'a>, OuterNodes)> {
            let mut __cg_g = parent.child_graph()?;
            let mut __cg_s = __CgInputs {
                b_y: __cg_args.y,
                b_out: __cg_args.out,
                c_done: __cg_args.done,
                e_ev: __cg_args.ev,
                p_v: __cg_args.v,
                k_sub: ::core::option::Option::None,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let nodes = Self::__cg_populate(&mut __cg_g, __cg_module, &mut __cg_s)?;
            ::core::result::Result::Ok((__cg_g, OuterNodes { __cg: nodes }))
        }
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_populate(
            __cg_g: &mut ::cuda_graph::Graph<'a>,
            __cg_module: &::cuda_graph::Module,
            __cg_s: &mut __CgInputs<'a>,
        ) -> ::cuda_graph::Result<__CgNodes> {
            let __cg_k0 = __cg_module.function("fill")?;
            __cg_g.reserve(6usize, 1usize, 6usize);
            let mut __cg_h0: ::std::vec::Vec<
                ::cuda_graph::node::KernelNode<(::cuda_graph::buffer::BufMut<u32>, u32)>,
            > = ::std::vec::Vec::with_capacity(1usize);
            let mut __cg_h1: ::std::vec::Vec<::cuda_graph::node::ChildNode> = ::std::vec::Vec::with_capacity(
                1usize,
            );
            let mut __cg_h2: ::std::vec::Vec<
                ::cuda_graph::node::MemcpyNode<
                    u32,
                    ::cuda_graph::memcpy::Host,
                    ::cuda_graph::memcpy::Device,
                >,
            > = ::std::vec::Vec::with_capacity(1usize);
            let mut __cg_h3: ::std::vec::Vec<::cuda_graph::node::HostNode> = ::std::vec::Vec::with_capacity(
                1usize,
            );
            let mut __cg_h4: ::std::vec::Vec<::cuda_graph::node::EventRecordNode> = ::std::vec::Vec::with_capacity(
                1usize,
            );
            let mut __cg_h5: ::std::vec::Vec<::cuda_graph::node::EmptyNode> = ::std::vec::Vec::with_capacity(
                1usize,
            );
            {
                const __CG_NODES: &[(&str, &[u32])] = &[("first", &[])];
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
            {
                let __cg_n = {
                    let (__cg_child, __cg_nodes) = Inner::__cg_child(
                        &*__cg_g,
                        __cg_module,
                        {
                            let __cg_s = &*__cg_s;
                            InnerChild {
                                y: ::cuda_graph::__private::child_buffer(__cg_s.b_y),
                                v: 7,
                            }
                        },
                    )?;
                    __cg_s.k_sub = ::core::option::Option::Some(__cg_nodes);
                    __cg_g
                        .add_child(
                            "sub",
                            &[&__cg_h0[0] as &dyn ::cuda_graph::node::Dep],
                            __cg_child,
                        )?
                };
                __cg_h1.push(__cg_n);
            }
            {
                let __cg_n = __cg_g
                    .add_memcpy(
                        "back",
                        &[&__cg_h1[0] as &dyn ::cuda_graph::node::Dep],
                        __cg_s.b_out,
                        __cg_s.b_y,
                    )?;
                __cg_h2.push(__cg_n);
            }
            {
                let __cg_n = __cg_g
                    .add_host(
                        "tell",
                        &[&__cg_h2[0] as &dyn ::cuda_graph::node::Dep],
                        __cg_s.c_done,
                    )?;
                __cg_h3.push(__cg_n);
            }
            {
                let __cg_n = __cg_g
                    .add_event_record(
                        "rec",
                        &[&__cg_h2[0] as &dyn ::cuda_graph::node::Dep],
                        __cg_s.e_ev,
                    )?;
                __cg_h4.push(__cg_n);
            }
            {
                let __cg_n = __cg_g
                    .add_empty(
                        "join",
                        &[
                            &__cg_h3[0] as &dyn ::cuda_graph::node::Dep,
                            &__cg_h4[0] as &dyn ::cuda_graph::node::Dep,
                        ],
                    )?;
                __cg_h5.push(__cg_n);
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
                n4: match ::core::convert::TryFrom::try_from(
                    __cg_h4.into_boxed_slice(),
                ) {
                    ::core::result::Result::Ok(a) => a,
                    ::core::result::Result::Err(_) => {
                        ::core::unreachable!("every node of the group was added")
                    }
                },
                n5: match ::core::convert::TryFrom::try_from(
                    __cg_h5.into_boxed_slice(),
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
        ) -> (::cuda_graph::buffer::BufMut<u32>, u32) {
            match __cg_j {
                0 => {
                    let v = ::core::clone::Clone::clone(&__cg_s.p_v);
                    (
                        {
                            let __cg_v: ::cuda_graph::buffer::BufMut<u32> = __cg_s.b_y;
                            __cg_v
                        },
                        {
                            let __cg_v: u32 = v;
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
    impl<'a> OuterExec<'a> {
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
            &::cuda_graph::cudarc::driver::CudaSlice<u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> ::core::result::Result<
            ::cuda_graph::cudarc::driver::CudaViewMut<'_, u32>,
            ::cuda_graph::error::AccessError,
        > {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
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
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<0usize>(Outer::__cg_args_0(__cg_j, &self.__cg.inputs).0)?;
            }
            {
                let __cg_j: usize = 0usize;
                let (__cg_child, __cg_nodes) = Inner::__cg_child(
                        self.__cg_exec.graph(),
                        &self.__cg.module,
                        {
                            let __cg_s = &self.__cg.inputs;
                            InnerChild {
                                y: ::cuda_graph::__private::child_buffer(__cg_s.b_y),
                                v: 7,
                            }
                        },
                    )
                    .map_err(|e| ::cuda_graph::error::EditError::child_build("sub", e))?;
                self.__cg_exec.node(self.__cg.nodes.n1[__cg_j])?.set_graph(__cg_child)?;
                self.__cg.inputs.k_sub = ::core::option::Option::Some(__cg_nodes);
            }
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_src(self.__cg.inputs.b_y)?;
            }
            ::core::result::Result::Ok(())
        }
        ///Host buffer `out`; waits for running launches first.
        pub fn out(
            &mut self,
        ) -> ::core::result::Result<&[u32], ::cuda_graph::error::AccessError> {
            self.__cg_exec.host(self.__cg.inputs.b_out)
        }
        ///Host buffer `out`; waits for running launches first.
        pub fn out_mut(
            &mut self,
        ) -> ::core::result::Result<&mut [u32], ::cuda_graph::error::AccessError> {
            self.__cg_exec.host_mut(self.__cg.inputs.b_out)
        }
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn __cg_refresh_1(
            &mut self,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            {
                let __cg_j: usize = 0usize;
                self.__cg_exec
                    .node(self.__cg.nodes.n2[__cg_j])?
                    .set_dst(self.__cg.inputs.b_out)?;
            }
            ::core::result::Result::Ok(())
        }
        ///Replaces `done` in every node that uses it. On failure nothing changes.
        pub fn set_done(
            &mut self,
            value: &'a (dyn ::core::ops::Fn(
            ) + ::core::marker::Send + ::core::marker::Sync + 'a),
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.c_done, value);
            match self.__cg_refresh_2() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.c_done = __cg_old;
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
                    .node(self.__cg.nodes.n3[__cg_j])?
                    .set_callback(self.__cg.inputs.c_done)?;
            }
            ::core::result::Result::Ok(())
        }
        ///Replaces `ev` in every node that uses it. On failure nothing changes.
        pub fn set_ev(
            &mut self,
            value: &'a ::cuda_graph::cudarc::driver::CudaEvent,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.e_ev, value);
            match self.__cg_refresh_3() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.e_ev = __cg_old;
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
                    .node(self.__cg.nodes.n4[__cg_j])?
                    .set_event(self.__cg.inputs.e_ev)?;
            }
            ::core::result::Result::Ok(())
        }
        ///The current value of param `v`.
        pub fn v(&self) -> u32 {
            ::core::clone::Clone::clone(&self.__cg.inputs.p_v)
        }
        ///Sets param `v` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_v(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            let __cg_old = ::core::mem::replace(&mut self.__cg.inputs.p_v, value);
            match self.__cg_refresh_4() {
                ::core::result::Result::Ok(()) => ::core::result::Result::Ok(()),
                ::core::result::Result::Err(e) => {
                    self.__cg.inputs.p_v = __cg_old;
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
                    .node(self.__cg.nodes.n0[__cg_j])?
                    .set_arg::<
                        1usize,
                    >(::core::clone::Clone::clone(&self.__cg.inputs.p_v))?;
            }
            ::core::result::Result::Ok(())
        }
    }
    /// Handles of the bound buffers, for the node views' buffer setters.
    #[derive(Clone, Copy, Debug)]
    pub struct __CgHandles {
        pub y: ::cuda_graph::buffer::BufMut<u32>,
        pub out: ::cuda_graph::buffer::HostBufMut<u32>,
    }
    impl<'a> OuterExec<'a> {
        /// Handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> __CgHandles {
            __CgHandles {
                y: self.__cg.inputs.b_y,
                out: self.__cg.inputs.b_out,
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
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(
            &mut self,
            value: u32,
        ) -> ::core::result::Result<(), ::cuda_graph::error::EditError> {
            self.0.set_arg::<1usize>(value)
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `first`: its typed setters.
        pub fn first(
            &mut self,
        ) -> ::core::result::Result<
            __CgView0Fill<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            ::core::result::Result::Ok(
                __CgView0Fill(self.__cg_exec.node(self.__cg.nodes.n0[0])?),
            )
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `sub`: its typed setters.
        pub fn sub(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::ChildNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n1[0])
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `back`: its typed setters.
        pub fn back(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::MemcpyNode<
                u32,
                ::cuda_graph::memcpy::Host,
                ::cuda_graph::memcpy::Device,
            > as ::cuda_graph::node::NodeHandle>::OnExec<'_, 'a>,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n2[0])
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `tell`: its typed setters.
        pub fn tell(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::HostNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n3[0])
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `rec`: its typed setters.
        pub fn rec(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::EventRecordNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n4[0])
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `join`: its typed setters.
        pub fn join(
            &mut self,
        ) -> ::core::result::Result<
            <::cuda_graph::node::EmptyNode as ::cuda_graph::node::NodeHandle>::OnExec<
                '_,
                'a,
            >,
            ::cuda_graph::error::EditError,
        > {
            self.__cg_exec.node(self.__cg.nodes.n5[0])
        }
    }
    impl<'a> OuterExec<'a> {
        ///Edits the graph child node `sub` runs, through its typed node handles (`f` gets the child template and its handles, e.g. `|g, h| g.node(h.step())?.set_arg::<1>(7)`), then runs the edited graph in the node: one driver call for the whole child, no rebuild. The child must keep its nodes and edges. A later change of an input the child uses builds it again from the inputs, without these edits.
        pub fn edit_sub<R>(
            &mut self,
            f: impl ::core::ops::FnOnce(
                &mut ::cuda_graph::node::ChildTemplate<'_, 'a>,
                &InnerNodes,
            ) -> ::core::result::Result<R, ::cuda_graph::error::EditError>,
        ) -> ::core::result::Result<R, ::cuda_graph::error::EditError> {
            let __cg_nodes = self
                .__cg
                .inputs
                .k_sub
                .as_ref()
                .expect("a child node's handles are kept when it is built");
            self.__cg_exec.node(self.__cg.nodes.n1[0])?.edit(|g| f(g, __cg_nodes))
        }
    }
};
