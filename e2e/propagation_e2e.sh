#!/usr/bin/env bash
# flotilla-operator end to end, part 2 (issue 11): the members run the workload and the host tells
# the truth — sync and status controllers, checked with the real kubectl on the host and on every
# member. Fleet and operator as in operator_e2e.sh (flotilla-sim, or real clusters through
# FLOTILLA_E2E_HOST_KUBECONFIG / FLOTILLA_E2E_MEMBER_KUBECONFIGS; the readiness and rollout checks
# need running pods: on real members only with FLOTILLA_E2E_MEMBERS_RUN_PODS=1).
# Usage: propagation_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: propagation_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: propagation_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
NS=prop
source "$ROOT/e2e/operator_lib.sh"

MEMBERS=(member1 member2 member3)
rb_field() { kubectl get rb "$1" -n "$NS" -o jsonpath="$2" 2>/dev/null; }
condition() { rb_field "$1" "{.status.conditions[?(@.type==\"$2\")].status}"; }
placed() { rb_field "$1" "{.spec.clusters[?(@.name==\"$2\")].replicas}"; }
member_replicas() { mkubectl "$1" get deployment "$2" -n "$NS" -o jsonpath='{.spec.replicas}' 2>/dev/null; }
# Every member holds exactly what the binding says: its replicas where placed, nothing elsewhere.
members_match() {
  local w=$1 m want got
  for m in "${MEMBERS[@]}"; do
    want=$(placed "$w" "$m")
    got=$(member_replicas "$m" "$w")
    [[ "$want" == "$got" ]] || return 1
  done
}
running_pods() {
  local total=0 m n
  for m in "${MEMBERS[@]}"; do
    n=$(mkubectl "$m" get pods -n "$NS" -l "app=$1" --field-selector status.phase=Running -o name 2>/dev/null | wc -l)
    total=$((total + n))
  done
  echo $total
}
fully_applied() { [[ $(condition "$1" FullyApplied) == True ]] && members_match "$1"; }
host_ready() { [[ $(kubectl get deploy "$1" -n "$NS" -o jsonpath='{.status.readyReplicas}/{.spec.replicas}') == "$2/$2" ]]; }

start_operator a || exit 1
eventually 30 fleet_ready ||
  e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"
kubectl create namespace "$NS" >/dev/null 2>&1
sed "s/namespace: demo/namespace: $NS/" "$ROOT/config/samples/demo/02-policy.yaml" | kubectl apply -f - >/dev/null

# --- The demo runs on the members, the host tells the truth ---
t0=$(date +%s.%N)
sed "s/namespace: demo/namespace: $NS/" "$ROOT/config/samples/demo/03-deployment.yaml" | kubectl apply -f - >/dev/null
eventually 30 fully_applied web || e2e_fail "web should be FullyApplied with members matching: $(kubectl get rb web -n "$NS" -o yaml 2>&1)"
echo "kubectl apply -> FullyApplied: $(echo "$(date +%s.%N) - $t0" | bc) s"
out=$(kubectl get rb -n "$NS")
expect_contains "get rb: Scheduled and FullyApplied" "$(grep '^web ' <<<"$out")" "True        True"
for m in "${MEMBERS[@]}"; do
  if [[ -n $(placed web "$m") ]]; then
    labels=$(mkubectl "$m" get deployment web -n "$NS" -o jsonpath='{.metadata.labels}')
    expect_contains "$m: managed-by label" "$labels" '"flotilla.io/managed-by":"flotilla"'
    expect_contains "$m: binding annotation" "$(mkubectl "$m" get deployment web -n "$NS" -o jsonpath='{.metadata.annotations}')" "\"flotilla.io/binding\":\"$NS/web\""
    expect_contains "$m: namespace labelled as Flotilla's" "$(mkubectl "$m" get ns "$NS" -o jsonpath='{.metadata.labels}')" '"flotilla.io/managed-by":"flotilla"'
  fi
