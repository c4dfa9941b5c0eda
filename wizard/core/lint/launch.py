"""Multi-node rules that the other modules do not cover (docs/multinode.md lists every multi-node key and its rule):
the machine rank and whether the launch reads it, and ZeRO++ hpZ's partition size against the stage and the
world size."""
from __future__ import annotations

import re

from ..hosts import host_problem
from ..library.launcher import MESH_ORDER, PC
from .base import DOC, DS, ERROR, INFO, WARNING, A, ConfigCheck, as_int, kv, rule
from .ds import RUNNER_LAUNCHERS  # the runner starts every machine itself and passes no machine_rank

RANK_TOO_HIGH = rule("machine-rank-too-high", ERROR, "machine_rank outside 0..num_machines-1 on a launch that reads it",
                     DOC + "processes-and-machines; " + A + "utils/launch.py:216-219, 456-458, 488-491 (node_rank = "
                     "machine_rank); torch/distributed/run.py:890-891 (the static rendezvous takes it as the node's "
                     "rank)",
                     keys="machine_rank, num_machines (and deepspeed_config.deepspeed_multinode_launcher)",
                     fix="Use 0 on the main machine and 1..N-1 on the others (or pass --machine_rank on each "
                         "machine's command line).",
                     claims=("launch-torchrun-per-machine", "ds-nossh-launcher"))
RANK_NOT_READ = rule("machine-rank-not-read", WARNING,
                     "machine_rank other than 0 on a launch that never reads it (one machine, or DeepSpeed's runner)",
                     DOC + "processes-and-machines; " + A + "utils/launch.py:216-228 (one machine: no node_rank), "
                     "446-476 (pdsh, MPI and slurm launchers: no --node_rank)",
                     keys="machine_rank, num_machines (and deepspeed_config.deepspeed_multinode_launcher)",
                     claims=("launch-torchrun-per-machine", "ds-runner-backends"))
HPZ_UNUSED = rule("ds-json-hpz-unused", ERROR, "zero_hpz_partition_size above 1 below ZeRO-3: never read",
                  DOC + "ds-zero-stages; " + DS + "runtime/engine.py:2718-2720, 2787 (handed only to the ZeRO-3 "
                  "optimizer); " + DS + "runtime/zero/partition_parameters.py:1118-1119",
                  keys="zero_optimization.zero_hpz_partition_size, zero_optimization.stage",
                  claims=("ds-hpz-secondary-partition",))
HPZ_NOT_DIVIDING = rule("ds-json-hpz-not-dividing", ERROR,
                        "zero_hpz_partition_size does not divide the world size: DeepSpeed asserts",
                        DOC + "ds-zero-stages; " + DS + "utils/groups.py:925-950 (min(size, world), then "
                        "_ensure_divisibility)",
                        keys="zero_optimization.zero_hpz_partition_size, num_processes",
                        fix="Use a divisor of num_processes: the processes per machine is the usual choice.",
                        claims=("ds-hpz-group-divides-world",))
HPZ_SPANS = rule("ds-json-hpz-spans-machines", WARNING,
                 "hpZ groups larger than one machine: the secondary copy is gathered over the network",
                 DOC + "ds-zero-stages; " + DS + "utils/groups.py:947-950 (groups of consecutive ranks); " + A
                 + "utils/launch.py:216-219 (consecutive ranks per machine)",
                 keys="zero_optimization.zero_hpz_partition_size, num_processes, num_machines",
                 claims=("ds-hpz-group-divides-world", "ds-hpz-secondary-partition"))

HSDP_SPANS = rule("parallelism-shard-group-spans-machines", WARNING,
                  "FSDP2 HSDP whose dp_shard groups are larger than one machine: sharding traffic crosses the network",
                  DOC + "parallelism-config; " + A + "parallelism_config.py:211-235, 260-275 (mesh dp_replicate x "
                  "dp_shard, row-major); " + A + "utils/launch.py:216-219 (ranks numbered machine by machine)",
                  keys="parallelism_config.parallelism_config_dp_shard_size, "
                       "parallelism_config.parallelism_config_dp_replicate_size, num_processes, num_machines",
                  fix="Make parallelism_config_dp_shard_size the processes per machine (or a divisor of it) and "
                      "dp_replicate_size the rest.",
                  claims=("fsdp2-hsdp-shard-groups-consecutive-ranks", "fsdp2-hybrid-from-parallelism-config"))
