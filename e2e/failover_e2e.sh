#!/usr/bin/env bash
# Failover and failback end to end (issue 14): a member process is stopped -> after the policy's
# clusterNotReadyFor its replicas run on the others; a workload that cannot be placed without
# that member keeps its placement, says Scheduled=False and loses nothing; the member restarted
# -> failback: Rebalance brings replicas back (make-before-break, the available replicas sampled
# every 200 ms never drop), failback: Never leaves them, and the returning member's stale replicas
# are removed. On real clusters the members must run pods (FLOTILLA_E2E_MEMBERS_RUN_PODS=1) and
# the suite needs commands that stop and start one (FLOTILLA_E2E_MEMBER_STOP/START, given the
# member's name; e2e/operator_lib.sh); without them it is skipped.
# Usage: failover_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: failover_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: failover_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
if [[ -n ${FLOTILLA_E2E_HOST_KUBECONFIG:-} && (${FLOTILLA_E2E_MEMBERS_RUN_PODS:-} != 1 ||
  -z ${FLOTILLA_E2E_MEMBER_STOP:-} || -z ${FLOTILLA_E2E_MEMBER_START:-}) ]]; then
  echo "failover e2e: needs members that run pods and commands that stop and start one" \
    "(FLOTILLA_E2E_MEMBERS_RUN_PODS=1, FLOTILLA_E2E_MEMBER_STOP, FLOTILLA_E2E_MEMBER_START); skipped"
  exit 0
fi
NS=failover
source "$ROOT/e2e/operator_lib.sh"
source "$ROOT/e2e/move_lib.sh"

NOT_READY_FOR=5
start_operator a || exit 1
all_ready() { [[ $(kubectl get fc -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True) == 3 ]]; }
eventually 30 fleet_ready || e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"
kubectl create namespace "$NS" >/dev/null 2>&1

policy() {  # NAME FAILBACK [CLUSTERS]
  local affinity=""
  [[ -n ${3:-} ]] && affinity="clusterAffinity: {clusterNames: [$3]}"
  kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: $1, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {policy: $1}}}]
  placement:
    $affinity
    replicaScheduling:
      type: Divided
      division: Weighted
      weights: [{targetCluster: {clusterNames: ["*"]}, weight: 1}]
  failover: {clusterNotReadyFor: ${NOT_READY_FOR}s, failback: $2}
YAML
}
workload() {  # NAME POLICY REPLICAS
  kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: $NS
  labels: {app: $1, policy: $2, flotilla.io/propagation-policy: $2}
spec:
  replicas: $3
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
      - name: app
        image: nginx:1.27
        resources: {requests: {cpu: 200m, memory: 64Mi}}
YAML
}
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
no_member3() { [[ $(placement "$1") != *member3* && $(placement_sum "$1") == "$2" ]]; }

policy rebalance Rebalance
policy never Never
policy pinned Rebalance member3
workload web rebalance 6
workload stay never 3
workload pin pinned 2
for w in web stay pin; do
  eventually 60 converged "$w" || e2e_fail "$w should run: $(kubectl get rb "$w" -n "$NS" -o yaml)"
done
expect_eq "web: first placement" "$(placement web)" "member1=2 member2=2 member3=2"
expect_eq "stay: first placement" "$(placement stay)" "member1=1 member2=1 member3=1"
expect_eq "pin: first placement" "$(placement pin)" "member3=2"
watch_placement web
pin_uid=$(kubectl get fdeploy pin -n "$NS" -o jsonpath='{.metadata.uid}')

# --- member3 stops ---
t0=$(now)
member_stop member3
eventually $((NOT_READY_FOR + 20)) no_member3 web 6 ||
  e2e_fail "web should leave member3: $(placement web); $(kubectl get fc member3 -o jsonpath='{.status.conditions}')"
