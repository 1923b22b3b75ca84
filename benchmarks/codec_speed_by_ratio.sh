#!/bin/sh
# Instructions per input byte of each host codec against the compression ratio of generated
# content (fio-style chunks of random bytes and zeros, as the content model makes them), and
# on real text (the GCIDE dictionary, where the host MB/s defaults were measured). Instruction
# counts (valgrind's callgrind) do not depend on other load on the machine; the host cost
# model scales its measured MB/s by instructions(ratio) / instructions(text)
# (`codec::cost::ratio_factor`). Usage: benchmarks/codec_speed_by_ratio.sh [CODEC...]
set -eu
cd "$(dirname "$0")/.."
cargo build --release -q -p flashpress-core --example codec_speed_by_ratio
bin=target/release/examples/codec_speed_by_ratio
text=${FLASHPRESS_TESTDATA:-target/testdata}/gcide.dict
out=$(mktemp -d)
trap 'rm -rf "$out"' EXIT
bytes=$((16384 * 512))
for codec in ${*:-lz4 zstd-1 zstd-3 deflate-6}; do
    for r in "file:$text" 1 1.5 2 3 4 6 8; do
        for fn in run_comp run_dec; do
            valgrind --tool=callgrind --callgrind-out-file="$out/cg" --collect-atstart=no \
                "--toggle-collect=*codec_speed_by_ratio*$fn*" "$bin" "$codec" 512 1 "$r" \
                >"$out/json" 2>/dev/null
            n=$(sed -n 's/^summary: //p' "$out/cg")
            printf '%s %s %s %s %s\n' "$codec" "${r#file:*/}" "$fn" \
                "$(echo "scale=2; $n / $bytes" | bc)" "$(sed -n 's/.*"ratio": \([0-9.]*\).*/\1/p' "$out/json")"
        done
    done
done
