"""Monitor parsing, diagnosis and checklist over recorded logs (real rehearsals on this machine, under
tests/data/logs/rec_*), hand-written logs of known failures (gen_*) and generated hostile input."""
from __future__ import annotations

import json
import random
import re
import subprocess
import sys

import pytest
from helpers import ROOT

from wizard.run.checklist import FAIL, OK, compare, expected_from_config
from wizard.run.diagnose import diagnose
from wizard.run.monitor import Monitor, parse_log

LOGS = ROOT / "tests" / "data" / "logs"


def load(name: str) -> bytes:
    return (LOGS / name).read_bytes()


def diagnosis_of(mon: Monitor, exit_code: int, **kw) -> dict:
    lines = [ln for _, ln in mon.first_errors] + [ln for _, ln in mon.error_lines] + list(mon.tail)
    return {d.code: d for d in diagnose(lines, exit_code, end_record=mon.end_record, **kw)}


# ----------------------------------------------------------------------------- recorded rehearsals
REHEARSALS = {
    "rec_fsdp2_rehearsal.log": {"distributed_type": "FSDP", "fsdp_version": 2, "sharding": "FULL_SHARD",
                                "param_fraction": 0.5},
    "rec_zero2_rehearsal.log": {"distributed_type": "DEEPSPEED", "zero_stage": 2, "param_fraction": 1.0},
    "rec_zero3_cpu_offload_rehearsal.log": {"distributed_type": "DEEPSPEED", "zero_stage": 3, "param_fraction": 0.5,
                                            "offload": {"params": "cpu", "optimizer": "cpu"}},
}


@pytest.mark.parametrize("name", list(REHEARSALS))
def test_recorded_rehearsal_logs(name):
    mon = parse_log(load(name))
    eff = mon.effective_setup
    assert eff is not None and eff["ranks_reported"] == 2
    for key, value in REHEARSALS[name].items():
        assert eff[key] == value, key
    assert [r["rank"] for r in eff["ranks"]] == [0, 1]
    assert eff["optimizer_state_dtype"] == "float32"  # from the update after the first step
    steps = [m for m in mon.metrics if m.get("source") == "fsdpds"]
    assert [m["step"] for m in steps] == list(range(8))
    assert steps[-1]["loss"] < steps[0]["loss"] - 0.5
    assert all(k in steps[0] for k in ("lr", "tokens_per_s", "step_time", "mem_bytes"))
    assert mon.end_record["status"] == "completed"
    assert diagnose(list(mon.tail), 0) == []


def test_recorded_zero3_offload_checklist_words():
    eff = parse_log(load("rec_zero3_cpu_offload_rehearsal.log")).effective_setup
    cfg = {"distributed_type": "DEEPSPEED", "num_processes": 2, "mixed_precision": "no",
           "deepspeed_config": {"zero_stage": 3, "offload_optimizer_device": "cpu", "offload_param_device": "cpu"}}
    items = compare(eff, expected_from_config(cfg))
    labels = {i.label: i.status for i in items}
    assert labels["ZeRO-3 active: each rank holds half of the parameters"] == OK
    assert labels["Offload: params -> cpu, optimizer -> cpu"] == OK
    assert all(i.status != FAIL for i in items)
    # the same record against a config that asked for ZeRO-2 without offload
    cfg["deepspeed_config"] = {"zero_stage": 2}
    bad = {i.label: i.status for i in compare(eff, expected_from_config(cfg))}
    assert bad["ZeRO stage 3"] == FAIL
    assert any(k.startswith("Offload") and v == FAIL for k, v in bad.items())


def test_recorded_fsdp_without_distribution_is_flagged():
    mon = parse_log(load("rec_fsdp_no_distribution.log"))
    eff = mon.effective_setup
    assert eff["distributed_type"] == "NO" and eff["launched_world_size"] == 2
    cfg = {"distributed_type": "FSDP", "num_processes": 2, "mixed_precision": "no",
           "fsdp_config": {"fsdp_version": 2, "fsdp_reshard_after_forward": True}}
    items = compare(eff, expected_from_config(cfg))
    fail = [i for i in items if i.status == FAIL]
    assert fail[0].label == "FSDP requested but accelerate runs with no distribution"
    assert "each trains its own unsynchronised copy" in fail[0].detail


