//! Sizes and alignments of C types: scalars, CUDA's vector types, 8-bit floats and tensor-map
//! descriptors, and the structs a file defines (where every field's layout is known: a struct
//! with a member the reader cannot lay out, an attribute, a base class, or under
//! `#pragma pack` has none).

use super::lex::{Kind, Tok};
use super::types::{canonical, fp8_type, vector_type};

/// A struct the file defines.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct CStruct {
    /// Its name (the tag, or the typedef's name).
    pub name: String,
    /// 1-based line of its definition.
    pub line: usize,
    /// The included file it is defined in (`None`: the file the graph names).
    pub file: Option<String>,
    /// Size and alignment in bytes, when every field's is known.
    pub layout: Option<(usize, usize)>,
}

/// Size and alignment of a scalar C type (canonical spelling).
fn scalar(c: &str) -> Option<(usize, usize)> {
    Some(match c {
        "char" | "signed char" | "unsigned char" | "bool" | "int8_t" | "uint8_t" => (1, 1),
        "short" | "unsigned short" | "int16_t" | "uint16_t" | "__half" | "half"
        | "__nv_bfloat16" | "nv_bfloat16" => (2, 2),
        "int" | "unsigned int" | "float" | "int32_t" | "uint32_t" => (4, 4),
        // `cuda_fp8.h`'s storage typedefs: unsigned char, short and int.
        "__nv_fp8_storage_t" => (1, 1),
        "__nv_fp8x2_storage_t" => (2, 2),
        "__nv_fp8x4_storage_t" => (4, 4),
        "long" | "unsigned long" | "long long" | "unsigned long long" | "double" | "int64_t"
        | "uint64_t" | "size_t" | "ptrdiff_t" => (8, 8),
        _ => return None,
    })
}

/// Size and alignment of the C type `words` (qualifiers removed) as a struct's field, given the
/// structs known. None for a tensor map: its alignment depends on the toolkit (64 bytes before
/// CUDA 13, 128 since), and so do the offsets and the size of a struct holding one.
fn type_layout(words: &[&str], known: &[CStruct]) -> Option<(usize, usize)> {
    let c = canonical(words)?;
    if matches!(c.as_str(), "CUtensorMap" | "CUtensorMap_st") {
        return None;
    }
    c_layout(&c, known).map(|(l, _)| l)
}

/// Size and alignment of the C type spelled `c` (canonical: `unsigned int`, `float4`,
/// `Params`), and the struct it is when it is one of `known`. A struct name the file defines
/// more than once with different layouts (in two namespaces) has none.
pub fn c_layout<'k>(
    c: &str,
    known: &'k [CStruct],
) -> Option<((usize, usize), Option<&'k CStruct>)> {
    let builtin = scalar(c)
        .or_else(|| vector_type(c).map(|v| (v.size, v.align)))
        .or_else(|| fp8_type(c).map(|v| (v.size, v.align)))
        // `CUtensorMap`: 128 bytes, 64-byte aligned (128 since CUDA 13; the crate's type
        // stands for either, and only its size is claimed here).
        .or_else(|| matches!(c, "CUtensorMap" | "CUtensorMap_st").then_some((128, 64)));
    if let Some(l) = builtin {
        return Some((l, None));
    }
    let mut same = known.iter().filter(|s| s.name == c);
    let first = same.next()?;
    let layout = first.layout?;
    same.all(|s| s.layout == Some(layout))
        .then_some((layout, Some(first)))
}

/// Every `struct Name { ... };`, `typedef struct [Tag] { ... } Name;` at any depth.
pub(super) fn structs(t: &[Tok]) -> Vec<CStruct> {
    let mut out: Vec<CStruct> = Vec::new();
    // `#pragma pack` (the preprocessor keeps it as a directive token): every struct after it
    // may be packed.
    let mut packed = false;
    let mut i = 0;
    while i < t.len() {
        if t[i].kind == Kind::Directive && t[i].text.trim_start().starts_with("pragma") {
            packed |= t[i].text.contains("pack");
            i += 1;
            continue;
        }
        let typedef = t[i].text == "typedef";
        let at = if typedef { i + 1 } else { i };
        if !t
            .get(at)
            .is_some_and(|x| x.text == "struct" || x.text == "class")
        {
            i += 1;
            continue;
        }
        // `struct Tag {` or `struct {`, an `alignas(N)`/`__align__(N)` aside (any other
        // attribute, or an alignment that is not a number: the layout is unknown).
        let mut j = at + 1;
        let (mut align_attr, mut unknown) = (None, packed);
        while t.get(j).is_some_and(|x| {
            matches!(
                x.text.as_str(),
                "__align__" | "alignas" | "__attribute__" | "__declspec"
            )
        }) {
            let number = t.get(j + 2).and_then(|x| x.text.parse::<usize>().ok());
            let closed = t.get(j + 3).is_some_and(|x| x.text == ")");
            match (t[j].text.as_str(), number) {
                ("__align__" | "alignas", Some(n)) if closed => align_attr = Some(n),
                _ => unknown = true,
            }
            j = super::decl::skip_group(t, j + 1);
        }
        let tag = t
            .get(j)
            .filter(|x| x.kind == Kind::Ident)
            .map(|x| x.text.clone());
        if tag.is_some() {
            j += 1;
        }
        if t.get(j).is_none_or(|x| x.text != "{") {
            i += 1;
            continue;
        }
        let close = match_brace(t, j);
        // An attribute after the body (`} __attribute__((aligned(16)))`) changes the layout.
        let after = t.get(close + 1).map(|x| x.text.as_str());
        unknown |= matches!(after, Some("__attribute__" | "__align__" | "alignas"));
        // A field under an `#if` the reader cannot evaluate (one the struct itself is not
        // under): which fields the struct has is not known.
        unknown |= t[j + 1..close.min(t.len())]
            .iter()
            .any(|x| x.cond != t[at].cond);
        // A template's parameters are no types the reader knows.
        let params = template_params(t, at);
        let layout = fields(&t[j + 1..close.min(t.len())], &out, &params)
            .filter(|_| !unknown)
            .map(|(size, align)| {
                let align = align_attr.map_or(align, |a| a.max(align));
                (size.div_ceil(align) * align, align)
            });
        let line = t[at].line;
        let file = t[at].file.as_deref().map(str::to_owned);
        let name = if typedef {
            t.get(close + 1)
                .filter(|x| x.kind == Kind::Ident)
                .map(|x| x.text.clone())
                .or(tag.clone())
        } else {
            tag.clone()
        };
        for n in [tag, name].into_iter().flatten() {
            if !out.iter().any(|s| s.name == n && s.line == line) {
                out.push(CStruct {
                    name: n,
                    line,
                    file: file.clone(),
                    layout,
                });
            }
        }
        i = close + 1;
    }
    out
}

