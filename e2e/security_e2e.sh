#!/usr/bin/env bash
# Tenants cannot escape through Flotilla (docs/security.md): each finding of the security review is
# played as the attack an attacker would make, and must be refused. Tenants are ServiceAccounts
# with namespace-scoped roles; the operator runs as its ServiceAccount with config/rbac, webhooks
# registered. Runs against flotilla-sim, or the clusters named as in operator_lib.sh.
#   H1  a FederatedCluster pointing at another member's credentials and at the attacker's server
#       (denied at admission; with the webhook bypassed, the operator still sends no token)
#   L1  http endpoints and insecureSkipTLSVerify: refused by the controller too
#   H2  a Deployment labelled with another team's ClusterPropagationPolicy
#   M5  a broad ClusterPropagationPolicy and kube-system / default
#   H3  Pod Security labels carried to member namespaces; an existing member namespace not used
#   M1  a member user's decoy cannot change a workload's status; deleting a FederatedCluster
#       removes only what this host made
# Usage: security_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: security_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: security_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=security
source "$ROOT/e2e/lib.sh"
source "$ROOT/e2e/operator_lib.sh"
# The suite's namespaces: fresh names on real clusters (a previous run's may be terminating).
SUFFIX=${REAL:+-${NS##*-}}
TEAM_A=team-a$SUFFIX TEAM_B=team-b$SUFFIX SHARED=shared$SUFFIX
TRAPS=()
stop_traps() { for pid in "${TRAPS[@]}"; do kill "$pid" 2>/dev/null; done; }
trap 'stop_traps; cleanup_security; cleanup' EXIT
cleanup_security() {
  [[ -n $REAL ]] || return 0  # a flotilla-sim fleet goes as a whole
  kubectl delete cpp team-b-gpu everything --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl delete fc evil evil-insecure evil-http --ignore-not-found --wait=false >/dev/null 2>&1
  kubectl -n flotilla-system delete secret evil-insecure-credentials evil-http-credentials \
    --ignore-not-found >/dev/null 2>&1
  kubectl delete clusterrole,clusterrolebinding security-e2e-registrar --ignore-not-found >/dev/null 2>&1
  kubectl delete deploy sys-agent -n kube-system --ignore-not-found >/dev/null 2>&1
  kubectl delete deploy def-app -n default --ignore-not-found >/dev/null 2>&1
  if [[ -n $REAL ]]; then
    for ns in $TEAM_A $TEAM_B $SHARED attacker$SUFFIX other-host$SUFFIX; do
      kubectl delete ns "$ns" --wait=false >/dev/null 2>&1
      for m in member1 member2 member3; do mkubectl $m delete ns "$ns" --wait=false >/dev/null 2>&1; done
    done
  fi
}

# tenant_kubeconfig NAMESPACE/SERVICEACCOUNT: a kubeconfig with that account's token.
tenant_kubeconfig() {
  local ns=${1%/*} sa=${1#*/} file=$WORK/tenant-${1//\//-}.kubeconfig token
  kubectl create serviceaccount "$sa" -n "$ns" >/dev/null 2>&1
  token=$(kubectl create token "$sa" -n "$ns" --duration 1h) || return 1
  (umask 077 && cat >"$file" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: host, cluster: {server: "$sa_server", certificate-authority-data: "$sa_ca"}}]
users: [{name: $sa, user: {token: "$token"}}]
contexts: [{name: $sa, context: {cluster: host, user: $sa}}]
current-context: $sa
KUBECONFIG
)
  echo "$file"
}
deployment() {  # deployment NAMESPACE NAME REPLICAS [LABELS-YAML]: applied by the admin
  kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: $2, namespace: $1, labels: {app: $2${4:+, $4}}}
spec:
  replicas: $3
  selector: {matchLabels: {app: $2}}
  template:
    metadata: {labels: {app: $2}}
    spec:
      containers: [{name: app, image: nginx:1.27, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
YAML
}
on_member() { mkubectl "$1" get deploy "$3" -n "$2" >/dev/null 2>&1; }  # on_member M NS NAME
absent_everywhere() {  # absent_everywhere NS NAME
  local m
  for m in member1 member2 member3; do on_member $m "$1" "$2" && return 1; done
  return 0
}
events_of() { kubectl get events -n "$1" --field-selector "involvedObject.name=$2" -o jsonpath='{range .items[*]}{.reason}: {.message}{"\n"}{end}' 2>/dev/null; }
events_say() { [[ $(events_of "$1" "$2") == *"$3"* ]]; }  # events_say NS NAME TEXT
fc_ready_message() { kubectl get fc "$1" -o jsonpath='{.status.conditions[?(@.type=="Ready")].message}' 2>/dev/null; }
fc_says() { [[ $(fc_ready_message "$1") == *"$2"* ]]; }
cluster_status_says() {  # cluster_status_says NS NAME CLUSTER TEXT: the FederatedDeployment's per-cluster message
  [[ $(kubectl get fdeploy "$2" -n "$1" -o jsonpath="{.status.clusters[?(@.name==\"$3\")].message}" 2>/dev/null) == *"$4"* ]]
}

for ns in $TEAM_A $TEAM_B $SHARED; do kubectl create namespace "$ns" >/dev/null 2>&1; done

# ---------------------------------------------------------------------------------------------
# H1 with the webhook bypassed: FederatedClusters written before the webhooks exist (or while
# they are down) reach the controller unchecked. Each points at the attacker's server.
# ---------------------------------------------------------------------------------------------
TLS_TRAP_LOG=$WORK/trap-tls.log HTTP_TRAP_LOG=$WORK/trap-http.log
python3 "$ROOT/e2e/credential_trap.py" "$TLS_TRAP_LOG" "$WORK/certs/tls.crt" "$WORK/certs/tls.key" >"$WORK/trap-tls.port" &
TRAPS+=($!)
python3 "$ROOT/e2e/credential_trap.py" "$HTTP_TRAP_LOG" >"$WORK/trap-http.port" &
TRAPS+=($!)
eventually 10 test -s "$WORK/trap-tls.port" && eventually 10 test -s "$WORK/trap-http.port" ||
  { e2e_fail "the credential traps did not start"; exit 1; }
TLS_TRAP=https://127.0.0.1:$(cat "$WORK/trap-tls.port")
HTTP_TRAP=http://127.0.0.1:$(cat "$WORK/trap-http.port")
# The attacker's own "credentials" for the L1 cases: bound to their clusters, so only the
# transport rules stand between the token and the trap.
for c in evil-insecure evil-http; do
  kubectl -n flotilla-system create secret generic "$c-credentials" --from-literal=token=canary-$c \
    --dry-run=client -o yaml | kubectl annotate --local -f - flotilla.io/cluster=$c -o yaml |
    kubectl apply -f - >/dev/null
done
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: evil}
spec: {apiEndpoint: "$TLS_TRAP", secretRef: {name: member1-credentials}}
---
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: evil-insecure}
spec: {apiEndpoint: "$TLS_TRAP", secretRef: {name: evil-insecure-credentials}, insecureSkipTLSVerify: true}
---
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: evil-http}
spec: {apiEndpoint: "$HTTP_TRAP", secretRef: {name: evil-http-credentials}}
YAML

