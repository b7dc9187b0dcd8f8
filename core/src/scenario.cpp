// Scenario format v1 → typed structs. The field names here are the public
// contract documented in docs/scenario-format.md.
#include "gpucalc/scenario.hpp"

#include <cmath>

#include "json_input.hpp"

namespace gpucalc {
namespace {

using input::json;
using input::Reader;

constexpr int64_t kMaxGpus = 10'000'000;

std::string preset_ids() {
  std::string s;
  for (const auto& m : model_presets()) s += (s.empty() ? "" : ", ") + m.id;
  return s;
}
std::string gpu_ids() {
  std::string s;
  for (const auto& g : gpu_catalog()) s += (s.empty() ? "" : ", ") + g.id;
  return s;
}

void read_model(Reader& r, const json& root, ModelShape& m) {
  auto it = root.find("model");
  if (it == root.end()) return r.fail("/model", "is required (a preset id such as \"llama-3.1-70b\", or an object)");
  if (it->is_string()) {
    const ModelShape* p = find_model(it->get<std::string>());
    if (!p) return r.fail("/model", "unknown model preset " + input::show(*it) + " (known: " + preset_ids() + ")");
    m = *p;
    return;
  }
  if (!r.expect_object(&*it, "/model")) return;
  const json& o = *it;
  const std::string P = "/model";
  r.only_keys(o, P, {"base", "name", "layers", "hidden", "heads", "kv_heads", "head_dim", "ffn_hidden", "vocab",
                     "ffn_act", "tied_embeddings", "norm", "qkv_bias", "linear_bias", "position_embedding",
                     "max_position_embeddings", "dropout", "norms_per_layer", "qk_norm"});
  const bool has_base = o.contains("base");
  if (auto base = r.text(o, P, "base", 64)) {
    const ModelShape* p = find_model(*base);
    if (!p) return r.fail(P + "/base", "unknown model preset \"" + *base + "\" (known: " + preset_ids() + ")");
    m = *p;
    m.id = *base + "+custom";
    m.published_params = 0;
    m.published_params_tolerance = 0;
  } else {
    m = ModelShape{};
    m.id = "custom";
    m.name = "custom model";
    m.source = "scenario";
  }
  const bool req = !has_base;
  if (auto v = r.text(o, P, "name", 200)) m.name = *v;
  if (auto v = r.integer(o, P, "layers", req, 1, 10'000)) m.layers = *v;
  if (auto v = r.integer(o, P, "hidden", req, 1, 1'000'000)) m.hidden = *v;
  if (auto v = r.integer(o, P, "heads", req, 1, 100'000)) m.heads = *v;
  if (auto v = r.integer(o, P, "kv_heads", false, 1, 100'000)) m.kv_heads = *v;
  else if (!has_base) m.kv_heads = m.heads;
  if (auto v = r.integer(o, P, "head_dim", false, 1, 100'000)) m.head_dim = *v;
  if (auto v = r.integer(o, P, "ffn_hidden", req, 1, 10'000'000)) m.ffn_hidden = *v;
  if (auto v = r.integer(o, P, "vocab", req, 1, 100'000'000)) m.vocab = *v;
  if (auto v = r.choice(o, P, "ffn_act", {"swiglu", "gelu", "geglu"}, false))
    m.ffn_act = *v == "gelu" ? FfnAct::gelu : *v == "geglu" ? FfnAct::geglu : FfnAct::swiglu;
  if (auto v = r.boolean(o, P, "tied_embeddings")) m.tied_embeddings = *v;
  if (auto v = r.choice(o, P, "norm", {"rmsnorm", "layernorm"}, false)) m.norm = *v == "layernorm" ? Norm::layernorm : Norm::rmsnorm;
  if (auto v = r.boolean(o, P, "qkv_bias")) m.qkv_bias = *v;
  if (auto v = r.boolean(o, P, "linear_bias")) m.linear_bias = *v;
  if (auto v = r.integer(o, P, "norms_per_layer", false, 1, 16)) m.norms_per_layer = *v;
  if (auto v = r.boolean(o, P, "qk_norm")) m.qk_norm = *v;
  if (auto v = r.choice(o, P, "position_embedding", {"rope", "learned", "alibi"}, false))
    m.position = *v == "learned" ? PositionEmbedding::learned
                 : *v == "alibi" ? PositionEmbedding::alibi
                                 : PositionEmbedding::rope;
  if (auto v = r.integer(o, P, "max_position_embeddings", false, 1, 100'000'000)) m.max_position_embeddings = *v;
  if (auto v = r.boolean(o, P, "dropout")) m.dropout = *v;
  if (r.failed()) return;
  if (m.kv_heads > m.heads || m.heads % m.kv_heads != 0)
    return r.fail(P + "/kv_heads", "must divide heads (" + std::to_string(m.heads) + "), got " + std::to_string(m.kv_heads));
  if (m.head_dim == 0 && m.hidden % m.heads != 0)
    return r.fail(P + "/hidden", "must be divisible by heads (" + std::to_string(m.heads) +
                                     ") unless head_dim is given, got " + std::to_string(m.hidden));
  if (m.position == PositionEmbedding::learned && m.max_position_embeddings == 0)
    return r.fail(P + "/max_position_embeddings", "is required with learned position embeddings");
}

void override_spec(Reader& r, const json& o, const std::string& P, const char* key, Spec& s, double lo, double hi) {
  if (auto v = r.number(o, P, key, false, lo, hi, true)) {
    s.value = *v;
    s.source = "scenario";
    s.confidence = "user";
  }
}

void read_gpu(Reader& r, const json& root, Gpu& g) {
  auto it = root.find("gpu");
  if (it == root.end()) return r.fail("/gpu", "is required (a catalog id such as \"h100-sxm-80gb\", or an object)");
  if (it->is_string()) {
    const Gpu* p = find_gpu(it->get<std::string>());
    if (!p) return r.fail("/gpu", "unknown GPU " + input::show(*it) + " (known: " + gpu_ids() + ")");
    g = *p;
  } else {
    if (!r.expect_object(&*it, "/gpu")) return;
    const json& o = *it;
    const std::string P = "/gpu";
    r.only_keys(o, P, {"base", "name", "memory_gib", "bf16_tflops", "fp16_tflops", "fp8_tflops", "memory_bw_tbs",
                       "scaleup_gbs", "scaleup_domain", "scaleout_gbps", "tdp_w", "power_limit_w"});
    if (auto base = r.text(o, P, "base", 64)) {
      const Gpu* p = find_gpu(*base);
      if (!p) return r.fail(P + "/base", "unknown GPU \"" + *base + "\" (known: " + gpu_ids() + ")");
      g = *p;
      g.id = *base + "+custom";
    } else {
      g = Gpu{};
      g.id = "custom";
      g.name = "custom accelerator";
    }
    if (auto v = r.text(o, P, "name", 200)) g.name = *v;
    override_spec(r, o, P, "memory_gib", g.memory_gib, 0, 1e6);
    override_spec(r, o, P, "bf16_tflops", g.bf16_tflops, 0, 1e7);
    override_spec(r, o, P, "fp16_tflops", g.fp16_tflops, 0, 1e7);
    override_spec(r, o, P, "fp8_tflops", g.fp8_tflops, 0, 1e7);
    override_spec(r, o, P, "memory_bw_tbs", g.memory_bw_tbs, 0, 1e4);
    override_spec(r, o, P, "scaleup_gbs", g.scaleup_gbs, 0, 1e6);
    if (auto v = r.integer(o, P, "scaleup_domain", false, 1, 1'000'000))
      g.scaleup_domain = Spec{static_cast<double>(*v), "scenario", "user"};
    override_spec(r, o, P, "scaleout_gbps", g.scaleout_gbps, 0, 1e6);
    override_spec(r, o, P, "tdp_w", g.tdp_w, 0, 1e5);
    override_spec(r, o, P, "power_limit_w", g.power_limit_w, 0, 1e5);
    if (r.failed()) return;
  }
  if (!g.memory_gib.value) return r.fail("/gpu/memory_gib", "is unknown for " + g.name + "; set it in a gpu object");
  if (!g.bf16_tflops.value && !g.fp16_tflops.value)
    return r.fail("/gpu/bf16_tflops", "is unknown for " + g.name + "; set it in a gpu object");
}

void read_training(Reader& r, const json& root, Scenario& s) {
  auto it = root.find("training");
  if (!r.expect_object(it == root.end() ? nullptr : &*it, "/training")) return;
  const json& o = *it;
  const std::string P = "/training";
  Training& t = s.problem.training;
  r.only_keys(o, P, {"tokens", "seq_len", "global_batch", "global_batch_tokens", "micro_batch", "precision",
                     "optimizer", "recompute", "zero_stage", "stage", "flash_attention", "sequence_parallel",
                     "framework", "grad_dtype", "overlap_grad_reduce", "overlap_param_gather"});
  if (auto v = r.number(o, P, "tokens", true, 0, 1e16, true)) t.tokens = *v;
  if (auto v = r.integer(o, P, "seq_len", true, 1, 100'000'000)) t.seq_len = *v;
  auto gb = r.integer(o, P, "global_batch", false, 1, 100'000'000);
  auto gbt = r.integer(o, P, "global_batch_tokens", false, 1, 1'000'000'000'000);
  if (r.failed()) return;
  if (gbt) {
    if (*gbt % t.seq_len != 0)
      return r.fail(P + "/global_batch_tokens", "must be a multiple of seq_len (" + std::to_string(t.seq_len) + "), got " +
                                                    std::to_string(*gbt));
    if (gb && *gb * t.seq_len != *gbt)
      return r.fail(P + "/global_batch_tokens", "disagrees with global_batch × seq_len (" +
                                                    std::to_string(*gb * t.seq_len) + "); give one of them");
    t.global_batch = *gbt / t.seq_len;
  } else if (gb) {
    t.global_batch = *gb;
  } else {
    // Default: about 4M tokens per step, Llama 2's batch (Touvron et al. 2023 §2.2).
    t.global_batch = std::max<int64_t>(1, static_cast<int64_t>(std::llround(4194304.0 / static_cast<double>(t.seq_len))));
    s.defaults_applied.push_back("training.global_batch = " + std::to_string(t.global_batch) +
                                 " sequences (default: about 4M tokens per step, as Llama 2)");
  }
  if (static_cast<double>(t.global_batch) * static_cast<double>(t.seq_len) > t.tokens)
    return r.fail(P + "/tokens", "is smaller than one global batch (" +
                                     std::to_string(t.global_batch * t.seq_len) + " tokens)");
  if (auto v = r.integer(o, P, "micro_batch", false, 1, 1'000'000)) s.constraints.micro_batch = *v;
  if (auto v = r.choice(o, P, "precision", {"bf16", "fp16", "fp8"}, false))
    t.precision = *v == "fp16" ? Precision::fp16 : *v == "fp8" ? Precision::fp8 : Precision::bf16;
  if (auto v = r.choice(o, P, "optimizer", {"adamw"}, false)) t.optimizer = Optimizer::adamw;
  if (auto v = r.choice(o, P, "recompute", {"none", "selective", "full"}, false))
    s.constraints.recompute = *v == "full" ? Recompute::full : *v == "selective" ? Recompute::selective : Recompute::none;
  if (auto v = r.integer(o, P, "zero_stage", false, 0, 3)) s.constraints.zero_stage = static_cast<int>(*v);
  if (auto v = r.choice(o, P, "stage", {"pretrain", "full_finetune"}, false))
    t.stage = *v == "full_finetune" ? Stage::full_finetune : Stage::pretrain;
  if (auto v = r.boolean(o, P, "flash_attention")) t.flash_attention = *v;
  if (auto v = r.boolean(o, P, "sequence_parallel")) t.sequence_parallel = *v;
  if (auto v = r.choice(o, P, "framework", {"megatron", "torchtitan"}, false))
    t.framework = *v == "torchtitan" ? Framework::torchtitan : Framework::megatron;
  if (auto v = r.choice(o, P, "grad_dtype", {"bf16", "fp32"}, false)) t.grad_dtype_bytes = *v == "fp32" ? 4 : 2;
  if (auto v = r.boolean(o, P, "overlap_grad_reduce")) t.overlap_grad_reduce = *v;
  if (auto v = r.boolean(o, P, "overlap_param_gather")) t.overlap_param_gather = *v;
  if (t.precision == Precision::fp8 && !s.problem.gpu.fp8_tflops.value)
    r.fail(P + "/precision", "fp8 needs an FP8 peak, which " + s.problem.gpu.name + " does not have; set gpu.fp8_tflops or use bf16");
}

void read_parallel(Reader& r, const json& root, Scenario& s) {
  auto it = root.find("parallel");
  if (it == root.end()) return;
  if (!r.expect_object(&*it, "/parallel")) return;
  const json& o = *it;
  const std::string P = "/parallel";
  r.only_keys(o, P, {"gpus", "tp", "pp", "dp", "cp", "ep", "vpp"});
  Constraints& c = s.constraints;
  c.gpus = r.integer(o, P, "gpus", false, 1, kMaxGpus);
  c.tp = r.integer(o, P, "tp", false, 1, 1'000'000);
  c.pp = r.integer(o, P, "pp", false, 1, 100'000);
  c.dp = r.integer(o, P, "dp", false, 1, kMaxGpus);
  c.cp = r.integer(o, P, "cp", false, 1, 1'000'000);
  c.ep = r.integer(o, P, "ep", false, 1, 1'000'000);
  c.vpp = r.integer(o, P, "vpp", false, 1, 1'000);
  if (r.failed()) return;
  const ModelShape& m = s.problem.model;
  const Training& t = s.problem.training;
  const auto str = [](int64_t v) { return std::to_string(v); };
  // Early, specific divisibility errors for what the scenario fixed.
  if (c.tp && m.heads % *c.tp != 0) return r.fail(P + "/tp", "must divide the model's attention heads (" + str(m.heads) + "), got " + str(*c.tp));
  if (c.tp && m.kv_heads % *c.tp != 0) return r.fail(P + "/tp", "must divide the model's KV heads (" + str(m.kv_heads) + "), got " + str(*c.tp));
  if (c.pp && *c.pp > m.layers) return r.fail(P + "/pp", "cannot exceed the model's layers (" + str(m.layers) + "), got " + str(*c.pp));
  if (c.cp && *c.cp > 1 && t.seq_len % (2 * *c.cp) != 0)
    return r.fail(P + "/cp", "2 × cp (" + str(2 * *c.cp) + ") must divide seq_len (" + str(t.seq_len) + ")");
  if (c.ep && *c.ep != 1) return r.fail(P + "/ep", "the model has no experts (dense); ep must be 1, got " + str(*c.ep));
  if (c.dp && t.global_batch % *c.dp != 0)
    return r.fail(P + "/dp", "must divide the global batch (" + str(t.global_batch) + " sequences), got " + str(*c.dp));
  const int64_t fixed = c.tp.value_or(1) * c.pp.value_or(1) * c.cp.value_or(1) * c.dp.value_or(1);
  if (c.gpus) {
    const bool all = c.tp && c.pp && c.cp && c.dp;
    if (all && fixed != *c.gpus)
      return r.fail(P + "/gpus", "must equal tp × pp × dp × cp = " + str(fixed) + ", got " + str(*c.gpus));
    if (*c.gpus % fixed != 0)
      return r.fail(P + "/gpus", "must be a multiple of the fixed tp × pp × dp × cp = " + str(fixed) + ", got " + str(*c.gpus));
  } else if (c.tp && c.pp && c.dp) {
    c.gpus = fixed;  // everything given but the count: the count follows
  }
}

void read_target_assume(Reader& r, const json& root, Scenario& s) {
  if (auto it = root.find("target"); it != root.end()) {
    if (!r.expect_object(&*it, "/target")) return;
    r.only_keys(*it, "/target", {"days", "max_memory_fraction"});
    s.target_days = r.number(*it, "/target", "days", false, 0, 1e6, true);
    if (auto v = r.number(*it, "/target", "max_memory_fraction", false, 0, 1, true)) s.problem.memory_limit_fraction = *v;
  }
  if (auto it = root.find("assume"); it != root.end()) {
    if (!r.expect_object(&*it, "/assume")) return;
    const std::string P = "/assume";
    r.only_keys(*it, P, {"mfu", "hfu", "cuda_context_gib", "nccl_buffer_mib", "fragmentation"});
    s.problem.efficiency.mfu = r.number(*it, P, "mfu", false, 0, 1, true);
    s.problem.efficiency.hfu = r.number(*it, P, "hfu", false, 0, 1, true);
    if (s.problem.efficiency.mfu && s.problem.efficiency.hfu)
      r.fail(P + "/hfu", "give assume.mfu or assume.hfu, not both");
    Overheads& ov = s.problem.overheads;
    if (auto v = r.number(*it, P, "cuda_context_gib", false, 0, 64, false)) ov.cuda_context_bytes = *v * 1073741824.0;
    if (auto v = r.number(*it, P, "nccl_buffer_mib", false, 0, 65536, false)) ov.nccl_bytes_per_communicator = *v * 1048576.0;
    if (auto v = r.number(*it, P, "fragmentation", false, 0, 1, false)) ov.fragmentation = *v;
  }
}

}  // namespace

Expected<Scenario> parse_scenario(std::string_view text) {
  auto doc = input::parse_document(text);
  if (!doc) return doc.error();
  const json& root = *doc;
  Reader r;
  if (!root.is_object()) return Error{"", "the scenario must be a JSON object, got " + input::show(root)};
  r.only_keys(root, "", {"version", "name", "description", "model", "gpu", "training", "parallel", "target", "assume"});
  if (auto v = r.integer(root, "", "version", false, 1, 1'000'000); v && *v != 1)
    r.fail("/version", "this gpucalc reads scenario format version 1, got " + std::to_string(*v));
  r.text(root, "", "name", 200);
  r.text(root, "", "description", 4000);
  Scenario s;
  if (!r.failed()) read_model(r, root, s.problem.model);
  if (!r.failed()) read_gpu(r, root, s.problem.gpu);
  if (!r.failed()) s.problem.perf = perf_profile_for(s.problem.gpu.id);
  if (!r.failed()) read_training(r, root, s);
  if (!r.failed()) read_parallel(r, root, s);
  if (!r.failed()) read_target_assume(r, root, s);
  if (r.failed()) return r.error();
  return s;
}

}  // namespace gpucalc
