#!/usr/bin/env bash
# Admission webhooks through flotilla-sim, driven by the real kubectl: a validating webhook denies,
# a mutating webhook patches, failurePolicy Fail/Ignore decides about an unreachable webhook and one
# that exceeds timeoutSeconds, and objectSelector/namespaceSelector limit what is sent.
# Usage: admission_e2e.sh PATH/TO/flotilla-sim PATH/TO/test_webhook
SIM=${1:?usage: admission_e2e.sh PATH/TO/flotilla-sim PATH/TO/test_webhook}
HOOK=${2:?usage: admission_e2e.sh PATH/TO/flotilla-sim PATH/TO/test_webhook}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"

WORK=$(mktemp -d)
export HOME=$WORK KUBECACHEDIR=$WORK/kube-cache
cleanup() {
  [[ -n "${HOOK_PID:-}" ]] && kill "$HOOK_PID" 2>/dev/null
  stop_sim "$WORK" host
  rm -rf "$WORK"
}
trap cleanup EXIT

start_sim "$WORK" host || exit 1
export KUBECONFIG=$WORK/host.kubeconfig
k() { kubectl "$@" 2>&1; }
# Typed `kubectl create <kind>` sends protobuf, which flotilla-sim does not decode (docs/sim.md):
# objects are applied as YAML.
apply_yaml() { k apply -f - <<<"# flow-style YAML, not JSON"$'\n'"$1"; }
configmap() {  # configmap NS NAME [LABELS-FLOW-MAP]
  apply_yaml "{apiVersion: v1, kind: ConfigMap, metadata: {namespace: $1, name: $2, labels: ${3:-{\}}}, data: {a: b}}"
}

mkdir -p "$WORK/hook"
"$HOOK" "$WORK/hook" >"$WORK/hook.log" 2>&1 &
HOOK_PID=$!
eventually 10 test -s "$WORK/hook/port" || { echo "test webhook did not start" >&2; cat "$WORK/hook.log" >&2; exit 1; }
PORT=$(cat "$WORK/hook/port")
CA=$(base64 -w0 <"$WORK/hook/ca.crt")

# An unused port: something refused the connection a moment ago.
DEAD_PORT=$(( PORT == 65000 ? 65001 : 65000 ))

apply_yaml "{apiVersion: v1, kind: Namespace, metadata: {name: hooked, labels: {admission: 'on'}}}" >/dev/null
apply_yaml "{apiVersion: v1, kind: Namespace, metadata: {name: plain}}" >/dev/null

cat >"$WORK/webhooks.yaml" <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: deny-label
webhooks:
- name: deny.flotilla.test
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 5
  clientConfig:
    url: https://127.0.0.1:$PORT/validate
    caBundle: $CA
  rules:
  - operations: ["CREATE", "UPDATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  namespaceSelector:
    matchLabels:
      admission: "on"
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata:
  name: add-label
webhooks:
- name: mutate.flotilla.test
  admissionReviewVersions: ["v1"]
  sideEffects: None
  clientConfig:
    service:
      namespace: flotilla-system
      name: test-webhook
      path: /mutate
      port: $PORT
    caBundle: $CA
  rules:
  - operations: ["CREATE"]
    apiGroups: [""]
    apiVersions: ["v1"]
    resources: ["configmaps"]
  objectSelector:
    matchExpressions:
    - {key: skip-mutation, operator: DoesNotExist}
YAML
out=$(k apply -f "$WORK/webhooks.yaml")
expect_contains "webhook configurations created" "$out" "validatingwebhookconfiguration.admissionregistration.k8s.io/deny-label created"
expect_contains "listed with printer columns" "$(k get validatingwebhookconfigurations)" "deny-label"

# --- Validating: denied with the webhook's message ---
out=$(configmap hooked bad "{deny: 'true'}")
expect_contains "denied by the validating webhook" "$out" 'admission webhook "deny.flotilla.test" denied the request: the label deny=true is not allowed'
expect_contains "nothing was stored" "$(k -n hooked get configmap bad)" 'NotFound'
out=$(configmap plain bad "{deny: 'true'}")
expect_contains "namespaceSelector: other namespaces are not sent" "$out" "configmap/bad created"

# --- Mutating: the JSONPatch is applied, objectSelector excludes ---
out=$(configmap hooked good)
expect_contains "allowed" "$out" "configmap/good created"
expect_eq "mutated" "$(k -n hooked get configmap good -o jsonpath='{.metadata.labels.mutated-by}')" "test-webhook"
out=$(configmap hooked skipped "{skip-mutation: 'yes'}")
expect_eq "objectSelector excludes" "$(k -n hooked get configmap skipped -o jsonpath='{.metadata.labels.mutated-by}')" ""

# --- failurePolicy with an unreachable webhook ---
cat >"$WORK/unreachable.yaml" <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: unreachable
webhooks:
- name: unreachable.flotilla.test
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  clientConfig:
    url: https://127.0.0.1:$DEAD_PORT/validate
    caBundle: $CA
  rules:
  - {operations: ["CREATE"], apiGroups: [""], apiVersions: ["v1"], resources: ["secrets"]}
YAML
k apply -f "$WORK/unreachable.yaml" >/dev/null
SECRET="{apiVersion: v1, kind: Secret, metadata: {namespace: plain, name: s1}, stringData: {a: b}}"
out=$(apply_yaml "$SECRET")
expect_contains "Fail: an unreachable webhook rejects" "$out" 'failed calling webhook "unreachable.flotilla.test"'
sed -i 's/failurePolicy: Fail/failurePolicy: Ignore/' "$WORK/unreachable.yaml"
k apply -f "$WORK/unreachable.yaml" >/dev/null
out=$(apply_yaml "$SECRET")
expect_contains "Ignore: an unreachable webhook is skipped" "$out" "secret/s1 created"

# --- timeoutSeconds ---
cat >"$WORK/slow.yaml" <<YAML
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata:
  name: slow
webhooks:
- name: slow.flotilla.test
  admissionReviewVersions: ["v1"]
  sideEffects: None
  failurePolicy: Fail
  timeoutSeconds: 1
  clientConfig:
    url: https://127.0.0.1:$PORT/slow
    caBundle: $CA
  rules:
  - {operations: ["CREATE"], apiGroups: ["apps"], apiVersions: ["v1"], resources: ["deployments"]}
YAML
k apply -f "$WORK/slow.yaml" >/dev/null
DEPLOY="{apiVersion: apps/v1, kind: Deployment, metadata: {namespace: plain, name: web}, spec: {selector: {matchLabels: {app: web}}, template: {metadata: {labels: {app: web}}, spec: {containers: [{name: web, image: nginx}]}}}}"
start=$SECONDS
out=$(apply_yaml "$DEPLOY")
expect_contains "a webhook slower than timeoutSeconds fails the request" "$out" "context deadline exceeded"
expect_eq "and does so after about a second" "$(( SECONDS - start < 3 ))" "1"
sed -i 's/failurePolicy: Fail/failurePolicy: Ignore/' "$WORK/slow.yaml"
k apply -f "$WORK/slow.yaml" >/dev/null
out=$(apply_yaml "$DEPLOY")
expect_contains "Ignore: a slow webhook is skipped" "$out" "deployment.apps/web created"

# --- Deleting a configuration stops the calls ---
k delete validatingwebhookconfiguration deny-label >/dev/null
out=$(configmap hooked bad "{deny: 'true'}")
expect_contains "no configuration, no webhook" "$out" "configmap/bad created"

e2e_summary
