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
