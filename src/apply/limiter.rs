//! A token bucket bounding `--apply`'s request rate (`--qps`, burst 1.5 × qps like
//! kube-controller-manager's 20/30 defaults), as a generic cell rate algorithm: every request
//! reserves the next slot; a reservation more than `burst` slots ahead waits.

use std::time::{Duration, Instant};

/// The rate limiter.
#[derive(Debug)]
pub struct Limiter {
    interval: Duration,
    burst: u32,
    /// The theoretical arrival time of the next request.
    tat: Option<Instant>,
}

impl Limiter {
    /// `qps` requests per second, bursts of `ceil(1.5 × qps)`. Values outside
    /// [`super::QPS_RANGE`] (which `Options::check` refuses first) are clamped into it, so no
    /// value can overflow the interval.
    pub fn new(qps: f64) -> Limiter {
        let (lo, hi) = (*super::QPS_RANGE.start(), *super::QPS_RANGE.end());
        let qps = if qps.is_nan() { 1.0 } else { qps.clamp(lo, hi) };
        Limiter {
            interval: Duration::from_secs_f64(1.0 / qps),
            burst: ((qps * 1.5).ceil() as u32).max(1),
            tat: None,
        }
    }

    /// Reserves a slot at `now`; returns how long to wait before sending.
    pub fn reserve(&mut self, now: Instant) -> Duration {
        let tat = match self.tat {
            Some(t) if t > now => t,
            _ => now,
        };
        let ahead = self.interval * (self.burst - 1);
        let allowed = tat.checked_sub(ahead).unwrap_or(now);
        self.tat = Some(tat + self.interval);
        allowed.saturating_duration_since(now)
    }

    /// Waits for a slot.
    pub async fn acquire(&mut self) {
        let wait = self.reserve(Instant::now());
        if !wait.is_zero() {
            tokio::time::sleep(wait).await;
        }
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn bursts_then_paces_at_qps() {
        let mut l = Limiter::new(2.0); // 500 ms apart, burst 3
        let t0 = Instant::now();
        let waits: Vec<u128> = (0..6).map(|_| l.reserve(t0).as_millis()).collect();
        assert_eq!(waits, vec![0, 0, 0, 500, 1000, 1500]);
        // After a quiet period the burst is available again.
        let later = t0 + Duration::from_secs(10);
        assert_eq!(l.reserve(later), Duration::ZERO);
        assert_eq!(l.reserve(later), Duration::ZERO);
        assert_eq!(l.reserve(later), Duration::ZERO);
        assert_eq!(l.reserve(later).as_millis(), 500);
    }

    #[test]
    fn any_rate_is_bounded_and_never_panics() {
        // 1e-300 requests per second was a 1e300-second interval: Duration panicked.
        for q in [1e-300, 0.0, -1.0, f64::NAN, f64::INFINITY, 1e300] {
            let mut l = Limiter::new(q);
            assert!(l.interval <= Duration::from_secs(100), "{q}");
            assert!(l.interval >= Duration::from_micros(100), "{q}");
            let t0 = Instant::now();
            l.reserve(t0);
            l.reserve(t0);
        }
    }

    #[test]
    fn steady_requests_at_the_rate_never_wait() {
        let mut l = Limiter::new(20.0);
        let t0 = Instant::now();
        for i in 0..100u32 {
            assert_eq!(
                l.reserve(t0 + Duration::from_millis(50) * i),
                Duration::ZERO
            );
        }
    }
}
