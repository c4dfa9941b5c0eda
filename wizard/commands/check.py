"""``fsdpds-wizard check FILE [--trainer hf|accelerate | --script train.py] [--training-args ARGS]
[--num-processes N] [--gpus-per-node N]
[--model CONFIG.json|NAME] [--accelerate-version V] [--deepspeed-version V] [--transformers-version V]
[--format text|json] [--verify]``.

FILE is an accelerate config (with the DeepSpeed JSON it names) or a DeepSpeed JSON alone."""
from __future__ import annotations

import json
from pathlib import Path

from ..core.context import LIBRARIES, LOOP_HF, SOURCE_ASSUMED, Context, VersionError, make_context
from ..core.exits import EXIT_INVALID, EXIT_OK, UsageError
from ..core.findings import INFO, Finding, dedupe, has_errors, sort_findings
from ..core.i18n.lines import line, loop_words
from ..core.inputs import InputError
from ..core.wizard_rules import (
    CONFIG_UNREADABLE,
    CONTEXT_NUM_PROCESSES_UNUSED,
    VERIFY_TRAINER_ARGUMENTS,
)
from .common import finding_text, summary_line


def _made_context(args, loop, **kw) -> Context:
    """The context for ``loop`` and the ``--LIB-version`` flags; a flag that is not a version: UsageError."""
    flags = {lib: getattr(args, f"{lib}_version", None) for lib in LIBRARIES}
    from ..core.context import parse_version

    for lib, given in flags.items():  # the flag named, as judged_context names it (its reason said in the language)
        if given:
            try:
                parse_version(given)
            except VersionError as exc:
                raise UsageError(f"--{lib}-version {given!r}: {exc}") from None
    try:
        return make_context(loop, flags=flags, **kw)
    except VersionError as e:
        raise UsageError(f"{e}; e.g. --deepspeed-version 0.16.4") from None


def _context(args) -> Context:
    loop, source = args.trainer, ("--trainer" if args.trainer else "")
    prepared: dict = {}
    if args.script:
        from ..core.script_loop import infer_loop

        if args.trainer:
            raise UsageError("--trainer and --script do not go together: --script reads the loop from the script")
        try:
            found = infer_loop(Path(args.script).expanduser())
        except OSError as e:
            raise UsageError(f"--script {args.script}: cannot read it ({e.strerror or e})") from None
        loop, source, prepared = found.loop, f"--script: {found.evidence}", found.prepared
    targs = None
    if getattr(args, "training_args", None):
        if loop not in (None, LOOP_HF):
            raise UsageError("--training-args gives the Hugging Face Trainer's arguments: it goes with --trainer hf "
                             f"(or none), not with {source or 'an own loop'}")
        targs = _training_arguments(args.training_args)
        if loop is None:
            loop, source = LOOP_HF, "--training-args"
    return _made_context(args, loop, loop_source=source, prepared=prepared, trainer_arguments=targs,
                         trainer_arguments_source=args.training_args if targs is not None else "")


def _training_arguments(path: str) -> dict:
    from ..core.effective.trainer import read_training_arguments

    try:
        return read_training_arguments(Path(path).expanduser())
    except InputError as e:
        raise UsageError(f"--training-args {e}") from None
    except ValueError as e:
        raise UsageError(f"--training-args {path}: {e}") from None


def _training_kind(args, loaded) -> str | None:
    """The tool when FILE, as read, is a LLaMA-Factory or axolotl training YAML (``--kind``, or recognised by its
    keys); None for an accelerate config or a DeepSpeed JSON, which the usual path checks."""
    from ..core.inputs import is_json_name
    from ..core.training_kinds import detect_kind

    kind = getattr(args, "kind", None)
    if kind is not None or is_json_name(args.config):
        return kind
    return detect_kind(loaded.yaml)


