#!/usr/bin/env bash
# The dedicated host control plane as shipped (config/host-control-plane), run with real
# Kubernetes binaries: etcd, kube-apiserver and kube-controller-manager are started with exactly
# the commands of control-plane.yaml (the Secret's mount point, the etcd volume and /tmp mapped to
# directories here), with the PKI of scripts/host-control-plane-pki.sh; then the install steps of
# docs/install.md run against it: on-host manifests, the operator's long-lived token (filled by
# the controller-manager's token controller), members registered with `flotillactl join`, the
# operator from the image (chroot, uid 65532, config/host-control-plane/operator's arguments)
# with its host kubeconfig. The demo workload must be scheduled and applied on the members, and
# the host itself must not run it (no ReplicaSet appears: the workload controllers are off).
# Needs root, umoci, the image (make image), etcd on PATH and real binaries:
#   REAL_K8S_BIN=DIR (kube-apiserver, kube-controller-manager)
#   FLOTILLA_E2E_MEMBER_KUBECONFIGS=member1=PATH,member2=PATH,member3=PATH (real members)
# Not part of `make test` (users do not have Kubernetes' binaries); docs/development.md.
# Usage: host_control_plane_e2e.sh BUILD-DIR
BUILD=${1:?usage: host_control_plane_e2e.sh BUILD-DIR}
BUILD=$(cd "$BUILD" && pwd)
ROOT=$(cd "$(dirname "$0")/.." && pwd)
source "$ROOT/e2e/lib.sh"
BIN=${REAL_K8S_BIN:?set REAL_K8S_BIN to a directory with kube-apiserver and kube-controller-manager}
IMAGE=$BUILD/flotilla-operator-image.tar
CTL=$BUILD/cli/flotillactl
for need in "$BIN/kube-apiserver" "$BIN/kube-controller-manager" "$IMAGE" "$CTL"; do
  [[ -e $need ]] || { echo "missing: $need"; exit 1; }
