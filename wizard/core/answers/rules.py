"""Rules on answers (intent): cross-setting checks and what cannot carry over to the chosen target.

Severity contract (as for configs): ``error`` blocks writing, because the config would fail or a
stated value could not take effect; ``warning`` means the wizard writes the closest equivalent and
says what differs; ``info`` is a note.

Each rule has a name, the answer ids it blames, a fix and its source (a section of docs/library-behaviour.md
and the library file:line that decides it). It is a function named after the rule (``gpu-ids-fewer-than-processes``
is ``gpu_ids_fewer_than_processes``), registered by ``@answer_rule`` in the one registry (wizard/core/rules.py,
section ``answer``).

One rule per fact: a fault the config written from the answers shows is the config rule's (``generate`` lints
what it renders and blames the answers behind each key); an answer rule says what the written files cannot show:
a value written other than answered, or not written at all. tests/unit/test_rules_one_fact.py holds the list of
answer rules that still cite a config rule's claim, which may only shrink.
"""
from __future__ import annotations

from collections.abc import Callable, Iterator
from functools import wraps

from ..catalog import (
    AUTO,
    DEEPSPEED,
    FSDP1,
    FSDP2,
    JSON,
    SETTING_BY_ID,
    SETTINGS,
    SHARDING,
    TARGET_LABELS,
    fp8_backend_of,
    fp8_options,
)
from ..catalog.model import ZERO3
from ..effective import Effective
from ..findings import DOC, ERROR, INFO, WARNING, Finding
from ..hosts import host_problem
from ..rules import ANSWER, in_section
from ..rules import rule as register
from .model import Answers
from .multinode import needs_hostfile, remote_shell_unsafe
from .of_answers import of_answers
from .render import (
    DS_KEY_OF_TRAINING,
    ds_json_reasons,
    ds_offload_optimizer,
    ds_offload_params,
    is_hybrid,
    one_to_one_writes,
    processes_per_node,
    trainer_loop,
    uses_ds_json,
    zero_stage,
)

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from typing import Any

Hit = tuple[list[str], str, str]
"""What an answer rule yields for each finding: the answer ids it blames, the message, the fix."""


class Runs:
    """What runs for the files written from the answers: the effective model (wizard/core/effective), built on first
    use and shared by the answer rules of one check. The answers say which ZeRO stage they write
    (:func:`~.render.zero_stage`); ``deepspeed.extra`` is merged over it, and DeepSpeed runs the JSON's."""

    def __init__(self, a: Answers) -> None:
        self._a = a
        self._model: Effective | None = None

    @property
    def model(self) -> Effective:
        if self._model is None:
            self._model = of_answers(self._a)
        return self._model

    @property
    def zero_stage(self) -> int:
        """The ZeRO stage DeepSpeed runs (``runs.zero_stage``); for FSDP, and for a stage DeepSpeed refuses (which
        the config rules report), the answers' own."""
        if self._a.target != DEEPSPEED:
            return zero_stage(self._a)
        stage = self.model.get("runs.zero_stage")
        return stage if stage in (0, 1, 2, 3) and not isinstance(stage, bool) else zero_stage(self._a)


def answer_rule(name: str, severity: str, summary: str, source: str, *, keys: str = "", fix: str = "",
                claims: tuple[str, ...] = ()):
    """Register the decorated function as the answer rule ``name`` (section ``answer`` of wizard/core/rules.py).

    The function takes the answers (and, when it declares a second parameter, the :class:`Runs` of the answers: what
    runs) and yields ``(keys, message, fix)`` for each finding; the name, severity and source of the findings are the
    registration's (one severity per rule). ``keys`` and ``fix`` here: in general terms, for docs/rules.md, where the
    function computes them."""
    def register_check(fn: Callable[..., Iterator[Hit]]) -> Callable[..., Iterator[Hit]]:
        with_runs = fn.__code__.co_argcount > 1  # its positional parameters, without importing inspect (issue 26)

        @wraps(fn)
        def check(a: Answers, runs: Runs | None = None) -> Iterator[Finding]:
            hits = fn(a, runs or Runs(a)) if with_runs else fn(a)
            for blamed, message, how in hits:
                yield Finding(severity, name, tuple(blamed), message, how, source)

        register(name, severity, summary, source, section=ANSWER, keys=keys, fix=fix, check=check, claims=claims)
        return fn

    return register_check


def _is_fsdp(a: Answers) -> bool:
    return a.target in (FSDP1, FSDP2)


# ------------------------------------------------------------------ launch


@answer_rule("multinode-needs-main-ip", ERROR, "more than one machine needs the main process address",
             DOC + "processes-and-machines; accelerate/utils/launch.py:216-224 (rdzv endpoint from main_process_ip), "
             "477-478; deepspeed/launcher/runner.py:495-515 (the runner finds the master over ssh)",
             claims=("launch-address-and-port", "ds-runner-finds-master-addr"))
def multinode_needs_main_ip(a: Answers) -> Iterator[Hit]:
    if a["launch.num_machines"] <= 1 or a["launch.main_process_ip"]:
        return
    if a.target == DEEPSPEED and a["launch.ds_multinode_launcher"] not in ("standard", "nossh"):
        return  # the deepspeed runner asks the hostfile's first host for its address over ssh
    if a.target == DEEPSPEED and a["launch.ds_multinode_launcher"] == "nossh":
        yield (["launch.main_process_ip", "launch.num_machines", "launch.ds_multinode_launcher"],
               f"{a['launch.num_machines']} machines but no main_process_ip: the nossh launcher is given no master "
               "address, so the machines cannot meet", "set launch.main_process_ip to the address of machine 0")
        return
    yield (["launch.main_process_ip", "launch.num_machines"],
           f"{a['launch.num_machines']} machines but no main_process_ip: torchrun's rendezvous endpoint has no "
           "host, so the machines cannot meet", "set launch.main_process_ip to the address of machine 0"
           + (f" ('{a['launch.hosts'][0]}', the first of launch.hosts)" if a["launch.hosts"] else ""))


@answer_rule("hosts-count", ERROR, "launch.hosts must name each machine once",
             DOC + "processes-and-machines; deepspeed/launcher/runner.py:225-254 (every hostfile line is a host), "
             "385-405 (every host is started)",
             keys="launch.hosts, launch.num_machines",
             claims=("ds-hostfile-every-host-used",))
def hosts_count(a: Answers) -> Iterator[Hit]:
    names, machines = list(a["launch.hosts"]), a["launch.num_machines"]
    if machines > 1 and names and len(names) != machines:
        yield (["launch.hosts", "launch.num_machines"],
               f"{len(names)} host name(s) for {machines} machines: the hostfile and the per-machine commands need "
               "one name per machine (a DeepSpeed runner would start every host listed, whatever num_machines says)",
               f"list {machines} names, machine 0 first, or set launch.num_machines {len(names)}")


@answer_rule("hosts-invalid", ERROR, "a host name that is not an IP address or an RFC 1123 host name",
             DOC + "processes-and-machines; deepspeed/launcher/runner.py:225-254 (hostfile lines are "
             "'hostname slots=N'; a host listed twice raises ValueError), 482-492 (ssh to the first host); "
             "deepspeed/launcher/multinode_runner.py:88-128 (pdsh -w takes the hosts)",
             keys="launch.hosts (and launch.ds_multinode_launcher)",
             fix="give each machine's host name (letters, digits, '-', '.') or IP address",
             claims=("ds-hostfile-bad-lines-raise",))
