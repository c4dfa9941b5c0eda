"""The TUI's launch and rehearse flows: what F5 and ctrl+l do on the settings and review screens.

Check the answers, offer to write the files a launch needs, plan the run and push the run screen. A module of its
own beside the screens, so that the settings, review and run screens do not import each other for it; the screens
and the run layer are imported when a flow runs (the wizard's start-up pays for neither).
"""
from __future__ import annotations

from pathlib import Path
from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from .run import RunScreen


def plan_and_open(app, answers, out: str, *, rehearse: bool, script_args: list[str] | None = None) -> RunScreen | None:
    """Plan the launch (or CPU rehearsal) of ``answers`` into ``out`` and push its run screen."""
    from ...core import localized
    from ...run.plan import PlanError, plan_launch
    from ..shared.present import target_label
    from .run import RunScreen

    if not run_libraries_here(app, answers, rehearse=rehearse):
        return None

    def words(key: str, **values: object) -> str:
        return localized.screen("run", key, None, **values)

    slurm = getattr(app, "slurm", None)
    try:
        if slurm is not None:
            from ...run.slurm import plan_slurm_launch

            plan = plan_slurm_launch(answers, Path(out).expanduser(), rehearse=rehearse, script_args=script_args,
                                     partition=slurm.get("partition"), time_limit=slurm.get("time"))
        else:
            plan = plan_launch(answers, Path(out).expanduser(), rehearse=rehearse, script_args=script_args)
    except PlanError as exc:
        detail = "; ".join(localized.finding_message(f) for f in exc.findings[:2])
        app.notify(localized.said(str(exc)) + (f": {detail}" if detail else ""), severity="error", timeout=8)
        return None
    except OSError as exc:
        from ...core.localized.phrases import os_words

        app.notify(words("flow.cannot_prepare", out=out, error=os_words(exc)), severity="error", timeout=8)
        return None
    notes = [localized.said(line) for line in plan.swept]  # what an earlier, killed wizard left running here
    slurm_words = "_slurm" if slurm is not None else ""
    if plan.rehearsal:
        from ...run.rehearse import short_in_language

        heading = words("flow.rehearsal_heading" + slurm_words, target=target_label(answers))
        notes.append(words("flow.rehearsal_compat" if plan.spec.summary_extra.get("compat_layer_used")
                           else "flow.rehearsal", processes=plan.world_size))
        notes += [words("flow.not_rehearsed", short=short_in_language(a.short()), why=localized.said(a.why))
                  for a in plan.adjustments]
        notes.append(words("cli.script_arguments", arguments=" ".join(plan.spec.summary_extra.get("script_args") or [])
                           or words("cli.no_arguments")))
        from ...run.rehearse import ops_notes

        if answers.target == "deepspeed":
            notes += [localized.said(note) for note in ops_notes(plan.spec.env)]
    else:
        heading = words("flow.launch_heading" + slurm_words, target=target_label(answers))
    import shlex

    if slurm is not None:
        from ...run.slurm import SCRIPT

        launch_argv = plan.spec.summary_extra["slurm"]["launch_argv"]
        notes.append(words("flow.slurm_job", path=plan.run_dir.path / SCRIPT))
        notes.append(words("flow.each_node", command=plan.run_dir.redactor.text(shlex.join(launch_argv))))
    notes.append(words("flow.launch", command=plan.run_dir.redactor.text(shlex.join(plan.spec.argv))))
    from ...core.answers.multinode import env_file_note

    secrets = env_file_note(plan.generated.answers, plan.spec.cwd, plan.spec.env)
    if secrets:
        notes.append(words("flow.note", note=localized.said(secrets)))
    notes.append(words("records", path=plan.run_dir.path))
    screen = RunScreen(plan.spec, heading=heading, notes=notes)
    app.push_screen(screen)
    return screen


def run_libraries_here(app, answers, *, rehearse: bool) -> bool:
    """False (and says what to install) when this Python lacks the libraries the run needs."""
    from ...core import localized
    from ...run.requirements import problem

    message = problem(_words("flow.needs_rehearsal" if rehearse else "flow.needs_launch"), answers.target)
    if message is not None:  # the action in the language, then the sentence around it (the errors' template)
        app.notify("✖ " + localized.said(message), severity="error", timeout=10, markup=False)  # "[run]" is not markup
    return message is None


def _errors(findings) -> list:
    return [f for f in findings if f.severity == "error"]


def _words(key: str, **values: object) -> str:
    """The flows' words (the run screen's ``flow.*``) in the language."""
    from ...core import localized

    return localized.screen("run", key, None, **values)


