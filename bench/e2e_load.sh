#!/usr/bin/env bash
# Flotilla end to end under load (issue #15; `make bench-e2e`, docs/performance.md): a fleet (a
# flotilla-sim host and M members, or existing clusters), the operator, and N Deployments created
# by C concurrent clients. Prints numbers, not pass/fail (except --verify, which checks that every
# binding ended FullyApplied with the right member Deployments; the `make test` smoke uses it):
#   time to all Scheduled / FullyApplied / Ready and bindings/s for each; scheduling latency
#   p50/p99 (the operator's histogram); host and member writes per binding (the API servers'
#   apiserver_request_total); the host's raw write ceiling and Flotilla's share of it; operator
#   memory per 1,000 bindings; a restart over the N converged bindings: seconds to ready and to
#   quiet, and the writes it made; the host writes of the settled fleet over 20 s (none expected).
# Usage: bench/e2e_load.sh [--members M] [--workloads N] [--clients C] [--nodes NODES_PER_MEMBER]
#          [--ceiling-seconds S] [--timeout S] [--verify] [--no-ready] [--app] [--keep] [--host-kubeconfig F --member-kubeconfigs name=F,...]
#          [--build DIR] [-- OPERATOR_FLAGS...]
#   --app: each workload is an application (its Deployment reads 2 ConfigMaps and a Secret, a
#   Service selects its pods; the policies select only the Deployments): writes per application.
#   The last line, `bench_result: {...}`, holds the per-binding figures as one JSON object
#   (stable keys, for scripts and for comparing runs).
#   --guard FILE: fails (exit 3) when a figure exceeds its limit in FILE (bench/guard.json: gross
#   regressions only, never timing: writes per binding, restart and steady-state writes).
set -uo pipefail
ROOT=$(cd "$(dirname "$0")/.." && pwd)
BUILD=$ROOT/build
MEMBERS=10 WORKLOADS=1000 CLIENTS=8 NODES=20 VERIFY="" KEEP="" HOST_KC="" MEMBER_KCS="" CEILING=5
NO_READY="" APP="" GUARD=""
TIMEOUT=""  # seconds for the load to converge; default 600, or 0.2 s per workload when more
OPERATOR_FLAGS=()
while (($#)); do
  case $1 in
    --members) MEMBERS=$2; shift 2 ;;
    --workloads) WORKLOADS=$2; shift 2 ;;
    --clients) CLIENTS=$2; shift 2 ;;
    --nodes) NODES=$2; shift 2 ;;
    --ceiling-seconds) CEILING=$2; shift 2 ;;
    --timeout) TIMEOUT=$2; shift 2 ;;
    --verify) VERIFY=1; shift ;;
    --app) APP=1; shift ;;  # each workload an application: a Deployment, 2 ConfigMaps, a Secret, a Service
    --no-ready) NO_READY=1; shift ;;  # members without kubelets (control planes only) run no pods
    --keep) KEEP=1; shift ;;
    --guard) GUARD=$(realpath "$2"); shift 2 ;;
    --host-kubeconfig) HOST_KC=$2; shift 2 ;;
    --member-kubeconfigs) MEMBER_KCS=$2; shift 2 ;;
    --build) BUILD=$(realpath "$2"); shift 2 ;;
    --) shift; OPERATOR_FLAGS=("$@"); break ;;
    -h|--help) sed -n '2,20p' "$0" | sed 's/^# \{0,1\}//'; exit 0 ;;
    *) echo "e2e_load.sh: unknown argument $1 (--help)" >&2; exit 2 ;;
  esac
done
SIM=$BUILD/sim/flotilla-sim
OPERATOR=$BUILD/operator/flotilla-operator
CLIENT=$BUILD/bench/e2e_load
for b in "$SIM" "$OPERATOR" "$CLIENT"; do
  [[ -x $b ]] || { echo "e2e_load.sh: $b is not built (make build)" >&2; exit 2; }
