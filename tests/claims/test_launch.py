"""Claims about processes, machines, GPUs, the multi-node DeepSpeed launchers and torch.compile
(wizard/core/claims/launch.py).

accelerate's launcher runs here without starting a process: ``launch_command_parser().parse_args``,
``_validate_launch_command``, then ``prepare_multi_gpu_env`` / ``prepare_deepspeed_cmd_env`` the way
``launch_command`` dispatches, and the torchrun arguments built from them the way ``multi_gpu_launcher`` does
(``_filter_args`` with ``torch.distributed.run``'s own parser, then its ``config_from_args``). DeepSpeed's runner
is called piece by piece (hostfile parsing, filters, the per-launcher command builders), never started. Like the
wizard's --verify (wizard/core/verify/guards.py ``_port_probe_neutralised``), the port probe answers "free"
except in the test about busy ports, so the results do not depend on this machine."""
from __future__ import annotations

import logging
import os
import socket

import pytest
from gloo_ranks import one_rank, result_of
from launch_support import BASE, Launch, ds_base


# ------------------------------------------------------------------ processes and machines
@pytest.mark.claim("launch-procs-per-node-floor")
@pytest.mark.parametrize("case", ["fsdp-torchrun", "deepspeed-standard", "deepspeed-runner"])
def test_processes_per_machine_is_an_integer_division(tmp_path, case):
    nine = {"num_processes": 9, "num_machines": 2, "main_process_ip": "10.0.0.1"}
    if case == "fsdp-torchrun":
        two = Launch(tmp_path, {**BASE, **nine})
        assert (two.torchrun.nproc_per_node, two.torchrun.nnodes) == ("4", "2")  # 8 ranks in all, not 9
        one = Launch(tmp_path, {**BASE, "num_processes": 9})
        assert one.torchrun.nproc_per_node == "9"
    elif case == "deepspeed-standard":
        ds = Launch(tmp_path, ds_base(deepspeed_multinode_launcher="standard") | nine)
        assert ds.cmd is None and ds.torchrun.nproc_per_node == "4"
    else:  # the runner's launchers: --num_gpus per host, the same division
        ds = Launch(tmp_path, ds_base(deepspeed_multinode_launcher="pdsh") | nine)
        assert ds.cmd[ds.cmd.index("--num_gpus") + 1] == "4"


@pytest.mark.claim("launch-num-processes-minus-one")
@pytest.mark.parametrize("case", ["config-minus-one-raises", "flag-given"])
def test_minus_one_processes_must_come_from_the_command_line(tmp_path, case):
    if case == "config-minus-one-raises":
        with pytest.raises(ValueError, match="--num_processes"):
            Launch(tmp_path, {**BASE, "num_processes": -1})
    else:
        run = Launch(tmp_path, {**BASE, "num_processes": -1}, ("--num_processes", "4"))
        assert run.torchrun.nproc_per_node == "4"


@pytest.mark.claim("launch-no-gpu-count-check")
@pytest.mark.parametrize("case", ["fsdp", "deepspeed", "multi-gpu-two-ids"])
def test_nothing_compares_processes_or_gpu_ids_with_the_gpus(tmp_path, case):
    import torch

    assert not torch.cuda.is_available()  # no GPU at all here
    if case in ("fsdp", "deepspeed"):
        run = Launch(tmp_path, {**(BASE if case == "fsdp" else ds_base()), "num_processes": 64, "gpu_ids": "0"})
        assert run.torchrun.nproc_per_node == "64" and run.env["CUDA_VISIBLE_DEVICES"] == "0"
    else:
        with pytest.raises(ValueError, match="Less than two GPU ids"):  # the one check, for --multi_gpu only
            Launch(tmp_path, {**BASE, "distributed_type": "MULTI_GPU", "gpu_ids": "0"})


@pytest.mark.claim("ds-batch-size-uses-world-size")
@pytest.mark.parametrize("case", ["product-checked", "train-batch-derived", "micro-batch-derived",
                                  "accumulation-derived"])
def test_deepspeeds_batch_check_multiplies_by_the_world_size(case):
    from deepspeed.runtime.config import DeepSpeedConfig

    if case == "product-checked":
        ok = DeepSpeedConfig({"train_batch_size": 4, "train_micro_batch_size_per_gpu": 2,
                              "gradient_accumulation_steps": 2})
        assert ok.world_size == 1  # no process group here: one rank
        with pytest.raises(AssertionError, match=r"gradient_acc_step \* world_size 8 != 2 \* 2 \* 1"):
            DeepSpeedConfig({"train_batch_size": 8, "train_micro_batch_size_per_gpu": 2,
                             "gradient_accumulation_steps": 2})
    # given two of the three, DeepSpeed derives the third with the world size
    elif case == "train-batch-derived":
        c = DeepSpeedConfig({"train_micro_batch_size_per_gpu": 2, "gradient_accumulation_steps": 3})
        assert c.train_batch_size == 6
    elif case == "micro-batch-derived":
        c = DeepSpeedConfig({"train_batch_size": 12, "gradient_accumulation_steps": 3})
        assert c.train_micro_batch_size_per_gpu == 4
    else:
        c = DeepSpeedConfig({"train_batch_size": 12, "train_micro_batch_size_per_gpu": 2})
        assert c.gradient_accumulation_steps == 6


