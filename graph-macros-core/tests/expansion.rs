//! Expansion snapshots: what `cuda_graph!` generates for a few representative graphs,
//! pretty-printed and committed in `tests/snapshots/` (insta), so a change in generated code
//! shows up in review. A mismatch fails with the diff; after reading it, accept the change with
//! `INSTA_UPDATE=always cargo test -p cuda-graph-macros-core --test expansion` (or
//! `cargo insta review`).
//!
//! It makes no CUDA call, so compute-sanitizer refuses to run it; like the trybuild harness it
//! stays out of the GPU pack (`shared/gpu/pack.sh` leaves out tests whose source names trybuild)
//! and runs in CI.

/// Kernels, a memset, params in launch dimensions and arguments.
const SAXPY: &str = r#"
/// y = a*x + y, then total = sum(y).
pub graph Saxpy {
    kernel saxpy(a: f32, x: &[f32], y: &mut [f32], n: u32);
    kernel sum(y: &[f32], total: &mut [f32], n: u32);
    buffer x: f32;
    buffer mut y: f32;
    buffer mut total: f32;
    param a: f32;
    param n: u32;
    clear  = memset(total, 0.0);
    step   = saxpy<<<n.div_ceil(256), 256>>>(a, x, y, n);
    reduce = sum<<<1, 1>>>(y, total, n);
    step -> reduce;
    clear -> reduce;
}
"#;

/// Every other node kind: memcpy to the host, a host callback, events, an empty join, and a
/// child graph given a parent buffer and a constant.
const ALL_KINDS: &str = r#"
graph Inner {
    kernel fill(y: &mut [u32], v: u32);
    buffer mut y: u32;
    param v: u32;
    f = fill<<<1, 32>>>(y, v);
}

graph Outer {
    kernel fill(y: &mut [u32], v: u32);
    buffer mut y: u32;
    host_buffer mut out: u32;
    callback done;
    event ev;
    param v: u32;
    first = fill<<<1, 32>>>(y, v);
    sub   = child(Inner { y: y, v: 7 });
    back  = memcpy(out, y);
    tell  = host(done);
    rec   = record(ev);
    join  = empty;
    first -> sub -> back -> [tell, rec] -> join;
}
"#;

/// Conditional nodes: a WHILE whose body holds an IF (its handle made inside the loop's body),
/// an IF/ELSE and a SWITCH; param setters reach nodes inside bodies.
const CONDITIONAL: &str = r#"
graph Cond {
    kernel step(count: &mut [u32], by: u32, again: Cond);
    kernel decide(v: &[u32], c: Cond);
    kernel fill(y: &mut [u32], v: u32);
    buffer mut count: u32;
    buffer mut y: u32;
    param by: u32;
    cond again = 1;
    cond odd;
    cond pick;
    cond which;
    init = fill<<<1, 32>>>(count, 0);
    run = while again {
        up = step<<<1, 1>>>(count, by, again);
        test = decide<<<1, 1>>>(count, odd);
        bump = if odd {
            mark = fill<<<1, 32>>>(y, 1);
        }
        up -> test -> bump;
    }
    choose = decide<<<1, 1>>>(count, pick);
    branch = if pick { a = fill<<<1, 32>>>(y, 2); } else { b = fill<<<1, 32>>>(y, 3); }
    sel = decide<<<1, 1>>>(count, which);
    cases = switch which {
        0 => { c0 = fill<<<1, 32>>>(y, 4); }
        1 => { c1 = fill<<<1, 32>>>(y, by); }
    }
    init -> run -> choose -> branch -> sel -> cases;
}
"#;

/// Temporaries: allocation and free nodes placed around their users, a length from a param
/// (whose setter checks that the new length fits).
const TEMPORARIES: &str = r#"
graph Temps {
    kernel fill(y: &mut [u32], n: u32);
    kernel mix(a: &[u32], b: &[u32], out: &mut [u32], n: u32);
    buffer mut out: u32;
    param n: u32;
    temp t: [u32; n];
    temp u: [u32; 2 * n];
    ft = fill<<<1, 32>>>(t, n);
    fu = fill<<<1, 32>>>(u, n);
    m = mix<<<1, 32>>>(t, u, out, n);
    [ft, fu] -> m;
}
"#;

