"""The wizard tried as a new user would: started in tmux, driven with send-keys, read back with capture-pane.

The run follows the issue's "done when": a DeepSpeed ZeRO-3 config with CPU offload, then the
equivalent FSDP2 one, both written, with the keyboard alone. Each step waits until the expected text
is on the screen (or gone from it) before the next key that depends on it, so a loaded machine makes the
run slower, never wrong; every screen is saved as text. Exit 0 when every step saw its text and the files
on disk say what was asked. The tmux server is this process's own (its socket name carries the pid), so
two runs on one machine never touch each other's sessions.

    .venv/bin/python benchmarks/tui_tmux.py [--size 80x24] [--save DIR] [--keep]
"""
from __future__ import annotations

import argparse
import json
import os
import shutil
import subprocess
import sys
import tempfile
import time
from pathlib import Path

ROOT = Path(__file__).resolve().parents[1]
BIN = Path(sys.executable).parent
SOCKET = f"fsdpds-wizard-try-{os.getpid()}"
WAIT_S = 60.0
"""How long a step may wait for its text: a bound for a wizard that hangs, not a measure (a step takes well under a
second at rest)."""


class Tmux:
    def __init__(self, session: str, save: Path | None) -> None:
        self.session = session
        self.save = save
        self.step = 0

    def run(self, *args: str) -> str:
        proc = subprocess.run(["tmux", "-L", SOCKET, *args], capture_output=True, text=True, timeout=30)
        if proc.returncode != 0:
            raise RuntimeError(f"tmux {' '.join(args)}: {proc.stderr.strip()}")
        return proc.stdout

    def screen(self) -> str:
        return self.run("capture-pane", "-t", self.session, "-p")

    def keys(self, *keys: str, pause: float = 0.15) -> None:
        for key in keys:
            self.run("send-keys", "-t", self.session, key)
            # a lone Escape followed too soon by another key reads as Alt+key: give it room
            time.sleep(0.6 if key == "Escape" else pause)

    def wait_gone(self, text: str, timeout: float = WAIT_S, label: str = "") -> str:
        """Wait until ``text`` is no longer on the screen (a menu closed, a screen left)."""
        end = time.monotonic() + timeout
        screen = self.screen()
        while text in screen:
            if time.monotonic() > end:
                raise AssertionError(f"after step {self.step} ({label}): {text!r} still on screen after {timeout}s:"
                                     f"\n{screen}")
            time.sleep(0.1)
            screen = self.screen()
        return screen

    def wait_for(self, *texts: str, timeout: float = WAIT_S, label: str = "") -> str:
        end = time.monotonic() + timeout
        screen = ""
        while time.monotonic() < end:
            screen = self.screen()
            if all(t in screen for t in texts):
                self.step += 1
                if self.save is not None:
                    name = f"{self.step:02d}-{label or texts[0]}".replace(" ", "_").replace("/", "_")[:60]
                    (self.save / f"{name}.txt").write_text(screen, encoding="utf-8")
                return screen
            time.sleep(0.1)
        raise AssertionError(f"step {self.step + 1} ({label}): {texts} not on screen after {timeout}s:\n{screen}")


MENU_CPU = "▊cpu — CPU RAM"
"""An offload menu's CPU entry: on the screen only while that menu is open."""
BACKEND_FIELD = "Backend  (backend)"
"""The explanation's heading while the Backend field has the focus."""
REVIEW_FOOTER = "esc Back"
MAIN_FOOTER = "^n Issues"


