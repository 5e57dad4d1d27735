#!/usr/bin/env bash
# Any kind, one pipeline (issue 29, docs/design.md §11): ConfigMaps, Secrets, Services, a
# ServiceAccount and a Deployment selected by one PropagationPolicy reach exactly its clusters;
# host edits follow; the host Service's clusterIP and nodePorts never reach the members and its
# status shows the members' load balancers; a member object Flotilla did not make is left alone
# (Conflict) until the policy adopts it; deleting a source removes its copies; a restart over the
# converged fleet writes nothing. flotilla-sim, or real clusters through
# FLOTILLA_E2E_HOST_KUBECONFIG / FLOTILLA_E2E_MEMBER_KUBECONFIGS.
# Usage: objects_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: objects_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: objects_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
NS=objects
source "$ROOT/e2e/operator_lib.sh"

MEMBERS=(member1 member2 member3)
TARGETS=(member1 member2)
# on MEMBER KIND NAME: the member's copy exists.
on() { mkubectl "$1" get "$2" "$3" -n "$NS" -o name >/dev/null 2>&1; }
# exactly KIND NAME: on member1 and member2, not on member3.
exactly() { on member1 "$1" "$2" && on member2 "$1" "$2" && ! on member3 "$1" "$2"; }
nowhere() { ! on member1 "$1" "$2" && ! on member2 "$1" "$2" && ! on member3 "$1" "$2"; }
member_field() { mkubectl "$1" get "$2" "$3" -n "$NS" -o jsonpath="$4" 2>/dev/null; }
fo_field() { kubectl get fo "$1" -n "$NS" -o jsonpath="$2" 2>/dev/null; }

start_operator a || exit 1
# The admission webhooks are on, as in a real install: the operator's own FederatedObjects pass
# them (it may only read the kinds it federates), a user's are reviewed (docs/security.md).
register_webhooks a
eventually 30 fleet_ready || e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"
kubectl create namespace "$NS" >/dev/null 2>&1
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: app, namespace: $NS}
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, name: settings}
  - {apiVersion: v1, kind: ConfigMap, name: legacy}
  - {apiVersion: v1, kind: Secret, name: creds}
  - {apiVersion: v1, kind: Service, name: web}
  - {apiVersion: v1, kind: Service, name: web-lb}
  - {apiVersion: v1, kind: ServiceAccount, name: app-sa}
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling: {type: Divided}
YAML

