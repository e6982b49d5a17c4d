//! A diagnostic's sentence ([`Message`]), shared by the diagnostics that say the same thing.
//!
//! A hostile file can have a diagnostic on every other line, all with one sentence ("level 3 follows level 1;
//! …", "this line is left out of the dataset"): a text of their own would cost each diagnostic some fifty
//! octets more than the diagnostic itself (#12). So a message made like the last one of its code, on the same
//! thread, shares that one's text ([`Message::shared`]), and the handle is one pointer wide.

use std::cell::RefCell;
use std::fmt;
use std::ops::Deref;
use std::sync::Arc;

/// The text of a [`Diagnostic`](crate::Diagnostic): a `str` that diagnostics saying the same thing share. It
/// reads as a `str` (`Deref`), prints as one, and compares with one.
///
/// ```
/// use gedgraft_syntax::{Class, Diagnostic, TextRange};
/// let d = Diagnostic::new("bad-tag", Class::MalformedLine, "`Ü` is not a tag", TextRange::default());
/// assert_eq!(d.message, "`Ü` is not a tag");
/// assert!(d.message.contains("not a tag"));
/// let text: String = d.message.to_string();
/// assert_eq!(format!("{}", d.message), text);
/// ```
#[derive(Clone, PartialEq, Eq, PartialOrd, Ord, Hash)]
pub struct Message(Arc<String>);

/// How many codes' last messages each thread keeps to share ([`Message::shared`]).
const KEPT: usize = 8;

thread_local! {
    /// The last messages made on this thread, with their codes; the least recently made first.
    static LAST: RefCell<Vec<(&'static str, Message)>> = const { RefCell::new(Vec::new()) };
}

impl Message {
    /// `text` as a message of `code`: the text of the last message of `code` made on this thread (of the last
    /// eight codes) when it says the same, else a text of its own.
    pub(crate) fn shared(code: &'static str, text: String) -> Message {
        LAST.with(|last| {
            let Ok(mut last) = last.try_borrow_mut() else {
                return Message::from(text);
            };
            let same_code = last.iter().position(|(c, _)| *c == code);
            if let Some(i) = same_code {
                if last[i].1.as_str() == text {
                    return last[i].1.clone();
                }
                last.remove(i);
            } else if last.len() >= KEPT {
                last.remove(0);
            }
            let message = Message::from(text);
            last.push((code, message.clone()));
            message
        })
    }

    /// The text.
    pub fn as_str(&self) -> &str {
        self.0.as_str()
    }
}

impl Deref for Message {
    type Target = str;
    fn deref(&self) -> &str {
        self.as_str()
    }
}

impl AsRef<str> for Message {
    fn as_ref(&self) -> &str {
        self.as_str()
    }
}

impl From<String> for Message {
    /// A message with a text of its own (a text made by `format!` may have room for twice its length: it is
    /// given back).
    fn from(mut text: String) -> Message {
        text.shrink_to_fit();
        Message(Arc::new(text))
    }
}

impl From<&str> for Message {
    fn from(text: &str) -> Message {
        Message(Arc::new(text.to_owned()))
    }
}

impl fmt::Display for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(self.as_str())
    }
}

impl fmt::Debug for Message {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        fmt::Debug::fmt(self.as_str(), f)
    }
}

impl PartialEq<str> for Message {
    fn eq(&self, other: &str) -> bool {
        self.as_str() == other
    }
}

impl PartialEq<&str> for Message {
    fn eq(&self, other: &&str) -> bool {
        self.as_str() == *other
    }
}

impl PartialEq<String> for Message {
    fn eq(&self, other: &String) -> bool {
        self.as_str() == other
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    /// Messages of one code that say the same share one text; another text, or another code's, does not; and
    /// a code's last message is shared again after another code's came between.
    #[test]
    fn messages_that_say_the_same_share_their_text() {
        let a = Message::shared("level-jump", "level 3 follows level 1".into());
        let b = Message::shared("lines-left-out", "left out".into());
        let c = Message::shared("level-jump", "level 3 follows level 1".into());
        assert!(Arc::ptr_eq(&a.0, &c.0));
        assert!(!Arc::ptr_eq(&a.0, &b.0));
        let d = Message::shared("level-jump", "level 4 follows level 1".into());
        assert_eq!(
            (d.as_str(), a.as_str()),
            ("level 4 follows level 1", "level 3 follows level 1")
        );
        assert!(!Arc::ptr_eq(&a.0, &d.0));
        let e = Message::shared("bad-tag", "level 4 follows level 1".into());
        assert!(
            !Arc::ptr_eq(&d.0, &e.0),
            "another code's message is its own"
        );
        assert_eq!(std::mem::size_of::<Message>(), std::mem::size_of::<usize>());
    }
}
