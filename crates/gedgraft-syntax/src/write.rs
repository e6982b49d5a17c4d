//! Writing a green tree back to octets, token by token, in the file's encoding.
//!
//! Every token is written from the tree (never from the input), so a round trip tests the tree. `RAW` tokens hold
//! raw characters (U+10FF00 + octet), `TRAILING_TEXT` tokens may (binary junk is one token, not one per run of
//! undecodable octets); both go through [`Encoding::encode`]. A `BOM` token is written with the byte-order
//! mark's encoding; every other token holds no raw characters (the lexer keeps them in `RAW` tokens) and is
//! written with [`Encoding::encode_plain`], which for UTF-8 is its text as it is.
//!
//! UTF-8, the common case, has its own walk with no per-token dispatch on the encoding and no `memcpy` call for
//! short tokens. Large trees are written on several threads: the document's top-level children are cut into
//! contiguous ranges of about equal text length (a few per thread, taken from a queue), each written into its own
//! part of one buffer (a UTF-8 subtree never writes more octets than its text length, since raw characters shrink
//! from four octets to one), and the parts are closed up afterwards if any came out shorter. Other encodings
//! write each range into a vector of its own and concatenate them.

use crate::kind::{SyntaxKind, SyntaxNode};
use crate::parse::Parse;
use gedgraft_encoding::{Encoding, Unencodable};
use rowan::{Children, GreenNodeData, GreenTokenData, NodeOrToken};
use text_size::TextRange;

/// Below this many octets of text per thread, automatic mode (`threads == 0`) uses fewer threads.
const MIN_RANGE_LEN: usize = 1 << 20;

/// Ranges per thread: threads take the next range when they finish one, so a thread slowed down by other work
/// on its core leaves more ranges to the others.
const RANGES_PER_THREAD: usize = 4;

/// Writes the octets of a green subtree, appending them to `out`: byte-order marks in `bom_encoding` (or
/// `encoding`), everything else in `encoding`. Iterative, so deep trees cannot overflow the stack.
///
/// On an error, `out` holds the octets of the tokens before the one that failed.
///
/// ```
/// use gedgraft_syntax::{encoding::Encoding, parse, write_green};
/// let parse = parse(b"0 HEAD\n0 TRLR\n");
/// let mut out = Vec::new();
/// write_green(parse.green(), Encoding::Utf16Le, None, &mut out).unwrap();
/// assert_eq!(out.len(), 2 * 14);
/// ```
pub fn write_green(
    node: &GreenNodeData,
    encoding: Encoding,
    bom_encoding: Option<Encoding>,
    out: &mut Vec<u8>,
) -> Result<(), Unencodable> {
    if usize::from(node.text_len()) >= 2 * MIN_RANGE_LEN {
        // Large trees (an editor writing a whole file) go on all cores; on an error the tree is written again
        // on this thread, so that `out` holds what comes before the failing token.
        if let Ok(octets) = write_green_threads(node, encoding, bom_encoding, 0) {
            if out.is_empty() {
                *out = octets;
            } else {
                out.extend_from_slice(&octets);
            }
            return Ok(());
        }
    }
    write_sequential(node, encoding, bom_encoding, out)
}

/// [`write_green`] on the calling thread, appending to `out`.
fn write_sequential(
    node: &GreenNodeData,
    encoding: Encoding,
    bom_encoding: Option<Encoding>,
    out: &mut Vec<u8>,
) -> Result<(), Unencodable> {
    write_range(node.children(), usize::MAX, encoding, bom_encoding, out)
}

