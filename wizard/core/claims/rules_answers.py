"""Claims stated by the answer rules (wizard/core/answers/rules.py) that no area module states: the master address
of DeepSpeed's runner, torch.compile options without a backend, FSDP2's hybrid mesh and size policy, the size
threshold of the other policies and the fp8 backends (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_rules_answers.py::"

RUNNER_MASTER_ADDR = claim(
    "ds-runner-finds-master-addr",
    "Given no --master_addr (accelerate passes one only with main_process_ip), DeepSpeed's runner asks the first "
    "host of the hostfile for its address over ssh (hostname -I), so its pdsh, MPI and Slurm launches need no "
    "main_process_ip; nossh, which has no ssh, tries the same.",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:477-478; deepspeed/launcher/runner.py:495-515",
    why_not_demo="the address comes from running hostname -I on another machine over ssh, which a CPU test "
                 "cannot reach without starting the runner against real hosts",
    scope=("pdsh", "mpi", "slurm", "nossh"))
DYNAMO_NEEDS_BACKEND = claim(
    "dynamo-options-need-backend",
    "accelerate compiles the model only when the dynamo backend is not 'no': with 'no', the mode, fullgraph, "
    "dynamic and regional compilation settings change nothing.",
    doc="dynamo-config", code="accelerate/accelerator.py:1701-1702, 2069-2070",
    demo=_T + "test_dynamo_options_without_a_backend_compile_nothing",
    scope=("mode", "fullgraph", "dynamic", "regional-compilation", "with-a-backend"))
FSDP2_SHARD_DIM = claim(
    "fsdp2-parallelism-needs-shard-dim",
    "Under FSDP2 the Accelerator refuses a parallelism_config whose dp_shard_size and cp_size are both 1 "
    "(hybrid with one process per machine: only replication is left), with a ValueError that there is no "
    "dimension for FSDP to shard across.",
    doc="parallelism-config", code="accelerate/parallelism_config.py:355-386; accelerate/accelerator.py:477",
    demo=_T + "test_fsdp2_hybrid_with_nothing_to_shard_is_refused",
    scope=("replicate-only", "shard"))
SIZE_POLICY_CONTAINERS = claim(
    "fsdp2-size-policy-selects-containers",
    "accelerate's FSDP2 size policy selects every module whose parameters exceed min_num_params, containers "
    "included, and fully_shard raises ValueError for an nn.ModuleList or nn.ModuleDict (they have no forward), "
    "so prepare() fails once a model's block list holds more than the threshold.",
    doc="fsdp-auto-wrap-policy",
    code="accelerate/utils/fsdp_utils.py:851-856, 964-968; torch/distributed/fsdp/_fully_shard/_fsdp_init.py:35-47; "
         "torch/distributed/fsdp/_fully_shard/_fully_shard.py:241",
    demo=_T + "test_fsdp2_size_policy_picks_the_block_list_which_fully_shard_refuses",
    scope=("policy-selects-container", "module-list-refused", "module-dict-refused", "prepare-fails",
           "below-threshold"))
FP8_NEEDS_BACKEND = claim(
    "fp8-needs-backend-package",
    "mixed_precision fp8 needs Transformer Engine, MS-AMP or torchao installed: accelerate launch raises a "
    "RuntimeError without one, in each of its launchers, and the Accelerator's state raises a ValueError when "
    "it starts.",
    doc="mixed-precision",
    code="accelerate/utils/imports.py:187-189; accelerate/utils/launch.py:176-180, 285-289, 559-563; "
         "accelerate/state.py:931-936",
    demo=_T + "test_fp8_without_a_backend_package_is_refused",
    scope=("simple-launcher", "multi-gpu-launcher", "deepspeed-launcher", "accelerator-state"))
