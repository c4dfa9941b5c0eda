"""Claims about how a config reaches the libraries (wizard/core/claims/config.py)."""
from __future__ import annotations

import pytest
import yaml


@pytest.mark.claim("config-sections-unchecked")
def test_the_loader_checks_only_top_level_keys(tmp_path):
    from accelerate.commands.config.config_args import ClusterConfig

    base = {"compute_environment": "LOCAL_MACHINE", "distributed_type": "FSDP", "num_processes": 2,
            "mixed_precision": "no", "fsdp_config": {"fsdp_version": 2, "zero_stage": 3, "fsdp_no_such_key": 1}}
    path = tmp_path / "c.yaml"
    path.write_text(yaml.safe_dump(base))
    loaded = ClusterConfig.from_yaml_file(str(path))  # no error for the keys inside the section
    assert loaded.fsdp_config["zero_stage"] == 3 and loaded.fsdp_config["fsdp_no_such_key"] == 1
    path.write_text(yaml.safe_dump({**base, "zero_stage": 3}))  # the same key at the top level is refused
    with pytest.raises(ValueError, match="unknown keys"):
        ClusterConfig.from_yaml_file(str(path))
