// A small text template engine for OpenCL kernels: substitution, conditionals, loops, includes.
#pragma once

#include <cstdint>
#include <functional>
#include <map>
#include <optional>
#include <string>
#include <string_view>
#include <variant>

namespace clsort::detail {

/// A template variable: a boolean, an integer or a string.
using TemplateValue = std::variant<bool, std::int64_t, std::string>;
using TemplateContext = std::map<std::string, TemplateValue, std::less<>>;
/// Returns the text of the named template, or nullopt if there is none.
using TemplateLoader = std::function<std::optional<std::string_view>(std::string_view name)>;

/// Renders the template `name` (found through `loader`) with `context`.
///
/// Syntax: `{{ expr }}` substitutes a value; `{% if expr %}`, `{% elif expr %}`, `{% else %}`,
/// `{% endif %}`; `{% for i in range(end) %}` or `range(begin, end)` ... `{% endfor %}`;
/// `{% include "name" %}`; `{# comment #}`. Expressions have integers, "strings", true/false,
/// variables, parentheses, + - * / % << >>, comparisons, and/or/not. A line holding only a tag
/// or comment leaves no blank line behind. Errors (unknown variable, type mismatch, unbalanced
/// block, bad syntax) throw clsort::Error naming the template and line.
std::string render_template(std::string_view name, const TemplateLoader& loader,
                            const TemplateContext& context);

}  // namespace clsort::detail
