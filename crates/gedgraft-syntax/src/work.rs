//! Running jobs on a few threads that take their work from one queue, and how many threads a job of a given size
//! is worth: what the parser, the writer and the lowering (`gedgraft-model`) share.

use std::panic::{catch_unwind, AssertUnwindSafe};
use std::sync::Mutex;
use std::thread::Result;

/// Runs `job(k, item)` for every `k`-th item on up to `workers` threads (the calling thread and scoped threads).
/// Each thread takes the next item nobody has taken yet, so a thread that finishes early takes more. The results
/// come in item order; a job that panicked gives `Err` with its panic, and the other jobs still run.
///
/// ```
/// let squares = gedgraft_syntax::internal::work::on_workers((1..=4).collect(), 2, |_, n: u32| n * n);
/// let squares: Vec<u32> = squares.into_iter().map(|r| r.unwrap()).collect();
/// assert_eq!(squares, [1, 4, 9, 16]);
/// ```
pub fn on_workers<I: Send, T: Send>(
    items: Vec<I>,
    workers: usize,
    job: impl Fn(usize, I) -> T + Sync,
) -> Vec<Result<T>> {
    let n = items.len();
    let queue = Mutex::new(items.into_iter().enumerate());
    let work = || {
        let mut done = Vec::new();
        // The lock is released before the job runs.
        while let Some((k, item)) = queue.lock().ok().and_then(|mut q| q.next()) {
            done.push((k, catch_unwind(AssertUnwindSafe(|| job(k, item)))));
        }
        done
    };
    let extra = workers.min(n).saturating_sub(1);
    let done = if extra == 0 {
        work()
    } else {
        std::thread::scope(|scope| {
            let handles: Vec<_> = (0..extra).map(|_| scope.spawn(work)).collect();
            let mut done = work();
            for handle in handles {
                // `work` itself does not panic (its jobs' panics are caught).
                done.extend(handle.join().unwrap_or_default());
            }
            done
        })
    };
    let mut results: Vec<Option<Result<T>>> = (0..n).map(|_| None).collect();
    for (k, result) in done {
        results[k] = Some(result);
    }
    results
        .into_iter()
        .map(|r| r.unwrap_or_else(|| Err(Box::new("a worker thread died"))))
        .collect()
}

/// [`on_workers`] for jobs that should not fail: the results in item order; a job's panic is raised again here,
/// once every other job has run.
pub fn in_order<I: Send, T: Send>(
    items: Vec<I>,
    workers: usize,
    job: impl Fn(I) -> T + Sync,
) -> Vec<T> {
    on_workers(items, workers, |_, item| job(item))
        .into_iter()
        .map(|result| result.unwrap_or_else(|panic| std::panic::resume_unwind(panic)))
        .collect()
}

/// How many threads a job of `len` octets runs on when the caller leaves it to the machine: one per core, as long
/// as each gets at least `min_len` octets; at least one. The cores are only asked for when the job is large
/// enough to use two.
pub fn workers_for(len: usize, min_len: usize) -> usize {
    let by_size = len / min_len.max(1);
    if by_size < 2 {
        return 1;
    }
    std::thread::available_parallelism().map_or(1, |cores| cores.get().min(by_size))
}

/// Drops values on a thread of its own, so that freeing a large tree (a batch of a stream, its lowering) does
/// not hold up the thread that is done with it: the streamed commands hand each batch over and go on with the
/// next. At most [`Dropper::BACKLOG`] values wait (handing one more over waits for room), so memory stays
/// bounded; on a machine of one core, or if the thread cannot be started, values are dropped where they are
/// handed over. Dropping the `Dropper` waits until every value handed over is dropped.
///
/// ```
/// let dropper = gedgraft_syntax::internal::work::Dropper::new();
/// dropper.later(vec![0u8; 1 << 20]);
/// drop(dropper); // the vector is freed by now
/// ```
pub struct Dropper {
    to: Option<std::sync::mpsc::SyncSender<Box<dyn Send>>>,
    thread: Option<std::thread::JoinHandle<()>>,
}

