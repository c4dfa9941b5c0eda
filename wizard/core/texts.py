"""Explanations for every setting and group of :mod:`wizard.core.catalog`, plus the dtype table.

Pure data and small helpers; stdlib only (the wizard's start path must not import torch,
accelerate or deepspeed).

Every claim was checked against the installed accelerate 1.15.0, DeepSpeed 0.19.8 and torch
sources (docs/library-behaviour.md gives the file:line evidence, section by section). The prose is our
own; where the Accelerate concept guide "FSDP vs DeepSpeed" predates FSDP2 or disagrees with what
the code does, the texts follow the code and say so in ``versions``.
"""
from __future__ import annotations

from dataclasses import dataclass


@dataclass(frozen=True)
class Text:
    what: str
    """What the setting does and why a user cares (memory/speed cost, which value when)."""
    fsdp: str
    """Meaning on FSDP, with FSDP1/FSDP2 differences."""
    deepspeed: str
    """Meaning on DeepSpeed, or why there is no such setting and what happens instead."""
    versions: str = ""
    """Version notes and pitfalls."""
    tips: str = ""
    """Optional recommendation."""


@dataclass(frozen=True)
class GroupText:
    summary: str
    """The side-by-side idea of the group."""
    fsdp: str
    """The FSDP keys, one short line each."""
    deepspeed: str
    """The DeepSpeed keys, one short line each."""
    no_counterpart: str
    """What cannot carry over between the backends in this group."""


