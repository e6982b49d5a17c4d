//! How a string payload's logical text becomes the units of its lines: the shared rules of
//! `gedgraft_syntax::internal::serialise` (escaped `@`, Unicode escapes, ANSEL order, GEDCOM 7's leading `@`),
//! plus what only a writer of whole datasets meets: escapes kept in `DATE` payloads (R-ESCAPE-PRES-02, -03,
//! R-ENCODING-AT-02) and restricted control characters written as Unicode escapes.

use gedgraft_encoding::Encoding;
use gedgraft_syntax::internal::reads_as_pointer;
use gedgraft_syntax::internal::serialise::{
    dialect_segments, is_restricted, writable, Unit, UnitKind,
};
use gedgraft_syntax::Dialect;
use unicode_normalization::char::is_combining_mark;

pub(super) use gedgraft_syntax::internal::serialise::is_unwritable;

/// The units of each line string of a string payload (the first line's, then one per `CONT` line); `None` if
/// the dialect cannot write it: in GEDCOM 7 (no escapes, no `CONC`) a line string such as `␉@X@` would read
/// as a pointer.
pub(super) fn segments(
    dialect: Dialect,
    tag: &str,
    text: &str,
    encoding: Encoding,
) -> Option<Vec<Vec<Unit>>> {
    let segments = dialect_segments(dialect, tag, text, encoding);
    if !dialect.has_escapes() {
        let pointer = |units: &Vec<Unit>| {
            reads_as_pointer(&units.iter().map(|u| u.text.as_str()).collect::<String>())
        };
        return (!segments.iter().any(pointer)).then_some(segments);
    }
    Some(segments)
}

/// Whether `text` is printable ASCII, tabs and line breaks, in an encoding that writes ASCII as it is: every
/// character writable and none restricted, whatever the encoding (the common case, checked octet by octet).
fn plain_ascii(text: &str, encoding: Encoding) -> bool {
    encoding.is_ascii_compatible()
        && text
            .bytes()
            .all(|b| matches!(b, b' '..=b'~' | b'\t' | b'\n'))
}

/// Whether each line string of `text` is written exactly as it is ([`plain_pieces`](gedgraft_syntax::internal::serialise::plain_pieces)):
/// no `@` (nothing to escape, nothing that could read as a pointer), every character but the line breaks
/// writable and not restricted, and in ANSEL no combining mark (ANSEL writes marks before their letter). What
/// [`segments`] gives such a text, without its units.
pub(super) fn as_is(text: &str, encoding: Encoding) -> bool {
    if plain_ascii(text, encoding) {
        return !text.contains('@');
    }
    let ansel = encoding == Encoding::Ansel;
    text.chars().all(|c| {
        c == '\n'
            || (c != '@'
                && !is_restricted(c)
                && writable(c, encoding)
                && !(ansel && is_combining_mark(c)))
    })
}

/// The first character that writing `text` in `encoding` takes a Unicode escape for
/// (R-SERIALISATION-VERSION-01): one the encoding cannot write, even composed or decomposed, or a restricted
/// one. `None`: the text needs no escape (always so in a dialect without escapes).
pub(super) fn first_unicode_escape(
    dialect: Dialect,
    tag: &str,
    text: &str,
    encoding: Encoding,
) -> Option<char> {
    if !dialect.has_escapes() || plain_ascii(text, encoding) {
        return None;
    }
    let plain = |c: char| writable(c, encoding) && !is_restricted(c);
    if text.chars().all(|c| plain(c) || c == '\n') {
        return None;
    }
    segments(dialect, tag, text, encoding)
        .iter()
        .flatten()
        .flatten()
        .find_map(|u| {
            let hex = u.text.strip_prefix("@#U")?;
            let first = hex.split([' ', '@']).next()?;
            (u.kind == UnitKind::Escape)
                .then(|| u32::from_str_radix(first, 16).ok().and_then(char::from_u32))
                .flatten()
        })
}

/// How many characters of `text` ANSEL writes decomposed (R-SERIALISING-LINE-STRINGS-03): precomposed letters
/// it has no code for but whose canonical decomposition it can write.
pub(super) fn ansel_decomposed(text: &str) -> usize {
    if text.is_ascii() {
        return 0;
    }
    text.chars()
        .filter(|&c| {
            !writable(c, Encoding::Ansel) && {
                let mut nfd = String::new();
                unicode_normalization::char::decompose_canonical(c, |d| nfd.push(d));
                nfd.chars().count() > 1 && nfd.chars().all(|d| writable(d, Encoding::Ansel))
            }
        })
        .count()
}

