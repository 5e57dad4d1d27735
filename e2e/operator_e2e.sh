#!/usr/bin/env bash
# flotilla-operator end to end (issue 10): the operator as its own process against a fleet, driven
# and checked with the real kubectl. By default the fleet is flotilla-sim's default topology
# (config/samples/sim/topology.yaml); with FLOTILLA_E2E_HOST_KUBECONFIG and
# FLOTILLA_E2E_MEMBER_KUBECONFIGS (name=path,...; the names must be member1, member2 and member3,
# which the demo policy weights) it runs against those clusters instead (docs/operator.md).
# Usage: operator_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: operator_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: operator_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"

source "$ROOT/e2e/operator_lib.sh"

# --- Start-up failures are one clear line and a non-zero exit ---
out=$("$OPERATOR" --kubeconfig "$WORK/missing" 2>&1)
expect_eq "bad kubeconfig exits 1" "$?" "1"
expect_eq "bad kubeconfig: one line" "$(wc -l <<<"$out")" "1"
expect_contains "bad kubeconfig says why" "$out" "cannot load the host configuration"
out=$("$OPERATOR" --leader-election-namespace e2e-no-such-ns --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 0 2>&1)
expect_eq "missing namespace exits 1" "$?" "1"
expect_contains "missing namespace named" "$out" "namespace e2e-no-such-ns does not exist"
out=$("$OPERATOR" --cluster-probe-period soon 2>&1)
expect_eq "bad flag exits 2" "$?" "2"
expect_contains "bad flag named" "$out" "--cluster-probe-period"
expect_contains "--help lists flags" "$("$OPERATOR" --help)" "--cluster-failover-grace"

# --- The demo: Deployment -> FederatedDeployment -> ResourceBinding, scheduled over both regions ---
start_operator a || exit 1
eventually 30 fleet_ready ||
  e2e_fail "members should turn Ready: $(kubectl get fc -o wide 2>&1)"
expect_eq "member3 reports its version" "$(kubectl get fc member3 -o jsonpath='{.status.kubernetesVersion}' | cut -c1)" "v"
expect_contains "member2 resources collected" "$(kubectl get fc member2 -o jsonpath='{.status.resources.allocatable.cpu}')" "" 
expect_contains "member2 serves apps/v1" "$(kubectl get fc member2 -o jsonpath='{.status.apiEnablements[*].groupVersion}')" "apps/v1"
kubectl create namespace $NS >/dev/null 2>&1
sed "s/namespace: demo/namespace: $NS/" "$ROOT/config/samples/demo/02-policy.yaml" | kubectl apply -f - >/dev/null
start=$(date +%s.%N)
sed "s/namespace: demo/namespace: $NS/" "$ROOT/config/samples/demo/03-deployment.yaml" | kubectl apply -f - >/dev/null
eventually 30 scheduled web || e2e_fail "web should be scheduled: $(kubectl describe rb web -n $NS 2>&1)"
echo "kubectl apply -> Scheduled: $(echo "$(date +%s.%N) - $start" | bc) s"
out=$(kubectl get fdeploy web -n $NS -o jsonpath='{.metadata.ownerReferences[0].kind}/{.metadata.ownerReferences[0].name}')
expect_eq "FederatedDeployment owned by the Deployment" "$out" "Deployment/web"
expect_eq "template copied" "$(kubectl get fdeploy web -n $NS -o jsonpath='{.spec.template.spec.template.spec.containers[0].image}')" "nginx:1.27"
out=$(kubectl get rb -n $NS)
expect_contains "get rb columns" "$(head -1 <<<"$out")" "SCHEDULED   FULLYAPPLIED   REPLICAS   PLACEMENT"
expect_contains "get rb row: Scheduled True" "$(grep '^web ' <<<"$out")" "True"
expect_eq "placement sums to 6" "$(placement_sum web)" "6"
regions=$(for c in $(rb_field web '{.spec.clusters[*].name}'); do kubectl get fc "$c" -o jsonpath='{.spec.region}{"\n"}'; done | sort -u | wc -l)
expect_eq "placement spans both regions" "$regions" "2"
expect_contains "PLACEMENT column" "$(grep '^web ' <<<"$out")" "$(rb_field web '{.status.placementSummary}')"
expect_eq "FirstSchedule" "$(rb_field web '{.status.lastScheduleType}')" "FirstSchedule"
# The CLUSTERS column of `kubectl get fdeploy` names every cluster of the placement.
clusters_listed() {
  [[ $(kubectl get fdeploy web -n $NS --no-headers | awk '{print $3}') == \
     "$(rb_field web '{.spec.clusters[*].name}' | tr ' ' '\n' | sort | paste -sd, -)" ]]
}
eventually 30 clusters_listed ||
  e2e_fail "fdeploy CLUSTERS should list the placement's clusters: $(kubectl get fdeploy web -n $NS 2>&1); rb: $(rb_field web '{.spec.clusters[*].name}')"
