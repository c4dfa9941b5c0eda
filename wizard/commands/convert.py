"""``fsdpds-wizard convert CONFIG --to deepspeed|fsdp [--fsdp-version 1|2] --out DIR [--force] [--verify]
[--ds-config-path auto|absolute] [--format text|json]``: an existing accelerate config (with the DeepSpeed JSON it
names) or a DeepSpeed JSON alone, converted to the other backend (or the other FSDP version), with a finding for
everything whose meaning changes or that cannot carry over (docs/convert.md).

Writes accelerate_config.yaml (+ ds_config.json for DeepSpeed) and answers.yaml into DIR the way ``--headless`` does:
an existing file with other content is not replaced without ``--force`` (the old one is kept as NAME.bak, or the first
free NAME.N.bak), and a converted config with an error writes nothing. ``--verify`` first replays the converted config
through the installed accelerate and deepspeed (as ``--headless --verify`` does) and writes nothing when a value is
read differently.
Exit 0 written (warnings allowed), 2 bad input, an error in the converted config, a failed verification or a refused
write.
"""
from __future__ import annotations

import json
import shlex
import sys
from pathlib import Path

from ..core.answers.generate import launch_command
from ..core.catalog import DEEPSPEED, FSDP1, FSDP2, TARGET_LABELS
from ..core.exits import EXIT_INVALID, EXIT_OK, UsageError
from ..core.files import WriteRefused, write_files
from ..core.findings import INFO, Finding
from ..core.i18n.lines import LINES, line
from .common import print_findings, summary_line
from .sources import SourceHasErrors, source_errors


def _load(path: str):
    """(imported answers, the loaded files, the import notes). ``InputError`` for a file that cannot be used at all
    (printed by the CLI as one line, exit 2); :class:`UsageError` for a config that cannot be converted."""
    from ..core.answers.imported import bare_json_notes
    from ..core.answers.importer import import_mapping
    from ..core.findings import ERROR
    from ..core.lint import load_config_files

    loaded = load_config_files(Path(path).expanduser())
    if not loaded.ds_path_known:
        why = next((f.message for f in loaded.findings if f.severity == ERROR), "it could not be read")
        raise UsageError(f"{path}: the DeepSpeed JSON it names cannot be read ({why}); converting without it would "
                         "lose its settings: fix deepspeed_config_file, or convert the JSON itself")
    answers, findings = import_mapping(loaded.yaml, loaded.ds, bare_ds=loaded.bare_ds)
    if answers is None:
        first = findings[0] if findings else None
        why = f"{first.message}; {first.fix}" if first is not None else "it cannot be imported"
        raise UsageError(f"{path}: cannot convert: {why}")
    notes = list(loaded.findings) + findings
    if loaded.bare_ds:
        notes = bare_json_notes(answers) + notes
    return answers, loaded, notes


def _target(args, source: str) -> str:
    if args.to == "deepspeed":
        if args.fsdp_version is not None:
            raise UsageError("--fsdp-version goes with --to fsdp (DeepSpeed has no versions; the ZeRO stage follows "
                             "the sharding strategy)")
        if source == DEEPSPEED:
            raise UsageError(f"{args.config} is a DeepSpeed config already; to convert it to FSDP use --to fsdp "
                             "[--fsdp-version 1|2]")
        return DEEPSPEED
    version = args.fsdp_version if args.fsdp_version is not None else 2
    target = FSDP1 if version == 1 else FSDP2
    if target == source:
        other = 1 if version == 2 else 2
        raise UsageError(f"{args.config} is an {TARGET_LABELS[source]} config already; convert it with --to "
                         f"deepspeed, or with --to fsdp --fsdp-version {other} to FSDP{other}")
    return target


