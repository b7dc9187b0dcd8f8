// Parameter counts, pinned to the totals the models' publishers report.
#include <catch2/catch.hpp>

#include "gpucalc/model.hpp"

using namespace gpucalc;

TEST_CASE("Llama 3.1 totals match the published safetensors counts exactly", "[params]") {
  // sizing-model.md §1 anchors (Hugging Face safetensors totals).
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
  for (const auto& m : model_presets()) {
    INFO(m.id);
    CHECK(count_params(m).total == m.published_params);
  }
  CHECK(model_presets().size() >= 5);
}

TEST_CASE("GQA shrinks K and V projections by heads/kv_heads", "[params]") {
  ModelShape m = *find_model("llama-3.1-70b");
  const auto gqa = count_params(m);
  m.kv_heads = m.heads;  // multi-head attention
  const auto mha = count_params(m);
  // K and V: 2·h·g·d → 2·h·a·d; difference 2·h·d·(a - g) per layer.
  CHECK(mha.attention - gqa.attention == 2 * 8192 * 128 * (64 - 8));
}