def try_wizard(size: tuple[int, int], work: Path, save: Path | None) -> dict:
    """Drive one session; return what was checked."""
    width, height = size
    session = f"wiz{width}x{height}"
    t = Tmux(session, save)
    subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)
    command = f"cd {work} && {BIN / 'fsdpds-wizard'}; echo WIZARD_EXIT=$?; sleep 30"
    t.run("new-session", "-d", "-s", session, "-x", str(width), "-y", str(height), command)
    try:
        t0 = time.monotonic()
        t.wait_for("Groups", "Findings", label="first screen")  # at 80x24 "Review and write" is below the list's fold
        first_screen_s = time.monotonic() - t0
        # 1. Backend: Enter goes into the form; Enter opens the choice; Down picks deepspeed. As a person would, it
        # waits for the form's field to take the focus (its explanation shows) before the next key: Textual moves the
        # focus after the key is handled, so a key typed ahead while the first full check runs reached the list.
        t.keys("Enter")
        t.wait_for(BACKEND_FIELD, label="backend field")
        t.keys("Enter")
        t.wait_for("deepspeed — DeepSpeed ZeRO", label="backend menu")
        t.keys("Down", "Enter")
        t.wait_for("Switched FSDP2 → DeepSpeed", "Carried over", label="switch report to DeepSpeed")
        t.keys("Enter")
        t.wait_for("DeepSpeed ZeRO-3", label="deepspeed zero3")
        # 2. Offload: optimizer and parameters to CPU, each menu waited for before its keys.
        t.keys("C-g", "Down", "Down", "Down", "Down", "Enter")  # past Launch basics, Sharding, Parallelism
        t.wait_for("Offload optimizer state to", label="offload group")
        for field in ("optimizer", "parameters"):
            t.keys("Enter")
            t.wait_for(MENU_CPU, label=f"{field} menu")
            t.keys("Down", "Enter")
            t.wait_gone(MENU_CPU, label=f"{field} menu closed")
            if field == "optimizer":
                t.keys("Tab")
        # the optimizer field's notes may push it above the fold at 80x24: both values are checked in the written
        # config below
        t.wait_for("cpu — CPU RAM", label="offload cpu")
        # 3. Review and write.
        t.keys("C-r")
        t.wait_for("Review", "accelerate launch", "configs-deepspeed", label="review deepspeed")
        t.keys("C-s")
        t.wait_for("✔ Wrote", label="wrote deepspeed")
        t.keys("Escape")
        t.wait_gone(REVIEW_FOOTER, label="back from review")
        t.wait_for(MAIN_FOOTER, label="main screen")
        # 4. The same intent on FSDP2 (the FSDP version is already 2).
        t.keys("C-g", "Home", "Enter")
        t.wait_for(BACKEND_FIELD, label="backend field again")
        t.keys("Enter")
        t.wait_for("▊fsdp — PyTorch FSDP", label="backend menu again")
        t.keys("Up", "Enter")
        report = t.wait_for("Switched DeepSpeed → FSDP2", label="switch report to FSDP2")
        assert "fsdp_offload_params: true" in report, report
        t.keys("Enter")
        t.wait_for("FSDP2 full shard", label="fsdp2")
        t.keys("F1")
        t.wait_for("Keys (Escape closes)", "ctrl+r", label="help")
        t.keys("Escape")
        t.wait_gone("Keys (Escape closes)", label="help closed")
        t.keys("C-r")
        t.wait_for("Review", "configs-fsdp2", label="review fsdp2")
        t.keys("C-s")
        t.wait_for("✔ Wrote", label="wrote fsdp2")
        t.keys("Escape")
        t.wait_gone(REVIEW_FOOTER, label="back from review")
        t.wait_for(MAIN_FOOTER, label="main screen")
        t.keys("C-q")
        t.wait_for("WIZARD_EXIT=0", label="quit")
    finally:
        subprocess.run(["tmux", "-L", SOCKET, "kill-session", "-t", session], capture_output=True)
    ds = (work / "configs-deepspeed" / "accelerate_config.yaml").read_text()
    fsdp = (work / "configs-fsdp2" / "accelerate_config.yaml").read_text()
    checks = {
        "deepspeed config": "distributed_type: DEEPSPEED" in ds and "zero_stage: 3" in ds
        and "offload_optimizer_device: cpu" in ds and "offload_param_device: cpu" in ds,
        "fsdp2 config": "distributed_type: FSDP" in fsdp and "fsdp_version: 2" in fsdp
        and "fsdp_offload_params: true" in fsdp and "fsdp_reshard_after_forward: true" in fsdp,
    }
    return {"size": f"{width}x{height}", "steps": t.step, "first_screen_s": round(first_screen_s, 2),
            "checks": checks}


def main() -> int:
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--size", action="append", help="WIDTHxHEIGHT (default: 80x24 and 160x50)")
    ap.add_argument("--save", help="folder for the captured screens (text)")
    ap.add_argument("--keep", action="store_true", help="keep the working folder")
    args = ap.parse_args()
    if shutil.which("tmux") is None:
        print("tmux is not installed", file=sys.stderr)
        return 2
    sizes = [tuple(int(v) for v in s.split("x")) for s in (args.size or ["80x24", "160x50"])]
    results = []
    ok = True
    for size in sizes:
        work = Path(tempfile.mkdtemp(prefix="fsdpds_tmux_"))
        save = None
        if args.save:
            save = Path(args.save) / f"{size[0]}x{size[1]}"
            save.mkdir(parents=True, exist_ok=True)
        try:
            result = try_wizard(size, work, save)
        except AssertionError as exc:
            print(f"FAIL {size[0]}x{size[1]}: {exc}")
            ok = False
            continue
        finally:
            if not args.keep:
                shutil.rmtree(work, ignore_errors=True)
        results.append(result)
        ok = ok and all(result["checks"].values())
        print(json.dumps(result))
    print("PASS" if ok else "FAIL")
    return 0 if ok else 1


if __name__ == "__main__":
    sys.exit(main())
