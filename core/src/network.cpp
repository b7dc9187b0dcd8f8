#include "gpucalc/network.hpp"

#include <algorithm>
#include <cmath>

namespace gpucalc {

Fabric fabric_for(const Gpu& g, const PerfProfile& perf) {
  const PerfData& d = perf_data();
  Fabric f;
  f.domain = std::max(1.0, g.scaleup_domain.value.value_or(8.0));
  // scaleup_gbs is GB/s per direction; scaleout_gbps a NIC line rate in Gb/s. The
  // achieved fractions are NCCL bus bandwidths over line rate (data/perf.json).
  f.up_bytes_per_s = g.scaleup_gbs.value.value_or(0.0) * 1e9 * perf.scaleup.value.value_or(0.75);
  f.out_bytes_per_s = g.scaleout_gbps.value.value_or(100.0) / 8.0 * 1e9 * perf.scaleout.value.value_or(0.85);
  // A part with no scale-up link talks to its neighbours through the NIC.
  if (f.up_bytes_per_s <= 0) {
    f.up_bytes_per_s = f.out_bytes_per_s;
    f.domain = 1;
  }
  f.base_latency_s = d.nccl.ring_base_us * 1e-6;
  f.tree_base_latency_s = d.nccl.tree_base_us * 1e-6;
  f.up_hop_s = d.nccl.ring_hop_up_us * 1e-6;
  f.out_hop_s = d.nccl.ring_hop_out_us * 1e-6;
  f.tree_up_hop_s = d.nccl.tree_hop_up_us * 1e-6;
  f.tree_out_hop_s = d.nccl.tree_hop_out_us * 1e-6;
  f.rail_optimized = g.rail_optimized.value_or(true);
  f.in_network_reduction = g.in_network_reduction.value_or(false);
  return f;
}

Fabric fabric_for(const Gpu& g, const PerfProfile& perf, double network_scale) {
  Fabric f = fabric_for(g, perf);
  f.up_bytes_per_s *= network_scale;
  f.out_bytes_per_s *= network_scale;
  return f;
}

GroupShape shape_of(const Fabric& f, Group g) {
  GroupShape s;
  s.ranks = static_cast<double>(std::max<int64_t>(1, g.size));
  const double stride = static_cast<double>(std::max<int64_t>(1, g.stride));
  // Members that share a domain: the domain holds domain/stride of them (at least one).
  s.per_domain = std::clamp(std::floor(f.domain / stride), 1.0, s.ranks);
  s.domains = std::ceil(s.ranks / s.per_domain);
  return s;
}

double bus_bytes_per_s(const Fabric& f, const GroupShape& s) {
  if (s.domains <= 1) return f.up_bytes_per_s;
  const double nics = f.rail_optimized ? s.per_domain : 1.0;
  const double out = nics * f.out_bytes_per_s;
  return s.per_domain > 1 ? std::min(f.up_bytes_per_s, out) : out;
}

namespace {

// Ring latency: `passes` laps of n-1 steps; the steps that leave a domain pay the
// network's hop (one per domain boundary per lap).
double ring_latency(const Fabric& f, const GroupShape& s, double passes) {
  const double steps = passes * (s.ranks - 1);
  const double inter = s.domains > 1 ? passes * s.domains : 0.0;
  return f.base_latency_s + (steps - inter) * f.up_hop_s + inter * f.out_hop_s;
}

// NCCL's tree (all-reduce): up and down a chain inside the domain and a binary tree
// across domains.
double tree_latency(const Fabric& f, const GroupShape& s) {
  return f.tree_base_latency_s +
         2.0 * ((s.per_domain - 1) * f.tree_up_hop_s + std::ceil(std::log2(s.domains)) * f.tree_out_hop_s);
}

// A ring pass moves (n-1)/n of the buffer through every member (Thakur et al. 2005).
double ring_s(const Fabric& f, Group g, double bytes, double passes) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  const GroupShape s = shape_of(f, g);
  return passes * (s.ranks - 1) / s.ranks * bytes / bus_bytes_per_s(f, s) + ring_latency(f, s, passes);
}

}  // namespace

double all_gather_s(const Fabric& f, Group g, double bytes) { return ring_s(f, g, bytes, 1.0); }

double reduce_scatter_s(const Fabric& f, Group g, double bytes) { return ring_s(f, g, bytes, 1.0); }

double all_reduce_s(const Fabric& f, Group g, double bytes) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  const GroupShape s = shape_of(f, g);
  const double bw = bus_bytes_per_s(f, s);
  // In-network reduction (NVLS inside a domain, SHARP across): each member sends its
  // buffer once and receives the sum once, instead of 2(n-1)/n ring passes.
  const double volume = f.in_network_reduction ? 1.0 : 2.0 * (s.ranks - 1) / s.ranks;
  const double ring = volume * bytes / bw + ring_latency(f, s, 2.0);
  const double tree = volume * bytes / bw + tree_latency(f, s);
  return std::min(ring, tree);
}

double all_to_all_s(const Fabric& f, Group g, double bytes) {
  if (g.size <= 1 || bytes <= 0) return 0.0;
  const GroupShape s = shape_of(f, g);
  // The share bound for members in the same domain rides the scale-up link; the rest
  // leaves through this GPU's own NIC (PXN first moves it over NVLink to the GPU on
  // the destination's rail, so the NIC rate, not the rail, bounds it).
  const double on = bytes * (s.per_domain - 1) / s.ranks / f.up_bytes_per_s;
  const double off = bytes * (s.ranks - s.per_domain) / s.ranks / f.out_bytes_per_s;
  return std::max(on, off) + f.base_latency_s + (s.domains > 1 ? f.out_hop_s : f.up_hop_s);
}

double p2p_s(const Fabric& f, bool across_domains, double bytes) {
  if (bytes <= 0) return 0.0;
  const double bw = across_domains ? f.out_bytes_per_s : f.up_bytes_per_s;
  return bytes / bw + f.base_latency_s + (across_domains ? f.out_hop_s : f.up_hop_s);
}

}  // namespace gpucalc
