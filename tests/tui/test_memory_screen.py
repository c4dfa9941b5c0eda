"""The memory bar on the main screen and the Memory screen (F3): what they say, against the estimate itself."""
from __future__ import annotations

import re

import pytest
from helpers import focused_on, main_of, press
from helpers import main_ready as ready

from wizard.cli import main as cli_main
from wizard.core.answers import default_answers
from wizard.core.memory.estimate import GIB, estimate
from wizard.core.memory.report import LABELS
from wizard.core.memory.shapes import shape_by_name
from wizard.tui.app import create_app
from wizard.tui.shared.explain import explain_group
from wizard.tui.shared.session import MEMORY_FIELDS, MemoryContext, Start, memory_fields
from wizard.tui.widgets.memory_bar import MemoryBar

ZERO3 = {"backend": "deepspeed", "sharding.strategy": "full"}


def context(model="llama-3.1-8b", gpu="80", **more) -> MemoryContext:
    memory, errors = memory_fields({"model": model, "gpu_memory": gpu, **more})
    assert errors == {}
    return memory


def bar_of(app) -> str:
    return main_of(app).query_one(MemoryBar).plain


def bar_gib(app) -> tuple[float, float]:
    m = re.search(r"GPU ([\d.]+) of ([\d.]+) GiB", bar_of(app))
    assert m, bar_of(app)
    return float(m.group(1)), float(m.group(2))