# The CA the traps' certificate comes from is the suite's, not a member's: evil would fail TLS
# anyway; evil-insecure turns verification off, as the review's attack does.
start_operator sec || exit 1
eventually 60 fleet_ready || e2e_fail "the fleet did not become Ready"
eventually 30 fc_says evil 'belongs to cluster "member1"' ||
  e2e_fail "H1: evil should be refused for borrowing member1's Secret, Ready says: $(fc_ready_message evil)"
eventually 30 fc_says evil-insecure "spec.insecureSkipTLSVerify turns TLS verification off" ||
  e2e_fail "L1: evil-insecure should be refused, Ready says: $(fc_ready_message evil-insecure)"
eventually 30 fc_says evil-http "is not https" ||
  e2e_fail "L1: evil-http should be refused, Ready says: $(fc_ready_message evil-http)"
expect_eq "H1/L1: the attacker's servers received no Authorization header" \
  "$(cat "$TLS_TRAP_LOG" "$HTTP_TRAP_LOG" | awk '$3 != "-"' | head -3)" ""
echo "H1 (webhook bypassed): $(fc_ready_message evil)"
echo "L1: $(fc_ready_message evil-http)"
# Gone before the webhooks come (an UPDATE of a stored object is ratcheted against the old one).
kubectl annotate fc evil evil-insecure evil-http flotilla.io/skip-member-cleanup=true >/dev/null
kubectl delete fc evil evil-insecure evil-http --timeout=30s >/dev/null ||
  e2e_fail "the evil FederatedClusters should be deleted"

