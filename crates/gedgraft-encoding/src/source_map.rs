//! Converting offsets in decoded text back to offsets in the original octets.
//!
//! Decoding records, for every character it produces, how many text bytes (UTF-8) and how many file octets it
//! spans. Neighbouring characters with the same proportion are merged into one run, so a clean UTF-8 file has a
//! single run and a mostly-ASCII file in another encoding has few.

/// One stretch of text in which every unit of `text_unit` text bytes came from `file_unit` file octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    text_start: usize,
    file_start: usize,
    text_unit: u8,
    file_unit: u8,
}

/// Maps byte offsets in decoded text to byte offsets in the original file.
///
/// ```
/// use gedgraft_encoding::SourceMap;
/// let mut map = SourceMap::builder();
/// map.push(1, 2, 10); // ten ASCII characters from UTF-16: 10 text bytes, 20 octets
/// map.push(4, 1, 1); // one raw octet: 4 text bytes, 1 octet
/// let map = map.finish();
/// assert_eq!(map.file_offset(4), 8);
/// assert_eq!(map.file_offset(14), 21);
/// assert_eq!(map.text_len(), 14);
/// assert_eq!(map.file_len(), 21);
/// ```
#[derive(Debug, Clone, PartialEq, Eq, Default)]
pub struct SourceMap {
    runs: Vec<Run>,
    text_len: usize,
    file_len: usize,
}

/// Builds a [`SourceMap`] one decoded unit (or run of equal units) at a time.
#[derive(Debug, Default)]
pub struct SourceMapBuilder {
    map: SourceMap,
}

fn gcd(a: usize, b: usize) -> usize {
    if b == 0 {
        a
    } else {
        gcd(b, a % b)
    }
}

impl SourceMapBuilder {
    /// Records `count` units, each `text_unit` text bytes decoded from `file_unit` file octets.
    pub fn push(&mut self, text_unit: usize, file_unit: usize, count: usize) {
        if count == 0 || (text_unit == 0 && file_unit == 0) {
            return;
        }
        let (text_unit, file_unit, count) =
            if text_unit == 0 || file_unit == 0 || text_unit > 255 || file_unit > 255 {
                // A degenerate or huge unit: record it as one unit of its whole size.
                (text_unit * count, file_unit * count, 1)
            } else {
                let g = gcd(text_unit, file_unit);
                (text_unit / g, file_unit / g, count * g)
            };
        let map = &mut self.map;
        let fits = text_unit <= 255 && file_unit <= 255 && text_unit > 0;
        let same = map.runs.last().is_some_and(|r| {
            fits && usize::from(r.text_unit) == text_unit && usize::from(r.file_unit) == file_unit
        });
        if !same {
            if fits {
                map.runs.push(Run {
                    text_start: map.text_len,
                    file_start: map.file_len,
                    text_unit: text_unit as u8,
                    file_unit: file_unit as u8,
                });
            } else {
                // Text of zero length (an octet sequence that decodes to nothing) or an oversized unit: a run
                // whose interior is never addressed, so only its start matters.
                map.runs.push(Run {
                    text_start: map.text_len,
                    file_start: map.file_len,
                    text_unit: 1,
                    file_unit: 0,
                });
            }
        }
        map.text_len += text_unit * count;
        map.file_len += file_unit * count;
    }

    /// The text length recorded so far.
    pub fn text_len(&self) -> usize {
        self.map.text_len
    }

    /// The file length recorded so far.
    pub fn file_len(&self) -> usize {
        self.map.file_len
    }

    /// The finished map.
    pub fn finish(self) -> SourceMap {
        self.map
    }
}

impl SourceMap {
    /// A builder for a new map.
    pub fn builder() -> SourceMapBuilder {
        SourceMapBuilder::default()
    }

    /// The identity map for `len` octets of text that are the file itself (clean UTF-8).
    pub fn identity(len: usize) -> SourceMap {
        let mut b = SourceMap::builder();
        b.push(1, 1, len);
        b.finish()
    }

    /// The length of the decoded text.
    pub fn text_len(&self) -> usize {
        self.text_len
    }

    /// The length of the original octets.
    pub fn file_len(&self) -> usize {
        self.file_len
    }

    /// Whether every text offset equals its file offset.
    pub fn is_identity(&self) -> bool {
        self.runs.iter().all(|r| r.text_unit == r.file_unit)
            && self.runs.first().is_none_or(|r| r.file_start == 0)
    }

    /// The file offset of a text offset that falls on a character boundary; offsets past the end clamp to the
    /// end of the file.
    pub fn file_offset(&self, text_offset: usize) -> usize {
        if text_offset >= self.text_len {
            return self.file_len;
        }
        let idx = self.runs.partition_point(|r| r.text_start <= text_offset);
        let Some(run) = idx.checked_sub(1).and_then(|i| self.runs.get(i)) else {
            return text_offset.min(self.file_len);
        };
        let units = (text_offset - run.text_start) / usize::from(run.text_unit);
        run.file_start + units * usize::from(run.file_unit)
    }

    /// The text offset of a file offset that falls on a character boundary; offsets past the end clamp to the
    /// end of the text.
    pub fn text_offset(&self, file_offset: usize) -> usize {
        if file_offset >= self.file_len {
            return self.text_len;
        }
        let idx = self.runs.partition_point(|r| r.file_start <= file_offset);
        let Some(run) = idx.checked_sub(1).and_then(|i| self.runs.get(i)) else {
            return file_offset.min(self.text_len);
        };
        if run.file_unit == 0 {
            return run.text_start;
        }
        let units = (file_offset - run.file_start) / usize::from(run.file_unit);
        run.text_start + units * usize::from(run.text_unit)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn identity_maps_offsets_to_themselves() {
        let m = SourceMap::identity(100);
        assert!(m.is_identity());
        assert_eq!(m.file_offset(0), 0);
        assert_eq!(m.file_offset(57), 57);
        assert_eq!(m.file_offset(100), 100);
        assert_eq!(m.text_offset(42), 42);
    }

    #[test]
    fn mixed_units_map_both_ways() {
        let mut b = SourceMap::builder();
        b.push(3, 3, 1); // BOM EF BB BF
        b.push(1, 1, 5); // "0 HEA"
        b.push(2, 1, 1); // é from one windows-1252 octet
        b.push(1, 1, 2);
        b.push(4, 1, 1); // one raw octet
        let m = b.finish();
        assert_eq!(m.text_len(), 3 + 5 + 2 + 2 + 4);
        assert_eq!(m.file_len(), 3 + 5 + 1 + 2 + 1);
        assert_eq!(m.file_offset(8), 8);
        assert_eq!(m.file_offset(10), 9);
        assert_eq!(m.file_offset(12), 11);
        assert_eq!(m.file_offset(16), 12);
        assert_eq!(m.text_offset(9), 10);
        assert_eq!(m.text_offset(11), 12);
        assert!(!m.is_identity());
    }

    #[test]
    fn empty_decodings_do_not_break_lookup() {
        let mut b = SourceMap::builder();
        b.push(1, 1, 2);
        b.push(0, 2, 1);
        b.push(1, 1, 2);
        let m = b.finish();
        assert_eq!(m.file_offset(2), 4);
        assert_eq!(m.file_offset(3), 5);
    }
}