done

WORK=$(mktemp -d)
export KUBECACHEDIR=$WORK/kube-cache
OP_PID=""
finish() {
  # An existing host keeps nothing of the run (a second run would reconcile it too): the load's
  # namespace is deleted while the operator still runs to clean its members up.
  if [[ -n $HOST_KC && -z $KEEP && -n ${NS:-} && $NS == load-* ]]; then
    kubectl delete namespace "$NS" --timeout=120s >/dev/null 2>&1 ||
      echo "note: namespace $NS is not gone yet (kubectl get ns $NS)" >&2
  fi
  # A clean stop releases the leader Lease: the next run on an existing host does not wait the
  # lease duration (15 s) before its operator leads.
  if [[ -n $OP_PID ]] && kill -TERM "$OP_PID" 2>/dev/null; then
    for _ in $(seq 100); do kill -0 "$OP_PID" 2>/dev/null || break; sleep 0.1; done
    kill -9 "$OP_PID" 2>/dev/null
  fi
  [[ -z $HOST_KC ]] && "$SIM" down --dir "$WORK/fleet" >/dev/null 2>&1
  if [[ -n $KEEP ]]; then echo "work dir: $WORK"; else rm -rf "$WORK"; fi
}
trap finish EXIT
now() { date +%s.%N; }
since() { echo "$(now) - $1" | bc; }
# eventually SECONDS command...: polls every 100 ms until the command succeeds.
eventually() {
  local deadline=$((SECONDS + $1))
  shift
  while ((SECONDS < deadline)); do "$@" && return 0; sleep 0.1; done
  return 1
}

# --- The fleet ---
NS=load
# Shards of about 5 members, each with its own policies (bench/e2e_load.cc): the workloads spread
# over the whole fleet. Existing clusters are one shard (they carry no bench-shard label).
SHARDS=1
if [[ -z $HOST_KC ]]; then
  SHARDS=$((MEMBERS / 5 > 1 ? MEMBERS / 5 : 1))
  export HOME=$WORK
  {
    echo "host: host"
    echo "members:"
    for i in $(seq 1 "$MEMBERS"); do
      printf -- '- name: m%03d\n  provider: sim\n  region: r%d\n  zone: z%d\n' "$i" $((i % 3)) $((i % 7))
      printf '  labels: {env: load, bench-region: r%d, bench-shard: s%d}\n' $((i % 3)) $(((i - 1) % SHARDS))
      printf '  nodes: {count: %d, cpu: "64", memory: 256Gi, pods: 500}\n' "$NODES"
    done
  } >"$WORK/topology.yaml"
  t0=$(now)
  "$SIM" up -f "$WORK/topology.yaml" --dir "$WORK/fleet" >"$WORK/up.log" 2>&1 ||
    { cat "$WORK/up.log"; exit 1; }
  echo "fleet: flotilla-sim host + $MEMBERS members ($NODES nodes each) up in $(since "$t0") s"
  export KUBECONFIG=$WORK/fleet/host.kubeconfig
  MEMBER_KCS=$(for i in $(seq 1 "$MEMBERS"); do printf 'm%03d=%s,' "$i" "$WORK/fleet/$(printf m%03d "$i").kubeconfig"; done)
  MEMBER_KCS=${MEMBER_KCS%,}
else
  export KUBECONFIG=$HOST_KC
  NS=load-$(date +%s)
  kubectl apply -f "$ROOT/crds/" >/dev/null
  MEMBERS=$(tr ',' '\n' <<<"$MEMBER_KCS" | grep -c .)
  echo "fleet: existing host $(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}') with $MEMBERS registered members"
fi

