#!/usr/bin/env python
"""Print one line per disagreement between `fsdpds-wizard check` and the replayed labels.

    python tests/data/real_corpus/_compare.py [CASE...]

Each line: case, loop, the label's verdict (+ stage/error), check's error rules and keys, and what disagrees.
"""

from __future__ import annotations

import sys
import tempfile
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent))
import _corpus as rc  # noqa: E402


def main(argv=None):
    names = set(argv if argv is not None else sys.argv[1:])
    cases = rc.load_cases()
    n = bad = 0
    for name, case in cases.items():
        if names and name not in names:
            continue
        for loop, extra in rc.runs(case):
            n += 1
            with tempfile.TemporaryDirectory(prefix="rcc-") as tmp:
                code, out, err = rc.run_check(case, Path(tmp), extra)
            probs, findings = rc.contract_problems(code, out)
            probs += rc.judge(case, loop, findings) if not probs else []
            if not probs:
                continue
            bad += 1
            lab = case["labels"][loop]
            verdict = {True: "accepted", False: "rejected", None: "unknown"}[lab["accepted"]]
            if lab["accepted"] is False:
                verdict += f" [{lab['stage']}: {lab['error'][:100]}]"
            dead = [d["key"] for d in case.get("dead_values") or []]
            errs = [f"{f['rule']}{f['keys']}" for f in findings if f.get("severity") == "error"]
            print(f"{name} | {loop} | label {verdict}" + (f" dead={dead}" if dead else "")
                  + f" | check errors: {errs or 'none'} | " + " / ".join(probs))
    print(f"{n} runs, {bad} disagree")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
