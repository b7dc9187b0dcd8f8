// Parameter counts, pinned to the totals the models' publishers report.
#include <catch2/catch.hpp>
#include <cstdlib>

#include "gpucalc/model.hpp"

using namespace gpucalc;

TEST_CASE("Llama 3.1 totals match the published safetensors counts exactly", "[params]") {
  // The parameter totals of the meta-llama Llama 3.1 safetensors checkpoints on Hugging Face.
  CHECK(count_params(*find_model("llama-3.1-8b")).total == 8'030'261'248);
  CHECK(count_params(*find_model("llama-3.1-70b")).total == 70'553'706'496);
  CHECK(count_params(*find_model("llama-3.1-405b")).total == 405'853'388'800);
}

TEST_CASE("Qwen2.5-72B counts its QKV biases and lands on the model card's 72.7B", "[params]") {
  const auto pc = count_params(*find_model("qwen2.5-72b"));
  CHECK(pc.total == 72'706'203'648);
  // Model card: 72.7B total, 70.0B non-embedding (embedding + head = 2·V·h).
  CHECK(pc.total == Approx(72.7e9).epsilon(0.001));
  CHECK(pc.total - pc.embedding - pc.head == Approx(70.0e9).epsilon(0.005));
}

TEST_CASE("GPT-3 175B follows Narayanan et al. 2021 eq. (2) plus the final LayerNorm", "[params]") {
  const ModelShape m = *find_model("gpt3-175b");
  const double L = 96, h = 12288, V = 50257, s = 2048;
  // eq. (2): P = 12 L h^2 (1 + 13/(12h) + (V + s)/(12 L h))
  const double eq2 = 12 * L * h * h * (1 + 13 / (12 * h) + (V + s) / (12 * L * h));
  const auto pc = count_params(m);
  CHECK(static_cast<double>(pc.total) == Approx(eq2 + 2 * h).epsilon(1e-12));
  CHECK(pc.total == 174'604'259'328);
  CHECK(pc.head == 0);  // tied
}

TEST_CASE("every preset reproduces its published_params", "[params]") {
  // Exact, except where the publisher gives only a rounded total: then within the
  // tolerance that rounding allows (data/models.json says why, per preset).
  for (const auto& m : model_presets()) {
    INFO(m.id);
    const int64_t diff = count_params(m).total - m.published_params;
    CHECK((diff < 0 ? -diff : diff) <= m.published_params_tolerance);
  }
  CHECK(model_presets().size() >= 25);
}

TEST_CASE("only the presets without an exact published total carry a tolerance", "[params]") {
  // DeepSeek LLM 67B: the paper's "67B" (nearest billion, so +/- 0.5B).
  // Baichuan 2: no exact total published; the README's bf16 weight memory (14.0 / 25.9 GB,
  // GiB, one decimal) pins the count to +/- 0.05 GiB / 2 bytes.
  for (const auto& m : model_presets()) {
    INFO(m.id);
    if (m.id == "deepseek-llm-67b") {
      CHECK(m.published_params == 67'000'000'000);
      CHECK(m.published_params_tolerance == 500'000'000);
      CHECK(count_params(m).total == 67'425'001'472);
    } else if (m.id == "deepseek-v3" || m.id == "deepseek-r1") {
      // The report's "671B total parameters" (nearest billion); the count is exact below.
      CHECK(m.published_params == 671'000'000'000);
      CHECK(m.published_params_tolerance == 500'000'000);
    } else if (m.id == "glm-4.5") {
      // The report's "355B" lies between the main model and the main model + its MTP module.
      CHECK(m.published_params_tolerance == 2'500'000'000);
    } else if (m.id == "glm-4.5-air") {
      CHECK(m.published_params_tolerance == 1'000'000'000);  // "106B", rounded
    } else if (m.id == "ernie-4.5-21b-a3b") {
      CHECK(m.published_params_tolerance == 1'000'000'000);  // "21B" for 21.83B, rounded down
    } else if (m.id == "gpt-oss-120b" || m.id == "gpt-oss-20b") {
      // The model card's 116.83B / 20.91B (two decimals); the count is exact below.
      CHECK(m.published_params_tolerance == 5'000'000);
    } else if (m.id == "baichuan2-7b" || m.id == "baichuan2-13b") {
      const double gib = m.id == "baichuan2-7b" ? 14.0 : 25.9;
      CHECK(static_cast<double>(m.published_params) == Approx(gib * 1024 * 1024 * 1024 / 2).margin(1));
      CHECK(m.published_params_tolerance == 26'843'546);  // 0.05 GiB of bf16 weights
    } else {
      CHECK(m.published_params_tolerance == 0);
    }
  }
  CHECK(count_params(*find_model("baichuan2-7b")).total == 7'505'973'248);
  CHECK(count_params(*find_model("baichuan2-13b")).total == 13'896'668'160);
}

TEST_CASE("Qwen3 adds per-head q/k norms and has no QKV bias", "[params]") {
  ModelShape m = *find_model("qwen3-8b");
  CHECK(count_params(m).total == 8'190'735'360);  // safetensors
  CHECK_FALSE(m.qkv_bias);
  const auto with = count_params(m);
  m.qk_norm = false;
  const auto without = count_params(m);
  CHECK(with.layer_norms - without.layer_norms == 2 * 128);  // q_norm and k_norm, head_dim each
  CHECK(with.total - without.total == 36 * 2 * 128);
  CHECK(with.matmul == without.matmul);  // norms are not matmuls
}

TEST_CASE("head_dim other than hidden/heads is counted as given", "[params]") {
  // Qwen3 32B: 64 heads of 128 on hidden 5120 (5120/64 = 80); Mistral NeMo: 32 of 128 on 5120.
  const ModelShape q = *find_model("qwen3-32b");
  CHECK(head_dim(q) == 128);
  CHECK(count_params(q).attention == 5120 * 64 * 128 + 2 * 5120 * 8 * 128 + 64 * 128 * 5120);
  CHECK(count_params(q).total == 32'762'123'264);
  const ModelShape n = *find_model("mistral-nemo-12b");
  CHECK(head_dim(n) == 128);
  CHECK(count_params(n).total == 12'247'782'400);
}

TEST_CASE("Gemma 2: GeGLU counts like SwiGLU, four norms per layer, tied embeddings", "[params]") {
  ModelShape m = *find_model("gemma-2-9b");
  CHECK(m.ffn_act == FfnAct::geglu);
  CHECK(gated_ffn(m.ffn_act));
  const auto pc = count_params(m);
  CHECK(pc.mlp == 3 * 3584 * 14336);
  CHECK(pc.layer_norms == 4 * 3584);
  CHECK(pc.head == 0);
  CHECK(pc.total == 9'241'705'984);  // safetensors
  m.ffn_act = FfnAct::swiglu;
  CHECK(count_params(m).total == pc.total);
  CHECK(layer_matmul_params(m) == layer_matmul_params(*find_model("gemma-2-9b")));
  m.ffn_act = FfnAct::gelu;
  CHECK(pc.mlp - count_params(m).mlp == 3584 * 14336);
}

TEST_CASE("Gemma 3: the text decoder plus SigLIP and the projector is the checkpoint total", "[params]") {
  // SigLIP so400m as configured in Gemma 3 (vision_config: width 1152, 27 layers, MLP 4304,
  // 896 px images in 14 px patches): patch conv with bias, position table, 27 pre-LN
  // blocks with biased Q/K/V/O and fc1/fc2, and a final LayerNorm.
  const int64_t w = 1152, mlp = 4304, layers = 27, patches = (896 / 14) * (896 / 14);
  const int64_t block = 4 * (w * w + w) + (w * mlp + mlp) + (mlp * w + w) + 2 * 2 * w;
  const int64_t siglip = (3 * 14 * 14 * w + w) + patches * w + layers * block + 2 * w;
  CHECK(siglip == 416'866'032);
  // Projector: mm_input_projection (1152 x h) and mm_soft_emb_norm (1152).
  const ModelShape g12 = *find_model("gemma-3-12b");
  const ModelShape g27 = *find_model("gemma-3-27b");
  CHECK(count_params(g12).total + siglip + w * g12.hidden + w == 12'187'325'040);  // safetensors
  CHECK(count_params(g27).total + siglip + w * g27.hidden + w == 27'432'406'640);  // safetensors
  CHECK(count_params(g12).layer_norms == 4 * 3840 + 2 * 256);
}

TEST_CASE("ALiBi, like RoPE, adds no parameters", "[params]") {
  ModelShape m = *find_model("baichuan2-13b");
  CHECK(m.position == PositionEmbedding::alibi);
  const auto alibi = count_params(m);
  m.position = PositionEmbedding::rope;
  CHECK(count_params(m).total == alibi.total);
  CHECK(alibi.position == 0);
}

TEST_CASE("GQA shrinks K and V projections by heads/kv_heads", "[params]") {
  ModelShape m = *find_model("llama-3.1-70b");
  const auto gqa = count_params(m);
  m.kv_heads = m.heads;  // multi-head attention
  const auto mha = count_params(m);
  // K and V: 2·h·g·d → 2·h·a·d; difference 2·h·d·(a - g) per layer.
  CHECK(mha.attention - gqa.attention == 2 * 8192 * 128 * (64 - 8));
}

// ---- Mixture of Experts and MLA (issue 4) ------------------------------------------
// Totals and activated counts from the models' own cards and reports (data/models.json
// names each source); DeepSeek counts activated parameters without the input embedding.
TEST_CASE("MoE presets reproduce their published total and active counts", "[params][moe]") {
  int moe = 0;
  for (const auto& m : model_presets()) {
    if (!is_moe(m)) continue;
    ++moe;
    INFO(m.id);
    const ParamCounts pc = count_params(m);
    const int64_t total_diff = pc.total - m.published_params;
    CHECK((total_diff < 0 ? -total_diff : total_diff) <= m.published_params_tolerance);
    REQUIRE(m.published_active_params > 0);
    const int64_t active = pc.active - (m.active_params_include_input_embedding ? 0 : pc.embedding);
    const int64_t active_diff = active - m.published_active_params;
    CHECK((active_diff < 0 ? -active_diff : active_diff) <= m.published_active_tolerance);
  }
  CHECK(moe >= 7);
}

TEST_CASE("DeepSeek-V3 counted module by module", "[params][moe]") {
  const ModelShape* m = find_model("deepseek-v3");
  REQUIRE(m);
  const ParamCounts pc = count_params(*m);
  // MLA attention (HF DeepseekV3Attention): q_a 7168·1536 + q_a_norm 1536 + q_b 1536·128·192
  // + kv_a 7168·576 + kv_a_norm 512 + kv_b 512·128·256 + o 128·128·7168.
  CHECK(pc.attention ==
        7168LL * 1536 + 1536 + 1536LL * 128 * 192 + 7168LL * 576 + 512 + 512LL * 128 * 256 + 128LL * 128 * 7168);
  CHECK(pc.expert == 3LL * 7168 * 2048);
  CHECK(pc.router == 256LL * 7168 + 256);  // gate + e_score_correction_bias
  CHECK(pc.dense_layers == 3);
  CHECK(pc.moe_layers == 58);
  CHECK(pc.total == 671'026'419'200);  // main model without the MTP module
  // 36.6B activated "including 0.9B for the output head" (DeepSeek README_WEIGHTS.md).
  CHECK(pc.active - pc.embedding == 36'625'618'432);
}

TEST_CASE("gpt-oss counted module by module: biased attention, experts and router", "[params][moe]") {
  // transformers GptOssForCausalLM (openai/gpt-oss-120b config.json): q 2880->64x64, k and v
  // 2880->8x64, o 64x64->2880, all with bias (attention_bias); each of the 128 experts a
  // gate_up 2880->2x2880 and a down 2880->2880 with their biases; the router 2880->128 with
  // bias; two RMSNorms per layer. The attention sinks (64 per layer) are not counted.
  const ModelShape* m = find_model("gpt-oss-120b");
  REQUIRE(m);
  const ParamCounts pc = count_params(*m);
  CHECK(pc.attention == 2880LL * 4096 + 4096 + 2 * (2880LL * 512 + 512) + 4096LL * 2880 + 2880);
  CHECK(pc.expert == 2880LL * 5760 + 5760 + 2880LL * 2880 + 2880);
  CHECK(pc.router == 2880LL * 128 + 128);
  CHECK(pc.total == 116'829'156'672 - 36 * 64);                // the card's 116.83B: 116,829,156,672 with the sinks
  CHECK(pc.active - pc.embedding == 5'132'849'472 - 36 * 64);  // 5.13B: 4 experts, the head, no embedding
  // The biases are parameters, not matmul FLOPs: the matmul count holds the weights only.
  CHECK(pc.active_matmul ==
        36 * (2880LL * 4096 * 2 + 2 * 2880LL * 512 + 4 * 3 * 2880LL * 2880 + 2880LL * 128) + 201088LL * 2880);
  const ModelShape* small = find_model("gpt-oss-20b");
  REQUIRE(small);
  CHECK(count_params(*small).total == 20'914'757'184 - 24 * 64);
}

TEST_CASE("GLM-4.5 counted module by module: GQA with q/k/v biases and q/k norms, DeepSeek-style MoE",
          "[params][moe]") {
  // transformers Glm4MoeForCausalLM (zai-org/GLM-4.5 config.json): q 5120->96x128, k and v
  // 5120->8x128, all three with bias, o 96x128->5120 without; per-head q/k RMSNorm (128
  // each); 3 dense layers (MLP 12288), 89 MoE layers of 160 experts (1536) + 1 shared; the
  // router 160x5120 with its correction bias; one MTP module (a MoE layer, eh_proj 2h->h,
  // enorm, hnorm and a final norm).
  const ModelShape* m = find_model("glm-4.5");
  REQUIRE(m);
  const int64_t h = 5120;
  const ParamCounts pc = count_params(*m);
  CHECK(pc.attention == h * 12288 + 12288 + 2 * (h * 1024 + 1024) + 12288 * h);
  CHECK(pc.layer_norms == 2 * h + 2 * 128);
  CHECK(pc.expert == 3 * h * 1536);
  CHECK(pc.router == 160 * h + 160);
  CHECK(pc.dense_layers == 3);
  CHECK(pc.moe_layers == 89);
  CHECK(pc.total == 352'797'829'024);
  CHECK(pc.mtp_module == pc.moe_per_layer + 3 * h + 2 * h * h);
  CHECK(pc.mtp_module == 3'988'069'792);
  // The report's 355B: between the main model (352.8B) and main + MTP (356.8B).
  CHECK(pc.total < 355'000'000'000);
  CHECK(pc.total + pc.mtp_module > 355'000'000'000);
  CHECK(count_params(*find_model("glm-4.5-air")).total == 106'852'251'264);
}

TEST_CASE("ERNIE 4.5 21B-A3B preset: 21,825,437,888 as its config counts, 3.08B active", "[params][moe]") {
  // The hand count in tests/core/hf_config_test.cpp ("hf_config ernie4_5_moe"); active
  // without the input embedding, as the card's "3B activated" reads.
  const ParamCounts pc = count_params(*find_model("ernie-4.5-21b-a3b"));
  CHECK(pc.total == 21'825'437'888);
  CHECK(pc.dense_layers == 1);
  CHECK(pc.moe_layers == 27);
  // Active per token: 3,352,150,208 with the input embedding (103,424 × 2,560), as gpucalc
  // counts it; 3,087,384,768 without, as the card's "3B activated" does.
  CHECK(pc.active == 3'352'150'208);
  CHECK(pc.active - pc.embedding == 3'087'384'768);
}

TEST_CASE("DeepSeek-V3's MTP module: 671B main model + 14B MTP on Hugging Face = 685B", "[params][moe][mtp]") {
  const ModelShape* m = find_model("deepseek-v3");
  REQUIRE(m);
  REQUIRE(m->mtp_layers == 1);  // arXiv 2412.19437 §2.2 / §4.2: D = 1 in pre-training
  const ParamCounts pc = count_params(*m);
  // One module (Megatron-Core MultiTokenPredictionLayer; HF model.layers.61): a MoE layer of
  // the main layers' shape, enorm + hnorm + final norm (h each), eh_proj 2h·h.
  const int64_t h = 7168, V = 129280;
  CHECK(pc.mtp_module == pc.moe_per_layer + 3 * h + 2 * h * h);
  CHECK(pc.mtp_module == 11'610'068'224);
  CHECK(pc.mtp == pc.mtp_module);
  CHECK(pc.total == 671'026'419'200);  // total stays the main model, as published
  // README: "685B, which includes 671B of the Main Model weights and 14B of the Multi-Token
  // Prediction (MTP) Module weights". The checkpoint's layer 61 also stores copies of the
  // shared embedding and head (2·V·h): 13.46B, "14B". With the FP8 weights' 128×128 block
  // scales (41,540,496 F32 values) the safetensors hold 684,531,386,000 in all.
  const int64_t hf_mtp = pc.mtp_module + 2 * V * h;
  CHECK(std::llabs(hf_mtp - 14'000'000'000) <= 600'000'000);
  CHECK(pc.total + hf_mtp + 41'540'496 == 684'531'386'000);
  // Per token it passes through the block's active weights, the projection and the head.
  CHECK(pc.mtp_active_matmul == attention_matmul_params(*m) + moe_mlp_active_matmul_params(*m) + 2 * h * h + V * h);
  ModelShape main = *m;
  main.mtp_layers = 0;
  CHECK(count_params(main).mtp == 0);
  CHECK(count_params(main).total == pc.total);
}

TEST_CASE("Mixtral 8x7B: 46.7B total, 12.9B per token", "[params][moe]") {
  const ModelShape* m = find_model("mixtral-8x7b");
  REQUIRE(m);
  const ParamCounts pc = count_params(*m);
  CHECK(pc.total == 46'702'792'704);
  CHECK(pc.active == 12'879'925'248);
  // Two of eight experts: 6·active-matmul FLOPs per token, not 6·total.
  CHECK(pc.active_matmul < pc.matmul / 3);
}
