"""The options every command shares, their completions, and the record of what click parsed.

Each command module builds its commands from these on a ``typer.Typer`` of its
own; none imports :mod:`freezer.cli.app`, which assembles them. The spellings
come from :mod:`freezer.cli.flags`, which the typer-free readers of argv use too.
"""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any, Optional

import typer
from typer.core import TyperGroup

from freezer.cli import flags, output
from freezer.cli.exits import Invocation
from freezer.domain.errors import FreezerError
from freezer.registry import config as config_mod


def invocation(ctx: typer.Context) -> Invocation:
    """The run's record (``obj`` of the root context); a throwaway one outside :func:`freezer.cli.app.run`."""
    found = ctx.find_object(Invocation)
    return found if found is not None else Invocation()


# Recent typer releases vendor click, older ones use the real package: find the
# click exception bases through typer itself so either works.
ClickException: type[Exception] = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "ClickException")
ClickUsageError: Any = next(c for c in typer.BadParameter.__mro__ if c.__name__ == "UsageError")


class Group(TyperGroup):
    """A typer group that records, as click resolves them, the command (the JSON document's name)
    and the arguments it hands on; and lets an interrupt reach freezer's handler."""

    def invoke(self, ctx: Any) -> Any:  # ctx: click's Context
        try:
            return super().invoke(ctx)
        except KeyboardInterrupt as exc:
            # typer's runner turns an interrupt into a bare code (130) and says nothing; click's Abort
            # passes it unchanged, and freezer.cli.app.run raises the interrupt again.
            raise typer.Abort() from exc

    def resolve_command(self, ctx: Any, args: list[str]) -> tuple[Any, Any, list[str]]:  # ctx: click's Context
        name, found, rest = super().resolve_command(ctx, args)
        asked = invocation(ctx)
        asked.args = list(rest)
        if ctx.parent is None:
            asked.command = name
            takes = [p.name for p in found.params] if found is not None and not isinstance(found, TyperGroup) else None
            if ctx.params.get("registry") is not None and takes is not None and "registry" not in takes:
                raise ClickUsageError(f"{name} takes no --registry", ctx=ctx)
        return name, found, rest


def _record_format(ctx: typer.Context, value: Optional[str]) -> Optional[str]:
    if value is not None:
        invocation(ctx).fmt = value
    return value


def _registry_default(ctx: typer.Context, value: Optional[Path]) -> Optional[Path]:
    """``--registry`` after the command wins; else the one given before it (``freezer --registry X list``)."""
    if value is not None:
        return value
    before = ctx.find_root().params.get("registry")  # as click parsed it (typer makes a Path only for the call)
    return Path(before) if isinstance(before, (str, Path)) else None


def complete_format(incomplete: str) -> list[str]:
    return [name for name in output.FORMATS if name.startswith(incomplete)]


def complete_frozen(incomplete: str) -> list[str]:
    """Frozen version names of the registry around the current folder (nothing when there is none)."""
    from freezer.registry.model import Registry  # start-up time: only shell completion lists versions

    try:
        cfg = config_mod.load(None)
        names = [v.name for _, v in Registry(cfg).every_version()]
    except (FreezerError, OSError):
        return []
    return [name for name in names if name.startswith(incomplete)]


def complete_next(incomplete: str) -> list[str]:
    """The version a cut would make now, for each suite."""
    from freezer.registry.model import Suite  # start-up time: only shell completion lists versions

    try:
        cfg = config_mod.load(None)
        upcoming = []
        for one in cfg.suites.values():
            upcoming.append(Suite.of(one).next_name())
    except (FreezerError, OSError):
        return []
    return [name for name in upcoming if name.startswith(incomplete)]


RegistryOption = Annotated[
    Optional[Path],
    typer.Option(
        *flags.REGISTRY,
        help="Registry root (folder with freezer.yaml). Default: search upwards from here.",
        callback=_registry_default,
    ),
]
FormatOption = Annotated[
    Optional[str],
    typer.Option(
        *flags.FORMAT,
        help="Output format: text, json or github (default: github under GitHub Actions).",
        autocompletion=complete_format,
        is_eager=True,  # read before any other parameter can fail, so that a usage error answers in JSON too
        callback=_record_format,
    ),
]
SuiteOption = Annotated[
    Optional[str], typer.Option(*flags.SUITE, help="Suite name; may be left out when only one is configured.")
]


def check_format(fmt: str | None, allowed: tuple[str, ...] = output.FORMATS) -> str:
    resolved = output.resolve_format(fmt)
    if fmt is None and resolved not in allowed:
        return "text"  # GitHub annotations are for problems; a command without any prints text in CI too
    if resolved not in allowed:
        raise typer.BadParameter(f"{fmt!r} is not one of {', '.join(allowed)}", param_hint="--format")
    return resolved