/// One param shared by many nodes of one kernel (the setter loops over them), and a node of the
/// same kernel that does not use it.
const SHARED_PARAM: &str = r#"
graph Shared {
    kernel scale(y: &mut [f32], a: f32, n: u32);
    #[disjoint]
    buffer mut y: f32;
    param a: f32;
    param n: u32;
    s0 = scale<<<n, 32>>>(y, a, n);
    s1 = scale<<<n, 32>>>(y, a, n);
    s2 = scale<<<n, 32>>>(y, a * 2.0, n);
    s3 = scale<<<1, 32>>>(y, 1.0, 4);
    s0 -> [s1, s2, s3];
}
"#;

/// Nodes of one kernel that differ only in a literal (a fan-out's offsets): one node function
/// arm over a column of the literals.
const COLUMNS: &str = r#"
graph Fan {
    kernel tiny(y: &mut [f32], offset: u32, a: f32);
    #[disjoint]
    buffer mut y: f32;
    param a: f32;
    k0 = tiny<<<1, 32>>>(y, 0, a);
    k1 = tiny<<<1, 32>>>(y, 32, a);
    k2 = tiny<<<1, 32>>>(y, 64, a);
    k3 = tiny<<<1, 32>>>(y, 96, a);
    k4 = tiny<<<1, 32>>>(y, 128, a);
    k5 = tiny<<<2, 32>>>(y, 160, a);
}
"#;

/// Collectives on a communicator: `rank` and `world` read from it, every collective form, a
/// count of params and a peer of `rank`.
const COLLECTIVES: &str = r#"
graph TpMlp {
    kernel gelu_bias(h: &mut [f32], b: &[f32], rank: u32, cols: u32);
    comm tp;
    buffer mut part: f32;
    buffer mut y: f32;
    buffer b: f32;
    param batch: u32;
    g1 = gelu_bias<<<batch * world, 256>>>(part, b, rank, 4096);
    ar = all_reduce(part -> y, batch * 4096, sum) on tp;
    ag = all_gather(y -> part, batch, ) on tp;
    rs = reduce_scatter(part -> y, batch, max) on tp;
    bc = broadcast(y -> y, batch, root = 0) on tp;
    s  = send(y, 16, to = (rank + 1) % world) on tp;
    r  = recv(part, 16, from = (rank + world - 1) % world) on tp;
    g1 -> ar -> ag -> rs -> bc -> s -> r;
}
"#;

/// A repeat block: stacks indexed by the loop variable, a carry edge, a param used inside.
const REPEAT: &str = r#"
graph Layers {
    kernel lincomb_u32(a: &[u32], ka: u32, b: &[u32], kb: u32, out: &mut [u32], n: u32);
    kernel iota_u32(y: &mut [u32], base: u32, n: u32);
    buffer w[layers]: u32;
    buffer mut x: u32;
    param layers: u32;
    param n: u32;
    init = iota_u32<<<1, 32>>>(x, 1, n);
    body = repeat l in 0..layers {
        mix = lincomb_u32<<<1, 32>>>(x, 3, w[l], l as u32, x, n);
        carry mix -> mix;
    }
    last = iota_u32<<<1, 32>>>(x, 2, n);
    init -> body -> last;
}
"#;

/// A repeat block whose body does not use the iteration's index: `repeat _ in 0..n`.
const REPEAT_UNNAMED: &str = r#"
graph Steps {
    kernel step(x: &mut [f32], n: u32);
    buffer mut x: f32;
    param steps: u32;
    param n: u32;
    body = repeat _ in 0..steps {
        s = step<<<1, 32>>>(x, n);
        carry s -> s;
    }
}
"#;

/// A WHILE with an iteration limit of a param: its body never sets the condition (the limit
/// ends it); the limit is added last in `build`, a setter of the param sends it again, and
/// `solve_count()` reads what a launch did.
const WHILE_LIMIT: &str = r#"
graph Counted {
    kernel step(x: &mut [f32], n: u32);
    kernel decide(c: Cond, x: &[f32], n: u32);
    buffer mut x: f32;
    param n: u32;
    param most: u32;
    cond go = 1;
    cond more = 1;
    solve = while go, max most * 2 {
        s = step<<<1, 32>>>(x, n);
    }
    fixed = while more, max 37 {
        t = step<<<1, 32>>>(x, n);
        d = decide<<<1, 1>>>(more, x, n);
        t -> d;
    }
    solve -> fixed;
}
"#;

