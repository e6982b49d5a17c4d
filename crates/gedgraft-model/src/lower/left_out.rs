//! Lines the lenient lowering leaves out of the dataset (R-RECOVER-06, R-RECOVER-07, R-RECOVER-09).
//!
//! Under 2019 a malformed line stops the parse (R-LINES-05); strict mode does that. The default, lenient mode
//! carries on the way the redux draft's recovery rules describe, the same way for every kind of bad line:
//!
//! * a malformed line (an `ERROR` node: `1 N@ME x`, `0 @I1 INDI`, `stray text`) is left out together with the
//!   lines nested in it, the following lines of a greater level;
//! * a line whose level is more than one greater than the level of the structure it would belong to (a level
//!   jump, `2 PLAC` right after `0 INDI`) is left out together with the lines nested in it;
//! * no line's level is ever changed (R-RECOVER-07): a structure of level `L` only ever becomes a substructure
//!   of a structure of level `L - 1`, and a record is a level-0 line.
//!
//! The syntax layer nests lines by their levels (a malformed line with a level closes the structures of that
//! level or deeper; see `gedgraft_syntax::parser`), so one rule on the tree does all of it: **a structure is
//! kept only if its level is one more than its parent's (a record's is 0), and a malformed line is never
//! kept**. A line nested in a malformed line of level `L` has a level greater than `L`, and so more than one
//! greater than the structure the malformed line sits in: it is left out as well. A line after a left-out
//! line at the same level (`1 X ⏎ 3 A ⏎ 3 B`) follows `1 X` once `3 A` is gone, so it is a level jump too
//! (the syntax layer reports only `3 A`).
//!
//! Every run of consecutive left-out lines is reported once, as [`codes::LINES_LEFT_OUT`] (a warning: the
//! error is the syntax layer's diagnostic on the run's first line, which the note follows). Its range runs
//! from that diagnostic (or the line's start) to the end of the run's last line.

use super::*;

/// A run of consecutive left-out lines, not yet reported.
#[derive(Debug, Clone, Copy)]
pub(super) struct LeftOut {
    /// Where the note points: the first error on the run's first line, or that line's start.
    start: TextSize,
    /// The end of the run's last line (without its line break).
    end: TextSize,
    /// How many lines (first lines of structures, continuation lines and malformed lines; not blank lines).
    lines: usize,
}

/// What a left-out subtree holds: its lines, its line breaks and where its last line ends.
struct Measure {
    lines: usize,
    breaks: usize,
    end: TextSize,
}

/// Walks a subtree (explicit stack: invariant 4).
fn measure(node: Node<'_>) -> Measure {
    let mut m = Measure {
        lines: 1,
        breaks: 0,
        end: node.start,
    };
    let mut stack = vec![node.elements()];
    while let Some(top) = stack.last_mut() {
        let Some((element, start)) = top.next() else {
            stack.pop();
            continue;
        };
        match element {
            NodeOrToken::Token(t) => match (Token { green: t, start }).kind() {
                SyntaxKind::LineBreak => m.breaks += 1,
                SyntaxKind::Whitespace => {}
                _ => m.end = start + t.text_len(),
            },
            NodeOrToken::Node(n) => {
                let child = Node::new(n, start);
                if matches!(
                    child.kind(),
                    SyntaxKind::Record
                        | SyntaxKind::Structure
                        | SyntaxKind::Line
                        | SyntaxKind::Error
                ) {
                    m.lines += 1;
                }
                stack.push(child.elements());
            }
        }
    }
    m
}

/// Whether `node`, met inside a structure of level `parent` (`None`: at document level), is kept: a structure
/// whose level is one more than `parent`'s (a record at document level). Malformed lines never are.
pub(super) fn nests_in(node: Node<'_>, parent: Option<usize>) -> bool {
    match (node.kind(), parent) {
        (SyntaxKind::Record, None) => true,
        (SyntaxKind::Structure, Some(level)) => node
            .level()
            .is_some_and(|l| Some(l) == level.checked_add(1)),
        _ => false,
    }
}

impl<'p> Builder<'p> {
    /// Leaves `node` (a malformed line or a structure that does not nest, with everything in it) out of the
    /// dataset and adds it to the run of left-out lines. Returns its number of line breaks.
    pub(super) fn leave_out(&mut self, node: Node<'p>) -> usize {
        let m = measure(node);
        match &mut self.left_out {
            Some(run) => {
                run.end = m.end.max(run.end);
                run.lines += m.lines;
            }
            None => {
                let first = node.line().content;
                let diagnostics = self.parse.diagnostics();
                let from = diagnostics.partition_point(|d| d.range.start() < first.start());
                let error = diagnostics
                    .get(from..)
                    .unwrap_or_default()
                    .iter()
                    .take_while(|d| d.range.start() <= first.end())
                    .find(|d| d.severity() == Severity::Error);
                let start = error.map_or(first.start(), |d| d.range.start());
                self.left_out = Some(LeftOut {
                    start,
                    end: m.end.max(start),
                    lines: m.lines,
                });
            }
        }
        m.breaks
    }

    /// A line is kept: the run of left-out lines before it, if any, is reported.
    pub(super) fn keep_line(&mut self) {
        let Some(run) = self.left_out.take() else {
            return;
        };
        let message = match run.lines {
            0 | 1 => "this line is left out of the dataset".to_string(),
            2 => "this line and the next one are left out of the dataset (a malformed line goes with the \
                  lines nested in it)"
                .to_string(),
            n => format!(
                "this line and the next {} lines are left out of the dataset (a malformed line goes with \
                 the lines nested in it)",
                n - 1
            ),
        };
        self.report(
            codes::LINES_LEFT_OUT,
            Class::Warning,
            message,
            TextRange::new(run.start, run.end),
        );
    }
}
