//! "Did you mean": the names a misspelt one was likely meant to be (a typo away, or containing
//! it), and the phrases every error that names an unknown kernel, buffer, param or node ends
//! with. `lower` re-exports them for the kinds.

/// The closest of `candidates` to `name`, if it is close enough to be a likely typo, else the
/// one name that contains it (see [`suggestions`]).
pub fn closest<'c>(name: &str, candidates: impl Iterator<Item = &'c str>) -> Option<&'c str> {
    suggestions(name, candidates).into_iter().next()
}

/// What `name` was likely meant to be, best first, at most three: the candidates within a
/// typo of it (an [`edit_distance`] of a third of the length), then those that contain it or that
/// it contains, ignoring case (`relu` for a kernel a macro named `relu_f32`).
pub fn suggestions<'c>(name: &str, candidates: impl Iterator<Item = &'c str>) -> Vec<&'c str> {
    let mut all: Vec<&str> = candidates.filter(|c| *c != name).collect();
    all.sort_unstable();
    all.dedup();
    let mut out: Vec<&str> = Vec::new();
    let typos: Vec<(usize, &str)> = all
        .iter()
        .map(|&c| (edit_distance(name, c), c))
        .filter(|&(d, c)| d <= (c.len().max(name.len()) / 3).max(1))
        .collect();
    if let Some(best) = typos.iter().map(|&(d, _)| d).min() {
        out.extend(typos.iter().filter(|&&(d, _)| d == best).map(|&(_, c)| c));
    }
    let lower = name.to_lowercase();
    if lower.chars().count() >= 2 {
        for &c in &all {
            let cl = c.to_lowercase();
            let related =
                cl.contains(&lower) || (cl.chars().count() >= 3 && lower.contains(cl.as_str()));
            if related && !out.contains(&c) {
                out.push(c);
            }
        }
    }
    out.truncate(3);
    out
}

/// The optimal string alignment distance: insertions, deletions, substitutions and swaps of
/// two neighbouring letters (`alhpa` for `alpha`) each count as one edit.
pub fn edit_distance(a: &str, b: &str) -> usize {
    let (a, b): (Vec<char>, Vec<char>) = (a.chars().collect(), b.chars().collect());
    // Rows `i - 2`, `i - 1` and `i` of the table: `d[i][j]` is the distance between the
    // first `i` letters of `a` and the first `j` of `b`.
    let mut before: Vec<usize> = Vec::new();
    let mut prev: Vec<usize> = (0..=b.len()).collect();
    for i in 1..=a.len() {
        let mut row = vec![i; b.len() + 1];
        for j in 1..=b.len() {
            let cost = usize::from(a[i - 1] != b[j - 1]);
            let mut d = (prev[j - 1] + cost).min(prev[j] + 1).min(row[j - 1] + 1);
            if i > 1 && j > 1 && a[i - 1] == b[j - 2] && a[i - 2] == b[j - 1] {
                d = d.min(before[j - 2] + 1);
            }
            row[j] = d;
        }
        before = std::mem::replace(&mut prev, row);
    }
    prev[b.len()]
}

/// `"; did you mean `x`?"` for a likely meaning (see [`suggestions`]), else the declared
/// names, else `fallback`.
pub fn hint(name: &str, candidates: Vec<String>, fallback: &str) -> String {
    let likely = suggestions(name, candidates.iter().map(String::as_str));
    match likely.as_slice() {
        [] if candidates.is_empty() => fallback.to_owned(),
        [] => format!(" (declared: {}){fallback}", candidates.join(", ")),
        some => format!("; did you mean {}?", either(some)),
    }
}

/// `` `a` ``, `` `a` or `b` ``, `` `a`, `b` or `c` ``.
pub fn either(names: &[&str]) -> String {
    let quoted: Vec<String> = names.iter().map(|n| format!("`{n}`")).collect();
    match quoted.split_last() {
        Some((last, rest)) if !rest.is_empty() => format!("{} or {last}", rest.join(", ")),
        Some((last, _)) => last.clone(),
        None => String::new(),
    }
}

/// The declared names a message made by [`hint`] proposes as meant (its "did you mean", or its
/// list of those declared): an input among them that no node uses may be the one meant, so it
/// is not reported unused as well.
pub fn proposed(message: &str) -> Vec<String> {
    let quoted =
        |s: &str| -> Vec<String> { s.split('`').skip(1).step_by(2).map(str::to_owned).collect() };
    if let Some((_, rest)) = message.split_once("; did you mean ") {
        return quoted(rest.split('?').next().unwrap_or_default());
    }
    match message.split_once(" (declared: ") {
        Some((_, rest)) => rest
            .split(')')
            .next()
            .unwrap_or_default()
            .split(", ")
            .map(str::to_owned)
            .collect(),
        None => Vec::new(),
    }
}