/// `#[programmatic]` on a graph with a carried repeat block: the edges in each iteration, the
/// carry edge and the edges into the first iteration and out of the last are added as
/// programmatic edges, none first as a plain dependency.
const PROGRAMMATIC_REPEAT: &str = r#"
#[programmatic]
graph Chained {
    source "../tests/kernels/pdl.cu";
    kernel affine;
    kernel reverse_add;
    buffer x: f32;
    buffer mut a: f32;
    buffer mut b: f32;
    buffer mut d: f32;
    param n: i32;
    param steps: u32;
    s0 = affine<<<16, 256>>>(x, a, 2.0, 1.0, n);
    body = repeat l in 0..steps {
        u = affine<<<8, 512>>>(a, b, 0.5, 1.0, n);
        v = reverse_add<<<32, 128>>>(b, a, 2.0, n);
        u -> v;
        carry v -> u;
    }
    s9 = reverse_add<<<64, 64>>>(a, d, 3.0, n);
    s0 -> body -> s9;
}
"#;

fn expand(src: &str) -> String {
    let tokens = src.parse().expect("valid tokens");
    let (graphs, errors) = cuda_graph_macros_core::check(tokens).expect("parses");
    assert!(errors.is_empty(), "{:?}", errors.messages());
    let out: proc_macro2::TokenStream = graphs
        .iter()
        .map(cuda_graph_macros_core::expand::graph)
        .collect();
    let file = syn::parse2::<syn::File>(out).expect("the expansion is valid Rust");
    // A source file is named by its absolute path, which differs between checkouts.
    prettyplease::unparse(&file).replace(env!("CARGO_MANIFEST_DIR"), "$CRATE")
}

fn check(name: &str, src: &str) {
    insta::with_settings!({
        snapshot_path => "snapshots",
        prepend_module_to_snapshot => false,
        omit_expression => true,
    }, {
        insta::assert_snapshot!(name, expand(src));
    });
}

#[test]
fn saxpy() {
    check("saxpy", SAXPY);
}

#[test]
fn all_node_kinds() {
    check("all_kinds", ALL_KINDS);
}

#[test]
fn param_shared_by_a_group() {
    check("shared_param", SHARED_PARAM);
}

#[test]
fn conditional_nodes() {
    check("conditional", CONDITIONAL);
}

#[test]
fn temporaries() {
    check("temporaries", TEMPORARIES);
}

#[test]
fn literal_columns() {
    check("columns", COLUMNS);
}

#[test]
fn repeat_block() {
    check("repeat_block", REPEAT);
}

#[test]
fn repeat_block_unnamed_variable() {
    check("repeat_unnamed", REPEAT_UNNAMED);
}

#[test]
fn while_with_limit() {
    check("while_limit", WHILE_LIMIT);
}

#[test]
fn programmatic_repeat_block() {
    check("programmatic_repeat_block", PROGRAMMATIC_REPEAT);
}

#[test]
fn collectives() {
    check("collectives", COLLECTIVES);
}

/// The items of `items` and of every block inside them (a `const _: () = { .. };`, a function's
/// body): rustdoc documents an impl wherever it is written.
fn all_items<'f>(items: &'f [syn::Item], out: &mut Vec<&'f syn::Item>) {
    fn block<'f>(b: &'f syn::Block, out: &mut Vec<&'f syn::Item>) {
        for s in &b.stmts {
            if let syn::Stmt::Item(i) = s {
                all_items(std::slice::from_ref(i), out);
            }
        }
    }
    for item in items {
        out.push(item);
        match item {
            syn::Item::Const(c) => {
                if let syn::Expr::Block(b) = &*c.expr {
                    block(&b.block, out);
                }
            }
            syn::Item::Fn(f) => block(&f.block, out),
            syn::Item::Impl(i) => {
                for it in &i.items {
                    if let syn::ImplItem::Fn(f) = it {
                        block(&f.block, out);
                    }
                }
            }
            syn::Item::Mod(m) => {
                if let Some((_, items)) = &m.content {
                    all_items(items, out);
                }
            }
            _ => {}
        }
    }
}

