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

// A dated price example from the catalog (data/gpus.json `prices`), kept for the
// cost feature: point-in-time, from the source named, never a default by itself.
struct Price {
  std::optional<double> value;      // the price, or the low end of a range; empty when only known to exist
  std::optional<double> value_max;  // the high end of a range ([low, high] in the catalog)
  std::string currency;             // "USD" | "CNY"
  std::string unit;                 // e.g. "per GPU-hour", "list price per 8-accelerator kit"
  std::string type;                 // e.g. "on-demand, Lambda 1x H100 SXM"
  std::string region;
  std::string date;
  std::string source;      // a key into the catalog's sources
  std::string confidence;  // "high" | "medium" | "low"
  std::string note;
};

struct Gpu {
  std::string id;
  std::string name;
  Spec memory_gib;      // device memory, binary GiB (vendor labels are GiB in practice)
  Spec bf16_tflops;     // dense peak
  Spec fp16_tflops;     // dense peak (falls back to bf16 when absent)
  Spec fp8_tflops;      // dense peak
  Spec fp4_tflops;      // dense FP4 (NVFP4) peak, Blackwell and later
  Spec memory_bw_tbs;   // HBM bandwidth, TB/s
  Spec scaleup_gbs;     // per GPU, one direction, GB/s (NVLink-class)
  Spec scaleup_domain;  // GPUs per scale-up domain
  Spec scaleout_gbps;   // per GPU NIC, Gb/s
  Spec tdp_w;
  Spec power_limit_w;  // scenario: a board power cap below tdp_w (e.g. 500 W H100s)
  // GPU-host link per GPU, one direction, GB/s, where it is not PCIe x16 (NVLink-C2C on
  // Grace superchips); absent: PCIe by generation (compute.cpp host_link_bytes_per_s).
  Spec host_link_gbs;
  // The cluster's fabric (scenario gpu.rail_optimized / gpu.in_network_reduction):
  // NIC i of every node on rail switch i (default), and SHARP / NVLS reduction.
  std::optional<bool> rail_optimized;
  std::optional<bool> in_network_reduction;
  // Catalog text (a custom GPU keeps its base's, or has none): maker and the reference's caveats.
  std::string vendor;
  std::string arch;
  std::string notes;           // what a planner should know (e.g. per-package vs per-device figures)
  std::string least_sure;      // the reference's doubts about this entry's numbers
  std::string export_control;  // China-market status, where the reference records it
  std::vector<Price> prices;   // dated price examples, for the cost feature
};

const std::vector<Gpu>& gpu_catalog();

// The key specs the time, memory and energy models need that g lacks, by field name:
// memory_gib, bf16_tflops (fp16_tflops for FP16-only parts), memory_bw_tbs, scaleup_gbs,
// scaleup_domain, scaleout_gbps, tdp_w. Empty when g is complete (docs/catalog.md); the
// page offers only complete accelerators.
std::vector<std::string> missing_specs(const Gpu& g);
const Gpu* find_gpu(const std::string& id);

// The catalog's source key → full citation map.
std::string gpu_source_citation(const std::string& key);

}  // namespace gpucalc
