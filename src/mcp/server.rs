//! The MCP server: the tool list, and each call checked, run within the limits, and answered
//! as a document (in pages past the cap) or as a tool error with one line of cause.

use super::child::{self, Answer};
use super::pages;
use super::paths::Root;
use super::plans::Plans;
use super::tools::{Args, Base, Kind};
use super::{Config, paths};
use rmcp::model::{
    CallToolRequestParams, CallToolResponse, CallToolResult, ContentBlock, Implementation,
    ListToolsResult, PaginatedRequestParams, ServerCapabilities, ServerConfig, Tool,
};
use rmcp::service::{RequestContext, RoleServer};
use rmcp::{ErrorData, ServerHandler};
use serde_json::{Map, Value};
use std::sync::{Arc, Mutex};

/// The most a command's output may be (its document before paging).
const MAX_OUTPUT: usize = 512 * 1024 * 1024;

/// What the agent host shows the model about the server as a whole.
const INSTRUCTIONS: &str = "kubectl-gc answers what the Kubernetes garbage collector (GC) will \
do: call delete_preview before deleting anything, why for an object that is stuck or gone, \
audit and check_restart for references that will make the GC delete live objects, history for \
deletions that already happened (audit logs), check_apply before applying manifests. Every tool \
reads only; apply_plan, when offered, carries out only a plan a preview returned.";

/// The server (cheap to clone: HTTP sessions share one).
#[derive(Clone)]
pub struct Server {
    inner: Arc<Inner>,
}

pub(super) struct Inner {
    pub(super) config: Config,
    pub(super) root: Root,
    tools: Vec<Tool>,
    calls: tokio::sync::Semaphore,
    pages: Mutex<pages::Store>,
    pub(super) plans: Plans,
}

/// A call's answer before it becomes a result: the document, or one line of cause.
pub(super) type Outcome = Result<Map<String, Value>, String>;

impl Server {
    /// A server with `config`'s settings.
    pub fn new(config: Config) -> Server {
        let tools = Kind::ALL
            .into_iter()
            .filter(|k| config.allow_apply || *k != Kind::ApplyPlan)
            .map(Kind::tool)
            .collect();
        let root = Root::new(config.root.clone());
        Server {
            inner: Arc::new(Inner {
                calls: tokio::sync::Semaphore::new(config.max_concurrency),
                plans: Plans::new(config.plan_ttl),
                config,
                root,
                tools,
                pages: Mutex::new(pages::Store::default()),
            }),
        }
    }

    /// Runs one call to its result (what `tools/call` answers).
    pub async fn call(&self, name: &str, raw: Option<&Map<String, Value>>) -> CallToolResult {
        let me = &self.inner;
        let Some(kind) =
            Kind::named(name).filter(|k| me.config.allow_apply || *k != Kind::ApplyPlan)
        else {
            return error(format!(
                "no tool {}{}",
                paths::shown(name),
                if name == "apply_plan" {
                    ": the server was started without --allow-apply, so it never writes"
                } else {
                    ""
                }
            ));
        };
        let args = match Args::parse(kind, raw) {
            Ok(a) => a,
            Err(e) => return error(e),
        };
        if let Some(token) = &args.continuation {
            let page = me.pages.lock().map(|mut p| p.next(token)).ok().flatten();
            return match page {
                Some(page) => answer(kind, page),
                None => error(format!(
                    "unknown or spent continuation {}: call the tool again without it",
                    paths::shown(token)
                )),
            };
        }
        // Waiting for a turn counts against the call's time.
        let deadline = tokio::time::Instant::now() + me.config.timeout;
        let Ok(Ok(_turn)) = tokio::time::timeout_at(deadline, me.calls.acquire()).await else {
            return error(format!(
                "the server is busy ({} calls running) and this call waited past its time limit; try again",
                me.config.max_concurrency
            ));
        };
        let outcome = match kind {
            Kind::ApplyPlan => super::plans::apply(me, &args).await,
            Kind::Plan | Kind::DeletePreview if me.config.allow_apply && args.live(kind) => {
                super::plans::preview(me, kind, &args).await
            }
            _ => me.run(kind, &args).await,
        };
        match outcome {
            Ok(doc) => self.paged(kind, doc),
            Err(cause) => error(cause),
        }
    }

    /// The first page of `doc`; the rest wait in the store.
    fn paged(&self, kind: Kind, doc: Map<String, Value>) -> CallToolResult {
        let mut pages = pages::paginate(doc, self.inner.config.max_answer);
        let mut first = pages.remove(0);
        if let Ok(mut store) = self.inner.pages.lock() {
            store.keep(&mut first, pages);
        }
        answer(kind, first)
    }
}

impl Inner {
    /// The base every command line of a call starts from.
    pub(super) fn base(&self) -> Base<'_> {
        let d = &self.config.defaults;
        Base {
            connection: &d.args,
            namespace: d.namespace.as_deref(),
            all_namespaces: d.all_namespaces,
            gc_version: d.gc_version.map(|v| v.to_string()),
        }
    }

    /// Runs `kind`'s command for `args`; `stdin`: what the command reads as `--snapshot -`.
    pub(super) async fn run_with(
        &self,
        kind: Kind,
        args: &Args,
        stdin: Option<Vec<u8>>,
    ) -> Outcome {
        let argv = super::tools::argv(kind, args, &self.root, &self.base())?;
        let answer = child::run(
            &self.config.exe,
            &argv,
            stdin,
            self.config.timeout,
            MAX_OUTPUT,
        )
        .await
        .map_err(|f| f.message())?;
        document(&answer, args)
    }

    async fn run(&self, kind: Kind, args: &Args) -> Outcome {
        self.run_with(kind, args, None).await
    }
}

