# CLI cases (issue 19): networks from config.json, MLA and the newer architectures, the newcomer's papercuts. Sourced by tests/cli/run.sh, which defines
# check, check_not, check_sh, $R (the binary), $B, $C and $tmp.

H=tests/hf
# --- a config.json as a network (issue 19 item 1)
# Done when: the published config.json of DeepSeek-V3, Qwen3-235B-A22B and gpt-oss-120b give total
# and active parameters within 2 % of their model cards (671B/37B, 235B/22B, 117B/5.1B).
$R list networks $H/deepseek-v3.json $H/qwen3-235b-a22b.json $H/gpt-oss-120b.json --format json > "$tmp/cards.json" 2>&1
for want in "deepseek-v3 671 37" "qwen3-235b-a22b 235 22" "gpt-oss-120b 117 5.1"; do
	set -- $want
	check_sh "hf-card-$1" "awk -v n='\"$1\",' -v T=$2 -v A=$3 '
		\$1 == \"\\\"network\\\":\" && \$2 == n { on = 1 }
		on && \$1 == \"\\\"params_B\\\":\" { t = \$2 + 0 }
		on && \$1 == \"\\\"active_B\\\":\" { a = \$2 + 0; on = 0 }
		END { exit !(t > 0 && (t / T - 1) ^ 2 < 0.0004 && (a / A - 1) ^ 2 < 0.0004) }' '$tmp/cards.json'"
done
check hf-list-mla 0 '"kv_KB":	70.3' -- $R list networks $H/deepseek-v3.json --format json
check hf-list-window 0 "gqa sliding 128 x18 sinks" -- $R list networks $H/gpt-oss-120b.json --wide
check hf-list-qk-norm 0 "gqa qk-norm" -- $R list networks $H/qwen3-235b-a22b.json --wide
check hf-list-chunked 0 "gqa chunked 8192 x36" -- $R list networks $H/llama-4-maverick-17b-128e.json --wide
check hf-list-ini-too 0 "deepseek-v3" -- $R list networks models/nn/deepseek-v3.ini
check hf-list-missing 1 "no-such.json: cannot open it" -- $R list networks $tmp/no-such.json
# new network --from-hf: every value with the config keys it came from
mkdir -p "$tmp/hf"
check hf-new 0 "wrote $tmp/hf/dsv3.ini" -- $R new network dsv3 --from-hf $H/deepseek-v3.json -o "$tmp/hf"
check hf-trace-head 0 "head_dim = 192                 ; qk_nope_head_dim 128 + qk_rope_head_dim 64" -- cat "$tmp/hf/dsv3.ini"
check hf-trace-dense 0 "dense_layers = 3               ; first_k_dense_replace" -- cat "$tmp/hf/dsv3.ini"
check hf-trace-shared 0 "shared_experts = 1             ; n_shared_experts" -- cat "$tmp/hf/dsv3.ini"
check hf-ignored 0 ";   rope_theta: the RoPE base: positions, not work" -- cat "$tmp/hf/dsv3.ini"
check hf-ignored-quant 0 ";   quantization_config: the checkpoint's weights are fp8" -- cat "$tmp/hf/dsv3.ini"
check hf-new-loads 0 "dsv3" -- $R list networks "$tmp/hf/dsv3.ini"
check hf-new-no-overwrite 1 "never overwrites" -- $R new network dsv3 --from-hf $H/deepseek-v3.json -o "$tmp/hf"
check hf-new-options-alone 2 "go with --from-hf" -- $R new network x --source s -o "$tmp/hf"
# a key that may change the cost and is not known: an error naming it and its line; --ignore
sed 's/"vocab_size": 129280/"vocab_size": 129280,\n  "frobnication_depth": 3/' $H/deepseek-v3.json > "$tmp/hf/odd.json"
check hf-unknown-key 1 "odd.json:70: frobnication_depth: not a key roofcost knows for model_type deepseek_v3" -- $R list networks "$tmp/hf/odd.json"
check_sh hf-unknown-writes-nothing "! $R new network odd --from-hf '$tmp/hf/odd.json' -o '$tmp/hf' 2>/dev/null && test ! -e '$tmp/hf/odd.ini'"
check hf-ignore 0 ";   frobnication_depth: left out on request (--ignore)" -- sh -c "$R new network odd --from-hf '$tmp/hf/odd.json' --ignore frobnication_depth -o '$tmp/hf' && cat '$tmp/hf/odd.ini'"
sed 's/"num_key_value_heads": 4/"num_key_value_heads": 5/' $H/qwen3-235b-a22b.json > "$tmp/hf/kv.json"
check hf-bad-value 1 "kv.json:25: num_key_value_heads: 5 does not divide heads 64 (network key kv_heads)" -- $R list networks "$tmp/hf/kv.json"
printf '{"model_type": "bert", "hidden_size": 768}\n' > "$tmp/hf/bert.json"
check hf-bad-family 1 "model_type: 'bert' is not a family roofcost reads" -- $R list networks "$tmp/hf/bert.json"
printf '{"model_type": "llama",\n "hidden_size": 4096,,\n}\n' > "$tmp/hf/broken.json"
check hf-not-json 1 "broken.json:2: not JSON" -- $R list networks "$tmp/hf/broken.json"
# a workload may name a config.json
# (a relative path is taken from the workload's folder)
cp -r tests/hf "$tmp/tests-hf"
mkdir -p "$tmp/w/a" && sed 's|^network = .*|network = ../../tests-hf/deepseek-v3.json|; s|^name = .*|name = dsv3-json|' workloads/deepseek-v3-serve.ini > "$tmp/w/a/dsv3-json.ini"
check hf-workload 0 "KV cache 70.3 KB per token (latent 512 + rope 64 per layer, x 61 layers, bf16)" -- $R eval -s hgx-h200 -w "$tmp/w/a/dsv3-json.ini"
check hf-workload-set 0 "dsv3-json on hgx-h200" -- $R eval -s hgx-h200 -w "$tmp/w/a/dsv3-json.ini" --set network=$PWD/$H/deepseek-v3.json
check hf-new-workload 0 "network = $PWD/$H/gpt-oss-120b.json" -- sh -c "$R new workload oss --network $PWD/$H/gpt-oss-120b.json -o '$tmp/hf' && cat '$tmp/hf/oss.ini'"
check hf-new-workload-eval 0 "oss on hgx-h200" -- $R eval -s hgx-h200 -w "$tmp/hf/oss.ini"
# the shipped networks are what their config.json files give, byte for byte
mkdir -p "$tmp/nn-gen"
check_sh hf-shipped-networks "sh tests/hf/networks.sh '$tmp/nn-gen' && test \$(ls '$tmp'/nn-gen/*.ini | wc -l) -eq 12 && for f in '$tmp'/nn-gen/*.ini; do cmp \"\$f\" models/nn/\$(basename \"\$f\") || exit 1; done"

