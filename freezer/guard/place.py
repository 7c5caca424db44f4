"""The registry's place in its repository, read from the base commit, for ``freezer check``.

check compares the working tree with what the base froze, so it must look where the base kept the
registry. A path resolved on disk cannot say where that was: a change that commits ``bench`` as a
link to ``decoy`` (or moves ``bench`` to ``decoy``, or links ``bench/freezer.yaml`` to another
config) would make check read ``decoy`` in the base, find nothing frozen there, and call every
version new. So the place is anchored twice before anything else is read:

- the registry as named (``-C``, ``--registry``, the working folder) must be the registry on disk,
  with no link inside the repository on the way (:mod:`freezer.git.place`);
- every registry of the base that froze versions must still be at its place in the working tree:
  a real ``freezer.yaml`` reached through real folders (a sparse checkout may leave it out).

A link outside the repository (a checkout reached as ``/tmp/x``) is the machine's layout and is
followed.
"""

from __future__ import annotations

from freezer.domain.escape import visible
from freezer.domain.problems import Problem, display_path
from freezer.git.place import named_root, place_in
from freezer.git.registrygit import BaseTree, RegistryGit
from freezer.git.worktree import WorkingTree
from freezer.registry import registry
from freezer.registry.config import CONFIG_NAME, FrozenLayout, RegistryConfig, frozen_layouts


def frozen_in_base(tree: BaseTree, layout: FrozenLayout) -> list[str]:
    """The versions of ``layout``'s suite that the base holds."""
    return sorted(name for name in tree.names(layout.versions) if registry.number_in_name(layout.name, name))


def _shown(place: str) -> str:
    return place or "the repository's top folder"


def _froze(git: RegistryGit, base: str, place: str) -> list[str]:
    """The versions the base's registry at ``place`` froze (none when its config does not parse:
    then the base itself froze nothing readable there)."""
    with git.at(base, place) as tree:
        data = tree.blob(CONFIG_NAME)
        if data is None:
            return []
        layouts, _ = frozen_layouts(data, f"{place}{CONFIG_NAME}")
        return [name for layout in layouts.values() for name in frozen_in_base(tree, layout)]


def _problem(path: str, message: str) -> Problem:
    return Problem(path, None, None, (), visible(message), "frozen")  # it quotes folder names and link targets


def registry_place(git: RegistryGit, base: str, config: RegistryConfig) -> tuple[str, list[Problem]]:
    """The registry's place under the repository's top (``""`` or ``"a/b/"``), and why check must
    refuse to read it there: each problem names the path and what to do."""
    top = git.top()
    place = place_in(top, config.root) or ""
    working = WorkingTree(top)
    problems = []
    kept_places = git.places_of(base, CONFIG_NAME)
    named = place_in(top, named_root(config.path, config.root))
    if named is not None and named != place:
        why = working.displaced(f"{named}{CONFIG_NAME}") or f"{_shown(named)} leads elsewhere"
        todo = (
            f"the base kept a registry at {_shown(named)}: keep it a real folder there"
            if named in kept_places
            else f"run check on the registry's real folder, {_shown(place)}"
        )
        problems.append(
            _problem(
                display_path(top / named / CONFIG_NAME),
                f"the registry is named {_shown(named)}, but {why} inside the repository, so check would "
                f"read {_shown(place)} as the registry. check reads a registry's place from the base commit, "
                f"never through a link inside the repository: {todo}",
            )
        )
    said = {named} if problems else set()  # the named place's link is said once, above
    for kept in kept_places:
        config_file = f"{kept}{CONFIG_NAME}"
        gone = working.displaced(config_file)
        if gone is None or kept in said or git.left_out(config_file):
            continue
        frozen = _froze(git, base, kept)
        if not frozen:
            continue
        listed = ", ".join(frozen[:3]) + (f" … ({len(frozen)} versions)" if len(frozen) > 3 else "")
        problems.append(
            _problem(
                display_path(top / config_file),
                f"the base {base[:8]} kept a registry at {_shown(kept)} that froze {listed}, but in this "
                f"change {gone}, so check could not guard them where they were frozen: a registry that froze "
                f"versions never moves; keep its freezer.yaml and folders real at {_shown(kept)}, and run "
                "check there",
            )
        )
    return place, problems
