//! Which records of a document are its header and its trailers, which the lowering treats apart.

use gedgraft_syntax::internal::green_view::Node;
use gedgraft_syntax::SyntaxKind;

/// The element indices of the header record (the first record, if its tag is `HEAD`) and of the trailers
/// (ascending) among the document's elements.
///
/// R-TAGGED-STRUCTS-04: the trailer is discarded. The syntax layer has reported a trailer with an xref or
/// payload (`non-empty-trailer`) and anything after it, so any final `TRLR` record goes. Records after a
/// trailer (an export appended to another) are read as records (R-TAGGED-STRUCTS-03; the syntax layer reports
/// `record-after-trailer`); the project's choice is that each earlier bare trailer (`0 TRLR` with no
/// identifier, payload, continuation or substructure), which ended one of the appended parts, goes too rather
/// than becoming a `TRLR` record of the dataset. A `TRLR` record with more than that stays, like any misplaced
/// structure.
pub(crate) fn header_and_trailers(document: Node<'_>) -> (Option<usize>, Vec<usize>) {
    let mut header = None;
    let mut first = true;
    let mut last = None;
    // The TRLR records seen, with whether they are bare.
    let mut candidates: Vec<(usize, bool)> = Vec::new();
    for (i, (element, start)) in document.elements().enumerate() {
        let Some(node) = element.into_node().map(|n| Node::new(n, start)) else {
            continue;
        };
        if node.kind() != SyntaxKind::Record {
            continue;
        }
        match node.tag() {
            Some("HEAD") if first => header = Some(i),
            Some("TRLR") => candidates.push((i, is_bare(node))),
            _ => {}
        }
        first = false;
        last = Some(i);
    }
    let trailers = candidates
        .into_iter()
        .filter(|&(i, bare)| bare || Some(i) == last)
        .map(|(i, _)| i)
        .collect();
    (header, trailers)
}

/// A record that is its first line's level and tag only: no identifier, payload, continuation or substructure.
fn is_bare(record: Node<'_>) -> bool {
    let line = record.line();
    line.xref_id().is_none()
        && line.payload_tokens().next().is_none()
        && record.substructures().next().is_none()
        && record.continuation_lines().next().is_none()
}
