#!/usr/bin/env bash
# Builds the operator's container image as an archive, with Debian's tools and no container daemon:
#   scripts/build-image.sh BINARY OUT.tar [IMAGE-REFERENCE]
# (`make image` runs it: build/flotilla-operator-image.tar.) The reference defaults to the one
# config/manager names (images: newName:newTag).
#
# The root filesystem holds exactly what the operator runs with (docs/install.md "The image"):
#   - the stripped binary, /usr/local/bin/flotilla-operator (the entrypoint), user 65532:65532;
#   - the shared libraries it links (ldd's closure: glibc, libstdc++, OpenSSL, Boost.JSON/URL,
#     yaml-cpp, spdlog, fmt), taken from this machine's Debian 12 packages -- the very files the
#     binary was built and tested against -- with each package's copyright file and its dpkg
#     status entry (/var/lib/dpkg/status.d/, as distroless images carry, so scanners see them);
#   - /usr/bin/sleep (config/manager's preStop hook runs `sleep 5`);
#   - Debian's CA bundle (a member kubeconfig without certificate-authority-data is verified
#     against the public roots), /etc/passwd and /etc/group naming root and nonroot, /tmp.
# The archive is an OCI image layout (oci-layout, index.json, blobs/) written by umoci, plus the
# manifest.json of `docker save`'s format pointing at the same blobs, so one file loads with
# `docker load`, `podman load`, `kind load image-archive`, `ctr images import` and skopeo.
# Reproducible: every timestamp is the last commit's (SOURCE_DATE_EPOCH when set).
set -euo pipefail

BINARY=${1:?usage: build-image.sh BINARY OUT.tar [IMAGE-REFERENCE]}
OUT=${2:?usage: build-image.sh BINARY OUT.tar [IMAGE-REFERENCE]}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
if [[ -z ${3:-} ]]; then
  kust=$ROOT/config/manager/kustomization.yaml
  name=$(sed -n 's/^ *newName: *//p' "$kust")
  tag=$(sed -n 's/^ *newTag: *//p' "$kust")
  [[ -n $name && -n $tag ]] || { echo "build-image.sh: no newName/newTag in $kust" >&2; exit 1; }
  REF=$name:$tag
else
  REF=$3
