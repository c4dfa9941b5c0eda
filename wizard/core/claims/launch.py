"""Claims about the ``launch`` group: processes, machines and GPUs, the rendezvous, the multi-node DeepSpeed
launchers and torch.compile (see :mod:`wizard.core.claims`)."""
from __future__ import annotations

from .registry import claim

_T = "tests/claims/test_launch.py::"

# ---------------------------------------------------------------- processes, machines and GPUs
PROCS_PER_NODE = claim(
    "launch-procs-per-node-floor",
    "accelerate launch starts num_processes // num_machines processes on each machine (torchrun's nproc_per_node, "
    "DeepSpeed's too): a remainder is dropped, so 9 processes on 2 machines run 8 ranks.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:212-226,476,488-498",
    demo=_T + "test_processes_per_machine_is_an_integer_division",
    scope=("fsdp-torchrun", "deepspeed-standard", "deepspeed-runner"))
MINUS_ONE = claim(
    "launch-num-processes-minus-one",
    "num_processes: -1 in a config file makes accelerate launch raise unless --num_processes is given.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:1305-1306",
    demo=_T + "test_minus_one_processes_must_come_from_the_command_line",
    scope=("config-minus-one-raises", "flag-given"))
NO_GPU_COUNT = claim(
    "launch-no-gpu-count-check",
    "The launcher never compares num_processes or the gpu_ids list with the GPUs of the machine; its only "
    "check (at least two gpu_ids) is for MULTI_GPU on one machine.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:1257-1261; accelerate/utils/launch.py:201-302",
    demo=_T + "test_nothing_compares_processes_or_gpu_ids_with_the_gpus",
    scope=("fsdp", "deepspeed", "multi-gpu-two-ids"))
SURPLUS_RANKS = claim(
    "launch-surplus-ranks-fail",
    "accelerate does not refuse ranks beyond the visible GPUs: it gives each rank the GPU LOCAL_RANK modulo the "
    "GPU count, so under FSDP a surplus rank shares a GPU with another rank (NCCL refuses two ranks of one "
    "communicator on one GPU when it builds the communicator); DeepSpeed's engine then selects cuda:LOCAL_RANK "
    "itself, which fails for a surplus rank at start-up.",
    doc="processes-and-machines", code="accelerate/state.py:838-847; deepspeed/runtime/engine.py:1940-1944",
    why_not_demo="needs CUDA GPUs, fewer of them than the ranks on a machine",
    scope=("accelerate-fsdp", "deepspeed-engine"))
BATCH_WORLD = claim(
    "ds-batch-size-uses-world-size",
    "DeepSpeed requires train_batch_size = micro batch x gradient accumulation steps x world size, and derives the "
    "one missing from the other two.",
    doc="ds-batch-size", code="deepspeed/runtime/config.py:456-474,590-640",
    demo=_T + "test_deepspeeds_batch_check_multiplies_by_the_world_size",
    scope=("product-checked", "train-batch-derived", "micro-batch-derived", "accumulation-derived"))
TORCHRUN_PER_MACHINE = claim(
    "launch-torchrun-per-machine",
    "For FSDP (and DeepSpeed's 'standard' launcher) accelerate launch runs torchrun inside itself on each machine "
    "with nnodes = num_machines and node_rank = machine_rank; the static rendezvous takes machine_rank as the "
    "node's rank.",
    doc="processes-and-machines",
    code="accelerate/commands/launch.py:1004-1036,1073-1089; accelerate/utils/launch.py:216-224,488-496; "
    "torch/distributed/run.py:890-891",
    demo=_T + "test_fsdp_runs_torchrun_on_each_machine_with_its_rank",
    scope=("torchrun-fsdp", "torchrun-deepspeed-standard", "static-rendezvous-rank"))
ADDRESS_PORT = claim(
    "launch-address-and-port",
    "With several machines torchrun gets main_process_ip:main_process_port as its rendezvous endpoint (as master "
    "address and port only with the --same_network flag); on one machine the address is not used and the port "
    "defaults to 29500.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:205-228",
    demo=_T + "test_fsdp_runs_torchrun_on_each_machine_with_its_rank",
    scope=("endpoint-several-machines", "same-network-flag", "one-machine-default-port"))