TEXTS: dict[str, Text] = {
    # ------------------------------------------------------------------ backend
    "backend": Text(
        what="Chooses the engine that spreads training state over the GPUs: PyTorch FSDP, which ships "
             "inside torch, or DeepSpeed ZeRO, a separate library with its own engine, launcher and JSON "
             "config. With mixed precision and the same sharding level both need about the same memory "
             "and reach similar speed, so the deciding factors are features, not raw speed.",
        fsdp="Writes distributed_type: FSDP plus an fsdp_config section. Every FSDP option fits in the "
             "accelerate YAML. FSDP comes in two implementations with different key sets (see FSDP version).",
        deepspeed="Writes distributed_type: DEEPSPEED plus a deepspeed_config section. Only a few DeepSpeed "
                  "options can be set there; the rest go into a DeepSpeed JSON that the YAML points to "
                  "with deepspeed_config_file.",
        versions="accelerate 1.15 validates only top-level YAML keys. A DeepSpeed key placed under fsdp_config "
                 "(or the reverse) is dropped without a message, and distributed_type alone decides which "
                 "section is read.",
        tips="FSDP2 by default. DeepSpeed when you need ZeRO-1, NVMe offload, optimizer-only offload or an "
             "existing DeepSpeed JSON.",
    ),
    "fsdp_version": Text(
        what="FSDP1 is the FullyShardedDataParallel wrapper that packs each unit's parameters into one flat "
             "buffer. FSDP2 (fully_shard) shards every parameter on its own as a DTensor. FSDP2 has a lower, "
             "more predictable memory peak and handles LoRA-style frozen/trainable mixes and torch.compile "
             "without extra flags. FSDP1 still offers NO_SHARD, prefetch switches and LOCAL_STATE_DICT.",
        fsdp="fsdp_config.fsdp_version: 1 or 2. The version changes which keys are read: v1 uses "
             "fsdp_sharding_strategy, prefetch, use_orig_params and sync_module_states; v2 uses a boolean "
             "fsdp_reshard_after_forward and activation-checkpoint offload and ignores the v1-only keys.",
        deepspeed="Not used. DeepSpeed has a single ZeRO implementation; the stage (0-3) is what you choose.",
        versions="FSDP2 needs torch >= 2.6. The defaults disagree: the accelerate config questionnaire "
                 "suggests 2, but accelerate launch and the plugin assume 1 when the key is missing, so the "
                 "wizard always writes it. The launcher does not check a YAML value; anything other than 1 "
                 "or 2 fails later with an unclear KeyError. Under FSDP2, prepare() needs the model and its "
                 "optimizer in the same call, and only one model. `accelerate to-fsdp2` converts v1 YAMLs.",
        tips="2, unless you rely on a v1-only key.",
    ),
    # ------------------------------------------------------------------ launch
    "launch.num_processes": Text(
        what="Total number of training processes over all machines, normally one per GPU. It is the N that "
             "sharded state is divided by, and with DeepSpeed it enters the batch-size check. accelerate "
             "divides it by num_machines to get processes per node.",
        fsdp="Passed to torchrun as processes per node (num_processes / num_machines).",
        deepspeed="Same key. On the torchrun path it is used like FSDP; with a multi-node DeepSpeed runner it "
                  "becomes --num_gpus per node unless an inclusion or exclusion filter is set.",
        versions="A count that is not a multiple of num_machines silently loses ranks (integer division). "
                 "Nothing compares it with the GPUs present; too many ranks fail when picking a device. "
                 "num_processes: -1 in a YAML means it must be given on the command line.",
    ),
    "launch.num_machines": Text(
        what="Number of nodes. With more than one, every node runs with the same settings except "
             "machine_rank, and all of them must reach main_process_ip:main_process_port. Links between "
             "nodes are much slower than inside one, which is what hybrid sharding addresses.",
        fsdp="Each node starts accelerate launch itself (torchrun underneath).",
        deepspeed="With the 'standard' launcher each node starts itself, as with FSDP. The other launchers "
                  "(pdsh, openmpi, mpich, mvapich, slurm, nossh) go through the deepspeed runner and a "
                  "hostfile.",
        versions="The concept guide covers one node only; both libraries run multi-node.",
    ),
    "launch.machine_rank": Text(
        what="Index of this machine: 0 for the machine at main_process_ip, then 1 to num_machines-1. Each node "
             "needs its own value, so each node gets its own YAML or passes --machine_rank.",
        fsdp="Becomes torchrun's node rank.",
        deepspeed="Used by the 'standard' (torchrun) and 'nossh' launchers. pdsh, MPI and slurm launchers start "
                  "every node from rank 0 and number the nodes themselves.",
    ),
    "launch.main_process_ip": Text(
        what="Address of the rank-0 machine, where the processes meet. Needed only with more than one machine.",
        fsdp="torchrun master address when same_network is true; otherwise part of the rendezvous endpoint "
             "(address:port).",
        deepspeed="--master_addr for the deepspeed runner, or the torchrun address with the 'standard' launcher "
                  "and on one node.",
    ),
    "launch.main_process_port": Text(
        what="TCP port on the rank-0 machine for the rendezvous; 29500 when left empty. Use different ports "
             "for jobs that share a machine.",
        fsdp="torchrun master port (or the port of the rendezvous endpoint).",
        deepspeed="--master_port for the deepspeed runner, or the torchrun port.",
        versions="On a single machine accelerate warns when the port is taken and lets torchrun pick a free "
                 "one; on several machines a busy port on rank 0 stops the start.",
    ),
    "launch.rdzv_backend": Text(
        what="How processes find each other. static: fixed ranks, the accelerate default and enough for "
             "fixed-size jobs. c10d: torch's elastic rendezvous hosted by one of the agents; tolerates nodes "
             "starting in any order. etcd/etcd-v2: an external etcd server.",
        fsdp="Passed to torchrun.",
        deepspeed="Passed to torchrun on one node or with the 'standard' launcher; the deepspeed runner's own "
                  "launchers do not use it.",
    ),
    "launch.same_network": Text(
        what="Whether all machines sit on one local network. True: the other nodes connect straight to "
             "main_process_ip:port as the torchrun master. False: that address is used as a rendezvous "
             "endpoint instead. Only matters with more than one machine.",
        fsdp="Chooses master_addr/master_port (true) or rdzv_endpoint (false) for torchrun.",
        deepspeed="Same, on the torchrun path ('standard' launcher). The deepspeed runner ignores it.",
    ),
    "launch.gpu_ids": Text(
        what="Which local GPUs to use, comma-separated, or 'all'. accelerate exports the list as "
             "CUDA_VISIBLE_DEVICES for the training processes, so it should list exactly one GPU per process "
             "on the node.",
        fsdp="Sets CUDA_VISIBLE_DEVICES for torchrun's workers.",
        deepspeed="Same on the torchrun path. With a multi-node deepspeed runner, choose GPUs with the "
                  "inclusion or exclusion filter instead.",
        versions="Fewer ids than processes per node is not caught before start; the extra ranks fail when they "
                 "select a device.",
    ),
    "launch.main_training_function": Text(
        what="Name of the function accelerate calls when it imports your script instead of running it. Only "
             "the TPU launch path does that; GPU launches run the script as a program and never read this "
             "value.",
        fsdp="No effect on FSDP launches.",
        deepspeed="No effect on DeepSpeed launches.",
        versions="Kept because accelerate config writes it; harmless.",
    ),
    "launch.ds_multinode_launcher": Text(
        what="How a multi-node DeepSpeed job is started. 'standard' runs torchrun on every node, like FSDP, and "
             "needs no SSH. pdsh (accelerate's own default), openmpi, mvapich and mpich start all nodes from "
             "rank 0 through the deepspeed runner over SSH or MPI; slurm uses srun; nossh starts on each node "
             "without SSH.",
        fsdp="Not applicable: FSDP always uses torchrun on each node, the same as DeepSpeed's 'standard'.",
        deepspeed="deepspeed_config.deepspeed_multinode_launcher; read only when num_machines > 1.",
        versions="nossh needs DeepSpeed >= 0.14.5. Non-standard launchers write the environment to a "
                 ".deepspeed_env file in the working directory so remote nodes see it.",
        tips="'standard' unless your cluster is set up for pdsh/MPI/slurm.",
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
    ),
    "launch.ds_inclusion_filter": Text(
        what="Restricts a multi-node DeepSpeed run to the listed hosts or GPU slots (DeepSpeed's "
             "'host1@host2:0,1' syntax).",
        fsdp="Not applicable: pick GPUs with gpu_ids on each node.",
        deepspeed="deepspeed_config.deepspeed_inclusion_filter, passed as --include to the deepspeed runner.",
        versions="Ignored on one node and with the 'standard' launcher. When both filters are set accelerate "
                 "passes only the exclusion filter. With a filter, no per-node GPU count is passed.",
    ),
    "launch.ds_exclusion_filter": Text(
        what="Leaves the listed hosts or GPU slots out of a multi-node DeepSpeed run (same syntax as the "
             "inclusion filter).",
        fsdp="Not applicable: pick GPUs with gpu_ids on each node.",
        deepspeed="deepspeed_config.deepspeed_exclusion_filter, passed as --exclude to the deepspeed runner.",
        versions="Ignored on one node and with the 'standard' launcher. Wins over the inclusion filter.",
    ),
    "launch.dynamo_backend": Text(
        what="Turns on torch.compile and picks its backend. inductor is the usual choice; eager and aot_eager "
             "are for debugging; cudagraphs only replays graphs. Compilation adds minutes to the first steps "
             "and pays off in long runs.",
        fsdp="dynamo_config.dynamo_backend. FSDP1 compiles only with use_orig_params: true; otherwise Dynamo "
             "skips the model (eager run) or errors under fullgraph. FSDP2 compiles after activation "
             "checkpointing is applied and needs no flag.",
        deepspeed="Same key. accelerate calls the engine's compile() after deepspeed.initialize.",
        versions="DeepSpeed < 0.14.4: accelerate skips compilation silently.",
    ),
    "launch.dynamo_mode": Text(
        what="torch.compile mode. default: moderate compile time. reduce-overhead: CUDA graphs, fewer kernel "
             "launches, more memory. max-autotune: tries many kernels, long compile, uses CUDA graphs; the "
             "no-cudagraphs variant skips graphs.",
        fsdp="dynamo_config.dynamo_mode.",
        deepspeed="dynamo_config.dynamo_mode, the same.",
    ),
    "launch.dynamo_fullgraph": Text(
        what="Makes any graph break an error instead of a silent fall-back to eager code for that part. Useful "
             "to prove the whole model compiled.",
        fsdp="dynamo_config.dynamo_use_fullgraph. Turns the silent FSDP1 + use_orig_params: false fall-back "
             "into a hard error.",
        deepspeed="dynamo_config.dynamo_use_fullgraph, the same.",
    ),
    "launch.dynamo_dynamic": Text(
        what="Compile for varying input shapes. When false, accelerate passes dynamic=False: each new sequence "
             "length compiles again until torch's recompile limit, then runs eager. Set true for variable "
             "lengths, or pad batches to a few fixed lengths.",
        fsdp="dynamo_config.dynamo_use_dynamic.",
        deepspeed="dynamo_config.dynamo_use_dynamic, the same.",
    ),
    "launch.dynamo_regional": Text(
        what="Compiles each repeated block once and reuses the result instead of compiling the whole model. "
             "Cuts compile time for deep models for a small loss of cross-block optimisation.",
        fsdp="dynamo_config.dynamo_use_regional_compilation; FSDP2 has its own per-block variant.",
        deepspeed="Same key; accelerate applies it to the engine's module.",
    ),
    "launch.script": Text(
        what="The training script accelerate launch runs. Not part of any config file; the wizard uses it for "
             "the command it shows or starts.",
        fsdp="Command line: accelerate launch --config_file <yaml> <script> ...",
        deepspeed="Same command line; the DeepSpeed JSON is referenced from the YAML, not from the command.",
    ),
    "launch.script_args": Text(
        what="Arguments passed through to the training script. Not part of any config file.",
        fsdp="Appended after the script name.",
        deepspeed="Appended after the script name. Trainer scripts take precision, batch and clipping from "
                  "TrainingArguments, which fill the DeepSpeed 'auto' values.",
    ),
    # ------------------------------------------------------------------ sharding
    "sharding.strategy": Text(
        what="Decides which training state each GPU keeps only a slice of. For Adam with mixed precision "
             "(P params, N ranks) the per-GPU model state is about: none 16P; optimizer 4P + 12P/N; "
             "grads_optimizer 2P + 14P/N; full 16P/N. More sharding means more all-gathers. Hybrid variants "
             "shard inside each node and replicate across nodes, keeping the heavy traffic on fast links.",
        fsdp="FSDP1: fsdp_sharding_strategy FULL_SHARD (full), SHARD_GRAD_OP (grads_optimizer), NO_SHARD, "
             "HYBRID_SHARD, HYBRID_SHARD_ZERO2. 'optimizer' has no FSDP twin; the wizard writes the ZeRO-2 form. "
             "FSDP2: fsdp_reshard_after_forward true (full) or false (parameters stay gathered from forward "
             "to backward); hybrid through parallelism_config dp_replicate_size (nodes) x dp_shard_size (GPUs "
             "per node); 'none' cannot be expressed (nearest: false).",
        deepspeed="zero_stage inline, zero_optimization.stage in a JSON: 3 full, 2 grads_optimizer, 1 optimizer, "
                  "0 none. hybrid_full becomes ZeRO-3 with zero_hpz_partition_size = GPUs per node (ZeRO++ "
                  "hpZ): a node-local copy of the parameter shards keeps backward all-gathers inside the node, "
                  "while gradients and optimizer state stay sharded over all ranks. hybrid_grads_optimizer has "
                  "no twin and becomes plain ZeRO-2.",
        versions="FSDP1 reads only fsdp_sharding_strategy under accelerate launch. accelerate config stores the "
                 "v1 answer under fsdp_reshard_after_forward, which launch ignores for v1, so any v1 choice "
                 "silently runs as FULL_SHARD; the wizard writes the name under fsdp_sharding_strategy. The "
                 "guide's sample value '1' is the numeric code for FULL_SHARD (ZeRO-3 level), not ZeRO-1; "
                 "write names. FSDP2 ignores fsdp_sharding_strategy and needs a bool. FSDP1 hybrid groups by "
                 "the GPUs visible per node, so on one node it equals FULL_SHARD. Missing zero_stage = 2.",
        tips="full for models that do not fit otherwise; grads_optimizer when they do, for fewer all-gathers.",
    ),
    # ------------------------------------------------------------------ offload
    "offload.optimizer": Text(
        what="Moves optimizer state (fp32 master weights and Adam moments: 12 bytes per parameter with mixed "
             "precision) and the optimizer step off the GPU, to host RAM or, with DeepSpeed, NVMe. Frees the "
             "largest block of GPU memory but adds PCIe traffic and a CPU-side step; expect a clear slowdown.",
        fsdp="No optimizer-only offload. Any offload answer turns on fsdp_offload_params, which moves "
             "parameters, gradients and the optimizer step to CPU together (all or nothing). NVMe is not "
             "available and is treated as CPU.",
        deepspeed="offload_optimizer_device inline, zero_optimization.offload_optimizer.device in a JSON. cpu "
                  "works at ZeRO-1/2/3; accelerate replaces a torch optimizer with DeepSpeedCPUAdam (or "
                  "Adagrad/Lion). nvme only takes effect at ZeRO-3; stages 1-2 quietly treat it as cpu. Stage 0 "
                  "cannot offload (CPUAdam would assert), so the wizard writes none there.",
        versions="accelerate config offers offload only from stage 2 and offers nvme at stage 2, where it is "
                 "cpu in practice. Partial offload (ratio < 1) is ZeRO-3 only, via extra JSON. The CPU optimizer "
                 "is JIT-built on first use, which takes about a minute.",
    ),
    "offload.params": Text(
        what="Keeps the parameter shards in host RAM (or NVMe with DeepSpeed) and copies each piece to the GPU "
             "only while it is used. Lets models larger than all GPU memory together train, at a large speed "
             "cost; it only makes sense with full sharding.",
        fsdp="The same single switch, fsdp_offload_params: FSDP1 CPUOffload(offload_params=True), FSDP2 "
             "CPUOffloadPolicy(). Parameters, gradients and the optimizer step all move to CPU.",
        deepspeed="offload_param_device inline, zero_optimization.offload_param.device in a JSON. ZeRO-3 only: "
                  "stages 1-2 accept the block and never use it, so the wizard writes none there. Independent "
                  "of optimizer offload.",
        versions="accelerate config asks about parameter offload at stage 2, where it has no effect.",
    ),
    "offload.nvme_path": Text(
        what="Folder on a fast local NVMe drive where DeepSpeed (ZeRO-Infinity) swaps offloaded tensors. It "
             "needs room for the offloaded state and DeepSpeed's async_io op, which needs libaio.",
        fsdp="Not applicable: FSDP cannot offload to NVMe.",
        deepspeed="zero_optimization.offload_optimizer.nvme_path and/or offload_param.nvme_path, written only "
                  "to the DeepSpeed JSON. Effective at ZeRO-3 only.",
        versions="accelerate launch never exports the inline offload_*_nvme_path keys, so DeepSpeed receives "
                 "the literal relative path 'none'. The wizard therefore always puts NVMe settings in a "
                 "DeepSpeed JSON. A missing path with device nvme fails late, inside ZeRO-3 set-up.",
    ),
    "offload.pin_memory": Text(
        what="Whether offloaded tensors live in page-locked host memory. Pinning allows fast asynchronous "
             "copies that overlap with compute, but that RAM cannot be swapped out, so the host needs room and "
             "a high enough memlock limit (ulimit -l).",
        fsdp="No switch: FSDP1 pins its offloaded shards by itself, and accelerate builds FSDP2's "
             "CPUOffloadPolicy with its default, which pins.",
        deepspeed="zero_optimization.offload_optimizer.pin_memory / offload_param.pin_memory, JSON only. "
                  "DeepSpeed 0.19 pins by default; writing false switches pinning off.",
        versions="Older guides tell you to set pin_memory: true; in DeepSpeed 0.19 that is already the default, "
                 "and false is the value that changes behaviour.",
        tips="Leave pinning on unless host RAM or the memlock limit is tight.",
    ),
    # ------------------------------------------------------------------ loading
    "loading.ram_efficient": Text(
        what="Stops every rank from holding the full model in host RAM while loading. Eight ranks loading a "
             "70B bf16 model each need about 140 GB, over 1 TB per node; loading once or partitioning as "
             "tensors are created needs about one copy or less. Works with Transformers' from_pretrained only.",
        fsdp="fsdp_cpu_ram_efficient_loading: rank 0 reads the weights, the other ranks build the model on the "
             "meta device, and the weights are broadcast while sharding. FSDP1 does this through "
             "sync_module_states (must stay true); FSDP2 through accelerate's own broadcast of rank 0's state "
             "dict.",
        deepspeed="zero3_init_flag: Transformers builds the model inside deepspeed.zero.Init, so each "
                  "parameter is partitioned as soon as it exists. ZeRO-3 only; at other stages accelerate warns "
                  "and turns it off, and every rank loads everything.",
        versions="accelerate launch raises when ram-efficient loading is on and fsdp_sync_module_states is "
                 "false, even for FSDP2. Its launch default is true. torchao fp8 with FSDP2 refuses it. "
                 "zero3_init_flag needs Transformers, and the DeepSpeed config must be known before "
                 "from_pretrained runs (Trainer/TrainingArguments or HfDeepSpeedConfig), or zero.Init is never "
                 "used. Under zero.Init the parameters take DeepSpeed's dtype, not torch_dtype.",
    ),
    # ------------------------------------------------------------------ checkpoint
    "checkpoint.format": Text(
        what="How weights and optimizer state are saved. sharded: every rank writes its own piece; fast and "
             "light on memory, but needs a merge step before from_pretrained can read it. full: gather into "
             "one rank's CPU memory and write an ordinary state dict; slow and RAM-hungry for large models. "
             "local (FSDP1): raw per-rank shards, reloadable only with the same ranks and wrapping.",
        fsdp="fsdp_state_dict_type: SHARDED_STATE_DICT (a torch.distributed.checkpoint folder; merge with "
             "accelerate merge-weights), FULL_STATE_DICT (rank 0, staged on CPU) or LOCAL_STATE_DICT (v1 only). "
             "Plugin default: FULL for v1, SHARDED for v2. With mixed precision the weights are saved in fp32, "
             "the upcast copy.",
        deepspeed="The engine always saves per-rank shards (model weights plus fp32 optimizer partitions); "
                  "zero_to_fp32.py, copied next to them, rebuilds fp32 weights offline. 'full' sets "
                  "zero3_save_16bit_model (stage3_gather_16bit_weights_on_model_save) so that save_model and "
                  "get_state_dict can gather 16-bit weights at ZeRO-3. At stages 0-2 nothing is partitioned "
                  "and the flag changes nothing.",
        versions="FSDP2 rejects LOCAL_STATE_DICT; the wizard writes SHARDED instead. At ZeRO-3 without the "
                 "16-bit gather, accelerator.get_state_dict raises and Trainer falls back to the sharded "
                 "checkpoint, so plan on zero_to_fp32.py. ZeRO-0 checkpoints are plain weights; "
                 "zero_to_fp32.py does not handle them.",
        tips="sharded during training; produce one full copy at the end.",
    ),
    # ------------------------------------------------------------------ prefetch
    "prefetch.backward": Text(
        what="FSDP1 only. Sets when the next unit's all-gather starts during backward. pre: before the current "
             "gradients are computed; most overlap, one extra gathered unit in memory. post: after them; less "
             "overlap, less memory. none: no overlap; slowest.",
        fsdp="FSDP1: fsdp_backward_prefetch BACKWARD_PRE / BACKWARD_POST / NO_PREFETCH. If the key is missing "
             "accelerate passes None, which means no prefetch, although torch's own default is BACKWARD_PRE; "
             "the wizard always writes it. FSDP2: no key; fully_shard overlaps the next unit's all-gather by "
             "itself (finer control only in code).",
        deepspeed="No such key. ZeRO-3 fetches ahead on its own along the module order recorded in the first "
                  "step, limited by stage3_prefetch_bucket_size. ZeRO-0/1/2 never gather parameters, so there "
                  "is nothing to prefetch.",
        versions="FSDP2: accelerate warns and drops the value. Configs still using the old name "
                 "fsdp_backward_prefetch_policy get no prefetch setting at all. The concept guide lists this "
                 "as an FSDP-wide option; it is FSDP1-only.",
        tips="pre when memory allows, post when it is tight.",
    ),
    "prefetch.forward": Text(
        what="FSDP1 only. Starts the next unit's all-gather before the current forward finishes. Helps when "
             "the CPU cannot issue work fast enough; costs memory for one more gathered unit. Assumes the "
             "modules run in the same order every step.",
        fsdp="FSDP1: fsdp_forward_prefetch. FSDP2: not implemented. Set in code the plugin raises; from a YAML "
             "accelerate launch drops it without a word. FSDP2 already overlaps forward all-gathers.",
        deepspeed="No such key: ZeRO-3 prefetches in forward and backward by itself.",
    ),
    "prefetch.ds_bucket_size": Text(
        what="ZeRO-3 only. The most parameter elements DeepSpeed fetches ahead of use. Bigger hides more "
             "all-gather latency and reserves more GPU memory. DeepSpeed's default is 50,000,000; 'auto' lets "
             "accelerate use 0.9 x hidden_size squared.",
        fsdp="No such knob. FSDP1 prefetches one whole unit (the prefetch switches); FSDP2 one unit by itself. "
             "The wrapping policy sets the unit size.",
        deepspeed="zero_optimization.stage3_prefetch_bucket_size in the DeepSpeed JSON. Not written below ZeRO-3.",
        versions="'auto' is filled only when the prepared model has config.hidden_size (or hidden_sizes); "
                 "otherwise accelerate raises. The concept guide ties DeepSpeed prefetch to the persistence and "
                 "reuse knobs; this bucket size is the one that bounds it.",
    ),
    "prefetch.ds_param_persistence_threshold": Text(
        what="ZeRO-3 only. Parameters smaller than this many elements stay whole on every GPU instead of being "
             "partitioned, which saves many tiny all-gathers (biases, norms) for a little memory. DeepSpeed's "
             "default is 100,000; 'auto' = 10 x hidden_size.",
        fsdp="No twin: FSDP shards everything inside a unit. fsdp_ignored_modules keeps whole modules out of "
             "FSDP, but their gradients are then not averaged across ranks, unlike these parameters.",
        deepspeed="zero_optimization.stage3_param_persistence_threshold in the DeepSpeed JSON.",
        versions="'auto' needs model.config hidden size at prepare(). 0 partitions every parameter.",
    ),
    "prefetch.ds_model_persistence_threshold": Text(
        what="ZeRO-3 only. A budget, in parameter elements summed over the whole model, for the small parameters "
             "the persistence threshold keeps whole on every GPU: once it is used up, further small parameters are "
             "partitioned like the rest. It bounds the GPU memory persistent parameters take. DeepSpeed's default "
             "is no budget (sys.maxsize).",
        fsdp="No twin: FSDP keeps no parameters unsharded, so there is nothing to budget.",
        deepspeed="zero_optimization.stage3_model_persistence_threshold in the DeepSpeed JSON.",
        versions="Read when ZeRO-3 marks persistent parameters (deepspeed/runtime/zero/parameter_offload.py:317-335); "
                 "zero.Init (loading.ram_efficient) divides the budget by the number of ranks "
                 "(partition_parameters.py:1198). 0 keeps no parameter whole.",
    ),
    "prefetch.ds_max_live_parameters": Text(
        what="ZeRO-3 only. Upper limit on gathered (full) parameter elements held on a GPU at once; older ones "
             "are released when it is reached. Lower saves memory and may force fetching again. Default "
             "1,000,000,000.",
        fsdp="No knob. FSDP frees gathered parameters unit by unit, so the wrapping policy bounds how much is "
             "gathered.",
        deepspeed="zero_optimization.stage3_max_live_parameters in the DeepSpeed JSON; accelerate has no 'auto' "
                  "for it.",
    ),
    "prefetch.ds_max_reuse_distance": Text(
        what="ZeRO-3 only. A parameter needed again within this many parameter elements of the recorded order "
             "is kept gathered rather than released and fetched again. Higher values trade memory for fewer "
             "all-gathers, e.g. when activation checkpointing re-runs forward. Default 1,000,000,000.",
        fsdp="Closest idea: FSDP2 reshard_after_forward: false or FSDP1 SHARD_GRAD_OP keep parameters gathered "
             "from forward to backward, for every unit and regardless of distance.",
        deepspeed="zero_optimization.stage3_max_reuse_distance in the DeepSpeed JSON.",
        versions="accelerate does not fill this one automatically; only the bucket sizes and the persistence "
                 "threshold have an 'auto' fill.",
    ),
    # ------------------------------------------------------------------ wrapping
    "wrapping.policy": Text(
        what="FSDP only. Cuts the model into units; each unit is gathered, used and freed as a whole, so the "
             "unit size sets the memory peak and the size of each collective. transformer: one unit per "
             "block (the normal choice). size: a unit wherever a subtree reaches min_num_params. none: the "
             "whole model is one unit, so nothing is saved during forward and backward.",
        fsdp="fsdp_auto_wrap_policy TRANSFORMER_BASED_WRAP / SIZE_BASED_WRAP / NO_WRAP, the same for v1 and v2. "
             "FSDP2 calls fully_shard on each matching module, bottom up, then on the root; accelerate 1.15 "
             "also gives the input embedding and the final norm with the output head their own units. "
             "Missing key = NO_WRAP.",
        deepspeed="Nothing to choose: ZeRO-3 partitions every parameter and gathers per module through hooks. "
                  "Mixture-of-experts blocks may need the leaf-module setting.",
        versions="The concept guide calls the policy required; under accelerate it is optional, but leaving it "
                 "out means NO_WRAP.",
        tips="transformer.",
    ),
    "wrapping.layer_classes": Text(
        what="Class names of the blocks the transformer policy wraps, e.g. LlamaDecoderLayer. Empty means the "
             "model's own _no_split_modules list from Transformers. A name missing from the model stops "
             "prepare() with 'Could not find the transformer layer class'.",
        fsdp="fsdp_transformer_layer_cls_to_wrap, comma-separated, case-sensitive; read only with "
             "TRANSFORMER_BASED_WRAP. Same for v1 and v2.",
        deepspeed="Nothing to set; ZeRO-3 needs no block list.",
        versions="For a model without _no_split_modules an empty list wraps nothing below the root, silently. "
                 "Several classes: join them with commas.",
    ),
    "wrapping.min_num_params": Text(
        what="Threshold of the size policy: a subtree becomes its own unit once it holds this many parameters. "
             "Lower values give more, smaller units: lower peak memory, more collectives.",
        fsdp="fsdp_min_num_params, read only with SIZE_BASED_WRAP. FSDP1 wraps at >= the threshold, FSDP2 at "
             "> the threshold.",
        deepspeed="Nothing to set.",
        versions="Must be a plain integer in the YAML: YAML reads 1e8 as text and the start-up int() fails. 0 "
                 "switches wrapping off on FSDP1 but wraps every module with parameters on FSDP2. accelerate "
                 "launch exports 100000000 even when the size policy is not used.",
    ),
    "wrapping.ignored_modules": Text(
        what="Regular expression, matched against full module names, for modules FSDP must leave alone: not "
             "sharded, kept whole on every GPU, and their gradients are not averaged across ranks. Meant for "
             "frozen parts (a vision tower, say) or modules handled by other parallelism.",
        fsdp="fsdp_ignored_modules. FSDP1 receives the matching modules as ignored_modules, FSDP2 their "
             "parameters as ignored_params.",
        deepspeed="No regex. stage3_param_persistence_threshold keeps small parameters whole, but they stay "
                  "managed and their gradients are still reduced.",
        versions="FSDP2 needs torch >= 2.7; on older torch accelerate warns and drops it.",
        tips="Use for frozen modules only, unless you synchronise their gradients yourself.",
    ),
    "wrapping.ds_moe_layer_classes": Text(
        what="Mixture-of-experts block classes that ZeRO-3 should treat as leaves: all their parameters are "
             "gathered together when the block runs instead of per sub-module. Needed when not every expert "
             "runs on every rank; otherwise ranks can wait on each other and hang.",
        fsdp="No setting. Wrap the expert block class with the transformer policy so each block is one unit.",
        deepspeed="deepspeed_config.deepspeed_moe_layer_cls_names, comma-separated. accelerate calls "
                  "deepspeed.utils.set_z3_leaf_modules on the matching classes at prepare().",
        versions="Needs DeepSpeed >= 0.14.0. A name not found in the model raises. Matters at ZeRO-3 only.",
    ),
    # ------------------------------------------------------------------ summoning
    "summoning.use_orig_params": Text(
        what="FSDP1 only. When true, the optimizer and torch.compile see the model's real parameters (views "
             "into FSDP1's flat buffers) instead of one opaque flat tensor per unit. Needed for torch.compile, "
             "for frozen and trainable parameters in one unit (LoRA/PEFT), and for per-parameter optimizer "
             "groups such as no weight decay on norms.",
        fsdp="FSDP1: fsdp_use_orig_params; accelerate launch defaults it to true. FSDP2 always works on the "
             "real parameters (DTensors); the key does not exist there.",
        deepspeed="Nothing to set: the engine leaves the module's parameters in place and swaps in its flat "
                  "partitions internally.",
        versions="With false, Dynamo will not compile FSDP1 modules (eager fall-back, or an error under "
                 "fullgraph), and PEFT fails with 'Must flatten tensors with uniform requires_grad'. Reported "
                 "loss stalls also trace back to false. The guide ties it to torch.compile only; it matters "
                 "for LoRA as well.",
        tips="true, or move to FSDP2.",
    ),
    # ------------------------------------------------------------------ sync
    "sync.module_states": Text(
        what="FSDP1 only. Broadcasts rank 0's parameters and buffers to every rank when the model is wrapped, "
             "so all ranks start identical. Required when only rank 0 loaded real weights (ram-efficient "
             "loading); otherwise a one-off broadcast that protects against ranks that initialised "
             "differently.",
        fsdp="FSDP1: fsdp_sync_module_states, launch default true. FSDP2 has no such key; with ram-efficient "
             "loading accelerate broadcasts rank 0's weights itself.",
        deepspeed="Nothing to set: the engine broadcasts rank 0's parameters at start, except for models built "
                  "under zero.Init, which are partitioned already.",
        versions="accelerate launch refuses false together with ram-efficient loading, for FSDP2 as well. With "
                 "false, loading a FULL_STATE_DICT checkpoint on other ranks raises.",
    ),
    # ------------------------------------------------------------------ training
    "training.gradient_accumulation_steps": Text(
        what="Micro-batches whose gradients are summed before each optimizer step; effective batch = micro "
             "batch x steps x data-parallel ranks. Raises the effective batch without more activation memory; "
             "time per optimizer step grows accordingly.",
        fsdp="In the script: Accelerator(gradient_accumulation_steps=N) and `with accelerator.accumulate(model):`. "
             "Between optimizer steps both FSDP versions skip the reduce-scatter and keep unsharded gradients; "
             "GradientAccumulationPlugin(sync_each_batch=True) reduces every micro-batch to save that memory, "
             "at some speed cost.",
        deepspeed="gradient_accumulation_steps in the config; the engine counts micro-batches itself. The value "
                  "wins over the Accelerator argument (accelerate warns on a mismatch) and enters the check "
                  "train_batch_size = micro batch x steps x world size.",
        versions="Inline in the accelerate YAML it must be an integer: 'auto' is exported as text and "
                 "Accelerator fails converting it. 'auto' works only inside a DeepSpeed JSON.",
    ),
    "training.gradient_clipping": Text(
        what="Rescales all gradients when their global norm exceeds this value; 0 switches it off. 1.0 is a "
             "common setting for transformers. Guards against loss spikes for one extra norm reduction per step.",
        fsdp="In the script: accelerator.clip_grad_norm_(model.parameters(), max_norm) before optimizer.step(). "
             "FSDP1 computes the norm over shards in its wrapper, FSDP2 through DTensor. Nothing in the YAML; "
             "clip_grad_value_ is not supported.",
        deepspeed="gradient_clipping in the config; the engine clips inside step(). Under DeepSpeed "
                  "accelerator.clip_grad_norm_ ignores its max_norm and only returns the norm, so the config "
                  "value is the one that counts.",
        versions="Leaving the key out does not mean off: accelerate treats it as 'auto' and fills 1.0 (Trainer "
                 "fills its max_grad_norm). Writing 0.0 inline does not help either: accelerate drops a zero and "
                 "DeepSpeed 0.19's own default is 1.0. Only 0.0 inside a DeepSpeed JSON turns clipping off, so "
                 "the wizard writes a JSON for it. The guide's 'auto' advice means 1.0 outside Trainer.",
    ),
    "training.micro_batch_size": Text(
        what="Samples per GPU in one forward/backward. Activation memory grows about linearly with it; bigger "
             "batches use the GPU better until memory runs out.",
        fsdp="Only the DataLoader's batch_size in your script; FSDP neither knows nor checks it.",
        deepspeed="train_micro_batch_size_per_gpu. 'auto' makes accelerate read the prepared DataLoader's "
                  "batch_size; DeepSpeed then checks train_batch_size = micro x accumulation x world size. An "
                  "integer needs the DeepSpeed JSON: inline mode always writes 'auto'.",
        versions="'auto' fails when prepare() gets no DataLoader with an integer batch_size (custom batch "
                 "samplers); write a number then. accelerate never overwrites non-'auto' values, so a fixed "
                 "train_batch_size next to 'auto' pieces can break the check.",
    ),
    "training.activation_checkpointing": Text(
        what="Re-runs each block's forward during backward instead of keeping its activations. Stored "
             "activations per layer drop from roughly 34-53 x seq x batch x hidden bytes (bf16) to about 2 x "
             "seq x batch x hidden, for roughly a third more compute.",
        fsdp="fsdp_activation_checkpointing. FSDP1 checkpoints the auto-wrap units (non-reentrant) after "
             "sharding; FSDP2 applies it before sharding and before torch.compile. Use this or the model's "
             "gradient_checkpointing_enable(), not both.",
        deepspeed="No accelerate switch: call model.gradient_checkpointing_enable() (Transformers) or use "
                  "torch.utils.checkpoint in the model. DeepSpeed's activation_checkpointing JSON section only "
                  "affects models written against deepspeed.checkpointing.",
        tips="On for long sequences or large micro-batches.",
    ),
    "training.activation_checkpointing_offload": Text(
        what="FSDP2 only. Moves the tensors kept at each checkpoint boundary (the block inputs, about 2 x seq x "
             "batch x hidden bytes per layer) to host memory during forward and brings them back for backward. "
             "Helps at very long sequences, where even checkpointed inputs fill the GPU; costs PCIe traffic.",
        fsdp="fsdp_activation_checkpointing_offload; requires fsdp_activation_checkpointing: true and "
             "fsdp_version: 2 (the plugin raises otherwise).",
        deepspeed="No accelerate switch. DeepSpeed's activation_checkpointing.cpu_checkpointing does the same "
                  "only for models that use DeepSpeed's checkpointing API.",
        versions="New in accelerate 1.15; not available for FSDP1.",
    ),
    # ------------------------------------------------------------------ precision
    "precision.mixed_precision": Text(
        what="dtype of the matrix multiplies in forward and backward. bf16: the default on Ampere and newer. "
             "fp16: needs loss scaling; for older GPUs. fp8: Ada/Hopper or newer plus Transformer Engine, "
             "torchao or MS-AMP. no: everything runs in the load dtype. With mixed precision both backends "
             "keep fp32 master weights and optimizer state.",
        fsdp="Top-level mixed_precision. accelerate builds MixedPrecision for v1 (parameters, gradient reduction "
             "and buffers in that dtype) or MixedPrecisionPolicy for v2 (parameters, reduction and outputs; "
             "buffers untouched), upcasts trainable low-precision parameters to fp32 and adds autocast. fp16 "
             "gets a gradient scaler; fp8 uses bf16 as FSDP's parameter dtype.",
        deepspeed="Inline: top-level mixed_precision, turned into bf16.enabled / fp16.enabled. With a "
                  "DeepSpeed JSON the bf16/fp16 sections carry it instead. The engine casts the model's "
                  "parameters to bf16/fp16 (buffers stay) and keeps fp32 masters in the ZeRO optimizer; fp16 "
                  "uses dynamic loss scaling.",
        versions="With deepspeed_config_file, mixed_precision in the YAML (even 'no') raises, and a "
                 "--mixed_precision that contradicts the JSON raises. MS-AMP fp8 works with DeepSpeed stages "
                 "0-2 only and not with FSDP. torchao fp8 with FSDP2 cannot use ram-efficient loading.",
        tips="bf16.",
    ),
    "precision.model_dtype": Text(
        what="The torch_dtype your script passes to from_pretrained. Without mixed precision it is the dtype "
             "FSDP stores, trains and optimises in: bf16 halves parameter, gradient and Adam memory (8 instead "
             "of 16 bytes per parameter) but small updates get rounded away. With mixed precision on, both "
             "backends end up with fp32 master weights whatever you load.",
        fsdp="Not in any config. No mixed precision: FSDP keeps everything in this dtype. Mixed precision: "
             "accelerate upcasts trainable parameters to fp32 at prepare() ('Upcasted low precision "
             "parameters' warning); frozen ones stay.",
        deepspeed="Not in any config. ZeRO-1/2/3 always build fp32 master partitions from the loaded weights, "
                  "so a bf16 load does not shrink optimizer state. Under zero.Init (ZeRO-3) the parameters take "
                  "DeepSpeed's dtype instead of this one.",
        versions="fp16 without mixed precision trains without any loss scaling; avoid it.",
    ),
    "precision.ds_communication_data_type": Text(
        what="dtype DeepSpeed uses to sum gradients across ranks. By default it follows the training dtype "
             "(bf16 or fp16, otherwise fp32). fp32 doubles gradient traffic but avoids rounding in the sum, "
             "which helps with many ranks or when bf16 runs diverge.",
        fsdp="No YAML key: accelerate sets FSDP's reduce dtype equal to mixed_precision. Another reduce dtype "
             "needs a MixedPrecision / MixedPrecisionPolicy passed to FullyShardedDataParallelPlugin in code.",
        deepspeed="communication_data_type at the top of the DeepSpeed JSON: fp16, bf16 or fp32.",
        versions="On ROCm with bf16 accelerate sets fp32 itself when the key is absent.",
    ),
    # ------------------------------------------------------------------ deepspeed engine
    "deepspeed.config_file": Text(
        what="Whether the wizard writes a separate DeepSpeed JSON and points deepspeed_config_file at it. "
             "Inline YAML keys cover only the stage, offload devices, accumulation, clipping, the ZeRO-3 16-bit "
             "save and zero.Init. auto: write the JSON only when a chosen setting needs it. yes: always. no: "
             "never, and the wizard lists the settings that cannot be carried.",
        fsdp="Not applicable: FSDP lives entirely in fsdp_config.",
        deepspeed="deepspeed_config.deepspeed_config_file. Mixed precision, batch sizes, accumulation and "
                  "clipping then move into the JSON.",
        versions="Next to a config file, the YAML may not carry gradient_accumulation_steps, gradient_clipping, "
                 "zero_stage, offload devices or NVMe paths, zero3_save_16bit_model or mixed_precision: "
                 "accelerate raises. zero3_init_flag, MoE classes and the multi-node launcher keys stay "
                 "allowed. Unknown inline keys, e.g. train_micro_batch_size_per_gpu, are dropped silently.",
    ),
    "deepspeed.overlap_comm": Text(
        what="Overlaps gradient reduction with backward compute. Faster backward, but keeps extra bucket "
             "buffers; with ZeRO-2 and 5e8-element buckets that can reach several GB. Left empty, DeepSpeed "
             "turns it on at ZeRO-3 and off at stages 0-2.",
        fsdp="No knob: FSDP always runs its reduce-scatters on a separate stream during backward.",
        deepspeed="zero_optimization.overlap_comm in the DeepSpeed JSON.",
        tips="On, with smaller buckets if memory is tight.",
    ),
    "deepspeed.contiguous_gradients": Text(
        what="Copies each gradient into one pre-allocated buffer as it is produced. Avoids memory "
             "fragmentation in backward and speeds up the reduction. DeepSpeed's default is on.",
        fsdp="No knob. FSDP1 already keeps each unit's gradients in one flat buffer; FSDP2 has no such option.",
        deepspeed="zero_optimization.contiguous_gradients in the DeepSpeed JSON; matters at ZeRO-2 and ZeRO-3.",
    ),
    "deepspeed.reduce_bucket_size": Text(
        what="Gradient elements collected before one reduce (or reduce-scatter) is launched. Big buckets mean "
             "fewer, more efficient collectives and more memory for the buffers. DeepSpeed's default is "
             "500,000,000; 'auto' lets accelerate use hidden_size squared.",
        fsdp="No knob: FSDP reduces one wrapped unit at a time, so the wrapping policy sets the size.",
        deepspeed="zero_optimization.reduce_bucket_size in the DeepSpeed JSON (ZeRO-1 to 3).",
        versions="'auto' needs model.config hidden size at prepare().",
    ),
    "deepspeed.allgather_bucket_size": Text(
        what="Parameter elements gathered per all-gather when ZeRO-1/2 hand the updated shards back to every "
             "rank. Larger buckets mean fewer collectives and bigger temporary buffers; with overlap_comm the "
             "buffer cost roughly doubles. DeepSpeed's default is 500,000,000.",
        fsdp="No knob: FSDP all-gathers one wrapped unit at a time, so the wrapping policy sets the size.",
        deepspeed="zero_optimization.allgather_bucket_size in the DeepSpeed JSON (ZeRO-1 and 2).",
        versions="Not read by ZeRO-3, which uses stage3_prefetch_bucket_size for its gathers.",
    ),
    "deepspeed.sub_group_size": Text(
        what="ZeRO-3 runs the optimizer step over groups of at most this many elements. Smaller groups lower "
             "the memory peak of the step and of the CPU/NVMe buffers under offload, at some speed cost. "
             "Default 1,000,000,000; mostly relevant with ZeRO-Infinity offload.",
        fsdp="No knob: the torch optimizer steps over each rank's shards.",
        deepspeed="zero_optimization.sub_group_size in the DeepSpeed JSON; written only at ZeRO-3.",
    ),
    "deepspeed.extra": Text(
        what="Any further DeepSpeed JSON you need: optimizer or scheduler blocks, other zero_optimization "
             "options (offload ratio, aio tuning), the flops profiler. Merged last into the generated JSON, so "
             "it overrides the wizard's values; the wizard validates the result.",
        fsdp="Not applicable.",
        deepspeed="Merged into the DeepSpeed JSON (so it forces JSON mode).",
        versions="DeepSpeed 0.19 rejects unknown keys inside zero_optimization and raises for removed blocks "
                 "(amp, sparse_attention, elasticity, ...). An optimizer or scheduler block conflicts with one "
                 "created in your script: use accelerate's DummyOptim/DummyScheduler then. accelerate fills "
                 "only a fixed list of 'auto' values; any other 'auto' raises.",
    ),
}


