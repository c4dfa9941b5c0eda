"""Command line: the TUI by default, ``--headless``, and the commands ``check``, ``explain``, ``presets``,
``schema``, ``estimate``, ``recommend``, ``convert``, ``consolidate`` and ``help`` (argparse subcommands, so
``--help`` lists them).

Exit codes: 0 success; 2 invalid input or a config with errors (findings on stderr or in the JSON);
3 an internal error (a bug: please report it). They and :class:`UsageError` live in :mod:`wizard.core.exits`, so the
commands never import this module (it imports them).
"""
from __future__ import annotations

import gc
import os
import sys
from types import SimpleNamespace

from .cli_words import _HEADLESS_DOES, _HEADLESS_INSTEAD, _START_FLAGS, COMMANDS
from .core.exits import EXIT_INTERNAL, EXIT_INVALID, UsageError

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)

if TYPE_CHECKING:
    from typing import Any

_PARSER_NAMES = {"_NEEDS_VALUE", "_main_parser", "_Parser", "_help", "_usage", "_language", "_Commands",
                 "_CommandParsers", "_ArgparseError", "_LibraryOption", "_CellsHelpFormatter", "_VersionAction",
                 "_unknown_command", "_COMMAND_PARSERS"}


def __getattr__(name: str):
    """The parser's names (tests and tools read ``wizard.cli._main_parser``), from :mod:`wizard.cli_parser`, imported
    when first asked for."""
    if name in _PARSER_NAMES:
        from . import cli_parser

        return getattr(cli_parser, name)
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


_TOP_FLAGS = {"headless": "--headless", "out": "--out", "force": "--force", "verify": "--verify",
              "launch": "--launch", "rehearse": "--rehearse", "allow_no_gpu": "--allow-no-gpu", "slurm": "--slurm",
              "partition": "--partition", "time": "--time", "ds_config_path": "--ds-config-path",
              "answers": "--answers", "preset": "--preset", "config": "--config", "tui_model": "--model",
              "tui_gpu_memory": "--gpu-memory", "tui_seq": "--seq", "headless_trainer": "--trainer",
              "headless_training_file": "--training-file",
              **{f"headless_{lib}_version": f"--{lib}-version" for lib in ("accelerate", "deepspeed", "transformers")}}


def _check_mode(args) -> None:
    """Every flag must apply in the chosen mode: refuse what would otherwise be ignored."""
    if args.command is not None:
        given = [flag for dest, flag in _TOP_FLAGS.items() if getattr(args, dest, None) not in (None, False)]
        if given or args.script_args:
            what = ", ".join(given) if given else "script arguments after --"
            raise UsageError(f"{what} {'go' if len(given) != 1 else 'goes'} without a command (the wizard or "
                             f"--headless); the {args.command} command takes its own options: "
                             f"fsdpds-wizard help {args.command}")
        return
    starts = [f"--{k}" for k in ("answers", "preset", "config") if getattr(args, k, None)]
    if args.headless and starts:
        flag = starts[0]
        raise UsageError(f"--headless and {flag} do not go together: {_HEADLESS_DOES}; {_START_FLAGS[flag]}. "
                         f"Use one of them ({_HEADLESS_INSTEAD[flag]})")
    if (args.launch or args.rehearse or args.script_args) and not args.headless:
        raise UsageError("--launch, --rehearse and script arguments go with --headless ANSWERS.yaml --out DIR")
    if args.rehearse and not args.launch:
        raise UsageError("--rehearse needs --launch")
    if getattr(args, "headless_trainer", None) and not args.headless:
        raise UsageError("--trainer goes with --headless ANSWERS.yaml (in the wizard: Launch basics, Training loop; "
                         "check takes its own)")
    if getattr(args, "headless_training_file", None) and not (args.headless and args.rehearse and not args.slurm):
        raise UsageError("--training-file goes with --headless ANSWERS.yaml --launch --rehearse (a local rehearsal "
                         "through the Hugging Face Trainer); to judge a training file: fsdpds-wizard check FILE")
    if args.allow_no_gpu and not args.launch:
        raise UsageError("--allow-no-gpu goes with --launch (it starts a launch where no GPU is found)")
    if args.slurm and args.headless and not args.launch:
        raise UsageError("--slurm needs --launch (it submits the run as a SLURM batch job)")
    if (args.partition or args.time) and not args.slurm:
        raise UsageError("--partition and --time go with --slurm (headless: --launch --slurm)")
    if args.partition is not None or args.time is not None:
        from .core.answers.slurm import check_slurm_options  # written into #SBATCH lines: SLURM's shapes only

        check_slurm_options(args.partition, args.time)
    if args.headless and args.script_args and not args.launch:
        raise UsageError("script arguments after -- go with --launch (they are passed to the training script "
                         "when it starts); to keep them in the written answers, set launch.script_args")
    memory = [flag for dest, flag in (("tui_model", "--model"), ("tui_gpu_memory", "--gpu-memory"),
                                      ("tui_seq", "--seq")) if getattr(args, dest, None) is not None]
    if args.headless and memory:
        raise UsageError(f"{', '.join(memory)} {'go' if len(memory) != 1 else 'goes'} with the wizard (its memory "
                         "bar); headless, the estimate is a command of its own: fsdpds-wizard estimate ANSWERS --model "
                         "...")
    if not args.headless and (args.force or args.verify):
        raise UsageError("--force and --verify go with --headless ANSWERS.yaml (the wizard asks before replacing)")