@pytest.mark.claim("launch-torchrun-per-machine")
@pytest.mark.claim("launch-address-and-port")
@pytest.mark.claim("launch-script-args-passed")
@pytest.mark.parametrize("case", [
    "torchrun-fsdp", "torchrun-deepspeed-standard", "static-rendezvous-rank",  # launch-torchrun-per-machine
    "endpoint-several-machines", "same-network-flag", "one-machine-default-port",  # launch-address-and-port
    "script-args-torchrun", "script-args-deepspeed-runner"])  # launch-script-args-passed
def test_fsdp_runs_torchrun_on_each_machine_with_its_rank(tmp_path, monkeypatch, case):
    cfg = {**BASE, "num_machines": 2, "machine_rank": 1, "main_process_ip": "10.0.0.1", "main_process_port": 1234}
    run = Launch(tmp_path, cfg)
    t = run.torchrun
    if case == "torchrun-fsdp":
        assert (t.nnodes, t.node_rank, t.rdzv_backend) == ("2", 1, "static")
    elif case == "torchrun-deepspeed-standard":
        ds = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="standard"), **MULTI})
        assert ds.args.use_deepspeed and ds.cmd is None and (ds.torchrun.nnodes, ds.torchrun.node_rank) == ("2", 1)
    elif case == "static-rendezvous-rank":
        config, _ = run.torchrun_config(monkeypatch)
        assert (config.min_nodes, config.max_nodes, config.rdzv_configs["rank"]) == (2, 2, 1)
    elif case == "endpoint-several-machines":
        assert t.rdzv_endpoint == "10.0.0.1:1234" and run.torchrun_config(monkeypatch)[0].rdzv_endpoint == (
            "10.0.0.1:1234")
    elif case == "same-network-flag":  # the --same_network flag turns the endpoint into master address and port
        flag = Launch(tmp_path, cfg, ("--same_network",)).torchrun
        assert (flag.master_addr, flag.master_port, flag.rdzv_endpoint) == ("10.0.0.1", "1234", "")
    elif case == "one-machine-default-port":  # one machine: the address is not used, the port defaults to 29500
        one = Launch(tmp_path, {**BASE, "main_process_ip": "10.0.0.1"}).torchrun
        assert (one.master_addr, one.master_port, one.rdzv_endpoint) == ("127.0.0.1", "29500", "")
    elif case == "script-args-torchrun":
        assert (t.training_script, t.training_script_args) == ("train.py", ["--lr", "1"])
        assert run.torchrun_config(monkeypatch)[1][-3:] == ["train.py", "--lr", "1"]
    else:
        ds = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="pdsh"), **MULTI})
        assert ds.cmd[-3:] == ["train.py", "--lr", "1"]


@pytest.mark.claim("launch-yaml-same-network-ignored")
@pytest.mark.parametrize("case", ["yaml-true", "yaml-false", "deepspeed-standard"])
def test_same_network_in_the_yaml_is_never_applied(tmp_path, case):
    cfg = {**BASE, "num_machines": 2, "main_process_ip": "10.0.0.1", "main_process_port": 1234}
    if case == "deepspeed-standard":
        ds = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="standard"), **cfg, "same_network": True})
        assert ds.torchrun.rdzv_endpoint == "10.0.0.1:1234"
    else:
        run = Launch(tmp_path, {**cfg, "same_network": case == "yaml-true"})
        assert run.args.same_network is False
        assert (run.torchrun.rdzv_endpoint, run.torchrun.master_addr) == ("10.0.0.1:1234", "127.0.0.1")


@pytest.mark.claim("launch-yaml-rdzv-backend-ignored")
@pytest.mark.parametrize("case", ["yaml-c10d-ignored", "flag-applied"])
def test_rdzv_backend_in_the_yaml_is_never_applied(tmp_path, case):
    cfg = {**BASE, "num_machines": 2, "main_process_ip": "10.0.0.1", "rdzv_backend": "c10d"}
    if case == "yaml-c10d-ignored":
        assert Launch(tmp_path, cfg).torchrun.rdzv_backend == "static"
    else:
        assert Launch(tmp_path, cfg, ("--rdzv_backend", "c10d")).torchrun.rdzv_backend == "c10d"


@pytest.mark.claim("torch-c10d-rendezvous")
@pytest.mark.parametrize("case", ["node-rank-ignored", "endpoint-given", "store-on-endpoint-machine",
                                  "no-endpoint-localhost"])
