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

FP8_LAUNCH_DEFAULTS = {
    "fp8_use_autocast_during_eval": False, "fp8_margin": 0, "fp8_interval": 1, "fp8_format": "HYBRID",
    "fp8_amax_history_len": 1024, "fp8_amax_compute_algo": "most_recent",
    "fp8_override_linear_precision": (False, False, False), "fp8_opt_level": "O2",
    "fp8_enable_fsdp_float8_all_gather": True, "fp8_pad_inner_dim": True,
}
"""The launcher's defaults of its fp8 arguments (commands/launch.py:788-860): with mixed_precision fp8 every one is
exported, written or not (utils/launch.py:82-97 skips None only, and only ``fp8_backend`` defaults to None)."""
FP8_AUTO_ORDER = ("AO", "TE", "MSAMP")
"""Without a backend (``fp8_config.backend`` not written, or NO), the Accelerator builds the recipe of the first of
these whose package is installed: torchao, Transformer Engine, MS-AMP (accelerator.py:488-503)."""
FP8_BACKEND_NAMES = ("AO", "TE", "MSAMP", "NO")
"""FP8BackendType's values, upper case only (utils/dataclasses.py); NO: the first installed."""
FP8_PACKAGES = {"AO": ("torchao", "torchao"), "TE": ("transformer_engine", "Transformer Engine"),
                "MSAMP": ("msamp", "MS-AMP")}
"""Backend -> (the import name its recipe (or the auto pick) checks, the package in words)."""
FP8_RECIPE_CLASS = {"TE": "TERecipeKwargs", "MSAMP": "MSAMPRecipeKwargs", "AO": "AORecipeKwargs"}
"""The recipe kwargs class accelerate builds from the launch environment for each backend."""
FP8_PARSE = {"margin": "int", "interval": "int", "amax_history_len": "int", "fp8_format": "upper",
             "amax_compute_algo": "lower", "use_autocast_during_eval": "flag", "override_linear_precision": "flags3",
             "opt_level": "as_is", "enable_fsdp_float8_all_gather": "flag", "pad_inner_dim": "flag"}
"""How each recipe reads its variable: ``int(...)``; upper- or lower-cased, then checked against the field's choices;
``parse_flag_from_env`` (str_to_bool, which raises on other words); three flags (the launcher indexes the value
[0], [1], [2]); the text as it is, checked against the choices (utils/dataclasses.py:312-460)."""
FP8_CHOICES = {"fp8_format": ("HYBRID", "E4M3", "E5M2"), "amax_compute_algo": ("max", "most_recent"),
               "opt_level": ("O1", "O2")}
"""The values the recipes accept for their choice fields (the Literal types FP8Format, AmaxComputeAlgorithm,
OptLevel, utils/dataclasses.py:305-308)."""

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
