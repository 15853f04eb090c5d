"""Where a command-line program's settings come from (DESIGN.md 10): flag > environment > TOML file > default.

Each option is declared once, as an :class:`Option`; its environment variable and its key in the config file
follow from its flag (``--data-dir`` of ``sdlc-hub`` → ``SDLC_HUB_DATA_DIR`` and ``data_dir``)::

    cli = CommandLine("sdlc-hub", env_prefix="SDLC_HUB", description="…")
    sub = cli.parser.add_subparsers(dest="command", required=True)
    cli.add(sub.add_parser("serve"), DATA_DIR, Option("port", type=int, default=8700))
    args = cli.parse(argv)          # args.port, args.config, args.log_level, args.log_format, args.secrets
    "data_dir" in args.defaulted    # no flag, variable or config key gave it: the default applies

Every parser handed to :meth:`CommandLine.add` also gets ``--config`` (env ``<PREFIX>_CONFIG``), ``--log-level``
and ``--log-format``; the root parser has ``--version`` (the installed ``sdlc-hub`` distribution's version).

A ``secret`` option is never needed on the command line (the process list shows it to every user of the
machine): it is also read from a file named by ``<ENV>_FILE`` or ``<key>_file`` (systemd's ``LoadCredential``,
a Kubernetes secret volume), and its value is collected in ``args.secrets`` for
:func:`adapters.logs.configure_logging` to mask. A wrong value from any source, an unknown key in the file or
a missing required option ends the program with one line naming the option and exit code 2.

A ``repeat`` option is a list: its flag may be given several times, its variable holds the items separated by
commas, its key in the file is an array (or a table, read as ``KEY=VALUE`` items: ``min_gap = {refresh = 2}``
is ``--min-gap refresh=2``). ``env`` and ``key`` spell an option's variable and its place in the file where the
flag's name does not (``--allow-project`` → ``SDLC_AGENT_ALLOW_PROJECTS``, ``allow_projects`` in ``[policy]``:
``key="policy.allow_projects"``). A converter may raise :class:`BadValue` to say why a value is refused.
"""

from __future__ import annotations

import argparse
import os
import tomllib
from collections.abc import Callable, Mapping, Sequence
from importlib import metadata
from pathlib import Path
from typing import Any, NoReturn

import attrs

__all__ = ["LOG_LEVELS", "BadValue", "CommandLine", "ConfigError", "Option", "package_version"]

LOG_LEVELS = ("DEBUG", "INFO", "WARNING", "ERROR")
_TRUE = frozenset({"1", "true", "yes", "on"})
_FALSE = frozenset({"0", "false", "no", "off", ""})
#: The namespace attribute that says which options the chosen (sub)command offers.
_OFFERED = "_cli_config_offered"


class ConfigError(Exception):
    """A setting that cannot be used, from whichever source; the message names the option and its source."""


class BadValue(ValueError):
    """Raised by an option's converter: the value is refused, and the message says why."""


def package_version(distribution: str = "sdlc-hub") -> str:
    """The installed distribution's version (``0+unknown`` when running from a bare checkout)."""
    try:
        return metadata.version(distribution)
    except metadata.PackageNotFoundError:  # pragma: no cover - not installed at all
        return "0+unknown"


@attrs.frozen
class Option:
    """One setting: its flag without dashes (``data-dir``), how a text becomes its value, its default.

    ``type=bool`` makes a switch (``--flag`` on the command line; ``true``/``false`` elsewhere); ``repeat`` a list
    of values, each converted by ``type``; ``env`` and ``key`` replace the variable's and the file key's spelling.
    """

    name: str
    type: Callable[[str], Any] = attrs.field(default=str, kw_only=True)
    default: Any = attrs.field(default=None, kw_only=True)
    help: str = attrs.field(default="", kw_only=True)
    required: bool = attrs.field(default=False, kw_only=True)
    secret: bool = attrs.field(default=False, kw_only=True)
    choices: tuple[str, ...] | None = attrs.field(default=None, kw_only=True)
    repeat: bool = attrs.field(default=False, kw_only=True)
    env: str | None = attrs.field(default=None, kw_only=True)
    key: str | None = attrs.field(default=None, kw_only=True)
    metavar: str | None = attrs.field(default=None, kw_only=True)

    @property
    def dest(self) -> str:
        return self.name.replace("-", "_")

    @property
    def flag(self) -> str:
        return f"--{self.name}"

    @property
    def file_key(self) -> str:
        """Where the option sits in the config file: a top-level key, or ``table.key``."""
        return self.key or self.dest


