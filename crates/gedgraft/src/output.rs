//! Writing to standard output without panicking when the reader goes away (`gedgraft dump big.ged | head`).

use std::io::{ErrorKind, Write};
use std::sync::atomic::{AtomicBool, Ordering};

/// Set once standard output is closed; later output is dropped.
static CLOSED: AtomicBool = AtomicBool::new(false);

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