/// The octets of a green subtree, as [`write_green`] writes them, on up to `threads` threads: 0 for one per core
/// when the tree is large enough to gain from it (at least 1 MiB of text per thread), 1 for the calling thread
/// only, 2 or more for up to that many threads whatever the size. The threads take contiguous ranges of the
/// top-level children from a queue. The octets are the same either way; on an error, the first unencodable
/// character in document order is reported.
///
/// ```
/// use gedgraft_syntax::{encoding::Encoding, internal::write_green_threads, parse};
/// let octets = b"0 HEAD\n1 NOTE Jos\xE9\n0 TRLR\n";
/// let parse = parse(octets);
/// for threads in 0..4 {
///     assert_eq!(write_green_threads(parse.green(), Encoding::Utf8, None, threads).unwrap(), octets);
/// }
/// ```
pub fn write_green_threads(
    node: &GreenNodeData,
    encoding: Encoding,
    bom_encoding: Option<Encoding>,
    threads: usize,
) -> Result<Vec<u8>, Unencodable> {
    let (workers, ranges) = plan(node, threads);
    if encoding == Encoding::Utf8 {
        if let Some(out) = write_utf8_ranges(node, bom_encoding, &ranges, workers)? {
            return Ok(out);
        }
        // Some range wrote more than its text length (only a byte-order mark in a longer encoding could):
        // write the whole tree again into a growing buffer.
        let mut out = Vec::with_capacity(usize::from(node.text_len()));
        write_sequential(node, encoding, bom_encoding, &mut out)?;
        return Ok(out);
    }
    let parts = crate::work::in_order(ranges, workers, |range| {
        let mut out = Vec::with_capacity(estimate(encoding, range.text_len()));
        let children = children_from(node, range.first);
        write_range(children, range.count, encoding, bom_encoding, &mut out).map(|()| out)
    });
    let mut parts = parts.into_iter();
    let mut out = match parts.next() {
        Some(first) => first?,
        None => return Ok(Vec::new()),
    };
    let rest: Vec<Vec<u8>> = parts.collect::<Result<_, _>>()?;
    out.reserve_exact(rest.iter().map(Vec::len).sum());
    for part in rest {
        out.extend_from_slice(&part);
    }
    Ok(out)
}

impl Parse {
    /// The file's octets, as [`Parse::to_bytes`] writes them, on up to `threads` threads (see
    /// [`write_green_threads`]; 0 is what `to_bytes` does).
    ///
    /// ```
    /// let parse = gedgraft_syntax::parse(b"0 HEAD\n0 TRLR\n");
    /// assert_eq!(parse.to_bytes_threads(2).unwrap(), b"0 HEAD\n0 TRLR\n");
    /// ```
    pub fn to_bytes_threads(&self, threads: usize) -> Result<Vec<u8>, Unencodable> {
        write_green_threads(
            self.green(),
            self.encoding(),
            self.detection().bom.map(|b| b.encoding),
            threads,
        )
    }
}

/// Why a walk into a slice stopped early.
enum Stop {
    /// A character the encoding cannot represent.
    Unencodable(Unencodable),
    /// The output slice is full.
    Full,
}

const RAW: rowan::SyntaxKind = rowan::SyntaxKind(SyntaxKind::Raw as u16);
const BOM: rowan::SyntaxKind = rowan::SyntaxKind(SyntaxKind::Bom as u16);
/// Trailing text keeps undecodable octets inside it as raw characters, like a `RAW` token.
const TRAILING: rowan::SyntaxKind = rowan::SyntaxKind(SyntaxKind::TrailingText as u16);

/// Depth-first, left-to-right walk over the first `count` elements of `children` and their subtrees, calling
/// `token` for every token with the state `state`, which it returns updated (a state passed by value stays in
/// registers). The iterator of the current node stays in a local; `stack` holds those of its ancestors.
#[inline(always)]
fn walk<T, E>(
    mut current: Children<'_>,
    count: usize,
    mut state: T,
    mut token: impl FnMut(T, &GreenTokenData) -> Result<T, E>,
) -> Result<T, E> {
    // Drop the elements after the first `count` from the back, so that every level has the same iterator type.
    let excess = current.len().saturating_sub(count);
    if excess > 0 {
        current.nth_back(excess - 1);
    }
    let mut stack = Vec::new();
    loop {
        match current.next() {
            Some(NodeOrToken::Token(t)) => state = token(state, t)?,
            Some(NodeOrToken::Node(n)) => {
                stack.push(std::mem::replace(&mut current, n.children()));
            }
            None => match stack.pop() {
                Some(parent) => current = parent,
                None => return Ok(state),
            },
        }
    }
}

/// Appends `count` top-level elements from `children` (and their subtrees) to `out`.
fn write_range(
    children: Children<'_>,
    count: usize,
    encoding: Encoding,
    bom_encoding: Option<Encoding>,
    out: &mut Vec<u8>,
) -> Result<(), Unencodable> {
    let bom_encoding = bom_encoding.unwrap_or(encoding);
    // Large UTF-8 trees take `write_utf8_slice`; this walk serves small trees and the other encodings.
    let written = walk(children, count, out, |out, token| {
        write_token(token, encoding, bom_encoding, out).map(|()| out)
    });
    written.map(|_| ())
}

