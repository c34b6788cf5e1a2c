// Fuzz target: the kernel template engine rendering arbitrary template text.
#include <cstdint>
#include <optional>
#include <string>
#include <string_view>

#include "clsort/error.hpp"
#include "template_engine.hpp"

extern "C" int LLVMFuzzerTestOneInput(const std::uint8_t* data, std::size_t size) {
  using namespace clsort::detail;
  const std::string text(reinterpret_cast<const char*>(data), size);
  // "main" is the input; it may include itself or a small fixed template.
  const TemplateLoader loader = [&](std::string_view name) -> std::optional<std::string_view> {
    if (name == "main") return text;
    if (name == "part") return "part {{ n }}{% if flag %}!{% endif %}\n";
    return std::nullopt;
  };
  const TemplateContext context{{"n", std::int64_t{5}}, {"flag", true}, {"type", "uint"}};
  try {
    render_template("main", loader, context);
  } catch (const clsort::Error&) {
  }
  return 0;
}
