//! Colours of the human `check` output, as rustc colours its diagnostics: the severity and code in red or
//! yellow, the message in bold, the gutter and arrow in blue, the carets in the severity's colour.
//!
//! Whether to colour follows `--color`: `always` and `never` say so; `auto` (the default) asks anstream,
//! which says no when `NO_COLOR` is set or standard output is not a terminal, and yes when `CLICOLOR_FORCE` is
//! set, as the conventions at no-color.org and bixense.com/clicolors ask.

use anstyle::{AnsiColor, Style};
use clap::ValueEnum;
use gedgraft_syntax::Severity;

/// The `--color` option.
#[derive(Debug, Clone, Copy, PartialEq, Eq, ValueEnum)]
pub enum ColorWhen {
    /// Colour when standard output is a terminal, unless `NO_COLOR` is set (or `CLICOLOR_FORCE` asks for it).
    Auto,
    /// Always colour.
    Always,
    /// Never colour.
    Never,
}

impl ColorWhen {
    /// Whether output to standard output is coloured.
    pub fn for_stdout(self) -> bool {
        match self {
            ColorWhen::Always => true,
            ColorWhen::Never => false,
            ColorWhen::Auto => {
                anstream::AutoStream::choice(&std::io::stdout()) != anstream::ColorChoice::Never
            }
        }
    }
}

/// The styles of each part of a diagnostic; all plain when colour is off, so that they render as nothing.
#[derive(Debug, Clone, Copy, Default)]
pub struct Palette {
    error: Style,
    warning: Style,
    /// The message after `error[code]: `.
    pub message: Style,
    /// The `-->` arrow, the gutter `|` and the line numbers in it.
    pub gutter: Style,
    /// `help` and `note` labels.
    pub label: Style,
}

impl Palette {
    /// rustc's colours, or none.
    pub fn new(colour: bool) -> Palette {
        if !colour {
            return Palette::default();
        }
        let bold = Style::new().bold();
        Palette {
            error: bold.fg_color(Some(AnsiColor::BrightRed.into())),
            warning: bold.fg_color(Some(AnsiColor::BrightYellow.into())),
            message: bold,
            gutter: bold.fg_color(Some(AnsiColor::BrightBlue.into())),
            label: bold,
        }
    }

    /// The colour of a severity: for `error[code]` and the carets.
    pub fn severity(&self, severity: Severity) -> Style {
        match severity {
            Severity::Error => self.error,
            Severity::Warning => self.warning,
        }
    }
}
