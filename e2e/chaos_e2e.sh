#!/usr/bin/env bash
# Chaos (issue #16): a rollout of Deployments over a flotilla-sim fleet whose host and members
# answer the operator with injected faults (config/samples/sim/faults-10pct.json: 10% of its
# requests get a 500, a 429, a 409 or a dropped answer; watches are cut and resumes answered 410),
# while the operator is killed with SIGKILL at random moments. After each kill a new operator
# must bring the fleet to exactly what the inputs ask for; e2e/chaos_check.py decides that from the
# inputs alone (no lost workload, no duplicate or orphaned member Deployment, the policy's
# placement, every binding Scheduled and FullyApplied, no placement emptied while its workload
# existed, and each workload's ConfigMaps on exactly its clusters: issue #30's followers).
#
# Each round adds a batch of Deployments and scales or deletes some earlier ones, kills the
# operator at a random moment (0-1.5 s) while that work is in flight, starts a new one and times
# the convergence. CHAOS_VARIANT=leader runs two operators with leader election and kills the
# leader each round (the standby takes over; the killed one comes back as the standby).
#
# Usage: chaos_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
# Environment: CHAOS_WORKLOADS (default 100), CHAOS_KILLS (20), CHAOS_VARIANT (single|leader),
# CHAOS_SEED (1), CHAOS_CONVERGE_TIMEOUT (seconds per round, 120), FLOTILLA_E2E_SIM_FAULTS
# (default config/samples/sim/faults-10pct.json; "none" for no faults).
SIM=${1:?usage: chaos_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: chaos_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=chaos
WORKLOADS=${CHAOS_WORKLOADS:-100}
KILLS=${CHAOS_KILLS:-20}
VARIANT=${CHAOS_VARIANT:-single}
SEED=${CHAOS_SEED:-1}
CONVERGE_TIMEOUT=${CHAOS_CONVERGE_TIMEOUT:-120}
if [[ -n ${FLOTILLA_E2E_HOST_KUBECONFIG:-} ]]; then
  echo "chaos e2e: needs flotilla-sim's fault injection; skipped on real clusters"
  exit 0
fi
case ${FLOTILLA_E2E_SIM_FAULTS:-} in
  none) unset FLOTILLA_E2E_SIM_FAULTS ;;
  "") export FLOTILLA_E2E_SIM_FAULTS=$ROOT/config/samples/sim/faults-10pct.json ;;
esac
SIM_TOPOLOGY=$ROOT/e2e/chaos_topology.yaml
source "$ROOT/e2e/lib.sh"
source "$ROOT/e2e/operator_lib.sh"
RANDOM=$SEED  # the workloads, their changes and the kill moments follow from the seed
echo "chaos: $WORKLOADS workloads, $KILLS kills, variant $VARIANT, seed $SEED"

kubectl create namespace $NS >/dev/null
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: chaos-dup, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2, member3]}
    replicaScheduling: {type: Duplicated}
---
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: chaos-div, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {clusterNames: [member1, member2, member3]}
    replicaScheduling:
      type: Divided
      division: Weighted
      avoidDisruption: false
      weights:
        - {targetCluster: {clusterNames: [member1]}, weight: 2}
        - {targetCluster: {clusterNames: [member2]}, weight: 1}
        - {targetCluster: {clusterNames: [member3]}, weight: 1}
YAML

kubectl create configmap shared -n $NS --from-literal=FLEET=chaos >/dev/null

# --- Inputs: what the user asked for, appended as it is asked (chaos_check.py reads them) ---
INPUTS=$WORK/inputs
: >"$INPUTS"
declare -A POLICY=() REPLICAS=()
# Each workload is an application (issue #30): the policies select only its Deployment, which
# reads its own ConfigMap and one every workload shares; both follow it to its clusters.
deployment_yaml() {  # NAME POLICY REPLICAS
  cat <<YAML
apiVersion: v1
kind: ConfigMap
metadata: {name: $1-env, namespace: $NS}
data: {WORKLOAD: $1}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: $1
  namespace: $NS
  labels: {app: $1, flotilla.io/propagation-policy: chaos-$2}
spec:
  replicas: $3
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers:
        - name: app
          image: busybox:1.36
          envFrom: [{configMapRef: {name: $1-env}}, {configMapRef: {name: shared}}]
          resources: {requests: {cpu: 5m, memory: 8Mi}}
---
YAML
}

