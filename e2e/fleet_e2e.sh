#!/usr/bin/env bash
# `flotilla-sim up/status/down` with the default topology: every cluster its own process, the host
# knows every member (FederatedCluster + credentials that work), members have their nodes.
# Usage: fleet_e2e.sh PATH/TO/flotilla-sim
SIM=${1:?usage: fleet_e2e.sh PATH/TO/flotilla-sim}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"

WORK=$(mktemp -d)
export HOME=$WORK KUBECACHEDIR=$WORK/kube-cache
trap '"$SIM" down --dir "$WORK/fleet" >/dev/null 2>&1; rm -rf "$WORK"' EXIT

out=$("$SIM" up -f "$ROOT/config/samples/sim/topology.yaml" --dir "$WORK/fleet" 2>&1)
expect_contains "up" "$out" "4 clusters up"
out=$("$SIM" status --dir "$WORK/fleet")
expect_eq "status: all ready" "$(grep -c $'\tready\t' <<<"$out")" "4"

export KUBECONFIG=$WORK/fleet/host.kubeconfig
out=$(kubectl get fc -o wide 2>&1)
for m in member1 member2 member3; do expect_contains "host knows $m" "$out" "$m"; done
expect_contains "member3 placement labels" "$out" "us-east-1a"

# The credentials the host holds reach the member (as the operator will use them).
token=$(kubectl get secret member2-credentials -n flotilla-system -o jsonpath='{.data.token}' | base64 -d)
kubectl get secret member2-credentials -n flotilla-system -o jsonpath='{.data.caBundle}' | base64 -d >"$WORK/member2-ca.crt"
endpoint=$(kubectl get fc member2 -o jsonpath='{.spec.apiEndpoint}')
expect_eq "member reachable with the registered credentials" \
  "$(curl -s -o /dev/null -w '%{http_code}' --cacert "$WORK/member2-ca.crt" -H "Authorization: Bearer $token" "$endpoint/api/v1/nodes")" "200"
out=$(kubectl --kubeconfig "$WORK/fleet/member2.kubeconfig" get nodes 2>&1)
expect_eq "member2 has 3 nodes" "$(grep -c '^member2-node-' <<<"$out")" "3"

# A member behaves like a cluster: member3 has one node with 2 CPUs, so 3 pods of 800m leave one
# Pending as Unschedulable; a bigger node lets it in.
M3=(kubectl --kubeconfig "$WORK/fleet/member3.kubeconfig")
cat >"$WORK/squeeze.yaml" <<'YAML'
apiVersion: apps/v1
kind: Deployment
metadata: {name: squeeze, namespace: default}
spec:
  replicas: 3
  selector: {matchLabels: {app: squeeze}}
  template:
    metadata: {labels: {app: squeeze}}
    spec:
      containers:
      - {name: app, image: "nginx:1.25", resources: {requests: {cpu: 800m}}}
YAML
"${M3[@]}" apply -f "$WORK/squeeze.yaml" >/dev/null
running() { [[ $("${M3[@]}" get pods -l app=squeeze --field-selector status.phase=Running -o name | wc -l) == "$1" ]]; }
eventually 20 running 2 || e2e_fail "two pods should run: $("${M3[@]}" get pods -o wide 2>&1)"
out=$("${M3[@]}" get pods -l app=squeeze --field-selector status.phase=Pending -o jsonpath='{.items[*].status.conditions[0].reason} {.items[*].status.conditions[0].message}')
expect_contains "pending pod is Unschedulable" "$out" "Unschedulable 0/1 nodes are available: 1 Insufficient cpu."
ready() { [[ $("${M3[@]}" get deployment squeeze -o jsonpath='{.status.readyReplicas}/{.status.replicas}') == "$1" ]]; }
eventually 20 ready 2/3 || e2e_fail "deployment status should say 2/3: $("${M3[@]}" get deployment squeeze -o yaml)"
"${M3[@]}" patch node member3-node-1 --subresource=status --type merge -p '{"status":{"allocatable":{"cpu":"4"}}}' >/dev/null
eventually 20 running 3 || e2e_fail "the pending pod should run on the bigger node: $("${M3[@]}" get pods -o wide 2>&1)"
eventually 20 ready 3/3 || e2e_fail "deployment should be 3/3"
expect_contains "deployment Available" "$("${M3[@]}" get deployment squeeze -o jsonpath='{.status.conditions[?(@.type=="Available")].status}')" "True"

# up again: idempotent, nothing restarted.
pids_before=$(cat "$WORK"/fleet/*.pid | sort)
out=$("$SIM" up -f "$ROOT/config/samples/sim/topology.yaml" --dir "$WORK/fleet" 2>&1)
expect_contains "up twice" "$out" "4 clusters up"
expect_eq "same processes" "$(cat "$WORK"/fleet/*.pid | sort)" "$pids_before"

out=$("$SIM" down --dir "$WORK/fleet")
expect_eq "down stops all" "$(grep -c '^stopped' <<<"$out")" "4"
"$SIM" status --dir "$WORK/fleet" >/dev/null
expect_eq "status after down exits 3" "$?" "3"

e2e_summary
