///The inputs of the [`Cond`] graph: the buffers it borrows, its params, callbacks and events.
struct CondInputs<'a> {
    ///a buffer `count`.
    pub count: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a buffer `y`.
    pub y: &'a mut ::cuda_graph::cudarc::driver::CudaSlice<u32>,
    ///a param `by`.
    pub by: u32,
}
///The inputs of [`Cond`] used as a child graph (`child(Cond { ... })`): buffer handles of the parent, constant params, callbacks and events.
struct CondChild<'a> {
    ///a buffer `count`.
    pub count: ::cuda_graph::buffer::BufMut<u32>,
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<u32>,
    ///a param `by`.
    pub by: u32,
    #[doc(hidden)]
    pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
}
///The node handles of a [`Cond`] graph built as a child of another (`child(Cond { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct CondNodes {
    __cg: <Cond<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Cond<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Cond<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Cond`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).
struct CondExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Cond<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The handles of the buffers bound to a [`CondExec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).
#[derive(Clone, Copy, Debug)]
struct CondHandles {
    pub count: ::cuda_graph::buffer::BufMut<u32>,
    pub y: ::cuda_graph::buffer::BufMut<u32>,
}
///The arguments of kernel `step` in [`Cond`], as its nodes take them.
type CondStepArgs = (::cuda_graph::buffer::BufMut<u32>, u32, Cond);
///The view of a node of [`Cond`] launching kernel `step`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct CondStepView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, CondStepArgs, ::cuda_graph::node::OnExec>,
);
///The arguments of kernel `decide` in [`Cond`], as its nodes take them.
type CondDecideArgs = (::cuda_graph::buffer::Buf<u32>, Cond);
///The view of a node of [`Cond`] launching kernel `decide`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct CondDecideView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, CondDecideArgs, ::cuda_graph::node::OnExec>,
);
///The arguments of kernel `fill` in [`Cond`], as its nodes take them.
type CondFillArgs = (::cuda_graph::buffer::BufMut<u32>, u32);
///The view of a node of [`Cond`] launching kernel `fill`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct CondFillView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, CondFillArgs, ::cuda_graph::node::OnExec>,
);
const _: () = {
    use ::cuda_graph as __cg;
    use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
    pub struct __CgInputs<'a> {
        b_count: __cg::buffer::BufMut<u32>,
        b_y: __cg::buffer::BufMut<u32>,
        p_by: u32,
        q_again: __cg::kernel::Cond,
        q_odd: __cg::kernel::Cond,
        q_pick: __cg::kernel::Cond,
        q_which: __cg::kernel::Cond,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    pub struct __CgNodes {
        n0: __cg::__private::Kernels<CondFillArgs>,
        n1: ::std::vec::Vec<__cg::node::CondNode>,
        n2: __cg::__private::Kernels<CondStepArgs>,
        n3: __cg::__private::Kernels<CondDecideArgs>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> __cg::__private::Generated<'a> for Cond<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl CondNodes {
        ///The handle of node `init`.
        pub fn init(&self) -> __cg::node::KernelNode<CondFillArgs> {
            self.__cg.n0[0]
        }
        ///The handle of node `run`.
        pub fn run(&self) -> __cg::node::CondNode {
            self.__cg.n1[0]
        }
        ///The handle of node `up`.
        pub fn up(&self) -> __cg::node::KernelNode<CondStepArgs> {
            self.__cg.n2[0]
        }
        ///The handle of node `test`.
        pub fn test(&self) -> __cg::node::KernelNode<CondDecideArgs> {
            self.__cg.n3[0]
        }
        ///The handle of node `bump`.
        pub fn bump(&self) -> __cg::node::CondNode {
            self.__cg.n1[1]
        }
        ///The handle of node `mark`.
        pub fn mark(&self) -> __cg::node::KernelNode<CondFillArgs> {
            self.__cg.n0[1]
        }
        ///The handle of node `choose`.
        pub fn choose(&self) -> __cg::node::KernelNode<CondDecideArgs> {
            self.__cg.n3[1]
        }
        ///The handle of node `branch`.
        pub fn branch(&self) -> __cg::node::CondNode {
            self.__cg.n1[2]
        }
        ///The handle of node `a`.
        pub fn a(&self) -> __cg::node::KernelNode<CondFillArgs> {
            self.__cg.n0[2]
        }
        ///The handle of node `b`.
        pub fn b(&self) -> __cg::node::KernelNode<CondFillArgs> {
            self.__cg.n0[3]
        }
        ///The handle of node `sel`.
        pub fn sel(&self) -> __cg::node::KernelNode<CondDecideArgs> {
            self.__cg.n3[2]
        }
        ///The handle of node `cases`.
        pub fn cases(&self) -> __cg::node::CondNode {
            self.__cg.n1[3]
        }
        ///The handle of node `c0`.
        pub fn c0(&self) -> __cg::node::KernelNode<CondFillArgs> {
            self.__cg.n0[4]
        }
        ///The handle of node `c1`.
        pub fn c1(&self) -> __cg::node::KernelNode<CondFillArgs> {
            self.__cg.n0[5]
        }
    }
    impl<'a> Cond<'a> {
        /// The graph as DOT text, computed at compile time.
        pub const DOT: &'static str = "digraph \"Cond\" {\n  rankdir=TB;\n  \"init\" [label=\"init\\nkernel\", shape=box];\n  \"run\" [label=\"run\\nconditional\", shape=hexagon];\n  \"choose\" [label=\"choose\\nkernel\", shape=box];\n  \"branch\" [label=\"branch\\nconditional\", shape=hexagon];\n  \"sel\" [label=\"sel\\nkernel\", shape=box];\n  \"cases\" [label=\"cases\\nconditional\", shape=hexagon];\n  subgraph \"cluster_1\" {\n    label=\"run: while\";\n    style=rounded;\n    \"up\" [label=\"up\\nkernel\", shape=box];\n    \"test\" [label=\"test\\nkernel\", shape=box];\n    \"bump\" [label=\"bump\\nconditional\", shape=hexagon];\n    subgraph \"cluster_2\" {\n      label=\"bump: if\";\n      style=rounded;\n      \"mark\" [label=\"mark\\nkernel\", shape=box];\n    }\n  }\n  subgraph \"cluster_3\" {\n    label=\"branch: then\";\n    style=rounded;\n    \"a\" [label=\"a\\nkernel\", shape=box];\n  }\n  subgraph \"cluster_4\" {\n    label=\"branch: else\";\n    style=rounded;\n    \"b\" [label=\"b\\nkernel\", shape=box];\n  }\n  subgraph \"cluster_5\" {\n    label=\"cases: case 0\";\n    style=rounded;\n    \"c0\" [label=\"c0\\nkernel\", shape=box];\n  }\n  subgraph \"cluster_6\" {\n    label=\"cases: case 1\";\n    style=rounded;\n    \"c1\" [label=\"c1\\nkernel\", shape=box];\n  }\n  \"up\" -> \"test\";\n  \"test\" -> \"bump\";\n  \"init\" -> \"run\";\n  \"run\" -> \"choose\";\n  \"choose\" -> \"branch\";\n  \"branch\" -> \"sel\";\n  \"sel\" -> \"cases\";\n}\n";
        /// The kernels' CUDA C prototypes, as declared here.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void step(unsigned int* count, unsigned int by, cudaGraphConditionalHandle again);\nextern \"C\" __global__ void decide(const unsigned int* v, cudaGraphConditionalHandle c);\nextern \"C\" __global__ void fill(unsigned int* y, unsigned int v);\n";
        /// The temporaries: name, element type and length, as written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &__cg::Module,
            inputs: CondInputs<'a>,
        ) -> __cg::Result<Self> {
            let mut __cg_g = __cg::Graph::new(__cg_module.context())?.with_name("Cond");
            let __cg_args = CondChild {
                count: __cg_g.bind_mut(inputs.count)?,
                y: __cg_g.bind_mut(inputs.y)?,
                by: inputs.by,
                __cg_borrow: ::core::marker::PhantomData,
            };
            let (__cg_graph, __cg) = Self::__cg_new(__cg_g, __cg_module, __cg_args)?;
            ::core::result::Result::Ok(Self { __cg_graph, __cg })
        }
        /// Makes the executable graph.
        pub fn instantiate(
            self,
        ) -> __cg::Result<CondExec<'a>, __cg::error::InstantiateError> {
            self.instantiate_with(__cg::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: __cg::exec::Instantiate<'_>,
        ) -> __cg::Result<CondExec<'a>, __cg::error::InstantiateError> {
            let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
            ::core::result::Result::Ok(CondExec {
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
            args: CondChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, CondNodes)> {
            let (g, st) = Self::__cg_new(parent.child_graph()?, module, args)?;
            ::core::result::Result::Ok((g, CondNodes { __cg: st.nodes }))
        }
        /// Adds every node to `__cg_g`, from the inputs the graph was given.
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_new(
            mut __cg_g: __cg::Graph<'a>,
            __cg_module: &__cg::Module,
            __cg_args: CondChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, __CgState<'a>)> {
            let mut __cg_s = __CgInputs {
                b_count: __cg_args.count,
                b_y: __cg_args.y,
                p_by: __cg_args.by,
                q_again: __cg::kernel::Cond::unset(),
                q_odd: __cg::kernel::Cond::unset(),
                q_pick: __cg::kernel::Cond::unset(),
                q_which: __cg::kernel::Cond::unset(),
                __cg_borrow: ::core::marker::PhantomData,
            };
            let __cg_d0: u32 = 1;
            let __cg_d1: u32 = 0;
            let __cg_d2: u32 = 0;
            let __cg_d3: u32 = 0;
            let mut __cg_b1: u32 = 0;
            let mut __cg_b2: u32 = 0;
            let mut __cg_b3: u32 = 0;
            let mut __cg_b4: u32 = 0;
            let mut __cg_b5: u32 = 0;
            let mut __cg_b6: u32 = 0;
            __cg_g.reserve(14, 10, 7);
            let mut n0 = __cg_module.kernels("fill", 6)?;
            let mut n1 = ::std::vec::Vec::with_capacity(4);
            let mut n2 = __cg_module.kernels("step", 1)?;
            let mut n3 = __cg_module.kernels("decide", 3)?;
            n0.add(&mut __cg_g, &[("init", &[])], |j| __cg_s.node0(j))?;
            __cg_s.q_again = __cg_g.add_condition(__cg_d0)?;
            n1.push({
                let (__cg_n, __cg_body) = __cg_g
                    .add_while("run", &[&n0[0]], __cg_s.q_again)?;
                __cg_b1 = __cg_body.scope();
                __cg_n
            });
            __cg_g.enter_scope(__cg_b1);
            n2.add(&mut __cg_g, &[("up", &[])], |j| __cg_s.node2(j))?;
            __cg_s.q_odd = __cg_g.add_condition(__cg_d1)?;
            n3.add(&mut __cg_g, &[("test", &[2u32])], |j| __cg_s.node3(j))?;
            n1.push({
                let (__cg_n, __cg_body) = __cg_g
                    .add_if("bump", &[&n3[0]], __cg_s.q_odd)?;
                __cg_b2 = __cg_body.scope();
                __cg_n
            });
            __cg_g.enter_scope(__cg_b2);
            n0.add(&mut __cg_g, &[("mark", &[])], |j| __cg_s.node0(j))?;
            __cg_g.enter_scope(0u32);
            __cg_s.q_pick = __cg_g.add_condition(__cg_d2)?;
            n3.add(&mut __cg_g, &[("choose", &[1u32])], |j| __cg_s.node3(j))?;
            n1.push({
                let (__cg_n, [__cg_then, __cg_else]) = __cg_g
                    .add_if_else("branch", &[&n3[1]], __cg_s.q_pick)?;
                __cg_b3 = __cg_then.scope();
                __cg_b4 = __cg_else.scope();
                __cg_n
            });
            __cg_g.enter_scope(__cg_b3);
            n0.add(&mut __cg_g, &[("a", &[])], |j| __cg_s.node0(j))?;
            __cg_g.enter_scope(__cg_b4);
            n0.add(&mut __cg_g, &[("b", &[])], |j| __cg_s.node0(j))?;
            __cg_g.enter_scope(0u32);
            __cg_s.q_which = __cg_g.add_condition(__cg_d3)?;
            n3.add(&mut __cg_g, &[("sel", &[7u32])], |j| __cg_s.node3(j))?;
            n1.push({
                let (__cg_n, __cg_cases) = __cg_g
                    .add_switch("cases", &[&n3[2]], __cg_s.q_which, 2u32)?;
                __cg_b5 = __cg_cases[0usize].scope();
                __cg_b6 = __cg_cases[1usize].scope();
                __cg_n
            });
            __cg_g.enter_scope(__cg_b5);
            n0.add(&mut __cg_g, &[("c0", &[])], |j| __cg_s.node0(j))?;
            __cg_g.enter_scope(__cg_b6);
            n0.add(&mut __cg_g, &[("c1", &[])], |j| __cg_s.node0(j))?;
            __cg_g.enter_scope(0u32);
            let nodes = __CgNodes { n0, n1, n2, n3 };
            ::core::result::Result::Ok((__cg_g, __CgState { inputs: __cg_s, nodes }))
        }
    }
    #[allow(unused_variables, unreachable_patterns, clippy::all)]
    impl<'a> __CgInputs<'a> {
        fn node0(&self, __cg_j: usize) -> (__cg::LaunchConfig, CondFillArgs) {
            let __cg_s = self;
            match __cg_j {
                0usize => {
                    (
                        __cg::__private::config(1, 32, 0),
                        (
                            __cg_s.b_count,
                            {
                                let __cg_v: u32 = 0;
                                __cg_v
                            },
                        ),
                    )
                }
                1usize => {
                    (
                        __cg::__private::config(1, 32, 0),
                        (
                            __cg_s.b_y,
                            {
                                let __cg_v: u32 = 1;
                                __cg_v
                            },
                        ),
                    )
                }
                2usize => {
                    (
                        __cg::__private::config(1, 32, 0),
                        (
                            __cg_s.b_y,
                            {
                                let __cg_v: u32 = 2;
                                __cg_v
                            },
                        ),
                    )
                }
                3usize => {
                    (
                        __cg::__private::config(1, 32, 0),
                        (
                            __cg_s.b_y,
                            {
                                let __cg_v: u32 = 3;
                                __cg_v
                            },
                        ),
                    )
                }
                4usize => {
                    (
                        __cg::__private::config(1, 32, 0),
                        (
                            __cg_s.b_y,
                            {
                                let __cg_v: u32 = 4;
                                __cg_v
                            },
                        ),
                    )
                }
                5usize => {
                    let by = __cg_s.p_by;
                    (__cg::__private::config(1, 32, 0), (__cg_s.b_y, by))
                }
                _ => ::core::unreachable!(),
            }
        }
        fn node2(&self, __cg_j: usize) -> (__cg::LaunchConfig, CondStepArgs) {
            let __cg_s = self;
            let by = __cg_s.p_by;
            (__cg::__private::config(1, 1, 0), (__cg_s.b_count, by, __cg_s.q_again))
        }
        fn node3(&self, __cg_j: usize) -> (__cg::LaunchConfig, CondDecideArgs) {
            let __cg_s = self;
            match __cg_j {
                0usize => {
                    (
                        __cg::__private::config(1, 1, 0),
                        (__cg_s.b_count.read(), __cg_s.q_odd),
                    )
                }
                1usize => {
                    (
                        __cg::__private::config(1, 1, 0),
                        (__cg_s.b_count.read(), __cg_s.q_pick),
                    )
                }
                2usize => {
                    (
                        __cg::__private::config(1, 1, 0),
                        (__cg_s.b_count.read(), __cg_s.q_which),
                    )
                }
                _ => ::core::unreachable!(),
            }
        }
    }
    __cg::__private::deref!(
        impl < 'a > CondExec < 'a > => __cg::GraphExec < 'a >, __cg_exec
    );
    impl<'a> __cg::__private::Resend for CondExec<'a> {
        #[allow(unused_variables, unreachable_code, clippy::all)]
        fn resend(&mut self, g: usize, j: usize, cfg: bool) -> __cg::error::EditResult {
            let (e, st) = (&mut self.__cg_exec, &mut self.__cg);
            match g {
                0 => e.node(st.nodes.n0[j])?.send_again(st.inputs.node0(j), cfg),
                2 => e.node(st.nodes.n2[j])?.send_again(st.inputs.node2(j), cfg),
                3 => e.node(st.nodes.n3[j])?.send_again(st.inputs.node3(j), cfg),
                _ => ::core::unreachable!(),
            }
        }
        fn users(input: usize) -> &'static __cg::__private::Users {
            match input {
                0 => &[(0, 0..1, false), (2, 0..1, false), (3, 0..3, false)],
                1 => &[(0, 1..6, false)],
                2 => &[(0, 5..6, false), (2, 0..1, false)],
                _ => &[],
            }
        }
    }
    impl<'a> CondExec<'a> {
        /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
        pub fn into_inner(self) -> __cg::GraphExec<'a> {
            self.__cg_exec
        }
        /// The handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> CondHandles {
            CondHandles {
                count: self.__cg.inputs.b_count,
                y: self.__cg.inputs.b_y,
            }
        }
        ///Buffer `count`, for cudarc calls between launches.
        pub fn count(&self) -> __cg::error::AccessResult<&__cg::buffer::CudaSlice<u32>> {
            self.__cg_exec.buffer(self.__cg.inputs.b_count)
        }
        ///Buffer `count`, writable (a view), e.g. to upload new input.
        pub fn count_mut(
            &mut self,
        ) -> __cg::error::AccessResult<__cg::buffer::CudaViewMut<'_, u32>> {
            self.__cg_exec.buffer_mut(self.__cg.inputs.b_count)
        }
        ///Binds another buffer as `count` and re-points every node that uses it. On failure nothing changes.
        pub fn set_count(
            &mut self,
            buffer: &'a mut __cg::buffer::CudaSlice<u32>,
        ) -> __cg::error::EditResult {
            __cg::__private::rebind(self, 0, |e| e.__cg.inputs.b_count, buffer)
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
            __cg::__private::rebind(self, 1, |e| e.__cg.inputs.b_y, buffer)
        }
        ///The current value of param `by`.
        pub fn by(&self) -> u32 {
            self.__cg.inputs.p_by
        }
        ///Sets param `by` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_by(&mut self, value: u32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 2, |e| &mut e.__cg.inputs.p_by, value)
        }
        ///The view of node `run`: its typed setters.
        pub fn run(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::CondMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n1[0])
        }
        ///The view of node `bump`: its typed setters.
        pub fn bump(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::CondMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n1[1])
        }
        ///The view of node `branch`: its typed setters.
        pub fn branch(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::CondMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n1[2])
        }
        ///The view of node `cases`: its typed setters.
        pub fn cases(
            &mut self,
        ) -> __cg::error::EditResult<__cg::node::CondMut<'_, 'a, __cg::node::OnExec>> {
            self.__cg_exec.node(self.__cg.nodes.n1[3])
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > CondStepView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        CondStepArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> CondStepView<'v, 'a> {
        ///Sets kernel parameter `count` of this node only.
        pub fn set_count(
            &mut self,
            v: __cg::buffer::BufMut<u32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `by` of this node only.
        pub fn set_by(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
        ///Sets kernel parameter `again` of this node only.
        pub fn set_again(&mut self, v: Cond) -> __cg::error::EditResult {
            self.0.set_arg::<2>(v)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > CondDecideView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        CondDecideArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> CondDecideView<'v, 'a> {
        ///Sets kernel parameter `v` of this node only.
        pub fn set_v(&mut self, v: __cg::buffer::Buf<u32>) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `c` of this node only.
        pub fn set_c(&mut self, v: Cond) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > CondFillView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        CondFillArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> CondFillView<'v, 'a> {
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
    impl<'a> CondExec<'a> {
        ///The view of node `init`: its typed setters.
        pub fn init(&mut self) -> __cg::error::EditResult<CondFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[0]).map(CondFillView)
        }
        ///The view of node `up`: its typed setters.
        pub fn up(&mut self) -> __cg::error::EditResult<CondStepView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n2[0]).map(CondStepView)
        }
        ///The view of node `test`: its typed setters.
        pub fn test(&mut self) -> __cg::error::EditResult<CondDecideView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n3[0]).map(CondDecideView)
        }
        ///The view of node `mark`: its typed setters.
        pub fn mark(&mut self) -> __cg::error::EditResult<CondFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[1]).map(CondFillView)
        }
        ///The view of node `choose`: its typed setters.
        pub fn choose(&mut self) -> __cg::error::EditResult<CondDecideView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n3[1]).map(CondDecideView)
        }
        ///The view of node `a`: its typed setters.
        pub fn a(&mut self) -> __cg::error::EditResult<CondFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[2]).map(CondFillView)
        }
        ///The view of node `b`: its typed setters.
        pub fn b(&mut self) -> __cg::error::EditResult<CondFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[3]).map(CondFillView)
        }
        ///The view of node `sel`: its typed setters.
        pub fn sel(&mut self) -> __cg::error::EditResult<CondDecideView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n3[2]).map(CondDecideView)
        }
        ///The view of node `c0`: its typed setters.
        pub fn c0(&mut self) -> __cg::error::EditResult<CondFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[4]).map(CondFillView)
        }
        ///The view of node `c1`: its typed setters.
        pub fn c1(&mut self) -> __cg::error::EditResult<CondFillView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[5]).map(CondFillView)
        }
    }
};
