// FP8 activations: the tensors a layer saves under Transformer Engine FP8, worked out by
// hand from TE's saved-tensor rules (docs/memory-model.md §2c; TransformerEngine v2.18
// transformer_engine/pytorch/module/linear.py, layernorm_linear.py, grouped_linear.py).
// A TE linear with a trained weight keeps only its FP8 input copy (1 B per element; MXFP8
// adds one E8M0 scale per 32 values); norms' inputs, attention's Q, K, V, O, the
// activation function's input and the router's input stay 16-bit.
#include <catch2/catch.hpp>

#include "gpucalc/memory.hpp"

using namespace gpucalc;

namespace {

Training llama70b_training(Precision p, Fp8Recipe r) {
  Training t;
  t.seq_len = 8192;
  t.global_batch = 2048;
  t.tokens = 15e12;
  t.precision = p;
  t.fp8_recipe = r;
  return t;
}

}  // namespace

TEST_CASE("Llama 3.1 70B layer under TE FP8: 28·s·b·h/t saved instead of 33.5", "[memory][activations][fp8]") {
  // Per token, in units of h = 8192 (g·d = 1024 = h/8, f = 28672 = 3.5h), TP 8 with SP:
  //   two norm inputs, bf16:                 2 × 2 B × h        = 4 h
  //   QKV and fc1 inputs (TE ln_out), FP8:   2 × 1 B × h        = 2 h    (bf16: 4 h)
  //   Q, K, V, O for attention, bf16:        2 B × (2h + 2gd)   = 4.5 h
  //   SwiGLU input (gate, up) bf16 + fc2's FP8 input:
  //                                          2 B × 2f + 1 B × f = 17.5 h (bf16: 21 h)
  // = 28 h, all split 8 ways, plus FlashAttention's fp32 LSE (4 B × a per token / t).
  const ModelShape m = *find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  const double sbh = 8192.0 * 8192;
  const double lse = 4.0 * 8192 * 64 / 8;
  SECTION("current (tensorwise) scaling") {
    const Training t = llama70b_training(Precision::fp8, Fp8Recipe::tensorwise);
    CHECK(activation_bytes_per_layer(m, t, l) == Approx(28.0 * sbh / 8 + lse).epsilon(1e-12));
  }
  SECTION("delayed scaling: linear_proj also keeps an FP8 copy of O (a·d = h), +1 h") {
    const Training t = llama70b_training(Precision::fp8, Fp8Recipe::delayed);
    CHECK(activation_bytes_per_layer(m, t, l) == Approx(29.0 * sbh / 8 + lse).epsilon(1e-12));
  }
  SECTION("MXFP8: one E8M0 scale byte per 32 values on the 5.5 h of FP8 copies") {
    // FP8 copies: QKV and fc1 inputs (2 h) and fc2's input (f = 3.5 h), 33/32 B each:
    // 28 + 5.5/32 = 28.171875 h
    const Training t = llama70b_training(Precision::fp8, Fp8Recipe::mxfp8);
    CHECK(activation_bytes_per_layer(m, t, l) == Approx(28.171875 * sbh / 8 + lse).epsilon(1e-12));
  }
  SECTION("BF16 is unchanged: 33.5 h") {
    const Training t = llama70b_training(Precision::bf16, Fp8Recipe::tensorwise);
    CHECK(activation_bytes_per_layer(m, t, l) == Approx(33.5 * sbh / 8 + lse).epsilon(1e-12));
  }
}

TEST_CASE("FP8 keeps 16-bit saved inputs where the stack does", "[memory][activations][fp8]") {
  const ModelShape m = *find_model("llama-3.1-70b");
  Layout l;
  l.tp = 8;
  const Training bf16 = llama70b_training(Precision::bf16, Fp8Recipe::tensorwise);
  SECTION("torchao Float8Linear saves its bf16 input (float8_linear.py save_for_backward(input_hp, ...))") {
    Training t = llama70b_training(Precision::fp8, Fp8Recipe::tensorwise);
    t.framework = Framework::torchtitan;
    Training b = bf16;
    b.framework = Framework::torchtitan;
    CHECK(activation_bytes_per_layer(m, t, l) == activation_bytes_per_layer(m, b, l));
  }
  SECTION("LoRA: the frozen TE base keeps nothing, the adapter keeps the 16-bit input") {
    Training t = llama70b_training(Precision::fp8, Fp8Recipe::delayed);
    t.stage = Stage::lora;
    Training b = bf16;
    b.stage = Stage::lora;
    CHECK(activation_bytes_per_layer(m, t, l) == activation_bytes_per_layer(m, b, l));
  }
}

TEST_CASE("Qwen3-30B-A3B MoE layer under TE FP8: 90240 B per token", "[memory][activations][fp8][moe]") {
  // h = 2048, 32 query / 4 KV heads of d = 128 with q/k norms, 128 experts, top-8, f_e =
  // 768, no shared experts; TP 1, EP 8, s = 4096, b = 1, balanced routing. Per token:
  //   two norm inputs, bf16:                2 × 2 × 2048          =  8192
  //   q/k norm inputs, bf16:                2 × (32 + 4) × 128    =  9216
  //   QKV input (TE ln_out), FP8:           1 × 2048              =  2048
  //   MoE norm output kept by the router:   2 × 2048              =  4096
  //   Q, K, V, O, bf16:                     2 × (4096+512+512+4096) = 18432
  //   8 routed copies × (FP8 permuted input 2048 + bf16 SwiGLU input 2 × 2 × 768
  //                      + FP8 fc2 input 768) = 8 × 5888          = 47104
  //   router fp32 logits and probabilities: 8 × 128               =  1024
  //   FlashAttention LSE:                   4 × 32                =   128
  // = 90240 B; bf16 keeps 1 B more on the QKV input (2048) and on each routed copy's
  // permuted input and fc2 input (8 × 2816): 114816 B.
  ModelShape m = *find_model("qwen3-30b-a3b");
  m.moe.load_imbalance = 1.0;
  Training t;
  t.seq_len = 4096;
  t.global_batch = 512;
  t.tokens = 1e12;
  t.precision = Precision::fp8;
  Layout l;
  l.ep = 8;
  l.dp = 8;
  const double sb = 4096.0;
  CHECK(activation_bytes_per_layer(m, t, l, true) == Approx(90240.0 * sb).epsilon(1e-12));
  t.precision = Precision::bf16;
  CHECK(activation_bytes_per_layer(m, t, l, true) == Approx(114816.0 * sb).epsilon(1e-12));
}