def test_c10d_numbers_the_nodes_and_needs_the_endpoint(tmp_path, monkeypatch, case):
    from torch.distributed.elastic.rendezvous.utils import _matches_machine_hostname, parse_rendezvous_endpoint

    cfg = {**BASE, "num_machines": 2, "machine_rank": 1, "main_process_ip": "10.0.0.1", "main_process_port": 1234}
    if case in ("node-rank-ignored", "endpoint-given"):
        config, _ = Launch(tmp_path, cfg, ("--rdzv_backend", "c10d")).torchrun_config(monkeypatch)
        if case == "node-rank-ignored":  # static passes machine_rank as "rank"; c10d assigns ranks itself
            assert "rank" not in config.rdzv_configs
        else:
            assert config.rdzv_endpoint == "10.0.0.1:1234"
    elif case == "store-on-endpoint-machine":
        # the c10d backend hosts its TCP store where the endpoint's host is this machine (is_host unset)
        assert _matches_machine_hostname(socket.gethostname()) and _matches_machine_hostname("localhost")
        assert not _matches_machine_hostname("192.0.2.1")  # another machine's address: a client only
    else:
        # with --same_network only master address/port are set, which c10d does not read: it falls back to localhost
        flag = Launch(tmp_path, cfg, ("--rdzv_backend", "c10d", "--same_network"))
        config, _ = flag.torchrun_config(monkeypatch)
        assert config.rdzv_endpoint == "" and parse_rendezvous_endpoint(config.rdzv_endpoint, 29400) == (
            "localhost", 29400)


@pytest.mark.claim("launch-busy-port")
@pytest.mark.parametrize("case", ["one-machine-standalone", "several-machines-rank0-raises",
                                  "other-ranks-unchecked"])
def test_a_busy_port_warns_on_one_machine_and_stops_rank_zero_of_several(tmp_path, case):
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        s.listen()
        port = s.getsockname()[1]
        several = {**BASE, "num_machines": 2, "main_process_ip": "10.0.0.1", "main_process_port": port}
        if case == "one-machine-standalone":
            one = Launch(tmp_path, {**BASE, "main_process_port": port}, probe_port=True)
            assert one.torchrun.standalone is True and any("already in use" in w for w in one.warnings)
            # torchrun's run() turns --standalone into a c10d rendezvous on localhost:0, a free port
            # (torch/distributed/run.py:988-1000); starting it would start the workers.
        elif case == "several-machines-rank0-raises":
            with pytest.raises(ConnectionError, match="another process"):
                Launch(tmp_path, several, probe_port=True)
        else:  # a non-zero machine rank does not probe
            run = Launch(tmp_path, {**several, "machine_rank": 1}, probe_port=True)
            assert run.torchrun.rdzv_endpoint == f"10.0.0.1:{port}"


@pytest.mark.claim("launch-gpu-ids-visible-devices")
@pytest.mark.parametrize("case", ["fsdp-launcher", "deepspeed-launcher", "all-not-exported"])
def test_gpu_ids_become_cuda_visible_devices(tmp_path, case):
    if case == "fsdp-launcher":
        assert Launch(tmp_path, {**BASE, "gpu_ids": "2,3"}).env["CUDA_VISIBLE_DEVICES"] == "2,3"
    elif case == "deepspeed-launcher":
        assert Launch(tmp_path, {**ds_base(), "gpu_ids": "2,3"}).env["CUDA_VISIBLE_DEVICES"] == "2,3"
        multi = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="pdsh"), **MULTI, "gpu_ids": "2,3"})
        assert multi.cmd is not None and multi.env["CUDA_VISIBLE_DEVICES"] == "2,3"
    else:
        for config in (BASE, ds_base()):
            assert "CUDA_VISIBLE_DEVICES" not in Launch(tmp_path, {**config, "gpu_ids": "all"}).env


@pytest.mark.claim("launch-main-training-function-tpu-only")
@pytest.mark.parametrize("case", ["fsdp", "deepspeed", "config-writes-main"])
def test_main_training_function_changes_nothing_for_gpu_launches(tmp_path, case):
    from accelerate.commands.config.config_args import ClusterConfig

    def seen(run):
        return vars(run.torchrun), run.env

    if case in ("fsdp", "deepspeed"):
        config = BASE if case == "fsdp" else ds_base()
        assert seen(Launch(tmp_path, {**config, "main_training_function": "main"})) == seen(
            Launch(tmp_path, {**config, "main_training_function": "no_such_function"}))
    else:
        written = ClusterConfig(compute_environment="LOCAL_MACHINE", distributed_type="FSDP",
                                mixed_precision="no", use_cpu=False, debug=False).to_dict()
        assert written["main_training_function"] == "main"


# ------------------------------------------------------------------ multi-node DeepSpeed
MULTI = {"num_processes": 16, "num_machines": 2, "machine_rank": 1, "main_process_ip": "10.0.0.1",
         "main_process_port": 1234}


@pytest.mark.claim("ds-multinode-runner-or-torchrun")
@pytest.mark.claim("ds-launcher-default-pdsh")
@pytest.mark.parametrize("case", ["pdsh", "openmpi", "mvapich", "mpich", "slurm", "nossh", "standard-torchrun",
                                  "one-machine-torchrun",  # ds-multinode-runner-or-torchrun
                                  "no-launcher-key"])  # ds-launcher-default-pdsh