# ---------------------------------------------------------------------------------------------
# H1 at admission: a registrar who may write FederatedClusters but not read Secrets.
# ---------------------------------------------------------------------------------------------
register_webhooks sec
kubectl apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: security-e2e-registrar}
rules: [{apiGroups: [flotilla.io], resources: [federatedclusters], verbs: [get, list, create, update, patch]}]
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: security-e2e-registrar}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: security-e2e-registrar}
subjects: [{kind: ServiceAccount, name: registrar, namespace: $TEAM_A}]
YAML
REGISTRAR=$(tenant_kubeconfig "$TEAM_A/registrar") || exit 1
evil_cluster() {  # evil_cluster [EXTRA-SPEC]: the registrar applies FederatedCluster evil
  kubectl --kubeconfig "$REGISTRAR" apply -f - 2>&1 <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: evil}
spec: {apiEndpoint: "$TLS_TRAP", secretRef: {name: member1-credentials}${1:-}}
YAML
}
admission_denies() { [[ $(evil_cluster "$@") == *"$expected"* ]]; }
expected='cannot get secrets "member1-credentials" in namespace "flotilla-system"'
eventually 30 admission_denies || e2e_fail "H1: the registrar's FederatedCluster should be denied"
out=$(evil_cluster)
expect_contains "H1: denied at admission, naming the Secret" "$out" "$expected"
echo "H1 (admission): $out"
expect_contains "L1: insecureSkipTLSVerify is refused at admission" \
  "$(kubectl apply -f - 2>&1 <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: evil-insecure}
spec: {apiEndpoint: "$TLS_TRAP", secretRef: {name: evil-insecure-credentials}, insecureSkipTLSVerify: true}
YAML
)" "spec.insecureSkipTLSVerify: Forbidden"
# Changing where an existing entry sends its credentials is the same attack: member1 itself.
expect_contains "H1: the registrar cannot repoint member1 either" \
  "$(kubectl --kubeconfig "$REGISTRAR" patch fc member1 --type merge -p "{\"spec\":{\"apiEndpoint\":\"$TLS_TRAP\"}}" 2>&1)" \
  'cannot get secrets "member1-credentials"'
expect_eq "H1: member1 still points at member1" \
  "$(kubectl get fc member1 -o jsonpath='{.spec.apiEndpoint}')" \
  "$(mkubectl member1 config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')"
# A label change is not about credentials: no Secret access needed.
expect_contains "H1: the registrar may still label member1" \
  "$(kubectl --kubeconfig "$REGISTRAR" label fc member1 security-e2e=yes --overwrite 2>&1)" "labeled"
kubectl label fc member1 security-e2e- >/dev/null
expect_eq "H1: no token reached the attacker" "$(awk '$3 != "-"' "$TLS_TRAP_LOG" "$HTTP_TRAP_LOG" | head -3)" ""