/// Appends the octets of one token as [`write_green`] writes it: the raw characters of a `RAW` or
/// `TRAILING_TEXT` token as their octets ([`Encoding::encode`]), a byte-order mark in `bom_encoding`, any other
/// token in `encoding` ([`Encoding::encode_plain`]: the lexer puts raw characters in those two kinds only).
///
/// ```
/// use gedgraft_syntax::{encoding::Encoding, internal::{green_tokens, write_token}, parse};
/// let parse = parse(b"0 HEAD\n0 TRLR\n");
/// let mut out = Vec::new();
/// for token in green_tokens(parse.green()) {
///     write_token(token, Encoding::Utf16Le, Encoding::Utf16Le, &mut out).unwrap();
/// }
/// assert_eq!(out.len(), 2 * 14);
/// ```
#[inline]
pub fn write_token(
    token: &GreenTokenData,
    encoding: Encoding,
    bom_encoding: Encoding,
    out: &mut Vec<u8>,
) -> Result<(), Unencodable> {
    let kind = token.kind();
    if kind == RAW || kind == TRAILING {
        encoding.encode(token.text(), out)
    } else if kind == BOM {
        bom_encoding.encode_plain(token.text(), out)
    } else {
        encoding.encode_plain(token.text(), out)
    }
}

/// Writes `count` top-level elements from `children` (and their subtrees) in UTF-8 into `buf`, which must be
/// long enough ([`Stop::Full`] if not); returns the number of octets written. `BOM_IS_TEXT` when `bom_encoding`
/// is UTF-8, so that only `RAW` and `TRAILING_TEXT` tokens need a look. The same walk as [`walk`], written out so that the output
/// position stays in registers.
fn write_utf8_slice<const BOM_IS_TEXT: bool>(
    children: Children<'_>,
    count: usize,
    bom_encoding: Encoding,
    buf: &mut [u8],
) -> Result<usize, Stop> {
    let mut scratch = Vec::new();
    let mut stack = Vec::new();
    let mut current = children;
    // Drop the elements after the first `count` from the back, so that every level has the same iterator type.
    let excess = current.len().saturating_sub(count);
    if excess > 0 {
        current.nth_back(excess - 1);
    }
    let capacity = buf.len();
    let mut rest = buf;
    loop {
        match current.next() {
            Some(NodeOrToken::Token(token)) => {
                let kind = token.kind();
                // A byte-order mark in UTF-8 is its text as it is.
                let bytes = if kind == RAW || kind == TRAILING || (!BOM_IS_TEXT && kind == BOM) {
                    encode_special_utf8(token, bom_encoding, &mut scratch)?;
                    &scratch[..]
                } else {
                    token.text().as_bytes()
                };
                let Some((dst, tail)) = std::mem::take(&mut rest).split_at_mut_checked(bytes.len())
                else {
                    return Err(Stop::Full);
                };
                copy_short(dst, bytes);
                rest = tail;
            }
            Some(NodeOrToken::Node(n)) => {
                stack.push(std::mem::replace(&mut current, n.children()));
            }
            None => match stack.pop() {
                Some(parent) => current = parent,
                None => return Ok(capacity - rest.len()),
            },
        }
    }
}

/// The octets of a `RAW`, `TRAILING_TEXT` or `BOM` token in UTF-8 (a byte-order mark in `bom_encoding`), into `scratch`.
#[cold]
#[inline(never)]
fn encode_special_utf8(
    token: &GreenTokenData,
    bom_encoding: Encoding,
    scratch: &mut Vec<u8>,
) -> Result<(), Stop> {
    scratch.clear();
    let text = token.text();
    if token.kind() == RAW || token.kind() == TRAILING {
        Encoding::Utf8.encode(text, scratch)
    } else {
        bom_encoding.encode_plain(text, scratch)
    }
    .map_err(Stop::Unencodable)
}

/// `dst.copy_from_slice(src)` (same lengths), with the short copies most tokens need done inline as two
/// overlapping fixed-size moves instead of a call to `memcpy`.
#[inline(always)]
fn copy_short(dst: &mut [u8], src: &[u8]) {
    match src.len() {
        1 => {
            if let (Some(d), Some(s)) = (dst.first_mut(), src.first()) {
                *d = *s;
            }
        }
        2..=3 => copy_overlapping::<2>(dst, src),
        4..=7 => copy_overlapping::<4>(dst, src),
        8..=16 => copy_overlapping::<8>(dst, src),
        _ => dst.copy_from_slice(src),
    }
}

/// Copies `src` (`N` to `2 * N` octets) to `dst` (as long) as its first and last `N` octets.
#[inline(always)]
fn copy_overlapping<const N: usize>(dst: &mut [u8], src: &[u8]) {
    if let (Some(head), Some(tail)) = (src.first_chunk::<N>(), src.last_chunk::<N>()) {
        let (head, tail) = (*head, *tail);
        if let Some(d) = dst.first_chunk_mut::<N>() {
            *d = head;
        }
        if let Some(d) = dst.last_chunk_mut::<N>() {
            *d = tail;
        }
    }
}