NOSSH_OLD = rule("deepspeed-nossh-too-old", ERROR, "nossh launcher on DeepSpeed before 0.14.5: accelerate refuses it",
                 DOC + "ds-multinode-launcher; " + A + "utils/launch.py:456-458",
                 keys="deepspeed_config.deepspeed_multinode_launcher, num_machines",
                 fix="Upgrade DeepSpeed to 0.14.5 or later, or use the 'standard' launcher (one launcher per machine).",
                 claims=("ds-nossh-launcher",), versions={"deepspeed": "<0.14.5"})

_HOSTFILE_KEYS = "deepspeed_config.deepspeed_hostfile (its lines), num_machines, num_processes"
HOSTFILE_HOSTS = rule("ds-hostfile-host-count", ERROR,
                      "the hostfile lists another number of hosts than num_machines: the runner starts every host",
                      DOC + "ds-multinode-launcher; " + A + "utils/launch.py:452-476 (--num_gpus, no --num_nodes); "
                      + DS + "launcher/runner.py:385-405",
                      keys=_HOSTFILE_KEYS,
                      fix="List exactly num_machines hosts in the hostfile (or set num_machines to its host count).",
                      claims=("ds-hostfile-every-host-used", "ds-hostfile-format"))
HOSTFILE_BAD = rule("ds-hostfile-invalid", ERROR,
                    "a hostfile the DeepSpeed runner refuses (a bad line, a host twice, no host)",
                    DOC + "ds-multinode-launcher; " + DS + "launcher/runner.py:225-254",
                    keys="deepspeed_config.deepspeed_hostfile (its lines)",
                    fix="One 'hostname slots=N' line per machine; '#' starts a comment line.",
                    claims=("ds-hostfile-bad-lines-raise", "ds-hostfile-format"))
HOSTFILE_UNCHECKED = rule("ds-hostfile-not-checked", INFO,
                          "the hostfile the runner will read is not found from here: its hosts were not checked",
                          DOC + "ds-multinode-launcher; " + DS + "launcher/runner.py:212-216 (opened from the folder "
                          "accelerate launch runs in)",
                          keys="deepspeed_config.deepspeed_hostfile",
                          claims=("ds-hostfile-every-host-used", "ds-hostfile-missing-local-only"))
MAIN_IP_INVALID = rule("main-process-ip-invalid", ERROR,
                       "main_process_ip is not an IP address or an RFC 1123 host name",
                       DOC + "processes-and-machines; " + A + "utils/launch.py:216-224, 477-478 (torchrun's endpoint, "
                       "the runner's --master_addr); " + DS + "launcher/multinode_runner.py:88-128 (pdsh pastes "
                       "--master_addr into a remote shell)",
                       keys="main_process_ip",
                       fix="Set main_process_ip to machine 0's IP address or host name.",
                       claims=("ds-pdsh-master-addr-unquoted",))
HOSTFILE_HOST_INVALID = rule("ds-hostfile-host-invalid", ERROR,
                             "a hostfile host that is not an IP address or an RFC 1123 host name",
                             DOC + "ds-multinode-launcher; " + DS + "launcher/runner.py:225-254, 482-492 (ssh to the "
                             "first host); " + DS + "launcher/multinode_runner.py:88-128 (pdsh -w takes the hosts)",
                             keys="deepspeed_config.deepspeed_hostfile (its lines)",
                             fix="Give each machine's host name (letters, digits, '-', '.') or IP address.",
                             claims=("ds-runner-ssh-checks-first-host", "ds-pdsh-master-addr-unquoted"))
_HOST_LINE = re.compile(r"^(\S+)\s+slots=(\d+)")  # DeepSpeed's own pattern (runner.py:229)


