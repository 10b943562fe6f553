"""Package layout: one import namespace, `harness`, over the repository's pipeline folders.

The repository keeps the user's top-level folders (adapters/, question_gen/, oracles/, metrics/, suites/,
whitebox/), and each installs as a subpackage of `harness` (adapters/ -> harness.adapters, ...). So
`harness` is the only top-level import name the distribution provides, and nothing shadows AdapterHub's
`adapters` or another distribution's `metrics` or `whitebox`. Everything else is in pyproject.toml.

Why a setup.py: setuptools' `package-dir` maps a folder to a dotted name, but `packages.find` cannot
prefix what it finds; listing the subpackages here means one added later is installed (wheel and
editable alike) without editing a list. tests/test_packaging.py builds the wheel and checks the result.
"""

from setuptools import find_packages, setup

#: import name -> folder in the repository
PACKAGE_DIRS = {
    "harness": "harness",
    "harness.adapters": "adapters",
    "harness.question_gen": "question_gen",
    "harness.oracles": "oracles",
    "harness.metrics": "metrics",
    "harness.suites": "suites",
    "harness.whitebox": "whitebox",
}


def _packages() -> list[str]:
    names: list[str] = []
    for name, folder in PACKAGE_DIRS.items():
        names.append(name)
        names += [f"{name}.{sub}" for sub in find_packages(folder) if f"{name}.{sub}" not in PACKAGE_DIRS]
    return names


setup(package_dir=PACKAGE_DIRS, packages=_packages())
