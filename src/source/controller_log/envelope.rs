//! What wraps a controller-manager line, and the line inside: klog's header
//! (`I1207 13:46:25.028002    5430 garbagecollector.go:580] …`), a whole time before it
//! (`kubectl logs --timestamps`, CloudWatch's S3 export, containerd's CRI log files, journald's
//! `-o short-iso`), syslog's `Dec  7 13:46:25 host kube-controller-manager[5430]: …`
//! (`journalctl`'s default), and one JSON object per line: the JSON logging format
//! (`{"ts":…,"msg":…,"v":2,…}`), journald's `-o json` (`MESSAGE`), Cloud Logging entries
//! (`textPayload`/`jsonPayload`), CloudWatch events (`message`, `@message`) and Docker's
//! json-file (`log`). Envelopes that name their component (journald's identifier, Cloud
//! Logging's resource, CloudWatch's stream) and name another one are not the controller
//! manager's: their lines are counted, not read.

use super::lines::Message;
use super::time::{NoYear, klog_time, parse_rfc3339_us};
use serde_json::Value;
use std::borrow::Cow;

/// A line's time: whole, or klog's without a year.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub(super) enum When {
    Whole(i64),
    NoYear(NoYear),
}

/// A line taken out of its envelope.
pub(super) struct Unwrapped<'a> {
    /// `None`: the envelope had no time the reader could read.
    pub when: Option<When>,
    /// klog's process id (the number after the time): a new one is a new process.
    pub pid: Option<u32>,
    pub message: Message<'a>,
    /// The envelope, for the counts (`klog`, `kubectl-timestamps`, `journald`, `json`, …).
    pub format: &'static str,
}

/// Why a line was not read.
#[derive(Debug, PartialEq, Eq)]
pub(super) enum Not {
    /// Another component's, by its envelope.
    Other,
    /// No log line of a shape this reader knows.
    Shape,
}

/// Takes `line` (one line of text) out of its envelope.
pub(super) fn unwrap(line: &str) -> Result<Unwrapped<'_>, Not> {
    let t = line.trim_start_matches('\u{feff}');
    if t.starts_with('{') {
        let v: Value = serde_json::from_str(t).map_err(|_| Not::Shape)?;
        return record(v).map(owned);
    }
    if let Some(u) = klog(t, None, "klog") {
        return Ok(u);
    }
    if let Some((us, rest)) = leading_time(t) {
        // containerd's CRI files: `TIME stderr F LINE`.
        let rest = match rest.split_once(' ') {
            Some(("stdout" | "stderr", r)) => r.split_once(' ').map_or(r, |(_, l)| l),
            _ => rest,
        };
        if let Some(u) = klog(rest, Some(us), "timestamped") {
            return Ok(u);
        }
        // journald -o short-iso: `TIME HOST IDENT[PID]: MESSAGE`.
        let (_, after_host) = rest.split_once(' ').ok_or(Not::Shape)?;
        return syslog_rest(after_host, Some(us), "journald");
    }
    // journalctl's default (syslog) format: `Mon DD hh:mm:ss HOST IDENT[PID]: MESSAGE`.
    if let Some(rest) = syslog_prefix(t) {
        return syslog_rest(rest, None, "journald");
    }
    Err(Not::Shape)
}

/// Whether `line` is shaped like a line of a log, whoever wrote it: an envelope this reader
/// knows, or any text after a whole time (`kubectl logs --timestamps` of a container's shell
/// trace, as OpenShift's pods start with).
pub(super) fn log_shaped(line: &str) -> bool {
    !matches!(unwrap(line), Err(Not::Shape))
        || leading_time(line).is_some()
        || syslog_prefix(line).is_some()
}

/// `IDENT[PID]: MESSAGE` (after the host): the message, read if IDENT is the controller
/// manager's.
fn syslog_rest<'a>(
    s: &'a str,
    us: Option<i64>,
    format: &'static str,
) -> Result<Unwrapped<'a>, Not> {
    let (ident, message) = s.split_once(": ").ok_or(Not::Shape)?;
    let name = ident.split('[').next().unwrap_or(ident);
    if !names_controller_manager(name) {
        return Err(Not::Other);
    }
    klog(message, us, format).ok_or(Not::Shape)
}

