"""``fsdpds-wizard check FILE [--trainer hf|accelerate | --script train.py] [--num-processes N] [--gpus-per-node N]
[--accelerate-version V] [--deepspeed-version V] [--transformers-version V] [--format text|json] [--verify]``.

FILE is an accelerate config (with the DeepSpeed JSON it names) or a DeepSpeed JSON alone."""
from __future__ import annotations

import json
from pathlib import Path

from ..core.context import LIBRARIES, SOURCE_ASSUMED, Context, VersionError, make_context, parse_version
from ..core.findings import INFO, Finding, dedupe, has_errors, sort_findings
from ..core.loading import InputError
from ..core.wizard_rules import CONFIG_UNREADABLE, CONTEXT_LOOP_UNKNOWN, CONTEXT_NUM_PROCESSES_UNUSED, CONTEXT_VERSIONS
from ..exits import EXIT_INVALID, EXIT_OK, UsageError
from .common import summary_line


def _context(args) -> Context:
    flags = {lib: getattr(args, f"{lib}_version", None) for lib in LIBRARIES}
    loop, source = args.trainer, ("--trainer" if args.trainer else "")
    if args.script:
        from ..core.script_loop import infer_loop

        if args.trainer:
            raise UsageError("--trainer and --script do not go together: --script reads the loop from the script")
        try:
            found = infer_loop(Path(args.script).expanduser())
        except OSError as e:
            raise UsageError(f"--script {args.script}: cannot read it ({e.strerror or e})") from None
        loop, source = found.loop, f"--script: {found.evidence}"
    try:
        return make_context(loop, flags=flags, loop_source=source)
    except VersionError as e:
        raise UsageError(f"{e}; e.g. --deepspeed-version 0.16.4") from None


def context_findings(ctx: Context, *, deepspeed: bool) -> list[Finding]:
    from ..versions import VERIFIED_AGAINST

    out = []
    differ = []
    for lib in LIBRARIES:
        judged = ctx.versions.get(lib)
        if judged and ctx.version_sources.get(lib) != SOURCE_ASSUMED and lib in VERIFIED_AGAINST \
                and parse_version(judged) != parse_version(VERIFIED_AGAINST[lib]):
            differ.append(lib)
    if differ:
        judged = ", ".join(f"{lib} {ctx.versions[lib]} ({ctx.version_sources[lib]})" for lib in differ)
        verified = ", ".join(f"{lib} {VERIFIED_AGAINST[lib]}" for lib in differ)
        out.append(Finding(INFO, CONTEXT_VERSIONS, tuple(differ),
                           f"Judged for {judged}; the wizard's knowledge was verified against {verified}. Rules "
                           "known to hold only for some versions follow their ranges; everything else is as "
                           "verified.", "`fsdpds-wizard check --verify` replays the config through the installed "
                           "libraries."))
    if deepspeed and ctx.loop is None:
        why = f" ({ctx.loop_source.removeprefix('--script: ')})" if ctx.loop_source else ""
        out.append(Finding(INFO, CONTEXT_LOOP_UNKNOWN, (), "Who drives training is not known" + why + ": findings "
                           "that depend on it (\"auto\" values, the Trainer's checks) are warnings that say what "
                           "happens under the Hugging Face Trainer and in an own Accelerator loop.",
                           "Pass --trainer hf or --trainer accelerate, or --script train.py."))
    return out


def run(args) -> int:
    from ..core.answers.imported import check_findings
    from ..core.lint import load_config_files

    if args.gpus_per_node is not None and args.gpus_per_node < 1:
        raise UsageError("--gpus-per-node must be at least 1")
    if args.num_processes is not None and args.num_processes < 1:
        raise UsageError("--num-processes must be at least 1")
    ctx = _context(args)
    try:
        loaded = load_config_files(args.config)
    except InputError as exc:  # the file cannot be used at all: the shared wording, as one finding
        return _report([exc.finding(CONFIG_UNREADABLE, "config")], args, ctx, None)
    findings = check_findings(loaded, args.gpus_per_node, context=ctx, num_processes=args.num_processes)
    if args.num_processes is not None and not loaded.bare_ds:
        findings.append(Finding(INFO, CONTEXT_NUM_PROCESSES_UNUSED, ("num_processes",),
                                f"--num-processes {args.num_processes} is not used: {args.config} is an accelerate "
                                "config, whose own num_processes ("
                                f"{loaded.yaml.get('num_processes', 'not written, so 1')}) decides.",
                                "Drop --num-processes, or change num_processes in the config."))
    is_ds = loaded.bare_ds or str(loaded.yaml.get("distributed_type", "")).upper() == "DEEPSPEED"
    findings += context_findings(ctx, deepspeed=is_ds)
    if args.verify:
        findings += _verify(loaded, args)
    return _report(sort_findings(dedupe(findings)), args, ctx, loaded)


def _verify(loaded, args) -> list[Finding]:
    """Replay through the installed accelerate and deepspeed; a DeepSpeed JSON alone inside the smallest
    accelerate config that names it (num_processes from --num-processes, else 1)."""
    import tempfile

    import yaml

    from ..core.verify import effective_config
    from ..run.requirements import config_target, require

    if loaded.bare_ds and args.trainer == "hf":
        raise UsageError("check --verify --trainer hf on a DeepSpeed JSON alone is not available yet; --verify "
                         "replays accelerate's own-loop path (--trainer accelerate)")
    require("check --verify", config_target(loaded.yaml), verify=True)
    if not loaded.bare_ds:
        return effective_config(loaded.yaml_path).findings
    with tempfile.TemporaryDirectory(prefix="fsdpds-verify-") as tmp:
        cfg = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_machines": 1,
               "num_processes": args.num_processes or 1, "machine_rank": 0, "use_cpu": False,
               "deepspeed_config": {"deepspeed_config_file": str(Path(loaded.ds_path).resolve())}}
        y = Path(tmp) / "accelerate_config.yaml"
        y.write_text(yaml.safe_dump(cfg), encoding="utf-8")
        return effective_config(y).findings


def _report(findings: list[Finding], args, ctx: Context, loaded) -> int:
    code = EXIT_INVALID if has_errors(findings) else EXIT_OK
    kind = None if loaded is None else ("deepspeed_json" if loaded.bare_ds else "accelerate_config")
    if args.format == "json":
        context = ctx.to_dict()
        context["input"] = kind
        context["num_processes"] = args.num_processes
        print(json.dumps({"findings": [f.to_dict() for f in findings], "context": context}, indent=2))
        return code
    for f in findings:
        print(f.render())
    verdict = "FAIL" if code else "OK"
    what = "" if kind != "deepspeed_json" else " (DeepSpeed JSON alone)"
    print(f"{verdict}: {args.config}{what}: {summary_line(findings)}; judged for {_judged(ctx)}")
    return code


def _judged(ctx: Context) -> str:
    versions = ", ".join(f"{lib} {ctx.versions[lib]}" for lib in ("accelerate", "deepspeed", "transformers")
                         if ctx.versions.get(lib))
    return f"{ctx.loop_label}, {versions}"
