#!/usr/bin/env bash
# Dependencies follow their workloads (issue 30, docs/design.md §12). A PropagationPolicy selects
# only the Deployment of namespace "shop"; its ConfigMap (envFrom), Secret (volume),
# ServiceAccount, PersistentVolumeClaim and the Service selecting its pods follow it to exactly
# its two clusters of four (namespace shop is never made on the other two), applied before it, so no pod ever waits in CreateContainerConfigError. A
# missing Secret is reported on the binding (DependenciesReady=False, Missing) and clears once it
# exists; a ConfigMap two Deployments share is on both their clusters and leaves one only after
# its Deployment is gone there; a move brings the followers first. flotilla-sim, or real
# clusters through FLOTILLA_E2E_HOST_KUBECONFIG / FLOTILLA_E2E_MEMBER_KUBECONFIGS (members that
# run pods: FLOTILLA_E2E_MEMBERS_RUN_PODS=1; four members, member1..member4).
# Usage: dependencies_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator
SIM=${1:?usage: dependencies_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
OPERATOR=${2:?usage: dependencies_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
NS=shop
E2E_MEMBERS=4
source "$ROOT/e2e/operator_lib.sh"

on() { mkubectl "$1" get "$2" "$3" -n "$NS" -o name >/dev/null 2>&1; }
# exactly KIND NAME M1 M2: on M1 and M2 and on no other member.
exactly() {
  local kind=$1 name=$2 m
  for m in "${MEMBERS[@]}"; do
    if [[ $m == "$3" || $m == "$4" ]]; then on "$m" "$kind" "$name" || return 1
    else ! on "$m" "$kind" "$name" || return 1; fi
  done
}
rb_condition() { kubectl get rb "$1" -n "$NS" -o jsonpath="{.status.conditions[?(@.type==\"$2\")].$3}" 2>/dev/null; }

# The uid of a Deployment that exists and is not being deleted ("" otherwise).
live_deployment() {
  mkubectl "$1" get deployment "$2" -n "$NS" -o jsonpath='{.metadata.uid} {.metadata.deletionTimestamp}' 2>/dev/null |
    awk 'NF == 1 { print $1 }'
}
# Every 200 ms, on every member: a pod of the suite waiting in CreateContainerConfigError, or a
# Deployment whose ConfigMap is not there yet, is a defect (the followers come first).
sampler() {
  while [[ ! -e $WORK/sampler.stop ]]; do
    for m in "${MEMBERS[@]}"; do
      mkubectl "$m" get pods -n "$NS" -l 'app in (web,shared-a,shared-b)' --no-headers \
        -o custom-columns='NAME:.metadata.name,WAIT:.status.containerStatuses[*].state.waiting.reason' 2>/dev/null |
        awk -v m="$m" '/CreateContainerConfigError/ { print "CCE " m " " $0 }'
      # The same live Deployment before and after the ConfigMap was seen missing: both at once.
      # (The reads are not one snapshot: a Deployment deleted between them, and the ConfigMap
      # removed after it, is not a violation. A Deployment being deleted starts no pods.)
      before=$(live_deployment "$m" web)
      if [[ -n $before ]] && ! on "$m" configmap shop-env && [[ $(live_deployment "$m" web) == "$before" ]]; then
        echo "ORDER $m web before shop-env"
      fi
    done
    sleep 0.2
  done >>"$WORK/samples"
}
: >"$WORK/samples"

start_operator a || exit 1
register_webhooks a
eventually 30 fleet_ready || e2e_fail "members should turn Ready: $(kubectl get fc 2>&1)"
kubectl create namespace "$NS" >/dev/null 2>&1
if [[ -n $REAL ]]; then  # a volume for the claim on every member (real members have no provisioner)
  # (named after the suite's namespace: one bound to an earlier run's claim stays Released)
  for m in "${MEMBERS[@]}"; do
    mkubectl "$m" apply -f - >/dev/null <<YAML
apiVersion: v1
kind: PersistentVolume
metadata: {name: $NS-data}
spec:
  capacity: {storage: 1Gi}
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  hostPath: {path: /tmp/shop-data}
  claimRef: {namespace: $NS, name: shop-data}
YAML
  done
fi
kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: web, namespace: $NS}
spec:
  resourceSelectors:
  - {apiVersion: apps/v1, kind: Deployment, name: web}
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
    replicaScheduling: {type: Divided}
YAML

sampler &
SAMPLER=$!

# --- One policy selecting only the Deployment: the application on exactly its clusters ---
# The Deployment is written first: its followers still reach each cluster before it.
t0=$(date +%s.%N)
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: web}
spec:
  replicas: 4
  selector: {matchLabels: {app: web}}
  template:
    metadata: {labels: {app: web}}
    spec:
      serviceAccountName: shop-sa
      containers:
      - name: web
        image: nginx:1.27
        envFrom: [{configMapRef: {name: shop-env}}]
        resources: {requests: {cpu: 10m, memory: 16Mi}}
        volumeMounts:
        - {name: tls, mountPath: /tls}
        - {name: data, mountPath: /data}
      volumes:
      - {name: tls, secret: {secretName: shop-tls}}
      - {name: data, persistentVolumeClaim: {claimName: shop-data}}
