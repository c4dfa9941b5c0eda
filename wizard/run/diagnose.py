"""Known failures of FSDP / DeepSpeed runs, recognised from the output, each with its fix.

:func:`diagnose` reads the lines the monitor kept (error-looking lines and the tail), the exit code and
the run's end record, and returns :class:`Diagnosis` items, most specific first. Recognised:

* ``oom``: out of memory on the accelerator or the host (including a rank killed by SIGKILL, which on
  Linux is usually the kernel's OOM killer);
* ``collective-timeout``: NCCL / gloo collective timeouts and watchdog aborts;
* ``port-taken``: the main process could not listen on its port (another program held it);
* ``wrap-class-not-found``: FSDP's transformer wrap names a class the model does not have;
* ``tp-transformers-version``: FSDP2 + tensor parallelism with a transformers that lacks ``ReplicateParallel``;
* ``trainer-mismatch``: the Hugging Face Trainer refused concrete DeepSpeed values that differ from its arguments;
* ``batch-size-assertion``: DeepSpeed's batch identity ``train_batch_size = micro * gas * world``,
  including the CPU case where accelerate counts one process while DeepSpeed counts several;
* ``dead-rank``: a rank exited (or was killed) and the launcher stopped the others;
* ``teardown-abort``: every step finished but a rank aborted while the interpreter shut down;
* ``exception``: otherwise, the first Python exception a rank raised.
"""
from __future__ import annotations

import re
import signal
from collections.abc import Iterable
from dataclasses import asdict, dataclass, field

from ..core.i18n import said

_OOM = re.compile(r"CUDA out of memory|OutOfMemoryError|HIP out of memory|XPU out of memory|"
                  r"DefaultCPUAllocator: can't allocate memory|std::bad_alloc|Cannot allocate memory|"
                  r"MemoryError|out of memory", re.IGNORECASE)
_TIMEOUT = re.compile(r"Watchdog caught collective operation timeout|collective operation timeout|"
                      r"NCCL.{0,80}[Tt]ime(?:d ?)?out|ProcessGroupNCCL.{0,120}[Tt]imeout|"
                      r"DistBackendError.{0,200}[Tt]ime(?:d ?)?out|gloo.{0,80}[Tt]imed? ?out|"
                      r"Timed out (?:waiting|after)|[Tt]imeout after \d+")
_PORT_TAKEN = re.compile(r"EADDRINUSE|[Aa]ddress already in use|on port `?\d+`?, but another process is utilizing it")
_WRAP = re.compile(r"Could not find the transformer layer class ([\w.]+) in the model")
_BATCH = re.compile(r"train_batch_size is not equal to micro_batch_per_gpu \* gradient_acc_step \* world_size "
                    r"(\d+) != (\d+) \* (\d+) \* (\d+)")
_TP_REPLICATE = re.compile(r"cannot import name 'ReplicateParallel' from 'transformers\.integrations\.tensor_parallel'")
_TRAINER_MISMATCH = re.compile(r"DeepSpeed config values that mismatch TrainingArguments values")
_TRAINER_PAIR = re.compile(r"- ds (\S+)=(\S+) vs hf (\S+)=(\S+)")
_FAILED_RANK = re.compile(r"failed \(exitcode: (-?\d+)\) local_rank: (\d+) \(pid: (\d+)\)")
_ROOT_RANK = re.compile(r"rank\s*:\s*(\d+) \(local_rank: (\d+)\)")
_ROOT_EXIT = re.compile(r"exitcode\s*:\s*(-?\d+)")
_SIGNAL = re.compile(r"Signal (\d+) \((SIG\w+)\) received by PID (\d+)")
_EXC = re.compile(r"^(?:\[rank(\d+)\]:\s*)?"
                  r"((?:[A-Za-z_][\w]*\.)*[A-Za-z_]\w*(?:Error|Exception|Interrupt|Exit)):\s?(.*)$")
_TEARDOWN = "terminate called without an active exception"
_DEAD_PEER = re.compile(r"[Cc]onnection (?:reset|closed) by peer|Broken pipe|ECONNRESET|peer.{0,40}(?:closed|died)")


