#!/usr/bin/env bash
# Least privilege, proven (issue 12): the operator runs authenticated as its ServiceAccount with
# exactly config/rbac's rules and the operator scenario passes; then each rule is removed in turn
# and the same scenario must fail with Forbidden — so the rules are sufficient and not padded.
# The scenario: the FederatedCluster webhook admits a cluster (after a SubjectAccessReview), a
# Deployment with a policy is scheduled, runs on the members (host Deployment 6/6), is scaled,
# and is deleted (member Deployments and the FederatedDeployment go).
# RBAC_RULES=all (default in `make test`) removes every rule; RBAC_RULES="0 3" only those.
# Runs against flotilla-sim, or the clusters named as in operator_lib.sh.
# Usage: rbac_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: rbac_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: rbac_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=rbac
source "$ROOT/e2e/lib.sh"
source "$ROOT/e2e/operator_lib.sh"

kubectl create namespace $NS >/dev/null
SA_KUBECONFIG=$OPERATOR_KUBECONFIG  # operator_lib.sh: config/rbac and a token of the ServiceAccount
expect_contains "the token is the ServiceAccount" \
  "$(kubectl --kubeconfig "$SA_KUBECONFIG" get pods -n kube-system 2>&1)" \
  'User "system:serviceaccount:flotilla-system:flotilla-operator" cannot list resource "pods" in API group "" in the namespace "kube-system"'

kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: spread, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement:
    clusterAffinity: {labelSelector: {matchLabels: {env: demo}}}
    replicaScheduling: {type: Divided, division: Weighted,
      weights: [{targetCluster: {clusterNames: [member1]}, weight: 1},
                {targetCluster: {clusterNames: [member2]}, weight: 1},
                {targetCluster: {clusterNames: [member3]}, weight: 1}]}
YAML

deployment() {  # deployment NAME REPLICAS
  kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $1, namespace: $NS}
