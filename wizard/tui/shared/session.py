"""What a wizard session starts from and where it writes. No Textual here.

A session starts from the catalogue defaults, a preset under ``templates/``, an ``answers.yaml`` or an
existing accelerate config (imported and linted). Findings about the file as loaded are kept apart
from the live findings, which are about the answers being edited.
"""
from __future__ import annotations

from collections.abc import Mapping
from pathlib import Path

from ...core.answers import Answers, default_answers, load_answers_file
from ...core.findings import ERROR, Finding
from ...core.i18n import said
from ...core.recordclass import field, record


class StartError(Exception):
    """The start file cannot be used at all (printed, exit 2; in the open dialogs, shown in the dialog).

    A file that cannot be read gives the one line of ``wizard.core.inputs.InputError`` (``PATH: WHAT; FIX``),
    the same words as ``--headless`` and ``check``; answers with wrong settings give ``findings``.
    """

    def __init__(self, message: str, findings: list[Finding] | None = None):
        super().__init__(message)
        self.findings = findings or []


def _answers_not_found() -> str:
    """The fix of an answers file that is not there (a sentence: translated where it is printed)."""
    return said("check the path (a preset opens with --preset NAME, or \"Load preset\" in the command palette; "
                "`fsdpds-wizard presets` lists them)")


@record
class Start:
    answers: Answers
    source: str = ""
    """A short label: ``preset zero3-cpu-offload``, ``answers.yaml``, ``imported accelerate.yaml``."""
    findings: list[Finding] = field(default_factory=list)
    """Findings about the file as loaded: for an imported config, what ``check`` says about it, then the
    importer's notes (rule ``import``); for an answers file, its warnings."""
    files: tuple[Path, ...] = ()
    """An imported config's files (YAML, then the DeepSpeed JSON): the review can diff against them."""
    bare_ds: bool = False
    """The import was a DeepSpeed JSON alone (``files`` is that JSON): the review diffs it with ds_config.json."""
    loaded: tuple[dict, dict | None] | None = None
    """An imported config's YAML and JSON as read: a switch of the answers as imported quotes them."""

    def source_files(self, answers: Answers) -> tuple[dict, dict | None] | None:
        """The imported files, while ``answers`` are still the answers imported from them (a switch report's
        "before" column then quotes the files, as ``fsdpds-wizard convert`` does); None otherwise."""
        if self.loaded is None or answers.target != self.answers.target or answers.values != self.answers.values:
            return None
        return self.loaded


def from_scratch() -> Start:
    return Start(default_answers(), "")


def from_answers_file(path: str | Path, label: str | None = None) -> Start:
    p = Path(path).expanduser()
    from ...core.inputs import InputError

    try:
        answers, findings = load_answers_file(p, _answers_not_found())
    except InputError as exc:
        raise StartError(str(exc)) from None
    if answers is None:
        raise StartError(f"{path}: invalid answers", findings)
    return Start(answers, label or p.name, findings)


def preset_names() -> list[str]:
    from ...core.presets import preset_paths

    return list(preset_paths())


def from_preset(name: str) -> Start:
    from ...core.presets import preset_hint, preset_paths

    presets = preset_paths()
    stem = Path(name).stem if name.endswith((".yaml", ".yml")) else name
    if stem not in presets:
        from ...core.inputs import ANSWERS, not_found

        raise StartError(str(not_found(name, ANSWERS, preset_hint(stem, list(presets)))))
    return from_answers_file(presets[stem], f"preset {stem}")


def from_accelerate_config(path: str | Path, versions: Mapping[str, str] | None = None) -> Start:
    """An accelerate config (or a DeepSpeed JSON alone) imported, with the findings ``check FILE`` gives for it:
    judged for ``versions`` (the --LIB-version flags' versions, as ``check --transformers-version ...``), the rest
    for the installed libraries."""
    from ...core.answers.imported import context_findings, import_and_check
    from ...core.context import make_context
    from ...core.inputs import InputError

    context = make_context(None, flags=versions)  # what `check FILE` judges for: unknown loop, the installed versions
    try:
        imported = import_and_check(path, context=context)
    except InputError as exc:
        raise StartError(str(exc)) from None
    if imported.answers is None:
        errors = [f for f in imported.findings if f.severity == ERROR] or imported.findings
        raise StartError(f"{path}: cannot import this accelerate config", errors)
    # the notes check adds about what it judged for, so the start shows exactly check's findings about the file
    context_notes = context_findings(context, deepspeed=imported.answers.backend == "deepspeed")
    return Start(imported.answers, f"imported {Path(path).name}", imported.findings + context_notes + imported.notes,
                 imported.files, bare_ds=imported.bare_ds, loaded=imported.loaded)