SAME_NETWORK_IGNORED = claim(
    "launch-yaml-same-network-ignored",
    "same_network in the config file is never applied: --same_network's default False is not None, so the YAML "
    "value is skipped and several machines always meet at main_process_ip:port as the rendezvous endpoint.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:285-290,1266-1285; "
    "accelerate/utils/launch.py:220-224",
    demo=_T + "test_same_network_in_the_yaml_is_never_applied",
    scope=("yaml-true", "yaml-false", "deepspeed-standard"))
RDZV_IGNORED = claim(
    "launch-yaml-rdzv-backend-ignored",
    "rdzv_backend in the config file is never applied: --rdzv_backend defaults to 'static', so torchrun always "
    "gets static unless the flag is given.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:326-331,1266-1285",
    demo=_T + "test_rdzv_backend_in_the_yaml_is_never_applied",
    scope=("yaml-c10d-ignored", "flag-applied"))
C10D = claim(
    "torch-c10d-rendezvous",
    "With c10d, torchrun ignores node_rank and lets the rendezvous number the nodes, through a store hosted by the "
    "agent on the endpoint's machine; without an endpoint (only master address and port) it looks at "
    "localhost:29400.",
    doc="processes-and-machines", code="torch/distributed/run.py:860-870,888-893,790-793; "
    "torch/distributed/elastic/rendezvous/c10d_rendezvous_backend.py:134-160; "
    "torch/distributed/elastic/rendezvous/utils.py:68-86,117-162",
    demo=_T + "test_c10d_numbers_the_nodes_and_needs_the_endpoint",
    scope=("node-rank-ignored", "endpoint-given", "store-on-endpoint-machine", "no-endpoint-localhost"))
BUSY_PORT = claim(
    "launch-busy-port",
    "When main_process_port is taken, accelerate on one machine warns and runs torchrun standalone (a free port); "
    "with several machines, machine_rank 0 raises ConnectionError and other ranks do not check.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:230-248,502-520; torch/distributed/run.py:988-991",
    demo=_T + "test_a_busy_port_warns_on_one_machine_and_stops_rank_zero_of_several",
    scope=("one-machine-standalone", "several-machines-rank0-raises", "other-ranks-unchecked"))
GPU_IDS = claim(
    "launch-gpu-ids-visible-devices",
    "gpu_ids other than 'all' is exported as CUDA_VISIBLE_DEVICES to the training processes, by both launchers.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:260-277,532-549",
    demo=_T + "test_gpu_ids_become_cuda_visible_devices",
    scope=("fsdp-launcher", "deepspeed-launcher", "all-not-exported"))
MAIN_FUNCTION = claim(
    "launch-main-training-function-tpu-only",
    "main_training_function is read only by the TPU launchers; the GPU launches run the script and build the same "
    "torchrun arguments and environment whatever it says. ClusterConfig writes 'main' by default.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:1092-1120,1153-1154; "
    "accelerate/commands/config/config_args.py:188",
    demo=_T + "test_main_training_function_changes_nothing_for_gpu_launches",
    scope=("fsdp", "deepspeed", "config-writes-main"))
SCRIPT_ARGS = claim(
    "launch-script-args-passed",
    "accelerate launch hands the script and the arguments after it on to torchrun or the deepspeed runner "
    "unchanged.",
    doc="processes-and-machines", code="accelerate/utils/launch.py:486-487; accelerate/commands/launch.py:1021-1025",
    demo=_T + "test_fsdp_runs_torchrun_on_each_machine_with_its_rank",
    scope=("script-args-torchrun", "script-args-deepspeed-runner"))
CONFIG_FILE_EXPORTED = claim(
    "ds-config-file-exported",
    "The DeepSpeed JSON reaches the processes as ACCELERATE_DEEPSPEED_CONFIG_FILE, taken from the YAML's "
    "deepspeed_config_file.",
    doc="ds-config-file", code="accelerate/utils/launch.py:581-582",
    demo=_T + "test_the_json_path_comes_from_the_yaml",
    scope=("torchrun-path", "runner-path"))

