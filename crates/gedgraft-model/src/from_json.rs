//! Reading the JSON document of `gedgraft lower` back into a [`Dataset`] ([`from_json`]).
//!
//! The document may nest structures 100 000 levels deep, so it is read token by token with an explicit stack
//! of open containers (serde_json's `Value` recurses and stops at 128 levels). Structures go straight into a
//! [`DatasetBuilder`]. The schema, as an input format, is in the crate's `README.md`.

mod tokens;

use crate::build::{
    check_pointer, check_tag, check_xref, BuildError, DatasetBuilder, NewStructure,
};
use crate::dataset::{Dataset, Version};
use gedgraft_syntax::Dialect;
use std::borrow::Cow;
use std::fmt;
use tokens::{LexError, Lexer, Token};

/// Why a JSON document is not a dataset: where (the JSON path, the 1-based line and column, counted in
/// characters) and what.
///
/// ```
/// let error = gedgraft_model::from_json(r#"{"records": [{"tag": "INDI", "payload": 3}]}"#).unwrap_err();
/// assert_eq!(error.path, "records[0].payload");
/// assert_eq!((error.line, error.column), (1, 41));
/// assert_eq!(error.to_string(), "line 1, column 41, at records[0].payload: expected null or an object, found a number");
/// ```
#[derive(Debug, Clone, PartialEq, Eq)]
#[non_exhaustive]
pub struct FromJsonError {
    /// The JSON path of the value at fault (`records[3].children[0].payload`), empty for the document.
    pub path: String,
    /// The 1-based line.
    pub line: usize,
    /// The 1-based column, in characters.
    pub column: usize,
    /// What is wrong.
    pub message: String,
}

impl fmt::Display for FromJsonError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "line {}, column {}", self.line, self.column)?;
        if !self.path.is_empty() {
            write!(f, ", at {}", self.path)?;
        }
        write!(f, ": {}", self.message)
    }
}

impl std::error::Error for FromJsonError {}

/// Reads the JSON document that [`crate::to_json`] writes (`gedgraft lower`) into its dataset, so that
/// `from_json(&to_json(…, &lowered)) == Ok(lowered.dataset)` (datasets compare by meaning, not lines).
///
/// `metadata` and `records` are read; `file`, `encoding`, `diagnostics` and `stopped` are skipped; any other
/// member is an error. A structure's `children` must be its last member, as `to_json` writes it. Pointers
/// are resolved again ([`DatasetBuilder::finish`]), so `undefined` is not read and the `UNDEF` records the
/// lowering appended (tag `UNDEF`, an identifier, `line` null, nothing else) are made again rather than read.
///
/// ```
/// let json = r#"{"records": [
///   {"xref": "I1", "tag": "INDI", "children": [
///     {"tag": "NAME", "payload": {"text": "Bob /Smith/"}},
///     {"tag": "FAMS", "payload": {"pointer": "F1"}}]},
///   {"xref": "F1", "tag": "FAM"}]}"#;
/// let dataset = gedgraft_model::from_json(json).unwrap();
/// let bob = dataset.record_by_xref("I1").unwrap();
/// assert_eq!(bob.child("NAME").unwrap().text(), Some("Bob /Smith/"));
/// assert_eq!(bob.child("FAMS").unwrap().target().unwrap().tag(), "FAM");
/// ```
pub fn from_json(text: &str) -> Result<Dataset, FromJsonError> {
    let mut reader = Reader {
        lexer: Lexer::new(text),
        text,
        frames: Vec::new(),
        builder: DatasetBuilder::new(),
    };
    reader.document()?;
    Ok(reader.builder.finish())
}

/// An open container and where the reader is in it: the current member's name or item's index, how many
/// members or items were read.
#[derive(Debug)]
enum Frame {
    /// `seen`: the member names read so far (an object has a handful), to refuse one given twice.
    Object {
        key: String,
        count: usize,
        seen: Vec<String>,
    },
    Array {
        count: usize,
    },
}