done
if [[ -n $PODS_RUN ]]; then
  eventually 30 host_ready web 6 || e2e_fail "host deployment should be 6/6: $(kubectl get deploy web -n "$NS" -o yaml)"
  echo "kubectl apply -> 6/6 Ready on the host: $(echo "$(date +%s.%N) - $t0" | bc) s"
  expect_eq "6 Running pods over the members" "$(running_pods web)" "6"
  expect_contains "kubectl get deploy shows 6/6" "$(kubectl get deploy web -n "$NS")" "6/6"
  out=$(timeout 30 kubectl rollout status deployment/web -n "$NS" 2>&1)
  expect_eq "rollout status returns 0" "$?" "0"
  eventually 10 bash -c "kubectl get fdeploy web -n $NS | grep -q '6/6'" || e2e_fail "fdeploy READY 6/6: $(kubectl get fdeploy -n "$NS")"
  out=$(kubectl get fdeploy web -n "$NS" -o jsonpath='{range .status.clusters[*]}{.name}={.readyReplicas}/{.replicas}:{.propagation} {end}')
  expect_contains "per-cluster status" "$out" "member1="
  expect_contains "per-cluster propagation" "$out" ":OK"
  expect_eq "clusters sorted by name" "$(kubectl get fdeploy web -n "$NS" -o jsonpath='{.status.clusters[*].name}')" "$(kubectl get fdeploy web -n "$NS" -o jsonpath='{.status.clusters[*].name}' | tr ' ' '\n' | sort | xargs)"
  expect_contains "binding aggregated status" "$(rb_field web '{.status.aggregatedStatus[*].health}')" "Healthy"
fi

# --- Restart over the converged demo: zero writes on the host and on every member ---
quiet a || e2e_fail "the operator should go quiet over the converged demo"
# A real host's namespace controller is still emptying the namespaces earlier suites deleted (one
# DELETE per resource type, per pass); those writes are not Flotilla's, so they must be over first.
eventually 120 no_terminating || e2e_fail "namespaces still terminating: $(kubectl get ns)"
declare -A before_writes=()
before_writes[host]=$(writes "$KUBECONFIG")
host_lines_before=$(write_lines "$KUBECONFIG")
for m in "${MEMBERS[@]}"; do before_writes[$m]=$(writes "${MEMBER_KUBECONFIG[$m]}" member); done
member_versions() { for m in "${MEMBERS[@]}"; do mkubectl "$m" get deploy -n "$NS" -o jsonpath='{range .items[*]}{.metadata.name}={.metadata.resourceVersion} {end}'; done; }
mv_before=$(member_versions)
stop_operator a TERM
start_operator a || exit 1
connected() { [[ $(metrics a | grep -c 'flotilla_member_cluster_ready{cluster="member[123]",status="True"} 1') == 3 ]]; }
eventually 30 connected || e2e_fail "the restarted operator should see every member Ready"
# Every controller has had its full pass (including the 1 s retries while members connect).
quiet a || e2e_fail "the restarted operator should go quiet"
expect_contains "the restarted operator did reconcile" "$(metrics a)" 'flotilla_controller_reconcile_total{controller="status"}'
host_writes_after=$(writes "$KUBECONFIG")
if [[ $host_writes_after != "${before_writes[host]}" ]]; then
  echo "restart: host write counters that changed:"
  diff <(echo "$host_lines_before") <(write_lines "$KUBECONFIG") | grep '^[<>]'
fi
expect_eq "restart: host writes" "$host_writes_after" "${before_writes[host]}"
for m in "${MEMBERS[@]}"; do
  if [[ -z $REAL ]]; then
    expect_eq "restart: $m writes" "$(writes "${MEMBER_KUBECONFIG[$m]}" member)" "${before_writes[$m]}"
  else
    # A real member's own controllers (namespace deletion of earlier runs, garbage collection)
    # also write Deployments; the resourceVersions below are the check there.
    echo "restart: $m served $(($(writes "${MEMBER_KUBECONFIG[$m]}" member) - ${before_writes[$m]})) Deployment/Namespace writes (all clients)"
  fi
done
expect_eq "restart: member Deployments untouched" "$(member_versions)" "$mv_before"

# --- Scale to 9: members follow, existing replicas stay where they are ---
declare -A was=()
for m in "${MEMBERS[@]}"; do was[$m]=$(placed web "$m"); done
kubectl scale deployment web -n "$NS" --replicas 9 >/dev/null
scaled() { [[ $(rb_field web '{.spec.replicas}') == 9 ]] && [[ $(rb_field web '{range .spec.clusters[*]}{.replicas}{"\n"}{end}' | awk '{s+=$1} END {print s}') == 9 ]] && fully_applied web; }
eventually 30 scaled || e2e_fail "members should follow the scale to 9: $(kubectl get rb web -n "$NS" -o yaml)"
for m in "${MEMBERS[@]}"; do
  ((${was[$m]:-0} <= $(placed web "$m"))) || e2e_fail "$m lost replicas on a scale-up (${was[$m]} -> $(placed web "$m"))"
