#!/bin/sh
# The shipped networks generated from these config.json files: sh tests/hf/networks.sh DIR
# writes DIR/NAME.ini for each (run from the project root; DIR must not hold them yet).
# models/nn/ holds the output of `sh tests/hf/networks.sh models/nn`; tests/cli/networks.sh
# runs it into a temporary folder and fails when a shipped file differs.
R=${ROOFCOST:-./roofcost}
out=${1:?usage: sh tests/hf/networks.sh DIR}
rc=0
gen() {
	"$R" new network "$1" --from-hf "tests/hf/$2" --display "$3" --source "$4" --as-of "$5" --note "$6" \
		-o "$out" >/dev/null || { echo "networks.sh: $1 failed" >&2; rc=1; }
}
gen deepseek-v3 deepseek-v3.json "DeepSeek-V3" \
	"deepseek-ai/DeepSeek-V3@ec67248f61244f350422cdfd2e78258af58edff9 config.json (tests/hf/deepseek-v3.json)" 2024-12-26 \
	"Model card and DeepSeek-V3 Technical Report (arXiv 2412.19437): 671B total, 37B activated; here 671.0B and 36.6B (37.5B with the embedding table). MLA caches the 512-wide latent and the 64-wide rope key per token and layer. The multi-token-prediction module (num_nextn_predict_layers 1, 14B more in the checkpoint) is mtp_layers 1, the draft of speculative decoding with draft = mtp, and is not counted in the parameters, as the card leaves it out; node-limited routing (n_group 8, topk_group 4) is expert_groups and route_groups: a token reaches at most 4 of the 8 expert groups, so at most 4 nodes when the expert-parallel group spans 8."
gen deepseek-r1 deepseek-r1.json "DeepSeek-R1" \
	"deepseek-ai/DeepSeek-R1@56d4cbbb4d29f4355bab4b9a39ccb717a14ad5ad config.json (tests/hf/deepseek-r1.json; the revision MLPerf Inference's deepseek-r1 benchmark pins, mlcommons/inference language/deepseek-r1/README.md)" 2025-01-20 \
	"The DeepSeek-V3 architecture (DeepseekV3ForCausalLM) post-trained for reasoning: model card 671B total, 37B activated; here 671.0B and 36.6B. The MTP module (mtp_layers 1) is not counted (see deepseek-v3)."
gen qwen3-235b-a22b qwen3-235b-a22b.json "Qwen3-235B-A22B" \
	"Qwen/Qwen3-235B-A22B@8efa61729e24bd65b1d152b5ab5409052aa80e65 config.json (tests/hf/qwen3-235b-a22b.json)" 2025-04-29 \
	"Model card and Qwen3 Technical Report (arXiv 2505.09388) Table 1: 235B total, 22B activated; here 235.1B and 21.6B (22.2B with the embedding table, as Qwen counts). 94 layers, every one MoE (decoder_sparse_step 1), no shared expert, QK-norm; use_sliding_window is false: full attention on every layer."
gen qwen3-32b qwen3-32b.json "Qwen3-32B" \
	"Qwen/Qwen3-32B@main config.json (tests/hf/qwen3-32b.json; the commit is not recorded)" 2025-04-29 \
	"Model card: 32.8B parameters (31.2B without embeddings); here 32.8B. 64 heads of 128: the query is 8192 wide on a 5120 model width. QK-norm."
gen gpt-oss-120b gpt-oss-120b.json "gpt-oss-120b" \
	"openai/gpt-oss-120b@b5c939d config.json (tests/hf/gpt-oss-120b.json)" 2025-08-05 \
	"gpt-oss model card (arXiv 2508.10925) Table 1: 116.83B total, 5.13B active (the unembedding counted, the embedding not); here 116.8B and 5.1B. 18 of 36 layers attend a 128-token band (layer_types), the others the whole context; a learned sink logit per head. The checkpoint ships the MoE weights in MXFP4 (quantization_config), attention and embeddings in bf16: one workload precision cannot say both."
gen gpt-oss-20b gpt-oss-20b.json "gpt-oss-20b" \
	"openai/gpt-oss-20b@main config.json (tests/hf/gpt-oss-20b.json; the commit is not recorded)" 2025-08-05 \
	"gpt-oss model card (arXiv 2508.10925) Table 1: 20.91B total, 3.61B active; here 20.9B and 3.6B. 12 of 24 layers attend a 128-token band, learned sinks; the MoE weights MXFP4 in the checkpoint."
gen llama3.1-8b llama-3.1-8b.json "Llama 3.1 8B" \
	"meta-llama/Llama-3.1-8B@d04e592bb4f6aa9cfee91e2e20afa771667e1d4b config.json (tests/hf/llama-3.1-8b.json)" 2024-07-23 \
	"Model card: 8B; here 8.0B. The Llama 3 8B shape with a 131072-token context (rope_scaling llama3, factor 8)."
gen llama3.1-70b llama-3.1-70b.json "Llama 3.1 70B" \
	"meta-llama/Llama-3.1-70B@main config.json (tests/hf/llama-3.1-70b.json; the commit is not recorded)" 2024-07-23 \
	"Model card: 70B; here 70.6B. A 131072-token context."
gen llama3.1-405b llama-3.1-405b.json "Llama 3.1 405B" \
	"meta-llama/Llama-3.1-405B@main config.json (tests/hf/llama-3.1-405b.json; the commit is not recorded)" 2024-07-23 \
	"Model card: 405B; here 405.8B. 126 layers, a 131072-token context."
gen llama4-scout llama-4-scout-17b-16e.json "Llama 4 Scout" \
	"meta-llama/Llama-4-Scout-17B-16E@main config.json, its text_config (tests/hf/llama-4-scout-17b-16e.json; the commit is not recorded)" 2025-04-05 \
	"Model card: 109B total (the vision encoder included), 17B active; here 107.8B and 16.1B (17.2B with the embedding table). Every layer MoE: 16 routed experts of 8192, 1 per token, and a shared one. 36 of 48 layers (the RoPE ones) attend their 8192-token chunk, every 4th (NoPE) the whole context. The vision encoder is not modelled."
gen llama4-maverick llama-4-maverick-17b-128e.json "Llama 4 Maverick" \
	"meta-llama/Llama-4-Maverick-17B-128E@main config.json, its text_config (tests/hf/llama-4-maverick-17b-128e.json; the commit is not recorded)" 2025-04-05 \
	"Model card: 400B total, 17B active; here 400.7B and 16.1B (17.2B with the embedding table). MoE in every 2nd layer (interleave_moe_layer_step 2): 128 routed experts of 8192, 1 per token, and a shared one; the other 24 layers a dense FFN of 16384. 36 of 48 layers attend their 8192-token chunk. The vision encoder is not modelled."
gen mixtral-8x22b mixtral-8x22b.json "Mixtral 8x22B" \
	"mistralai/Mixtral-8x22B-v0.1@e1cd34ff1747406fb2277635ed25242803009bc2 config.json (tests/hf/mixtral-8x22b.json)" 2024-04-17 \
	"Mistral AI, Cheaper, Better, Faster, Stronger (2024-04-17): 141B total, 39B active; here 140.6B and 39.0B. 8 experts of 16384 in every layer, top 2; full attention (sliding_window null)."
exit $rc
