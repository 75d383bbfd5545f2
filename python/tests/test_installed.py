"""The wheel as .ci/run installs it: the package from site-packages, typed,
and the `ptc` binary in the environment's scripts folder."""

from __future__ import annotations

import os
import subprocess
import sys
import sysconfig
from importlib import metadata
from pathlib import Path

import pytest

import ptc

installed = pytest.mark.skipif(
    not os.environ.get("PTC_TEST_INSTALLED"), reason="checks an installed wheel (.ci/run sets PTC_TEST_INSTALLED)"
)


@installed
def test_the_wheel_installs_the_typed_package_and_the_binary() -> None:
    package = Path(ptc.__file__).parent
    assert package.parent == Path(sysconfig.get_path("purelib")), package
    assert (package / "py.typed").is_file()
    binary = Path(ptc.find_binary())
    assert binary.parent == Path(sysconfig.get_path("scripts")), binary
    version = subprocess.run([binary, "--version"], capture_output=True, text=True, check=True, timeout=60)
    assert version.stdout == f"ptc {ptc.__version__}\n"


@installed
def test_the_distribution_is_ptc_runtime_and_python_m_ptc_runs_the_binary() -> None:
    # PyPI's `ptc` is another project: the distribution is `ptc-runtime`,
    # the import and the binary stay `ptc`; Monty's worker is the extra
    # `python`, not a dependency of TypeScript-only users.
    dist = metadata.distribution("ptc-runtime")
    assert dist.version == ptc.__version__
    requires = dist.requires or []
    assert [r for r in requires if "extra ==" not in r] == [], requires
    monty = [r.replace('"', "'") for r in requires if r.startswith("pydantic-monty-runtime==1.4.0")]
    assert len(monty) == 1 and "extra == 'python'" in monty[0], requires
    version = subprocess.run(
        [sys.executable, "-m", "ptc", "--version"], capture_output=True, text=True, check=True, timeout=60
    )
    assert version.stdout == f"ptc {ptc.__version__}\n"


@installed
def test_the_wheels_binary_runs_python_programs_with_its_own_worker(tmp_path: Path) -> None:
    # The wheel is built with the cargo feature `python` (docs/contracts.md
    # 6.1); its extra `python` is Monty's worker, which pip puts beside the
    # `ptc` script: found there with no `monty` on PATH.
    (tmp_path / "prog.py").write_text("import asyncio\nn = len(await tools.list_dir(path='.'))\nf'{6 * 7} {n}'\n")
    run = subprocess.run(
        [ptc.find_binary(), "run", "prog.py"],
        cwd=tmp_path,
        capture_output=True,
        text=True,
        timeout=60,
        env={**os.environ, "PATH": "/usr/bin:/bin"},
    )
    assert run.returncode == 0, run.stdout + run.stderr
    assert run.stdout == "42 1\n", run.stdout
