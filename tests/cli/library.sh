# CLI cases (issue 22): the library, its C API, the Python binding, shards on a scheduler. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.

# --- sweep --shard auto: the shard of a Slurm job array or a Kubernetes Indexed Job
SW="sweep -w llama3-8b-train -s p5.48xlarge,tpu-v6e --chips 8-64 --top 3 --format json"
check shard-auto-none 2 "neither SLURM_ARRAY_TASK_ID (a Slurm job array) nor JOB_COMPLETION_INDEX" -- \
	env -u SLURM_ARRAY_TASK_ID -u JOB_COMPLETION_INDEX $R $SW --shard auto
check shard-auto-slurm 0 '"shard":	1' -- env -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 $R $SW --shard auto
check shard-auto-slurm-shards 0 '"shards":	3' -- env -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID=1 SLURM_ARRAY_TASK_COUNT=3 $R $SW --shard auto
check shard-auto-slurm-no-count 2 "SLURM_ARRAY_TASK_ID is set but not SLURM_ARRAY_TASK_COUNT" -- \
	env -u JOB_COMPLETION_INDEX -u SLURM_ARRAY_TASK_COUNT SLURM_ARRAY_TASK_ID=0 $R $SW --shard auto
check shard-auto-slurm-beyond 2 "SLURM_ARRAY_TASK_ID=3 is not below the 3 shards" -- \
	env -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID=3 SLURM_ARRAY_TASK_COUNT=3 $R $SW --shard auto
check shard-auto-k8s 0 '"shard":	2' -- env -u SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX=2 $R $SW --shard auto/4
check shard-auto-k8s-no-count 2 "does not export its completions; give them (--shard auto/N)" -- \
	env -u SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX=2 $R $SW --shard auto
check shard-auto-not-number 2 "JOB_COMPLETION_INDEX='x1' is not a whole number" -- \
	env -u SLURM_ARRAY_TASK_ID JOB_COMPLETION_INDEX=x1 $R $SW --shard auto/4
check shard-auto-bad-count 2 "--shard: 'auto/0' is not auto or auto/N" -- $R $SW --shard auto/0
check shard-bad 2 "or auto" -- $R $SW --shard x
# The shards of a Slurm array, merged, are the unsharded sweep (summary timing aside).
for i in 0 1 2; do
	env -u JOB_COMPLETION_INDEX SLURM_ARRAY_TASK_ID=$i SLURM_ARRAY_TASK_COUNT=3 $R $SW --shard auto >"$tmp/auto.$i.json" 2>/dev/null
done
$R $SW >"$tmp/auto.whole.json" 2>/dev/null
$R sweep --merge "$tmp/auto.0.json" "$tmp/auto.1.json" "$tmp/auto.2.json" --top 3 --format json >"$tmp/auto.merged.json" 2>&1
check_sh shard-auto-merged-equals-whole "grep -v -e '\"seconds\"' -e '\"peak_rss_mb\"' -e '\"threads\"' -e '\"shard' $tmp/auto.whole.json >$tmp/a && grep -v -e '\"seconds\"' -e '\"peak_rss_mb\"' -e '\"threads\"' -e '\"shard' $tmp/auto.merged.json >$tmp/b && cmp $tmp/a $tmp/b"
check shard-merge-incomplete 1 "shard 1/3 is missing" -- $R sweep --merge "$tmp/auto.0.json" "$tmp/auto.2.json" --format json
check shard-merge-twice 1 "is given twice" -- $R sweep --merge "$tmp/auto.0.json" "$tmp/auto.0.json" "$tmp/auto.2.json" --format json
