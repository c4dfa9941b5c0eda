"""The config linter (wizard/core/lint/): every rule fires on a minimal bad config and not on the
corrected one; known-good configs give no error; random input never crashes it."""
from __future__ import annotations

import copy
import json
import subprocess
import sys

import pytest
import yaml
from helpers import ROOT
from hypothesis import given, settings
from hypothesis import strategies as st

from wizard.core.findings import ERROR, Finding
from wizard.core.gpus import _visible_limit, detect_gpus_per_node
from wizard.core.inputs import InputError
from wizard.core.lint import lint, load_config_files
from wizard.core.rules import CONFIG, in_section

RULES = in_section(CONFIG)  # the config rules (registered by importing wizard.core.lint)

# ---------------------------------------------------------------------------------------------------------------
# config builders
# ---------------------------------------------------------------------------------------------------------------
BASE = {"compute_environment": "LOCAL_MACHINE", "debug": False, "downcast_bf16": "no", "machine_rank": 0,
        "main_training_function": "main", "num_machines": 1, "num_processes": 8, "rdzv_backend": "static",
        "same_network": True, "tpu_env": [], "tpu_use_cluster": False, "tpu_use_sudo": False, "use_cpu": False}
FSDP2 = {"fsdp_activation_checkpointing": False, "fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP",
         "fsdp_cpu_ram_efficient_loading": True, "fsdp_offload_params": False, "fsdp_reshard_after_forward": True,
         "fsdp_state_dict_type": "SHARDED_STATE_DICT", "fsdp_version": 2}
FSDP1 = {"fsdp_auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "fsdp_backward_prefetch": "BACKWARD_PRE",
         "fsdp_cpu_ram_efficient_loading": True, "fsdp_forward_prefetch": False, "fsdp_offload_params": False,
         "fsdp_sharding_strategy": "FULL_SHARD", "fsdp_state_dict_type": "FULL_STATE_DICT",
         "fsdp_sync_module_states": True, "fsdp_use_orig_params": True, "fsdp_version": 1}
Z2 = {"gradient_accumulation_steps": 1, "gradient_clipping": 1.0, "offload_optimizer_device": "none",
      "offload_param_device": "none", "zero3_init_flag": False, "zero_stage": 2}
DSJ = {"train_batch_size": "auto", "train_micro_batch_size_per_gpu": "auto", "gradient_accumulation_steps": "auto",
       "gradient_clipping": "auto", "bf16": {"enabled": "auto"},
       "zero_optimization": {"stage": 3, "overlap_comm": True, "contiguous_gradients": True, "sub_group_size": 1e9,
                             "reduce_bucket_size": "auto", "stage3_prefetch_bucket_size": "auto",
                             "stage3_param_persistence_threshold": "auto", "stage3_max_live_parameters": 1e9,
                             "stage3_max_reuse_distance": 1e9, "stage3_gather_16bit_weights_on_model_save": True}}
DROP = object()


def _merge(base: dict, over: dict) -> dict:
    out = copy.deepcopy(base)
    for k, v in over.items():
        if v is DROP:
            out.pop(k, None)
        elif isinstance(v, dict) and isinstance(out.get(k), dict) and not v.get("__replace__"):
            out[k] = _merge(out[k], v)
        else:
            out[k] = {kk: vv for kk, vv in v.items() if kk != "__replace__"} if isinstance(v, dict) else v
    return out


def fsdp(v=2, fc=None, **top):
    return _merge(dict(BASE, distributed_type="FSDP", mixed_precision="bf16",
                       fsdp_config=copy.deepcopy(FSDP2 if v == 2 else FSDP1)), dict({"fsdp_config": fc or {}}, **top))


def inline(dc=None, **top):
    return _merge(dict(BASE, distributed_type="DEEPSPEED", mixed_precision="bf16", deepspeed_config=dict(Z2)),
                  dict({"deepspeed_config": dc or {}}, **top))


def filemode(dc=None, **top):
    return _merge(dict(BASE, distributed_type="DEEPSPEED",
                       deepspeed_config={"deepspeed_config_file": "ds.json", "zero3_init_flag": True}),
                  dict({"deepspeed_config": dc or {}}, **top))


def dsj(**over):
    return _merge(DSJ, over)


def run(y, ds=None, gpus=8, **kw) -> list[Finding]:
    return lint(y, ds, gpus_per_node=gpus, fp8_available=kw.pop("fp8", lambda: True), **kw)


def names(*a, **kw) -> set[str]:
    return {f.rule for f in run(*a, **kw)}


def errors(*a, **kw) -> list[Finding]:
    return [f for f in run(*a, **kw) if f.severity == ERROR]


# ---------------------------------------------------------------------------------------------------------------
# one (bad, fixed) pair per rule: (rule, bad yaml, bad json, fixed yaml, fixed json, gpus)
# ---------------------------------------------------------------------------------------------------------------
def C(rule, bad, fixed, bad_ds=None, fixed_ds=None, gpus=8):
    return pytest.param(rule, bad, bad_ds, fixed, fixed_ds, gpus, id=rule)


