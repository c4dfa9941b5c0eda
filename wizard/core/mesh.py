"""Which ranks form each group of accelerate's device mesh (pure; claim accelerate-mesh-rank-order).

accelerate builds the mesh from the parallelism sizes above 1, in :data:`~wizard.core.library.launcher.MESH_ORDER`,
with torch's ``init_device_mesh``: ranks fill it row-major, the last dimension (tp) varying fastest."""
from __future__ import annotations

from itertools import product

from .library.launcher import MESH_ORDER


def mesh_dims(sizes: dict[str, int]) -> list[tuple[str, int]]:
    """The active dimensions (size above 1) in accelerate's order."""
    return [(d, sizes[d]) for d in MESH_ORDER if sizes.get(d, 1) > 1]


def mesh_groups(sizes: dict[str, int]) -> dict[str, list[tuple[int, ...]]]:
    """Per active dimension, its process groups: the ranks that differ only along that dimension, each group in
    rank order, the groups ordered by their first rank."""
    dims = mesh_dims(sizes)
    shape = [n for _, n in dims]
    strides = [1] * len(shape)
    for i in range(len(shape) - 2, -1, -1):
        strides[i] = strides[i + 1] * shape[i + 1]
    out: dict[str, list[tuple[int, ...]]] = {}
    for axis, (name, size) in enumerate(dims):
        others = [range(n) if i != axis else range(1) for i, n in enumerate(shape)]
        groups = []
        for index in product(*others):
            base = sum(k * s for k, s in zip(index, strides, strict=True))
            groups.append(tuple(base + j * strides[axis] for j in range(size)))
        out[name] = sorted(groups)
    return out


def groups_text(groups: list[tuple[int, ...]], limit: int = 4) -> str:
    """``[0,1] [2,3] ... (8 groups)``: the first ``limit`` groups."""
    shown = " ".join("[" + ",".join(map(str, g)) + "]" for g in groups[:limit])
    return shown + (f" ... ({len(groups)} groups)" if len(groups) > limit else "")


def spans_machines(group: tuple[int, ...], per_machine: int) -> bool:
    """Whether a group's ranks sit on more than one machine (ranks are numbered machine by machine)."""
    return len({r // per_machine for r in group}) > 1
