// Tests of the kernel template engine: substitution, blocks, loops, includes and every error.
#include <boost/test/unit_test.hpp>

#include <map>

#include "clsort/error.hpp"
#include "template_engine.hpp"

using clsort::detail::render_template;
using clsort::detail::TemplateContext;

namespace {

struct Templates {
  std::map<std::string, std::string, std::less<>> files;
  std::string render(const std::string& text, const TemplateContext& context = {}) {
    files["main"] = text;
    return render_template("main", loader(), context);
  }
  clsort::detail::TemplateLoader loader() {
    return [this](std::string_view name) -> std::optional<std::string_view> {
      const auto it = files.find(name);
      if (it == files.end()) return std::nullopt;
      return std::string_view(it->second);
    };
  }
};

// Renders and expects a clsort::Error whose message contains every fragment.
void expect_error(const std::string& text, const TemplateContext& context,
                  std::initializer_list<std::string> fragments) {
  Templates t;
  try {
    t.render(text, context);
    BOOST_FAIL("no error for: " << text);
  } catch (const clsort::Error& e) {
    for (const auto& fragment : fragments)
      BOOST_TEST(std::string(e.what()).find(fragment) != std::string::npos,
                 "'" << e.what() << "' lacks '" << fragment << "'");
  }
}

const TemplateContext vars{{"n", std::int64_t{4}}, {"name", std::string("uint")}, {"on", true}};

}  // namespace

BOOST_AUTO_TEST_SUITE(template_engine)

BOOST_AUTO_TEST_CASE(substitutes_values_and_expressions) {
  Templates t;
  BOOST_TEST(t.render("typedef {{ name }} t; #define N {{ n }}", vars) ==
             "typedef uint t; #define N 4");
  BOOST_TEST(t.render("{{ 1 << n }} {{ n * 3 - 2 }} {{ (n + 2) / 4 }} {{ n % 3 }} {{ -n }}",
                      vars) == "16 10 1 1 -4");
  BOOST_TEST(t.render("{{ on }}{{ not on }}{{ n == 4 and name == \"uint\" }}", vars) == "101");
  BOOST_TEST(t.render("{{ n >> 1 }} {{ n < 5 }} {{ n >= 5 }} {{ n != 4 or on }}", vars) ==
             "2 1 0 1");
  BOOST_TEST(t.render("{{ -1 << 3 }} {{ (0 - 7) / -1 }} {{ 7 % -1 }}", vars) == "-8 7 0");
  BOOST_TEST(t.render("plain { braces } stay", vars) == "plain { braces } stay");
}

BOOST_AUTO_TEST_CASE(conditionals_pick_one_branch) {
  Templates t;
  const std::string text = "{% if n == 1 %}one{% elif n == 4 %}four{% else %}other{% endif %}";
  BOOST_TEST(t.render(text, vars) == "four");
  BOOST_TEST(t.render(text, {{"n", std::int64_t{1}}}) == "one");
  BOOST_TEST(t.render(text, {{"n", std::int64_t{9}}}) == "other");
  BOOST_TEST(t.render("{% if on %}{% if n > 9 %}big{% endif %}small{% endif %}", vars) == "small");
}

BOOST_AUTO_TEST_CASE(loops_unroll_with_a_scoped_variable) {
  Templates t;
  BOOST_TEST(t.render("{% for i in range(n) %}{{ i }},{% endfor %}", vars) == "0,1,2,3,");
  BOOST_TEST(t.render("{% for i in range(2, n) %}{% for j in range(i) %}{{ i * 10 + j }} {% endfor "
                      "%}{% endfor %}",
                      vars) == "20 21 30 31 32 ");
  BOOST_TEST(t.render("{% for i in range(0) %}x{% endfor %}", vars) == "");
}

BOOST_AUTO_TEST_CASE(tag_lines_leave_no_blank_lines) {
  Templates t;
  BOOST_TEST(t.render("a\n  {% if on %}\n  b\n  {% endif %}\n{# note #}\nc\n", vars) ==
             "a\n  b\nc\n");
}

BOOST_AUTO_TEST_CASE(includes_share_the_context) {
  Templates t;
  t.files["part"] = "[{{ name }}]";
  BOOST_TEST(t.render("x{% include \"part\" %}y", vars) == "x[uint]y");
}

