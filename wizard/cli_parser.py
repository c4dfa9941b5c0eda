"""The command line's argparse parser: the main parser, each command's (built when first used), argparse's messages
and help in the wizard's language. Imported only by a command line the entry (:mod:`wizard.cli`) does not read itself:
the wizard's screen with nothing given and a plain ``--headless X --out DIR`` start without it (issue 26: argparse and
gettext, and building the parser, cost a few milliseconds of every start)."""
from __future__ import annotations

import argparse

from .cli_words import _HEADLESS_INSTEAD, _NEEDS_VALUE, _START_FLAGS, COMMANDS, EVERY_OPTION
from .core.exits import EXIT_OK, UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)

if TYPE_CHECKING:
    from collections.abc import Callable


class _Parser(argparse.ArgumentParser):
    """argparse that reports a usage error as one line (a :class:`UsageError`), explains the main flags that lack
    their value, and builds costly parts of its help only when the help is shown."""

    argv: list[str] = []
    more_help: Callable[[], str] | None = None
    """A function giving text appended to the help (so ``explain``'s group list is only read for its help)."""
    make_usage: Callable[[], str] | None = None
    """A function giving the usage line, written only when the usage or the help is shown."""

    def format_usage(self) -> str:
        self._write_usage()
        return super().format_usage()

    def format_help(self) -> str:
        self._write_usage()
        from .core.i18n import ENGLISH, language

        if language() != ENGLISH:
            return self._translated_help()
        text = super().format_help()
        if self.more_help is not None:
            text += "\n" + self.more_help() + "\n"
        return text

    def _translated_help(self) -> str:
        """The help in the chosen language: the options' and commands' lines, the description, the epilog and the
        group titles through wizard.core.localized (argparse's own "usage:" and "options" too); option names,
        metavars and choices as they are."""
        from .core.localized import cli_words

        for action in self._actions:
            if action.help and action.help is not argparse.SUPPRESS:
                action.help = cli_words(action.help)
            for choice in getattr(action, "_choices_actions", ()):
                choice.help = cli_words(choice.help)
        for group in self._action_groups:
            group.title = cli_words(group.title) if group.title else group.title
        line = COMMANDS.get(self.prog.removeprefix("fsdpds-wizard").strip(), "")
        if line and self.description == line[0].upper() + line[1:] + ".":  # a command's own line, as a sentence
            words = cli_words(line)
            from .core.i18n.cells import has_wide

            wide = has_wide(words)  # a Chinese sentence ends in a full stop of its own
            first = "İ" if words[0] == "i" else words[0].upper()  # Turkish has a dotted capital I
            self.description = first + words[1:] + ("" if words.endswith(("。", ".")) else "。" if wide else ".")
        else:
            self.description = cli_words(self.description or "")
        self.epilog = cli_words(self.epilog or "")
        if self.usage:  # the main usage's note, in the language; the flags as they are
            self.usage = self.usage.replace(f"({EVERY_OPTION})", f"({cli_words(EVERY_OPTION)})")
        self.formatter_class = _CellsHelpFormatter
        english_words = argparse._  # type: ignore[attr-defined]  # its "usage: ", looked up when the help is written
        argparse._ = cli_words  # type: ignore[attr-defined]
        try:
            text = super().format_help()
        finally:
            argparse._ = english_words  # type: ignore[attr-defined]
        if self.more_help is not None:
            text += "\n" + self.more_help() + "\n"
        return text

    def add_argument(self, *args, **kwargs):
        self._checking_argument = True  # argparse builds a help formatter only to check the new argument's metavar
        try:
            return super().add_argument(*args, **kwargs)
        finally:
            self._checking_argument = False

    def _get_formatter(self):
        if getattr(self, "_checking_argument", False):  # a fixed width: no terminal size asked, no shutil imported
            return argparse.HelpFormatter(prog=self.prog, width=80)  # its _format_args is every formatter's
        return super()._get_formatter()

    def _write_usage(self) -> None:
        if self.usage is None and self.make_usage is not None:
            self.usage = self.make_usage()

    def error(self, message: str):  # argparse's hook; raises instead of exiting
        for flag, text in _NEEDS_VALUE.items():
            if message.startswith(f"argument {flag}: expected one argument"):
                if flag == "--headless":
                    start = next((f for f in _START_FLAGS if f in self.argv), None)
                    if start:  # a sentence of its own around the table's (each translated where printed)
                        from .core.i18n import said

                        text = said(f"{text}. It does not go together with {start}: {_START_FLAGS[start]}; "
                                    f"{_HEADLESS_INSTEAD[start]}")
                raise UsageError(text)
        if message.startswith("argument COMMAND: invalid choice:"):
            raise UsageError(_unknown_command(message))
        command = self.prog.removeprefix("fsdpds-wizard").strip()
        see = f"fsdpds-wizard help {command}" if command else "fsdpds-wizard --help"
        raise _ArgparseError(f"{command}: " if command else "", message, see)


