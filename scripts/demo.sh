#!/usr/bin/env bash
# `make run`: the demo scenario of config/samples/demo.
#
# Validates and schedules the scenario offline with the real scheduler, then brings up a fleet on
# flotilla-sim (a host and three member clusters, each its own API server process), applies the
# policy and workload with the real kubectl and shows what the host and members hold. The operator
# (which would schedule and propagate the workload by itself) is not built yet. The fleet keeps
# running until Ctrl-C.
set -euo pipefail
build_dir=${1:-build}
cd "$(dirname "$0")/.."
ctl="$build_dir/cli/flotillactl"

echo "== Flotilla demo: 6 replicas of web over 3 member clusters (2 regions, 3 zones) =="
echo
echo "-- 1. Validate the scenario offline (the webhook's rules): flotillactl validate"
args=()
for f in config/samples/demo/*.yaml; do args+=(-f "$f"); done
"$ctl" validate "${args[@]}"
echo
echo "-- 2. Schedule the workload offline on the fleet's current state (config/samples/offline/):"
echo "   flotillactl schedule -f demo/02-policy.yaml -f demo/03-deployment.yaml -f offline/fleet-status.yaml"
"$ctl" schedule -f config/samples/demo/02-policy.yaml -f config/samples/demo/03-deployment.yaml \
  -f config/samples/offline/fleet-status.yaml | sed 's/^/   /'
echo
echo "-- 3. The replica planner alone: seed 003's table (member1 can run only 1 of its 2 replicas):"
plan='{"totalReplicas": 6, "clusters": ["member1", "member2", "member3"],
       "currentReplicas": {"member1": 2, "member2": 2, "member3": 2},
       "estimatedCapacity": {"member1": 1}, "key": "default/web"}'
echo "   $plan" | tr -s ' \n' ' '
echo
echo "$plan" | "$ctl" plan -f - | sed 's/^/   -> /'
echo
echo "-- 4. The CustomResourceDefinitions the host cluster gets (crds/):"
for f in crds/*.yaml; do
  kind=$(grep -m1 '^    kind:' "$f" | awk '{print $2}')
  short=$(awk '/shortNames:/{getline; print $2; exit}' "$f")
  scope=$(grep -m1 '^  scope:' "$f" | awk '{print $2}')
  printf '   %-26s %-11s short name: %s\n' "$kind" "$scope" "${short:--}"
done
echo
echo "-- 5. The fleet on flotilla-sim: a host and three members (config/samples/sim/topology.yaml)"
run_dir=$PWD/.run
sim="$build_dir/sim/flotilla-sim"
"$sim" up -f config/samples/sim/topology.yaml --dir "$run_dir" | sed 's/^/   /'
trap '"$sim" down --dir "$run_dir" >/dev/null' EXIT
export KUBECONFIG=$run_dir/host.kubeconfig
echo "   kubectl apply -f demo/00-namespace.yaml -f demo/02-policy.yaml -f demo/03-deployment.yaml"
kubectl apply -f config/samples/demo/00-namespace.yaml -f config/samples/demo/02-policy.yaml \
  -f config/samples/demo/03-deployment.yaml | sed 's/^/   /'
echo "   kubectl get fc -o wide"
kubectl get fc -o wide | sed 's/^/   /'
echo "   kubectl get pp,deploy -n demo"
kubectl get pp,deploy -n demo 2>&1 | sed 's/^/   /'
echo "   kubectl --kubeconfig $run_dir/member2.kubeconfig get nodes"
kubectl --kubeconfig "$run_dir/member2.kubeconfig" get nodes | sed 's/^/   /'
cat <<MSG

The fleet keeps running (data in $run_dir/). In another terminal:
   export KUBECONFIG=$run_dir/host.kubeconfig
   kubectl get fc; kubectl get pp,deploy -n demo
Not built yet: the operator that would schedule the Deployment and propagate it to the members,
and the members' workload behaviour (pods on nodes). Press Ctrl-C to stop the fleet.
MSG
while "$sim" status --dir "$run_dir" >/dev/null; do sleep 2; done
