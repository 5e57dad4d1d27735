# Shared by the auto-migration and failover suites (issue 14): how a move is watched from the
# outside. Needs operator_lib.sh (NS, WORK, MEMBER_KUBECONFIG).

MEMBERS=(member1 member2 member3)
placed() { rb_field "$1" "{.spec.clusters[?(@.name==\"$2\")].replicas}"; }
# "member1=1 member2=3 member3=2" from the binding's spec.clusters (what the scheduler wrote).
placement() { rb_field "$1" '{range .spec.clusters[*]}{.name}={.replicas}{" "}{end}' | sed 's/ $//'; }
placement_is() { [[ $(placement "$1") == "$2" ]]; }
condition() { rb_field "$1" "{.status.conditions[?(@.type==\"$2\")].status}"; }
condition_reason() { rb_field "$1" "{.status.conditions[?(@.type==\"$2\")].reason}"; }
condition_message() { rb_field "$1" "{.status.conditions[?(@.type==\"$2\")].message}"; }
member_replicas() { mkubectl "$1" get deployment "$2" -n "$NS" -o jsonpath='{.spec.replicas}' 2>/dev/null; }
# Every reachable member holds exactly what the binding says, and its pods are available.
members_match() {
  local w=$1 m want got
  for m in "${MEMBERS[@]}"; do
    [[ -n ${SKIP_MEMBER:-} && $m == "$SKIP_MEMBER" ]] && continue
    want=$(placed "$w" "$m")
    got=$(member_replicas "$m" "$w")
    [[ "$want" == "$got" ]] || return 1
  done
}
converged() {
  [[ $(condition "$1" FullyApplied) == True ]] && members_match "$1" &&
    [[ $(available_sum "$1") == $(rb_field "$1" '{.spec.replicas}') ]]
}

# The members' API servers, for the sampler (curl is ~10x faster than starting kubectl, so a
# sample of three members fits in the 200 ms period).
declare -A MEMBER_SERVER=() MEMBER_TOKEN=()
for m in "${MEMBERS[@]}"; do
  MEMBER_SERVER[$m]=$(kubectl --kubeconfig "${MEMBER_KUBECONFIG[$m]}" config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
  MEMBER_TOKEN[$m]=$(kubectl --kubeconfig "${MEMBER_KUBECONFIG[$m]}" config view --raw --minify -o jsonpath='{.users[0].user.token}')
done
# available_on MEMBER WORKLOAD: the member Deployment's status.availableReplicas (0 when absent),
# or "?" when the member did not answer within 1 s (a loaded machine): that is no measurement.
available_on() {
  local body
  body=$(curl -sk --max-time 1 -H "Authorization: Bearer ${MEMBER_TOKEN[$1]}" \
    "${MEMBER_SERVER[$1]}/apis/apps/v1/namespaces/$NS/deployments/$2" 2>/dev/null) || { echo "?"; return; }
  grep -o '"availableReplicas": *[0-9]*' <<<"$body" | grep -o '[0-9]*$' || echo 0
}
available_sum() {
  local m total=0 n
  for m in "${MEMBERS[@]}"; do
    n=$(available_on "$m" "$1")
    [[ $n == "?" ]] && n=0
    total=$((total + ${n:-0}))
  done
  echo $total
}

# start_sampler WORKLOAD NAME: the sum of available replicas over the members, every 200 ms, to
# $WORK/NAME.samples, until stop_sampler NAME.
start_sampler() {
  (while :; do
    local m line="" total=0 n
    for m in "${MEMBERS[@]}"; do
      n=$(available_on "$m" "$1")
      [[ $n == "?" ]] && { total=""; break; }  # a member did not answer: no sample
      total=$((total + ${n:-0}))
      line+=" $m=${n:-0}"
    done
    [[ -n $total ]] && echo "$total $(date +%T.%N | cut -c1-12)$line"
    sleep 0.2
  done) >"$WORK/$2.samples" 2>/dev/null &
  echo $! >"$WORK/$2.sampler"
}
# stop_sampler NAME: stops it and prints "samples min".
# A sample reads the members one after another, so it is torn: during a move it may read the
# member gaining a replica before the gain and the member losing one after the loss, and sum
# to one less than the fleet ever had (seen under load). Each member's count is therefore the
# larger of two consecutive samples: an upper bound of the fleet at some instant in between,
# which still shows a real drop (one lasts a pod's start-up, several samples).
stop_sampler() {
  kill "$(cat "$WORK/$1.sampler")" 2>/dev/null
  wait "$(cat "$WORK/$1.sampler")" 2>/dev/null
  awk '{
      n = 0
      for (i = 3; i <= NF; i++) { split($i, kv, "="); cur[kv[1]] = kv[2] + 0; n++ }
      if (NR == 1) { for (k in cur) prev[k] = cur[k] }
      total = 0
      for (k in cur) total += (prev[k] > cur[k] ? prev[k] : cur[k])
      if (NR == 1 || total < min) min = total
      delete prev
      for (k in cur) prev[k] = cur[k]
      delete cur
    } END { print NR, min + 0 }' "$WORK/$1.samples"
}

# watch_placement WORKLOAD: every spec.clusters the binding shows, one line per change, to
# $WORK/WORKLOAD.placements (a kubectl watch: no change can slip between two polls).
watch_placement() {
  # (a {range} template makes kubectl's watch exit after the first object: print the list as JSON)
  kubectl get rb "$1" -n "$NS" -w -o jsonpath='{.spec.clusters}{"\n"}' \
    >"$WORK/$1.watch" 2>"$WORK/$1.watch.err" &
  echo $! >"$WORK/$1.watcher"
}
# placement_changes WORKLOAD: how many times spec.clusters changed since watch_placement.
placement_changes() {
  awk 'NF && $0 != last {n++; last = $0} END {print (n > 0 ? n - 1 : 0)}' "$WORK/$1.watch"
}
placements_seen() {
  awk 'NF && $0 != last {printf "[%s] ", $0; last = $0}' "$WORK/$1.watch"
  [[ -s "$WORK/$1.watch.err" ]] && echo "(watch: $(cat "$WORK/$1.watch.err"))"
}
stop_watch() { kill "$(cat "$WORK/$1.watcher")" 2>/dev/null; }

# expected_plan TOTAL CURRENT_JSON CAPACITY_JSON KEY [keep] [rebalance]: the planner's placement
# for weights 1:1:1 over the three members, as "member1=1 member2=3 member3=2" (flotillactl plan).
expected_plan() {
  local keep=${5:-false} rebalance=${6:-false}
  "$CTL" plan -f - <<<"{\"totalReplicas\": $1, \"clusters\": [\"member1\", \"member2\", \"member3\"],
    \"currentReplicas\": $2, \"estimatedCapacity\": $3, \"key\": \"$4\",
    \"keepUnschedulableReplicas\": $keep, \"rebalance\": $rebalance}" |
    grep -o '"placement":{[^}]*}' | grep -o '"[a-z0-9]*":[0-9][0-9]*' | tr -d '"' | tr ':' '=' |
    grep -v '=0$' | sort | tr '\n' ' ' | sed 's/ $//'
}
