//! Converting offsets in decoded text back to offsets in the original octets.
//!
//! Decoding records, for every character it produces, how many text bytes (UTF-8) and how many file octets it
//! spans. Neighbouring characters with the same proportion are merged into one run, so a clean UTF-8 file has a
//! single run and a mostly-ASCII file in another encoding has few.

/// One stretch of text in which every unit of `text_unit` text bytes came from `file_unit` file octets. Its
/// starts are relative to its [`Block`]'s: twelve octets a run, since a file of random octets has a run every
/// two or three octets.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Run {
    text_start: u32,
    file_start: u32,
    text_unit: u8,
    file_unit: u8,
}

/// The runs from `first_run` on (up to the next block's) start at these offsets plus their own: a new block
/// starts when a run's start would not fit in 32 bits.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Block {
    first_run: usize,
    text_base: usize,
    file_base: usize,
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
    blocks: Vec<Block>,
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
        // The run goes on with the units it was made of (stored in lowest terms): no reduction to make.
        // Decoders push one character at a time, so this is most calls.
        let map = &mut self.map;
        if let Some(r) = map.runs.last() {
            if r.file_unit != 0
                && usize::from(r.text_unit) == text_unit
                && usize::from(r.file_unit) == file_unit
            {
                map.text_len += text_unit * count;
                map.file_len += file_unit * count;
                return;
            }
        }
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
            let (text_unit, file_unit) = if fits {
                (text_unit as u8, file_unit as u8)
            } else {
                // Text of zero length (an octet sequence that decodes to nothing) or an oversized unit: a run
                // whose interior is never addressed, so only its start matters.
                (1, 0)
            };
            map.push_run(text_unit, file_unit);
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
    pub fn finish(mut self) -> SourceMap {
        self.map.runs.shrink_to_fit();
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
            && self.blocks.first().is_none_or(|b| b.file_base == 0)
    }

    /// Starts a run at the current ends, in a new block if its starts do not fit the current one's.
    fn push_run(&mut self, text_unit: u8, file_unit: u8) {
        let relative = self.blocks.last().and_then(|b| {
            let text = u32::try_from(self.text_len - b.text_base).ok()?;
            let file = u32::try_from(self.file_len - b.file_base).ok()?;
            Some((text, file))
        });
        let (text_start, file_start) = relative.unwrap_or_else(|| {
            self.blocks.push(Block {
                first_run: self.runs.len(),
                text_base: self.text_len,
                file_base: self.file_len,
            });
            (0, 0)
        });
        self.runs.push(Run {
            text_start,
            file_start,
            text_unit,
            file_unit,
        });
    }

    /// The last run whose start (by `start`, in text or file offsets) is at most `offset`, with its block.
    fn run_at(
        &self,
        offset: usize,
        start: impl Fn(&Block, &Run) -> usize,
    ) -> Option<(&Block, &Run)> {
        let b = self
            .blocks
            .partition_point(|b| {
                self.runs
                    .get(b.first_run)
                    .is_some_and(|r| start(b, r) <= offset)
            })
            .checked_sub(1)?;
        let block = self.blocks.get(b)?;
        let end = self
            .blocks
            .get(b + 1)
            .map_or(self.runs.len(), |n| n.first_run);
        let runs = self.runs.get(block.first_run..end)?;
        let i = runs
            .partition_point(|r| start(block, r) <= offset)
            .checked_sub(1)?;
        Some((block, runs.get(i)?))
    }

    /// The file offset of a text offset that falls on a character boundary; offsets past the end clamp to the
    /// end of the file.
    pub fn file_offset(&self, text_offset: usize) -> usize {
        if text_offset >= self.text_len {
            return self.file_len;
        }
        let Some((block, run)) =
            self.run_at(text_offset, |b, r| b.text_base + r.text_start as usize)
        else {
            return text_offset.min(self.file_len);
        };
        let run_text = block.text_base + run.text_start as usize;
        let units = (text_offset - run_text) / usize::from(run.text_unit);
        block.file_base + run.file_start as usize + units * usize::from(run.file_unit)
    }

    /// The text offset of a file offset that falls on a character boundary; offsets past the end clamp to the
    /// end of the text.
    pub fn text_offset(&self, file_offset: usize) -> usize {
        if file_offset >= self.file_len {
            return self.text_len;
        }
        let Some((block, run)) =
            self.run_at(file_offset, |b, r| b.file_base + r.file_start as usize)
        else {
            return file_offset.min(self.text_len);
        };
        let run_text = block.text_base + run.text_start as usize;
        if run.file_unit == 0 {
            return run_text;
        }
        let units =
            (file_offset - block.file_base - run.file_start as usize) / usize::from(run.file_unit);
        run_text + units * usize::from(run.text_unit)
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
    fn runs_past_four_gib_start_a_block_and_map_as_before() {
        let gib = 1usize << 30;
        let mut b = SourceMap::builder();
        b.push(1, 2, 3 * gib); // UTF-16: 3 GiB of text from 6 GiB of octets
        b.push(4, 1, 1); // one raw octet: its file start no longer fits 32 bits
        b.push(1, 1, 10);
        let m = b.finish();
        assert_eq!(m.blocks.len(), 2);
        assert_eq!(m.file_offset(2 * gib), 4 * gib);
        assert_eq!(m.file_offset(3 * gib), 6 * gib);
        assert_eq!(m.file_offset(3 * gib + 4), 6 * gib + 1);
        assert_eq!(m.file_offset(3 * gib + 9), 6 * gib + 6);
        assert_eq!(m.text_offset(6 * gib + 1), 3 * gib + 4);
        assert_eq!(m.text_offset(4 * gib), 2 * gib);
        assert_eq!((m.text_len(), m.file_len()), (3 * gib + 14, 6 * gib + 11));
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
