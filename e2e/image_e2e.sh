#!/usr/bin/env bash
# The operator's image runs as a cluster would run it (issue 27): the archive `make image` wrote
# is unpacked with umoci, checked (every blob's digest, the entrypoint, user 65532), and the
# operator is started from the image's root filesystem alone -- chroot, the image's own shared
# libraries, as uid 65532, with config/manager's arguments -- configured in-cluster: a
# ServiceAccount token, CA and namespace under /var/run/secrets/kubernetes.io/serviceaccount/ and
# KUBERNETES_SERVICE_HOST/PORT, nothing else in its environment. The demo workload must then be
# scheduled and applied on the members.
# Exit 77 (ctest: skipped) with the reason when there is no image or no way to chroot here.
# Usage: image_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator [IMAGE.tar]
SIM=${1:?usage: image_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator [IMAGE.tar]}
OPERATOR=${2:?usage: image_e2e.sh PATH/TO/flotilla-sim PATH/TO/flotilla-operator [IMAGE.tar]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
IMAGE=${3:-$(dirname "$OPERATOR")/../flotilla-operator-image.tar}
if [[ ! -f $IMAGE ]]; then
  echo "SKIP: no image at $IMAGE (make image builds it)"
  exit 77
fi
if [[ $(id -u) != 0 ]] || ! command -v umoci >/dev/null; then
  echo "SKIP: running the image's root filesystem needs root (chroot) and umoci"
  exit 77
fi
NS=demo
source "$ROOT/e2e/lib.sh"
source "$ROOT/e2e/operator_lib.sh"

# --- The archive: an OCI layout and docker save's manifest.json, every blob as named ---
mkdir -p "$WORK/layout"
tar -xf "$IMAGE" -C "$WORK/layout"
expect_eq "every blob the archive names is present with its digest" "$(python3 - "$WORK/layout" <<'PY'
import hashlib, json, os, sys
d = sys.argv[1]
def check(path, digest=None):
    data = open(os.path.join(d, path), "rb").read()
    if digest and hashlib.sha256(data).hexdigest() != digest.split(":")[1]:
        print("digest mismatch", path)
    return data
index = json.loads(check("index.json"))
for m in index["manifests"]:
    manifest = json.loads(check("blobs/sha256/" + m["digest"].split(":")[1], m["digest"]))
    for blob in [manifest["config"]] + manifest["layers"]:
        check("blobs/sha256/" + blob["digest"].split(":")[1], blob["digest"])
    print(m["annotations"]["io.containerd.image.name"])
for entry in json.loads(check("manifest.json")):
    for path in [entry["Config"]] + entry["Layers"]:
        check(path)
    print(" ".join(entry["RepoTags"]))
PY
)" "$(printf 'ghcr.io/flotilla-io/flotilla-operator:0.1.0\nghcr.io/flotilla-io/flotilla-operator:0.1.0')"

umoci unpack --image "$WORK/layout:0.1.0" "$WORK/bundle" >/dev/null ||
  { e2e_fail "umoci cannot unpack the image"; exit 1; }
FS=$WORK/bundle/rootfs
expect_eq "runs as 65532:65532 with the operator as entrypoint" \
  "$(python3 -c 'import json,sys; p=json.load(open(sys.argv[1]))["process"]; print(p["user"]["uid"], p["user"]["gid"], p["args"])' "$WORK/bundle/config.json")" \
  "65532 65532 ['/usr/local/bin/flotilla-operator']"
# Nothing but the operator, sleep, their libraries and the listed data files.
unexpected=$(cd "$FS" && find . -type f | grep -v -E '^\./(usr/local/bin/flotilla-operator|usr/bin/sleep|usr/lib(64)?/.*\.so[.0-9]*|usr/share/doc/[^/]+/copyright|var/lib/dpkg/status\.d/[^/]+|etc/(passwd|group|nsswitch\.conf|ssl/certs/ca-certificates\.crt))$')
expect_eq "no file outside the operator's needs" "$unexpected" ""
expect_contains "the image's own libraries run the binary" \
  "$(chroot --userspec=65532:65532 "$FS" /usr/local/bin/flotilla-operator --help 2>&1 | head -3)" "flotilla-operator"

# --- In-cluster configuration, as the kubelet mounts it ---
SA_DIR=$FS/var/run/secrets/kubernetes.io/serviceaccount
mkdir -p "$SA_DIR" "$FS/tmp/k8s-webhook-server/serving-certs"
kubectl create token flotilla-operator -n flotilla-system --duration 1h >"$SA_DIR/token"
kubectl config view --raw --minify -o jsonpath='{.clusters[0].cluster.certificate-authority-data}' |
  base64 -d >"$SA_DIR/ca.crt"
printf flotilla-system >"$SA_DIR/namespace"
cp "$WORK/certs/tls.crt" "$WORK/certs/tls.key" "$FS/tmp/k8s-webhook-server/serving-certs/"
chown -R 65532:65532 "$SA_DIR" "$FS/tmp/k8s-webhook-server"
server=$(kubectl config view --minify -o jsonpath='{.clusters[0].cluster.server}')
hostport=${server#https://}

# config/manager's arguments, with loopback ports the test can find (a pod has its own network).
env -i KUBERNETES_SERVICE_HOST="${hostport%:*}" KUBERNETES_SERVICE_PORT="${hostport##*:}" \
  "$(command -v chroot)" --userspec=65532:65532 "$FS" /usr/local/bin/flotilla-operator \
  --leader-elect=true --leader-election-namespace=flotilla-system \
  --health-probe-bind-address=127.0.0.1:0 --metrics-bind-address=0 \
  --webhook-host=127.0.0.1 --webhook-port=0 --cert-dir=/tmp/k8s-webhook-server/serving-certs \
  --log-format=json --cluster-probe-period=1s >"$WORK/operator-image.log" 2>&1 &
echo $! >"$WORK/operator-image.pid"
pid=$!
disown "$pid"  # killed by the cleanup, without bash reporting it
eventually 20 grep -q 'serving /healthz' "$WORK/operator-image.log" ||
  { e2e_fail "the operator from the image did not start: $(cat "$WORK/operator-image.log")"; exit 1; }
expect_eq "the operator runs as uid 65532" "$(stat -c %u "/proc/$pid")" "65532"
expect_contains "it took the in-cluster service account" "$(cat "$WORK/operator-image.log")" \
  "in-cluster service account"
eventually 30 curl -skf "https://127.0.0.1:$(operator_port image)/readyz" ||
  e2e_fail "the operator from the image never became ready"

# --- The demo workload is scheduled and applied ---
# (in the suite's namespace: on real clusters a fresh one per run)
for f in 00-namespace 02-policy 03-deployment; do cat "$ROOT/config/samples/demo/$f.yaml"; echo ---; done |
  sed -E "s/^(  name|  namespace): demo$/\1: $NS/" | kubectl apply -f - >/dev/null
eventually 30 scheduled web || e2e_fail "web should be scheduled: $(kubectl get rb web -n $NS -o yaml 2>&1)"
member_sum() {
  local m sum=0 r
  for m in member1 member2 member3; do
    r=$(mkubectl $m get deploy web -n $NS -o jsonpath='{.spec.replicas}' 2>/dev/null)
    sum=$((sum + ${r:-0}))
  done
  [[ $sum == 6 ]]
}
eventually 30 member_sum || e2e_fail "web's 6 replicas should be on the members: $(kubectl get rb web -n $NS -o jsonpath='{.spec.clusters}')"
expect_eq "nothing in the operator's log is an error" \
  "$(grep -c '"level":"error"' "$WORK/operator-image.log")" "0"
e2e_summary