expect_contains "Scheduled event" "$(kubectl get events -n $NS --field-selector involvedObject.kind=ResourceBinding,involvedObject.name=web,reason=Scheduled -o jsonpath='{.items[*].message}')" "FirstSchedule"

# --- A workload that fits nowhere: NoClusterFit, kube-scheduler style, and an Event ---
kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: huge, namespace: $NS, labels: {app: huge, flotilla.io/propagation-policy: demo-spread}}
spec:
  replicas: 2
  selector: {matchLabels: {app: huge}}
  template:
    metadata: {labels: {app: huge}}
    spec:
      containers: [{name: app, image: nginx, resources: {requests: {cpu: "500"}}}]
YAML
nofit() { [[ $(rb_field huge '{.status.conditions[?(@.type=="Scheduled")].reason}') == NoClusterFit ]]; }
eventually 30 nofit || e2e_fail "huge should be NoClusterFit: $(kubectl get rb huge -n $NS -o yaml 2>&1)"
out=$(kubectl describe rb huge -n $NS)
expect_contains "describe: kube-scheduler-style message" "$out" "0/3 clusters are available: 3 Insufficient cpu."
expect_contains "describe: FailedScheduling event" "$out" "FailedScheduling"
expect_eq "nothing placed" "$(rb_field huge '{.spec.clusters}')" ""

# --- Scale: ScaleSchedule, existing replicas stay where they are (avoidDisruption) ---
declare -A before=()
for c in $(rb_field web '{.spec.clusters[*].name}'); do
  before[$c]=$(rb_field web "{.spec.clusters[?(@.name==\"$c\")].replicas}")
done
kubectl scale deployment web -n $NS --replicas 9 >/dev/null
scaled() { [[ $(placement_sum web) == 9 && $(rb_field web '{.status.lastScheduleType}') == ScaleSchedule ]]; }
eventually 30 scaled || e2e_fail "scale to 9 should be a ScaleSchedule: $(kubectl get rb web -n $NS -o yaml)"
for c in "${!before[@]}"; do
  now=$(rb_field web "{.spec.clusters[?(@.name==\"$c\")].replicas}")
  ((${now:-0} >= ${before[$c]})) || e2e_fail "$c went from ${before[$c]} to ${now:-0} replicas on a scale-up"
done

# --- Weights: ReconcileSchedule ---
kubectl patch pp demo-spread -n $NS --type json \
  -p '[{"op":"replace","path":"/spec/placement/replicaScheduling/weights/1/weight","value":3}]' >/dev/null
reconciled() { [[ $(rb_field web '{.status.lastScheduleType}') == ReconcileSchedule ]]; }
eventually 30 reconciled || e2e_fail "a weight change should be a ReconcileSchedule: $(kubectl get rb web -n $NS -o yaml)"
expect_eq "still 9 placed" "$(placement_sum web)" "9"

# --- Removing the label un-federates; putting it back federates again ---
kubectl label deployment web -n $NS flotilla.io/propagation-policy- >/dev/null
# (the demo policy also selects every Deployment of the namespace by kind: it still governs web)
expect_eq "still federated through the policy's selector" "$(kubectl get fdeploy web -n $NS -o name 2>&1)" "federateddeployment.flotilla.io/web"
kubectl label deployment web -n $NS flotilla.io/propagation-policy=demo-spread >/dev/null

# --- Restart: SIGTERM, start again; no ResourceBinding changes ---
versions() { kubectl get rb,fdeploy -n $NS -o jsonpath='{range .items[*]}{.kind}/{.metadata.name}={.metadata.resourceVersion} {end}'; }
# Everything the changes above set off is done (the weight change re-binds and re-tries every
# binding of the policy) before the versions are taken.
quiet a || e2e_fail "the operator should go quiet before the restart"
rbv=$(versions)
stop_operator a TERM
expect_eq "SIGTERM exits 0" "$?" "0"
expect_contains "graceful stop logged" "$(cat "$WORK/operator-a.log")" "flotilla-operator stopped (exit 0)"
start_operator a || exit 1
settled() {
  local m
  m=$(metrics a)
  [[ $m == *'flotilla_scheduler_queue_depth{queue="active"} 0'* && $m == *'flotilla_scheduler_queue_depth{queue="inflight"} 0'* ]] &&
    grep -q 'flotilla_controller_reconcile_total{controller="binding"} [1-9]' <<<"$m"
}
eventually 30 settled || e2e_fail "the restarted operator should settle: $(metrics a | grep -E 'queue_depth|reconcile_total')"
quiet a || e2e_fail "the restarted operator should go quiet"
expect_eq "restart changes no binding or FederatedDeployment" "$(versions)" "$rbv"