CASES = [
    # --- keys
    C("unknown-top-level-key", fsdp(fsdp_version=2), fsdp()),
    C("rdzv-backend-not-applied", fsdp(rdzv_backend="c10d"), fsdp(rdzv_backend="static")),
    C("section-not-mapping", fsdp(dynamo_config=["inductor"]), fsdp(dynamo_config={"dynamo_backend": "INDUCTOR"})),
    C("section-ignored", fsdp(deepspeed_config={"zero_stage": 3}), fsdp(deepspeed_config={})),
    C("unknown-fsdp-key", fsdp(fc={"fsdp_typo_key_xyz": 1}), fsdp()),
    C("fsdp-legacy-key", fsdp(1, fc={"fsdp_backward_prefetch_policy": "BACKWARD_PRE"}), fsdp(1)),
    C("fsdp-key-written-twice", fsdp(1, fc={"sharding_strategy": "SHARD_GRAD_OP"}),
      fsdp(1, fc={"fsdp_sharding_strategy": "SHARD_GRAD_OP"})),
    C("fsdp-key-written-twice-same-value", fsdp(1, fc={"sharding_strategy": "FULL_SHARD"}), fsdp(1)),
    C("unknown-deepspeed-key", inline({"train_micro_batch_size_per_gpu": 4}), inline()),
    C("deepspeed-multinode-key-unused", inline({"deepspeed_hostfile": "/hf"}), inline()),
    C("deepspeed-multinode-filter-ignored",
      inline({"deepspeed_hostfile": "/hf", "deepspeed_exclusion_filter": "worker-1",
              "deepspeed_inclusion_filter": "worker-0"}, num_processes=16, num_machines=2, main_process_ip="10.0.0.1"),
      inline({"deepspeed_hostfile": "/hf", "deepspeed_exclusion_filter": "worker-1"}, num_processes=16,
             num_machines=2, main_process_ip="10.0.0.1")),
    C("unknown-parallelism-key", fsdp(parallelism_config={"dp_shard_size": 8}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("unknown-dynamo-key", fsdp(dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_fullgraph": True}),
      fsdp(dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_use_fullgraph": True})),
    C("dynamo-ignored-under-deepspeed", inline(dynamo_config={"dynamo_backend": "INDUCTOR"}), inline()),
    C("unknown-fp8-key", fsdp(mixed_precision="fp8", fp8_config={"backend": "TE", "amax_history_length": 1024}),
      fsdp(mixed_precision="fp8", fp8_config={"backend": "TE", "amax_history_len": 1024})),
    C("section-key-misplaced", inline({"num_processes": 8}), inline()),
    # --- general
    C("distributed-type-missing", fsdp(distributed_type=DROP), fsdp()),
    C("distributed-type-invalid", fsdp(distributed_type="fsdp"), fsdp()),
    C("compute-environment-invalid", fsdp(compute_environment="LOCAL"), fsdp()),
    C("legacy-top-level-fp16", fsdp(mixed_precision=DROP, fp16=True), fsdp(mixed_precision="fp16")),
    C("legacy-top-level-fp16-ignored", fsdp(fp16=True), fsdp()),
    C("legacy-top-level-dynamo-backend", fsdp(dynamo_backend="INDUCTOR"),
      fsdp(dynamo_config={"dynamo_backend": "INDUCTOR"})),
    C("legacy-dynamo-backend-replaces-section", fsdp(dynamo_backend="NO", dynamo_config={"dynamo_backend": "EAGER"}),
      fsdp(dynamo_config={"dynamo_backend": "EAGER"})),
    C("mixed-precision-invalid", fsdp(mixed_precision=False), fsdp(mixed_precision="no")),
    C("fp8-config-unused", fsdp(fp8_config={"backend": "TE"}), fsdp()),
    C("fp8-backend-invalid", fsdp(mixed_precision="fp8", fp8_config={"backend": "te"}),
      fsdp(mixed_precision="fp8", fp8_config={"backend": "TE"})),
    C("fp8-option-other-backend", fsdp(mixed_precision="fp8", fp8_config={"backend": "TE", "opt_level": "O1"}),
      fsdp(mixed_precision="fp8", fp8_config={"backend": "TE", "margin": 1})),
    C("fp8-option-without-backend", fsdp(mixed_precision="fp8", fp8_config={"margin": 1}),
      fsdp(mixed_precision="fp8", fp8_config={"backend": "TE", "margin": 1})),
    C("fp8-msamp-fsdp", fsdp(mixed_precision="fp8", fp8_config={"backend": "MSAMP"}),
      fsdp(mixed_precision="fp8", fp8_config={"backend": "TE"})),
    C("fp8-torchao-fsdp-ram-efficient-loading", fsdp(mixed_precision="fp8", fp8_config={"backend": "AO"}),
      fsdp(fc={"fsdp_cpu_ram_efficient_loading": False}, mixed_precision="fp8", fp8_config={"backend": "AO"})),
    C("fp8-msamp-zero3", inline({"zero_stage": 3}, mixed_precision="fp8", fp8_config={"backend": "MSAMP"}),
      inline({"zero_stage": 2}, mixed_precision="fp8", fp8_config={"backend": "MSAMP"})),
    C("num-processes-missing", fsdp(num_processes=-1), fsdp()),
    C("num-processes-invalid", fsdp(num_processes=2.5), fsdp()),
    C("number-as-string", fsdp(num_processes="8"), fsdp()),
    C("number-as-string-fails", fsdp(num_machines="1"), fsdp()),
    C("num-processes-not-divisible", fsdp(num_processes=9, num_machines=2, main_process_ip="10.0.0.1"),
      fsdp(num_processes=8, num_machines=2, main_process_ip="10.0.0.1")),
    C("more-processes-than-gpus", fsdp(num_processes=16), fsdp(num_processes=8)),
    C("gpu-ids-too-few", fsdp(num_processes=4, gpu_ids="0,1"), fsdp(num_processes=4, gpu_ids="0,1,2,3")),
    C("gpu-ids-not-string", fsdp(num_processes=1, gpu_ids=0), fsdp(num_processes=1, gpu_ids="0")),
    C("multi-gpu-few-gpu-ids", dict(BASE, distributed_type="MULTI_GPU", gpu_ids="0"),
      dict(BASE, distributed_type="MULTI_GPU", gpu_ids="0,1")),
    C("multi-gpu-single-process", dict(BASE, distributed_type="MULTI_GPU", num_processes=1),
      dict(BASE, distributed_type="MULTI_GPU", num_processes=2)),
    C("single-process-num-processes-ignored", dict(BASE, distributed_type="NO", num_processes=4),
      dict(BASE, distributed_type="NO", num_processes=1)),
    C("multinode-no-main-ip", fsdp(num_processes=16, num_machines=2),
      fsdp(num_processes=16, num_machines=2, main_process_ip="10.0.0.1")),
    C("main-process-ip-invalid", fsdp(num_processes=16, num_machines=2, main_process_ip="10.9.9.9;touch${IFS}X;#"),
      fsdp(num_processes=16, num_machines=2, main_process_ip="node-0.cluster.local")),
    C("dynamo-backend-invalid", fsdp(dynamo_config={"dynamo_backend": "INDUCTORR"}),
      fsdp(dynamo_config={"dynamo_backend": "inductor"})),
    C("dynamo-mode-invalid", fsdp(dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_mode": "fast"}),
      fsdp(dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_mode": "max-autotune"})),
    C("dynamo-flag-invalid", fsdp(dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_use_fullgraph": "maybe"}),
      fsdp(dynamo_config={"dynamo_backend": "INDUCTOR", "dynamo_use_fullgraph": True})),
    C("parallelism-size-invalid", fsdp(parallelism_config={"parallelism_config_dp_shard_size": 0}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-total-mismatch", fsdp(parallelism_config={"parallelism_config_dp_shard_size": 4}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-needs-fsdp2", fsdp(1, parallelism_config={"parallelism_config_dp_shard_size": 8}),
      fsdp(2, parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-fsdp2-no-shard-dim", fsdp(parallelism_config={"parallelism_config_dp_replicate_size": 8}),
      fsdp(parallelism_config={"parallelism_config_dp_replicate_size": 2, "parallelism_config_dp_shard_size": 4})),
    C("parallelism-invalid-combination",
      fsdp(parallelism_config={"parallelism_config_cp_size": 2, "parallelism_config_sp_size": 2,
                               "parallelism_config_dp_shard_size": 2}),
      fsdp(parallelism_config={"parallelism_config_cp_size": 2, "parallelism_config_dp_shard_size": 4})),
    C("parallelism-backend-invalid",
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8, "parallelism_config_cp_backend": "deepspeed"}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8, "parallelism_config_cp_backend": "torch"})),
    C("parallelism-heads-unchecked",  # with the model (check --model): tests/headless/test_check_parallel_heads.py
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 4, "parallelism_config_tp_size": 2}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-fsdp2-tp-transformers",  # transformers 5.24 (verified); 5.0: test_check_parallel_heads.py
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 4, "parallelism_config_tp_size": 2}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-fsdp2-tp-ram-efficient-loading",
      fsdp(fc={"fsdp_cpu_ram_efficient_loading": True},
           parallelism_config={"parallelism_config_dp_shard_size": 4, "parallelism_config_tp_size": 2}),
      fsdp(fc={"fsdp_cpu_ram_efficient_loading": False},
           parallelism_config={"parallelism_config_dp_shard_size": 4, "parallelism_config_tp_size": 2})),
    C("parallelism-unused-under-deepspeed",
      inline(num_processes=2, parallelism_config={"parallelism_config_cp_size": 2}),
      inline(num_processes=2)),
    C("parallelism-dp-shard-under-deepspeed",
      inline(num_processes=2, parallelism_config={"parallelism_config_dp_shard_size": 2}), inline(num_processes=2)),
    C("parallelism-cp-drops-attention-mask",
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 4, "parallelism_config_cp_size": 2}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-mesh-layout",
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 4, "parallelism_config_tp_size": 2}),
      fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8})),
    C("parallelism-group-spans-machines",
      fsdp(num_processes=16, num_machines=2, main_process_ip="10.0.0.1",
           parallelism_config={"parallelism_config_dp_shard_size": 1, "parallelism_config_cp_size": 2,
                               "parallelism_config_tp_size": 8}),
      fsdp(num_processes=16, num_machines=2, main_process_ip="10.0.0.1",
           parallelism_config={"parallelism_config_dp_shard_size": 2, "parallelism_config_cp_size": 2,
                               "parallelism_config_tp_size": 4})),
    C("parallelism-sp-attn-invalid",
      inline(num_processes=4, parallelism_config={"parallelism_config_sp_size": 2,
                                                  "parallelism_config_sp_attn_implementation": "eager"}),
      inline(num_processes=4, parallelism_config={"parallelism_config_sp_size": 2,
                                                  "parallelism_config_sp_attn_implementation": "sdpa"})),
    C("parallelism-sp-seq-length-missing",
      inline(num_processes=4, parallelism_config={"parallelism_config_sp_size": 2,
                                                  "parallelism_config_sp_seq_length_is_variable": False}),
      inline(num_processes=4, parallelism_config={"parallelism_config_sp_size": 2,
                                                  "parallelism_config_sp_seq_length_is_variable": False,
                                                  "parallelism_config_sp_seq_length": 4096})),
    C("parallelism-ds-sp-total-mismatch",
      inline(num_processes=4, parallelism_config={"parallelism_config_sp_size": 2}),
      inline(num_processes=4, parallelism_config={"parallelism_config_sp_size": 2,
                                                  "parallelism_config_dp_shard_size": 2})),
    C("parallelism-cp-needs-fsdp2",
      dict(BASE, distributed_type="MULTI_GPU", parallelism_config={"parallelism_config_cp_size": 8}),
      fsdp(parallelism_config={"parallelism_config_cp_size": 8})),
    # --- FSDP
    C("fsdp-version-invalid", fsdp(fc={"fsdp_version": 3}), fsdp()),
    C("fsdp-version-default", fsdp(1, fc={"fsdp_version": DROP}), fsdp(1)),
    C("fsdp1-sharding-strategy-invalid", fsdp(1, fc={"fsdp_sharding_strategy": "ZERO3"}), fsdp(1)),
    C("fsdp2-sharding-strategy-ignored", fsdp(fc={"fsdp_sharding_strategy": "FULL_SHARD"}), fsdp()),
    C("fsdp2-sharding-strategy-lost", fsdp(fc={"fsdp_sharding_strategy": "SHARD_GRAD_OP"}),
      fsdp(fc={"fsdp_reshard_after_forward": False})),
    C("fsdp1-reshard-after-forward-ignored", fsdp(1, fc={"fsdp_sharding_strategy": DROP,
                                                         "fsdp_reshard_after_forward": "FULL_SHARD"}), fsdp(1)),
    C("fsdp1-reshard-after-forward-lost", fsdp(1, fc={"fsdp_sharding_strategy": DROP,
                                                      "fsdp_reshard_after_forward": "SHARD_GRAD_OP"}),
      fsdp(1, fc={"fsdp_sharding_strategy": "SHARD_GRAD_OP"})),
    C("fsdp2-reshard-after-forward-invalid", fsdp(fc={"fsdp_reshard_after_forward": "FULL_SHARD"}), fsdp()),
    C("fsdp-bool-invalid", fsdp(fc={"fsdp_offload_params": "maybe"}), fsdp(fc={"fsdp_offload_params": "yes"})),
    C("fsdp-auto-wrap-policy-invalid", fsdp(fc={"fsdp_auto_wrap_policy": "TRANSFORMER_WRAP"}),
      fsdp(fc={"fsdp_auto_wrap_policy": "transformer_based_wrap"})),
    C("fsdp-no-wrap-policy", fsdp(fc={"fsdp_auto_wrap_policy": DROP}), fsdp()),
    C("fsdp-transformer-wrap-no-classes", fsdp(),
      fsdp(fc={"fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"})),
    C("fsdp-wrap-classes-invalid",
      fsdp(fc={"fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer, Qwen2DecoderLayer"}),
      fsdp(fc={"fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer,Qwen2DecoderLayer"})),
    C("fsdp-wrap-classes-unused", fsdp(fc={"fsdp_auto_wrap_policy": "NO_WRAP",
                                            "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"}),
      fsdp(fc={"fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"})),
    C("fsdp-min-num-params-invalid", fsdp(fc={"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP",
                                               "fsdp_min_num_params": "1e8"}),
      fsdp(fc={"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP", "fsdp_min_num_params": 100000000})),
    C("fsdp-min-num-params-unused", fsdp(fc={"fsdp_min_num_params": 100000000}), fsdp()),
    C("fsdp-min-num-params-unused-harmless", fsdp(fc={"fsdp_min_num_params": 0}), fsdp()),
    C("fsdp-min-num-params-zero", fsdp(1, fc={"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP", "fsdp_min_num_params": 0}),
      fsdp(1, fc={"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP", "fsdp_min_num_params": 1000000})),
    C("fsdp-backward-prefetch-invalid", fsdp(1, fc={"fsdp_backward_prefetch": "BACKWARD"}), fsdp(1)),
    C("fsdp2-backward-prefetch-ignored", fsdp(fc={"fsdp_backward_prefetch": "NO_PREFETCH"}), fsdp()),
    C("fsdp2-backward-prefetch-lost", fsdp(fc={"fsdp_backward_prefetch": "BACKWARD_PRE"}), fsdp()),
    C("fsdp-state-dict-type-invalid", fsdp(fc={"fsdp_state_dict_type": "FULL"}), fsdp()),
    C("fsdp2-local-state-dict", fsdp(fc={"fsdp_state_dict_type": "LOCAL_STATE_DICT"}),
      fsdp(1, fc={"fsdp_state_dict_type": "LOCAL_STATE_DICT"})),
    C("fsdp2-forward-prefetch-ignored", fsdp(fc={"fsdp_forward_prefetch": False}), fsdp()),
    C("fsdp2-forward-prefetch-lost", fsdp(fc={"fsdp_forward_prefetch": True}), fsdp(1)),
    C("fsdp2-use-orig-params-obsolete", fsdp(fc={"fsdp_use_orig_params": True}), fsdp()),
    C("fsdp2-use-orig-params-false", fsdp(fc={"fsdp_use_orig_params": False}), fsdp()),
    C("fsdp2-sync-module-states-obsolete", fsdp(fc={"fsdp_sync_module_states": True}), fsdp()),
    C("fsdp-ram-efficient-loading-needs-sync", fsdp(1, fc={"fsdp_sync_module_states": False}), fsdp(1)),
    C("fsdp1-sync-module-states-off", fsdp(1, fc={"fsdp_sync_module_states": False,
                                                  "fsdp_cpu_ram_efficient_loading": False}), fsdp(1)),
    C("fsdp1-compile-without-orig-params", fsdp(1, fc={"fsdp_use_orig_params": False},
                                                dynamo_config={"dynamo_backend": "INDUCTOR"}),
      fsdp(1, dynamo_config={"dynamo_backend": "INDUCTOR"})),
    C("fsdp-activation-checkpointing-offload-requirements",
      fsdp(fc={"fsdp_activation_checkpointing_offload": True}),
      fsdp(fc={"fsdp_activation_checkpointing": True, "fsdp_activation_checkpointing_offload": True})),
    C("fsdp-ignored-modules-not-reduced", fsdp(fc={"fsdp_ignored_modules": "vision_tower"}), fsdp()),
    C("fsdp2-activation-checkpointing-without-wrap-policy",
      fsdp(fc={"fsdp_activation_checkpointing": True, "fsdp_auto_wrap_policy": "NO_WRAP"}),
      fsdp(fc={"fsdp_activation_checkpointing": True})),
    C("fsdp1-hybrid-shard-single-node", fsdp(1, fc={"fsdp_sharding_strategy": "HYBRID_SHARD"}), fsdp(1)),
    C("fsdp1-hybrid-shard-group-mismatch", fsdp(1, fc={"fsdp_sharding_strategy": "HYBRID_SHARD"}, num_processes=4),
      fsdp(1, fc={"fsdp_sharding_strategy": "HYBRID_SHARD"}, num_processes=4, gpu_ids="0,1,2,3")),
    # --- DeepSpeed, accelerate side
    C("deepspeed-file-with-inline-keys", filemode({"zero_stage": 3}, mixed_precision="no"), filemode(),
      dsj(), dsj()),
    C("deepspeed-zero-stage-invalid", inline({"zero_stage": 4}), inline()),
    C("deepspeed-zero-stage-default", inline({"zero_stage": DROP}), inline()),
    C("deepspeed-offload-device-invalid", inline({"offload_optimizer_device": "gpu"}),
      inline({"offload_optimizer_device": "CPU"})),
    C("deepspeed-inline-nvme-path-ignored", inline({"zero_stage": 3, "offload_param_device": "nvme",
                                                   "offload_param_nvme_path": "/nvme"}),
      filemode(), None, dsj(zero_optimization={"offload_param": {"device": "nvme", "nvme_path": "/nvme"}})),
    C("deepspeed-inline-nvme-without-path", inline({"zero_stage": 3, "offload_param_device": "nvme"}),
      inline({"zero_stage": 3, "offload_param_device": "cpu"})),
    C("deepspeed-gradient-accumulation-invalid", inline({"gradient_accumulation_steps": "auto"}), inline()),
    C("deepspeed-gradient-clipping-invalid", inline({"gradient_clipping": "none"}), inline()),
    C("deepspeed-gradient-clipping-zero-ignored", inline({"gradient_clipping": 0.0}),
      filemode(), None, dsj(gradient_clipping=0.0)),
    C("deepspeed-no-gradient-clipping", inline({"gradient_clipping": DROP}), inline()),
    C("deepspeed-zero3-init-flag-invalid", inline({"zero3_init_flag": "maybe"}), inline()),
    C("deepspeed-zero3-init-flag-ignored", inline({"zero3_init_flag": True}),
      inline({"zero3_init_flag": True, "zero_stage": 3})),
    C("deepspeed-zero3-init-flag-false-ignored", inline({"zero_stage": 3, "zero3_init_flag": False}),
      inline({"zero_stage": 3, "zero3_init_flag": DROP})),
    C("deepspeed-json-no-gradient-accumulation", filemode(), filemode(), dsj(gradient_accumulation_steps=DROP),
      dsj()),
    C("deepspeed-offload-optimizer-becomes-adam", inline({"offload_optimizer_device": "cpu"}), inline()),
    C("deepspeed-zero3-save-16bit-invalid", inline({"zero_stage": 3, "zero3_save_16bit_model": "yes"}),
      inline({"zero_stage": 3, "zero3_save_16bit_model": True})),
    C("deepspeed-zero3-save-16bit-unused", inline({"zero3_save_16bit_model": True}),
      inline({"zero3_save_16bit_model": True, "zero_stage": 3})),
    C("deepspeed-moe-classes-invalid", inline({"deepspeed_moe_layer_cls_names": ["MixtralSparseMoeBlock"]}),
      inline({"deepspeed_moe_layer_cls_names": "MixtralSparseMoeBlock"})),
    C("deepspeed-multinode-launcher-invalid",
      inline({"deepspeed_multinode_launcher": "torchrun"}, num_processes=16, num_machines=2),
      inline({"deepspeed_multinode_launcher": "standard"}, num_processes=16, num_machines=2,
             main_process_ip="10.0.0.1")),
    C("deepspeed-mpi-launcher-refuses-accelerate",
      inline({"deepspeed_multinode_launcher": "openmpi", "deepspeed_hostfile": "/job/hostfile"}, num_processes=16,
             num_machines=2, main_process_ip="10.0.0.1"),
      inline({"deepspeed_multinode_launcher": "slurm", "deepspeed_hostfile": "/job/hostfile"}, num_processes=16,
             num_machines=2, main_process_ip="10.0.0.1")),
    C("deepspeed-multinode-no-hostfile", inline(num_processes=16, num_machines=2),
      inline({"deepspeed_hostfile": "/job/hostfile"}, num_processes=16, num_machines=2)),
    C("deepspeed-offload-param-below-stage3", inline({"offload_param_device": "cpu"}),
      inline({"offload_param_device": "cpu", "zero_stage": 3})),
    C("deepspeed-nvme-below-stage3", filemode(), filemode(),
      dsj(zero_optimization={"stage": 2, "offload_optimizer": {"device": "nvme", "nvme_path": "/nvme"}}),
      dsj(zero_optimization={"stage": 3, "offload_optimizer": {"device": "nvme", "nvme_path": "/nvme"}})),
    C("deepspeed-offload-optimizer-stage0", inline({"zero_stage": 0, "offload_optimizer_device": "cpu"}),
      inline({"zero_stage": 1, "offload_optimizer_device": "cpu"})),
    # --- DeepSpeed JSON, part 1
    C("ds-json-zero-optimization-missing", filemode(), filemode(), dsj(zero_optimization=DROP), dsj()),
    C("ds-json-removed-feature", filemode(), filemode(), dsj(amp={"enabled": True}), dsj()),
    C("ds-json-unknown-top-level-key", filemode(), filemode(), dsj(train_micro_batch_size=4), dsj()),
    C("ds-json-accelerate-key-unused", filemode(), filemode(), dsj(num_processes=8, num_machines=1), dsj()),
    C("ds-json-bfloat16-shadowed", filemode(), filemode(), dsj(bf16=DROP, bfloat16={"enabled": True}),
      dsj(bf16={"enabled": True})),
    C("ds-json-not-mapping", filemode(), filemode(), dsj(fp16=True), dsj(fp16={"enabled": True}, bf16=DROP)),
    C("ds-json-unknown-key", filemode(), filemode(), dsj(zero_optimization={"offload_params": {"device": "cpu"}}),
      dsj(zero_optimization={"offload_param": {"device": "cpu"}})),
    C("ds-json-invalid-value", filemode(), filemode(), dsj(zero_optimization={"offload_param": {"device": "CPU"}}),
      dsj(zero_optimization={"offload_param": {"device": "cpu"}})),
    C("ds-json-value-coerced", filemode(), filemode(), dsj(zero_optimization={"overlap_comm": "true"}), dsj()),
    C("ds-json-deprecated-key", filemode(), filemode(),
      dsj(zero_optimization={"stage3_gather_fp16_weights_on_model_save": True,
                             "stage3_gather_16bit_weights_on_model_save": DROP}), dsj()),
    C("ds-json-deprecated-and-new-key", filemode(), filemode(),
      dsj(zero_optimization={"cpu_offload": True, "offload_optimizer": {"device": "cpu"}}),
      dsj(zero_optimization={"offload_optimizer": {"device": "cpu"}})),
    C("ds-json-ignored-subkey", filemode(), filemode(), dsj(aio={"block_size": 1048576, "thread_count": 4}),
      dsj(aio={"block_size": 1048576, "intra_op_parallelism": 1})),
    C("ds-json-ignored-subkey-harmless", filemode(), filemode(), dsj(aio={"block_size": 1048576, "thread_count": 1}),
      dsj(aio={"block_size": 1048576, "intra_op_parallelism": 1})),
    C("ds-json-scalar-type", filemode(), filemode(), dsj(zero_allow_untested_optimizer="false"),
      dsj(zero_allow_untested_optimizer=False)),
    C("ds-json-bool-as-string", filemode(), filemode(), dsj(zero_allow_untested_optimizer="true"),
      dsj(zero_allow_untested_optimizer=True)),
    C("ds-json-auto-not-filled", filemode(), filemode(), dsj(zero_optimization={"sub_group_size": "auto"}), dsj()),
    C("ds-json-auto-trainer-only", filemode(), filemode(),
      dsj(optimizer={"type": "AdamW", "params": {"lr": "auto", "betas": "auto"}}),
      dsj(optimizer={"type": "AdamW", "params": {"lr": "auto", "betas": [0.9, 0.999]}})),
    C("ds-json-auto-stage", filemode(), filemode(), dsj(zero_optimization={"stage": "auto"}), dsj()),
    C("ds-json-auto-offload-device", filemode(), filemode(),
      dsj(zero_optimization={"offload_param": {"device": "auto"}}),
      dsj(zero_optimization={"offload_param": {"device": "cpu"}})),
    C("ds-json-auto-nvme-path", filemode(), filemode(),
      dsj(zero_optimization={"offload_param": {"device": "nvme", "nvme_path": "auto"}}),
      dsj(zero_optimization={"offload_param": {"device": "nvme", "nvme_path": "/nvme"}})),
    C("ds-json-auto-precision", filemode(), filemode(), dsj(), dsj(bf16={"enabled": True})),
    C("ds-json-batch-missing", filemode(), filemode(),
      dsj(train_batch_size=DROP, train_micro_batch_size_per_gpu=DROP), dsj()),
    C("ds-json-auto-batch-without-micro", filemode(), filemode(), dsj(train_micro_batch_size_per_gpu=DROP), dsj()),
    C("ds-json-comment-key", filemode(), filemode(), dsj(_comment="zero-3 for 8 GPUs"), dsj()),
    C("ds-json-warmup-steps-invalid", filemode(), filemode(),
      dsj(scheduler={"type": "WarmupLR", "params": {"warmup_num_steps": 0}}),
      dsj(scheduler={"type": "WarmupLR", "params": {"warmup_num_steps": 1}})),
    C("cpu-affinity-not-applied", fsdp(enable_cpu_affinity=True), fsdp(enable_cpu_affinity=False)),
    C("ds-json-msamp-block", filemode(), filemode(), dsj(msamp={"enabled": True, "opt_level": "O2"}), dsj()),
    C("sagemaker-config-cannot-launch", {"compute_environment": "AMAZON_SAGEMAKER", "distributed_type": "NO",
                                         "num_processes": 1}, fsdp()),
    C("ds-json-fixed-batch-auto-accumulation", filemode(), filemode(),
      dsj(train_batch_size=64, train_micro_batch_size_per_gpu=4), dsj(train_micro_batch_size_per_gpu=4)),
    C("ds-json-batch-invalid", filemode(), filemode(), dsj(train_micro_batch_size_per_gpu="4"),
      dsj(train_micro_batch_size_per_gpu=4)),
    C("ds-json-batch-mismatch", filemode(), filemode(),
      dsj(train_batch_size=64, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=1),
      dsj(train_batch_size=64, train_micro_batch_size_per_gpu=4, gradient_accumulation_steps=2)),
    C("ds-json-fixed-batch-auto-micro", filemode(), filemode(), dsj(train_batch_size=64), dsj()),
    C("ds-json-steps-per-print-overridden", filemode(), filemode(), dsj(steps_per_print=100), dsj()),
    # --- DeepSpeed JSON, part 2
    C("ds-json-fp16-and-bf16", filemode(), filemode(), dsj(bf16={"enabled": True}, fp16={"enabled": True}),
      dsj(bf16={"enabled": True}, fp16={"enabled": False})),
    C("ds-json-fp16-loss-scale-invalid", filemode(), filemode(),
      dsj(bf16=DROP, fp16={"enabled": True, "loss_scale": 0, "loss_scale_window": 0}),
      dsj(bf16=DROP, fp16={"enabled": True, "loss_scale": 0, "loss_scale_window": 1000})),
    C("ds-json-param-dtype-conflict", filemode(), filemode(),
      dsj(bf16={"enabled": True}, data_types={"param_dtype": "fp16"}),
      dsj(bf16={"enabled": True}, data_types={"param_dtype": "bf16"})),
    C("ds-json-dtype-invalid", filemode(), filemode(), dsj(data_types={"grad_accum_dtype": "fp64"}),
      dsj(data_types={"grad_accum_dtype": "fp32"})),
    C("ds-json-master-weights-invalid", filemode(), filemode(),
      dsj(bf16={"enabled": True, "bf16_optimizer_states": True}),
      dsj(bf16={"enabled": True, "bf16_optimizer_states": True, "bf16_master_weights_and_grads": True})),
    C("ds-json-partial-offload-needs-stage3", filemode({"zero3_init_flag": False}), filemode(),
      dsj(zero_optimization={"stage": 2, "offload_optimizer": {"device": "cpu", "ratio": 0.5}}),
      dsj(zero_optimization={"stage": 3, "offload_optimizer": {"device": "cpu", "ratio": 0.5}})),
    C("ds-json-nvme-path-missing", filemode(), filemode(), dsj(zero_optimization={"offload_param": {"device": "nvme"}}),
      dsj(zero_optimization={"offload_param": {"device": "nvme", "nvme_path": "/nvme"}})),
    C("ds-json-compute-grad-norm-invalid", filemode(), filemode(), dsj(zero_optimization={"compute_grad_norm": False}),
      dsj()),
    C("ds-json-gradient-allreduce-op-invalid", filemode(), filemode(), dsj(gradient_allreduce_op="sum"),
      dsj(gradient_allreduce_op="mean")),
    C("ds-json-communication-data-type-invalid", filemode(), filemode(), dsj(communication_data_type="fp64"),
      dsj(communication_data_type="fp32")),
    C("ds-json-gather-16bit-unused", filemode({"zero3_init_flag": False}), filemode({"zero3_init_flag": False}),
      dsj(zero_optimization={"stage": 2, "stage3_prefetch_bucket_size": DROP,
                             "stage3_param_persistence_threshold": DROP}),
      dsj(zero_optimization={"stage": 2, "stage3_gather_16bit_weights_on_model_save": DROP,
                             "stage3_prefetch_bucket_size": DROP, "stage3_param_persistence_threshold": DROP})),
    C("ds-json-deprecated-cpu-offload-client-optimizer", filemode({"zero3_init_flag": False}),
      filemode({"zero3_init_flag": False}),
      dsj(zero_optimization={"stage": 2, "cpu_offload": True}),
      dsj(zero_optimization={"stage": 2, "offload_optimizer": {"device": "cpu"}})),
    C("ds-json-optimizer-type-unknown", filemode(), filemode(), dsj(optimizer={"type": "AdamW8bit"}),
      dsj(optimizer={"type": "AdamW"})),
    C("ds-json-optimizer-max-grad-norm", filemode(), filemode(),
      dsj(optimizer={"type": "AdamW", "params": {"lr": 1e-5, "max_grad_norm": 1.0}}),
      dsj(optimizer={"type": "AdamW", "params": {"lr": 1e-5}})),
    C("ds-json-lamb-static-loss-scale", filemode(), filemode(),
      dsj(optimizer={"type": "Lamb"}, bf16=DROP, fp16={"enabled": True, "loss_scale": 128}),
      dsj(optimizer={"type": "Lamb"}, bf16=DROP, fp16={"enabled": True, "loss_scale": 0})),
    C("ds-json-scheduler-type-unknown", filemode(), filemode(), dsj(scheduler={"type": "warmuplr"}),
      dsj(scheduler={"type": "WarmupLR"})),
    C("ds-json-scheduler-param-unknown", filemode(), filemode(),
      dsj(scheduler={"type": "WarmupLR", "params": {"total_num_steps": 100}}),
      dsj(scheduler={"type": "WarmupDecayLR", "params": {"total_num_steps": 100}})),
    C("ds-json-checkpoint-invalid", filemode(), filemode(), dsj(checkpoint={"tag_validation": "strict"}),
      dsj(checkpoint={"tag_validation": "Fail"})),
    C("ds-json-keep-in-fp32-modules-invalid", filemode(), filemode(),
      dsj(data_types={"keep_in_fp32_modules": "norm"}), dsj(data_types={"keep_in_fp32_modules": ["norm"]})),
    C("gpu-count-unknown", fsdp(), fsdp(), None, None, None),
    # --- multi-node (wizard/core/lint/launch.py; docs/multinode.md)
    C("machine-rank-too-high", fsdp(num_processes=16, num_machines=2, machine_rank=2, main_process_ip="10.0.0.1"),
      fsdp(num_processes=16, num_machines=2, machine_rank=1, main_process_ip="10.0.0.1")),
    C("machine-rank-not-read", fsdp(machine_rank=1), fsdp(machine_rank=0)),
    C("parallelism-shard-group-spans-machines",
      fsdp(num_processes=16, num_machines=4, main_process_ip="h",
           parallelism_config={"parallelism_config_dp_replicate_size": 2, "parallelism_config_dp_shard_size": 8}),
      fsdp(num_processes=16, num_machines=4, main_process_ip="h",
           parallelism_config={"parallelism_config_dp_replicate_size": 4, "parallelism_config_dp_shard_size": 4})),
    C("ds-json-hpz-unused", filemode(), filemode(), dsj(zero_optimization={"stage": 2, "zero_hpz_partition_size": 8,
                                                                          "stage3_prefetch_bucket_size": DROP,
                                                                          "stage3_param_persistence_threshold": DROP,
                                                                          "stage3_max_live_parameters": DROP,
                                                                          "stage3_max_reuse_distance": DROP,
                                                                          "stage3_gather_16bit_weights_on_model_save":
                                                                              DROP}),
      dsj(zero_optimization={"zero_hpz_partition_size": 8})),
    C("ds-json-hpz-not-dividing", filemode(num_processes=16, num_machines=2, main_process_ip="10.0.0.1"),
      filemode(num_processes=16, num_machines=2, main_process_ip="10.0.0.1"),
      dsj(zero_optimization={"zero_hpz_partition_size": 3}), dsj(zero_optimization={"zero_hpz_partition_size": 8})),
    C("ds-json-hpz-spans-machines", filemode(num_processes=16, num_machines=4, main_process_ip="10.0.0.1"),
      filemode(num_processes=16, num_machines=4, main_process_ip="10.0.0.1"),
      dsj(zero_optimization={"zero_hpz_partition_size": 8}), dsj(zero_optimization={"zero_hpz_partition_size": 4})),
]
LOADER_RULES = {"duplicate-key", "duplicate-key-same-value", "ds-config-file-missing", "ds-config-file-tilde",
                "ds-config-file-unreadable", "ds-config-file-invalid-json",
                "ds-config-file-not-from-here", "ds-config-file-absolute-elsewhere"}  # test_loader_rules_fire
NOT_PAIRED = {"linter-internal-error",  # never fires on purpose
              "fp8-backend-missing"} | LOADER_RULES  # environment: test_fp8_backend_probe_is_injectable
NOT_PAIRED |= {  # only for older accelerate releases: tests/unit/test_accelerate_versions.py (--accelerate-version)
    "fsdp-version-unread", "fsdp-version-unread-harmless", "fsdp2-state-dict-sharded-only", "accelerate-key-too-new",
    "top-level-key-too-new",
    # only for older transformers releases: tests/unit/test_check_context.py (--transformers-version)
    "trainer-prefetch-bucket-float", "trainer-warmup-steps-zero",
    # only for DeepSpeed before 0.14.5: test_nossh_is_refused_only_below_deepspeed_0_14_5
    "deepspeed-nossh-too-old",
    # the hostfile's lines come from the loader: tests/unit/test_hostfile_rules.py, tests/headless/test_bad_input.py
    "ds-hostfile-host-count", "ds-hostfile-invalid", "ds-hostfile-not-checked", "ds-hostfile-host-invalid",
    # only for torch before 2.7: test_fsdp2_drops_ignored_modules_before_torch_2_7
    "fsdp2-ignored-modules-dropped",
    # what the script passes to prepare() comes from --script: tests/headless/test_check_script_prepare.py
    "ds-json-optimizer-block-and-script-optimizer",
    # the model's heads come from --model: tests/headless/test_check_parallel_heads.py
    "parallelism-tp-heads", "parallelism-sp-heads", "parallelism-tp-no-plan", "parallelism-tp-plan-unknown",
    "parallelism-cp-windowed-attention"}


@pytest.mark.parametrize("rule,bad,bad_ds,fixed,fixed_ds,gpus", CASES)
def test_rule_fires_and_is_fixable(rule, bad, bad_ds, fixed, fixed_ds, gpus):
    assert rule in RULES
    bad_findings = run(bad, bad_ds, gpus=gpus if rule != "gpu-count-unknown" else None)
    fired = [f for f in bad_findings if f.rule == rule]
    assert fired, f"{rule} did not fire; got {[f.rule for f in bad_findings]}"
    for f in fired:
        assert f.severity == RULES[rule].severity
        assert f.message and f.source
        if f.severity == ERROR:
            assert f.keys and all(f.keys), f"{rule}: an error must name the keys at fault"
    fixed_rules = names(fixed, fixed_ds, gpus=8 if rule == "gpu-count-unknown" else gpus)
    assert rule not in fixed_rules, f"{rule} still fires on the corrected config"


# ---------------------------------------------------------------------------------------------------------------
# severity by the contract (issue 7): a dead value is an error when what happens differs from it, a warning when
# what happens anyway equals it. Each row: rule, severity, a config that triggers it.
# ---------------------------------------------------------------------------------------------------------------
def _sev(rule, severity, y, ds=None, gpus=8):
    return pytest.param(rule, severity, y, ds, gpus, id=f"{rule}-{severity}")


SEVERITY = [
    _sev("section-ignored", "error", fsdp(deepspeed_config={"zero_stage": 3})),
    _sev("section-ignored", "error", inline(fsdp_config={"fsdp_version": 2, "fsdp_offload_params": True})),
    _sev("fsdp-wrap-classes-unused", "error", fsdp(fc={"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP",
                                                      "fsdp_min_num_params": 1000000,
                                                      "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"})),
    _sev("fsdp-wrap-classes-unused", "error", fsdp(fc={"fsdp_auto_wrap_policy": DROP,
                                                      "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"})),
    _sev("fsdp-min-num-params-unused", "error", fsdp(fc={"fsdp_min_num_params": 100000000})),
    _sev("fsdp-min-num-params-unused-harmless", "warning", fsdp(1, fc={"fsdp_min_num_params": 0})),
    _sev("deepspeed-zero3-save-16bit-unused", "error", inline({"zero_stage": 2, "zero3_save_16bit_model": True})),
    _sev("ds-json-gather-16bit-unused", "error", filemode({"zero3_init_flag": False}),
         dsj(zero_optimization={"stage": 1, "stage3_prefetch_bucket_size": DROP,
                                "stage3_param_persistence_threshold": DROP})),
    _sev("fsdp-key-written-twice", "error", fsdp(1, fc={"sharding_strategy": "SHARD_GRAD_OP"})),
    _sev("fsdp-key-written-twice-same-value", "warning", fsdp(1, fc={"sharding_strategy": "FULL_SHARD"})),
    _sev("ds-json-ignored-subkey", "error", filemode(), dsj(aio={"thread_count": 4})),
    _sev("ds-json-ignored-subkey", "error", filemode(), dsj(aio={"queue_dept": 16})),
    _sev("ds-json-ignored-subkey-harmless", "warning", filemode(), dsj(aio={"thread_count": 1})),
    _sev("ds-json-ignored-subkey-harmless", "warning", filemode(), dsj(aio={"queue_dept": 8})),
    _sev("fp8-config-unused", "error", fsdp(fp8_config={"backend": "TE", "fp8_format": "HYBRID"})),
    _sev("legacy-top-level-fp16-ignored", "error", fsdp(fp16=True)),
    _sev("legacy-top-level-fp16-ignored", "error", fsdp(mixed_precision="fp16", fp16=False)),
    _sev("legacy-top-level-fp16", "warning", fsdp(mixed_precision="fp16", fp16=True)),
    _sev("single-process-num-processes-ignored", "error", dict(BASE, distributed_type="NO", num_processes=4)),
    _sev("number-as-string-fails", "error", fsdp(num_machines="1")),
    _sev("number-as-string-fails", "error", fsdp(num_processes="16", num_machines=2, main_process_ip="10.0.0.1")),
    _sev("number-as-string", "warning", fsdp(num_processes="8")),
    _sev("deepspeed-multinode-filter-ignored", "error",
         inline({"deepspeed_multinode_launcher": "standard", "deepspeed_exclusion_filter": "worker-1"},
                num_processes=16, num_machines=2, main_process_ip="10.0.0.1")),
    _sev("deepspeed-multinode-key-unused", "warning",
         inline({"deepspeed_multinode_launcher": "standard", "deepspeed_hostfile": "/hf"},
                num_processes=16, num_machines=2, main_process_ip="10.0.0.1")),
    _sev("deepspeed-multinode-key-unused", "warning", inline({"deepspeed_exclusion_filter": "localhost:1"})),
    # value equals what happens: stays a warning
    _sev("fsdp2-use-orig-params-obsolete", "warning", fsdp(fc={"fsdp_use_orig_params": True})),
    _sev("fsdp2-sync-module-states-obsolete", "warning", fsdp(fc={"fsdp_sync_module_states": True})),
    _sev("fsdp2-backward-prefetch-ignored", "warning", fsdp(fc={"fsdp_backward_prefetch": "NO_PREFETCH"})),
    _sev("fsdp1-reshard-after-forward-ignored", "warning",
         fsdp(1, fc={"fsdp_sharding_strategy": DROP, "fsdp_reshard_after_forward": "FULL_SHARD"})),
    _sev("ds-json-steps-per-print-overridden", "warning", filemode(), dsj(steps_per_print=10)),
    # works under the HF Trainer, raises in an own Accelerator loop: the context is unknown, so a warning
    _sev("ds-json-auto-trainer-only", "warning", filemode(),
         dsj(optimizer={"type": "AdamW", "params": {"lr": "auto", "eps": "auto"}})),
    _sev("ds-json-auto-batch-without-micro", "warning", filemode(), dsj(train_micro_batch_size_per_gpu=DROP)),
    _sev("ds-json-batch-missing", "error", filemode(), dsj(train_batch_size=DROP, train_micro_batch_size_per_gpu=DROP)),
    # a fixed total next to an "auto" micro batch starts when the dataloader's batch size fits: a warning, unless
    # no whole micro batch can fit
    _sev("ds-json-fixed-batch-auto-micro", "warning", filemode(), dsj(train_batch_size=64)),
    _sev("ds-json-batch-mismatch", "error", filemode(), dsj(train_batch_size=60, gradient_accumulation_steps=1)),
    # machine_rank: an error only where the launch reads it (torchrun, nossh); never on the runner's path
    _sev("machine-rank-too-high", "error",
         inline({"deepspeed_multinode_launcher": "nossh", "deepspeed_hostfile": "/hf"}, num_processes=16,
                num_machines=2, machine_rank=5, main_process_ip="10.0.0.1")),
    _sev("machine-rank-not-read", "warning",
         inline({"deepspeed_multinode_launcher": "pdsh", "deepspeed_hostfile": "/hf"}, num_processes=16,
                num_machines=2, machine_rank=5)),
    _sev("machine-rank-not-read", "warning", inline({"deepspeed_hostfile": "/hf"}, num_processes=16, num_machines=2,
                                                    machine_rank=1)),  # no launcher: pdsh
]


@pytest.mark.parametrize("rule,severity,y,ds,gpus", SEVERITY)
def test_severity_follows_the_contract(rule, severity, y, ds, gpus):
    assert RULES[rule].severity == severity
    fired = [f for f in run(y, ds, gpus=gpus) if f.rule == rule]
    assert fired, f"{rule} did not fire; got {sorted(names(y, ds, gpus=gpus))}"
    assert {f.severity for f in fired} == {severity}
    if severity == ERROR:  # `check` exits 2 on this config
        assert errors(y, ds, gpus=gpus)


def test_launcher_names_the_runner_lower_cases_are_valid():
    """accelerate compares standard/nossh exactly; DeepSpeed's runner lower-cases the rest and knows impi too."""
    def fires(launcher):
        return "deepspeed-multinode-launcher-invalid" in names(
            inline({"deepspeed_multinode_launcher": launcher, "deepspeed_hostfile": "/hf"}, num_processes=16,
                   num_machines=2, main_process_ip="10.0.0.1"))
    assert not any(fires(n) for n in ("standard", "nossh", "pdsh", "PDSH", "impi", "Slurm"))
    assert fires("Standard") and fires("NOSSH") and fires("torchrun")


def test_inline_accumulation_says_where_it_fails():
    """int() fails in Accelerator() for text; a count below 1 passes it and DeepSpeed refuses it in prepare()."""
    def message(value):
        [f] = [f for f in run(inline({"gradient_accumulation_steps": value}))
               if f.rule == "deepspeed-gradient-accumulation-invalid"]
        return f.message
    assert "int()" in message("two") and "int()" in message(2.5)
    assert "prepare()" in message(0) and "Accelerator()" not in message(0)


def test_buffer_dtype_is_checked_only_with_16_bit_precision():
    """DeepSpeed resolves data_types.buffer_dtype only when fp16/bf16 casts the module (runtime/engine.py:2080)."""
    bad = {"data_types": {"buffer_dtype": "bfloat32"}}
    assert "ds-json-dtype-invalid" in names(filemode(), dsj(**bad))
    assert "ds-json-dtype-invalid" not in names(filemode(), dsj(bf16={"enabled": False}, **bad))
    assert "ds-json-dtype-invalid" in names(filemode(), dsj(bf16={"enabled": False},
                                                            data_types={"grad_accum_dtype": "bfloat32"}))


def test_harmless_dead_values_keep_the_config_valid():
    """A dead value equal to what happens anyway must not make `check` fail (corpus 08, 19, 59)."""
    for y, ds in ((fsdp(1, fc={"fsdp_min_num_params": 0}), None),
                  (fsdp(1, fc={"sharding_strategy": "FULL_SHARD"}), None),
                  (filemode(), dsj(aio={"thread_count": 1})),
                  (inline({"deepspeed_hostfile": "/hf"}), None)):
        assert not errors(y, ds), [f.render() for f in errors(y, ds)]


# every key that must (or may) change to fix a fault caused by several settings is named
KEYS = [
    ("gpu-ids-too-few", fsdp(num_processes=4, gpu_ids="0,1"), None, {"gpu_ids", "num_processes"}),
    ("fsdp1-hybrid-shard-group-mismatch", fsdp(1, fc={"fsdp_sharding_strategy": "HYBRID_SHARD"}, num_processes=4),
     None, {"fsdp_config.fsdp_sharding_strategy", "num_processes", "num_machines"}),
    ("fsdp1-hybrid-shard-group-mismatch", fsdp(1, fc={"fsdp_sharding_strategy": "HYBRID_SHARD"}, num_processes=4,
                                                gpu_ids="0,1,2,3,4,5,6,7"),
     None, {"fsdp_config.fsdp_sharding_strategy", "num_processes", "num_machines", "gpu_ids"}),
    ("fsdp1-hybrid-shard-single-node", fsdp(1, fc={"fsdp_sharding_strategy": "HYBRID_SHARD"}), None,
     {"fsdp_config.fsdp_sharding_strategy", "num_machines"}),
    ("num-processes-not-divisible", fsdp(num_processes=9, num_machines=2, main_process_ip="10.0.0.1"), None,
     {"num_processes", "num_machines"}),
    ("more-processes-than-gpus", fsdp(num_processes=32, num_machines=2, main_process_ip="10.0.0.1"), None,
     {"num_processes", "num_machines"}),
    ("single-process-num-processes-ignored", dict(BASE, distributed_type="NO", num_processes=4), None,
     {"distributed_type", "num_processes"}),
    ("deepspeed-offload-param-below-stage3", inline({"offload_param_device": "cpu"}), None,
     {"deepspeed_config.offload_param_device", "deepspeed_config.zero_stage"}),
    ("deepspeed-offload-optimizer-stage0", inline({"zero_stage": 0, "offload_optimizer_device": "cpu"}), None,
     {"deepspeed_config.offload_optimizer_device", "deepspeed_config.zero_stage"}),
    ("deepspeed-nvme-below-stage3", filemode(),
     dsj(zero_optimization={"stage": 2, "offload_optimizer": {"device": "nvme", "nvme_path": "/nvme"}}),
     {"zero_optimization.offload_optimizer.device", "zero_optimization.stage"}),
    ("deepspeed-zero3-save-16bit-unused", inline({"zero3_save_16bit_model": True}), None,
     {"deepspeed_config.zero3_save_16bit_model", "deepspeed_config.zero_stage"}),
    ("ds-json-gather-16bit-unused", filemode({"zero3_init_flag": False}),
     dsj(zero_optimization={"stage": 2, "stage3_prefetch_bucket_size": DROP,
                            "stage3_param_persistence_threshold": DROP}),
     {"zero_optimization.stage3_gather_16bit_weights_on_model_save", "zero_optimization.stage"}),
    ("deepspeed-file-with-inline-keys", filemode({"zero_stage": 3}), dsj(),
     {"deepspeed_config.zero_stage", "deepspeed_config.deepspeed_config_file"}),
    ("machine-rank-too-high", inline({"deepspeed_multinode_launcher": "standard"}, num_processes=16, num_machines=2,
                                     machine_rank=2, main_process_ip="10.0.0.1"), None,
     {"machine_rank", "num_machines", "deepspeed_config.deepspeed_multinode_launcher"}),
    ("parallelism-shard-group-spans-machines",
     fsdp(num_processes=32, num_machines=4, main_process_ip="h",
          parallelism_config={"parallelism_config_dp_replicate_size": 2, "parallelism_config_dp_shard_size": 16}),
     None, {"parallelism_config.parallelism_config_dp_shard_size",
            "parallelism_config.parallelism_config_dp_replicate_size", "num_processes", "num_machines"}),
    ("ds-json-hpz-unused", filemode(), dsj(zero_optimization={"stage": 1, "zero_hpz_partition_size": 4,
                                                               "stage3_gather_16bit_weights_on_model_save": DROP}),
     {"zero_optimization.zero_hpz_partition_size", "zero_optimization.stage"}),
    ("ds-json-hpz-spans-machines", filemode(num_processes=16, num_machines=2, main_process_ip="h"),
     dsj(zero_optimization={"zero_hpz_partition_size": 16}),
     {"zero_optimization.zero_hpz_partition_size", "num_processes", "num_machines"}),
    ("deepspeed-multinode-no-hostfile", inline(num_processes=16, num_machines=2), None,
     {"deepspeed_config.deepspeed_hostfile", "deepspeed_config.deepspeed_multinode_launcher", "num_machines"}),
    ("fsdp-key-written-twice", fsdp(1, fc={"sharding_strategy": "SHARD_GRAD_OP"}), None,
     {"fsdp_config.fsdp_sharding_strategy", "fsdp_config.sharding_strategy"}),
    ("fsdp-wrap-classes-unused", fsdp(fc={"fsdp_auto_wrap_policy": "NO_WRAP",
                                          "fsdp_transformer_layer_cls_to_wrap": "LlamaDecoderLayer"}), None,
     {"fsdp_config.fsdp_transformer_layer_cls_to_wrap", "fsdp_config.fsdp_auto_wrap_policy"}),
    ("fsdp-min-num-params-unused", fsdp(fc={"fsdp_min_num_params": 100000000}), None,
     {"fsdp_config.fsdp_min_num_params", "fsdp_config.fsdp_auto_wrap_policy"}),
    ("fsdp-ram-efficient-loading-needs-sync", fsdp(1, fc={"fsdp_sync_module_states": False,
                                                          "fsdp_cpu_ram_efficient_loading": DROP}), None,
     {"fsdp_config.fsdp_sync_module_states", "fsdp_config.fsdp_cpu_ram_efficient_loading"}),
    ("fsdp-activation-checkpointing-offload-requirements", fsdp(1, fc={"fsdp_activation_checkpointing_offload": True}),
     None, {"fsdp_config.fsdp_activation_checkpointing_offload", "fsdp_config.fsdp_activation_checkpointing",
            "fsdp_config.fsdp_version"}),
    ("fsdp2-activation-checkpointing-without-wrap-policy",
     fsdp(fc={"fsdp_activation_checkpointing": True, "fsdp_auto_wrap_policy": "SIZE_BASED_WRAP",
              "fsdp_min_num_params": 0}), None,
     {"fsdp_config.fsdp_activation_checkpointing", "fsdp_config.fsdp_auto_wrap_policy", "fsdp_config.fsdp_version",
      "fsdp_config.fsdp_min_num_params"}),
    ("fsdp2-sharding-strategy-lost", fsdp(fc={"fsdp_sharding_strategy": "SHARD_GRAD_OP"}), None,
     {"fsdp_config.fsdp_sharding_strategy", "fsdp_config.fsdp_reshard_after_forward", "fsdp_config.fsdp_version"}),
    ("fsdp2-use-orig-params-false", fsdp(fc={"fsdp_use_orig_params": False}), None,
     {"fsdp_config.fsdp_use_orig_params", "fsdp_config.fsdp_version"}),
    ("section-ignored", fsdp(deepspeed_config={"zero_stage": 3}), None, {"deepspeed_config", "distributed_type"}),
    ("fp8-config-unused", fsdp(fp8_config={"backend": "TE"}), None, {"fp8_config", "mixed_precision"}),
    ("legacy-top-level-fp16-ignored", fsdp(fp16=True), None, {"fp16", "mixed_precision"}),
    ("multi-gpu-few-gpu-ids", dict(BASE, distributed_type="MULTI_GPU", gpu_ids="0"), None,
     {"gpu_ids", "distributed_type"}),
    ("ds-json-compute-grad-norm-invalid", filemode(), dsj(zero_optimization={"compute_grad_norm": False}),
     {"zero_optimization.compute_grad_norm", "zero_optimization.stage"}),
    ("ds-json-gradient-allreduce-op-invalid", filemode(), dsj(gradient_allreduce_op="sum"),
     {"gradient_allreduce_op", "zero_optimization.stage"}),
    ("unknown-parallelism-key", fsdp(parallelism_config={"parallelism_config_dp_shard_size": 8,
                                                         "parallelism_config_cp_comm_strategy": "alltoall"}), None,
     {"parallelism_config.parallelism_config_cp_comm_strategy", "parallelism_config.parallelism_config_cp_size"}),
]


@pytest.mark.parametrize("rule,y,ds,want", KEYS, ids=[f"{k[0]}-{i}" for i, k in enumerate(KEYS)])
def test_multi_setting_faults_name_every_key(rule, y, ds, want):
    fired = [f for f in run(y, ds) if f.rule == rule]
    assert fired, f"{rule} did not fire; got {sorted(names(y, ds))}"
    assert any(set(f.keys) == want for f in fired), [f.keys for f in fired]


def test_one_severity_per_rule():
    """A rule's findings always carry the registered severity (value-dependent severities are separate rules)."""
    for p in CASES:
        rule, bad, bad_ds, _, _, gpus = p.values
        for f in run(bad, bad_ds, gpus=gpus):
            assert f.severity == RULES[f.rule].severity, f.rule


# ---------------------------------------------------------------------------------------------------------------
# rules whose outcome depends on who drives training (issue 9): (rule, the loops it fires in, bad json, fixed json)
# ---------------------------------------------------------------------------------------------------------------
LOOPS = ("hf", "accelerate", None)
_BETAS_AUTO = dsj(optimizer={"type": "AdamW", "params": {"lr": "auto", "betas": "auto"}})
_BETAS_SET = dsj(optimizer={"type": "AdamW", "params": {"lr": "auto", "betas": [0.9, 0.999]}})
_TWO_LRS = dsj(optimizer={"type": "AdamW", "params": {"lr": 1e-4}},
               scheduler={"type": "WarmupLR", "params": {"warmup_max_lr": 2e-5}})
_ONE_LR = dsj(optimizer={"type": "AdamW", "params": {"lr": 1e-4}},
              scheduler={"type": "WarmupLR", "params": {"warmup_max_lr": 1e-4}})
_NO_NORM = dsj(gradient_clipping="auto", zero_optimization={"__replace__": True, "stage": 2,
                                                            "compute_grad_norm": False})
_NO_NORM_OFF = dsj(gradient_clipping=0.0, zero_optimization={"__replace__": True, "stage": 2,
                                                             "compute_grad_norm": False})


def _fm():
    return filemode({"zero3_init_flag": DROP})


def L(rule, loops, bad_ds, fixed_ds):
    return pytest.param(rule, loops, bad_ds, fixed_ds, id=rule)


LOOP_CASES = [
    L("ds-json-auto-trainer-only", {None}, _BETAS_AUTO, _BETAS_SET),
    L("ds-json-auto-trainer-only-own-loop", {"accelerate"}, _BETAS_AUTO, _BETAS_SET),
    L("ds-json-auto-batch-without-micro", {None}, dsj(train_micro_batch_size_per_gpu=DROP), dsj()),
    L("ds-json-auto-batch-without-micro-own-loop", {"accelerate"}, dsj(train_micro_batch_size_per_gpu=DROP), dsj()),
    L("ds-json-trainer-lr-conflict", {"hf"}, _TWO_LRS, _ONE_LR),
    L("ds-json-lr-conflict-unknown-loop", {None}, _TWO_LRS, _ONE_LR),
    L("ds-json-trainer-values-must-match", {"hf", None}, dsj(gradient_clipping=0.5), dsj()),
    L("ds-json-compute-grad-norm-auto-clipping", {"hf", None}, _NO_NORM, _NO_NORM_OFF),
    L("ds-json-optimizer-block-own-loop", {"accelerate"}, dsj(optimizer={"type": "AdamW", "params": {"lr": 1e-4}}),
      dsj()),
]


@pytest.mark.parametrize("rule,loops,bad_ds,fixed_ds", LOOP_CASES)
def test_loop_dependent_rule_follows_the_loop(rule, loops, bad_ds, fixed_ds):
    from wizard.core.context import Context

    assert rule in RULES
    for loop in LOOPS:
        ctx = Context(loop=loop)
        fired = [f for f in run(_fm(), bad_ds, context=ctx) if f.rule == rule]
        assert bool(fired) == (loop in loops), f"{rule} with loop {loop}: fired={bool(fired)}"
        for f in fired:
            assert f.severity == RULES[rule].severity and f.keys and all(f.keys)
        assert rule not in {f.rule for f in run(_fm(), fixed_ds, context=ctx)}, f"{rule} on the fix ({loop})"
    if RULES[rule].severity == ERROR:  # an error is only ever given where the loop is known to fail
        assert None not in loops


# rules that need the Trainer's arguments (check --training-args): (rule, the arguments, bad json, fixed json)
def TA(rule, targs, bad_ds, fixed_ds):
    return pytest.param(rule, targs, bad_ds, fixed_ds, id=rule)


_CONCRETE = dsj(train_batch_size=DROP, train_micro_batch_size_per_gpu=8, gradient_accumulation_steps=1,
                gradient_clipping=1.0, bf16={"enabled": False})
TRAINER_ARG_CASES = [
    TA("ds-json-trainer-argument-mismatch", {"max_grad_norm": 0.5}, dsj(gradient_clipping=1.0), dsj()),
    TA("ds-json-trainer-auto-filled", {}, dsj(), _CONCRETE),
    TA("ds-json-trainer-value-unknown", {},
       dsj(scheduler={"type": "WarmupDecayLR", "params": {"total_num_steps": 1000}}), dsj()),
]


@pytest.mark.parametrize("rule,targs,bad_ds,fixed_ds", TRAINER_ARG_CASES)
def test_trainer_argument_rule_needs_the_arguments(rule, targs, bad_ds, fixed_ds):
    from wizard.core.context import Context

    with_args = Context(loop="hf", trainer_arguments=targs)
    fired = [f for f in run(_fm(), bad_ds, context=with_args) if f.rule == rule]
    assert fired and all(f.severity == RULES[rule].severity and f.keys and all(f.keys) for f in fired)
    assert rule not in {f.rule for f in run(_fm(), fixed_ds, context=with_args)}
    for loop in LOOPS:  # without the arguments (or outside the Trainer) nothing is judged against them
        assert rule not in {f.rule for f in run(_fm(), bad_ds, context=Context(loop=loop))}


def test_unknown_loop_never_errs_where_the_trainer_succeeds():
    """The Trainer fills betas/eps and the total batch: with the loop unknown these are warnings, not errors."""
    from wizard.core.context import Context

    for bad in (_BETAS_AUTO, dsj(train_micro_batch_size_per_gpu=DROP), _TWO_LRS, _NO_NORM):
        for loop in ("hf", None):
            errs = [f.rule for f in run(_fm(), bad, context=Context(loop=loop)) if f.severity == ERROR]
            assert loop is None or "ds-json-trainer-lr-conflict" in errs or not errs, (loop, errs)
            if loop is None:
                assert not errs, errs


def test_compute_grad_norm_with_auto_clipping_fails_in_an_own_loop():
    from wizard.core.context import Context

    rules = {f.rule: f.severity for f in run(_fm(), _NO_NORM, context=Context(loop="accelerate"))}
    assert rules.get("ds-json-compute-grad-norm-invalid") == ERROR


def test_every_rule_has_a_case():
    covered = {p.values[0] for p in CASES} | {p.values[0] for p in LOOP_CASES} | {
        p.values[0] for p in TRAINER_ARG_CASES}
    assert set(RULES) - covered - NOT_PAIRED == set()


def test_registry_entries_are_complete():
    for name, info in RULES.items():
        assert name == info.name and name == name.lower() and " " not in name
        assert info.severity in ("error", "warning", "info") and info.summary and info.source


# ---------------------------------------------------------------------------------------------------------------
# known-good configs (what `accelerate config` and common recipes write) give no error
# ---------------------------------------------------------------------------------------------------------------
GOOD = {
    "fsdp2_questionnaire": fsdp(),
    "fsdp1_template": fsdp(1),
    "fsdp1_no_prefix_keys": fsdp(1, fc={"__replace__": True, "sharding_strategy": "FULL_SHARD", "version": 1,
                                        "auto_wrap_policy": "TRANSFORMER_BASED_WRAP", "use_orig_params": True}),
    "fsdp2_hsdp": fsdp(parallelism_config={"parallelism_config_dp_replicate_size": 2,
                                            "parallelism_config_dp_shard_size": 4}),
    "zero2_inline": inline(),
    "zero3_inline_cpu_offload": inline({"zero_stage": 3, "zero3_init_flag": True, "zero3_save_16bit_model": True,
                                        "offload_optimizer_device": "cpu", "offload_param_device": "cpu"}),
    "zero1_inline_optimizer_offload": inline({"zero_stage": 1, "offload_optimizer_device": "cpu"}),
}
GOOD_JSON = {
    "zero3_json_init_flag": (filemode(), dsj()),
    "zero3_json_nvme": (filemode(), dsj(zero_optimization={
        "offload_optimizer": {"device": "nvme", "nvme_path": "/local_nvme", "pin_memory": True, "buffer_count": 4},
        "offload_param": {"device": "nvme", "nvme_path": "/local_nvme", "pin_memory": True, "buffer_count": 5,
                          "buffer_size": 1e8, "max_in_cpu": 1e9}},
        aio={"block_size": 1048576, "queue_depth": 8, "intra_op_parallelism": 1, "single_submit": False,
             "overlap_events": True})),
    "zero2_json_fixed_batch": (filemode({"zero3_init_flag": False}),
                               {"train_batch_size": 64, "train_micro_batch_size_per_gpu": 4,
                                "gradient_accumulation_steps": 2, "gradient_clipping": 1.0,
                                "bf16": {"enabled": True}, "zero_optimization": {"stage": 2, "overlap_comm": True,
                                                                                  "allgather_bucket_size": 5e8}}),
    "zero3_json_optimizer_scheduler": (filemode(), dsj(
        optimizer={"type": "AdamW", "params": {"lr": "auto", "betas": [0.9, 0.999], "eps": 1e-8,
                                               "weight_decay": "auto"}},
        scheduler={"type": "WarmupDecayLR", "params": {"warmup_min_lr": "auto", "warmup_max_lr": "auto",
                                                       "warmup_num_steps": "auto", "total_num_steps": "auto"}})),
}


@pytest.mark.parametrize("name", sorted(GOOD))
def test_known_good_yaml_has_no_error(name):
    assert errors(GOOD[name]) == []


@pytest.mark.parametrize("name", sorted(GOOD_JSON))
def test_known_good_json_has_no_error(name):
    y, ds = GOOD_JSON[name]
    assert errors(y, ds) == []


def test_findings_sorted_errors_first():
    found = run(fsdp(fc={"fsdp_version": 3, "fsdp_use_orig_params": True}, num_processes="8"), gpus=None)
    ranks = [("error", "warning", "info").index(f.severity) for f in found]
    assert ranks == sorted(ranks) and ranks[0] == 0 and ranks[-1] == 2


def test_gpu_count_unknown_is_one_info():
    found = [f for f in run(fsdp(), gpus=None) if f.rule == "gpu-count-unknown"]
    assert len(found) == 1 and found[0].severity == "info"
    assert "more-processes-than-gpus" not in names(fsdp(num_processes=64), gpus=None)


def test_gpu_ids_are_not_counted_on_the_deepspeed_runner_path():
    """The DeepSpeed runner (several machines, any launcher but standard) sets each node's CUDA_VISIBLE_DEVICES from
    the hostfile slots, replacing gpu_ids (claim ds-runner-sets-visible-devices): too few gpu_ids fail nothing."""
    two = dict(num_processes=16, num_machines=2, main_process_ip="10.0.0.1", gpu_ids="0,1")
    assert "gpu-ids-too-few" not in names(inline(**two))
    assert "gpu-ids-too-few" in names(inline({"deepspeed_multinode_launcher": "standard"}, **two))
    assert "gpu-ids-too-few" in names(fsdp(**two))


def test_fp8_backend_no_is_accepted():
    """backend NO is an FP8BackendType value: accelerate then uses the first FP8 backend installed (claim
    launch-fp8-config)."""
    assert "fp8-backend-invalid" not in names(fsdp(mixed_precision="fp8", fp8_config={"backend": "NO"}))
    assert "fp8-backend-invalid" in names(fsdp(mixed_precision="fp8", fp8_config={"backend": "no"}))


def test_keys_are_spelled_as_written():
    y = fsdp(fc={"__replace__": True, "sharding_strategy": "ZERO3", "version": 1})
    found = errors(y)
    assert any(f.keys == ("fsdp_config.sharding_strategy",) for f in found), found


def test_fp8_backend_probe_is_injectable():
    y = fsdp(mixed_precision="fp8", fp8_config={"backend": "TE"})
    assert "fp8-backend-missing" in names(y, fp8=lambda: False)
    assert "fp8-backend-missing" not in names(y, fp8=lambda: True)


def test_ds_path_unknown_skips_json_rules():
    y = filemode()
    assert not any(f.rule.startswith("ds-json") for f in lint(y, None, gpus_per_node=8, ds_path_known=False))


# ---------------------------------------------------------------------------------------------------------------
# robustness: random nested garbage never crashes lint()
# ---------------------------------------------------------------------------------------------------------------
scalars = st.one_of(st.none(), st.booleans(), st.integers(-5, 10**9), st.floats(allow_nan=True),
                    st.text(max_size=12), st.sampled_from(["auto", "none", "nvme", "cpu", "FSDP", "DEEPSPEED",
                                                           "FULL_SHARD", "1e8", "bf16", "fp8", "no", "3", "ds.json"]))
key_names = st.one_of(st.text(max_size=10), st.sampled_from(
    sorted({"distributed_type", "fsdp_config", "deepspeed_config", "parallelism_config", "dynamo_config",
            "fp8_config", "mixed_precision", "num_processes", "num_machines", "gpu_ids", "zero_optimization",
            "fsdp_version", "fsdp_sharding_strategy", "zero_stage", "deepspeed_config_file", "stage", "offload_param",
            "device", "bf16", "fp16", "enabled", "train_batch_size", "optimizer", "scheduler", "params", "type",
            "parallelism_config_dp_shard_size", "fsdp_min_num_params", "fsdp_auto_wrap_policy"})), st.integers())
trees = st.recursive(scalars, lambda inner: st.one_of(st.lists(inner, max_size=4),
                                                      st.dictionaries(key_names, inner, max_size=6)), max_leaves=40)


@settings(max_examples=300, deadline=None)
@given(y=st.one_of(trees, st.dictionaries(key_names, trees, max_size=8)), ds=st.one_of(st.none(), trees),
       gpus=st.one_of(st.none(), st.integers(-2, 16)), known=st.booleans())
def test_lint_never_raises(y, ds, gpus, known):
    found = lint(y, ds, gpus_per_node=gpus, ds_path_known=known, fp8_available=lambda: False)
    assert isinstance(found, list) and all(isinstance(f, Finding) for f in found)
    assert not [f for f in found if f.rule == "linter-internal-error"], found


@settings(max_examples=150, deadline=None)
@given(fc=st.dictionaries(st.sampled_from(sorted(FSDP1) + ["sharding_strategy", "min_num_params"]), scalars),
       dc=st.dictionaries(st.sampled_from(sorted(Z2) + ["deepspeed_config_file", "offload_param_nvme_path"]),
                          scalars),
       ds=st.dictionaries(st.sampled_from(sorted(DSJ) + ["fp16", "optimizer", "aio"]), trees))
def test_lint_never_raises_on_plausible_configs(fc, dc, ds):
    for y in (fsdp(fc=fc), inline(dc), filemode(dc)):
        found = lint(y, ds, gpus_per_node=8, fp8_available=lambda: False)
        assert not [f for f in found if f.rule == "linter-internal-error"], found


@settings(max_examples=300, deadline=None)
@given(ds=st.one_of(trees, st.dictionaries(key_names, trees, max_size=10),
                    st.dictionaries(st.sampled_from(sorted(DSJ) + ["fp16", "optimizer", "scheduler", "aio",
                                                                   "_comment", "steps_per_print"]), trees)),
       n=st.one_of(st.none(), st.integers(-2, 64)), loop=st.sampled_from(["hf", "accelerate", None]),
       version=st.sampled_from([None, "0.14.5", "0.16.4", "0.19.8", "1.2.0"]))
def test_a_deepspeed_json_alone_never_crashes_the_linter(ds, n, loop, version):
    from wizard.core.context import Context
    from wizard.core.lint import lint_ds_json

    found = lint_ds_json(ds if isinstance(ds, dict) else {}, num_processes=n,
                         context=Context(loop=loop, versions={"deepspeed": version}))
    assert isinstance(found, list) and all(isinstance(f, Finding) for f in found)
    assert not [f for f in found if f.rule == "linter-internal-error"], found


# ---------------------------------------------------------------------------------------------------------------
# configfile + gpus
# ---------------------------------------------------------------------------------------------------------------
def test_load_config_files_reads_a_json_only_next_to_the_yaml_and_warns(tmp_path, monkeypatch):
    """accelerate opens a relative path from its working folder: found only next to the YAML, it is still read (to
    lint it) but the config fails when launched from here, and check says so (issue 13)."""
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "a.yaml").write_text(yaml.safe_dump(filemode()))
    (tmp_path / "cfg" / "ds.json").write_text(json.dumps(dsj()))
    monkeypatch.chdir(tmp_path)
    lc = load_config_files(tmp_path / "cfg" / "a.yaml")
    assert lc.ds == dsj() and lc.ds_path == tmp_path / "cfg" / "ds.json" and lc.ds_path_known
    [f] = lc.findings
    assert (f.rule, f.severity, f.keys) == ("ds-config-file-not-from-here", "warning",
                                            ("deepspeed_config.deepspeed_config_file",))
    assert f"current folder {tmp_path}" in f.message and f"Launch from {tmp_path / 'cfg'}" in f.fix
    monkeypatch.chdir(tmp_path / "cfg")  # from the YAML's folder the path resolves: no warning
    lc = load_config_files("a.yaml")
    assert lc.ds == dsj() and lc.findings == []


