# CLI cases (issue 17): calibration, run settings, out-of-sample error, intervals. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C, $V (tests/validation/public.csv) and $tmp.

# --- the published measurements: the project's copy is the shared file, byte for byte
if [ -f ../shared/data/validation/public.csv ] && ! cmp -s ../shared/data/validation/public.csv $V; then
	echo "FAIL validation-copy: tests/validation/public.csv differs from ../shared/data/validation/public.csv"; fail=$((fail + 1))
else
	pass=$((pass + 1))
fi
# Every row predicted (none skipped), within what the model reaches on the 288 rows today
# (issue 17 asks training median <= 8 %, worst <= 30 %; serving <= 10 %, <= 45 %). Training:
# median 4.8 %, worst 23.3 % (MaxText Llama 2 7B on 16 A3 nodes: GPUDirect-TCPX, whose collective
# efficiency no source measures; 22.5 % torchtitan Llama 3.1 8B TP8 async TP; see the issue 17
# report); serving: 4.4 %, 43.7 % (MLPerf v4.1 B200 Server TTFT: the model's server at the highest
# load meeting the limits sits at its KV cache's admission edge, a few requests waiting; 42.2 % the
# v4.1 H200 Server TPOT, whose run stopped at 101.25 scheduled queries/s with p99 TPOT 146 ms and
# TTFT 453 ms, below both limits, where the model runs to the TPOT limit). The MLPerf open-loop
# rows take their dataset's request lengths, models/datasets.ini, whose spread sets how far below
# the limit the mean TPOT sits.
# Tightened as fidelity improves.
check validate-all-rows 0 "all   n=288 skipped=0" -- $R validate $V
check validate-train-thresholds 0 "" -- $R validate $V --check-train 5:24
check validate-infer-thresholds 0 "" -- $R validate $V --check-infer 4.5:44
# No framework with 5 rows or more is biased beyond 8 % either way (in sample). AMD's MLPerf
# harness is two builds of 4 rows (vllm-mlperf-amd-v4.1.ini, 2024; vllm-mlperf-amd.ini, v5.0): its
# Server rows' TPOT (-11 %, -22 %) is the mean below the p99 limit that OpenOrca's lengths set
# (models/datasets.ini; the runs' p99 is 39 % and 25 % above their means; the
# MI325X's curve is the MI300X's moved to its rates: measured_on). vLLM V0 (vllm-v0.ini, the OCI rows) is at
# +0.6 % with its host work fitted on its own rows; vLLM (V1) +0.6 % on its 9.
check_sh validate-framework-bias "$R validate $V --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)[\"summary\"]
for k in (\"train_groups\", \"infer_groups\"):
    for name, g in d[k][\"by_framework\"].items():
        assert g[\"n\"] < 5 or abs(g[\"signed_median_error_pct\"]) <= 8, (name, g[\"signed_median_error_pct\"])
' || ! command -v python3 >/dev/null"
# The harness's two builds have 4 rows each: their 8 rows together are held to the same bound.
check_sh validate-amd-harness-bias "$R validate $V --format csv | python3 -c '
import csv, statistics, sys
r = [float(x[\"error_pct\"]) for x in csv.DictReader(sys.stdin) if x[\"case_id\"].startswith((\"MLPI41-AMD\", \"MLPI50-AMD\"))]
assert len(r) == 8 and abs(statistics.median(r)) <= 8, r
' || ! command -v python3 >/dev/null"
check validate-train-fails 3 "training rows miss the check" -- $R validate $V --check-train 1:5
# Out of sample (DESIGN §6 out_of_sample): every calibrated value refitted without the rows of
# the case's own source document (25 source groups), then those rows predicted; a version's values
# fitted on its own rows ([serve] fitted) go back to its base stack's. Issue 17: the medians within
# 10 % (training) and 12 % (serving). Today: training 8.0 %, worst 34.7 % (MaxText on TPU v6e, whose
# stack share has no other rows to fall back on); serving 5.2 %, 46.8 % (vLLM V0 on MI300X, OCI:
# its host work per step, fitted on its own rows, goes back to vLLM's).
check validate-oos-headline 0 "out of sample: each of 25 sources left out" -- $R validate $V
check validate-oos-train 0 "" -- $R validate $V --check-oos-train 8.5:35
check validate-oos-infer 0 "" -- $R validate $V --check-oos-infer 5.3:47
check validate-oos-fails 3 "training rows out of sample miss the check" -- $R validate $V --check-oos-train 1:5
check validate-oos-json 0 '"by":	"source"' -- $R validate $V --format json
check validate-oos-case 0 '"source_group":	"megatron-sc21"' -- $R validate $V --format json
check validate-by-source 0 "train by source:" -- $R validate $V
# --fit says which rows (by source document) fed each value.
check validate-fit-rows 0 "    llm-foundry-benchmarks                    38 rows" -- $R validate $V --fit
# Two levels: a chip-level value is fitted across two stacks or more; what one stack holds is in
# its framework file, and the rows of its version's source documents are predicted with it.
check validate-fit-levels 0 "fitted 0." -- $R validate $V --fit
check_not validate-fit-one-stack 0 "(one stack:" -- $R validate $V --fit
check validate-fit-stack-level 0 "nemo-mlperf@hopper" -- $R validate $V --fit
check validate-version 0 "framework nemo-mlperf (models/frameworks/nemo-mlperf.ini)" -- $R validate $V --explain MLPT50-405B-NV-EOS-H100-512
# vLLM by version: the OCI rows (October 2024) ran V0 (vllm-v0.ini: 256 sequences, a 512-token
# chunked budget for Llama 3.1's 128K context, the scheduler between steps); the rest are V1's.
check validate-version-vllm0 0 "framework vllm-v0 (models/frameworks/vllm-v0.ini)" -- $R validate $V --explain OCI-MI300X-L31-405B-TP8-128x128-BS8
check validate-version-vllm1 0 "framework vllm (models/frameworks/vllm.ini)" -- $R validate $V --explain AMDPERF-MI300X-L31-70B-TP8-128x2048-BS2
# vLLM V0's host work between steps (iter_overhead, seq_overhead) is fitted on the OCI rows, its
# own ([serve] fitted): in sample they hold it, out of sample vLLM's (none) stands.
check validate-fitted-oos 0 "vllm-v0 [serve] iter_overhead, seq_overhead at vllm's (fitted on its own rows)" -- $R validate $V
check_sh validate-fitted-in-sample "$R validate $V | awk '/^  vllm-v0  / && \$2 ~ /^[0-9]+$/ { b = \$6; o = \$13 } END { sub(/%/, \"\", b); exit !(b + 0 > -8 && b + 0 < 8 && o + 0 > 15) }'"
mkdir -p "$tmp/fw"
printf '[framework]\nname = v0-bad\ndisplay = x\nbased_on = vllm\nsource_groups = g\nsource = s\nas_of = 2025\n\n[serve]\nfitted = source\nsource = s\nas_of = 2025\n' > "$tmp/fw/v0-bad.ini"
check fitted-bad-key 1 "v0-bad.ini:10: fitted: 'source' is not a number or choice of [serve]" -- $R eval -s mi300x-8 -w llama3-70b-serve --framework "$tmp/fw/v0-bad.ini"
printf '[framework]\nname = v0-nogroup\ndisplay = x\nbased_on = vllm\nsource = s\nas_of = 2025\n\n[serve]\nfitted = iter_overhead\nsource = s\nas_of = 2025\n' > "$tmp/fw/v0-nogroup.ini"
check fitted-needs-groups 1 "v0-nogroup.ini:9: fitted: names keys fitted on a version's own rows: needs based_on and source_groups" -- $R eval -s mi300x-8 -w llama3-70b-serve --framework "$tmp/fw/v0-nogroup.ini"
check fitted-not-a-setting 2 "--set serve.fitted: what the file fitted on its rows, not a run's" -- $R eval -s mi300x-8 -w llama3-70b-serve --framework vllm-v0 --set serve.fitted=iter_overhead
# AMD's MLPerf harness (vllm-mlperf-amd.ini): the v4.1 and v5.0 rows whose cell is vllm; its batcher
# sends each GPU a 0.3 s window of queries at once (22 prompts every 2.4 s at the model's v4.1 load),
# so the mean TTFT is the window's wait, the decode under way and that batch's prefill pass: 1073 ms
# against 1006 measured (was 486), MI325X 1083 against 1060 (was 486). The v4.1 rows ran the 2024
# build (vllm-mlperf-amd-v4.1.ini: ROCm 6.1.2, its GEMM share fitted on its own throughput rows).
check validate-version-amd 0 "framework vllm-mlperf-amd (models/frameworks/vllm-mlperf-amd.ini)" -- $R validate $V --explain MLPI50-AMD-MI325Xx8-L2-70B-99.9-SERVER
check validate-version-amd-v41 0 "framework vllm-mlperf-amd-v4.1 (models/frameworks/vllm-mlperf-amd-v4.1.ini)" -- $R validate $V --explain MLPI41-AMD-MI300Xx8-SERVER
check validate-amd-batcher 0 "a batcher sends each replica 22 prompts every 2.40 s (300 ms windows: a request waits 150 ms on average)" -- \
	$R validate $V --explain MLPI41-AMD-MI300Xx8-SERVER
check validate-fitted-oos-amd 0 "vllm-mlperf-amd-v4.1 [serve] gemm_share at vllm-mlperf-amd's (fitted on its own rows)" -- $R validate $V
# The latency rows of a server case are predicted at the highest load meeting the limits; --explain
# also gives the model's server at the run's own load (its throughput row over output_len).
check validate-at-run-load 0 "at the run's load (not what the row is predicted at): server: 74.5 requests/s, the workload's arrival_rate" -- \
	$R validate $V --explain MLPI41-NV-H100x8-SERVER
check validate-at-run-load-json 0 '"at_run_load":' -- $R validate $V --explain MLPI41-NV-H100x8-SERVER --format json
{ head -1 $V; grep -E '^MLPI(41|50)-AMD-.*-SERVER,.*,ttft_ms,' $V; } > "$tmp/amd-ttft.csv"
check validate-amd-ttft 0 "infer n=2 skipped=0" -- $R validate "$tmp/amd-ttft.csv" --check-infer 8:8
# The 51 serving rows of the first release (MLPerf v4.1, TensorRT-LLM perf-overview, AWS Neuron).
{ head -1 $V; grep -E '^(MLPI41|TRTLLM|NEU)-' $V; } > "$tmp/old51.csv"
check validate-infer-old51 0 "infer n=51 skipped=0" -- $R validate "$tmp/old51.csv" --check-infer 18:60

# --- run settings (DESIGN §7 `settings`): a row's cell is set over its framework file
check settings-picked 0 "settings overlap.tp=1" -- $R validate $V --explain TT-H100-L31-70B-256G-FSDP32-ASYNCTP8-FP8
# The same row without its cell is predicted as torchtitan's default (async TP off): the
# prediction moves (the setting is applied, not only printed).
{ head -1 $V; grep '^TT-H100-L31-70B-256G-FSDP32-ASYNCTP8-FP8,' $V; } > "$tmp/set.csv"
sed 's/,overlap\.tp=1,/,,/' "$tmp/set.csv" > "$tmp/unset.csv"
check_sh settings-move "a=\$($R validate $tmp/set.csv --format csv | sed -n 2p | cut -d, -f5); \
b=\$($R validate $tmp/unset.csv --format csv | sed -n 2p | cut -d, -f5); [ -n \"\$a\" ] && [ \"\$a\" != \"\$b\" ]"
sed 's/,overlap\.tp=1,/,overlap.tq=1,/' "$tmp/set.csv" > "$tmp/badset.csv"
check settings-unknown 1 "$tmp/badset.csv:2: settings: overlap.tq: unknown key" -- $R validate "$tmp/badset.csv"
sed 's/,overlap\.tp=1,/,overlap.tp=2,/' "$tmp/set.csv" > "$tmp/badset.csv"
check settings-range 1 "$tmp/badset.csv:2: settings: overlap.tp: 2 is out of range [0, 1]" -- $R validate "$tmp/badset.csv"
sed 's/,overlap\.tp=1,/,tp=1,/' "$tmp/set.csv" > "$tmp/badset.csv"
check settings-column 1 "$tmp/badset.csv:2: settings: tp: not a setting of a row (its columns" -- $R validate "$tmp/badset.csv"
sed 's/,overlap\.tp=1,/,tq=1,/' "$tmp/set.csv" > "$tmp/badset.csv"
check settings-syntax 1 "$tmp/badset.csv:2: settings: 'tq=1' is not SECTION.KEY=VALUE of a framework file or KEY=VALUE of a workload" -- $R validate "$tmp/badset.csv"
sed 's/,overlap\.tp=1,/,serve.overlap=1,/' "$tmp/set.csv" > "$tmp/badset.csv"
check settings-kind 1 "torchtitan is a training stack: [serve] does not apply" -- $R validate "$tmp/badset.csv"
# Workload keys in the cell (DESIGN §7: settings are in the key space of --set): a row may say
# what its columns cannot, e.g. that it ran disaggregated (disagg=XpYd:PLAN:PLAN), and validate
# then predicts it with the disaggregated pools (src/engine/disagg.c). MLPerf Inference v5.1,
# NVIDIA GB200-NVL72 Llama 3.1 405B Interactive, 14 context servers TP4 (4096 tokens a pass) + 2
# generation servers TP8 (tests/validation/disagg.csv, the source in its row): 9,921 output
# tokens/s measured, +9.8 % predicted (the aggregated model cannot run the row at all). With every
# prompt at the mean (9,429 tokens) it was +22.7 %: a prefill server's service time did not vary,
# so under the router's turn-taking (c_a² = 1/14) its queue hardly waited and the pool ran at 96 %
# of its chunked capacity. The row's input_spread gives the dataset's prompt lengths (equal-issue
# mode: every run issues the whole dataset): c_s² = 0.20 of a prompt's prefill, so the slot wait
# grows by (1/14 + 0.20) / (1/14) (Kingman 1961), and the p99 TTFT carries the longest prompts' own
# five passes. Left: the router taken as perfect turn-taking, and the outputs at their mean.
D=tests/validation/disagg.csv
check validate-disagg 0 "infer n=1 skipped=0" -- $R validate $D --check-infer 20:20
check validate-disagg-picked 0 "disaggregated    14P2D: prefill tp=4 pp=1 dp=1 x14, decode tp=8 pp=1 dp=1 x2, 72 chips" -- \
	$R validate $D --explain MLPI51-NV-GB200x72-L31-405B-INTERACTIVE-DISAGG
check validate-disagg-json 0 '"split":	"14P2D"' -- $R validate $D --explain MLPI51-NV-GB200x72-L31-405B-INTERACTIVE-DISAGG --format json
sed 's/,disagg=14p2d:tp=4:tp=8;/,disagg=14p2x;/' $D > "$tmp/badset.csv"
check settings-wl-value 1 "$tmp/badset.csv:2: settings: disagg: '14p2x' is not off, auto, XpYd" -- $R validate "$tmp/badset.csv"
sed 's/,disagg=14p2d:tp=4:tp=8;/,disagg=14p2d:tp=4:tp=8;tokens=1e9;/' $D > "$tmp/badset.csv"
check settings-wl-mode 1 "$tmp/badset.csv:2: settings: tokens: applies to mode train, the row is infer" -- $R validate "$tmp/badset.csv"
# A file without the two optional columns (the second release's header) still validates.
sed 's/,[^,]*,[^,]*$//' "$tmp/unset.csv" > "$tmp/old-header.csv"
check validate-old-header 0 "train n=1 skipped=0" -- $R validate "$tmp/old-header.csv"

# --- --set SECTION.KEY on every command, a workload's [framework] section
check set-framework-key 0 "set overlap.tp = 1 (--set)" -- $R eval -s dgx-h100 -w llama3-70b-train --set overlap.tp=1
check set-framework-range 2 "--set overlap.tp: 2 is out of range [0, 1]" -- $R eval -s dgx-h100 -w llama3-70b-train --set overlap.tp=2
check set-framework-unknown 2 "--set overlap.tq: unknown key" -- $R eval -s dgx-h100 -w llama3-70b-train --set overlap.tq=1
check set-framework-source 2 "--set overlap.source: a source is the file's" -- $R eval -s dgx-h100 -w llama3-70b-train --set overlap.source=x
check set-framework-kind 2 "vllm is a serving stack: [overlap] does not apply" -- $R eval -s p5.48xlarge -w llama3-70b-serve --framework vllm --set overlap.tp=1
check set-framework-json 0 '"overlap.tp"' -- $R eval -s dgx-h100 -w llama3-70b-train --set overlap.tp=1 --format json
check set-framework-compare 0 "p5.48xlarge" -- $R compare -w llama3-8b-train -s p5.48xlarge --chips 64 --set host.mode=eager
check set-framework-sweep 0 "" -- $R sweep -w llama3-8b-train -s p5.48xlarge --chips 64 --tp 1 --pp 1 --set host.mode=eager
# The setting changes the result: async TP on takes the exposed TP time away.
check_sh set-framework-moves "a=\$($R eval -s dgx-h100 -w llama3-70b-train --format json | grep '\"step_time_s\"'); \
b=\$($R eval -s dgx-h100 -w llama3-70b-train --set overlap.tp=1 --format json | grep '\"step_time_s\"'); [ \"\$a\" != \"\$b\" ]"
mkdir -p "$tmp/fw"
sed 's/^network = .*/network = llama3-8b/' workloads/llama3-8b-train.ini > "$tmp/fw/w.ini"
printf '\n[framework]\noverlap.tp = 1\nhost.mode = eager\n' >> "$tmp/fw/w.ini"
line=$(grep -n '^overlap.tp' "$tmp/fw/w.ini" | cut -d: -f1)
check workload-framework-section 0 "set overlap.tp = 1 ($tmp/fw/w.ini:$line), host.mode = graphs (--set)" -- \
	$R eval -s dgx-h100 -w "$tmp/fw/w.ini" --set host.mode=graphs
printf '\n[framework]\nzero = 1\n' | cat workloads/llama3-8b-train.ini - > "$tmp/fw/w2.ini"
check workload-framework-bad 1 "w2.ini:$(($(wc -l < workloads/llama3-8b-train.ini) + 3)): zero: not a framework key" -- $R eval -s dgx-h100 -w "$tmp/fw/w2.ini"

# --- framework inheritance: based_on
cat > "$tmp/fw/nemo-async.ini" <<'EOF'
[framework]
name = nemo-async
display = NeMo with TP overlap
based_on = nemo
source = test
as_of = 2025

[overlap]
tp = 1
source = test
as_of = 2025
EOF
check based-on 0 "nemo-async ($tmp/fw/nemo-async.ini, based on models/frameworks/nemo.ini)" -- \
	$R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/nemo-async.ini"
check based-on-inherits 0 "overlap dp 1 gather 1 tp 1.00" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/nemo-async.ini"
printf '[framework]\nname = nemo-nosrc\ndisplay = x\nbased_on = nemo\nsource = s\nas_of = 2025\n\n[overlap]\ntp = 1\n' > "$tmp/fw/nemo-nosrc.ini"
check based-on-source 1 "nemo-nosrc.ini:8: source: missing in [overlap]" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/nemo-nosrc.ini"
printf '[framework]\nname = loop-a\ndisplay = a\nbased_on = loop-b\nsource = s\nas_of = 2025\n' > "$tmp/fw/loop-a.ini"
printf '[framework]\nname = loop-b\ndisplay = b\nbased_on = loop-a\nsource = s\nas_of = 2025\n' > "$tmp/fw/loop-b.ini"
check based-on-loop 1 "loop-b.ini:4: based_on: 'loop-a' makes a loop: loop-a -> loop-b -> loop-a" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/loop-a.ini"
printf '[framework]\nname = loop-self\ndisplay = s\nbased_on = loop-self.ini\nsource = s\nas_of = 2025\n' > "$tmp/fw/loop-self.ini"
check based-on-self 1 "loop-self.ini:4: based_on: 'loop-self.ini' makes a loop: loop-self -> loop-self" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/loop-self.ini"
prev=nemo
for d in deep-1 deep-2 deep-3 deep-4 deep-5; do
	printf '[framework]\nname = %s\ndisplay = d\nbased_on = %s\nsource = s\nas_of = 2025\n' $d $prev > "$tmp/fw/$d.ini"
	prev=$d
done
check based-on-deep-4 0 "deep-4" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/deep-4.ini"
check based-on-deep-5 1 "deep-1.ini:4: based_on: more than 4 files deep" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/deep-5.ini"
printf '[framework]\nname = kind-x\ndisplay = x\nbased_on = vllm\nkind = train\nsource = s\nas_of = 2025\n' > "$tmp/fw/kind-x.ini"
check based-on-kind 1 "kind-x.ini:5: kind: train differs from vllm's serve" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/kind-x.ini"
printf '[framework]\nname = nobase\ndisplay = x\nbased_on = no-such-stack\nsource = s\nas_of = 2025\n' > "$tmp/fw/nobase.ini"
check based-on-missing 1 "nobase.ini:4: based_on: no framework file 'no-such-stack'" -- $R eval -s dgx-h100 -w llama3-70b-train --framework "$tmp/fw/nobase.ini"

# A stack's gradient bucket ([overlap] bucket, Megatron's bucket_size in parameters): the last
# bucket's reduce and the first one's gather are never hidden, so one bucket for every parameter
# leaves the whole data-parallel sync exposed ("DP sync X of X"); the default (a layer) hides most.
check_sh train-bucket-all-exposed "$R eval -s gb200-nvl72 -w llama3-8b-train --set overlap.bucket=1T | \
awk '/DP sync/ { for (i = 1; i < NF; i++) if (\$i == \"sync\") { a = \$(i + 1); b = \$(i + 3) } } END { exit !(a > 0 && a == b) }'"
check_sh train-bucket-default-hides "$R eval -s gb200-nvl72 -w llama3-8b-train | \
awk '/DP sync/ { for (i = 1; i < NF; i++) if (\$i == \"sync\") { a = \$(i + 1); b = \$(i + 3) } } END { exit !(a > 0 && a < b) }'"
check train-bucket-range 2 "overlap.bucket: -1 is out of range" -- $R eval -s gb200-nvl72 -w llama3-8b-train --set overlap.bucket=-1

# --- intervals and calibration status (DESIGN §6 interval, calibration)
# models/intervals.ini is what validate --intervals prints from the rows' out-of-sample errors:
# regenerated with the calibrations, never edited.
$R validate $V --intervals > "$tmp/intervals.ini" 2>&1
if cmp -s "$tmp/intervals.ini" models/intervals.ini; then pass=$((pass + 1)); else
	echo "FAIL intervals-current: models/intervals.ini differs from 'roofcost validate $V --intervals' (regenerate it)"
	fail=$((fail + 1)); fi
# Trainium2 training has no published row: its GEMM fraction is Trainium1's share, not the prior
# 1.0 / 0.80, the output says uncalibrated and why, and its MFU is below the calibrated H100's.
check trn2-uncalibrated-json 0 '"status":	"uncalibrated"' -- $R eval -s trn2.48xlarge -w llama3-8b-train --format json
check trn2-uncalibrated-text 0 "UNCALIBRATED: no published training row on neuroncore-v3: its calibrated values are borrowed from neuroncore-v2" -- $R eval -s trn2.48xlarge -w llama3-8b-train
check trn2-interval 0 '"mfu":	[' -- $R eval -s trn2.48xlarge -w llama3-8b-train --format json
check p5-calibrated 0 "calibration      calibrated: hopper" -- $R eval -s p5.48xlarge -w llama3-8b-train
check_sh trn2-mfu-below-calibrated "a=\$($(printf '%s' "$R") eval -s trn2.48xlarge -w llama3-8b-train --chips 128 --format json | sed -n 's/^	\"mfu\":[[:space:]]*\([0-9.]*\),*\$/\1/p'); \
b=\$($(printf '%s' "$R") eval -s p5.48xlarge -w llama3-8b-train --chips 128 --format json | sed -n 's/^	\"mfu\":[[:space:]]*\([0-9.]*\),*\$/\1/p'); \
awk -v a=\"\$a\" -v b=\"\$b\" 'BEGIN { exit !(a > 0 && b > 0 && a < b) }'"
# Every family without training rows but one the file lends a value to (Trainium3 from
# Trainium1's stacks, CDNA3 and CDNA4 from Hopper's) says so, and no such family trains Llama 3
# 8B above every calibrated chip (Trainium3 did at 75 % MFU, MI355X at 57 %, on their priors).
check trn3-borrowed 0 '"group":	"neuroncore-v4 (from neuroncore-v2)"' -- $R eval -s trn3-ultraserver -w llama3-8b-train --format json
check mi300x-borrowed 0 "its calibrated values are borrowed from hopper" -- $R eval -s mi300x-8 -w llama3-8b-train
check mi355x-borrowed 0 '"group":	"cdna4 (from hopper)"' -- $R eval -s mi355x-8 -w llama3-8b-train --format json
check_sh borrowed-below-calibrated "$R compare -w llama3-8b-train -s all --format json | python3 -c '
import json, sys
rows = json.load(sys.stdin)[\"systems\"]
top = max(r[\"mfu\"] for r in rows if r[\"calibration\"][\"status\"] == \"calibrated\")
for r in rows:
    if \"(from \" in r[\"calibration\"][\"group\"]:
        assert r[\"mfu\"] < top, (r[\"system\"], r[\"mfu\"], top)
' || ! command -v python3 >/dev/null"
# The interval holds the prediction and follows its direction: a time's low end is below it.
check_sh interval-holds-figure "$R eval -s p5.48xlarge -w llama3-8b-train --format json | python3 -c '
import json, sys
d = json.load(sys.stdin)
for k, (lo, hi) in d[\"interval\"].items():
    v = d[\"train_days\" if k == \"train_days\" else k] if k in d else d[\"usd_per_unit\"]
    assert lo <= v <= hi, (k, lo, v, hi)
' 2>/dev/null || ! command -v python3 >/dev/null"
check compare-within-error 0 "within the model's error" -- $R compare -w llama3-8b-train -s p5.48xlarge,p5en.48xlarge,trn2.48xlarge --chips 128
check compare-uncalibrated 0 "uncalibrated: trn2.48xlarge" -- $R compare -w llama3-8b-train -s p5.48xlarge,p5en.48xlarge,trn2.48xlarge --chips 128
check compare-json-interval 0 '"calibration":' -- $R compare -w llama3-70b-serve -s p5.48xlarge --format json
check sweep-json-interval 0 '"usd_per_run":	[' -- $R sweep -w llama3-8b-train -s p5.48xlarge --chips 64 --tp 1,2 --pp 1 --top 1 --format json
check validate-case-interval 0 '"group":	"ampere x megatron-lm-2021"' -- $R validate $V --format json
rm -rf "$tmp/rep17"
check report-intervals 0 "" -- $R report -w llama3-8b-train -s p5.48xlarge,trn2.48xlarge --chips 128 -o "$tmp/rep17"
check report-intervals-data 0 "uncalibrated" -- cat "$tmp/rep17/data/model_error.csv"
# A prior entry must name the calibration it borrows, and may not carry its own value.
mkdir -p "$tmp/cal/models" && cp -r models/hw models/nn models/frameworks "$tmp/cal/models/"
sed 's/^from = neuroncore-v2-gemm$/from = no-such-entry/' models/calibration.ini > "$tmp/cal/models/calibration.ini"
check calib-prior-from 1 "from: 'no-such-entry' is not a fitted or measured gemm calibration above it" -- \
	env ROOFCOST_HOME="$tmp/cal" $R eval -s trn2.48xlarge -w workloads/llama3-8b-train.ini

# --- shipped workloads that claim a published run reproduce it (issue 17 item 6)
check validate-reproduce 0 "megatron-1t-train    MEG-SC21-T1-1008.0B" -- $R validate $V --reproduce
check validate-reproduce-405b 0 "MLPT50-405B-NV-EOS-H100-512" -- $R validate $V --reproduce
# A copy of a workload that claims the 1T run with another layout fails (exit 3) and says why.
mkdir -p "$tmp/rw/workloads"
sed 's/^dp = 6$/dp = 3/' workloads/megatron-1t-train.ini > "$tmp/rw/workloads/megatron-1t-train.ini"
cp -r models "$tmp/rw/"
check validate-reproduce-fails 3 "its plan has 1536 chips, the case ran on 3072" -- env ROOFCOST_HOME="$tmp/rw" $R validate $V --reproduce
sed 's/^reproduces = .*/reproduces = NO-SUCH-CASE/' workloads/megatron-1t-train.ini > "$tmp/rw/workloads/megatron-1t-train.ini"
check validate-reproduce-unknown 3 "no case 'NO-SUCH-CASE'" -- env ROOFCOST_HOME="$tmp/rw" $R validate $V --reproduce
# Llama 3 405B as Meta trained it: TP 8 x PP 16 with the interleaved schedule (vpp 4: the 8 layers
# of a stage in whole chunks; 126 layers, one fewer on the first and last stage) gives the high
# 30s the paper reports (Llama Team 2024, arXiv 2407.21783, Table 4: 400 TFLOP/s per GPU, 41 %
# BF16 MFU on 16384 H100; 430 on 8192); at vpp 1 the model gives 24 %.
check_sh llama3-405b-interleaved "$R eval -s dgx-h100 -w llama3-405b-train --format json | sed -n 's/^	\"mfu\":[[:space:]]*\([0-9.]*\),*\$/\1/p' | awk '{ exit !(\$1 >= 0.34 && \$1 <= 0.43) }'"
check_sh llama3-405b-vpp1-lower "$R eval -s dgx-h100 -w llama3-405b-train --plan tp=8,pp=16,vpp=1,dp=128 --format json | sed -n 's/^	\"mfu\":[[:space:]]*\([0-9.]*\),*\$/\1/p' | awk '{ exit !(\$1 < 0.30) }'"
# The MLPerf open-loop rows take their benchmark dataset's request lengths (models/datasets.ini):
# --explain says so; an offline row of the same run does not (its lengths do not set a percentile).
check validate-dataset-pick 0 "request lengths of dataset openorca-llama2-70b (models/datasets.ini" -- $R validate $V --explain MLPI41-NV-H200x8-SERVER
check_not validate-dataset-offline 0 "request lengths of dataset" -- $R validate $V --explain MLPI41-NV-H200x8-OFFLINE
# A row of another round (a source group the file does not name) whose input_len is OpenOrca's mean
# takes it too: the dataset is known by its mean input.
(head -1 $V; grep '^MLPI41-NV-H200x8-SERVER,' $V | sed 's/mlperf-inference-v4\.1$/mlperf-inference-v5.1/') > "$tmp/v51.csv"
check validate-dataset-any-round 0 "request lengths of dataset openorca-llama2-70b" -- $R validate "$tmp/v51.csv" --explain MLPI41-NV-H200x8-SERVER
# NVIDIA's MLPerf Inference v5.0 harness is its own version of TensorRT-LLM (trt-llm-mlperf-v5.0.ini):
# the v5.0 rows whose cell is trt-llm are predicted with it, and out of sample its fitted share goes back.
check validate-trtllm-v50 0 "framework trt-llm-mlperf-v5.0 (models/frameworks/trt-llm-mlperf-v5.0.ini)" -- $R validate $V --explain MLPI50-NV-H200x8-L2-70B-99-OFFLINE
check validate-trtllm-v50-lofo 0 "refitted trt-llm-mlperf-v5.0 [serve] gemm_share at trt-llm's" -- $R validate $V
# The benchmark's model too: an 8B server row with OpenOrca's mean prompt is no MLPerf llama2-70b row.
(head -1 $V; grep '^MLPI41-NV-H200x8-SERVER,' $V | awk -F, 'BEGIN { OFS = "," } { $6 = 32; $7 = 4096; $8 = 32; print }') > "$tmp/8b-222.csv"
check_not validate-dataset-other-model 0 "request lengths of dataset" -- $R validate "$tmp/8b-222.csv" --explain MLPI41-NV-H200x8-SERVER
