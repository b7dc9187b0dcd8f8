// Hardware: one accelerator's specs, each number with its provenance, and the
// catalog they come from (data/gpus.json, embedded at build time).
#pragma once
#include <cstdint>
#include <optional>
#include <string>
#include <vector>

namespace gpucalc {

// A spec number with where it came from. `value` is empty when unknown.
struct Spec {
  std::optional<double> value;
  std::string source;      // a key into the catalog's sources, or "scenario"
  std::string confidence;  // "high" | "medium" | "low"
};

struct Gpu {
  std::string id;
  std::string name;
  Spec memory_gib;      // device memory, binary GiB (vendor labels are GiB in practice)
  Spec bf16_tflops;     // dense peak
  Spec fp16_tflops;     // dense peak (falls back to bf16 when absent)
  Spec fp8_tflops;      // dense peak
  Spec memory_bw_tbs;   // HBM bandwidth, TB/s
  Spec scaleup_gbs;     // per GPU, one direction, GB/s (NVLink-class)
  Spec scaleup_domain;  // GPUs per scale-up domain
  Spec scaleout_gbps;   // per GPU NIC, Gb/s
  Spec tdp_w;
  // Default achieved fraction of the matmul peak for hardware FLOPs, pipeline
  // bubble excluded (see docs/model.md "Time"); replaced by the performance model later.
  Spec efficiency;
};

const std::vector<Gpu>& gpu_catalog();
const Gpu* find_gpu(const std::string& id);

// The catalog's source key → full citation map.
std::string gpu_source_citation(const std::string& key);

}  // namespace gpucalc