---
apiVersion: v1
kind: ConfigMap
metadata: {name: shop-env}
data: {MODE: fast}
---
apiVersion: v1
kind: Secret
metadata: {name: shop-tls}
stringData: {tls.key: not-a-real-key}
---
apiVersion: v1
kind: ServiceAccount
metadata: {name: shop-sa}
---
apiVersion: v1
kind: PersistentVolumeClaim
metadata: {name: shop-data}
spec:
  accessModes: [ReadWriteOnce]
  storageClassName: ""
  resources: {requests: {storage: 1Gi}}
---
apiVersion: v1
kind: Service
metadata: {name: web}
spec:
  selector: {app: web}
  ports: [{port: 80, targetPort: 8080}]
YAML
all_there() {
  exactly deployment web member1 member2 && exactly configmap shop-env member1 member2 &&
    exactly secret shop-tls member1 member2 && exactly serviceaccount shop-sa member1 member2 &&
    exactly persistentvolumeclaim shop-data member1 member2 && exactly service web member1 member2
}
eventually 30 all_there || e2e_fail "every object of shop should be on member1 and member2 only: $(kubectl get fo,rb -n "$NS" 2>&1)"
echo "kubectl apply -> the whole application on its 2 clusters: $(echo "$(date +%s.%N) - $t0" | bc) s"
expect_eq "the ConfigMap follows without a policy" "$(kubectl get rb shop-env-configmap -n "$NS" -o jsonpath='{.spec.policy.name}|{.spec.requiredBy[0].name}')" "|web"
for m in member3 member4; do
  expect_eq "namespace shop is not on $m" "$(mkubectl "$m" get ns "$NS" -o name 2>&1 | grep -c '^namespace/')" "0"
done
if [[ -n $PODS_RUN ]]; then
  ready() { [[ $(kubectl get deploy web -n "$NS" -o jsonpath='{.status.readyReplicas}') == 4 ]]; }
  eventually 60 ready || e2e_fail "host Deployment web should be READY 4/4: $(kubectl get deploy web -n "$NS" 2>&1; mkubectl member1 get pods -n "$NS" 2>&1)"
  expect_contains "kubectl get deploy on the host" "$(kubectl get deploy web -n "$NS")" "4/4"
fi
eventually 20 bash -c "[[ \$(kubectl get rb web -n $NS -o jsonpath='{.status.conditions[?(@.type==\"DependenciesReady\")].status}') == True ]]" ||
  e2e_fail "DependenciesReady should be True: $(kubectl get rb web -n "$NS" -o yaml)"

# --- A missing Secret: the workload still propagates; the binding names it until it exists ---
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: api}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: api}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
---
apiVersion: apps/v1
kind: Deployment
metadata:
  name: api
  annotations: {flotilla.io/followers: '[{"kind": "ConfigMap", "name": "api-extra"}]'}
spec:
  replicas: 1
  selector: {matchLabels: {app: api}}
  template:
    metadata: {labels: {app: api}}
    spec:
      containers: [{name: api, image: nginx:1.27, volumeMounts: [{name: creds, mountPath: /creds}]}]
      volumes: [{name: creds, secret: {secretName: api-creds}}]