@pytest.mark.asyncio
async def test_bar_without_model_says_how_to_set_one(in_tmp):
    app = create_app(Start(default_answers()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        text = bar_of(app)
        assert "no model given" in text and "set a model: F3" in text
        assert main_of(app).query_one(MemoryBar).estimate is None


@pytest.mark.asyncio
async def test_bar_equals_the_estimate_and_follows_sharding_and_offload(in_tmp):
    app = create_app(Start(default_answers().replace(ZERO3)), memory=context())
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        main = main_of(app)
        shape = shape_by_name("llama-3.1-8b")

        def expected() -> float:
            return round(estimate(main.answers, shape=shape, gpu_memory_gib=80).per_rank.gpu_bytes / GIB, 1)

        used, capacity = bar_gib(app)
        assert (used, capacity) == (expected(), 80.0)
        assert main.query_one(MemoryBar).estimate.per_rank.gpu_bytes == \
            estimate(main.answers, shape=shape, gpu_memory_gib=80).per_rank.gpu_bytes
        zero3 = used
        main.set_answers(main.answers.replace({"sharding.strategy": "grads_optimizer"}))  # ZeRO-2: parameters whole
        await pilot.pause()
        zero2 = bar_gib(app)[0]
        assert zero2 == expected() and zero2 > zero3
        main.set_answers(main.answers.replace({"offload.optimizer": "cpu"}))
        await pilot.pause()
        offloaded = bar_gib(app)[0]
        assert offloaded == expected() and offloaded < zero2


@pytest.mark.asyncio
async def test_bar_follows_the_form(in_tmp):
    """Through the form, as a user does it: offloading DeepSpeed's optimizer to the CPU shrinks the bar at once."""
    app = create_app(Start(default_answers().replace(ZERO3)), memory=context())
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        before = bar_gib(app)[0]
        await focused_on(pilot, "offload.optimizer")
        await press(pilot, "enter", "down", "enter")
        main = main_of(app)
        assert main.answers["offload.optimizer"] == "cpu"
        after = bar_gib(app)[0]
        e = estimate(main.answers, shape=shape_by_name("llama-3.1-8b"), gpu_memory_gib=80)
        assert after == round(e.per_rank.gpu_bytes / GIB, 1) and after < before


@pytest.mark.asyncio
async def test_bar_says_when_it_does_not_fit(in_tmp):
    app = create_app(Start(default_answers().replace({"sharding.strategy": "none"})), memory=context(gpu="24"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        used, capacity = bar_gib(app)
        assert used > capacity == 24.0
        bar = main_of(app).query_one(MemoryBar)
        short = bar.fit.short_by_bytes / GIB  # with 10% of the 24 GiB kept free
        assert round(short, 1) == round(used - 0.9 * capacity, 1)
        assert re.search(rf"short (by )?{short:.1f}, 10% kept", bar_of(app)), bar_of(app)


@pytest.mark.asyncio
async def test_memory_screen_sets_the_bar_and_shows_the_breakdown(in_tmp):
    app = create_app(Start(default_answers().replace(ZERO3)))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        assert type(screen).__name__ == "MemoryScreen"
        screen.query_one("#mem-shape").value = "gpt2-xl"
        await pilot.pause()
        screen.query_one("#mem-model").focus()
        await press(pilot, "f3")  # F3 on the Memory screen does not open a second one
        assert type(app.screen).__name__ == "MemoryScreen"
        screen.query_one("#mem-gpu_memory").focus()
        await press(pilot, "4", "0")
        assert app.memory.gpu_memory_gib == 40.0 and app.memory.shape.name == "gpt2-xl"
        e = estimate(main_of(app).answers, shape=shape_by_name("gpt2-xl"), gpu_memory_gib=40)
        assert bar_gib(app) == (round(e.per_rank.gpu_bytes / GIB, 1), 40.0)
        text = _plain(screen.query_one("#mem-report").content)
        for key in ("parameters", "optimizer_states", "gathered", "activations", "overhead", "model_load"):
            assert LABELS[key] in text
        assert f"{e.per_rank.gpu_bytes / GIB:.2f}" in text
        ds = e.deepspeed_estimator
        assert ds is not None and f"{ds['gpu_bytes'] / GIB:.2f}" in text and f"{ds['cpu_bytes'] / GIB:.2f}" in text
        assert "bytes per parameter (Adam)" in text
        await press(pilot, "escape")
        assert app.screen is main_of(app)


def _plain(renderable) -> str:
    from rich.console import Console

    console = Console(width=200, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(renderable)
    return console.export_text()


@pytest.mark.asyncio
async def test_bad_input_names_the_field(in_tmp):
    app = create_app(Start(default_answers()), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        gpu = screen.query_one("#mem-gpu_memory")
        gpu.focus()
        await press(pilot, "end", "x")  # "80x"
        error = screen.query_one("#mem-gpu_memory-error")
        assert str(error.content).startswith(MEMORY_FIELDS["gpu_memory"] + ":")
        assert error.has_class("-shown")
        assert "GPU size not given" in bar_of(app)  # the field is left out, the model still counts
        screen.query_one("#mem-shape").value = "other"
        model = screen.query_one("#mem-model")
        model.focus()
        await press(pilot, *"lama-3.1-8b")
        message = str(screen.query_one("#mem-model-error").content)
        assert message.startswith("Model:") and "llama-3.1-8b" in message  # did you mean
        seq = screen.query_one("#mem-seq")
        seq.value = "0"
        await pilot.pause()
        assert str(screen.query_one("#mem-seq-error").content).startswith("Sequence length:")
        assert "no model given" in bar_of(app)
        seq.value = ""
        model.value = "8B"
        gpu.value = "80"
        await pilot.pause()
        assert not screen.query_one("#mem-seq-error").has_class("-shown")
        assert app.memory.params == 8_000_000_000 and app.memory.shape is None
        assert bar_gib(app)[1] == 80.0


@pytest.mark.asyncio
async def test_a_count_takes_its_largest_layer_and_the_gathered_units_follow(in_tmp):
    """With a bare parameter count the largest layer is a field of its own: the gathered units follow it; a value
    above the count, or next to a shipped shape (which has its own), is refused under the field."""
    app = create_app(Start(default_answers().replace(ZERO3)), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        screen.query_one("#mem-shape").value = "other"
        screen.query_one("#mem-model").value = "8B"
        await pilot.pause()
        without = estimate(main_of(app).answers, params=8_000_000_000, gpu_memory_gib=80)
        layer = screen.query_one("#mem-largest_layer")
        layer.value = "500M"
        await pilot.pause()
        assert app.memory.largest_layer_params == 500_000_000
        e = estimate(main_of(app).answers, params=8_000_000_000, largest_layer_params=500_000_000, gpu_memory_gib=80)
        assert e.per_rank.breakdown["gathered"] == without.per_rank.breakdown["gathered"] + 500_000_000 * 2  # bf16
        assert bar_gib(app) == (round(e.per_rank.gpu_bytes / GIB, 1), 80.0)
        layer.value = "9B"
        await pilot.pause()
        error = screen.query_one("#mem-largest_layer-error")
        assert error.has_class("-shown") and "more than the model's" in str(error.content)
        assert app.memory.largest_layer_params is None
        screen.query_one("#mem-shape").value = "gpt2"
        layer.value = "500M"
        await pilot.pause()
        assert "shape gives its largest layer" in str(screen.query_one("#mem-largest_layer-error").content)


@pytest.mark.asyncio
async def test_suggest_needs_the_gpu_memory(in_tmp):
    app = create_app(Start(default_answers()), memory=context(gpu=""))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f4")
        note = str(app.screen.query_one("#mem-suggest-note").content)
        assert note.startswith(MEMORY_FIELDS["gpu_memory"] + ":")


@pytest.mark.asyncio
async def test_suggest_applies_a_candidate_and_the_bar_fits(in_tmp):
    # 8 GPUs of 40 GiB, a Llama 8B that does not fit replicated
    answers = default_answers().replace({"sharding.strategy": "none", "launch.num_processes": 8,
                                         "launch.script": "train.py"})
    app = create_app(Start(answers), memory=context(gpu="40"))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        assert "short" in bar_of(app) and main_of(app).query_one(MemoryBar).fit.fits is False
        await press(pilot, "f3", "f4")
        screen = app.screen
        rec = screen.recommendation
        assert rec is not None and rec.chosen is not None
        options = screen.query_one("#mem-candidates")
        assert options.option_count == len(rec.candidates)
        first = str(options.get_option_at_index(options.highlighted).prompt)
        assert rec.chosen.label in first and f"{rec.chosen.estimate.per_rank.gpu_bytes / GIB:.1f} GiB" in first
        await press(pilot, "enter")
        for _ in range(20):  # a change of target shows the switch report: close it
            if type(app.screen).__name__ != "SwitchReportScreen":
                break
            await press(pilot, "escape")
        main = main_of(app)
        assert app.screen is main
        assert main.answers["launch.script"] == "train.py"  # kept: the candidate decides no launch settings
        assert main.answers["launch.num_processes"] == 8
        assert main_of(app).query_one(MemoryBar).fit.fits is True
        assert bar_of(app).splitlines()[-1].startswith(("fits", "✔")) and "short" not in bar_of(app)


def test_precision_group_shows_bytes_per_parameter_for_both_backends():
    """bf16 weights without mixed precision on 2 processes: FSDP keeps 4 bytes per parameter per GPU, DeepSpeed 8."""
    from rich.console import Console

    answers = default_answers().replace({"precision.mixed_precision": "no", "precision.model_dtype": "bf16",
                                         "launch.num_processes": 2})
    console = Console(width=60, record=True, file=open("/dev/null", "w"))  # noqa: SIM115
    console.print(explain_group("precision", answers, 60))
    lines = {line.split()[0].lstrip("▶"): line.split()[-4:] for line in console.export_text().splitlines()
             if line.strip().lstrip("▶ ").startswith(("FSDP2 full", "DeepSpeed ZeRO-3"))}
    assert lines == {"FSDP2": ["2", "2", "4", "4"], "DeepSpeed": ["2", "2", "12", "8"]}


def test_cli_memory_options(in_tmp, capsys):
    assert cli_main(["--model", "no-such-model"]) == 2
    assert "--model" in capsys.readouterr().err
    assert cli_main(["--gpu-memory", "0"]) == 2
    assert "--gpu-memory" in capsys.readouterr().err
    assert cli_main(["--model", "gpt2", "presets"]) == 2
    assert "--model" in capsys.readouterr().err
    assert cli_main(["--headless", "fsdp2-full-shard-bf16", "--out", "x", "--seq", "8"]) == 2
    assert "--seq" in capsys.readouterr().err


@pytest.mark.asyncio
async def test_a_huge_number_is_refused_under_its_field_and_the_wizard_stays(in_tmp, capsys):
    """Issue 21: 1e300 typed as the GPU memory ended the wizard with OverflowError (unwritten answers lost). Now the
    field says what the command line says for --gpu-memory 1e300, and the bar asks for the size."""
    assert cli_main(["estimate", "zero2", "--model", "llama-3.1-8b", "--gpu-memory", "1e300"]) == 2
    said = capsys.readouterr().err.removeprefix("fsdpds-wizard: --gpu-memory ").strip()
    app = create_app(Start(default_answers()), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        gpu = screen.query_one("#mem-gpu_memory")
        gpu.value = ""
        gpu.focus()
        await press(pilot, *"1e300")
        assert app.is_running and type(app.screen).__name__ == "MemoryScreen"
        error = screen.query_one("#mem-gpu_memory-error")
        assert error.has_class("-shown")
        assert str(error.content) == f"{MEMORY_FIELDS['gpu_memory']}: {said}"
        assert "too large" in said and app.memory.gpu_memory_gib is None
        assert "GPU size not given" in bar_of(app)
        for name, text in (("seq", "100000000000"), ("batch", "1e12"), ("host_memory", "inf")):
            field = screen.query_one(f"#mem-{name}")
            field.value = text
            await pilot.pause()
            assert "too large" in str(screen.query_one(f"#mem-{name}-error").content)
        screen.query_one("#mem-shape").value = "other"
        screen.query_one("#mem-model").value = "1e30"
        await pilot.pause()
        assert str(screen.query_one("#mem-model-error").content).startswith("Model: 1e30: too large; give the "
                                                                            "parameter count")
        assert app.is_running


def test_the_start_flags_take_the_same_bounds():
    """The wizard's --gpu-memory and --seq: refused at the command line with the words of the field."""
    from types import SimpleNamespace

    from wizard.tui.shared.session import StartError, memory_from_args

    with pytest.raises(StartError, match=r"^--gpu-memory 1e\+300: too large; give the memory of one GPU in GiB"):
        memory_from_args(SimpleNamespace(tui_model=None, tui_gpu_memory=1e300, tui_seq=None))


@pytest.mark.asyncio
async def test_suggest_ranks_for_the_gpus_and_machines_typed(in_tmp):
    """Issue 21: the Memory screen had no GPU count, and Suggest silently ranked for the answers' 2 processes. Its
    GPUs per machine and machines fields (recommend's --gpus-per-node and --nodes) decide what Suggest ranks for,
    the note says so, and each suggestion shows its host memory next to its GPU memory."""
    app = create_app(Start(default_answers()), memory=context(gpu="40"))  # the answers: 2 processes on 1 machine
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        assert screen.query_one("#mem-gpus_per_node").placeholder == "(empty: the answers', 2)"
        assert screen.query_one("#mem-machines").placeholder == "(empty: the answers', 1)"
        await press(pilot, "f4")
        assert {c.answers["launch.num_processes"] for c in screen.recommendation.candidates} == {2}
        assert str(screen.query_one("#mem-suggest-note").content).startswith("Ranked for 2 GPUs per machine x 1 "
                                                                             "machine.\n")
        screen.query_one("#mem-gpus_per_node").value = "8"
        screen.query_one("#mem-machines").value = "2"
        await pilot.pause()
        assert (app.memory.gpus_per_node, app.memory.machines) == (8, 2)
        await press(pilot, "f4")
        rec = screen.recommendation
        assert {(c.answers["launch.num_processes"], c.answers["launch.num_machines"]) for c in rec.candidates} == \
            {(16, 2)}
        from wizard.core.memory.recommend import recommend

        expected = recommend(shape=shape_by_name("llama-3.1-8b"), gpus_per_node=8, nodes=2, gpu_memory_gib=40,
                             base=main_of(app).answers)
        assert [c.label for c in rec.candidates] == [c.label for c in expected.candidates]
        note = str(screen.query_one("#mem-suggest-note").content)
        assert note.startswith("Ranked for 8 GPUs per machine x 2 machines (the answers: 2 processes on 1 machine; "
                               "applying one sets launch.num_processes 16 and launch.num_machines 2).\n")
        options = screen.query_one("#mem-candidates")
        first = str(options.get_option_at_index(0).prompt)
        c = rec.candidates[0]
        assert f"{c.estimate.per_rank.gpu_bytes / GIB:.1f} GiB per rank, {c.estimate.host_bytes / GIB:.1f} GiB host" \
            in first
        screen.query_one("#mem-machines").value = "0"
        await pilot.pause()
        error = str(screen.query_one("#mem-machines-error").content)
        assert error.startswith("Machines (Suggest): 0: too small; give the number of machines (nodes), from 1")


@pytest.mark.asyncio
async def test_placeholders_do_not_look_like_values(in_tmp):
    """Issue 21: the placeholders `80 (GiB of one GPU)` and `2048` read as values typed, then the report asked for
    the GPU memory. Each placeholder now says, in parentheses, what an empty field means, and none is a number."""
    app = create_app(Start(default_answers()))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await press(pilot, "f3")
        screen = app.screen
        for name in ("model", "largest_layer", "gpu_memory", "seq", "batch", "host_memory", "gpus_per_node",
                     "machines"):
            field = screen.query_one(f"#mem-{name}")
            hint = field.placeholder
            if name == "model":
                continue  # the model's text field says what to type there (a path or a count), next to the selector
            assert hint.startswith("(empty") or hint.startswith("(with"), (name, hint)
            assert hint.endswith(")") and memory_fields({name: hint})[1], (name, hint)  # typed, it is refused
        assert screen.query_one("#mem-gpu_memory").placeholder == "(empty: not set; type the GiB of one GPU, e.g. 80)"
        screen.query_one("#mem-shape").value = "llama-3.1-8b"
        await pilot.pause()
        text = _plain(screen.query_one("#mem-report").content)
        assert "GPU memory per GPU (GiB) is empty: type the GiB of one GPU above to see whether it fits" in text


@pytest.mark.asyncio
async def test_help_lists_the_memory_screens_keys(in_tmp):
    """Issue 21: F1 left out F4 (Suggest) and Enter (applies the highlighted suggestion)."""
    from wizard.tui.screens.help import HelpScreen

    app = create_app(Start(default_answers()))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f1")
        assert isinstance(app.screen, HelpScreen)
        text = _plain(app.screen.query_one("#help-table").content)
        memory = text[text.index("Memory (F3)"):].split("\n\n")[0]
        assert re.search(r"f4\s+Suggest: rank configs", memory), memory
        assert re.search(r"enter\s+Suggestions: apply the highlighted config", memory), memory
        assert re.search(r"escape\s+Back to the settings", memory), memory


@pytest.mark.asyncio
async def test_suggest_says_the_imported_file_has_errors(in_tmp):
    """After importing a DeepSpeed JSON with fp16 and bf16 both on (`recommend --base` refuses it), F4 Suggest
    still ranks the imported answers, and says the file they came from has errors."""
    import json

    from wizard.tui.shared.session import from_accelerate_config

    path = in_tmp / "both.json"
    path.write_text(json.dumps({"fp16": {"enabled": True}, "bf16": {"enabled": True},
                                "train_micro_batch_size_per_gpu": 2, "zero_optimization": {"stage": 2}}))
    app = create_app(from_accelerate_config(path), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f4")
        note = str(app.screen.query_one("#mem-suggest-note").content)
        assert "The imported both.json has 1 error(s) (fp16.enabled;" in note
        assert "recommend --base` refuses it" in note


@pytest.mark.asyncio
async def test_suggest_after_a_clean_import_says_nothing_of_errors(in_tmp):
    import json

    from wizard.tui.shared.session import from_accelerate_config

    path = in_tmp / "bf16.json"
    path.write_text(json.dumps({"bf16": {"enabled": True}, "train_micro_batch_size_per_gpu": 2,
                                "zero_optimization": {"stage": 2}}))
    app = create_app(from_accelerate_config(path), memory=context())
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f4")
        note = str(app.screen.query_one("#mem-suggest-note").content)
        assert "Best: " in note and "error(s)" not in note


@pytest.mark.asyncio
async def test_the_highlighted_suggestion_stays_in_view_at_80x24(in_tmp):
    """N3: at 80x24 a candidate takes several rows and the list sat below the form in the screen's scroll, so Down
    moved the highlight to a candidate off screen, and Enter applied a config whose name was never visible. The
    whole highlighted candidate is kept within the visible region."""
    answers = default_answers().replace({"sharding.strategy": "none", "launch.num_processes": 8})
    app = create_app(Start(answers), memory=context(gpu="40"))
    async with app.run_test(size=(80, 24)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f4")
        screen = app.screen
        options = screen.query_one("#mem-candidates")
        assert options.option_count > 4
        scroll = screen.query_one("#mem-scroll")
        # Down x3 and on, past the last one, then back up to the first
        keys = [None] + ["down"] * options.option_count + ["up"] * options.option_count
        for step, key in enumerate(keys):
            if key:
                await press(pilot, key)
            await pilot.pause(0.2)
            await pilot.wait_for_scheduled_animations()
            assert app.focused is options
            line_of = options._lines  # the rendered rows of every option: (option index, row in it)
            rows = [i for i, (index, _) in enumerate(line_of) if index == options.highlighted]
            top = options.content_region.y - int(options.scroll_y)
            shown = options.content_region.intersection(scroll.content_region)
            first, last = top + rows[0], top + rows[-1]
            assert shown.y <= first and last < shown.y + shown.height, (step, options.highlighted, first, last,
                                                                         shown)


@pytest.mark.asyncio
async def test_suggest_for_a_long_sequence_applies_context_parallelism_to_the_answers(in_tmp):
    """131072 tokens of Llama 8B on 8 GPUs of 80 GiB: only a context (or sequence) parallel candidate fits; applying it
    sets the Parallelism group's answer, listed among the changes."""
    answers = default_answers().replace({"launch.num_processes": 8, "launch.script": "train.py"})
    app = create_app(Start(answers), memory=context(seq="131072"))
    async with app.run_test(size=(100, 40)) as pilot:
        await ready(pilot)
        await press(pilot, "f3", "f4")
        rec = app.screen.recommendation
        assert rec is not None and rec.chosen is not None and dict(rec.chosen.parallelism)
        await press(pilot, "enter")
        for _ in range(20):  # a change of target shows the switch report: close it
            if type(app.screen).__name__ != "SwitchReportScreen":
                break
            await press(pilot, "escape")
        notes = " ".join(n.message for n in app._notifications)
        assert f"Applied {rec.chosen.label}" in notes
        dim, n = next((k.removeprefix("parallelism_config_"), v) for k, v in rec.chosen.parallelism
                      if k.endswith(("cp_size", "sp_size")))
        assert app.main.answers[f"parallelism.{dim}"] == n
        assert f"parallelism.{dim} 1 → {n}" in notes
