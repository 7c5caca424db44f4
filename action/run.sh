#!/usr/bin/env bash
# The guard step of freezer's GitHub Action (action.yml): fetch the base the event names when the
# checkout left it out, then `freezer check` (with GitHub annotations) and `freezer audit`.
#
# freezer check reads the base from the same event itself (freezer/git/cibase.py): the commit before a
# push, a pull request's base branch, a new branch's fork point from the default branch. This script
# does not choose another one; it makes sure that commit is in the clone (actions/checkout fetches one
# commit unless told fetch-depth: 0) and says which base the event names. It runs outside GitHub too:
# tests/test_action.py gives it a simulated GITHUB_EVENT_PATH.
#
# Inputs, from the environment (action.yml passes the action's inputs this way, never spliced into code):
#   FREEZER                    the freezer command (default: freezer on PATH)
#   FREEZER_PYTHON             a Python 3 to read the event with (default: python3)
#   FREEZER_REGISTRY           the registry's folder (default: .)
#   FREEZER_SUITE              audit this suite only (default: every suite)
#   FREEZER_BASE               the commit or branch check compares with (default: the one the event names)
#   FREEZER_REQUIRE_SIGNATURE  true: audit fails on a version without enough allowed signers
#   FREEZER_REACH_CODE         true: check and audit re-verify against the code repository and fail when it
#                              cannot be reached; false (default): integrity only (--no-code)
# GitHub's own: GITHUB_EVENT_NAME, GITHUB_EVENT_PATH, GITHUB_BASE_REF, GITHUB_STEP_SUMMARY.
# Exit: 0 when both pass, else the larger of their exit codes (1 a finding, 2 a usage problem).
set -uo pipefail

freezer=${FREEZER:-freezer}
python=${FREEZER_PYTHON:-python3}
registry=${FREEZER_REGISTRY:-.}
suite=${FREEZER_SUITE:-}
base_input=${FREEZER_BASE:-}
event=${GITHUB_EVENT_NAME:-}

say() { printf 'freezer action: %s\n' "$*"; }
# escaped KIND TEXT: TEXT as freezer escapes what it prints (freezer/domain/escape.py, the one owner):
# KIND line for a log line (visible), github for a workflow command's message (github_data). A value
# from the job (an input, the event, GITHUB_BASE_REF) may hold ESC, C1 controls, bidi overrides,
# newlines that would start a workflow command of their own, or bytes that are not UTF-8.
escaped() {
  "$python" -c '
import sys
sys.stdout.reconfigure(errors="backslashreplace")  # a lone surrogate is shown escaped, never a traceback
from freezer.domain.escape import github_data, visible
print((github_data if sys.argv[1] == "github" else visible)(sys.argv[2]), end="")
' "$1" "$2" 2>/dev/null || printf '(a value the action cannot show: FREEZER_PYTHON cannot import freezer)'
}
refuse() {
  printf '::error title=freezer action::%s\n' "$(escaped github "$1")"
  exit 2
}

flag() { # flag INPUT VALUE VARIABLE: true or false, as GitHub gives boolean inputs as strings
  case "$2" in
    true | True | TRUE) printf -v "$3" true ;;
    false | False | FALSE | "") printf -v "$3" false ;;
    *) refuse "input $1 is '$(escaped line "$2")'; set it to true or false" ;;
  esac
}
flag require-signature "${FREEZER_REQUIRE_SIGNATURE:-false}" require_signature
flag reach-code "${FREEZER_REACH_CODE:-false}" reach_code

[ -d "$registry" ] || refuse "input registry is '$(escaped line "$registry")', which is not a folder of the checkout; set it to the folder holding freezer.yaml"

