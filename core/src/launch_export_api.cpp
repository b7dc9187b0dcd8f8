// export_json (api.hpp): the launch-config export behind the one-call boundary. In a
// translation unit of its own, so a program that never exports (the page's main wasm
// module) links none of the writers; the page loads the export in a module of its own.
#include <optional>
#include <string>

#include "gpucalc/api.hpp"
#include "gpucalc/launch_export.hpp"
#include "gpucalc/message.hpp"
#include "gpucalc/scenario.hpp"
#include "json_writer.hpp"

namespace gpucalc {

namespace {

// {"ok":false,"error":{"path","code","params","message"}}, as every envelope (api.cpp).
std::string export_error(const Error& e) {
  JsonWriter w;
  w.begin_object();
  w.field("ok", false);
  w.field("error", e);
  w.end_object();
  return w.take();
}

}  // namespace

std::string export_json(std::string_view scenario_json, std::string_view format) {
  const std::optional<ExportFormat> f = parse_export_format(format);
  if (!f)
    return export_error(
        coded_error("", "export_format_unknown",
                    "unknown export format \"{format}\": use megatron, torchtitan, deepspeed or llamafactory",
                    {{"format", std::string(format)}}));
  const Expected<Scenario> s = parse_scenario(scenario_json);
  if (!s) return export_error(s.error());
  const Expected<std::string> text = export_text(*s, *f);
  if (!text) return export_error(text.error());
  return R"({"ok":true,"value":)" + *text + "}";
}

}  // namespace gpucalc