GROUP_TEXTS: dict[str, GroupText] = {
    "backend": GroupText(
        summary="Which engine shards the model. FSDP is part of torch and lives entirely in the accelerate YAML; "
                "DeepSpeed is its own engine whose full configuration is a JSON, with a small subset "
                "reachable from the YAML. FSDP has two implementations with different keys.",
        fsdp="distributed_type: FSDP\nfsdp_config.fsdp_version: 1 | 2",
        deepspeed="distributed_type: DEEPSPEED\ndeepspeed_config.* (inline keys)\n"
                  "deepspeed_config.deepspeed_config_file (JSON)",
        no_counterpart="The FSDP version has no DeepSpeed meaning. distributed_type decides which section is "
                       "read; the other one is ignored without a message.",
    ),
    "launch": GroupText(
        summary="How many processes start where, and how they meet. The keys are shared. On several machines "
                "FSDP always runs torchrun on each node, while DeepSpeed can also start every node from rank 0 "
                "through its own runner and a hostfile.",
        fsdp="num_processes, num_machines, machine_rank\nmain_process_ip, main_process_port\n"
             "rdzv_backend, same_network, gpu_ids\ndynamo_config.*",
        deepspeed="the same keys\ndeepspeed_config.deepspeed_multinode_launcher\n"
                  "deepspeed_config.deepspeed_hostfile\ndeepspeed_config.deepspeed_inclusion_filter / "
                  "deepspeed_exclusion_filter",
        no_counterpart="Launcher choice, hostfile and filters are DeepSpeed-only. torch.compile needs "
                       "use_orig_params on FSDP1 only.",
    ),
    "sharding": GroupText(
        summary="What each GPU stores only a slice of. The ladder: nothing (plain data parallel), optimizer "
                "state (ZeRO-1), plus gradients (ZeRO-2, SHARD_GRAD_OP, FSDP2 reshard false), plus parameters "
                "(ZeRO-3, FULL_SHARD, FSDP2 reshard true). Each rung saves memory and adds communication; "
                "hybrid forms shard inside a node and replicate across nodes.",
        fsdp="v1: fsdp_sharding_strategy (FULL_SHARD, SHARD_GRAD_OP, NO_SHARD, HYBRID_SHARD, "
             "HYBRID_SHARD_ZERO2)\nv2: fsdp_reshard_after_forward true | false\n"
             "v2 hybrid: parallelism_config_dp_replicate_size x parallelism_config_dp_shard_size",
        deepspeed="zero_stage (inline) / zero_optimization.stage 0-3\n"
                  "hybrid: zero_optimization.zero_hpz_partition_size (ZeRO++, stage 3)",
        no_counterpart="ZeRO-1 has no FSDP twin (nearest: SHARD_GRAD_OP / reshard false). HYBRID_SHARD_ZERO2 "
                       "has no DeepSpeed twin. NO_SHARD does not exist in FSDP2. hpZ only approximates "
                       "HYBRID_SHARD: gradients and optimizer state stay sharded over all ranks.",
    ),
    "offload": GroupText(
        summary="Moving state from GPU to host RAM or disk, trading speed for memory. FSDP has one switch for "
                "everything; DeepSpeed offloads optimizer state and parameters separately, to CPU or NVMe.",
        fsdp="fsdp_offload_params (parameters + gradients + optimizer step to CPU)",
        deepspeed="offload_optimizer_device / zero_optimization.offload_optimizer.*\n"
                  "offload_param_device / zero_optimization.offload_param.* (ZeRO-3)\n"
                  "nvme_path, pin_memory (JSON only)",
        no_counterpart="FSDP offload is all or nothing: 'optimizer only' becomes 'everything'. DeepSpeed NVMe "
                       "offload and the pin_memory switch have no FSDP counterpart. DeepSpeed parameter "
                       "offload needs ZeRO-3.",
    ),
    "loading": GroupText(
        summary="Avoiding one full copy of the weights per rank in host RAM at start-up. FSDP loads on rank 0 "
                "and broadcasts; DeepSpeed ZeRO-3 partitions each tensor as it is created. Both depend on "
                "Transformers' from_pretrained.",
        fsdp="fsdp_cpu_ram_efficient_loading\n(v1 also needs fsdp_sync_module_states: true)",
        deepspeed="zero3_init_flag (ZeRO-3 only)",
        no_counterpart="DeepSpeed stages 0-2 have no memory-efficient loading: every rank loads the full model.",
    ),
    "checkpoint": GroupText(
        summary="Saving per-rank pieces is fast and needs a later merge; gathering one full copy is slow and "
                "needs RAM on one rank. FSDP picks the format with one key; DeepSpeed always saves shards and "
                "can additionally gather 16-bit weights at ZeRO-3.",
        fsdp="fsdp_state_dict_type: SHARDED_STATE_DICT | FULL_STATE_DICT | LOCAL_STATE_DICT (v1)\n"
             "merge: accelerate merge-weights",
        deepspeed="zero3_save_16bit_model / zero_optimization.stage3_gather_16bit_weights_on_model_save\n"
                  "merge: zero_to_fp32.py (saved with each checkpoint)",
        no_counterpart="LOCAL_STATE_DICT (FSDP1) has no DeepSpeed twin. The 16-bit gather matters at ZeRO-3 "
                       "only. With mixed precision FSDP saves fp32 weights, DeepSpeed 16-bit weights plus "
                       "fp32 master shards.",
    ),
    "prefetch": GroupText(
        summary="Fetching the next parameters while the current ones compute hides communication and costs "
                "memory. FSDP1 has two switches; FSDP2 prefetches by itself with no knob; DeepSpeed ZeRO-3 "
                "prefetches by itself within size and distance budgets.",
        fsdp="v1: fsdp_backward_prefetch, fsdp_forward_prefetch\nv2: none",
        deepspeed="stage3_prefetch_bucket_size\nstage3_param_persistence_threshold\nstage3_model_persistence_threshold\n"
                  "stage3_max_live_parameters, stage3_max_reuse_distance\n(JSON, ZeRO-3 only)",
        no_counterpart="FSDP2 has no prefetch knobs. DeepSpeed has no on/off switch, only ZeRO-3 budgets; "
                       "stages 0-2 never gather parameters.",
    ),
    "wrapping": GroupText(
        summary="FSDP gathers and frees parameters per wrapped unit, so it must be told where the units are, "
                "usually one per transformer block. DeepSpeed ZeRO-3 partitions every parameter and hooks every "
                "module, so it needs no such choice.",
        fsdp="fsdp_auto_wrap_policy\nfsdp_transformer_layer_cls_to_wrap\nfsdp_min_num_params\n"
             "fsdp_ignored_modules",
        deepspeed="nothing to set\nMoE: deepspeed_moe_layer_cls_names",
        no_counterpart="The wrap policy has no DeepSpeed meaning. MoE leaf modules have no FSDP key (wrap the "
                       "expert block instead). ignored_modules has only a loose DeepSpeed analogue.",
    ),
    "summoning": GroupText(
        summary="Whether the optimizer and torch.compile see the model's own parameters. Only FSDP1 hides them "
                "behind flat tensors unless told otherwise; FSDP2 and DeepSpeed always expose them.",
        fsdp="v1: fsdp_use_orig_params (launch default true)\nv2: always on, no key",
        deepspeed="nothing to set",
        no_counterpart="The key exists only on FSDP1; nothing to carry over.",
    ),
    "sync": GroupText(
        summary="All ranks must start from the same weights. FSDP1 broadcasts rank 0's weights when asked; "
                "FSDP2 and DeepSpeed take care of it themselves.",
        fsdp="v1: fsdp_sync_module_states\nv2: none (obsolete)",
        deepspeed="nothing to set (the engine broadcasts at start)",
        no_counterpart="FSDP1-only key. The launcher's check against ram-efficient loading still applies to "
                       "FSDP2.",
    ),
    "training": GroupText(
        summary="Loop-level settings. The DeepSpeed engine owns accumulation, clipping and the micro-batch "
                "size through its config; FSDP leaves them to your script. Activation checkpointing is an "
                "FSDP config key but a model call with DeepSpeed.",
        fsdp="Accelerator(gradient_accumulation_steps=...)\naccelerator.clip_grad_norm_(...)\n"
             "DataLoader(batch_size=...)\nfsdp_activation_checkpointing\n"
             "fsdp_activation_checkpointing_offload (v2)",
        deepspeed="gradient_accumulation_steps, gradient_clipping\n"
                  "train_micro_batch_size_per_gpu, train_batch_size\nmodel.gradient_checkpointing_enable()",
        no_counterpart="Activation-checkpoint offload exists only in FSDP2. DeepSpeed's batch-size check has no "
                       "FSDP counterpart. Under DeepSpeed the max_norm in your script is ignored.",
    ),
    "precision": GroupText(
        summary="Both run the matrix multiplies in the mixed-precision dtype and, with mixed precision on, keep "
                "fp32 master weights and optimizer state. They part ways when mixed precision is off: FSDP then "
                "trains and keeps Adam state in the load dtype, while DeepSpeed ZeRO still builds fp32 master "
                "copies.",
        fsdp="mixed_precision (top level) -> MixedPrecision (v1) / MixedPrecisionPolicy (v2)\n"
             "reduce dtype = mixed_precision\ntorch_dtype in your script",
        deepspeed="mixed_precision (inline) or bf16.enabled / fp16.enabled (JSON)\ncommunication_data_type\n"
                  "torch_dtype in your script",
        no_counterpart="FSDP's low-memory mode (16-bit weights, no mixed precision, 16-bit Adam) has no ZeRO "
                       "twin. A separate gradient-reduction dtype is a config key only on DeepSpeed. MS-AMP fp8 "
                       "is DeepSpeed-only (stages 0-2).",
    ),
    "deepspeed": GroupText(
        summary="DeepSpeed engine options that accelerate cannot express inline. They live in a DeepSpeed JSON "
                "that the wizard writes and references from deepspeed_config_file.",
        fsdp="none: every FSDP option fits in fsdp_config",
        deepspeed="deepspeed_config_file\nzero_optimization.overlap_comm, contiguous_gradients\n"
                  "zero_optimization.reduce_bucket_size, sub_group_size\nextra blocks (merged)",
        no_counterpart="None of these has an FSDP key: FSDP overlaps communication by itself and sizes its "
                       "collectives by wrapped unit.",
    ),
}