# --- The binding watch: every placement the host shows, for the "emptied" check ---
kubectl get rb -n $NS -w --output-watch-events \
  -o jsonpath='{.type} {.object.metadata.name} {.object.spec.clusters[*].name}{"\n"}' \
  >"$WORK/rb.watch" 2>"$WORK/rb.watch.err" &
WATCHER=$!
if [[ -n ${CHAOS_DEBUG:-} ]]; then  # every FederatedCluster status, for a failure's analysis
  kubectl get fc -w -o jsonpath='{.metadata.name} {.status.conditions[?(@.type=="Ready")].status} alloc={.status.resources.allocatable} avail={.status.resources.available} apis={.status.apiEnablements[*].groupVersion}{"\n"}' >"$WORK/fc.watch" 2>&1 &
fi
trap 'kill $WATCHER 2>/dev/null; cleanup' EXIT

# --- Operators ---
operators=(a)
[[ $VARIANT == leader ]] && operators=(a b)
# relaunch NAME: launch_operator, noting where this process's lines start in the shared log.
relaunch() {
  stat -c %s "$WORK/operator-$1.log" >"$WORK/operator-$1.offset" 2>/dev/null ||
    echo 0 >"$WORK/operator-$1.offset"
  launch_operator "$1"
}
for op in "${operators[@]}"; do
  echo 0 >"$WORK/operator-$op.offset"
  start_operator "$op" || exit 1
