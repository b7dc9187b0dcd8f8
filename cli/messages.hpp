// The CLI's messages in the reader's language (`gpucalc --lang zh`, or GPUCALC_LANG=zh):
// the core's coded errors and warnings rendered from data/messages.json, as the page
// renders them (web/i18n.js renderCoded).
#pragma once
#include <string>

#include <nlohmann/json.hpp>

namespace gpucalc::cli {

// "en" or "zh": `--lang` when given (taken out of argv), else GPUCALC_LANG, else "en".
// Anything else is refused by name.
bool take_language(int& argc, char** argv, std::string& lang, std::string& error);

// A coded message ({code, params, message}) in `lang`: its code's template with the
// params filled in (a `reason` param that is itself a code, rendered too); the English
// message when the language is English or the code has no template.
std::string localized(const nlohmann::ordered_json& m, const std::string& lang);

}  // namespace gpucalc::cli