done
if [[ -n $PODS_RUN ]]; then
  out=$(timeout 60 kubectl rollout status deployment/web -n "$NS" 2>&1)
  expect_eq "rollout status after the scale" "$?" "0"
  expect_eq "9 Running pods" "$(running_pods web)" "9"
fi

# --- A new image: every member rolls; rollout status waits until all are done ---
kubectl set image deployment/web -n "$NS" web=nginx:1.28 >/dev/null
if [[ -n $PODS_RUN ]]; then
  out=$(timeout 90 kubectl rollout status deployment/web -n "$NS" 2>&1)
  expect_eq "rollout status after the image change" "$?" "0"
  for m in "${MEMBERS[@]}"; do
    [[ -z $(placed web "$m") ]] && continue
    got=$(mkubectl "$m" get deployment web -n "$NS" -o jsonpath='{.spec.template.spec.containers[0].image} {.status.updatedReplicas}/{.status.replicas}/{.status.readyReplicas}')
    r=$(placed web "$m")
    expect_eq "$m rolled out when rollout status returned" "$got" "nginx:1.28 $r/$r/$r"
  done
else
  image_everywhere() { for m in "${MEMBERS[@]}"; do [[ -z $(placed web "$m") ]] && continue; [[ $(mkubectl "$m" get deployment web -n "$NS" -o jsonpath='{.spec.template.spec.containers[0].image}') == nginx:1.28 ]] || return 1; done; }
  eventually 30 image_everywhere || e2e_fail "every member should get the new image"
fi

# --- An override: another image on member1 only ---
kubectl patch fdeploy web -n "$NS" --type merge -p '{"spec":{"overrides":[{"clusterName":"member1","patches":[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:1.29-member1"}]}]}}' >/dev/null
overridden() {
  [[ $(mkubectl member1 get deployment web -n "$NS" -o jsonpath='{.spec.template.spec.containers[0].image}') == nginx:1.29-member1 ]] &&
    [[ $(mkubectl member2 get deployment web -n "$NS" -o jsonpath='{.spec.template.spec.containers[0].image}') == nginx:1.28 ]]
}
eventually 30 overridden || e2e_fail "member1 only should run the override image"
# A patch that cannot apply fails that cluster only, naming the pointer.
kubectl patch fdeploy web -n "$NS" --type merge -p '{"spec":{"overrides":[{"clusterName":"member3","patches":[{"op":"replace","path":"/spec/nope/0","value":1}]}]}}' >/dev/null
badpatch() { [[ $(rb_field web '{.status.aggregatedStatus[?(@.clusterName=="member3")].propagation}') == UpdateFailed ]]; }
eventually 30 badpatch || e2e_fail "member3 should be UpdateFailed: $(kubectl get rb web -n "$NS" -o yaml)"
expect_contains "FullyApplied names the pointer" "$(rb_field web '{.status.conditions[?(@.type=="FullyApplied")].message}')" "/spec/nope/0"
expect_eq "FullyApplied False" "$(condition web FullyApplied)" "False"
kubectl patch fdeploy web -n "$NS" --type merge -p '{"spec":{"overrides":null}}' >/dev/null
eventually 30 fully_applied web || e2e_fail "web should be FullyApplied again without overrides"