class CommandLine:
    """The parser of one program and the options it declares; :meth:`parse` resolves them by precedence."""

    def __init__(
        self,
        prog: str,
        *,
        env_prefix: str,
        description: str = "",
        distribution: str = "sdlc-hub",
        log_level: str = "INFO",
    ) -> None:
        self.prog = prog
        self.env_prefix = env_prefix
        self.parser = argparse.ArgumentParser(prog=prog, description=description)
        self.parser.add_argument("--version", action="version", version=f"{prog} {package_version(distribution)}")
        self._options: dict[str, Option] = {}
        self._common = (
            Option("config", type=Path, help="a TOML file of settings: keys are the flags' names with underscores"),
            Option(
                "log-level",
                type=str.upper,
                default=log_level,
                choices=LOG_LEVELS,
                help="the lowest level logged",
            ),
            Option(
                "log-format",
                default="auto",
                choices=("auto", "json", "text"),
                help="JSON lines, readable text, or auto: text on a terminal, JSON otherwise",
            ),
        )
        self.add(self.parser)

    @property
    def options(self) -> dict[str, Option]:
        """Every option declared so far (the common ones too), by its destination name."""
        return dict(self._options)

    def env_name(self, option: Option) -> str:
        return option.env or f"{self.env_prefix}_{option.dest.upper()}"

    def add(self, parser: argparse.ArgumentParser, *options: Option) -> None:
        """Offer ``options`` (and the common ``--config``/``--log-*``) on ``parser``, the root or a subcommand."""
        for option in (*self._common, *options):
            known = self._options.setdefault(option.dest, option)
            if known != option:
                raise ValueError(f"option {option.name} is declared twice, differently")
            if any(option.flag in action.option_strings for action in parser._actions):
                continue
            parser.add_argument(option.flag, **self._argparse_kwargs(option))
        offered: frozenset[str] = parser.get_default(_OFFERED) or frozenset()
        parser.set_defaults(**{_OFFERED: offered | {option.dest for option in (*self._common, *options)}})

    def _argparse_kwargs(self, option: Option) -> dict[str, Any]:
        sources = f"env {self.env_name(option)}"
        if option.secret:
            sources += f" or {self.env_name(option)}_FILE"
        suffix = f" ({sources}" + (f"; default {option.default}" if option.default not in (None, False) else "") + ")"
        kwargs: dict[str, Any] = {"default": argparse.SUPPRESS, "help": option.help + suffix}
        if option.type is bool:
            kwargs["action"] = "store_true"
            return kwargs
        # The text is converted with the other sources' (:meth:`resolve`): a refused value is one line, as there.
        if option.repeat:
            kwargs["action"] = "append"
        if option.choices is not None:
            kwargs["metavar"] = "{" + ",".join(option.choices) + "}"
        if option.metavar is not None:
            kwargs["metavar"] = option.metavar
        return kwargs

    def parse(self, argv: Sequence[str] | None = None) -> argparse.Namespace:
        """Parse ``argv`` and fill every offered option from the first source that has it; exit 2 on a mistake."""
        args = self.parser.parse_args(argv)
        try:
            return self.resolve(args, os.environ)
        except ConfigError as exc:
            self.fail(str(exc))

    def fail(self, message: str) -> NoReturn:
        """One line on stderr, exit code 2 (a usage mistake, as argparse does)."""
        self.parser.exit(2, f"{self.prog}: {message}\n")

    def resolve(self, args: argparse.Namespace, environ: Mapping[str, str]) -> argparse.Namespace:
        """``args`` with each offered option set: flag > environment > config file > default."""
        offered: frozenset[str] = getattr(args, _OFFERED, frozenset())
        config_path = _path_or_none(getattr(args, "config", None)) or _path_or_none(
            environ.get(self.env_name(self._options["config"]))
        )
        file_values = self._read_config(config_path) if config_path is not None else {}
        resolved = vars(args).copy()
        resolved.pop(_OFFERED, None)
        secrets: list[str] = []
        defaulted: set[str] = set()
        for dest in sorted(offered):
            option = self._options[dest]
            if dest in resolved:
                value = self._from_flag(option, resolved[dest])
            else:
                value = self._from_env(option, environ)
                if value is None:
                    value = self._from_file(option, file_values, config_path)
                if value is None:
                    if option.required:
                        raise ConfigError(
                            f"give {option.flag} (or {self.env_name(option)}, or {option.file_key} in the config file)"
                        )
                    value = option.default
                    defaulted.add(dest)
            if option.repeat:
                value = tuple(value or ())
            resolved[dest] = value
            if option.secret and value:
                secrets.append(str(value))
        resolved["config"] = config_path
        resolved["secrets"] = tuple(secrets)
        resolved["defaulted"] = frozenset(defaulted)
        return argparse.Namespace(**resolved)

    def _from_flag(self, option: Option, given: Any) -> Any:
        if option.type is bool:
            return given
        if option.repeat:
            return [_convert(option, text, option.flag) for text in given]
        return _convert(option, given, option.flag)

    def _from_env(self, option: Option, environ: Mapping[str, str]) -> Any:
        name = self.env_name(option)
        if option.secret and environ.get(f"{name}_FILE"):
            return _read_secret(Path(environ[f"{name}_FILE"]), f"{name}_FILE")
        text = environ.get(name)
        if text is None or (text == "" and option.type is not bool):
            return None
        if option.repeat:
            return [_convert(option, item.strip(), name) for item in text.split(",") if item.strip()]
        return _convert(option, text, f"{name}")

    def _from_file(self, option: Option, values: Mapping[str, Any], path: Path | None) -> Any:
        if option.secret and f"{option.file_key}_file" in values:
            return _read_secret(Path(str(values[f"{option.file_key}_file"])), f"{option.file_key}_file in {path}")
        if option.file_key not in values:
            return None
        value = values[option.file_key]
        where = f"{option.file_key} in {path}"
        if option.repeat:
            return [self._file_value(option, item, where) for item in _items(value, where)]
        return self._file_value(option, value, where)

    def _file_value(self, option: Option, value: Any, where: str) -> Any:
        if option.type is bool:
            if not isinstance(value, bool):
                raise ConfigError(f"{where}: expected true or false, got {value!r}")
            return value
        if option.type is int and isinstance(value, int) and not isinstance(value, bool):
            return value
        if option.type is float and isinstance(value, int | float) and not isinstance(value, bool):
            return float(value)
        if not isinstance(value, str | int | float) or isinstance(value, bool):
            raise ConfigError(f"{where}: expected a string, got {value!r}")
        return _convert(option, str(value), where)

    def _read_config(self, path: Path) -> dict[str, Any]:
        try:
            with path.open("rb") as file:
                values = tomllib.load(file)
        except OSError as exc:
            raise ConfigError(f"cannot read the config file {path}: {exc.strerror or exc}") from None
        except tomllib.TOMLDecodeError as exc:
            raise ConfigError(f"the config file {path} is not TOML: {exc}") from None
        known = {option.file_key for dest, option in self._options.items() if dest != "config"}
        known |= {f"{option.file_key}_file" for option in self._options.values() if option.secret}
        flat = _flatten(values, known)
        unknown = sorted(set(flat) - known)
        if unknown:
            raise ConfigError(f"unknown key {unknown[0]} in the config file {path} (known: {', '.join(sorted(known))})")
        return flat


