//! `gedgraft diff OLD NEW`: the changes between the datasets of two files (`gedgraft_model::compare`), as text
//! by structure path or as JSON; exit status 0 when the data is the same, 1 when it differs.

use crate::cli::{DiffArgs, DiffFormat, InputArgs};
use crate::input;
use gedgraft_model::{
    codes, compare, from_json, lower, Change, Changes, Dataset, LowerOptions, Payload, Place,
};
use gedgraft_syntax::codes as syntax_codes;
use gedgraft_syntax::internal::{json_string, printable};
use gedgraft_syntax::{Class, Diagnostic, Parse};
use std::fmt::Write as _;
use std::path::Path;
use std::process::ExitCode;

/// Runs `diff`.
pub fn run(args: &DiffArgs) -> Result<ExitCode, String> {
    if input::is_stdin(&args.old) && input::is_stdin(&args.new) {
        return Err("only one of OLD and NEW can be standard input (`-`)".into());
    }
    let (old, old_left_out) = load(&args.old, &args.input)?;
    let (new, new_left_out) = load(&args.new, &args.input)?;
    let changes = compare(&old.1, &new.1);
    if old_left_out.text != new_left_out.text {
        // What the data does not hold, diff cannot compare: said, so that "no change" is not read as "the
        // same file" (a repair that dropped a malformed line, a fix that lost text after the trailer).
        crate::output::say(&format!(
            "warning: the files differ in what is not data (lines the lowering leaves out, content after the \
             trailer, octets the encoding cannot decode), which diff does not compare: {}; {} (`gedgraft \
             check` shows them)",
            old_left_out.describe(&old.0),
            new_left_out.describe(&new.0)
        ));
    }
    if !args.quiet {
        let text = match args.format {
            DiffFormat::Text => text(&old, &new, &changes),
            DiffFormat::Json => json(&old.0, &new.0, &changes),
        };
        crate::output::emit(&text)?;
    }
    let code = crate::output::exit_status(false, !changes.is_empty());
    input::keep_until_exit((old, new));
    Ok(code)
}

/// A file's name and dataset: a GEDCOM or ELF file lowered leniently, or a dataset JSON document (as
/// `gedgraft lower` prints it; a file whose first non-blank character is `{`) read back; and what of the file
/// is not in the dataset.
fn load(path: &Path, args: &InputArgs) -> Result<((String, Dataset), LeftOut), String> {
    let name = path.display().to_string();
    let bytes = input::read_octets(path)?;
    // A dataset document: its first character other than white space (and a UTF-8 byte-order mark) is `{`.
    let json = bytes.strip_prefix(b"\xEF\xBB\xBF").unwrap_or(&bytes);
    if json.iter().find(|b| !b.is_ascii_whitespace()) == Some(&b'{') {
        let text =
            String::from_utf8(bytes).map_err(|_| format!("{name}: JSON that is not UTF-8"))?;
        let dataset = from_json(&text).map_err(|e| format!("{name}: {e}"))?;
        return Ok(((name, dataset), LeftOut::default()));
    }
    let parse = input::parse_octets(path, &bytes, &input::options(args)?)?.parse;
    // Not GEDCOM (an HTML page, an image): no data to compare, which is trouble, not "the same" (diff(1): 2).
    if parse
        .diagnostics()
        .iter()
        .any(|d| d.code == syntax_codes::NOT_GEDCOM)
    {
        return Err(format!(
            "{}: not a GEDCOM file (`gedgraft check` says why)",
            crate::output::shown(&name)
        ));
    }
    let lowered = lower(&parse, &LowerOptions::default());
    let left_out = LeftOut::of(&parse, &lowered.diagnostics);
    // The tree goes before the next file is read: only the datasets are compared (peak memory on two 100 MB
    // files: 1.2 GB, against 1.7 GB with both trees kept).
    drop(parse);
    Ok(((name, lowered.dataset), left_out))
}

/// What of a file the dataset does not hold, or holds as something else: the runs of lines the lenient lowering
/// left out (malformed lines and what nests in them, [`codes::LINES_LEFT_OUT`]), other malformed lines (before
/// the header), content after the trailer, and
/// octets the encoding could not decode (the dataset has U+FFFD for any of them: `E9` and `E8` read alike),
/// with their text as read.
#[derive(Debug, Default)]
struct LeftOut {
    /// Each run's text, in file order.
    text: Vec<String>,
    /// The line each run starts on.
    lines: Vec<usize>,
}

impl LeftOut {
    fn of(parse: &Parse, lowering: &[Diagnostic]) -> LeftOut {
        let left_out: Vec<&Diagnostic> = (lowering.iter())
            .filter(|d| d.code == codes::LINES_LEFT_OUT)
            .collect();
        // A malformed line outside the runs left out (before the header, where nothing is lowered).
        let outside = |d: &Diagnostic| {
            let i = left_out.partition_point(|r| r.range.start() <= d.range.start());
            i == 0 || !left_out[i - 1].range.contains(d.range.start())
        };
        let syntax = (parse.diagnostics().iter()).filter(|d| {
            d.code == syntax_codes::CONTENT_AFTER_TRAILER
                || d.code == syntax_codes::UNDECODABLE_OCTETS
                || (d.class == Class::MalformedLine && outside(d))
        });
        let mut runs: Vec<&Diagnostic> = left_out.iter().copied().chain(syntax).collect();
        runs.sort_by_key(|d| d.range.start());
        // Each run's text, in one walk of the tokens (a slice of the tree's text per run would walk the tree
        // from its start for each: quadratic in the runs, found by a helper).
        let mut text = vec![String::new(); runs.len()];
        let mut first = 0;
        for token in parse
            .syntax()
            .descendants_with_tokens()
            .filter_map(|e| e.into_token())
        {
            let at = token.text_range();
            while runs.get(first).is_some_and(|d| d.range.end() <= at.start()) {
                first += 1;
            }
            let mut i = first;
            while let Some(d) = runs.get(i).filter(|d| d.range.start() < at.end()) {
                if let Some(common) = at.intersect(d.range) {
                    let piece = common - at.start();
                    text[i].push_str(
                        token
                            .text()
                            .get(std::ops::Range::<usize>::from(piece))
                            .unwrap_or(""),
                    );
                }
                i += 1;
            }
        }
        let lines = runs.iter().map(|d| d.location.line).collect();
        LeftOut { text, lines }
    }