def test_load_config_files_resolves_from_the_current_folder_as_accelerate_does(tmp_path, monkeypatch):
    """Two files of the same name: accelerate opens the one from its working folder, so the linter reads that one."""
    (tmp_path / "cfg").mkdir()
    (tmp_path / "cfg" / "a.yaml").write_text(yaml.safe_dump(filemode()))
    (tmp_path / "cfg" / "ds.json").write_text(json.dumps(dsj()))
    here = dsj(zero_optimization={"stage": 2})
    (tmp_path / "ds.json").write_text(json.dumps(here))
    monkeypatch.chdir(tmp_path)
    lc = load_config_files(tmp_path / "cfg" / "a.yaml")
    assert lc.ds == here and lc.ds_path == tmp_path / "ds.json" and lc.findings == []


def test_a_path_written_for_the_launch_folder_above_the_yaml(tmp_path, monkeypatch):
    """The wizard's own `out/ds_config.json` (relative to the launch folder above out/): fine from there; from
    elsewhere a warning naming the folder to launch from."""
    out = tmp_path / "repo" / "out"
    out.mkdir(parents=True)
    (out / "accelerate_config.yaml").write_text(yaml.safe_dump(filemode({"deepspeed_config_file": "out/ds.json"})))
    (out / "ds.json").write_text(json.dumps(dsj()))
    monkeypatch.chdir(tmp_path / "repo")
    assert load_config_files("out/accelerate_config.yaml").findings == []
    monkeypatch.chdir(tmp_path)
    lc = load_config_files(out / "accelerate_config.yaml")
    assert lc.ds == dsj()
    assert [(f.rule, f.fix.split(",")[0]) for f in lc.findings] == [
        ("ds-config-file-not-from-here", f"Launch from {tmp_path / 'repo'}")]


