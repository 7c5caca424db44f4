"""A deterministic stand-in for the seed's orbit workspace.

The files are generated so that the seed's ground truth really holds in
them: the naive greps return exactly the counts the design notes record,
every file:line points at the text the fixtures name, and the history holds
the three tool-surface commits between the v1 and v2 builds. Author,
committer and dates are fixed, so the commit SHAs are the same on every
machine and can be written into ``examples/``.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass


class SourceFile:
    """A file of ``length`` lines with chosen text on chosen lines."""

    def __init__(self, length: int) -> None:
        self.length = length
        self.lines: dict[int, str] = {}

    def put(self, line: int, text: str) -> SourceFile:
        if line in self.lines or not 1 <= line <= self.length:
            raise ValueError(f"line {line} is taken or out of range")
        self.lines[line] = text
        return self

    def function(self, start: int, end: int, signature: str, body: dict[int, str] | None = None) -> SourceFile:
        self.put(start, signature + " {")
        for line, text in (body or {}).items():
            self.put(line, "    " + text)
        return self.put(end, "}")

    def render(self) -> str:
        return "".join(self.lines.get(n, "") + "\n" for n in range(1, self.length + 1))


Tree = dict[str, str]


def _dispatcher() -> str:
    f = SourceFile(300)
    f.put(1, "use orbit_core::runtime::v2_host::V2RuntimeHost;")
    f.function(
        255,
        270,
        "pub async fn run_deterministic(host: &dyn V2RuntimeHost, spec: ActivitySpec) -> Result<ActivityOutput>",
        {260: "let spec = spec.with_defaults();", 268: "host.run_deterministic(spec).await"},
    )
    f.function(
        276,
        290,
        "pub async fn run_agent_loop_activity(host: &dyn V2RuntimeHost, spec: ActivitySpec) -> Result<ActivityOutput>",
        {280: "host.run_agent_loop(spec).await"},
    )
    return f.render()


def _groundhog() -> str:
    f = SourceFile(620)
    f.put(1, "use orbit_core::runtime::v2_host::V2RuntimeHost;")
    call = "let out = host.run_deterministic(spec)?;"
    f.function(
        470,
        490,
        "fn run_workspace_command(host: &dyn V2RuntimeHost, spec: ActivitySpec) -> Result<Output>",
        {486: call},
    )
    f.function(500, 510, "fn load_chronicle(store: &Store) -> Result<Chronicle>", {505: 'store.read("chronicle")'})
    f.function(520, 530, "fn load_state(store: &Store) -> Result<State>", {525: 'store.read("state")'})
    f.function(
        540,
        554,
        "fn persist_runner_artifacts(host: &dyn V2RuntimeHost, spec: ActivitySpec) -> Result<Output>",
        {552: call},
    )
    f.function(556, 562, "fn verify_checkpoint(state: &State) -> Result<()>", {560: "state.check()"})
    f.function(565, 576, "fn load_task(host: &dyn V2RuntimeHost, spec: ActivitySpec) -> Result<Output>", {573: call})
    f.function(
        580, 598, "fn load_task_artifacts(host: &dyn V2RuntimeHost, spec: ActivitySpec) -> Result<Output>", {595: call}
    )
    f.function(605, 615, "fn build_attempt_spec(task: &Task) -> ActivitySpec", {610: "ActivitySpec::from(task)"})
    return f.render()


def _emit(variant: str, fields: str = "..") -> str:
    return f"sink.emit(&LoopAuditEvent::{variant} {{ {fields} }});"


def _agent_loop() -> str:
    f = SourceFile(340)
    f.put(1, "use crate::loop_engine::audit::LoopAuditEvent;")
    f.put(3, "use orbit_tools::ToolContext;")
    f.function(
        270,
        338,
        "pub fn drive(sink: &dyn AuditSink, ctx: &ToolContext, session_id: SessionId)",
        {
            280: _emit("SessionSpawn", "session_id"),
            290: _emit("IterationBoundary", "index"),
            304: _emit("ToolCallRequested", "tool: call.name.clone(), input: call.input.clone()"),
            317: _emit("ToolCallResult", "tool: call.name.clone(), output"),
            322: _emit("PolicyDenial", "reason"),
            330: _emit("SessionClose", "session_id"),
        },
    )
    return f.render()


def _audit_mod() -> str:
    f = SourceFile(135)
    f.put(1, "//! Audit events emitted by the agent loop.")
    f.put(40, "pub enum LoopAuditEvent {")
    variants = [
        "SessionSpawn",
        "SessionClose",
        "HttpRequest",
        "HttpResponse",
        "ToolCallRequested",
        "ToolCallResult",
        "IterationBoundary",
        "PolicyDenial",
    ]
    for index, name in enumerate(variants):
        f.put(42 + index * 8, f"    {name} {{")
        f.put(43 + index * 8, "        at: Timestamp,")
        f.put(44 + index * 8, "    },")
    f.put(111, "}")
    f.function(120, 124, "pub trait AuditSink", {122: "fn emit(&self, event: &LoopAuditEvent);"})
    f.put(130, "pub struct NullSink;")
    return f.render()


def _http() -> str:
    f = SourceFile(60)
    f.put(1, "use crate::loop_engine::audit::LoopAuditEvent;")
    f.function(
        35,
        58,
        "pub fn traced_request(sink: &dyn AuditSink, req: Request) -> Response",
        {40: _emit("HttpRequest", "url: req.url()"), 52: _emit("HttpResponse", "status")},
    )
    return f.render()


def _jsonl() -> str:
    f = SourceFile(40)
    f.function(10, 20, "pub fn kind(event: &LoopAuditEvent) -> &'static str", {11: "match event {", 19: "}"})
    for line, name in zip(  # noqa: B905 - both sides have five items by construction
        range(12, 17), ["SessionSpawn", "SessionClose", "HttpRequest", "HttpResponse", "PolicyDenial"]
    ):
        f.put(line, f'        LoopAuditEvent::{name} {{ .. }} => "{name.lower()}",')
    f.put(17, '        _ => "other",')
    return f.render()


def _tool_enforcement() -> str:
    f = SourceFile(100)
    f.function(
        80,
        90,
        "pub fn check(event: &LoopAuditEvent, policy: &Policy) -> Verdict",
        {
            82: "match event {",
            83: "    LoopAuditEvent::ToolCallRequested { tool, .. } => {",
            84: "        policy.allows(tool)",
            85: "    }",
            86: "    _ => Verdict::Allow,",
            87: "}",
        },
    )
    return f.render()


def _smoke() -> str:
    f = SourceFile(360)
    f.put(1, "use orbit_tools::ToolContext;")
    f.function(118, 122, "fn context() -> ToolContext", {120: "ToolContext::default()"})
    f.function(
        340,
        355,
        "fn tool_names(events: &[LoopAuditEvent]) -> Vec<String>",
        {
            345: "events.iter().filter_map(|event| match event {",
            348: "    LoopAuditEvent::ToolCallRequested { tool, .. } => Some(tool.clone()),",
            349: "    LoopAuditEvent::ToolCallResult { tool, .. } => Some(tool.clone()),",
            350: "    _ => None,",
            351: "}).collect()",
        },
    )
    return f.render()


def _literal_site(length: int, lines: list[int], extra: dict[int, str] | None = None) -> str:
    f = SourceFile(length)
    f.put(1, "use orbit_tools::ToolContext;")
    for line in lines:
        f.put(line, "    let ctx = ToolContext {")
        f.put(line + 1, "        workspace: workspace.clone(),")
        f.put(line + 2, "    };")
    for line, text in (extra or {}).items():
        f.put(line, text)
    return f.render()


def _v2_host() -> str:
    f = SourceFile(700)
    f.put(1, "use orbit_tools::ToolContext;")
    f.function(
        30,
        40,
        "pub trait V2RuntimeHost",
        {
            32: "async fn run_deterministic(&self, spec: ActivitySpec) -> Result<ActivityOutput>;",
            34: "async fn run_agent_loop(&self, spec: ActivitySpec) -> Result<ActivityOutput>;",
            36: "fn tool_context(&self) -> ToolContext;",
        },
    )
    f.put(684, "    let ctx = ToolContext {")
    f.put(685, "        workspace: self.workspace.clone(),")
    f.put(686, "    };")
    return f.render()


def _tools_lib() -> str:
    f = SourceFile(30)
    f.put(1, "//! Tool execution context shared by every tool.")
    f.put(12, "pub struct ToolContext {")
    f.put(13, "    pub workspace: Workspace,")
    f.put(14, "}")
    f.function(
        20,
        24,
        "impl Default for ToolContext",
        {21: "fn default() -> Self { Self { workspace: Workspace::current() } }"},
    )
    return f.render()


def _builtin_tool(index: int) -> str:
    lines = [
        "use crate::ToolContext;",
        "",
        f"/// Builtin tool number {index}.",
        f"pub fn run_{index}(ctx: &ToolContext, input: &str) -> Output {{",
        "    ctx.workspace.run(input)",
        "}",
    ]
    if index < 44:
        lines.insert(3, "/// Reads its workspace from the ToolContext it is given.")
    return "\n".join(lines) + "\n"


def _example_default(name: str) -> str:
    return (
        f"use orbit_tools::ToolContext;\n\n// {name}\nfn context() -> ToolContext {{\n    ToolContext::default()\n}}\n"
    )


def _crates() -> Tree:
    tree: Tree = {
        "crates/orbit-engine/src/activity_job/dispatcher.rs": _dispatcher(),
        "crates/orbit-engine/src/activity_job/groundhog.rs": _groundhog(),
        "crates/orbit-engine/src/activity_job/tool_enforcement.rs": _tool_enforcement(),
        "crates/orbit-engine/examples/v2_job_runtime_smoke.rs": _smoke(),
        "crates/orbit-agent/src/loop_engine/agent_loop.rs": _agent_loop(),
        "crates/orbit-agent/src/loop_engine/audit/mod.rs": _audit_mod(),
        "crates/orbit-agent/src/loop_engine/audit/jsonl.rs": _jsonl(),
        "crates/orbit-agent/src/loop_engine/http.rs": _http(),
        "crates/orbit-tools/src/lib.rs": _tools_lib(),
        "crates/orbit-core/src/command/tool.rs": _literal_site(60, [48]),
        "crates/orbit-core/src/runtime/pipeline.rs": _literal_site(130, [122]),
        "crates/orbit-core/src/runtime/v2_host.rs": _v2_host(),
        "crates/orbit-engine/src/executor/automation/planning_duel/artifacts.rs": _literal_site(250, [238]),
        "crates/orbit-engine/src/executor/automation/pr.rs": _literal_site(250, [105, 239]),
        "crates/orbit-agent/examples/tool_allowlist.rs": _literal_site(60, [53]),
        "crates/orbit-agent/src/runtime.rs": SourceFile(40).put(20, "pub struct AgentRuntime {").put(22, "}").render(),
        "crates/orbit-engine/src/config.rs": SourceFile(30)
        .put(8, "pub const DEFAULT_TIMEOUT_SECS: u64 = 600;")
        .put(25, "    timeout: Duration::from_secs(DEFAULT_TIMEOUT_SECS),")
        .render(),
        "crates/orbit-engine/src/executor/mod.rs": SourceFile(40)
        .put(30, "    let limit = config::DEFAULT_TIMEOUT_SECS * 2;")
        .render(),
        "crates/orbit-graph/src/registry.rs": SourceFile(30)
        .function(15, 25, "pub fn register_tools(registry: &mut Registry)", {16: "tools::register_all(registry);"})
        .render(),
    }
    for name in ("planner_smoke", "groundhog_replay", "pr_dry_run"):
        tree[f"crates/orbit-engine/examples/{name}.rs"] = _example_default(name)
    for index in range(83):
        tree[f"crates/orbit-tools/src/builtin/tool_{index:02d}.rs"] = _builtin_tool(index)
    return tree


_TOOLS = ("search", "overview", "refs", "pack", "callers", "show")


def _tool_file(name: str, trimmed: bool) -> str:
    shape = {
        "search": ("rank code symbols above non-code hits", "rank all hits by text score"),
        "overview": ("default to the summary shape", "return the full tree"),
        "refs": ("partition references by ref-kind", "return references unpartitioned"),
        "pack": ("default to signatures", "pack full bodies"),
    }.get(name, ("unchanged", "unchanged"))
    behaviour = shape[0] if trimmed else shape[1]
    return f'//! orbit.graph.{name}\n\npub const BEHAVIOUR: &str = "{behaviour}";\n'


def _descriptions(rewritten: bool) -> str:
    out = ["//! Descriptions shown to agents for each orbit.graph.* tool.", ""]
    for name in _TOOLS:
        if rewritten:
            text = f"Use when you need {name} over the code graph. Prefer over grep when structure matters."
        else:
            text = f"Graph {name} tool."
        out.append(f'pub const {name.upper()}: &str = "{text}";')
    return "\n".join(out) + "\n"


def base_tree() -> Tree:
    tree = _crates()
    for name in _TOOLS:
        tree[f"crates/orbit-graph/src/tools/{name}.rs"] = _tool_file(name, trimmed=False)
    tree["crates/orbit-graph/src/tools/descriptions.rs"] = _descriptions(rewritten=False)
    tree["benchmarks/graph/v1/fixtures.yaml"] = (
        "# v1 fixtures mention AgentRuntime, which v1 search ranked first\nquestion: Where is AgentRuntime defined?\n"
    )
    tree["Cargo.toml"] = '[workspace]\nmembers = ["crates/*"]\n'
    return tree


@dataclass
class SampleCommit:
    """One commit of the sample history: what it changes and how it is named."""

    label: str
    subject: str
    change: Callable[[Tree], None]
    body: str = ""
    nonce: str = ""


def _add_orbitignore(tree: Tree) -> None:
    tree[".orbitignore"] = "benchmarks/\ntarget/\nnode_modules/\n"


def _rewrite_descriptions(tree: Tree) -> None:
    tree["crates/orbit-graph/src/tools/descriptions.rs"] = _descriptions(rewritten=True)


def _trim_surface(tree: Tree) -> None:
    for name in ("search", "overview", "refs", "pack"):
        tree[f"crates/orbit-graph/src/tools/{name}.rs"] = _tool_file(name, trimmed=True)


def _add_docs(tree: Tree) -> None:
    tree["docs/ARCHITECTURE.md"] = "# orbit\n\nThe engine runs activities; the agent loop emits audit events.\n"


def _author_v2(tree: Tree) -> None:
    tree["benchmarks/graph/v2/README.md"] = "# graph v2\n\nFixtures authored under T20260423-0507.\n"


HISTORY: tuple[SampleCommit, ...] = (
    SampleCommit("v1", "Initial orbit workspace (graph v1 fixtures pinned here)", lambda tree: None),
    SampleCommit("docs", "docs: describe the engine and the agent loop", _add_docs),
    SampleCommit("indexer", "T20260423-0452: add .orbitignore", _add_orbitignore, nonce="00007deb6e48"),
    SampleCommit(
        "descriptions",
        "T20260423-0525: rewrite orbit.graph.* tool descriptions",
        _rewrite_descriptions,
        nonce="00012ea49907",
    ),
    SampleCommit("surface", "T20260423-0506: trim the orbit.graph tool surface", _trim_surface, nonce="0000b9b8e836"),
    SampleCommit(
        "v2",
        "T20260423-0507: author graph v2 fixtures (HEAD at fixture authoring)",
        _author_v2,
        nonce="0001b6cef91f",
    ),
)

TOOL_SURFACE = (".orbitignore", "crates/orbit-graph/src/tools/**")
