// Closed-form checks of the iteration cost model.
#include <gtest/gtest.h>

#include <cmath>

#include "common.hpp"
#include "infer/cost_model.hpp"
#include "infer/formats.hpp"

using namespace sextant;
using namespace sextant::infer;
using namespace sextant::infer::fixtures;

// Question: is decode at batch 1 never faster than streaming the weights at peak bandwidth?
TEST(CostModel, DecodeAtBatchOneIsBoundedByWeightBytesOverBandwidth) {
  for (const auto& [model, accel, fmt, engine] :
       std::vector<std::tuple<std::string, std::string, std::string, std::string>>{
           {"llama3.1-8b", "h100-sxm-80gb", "bf16", "vllm"},
           {"llama3.1-8b", "h100-sxm-80gb", "fp8", "vllm"},
           {"llama-2-7b", "apple-m2-max-30c", "q4_0", "llama.cpp"},
           {"llama-2-7b", "apple-m1-8c", "q8_0", "llama.cpp"},
           {"llama-2-70b", "a100-sxm-80gb", "bf16", "generic"}}) {
    Deployment d = deployment(model, accel, engine, fmt);
    if (engine == "llama.cpp") d.activation = parse_format("fp32");
    const CostModel cm(d);
    const double t = cm.iteration(cm.decode(1, 100)).total_s;
    // Streamed per token: every weight except the input-embedding table (a row gather).
    const double streamed = cm.weight_bytes() - (d.model.tied_embeddings ? 0.0 : d.model.vocab * double(d.model.hidden) * d.weight.bytes());
    EXPECT_GE(t, streamed / d.accel.memory_bandwidth_bytes_per_s.value) << model << " " << accel << " " << fmt;
  }
}

// Question: are prefill FLOPs 2 x (linear params) x tokens + LM head of the last token + causal attention?
TEST(CostModel, PrefillFlopsAreTwoParamsTokensPlusAttention) {
  const Deployment d = deployment("llama-2-7b", "h100-sxm-80gb");
  const CostModel cm(d);
  const auto& m = d.model;
  const double T = 512;
  const double linear = m.params_total() - m.params_embedding() - (2.0 * m.layers + 1) * m.hidden;
  const double attn = 4.0 * m.heads * m.head_dim * m.layers * (T * (T + 1) / 2);
  const double expect = 2 * linear * T + 2.0 * m.vocab * m.hidden + attn;
  EXPECT_NEAR(cm.iteration(cm.prefill(1, 512)).flops / expect, 1.0, 1e-12);
  // The familiar approximation: within 2% of 2 x 6.74e9 params x tokens for Llama-2-7B at 512 tokens.
  EXPECT_NEAR(cm.iteration(cm.prefill(1, 512)).flops / (2 * 6.74e9 * T), 1.0, 0.03);
}

// Question: KV bytes per token per layer for MHA, GQA and MLA, and their totals.
TEST(CostModel, KvBytesPerTokenPerLayer) {
  {
    const CostModel cm(deployment("llama-2-7b", "h100-sxm-80gb"));  // MHA: 2 x 32 heads x 128 x 2 B
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token_per_layer(), 2.0 * 32 * 128 * 2);
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token(), 512.0 * 1024);  // the README's 512 KiB
  }
  {
    const CostModel cm(deployment("llama-2-70b", "h100-sxm-80gb", "vllm", "bf16", 2));  // GQA: 8 KV heads
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token_per_layer(), 2.0 * 8 * 128 * 2);
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token(), 320.0 * 1024);
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token_per_device(), 160.0 * 1024);  // split over TP2
  }
  {
    const CostModel cm(deployment("llama-2-70b", "h100-sxm-80gb", "vllm", "bf16", 16));
    // 8 KV heads over TP16: each rank keeps one head (replication), not half of one.
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token_per_device(), 2.0 * 1 * 128 * 2 * 80);
  }
  {
    Deployment d = deployment("deepseek-v3", "h200-sxm-141gb", "vllm", "fp8", 8);
    const CostModel cm(d);  // MLA latent: kv_lora_rank + qk_rope_head_dim elements
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token_per_layer(), (d.model.mla->kv_lora_rank + d.model.mla->qk_rope_head_dim) * 2.0);
    EXPECT_DOUBLE_EQ(cm.kv_bytes_per_token_per_device(), cm.kv_bytes_per_token());  // replicated over TP
  }
}

// Question: does a sliding window cap the attended context (KV read and attention FLOPs)?
TEST(CostModel, SlidingWindowCapsAttention) {
  Deployment d = deployment("llama3.1-8b", "h100-sxm-80gb");
  d.model.sliding_window = 4096;
  const CostModel win(d);
  d.model.sliding_window = 0;
  const CostModel full(d);
  // Below the window both agree; beyond it the windowed cost stops growing.
  EXPECT_DOUBLE_EQ(win.iteration(win.decode(8, 1000)).memory_bytes, full.iteration(full.decode(8, 1000)).memory_bytes);
  EXPECT_DOUBLE_EQ(win.iteration(win.decode(8, 20000)).memory_bytes, win.iteration(win.decode(8, 50000)).memory_bytes);
  EXPECT_LT(win.iteration(win.decode(8, 20000)).memory_bytes, full.iteration(full.decode(8, 20000)).memory_bytes);
  // sum_{i=1..n} min(past + i, W) in closed form.
  EXPECT_DOUBLE_EQ(win.attention_pairs(4000, 200), 96 * 4000.0 + 96 * 97 / 2.0 + 104 * 4096.0);
}

