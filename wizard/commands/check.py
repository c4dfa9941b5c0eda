"""``fsdpds-wizard check CONFIG.yaml [--gpus-per-node N] [--format text|json] [--verify]``."""
from __future__ import annotations

import json

from ..core.findings import Finding, dedupe, has_errors, sort_findings
from ..core.loading import InputError
from ..core.wizard_rules import CONFIG_UNREADABLE
from ..exits import EXIT_INVALID, EXIT_OK, UsageError
from .common import summary_line


def run(args) -> int:
    from ..core.answers.imported import check_findings
    from ..core.lint import load_config_files

    if args.gpus_per_node is not None and args.gpus_per_node < 1:
        raise UsageError("--gpus-per-node must be at least 1")
    try:
        loaded = load_config_files(args.config)
    except InputError as exc:  # the file cannot be used at all: the shared wording, as one finding
        return _report([exc.finding(CONFIG_UNREADABLE, "config")], args)
    findings = check_findings(loaded, args.gpus_per_node)  # the same findings the TUI shows for an import
    if args.verify:
        from ..core.verify import effective_config
        from ..run.requirements import config_target, require

        require("check --verify", config_target(loaded.yaml), verify=True)

        findings += effective_config(loaded.yaml_path).findings
    return _report(sort_findings(dedupe(findings)), args)


def _report(findings: list[Finding], args) -> int:
    code = EXIT_INVALID if has_errors(findings) else EXIT_OK
    if args.format == "json":
        print(json.dumps({"findings": [f.to_dict() for f in findings]}, indent=2))
        return code
    for f in findings:
        print(f.render())
    verdict = "FAIL" if code else "OK"
    print(f"{verdict}: {args.config}: {summary_line(findings)}")
    return code
