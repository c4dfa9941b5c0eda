"""Claims: every fact the wizard states about what accelerate, DeepSpeed, torch or transformers do, with an id and
its evidence.

A text (:mod:`wizard.core.texts`), a catalogue setting (its counterpart and not-applicable lines), a rule (its
message) or the dtype table cites the claims it states by id (``claims=(...)``). Each claim points into
docs/library-behaviour.md and the library code, and names the test in ``tests/claims/`` that demonstrates it on
CPU with the installed libraries, or says why it can only be read from the code. When a library upgrade changes a
behaviour, that test fails and names the texts and rules that state the claim (:func:`.index.used_by`).
``docs/claims.md`` is generated from here (``python -m wizard.core.claims.doc``).

One module per area registers its claims with :func:`.registry.claim`; this package imports them all. Stdlib only.
"""
from __future__ import annotations

from . import (  # noqa: F401 - each registers its claims
    config,
    deepspeed,
    ds_options,
    fsdp,
    launch,
    master_weights,
    offload,
    parallelism,
    precision,
    prefetch,
    rules_answers,
    rules_ds,
    rules_dsjson,
    rules_fsdp,
    rules_general,
    trainer_loop,
    training,
    versions_accelerate,
)
from .model import DEMONSTRATED, READ_FROM_CODE, Claim
from .registry import CLAIMS, claim

__all__ = ["CLAIMS", "DEMONSTRATED", "READ_FROM_CODE", "Claim", "claim"]