/// The JSON of a structure read so far (before its `children`).
#[derive(Debug, Default)]
struct Pending<'t> {
    xref: Option<Cow<'t, str>>,
    tag: Option<Cow<'t, str>>,
    text: Option<Cow<'t, str>>,
    pointer: Option<Cow<'t, str>>,
    lang: Option<Cow<'t, str>>,
    datatype: Option<Cow<'t, str>>,
    line: Option<usize>,
    /// Why `xref` is not an identifier.
    bad_xref: Option<FromJsonError>,
    /// Where the structure's object starts.
    at: usize,
}

/// Which list a structure array is.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
enum List {
    Records,
    Schemas,
    Other,
}

struct Reader<'t> {
    lexer: Lexer<'t>,
    text: &'t str,
    frames: Vec<Frame>,
    builder: DatasetBuilder,
}

type Result<T, E = FromJsonError> = std::result::Result<T, E>;

impl<'t> Reader<'t> {
    // ----- Errors and tokens -----

    /// An error at octet offset `at`, at the current path.
    fn error_at<T>(&self, at: usize, message: impl Into<String>) -> Result<T> {
        Err(self.make_error(at, message.into()))
    }

    fn make_error(&self, at: usize, message: String) -> FromJsonError {
        let before = self.text.get(..at).unwrap_or(self.text);
        let line_start = before.rfind('\n').map_or(0, |i| i + 1);
        // A byte-order mark before the document takes no column (editors show none).
        let line = before.get(line_start..).unwrap_or("");
        let line = line
            .strip_prefix('\u{feff}')
            .filter(|_| line_start == 0)
            .unwrap_or(line);
        FromJsonError {
            path: self.path(),
            line: before.matches('\n').count() + 1,
            column: line.chars().count() + 1,
            message,
        }
    }

    /// An error at the last token read.
    fn error<T>(&self, message: impl Into<String>) -> Result<T> {
        self.error_at(self.lexer.start, message)
    }

    fn path(&self) -> String {
        let mut path = String::new();
        for frame in &self.frames {
            match frame {
                Frame::Object { key, count, .. } if *count > 0 => {
                    if !path.is_empty() {
                        path.push('.');
                    }
                    path.push_str(key);
                }
                Frame::Array { count } if *count > 0 => {
                    path.push_str(&format!("[{}]", count - 1));
                }
                _ => {}
            }
        }
        path
    }

    fn lex(&self, e: LexError) -> FromJsonError {
        self.make_error(e.at, e.message)
    }