def test_deepspeed_multinode_goes_through_the_runner_except_standard(tmp_path, case):
    if case in ("pdsh", "openmpi", "mvapich", "mpich", "slurm"):
        run = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher=case), **MULTI})
        assert run.cmd[:3] == ["deepspeed", "--hostfile", "None"]
        assert run.cmd[run.cmd.index("--launcher") + 1] == case
        assert run.cmd[-3:] == ["train.py", "--lr", "1"]
        assert "--node_rank" not in run.cmd  # the runner numbers the nodes
    elif case == "nossh":  # the runner too, with --no_ssh instead of --launcher (ds-nossh-launcher)
        run = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="nossh"), **MULTI})
        assert run.cmd[:3] == ["deepspeed", "--hostfile", "None"] and "--launcher" not in run.cmd
    elif case == "standard-torchrun":
        standard = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="standard", deepspeed_hostfile="/h",
                                               deepspeed_inclusion_filter="host1"), **MULTI})
        assert standard.cmd is None and (standard.torchrun.nnodes, standard.torchrun.node_rank) == ("2", 1)
        assert not [v for v in vars(standard.torchrun).values() if v in ("/h", "host1")]  # neither read
    elif case == "one-machine-torchrun":
        single = Launch(tmp_path, ds_base(deepspeed_multinode_launcher="pdsh", deepspeed_hostfile="/h",
                                          deepspeed_inclusion_filter="host1"))
        assert single.cmd is None and single.torchrun.nproc_per_node == "8"  # one machine: torchrun, keys unread
        assert not [v for v in vars(single.torchrun).values() if v in ("/h", "host1")]
    else:
        default = Launch(tmp_path, {**ds_base(), **MULTI})  # no deepspeed_multinode_launcher key
        assert default.args.deepspeed_multinode_launcher == "pdsh"
        assert default.cmd[default.cmd.index("--launcher") + 1] == "pdsh"


@pytest.mark.claim("ds-runner-num-gpus-and-filters")
@pytest.mark.parametrize("case", ["no-filter-num-gpus", "inclusion", "exclusion-wins", "master-addr-set",
                                  "master-addr-unset", "master-port"])
def test_runner_gets_a_gpu_count_or_one_filter(tmp_path, case):
    def cmd(multi=MULTI, **keys):
        return Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="pdsh", **keys), **multi}).cmd

    if case == "no-filter-num-gpus":
        plain = cmd()
        assert plain[plain.index("--num_gpus") + 1] == "8" and "--include" not in plain and "--exclude" not in plain
    elif case == "inclusion":
        inc = cmd(deepspeed_inclusion_filter="host1@host2:0,1")
        assert inc[inc.index("--include") + 1] == "host1@host2:0,1" and "--num_gpus" not in inc
    elif case == "exclusion-wins":
        both = cmd(deepspeed_inclusion_filter="host1", deepspeed_exclusion_filter="host2:3")
        assert both[both.index("--exclude") + 1] == "host2:3" and "--include" not in both and "--num_gpus" not in both
    elif case == "master-addr-set":
        host = cmd()
        assert host[host.index("--master_addr") + 1] == "10.0.0.1"
    elif case == "master-addr-unset":
        assert "--master_addr" not in cmd({k: v for k, v in MULTI.items() if k != "main_process_ip"})
    else:  # always, the default port when none is set
        assert cmd()[cmd().index("--master_port") + 1] == "1234"
        bare = cmd({k: v for k, v in MULTI.items() if k != "main_process_port"})
        assert bare[bare.index("--master_port") + 1] == "29500"


@pytest.mark.claim("ds-nossh-launcher")
@pytest.mark.parametrize("case", ["node-rank-and-no-ssh", "refused-below-0-14-5"])
def test_nossh_passes_the_machine_rank(tmp_path, monkeypatch, case):
    config = {**ds_base(deepspeed_multinode_launcher="nossh"), **MULTI}
    if case == "node-rank-and-no-ssh":
        run = Launch(tmp_path, config)
        assert run.cmd[:3] == ["deepspeed", "--hostfile", "None"]
        assert run.cmd[run.cmd.index("--node_rank") + 1] == "1" and "--no_ssh" in run.cmd
        assert "--launcher" not in run.cmd
    else:  # accelerate's own version test, answered as if DeepSpeed 0.14.4 were installed
        from accelerate.utils import launch as launch_mod
        from packaging.version import Version

        real = launch_mod.compare_versions
        monkeypatch.setattr(launch_mod, "compare_versions", lambda lib, op, want: real(
            Version("0.14.4") if lib == "deepspeed" else lib, op, want))
        with pytest.raises(ValueError, match=r"nossh launcher requires DeepSpeed >= 0\.14\.5"):
            Launch(tmp_path, config)


@pytest.mark.claim("ds-runner-backends")
@pytest.mark.parametrize("case", ["pdsh", "openmpi", "mpich", "mvapich", "slurm", "machine-rank-not-passed",
                                  "mpi-refuse-gpu-count-or-filter"])