def test_recorded_crash_names_the_dead_rank():
    mon = parse_log(load("rec_crash_rank1.log"))
    found = diagnosis_of(mon, 1)
    assert found["dead-rank"].rank == 1
    assert found["dead-rank"].title.startswith("Rank 1 exited with code 3")
    assert mon.metric_count >= 3


def test_recorded_stop_is_not_a_crash():
    mon = parse_log(load("rec_stopped_sigint.log"))
    assert "dead-rank" not in diagnosis_of(mon, 1, stopped=True)
    assert mon.metric_count >= 4


def test_recorded_teardown_abort_after_completion():
    mon = parse_log(load("rec_fsdp1_teardown_abort.log"))
    assert mon.end_record["status"] == "completed"
    found = diagnosis_of(mon, 1)
    assert "teardown-abort" in found


# ----------------------------------------------------------------------------- known failures
@pytest.mark.parametrize("name,code,words", [
    ("gen_cuda_oom.log", "oom", "Out of GPU memory"),
    ("gen_host_oom_sigkill.log", "oom", "killed (SIGKILL)"),
    ("gen_nccl_timeout.log", "collective-timeout", "timed out"),
    ("gen_wrap_class_missing.log", "wrap-class-not-found", "LlamaDecoderLayer"),
    ("gen_ds_batch_assert.log", "batch-size-assertion", "batch-size"),
    # recorded: accelerate launch as machine 0 of 2 while another socket held the main port (bound, not listening,
    # so accelerate's own probe found it free and torchrun's store could not listen on it)
    ("rec_port_taken.log", "port-taken", "port was taken"),
])
def test_known_failures_are_diagnosed_with_a_fix(name, code, words):
    mon = parse_log(load(name))
    found = diagnosis_of(mon, 1, expected_world=2)
    assert code in found, list(found)
    d = found[code]
    assert words in d.title + d.detail
    assert d.fix and d.evidence


def test_batch_assertion_on_cpu_points_at_gloo():
    d = diagnosis_of(parse_log(load("gen_ds_batch_assert.log")), 1, expected_world=2)["batch-size-assertion"]
    assert "InitProcessGroupKwargs(backend='gloo')" in d.fix


def test_nccl_timeout_also_names_the_rank():
    found = diagnosis_of(parse_log(load("gen_nccl_timeout.log")), 1)
    assert found["dead-rank"].rank == 3 and "SIGABRT" in found["dead-rank"].title


def test_clean_exit_has_no_diagnosis():
    assert diagnose(["everything is fine", "Traceback is a word here"], 0) == []


# ----------------------------------------------------------------------------- user script formats
def test_hugging_face_trainer_dicts():
    mon = parse_log(load("gen_hf_trainer.log"))
    train = [m for m in mon.metrics if m.get("kind") != "eval"]
    assert [(m["loss"], m.get("lr")) for m in train[:3]] == [(2.3456, 5e-05), (2.001, 4.5e-05), (1.75, 4e-05)]
    assert train[0]["grad_norm"] == 1.234 and train[1]["epoch"] == 0.2
    assert train[-1]["final"] is True and train[-1]["loss"] == 2.03
    evals = [m for m in mon.metrics if m.get("kind") == "eval"]
    assert evals[0]["eval_loss"] == 2.5
    assert mon.last_loss == 2.03


def test_tqdm_bars_with_ansi_and_carriage_returns():
    mon = parse_log(load("gen_tqdm_ansi.log"))
    losses = [(m["step"], m["loss"], m["lr"]) for m in mon.metrics]
    assert losses == [(1, 4.31, 3e-4), (2, 4.02, 3e-4), (3, 3.80, 3e-4)]  # the repeated redraw counted once
    p = mon.progress
    assert (p.step, p.total, p.rate) == (3, 50, "1.00it/s")
    assert all("\x1b" not in line for line in mon.tail)