# ---------------------------------------------------------------------- precision table

MODEL_DTYPES = ("fp32", "bf16", "fp16")
MIXED_PRECISIONS = ("no", "fp16", "bf16", "fp8")

_COMPUTE = {"fp16": "fp16", "bf16": "bf16", "fp8": "fp8+bf16"}
_SIXTEEN = {"fp16": "fp16", "bf16": "bf16", "fp8": "bf16"}
"""The 16-bit dtype DeepSpeed casts the model to for each mixed-precision mode (fp8 runs on bf16)."""


@dataclass(frozen=True)
class PrecisionRow:
    backend: str
    """"FSDP" or "DeepSpeed"."""
    load: str
    """dtype of the weights after from_pretrained(torch_dtype=...)."""
    flat_params_or_prepared: str
    """dtype of the parameters after prepare(): FSDP's flat/sharded params; DeepSpeed's module parameters
    and, when they are 16-bit, the fp32 master partition the optimizer updates. Per GPU, so any upcast is
    divided by the number of ranks."""
    training_compute: str
    """dtype of forward/backward matmuls."""
    optimizer_state: str
    """dtype of the optimizer step and its state (Adam moments)."""
    checkpoint: str
    """dtype of the saved weights."""


def _check(model_dtype: str, mixed_precision: str) -> None:
    if model_dtype not in MODEL_DTYPES:
        raise ValueError(f"model_dtype must be one of {MODEL_DTYPES}, got {model_dtype!r}")
    if mixed_precision not in MIXED_PRECISIONS:
        raise ValueError(f"mixed_precision must be one of {MIXED_PRECISIONS}, got {mixed_precision!r}")


