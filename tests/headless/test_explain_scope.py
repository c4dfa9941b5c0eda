"""Issue 23: sentences `explain` used to say that were wider than what the libraries do. Every group and every
setting is explained at the widest width, its columns read back as running text, and searched for them.

What each one got wrong (the claim that now states the fact, tested in tests/claims/):
- "only lr and weight_decay": the CPU optimizer keeps each group's betas and eps (ds-offload-replaces-torch-optimizer);
- "fills only the micro-batch": an own loop fills much more (ds-own-loop-fills-auto);
- "With mixed precision the weights are saved in fp32": only the upcast, trainable ones (fsdp-saved-weights-fp32);
- ZeRO-0 grouped with ZeRO-1/2 for checkpoints: ZeRO-0 writes no per-rank files and no zero_to_fp32.py
  (ds-zero12-checkpoint-weights-whole);
- "an unclear KeyError" for any bad fsdp_version: a non-integer is a ValueError (fsdp-version-default-1-unchecked);
- torchao fp8 "with FSDP2": any FSDP version (fsdp-torchao-fp8-no-ram-efficient).
"""
from __future__ import annotations

import re

import pytest

from wizard.cli import main
from wizard.core.bounds import MAX_WIDTH
from wizard.core.catalog import GROUPS, SETTINGS

WIDE = [
    "only lr and weight_decay",
    "keeping only lr",
    "fills only the micro-batch",
    "With mixed precision the weights are saved in fp32",
    "ZeRO-0 checkpoints are plain weights",
    "an unclear KeyError",
    "torchao fp8 with FSDP2",
    "torchao with FSDP2",
]
GROUPED_ZERO0 = re.compile(r"ZeRO-0/1/2|ZeRO-0, 1 and 2|stages 0-2|ZeRO-0 to 2")
CHECKPOINT_WORDS = re.compile(r"checkpoint|zero_to_fp32|optimizer-state files|per-rank", re.IGNORECASE)


def _running_text(out: str, width: int) -> list[str]:
    """The output as running texts: the full-width lines, the left column and the right column, each joined (a line
    ending in a hyphen joins the next without a space, as textwrap broke it)."""
    col = max(20, (width - 3) // 2)
    streams: dict[str, list[str]] = {"full": [], "left": [], "right": []}
    for line in out.splitlines():
        if line[col:col + 2] == " |":
            streams["left"].append(line[:col].strip())
            streams["right"].append(line[col + 3:].strip())
        else:
            streams["full"].append(line.strip())
    texts = []
    for lines in streams.values():
        text = ""
        for line in lines:
            text += line if text.endswith("-") or not text else " " + line
        texts.append(re.sub(r"\s+", " ", text))
    return texts


@pytest.mark.parametrize("name", [g.id for g in GROUPS] + [s.id for s in SETTINGS])
def test_explain_says_nothing_wider_than_the_libraries_do(capsys, name):
    assert main(["explain", name, "--width", str(MAX_WIDTH)]) == 0
    texts = _running_text(capsys.readouterr().out, MAX_WIDTH)
    for text in texts:
        for phrase in WIDE:
            assert phrase not in text, (name, phrase)
        for sentence in re.split(r"(?<=[.;])\s", text):
            if GROUPED_ZERO0.search(sentence):
                assert not CHECKPOINT_WORDS.search(sentence), (name, sentence)


def test_the_reader_finds_a_phrase_split_over_lines_and_columns():
    """The search itself: a phrase wrapped over several lines of one column is found as one."""
    from wizard.commands.explain import two_columns

    left = "x " * 300 + "accelerate fills only the micro-batch (from the DataLoader)"
    lines = two_columns(left, "ZeRO-0/1/2: the weights once plus per-rank optimizer-state files " * 20, MAX_WIDTH)
    texts = _running_text("\n".join(lines), MAX_WIDTH)
    assert any("fills only the micro-batch" in t for t in texts)
    assert any(GROUPED_ZERO0.search(t) and CHECKPOINT_WORDS.search(t) for t in texts)


def test_a_typos_did_you_mean_names_every_setting_that_writes_the_key(capsys):
    """N9: `explain ofload` suggested 'offload_params' as "a key of offload.optimizer" only; FSDP's one offload
    switch fsdp_offload_params is written by offload.params and offload.optimizer alike (all or nothing), the one a
    finding is blamed on (offload.params) first."""
    assert main(["explain", "ofload"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "'offload_params' (a key of offload.params and offload.optimizer)" in err, err
    assert main(["explain", "zero3_init_flg"]) == 2
    assert "'zero3_init_flag' (a key of loading.ram_efficient)" in " ".join(capsys.readouterr().err.split())
