"""Answers -> findings + the exact file texts to write. Shared by --headless and the TUI."""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ..findings import SEVERITY_RANK, Finding, dedupe, has_errors, sort_findings
from ..recordclass import field, record, replace
from . import multinode
from .model import Answers, dump_answers
from .render import (
    ACCELERATE_YAML,
    ANSWERS_YAML,
    DS_JSON,
    TOOL_SNIPPETS,
    TRAINING_ARGUMENTS_JSON,
    Rendered,
    processes_per_node,
    render,
    trainer_loop,
)
from .rules import check_answers


@record
class Generated:
    answers: Answers
    rendered: Rendered
    findings: list[Finding]
    files: dict[str, str] = field(default_factory=dict)
    """File name (inside the output folder) -> exact text."""
    launch_dir: Path | None = None
    """The folder the files must be launched from (a relative ``deepspeed_config_file`` is resolved from the
    working folder of ``accelerate launch``); None when they work from anywhere."""

    @property
    def ok(self) -> bool:
        return not has_errors(self.findings)


def yaml_text(data: dict) -> str:
    from ..yaml_dump import safe_dump

    return safe_dump(data, sort_keys=True, default_flow_style=False, allow_unicode=True)




def tool_snippet(tool: str, arguments: Mapping[str, object], deepspeed_ref: str | None) -> str:
    """The keys of ``tool``'s training file that give the Trainer ``arguments`` (and name the DeepSpeed JSON), with a
    header that says how to use them; read back by ``check`` they are ``arguments`` again."""
    from ..effective.training_file import tool_keys
    from ..training_kinds import KIND_LABELS

    keys, cannot = tool_keys(tool, arguments)
    lines = [f"# fsdpds-wizard: merge these keys into your {KIND_LABELS[tool]}; they match the configs beside this",
             "# file as the Trainer will compare them.",
             "# Run the tool from the folder the deepspeed: path below is relative to (it is opened from there)."
             if deepspeed_ref is not None else
             "# Launch the tool with accelerate launch --config_file accelerate_config.yaml (its FSDP settings).",
             "# Check the pair from that folder: fsdpds-wizard check YOUR.yaml"]
    lines += [f"# not expressible here: {c}" for c in cannot]
    body = ({"deepspeed": deepspeed_ref} if deepspeed_ref is not None else {}) | keys
    return "\n".join(lines) + "\n" + (yaml_text(body) if body else "{}\n")


def json_text(data: dict) -> str:
    import json  # not on the TUI's first frame, which writes nothing (issue 26)

    return json.dumps(data, indent=2, sort_keys=True) + "\n"


DS_PATH_MODES = ("auto", "absolute")
"""How ``deepspeed_config_file`` names the JSON: ``auto`` relative to the launch folder when the output folder
lies inside it, else absolute; ``absolute`` always absolute."""


def _launch_folder(launch_dir: str | Path | None) -> Path:
    return Path(launch_dir).expanduser().resolve() if launch_dir is not None else Path.cwd().resolve()


def ds_config_ref(out_dir: Path | None, launch_dir: str | Path | None = None, mode: str = "auto") -> str:
    """What ``deepspeed_config_file`` says. accelerate opens it as written, i.e. relative to the working folder of
    ``accelerate launch`` (``HfDeepSpeedConfig``: ``os.path.exists(path)``), never relative to the YAML. So with
    ``auto``, an output folder inside ``launch_dir`` (default: the current folder) gives a path relative to it
    (``out/ds_config.json``: the config travels with a repository and is launched from its root); anything else
    the absolute path. ``out_dir`` None: the bare file name."""
    if out_dir is None:
        return DS_JSON
    if mode not in DS_PATH_MODES:
        raise ValueError(f"ds_config_ref: mode must be one of {DS_PATH_MODES}, not {mode!r}")
    target = Path(out_dir).expanduser().resolve() / DS_JSON
    if mode == "auto":
        try:
            return target.relative_to(_launch_folder(launch_dir)).as_posix()
        except ValueError:  # not inside the launch folder
            pass
    return str(target)