def test_an_absolute_path_outside_the_current_folder_warns(tmp_path, monkeypatch):
    (tmp_path / "elsewhere").mkdir()
    (tmp_path / "proj").mkdir()
    ds = tmp_path / "elsewhere" / "ds.json"
    ds.write_text(json.dumps(dsj()))
    y = tmp_path / "proj" / "a.yaml"
    y.write_text(yaml.safe_dump(filemode({"deepspeed_config_file": str(ds)})))
    monkeypatch.chdir(tmp_path / "proj")
    [f] = load_config_files(y).findings
    assert (f.rule, f.severity) == ("ds-config-file-absolute-elsewhere", "warning")
    assert str(ds) in f.message and "relative to the folder you launch from" in f.fix
    monkeypatch.chdir(tmp_path)  # inside the current folder: it works from here and from a copy of this folder
    assert load_config_files(y).findings == []


def test_load_config_files_problems(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)  # launched from the YAML's folder: the relative path is the one accelerate opens
    y = tmp_path / "a.yaml"
    with pytest.raises(InputError):
        load_config_files(tmp_path / "missing.yaml")
    y.write_text("- 1\n- 2\n")
    with pytest.raises(InputError, match="mapping"):
        load_config_files(y)
    y.write_text("a: [1\n")
    with pytest.raises(InputError, match="not valid YAML"):
        load_config_files(y)
    y.write_text(yaml.safe_dump(filemode()))
    lc = load_config_files(y)
    assert [f.rule for f in lc.findings] == ["ds-config-file-missing"]
    assert lc.findings[0].keys == ("deepspeed_config.deepspeed_config_file",) and not lc.ds_path_known
    (tmp_path / "ds.json").write_text('{"zero_optimization": {"stage": 3},}')
    assert [f.rule for f in load_config_files(y).findings] == ["ds-config-file-invalid-json"]