/// `Mon DD hh:mm:ss HOST ` at the start: the rest after the host.
fn syslog_prefix(t: &str) -> Option<&str> {
    const MONTHS: [&str; 12] = [
        "Jan", "Feb", "Mar", "Apr", "May", "Jun", "Jul", "Aug", "Sep", "Oct", "Nov", "Dec",
    ];
    let month = t.get(..3)?;
    if !MONTHS.contains(&month) || t.as_bytes().get(3) != Some(&b' ') {
        return None;
    }
    let rest = t[4..].trim_start();
    let (day, rest) = rest.split_once(' ')?;
    let (clock, rest) = rest.split_once(' ')?;
    if day.parse::<u8>().is_err() || clock.len() != 8 || clock.as_bytes()[2] != b':' {
        return None;
    }
    let (_host, rest) = rest.split_once(' ')?;
    Some(rest)
}

/// An RFC 3339 time at the start of `t`, and the rest after the space that ends it.
fn leading_time(t: &str) -> Option<(i64, &str)> {
    if !t.as_bytes().first()?.is_ascii_digit() {
        return None;
    }
    let (head, rest) = t.split_once(' ')?;
    parse_rfc3339_us(head).map(|us| (us, rest))
}

/// A klog line (`Lmmdd hh:mm:ss.uuuuuu PID file:line] message`), its time replaced by `us`
/// when the envelope had a whole one. Lines of klog's other levels (W, E, F) are read too.
fn klog<'a>(s: &'a str, us: Option<i64>, format: &'static str) -> Option<Unwrapped<'a>> {
    let b = s.as_bytes();
    if b.len() < 22 || !matches!(b[0], b'I' | b'W' | b'E' | b'F') {
        return None;
    }
    let t = klog_time(&b[1..])?;
    let mut after_time = s.get(14..)?;
    if let Some(frac) = after_time.strip_prefix('.') {
        after_time = frac.trim_start_matches(|c: char| c.is_ascii_digit());
    }
    let rest = after_time.trim_start();
    let (pid, rest) = rest.split_once(' ')?;
    let pid = pid.parse::<u32>().ok();
    let (_file, message) = rest.split_once("] ")?;
    Some(Unwrapped {
        when: Some(us.map_or(When::NoYear(t), When::Whole)),
        pid,
        message: Message::klog(message),
        format,
    })
}

/// A line's JSON object, by its shape.
fn record(v: Value) -> Result<Owned, Not> {
    let Value::Object(mut m) = v else {
        return Err(Not::Shape);
    };
    let s = |m: &serde_json::Map<String, Value>, k: &str| {
        m.get(k).and_then(Value::as_str).map(str::to_owned)
    };
    // The JSON logging format: `ts` in seconds (1.20–1.2x: a float of seconds; some
    // releases write milliseconds) and `msg`.
    if m.contains_key("msg") && m.contains_key("ts") {
        let us = m.get("ts").and_then(ts_us);
        return json_format(m, us, "json");
    }
    if let Some(message) = s(&m, "MESSAGE") {
        let ident = s(&m, "SYSLOG_IDENTIFIER")
            .or_else(|| s(&m, "_SYSTEMD_UNIT"))
            .or_else(|| s(&m, "_COMM"));
        if ident.is_some_and(|i| !names_controller_manager(&i)) {
            return Err(Not::Other);
        }
        let us = s(&m, "__REALTIME_TIMESTAMP").and_then(|t| t.parse::<i64>().ok());
        return inner_text(message, us, "journald-json");
    }
    if m.contains_key("textPayload") || m.contains_key("jsonPayload") {
        let component = m
            .get("resource")
            .and_then(|r| r.get("labels"))
            .and_then(|l| l.get("component_name").or_else(|| l.get("container_name")))
            .and_then(Value::as_str)
            .map(str::to_owned)
            .or_else(|| s(&m, "logName"));
        if component.is_some_and(|c| !names_controller_manager(&c)) {
            return Err(Not::Other);
        }
        let us = s(&m, "timestamp").and_then(|t| parse_rfc3339_us(&t));
        if let Some(text) = s(&m, "textPayload") {
            return inner_text(text, us, "cloud-logging");
        }
        let Some(Value::Object(payload)) = m.remove("jsonPayload") else {
            return Err(Not::Shape);
        };
        if payload.contains_key("msg") {
            return json_format(payload, us, "cloud-logging");
        }
        let text = payload
            .get("message")
            .and_then(Value::as_str)
            .ok_or(Not::Shape)?;
        return inner_text(text.to_owned(), us, "cloud-logging");
    }
    for (msg_key, time_key, stream_key) in [
        ("message", "timestamp", "logStreamName"),
        ("@message", "@timestamp", "@logStream"),
        ("log", "time", ""),
    ] {
        let Some(text) = s(&m, msg_key) else { continue };
        if let Some(stream) = s(&m, stream_key)
            && !names_controller_manager(&stream)
        {
            return Err(Not::Other);
        }
        let us = match m.get(time_key) {
            Some(Value::Number(n)) => n.as_i64().and_then(|ms| ms.checked_mul(1000)),
            Some(Value::String(t)) => parse_rfc3339_us(t),
            _ => None,
        };
        return inner_text(
            text,
            us,
            if msg_key == "log" {
                "docker-json"
            } else {
                "cloudwatch"
            },
        );
    }
    Err(Not::Shape)
}