# --- One policy, every kind of the application, exactly its clusters ---
t0=$(date +%s.%N)
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, labels: {app: web}}
data: {mode: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: creds}
stringData: {password: s3cret}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: app-sa}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
---
apiVersion: v1
kind: Service
metadata: {name: web-lb}
spec:
  type: LoadBalancer
  selector: {app: web}
  ports: [{port: 443, targetPort: 8443}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 2
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: app-sa
      containers:
      - name: web
        image: nginx:1.27
        envFrom: [{configMapRef: {name: settings}}]
        resources: {requests: {cpu: 100m, memory: 64Mi}}
YAML
all_there() {
  exactly configmap settings && exactly secret creds && exactly serviceaccount app-sa &&
    exactly service web && exactly service web-lb
}
eventually 30 all_there || e2e_fail "every object should be on member1 and member2 only: $(kubectl get fo,rb -n "$NS" 2>&1; tail -20 "$WORK/operator-a.log")"
echo "kubectl apply -> every object on its clusters: $(echo "$(date +%s.%N) - $t0" | bc) s"
deployment_there() { [[ $(kubectl get rb web -n "$NS" -o jsonpath='{.status.conditions[?(@.type=="FullyApplied")].status}') == True ]]; }
eventually 30 deployment_there || e2e_fail "the Deployment should be FullyApplied: $(kubectl get rb web -n "$NS" -o yaml)"
for m in "${TARGETS[@]}"; do
  expect_eq "$m: ConfigMap data" "$(member_field "$m" configmap settings '{.data.mode}')" "fast"
  expect_eq "$m: Secret data" "$(member_field "$m" secret creds '{.data.password}')" "$(printf s3cret | base64)"
  expect_contains "$m: ConfigMap marked as Flotilla's" "$(member_field "$m" configmap settings '{.metadata.labels}')" '"flotilla.io/managed-by":"flotilla"'
  expect_eq "$m: binding annotation" "$(member_field "$m" configmap settings '{.metadata.annotations.flotilla\.io/binding}')" "$NS/settings-configmap"
done
out=$(kubectl get fo -n "$NS")
echo "$out"
expect_contains "kubectl get fo: the ConfigMap's, healthy on both" "$(grep '^settings-configmap ' <<<"$out")" "ConfigMap"
eventually 10 bash -c "kubectl get fo settings-configmap -n $NS | grep -q '2/2'" || e2e_fail "settings-configmap HEALTHY 2/2: $(kubectl get fo -n "$NS" -o yaml)"
expect_contains "kubectl get fo: CLUSTERS" "$(kubectl get fo settings-configmap -n "$NS")" "member1,member2"
out=$(kubectl get rb -n "$NS")
expect_contains "kubectl get rb lists the ConfigMap's binding" "$out" "settings-configmap"
expect_eq "the binding names the ConfigMap" "$(kubectl get rb settings-configmap -n "$NS" -o jsonpath='{.spec.resource.kind} {.spec.resource.name}')" "ConfigMap settings"

# --- The Service: no clusterIP or allocated nodePort reaches a member; load balancers come back ---
host_ip=$(kubectl get service web -n "$NS" -o jsonpath='{.spec.clusterIP}')
expect_eq "the FederatedObject's template has no clusterIP" "$(fo_field web-service '{.spec.template.spec.clusterIP}')" ""
host_node_port=$(kubectl get service web-lb -n "$NS" -o jsonpath='{.spec.ports[0].nodePort}')
expect_eq "the template has no allocated nodePort" "$(fo_field web-lb-service '{.spec.template.spec.ports[0].nodePort}')" ""
for m in "${TARGETS[@]}"; do
  ip=$(member_field "$m" service web '{.spec.clusterIP}')
  [[ -n $host_ip && $ip == "$host_ip" ]] && e2e_fail "$m: the member Service has the host's clusterIP $host_ip"
  managers=$(member_field "$m" service web-lb '{.metadata.managedFields[?(@.manager=="flotilla")].fieldsV1}')
  expect_not_contains "$m: Flotilla does not own a nodePort" "$managers" "nodePort"
done
echo "host web-lb nodePort $host_node_port; member1 $(member_field member1 service web-lb '{.spec.ports[0].nodePort}')"
if [[ -z $REAL ]]; then
  lb() { kubectl get service web-lb -n "$NS" -o jsonpath='{.status.loadBalancer.ingress[*].ip}'; }
  members_lb=$(for m in "${TARGETS[@]}"; do member_field "$m" service web-lb '{.status.loadBalancer.ingress[*].ip}'; echo; done | xargs)
  echo "members' load balancers: $members_lb"
  has_all_lb() { local got; got=$(lb); for ip in $members_lb; do [[ " $got " == *" $ip "* ]] || return 1; done; [[ -n $members_lb ]]; }
  eventually 20 has_all_lb || e2e_fail "the host Service should show the members' load balancers ($members_lb): $(kubectl get service web-lb -n "$NS" -o yaml)"
  eventually 30 bash -c "kubectl get fo web-lb-service -n $NS | grep -q '2/2'" ||
    e2e_fail "web-lb-service should turn healthy once the members' load balancers exist: $(kubectl get fo web-lb-service -n "$NS" -o yaml)"
fi

# --- Host edits reach the members ---
kubectl patch configmap settings -n "$NS" --type merge -p '{"data":{"mode":"safe","extra":"1"}}' >/dev/null
edited() { for m in "${TARGETS[@]}"; do [[ $(member_field "$m" configmap settings '{.data.mode}/{.data.extra}') == safe/1 ]] || return 1; done; }
eventually 20 edited || e2e_fail "the ConfigMap edit should reach the members: $(member_field member1 configmap settings '{.data}')"
kubectl patch configmap settings -n "$NS" --type json -p '[{"op":"remove","path":"/data/extra"}]' >/dev/null
removed_key() { for m in "${TARGETS[@]}"; do [[ -z $(member_field "$m" configmap settings '{.data.extra}') ]] || return 1; done; }
eventually 20 removed_key || e2e_fail "a key removed on the host should go from the members"

# --- A member's own ConfigMap is left alone (Conflict), then adopted ---
mkubectl member1 create namespace "$NS" >/dev/null 2>&1
mkubectl member1 label namespace "$NS" flotilla.io/managed-by=flotilla --overwrite >/dev/null 2>&1
mkubectl member1 create configmap legacy -n "$NS" --from-literal=owner=member >/dev/null
legacy_before=$(mkubectl member1 get configmap legacy -n "$NS" -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["metadata"]["resourceVersion"], json.dumps(o.get("data"), sort_keys=True), json.dumps(o["metadata"].get("labels"), sort_keys=True))')
kubectl create configmap legacy -n "$NS" --from-literal=owner=host >/dev/null
conflict() { [[ $(fo_field legacy-configmap '{.status.clusters[?(@.name=="member1")].propagation}') == Conflict ]]; }
eventually 30 conflict || e2e_fail "member1's own ConfigMap should be reported as a Conflict: $(kubectl get fo legacy-configmap -n "$NS" -o yaml)"
eventually 20 on member2 configmap legacy || e2e_fail "member2 (no conflict there) should get legacy"
legacy_after=$(mkubectl member1 get configmap legacy -n "$NS" -o json | python3 -c 'import json,sys; o=json.load(sys.stdin); print(o["metadata"]["resourceVersion"], json.dumps(o.get("data"), sort_keys=True), json.dumps(o["metadata"].get("labels"), sort_keys=True))')
expect_eq "member1's ConfigMap untouched" "$legacy_after" "$legacy_before"
expect_contains "a Warning Event names the conflict" "$(kubectl get events -n "$NS" --field-selector reason=Conflict -o jsonpath='{.items[*].message}')" "member1"
expect_contains "kubectl get fo shows 1/2 healthy" "$(kubectl get fo legacy-configmap -n "$NS")" "1/2"
kubectl patch pp app -n "$NS" --type merge -p '{"spec":{"conflictResolution":"Adopt"}}' >/dev/null
adopted() { [[ $(member_field member1 configmap legacy '{.data.owner}/{.metadata.annotations.flotilla\.io/adopted}') == host/true ]]; }
eventually 30 adopted || e2e_fail "with conflictResolution: Adopt, member1's ConfigMap should be taken over: $(mkubectl member1 get configmap legacy -n "$NS" -o yaml)"

# --- Cluster-scoped kinds and custom resources: a ClusterRole, a CRD and two of its objects ---
custom_kind example.flotilla.io Widget widgets
kubectl apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: $NS-reader}
rules:
- {apiGroups: [""], resources: [configmaps], verbs: [get, list]}
YAML
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: ClusterPropagationPolicy
metadata: {name: $NS-platform}
spec:
  resourceSelectors:
  - {apiVersion: rbac.authorization.k8s.io/v1, kind: ClusterRole, name: $NS-reader}
  - {apiVersion: apiextensions.k8s.io/v1, kind: CustomResourceDefinition, name: widgets.example.flotilla.io}
  - {apiVersion: example.flotilla.io/v1, kind: Widget, namespace: $NS}
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
YAML
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: example.flotilla.io/v1
kind: Widget
metadata: {name: small}
spec: {size: 1}
---
apiVersion: example.flotilla.io/v1
kind: Widget
metadata: {name: large}
spec: {size: 9}
YAML
on_cluster() { mkubectl "$1" get "$2" "$3" -o name >/dev/null 2>&1; }
cluster_exactly() { on_cluster member1 "$1" "$2" && on_cluster member2 "$1" "$2" && ! on_cluster member3 "$1" "$2"; }
platform_there() {
  cluster_exactly clusterrole "$NS-reader" && cluster_exactly crd widgets.example.flotilla.io &&
    exactly widgets.example.flotilla.io small && exactly widgets.example.flotilla.io large
}
eventually 60 platform_there || e2e_fail "the ClusterRole, the CRD and both Widgets should be on member1 and member2 only: $(kubectl get cfo,crb,fo -A 2>&1; grep -E 'Widget|widget|ClusterRole|CustomResource' "$WORK/operator-a.log" | tail -10)"
expect_eq "member1: the Widget's spec" "$(member_field member1 widgets.example.flotilla.io large '{.spec.size}')" "9"
out=$(kubectl get cfo)
echo "$out"
expect_contains "kubectl get cfo: the ClusterRole's" "$out" "$NS-reader-clusterrole"
eventually 20 bash -c "kubectl get cfo widgets.example.flotilla.io-customresourcedefinition | grep -q 2/2" ||
  e2e_fail "the CRD should be healthy (Established) on both: $(kubectl get cfo widgets.example.flotilla.io-customresourcedefinition -o yaml)"
