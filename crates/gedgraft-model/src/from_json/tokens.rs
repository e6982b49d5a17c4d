//! JSON tokens (RFC 8259), one at a time: the reader above keeps its own stack, so nesting costs no
//! recursion.

use std::borrow::Cow;

/// A JSON token.
#[derive(Debug, Clone, PartialEq)]
pub(super) enum Token<'t> {
    BeginObject,
    EndObject,
    BeginArray,
    EndArray,
    Colon,
    Comma,
    String(Cow<'t, str>),
    /// A number, as written.
    Number(&'t str),
    Bool(bool),
    Null,
    /// The end of the text.
    End,
}

impl Token<'_> {
    /// How a message names the token.
    pub fn describe(&self) -> &'static str {
        match self {
            Token::BeginObject => "`{`",
            Token::EndObject => "`}`",
            Token::BeginArray => "`[`",
            Token::EndArray => "`]`",
            Token::Colon => "`:`",
            Token::Comma => "`,`",
            Token::String(_) => "a string",
            Token::Number(_) => "a number",
            Token::Bool(_) => "a boolean",
            Token::Null => "null",
            Token::End => "the end of the text",
        }
    }
}

/// A token that is not JSON, at an octet offset.
#[derive(Debug, Clone, PartialEq, Eq)]
pub(super) struct LexError {
    pub at: usize,
    pub message: String,
}

/// Reads tokens from a text.
#[derive(Debug, Clone)]
pub(super) struct Lexer<'t> {
    text: &'t str,
    pos: usize,
    /// Where the last token read starts.
    pub start: usize,
}

impl<'t> Lexer<'t> {
    pub fn new(text: &'t str) -> Lexer<'t> {
        // A byte order mark is not JSON, but editors write one; it is skipped.
        let pos = if text.starts_with('\u{feff}') { 3 } else { 0 };
        Lexer {
            text,
            pos,
            start: pos,
        }
    }

    fn error<T>(&self, at: usize, message: impl Into<String>) -> Result<T, LexError> {
        Err(LexError {
            at,
            message: message.into(),
        })
    }

    /// The next token without reading it.
    pub fn peek(&self) -> Result<Token<'t>, LexError> {
        self.clone().next()
    }

