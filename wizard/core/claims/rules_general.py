"""Claims stated by the general config rules (wizard/core/lint/general.py and configfile.py): loading the YAML,
processes and GPUs, mixed precision and FP8, dynamo, parallelism_config and the DeepSpeed JSON file
(see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_rules_general.py::"

# ---------------------------------------------------------------- loading the YAML
LOADER_ENUMS = claim(
    "config-loader-required-and-enums",
    "accelerate's config loader refuses a file without distributed_type and turns distributed_type and "
    "compute_environment into their enum types by exact value (upper-case names; the SageMaker types under "
    "AMAZON_SAGEMAKER), so any other spelling fails loading with a ValueError.",
    doc="config-loading",
    code="accelerate/commands/config/config_args.py:107-110,166-174; accelerate/utils/dataclasses.py:602-638,675-686",
    demo=_T + "test_the_loader_requires_distributed_type_and_exact_enum_names",
    scope=("exact-names-load", "distributed-type-required", "distributed-type-spelling", "compute-environment-spelling",
           "sagemaker-types"))
LEGACY_KEYS = claim(
    "config-loader-legacy-keys",
    "The loader still reads two old top-level keys: fp16 becomes mixed_precision fp16 (when true) only if "
    "mixed_precision is absent and is deleted either way; dynamo_backend replaces the whole dynamo_config with "
    "{dynamo_backend: value} (an empty one for NO).",
    doc="config-loading", code="accelerate/commands/config/config_args.py:113-119",
    demo=_T + "test_the_loader_translates_the_old_fp16_and_dynamo_backend_keys",
    scope=("fp16-true", "fp16-false", "fp16-with-mixed-precision", "dynamo-backend", "dynamo-backend-no"))
DUPLICATE_KEYS = claim(
    "config-duplicate-keys-last-wins",
    "accelerate reads the YAML with yaml.safe_load and the DeepSpeed JSON with json.load; both keep the last of two "
    "values written for the same key, without a message.",
    doc="config-loading",
    code="accelerate/commands/config/config_args.py:148-152; accelerate/utils/deepspeed.py:141-143",
    demo=_T + "test_a_key_written_twice_keeps_its_last_value",
    scope=("yaml", "json"))
NPROC_DEFAULT = claim(
    "config-num-processes-default-minus-one",
    "A config file without num_processes loads with num_processes -1 (1 for distributed_type NO), which accelerate "
    "launch refuses like a written -1 unless --num_processes is given.",
    doc="config-loading",
    code="accelerate/commands/config/config_args.py:111-112,180; accelerate/commands/launch.py:1305-1306",
    demo=_T + "test_a_missing_num_processes_is_minus_one",
    scope=("missing", "distributed-type-no", "launch-refuses", "flag-given"))

# ---------------------------------------------------------------- processes, machines and GPUs
COUNTS_AS_WRITTEN = claim(
    "launch-process-counts-as-written",
    "accelerate launch uses num_processes and num_machines from the YAML as written, without converting or checking "
    "them: num_machines as a string fails comparing with 1 (TypeError); num_processes as a string is passed on as "
    "text on one machine, and fails being divided by num_machines on several.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:212-218,476-490",
    demo=_T + "test_process_counts_are_used_as_written",
    scope=("num-processes-string-one-machine", "num-processes-string-several", "num-machines-string"))
GPU_IDS_STRING = claim(
    "launch-gpu-ids-string",
    "accelerate launch splits gpu_ids on commas as a string before anything starts: a YAML number (gpu_ids: 0) "
    "fails with an AttributeError, whatever the distributed_type.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:1249-1258",
    demo=_T + "test_gpu_ids_must_be_a_string",
    scope=("string", "fsdp", "deepspeed", "multi-gpu", "no"))
MULTI_GPU_ONE = claim(
    "launch-multi-gpu-one-process",
    "distributed_type MULTI_GPU with num_processes 1 on one machine makes accelerate launch run torchrun, its "
    "multi-GPU launcher, with a single process.",
    doc="processes-and-machines",
    code="accelerate/utils/launch.py:225-227",
    demo=_T + "test_multi_gpu_with_one_process_runs_torchrun_with_one",
    scope=("torchrun-one-process",))
NO_RUNS_ONE = claim(
    "launch-distributed-type-no-one-process",
    "With a config file, distributed_type NO makes accelerate launch use its simple launcher, which starts one "
    "process whatever num_processes says; it switches to multi-GPU on seeing several GPUs only when no config file "
    "is used.",
    doc="processes-and-machines",
    code="accelerate/commands/launch.py:1217-1248,1307-1346,1390-1412; accelerate/utils/launch.py:100-130",
    demo=_T + "test_distributed_type_no_starts_one_process",
    scope=("simple-launcher-one-process", "no-switch-with-config-file", "switch-without-config-file"))
MULTINODE_IP = claim(
    "launch-multinode-endpoint-needs-ip",
    "With several machines torchrun's rendezvous endpoint is built from main_process_ip even when it is missing, "
    "as 'None:<port>', so the machines cannot meet unless --main_process_ip is given.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:216-224,488-496",
    demo=_T + "test_a_missing_main_process_ip_becomes_none_in_the_endpoint",
    scope=("missing-ip", "ip-given"))

# ---------------------------------------------------------------- mixed precision and FP8
MP_VALUES = claim(
    "launch-mixed-precision-values",
    "The launcher lower-cases mixed_precision and accepts only no, fp16, bf16 and fp8 ('Unknown mixed_precision "
    "mode' otherwise); an unquoted YAML no is the boolean False, on which .lower() fails.",
    doc="mixed-precision", code="accelerate/utils/launch.py:278-282,550-555; accelerate/commands/launch.py:1285-1292",
    demo=_T + "test_mixed_precision_values",
    scope=("lower-cased", "no", "fp16", "bf16", "fp8", "unknown", "yaml-bool"))
FP8_LAUNCH = claim(
    "launch-fp8-config",
    "accelerate launch exports fp8_config (as ACCELERATE_FP8_*, values as written) only with mixed_precision fp8, "
    "after checking that torchao, Transformer Engine or MS-AMP is importable ('FP8 is not available on this "
    "machine'); the Accelerator converts ACCELERATE_FP8_BACKEND to FP8BackendType, which takes only upper-case AO, "
    "TE, MSAMP or NO (NO: the first of them installed), so another spelling fails at start.",
    doc="mixed-precision",
    code="accelerate/utils/launch.py:82-97,283-290,556-563; accelerate/utils/imports.py:187-189; "
    "accelerate/accelerator.py:480-503,517-521,4386-4400; accelerate/utils/dataclasses.py:658-672",
    demo=_T + "test_fp8_config_is_exported_only_with_fp8_and_needs_an_upper_case_backend",
    scope=("not-exported-without-fp8", "needs-a-backend-package", "exported-as-written", "lower-case-backend-fails",
           "upper-case-backends"))
RAM_EFFICIENT_DEFAULT = claim(
    "fsdp-launch-ram-efficient-default-on",
    "accelerate launch exports FSDP_CPU_RAM_EFFICIENT_LOADING=true when the YAML omits fsdp_cpu_ram_efficient_loading.",
    doc="mixed-precision", code="accelerate/commands/launch.py:584-591; accelerate/utils/launch.py:328",
    demo=_T + "test_ram_efficient_loading_is_on_by_default",
    scope=("omitted", "written-false"))

# ---------------------------------------------------------------- dynamo
DYNAMO_CHECKED = claim(
    "dynamo-backend-and-flags-checked",
    "The multi-GPU/FSDP launcher converts dynamo_backend with DynamoBackend(value.upper()), so the name is "
    "case-insensitive and anything else raises 'Unknown dynamo backend'; the Accelerator's TorchDynamoPlugin reads "
    "the dynamo_use_* flags with str_to_bool, which raises for a word that is not true/false, yes/no, on/off, y/n, "
    "t/f or 1/0.",
    doc="dynamo-config",
    code="accelerate/utils/launch.py:292-302; accelerate/utils/dataclasses.py:1092-1108; "
    "accelerate/utils/environment.py:59-71",
    demo=_T + "test_dynamo_backend_names_and_flags_are_checked",
    scope=("backend-case-insensitive", "unknown-backend", "flag-words", "other-flag-word"))
DYNAMO_BOOL = claim(
    "dynamo-backend-yaml-bool-crashes",
    "An unquoted no (or off, false, yes, on, true) as dynamo_backend, at the top level or in dynamo_config, is a "
    "YAML boolean; the launcher calls .upper() on it and accelerate launch stops with an AttributeError before any "
    "process starts. A null dynamo_backend is replaced by 'no'.",
    doc="dynamo-config",
    code="accelerate/commands/config/config_args.py:117-119; accelerate/commands/launch.py:1262-1304; "
    "accelerate/utils/launch.py:183-184, 292-293",
    demo=_T + "test_a_yaml_bool_dynamo_backend_crashes_the_launcher",
    scope=("top-level", "dynamo-config", "true-too", "null-is-no"))

# ---------------------------------------------------------------- parallelism_config
PC_SIZES = claim(
    "parallelism-config-checks",
    "ParallelismConfig reads each size with int() and requires it to be at least 1, takes only cp_backend torch and "
    "sp_backend deepspeed, and refuses cp_size and sp_size both above 1, and tp or cp above 1 over pure replication "
    "(dp_replicate_size above 1 with dp_shard_size 1).",
    doc="parallelism-config", code="accelerate/parallelism_config.py:274-340; accelerate/utils/launch.py:420-424",
    demo=_T + "test_parallelism_config_checks_its_sizes_and_backends",
    scope=("int-conversion", "size-at-least-1", "cp-backend", "sp-backend", "cp-and-sp-exclusive",
           "tp-or-cp-over-replication"))
PC_TOTAL = claim(
    "parallelism-config-total-is-num-processes",
    "When the Accelerator is built, the parallelism sizes must multiply to the number of processes ('total_size "
    "does not match num_processes'); DeepSpeed sequence parallelism is exempt.",
    doc="parallelism-config", code="accelerate/parallelism_config.py:355-374",
    demo=_T + "test_parallelism_sizes_must_multiply_to_the_processes",
    scope=("total-must-match", "deepspeed-sp-exempt"))
PC_PLUGIN = claim(
    "parallelism-config-needs-fsdp2",
    "A parallelism_config with a total above 1 needs FSDP2, a multi-device type or DeepSpeed, so FSDP1 raises; under "
    "FSDP2 dp_shard_size or cp_size must be above 1; and cp_size above 1 needs an FSDP plugin (under MULTI_GPU it "
    "raises).",
    doc="parallelism-config", code="accelerate/parallelism_config.py:376-395; accelerate/state.py:990-1005",
    demo=_T + "test_parallelism_config_needs_fsdp2_on_two_ranks",
    scope=("fsdp1-raises", "fsdp2-needs-shard-or-cp", "fsdp2-shard", "multi-gpu-cp-raises", "multi-gpu-shard",
           "deepspeed"))

# ---------------------------------------------------------------- the DeepSpeed JSON named by the YAML
DS_FILE = claim(
    "ds-config-file-read-as-written",
    "accelerate hands deepspeed_config_file to HfDeepSpeedConfig, which opens it only when os.path.exists finds it "
    "as written: relative to the working folder of the process, with no '~' expansion. It reads the file as UTF-8 "
    "with json.load (strict JSON: a comment or a trailing comma fails, which DeepSpeed's own hjson reader would "
    "take), and fails unless it holds a JSON object; a value that is no file is tried as JSON text, then as "
    "base64 JSON, else it raises 'Expected a string path to an existing deepspeed config'.",
    doc="ds-config-file",
    code="accelerate/utils/deepspeed.py:136-156; deepspeed/runtime/config.py:443-448",
    demo=_T + "test_the_deepspeed_json_is_opened_as_written",
    scope=("relative-to-working-folder", "no-tilde-expansion", "strict-json", "utf-8", "json-object-only", "json-text",
           "base64", "neither-raises"))
