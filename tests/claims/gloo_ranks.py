"""Running a claim demonstration in fresh processes: one or two gloo ranks on this CPU.

Every support script (tests/claims/_*.py, precision_runs/) and inline demonstration prints one ``RESULT {json}``
line; the helpers here give them a rendezvous (a free port, the torchrun-style variables) and read that line back.
Fresh processes keep accelerate's and torch.distributed's global state out of the test process.
"""
from __future__ import annotations

import json
import os
import socket
import subprocess
import sys
import textwrap
from collections.abc import Iterable
from pathlib import Path

EXTENSIONS = (os.environ.get("TORCH_EXTENSIONS_DIR")
              or str(Path.home() / ".cache" / "fsdpds-wizard" / "torch_extensions"))
"""Where DeepSpeed's CPU ops are built and cached (the e2e tests and CI use the same folder)."""


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def result_of(output: str, returncode: int, context: str = "") -> dict:
    """The last ``RESULT {json}`` line of a process's output (asserting it ran cleanly and printed one)."""
    lines = [line for line in output.splitlines() if line.startswith("RESULT ")]
    assert returncode == 0 and lines, (output[-3000:], context[-6000:])
    return json.loads(lines[-1][len("RESULT "):])


def rank_env(rank: int, world: int, port: int, drop: Iterable[str] = ("FSDP_",), **extra: str) -> dict[str, str]:
    """This process's environment without the variables starting with ``drop``, plus rank ``rank`` of ``world``
    meeting at 127.0.0.1:``port``, accelerate on the CPU, one thread, and ``extra``."""
    env = {k: v for k, v in os.environ.items() if not k.startswith(tuple(drop))}
    env.update(MASTER_ADDR="127.0.0.1", MASTER_PORT=str(port), RANK=str(rank), WORLD_SIZE=str(world),
               LOCAL_RANK=str(rank), ACCELERATE_TORCH_DEVICE="cpu", OMP_NUM_THREADS="1", **extra)
    return env


def run_ranks(script: Path, *args: str, world: int, timeout: float = 180, drop: Iterable[str] = ("FSDP_",),
              **extra: str) -> dict[int, dict]:
    """Run ``script`` as ``world`` gloo ranks; rank -> its RESULT."""
    port = free_port()
    procs = [subprocess.Popen([sys.executable, str(script), *args], env=rank_env(rank, world, port, drop, **extra),
                              stdout=subprocess.PIPE, stderr=subprocess.STDOUT, text=True) for rank in range(world)]
    results = {}
    for rank, p in enumerate(procs):
        text, _ = p.communicate(timeout=timeout)
        results[rank] = result_of(text, p.returncode)
    return results


def one_rank(code: str, timeout: float = 600) -> subprocess.CompletedProcess:
    """Run ``code`` as rank 0 of a one-process gloo world (DeepSpeed on CPU, its ops cached like the e2e tests')."""
    env = {**os.environ, "MASTER_ADDR": "127.0.0.1", "MASTER_PORT": str(free_port()), "RANK": "0", "WORLD_SIZE": "1",
           "LOCAL_RANK": "0", "LOCAL_WORLD_SIZE": "1", "CUDA_VISIBLE_DEVICES": "", "DS_ACCELERATOR": "cpu",
           "TORCH_EXTENSIONS_DIR": EXTENSIONS, "OMP_NUM_THREADS": "1"}
    # the code ends without interpreter teardown: gloo's and DeepSpeed's threads can abort it ('terminate called
    # without an active exception', exit -6) after everything was printed; an exception still exits 1
    code = textwrap.dedent(code) + _EXIT
    return subprocess.run([sys.executable, "-c", code], capture_output=True, text=True, timeout=timeout, env=env)


_EXIT = "\nimport os as _os, sys as _sys\n_sys.stdout.flush()\n_sys.stderr.flush()\n_os._exit(0)\n"
