// The answer's `calibration`, `uncertainty` and `oom_risk` members, written straight into
// the report's JsonWriter (core/src/report.cpp; docs/scenario-format.md "Output").
#pragma once
#include "gpucalc/scenario.hpp"
#include "gpucalc/uncertainty.hpp"
#include "json_writer.hpp"

namespace gpucalc {

void uncertainty_fields(JsonWriter& w, const Scenario& s, const Calibrated& c);

}  // namespace gpucalc
