"""``fsdpds-wizard --headless ANSWERS.yaml --out DIR [--force] [--verify] [--ds-config-path auto|absolute]``."""
from __future__ import annotations

import os
import shlex
import sys
import time
from pathlib import Path

from ..core.answers import load_answers_file
from ..core.answers.generate import generate, launch_command
from ..core.exits import EXIT_INVALID, EXIT_OK, UsageError
from ..core.files import WriteRefused, write_files
from ..core.findings import INFO
from ..core.i18n.lines import line
from .common import judged_context, print_findings, resolve_answers_path, summary_line


def run(args) -> int:
    if not args.out:
        raise UsageError("--headless needs --out DIR (the folder the configs are written to)")
    judged_versions(args)  # a version flag that is not a version: exit 2 before anything is read
    path = resolve_answers_path(args.headless)  # InputError: printed by the CLI as one line, exit 2
    answers, findings = load_answers_file(path)
    if answers is None:
        print(line("invalid_answers", path=path), file=sys.stderr)
        print_findings(findings)
        return EXIT_INVALID
    if getattr(args, "headless_training_file", None):  # read before anything is written: a bad file exits 2 here
        from ..core.effective.training_file import trainer_arguments_of_file
        from ..core.inputs import InputError

        given = args.headless_training_file
        try:
            what, fields = trainer_arguments_of_file(Path(given).expanduser())
        except InputError as exc:
            raise UsageError(f"--training-file {exc}") from None
        except ValueError as exc:
            raise UsageError(f"--training-file {given}: {exc}") from None
        args.training_arguments_read = (f"{given} ({what})", fields)
    loop = getattr(args, "headless_trainer", None)
    if loop:  # --trainer hf|accelerate: who drives training, over the answers' launch.training_loop
        answers = answers.replace({"launch.training_loop": "trainer" if loop == "hf" else "accelerate"})
    if getattr(args, "verify", False) or getattr(args, "launch", False):  # imported only for them (issue 26)
        from ..run.requirements import require_for_args
        from .launch_cmd import require_gpu_for_args

        require_for_args(args, answers.target)  # --verify / --launch without the run libraries: what to install
        require_gpu_for_args(args, answers)  # a plain --launch where no GPU is found: say so before anything is written
    out_dir = Path(args.out).expanduser()
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {args.out} exists and is not a folder")
    gen = generate(answers, out_dir, ds_path=getattr(args, "ds_config_path", None) or "auto",
                   versions=judged_versions(args))
    findings = findings + gen.findings
    print_findings(findings)
    if not gen.ok:
        print(line("nothing_written", path=path, summary=summary_line(findings)), file=sys.stderr)
        return EXIT_INVALID
    if args.verify:
        from ..core.verify.answers import verify_generated

        t0 = time.monotonic()

        def progress(text: str) -> None:  # the replay takes seconds: say what it is doing as each stage starts
            from ..core import localized  # text: a said(...) sentence of wizard/core/verify, in the language

            print(line("verify_progress", text=localized.said(text), seconds=f"{time.monotonic() - t0:.1f}"),
                  file=sys.stderr, flush=True)

        problems = verify_generated(gen, progress=progress)
        if problems:
            print_findings(problems)  # notes (INFO: what this machine could not replay) included, failing nothing
        if any(f.severity != INFO for f in problems):
            print(line("verify_failed"), file=sys.stderr)
            return EXIT_INVALID
        print(line("verified"), file=sys.stderr)
    files = {out_dir / name: text for name, text in gen.files.items()}
    try:
        result = write_files(files, force=args.force)
    except WriteRefused as exc:
        print(f"fsdpds-wizard: {line('write_refused', names=exc.names) if exc.default else exc}", file=sys.stderr)
        return EXIT_INVALID
    except OSError as exc:
        from ..core.localized.phrases import os_words

        print(f"fsdpds-wizard: {line('cannot_write', out=out_dir, error=os_words(exc))}", file=sys.stderr)
        return EXIT_INVALID
    for p in result.written:
        print(line("wrote", path=p))
    for p in result.unchanged:
        print(line("unchanged", path=p))
    for p in result.backups:
        print(line("kept_previous", path=p))
    if args.launch:
        from .launch_cmd import run_launch

        print(summary_line(findings), file=sys.stderr)
        return run_launch(gen, out_dir, args)
    script = answers["launch.script"]
    cmd = shlex.join(launch_command(out_dir, script, list(answers["launch.script_args"]), gen.launch_dir))
    if gen.launch_dir is not None:  # deepspeed_config_file is relative: accelerate resolves it from its folder
        print(line("launch_from", folder=gen.launch_dir, command=cmd))
        ref = gen.rendered.accelerate["deepspeed_config"]["deepspeed_config_file"]
        print(line("relative_ds_path", ref=ref))
    else:
        print(line("launch_with", command=cmd))
    nodes = multinode_note(gen, out_dir, cmd)
    if nodes:
        print(nodes, end="")
    trainer_note = training_arguments_note(gen, out_dir)
    if trainer_note:
        print(trainer_note)
    for mesh_line in mesh_lines(gen.rendered.accelerate):
        print(mesh_line)
    print(summary_line(findings), file=sys.stderr)
    return EXIT_OK