# --- MLA in eval (done when: the KV cache per token of DeepSeek-V3 and the absorbed decode FLOPs)
check mla-eval-kv 0 "MLA, absorbed in decode: KV cache 70.3 KB per token (latent 512 + rope 64 per layer, x 61 layers, bf16)" -- $R eval -s hgx-h200 -w deepseek-v3-serve
check mla-eval-json 0 '"kv_bytes_per_token":	70272' -- $R eval -s hgx-h200 -w deepseek-v3-serve --format json
check mla-eval-flops 0 '"decode_attention_flops_per_token":' -- $R eval -s hgx-h200 -w deepseek-v3-serve --format json
check mla-train 0 "layers           3 dense (FFN 18432), the first ones, 58 MoE: 256 routed experts of 2048, 8 per token + 1 shared of 2048" -- $R eval -s dgx-h100 -w deepseek-v3-train
check mla-train-attention 0 "MLA: query rank 1536, key/value latent 512 + rope 64, 128 heads of q/k 192, v 128" -- $R eval -s dgx-h100 -w deepseek-v3-train
check window-eval 0 "18 of 36 layers attend the last 128 tokens; learned sinks" -- $R eval -s hgx-h200 -w gpt-oss-120b-serve
for w in deepseek-r1-serve gpt-oss-120b-serve llama3.1-405b-serve llama3.1-8b-serve llama3.1-405b-train llama3.1-8b-train; do
	check "workload-$w" 0 "$w on" -- $R eval -s hgx-b200 -w $w
done

