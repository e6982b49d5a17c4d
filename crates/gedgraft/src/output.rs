//! Writing to standard output without panicking when the reader goes away (`gedgraft dump big.ged | head`).

use std::io::{BufWriter, ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once standard output is closed; later output is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);

/// Streams output to standard output through a buffer: `write` writes (and flushes) it piece by piece, so large
/// output is never held whole. A closed pipe is not an error, as for [`emit`].
pub fn stream(write: impl FnOnce(&mut dyn Write) -> std::io::Result<()>) -> Result<(), String> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = BufWriter::with_capacity(1 << 16, std::io::stdout().lock());
    match write(&mut out).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(format!("cannot write to standard output: {e}")),
    }
}

/// Writes `text` to standard output. A closed pipe is not an error: the rest of the output is dropped and the
/// command still finishes with its own exit status. Other write errors are reported.
pub fn emit(text: &str) -> Result<(), String> {
    if CLOSED.load(Ordering::Relaxed) {
        return Ok(());
    }
    let mut out = std::io::stdout().lock();
    match out.write_all(text.as_bytes()).and_then(|()| out.flush()) {
        Ok(()) => Ok(()),
        Err(e) if e.kind() == ErrorKind::BrokenPipe => {
            CLOSED.store(true, Ordering::Relaxed);
            Ok(())
        }
        Err(e) => Err(format!("cannot write to standard output: {e}")),
    }
}