# --- An unmanaged Deployment of the same name on a member: left alone, reported, others proceed ---
mkubectl member2 create namespace "$NS" >/dev/null 2>&1
mkubectl member2 create deployment clash -n "$NS" --image=busybox:1.36 --replicas=1 >/dev/null
# Its spec and metadata (the member's own controller writes its status, so not resourceVersion).
clash_state() { mkubectl member2 get deployment clash -n "$NS" -o jsonpath='{.metadata.generation} {.metadata.labels} {.metadata.annotations} {.spec.template.spec.containers[0].image}'; }
clash_before=$(clash_state)
sed -e "s/namespace: demo/namespace: $NS/" -e 's/name: web/name: clash/' -e 's/app: web/app: clash/g' "$ROOT/config/samples/demo/03-deployment.yaml" | kubectl apply -f - >/dev/null
conflicted() {
  # The state of every kind's clash (a transient error from member2 would be CreationFailed).
  [[ $(rb_field clash '{.status.aggregatedStatus[?(@.clusterName=="member2")].propagation}') == Conflict ]] &&
    [[ $(rb_field clash '{.status.aggregatedStatus[?(@.clusterName=="member2")].message}') == *"Flotilla does not manage it"* ]] &&
    [[ -n $(placed clash member1) && $(member_replicas member1 clash) == $(placed clash member1) ]]
}
eventually 30 conflicted || e2e_fail "clash on member2 should be Conflict and member1 served: $(kubectl get rb clash -n "$NS" -o yaml)"
expect_eq "unmanaged Deployment untouched" "$(clash_state)" "$clash_before"
expect_contains "the conflict is named" "$(rb_field clash '{.status.aggregatedStatus[?(@.clusterName=="member2")].message}')" "Flotilla does not manage it"
expect_contains "an Event says so" "$(kubectl get events -n "$NS" --field-selector involvedObject.name=clash,reason=Conflict -o jsonpath='{.items[*].message}')" "member2"
# The FederatedDeployment's copy is written by the status controller, after the binding's.
fdeploy_shows() { [[ $(kubectl get fdeploy clash -n "$NS" -o jsonpath='{.status.clusters[?(@.name=="member2")].propagation}') == Conflict ]]; }
E2E_CHECKS=$((E2E_CHECKS + 1))
eventually 10 fdeploy_shows || e2e_fail "fdeploy shows it per cluster: $(kubectl get fdeploy clash -n "$NS" -o jsonpath='{.status.clusters}')"

# --- Deleting the host Deployment removes everything, members first ---
kubectl delete deployment clash -n "$NS" >/dev/null
kubectl delete deployment web -n "$NS" >/dev/null
t0=$SECONDS
all_gone() {
  [[ -z $(kubectl get fdeploy,rb -n "$NS" -o name 2>/dev/null) ]] || return 1
  local m
  for m in "${MEMBERS[@]}"; do
    [[ -z $(mkubectl "$m" get deploy -n "$NS" -l flotilla.io/managed-by=flotilla -o name 2>/dev/null) ]] || return 1
  done
}
eventually 30 all_gone || e2e_fail "delete should remove fdeploy, rb and member Deployments: $(kubectl get fdeploy,rb -n "$NS" 2>&1)"
echo "delete -> everything gone: $((SECONDS - t0)) s"
expect_eq "the unmanaged clash survives" "$(clash_state)" "$clash_before"

# --- kill -9 in the middle of applying 20 Deployments; a new operator converges ---
for i in $(seq 1 20); do
  sed -e "s/namespace: demo/namespace: $NS/" -e "s/name: web/name: w$i/" -e "s/app: web/app: w$i/g" -e 's/replicas: 6/replicas: 2/' \
    -e 's/cpu: 500m/cpu: 50m/' -e 's/memory: 256Mi/memory: 32Mi/' "$ROOT/config/samples/demo/03-deployment.yaml"
  echo "---"
done >"$WORK/twenty.yaml"
kubectl apply -f "$WORK/twenty.yaml" >/dev/null &
apply_pid=$!
some_bound() { (($(kubectl get rb -n "$NS" -o name 2>/dev/null | wc -l) >= 3)); }
eventually 30 some_bound || e2e_fail "some bindings should exist before the kill"
stop_operator a KILL
wait $apply_pid
start_operator a || exit 1
converged() {
  local i
  for i in $(seq 1 20); do fully_applied "w$i" || return 1; done
}
eventually 60 converged || e2e_fail "all 20 should converge after kill -9: $(kubectl get rb -n "$NS" 2>&1)"
# Exactly one member Deployment per (workload, target) and nothing orphaned.
orphans=0
count=0
for m in "${MEMBERS[@]}"; do
  while read -r name binding; do
    [[ -z $name ]] && continue
    count=$((count + 1))
    [[ $binding == "$NS/$name" && -n $(placed "$name" "$m") ]] || { orphans=$((orphans + 1)); echo "orphan on $m: $name ($binding)"; }
  done < <(mkubectl "$m" get deploy -n "$NS" -l flotilla.io/managed-by=flotilla -o jsonpath='{range .items[*]}{.metadata.name} {.metadata.annotations.flotilla\.io/binding}{"\n"}{end}')
done
targets=0
for i in $(seq 1 20); do targets=$((targets + $(rb_field "w$i" '{range .spec.clusters[*]}{.name}{"\n"}{end}' | grep -c .))); done
expect_eq "one member Deployment per workload and target" "$count" "$targets"
expect_eq "nothing orphaned" "$orphans" "0"

e2e_summary