fi
TAG=${REF##*:}

for tool in umoci ldd strip dpkg-query tar sha256sum python3; do
  command -v "$tool" >/dev/null ||
    { echo "build-image.sh: $tool is missing (make deps installs umoci; the rest are Debian 12's)" >&2; exit 1; }
done
[[ -x $BINARY ]] || { echo "build-image.sh: $BINARY is not an executable (make image builds it)" >&2; exit 1; }
EPOCH=${SOURCE_DATE_EPOCH:-$(git -C "$ROOT" log -1 --format=%ct 2>/dev/null || echo 0)}
CREATED=$(date -u -d "@$EPOCH" +%Y-%m-%dT%H:%M:%SZ)

WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT
FS=$WORK/rootfs
# Debian 12's merged /usr: /lib, /lib64, /bin and /sbin are links into /usr.
mkdir -p "$FS"/usr/{bin,sbin,lib/x86_64-linux-gnu,lib64,local/bin} "$FS"/etc/ssl/certs \
  "$FS"/var/lib/dpkg/status.d "$FS"/usr/share/doc "$FS"/home/nonroot "$FS"/tmp
for d in bin sbin lib lib64; do ln -s usr/$d "$FS/$d"; done
chmod 1777 "$FS/tmp"
# As root the layer records real owners; otherwise umoci maps the builder to root (--rootless)
# and /home/nonroot stays root's (nothing writes there: the root filesystem is read-only).
ROOTLESS=()
if [[ $(id -u) == 0 ]]; then chown 65532:65532 "$FS/home/nonroot"; else ROOTLESS=(--rootless); fi

strip -o "$FS/usr/local/bin/flotilla-operator" "$BINARY"
install -m 0755 /usr/bin/sleep "$FS/usr/bin/sleep"

# The shared libraries: every path ldd resolves for the binary and sleep, copied under the name
# the loader asks for (the file itself, not the chain of version links).
declare -A PACKAGES=()
add_file() {  # add_file PATH: copies PATH (resolved) into the root at PATH; records its package
  local path=$1 real pkg
  real=$(readlink -f "$path")
  local target=$FS/usr${path#/usr}  # /lib/x/libc.so.6 -> usr/lib/x/libc.so.6
  mkdir -p "$(dirname "$target")"
  cp -L "$real" "$target"
  pkg=$(dpkg-query -S "$real" 2>/dev/null || dpkg-query -S "${real#/usr}" 2>/dev/null || true)
  pkg=${pkg%%:*}
  [[ -n $pkg ]] && PACKAGES[$pkg]=1
  return 0
}
while read -r path; do
  add_file "$path"
done < <(ldd "$BINARY" /usr/bin/sleep | grep -o '/[^ ]*\.so[^ ]*' | sort -u)
add_file /usr/bin/sleep
[[ -f /etc/ssl/certs/ca-certificates.crt ]] && {
  cp /etc/ssl/certs/ca-certificates.crt "$FS/etc/ssl/certs/"
  PACKAGES[ca-certificates]=1
}
for pkg in "${!PACKAGES[@]}"; do
  dpkg-query -s "$pkg" >"$FS/var/lib/dpkg/status.d/$pkg"
  [[ -f /usr/share/doc/$pkg/copyright ]] &&
    install -D -m 0644 "/usr/share/doc/$pkg/copyright" "$FS/usr/share/doc/$pkg/copyright"
done

cat >"$FS/etc/passwd" <<'EOF'
root:x:0:0:root:/root:/sbin/nologin
nonroot:x:65532:65532:nonroot:/home/nonroot:/sbin/nologin
EOF
cat >"$FS/etc/group" <<'EOF'
root:x:0:
nonroot:x:65532:
EOF
echo 'hosts: files dns' >"$FS/etc/nsswitch.conf"
find "$FS" -exec touch -h -d "@$EPOCH" {} +

# The OCI layout: one layer holding the root, the configuration the Deployment expects.
LAYOUT=$WORK/oci
umoci init --layout "$LAYOUT"
umoci new --image "$LAYOUT:$TAG"
umoci insert "${ROOTLESS[@]}" --image "$LAYOUT:$TAG" --history.created "$CREATED" \
  --history.created_by "scripts/build-image.sh" "$FS" / >/dev/null
umoci config --image "$LAYOUT:$TAG" --created "$CREATED" --history.created "$CREATED" \
  --architecture amd64 --os linux --config.user 65532:65532 \
  --config.entrypoint /usr/local/bin/flotilla-operator --config.workingdir / \
  --config.env PATH=/usr/local/bin:/usr/bin \
  --config.label org.opencontainers.image.title=flotilla-operator \
  --config.label "org.opencontainers.image.revision=$(git -C "$ROOT" rev-parse HEAD 2>/dev/null || echo unknown)"
umoci gc --layout "$LAYOUT"

# index.json names the image by its full reference for containerd (ctr, kind); manifest.json is
# docker save's format for docker load and podman load's docker-archive path.
python3 - "$LAYOUT" "$REF" <<'PY'
import json, sys
layout, ref = sys.argv[1], sys.argv[2]
with open(f"{layout}/index.json") as f:
    index = json.load(f)
for m in index["manifests"]:
    m.setdefault("annotations", {})["io.containerd.image.name"] = ref
    m["annotations"]["org.opencontainers.image.ref.name"] = ref.rsplit(":", 1)[1]
    digest = m["digest"].split(":", 1)[1]
with open(f"{layout}/blobs/sha256/{digest}") as f:
    manifest = json.load(f)
def blob(d): return "blobs/sha256/" + d["digest"].split(":", 1)[1]
docker = [{"Config": blob(manifest["config"]), "RepoTags": [ref],
           "Layers": [blob(l) for l in manifest["layers"]]}]
with open(f"{layout}/index.json", "w") as f:
    json.dump(index, f, separators=(",", ":"))
with open(f"{layout}/manifest.json", "w") as f:
    json.dump(docker, f, separators=(",", ":"))
PY
find "$LAYOUT" -exec touch -h -d "@$EPOCH" {} +
mkdir -p "$(dirname "$OUT")"
tar --sort=name --mtime="@$EPOCH" --owner=0 --group=0 --numeric-owner --mode=a+rX -C "$LAYOUT" \
  -cf "$OUT.tmp" oci-layout index.json manifest.json blobs
mv "$OUT.tmp" "$OUT"
size=$(du -k "$OUT" | cut -f1)
echo "image $REF: $OUT (${size} KiB; $(find "$FS" -type f | wc -l) files from ${#PACKAGES[@]} Debian packages)"
