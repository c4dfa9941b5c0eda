"""What ``estimate`` and ``recommend --base`` take: answers (a file or a preset), an accelerate config (with the
DeepSpeed JSON it names), or a DeepSpeed JSON alone, as ``check`` and ``convert`` do.

Answers reach the estimate through the effective model of the files written from them; a config reaches it
directly, with the facts no config key holds (the script's accumulation steps and load dtype, activation
checkpointing under DeepSpeed, the process count of a JSON alone) from the command line, each unknown one said in the
estimate's notes."""
from __future__ import annotations

from pathlib import Path
from typing import Any

from ..core.exits import UsageError
from ..core.findings import ERROR

ANSWERS_KIND, CONFIG_KIND = "answers", "config"
CONFIG_FLAGS = (("gradient_accumulation_steps", "--gradient-accumulation-steps"), ("model_dtype", "--model-dtype"),
                ("activation_checkpointing", "--activation-checkpointing"), ("num_processes", "--num-processes"),
                ("trainer", "--trainer"))


def _kind(path: Path) -> str:
    """An accelerate config has ``distributed_type``; a JSON is DeepSpeed's; anything else is answers."""
    from ..core.inputs import ANSWERS, is_json_name, load_mapping_file

    if is_json_name(path):
        return CONFIG_KIND
    data = load_mapping_file(path, ANSWERS)
    return CONFIG_KIND if isinstance(data, dict) and "distributed_type" in data else ANSWERS_KIND


def resolve(name: str) -> tuple[Path, str]:
    """(path, kind) of a preset name or a file. InputError (exit 2) for what cannot be read."""
    from .common import resolve_answers_path

    path = resolve_answers_path(name)
    return path, _kind(path)


def answers_of(path: Path) -> Any:
    from ..core.answers import load_answers_file

    answers, findings = load_answers_file(path)
    if answers is None:
        first = next((f for f in findings if f.severity == ERROR), findings[0] if findings else None)
        from ..core import localized  # the finding in the language; the frame is translated where it is printed

        why = f"{localized.finding_message(first)}; {localized.finding_fix(first)}" if first is not None \
            else "no usable answers"
        raise UsageError(f"{path}: invalid answers ({why}); `fsdpds-wizard check` or the wizard shows all problems")
    return answers


def refuse_config_flags(args: Any, path: Path) -> None:
    given = [flag for name, flag in CONFIG_FLAGS if getattr(args, name, None) not in (None, False)]
    if given:
        raise UsageError(f"{', '.join(given)} go with an accelerate config or a DeepSpeed JSON; {path} is answers, "
                         "which say these themselves (edit the answers instead)")


def config_files(path: Path) -> Any:
    """The accelerate config and its JSON (``LoadedConfig``), or a usage error naming what is missing."""
    from ..core.lint import load_config_files

    loaded = load_config_files(path)
    if not loaded.ds_path_known:
        why = next((f.message for f in loaded.findings if f.severity == ERROR), "it could not be read")
        raise UsageError(f"{path}: the DeepSpeed JSON it names is needed to know what runs ({why})")
    return loaded


def config_layout(path: Path, args: Any, shape: Any) -> Any:
    """The layout that runs for a config, in the situation the flags describe (Layout; UsageError when the
    libraries would not start it, or it is not an FSDP or DeepSpeed config)."""
    from ..core.context import LOOP_ACCELERATE, LOOP_HF
    from ..core.effective import Situation, effective, layout
    from ..core.effective.layout import LayoutError

    loaded = config_files(path)
    acc = dict(loaded.yaml)
    if loaded.bare_ds:
        if args.num_processes is None:
            raise UsageError(f"{path} is a DeepSpeed JSON alone: give --num-processes N (and --num-machines M) so the "
                             "estimate knows how many ranks share the model")
        acc["num_processes"] = args.num_processes
        acc["num_machines"] = args.num_machines or 1
    elif args.num_processes is not None:
        raise UsageError("--num-processes goes with a DeepSpeed JSON alone: the accelerate config says num_processes")
    trainer = getattr(args, "trainer", None)
    situation = Situation(
        loop=LOOP_HF if trainer == "hf" else LOOP_ACCELERATE,
        trainer_arguments=({} if trainer == "hf" else None),
        micro_batch=args.batch,
        gradient_accumulation_steps=args.gradient_accumulation_steps,
        model_dtype=args.model_dtype or "fp32",
        activation_checkpointing=bool(args.activation_checkpointing),
        hidden_size=getattr(shape, "hidden_size", None),
    )
    e = effective(acc, loaded.ds, situation)
    if e.failures:
        why = "; ".join(f"{', '.join(f.keys) or path.name}: {f.message}" for f in e.failures)
        raise UsageError(f"{path}: this config does not start ({why}); `fsdpds-wizard check {path}` says how to fix "
                         "it")
    try:
        return layout(e)
    except LayoutError as exc:
        raise UsageError(f"{path}: {exc}") from exc


def source_errors(loaded: Any) -> list[Any]:
    """A config's errors as ``check`` reports them (for an unknown training loop, the installed libraries, away from
    the machine it runs on). ``convert`` and ``recommend --base`` start from no config that has any: one that fails,
    or whose values do not take effect, would have its fault carried over or hidden by what they write."""
    from ..core.context import make_context
    from ..core.lint.checked import check_findings

    return [f for f in check_findings(loaded, context=make_context(None), this_machine=False)
            if f.severity == ERROR]


class SourceHasErrors(UsageError):
    """A config with :func:`source_errors` that a command refuses to start from (exit 2, nothing written): the
    errors, for the report to list, and one line that says why."""

    def __init__(self, path: Any, errors: list[Any], why: str) -> None:
        """``why``: the command (``convert``, ``recommend``) whose reason (a line ``source_has_errors.COMMAND``) is
        given."""
        from ..core.i18n.lines import LINES

        self.path, self.errors, self.why = path, errors, why
        super().__init__(LINES["source_has_errors"].format(path=path, count=len(errors),
                                                           why=LINES[f"source_has_errors.{why}"]))

    def in_language(self) -> str:
        """The line in the language (main prints a usage error that has this method by it)."""
        from ..core.i18n.lines import line

        return line("source_has_errors", path=self.path, count=len(self.errors),
                    why=line(f"source_has_errors.{self.why}"))


def config_answers(path: Path) -> Any:
    """Answers imported from a config (``recommend --base``), as ``convert`` reads one: :class:`SourceHasErrors` for
    a config with errors."""
    from ..core.answers.importer import import_mapping

    loaded = config_files(path)
    errors = source_errors(loaded)
    if errors:
        raise SourceHasErrors(path, errors, "recommend")
    answers, findings = import_mapping(loaded.yaml, loaded.ds, bare_ds=loaded.bare_ds)
    if answers is None:
        why = next((f.message for f in findings if f.severity == ERROR), "it could not be imported")
        raise UsageError(f"{path}: {why}")
    return answers


__all__ = ["ANSWERS_KIND", "CONFIG_KIND", "SourceHasErrors", "answers_of", "config_answers", "config_layout",
           "refuse_config_flags", "resolve", "source_errors"]