def test_each_runner_backend_builds_its_own_command(tmp_path, monkeypatch, case):
    from deepspeed.launcher import multinode_runner as mr
    from deepspeed.launcher.runner import encode_world_info, parse_args

    pool = {"node1": 2, "node2": 2}
    world = encode_world_info(pool)
    active = {"node1": [0, 1], "node2": [0, 1]}
    args = parse_args(["--master_addr", "10.0.0.1", "--master_port", "1234", "train.py", "--lr", "1"])
    monkeypatch.setattr(mr, "MVAPICH_TMP_HOSTFILE", str(tmp_path / "mvapich_hosts"))  # mvapich writes one
    if case == "pdsh":
        pdsh, _, _ = mr.PDSHRunner(args, world).get_cmd({}, active)
        assert pdsh[0] == "pdsh" and "--node_rank=%n" in pdsh
    elif case in ("openmpi", "mpich", "mvapich"):
        runner = {"openmpi": mr.OpenMPIRunner, "mpich": mr.MPICHRunner, "mvapich": mr.MVAPICHRunner}[case]
        assert runner(args, world, pool).get_cmd({}, active)[0] == "mpirun"
    elif case == "slurm":
        assert mr.SlurmRunner(args, world, pool).get_cmd({}, active)[0] == "srun"
    elif case == "machine-rank-not-passed":
        for launcher in ("pdsh", "openmpi", "mvapich", "mpich", "slurm"):
            run = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher=launcher), **MULTI})
            assert "--node_rank" not in run.cmd and "1" not in run.cmd[:-3]  # machine_rank 1: nowhere before the script
    else:
        # accelerate always passes --num_gpus, --include or --exclude; the MPI runners refuse each in __init__
        for launcher, runner in (("openmpi", mr.OpenMPIRunner), ("mpich", mr.MPICHRunner), ("impi", mr.IMPIRunner),
                                 ("mvapich", mr.MVAPICHRunner)):
            for keys in ({}, {"deepspeed_inclusion_filter": "node1"}, {"deepspeed_exclusion_filter": "node2"}):
                cmd = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher=launcher, **keys), **MULTI}).cmd
                runner_args = parse_args(cmd[1:])
                with pytest.raises(ValueError, match="does not support (limiting num nodes/gpus|worker include)"):
                    runner(runner_args, world, pool)
        assert mr.SlurmRunner(parse_args(Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="slurm"),
                                                           **MULTI}).cmd[1:]), world, pool)


@pytest.mark.claim("ds-hostfile-format")
@pytest.mark.claim("ds-hostfile-missing-local-only")
@pytest.mark.parametrize("case", ["one-line-per-machine",  # ds-hostfile-format
                                  "hostfile-none-passed", "warns-local-only"])  # ds-hostfile-missing-local-only
def test_hostfile_lines_and_a_missing_hostfile(tmp_path, caplog, case):
    from deepspeed.launcher.runner import fetch_hostfile

    if case == "one-line-per-machine":
        hostfile = tmp_path / "hostfile"
        hostfile.write_text("node1 slots=8\nnode2 slots=4\n")
        assert fetch_hostfile(str(hostfile)) == {"node1": 8, "node2": 4}
    elif case == "hostfile-none-passed":
        run = Launch(tmp_path, {**ds_base(deepspeed_multinode_launcher="pdsh"), **MULTI})  # no deepspeed_hostfile
        assert run.cmd[run.cmd.index("--hostfile") + 1] == "None"
    else:
        with caplog.at_level(logging.WARNING):
            import deepspeed.utils.logging as ds_logging

            ds_logging.logger.propagate = True
            assert fetch_hostfile("None") is None  # no pool: the runner's local path (runner.py:466-474)
        assert "local resources only" in caplog.text


@pytest.mark.claim("ds-hostfile-every-host-used")
@pytest.mark.claim("ds-hostfile-bad-lines-raise")
@pytest.mark.parametrize("case", ["num-gpus-no-num-nodes", "every-host-started", "filter-replaces-num-gpus",
                                  # ds-hostfile-every-host-used
                                  "bad-line", "host-twice", "no-host", "comments-and-blanks-skipped"])
