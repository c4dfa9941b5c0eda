"""Which ranks form each group of accelerate's device mesh (pure; claim accelerate-mesh-rank-order).

accelerate builds the mesh from the parallelism sizes above 1, in :data:`~wizard.core.library.launcher.MESH_ORDER`,
with torch's ``init_device_mesh``: ranks fill it row-major, the last dimension (tp) varying fastest."""
from __future__ import annotations

from itertools import product

from .i18n import cells, said
from .library.launcher import MESH_ORDER

TYPE_CHECKING = False  # typing.TYPE_CHECKING without importing typing at start (issue 26)
if TYPE_CHECKING:
    from collections.abc import Callable


def mesh_dims(sizes: dict[str, int]) -> list[tuple[str, int]]:
    """The active dimensions (size above 1) in accelerate's order."""
    return [(d, sizes[d]) for d in MESH_ORDER if sizes.get(d, 1) > 1]


def mesh_text(dims) -> str:
    """``dp_shard 4 x tp 2``: (dimension, size) pairs, or a {dimension: size} mapping, in their order."""
    pairs = dims.items() if hasattr(dims, "items") else dims
    return " x ".join(f"{d} {n}" for d, n in pairs)


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


def groups_sentence(name: str, groups: list[tuple[int, ...]], limit: int = 4) -> str:
    """``tp groups: [0,1] [2,3] [4,5] [6,7] ... (8 groups)``: a dimension's first ``limit`` groups and, when not all
    are shown, how many there are, as a said(...) sentence (the finding parallelism-mesh-layout lists one per
    dimension, and its translation translates each)."""
    shown = " ".join("[" + ",".join(map(str, g)) + "]" for g in groups[:limit])
    if len(groups) > limit:
        return said(f"{name} groups: {shown} ... ({len(groups)} groups)")
    return said(f"{name} groups: {shown}")


def spans_machines(group: tuple[int, ...], per_machine: int) -> bool:
    """Whether a group's ranks sit on more than one machine (ranks are numbered machine by machine)."""
    return len({r // per_machine for r in group}) > 1


def mesh_picture(sizes: dict[str, int], per_machine: int = 0, limit: int = 16, machine: str = "machine",
                 say: Callable[[str], str] | None = None) -> list[str]:
    """A small text picture of the mesh: for each of the first ``limit`` ranks, its machine (when ``per_machine``
    is given; the row labelled ``machine``, the word in the language where the picture is drawn in one) and its
    index along each active dimension, then each dimension's groups (:func:`groups_sentence`, as many as fit 78
    cells). [] when no dimension is above 1. The heading, the note on ranks left out and the groups' lines are
    said(...) sentences, each put through ``say`` (their translation, where the picture is drawn in another
    language) before the groups' lines are fitted. For example dp_shard 2 x tp 2::

        rank      0 1 2 3
        dp_shard  0 0 1 1
        tp        0 1 0 1
        tp groups: [0,1] [2,3]
    """
    dims = mesh_dims(sizes)
    if not dims:
        return []
    total = 1
    for _, n in dims:
        total *= n
    shown = list(range(min(total, limit)))
    cell = len(str(shown[-1])) + 1
    label = max(cells.width(machine), *(len(d) for d, _ in dims)) + 2
    rows = [("rank", shown)]
    if per_machine:
        rows.append((machine, [r // per_machine for r in shown]))
    stride = total
    for name, n in dims:
        stride //= n
        rows.append((name, [(r // stride) % n for r in shown]))
    if say is None:
        say = str
    lines = [say(said(f"Mesh: {mesh_text(dims)} = {total} ranks (the last varies fastest)"))]
    lines += [cells.ljust(name, label) + "".join(f"{v:>{cell}}" for v in values) for name, values in rows]
    if total > limit:
        lines.append(say(said(f"(ranks {limit} to {total - 1} follow the same pattern)")))
    for name, groups in mesh_groups(sizes).items():
        # as many groups as fit in 78 cells (at least one)
        text = next((t for n in (4, 3, 2) if cells.width(t := say(groups_sentence(name, groups, n))) <= 78),
                    say(groups_sentence(name, groups, 1)))
        lines.append(text)
    return lines
