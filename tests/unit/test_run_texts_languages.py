"""Issue 27: what wizard.run computes for the run screen (the checklist's rows, the verdict, the diagnoses) is shown in
Turkish and Traditional Chinese, their keys, values and names as written; the records keep the English."""
from __future__ import annotations

import re
from pathlib import Path

import pytest

from wizard.core import i18n, localized
from wizard.core.localized.messages import PART_OF_MODULE, Template, templates
from wizard.run.checklist import (
    FAIL,
    NOT_REHEARSED,
    OK,
    UNKNOWN,
    CheckItem,
    compare,
    in_language,
    not_rehearsed_items,
    verdict,
)
from wizard.run.diagnose import diagnose
from wizard.run.monitor import Monitor

LANGS = ("tr", "zh-TW")
LOGS = Path(__file__).resolve().parents[1] / "data" / "logs"
PLACE = re.compile(r"\{\{|\}\}|\{(\d+)\}")
SAME_AS_ENGLISH = {("tr", "World size {0}"), ("zh-TW", "ZeRO stage {0}")}
"""Templates whose translation reads as the English: Turkish keeps world size (as it keeps rank), Traditional
Chinese ZeRO stage (as its explanations write it)."""


def _same_as_english(english: str, lang: str) -> bool:
    return any(Template(t, t).match(english) is not None for code, t in SAME_AS_ENGLISH if code == lang)

FSDP2 = {"distributed_type": "FSDP", "world_size": 2, "mixed_precision": "bf16", "fsdp_version": 2,
         "sharding": "FULL_SHARD", "offload": {"optimizer": "none", "params": "none"},
         "wrap_classes": ["LlamaDecoderLayer"]}
RAN_FSDP2 = {"distributed_type": "FSDP", "world_size": 2, "backend": "gloo", "fsdp_version": 2,
             "param_dtype": "bf16", "reduce_dtype": "fp32",
             "sharding": "FULL_SHARD", "param_fraction": 0.51, "full_param_numel": 139584, "local_param_numel": 71000,
             "wrapped_units": {"LlamaDecoderLayer": 2}, "mixed_precision": "bf16",
             "offload": {"params": "none", "optimizer": "none"}}
ZERO2 = {"distributed_type": "DEEPSPEED", "world_size": 4, "mixed_precision": "no", "zero_stage": 2,
         "offload": {"optimizer": "none", "params": "none"}}
RAN_ZERO2 = {"distributed_type": "DEEPSPEED", "world_size": 4, "backend": "gloo", "zero_stage": 2,
             "full_param_numel": 1000, "optimizer_state_bytes": 2 * 4 * 1000 // 4, "mixed_precision": "no",
             "offload": {"params": "none", "optimizer": "none"}}
NOT_REHEARSED_PRECISION = [{"setting": "precision.mixed_precision", "name": "precision", "asked": "bf16",
                            "ran": "no", "why": "the CPU rehearsal runs fp32",
                            "short": "precision bf16 (ran no)"}]



def _words(text: str) -> set[str]:
    return set(re.findall(r"[A-Za-z]{3,}", text))


def _rows() -> list[CheckItem]:
    """Rows of several runs: one that took effect, one that did not, a ZeRO-2, a rehearsal's, and none reported."""
    wrong = dict(RAN_FSDP2, sharding="SHARD_GRAD_OP", mixed_precision="no", wrapped_units={}, world_size=1,
                 param_fraction=1.0)
    return [*compare(RAN_FSDP2, FSDP2), *compare(wrong, FSDP2), *compare(RAN_ZERO2, ZERO2),
            *compare(RAN_FSDP2, FSDP2, not_rehearsed=NOT_REHEARSED_PRECISION),
            *compare(None, FSDP2), *compare(dict(RAN_FSDP2, distributed_type="NO", launched_world_size=2), FSDP2)]


def test_the_rows_stay_english_for_the_records():
    rows = compare(RAN_FSDP2, FSDP2)
    assert [r.label for r in rows] == [
        "Distributed type FSDP", "World size 2", "FSDP2 active", "Sharding strategy FULL_SHARD",
        "FSDP sharding active: each rank holds half of the parameters", "Wrapped 2 x LlamaDecoderLayer",
        "Offload: params -> none, optimizer -> none", "Mixed precision bf16", "dtypes: parameters bf16, reduce fp32"]
    assert verdict(rows) == "took effect: 8 settings"
    failing = compare(dict(RAN_FSDP2, mixed_precision="no"), FSDP2, not_rehearsed=NOT_REHEARSED_PRECISION)
    assert verdict(failing) == ("SETTINGS DID NOT ALL TAKE EFFECT: Mixed precision no (rehearsed; config: bf16); "
                                "took effect: 7 settings; not rehearsed: precision bf16 (ran no)")