@pytest.mark.parametrize("line,step,loss,lr", [
    ("step 10 loss=2.3", 10, 2.3, None),
    ("Iter 5: loss 1.2e-1 lr: 3e-4", 5, 0.12, 3e-4),
    ("Epoch 1 | Step 3/100 | Loss: 2.5 | lr: 1e-4", 3, 2.5, 1e-4),
    ("[2026-11-30 10:00:00] global_step=42 train_loss=0.75 learning_rate=2e-05", 42, 0.75, 2e-05),
    ('{"step": 7, "loss": 1.25, "lr": 0.001}', 7, 1.25, 0.001),
])
def test_loss_lines(line, step, loss, lr):
    mon = parse_log(line + "\n")
    assert len(mon.metrics) == 1, list(mon.metrics)
    m = mon.metrics[0]
    assert (m["step"], m["loss"], m.get("lr")) == (step, loss, lr)


@pytest.mark.parametrize("line", ["loss_scale=65536", "val_loss=2.0", "eval loss: 3.1", "test loss 2",
                                  "no loss reported", "lossless compression 9"])
def test_not_training_losses(line):
    assert parse_log(line + "\n").metric_count == 0


# ----------------------------------------------------------------------------- hostile input
def test_stored_hostile_log():
    mon = parse_log(load("gen_hostile.bin"))
    assert mon.bad_records >= 3  # broken fsdpds records are counted, not fatal
    assert mon.setups == {}  # a setup record with a non-numeric rank is refused
    for line in mon.tail:
        assert "\x00" not in line and "\x1b" not in line
    assert {(m["step"], m["source"]) for m in mon.metrics} >= {(0, "text"), (3, "text"), (5, "tqdm")}
    assert not any(m["loss"] == 9.9 or m["loss"] == 8.8 or m["loss"] == 7.7 for m in mon.metrics)


def _random_log(seed: int, n: int = 3000) -> bytes:
    r = random.Random(seed)
    out = []
    for i in range(n):
        k = r.randrange(9)
        if k == 0:
            out.append(json.dumps({"fsdpds": 1, "kind": "step", "step": i, "loss": r.random() * 5}).encode())
        elif k == 1:
            out.append(bytes(r.randrange(256) for _ in range(r.randrange(200))))
        elif k == 2:
            out.append(b"\x1b[3%dm" % r.randrange(8) + b"colour " * r.randrange(5) + b"\x1b[0m")
        elif k == 3:
            out.append(b"x" * r.randrange(3000, 20000))
        elif k == 4:
            out.append(b" %d%%|###   | %d/100 [00:01<00:02, 3.%dit/s, loss=%d.5]\r" % (i % 100, i % 100, i % 10, i % 7))
        elif k == 5:
            out.append("ünïcödé ✓ 学习 loss=%d.25".encode() % (i % 9))
        elif k == 6:
            out.append(b'{"fsdpds": 1, "kind": "setup", "rank": %d, "world_size": 2}' % r.randrange(3))
        else:
            out.append(b"[INFO] ordinary line %d" % i)
    return b"\n".join(out) + b"\n"


@pytest.mark.parametrize("seed", [1, 2, 3])
def test_any_chunking_gives_the_same_result(seed):
    data = _random_log(seed)
    whole = parse_log(data)
    r = random.Random(seed)
    mon = Monitor(keep_lines=False)
    i = 0
    while i < len(data):
        n = r.choice([1, 2, 3, 7, 64, 1000, 65536])
        mon.feed(data[i:i + n])
        i += n
    mon.finish()
    strip_time = lambda ms: [{k: v for k, v in m.items() if k != "time"} for m in ms]  # noqa: E731
    assert strip_time(mon.metrics) == strip_time(whole.metrics)
    assert list(mon.tail) == list(whole.tail)
    assert mon.setups == whole.setups
    assert mon.line_count == whole.line_count


def test_unterminated_giant_line_is_cut_and_memory_stays_bounded():
    mon = Monitor(max_line=1000)
    for _ in range(200):  # 20 MB without a newline
        mon.feed(b"y" * 100_000)
    assert len(mon._partial) <= 1000
    mon.feed(b" tail\nstep 1 loss=0.5\n")
    mon.finish()
    assert mon.truncated_lines == 1
    assert mon.metrics[-1]["loss"] == 0.5
    assert max(len(t) for t in mon.tail) <= 1010