def test_the_runner_starts_every_host_of_the_hostfile(tmp_path, case):
    from deepspeed.launcher.runner import _parse_hostfile, apply_num_nodes_and_gpus, fetch_hostfile

    hostfile = tmp_path / "hostfile"
    hostfile.write_text("# three hosts, two machines in the config\nnode1 slots=8\n\nnode2 slots=8\nnode3 slots=4\n")

    def cmd(**keys):
        return Launch(tmp_path, ds_base(deepspeed_multinode_launcher="pdsh", deepspeed_hostfile=str(hostfile), **keys)
                      | {"num_processes": 8, "num_machines": 2, "main_process_ip": "10.0.0.1"}).cmd

    if case == "num-gpus-no-num-nodes":
        two = cmd()
        assert two[0] == "deepspeed" and two[two.index("--hostfile") + 1] == str(hostfile)
        assert two[two.index("--num_gpus") + 1] == "4" and "--num_nodes" not in two
    elif case == "every-host-started":  # what the runner does with it: every host, each with --num_gpus slots
        active = apply_num_nodes_and_gpus(fetch_hostfile(str(hostfile)), -1, 4)
        assert list(active) == ["node1", "node2", "node3"] and all(v == [0, 1, 2, 3] for v in active.values())
    elif case == "filter-replaces-num-gpus":
        for keys in ({"deepspeed_inclusion_filter": "node1"}, {"deepspeed_exclusion_filter": "node3"}):
            assert "--num_gpus" not in cmd(**keys)
    elif case == "comments-and-blanks-skipped":
        assert fetch_hostfile(str(hostfile)) == {"node1": 8, "node2": 8, "node3": 4}
    else:
        lines, says = {"host-twice": (["node1 slots=8", "node1 slots=8"], "multiple entries"),
                       "bad-line": (["node1"], "bad entry"), "no-host": (["# only a comment", ""], "empty")}[case]
        with pytest.raises(ValueError, match=says):
            _parse_hostfile(lines)


@pytest.mark.claim("ds-filter-syntax")
@pytest.mark.parametrize("case", ["inclusion", "exclusion"])
def test_inclusion_and_exclusion_filters(case):
    from deepspeed.launcher.runner import parse_inclusion_exclusion

    pool = {"host1": 4, "host2": 4, "host3": 4}
    if case == "inclusion":  # whole hosts and host:slots, separated by @
        assert parse_inclusion_exclusion(pool, "host1@host2:0,1", "") == {"host1": [0, 1, 2, 3], "host2": [0, 1]}
    else:
        assert parse_inclusion_exclusion(pool, "", "host3@host2:3") == {"host1": [0, 1, 2, 3], "host2": [0, 1, 2]}


@pytest.mark.claim("ds-config-file-exported")
@pytest.mark.parametrize("case", ["torchrun-path", "runner-path"])
def test_the_json_path_comes_from_the_yaml(tmp_path, case):
    if case == "torchrun-path":
        run = Launch(tmp_path, {**ds_base(deepspeed_config_file="/cfg/ds.json")})
        assert run.cmd is None and run.torchrun.training_script_args == ["--lr", "1"]
    else:
        run = Launch(tmp_path, {**ds_base(deepspeed_config_file="/cfg/ds.json", deepspeed_multinode_launcher="pdsh"),
                                **MULTI})
        assert run.cmd is not None
    assert run.env["ACCELERATE_DEEPSPEED_CONFIG_FILE"] == "/cfg/ds.json"


# ------------------------------------------------------------------ torch.compile
DYNAMO = {"dynamo_backend": "INDUCTOR", "dynamo_mode": "max-autotune", "dynamo_use_fullgraph": True,
          "dynamo_use_dynamic": False, "dynamo_use_regional_compilation": True}


def _plugin_from(env: dict[str, str], monkeypatch):
    from accelerate.utils import TorchDynamoPlugin

    for key in [k for k in os.environ if k.startswith("ACCELERATE_DYNAMO_")]:
        monkeypatch.delenv(key)
    for key, value in env.items():
        if key.startswith("ACCELERATE_DYNAMO_"):
            monkeypatch.setenv(key, value)
    return TorchDynamoPlugin()


@pytest.mark.claim("dynamo-fsdp-exported")
@pytest.mark.claim("dynamo-dynamic-false-passed")
@pytest.mark.parametrize("case", ["export-backend", "export-mode", "export-fullgraph", "export-dynamic",
                                  "export-regional",  # dynamo-fsdp-exported
                                  "dynamic-unset", "dynamic-false"])  # dynamo-dynamic-false-passed
def test_the_fsdp_launcher_exports_dynamo_config(tmp_path, monkeypatch, case):
    if case in ("dynamic-unset", "dynamic-false"):
        # the flag is exported even when the YAML leaves it out, so dynamic=False is what torch.compile gets
        given = {} if case == "dynamic-unset" else {"dynamo_use_dynamic": False}
        run = Launch(tmp_path, {**BASE, "dynamo_config": {"dynamo_backend": "INDUCTOR", **given}})
        assert run.env["ACCELERATE_DYNAMO_USE_DYNAMIC"] == "False"
        assert _plugin_from(run.env, monkeypatch).to_kwargs()["dynamic"] is False
        return
    yaml = {**DYNAMO, "dynamo_use_dynamic": True} if case == "export-dynamic" else DYNAMO
    plugin = _plugin_from(Launch(tmp_path, {**BASE, "dynamo_config": yaml}).env, monkeypatch)
    kwargs = plugin.to_kwargs()
    if case == "export-backend":
        assert plugin.backend.value == "INDUCTOR" and kwargs["backend"] == "inductor"
    elif case == "export-mode":
        assert plugin.mode == kwargs["mode"] == "max-autotune"
    elif case == "export-fullgraph":
        assert plugin.fullgraph is kwargs["fullgraph"] is True
    elif case == "export-dynamic":
        assert plugin.dynamic is kwargs["dynamic"] is True
    else:
        assert plugin.use_regional_compilation is True