# The event's values this step needs, one a line: those it acts on only as full object ids and plain
# branch names (else empty), those it shows (the pushed ref, the event's name, GITHUB_BASE_REF) escaped
# as freezer escapes every value it prints. An unreadable payload gives empty values, and freezer check
# then says what is wrong with it; no payload makes this print a traceback (a lone surrogate in a JSON
# string is shown escaped).
fields() {
  "$python" - "${GITHUB_EVENT_PATH:-}" <<'PY'
import json
import os
import re
import sys

sys.stdout.reconfigure(errors="backslashreplace")
try:
    from freezer.domain.escape import visible
except ImportError:  # not the install step's Python: every value is left out, and none is shown raw
    def visible(text: str) -> str:
        return "(a value the action cannot show: FREEZER_PYTHON cannot import freezer)" if text else ""

def get(data, *keys):
    for key in keys:
        data = data.get(key) if isinstance(data, dict) else None
    return data if isinstance(data, str) else ""

data = {}
if sys.argv[1] and os.environ.get("GITHUB_EVENT_NAME"):
    try:
        with open(sys.argv[1], encoding="utf-8") as handle:
            data = json.load(handle)
    except (OSError, ValueError, RecursionError):
        pass
sha = re.compile(r"[0-9a-f]{40}|[0-9a-f]{64}")
branch = re.compile(r"[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}")

def plain_branch(name):
    return name if branch.fullmatch(name) and ".." not in name else ""

before = get(data, "before")
base = get(data, "pull_request", "base", "sha") or get(data, "merge_group", "base_sha")
# A schedule's payload names no ref: GitHub runs it on the default branch and says so in GITHUB_REF.
default, ref = plain_branch(get(data, "repository", "default_branch")), get(data, "ref") or os.environ.get("GITHUB_REF", "")
base_ref = os.environ.get("GITHUB_BASE_REF", "")
print(before if sha.fullmatch(before) else "")
print(base if sha.fullmatch(base) else "")
print(default)
on_default = (default and ref == f"refs/heads/{default}") or (not default and os.environ.get("GITHUB_EVENT_NAME") == "schedule")
print("yes" if on_default else "")
print(visible(ref))
print(plain_branch(base_ref))
print(visible(base_ref))
print(visible(os.environ.get("GITHUB_EVENT_NAME", "")))
PY
}

in_git() { git -C "$registry" "$@"; }
has_commit() { in_git cat-file -e "$1^{commit}" 2>/dev/null; }
shallow() { [ "$(in_git rev-parse --is-shallow-repository 2>/dev/null)" = true ]; }
can_fetch() { in_git remote get-url origin >/dev/null 2>&1; }

unshallow() { # a merge-base needs HEAD's whole history, which a one-commit checkout lacks
  if shallow && can_fetch; then in_git fetch --quiet --no-tags --unshallow origin 2>/dev/null || true; fi
}

fetch_branch() { # a branch, as origin/NAME, with its history
  can_fetch || return 1
  unshallow
  in_git fetch --quiet --no-tags origin "+refs/heads/$1:refs/remotes/origin/$1" 2>/dev/null
}

fetch_commit() { # fetch_commit SHA [history]: one commit and its tree (what a push is compared with)
  if [ "${2:-}" = history ]; then unshallow; fi
  has_commit "$1" && return 0
  can_fetch || return 1
  if [ "${2:-}" = history ]; then
    in_git fetch --quiet --no-tags origin "$1" 2>/dev/null
  else
    in_git fetch --quiet --no-tags --depth=1 origin "$1" 2>/dev/null
  fi
  has_commit "$1"
}

{
  read -r before
  read -r base_sha
  read -r default
  read -r creates_default
  read -r pushed
  read -r base_ref
  read -r base_ref_shown
  read -r event_shown
} < <(fields)

case "$event" in
  pull_request | pull_request_target | merge_group)
    # check takes origin/GITHUB_BASE_REF when it is there, else the payload's base commit.
    if [ -n "$base_ref" ] && fetch_branch "$base_ref"; then
      say "$event into $base_ref: check compares with the merge-base of HEAD and origin/$base_ref"
    elif [ -n "$base_sha" ] && fetch_commit "$base_sha" history; then
      say "$event: check compares with the merge-base of HEAD and the base commit ${base_sha:0:12}"
    else
      say "$event: its base (${base_ref_shown:-${base_sha:-not named}}) could not be fetched; check says what it needs"
    fi
    ;;
  push)
    if [ -z "$before" ]; then
      say "push: the event names no commit before the push; check says what it needs (or pass a base)"
    elif [ -z "${before//0/}" ]; then
      # A new branch: nothing was pushed before it, so it is checked from where it left the default branch.
      if [ "$creates_default" = yes ]; then
        say "push creates $default, the default branch: there is no commit before it, so every version is new"
      elif [ -n "$default" ] && fetch_branch "$default"; then
        say "push creates ${pushed:-a branch} (no commit before it): check compares with where it left origin/$default"
      else
        say "push creates ${pushed:-a branch} (no commit before it) and the default branch ${default:-(unnamed)} could not be fetched; check says what it needs"
      fi
    elif fetch_commit "$before"; then
      say "push to ${pushed:-a branch}: check compares with the commit before the push, ${before:0:12}"
    else
      say "push: the commit before the push, ${before:0:12}, could not be fetched (after a force-push it may be gone); check says what it needs"
    fi
    ;;
  schedule | workflow_dispatch)
    if [ "$creates_default" = yes ]; then
      say "$event on the default branch: the event names no change, so check looks at the working tree only; the audit re-verifies every version"
    elif [ -n "$default" ] && fetch_branch "$default"; then
      say "$event on ${pushed:-a branch}: check compares with where it left origin/$default"
    else
      say "$event on ${pushed:-a branch}: the default branch ${default:-(unnamed)} could not be fetched; check says what it needs (or set the base input)"
    fi
    ;;
  "") say "no GitHub event (GITHUB_EVENT_NAME is not set): check chooses its base as it does locally" ;;
  *) say "$event_shown: not a push, a pull request, a schedule or a dispatch, so the event names no base; check says what it needs (or set the base input)" ;;