expect_contains "kubectl get crb" "$(kubectl get crb)" "$NS-reader-clusterrole"
expect_contains "kubectl get fo: a Widget's" "$(kubectl get fo -n "$NS")" "Widget"

# --- Restart over the converged fleet: zero writes on the host and on every member ---
quiet a || e2e_fail "the operator should go quiet over the converged application"
# A real host's namespace controller may still be emptying the namespaces of earlier runs (one
# DELETE per resource type, per pass): not Flotilla's writes, so they must be over first.
eventually 120 no_terminating || e2e_fail "namespaces still terminating: $(kubectl get ns)"
export MEMBER_WRITE_RESOURCES="deployments|namespaces|configmaps|secrets|services|serviceaccounts|clusterroles|customresourcedefinitions|widgets"
declare -A before_writes=()
before_writes[host]=$(writes "$KUBECONFIG")
host_lines_before=$(write_lines "$KUBECONFIG")
for m in "${MEMBERS[@]}"; do before_writes[$m]=$(writes "${MEMBER_KUBECONFIG[$m]}" member); done
stop_operator a TERM
# (Another name: its log is a new file, so its ports are its own.)
start_operator b || exit 1
register_webhooks b
connected() { [[ $(metrics b | grep -c 'flotilla_member_cluster_ready{cluster="member[123]",status="True"} 1') == 3 ]]; }
eventually 30 connected || e2e_fail "the restarted operator should see every member Ready"
quiet b || e2e_fail "the restarted operator should go quiet"
expect_contains "the restarted operator did reconcile objects" "$(metrics b)" 'flotilla_controller_reconcile_total{controller="federate-object"}'
host_writes_after=$(writes "$KUBECONFIG")
if [[ $host_writes_after != "${before_writes[host]}" ]]; then
  echo "restart: host write counters that changed:"
  diff <(echo "$host_lines_before") <(write_lines "$KUBECONFIG") | grep '^[<>]'
