//! Batch mode: many files in one call, one file per worker thread (`check --jobs`), the results handed on in
//! argument order as soon as each one's turn comes, and a progress line on standard error when it is a
//! terminal (nothing otherwise: pipes and logs get only the output).

use std::collections::BTreeMap;
use std::io::{IsTerminal, Write};
use std::sync::atomic::{AtomicBool, AtomicUsize, Ordering};
use std::sync::{mpsc, Condvar, Mutex};

/// How many workers `--jobs N` asks for over `files` files: `0` is one per core; never more than the files.
pub(crate) fn workers(jobs: usize, files: usize) -> usize {
    let cores = std::thread::available_parallelism().map_or(1, usize::from);
    let asked = if jobs == 0 { cores } else { jobs };
    asked.min(files).max(1)
}

/// Runs `job(i)` for `i` in `0..count` on `workers` threads (one item per worker at a time) and hands each result
/// to `take` in order of `i`, on the calling thread. At most `2 × workers` results wait for their turn, so memory
/// is bounded by that many results. An error from `take` stops the workers (the items started still finish) and
/// is returned.
pub(crate) fn in_order<T: Send>(
    count: usize,
    workers: usize,
    job: impl Fn(usize) -> T + Sync,
    mut take: impl FnMut(usize, T) -> Result<(), String>,
) -> Result<(), String> {
    let ahead = workers.saturating_mul(2).max(1);
    let next = AtomicUsize::new(0);
    let stop = AtomicBool::new(false);
    // The index of the next result to hand on, and the condition workers wait on to start an item.
    let turn = (Mutex::new(0usize), Condvar::new());
    let (sender, receiver) = mpsc::channel::<(usize, T)>();
    let mut progress = Progress::new(count);
    std::thread::scope(|scope| {
        for _ in 0..workers {
            let sender = sender.clone();
            let (next, stop, turn, job) = (&next, &stop, &turn, &job);
            scope.spawn(move || loop {
                let i = next.fetch_add(1, Ordering::Relaxed);
                if i >= count {
                    break;
                }
                let Ok(mut handed) = turn.0.lock() else {
                    break;
                };
                while i >= *handed + ahead && !stop.load(Ordering::Relaxed) {
                    handed = match turn.1.wait(handed) {
                        Ok(h) => h,
                        Err(_) => return,
                    };
                }
                drop(handed);
                if stop.load(Ordering::Relaxed) || sender.send((i, job(i))).is_err() {
                    break;
                }
            });
        }
        drop(sender);
        let mut waiting = BTreeMap::new();
        let mut handed = 0;
        let mut result = Ok(());
        for (i, value) in &receiver {
            waiting.insert(i, value);
            while let Some(value) = waiting.remove(&handed) {
                progress.clear();
                result = take(handed, value);
                handed += 1;
                if let Ok(mut h) = turn.0.lock() {
                    *h = handed;
                }
                turn.1.notify_all();
                if result.is_err() {
                    break;
                }
                progress.show(handed);
            }
            if result.is_err() {
                stop.store(true, Ordering::Relaxed);
                turn.1.notify_all();
                break;
            }
        }
        progress.clear();
        result
    })
}

/// The progress line: `[=====>    ] 3/10 files` on standard error, only on a terminal and for more than one file.
struct Progress {
    count: usize,
    shown: bool,
    enabled: bool,
}

impl Progress {
    fn new(count: usize) -> Progress {
        Progress {
            count,
            shown: false,
            enabled: count > 1 && std::io::stderr().is_terminal(),
        }
    }

    fn show(&mut self, done: usize) {
        if !self.enabled || done >= self.count {
            return;
        }
        const WIDTH: usize = 30;
        let filled = done * WIDTH / self.count.max(1);
        let bar: String = (0..WIDTH)
            .map(|i| match i.cmp(&filled) {
                std::cmp::Ordering::Less => '=',
                std::cmp::Ordering::Equal => '>',
                std::cmp::Ordering::Greater => ' ',
            })
            .collect();
        let mut err = std::io::stderr().lock();
        let _ = write!(err, "\r[{bar}] {done}/{} files", self.count);
        let _ = err.flush();
        self.shown = true;
    }

    fn clear(&mut self) {
        if self.shown {
            let mut err = std::io::stderr().lock();
            let _ = write!(err, "\r\x1b[K");
            let _ = err.flush();
            self.shown = false;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn results_come_in_order_whatever_finishes_first() {
        let mut seen = Vec::new();
        let job = |i: usize| {
            // Later items finish first.
            std::thread::sleep(std::time::Duration::from_millis(((20 - i) % 7) as u64));
            i * 10
        };
        in_order(20, 3, job, |i, v| {
            seen.push((i, v));
            Ok(())
        })
        .unwrap();
        let expected: Vec<_> = (0..20).map(|i| (i, i * 10)).collect();
        assert_eq!(seen, expected);
    }

    #[test]
    fn an_error_stops_the_batch() {
        let started = AtomicUsize::new(0);
        let result = in_order(
            1000,
            2,
            |i| {
                started.fetch_add(1, Ordering::Relaxed);
                i
            },
            |i, _| if i == 3 { Err("closed".into()) } else { Ok(()) },
        );
        assert_eq!(result, Err("closed".to_string()));
        assert!(started.load(Ordering::Relaxed) < 20);
    }

    #[test]
    fn workers_are_bounded_by_the_files() {
        assert_eq!(workers(8, 3), 3);
        assert_eq!(workers(1, 3), 1);
        assert_eq!(workers(0, 0), 1);
        assert!(workers(0, 100) >= 1);
    }
}
