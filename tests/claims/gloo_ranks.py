"""Running a claim demonstration in fresh processes: one or more gloo ranks on this CPU.

Every support script (tests/claims/_*.py, precision_runs/) and inline demonstration prints one ``RESULT {json}``
line; the helpers here give them a rendezvous and read that line back. Fresh processes keep accelerate's and
torch.distributed's global state out of the test process.

No port is ever picked and released for a rank to bind later (another process, or a rank's own connection
attempts, could take it in between: "Gloo connectFullMesh failed ... Connection closed by peer"). Instead:

- a world of one (:func:`one_rank_env`): ``MASTER_PORT=0``, so rank 0's TCPStore binds a port the kernel gives it
  and nobody else needs to know it;
- a world of several (:func:`agent_store`): this process hosts the TCPStore on port 0, listening before any rank
  starts, and the ranks only connect to it (``TORCHELASTIC_USE_AGENT_STORE=True``, what torchrun's agent does).
"""
from __future__ import annotations

import json
import os
import subprocess
import sys
import textwrap
from collections.abc import Iterable, Iterator
from contextlib import contextmanager
from datetime import timedelta
from pathlib import Path

from helpers import EXTENSIONS

STORE_TIMEOUT = timedelta(minutes=10)
"""How long a rank waits on the store (a loaded machine starts ranks slowly; the test's own timeout ends it first)."""


@contextmanager
def agent_store() -> Iterator[int]:
    """Host the rendezvous store of a multi-rank world here; yields its port (bound and listening already).

    The ranks reach it with :func:`rank_env`; it closes when the block ends (after the ranks have exited)."""
    from torch.distributed import TCPStore

    store = TCPStore("127.0.0.1", 0, None, True, STORE_TIMEOUT, wait_for_workers=False)
    try:
        yield store.port
    finally:
        del store


def one_rank_env(base: dict[str, str] | None = None, **extra: str | None) -> dict[str, str]:
    """``base`` (default: this process's environment) plus rank 0 of a world of one on 127.0.0.1, port 0, then
    ``extra`` (a None value removes the variable)."""
    env = dict(os.environ if base is None else base)
    for key in ("TORCHELASTIC_USE_AGENT_STORE", "TORCHELASTIC_RESTART_COUNT"):
        env.pop(key, None)
    env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT="0", RANK="0", WORLD_SIZE="1", LOCAL_RANK="0",
               LOCAL_WORLD_SIZE="1")
    for key, value in extra.items():
        if value is None:
            env.pop(key, None)
        else:
            env[key] = value
    return env


def result_of(output: str, returncode: int, context: str = "") -> dict:
    """The last ``RESULT {json}`` line of a process's output (asserting it ran cleanly and printed one)."""
    lines = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert returncode == 0 and lines, (output[-3000:], context[-6000:])
    return json.loads(lines[-1][len("RESULT "):])


def rank_env(rank: int, world: int, port: int, drop: Iterable[str] = ("FSDP_",), **extra: str) -> dict[str, str]:
    """This process's environment without the variables starting with ``drop``, plus rank ``rank`` of ``world``
    connecting to the store at 127.0.0.1:``port`` (hosted by :func:`agent_store`), accelerate on the CPU, one
    thread, and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(tuple(drop))}
    env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world),
               LOCAL_RANK=str(rank), LOCAL_WORLD_SIZE=str(world), TORCHELASTIC_USE_AGENT_STORE="True",
               TORCHELASTIC_RESTART_COUNT="0", ACCELERATE_TORCH_DEVICE="cpu", OMP_NUM_THREADS="1", **extra)
    return env


def run_ranks(script: Path, *args: str, world: int, timeout: float = 180, drop: Iterable[str] = ("FSDP_",),
              **extra: str) -> dict[int, dict]:
    """Run ``script`` as ``world`` gloo ranks; rank -> its RESULT."""
    with agent_store() as port:
        procs = [subprocess.Popen([sys.executable, str(script), *args],
                                  env=rank_env(rank, world, port, drop, **extra),
                                  stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for rank in range(world)]
        outputs = {}
        try:
            for rank, p in enumerate(procs):
                outputs[rank] = (p.communicate(timeout=timeout)[0], p.returncode)
        finally:
            for p in procs:  # a rank that timed out, or outlived a failed one, never outlives the test
                if p.poll() is None:
                    p.kill()
                    p.communicate()
    return {rank: result_of(text, rc) for rank, (text, rc) in outputs.items()}


def one_rank(code: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``code`` as rank 0 of a one-process gloo world (DeepSpeed on CPU, its ops cached like the e2e tests')."""
    env = one_rank_env(CUDA_VISIBLE_DEVICES="", DS_ACCELERATOR="cpu", TORCH_EXTENSIONS_DIR=EXTENSIONS,
                       OMP_NUM_THREADS="1")
    # the code ends without interpreter teardown: gloo's and DeepSpeed's threads can abort it ('terminate called
    # without an active exception', exit -6) after everything was printed; an exception still exits 1
    code = textwrap.dedent(code) + _EXIT
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


PRELUDE = """\
import json, os, sys, warnings
import torch
from accelerate import Accelerator
from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs
GLOO = [InitProcessGroupKwargs(backend="gloo")]
def loader():
    return torch.utils.data.DataLoader(torch.utils.data.TensorDataset(torch.randn(8, 4)), batch_size=2)
def report(**kw):
    print("RESULT " + json.dumps(kw), flush=True)
"""


def run_ds(body: str, tmp_path: Path, timeout: int = 240) -> dict:
    """Run PRELUDE + body in one gloo 'rank' with accelerate's DeepSpeed switched on; return what it reported."""
    env = one_rank_env({k: v for k, v in os.environ.items() if not k.startswith(("ACCELERATE_", "FSDP_"))},
                       ACCELERATE_USE_DEEPSPEED="true", TORCH_EXTENSIONS_DIR=EXTENSIONS, OMP_NUM_THREADS="1",
                       HF_HUB_OFFLINE="1", TRANSFORMERS_OFFLINE="1", TOKENIZERS_PARALLELISM="false")
    script = tmp_path / "demo.py"
    script.write_text(PRELUDE + textwrap.dedent(body), encoding="utf-8")
    proc = subprocess.run([sys.executable, str(script)], cwd=tmp_path, env=env, capture_output=True, text=True,
                          timeout=timeout)
    out = result_of(proc.stdout, proc.returncode, proc.stderr)
    out["_stderr"] = proc.stderr
    return out


_EXIT = "\nimport os as _os, sys as _sys\n_sys.stdout.flush()\n_sys.stderr.flush()\n_os._exit(0)\n"
