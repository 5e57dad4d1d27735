#!/usr/bin/env bash
# How flotilla-sim prints built-in kinds to the real kubectl: the `kubectl get KIND` and
# `kubectl get KIND -o wide` header lines of every built-in kind it serves, as kube-apiserver
# prints them (the expected lines were taken from a real kube-apiserver v1.24; CI has none), a few
# cells (READY 1/1, STATUS Running), Events written through events.k8s.io/v1 showing up in
# `kubectl get events` and `kubectl describe`, and the request counters on /metrics.
# Usage: sim_printing_e2e.sh PATH/TO/flotilla-sim
SIM=${1:?usage: sim_printing_e2e.sh PATH/TO/flotilla-sim}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"

WORK=$(mktemp -d)
export HOME=$WORK KUBECACHEDIR=$WORK/kube-cache
cleanup() {
  stop_sim "$WORK" member
  rm -rf "$WORK"
}
trap cleanup EXIT

# A member cluster: Deployments get ReplicaSets and Pods that run on the Node below.
"$SIM" serve --dir "$WORK" --name member --member --ready-delay-ms 100 >>"$WORK/member.log" 2>&1 &
echo $! >"$WORK/member.pid"
if ! eventually 20 kubectl --kubeconfig "$WORK/member.kubeconfig" get --raw /readyz; then
  echo "flotilla-sim did not start:" >&2
  cat "$WORK/member.log" >&2
  exit 1
fi
export KUBECONFIG=$WORK/member.kubeconfig
k() { kubectl "$@" 2>&1; }

k apply -f - >"$WORK/apply.out" <<'EOF'
apiVersion: v1
kind: Namespace
metadata: {name: print}
---
apiVersion: v1
kind: Node
metadata: {name: node-1}
status:
  allocatable: {cpu: "4", memory: 8Gi, pods: "110"}
  capacity: {cpu: "4", memory: 8Gi, pods: "110"}
  conditions: [{type: Ready, status: "True", reason: KubeletReady, message: ready}]
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: web, namespace: print}
spec:
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      containers:
      - {name: web, image: nginx:1.25, resources: {requests: {cpu: 100m}}}
---
apiVersion: v1
kind: Service
metadata: {name: web, namespace: print}
spec:
  selector: {app: web}
  ports: [{port: 80}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: settings, namespace: print}
data: {a: "1"}
---
apiVersion: v1
kind: Secret
metadata: {name: token, namespace: print}
stringData: {token: abc}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: robot, namespace: print}
---
apiVersion: coordination.k8s.io/v1
kind: Lease
metadata: {name: leader, namespace: print}
spec: {holderIdentity: robot-1}
---
apiVersion: v1
kind: Event
metadata: {name: old-api, namespace: print}
involvedObject: {kind: Deployment, name: web, namespace: print}
reason: ScalingReplicaSet
message: Scaled up
type: Normal
source: {component: deployment-controller}
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: widgets.example.com}
spec:
  group: example.com
  names: {plural: widgets, kind: Widget}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema: {openAPIV3Schema: {type: object, x-kubernetes-preserve-unknown-fields: true}}
---
apiVersion: admissionregistration.k8s.io/v1
kind: ValidatingWebhookConfiguration
metadata: {name: never-called}
webhooks:
- name: never.example.com
  clientConfig: {url: "https://127.0.0.1:1/never"}
  rules: [{operations: [CREATE], apiGroups: [example.invalid], apiVersions: [v1], resources: [nothings]}]
  sideEffects: None
  admissionReviewVersions: [v1]
---
apiVersion: admissionregistration.k8s.io/v1
kind: MutatingWebhookConfiguration
metadata: {name: empty}
webhooks: []
EOF
expect_contains "objects created" "$(cat "$WORK/apply.out")" "deployment.apps/web created"

# An event written with the newer API, about the ConfigMap (with its uid, as describe selects).
UID_CM=$(k get configmap settings -n print -o jsonpath='{.metadata.uid}')
NOW=$(date -u +%Y-%m-%dT%H:%M:%S.000000Z)
out=$(k apply -f - <<EOF
apiVersion: events.k8s.io/v1
kind: Event
metadata: {name: new-api, namespace: print}
regarding: {kind: ConfigMap, name: settings, namespace: print, uid: $UID_CM, apiVersion: v1}
reason: Reloaded
note: settings reloaded
type: Warning
action: Reload
reportingController: flotilla.io/e2e
reportingInstance: e2e-1
eventTime: "$NOW"
EOF
)
expect_contains "events.k8s.io event created" "$out" "event.events.k8s.io/new-api created"

# --- Header lines, as kube-apiserver v1.24 prints them through kubectl ---
header() { kubectl get "$@" 2>&1 | head -1 | tr -s ' ' | sed 's/ *$//'; }
check_headers() {  # KIND NORMAL WIDE
  expect_eq "kubectl get $1" "$(header "$1" -n print)" "$2"
  expect_eq "kubectl get $1 -o wide" "$(header "$1" -n print -o wide)" "$3"
}
# Pods and ReplicaSets exist once the deployment controller ran.
# (A function: the command substitution is run on every try, not once before the first.)
has_pods() { test -n "$(kubectl get pods -n print -o name 2>/dev/null)"; }
eventually 60 has_pods || e2e_fail "the deployment got no pods"