def hosts_invalid(a: Answers) -> Iterator[Hit]:
    """launch.main_process_ip is the config rule main-process-ip-invalid's (it is written into the config)."""
    names = [str(h) for h in a["launch.hosts"]]
    bad = [why for why in (host_problem(n, f"{n!r}: ") for n in names) if why]  # each its own sentence
    if bad:
        yield (["launch.hosts"], "launch.hosts: " + "; ".join(bad)
               + " (a host is an IP address or an RFC 1123 host name; the hostfile, ssh and pdsh read it)",
               "give each machine's host name (letters, digits, '-', '.') or IP address")
    twice = sorted({n for n in names if names.count(n) > 1})
    if twice and needs_hostfile(a):
        yield (["launch.hosts", "launch.ds_multinode_launcher"],
               f"{', '.join(twice)} listed twice: DeepSpeed's runner refuses a hostfile that names a host twice "
               "(ValueError before anything starts)", "name each machine once")


@answer_rule("script-looks-like-option", ERROR,
             "launch.script starts with '-': accelerate launch reads it as an option",
             DOC + "processes-and-machines; accelerate/commands/launch.py:880-887 (training_script is argparse's "
             "positional argument)", keys="launch.script", claims=("launch-script-dash-is-option",))
def script_looks_like_option(a: Answers) -> Iterator[Hit]:
    script = a["launch.script"]
    if script and str(script).startswith("-"):
        yield (["launch.script"], f"launch.script {script!r} starts with '-': accelerate launch would read it as one "
               "of its own options (e.g. --num_processes=1 would override the config), not as the script",
               f"give the script's path, e.g. './{script}' for a file of that name in the launch folder")


@answer_rule("script-args-remote-shell", ERROR,
             "a runner launcher passes the script and its arguments through a remote shell: shell characters refused",
             DOC + "ds-multinode-launcher; deepspeed/launcher/multinode_runner.py:88-128 (pdsh pastes them into one "
             "remote command, unquoted)", keys="launch.script, launch.script_args, launch.ds_multinode_launcher",
             claims=("ds-pdsh-script-args-unquoted",))
def script_args_remote_shell(a: Answers) -> Iterator[Hit]:
    unsafe = remote_shell_unsafe(a)
    if unsafe:
        keys = [k for k, present in (("launch.script", a["launch.script"] in unsafe),
                                     ("launch.script_args", any(str(t) in unsafe for t in a["launch.script_args"])))
                if present] + ["launch.ds_multinode_launcher"]
        yield (keys, f"{', '.join(repr(t) for t in unsafe)}: the {a['launch.ds_multinode_launcher']} launcher passes "
               "the script and its arguments to every machine through a remote shell, unquoted, so a space, quote, "
               "$, ;, |, &, <, >, (, ), *, ?, ~, #, % or newline would be read by that shell, not by the script",
               "use plain words (letters, digits and _ @ + = : , . / -) or a launcher that starts every machine "
               "itself (ds_multinode_launcher: standard or nossh)")


@answer_rule("hosts-unused", WARNING, "host names on one machine are not used",
             DOC + "processes-and-machines; accelerate/utils/launch.py:216-228 (one machine: no address, no "
             "hostfile)",
             keys="launch.hosts, launch.num_machines",
             claims=("launch-address-and-port",))
def hosts_unused(a: Answers) -> Iterator[Hit]:
    if a["launch.num_machines"] <= 1 and a["launch.hosts"]:
        yield (["launch.hosts", "launch.num_machines"], "launch.hosts on one machine: a single machine's launch "
               "reads no host names (no hostfile, no rendezvous address)",
               "drop launch.hosts, or set launch.num_machines to the number of machines")


@answer_rule("hosts-main-address-not-first", WARNING, "main_process_ip is not the first of launch.hosts",
             DOC + "processes-and-machines; accelerate/utils/launch.py:216-224 (torchrun's endpoint is "
             "main_process_ip), 477-478 (the runner's --master_addr); deepspeed/launcher/runner.py:495-515",
             keys="launch.main_process_ip, launch.hosts",
             claims=("launch-address-and-port", "ds-runner-finds-master-addr"))
def hosts_main_address_not_first(a: Answers) -> Iterator[Hit]:
    names, ip = [str(h) for h in a["launch.hosts"]], a["launch.main_process_ip"]
    if a["launch.num_machines"] > 1 and names and ip and ip != names[0]:
        also = f" (it is machine {names.index(ip)} there)" if ip in names else ""
        yield (["launch.main_process_ip", "launch.hosts"],
               f"main_process_ip {ip!r} but launch.hosts starts with {names[0]!r}{also}: rank 0 runs on machine 0, "
               "and the others wait for it at main_process_ip; unless that is machine 0's address, they never meet",
               f"set launch.main_process_ip to machine 0's address, or list {ip!r} first in launch.hosts")


@answer_rule("compile-options-unused", WARNING, "torch.compile options without a backend are not written",
             DOC + "dynamo-config; accelerate/utils/launch.py:292-302 (dynamo options only matter with a backend)",
             claims=("dynamo-options-need-backend",))
def compile_options_unused(a: Answers) -> Iterator[Hit]:
    if a["launch.dynamo_backend"] == "no":
        unused = [s for s in ("launch.dynamo_mode", "launch.dynamo_fullgraph", "launch.dynamo_dynamic",
                              "launch.dynamo_regional") if a.is_set(s)]
        if unused:
            yield (unused, "torch.compile is off (dynamo_backend 'no'), so these options are not written",
                   "set launch.dynamo_backend (e.g. inductor) or drop them")


_DYNAMO_OPTIONS = ("launch.dynamo_mode", "launch.dynamo_fullgraph", "launch.dynamo_dynamic", "launch.dynamo_regional")


@answer_rule("ds-compile-not-passed", WARNING,
             "accelerate launch does not pass torch.compile settings to DeepSpeed runs",
             DOC + "dynamo-config; accelerate/utils/launch.py prepare_deepspeed_cmd_env (no ACCELERATE_DYNAMO_* "
             "export)",
             claims=("dynamo-not-exported-under-deepspeed", "dynamo-deepspeed-engine-compile", "dynamo-fsdp-exported"))
