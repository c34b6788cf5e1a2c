// Evaluates the typed expressions inside template tags ({{ expr }}, {% if expr %}, range()).
#pragma once

#include <string_view>

#include "template_engine.hpp"

namespace clsort::detail {

/// Evaluates `text` against `context`. Throws std::invalid_argument with a message (no location)
/// on a syntax error, an unknown variable or a type mismatch; the caller adds template and line.
TemplateValue evaluate_expression(std::string_view text, const TemplateContext& context);

/// The name of a value's type as used in error messages: "bool", "int" or "string".
const char* type_name(const TemplateValue& value);

}  // namespace clsort::detail
