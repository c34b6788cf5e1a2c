// Recursive-descent evaluator for template expressions with strict bool/int/string typing.
#include "template_expression.hpp"

#include <cctype>
#include <stdexcept>
#include <string>

namespace clsort::detail {
namespace {

using std::int64_t;

class Evaluator {
 public:
  Evaluator(std::string_view text, const TemplateContext& context)
      : text_(text), context_(context) {}

  TemplateValue evaluate_all() {
    TemplateValue value = parse_or();
    skip_space();
    if (pos_ != text_.size()) fail("unexpected '" + std::string(text_.substr(pos_)) + "'");
    return value;
  }

 private:
  [[noreturn]] static void fail(const std::string& message) {
    throw std::invalid_argument(message);
  }

  // l op r for op '+', '-' or '*'; an error where the result does not fit 64 bits, since
  // signed overflow is undefined (the fuzzer found `n << 62`).
  static int64_t arithmetic(char op, int64_t l, int64_t r) {
    int64_t result = 0;
    const bool overflows = op == '+'   ? __builtin_add_overflow(l, r, &result)
                           : op == '-' ? __builtin_sub_overflow(l, r, &result)
                                       : __builtin_mul_overflow(l, r, &result);
    if (overflows) fail("integer overflow in '" + std::string(1, op) + "'");
    return result;
  }

  // Recursion bound: deeply nested input is an error, not a stack overflow (the fuzzer found
  // 1800 nested parentheses). Kernel templates nest a few levels.
  static constexpr int max_nesting = 64;

  // Parses one nested operand (parenthesised, or after 'not' or unary '-') one level deeper.
  template <typename Parse>
  TemplateValue nested(Parse parse) {
    if (nesting_ == max_nesting)
      fail("expression nested more than " + std::to_string(max_nesting) + " levels deep");
    ++nesting_;
    TemplateValue value = (this->*parse)();
    --nesting_;
    return value;
  }

  void skip_space() {
    while (pos_ < text_.size() && std::isspace(static_cast<unsigned char>(text_[pos_]))) ++pos_;
  }

  // Consumes `token` if it comes next; words only match whole identifiers.
  bool accept(std::string_view token) {
    skip_space();
    if (text_.substr(pos_, token.size()) != token) return false;
    const std::size_t end = pos_ + token.size();
    const bool is_word = std::isalpha(static_cast<unsigned char>(token[0]));
    if (is_word && end < text_.size() && is_identifier_char(text_[end])) return false;
    pos_ = end;
    return true;
  }

  static bool is_identifier_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) || c == '_';
  }

  static bool as_bool(const TemplateValue& v, std::string_view op) {
    if (!std::holds_alternative<bool>(v))
      fail("'" + std::string(op) + "' needs a bool, got " + type_name(v));
    return std::get<bool>(v);
  }

  static int64_t as_int(const TemplateValue& v, std::string_view op) {
    if (!std::holds_alternative<int64_t>(v))
      fail("'" + std::string(op) + "' needs an int, got " + type_name(v));
    return std::get<int64_t>(v);
  }

  TemplateValue parse_or() {
    TemplateValue left = parse_and();
    while (accept("or")) {
      const bool l = as_bool(left, "or");
      const bool r = as_bool(parse_and(), "or");
      left = l || r;
    }
    return left;
  }

  TemplateValue parse_and() {
    TemplateValue left = parse_not();
    while (accept("and")) {
      const bool l = as_bool(left, "and");
      const bool r = as_bool(parse_not(), "and");
      left = l && r;
    }
    return left;
  }

  TemplateValue parse_not() {
    if (accept("not")) return !as_bool(nested(&Evaluator::parse_not), "not");
    return parse_comparison();
  }

  TemplateValue parse_comparison() {
    TemplateValue left = parse_shift();
    for (std::string_view op : {"==", "!=", "<=", ">=", "<", ">"}) {
      if (!accept(op)) continue;
      TemplateValue right = parse_shift();
      if (op == "==" || op == "!=") {
        if (left.index() != right.index())
          fail("cannot compare " + std::string(type_name(left)) + " with " + type_name(right));
        return (left == right) == (op == "==");
      }
      const int64_t l = as_int(left, op), r = as_int(right, op);
      if (op == "<=") return l <= r;
      if (op == ">=") return l >= r;
      if (op == "<") return l < r;
      return l > r;
    }
    return left;
  }