impl Dropper {
    /// How many values may wait to be dropped.
    pub const BACKLOG: usize = 2;

    /// A dropper with its thread (none on a machine of one core).
    pub fn new() -> Dropper {
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        if cores < 2 {
            return Dropper {
                to: None,
                thread: None,
            };
        }
        let (to, from) = std::sync::mpsc::sync_channel::<Box<dyn Send>>(Self::BACKLOG);
        let spawned = std::thread::Builder::new()
            .name("gedgraft-drop".into())
            .spawn(move || from.into_iter().for_each(drop));
        match spawned {
            Ok(thread) => Dropper {
                to: Some(to),
                thread: Some(thread),
            },
            Err(_) => Dropper {
                to: None,
                thread: None,
            },
        }
    }

    /// Drops `value` on the dropper's thread (here if it has none).
    pub fn later<T: Send + 'static>(&self, value: T) {
        match &self.to {
            // A send fails only if the thread is gone (it panicked): the value comes back and is dropped here.
            Some(to) => drop(to.send(Box::new(value))),
            None => drop(value),
        }
    }
}

impl Default for Dropper {
    fn default() -> Self {
        Dropper::new()
    }
}

impl Drop for Dropper {
    fn drop(&mut self) {
        drop(self.to.take());
        if let Some(thread) = self.thread.take() {
            let _ = thread.join();
        }
    }
}

/// An iterator run on a thread of its own, an item or two ahead of the caller ([`ahead`]): the streamed
/// commands read and parse the next batch of a file there while they edit, lower or write the last one, so
/// both cores work (#17: `fix -o` spent half its time parsing, on one core). At most [`Ahead::BACKLOG`] items
/// wait, so memory stays bounded. A panic of the iterator is raised again in the caller, where its items
/// end; on a machine of one core, or if the thread cannot be started, the items are made where they are asked
/// for. Dropping an `Ahead` stops the iterator after the item it is making.
///
/// ```
/// let squares = gedgraft_syntax::internal::work::ahead((1..=4u32).map(|n| n * n));
/// assert_eq!(squares.collect::<Vec<_>>(), [1, 4, 9, 16]);
/// ```
pub struct Ahead<T> {
    inner: AheadInner<T>,
}

enum AheadInner<T> {
    Thread {
        items: Option<std::sync::mpsc::Receiver<T>>,
        thread: Option<std::thread::JoinHandle<()>>,
    },
    Here(Box<dyn Iterator<Item = T> + Send>),
}

impl<T> Ahead<T> {
    /// How many items may wait for the caller.
    pub const BACKLOG: usize = 1;
}

/// `items` run ahead of the caller on a thread of their own (see [`Ahead`]).
pub fn ahead<I>(items: I) -> Ahead<I::Item>
where
    I: Iterator + Send + 'static,
    I::Item: Send + 'static,
{
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    if cores < 2 {
        return Ahead {
            inner: AheadInner::Here(Box::new(items)),
        };
    }
    let (to, from) = std::sync::mpsc::sync_channel(Ahead::<I::Item>::BACKLOG);
    // The iterator goes to the thread in a slot it is taken from, so that it comes back if the thread cannot
    // be started.
    let slot = std::sync::Arc::new(Mutex::new(Some(items)));
    let theirs = std::sync::Arc::clone(&slot);
    let spawned = std::thread::Builder::new()
        .name("gedgraft-ahead".into())
        .spawn(move || {
            let items = theirs.lock().ok().and_then(|mut i| i.take());
            // A send fails once the caller dropped its end: the iterator stops.
            for item in items.into_iter().flatten() {
                if to.send(item).is_err() {
                    break;
                }
            }
        });
    match spawned {
        Ok(thread) => Ahead {
            inner: AheadInner::Thread {
                items: Some(from),
                thread: Some(thread),
            },
        },
        Err(_) => {
            let items = slot.lock().ok().and_then(|mut i| i.take());
            Ahead {
                inner: AheadInner::Here(Box::new(items.into_iter().flatten())),
            }
        }
    }
}