class _ArgparseError(UsageError):
    """argparse's own error (``message``, as argparse words it) for the command ``prefix`` names, and where its options
    are (``see``): one line in English; main says it in the language (wizard.core.localized.parsers)."""

    def __init__(self, prefix: str, message: str, see: str):
        self.prefix, self.message, self.see = prefix, message, see
        super().__init__(f"{prefix}{message} (options: {see})")

    def in_language(self) -> str:
        from .core.i18n import language
        from .core.localized.parsers import parser_error

        return parser_error(self.prefix, self.message, self.see, language())


class _LibraryOption(argparse._StoreAction):
    """A ``--LIB-version`` option: its help names the library as ``%(library)s`` (argparse fills it in), so that its
    English is one literal the translations read (wizard.core.localized.cli_sources)."""

    def __init__(self, *args, library: str, **kwargs):
        self.library = library
        super().__init__(*args, **kwargs)


class _CellsHelpFormatter(argparse.HelpFormatter):
    """argparse's help wrapped by terminal cells (a Chinese character takes two; Chinese has no spaces to break at),
    for a help in another language."""

    def _split_lines(self, text, width):
        from .core.i18n import cells

        return cells.wrap(" ".join(text.split()), width)

    def _fill_text(self, text, width, indent):
        from .core.i18n import cells

        return "\n".join(cells.wrap(" ".join(text.split()), width, indent, indent))


def _unknown_command(message: str) -> str:
    import difflib
    import re

    found = re.search(r"invalid choice: '([^']*)'", message)
    name = found.group(1) if found else "?"
    close = difflib.get_close_matches(name, list(COMMANDS), n=1)
    if close:  # two sentences, each its own template (the guess's words translated with it)
        return (f"unknown command '{name}'; did you mean '{close[0]}'? commands: {', '.join(COMMANDS)} "
                "(fsdpds-wizard --help). Options such as --headless, --out and --preset go without a command")
    return (f"unknown command '{name}'; commands: {', '.join(COMMANDS)} (fsdpds-wizard --help). "
            "Options such as --headless, --out and --preset go without a command")


class _VersionAction(argparse.Action):
    """``--version``: the wizard's version and the library versions (read from metadata, nothing imported)."""

    def __init__(self, option_strings, dest=argparse.SUPPRESS, default=argparse.SUPPRESS, help=None):
        super().__init__(option_strings, dest=dest, default=default, nargs=0, help=help)

    def __call__(self, parser, namespace, values, option_string=None):
        from .core.versions import version_text

        print(version_text())
        parser.exit(EXIT_OK)


class _CommandParsers(dict):
    """Command name -> its parser, each built the first time it is asked for: a start sets up the options of the
    command it runs only (``--help`` and ``help COMMAND`` build the ones they show)."""

    def __init__(self, build: Callable[[str], argparse.ArgumentParser]):
        super().__init__(dict.fromkeys(COMMANDS))
        self._build = build

    def __getitem__(self, name: str) -> argparse.ArgumentParser:
        parser = super().__getitem__(name)
        if parser is None:
            parser = self._build(name)
            self[name] = parser
        return parser

    def get(self, name, default=None):
        return self[name] if name in self else default

    def values(self):
        return [self[name] for name in self]

    def items(self):
        return [(name, self[name]) for name in self]