---
apiVersion: v1
kind: ConfigMap
metadata: {name: api-extra}
data: {note: named only by the flotilla.io/followers annotation}
YAML
eventually 30 on member1 deployment api || e2e_fail "api should propagate without its Secret"
eventually 30 on member1 configmap api-extra || e2e_fail "api-extra, which api's flotilla.io/followers names, should follow it to member1: $(kubectl get rb api-extra-configmap -n "$NS" -o yaml 2>&1)"
eventually 20 bash -c "[[ \$(kubectl get rb api -n $NS -o jsonpath='{.status.conditions[?(@.type==\"DependenciesReady\")].reason}') == Missing ]]" ||
  e2e_fail "DependenciesReady should be False/Missing: $(kubectl get rb api -n "$NS" -o yaml)"
expect_eq "DependenciesReady False" "$(rb_condition api DependenciesReady status)" "False"
expect_contains "the message names the Secret" "$(rb_condition api DependenciesReady message)" "Secret $NS/api-creds"
expect_contains "an Event says so" "$(kubectl get events -n "$NS" --field-selector reason=DependencyMissing -o jsonpath='{.items[*].message}')" "api-creds"
kubectl create secret generic api-creds -n "$NS" --from-literal=token=t0ken >/dev/null
eventually 30 on member1 secret api-creds || e2e_fail "api-creds should follow api to member1"
eventually 20 bash -c "[[ \$(kubectl get rb api -n $NS -o jsonpath='{.status.conditions[?(@.type==\"DependenciesReady\")].status}') == True ]]" ||
  e2e_fail "DependenciesReady should turn True once the Secret exists: $(kubectl get rb api -n "$NS" -o yaml)"
expect_eq "api-creds only where api is" "$(on member2 secret api-creds && echo there || echo absent)" "absent"

# --- A shared ConfigMap: on both leaders' clusters; it leaves one only with its leader ---
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: v1
kind: ConfigMap
metadata: {name: shared}
data: {color: blue}
---
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shared-a}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shared-a}]
  placement: {clusterAffinity: {clusterNames: [member1]}}
---
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: shared-b}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: shared-b}]
  placement: {clusterAffinity: {clusterNames: [member2]}}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: shared-a}
spec:
  replicas: 1
  selector: {matchLabels: {app: shared-a}}
  template:
    metadata: {labels: {app: shared-a}}
    spec: {containers: [{name: a, image: nginx:1.27, envFrom: [{configMapRef: {name: shared}}]}]}
---
apiVersion: apps/v1
kind: Deployment
metadata: {name: shared-b}
spec:
  replicas: 1
  selector: {matchLabels: {app: shared-b}}
  template:
    metadata: {labels: {app: shared-b}}
    spec: {containers: [{name: b, image: nginx:1.27, envFrom: [{configMapRef: {name: shared}}]}]}
YAML
eventually 30 exactly configmap shared member1 member2 || e2e_fail "shared should be on member1 and member2: $(kubectl get rb shared-configmap -n "$NS" -o yaml 2>&1)"
kubectl patch configmap shared -n "$NS" --type merge -p '{"data":{"color":"green"}}' >/dev/null
both_green() {
  [[ $(mkubectl member1 get cm shared -n "$NS" -o jsonpath='{.data.color}') == green &&
     $(mkubectl member2 get cm shared -n "$NS" -o jsonpath='{.data.color}') == green ]]
}
eventually 20 both_green || e2e_fail "a host edit of shared should reach both members"
kubectl delete deployment shared-a -n "$NS" --wait=false >/dev/null
eventually 30 bash -c "! kubectl --kubeconfig ${MEMBER_KUBECONFIG[member1]} get cm shared -n $NS -o name" ||
  e2e_fail "shared should leave member1 once shared-a is gone"
echo "shared-a's Deployment on member1 when shared left it: $(on member1 deployment shared-a && echo present || echo gone)"
expect_eq "shared-a gone from member1 before shared" "$(on member1 deployment shared-a && echo present || echo gone)" "gone"
expect_eq "shared stays on member2" "$(mkubectl member2 get cm shared -n "$NS" -o jsonpath='{.data.color}')" "green"

# --- A custom resource pulls in its CRD: only the Gadget is selected; the CRD reaches exactly
# its clusters, established before the Gadget is sent, and is left there when the Gadget goes ---
CRD=gadgets.deps.flotilla.io
custom_kind deps.flotilla.io Gadget gadgets
kubectl apply -n "$NS" -f - >/dev/null <<'YAML'
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: gadgets}
spec:
  resourceSelectors:
  - {apiVersion: deps.flotilla.io/v1, kind: Gadget}
  placement:
    clusterAffinity: {clusterNames: [member1, member2]}