def ds_compile_not_passed(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["launch.dynamo_backend"] != "no":
        options = [sid for sid in _DYNAMO_OPTIONS if a[sid] != SETTING_BY_ID[sid].default]
        yield (["launch.dynamo_backend", *options], "for DeepSpeed, accelerate launch drops dynamo_config (it exports "
               "no ACCELERATE_DYNAMO_* variables), so a config cannot turn torch.compile on: not written"
               + (f" ({', '.join(options)} with it)" if options else ""),
               f"pass Accelerator(dynamo_backend='{a['launch.dynamo_backend']}') in the script, or export "
               f"ACCELERATE_DYNAMO_BACKEND={a['launch.dynamo_backend'].upper()} before launching")


_MULTINODE_KEYS = ("launch.ds_hostfile", "launch.ds_inclusion_filter", "launch.ds_exclusion_filter")


@answer_rule("ds-multinode-keys-unused", WARNING, "multi-node launcher keys that this launch never reads",
             DOC + "ds-multinode-launcher; accelerate/utils/launch.py:430-476 (the launcher, hostfile and filters are "
             "read only for num_machines > 1, hostfile and filters only by a launcher other than 'standard')",
             keys="the launcher keys stated, and launch.num_machines or launch.ds_multinode_launcher",
             fix="drop them, or set the machines (and the launcher) they are meant for",
             claims=("ds-multinode-runner-or-torchrun",))
def ds_multinode_keys_unused(a: Answers) -> Iterator[Hit]:
    if a.target != DEEPSPEED:
        return
    stated = [k for k in _MULTINODE_KEYS if a.is_set(k) and a[k]]
    if a["launch.num_machines"] <= 1:
        if a.is_set("launch.ds_multinode_launcher") and a["launch.ds_multinode_launcher"] != "standard":
            stated.insert(0, "launch.ds_multinode_launcher")
        if stated:  # `a matters` / `a and b matter` / `a, b and c matter`: the words literal in the two variants
            *rest, last = stated
            yield ([*stated, "launch.num_machines"], (f"{last} matters" if not rest else
                                                      f"{', '.join(rest)} and {last} matter")
                   + " only on more than one machine, and this launch has one: not written",
                   "drop them, or set launch.num_machines")
    elif a["launch.ds_multinode_launcher"] == "standard" and stated:
        yield ([*stated, "launch.ds_multinode_launcher"], f"{', '.join(stated)}: the 'standard' launcher starts "
               "torchrun on each machine and reads no hostfile or filters: not written",
               "choose a launcher such as pdsh for a hostfile, or drop them")


# ------------------------------------------------------------------ sharding


@answer_rule("sharding-no-fsdp-twin", WARNING, "an intent the chosen FSDP version cannot express exactly",
             DOC + "fsdp2-reshard-after-forward; accelerate/utils/dataclasses.py:1844-1862 (FSDP1 strategies; "
             "FSDP2 reshard_after_forward)",
             claims=("ds-zero-stages-partition", "fsdp-reshard-after-forward"))
def sharding_no_fsdp_twin(a: Answers) -> Iterator[Hit]:
    s = a["sharding.strategy"]
    if not _is_fsdp(a):
        return
    if s == "optimizer":
        closest = "SHARD_GRAD_OP" if a.target == FSDP1 else "reshard_after_forward: false"
        yield (["sharding.strategy"], f"ZeRO-1 (shard only the optimizer state) has no FSDP twin; writing the "
               f"closest, {closest}, which also shards gradients and, between steps, parameters",
               "keep it, or choose DeepSpeed for ZeRO-1")
    if s == "none" and a.target == FSDP2:
        yield (["sharding.strategy"], "FSDP2 cannot leave parameters unsharded (no NO_SHARD); writing "
               "reshard_after_forward: false, the least sharding it has",
               "use FSDP1 NO_SHARD, DeepSpeed ZeRO-0, or plain DDP (distributed_type MULTI_GPU)")


@answer_rule("sharding-no-deepspeed-twin", WARNING, "HYBRID_SHARD_ZERO2 has no DeepSpeed twin",
             "deepspeed/runtime/zero/config.py (zero_hpz_partition_size is a ZeRO-3 option)",
             claims=("ds-zero-stages-partition", "ds-hpz-secondary-partition"))
def sharding_no_deepspeed_twin(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["sharding.strategy"] == "hybrid_grads_optimizer":
        yield (["sharding.strategy"], "hybrid ZeRO-2 (HYBRID_SHARD_ZERO2) has no DeepSpeed twin; writing plain "
               "ZeRO-2, which shards over every GPU of every machine",
               "keep it, or use hybrid_full (ZeRO-3 with hpZ secondary partitions)")


@answer_rule("trainer-tool-unused", WARNING, "a Trainer-based tool is named, but the loop is an own Accelerator loop",
             DOC + "training-loop; wizard/core/answers/generate.py (the tool's snippet is written with "
             "launch.training_loop trainer only)",
             keys="launch.trainer_tool, launch.training_loop",
             fix="set launch.training_loop to trainer (LLaMA-Factory and axolotl drive the Hugging Face Trainer), "
                 "or drop launch.trainer_tool",
             claims=("tools-pass-their-keys-as-training-arguments",))
def trainer_tool_unused(a: Answers) -> Iterator[Hit]:
    if a.is_set("launch.trainer_tool") and a["launch.training_loop"] != "trainer":
        yield (["launch.trainer_tool", "launch.training_loop"],
               f"launch.trainer_tool is {a['launch.trainer_tool']}, which trains through the Hugging Face Trainer, "
               "but launch.training_loop is accelerate (an own loop): the configs are written for an own loop and no "
               "snippet of the tool's keys is written", "set launch.training_loop to trainer, or drop the tool")


@answer_rule("hybrid-single-machine", WARNING, "hybrid sharding on one machine is plain full sharding",
             DOC + "parallelism-config; accelerate/parallelism_config.py:376-386; deepspeed/runtime/zero/config.py "
             "(zero_hpz_partition_size); wizard/core/answers/render.py (parallelism_config and zero_hpz_partition_size "
             "are written only for several machines)",
             claims=("fsdp2-hybrid-from-parallelism-config", "ds-hpz-secondary-partition"))
def hybrid_single_machine(a: Answers) -> Iterator[Hit]:
    # FSDP1 writes HYBRID_SHARD as answered, and config rule fsdp1-hybrid-shard-single-node says this of the file;
    # FSDP2 (no parallelism_config) and DeepSpeed (no hpZ) write plain sharding, so only this rule can
    if a.target == FSDP1:
        return
    if not a["sharding.strategy"].startswith("hybrid"):
        return
    given = a["parallelism.dp_replicate_size"]
    if a.target == FSDP2 and given == 1:
        yield (["sharding.strategy", "parallelism.dp_replicate_size"], "hybrid sharding with one replica "
               "(parallelism.dp_replicate_size 1) is plain full sharding: nothing is replicated",
               "set parallelism.dp_replicate_size above 1 (or leave it empty: one replica per machine), or use "
               "full / grads_optimizer")
    elif a["launch.num_machines"] == 1 and not (a.target == FSDP2 and given):
        yield (["sharding.strategy", "launch.num_machines"], "hybrid sharding replicates across machines, but "
               "there is one machine: it behaves like non-hybrid sharding",
               "use full / grads_optimizer, set launch.num_machines, or (FSDP2) replicate within this machine "
               "with parallelism.dp_replicate_size")


@answer_rule("hybrid-fsdp1-group-size", INFO, "FSDP1 HYBRID_SHARD groups by the GPUs visible on each node",
             DOC + "fsdp1-hybrid-shard; torch/distributed/fsdp/_init_utils.py:201-247",
             claims=("fsdp1-hybrid-groups-by-visible-devices",))
def hybrid_fsdp1_group_size(a: Answers) -> Iterator[Hit]:
    if a.target == FSDP1 and a["sharding.strategy"].startswith("hybrid") and a["launch.num_machines"] > 1:
        yield (["sharding.strategy"], "FSDP1 hybrid shards within groups of torch.cuda.device_count() GPUs: run "
               f"exactly one process per visible GPU ({processes_per_node(a)} per machine)",
               "keep launch.gpu_ids at 'all' or make CUDA_VISIBLE_DEVICES match")


# ------------------------------------------------------------------ offload


@answer_rule("fsdp-offload-all-or-nothing", WARNING, "FSDP offloads parameters, gradients and optimizer together",
             DOC + "fsdp-cpu-offload; accelerate/utils/dataclasses.py:2189-2191 (one offload_params flag)",
             claims=("fsdp-offload-single-switch",))
def fsdp_offload_all_or_nothing(a: Answers) -> Iterator[Hit]:
    if not _is_fsdp(a):
        return
    opt, par = a["offload.optimizer"], a["offload.params"]
    if (opt == "none") != (par == "none"):
        only = "offload.optimizer" if par == "none" else "offload.params"
        yield ([only], f"FSDP cannot offload only the {'optimizer state' if par == 'none' else 'parameters'}: "
               "writing fsdp_offload_params: true, which moves parameters, gradients and the optimizer step to CPU "
               "(more memory saved, slower)", "offload both, none, or choose DeepSpeed for separate offload")
    if "nvme" in (opt, par):
        keys = [k for k in ("offload.optimizer", "offload.params") if a[k] == "nvme"]
        yield (keys, "FSDP cannot offload to NVMe: writing CPU offload instead",
               "use cpu, or DeepSpeed ZeRO-3 for NVMe (ZeRO-Infinity)")


@answer_rule("ds-param-offload-needs-zero3", WARNING, "DeepSpeed parameter offload needs ZeRO-3",
             DOC + "ds-offload-and-zero-stage; "
             "deepspeed/runtime/zero/offload_config.py:21-22, runtime/engine.py:2655-2700",
             claims=("ds-param-offload-zero3-only",))
def ds_param_offload_needs_zero3(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["offload.params"] != "none" and zero_stage(a) != 3:
        yield (["offload.params", "sharding.strategy"], f"parameter offload only works with ZeRO-3, but the "
               f"strategy gives ZeRO-{zero_stage(a)}: parameters stay on the GPU (not written)",
               "choose sharding.strategy full, or set offload.params none")


@answer_rule("ds-nvme-needs-zero3", WARNING, "NVMe optimizer offload needs ZeRO-3",
             DOC + "ds-offload-and-zero-stage; deepspeed/runtime/zero/stage_1_and_2.py:220-224",
             claims=("ds-nvme-optimizer-offload-below-zero3-is-cpu",))
def ds_nvme_needs_zero3(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["offload.optimizer"] == "nvme" and 0 < zero_stage(a) < 3:
        yield (["offload.optimizer", "sharding.strategy"], f"ZeRO-{zero_stage(a)} turns NVMe optimizer "
               "offload into plain CPU offload: writing cpu", "choose sharding.strategy full for NVMe")


_ZERO3_ONLY_CHECKED = tuple(st.id for st in SETTINGS if st.id != "checkpoint.format"  # its own note covers it
                            and any(w.when == ZERO3 for ws in st.writes.values() for w in ws))


@answer_rule("zero3-knob-unused", WARNING, "a ZeRO-3 knob under ZeRO-1/2",
             DOC + "ds-zero-options; deepspeed/runtime/zero/config.py (the stage3_* and sub_group_size fields are "
             "read by ZeRO-3 only); wizard/core/catalog/settings.py (written only at ZeRO-3)",
             keys="the ZeRO-3 settings stated, and sharding.strategy",
             fix="choose sharding.strategy full (ZeRO-3), or drop them",
             claims=("ds-zero3-gathers-per-module", "ds-sub-group-size-zero3"))
def zero3_knob_unused(a: Answers) -> Iterator[Hit]:
    if a.target != DEEPSPEED or zero_stage(a) == 3:
        return
    stated = [sid for sid in _ZERO3_ONLY_CHECKED if a.is_set(sid) and a[sid] is not None]
    if stated:  # `a takes` / `a and b take` / `a, b and c take`: the words literal in the two variants
        *rest, last = stated
        yield ([*stated, "sharding.strategy"], (f"{last} takes" if not rest else f"{', '.join(rest)} and {last} take")
               + f" effect only with ZeRO-3, but the strategy gives ZeRO-{zero_stage(a)}: not written",
               "choose sharding.strategy full, or drop them")


@answer_rule("ds-offload-needs-zero", WARNING, "ZeRO-0 cannot offload the optimizer",
             DOC + "ds-offload-and-zero-stage; accelerate/accelerator.py:2377-2383; deepspeed/ops/adam/cpu_adam.py:148",
             claims=("ds-offload-optimizer-stage0-asserts",))
def ds_offload_needs_zero(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and zero_stage(a) == 0 and a["offload.optimizer"] != "none":
        yield (["offload.optimizer", "sharding.strategy"], "with ZeRO-0 nothing moves the parameters to CPU, "
               "so DeepSpeed's CPU Adam would fail: optimizer offload is not written",
               "use ZeRO-1 or higher (sharding.strategy optimizer/grads_optimizer/full)")


@answer_rule("nvme-path-unused", WARNING, "an NVMe path with nothing offloaded to NVMe",
             DOC + "ds-nvme-offload; accelerate/utils/dataclasses.py:1308-1315 (a path is only used next to an nvme "
             "device); wizard/core/answers/render.py (nvme_path is written only next to an nvme device)",
             claims=("ds-offload-blocks-independent",))
def nvme_path_unused(a: Answers) -> Iterator[Hit]:
    if a.is_set("offload.nvme_path") and "nvme" not in (a["offload.optimizer"], a["offload.params"]):
        yield (["offload.nvme_path"], "offload.nvme_path is set but nothing is offloaded to NVMe: not written",
               "set offload.optimizer or offload.params to nvme, or drop the path")


@answer_rule("pin-memory-unused", INFO, "pinned memory with nothing offloaded",
             DOC + "ds-offload-and-zero-stage; wizard/core/answers/render.py (pin_memory sits inside an offload block)",
             keys="offload.pin_memory, offload.optimizer, offload.params",
             fix="drop offload.pin_memory, or offload something",
             claims=("ds-offload-blocks-independent",))
def pin_memory_unused(a: Answers) -> Iterator[Hit]:
    if (a.target == DEEPSPEED and a.is_set("offload.pin_memory")
            and a["offload.optimizer"] == "none" and a["offload.params"] == "none"):
        yield (["offload.pin_memory", "offload.optimizer", "offload.params"], "offload.pin_memory is set but "
               "nothing is offloaded, so there is no offload block to put it in: not written",
               "drop offload.pin_memory, or offload something")


# ------------------------------------------------------------------ loading, sync, summoning


@answer_rule("zero3-init-needs-zero3", INFO, "zero.Init only exists for ZeRO-3",
             DOC + "ds-zero3-flags; accelerate/utils/dataclasses.py:1337-1339",
             claims=("ds-zero3-init-flag-off-below-zero3",))
def zero3_init_needs_zero3(a: Answers, runs: Runs) -> Iterator[Hit]:
    if (a.target == DEEPSPEED and "loading.ram_efficient" in a.explicit and a["loading.ram_efficient"]
            and zero_stage(a) != 3 and runs.zero_stage != 3):
        yield (["loading.ram_efficient"], f"ZeRO-{zero_stage(a)} has no sharded initialisation (zero.Init is "
               "ZeRO-3 only): every rank loads the whole model; zero3_init_flag is written false",
               "choose sharding.strategy full to load weights partitioned")


@answer_rule("ds-zero3-init-cannot-be-off", WARNING, "at ZeRO-3, zero3_init_flag false does not stop zero.Init",
             DOC + "ds-zero3-flags; accelerate/utils/dataclasses.py:1459-1488; "
             "transformers/modeling_utils.py:1435-1450",
             keys="loading.ram_efficient, sharding.strategy",
             fix="drop loading.ram_efficient (zero.Init stays on), or load the model before creating the "
                 "Accelerator/TrainingArguments, or choose grads_optimizer (ZeRO-2)",
             claims=("ds-zero3-init-flag-does-not-stop-zero-init", "ds-zero3-init-needs-config-before-load"))
def ds_zero3_init_cannot_be_off(a: Answers, runs: Runs) -> Iterator[Hit]:
    if a.target == DEEPSPEED and zero_stage(a) == 3 and runs.zero_stage == 3 and not a["loading.ram_efficient"]:
        yield (["loading.ram_efficient", "sharding.strategy"], "zero3_init_flag false cannot switch zero.Init "
               "off at ZeRO-3: a Transformers model loaded after the Accelerator (or TrainingArguments) exists is "
               "created partitioned anyway; one loaded before, or built without Transformers, is created whole "
               "either way. zero3_init_flag is written true (ZeRO-3's default, what happens anyway)",
               "drop loading.ram_efficient, or load the model before creating the Accelerator/TrainingArguments, "
               "or choose sharding.strategy grads_optimizer (ZeRO-2)")


# ------------------------------------------------------------------ checkpoint, wrapping, prefetch


@answer_rule("fsdp2-no-local-state-dict", WARNING, "FSDP2 has no LOCAL_STATE_DICT",
             DOC + "fsdp-state-dict-type; accelerate/utils/dataclasses.py:2069-2073",
             claims=("fsdp-state-dict-type-defaults", "ds-zero12-checkpoint-weights-whole"))
def fsdp2_no_local_state_dict(a: Answers) -> Iterator[Hit]:
    if a["checkpoint.format"] == "local" and a.target != FSDP1:
        yield (["checkpoint.format"], f"{TARGET_LABELS[a.target]} has no local state dict: writing sharded "
               "checkpoints instead", "use sharded (fast) or full (one consolidated file)")


@answer_rule("zero3-sharded-checkpoint", INFO, "ZeRO-3 sharded checkpoints need consolidation",
             DOC + "ds-zero3-flags; accelerate/accelerator.py:3526-3530, 4070-4091 (get_state_dict at ZeRO-3)",
             claims=("ds-zero3-state-dict-needs-16bit-gather",))
def zero3_sharded_checkpoint(a: Answers, runs: Runs) -> Iterator[Hit]:
    # judged at the stage that runs; "full" gathers only where the answers write ZeRO-3's keys
    if a.target == DEEPSPEED and runs.zero_stage == 3 and (a["checkpoint.format"] != "full" or zero_stage(a) != 3):
        yield (["checkpoint.format"], "ZeRO-3 saves partitioned weights; without 16-bit gathering "
               "accelerator.save_model and get_state_dict raise", "run zero_to_fp32.py on the checkpoint folder "
               "(accelerator.save_state) afterwards, or choose "
               "full to gather 16-bit weights on save (slow for large models)")


@answer_rule("fsdp2-size-wrap-containers", WARNING, "FSDP2 size-based wrap can pick a ModuleList",
             DOC + "fsdp-auto-wrap-policy; accelerate/utils/fsdp_utils.py:851-856, 964-968; "
             "torch/distributed/fsdp/_fully_shard/_fsdp_init.py:35-47",
             claims=("fsdp2-size-policy-selects-containers",))
def fsdp2_size_wrap_containers(a: Answers) -> Iterator[Hit]:
    if a.target == FSDP2 and a["wrapping.policy"] == "size":
        yield (["wrapping.policy"], "with FSDP2 the size policy also selects containers: once a model's "
               "nn.ModuleList of blocks holds more than min_num_params, fully_shard raises ValueError for it in "
               "prepare()", "prefer the transformer policy with the block class")


@answer_rule("wrap-classes-unused", WARNING, "layer classes are only read by the transformer policy",
             DOC + "fsdp-auto-wrap-policy; accelerate/utils/dataclasses.py:1921-1934",
             claims=("fsdp-transformer-layer-classes",))
def wrap_classes_unused(a: Answers) -> Iterator[Hit]:
    if _is_fsdp(a) and a["wrapping.layer_classes"] and a["wrapping.policy"] != "transformer":
        yield (["wrapping.layer_classes", "wrapping.policy"], f"policy '{a['wrapping.policy']}' ignores "
               "layer classes: not written", "set wrapping.policy transformer or drop the classes")


@answer_rule("min-num-params-unused", WARNING, "a size threshold is only read by the size policy",
             DOC + "fsdp-min-num-params; accelerate/utils/dataclasses.py:1921-1934 (read only for SIZE_BASED_WRAP)",
             claims=("fsdp-min-num-params-size-policy-only",))
def min_num_params_unused(a: Answers) -> Iterator[Hit]:
    if _is_fsdp(a) and a.is_set("wrapping.min_num_params") and a["wrapping.policy"] != "size":
        yield (["wrapping.min_num_params", "wrapping.policy"], f"policy '{a['wrapping.policy']}' ignores the "
               "size threshold: not written", "set wrapping.policy size or drop wrapping.min_num_params")


# ------------------------------------------------------------------ training, precision


@answer_rule("ds-auto-clipping", INFO, "DeepSpeed 'auto' clipping becomes 1.0 (the Trainer: max_grad_norm)",
             DOC + "ds-gradient-accumulation-and-clipping; accelerate/accelerator.py:2223-2226 (_prepare_deepspeed); "
             "transformers/integrations/deepspeed.py:161 (the Trainer fills it with max_grad_norm)",
             keys="training.gradient_clipping (and launch.training_loop under the Trainer)",
             fix="write a number to be explicit; 0 turns clipping off",
             claims=("ds-gradient-clipping-on-unless-json-zero", "trainer-ds-values-must-match-arguments"))
def ds_auto_clipping(a: Answers) -> Iterator[Hit]:
    if a.target != DEEPSPEED or a["training.gradient_clipping"] != AUTO:
        return
    if not trainer_loop(a) and not uses_ds_json(a):
        return  # inline, the key is left out; config rule deepspeed-no-gradient-clipping says what that means
    if trainer_loop(a):
        yield (["training.gradient_clipping", "launch.training_loop"], "'auto' clipping is filled by the Trainer "
               "with TrainingArguments.max_grad_norm, 1.0 unless your arguments say otherwise",
               "write a number: it goes to training_arguments.json as max_grad_norm (0 turns clipping off)")
        return
    yield (["training.gradient_clipping"], "'auto' clipping is filled by accelerate with 1.0 in an own loop",
           "write a number to be explicit; 0 turns clipping off")


@answer_rule("fsdp-training-in-script", INFO, "FSDP takes accumulation, clipping and batch size from the script",
             DOC + "fsdp-key-mapping; "
             "accelerate/utils/launch.py:304-333 (no batch, accumulation or clipping exported for FSDP); "
             "transformers/trainer.py:806-830, 2781-2787 (the Trainer takes them from TrainingArguments)",
             keys="the training answers stated (and launch.training_loop under the Trainer)",
             fix="set them in the script (own loop); under the Trainer, pass training_arguments.json",
             claims=("launch-accumulation-and-clipping-deepspeed-only", "fsdp-knows-no-batch-size",
                     "trainer-counts-accumulation-and-clips"))
def fsdp_training_in_script(a: Answers) -> Iterator[Hit]:
    if _is_fsdp(a):
        keys = [k for k in ("training.gradient_accumulation_steps", "training.gradient_clipping",
                            "training.micro_batch_size") if a.is_set(k)]
        if keys and trainer_loop(a):
            yield ([*keys, "launch.training_loop"], "an FSDP config has no place for these: the Trainer takes them "
                   "from TrainingArguments, so they are written to training_arguments.json",
                   "pass those arguments to TrainingArguments (TrainingArguments(**json.load(...)) or by hand)")
        elif keys:
            yield (keys, "an FSDP config has no place for these: your script sets them "
                   "(Accelerator(gradient_accumulation_steps=...), accelerator.clip_grad_norm_, the DataLoader)",
                   "keep them in the answers as documentation, and set them in the script")


@answer_rule("fp8-needs-backend", WARNING, "fp8 needs Transformer Engine, torchao or MS-AMP",
             DOC + "mixed-precision; accelerate/utils/launch.py:285-290, utils/imports.py:187-189, state.py:931-936",
             claims=("fp8-needs-backend-package",))
def fp8_needs_backend(a: Answers) -> Iterator[Hit]:
    if a["precision.mixed_precision"] == "fp8":
        yield (["precision.mixed_precision"], "fp8 needs Transformer Engine, MS-AMP or torchao installed on "
               "every machine: without one, accelerate launch (and the Accelerator) raises",
               "install torchao or Transformer Engine, or use bf16")


@answer_rule("fp8-options-unused", WARNING, "fp8 options that are not written: fp8 is off or another backend runs",
             DOC + "mixed-precision; accelerate/utils/launch.py:82-97, 283-290; utils/dataclasses.py:312-460 (each "
             "recipe reads its own options)",
             keys="the fp8 options, precision.mixed_precision or precision.fp8_backend",
             fix="turn fp8 on with the backend the options belong to, or drop them",
             claims=("fp8-recipe-reads-launch-env",))
def fp8_options_unused(a: Answers) -> Iterator[Hit]:
    backend = a["precision.fp8_backend"]
    if a["precision.mixed_precision"] != "fp8":
        stated = [s.id for s in (SETTING_BY_ID["precision.fp8_backend"], *fp8_options()) if a.is_set(s.id)]
        if stated:
            yield ([*stated, "precision.mixed_precision"], f"mixed_precision is {a['precision.mixed_precision']}, "
                   "and accelerate launch passes fp8_config on only with fp8, so these are not written",
                   "set precision.mixed_precision to fp8, or drop them")
        return
    stated = [s.id for s in fp8_options() if a.is_set(s.id) and fp8_backend_of(s.id) != backend]
    if stated:
        owners = sorted({fp8_backend_of(sid) for sid in stated})
        *rest, last = owners
        yield ([*stated, "precision.fp8_backend"], "these options belong to the "
               + (last if not rest else " and ".join(rest) + " and " + last) + " recipe; the fp8 backend is "
               + ("left to auto-detection, so no recipe options are written (the installed backend's defaults apply)"
                  if backend == AUTO else f"{backend}, whose recipe does not read them"),
               f"set precision.fp8_backend to {owners[0]}, or drop them")


@answer_rule("fp8-auto-backend-fsdp", WARNING, "fp8 on FSDP with the backend left to auto-detection",
             DOC + "mixed-precision; accelerate/accelerator.py:480-504 (NO: torchao first), 517-526, 603-610",
             keys="precision.fp8_backend, loading.ram_efficient",
             fix="choose precision.fp8_backend (te, or ao with loading.ram_efficient off)",
             claims=("fp8-auto-detect-order",))
def fp8_auto_backend_fsdp(a: Answers) -> Iterator[Hit]:
    """What the written config cannot show: with no backend written, which one runs depends on what is installed
    where the run starts; two of them stop an FSDP run."""
    if a["precision.mixed_precision"] != "fp8" or a["precision.fp8_backend"] != AUTO or not _is_fsdp(a):
        return
    if a["loading.ram_efficient"]:
        yield (["precision.fp8_backend", "loading.ram_efficient"], "with no fp8 backend written, accelerate takes "
               "torchao wherever it is installed, and torchao with loading.ram_efficient on FSDP stops the run "
               "(rule fp8-torchao-fsdp-ram-efficient-loading, which the written config cannot show); where only "
               "MS-AMP is installed, rule fp8-msamp-fsdp applies", "choose precision.fp8_backend te, or ao with "
               "loading.ram_efficient off")
    else:
        yield (["precision.fp8_backend"], "with no fp8 backend written, the backend depends on what is installed "
               "where the run starts (torchao, then Transformer Engine, then MS-AMP); where only MS-AMP is, rule "
               "fp8-msamp-fsdp applies, which the written config cannot show", "choose precision.fp8_backend ao or te")


@answer_rule("fp8-ds-json", ERROR, "fp8 cannot be combined with a DeepSpeed JSON from the YAML",
             DOC + "ds-config-file; accelerate/utils/dataclasses.py:1507-1532",
             claims=("ds-file-refuses-yaml-mixed-precision", "ds-json-owns-its-keys"))
def fp8_ds_json(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["precision.mixed_precision"] == "fp8" and a["deepspeed.config_file"] != "no" \
            and ds_json_reasons(a):
        yield (["precision.mixed_precision"], "the YAML's mixed_precision, which would carry fp8, is refused "
               "by accelerate next to a deepspeed_config_file (needed here for: " + ", ".join(ds_json_reasons(a))
               + ")", "use bf16, drop the settings that need a DeepSpeed JSON, or pass --mixed_precision fp8 to "
               "accelerate launch (a command-line precision is not refused)")


@answer_rule("ds-json-required", ERROR, "these settings need a DeepSpeed JSON",
             DOC + "ds-nvme-offload, " + DOC + "ds-inline-config; accelerate/utils/launch.py:565-586",
             claims=("ds-inline-unknown-dropped", "ds-inline-nvme-path-not-exported", "ds-offload-pin-memory-default",
                     "ds-gradient-clipping-on-unless-json-zero", "ds-micro-batch-auto-from-dataloader"))
def ds_json_required(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["deepspeed.config_file"] == "no":
        reasons = [r for r in ds_json_reasons(a) if r != "deepspeed.config_file is 'yes'"]
        if reasons:
            yield (["deepspeed.config_file"], "inline DeepSpeed keys cannot carry: " + ", ".join(reasons),
                   "set deepspeed.config_file auto (or yes)")


@answer_rule("low-precision-optimizer", WARNING, "FSDP without mixed precision trains in the load dtype",
             DOC + "mixed-precision; "
             "accelerate/utils/dataclasses.py:2109-2136 (FSDP mixed precision policy only from mixed_precision)",
             claims=("fsdp-no-mixed-precision-keeps-load-dtype", "ds-module-cast-fp32-master"))
def low_precision_optimizer(a: Answers) -> Iterator[Hit]:
    if _is_fsdp(a) and a["precision.model_dtype"] != "fp32" and a["precision.mixed_precision"] == "no":
        yield (["precision.mixed_precision", "precision.model_dtype"], f"model loaded in "
               f"{a['precision.model_dtype']} without mixed precision: FSDP keeps parameters, gradients and "
               "optimizer state in that dtype (8 bytes per parameter, less stable updates); DeepSpeed would "
               "build fp32 masters by default (16 bytes)",
               "set precision.mixed_precision to bf16 for fp32 master weights")


@answer_rule("ds-low-precision-no-mp", WARNING, "DeepSpeed with low-precision weights and no mixed precision",
             DOC + "ds-precision; deepspeed/runtime/engine.py:1797-1850, zero/stage_1_and_2.py:557-577",
             claims=("ds-module-cast-fp32-master", "ds-zero0-no-master"))
def ds_low_precision_no_mp(a: Answers) -> Iterator[Hit]:
    if a.target == DEEPSPEED and a["precision.model_dtype"] != "fp32" and a["precision.mixed_precision"] == "no":
        yield (["precision.mixed_precision", "precision.model_dtype"], f"model loaded in "
               f"{a['precision.model_dtype']} but no bf16/fp16 section: DeepSpeed leaves the module as loaded, "
               "without its 16-bit handling (no loss scaling), and ZeRO-1/2/3 still keep fp32 master weights and "
               "Adam state (16 bytes per parameter)",
               f"set precision.mixed_precision to {a['precision.model_dtype']}")


_BF16_MASTER = ("bf16", "bf16_with_states")


@answer_rule("ds-bf16-master-needs-offload", ERROR, "bf16 master weights with fp32 optimizer states need offload",
             DOC + "ds-bf16-master-weights; deepspeed/runtime/base_optimizer.py:507-512, "
             "runtime/zero/stage_1_and_2.py:331-342, runtime/zero/stage3.py:299-310",
             claims=("master-weights-fp32-states-need-offload",))
def ds_bf16_master_needs_offload(a: Answers, runs: Runs) -> Iterator[Hit]:
    if (a.target == DEEPSPEED and a["precision.ds_bf16_master_weights"] == "bf16" and runs.zero_stage > 0
            and ds_offload_optimizer(a) == "none"):
        yield (["precision.ds_bf16_master_weights", "offload.optimizer"], "bf16 master weights with fp32 optimizer "
               "states only start with the optimizer offloaded to CPU (DeepSpeedCPUAdam): without offload the "
               "ZeRO optimizer asserts in deepspeed.initialize",
               "set ds_bf16_master_weights bf16_with_states (needs no offload), or offload.optimizer cpu")


@answer_rule("ds-bf16-states-offload-swap", ERROR,
             "offloaded bf16 optimizer states need DeepSpeed's own optimizer",
             DOC + "ds-bf16-master-weights; deepspeed/runtime/base_optimizer.py:513-518, runtime/engine.py:2388-2400; "
             "accelerate/utils/deepspeed.py:29-97",
             claims=("master-weights-offloaded-states-need-bf16-cpu-adam",))
def ds_bf16_states_offload_swap(a: Answers, runs: Runs) -> Iterator[Hit]:
    extra = a["deepspeed.extra"] or {}
    if (a.target == DEEPSPEED and a["precision.ds_bf16_master_weights"] == "bf16_with_states"
            and runs.zero_stage > 0 and ds_offload_optimizer(a) != "none" and "optimizer" not in extra
            and extra.get("zero_force_ds_cpu_optimizer") is not False):
        yield (["precision.ds_bf16_master_weights", "offload.optimizer", "deepspeed.extra"], "with the optimizer "
               "offloaded, accelerate swaps the script's optimizer for a DeepSpeedCPUAdam that keeps fp32 moments, "
               "and DeepSpeed refuses that next to bf16 optimizer states",
               "add an optimizer block to deepspeed.extra (DeepSpeed then builds CPU Adam with bf16 moments; the "
               "script passes accelerate's DummyOptim), or set offload.optimizer none (bf16 states need no offload)")


@answer_rule("ds-bf16-master-without-bf16", WARNING, "bf16 master weights without bf16 mixed precision",
             DOC + "ds-bf16-master-weights; deepspeed/runtime/engine.py:1681-1685, 2700-2702, 2784-2786",
             claims=("master-weights-read-without-bf16",))
def ds_bf16_master_without_bf16(a: Answers) -> Iterator[Hit]:
    mp = a["precision.mixed_precision"]
    if a.target == DEEPSPEED and a["precision.ds_bf16_master_weights"] in _BF16_MASTER and mp in ("no", "fp16"):
        weights = "fp32" if mp == "no" else "fp16"
        yield (["precision.ds_bf16_master_weights", "precision.mixed_precision"], f"DeepSpeed applies bf16 master "
               f"weights even without bf16: the {weights} weights get a bf16 master copy and bf16 Adam moments, so "
               "updates are computed below the weights' own precision",
               "set precision.mixed_precision bf16, or ds_bf16_master_weights fp32")
def _written_precision(a: Answers) -> dict[str, bool]:
    mp = a["precision.mixed_precision"]
    return {"bf16": mp in ("bf16", "fp8"), "fp16": mp == "fp16"}


@answer_rule("ds-json-overrides-mixed-precision", ERROR,
             "deepspeed.extra overrides the bf16/fp16 enabled flag precision.mixed_precision writes",
             DOC + "mixed-precision; accelerate/utils/dataclasses.py:1415-1446; state.py:1062-1074",
             keys="precision.mixed_precision, deepspeed.extra",
             fix="drop enabled from the bf16/fp16 blocks of deepspeed.extra, or set precision.mixed_precision",
             claims=("ds-mixed-precision-to-json", "ds-json-overrides-launch-mixed-precision"))
def ds_json_overrides_mixed_precision(a: Answers) -> Iterator[Hit]:
    extra = a["deepspeed.extra"] or {}
    if a.target != DEEPSPEED or not isinstance(extra, dict) or not uses_ds_json(a):
        return
    written = _written_precision(a)
    for dtype in ("bf16", "fp16"):
        block = extra.get(dtype)
        value = block.get("enabled") if isinstance(block, dict) else None
        if isinstance(value, bool) and value != written[dtype]:
            yield (["precision.mixed_precision", "deepspeed.extra"],
                   f"deepspeed.extra writes {dtype}.enabled: {str(value).lower()} over the "
                   f"{str(written[dtype]).lower()} that mixed_precision {a['precision.mixed_precision']} puts in the "
                   "JSON; DeepSpeed follows the JSON, and a --mixed_precision at launch does not change it (only "
                   "the other 16-bit dtype enabled raises)",
                   f"remove enabled from deepspeed.extra's {dtype} block, or set precision.mixed_precision to the "
                   "precision you want")


@answer_rule("ds-extra-overrides-training", ERROR,
             "deepspeed.extra overrides the micro batch, accumulation or clipping the training answers write",
             DOC + "ds-auto-values; wizard/core/answers/render.py (deepspeed.extra is merged over the keys the answers "
             "write; under the Trainer training_arguments.json follows the JSON)",
             keys="training.micro_batch_size, training.gradient_accumulation_steps, training.gradient_clipping, "
                  "deepspeed.extra",
             fix="drop the key from deepspeed.extra, or set the training answer to the value meant",
             claims=("ds-config-numbers-run-as-written",))
def ds_extra_overrides_training(a: Answers) -> Iterator[Hit]:
    extra = a["deepspeed.extra"] or {}
    if a.target != DEEPSPEED or not isinstance(extra, dict):
        return
    for sid, key in DS_KEY_OF_TRAINING.items():
        value = extra.get(key)
        if key not in extra or value == "auto" or not a.is_set(sid) or a[sid] == "auto":
            continue
        if value != a[sid]:
            yield ([sid, "deepspeed.extra"], f"deepspeed.extra writes {key}: {value!r} over the {a[sid]!r} that "
                   f"{sid} asks for; DeepSpeed (and, under the Trainer, training_arguments.json) follows the JSON, so "
                   f"{sid} does not take effect", f"drop {key} from deepspeed.extra, or set {sid} to {value!r}")


_STRATEGY_OF_STAGE = {stage: name for name, (_v1, _v2, stage, hybrid) in SHARDING.items() if not hybrid}
"""ZeRO stage -> the (non-hybrid) sharding.strategy that writes it."""


def _extra_stage(a: Answers) -> Any:
    extra = a["deepspeed.extra"] or {}
    zero = extra.get("zero_optimization") if isinstance(extra, dict) else None
    return zero.get("stage") if isinstance(zero, dict) else None


def _written_for_stage(a: Answers, stage: int, runs_stage: int) -> tuple[list[str], list[str]]:
    """(answer ids, what they write) whose written keys exist for the answered ZeRO-3 only and stop taking effect at
    ``runs_stage`` (the ZeRO-3 settings: those stated); empty below ZeRO-3, where the answers write nothing of ZeRO-3
    (zero3-knob-unused and ds-param-offload-needs-zero3 name what they leave out)."""
    if stage != 3 or runs_stage == 3:
        return [], []
    ids, what = ["loading.ram_efficient"], ["zero3_init_flag true (every process loads the whole model)"]
    if ds_offload_params(a) != "none":
        ids.append("offload.params")
        what.append("offload_param (the parameters stay on the GPU)")
    device = ds_offload_optimizer(a)
    if device == "nvme" and runs_stage > 0 or device != "none" and runs_stage == 0:
        ids.append("offload.optimizer")
        what.append(f"offload_optimizer {device} (" + ("runs on the CPU" if runs_stage else "ZeRO-0 cannot offload")
                    + ")")
    for s, w, _value in one_to_one_writes(a):
        if w.file == JSON and w.when == ZERO3 and a.is_set(s.id) and s.id not in ids:
            ids.append(s.id)
            what.append(w.key.removeprefix("zero_optimization."))
    return ids, what


@answer_rule("ds-json-overrides-stage", ERROR,
             "deepspeed.extra overrides the ZeRO stage sharding.strategy writes",
             DOC + "ds-zero-stages; wizard/core/answers/render.py (deepspeed.extra is merged over the keys the answers "
             "write); deepspeed/runtime/zero/config.py:95 (the engine runs zero_optimization.stage)",
             keys="sharding.strategy, deepspeed.extra, and the answers written for the answered stage only",
             fix="drop zero_optimization.stage from deepspeed.extra, or set sharding.strategy to the stage wanted "
                 "and drop it there",
             claims=("ds-zero-stages-partition",))
def ds_json_overrides_stage(a: Answers, runs: Runs) -> Iterator[Hit]:
    if a.target != DEEPSPEED or not uses_ds_json(a) or _extra_stage(a) is None:
        return
    stage, running = zero_stage(a), runs.zero_stage
    if running == stage:
        return
    ids, what = _written_for_stage(a, stage, running)
    strategy = a["sharding.strategy"]
    if what:
        lost = f"; what the answers write for ZeRO-3 then does not take effect as written: {', '.join(what)}"
    elif running == 3:
        lost = ("; ZeRO-3 then runs without what the answers write only for it (zero3_init_flag true, parameter "
                "offload, the stage3_* settings)")
    else:
        lost = ""
    yield (["sharding.strategy", "deepspeed.extra", *ids],
           f"deepspeed.extra writes zero_optimization.stage {_extra_stage(a)!r} over the {stage} that "
           f"sharding.strategy {strategy} writes, and DeepSpeed runs the JSON's: ZeRO-{running}, not ZeRO-{stage}"
           + lost,
           f"drop zero_optimization.stage from deepspeed.extra (sharding.strategy {strategy} decides it), or set "
           f"sharding.strategy {_STRATEGY_OF_STAGE[running]} (ZeRO-{running}) and drop it from deepspeed.extra")


# ------------------------------------------------------------------ parallelism


_CP_DETAILS = ("parallelism.cp_comm_strategy",)
_SP_DETAILS = ("parallelism.sp_seq_length", "parallelism.sp_seq_length_is_variable",
               "parallelism.sp_attn_implementation")


@answer_rule("parallelism-details-unused", WARNING,
             "parallel details without their dimension (or replicas without hybrid sharding) are not written",
             DOC + "launch-copies-section-keys; accelerate/utils/launch.py:420-425 (cp_comm_strategy is exported only "
             "with cp_size above 1, the sp_ details only with sp_size above 1); accelerate/utils/dataclasses.py:"
             "2280-2287 (a length is read only for a fixed length)",
             keys="parallelism.cp_comm_strategy with parallelism.cp_size; parallelism.sp_* with parallelism.sp_size "
                  "or parallelism.sp_seq_length_is_variable; parallelism.dp_replicate_size with sharding.strategy",
             fix="set the dimension above 1 (hybrid sharding for replicas), or drop the detail",
             claims=("accelerate-parallelism-details-need-their-dimension",))
def parallelism_details_unused(a: Answers) -> Iterator[Hit]:
    target = a.target
    if target == FSDP2 and a.is_set("parallelism.dp_replicate_size") and not is_hybrid(a):
        yield (["parallelism.dp_replicate_size", "sharding.strategy"],
               f"parallelism.dp_replicate_size {a['parallelism.dp_replicate_size']} is set but sharding.strategy is "
               f"{a['sharding.strategy']}: replicas are part of hybrid sharding, so it is not written",
               "choose sharding.strategy hybrid_full or hybrid_grads_optimizer, or drop the size")
    if target == FSDP2 and a["parallelism.cp_size"] == 1:
        stated = [sid for sid in _CP_DETAILS if a.is_set(sid)]
        if stated:
            yield ([*stated, "parallelism.cp_size"],
                   f"{', '.join(stated)} is set but cp_size is 1: the launcher exports the context-parallel exchange "
                   "only when cp_size is above 1, so it is not written", "set parallelism.cp_size above 1, or drop it")
    if target == DEEPSPEED and a["parallelism.sp_size"] == 1:
        stated = [sid for sid in _SP_DETAILS if a.is_set(sid)]
        if stated:
            yield ([*stated, "parallelism.sp_size"],
                   f"{', '.join(stated)} is set but sp_size is 1: the launcher exports the sequence-parallel details "
                   "only when sp_size is above 1, so they are not written",
                   "set parallelism.sp_size above 1, or drop them")
    if (target == DEEPSPEED and a["parallelism.sp_size"] > 1 and a["parallelism.sp_seq_length"] is not None
            and a["parallelism.sp_seq_length_is_variable"]):
        yield (["parallelism.sp_seq_length", "parallelism.sp_seq_length_is_variable"],
               f"parallelism.sp_seq_length {a['parallelism.sp_seq_length']} is given, but with a variable length "
               "accelerate reads no length, so it is not written",
               "set parallelism.sp_seq_length_is_variable false if every batch has this length, or drop the length")


# ------------------------------------------------------------------ applicability


@answer_rule("not-applicable", WARNING, "a stated value that the chosen target has no place for",
             DOC + "launch-copies-section-keys; wizard/core/catalog/settings.py "
             "(where each setting is written per target)",
             keys="the answer id of the setting",
             fix="the setting's counterpart on this target (from the catalogue), or drop it, or switch backend")
def not_applicable(a: Answers) -> Iterator[Hit]:
    target = a.target
    for s in SETTINGS:
        if s.id in _HANDLED or not a.is_set(s.id) or s.applies_to(target):
            continue
        reason = s.not_applicable.get(target, "")
        yield ([s.id], f"{s.id} = {a[s.id]!r} does not apply to {TARGET_LABELS[target]}: {reason} Not written.",
               s.counterpart if s.counterpart else "drop it, or switch backend")


# Settings whose non-applicability a more specific rule above explains.
_HANDLED = {"offload.nvme_path", "launch.script", "launch.script_args", "precision.model_dtype"}


_CHECKS = tuple(info.check for info in in_section(ANSWER).values() if info.check is not None)
"""Every answer rule's check, in the order above."""


def check_answers(a: Answers) -> list[Finding]:
    out: list[Finding] = []
    runs = Runs(a)  # one effective model for every rule that reads it
    for check in _CHECKS:
        out.extend(check(a, runs))
    return out
