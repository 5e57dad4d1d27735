#!/usr/bin/env bash
# OverridePolicies and ClusterOverridePolicies (issue 32, docs/design.md §14, docs/operator.md
# "Per-cluster differences"), with the real kubectl:
# - a ClusterOverridePolicy rewrites the image registry on the clusters of region us-east, and an
#   OverridePolicy sets the tag on one named cluster: each member's containers and
#   initContainers show exactly the expected image (the namespaced policy wins the tag);
# - an env overrider adds a variable on one provider's clusters only;
# - one policy selecting a ConfigMap and a Deployment labels both; its image overrider is
#   skipped on the ConfigMap, and the federated object says so;
# - a broken jsonPatch fails one cluster only (UpdateFailed, the path named), the others proceed;
# - editing a rule updates the members; a cluster labelled later gets the rule that selects it by
#   label, and loses it with the label; deleting the OverridePolicy reverts them; the steady
#   state writes nothing; deleting an OverridePolicy together with the workload's
#   PropagationPolicy never recreates the member Deployment nor drops its replicas;
# - a policy selecting a kind the host does not serve is admitted with a warning.
# flotilla-sim (default topology: member3 is the only us-east and gcp cluster), or real clusters
# through FLOTILLA_E2E_HOST_KUBECONFIG / FLOTILLA_E2E_MEMBER_KUBECONFIGS (member3's provider is
# set to gcp for the suite).
# Usage: overrides_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: overrides_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: overrides_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
NS=overrides
source "$ROOT/e2e/operator_lib.sh"
# ClusterOverridePolicies are cluster-scoped: named after the suite's namespace (fresh per run on
# real clusters) and removed at the end.
COP=registry-$NS
trap 'kubectl delete cop "$COP" --ignore-not-found >/dev/null 2>&1; cleanup' EXIT

member_field() { mkubectl "$1" get "$2" "$3" -n "$NS" -o jsonpath="$4" 2>/dev/null; }
# images MEMBER: "init=IMAGE web=IMAGE" of the member's Deployment web.
images() {
  echo "init=$(member_field "$1" deployment web '{.spec.template.spec.initContainers[0].image}') web=$(member_field "$1" deployment web '{.spec.template.spec.containers[0].image}')"
}
fo_cluster() {  # FO CLUSTER JSONPATH-FIELD: a field of the federated object's entry for CLUSTER
  kubectl get fo "$1" -n "$NS" -o jsonpath="{.status.clusters[?(@.name==\"$2\")].$3}" 2>/dev/null
}

start_operator a || exit 1
register_webhooks a
eventually 30 fleet_ready || e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"
# One provider's clusters: member3 is gcp (flotilla-sim's topology says so; real members are
# registered as provider "real").
[[ -n $REAL ]] && kubectl patch fc member3 --type merge -p '{"spec":{"provider":"gcp"}}' >/dev/null
kubectl create namespace "$NS" >/dev/null 2>&1

# --- The policies first (a first propagation already carries them), then the application ---
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: ClusterOverridePolicy
metadata: {name: $COP}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, namespace: $NS}]
  rules:
  - targetCluster: {fieldSelector: {matchExpressions: [{key: region, operator: In, values: [us-east]}]}}
    overriders:
      image:
      - {component: Registry, operator: overwrite, value: mirror.us-east.example.com}
      - {component: Tag, operator: overwrite, value: stable}
  - targetCluster: {fieldSelector: {matchExpressions: [{key: provider, operator: In, values: [gcp]}]}}
    overriders:
      env: [{containerName: web, operator: addIfAbsent, value: [{name: CLOUD, value: gcp}]}]
  - targetCluster: {labelSelector: {matchLabels: {$NS-e2e: mirrored}}}
    overriders:
      labels: [{operator: overwrite, value: {mirrored: "yes"}}]