def parse_hostfile(lines: list[str]) -> tuple[list[tuple[str, int]], str | None]:
    """The hosts and slots of a DeepSpeed hostfile as the runner reads them, and the runner's refusal (None when it
    accepts the file): the same pattern, comment and blank-line handling as ``_parse_hostfile``."""
    hosts: list[tuple[str, int]] = []
    for raw in lines:
        line = raw.strip()
        match = _HOST_LINE.search(line)
        if line.startswith("#") or line == "":
            continue
        if not match:
            return hosts, f"the line {line!r} is not 'hostname slots=N'"
        if any(h == match.group(1) for h, _ in hosts):
            return hosts, f"the host {match.group(1)} is listed twice"
        hosts.append((match.group(1), int(match.group(2))))
    if not hosts:
        return hosts, "it lists no host"
    return hosts, None


def check_hostfile(ctx: ConfigCheck) -> None:
    """The hostfile's hosts against num_machines, for the launches that read it: DeepSpeed's runner launchers and
    nossh on several machines (accelerate passes --num_gpus and never --num_nodes)."""
    launcher = _launcher(ctx)
    dc = ctx.section("deepspeed_config")
    named = dc.get("deepspeed_hostfile")
    if launcher is None or launcher == "standard" or ctx.nmach < 2 or not isinstance(named, str) or not named.strip():
        return
    if ctx.hostfile is None:
        ctx.emit(HOSTFILE_UNCHECKED, "deepspeed_config.deepspeed_hostfile",
                 f"{kv('deepspeed_config.deepspeed_hostfile', named)} is not found (or not readable) from the current "
                 "folder, where the runner opens it: its hosts were not compared with num_machines. The runner uses "
                 "every host it lists.", "Run `fsdpds-wizard check` on the machine and in the folder you launch from.")
        return
    hosts, refusal = parse_hostfile(ctx.hostfile)
    bad = [why for h, _ in hosts if (why := host_problem(h, f"host {h!r}: "))]  # each its own sentence
    if bad:
        ctx.emit(HOSTFILE_HOST_INVALID, "deepspeed_config.deepspeed_hostfile",
                 f"The hostfile {named}: " + "; ".join(bad) + ". The runner "
                 "hands the hosts to ssh and pdsh (and pdsh's command to a remote shell): a host is an IP address or "
                 "an RFC 1123 host name.",
                 "Give each machine's host name (letters, digits, '-', '.') or IP address.")
    if refusal is not None:
        ctx.emit(HOSTFILE_BAD, "deepspeed_config.deepspeed_hostfile",
                 f"The hostfile {named}: {refusal}; DeepSpeed's runner raises ValueError before starting anything.",
                 "One 'hostname slots=N' line per machine; '#' starts a comment line.")
        return
    if dc.get("deepspeed_inclusion_filter") is not None or dc.get("deepspeed_exclusion_filter") is not None:
        return  # a filter chooses the hosts and slots (and replaces --num_gpus): the count may differ on purpose
    if len(hosts) != ctx.nmach:
        per = ctx.nproc_per_node
        world = f"{len(hosts)} x {per} = {len(hosts) * per} processes" if per else f"{len(hosts)} machines"
        ctx.emit(HOSTFILE_HOSTS, ("deepspeed_config.deepspeed_hostfile", "num_machines", "num_processes"),
                 f"The hostfile {named} lists {len(hosts)} hosts ({', '.join(h for h, _ in hosts[:4])}"
                 f"{', ...' if len(hosts) > 4 else ''}) but {kv('num_machines', ctx.nmach)}: accelerate passes the "
                 "runner --num_gpus and no --num_nodes, so it starts every listed host: " + world
                 + (f", not num_processes {ctx.nproc}." if ctx.nproc else "."),
                 "List exactly num_machines hosts in the hostfile (or set num_machines to its host count).")


def _launcher(ctx: ConfigCheck) -> str | None:
    """The DeepSpeed multi-node launcher as accelerate applies it (pdsh when unset), None for FSDP and others."""
    if ctx.kind != "deepspeed":
        return None
    return str(ctx.section("deepspeed_config").get("deepspeed_multinode_launcher") or "pdsh")