def run(args) -> int:
    from ..core.convert import convert_answers

    if not args.out:
        raise UsageError("convert needs --out DIR (the folder the converted configs are written to)")
    out_dir = Path(args.out).expanduser()
    if out_dir.exists() and not out_dir.is_dir():
        raise UsageError(f"--out {args.out} exists and is not a folder")
    source, loaded, notes = _load(args.config)
    to = _target(args, source.target)
    refused = source_errors(loaded)
    if refused:
        return _refuse(args, source.target, to, SourceHasErrors(args.config, refused, "convert"))
    if args.verify:
        from ..run.requirements import require_for_args

        require_for_args(args, to)  # the run libraries missing: what to install (exit 2)
    conv = convert_answers(source, to, out_dir, source_ds=loaded.ds, notes=notes,
                           ds_path=args.ds_config_path or "auto", source_files=(loaded.yaml, loaded.ds))
    written: list[str] = []
    unchanged: list[str] = []
    backups: list[str] = []
    problem: tuple[str, dict[str, object]] | str = ""  # a line's key and values (English in the JSON), or a text
    verified: bool | None = None
    if conv.ok and args.verify:
        import contextlib

        from ..core.verify.answers import verify_generated

        with contextlib.redirect_stdout(sys.stderr):  # the libraries print when imported: keep stdout for the report
            problems = verify_generated(conv.generated)
        verified = not any(f.severity != INFO for f in problems)  # notes (INFO) fail nothing
        conv.findings = problems + conv.findings
        if not verified:
            problem = ("convert_verify_failed", {})
    if conv.ok and not problem:
        files = {out_dir / name: text for name, text in conv.generated.files.items()}
        try:
            result = write_files(files, force=args.force)
            written, unchanged, backups = ([str(p) for p in ps] for ps in (result.written, result.unchanged,
                                                                           result.backups))
        except WriteRefused as exc:
            problem = ("write_refused", {"names": exc.names}) if exc.default else str(exc)
        except OSError as exc:
            problem = ("cannot_write", {"out": out_dir, "error": exc})
    else:
        problem = ("convert_has_errors", {})
    code = EXIT_OK if conv.ok and not problem else EXIT_INVALID
    if args.format == "json":
        report = _json(args, conv, source.target, to, written, unchanged, backups, _english(problem))
        report["verified"] = verified
        print(json.dumps(report, indent=2))
        return code
    if verified:
        print(line("convert_verified"), file=sys.stderr, flush=True)
    _text(args, conv, source.target, to, out_dir, written, unchanged, backups, problem)
    return code


def _refuse(args, before: str, to: str, refused: SourceHasErrors) -> int:
    if args.format == "json":
        print(json.dumps({"source": str(args.config), "from": before, "to": to, "written": [], "unchanged": [],
                          "backups": [], "error": str(refused), "findings": [f.to_dict() for f in refused.errors],
                          "report": None, "verified": None}, indent=2))
        return EXIT_INVALID
    print(line("not_converted", path=args.config, before=TARGET_LABELS[before], to=TARGET_LABELS[to]))
    print_findings(refused.errors, sys.stdout)
    print(f"fsdpds-wizard: {refused.in_language()}", file=sys.stderr)
    return EXIT_INVALID


def _json(args, conv, before: str, to: str, written, unchanged, backups, problem: str) -> dict:
    return {
        "source": str(args.config),
        "from": before,
        "to": to,
        "written": written,
        "unchanged": unchanged,
        "backups": backups,
        "error": problem or None,
        "findings": [f.to_dict() for f in conv.findings],
        "carried": [{"setting": c.setting_id, "value": c.value, "before": c.before, "after": c.after}
                    for c in conv.carried],
        "report": conv.report.to_dict(),
        "round_trip_stable": conv.round_trip_stable,
        "round_trip_differences": [d.to_dict() for d in conv.differences],
    }


def _english(problem: tuple[str, dict[str, object]] | str) -> str:
    """Why nothing was written, in English ("" when it was)."""
    return LINES[problem[0]].format(**problem[1]) if isinstance(problem, tuple) else problem


def _said(value: str) -> str:
    """A carried-over row's value, "(not written)" in the language."""
    return line("not_written") if value == LINES["not_written"] else value


def _text(args, conv, before: str, to: str, out_dir: Path, written, unchanged, backups,
          problem: tuple[str, dict[str, object]] | str) -> None:
    findings: list[Finding] = conv.findings
    print(f"{args.config}: {TARGET_LABELS[before]} -> {TARGET_LABELS[to]}")
    if conv.carried:
        print(line("carried_over"))
        for c in conv.carried:
            print(f"  {c.setting_id} = {c.value}: {_said(c.before)} -> {_said(c.after)}")
    print_findings(findings, sys.stdout)
    if conv.round_trip_stable:
        print(line("round_trip_same", target=TARGET_LABELS[before]))
    else:
        diff = ", ".join(f"{d.setting_id} {d.before!r} -> {d.after!r}" for d in conv.differences)
        print(line("round_trip_changes", target=TARGET_LABELS[before], diff=diff))
    for p in written:
        print(line("wrote", path=p))
    for p in unchanged:
        print(line("unchanged", path=p))
    for p in backups:
        print(line("kept_previous", path=p))
    if not problem and (written or unchanged):
        gen = conv.generated
        cmd = shlex.join(launch_command(out_dir, conv.answers["launch.script"],
                                        list(conv.answers["launch.script_args"]), gen.launch_dir))
        print(line("launch_from", folder=gen.launch_dir, command=cmd) if gen.launch_dir is not None
              else line("launch_with", command=cmd))
    # the summary closes the report on stdout, a line of its own (as check's verdict); the report is flushed before
    # the refusal goes to stderr, so a terminal or a file that gets both shows them in this order
    print(summary_line(findings), flush=True)
    if problem:
        from ..core.localized.phrases import os_words  # an OSError's words in the language

        said = line(problem[0], **{k: os_words(v) for k, v in problem[1].items()}) if isinstance(problem, tuple) \
            else problem
        print(f"fsdpds-wizard: {said}",
              file=sys.stderr)
