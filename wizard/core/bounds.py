"""The bounds of every number the wizard takes, and the one wording for a number outside them (issue 21).

One table, :data:`NUMBERS`, for the numbers typed on the command line (``estimate``, ``recommend``, ``check``,
``explain``, the wizard's ``--gpu-memory`` and ``--seq``) and in the TUI's Memory screen, and the upper bounds of the
catalogue's integer settings (``MAX_PROCESSES`` and the others, which the answers' validation reads). Each bound is far
above any real value, so nothing legitimate is refused, while a typo (``1e300``, a 2,770-digit number) is refused in
words before it reaches the arithmetic (where ``int(1e300 * 2**30)`` raised OverflowError and ended the TUI).

The message is the same wherever the number was typed, only the name in front differs (the flag on the command
line, the field's label in the TUI):

    --gpu-memory 1e300: too large; give the memory of one GPU in GiB, above 0 and at most 16,384 (e.g. 80)

Ground floor: imports nothing of the wizard but its ``record`` classes (core/recordclass.py).
"""
from __future__ import annotations

import math

from .recordclass import record

# Upper bounds of the integer settings (answers validation, the JSON schema, docs/answers.md, the TUI's field errors).
# Each is far above any real value, so nothing legitimate is refused, and a typo (or a 2,770-digit number) is.
MAX_PROCESSES = 2**20
"""1,048,576 processes: more than the largest training clusters have GPUs."""
MAX_MACHINES = 2**16
"""65,536 machines (nodes)."""
MAX_COUNT = 10**12
"""Element / parameter counts (bucket sizes, thresholds, wrap sizes): a trillion, more than any model has."""
MAX_STEPS = 100_000
"""Gradient accumulation steps."""
MAX_BATCH = 1_000_000
"""Samples in one micro-batch per GPU."""
MAX_CLIP = 1_000_000.0
"""A max grad norm above this never clips in practice: 0 is how clipping is turned off."""

MAX_PARAMS = 10**15
"""A model's parameter count for the memory estimate: a thousand trillion, far above any model."""
MAX_SEQ = 2**27
"""134,217,728 tokens in one sequence: longer than any model's context window."""
MAX_GPU_GIB = 2**14
"""16,384 GiB of memory on one GPU (today's largest have a few hundred)."""
MAX_HOST_GIB = 2**20
"""1,048,576 GiB (1 PiB) of CPU memory on one machine."""
MIN_WIDTH, MAX_WIDTH = 50, 1000
"""``explain --width``: the text's width in columns."""

COUNT_SUFFIX = {"k": 10 ** 3, "m": 10 ** 6, "b": 10 ** 9, "g": 10 ** 9, "t": 10 ** 12}
"""A parameter count may end in one of these (``8B``, ``350M``)."""

INT, FLOAT, COUNT = "int", "float", "count"

RANGES = {
    "above_below": "above {low} and below {high}",
    "above_at_most": "above {low} and at most {high}",
    "up_to": "from {low} up to (not including) {high}",
    "from_to": "from {low} to {high}",
}
"""The wordings of a bound's range (:meth:`Bound.range_form` picks one); translated in the part ``screen-cli``."""
PROBLEMS = ("not a number", "too large", "too small", "not a whole number")
"""What can be wrong with a number (:class:`NumberError`'s ``problem``)."""


@record(frozen=True)
class Bound:
    """What one number is, and its range."""

    what: str
    """``the memory of one GPU in GiB``: what to give, in the message."""
    kind: str
    """:data:`INT` (a whole number), :data:`FLOAT`, or :data:`COUNT` (a whole number also written 8e9, 8B, 350M)."""
    minimum: float
    maximum: float
    above: bool = False
    """The minimum itself is refused (``above 0``)."""
    below: bool = False
    """The maximum itself is refused (``up to, not including, 1``)."""
    example: str = ""

    def range_form(self) -> str:
        """Which of :data:`RANGES` says this bound's range."""
        if self.above:
            return "above_below" if self.below else "above_at_most"
        return "up_to" if self.below else "from_to"

    def limits(self) -> tuple[str, str]:
        """The minimum and the maximum as the message writes them (``0``, ``16,384``)."""
        return _number(self.minimum), _number(self.maximum)

    def range_text(self) -> str:
        low, high = self.limits()
        text = RANGES[self.range_form()].format(low=low, high=high)
        return text + (f" ({self.example})" if self.example else "")

    def wanted(self) -> str:
        """What to give, with the range: the part of the message after the problem."""
        return f"give {self.what}, {self.range_text()}"