done
command -v etcd >/dev/null || { echo "etcd is not on PATH (Debian: etcd-server)"; exit 1; }
WORK=$(mktemp -d)
PIDS=()
cleanup() {
  for pid in "${PIDS[@]}"; do kill "$pid" 2>/dev/null; done
  wait 2>/dev/null
  if ((E2E_FAILURES > 0)); then
    for log in "$WORK"/*.log; do echo "--- $log:"; tail -n 20 "$log"; done
  fi
  if [[ -n ${KEEP_WORK:-} ]]; then echo "work dir: $WORK"; else rm -rf "$WORK"; fi
}
trap cleanup EXIT

# --- The control plane, from the manifest's own commands ---
"$ROOT/scripts/host-control-plane-pki.sh" "$WORK/pki" >/dev/null || exit 1
mkdir -p "$WORK/etcd" "$WORK/tmp"
python3 - "$ROOT/config/host-control-plane/control-plane.yaml" "$WORK" >"$WORK/commands" <<'PY'
import shlex, sys, yaml
doc = yaml.safe_load(open(sys.argv[1]))
work = sys.argv[2]
for c in doc["spec"]["template"]["spec"]["containers"]:
    args = [a.replace("=/tmp/", "=" + work + "/tmp/").replace("/etc/flotilla-host/pki", work + "/pki")
             .replace("/var/lib/etcd", work + "/etcd") for a in c["command"]]
    print(c["name"], shlex.join(args))
PY
while read -r name command; do
  eval "set -- $command"
  program=$1
  shift
  [[ $program == etcd ]] || program=$BIN/$program
  "$program" "$@" >"$WORK/$name.log" 2>&1 &
  PIDS+=($!)
  echo "started $name: $(basename "$program") $*" | cut -c1-160
  # Each container once the one before serves (in the pod, the kubelet restarts a container
  # that started too early: the controller-manager exits while the API server's RBAC
  # bootstrap is not done yet).
  case $name in
    etcd) eventually 30 curl -sf http://127.0.0.1:2381/health >/dev/null || { e2e_fail "etcd did not start"; exit 1; } ;;
    kube-apiserver) eventually 60 kubectl --kubeconfig "$WORK/pki/admin.kubeconfig" get --raw /readyz >/dev/null ||
      { e2e_fail "the host API server did not get ready"; exit 1; } ;;
  esac
done <"$WORK/commands"
export KUBECONFIG=$WORK/pki/admin.kubeconfig

# --- docs/install.md, on the host ---
kubectl create namespace flotilla-system >/dev/null
kubectl apply -k "$ROOT/config/host-control-plane/on-host" >/dev/null || e2e_fail "on-host manifests refused"
kubectl wait --for=condition=Established crd --all --timeout=30s >/dev/null
kubectl apply -f - >/dev/null <<'YAML'
apiVersion: v1
kind: Secret
metadata:
  name: flotilla-operator-token
  namespace: flotilla-system
  annotations: {kubernetes.io/service-account.name: flotilla-operator}
type: kubernetes.io/service-account-token
YAML
token_filled() { [[ -n $(kubectl get secret flotilla-operator-token -n flotilla-system -o jsonpath='{.data.token}') ]]; }
eventually 30 token_filled || { e2e_fail "the controller-manager did not fill the operator's token"; exit 1; }
IFS=, read -ra pairs <<<"${FLOTILLA_E2E_MEMBER_KUBECONFIGS:?set name=path,... for the members}"
# The demo policy spreads over two regions: the members say where they are, as in operator_lib.sh.
declare -A REGION=([member1]=eu-west [member2]=eu-west [member3]=us-east)
for pair in "${pairs[@]}"; do
  out=$("$CTL" join "${pair%%=*}" --cluster-kubeconfig "${pair#*=}" --labels env=demo \
    --cluster-region "${REGION[${pair%%=*}]:-eu-west}" --cluster-zone "${pair%%=*}-zone" 2>&1) ||
    e2e_fail "join ${pair%%=*}: $out"
done

# --- The operator from the image, with its host kubeconfig ---
mkdir -p "$WORK/layout"
tar -xf "$IMAGE" -C "$WORK/layout"
umoci unpack --image "$WORK/layout:0.1.0" "$WORK/bundle" >/dev/null || { e2e_fail "umoci unpack"; exit 1; }
FS=$WORK/bundle/rootfs
mkdir -p "$FS/etc/flotilla/host" "$FS/tmp/k8s-webhook-server/serving-certs"
"$CTL" webhooks --url https://127.0.0.1:1 --cert-dir "$WORK/certs" >/dev/null
cp "$WORK/certs/tls.crt" "$WORK/certs/tls.key" "$FS/tmp/k8s-webhook-server/serving-certs/"
(umask 077 && cat >"$FS/etc/flotilla/host/kubeconfig" <<KUBECONFIG
apiVersion: v1
kind: Config
clusters: [{name: flotilla-host, cluster: {server: "https://127.0.0.1:6443", certificate-authority-data: "$(base64 -w0 "$WORK/pki/ca.crt")"}}]
users: [{name: flotilla-operator, user: {token: "$(kubectl get secret flotilla-operator-token -n flotilla-system -o jsonpath='{.data.token}' | base64 -d)"}}]
contexts: [{name: operator, context: {cluster: flotilla-host, user: flotilla-operator}}]
current-context: operator
KUBECONFIG
)
chown -R 65532:65532 "$FS/etc/flotilla" "$FS/tmp/k8s-webhook-server"
mapfile -t ARGS < <(kubectl kustomize "$ROOT/config/host-control-plane/operator" |
  python3 -c 'import sys, yaml
for d in yaml.safe_load_all(sys.stdin):
    if d and d["kind"] == "Deployment":
        print("\n".join(d["spec"]["template"]["spec"]["containers"][0]["args"]))')
# The pod's ports, on loopback here (a pod has its own network namespace).
ARGS=("${ARGS[@]/--health-probe-bind-address=:8081/--health-probe-bind-address=127.0.0.1:0}")
ARGS=("${ARGS[@]/--metrics-bind-address=127.0.0.1:8080/--metrics-bind-address=0}")
ARGS=("${ARGS[@]/--webhook-port=9443/--webhook-port=0}")
echo "operator arguments: ${ARGS[*]}"
env -i "$(command -v chroot)" --userspec=65532:65532 "$FS" /usr/local/bin/flotilla-operator \
  "${ARGS[@]}" --webhook-host=127.0.0.1 --cluster-probe-period=1s >"$WORK/operator.log" 2>&1 &
PIDS+=($!)
eventually 30 grep -q 'serving /healthz' "$WORK/operator.log" ||
  { e2e_fail "the operator did not start: $(tail -5 "$WORK/operator.log")"; exit 1; }
expect_contains "the operator took the host kubeconfig" "$(cat "$WORK/operator.log")" \
  "starting against https://127.0.0.1:6443 (kubeconfig context operator"

# --- The demo workload: scheduled, on the members, not run by the host ---
for f in 00-namespace 02-policy 03-deployment; do cat "$ROOT/config/samples/demo/$f.yaml"; echo ---; done |
  kubectl apply -f - >/dev/null
scheduled() { [[ $(kubectl get rb web -n demo -o jsonpath='{.status.conditions[?(@.type=="Scheduled")].status}') == True ]]; }
eventually 60 scheduled || e2e_fail "web should be scheduled: $(kubectl get rb web -n demo -o yaml 2>&1)"
on_members() {
  local sum=0 r pair
  for pair in "${pairs[@]}"; do
    r=$(kubectl --kubeconfig "${pair#*=}" get deploy web -n demo -o jsonpath='{.spec.replicas}' 2>/dev/null)
    sum=$((sum + ${r:-0}))
  done
  [[ $sum == 6 ]]
}
eventually 60 on_members || e2e_fail "web's 6 replicas should be on the members"
expect_eq "the host runs no ReplicaSet of it" "$(kubectl get rs -n demo -o name | wc -l)" "0"

# --- Leave the members as they were ---
kubectl delete ns demo --wait=false >/dev/null
for pair in "${pairs[@]}"; do
  "$CTL" unjoin "${pair%%=*}" --cluster-kubeconfig "${pair#*=}" >/dev/null 2>&1 ||
    e2e_fail "unjoin ${pair%%=*}"
done
e2e_summary
