#!/usr/bin/env bash
# The README's "Supported ops" list must equal the registry (`graphrt ops`).
# Fix with: bash tools/update_readme_ops.sh
set -euo pipefail
GRAPHRT="$1"
README="$2"
want="$("$GRAPHRT" ops | sort)"
have="$(sed -n '/<!-- ops:begin -->/,/<!-- ops:end -->/p' "$README" |
        grep -o '`[^`]*`' | tr -d '`' | sort)"
if [ "$want" != "$have" ]; then
  echo "README ops list is stale; run tools/update_readme_ops.sh"
  diff <(echo "$want") <(echo "$have") | head -40
  echo "0 passed, 1 failed"
  exit 1
fi
echo "1 passed, 0 failed"