@pytest.mark.claim("dynamo-not-exported-under-deepspeed")
@pytest.mark.parametrize("case", ["one-machine", "standard-multinode", "runner-multinode"])
def test_the_deepspeed_launcher_drops_dynamo_config(tmp_path, monkeypatch, case):
    config = {"one-machine": ds_base(),
              "standard-multinode": {**ds_base(deepspeed_multinode_launcher="standard"), **MULTI},
              "runner-multinode": {**ds_base(deepspeed_multinode_launcher="pdsh"), **MULTI}}[case]
    run = Launch(tmp_path, {**config, "dynamo_config": DYNAMO})
    assert not [k for k in run.env if k.startswith("ACCELERATE_DYNAMO_")]
    assert _plugin_from(run.env, monkeypatch).backend.value == "NO"


@pytest.fixture(scope="module")
def trainer_plugins(tmp_path_factory):
    """The dynamo plugin of two Trainers' Accelerators, torch_compile without and with a backend (one process)."""
    out = tmp_path_factory.mktemp("trainer_compile")
    proc = one_rank(f"""
        import os, torch
        from accelerate.state import AcceleratorState
        from transformers import Trainer, TrainingArguments
        os.environ.pop("ACCELERATE_DYNAMO_BACKEND", None)
        for given in ({{}}, {{"torch_compile_backend": "eager"}}):
            AcceleratorState._reset_state(True)
            args = TrainingArguments(output_dir={str(out)!r}, torch_compile=True, use_cpu=True, report_to=[], **given)
            plugin = Trainer(model=torch.nn.Linear(2, 2), args=args).accelerator.state.dynamo_plugin
            print("PLUGIN", plugin.backend.value, "ACCELERATE_DYNAMO_BACKEND" in os.environ)
    """)
    assert proc.returncode == 0, proc.stderr[-3000:]
    return [line for line in proc.stdout.splitlines() if line.startswith("PLUGIN ")]


@pytest.mark.claim("trainer-torch-compile-plugin")
@pytest.mark.parametrize("case", ["backend-default-inductor", "backend-set"])
def test_the_trainers_torch_compile_brings_its_own_dynamo_plugin(trainer_plugins, case):
    default, given = trainer_plugins
    if case == "backend-default-inductor":
        assert default == "PLUGIN INDUCTOR False"  # built by the Trainer, not from the launcher's environment
    else:
        assert given == "PLUGIN EAGER False"


@pytest.fixture(scope="module")
def ds_compiled():
    """One DeepSpeed rank prepared three times with a dynamo backend from the script: plain, regional, and with
    accelerate's 0.14.4 version gate answered as for DeepSpeed 0.14.3 (only that comparison)."""
    proc = one_rank("""
        import json, torch
        import accelerate.accelerator as acc_mod
        from accelerate import Accelerator
        from accelerate.state import AcceleratorState
        from accelerate.utils import DeepSpeedPlugin, InitProcessGroupKwargs, TorchDynamoPlugin
        from packaging.version import Version
        ds = {"train_micro_batch_size_per_gpu": 1, "gradient_accumulation_steps": 1, "zero_optimization": {"stage": 0}}

        class Net(torch.nn.Module):
            def __init__(self):
                super().__init__()
                self.blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(2))

            def forward(self, x):
                for block in self.blocks:
                    x = block(x)
                return x

        def prepare(**plugin):
            AcceleratorState._reset_state(True)
            dynamo = {"dynamo_plugin": TorchDynamoPlugin(backend="eager", **plugin)} if plugin else {
                "dynamo_backend": "eager"}
            acc = Accelerator(deepspeed_plugin=DeepSpeedPlugin(hf_ds_config=dict(ds)), **dynamo,
                              kwargs_handlers=[InitProcessGroupKwargs(backend="gloo")])
            model = Net()
            engine, _ = acc.prepare(model, torch.optim.SGD(model.parameters(), lr=0.1))
            return engine

        out = {}
        e = prepare()
        out["plain"] = [type(e).__name__, e.is_compiled]
        e = prepare(use_regional_compilation=True)
        out["regional"] = [e.is_compiled, [b._compiled_call_impl is not None for b in e.module.blocks]]
        real = acc_mod.compare_versions
        acc_mod.compare_versions = lambda lib, op, want: real(
            Version("0.14.3") if (lib, want) == ("deepspeed", "0.14.4") else lib, op, want)
        e = prepare()
        out["old"] = [e.is_compiled, any(b._compiled_call_impl is not None for b in e.module.blocks)]
        print("RESULT " + json.dumps(out), flush=True)
    """)
    return result_of(proc.stdout, proc.returncode, proc.stderr)


