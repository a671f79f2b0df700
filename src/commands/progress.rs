//! Progress on stderr for anything that can take more than a second (reading files, building
//! the GC's graph, auditing, rendering, generating), drawn only when stderr is a terminal:
//! never on a pipe, a file or in CI logs. A step that finishes within [`DELAY`] draws nothing,
//! so quick commands do not flicker. (Listing a live cluster has its own counter line,
//! `source::live::ProgressLine`.)

use indicatif::{ProgressBar, ProgressDrawTarget, ProgressStyle};
use std::io::IsTerminal;
use std::sync::{Arc, Mutex};
use std::time::Duration;

/// Set at `-v 4` and more: each step's duration is printed on stderr when it ends, as kubectl
/// logs its own steps at that level.
pub static LOG_STEPS: std::sync::atomic::AtomicBool = std::sync::atomic::AtomicBool::new(false);

/// How long a step runs before its spinner appears.
pub const DELAY: Duration = Duration::from_millis(250);

/// True when progress may be drawn: stderr is a terminal that can redraw a line.
pub fn enabled() -> bool {
    std::io::stderr().is_terminal() && std::env::var("TERM").map_or(true, |t| t != "dumb")
}

/// A spinner with a message and the elapsed time, shown after [`DELAY`]; cleared when dropped.
pub struct Spinner {
    bar: ProgressBar,
    /// When the step began: its duration is logged at `-v 4`, as kubectl logs its steps.
    started: std::time::Instant,
    /// Set when the step is over; the delayed thread shows the bar only while it is not.
    done: Arc<Mutex<bool>>,
}

impl Spinner {
    /// Starts a spinner (hidden unless [`enabled`]).
    pub fn new(message: &str) -> Spinner {
        Self::with_bar(
            ProgressBar::new_spinner(),
            message,
            "{spinner} {msg}… {elapsed}",
        )
    }

    /// A counting bar (`done/total`), shown like the spinner.
    pub fn counter(message: &str, total: u64) -> Spinner {
        Self::with_bar(
            ProgressBar::new(total),
            message,
            "{spinner} {msg}: {pos}/{len} ({per_sec}) {elapsed}",
        )
    }

    fn with_bar(bar: ProgressBar, message: &str, template: &str) -> Spinner {
        bar.set_draw_target(ProgressDrawTarget::hidden());
        if let Ok(style) = ProgressStyle::with_template(template) {
            bar.set_style(style);
        }
        bar.set_message(message.to_owned());
        let done = Arc::new(Mutex::new(false));
        if enabled() {
            bar.enable_steady_tick(Duration::from_millis(100));
            let shown = bar.clone();
            let over = done.clone();
            // Without a thread (none left to start) the spinner simply stays hidden.
            let _ = std::thread::Builder::new().spawn(move || {
                std::thread::sleep(DELAY);
                let over = over.lock().unwrap_or_else(|e| e.into_inner());
                if !*over {
                    shown.set_draw_target(ProgressDrawTarget::stderr());
                }
            });
        }
        Spinner {
            bar,
            done,
            started: std::time::Instant::now(),
        }
    }

    /// Sets the count of a [`Spinner::counter`].
    pub fn set_position(&self, done: u64) {
        self.bar.set_position(done);
    }
}

impl Drop for Spinner {
    fn drop(&mut self) {
        let mut over = self.done.lock().unwrap_or_else(|e| e.into_inner());
        *over = true;
        self.bar.finish_and_clear();
        if LOG_STEPS.load(std::sync::atomic::Ordering::Relaxed) {
            eprintln!(
                "{} took {:.3}s",
                self.bar.message(),
                self.started.elapsed().as_secs_f64()
            );
        }
    }
}

/// Runs `f` with a spinner saying `message`.
pub fn step<T>(message: &str, f: impl FnOnce() -> T) -> T {
    let _spinner = Spinner::new(message);
    f()
}

/// Runs `f` with a spinner only when stdout is not the terminal the spinner draws on (output
/// going to a terminal shows its own progress, and must not be drawn over).
pub fn rendering<T>(f: impl FnOnce() -> T) -> T {
    if std::io::stdout().is_terminal() {
        f()
    } else {
        step("rendering", f)
    }
}