fn doc_hidden(attrs: &[syn::Attribute]) -> bool {
    attrs.iter().any(|a| {
        a.path().is_ident("doc")
            && matches!(&a.meta, syn::Meta::List(l) if l.tokens.to_string() == "hidden")
    })
}

fn has_doc(attrs: &[syn::Attribute]) -> bool {
    attrs
        .iter()
        .any(|a| a.path().is_ident("doc") && matches!(a.meta, syn::Meta::NameValue(_)))
}

/// What the user's rustdoc of a generated graph would list that is not the user's: a trait
/// impl not marked `#[doc(hidden)]` (every trait the expansion implements is one of the
/// runtime's for generated code), a public method, field or parameter with a `__` name, or a
/// public method without a doc.
fn internal_items_shown(src: &str) -> Vec<String> {
    let tokens = src.parse().expect("valid tokens");
    let (graphs, errors) = cuda_graph_macros_core::check(tokens).expect("parses");
    assert!(errors.is_empty(), "{:?}", errors.messages());
    let out: proc_macro2::TokenStream = graphs
        .iter()
        .map(cuda_graph_macros_core::expand::graph)
        .collect();
    let file = syn::parse2::<syn::File>(out).expect("the expansion is valid Rust");
    let mut items = Vec::new();
    all_items(&file.items, &mut items);
    let ty_name = |t: &syn::Type| quote::quote!(#t).to_string();
    // Types the expansion defines inside `const _` blocks: the caller cannot name them, and
    // rustdoc does not list them.
    let private = |t: &syn::Type| ty_name(t).starts_with("__Cg");
    let mut shown = Vec::new();
    let mut impls = 0;
    for item in items {
        match item {
            syn::Item::Impl(i) if !private(&i.self_ty) => {
                impls += 1;
                if let Some((path, _)) = &i.trait_ {
                    if !doc_hidden(&i.attrs) {
                        shown.push(format!(
                            "impl {} for {}",
                            quote::quote!(#path),
                            ty_name(&i.self_ty)
                        ));
                    }
                    continue;
                }
                for it in &i.items {
                    let syn::ImplItem::Fn(f) = it else { continue };
                    if !matches!(f.vis, syn::Visibility::Public(_)) || doc_hidden(&f.attrs) {
                        continue;
                    }
                    let name = format!("{}::{}", ty_name(&i.self_ty), f.sig.ident);
                    if f.sig.ident.to_string().starts_with("__") {
                        shown.push(format!("method {name}"));
                    }
                    if !has_doc(&f.attrs) {
                        shown.push(format!("undocumented method {name}"));
                    }
                    for arg in &f.sig.inputs {
                        if let syn::FnArg::Typed(p) = arg {
                            let pat = &p.pat;
                            let pat = quote::quote!(#pat).to_string();
                            if pat.starts_with("__") {
                                shown.push(format!("parameter {pat} of {name}"));
                            }
                        }
                    }
                }
            }
            syn::Item::Struct(s) if matches!(s.vis, syn::Visibility::Public(_)) => {
                for f in &s.fields {
                    let public = matches!(f.vis, syn::Visibility::Public(_));
                    let name = f.ident.as_ref().map(|i| i.to_string()).unwrap_or_default();
                    if public && name.starts_with("__") && !doc_hidden(&f.attrs) {
                        shown.push(format!("field {}::{name}", s.ident));
                    }
                }
            }
            _ => {}
        }
    }
    assert!(impls > 0, "the walk found the expansion's impls");
    shown
}

/// `cargo doc` of a crate with a generated graph lists only the user's items: the impls of
/// the runtime's traits for generated code (`Resend`, `Generated`) are `#[doc(hidden)]`, and
/// no public method, field or parameter has an internal name.
#[test]
fn rustdoc_lists_only_user_items() {
    for (name, src) in [
        ("saxpy", SAXPY),
        ("all_kinds", ALL_KINDS),
        ("shared_param", SHARED_PARAM),
        ("conditional", CONDITIONAL),
        ("temporaries", TEMPORARIES),
        ("columns", COLUMNS),
        ("repeat_block", REPEAT),
        ("programmatic_repeat_block", PROGRAMMATIC_REPEAT),
        ("collectives", COLLECTIVES),
    ] {
        let shown = internal_items_shown(src);
        assert!(shown.is_empty(), "{name}: {shown:#?}");
    }
}