def _run_training_file(args, kind: str, data: dict) -> int:
    """A training YAML of a Trainer-based tool: its arguments are the context, the DeepSpeed JSON it names is
    checked in it (or what it sets instead is said)."""
    from ..core.effective.trainer import checked_arguments
    from ..core.effective.training_file import deepspeed_path, training_file_from
    from ..core.findings import ERROR
    from ..core.inputs import is_json_name
    from ..core.lint import lint_ds_json, load_config_files
    from ..core.lint.checked import check_findings, context_findings
    from ..core.training_kinds import AXOLOTL, KIND_LABELS, LLAMAFACTORY
    from ..core.wizard_rules import (
        TRAINING_FILE_DS_NOT_FOUND,
        TRAINING_FILE_FSDP,
        TRAINING_FILE_NO_BACKEND,
        TRAINING_FILE_READ,
    )

    label = KIND_LABELS[kind]
    if args.trainer == "accelerate" or args.script or getattr(args, "training_args", None):
        raise UsageError(f"{args.config} is a {label}: the Hugging Face Trainer drives it and the file gives its "
                         "arguments, so --trainer accelerate, --script and --training-args do not go with it")
    tf = training_file_from(data, kind)
    try:
        checked_arguments(tf.arguments)
    except ValueError as e:
        raise UsageError(f"{args.config} ({label}): {e}") from None
    ctx = _made_context(args, LOOP_HF, loop_source=f"{args.config} ({label})", trainer_arguments=tf.arguments,
                        trainer_arguments_source=f"{args.config}")
    how = "--kind" if getattr(args, "kind", None) else "its keys"
    shown = ", ".join(f"{k}={v!r}" for k, v in tf.arguments.items()) or "none (all defaults)"
    renamed = "".join(f"; {a} <- {b}" for b, a in tf.mapped)
    read_as = ("Read as a LLaMA-Factory training YAML" if kind == LLAMAFACTORY else  # the words literal: translated
               "Read as an axolotl YAML" if kind == AXOLOTL else
               f"Read as {'an' if label[0] in 'aeiou' else 'a'} {label}")
    findings = [Finding(INFO, TRAINING_FILE_READ, tuple(tf.arguments) or ("TrainingArguments",),
                        read_as + f" (recognised by {how}): the Hugging Face Trainer gets "
                        f"TrainingArguments({shown}){renamed}"
                        + "".join(f"; {n}" for n in tf.notes) + ". Its other keys are not about the DeepSpeed pair "
                        "and are not checked here.", "Pass --kind llamafactory|axolotl if this is the wrong tool.")]
    loaded, where = None, ""
    if isinstance(tf.deepspeed, str) and tf.deepspeed.strip():
        path = deepspeed_path(tf.deepspeed, Path.cwd())
        where = f", DeepSpeed JSON {tf.deepspeed}"
        if not path.is_file():
            beside = Path(args.config).expanduser().parent / tf.deepspeed
            hint = (f" It exists beside the YAML ({beside}), but the tool opens the path from the folder the run "
                    "starts in, not from the YAML's folder." if beside.is_file() else "")
            findings.append(Finding(ERROR, TRAINING_FILE_DS_NOT_FOUND, ("deepspeed",),
                                    f"`deepspeed: {tf.deepspeed}` is not found from {Path.cwd()} (the tool opens it "
                                    f"from the folder the run starts in, as {path}): the run stops there.{hint}",
                                    "Run check from the folder you launch training from, or give the path from "
                                    "there (or an absolute one)."))
        elif is_json_name(path):
            try:
                loaded = load_config_files(path)
            except InputError as exc:
                findings.append(exc.finding(CONFIG_UNREADABLE, "deepspeed"))
            else:
                findings += check_findings(loaded, args.gpus_per_node, context=ctx,
                                           num_processes=args.num_processes, this_machine=False)
        else:
            from ..core.inputs import DEEPSPEED, load_mapping_file

            try:
                ds = load_mapping_file(path, DEEPSPEED)
            except InputError as exc:
                findings.append(exc.finding(CONFIG_UNREADABLE, "deepspeed"))
            else:
                findings += lint_ds_json(ds, num_processes=args.num_processes, context=ctx)
    elif isinstance(tf.deepspeed, dict):  # axolotl also takes the DeepSpeed config inline
        where = ", DeepSpeed config inline"
        findings += lint_ds_json(tf.deepspeed, num_processes=args.num_processes, context=ctx)
    elif tf.fsdp:
        names = ", ".join(tf.fsdp)
        findings.append(Finding(INFO, TRAINING_FILE_FSDP, tuple(tf.fsdp),
                                f"{args.config} sets FSDP ({names}), not a DeepSpeed JSON. Checked: the arguments it "
                                "passes to the Trainer (above) are usable. Not checked: the FSDP settings "
                                "themselves; the Trainer matches nothing of them against its arguments, and this "
                                "check does not read them.", "Check the FSDP settings as an accelerate config "
                                "(`fsdpds-wizard check accelerate_config.yaml`), or write one with the wizard."))
    else:
        findings.append(Finding(INFO, TRAINING_FILE_NO_BACKEND, ("deepspeed",),
                                f"{args.config} names no DeepSpeed JSON (`deepspeed:`) and no FSDP settings: the "
                                "Trainer runs it without either, and there is no pair to check.",
                                "Add `deepspeed: path/to/ds_config.json` if the run is meant to use DeepSpeed."))
    findings += context_findings(ctx, deepspeed=True)
    return _report(sort_findings(dedupe(findings)), args, ctx, loaded, kind=f"{kind}_training_file",
                   what=f" ({label}{where})")


