#!/usr/bin/env bash
# The operator's admission webhooks end to end (issue 12), with the real kubectl: validation
# denies with the webhook's name and the field path, defaulting shows in `kubectl get -o yaml`,
# a policy naming a missing SchedulingProfile is admitted with a warning, a stopped operator under
# failurePolicy Fail is a clear error, and certificate files replaced on disk are served without a
# restart. The configurations are config/webhook's, pointed at the local operator by URL.
# Runs against flotilla-sim, or the clusters named as in operator_lib.sh.
# Usage: webhook_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: webhook_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: webhook_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
NS=webhooks
source "$ROOT/e2e/lib.sh"
source "$ROOT/e2e/operator_lib.sh"
k() { kubectl "$@" 2>&1; }

kubectl create namespace $NS >/dev/null
# --- Before any webhook is registered: the installation renders and is accepted by the API server (server-side dry run) ---
out=$(k apply --server-side --dry-run=server -k "$ROOT/config/default")
expect_contains "config/default dry run: Deployment" "$out" "deployment.apps/flotilla-operator serverside-applied (server dry run)"
expect_contains "config/default dry run: webhooks" "$out" "validatingwebhookconfiguration.admissionregistration.k8s.io/flotilla-validating-webhook-configuration serverside-applied (server dry run)"
expect_not_contains "config/default dry run: no error" "$(grep -iE '^(error|Error from server)' <<<"$out")" "rror"

start_operator a || exit 1
wait_ready a || exit 1  # the SchedulingProfile cache is synced: warnings are decided on facts
cleanup_webhooks() {
  kubectl delete validatingwebhookconfiguration flotilla-validating-webhook-configuration \
    --ignore-not-found >/dev/null 2>&1
  kubectl delete mutatingwebhookconfiguration flotilla-mutating-webhook-configuration \
    --ignore-not-found >/dev/null 2>&1
  cleanup
}
trap cleanup_webhooks EXIT

policy() {  # policy NAME EXTRA-SPEC-YAML (two-space indented under spec): selects Deployment NAME
  cat <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: $1, namespace: $NS}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: $1}]
$2
YAML
}

# A policy stored before the webhooks existed (an upgrade): not defaulted.
policy legacy "" | kubectl apply -f - >/dev/null
register_webhooks a

# --- Validation: the webhook's name and every field path ---
out=$(policy bad "  placement:
    spreadConstraints: [{spreadByField: region, minGroups: 2, maxGroups: 1}]
    replicaScheduling: {type: Divided, division: Weighted, weights: [{targetCluster: {clusterNames: [member1]}, weight: 0}]}" |
  k apply -f -)
expect_contains "invalid policy: denied by the validating webhook" "$out" \
  'admission webhook "vpropagationpolicy.flotilla.io" denied the request'
expect_contains "invalid policy: field path and message" "$out" \
  "spec.placement.spreadConstraints[0].maxGroups: must be >= minGroups"
expect_contains "invalid policy: every field error" "$out" "spec.placement.spreadConstraints: a constraint with spreadByField: cluster is required"
expect_eq "invalid policy was not stored" "$(kubectl get pp bad -n $NS -o name 2>/dev/null)" ""

out=$(k apply -f - <<YAML
apiVersion: flotilla.io/v1alpha1
kind: SchedulingProfile
metadata: {name: fast}
spec:
  plugins:
    score:
      enabled: [{name: Fastest, weight: 2}]
YAML
)
expect_contains "unknown plugin: denied" "$out" 'admission webhook "vschedulingprofile.flotilla.io" denied the request'

expect_contains "unknown plugin: named with its field" "$out" 'spec.plugins.score.enabled[0].name: Unsupported value: "Fastest"'

# A FederatedObject must hold a kind that is ever propagated, in its own namespace.
out=$(k apply -f - <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: token, namespace: $NS}
spec:
  template:
    apiVersion: v1
    kind: Secret
    type: kubernetes.io/service-account-token
    metadata: {name: token, namespace: elsewhere}
YAML
)
expect_contains "token Secret in a FederatedObject: denied" "$out" 'admission webhook "vfederatedobject.flotilla.io" denied the request'
expect_contains "token Secret: why" "$out" 'spec.template.kind: Forbidden: never propagated: ServiceAccount token Secrets are minted by each cluster'
expect_contains "token Secret: and the namespace" "$out" "spec.template.metadata.namespace: Invalid value: \"elsewhere\": must be the FederatedObject's namespace"
out=$(k apply -f - <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedObject
metadata: {name: cfg, namespace: $NS}
spec:
  template:
    apiVersion: v1
    kind: ConfigMap
    metadata: {name: cfg}
    data: {k: v}
YAML
)
expect_contains "a ConfigMap's FederatedObject: created" "$out" "federatedobject.flotilla.io/cfg created"
expect_eq "its template defaulted into its namespace" "$(kubectl get fo cfg -n $NS -o jsonpath='{.spec.template.metadata.namespace}')" "$NS"