BOOST_AUTO_TEST_CASE(errors_name_template_and_line) {
  expect_error("a\nb {{ missing }}", vars, {"main:2", "unknown variable 'missing'"});
  expect_error("{% if name %}x{% endif %}", vars, {"main:1", "is a string, not a bool"});
  expect_error("\n{{ n + name }}", vars, {"main:2", "'+' needs an int, got string"});
  expect_error("{{ n == name }}", vars, {"cannot compare int with string"});
  expect_error("{% for i in range(name) %}{% endfor %}", vars, {"main:1", "not an int"});
  expect_error("x\n{% if on %}\nnever closed", vars, {"main:2", "never closed by 'endif'"});
  expect_error("{% for i in range(2) %}", vars, {"main:1", "never closed by 'endfor'"});
  expect_error("\n\n{% endif %}", vars, {"main:3", "'endif' without a matching opening block"});
  expect_error("{% if on %}{% else %}{% elif on %}{% endif %}", vars, {"after 'else'"});
  expect_error("{% if on %}{% endfor %}", vars, {"main:1"});
  expect_error("{% frobnicate %}", vars, {"unknown tag 'frobnicate'"});
  expect_error("{{ n / 0 }}", vars, {"division by zero"});
  expect_error("{{ n << 62 }}", vars, {"main:1", "integer overflow in '*'"});
  expect_error("{{ 9007199254740992 * 9007199254740992 }}", vars, {"integer overflow in '*'"});
  expect_error("{{ (1 << 62) + (1 << 62) }}", vars, {"integer overflow in '+'"});
  expect_error("{{ -(1 << 62) - (1 << 62) - (1 << 62) }}", vars, {"integer overflow in '-'"});
  expect_error("{{ n +  }}", vars, {"main:1", "ends too early"});
  expect_error("{{ n", vars, {"main:1", "unclosed"});
  expect_error("{% include \"nowhere\" %}", vars, {"no template named 'nowhere'"});
  expect_error("{% include \"main\" %}", vars, {"nested too deeply"});
  expect_error("{% for n in range(2) %}{% endfor %}", vars, {"hides an existing variable"});
}

// Hostile nesting is an error at a fixed depth rather than a stack overflow; 64 levels still work.
BOOST_AUTO_TEST_CASE(bounds_nesting_depth) {
  const auto repeat = [](const std::string& s, int times) {
    std::string out;
    for (int i = 0; i < times; ++i) out += s;
    return out;
  };
  Templates t;
  BOOST_TEST(t.render("{{ " + repeat("(", 64) + "n" + repeat(")", 64) + " }}", vars) == "4");
  BOOST_TEST(t.render("{{ " + repeat("- ", 64) + "n }}", vars) == "4");
  BOOST_TEST(t.render("{{ " + repeat("not ", 64) + "on }}", vars) == "1");
  BOOST_TEST(t.render(repeat("{% if on %}", 64) + "x" + repeat("{% endif %}", 64), vars) == "x");
  const std::string deep_parens = "{{ " + repeat("(", 65) + "n" + repeat(")", 65) + " }}";
  expect_error(deep_parens, vars, {"main:1", "nested more than 64 levels"});
  expect_error("{{ " + repeat("- ", 65) + "n }}", vars, {"nested more than 64 levels"});
  expect_error("{{ " + repeat("not ", 65) + "on }}", vars, {"nested more than 64 levels"});
  expect_error("{{ " + repeat("(", 5000) + " }}", vars, {"nested more than 64 levels"});
  expect_error("\n" + repeat("{% for i in range(1) %}", 65), vars,
               {"main:2", "blocks nested more than 64 deep"});
  expect_error(repeat("{% if on %}", 5000), vars, {"blocks nested more than 64 deep"});
}

// Hostile loops fail at a bound on all loops' iterations and on the rendered size, rather than
// running for hours (fuzzing found range(258870738762)) or filling memory.
BOOST_AUTO_TEST_CASE(bounds_loop_work_and_output) {
  Templates t;
  const std::string full = "{% for i in range(1048576) %}{% endfor %}x";
  BOOST_TEST(t.render(full, vars) == "x");
  expect_error("\n{% for i in range(1048577) %}{% endfor %}", vars,
               {"main:2", "loops run more than 1048576 iterations in all"});
  expect_error("{% for i in range(1024) %}{% for j in range(1025) %}{% endfor %}{% endfor %}", vars,
               {"more than 1048576 iterations"});
  expect_error("{% for i in range(0 - (1 << 62), 1 << 62) %}{% endfor %}", vars,
               {"more than 1048576 iterations"});
  expect_error("{% for i in range(258870738762) %}{{ i * 4 }}{% endfor %}", vars,
               {"more than 1048576 iterations"});
  const std::string line(100, 'x');
  expect_error("{% for i in range(1000000) %}" + line + "{% endfor %}", vars,
               {"main:1", "renders more than 67108864 bytes"});
}

BOOST_AUTO_TEST_SUITE_END()