    /// Reads the next token.
    pub fn next(&mut self) -> Result<Token<'t>, LexError> {
        let bytes = self.text.as_bytes();
        while let Some(b' ' | b'\t' | b'\n' | b'\r') = bytes.get(self.pos) {
            self.pos += 1;
        }
        self.start = self.pos;
        let Some(&b) = bytes.get(self.pos) else {
            return Ok(Token::End);
        };
        let single = match b {
            b'{' => Some(Token::BeginObject),
            b'}' => Some(Token::EndObject),
            b'[' => Some(Token::BeginArray),
            b']' => Some(Token::EndArray),
            b':' => Some(Token::Colon),
            b',' => Some(Token::Comma),
            _ => None,
        };
        if let Some(token) = single {
            self.pos += 1;
            return Ok(token);
        }
        match b {
            b'"' => self.string(),
            b'-' | b'0'..=b'9' => self.number(),
            b't' => self.word("true", Token::Bool(true)),
            b'f' => self.word("false", Token::Bool(false)),
            b'n' => self.word("null", Token::Null),
            _ => {
                let c = self.text.get(self.pos..).and_then(|t| t.chars().next());
                self.error(
                    self.pos,
                    format!("`{}` cannot start a JSON value", c.unwrap_or('?')),
                )
            }
        }
    }

    fn word(&mut self, word: &str, token: Token<'t>) -> Result<Token<'t>, LexError> {
        let rest = self.text.get(self.pos..).unwrap_or("");
        let len = rest
            .bytes()
            .take_while(|b| b.is_ascii_alphanumeric())
            .count();
        if rest.get(..len) == Some(word) {
            self.pos += len;
            Ok(token)
        } else {
            self.error(
                self.pos,
                format!("`{}` is not a JSON value", rest.get(..len).unwrap_or("")),
            )
        }
    }

    /// `-? (0 | [1-9][0-9]*) (. [0-9]+)? ([eE] [+-]? [0-9]+)?`
    fn number(&mut self) -> Result<Token<'t>, LexError> {
        let bytes = self.text.as_bytes();
        let start = self.pos;
        let mut i = start;
        let digits = |i: &mut usize| {
            let from = *i;
            while bytes.get(*i).is_some_and(u8::is_ascii_digit) {
                *i += 1;
            }
            *i > from
        };
        if bytes.get(i) == Some(&b'-') {
            i += 1;
        }
        let leading_zero = bytes.get(i) == Some(&b'0');
        let mut ok =
            digits(&mut i) && !(leading_zero && i - start > 1 + usize::from(bytes[start] == b'-'));
        if ok && bytes.get(i) == Some(&b'.') {
            i += 1;
            ok = digits(&mut i);
        }
        if ok && matches!(bytes.get(i), Some(b'e' | b'E')) {
            i += 1;
            if matches!(bytes.get(i), Some(b'+' | b'-')) {
                i += 1;
            }
            ok = digits(&mut i);
        }
        if !ok {
            return self.error(start, "malformed number");
        }
        self.pos = i;
        Ok(Token::Number(self.text.get(start..i).unwrap_or("")))
    }

    /// A string: borrowed when it has no escape.
    fn string(&mut self) -> Result<Token<'t>, LexError> {
        let bytes = self.text.as_bytes();
        let start = self.pos + 1;
        let mut i = start;
        let mut owned: Option<String> = None;
        let mut run = start;
        loop {
            match bytes.get(i) {
                None => return self.error(self.start, "unterminated string"),
                Some(b'"') => break,
                Some(b) if *b < 0x20 => {
                    return self.error(i, "control character in a string (write it as \\u00XX)")
                }
                Some(b'\\') => {
                    let out = owned.get_or_insert_with(String::new);
                    out.push_str(self.text.get(run..i).unwrap_or(""));
                    i = self.escape(i, out)?;
                    run = i;
                }
                Some(_) => i += 1,
            }
        }
        self.pos = i + 1;
        let tail = self.text.get(run..i).unwrap_or("");
        Ok(Token::String(match owned {
            Some(mut s) => {
                s.push_str(tail);
                Cow::Owned(s)
            }
            None => Cow::Borrowed(tail),
        }))
    }

    /// The escape at `at` (a backslash) appended to `out`; returns the offset after it.
    fn escape(&self, at: usize, out: &mut String) -> Result<usize, LexError> {
        let bytes = self.text.as_bytes();
        let c = match bytes.get(at + 1) {
            Some(b'"') => '"',
            Some(b'\\') => '\\',
            Some(b'/') => '/',
            Some(b'b') => '\u{8}',
            Some(b'f') => '\u{c}',
            Some(b'n') => '\n',
            Some(b'r') => '\r',
            Some(b't') => '\t',
            Some(b'u') => return self.unicode_escape(at, out),
            _ => return self.error(at, "unknown escape in a string"),
        };
        out.push(c);
        Ok(at + 2)
    }

    /// `\uXXXX`, or a surrogate pair `\uD8XX\uDCXX`.
    fn unicode_escape(&self, at: usize, out: &mut String) -> Result<usize, LexError> {
        let hex = |from: usize| {
            self.text
                .get(from..from + 4)
                .filter(|h| h.bytes().all(|b| b.is_ascii_hexdigit()))
                .and_then(|h| u32::from_str_radix(h, 16).ok())
        };
        let Some(high) = hex(at + 2) else {
            return self.error(at, "`\\u` needs four hexadecimal digits");
        };
        let (code, end) = if (0xD800..0xDC00).contains(&high) {
            let low = (self.text.get(at + 6..at + 8) == Some("\\u"))
                .then(|| hex(at + 8))
                .flatten()
                .filter(|low| (0xDC00..0xE000).contains(low));
            match low {
                Some(low) => (0x10000 + ((high - 0xD800) << 10) + (low - 0xDC00), at + 12),
                None => return self.error(at, "a high surrogate without its low surrogate"),
            }
        } else {
            (high, at + 6)
        };
        match char::from_u32(code) {
            Some(c) => {
                out.push(c);
                Ok(end)
            }
            None => self.error(at, "a lone low surrogate is not a character"),
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tokens(text: &str) -> Result<Vec<Token<'_>>, LexError> {
        let mut lexer = Lexer::new(text);
        let mut out = Vec::new();
        loop {
            match lexer.next()? {
                Token::End => return Ok(out),
                t => out.push(t),
            }
        }
    }

    #[test]
    fn strings_numbers_and_words() {
        assert_eq!(
            tokens(r#"{"a\n\u00e9\ud83d\ude00": [-1.5e3, 0, true, null]}"#),
            Ok(vec![
                Token::BeginObject,
                Token::String(Cow::Owned("a\né😀".to_string())),
                Token::Colon,
                Token::BeginArray,
                Token::Number("-1.5e3"),
                Token::Comma,
                Token::Number("0"),
                Token::Comma,
                Token::Bool(true),
                Token::Comma,
                Token::Null,
                Token::EndArray,
                Token::EndObject,
            ])
        );
    }

    #[test]
    fn malformed_tokens_are_errors_at_their_offset() {
        let at = |text| tokens(text).map_err(|e| e.at);
        assert_eq!(at("[01]"), Err(1));
        assert_eq!(at("[1.]"), Err(1));
        assert_eq!(at(r#"["a"#), Err(1));
        assert_eq!(at("[\"a\tb\"]"), Err(3));
        assert_eq!(at(r#"["\x"]"#), Err(2));
        assert_eq!(at(r#"["\ud800"]"#), Err(2));
        assert_eq!(at(r#"["\udc00"]"#), Err(2));
        assert_eq!(at("[nul]"), Err(1));
        assert_eq!(at("[+1]"), Err(1));
    }
}