def _ds_params(module_dtype: str) -> str:
    """DeepSpeed's parameters: the module's own (cast to the 16-bit dtype) plus the fp32 master the optimizer
    updates."""
    return "fp32" if module_dtype == "fp32" else f"{module_dtype} module + fp32 master"


def precision_table(model_dtype: str, mixed_precision: str) -> list[PrecisionRow]:
    """Where each dtype ends up on FSDP and on DeepSpeed ZeRO-1/2/3 for a load dtype and mixed precision.

    Follows the concept guide's table, corrected for the installed code: with mixed precision accelerate
    upcasts trainable low-precision parameters to fp32 for FSDP1 and FSDP2; DeepSpeed's ZeRO optimizers
    keep fp32 master partitions whether or not mixed precision is on. ZeRO-0 and zero.Init exceptions are
    in :func:`precision_notes`.
    """
    _check(model_dtype, mixed_precision)
    md, mp = model_dtype, mixed_precision
    if mp == "no":
        fsdp = PrecisionRow("FSDP", md, md, md, md, md)
        ds = PrecisionRow("DeepSpeed", md, _ds_params(md), md, "fp32", f"{md} weights + fp32 master shards")
    else:
        fsdp = PrecisionRow("FSDP", md, "fp32", _COMPUTE[mp], "fp32", "fp32")
        ds = PrecisionRow("DeepSpeed", md, _ds_params(_SIXTEEN[mp]), _COMPUTE[mp], "fp32",
                          f"{_SIXTEEN[mp]} weights + fp32 master shards")
    return [fsdp, ds]