    /// How `name` stands: "a.ged: none", "b.ged: line 5", "c.ged: 7 runs, from lines 5, 9, 12, 20, 31, …".
    fn describe(&self, name: &str) -> String {
        let name = crate::output::shown(name);
        match self.lines.as_slice() {
            [] => format!("{name}: none"),
            [line] => format!("{name}: line {line}"),
            lines => {
                let shown: Vec<String> = lines.iter().take(5).map(usize::to_string).collect();
                let more = if lines.len() > 5 { ", …" } else { "" };
                format!(
                    "{name}: {} runs, from lines {}{more}",
                    lines.len(),
                    shown.join(", ")
                )
            }
        }
    }
}

/// The text output: a `---`/`+++` header, then one line per change; added and removed structures are followed
/// by their lines. Nothing when the data is the same.
fn text(old: &(String, Dataset), new: &(String, Dataset), changes: &Changes) -> String {
    let mut out = String::new();
    if changes.is_empty() {
        return out;
    }
    let (a, b) = (&old.1, &new.1);
    let _ = writeln!(out, "--- {}", gedgraft_edit::quote_path(&old.0));
    let _ = writeln!(out, "+++ {}", gedgraft_edit::quote_path(&new.0));
    for change in changes {
        // File text is printed for a terminal: control characters escaped, as `check` shows them.
        let _ = writeln!(out, "{}", printable(change.to_string()));
        match change {
            Change::RecordAdded { new, .. } | Change::StructureAdded { new, .. } => {
                lines(&mut out, '+', b, new);
            }
            Change::RecordRemoved { old } | Change::StructureRemoved { old } => {
                lines(&mut out, '-', a, old);
            }
            _ => {}
        }
    }
    out
}

/// The lines of a structure and its substructures as the dataset has them (payloads unescaped, one `CONT` per
/// line break), each after `sign` and three spaces.
fn lines(out: &mut String, sign: char, dataset: &Dataset, place: &Place) {
    let Some(root) = dataset.get(place.id) else {
        return;
    };
    // The ends of the open ancestors' subtrees: their number is the depth below `root`.
    let mut open: Vec<usize> = Vec::new();
    for s in root.descendants() {
        let id = s.id().index();
        while open.last().is_some_and(|&end| end <= id) {
            open.pop();
        }
        let level = place.level + open.len();
        let _ = write!(out, "{sign}   {level} ");
        if let Some(x) = s.xref() {
            let _ = write!(out, "@{x}@ ");
        }
        out.push_str(s.tag());
        match s.payload() {
            None => {}
            Some(Payload::Pointer(p)) => {
                let _ = write!(out, " @{}@", p.target);
            }
            Some(Payload::Text(t)) => {
                let mut parts = t.text.split('\n').map(|p| printable(p.to_string()));
                if let Some(first) = parts.next().filter(|f| !f.is_empty()) {
                    let _ = write!(out, " {first}");
                }
                for more in parts {
                    let _ = write!(out, "\n{sign}   {} CONT", level + 1);
                    if !more.is_empty() {
                        let _ = write!(out, " {more}");
                    }
                }
            }
        }
        out.push('\n');
        open.push(s.subtree_end().index());
    }
}

/// The JSON output: `{"old": FILE, "new": FILE, "equal": bool, "changes": [...]}`, one change per line, each
/// with `kind`, `text` (the text line), `old` and `new` places (`path`, `line`, `level`), and `from`/`to` for
/// changed values (`field` for metadata).
fn json(old: &str, new: &str, changes: &Changes) -> String {
    let mut out = String::from("{\"old\": ");
    json_string(old, &mut out);
    out.push_str(", \"new\": ");
    json_string(new, &mut out);
    let _ = write!(out, ", \"equal\": {}, \"changes\": [", changes.is_empty());
    for (i, change) in changes.iter().enumerate() {
        out.push_str(if i == 0 { "\n  {" } else { ",\n  {" });
        out.push_str("\"kind\": ");
        json_string(change.kind(), &mut out);
        out.push_str(", \"text\": ");
        json_string(&change.to_string(), &mut out);
        for (name, place) in [("old", change.before()), ("new", change.after())] {
            if let Some(p) = place {
                let _ = write!(out, ", \"{name}\": {{\"path\": ");
                json_string(&p.path, &mut out);
                let _ = write!(out, ", \"level\": {}, \"line\": ", p.level);
                match p.line {
                    Some(l) => {
                        let _ = write!(out, "{l}");
                    }
                    None => out.push_str("null"),
                }
                out.push('}');
            }
        }
        if let Change::MetadataChanged { field, .. } = change {
            out.push_str(", \"field\": ");
            json_string(field, &mut out);
        }
        if let Some((from, to)) = change.values() {
            out.push_str(", \"from\": ");
            json_string(&from, &mut out);
            out.push_str(", \"to\": ");
            json_string(&to, &mut out);
        }
        out.push('}');
    }
    if !changes.is_empty() {
        out.push('\n');
    }
    out.push_str("]}\n");
    out
}