---
apiVersion: deps.flotilla.io/v1
kind: Gadget
metadata: {name: knob}
spec: {size: 3}
YAML
on_cluster() { mkubectl "$1" get "$2" "$3" -o name >/dev/null 2>&1; }
gadget_there() {
  exactly "$CRD" knob member1 member2 && on_cluster member1 crd "$CRD" && on_cluster member2 crd "$CRD" &&
    ! on_cluster member3 crd "$CRD" && ! on_cluster member4 crd "$CRD"
}
eventually 60 gadget_there || e2e_fail "the CRD and the Gadget should be on member1 and member2 only: $(kubectl get cfo,crb 2>&1; kubectl get fo,rb -n "$NS" 2>&1)"
expect_eq "member2: the Gadget's spec" "$(mkubectl member2 get "$CRD" knob -n "$NS" -o jsonpath='{.spec.size}')" "3"
expect_eq "the CRD's binding names the Gadget" \
  "$(kubectl get crb "$CRD-customresourcedefinition" -o jsonpath='{range .spec.requiredBy[*]}{.namespace}/{.name}:{.clusters}{end}')" \
  "$NS/knob-gadget-$(kubectl get fo -n "$NS" -o name | sed -n 's|.*/knob-gadget-||p'):[\"member1\",\"member2\"]"
# The Gadget waited for its CRD (the gate's wait is silent): no "does not serve" PendingCreate.
expect_eq "no Gadget was sent before its CRD was served" \
  "$(kubectl get events -n "$NS" --field-selector reason=PendingCreate -o jsonpath='{range .items[*]}{.message}{"\n"}{end}' | grep -c 'does not serve')" "0"
kubectl delete "$CRD" knob -n "$NS" >/dev/null
gadget_gone() { ! on member1 "$CRD" knob && ! on member2 "$CRD" knob; }
eventually 30 gadget_gone || e2e_fail "the Gadget should leave member1 and member2: $(kubectl get fo,rb -n "$NS" 2>&1)"
released() { [[ -z $(kubectl get crb "$CRD-customresourcedefinition" -o name 2>/dev/null) ]]; }
eventually 30 released || e2e_fail "the CRD's binding should go with its last Gadget: $(kubectl get crb -o yaml 2>&1)"
expect_eq "member1 keeps the CRD, no longer Flotilla's (deleting it would delete every Gadget there)" \
  "$(mkubectl member1 get crd "$CRD" -o jsonpath='{.metadata.name}|{.metadata.labels.flotilla\.io/managed-by}|{.metadata.annotations.flotilla\.io/released-by}')" \
  "$CRD||$CRD-customresourcedefinition"
kubectl delete pp gadgets -n "$NS" >/dev/null
for m in "${MEMBERS[@]}"; do mkubectl "$m" delete crd "$CRD" --ignore-not-found --wait=false >/dev/null 2>&1; done
kubectl delete crd "$CRD" --wait=false >/dev/null

# --- A move: web goes from member2 to member3; its followers reach member3 first ---
kubectl patch pp web -n "$NS" --type merge -p '{"spec":{"placement":{"clusterAffinity":{"clusterNames":["member1","member3"]}}}}' >/dev/null
moved() { exactly deployment web member1 member3 && exactly configmap shop-env member1 member3 && exactly persistentvolumeclaim shop-data member1 member3; }
eventually 60 moved || e2e_fail "web and its followers should move to member1 and member3: $(kubectl get rb -n "$NS" 2>&1)"
if [[ -n $PODS_RUN ]]; then
  ready3() { [[ $(kubectl get deploy web -n "$NS" -o jsonpath='{.status.readyReplicas}') == 4 ]]; }
  eventually 60 ready3 || e2e_fail "web should be READY 4/4 after the move: $(kubectl get deploy web -n "$NS" 2>&1)"
fi

# --- A follower deleted on the host while web still reads it: the members keep it, the binding
# says so; made again, it propagates again ---
kubectl delete configmap shop-env -n "$NS" >/dev/null
eventually 20 bash -c "[[ \$(kubectl get rb web -n $NS -o jsonpath='{.status.conditions[?(@.type==\"DependenciesReady\")].reason}') == Missing ]]" ||
  e2e_fail "web's DependenciesReady should say Missing once shop-env is deleted: $(kubectl get rb web -n "$NS" -o yaml)"
