#!/usr/bin/env bash
# `make run`: the demo scenario of config/samples/demo.
#
# Starts flotilla-sim (the embedded Kubernetes-compatible control plane) as the host cluster,
# installs the CRDs and applies the scenario with the real kubectl, then schedules it with the real
# scheduler. The operator's controllers (which would schedule and propagate the workload to
# member clusters by themselves) are not built yet: the scheduling step runs offline on the fleet's
# recorded state. The host keeps running until Ctrl-C.
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
echo "-- 5. The host control plane: flotilla-sim, driven by the real kubectl"
run_dir=.run
mkdir -p "$run_dir"
sim="$build_dir/sim/flotilla-sim"
"$sim" serve --dir "$run_dir" --name host >"$run_dir/host.log" 2>&1 &
sim_pid=$!
trap 'kill $sim_pid 2>/dev/null; wait $sim_pid 2>/dev/null' EXIT
export KUBECONFIG=$PWD/$run_dir/host.kubeconfig
for _ in $(seq 1 200); do
  kubectl get --raw /readyz >/dev/null 2>&1 && break
  sleep 0.05
done
echo "   kubectl apply -f crds/"
kubectl apply -f crds/ | sed 's/^/   /'
kubectl wait --for=condition=Established crd --all --timeout=30s >/dev/null
echo "   kubectl apply -f config/samples/demo/"
kubectl apply -f config/samples/demo/ | sed 's/^/   /'
echo "   kubectl get fc -o wide"
kubectl get fc -o wide | sed 's/^/   /'
echo "   kubectl get pp,deploy -n demo"
kubectl get pp,deploy -n demo 2>&1 | sed 's/^/   /'
cat <<MSG

The host API server keeps running (data in $run_dir/). In another terminal:
   export KUBECONFIG=$PWD/$run_dir/host.kubeconfig
   kubectl get fc; kubectl get pp,deploy -n demo
Not built yet: member clusters (flotilla-sim up) and the operator that would schedule and propagate
the workload (issues #5 and later). Press Ctrl-C to stop.
MSG
wait $sim_pid
