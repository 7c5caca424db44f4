"""Commands for who vouches for a version: attest, sign, verify."""

# No `from __future__ import annotations` here: typer reads these commands' signatures on every
# start, and a string annotation costs it an eval (the CLI is built in 34 ms instead of 63).

import hashlib
import json
import sys
from pathlib import Path
from typing import TYPE_CHECKING, Annotated, Literal, Optional

import typer

from freezer.cli import output
from freezer.cli.options import FormatOption, RegistryOption, SuiteOption, check_format, complete_frozen
from freezer.domain.errors import UsageError
from freezer.domain.outcome import Outcome
from freezer.domain.problems import display_path
from freezer.query import browse
from freezer.registry import config as config_mod
from freezer.registry.model import Suite
from freezer.trust import checkpoint as checkpoint_mod
from freezer.trust import lifecycle
from freezer.trust.outcomes import Checkpointed, Signed, StatusEvent, Verified
from freezer.trust.rootfiles import STATUS_LOG

if TYPE_CHECKING:
    from freezer.trust.signing import SignatureStatus

VersionArgument = Annotated[str, typer.Argument(help="The version, e.g. graph_v2.", autocompletion=complete_frozen)]

# The commands of this module; freezer.cli.app adds them to the application.
commands = typer.Typer()


@commands.command()
def attest(
    version: VersionArgument,
    pae: Annotated[
        bool, typer.Option("--pae", help="Print the bytes a signature signs (for ssh-keygen -Y sign -n freezer).")
    ] = False,
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> None:
    """Print the version's in-toto provenance statement (SLSA v1), re-derived from its verified files."""
    from freezer.trust import signing  # start-up time: loaded by the command that runs it (freezer.cli.app)

    fmt = check_format(fmt, ("text", "json"))
    if pae and fmt == "json":
        raise UsageError("--pae prints the exact bytes a signature signs; it takes no --format json")
    cfg = config_mod.load(registry)
    one = config_mod.suite_of_label(cfg, version, suite)
    frozen = browse.find(one, version)
    if pae:
        sys.stdout.flush()
        sys.stdout.buffer.write(signing.signed_message(one, frozen))  # bytes, exactly: no escaping
        return
    statement = signing.statement_of(one, frozen)
    if fmt == "json":
        result = {"version": frozen.name, "sha256": hashlib.sha256(statement).hexdigest()}
        output.say_json("attest", {**result, "statement": json.loads(statement)})
    else:
        output.say_block(statement.decode("utf-8"))


@commands.command()
def sign(
    version: VersionArgument,
    key: Annotated[
        Optional[Path], typer.Option("--key", "-k", help="An unencrypted OpenSSH Ed25519 private key.")
    ] = None,
    signature: Annotated[
        Optional[Path],
        typer.Option(
            "--signature", help="A signature made by ssh-keygen -Y sign -n freezer over freezer attest --pae."
        ),
    ] = None,
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Add your signature to signatures/<version>.dsse.json (the frozen folder is not touched)."""
    from freezer.trust import signing  # start-up time: loaded by the command that runs it (freezer.cli.app)

    cfg = config_mod.load(registry)
    one = config_mod.suite_of_label(cfg, version, suite)
    frozen = browse.find(one, version)
    fmt = check_format(fmt, ("text", "json"))
    signed = Signed(frozen.name, signing.sign(cfg, one, frozen, key, signature), signing.verify(cfg, one, frozen))
    if fmt == "json":
        return output.say_outcome("sign", signed)
    where = display_path(signing.envelope_path(cfg.root, frozen.name))
    output.say(f"✓ signed {frozen.name} with {signed.keyid}: {where}")
    status = signed.signature
    if status.ok:
        output.say(f"  verified: signed by {', '.join(status.signers)}")
    else:
        output.say(f"  ⚠ not yet counted as signed ({status.status}): {'; '.join(status.problems) or 'more signers'}")
    return signed


@commands.command()
def verify(
    versions: Annotated[
        Optional[list[str]], typer.Argument(help="Versions. Default: all.", autocompletion=complete_frozen)
    ] = None,
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Check each version's signatures against allowed_signers; exit 1 unless every one is signed."""
    # start-up time: loaded by the command that runs it (freezer.cli.app)
    from freezer.trust import allowed_signers, signing

    fmt = check_format(fmt, ("text", "json"))
    cfg = config_mod.load(registry)
    chosen = []
    if versions:
        for label in versions:
            one = config_mod.suite_of_label(cfg, label, suite)
            chosen.append((one, browse.find(one, label)))
    else:
        suites = cfg.suites_named(suite)
        chosen = [(one, frozen) for one in suites for frozen in Suite.of(one).versions()]
    verified = Verified([signing.verify(cfg, one, frozen) for one, frozen in chosen])
    if fmt == "json":
        return output.say_outcome("verify", verified)
    for status in verified.versions:
        output.say(status_line(status))
        for problem in status.problems:
            output.say(f"    ✗ {problem}")
    if verified.ok:
        # Lines of allowed_signers that ssh-keygen skips (an unsigned version lists them already).
        for line in allowed_signers.read(cfg.root).problems:
            output.say(f"  ⚠ {line.location()}: {line.message} (ssh-keygen skips this line)")
    return verified


def status_line(status: "SignatureStatus") -> str:
    mark = "✓" if status.ok else "✗"
    who = f" by {', '.join(status.signers)}" if status.signers else ""
    need = f" ({len(status.signers)} of {status.required} required)" if status.required > 1 else ""
    return f"{mark} {status.version}: {status.status}{who}{need}"


@commands.command()
def yank(
    version: VersionArgument,
    reason: Annotated[str, typer.Option("--reason", help="Why it must not be used (shown wherever it loads).")],
    key: Annotated[Path, typer.Option("--key", "-k", help="An OpenSSH Ed25519 key of allowed_signers.")],
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Withdraw a version: a signed event in status.jsonl; the frozen folder is not touched."""
    return _status_event("yank", version, key, suite, registry, check_format(fmt, ("text", "json")), reason=reason)


@commands.command()
def deprecate(
    version: VersionArgument,
    superseded_by: Annotated[
        str, typer.Option("--superseded-by", help="The version to use instead.", autocompletion=complete_frozen)
    ],
    key: Annotated[Path, typer.Option("--key", "-k", help="An OpenSSH Ed25519 key of allowed_signers.")],
    reason: Annotated[Optional[str], typer.Option("--reason", help="Why.")] = None,
    suite: SuiteOption = None,
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Mark a version as superseded: a signed event in status.jsonl; it still loads."""
    fmt = check_format(fmt, ("text", "json"))
    return _status_event("deprecate", version, key, suite, registry, fmt, reason=reason, superseded_by=superseded_by)


def _status_event(
    event: Literal["yank", "deprecate"],
    version: str,
    key: Path,
    suite: str | None,
    registry: Path | None,
    fmt: str,
    reason: str | None = None,
    superseded_by: str | None = None,
) -> Outcome:

    cfg = config_mod.load(registry)
    one = config_mod.suite_of_label(cfg, version, suite)
    frozen = browse.find(one, version)
    successor_name = None
    if superseded_by is not None:
        successor = browse.find(one, superseded_by)
        if successor.number <= frozen.number:
            raise UsageError(f"{successor.name} does not supersede {frozen.name}: name a later version")
        successor_name = successor.name
    change = lifecycle.StatusChange(event, one.name, frozen.name, reason, successor_name)
    recorded = StatusEvent(event, lifecycle.append(cfg.root, key, change), lifecycle.verify_log(cfg.root))
    problems = recorded.problems
    if fmt == "json":
        return output.say_outcome(event, recorded)
    done = "yanked" if event == "yank" else f"deprecated in favour of {superseded_by}"
    output.say(f"✓ {frozen.name} {done}: recorded in {STATUS_LOG}")
    for problem in problems:
        output.say(f"  ⚠ {problem}")
    return recorded


@commands.command()
def checkpoint(
    key: Annotated[Path, typer.Option("--key", "-k", help="An OpenSSH Ed25519 key of allowed_signers.")],
    registry: RegistryOption = None,
    fmt: FormatOption = None,
) -> Outcome:
    """Sign each suite's chain head (version count, latest manifest) into checkpoint.json; it only grows."""
    cfg = config_mod.load(registry)
    fmt = check_format(fmt, ("text", "json"))
    payload = checkpoint_mod.write(cfg, key)
    written = Checkpointed(payload, checkpoint_mod.verify(cfg)[0])
    problems = written.problems
    if fmt == "json":
        return output.say_outcome("checkpoint", written)
    for suite, head in payload.suites.items():
        output.say(f"✓ {suite}: {head.versions} version(s) up to {head.latest}")
    for problem in problems:
        output.say(f"  ⚠ {problem}")
    return written