def generate(answers: Answers, out_dir: Path | None = None, *, launch_dir: str | Path | None = None,
             ds_path: str = "auto", versions: Mapping[str, str | None] | None = None) -> Generated:
    """The findings and the exact files for ``out_dir``. The files depend on the answers and, where a DeepSpeed
    JSON is written, on where it is launched from (``launch_dir``, default the current folder) and ``ds_path``
    (see :func:`ds_config_ref`): the same answers, folder and launch folder always give the same bytes.
    ``versions`` (library -> version): judge the config rules for these versions (a launch here: the installed ones;
    ``--headless --transformers-version ...``); a library not given is judged as the version the wizard was verified
    against."""
    ref = ds_config_ref(out_dir, launch_dir, ds_path)
    rendered = render(answers, ref)
    findings = answer_findings(answers, rendered, versions=versions)
    files = {ACCELERATE_YAML: yaml_text(rendered.accelerate), ANSWERS_YAML: dump_answers(answers)}
    relative_from = None
    if rendered.training_arguments is not None:  # the Trainer is the loop: the arguments that carry the answers
        files[TRAINING_ARGUMENTS_JSON] = json_text(rendered.training_arguments)
        tool = answers["launch.trainer_tool"]
        if tool in TOOL_SNIPPETS:  # and the keys of that tool's training file that carry them
            files[TOOL_SNIPPETS[tool]] = tool_snippet(tool, rendered.training_arguments,
                                                      ref if rendered.deepspeed is not None else None)
    if rendered.deepspeed is not None:
        files[DS_JSON] = json_text(rendered.deepspeed)
        if out_dir is not None and not Path(ref).is_absolute():
            relative_from = _launch_folder(launch_dir)
    hostfile = multinode.hostfile_text(answers)
    if hostfile is not None:  # DeepSpeed's runner on several machines reads one (placeholder names, marked)
        files[multinode.HOSTFILE] = hostfile
    return Generated(answers, rendered, findings, files, relative_from)


def answer_findings(answers: Answers, rendered: Rendered | None = None, *,
                    versions: Mapping[str, str | None] | None = None) -> list[Finding]:
    """Everything the wizard says about ``answers`` (sorted): its answer rules, and the config rules over the files
    written from them (``rendered``, default: rendered here), blamed on the answers behind each key. What
    ``generate`` reports, without the file texts (``recommend`` leaves out a candidate with an error here)."""
    rendered = rendered if rendered is not None else render(answers)
    intent, lint = _one_stage_fault(check_answers(answers), _lint_blamed(answers, rendered, versions))
    return sort_findings(dedupe(intent + _not_covered(lint, intent)))


STAGE_OVERRIDE = "ds-json-overrides-stage"
_STAGE_KEY = "zero_optimization.stage"


def _one_stage_fault(intent: list[Finding], lint: list[tuple[tuple[str, ...], Finding]]
                     ) -> tuple[list[Finding], list[Finding]]:
    """With deepspeed.extra overriding the ZeRO stage, what the config rules find between the JSON's stage and another
    written key is a consequence of that one fault: its answers join the override's finding (one finding per fault,
    naming every answer), and the config finding is not listed again. A finding about the stage alone (a value
    DeepSpeed refuses) stays."""
    override = next((f for f in intent if f.rule == STAGE_OVERRIDE), None)
    if override is None:
        return intent, [f for _, f in lint]
    keys, rest = list(override.keys), []
    for raw, f in lint:
        if _STAGE_KEY in raw and len(raw) > 1:
            keys.extend(k for k in f.keys if k not in keys)
        else:
            rest.append(f)
    folded = replace(override, keys=tuple(keys))
    return [folded if f is override else f for f in intent], rest


def lint_rendered(answers: Answers, rendered: Rendered) -> list[Finding]:
    """Run the config linter over what we render; blame the answers behind each key: the answer that wrote it
    (``rendered.provenance``), every answer that decides it together (``rendered.shared``), else the catalogue's
    setting for the key. Under the Trainer, a finding that says something else for an own loop also names
    ``launch.training_loop`` (the loop is no config key, but it is one of the causes)."""
    return [f for _, f in _lint_blamed(answers, rendered)]