done
eventually 30 fleet_ready || { e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"; exit 1; }
leader() {  # the operator whose process holds the lease now
  local holder op
  holder=$(kubectl get lease flotilla-operator -n flotilla-system -o jsonpath='{.spec.holderIdentity}' 2>/dev/null)
  [[ -z $holder ]] && return 1
  for op in "${operators[@]}"; do
    [[ -f $WORK/operator-$op.pid ]] && grep -q "$holder acquired" "$WORK/operator-$op.log" && { echo "$op"; return 0; }
  done
  return 1
}

# --- The checker, on the fleet as kubectl reads it ---
snapshot() {
  local dir=$WORK/state m
  mkdir -p "$dir"
  kubectl get deployments -n $NS -o json >"$dir/host-deployments.json" 2>/dev/null || return 1
  kubectl get rb -n $NS -o json >"$dir/host-bindings.json" 2>/dev/null || return 1
  for m in member1 member2 member3; do
    mkubectl "$m" get deployments -n $NS -l flotilla.io/managed-by=flotilla -o json >"$dir/$m.json" 2>/dev/null ||
      echo '{"items":[]}' >"$dir/$m.json"  # the namespace does not exist there yet
    mkubectl "$m" get configmaps -n $NS -l flotilla.io/managed-by=flotilla -o json >"$dir/$m-configmaps.json" 2>/dev/null ||
      echo '{"items":[]}' >"$dir/$m-configmaps.json"
  done
}
check() { snapshot && python3 "$ROOT/e2e/chaos_check.py" "$INPUTS" "$WORK/state" "$WORK/rb.watch" >"$WORK/check.out" 2>&1; }
# An operator that exited on its own (a lost Lease, say) is started again, as its Deployment's
# pod would be; the exit and the end of its log are reported, never hidden.
RESTARTS=0
supervise() {
  local op pid
  for op in "${operators[@]}"; do
    [[ -f $WORK/operator-$op.pid ]] || continue
    pid=$(cat "$WORK/operator-$op.pid")
    kill -0 "$pid" 2>/dev/null && continue
    wait "$pid" 2>/dev/null
    echo "operator $op exited on its own (status $?); restarted. Why (its last errors):" >&3
    # Shutdown logs several lines after the cause (a lost Lease, say), so the cause is looked
    # for among this process's lines, not expected in the last ones.
    tail -c +$(($(cat "$WORK/operator-$op.offset") + 1)) "$WORK/operator-$op.log" |
      grep -E '^[^ ]+ error |^flotilla-operator: ' | tail -3 | sed 's/^/    /' >&3
    echo "  and its last lines:" >&3
    tail -4 "$WORK/operator-$op.log" | sed 's/^/    /' >&3
    RESTARTS=$((RESTARTS + 1))
    relaunch "$op"
  done
}
converged_now() { supervise; check; }
exec 3>&1

# --- Rounds: work, a kill in the middle of it, a new operator, convergence ---
per_round=$(((WORKLOADS + KILLS - 1) / KILLS))
created=0
times=()
for round in $(seq 1 "$KILLS"); do
  batch=$WORK/round-$round.yaml
  : >"$batch"
  for _ in $(seq 1 "$per_round"); do
    ((created >= WORKLOADS)) && break
    created=$((created + 1))
    name=$(printf 'w%03d' "$created")
    policy=$([[ $((RANDOM % 2)) == 0 ]] && echo dup || echo div)
    replicas=$((1 + RANDOM % 5))
    POLICY[$name]=$policy REPLICAS[$name]=$replicas
    deployment_yaml "$name" "$policy" "$replicas" >>"$batch"
    echo "$name $policy $replicas" >>"$INPUTS"
  done
  # Changes to earlier workloads in the same round: a scale, and every fourth round a delete.
  changes=()
  existing=("${!REPLICAS[@]}")
  if ((${#existing[@]} > per_round)); then
    name=${existing[$((RANDOM % ${#existing[@]}))]}
    replicas=$((1 + RANDOM % 5))
    REPLICAS[$name]=$replicas
    changes+=("kubectl scale deployment $name -n $NS --replicas $replicas")
    echo "$name ${POLICY[$name]} $replicas" >>"$INPUTS"
    if ((round % 4 == 0)); then
      victim=${existing[$((RANDOM % ${#existing[@]}))]}
      if [[ $victim != "$name" ]]; then
        unset "REPLICAS[$victim]"
        changes+=("kubectl delete deployment $victim -n $NS --wait=false")
        echo "$victim deleted" >>"$INPUTS"
      fi
    fi
  fi
  (
    [[ -s $batch ]] && kubectl apply -f "$batch" >/dev/null
    for c in "${changes[@]}"; do $c >/dev/null; done
  ) &
  work=$!
  # A random moment while that work is being reconciled (chaos timing, not a wait for a state).
  sleep "$((RANDOM % 1500 / 1000)).$(printf '%03d' $((RANDOM % 1000)))"
  supervise  # an operator that exited since the last check is reported, not "killed" unseen
  if [[ $VARIANT == leader ]]; then
    eventually 15 leader >/dev/null || { e2e_fail "round $round: no operator holds the lease"; break; }
    victim_op=$(leader)
  else
    victim_op=a
  fi
  stop_operator "$victim_op" KILL
  wait $work || { e2e_fail "round $round: the user's kubectl failed"; break; }
  t0=$(date +%s.%N)
  relaunch "$victim_op"
  if eventually "$CONVERGE_TIMEOUT" converged_now; then
    took=$(echo "$(date +%s.%N) - $t0" | bc)
    times+=("$took")
    printf 'round %2d: killed %s; converged %.1f s after the restart (%s)\n' "$round" "$victim_op" "$took" "$(cat "$WORK/check.out")"
  else
    e2e_fail "round $round: not converged within ${CONVERGE_TIMEOUT}s after the kill:"$'\n'"$(cat "$WORK/check.out")"
    for op in "${operators[@]}"; do echo "--- operator $op:"; tail -15 "$WORK/operator-$op.log"; done
    break
  fi
done

E2E_CHECKS=$((E2E_CHECKS + 1))
if ((${#times[@]} == KILLS)); then
  printf '%s\n' "${times[@]}" | sort -n | awk -v kills="$KILLS" '{t[NR] = $1; s += $1}
    END {printf "chaos: %d/%d kills converged; after each: median %.1f s, max %.1f s, mean %.1f s\n",
         NR, kills, t[int((NR + 1) / 2)], t[NR], s / NR}'
  faults=$(for c in host member1 member2 member3; do
    kubectl --kubeconfig "$WORK/fleet/$c.kubeconfig" get --raw /metrics 2>/dev/null |
      awk '/^flotilla_sim_injected_faults_total/ {s += $NF} END {print s + 0}'
  done | paste -sd+ | bc)
  echo "chaos: faults injected into the operator's requests: $faults"
  echo "chaos: operators that exited on their own and were restarted: $RESTARTS"
fi
E2E_CHECKS=$((E2E_CHECKS + 1))
[[ -s $WORK/rb.watch ]] || e2e_fail "the binding watch saw nothing: $(cat "$WORK/rb.watch.err")"
e2e_summary