def test_load_config_files_reads_1e8_as_string_and_finds_duplicates(tmp_path):
    y = tmp_path / "a.yaml"
    y.write_text("distributed_type: FSDP\nnum_processes: 2\nnum_processes: 4\nfsdp_config:\n"
                 "  fsdp_min_num_params: 1e8\n  fsdp_version: 2\n  fsdp_version: 2\n")
    lc = load_config_files(y)
    assert lc.yaml["fsdp_config"]["fsdp_min_num_params"] == "1e8"
    assert {(f.rule, f.keys) for f in lc.findings} == {("duplicate-key", ("num_processes",)),
                                                       ("duplicate-key-same-value", ("fsdp_config.fsdp_version",))}


def test_loader_rules_fire(tmp_path):
    fired = set()
    y = tmp_path / "a.yaml"

    def load(dc, ds_text=None):
        y.write_text(yaml.safe_dump(filemode(dc)))
        if ds_text is not None:
            (tmp_path / "ds.json").write_bytes(ds_text)
        found = load_config_files(y).findings
        for f in found:
            assert f.rule in RULES and f.severity == RULES[f.rule].severity and f.keys
        fired.update(f.rule for f in found)

    load({"deepspeed_config_file": "~/no/such/ds.json"})
    load({"deepspeed_config_file": str(tmp_path / "ds.json")}, b'{"zero_optimization": {"stage": 2}}')  # absolute
    load({"deepspeed_config_file": "nope.json"})
    load({}, b"\xff\xfe not utf-8")
    load({}, b"[1, 2]")
    load({}, b'{"zero_optimization": {"stage": 2}, "train_batch_size": 8, "train_batch_size": 16, '
             b'"gradient_clipping": 1.0, "gradient_clipping": 1.0}')
    assert fired == LOADER_RULES