class _Commands(argparse._SubParsersAction):
    """The commands' own options go to their own namespace (``args.command_args``), so that a command's
    ``--verify``, ``--format`` or positional CONFIG never mixes with the wizard's flags of the same name. Each
    command's parser is built only when that command is chosen (or its help shown)."""

    def __init__(self, *args, **kwargs):
        super().__init__(*args, **kwargs)
        self._name_parser_map = self.choices = _CommandParsers(self._build)
        for name, line in COMMANDS.items():  # the lines of --help, as add_parser(name, help=line) makes them
            self._choices_actions.append(self._ChoicesPseudoAction(name, (), line))

    def _build(self, name: str) -> argparse.ArgumentParser:
        line = COMMANDS[name]
        parser = self._parser_class(prog=f"{self._prog_prefix} {name}", description=line[0].upper() + line[1:] + ".")
        _COMMAND_PARSERS[name](parser)
        _lang_option(parser)
        return parser

    def __call__(self, parser, namespace, values, option_string=None):
        name, rest = values[0], list(values[1:])
        setattr(namespace, self.dest, name)
        sub = self.choices[name]
        sub.argv = rest
        namespace.command_args = sub.parse_args(rest)


# The wizard's own flags (without a command): dest -> the flag, to refuse them in front of a command.
def _usage() -> str:
    """The main usage: the commands first (argparse's own would list every flag and end with ``COMMAND ...``), then
    the wizard and --headless, within 80 columns."""
    import textwrap

    indent = " " * len("usage: fsdpds-wizard COMMAND ...  (")
    commands = textwrap.wrap(", ".join(COMMANDS) + ")", 80 - len(indent))
    lines = ["%(prog)s COMMAND ...  (" + commands[0], *(indent[len("usage: "):] + c for c in commands[1:]),
             "%(prog)s [--answers FILE|--preset NAME|--config FILE] [--out DIR]",
             "%(prog)s --headless ANSWERS.yaml --out DIR [--verify] [--launch ...]",
             f"%(prog)s --help | --version   ({EVERY_OPTION})"]
    return "\n       ".join(lines)