impl<T> Iterator for Ahead<T> {
    type Item = T;

    fn next(&mut self) -> Option<T> {
        match &mut self.inner {
            AheadInner::Here(items) => items.next(),
            AheadInner::Thread { items, thread } => {
                if let Some(item) = items.as_ref().and_then(|i| i.recv().ok()) {
                    return Some(item);
                }
                // The thread is done: its panic, if it had one, is the caller's.
                items.take();
                if let Some(Err(panic)) = thread.take().map(std::thread::JoinHandle::join) {
                    std::panic::resume_unwind(panic);
                }
                None
            }
        }
    }
}

impl<T> Drop for Ahead<T> {
    fn drop(&mut self) {
        if let AheadInner::Thread { items, thread } = &mut self.inner {
            // The thread's next send fails, and it stops; its panic is let go (the caller is done with it).
            items.take();
            if let Some(thread) = thread.take() {
                let _ = thread.join();
            }
        }
    }
}

#[cfg(test)]
mod tests {
    use super::{ahead, on_workers, workers_for};

    #[test]
    fn items_run_ahead_come_in_order_and_a_dropped_run_stops() {
        let items: Vec<u32> = ahead(0..1000u32).collect();
        assert_eq!(items, (0..1000).collect::<Vec<_>>());
        // An endless iterator, dropped after three items: the drop returns (the thread stopped).
        let mut endless = ahead(0u64..);
        assert_eq!(
            (endless.next(), endless.next(), endless.next()),
            (Some(0), Some(1), Some(2))
        );
        drop(endless);
    }

    #[test]
    fn a_panic_ahead_is_raised_in_the_caller() {
        let failing = (0..3u32).map(|n| if n == 2 { panic!("item 2") } else { n });
        let caught = std::panic::catch_unwind(|| ahead(failing).collect::<Vec<_>>());
        let panic = caught.expect_err("the panic reaches the caller");
        assert_eq!(panic.downcast_ref::<&str>(), Some(&"item 2"));
    }

    #[test]
    fn small_jobs_get_one_worker_and_large_ones_no_more_than_cores_or_size_allow() {
        assert_eq!(workers_for(0, 10), 1);
        assert_eq!(workers_for(19, 10), 1);
        let cores = std::thread::available_parallelism().map_or(1, usize::from);
        assert_eq!(workers_for(20, 10), cores.min(2));
        assert_eq!(workers_for(10_000, 10), cores);
        assert_eq!(workers_for(100, 0), cores.min(100));
    }

    #[test]
    fn results_come_in_item_order_whatever_thread_ran_them() {
        for workers in 0..5 {
            let items: Vec<usize> = (0..50).collect();
            let results = on_workers(items, workers, |k, item| {
                // Uneven work, so that threads finish out of order.
                std::thread::sleep(std::time::Duration::from_micros((item % 7 * 50) as u64));
                (k, item * 2)
            });
            let values: Vec<(usize, usize)> = results.into_iter().map(|r| r.unwrap()).collect();
            let expected: Vec<(usize, usize)> = (0..50).map(|k| (k, k * 2)).collect();
            assert_eq!(values, expected, "{workers} workers");
        }
    }

    #[test]
    fn a_panicking_job_is_an_error_and_the_others_still_run() {
        let results = on_workers((0..10).collect(), 3, |_, item: i32| {
            assert!(item != 4, "job 4 fails on purpose");
            item
        });
        assert!(results[4].is_err());
        let others: Vec<i32> = results
            .into_iter()
            .enumerate()
            .filter(|&(k, _)| k != 4)
            .map(|(_, r)| r.unwrap())
            .collect();
        assert_eq!(others, [0, 1, 2, 3, 5, 6, 7, 8, 9]);
    }
}
