//! A stack kept in blocks of a fixed size: it grows without copying what it holds and gives each block back
//! as soon as it empties. The parser's stacks of open structures are as deep as the file is nested (#12: a
//! record nested 400 000 levels deep); a `Vec` doubling its room would hold the old block and the new one
//! at once while it grows, and an emptied `Vec` keeps its room until asked to shrink (a copy), while the tree
//! that replaces the frames is being built.

/// A stack of `T` in blocks of `BLOCK` elements.
pub(crate) struct Chunked<T, const BLOCK: usize> {
    /// The full blocks under the current one.
    full: Vec<Vec<T>>,
    /// The block pushed to and popped from: empty only when there is no full block.
    current: Vec<T>,
    /// An emptied block kept for the next push, so that a stack going up and down across a block's edge
    /// does not ask for a block each time.
    spare: Option<Vec<T>>,
}

impl<T, const BLOCK: usize> Chunked<T, BLOCK> {
    pub(super) fn new() -> Self {
        Chunked {
            full: Vec::new(),
            current: Vec::new(),
            spare: None,
        }
    }

    /// How many elements it holds.
    pub(super) fn len(&self) -> usize {
        self.full.len() * BLOCK + self.current.len()
    }

    pub(super) fn push(&mut self, value: T) {
        if self.current.len() >= BLOCK {
            self.next_block();
        }
        self.current.push(value);
    }

    /// Starts a new current block, the full one put under it.
    #[cold]
    fn next_block(&mut self) {
        let block = (self.spare.take()).unwrap_or_else(|| Vec::with_capacity(BLOCK));
        self.full.push(std::mem::replace(&mut self.current, block));
    }

    /// Pushes every element of `values` (left empty).
    pub(super) fn append(&mut self, values: &mut Vec<T>) {
        if self.current.len() + values.len() <= BLOCK {
            self.current.append(values);
        } else {
            self.extend(values.drain(..));
        }
    }

    pub(super) fn extend(&mut self, values: impl IntoIterator<Item = T>) {
        for value in values {
            self.push(value);
        }
    }

    pub(super) fn pop(&mut self) -> Option<T> {
        let value = self.current.pop();
        if self.current.is_empty() {
            self.previous_block();
        }
        value
    }

    /// Makes the last full block the current one, keeping the emptied one as the spare (when there is one).
    fn previous_block(&mut self) {
        if let Some(block) = self.full.pop() {
            let emptied = std::mem::replace(&mut self.current, block);
            if self.spare.is_none() {
                self.spare = Some(emptied);
            }
        }
    }

    pub(super) fn last_mut(&mut self) -> Option<&mut T> {
        self.current.last_mut()
    }

    /// Makes a value of the elements from index `start` to the end, taken out in order: straight from the
    /// current block when they all lie in it, else block by block, each freed once passed, so a node of a
    /// million children is never held twice over while it is made (#12).
    pub(super) fn drain_into<R>(&mut self, start: usize, make: impl FnOnce(Tail<'_, T>) -> R) -> R {
        let below = self.full.len() * BLOCK;
        let made = if start >= below {
            let from = (start - below).min(self.current.len());
            make(Tail::Block(self.current.drain(from..)))
        } else {
            let left = self.len() - start;
            let (first, offset) = (start / BLOCK, start % BLOCK);
            let mut blocks = self.full.split_off(first);
            blocks.push(std::mem::take(&mut self.current));
            // What is left of the first block taken is the current block now.
            let kept = offset.min(blocks[0].len());
            let taken = blocks[0].split_off(kept);
            self.current = std::mem::replace(&mut blocks[0], taken);
            make(Tail::Blocks(IntoIter {
                left,
                blocks: blocks.into_iter(),
                current: Vec::new().into_iter(),
            }))
        };
        while self.current.is_empty() && !self.full.is_empty() {
            self.previous_block();
        }
        made
    }
}

impl<T, const BLOCK: usize> Default for Chunked<T, BLOCK> {
    fn default() -> Self {
        Chunked::new()
    }
}

impl<T, const BLOCK: usize> IntoIterator for Chunked<T, BLOCK> {
    type Item = T;
    type IntoIter = IntoIter<T>;

