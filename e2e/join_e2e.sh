#!/usr/bin/env bash
# `flotillactl join` / `unjoin` (issue 27): a fleet whose member3 is not registered; join refuses
# an unreachable member, a kubeconfig without the rights, and a name already taken, writing
# nothing; then registers member3 in one command (Ready within three probe periods, a Deployment
# propagated to it through the joined ServiceAccount); a second join changes nothing; each rule
# of the member ClusterRole removed in turn makes the operator fail there with Forbidden (the rules
# are necessary); unjoin removes the workload and every object join made, on both sides.
# Against flotilla-sim, or the clusters named as in operator_lib.sh (member3 is re-registered by
# join).
# Usage: join_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: join_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: join_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=join
TOPOLOGY=$(mktemp)
python3 - "$ROOT/config/samples/sim/topology.yaml" >"$TOPOLOGY" <<'PY'
import sys
text = open(sys.argv[1]).read()
at = text.index("- name: member3")
print(text[:at] + text[at:].replace("  labels: {env: demo}", "  labels: {env: demo}\n  register: false", 1))
PY
SIM_TOPOLOGY=$TOPOLOGY
source "$ROOT/e2e/lib.sh"
source "$ROOT/e2e/operator_lib.sh"
rm -f "$TOPOLOGY"
M3=${MEMBER_KUBECONFIG[member3]}
if [[ -n $REAL ]]; then  # operator_lib.sh registered member3 the manual way: undo that first
  kubectl delete fc member3 --wait=false >/dev/null 2>&1
  kubectl patch fc member3 --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1
  kubectl delete secret member3-credentials -n flotilla-system >/dev/null 2>&1
  eventually 30 bash -c "! kubectl get fc member3 >/dev/null 2>&1"
fi
expect_eq "member3 starts unregistered" "$(kubectl get fc member3 -o name 2>&1)" \
  'Error from server (NotFound): federatedclusters.flotilla.io "member3" not found'

JOIN=(--cluster-kubeconfig "$M3" --cluster-provider gcp --cluster-region us-east
  --cluster-zone us-east-1a --labels env=demo)
# --- Refusals: nothing is written ---
sed -E 's#server: .*#server: https://127.0.0.1:1#' "$M3" >"$WORK/unreachable.kubeconfig"
out=$("$CTL" join member3 --cluster-kubeconfig "$WORK/unreachable.kubeconfig" --wait 2 2>&1)
expect_eq "an unreachable member: exit 1" "$?" "1"
expect_contains "an unreachable member is named" "$out" \
  "flotillactl: cannot reach the member cluster at https://127.0.0.1:1:"

mkubectl member3 get serviceaccount weak -n default >/dev/null 2>&1 ||
  mkubectl member3 create serviceaccount weak -n default >/dev/null
weak_token=$(mkubectl member3 create token weak -n default --duration 1h)
server=$(kubectl --kubeconfig "$M3" config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
ca=$(kubectl --kubeconfig "$M3" config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
(umask 077 && cat >"$WORK/weak.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: m, cluster: {server: "$server", certificate-authority-data: "$ca"}}]
users: [{name: weak, user: {token: "$weak_token"}}]
contexts: [{name: weak, context: {cluster: m, user: weak}}]
current-context: weak
KUBECONFIG
)
out=$("$CTL" join member3 --cluster-kubeconfig "$WORK/weak.kubeconfig" 2>&1)
expect_eq "a kubeconfig without the rights: exit 1" "$?" "1"
expect_contains "the missing rights are listed" "$out" \
  "the member kubeconfig lacks permissions join needs:
  get namespaces/kube-system
  create namespaces
  get serviceaccounts in namespace flotilla-system"
expect_contains "... including the rules it would grant" "$out" "  list nodes"
expect_eq "... and nothing was created on the member" \
  "$(mkubectl member3 get clusterrole flotilla-member -o name 2>&1)" \
  'Error from server (NotFound): clusterroles.rbac.authorization.k8s.io "flotilla-member" not found'

out=$("$CTL" join member1 "${JOIN[@]}" 2>&1)
expect_eq "a name taken by another cluster: exit 1" "$?" "1"
expect_contains "the taken name is explained" "$out" \
  'flotillactl: the name "member1" is taken: FederatedCluster "member1" registers another cluster'

# --- join ---
start_operator join || exit 1
wait_ready join
out=$("$CTL" join member3 "${JOIN[@]}" 2>&1)
expect_eq "join: exit 0" "$?" "0"
joined_at=$SECONDS
expect_contains "join says what it created" "$out" "member member3: clusterrole/flotilla-member created
member member3: clusterrolebinding/flotilla-member created
member member3: secret/flotilla-member-token created
host: secret/member3-credentials created
host: federatedcluster/member3 created"
member3_ready() {
  [[ $(kubectl get fc member3 -o jsonpath='{.status.conditions[?(@.type=="Ready")].status}') == True ]]
}
# Within three probe periods (the first probe is at once), plus two seconds for a loaded machine
# (suites run in parallel); the wait itself is longer, so a slow run says how slow it was.
eventually 20 member3_ready ||
  e2e_fail "member3 should turn Ready: $(kubectl get fc member3 -o yaml)"
ready_after=$((SECONDS - joined_at))
echo "member3 Ready ${ready_after} s after join"
expect_eq "member3 Ready within three probe periods" "$((ready_after <= 3 * PERIOD + 2))" "1"
out=$("$CTL" join member3 "${JOIN[@]}" 2>&1)
expect_eq "join again: exit 0" "$?" "0"
expect_eq "join again changes nothing" "$(grep -c -E ' (created|configured)$' <<<"$out")" "0"

# A Deployment and its ConfigMap for member3 alone, applied there with the joined ServiceAccount's
# rights.
kubectl create namespace $NS >/dev/null
workload() {  # workload NAMESPACE NAME
  kubectl get ns "$1" >/dev/null 2>&1 || kubectl create namespace "$1" >/dev/null
  kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: to-member3, namespace: $1}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}, {apiVersion: v1, kind: ConfigMap, name: $2-settings}]
  placement: {clusterAffinity: {clusterNames: [member3]}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: $2-settings, namespace: $1}