@pytest.mark.claim("dynamo-deepspeed-engine-compile")
@pytest.mark.parametrize("case", ["engine-compiled", "regional-per-block", "old-deepspeed-skipped"])
def test_accelerate_compiles_the_deepspeed_engine_when_the_script_asks(ds_compiled, case):
    if case == "engine-compiled":
        assert ds_compiled["plain"] == ["DeepSpeedEngine", True]
    elif case == "regional-per-block":  # each block's own compile(), not the engine's
        assert ds_compiled["regional"] == [False, [True, True]]
    else:  # skipped, and nothing said (the run ends cleanly)
        assert ds_compiled["old"] == [False, False]


@pytest.mark.claim("torch-compile-modes")
@pytest.mark.parametrize("mode", ["default", "reduce-overhead", "max-autotune", "max-autotune-no-cudagraphs"])
def test_what_each_compile_mode_turns_on(mode):
    from torch._inductor import list_mode_options

    options = list_mode_options(mode)
    graphs, autotune = options.get("triton.cudagraphs", False), options.get("max_autotune", False)
    assert (graphs, autotune) == {"default": (False, False), "reduce-overhead": (True, False),
                                  "max-autotune": (True, True), "max-autotune-no-cudagraphs": (False, True)}[mode]
    if mode == "default":
        assert options == {}


@pytest.mark.claim("torch-static-shapes-recompile")
@pytest.mark.parametrize("case", ["recompile-per-shape", "eager-after-limit"])
def test_static_shapes_recompile_per_length_until_the_limit(case):
    import torch
    import torch._dynamo

    torch._dynamo.reset()
    compiled = []

    def counting_backend(gm, example_inputs):
        compiled.append(tuple(example_inputs[0].shape))
        return gm.forward

    fn = torch.compile(lambda x: (x * 2).sum(), backend=counting_backend, dynamic=False)
    limit = torch._dynamo.config.recompile_limit
    assert limit == 8
    try:
        if case == "recompile-per-shape":
            for length in range(1, limit + 1):
                assert fn(torch.ones(length)).item() == 2 * length
            assert compiled == [(n,) for n in range(1, limit + 1)]  # one compile per length
        else:
            for length in range(1, limit + 5):
                assert fn(torch.ones(length)).item() == 2 * length  # still correct after the limit: eager
            assert len(compiled) == limit  # no compile after the limit
    finally:
        torch._dynamo.reset()


@pytest.mark.claim("torch-graph-break-fullgraph")
@pytest.mark.parametrize("case", ["graph-break-splits", "fullgraph-raises"])
def test_a_graph_break_falls_back_unless_fullgraph(case):
    import torch
    import torch._dynamo

    graphs = []

    def counting_backend(gm, example_inputs):
        graphs.append(gm)
        return gm.forward

    def fn(x):
        x = x + 1
        torch._dynamo.graph_break()
        return x * 2

    torch._dynamo.reset()
    try:
        if case == "graph-break-splits":  # two graphs, the break itself run eagerly between them
            assert torch.compile(fn, backend=counting_backend)(torch.ones(2)).tolist() == [4.0, 4.0]
            assert len(graphs) == 2
        else:
            with pytest.raises(Exception, match="graph_break|Graph break|graph break"):
                torch.compile(fn, backend=counting_backend, fullgraph=True)(torch.ones(2))
    finally:
        torch._dynamo.reset()


@pytest.mark.claim("dynamo-regional-compilation")
@pytest.mark.parametrize("case", ["repeated-blocks", "rest-separately", "fsdp2-variant", "deepspeed-variant"])
def test_regional_compilation_compiles_each_repeated_block(case):
    import torch
    from accelerate.utils import compile_regions
    from accelerate.utils.other import compile_regions_deepspeed, compile_regions_fsdp2
    from torch._dynamo.eval_frame import OptimizedModule

    class Net(torch.nn.Module):
        def __init__(self):
            super().__init__()
            self.blocks = torch.nn.ModuleList(torch.nn.Linear(4, 4) for _ in range(3))
            self.head = torch.nn.Linear(4, 2)

        def forward(self, x):
            for block in self.blocks:
                x = block(x)
            return self.head(x)

    if case in ("repeated-blocks", "rest-separately"):
        net = compile_regions(Net(), backend="eager")
        assert not isinstance(net, OptimizedModule)  # not the whole model at once
        if case == "repeated-blocks":
            assert all(isinstance(b, OptimizedModule) for b in net.blocks)  # each repeated block on its own
        else:
            assert isinstance(net.head, OptimizedModule)  # the rest separately
    else:  # the in-place variants (module.compile()): FSDP2's prepare and DeepSpeed's engine path use them
        net = Net()
        (compile_regions_fsdp2 if case == "fsdp2-variant" else compile_regions_deepspeed)(net, backend="eager")
        assert all(b._compiled_call_impl is not None for b in net.blocks) and net.head._compiled_call_impl is not None
        assert net._compiled_call_impl is None and not isinstance(net, OptimizedModule)
    assert net(torch.ones(1, 4)).shape == (1, 2)
