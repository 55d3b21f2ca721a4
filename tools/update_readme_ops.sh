#!/usr/bin/env bash
# Regenerates the "Supported ops" list in README.md from the op registry
# (`graphrt ops`). tests/tools:readme_ops_test fails when they disagree.
set -euo pipefail
cd "$(dirname "$0")/.."
bazel build --config=opt //tools:graphrt >/dev/null
ops="$(bazel-bin/tools/graphrt ops)"
python3 - "$ops" <<'PY'
import re, sys
ops = sys.argv[1].split()
text = open("README.md").read()
body = f"{len(ops)} ops: " + ", ".join(f"`{o}`" for o in ops) + "\n"
new = re.sub(r"(<!-- ops:begin -->\n).*?(<!-- ops:end -->)",
             lambda m: m.group(1) + body + m.group(2), text, flags=re.S)
open("README.md", "w").write(new)
PY
echo "README.md: $(echo "$ops" | wc -l) ops"
