"""The findings ``check`` gives for a loaded config, and its notes about what the config was judged for.

Here, beside the rules, and not in ``answers/imported.py`` (which the wizard's ``--config`` start uses and which
re-exports both): ``check`` needs neither the answers nor the catalogue, and importing the answers package costs its
start several milliseconds (issue 26).
"""
from __future__ import annotations

from ..context import Context
from ..findings import Finding, dedupe, sort_findings


def check_findings(loaded, gpus_per_node: int | None = None, *, context: Context | None = None,
                   num_processes: int | None = None, this_machine: bool = True, model=None) -> list[Finding]:
    """The findings ``check`` gives for a loaded config (``gpus_per_node`` None: this machine's count, unless
    ``this_machine`` is False: then the GPU count is unknown, as for a config judged away from where it runs) in
    ``context`` (the training loop and library versions; None: unknown loop, installed versions). A bare DeepSpeed
    JSON (``loaded.bare_ds``) is linted alone, its batch arithmetic over ``num_processes`` when given. ``model``: the
    model's shape when the user named it (rules that need its heads use it)."""
    from ..gpus import detect_gpus_per_node
    from ..lint import lint, lint_ds_json

    findings = list(loaded.findings)
    if loaded.bare_ds:
        findings += lint_ds_json(loaded.ds, num_processes=num_processes, context=context)
        return sort_findings(dedupe(findings))
    gpus = gpus_per_node if gpus_per_node is not None or not this_machine else detect_gpus_per_node()
    findings += lint(loaded.yaml, loaded.ds, gpus_per_node=gpus, ds_path_known=loaded.ds_path is not None,
                     context=context, hostfile=getattr(loaded, "hostfile", None), model=model)
    return sort_findings(dedupe(findings))


def context_findings(ctx: Context, *, deepspeed: bool) -> list[Finding]:
    """The notes ``check`` adds about what it judged for: versions that differ from those the knowledge was
    verified against, and (for DeepSpeed) an unknown training loop."""
    from ..context import LIBRARIES, SOURCE_ASSUMED, parse_version
    from ..findings import INFO
    from ..versions import VERIFIED_AGAINST
    from ..wizard_rules import CONTEXT_LOOP_UNKNOWN, CONTEXT_VERSIONS

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
        out.append(Finding(INFO, CONTEXT_LOOP_UNKNOWN, ("--trainer",), "Who drives training is not known" + why
                           + ": findings that depend on it (\"auto\" values, the Trainer's checks) are warnings "
                           "that say what happens under the Hugging Face Trainer and in an own Accelerator loop.",
                           "Pass --trainer hf or --trainer accelerate, or --script train.py."))
    return out


__all__ = ["check_findings", "context_findings"]