def test_visible_devices_limit(monkeypatch):
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "0,1,2")
    assert _visible_limit() == 3
    monkeypatch.setenv("CUDA_VISIBLE_DEVICES", "")
    assert _visible_limit() == 0
    monkeypatch.delenv("CUDA_VISIBLE_DEVICES")
    assert _visible_limit() is None
    n = detect_gpus_per_node()
    assert n is None or n >= 1


def test_lint_path_imports_nothing_heavy(tmp_path):
    cfg = tmp_path / "a.yaml"
    cfg.write_text(yaml.safe_dump(filemode()))
    (tmp_path / "ds.json").write_text(json.dumps(dsj()))
    src = ("import sys, json\nfrom wizard.core.lint import lint, load_config_files\n"
           "from wizard.core.gpus import detect_gpus_per_node\n"
           f"lc = load_config_files({str(cfg)!r})\nlint(lc.yaml, lc.ds, gpus_per_node=detect_gpus_per_node())\n"
           "print(json.dumps([m for m in ('torch', 'accelerate', 'deepspeed', 'textual') if m in sys.modules]))")
    proc = subprocess.run([sys.executable, "-c", src], cwd=ROOT, capture_output=True, text=True, timeout=60)
    assert proc.returncode == 0, proc.stderr
    assert json.loads(proc.stdout) == []