def _main_parser() -> _Parser:
    p = _Parser(
        prog="fsdpds-wizard",
        description="Choose, validate and write accelerate configs for PyTorch FSDP and DeepSpeed ZeRO.",
        epilog="Without a command the interactive wizard opens (--answers, --preset or --config to start from, "
               "--out for the folder); --headless writes the configs without a screen. A command's options: "
               "fsdpds-wizard help COMMAND.",
    )
    p.make_usage = _usage
    p.add_argument("--version", action=_VersionAction,
                   help="print the wizard's version and the accelerate, deepspeed, torch and transformers versions "
                        "its knowledge was verified against (and the installed ones)")
    p.add_argument("--headless", metavar="ANSWERS.yaml",
                   help="generate the configs from an answers file (or a preset name) without a screen")
    p.add_argument("--out", metavar="DIR", help="folder for accelerate_config.yaml, ds_config.json and answers.yaml")
    p.add_argument("--force", action="store_true",
                   help="replace existing files (old content kept as NAME.bak, or the first free NAME.N.bak)")
    p.add_argument("--verify", action="store_true",
                   help="also load the result with the real accelerate and deepspeed code and compare every value "
                        "(imports torch: a few seconds)")
    p.add_argument("--launch", action="store_true",
                   help="after writing, start the run with accelerate launch and monitor it "
                        "(script arguments after --)")
    p.add_argument("--rehearse", action="store_true",
                   help="with --launch: rehearse the config on this machine's CPU with 2 processes and the bundled "
                        "script before spending GPU hours")
    p.add_argument("--allow-no-gpu", action="store_true",
                   help="with --launch: start even where no GPU is found on this machine (a plain launch refuses "
                        "there and points to --rehearse)")
    p.add_argument("--slurm", action="store_true",
                   help="with --launch: submit the run as a SLURM batch job (one launcher per node, rank and main "
                        "address from SLURM), stream every node's log into the monitor, scancel on Ctrl-C; in the "
                        "wizard: its launch (ctrl+l) and rehearsal (F5) go through SLURM the same way")
    p.add_argument("--partition", metavar="P", help="with --slurm: the SLURM partition")
    p.add_argument("--time", metavar="T", help="with --slurm: the job's time limit (sbatch --time)")
    p.add_argument("--ds-config-path", choices=("auto", "absolute"), default=None,
                   help="how accelerate_config.yaml names the DeepSpeed JSON: auto (default) writes it relative to "
                        "the current folder when --out lies inside it (launch from this folder; the config travels "
                        "with a repository), else absolute; absolute always writes the absolute path (headless and "
                        "the wizard)")
    p.add_argument("--trainer", choices=("hf", "accelerate"), dest="headless_trainer",
                   help="with --headless: who drives training, over the answers' launch.training_loop: hf = the "
                        "Hugging Face Trainer (the configs are written for it, with training_arguments.json, and "
                        "--rehearse trains through transformers.Trainer), accelerate = an own Accelerator loop")
    p.add_argument("--training-file", metavar="FILE", dest="headless_training_file",
                   help="with --launch --rehearse and the Trainer as the loop: the rehearsal's TrainingArguments come "
                        "from this file (TrainingArguments as YAML/JSON, a LLaMA-Factory or an axolotl training YAML, "
                        "mapped as that tool does) instead of the answers, so the Trainer matches your file against "
                        "the written configs for real")
    for lib in ("accelerate", "deepspeed", "transformers"):
        p.add_argument(f"--{lib}-version", metavar="V", dest=f"headless_{lib}_version", action=_LibraryOption,
                       library=lib, help="judge the config for this %(library)s version, headless and in the wizard "
                                         "(default: the one the wizard was verified against; with --launch, the "
                                         "installed one, which the run uses)")
    start = p.add_mutually_exclusive_group()
    start.add_argument("--answers", metavar="FILE", help="(wizard) start from this answers file")
    start.add_argument("--preset", metavar="NAME",
                       help="(wizard) start from a preset (fsdpds-wizard presets lists them)")
    start.add_argument("--config", metavar="ACCELERATE.yaml",
                       help="(wizard) start from an existing accelerate config (and its DeepSpeed JSON): "
                            "import and lint it")
    memory = p.add_argument_group(title="the wizard's memory bar (the Memory screen, F3, sets them too)")
    memory.add_argument("--model", metavar="CONFIG.json|NAME", dest="tui_model",
                        help="(wizard) the model: a transformers config.json, a shipped shape name (llama-3.1-8b) or "
                             "a parameter count (8e9)")
    memory.add_argument("--gpu-memory", type=_number("--gpu-memory"), metavar="GiB", dest="tui_gpu_memory",
                        help="(wizard) the memory of one GPU in GiB")
    memory.add_argument("--seq", type=_number("--seq"), metavar="S", dest="tui_seq",
                        help="(wizard) the sequence length in tokens (default 2048)")
    _lang_option(p)
    p.add_subparsers(dest="command", metavar="COMMAND", title="commands", action=_Commands, prog=p.prog,
                     parser_class=_Parser)
    return p


def _language(text: str) -> str:
    from .core.i18n import resolve

    try:
        return resolve(text)
    except ValueError as exc:
        raise argparse.ArgumentTypeError(str(exc).replace(f"--lang {text!r}: not", f"{text!r} is not", 1)) from None


def _lang_option(p: argparse.ArgumentParser) -> None:
    p.add_argument("--lang", type=_language, default=None, metavar="en|tr|zh-TW",
                   help="the language of the explanations: en (English), tr (Türkçe), zh-TW (繁體中文); default: "
                        "the locale's (LC_ALL, LC_MESSAGES, LANG), else English. Config keys, values and names stay "
                        "as the libraries spell them")


