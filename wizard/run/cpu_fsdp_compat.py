"""CPU REHEARSAL COMPATIBILITY LAYER for accelerate FSDP (used only by ``--rehearse``; never for real runs).

Why it exists: accelerate 1.15 switches to ``DistributedType.FSDP`` only when the process would
otherwise be ``MULTI_GPU`` (or another accelerator type). On a machine without CUDA, ``torchrun``
starts the ranks, but ``PartialState._prepare_backend`` finds no accelerator and returns
``DistributedType.NO``: FSDP is silently dropped and every rank trains its own unsynchronised copy.
PyTorch's FSDP1 and FSDP2 themselves work on CPU with gloo.

What it does, and nothing more:

1. wraps ``accelerate.state.PartialState._prepare_backend`` so that, *only* when ``LOCAL_RANK`` is set,
   ``ACCELERATE_USE_FSDP`` is true and CUDA is absent, it answers ``("gloo", MULTI_GPU)``; accelerate
   then takes its ordinary FSDP path (plugin, wrapping, sharding) on the gloo process group;
2. for FSDP1 with ``sync_module_states`` (the default): lets ``FullyShardedDataParallelPlugin`` be built
   without an accelerator device, and skips torch's "module states must be on GPU" check, since the
   broadcast from rank 0 works over gloo on CPU tensors; and builds FSDP2's CPU offload policy without
   pinned memory, which needs an accelerator;
3. FSDP1 FULL_STATE_DICT saving (``save_state``, ``get_state_dict``): keeps ``offload_to_cpu`` off. accelerate
   turns it on with several processes (accelerate/utils/fsdp_utils.py ``save_fsdp_model``); on a CPU-only
   machine the "offloaded" copy is the unsharded parameter itself, which FSDP then frees, and rank 0 dies of
   SIGSEGV while cloning it (measured, torch 2.13.0+cpu). The tensors are on the CPU already, so nothing is lost;
4. relies on ``ACCELERATE_TORCH_DEVICE=cpu`` (set by the rehearsal launcher) so accelerate never
   calls ``torch.cuda.set_device``;
5. sets ``FSDPDS_CPU_FSDP_COMPAT`` so the training script's effective-setup record says the layer
   was active;
6. runs the real training script with ``runpy`` as ``__main__``, with its own arguments.

Usage (the rehearsal builds this argv; no shell involved)::

    accelerate launch --config_file CFG cpu_fsdp_compat.py SCRIPT.py [SCRIPT ARGS...]

The file is standalone (stdlib + accelerate) because accelerate launch runs it by path.

Mixed precision through this layer (measured, torch 2.13.0+cpu, accelerate 1.15.0, 2 ranks on gloo): FSDP1
and FSDP2 with ``mixed_precision: bf16`` and ``fp16`` train and report fp32 parameters with bfloat16/float16
compute and reduce dtypes; nothing here is specific to them, so the rehearsal keeps them (see
:data:`wizard.run.rehearse.CPU_MIXED_PRECISION`).
"""
from __future__ import annotations

import os
import runpy
import sys

LABEL = "accelerate-fsdp-on-cpu (fsdpds-wizard rehearsal shim: PartialState._prepare_backend -> gloo/MULTI_GPU)"

_PATCHED = "_fsdpds_compat"  # marks the wrapped _prepare_backend, so a second install() is a no-op


