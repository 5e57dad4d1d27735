#!/usr/bin/env bash
# `make run`: the demo scenario of config/samples/demo on flotilla-sim.
#
# Brings up a fleet (a host and three member clusters, each its own API server process), starts
# flotilla-operator against the host, applies the policy and the Deployment with the real kubectl
# and shows what the operator made of them: the members' readiness and resources, the
# FederatedDeployment and the ResourceBinding with its placement. Everything keeps running until
# Ctrl-C. (Propagation to the members and status collection come with the sync and status
# controllers, issue #11.)
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
root=$PWD
sim="$build_dir/sim/flotilla-sim"
operator="$build_dir/operator/flotilla-operator"
run_dir=$root/.run
mkdir -p "$run_dir"

echo "== Flotilla demo: 6 replicas of web over 3 member clusters (2 regions, 3 zones) =="
echo
echo "-- 1. The fleet on flotilla-sim (config/samples/sim/topology.yaml)"
"$sim" up -f config/samples/sim/topology.yaml --dir "$run_dir" | sed 's/^/   /'
export KUBECONFIG=$run_dir/host.kubeconfig
operator_pid=
cleanup() {
  [[ -n $operator_pid ]] && kill "$operator_pid" 2>/dev/null && wait "$operator_pid" 2>/dev/null
  "$sim" down --dir "$run_dir" >/dev/null
}
trap cleanup EXIT

echo
echo "-- 2. flotilla-operator against the host (log: .run/operator.log)"
"$operator" --cluster-probe-period 2s --health-probe-bind-address 127.0.0.1:0 \
  --metrics-bind-address 0 >"$run_dir/operator.log" 2>&1 &
operator_pid=$!
for _ in $(seq 1 200); do
  grep -q "serving /healthz" "$run_dir/operator.log" && break
  kill -0 "$operator_pid" 2>/dev/null || { cat "$run_dir/operator.log"; exit 1; }
  sleep 0.1
done
port=$(grep -o 'metrics on https://127.0.0.1:[0-9]*' "$run_dir/operator.log" | grep -o '[0-9]*$')
ready() {
  [[ $(kubectl get fc -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}{"\n"}{end}' | grep -c True) == 3 ]]
}
for _ in $(seq 1 200); do ready && break; sleep 0.1; done
echo "   kubectl get fc"
kubectl get fc | sed 's/^/   /'

echo
echo "-- 3. kubectl apply -f demo/00-namespace.yaml -f demo/02-policy.yaml -f demo/03-deployment.yaml"
start=$(date +%s%N)
kubectl apply -f config/samples/demo/00-namespace.yaml -f config/samples/demo/02-policy.yaml \
  -f config/samples/demo/03-deployment.yaml | sed 's/^/   /'
scheduled() {
  [[ $(kubectl get rb web -n demo -o jsonpath='{.status.conditions[?(@.type=="Scheduled")].status}' 2>/dev/null) == True ]]
}
for _ in $(seq 1 300); do scheduled && break; sleep 0.05; done
echo "   (scheduled $(( ($(date +%s%N) - start) / 1000000 )) ms after the apply)"
echo "   kubectl get fdeploy,rb -n demo"
kubectl get fdeploy,rb -n demo | sed 's/^/   /'
echo "   kubectl get events -n demo"
kubectl get events -n demo --sort-by=.lastTimestamp \
  -o custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.kind,MESSAGE:.message | sed 's/^/   /'

cat <<MSG

The fleet and the operator keep running (data in .run/). In another terminal:
   export KUBECONFIG=$run_dir/host.kubeconfig
   kubectl scale deployment web -n demo --replicas 9        # ScaleSchedule, nothing moves
   kubectl get rb -n demo -w
   kubectl edit pp demo-spread -n demo                      # change a weight: ReconcileSchedule
   kubectl describe rb web -n demo                          # conditions, diagnosis, events
   kill \$(cat $run_dir/member3.pid)   # member3 turns Unknown, tainted
   curl -sk https://127.0.0.1:$port/metrics | grep flotilla_scheduler
Not built yet: the sync and status controllers (issue #11) that run the workload on the members.
Press Ctrl-C to stop the operator and the fleet.
MSG
while "$sim" status --dir "$run_dir" >/dev/null && kill -0 "$operator_pid" 2>/dev/null; do sleep 2; done
