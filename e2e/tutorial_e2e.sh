#!/usr/bin/env bash
# docs/tutorial.md, run as written: every command of its ```sh blocks and every `$ ` line of its
# example sessions (e2e/doc_commands.py extracts them), in order, in one shell, from the
# repository root. Only the build commands are skipped (the test runs on a built tree), and three
# things are moved out of the way of other runs: /tmp/fleet -> a scratch directory, port 9443 ->
# a free port, `operator.log` -> the scratch directory; `build/` is the tree under test.
# Every command must succeed. A reader waits "a moment" between commands; so does the test: a
# command that reads (kubectl get/describe/rollout, curl) is retried for up to 45 s until it
# succeeds and, for the outputs the tutorial's text depends on, shows what the tutorial shows.
# Usage: tutorial_e2e.sh BUILD_DIR
BUILD=${1:?usage: tutorial_e2e.sh BUILD_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
BUILD=$(cd "$BUILD" && pwd)
cd "$ROOT" || exit 1

WORK=$(mktemp -d)
export HOME=$WORK KUBECACHEDIR=$WORK/kube-cache
PORT_9443=$(python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1", 0)); print(s.getsockname()[1])')
finish() {
  jobs -p | xargs -r kill 2>/dev/null
  "$BUILD/sim/flotilla-sim" down --dir "$WORK/fleet" >/dev/null 2>&1
  rm -rf "$WORK"
}
trap finish EXIT

# What the tutorial's text relies on, by command and occurrence: "COMMAND|N|TEXT".
expectations=(
  'kubectl get deploy,fdeploy,rb -n demo|1|member1,member2,member3'
  'kubectl get deploy,fdeploy,rb -n demo|1|6/6'
  'kubectl get rb -n demo -o custom-columns=NAME:.metadata.name,TYPE:.status.lastScheduleType,PLACEMENT:.status.placementSummary|1|ScaleSchedule'
  'kubectl describe rb big -n demo|1|0/3 clusters are available: 3 Insufficient cpu.'
  'kubectl get fc|1|member3   True'
  'kubectl get fc|2|member3   Unknown'
  "kubectl get fc member3 -o jsonpath='{.spec.taints}'|1|cluster.flotilla.io/not-ready"
)
expected() {  # COMMAND OCCURRENCE: the texts its output must hold
  local e
  for e in "${expectations[@]}"; do
    [[ ${e%%|*} == "$1" ]] || continue
    local rest=${e#*|}
    [[ ${rest%%|*} == "$2" ]] && printf '%s\n' "${rest#*|}"
  done
}

mapfile -d '' commands < <(python3 "$ROOT/e2e/doc_commands.py" "$ROOT/docs/tutorial.md")
expect_eq "the tutorial has its commands" "$((${#commands[@]} > 25))" "1"
declare -A seen
ran=0
used=0
end_by=$((SECONDS + 420))  # the whole tutorial, well inside ctest's 600 s
for original in "${commands[@]}"; do
  case $original in make\ deps | cmake\ *) continue ;; esac
  cmd=${original//\/tmp\/fleet/$WORK/fleet}
  cmd=${cmd//9443/$PORT_9443}
  cmd=${cmd//operator.log/$WORK/operator.log}
  cmd=${cmd//build\/sim\//$BUILD/sim/}
  cmd=${cmd//build\/cli\//$BUILD/cli/}
  cmd=${cmd//build\/operator\//$BUILD/operator/}
  seen[$original]=$((${seen[$original]:-0} + 1))
  ran=$((ran + 1))
  echo "\$ $cmd" >>"$WORK/session.log"
  E2E_CHECKS=$((E2E_CHECKS + 1))
  # Commands that change the shell itself (a variable, a background job) run in it, once.
  if [[ $cmd == export\ * || $cmd =~ ^[A-Z_]+= || $cmd == *'&' || $cmd == kill\ %* ]]; then
    # An assignment's status is its command substitution's; the commands run below see it.
    eval "$cmd" >>"$WORK/session.log" 2>&1 && { [[ ! $cmd =~ ^([A-Z_]+)= ]] || export "${BASH_REMATCH[1]}"; } ||
      e2e_fail "tutorial command failed: $original"$'\n'"$(tail -n 3 "$WORK/session.log")"
    continue
  fi
  reads=0
  [[ $cmd =~ ^(kubectl\ (get|describe|rollout)|curl) ]] && reads=1
  mapfile -t wants < <(expected "$original" "${seen[$original]}")
  used=$((used + ${#wants[@]}))
  deadline=$((SECONDS + 45))
  ((deadline > end_by)) && deadline=$end_by
  while :; do
    out=$(timeout 120 bash -c "$cmd" 2>&1)  # a command that hangs fails instead
    rc=$?
    missing=
    for w in "${wants[@]}"; do [[ $out == *"$w"* ]] || missing=$w; done
    if ((rc == 0)) && [[ -z $missing ]]; then break; fi
    if ((reads == 0 || SECONDS >= deadline)); then
      if ((rc != 0)); then
        e2e_fail "tutorial command failed (exit $rc): $original"$'\n'"$out"
      else
        e2e_fail "tutorial command: $original"$'\n'"did not show [$missing] in time:"$'\n'"$out"
      fi
      break
    fi
    sleep 0.5
  done
  printf '%s\n' "$out" >>"$WORK/session.log"
done
echo "ran $ran tutorial commands"
# An expectation whose command the tutorial no longer has would silently check nothing.
expect_eq "every expectation met its command" "$used" "${#expectations[@]}"
if ((E2E_FAILURES > 0)); then
  echo "--- session" >&2
  tail -n 60 "$WORK/session.log" >&2
  echo "--- operator.log" >&2
  tail -n 20 "$WORK/operator.log" >&2
fi
e2e_summary