def precision_notes(model_dtype: str, mixed_precision: str) -> list[str]:
    """Plain-language consequences of a load dtype / mixed-precision pair, FSDP and DeepSpeed side by side."""
    _check(model_dtype, mixed_precision)
    md, mp = model_dtype, mixed_precision
    low = md != "fp32"
    notes: list[str] = []
    if mp == "no":
        if low:
            notes.append(
                f"{md} weights with no mixed precision: FSDP trains, reduces gradients and keeps Adam state in "
                f"{md}, about 8 bytes per parameter before sharding instead of 16, but small updates can be "
                f"rounded away. DeepSpeed ZeRO-1/2/3 still build fp32 master weights and fp32 Adam state from "
                f"the {md} weights (12 more bytes per parameter, divided by the number of ranks), so on few "
                f"GPUs DeepSpeed needs clearly more memory.")
            notes.append(
                f"DeepSpeed ZeRO-0 (sharding 'none') with no mixed precision has no master copy: the optimizer "
                f"updates the {md} parameters directly, as FSDP does.")
            if md == "fp16":
                notes.append(
                    "fp16 without mixed precision runs with no loss scaling on either backend: small gradients "
                    "underflow to zero. Prefer bf16, or load fp32 and use mixed_precision fp16.")
        else:
            notes.append(
                "fp32 throughout: the most stable and the most expensive option. Adam needs 16 bytes per "
                "parameter before sharding, and activations take twice the bf16 space. Both backends behave "
                "the same.")
    else:
        sixteen = _SIXTEEN[mp]
        if low:
            notes.append(
                f"{md} weights with {mp} mixed precision: at prepare() accelerate upcasts every trainable "
                f"parameter to fp32 for FSDP (it warns 'Upcasted low precision parameters'); frozen ones stay "
                f"{md}. FSDP checkpoints are then fp32, twice the size of {md} files. DeepSpeed casts the "
                f"model to {sixteen} and keeps a separate fp32 master partition; its 16-bit save writes "
                f"{sixteen}.")
        else:
            notes.append(
                f"fp32 weights with {mp} mixed precision: FSDP keeps fp32 shards and all-gathers them in "
                f"{sixteen} for each forward and backward; DeepSpeed converts the model itself to {sixteen} "
                f"and keeps a separate fp32 master partition. Both come to about 16 bytes per parameter for "
                f"Adam before sharding.")
        notes.append(
            f"Gradients are summed across ranks in {sixteen} on both backends by default (FSDP: reduce dtype = "
            f"mixed precision; DeepSpeed: communication_data_type follows it). DeepSpeed can switch to fp32 "
            f"with communication_data_type; FSDP needs a policy set in code.")
        notes.append(
            "FSDP1 also casts buffers to the mixed-precision dtype; FSDP2 and DeepSpeed leave buffers (e.g. "
            "rotary frequencies) in the dtype they were loaded in.")
        if mp == "fp16":
            notes.append(
                "fp16 needs loss scaling: accelerate adds a gradient scaler for FSDP (ShardedGradScaler on v1, "
                "GradScaler on v2) and DeepSpeed uses its dynamic loss scaler. Values beyond about 65,504 "
                "overflow.")
            if md == "bf16":
                notes.append(
                    "bf16 weights run in fp16: bf16 has a wider range, so a model trained in bf16 can overflow "
                    "in fp16. Prefer bf16 mixed precision for such checkpoints.")
        if mp == "fp8":
            notes.append(
                "fp8: only the matrix multiplies of supported layers run in fp8 (Transformer Engine, torchao or "
                "MS-AMP); the rest runs in bf16, which is also FSDP's parameter dtype. MS-AMP is refused with "
                "FSDP and with ZeRO-3; torchao with FSDP2 cannot use ram-efficient loading. Needs an "
                "fp8-capable GPU (Ada, Hopper or newer).")
    ds_init_dtype = _SIXTEEN.get(mp, "fp32")
    if ds_init_dtype != md:
        notes.append(
            f"DeepSpeed ZeRO-3 with zero3_init_flag: Transformers creates the parameters inside "
            f"deepspeed.zero.Init, which uses DeepSpeed's dtype ({ds_init_dtype} here), not the {md} "
            f"torch_dtype.")
    return notes