def test_flood_keeps_bounded_state():
    mon = Monitor(keep_lines=False, tail=100, error_lines=50, metrics_kept=1000)
    chunk = b"".join(b"step %d loss=1.0\nError: something %d\n" % (i, i) for i in range(10000))
    for _ in range(10):
        mon.feed(chunk)
    assert mon.metric_count == 100000 and mon.line_count == 200000
    assert len(mon.metrics) == 1000 and len(mon.tail) == 100 and len(mon.error_lines) == 50
    assert len(mon.first_errors) == 50


def test_setup_records_merge_per_rank_and_stay_bounded():
    mon = Monitor()
    mon.feed_text('{"fsdpds": 1, "kind": "setup", "rank": 0, "world_size": 2, "optimizer_state_bytes": 0}\n'
                  '{"fsdpds": 1, "kind": "setup", "update": true, "rank": 0, "optimizer_state_bytes": 64}\n')
    assert mon.setups[0] == {"rank": 0, "world_size": 2, "optimizer_state_bytes": 64}
    mon.feed_text("".join(f'{{"fsdpds": 1, "kind": "setup", "rank": {i}}}\n' for i in range(10000)))
    assert len(mon.setups) == 4096


# ----------------------------------------------------------------------------- the reporter
def test_runtime_reporter_is_light_and_never_raises():
    code = ("import sys, io, json\n"
            "from wizard.runtime import RunReporter\n"
            "buf = io.StringIO()\n"
            "r = RunReporter(stream=buf)\n"
            "r.step(0, 2.5, lr=1e-3, tokens=512, step_time=0.5)\n"
            "r.step(1, float('nan'))\n"
            "r.step(2, object())\n"
            "r.close()\n"
            "print(json.dumps({'heavy': [m for m in ('torch', 'accelerate', 'deepspeed') if m in sys.modules],"
            " 'out': buf.getvalue()}))\n")
    proc = subprocess.run([sys.executable, "-c", code], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    res = json.loads(proc.stdout)
    assert res["heavy"] == []
    mon = parse_log(res["out"])
    assert [m["step"] for m in mon.metrics] == [0, 1, 2]
    assert mon.metrics[0]["tokens_per_s"] == 1024.0
    assert mon.metrics[2]["loss"] is None
    assert mon.end_record["status"] == "completed"


# ----------------------------------------------------------------------------- readable protocol lines
def test_protocol_records_are_shown_as_readable_lines_and_kept_raw_in_the_tail():
    """The run screen and the headless echo show Monitor.feed()'s lines: readable, not the JSON protocol."""
    raw = load("rec_zero2_rehearsal.log")
    mon = Monitor()
    shown = mon.feed(raw).lines + mon.finish().lines
    assert not [ln for ln in shown if '{"fsdpds"' in ln], "no protocol JSON on screen"
    steps = [ln for ln in shown if ln.startswith("step ")]
    assert len(steps) == 8
    assert re.fullmatch(r"step 1/8  loss \d\.\d{4}  lr \S+  [\d.]+k? tok/s  \d\.\d{3} s/step", steps[0]), steps[0]
    assert steps[-1].startswith("step 8/8  loss ")
    setups = [ln for ln in shown if ln.startswith("setup rank ")]
    assert setups[0].startswith("setup rank 0: ZeRO-2, fp32 (params float32), 2 ranks over gloo, holds 100% of ")
    assert any("after the first step: optimizer state float32" in ln for ln in setups)
    assert any(ln.startswith("end: completed, 8 steps") for ln in shown)
    # the record itself is unchanged where the diagnosis and log.txt read it
    assert any(ln.startswith('{"fsdpds": 1, "kind": "step"') for ln in mon.tail)
    assert mon.metric_count == 8 and mon.effective_setup["zero_stage"] == 2


def test_describe_record_words():
    from wizard.runtime import describe_record

    assert describe_record({"kind": "step", "step": 11, "total_steps": 20, "loss": 3.21, "tokens_per_s": 1234.0}) \
        == "step 12/20  loss 3.2100  1.2k tok/s"
    fsdp = {"kind": "setup", "rank": 1, "distributed_type": "FSDP", "fsdp_version": 2, "sharding": "FULL_SHARD",
            "mixed_precision": "bf16", "param_dtype": "float32", "compute_dtype": "bfloat16", "world_size": 2,
            "backend": "gloo", "offload": {"params": "cpu", "optimizer": "cpu"}, "compat_layer": "x"}
    assert describe_record(fsdp) == ("setup rank 1: FSDP2 FULL_SHARD, bf16 (params float32, compute bfloat16), "
                                     "offload params -> cpu, optimizer -> cpu, 2 ranks over gloo, "
                                     "CPU compatibility layer")
    assert describe_record({"kind": "end", "status": "completed", "steps": 20, "elapsed_s": 9.04}) \
        == "end: completed, 20 steps, in 9.0 s"
    assert describe_record({"kind": "something-new"}) is None
    mon = Monitor()
    res = mon.feed_text('[rank1]: {"fsdpds": 1, "kind": "future", "x": 1}\n'
                        '{"fsdpds": 1, "kind": "end", "status": "ok"}\n')
    assert res.lines == ['[rank1]: {"fsdpds": 1, "kind": "future", "x": 1}', "end: ok"]


# ----------------------------------------------------------------------------- rehearsal: what is not rehearsed
def _preset(name):
    from wizard.core.answers import parse_answers_text

    answers, findings = parse_answers_text((ROOT / "templates" / f"{name}.yaml").read_text())
    assert answers is not None, findings
    return answers


def test_rehearsal_lists_every_change_and_keeps_the_bundled_scripts_arguments():
    from wizard.run.rehearse import rehearsal_answers

    a = _preset("fsdp1-shard-grad-op-compile").replace({"launch.script_args": ["--steps", "3000", "--seq-len=16"]})
    used, notes, args = rehearsal_answers(a, extra_args=["--lr", "0.01", "--no-such", "1", "--help"])
    rows = {n.setting: n for n in notes if n.label != "argument"}
    assert rows["launch.num_processes"].short() == "processes 8 (ran 2)"
    assert rows["launch.dynamo_backend"].short() == "compile inductor (ran off)"
    assert rows["wrapping.layer_classes"].short() == "wrap classes LlamaDecoderLayer (ran GPTBlock)"
    assert "precision.mixed_precision" not in rows and used["precision.mixed_precision"] == "bf16"
    # argv tokens, each separate; the bundled script's own options kept, the rest dropped as rows
    assert args == ["--clip", "1.0", "--steps", "3000", "--seq-len=16", "--lr", "0.01"]
    dropped = [n.short() for n in notes if n.label == "argument"]
    assert dropped == ["argument --no-such 1 (dropped)", "argument --help (dropped)"]
    # the user's own script: replaced, and its arguments with it
    own = a.replace({"launch.script": "my_train.py"})
    used, notes, args = rehearsal_answers(own, extra_args=["--steps", "7"])
    shorts = [n.short() for n in notes]
    assert "script my_train.py (ran none)" in shorts
    assert "script arguments --steps 3000 --seq-len=16 (ran none)" in shorts
    assert args[-2:] == ["--steps", "7"] and "3000" not in args


def test_mixed_precision_that_cannot_run_on_cpu_is_a_not_rehearsed_row():
    from wizard.run.rehearse import rehearsal_answers

    used, notes, _ = rehearsal_answers(_preset("zero2").replace({"precision.mixed_precision": "fp16"}))
    row = next(n for n in notes if n.setting == "precision.mixed_precision")
    assert row.short() == "precision fp16 (ran fp32)" and used["precision.mixed_precision"] == "no"
    for preset, mp in (("zero2", "bf16"), ("fsdp2-full-shard-bf16", "bf16"), ("fsdp2-full-shard-bf16", "fp16")):
        used, notes, _ = rehearsal_answers(_preset(preset).replace({"precision.mixed_precision": mp}))
        assert used["precision.mixed_precision"] == mp  # measured to run on CPU: rehearsed for real
        assert not [n for n in notes if n.setting == "precision.mixed_precision"]


def test_fp8_rehearses_what_it_runs_outside_the_fp8_layers_and_says_why_the_rest_is_not():
    """fp8 keeps bf16 for everything but the fp8 layers' matrix multiplies (FSDP's policy, DeepSpeed's bf16
    block), which run on CPU: rehearsed in bf16, one row saying what is not rehearsed and why; the backend and its
    options go quietly (nothing of them is written without fp8), so no answer finding follows from the swap."""
    from wizard.core.answers.rules import check_answers
    from wizard.core.catalog import SETTING_BY_ID
    from wizard.run.rehearse import rehearsal_answers

    for preset, changes in (("zero2", {"precision.fp8_backend": "msamp", "precision.fp8_opt_level": "O1"}),
                            ("fsdp2-full-shard-bf16", {"precision.fp8_backend": "te", "precision.fp8_margin": 2})):
        used, notes, _ = rehearsal_answers(_preset(preset).replace({"precision.mixed_precision": "fp8", **changes}))
        rows = [n for n in notes if n.setting.startswith("precision.")]
        assert [n.short() for n in rows] == ["precision fp8 (ran bf16)"], rows
        assert "fp8 matrix multiplies are not rehearsed" in rows[0].why and "torchao" in rows[0].why
        assert used["precision.mixed_precision"] == "bf16" and all(used[k] == SETTING_BY_ID[k].default
                                                                    for k in changes)
        assert not [f.rule for f in check_answers(used) if f.rule.startswith("fp8")]


def test_offloaded_bf16_states_with_an_optimizer_block_rehearse_with_fp32_moments():
    """The bundled script cannot use the JSON's optimizer block; accelerate's CPU Adam swap keeps fp32 moments,
    which DeepSpeed refuses next to bf16 optimizer states: rehearsed as bf16 master weights, a row says so."""
    from wizard.run.rehearse import rehearsal_answers

    asked = _preset("zero3-cpu-offload").replace({
        "precision.ds_bf16_master_weights": "bf16_with_states",
        "deepspeed.extra": {"optimizer": {"type": "AdamW", "params": {"lr": 1e-4}}}})
    used, notes, _ = rehearsal_answers(asked)
    row = next(n for n in notes if n.setting == "precision.ds_bf16_master_weights")
    assert row.short() == "master weights bf16_with_states (ran bf16)"
    assert used["precision.ds_bf16_master_weights"] == "bf16"
    kept, notes, _ = rehearsal_answers(asked.replace({"deepspeed.extra": {}, "offload.optimizer": "none"}))
    assert kept["precision.ds_bf16_master_weights"] == "bf16_with_states"
    assert not [n for n in notes if n.setting == "precision.ds_bf16_master_weights"]


def test_checklist_rows_for_a_rehearsal_never_over_claim():
    from wizard.run.checklist import NOT_REHEARSED, verdict

    eff = parse_log(load("rec_zero2_rehearsal.log")).effective_setup  # ran fp32, 2 ranks
    adjusted = {"distributed_type": "DEEPSPEED", "num_processes": 2, "mixed_precision": "no",
                "deepspeed_config": {"zero_stage": 2}}
    nr = [{"setting": "precision.mixed_precision", "name": "precision", "asked": "fp16", "ran": "fp32",
           "why": "fp16 does not run on CPU here", "short": "precision fp16 (ran fp32)"},
          {"setting": "launch.num_processes", "name": "processes", "asked": "8", "ran": "2", "why": "two on CPU",
           "short": "processes 8 (ran 2)"}]
    items = compare(eff, expected_from_config(adjusted), not_rehearsed=nr)
    labels = {i.label: i.status for i in items}
    assert labels["Mixed precision no (rehearsed; config: fp16)"] == OK
    assert labels["World size 2 (rehearsed; config: 8)"] == OK
    assert labels["Not rehearsed: precision fp16 (ran fp32)"] == NOT_REHEARSED
    assert "Mixed precision no" not in labels  # never a bare claim about a setting that was changed
    text = verdict(items)
    assert text.startswith("took effect: ") and ("settings; not rehearsed: precision fp16 (ran fp32), "
                                                 "processes 8 (ran 2)") in text
    # the rows that checked the rehearsal's value are not counted as the config's settings taking effect (issue 21,
    # item 13): only the rows about settings the rehearsal ran as configured are
    rehearsed = [i for i in items if i.status == OK and "(rehearsed; config:" in i.label]
    as_configured = [i for i in items if i.status == OK and i not in rehearsed]
    assert len(rehearsed) == 2
    assert text.startswith(f"took effect: {len(as_configured)} setting"), (text, [i.label for i in items])
    assert all(i.rehearsed for i in rehearsed) and not any(i.rehearsed for i in as_configured)
    assert all(c["rehearsed"] for c in (i.to_dict() for i in rehearsed))  # summary.json says so too
    # no effective setup: say why, and still list what was not rehearsed
    items = compare(None, expected_from_config(adjusted), not_rehearsed=nr,
                    unknown_why="the run was stopped before the script reported its setup")
    assert items[0].label == "Effective setup unknown" and "stopped before" in items[0].detail
    assert verdict(items).startswith("effective setup unknown (the run was stopped before the script reported")


def test_end_text_after_a_stop():
    from wizard.run.launcher import end_text

    stop = {"requested": True, "reason": "stopped from the wizard (ctrl+c)", "signals_sent": ["SIGINT"],
            "after_step": 5, "total_steps": 40}
    assert end_text({"status": "stopped", "exit_code": 1, "stop": stop}) == \
        "stopped by you (SIGINT) after step 5 of 40"
    stop.update(after_step=None, reason="SIGINT received by fsdpds-wizard", signals_sent=["SIGINT", "SIGTERM"])
    assert end_text({"status": "stopped", "exit_code": 1, "stop": stop}) == \
        "stopped by you (SIGINT/SIGTERM) before the first step"
    assert end_text({"status": "failed", "exit_code": 3}) == "failed (exit 3)"


def test_plan_passes_script_arguments_as_separate_tokens(tmp_path):
    from wizard.run.plan import PlanError, plan_launch

    a = _preset("zero2").replace({"launch.script_args": ["--steps", "3000"]})
    plan = plan_launch(a, tmp_path, rehearse=True, script_args=["--seq-len", "16"])
    argv = plan.spec.argv
    i = argv.index(plan.script)
    assert argv[i + 1:][-4:] == ["--steps", "3000", "--seq-len", "16"]
    assert plan.spec.summary_extra["not_rehearsed"] and plan.spec.not_rehearsed
    with pytest.raises(PlanError, match="list of separate arguments"):
        plan_launch(a, tmp_path, rehearse=False, script_args="--steps 3000")


def test_a_trainer_loop_is_rehearsed_through_the_trainer_unless_the_layout_splits_the_model():
    from wizard.run.rehearse import rehearsal_answers

    asked = _preset("zero3-cpu-offload").replace({"launch.training_loop": "trainer"})
    used, notes, _ = rehearsal_answers(asked)
    assert used["launch.training_loop"] == "trainer"  # tests/unit/test_rehearse_trainer.py: the Trainer script
    assert not [n for n in notes if n.setting == "launch.training_loop"]
    used, notes, _ = rehearsal_answers(asked.replace({"parallelism.sp_size": 2}))
    assert used["launch.training_loop"] == "accelerate"
    [row] = [n for n in notes if n.setting == "launch.training_loop"]
    assert row.name == "training loop" and row.asked == "trainer" and row.ran == "accelerate"
    assert not [n for n in rehearsal_answers(_preset("zero3-cpu-offload"))[1] if n.setting == "launch.training_loop"]
    assert row.name == "training loop" and row.asked == "trainer" and row.ran == "accelerate"
    assert not [n for n in rehearsal_answers(_preset("zero3-cpu-offload"))[1] if n.setting == "launch.training_loop"]
