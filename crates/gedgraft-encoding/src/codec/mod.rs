//! The codecs: one module per family of encodings, each octet-exact.
//!
//! A codec's `decode_into` appends decoded text and records its source map; octets that would not come back
//! unchanged from `encode` are appended as raw characters (see [`crate::raw`]). A codec's `encode_str`
//! never sees raw characters: [`crate::Encoding::encode`] turns those back into their octets itself.

pub(crate) mod single_byte;
pub(crate) mod utf16;
pub(crate) mod utf8;