def _check_options(p: argparse.ArgumentParser) -> None:
    p.description = "Lint an accelerate config YAML and the DeepSpeed JSON it names, as accelerate reads them " \
                    "when launched from the current folder, or a DeepSpeed JSON alone, for the training loop and " \
                    "library versions that will run it."
    p.add_argument("config", metavar="FILE", help="accelerate config (YAML), a DeepSpeed JSON alone, or a "
                                                   "LLaMA-Factory / axolotl training YAML")
    p.add_argument("--trainer", choices=("hf", "accelerate"), default=None,
                   help="who drives training: hf = the Hugging Face Trainer (transformers, TRL, LLaMA-Factory, "
                        "axolotl), accelerate = an own Accelerator loop (default: unknown, then findings that "
                        "depend on it say what happens in each case)")
    p.add_argument("--script", metavar="train.py",
                   help="read who drives training from this script (imports and calls; it is not run)")
    p.add_argument("--training-args", metavar="ARGS", dest="training_args",
                   help="the HF Trainer's TrainingArguments as a YAML or JSON mapping of their fields: each value "
                        "the Trainer matches against the DeepSpeed JSON is checked, and the \"auto\" values it "
                        "fills are shown (implies --trainer hf; fields not given take their defaults)")
    p.add_argument("--kind", choices=("llamafactory", "axolotl"), default=None,
                   help="FILE is a LLaMA-Factory or axolotl training YAML (default: recognised by its keys): its "
                        "arguments are matched against the DeepSpeed JSON it names, as the Trainer will")
    p.add_argument("--num-processes", type=_number("--num-processes"), metavar="N",
                   help="for a DeepSpeed JSON alone: the processes (GPUs) in total, for the batch-size arithmetic")
    p.add_argument("--gpus-per-node", type=_number("--gpus-per-node"), metavar="N",
                   help="GPUs on each machine (default: the GPUs detected here; GPU-count rules are skipped "
                        "when unknown)")
    p.add_argument("--model", metavar="CONFIG.json|NAME",
                   help="the model the config trains (its config.json, or a shipped shape name such as "
                        "llama-3.1-8b): tensor and sequence parallel sizes are checked against its heads")
    for lib in ("accelerate", "deepspeed", "transformers"):
        p.add_argument(f"--{lib}-version", metavar="V", action=_LibraryOption, library=lib,
                       help="judge for this %(library)s version (default: the installed one, else the one the "
                            "wizard was verified against)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--verify", action="store_true",
                   help="also replay the config through the real accelerate and deepspeed code")


def _explain_groups() -> str:
    from .core.catalog import GROUPS

    return "groups: " + ", ".join(g.id for g in GROUPS)


def _explain_options(p: _Parser) -> None:
    p.add_argument("group", nargs="?", metavar="GROUP|SETTING|KEY",
                   help="one group (default: all; the groups are listed below), one setting (offload.params), a "
                        "config key as accelerate or DeepSpeed writes it (zero3_init_flag) or a word (dynamo)")
    p.add_argument("--width", type=_number("--width"), default=None, help="text width (default: the terminal's)")
    p.more_help = _explain_groups  # the catalogue is read only when this help is shown


def _presets_options(p: argparse.ArgumentParser) -> None:
    p.epilog = "use one with: fsdpds-wizard --headless NAME --out DIR, or open the wizard on it: --preset NAME"


def _schema_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("--format", choices=("json", "markdown"), default="json")


def _number(flag: str, name: str | None = None) -> Callable[[str], int | float]:
    """argparse type of a number: in its bound (core/bounds.py; ``name`` defaults to the flag's, ``--gpu-memory`` ->
    ``gpu_memory``), else a usage error in the one wording, naming ``flag`` (``--params 1e30: too large; ...``)."""
    name = name or flag.lstrip("-").replace("-", "_")

    def parse(text: str) -> int | float:
        from .core.bounds import NumberError
        from .core.bounds import parse as parse_number

        try:
            return parse_number(name, text)
        except NumberError as exc:  # the cause: main says it in the language (wizard.core.localized.parsers)
            raise UsageError(exc.said_by(flag)) from exc

    parse.__name__ = name
    return parse