def start_from_args(args, versions: Mapping[str, str] | None = None) -> Start:
    """``--answers``, ``--preset`` and ``--config`` (at most one) or the defaults; ``versions``: what ``--config``'s
    file is judged for besides the installed libraries (:func:`from_accelerate_config`)."""
    given = [(k, v) for k in ("answers", "preset", "config") if (v := getattr(args, k, None))]
    if len(given) > 1:
        raise StartError("give at most one of --answers, --preset and --config")
    if not given:
        return from_scratch()
    kind, value = given[0]
    if kind == "answers":
        return from_answers_file(value)
    if kind == "preset":
        return from_preset(value)
    return from_accelerate_config(value, versions)


def default_out(answers: Answers) -> str:
    """Where files go when --out is not given: one folder per target, so both configs can coexist."""
    return f"configs-{answers.target}"


# ------------------------------------------------------------------ the memory context (issue 10)

MEMORY_FIELDS = {"model": "Model", "largest_layer": "Largest layer (params)",
                 "gpu_memory": "GPU memory per GPU (GiB)", "seq": "Sequence length",
                 "batch": "Micro batch per GPU", "host_memory": "Host memory per node (GiB)",
                 "gpus_per_node": "GPUs per machine (Suggest)", "machines": "Machines (Suggest)"}
"""The Memory screen's fields and the names their messages give them (also the CLI's --model, --gpu-memory,
--seq). The GPUs per machine and the machines are what Suggest ranks for (``recommend --gpus-per-node/--nodes``);
empty, the answers' processes and machines."""
_BOUND_OF_FIELD = {"machines": "nodes"}
"""A field whose number has another name in core/bounds.py."""