@pytest.mark.parametrize("lang", LANGS)
def test_every_row_is_shown_in_the_language_with_its_values_as_written(lang):
    rows = _rows()
    assert {r.status for r in rows} >= {OK, FAIL, UNKNOWN, NOT_REHEARSED}
    for row in rows:
        for english in (row.label, row.detail if row.status != NOT_REHEARSED else ""):
            shown = in_language(english, lang)
            if english.startswith(("FSDP2 active", "backend ")) or not english:
                continue  # a name and its values only: nothing to translate
            assert shown != english or _same_as_english(english, lang), (lang, english)
            # every key, value and name of the English is still there, as written
            for kept in re.findall(r"[A-Z_]{2,}[A-Z0-9_]*|\b\d+\b|bf16|LlamaDecoderLayer|--rehearse", english):
                if kept not in ("SETTINGS",):
                    assert kept in shown, (lang, english, shown, kept)
    held = next(r for r in compare(dict(RAN_FSDP2, mixed_precision="no"), FSDP2,
                                   not_rehearsed=NOT_REHEARSED_PRECISION) if r.rehearsed)
    assert held.label == "Mixed precision no (rehearsed; config: bf16)"
    shown = in_language(held.label, lang)
    inner = localized.said("Mixed precision no", lang)
    assert shown == localized.said(f"{inner} (rehearsed; config: bf16)", lang)
    assert "Mixed precision" not in shown and "rehearsed" not in shown and "bf16" in shown


def test_the_language_by_name_the_exact_words():
    assert in_language("Wrapped 2 x LlamaDecoderLayer", "zh-TW") == "已包裝：2 x LlamaDecoderLayer"
    assert in_language("dtypes: parameters bf16, optimizer state fp32", "tr") == \
        "dtype'lar: parametreler bf16, optimizatör durumu fp32"
    assert in_language("Offload: params -> cpu, optimizer -> none", "zh-TW") == "卸載：params -> cpu, optimizer -> none"
    assert in_language("FSDP sharding active: each rank holds half of the parameters", "tr") == \
        "FSDP sharding etkin: her rank parametrelerin yarısını tutuyor"
    assert in_language("ZeRO-3 active: each rank holds a quarter of the parameters", "zh-TW") == \
        "ZeRO-3 已生效：每個 rank 持有四分之一的參數"
    # a detail of parts joined by "; ": each part in the language
    detail = ("q_proj: Shard(dim=0) (column-wise); o_proj: Shard(dim=1) (row-wise); "
              "whole on every tp rank: embed_tokens, norm")
    assert in_language(detail, "tr") == ("q_proj: Shard(dim=0) (sütun yönünde); o_proj: Shard(dim=1) (satır yönünde); "
                                         "her tp rank'inde bütün: embed_tokens, norm")
    assert in_language(detail, "en") == detail


@pytest.mark.parametrize("lang", LANGS)
def test_the_verdict_in_the_language(lang):
    failing = compare(dict(RAN_FSDP2, mixed_precision="no"), FSDP2, not_rehearsed=NOT_REHEARSED_PRECISION)
    english = verdict(failing)
    shown = verdict(failing, lang)
    assert shown != english
    assert "took effect" not in shown and "SETTINGS" not in shown and "Mixed precision" not in shown
    # the rehearsal's short line in the run screen's words, as its own row says it; the values as written
    from wizard.run.rehearse import short_in_language

    assert short_in_language("precision bf16 (ran no)", lang) in shown and "(ran no)" not in shown
    assert localized.said("Mixed precision no", lang) in shown
    assert verdict(failing, "en") == english.replace("SETTINGS DID NOT ALL TAKE EFFECT",
                                                     "Settings did not all take effect")
    unknown = verdict(compare(None, FSDP2), lang)
    assert "wizard.runtime.RunReporter.setup" in unknown and "unknown" not in unknown


def _diagnoses(log: str, exit_code: int) -> list:
    mon = Monitor()
    res = mon.feed_text((LOGS / log).read_text(errors="replace"))
    mon.finish()
    lines = [ln for _, ln in mon.first_errors] + [ln for _, ln in mon.error_lines] + list(mon.tail)
    del res
    return diagnose(lines, exit_code, end_record=mon.end_record, expected_world=2)


@pytest.mark.parametrize("lang", LANGS)
@pytest.mark.parametrize("log", ["rec_crash_rank1.log", "gen_cuda_oom.log", "gen_ds_batch_assert.log",
                                 "gen_nccl_timeout.log", "gen_wrap_class_missing.log", "rec_port_taken.log",
                                 "gen_host_oom_sigkill.log"])
