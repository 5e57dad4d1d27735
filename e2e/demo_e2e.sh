#!/usr/bin/env bash
# `make run` as a person runs it: scripts/demo.sh under a pseudo-terminal (script(1)), its input
# held open. After "Press Ctrl-C" the fleet and the operator must keep serving for 30 s; then a
# Ctrl-C typed into the terminal (the line discipline turns it into SIGINT for the foreground
# group) must stop every process the demo started. A second run in the same directory must work
# as the first did (the first run's webhooks and data must not break it).
# Usage: demo_e2e.sh BUILD_DIR   (BUILD_DIR holds sim/flotilla-sim, operator/flotilla-operator,
# cli/flotillactl)
BUILD=${1:?usage: demo_e2e.sh BUILD_DIR}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
BUILD=$(cd "$BUILD" && pwd)
SIM=$BUILD/sim/flotilla-sim

WORK=$(mktemp -d)
export HOME=$WORK KUBECACHEDIR=$WORK/kube-cache
export FLOTILLA_DEMO_DIR=$WORK/run
demo_pid=
# stop_demo: whatever a demo left running (after a failed check) is stopped, so the next run and
# the next test start clean.
stop_demo() {
  local f
  for f in demo operator; do
    [[ -f $FLOTILLA_DEMO_DIR/$f.pid ]] && kill -KILL "$(cat "$FLOTILLA_DEMO_DIR/$f.pid")" 2>/dev/null
  done
  [[ -n $demo_pid ]] && kill -KILL -- "-$demo_pid" 2>/dev/null
  "$SIM" down --dir "$FLOTILLA_DEMO_DIR" >/dev/null 2>&1
  [[ -n $demo_pid ]] && wait "$demo_pid" 2>/dev/null
  demo_pid=
}
trap 'stop_demo; rm -rf "$WORK"' EXIT

# start_demo LOG: the demo in a new session under script(1), which gives it a terminal; fd 9 is
# the terminal's keyboard.
start_demo() {
  local log=$1
  rm -f "$WORK/keys"
  mkfifo "$WORK/keys"
  SHELL=/bin/bash setsid script -qfec "exec bash '$ROOT/scripts/demo.sh' '$BUILD'" /dev/null \
    <"$WORK/keys" >"$log" 2>&1 &
  demo_pid=$!
  exec 9>"$WORK/keys"
  local deadline=$((SECONDS + 240))
  while ((SECONDS < deadline)); do
    grep -q "Press Ctrl-C" "$log" && return 0
    kill -0 "$demo_pid" 2>/dev/null || break
    sleep 0.2
  done
  e2e_fail "the demo did not reach \"Press Ctrl-C\":"$'\n'"$(tail -n 40 "$log")"
  stop_demo
  exec 9>&-
  return 1
}

# serving: the host, every member and the operator answer, and the demo is still running.
serving() {
  kill -0 "$demo_pid" 2>/dev/null || { echo "the demo exited"; return 1; }
  local c
  for c in host member1 member2 member3; do
    kubectl --kubeconfig "$FLOTILLA_DEMO_DIR/$c.kubeconfig" get --raw /readyz --request-timeout 5s \
      >/dev/null 2>&1 || { echo "$c does not answer /readyz"; return 1; }
  done
  kill -0 "$(cat "$FLOTILLA_DEMO_DIR/operator.pid")" 2>/dev/null || { echo "the operator exited"; return 1; }
  local port
  port=$(grep -o 'serving /healthz.* on https://127.0.0.1:[0-9]*' "$FLOTILLA_DEMO_DIR/operator.log" | grep -o '[0-9]*$' | head -1)
  [[ -n $port ]] || { echo "the operator never logged its health port"; return 1; }
  curl -sk --max-time 5 "https://127.0.0.1:$port/healthz" >/dev/null ||
    { echo "the operator's /healthz does not answer"; return 1; }
}