HSDP_LAYOUT = claim(
    "fsdp2-hsdp-shard-groups-consecutive-ranks",
    "accelerate builds the FSDP2 device mesh with dp_replicate outside dp_shard, so each dp_shard group is "
    "dp_shard_size consecutive global ranks; as torchrun numbers ranks machine by machine, a group larger than one "
    "machine's processes spans machines.",
    doc="parallelism-config", code="accelerate/parallelism_config.py:211-235, 260-275; "
    "accelerate/utils/launch.py:216-219",
    demo="tests/claims/test_multinode_claims.py::test_hsdp_shard_groups_are_consecutive_ranks",
    scope=("replicate-outside-shard", "shard-groups-consecutive"))
# ---------------------------------------------------------------- multi-node DeepSpeed
HPZ_GROUPS = claim(
    "ds-hpz-group-divides-world",
    "DeepSpeed builds the hpZ groups from min(zero_hpz_partition_size, world size) consecutive ranks and asserts "
    "that this number divides the world size; a size above the world size is cut down to it.",
    doc="ds-zero-stages", code="deepspeed/utils/groups.py:925-950, 69-71",
    demo="tests/claims/test_multinode_claims.py::test_hpz_groups_must_divide_the_world_and_are_capped_at_it",
    scope=("not-dividing-asserts", "above-world-capped"))
RUNNER_OR_TORCHRUN = claim(
    "ds-multinode-runner-or-torchrun",
    "With more than one machine and a launcher other than 'standard', accelerate runs the deepspeed runner with "
    "--hostfile and --launcher (nossh: --no_ssh and --node_rank instead); 'standard', and any launcher on one "
    "machine, runs torchrun like FSDP and reads no hostfile or filter.",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:447-498; accelerate/commands/launch.py:1060-1089",
    demo=_T + "test_deepspeed_multinode_goes_through_the_runner_except_standard",
    scope=("pdsh", "openmpi", "mvapich", "mpich", "slurm", "nossh", "standard-torchrun", "one-machine-torchrun"))
DEFAULT_PDSH = claim(
    "ds-launcher-default-pdsh",
    "Without deepspeed_multinode_launcher, accelerate uses pdsh.",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:447-450; accelerate/utils/constants.py:49",
    demo=_T + "test_deepspeed_multinode_goes_through_the_runner_except_standard",
    scope=("no-launcher-key",))
NUM_GPUS_FILTERS = claim(
    "ds-runner-num-gpus-and-filters",
    "The runner gets --exclude when an exclusion filter is set, else --include for an inclusion filter, else "
    "--num_gpus num_processes // num_machines; plus --master_addr when main_process_ip is set and --master_port.",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:461-481; deepspeed/launcher/runner.py:462-464",
    demo=_T + "test_runner_gets_a_gpu_count_or_one_filter",
    scope=("no-filter-num-gpus", "inclusion", "exclusion-wins", "master-addr-set", "master-addr-unset", "master-port"))
NOSSH = claim(
    "ds-nossh-launcher",
    "nossh runs the deepspeed runner on each machine with --no_ssh and --node_rank machine_rank; accelerate "
    "refuses it below DeepSpeed 0.14.5.",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:455-458; deepspeed/launcher/runner.py:530-546",
    demo=_T + "test_nossh_passes_the_machine_rank",
    scope=("node-rank-and-no-ssh", "refused-below-0-14-5"))
RUNNER_BACKENDS = claim(
    "ds-runner-backends",
    "From rank 0 DeepSpeed's runner starts every node itself: pdsh over SSH, numbering nodes with %n; openmpi, "
    "mpich and mvapich through mpirun; slurm through srun. machine_rank is not passed to them. The openmpi, mpich, "
    "impi and mvapich runners refuse --num_gpus, --include and --exclude in their constructor (ValueError), and "
    "accelerate always passes one of the three, so these four launchers fail when started from accelerate.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/multinode_runner.py:20-23,88-129,147-154,156-191,208-215,"
    "217-263,280-287,383-420,424-475; accelerate/utils/launch.py:453-476",
    demo=_T + "test_each_runner_backend_builds_its_own_command",
    scope=("pdsh", "openmpi", "mpich", "mvapich", "slurm", "machine-rank-not-passed",
           "mpi-refuse-gpu-count-or-filter"))