def test_a_diagnosis_is_shown_in_the_language(lang, log):
    found = _diagnoses(log, 1)
    assert found, log
    for d in found:
        for english in (d.title, d.detail, d.fix):
            shown = localized.said(english, lang)
            assert shown != english, (log, english)
            for kept in re.findall(r"\b[a-z]{2,}(?:[._][a-z0-9]+)+\b|\bRank \d+|\b\d+\b|SIG[A-Z]+|`[^`]+`", english):
                kept = kept.removeprefix("Rank ")
                assert kept in shown, (log, english, shown, kept)


def test_the_run_modules_have_their_own_part_and_every_template_is_matched_back():
    assert PART_OF_MODULE["run/checklist.py"] == PART_OF_MODULE["run/diagnose.py"] == "messages-run"
    ours = [t for part, t in templates() if part == "messages-run"]
    assert len(ours) > 100
    index = sorted((Template(t, t) for _, t in templates()), key=lambda t: -t.weight)
    for english in ours:
        message = PLACE.sub(lambda m: f"v{m.group(1)}" if m.group(1) else m.group(0)[0], english)
        found = next(t for t in index if t.match(message) is not None)
        assert found.english == english, (english, found.english)
        for lang in LANGS:
            shown = localized.said(message, lang)
            assert shown != message or (lang, english) in SAME_AS_ENGLISH, (lang, english)
            assert all(f"v{n}" in shown for n in range(english.count("{")))


def test_a_not_rehearsed_row_names_the_rehearsals_change():
    row, = not_rehearsed_items(NOT_REHEARSED_PRECISION)
    assert row.label == "Not rehearsed: precision bf16 (ran no)"
    assert in_language(row.label, "tr") == "Prova edilmedi: hassasiyet bf16 (çalışan: no)"  # the short name too
    assert in_language(row.label, "zh-TW") == "未預演：精度 bf16（實際執行 no）"


STOPPED = {"status": "stopped", "exit_code": 1,
           "stop": {"requested": True, "reason": "stopped from the wizard (ctrl+c)", "signals_sent": ["SIGINT"],
                    "after_step": 5, "total_steps": 40}}


def test_how_a_run_ended_in_english_is_as_it_was():
    from wizard.run.launcher import end_text, stop_text

    assert end_text(STOPPED) == "stopped by you (SIGINT) after step 5 of 40"
    assert stop_text(STOPPED) == "by you (SIGINT) after step 5 of 40"
    quiet = dict(STOPPED, stop={"reason": "", "signals_sent": [], "after_step": None})
    assert end_text(quiet) == "stopped (no signal needed) before the first step"
    other = dict(STOPPED, stop={"reason": "SIGTERM received by fsdpds-wizard", "signals_sent": ["SIGINT", "SIGTERM"],
                                "after_step": 3})
    assert end_text(other) == "stopped (SIGTERM received by fsdpds-wizard) (SIGINT/SIGTERM) after step 3"
    assert [end_text({"status": s, "exit_code": 3}) for s in ("completed", "failed", "error", "killed")] == \
        ["completed", "failed (exit 3)", "could not start", "killed (exit 3)"]


@pytest.mark.parametrize("lang", LANGS)
def test_how_a_run_ended_in_the_language(lang):
    from wizard.run.launcher import end_text

    text = end_text(STOPPED, lang)
    assert "SIGINT" in text and "5" in text and "40" in text
    assert not _words(text) & {"stopped", "you", "after", "step"}
    assert end_text({"status": "failed", "exit_code": 3}, lang) == localized.screen("run", "end.failed", lang, code=3)
    i18n.set_language(lang)  # the wizard's language when none is given
    assert end_text({"status": "completed"}) == localized.screen("run", "end.completed", lang) != "completed"


def test_the_checkpoint_offer_in_the_language(tmp_path):
    import json

    from wizard.run.consolidate import FORMATS, offer
    from wizard.run.records import CHECKPOINT

    # the formats' names are the run screen's words (one English source)
    assert {k: localized.screen("run", f"format.{k}", "en") for k in FORMATS} == FORMATS
    (tmp_path / CHECKPOINT).write_text(json.dumps({"latest": "ckpt/step_8", "format": "deepspeed_zero", "step": 8}))
    assert offer(tmp_path) == (f"checkpoint: ckpt/step_8 (DeepSpeed ZeRO partitions, step 8); one safetensors file "
                               f"from it: fsdpds-wizard consolidate {tmp_path}")
    for lang in LANGS:
        text = offer(tmp_path, lang)
        assert "ckpt/step_8" in text and f"fsdpds-wizard consolidate {tmp_path}" in text and "DeepSpeed ZeRO" in text
        assert "checkpoint:" not in text and "partitions" not in text and "one safetensors file" not in text