def check(ctx: ConfigCheck) -> None:
    """The launch-level multi-node rules of this module (the JSON's hpZ rules run with the JSON checks)."""
    check_machine_rank(ctx)
    check_main_address(ctx)
    check_hostfile(ctx)
    if _launcher(ctx) == "nossh" and ctx.nmach > 1:
        ctx.emit(NOSSH_OLD, ("deepspeed_config.deepspeed_multinode_launcher", "num_machines"),
                 f"The 'nossh' launcher with DeepSpeed {ctx.versions.get('deepspeed') or 'before 0.14.5'}: accelerate "
                 "launch raises 'nossh launcher requires DeepSpeed >= 0.14.5' before anything starts.",
                 "Upgrade DeepSpeed to 0.14.5 or later, or use the 'standard' launcher (one launcher per machine).")


def check_main_address(ctx: ConfigCheck) -> None:
    """main_process_ip reaches torchrun, the DeepSpeed runner's --master_addr and, with pdsh, a remote shell: it must
    be an address or a host name, nothing a shell or an option parser reads more into."""
    raw = ctx.y.get("main_process_ip")
    if raw is None or (isinstance(raw, str) and not raw.strip()):
        return
    why = host_problem(str(raw))
    if why:
        ctx.emit(MAIN_IP_INVALID, "main_process_ip",
                 f"{kv('main_process_ip', raw)}: {why}; it must be machine 0's IP address or RFC 1123 host name "
                 "(torchrun and the DeepSpeed runners pass it on, pdsh through a remote shell).",
                 "Set main_process_ip to machine 0's IP address or host name.")


def check_machine_rank(ctx: ConfigCheck) -> None:
    """accelerate hands machine_rank on only with several machines, and only to torchrun (FSDP, MULTI_GPU,
    DeepSpeed 'standard') or to the runner of the 'nossh' launcher; pdsh, the MPI launchers and slurm start every
    machine from the first host and never see it."""
    raw = ctx.y.get("machine_rank")
    rank = as_int(raw)
    if rank is None or rank == 0 or ctx.dist is None or ctx.dist == "NO":
        return
    launcher = _launcher(ctx)
    lkey = ("deepspeed_config.deepspeed_multinode_launcher",) if launcher is not None else ()
    if ctx.nmach <= 1:
        ctx.emit(RANK_NOT_READ, ("machine_rank", "num_machines"),
                 f"{kv('machine_rank', raw)} on one machine: the launcher gives torchrun no node rank when "
                 "num_machines is 1, so this value changes nothing (the processes are ranks 0..N-1 of this machine).",
                 "Set `machine_rank: 0`, or set num_machines if the job spans several machines.")
        return
    if launcher is not None and launcher.lower() in RUNNER_LAUNCHERS:
        ctx.emit(RANK_NOT_READ, ("machine_rank", "num_machines") + lkey,
                 f"{kv('machine_rank', raw)} is never read: with the '{launcher}' launcher accelerate runs the "
                 "DeepSpeed runner, which starts every machine of the hostfile from the one it runs on and passes "
                 "no machine rank. Run `accelerate launch` once, on the first host; started on every machine, "
                 "each launch would start the whole job again.",
                 "Set `machine_rank: 0` and launch once from the first host of the hostfile (or use the 'nossh' "
                 "or 'standard' launcher to start one launcher per machine).")
        return
    if rank >= ctx.nmach or rank < 0:
        how = ("the DeepSpeed runner (--no_ssh --node_rank)" if launcher == "nossh" else "torchrun (--node_rank)")
        ctx.emit(RANK_TOO_HIGH, ("machine_rank", "num_machines") + lkey,
                 f"{kv('machine_rank', raw)} with `num_machines: {ctx.nmach}`: the launcher passes it to {how} as "
                 f"this machine's rank, but the machines are numbered 0..{ctx.nmach - 1}; the static rendezvous "
                 "(the one a config file gets) waits for exactly those ranks, so this machine never joins a valid "
                 "job. Only `--rdzv_backend c10d` on the command line, which numbers the nodes itself, ignores it.",
                 "Use 0 on the main machine and " + ("1 on the other" if ctx.nmach == 2 else
                                                      f"1..{ctx.nmach - 1} on the others")
                 + " (or pass --machine_rank on each machine's command line).")


