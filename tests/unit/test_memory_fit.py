"""wizard/core/memory/fit.py (issue 20): one definition of "fits" and of the largest micro batch, its edges, and the
CLI faces (``estimate`` text and JSON, ``recommend``) agreeing on it for the two disagreements the issue reports."""
from __future__ import annotations

import json

import pytest

from wizard.cli import main as cli_main
from wizard.core.answers import dump_answers, load_answers_file
from wizard.core.memory.estimate import EstimateError, estimate
from wizard.core.memory.fit import (
    DEFAULT_HEADROOM,
    GIB,
    fit_of,
    headroom_problem,
    largest_micro_batch,
    micro_batch_line,
    verdict,
)
from wizard.core.memory.recommend import recommend
from wizard.core.memory.shapes import shape_by_name
from wizard.core.presets import preset_paths

L8 = shape_by_name("llama-3.1-8b")


def preset_path(name: str):
    return preset_paths()[name]


# ------------------------------------------------------------------ the definition's edges

def test_exactly_at_the_limit_fits_and_one_byte_more_does_not():
    gpu = 80 * GIB
    kept = int(0.1 * gpu)
    at = fit_of(gpu_bytes=gpu, peak_bytes=gpu - kept, headroom=0.1)
    assert at.kept_free_bytes == 8 * GIB and at.fits and at.spare_bytes == 0 and at.short_by_bytes == 0
    assert verdict(at) == "fits in 80.00 GiB with 8.00 GiB (10%) kept free: 0.00 GiB to spare"
    over = fit_of(gpu_bytes=gpu, peak_bytes=gpu - kept + 1, headroom=0.1)
    assert not over.fits and over.short_by_bytes == 1 and over.free_bytes == kept - 1
    assert verdict(over).startswith("does not fit in 80.00 GiB with 8.00 GiB (10%) kept free: short by ")


def test_margin_zero_is_the_gpu_itself():
    gpu = 24 * GIB
    full = fit_of(gpu_bytes=gpu, peak_bytes=gpu, headroom=0)
    assert full.kept_free_bytes == 0 and full.fits and full.spare_bytes == 0
    assert verdict(full) == "fits in 24.00 GiB with nothing kept free: 0.00 GiB to spare"
    assert not fit_of(gpu_bytes=gpu, peak_bytes=gpu + 1, headroom=0).fits
    assert "0% kept" in verdict(full, width=24)


def test_the_largest_micro_batch_leaves_the_margin_free():
    """A peak of 10 GiB + 3 GiB per sample on 40 GiB: 9 samples with nothing kept free (37 GiB), 8 with 4 GiB kept
    (34 <= 36 < 37), 0 when one sample is already over."""
    def peak_at(b: int) -> int:
        return (10 + 3 * b) * GIB

    gpu = 40 * GIB
    assert fit_of(gpu_bytes=gpu, peak_bytes=peak_at(1), headroom=0, peak_at=peak_at).max_micro_batch == 10
    assert fit_of(gpu_bytes=gpu, peak_bytes=peak_at(1), headroom=0.1, peak_at=peak_at).max_micro_batch == 8
    assert fit_of(gpu_bytes=12 * GIB, peak_bytes=peak_at(1), headroom=0, peak_at=peak_at).max_micro_batch == 0
    # exactly at the limit counts as fitting
    assert largest_micro_batch(peak_at, 34 * GIB) == 8 and largest_micro_batch(peak_at, 34 * GIB - 1) == 7
    f = fit_of(gpu_bytes=gpu, peak_bytes=peak_at(1), headroom=0.1, peak_at=peak_at)
    assert micro_batch_line(f) == "largest micro batch that fits with 4.00 GiB (10%) kept free: 8"


def test_without_the_models_shape_there_is_no_micro_batch():
    f = fit_of(gpu_bytes=80 * GIB, peak_bytes=10 * GIB)
    assert f.max_micro_batch is None and micro_batch_line(f) is None
    e = estimate(load_answers_file(preset_path("zero2"))[0], params=7_000_000_000, largest_layer_params=500_000_000,
                 gpu_memory_gib=80)
    assert e.fit is not None and e.fit.max_micro_batch is None and e.max_micro_batch is None
    assert e.fit.kept_free_bytes == 8 * GIB and e.fits is e.fit.fits
    assert estimate(load_answers_file(preset_path("zero2"))[0], params=7_000_000_000).fit is None


def test_the_host_counts_where_its_memory_is_given():
    gpu = 80 * GIB
    ok_gpu = fit_of(gpu_bytes=gpu, peak_bytes=10 * GIB, host_memory_bytes=100 * GIB, host_peak_bytes=120 * GIB)
    assert ok_gpu.gpu_fits and ok_gpu.host_fits is False and not ok_gpu.fits
    assert ok_gpu.short_by_bytes == 20 * GIB
    assert verdict(ok_gpu).startswith("does not fit: the host needs 120.00 GiB per node, 20.00 GiB more than the "
                                      "100.00 GiB given (the GPU fits in 80.00 GiB with 8.00 GiB (10%) kept free")
    both = fit_of(gpu_bytes=gpu, peak_bytes=75 * GIB, host_memory_bytes=100 * GIB, host_peak_bytes=120 * GIB)
    assert both.short_by_bytes == 23 * GIB and "short by 3.00 GiB; the host needs" in verdict(both)
    assert fit_of(gpu_bytes=gpu, peak_bytes=10 * GIB).host_fits is None