# ---------------------------------------------------------------------------------------------------------------
# ground truth for a few errors: the real accelerate / deepspeed code raises or changes the value
# ---------------------------------------------------------------------------------------------------------------
@pytest.mark.verify
def test_verify_min_num_params_1e8_raises(clean_env):
    from accelerate.utils import FullyShardedDataParallelPlugin

    y = fsdp(fc={"fsdp_auto_wrap_policy": "SIZE_BASED_WRAP", "fsdp_min_num_params": "1e8"})
    assert "fsdp-min-num-params-invalid" in names(y)
    clean_env.setenv("FSDP_VERSION", "2")
    clean_env.setenv("FSDP_AUTO_WRAP_POLICY", "SIZE_BASED_WRAP")
    clean_env.setenv("FSDP_MIN_NUM_PARAMS", str(y["fsdp_config"]["fsdp_min_num_params"]))
    with pytest.raises(ValueError, match="invalid literal for int"):
        FullyShardedDataParallelPlugin()


@pytest.mark.verify
def test_verify_ds_file_with_inline_keys_raises(clean_env, tmp_path):
    from accelerate.utils import DeepSpeedPlugin

    y = filemode({"zero_stage": 3})
    assert "deepspeed-file-with-inline-keys" in names(y, dsj())
    (tmp_path / "ds.json").write_text(json.dumps(dsj()))
    clean_env.setenv("ACCELERATE_DEEPSPEED_CONFIG_FILE", str(tmp_path / "ds.json"))
    clean_env.setenv("ACCELERATE_CONFIG_DS_FIELDS", ",".join(y["deepspeed_config"]).lower())
    with pytest.raises(ValueError, match="will be ignored"):
        DeepSpeedPlugin()


