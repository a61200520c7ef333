# CLI cases (issue 18): the serving frontier, disaggregated serving, speculative decoding, serving reports. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.

# --- the frontier: no default cap decides a result
# make run's comparison: no system is ranked at a concurrency cap the workload does not give (it was 3 of 4 at
# "32 streams per replica" before the frontier), and no note says one decides.
check_not frontier-no-cap-note 0 "decides the result of" -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e
check_not frontier-no-cap-json 0 '"capped_by_concurrency":	true' -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e --format json
check_not frontier-no-cap-reason 0 "the workload's concurrency" -- $R compare -w llama3-70b-serve -s trn2.48xlarge,p5.48xlarge,p5en.48xlarge,tpu-v6e --format json
# A cap the user gives still decides, and says so.
check frontier-given-cap 0 "decides the result of" -- $R compare -w llama3-70b-serve -s p5.48xlarge --set concurrency=32
# concurrency is optional but for the closed loop, which it defines.
check frontier-single-needs-concurrency 2 "single needs concurrency" -- $R eval -s p5.48xlarge -w llama3-70b-serve --set scenario=single

# --- the frontier's best layout is not the old single pick
# MLPerf's own layout: llama2-70b on 8 H200 runs 8 tp=1 replicas (MLPerf Inference v4.1 NVIDIA H200-SXM-141GBx8);
# the old search tried one replica only (tp=1 dp=1 on 1 chip).
check frontier-mlperf-layout 0 ",8,tp=1 pp=1 dp=8," -- $R compare -w llama2-70b-serve -s hgx-h200 --format csv
# On p5 (H100) the old pick was tp=2 pp=1 dp=1 at the cap of 64 streams; over every layout and load the best
# delivers more tokens/s per chip than that pick at its cap, and is another layout.
old=$($R eval -s p5.48xlarge -w llama2-70b-serve --plan tp=2,dp=1 --set concurrency=64 --format json | awk -F'[:,]' '/"tokens_per_s_per_chip"/ { gsub(/[ \t]/, "", $2); print $2; exit }')
check_sh frontier-beats-old-pick "$R compare -w llama2-70b-serve -s p5.48xlarge --format csv | awk -F, -v old=$old 'NR == 2 { ok = \$5 != \"tp=2 pp=1 dp=1\" && \$6 / \$4 > old * 1.5 } END { exit !ok }'"
# eval --frontier's best point is compare's pick.
pick=$($R compare -w llama3-70b-serve -s p5en.48xlarge --format csv | awk -F, 'NR == 2 { print $5 }')
check frontier-eval-best 0 "best at the latency limits: $pick on 8 chips" -- $R eval -s p5en.48xlarge -w llama3-70b-serve --frontier
check frontier-eval-json 0 '"front":	true' -- $R eval -s p5en.48xlarge -w llama3-70b-serve --frontier --format json
check frontier-eval-csv 0 "layout,chips,load,running,tokens_per_s_per_user,tokens_per_s_per_chip" -- $R eval -s p5en.48xlarge -w llama3-70b-serve --frontier --format csv
# csv: every point, each with its layout; more points than the frontier, and several layouts.
check_sh frontier-eval-every-point "$R eval -s p5en.48xlarge -w llama3-70b-serve --frontier --format csv | awk -F, 'NR > 1 { n++; lay[\$1] = 1; if (\$13 == 1) f++ } END { k = 0; for (l in lay) k++; exit !(n > 50 && f > 3 && f < n && k >= 5) }'"
check frontier-train 2 "--frontier: applies to serving" -- $R eval -s p5.48xlarge -w llama3-8b-train --frontier