_COUNT_EXAMPLE = "8030261248, 8e9, 8B or 350M"
NUMBERS: dict[str, Bound] = {
    # the model and the run, for the memory estimate (estimate, recommend, the Memory screen)
    "params": Bound("the parameter count", COUNT, 1, MAX_PARAMS, example=_COUNT_EXAMPLE),
    "largest_layer": Bound("the parameters of the largest layer", COUNT, 0, MAX_PARAMS, example="500M, 1e9"),
    "gpu_memory": Bound("the memory of one GPU in GiB", FLOAT, 0, MAX_GPU_GIB, above=True, example="e.g. 80"),
    "host_memory": Bound("the CPU memory of one machine in GiB", FLOAT, 0, MAX_HOST_GIB, above=True,
                         example="e.g. 512"),
    "headroom": Bound("the fraction of GPU memory to keep free", FLOAT, 0, 1, below=True, example="e.g. 0.1"),
    "seq": Bound("the sequence length in tokens", INT, 1, MAX_SEQ, example="e.g. 2048"),
    "batch": Bound("the micro batch per GPU in samples", INT, 1, MAX_BATCH),
    "gpus_per_node": Bound("the GPUs (processes) on each machine", INT, 1, MAX_PROCESSES, example="e.g. 8"),
    "nodes": Bound("the number of machines (nodes)", INT, 1, MAX_MACHINES),
    "num_processes": Bound("the processes (GPUs) in total", INT, 1, MAX_PROCESSES),
    "gradient_accumulation_steps": Bound("the gradient accumulation steps", INT, 1, MAX_STEPS),
    # the text
    "width": Bound("the text width in columns", INT, MIN_WIDTH, MAX_WIDTH),
}
"""Every number the wizard takes outside an answers file, by name (the answers' own are the catalogue's settings,
with the same maximums)."""


class NumberError(ValueError):
    """A number that cannot be used: ``str()`` is the message without who typed it (``1e300: too large; give ...``);
    :meth:`said_by` puts the flag or the field in front."""

    def __init__(self, name: str, shown: str, problem: str):
        self.name, self.shown, self.problem = name, shown, problem
        super().__init__(f"{shown}: {problem}; {NUMBERS[name].wanted()}")

    def said_by(self, who: str) -> str:
        """``--gpu-memory 1e300: ...`` for a flag, ``GPU memory per GPU (GiB): 1e300: ...`` for a field's label."""
        return f"{who} {self}" if who.startswith("-") else f"{who}: {self}"


def _number(x: float) -> str:
    return f"{int(x):,}" if float(x).is_integer() else f"{x:g}"


def shown(value: object) -> str:
    """A value as typed, never hundreds of characters long."""
    text = value if isinstance(value, str) else repr(value)
    text = text.strip()
    return text if len(text) <= 24 else f"{text[:12]}... ({len(text):,} characters)"


def _float(text: str) -> float | None:
    try:
        return float(text)
    except ValueError:
        return None


def count_value(text: str) -> float | None:
    """A count as people write it (``8_000_000_000``, ``8e9``, ``1.5b``, ``350M``), as a float; None if not one."""
    t = text.strip().replace("_", "").replace(",", "").lower()
    mult = 1
    if t and t[-1] in COUNT_SUFFIX:
        t, mult = t[:-1], COUNT_SUFFIX[t[-1]]
    value = _float(t)
    return None if value is None else value * mult


def check(name: str, value: float, typed: object = None) -> int | float:
    """``value`` if it lies in the bound of ``name`` (an int for :data:`INT` and :data:`COUNT`), else
    :class:`NumberError`. ``typed``: the text to name in the message (default: the value)."""
    b = NUMBERS[name]
    seen = shown(value if typed is None else typed)
    if isinstance(value, bool) or not isinstance(value, (int, float)):
        raise NumberError(name, seen, "not a number")
    if isinstance(value, float) and math.isnan(value):
        raise NumberError(name, seen, "not a number")
    if value > b.maximum or (b.below and value >= b.maximum):
        raise NumberError(name, seen, "too large")
    if value < b.minimum or (b.above and value <= b.minimum):
        raise NumberError(name, seen, "too small")
    if b.kind == FLOAT:
        return float(value)
    if value != int(value):
        raise NumberError(name, seen, "not a whole number")
    return int(value)


def parse(name: str, text: str) -> int | float:
    """The number typed for ``name``, in its bound; :class:`NumberError` with the one message otherwise."""
    b = NUMBERS[name]
    t = text.strip()
    if b.kind == COUNT:
        value: float | int | None = count_value(t)
    elif b.kind == INT:
        try:
            value = int(t.replace("_", "")) if t.lstrip("+-").replace("_", "").isdigit() else _float(t)
        except ValueError:  # more digits than Python turns into a number: surely too large (or small)
            raise NumberError(name, shown(t), "too small" if t.startswith("-") else "too large") from None
    else:
        value = _float(t)
    if value is None:
        raise NumberError(name, shown(t), "not a number")
    return check(name, value, t)


__all__ = ["Bound", "COUNT", "FLOAT", "INT", "MAX_BATCH", "MAX_CLIP", "MAX_COUNT", "MAX_GPU_GIB", "MAX_HOST_GIB",
           "MAX_MACHINES", "MAX_PARAMS", "MAX_PROCESSES", "MAX_SEQ", "MAX_STEPS", "NUMBERS", "NumberError", "PROBLEMS",
           "RANGES", "check", "count_value", "parse", "shown"]