/// The command's document, or its one-line cause.
fn document(answer: &Answer, args: &Args) -> Outcome {
    if answer.code != Some(0) {
        return Err(cause(answer, args));
    }
    match serde_json::from_slice::<Value>(&answer.stdout) {
        Ok(Value::Object(doc)) => Ok(doc),
        _ => Err("the command's output is not a JSON document".into()),
    }
}

/// The first error line of the command (with the lines that continue it, and its hint), each
/// sanitised; quoted text that may come from a file is withheld.
fn cause(answer: &Answer, args: &Args) -> String {
    let mut lines: Vec<String> = Vec::new();
    let mut in_error = false;
    for line in answer.stderr.lines() {
        if let Some(rest) = line.strip_prefix("error: ") {
            if lines.is_empty() {
                lines.push(rest.to_owned());
                in_error = true;
            }
        } else if let Some(hint) = line.strip_prefix("hint: ") {
            lines.push(format!("hint: {hint}"));
            break;
        } else if in_error && line.starts_with("  ") && lines.len() < 6 {
            lines.push(line.trim().to_owned());
        } else {
            in_error = false;
        }
    }
    if lines.is_empty() {
        return match answer.code {
            Some(code) => format!("the command failed (exit code {code}) without saying why"),
            None => "the command was killed".into(),
        };
    }
    let text = lines.join("; ");
    let text = if args.reads_files() {
        withhold_quotes(&text)
    } else {
        text
    };
    let text: String = text.chars().take(2000).collect();
    crate::render::text::sanitized(&text)
}

/// Text between quotes (`"…"`, `` `…` ``, `'…'` standing as a word) replaced by `"…"`: what
/// a reader quotes from a broken file (a first line, a token) never reaches the agent. Paths and
/// names from the call's own arguments are not quoted by the commands' messages.
fn withhold_quotes(text: &str) -> String {
    let chars: Vec<char> = text.chars().collect();
    let mut out = String::with_capacity(text.len());
    let mut i = 0;
    while i < chars.len() {
        let c = chars[i];
        let opens =
            matches!(c, '"' | '`') || (c == '\'' && (i == 0 || !chars[i - 1].is_alphanumeric()));
        if opens && let Some(len) = chars[i + 1..].iter().position(|&d| d == c) {
            let close = i + 1 + len;
            let word_end = close + 1 == chars.len() || !chars[close + 1].is_alphanumeric();
            if c != '\'' || word_end {
                out.push_str("\"…\"");
                i = close + 1;
                continue;
            }
        }
        out.push(c);
        i += 1;
    }
    out
}

/// A tool error: one line the agent reads.
fn error(cause: String) -> CallToolResult {
    CallToolResult::error(vec![ContentBlock::text(format!("error: {cause}"))])
}

/// A document as the result: a summary line, the document as JSON text, and as
/// structuredContent.
fn answer(kind: Kind, doc: Map<String, Value>) -> CallToolResult {
    let summary = super::summary::line(kind, &doc);
    let value = Value::Object(doc);
    let mut result = CallToolResult::structured(value);
    result.content.insert(0, ContentBlock::text(summary));
    result
}

impl ServerHandler for Server {
    fn get_info(&self) -> ServerConfig {
        ServerConfig::new(ServerCapabilities::builder().enable_tools().build())
            .with_server_info(
                Implementation::new("kubectl-gc", env!("CARGO_PKG_VERSION"))
                    .with_title("kubectl-gc: the Kubernetes garbage collector's model"),
            )
            .with_instructions(INSTRUCTIONS)
    }

    async fn list_tools(
        &self,
        _request: Option<PaginatedRequestParams>,
        _context: RequestContext<RoleServer>,
    ) -> Result<ListToolsResult, ErrorData> {
        Ok(ListToolsResult::with_all_items(self.inner.tools.clone()))
    }

    fn get_tool(&self, name: &str) -> Option<Tool> {
        self.inner.tools.iter().find(|t| t.name == name).cloned()
    }

    async fn call_tool(
        &self,
        request: CallToolRequestParams,
        _context: RequestContext<RoleServer>,
    ) -> Result<CallToolResponse, ErrorData> {
        Ok(self
            .call(&request.name, request.arguments.as_ref())
            .await
            .into())
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn quoted_file_content_is_withheld_and_prose_kept() {
        assert_eq!(
            withhold_quotes(
                r#"/r/passwd: no audit event in it (line 1: not JSON ("root:x:0:0:root"))"#
            ),
            r#"/r/passwd: no audit event in it (line 1: not JSON ("…"))"#
        );
        assert_eq!(
            withhold_quotes("line 2: unclosed bracket '[' in the object's spec, isn't it"),
            "line 2: unclosed bracket \"…\" in the object's spec, isn't it"
        );
        assert_eq!(withhold_quotes("token `s3cr3t` here"), "token \"…\" here");
        assert_eq!(
            withhold_quotes("an unclosed \" quote"),
            "an unclosed \" quote"
        );
    }
}
