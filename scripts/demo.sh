#!/usr/bin/env bash
# `make run`: the demo scenario of config/samples/demo on flotilla-sim.
#
# Brings up a fleet (a host and three member clusters, each its own API server process), starts
# flotilla-operator against the host as its ServiceAccount with exactly config/rbac's permissions,
# registers its admission webhooks (and shows one rejecting a bad policy), applies the policy and
# the Deployment with the real kubectl
# and shows what the operator made of them: the members' readiness and resources, the
# FederatedDeployment and the ResourceBinding with its placement, the Deployment running on the
# members member by member, and the host's Deployment telling the truth (6/6). Everything keeps
# running until Ctrl-C (or until the host or the operator stops by itself, which it then names).
#
# Each run starts a fresh fleet in FLOTILLA_DEMO_DIR (default .run/): a previous demo's fleet
# there is stopped and its data removed first, so a second `make run` behaves like the first.
set -euo pipefail
build_dir=${1:-build}
run_dir=${FLOTILLA_DEMO_DIR:-}
[[ -z $run_dir || $run_dir == /* ]] || run_dir=$PWD/$run_dir  # relative to where it was typed
cd "$(dirname "$0")/.."
root=$PWD
[[ $build_dir == /* ]] || build_dir=$root/$build_dir
run_dir=${run_dir:-$root/.run}
shown_dir=${run_dir#"$root"/}
sim="$build_dir/sim/flotilla-sim"
operator="$build_dir/operator/flotilla-operator"
ctl="$build_dir/cli/flotillactl"
scripts/check-tools.sh >/dev/null || exit 1

# One demo per directory at a time: a second one would stop the first one's fleet.
mkdir -p "$(dirname "$run_dir")"
exec 8>"$run_dir.lock"
flock -n 8 || { echo "demo: another demo is running in $shown_dir (stop it with Ctrl-C first)" >&2; exit 1; }

# alive_in_dir PIDFILE: the process the pid file names still runs and is this directory's
# (a pid file left by a reboot may name some unrelated process by now).
alive_in_dir() {
  local pid
  pid=$(cat "$1" 2>/dev/null) || return 1
  [[ $pid =~ ^[0-9]+$ ]] && kill -0 "$pid" 2>/dev/null &&
    tr '\0' ' ' <"/proc/$pid/cmdline" 2>/dev/null | grep -qF -- "$run_dir"
}

echo "== Flotilla demo: 6 replicas of web over 3 member clusters (2 regions, 3 zones) =="
echo
# A demo's directory carries .flotilla-demo (or, made before that mark, the demo's
# operator.kubeconfig next to the host's): nothing else is ever removed.
made_by_demo() {
  [[ -e $run_dir/.flotilla-demo || (-e $run_dir/host.kubeconfig && -e $run_dir/operator.kubeconfig) ]]
}
if [[ -e $run_dir ]] && ! made_by_demo && [[ -n $(ls -A "$run_dir" 2>/dev/null) ]]; then
  echo "demo: $run_dir exists and was not made by the demo; choose another FLOTILLA_DEMO_DIR" >&2
  exit 1
fi
if made_by_demo; then
  # The last demo's admission webhooks (failurePolicy Fail) point at its operator's port, which
  # is gone: its host would refuse every write. A demo starts from nothing instead.
  alive_in_dir "$run_dir/operator.pid" && kill "$(cat "$run_dir/operator.pid")"
  "$sim" down --dir "$run_dir" >/dev/null 2>&1 || true
  for f in "$run_dir"/*.pid; do
    if alive_in_dir "$f"; then
      echo "demo: $f still runs after flotilla-sim down; not removing $shown_dir" >&2
      exit 1
    fi
  done
  rm -rf "$run_dir"
  echo "(a previous demo's fleet in $shown_dir was stopped and removed)"
fi
mkdir -p "$run_dir"
touch "$run_dir/.flotilla-demo"
echo $$ >"$run_dir/demo.pid"
export KUBECONFIG=$run_dir/host.kubeconfig
operator_pid=
cleaned=
cleanup() {
  [[ -n $cleaned ]] && return
  cleaned=1
  trap '' INT TERM HUP  # a second Ctrl-C must not cut the cleanup short
  # The webhook configurations first, while the host still answers: they name this operator's
  # port, and a host restarted from this data must not refuse writes to a dead webhook.
  if [[ -e $run_dir/host.kubeconfig ]]; then
    kubectl --kubeconfig "$run_dir/host.kubeconfig" delete \
      mutatingwebhookconfiguration/flotilla-mutating-webhook-configuration \
      validatingwebhookconfiguration/flotilla-validating-webhook-configuration \
      --ignore-not-found --request-timeout 5s >/dev/null 2>&1 || true
  fi
  if [[ -n $operator_pid ]] && kill "$operator_pid" 2>/dev/null; then
    for _ in $(seq 1 100); do kill -0 "$operator_pid" 2>/dev/null || break; sleep 0.1; done
    kill -KILL "$operator_pid" 2>/dev/null || true  # still shutting down after 10 s
    wait "$operator_pid" 2>/dev/null || true
  fi
  "$sim" down --dir "$run_dir" | sed 's/^/   /' || true
  rm -f "$run_dir/operator.pid" "$run_dir/demo.pid"
  echo "demo: stopped the operator and the fleet"
}
trap cleanup EXIT
# Ctrl-C (SIGINT to the whole foreground group) and SIGTERM end the demo through cleanup.
trap 'exit 130' INT
trap 'exit 143' TERM
trap 'exit 129' HUP
echo "-- 1. The fleet on flotilla-sim (config/samples/sim/topology.yaml)"
"$sim" up -f config/samples/sim/topology.yaml --dir "$run_dir" | sed 's/^/   /'

echo
echo "-- 2. flotilla-operator against the host, as its ServiceAccount (log: $shown_dir/operator.log)"
# Exactly config/rbac's permissions: the ServiceAccount, its ClusterRole and its Role, and a
# token for it (kubectl create token), as the in-cluster Deployment would run.
kubectl apply -k config/rbac | sed 's/^/   /'
token=$(kubectl create token flotilla-operator -n flotilla-system --duration 24h)
kubectl config view --raw --minify >"$run_dir/operator.kubeconfig"
kubectl --kubeconfig "$run_dir/operator.kubeconfig" config set-credentials flotilla-operator \
  --token="$token" >/dev/null
kubectl --kubeconfig "$run_dir/operator.kubeconfig" config set-context --current \
  --user=flotilla-operator >/dev/null
chmod 600 "$run_dir/operator.kubeconfig"
"$ctl" webhooks --url https://127.0.0.1:1 --cert-dir "$run_dir/webhook-certs" >/dev/null
"$operator" --kubeconfig "$run_dir/operator.kubeconfig" --cluster-probe-period 2s \
  --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0 \
  --webhook-host 127.0.0.1 --webhook-port 0 --cert-dir "$run_dir/webhook-certs" \
  >"$run_dir/operator.log" 2>&1 &
operator_pid=$!
echo "$operator_pid" >"$run_dir/operator.pid"
for _ in $(seq 1 200); do
  grep -q "serving /healthz" "$run_dir/operator.log" && break
  kill -0 "$operator_pid" 2>/dev/null || { cat "$run_dir/operator.log"; exit 1; }
  sleep 0.1
done
port=$(grep -o 'metrics on https://127.0.0.1:[0-9]*' "$run_dir/operator.log" | grep -o '[0-9]*$')
webhook_port=$(grep -o 'serving admission on https://127.0.0.1:[0-9]*' "$run_dir/operator.log" | grep -o '[0-9]*$')
echo "   admission webhooks at https://127.0.0.1:$webhook_port, registered with the host:"
"$ctl" webhooks --url "https://127.0.0.1:$webhook_port" --cert-dir "$run_dir/webhook-certs" |
  kubectl apply -f - | sed 's/^/   /'
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
fully_applied() {
  [[ $(kubectl get rb web -n demo -o jsonpath='{.status.conditions[?(@.type=="FullyApplied")].status}' 2>/dev/null) == True ]]
}
host_ready() { [[ $(kubectl get deploy web -n demo -o jsonpath='{.status.readyReplicas}' 2>/dev/null) == 6 ]]; }
for _ in $(seq 1 600); do fully_applied && break; sleep 0.05; done
applied_ms=$(( ($(date +%s%N) - start) / 1000000 ))
for _ in $(seq 1 600); do host_ready && break; sleep 0.05; done
echo "   (FullyApplied ${applied_ms} ms and 6/6 Ready $(( ($(date +%s%N) - start) / 1000000 )) ms after the apply)"
echo "   kubectl get deploy,fdeploy,rb -n demo"
kubectl get deploy,fdeploy,rb -n demo | sed 's/^/   /'
echo "   kubectl get events -n demo"
kubectl get events -n demo --sort-by=.lastTimestamp \
  -o custom-columns=TYPE:.type,REASON:.reason,OBJECT:.involvedObject.kind,MESSAGE:.message | sed 's/^/   /'

echo
echo "-- 4. A bad policy is stopped at the door by the admission webhook"
echo "   kubectl apply -f - (spreadConstraints: region minGroups 2, maxGroups 1)"
kubectl apply -f - 2>&1 <<'YAML' | fold -s -w 100 | sed 's/^/   /' || true
apiVersion: flotilla.io/v1alpha1
kind: PropagationPolicy
metadata: {name: bad-spread, namespace: demo}
spec:
  resourceSelectors: [{apiVersion: apps/v1, kind: Deployment, name: web}]
  placement:
    spreadConstraints:
      - {spreadByField: region, minGroups: 2, maxGroups: 1}
      - {spreadByField: cluster, minGroups: 2}
YAML

echo
echo "-- 5. On the members, member by member"
for m in member1 member2 member3; do
  echo "   kubectl --kubeconfig $shown_dir/$m.kubeconfig get deploy,pods -n demo"
  kubectl --kubeconfig "$run_dir/$m.kubeconfig" get deploy,pods -n demo 2>&1 | sed 's/^/     /'
done
echo "   kubectl get fdeploy web -n demo -o jsonpath='{range .status.clusters[*]}...'"
kubectl get fdeploy web -n demo -o jsonpath='{range .status.clusters[*]}{.name}: {.readyReplicas}/{.replicas} ready, propagation {.propagation}{"\n"}{end}' | sed 's/^/   /'

cat <<MSG

The fleet and the operator keep running (data in $shown_dir/). In another terminal:
   export KUBECONFIG=$run_dir/host.kubeconfig
   kubectl scale deployment web -n demo --replicas 9      # ScaleSchedule, running replicas stay
   kubectl get rb -n demo -w
   kubectl set image deployment/web -n demo web=nginx:1.28 && kubectl rollout status deployment/web -n demo
   kubectl edit pp demo-spread -n demo                    # change a weight: ReconcileSchedule
   kubectl patch fdeploy web -n demo --type merge -p '{"spec":{"overrides":[{"clusterName":"member1",
     "patches":[{"op":"replace","path":"/spec/template/spec/containers/0/image","value":"nginx:canary"}]}]}}'
   kubectl describe rb web -n demo                        # conditions, placement, events
   kubectl --kubeconfig $run_dir/member2.kubeconfig get deploy,pods -n demo
   kubectl delete deployment web -n demo                  # members first, then the rest
   kill \$(cat $run_dir/member3.pid)                       # member3 turns Unknown, tainted
   curl -sk https://127.0.0.1:$port/metrics | grep flotilla_
Press Ctrl-C to stop the operator and the fleet.
MSG
# Stays up until Ctrl-C, or until the host or the operator really stops (a member may be stopped
# on purpose, as suggested above: the operator then shows what a member outage does).
host_pid=$(cat "$run_dir/host.pid")
while :; do
  if ! kill -0 "$operator_pid" 2>/dev/null; then
    echo "demo: the operator exited; the last lines of $run_dir/operator.log:" >&2
    tail -n 5 "$run_dir/operator.log" | sed 's/^/   /' >&2
    exit 1
  fi
  # The host is not the demo's child (flotilla-sim up detaches it): a zombie counts as gone.
  if ! kill -0 "$host_pid" 2>/dev/null || [[ $(awk '{print $3}' "/proc/$host_pid/stat" 2>/dev/null) == Z ]]; then
    echo "demo: the host API server (pid $host_pid) stopped; see $run_dir/host.log" >&2
    exit 1
  fi
  sleep 1 &
  wait $! || true  # a wait that a signal interrupts at once, where a foreground sleep would not
done
