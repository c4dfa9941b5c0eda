"""Command line: the TUI by default, ``--headless``, and the ``check`` / ``explain`` / ``presets`` commands.

Exit codes: 0 success; 2 invalid input or a config with errors (findings on stderr or in the JSON);
3 an internal error (a bug: please report it).
"""
from __future__ import annotations

import argparse
import os
import sys

from .core.loading import InputError

EXIT_OK = 0
EXIT_INVALID = 2
EXIT_INTERNAL = 3

SUBCOMMANDS = ("check", "explain", "presets", "schema")


class UsageError(Exception):
    """Bad command-line input: printed as one line, exit 2."""


# What each start flag does, for the messages that refuse a combination.
_START_FLAGS = {
    "--answers": "--answers FILE opens the wizard (with a screen) on an answers file",
    "--preset": "--preset NAME opens the wizard (with a screen) on a preset",
    "--config": "--config FILE opens the wizard (with a screen) on an existing accelerate config, imported "
                "and linted",
}
_HEADLESS_DOES = "--headless ANSWERS_OR_PRESET writes the configs from an answers file or a preset without a screen"
_HEADLESS_INSTEAD = {
    "--answers": "without a screen, give the file to --headless: fsdpds-wizard --headless FILE --out DIR",
    "--preset": "without a screen, give the name to --headless: fsdpds-wizard --headless NAME --out DIR",
    "--config": "without a screen, lint it with: fsdpds-wizard check FILE",
}
_NEEDS_VALUE = {
    "--headless": "--headless needs the answers file or preset name right after it: "
                  "fsdpds-wizard --headless ANSWERS.yaml|PRESET_NAME --out DIR (`fsdpds-wizard presets` lists them)",
    "--out": "--out needs the folder the configs are written to: --out DIR",
    "--answers": "--answers needs an answers file: fsdpds-wizard --answers answers.yaml",
    "--preset": "--preset needs a preset name: fsdpds-wizard --preset NAME (`fsdpds-wizard presets` lists them)",
    "--config": "--config needs an accelerate config file: fsdpds-wizard --config accelerate_config.yaml",
}


class _Parser(argparse.ArgumentParser):
    """argparse, with a message that explains the main flags that lack their value."""

    argv: list[str] = []

    def error(self, message: str):  # argparse's hook; raises instead of exiting
        for flag, text in _NEEDS_VALUE.items():
            if message.startswith(f"argument {flag}: expected one argument"):
                if flag == "--headless":
                    start = next((f for f in _START_FLAGS if f in self.argv), None)
                    if start:
                        text += (f". It does not go together with {start}: {_START_FLAGS[start]}; "
                                 f"{_HEADLESS_INSTEAD[start]}")
                raise UsageError(text)
        super().error(message)


def _check_mode(args) -> None:
    """Every flag must apply in the chosen mode: refuse what would otherwise be ignored."""
    starts = [f"--{k}" for k in ("answers", "preset", "config") if getattr(args, k, None)]
    if args.headless and starts:
        flag = starts[0]
        raise UsageError(f"--headless and {flag} do not go together: {_HEADLESS_DOES}; {_START_FLAGS[flag]}. "
                         f"Use one of them ({_HEADLESS_INSTEAD[flag]})")
    if (args.launch or args.rehearse or args.script_args) and not args.headless:
        raise UsageError("--launch, --rehearse and script arguments go with --headless ANSWERS.yaml --out DIR")
    if args.rehearse and not args.launch:
        raise UsageError("--rehearse needs --launch")
    if args.headless and args.script_args and not args.launch:
        raise UsageError("script arguments after -- go with --launch (they are passed to the training script "
                         "when it starts); to keep them in the written answers, set launch.script_args")
    if not args.headless and (args.force or args.verify):
        raise UsageError("--force and --verify go with --headless ANSWERS.yaml (the wizard asks before replacing)")