# ctrl_c: types Ctrl-C into the demo's terminal and checks that the demo and everything it
# started (host, members, operator) are gone.
ctrl_c() {
  local pids=() f
  for f in "$FLOTILLA_DEMO_DIR"/*.pid; do pids+=("$(cat "$f")"); done
  expect_eq "processes of the demo (itself, 3 members, host, operator)" "${#pids[@]}" "6"
  printf '\003' >&9
  local deadline=$((SECONDS + 60))
  while ((SECONDS < deadline)) && kill -0 "$demo_pid" 2>/dev/null; do sleep 0.1; done
  E2E_CHECKS=$((E2E_CHECKS + 1))
  if kill -0 "$demo_pid" 2>/dev/null; then
    e2e_fail "the demo still runs 60 s after Ctrl-C"
    stop_demo
  fi
  wait "$demo_pid" 2>/dev/null
  exec 9>&-
  local pid alive=()
  for pid in "${pids[@]}"; do kill -0 "$pid" 2>/dev/null && alive+=("$pid"); done
  expect_eq "processes left running after Ctrl-C" "${alive[*]}" ""
  demo_pid=
}

# 1. The first run stays up 30 s after "Press Ctrl-C", serving throughout.
if start_demo "$WORK/demo1.log"; then
  out=$(cat "$WORK/demo1.log")
  expect_contains "the workload ran 6/6 on the host" "$out" "deployment.apps/web   6/6"
  up_since=$SECONDS
  while ((SECONDS - up_since < 30)); do
    why=$(serving) || { e2e_fail "$((SECONDS - up_since)) s after \"Press Ctrl-C\": $why"; break; }
    sleep 1
  done
  E2E_CHECKS=$((E2E_CHECKS + 1))
  why=$(serving) || e2e_fail "30 s after \"Press Ctrl-C\": $why"$'\n'"$(tail -n 20 "$WORK/demo1.log")"
  ctrl_c
  expect_contains "the demo says what it stopped" "$(cat "$WORK/demo1.log")" "demo: stopped the operator and the fleet"
fi

# 2. A second run in the same directory works like the first.
if start_demo "$WORK/demo2.log"; then
  out=$(cat "$WORK/demo2.log")
  expect_contains "second run: the previous fleet is replaced" "$out" "was stopped and removed"
  expect_contains "second run: the workload ran 6/6 on the host" "$out" "deployment.apps/web   6/6"
  expect_contains "second run: the webhook refused the bad policy" "$out" "must be >= minGroups"
  ctrl_c
fi

# 3. The operator stopping on its own ends the demo, which says so.
if start_demo "$WORK/demo3.log"; then
  fleet_pids=$(cat "$FLOTILLA_DEMO_DIR"/{host,member1,member2,member3}.pid)
  kill -KILL "$(cat "$FLOTILLA_DEMO_DIR/operator.pid")"
  deadline=$((SECONDS + 30))
  while ((SECONDS < deadline)) && kill -0 "$demo_pid" 2>/dev/null; do sleep 0.1; done
  E2E_CHECKS=$((E2E_CHECKS + 1))
  kill -0 "$demo_pid" 2>/dev/null && e2e_fail "the demo still runs 30 s after its operator died"
  expect_contains "an operator that exits ends the demo, named" "$(cat "$WORK/demo3.log")" "demo: the operator exited"
  left=
  for pid in $fleet_pids; do kill -0 "$pid" 2>/dev/null && left+=" $pid"; done
  expect_eq "clusters left running after the demo ended" "$left" ""
  stop_demo
  exec 9>&-
fi

# 4. A directory the demo did not make is never removed.
mkdir -p "$WORK/mine" && echo keep >"$WORK/mine/host.kubeconfig"
out=$(FLOTILLA_DEMO_DIR=$WORK/mine bash "$ROOT/scripts/demo.sh" "$BUILD" </dev/null 2>&1)
expect_contains "a foreign directory is refused" "$out" "was not made by the demo"
expect_eq "and kept" "$(cat "$WORK/mine/host.kubeconfig")" "keep"

# 5. One demo per directory: while another holds it, a second one refuses and touches nothing.
flock "$FLOTILLA_DEMO_DIR.lock" sleep 60 &
holder=$!
deadline=$((SECONDS + 10))
until ! flock -n "$FLOTILLA_DEMO_DIR.lock" true 2>/dev/null || ((SECONDS > deadline)); do sleep 0.1; done
out=$(bash "$ROOT/scripts/demo.sh" "$BUILD" </dev/null 2>&1)
expect_contains "a second demo on the same directory is refused" "$out" "another demo is running"
kill "$holder" 2>/dev/null
wait "$holder" 2>/dev/null

e2e_summary
