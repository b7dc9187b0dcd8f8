// Coded messages: an error, warning or default-applied note is built from a stable code,
// its English template ("must be at most {max}, got {got}") and the named parameters the
// template substitutes. The English text the core prints is the template filled in (and
// english_singular below); the page renders the same code and parameters from
// data/messages.json in its own language.
#pragma once
#include <string>
#include <string_view>
#include <vector>

#include "gpucalc/error.hpp"

namespace gpucalc {

// `tmpl` with every "{name}" replaced by that parameter's value (a count of five digits or
// more, a parameter named *_tokens, gpus, fastest_gpus or dp, with its thousands grouped:
// 4,194,304); a placeholder with no parameter of its name is left as written.
std::string format_message(std::string_view tmpl, const Params& params);

// English count nouns take the singular after exactly one: "1 GPU", not "1 GPUs" (GPU,
// sequence, layout, day, step, micro-batch; the templates in data/messages.json write the
// plural, and web/i18n.js applies the same rule). A message's English text is its template
// filled in, then this.
std::string english_singular(std::string text);

// A warning or default-applied note from its code, English template and parameters.
Message coded(std::string code, std::string_view en, Params params = {});

// An error at `path` from its code, English template and parameters.
Error coded_error(std::string path, std::string code, std::string_view en, Params params = {});

// A message that wraps another ("cost is null: <why>"): the outer template's {reason}
// holds the inner message, so the parameters carry reason = the inner code beside the
// inner parameters, and a reader renders the inner code into the outer template.
Message wrapping(std::string code, std::string_view en, const Message& inner, Params params = {});

// Prose the answer explains a number with (a memory term's formula and source, a price's
// rule): literal text where a reader of either language reads the same (symbols,
// citations, identifiers: a part with an empty code) and coded pieces the page renders
// in its language. The English text is the parts concatenated.
using Parts = std::vector<Message>;
Message literal(std::string text);
std::string joined(const Parts& parts);
Error wrapping_error(std::string path, std::string code, std::string_view en, const Message& inner, Params params = {});

}  // namespace gpucalc
