///The inputs of the [`Inner`] graph: the buffers it borrows, its params, callbacks and events.
struct InnerInputs<'a> {
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a param `v`.
    pub v: u32,
}
///The inputs of [`Inner`] used as a child graph (`child(Inner { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct InnerChild<'a> {
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<u32>,
    ///a param `v`.
    pub v: u32,
    #[doc(hidden)]
    pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
}
///The node handles of a [`Inner`] graph built as a child of another (`child(Inner { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct InnerNodes {
    __cg: <Inner<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Inner<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Inner<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Inner`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).
struct InnerExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Inner<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The handles of the buffers bound to a [`InnerExec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).
#[derive(Clone, Copy, Debug)]
struct InnerHandles {
    pub y: ::cuda_graph::buffer::BufMut<u32>,
}
///The arguments of kernel `fill` in [`Inner`], as its nodes take them.
type InnerFillArgs = (::cuda_graph::buffer::BufMut<u32>, u32);
///The view of a node of [`Inner`] launching kernel `fill`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct InnerFillView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, InnerFillArgs, ::cuda_graph::node::OnExec>,
);
const _: () = {
    use ::cuda_graph as __cg;
    use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
    pub struct __CgInputs<'a> {
        b_y: __cg::buffer::BufMut<u32>,
        p_v: u32,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    pub struct __CgNodes {
        n0: __cg::__private::Kernels<InnerFillArgs>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> __cg::__private::Generated<'a> for Inner<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl InnerNodes {
        ///The handle of node `f`.
        pub fn f(&self) -> __cg::node::KernelNode<InnerFillArgs> {
            self.__cg.n0[0]
        }
    }
    impl<'a> Inner<'a> {
        /// The graph as DOT text, computed at compile time.
        pub const DOT: &'static str = "digraph \"Inner\" {\n  rankdir=TB;\n  \"f\" [label=\"f\\nkernel\", shape=box];\n}\n";
        /// The kernels' CUDA C prototypes, as declared here.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void fill(unsigned int* y, unsigned int v);\n";
        /// The temporaries: name, element type and length, as written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &__cg::Module,
            inputs: InnerInputs<'a>,
        ) -> __cg::Result<Self> {
            let mut __cg_g = __cg::Graph::new(__cg_module.context())?.with_name("Inner");
            let __cg_args = InnerChild {
                y: __cg_g.bind_mut(inputs.y)?,
                v: inputs.v,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let (__cg_graph, __cg) = Self::__cg_new(__cg_g, __cg_module, __cg_args)?;
            ::core::result::Result::Ok(Self { __cg_graph, __cg })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> __cg::Result<InnerExec<'a>, __cg::error::InstantiateError> {
            self.instantiate_with(__cg::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: __cg::exec::Instantiate<'_>,
        ) -> __cg::Result<InnerExec<'a>, __cg::error::InstantiateError> {
            let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
            ::core::result::Result::Ok(InnerExec {
                __cg_exec,
                __cg: self.__cg,
            })
        }
        /// The runtime template graph.
        pub fn graph(&self) -> &__cg::Graph<'a> {
            &self.__cg_graph
        }
        /// Builds this graph as a child of `parent` (used by `child(...)` nodes).
        #[doc(hidden)]
        pub fn __cg_child(
            parent: &__cg::Graph<'a>,
            module: &__cg::Module,
            args: InnerChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, InnerNodes)> {
            let (g, st) = Self::__cg_new(parent.child_graph()?, module, args)?;
            ::core::result::Result::Ok((g, InnerNodes { __cg: st.nodes }))
        }
        /// Adds every node to `__cg_g`, from the inputs the graph was given.
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_new(
            mut __cg_g: __cg::Graph<'a>,
            __cg_module: &__cg::Module,
            __cg_args: InnerChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, __CgState<'a>)> {
            let mut __cg_s = __CgInputs {
                b_y: __cg_args.y,
                p_v: __cg_args.v,
                __cg_borrow: ::core::marker::PhantomData,
            };
            __cg_g.reserve(1, 1, 0);
            let mut n0 = __cg_module.kernels("fill", 1)?;
            n0.add(&mut __cg_g, &[("f", &[])], |j| __cg_s.node0(j))?;
            let nodes = __CgNodes { n0 };
            ::core::result::Result::Ok((__cg_g, __CgState { inputs: __cg_s, nodes }))
        }
    }
    #[allow(unused_variables, unreachable_patterns, clippy::all)]
    impl<'a> __CgInputs<'a> {
        fn node0(&self, __cg_j: usize) -> (__cg::LaunchConfig, InnerFillArgs) {
            let __cg_s = self;
            let v = __cg_s.p_v;
            (__cg::__private::config(1, 32, 0), (__cg_s.b_y, v))
        }
    }
    __cg::__private::deref!(
        impl < 'a > InnerExec < 'a > => __cg::GraphExec < 'a >, __cg_exec
    );
    impl<'a> __cg::__private::Resend for InnerExec<'a> {
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn resend(&mut self, g: usize, j: usize, cfg: bool) -> __cg::error::EditResult {
            let (e, st) = (&mut self.__cg_exec, &mut self.__cg);
            match g {
                0 => e.node(st.nodes.n0[j])?.send_again(st.inputs.node0(j), cfg),
                _ => ::core::unreachable!(),
            }
        }
        fn users(input: usize) -> &'static __cg::__private::Users {
            match input {
                0 => &[(0, 0..1, false)],
                1 => &[(0, 0..1, false)],
                _ => &[],
            }
        }
    }
    impl<'a> InnerExec<'a> {
        /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
        pub fn into_inner(self) -> __cg::GraphExec<'a> {
            self.__cg_exec
        }
        /// The handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> InnerHandles {
            InnerHandles {
                y: self.__cg.inputs.b_y,
            }
        }
        ///Buffer `y`, for cudarc calls between launches.
        pub fn y(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<u32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> __cg::error::AccessResult<__cg::buffer::CudaViewMut<'_, u32>> {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut __cg::buffer::CudaSlice<u32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 0, |e| e.__cg.inputs.b_y, buffer)
        }
        ///The current value of param `v`.
        pub fn v(&self) -> u32 {
            self.__cg.inputs.p_v
        }
        ///Sets param `v` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_v(&mut self, value: u32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 1, |e| &mut e.__cg.inputs.p_v, value)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > InnerFillView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        InnerFillArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> InnerFillView<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            v: __cg::buffer::BufMut<u32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
    }
    impl<'a> InnerExec<'a> {
        ///The view of node `f`: its typed setters.
        pub fn f(&mut self) -> __cg::error::EditResult<InnerFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[0]).map(InnerFillView)
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
    #[doc(hidden)]
    pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
}
///The node handles of a [`Outer`] graph built as a child of another (`child(Outer { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct OuterNodes {
    __cg: <Outer<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Outer<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Outer<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Outer`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).
struct OuterExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Outer<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The handles of the buffers bound to a [`OuterExec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).
#[derive(Clone, Copy, Debug)]
struct OuterHandles {
    pub y: ::cuda_graph::buffer::BufMut<u32>,
    pub out: ::cuda_graph::buffer::HostBufMut<u32>,
}
///The arguments of kernel `fill` in [`Outer`], as its nodes take them.
type OuterFillArgs = (::cuda_graph::buffer::BufMut<u32>, u32);
///The view of a node of [`Outer`] launching kernel `fill`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct OuterFillView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, OuterFillArgs, ::cuda_graph::node::OnExec>,
);
const _: () = {
    use ::cuda_graph as __cg;
    use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
    pub struct __CgInputs<'a> {
        b_y: __cg::buffer::BufMut<u32>,
        b_out: __cg::buffer::HostBufMut<u32>,
        c_done: &'a (dyn ::core::ops::Fn(
        ) + ::core::marker::Send + ::core::marker::Sync + 'a),
        e_ev: &'a __cg::cudarc::driver::CudaEvent,
        p_v: u32,
        k1: ::std::vec::Vec<InnerNodes>,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    pub struct __CgNodes {
        n0: __cg::__private::Kernels<OuterFillArgs>,
        n1: ::std::vec::Vec<__cg::node::ChildNode>,
        n2: ::std::vec::Vec<
            __cg::node::MemcpyNode<u32, __cg::memcpy::Host, __cg::memcpy::Device>,
        >,
        n3: ::std::vec::Vec<__cg::node::HostNode>,
        n4: ::std::vec::Vec<__cg::node::EventRecordNode>,
        n5: ::std::vec::Vec<__cg::node::EmptyNode>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
        module: __cg::Module,
    }
    impl<'a> __cg::__private::Generated<'a> for Outer<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl OuterNodes {
        ///The handle of node `first`.
        pub fn first(&self) -> __cg::node::KernelNode<OuterFillArgs> {
            self.__cg.n0[0]
        }
        ///The handle of node `sub`.
        pub fn sub(&self) -> __cg::node::ChildNode {
            self.__cg.n1[0]
        }
        ///The handle of node `back`.
        pub fn back(
            &self,
        ) -> __cg::node::MemcpyNode<u32, __cg::memcpy::Host, __cg::memcpy::Device> {
            self.__cg.n2[0]
        }
        ///The handle of node `tell`.
        pub fn tell(&self) -> __cg::node::HostNode {
            self.__cg.n3[0]
        }
        ///The handle of node `rec`.
        pub fn rec(&self) -> __cg::node::EventRecordNode {
            self.__cg.n4[0]
        }
        ///The handle of node `join`.
        pub fn join(&self) -> __cg::node::EmptyNode {
            self.__cg.n5[0]
        }
    }
    impl<'a> Outer<'a> {
        /// The graph as DOT text, computed at compile time.
        pub const DOT: &'static str = "digraph \"Outer\" {\n  rankdir=TB;\n  \"first\" [label=\"first\\nkernel\", shape=box];\n  \"sub\" [label=\"sub\\nchild graph\", shape=box3d];\n  \"back\" [label=\"back\\nmemcpy\", shape=parallelogram];\n  \"tell\" [label=\"tell\\nhost\", shape=ellipse];\n  \"rec\" [label=\"rec\\nevent record\", shape=diamond];\n  \"join\" [label=\"join\\nempty\", shape=point];\n  \"first\" -> \"sub\";\n  \"sub\" -> \"back\";\n  \"back\" -> \"tell\";\n  \"back\" -> \"rec\";\n  \"tell\" -> \"join\";\n  \"rec\" -> \"join\";\n}\n";
        /// The kernels' CUDA C prototypes, as declared here.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void fill(unsigned int* y, unsigned int v);\n";
        /// The temporaries: name, element type and length, as written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &__cg::Module,
            inputs: OuterInputs<'a>,
        ) -> __cg::Result<Self> {
            let mut __cg_g = __cg::Graph::new(__cg_module.context())?.with_name("Outer");
            let __cg_args = OuterChild {
                y: __cg_g.bind_mut(inputs.y)?,
                out: __cg_g.bind_host_mut(inputs.out),
                done: inputs.done,
                ev: inputs.ev,
                v: inputs.v,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let (__cg_graph, __cg) = Self::__cg_new(__cg_g, __cg_module, __cg_args)?;
            ::core::result::Result::Ok(Self { __cg_graph, __cg })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> __cg::Result<OuterExec<'a>, __cg::error::InstantiateError> {
            self.instantiate_with(__cg::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: __cg::exec::Instantiate<'_>,
        ) -> __cg::Result<OuterExec<'a>, __cg::error::InstantiateError> {
            let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
            ::core::result::Result::Ok(OuterExec {
                __cg_exec,
                __cg: self.__cg,
            })
        }
        /// The runtime template graph.
        pub fn graph(&self) -> &__cg::Graph<'a> {
            &self.__cg_graph
        }
        /// Builds this graph as a child of `parent` (used by `child(...)` nodes).
        #[doc(hidden)]
        pub fn __cg_child(
            parent: &__cg::Graph<'a>,
            module: &__cg::Module,
            args: OuterChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, OuterNodes)> {
            let (g, st) = Self::__cg_new(parent.child_graph()?, module, args)?;
            ::core::result::Result::Ok((g, OuterNodes { __cg: st.nodes }))
        }
        /// Adds every node to `__cg_g`, from the inputs the graph was given.
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_new(
            mut __cg_g: __cg::Graph<'a>,
            __cg_module: &__cg::Module,
            __cg_args: OuterChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, __CgState<'a>)> {
            let mut __cg_s = __CgInputs {
                b_y: __cg_args.y,
                b_out: __cg_args.out,
                c_done: __cg_args.done,
                e_ev: __cg_args.ev,
                p_v: __cg_args.v,
                k1: ::std::vec::Vec::new(),
                __cg_borrow: ::core::marker::PhantomData,
            };
            __cg_g.reserve(6, 1, 6);
            let mut n0 = __cg_module.kernels("fill", 1)?;
            let mut n1 = ::std::vec::Vec::with_capacity(1);
            let mut n2 = ::std::vec::Vec::with_capacity(1);
            let mut n3 = ::std::vec::Vec::with_capacity(1);
            let mut n4 = ::std::vec::Vec::with_capacity(1);
            let mut n5 = ::std::vec::Vec::with_capacity(1);
            n0.add(&mut __cg_g, &[("first", &[])], |j| __cg_s.node0(j))?;
            n1.push({
                let (__cg_child, __cg_nodes) = Inner::__cg_child(
                    &__cg_g,
                    __cg_module,
                    __cg_s.node1(0usize),
                )?;
                __cg_s.k1.push(__cg_nodes);
                __cg_g.add_child("sub", &[&n0[0]], __cg_child)?
            });
            n2.push(__cg_g.add_copy("back", &[&n1[0]], __cg_s.node2(0))?);
            n3.push(__cg_g.add_host("tell", &[&n2[0]], __cg_s.c_done)?);
            n4.push(__cg_g.add_event_record("rec", &[&n2[0]], __cg_s.node4(0))?);
            n5.push(__cg_g.add_empty("join", &[&n3[0], &n4[0]])?);
            let nodes = __CgNodes {
                n0,
                n1,
                n2,
                n3,
                n4,
                n5,
            };
            ::core::result::Result::Ok((
                __cg_g,
                __CgState {
                    inputs: __cg_s,
                    nodes,
                    module: ::core::clone::Clone::clone(__cg_module),
                },
            ))
        }
    }
    #[allow(unused_variables, unreachable_patterns, clippy::all)]
    impl<'a> __CgInputs<'a> {
        fn node0(&self, __cg_j: usize) -> (__cg::LaunchConfig, OuterFillArgs) {
            let __cg_s = self;
            let v = __cg_s.p_v;
            (__cg::__private::config(1, 32, 0), (__cg_s.b_y, v))
        }
        fn node1(&self, __cg_j: usize) -> InnerChild<'a> {
            let __cg_s = self;
            InnerChild {
                y: __cg::__private::child_buffer(__cg_s.b_y),
                v: 7,
                __cg_borrow: ::core::marker::PhantomData,
            }
        }
        fn node2(
            &self,
            __cg_j: usize,
        ) -> (__cg::buffer::HostBufMut<u32>, __cg::buffer::Buf<u32>) {
            let __cg_s = self;
            (__cg_s.b_out, __cg_s.b_y.read())
        }
        fn node3(
            &self,
            __cg_j: usize,
        ) -> ::core::option::Option<
            &'a (dyn ::core::ops::Fn(
            ) + ::core::marker::Send + ::core::marker::Sync + 'a),
        > {
            let __cg_s = self;
            ::core::option::Option::Some(__cg_s.c_done)
        }
        fn node4(&self, __cg_j: usize) -> &'a __cg::cudarc::driver::CudaEvent {
            let __cg_s = self;
            __cg_s.e_ev
        }
    }
    __cg::__private::deref!(
        impl < 'a > OuterExec < 'a > => __cg::GraphExec < 'a >, __cg_exec
    );
    impl<'a> __cg::__private::Resend for OuterExec<'a> {
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn resend(&mut self, g: usize, j: usize, cfg: bool) -> __cg::error::EditResult {
            let (e, st) = (&mut self.__cg_exec, &mut self.__cg);
            match g {
                0 => e.node(st.nodes.n0[j])?.send_again(st.inputs.node0(j), cfg),
                1 => {
                    let (c, k) = Inner::__cg_child(
                            e.graph(),
                            &st.module,
                            st.inputs.node1(j),
                        )
                        .map_err(|x| __cg::error::EditError::child_build(
                            ["sub"][j],
                            x,
                        ))?;
                    e.node(st.nodes.n1[j])?.set_graph(c)?;
                    st.inputs.k1[j] = k;
                    ::core::result::Result::Ok(())
                }
                2 => e.node(st.nodes.n2[j])?.send_again(st.inputs.node2(j), cfg),
                3 => e.node(st.nodes.n3[j])?.send_again(st.inputs.node3(j), cfg),
                4 => e.node(st.nodes.n4[j])?.send_again(st.inputs.node4(j), cfg),
                _ => ::core::unreachable!(),
            }
        }
        fn users(input: usize) -> &'static __cg::__private::Users {
            match input {
                0 => &[(0, 0..1, false), (1, 0..1, false), (2, 0..1, false)],
                1 => &[(2, 0..1, false)],
                2 => &[(3, 0..1, false)],
                3 => &[(4, 0..1, false)],
                4 => &[(0, 0..1, false)],
                _ => &[],
            }
        }
    }
    impl<'a> OuterExec<'a> {
        /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
        pub fn into_inner(self) -> __cg::GraphExec<'a> {
            self.__cg_exec
        }
        /// The handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> OuterHandles {
            OuterHandles {
                y: self.__cg.inputs.b_y,
                out: self.__cg.inputs.b_out,
            }
        }
        ///Buffer `y`, for cudarc calls between launches.
        pub fn y(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<u32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> __cg::error::AccessResult<__cg::buffer::CudaViewMut<'_, u32>> {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut __cg::buffer::CudaSlice<u32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 0, |e| e.__cg.inputs.b_y, buffer)
        }
        ///Host buffer `out`; waits for running launches first.
        pub fn out(&mut self) -> __cg::error::AccessResult<&[u32]> {
            self.__cg_exec.host(self.__cg.inputs.b_out)
        }
        ///Host buffer `out`; waits for running launches first.
        pub fn out_mut(&mut self) -> __cg::error::AccessResult<&mut [u32]> {
            self.__cg_exec.host_mut(self.__cg.inputs.b_out)
        }
        ///Replaces `done` in every node that uses it. On failure nothing changes.
        pub fn set_done(
            &mut self,
            value: &'a (dyn ::core::ops::Fn(
            ) + ::core::marker::Send + ::core::marker::Sync + 'a),
        ) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 2, |e| &mut e.__cg.inputs.c_done, value)
        }
        ///Replaces `ev` in every node that uses it. On failure nothing changes.
        pub fn set_ev(
            &mut self,
            value: &'a __cg::cudarc::driver::CudaEvent,
        ) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 3, |e| &mut e.__cg.inputs.e_ev, value)
        }
        ///The current value of param `v`.
        pub fn v(&self) -> u32 {
            self.__cg.inputs.p_v
        }
        ///Sets param `v` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_v(&mut self, value: u32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 4, |e| &mut e.__cg.inputs.p_v, value)
        }
        ///The view of node `sub`: its typed setters.
        pub fn sub(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::ChildMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n1[0])
        }
        ///The view of node `back`: its typed setters.
        pub fn back(
            &mut self,
        ) -> __cg::error::EditResult<
            __cg::node::MemcpyMut<
                '_,
                'a,
                u32,
                __cg::memcpy::Host,
                __cg::memcpy::Device,
                __cg::node::OnExec,
            >,
        > {
            self.__cg_exec.node(self.__cg.nodes.n2[0])
        }
        ///The view of node `tell`: its typed setters.
        pub fn tell(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::HostMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n3[0])
        }
        ///The view of node `rec`: its typed setters.
        pub fn rec(
            &mut self,
        ) -> __cg::error::EditResult<
            __cg::node::EventRecordMut<'_, 'a, __cg::node::OnExec>,
        > {
            self.__cg_exec.node(self.__cg.nodes.n4[0])
        }
        ///The view of node `join`: its typed setters.
        pub fn join(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::EmptyMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n5[0])
        }
        ///Edits the graph child node `sub` runs, through its typed node handles (`f` gets the child template and its handles, e.g. `|g, h| g.node(h.step())?.set_arg::<1>(7)`), then runs the edited graph in the node: one driver call for the whole child, no rebuild. The child must keep its nodes and edges. A later change of an input the child uses builds it again from the inputs, without these edits.
        pub fn edit_sub<R>(
            &mut self,
            f: impl ::core::ops::FnOnce(
                &mut __cg::node::ChildTemplate<'_, 'a>,
                &InnerNodes,
            ) -> __cg::error::EditResult<R>,
        ) -> __cg::error::EditResult<R> {
            let __cg_nodes = &self.__cg.inputs.k1[0usize];
            self.__cg_exec.node(self.__cg.nodes.n1[0])?.edit(|g| f(g, __cg_nodes))
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > OuterFillView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        OuterFillArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> OuterFillView<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            v: __cg::buffer::BufMut<u32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
    }
    impl<'a> OuterExec<'a> {
        ///The view of node `first`: its typed setters.
        pub fn first(&mut self) -> __cg::error::EditResult<OuterFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[0]).map(OuterFillView)
        }
    }
};