def rehearse_answers(app, answers, out: str, findings) -> RunScreen | None:
    """The "Rehearse on CPU" action: allowed whenever the answers have no errors."""
    errors = _errors(findings)
    if errors:
        app.notify("✖ " + _words("flow.errors_rehearsal", count=len(errors)), severity="error", timeout=5)
        return None
    return plan_and_open(app, answers, out, rehearse=True)


def launch_answers(app, answers, out: str, generated, on_written=None) -> None:
    """The "Launch" action: launches the files written in ``out``; when they are missing or differ from the
    answers, asks first and writes them (atomically, old versions kept as .bak). Where no GPU is found (and the
    run does not go through SLURM), it says so first and offers the rehearsal (F5) instead."""
    errors = _errors(generated.findings)
    if errors:
        app.notify("✖ " + _words("flow.errors_launch", count=len(errors)), severity="error", timeout=5)
        return
    if not run_libraries_here(app, answers, rehearse=False):  # before offering to write the files
        return
    from ...run.plan import no_gpu_problem
    from .confirm import ConfirmScreen

    problem = None if getattr(app, "slurm", None) is not None else no_gpu_problem(answers)  # SLURM: the nodes' GPUs
    if problem is None:
        _write_and_launch(app, answers, out, generated, on_written)
        return

    def anyway(yes: bool | None) -> None:
        if yes:
            _write_and_launch(app, answers, out, generated, on_written)
        else:
            app.notify(_words("flow.nothing_launched_f5"), timeout=5)

    from ...core import localized

    problem = localized.said(problem)
    message = _words("flow.no_gpu_message", problem=problem[0].upper() + problem[1:])
    app.push_screen(ConfirmScreen(_words("flow.no_gpu_title"), message, yes=_words("flow.launch_anyway"),
                                  no=_words("flow.cancel")), anyway)


def _write_and_launch(app, answers, out: str, generated, on_written=None) -> None:
    """Launch the files in ``out``; when they are missing or differ from the answers, ask first and write them."""
    import os

    from ...core import localized
    from ...core.answers.multinode import env_file_note
    from ...core.files import WriteRefused, file_state, write_files
    from .confirm import ConfirmScreen

    out_dir = Path(out).expanduser()
    files = {out_dir / name: text for name, text in generated.files.items()}
    states = {p: file_state(p, t) for p, t in files.items()}
    stale = [p for p, s in states.items() if s != "same"]
    secrets = env_file_note(answers, Path.cwd(), os.environ)  # said before the launch: it cannot be taken back
    secrets = localized.said(secrets) if secrets else secrets
    if not stale and secrets:
        def go(yes: bool | None) -> None:
            if yes:
                plan_and_open(app, answers, out, rehearse=False)
            else:
                app.notify(_words("flow.nothing_launched"), timeout=3)

        app.push_screen(ConfirmScreen(_words("flow.launch_title"),
                                      _words("flow.launch_question", note=secrets[0].upper() + secrets[1:]),
                                      yes=_words("flow.launch_yes"), no=_words("flow.cancel")), go)
        return
    if not stale:
        plan_and_open(app, answers, out, rehearse=False)
        return
    if out_dir.exists() and not out_dir.is_dir():
        app.notify("✖ " + _words("flow.not_a_folder", out=out), severity="error", timeout=5)
        return
    names = "\n".join(_words("flow.file_state", file=p.name,
                              state=localized.screen("review", f"state_{states[p]}", None)) for p in stale)
    replaced = [p for p in stale if states[p] != "new"]
    message = (_words("flow.write_files", out=out, names=names)
               + (_words("flow.write_note", note=secrets[0].upper() + secrets[1:]) if secrets else "")
               + _words("flow.write_question_bak" if replaced else "flow.write_question"))

    def answered(yes: bool | None) -> None:
        if not yes:
            app.notify(_words("flow.nothing_written"), timeout=3)
            return
        try:
            write_files(files, force=True)
        except (WriteRefused, OSError) as exc:
            from ...core.localized.phrases import os_words

            app.notify("✖ " + _words("flow.cannot_write", out=out, error=os_words(exc)), severity="error", timeout=6)
            return
        if on_written is not None:
            on_written()
        plan_and_open(app, answers, out, rehearse=False)

    app.push_screen(ConfirmScreen(_words("flow.write_title"), message, yes=_words("flow.write_yes"),
                                  no=_words("flow.cancel")), answered)