# The operator runs as its ServiceAccount with config/rbac's permissions, as installed.
kubectl apply -k "$ROOT/config/rbac" >/dev/null || { echo "cannot apply config/rbac" >&2; exit 1; }
server=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
ca=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
token=$(kubectl create token flotilla-operator -n flotilla-system --duration 24h) || exit 1
(umask 077 && cat >"$WORK/operator.kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: host, cluster: {server: "$server", certificate-authority-data: "$ca"}}]
users: [{name: flotilla-operator, user: {token: "$token"}}]
contexts: [{name: flotilla-operator, context: {cluster: host, user: flotilla-operator}}]
current-context: flotilla-operator
KUBECONFIG
)
unset token
start_operator() {
  : >"$WORK/operator.log"
  "$OPERATOR" --kubeconfig "$WORK/operator.kubeconfig" --health-probe-bind-address 127.0.0.1:0 \
    --metrics-bind-address 127.0.0.1:0 --enable-webhooks=false "${OPERATOR_FLAGS[@]}" >>"$WORK/operator.log" 2>&1 &
  OP_PID=$!
  eventually 30 grep -q "serving /healthz" "$WORK/operator.log" ||
    { echo "the operator did not start:"; cat "$WORK/operator.log"; exit 1; }
  PORT=$(grep -o 'serving /healthz, /readyz and /metrics on https://127.0.0.1:[0-9]*' "$WORK/operator.log" | grep -o '[0-9]*$')
}
metrics() { curl -sk "https://127.0.0.1:$PORT/metrics"; }
op_ready() { curl -skf "https://127.0.0.1:$PORT/readyz" >/dev/null; }
# quiet: every work queue empty and no reconcile (the cluster prober aside) for 3 s.
quiet() {
  local deadline=$((SECONDS + ${1:-120})) last="" since=$SECONDS m activity
  while ((SECONDS < deadline)); do
    m=$(metrics)
    activity=$(awk '(/^flotilla_controller_reconcile_total/ && !/controller="cluster"/) || /^flotilla_scheduler_schedule_attempts_total/ {s += $NF} END {print s + 0}' <<<"$m")
    if grep -E '^flotilla_workqueue_depth\{.*\} [1-9]|^flotilla_scheduler_queue_depth\{queue="(active|inflight)"\} [1-9]' <<<"$m" | grep -qv 'queue="cluster"' ||
      [[ $activity != "$last" ]]; then
      last=$activity
      since=$SECONDS
    elif ((SECONDS - since >= 3)); then
      return 0
    fi
    sleep 0.2
  done
  return 1
}
host_write_lines() {  # the host's write counters, one line per label set, Leases aside
  kubectl get --raw /metrics | awk '/^apiserver_request_total\{/ && /verb="(POST|PUT|PATCH|DELETE|CREATE|UPDATE|APPLY|DELETECOLLECTION)"/ && !/resource="leases"/'
}
rss_kb() { awk "/^$1/ {print \$2}" "/proc/$OP_PID/status"; }
# CPU seconds (user + system) the given processes have used so far.
cpu_seconds() {
  local pid ticks=0 t
  for pid in "$@"; do
    t=$(awk '{print $14 + $15}' "/proc/$pid/stat" 2>/dev/null) && ticks=$((ticks + t))
  done
  echo "scale=2; $ticks / $(getconf CLK_TCK)" | bc
}
sim_pids() {  # the fleet's processes: `host` or `members`
  [[ -z $HOST_KC ]] || return 0
  if [[ $1 == host ]]; then pgrep -f -- "--dir $WORK/fleet --name host( |$)"
  else pgrep -f -- "--dir $WORK/fleet --name m[0-9]+ "; fi
}