@pytest.mark.verify
def test_verify_inline_zero_clipping_still_clips(clean_env):
    from accelerate.utils import DeepSpeedPlugin
    from deepspeed.runtime.config import DeepSpeedConfig

    assert "deepspeed-gradient-clipping-zero-ignored" in names(inline({"gradient_clipping": 0.0}))
    clean_env.setenv("ACCELERATE_GRADIENT_CLIPPING", "0.0")
    clean_env.setenv("ACCELERATE_DEEPSPEED_ZERO_STAGE", "2")
    plugin = DeepSpeedPlugin()
    cfg = dict(plugin.deepspeed_config, train_batch_size=8, train_micro_batch_size_per_gpu=8,
               gradient_accumulation_steps=1)
    assert "gradient_clipping" not in cfg
    assert DeepSpeedConfig(cfg).gradient_clipping == 1.0


@pytest.mark.verify
def test_verify_unknown_zero_key_raises():
    import pydantic
    from deepspeed.runtime.config import DeepSpeedConfig

    ds = dsj(train_batch_size=8, train_micro_batch_size_per_gpu=8, gradient_accumulation_steps=1,
             gradient_clipping=1.0, bf16={"enabled": True},
             zero_optimization={"__replace__": True, "stage": 3, "offload_params": {"device": "cpu"}})
    assert "ds-json-unknown-key" in names(filemode(), ds)
    with pytest.raises(pydantic.ValidationError, match="offload_params"):
        DeepSpeedConfig(ds)


def test_every_compile_mode_the_wizard_offers_passes_the_linter():
    """A false error was here: the linter knew only accelerate's short CLI list and flagged max-autotune-no-cudagraphs,
    which the wizard offers and torch.compile accepts from a config."""
    from wizard.core.answers import default_answers
    from wizard.core.answers.render import render
    from wizard.core.catalog import SETTING_BY_ID
    from wizard.core.lint import lint

    for mode in SETTING_BY_ID["launch.dynamo_mode"].choices:
        a = default_answers().replace({"launch.dynamo_backend": "inductor", "launch.dynamo_mode": mode})
        out = render(a)
        assert out.accelerate["dynamo_config"]["dynamo_mode"] == mode
        rules = {f.rule for f in lint(out.accelerate, out.deepspeed, gpus_per_node=None)}
        assert "dynamo-mode-invalid" not in rules, mode


def test_machine_rank_on_the_deepspeed_runner_path_is_never_an_error():
    """pdsh, the MPI launchers and slurm never get machine_rank: even one far out of range is only a warning."""
    for launcher in ("pdsh", "openmpi", "mvapich", "mpich", "slurm"):
        found = {f.rule: f.severity for f in run(inline({"deepspeed_multinode_launcher": launcher,
                                                         "deepspeed_hostfile": "/hf"}, num_processes=16,
                                                        num_machines=2, machine_rank=7))}
        assert "machine-rank-too-high" not in found and found.get("machine-rank-not-read") == "warning", launcher


def test_hpz_alone_in_a_json_checks_the_world_only_when_given():
    from wizard.core.lint import lint_ds_json

    ds = dsj(zero_optimization={"zero_hpz_partition_size": 3})
    assert "ds-json-hpz-not-dividing" not in {f.rule for f in lint_ds_json(ds)}  # world size unknown
    assert "ds-json-hpz-not-dividing" in {f.rule for f in lint_ds_json(ds, num_processes=16)}
    # a size above the world is cut down to it by DeepSpeed: no error
    assert "ds-json-hpz-not-dividing" not in {f.rule for f in lint_ds_json(
        dsj(zero_optimization={"zero_hpz_partition_size": 32}), num_processes=16)}


def test_fsdp2_sharding_over_every_machine_without_replication_is_no_hsdp_finding():
    """dp_shard over all 16 ranks of 2 machines (no dp_replicate) is plain FULL_SHARD across machines: meant."""
    y = fsdp(num_processes=16, num_machines=2, main_process_ip="h",
             parallelism_config={"parallelism_config_dp_shard_size": 16})
    assert "parallelism-shard-group-spans-machines" not in names(y)
    y = fsdp(num_processes=16, num_machines=2, main_process_ip="h",
             parallelism_config={"parallelism_config_dp_replicate_size": 2, "parallelism_config_dp_shard_size": 8})
    assert "parallelism-shard-group-spans-machines" not in names(y)  # the preset's layout: one machine per group


def test_nossh_is_refused_only_below_deepspeed_0_14_5():
    from wizard.core.context import Context

    y = inline({"deepspeed_multinode_launcher": "nossh", "deepspeed_hostfile": "/hf"}, num_processes=16,
               num_machines=2, main_process_ip="10.0.0.1")
    def found(version):
        return {f.rule: (f.severity, f.keys) for f in run(y, context=Context(versions={"deepspeed": version}))}
    assert found("0.14.4")["deepspeed-nossh-too-old"] == (
        "error", ("deepspeed_config.deepspeed_multinode_launcher", "num_machines"))
    assert "deepspeed-nossh-too-old" not in found("0.14.5")
    assert "deepspeed-nossh-too-old" not in found("0.19.8")


def test_fsdp2_drops_ignored_modules_before_torch_2_7():
    """FSDP2 on torch < 2.7: the plugin sets ignored_modules to None (an error naming the key and the version);
    on torch 2.7+, or FSDP1, or torch unknown (judged as the verified 2.13): the informational note only."""
    from wizard.core.context import Context

    y = fsdp(fc={"fsdp_ignored_modules": "vision_tower"})

    def rules(cfg, torch):
        found = lint(cfg, None, gpus_per_node=8, context=Context(versions={"torch": torch} if torch else {}))
        return {f.rule: f for f in found if "ignored" in f.rule}

    old = rules(y, "2.6.0")
    assert set(old) == {"fsdp2-ignored-modules-dropped"}
    assert old["fsdp2-ignored-modules-dropped"].severity == ERROR
    assert old["fsdp2-ignored-modules-dropped"].keys == ("fsdp_config.fsdp_ignored_modules", "fsdp_config.fsdp_version")
    assert "torch 2.6.0" in old["fsdp2-ignored-modules-dropped"].message
    assert set(rules(y, "2.7.0")) == {"fsdp-ignored-modules-not-reduced"}
    assert set(rules(fsdp(1, fc={"fsdp_ignored_modules": "vision_tower"}), "2.6.0")) == {
        "fsdp-ignored-modules-not-reduced"}
    unknown = rules(y, None)["fsdp-ignored-modules-not-reduced"]
    assert "older torch drops it" in unknown.message
