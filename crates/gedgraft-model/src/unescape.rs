//! Unescaping string payloads (2019 § Unescaping string payloads, § Identifying escapes, § Permitted escapes,
//! § Unicode escapes), and turning decoded tree text into dataset text.
//!
//! The CST has already identified the escapes of each line (R-IDENTIFY-ESCS-01..03): a payload is a run of
//! `TEXT` (with its escaped at signs `@@` and its bare `@`s, including the `@` of an unterminated `@#`, which
//! the syntax layer reports: `gedgraft_syntax::internal::text_pieces`), `ESCAPE` (`@#…@`; the syntax layer
//! reports one whose type is not a letter) and `RAW` tokens. Each line is unescaped on its own and
//! only then are the lines merged (R-PAYLOAD-UNESC-06, reading A), so an escape split over two lines is not an
//! escape: `0 NOTE @` + `1 CONC #U21@` is the string `@#U21@`. What an escape means and how literal text is
//! finished (ANSEL order, raw octets, NFC) live in `gedgraft_syntax::value`, shared with
//! `Structure::value`; this module reports what is wrong while it unescapes.

use crate::codes;
use crate::lower::{PayloadRuns, Sink};
use gedgraft_syntax::internal::green_view::Token;
pub(crate) use gedgraft_syntax::value::{
    escape_meaning, literal_text, EscapeMeaning, EscapeProblem, Finishing, TextBuilder,
};
use gedgraft_syntax::{Class, SyntaxKind};

/// Unescapes one line's payload tokens into `out`, reporting escapes that are not permitted.
pub(crate) fn unescape_line<'g>(
    tokens: impl Iterator<Item = Token<'g>>,
    builder: &mut TextBuilder,
    out: &mut String,
    sink: &mut Sink,
    runs: &mut PayloadRuns,
) {
    if builder.leading_at_only {
        return crate::lower::dialect_rules::unescape_leading_at_line(tokens, builder, out, sink);
    }
    for token in tokens {
        match token.kind() {
            SyntaxKind::Text => builder.text(out, token.text(), true),
            SyntaxKind::Escape => match escape_meaning(token.text()) {
                EscapeMeaning::Unicode { chars, lowercase } => {
                    if lowercase {
                        let message = format!(
                            "Unicode escape `{}` uses lower-case hexadecimal digits; write them in upper case",
                            token.text()
                        );
                        let what = (codes::LOWERCASE_UNICODE_ESCAPE, Class::Warning, message);
                        sink.report_in(runs, what, token.range());
                    }
                    builder.decoded(out, &chars);
                }
                EscapeMeaning::Kept | EscapeMeaning::Malformed => {
                    builder.literal(out, token.text())
                }
                EscapeMeaning::Rejected(problem, message) => {
                    let code = match problem {
                        EscapeProblem::Unpermitted => codes::UNPERMITTED_ESCAPE,
                        EscapeProblem::BadUnicode => codes::BAD_UNICODE_ESCAPE,
                    };
                    sink.report_in(runs, (code, Class::NonConformant, message), token.range());
                    builder.literal(out, token.text());
                }
            },
            _ => builder.literal(out, token.text()),
        }
    }
}