ENV_FILE = claim(
    "ds-deepspeed-env-file",
    "For the runner's launchers accelerate appends the processes' environment to .deepspeed_env in the working "
    "directory; the runner reads that file (and ~/.deepspeed_env) and exports its lines on every node.",
    doc="ds-multinode-launcher", code="accelerate/commands/launch.py:1060-1064; deepspeed/launcher/runner.py:37-38,"
    "604-611",
    why_not_demo="the file is written inside deepspeed_launcher just before it starts the runner on other hosts",
    scope=("accelerate-appends-cwd-file", "runner-reads-home-and-cwd"))
HOSTFILE_FORMAT = claim(
    "ds-hostfile-format",
    "DeepSpeed's hostfile has one 'hostname slots=N' line per machine.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/runner.py:212-260",
    demo=_T + "test_hostfile_lines_and_a_missing_hostfile",
    scope=("one-line-per-machine",))
HOSTFILE_EVERY_HOST = claim(
    "ds-hostfile-every-host-used",
    "For DeepSpeed's runner launchers accelerate passes --num_gpus (the processes per machine) but never "
    "--num_nodes: the runner starts that many processes on every host of the hostfile, whatever num_machines says "
    "(an inclusion or exclusion filter replaces --num_gpus).",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:452-476; deepspeed/launcher/runner.py:385-405",
    demo=_T + "test_the_runner_starts_every_host_of_the_hostfile",
    scope=("num-gpus-no-num-nodes", "every-host-started", "filter-replaces-num-gpus"))
HOSTFILE_BAD_LINES = claim(
    "ds-hostfile-bad-lines-raise",
    "The runner refuses a hostfile with a line that is not 'hostname slots=N' (comments and blank lines aside), a "
    "host listed twice, or no host at all: it raises ValueError before starting anything.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/runner.py:225-254",
    demo=_T + "test_the_runner_starts_every_host_of_the_hostfile",
    scope=("bad-line", "host-twice", "no-host", "comments-and-blanks-skipped"))
HOSTFILE_MISSING = claim(
    "ds-hostfile-missing-local-only",
    "Without a hostfile accelerate passes '--hostfile None'; the runner finds no such file, warns and trains on "
    "the local machine only.",
    doc="ds-multinode-launcher", code="accelerate/utils/launch.py:452-454; deepspeed/launcher/runner.py:212-216,"
    "466-474",
    demo=_T + "test_hostfile_lines_and_a_missing_hostfile",
    scope=("hostfile-none-passed", "warns-local-only"))
SCRIPT_DASH_OPTION = claim(
    "launch-script-dash-is-option",
    "accelerate launch reads its training_script with argparse: a script name starting with '-' is taken as one "
    "of launch's own options (--num_processes=1 overrides the config) or refused as an unknown one.",
    doc="processes-and-machines", code="accelerate/commands/launch.py:880-887",
    why_not_demo="argparse's handling of a leading '-' (Python's documentation); the wizard refuses such a name",
    scope=("known-option", "unknown-option"))
PDSH_MASTER_ADDR = claim(
    "ds-pdsh-master-addr-unquoted",
    "The pdsh runner pastes --master_addr=<main_process_ip> into the one command pdsh hands to the remote shell of "
    "every host, and lists the hosts after 'pdsh -w', without quoting: a shell character there (;, $(), a space) "
    "is read by that shell.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/multinode_runner.py:88-128",
    why_not_demo="needs pdsh and ssh to other machines",
    scope=("master-addr", "host-list"))
