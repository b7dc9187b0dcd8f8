// The network as the time model sees it: one function per collective, priced from the
// group's shape on a two-level fabric (scale-up domains joined by per-GPU NICs), the
// way NCCL's own tuning model prices them: time = latency + bytes / bus bandwidth, per
// algorithm (ring, tree), the faster one taken (NVIDIA NCCL, src/graph/tuning.cc;
// docs/performance-model.md "Network").
#pragma once
#include <cstdint>

#include "gpucalc/hardware.hpp"
#include "gpucalc/perf.hpp"

namespace gpucalc {

// One accelerator's fabric: achieved bandwidths per GPU and NCCL's latencies.
struct Fabric {
  double domain = 8;           // GPUs per scale-up domain (NVLink-class)
  double up_bytes_per_s = 0;   // achieved scale-up bus bandwidth per GPU
  double out_bytes_per_s = 0;  // achieved scale-out bandwidth of one GPU's NIC
  double base_latency_s = 0;   // per ring collective (kernel launch, protocol setup)
  double tree_base_latency_s = 0;
  double up_hop_s = 0;                // one ring step inside a domain
  double out_hop_s = 0;               // one ring step across domains
  double tree_up_hop_s = 0;           // one tree level inside a domain
  double tree_out_hop_s = 0;          // one tree level across domains
  bool rail_optimized = true;         // NIC i of every node on rail switch i (NCCL rings stay on their rail)
  bool in_network_reduction = false;  // SHARP / NVLS: an all-reduce moves the buffer once, not 2(n-1)/n times
};

Fabric fabric_for(const Gpu& g, const PerfProfile& perf);
// The same with a calibration's fitted network knob: every link's bandwidth × scale
// (latencies stay NCCL's).
Fabric fabric_for(const Gpu& g, const PerfProfile& perf, double network_scale);

// A communicator: `size` ranks `stride` apart in Megatron's rank order (TP innermost,
// then CP, DP, PP), so it spans stride·size consecutive ranks.
struct Group {
  int64_t size = 1;
  int64_t stride = 1;
};

// How a group sits on the fabric: members per scale-up domain and domains spanned.
struct GroupShape {
  double ranks = 1;
  double per_domain = 1;
  double domains = 1;
};
GroupShape shape_of(const Fabric& f, Group g);

// The bus bandwidth one member of the group gets, bytes/s. Inside one domain: the
// scale-up rate. Across domains NCCL runs one ring (or tree) per NIC, so a group with
// p members per domain moves its inter-domain traffic over p NICs at once and each
// member's share of it is 1/p — the bound is p NICs' rate (or the scale-up rate, which
// carries the intra-domain hops). Without a rail-optimised fabric the rings cross the
// spine and one NIC's rate bounds the group.
double bus_bytes_per_s(const Fabric& f, const GroupShape& s);

// Each takes the size in bytes of the whole buffer one rank holds after an all-gather
// (before a reduce-scatter; of an all-reduce) and returns seconds.
double all_gather_s(const Fabric& f, Group g, double bytes);
double reduce_scatter_s(const Fabric& f, Group g, double bytes);
double all_reduce_s(const Fabric& f, Group g, double bytes);
// bytes: what one rank sends in all, spread evenly over the group (itself included).
double all_to_all_s(const Fabric& f, Group g, double bytes);
// One send between neighbouring ranks, inside a domain or across.
double p2p_s(const Fabric& f, bool across_domains, double bytes);

}  // namespace gpucalc