    fn next(&mut self) -> Result<Token<'t>> {
        self.lexer.next().map_err(|e| self.lex(e))
    }

    fn peek(&mut self) -> Result<Token<'t>> {
        self.lexer.peek().map_err(|e| self.lex(e))
    }

    fn expected<T>(&self, what: &str, found: &Token<'_>) -> Result<T> {
        self.error(format!("expected {what}, found {}", found.describe()))
    }

    // ----- Containers -----

    /// Reads `{`.
    fn begin_object(&mut self, what: &str) -> Result<()> {
        match self.next()? {
            Token::BeginObject => {
                self.frames.push(Frame::Object {
                    key: String::new(),
                    count: 0,
                    seen: Vec::new(),
                });
                Ok(())
            }
            t => self.expected(what, &t),
        }
    }

    /// The next member's name (and its `:`), or `None` at the object's `}` (its frame is then gone).
    fn next_key(&mut self) -> Result<Option<Cow<'t, str>>> {
        let count = match self.frames.last() {
            Some(Frame::Object { count, .. }) => *count,
            _ => return self.error("internal error: not in an object"),
        };
        let mut token = self.next()?;
        match token {
            Token::EndObject => {
                self.frames.pop();
                return Ok(None);
            }
            Token::Comma if count > 0 => token = self.next()?,
            _ if count > 0 => return self.expected("`,` or `}`", &token),
            _ => {}
        }
        let key = match token {
            Token::String(key) => key,
            t => return self.expected("a member name", &t),
        };
        // JSON readers disagree on a name given twice (jq keeps the last, others the first or both): refused.
        let twice = matches!(self.frames.last(), Some(Frame::Object { seen, .. }) if seen.iter().any(|s| *s == *key));
        if let Some(Frame::Object {
            key: k,
            count,
            seen,
        }) = self.frames.last_mut()
        {
            k.clear();
            k.push_str(&key);
            *count += 1;
            seen.push(key.to_string());
        }
        if twice {
            return self.error(format!(
                "`{key}` is given twice in one object (JSON readers disagree on which counts)"
            ));
        }
        match self.next()? {
            Token::Colon => Ok(Some(key)),
            t => self.expected("`:`", &t),
        }
    }

    /// Reads `[`.
    fn begin_array(&mut self, what: &str) -> Result<()> {
        match self.next()? {
            Token::BeginArray => {
                self.frames.push(Frame::Array { count: 0 });
                Ok(())
            }
            t => self.expected(what, &t),
        }
    }

    /// Whether another item follows (then the reader is at it), or `]` ended the array (its frame is then
    /// gone).
    fn next_item(&mut self) -> Result<bool> {
        let count = match self.frames.last() {
            Some(Frame::Array { count }) => *count,
            _ => return self.error("internal error: not in an array"),
        };
        if count > 0 {
            match self.next()? {
                Token::Comma => {}
                Token::EndArray => {
                    self.frames.pop();
                    return Ok(false);
                }
                t => return self.expected("`,` or `]`", &t),
            }
        } else if self.peek()? == Token::EndArray {
            self.next()?;
            self.frames.pop();
            return Ok(false);
        }
        if let Some(Frame::Array { count }) = self.frames.last_mut() {
            *count += 1;
        }
        Ok(true)
    }

    /// Skips a value of any depth (by counting brackets, without recursion).
    fn skip_value(&mut self) -> Result<()> {
        let mut depth = 0usize;
        loop {
            let token = self.next()?;
            match token {
                Token::BeginObject | Token::BeginArray => depth += 1,
                Token::EndObject | Token::EndArray if depth > 0 => depth -= 1,
                Token::End => return self.expected("a value", &token),
                Token::EndObject | Token::EndArray | Token::Colon | Token::Comma if depth == 0 => {
                    return self.expected("a value", &token)
                }
                _ => {}
            }
            if depth == 0 {
                return Ok(());
            }
        }
    }

    // ----- Scalars -----

    fn string(&mut self) -> Result<Cow<'t, str>> {
        match self.next()? {
            Token::String(s) => Ok(s),
            t => self.expected("a string", &t),
        }
    }

    fn opt_string(&mut self) -> Result<Option<Cow<'t, str>>> {
        match self.next()? {
            Token::String(s) => Ok(Some(s)),
            Token::Null => Ok(None),
            t => self.expected("a string or null", &t),
        }
    }

    fn opt_version(&mut self) -> Result<Option<Version>> {
        match self.opt_string()? {
            None => Ok(None),
            Some(v) => match Version::parse(&v) {
                Some(v) => Ok(Some(v)),
                None => self.error(format!(
                    "`{}` is not a version number (`5.5.1`)",
                    quoted(&v)
                )),
            },
        }
    }

    /// A line number: a positive integer, or null.
    fn opt_line(&mut self) -> Result<Option<usize>> {
        match self.next()? {
            Token::Null => Ok(None),
            Token::Number(n) => match n.parse::<usize>() {
                Ok(line) if line > 0 => Ok(Some(line)),
                _ => self.error(format!(
                    "`{}` is not a line number (a positive integer)",
                    quoted(n)
                )),
            },
            t => self.expected("a line number or null", &t),
        }
    }

    fn bool(&mut self) -> Result<bool> {
        match self.next()? {
            Token::Bool(b) => Ok(b),
            t => self.expected("true or false", &t),
        }
    }

    // ----- The document -----

    fn document(&mut self) -> Result<()> {
        self.begin_object("the document's object")?;
        let mut records = false;
        while let Some(key) = self.next_key()? {
            match &*key {
                "metadata" => self.metadata()?,
                "records" => {
                    records = true;
                    self.structures(List::Records)?;
                }
                "file" | "encoding" | "diagnostics" | "stopped" => self.skip_value()?,
                other => return self.error(unknown_member(other, "the document")),
            }
        }
        match self.next()? {
            Token::End if records => Ok(()),
            Token::End => self.error_at(0, "the document has no `records` member"),
            t => self.expected("the end of the text", &t),
        }
    }

    fn metadata(&mut self) -> Result<()> {
        self.begin_object("the metadata object")?;
        while let Some(key) = self.next_key()? {
            match &*key {
                "dialect" => {
                    let name = self.string()?;
                    match name.parse::<Dialect>() {
                        Ok(d) => self.builder.metadata_mut().dialect = d,
                        Err(e) => return self.error(e),
                    }
                }
                "elf_version" => self.builder.metadata_mut().elf_version = self.opt_version()?,
                "gedcom_version" => {
                    self.builder.metadata_mut().gedcom_version = self.opt_version()?;
                }
                "gedcom_form" => {
                    let form = self.opt_string()?.map(Cow::into_owned);
                    self.builder.metadata_mut().gedcom_form = form;
                }
                "default_language" => {
                    let lang = self.opt_string()?.map(Cow::into_owned);
                    self.builder.metadata_mut().default_language = lang;
                }
                "schemas" => self.structures(List::Schemas)?,
                "other" => self.structures(List::Other)?,
                other => return self.error(unknown_member(other, "metadata")),
            }
        }
        Ok(())
    }

    /// An array of structures with their substructures, at any depth, with an explicit stack: the reader's
    /// frames (array, object, array, …) and the builder's open structures.
    fn structures(&mut self, list: List) -> Result<()> {
        self.begin_array("an array of structures")?;
        let base = self.frames.len();
        loop {
            if !self.next_item()? {
                // An array ended: the list, or the children of the structure whose object is now on top.
                if self.frames.len() < base {
                    return Ok(());
                }
                self.end_structure()?;
                self.close()?;
                continue;
            }
            let top = self.frames.len() == base;
            let (pending, children) = self.structure_fields()?;
            if top && list == List::Records && pending.is_made_undef() {
                if !children {
                    continue;
                }
                if self.empty_array_follows() {
                    self.begin_array("an array of structures")?;
                    self.next_item()?;
                    self.end_structure()?;
                    continue;
                }
            }
            self.push(&pending, top.then_some(list))?;
            if children {
                self.begin_array("an array of structures")?;
            } else {
                self.close()?;
            }
        }
    }

    /// Whether the next tokens are `[]`.
    fn empty_array_follows(&self) -> bool {
        let mut lexer = self.lexer.clone();
        lexer.next() == Ok(Token::BeginArray) && lexer.next() == Ok(Token::EndArray)
    }

    /// The end of a structure's object after its `children`.
    fn end_structure(&mut self) -> Result<()> {
        match self.next_key()? {
            Some(key) => self.error(format!(
                "`{key}` after `children`: `children` must be the structure's last member"
            )),
            None => Ok(()),
        }
    }

    /// A structure's members up to its `children` (then `true`, the reader at the array) or its end.
    fn structure_fields(&mut self) -> Result<(Pending<'t>, bool)> {
        self.begin_object("a structure (an object)")?;
        let mut p = Pending {
            at: self.lexer.start,
            ..Pending::default()
        };
        while let Some(key) = self.next_key()? {
            match &*key {
                "xref" => {
                    p.xref = self.opt_string()?;
                    // Reported when the structure is added: an `UNDEF` record made for a pointer has the
                    // pointer's target, which need not be an identifier.
                    p.bad_xref = p
                        .xref
                        .as_deref()
                        .and_then(|x| check_xref(x).err())
                        .and_then(|e| self.valid(Err(e)).err());
                }
                "tag" => {
                    let tag = self.string()?;
                    self.valid(check_tag(&tag))?;
                    p.tag = Some(tag);
                }
                "payload" => self.payload(&mut p)?,
                "line" => p.line = self.opt_line()?,
                "children" => return Ok((p, true)),
                other => return self.error(unknown_member(other, "a structure")),
            }
        }
        Ok((p, false))
    }

    /// A builder's verdict on the last value read.
    fn valid(&self, verdict: Result<(), BuildError>) -> Result<()> {
        verdict.or_else(|e| self.error(e.to_string()))
    }

    /// `null`, `{"text": …, "lang": …, "datatype": …}` or `{"pointer": …, "undefined": …}`.
    fn payload(&mut self, p: &mut Pending<'t>) -> Result<()> {
        if self.peek()? == Token::Null {
            self.next()?;
            return Ok(());
        }
        self.begin_object("null or an object")?;
        let at = self.lexer.start;
        while let Some(key) = self.next_key()? {
            match &*key {
                "text" => p.text = Some(self.string()?),
                "lang" => p.lang = Some(self.string()?),
                "datatype" => p.datatype = self.opt_string()?,
                "pointer" => {
                    let target = self.string()?;
                    self.valid(check_pointer(&target))?;
                    p.pointer = Some(target);
                }
                // Where the pointer leads is worked out again.
                "undefined" => {
                    self.bool()?;
                }
                other => return self.error(unknown_member(other, "a payload")),
            }
        }
        let text = p.text.is_some() || p.lang.is_some() || p.datatype.is_some();
        match (text, p.pointer.is_some()) {
            (true, true) => self.error_at(
                at,
                "a payload is either a string (`text`, `lang`, `datatype`) or a `pointer`",
            ),
            (false, false) => self.error_at(at, "a payload needs `text` or `pointer`"),
            _ => Ok(()),
        }
    }

    /// Adds a structure read: to `list` at the top, else as a substructure of the open structure.
    fn push(&mut self, p: &Pending<'_>, list: Option<List>) -> Result<()> {
        let Some(tag) = p.tag.as_deref() else {
            return self.error_at(p.at, "a structure needs a `tag` (before its `children`)");
        };
        if let Some(e) = &p.bad_xref {
            return Err(e.clone());
        }
        let mut s = NewStructure::new(tag);
        if let Some(x) = p.xref.as_deref() {
            s = s.with_xref(x);
        }
        if let Some(t) = p.text.as_deref() {
            s = s.with_text(t);
        }
        if let Some(t) = p.pointer.as_deref() {
            s = s.with_pointer(t);
        }
        if let Some(l) = p.lang.as_deref() {
            s = s.with_lang(l);
        }
        if let Some(d) = p.datatype.as_deref() {
            s = s.with_datatype(d);
        }
        if let Some(line) = p.line {
            s = s.with_line(line);
        }
        let done = match list {
            Some(List::Records) => self.builder.record(s),
            Some(List::Schemas) => self.builder.schema(s),
            Some(List::Other) => self.builder.metadata_structure(s),
            None => self.builder.child(s),
        };
        done.or_else(|e| self.error_at(p.at, e.to_string()))
    }

    fn close(&mut self) -> Result<()> {
        let closed = self.builder.close();
        closed.or_else(|e| self.error(e.to_string()))
    }
}

impl Pending<'_> {
    /// Whether this is an `UNDEF` record the lowering made for pointers that match no single record
    /// (R-POINTER-CONV-10): made again by the builder, not read.
    fn is_made_undef(&self) -> bool {
        self.tag.as_deref() == Some("UNDEF")
            && self.xref.is_some()
            && self.line.is_none()
            && self.text.is_none()
            && self.pointer.is_none()
            && self.lang.is_none()
            && self.datatype.is_none()
    }
}

use crate::build::quoted;

fn unknown_member(name: &str, of: &str) -> String {
    format!("`{}` is not a member of {of}", quoted(name))
}
