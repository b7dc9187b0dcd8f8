// Reads a file of the source tree (examples/, data/, tests/...) for the tests.
#pragma once
#include <fstream>
#include <sstream>
#include <string>

inline std::string read_source_file(const std::string& rel) {
  std::ifstream in(std::string(GPUCALC_SOURCE_DIR) + "/" + rel);
  std::stringstream ss;
  ss << in.rdbuf();
  return ss.str();
}
