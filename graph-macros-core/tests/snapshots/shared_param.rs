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
struct SharedChild<'a> {
    ///a buffer `y`.
    pub y: ::cuda_graph::buffer::BufMut<f32>,
    ///a param `a`.
    pub a: f32,
    ///a param `n`.
    pub n: u32,
    #[doc(hidden)]
    pub __cg_borrow: ::core::marker::PhantomData<&'a ()>,
}
///The node handles of a [`Shared`] graph built as a child of another (`child(Shared { ... })`): one accessor per node, for the parent's `edit_<node>`.
struct SharedNodes {
    __cg: <Shared<'static> as ::cuda_graph::__private::Generated<'static>>::Nodes,
}
struct Shared<'a> {
    __cg_graph: ::cuda_graph::Graph<'a>,
    __cg: <Shared<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The executable [`Shared`] graph: launch it, and edit it live through the node views (`exec.node_name()`) and the graph-level setters (`exec.set_param(..)`). It derefs to the runtime's [`GraphExec`](cuda_graph::GraphExec) (`launch`, `synchronize`, `update`, ...).
struct SharedExec<'a> {
    __cg_exec: ::cuda_graph::GraphExec<'a>,
    __cg: <Shared<'a> as ::cuda_graph::__private::Generated<'a>>::State,
}
///The handles of the buffers bound to a [`SharedExec`], for node views' buffer setters (`exec.step()?.set_x(exec.handles().y)`).
#[derive(Clone, Copy, Debug)]
struct SharedHandles {
    pub y: ::cuda_graph::buffer::BufMut<f32>,
}
///The arguments of kernel `scale` in [`Shared`], as its nodes take them.
type SharedScaleArgs = (::cuda_graph::buffer::BufMut<f32>, f32, u32);
///The view of a node of [`Shared`] launching kernel `scale`: a setter per kernel parameter (`set_<param>`, this node only), and [`KernelMut`](cuda_graph::node::KernelMut)'s through `Deref`.
struct SharedScaleView<'v, 'a>(
    ::cuda_graph::node::KernelMut<'v, 'a, SharedScaleArgs, ::cuda_graph::node::OnExec>,
);
const _: () = {
    use ::cuda_graph as __cg;
    use ::cuda_graph::__private::{AddMade as _, ModuleKernels as _, SendAgain as _};
    pub struct __CgInputs<'a> {
        b_y: __cg::buffer::BufMut<f32>,
        p_a: f32,
        p_n: u32,
        __cg_borrow: ::core::marker::PhantomData<&'a ()>,
    }
    pub struct __CgNodes {
        n0: __cg::__private::Kernels<SharedScaleArgs>,
    }
    pub struct __CgState<'a> {
        inputs: __CgInputs<'a>,
        nodes: __CgNodes,
    }
    impl<'a> __cg::__private::Generated<'a> for Shared<'a> {
        type State = __CgState<'a>;
        type Nodes = __CgNodes;
    }
    impl SharedNodes {
        ///The handle of node `s0`.
        pub fn s0(&self) -> __cg::node::KernelNode<SharedScaleArgs> {
            self.__cg.n0[0]
        }
        ///The handle of node `s1`.
        pub fn s1(&self) -> __cg::node::KernelNode<SharedScaleArgs> {
            self.__cg.n0[1]
        }
        ///The handle of node `s2`.
        pub fn s2(&self) -> __cg::node::KernelNode<SharedScaleArgs> {
            self.__cg.n0[2]
        }
        ///The handle of node `s3`.
        pub fn s3(&self) -> __cg::node::KernelNode<SharedScaleArgs> {
            self.__cg.n0[3]
        }
    }
    impl<'a> Shared<'a> {
        /// The graph as DOT text, computed at compile time.
        pub const DOT: &'static str = "digraph \"Shared\" {\n  rankdir=TB;\n  \"s0\" [label=\"s0\\nkernel\", shape=box];\n  \"s1\" [label=\"s1\\nkernel\", shape=box];\n  \"s2\" [label=\"s2\\nkernel\", shape=box];\n  \"s3\" [label=\"s3\\nkernel\", shape=box];\n  \"s0\" -> \"s1\";\n  \"s0\" -> \"s2\";\n  \"s0\" -> \"s3\";\n}\n";
        /// The kernels' CUDA C prototypes, as declared here.
        pub const PROTOTYPES: &'static str = "extern \"C\" __global__ void scale(float* y, float a, unsigned int n);\n";
        /// The temporaries: name, element type and length, as written.
        pub const TEMPORARIES: &'static [(&'static str, &'static str, &'static str)] = &[];
        /// Builds the template: binds the inputs and adds every node, loading the
        /// kernels from `module` by name.
        pub fn build(
            __cg_module: &__cg::Module,
            inputs: SharedInputs<'a>,
        ) -> __cg::Result<Self> {
            let mut __cg_g = __cg::Graph::new(__cg_module.context())?
                .with_name("Shared");
            let __cg_args = SharedChild {
                y: __cg_g.bind_mut(inputs.y)?,
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
        ) -> __cg::Result<SharedExec<'a>, __cg::error::InstantiateError> {
            self.instantiate_with(__cg::exec::Instantiate::new())
        }
        /// Makes the executable graph with options.
        pub fn instantiate_with(
            self,
            opts: __cg::exec::Instantiate<'_>,
        ) -> __cg::Result<SharedExec<'a>, __cg::error::InstantiateError> {
            let __cg_exec = self.__cg_graph.instantiate_with(opts)?;
            ::core::result::Result::Ok(SharedExec {
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
            args: SharedChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, SharedNodes)> {
            let (g, st) = Self::__cg_new(parent.child_graph()?, module, args)?;
            ::core::result::Result::Ok((g, SharedNodes { __cg: st.nodes }))
        }
        /// Adds every node to `__cg_g`, from the inputs the graph was given.
        #[allow(unused_variables, unused_mut, unused_assignments, clippy::all)]
        fn __cg_new(
            mut __cg_g: __cg::Graph<'a>,
            __cg_module: &__cg::Module,
            __cg_args: SharedChild<'a>,
        ) -> __cg::Result<(__cg::Graph<'a>, __CgState<'a>)> {
            let mut __cg_s = __CgInputs {
                b_y: __cg_args.y,
                p_a: __cg_args.a,
                p_n: __cg_args.n,
                __cg_borrow: ::core::marker::PhantomData,
            };
            __cg_g.reserve(4, 4, 3);
            let mut n0 = __cg_module.kernels("scale", 4)?;
            n0.add(
                &mut __cg_g,
                &[("s0", &[]), ("s1", &[0u32]), ("s2", &[0u32]), ("s3", &[0u32])],
                |j| __cg_s.node0(j),
            )?;
            let nodes = __CgNodes { n0 };
            ::core::result::Result::Ok((__cg_g, __CgState { inputs: __cg_s, nodes }))
        }
    }
    #[allow(unused_variables, unreachable_patterns, clippy::all)]
    impl<'a> __CgInputs<'a> {
        fn node0(&self, __cg_j: usize) -> (__cg::LaunchConfig, SharedScaleArgs) {
            let __cg_s = self;
            match __cg_j {
                0usize => {
                    let a = __cg_s.p_a;
                    let n = __cg_s.p_n;
                    (__cg::__private::config(n, 32, 0), (__cg_s.b_y, a, n))
                }
                1usize => {
                    let a = __cg_s.p_a;
                    let n = __cg_s.p_n;
                    (__cg::__private::config(n, 32, 0), (__cg_s.b_y, a, n))
                }
                2usize => {
                    let a = __cg_s.p_a;
                    let n = __cg_s.p_n;
                    (
                        __cg::__private::config(n, 32, 0),
                        (
                            __cg_s.b_y,
                            {
                                let __cg_v: f32 = a * 2.0;
                                __cg_v
                            },
                            n,
                        ),
                    )
                }
                3usize => {
                    (
                        __cg::__private::config(1, 32, 0),
                        (
                            __cg_s.b_y,
                            {
                                let __cg_v: f32 = 1.0;
                                __cg_v
                            },
                            {
                                let __cg_v: u32 = 4;
                                __cg_v
                            },
                        ),
                    )
                }
                _ => ::core::unreachable!(),
            }
        }
    }
    __cg::__private::deref!(
        impl < 'a > SharedExec < 'a > => __cg::GraphExec < 'a >, __cg_exec
    );
    impl<'a> __cg::__private::Resend for SharedExec<'a> {
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
                0 => &[(0, 0..4, false)],
                1 => &[(0, 0..3, false)],
                2 => &[(0, 0..3, true)],
                _ => &[],
            }
        }
    }
    impl<'a> SharedExec<'a> {
        /// The runtime executable graph, taken out (`&*exec` and `&mut *exec` lend it).
        pub fn into_inner(self) -> __cg::GraphExec<'a> {
            self.__cg_exec
        }
        /// The handles of the bound buffers, for the node views' buffer setters.
        pub fn handles(&self) -> SharedHandles {
            SharedHandles {
                y: self.__cg.inputs.b_y,
            }
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
            __cg::__private::rebind(self, 0, |e| e.__cg.inputs.b_y, buffer)
        }
        ///The current value of param `a`.
        pub fn a(&self) -> f32 {
            self.__cg.inputs.p_a
        }
        ///Sets param `a` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_a(&mut self, value: f32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 1, |e| &mut e.__cg.inputs.p_a, value)
        }
        ///The current value of param `n`.
        pub fn n(&self) -> u32 {
            self.__cg.inputs.p_n
        }
        ///Sets param `n` and updates every node that uses it (one driver call each). On failure nothing changes.
        pub fn set_n(&mut self, value: u32) -> __cg::error::EditResult {
            __cg::__private::set_input(self, 2, |e| &mut e.__cg.inputs.p_n, value)
        }
    }
    __cg::__private::deref!(
        impl < 'v, 'a > SharedScaleView < 'v, 'a > => __cg::node::KernelMut < 'v, 'a,
        SharedScaleArgs, __cg::node::OnExec >, 0
    );
    impl<'v, 'a> SharedScaleView<'v, 'a> {
        ///Sets kernel parameter `y` of this node only.
        pub fn set_y(
            &mut self,
            v: __cg::buffer::BufMut<f32>,
        ) -> __cg::error::EditResult {
            self.0.set_arg::<0>(v)
        }
        ///Sets kernel parameter `a` of this node only.
        pub fn set_a(&mut self, v: f32) -> __cg::error::EditResult {
            self.0.set_arg::<1>(v)
        }
        ///Sets kernel parameter `n` of this node only.
        pub fn set_n(&mut self, v: u32) -> __cg::error::EditResult {
            self.0.set_arg::<2>(v)
        }
    }
    impl<'a> SharedExec<'a> {
        ///The view of node `s0`: its typed setters.
        pub fn s0(&mut self) -> __cg::error::EditResult<SharedScaleView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[0]).map(SharedScaleView)
        }
        ///The view of node `s1`: its typed setters.
        pub fn s1(&mut self) -> __cg::error::EditResult<SharedScaleView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[1]).map(SharedScaleView)
        }
        ///The view of node `s2`: its typed setters.
        pub fn s2(&mut self) -> __cg::error::EditResult<SharedScaleView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[2]).map(SharedScaleView)
        }
        ///The view of node `s3`: its typed setters.
        pub fn s3(&mut self) -> __cg::error::EditResult<SharedScaleView<'_, 'a>> {
            self.__cg_exec.node(self.__cg.nodes.n0[3]).map(SharedScaleView)
        }
    }
};
