// Memory model, pinned to the ZeRO paper's example and to Korthikanti et al.'s
// activation formulas on their own terms (GPT layer with dropout, no FlashAttention).
#include <catch2/catch.hpp>

#include "gpucalc/memory.hpp"

using namespace gpucalc;

TEST_CASE("ZeRO paper 7.5B example at DP 64: 120 / 31.4 / 16.6 / 1.9 GB", "[memory][zero]") {
  // Rajbhandari et al. 2020, Figure 1: Ψ = 7.5B, K = 12, N_d = 64.
  const double psi = 7.5e9, GB = 1e9;
  CHECK(model_state_bytes(psi, 0, 64).total() / GB == Approx(120.0).epsilon(1e-9));
  CHECK(model_state_bytes(psi, 1, 64).total() / GB == Approx(31.4).margin(0.05));
  CHECK(model_state_bytes(psi, 2, 64).total() / GB == Approx(16.6).margin(0.05));
  CHECK(model_state_bytes(psi, 3, 64).total() / GB == Approx(1.9).margin(0.05));
}

namespace {

// A GPT layer as Korthikanti et al. 2022 analyse it: f = 4h, MHA, dropout, 16-bit.
ModelShape korthikanti_gpt(int64_t h, int64_t a) {
  ModelShape m;
  m.layers = 96;
  m.hidden = h;
  m.heads = a;
  m.kv_heads = a;
  m.ffn_hidden = 4 * h;
  m.vocab = 51200;
  m.ffn_act = FfnAct::gelu;
  m.norm = Norm::layernorm;
  m.linear_bias = true;
  m.dropout = true;
  m.position = PositionEmbedding::learned;
  m.max_position_embeddings = 2048;
  return m;
}

Training korthikanti_training(bool sp) {
  Training t;
  t.seq_len = 2048;
  t.global_batch = 64;
  t.tokens = 1e12;
  t.flash_attention = false;  // the paper materialises attention scores
  t.sequence_parallel = sp;
  return t;
}

}  // namespace

TEST_CASE("Korthikanti Table 2: per-layer activations for every parallel setting", "[memory][activations]") {
  const int64_t h = 12288, a = 96, s = 2048, b = 1;
  const ModelShape m = korthikanti_gpt(h, a);
  const double sbh = double(s) * b * h, as_h = double(a) * s / h;
  Layout l;
  l.micro_batch = b;

  SECTION("no parallelism: sbh(34 + 5as/h)") {
    CHECK(activation_bytes_per_layer(m, korthikanti_training(false), l) ==
          Approx(sbh * (34 + 5 * as_h)).epsilon(1e-12));
  }
  for (int64_t t : {2, 4, 8}) {
    l.tp = t;
    SECTION("tensor parallel t = " + std::to_string(t) + ": sbh(10 + 24/t + 5as/(ht))") {
      CHECK(activation_bytes_per_layer(m, korthikanti_training(false), l) ==
            Approx(sbh * (10 + 24.0 / t + 5 * as_h / t)).epsilon(1e-12));
    }
    SECTION("tensor + sequence parallel t = " + std::to_string(t) + ": sbh(34 + 5as/h)/t") {
      CHECK(activation_bytes_per_layer(m, korthikanti_training(true), l) ==
            Approx(sbh * (34 + 5 * as_h) / t).epsilon(1e-12));
    }
    SECTION("TP + SP + selective recompute t = " + std::to_string(t) + ": 34sbh/t") {
      l.recompute = Recompute::selective;
      CHECK(activation_bytes_per_layer(m, korthikanti_training(true), l) == Approx(34 * sbh / t).epsilon(1e-12));
    }
  }
}

TEST_CASE("full recomputation keeps 2sbh/t per layer plus one rebuilt layer", "[memory][activations]") {
  const ModelShape m = korthikanti_gpt(12288, 96);
  const Training tr = korthikanti_training(true);
  Layout l;
  l.tp = 8;
  l.pp = 1;
  l.dp = 64;
  l.micro_batch = 1;
  l.recompute = Recompute::full;
  Overheads o;
  const auto st = stage_memory(m, tr, l, o, 0);
  const double sbh = 2048.0 * 12288;
  CHECK(st.layer_activations == Approx(96 * 2 * sbh / 8).epsilon(1e-12));
  Layout none = l;
  none.recompute = Recompute::none;
  CHECK(st.recompute_working == Approx(activation_bytes_per_layer(m, tr, none)).epsilon(1e-12));
}