start_operator
fleet_ready() {
  [[ $(kubectl get fc -o jsonpath='{range .items[*]}{.status.conditions[?(@.type=="Ready")].status}/{.status.resources.allocatable.cpu}{"\n"}{end}' | grep -c '^True/.') -ge $MEMBERS ]]
}
t0=$(now)
eventually 120 fleet_ready || { echo "the members did not turn Ready: $(kubectl get fc)"; exit 1; }
echo "operator: every member Ready in $(since "$t0") s"
rss_idle=$(rss_kb VmRSS)
# The fleet's fixed cost before any workload (probes, heartbeats, watches, member controllers):
# on a shared machine it is CPU the load cannot have.
cpu_now() { echo "$(cpu_seconds "$OP_PID") $(cpu_seconds $(sim_pids host)) $(cpu_seconds $(sim_pids members))"; }
read -r i_op i_host i_members <<<"$(cpu_now)"
sleep 3  # a sampling window, not a wait for a condition
read -r j_op j_host j_members <<<"$(cpu_now)"
echo "idle_cpu_cores: operator $(echo "($j_op - $i_op) / 3" | bc -l | xargs printf '%.3f'), host $(echo "($j_host - $i_host) / 3" | bc -l | xargs printf '%.3f'), members $(echo "($j_members - $i_members) / 3" | bc -l | xargs printf '%.3f')"
cpu_before=("$(cpu_seconds "$OP_PID")" "$(cpu_seconds $(sim_pids host))" "$(cpu_seconds $(sim_pids members))")

# --- The load ---
echo "load: $WORKLOADS Deployments from $CLIENTS clients (policies: spread over <=3 clusters, dynamic weights over 2, duplicated to 3; in $SHARDS shard(s) of the fleet)"
"$CLIENT" --kubeconfig "$KUBECONFIG" --member-kubeconfigs "$MEMBER_KCS" --namespace "$NS" \
  --workloads "$WORKLOADS" --clients "$CLIENTS" --shards "$SHARDS" --ceiling-seconds 0 ${VERIFY:+--verify} ${NO_READY:+--no-ready} ${APP:+--app} \
  --timeout "${TIMEOUT:-$((WORKLOADS / 5 > 600 ? WORKLOADS / 5 : 600))}" >"$WORK/client.out" 2>"$WORK/client.err"
code=$?
cat "$WORK/client.err" >&2
cat "$WORK/client.out"
quiet 120 || echo "note: the operator did not go quiet within 120 s"
# Where the machine's CPU went, from the first create to quiet: on this 2-core machine every
# process competes for the same cores, so CPU per binding is what bounds throughput.
cpu_op=$(echo "$(cpu_seconds "$OP_PID") - ${cpu_before[0]}" | bc)
cpu_host=$(echo "$(cpu_seconds $(sim_pids host)) - ${cpu_before[1]}" | bc)
cpu_members=$(echo "$(cpu_seconds $(sim_pids members)) - ${cpu_before[2]}" | bc)
cpu_client=$(awk '/^client_cpu_seconds:/ {print $2}' "$WORK/client.out")
echo "cpu_seconds: operator $cpu_op, host $cpu_host, members $cpu_members, load client ${cpu_client:-?}"
echo "cpu_ms_per_binding: operator $(echo "$cpu_op * 1000 / $WORKLOADS" | bc), host $(echo "$cpu_host * 1000 / $WORKLOADS" | bc), members $(echo "$cpu_members * 1000 / $WORKLOADS" | bc)"