_PLAIN_HEADLESS_DEFAULTS = {
    "headless": None, "out": None, "force": False, "verify": False, "launch": False, "rehearse": False,
    "allow_no_gpu": False, "slurm": False, "partition": None, "time": None, "ds_config_path": None,
    "headless_trainer": None, "headless_training_file": None, "headless_accelerate_version": None,
    "headless_deepspeed_version": None, "headless_transformers_version": None, "answers": None, "preset": None,
    "config": None, "tui_model": None, "tui_gpu_memory": None, "tui_seq": None, "command": None, "lang": None,
}
"""What the main parser makes of a command line that gives none of its options (tests/unit/test_start_path.py
holds it to the parser: an option added there is added here)."""


def _plain_headless(argv: list[str]) -> SimpleNamespace | None:
    """The namespace the main parser makes of the plainest command lines, without building the parser (issue 26:
    building it and its first translated words cost ~2.5 ms): none at all (the wizard's screen, with nothing given)
    and the scripted ``--headless X --out DIR [--force]`` (each flag spelled in full, once, with its value as the next
    word, not starting with "-"); None for any other command line, which the parser reads."""
    if not argv:
        return SimpleNamespace(**_PLAIN_HEADLESS_DEFAULTS)
    values: dict[str, object] = {}
    i = 0
    while i < len(argv):
        word = argv[i]
        if word == "--force" and "force" not in values:
            values["force"] = True
            i += 1
        elif word in ("--headless", "--out") and word[2:] not in values and i + 1 < len(argv) \
                and not argv[i + 1].startswith("-"):
            values[word[2:]] = argv[i + 1]
            i += 2
        else:
            return None
    if "headless" not in values or "out" not in values:
        return None
    return SimpleNamespace(**{**_PLAIN_HEADLESS_DEFAULTS, **values})


def main(argv: list[str] | None = None) -> int:
    """Run the command line ``argv`` (default: this process's own, as the installed entry point runs it)."""
    if argv is not None:
        return _main(list(argv), entry=False)
    # The process's own command (issue 26). What the start builds (modules, classes, the catalogue and rule tables)
    # lives until exit and holds no garbage, so the cyclic collector stays off until the command is imported
    # (_started), instead of scanning it again and again as it grows; and a short command's objects are not scanned
    # once more at exit.
    gc.disable()
    try:
        return _main(sys.argv[1:], entry=True)
    finally:
        if not _session:  # the process ends after this: the collection Python makes at exit has nothing to walk
            gc.freeze()
        gc.enable()


