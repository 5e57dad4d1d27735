#!/usr/bin/env bash
# The certificates, keys and tokens of a dedicated host control plane (config/host-control-plane,
# docs/install.md "A dedicated host control plane"):
#   scripts/host-control-plane-pki.sh DIR
# writes into DIR (created 0700; run it once, keep DIR safe, it holds the CA key):
#   ca.crt ca.key            the host's CA (ten years); the key stays here, never in the cluster
#   apiserver.crt/.key       kube-apiserver's serving pair: the Service's names, localhost, 127.0.0.1
#   sa.key sa.pub            ServiceAccount token signing
#   tokens.csv               --token-auth-file: user admin (system:masters), the controller-manager
#   controller-manager.kubeconfig   the controller-manager's, over the pod's loopback
#   admin.kubeconfig         yours: https://127.0.0.1:6443 (kubectl port-forward), user admin
#   flotilla-host-pki.yaml   the Secret the control plane mounts (everything above but ca.key and
#                            admin.kubeconfig): kubectl apply -f it into namespace flotilla-host
# Re-running with an existing DIR refuses (new keys would lock out every client of the old ones).
#   scripts/host-control-plane-pki.sh --renew DIR
# re-issues only the serving pair (valid a year) with the same CA and rewrites the Secret's
# manifest: apply it and restart the pod (kubectl -n flotilla-host delete pod flotilla-host-0)
# before apiserver.crt expires (openssl x509 -enddate -noout -in DIR/apiserver.crt).
set -euo pipefail
RENEW=
[[ ${1:-} == --renew ]] && { RENEW=1; shift; }
DIR=${1:?usage: host-control-plane-pki.sh [--renew] DIR}
NS=flotilla-host
SERVICE=flotilla-host-apiserver
if [[ -n $RENEW && ! -e $DIR/ca.key ]]; then
  echo "host-control-plane-pki.sh: --renew: $DIR holds no PKI (ca.key)" >&2
  exit 1
fi
if [[ -z $RENEW && -e $DIR/ca.key ]]; then
  echo "host-control-plane-pki.sh: $DIR already holds a PKI (ca.key); use another directory," \
    "or --renew to re-issue the serving certificate" >&2
  exit 1
fi
command -v openssl >/dev/null || { echo "host-control-plane-pki.sh: openssl is missing" >&2; exit 1; }
mkdir -p "$DIR"
chmod 700 "$DIR"
cd "$DIR"
umask 077
quiet() { "$@" >/dev/null 2>&1 || { echo "host-control-plane-pki.sh: failed: $*" >&2; exit 1; }; }

[[ -n $RENEW ]] || quiet openssl req -x509 -newkey rsa:2048 -nodes -keyout ca.key -out ca.crt \
  -days 3650 -subj "/CN=flotilla-host-ca"
cat >apiserver.ext <<EOF
basicConstraints=CA:FALSE
keyUsage=digitalSignature,keyEncipherment
extendedKeyUsage=serverAuth
subjectAltName=DNS:$SERVICE,DNS:$SERVICE.$NS,DNS:$SERVICE.$NS.svc,DNS:$SERVICE.$NS.svc.cluster.local,DNS:localhost,DNS:kubernetes,DNS:kubernetes.default,DNS:kubernetes.default.svc,IP:127.0.0.1,IP:10.0.0.1
EOF
quiet openssl req -newkey rsa:2048 -nodes -keyout apiserver.key -out apiserver.csr \
  -subj "/CN=flotilla-host-apiserver"
quiet openssl x509 -req -in apiserver.csr -CA ca.crt -CAkey ca.key -CAcreateserial \
  -out apiserver.crt -days 365 -extfile apiserver.ext
rm -f apiserver.csr apiserver.ext ca.srl
if [[ -z $RENEW ]]; then
quiet openssl genrsa -out sa.key 2048
quiet openssl rsa -in sa.key -pubout -out sa.pub

admin=$(openssl rand -hex 24)
kcm=$(openssl rand -hex 24)
{
  echo "$admin,admin,admin,\"system:masters\""
  echo "$kcm,system:kube-controller-manager,kube-controller-manager"
} >tokens.csv
kubeconfig() {  # kubeconfig SERVER USER TOKEN
  cat <<EOF
apiVersion: v1
kind: Config
clusters: [{name: flotilla-host, cluster: {server: "$1", certificate-authority-data: "$(base64 -w0 ca.crt)"}}]
users: [{name: $2, user: {token: "$3"}}]
contexts: [{name: $2@flotilla-host, context: {cluster: flotilla-host, user: $2}}]
current-context: $2@flotilla-host
EOF
}
kubeconfig https://127.0.0.1:6443 system:kube-controller-manager "$kcm" >controller-manager.kubeconfig
kubeconfig https://127.0.0.1:6443 admin "$admin" >admin.kubeconfig
fi

{
  echo "apiVersion: v1"
  echo "kind: Secret"
  echo "metadata: {name: flotilla-host-pki, namespace: $NS}"
  echo "type: Opaque"
  echo "data:"
  for f in ca.crt apiserver.crt apiserver.key sa.key sa.pub tokens.csv controller-manager.kubeconfig; do
    echo "  $f: $(base64 -w0 "$f")"
  done
} >flotilla-host-pki.yaml
echo "host PKI in $DIR. Next (docs/install.md \"A dedicated host control plane\"):"
echo "  kubectl create namespace $NS && kubectl apply -f $DIR/flotilla-host-pki.yaml"
echo "  kubectl apply -k config/host-control-plane"
