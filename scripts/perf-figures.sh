#!/usr/bin/env bash
# Measures the figures of the broker issue in one run on this machine:
# kafgo perf produce/consume against a kafgo broker and, as a peer baseline,
# the same client against franz-go's in-memory kfake cluster; plus raw
# loopback TCP throughput as the ceiling. Prints a Markdown table with ratios.
#
#   scripts/perf-figures.sh [records-of-100B] [records-of-1KiB]
set -euo pipefail
cd "$(dirname "$0")/.."
N100=${1:-2000000}
N1K=${2:-500000}
go build -o bin/kafgo ./cmd/kafgo
go build -o bin/kfakeserver ./internal/perfbench/kfakeserver
work=$(mktemp -d)
# The brokers are waited for before their data directory goes: one still
# shutting down writes into it while rm walks it.
trap 'kill $(jobs -p) 2>/dev/null || true; wait 2>/dev/null || true; rm -rf "$work"' EXIT

free_port() { /usr/bin/python3 -c 'import socket; s=socket.socket(); s.bind(("127.0.0.1",0)); print(s.getsockname()[1])'; }
KP=$(free_port)
./bin/kafgo broker serve --config examples/dev.yaml --log.dirs "$work/data" --listeners "PLAINTEXT://127.0.0.1:$KP" \
  --admin.listener "" --log-level warn >"$work/broker.log" 2>&1 &
FP=$(free_port)
./bin/kfakeserver -port "$FP" >"$work/kfake.out" 2>&1 &
for _ in $(seq 100); do
  ./bin/kafgo topics --bootstrap-server "127.0.0.1:$KP" --list >/dev/null 2>&1 &&
    ./bin/kafgo topics --bootstrap-server "127.0.0.1:$FP" --list >/dev/null 2>&1 && break
  sleep 0.1
done

ceiling=$(./bin/kfakeserver -loopback-bytes 4294967296)
echo "raw loopback TCP: $ceiling MB/s" >&2

results="$work/results.jsonl"
for target in kafgo kfake; do
  port=$KP; [ "$target" = kfake ] && port=$FP
  for size in 100 1024; do
    n=$N100; [ "$size" = 1024 ] && n=$N1K
    for parts in 1 6; do
      for acks in 1 all; do
        topic="perf-$size-$parts-$acks"
        ./bin/kafgo topics --bootstrap-server "127.0.0.1:$port" --create --topic "$topic" --partitions "$parts" >/dev/null
        p=$(./bin/kafgo perf produce --topic "$topic" --num-records "$n" --record-size "$size" --throughput -1 \
            --producer-props "bootstrap.servers=127.0.0.1:$port" "acks=$acks" --format json)
        c=$(./bin/kafgo perf consume --bootstrap-server "127.0.0.1:$port" --topic "$topic" --messages "$n" --format json)
        echo "{\"target\":\"$target\",\"size\":$size,\"parts\":$parts,\"acks\":\"$acks\",\"produce\":$p,\"consume\":$c}" >>"$results"
        echo "$target size=$size partitions=$parts acks=$acks done" >&2
      done
    done
  done
done

/usr/bin/python3 - "$results" "$ceiling" <<'PY'
import json, sys
rows = [json.loads(l) for l in open(sys.argv[1])]
ceiling = float(sys.argv[2])
by = {(r["target"], r["size"], r["parts"], r["acks"]): r for r in rows}
def cons(r, k):
    c = r["consume"]
    for key in (k, k.replace("_", ".")):
        if key in c: return c[key]
    return float("nan")
print(f"Raw loopback TCP ceiling: {ceiling:.0f} MB/s\n")
print("| record | partitions | acks | kafgo produce rec/s | MB/s | p99 ms | kfake rec/s | kafgo/kfake | kafgo MB/s / ceiling | kafgo consume rec/s | MB/s | kfake consume rec/s | kafgo/kfake |")
print("|---|---|---|---|---|---|---|---|---|---|---|---|---|")
for (t, size, parts, acks), r in sorted(by.items()):
    if t != "kafgo": continue
    f = by[("kfake", size, parts, acks)]
    kp, fp = r["produce"], f["produce"]
    kc, fc = cons(r, "messages_per_sec"), cons(f, "messages_per_sec")
    print(f"| {size} B | {parts} | {acks} | {kp['records_per_sec']:.0f} | {kp['mb_per_sec']:.1f} | {kp['p99']} | {fp['records_per_sec']:.0f} | {kp['records_per_sec']/fp['records_per_sec']:.2f} | {kp['mb_per_sec']/ceiling:.3f} | {kc:.0f} | {cons(r,'mb_per_sec'):.1f} | {fc:.0f} | {kc/fc:.2f} |")
PY
