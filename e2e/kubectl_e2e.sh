#!/usr/bin/env bash
# The real kubectl (default flags) against flotilla-sim: discovery, CRDs, printer columns, apply,
# patch, scale, watch, finalizers, cascading deletion, schema validation, authentication, and
# durability across kill -9. Usage: kubectl_e2e.sh PATH/TO/flotilla-sim
SIM=${1:?usage: kubectl_e2e.sh PATH/TO/flotilla-sim}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"

if ! command -v kubectl >/dev/null; then
  echo "kubectl is not on PATH: the e2e suite drives the real kubectl" >&2
  exit 1
fi

WORK=$(mktemp -d)
export HOME=$WORK KUBECACHEDIR=$WORK/kube-cache  # no state from the user's ~/.kube
cleanup() {
  jobs -p | xargs -r kill 2>/dev/null
  stop_sim "$WORK" host
  rm -rf "$WORK"
}
trap cleanup EXIT

start_sim "$WORK" host || exit 1
export KUBECONFIG=$WORK/host.kubeconfig
k() { kubectl "$@" 2>&1; }

# --- Security: loopback, TLS, bearer token ---
server=$(kubectl config view -o jsonpath='{.clusters[0].cluster.server}')
expect_contains "serves on loopback over TLS" "$server" "https://127.0.0.1:"
kubectl config view --raw -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' | base64 -d >"$WORK/ca.crt"
expect_eq "no token" "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/ca.crt" "$server/api/v1/namespaces")" "401"
expect_eq "wrong token" "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/ca.crt" -H 'Authorization: Bearer nope' "$server/api/v1/namespaces")" "401"
expect_contains "401 is a Status" "$(curl -s --cacert "$WORK/ca.crt" "$server/api/v1/namespaces")" '"reason":"Unauthorized"'
expect_eq "kubeconfig is private" "$(stat -c %a "$WORK/host.kubeconfig")" "600"

# --- Discovery and CRDs ---
out=$(k apply -f "$ROOT/crds/")
expect_contains "apply crds" "$out" "customresourcedefinition.apiextensions.k8s.io/federateddeployments.flotilla.io created"
out=$(k wait --for=condition=Established crd --all --timeout=20s)
expect_contains "CRDs Established" "$out" "federatedclusters.flotilla.io condition met"
out=$(k api-resources --api-group=flotilla.io)
for pair in "resourcebindings rb" "federatedclusters fc" "federateddeployments fdeploy" \
            "propagationpolicies pp" "clusterpropagationpolicies cpp" "schedulingprofiles sp" \
            "federatedobjects fo" "clusterfederatedobjects cfo" "clusterresourcebindings crb" \
            "overridepolicies op" "clusteroverridepolicies cop"; do
  set -- $pair
  grep -Eq "^$1 +$2 +flotilla.io/v1alpha1" <<<"$out" || e2e_fail "api-resources: no [$1 $2] in:"$'\n'"$out"
done

# --- Samples, printer columns, output formats ---
out=$(k apply -f "$ROOT/config/samples/")
expect_contains "apply samples" "$out" "federateddeployment.flotilla.io/web created"
expect_not_contains "apply samples has no errors" "$out" "rror"
out=$(k apply -f "$ROOT/config/samples/")
expect_contains "apply twice: unchanged" "$out" "federateddeployment.flotilla.io/web unchanged"
out=$(k get rb -A)
expect_contains "rb columns" "$out" "SCHEDULED"
expect_contains "rb columns" "$out" "PLACEMENT"
out=$(k get fc -o wide)
expect_contains "fc wide columns" "$out" "REGION"
expect_contains "fc wide row" "$out" "member1"
out=$(k get fdeploy -n shop)
expect_contains "fdeploy columns" "$out" "CLUSTERS"
out=$(k get fo,cfo,crb -A)
expect_contains "fo row: the kind it holds" "$out" "web-config-configmap   ConfigMap"
expect_contains "cfo row" "$out" "clusterfederatedobject.flotilla.io/web-reader-clusterrole   ClusterRole"
expect_contains "crb columns" "$out" "FULLYAPPLIED"
expect_contains "get -o yaml" "$(k get fc member1 -o yaml)" "kind: FederatedCluster"
expect_contains "get -o json" "$(k get fc member1 -o json)" '"apiVersion": "flotilla.io/v1alpha1"'
expect_contains "describe" "$(k describe fc member1)" "Kind:         FederatedCluster"
expect_contains "explain" "$(k explain federateddeployment.spec)" "KIND:       FederatedDeployment"
out=$(k apply --server-side -f "$ROOT/config/samples/demo/")
expect_contains "server-side apply" "$out" "serverside-applied"