/// A contiguous range of a node's children.
#[derive(Debug, Clone, Copy, PartialEq, Eq)]
struct Range {
    /// Index of the first child.
    first: usize,
    /// Number of children.
    count: usize,
    /// Text offset of the first child within the node.
    start: usize,
    /// Text offset just after the last child.
    end: usize,
}

impl Range {
    fn text_len(&self) -> usize {
        self.end - self.start
    }
}

/// The children of `node` from index `first` on.
fn children_from(node: &GreenNodeData, first: usize) -> Children<'_> {
    let mut children = node.children();
    if first > 0 {
        children.nth(first - 1);
    }
    children
}

/// How many threads to use and the ranges they take (see [`write_green_threads`] for what `threads` means).
fn plan(node: &GreenNodeData, threads: usize) -> (usize, Vec<Range>) {
    let total = usize::from(node.text_len());
    let children = node.children().len();
    let workers = match threads {
        0 => crate::work::workers_for(total, MIN_RANGE_LEN),
        t => t,
    }
    .min(children)
    .max(1);
    if workers == 1 {
        return (1, split(node, 1));
    }
    (workers, split(node, workers * RANGES_PER_THREAD))
}

/// Cuts the children of `node` into up to `wanted` contiguous ranges of about equal text length. Never returns an
/// empty list of ranges for a node with children.
///
/// The cuts are found by binary search on the children's offsets (rowan keeps them in the node), so planning
/// touches a few children rather than every record of a large file.
fn split(node: &GreenNodeData, wanted: usize) -> Vec<Range> {
    let total = usize::from(node.text_len());
    let n = node.children().len();
    let wanted = wanted.min(n);
    if n == 0 {
        return Vec::new();
    }
    // (index of the first child, its offset) of every range.
    let mut cuts = vec![(0, 0)];
    if wanted > 1 {
        let root = SyntaxNode::new_root(node.to_owned());
        for k in 1..wanted {
            let target = total / wanted * k + total % wanted * k / wanted;
            let Ok(target) = u32::try_from(target) else {
                break;
            };
            let Some(child) = root.child_or_token_at_range(TextRange::empty(target.into())) else {
                continue;
            };
            let (index, offset) = (child.index(), usize::from(child.text_range().start()));
            if cuts.last().is_some_and(|&(last, _)| index > last) {
                cuts.push((index, offset));
            }
        }
    }
    cuts.iter()
        .zip(cuts.iter().skip(1).copied().chain([(n, total)]))
        .map(|(&(first, start), (next, end))| Range {
            first,
            count: next - first,
            start,
            end,
        })
        .collect()
}

/// Writes UTF-8 ranges into disjoint parts of one buffer of the node's text length, then closes up the gaps
/// left by ranges whose raw characters made them shorter. `None` if some range did not fit in its part.
fn write_utf8_ranges(
    node: &GreenNodeData,
    bom_encoding: Option<Encoding>,
    ranges: &[Range],
    workers: usize,
) -> Result<Option<Vec<u8>>, Unencodable> {
    let total = usize::from(node.text_len());
    let mut buf = vec![0u8; total];
    let mut jobs = Vec::with_capacity(ranges.len());
    let mut rest = &mut buf[..];
    for range in ranges {
        let (part, tail) = rest.split_at_mut(range.text_len());
        jobs.push((*range, part));
        rest = tail;
    }
    let written = crate::work::in_order(jobs, workers, |(range, part)| {
        let children = children_from(node, range.first);
        match bom_encoding.unwrap_or(Encoding::Utf8) {
            Encoding::Utf8 => write_utf8_slice::<true>(children, range.count, Encoding::Utf8, part),
            bom => write_utf8_slice::<false>(children, range.count, bom, part),
        }
    });
    let mut lens = Vec::with_capacity(written.len());
    let mut full = false;
    for w in written {
        match w {
            Ok(len) => lens.push(len),
            Err(Stop::Unencodable(e)) => return Err(e),
            Err(Stop::Full) => full = true,
        }
    }
    if full {
        return Ok(None);
    }
    let mut pos = 0;
    for (range, len) in ranges.iter().zip(lens) {
        if range.start != pos {
            buf.copy_within(range.start..range.start + len, pos);
        }
        pos += len;
    }
    buf.truncate(pos);
    Ok(Some(buf))
}

/// A first guess at the octets a range of `text_len` octets of UTF-8 text takes in `encoding`.
fn estimate(encoding: Encoding, text_len: usize) -> usize {
    if encoding.is_utf16() {
        text_len.saturating_mul(2)
    } else {
        text_len
    }
}
