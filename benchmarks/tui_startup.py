"""Time to first paint of the interactive wizard, whole process, as a user starts it, side by side with a
bare Textual app that paints the same words.

Each run starts ``fsdpds-wizard`` (no arguments) in a pseudo-terminal of 80x24, reads what it writes
and stops the clock when the first frame is on it: the last words that frame paints (MARKER, the findings
pane's count of warnings on the screen's last row but one); a second clock stops when the screen is complete
(COMPLETE: the footer's keys, which the wizard mounts after its first frame, with the full check). Then ctrl+q quits
it. The bare app is five lines of Textual (one ``Static`` holding the
text of the wizard's first screen, captured once in-process), started the same way with the same
interpreter; the two are interleaved (alternating which goes first) so both see the same load.
Goals: the wizard's median is within 1.15x the bare app's (issue #26; 1.3x in issue #7), and <= 0.5 s (issue #3).

A second probe runs the app in-process, headless, and lists which of torch / accelerate / deepspeed
were imported (goal: none).

    .venv/bin/python benchmarks/tui_startup.py [--runs N] [--json benchmarks/results/tui_startup.json]
"""
from __future__ import annotations

import argparse
import fcntl
import json
import os
import platform
import pty
import select
import signal
import statistics
import struct
import subprocess
import sys
import tempfile
import termios
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
MARKER = b"0 warnings"
"""The last words of the first frame, on its last row with text (the findings pane's border): the frame is painted
top to bottom. (The sidebar's last entry, "Review and write", the marker until the sidebar grew, scrolls out of the
80x24 screen now.)"""
COMPLETE = b"palette"
"""The footer's last key, the last part of the screen the wizard paints (after its first frame)."""
GOAL_S = 0.5
GOAL_RATIO = 1.15
HEAVY = ("torch", "accelerate", "deepspeed")


def cpu_seconds(pid: int) -> float:
    """User + system CPU time the process has used so far (Linux /proc), or NaN elsewhere."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
        return (int(fields[11]) + int(fields[12])) / os.sysconf("SC_CLK_TCK")
    except (OSError, IndexError, ValueError):
        return float("nan")


def first_paint(argv: list[str], cwd: str, env: dict, timeout: float = 20.0) -> tuple[float, float, float]:
    """(wall seconds, CPU seconds) from spawning the process until MARKER is on its terminal, and the wall seconds
    until COMPLETE is.

    The CPU time says how much work the start is, whatever else the machine is doing."""
    master, slave = pty.openpty()
    fcntl.ioctl(slave, termios.TIOCSWINSZ, struct.pack("HHHH", 24, 80, 0, 0))
    t0 = time.perf_counter()
    proc = subprocess.Popen(argv, cwd=cwd, env=env, stdin=slave, stdout=slave, stderr=slave,
                            start_new_session=True, close_fds=True)
    os.close(slave)
    seen = b""
    elapsed = complete = None
    try:
        while time.perf_counter() - t0 < timeout:
            ready, _, _ = select.select([master], [], [], 0.05)
            if not ready:
                if proc.poll() is not None:
                    break
                continue
            try:
                chunk = os.read(master, 65536)
            except OSError:
                break
            seen += chunk
            if elapsed is None and MARKER in seen:
                elapsed = time.perf_counter() - t0
                cpu = cpu_seconds(proc.pid)
            if COMPLETE in seen:
                complete = time.perf_counter() - t0
                break
        if elapsed is None or complete is None:
            raise SystemExit(f"no first paint within {timeout}s; output tail: {seen[-400:]!r}")
        os.write(master, b"\x11")  # ctrl+q
        end = time.perf_counter() + 5
        while proc.poll() is None and time.perf_counter() < end:
            if select.select([master], [], [], 0.05)[0]:
                try:
                    os.read(master, 65536)
                except OSError:
                    break
    finally:
        if proc.poll() is None:
            os.killpg(proc.pid, signal.SIGTERM)
            proc.wait(5)
        os.close(master)
    return elapsed, cpu, complete


IMPORT_PROBE = """
import asyncio, json, sys
from wizard.tui.app import create_app
async def go():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.2)
        await pilot.press("ctrl+r")
        await pilot.pause(0.2)
asyncio.run(go())
print(json.dumps([m for m in HEAVY if m in sys.modules]))
"""


WORDS_PROBE = """
import asyncio, io, sys
from rich.console import Console
from wizard.tui.app import create_app
async def go():
    app = create_app()
    async with app.run_test(size=(80, 24)) as pilot:
        await pilot.pause(0.3)
        console = Console(width=80, height=24, file=io.StringIO(), record=True, legacy_windows=False,
                          color_system=None)
        console.print(app.screen._compositor.render_update(full=True))
        sys.stdout.write(console.export_text())
asyncio.run(go())
"""

BARE_APP = """import sys
from textual.app import App
from textual.widgets import Static
class Bare(App):
    def compose(self): yield Static(open(sys.argv[1], encoding="utf-8").read())
Bare().run()
"""


def first_screen_words(cwd: str, env: dict) -> str:
    """The text of the wizard's first screen at 80x24 (what the bare app paints)."""
    proc = subprocess.run([sys.executable, "-c", WORDS_PROBE], cwd=cwd, env=env, capture_output=True, text=True,
                          timeout=120)
    if proc.returncode != 0 or MARKER.decode() not in proc.stdout or COMPLETE.decode() not in proc.stdout:
        raise SystemExit(f"words probe failed: {proc.stderr[-800:]}")
    return proc.stdout