# --- Schema validation of custom resources ---
cat >"$WORK/bad.yaml" <<'YAML'
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: bad, namespace: shop}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    replicaScheduling: {type: Sometimes}
YAML
out=$(k apply -f "$WORK/bad.yaml")
expect_contains "invalid CR rejected" "$out" 'is invalid'
expect_contains "invalid CR names the field" "$out" 'spec.placement.replicaScheduling.type: Unsupported value: "Sometimes"'
cat >"$WORK/unknown.yaml" <<'YAML'
apiVersion: flotilla.io/v1alpha1
kind: SchedulingProfile
metadata: {name: typo}
spec: {plugins: {filter: {enabled: [{name: ClusterReady}]}}, colour: red}
YAML
out=$(k apply -f "$WORK/unknown.yaml")
expect_contains "unknown field rejected (strict)" "$out" 'unknown field "spec.colour"'

# --- Built-in workloads: apply, patch (three types), scale, generation ---
cat >"$WORK/deploy.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: api, namespace: default}
spec:
  replicas: 2
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers:
      - {name: app, image: "nginx:1.25", env: [{name: A, value: "1"}]}
YAML
expect_contains "apply deployment" "$(k apply -f "$WORK/deploy.yaml")" "deployment.apps/api created"
expect_contains "scale" "$(k scale deployment api --replicas=4)" "deployment.apps/api scaled"
expect_contains "patch merge" "$(k patch deployment api --type merge -p '{"metadata":{"labels":{"tier":"web"}}}')" "patched"
expect_contains "patch json" "$(k patch deployment api --type json -p '[{"op":"replace","path":"/spec/replicas","value":3}]')" "patched"
expect_contains "patch strategic" "$(k patch deployment api --type strategic -p '{"spec":{"template":{"spec":{"containers":[{"name":"app","env":[{"name":"B","value":"2"}]}]}}}}')" "patched"
out=$(k get deployment api -o jsonpath='{.spec.replicas} {.metadata.labels.tier} {.spec.template.spec.containers[0].env[*].name} {.metadata.generation}')
expect_eq "patched state (generation counts spec changes only)" "$out" "3 web A B 4"

# --- Watch ---
kubectl get configmaps -n default --field-selector metadata.name=watched -w --output-watch-events >"$WORK/watch.out" 2>&1 &
watcher=$!
k create -f - <<'YAML' >/dev/null
apiVersion: v1
kind: ConfigMap
metadata: {name: watched, namespace: default}
data: {a: "1"}
YAML
eventually 10 grep -q ADDED "$WORK/watch.out"
k patch configmap watched --type merge -p '{"data":{"a":"2"}}' >/dev/null
if ! eventually 10 grep -q MODIFIED "$WORK/watch.out"; then e2e_fail "get -w did not see the change: $(cat "$WORK/watch.out")"; fi
kill "$watcher" 2>/dev/null

# --- Deletion: finalizers and cascading to owned objects ---
k create -f - <<'YAML' >/dev/null
apiVersion: v1
kind: ConfigMap
metadata: {name: held, namespace: default, finalizers: [example.com/hold]}
YAML
k delete configmap held --wait=false >/dev/null
expect_contains "finalizer holds the object" "$(k get configmap held -o jsonpath='{.metadata.deletionTimestamp}')" "T"
k patch configmap held --type json -p '[{"op":"remove","path":"/metadata/finalizers"}]' >/dev/null
expect_contains "gone once the finalizer is removed" "$(k get configmap held)" 'NotFound'
owner_uid=$(kubectl get deployment api -o jsonpath='{.metadata.uid}')
k create -f - <<YAML >/dev/null
apiVersion: v1
kind: ConfigMap
metadata:
  name: owned
  namespace: default
  ownerReferences: [{apiVersion: apps/v1, kind: Deployment, name: api, uid: "$owner_uid"}]
YAML
expect_contains "delete owner" "$(k delete deployment api)" 'deployment.apps "api" deleted'
if ! eventually 10 bash -c "kubectl get configmap owned 2>&1 | grep -q NotFound"; then e2e_fail "owned object was not collected"; fi