TEST_CASE("1F1B: the first stage holds L layers' worth, interleaving adds (p-1)/(p·v)", "[memory][pipeline]") {
  // Korthikanti et al. 2022 §4.2.3.
  const ModelShape m = korthikanti_gpt(12288, 96);
  Training tr = korthikanti_training(true);
  tr.global_batch = 1536;  // m = 1536 / (dp 8 · b 1) = 192 micro-batches ≥ p
  Overheads o;
  Layout l;
  l.tp = 8;
  l.pp = 8;
  l.dp = 8;
  l.micro_batch = 1;
  l.recompute = Recompute::selective;
  const double per_layer = activation_bytes_per_layer(m, tr, l);
  const auto first = stage_memory(m, tr, l, o, 0);
  CHECK(first.in_flight == 8);
  CHECK(first.layer_activations == Approx(96 * per_layer).epsilon(1e-12));  // p · L/p = L
  const auto last = stage_memory(m, tr, l, o, 7);
  CHECK(last.in_flight == 1);
  CHECK(last.layer_activations == Approx(12 * per_layer).epsilon(1e-12));

  l.vpp = 3;  // 96 / (8·3) = 4 layers per chunk
  const auto inter = stage_memory(m, tr, l, o, 0);
  CHECK(inter.layer_activations == Approx(96 * per_layer * (1 + 7.0 / (8 * 3))).epsilon(1e-12));
}

TEST_CASE("FlashAttention removes the s² score term, leaving O(s) statistics", "[memory][activations]") {
  ModelShape m = korthikanti_gpt(12288, 96);
  m.dropout = false;
  Training tr = korthikanti_training(true);
  Layout l;
  l.tp = 8;
  const double no_flash = activation_bytes_per_layer(m, tr, l);
  tr.flash_attention = true;
  const double flash = activation_bytes_per_layer(m, tr, l);
  const double s = 2048, a = 96, b = 1;
  // Without dropout the materialised softmax is 2·a·s²·b/t; flash keeps 4·a·s·b/t (fp32 LSE).
  CHECK(no_flash - flash == Approx(2 * a * s * s * b / 8 - 4 * a * s * b / 8).epsilon(1e-12));
}

TEST_CASE("modern layer (SwiGLU, GQA, no dropout, flash): Llama 3 70B saves 33.5·s·b·h per layer",
          "[memory][activations]") {
  // docs/memory-model.md: 8h (norm region) + 4h + 4gd (Q,K,V,O) + 6f (SwiGLU) per s·b,
  // 2 bytes each, plus the fp32 LSE; for h = 8192, g·d = 1024, f = 28672 that is 33.5 h.
  const ModelShape m = *find_model("llama-3.1-70b");
  Training tr;
  tr.seq_len = 8192;
  tr.global_batch = 2048;
  tr.tokens = 15e12;
  Layout l;
  l.tp = 8;
  const double sbh = 8192.0 * 8192;
  const double lse = 4.0 * 8192 * 64 / 8;
  CHECK(activation_bytes_per_layer(m, tr, l) == Approx(33.5 * sbh / 8 + lse).epsilon(1e-12));
}

TEST_CASE("embeddings sit on the first stage, the head and logits on the last", "[memory][pipeline]") {
  const ModelShape m = *find_model("llama-3.1-70b");
  Training tr;
  tr.seq_len = 8192;
  tr.global_batch = 64;
  tr.tokens = 1e12;
  Layout l;
  l.tp = 8;
  l.pp = 4;
  l.dp = 2;
  l.micro_batch = 1;
  l.zero_stage = 0;
  Overheads o;
  const auto first = stage_memory(m, tr, l, o, 0);
  const auto last = stage_memory(m, tr, l, o, 3);
  const auto pc = count_params(m);
  const double layers = 20.0 * (double(pc.attention + pc.mlp) / 8 + double(pc.layer_norms));
  CHECK(first.weights == Approx(2 * (layers + double(pc.embedding) / 8)).epsilon(1e-12));
  CHECK(last.weights == Approx(2 * (layers + double(pc.head) / 8 + double(pc.final_norm))).epsilon(1e-12));
  CHECK(first.logits == 0);
  // s·b·V/t logits in bf16 (2 B) and fp32 softmax (4 B), plus the norm and head inputs.
  const double sbv = 8192.0 * 128256 / 8, sbh = 8192.0 * 8192 / 8;
  CHECK(last.logits == Approx(6 * sbv + 2 * 2 * sbh).epsilon(1e-12));
}

