#!/usr/bin/env bash
# Auto-migration end to end (issue 14; seed 003 live): weights 1:1:1, 6 replicas running 2:2:2,
# member1 squeezed (its nodes' allocatable patched down, its pods deleted) so it can run 1 ->
# after podUnschedulableFor the binding's estimatedCapacity says member1=1 and the placement is
# the planner's answer (flotillactl plan; plus overflow with keepUnschedulableReplicas). Then
# member1 relieved -> back to 2:2:2. Checked: the placement changes exactly twice, and the sum of
# available replicas over the members (sampled every 200 ms) never drops during either move.
# The squeeze needs a member that schedules pods: flotilla-sim's binder, or real members with
# kube-scheduler and kubelets (FLOTILLA_E2E_MEMBERS_RUN_PODS=1), where the squeeze is a pod per
# node that takes all but 700m / 300m of it (a kubelet keeps rewriting its node's allocatable).
# Usage: automigration_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: automigration_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: automigration_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
if [[ -n ${FLOTILLA_E2E_HOST_KUBECONFIG:-} && ${FLOTILLA_E2E_MEMBERS_RUN_PODS:-} != 1 ]]; then
  echo "automigration e2e: needs members that schedule pods (FLOTILLA_E2E_MEMBERS_RUN_PODS=1); skipped"
  exit 0
fi
NS=migrate
source "$ROOT/e2e/operator_lib.sh"
source "$ROOT/e2e/move_lib.sh"

UNSCHEDULABLE_FOR=5
CAPACITY_TTL=60
start_operator a || exit 1
eventually 30 fleet_ready ||
  e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"
kubectl create namespace "$NS" >/dev/null 2>&1

policy() {  # NAME KEEP
  kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: $1, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    replicaScheduling:
      type: Divided
      division: Weighted
      weights: [{targetCluster: {clusterNames: ["*"]}, weight: 1}]
  autoMigration:
    podUnschedulableFor: ${UNSCHEDULABLE_FOR}s
    keepUnschedulableReplicas: $2
    capacityTTL: ${CAPACITY_TTL}s
YAML
}
workload() {  # NAME POLICY
  kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: $NS
  labels: {app: $1, flotilla.io/propagation-policy: $2}
spec:
  replicas: 6
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 500m, memory: 64Mi}}
YAML
}
# member1's nodes: room for exactly one 500m pod (700m + 300m), or their full capacity again.
member1_cpu() {  # CPU_NODE1 CPU_NODE2
  if [[ -n $REAL ]]; then member1_hogs "$@"; return; fi
  local i=1 node
  for node in $(mkubectl member1 get nodes -o name); do
    local cpu=$1
    ((i == 2)) && cpu=$2
    mkubectl member1 patch "$node" --subresource=status --type merge \
      -p "{\"status\":{\"allocatable\":{\"cpu\":\"$cpu\"}}}" >/dev/null
    i=$((i + 1))
  done
}
# Real members: a pod bound to each node (no scheduler involved) requesting all of its CPU but
# what is to be left; "4 4" (relief) removes them.
member1_hogs() {
  mkubectl member1 create namespace squeeze >/dev/null 2>&1
  mkubectl member1 delete pods -n squeeze --all --wait=true >/dev/null 2>&1
  [[ $1 == 4 ]] && return 0
  local i=1 node left millis
  for node in $(mkubectl member1 get nodes -o jsonpath='{.items[*].metadata.name}'); do
    left=$1
    ((i >= 2)) && left=$2
    millis=$(($(mkubectl member1 get node "$node" -o jsonpath='{.status.allocatable.cpu}') * 1000 - ${left%m}))
    mkubectl member1 apply -f - >/dev/null <<YAML
apiVersion: v1
kind: Pod
metadata: {name: hog-$i, namespace: squeeze}
spec:
  nodeName: $node
  containers: [{name: hog, image: busybox:1.36, resources: {requests: {cpu: ${millis}m}}}]
YAML
    i=$((i + 1))
  done
}
member1_available() { [[ $(mkubectl member1 get deploy "$1" -n "$NS" -o jsonpath='{.status.availableReplicas}') == "$2" ]]; }
unschedulable_on_member1() {
  [[ $(mkubectl member1 get pods -n "$NS" -l "app=$1" \
    -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="PodScheduled")].reason}{"\n"}{end}' |
    grep -c Unschedulable) -ge 1 ]]
}
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }

scenario() {  # WORKLOAD POLICY KEEP
  local w=$1 keep=$3
  echo "--- $w (keepUnschedulableReplicas: $keep) ---"
  policy "$2" "$keep"
  workload "$w" "$2"
  eventually 60 converged "$w" || { e2e_fail "$w should run 6/6: $(kubectl get rb "$w" -n "$NS" -o yaml)"; return; }
  expect_eq "$w: first placement" "$(placement "$w")" "member1=2 member2=2 member3=2"
  watch_placement "$w"

  # --- Squeeze member1 ---
  local t0 t1 baseline expected samples
  t0=$(now)
  member1_cpu 700m 300m
  mkubectl member1 delete pods -n "$NS" -l "app=$w" --wait=false >/dev/null
  eventually 20 unschedulable_on_member1 "$w" ||
    e2e_fail "$w: a pod on member1 should be Unschedulable: $(mkubectl member1 get pods -n "$NS" -o wide)"
  eventually 10 member1_available "$w" 1 ||
    e2e_fail "$w: member1 should run 1 available: $(mkubectl member1 get pods -n "$NS" -o wide)"
  baseline=$(available_sum "$w")
  start_sampler "$w" "$w-migration"
  expected=$(expected_plan 6 '{"member1": 2, "member2": 2, "member3": 2}' '{"member1": 1}' "$NS/$w" "$keep")
  eventually 30 placement_is "$w" "$expected" ||
    e2e_fail "$w: placement should become the planner's [$expected]: $(placement "$w")"
  t1=$(now)
  echo "$w: squeeze -> moved placement [$(placement "$w")]: $(since "$t0") s (podUnschedulableFor ${UNSCHEDULABLE_FOR}s included)"
  expect_eq "$w: estimatedCapacity" "$(rb_field "$w" '{.status.autoMigration.estimatedCapacity}')" '{"member1":1}'
  expect_eq "$w: lastScheduleType" "$(rb_field "$w" '{.status.lastScheduleType}')" "MigrationSchedule"
  expect_contains "$w: get rb shows the new placement" "$(kubectl get rb "$w" -n "$NS")" "$expected"
  eventually 30 converged "$w" || e2e_fail "$w: the migrated placement should run: $(kubectl get rb "$w" -n "$NS" -o yaml)"
  samples=$(stop_sampler "$w-migration")
  echo "$w: migration: ${samples% *} samples, available min ${samples#* } (before: $baseline)"
  ((${samples#* } >= baseline)) || e2e_fail "$w: available replicas dropped to ${samples#* } during the migration (before: $baseline)"
  if [[ $keep == true ]]; then
    expect_eq "$w: member1 keeps its unschedulable replica" "$(member_replicas member1 "$w")" "2"
  else
    expect_eq "$w: member1 runs what it can" "$(member_replicas member1 "$w")" "1"
  fi
  # The estimate outlives the pending pod: nothing moves while member1 stays squeezed.
  quiet a || e2e_fail "the operator should go quiet"
  expect_eq "$w: placement stays while squeezed" "$(placement "$w")" "$expected"
  expect_eq "$w: estimate stays while squeezed" "$(rb_field "$w" '{.status.autoMigration.estimatedCapacity}')" '{"member1":1}'

  # --- Relieve member1 ---
  baseline=$(available_sum "$w")
  start_sampler "$w" "$w-relief"
  t0=$(now)
  member1_cpu 4 4
  eventually $((CAPACITY_TTL + 10)) placement_is "$w" "member1=2 member2=2 member3=2" ||
    e2e_fail "$w: placement should return to 2:2:2: $(placement "$w")"
  echo "$w: relief -> placement back to 2:2:2: $(since "$t0") s (capacityTTL ${CAPACITY_TTL}s)"
  eventually 30 converged "$w" || e2e_fail "$w: 2:2:2 should run: $(kubectl get rb "$w" -n "$NS" -o yaml)"
  echo "$w: relief -> 2:2:2 running: $(since "$t0") s"
  samples=$(stop_sampler "$w-relief")
  echo "$w: failback move: ${samples% *} samples, available min ${samples#* } (before: $baseline)"
  ((${samples#* } >= baseline)) || e2e_fail "$w: available replicas dropped to ${samples#* } during the move back (before: $baseline)"
  # Raised by what member1 can run more (it stays, no longer binding, until capacityTTL).
  local raised
  raised=$(rb_field "$w" '{.status.autoMigration.estimatedCapacity.member1}')
  ((${raised:-99} >= 2)) || e2e_fail "$w: the estimate should be raised to at least 2: $raised"
  echo "$w: estimate after relief: member1=${raised:-none}"
  quiet a || e2e_fail "the operator should go quiet"
  stop_watch "$w"
  expect_eq "$w: placement changes in the whole scenario" "$(placement_changes "$w")" "2"
  echo "$w: placements seen: $(placements_seen "$w")"
  kubectl delete deploy "$w" -n "$NS" --wait=false >/dev/null
}

scenario web migrate false
scenario keep migrate-keep true

echo "automigration e2e: $E2E_CHECKS checks, $E2E_FAILURES failed"
((E2E_FAILURES == 0))