def run(args) -> int:
    from ..core.lint import load_config_files
    from ..core.lint.checked import check_findings, context_findings

    try:  # read once: a training YAML of a Trainer-based tool is told from an accelerate config by its keys
        loaded = load_config_files(args.config)
    except InputError as exc:  # the file cannot be used at all: the shared wording, as one finding
        if getattr(args, "kind", None) is not None:
            raise UsageError(f"--kind {args.kind}: {exc}") from None
        return _report([exc.finding(CONFIG_UNREADABLE, "config")], args, _context(args), None)
    kind = _training_kind(args, loaded)
    if kind is not None:
        return _run_training_file(args, kind, (loaded.ds or {}) if loaded.bare_ds else loaded.yaml)
    ctx = _context(args)
    model = None
    if args.model is not None:
        from .estimate import model_shape

        model = model_shape(args.model, params_option=False)
    findings = check_findings(loaded, args.gpus_per_node, context=ctx, num_processes=args.num_processes, model=model)
    if args.num_processes is not None and not loaded.bare_ds:
        findings.append(Finding(INFO, CONTEXT_NUM_PROCESSES_UNUSED, ("num_processes",),
                                f"--num-processes {args.num_processes} is not used: {args.config} is an accelerate "
                                "config, whose own num_processes ("
                                f"{loaded.yaml.get('num_processes', 'not written, so 1')}) decides.",
                                "Drop --num-processes, or change num_processes in the config."))
    is_ds = loaded.bare_ds or str(loaded.yaml.get("distributed_type", "")).upper() == "DEEPSPEED"
    findings += context_findings(ctx, deepspeed=is_ds)
    if args.verify:
        import contextlib
        import sys

        # the libraries log to stdout when imported (DeepSpeed's accelerator probe): keep stdout for the report
        with contextlib.redirect_stdout(sys.stderr):
            findings += _verify(loaded, args, ctx)
    return _report(sort_findings(dedupe(findings)), args, ctx, loaded)


def _verify(loaded, args, ctx: Context) -> list[Finding]:
    """Replay through the installed accelerate and deepspeed; a DeepSpeed JSON alone inside the smallest
    accelerate config that names it (num_processes from --num-processes, else 1)."""
    import tempfile

    import yaml

    from ..core.verify import effective_config
    from ..run.requirements import config_target, require

    require("check --verify", config_target(loaded.yaml), verify=True)
    if not loaded.bare_ds:
        return effective_config(loaded.yaml_path).findings
    trainer = None
    notes: list[Finding] = []
    if ctx.loop == LOOP_HF:
        trainer = trainer_arguments_for(loaded.ds, args.num_processes or 1)
        shown = ", ".join(f"{k}={v!r}" for k, v in trainer.items())
        notes.append(Finding(INFO, VERIFY_TRAINER_ARGUMENTS, ("TrainingArguments",),
                             "Replayed under the Hugging Face Trainer with "
                             f"TrainingArguments({shown}) (the values that agree with the JSON; defaults otherwise).",
                             "Pass the same values to TrainingArguments."))
    with tempfile.TemporaryDirectory(prefix="fsdpds-verify-") as tmp:
        cfg = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "DEEPSPEED", "num_machines": 1,
               "num_processes": args.num_processes or 1, "machine_rank": 0, "use_cpu": False,
               "deepspeed_config": {"deepspeed_config_file": str(Path(loaded.ds_path).resolve())}}
        y = Path(tmp) / "accelerate_config.yaml"
        y.write_text(yaml.safe_dump(cfg), encoding="utf-8")
        # a model with config.hidden_size (every transformers model has one) fills the hidden-size "auto" keys
        return effective_config(y, trainer_arguments=trainer, hidden_size=1024).findings + notes


