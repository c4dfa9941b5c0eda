"""The explanations of the group ``launch``: its settings (``TEXTS``) and its overview (``GROUP``)."""
from __future__ import annotations

from .model import GroupText, Text

_NO_DYNAMO_UNDER_DS = ("Not passed: accelerate launch drops dynamo_config for DeepSpeed runs, so the wizard does "
                       "not write it. Ask for compilation in the script instead")

TEXTS: dict[str, Text] = {
    "launch.num_processes": Text(
        what="Total number of training processes over all machines, normally one per GPU. It is the world "
             "size, and DeepSpeed's batch check multiplies by it. accelerate divides it by num_machines to "
             "get processes per node.",
        fsdp="Passed to torchrun as processes per node (num_processes // num_machines).",
        deepspeed="Same key. On the torchrun path it is used like FSDP; with a multi-node DeepSpeed runner it "
                  "becomes --num_gpus per node unless an inclusion or exclusion filter is set.",
        versions="A count that is not a multiple of num_machines silently loses ranks (integer division). "
                 "Nothing compares it with the GPUs present; surplus ranks share GPUs with other ranks and fail at "
                 "start-up. "
                 "num_processes: -1 in a YAML means it must be given on the command line.",
        claims=("launch-procs-per-node-floor", "ds-batch-size-uses-world-size", "ds-runner-num-gpus-and-filters",
                "launch-no-gpu-count-check", "launch-surplus-ranks-fail",
                "launch-num-processes-minus-one"),
    ),
    "launch.num_machines": Text(
        what="Number of nodes. With more than one, every node runs with the same settings except "
             "machine_rank, and all of them must reach main_process_ip:main_process_port. Links between "
             "nodes are much slower than inside one.",
        fsdp="Each node starts accelerate launch itself (torchrun underneath).",
        deepspeed="With the 'standard' launcher each node starts itself, as with FSDP. The other launchers "
                  "(pdsh, openmpi, mpich, mvapich, slurm, nossh) go through the deepspeed runner and a "
                  "hostfile.",
        claims=("launch-torchrun-per-machine", "launch-address-and-port", "ds-multinode-runner-or-torchrun"),
    ),
    "launch.machine_rank": Text(
        what="Index of this machine: 0 for the machine at main_process_ip, then 1 to num_machines-1. Each node "
             "needs its own value, so each node gets its own YAML or passes --machine_rank.",
        fsdp="Becomes torchrun's node rank, which the static rendezvous uses as the node's rank.",
        deepspeed="Used by the 'standard' (torchrun) and 'nossh' launchers. pdsh, MPI and slurm launchers start "
                  "every node from rank 0 and number the nodes themselves.",
        claims=("launch-torchrun-per-machine", "ds-nossh-launcher", "ds-runner-backends"),
    ),
    "launch.main_process_ip": Text(
        what="Address of the rank-0 machine, where the processes meet. Needed only with more than one machine.",
        fsdp="Part of torchrun's rendezvous endpoint (address:port); only the --same_network command-line flag "
             "passes it as master address instead.",
        deepspeed="--master_addr for the deepspeed runner, or the torchrun endpoint with the 'standard' "
                  "launcher. Not used on one node.",
        claims=("launch-address-and-port", "ds-runner-num-gpus-and-filters"),
    ),
    "launch.main_process_port": Text(
        what="TCP port on the rank-0 machine for the rendezvous; 29500 when left empty. Use different ports "
             "for jobs that share a machine.",
        fsdp="Port of torchrun's rendezvous endpoint (its master port on one machine).",
        deepspeed="--master_port for the deepspeed runner, or the torchrun port.",
        versions="On a single machine accelerate warns when the port is taken and lets torchrun pick a free "
                 "one; on several machines a busy port on rank 0 stops the start.",
        claims=("launch-address-and-port", "ds-runner-num-gpus-and-filters", "launch-busy-port"),
    ),
    "launch.rdzv_backend": Text(
        what="How processes find each other. static: fixed ranks from machine_rank. c10d: torch's rendezvous "
             "through a store on the endpoint's machine; it numbers the nodes itself. etcd/etcd-v2: an "
             "external etcd server.",
        fsdp="Only the --rdzv_backend command-line flag reaches torchrun: the YAML value is never applied, so "
             "runs use static unless the flag is given.",
        deepspeed="The same on the torchrun path (one node or 'standard'); the deepspeed runner's own "
                  "launchers do not use it.",
        versions="With --rdzv_backend c10d do not also pass --same_network: c10d then gets no endpoint and "
                 "looks for the store on localhost.",
        claims=("launch-yaml-rdzv-backend-ignored", "torch-c10d-rendezvous", "ds-multinode-runner-or-torchrun"),
    ),
    "launch.same_network": Text(
        what="Whether all machines sit on one local network. Meant to choose between passing main_process_ip:"
             "port to torchrun as master address (true) or as rendezvous endpoint (false). Only matters with "
             "more than one machine.",
        fsdp="Only the --same_network command-line flag has an effect: the YAML value is never applied, so "
             "runs always use the rendezvous endpoint, which static rendezvous treats the same.",
        deepspeed="Same, on the torchrun path ('standard' launcher). The deepspeed runner ignores it.",
        claims=("launch-yaml-same-network-ignored", "launch-address-and-port", "ds-multinode-runner-or-torchrun"),
    ),
    "launch.gpu_ids": Text(
        what="Which local GPUs to use, comma-separated, or 'all'. accelerate exports the list as "
             "CUDA_VISIBLE_DEVICES for the training processes, so it should list exactly one GPU per process "
             "on the node.",
        fsdp="Sets CUDA_VISIBLE_DEVICES for torchrun's workers.",
        deepspeed="Same on the torchrun path. With a multi-node deepspeed runner each node's launch sets the "
                  "visible GPUs from the hostfile slots; choose them with the inclusion or exclusion filter.",
        versions="Fewer ids than processes per node is not caught before start; the extra ranks share GPUs with "
                 "other ranks and fail at start-up.",
        claims=("launch-gpu-ids-visible-devices", "ds-runner-sets-visible-devices", "launch-no-gpu-count-check",
                "launch-surplus-ranks-fail"),
    ),
    "launch.main_training_function": Text(
        what="Name of the function accelerate calls when it imports your script instead of running it. Only "
             "the TPU launch path does that; GPU launches run the script as a program and never read this "
             "value.",
        fsdp="No effect on FSDP launches.",
        deepspeed="No effect on DeepSpeed launches.",
        versions="Kept because accelerate config writes it; harmless.",
        claims=("launch-main-training-function-tpu-only",),
    ),
    "launch.ds_multinode_launcher": Text(
        what="How a multi-node DeepSpeed job is started. 'standard' runs torchrun on every node, like FSDP, and "
             "needs no SSH. pdsh (accelerate's own default), openmpi, mvapich and mpich start all nodes from "
             "rank 0 through the deepspeed runner over SSH or mpirun; slurm uses srun; nossh starts the runner "
             "on each node without SSH.",
        fsdp="Not applicable: FSDP always uses torchrun on each node, the same as DeepSpeed's 'standard'.",
        deepspeed="deepspeed_config.deepspeed_multinode_launcher; read only when num_machines > 1.",
        versions="nossh needs DeepSpeed >= 0.14.5. Non-standard launchers append the environment to a "
                 ".deepspeed_env file in the working directory so remote nodes see it. DeepSpeed's openmpi, mpich "
                 "and mvapich runners refuse the GPU count or host filter that accelerate always passes, so those "
                 "three fail when started by accelerate launch.",
        tips="'standard' unless your cluster is set up for pdsh/MPI/slurm.",
        claims=("ds-multinode-runner-or-torchrun", "ds-launcher-default-pdsh", "ds-runner-backends",
                "ds-nossh-launcher", "ds-deepspeed-env-file"),
    ),
    "launch.ds_hostfile": Text(
        what="File listing the nodes and their GPU slots (lines like 'node1 slots=8') for the deepspeed "
             "runner's multi-node launchers.",
        fsdp="Not applicable: there is no hostfile; start accelerate launch on every node with its "
             "machine_rank.",
        deepspeed="deepspeed_config.deepspeed_hostfile, passed as --hostfile. Not read by the 'standard' "
                  "launcher.",
        versions="Without it accelerate passes '--hostfile None'; the runner only warns and then trains on the "
                 "local node alone.",
        claims=("ds-hostfile-format", "ds-runner-num-gpus-and-filters", "ds-multinode-runner-or-torchrun",
                "ds-hostfile-missing-local-only", "launch-torchrun-per-machine"),
    ),
    "launch.ds_inclusion_filter": Text(
        what="Restricts a multi-node DeepSpeed run to the listed hosts or GPU slots (DeepSpeed's "
             "'host1@host2:0,1' syntax).",
        fsdp="Not applicable: pick GPUs with gpu_ids on each node.",
        deepspeed="deepspeed_config.deepspeed_inclusion_filter, passed as --include to the deepspeed runner.",
        versions="Ignored on one node and with the 'standard' launcher. When both filters are set accelerate "
                 "passes only the exclusion filter. With a filter, no per-node GPU count is passed.",
        claims=("ds-filter-syntax", "ds-runner-num-gpus-and-filters", "ds-multinode-runner-or-torchrun",
                "launch-gpu-ids-visible-devices"),
    ),
    "launch.ds_exclusion_filter": Text(
        what="Leaves the listed hosts or GPU slots out of a multi-node DeepSpeed run (same syntax as the "
             "inclusion filter).",
        fsdp="Not applicable: pick GPUs with gpu_ids on each node.",
        deepspeed="deepspeed_config.deepspeed_exclusion_filter, passed as --exclude to the deepspeed runner.",
        versions="Ignored on one node and with the 'standard' launcher. Wins over the inclusion filter.",
        claims=("ds-filter-syntax", "ds-runner-num-gpus-and-filters", "ds-multinode-runner-or-torchrun",
                "launch-gpu-ids-visible-devices"),
    ),
    "launch.dynamo_backend": Text(
        what="Turns on torch.compile and picks its backend. inductor is the usual choice; eager and aot_eager "
             "are for debugging; cudagraphs only replays graphs. Compilation adds minutes to the first steps "
             "and pays off in long runs.",
        fsdp="dynamo_config.dynamo_backend. FSDP1 compiles only with use_orig_params: true; otherwise Dynamo "
             "skips the model (eager run) or errors under fullgraph. FSDP2 compiles after activation "
             "checkpointing is applied and needs no flag.",
        deepspeed=_NO_DYNAMO_UNDER_DS + ": Accelerator(dynamo_backend=...) makes accelerate call the engine's "
                  "compile() after deepspeed.initialize; the Trainer's torch_compile does the same.",
        versions="DeepSpeed < 0.14.4: accelerate skips the engine's compilation silently.",
        claims=("torch-compile-backends", "dynamo-fsdp-exported", "dynamo-fsdp1-needs-orig-params",
                "dynamo-fsdp2-after-checkpointing", "dynamo-not-exported-under-deepspeed",
                "dynamo-deepspeed-engine-compile", "trainer-torch-compile-plugin"),
    ),
    "launch.dynamo_mode": Text(
        what="torch.compile mode. default: moderate compile time. reduce-overhead: CUDA graphs, fewer kernel "
             "launches, more memory. max-autotune: tries many kernels, long compile, uses CUDA graphs; the "
             "no-cudagraphs variant skips graphs.",
        fsdp="dynamo_config.dynamo_mode.",
        deepspeed=_NO_DYNAMO_UNDER_DS + " (TorchDynamoPlugin's mode, or the Trainer's torch_compile_mode).",
        claims=("torch-compile-modes", "dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed"),
    ),
    "launch.dynamo_fullgraph": Text(
        what="Makes any graph break an error instead of a silent fall-back to eager code for that part. Useful "
             "to prove the whole model compiled.",
        fsdp="dynamo_config.dynamo_use_fullgraph. Turns the silent FSDP1 + use_orig_params: false fall-back "
             "into a hard error.",
        deepspeed=_NO_DYNAMO_UNDER_DS + " (TorchDynamoPlugin(fullgraph=True)).",
        claims=("torch-graph-break-fullgraph", "dynamo-fsdp-exported", "dynamo-fsdp1-needs-orig-params",
                "dynamo-not-exported-under-deepspeed"),
    ),
    "launch.dynamo_dynamic": Text(
        what="Compile for varying input shapes. When false, accelerate passes dynamic=False: each new sequence "
             "length compiles again until torch's recompile limit, then runs eager. Set true for variable "
             "lengths, or pad batches to a few fixed lengths.",
        fsdp="dynamo_config.dynamo_use_dynamic.",
        deepspeed=_NO_DYNAMO_UNDER_DS + " (TorchDynamoPlugin(dynamic=...)).",
        claims=("dynamo-dynamic-false-passed", "torch-static-shapes-recompile", "dynamo-fsdp-exported",
                "dynamo-not-exported-under-deepspeed"),
    ),
    "launch.dynamo_regional": Text(
        what="Compiles each repeated block once and reuses the result instead of compiling the whole model. "
             "Cuts compile time for deep models for a small loss of cross-block optimisation.",
        fsdp="dynamo_config.dynamo_use_regional_compilation; FSDP2 has its own per-block variant.",
        deepspeed=_NO_DYNAMO_UNDER_DS + " (TorchDynamoPlugin(use_regional_compilation=True)); accelerate then "
                  "applies it to the engine's module.",
        claims=("dynamo-regional-compilation", "dynamo-fsdp-exported", "dynamo-not-exported-under-deepspeed",
                "dynamo-deepspeed-engine-compile"),
    ),
    "launch.hosts": Text(
        what="The host name (or address) of each machine, machine 0 first, one per machine. Not part of any "
             "config file: the wizard writes them into DeepSpeed's hostfile instead of CHANGE-ME placeholders, "
             "names each per-machine command after its host, and uses machine 0's name as the main address when "
             "main_process_ip is empty. Under SLURM they are not used: the job's node list decides.",
        fsdp="Every machine runs its own accelerate launch (torchrun) with its machine rank; the rendezvous "
             "address is machine 0's, so the first name must be reachable from every machine.",
        deepspeed="With the pdsh, MPI or slurm launchers the runner starts every host listed in the hostfile from "
                  "the first one, in this order, and refuses a host listed twice; with 'standard' each machine "
                  "launches itself, as with FSDP.",
        claims=("ds-hostfile-every-host-used", "ds-hostfile-bad-lines-raise", "launch-address-and-port"),
    ),
    "launch.script": Text(
        what="The training script accelerate launch runs. Not part of any config file; the wizard uses it for "
             "the command it shows or starts.",
        fsdp="Command line: accelerate launch --config_file <yaml> <script> ...",
        deepspeed="Same command line; the DeepSpeed JSON is referenced from the YAML, not from the command.",
        claims=("launch-script-args-passed", "ds-config-file-exported"),
    ),
    "launch.script_args": Text(
        what="Arguments passed through to the training script. Not part of any config file.",
        fsdp="Appended after the script name.",
        deepspeed="Appended after the script name. Trainer scripts take precision, batch and clipping from "
                  "TrainingArguments, which fill the DeepSpeed 'auto' values.",
        claims=("launch-script-args-passed", "trainer-fills-more-auto"),
    ),
    "launch.training_loop": Text(
        what="Who drives training: 'accelerate' is your own loop around accelerator.prepare(...) (like the bundled "
             "script); 'trainer' is the Hugging Face Trainer or a library built on it (Seq2SeqTrainer, TRL's "
             "trainers, LLaMA-Factory, axolotl). The Trainer passes its TrainingArguments to accelerate: it counts "
             "accumulation itself (its Accelerator gets 1), clips with max_grad_norm and sets the precision from "
             "its fp16/bf16 arguments. With 'trainer' the wizard also writes training_arguments.json, the "
             "arguments that carry these answers.",
        fsdp="The FSDP config holds no batch, accumulation or clipping either way. An own loop sets them in code; "
             "the Trainer takes them from TrainingArguments, and its fp16/bf16 argument replaces the YAML's "
             "mixed_precision.",
        deepspeed="Decides who fills the JSON's \"auto\" values. An own loop: accelerate fills what it can take "
                  "from the run, the plugin and DummyOptim / DummyScheduler (the list: claim "
                  "ds-own-loop-fills-auto), and any other \"auto\" (the optimizer's betas or eps, say) fails. "
                  "The Trainer fills batch, accumulation, clipping, precision "
                  "and the optimizer and scheduler parameters from TrainingArguments, and stops with a ValueError "
                  "when a value written as a number differs from its argument; so with 'trainer' the wizard writes "
                  "\"auto\" there and puts the numbers in training_arguments.json.",
        versions="With the Trainer an optimizer block in the JSON needs nothing in the script (it passes DummyOptim "
                 "itself); optimizer.params.lr and scheduler.params.warmup_max_lr are both matched against "
                 "learning_rate.",
        tips="Not sure? A script that calls Trainer(...).train() or a TRL/LLaMA-Factory/axolotl command uses the "
             "Trainer; a script with accelerator.backward(loss) is an own loop. With 'trainer' a CPU rehearsal "
             "trains through transformers' Trainer with training_arguments.json (a bf16 config in fp32: without a "
             "bf16 GPU the Trainer refuses bf16=True).",
        claims=("trainer-counts-accumulation-and-clips", "trainer-ds-values-must-match-arguments",
                "trainer-fills-more-auto", "trainer-passes-precision-to-accelerate", "ds-own-loop-fills-auto",
                "ds-auto-outside-the-list-raises",
                "ds-micro-batch-auto-from-dataloader", "ds-gradient-clipping-on-unless-json-zero",
                "ds-auto-buckets-from-hidden-size", "trainer-builds-the-ds-optimizer-itself",
                "trainer-lr-and-warmup-max-lr-match-learning-rate", "trainer-bf16-needs-a-bf16-gpu"),
    ),
    "launch.trainer_tool": Text(
        what="Which file carries the Trainer's arguments, so the wizard writes the matching snippet beside the "
             "configs: a Trainer script (transformers, TRL) takes training_arguments.json; a LLaMA-Factory training "
             "YAML takes the same names (llamafactory_args.yaml); an axolotl YAML its own (axolotl_args.yaml: "
             "micro_batch_size for the micro batch). Merge the snippet into your file and the pair is consistent "
             "by construction; check train.yaml confirms it. Used only with the Trainer as the loop.",
        fsdp="The snippet carries batch, accumulation, clipping and precision; the FSDP settings stay in "
             "accelerate_config.yaml (launch the tool with accelerate launch --config_file).",
        deepspeed="The snippet also names the DeepSpeed JSON (deepspeed:), as accelerate_config.yaml names it: both "
                  "tools open it from the folder the run starts in.",
        claims=("tools-pass-their-keys-as-training-arguments", "trainer-ds-values-must-match-arguments"),
    ),
}

GROUP = GroupText(
        summary="How many processes start where, and how they meet. The keys are shared. On several machines "
                "FSDP always runs torchrun on each node, while DeepSpeed can also start every node from rank 0 "
                "through its own runner and a hostfile.",
        fsdp="num_processes, num_machines, machine_rank\nmain_process_ip, main_process_port\n"
             "rdzv_backend, same_network, gpu_ids\ndynamo_config.*",
        deepspeed="the same keys but dynamo_config\ndeepspeed_config.deepspeed_multinode_launcher\n"
                  "deepspeed_config.deepspeed_hostfile\ndeepspeed_config.deepspeed_inclusion_filter / "
                  "deepspeed_exclusion_filter",
        no_counterpart="Launcher choice, hostfile and filters are DeepSpeed-only. dynamo_config is FSDP-only "
                       "(DeepSpeed compiles from the script); it needs use_orig_params on FSDP1.",
        claims=("launch-torchrun-per-machine", "ds-multinode-runner-or-torchrun", "ds-runner-backends",
                "dynamo-not-exported-under-deepspeed", "dynamo-fsdp1-needs-orig-params"),
    )