spec:
  replicas: $2
  selector: {matchLabels: {app: $1}}
  template:
    metadata: {labels: {app: $1}}
    spec:
      containers: [{name: app, image: nginx:1.27, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
YAML
}
member_replicas() {  # member_replicas NAME: the sum of spec.replicas over the members
  local sum=0 m r
  for m in member1 member2 member3; do
    r=$(mkubectl $m get deploy "$1" -n $NS -o jsonpath='{.spec.replicas}' 2>/dev/null)
    sum=$((sum + ${r:-0}))
  done
  echo $sum
}
# A step's command runs again on every poll, so what it checks is read inside it (a "$(...)"
# argument would be read once, when the step starts, and a slow operator would never pass).
members_have() { [[ $(member_replicas "$1") == "$2" ]]; }  # members_have NAME REPLICAS
fdeploy_gone() { [[ -z $(kubectl get fdeploy "$1" -n $NS -o name 2>/dev/null) ]]; }
members_empty() {
  local m
  for m in member1 member2 member3; do
    [[ -n $(mkubectl $m get deploy "$1" -n $NS -o name 2>/dev/null) ]] && return 1
  done
  return 0
}
# The host Deployment's status, written by the status controller from the members' (real
# members without kubelets never get ready pods: there the replica count is what arrives).
host_ready() {
  local field=readyReplicas
  [[ -n $REAL ]] && field=replicas
  [[ $(kubectl get deploy "$1" -n $NS -o jsonpath="{.status.$field}" 2>/dev/null) == "$2" ]]
}
# An RBAC denial (not, say, NamespaceLifecycle's "forbidden: unable to create new content in
# namespace ... because it is being terminated", which a real host may answer for leftovers).
RBAC_DENIED='is forbidden: User "[^"]*" cannot '
forbidden() { grep -q "$RBAC_DENIED" "$WORK/operator-$1.log"; }

# What a failed step leaves for whoever reads the CI log: the binding, the members, the operator.
diagnose() {  # diagnose WORKLOAD OPERATOR-NAME
  local m
  echo "--- $1: ResourceBinding spec.clusters / status:"
  kubectl get rb "$1" -n $NS -o jsonpath='{.metadata.generation} {.spec.replicas} {.spec.clusters} {.status}{"\n"}' 2>&1
  for m in member1 member2 member3; do
    echo "--- $m: $(mkubectl $m get deploy "$1" -n $NS -o jsonpath='{.spec.replicas} {.status}' 2>&1)"
  done
  echo "--- the operator's last lines:"
  tail -n 15 "$WORK/operator-$2.log"
}

# admits_cluster OPERATOR-NAME: operator's FederatedCluster webhook admits one an admin creates
# naming a credentials Secret (it asks the API server a SubjectAccessReview first). Sent straight
# to the webhook, as the API server would, so the suite's other writes do not depend on it.
admits_cluster() {
  local port
  port=$(webhook_port "$1") && [[ -n $port ]] || return 1
  curl -s --max-time 5 --cacert "$WORK/certs/ca.crt" -H 'Content-Type: application/json' \
    "https://127.0.0.1:$port/validate-flotilla-io-v1alpha1-federatedcluster" -d @- <<'JSON' |
{"apiVersion":"admission.k8s.io/v1","kind":"AdmissionReview","request":{"uid":"rbac-e2e",
 "kind":{"group":"flotilla.io","version":"v1alpha1","kind":"FederatedCluster"},
 "resource":{"group":"flotilla.io","version":"v1alpha1","resource":"federatedclusters"},
 "operation":"CREATE","name":"probe",
 "userInfo":{"username":"kubernetes-admin","groups":["system:masters","system:authenticated"]},
 "object":{"apiVersion":"flotilla.io/v1alpha1","kind":"FederatedCluster","metadata":{"name":"probe"},
   "spec":{"apiEndpoint":"https://127.0.0.1:1","secretRef":{"name":"member1-credentials"}}}}}
JSON
    grep -q '"allowed":true'
}

# scenario OPERATOR-NAME WORKLOAD: 0 when every step converged with no Forbidden in the log.
# With STOP_ON_FORBIDDEN, it returns as soon as the operator logs a Forbidden (a removed rule).
scenario() {
  local op=$1 w=$2 limit=${LIMIT:-30}
  step() {  # step DESCRIPTION COMMAND...: waits for the command, or for a Forbidden
    local what=$1 deadline=$((SECONDS + limit))
    shift
    while ((SECONDS < deadline)); do
      "$@" >/dev/null 2>&1 && return 0
      [[ -n ${STOP_ON_FORBIDDEN:-} ]] && forbidden "$op" && { echo "$what: Forbidden"; return 1; }
      [[ -f $WORK/operator-$op.pid ]] && ! kill -0 "$(cat "$WORK/operator-$op.pid")" 2>/dev/null &&
        { echo "$what: the operator exited"; return 1; }
      sleep 0.1
    done
    echo "$what: did not happen within ${limit}s"
    diagnose "$w" "$op"  # printed with the failure, for whoever reads the CI log
    return 1
  }
  step "a FederatedCluster admitted" admits_cluster "$op" || return 1
  deployment "$w" 6
  step "scheduled" scheduled "$w" || return 1
  step "6 replicas on the members" members_have "$w" 6 || return 1
  step "host Deployment status 6/6" host_ready "$w" 6 || return 1
  deployment "$w" 9
  step "scaled to 9 on the members" members_have "$w" 9 || return 1
  kubectl delete deploy "$w" -n $NS --wait=false >/dev/null
  step "member Deployments removed" members_empty "$w" || return 1
  step "FederatedDeployment removed" fdeploy_gone "$w" || return 1
  forbidden "$op" && { echo "Forbidden in the log: $(grep "$RBAC_DENIED" "$WORK/operator-$op.log" | head -1)"; return 1; }
  return 0
}

# --- Exactly config/rbac: the whole scenario passes, nothing is forbidden ---
start_operator full || exit 1
result=$(scenario full web 2>&1)
expect_eq "as the ServiceAccount with config/rbac: the scenario converges" "$result" ""
expect_eq "as the ServiceAccount with config/rbac: nothing forbidden" "$(grep -c "$RBAC_DENIED" "$WORK/operator-full.log")" "0"
stop_operator full TERM

# --- Each rule removed: the scenario fails with Forbidden ---
restore() { kubectl apply -k "$ROOT/config/rbac" >/dev/null; }
rules_of() { kubectl get "$@" -o jsonpath='{range .rules[*]}{.apiGroups}{.resources}{.verbs}{"\n"}{end}'; }
mapfile -t CLUSTER_RULES < <(rules_of clusterrole flotilla-operator)
mapfile -t ROLE_RULES < <(rules_of role flotilla-operator -n flotilla-system)
expect_eq "config/rbac has rules" "$(( ${#CLUSTER_RULES[@]} > 0 && ${#ROLE_RULES[@]} > 0 ))" "1"

n=0
try_without() {  # try_without INDEX RULE DESCRIPTION KIND NAME [-n NS]
  local index=$1 description_rule=$2 description="$3 $2"
  shift 3
  kubectl patch "$@" --type json -p "[{\"op\":\"remove\",\"path\":\"/rules/$index\"}]" >/dev/null
  n=$((n + 1))
  local op=minus$n
  launch_operator "$op"
  local out
  out=$(STOP_ON_FORBIDDEN=1 LIMIT=20 scenario "$op" "web$n" 2>&1)
  # The denial must be for a resource of the removed rule (not a leftover of an earlier one).
  local resources
  resources=$(sed -E 's/^\[[^]]*\]\[([^]]*)\].*/\1/' <<<"$description_rule" | tr -d '"' | tr ',' '|')
  E2E_CHECKS=$((E2E_CHECKS + 1))
  if [[ -z $out ]] || ! grep -qE "$RBAC_DENIED[a-z]+ resource \"($resources)\"" "$WORK/operator-$op.log"; then
    e2e_fail "without $description the scenario should fail with Forbidden on ($resources), got: ${out:-success}"
  else
    echo "without $description: $out; the operator logged: $(grep -m1 -o "$RBAC_DENIED"'[a-z]* [a-z]* "[^"]*"[^,]*' "$WORK/operator-$op.log" | head -1)"
  fi
  [[ -f $WORK/operator-$op.pid ]] && stop_operator "$op" KILL 2>/dev/null
  kubectl delete deploy "web$n" -n $NS --ignore-not-found --wait=false >/dev/null 2>&1
  restore
}
selected() { [[ ${RBAC_RULES:-all} == all || " ${RBAC_RULES} " == *" $1 "* ]]; }
for i in "${!CLUSTER_RULES[@]}"; do
  selected "c$i" && try_without "$i" "${CLUSTER_RULES[$i]}" "ClusterRole rule $i" clusterrole flotilla-operator
done
for i in "${!ROLE_RULES[@]}"; do
  selected "r$i" && try_without "$i" "${ROLE_RULES[$i]}" "Role rule $i" role flotilla-operator -n flotilla-system
done

e2e_summary