/// A line in an envelope that owns its text.
pub(super) struct Owned {
    pub when: Option<When>,
    pub pid: Option<u32>,
    pub text: String,
    pub pairs: Vec<(String, String)>,
    pub v: Option<u8>,
    pub format: &'static str,
}

fn owned(o: Owned) -> Unwrapped<'static> {
    Unwrapped {
        when: o.when,
        pid: o.pid,
        message: Message {
            text: Cow::Owned(o.text),
            pairs: o.pairs,
            v: o.v,
        },
        format: o.format,
    }
}

/// Text inside a JSON envelope: a klog line (with or without a whole time of its own), or a
/// JSON-format line.
fn inner_text(text: String, us: Option<i64>, format: &'static str) -> Result<Owned, Not> {
    let line = text.trim_end_matches(['\n', '\r']);
    if line.trim_start().starts_with('{') {
        let Ok(Value::Object(m)) = serde_json::from_str::<Value>(line) else {
            return Err(Not::Shape);
        };
        let inner = m.get("ts").and_then(ts_us);
        return json_format(m, us.or(inner), format);
    }
    let u = match klog(line, us, format) {
        Some(u) => u,
        None => match leading_time(line) {
            Some((t, rest)) => klog(rest, Some(us.unwrap_or(t)), format).ok_or(Not::Shape)?,
            None => return Err(Not::Shape),
        },
    };
    Ok(Owned {
        when: u.when,
        pid: u.pid,
        text: u.message.text.into_owned(),
        pairs: u.message.pairs,
        v: None,
        format,
    })
}

/// A JSON-format object: `msg`, `v`, and the other fields as pairs (strings as they are,
/// `KRef`s `{"name","namespace"}` as `ns/name`, anything else as JSON text).
fn json_format(
    mut m: serde_json::Map<String, Value>,
    us: Option<i64>,
    format: &'static str,
) -> Result<Owned, Not> {
    let Some(Value::String(mut text)) = m.remove("msg") else {
        return Err(Not::Shape);
    };
    // `Infof` lines end in the line break klog would have added.
    text.truncate(text.trim_end_matches(['\n', '\r']).len());
    let v = m
        .remove("v")
        .and_then(|v| v.as_u64())
        .and_then(|v| u8::try_from(v).ok());
    m.remove("ts");
    let pairs = m
        .into_iter()
        .map(|(k, v)| {
            let text = match v {
                Value::String(s) => s,
                Value::Object(ref o) if o.contains_key("name") => {
                    let name = o.get("name").and_then(Value::as_str).unwrap_or_default();
                    match o.get("namespace").and_then(Value::as_str) {
                        Some(ns) if !ns.is_empty() => format!("{ns}/{name}"),
                        _ => name.to_owned(),
                    }
                }
                other => other.to_string(),
            };
            (k, text)
        })
        .collect();
    Ok(Owned {
        when: us.map(When::Whole),
        pid: None,
        text,
        pairs,
        v,
        format,
    })
}