# --- Defaulting: a minimal policy comes back with the defaults of docs/design.md §3 ---
out=$(policy minimal "" | k apply -f -)
expect_contains "minimal policy admitted" "$out" "propagationpolicy.flotilla.io/minimal created"
yaml=$(kubectl get pp minimal -n $NS -o yaml)
# (replicaScheduling.type stays absent: it means the selected kind's default, docs/api-reference.md)
expect_not_contains "no default type in a policy" "$yaml" "type: Divided"
expect_contains "default: Weighted" "$yaml" "division: Weighted"
expect_contains "default: avoidDisruption" "$yaml" "avoidDisruption: true"
expect_contains "default: failover after 60s" "$yaml" "clusterNotReadyFor: 60s"
expect_contains "default: failback Rebalance" "$yaml" "failback: Rebalance"

# --- A policy naming a SchedulingProfile that does not exist: admitted, with a warning ---
out=$(policy custom "  schedulingProfile: does-not-exist" | k apply -f -)
expect_contains "missing profile: admitted" "$out" "propagationpolicy.flotilla.io/custom created"
expect_contains "missing profile: warned" "$out" \
  'Warning: spec.schedulingProfile: SchedulingProfile "does-not-exist" does not exist'

# --- Every sample of every kind passes both webhooks ---
k apply -f "$ROOT/config/samples/00-namespaces.yaml" -f "$ROOT/config/samples/schedulingprofile.yaml" >/dev/null
profile_known() { ! policy probe "  schedulingProfile: default-plus-locality" | k apply --dry-run=server -f - | grep -q Warning; }
eventually 10 profile_known  # the operator's cache has seen the profile
out=$(k apply --dry-run=server -f "$ROOT/config/samples/")
objects=$(cat "$ROOT"/config/samples/*.yaml | grep -c '^kind:')
expect_eq "samples: every object admitted (server dry run)" "$(grep -c '(server dry run)' <<<"$out")" "$objects"
expect_not_contains "samples admitted without webhook warnings" "$out" "Warning: spec"
expect_eq "operator a still running" "$(kill -0 "$(cat "$WORK/operator-a.pid")" && echo yes)" "yes"

# --- The controllers' own writes pass through the webhooks: a workload converges, and the
#     binding (whose placement the webhook defaults) is not rewritten over and over ---
kubectl apply -f - >/dev/null <<YAML
apiVersion: apps/v1
kind: Deployment
metadata: {name: legacy, namespace: $NS}
spec:
  replicas: 3
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec: {containers: [{name: app, image: nginx:1.27}]}
YAML
fully_applied() { [[ $(rb_field legacy '{.status.conditions[?(@.type=="FullyApplied")].status}') == True ]]; }
eventually 30 fully_applied
expect_eq "workload through the webhooks: FullyApplied" "$(rb_field legacy '{.status.conditions[?(@.type=="FullyApplied")].status}')" "True"
expect_eq "workload through the webhooks: 3 replicas placed" "$(placement_sum legacy)" "3"
expect_eq "the binding's placement is defaulted (its policy is not)" "$(rb_field legacy '{.spec.placement.replicaScheduling.avoidDisruption}')" "true"
# A successor resyncs everything: with the webhooks defaulting what the controllers write, it
# must find nothing to write (an undefaulted desired placement would be rewritten every time).
start_operator b || exit 1
register_webhooks b
# Only ResourceBinding spec writes are counted: no other client writes them (a real host's own
# controllers write elsewhere meanwhile).
rb_writes() {
  kubectl get --raw /metrics | awk '/^apiserver_request_total\{/ && /resource="resourcebindings"/ &&
    /subresource=""/ && /verb="(PUT|PATCH|APPLY|UPDATE)"/ { s += $NF } END { print s + 0 }'
}
quiet a
before=$(rb_writes)
stop_operator a TERM
eventually 20 grep -q "acquired" "$WORK/operator-b.log"
quiet b
expect_eq "the successor rewrites no binding through the webhooks" "$(rb_writes)" "$before"

# --- Certificates replaced on disk are served without a restart ---
pid=$(cat "$WORK/operator-b.pid")
"$CTL" webhooks --url https://127.0.0.1:1 --cert-dir "$WORK/certs2" >/dev/null
cp "$WORK/certs2/tls.key" "$WORK/certs/tls.key.new" && cp "$WORK/certs2/tls.crt" "$WORK/certs/tls.crt.new"
mv "$WORK/certs/tls.key.new" "$WORK/certs/tls.key" && mv "$WORK/certs/tls.crt.new" "$WORK/certs/tls.crt"
cp "$WORK/certs2/ca.crt" "$WORK/certs/ca.crt"  # the new CA goes into the configurations
register_webhooks b
out=$(policy rotated "" | k apply -f -)
expect_contains "after rotation: admitted through the new certificate" "$out" "propagationpolicy.flotilla.io/rotated created"
expect_eq "after rotation: same operator process" "$(cat "$WORK/operator-b.pid")" "$pid"
expect_contains "after rotation: the operator reloaded" "$(cat "$WORK/operator-b.log")" "serving certificate reloaded"
yaml=$(kubectl get pp rotated -n $NS -o jsonpath='{.spec.failover.failback}')
expect_eq "after rotation: still defaulted" "$yaml" "Rebalance"

# --- The operator stopped, failurePolicy Fail: a clear error, nothing stored ---
stop_operator b TERM
out=$(policy down "" | k apply -f -)
expect_contains "operator down: kubectl says which webhook failed" "$out" 'failed calling webhook "mpropagationpolicy.flotilla.io"'
expect_eq "operator down: nothing stored" "$(kubectl get pp down -n $NS -o name 2>/dev/null)" ""

e2e_summary
