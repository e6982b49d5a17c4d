//! Diagnostics: what is wrong with the input, where, and how badly.
//!
//! Diagnostics live beside the tree, never in it. Each has a stable kebab-case [`code`](Diagnostic::code), a
//! [`Class`] following the 2019 draft's error classes, and a position in the *original file*: byte offsets in
//! the input octets and a 1-based line and column.

use std::fmt;
use text_size::TextRange;

/// The 2019 draft's classes of problems (§ Parsing lines, § Errors in structures).
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Class {
    /// A line that does not match the `Line` production; a strict ELF parser stops.
    MalformedLine,
    /// Lines that do not assemble into valid structures; a strict ELF parser stops.
    MalformedStructure,
    /// A non-conformant structure or source; the parser must stop or warn.
    NonConformant,
    /// Allowed input that is worth knowing about.
    Warning,
}

impl Class {
    /// The class's name in JSON output: `malformed-line`, `malformed-structure`, `non-conformant-structure`,
    /// `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Class::MalformedLine => "malformed-line",
            Class::MalformedStructure => "malformed-structure",
            Class::NonConformant => "non-conformant-structure",
            Class::Warning => "warning",
        }
    }

    /// The severity of problems in this class.
    pub fn severity(self) -> Severity {
        match self {
            Class::Warning => Severity::Warning,
            _ => Severity::Error,
        }
    }
}

/// How serious a diagnostic is.
#[derive(Debug, Clone, Copy, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub enum Severity {
    /// The input is not conformant.
    Error,
    /// The input is allowed but questionable.
    Warning,
}

impl Severity {
    /// `error` or `warning`.
    pub fn as_str(self) -> &'static str {
        match self {
            Severity::Error => "error",
            Severity::Warning => "warning",
        }
    }
}

/// Where a diagnostic points in the original file.
#[derive(Debug, Clone, Copy, PartialEq, Eq, Default)]
pub struct Location {
    /// Byte offset in the input octets.
    pub offset: usize,
    /// 1-based line number (line breaks per the 2019 draft: LF, CR LF, CR).
    pub line: usize,
    /// 1-based column, counted in characters (a raw octet counts as one).
    pub column: usize,
}

/// One problem found in the input.
#[derive(Debug, Clone, PartialEq, Eq)]
pub struct Diagnostic {
    /// A stable kebab-case code (see [`codes`](crate::codes)).
    pub code: &'static str,
    /// The draft's class of the problem.
    pub class: Class,
    /// A sentence for the user.
    pub message: String,
    /// The range in the tree's text.
    pub range: TextRange,
    /// Where the range starts in the original file.
    pub location: Location,
    /// Where the range ends in the original file (byte offset in the input octets).
    pub end_offset: usize,
}

impl Diagnostic {
    /// A diagnostic whose location is filled in later, when the parse result is assembled.
    pub fn new(
        code: &'static str,
        class: Class,
        message: impl Into<String>,
        range: TextRange,
    ) -> Diagnostic {
        Diagnostic {
            code,
            class,
            message: message.into(),
            range,
            location: Location::default(),
            end_offset: 0,
        }
    }

    /// The severity, from the class.
    pub fn severity(&self) -> Severity {
        self.class.severity()
    }
}

impl fmt::Display for Diagnostic {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(
            f,
            "{}:{}: {}[{}]: {}",
            self.location.line,
            self.location.column,
            self.severity().as_str(),
            self.code,
            self.message
        )
    }
}