fn match_brace(t: &[Tok], open: usize) -> usize {
    let mut d = 0usize;
    for (k, x) in t.iter().enumerate().skip(open) {
        match x.text.as_str() {
            "{" => d += 1,
            "}" => {
                d -= 1;
                if d == 0 {
                    return k;
                }
            }
            _ => {}
        }
    }
    t.len()
}

/// The names of the parameters of the template whose header ends just before `at` (the
/// `struct` keyword), if one does.
fn template_params(t: &[Tok], at: usize) -> Vec<String> {
    if at == 0 || t[at - 1].text != ">" {
        return Vec::new();
    }
    let mut d = 0i32;
    let mut k = at - 1;
    loop {
        match t[k].text.as_str() {
            ">" => d += 1,
            "<" => d -= 1,
            _ => {}
        }
        if d == 0 || k == 0 {
            break;
        }
        k -= 1;
    }
    t[k..at]
        .iter()
        .filter(|x| x.kind == Kind::Ident)
        .map(|x| x.text.clone())
        .collect()
}

/// Size (unpadded at the end) and alignment of a struct body's fields, when all are known
/// (`params`: a template's parameter names, whose layout is not).
fn fields(body: &[Tok], known: &[CStruct], params: &[String]) -> Option<(usize, usize)> {
    let (mut size, mut align) = (0usize, 1usize);
    for decl in body.split(|x| x.text == ";") {
        if decl.is_empty() {
            continue;
        }
        // Methods, nested definitions, bit-fields, access specifiers, references and
        // directives (`#pragma pack` inside the body): layout unknown.
        if decl.iter().any(|x| {
            x.kind == Kind::Directive
                || matches!(
                    x.text.as_str(),
                    "(" | "{" | "}" | ":" | "&" | "static" | "virtual" | "union"
                )
        }) {
            return None;
        }
        // `T a, *b, c[4]`: the base type is the words before the first declarator.
        let declarators: Vec<&[Tok]> = decl.split(|x| x.text == ",").collect();
        let first = declarators[0];
        let first = &first[..first
            .iter()
            .position(|x| x.text == "=")
            .unwrap_or(first.len())];
        let name_at = first
            .iter()
            .rposition(|x| x.kind == Kind::Ident)
            .filter(|&k| k > 0)?;
        let base: Vec<&str> = first[..name_at]
            .iter()
            .filter(|x| x.kind == Kind::Ident)
            .map(|x| x.text.as_str())
            .filter(|w| !matches!(*w, "const" | "volatile" | "struct" | "__restrict__"))
            .collect();
        for (k, d) in declarators.iter().enumerate() {
            let d: &[Tok] = if k == 0 { &first[name_at..] } else { d };
            // A default member initializer (`int k = 2 * 3;`) is no part of the layout.
            let d = &d[..d.iter().position(|x| x.text == "=").unwrap_or(d.len())];
            // `*` before the extents (`float* p[2]`), not inside one (`int a[2 * 3]`).
            let head = &d[..d.iter().position(|x| x.text == "[").unwrap_or(d.len())];
            let pointer = head.iter().any(|x| x.text == "*")
                || (k == 0 && first[..name_at].iter().any(|x| x.text == "*"));
            let (mut s, a) = if pointer {
                (8, 8)
            } else if base.iter().any(|w| params.iter().any(|p| p == w)) {
                return None;
            } else {
                type_layout(&base, known)?
            };
            // Array extents.
            let mut n = 0;
            while n < d.len() {
                if d[n].text == "[" {
                    // `[N]` with a plain number only (`[4 + 1]`, `[2 * 3]`: unknown).
                    let count: usize = d
                        .get(n + 1)?
                        .text
                        .trim_end_matches(['u', 'U'])
                        .parse()
                        .ok()?;
                    if d.get(n + 2)?.text != "]" {
                        return None;
                    }
                    s = s.checked_mul(count)?;
                    n += 3;
                } else {
                    n += 1;
                }
            }
            size = size.div_ceil(a) * a + s;
            align = align.max(a);
        }
    }
    (size > 0).then_some((size, align))
}
