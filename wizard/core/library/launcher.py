"""The accelerate config file and ``accelerate launch`` (accelerate 1.15.0): the top-level fields a config may have,
the keys the launcher reads in each section, and which ``distributed_type`` reads which section.

``accelerate launch`` copies every key of every section onto its argparse namespace (fsdp_config keys get ``fsdp_``
prepended when they do not start with ``fsdp``, fp8_config ``fp8_``, dynamo_config ``dynamo_``; deepspeed_config and
parallelism_config keys are copied as written), then reads only the attributes it knows. A key nobody reads is
silently ignored (commands/launch.py:1262-1277). The key sets below are the attributes the launcher functions read
(commands/launch.py and utils/launch.py). The fsdp_config keys are in :mod:`.fsdp`, the deepspeed_config keys in
:mod:`.deepspeed`.
"""
from __future__ import annotations

CLUSTER_FIELDS = frozenset({
    "command_file", "commands", "compute_environment", "debug", "deepspeed_config", "distributed_type",
    "downcast_bf16", "dynamo_config", "enable_cpu_affinity", "fp8_config", "fsdp_config", "gpu_ids",
    "machine_rank", "main_process_ip", "main_process_port", "main_training_function", "megatron_lm_config",
    "mixed_precision", "mpirun_config", "num_machines", "num_processes", "parallelism_config", "rdzv_backend",
    "same_network", "tpu_env", "tpu_name", "tpu_use_cluster", "tpu_use_sudo", "tpu_vm", "tpu_zone", "use_cpu",
})
"""ClusterConfig fields (accelerate/commands/config/config_args.py:184-231, BaseConfig :76-80),
docs/library-behaviour.md#config-loading."""
SAGEMAKER_FIELDS = frozenset({
    "additional_args", "base_job_name", "compute_environment", "debug", "distributed_type", "dynamo_config",
    "ec2_instance_type", "enable_cpu_affinity", "gpu_ids", "iam_role_name", "image_uri", "mixed_precision",
    "num_machines", "profile", "py_version", "pytorch_version", "region", "sagemaker_inputs_file",
    "sagemaker_metrics_file", "transformers_version", "use_cpu",
})
"""SageMakerConfig fields (config_args.py:234-255), used when compute_environment is AMAZON_SAGEMAKER."""
LEGACY_TOP_LEVEL = frozenset({"fp16", "dynamo_backend"})
"""Converted by BaseConfig.process_config before the unknown-key check (config_args.py:113-119)."""

GENERAL_ARGS = frozenset({
    "num_processes", "num_machines", "machine_rank", "main_process_ip", "main_process_port", "mixed_precision",
    "gpu_ids", "same_network", "rdzv_backend", "debug", "num_cpu_threads_per_process", "enable_cpu_affinity",
    "max_restarts", "monitor_interval", "nproc_per_node", "nnodes", "master_addr", "master_port",
})
"""Top-level launch settings: a section key with one of these names still overrides the top-level value, because
the launcher copies section keys flat onto the same namespace."""
SECTION_USERS = {
    "fsdp_config": frozenset({"FSDP"}),
    "deepspeed_config": frozenset({"DEEPSPEED"}),
    "megatron_lm_config": frozenset({"MEGATRON_LM"}),
    "mpirun_config": frozenset({"MULTI_CPU"}),
}
"""The sections read for each distributed_type; others are ignored (docs/library-behaviour.md#launch-copies-section-
keys)."""

DYNAMO_KEYS = frozenset({"dynamo_backend", "dynamo_mode", "dynamo_use_fullgraph", "dynamo_use_dynamic",
                         "dynamo_use_regional_compilation"})
"""dynamo_config keys the launcher reads (utils/launch.py:298-302)."""
FP8_KEYS = frozenset({"fp8_backend", "fp8_use_autocast_during_eval", "fp8_margin", "fp8_interval", "fp8_format",
                      "fp8_amax_history_len", "fp8_amax_compute_algo", "fp8_override_linear_precision",
                      "fp8_opt_level", "fp8_enable_fsdp_float8_all_gather", "fp8_pad_inner_dim"})
"""fp8_config keys an FP8 recipe reads (utils/launch.py:82-97, utils/dataclasses.py:312-480)."""
FP8_MISNAMED = {"fp8_amax_history_length": "amax_history_len", "fp8_amax_compute_algorithm": "amax_compute_algo",
                "fp8_optimization_level": "opt_level"}
"""Names ``accelerate config`` writes that no reader uses (commands/config/cluster.py:837-876) -> the name read."""
FP8_RECIPE_KEYS = {
    "TE": ("fp8_format", "margin", "interval", "amax_history_len", "amax_compute_algo", "override_linear_precision",
           "use_autocast_during_eval"),
    "MSAMP": ("opt_level",),
    "AO": ("enable_fsdp_float8_all_gather", "pad_inner_dim"),
}
"""FP8 backend (``fp8_config.backend``) -> the fp8_config keys its recipe reads, as ``accelerate config`` spells them
(the launcher prepends ``fp8_`` and exports ``ACCELERATE_FP8_<NAME>``; ``override_linear_precision``, a list of three,
becomes ACCELERATE_FP8_OVERRIDE_FPROP / _DGRAD / _WGRAD): TERecipeKwargs, MSAMPRecipeKwargs and AORecipeKwargs
(utils/dataclasses.py:312-460, utils/launch.py:82-97)."""

PC = "parallelism_config_"
"""The prefix every parallelism_config key keeps (the launcher adds none)."""
PARALLELISM_ALWAYS = frozenset(PC + k for k in ("dp_replicate_size", "dp_shard_size", "tp_size", "cp_size",
                                                 "cp_backend", "sp_size", "sp_backend"))
PARALLELISM_CP = frozenset({PC + "cp_comm_strategy"})
PARALLELISM_SP = frozenset(PC + k for k in ("sp_seq_length", "sp_seq_length_is_variable",
                                             "sp_attn_implementation"))
PARALLELISM_KEYS = PARALLELISM_ALWAYS | PARALLELISM_CP | PARALLELISM_SP
"""parallelism_config keys the launcher exports (utils/launch.py:403-427): the sizes and backends always, the
context-parallel strategy only when cp_size > 1, the sequence-parallel details only when sp_size > 1."""
MESH_ORDER = ("dp_replicate", "dp_shard", "cp", "sp", "tp")
"""The order in which accelerate lays out the device mesh's dimensions (``ParallelismConfig._get_mesh``,
parallelism_config.py:260-272): the last varies fastest, so tensor-parallel groups are consecutive ranks."""