def _count(value) -> int | None:
    return value if isinstance(value, int) and not isinstance(value, bool) and value > 0 else None


def _number(value) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _params(ds: dict, block: str) -> dict:
    sec = ds.get(block)
    params = sec.get("params") if isinstance(sec, dict) else None
    return params if isinstance(params, dict) else {}


def trainer_arguments_for(ds: dict, world: int) -> dict:
    """The TrainingArguments a user of this JSON would pass so that the Trainer accepts its concrete values: the
    micro batch, accumulation, clipping, learning rate, Adam betas/eps, weight decay, warmup and precision as
    written (the micro batch derived from a fixed total when it is whole), defaults for the rest."""
    out: dict = {}
    mb, gas, tb = (_count(ds.get(k)) for k in ("train_micro_batch_size_per_gpu", "gradient_accumulation_steps",
                                                "train_batch_size"))
    if gas:
        out["gradient_accumulation_steps"] = gas
    if mb:
        out["per_device_train_batch_size"] = mb
    elif tb and tb % ((gas or 1) * world) == 0:
        out["per_device_train_batch_size"] = tb // ((gas or 1) * world)
    clip = _number(ds.get("gradient_clipping"))
    if clip is not None:
        out["max_grad_norm"] = clip
    op, sp = _params(ds, "optimizer"), _params(ds, "scheduler")
    lr = _number(op.get("lr"))
    if lr is None:
        lr = _number(sp.get("warmup_max_lr"))
    if lr is not None:
        out["learning_rate"] = lr
    betas = op.get("betas")
    if isinstance(betas, list) and len(betas) == 2 and all(_number(b) is not None for b in betas):
        out["adam_beta1"], out["adam_beta2"] = float(betas[0]), float(betas[1])
    for key, arg in (("eps", "adam_epsilon"), ("weight_decay", "weight_decay")):
        v = _number(op.get(key))
        if v is not None:
            out[arg] = v
    warm, total = _count(sp.get("warmup_num_steps")), _count(sp.get("total_num_steps"))
    if warm:
        out["warmup_steps"] = warm
    if total:
        out["max_steps"] = total
    for block in ("fp16", "bf16"):
        sec = ds.get(block)
        if isinstance(sec, dict) and sec.get("enabled") is True:
            out[block] = True
    return out


def _report(findings: list[Finding], args, ctx: Context, loaded, *, kind: str | None = None, what: str = "") -> int:
    code = EXIT_INVALID if has_errors(findings) else EXIT_OK
    if kind is None:
        kind = None if loaded is None else ("deepspeed_json" if loaded.bare_ds else "accelerate_config")
    if args.format == "json":
        context = ctx.to_dict()
        context["input"] = kind
        context["num_processes"] = args.num_processes
        print(json.dumps({"findings": [f.to_dict() for f in findings], "context": context}, indent=2))
        return code
    for f in findings:
        print(finding_text(f))
    verdict = "FAIL" if code else "OK"
    what = what or ("" if kind != "deepspeed_json" else " " + line("ds_json_alone"))
    print(f"{verdict}: {args.config}: {summary_line(findings)}{what}; {line('judged_for', what=_judged(ctx))}")
    return code


def _judged(ctx: Context) -> str:
    def one(lib: str) -> str:
        assumed = " " + line("as_verified") if ctx.version_sources.get(lib) == SOURCE_ASSUMED else ""
        return f"{lib} {ctx.versions[lib]}{assumed}"

    versions = ", ".join(one(lib) for lib in ("accelerate", "deepspeed", "transformers") if ctx.versions.get(lib))
    return f"{loop_words(ctx.loop, ctx.loop_label)}, {versions}"