TEST_CASE("more data parallelism never raises per-GPU memory for the same layout", "[memory][property]") {
  const ModelShape m = *find_model("llama-3.1-8b");
  Training tr;
  tr.seq_len = 8192;
  tr.global_batch = 1024;
  tr.tokens = 1e12;
  Overheads o;
  for (int zero = 0; zero <= 3; ++zero) {
    double prev = 1e300;
    for (int64_t dp : {2, 4, 8, 16, 32, 64}) {
      Layout l;
      l.tp = 2;
      l.dp = dp;
      l.zero_stage = zero;
      const double total = worst_stage_memory(m, tr, l, o).total();
      INFO("zero " << zero << " dp " << dp);
      CHECK(total <= prev);
      prev = total;
    }
  }
}

TEST_CASE("torchtitan op-level selective AC saves the block input, odd matmuls and the attention output",
          "[memory][framework]") {
  // torchtitan parallelize_llama.py: save mm outputs except every second one, and SDPA.
  // Llama block matmuls wq, wk, wv, wo, w1, w3, w2 → saved wq (a·d), wv (g·d), w1 (f), w2 (h).
  const ModelShape m = *find_model("llama-3.1-8b");
  Training tr;
  tr.seq_len = 8192;
  tr.global_batch = 16;
  tr.tokens = 1e12;
  tr.framework = Framework::torchtitan;
  Layout l;
  l.dp = 8;
  l.micro_batch = 2;
  l.recompute = Recompute::selective;
  const double sb = 8192.0 * 2, h = 4096, ad = 4096, gd = 1024, f = 14336;
  const double lse = 4.0 * 2 * 8192 * 32;
  CHECK(activation_bytes_per_layer(m, tr, l) == Approx(2 * sb * (h + ad + gd + f + h + ad) + lse).epsilon(1e-12));
  // Megatron's selective (core attention) with FlashAttention keeps everything.
  tr.framework = Framework::megatron;
  Layout none = l;
  none.recompute = Recompute::none;
  CHECK(activation_bytes_per_layer(m, tr, l) == activation_bytes_per_layer(m, tr, none));
}

TEST_CASE("the loss holds 6 B per logit in Megatron and 12 B in torchtitan", "[memory][framework]") {
  const ModelShape m = *find_model("llama-3.1-8b");
  Training tr;
  tr.seq_len = 8192;
  tr.global_batch = 16;
  tr.tokens = 1e12;
  Layout l;
  l.dp = 8;
  l.micro_batch = 2;
  Overheads o;
  const double sbv = 8192.0 * 2 * 128256, sbh = 8192.0 * 2 * 4096;
  CHECK(stage_memory(m, tr, l, o, 0).logits == Approx(6 * sbv + 4 * sbh).epsilon(1e-12));
  tr.framework = Framework::torchtitan;
  CHECK(stage_memory(m, tr, l, o, 0).logits == Approx(12 * sbv + 4 * sbh).epsilon(1e-12));
}