PDSH_SCRIPT_ARGS = claim(
    "ds-pdsh-script-args-unquoted",
    "The pdsh runner pastes the training script and its arguments, as given, into the command the remote shell of "
    "every host reads: nothing is quoted, and pdsh replaces %n and %h in it.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/multinode_runner.py:107-128",
    why_not_demo="needs pdsh and ssh to other machines",
    scope=("script-and-args", "percent-n-and-h"))
SSH_FIRST_HOST = claim(
    "ds-runner-ssh-checks-first-host",
    "Before a multi-node launch the runner runs 'ssh -o PasswordAuthentication=no <first host> hostname', split "
    "into words, so a first host starting with '-' is read by ssh as an option.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/runner.py:482-492",
    why_not_demo="needs ssh to another machine",
    scope=("first-host",))
FILTER_SYNTAX = claim(
    "ds-filter-syntax",
    "DeepSpeed's filters name hosts separated by @, each optionally with :slot,slot; an inclusion keeps only "
    "those, an exclusion drops them.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/runner.py:292-407",
    demo=_T + "test_inclusion_and_exclusion_filters",
    scope=("inclusion", "exclusion"))
RUNNER_VISIBLE_DEVICES = claim(
    "ds-runner-sets-visible-devices",
    "On the runner's path each node's DeepSpeed launch sets CUDA_VISIBLE_DEVICES to the slots left after the "
    "filters, replacing what gpu_ids exported.",
    doc="ds-multinode-launcher", code="deepspeed/launcher/launch.py:160-175; deepspeed/launcher/runner.py:446-458",
    why_not_demo="happens on the remote nodes the runner starts",
    scope=("after-filters",))

# ---------------------------------------------------------------- torch.compile
DYNAMO_FSDP = claim(
    "dynamo-fsdp-exported",
    "For FSDP, accelerate launch exports dynamo_config as ACCELERATE_DYNAMO_* and the Accelerator's "
    "TorchDynamoPlugin reads backend, mode and the three flags from them.",
    doc="dynamo-config", code="accelerate/utils/launch.py:292-302; accelerate/utils/dataclasses.py:1092-1108",
    demo=_T + "test_the_fsdp_launcher_exports_dynamo_config",
    scope=("export-backend", "export-mode", "export-fullgraph", "export-dynamic", "export-regional"))
DYNAMIC_FALSE = claim(
    "dynamo-dynamic-false-passed",
    "The launcher always exports dynamo_use_dynamic (False when unset), so torch.compile gets dynamic=False "
    "rather than its automatic dynamic shapes.",
    doc="dynamo-config", code="accelerate/utils/launch.py:301; accelerate/utils/dataclasses.py:1107-1119",
    demo=_T + "test_the_fsdp_launcher_exports_dynamo_config",
    scope=("dynamic-unset", "dynamic-false"))
DYNAMO_NOT_DS = claim(
    "dynamo-not-exported-under-deepspeed",
    "Under DeepSpeed accelerate launch exports no ACCELERATE_DYNAMO_* variable, so the YAML's dynamo_config never "
    "reaches the processes and compilation stays off unless the script asks for it.",
    doc="dynamo-config", code="accelerate/utils/launch.py:430-591; accelerate/utils/dataclasses.py:1093-1096",
    demo=_T + "test_the_deepspeed_launcher_drops_dynamo_config",
    scope=("one-machine", "standard-multinode", "runner-multinode"))
DS_ENGINE_COMPILE = claim(
    "dynamo-deepspeed-engine-compile",
    "Given a dynamo backend by the script (Accelerator(dynamo_backend=...)), accelerate calls the DeepSpeed engine's "
    "compile() after deepspeed.initialize (with regional compilation each block's own compile() instead); with "
    "DeepSpeed older than 0.14.4 it skips this without a message.",
    doc="dynamo-config", code="accelerate/accelerator.py:325-330,2452-2457; accelerate/utils/other.py:181-202",
    demo=_T + "test_accelerate_compiles_the_deepspeed_engine_when_the_script_asks",
    scope=("engine-compiled", "regional-per-block", "old-deepspeed-skipped"))