# Reconciles per binding and their mean wall time, by controller: which loop runs how often for one
# workload (a reconcile that ends in no write still decodes and compares). Read before the ceiling
# below, whose ConfigMaps the object federate controller looks at too.
metrics | awk -v n="$WORKLOADS" '
  /^flotilla_controller_reconcile_total\{/ { match($0, /controller="[^"]*"/); c = substr($0, RSTART + 12, RLENGTH - 13); runs[c] += $NF }
  /^flotilla_controller_reconcile_time_seconds_total\{/ { match($0, /controller="[^"]*"/); c = substr($0, RSTART + 12, RLENGTH - 13); secs[c] += $NF }
  END { for (c in runs) printf "reconciles_per_binding: %s %.2f (%.2f ms each)\n", c, runs[c] / n, runs[c] ? secs[c] * 1000 / runs[c] : 0 }' | sort

# The host's raw write ceiling, after the CPU was read: bench clients writing as fast as they can.
if ((CEILING > 0)); then
  "$CLIENT" --kubeconfig "$KUBECONFIG" --namespace "$NS" --ceiling-seconds "$CEILING" --ceiling-only \
    >"$WORK/ceiling.out" 2>>"$WORK/client.err" && cat "$WORK/ceiling.out"
fi

# --- The operator's own numbers ---
m=$(metrics)
# Quantiles of a Prometheus histogram (cumulative buckets), linear within the bucket.
quantiles() {
  awk -v name="$1" '
    index($0, name "_bucket{") == 1 {
      match($0, /le="[^"]*"/); le = substr($0, RSTART + 4, RLENGTH - 5)
      n++; les[n] = (le == "+Inf") ? 1e9 : le + 0; counts[n] = $NF
    }
    END {
      total = counts[n]
      if (total == 0) { print "n/a n/a 0"; exit }
      split("0.5 0.99", qs, " ")
      for (k = 1; k <= 2; k++) {
        want = qs[k] * total; prev = 0; lo = 0
        for (i = 1; i <= n; i++) {
          if (counts[i] >= want) { f = (counts[i] == prev) ? 0 : (want - prev) / (counts[i] - prev); out[k] = lo + f * (les[i] - lo); break }
          prev = counts[i]; lo = les[i]
        }
      }
      printf "%.1f %.1f %d\n", out[1] * 1000, out[2] * 1000, total
    }' <<<"$m"
}
read -r p50 p99 attempts < <(quantiles flotilla_scheduler_scheduling_duration_seconds)
echo "scheduling_latency_ms: p50 $p50, p99 $p99 ($attempts attempts)"
rss=$(rss_kb VmRSS)
hwm=$(rss_kb VmHWM)
echo "operator_rss_kb: idle $rss_idle, converged $rss, peak $hwm"
echo "operator_kb_per_1000_bindings: $(((rss - rss_idle) * 1000 / WORKLOADS)) (peak $(((hwm - rss_idle) * 1000 / WORKLOADS)))"
ceiling=$(awk '/^host_write_ceiling_per_s:/ {print $2}' "$WORK/ceiling.out" 2>/dev/null)
rate=$(awk '/^flotilla_host_writes_per_s:/ {print $2}' "$WORK/client.out")
[[ -n $ceiling && -n $rate && $ceiling != 0 ]] &&
  echo "flotilla_host_write_share_of_ceiling: $(echo "scale=2; $rate / $ceiling" | bc)"

# --- A restart over the converged bindings: how fast back, and zero writes ---
# Converged means the host takes no more writes (the cluster controller's probes never stop, so
# the reconcile count alone cannot say it). FederatedCluster status is left out: its once-a-minute
# lastProbeTime heartbeat would never leave 10 quiet seconds in a large fleet.
# Quiet means 10 s without a write: a flotilla-sim member spaces its passes up to 10 pass-lengths
# apart (seconds with a thousand Deployments on it), so a last pod turning Ready, whose status the
# operator then writes, can come after 3 quiet seconds. That is the likely cause of the one run
# whose restart wrote (12 writes on 4 bindings at 10 members / 10,000 workloads; the rerun wrote 0).
settled() {
  local deadline=$((SECONDS + ${1:-60})) last="" since=$SECONDS w
  while ((SECONDS < deadline)); do
    w=$(host_write_lines | awk '!(/resource="federatedclusters"/ && /subresource="status"/) {s += $NF} END {print s + 0}')
    if [[ $w != "$last" ]]; then
      last=$w
      since=$SECONDS
    elif ((SECONDS - since >= 10)); then
      return 0
    fi
    sleep 0.5
  done
  return 1
}
settled 60 || echo "note: the host still took writes 60 s after the load converged"
# A steady fleet writes nothing: the host's writes over 20 s once settled (FederatedCluster
# heartbeats apart, as above).
steady_writes() { host_write_lines | awk '!(/resource="federatedclusters"/ && /subresource="status"/) {s += $NF} END {print s + 0}'; }
# The write counters by resource and verb ("events:POST 1100"), to tell who wrote in a window.
by_resource() {
  awk '{ match($0, /resource="[^"]*"/); r = substr($0, RSTART + 10, RLENGTH - 11)
         match($0, /subresource="[^"]*"/); if (RLENGTH > 15) r = r "/" substr($0, RSTART + 13, RLENGTH - 14)
         match($0, /verb="[^"]*"/); v = substr($0, RSTART + 6, RLENGTH - 7); c[r ":" v] += $NF }
       END { for (k in c) print k, c[k] }' | sort
}
if [[ -z $VERIFY ]]; then  # (not in the make-test smoke: 20 s of CI)
  w0=$(steady_writes)
  host_write_lines | by_resource >"$WORK/steady-0"
  sleep 20  # (a measurement window, not a wait for a condition)
  STEADY_WRITES=$(($(steady_writes) - w0))
  echo "steady_host_writes_20s: $STEADY_WRITES (FederatedCluster heartbeats apart)"
  host_write_lines | by_resource >"$WORK/steady-1"
  join -a 2 "$WORK/steady-0" "$WORK/steady-1" 2>/dev/null |
    awk '!/^federatedclusters\/status:/ { d = (NF == 3 ? $3 - $2 : $2); if (d > 0) printf "steady_host_writes_20s_by: %s %d\n", $1, d }'
fi
# With --keep, what the restart may change, to find out what a restart write was about.
snapshot() {
  [[ -n $KEEP ]] || return 0
  for r in resourcebindings federateddeployments deployments; do
    kubectl get "$r" -A -o json >"$WORK/$r-$1.json"
  done
}
snapshot before-restart
host_write_lines >"$WORK/writes-before-restart"
# The FederatedClusters' status without lastProbeTime, which the cluster controller refreshes once
# a minute whether or not anything changed (a heartbeat): to tell heartbeats from restart writes.
cluster_state() {
  kubectl get fc -o jsonpath='{range .items[*]}{.metadata.name} {.spec.taints} {.status.conditions} {.status.resources} {.status.nodeSummary} {.status.kubernetesVersion} {.status.apiEnablements}{"\n"}{end}'
}
cluster_state >"$WORK/clusters-before-restart"
kill -TERM "$OP_PID" && wait "$OP_PID" 2>/dev/null
t0=$(now)
start_operator
eventually 120 op_ready || echo "note: the restarted operator was not ready within 120 s"
echo "restart_ready_seconds: $(since "$t0")"
quiet 180 || echo "note: the restarted operator did not go quiet within 180 s"
echo "restart_quiet_seconds: $(echo "$(since "$t0") - 3" | bc) (quiet = 3 s without a reconcile, not counted)"
host_write_lines >"$WORK/writes-after-restart"  # one read: every figure below is from it
snapshot after-restart
restart_writes=$(awk 'NR == FNR {was[$1] = $NF; next} {s += $NF - was[$1]} END {print s + 0}' \
  "$WORK/writes-before-restart" "$WORK/writes-after-restart")
echo "restart_host_writes: $restart_writes"
heartbeats=$(awk 'NR == FNR {was[$1] = $NF; next}
  /resource="federatedclusters"/ && /subresource="status"/ && /verb="PUT"/ {s += $NF - was[$1]} END {print s + 0}' \
  "$WORK/writes-before-restart" "$WORK/writes-after-restart")
if cluster_state | cmp -s - "$WORK/clusters-before-restart"; then
  RESTART_WRITES=$((restart_writes - heartbeats))
  echo "restart_host_writes_besides_cluster_heartbeats: $RESTART_WRITES ($heartbeats FederatedCluster status writes changed only lastProbeTime, refreshed once a minute)"
else
  RESTART_WRITES=$restart_writes
  echo "restart_host_writes_besides_cluster_heartbeats: $restart_writes (a FederatedCluster's status changed in substance)"
fi
# Which ones, if any (resource, verb, code).
awk 'NR == FNR {was[$1] = $NF; next} $NF != was[$1] {
    match($0, /resource="[^"]*"/); r = substr($0, RSTART + 10, RLENGTH - 11)
    match($0, /subresource="[^"]*"/); sub_ = substr($0, RSTART + 13, RLENGTH - 14)
    match($0, /verb="[^"]*"/); v = substr($0, RSTART + 6, RLENGTH - 7)
    match($0, /code="[^"]*"/); c = substr($0, RSTART + 6, RLENGTH - 7)
    print "restart_host_writes_detail: " v " " r (sub_ == "" ? "" : "/" sub_) " " c ": " $NF - was[$1]
  }' "$WORK/writes-before-restart" "$WORK/writes-after-restart"
# One line for scripts: the figures per binding, as one JSON object (keys stable; null: not
# measured in this run).
field() { awk -v k="$1" '$1 == k ":" {print $2; exit}' "$WORK/client.out"; }
num() { [[ $1 =~ ^-?[0-9]+(\.[0-9]+)?$ ]] && echo "$1" || echo null; }
result=$(printf '{"members": %d, "workloads": %d, "app": %s, "scheduled_per_s": %s, "fully_applied_per_s": %s, "host_writes_per_binding": %s, "host_writes_per_binding_without_events": %s, "member_writes_per_binding": %s, "operator_cpu_ms_per_binding": %s, "host_cpu_ms_per_binding": %s, "members_cpu_ms_per_binding": %s, "operator_kb_per_binding": %s, "scheduling_p50_ms": %s, "scheduling_p99_ms": %s, "steady_host_writes_20s": %s, "restart_host_writes_besides_heartbeats": %s}' \
  "$MEMBERS" "$WORKLOADS" "$([[ -n $APP ]] && echo true || echo false)" \
  "$(num "$(field scheduled_per_s)")" "$(num "$(field fully_applied_per_s)")" \
  "$(num "$(field host_writes_per_binding)")" "$(num "$(field host_writes_per_binding_without_events)")" \
  "$(num "$(awk -v n="$WORKLOADS" '$1 == "member_writes:" {printf "%.2f", $2 / n; exit}' "$WORK/client.out")")" \
  "$(num "$(echo "scale=2; $cpu_op * 1000 / $WORKLOADS" | bc)")" "$(num "$(echo "scale=2; $cpu_host * 1000 / $WORKLOADS" | bc)")" \
  "$(num "$(echo "scale=2; $cpu_members * 1000 / $WORKLOADS" | bc)")" \
  "$(num "$(((rss - rss_idle) / WORKLOADS))")" "$(num "$p50")" "$(num "$p99")" \
  "$(num "${STEADY_WRITES:-}")" "$(num "${RESTART_WRITES:-}")")
echo "bench_result: $result"
if [[ -n $GUARD ]]; then
  # Each limit in the guard file: {"figure": max, ...}; a figure over its limit fails the run.
  over=$(python3 - "$GUARD" "$result" <<'PY'
import json, sys
limits = json.load(open(sys.argv[1]))
result = json.loads(sys.argv[2])
for key, limit in limits.items():
    if key.startswith("_"):
        continue
    value = result.get(key)
    if value is None:
        print(f"{key}: not measured (limit {limit})")
    elif value > limit:
        print(f"{key}: {value} > {limit}")
PY
  )
  if [[ -n $over ]]; then
    echo "bench guard ($GUARD) failed:" >&2
    echo "$over" | sed 's/^/  /' >&2
    exit 3
  fi
  echo "bench guard: every figure within $GUARD"
fi
exit $code
