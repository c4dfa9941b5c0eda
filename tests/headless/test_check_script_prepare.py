"""`check CONFIG --script train.py` / `--trainer accelerate`: a DeepSpeed JSON's optimizer or scheduler block next to
what the script passes to Accelerator.prepare() (issue 21, item 4). accelerate raises at prepare() when the script
passes its own torch optimizer (LR scheduler) and the JSON has the block
(tests/claims/test_ds_options.py::test_an_optimizer_in_the_json_and_in_the_script_raises)."""
from __future__ import annotations

import json
import textwrap

from wizard.cli import main
from wizard.core.script_loop import DUMMY, OWN, infer_loop_from_source

BLOCKS = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 2},
          "optimizer": {"type": "AdamW", "params": {"lr": 1e-4}},
          "scheduler": {"type": "WarmupLR", "params": {"warmup_num_steps": 10}}}
OWN_OPTIMIZER = """
    import torch
    from accelerate import Accelerator
    acc = Accelerator()
    model = torch.nn.Linear(4, 4)
    opt = torch.optim.AdamW(model.parameters(), lr=1e-4)
    model, opt = acc.prepare(model, opt)
"""
OWN_BOTH = """
    import torch
    from torch.optim.lr_scheduler import LambdaLR
    from accelerate import Accelerator
    acc = Accelerator()
    model = torch.nn.Linear(4, 4)
    opt = torch.optim.AdamW(model.parameters())
    model, opt, sched = acc.prepare(model, opt, LambdaLR(opt, lambda s: 1.0))
"""
DUMMIES = """
    from accelerate import Accelerator
    from accelerate.utils import DummyOptim, DummyScheduler
    acc = Accelerator()
    opt = DummyOptim(model.parameters())
    model, opt, sched = acc.prepare(model, opt, DummyScheduler(opt))
"""


def _check(tmp_path, capsys, ds: dict, *flags: str, script: str | None = None) -> tuple[int, list[dict]]:
    path = tmp_path / "ds.json"
    path.write_text(json.dumps(ds))
    args = ["check", str(path), "--format", "json", *flags]
    if script is not None:
        (tmp_path / "train.py").write_text(textwrap.dedent(script))
        args += ["--script", str(tmp_path / "train.py")]
    code = main(args)
    return code, json.loads(capsys.readouterr().out)["findings"]


def _about_blocks(findings: list[dict]) -> list[tuple[str, str, str]]:
    return sorted((f["severity"], f["rule"], f["keys"][0]) for f in findings
                  if f["rule"].startswith("ds-json-optimizer-block"))


def test_a_torch_optimizer_in_the_script_and_an_optimizer_block_is_an_error(tmp_path, capsys):
    code, findings = _check(tmp_path, capsys, BLOCKS, script=OWN_OPTIMIZER)
    assert code == 2
    assert _about_blocks(findings) == [("error", "ds-json-optimizer-block-and-script-optimizer", "optimizer"),
                                       ("warning", "ds-json-optimizer-block-own-loop", "scheduler")]
    error = next(f for f in findings if f["severity"] == "error")
    assert "train.py:7 passes opt (torch.optim.AdamW(...), line 6) to prepare()" in error["message"]
    assert "You cannot specify an optimizer in the config file and in the code at the same time" in error["message"]
    assert "DummyOptim" in error["fix"]


def test_a_torch_scheduler_in_the_script_and_a_scheduler_block_is_an_error_too(tmp_path, capsys):
    code, findings = _check(tmp_path, capsys, BLOCKS, script=OWN_BOTH)
    assert code == 2
    assert _about_blocks(findings) == [("error", "ds-json-optimizer-block-and-script-optimizer", "optimizer"),
                                       ("error", "ds-json-optimizer-block-and-script-optimizer", "scheduler")]
    sched = next(f for f in findings if f["keys"] == ["scheduler"])
    assert "LambdaLR(...)" in sched["message"] and "a scheduler in the config file" in sched["message"]


def test_dummies_in_the_script_or_no_blocks_in_the_json_are_fine(tmp_path, capsys):
    assert _about_blocks(_check(tmp_path, capsys, BLOCKS, script=DUMMIES)[1]) == []
    plain = {k: v for k, v in BLOCKS.items() if k not in ("optimizer", "scheduler")}
    assert _about_blocks(_check(tmp_path, capsys, plain, script=OWN_BOTH)[1]) == []


def test_an_own_loop_without_the_script_is_warned_and_the_trainer_is_not(tmp_path, capsys):
    code, findings = _check(tmp_path, capsys, BLOCKS, "--trainer", "accelerate")
    assert code == 0
    assert _about_blocks(findings) == [("warning", "ds-json-optimizer-block-own-loop", "optimizer"),
                                       ("warning", "ds-json-optimizer-block-own-loop", "scheduler")]
    assert "DummyOptim" in findings[0]["message"] + findings[1]["message"]
    for flags in (("--trainer", "hf"), ()):
        assert _about_blocks(_check(tmp_path, capsys, BLOCKS, *flags)[1]) == []


def test_an_accelerate_config_naming_the_json_is_checked_the_same_way(tmp_path, capsys):
    (tmp_path / "ds.json").write_text(json.dumps(BLOCKS))
    (tmp_path / "accelerate_config.yaml").write_text(
        "compute_environment: LOCAL_MACHINE\ndistributed_type: DEEPSPEED\nnum_machines: 1\nnum_processes: 2\n"
        f"deepspeed_config:\n  deepspeed_config_file: {tmp_path / 'ds.json'}\n  zero3_init_flag: false\n")
    (tmp_path / "train.py").write_text(textwrap.dedent(OWN_OPTIMIZER))
    main(["check", str(tmp_path / "accelerate_config.yaml"), "--script", str(tmp_path / "train.py"),
          "--format", "json"])
    findings = json.loads(capsys.readouterr().out)["findings"]
    assert ("error", "ds-json-optimizer-block-and-script-optimizer", "optimizer") in _about_blocks(findings)


def test_the_script_reader_tells_own_objects_from_dummies():
    src = textwrap.dedent("""
        import torch
        from torch import optim
        import bitsandbytes as bnb
        from transformers import get_cosine_schedule_with_warmup
        from accelerate import Accelerator
        acc = Accelerator()
        opt = bnb.optim.AdamW8bit(params)
        model, opt, dl, sched = acc.prepare(model, opt, dl, get_cosine_schedule_with_warmup(opt, 1, 2))
    """)
    found = infer_loop_from_source(src, "t.py").prepared
    assert (found["optimizer"].kind, found["scheduler"].kind) == (OWN, OWN)
    assert found["optimizer"].evidence == "t.py:9 passes opt (bnb.optim.AdamW8bit(...), line 8) to prepare()"
    dummies = infer_loop_from_source(textwrap.dedent(DUMMIES), "d.py").prepared
    assert (dummies["optimizer"].kind, dummies["scheduler"].kind) == (DUMMY, DUMMY)
    unknown = infer_loop_from_source("from accelerate import Accelerator\na = Accelerator()\na.prepare(m, o)\n")
    assert unknown.loop == "accelerate" and unknown.prepared == {}