@pytest.mark.parametrize("lang", LANGS)
def test_the_command_lines_rows_and_diagnoses_in_the_language(lang):
    from wizard.commands.launch_cmd import progress_text
    from wizard.run.monitor import Progress

    row = compare(RAN_FSDP2, FSDP2)[1]
    assert row.render() == "[ok]   World size 2: every process joined one process group"
    shown = row.render(lang)
    assert shown.startswith("[ok]   ") and "every process" not in shown and "2" in shown
    d = _diagnoses("gen_cuda_oom.log", 1)[0]
    assert d.render().startswith("Out of GPU memory\n  why: ")
    text = d.render(lang)
    assert "why:" not in text and "fix:" not in text and "sharding.strategy" in text and "FULL_SHARD" in text
    assert text.splitlines()[-1].endswith(d.evidence[0][:300])  # the log's own line, as written
    p = Progress(step=3, total=10, loss=2.5, step_time=0.25)
    assert progress_text(p, 12) == "step 3/10  loss 2.5000  0.250 s/step  12s"
    i18n.set_language(lang)
    line = progress_text(p, 12)
    assert "3/10" in line and "2.5000" in line and "step 3" not in line and "loss" not in line


SLURM_SECTION = {"job_id": "4242", "state": "COMPLETED", "exit_code_raw": "0:0", "nodes": "gpu[01-02]",
                 "nodes_report": [{"node": "gpu01", "log": "node-gpu01.log", "ranks": "0-3",
                                   "verdict": "took effect: 7 settings; not rehearsed: precision bf16 (ran no)",
                                   "metrics": {"first_loss": 2.5, "last_loss": 1.25}},
                                  {"node": "gpu02", "log": "node-gpu02.log", "ranks": "", "verdict": ""}]}


def test_the_slurm_report_in_english_and_in_the_language():
    from wizard.run.slurm import report_lines

    assert report_lines(SLURM_SECTION) == [
        "SLURM job 4242: COMPLETED, exit code 0:0, nodes gpu[01-02]",
        "  gpu01 (node-gpu01.log): ranks 0-3; took effect: 7 settings; not rehearsed: precision bf16 (ran no); "
        "loss 2.5000 -> 1.2500",
        "  gpu02 (node-gpu02.log): ranks none reported; no setup reported"]
    assert report_lines({"state": "PENDING"}) == ["SLURM job (not submitted): PENDING, exit code ?"]
    for lang in LANGS:
        job, first, second = report_lines(SLURM_SECTION, lang)
        assert "4242" in job and "COMPLETED" in job and "0:0" in job and "gpu[01-02]" in job and "exit code" not in job
        assert first.startswith("  gpu01") and "node-gpu01.log" in first and "0-3" in first
        assert localized.said("took effect: 7 settings", lang) in first and "precision bf16 (ran no)" in first
        assert "2.5000 -> 1.2500" in first and "loss" not in first and "took effect" not in first
        assert "none reported" not in second and "no setup" not in second


@pytest.mark.parametrize("lang", LANGS)
def test_a_plans_refusal_and_a_swept_runs_line_in_the_language(lang):
    from wizard.run.plan import PlanError, _tokens

    with pytest.raises(PlanError) as refused:
        _tokens("--steps 3", "launch.script_args")
    english = str(refused.value)
    assert english == "launch.script_args must be a list of separate arguments, not one string: '--steps 3'"
    shown = localized.said(english, lang)
    assert "launch.script_args" in shown and "'--steps 3'" in shown and "must be" not in shown
    swept = "stopped 2 process(es) left running by run 20260101-1200, whose wizard was killed: pids 41, 42"
    shown = localized.said(swept, lang)
    assert "20260101-1200" in shown and "41, 42" in shown and "left running" not in shown


@pytest.mark.parametrize("lang", LANGS)
def test_the_rehearsals_reasons_in_the_language(lang):
    from wizard.core.answers import parse_answers_text
    from wizard.run.rehearse import rehearsal_answers

    zero2 = (Path(__file__).resolve().parents[2] / "templates" / "zero2.yaml").read_text()
    answers, findings = parse_answers_text(zero2)
    assert answers is not None, findings
    answers = answers.replace({"precision.mixed_precision": "fp16", "launch.dynamo_backend": "inductor"})
    _used, notes, _args = rehearsal_answers(answers, extra_args=["--no-such", "1"])
    whys = {n.setting: n.why for n in notes}
    assert whys["precision.mixed_precision"] == ("DeepSpeed's CPU accelerator has no fp16 (\"Type fp16 is not "
                                                 "supported on your device.\")")
    assert whys["launch.dynamo_backend"] == "torch.compile is not rehearsed (minutes of CPU compilation)"
    for why in whys.values():
        shown = localized.said(why, lang)
        assert shown != why, why
        assert all(kept in shown for kept in re.findall(r"fp16|torch\.compile|\bCPU\b|\b\d+\b", why)), (why, shown)
    rows = not_rehearsed_items([n.to_dict() for n in notes])
    assert all(in_language(r.detail, lang) == localized.said(r.detail, lang) != r.detail for r in rows)