def _lint_blamed(answers: Answers, rendered: Rendered, versions: Mapping[str, str | None] | None = None
                 ) -> list[tuple[tuple[str, ...], Finding]]:
    """:func:`lint_rendered`'s findings, each with the config keys the config rule named."""
    raw = _lint(answers, rendered, trainer=trainer_loop(answers), versions=versions)
    own_loop = {(f.rule, f.keys, f.message) for f in _lint(answers, rendered, trainer=False, versions=versions)} \
        if trainer_loop(answers) else None
    from ..catalog.key_lookup import setting_for_key

    def blamed(key: str) -> tuple[str, ...]:
        if key in rendered.shared:
            return rendered.shared[key]
        path = key
        while True:  # a key inside a block one answer wrote (deepspeed.extra's optimizer.params.lr): that answer
            sid = rendered.provenance.get(path) or setting_for_key(path)
            if sid:
                return (sid,)
            if "." not in path:
                return (key,)
            path = path.rsplit(".", 1)[0]

    out = []
    for f in raw:
        ids: list[str] = []
        for key in f.keys:
            ids.extend(blamed(key))
        if own_loop is not None and (f.rule, f.keys, f.message) not in own_loop:
            ids.append("launch.training_loop")
        ids = list(dict.fromkeys(ids))
        where = ", ".join(f.keys)
        out.append((f.keys, Finding(f.severity, f.rule, tuple(ids), f"{f.message} (generated key: {where})", f.fix,
                                    f.source)))
    return out


def _lint(answers: Answers, rendered: Rendered, *, trainer: bool,
          versions: Mapping[str, str | None] | None = None) -> list[Finding]:
    """The config linter over the rendered files, for the Trainer or an own Accelerator loop; versions: ``versions``
    where given, else those the wizard's knowledge was verified against."""
    from ..context import LOOP_ACCELERATE, LOOP_HF, Context
    from ..lint import lint

    context = Context(loop=LOOP_HF if trainer else LOOP_ACCELERATE, loop_source="answers",
                      versions=dict(versions or {}))
    return lint(rendered.accelerate, rendered.deepspeed, gpus_per_node=processes_per_node(answers), context=context)


def _not_covered(lint: list[Finding], intent: list[Finding]) -> list[Finding]:
    """Drop linter findings that an answer rule already reports, as severely, on the same settings: every answer
    the config finding blames is one the answer finding names (sharing one setting is not enough: two machines
    without a main address and 3 processes over them are two faults)."""
    out = []
    for f in lint:
        covered = any(set(f.keys) <= set(g.keys) and SEVERITY_RANK[g.severity] <= SEVERITY_RANK[f.severity]
                      for g in intent)
        if not covered:
            out.append(f)
    return out


def launch_command(out_dir: Path, script: str | None = None, args: list[str] | None = None,
                   launch_dir: Path | None = None) -> list[str]:
    """``accelerate launch --config_file ...``. With ``launch_dir`` (the folder the files must be launched from,
    :attr:`Generated.launch_dir`) the config is named relative to it, like the DeepSpeed JSON inside it."""
    cfg_path = Path(out_dir).expanduser().resolve() / ACCELERATE_YAML
    cfg = str(cfg_path)
    if launch_dir is not None:
        try:
            cfg = cfg_path.relative_to(Path(launch_dir).resolve()).as_posix()
        except ValueError:
            pass
    return ["accelerate", "launch", "--config_file", cfg, script or "train.py", *(args or [])]


def imported_diff(imported: tuple[Path, ...], files: dict[str, str]) -> str:
    """A unified diff from the imported YAML (and DeepSpeed JSON) to the files the wizard writes ('' when equal)."""
    if not imported:
        return ""
    pairs = [(imported[0], ACCELERATE_YAML)]
    if len(imported) > 1:
        pairs.append((imported[1], DS_JSON))
    import difflib  # only where a diff is shown (issue 26: --headless starts without it)

    from ..i18n.lines import line  # the headers' words in the language, the files' names as they are

    out = []
    for path, name in pairs:
        try:
            old = path.read_text(encoding="utf-8", errors="replace")
        except OSError as exc:
            out.append(f"--- {line('diff_imported_unreadable', name=path, error=exc.strerror or exc)}\n")
            continue
        new = files.get(name, "")
        out.append("".join(difflib.unified_diff(old.splitlines(keepends=True), new.splitlines(keepends=True),
                                                fromfile=line("diff_imported", name=path),
                                                tofile=line("diff_to_write", name=name))))
    return "".join(out)
