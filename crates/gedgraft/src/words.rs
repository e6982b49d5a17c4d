//! How the command line words counts and summaries, in one place.

/// The plural ending of a count's noun: `""` for one, `"s"` otherwise (`3 edits`, `1 edit`, `0 edits`).
pub(crate) fn s<N: PartialEq + From<u8>>(n: N) -> &'static str {
    if n == N::from(1) {
        ""
    } else {
        "s"
    }
}

/// The line `fix` ends a file's report with: `f.ged: changed: 3 edits, -2 +2 lines` (`would change` when
/// nothing is written), or `f.ged: unchanged`.
pub(crate) fn fix_summary(
    name: &str,
    verb: &str,
    changed: bool,
    edits: usize,
    lines: (usize, usize),
) -> String {
    if !changed {
        return format!("{name}: unchanged");
    }
    let (removed, added) = lines;
    format!(
        "{name}: {verb}: {edits} edit{}, -{removed} +{added} lines",
        s(edits)
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn counts_of_one_are_singular() {
        assert_eq!(s(1u64), "");
        assert_eq!(s(0usize), "s");
        assert_eq!(
            fix_summary("f.ged", "changed", true, 1, (2, 3)),
            "f.ged: changed: 1 edit, -2 +3 lines"
        );
        assert_eq!(
            fix_summary("f.ged", "would change", true, 2, (0, 1)),
            "f.ged: would change: 2 edits, -0 +1 lines"
        );
        assert_eq!(
            fix_summary("f.ged", "changed", false, 0, (0, 0)),
            "f.ged: unchanged"
        );
    }
}