# ---------------------------------------------------------------------- switching backend: changes of meaning


@dataclass(frozen=True)
class MeaningChange:
    """An answer that carries over to another target but means something else there.

    Reported by a switch next to the values that were dropped: the same words in the config, a
    different behaviour in the run."""

    setting_id: str
    values: tuple | None
    """The answer values the change applies to (None: any value)."""
    before: tuple[str, ...]
    """Targets switched from."""
    after: tuple[str, ...]
    """Targets switched to."""
    text: str


_FSDP = ("fsdp1", "fsdp2")
_DS = ("deepspeed",)

MEANING_CHANGES: tuple[MeaningChange, ...] = (
    MeaningChange(
        "offload.optimizer", ("cpu", "nvme"), _DS, _FSDP,
        "DeepSpeed moved only the optimizer state and step off the GPU and ran the step in DeepSpeedCPUAdam "
        "(accelerate swaps a torch Adam for it); FSDP's single fsdp_offload_params also moves the parameters and "
        "gradients to the CPU and runs your own torch optimizer's step there, usually slower than DeepSpeedCPUAdam."),
    MeaningChange(
        "offload.optimizer", ("nvme",), _DS, _FSDP,
        "NVMe becomes CPU RAM: FSDP cannot offload to NVMe, so the host needs room for all of it."),
    MeaningChange(
        "offload.params", ("cpu", "nvme"), _DS, _FSDP,
        "DeepSpeed offloaded the parameters separately from the optimizer (ZeRO-3 only); on FSDP the same switch "
        "offloads parameters, gradients and the optimizer step together."),
    MeaningChange(
        "offload.optimizer", ("cpu",), _FSDP, _DS,
        "FSDP's switch moved parameters, gradients and the optimizer step to the CPU; DeepSpeed offloads the "
        "optimizer on its own, and accelerate replaces a torch Adam with DeepSpeedCPUAdam (built on first use)."),
    MeaningChange(
        "offload.params", ("cpu",), _FSDP, _DS,
        "On DeepSpeed parameter offload is separate from optimizer offload and only works at ZeRO-3."),
    MeaningChange(
        "sharding.strategy", ("optimizer",), _DS, _FSDP,
        "ZeRO-1 (optimizer state only) has no FSDP form: it is written as FSDP's no-reshard mode, which shards "
        "the gradients and the parameters' storage too."),
    MeaningChange(
        "sharding.strategy", ("none",), _DS, ("fsdp2",),
        "ZeRO-0 has no FSDP2 form: FSDP2 has no NO_SHARD, and the closest mode still shards between steps."),
    MeaningChange(
        "loading.ram_efficient", (True,), _DS, _FSDP,
        "DeepSpeed's zero3_init_flag creates the parameters already partitioned (ZeRO-3 only); FSDP's "
        "cpu_ram_efficient_loading loads the weights on rank 0 only, builds the others on the meta device and "
        "broadcasts after sharding."),
    MeaningChange(
        "loading.ram_efficient", (True,), _FSDP, _DS,
        "FSDP loaded on rank 0 and broadcast; DeepSpeed's zero3_init_flag creates the parameters partitioned "
        "instead, and only at ZeRO-3 (below it nothing is written)."),
    MeaningChange(
        "checkpoint.format", ("full",), _DS, _FSDP,
        "DeepSpeed's full save gathers 16-bit weights (zero3_save_16bit_model); FSDP's FULL_STATE_DICT gathers "
        "the parameters in their own dtype, fp32 with mixed precision, so the file is about twice as large."),
    MeaningChange(
        "checkpoint.format", ("full",), _FSDP, _DS,
        "FSDP's FULL_STATE_DICT saved the parameters' own dtype; DeepSpeed's full save writes 16-bit weights "
        "(zero3_save_16bit_model, ZeRO-3 only)."),
    MeaningChange(
        "precision.mixed_precision", ("bf16", "fp16", "fp8"), _DS, _FSDP,
        "DeepSpeed converted the model itself to 16 bits and kept an fp32 master partition; FSDP keeps the "
        "parameters in fp32 and casts them for each forward and backward."),
    MeaningChange(
        "precision.mixed_precision", ("bf16", "fp16", "fp8"), _FSDP, _DS,
        "FSDP kept fp32 parameters and cast them per forward and backward; DeepSpeed converts the model itself "
        "to 16 bits and keeps an fp32 master partition."),
    MeaningChange(
        "training.gradient_accumulation_steps", None, _DS, _FSDP,
        "DeepSpeed took gradient accumulation from the config; FSDP takes it from "
        "Accelerator(gradient_accumulation_steps=...) in your script, so the config no longer sets it."),
    MeaningChange(
        "training.gradient_clipping", None, _DS, _FSDP,
        "The DeepSpeed engine clipped from the config; FSDP clips only where your script calls "
        "accelerator.clip_grad_norm_()."),
)


def meaning_changes(setting_id: str, value, before: str, after: str) -> list[str]:
    """What an answer means differently after a switch from target ``before`` to ``after``."""
    return [m.text for m in MEANING_CHANGES
            if m.setting_id == setting_id and before in m.before and after in m.after
            and (m.values is None or value in m.values)]