TRAINER_COMPILE = claim(
    "trainer-torch-compile-plugin",
    "The HF Trainer's torch_compile builds its own TorchDynamoPlugin (backend inductor unless set) for the "
    "Accelerator it creates.",
    doc="dynamo-config", code="transformers/training_args.py:1621-1636; transformers/trainer.py:792-802",
    demo=_T + "test_the_trainers_torch_compile_brings_its_own_dynamo_plugin",
    scope=("backend-default-inductor", "backend-set"))
MODES = claim(
    "torch-compile-modes",
    "torch.compile's reduce-overhead turns on CUDA graphs; max-autotune adds kernel autotuning to them; "
    "max-autotune-no-cudagraphs autotunes without graphs; default turns on neither.",
    doc="dynamo-config", code="torch/_inductor/__init__.py:340-375",
    demo=_T + "test_what_each_compile_mode_turns_on",
    scope=("default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"))
BACKENDS = claim(
    "torch-compile-backends",
    "Dynamo's eager backend runs the captured graph as it is and aot_eager adds only AOTAutograd tracing (both "
    "without code generation, for debugging); cudagraphs records CUDA graphs of the graph without inductor "
    "kernels; inductor generates kernels.",
    doc="dynamo-config", code="torch/_dynamo/backends/debugging.py:53-60,413-428; "
    "torch/_dynamo/backends/cudagraphs.py:159-200; torch/_dynamo/backends/inductor.py:20",
    why_not_demo="what a backend generates is read from torch's code; cudagraphs and inductor's GPU kernels "
    "need CUDA",
    scope=("eager", "aot_eager", "cudagraphs", "inductor"))
STATIC_RECOMPILE = claim(
    "torch-static-shapes-recompile",
    "With dynamic=False, torch.compile compiles again for each new input shape up to "
    "torch._dynamo.config.recompile_limit (8), then runs that code eagerly.",
    doc="dynamo-config", code="torch/_dynamo/config.py:121; torch/_dynamo/convert_frame.py:99,609-618",
    demo=_T + "test_static_shapes_recompile_per_length_until_the_limit",
    scope=("recompile-per-shape", "eager-after-limit"))
FULLGRAPH = claim(
    "torch-graph-break-fullgraph",
    "A graph break normally splits the graph and runs the break eagerly; fullgraph=True turns it into an error.",
    doc="dynamo-config", code="torch/_dynamo/symbolic_convert.py:1080,5245",
    demo=_T + "test_a_graph_break_falls_back_unless_fullgraph",
    scope=("graph-break-splits", "fullgraph-raises"))
REGIONAL = claim(
    "dynamo-regional-compilation",
    "Regional compilation compiles each block of a repeated ModuleList on its own, and the rest of the model "
    "separately, instead of the whole model; accelerate has FSDP2 and DeepSpeed variants of it.",
    doc="dynamo-config", code="accelerate/utils/other.py:106-240; accelerate/accelerator.py:1701-1708,2454-2455",
    demo=_T + "test_regional_compilation_compiles_each_repeated_block",
    scope=("repeated-blocks", "rest-separately", "fsdp2-variant", "deepspeed-variant"))
FSDP1_ORIG = claim(
    "dynamo-fsdp1-needs-orig-params",
    "Dynamo traces an FSDP1 module only with use_orig_params: true; otherwise the module runs uncompiled after a "
    "graph break, or fails under fullgraph.",
    doc="fsdp1-torch-compile", code="torch/_dynamo/variables/builder.py:2475-2487",
    why_not_demo="FSDP1 through accelerate does not run on CPU; the check sits in Dynamo's tracing of the FSDP "
    "module",
    scope=("use-orig-params-true", "use-orig-params-false", "fullgraph"))
FSDP2_AFTER_AC = claim(
    "dynamo-fsdp2-after-checkpointing",
    "With FSDP2 accelerate compiles the model after applying activation checkpointing and before fully_shard, with "
    "no flag needed.",
    doc="dynamo-config", code="accelerate/accelerator.py:1693-1710",
    why_not_demo="FSDP2 through accelerate does not run on CPU without the rehearsal shim; the order is read "
    "from the code",
    scope=("fsdp2",))
