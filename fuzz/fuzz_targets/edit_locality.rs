//! Invariant 3 (edit locality) over arbitrary octets and arbitrary edit batches: editing never panics, an applied
//! edit writes the octets its new tree holds, and every octet outside the reported changes is the input's.
//!
//! The input is split at its last `0xFF 0xFE` pair (or taken whole): octets before it are the file, the octets
//! after it choose the edits, four per edit (kind, target, value, position), at most [`MAX_EDITS`].
//!
//! Run from `fuzz/`: `RUSTC_BOOTSTRAP=1 cargo fuzz run edit_locality -- -max_total_time=300`

#![no_main]

use gedgraft_edit::{Change, Edited, Editor, LineBreak, NewStructure, Position, RawOctets};
// Every diagnostic `gedgraft fix --repair` sees: the syntax layer's and the lowering's (`duplicate-xref`,
// `bad-gedc`).
use gedgraft_model::diagnose;
use gedgraft_syntax::ast::{AstToken, Structure};
use gedgraft_syntax::encoding::Encoding;
use gedgraft_syntax::{parse, Parse};
use libfuzzer_sys::fuzz_target;

/// Most edits of a batch. Half the kinds (escape, rewrap, rename, line breaks, transcode) go over the whole
/// file, so a batch of k of them costs k passes by design: without a cap, the octets after the separator
/// would buy k x n work (a 60 KB input with 6 000 edits ran 20 s instrumented, reported as a slow unit).
const MAX_EDITS: usize = 64;

const VALUES: [&str; 8] = [
    "x",
    "",
    "a@b",
    "@@",
    "José Müller",
    "@#UE9@",
    "  padded  ",
    "line\nbreak",
];

fn structures(parse: &Parse) -> Vec<Structure> {
    parse
        .syntax()
        .descendants()
        .filter_map(|n| <Structure as gedgraft_syntax::ast::AstNode>::cast(n))
        .collect()
}

/// Every octet outside `edited.changed_ranges()` is the input's, and the new tree writes the output.
fn check(input: &[u8], old: &Parse, edited: &Edited) {
    let output = edited.bytes();
    match edited.parse().to_bytes() {
        Ok(written) => assert!(written == output, "the new tree writes other octets"),
        Err(e) => panic!("the new tree cannot be written: {e}"),
    }
    if edited.parse().encoding() != old.encoding() {
        return;
    }
    same_outside(input, output, edited.changed_ranges());
    let _ = edited.unified_diff("a", "b");
}

/// Every octet of `output` outside `changes` (sorted, disjoint) is the input's.
fn same_outside(input: &[u8], output: &[u8], changes: &[Change]) {
    let (mut at_in, mut at_out) = (0, 0);
    for change in changes {
        assert!(
            input[at_in..change.input.start] == output[at_out..change.output.start],
            "octets outside the changes differ"
        );
        at_in = change.input.end;
        at_out = change.output.end;
    }
    assert!(
        input[at_in..] == output[at_out..],
        "octets after the last change differ"
    );
}

fuzz_target!(|data: &[u8]| {
    let split = data.windows(2).rposition(|w| w == [0xFF, 0xFE]);
    let (file, ops) = match split {
        Some(i) => (&data[..i], &data[i + 2..]),
        None => (data, &[][..]),
    };
    let old = parse(file);
    let targets = structures(&old);
    let mut editor = Editor::new(&old);
    for op in ops.chunks(4).take(MAX_EDITS) {
        let [kind, target, value, choice] = [0, 1, 2, 3].map(|i| op.get(i).copied().unwrap_or(0));
        let value = VALUES[usize::from(value) % VALUES.len()];
        let target = targets.get(usize::from(target) % targets.len().max(1));
        let choice = usize::from(choice);
        let position = [
            Position::Before,
            Position::After,
            Position::FirstChild,
            Position::LastChild,
        ][choice % 4];
        let _ = match (kind % 9, target) {
            (0, Some(t)) => editor.set_payload(t, value),
            (1, Some(t)) => editor.delete(t),
            (2, Some(t)) => editor.insert(t, position, &NewStructure::new("_NEW").text(value)),
            (3, Some(t)) => match t.tag() {
                Some(tag) => editor.rename_tag(tag.text(), "_R", None).map(drop),
                None => Ok(()),
            },
            (4, Some(t)) => editor.set_pointer(t, "P1"),
            (5, _) => {
                editor.escape_at_signs(None);
                Ok(())
            }
            (6, _) => editor
                .rewrap(Some(20 + usize::from(value.len())), None)
                .map(drop),
            (7, _) => {
                let to = [LineBreak::Lf, LineBreak::CrLf, LineBreak::Cr][choice % 3];
                editor.convert_line_breaks(
                    to,
                    if choice % 2 == 0 {
                        gedgraft_edit::LfCr::OneBreak
                    } else {
                        gedgraft_edit::LfCr::TwoBreaks
                    },
                );
                Ok(())
            }
            (8, _) => {
                let to = [
                    Encoding::Utf8,
                    Encoding::Utf16Le,
                    Encoding::Ansel,
                    Encoding::Windows1252,
                ][choice % 4];
                editor.transcode(to, RawOctets::Replace);
                Ok(())
            }
            _ => Ok(()),
        };
    }
    let applied = editor.apply_lazily();
    if let Ok(edited) = &applied {
        check(file, &old, edited);
    }
    check_repairs(file, &old);
});

/// Repairs (issue #16): the repairs of the file applied together (those that overlap an earlier one are left
/// out) change only the octets of their edits, and the fixed point stops and changes only the octets it
/// reports.
fn check_repairs(input: &[u8], old: &Parse) {
    let all = diagnose(old);
    let diagnostics: Vec<_> = all.iter().collect();
    let found = gedgraft_edit::repairs(old, &diagnostics);
    let chosen: Vec<_> = found.iter().flatten().collect();
    let applied = gedgraft_edit::apply_repairs(input, &chosen);
    {
        let taken = applied
            .applied_indices
            .iter()
            .filter_map(|&i| chosen.get(i));
        let mut edits: Vec<_> = taken.flat_map(|r| &r.edits).collect();
        edits.sort_by_key(|e| e.range.start);
        let (mut i, mut o) = (0, 0);
        for e in edits {
            let keep = e.range.start - i;
            assert!(
                input[i..e.range.start] == applied.bytes[o..o + keep],
                "octets outside a repair differ"
            );
            o += keep + e.replacement.len();
            i = e.range.end;
        }
        assert!(
            input[i..] == applied.bytes[o..],
            "octets after the last repair differ"
        );
    }
    let options = gedgraft_syntax::ParseOptions::default();
    let fixed = gedgraft_edit::repair_to_fixed_point(input, old, &options, diagnose, |_| true);
    same_outside(input, &fixed.bytes, &fixed.changes);
}