def _estimate_options(p: argparse.ArgumentParser) -> None:
    from .core.memory.fit import DEFAULT_HEADROOM

    p.add_argument("answers", metavar="ANSWERS_OR_PRESET|CONFIG",
                   help="an answers.yaml path or a preset name, an accelerate config (with the DeepSpeed JSON it "
                        "names) or a DeepSpeed JSON alone")
    p.add_argument("--model", metavar="CONFIG.json|NAME", help="a transformers config.json, or a shipped shape name")
    p.add_argument("--params", type=_number("--params"), metavar="N",
                   help="the parameter count (instead of --model): 8030261248, 8e9, 8B, 350M")
    p.add_argument("--largest-layer", type=_number("--largest-layer"), metavar="N", dest="largest_layer",
                   help="with --params: the most parameters one module holds (DeepSpeed's largest layer)")
    p.add_argument("--batch", type=_number("--batch"), metavar="B",
                   help="micro batch per GPU (default: the answers', or 1)")
    p.add_argument("--seq", type=_number("--seq"), metavar="S", help="sequence length in tokens (default 2048)")
    p.add_argument("--gpu-memory", type=_number("--gpu-memory"), metavar="GiB", dest="gpu_memory",
                   help="memory of one GPU: says whether it fits and the largest micro batch that does")
    p.add_argument("--headroom", type=_number("--headroom"), metavar="FRACTION", default=DEFAULT_HEADROOM,
                   help="with --gpu-memory: fraction of GPU memory to keep free (default %(default)g)")
    g = p.add_argument_group(title="with a config (what no config key says; answers say it themselves)")
    g.add_argument("--gradient-accumulation-steps", type=_number("--gradient-accumulation-steps"), metavar="N",
                   dest="gradient_accumulation_steps",
                   help="what the script accumulates (FSDP has no config key; default: unknown, counted as more than "
                        "one)")
    g.add_argument("--model-dtype", choices=("fp32", "bf16", "fp16"), dest="model_dtype",
                   help="the dtype the script loads the model in (default fp32)")
    g.add_argument("--activation-checkpointing", action="store_true", dest="activation_checkpointing",
                   help="DeepSpeed: the script enables gradient checkpointing (there is no config switch)")
    g.add_argument("--trainer", choices=("hf", "accelerate"),
                   help="who drives training: the HF Trainer (fills DeepSpeed's \"auto\" from TrainingArguments) or "
                        "an own Accelerator loop (default)")
    g.add_argument("--num-processes", type=_number("--num-processes"), metavar="N", dest="num_processes",
                   help="a DeepSpeed JSON alone: the ranks it runs on")
    g.add_argument("--num-machines", type=_number("--num-machines", "nodes"), metavar="M", dest="num_machines",
                   help="a DeepSpeed JSON alone: the machines (default 1)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _recommend_options(p: argparse.ArgumentParser) -> None:
    from .core.memory.fit import DEFAULT_HEADROOM

    p.add_argument("--model", metavar="CONFIG.json|NAME", help="a transformers config.json, or a shipped shape name")
    p.add_argument("--params", type=_number("--params"), metavar="N",
                   help="the parameter count (instead of --model): 8030261248, 8e9, 8B, 350M")
    p.add_argument("--largest-layer", type=_number("--largest-layer"), metavar="N", dest="largest_layer",
                   help="with --params: the most parameters one module holds (DeepSpeed's largest layer)")
    p.add_argument("--gpus-per-node", type=_number("--gpus-per-node"), metavar="N", dest="gpus_per_node", required=True,
                   help="GPUs (processes) on each node")
    p.add_argument("--gpu-memory", type=_number("--gpu-memory"), metavar="GiB", dest="gpu_memory", required=True,
                   help="memory of one GPU in GiB")
    p.add_argument("--nodes", type=_number("--nodes"), metavar="K", default=1, help="number of nodes (default 1)")
    p.add_argument("--host-memory", type=_number("--host-memory"), metavar="GiB", dest="host_memory",
                   help="CPU memory of one node: candidates whose host part does not fit are not fitting")
    p.add_argument("--batch", type=_number("--batch"), metavar="B",
                   help="micro batch per GPU (default: the base answers', or 1)")
    p.add_argument("--seq", type=_number("--seq"), metavar="S", help="sequence length in tokens (default 2048)")
    p.add_argument("--headroom", type=_number("--headroom"), metavar="FRACTION", default=DEFAULT_HEADROOM,
                   help="fraction of GPU memory to keep free (default %(default)g)")
    p.add_argument("--base", metavar="ANSWERS_OR_PRESET|CONFIG",
                   help="answers (or a preset), an accelerate config or a DeepSpeed JSON the candidates are built on; "
                        "default: the wizard's defaults")
    p.add_argument("--write", metavar="DIR|FILE", help="write the chosen candidate's answers.yaml (a folder gets "
                   "DIR/answers.yaml)")
    p.add_argument("--force", action="store_true",
                   help="with --write: replace a different existing file (the old one is kept as NAME.bak, or the "
                        "first free NAME.N.bak)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.epilog = ("exit codes: 0 a candidate fits (and was written with --write), 1 nothing fits (nothing written), "
                "2 bad input or --write refused; the ranking is explained in docs/memory.md")
def _convert_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("config", metavar="CONFIG", help="accelerate config (YAML, with the DeepSpeed JSON it names) or a "
                                                    "DeepSpeed JSON alone")
    p.add_argument("--to", choices=("deepspeed", "fsdp"), required=True, help="the backend to convert to")
    p.add_argument("--fsdp-version", type=int, choices=(1, 2), default=None, dest="fsdp_version",
                   help="with --to fsdp: FSDP1 or FSDP2 (default 2); from FSDP, the other version converts between "
                        "them")
    p.add_argument("--out", metavar="DIR", help="folder for the converted accelerate_config.yaml (+ ds_config.json) "
                                                "and answers.yaml")
    p.add_argument("--force", action="store_true",
                   help="replace existing files (old content kept as NAME.bak, or the first free NAME.N.bak)")
    p.add_argument("--ds-config-path", choices=("auto", "absolute"), default=None, dest="ds_config_path",
                   help="how the YAML names the DeepSpeed JSON (as for --headless)")
    p.add_argument("--verify", action="store_true",
                   help="before writing, replay the converted config through the real accelerate and deepspeed code "
                        "(imports torch: a few seconds)")
    p.add_argument("--format", choices=("text", "json"), default="text")


def _consolidate_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("run_dir", metavar="RUN_DIR", help="a run record folder (OUT/runs/<id>), a checkpoint folder "
                                                      "written by accelerator.save_state, or a folder of them")
    p.add_argument("--out", metavar="DIR", help="folder for model.safetensors (default RUN_DIR/consolidated)")
    p.add_argument("--force", action="store_true", help="replace an existing DIR/model.safetensors")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.epilog = ("runs accelerate's merge_fsdp_weights for FSDP sharded checkpoints, DeepSpeed's zero_to_fp32 for "
                "ZeRO partitions, and writes a full state dict as it is. A checkpoint is read as data only: every "
                "pickle in it goes through torch's weights-only loader (or, for a DCP .metadata, an unpickler that "
                "knows only the metadata's classes), so nothing in it runs; one that asks for anything else, or is "
                "damaged, is refused. Exit codes: 0 written, 2 bad input or a refused checkpoint; "
                "see docs/checkpoints.md")


def _help_options(p: argparse.ArgumentParser) -> None:
    p.add_argument("topic", nargs="?", metavar="COMMAND", help="one of: " + ", ".join(COMMANDS))


_COMMAND_PARSERS = {"check": _check_options, "explain": _explain_options, "presets": _presets_options,
                    "schema": _schema_options, "estimate": _estimate_options, "recommend": _recommend_options,
                    "convert": _convert_options, "consolidate": _consolidate_options,
                    "help": _help_options}


def _help(parser: argparse.ArgumentParser, topic: str | None) -> int:
    if topic is None:
        parser.print_help()
        return EXIT_OK
    if topic not in COMMANDS:
        raise UsageError(_unknown_command(f"invalid choice: '{topic}'"))
    commands = next(a for a in parser._actions if isinstance(a, _Commands))
    commands.choices[topic].print_help()
    return EXIT_OK