# ---------------------------------------------------------------------------------------------
# FederatedObject templates: what the operator would write on members, its author must be allowed
# to write on the host. A tenant who may write FederatedObjects and ConfigMaps in their namespace,
# not RoleBindings.
# ---------------------------------------------------------------------------------------------
kubectl apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: Role
metadata: {name: security-e2e-federator, namespace: $TEAM_A}
rules:
  - {apiGroups: [flotilla.io], resources: [federatedobjects], verbs: [get, list, create, update, patch]}
  - {apiGroups: [""], resources: [configmaps], verbs: [create, update]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: RoleBinding
metadata: {name: security-e2e-federator, namespace: $TEAM_A}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: Role, name: security-e2e-federator}
subjects: [{kind: ServiceAccount, name: federator, namespace: $TEAM_A}]
YAML
FEDERATOR=$(tenant_kubeconfig "$TEAM_A/federator") || exit 1
federated_rolebinding() {
  kubectl --kubeconfig "$FEDERATOR" apply -f - 2>&1 <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: me-admin-rolebinding, namespace: $TEAM_A}
spec:
  template:
    apiVersion: rbac.authorization.k8s.io/v1
    kind: RoleBinding
    metadata: {name: me-admin}
    roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: cluster-admin}
    subjects: [{kind: ServiceAccount, name: federator, namespace: $TEAM_A}]
YAML
}
expected_template='cannot create RoleBinding "me-admin" in namespace'
template_denied() { [[ $(federated_rolebinding) == *"$expected_template"* ]]; }
eventually 30 template_denied
out=$(federated_rolebinding)
expect_contains "templates: a RoleBinding to cluster-admin in a FederatedObject is denied" "$out" "$expected_template"
expect_contains "templates: and why" "$out" "a FederatedObject may hold only what its author may write on the host"
expect_eq "templates: nothing stored" "$(kubectl get fo me-admin-rolebinding -n $TEAM_A -o name 2>/dev/null)" ""
out=$(kubectl --kubeconfig "$FEDERATOR" apply -f - 2>&1 <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: settings-configmap, namespace: $TEAM_A}
spec:
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: settings}
    data: {mode: fast}
YAML
)
expect_contains "templates: a ConfigMap the tenant may create is admitted" "$out" "created"

# ---------------------------------------------------------------------------------------------
# M2: a thousand slow clients on the webhook port; kubectl's writes still go through at once.
# ---------------------------------------------------------------------------------------------
probe_policy() {  # probe_policy NAME: applies a PropagationPolicy; prints kubectl's words
  kubectl apply -f - 2>&1 <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: $1, namespace: $TEAM_B}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: nothing}]
YAML
}
started=$(date +%s%N)
probe_policy m2-baseline >/dev/null
baseline=$(( ($(date +%s%N) - started) / 1000000 ))
python3 "$ROOT/e2e/slow_clients.py" "$(webhook_port sec)" 1000 20 >"$WORK/slow.out" 2>&1 &
SLOW=$!
TRAPS+=($SLOW)
eventually 20 grep -q '^1000$' "$WORK/slow.out" || e2e_fail "M2: the slow clients did not connect: $(cat "$WORK/slow.out")"
started=$(date +%s%N)
out=$(probe_policy m2-probe)
took=$(( ($(date +%s%N) - started) / 1000000 ))
expect_contains "M2: a write through both webhooks succeeds with 1000 slow connections open" "$out" "created"
echo "M2: kubectl apply through the webhooks took ${took} ms with 1000 slow connections open (${baseline} ms without)"
expect_eq "M2: under 5 s (the old limits: no answer within 120 s)" "$(( took < 5000 ))" "1"
kill "$SLOW" 2>/dev/null

