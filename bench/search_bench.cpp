// Native half of scripts/bench: times the full layout search (gpucalc::search_json)
// on a scenario file, repeated, and prints one JSON line:
//   {"runs": N, "mean_ms": ..., "min_ms": ..., "layouts_evaluated": ...}
#include <algorithm>
#include <chrono>
#include <cstdio>
#include <cstdlib>
#include <fstream>
#include <sstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "../core/src/search_cache.hpp"
#include "gpucalc/api.hpp"

int main(int argc, char** argv) {
  if (argc < 2) {
    std::fprintf(stderr, "usage: gpucalc_bench SCENARIO.json [RUNS]\n");
    return 2;
  }
  std::ifstream in(argv[1]);
  std::stringstream ss;
  ss << in.rdbuf();
  const std::string scenario = ss.str();
  const int runs = argc > 2 ? std::max(1, std::atoi(argv[2])) : 20;
  std::string out;
  // Every run searches afresh: the search cache (search_cache.hpp) is emptied first, or
  // every run after the first would only replay the kept search.
  for (int i = 0; i < 10; ++i) {  // warm-up, like the wasm side
    gpucalc::clear_search_cache();
    out = gpucalc::search_json(scenario, 10);
  }
  std::vector<double> times;
  for (int i = 0; i < runs; ++i) {
    gpucalc::clear_search_cache();
    const auto t0 = std::chrono::steady_clock::now();
    out = gpucalc::search_json(scenario, 10);
    times.push_back(std::chrono::duration<double, std::milli>(std::chrono::steady_clock::now() - t0).count());
  }
  std::sort(times.begin(), times.end());
  double total = 0;
  for (double t : times) total += t;
  const double best = times.front(), median = times[times.size() / 2];
  const auto env = nlohmann::ordered_json::parse(out, nullptr, false);
  if (!env.is_object() || !env.value("ok", false)) {
    std::fprintf(stderr, "search failed: %s\n", out.c_str());
    return 1;
  }
  const auto evaluated = env["value"]["search"]["layouts_evaluated"].get<long long>();
  std::printf("{\"runs\": %d, \"mean_ms\": %.3f, \"median_ms\": %.3f, \"min_ms\": %.3f, \"layouts_evaluated\": %lld}\n",
              runs, total / runs, median, best, evaluated);
  return 0;
}