data: {mode: fast}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: $2, namespace: $1}
spec:
  replicas: 2
  selector: {matchLabels: {app: $2}}
  template:
    metadata: {labels: {app: $2}}
    spec:
      containers: [{name: app, image: nginx:1.27, resources: {requests: {cpu: 100m, memory: 64Mi}}}]
YAML
}
on_member3() {  # on_member3 NAMESPACE NAME REPLICAS
  [[ $(mkubectl member3 get deploy "$2" -n "$1" -o jsonpath='{.spec.replicas}' 2>/dev/null) == "$3" ]] &&
    mkubectl member3 get configmap "$2-settings" -n "$1" >/dev/null 2>&1
}
workload $NS web
eventually 30 on_member3 $NS web 2 ||
  e2e_fail "web should run on member3: $(kubectl get rb web -n $NS -o yaml 2>&1)"
expect_eq "nothing forbidden with the member ClusterRole as join made it" \
  "$(grep -c 'is forbidden: User "system:serviceaccount:flotilla-system:flotilla-member"' "$WORK/operator-join.log")" "0"
stop_operator join TERM

# --- Each rule of the member ClusterRole is necessary ---
mapfile -t RULES < <(mkubectl member3 get clusterrole flotilla-member \
  -o jsonpath='{range .rules[*]}{.apiGroups}{.resources}{.verbs}{"\n"}{end}')
expect_eq "the member ClusterRole has its 5 rules" "${#RULES[@]}" "5"
DENIED='is forbidden: User "system:serviceaccount:flotilla-system:flotilla-member" cannot'
for i in "${!RULES[@]}"; do
  mkubectl member3 patch clusterrole flotilla-member --type json \
    -p "[{\"op\":\"remove\",\"path\":\"/rules/$i\"}]" >/dev/null
  start_operator "r$i" || break
  workload "$NS-r$i" "w$i"  # a namespace member3 does not have yet (the namespaces rule)
  if eventually 30 grep -q "$DENIED" "$WORK/operator-r$i.log"; then
    echo "without rule $i ${RULES[$i]}: $(grep -o "$DENIED [^\"]*\"[^\"]*\"[^\"]*\"[^\"]*\"" "$WORK/operator-r$i.log" | head -1)"
  else
    e2e_fail "without rule $i ${RULES[$i]} the operator should be refused on member3"
  fi
  stop_operator "r$i" TERM
  kubectl delete namespace "$NS-r$i" --wait=false >/dev/null  # its binding goes before unjoin
  "$CTL" join member3 "${JOIN[@]}" >/dev/null 2>&1 || e2e_fail "join should restore the ClusterRole"
done

# --- unjoin: the workload and everything join made go, on both sides ---
start_operator unjoin || exit 1
wait_ready unjoin
out=$("$CTL" unjoin member3 --cluster-kubeconfig "$M3" 2>&1)
expect_eq "unjoin: exit 0" "$?" "0"
expect_contains "unjoin says what it deleted" "$out" "host: federatedcluster/member3 deleted
host: secret/member3-credentials deleted
member member3: secret/flotilla-member-token deleted
member member3: clusterrolebinding/flotilla-member deleted
member member3: clusterrole/flotilla-member deleted
member member3: serviceaccount/flotilla-member deleted"
expect_eq "the workload left member3 (the finalizer ran before the credentials went)" \
  "$(mkubectl member3 get deploy web -n $NS -o name 2>&1)" \
  "Error from server (NotFound): deployments.apps \"web\" not found"
expect_eq "no FederatedCluster member3" "$(kubectl get fc member3 -o name 2>&1)" \
  'Error from server (NotFound): federatedclusters.flotilla.io "member3" not found'
expect_eq "no credentials Secret" "$(kubectl get secret member3-credentials -n flotilla-system -o name 2>&1)" \
  'Error from server (NotFound): secrets "member3-credentials" not found'
expect_eq "no member ClusterRole" "$(mkubectl member3 get clusterrole flotilla-member -o name 2>&1)" \
  'Error from server (NotFound): clusterroles.rbac.authorization.k8s.io "flotilla-member" not found'
expect_eq "no member ServiceAccount" "$(mkubectl member3 get sa -A -o name | grep -c flotilla-member)" "0"
out=$("$CTL" unjoin member3 --cluster-kubeconfig "$M3" 2>&1)
expect_eq "unjoin again: exit 0" "$?" "0"
expect_contains "unjoin again finds nothing" "$out" "host: federatedcluster/member3 not found"
stop_operator unjoin TERM
mkubectl member3 delete serviceaccount weak -n default >/dev/null
for i in "${!RULES[@]}"; do mkubectl member3 delete namespace "$NS-r$i" --wait=false >/dev/null 2>&1; done
e2e_summary