TEST_CASE("QLoRA prepared by PEFT keeps an fp32 residual stream: 4sbh checkpoints, 4 B head inputs",
          "[memory][finetune]") {
  // peft prepare_model_for_kbit_training casts the embedding, norms and head to fp32;
  // bitsandbytes' Linear4bit returns its input's dtype (docs/memory-model.md §1b). torchtune's
  // QLoRA keeps bf16.
  const ModelShape m = *find_model("llama-3.1-8b");
  Training tr;
  tr.seq_len = 5789;
  tr.global_batch = 1;
  tr.tokens = 1e8;
  tr.stage = Stage::qlora;
  tr.framework = Framework::hf;
  Layout l;
  l.micro_batch = 1;
  l.recompute = Recompute::full;
  Overheads o;
  const double sbh = 5789.0 * 4096, sbv = 5789.0 * 128256;
  CHECK(stream_elem_bytes(tr) == 4.0);
  const auto hf = stage_memory(m, tr, l, o, 0);
  CHECK(hf.layer_activations == Approx(32 * 4 * sbh).epsilon(1e-12));
  CHECK(hf.logits == Approx(2 * 4 * sbh + 12 * sbv).epsilon(1e-12));
  tr.framework = Framework::torchtune;
  CHECK(stream_elem_bytes(tr) == 2.0);
  const auto tt = stage_memory(m, tr, l, o, 0);
  CHECK(tt.layer_activations == Approx(32 * 2 * sbh).epsilon(1e-12));
  // The rebuilt layer's norm, adapter-input and MLP tensors double; attention's Q, K, V, O
  // (16-bit FlashAttention copies) and the statistics do not, so it grows by less than 2x.
  CHECK(hf.recompute_working > 1.5 * tt.recompute_working);
  CHECK(hf.recompute_working < 2.0 * tt.recompute_working);
  // LLaMA-Factory's default (lora.fp32_upcast false): 16-bit stream, norms, embedding, head.
  tr.framework = Framework::hf;
  tr.lora.fp32_upcast = false;
  CHECK(stream_elem_bytes(tr) == 2.0);
  const auto lf = stage_memory(m, tr, l, o, 0);
  CHECK(lf.layer_activations == Approx(tt.layer_activations).epsilon(1e-12));
  // The embedding and head (2 x 128256 x 4096) at 2 B instead of 4.
  CHECK(hf.weights - lf.weights == Approx(2.0 * 2 * 128256.0 * 4096).epsilon(1e-3));
  // LoRA (no 4-bit base) under hf keeps the 16-bit stream.
  tr.lora.fp32_upcast = true;
  tr.stage = Stage::lora;
  CHECK(stream_elem_bytes(tr) == 2.0);
}

TEST_CASE("an eager gated MLP keeps its activation's output: 4f per token, 3f when fused", "[memory][framework]") {
  // docs/memory-model.md §2: Transformers' LlamaMLP and torchtitan's / torchtune's
  // FeedForward run down(silu(gate(x)) * up(x)) as eager ops; autograd keeps gate, silu(gate),
  // up and the product. Megatron-Core's bias_swiglu, Liger's SiLU-mul and a compiled graph
  // keep gate, up and the product. Llama 3.1 8B, one GPU, no recomputation:
  // 2·s·b·(4h + 2ad + 2gd + 3f) + 4·b·a·s fused, plus 2·s·b·f eager.
  const ModelShape m = *find_model("llama-3.1-8b");
  Training tr;
  tr.seq_len = 4096;
  tr.global_batch = 8;
  tr.tokens = 1e9;
  Layout l;
  l.micro_batch = 2;
  const double sb = 4096.0 * 2, h = 4096, f = 14336;
  const double fused = 2 * sb * (4 * h + 2 * 32 * 128 + 2 * 8 * 128 + 3 * f) + 4.0 * 2 * 32 * 4096;
  CHECK(activation_bytes_per_layer(m, tr, l) == Approx(fused).epsilon(1e-12));  // megatron
  for (Framework fw : {Framework::hf, Framework::torchtitan, Framework::torchtune, Framework::deepspeed}) {
    tr.framework = fw;
    tr.liger_kernel = false;
    tr.torch_compile = false;
    CHECK(activation_bytes_per_layer(m, tr, l) == Approx(fused + 2 * sb * f).epsilon(1e-12));
    tr.torch_compile = true;
    CHECK(activation_bytes_per_layer(m, tr, l) == Approx(fused).epsilon(1e-12));
  }
  tr.framework = Framework::hf;
  tr.torch_compile = false;
  tr.liger_kernel = true;
  CHECK(activation_bytes_per_layer(m, tr, l) == Approx(fused).epsilon(1e-12));
}