def _flatten(values: Mapping[str, Any], known: set[str], prefix: str = "") -> dict[str, Any]:
    """The file's values by ``table.key`` where a table holds known keys (``[policy]``); other values as they are."""
    flat: dict[str, Any] = {}
    for name, value in values.items():
        path = f"{prefix}{name}"
        if path not in known and isinstance(value, dict) and any(k.startswith(f"{path}.") for k in known):
            flat.update(_flatten(value, known, f"{path}."))
        else:
            flat[path] = value
    return flat


def _items(value: Any, where: str) -> list[Any]:
    """The items of a repeated option's value in the file: an array, or a table read as ``KEY=VALUE`` texts."""
    if isinstance(value, list):
        return value
    if isinstance(value, dict):
        return [f"{key}={item}" for key, item in value.items()]
    raise ConfigError(f"{where}: expected an array, got {value!r}")


def _convert(option: Option, text: str, where: str) -> Any:
    if option.type is bool:
        lowered = text.strip().lower()
        if lowered in _TRUE:
            return True
        if lowered in _FALSE:
            return False
        raise ConfigError(f"{where}: expected true or false, got {text!r}")
    try:
        value = option.type(text)
    except BadValue as exc:
        raise ConfigError(f"{where}: invalid value {text!r} for {option.flag}: {exc}") from None
    except (TypeError, ValueError):
        raise ConfigError(f"{where}: invalid value {text!r} for {option.flag}") from None
    if option.choices is not None and value not in option.choices:
        raise ConfigError(f"{where}: {text!r} is not one of {', '.join(option.choices)}")
    return value


def _read_secret(path: Path, where: str) -> str:
    try:
        return path.read_text(encoding="utf-8").strip()
    except OSError as exc:
        raise ConfigError(f"{where}: cannot read {path}: {exc.strerror or exc}") from None


def _path_or_none(text: str | None) -> Path | None:
    return Path(text) if text else None
