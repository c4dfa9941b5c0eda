"""A rehearsal's two processes meet without a port chosen in advance (issue 19).

The rehearsal asks torchrun (run by ``accelerate launch``) for its standalone rendezvous: the launcher binds its
store to a port the kernel gives it before any rank starts. The ranks here run a probe instead of the bundled
script, so the test takes seconds: they meet over gloo and report the port and the rendezvous they were given.
"""
from __future__ import annotations

import json
import subprocess

import pytest
import yaml

from wizard.core.answers import load_answers_file
from wizard.core.presets import preset_paths
from wizard.run.plan import plan_launch

pytestmark = pytest.mark.e2e

PROBE = """\
import json, os, sys
import torch
import torch.distributed as dist
dist.init_process_group("gloo")
total = torch.tensor([dist.get_rank() + 1])
dist.all_reduce(total)
with open(os.path.join(sys.argv[1], f"rank{dist.get_rank()}.json"), "w") as f:
    json.dump({"rank": dist.get_rank(), "port": int(os.environ["MASTER_PORT"]),
               "run_id": os.environ.get("TORCHELASTIC_RUN_ID"), "sum": int(total)}, f)
dist.destroy_process_group()
"""


@pytest.mark.parametrize("preset", ["zero2", "fsdp2-full-shard-bf16"])
def test_rehearsal_ranks_meet_on_a_port_the_launcher_bound(preset, tmp_path):
    answers, _ = load_answers_file(preset_paths()[preset])
    plan = plan_launch(answers, tmp_path / "out", rehearse=True, cwd=str(tmp_path))
    assert plan.spec.env_overrides["PET_STANDALONE"] == "1"
    probe = tmp_path / "probe.py"
    probe.write_text(PROBE)
    argv = plan.spec.argv
    # the probe instead of the bundled script; the FSDP rehearsal's CPU layer stays in front
    argv = argv[:argv.index(plan.script)] + [str(probe), str(tmp_path)]
    proc = subprocess.run(argv, env=plan.spec.env, cwd=plan.spec.cwd, capture_output=True, text=True, timeout=240)
    results = [json.loads(p.read_text()) for p in sorted(tmp_path.glob("rank*.json"))]
    assert proc.returncode == 0 and len(results) == 2, proc.stdout[-3000:] + proc.stderr[-3000:]
    assert sorted(r["rank"] for r in results) == [0, 1] and {r["sum"] for r in results} == {3}
    configured = yaml.safe_load((plan.run_dir.path / "accelerate_config.yaml").read_text())["main_process_port"]
    ports = {r["port"] for r in results}
    # both ranks on the launcher's own store: not the configured port (static rendezvous would use it), and a
    # rendezvous id of its own (static rendezvous runs as "none")
    assert len(ports) == 1 and configured not in ports, (ports, configured)
    assert all(r["run_id"] not in (None, "", "none") for r in results), results