@pytest.mark.parametrize("width", [20, 24, 30, 40])
def test_the_short_forms_keep_the_margin(width):
    for peak in (10 * GIB, 75 * GIB):
        f = fit_of(gpu_bytes=80 * GIB, peak_bytes=peak)
        text = verdict(f, width)
        assert "10%" in text and (len(text) <= width or width < 21)
        assert ("short" in text) is (not f.fits)


@pytest.mark.parametrize("bad", [-0.1, 1.0, 1.5, float("nan"), "0.1", True])
def test_headroom_is_a_fraction_below_one(bad):
    assert headroom_problem(bad).startswith(f"--headroom {bad}: ")
    with pytest.raises(EstimateError, match="--headroom"):
        estimate(load_answers_file(preset_path("zero2"))[0], params=1000, gpu_memory_gib=80, headroom=bad)


def test_headroom_zero_and_the_default_are_fine():
    assert headroom_problem(0) is None and headroom_problem(0.0) is None and headroom_problem(DEFAULT_HEADROOM) is None
    assert DEFAULT_HEADROOM == 0.10


# ------------------------------------------------------------------ the CLI faces agree

def _answers_file(tmp_path, preset: str, name: str, **changes):
    answers = load_answers_file(preset_path(preset))[0].replace(changes)
    path = tmp_path / f"{name}.yaml"
    path.write_text(dump_answers(answers))
    return path, answers


CASES = {
    # the issue: the memory bar said "fits, 3.5 GiB headroom", recommend "Does not fit ... with 10% kept free"
    "fsdp2-2x80": ("fsdp2-full-shard-bf16", {"launch.num_processes": 2}, "FSDP2 full shard, bf16", 2, False, 0),
    # the issue: estimate said the largest micro batch of a ZeRO-1 layout is 3, recommend 2
    "zero1-8x80": ("zero2", {"sharding.strategy": "optimizer"}, "DeepSpeed ZeRO-1, bf16", 8, True, 2),
}


def _run(capsys, *argv) -> tuple[int, str]:
    code = cli_main(list(argv))
    out = capsys.readouterr().out
    return code, out


@pytest.mark.parametrize("case", sorted(CASES))
def test_estimate_and_recommend_agree(tmp_path, capsys, case):
    preset, changes, label, gpus, fits, max_mb = CASES[case]
    path, answers = _answers_file(tmp_path, preset, case, **changes)
    e = estimate(answers, shape=L8, gpu_memory_gib=80)
    assert e.fits is fits and e.max_micro_batch == max_mb
    line, batch_line = verdict(e.fit), micro_batch_line(e.fit)
    assert "with 8.00 GiB (10%) kept free" in line and "with 8.00 GiB (10%) kept free" in batch_line

    code, text = _run(capsys, "estimate", str(path), "--model", "llama-3.1-8b", "--gpu-memory", "80")
    assert code == 0 and f"  {line}\n" in text and f"  {batch_line}\n" in text
    code, out = _run(capsys, "estimate", str(path), "--model", "llama-3.1-8b", "--gpu-memory", "80", "--format",
                     "json")
    doc = json.loads(out)
    assert doc["fits"] is fits and doc["max_micro_batch"] == max_mb
    assert doc["fit"] == {**e.fit.to_json(), "verdict": line} and doc["fit"]["kept_free_bytes"] == 8 * GIB

    rec = recommend(shape=L8, gpus_per_node=gpus, gpu_memory_gib=80, base=answers)
    c = next(c for c in rec.candidates if c.label == label)
    assert c.estimate.per_rank.gpu_bytes == e.per_rank.gpu_bytes
    assert (c.fits, c.max_micro_batch, c.fit) == (fits, max_mb, e.fit)
    assert c.reason.startswith(line[0].upper() + line[1:] + ";")
    code, out = _run(capsys, "recommend", "--model", "llama-3.1-8b", "--gpus-per-node", str(gpus), "--gpu-memory",
                     "80", "--base", str(path))
    row = next(r for r in out.splitlines() if r.rstrip().endswith(label) or f"  {label}   <- chosen" in r)
    assert row.split()[1] == ("yes" if fits else "no") and row.split()[5] == str(max_mb)
    assert f"{e.fit.spare_bytes / GIB:.1f}" == row.split()[3]


def test_estimate_headroom_option(tmp_path, capsys):
    path, answers = _answers_file(tmp_path, "zero2", "zero1", **{"sharding.strategy": "optimizer"})
    code, out = _run(capsys, "estimate", str(path), "--model", "llama-3.1-8b", "--gpu-memory", "80", "--headroom",
                     "0", "--format", "json")
    doc = json.loads(out)
    assert code == 0 and doc["fit"]["kept_free_bytes"] == 0 and doc["max_micro_batch"] == 3
    assert doc["fit"]["verdict"].startswith("fits in 80.00 GiB with nothing kept free: ")
    code, out = _run(capsys, "estimate", str(path), "--model", "llama-3.1-8b", "--gpu-memory", "80", "--headroom",
                     "0.25")
    assert code == 0 and "with 20.00 GiB (25%) kept free" in out
    assert cli_main(["estimate", str(path), "--params", "8B", "--gpu-memory", "80", "--headroom", "1"]) == 2
    assert "--headroom 1: too large; give the fraction of GPU memory to keep free" in capsys.readouterr().err
