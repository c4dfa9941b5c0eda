"""``fsdpds-wizard check CONFIG.yaml [--gpus-per-node N] [--format text|json] [--verify]``."""
from __future__ import annotations

import json

from ..cli import EXIT_INVALID, EXIT_OK, UsageError
from ..core.findings import Finding, dedupe, has_errors, sort_findings
from ..core.loading import InputError
from .common import summary_line


def run(args) -> int:
    from ..core.config_rules import lint
    from ..core.configfile import load_config_files
    from ..core.gpus import detect_gpus_per_node

    if args.gpus_per_node is not None and args.gpus_per_node < 1:
        raise UsageError("--gpus-per-node must be at least 1")
    try:
        loaded = load_config_files(args.config)
    except InputError as exc:  # the file cannot be used at all: the shared wording, as one finding
        return _report([exc.finding("config-unreadable", "config")], args)
    gpus = args.gpus_per_node if args.gpus_per_node is not None else detect_gpus_per_node()
    findings = list(loaded.findings)
    findings += lint(loaded.yaml, loaded.ds, gpus_per_node=gpus, ds_path_known=loaded.ds_path is not None)
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
