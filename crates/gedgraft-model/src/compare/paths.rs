//! Structure paths (`@I1@ INDI.NAME[2]`), kept as a tree of steps so that a path is printed in bounded time
//! however deep the structure is.

use crate::dataset::{Dataset, StructureId};
use std::fmt::Write as _;

/// How many steps a printed path keeps at each end.
const KEEP: u32 = 16;

/// No parent: a record, or the header.
pub(super) const ROOT: u32 = u32::MAX;

struct Step {
    parent: u32,
    /// `None`: the header (`HEAD`).
    id: Option<StructureId>,
    /// The 1-based position among siblings of the same tag, or 0 when the tag is alone.
    index: u32,
    depth: u32,
    /// The ancestor (or self) at depth `min(depth, KEEP)`.
    anchor: u32,
}

/// The steps of one dataset's paths.
pub(super) struct Paths<'d> {
    dataset: &'d Dataset,
    steps: Vec<Step>,
}

impl<'d> Paths<'d> {
    pub fn new(dataset: &'d Dataset) -> Paths<'d> {
        Paths {
            dataset,
            steps: vec![Step {
                parent: ROOT,
                id: None,
                index: 0,
                depth: 1,
                anchor: 0,
            }],
        }
    }

    /// The header's step.
    pub const HEADER: u32 = 0;

    /// A step under `parent` ([`ROOT`] for a record).
    pub fn push(&mut self, parent: u32, id: StructureId, index: u32) -> u32 {
        let me = u32::try_from(self.steps.len()).unwrap_or(ROOT);
        let (depth, anchor) = match self.steps.get(parent as usize) {
            None => (1, me),
            Some(p) if p.depth < KEEP => (p.depth + 1, me),
            Some(p) => (p.depth.saturating_add(1), p.anchor),
        };
        self.steps.push(Step {
            parent,
            id: Some(id),
            index,
            depth,
            anchor,
        });
        me
    }

    fn segment(&self, step: &Step, out: &mut String) {
        let Some(s) = step.id.and_then(|id| self.dataset.get(id)) else {
            out.push_str("HEAD");
            return;
        };
        match s.xref() {
            Some(x) if step.parent == ROOT => {
                let _ = write!(out, "@{x}@ {}", s.tag());
            }
            _ => {
                out.push_str(s.tag());
                if step.index > 0 {
                    let _ = write!(out, "[{}]", step.index);
                }
            }
        }
    }

    /// The steps from `from` up `count` levels (or to the root), root first.
    fn upwards(&self, from: u32, count: u32) -> Vec<&Step> {
        let mut steps = Vec::new();
        let mut at = from;
        while let Some(step) = self.steps.get(at as usize) {
            if steps.len() as u32 == count {
                break;
            }
            steps.push(step);
            at = step.parent;
        }
        steps.reverse();
        steps
    }

    /// The level of a step's structure (0 for a record).
    pub fn level(&self, at: u32) -> usize {
        self.steps
            .get(at as usize)
            .map_or(0, |s| s.depth.saturating_sub(1) as usize)
    }

    /// The printed path of a step.
    pub fn render(&self, at: u32) -> String {
        let mut out = String::new();
        let Some(step) = self.steps.get(at as usize) else {
            return out;
        };
        let put = |steps: Vec<&Step>, out: &mut String| {
            for s in steps {
                if !out.is_empty() {
                    out.push('.');
                }
                self.segment(s, out);
            }
        };
        if step.depth <= 2 * KEEP {
            put(self.upwards(at, u32::MAX), &mut out);
        } else {
            put(self.upwards(step.anchor, KEEP), &mut out);
            let _ = write!(out, ".…({} levels)…", step.depth - 2 * KEEP);
            put(self.upwards(at, KEEP), &mut out);
        }
        out
    }
}
