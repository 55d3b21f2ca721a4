#!/usr/bin/env bash
# Installs the golden generator's pinned TensorFlow.js packages (exactly the
# versions in package-lock.json, via `npm ci`) into a cache directory outside
# the source tree and prints the node_modules path:
#
#   tools/golden/setup.sh            # -> /root/.cache/graphrt/golden-node/node_modules
#   node tools/golden/golden.js ...  # finds the modules there by itself
#
# Cache dir: $GRAPHRT_CACHE/golden-node, default $HOME/.cache/graphrt/golden-node.
# Re-running is cheap: the install is skipped while the cached lock file's
# hash matches tools/golden/package-lock.json. Progress goes to stderr; the
# only stdout line is the node_modules path (NODE_PATH=$(setup.sh) works).
set -euo pipefail

here="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)"
cache="${GRAPHRT_CACHE:-${HOME}/.cache/graphrt}"
dest="${cache}/golden-node"
stamp="${dest}/.installed-lock-sha256"

for tool in node npm sha256sum; do
  if ! command -v "${tool}" >/dev/null 2>&1; then
    echo "setup.sh: ${tool} not found (need Node.js >= 18 with npm)" >&2
    exit 1
  fi
done

want="$(sha256sum "${here}/package-lock.json" | cut -d' ' -f1)"
if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${want}" &&
      -d "${dest}/node_modules/@tensorflow/tfjs-core" ]]; then
  echo "setup.sh: TF.js packages already installed in ${dest}" >&2
else
  echo "setup.sh: installing pinned TF.js packages into ${dest}" >&2
  mkdir -p "${dest}"
  rm -f "${stamp}"
  cp "${here}/package.json" "${here}/package-lock.json" "${dest}/"
  # npm ci: exactly the lock file's versions, refuses a lock that does not
  # match package.json, removes any previous node_modules first.
  (cd "${dest}" && npm ci --no-audit --no-fund --loglevel=error >&2)
  echo "${want}" > "${stamp}"
fi

echo "${dest}/node_modules"