_session = False
"""True once the entry started the wizard's screen or a --launch: a session that opened files and processes,
whose leftovers the collection at exit still finalizes (closes, flushes) as usual."""


def _started(entry: bool, session: bool = False) -> None:
    """The command is imported: move what exists (long-lived, see main) out of the collector's sight and let it run
    again for what the command itself makes."""
    global _session
    if entry:
        gc.freeze()
        gc.enable()
        _session = session


def _main(argv: list[str], *, entry: bool) -> int:
    try:
        script_args: list[str] = []
        if "--" in argv and not (argv and argv[0] in COMMANDS):  # a command's own "--" is argparse's
            cut = argv.index("--")
            argv, script_args = argv[:cut], argv[cut + 1:]
        _language_of(argv)
        plain = _plain_headless(argv)
        if plain is None:
            from .cli_parser import _help, _main_parser

            parser = _main_parser()
            parser.argv = argv
            args: Any = parser.parse_args(argv)
        else:
            args = plain
        args.script_args = script_args
        _check_mode(args)
        if args.command == "help":
            return _help(parser, args.command_args.topic)
        if args.command is not None:
            import importlib

            module = importlib.import_module(f".commands.{args.command}", __package__)
            _started(entry)
            return module.run(args.command_args)
        if args.headless:
            from .commands import headless

            _started(entry, session=bool(args.launch))
            return headless.run(args)
        from .commands import tui_entry

        _started(entry, session=True)
        return tui_entry.run(args)
    except SystemExit as exc:  # argparse: usage errors exit 2 with a message already printed
        return int(exc.code) if isinstance(exc.code, int) else EXIT_INVALID
    except UsageError as exc:
        print(f"fsdpds-wizard: {_error_words(exc)}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("fsdpds-wizard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of our output went away (`check X | head`): not a bug, stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush does not fail again
        return 141  # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe
    except Exception as exc:  # a bug: no traceback for users, but say so plainly
        if _is_input_error(exc):  # a file that cannot be used, in the shared wording
            print(f"fsdpds-wizard: {_error_words(exc)}", file=sys.stderr)
            return EXIT_INVALID
        if os.environ.get("FSDPDS_DEBUG"):
            raise
        print(f"fsdpds-wizard: internal error: {type(exc).__name__}: {exc}\n"
              "This is a bug; run again with FSDPDS_DEBUG=1 for the traceback and report it.", file=sys.stderr)
        return EXIT_INTERNAL


def _language_of(argv: list[str]) -> None:
    """The language of this command line, set before argparse reads it (``--help`` prints as soon as argparse meets
    it, so a ``--lang`` after it must already hold): its ``--lang``, else the locale's (also when an earlier
    ``main()`` in this process chose another). A bad value is left for argparse to refuse (``--lang``'s type)."""
    for i, arg in enumerate(argv):
        value = argv[i + 1] if arg == "--lang" and i + 1 < len(argv) else arg.partition("=")[2] \
            if arg.startswith("--lang=") else None
        if value is not None:
            from .core import i18n

            lang = i18n.known(value)
            if lang is not None:  # any other value: argparse refuses it (--lang's type), naming the languages
                i18n.set_language(lang)
            return
    i18n_module = sys.modules.get(f"{__package__}.core.i18n")
    if i18n_module is not None:
        i18n_module.reset()


def _error_words(exc: Exception) -> str:
    """A usage error or an unusable input as main prints it, in the language (:func:`wizard.core.localized.errors.
    error_words`, shared with the wizard's own start)."""
    from .core.localized.errors import error_words

    return error_words(exc)


def _is_input_error(exc: BaseException | None) -> bool:
    """Whether ``exc`` is core/inputs.py's InputError (:func:`wizard.core.localized.errors.is_input_error`)."""
    from .core.localized.errors import is_input_error

    return is_input_error(exc)


def console() -> None:
    sys.exit(main())


if __name__ == "__main__":
    console()