---
apiVersion: flotilla.io/v1alpha1
kind: OverridePolicy
metadata: {name: pin, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  rules:
  - targetCluster: {clusterNames: [member3]}
    overriders: {image: [{component: Tag, operator: overwrite, value: "1.28"}]}
---
apiVersion: flotilla.io/v1alpha1
kind: OverridePolicy
metadata: {name: team, namespace: $NS}
spec:
  resourceSelectors:
  - {apiVersion: v1, kind: ConfigMap, name: settings}
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  rules:
  - overriders:
      image: [{component: Tag, operator: addIfAbsent, value: latest}]
      labels: [{operator: overwrite, value: {team: payments}}]
YAML
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: app}
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  - {apiVersion: v1, kind: ConfigMap, name: settings}
  placement:
    clusterAffinity: {clusterNames: [member1, member2, member3]}
    replicaScheduling: {type: Duplicated}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings}
data: {LOG_LEVEL: info}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 1
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      initContainers: [{name: setup, image: busybox:1.36, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
      containers: [{name: web, image: nginx:1.27, resources: {requests: {cpu: 10m, memory: 16Mi}}}]
YAML
want1="init=busybox:1.36 web=nginx:1.27"
want3="init=mirror.us-east.example.com/busybox:1.28 web=mirror.us-east.example.com/nginx:1.28"
all_images() { [[ $(images member1) == "$want1" && $(images member2) == "$want1" && $(images member3) == "$want3" ]]; }
eventually 60 all_images || e2e_fail "images: member1 [$(images member1)] member2 [$(images member2)] member3 [$(images member3)]"
expect_eq "member1: the template's images" "$(images member1)" "$want1"
expect_eq "member2: the template's images" "$(images member2)" "$want1"
expect_eq "member3 (us-east): the mirror, and the tag of the OverridePolicy over the ClusterOverridePolicy's" \
  "$(images member3)" "$want3"
expect_eq "member3's Deployment records the policies, in the order they applied" \
  "$(member_field member3 deployment web '{.metadata.annotations.flotilla\.io/applied-overrides}')" \
  "cop/$COP,op/$NS/pin,op/$NS/team"
expect_eq "member1's records only the namespace's team policy" \
  "$(member_field member1 deployment web '{.metadata.annotations.flotilla\.io/applied-overrides}')" "op/$NS/team"
expect_eq "the env variable on the gcp cluster" \
  "$(member_field member3 deployment web '{.spec.template.spec.containers[0].env[?(@.name=="CLOUD")].value}')" "gcp"
for m in member1 member2; do
  expect_eq "no env variable on $m (aws/real)" "$(member_field $m deployment web '{.spec.template.spec.containers[0].env}')" ""
done
fd_applied() { kubectl get fdeploy web -n "$NS" -o jsonpath='{.status.clusters[?(@.name=="member3")].appliedOverrides}' 2>/dev/null; }
has_fd_applied() { [[ $(fd_applied) == *pin* ]]; }
eventually 30 has_fd_applied || e2e_fail "the FederatedDeployment should list member3's policies: $(kubectl get fdeploy web -n "$NS" -o yaml 2>&1; mkubectl member3 get deploy web -n "$NS" -o yaml)"
expect_contains "the FederatedDeployment's status lists member3's policies" "$(fd_applied)" "op/$NS/pin"

# The ConfigMap and the Deployment of one policy: both labelled, the image overrider skipped on
# the ConfigMap and said.
labelled() { for m in member1 member2 member3; do [[ $(member_field $m configmap settings '{.metadata.labels.team}') == payments ]] || return 1; done; }
eventually 30 labelled || e2e_fail "the ConfigMap should carry team=payments on every member"
for m in member1 member2 member3; do
  expect_eq "$m: the ConfigMap's label" "$(member_field $m configmap settings '{.metadata.labels.team}')" "payments"
  expect_eq "$m: the Deployment's label" "$(member_field $m deployment web '{.metadata.labels.team}')" "payments"
done
skipped() { [[ -n $(fo_cluster settings-configmap member1 skippedOverrides) ]]; }
eventually 30 skipped || true
expect_contains "the FederatedObject says the image overrider was skipped on the ConfigMap" \
  "$(fo_cluster settings-configmap member1 skippedOverrides)" "op/$NS/team rule 0: image: ConfigMap has no pod template"
expect_contains "and lists the policy that applied" "$(fo_cluster settings-configmap member1 appliedOverrides)" "op/$NS/team"
expect_contains "kubectl describe fo shows them" "$(kubectl describe fo settings-configmap -n "$NS")" "Skipped Overrides"

# --- A broken jsonPatch fails one cluster only ---
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: OverridePolicy
metadata: {name: broken, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: v1, kind: ConfigMap, name: settings}]
  rules:
  - targetCluster: {clusterNames: [member2]}
    overriders:
      labels: [{operator: overwrite, value: {broken: "yes"}}]
      jsonPatch: [{op: replace, path: /data/MISSING, value: x}]
YAML
failed2() { [[ $(fo_cluster settings-configmap member2 propagation) == UpdateFailed ]]; }
eventually 30 failed2 || e2e_fail "member2 should be UpdateFailed: $(kubectl get fo settings-configmap -n "$NS" -o yaml 2>&1)"
expect_contains "the message names the policy, the rule and the path" \
  "$(fo_cluster settings-configmap member2 message)" "op/$NS/broken rule 0: jsonPatch replace /data/MISSING"
expect_eq "member1 proceeds" "$(fo_cluster settings-configmap member1 propagation)" "OK"
expect_eq "member3 proceeds" "$(fo_cluster settings-configmap member3 propagation)" "OK"
expect_eq "nothing of the broken rule reached member2" "$(member_field member2 configmap settings '{.metadata.labels.broken}')" ""
expect_contains "kubectl get fo says Propagated False" "$(kubectl get fo settings-configmap -n "$NS" -o jsonpath='{.status.conditions[?(@.type=="Propagated")].message}')" "member2"
kubectl delete op broken -n "$NS" >/dev/null
ok2() { [[ $(fo_cluster settings-configmap member2 propagation) == OK ]]; }
eventually 30 ok2 || e2e_fail "member2 should be OK once the broken policy is gone"

# --- Editing a rule updates the members ---
kubectl patch op pin -n "$NS" --type json -p '[{"op":"replace","path":"/spec/rules/0/overriders/image/0/value","value":"1.29"}]' >/dev/null
want3="init=mirror.us-east.example.com/busybox:1.29 web=mirror.us-east.example.com/nginx:1.29"
edited() { [[ $(images member3) == "$want3" ]]; }
eventually 30 edited || e2e_fail "member3 should follow the edited rule: [$(images member3)]"
expect_eq "member3 after the edit" "$(images member3)" "$want3"
expect_eq "member1 untouched by the edit" "$(images member1)" "$want1"

# --- A cluster labelled later: the rule that selects it by label applies there, and leaves when
# the label goes ---
kubectl label fc member1 "$NS-e2e=mirrored" >/dev/null
mirrored() { [[ $(member_field member1 deployment web '{.metadata.labels.mirrored}') == yes ]]; }
eventually 30 mirrored || e2e_fail "member1's Deployment should get mirrored=yes once member1 is labelled"
expect_eq "the labelled cluster gets the rule" "$(member_field member1 deployment web '{.metadata.labels.mirrored}')" "yes"
expect_eq "another cluster does not" "$(member_field member2 deployment web '{.metadata.labels.mirrored}')" ""
kubectl label fc member1 "$NS-e2e-" >/dev/null
unmirrored() { [[ -z $(member_field member1 deployment web '{.metadata.labels.mirrored}') ]]; }
eventually 30 unmirrored || e2e_fail "member1's Deployment should lose mirrored=yes with the cluster's label"
expect_eq "the rule leaves with the cluster's label" "$(member_field member1 deployment web '{.metadata.labels.mirrored}')" ""

# --- The steady state writes nothing ---
quiet a || e2e_fail "the operator should settle"
MEMBER_WRITE_RESOURCES='deployments|configmaps|namespaces'
host_before=$(writes "$KUBECONFIG")
declare -A member_before=()
for m in member1 member2 member3; do member_before[$m]=$(writes "${MEMBER_KUBECONFIG[$m]}" member); done
# (An interval long enough for the sync's retries and the status controller's coalescing.)
deadline=$((SECONDS + 10)); while ((SECONDS < deadline)); do sleep 0.5; done
expect_eq "host writes in 10 s of steady state" "$(($(writes "$KUBECONFIG") - host_before))" "0"
for m in member1 member2 member3; do
  expect_eq "$m writes in 10 s of steady state" "$(($(writes "${MEMBER_KUBECONFIG[$m]}" member) - member_before[$m]))" "0"
done

# --- Deleting the OverridePolicy reverts its changes; then the ClusterOverridePolicy's ---
kubectl delete op pin -n "$NS" >/dev/null
want3="init=mirror.us-east.example.com/busybox:stable web=mirror.us-east.example.com/nginx:stable"
reverted() { [[ $(images member3) == "$want3" ]]; }
eventually 30 reverted || e2e_fail "member3 should lose the pinned tag: [$(images member3)]"
expect_eq "member3 without the OverridePolicy: the ClusterOverridePolicy's tag" "$(images member3)" "$want3"
kubectl delete cop "$COP" >/dev/null
want3=$want1
cloud() { member_field member3 deployment web '{.spec.template.spec.containers[0].env[?(@.name=="CLOUD")].value}'; }
reverted_all() { [[ $(images member3) == "$want1" && -z $(cloud) ]]; }
eventually 30 reverted_all || e2e_fail "member3 should be back to the template: [$(images member3)] CLOUD [$(cloud)]"
expect_eq "member3 back to the template's images" "$(images member3)" "$want1"
expect_eq "member3's env variable gone" "$(cloud)" ""
expect_eq "member3 records only what still applies" \
  "$(member_field member3 deployment web '{.metadata.annotations.flotilla\.io/applied-overrides}')" "op/$NS/team"

# --- Deleting an OverridePolicy together with the workload's policy (Karmada #3873) ---
# The workload stays where it is (a deleted PropagationPolicy does not un-federate), its
# overrides are reverted, and its member Deployment is never deleted nor scaled to 0.
uid1=$(member_field member1 deployment web '{.metadata.uid}')
kubectl delete op team -n "$NS" --wait=false >/dev/null
kubectl delete pp app -n "$NS" --wait=false >/dev/null
low=1 gone=""
team_reverted() { [[ -z $(member_field member1 deployment web '{.metadata.labels.team}') ]]; }
deadline=$((SECONDS + 30))
while ((SECONDS < deadline)); do
  r=$(member_field member1 deployment web '{.spec.replicas}')
  [[ -z $r ]] && gone=1
  [[ -n $r ]] && ((r < low)) && low=$r
  team_reverted && break
  sleep 0.1
done
expect_eq "member1's Deployment lost the team label" "$(member_field member1 deployment web '{.metadata.labels.team}')" ""
expect_eq "it was never deleted" "$gone$(member_field member1 deployment web '{.metadata.uid}')" "$uid1"
expect_eq "its replicas never dropped below 1" "$low" "1"
expect_eq "the ConfigMap's label reverted too" "$(member_field member1 configmap settings '{.metadata.labels.team}')" ""

# --- A selector of a kind the host does not serve: admitted, with a warning ---
out=$(kubectl apply -f - 2>&1 <<YAML
apiVersion: flotilla.io/v1alpha1
kind: OverridePolicy
metadata: {name: gadgets, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: example.com/v1, kind: Gadget}]
  rules: [{overriders: {labels: [{operator: overwrite, value: {a: b}}]}}]
YAML
)
expect_contains "kubectl apply prints the webhook's warning" "$out" \
  "Warning: spec.resourceSelectors[0]: the host does not serve kind Gadget in example.com/v1"
expect_contains "and the policy is created" "$out" "overridepolicy.flotilla.io/gadgets created"

echo "checks: $E2E_CHECKS, failures: $E2E_FAILURES"
((E2E_FAILURES == 0))
