//! "Did you mean": the edit distance counts a swap of two neighbouring letters as one edit
//! (optimal string alignment), checked against its recursive definition on short random
//! names, and the names `suggestions` proposes for swapped letters.

use cuda_graph_macros_core::lower::{edit_distance, suggestions};
use proptest::prelude::*;

/// The optimal string alignment distance by its definition, recursively (exponential: short
/// strings only).
fn reference(a: &[char], b: &[char]) -> usize {
    let (i, j) = (a.len(), b.len());
    if i == 0 || j == 0 {
        return i + j;
    }
    let mut d = (reference(&a[..i - 1], b) + 1)
        .min(reference(a, &b[..j - 1]) + 1)
        .min(reference(&a[..i - 1], &b[..j - 1]) + usize::from(a[i - 1] != b[j - 1]));
    if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
        d = d.min(reference(&a[..i - 2], &b[..j - 2]) + 1);
    }
    d
}

#[test]
fn a_swap_is_one_edit() {
    assert_eq!(edit_distance("alhpa", "alpha"), 1);
    assert_eq!(edit_distance("setp", "step"), 1);
    assert_eq!(edit_distance("ab", "ba"), 1);
    assert_eq!(edit_distance("saxpy", "saxpy"), 0);
    assert_eq!(edit_distance("", "abc"), 3);
    assert_eq!(edit_distance("kitten", "sitting"), 3);
    // Optimal string alignment edits no letter twice: `ca` to `abc` is 3, not 2.
    assert_eq!(edit_distance("ca", "abc"), 3);
}

#[test]
fn swapped_letters_are_suggested() {
    let names = ["alpha", "beta", "n"];
    assert_eq!(suggestions("alhpa", names.iter().copied()), vec!["alpha"]);
    let nodes = ["step", "init", "stop_all"];
    assert_eq!(suggestions("setp", nodes.iter().copied()), vec!["step"]);
    // Even a two-letter name is one swap from its meaning.
    assert_eq!(suggestions("ba", ["ab"].iter().copied()), vec!["ab"]);
    assert!(suggestions("xyz", ["alpha"].iter().copied()).is_empty());
}

fn name() -> impl Strategy<Value = String> {
    proptest::collection::vec(prop::sample::select(vec!['a', 'b', 'c']), 0..6)
        .prop_map(|v| v.into_iter().collect())
}

proptest! {
    #[test]
    fn matches_the_definition(a in name(), b in name()) {
        let (ca, cb): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
        prop_assert_eq!(edit_distance(&a, &b), reference(&ca, &cb));
        prop_assert_eq!(edit_distance(&a, &b), edit_distance(&b, &a));
    }

    #[test]
    fn one_swap_is_distance_one(a in name(), at in 0usize..5) {
        let mut c: Vec<char> = a.chars().collect();
        prop_assume!(at + 1 < c.len() && c[at] != c[at + 1]);
        c.swap(at, at + 1);
        let swapped: String = c.into_iter().collect();
        prop_assert_eq!(edit_distance(&a, &swapped), 1);
    }
}
