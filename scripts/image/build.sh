#!/usr/bin/env bash
# `npm run image [-- --local-base]`: builds Blockyard's image (Containerfile) and the compose topology's
# infra image (Postgres 15, Redis, haproxy: deploy/containers/infra.Containerfile), then prints their sizes.
#   BASE_IMAGE   the Node 22 base (default docker.io/library/node:22-bookworm-slim)
#   --local-base build that base here instead, without a registry (scripts/image/local-base.sh)
#   CONTAINER_ENGINE  podman (default when installed) or docker
set -euo pipefail
cd "$(dirname "${BASH_SOURCE[0]}")/../.."

ENGINE="${CONTAINER_ENGINE:-$(command -v podman >/dev/null && echo podman || echo docker)}"
command -v "$ENGINE" >/dev/null || { echo "image: neither podman nor docker is installed" >&2; exit 1; }
BASE="${BASE_IMAGE:-docker.io/library/node:22-bookworm-slim}"
for arg in "$@"; do
  case "$arg" in
    --local-base)
      BASE="localhost/blockyard-node:22"
      bash scripts/image/local-base.sh "$BASE"
      ;;
    *) echo "image: unknown option $arg (only --local-base)" >&2; exit 2 ;;
  esac
done
VERSION="$(node -p "require('./package.json').version")"
# podman writes OCI images unless asked: Docker's format keeps the HEALTHCHECK.
FORMAT=()
[ "$ENGINE" = podman ] && FORMAT=(--format docker)

build() {
  local name="$1" file="$2" start=$SECONDS
  shift 2
  "$ENGINE" build "${FORMAT[@]}" --build-arg "BASE_IMAGE=$BASE" -f "$file" "$@" .
  echo "$name $((SECONDS - start))" >>"$TIMES"
}
TIMES="$(mktemp)"
trap 'rm -f "$TIMES"' EXIT
build blockyard Containerfile -t localhost/blockyard:latest -t "localhost/blockyard:$VERSION"
build blockyard-infra deploy/containers/infra.Containerfile -t localhost/blockyard-infra:latest

printf '\n%-34s %10s %8s\n' image size build
while read -r name seconds; do
  bytes="$("$ENGINE" image inspect --format '{{.Size}}' "localhost/$name:latest")"
  printf '%-34s %7d MB %7ds\n' "localhost/$name:latest" "$((bytes / 1000000))" "$seconds"
done <"$TIMES"
printf 'base: %s\n' "$BASE"