expect_contains "the message names the ConfigMap" "$(rb_condition web DependenciesReady message)" "ConfigMap $NS/shop-env"
expect_eq "member1 keeps shop-env while web reads it" "$(mkubectl member1 get cm shop-env -n "$NS" -o jsonpath='{.data.MODE}')" "fast"
kubectl create configmap shop-env -n "$NS" --from-literal=MODE=slow >/dev/null
renewed() {
  [[ $(mkubectl member1 get cm shop-env -n "$NS" -o jsonpath='{.data.MODE}') == slow &&
     $(mkubectl member3 get cm shop-env -n "$NS" -o jsonpath='{.data.MODE}') == slow ]]
}
eventually 30 renewed || e2e_fail "shop-env made again should reach member1 and member3: $(kubectl get fo,rb -n "$NS" 2>&1)"
eventually 20 bash -c "[[ \$(kubectl get rb web -n $NS -o jsonpath='{.status.conditions[?(@.type==\"DependenciesReady\")].status}') == True ]]" ||
  e2e_fail "DependenciesReady should be True again: $(kubectl get rb web -n "$NS" -o yaml)"

# --- Namespaces follow their contents: member2 loses its last object of shop, then shop itself ---
kubectl delete deployment shared-b -n "$NS" --wait=false >/dev/null
ns_gone() { ! mkubectl member2 get ns "$NS" -o name >/dev/null 2>&1 || [[ $(mkubectl member2 get ns "$NS" -o jsonpath='{.status.phase}') == Terminating ]]; }
eventually 30 ns_gone || e2e_fail "namespace shop should leave member2 with its last object: $(mkubectl member2 get all,cm -n "$NS" 2>&1)"
expect_eq "shop stays where web runs" "$(mkubectl member1 get ns "$NS" -o name 2>&1)" "namespace/$NS"
expect_eq "namespace shop never reached member4" "$(mkubectl member4 get ns "$NS" -o name 2>&1 | grep -c '^namespace/')" "0"

# --- A failover: member3 goes down; web's replicas there move to member4, its followers first
# (the sampler above watches member4 too) ---
kubectl patch pp web -n "$NS" --type merge -p '{"spec":{"placement":{"clusterAffinity":{"clusterNames":["member1","member3","member4"]},"maxClusters":2},"failover":{"clusterNotReadyFor":"5s","failback":"Never"}}}' >/dev/null
policy_observed() { [[ $(kubectl get rb web -n "$NS" -o jsonpath='{.status.schedulerObservedGeneration}') == $(kubectl get rb web -n "$NS" -o jsonpath='{.metadata.generation}') ]]; }
eventually 20 policy_observed || e2e_fail "the scheduler should observe the failover policy: $(kubectl get rb web -n "$NS" -o yaml)"
expect_eq "web stays on member1 and member3 (maxClusters 2: no move without a reason)" \
  "$(kubectl get rb web -n "$NS" -o jsonpath='{range .spec.clusters[*]}{.name} {end}')" "member1 member3 "
member_stop member3
failed_over() {
  [[ $(kubectl get rb web -n "$NS" -o jsonpath='{range .spec.clusters[*]}{.name} {end}') == "member1 member4 " ]] &&
    on member4 deployment web && on member4 configmap shop-env && on member4 secret shop-tls &&
    on member4 persistentvolumeclaim shop-data && on member4 service web
}
eventually 60 failed_over || e2e_fail "web and its followers should fail over from member3 to member4: $(kubectl get rb web -n "$NS" -o yaml 2>&1 | tail -30)"
if [[ -n $PODS_RUN ]]; then
  ready4() { [[ $(kubectl get deploy web -n "$NS" -o jsonpath='{.status.readyReplicas}') == 4 ]]; }
  eventually 60 ready4 || e2e_fail "web should be READY 4/4 after the failover: $(kubectl get deploy web -n "$NS" 2>&1)"
fi
member_start member3
eventually 60 fleet_ready || e2e_fail "member3 should come back: $(kubectl get fc 2>&1)"

touch "$WORK/sampler.stop"
wait "$SAMPLER"
samples=$(cat "$WORK/samples")
expect_eq "no pod ever in CreateContainerConfigError, no Deployment ever before its ConfigMap (200 ms samples)" "$samples" ""

echo "$E2E_CHECKS checks, $E2E_FAILURES failed"
((E2E_FAILURES == 0))