def check_hpz(ctx: ConfigCheck, ds: dict) -> None:
    """zero_hpz_partition_size: read by ZeRO-3 only; its groups are min(size, world) consecutive ranks and must
    divide the world size."""
    zo = ds.get("zero_optimization")
    if not isinstance(zo, dict) or "zero_hpz_partition_size" not in zo:
        return
    raw = zo["zero_hpz_partition_size"]
    size = as_int(raw)
    if size is None or size <= 1:
        return  # 0 and 1 turn hpZ off; a bad value is the schema rules' finding
    key = "zero_optimization.zero_hpz_partition_size"
    stage = ctx.stage
    if stage is not None and stage != 3:
        ctx.emit(HPZ_UNUSED, (key, "zero_optimization.stage"),
                 f"{kv(key, raw)} at ZeRO stage {stage}: DeepSpeed hands the hpZ size only to the ZeRO-3 code, so "
                 "no secondary partition is kept and the value has no effect.",
                 "Use stage 3 for hpZ, or delete zero_hpz_partition_size.")
        return
    if stage != 3 or ctx.nproc is None:
        return
    world = ctx.nproc
    group = min(size, world)
    if world % group:
        ctx.emit(HPZ_NOT_DIVIDING, (key, "num_processes"),
                 f"{kv(key, raw)} with {world} processes: DeepSpeed builds hpZ groups of {group} consecutive ranks "
                 f"and asserts that they divide the world size ('{world} is not divisible by {group}') when ZeRO-3 "
                 "starts.", f"Use a divisor of {world}: the processes per machine is the usual choice.")
        return
    if ctx.nmach > 1 and not ctx.bare:
        ppn = world // ctx.nmach
        if ppn and group > ppn:
            ctx.emit(HPZ_SPANS, (key, "num_processes", "num_machines"),
                     f"{kv(key, raw)} with {ppn} processes per machine: each hpZ group spans "
                     f"{group // ppn if group % ppn == 0 else 'parts of several'} machines, so backward's all-gather "
                     "of the secondary copy crosses the network, which is what hpZ is meant to avoid (it still "
                     "costs the extra memory).",
                     f"Set zero_hpz_partition_size to {ppn} (the GPUs of one machine) or a divisor of it.")


def check_hsdp_layout(ctx: ConfigCheck) -> None:
    """FSDP2 HSDP (parallelism_config dp_replicate > 1): each dp_shard group is dp_shard_size consecutive ranks, and
    the ranks are numbered machine by machine, so a group larger than one machine's processes spans machines: the
    per-layer all-gathers and reduce-scatters then cross the network, which HSDP is chosen to avoid."""
    if ctx.kind != "fsdp" or ctx.fsdp_version != 2 or ctx.nmach <= 1 or ctx.nproc is None:
        return
    pc = ctx.section("parallelism_config")
    sizes = {name: as_int(pc.get(f"{PC}{name}_size", 1)) for name in MESH_ORDER}
    if any(v is None or v < 1 for v in sizes.values()) or sizes["tp"] != 1 or sizes["cp"] != 1 or sizes["sp"] != 1:
        return  # invalid sizes are check_parallelism's; TP/CP/SP layouts are out of this rule's scope
    replicate, shard = sizes["dp_replicate"], sizes["dp_shard"]
    ppn = ctx.nproc // ctx.nmach
    if replicate is None or shard is None or replicate <= 1 or replicate * shard != ctx.nproc or not ppn:
        return
    if shard > ppn:
        ctx.emit(HSDP_SPANS, (f"parallelism_config.{PC}dp_shard_size", f"parallelism_config.{PC}dp_replicate_size",
                              "num_processes", "num_machines"),
                 f"dp_shard_size {shard} with {ppn} processes per machine: each shard group spans "
                 f"{-(-shard // ppn)} machines, so every layer's all-gather and reduce-scatter crosses the network "
                 f"(hybrid sharding normally shards inside a machine and replicates across machines).",
                 f"Set dp_shard_size {ppn} and dp_replicate_size {ctx.nproc // ppn}, or drop the replication.")
