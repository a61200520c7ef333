# CLI cases (issue 23): precision fallback, percentiles, load-curve shape, the property suite. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.

# --- precision fallback: a precision the chip lacks runs at the nearest wider one it has, and says so
check prec-fp16-on-tpu-runs-bf16 0 '"run_precision":	"bf16"' -- $R eval -s tpu-v5p -w megatron-1t-train --format json
check prec-fp16-on-tpu-note 0 '"precision_note":	"tpu-v5p has no fp16 matrix rate; bf16 is the nearest wider precision it has"' -- $R eval -s tpu-v5p -w megatron-1t-train --format json
check prec-fp16-on-tpu-text 0 'fp16, runs at bf16 (dense peak 459 TFLOP/s per chip): tpu-v5p has no fp16 matrix rate' -- $R eval -s tpu-v5p -w megatron-1t-train
check prec-fp16-on-v6e 0 '"run_precision":	"bf16"' -- $R eval -s tpu-v6e -w gpt3-175b-train --set precision=fp16 --format json
check_not prec-same-has-no-note 0 'precision_note' -- $R eval -s p5.48xlarge -w llama3-70b-serve --format json
check prec-fp32-on-tpu-infeasible 0 'feasible         no: tpu-v5p has no fp32 matrix rate nor a wider one' -- $R eval -s tpu-v5p -w llama3-8b-train --set precision=fp32
# The TPUs ranked first to fourth at MFU 0.0 % (a peak of 0); no row of the compare has MFU 0 now.
check_not prec-compare-no-zero-mfu 0 ' 0.0      97' -- $R compare -w megatron-1t-train -s all
check_sh prec-compare-tpus-below-1 "$R compare -w megatron-1t-train -s all --format json | grep '\"mfu\":[[:space:]]*[0-9]' | sed 's/.*: *//; s/,//' | awk '{ if (\$1 <= 0 || \$1 >= 1) bad = 1 } END { exit bad }'"

# --- load curves that never bend back (closed loop of clients; GEMM tiles that a library picks)
# p5.48xlarge, Llama 3 70B: TTFT at 8 in flight was below TTFT at 4 (317.8 -> 235.4 ms).
check_sh curve-ttft-grows-4-to-8 "$R eval -s p5.48xlarge -w llama3-70b-serve --set concurrency=1024 --loads 4,8 --format json | grep '\"ttft_ms\"' | tail -2 | sed 's/.*: *//; s/,//' | awk 'NR == 1 { a = \$1 } NR == 2 { exit !(\$1 >= a) }'"
# mi300x-8: throughput fell by a third from 256 to 320 in flight (3,759 -> 2,462 tokens/s).
check_sh curve-mi300x-256-to-320 "$R eval -s mi300x-8 -w llama3-70b-serve --set concurrency=1024 --loads 256,320 --format json | grep '\"tokens_per_s\"' | tail -2 | sed 's/.*: *//; s/,//' | awk 'NR == 1 { a = \$1 } NR == 2 { exit !(\$1 >= a) }'"
# Where the stack's peer-to-peer all-reduce gives way to the library's, the curve says so.
check curve-states-the-allreduce-step 0 "tensor-parallel all-reduce passes the 8 MiB the stack's peer-to-peer kernels take" -- $R eval -s dgx-a100-80g -w llama2-70b-serve --loads 186,210
# --- percentiles from one law: no p99 below its mean in the default serving compare
check_sh compare-p99-at-or-above-mean "$R compare -w llama3-70b-serve -s all --format json | grep -E '\"ttft_(ms|p99_ms)\":[[:space:]]*[0-9]' | sed 1d | sed 's/.*: *//; s/,//' | awk 'NR % 2 == 1 { m = \$1 } NR % 2 == 0 && \$1 < m { bad = 1 } END { exit bad }'"