# ---------------------------------------------------------------------------------------------
# M3: a thousand slow clients on the health port; the operator keeps renewing its Lease (the
# health server has its own thread and a 32-connection cap) and answers /readyz afterwards.
# ---------------------------------------------------------------------------------------------
lease_renewed() { kubectl get lease flotilla-operator -n flotilla-system -o jsonpath='{.spec.renewTime}' 2>/dev/null; }
lease_holder() { kubectl get lease flotilla-operator -n flotilla-system -o jsonpath='{.spec.holderIdentity}' 2>/dev/null; }
holder_before=$(lease_holder)
python3 "$ROOT/e2e/slow_clients.py" "$(operator_port sec)" 1000 15 >"$WORK/slow-health.out" 2>&1 &
SLOW=$!
TRAPS+=($SLOW)
eventually 20 grep -q '^1000$' "$WORK/slow-health.out" || e2e_fail "M3: the slow clients did not connect: $(cat "$WORK/slow-health.out")"
renewed_during=$(lease_renewed)
renewed_again() { [[ -n $renewed_during && $(lease_renewed) != "$renewed_during" ]]; }
eventually 10 renewed_again
expect_eq "M3: the Lease is renewed while 1000 slow clients hold the health port" "$(renewed_again && echo yes)" "yes"
expect_eq "M3: and the same operator still holds it" "$(lease_holder)" "$holder_before"
kill "$SLOW" 2>/dev/null
readyz() { curl -skf --max-time 2 "https://127.0.0.1:$(operator_port sec)/readyz"; }
eventually 30 readyz >/dev/null
expect_eq "M3: /readyz answers once they are gone" "$(readyz)" "ok"

# ---------------------------------------------------------------------------------------------
# H2: another team's ClusterPropagationPolicy, asked for by label.
# ---------------------------------------------------------------------------------------------
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: team-b-gpu}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: $TEAM_B}]
  placement:
    clusterAffinity: {clusterNames: [member3]}
    replicaScheduling: {type: Duplicated}
YAML
kubectl create role deployer -n "$TEAM_A" --verb=get,list,watch,create,update,patch,delete \
  --resource=deployments.apps >/dev/null
kubectl create rolebinding deployer -n "$TEAM_A" --role=deployer \
  --serviceaccount="$TEAM_A:deployer" >/dev/null
DEPLOYER=$(tenant_kubeconfig "$TEAM_A/deployer") || exit 1
kubectl --kubeconfig "$DEPLOYER" apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: ride, namespace: $TEAM_A, labels: {flotilla.io/cluster-propagation-policy: team-b-gpu}}
spec:
  replicas: 1
  selector: {matchLabels: {app: ride}}
  template:
    metadata: {labels: {app: ride}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
YAML
# The same label from team-b's own namespace works: the policy itself is fine.
deployment "$TEAM_B" ride 1 "flotilla.io/cluster-propagation-policy: team-b-gpu"
eventually 30 on_member member3 "$TEAM_B" ride || e2e_fail "H2: team-b's own Deployment should reach member3"
eventually 30 events_say "$TEAM_A" ride "does not accept Deployment $TEAM_A/ride" ||
  e2e_fail "H2: an Event should say why team-a's Deployment is not federated: $(events_of "$TEAM_A" ride)"
expect_eq "H2: team-a's Deployment is on no member" "$(absent_everywhere "$TEAM_A" ride && echo absent)" "absent"
echo "H2: $(events_of "$TEAM_A" ride | grep -m1 'does not accept')"

# ---------------------------------------------------------------------------------------------
# M5: a ClusterPropagationPolicy for every Deployment does not take the cluster's own.
# ---------------------------------------------------------------------------------------------
deployment kube-system sys-agent 1
deployment default def-app 1
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: everything}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, labelSelector: {matchLabels: {everything: "yes"}}}]
  placement: {clusterAffinity: {clusterNames: [member1]}, replicaScheduling: {type: Duplicated}}
YAML
kubectl label deploy sys-agent -n kube-system everything=yes >/dev/null
kubectl label deploy def-app -n default everything=yes >/dev/null
deployment "$TEAM_B" control 1 'everything: "yes"'  # labelled after the reserved ones
eventually 30 on_member member1 "$TEAM_B" control || e2e_fail "M5: the control Deployment should reach member1"
expect_eq "M5: no FederatedDeployment in kube-system or default" \
  "$(kubectl get fdeploy -n kube-system -o name 2>&1; kubectl get fdeploy -n default -o name 2>&1)" ""