echo "member3 stopped -> web re-placed [$(placement web)]: $(since "$t0") s (3 probe periods + clusterNotReadyFor ${NOT_READY_FOR}s)"
expect_eq "web: lastScheduleType" "$(rb_field web '{.status.lastScheduleType}')" "FailoverSchedule"
SKIP_MEMBER=member3 eventually 30 converged web || e2e_fail "web should run 6 on member1 and member2: $(placement web)"
echo "member3 stopped -> web running 6 elsewhere: $(since "$t0") s"
eventually 10 no_member3 stay 3 || e2e_fail "stay should leave member3: $(placement stay)"
# pin can only run on member3: its placement is kept, Scheduled=False says why, nothing goes.
eventually 10 bash -c "[[ \$(kubectl get rb pin -n $NS -o jsonpath='{.status.conditions[?(@.type==\"Scheduled\")].status}') == False ]]" ||
  e2e_fail "pin should be Scheduled=False: $(kubectl get rb pin -n "$NS" -o yaml)"
expect_eq "pin: placement kept" "$(placement pin)" "member3=2"
expect_eq "pin: reason" "$(condition_reason pin Scheduled)" "NoClusterFit"
expect_contains "pin: message" "$(condition_message pin Scheduled)" "0/3 clusters are available"
expect_contains "pin: FailedScheduling event" "$(kubectl get events -n "$NS" --field-selector involvedObject.name=pin,reason=FailedScheduling -o jsonpath='{.items[*].message}')" "clusters are available"
expect_eq "pin: FederatedDeployment kept" "$(kubectl get fdeploy pin -n "$NS" -o jsonpath='{.metadata.uid}')" "$pin_uid"
expect_eq "pin: host Deployment kept" "$(kubectl get deploy pin -n "$NS" -o jsonpath='{.spec.replicas}')" "2"
expect_contains "get rb shows it" "$(kubectl get rb pin -n "$NS")" "False"

# --- member3 returns ---
baseline=$(available_sum web)
start_sampler web failback
t0=$(now)
member_start member3
eventually 30 all_ready || e2e_fail "member3 should be Ready again: $(kubectl get fc member3 -o yaml)"
t_ready=$(now)
echo "member3 restarted -> Ready: $(since "$t0") s"
eventually 30 placement_is web "member1=2 member2=2 member3=2" || e2e_fail "web should fail back to 2:2:2: $(placement web)"
echo "member3 Ready -> web placed 2:2:2 again: $(since "$t_ready") s"
eventually 30 converged web || e2e_fail "web 2:2:2 should run: $(kubectl get rb web -n "$NS" -o yaml)"
echo "member3 Ready -> web running 2:2:2: $(since "$t_ready") s"
samples=$(stop_sampler failback)
echo "web: failback move: ${samples% *} samples, available min ${samples#* } (before: $baseline)"
((${samples#* } >= baseline)) || e2e_fail "web: available replicas dropped to ${samples#* } during failback (before: $baseline)"
expect_eq "web: failback is a FailoverSchedule" "$(rb_field web '{.status.lastScheduleType}')" "FailoverSchedule"

# failback: Never -> stay stays off member3, and member3 does not keep running its old replicas.
stale_gone() { ! mkubectl member3 get deploy stay -n "$NS" >/dev/null 2>&1; }
eventually 10 stale_gone || e2e_fail "member3 should lose its stale stay Deployment: $(mkubectl member3 get deploy -n "$NS" 2>&1)"
echo "member3 Ready -> stale stay replicas removed: $(since "$t_ready") s"
expect_eq "stay: placement left as failed over" "$(no_member3 stay 3 && echo yes)" "yes"
eventually 10 converged stay || e2e_fail "stay should be converged: $(kubectl get rb stay -n "$NS" -o yaml)"

# pin: schedulable again where it always was; its member Deployment was never deleted.
eventually 20 scheduled pin || e2e_fail "pin should be Scheduled again: $(kubectl get rb pin -n "$NS" -o yaml)"
expect_eq "pin: placement" "$(placement pin)" "member3=2"
eventually 20 converged pin || e2e_fail "pin should run on member3: $(kubectl get rb pin -n "$NS" -o yaml)"

quiet a || e2e_fail "the operator should go quiet"
stop_watch web
expect_eq "web: placement changes (failover, failback)" "$(placement_changes web)" "2"
echo "web: placements seen: $(placements_seen web)"

echo "failover e2e: $E2E_CHECKS checks, $E2E_FAILURES failed"
((E2E_FAILURES == 0))