@dataclass
class Diagnosis:
    code: str
    title: str
    detail: str
    fix: str
    evidence: list[str] = field(default_factory=list)
    rank: int | None = None

    def to_dict(self) -> dict:
        return asdict(self)

    def render(self, lang: str | None = None) -> str:
        """The title, why, fix and the line it was seen in; English unless ``lang`` names another language (then
        the title, why and fix translated, and the run screen's words for why/fix/seen)."""
        if lang is None:
            text = f"{self.title}\n  why: {self.detail}\n  fix: {self.fix}"
            if self.evidence:
                text += "\n  seen: " + self.evidence[0][:300]
            return text
        from ..core import localized

        def label(key: str, rest: str) -> str:
            return "\n  " + localized.labelled(localized.screen("run", key, lang), rest)

        text = localized.said(self.title, lang) + label("diagnosis_why", localized.said(self.detail, lang)) \
            + label("diagnosis_fix", localized.said(self.fix, lang))
        if self.evidence:
            text += label("diagnosis_seen", self.evidence[0][:300])
        return text


def _signal_name(code: int) -> str:
    try:
        return signal.Signals(code).name
    except ValueError:
        return f"signal {code}"


def _first(pattern: re.Pattern[str], lines: Iterable[str]) -> tuple[re.Match[str] | None, str]:
    """The first match and its line; ``(None, "")`` when no line matches."""
    for line in lines:
        m = pattern.search(line)
        if m:
            return m, line
    return None, ""


