#!/usr/bin/env bash
# bench/against.sh REV [ROUNDS]: the hot paths measured on this checkout and on commit REV in one run, alternating
# (before, after, before, after, ...) so that both see the same machine load. Each tree runs its own embedded
# PostgreSQL (its own data directory and port), so neither reuses the other's databases or migrations.
#   ingest     bench/ingest.ts --n 200000            (verity ingest of 200,000 score records, and the API's)
#   agreement  bench/agreement.ts --entries 1000000  (the agreement report at 10,000 audited items)
#   browse     bench/browse.ts --n 1000000 --only "guardrail any"  (the browser's first page at 1,000,000 entries)
# Each bench prints its own table; this script prints them under a "== <bench> <tree> round <k>" line and keeps the
# full output in bench/.against/<bench>-<tree>-<k>.log. BENCHES="ingest browse" limits the set.
set -euo pipefail
cd "$(dirname "$0")/.."
rev=${1:?usage: bench/against.sh REV [ROUNDS]}
rounds=${2:-2}
benches=${BENCHES:-ingest agreement browse}
out="$PWD/bench/.against"
mkdir -p "$out"
before="$out/tree-$(git rev-parse --short "$rev")"
if [ ! -d "$before" ]; then
  git worktree add --detach "$before" "$rev" >/dev/null
  ln -s "$PWD/node_modules" "$before/node_modules"
  (cd "$before" && npx tsx bin/generate.ts >/dev/null)
fi
declare -A port=([before]=55601 [after]=55602)
declare -A dir=([before]="$before" [after]="$PWD")
run() {
  local bench=$1 tree=$2 k=$3 args
  case $bench in
    ingest) args=(bench/ingest.ts --n 200000) ;;
    agreement) args=(bench/agreement.ts --entries 1000000 --skip-before) ;;
    browse) args=(bench/browse.ts --n 1000000 --only "guardrail any") ;;
    *) echo "unknown bench $bench" >&2; exit 2 ;;
  esac
  echo "== $bench $tree ($(cd "${dir[$tree]}" && git rev-parse --short HEAD)) round $k"
  (cd "${dir[$tree]}" && env -u DATABASE_URL VERITY_DATA_DIR="$out/data-$tree" VERITY_PG_PORT="${port[$tree]}" \
    npx tsx "${args[@]}" 2>&1) | tee "$out/$bench-$tree-$k.log" | grep -E '^\||ratio|/s' || true
}
for k in $(seq 1 "$rounds"); do
  for bench in $benches; do
    run "$bench" before "$k"
    run "$bench" after "$k"
  done
done
