// Hostile inputs (tests/cli/hostile_inputs.txt): deep nesting, huge strings, arrays and
// documents, NaN/Infinity, numbers beyond int64 and double, unicode ids, duplicate keys,
// binary garbage, and scenarios that used to overflow or search for minutes. Each must
// come back from evaluate_json and search_json as {ok:false} naming its JSON pointer,
// within bounded time and memory. The CLI (tests/cli/run_hostile.py) and the wasm API
// (tests/wasm/hostile.test.mjs) read the same table.
#include <catch2/catch.hpp>

#include <sys/resource.h>
#include <time.h>

#include <chrono>
#include <cstdint>
#include <fstream>
#include <string>
#include <vector>

#include <nlohmann/json.hpp>

#include "gpucalc/api.hpp"

using json = nlohmann::ordered_json;

namespace {

struct Row {
  std::string name, path, message;
  bool path_prefix = false;
  std::string document;
};

std::string from_hex(const std::string& hex) {
  std::string out;
  for (size_t i = 0; i + 1 < hex.size(); i += 2) out += static_cast<char>(std::stoi(hex.substr(i, 2), nullptr, 16));
  return out;
}

// The table's DOCUMENT column: pieces concatenated (see the table's header).
std::string build(const json& pieces) {
  std::string doc;
  for (const json& p : pieces) {
    if (p.is_string()) {
      doc += p.get<std::string>();
    } else if (p.is_array()) {
      const std::string s = p[0].get<std::string>();
      const auto n = p[1].get<int64_t>();
      doc.reserve(doc.size() + s.size() * static_cast<size_t>(n));
      for (int64_t i = 0; i < n; ++i) doc += s;
    } else if (p.contains("hex")) {
      doc += from_hex(p["hex"].get<std::string>());
    } else {
      uint32_t x = p["random"][0].get<uint32_t>();
      const auto n = p["random"][1].get<int64_t>();
      for (int64_t i = 0; i < n; ++i) {
        x ^= x << 13;
        x ^= x >> 17;
        x ^= x << 5;
        doc += static_cast<char>(x & 255);
      }
    }
  }
  return doc;
}

std::vector<Row> read_table() {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/tests/cli/hostile_inputs.txt", std::ios::binary);
  std::vector<Row> rows;
  std::string line;
  while (std::getline(in, line)) {
    if (line.empty() || line[0] == '#') continue;
    std::vector<std::string> cols;
    size_t start = 0;
    for (int i = 0; i < 3; ++i) {
      const size_t tab = line.find('\t', start);
      if (tab == std::string::npos) break;
      cols.push_back(line.substr(start, tab - start));
      start = tab + 1;
    }
    REQUIRE(cols.size() == 3);
    Row r;
    r.name = cols[0];
    r.path = cols[1] == "-" ? "" : cols[1];
    if (!r.path.empty() && r.path.back() == '*') {
      r.path.pop_back();
      r.path_prefix = true;
    }
    r.message = cols[2];
    const json pieces = json::parse(line.substr(start), nullptr, false);
    INFO(r.name);
    REQUIRE(pieces.is_array());
    r.document = build(pieces);
    rows.push_back(std::move(r));
  }
  return rows;
}

// This thread's CPU seconds: the work a call does, whatever else loads the machine (a
// wall-clock bound failed under load 7-12 with the call itself taking well under it).
// Where the clock is missing (Emscripten's libc has no thread CPU clock) it is wall-clock.
double thread_cpu_seconds() {
  timespec ts{};
  if (clock_gettime(CLOCK_THREAD_CPUTIME_ID, &ts) != 0)
    return std::chrono::duration<double>(std::chrono::steady_clock::now().time_since_epoch()).count();
  return static_cast<double>(ts.tv_sec) + static_cast<double>(ts.tv_nsec) * 1e-9;
}

long peak_rss_mib() {
  rusage u{};
  getrusage(RUSAGE_SELF, &u);
  return u.ru_maxrss / 1024;  // Linux: KiB
}

}  // namespace

TEST_CASE("every hostile input is refused with its path and a clear message, in bounded time and memory",
          "[hostile][errors]") {
  const auto rows = read_table();
  REQUIRE(rows.size() >= 40);
  for (const Row& r : rows) {
    for (const bool search : {false, true}) {
      INFO(r.name << (search ? " (search)" : " (evaluate)") << ", " << r.document.size() << " bytes");
      const auto t0 = std::chrono::steady_clock::now();
      const double cpu0 = thread_cpu_seconds();
      const std::string out = search ? gpucalc::search_json(r.document, 10) : gpucalc::evaluate_json(r.document);
      const double cpu = thread_cpu_seconds() - cpu0;
      const double seconds = std::chrono::duration<double>(std::chrono::steady_clock::now() - t0).count();
      // Generous for sanitizer builds; natively every row but the wide search takes
      // milliseconds. The CPU time bounds the work; the wall-clock bound, far looser,
      // catches a call that waits instead of working.
      CHECK(cpu < 20.0);
      CHECK(seconds < 120.0);
      const json env = json::parse(out, nullptr, false);
      REQUIRE(env.is_object());
      REQUIRE(env["ok"] == false);
      const std::string path = env["error"]["path"];
      const std::string message = env["error"]["message"];
      INFO("got " << path.substr(0, 200) << ": " << message.substr(0, 300));
      if (r.path_prefix) {
        CHECK(path.rfind(r.path, 0) == 0);
      } else {
        CHECK(path == r.path);
      }
      CHECK(message.find(r.message) != std::string::npos);
      CHECK(message.size() < 1000);  // a message, not an echo of the input
    }
  }
  // The largest document is 50 MB; the core adds little on top of the text it was given.
  INFO("peak RSS " << peak_rss_mib() << " MiB");
  CHECK(peak_rss_mib() < 1024);
}