fi
expect_eq "restart: host writes" "$host_writes_after" "${before_writes[host]}"
for m in "${MEMBERS[@]}"; do
  if [[ -z $REAL ]]; then
    expect_eq "restart: $m writes" "$(writes "${MEMBER_KUBECONFIG[$m]}" member)" "${before_writes[$m]}"
  fi
done

# --- Deleting a source removes its copies; an adopted one stays ---
# (web reads settings: while it runs there the copies stay, docs/operator.md; it goes first.)
kubectl delete deployment web -n "$NS" >/dev/null
kubectl delete configmap settings -n "$NS" >/dev/null
eventually 30 nowhere configmap settings || e2e_fail "deleting the ConfigMap should remove it from the members"
eventually 20 bash -c "! kubectl get fo settings-configmap -n $NS >/dev/null 2>&1" || e2e_fail "its FederatedObject should go"
kubectl delete configmap legacy -n "$NS" >/dev/null
eventually 30 bash -c "! kubectl get fo legacy-configmap -n $NS >/dev/null 2>&1" || e2e_fail "legacy's FederatedObject should go"
expect_eq "the adopted ConfigMap stays on member1" "$(member_field member1 configmap legacy '{.data.owner}')" "host"
eventually 20 bash -c "! kubectl --kubeconfig ${MEMBER_KUBECONFIG[member2]} get configmap legacy -n $NS >/dev/null 2>&1" || e2e_fail "the copy Flotilla made on member2 should go"

# --- A policy that no longer selects an object takes it off the members ---
kubectl patch pp app -n "$NS" --type json -p '[{"op":"remove","path":"/spec/resourceSelectors/2"}]' >/dev/null
eventually 30 nowhere secret creds || e2e_fail "the Secret should leave the members when no policy selects it"

e2e_summary
