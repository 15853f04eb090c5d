"""``deploy/``: the container image is multi-stage, pinned, non-root and built on a base given as an argument (the
build itself is ``nox -s image``, run by ``.ci/run``); the systemd units pass ``systemd-analyze verify``; the lock
file pins every runtime dependency; the examples name real settings."""

from __future__ import annotations

import re
import shutil
import subprocess
import sys
import tomllib
from importlib import metadata
from pathlib import Path

import pytest
from packaging.requirements import Requirement
from packaging.utils import canonicalize_name

from hub_app.cli import command_line

ROOT = Path(__file__).resolve().parent.parent
DEPLOY = ROOT / "deploy"


def instructions(dockerfile: Path) -> list[tuple[str, str]]:
    """``(INSTRUCTION, arguments)`` of a Dockerfile, continuation lines joined, comments dropped."""
    joined = re.sub(r"\\\n", " ", dockerfile.read_text(encoding="utf-8"))
    result = []
    for line in joined.splitlines():
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            word, _, rest = stripped.partition(" ")
            result.append((word.upper(), rest.strip()))
    return result


def test_dockerfile_is_multistage_pinned_and_unprivileged() -> None:
    """Two or more stages on a base pinned to an exact version (or a digest); the final stage runs as a non-root
    user and starts ``sdlc-hub serve``."""
    steps = instructions(DEPLOY / "Dockerfile")
    args = {name: value for name, _, value in (a.partition("=") for word, a in steps if word == "ARG")}
    bases = [re.sub(r"\$\{(\w+)\}", lambda m: args[m.group(1)], a.split()[0]) for word, a in steps if word == "FROM"]
    assert len(bases) >= 2
    for base in bases:
        assert "@sha256:" in base or re.fullmatch(r"[\w./-]+:\d+\.\d+\.\d+[\w.-]*", base), base
    final = steps[max(i for i, (word, _) in enumerate(steps) if word == "FROM") :]
    users = [a for word, a in final if word == "USER"]
    assert users, "the final stage sets no USER"
    assert users[-1].split(":")[0] not in ("root", "0")
    assert ("ENTRYPOINT", '["sdlc-hub"]') in final
    assert ("CMD", '["serve"]') in final
    assert any(word == "RUN" and "--no-index" in a for word, a in final), "the final stage must not reach an index"


def test_dockerfile_takes_its_base_as_an_argument() -> None:
    """Both stages start from ``${BASE}``, whose default is a Debian bookworm Python of the lock's minor version;
    no ``# syntax=`` line sends the build to Docker Hub for a frontend."""
    text = (DEPLOY / "Dockerfile").read_text(encoding="utf-8")
    steps = instructions(DEPLOY / "Dockerfile")
    assert [a for word, a in steps if word == "FROM"] == ["${BASE} AS build", "${BASE}"]
    assert steps[0] == ("ARG", "BASE=python:3.11.7-slim-bookworm")
    assert "# Python 3.11 on Linux." in (DEPLOY / "requirements.lock").read_text(encoding="utf-8")
    assert not re.search(r"^#\s*syntax\s*=", text, flags=re.MULTILINE)


def test_dockerfile_healthcheck_asks_readyz_on_the_hubs_port() -> None:
    """The final stage's HEALTHCHECK is an exec-form probe of ``/readyz`` on ``SDLC_HUB_PORT``, which the image
    sets to the port it exposes."""
    steps = instructions(DEPLOY / "Dockerfile")
    health = [a for word, a in steps if word == "HEALTHCHECK"]
    assert len(health) == 1
    assert re.search(r'CMD \["python", "-c", ".*/readyz.*SDLC_HUB_PORT', health[0])
    assert "SDLC_HUB_PORT=8700" in next(a for word, a in steps if word == "ENV" and "SDLC_HUB_PORT" in a)
    assert ("EXPOSE", "8700") in steps


def test_build_context_admits_what_the_dockerfile_reads() -> None:
    """Every path a ``COPY`` or a context bind mount reads is let through ``Dockerfile.dockerignore``, which
    excludes everything else."""
    steps = instructions(DEPLOY / "Dockerfile")
    sources = [src for word, a in steps if word == "COPY" and "--from" not in a for src in a.split()[:-1]]
    for _, run in (step for step in steps if step[0] == "RUN"):
        for mount in re.findall(r"--mount=(\S+)", run):
            options = dict(option.partition("=")[::2] for option in mount.split(","))
            if options.get("type") == "bind" and "from" not in options:
                sources.append(options["source"])
    assert sources == ["deploy/requirements.lock", "pyproject.toml", "README.md", "src", "deploy/requirements.lock"]
    patterns = (DEPLOY / "Dockerfile.dockerignore").read_text(encoding="utf-8").splitlines()
    admitted = {line[1:].rstrip("/") for line in patterns if line.startswith("!")}
    assert "*" in patterns
    assert set(sources) == admitted
    for source in sources:
        assert (ROOT / source).exists(), source


def test_image_session_is_run_by_ci_not_by_default() -> None:
    """``nox -s image`` exists outside the default sessions, and ``.ci/run`` runs it after the README's test command
    and before the demo."""
    listed = subprocess.run(
        [sys.executable, "-m", "nox", "-l"], cwd=ROOT, capture_output=True, text=True, check=True, timeout=60
    ).stdout.splitlines()
    assert any(line.startswith("- image -> ") for line in listed), listed
    ci = (ROOT / ".ci" / "run").read_text(encoding="utf-8").splitlines()
    readme_command = "python3 -m pip install -q -e '.[dev]' && python3 -m nox"
    assert ci.index(readme_command) < ci.index("python3 -m nox -s image") < ci.index("sdlc-hub demo")


