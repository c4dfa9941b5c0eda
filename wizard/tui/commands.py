"""Command-palette providers beyond the system commands: every setting, by id, title and native key names."""
from __future__ import annotations

import re
from dataclasses import dataclass
from functools import lru_cache

from textual.command import Hit, Hits, Provider

_EXTRA_KEYWORDS = {
    "launch.dynamo_backend": "compile torch.compile dynamo inductor",
    "launch.dynamo_mode": "compile torch.compile max-autotune reduce-overhead",
    "launch.dynamo_fullgraph": "compile torch.compile graph break",
    "launch.dynamo_dynamic": "compile torch.compile",
    "launch.dynamo_regional": "compile torch.compile",
    "launch.num_processes": "gpus world size nproc",
    "launch.num_machines": "nodes multi-node",
    "sharding.strategy": "zero stage FULL_SHARD SHARD_GRAD_OP NO_SHARD HYBRID_SHARD hpz reshard_after_forward",
    "offload.optimizer": "cpu offload DeepSpeedCPUAdam",
    "offload.params": "cpu offload",
    "offload.nvme_path": "zero-infinity nvme",
    "loading.ram_efficient": "zero.Init cpu_ram_efficient_loading meta device",
    "checkpoint.format": "state dict save 16bit FULL_STATE_DICT SHARDED_STATE_DICT",
    "wrapping.policy": "auto wrap TRANSFORMER_BASED_WRAP SIZE_BASED_WRAP",
    "training.activation_checkpointing": "gradient checkpointing recompute",
    "training.gradient_clipping": "max norm clip_grad_norm_",
    "training.micro_batch_size": "batch size per gpu",
    "precision.mixed_precision": "bf16 fp16 fp8 amp dtype",
    "precision.fp8_backend": "fp8 float8 torchao transformer engine te ms-amp msamp recipe",
    "precision.model_dtype": "torch_dtype bf16 fp16 fp32",
}
"""Words people search for that are neither in a setting's title nor in its key names."""


@dataclass(frozen=True)
class SettingEntry:
    setting_id: str
    title: str
    keys: str
    """The native key names (accelerate YAML, DeepSpeed JSON) for every target, space separated."""
    extra: str


@lru_cache(maxsize=1)
def setting_entries() -> tuple[SettingEntry, ...]:
    """Built on the first search, not at start-up."""
    from ..core.catalog import SETTINGS

    entries = []
    for s in SETTINGS:
        names: list[str] = []
        for writes in s.writes.values():  # the catalogue's keys, as data: the dotted path and its last name
            for w in writes:
                for name in (w.key, w.key.rsplit(".", 1)[-1]):
                    if name not in names:
                        names.append(name)
        for text in s.where_text.values():  # names the words mention (torch_dtype, the inline NVMe keys, ...)
            for name in re.findall(r"[A-Za-z_][A-Za-z0-9_.*]*[A-Za-z0-9_]", text):
                if ("_" in name or "." in name) and name not in names:
                    names.append(name)
        entries.append(SettingEntry(s.id, s.label, " ".join(names), _EXTRA_KEYWORDS.get(s.id, "")))
    return tuple(entries)


def score(entry: SettingEntry, query: str) -> float:
    """0 (no match) to 1: every word of the query must occur in the title, the id or the key names."""
    words = query.lower().split()
    if not words:
        return 0.0
    fields = ((entry.title.lower(), 1.0), (entry.setting_id.lower(), 0.9), (entry.keys.lower(), 0.8),
              (entry.extra.lower(), 0.7))
    best = 0.0
    everything = " ".join(f for f, _ in fields)
    if not all(w in everything for w in words):
        return 0.0
    for text, weight in fields:
        if all(w in text for w in words):
            best = max(best, weight)
    return best or 0.6


def search_settings(query: str) -> list[tuple[float, SettingEntry]]:
    hits = [(score(e, query), e) for e in setting_entries()]
    return sorted(((s, e) for s, e in hits if s > 0), key=lambda h: -h[0])


class SettingsProvider(Provider):
    """Go to any setting of the form: "dynamo" or "torch.compile" finds the compile settings."""

    def _jump(self, setting_id: str):
        async def go() -> None:
            from .screens.main import MainScreen

            app = self.app
            while not isinstance(app.screen, MainScreen) and len(app.screen_stack) > 1:
                app.pop_screen()
            main = next(s for s in app.screen_stack if isinstance(s, MainScreen))
            await main.jump_to(setting_id)

        return go

    @staticmethod
    def _display(entry: SettingEntry) -> str:
        return f"Setting: {entry.title} ({entry.setting_id})"

    async def search(self, query: str) -> Hits:
        matcher = self.matcher(query)
        for value, entry in search_settings(query):
            text = self._display(entry)
            yield Hit(value, matcher.highlight(text), self._jump(entry.setting_id), text=text,
                      help=entry.keys or None)

    async def discover(self) -> Hits:
        return
        yield  # settings are found by searching, not listed on an empty palette
