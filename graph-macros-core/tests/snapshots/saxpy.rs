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
pub struct SaxpyChild<'a> {
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
    #[doc(hidden)]
    pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
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
///The executable [`Saxpy`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).
pub struct SaxpyExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Saxpy<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The handles of the buffers bound to a [`SaxpyExec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).
#[derive(Clone, Copy, Debug)]
pub struct SaxpyHandles {
    pub x: ::cuda_graph::buffer::Buf<f32>,
    pub y: ::cuda_graph::buffer::BufMut<f32>,
    pub total: ::cuda_graph::buffer::BufMut<f32>,
}
///The arguments of kernel `saxpy` in [`Saxpy`], as its nodes take them.
pub type SaxpySaxpyArgs = (
    f32,
    ::cuda_graph::buffer::Buf<f32>,
    ::cuda_graph::buffer::BufMut<f32>,
    u32,
);
///The view of a node of [`Saxpy`] launching kernel `saxpy`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
pub struct SaxpySaxpyView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, SaxpySaxpyArgs, ::cuda_graph::node::OnExec>,
);
///The arguments of kernel `sum` in [`Saxpy`], as its nodes take them.
pub type SaxpySumArgs = (
    ::cuda_graph::buffer::Buf<f32>,
    ::cuda_graph::buffer::BufMut<f32>,
    u32,
);
///The view of a node of [`Saxpy`] launching kernel `sum`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
pub struct SaxpySumView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, SaxpySumArgs, ::cuda_graph::node::OnExec>,
);
const _: () = {
    use ::cuda_graph as __cg;
    use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
    pub struct __CgInputs<'a> {
        b_x: __cg::buffer::Buf<f32>,
        b_y: __cg::buffer::BufMut<f32>,
        b_total: __cg::buffer::BufMut<f32>,
        p_a: f32,
        p_n: u32,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    pub struct __CgNodes {
        n0: ::std::vec::Vec<__cg::node::MemsetNode<f32>>,
        n1: __cg::__private::Kernels<SaxpySaxpyArgs>,
        n2: __cg::__private::Kernels<SaxpySumArgs>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> __cg::__private::Generated<'a> for Saxpy<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl SaxpyNodes {
        ///The handle of node `clear`.
        pub fn clear(&self) -> __cg::node::MemsetNode<f32> {
            self.__cg.n0[0]
        }
        ///The handle of node `step`.
        pub fn step(&self) -> __cg::node::KernelNode<SaxpySaxpyArgs> {
            self.__cg.n1[0]
        }
        ///The handle of node `reduce`.
        pub fn reduce(&self) -> __cg::node::KernelNode<SaxpySumArgs> {
            self.__cg.n2[0]
        }
    }
    impl<'a> Saxpy<'a> {
        /// The graph as DOT text, computed at compile time.
        pub const DOT: &'static str = "digraph \"Saxpy\" {\n  rankdir=TB;\n  \"clear\" [label=\"clear\\nmemset\", shape=parallelogram];\n  \"step\" [label=\"step\\nkernel\", shape=box];\n  \"reduce\" [label=\"reduce\\nkernel\", shape=box];\n  \"step\" -> \"reduce\";\n  \"clear\" -> \"reduce\";\n}\n";
        /// The kernels' CUDA C prototypes, as declared here.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void saxpy(float a, const float* x, float* y, unsigned int n);\nextern \"C\" __global__ void sum(const float* y, float* total, unsigned int n);\n";
        /// The temporaries: name, element type and length, as written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &__cg::Module,
            inputs: SaxpyInputs<'a>,
        ) -> __cg::Result<Self> {
            let mut __cg_g = __cg::Graph::new(__cg_module.context())?.with_name("Saxpy");
            let __cg_args = SaxpyChild {
                x: __cg_g.bind(inputs.x)?,
                y: __cg_g.bind_mut(inputs.y)?,
                total: __cg_g.bind_mut(inputs.total)?,
                a: inputs.a,
                n: inputs.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let (__cg_graph, __cg) = Self::__cg_new(__cg_g, __cg_module, __cg_args)?;
            ::core::result::Result::Ok(Self { __cg_graph, __cg })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> __cg::Result<SaxpyExec<'a>, __cg::error::InstantiateError> {
            self.instantiate_with(__cg::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: __cg::exec::Instantiate<'_>,
        ) -> __cg::Result<SaxpyExec<'a>, __cg::error::InstantiateError> {
            let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
            ::core::result::Result::Ok(SaxpyExec {
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
            args: SaxpyChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, SaxpyNodes)> {
            let (g, st) = Self::__cg_new(parent.child_graph()?, module, args)?;
            ::core::result::Result::Ok((g, SaxpyNodes { __cg: st.nodes }))
        }
        /// Adds every node to `__cg_g`, from the inputs the graph was given.
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_new(
            mut __cg_g: __cg::Graph<'a>,
            __cg_module: &__cg::Module,
            __cg_args: SaxpyChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, __CgState<'a>)> {
            let mut __cg_s = __CgInputs {
                b_x: __cg_args.x,
                b_y: __cg_args.y,
                b_total: __cg_args.total,
                p_a: __cg_args.a,
                p_n: __cg_args.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            __cg_g.reserve(3, 2, 2);
            let mut n0 = ::std::vec::Vec::with_capacity(1);
            let mut n1 = __cg_module.kernels("saxpy", 1)?;
            let mut n2 = __cg_module.kernels("sum", 1)?;
            n0.push(__cg_g.add_fill("clear", &[], __cg_s.node0(0))?);
            n1.add(&mut __cg_g, &[("step", &[])], |j| __cg_s.node1(j))?;
            n2.add(&mut __cg_g, &[("reduce", &[1u32, 0u32])], |j| __cg_s.node2(j))?;
            let nodes = __CgNodes { n0, n1, n2 };
            ::core::result::Result::Ok((__cg_g, __CgState { inputs: __cg_s, nodes }))
        }
    }
    #[allow(unused_variables, unreachable_patterns, clippy::all)]
    impl<'a> __CgInputs<'a> {
        fn node0(&self, __cg_j: usize) -> (__cg::buffer::BufMut<f32>, f32) {
            let __cg_s = self;
            (__cg_s.b_total, 0.0)
        }
        fn node1(&self, __cg_j: usize) -> (__cg::LaunchConfig, SaxpySaxpyArgs) {
            let __cg_s = self;
            let a = __cg_s.p_a;
            let n = __cg_s.p_n;
            (
                __cg::__private::config(n.div_ceil(256), 256, 0),
                (a, __cg_s.b_x, __cg_s.b_y, n),
            )
        }
        fn node2(&self, __cg_j: usize) -> (__cg::LaunchConfig, SaxpySumArgs) {
            let __cg_s = self;
            let n = __cg_s.p_n;
            (__cg::__private::config(1, 1, 0), (__cg_s.b_y.read(), __cg_s.b_total, n))
        }
    }
    __cg::__private::deref!(
        impl < 'a > SaxpyExec < 'a > => __cg::GraphExec < 'a >, __cg_exec
    );
    impl<'a> __cg::__private::Resend for SaxpyExec<'a> {
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
                0 => &[(1, 0..1, false)],
                1 => &[(1, 0..1, false), (2, 0..1, false)],
                2 => &[(0, 0..1, false), (2, 0..1, false)],
                3 => &[(1, 0..1, false)],
                4 => &[(1, 0..1, true), (2, 0..1, false)],
                _ => &[],
            }
        }
    }
    impl<'a> SaxpyExec<'a> {
        /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
        pub fn into_inner(self) -> __cg::GraphExec<'a> {
            self.__cg_exec
        }
        /// The handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> SaxpyHandles {
            SaxpyHandles {
                x: self.__cg.inputs.b_x,
                y: self.__cg.inputs.b_y,
                total: self.__cg.inputs.b_total,
            }
        }
        ///Buffer `x`, for cudarc calls between launches.
        pub fn x(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<f32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_x)
        }
        ///Binds another buffer as `x` and re-points every node that uses it. On failure nothing changes.
        pub fn set_x(
            &mut self,
            buffer: &'a __cg::buffer::CudaSlice<f32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 0, |e| e.__cg.inputs.b_x, buffer)
        }
        ///Buffer `y`, for cudarc calls between launches.
        pub fn y(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<f32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_y)
        }
        ///Buffer `y`, writable (a view), e.g. to upload new input.
        pub fn y_mut(
            &mut self,
        ) -> __cg::error::AccessResult<__cg::buffer::CudaViewMut<'_, f32>> {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_y)
        }
        ///Binds another buffer as `y` and re-points every node that uses it. On failure nothing changes.
        pub fn set_y(
            &mut self,
            buffer: &'a mut __cg::buffer::CudaSlice<f32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 1, |e| e.__cg.inputs.b_y, buffer)
        }
        ///Buffer `total`, for cudarc calls between launches.
        pub fn total(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<f32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_total)
        }
        ///Buffer `total`, writable (a view), e.g. to upload new input.
        pub fn total_mut(
            &mut self,
        ) -> __cg::error::AccessResult<__cg::buffer::CudaViewMut<'_, f32>> {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_total)
        }
        ///Binds another buffer as `total` and re-points every node that uses it. On failure nothing changes.
        pub fn set_total(
            &mut self,
            buffer: &'a mut __cg::buffer::CudaSlice<f32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 2, |e| e.__cg.inputs.b_total, buffer)
        }
        ///The current value of param `a`.
        pub fn a(&self) -> f32 {
            self.__cg.inputs.p_a
        }
        ///Sets param `a` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_a(&mut self, value: f32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 3, |e| &mut e.__cg.inputs.p_a, value)
        }
        ///The current value of param `n`.
        pub fn n(&self) -> u32 {
            self.__cg.inputs.p_n
        }
        ///Sets param `n` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_n(&mut self, value: u32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 4, |e| &mut e.__cg.inputs.p_n, value)
        }
        ///The view of node `clear`: its typed setters.
        pub fn clear(
            &mut self,
        ) -> __cg::error::EditResult<
            __cg::node::MemsetMut<'_, 'a, f32, __cg::node::OnExec>,
        > {
            self.__cg_exec.node(self.__cg.nodes.n0[0])
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > SaxpySaxpyView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        SaxpySaxpyArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> SaxpySaxpyView<'v, 'a> {
        ///Sets kernel parameter `a` of this node only.
        pub fn set_a(&mut self, v: f32) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `x` of this node only.
        pub fn set_x(&mut self, v: __cg::buffer::Buf<f32>) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            v: __cg::buffer::BufMut<f32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<2>(v)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<3>(v)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > SaxpySumView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        SaxpySumArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> SaxpySumView<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(&mut self, v: __cg::buffer::Buf<f32>) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `total` of this node only.
        pub fn set_total(
            &mut self,
            v: __cg::buffer::BufMut<f32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<2>(v)
        }
    }
    impl<'a> SaxpyExec<'a> {
        ///The view of node `step`: its typed setters.
        pub fn step(&mut self) -> __cg::error::EditResult<SaxpySaxpyView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n1[0]).map(SaxpySaxpyView)
        }
        ///The view of node `reduce`: its typed setters.
        pub fn reduce(&mut self) -> __cg::error::EditResult<SaxpySumView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n2[0]).map(SaxpySumView)
        }
    }
};