def locked() -> dict[str, str]:
    lines = (DEPLOY / "requirements.lock").read_text(encoding="utf-8").splitlines()
    pins = [line.split("==") for line in lines if line and not line.startswith("#")]
    return {canonicalize_name(name): version for name, version in pins}


def test_lock_pins_every_runtime_dependency() -> None:
    """Each requirement of ``[project].dependencies`` (and of the extras it asks for) is pinned to a version
    it accepts; development tools are not in the lock."""
    with (ROOT / "pyproject.toml").open("rb") as file:
        project = tomllib.load(file)["project"]
    pins = locked()
    for text in project["dependencies"]:
        requirement = Requirement(text)
        name = canonicalize_name(requirement.name)
        assert name in pins, f"{name} is not in deploy/requirements.lock: run python deploy/lock.py"
        assert requirement.specifier.contains(pins[name], prereleases=True), (name, pins[name])
    for tool in ("pytest", "mypy", "ruff", "nox", "schemathesis", "selenium"):
        assert tool not in pins


def test_lock_is_what_the_script_writes() -> None:
    """``deploy/lock.py --check`` agrees with the lock when the tests run in the locked environment (a newer
    release installed by ``pip install -e '.[dev]'`` since the lock was written is not a failure of this tree)."""
    drifted = sorted(name for name, version in locked().items() if _installed(name) != version)
    if drifted:
        pytest.skip(f"the environment is not the locked one ({', '.join(drifted)} differ)")
    done = subprocess.run(
        [sys.executable, str(DEPLOY / "lock.py"), "--check"], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr


@pytest.mark.skipif(shutil.which("systemd-analyze") is None, reason="systemd-analyze is not installed")
def test_systemd_units_verify(tmp_path: Path) -> None:
    """``systemd-analyze verify`` finds nothing to say about either unit (the programs' path made to exist)."""
    bin_dir = tmp_path / "bin"
    bin_dir.mkdir()
    for program in ("sdlc-hub", "sdlc-agent"):
        (bin_dir / program).write_text("#!/bin/sh\n", encoding="utf-8")
        (bin_dir / program).chmod(0o755)
    units = []
    for unit in ("sdlc-hub.service", "sdlc-agent.service"):
        text = (DEPLOY / "systemd" / unit).read_text(encoding="utf-8").replace("/opt/sdlc-hub/bin/", f"{bin_dir}/")
        (tmp_path / unit).write_text(text, encoding="utf-8")
        units.append(str(tmp_path / unit))
    done = subprocess.run(
        ["systemd-analyze", "verify", *units], capture_output=True, text=True, check=False, timeout=60
    )
    assert (done.returncode, done.stderr.strip()) == (0, "")


@pytest.mark.parametrize("unit", ["sdlc-hub.service", "sdlc-agent.service"])
def test_units_are_sandboxed(unit: str) -> None:
    """Each unit runs as a dynamic user with its own state directory and a read-only system."""
    text = (DEPLOY / "systemd" / unit).read_text(encoding="utf-8")
    for setting in ("DynamicUser=yes", "StateDirectory=", "ProtectSystem=strict", "NoNewPrivileges=yes"):
        assert f"\n{setting}" in text, setting
    assert "TOKEN=" not in text and "DATABASE_URL=" not in text, "a secret must come from a credential file"


def test_hub_examples_name_real_settings(tmp_path: Path) -> None:
    """Every ``SDLC_HUB_*`` of the example environment file is a setting of ``sdlc-hub serve``, and the example
    TOML file is accepted as it is."""
    cli = command_line()
    args = cli.parser.parse_args(["serve"])
    known = {cli.env_name(cli.options[dest]) for dest in vars(cli.resolve(args, {})) if dest in cli.options}
    env = (DEPLOY / "systemd" / "sdlc-hub.env").read_text(encoding="utf-8")
    names = re.findall(r"^(SDLC_HUB_\w+)=", env, flags=re.MULTILINE)
    assert names
    assert set(names) <= known, set(names) - known
    resolved = cli.resolve(cli.parser.parse_args(["--config", str(DEPLOY / "sdlc-hub.example.toml"), "serve"]), {})
    assert (resolved.port, resolved.log_format) == (8700, "json")


def test_agent_example_names_real_settings() -> None:
    """Every ``SDLC_AGENT_*`` of the example environment file and of the unit is a setting of ``sdlc-agent``."""
    from agent_app import cli as agent_cli

    build = getattr(agent_cli, "build_command_line", None)
    if build is None:
        pytest.skip("sdlc-agent does not read its settings through adapters.cli_config on this branch")
    cli = build()
    known = {cli.env_name(option) for option in cli.options.values()}
    known |= {f"{cli.env_name(option)}_FILE" for option in cli.options.values() if option.secret}
    texts = [
        (DEPLOY / "systemd" / name).read_text(encoding="utf-8") for name in ("sdlc-agent.env", "sdlc-agent.service")
    ]
    names = {
        name for text in texts for name in re.findall(r"^#?(?:Environment=)?(SDLC_AGENT_\w+)=", text, re.MULTILINE)
    }
    assert len(names) >= 5
    assert names <= known, names - known


def _installed(name: str) -> str | None:
    try:
        return metadata.version(name)
    except metadata.PackageNotFoundError:
        return None