/// The JSON format's `ts`: seconds since the epoch as a float (component-base's encoder), or
/// milliseconds (a value too large to be seconds).
fn ts_us(v: &Value) -> Option<i64> {
    let f = v.as_f64()?;
    if !f.is_finite() || f < 0.0 {
        return None;
    }
    let us = if f > 1e11 { f * 1e3 } else { f * 1e6 };
    (us < 9.2e18).then_some(us as i64)
}

/// Whether a component, unit, stream or log name is the controller manager's.
pub(super) fn names_controller_manager(name: &str) -> bool {
    let n = name.to_ascii_lowercase();
    n.contains("controller-manager") || n.contains("controller_manager") || n.contains("kcm")
}

#[cfg(test)]
mod tests {
    use super::*;

    fn text(line: &str) -> String {
        unwrap(line)
            .ok()
            .map(|u| u.message.text.into_owned())
            .unwrap_or_default()
    }

    #[test]
    fn every_envelope_gives_the_same_message() {
        let klog = r#"I1207 13:46:25.028002    5430 garbagecollector.go:580] "Deleting object" object="cross/dep" propagationPolicy=Background"#;
        let escaped = klog.replace('\\', "\\\\").replace('"', "\\\"");
        let lines = [
            klog.to_owned(),
            format!("2026-12-07T13:46:25.028002123Z {klog}"),
            format!("2026-12-07T13:46:25.028002123Z stderr F {klog}"),
            format!("2026-12-07T13:46:25+0000 node-1 kube-controller-manager[5430]: {klog}"),
            format!("Dec  7 13:46:25 node-1 kube-controller-manager[5430]: {klog}"),
            format!(r#"{{"__REALTIME_TIMESTAMP":"1796651185028002","SYSLOG_IDENTIFIER":"kube-controller-manager","MESSAGE":"{escaped}"}}"#),
            format!(r#"{{"textPayload":"{escaped}","timestamp":"2026-12-07T13:46:25.028002Z","resource":{{"type":"k8s_control_plane_component","labels":{{"component_name":"controller-manager"}}}}}}"#),
            format!(r#"{{"logStreamName":"kube-controller-manager-0a1b","timestamp":1796651185028,"message":"{escaped}"}}"#),
            format!(r#"{{"@timestamp":"2026-12-07 13:46:25.028","@logStream":"kube-controller-manager-0a1b","@message":"{escaped}"}}"#),
            format!(r#"{{"log":"{escaped}\n","stream":"stderr","time":"2026-12-07T13:46:25.028002123Z"}}"#),
            r#"{"ts":1796651185028.002,"msg":"Deleting object","v":2,"object":{"name":"dep","namespace":"cross"},"propagationPolicy":"Background"}"#.to_owned(),
        ];
        for l in &lines {
            let u = unwrap(l).unwrap_or_else(|e| panic!("{e:?}: {l}"));
            assert_eq!(u.message.text, "Deleting object", "{l}");
            let obj = u
                .message
                .pairs
                .iter()
                .find(|(k, _)| k == "object")
                .map(|(_, v)| v.as_str());
            assert_eq!(obj, Some("cross/dep"), "{l}");
        }
        assert_eq!(
            unwrap("2026-12-07T13:46:25+0000 node-1 kubelet[99]: I1207 x").err(),
            Some(Not::Other)
        );
        assert_eq!(
            unwrap(r#"{"textPayload":"x","resource":{"labels":{"component_name":"apiserver"}}}"#)
                .err(),
            Some(Not::Other)
        );
        for bad in [
            "",
            "hello",
            "{",
            "[1]",
            "I1307 13:46:25.0 1 a.go:1] x",
            "\u{0}\u{1}",
        ] {
            assert!(unwrap(bad).is_err(), "{bad:?}");
        }
        assert_eq!(
            text(r"I1207 13:46:25.028002 1 a.go:1] plain text"),
            "plain text"
        );
    }
}
