//! The holders of cross-reference identifiers in a batch of records, found without lowering it: the first pass
//! of a streamed lowering needs only which structures [`Builder::lower_elements`](super::super::Builder) would
//! lower with an identifier, and whether each is a record. The walk follows the builder's (records that nest
//! and are not trailers; in each, the substructures that nest, except payload annotations, and nothing under
//! a continuation line, a left-out node or an annotation) and reads each structure's first line only: no
//! payload is assembled and nothing is stored. Tested against the lowering's own holders (below).

use super::super::{header_and_trailers, is_annotation, nests_in};
use gedgraft_syntax::internal::green_view::{Elements, Node};
use gedgraft_syntax::rowan::NodeOrToken;
use gedgraft_syntax::{Parse, SyntaxKind};
use text_size::TextSize;

/// Calls `hold(identifier, is_record)` for each structure of `batch` that the lowering of a batch of records
/// (not the header's: [`StreamLowering::fragments`](super::StreamLowering) lowers that one apart) gives an
/// identifier, in file order.
pub(super) fn each_holder<'p>(batch: &'p Parse, mut hold: impl FnMut(&'p str, bool)) {
    let document = Node::new(batch.green(), TextSize::from(0));
    let (_, trailers) = header_and_trailers(document);
    // The walk of `Builder::lower_tree`, one frame per structure being walked: its remaining elements and level.
    let mut stack: Vec<(Elements<'p>, usize)> = Vec::new();
    for (i, (element, start)) in document.elements().enumerate() {
        let NodeOrToken::Node(green) = element else {
            continue;
        };
        let record = Node::new(green, start);
        if !nests_in(record, None) || trailers.binary_search(&i).is_ok() {
            continue;
        }
        let line = record.line();
        if let (Some(xref), Some(_)) = (line.xref_id(), line.xref) {
            hold(xref, true);
        }
        stack.push((line.rest, record.level().unwrap_or(0)));
        while let Some((elements, level)) = stack.last_mut() {
            let level = *level;
            let Some((element, start)) = elements.next() else {
                stack.pop();
                continue;
            };
            let NodeOrToken::Node(green) = element else {
                continue;
            };
            let node = Node::new(green, start);
            // Continuation lines and left-out nodes hold nothing the lowering keeps.
            if node.kind() == SyntaxKind::Line || !nests_in(node, Some(level)) {
                continue;
            }
            let line = node.line();
            // A payload annotation is applied to its parent, and nothing under it is lowered.
            if is_annotation(line.tag.map(|t| t.text())) {
                continue;
            }
            if let (Some(xref), Some(_)) = (line.xref_id(), line.xref) {
                hold(xref, false);
            }
            stack.push((line.rest, level.saturating_add(1)));
        }
    }
}

#[cfg(test)]
mod tests {
    use super::super::StreamLowering;
    use super::each_holder;
    use crate::LowerOptions;
    use gedgraft_syntax::stream::{RecordStream, StreamOptions};

    /// Whether the walk finds, in every batch after the header's, the holders the lowering of the batch gives
    /// (identifier and whether it is a record, in order); batches of one record each and of 4 KiB. Returns the
    /// holders of the file's batches after the header's (those of the 4 KiB batches).
    fn same_holders(name: &str, input: &[u8]) -> Vec<(String, bool)> {
        let mut all = Vec::new();
        for size in [1, 4096] {
            all.clear();
            let options = StreamOptions::default().with_batch_size(size);
            let Ok(stream) = RecordStream::new(input, options) else {
                continue;
            };
            let mut lowering = StreamLowering::new(&LowerOptions::default());
            for batch in stream {
                let Ok(batch) = batch else { break };
                let parse = batch.parse();
                if parse.origin().offset == 0 {
                    continue;
                }
                let (fragments, _) = lowering.fragments(parse, false);
                let lowered: Vec<(&str, bool)> = (fragments.iter())
                    .flat_map(|(f, _)| f.holders.iter().map(|h| (h.0, h.2)))
                    .collect();
                let mut walked = Vec::new();
                each_holder(parse, |xref, record| walked.push((xref, record)));
                assert_eq!(walked, lowered, "{name}, batches of {size}");
                all.extend(walked.into_iter().map(|(x, r)| (x.to_string(), r)));
            }
        }
        all
    }

    #[test]
    fn the_walk_finds_the_lowerings_holders() {
        // Records and substructures with identifiers; an annotation (PLANG, DTYPE) with one, and a structure
        // under it; a structure under a continuation line; a level jump (left out, with what it holds); a
        // trailer with an identifier (the batch's last record: kept) and a bare one; a HEAD record later on.
        let input = b"0 HEAD\n1 GEDC\n2 VERS 7.0\n\
            0 @I1@ INDI\n1 @N1@ NAME Ann\n2 @P1@ PLANG en\n3 @Q1@ _X y\n1 NOTE a\n2 CONT b\n3 @C1@ _Y z\n\
            1 @D1@ DTYPE x\n3 @J1@ _JUMP j\n4 @J2@ _DEEP k\n1 @S1@ _OK\n2 @S2@ _OK2\n\
            0 TRLR\n0 @F1@ FAM\n1 @M1@ MARR\n0 HEAD\n1 @H1@ _H\n0 @T1@ TRLR\n";
        let found = same_holders("handmade", input);
        let expected = [
            ("I1", true),
            ("N1", false),
            ("S1", false),
            ("S2", false),
            ("F1", true),
            ("M1", false),
            ("H1", false),
        ];
        let expected: Vec<(String, bool)> =
            expected.iter().map(|&(x, r)| (x.to_string(), r)).collect();
        assert_eq!(found, expected);
    }

    #[test]
    #[cfg_attr(
        not(has_corpus),
        ignore = "corpus missing: see README, Tests and the corpus"
    )]
    fn the_walk_finds_the_lowerings_holders_on_the_corpus() {
        let corpus = gedgraft_test_support::corpus_dir();
        let files = gedgraft_test_support::files_under(&corpus);
        assert!(files.len() > 100, "only {} corpus files", files.len());
        for path in &files {
            let bytes = std::fs::read(path).unwrap_or_default();
            same_holders(&path.display().to_string(), &bytes);
        }
    }
}