    /// The elements in order; each block is freed once its elements are passed (a document's children go
    /// into its node without a second copy of them all at once).
    fn into_iter(mut self) -> IntoIter<T> {
        let left = self.len();
        self.full.push(self.current);
        IntoIter {
            left,
            blocks: self.full.into_iter(),
            current: Vec::new().into_iter(),
        }
    }
}

/// The elements of a [`Chunked`], in order: an iterator of known length (what a green node is made from).
pub(crate) struct IntoIter<T> {
    blocks: std::vec::IntoIter<Vec<T>>,
    current: std::vec::IntoIter<T>,
    left: usize,
}

impl<T> Iterator for IntoIter<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        loop {
            if let Some(value) = self.current.next() {
                self.left -= 1;
                return Some(value);
            }
            // The block passed is freed here, as the next one is taken.
            self.current = self.blocks.next()?.into_iter();
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        (self.left, Some(self.left))
    }
}

impl<T> ExactSizeIterator for IntoIter<T> {}

/// The elements [`Chunked::drain_into`] takes out, in order: an iterator of known length.
pub(crate) enum Tail<'a, T> {
    /// All from the current block.
    Block(std::vec::Drain<'a, T>),
    /// From blocks taken off the stack.
    Blocks(IntoIter<T>),
}

impl<T> Iterator for Tail<'_, T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match self {
            Tail::Block(d) => d.next(),
            Tail::Blocks(b) => b.next(),
        }
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        match self {
            Tail::Block(d) => d.size_hint(),
            Tail::Blocks(b) => b.size_hint(),
        }
    }
}

impl<T> ExactSizeIterator for Tail<'_, T> {}

#[cfg(test)]
mod tests {
    use super::Chunked;

    #[test]
    fn it_is_a_stack_across_blocks() {
        let mut stack: Chunked<usize, 3> = Chunked::new();
        let mut model = Vec::new();
        // Up and down across block edges, checked against a Vec at every step.
        for step in 0..200usize {
            if step % 7 < 4 {
                stack.push(step);
                model.push(step);
            } else {
                assert_eq!(stack.pop(), model.pop());
            }
            assert_eq!(stack.len(), model.len());
            assert_eq!(stack.last_mut().copied(), model.last().copied());
        }
        let tail = stack.drain_into(5, |t| t.collect::<Vec<_>>());
        assert_eq!(tail, model.split_off(5));
        // Within the current block.
        let last = stack.drain_into(4, |t| (t.len(), t.collect::<Vec<_>>()));
        assert_eq!(last, (1, model.split_off(4)));
        stack.push(model[3] + 1);
        model.push(model[3] + 1);
        assert_eq!(stack.len(), 5);
        stack.append(&mut vec![100, 101, 102, 103]);
        model.extend([100, 101, 102, 103]);
        let all = std::mem::take(&mut stack).into_iter();
        assert_eq!(all.len(), model.len());
        assert_eq!(all.collect::<Vec<_>>(), model);
        assert_eq!(stack.len(), 0);
        assert_eq!(stack.pop(), None);
    }

    #[test]
    fn drain_into_takes_the_tail_from_any_start() {
        for n in 0..14usize {
            for start in 0..=n + 1 {
                let mut stack: Chunked<usize, 3> = Chunked::new();
                stack.extend(0..n);
                let tail = stack.drain_into(start, |t| (t.len(), t.collect::<Vec<_>>()));
                let want: Vec<usize> = (start.min(n)..n).collect();
                assert_eq!(tail, (want.len(), want), "n {n}, start {start}");
                assert_eq!(stack.len(), start.min(n));
                // What is left is still a stack: pushing and popping see the elements before `start`.
                stack.push(100);
                assert_eq!(stack.pop(), Some(100));
                let rest: Vec<usize> = std::iter::from_fn(|| stack.pop()).collect();
                assert_eq!(rest, (0..start.min(n)).rev().collect::<Vec<_>>());
            }
        }
    }

    #[test]
    fn emptied_blocks_are_given_back() {
        let mut stack: Chunked<u8, 4> = Chunked::new();
        stack.extend(0..40);
        assert_eq!(stack.full.len(), 9);
        for _ in 0..30 {
            stack.pop();
        }
        // Ten left: two full blocks and the current one, and one kept aside.
        assert_eq!((stack.full.len(), stack.current.len()), (2, 2));
        assert!(stack.spare.is_some());
        let out = stack.drain_into(2, |t| t.collect::<Vec<u8>>());
        assert_eq!(out, (2..10).collect::<Vec<u8>>());
        assert_eq!((stack.full.len(), stack.current.len()), (0, 2));
    }
}