expect_eq "M5: kube-system's Deployment is on no member" "$(absent_everywhere kube-system sys-agent && echo absent)" "absent"
expect_eq "M5: default's Deployment is on no member" "$(absent_everywhere default def-app && echo absent)" "absent"
kubectl delete deploy sys-agent -n kube-system >/dev/null
kubectl delete deploy def-app -n default >/dev/null

# ---------------------------------------------------------------------------------------------
# H3: member namespaces and pod security.
# ---------------------------------------------------------------------------------------------
# baseline lets the suite's nginx pods run on members that enforce it; warn carries too.
kubectl label ns "$TEAM_A" pod-security.kubernetes.io/enforce=baseline \
  pod-security.kubernetes.io/warn=restricted >/dev/null
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: to-member2, namespace: $TEAM_A}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: victim}]
  placement: {clusterAffinity: {clusterNames: [member2]}, replicaScheduling: {type: Duplicated}}
---
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: to-member1, namespace: $SHARED}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment}]
  placement: {clusterAffinity: {clusterNames: [member1]}, replicaScheduling: {type: Duplicated}}
YAML
deployment "$TEAM_A" victim 2
eventually 30 on_member member2 "$TEAM_A" victim || e2e_fail "H3: the victim should reach member2"
expect_eq "H3: the member namespace enforces the host's Pod Security level" \
  "$(mkubectl member2 get ns "$TEAM_A" -o jsonpath='{.metadata.labels.pod-security\.kubernetes\.io/enforce}/{.metadata.labels.pod-security\.kubernetes\.io/warn}/{.metadata.labels.flotilla\.io/managed-by}')" \
  "baseline/restricted/flotilla"
# A namespace of that name already on member1, made by someone else (say, a monitoring stack).
mkubectl member1 create namespace "$SHARED" >/dev/null
deployment "$SHARED" app 1
eventually 30 cluster_status_says "$SHARED" app member1 "Flotilla did not create it" ||
  e2e_fail "H3: the existing namespace should be refused: $(kubectl get fdeploy app -n "$SHARED" -o jsonpath='{.status}' 2>&1)"
expect_eq "H3: nothing written into member1's own namespace" "$(on_member member1 "$SHARED" app || echo absent)" "absent"
echo "H3: $(kubectl get fdeploy app -n "$SHARED" -o jsonpath='{.status.clusters[0].message}')"
# The namespace's owner there makes a Deployment of the workload's name, marked as Flotilla's
# (the marks are visible on any Flotilla copy): still not Flotilla's to change.
mkubectl member1 apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: app
  namespace: $SHARED
  labels: {flotilla.io/managed-by: flotilla, flotilla.io/host: "$(kubectl get ns kube-system -o jsonpath='{.metadata.uid}')", flotilla.io/cluster: member1}
  annotations: {flotilla.io/binding: $SHARED/app}