@record(frozen=True)
class MemoryContext:
    """What the estimate needs beyond the answers: the model and the GPUs (nothing is set by default)."""

    model: str = ""
    """As the user gave it: a shipped shape's name, a config.json path or a parameter count ("8e9", "8B")."""
    shape: object | None = None
    """The :class:`wizard.core.memory.shapes.ModelShape`, for a name or a config.json."""
    params: int | None = None
    """The parameter count, when the model was given as one (no shape: activations are not counted)."""
    largest_layer_params: int | None = None
    """With a parameter count: the largest unit FSDP/ZeRO-3 gathers at once (a shape gives its own)."""
    gpu_memory_gib: float | None = None
    seq: int | None = None
    batch: int | None = None
    """None: the answers' micro batch (1 when "auto")."""
    host_memory_gib: float | None = None
    gpus_per_node: int | None = None
    """What Suggest ranks for; None: the answers' processes per machine."""
    machines: int | None = None
    """What Suggest ranks for; None: the answers' machines."""

    def cluster(self, answers: Answers) -> tuple[int, int]:
        """(GPUs per machine, machines) Suggest ranks for: the fields', else the answers'."""
        machines = max(1, int(answers["launch.num_machines"]))
        per_machine = max(1, int(answers["launch.num_processes"]) // machines)
        return self.gpus_per_node or per_machine, self.machines or machines

    @property
    def has_model(self) -> bool:
        return self.shape is not None or self.params is not None

    def estimate(self, answers: Answers):
        """:func:`wizard.core.memory.estimate.estimate` for these answers (raises its EstimateError), with the default
        share of GPU memory kept free and this host memory: the fit ``recommend`` (Suggest) uses."""
        from ...core.memory.estimate import estimate

        count = self.shape is None
        return estimate(answers, params=self.params if count else None, shape=self.shape,
                        largest_layer_params=self.largest_layer_params if count else None,
                        batch=self.batch, seq=self.seq, gpu_memory_gib=self.gpu_memory_gib,
                        host_memory_gib=self.host_memory_gib)


class MemoryInputError(ValueError):
    """A field that cannot be used: ``str()`` is ``LABEL: MESSAGE`` in English; :meth:`in_language` in the wizard's
    language (the label as the screen names the field, a number's error with its value and limits as typed)."""

    def __init__(self, field_name: str, message: str, number: Exception | None = None,
                 model_error: tuple[str, str, str] | None = None):
        super().__init__(f"{MEMORY_FIELDS[field_name]}: {message}")
        self.field, self.message, self.number = field_name, message, number
        self.model_error = model_error
        """A model's error as shapes.py words it, the flags in it and the words that replace them here."""

    def in_language(self, lang: str | None = None) -> str:
        from ...core import localized
        from ...core.i18n import ENGLISH, language
        from ...core.i18n.cells import has_wide

        lang = lang or language()
        if lang == ENGLISH:
            return str(self)
        if self.number is not None:  # core/bounds.py's NumberError: its translation (part screen-cli)
            from ...core.localized.parsers import number_error

            message = number_error(self.number, lang)  # type: ignore[arg-type]
        elif self.model_error is not None:  # a model's error (part messages-memory), its flags replaced as in English
            english, flags, instead = self.model_error
            message, words = localized.said(english, lang), localized.said(instead, lang)
            if has_wide(words):  # (a space before a flag, none before the language's own words)
                message = message.replace(f" {flags}", flags)
            message = message.replace(flags, words)
        else:  # a said(...) sentence (part messages-memory); English where none matches
            message = localized.said(self.message, lang)
            if message == self.message and ": " in message:  # "PATH: the system's words" (an OSError, resolve_model)
                from ...core.localized.phrases import shown

                path, _, words = message.rpartition(": ")
                message = f"{path}{'：' if has_wide(shown(words, lang)) else ': '}{shown(words, lang)}"
        label = localized.screen("memory", f"field.{self.field}", lang)
        return f"{label}{'：' if has_wide(label) else ': '}{message}"


def resolve_model(text: str) -> tuple[object | None, int | None]:
    """(shape, params) for what was typed: empty gives (None, None); raises :class:`MemoryInputError`."""
    text = text.strip()
    if not text:
        return None, None
    import os

    from ...core.bounds import NumberError, count_value, parse
    from ...core.memory.shapes import ModelError, from_config_json, shape_by_name

    if not (os.path.exists(text) or text.endswith(".json")) and count_value(text) is not None:
        try:  # a parameter count, in its bound (core/bounds.py)
            return None, int(parse("params", text))
        except NumberError as exc:
            raise MemoryInputError("model", str(exc), exc) from None
    try:
        if os.path.exists(text) or text.endswith(".json"):
            return from_config_json(os.path.expanduser(text)), None
        return shape_by_name(text), None
    except ModelError as exc:  # the CLI's "--params N" is a count typed here
        from ...core.i18n import said

        flags, instead = "--params N --largest-layer N", said("a parameter count (8e9, 8B)")
        raise MemoryInputError("model", str(exc).replace(flags, instead), model_error=(str(exc), flags, instead)) \
            from None
    except OSError as exc:
        raise MemoryInputError("model", f"{text}: {exc.strerror or exc}") from None


def _number(field_name: str, text: str):
    """The number typed in a field, in its bound (core/bounds.py: the same bound and words as the command line's
    flag); None when empty; raises :class:`MemoryInputError`."""
    from ...core.bounds import NumberError, parse

    text = text.strip()
    if not text:
        return None
    try:
        return parse(_BOUND_OF_FIELD.get(field_name, field_name), text)
    except NumberError as exc:
        raise MemoryInputError(field_name, str(exc), exc) from None


def memory_fields(values: dict[str, str], lang: str | None = None) -> tuple[MemoryContext, dict[str, str]]:
    """The context for the fields typed (keys of :data:`MEMORY_FIELDS`, missing ones empty), and a message per
    field that cannot be used (those fields are left unset in the context), in the wizard's language (or
    ``lang``)."""
    from ...core.i18n import said

    errors: dict[str, str] = {}
    parsed: dict[str, object] = {}
    for name in ("gpu_memory", "seq", "batch", "host_memory", "gpus_per_node", "machines"):
        try:
            parsed[name] = _number(name, values.get(name, ""))
        except MemoryInputError as exc:
            errors[name] = exc.in_language(lang)
            parsed[name] = None
    shape = params = None
    try:
        shape, params = resolve_model(values.get("model", ""))
    except MemoryInputError as exc:
        errors["model"] = exc.in_language(lang)
    largest = None
    typed = values.get("largest_layer", "").strip()
    if typed:
        try:
            count = _number("largest_layer", typed)
        except MemoryInputError as exc:
            errors["largest_layer"] = exc.in_language(lang)
        else:
            if shape is not None:
                errors["largest_layer"] = MemoryInputError(
                    "largest_layer", said("the model's shape gives its largest layer; this field is for a parameter "
                                          "count (clear it)")).in_language(lang)
            elif params is not None and count > params:
                errors["largest_layer"] = MemoryInputError(
                    "largest_layer", said(f"{typed} is more than the model's {params:,} parameters")).in_language(lang)
            else:
                largest = count
    ctx = MemoryContext(model=values.get("model", "").strip(), shape=shape, params=params,
                        largest_layer_params=largest,
                        gpu_memory_gib=parsed["gpu_memory"], seq=parsed["seq"],  # type: ignore[arg-type]
                        batch=parsed["batch"], host_memory_gib=parsed["host_memory"],  # type: ignore[arg-type]
                        gpus_per_node=parsed["gpus_per_node"], machines=parsed["machines"])  # type: ignore[arg-type]
    return ctx, errors


def memory_from_args(args) -> MemoryContext:
    """The wizard's ``--model``, ``--gpu-memory`` and ``--seq``; raises :class:`StartError` naming the option."""
    model = getattr(args, "tui_model", None)
    gpu = getattr(args, "tui_gpu_memory", None)
    seq = getattr(args, "tui_seq", None)
    if model is None and gpu is None and seq is None:
        return MemoryContext()
    flags = {"model": "--model", "gpu_memory": "--gpu-memory", "seq": "--seq"}
    ctx, errors = memory_fields({"model": model or "", "gpu_memory": "" if gpu is None else str(gpu),
                                 "seq": "" if seq is None else str(seq)})
    for name, message in errors.items():
        raise StartError(f"{flags[name]} {message.split(': ', 1)[1]}")
    return ctx
