///The inputs of the [`Temps`] graph: the buffers it borrows, its params, callbacks and events.
struct TempsInputs<'a> {
    ///a buffer `out`.
    pub out: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a param `n`.
    pub n: u32,
}
///The inputs of [`Temps`] used as a child graph (`child(Temps { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct TempsChild<'a> {
    ///a buffer `out`.
    pub out: ::cuda_graph::buffer::BufMut<u32>,
    ///a param `n`.
    pub n: u32,
    #[doc(hidden)]
    pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
}
///The node handles of a [`Temps`] graph built as a child of another (`child(Temps { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct TempsNodes {
    __cg: <Temps<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Temps<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Temps<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Temps`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).
struct TempsExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Temps<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The handles of the buffers bound to a [`TempsExec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).
#[derive(Clone, Copy, Debug)]
struct TempsHandles {
    pub out: ::cuda_graph::buffer::BufMut<u32>,
    pub t: ::cuda_graph::buffer::BufMut<u32>,
    pub u: ::cuda_graph::buffer::BufMut<u32>,
}
///The arguments of kernel `fill` in [`Temps`], as its nodes take them.
type TempsFillArgs = (::cuda_graph::buffer::BufMut<u32>, u32);
///The view of a node of [`Temps`] launching kernel `fill`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct TempsFillView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, TempsFillArgs, ::cuda_graph::node::OnExec>,
);
///The arguments of kernel `mix` in [`Temps`], as its nodes take them.
type TempsMixArgs = (
    ::cuda_graph::buffer::Buf<u32>,
    ::cuda_graph::buffer::Buf<u32>,
    ::cuda_graph::buffer::BufMut<u32>,
    u32,
);
///The view of a node of [`Temps`] launching kernel `mix`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct TempsMixView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, TempsMixArgs, ::cuda_graph::node::OnExec>,
);
const _: () = {
    use ::cuda_graph as __cg;
    use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
    pub struct __CgInputs<'a> {
        b_out: __cg::buffer::BufMut<u32>,
        p_n: u32,
        b_t: __cg::buffer::BufMut<u32>,
        b_u: __cg::buffer::BufMut<u32>,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    pub struct __CgNodes {
        n0: ::std::vec::Vec<__cg::node::MemAllocNode<u32>>,
        n1: __cg::__private::Kernels<TempsFillArgs>,
        n2: __cg::__private::Kernels<TempsMixArgs>,
        n3: ::std::vec::Vec<__cg::node::MemFreeNode>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> __cg::__private::Generated<'a> for Temps<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl TempsNodes {
        ///The handle of node `ft`.
        pub fn ft(&self) -> __cg::node::KernelNode<TempsFillArgs> {
            self.__cg.n1[0]
        }
        ///The handle of node `fu`.
        pub fn fu(&self) -> __cg::node::KernelNode<TempsFillArgs> {
            self.__cg.n1[1]
        }
        ///The handle of node `m`.
        pub fn m(&self) -> __cg::node::KernelNode<TempsMixArgs> {
            self.__cg.n2[0]
        }
        ///The handle of node `alloc_t`.
        pub fn alloc_t(&self) -> __cg::node::MemAllocNode<u32> {
            self.__cg.n0[0]
        }
        ///The handle of node `free_t`.
        pub fn free_t(&self) -> __cg::node::MemFreeNode {
            self.__cg.n3[1]
        }
        ///The handle of node `alloc_u`.
        pub fn alloc_u(&self) -> __cg::node::MemAllocNode<u32> {
            self.__cg.n0[1]
        }
        ///The handle of node `free_u`.
        pub fn free_u(&self) -> __cg::node::MemFreeNode {
            self.__cg.n3[0]
        }
    }
    impl<'a> Temps<'a> {
        /// The graph as DOT text, computed at compile time.
        pub const DOT: &'static str = "digraph \"Temps\" {\n  rankdir=TB;\n  \"ft\" [label=\"ft\\nkernel\", shape=box];\n  \"fu\" [label=\"fu\\nkernel\", shape=box];\n  \"m\" [label=\"m\\nkernel\", shape=box];\n  \"alloc_t\" [label=\"alloc_t\\nmem alloc\", shape=invtrapezium];\n  \"free_t\" [label=\"free_t\\nmem free\", shape=trapezium];\n  \"alloc_u\" [label=\"alloc_u\\nmem alloc\", shape=invtrapezium];\n  \"free_u\" [label=\"free_u\\nmem free\", shape=trapezium];\n  \"ft\" -> \"m\";\n  \"fu\" -> \"m\";\n  \"alloc_t\" -> \"ft\";\n  \"m\" -> \"free_t\";\n  \"alloc_u\" -> \"fu\";\n  \"m\" -> \"free_u\";\n  \"free_u\" -> \"free_t\";\n}\n";
        /// The kernels' CUDA C prototypes, as declared here.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void fill(unsigned int* y, unsigned int n);\nextern \"C\" __global__ void mix(const unsigned int* a, const unsigned int* b, unsigned int* out, unsigned int n);\n";
        /// The temporaries: name, element type and length, as written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[
            ("t", "u32", "n"),
            ("u", "u32", "2 * n"),
        ];
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &__cg::Module,
            inputs: TempsInputs<'a>,
        ) -> __cg::Result<Self> {
            let mut __cg_g = __cg::Graph::new(__cg_module.context())?.with_name("Temps");
            let __cg_args = TempsChild {
                out: __cg_g.bind_mut(inputs.out)?,
                n: inputs.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let (__cg_graph, __cg) = Self::__cg_new(__cg_g, __cg_module, __cg_args)?;
            ::core::result::Result::Ok(Self { __cg_graph, __cg })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> __cg::Result<TempsExec<'a>, __cg::error::InstantiateError> {
            self.instantiate_with(__cg::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: __cg::exec::Instantiate<'_>,
        ) -> __cg::Result<TempsExec<'a>, __cg::error::InstantiateError> {
            let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
            ::core::result::Result::Ok(TempsExec {
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
            args: TempsChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, TempsNodes)> {
            let (g, st) = Self::__cg_new(parent.child_graph()?, module, args)?;
            ::core::result::Result::Ok((g, TempsNodes { __cg: st.nodes }))
        }
        /// Adds every node to `__cg_g`, from the inputs the graph was given.
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_new(
            mut __cg_g: __cg::Graph<'a>,
            __cg_module: &__cg::Module,
            __cg_args: TempsChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, __CgState<'a>)> {
            let mut __cg_s = __CgInputs {
                b_out: __cg_args.out,
                p_n: __cg_args.n,
                b_t: __cg::buffer::BufMut::unset(),
                b_u: __cg::buffer::BufMut::unset(),
                __cg_borrow: ::core::marker::PhantomData,
            };
            __cg_g.reserve(7, 3, 7);
            let mut n0 = ::std::vec::Vec::with_capacity(2);
            let mut n1 = __cg_module.kernels("fill", 2)?;
            let mut n2 = __cg_module.kernels("mix", 1)?;
            let mut n3 = ::std::vec::Vec::with_capacity(2);
            n0.push({
                let (__cg_n, __cg_t) = __cg_g
                    .add_mem_alloc::<u32>("alloc_t", &[], __cg_s.node0(0))?;
                __cg_s.b_t = __cg_t;
                __cg_n
            });
            n1.add(&mut __cg_g, &[("ft", &[0u32])], |j| __cg_s.node1(j))?;
            n0.push({
                let (__cg_n, __cg_t) = __cg_g
                    .add_mem_alloc::<u32>("alloc_u", &[], __cg_s.node0(1))?;
                __cg_s.b_u = __cg_t;
                __cg_n
            });
            n1.add(&mut __cg_g, &[("fu", &[2u32])], |j| __cg_s.node1(j))?;
            n2.add(&mut __cg_g, &[("m", &[1u32, 3u32])], |j| __cg_s.node2(j))?;
            n3.push(__cg_g.add_mem_free("free_u", &[&n2[0]], __cg_s.b_u)?);
            n3.push(__cg_g.add_mem_free("free_t", &[&n2[0], &n3[0]], __cg_s.b_t)?);
            let nodes = __CgNodes { n0, n1, n2, n3 };
            ::core::result::Result::Ok((__cg_g, __CgState { inputs: __cg_s, nodes }))
        }
    }
    #[allow(unused_variables, unreachable_patterns, clippy::all)]
    impl<'a> __CgInputs<'a> {
        fn node0(&self, __cg_j: usize) -> usize {
            let __cg_s = self;
            match __cg_j {
                0usize => {
                    let n = __cg_s.p_n;
                    (n) as usize
                }
                1usize => {
                    let n = __cg_s.p_n;
                    (2 * n) as usize
                }
                _ => ::core::unreachable!(),
            }
        }
        fn node1(&self, __cg_j: usize) -> (__cg::LaunchConfig, TempsFillArgs) {
            let __cg_s = self;
            match __cg_j {
                0usize => {
                    let n = __cg_s.p_n;
                    (__cg::__private::config(1, 32, 0), (__cg_s.b_t, n))
                }
                1usize => {
                    let n = __cg_s.p_n;
                    (__cg::__private::config(1, 32, 0), (__cg_s.b_u, n))
                }
                _ => ::core::unreachable!(),
            }
        }
        fn node2(&self, __cg_j: usize) -> (__cg::LaunchConfig, TempsMixArgs) {
            let __cg_s = self;
            let n = __cg_s.p_n;
            (
                __cg::__private::config(1, 32, 0),
                (__cg_s.b_t.read(), __cg_s.b_u.read(), __cg_s.b_out, n),
            )
        }
    }
    __cg::__private::deref!(
        impl < 'a > TempsExec < 'a > => __cg::GraphExec < 'a >, __cg_exec
    );
    impl<'a> __cg::__private::Resend for TempsExec<'a> {
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn resend(&mut self, g: usize, j: usize, cfg: bool) -> __cg::error::EditResult {
            let (e, st) = (&mut self.__cg_exec, &mut self.__cg);
            match g {
                0 => e.node(st.nodes.n0[j])?.send_again(st.inputs.node0(j), cfg),
                1 => e.node(st.nodes.n1[j])?.send_again(st.inputs.node1(j), cfg),
                2 => e.node(st.nodes.n2[j])?.send_again(st.inputs.node2(j), cfg),
                _ => ::core::unreachable!(),
            }
        }
        fn users(input: usize) -> &'static __cg::__private::Users {
            match input {
                0 => &[(2, 0..1, false)],
                1 => &[(0, 0..2, false), (1, 0..2, false), (2, 0..1, false)],
                2 => &[(1, 0..1, false), (2, 0..1, false)],
                3 => &[(1, 1..2, false), (2, 0..1, false)],
                _ => &[],
            }
        }
    }
    impl<'a> TempsExec<'a> {
        /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
        pub fn into_inner(self) -> __cg::GraphExec<'a> {
            self.__cg_exec
        }
        /// The handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> TempsHandles {
            TempsHandles {
                out: self.__cg.inputs.b_out,
                t: self.__cg.inputs.b_t,
                u: self.__cg.inputs.b_u,
            }
        }
        ///Buffer `out`, for cudarc calls between launches.
        pub fn out(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<u32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_out)
        }
        ///Buffer `out`, writable (a view), e.g. to upload new input.
        pub fn out_mut(
            &mut self,
        ) -> __cg::error::AccessResult<__cg::buffer::CudaViewMut<'_, u32>> {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_out)
        }
        ///Binds another buffer as `out` and re-points every node that uses it. On failure nothing changes.
        pub fn set_out(
            &mut self,
            buffer: &'a mut __cg::buffer::CudaSlice<u32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 0, |e| e.__cg.inputs.b_out, buffer)
        }
        ///The current value of param `n`.
        pub fn n(&self) -> u32 {
            self.__cg.inputs.p_n
        }
        ///Sets param `n` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_n(&mut self, value: u32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 1, |e| &mut e.__cg.inputs.p_n, value)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > TempsFillView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        TempsFillArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> TempsFillView<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            v: __cg::buffer::BufMut<u32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > TempsMixView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        TempsMixArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> TempsMixView<'v, 'a> {
        ///Sets kernel parameter `a` of this node only.
        pub fn set_a(&mut self, v: __cg::buffer::Buf<u32>) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `b` of this node only.
        pub fn set_b(&mut self, v: __cg::buffer::Buf<u32>) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
        ///Sets kernel parameter `out` of this node only.
        pub fn set_out(
            &mut self,
            v: __cg::buffer::BufMut<u32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<2>(v)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<3>(v)
        }
    }
    impl<'a> TempsExec<'a> {
        ///The view of node `ft`: its typed setters.
        pub fn ft(&mut self) -> __cg::error::EditResult<TempsFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n1[0]).map(TempsFillView)
        }
        ///The view of node `fu`: its typed setters.
        pub fn fu(&mut self) -> __cg::error::EditResult<TempsFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n1[1]).map(TempsFillView)
        }
        ///The view of node `m`: its typed setters.
        pub fn m(&mut self) -> __cg::error::EditResult<TempsMixView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n2[0]).map(TempsMixView)
        }
    }
};