def diagnose(lines: Iterable[str], exit_code: int | None, *, end_record: dict | None = None,
             expected_world: int | None = None, stopped: bool = False) -> list[Diagnosis]:
    """Recognise known failures. ``lines``: error-looking lines then the tail (duplicates are fine)."""
    lines = list(dict.fromkeys(lines))
    out: list[Diagnosis] = []
    if exit_code == 0 and not any(_TEARDOWN in ln for ln in lines):
        return out

    m, line = _first(_PORT_TAKEN, lines)
    if m:
        out.append(Diagnosis(
            "port-taken", said("The main process port was taken"),
            said("the launcher on the main machine could not listen on main_process_port: another program there held "
                 "it (another run, a test suite, a service), perhaps only between the port's choice and its use. "
                 "Nothing was trained."),
            said("launch again: a rehearsal picks another port each time; otherwise set launch.main_process_port to a "
                 "port nothing else uses (on one machine `accelerate launch --main_process_port 0` lets it pick one)"),
            [line]))

    m, line = _first(_WRAP, lines)
    if m:
        cls = m.group(1)
        out.append(Diagnosis(
            "wrap-class-not-found", said(f"FSDP wrap class '{cls}' is not in the model"),
            said(f"fsdp_transformer_layer_cls_to_wrap names '{cls}', but accelerate found no module of that class "
                 "when prepare() wrapped the model, so it stopped before training."),
            said("set wrapping.layer_classes in answers.yaml to the model's own layer class (print "
                 "type(layer).__name__ for one decoder layer, e.g. LlamaDecoderLayer, Qwen2DecoderLayer, GPT2Block), "
                 "or use wrapping.policy: size"), [line]))

    m, line = _first(_TP_REPLICATE, lines)
    if m:
        out.append(Diagnosis(
            "tp-transformers-version", said("FSDP2 with tensor parallelism needs transformers 4.52 to 5.0"),
            said("accelerate's FSDP2 + TP preparation imports ReplicateParallel from transformers' tensor_parallel "
                 "module, which transformers has only from 4.52 to 5.0: the model loaded tensor-parallel, then "
                 "prepare() stopped before training (rule parallelism-fsdp2-tp-transformers)."),
            said("install transformers 5.0.x next to this accelerate (pip install 'transformers==5.0.*'), or set "
                 "parallelism_config_tp_size to 1 and shard over dp_shard alone"), [line]))

    m, line = _first(_TRAINER_MISMATCH, lines)
    if m:
        pairs = list(dict.fromkeys(p.group(0).strip() for ln in lines for p in [_TRAINER_PAIR.search(ln)] if p))
        named = "; ".join(said(f"{p.group(1)} {p.group(2)} in the JSON, {p.group(3)} {p.group(4)} in "
                               "TrainingArguments") for p in (_TRAINER_PAIR.search(x) for x in pairs) if p)
        out.append(Diagnosis(
            "trainer-mismatch",
            said("The Hugging Face Trainer refused DeepSpeed values that differ from its arguments"),
            said("the Trainer compares every concrete value of the DeepSpeed JSON it fills from TrainingArguments "
                 "(micro batch, accumulation, clipping, precision, optimizer and scheduler numbers) and stops before "
                 "training when one differs" + (f": {named}" if named else "")),
            said("make each pair equal: write \"auto\" for the JSON key, or change the argument; before a run, "
                 "fsdpds-wizard check ds_config.json --training-args ARGS (or check TRAIN.yaml for LLaMA-Factory / "
                 "axolotl) names every pair"), [line, *pairs]))

    m, line = _first(_BATCH, lines)
    if m:
        total, micro, gas, world = (int(g) for g in m.groups())
        detail = said(f"DeepSpeed checks train_batch_size = micro-batch x gradient accumulation x world size; "
                      f"here {total} != {micro} x {gas} x {world}.")
        if expected_world and world != expected_world or (total == micro * gas and world > 1):
            detail = said(f"{detail} The numbers differ by exactly the world size: accelerate computed the batch for "
                          "fewer processes than DeepSpeed runs, which happens on a machine without CUDA when the "
                          "script creates Accelerator() without a gloo backend.")
            fix = said("on CPU create the Accelerator with kwargs_handlers=[InitProcessGroupKwargs(backend='gloo')]; "
                       "otherwise leave train_batch_size and train_micro_batch_size_per_gpu as 'auto'")
        else:
            fix = said("leave train_batch_size / train_micro_batch_size_per_gpu as 'auto' (training.micro_batch_size: "
                       "auto) so accelerate fills them from the DataLoader, or make the DataLoader's batch size equal "
                       "the micro-batch size in the DeepSpeed JSON")
        out.append(Diagnosis("batch-size-assertion", said("DeepSpeed batch-size assertion"), detail, fix, [line]))

    m, line = _first(_OOM, lines)
    if m:
        gpu = any(w in line for w in ("CUDA", "GPU", "HIP", "XPU", "NPU"))
        host = not gpu and any(w in line for w in ("CPU", "can't allocate", "bad_alloc", "Cannot allocate",
                                                   "MemoryError"))
        if host:
            title, fix = (said("Out of host memory (RAM)"),
                          said("lower CPU offload (offload.params / offload.optimizer: none), load weights on one rank "
                               "(loading.ram_efficient: true), use fewer processes per machine, or add RAM/swap"))
        else:
            title, fix = (said("Out of GPU memory"),
                          said("shard more (sharding.strategy: full = FULL_SHARD / ZeRO-3), lower the micro-batch size "
                               "and raise gradient accumulation, turn on training.activation_checkpointing, use bf16 "
                               "mixed precision, or offload to CPU"))
        out.append(Diagnosis("oom", title, said("a rank ran out of memory; the launcher then stopped the run."), fix,
                             [line]))

    m, line = _first(_TIMEOUT, lines)
    if m:
        out.append(Diagnosis(
            "collective-timeout", said("Collective operation timed out (NCCL / gloo)"),
            said("a collective (all-reduce, all-gather, broadcast) waited longer than the process-group timeout. "
                 "Usually one rank is stuck, dead, or doing different work (uneven data, a rank-0-only code path "
                 "calling a collective, an evaluation on one rank only), or the network between machines is wrong."),
            said("look for the first rank that failed in the log; make every rank run the same collectives; run with "
                 "NCCL_DEBUG=INFO (and NCCL_SOCKET_IFNAME set to the right interface across machines); raise the "
                 "timeout with InitProcessGroupKwargs(timeout=timedelta(minutes=...)) only for slow but healthy "
                 "steps"),
            [line]))

    dead = _dead_rank(lines, exit_code)
    if dead is not None and not stopped:
        rank, code, evidence = dead
        already_explained = {d.code for d in out} & {"oom", "wrap-class-not-found", "batch-size-assertion",
                                                     "tp-transformers-version"}
        if code is not None and code < 0 and -code == signal.SIGKILL and "oom" not in already_explained:
            out.append(Diagnosis(
                "oom", said(f"Rank {rank} was killed (SIGKILL)"),
                said("a rank received SIGKILL without a Python error: on Linux this is most often the kernel's OOM "
                     "killer reclaiming host memory (check `dmesg` or `journalctl -k` for 'Out of memory: Killed "
                     "process')."),
                said("reduce host-memory use: CPU offload, number of processes per machine, DataLoader workers, "
                     "or load the model on one rank (loading.ram_efficient: true)"), evidence, rank))
        exc = _first_exception(lines, rank)
        if exc is not None:
            evidence = [exc[0]] + evidence
        out.append(Diagnosis(
            "dead-rank", _dead_rank_title(rank, code, exc[1][:160] if exc is not None else None),
            said("torchrun watches every rank; when one fails it terminates the rest (they then report SIGTERM), so "
                 "the first failure is the one to read" + (": " + ", ".join(sorted(already_explained))
                                                           if already_explained else ".")),
            said("read that rank's first error above; fix it and launch again (rehearse with --rehearse --launch "
                 "first)"),
            evidence, rank))

    if any(_TEARDOWN in ln for ln in lines):
        finished = end_record is not None and end_record.get("status") == "completed"
        if finished:
            out.append(Diagnosis(
                "teardown-abort", said("A rank aborted while shutting down, after training finished"),
                said("every step completed; a C++ thread was still running when the interpreter exited "
                     "('terminate called without an active exception'), a known gloo/CPU teardown race."),
                said("call accelerator.end_training() (destroys the process group) before the script returns; "
                     "the results of this run are complete"), [ln for ln in lines if _TEARDOWN in ln][:1]))

    if not out and exit_code not in (0, None) and not stopped:
        m, line = _first(_EXC, lines)
        if m:
            exc_rank = int(m.group(1)) if m.group(1) else None
            out.append(Diagnosis("exception", f"{m.group(2)}: {m.group(3)[:200]}",
                                 said("the training script raised this exception" +
                                      (f" on rank {exc_rank}" if exc_rank is not None else "") + "."),
                                 said("see the traceback in the run's log.txt"), [line], exc_rank))
        elif any(_DEAD_PEER.search(ln) for ln in lines):
            _, line = _first(_DEAD_PEER, lines)
            out.append(Diagnosis("dead-rank", said("A peer rank disappeared"),
                                 said("a rank lost its connection to another rank, which usually means that rank "
                                      "died."),
                                 said("look for the first error of the other ranks in log.txt"), [line]))
    return out