# --- Server-side apply: field ownership ---
cat >"$WORK/ssa.yaml" <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: owned, namespace: typed-ssa, labels: {team: a, extra: "yes"}}
data: {size: "3"}
YAML
k apply -f - >/dev/null <<<"{\"apiVersion\":\"v1\",\"kind\":\"Namespace\",\"metadata\":{\"name\":\"typed-ssa\"}}"
out=$(k apply --server-side -f "$WORK/ssa.yaml")
expect_contains "ssa create" "$out" "configmap/owned serverside-applied"
expect_contains "managedFields shown on request" "$(k -n typed-ssa get configmap owned -o yaml --show-managed-fields)" "manager: kubectl"
k -n typed-ssa patch configmap owned --type merge -p '{"data":{"size":"5"}}' >/dev/null
out=$(k apply --server-side -f "$WORK/ssa.yaml")
expect_contains "a field another manager changed is a conflict" "$out" 'Apply failed with 1 conflict: conflict with "kubectl-patch"'
expect_contains "naming the field" "$out" ".data.size"
out=$(k apply --server-side --force-conflicts -f "$WORK/ssa.yaml")
expect_contains "force takes it over" "$out" "serverside-applied"
expect_eq "forced value" "$(k -n typed-ssa get configmap owned -o jsonpath='{.data.size}')" "3"
sed -i 's/, extra: "yes"//' "$WORK/ssa.yaml"
k apply --server-side -f "$WORK/ssa.yaml" >/dev/null
expect_eq "a label dropped from the applied config is removed" "$(k -n typed-ssa get configmap owned -o jsonpath='{.metadata.labels}')" '{"team":"a"}'

# --- Typed create commands (protobuf bodies) ---
out=$(k create namespace typed)
expect_contains "create namespace" "$out" "namespace/typed created"
out=$(k -n typed create configmap settings --from-literal=mode=fast)
expect_contains "create configmap" "$out" "configmap/settings created"
expect_eq "configmap data decoded" "$(k -n typed get configmap settings -o jsonpath='{.data.mode}')" "fast"
out=$(k -n typed create secret generic creds --from-literal=user=admin)
expect_contains "create secret" "$out" "secret/creds created"
expect_eq "secret data decoded" "$(k -n typed get secret creds -o jsonpath='{.data.user}' | base64 -d)" "admin"
expect_eq "secret type defaulted" "$(k -n typed get secret creds -o jsonpath='{.type}')" "Opaque"
out=$(k -n typed create deployment web --image=nginx --replicas=2 --port=8080)
expect_contains "create deployment" "$out" "deployment.apps/web created"
expect_eq "deployment spec decoded" "$(k -n typed get deployment web -o jsonpath='{.spec.replicas} {.spec.template.spec.containers[0].image} {.spec.template.spec.containers[0].ports[0].containerPort}')" "2 nginx 8080"
out=$(k create service clusterip other --tcp=80)
expect_contains "other typed kinds get a clear 415" "$out" "send JSON or YAML"

# --- Durability: kill -9 during a stream of writes loses no acknowledged write ---
acknowledged=()
for i in $(seq 1 40); do
  if kubectl create configmap "durable-$i" -n default --dry-run=client -o json | kubectl create -f - >/dev/null 2>&1; then
    acknowledged+=("durable-$i")
  fi
  if ((i == 25)); then stop_sim "$WORK" host KILL; fi
done
before=$(cat "$WORK/data/host/../../host.port" 2>/dev/null)
start_sim "$WORK" host || exit 1
expect_eq "same port after restart" "$(cat "$WORK/host.port")" "$before"
missing=0
for name in "${acknowledged[@]}"; do
  kubectl get configmap "$name" -n default >/dev/null 2>&1 || missing=$((missing + 1))
done
expect_eq "acknowledged writes lost by kill -9 (of ${#acknowledged[@]})" "$missing" "0"
rv_old=$(kubectl get configmap "${acknowledged[-1]}" -o jsonpath='{.metadata.resourceVersion}')
k create configmap after-restart -n default --dry-run=client -o json | kubectl create -f - >/dev/null
rv_new=$(kubectl get configmap after-restart -o jsonpath='{.metadata.resourceVersion}')
((rv_new > rv_old)) || e2e_fail "resourceVersion did not increase across the restart ($rv_old -> $rv_new)"

e2e_summary