def heavy_imports(cwd: str, env: dict) -> list[str]:
    src = IMPORT_PROBE.replace("HEAVY", repr(HEAVY))
    proc = subprocess.run([sys.executable, "-c", src], cwd=cwd, env=env, capture_output=True, text=True, timeout=120)
    if proc.returncode != 0:
        raise SystemExit(f"import probe failed: {proc.stderr[-800:]}")
    return json.loads(proc.stdout.strip().splitlines()[-1])


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--runs", type=int, default=15)
    ap.add_argument("--json", default=str(ROOT / "benchmarks" / "results" / "tui_startup.json"))
    args = ap.parse_args()
    env = dict(os.environ, TERM="xterm-256color", COLUMNS="80", LINES="24", PYTHONPATH=str(ROOT))
    env.pop("TEXTUAL", None)
    # As installed, the wizard's modules are compiled once (pip writes their .pyc files); with PYTHONDONTWRITEBYTECODE
    # set (some shells and CI images set it) every run would compile the wizard from source while Textual's
    # installed .pyc files load as they are: the warm-up run below writes them, as a user's first start does.
    env.pop("PYTHONDONTWRITEBYTECODE", None)
    work = tempfile.mkdtemp(prefix="fsdpds_tui_bench_")
    words = Path(work, "words.txt")
    words.write_text(first_screen_words(work, env), encoding="utf-8")
    bare_py = Path(work, "bare_app.py")
    bare_py.write_text(BARE_APP, encoding="utf-8")
    ours_argv = [str(BIN / "fsdpds-wizard")]
    bare_argv = [sys.executable, str(bare_py), str(words)]
    first_paint(ours_argv, work, env)  # warm the page cache
    first_paint(bare_argv, work, env)
    ours, bare = [], []
    for i in range(args.runs):
        order = [(ours_argv, ours), (bare_argv, bare)]
        for argv, into in (order if i % 2 == 0 else order[::-1]):
            into.append(first_paint(argv, work, env))
    med = statistics.median(w for w, _, _ in ours)
    bare_med = statistics.median(w for w, _, _ in bare)
    ratio = med / bare_med
    pair_ratio = statistics.median(o[0] / b[0] for o, b in zip(ours, bare, strict=True))
    cpu_med = statistics.median(c for _, c, _ in ours)
    bare_cpu_med = statistics.median(c for _, c, _ in bare)
    complete_med = statistics.median(d for _, _, d in ours)
    bare_complete_med = statistics.median(d for _, _, d in bare)
    complete_ratio = complete_med / bare_complete_med
    heavy = heavy_imports(work, env)
    goals = {f"first paint median <= {GOAL_RATIO}x the bare Textual app's": ratio <= GOAL_RATIO,
             f"first paint median <= {GOAL_S * 1000:.0f} ms": med <= GOAL_S,
             "no torch/accelerate/deepspeed imported": heavy == []}
    samples = [w for w, _, _ in ours]
    bare_samples = [w for w, _, _ in bare]
    print(f"first paint (whole process, 80x24 pty), {args.runs} interleaved runs each:")
    print(f"  fsdpds-wizard   median {med * 1000:.0f} ms (min {min(samples) * 1000:.0f}, "
          f"max {max(samples) * 1000:.0f}); "
          f"CPU to first paint {cpu_med * 1000:.0f} ms; complete screen (footer) {complete_med * 1000:.0f} ms")
    print(f"  bare Textual    median {bare_med * 1000:.0f} ms (min {min(bare_samples) * 1000:.0f}, "
          f"max {max(bare_samples) * 1000:.0f}); CPU to first paint {bare_cpu_med * 1000:.0f} ms; "
          f"complete screen {bare_complete_med * 1000:.0f} ms")
    print(f"  ratio of medians {ratio:.2f}x, median of paired ratios {pair_ratio:.2f}x, complete screens "
          f"{complete_ratio:.2f}x; load average {os.getloadavg()[0]:.1f} on {os.cpu_count()} CPUs")
    print(f"heavy modules imported by the TUI: {heavy or 'none'}")
    for goal, ok in goals.items():
        print(f"{'PASS' if ok else 'FAIL'}: {goal}")
    result = {
        "runs": args.runs, "python": platform.python_version(), "machine": platform.machine(),
        "cpus": os.cpu_count(), "marker": MARKER.decode(), "complete_marker": COMPLETE.decode(),
        "first_paint_ms": {"median": round(med * 1000, 1), "min": round(min(samples) * 1000, 1),
                           "max": round(max(samples) * 1000, 1)},
        "bare_textual_first_paint_ms": {"median": round(bare_med * 1000, 1),
                                        "min": round(min(bare_samples) * 1000, 1),
                                        "max": round(max(bare_samples) * 1000, 1)},
        "ratio_of_medians": round(ratio, 3), "median_paired_ratio": round(pair_ratio, 3),
        "cpu_to_first_paint_ms": {"median": round(cpu_med * 1000, 1), "bare_median": round(bare_cpu_med * 1000, 1)},
        "complete_screen_ms": {"median": round(complete_med * 1000, 1),
                               "bare_median": round(bare_complete_med * 1000, 1),
                               "ratio_of_medians": round(complete_ratio, 3)},
        "load_average_1min": round(os.getloadavg()[0], 2),
        "heavy_imports": heavy, "goals": goals, "when": time.strftime("%Y-%m-%dT%H:%M:%S"),
    }
    Path(args.json).parent.mkdir(parents=True, exist_ok=True)
    Path(args.json).write_text(json.dumps(result, indent=2) + "\n")
    return 0 if all(goals.values()) else 1


if __name__ == "__main__":
    sys.exit(main())