# --- A member goes away: Ready=Unknown and the not-ready taint within three probe periods ---
if [[ -z $REAL ]]; then
  kill "$(cat "$WORK/fleet/member3.pid")"
  t0=$SECONDS
  notready() {
    [[ $(kubectl get fc member3 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == Unknown &&
       $(kubectl get fc member3 -o jsonpath='{.spec.taints[*].key}') == *cluster.flotilla.io/not-ready* ]]
  }
  eventually $((3 * PERIOD + 5)) notready || e2e_fail "member3 should be Unknown and tainted: $(kubectl get fc member3 -o yaml)"
  elapsed=$((SECONDS - t0))
  ((elapsed <= 3 * PERIOD + 2)) || e2e_fail "member3 took ${elapsed}s to turn Unknown (3 probe periods: $((3 * PERIOD))s)"
  echo "member stopped -> Ready=Unknown + taint: ${elapsed}s"
  expect_contains "Offline condition" "$(kubectl get fc member3 -o jsonpath='{.status.conditions[?(@.type=="Offline")].status}')" "True"
  expect_contains "ClusterUnreachable event" "$(kubectl get events --field-selector involvedObject.name=member3,reason=ClusterUnreachable -o name)" "event"
  "$SIM" up -f "$ROOT/config/samples/sim/topology.yaml" --dir "$WORK/fleet" "${SIM_UP_ARGS[@]}" >/dev/null 2>&1
  ready_again() {
    [[ $(kubectl get fc member3 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True &&
       -z $(kubectl get fc member3 -o jsonpath='{.spec.taints}') ]]
  }
  eventually 30 ready_again || e2e_fail "member3 should be Ready again without taints: $(kubectl get fc member3 -o yaml)"
else
  echo "(real clusters: the member outage check needs flotilla-sim members; skipped)"
fi

# --- Leader election: two operators, the leader is killed, the other takes over ---
start_operator b || exit 1
sleep_until_lease_held() { [[ -n $(kubectl get lease flotilla-operator -n flotilla-system -o jsonpath='{.spec.holderIdentity}') ]]; }
eventually 10 sleep_until_lease_held || e2e_fail "no lease holder"
holder=$(kubectl get lease flotilla-operator -n flotilla-system -o jsonpath='{.spec.holderIdentity}')
leader=a
grep -q "$holder acquired" "$WORK/operator-b.log" && leader=b
other=$([[ $leader == a ]] && echo b || echo a)
stop_operator $leader KILL
t0=$(date +%s.%N)
took_over() { grep -q "acquired flotilla-system/flotilla-operator" "$WORK/operator-$other.log"; }
eventually 15 took_over || e2e_fail "operator $other should take the lease over: $(tail -5 "$WORK/operator-$other.log")"
takeover=$(echo "$(date +%s.%N) - $t0" | bc)
echo "leader killed -> the other leads: ${takeover}s (lease duration 4s)"
(($(echo "$takeover < 6" | bc))) || e2e_fail "take-over took ${takeover}s, more than the lease duration (+2s)"
kubectl scale deployment web -n $NS --replicas 12 >/dev/null
eventually 30 bash -c "[[ \$(kubectl get rb web -n $NS -o jsonpath='{range .spec.clusters[*]}{.replicas}{\"\\n\"}{end}' | awk '{s+=\$1} END {print s}') == 12 ]]" ||
  e2e_fail "the new leader should schedule: $(kubectl get rb web -n $NS -o yaml)"

# --- Deleting the Deployment removes its FederatedDeployment and ResourceBinding (owner references) ---
kubectl delete deployment web -n $NS >/dev/null
gone() { [[ -z $(kubectl get fdeploy,rb -n $NS --field-selector metadata.name=web -o name 2>/dev/null) ]]; }
eventually 30 gone || e2e_fail "fdeploy and rb of web should go with it: $(kubectl get fdeploy,rb -n $NS 2>&1)"

e2e_summary