#[cfg(test)]
mod tests {
    use super::*;
    use gedgraft_syntax::internal::serialise::{
        lay_out, lay_out_segments, plain_pieces, Budget, Laid,
    };

    fn written(tag: &str, text: &str, encoding: Encoding) -> Vec<String> {
        segments(Dialect::Elf10, tag, text, encoding)
            .unwrap_or_default()
            .iter()
            .map(|units| units.iter().map(|u| u.text.as_str()).collect())
            .collect()
    }

    #[test]
    fn r_escape_pres_02_03_date_keeps_d_escapes_others_double_them() {
        assert_eq!(
            written("DATE", "ABT @#DJULIAN@ 1540", Encoding::Utf8),
            ["ABT @#DJULIAN@ 1540"]
        );
        assert_eq!(
            written("NOTE", "ABT @#DJULIAN@ 1540", Encoding::Utf8),
            ["ABT @@#DJULIAN@@ 1540"]
        );
        // Other escape types are doubled in a DATE too; `@@` in the text is two `@`s.
        assert_eq!(
            written("DATE", "@#XQ@ a@@b", Encoding::Utf8),
            ["@@#XQ@@ a@@@@b"]
        );
    }

    proptest::proptest! {
        /// The writer's shortcut: each line string of a text [`as_is`] accepts is what [`segments`] makes of it,
        /// and its plain pieces lay out on the lines its units do.
        #[test]
        fn as_is_text_is_its_own_single_segment(
            text in "[a-zA-Z @\\t\\n\u{1}\u{7f}\u{e9}\u{301}\u{263a}\u{10ff05}]{0,12}",
            encoding in proptest::sample::select(vec![
                Encoding::Utf8, Encoding::Ascii, Encoding::Ansel, Encoding::Windows1252, Encoding::Utf16Le,
            ]),
        ) {
            if as_is(&text, encoding) {
                let lines = gedgraft_syntax::internal::serialise::split_lines(&text);
                for dialect in [Dialect::Elf10, Dialect::GEDCOM_7_0] {
                    let segments = segments(dialect, "NOTE", &text, encoding).unwrap_or_default();
                    let written: Vec<String> = segments
                        .iter()
                        .map(|units| units.iter().map(|u| u.text.as_str()).collect())
                        .collect();
                    proptest::prop_assert_eq!(&written, &lines);
                    // Laid out, the plain pieces give the units' lines.
                    for width in [1, 3, 8] {
                        let budget = Budget { limit: width, first_fixed: 0, more_fixed: 0 };
                        let by_units = lay_out_segments(segments.clone(), budget);
                        let by_units: Vec<String> = std::iter::once(&by_units.first)
                            .chain(by_units.more.iter().map(|(_, u)| u))
                            .map(|units| units.iter().map(|u| u.text.as_str()).collect())
                            .collect();
                        let plain: Laid<String> = lay_out(
                            lines.iter().map(|s| plain_pieces(s, encoding)),
                            budget,
                        );
                        let plain: Vec<String> = std::iter::once(plain.first)
                            .chain(plain.more.into_iter().map(|(_, l)| l))
                            .collect();
                        proptest::prop_assert_eq!(&plain, &by_units);
                    }
                }
            }
        }
    }

    #[test]
    fn restricted_characters_are_escaped() {
        assert_eq!(
            written("NOTE", "a\u{8}b\tc", Encoding::Utf8),
            ["a@#U8@b\tc"]
        );
        let first = |d, t, e| first_unicode_escape(d, "NOTE", t, e);
        assert_eq!(
            first(Dialect::Elf10, "\u{1b}", Encoding::Utf8),
            Some('\u{1b}')
        );
        assert_eq!(first(Dialect::Elf10, "é\nx", Encoding::Utf8), None);
        assert_eq!(first(Dialect::Elf10, "aé Ж", Encoding::Ascii), Some('é'));
        // ANSEL writes é decomposed: no escape (R-SERIALISING-LINE-STRINGS-03), but Ж takes one.
        assert_eq!(first(Dialect::Elf10, "é", Encoding::Ansel), None);
        assert_eq!(first(Dialect::Elf10, "éЖ", Encoding::Ansel), Some('Ж'));
        assert_eq!(first(Dialect::GEDCOM_7_0, "\u{1b}", Encoding::Utf8), None);
    }

    #[test]
    fn ansel_decomposes_precomposed_letters_only() {
        // R-SERIALISING-LINE-STRINGS-03: é and ü have no ANSEL code; their NFD forms do. Ж has none at all.
        assert_eq!(ansel_decomposed("José Müller"), 2);
        assert_eq!(ansel_decomposed("Jose\u{301}"), 0);
        assert_eq!(ansel_decomposed("Ж plain"), 0);
    }
}