def _main_parser() -> argparse.ArgumentParser:
    p = _Parser(
        prog="fsdpds-wizard",
        description="Choose, validate and write accelerate configs for PyTorch FSDP and DeepSpeed ZeRO.",
        epilog="Commands: 'fsdpds-wizard check CONFIG.yaml' lints an existing config; 'fsdpds-wizard explain "
               "[GROUP]' compares FSDP and DeepSpeed setting by setting; 'fsdpds-wizard presets' lists the "
               "templates; 'fsdpds-wizard schema' prints the answers.yaml schema. Without --headless the interactive wizard opens.",
    )
    p.add_argument("--headless", metavar="ANSWERS.yaml",
                   help="generate the configs from an answers file (or a preset name) without a screen")
    p.add_argument("--out", metavar="DIR", help="folder for accelerate_config.yaml, ds_config.json and answers.yaml")
    p.add_argument("--force", action="store_true", help="replace existing files (old content kept as NAME.bak)")
    p.add_argument("--verify", action="store_true",
                   help="also load the result with the real accelerate and deepspeed code and compare every value "
                        "(imports torch: a few seconds)")
    p.add_argument("--launch", action="store_true",
                   help="after writing, start the run with accelerate launch and monitor it "
                        "(script arguments after --)")
    p.add_argument("--rehearse", action="store_true",
                   help="with --launch: rehearse the config on this machine's CPU with 2 processes and the bundled "
                        "script before spending GPU hours")
    start = p.add_mutually_exclusive_group()
    start.add_argument("--answers", metavar="FILE", help="(wizard) start from this answers file")
    start.add_argument("--preset", metavar="NAME", help="(wizard) start from a preset under templates/")
    start.add_argument("--config", metavar="ACCELERATE.yaml",
                       help="(wizard) start from an existing accelerate config (and its DeepSpeed JSON): "
                            "import and lint it")
    return p


def _check_parser() -> argparse.ArgumentParser:
    p = argparse.ArgumentParser(prog="fsdpds-wizard check",
                                description="Lint an accelerate config YAML and the DeepSpeed JSON it names.")
    p.add_argument("config", metavar="CONFIG.yaml")
    p.add_argument("--gpus-per-node", type=int, metavar="N",
                   help="GPUs on each machine (default: the GPUs detected here; GPU-count rules are skipped "
                        "when unknown)")
    p.add_argument("--format", choices=("text", "json"), default="text")
    p.add_argument("--verify", action="store_true",
                   help="also replay the config through the real accelerate and deepspeed code")
    return p


def _explain_parser() -> argparse.ArgumentParser:
    from .core.catalog import GROUPS

    p = argparse.ArgumentParser(prog="fsdpds-wizard explain",
                                description="FSDP and DeepSpeed side by side, group by group.")
    p.add_argument("group", nargs="?", metavar="GROUP",
                   help="one of: " + ", ".join(g.id for g in GROUPS) + " (default: all)")
    p.add_argument("--width", type=int, default=None, help="text width (default: the terminal's)")
    return p


def main(argv: list[str] | None = None) -> int:
    argv = list(sys.argv[1:] if argv is None else argv)
    try:
        if argv and argv[0] in SUBCOMMANDS:
            cmd, rest = argv[0], argv[1:]
            if cmd == "check":
                from .commands import check

                return check.run(_check_parser().parse_args(rest))
            if cmd == "explain":
                from .commands import explain

                return explain.run(_explain_parser().parse_args(rest))
            if cmd == "schema":
                from .commands import schema

                return schema.run(rest)
            from .commands import presets

            return presets.run(rest)
        script_args: list[str] = []
        if "--" in argv:
            cut = argv.index("--")
            argv, script_args = argv[:cut], argv[cut + 1:]
        parser = _main_parser()
        parser.argv = argv
        args = parser.parse_args(argv)
        args.script_args = script_args
        _check_mode(args)
        if args.headless:
            from .commands import headless

            return headless.run(args)
        from .commands import tui_entry

        return tui_entry.run(args)
    except SystemExit as exc:  # argparse: usage errors exit 2 with a message already printed
        return int(exc.code) if isinstance(exc.code, int) else EXIT_INVALID
    except (UsageError, InputError) as exc:  # InputError: a file that cannot be used, in the shared wording
        print(f"fsdpds-wizard: {exc}", file=sys.stderr)
        return EXIT_INVALID
    except KeyboardInterrupt:
        print("fsdpds-wizard: interrupted", file=sys.stderr)
        return 130
    except BrokenPipeError:  # the reader of our output went away (`check X | head`): not a bug, stop quietly
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())  # so the interpreter's final flush does not fail again
        return 141  # 128 + SIGPIPE, as a shell reports a command killed by a closed pipe
    except Exception as exc:  # a bug: no traceback for users, but say so plainly
        if os.environ.get("FSDPDS_DEBUG"):
            raise
        print(f"fsdpds-wizard: internal error: {type(exc).__name__}: {exc}\n"
              "This is a bug; run again with FSDPDS_DEBUG=1 for the traceback and report it.", file=sys.stderr)
        return EXIT_INTERNAL


def console() -> None:
    sys.exit(main())


if __name__ == "__main__":
    console()
