# Shared by the operator e2e suites: a fleet (flotilla-sim's default topology, or the real
# clusters named by FLOTILLA_E2E_HOST_KUBECONFIG and FLOTILLA_E2E_MEMBER_KUBECONFIGS), operators
# started as separate processes, and helpers to read what they did. Needs SIM, OPERATOR and ROOT.
# Real clusters: the member names must be member1, member2 and member3 (the demo policy weights
# them), and member4 for a suite that sets E2E_MEMBERS=4 (it registers member4 and removes it
# again, so the other suites see three); NS is the namespace the suite works in.
WORK=$(mktemp -d)
REAL=${FLOTILLA_E2E_HOST_KUBECONFIG:+1}
# Whether the members run pods (a scheduler and kubelets): flotilla-sim's always do; real members
# say so with FLOTILLA_E2E_MEMBERS_RUN_PODS=1 (for example ../real-k8s members started with NODES=N).
PODS_RUN=1
[[ -n $REAL && ${FLOTILLA_E2E_MEMBERS_RUN_PODS:-} != 1 ]] && PODS_RUN=
export KUBECACHEDIR=$WORK/kube-cache
PERIOD=1  # --cluster-probe-period in seconds; thresholds below are in probe periods
cleanup() {
  # Supervised operators (real clusters) are not to be started again: mark them stopping first.
  for f in "$WORK"/operator-*.pid; do [[ -e $f ]] && touch "${f%.pid}.stopping"; done
  for pid in $(cat "$WORK"/operator-*.pid 2>/dev/null); do kill -9 "$pid" 2>/dev/null; done
  if ((${E2E_FAILURES:-0} > 0)); then  # what the operator said, for a failure seen only in CI
    for log in "$WORK"/operator-*.log; do
      [[ -f $log ]] && { echo "--- the last lines of $log:"; tail -n 60 "$log"; }
    done
  fi
  if [[ -z $REAL ]]; then "$SIM" down --dir "$WORK/fleet" >/dev/null 2>&1; fi
  if [[ -n $REAL ]] && ((${#MEMBERS[@]} > 3)); then  # the extra members this suite registered
    for m in "${MEMBERS[@]:3}"; do
      kubectl delete fc "$m" --wait=false >/dev/null 2>&1
      kubectl patch fc "$m" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null 2>&1
    done
  fi
  if [[ -n $REAL ]]; then  # the suite's namespace; the registered members stay for the next suite
    kubectl delete ns "$NS" --wait=false >/dev/null 2>&1
    for m in "${!MEMBER_KUBECONFIG[@]}"; do
      kubectl --kubeconfig "${MEMBER_KUBECONFIG[$m]}" delete ns "$NS" --wait=false >/dev/null 2>&1
    done
  fi
  if [[ -n ${KEEP_WORK:-} ]]; then echo "work dir: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# --- The fleet ---
# E2E_MEMBERS: how many members the suite uses (member1..memberN; 3 unless the suite says 4).
# SIM_TOPOLOGY: the fleet's topology (default config/samples/sim/topology.yaml, or
# e2e/topology-4.yaml for four members).
MEMBERS=()
for ((i = 1; i <= ${E2E_MEMBERS:-3}; i++)); do MEMBERS+=("member$i"); done
DEFAULT_TOPOLOGY=$ROOT/config/samples/sim/topology.yaml
((${#MEMBERS[@]} == 4)) && DEFAULT_TOPOLOGY=$ROOT/e2e/topology-4.yaml
# FLOTILLA_E2E_SIM_FAULTS: a flotilla-sim fault file (config/samples/sim/faults-10pct.json) every
# cluster of the fleet starts with; its rules choose the operator's requests by user agent, so the
# suite's own kubectl calls are answered normally.
# SIM_EXTRA_ARGS: what a suite adds to `flotilla-sim up` (a fast CronJob clock).
SIM_UP_ARGS=("${SIM_EXTRA_ARGS[@]}")
if [[ -n ${FLOTILLA_E2E_SIM_FAULTS:-} ]]; then
  SIM_UP_ARGS=(--faults "$(realpath "$FLOTILLA_E2E_SIM_FAULTS")")
  echo "flotilla-sim fault injection: $FLOTILLA_E2E_SIM_FAULTS"
fi
if [[ -z $REAL ]]; then
  export HOME=$WORK
  "$SIM" up -f "${SIM_TOPOLOGY:-$DEFAULT_TOPOLOGY}" --dir "$WORK/fleet" "${SIM_UP_ARGS[@]}" >"$WORK/up.log" 2>&1 ||
    { cat "$WORK/up.log"; exit 1; }
  export KUBECONFIG=$WORK/fleet/host.kubeconfig
  declare -A MEMBER_KUBECONFIG=()
  for m in "${MEMBERS[@]}"; do MEMBER_KUBECONFIG[$m]=$WORK/fleet/$m.kubeconfig; done
else
  export KUBECONFIG=$FLOTILLA_E2E_HOST_KUBECONFIG
  declare -A MEMBER_KUBECONFIG=()
  IFS=, read -ra pairs <<<"${FLOTILLA_E2E_MEMBER_KUBECONFIGS:?set name=path,... for the members}"
  for pair in "${pairs[@]}"; do MEMBER_KUBECONFIG[${pair%%=*}]=${pair#*=}; done
  # A suite killed before its cleanup may have left the local operator's webhooks registered
  # (failurePolicy Fail, calling a port nobody serves): they would refuse every write below.
  for kind in validatingwebhookconfiguration mutatingwebhookconfiguration; do
    url=$(kubectl get $kind "flotilla-${kind%webhookconfiguration}-webhook-configuration" \
      -o jsonpath='{.webhooks[0].clientConfig.url}' 2>/dev/null)
    [[ $url == https://127.0.0.1:* ]] && kubectl delete $kind \
      "flotilla-${kind%webhookconfiguration}-webhook-configuration" >/dev/null
  done
  kubectl apply -f "$ROOT/crds/" >/dev/null
  kubectl wait --for=condition=Established crd --all --timeout=30s >/dev/null
  kubectl create namespace flotilla-system >/dev/null 2>&1
  declare -A REGION=([member1]=eu-west [member2]=eu-west [member3]=us-east [member4]=us-east)
  declare -A ZONE=([member1]=eu-west-1a [member2]=eu-west-1b [member3]=us-east-1a [member4]=us-east-1b)
  for m in "${MEMBERS[@]}"; do
    kc=${MEMBER_KUBECONFIG[$m]:?FLOTILLA_E2E_MEMBER_KUBECONFIGS must name $m}
    server=$(kubectl --kubeconfig "$kc" config view --minify --raw -o jsonpath='{.clusters[0].cluster.server}')
    # A registration left terminating by an earlier run (its operator gone) is released first.
    if [[ -n $(kubectl get fc "$m" -o jsonpath='{.metadata.deletionTimestamp}' 2>/dev/null) ]]; then
      kubectl patch fc "$m" --type merge -p '{"metadata":{"finalizers":null}}' >/dev/null
      kubectl wait --for=delete fc/"$m" --timeout=30s >/dev/null
    fi
    kubectl -n flotilla-system create secret generic "$m-credentials" --from-file=kubeconfig="$kc" \
      --dry-run=client -o yaml |
      kubectl annotate --local -f - flotilla.io/cluster="$m" -o yaml | kubectl apply -f - >/dev/null
    kubectl apply -f - >/dev/null <<YAML
apiVersion: flotilla.io/v1alpha1
kind: FederatedCluster
metadata: {name: $m, labels: {env: demo}}
spec:
  apiEndpoint: $server
  secretRef: {namespace: flotilla-system, name: $m-credentials}
  provider: real
  region: ${REGION[$m]}
  zone: ${ZONE[$m]}
YAML
    # A control plane without kubelets has no nodes: give it two that say what they offer.
    if [[ -z $(kubectl --kubeconfig "$kc" get nodes -o name) ]]; then
      for n in 1 2; do
        kubectl --kubeconfig "$kc" create -f - >/dev/null <<YAML
apiVersion: v1
kind: Node
metadata: {name: $m-node-$n}
YAML
        kubectl --kubeconfig "$kc" patch node "$m-node-$n" --subresource=status --type merge -p \
          '{"status":{"capacity":{"cpu":"8","memory":"32Gi","pods":"110"},"allocatable":{"cpu":"8","memory":"32Gi","pods":"110"},"conditions":[{"type":"Ready","status":"True","reason":"KubeletReady","message":"e2e"}]}}' >/dev/null
      done
    fi
  done
fi
NS=${NS:-demo}
[[ -n $REAL ]] && NS=e2e-$NS-$(date +%s)  # fresh per run: a previous run's may still be terminating

# Operators run as the flotilla-operator ServiceAccount with exactly config/rbac's permissions
# (its token from the TokenRequest API, as kubectl create token gets it).
kubectl apply -k "$ROOT/config/rbac" >/dev/null || { echo "cannot apply config/rbac" >&2; exit 1; }
OPERATOR_KUBECONFIG=$WORK/operator.kubeconfig
sa_token=$(kubectl create token flotilla-operator -n flotilla-system --duration 2h) ||
  { echo "kubectl create token flotilla-operator failed" >&2; exit 1; }
# Written directly (not with `kubectl config set-credentials --token`, which would show the
# token in the process list).
sa_server=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.server}')
sa_ca=$(kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}')
(umask 077 && cat >"$OPERATOR_KUBECONFIG" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: host, cluster: {server: "$sa_server", certificate-authority-data: "$sa_ca"}}]
users: [{name: flotilla-operator, user: {token: "$sa_token"}}]
contexts: [{name: flotilla-operator, context: {cluster: host, user: flotilla-operator}}]
current-context: flotilla-operator
KUBECONFIG
)
unset sa_token

# The webhook serving certificate of every operator this suite starts (a CA and a pair for
# 127.0.0.1, made by flotillactl; register_webhooks injects the CA).
CTL=${FLOTILLACTL:-$(dirname "$OPERATOR")/../cli/flotillactl}
"$CTL" webhooks --url https://127.0.0.1:1 --cert-dir "$WORK/certs" >/dev/null ||
  { echo "cannot generate webhook certificates with $CTL" >&2; exit 1; }

# launch_operator NAME [flags...]: starts an operator process (without waiting for it).
launch_operator() {
  local name=$1
  shift
  rm -f "$WORK/operator-$name.stopping"
  run_operator "$name" "$@"
  # On real clusters an operator that exits by itself is started again, as its Deployment's
  # restartPolicy would: with four control planes on two cores a Lease request can time out, and
  # losing the Lease ends the process by design (docs/operator.md). flotilla-sim suites count
  # such an exit as a failure instead.
  [[ -n $REAL ]] && supervise_operator "$name" "$@" >>"$WORK/operator-$name.log" 2>&1 &
  return 0
}
run_operator() {
  local name=$1
  shift
  "$OPERATOR" --kubeconfig "$OPERATOR_KUBECONFIG" \
    --cluster-probe-period ${PERIOD}s --cluster-failover-grace 30s \
    --health-probe-bind-address 127.0.0.1:0 --metrics-bind-address 127.0.0.1:0 \
    --webhook-host 127.0.0.1 --webhook-port 0 --cert-dir "$WORK/certs" \
    --leader-election-lease-duration 4s --leader-election-renew-deadline 3s \
    --leader-election-retry-period 500ms "$@" >>"$WORK/operator-$name.log" 2>&1 &
  echo $! >"$WORK/operator-$name.pid"
}
# supervise_operator NAME [flags...]: polls operator NAME once a second and starts it again when
# it exited without stop_operator; ends with the suite or with stop_operator.
supervise_operator() {
  local name=$1 suite=$$ pid
  while kill -0 "$suite" 2>/dev/null && [[ ! -e $WORK/operator-$name.stopping ]]; do
    pid=$(cat "$WORK/operator-$name.pid" 2>/dev/null) || return 0
    if ! kill -0 "$pid" 2>/dev/null && [[ ! -e $WORK/operator-$name.stopping ]] &&
      kill -0 "$suite" 2>/dev/null; then
      echo "e2e: operator $name (pid $pid) exited by itself; starting it again"
      run_operator "$@"
    fi
    sleep 1
  done
}
# fleet_ready: every member of the suite Ready and reporting its resources (a placement needs
# both; the resources may come a status write after Ready).
fleet_ready() {
  local ready
  ready=$(kubectl get fc -o jsonpath='{range .items[*]}{.metadata.name} {.status.conditions[?(@.type=="Ready")].status}/{.status.resources.allocatable.cpu}{"\n"}{end}' | awk '$2 ~ /^True\/./ { print $1 }')
  for m in "${MEMBERS[@]}"; do grep -qx "$m" <<<"$ready" || return 1; done
}

# start_operator NAME [flags...]: starts an operator and waits until it serves /readyz.
start_operator() {
  local name=$1
  launch_operator "$@"
  eventually 20 grep -q "serving /healthz" "$WORK/operator-$name.log" ||
    { e2e_fail "operator $name did not start: $(cat "$WORK/operator-$name.log")"; return 1; }
}
# wait_ready NAME: until operator NAME's caches are synced (/readyz answers 200).
wait_ready() {
  eventually 30 curl -skf "https://127.0.0.1:$(operator_port "$1")/readyz" ||
    { e2e_fail "operator $1 never became ready"; return 1; }
}
operator_port() { grep -oE 'serving /healthz, /readyz( and /metrics)? on https://127.0.0.1:[0-9]+' "$WORK/operator-$1.log" | tail -1 | grep -o '[0-9]*$'; }
webhook_port() { grep -o 'serving admission on https://127.0.0.1:[0-9]*' "$WORK/operator-$1.log" | tail -1 | grep -o '[0-9]*$'; }
# register_webhooks NAME: the host's webhook configurations call operator NAME (URL clientConfig,
# the suite's CA), as config/webhook does through the Service in a cluster.
register_webhooks() {
  "$CTL" webhooks --url "https://127.0.0.1:$(webhook_port "$1")" --cert-dir "$WORK/certs" |
    kubectl apply -f - >/dev/null
}
metrics() { curl -sk "https://127.0.0.1:$(operator_port "$1")/metrics"; }
stop_operator() {  # NAME SIGNAL
  local pid
  touch "$WORK/operator-$1.stopping"  # not to be started again (supervise_operator)
  pid=$(cat "$WORK/operator-$1.pid") && kill -"$2" "$pid" || { rm -f "$WORK/operator-$1.pid"; return 1; }
  wait "$pid" 2>/dev/null
  local code=$?
  # A restarted operator is the supervisor's child, not ours (wait answers 127): poll for its end.
  if ((code == 127)); then
    eventually 30 bash -c "! kill -0 $pid 2>/dev/null"
    code=0
  fi
  rm -f "$WORK/operator-$1.pid"
  return $code
}
rb_field() { kubectl get rb "$1" -n $NS -o jsonpath="$2" 2>/dev/null; }
scheduled() { [[ $(rb_field "$1" '{.status.conditions[?(@.type=="Scheduled")].status}') == True ]]; }
placement_sum() { rb_field "$1" '{range .spec.clusters[*]}{.replicas}{"\n"}{end}' | awk '{s+=$1} END {print s+0}'; }


# member_stop NAME / member_start NAME: a member's API server goes away and comes back with its
# data. flotilla-sim: the member's process; real clusters: the commands in FLOTILLA_E2E_MEMBER_STOP
# and FLOTILLA_E2E_MEMBER_START, called with the member's name (the suites that need them are
# skipped without them).
member_stop() {
  if [[ -z $REAL ]]; then kill "$(cat "$WORK/fleet/$1.pid")"; else $FLOTILLA_E2E_MEMBER_STOP "$1" >>"$WORK/members.log" 2>&1; fi
}
member_start() {
  if [[ -z $REAL ]]; then
    "$SIM" up -f "${SIM_TOPOLOGY:-$DEFAULT_TOPOLOGY}" --dir "$WORK/fleet" "${SIM_UP_ARGS[@]}" >/dev/null 2>&1
  else
    $FLOTILLA_E2E_MEMBER_START "$1" >>"$WORK/members.log" 2>&1
  fi
}

# custom_kind GROUP KIND PLURAL: a namespaced custom resource kind on the host (its CRD,
# established, with a spec.size field) and the operator's grant to read it (a custom kind needs
# one of its own: docs/operator.md, "Propagating other kinds").
custom_kind() {
  local group=$1 kind=$2 plural=$3
  kubectl apply -f - >/dev/null <<YAML
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRole
metadata: {name: flotilla-operator-$plural}
rules:
- {apiGroups: [$group], resources: [$plural], verbs: [list, watch]}
---
apiVersion: rbac.authorization.k8s.io/v1
kind: ClusterRoleBinding
metadata: {name: flotilla-operator-$plural}
roleRef: {apiGroup: rbac.authorization.k8s.io, kind: ClusterRole, name: flotilla-operator-$plural}
subjects: [{kind: ServiceAccount, name: flotilla-operator, namespace: flotilla-system}]
---
apiVersion: apiextensions.k8s.io/v1
kind: CustomResourceDefinition
metadata: {name: $plural.$group}
spec:
  group: $group
  names: {kind: $kind, plural: $plural, singular: ${kind,,}, listKind: ${kind}List}
  scope: Namespaced
  versions:
  - name: v1
    served: true
    storage: true
    schema:
      openAPIV3Schema:
        type: object
        properties:
          spec: {type: object, properties: {size: {type: integer}}}
YAML
  kubectl wait --for=condition=Established "crd/$plural.$group" --timeout=30s >/dev/null
}

# no_terminating: no namespace of the host is being emptied (a real host's namespace controller
# writes while it is; measure writes only after it is done).
no_terminating() { ! kubectl get ns --no-headers 2>/dev/null | grep -q Terminating; }

# mkubectl MEMBER args...: kubectl against a member.
mkubectl() { local m=$1; shift; kubectl --kubeconfig "${MEMBER_KUBECONFIG[$m]}" "$@"; }

# writes KUBECONFIG [member]: the write requests (POST/PUT/PATCH/APPLY/DELETE: create, update...) the API
# server has served (kube-apiserver's apiserver_request_total), leader-election Leases and Events
# aside, FederatedClusters (their lastProbeTime is refreshed once a minute by design) and the
# webhook configurations (the suites' own register_webhooks). On a member only what Flotilla
# writes counts (MEMBER_WRITE_RESOURCES, by default Deployments and Namespaces, not
# deployments/status, which the member's own deployment controller keeps writing).
writes() { write_lines "$@" | awk '{ s += $NF } END { print s + 0 }'; }
# write_lines KUBECONFIG [member]: the counters writes() adds up, one line each, so that a changed
# count can be shown by resource and verb (diff two snapshots).
write_lines() {
  kubectl --kubeconfig "$1" get --raw /metrics 2>/dev/null |
    awk -v member="${2:-}" -v res="${MEMBER_WRITE_RESOURCES:-deployments|namespaces}" '/^apiserver_request_total\{/ && /verb="(POST|PUT|CREATE|UPDATE|PATCH|APPLY|DELETE|DELETECOLLECTION)"/ &&
         !/resource="(leases|events|federatedclusters|mutatingwebhookconfigurations|validatingwebhookconfigurations)"/ {
           if (member != "" && !($0 ~ "resource=\"(" res ")\"" && /subresource=""/)) next
           print
         }' | sort
}

# quiet NAME: waits (up to 30 s) until operator NAME has nothing to do: every work queue empty
# and no reconcile for 3 s (longer than the controllers' 1 s retries and 200 ms coalescing), so
# that what it writes afterwards can be attributed to whatever happens next.
quiet() {
  local deadline=$((SECONDS + 30)) last="" since=$SECONDS m activity first
  first=$(metrics "$1" | grep -E '^flotilla_controller_reconcile_total|^flotilla_scheduler_schedule_attempts_total|^flotilla_workqueue_depth')
  while ((SECONDS < deadline)); do
    m=$(metrics "$1")
    # The cluster controller probes every period by design: its activity does not count.
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
  echo "quiet: still busy after 30 s; what changed, and the queues not empty:"
  m=$(metrics "$1")
  diff <(echo "$first") <(grep -E '^flotilla_controller_reconcile_total|^flotilla_scheduler_schedule_attempts_total|^flotilla_workqueue_depth' <<<"$m") | grep '^[<>]'
  grep -E '^flotilla_workqueue_depth\{.*\} [1-9]|^flotilla_scheduler_queue_depth\{.*\} [1-9]' <<<"$m"
  return 1
}