def _dead_rank_title(rank: int, code: int | None, exc: str | None) -> str:
    """``Rank 1 exited with code 1 (ValueError: ...); the launcher stopped the other ranks``: each way a rank ends its
    own sentence, so a translation says it in its words."""
    sig = _signal_name(-code) if code is not None and code < 0 else ""
    if code is not None and code < 0:
        return said(f"Rank {rank} was killed by {sig} ({exc}); the launcher stopped the other ranks" if exc is not None
                    else f"Rank {rank} was killed by {sig}; the launcher stopped the other ranks")
    if code is not None:
        return said(f"Rank {rank} exited with code {code} ({exc}); the launcher stopped the other ranks"
                    if exc is not None else
                    f"Rank {rank} exited with code {code}; the launcher stopped the other ranks")
    return said(f"Rank {rank} died ({exc}); the launcher stopped the other ranks" if exc is not None
                else f"Rank {rank} died; the launcher stopped the other ranks")


_LAUNCHER_EXC = ("ChildFailedError", "SignalException", "KeyboardInterrupt", "SystemExit")


def _first_exception(lines: list[str], rank: int | None) -> tuple[str, str] | None:
    """(line, "Type: message") of the first exception ``rank`` raised (or an untagged one)."""
    fallback = None
    for ln in lines:
        m = _EXC.match(ln.strip())
        if not m or any(name in m.group(2) for name in _LAUNCHER_EXC):
            continue
        found = (ln, f"{m.group(2).rsplit('.', 1)[-1]}: {m.group(3)}".rstrip(": "))
        if m.group(1) is not None:
            if rank is not None and int(m.group(1)) == rank:
                return found
            continue  # another rank's error: usually the consequence ("connection reset by peer")
        if fallback is None:
            fallback = found
    return fallback


def _dead_rank(lines: list[str], exit_code: int | None) -> tuple[int, int | None, list[str]] | None:
    """torchrun's report of the first failed rank: (rank, exit code, evidence lines)."""
    root_idx = None
    for i, ln in enumerate(lines):
        if "Root Cause" in ln:
            root_idx = i
    if root_idx is not None:
        rank: int | None = None
        code: int | None = None
        evidence = []
        for ln in lines[root_idx:root_idx + 12]:
            m = _ROOT_RANK.search(ln)
            if m and rank is None:
                rank = int(m.group(1))
                evidence.append(ln.strip())
            m = _ROOT_EXIT.search(ln)
            if m and code is None:
                code = int(m.group(1))
                evidence.append(ln.strip())
            m = _SIGNAL.search(ln)
            if m:
                evidence.append(ln.strip())
        if rank is not None:
            return rank, code, evidence
    m, line = _first(_FAILED_RANK, lines)
    if m:
        return int(m.group(2)), int(m.group(1)), [line]
    return None