check_headers namespaces "NAME STATUS AGE" "NAME STATUS AGE"
check_headers configmaps "NAME DATA AGE" "NAME DATA AGE"
check_headers secrets "NAME TYPE DATA AGE" "NAME TYPE DATA AGE"
check_headers serviceaccounts "NAME SECRETS AGE" "NAME SECRETS AGE"
check_headers services "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE" \
  "NAME TYPE CLUSTER-IP EXTERNAL-IP PORT(S) AGE SELECTOR"
check_headers events "LAST SEEN TYPE REASON OBJECT MESSAGE" \
  "LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME"
check_headers events.events.k8s.io "LAST SEEN TYPE REASON OBJECT MESSAGE" \
  "LAST SEEN TYPE REASON OBJECT SUBOBJECT SOURCE MESSAGE FIRST SEEN COUNT NAME"
check_headers nodes "NAME STATUS ROLES AGE VERSION" \
  "NAME STATUS ROLES AGE VERSION INTERNAL-IP EXTERNAL-IP OS-IMAGE KERNEL-VERSION CONTAINER-RUNTIME"
check_headers pods "NAME READY STATUS RESTARTS AGE" \
  "NAME READY STATUS RESTARTS AGE IP NODE NOMINATED NODE READINESS GATES"
check_headers deployments "NAME READY UP-TO-DATE AVAILABLE AGE" \
  "NAME READY UP-TO-DATE AVAILABLE AGE CONTAINERS IMAGES SELECTOR"
check_headers replicasets "NAME DESIRED CURRENT READY AGE" \
  "NAME DESIRED CURRENT READY AGE CONTAINERS IMAGES SELECTOR"
check_headers leases "NAME HOLDER AGE" "NAME HOLDER AGE"
check_headers customresourcedefinitions "NAME CREATED AT" "NAME CREATED AT"
check_headers validatingwebhookconfigurations "NAME WEBHOOKS AGE" "NAME WEBHOOKS AGE"
check_headers mutatingwebhookconfigurations "NAME WEBHOOKS AGE" "NAME WEBHOOKS AGE"

# --- Cells ---
# The first row, spaces squeezed, the age as AGE.
row() {
  kubectl get "$@" --no-headers 2>&1 | head -1 | tr -s ' ' | sed 's/ *$//' |
    sed -E 's/(^| )[0-9]+[smhdy]([0-9]+[smhdy])?( |$)/\1AGE\3/'
}
deployment_ready() { [[ $(row deployment web -n print) == "web 1/1 1 1 AGE" ]]; }
eventually 60 deployment_ready || e2e_fail "deployment row: $(row deployment web -n print)"
pod_running() { [[ $(row pods -n print) == web-*" 1/1 Running 0 AGE" ]]; }
eventually 60 pod_running || e2e_fail "pod row: $(row pods -n print)"
expect_contains "pod wide: IP and node" "$(row pods -n print -o wide)" " node-1 <none> <none>"
expect_contains "deployment wide" "$(row deployment web -n print -o wide)" \
  "web 1/1 1 1 AGE web nginx:1.25 app=web"
expect_eq "node row" "$(row nodes)" "node-1 Ready <none> AGE"
# The clusterIP is allocated as kube-apiserver does (from 10.96.0.0/12).
svc_row=$(row services -n print)
[[ $svc_row =~ ^web\ ClusterIP\ 10\.(9[6-9]|10[0-9]|11[01])\.[0-9]+\.[0-9]+\ \<none\>\ 80/TCP\ AGE$ ]] ||
  e2e_fail "service row: expected [web ClusterIP 10.96-111.x.y <none> 80/TCP AGE], got [$svc_row]"
expect_eq "secret row (stringData became data)" "$(row secrets -n print)" "token Opaque 1 AGE"
expect_eq "lease row" "$(row leases -n print)" "leader robot-1 AGE"
expect_eq "webhook row" "$(row validatingwebhookconfigurations)" "never-called 1 AGE"

# --- One collection of Events, whichever API wrote them ---
events=$(k get events -n print | tr -s ' ')
expect_contains "core API lists the events.k8s.io event" "$events" "Warning Reloaded configmap/settings settings reloaded"
expect_contains "and its own" "$events" "Normal ScalingReplicaSet deployment/web Scaled up"
expect_contains "events.k8s.io lists the core event" "$(k get events.events.k8s.io -n print -o name)" "event.events.k8s.io/old-api"
expect_contains "kubectl describe shows the newer API's event" \
  "$(k describe configmap settings -n print | tr -s ' ')" "Warning Reloaded"
expect_eq "field selectors on core events" \
  "$(k get events -n print --field-selector involvedObject.kind=ConfigMap,involvedObject.name=settings,reason=Reloaded -o name)" \
  "event/new-api"
expect_eq "field selectors on events.k8s.io" \
  "$(k get events.events.k8s.io -n print --field-selector regarding.name=web,type=Normal -o name)" \
  "event.events.k8s.io/old-api"
wide=$(k get events -n print -o wide --field-selector reason=Reloaded | tr -s ' ')
expect_contains "SOURCE falls back to the reporting controller" "$wide" "flotilla.io/e2e, e2e-1"

# --- Request metrics ---
metrics=$(k get --raw /metrics)
expect_contains "metrics count the deployment's create" "$metrics" \
  'apiserver_request_total{code="201",component="apiserver",dry_run="",group="apps",resource="deployments",scope="resource",subresource="",verb="POST",version="v1"} 1'
expect_contains "and the lists" "$metrics" 'resource="pods",scope="namespace",subresource="",verb="LIST",version="v1"}'

e2e_summary