  TemplateValue parse_shift() {
    TemplateValue left = parse_additive();
    for (;;) {
      // "<<" must not be confused with "<" / "<=", which parse_comparison handles.
      const bool left_shift = accept("<<");
      if (!left_shift && !accept(">>")) return left;
      const std::string_view op = left_shift ? "<<" : ">>";
      const int64_t l = as_int(left, op), r = as_int(parse_additive(), op);
      if (r < 0 || r > 62) fail("shift by " + std::to_string(r) + " is out of range");
      left = left_shift ? arithmetic('*', l, int64_t{1} << r) : (l >> r);
    }
  }

  TemplateValue parse_additive() {
    TemplateValue left = parse_multiplicative();
    for (;;) {
      if (accept("+")) {
        left = arithmetic('+', as_int(left, "+"), as_int(parse_multiplicative(), "+"));
      } else if (accept("-")) {
        left = arithmetic('-', as_int(left, "-"), as_int(parse_multiplicative(), "-"));
      } else {
        return left;
      }
    }
  }

  TemplateValue parse_multiplicative() {
    TemplateValue left = parse_unary();
    for (;;) {
      char op = 0;
      if (accept("*"))
        op = '*';
      else if (accept("/"))
        op = '/';
      else if (accept("%"))
        op = '%';
      else
        return left;
      const std::string op_name(1, op);
      const int64_t l = as_int(left, op_name), r = as_int(parse_unary(), op_name);
      if (op == '*') {
        left = arithmetic('*', l, r);
      } else {
        if (r == 0) fail("division by zero");
        if (r == -1)  // l / -1 is -l, which overflows for the smallest int64; l % -1 is 0
          left = op == '/' ? arithmetic('-', 0, l) : int64_t{0};
        else
          left = op == '/' ? l / r : l % r;
      }
    }
  }

  TemplateValue parse_unary() {
    if (accept("-")) return arithmetic('-', 0, as_int(nested(&Evaluator::parse_unary), "-"));
    return parse_primary();
  }

  TemplateValue parse_primary() {
    skip_space();
    if (pos_ >= text_.size()) fail("expression ends too early");
    const char c = text_[pos_];
    if (accept("(")) {
      TemplateValue inner = nested(&Evaluator::parse_or);
      if (!accept(")")) fail("missing ')'");
      return inner;
    }
    if (std::isdigit(static_cast<unsigned char>(c))) return parse_integer();
    if (c == '"') return parse_string();
    if (std::isalpha(static_cast<unsigned char>(c)) || c == '_') return parse_name();
    fail(std::string("unexpected '") + c + "'");
  }

  TemplateValue parse_integer() {
    int64_t value = 0;
    while (pos_ < text_.size() && std::isdigit(static_cast<unsigned char>(text_[pos_]))) {
      value = value * 10 + (text_[pos_++] - '0');
      if (value > (int64_t{1} << 53)) fail("integer literal too large");
    }
    return value;
  }

  TemplateValue parse_string() {
    const std::size_t close = text_.find('"', pos_ + 1);
    if (close == std::string_view::npos) fail("unterminated string");
    std::string value(text_.substr(pos_ + 1, close - pos_ - 1));
    pos_ = close + 1;
    return value;
  }

  TemplateValue parse_name() {
    const std::size_t start = pos_;
    while (pos_ < text_.size() && is_identifier_char(text_[pos_])) ++pos_;
    const std::string_view name = text_.substr(start, pos_ - start);
    if (name == "true") return true;
    if (name == "false") return false;
    const auto it = context_.find(name);
    if (it == context_.end()) fail("unknown variable '" + std::string(name) + "'");
    return it->second;
  }

  std::string_view text_;
  const TemplateContext& context_;
  std::size_t pos_ = 0;
  int nesting_ = 0;
};

}  // namespace

TemplateValue evaluate_expression(std::string_view text, const TemplateContext& context) {
  return Evaluator(text, context).evaluate_all();
}

const char* type_name(const TemplateValue& value) {
  static constexpr const char* names[] = {"bool", "int", "string"};
  return names[value.index()];
}

}  // namespace clsort::detail