# --- papercuts a new user met (issue 19 item 4), each failing on the code before
check count-tokens-T 0 '"train_days":' -- $R eval -s p5.48xlarge -w llama3-8b-train --set tokens=1T --format json
check count-concurrency-k 0 "llama3-8b-serve on p5.48xlarge" -- $R eval -s p5.48xlarge -w llama3-8b-serve --set concurrency=1k
check count-unit-wrong 2 "--set tokens: unknown unit 'X', expected a count" -- $R eval -s p5.48xlarge -w llama3-8b-train --set tokens=2X
for c in compare eval; do
	for k in tpot_slo ttft_slo concurrency tokens global_batch input_len output_len "roofcost help keys"; do
		check "help-$c-$k" 0 "$k" -- $R help $c
	done
done
check help-keys 0 "tokens                       required  a count (e.g. 300, 1.5M, 1T: k, M, B, T)" -- $R help keys
check help-keys-time 0 "ttft_slo                     optional  a time (e.g. 2 us, 200 ms)" -- $R help keys
check help-keys-listed 0 "help keys" -- $R help
check_sh help-keys-every-key "for k in \$($R help keys | awk '/^  [a-z_]+ +(required|optional)/ { print \$1 }' | sort -u); do :; done; test \$($R help keys | grep -c '^  [a-z_]* *\\(required\\|optional\\)') -ge 60"
check_not report-help-no-format 0 "--format" -- $R report --help
check report-format-refused 2 "report: --format: a report writes index.html" -- $R report -w llama3-8b-serve -s p5.48xlarge -o "$tmp/rep-fmt" --format json
$R help --man > "$tmp/roofcost.1"
for s in '.SH EXAMPLES' '.SH FILES' '.SH "SEE ALSO"' 'roofcost new network my\-model \-\-from\-hf config.json'; do
	check "man-section-$s" 0 "$s" -- cat "$tmp/roofcost.1"
done
check_not man-no-see-also-quote 0 '.SH SEE ALSO' -- cat "$tmp/roofcost.1"
check_sh readme-throwaway-store "! grep -n '^\$ \./roofcost import tests/' README.md && grep -q '^\$ ROOFCOST_DB=~/try.db \./roofcost import tests/catalogs/good/history-1.csv' README.md"
check_sh list-prices-one-line "$R list prices | grep tpu-v6e | grep -qv '^gcp ' && exit 1; test \$($R list prices | grep -c tpu-v6e) -gt 0"
check_sh list-prices-no-continuation "$R list prices --provider aws | awk 'NR > 4 && /^ / { bad = 1 } END { exit bad }'"
if command -v bash >/dev/null 2>&1; then
	$R help --bash-completion > "$tmp/completion"
	CP="$tmp/completion"
	check completion-sweep-flags 0 "--tp --pp --vpp --cp --ep --sp --mb --zero --recompute" -- bash -c ". '$CP'; COMP_WORDS=(roofcost sweep --); COMP_CWORD=2; _roofcost; echo \"\${COMPREPLY[*]}\""
	check completion-baseline-all 0 "--all" -- bash -c ". '$CP'; COMP_WORDS=(roofcost baseline check --a); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
	check completion-baseline-frozen 0 "--frozen" -- bash -c ". '$CP'; COMP_WORDS=(roofcost baseline check --fr); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
	check_sh completion-prices-once "test \$(bash -c \". '$CP'; COMP_WORDS=(roofcost list p); COMP_CWORD=2; _roofcost; echo \\\"\\\${COMPREPLY[*]}\\\"\" | wc -w) -eq 1"
	# --pricing all where the command takes it (compare, sweep), not where it refuses it
	check completion-pricing-all-compare 0 "all" -- bash -c ". '$CP'; COMP_WORDS=(roofcost compare --pricing a); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
	check_not completion-pricing-no-all-eval 0 "all" -- bash -c ". '$CP'; COMP_WORDS=(roofcost eval --pricing a); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
	check_not completion-pricing-no-all-report 0 "all" -- bash -c ". '$CP'; COMP_WORDS=(roofcost report --pricing a); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
	check completion-pricing-all-sweep 0 "all" -- bash -c ". '$CP'; COMP_WORDS=(roofcost sweep --pricing a); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
	ROOFCOST_DB="$tmp/completion.db" $R baseline record tour-rec -s p5.48xlarge -w llama3-8b-serve > /dev/null 2>&1
	check completion-record-names 0 "tour-rec" -- env ROOFCOST_DB="$tmp/completion.db" bash -c ". '$CP'; COMP_WORDS=($R baseline check to); COMP_CWORD=3; _roofcost; echo \"\${COMPREPLY[*]}\""
fi
