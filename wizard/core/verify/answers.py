"""What the real libraries must make of the configs rendered from answers, and the check itself.

Two statements are held against what accelerate and DeepSpeed build (in
:func:`wizard.core.verify.roundtrip.flatten_effective`'s dotted keys): :func:`expected_effective`, the value each
one-to-one answer must produce (from the catalogue's ``Write`` declarations: the answers' intent reached the files),
and :func:`model_expected`, everything the effective model (:mod:`wizard.core.effective`) says runs for the written
files (so a wrong effective model fails ``--verify``). :func:`verify_generated` writes the files to a scratch folder,
replays them through accelerate and deepspeed (:mod:`wizard.core.verify`) and compares both.
"""
from __future__ import annotations

import tempfile
from pathlib import Path

from ..answers import Answers
from ..answers.render import one_to_one_writes
from ..catalog.writes import effective_key
from ..findings import Finding

NOT_COMPARED = ("deepspeed_plugin.config_file",)
"""A path: the round trip resolves it against the launch folder, the model keeps what was written."""


def expected_effective(a: Answers) -> dict[str, object]:
    """The one-to-one keys from the catalogue: each written value, read back where ``Write.effective`` says."""
    exp: dict[str, object] = {}
    for _, write, value in one_to_one_writes(a):
        key = effective_key(write)
        if key:
            exp[key] = value
    return exp


def model_expected(a: Answers, rendered, *, micro_batch: int) -> dict[str, object]:
    """What the effective model says the libraries build for ``rendered`` (the files written from ``a``), in the
    round trip's situation (the DataLoader's ``micro_batch``, no model config, the Trainer's arguments)."""
    from dataclasses import replace

    from ..effective import effective, situation_of

    situation = replace(situation_of(a), micro_batch=micro_batch, hidden_size=None)
    e = effective(rendered.accelerate, rendered.deepspeed, situation)
    return {k: v for k, v in e.library_view().items() if k not in NOT_COMPARED}


def verify_generated(gen, *, keep: Path | None = None) -> list[Finding]:
    """Replay generated configs through the real libraries; findings (errors first) for what differs."""
    from ..answers.generate import generate
    from ..answers.render import ACCELERATE_YAML
    from ..files import write_files
    from ..findings import sort_findings
    from .roundtrip import compare, effective_config, flatten_effective

    with tempfile.TemporaryDirectory(prefix="fsdpds_verify_") as tmp:
        folder = Path(keep or tmp)
        scratch = generate(gen.answers, folder, ds_path="absolute")  # replayed from any folder
        write_files({folder / name: text for name, text in scratch.files.items()}, force=True)
        micro = gen.answers["training.micro_batch_size"]
        # the Trainer: the arguments the answers put in training_arguments.json (None: an own Accelerator loop)
        batch = micro if isinstance(micro, int) else 1
        eff = effective_config(folder / ACCELERATE_YAML, micro_batch_size=batch,
                               trainer_arguments=scratch.rendered.training_arguments)
        flat = flatten_effective(eff)
        findings = list(eff.findings) + compare(expected_effective(gen.answers), flat)
        if eff.ok:  # the model of a config the libraries refuse has nothing to be held against
            seen = {f.keys for f in findings}
            findings += [f for f in compare(model_expected(gen.answers, scratch.rendered, micro_batch=batch), flat)
                         if f.keys not in seen]
    return sort_findings(findings)