spec:
  replicas: 7
  selector: {matchLabels: {app: mine}}
  template:
    metadata: {labels: {app: mine}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
YAML
eventually 30 cluster_status_says "$SHARED" app member1 "its owner has not allowed it" ||
  e2e_fail "H3: a marked Deployment in a namespace Flotilla may not use should be left alone: $(kubectl get fdeploy app -n "$SHARED" -o jsonpath='{.status.clusters}')"
expect_eq "H3: the owner's Deployment is untouched" \
  "$(mkubectl member1 get deploy app -n "$SHARED" -o jsonpath='{.spec.replicas}')" "7"
# Its owner on member1 lets Flotilla in.
mkubectl member1 label ns "$SHARED" flotilla.io/managed-by=flotilla >/dev/null
eventually 60 on_member member1 "$SHARED" app || e2e_fail "H3: once its owner allows it, the namespace is used"

# ---------------------------------------------------------------------------------------------
# M1: a member user's decoy, marked as the victim's copy, in a namespace of their own.
# ---------------------------------------------------------------------------------------------
host_replicas() { kubectl get deploy "$2" -n "$1" -o jsonpath='{.status.replicas}' 2>/dev/null; }
host_replicas_are() { [[ $(host_replicas "$1" "$2") == "$3" ]]; }  # re-read on every poll
eventually 30 host_replicas_are "$TEAM_A" victim 2 ||
  e2e_fail "M1: the victim's host status should say 2 replicas"
host_id=$(mkubectl member2 get deploy victim -n "$TEAM_A" -o jsonpath='{.metadata.labels.flotilla\.io/host}')
expect_eq "M1: the member copy names its host" "$host_id" "$(kubectl get ns kube-system -o jsonpath='{.metadata.uid}')"
binding_hash=$(mkubectl member2 get deploy victim -n "$TEAM_A" -o jsonpath='{.metadata.labels.flotilla\.io/binding}')
mkubectl member2 create namespace "attacker$SUFFIX" >/dev/null
mkubectl member2 apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: victim-decoy
  namespace: attacker$SUFFIX
  labels: {flotilla.io/managed-by: flotilla, flotilla.io/binding: "$binding_hash", flotilla.io/host: "$host_id", flotilla.io/cluster: member2}
  annotations: {flotilla.io/binding: $TEAM_A/victim}
spec:
  replicas: 40
  selector: {matchLabels: {app: decoy}}
  template:
    metadata: {labels: {app: decoy}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
YAML
# A barrier: scale the victim and wait for its status, so the decoy has been seen by then.
kubectl scale deploy victim -n "$TEAM_A" --replicas 3 >/dev/null
eventually 30 host_replicas_are "$TEAM_A" victim 3 ||
  e2e_fail "M1: the victim's status should follow its own copy (3), got $(host_replicas "$TEAM_A" victim)"
expect_eq "M1: the decoy is still there, and ignored" \
  "$(mkubectl member2 get deploy victim-decoy -n "attacker$SUFFIX" -o jsonpath='{.spec.replicas}')/$(kubectl get fdeploy victim -n "$TEAM_A" -o jsonpath='{.status.clusters[?(@.name=="member2")].replicas}')" \
  "40/3"

# Deleting a FederatedCluster removes what this host made through it, and nothing else: a
# Deployment another host made on member3 stays.
mkubectl member3 create namespace "other-host$SUFFIX" >/dev/null
mkubectl member3 apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata:
  name: theirs
  namespace: other-host$SUFFIX
  labels: {flotilla.io/managed-by: flotilla, flotilla.io/binding: "0123456789abcdef", flotilla.io/host: another-host, flotilla.io/cluster: member3}
  annotations: {flotilla.io/binding: other-host$SUFFIX/theirs}
spec:
  replicas: 1
  selector: {matchLabels: {app: theirs}}
  template:
    metadata: {labels: {app: theirs}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
YAML
kubectl get fc member3 -o json |
  python3 -c 'import json,sys; o=json.load(sys.stdin); m=o["metadata"]; o["metadata"]={"name":m["name"],"labels":m.get("labels",{})}; o.pop("status",None); print(json.dumps(o))' \
  >"$WORK/member3-fc.json"
kubectl delete fc member3 --timeout=60s >/dev/null || e2e_fail "M1: FederatedCluster member3 should be deleted"
expect_eq "M1: this host's Deployment left member3" "$(on_member member3 "$TEAM_B" ride || echo gone)" "gone"
expect_eq "M1: another host's Deployment stayed on member3" \
  "$(on_member member3 "other-host$SUFFIX" theirs && echo stayed)" "stayed"
kubectl apply -f "$WORK/member3-fc.json" >/dev/null  # member3 back, for the suites after this one
mkubectl member3 delete ns "other-host$SUFFIX" --wait=false >/dev/null

e2e_summary
