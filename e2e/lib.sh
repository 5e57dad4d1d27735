# Helpers for the kubectl end-to-end suites: start/stop flotilla-sim, poll with a deadline (never a
# fixed sleep), and assertions that print what was expected and what came back.
set -uo pipefail

E2E_FAILURES=0
E2E_CHECKS=0

e2e_fail() {
  echo "FAIL: $*" >&2
  E2E_FAILURES=$((E2E_FAILURES + 1))
}

# expect_contains "description" "haystack" "needle"
expect_contains() {
  E2E_CHECKS=$((E2E_CHECKS + 1))
  if [[ "$2" != *"$3"* ]]; then
    e2e_fail "$1: expected to find [$3] in:"$'\n'"$2"
  fi
}

expect_not_contains() {
  E2E_CHECKS=$((E2E_CHECKS + 1))
  if [[ "$2" == *"$3"* ]]; then
    e2e_fail "$1: did not expect [$3] in:"$'\n'"$2"
  fi
}

expect_eq() {
  E2E_CHECKS=$((E2E_CHECKS + 1))
  if [[ "$2" != "$3" ]]; then
    e2e_fail "$1: expected [$3], got [$2]"
  fi
}

# eventually SECONDS command...: retries every 50 ms until the command succeeds.
eventually() {
  local limit=$1
  shift
  local deadline=$((SECONDS + limit))
  while ((SECONDS < deadline)); do
    if "$@" >/dev/null 2>&1; then return 0; fi
    sleep 0.05
  done
  "$@"
}

# start_sim DIR NAME: starts `flotilla-sim serve` and waits until it answers.
start_sim() {
  local dir=$1 name=$2
  "$SIM" serve --dir "$dir" --name "$name" --bookmark-interval-ms 500 >>"$dir/$name.log" 2>&1 &
  echo $! >"$dir/$name.pid"
  if ! eventually 20 kubectl --kubeconfig "$dir/$name.kubeconfig" get --raw /readyz; then
    echo "flotilla-sim $name did not start:" >&2
    cat "$dir/$name.log" >&2
    return 1
  fi
}

stop_sim() {
  local dir=$1 name=$2 signal=${3:-TERM}
  local pid
  pid=$(cat "$dir/$name.pid" 2>/dev/null) || return 0
  kill -"$signal" "$pid" 2>/dev/null
  wait "$pid" 2>/dev/null
  rm -f "$dir/$name.pid"
}

e2e_summary() {
  echo "$E2E_CHECKS checks, $E2E_FAILURES failed"
  ((E2E_FAILURES == 0))
}
