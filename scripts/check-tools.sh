#!/usr/bin/env bash
# The tools `make run` and `make test` use that Debian 12 does not ship in a usable version:
# kubectl 1.24 or newer (`kubectl create token`; Debian 12's kubernetes-client is 1.20) and curl.
# Says exactly what is missing and where to get it; exit 1 when something is. `make deps` runs it
# as a warning, `make test` and scripts/demo.sh (`make run`) as a requirement.
set -uo pipefail
missing=0
if ! command -v curl >/dev/null; then
  echo "deps: curl is not on PATH: apt-get install curl" >&2
  missing=1
fi
if ! command -v kubectl >/dev/null; then
  echo "deps: kubectl (1.24 or newer) is not on PATH. Debian 12's kubernetes-client (1.20) is too" >&2
  echo "      old; install the binary from https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/" >&2
  echo "      (or pkgs.k8s.io's apt repository) and put it on PATH" >&2
  missing=1
else
  minor=$(kubectl version --client -o json 2>/dev/null | sed -n 's/.*"minor": *"\([0-9]*\).*/\1/p' | head -1)
  major=$(kubectl version --client -o json 2>/dev/null | sed -n 's/.*"major": *"\([0-9]*\).*/\1/p' | head -1)
  if [[ -z $minor || -z $major ]] || ((major < 1 || (major == 1 && minor < 24))); then
    echo "deps: kubectl $(command -v kubectl) is version ${major:-?}.${minor:-?}; 1.24 or newer is needed" >&2
    echo "      (kubectl create token). Install it from https://kubernetes.io/docs/tasks/tools/install-kubectl-linux/" >&2
    missing=1
  fi
fi
((missing == 0)) && echo "deps: kubectl $(kubectl version --client -o json | sed -n 's/.*"gitVersion": *"\([^"]*\)".*/\1/p' | head -1) and curl found"
exit $missing