// Question: does attention cost grow with context while weight traffic stays constant?
TEST(CostModel, DecodeCostGrowsWithContext) {
  const CostModel cm(deployment("llama3.1-8b", "h100-sxm-80gb"));
  const auto a = cm.iteration(cm.decode(32, 512)), b = cm.iteration(cm.decode(32, 8192));
  EXPECT_NEAR(b.memory_bytes - a.memory_bytes, 32 * (8192 - 512) * cm.kv_bytes_per_token(), 1.0);
  EXPECT_GT(b.flops, a.flops);
  EXPECT_GT(b.total_s, a.total_s);
}

// Question: does a MoE decode step read only the experts its tokens are routed to?
TEST(CostModel, MoeReadsActiveExpertsOnly) {
  const Deployment d = deployment("mixtral-8x7b", "h100-sxm-80gb", "vllm", "bf16", 2);
  const CostModel cm(d);
  const auto& m = d.model;
  const double expert = 3.0 * m.hidden * m.moe->expert_ffn_hidden * 2;  // bytes of one expert (bf16)
  const double one = cm.iteration(cm.decode(1, 0)).memory_bytes, many = cm.iteration(cm.decode(256, 0)).memory_bytes;
  // KV: each sequence reads its one cached token and writes one.
  const double kv1 = 2 * cm.kv_bytes_per_token_per_device(), kv256 = 2 * 256 * cm.kv_bytes_per_token_per_device();
  // One token touches top-k = 2 of 8 experts per layer; 256 tokens touch (almost) all 8.
  const double expect_delta = m.num_moe_layers() * expert * (8 * (1 - std::pow(1 - 2.0 / 8, 256)) - 2) / 2;  // per TP rank
  EXPECT_NEAR((many - kv256) - (one - kv1), expect_delta, 1e-6 * expect_delta);
  // Active linear parameters: the catalog's active count without embeddings and norms, plus the routers.
  EXPECT_NEAR(cm.linear_flops_per_token() / 2,
              m.params_active() - m.params_embedding() - (2.0 * m.layers + 1) * m.hidden + m.num_moe_layers() * double(m.hidden) * m.moe->num_experts, 1.0);
}

// Question: does TP add two ring all-reduces per layer and EP an all-to-all per MoE layer?
TEST(CostModel, ParallelCommunication) {
  const Deployment d = deployment("mixtral-8x7b", "h100-sxm-80gb", "vllm", "bf16", 4, 2);
  const CostModel cm(d);
  const auto& m = d.model;
  const double T = 1000, msg = T * m.hidden * 2;
  const double ar = 2.0 * m.layers * 2.0 * 3 / 4 * msg;
  const double a2a = 2.0 * m.num_moe_layers() * msg * m.moe->topk * 1 / 2;
  EXPECT_NEAR(cm.iteration(cm.prefill(1, 1000)).comm_bytes, ar + a2a, 1e-6 * (ar + a2a));
  EXPECT_GT(cm.iteration(cm.prefill(1, 1000)).comm_s, 0);
  EXPECT_THROW(deployment("llama-2-7b", "h100-sxm-80gb", "vllm", "bf16", 2, 2), Error);  // EP on a dense model
  EXPECT_THROW(deployment("llama-2-7b", "h100-sxm-80gb", "vllm", "bf16", 3), Error);     // 3 does not divide 32 heads
}

// Question: do quantised weights shorten a memory-bound decode step in proportion to their bytes?
TEST(CostModel, QuantisedWeightsShortenDecode) {
  const CostModel f16(deployment("llama3.1-8b", "h100-sxm-80gb", "vllm", "bf16"));
  const CostModel q4(deployment("llama3.1-8b", "h100-sxm-80gb", "vllm", "int4"));
  const double w16 = f16.iteration(f16.decode(1, 0)).memory_bytes, w4 = q4.iteration(q4.decode(1, 0)).memory_bytes;
  EXPECT_NEAR((w4 - 2 * q4.kv_bytes_per_token()) / (w16 - 2 * f16.kv_bytes_per_token()), 4.25 / 16, 1e-9);
  EXPECT_LT(q4.iteration(q4.decode(1, 0)).total_s, f16.iteration(f16.decode(1, 0)).total_s);
  EXPECT_EQ(q4.compute_type(), DType::BF16);  // W4A16 multiplies in bf16
}

// Question: does cross-layer KV sharing divide the KV cache (and its traffic), not the attention FLOPs?
TEST(CostModel, CrossLayerKvSharing) {
  Deployment d = deployment("llama3.1-8b", "h100-sxm-80gb");
  const CostModel own(d);
  d.kv_share_layers = 2;
  const CostModel shared(d);
  EXPECT_DOUBLE_EQ(shared.kv_bytes_per_token(), own.kv_bytes_per_token() / 2);
  const auto a = own.iteration(own.decode(64, 4000)), b = shared.iteration(shared.decode(64, 4000));
  EXPECT_NEAR(a.memory_bytes - b.memory_bytes, 64 * 4001 * own.kv_bytes_per_token() / 2 + 64 * own.kv_bytes_per_token() / 2, 1.0);
  EXPECT_DOUBLE_EQ(a.flops, b.flops);
  d.kv_share_layers = 0;
  EXPECT_THROW(CostModel{d}, Error);
}
