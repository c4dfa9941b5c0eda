#!/usr/bin/env python
"""Where each version-bound DeepSpeed check lives, release by release: the evidence behind
``wizard/data/ds_versions.json`` and the DeepSpeed section of ``docs/versions.md``.

Each check of ``CHECKS`` names a file of the deepspeed package and a regular expression for the line that decides
it (a validator, an assertion, a default). For every source given the script prints the file:line of the first
matching line (and the matched value where the pattern captures one), or ``-`` where the release has no such line.

A source is either a folder that holds a ``deepspeed/`` package (an install, or a ``pip install --target``
folder), or ``GIT_DIR@TAG`` for a clone of github.com/deepspeedai/DeepSpeed (tags v0.14.0 ...), read with
``git show``. Usage::

    python scripts/ds_version_evidence.py /path/DeepSpeed/.git@v0.19.2 /path/DeepSpeed/.git@v0.19.3 /tmp/ds-0.19.8
    python scripts/ds_version_evidence.py --markdown SOURCES...   # one table per check
"""
from __future__ import annotations

import argparse
import re
import subprocess
import sys
from pathlib import Path

# check id -> (file inside the deepspeed package, regex, what the line decides)
CHECKS: dict[str, tuple[str, str, str]] = {
    "warmup-num-steps-positive": ("runtime/lr_schedules.py", r"warmup_num_steps must be a positive integer",
                                  "WarmupLR/WarmupDecayLR/WarmupCosineLR raise for warmup_num_steps <= 0"),
    "gradient-clipping-default": ("runtime/constants.py", r"^GRADIENT_CLIPPING_DEFAULT = ([\d.]+)",
                                  "gradient_clipping when the JSON leaves it out"),
    "compute-grad-norm": ("runtime/zero/config.py", r"compute_grad_norm=false is supported only",
                          "compute_grad_norm: false only at ZeRO 1/2 (the model validator)"),
    "compute-grad-norm-clipping": ("runtime/zero/stage_1_and_2.py",
                                   r"compute_grad_norm=false requires gradient_clipping=0",
                                   "compute_grad_norm: false refused with clipping / optimizer offload"),
    "fp16-master-weights-stage": ("runtime/config.py", r"Fp16_master_weights_and_grads is only supported with ZeRO",
                                  "fp16_master_weights_and_grads needs ZeRO 1-3"),
    "bf16-master-weights-keys": ("runtime/precision_config.py", r"^\s+bf16_master_weights_and_grads: bool",
                                 "bf16.bf16_master_weights_and_grads / bf16_optimizer_states exist"),
    "bf16-optimizer-states-needs-master": ("runtime/config.py", r"bf16_optimizer_states requires bf16_master",
                                           "bf16_optimizer_states needs bf16_master_weights_and_grads"),
    "torch-autocast": ("runtime/config.py", r"torch_autocast",
                       "the torch_autocast block is read"),
    "gradient-allreduce-op": ("runtime/constants.py", r"^GRADIENT_ALLREDUCE_OP_SUPPORTED",
                              "gradient_allreduce_op mean/sum"),
    "gradient-allreduce-sum-zero3": ("runtime/config.py", r"='sum' is not supported with ZeRO stage 3",
                                     "gradient_allreduce_op sum refused at ZeRO-3"),
    "param-dtype-match": ("runtime/engine.py", r"data_types.param_dtype='",
                          "data_types.param_dtype checked against fp16/bf16"),
    "keep-in-fp32-modules": ("runtime/config.py", r"keep_in_fp32_modules",
                             "data_types.keep_in_fp32_modules"),
    "partial-offload-stage3": ("runtime/zero/config.py", r"Partial offloading only supported for ZeRO Stage 3",
                               "offload_optimizer.ratio < 1 needs ZeRO-3"),
    "fp16-strict-model": ("runtime/precision_config.py", r"^class DeepSpeedFP16Config\(DeepSpeedConfigModel\)",
                          "fp16/bf16 blocks are pydantic models (unknown keys raise)"),
    "fp16-loss-scale-validated": ("runtime/precision_config.py", r"fp16.loss_scale must be a number",
                                  "fp16 loss-scale values validated by the model"),
    "removed-features-table": ("runtime/config.py", r"^_REMOVED_TOP_LEVEL_CONFIG_KEYS = ",
                               "removed feature blocks raise"),
    "reduce-bucket-size-positive": ("runtime/zero/config.py", r"reduce_bucket_size: int = Field\(.*gt=0",
                                    "reduce_bucket_size must be > 0"),
    "compile-config": ("compile/config.py", r"^class CompileConfig",
                       "the compile block is a strict model"),
    "lamb-dynamic-loss-scale": ("runtime/engine.py", r"optimizer requires dynamic loss scaling",
                                "LAMB needs dynamic loss scaling"),
    "optimizer-max-grad-norm": ("runtime/engine.py", r"max_grad_norm",
                                "optimizer.params.max_grad_norm refused"),
}


def _read(source: str, rel: str) -> tuple[str, str] | None:
    """(text, label) of deepspeed/<rel> in the source, or None."""
    if "@" in source and not Path(source).is_dir():
        git_dir, tag = source.rsplit("@", 1)
        proc = subprocess.run(["git", "--git-dir", git_dir, "show", f"{tag}:deepspeed/{rel}"],
                              capture_output=True, text=True)
        return (proc.stdout, tag.lstrip("v")) if proc.returncode == 0 else None
    path = Path(source) / "deepspeed" / rel
    if not path.exists():
        return None
    version_file = Path(source) / "deepspeed" / "git_version_info_installed.py"
    label = source
    if version_file.exists():
        m = re.search(r"version\s*=\s*['\"]([^'\"]+)", version_file.read_text())
        label = m.group(1) if m else source
    return path.read_text(encoding="utf-8", errors="replace"), label


def evidence(source: str) -> tuple[str, dict[str, str]]:
    """(release label, check id -> 'file:line[ = value]' or '-') for one source."""
    label, out = source, {}
    for cid, (rel, pattern, _) in CHECKS.items():
        got = _read(source, rel)
        if got is None:
            out[cid] = "-"
            continue
        text, label = got
        rx = re.compile(pattern)
        for n, line in enumerate(text.splitlines(), 1):
            m = rx.search(line)
            if m:
                value = f" = {m.group(1)}" if m.groups() else ""
                out[cid] = f"{rel}:{n}{value}"
                break
        else:
            out[cid] = "-"
    return label, out


def main(argv=None) -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--markdown", action="store_true")
    ap.add_argument("sources", nargs="+")
    a = ap.parse_args(argv)
    rows = [evidence(s) for s in a.sources]
    for cid, (_, _, what) in CHECKS.items():
        if a.markdown:
            print(f"\n#### {cid}: {what}\n\n| DeepSpeed | deciding line |\n|---|---|")
            for label, ev in rows:
                print(f"| {label} | {ev[cid]} |")
        else:
            print(f"== {cid}: {what}")
            for label, ev in rows:
                print(f"   {label:8} {ev[cid]}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