def install() -> bool:
    """Patch accelerate when the conditions hold; return whether the patch is active."""
    if os.environ.get("ACCELERATE_USE_FSDP", "false").lower() != "true":
        return False
    if int(os.environ.get("LOCAL_RANK", "-1")) == -1:
        return False
    import torch

    if torch.cuda.is_available():
        return False  # real accelerators: accelerate's own path is right, leave it alone
    from accelerate.state import PartialState
    from accelerate.utils import DistributedType

    original = PartialState._prepare_backend
    if getattr(original, _PATCHED, False):
        return True

    def _prepare_backend(self, cpu=False, sagemaker_dp=False, backend=None):
        backend_out, dist_type = original(self, cpu, sagemaker_dp, backend)
        if dist_type in (DistributedType.NO, DistributedType.MULTI_CPU) and backend_out in (None, "gloo"):
            return "gloo", DistributedType.MULTI_GPU
        return backend_out, dist_type

    setattr(_prepare_backend, _PATCHED, True)
    PartialState._prepare_backend = _prepare_backend

    # FullyShardedDataParallelPlugin.__post_init__ (FSDP1 with sync_module_states) asks for the current
    # accelerator device to build a param_init_fn that materialises meta tensors there, and raises on a
    # CPU-only machine. During that one call only, answer "CUDA available, current device cpu"; the
    # broadcast of rank 0's weights then runs over gloo as usual.
    import accelerate.utils.dataclasses as acc_dataclasses
    from accelerate.utils import FullyShardedDataParallelPlugin as Plugin

    post_init = Plugin.__post_init__

    def __post_init__(self):
        # accelerate 1.16 no longer has the probe there (it refuses sync_module_states on CPU outright): patch
        # what this accelerate has, so a newer one fails with its own message rather than an AttributeError here
        saved_probe = getattr(acc_dataclasses, "is_cuda_available", None)
        saved_current = torch.cuda.current_device
        if saved_probe is not None:
            acc_dataclasses.is_cuda_available = lambda: True
        torch.cuda.current_device = lambda: "cpu"
        try:
            post_init(self)
        finally:
            if saved_probe is not None:
                acc_dataclasses.is_cuda_available = saved_probe
            torch.cuda.current_device = saved_current
        # FSDP2 CPU offload: accelerate builds CPUOffloadPolicy() whose pin_memory=True needs an
        # accelerator ("Cannot access accelerator device when none is available"); pinning means nothing
        # on a CPU-only machine, so the rehearsal offloads without it.
        policy = getattr(self, "cpu_offload", None)
        if type(policy).__name__ == "CPUOffloadPolicy" and getattr(policy, "pin_memory", False):
            from torch.distributed.fsdp import CPUOffloadPolicy

            self.cpu_offload = CPUOffloadPolicy(pin_memory=False)

    Plugin.__post_init__ = __post_init__

    # FULL_STATE_DICT on CPU: offload_to_cpu would free the very tensors being saved (see point 3 above)
    try:
        import torch.distributed.fsdp._state_dict_utils as fsdp_sd

        enter = fsdp_sd._enter_unshard_params_ctx

        def _enter_unshard_params_ctx(module, fsdp_state, writeback=False, rank0_only=False, offload_to_cpu=False,
                                      with_grads=False):
            return enter(module, fsdp_state, writeback=writeback, rank0_only=rank0_only, offload_to_cpu=False,
                         with_grads=with_grads)

        fsdp_sd._enter_unshard_params_ctx = _enter_unshard_params_ctx
    except (ImportError, AttributeError):
        pass

    # torch's FSDP1 refuses sync_module_states for CPU tensors because NCCL cannot broadcast them;
    # gloo can, so the check is switched off (FSDP1 only reads it while wrapping).
    try:
        import torch.distributed.fsdp._init_utils as fsdp_init

        fsdp_init._check_module_states_for_sync_module_states = lambda module_states: None
    except (ImportError, AttributeError):
        pass
    os.environ.setdefault("ACCELERATE_TORCH_DEVICE", "cpu")
    os.environ["FSDPDS_CPU_FSDP_COMPAT"] = LABEL
    return True


def main() -> None:
    if len(sys.argv) < 2:
        print("usage: cpu_fsdp_compat.py SCRIPT.py [ARGS...]", file=sys.stderr)
        raise SystemExit(2)
    install()
    script = sys.argv[1]
    sys.argv = sys.argv[1:]
    # as if the script had been started directly: its folder first, not this shim's
    sys.path[0] = os.path.dirname(os.path.abspath(script))
    runpy.run_path(script, run_name="__main__")


if __name__ == "__main__":
    main()