esac

# The base input wins over the event's: a commit or a branch, fetched when the checkout left it out.
base_options=()
if [ -n "$base_input" ]; then
  if [[ ! "$base_input" =~ ^[A-Za-z0-9_][A-Za-z0-9._/-]{0,254}$ ]] || [[ "$base_input" == *..* ]]; then
    refuse "input base is '$(escaped line "$base_input")'; set it to a commit id or a branch name"
  fi
  if in_git rev-parse --verify --quiet "$base_input^{commit}" >/dev/null; then
    base_options=(--base "$base_input")
  elif [[ "$base_input" =~ ^([0-9a-f]{40}|[0-9a-f]{64})$ ]] && fetch_commit "$base_input" history; then
    base_options=(--base "$base_input")
  elif fetch_branch "$base_input"; then
    base_options=(--base "origin/$base_input")
  else
    refuse "input base is '$(escaped line "$base_input")', which names no commit or branch of origin; set it to one that exists"
  fi
  say "the base input names ${base_options[1]}: check compares with it"
fi

code_options=(--no-code)
[ "$reach_code" = true ] && code_options=(--strict)
audit_options=()
[ -n "$suite" ] && audit_options+=(--suite "$suite")
[ "$require_signature" = true ] && audit_options+=(--require-signature)

# Each command's output is kept (and shown as it was) for the step summary. A failure that is not
# already an annotation becomes one, so it shows on the run's page and not only in the log: each failing
# version audit names (one line each), else what the command said on stderr (a base that is not fetched,
# a usage error, freezer's own fault).
logs=$(mktemp -d)
trap 'rm -rf "$logs"' EXIT
guarded() { # guarded NAME COMMAND...: run it, show its output, keep it in $logs/NAME.{out,err}
  local name=$1 code line said
  shift
  "$@" >"$logs/$name.out" 2>"$logs/$name.err"
  code=$?
  cat "$logs/$name.out"
  cat "$logs/$name.err" >&2
  if [ "$code" -ne 0 ] && ! grep -q '^::error' "$logs/$name.out"; then
    if grep -q '^✗ [^ ]*:' "$logs/$name.out"; then
      while IFS= read -r line; do
        printf '::error title=freezer %s::%s\n' "$name" "$(escaped github "$line")"
      done < <(grep '^✗ [^ ]*:' "$logs/$name.out")
    else
      said=$(head -c 4000 "$logs/$name.err")
      printf '::error title=freezer %s::%s\n' "$name" "$(escaped github "freezer $name failed (exit $code): ${said:-see the log above}")"
    fi
  fi
  return "$code"
}
# ${a[@]+...}: an empty array under set -u, also in macOS's bash 3.2.
guarded check "$freezer" check -C "$registry" --format github "${code_options[@]}" ${base_options[@]+"${base_options[@]}"}
checked=$?
guarded audit "$freezer" audit -C "$registry" "${code_options[@]}" ${audit_options[@]+"${audit_options[@]}"}
audited=$?

if [ -n "${GITHUB_STEP_SUMMARY:-}" ]; then
  "$python" "$(dirname "$0")/summary.py" "$logs" "$checked" "$audited" >>"$GITHUB_STEP_SUMMARY" \
    || printf '### freezer\n\ncheck exit %s, audit exit %s (the summary could not be written)\n' "$checked" "$audited" >>"$GITHUB_STEP_SUMMARY"
fi
if [ "$checked" -gt "$audited" ]; then exit "$checked"; fi
exit "$audited"