def mesh_lines(accelerate: dict) -> list[str]:
    """The picture of the device mesh an FSDP2 config with tensor or context parallelism builds ([] otherwise)."""
    if "parallelism_config" not in accelerate:  # nothing to draw: the mesh module stays off the start path
        return []
    from ..core import localized  # the picture in the language
    from ..core.effective.layout import config_sizes

    found = config_sizes(accelerate)
    return localized.mesh_picture(*found) if found else []


def training_arguments_note(gen, out_dir: Path) -> str:
    """With the Trainer as the loop: the TrainingArguments that carry the answers, as one line to paste, and where
    the same arguments were written ("" for an own Accelerator loop)."""
    from ..core.answers.render import TRAINING_ARGUMENTS_JSON, training_arguments_line

    arguments = gen.rendered.training_arguments
    if arguments is None:
        return ""
    return line("trainer_arguments", path=out_dir / TRAINING_ARGUMENTS_JSON,
                arguments=training_arguments_line(arguments))


def multinode_note(gen, out_dir: Path, cmd: str) -> str:
    """With several machines: the command each machine runs (and the hostfile written), as printed lines ("" on
    one machine). ``cmd`` is the single-machine command line printed above; its config path is reused."""
    from ..core.answers import multinode

    a = gen.answers
    if not multinode.is_multinode(a):
        return ""
    config_path = shlex.split(cmd)[3]
    script = a["launch.script"]
    text = multinode.commands_text(a, config_path, script=script, script_args=list(a["launch.script_args"]))
    runner = multinode.runner_starts_every_machine(a)
    head = line("multinode_runner") if runner else line("multinode_each", machines=a["launch.num_machines"])
    # the commands as written; each "# ..." line before one is a said(...) sentence of multinode, in the language
    shown = [f"# {_said(row[2:])}" if row.startswith("# ") else row for row in text.splitlines()]
    out = head + "\n" + "".join("  " + row + "\n" for row in shown)
    if multinode.HOSTFILE in gen.files:
        where = gen.rendered.accelerate.get("deepspeed_config", {}).get("deepspeed_hostfile")
        names = multinode.hosts(a)
        if names:
            out += line("wrote_hostfile", path=out_dir / multinode.HOSTFILE, hosts=", ".join(names), where=where) + "\n"
        else:
            out += line("wrote_hostfile_placeholders", path=out_dir / multinode.HOSTFILE, where=where) + "\n"
    secrets = multinode.env_file_note(a, gen.launch_dir, os.environ)
    if secrets:
        out += line("note", note=_said(secrets)) + "\n"
    return out


def _said(text: str) -> str:
    """A said(...) sentence of the core in the wizard's language (the English as it is, without importing more)."""
    from ..core.i18n import ENGLISH, language

    if language() == ENGLISH:
        return text
    from ..core import localized

    return localized.said(text)


def judged_versions(args) -> dict[str, str | None] | None:
    """The library versions the written config is judged for: the ``--LIB-version`` flags; for a launch on this
    machine (``--launch`` without ``--slurm``) the installed versions, which the run will use, for the rest; None
    (the versions the wizard was verified against) otherwise. A flag that is not a version: UsageError."""
    local_launch = bool(getattr(args, "launch", False)) and not getattr(args, "slurm", False)
    ctx = judged_context(args, installed=local_launch)
    return None if ctx is None else ctx.stated_versions()
