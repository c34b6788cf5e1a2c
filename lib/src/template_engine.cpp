// Template engine: splits a template into text and tags, builds a block tree, renders it.
#include "template_engine.hpp"

#include <memory>
#include <stdexcept>
#include <vector>

#include "clsort/error.hpp"
#include "template_expression.hpp"

namespace clsort::detail {
namespace {

struct Token {
  enum class Kind { text, expression, tag } kind;
  std::string content;  // text, or the trimmed inside of {{ }} / {% %}
  int line;
};

struct Node;
using Nodes = std::vector<Node>;

struct Branch {
  std::string condition;  // empty for `else`
  int line;
  Nodes body;
};

struct Node {
  enum class Kind { text, expression, conditional, loop, include };
  Node(Kind kind, std::string content, int line)
      : kind(kind), content(std::move(content)), line(line) {}

  Kind kind;
  std::string content;  // text, expression, included name or loop variable
  int line;
  std::vector<Branch> branches;  // conditional: if/elif/else; loop: one branch (its body)
  std::string range_begin, range_end;
};

std::string_view trim(std::string_view s) {
  const auto first = s.find_first_not_of(" \t\r\n");
  if (first == std::string_view::npos) return {};
  return s.substr(first, s.find_last_not_of(" \t\r\n") - first + 1);
}

int count_lines(std::string_view s) {
  int lines = 0;
  for (char c : s) lines += c == '\n';
  return lines;
}

class Lexer {
 public:
  Lexer(std::string_view name, std::string_view text) : name_(name), text_(text) {}

  std::vector<Token> run() {
    std::size_t pos = 0;
    int line = 1;
    while (pos < text_.size()) {
      const std::size_t open = text_.find('{', pos);
      const bool is_tag =
          open != std::string_view::npos && open + 1 < text_.size() &&
          (text_[open + 1] == '{' || text_[open + 1] == '%' || text_[open + 1] == '#');
      if (!is_tag) {
        const std::size_t end = open == std::string_view::npos ? text_.size() : open + 1;
        append_text(text_.substr(pos, end - pos), line);
        line += count_lines(text_.substr(pos, end - pos));
        pos = end;
        continue;
      }
      append_text(text_.substr(pos, open - pos), line);
      line += count_lines(text_.substr(pos, open - pos));
      pos = read_tag(open, line);
    }
    return std::move(tokens_);
  }

 private:
  void append_text(std::string_view s, int line) {
    if (s.empty()) return;
    if (!tokens_.empty() && tokens_.back().kind == Token::Kind::text) {
      tokens_.back().content += s;
    } else {
      tokens_.push_back({Token::Kind::text, std::string(s), line});
    }
  }

  // Reads the tag starting at `open`; returns the position after it (and after its line, for a
  // block tag or comment alone on a line, whose indentation is removed as well).
  std::size_t read_tag(std::size_t open, int& line) {
    const char kind = text_[open + 1];
    const std::string_view closer = kind == '{' ? "}}" : kind == '%' ? "%}" : "#}";
    const std::size_t close = text_.find(closer, open + 2);
    if (close == std::string_view::npos)
      throw Error("render template",
                  std::string(name_) + ":" + std::to_string(line) + ": unclosed '{" + kind + "'");
    const std::string_view inside = trim(text_.substr(open + 2, close - open - 2));
    std::size_t after = close + 2;
    const int tag_line = line;
    line += count_lines(text_.substr(open, after - open));
    if (kind != '{' && alone_on_line(open, after)) {
      strip_indentation();
      const std::size_t newline = text_.find('\n', after);
      if (newline != std::string_view::npos) ++line;
      after = newline == std::string_view::npos ? text_.size() : newline + 1;
    }
    if (kind == '{') tokens_.push_back({Token::Kind::expression, std::string(inside), tag_line});
    if (kind == '%') tokens_.push_back({Token::Kind::tag, std::string(inside), tag_line});
    return after;
  }

  bool alone_on_line(std::size_t open, std::size_t after) const {
    const std::size_t line_start = text_.rfind('\n', open == 0 ? 0 : open - 1);
    const std::size_t from =
        (line_start == std::string_view::npos || open == 0) ? 0 : line_start + 1;
    if (!trim(text_.substr(from, open - from)).empty()) return false;
    const std::size_t line_end = text_.find('\n', after);
    const std::size_t to = line_end == std::string_view::npos ? text_.size() : line_end;
    return trim(text_.substr(after, to - after)).empty();
  }

  void strip_indentation() {
    if (tokens_.empty() || tokens_.back().kind != Token::Kind::text) return;
    std::string& s = tokens_.back().content;
    while (!s.empty() && (s.back() == ' ' || s.back() == '\t')) s.pop_back();
    if (s.empty()) tokens_.pop_back();
  }

  std::string_view name_;
  std::string_view text_;
  std::vector<Token> tokens_;
};

class Parser {
 public:
  Parser(std::string_view name, std::vector<Token> tokens)
      : name_(name), tokens_(std::move(tokens)) {}

  Nodes run() {
    Nodes nodes = parse_until({});
    if (pos_ < tokens_.size())
      fail(tokens_[pos_].line, "unexpected '" + tokens_[pos_].content + "'");
    return nodes;
  }

 private:
  [[noreturn]] void fail(int line, const std::string& message) const {
    throw Error("render template",
                std::string(name_) + ":" + std::to_string(line) + ": " + message);
  }

  static std::string keyword(const std::string& tag) { return tag.substr(0, tag.find(' ')); }

  static std::string argument(const std::string& tag) {
    const auto space = tag.find(' ');
    return space == std::string::npos ? "" : std::string(trim(std::string_view(tag).substr(space)));
  }

  // Parses nodes until a tag whose keyword is in `stops` (left unconsumed) or the end.
  Nodes parse_until(const std::vector<std::string>& stops) {
    Nodes nodes;
    while (pos_ < tokens_.size()) {
      const Token& token = tokens_[pos_];
      if (token.kind == Token::Kind::text) {
        nodes.emplace_back(Node::Kind::text, token.content, token.line);
        ++pos_;
      } else if (token.kind == Token::Kind::expression) {
        if (token.content.empty()) fail(token.line, "empty '{{ }}'");
        nodes.emplace_back(Node::Kind::expression, token.content, token.line);
        ++pos_;
      } else {
        const std::string word = keyword(token.content);
        for (const auto& stop : stops)
          if (word == stop) return nodes;
        nodes.push_back(parse_block(token));
      }
    }
    return nodes;
  }

  Node parse_block(const Token& token) {
    const std::string word = keyword(token.content);
    ++pos_;
    if (word == "if" || word == "for") {
      if (open_blocks_ == max_open_blocks)
        fail(token.line, "blocks nested more than " + std::to_string(max_open_blocks) + " deep");
      ++open_blocks_;
      Node node = word == "if" ? parse_conditional(token) : parse_loop(token);
      --open_blocks_;
      return node;
    }
    if (word == "include") {
      const std::string arg = argument(token.content);
      if (arg.size() < 2 || arg.front() != '"' || arg.back() != '"')
        fail(token.line, "include needs a quoted template name");
      return Node(Node::Kind::include, arg.substr(1, arg.size() - 2), token.line);
    }
    if (word == "elif" || word == "else" || word == "endif" || word == "endfor")
      fail(token.line, "'" + word + "' without a matching opening block");
    fail(token.line, "unknown tag '" + word + "'");
  }

  Node parse_conditional(const Token& opening) {
    Node node{Node::Kind::conditional, "", opening.line};
    std::string condition = argument(opening.content);
    int line = opening.line;
    bool seen_else = false;
    for (;;) {
      if (!seen_else && condition.empty()) fail(line, "'if'/'elif' needs a condition");
      Nodes body = parse_until({"elif", "else", "endif"});
      node.branches.push_back({condition, line, std::move(body)});
      if (pos_ >= tokens_.size()) fail(opening.line, "'if' is never closed by 'endif'");
      const Token& tag = tokens_[pos_++];
      const std::string word = keyword(tag.content);
      if (word == "endif") return node;
      if (seen_else) fail(tag.line, "'" + word + "' after 'else'");
      seen_else = word == "else";
      condition = seen_else ? "" : argument(tag.content);
      line = tag.line;
    }
  }

  Node parse_loop(const Token& opening) {
    // for NAME in range(END) | range(BEGIN, END)
    const std::string arg = argument(opening.content);
    const auto in_pos = arg.find(" in ");
    const std::string variable(trim(std::string_view(arg).substr(0, std::min(in_pos, arg.size()))));
    const std::string range = in_pos == std::string::npos
                                  ? ""
                                  : std::string(trim(std::string_view(arg).substr(in_pos + 4)));
    if (variable.empty() || range.rfind("range(", 0) != 0 || range.back() != ')')
      fail(opening.line, "expected 'for NAME in range(END)' or 'range(BEGIN, END)'");
    const std::string bounds = range.substr(6, range.size() - 7);
    const auto comma = bounds.find(',');
    Node node{Node::Kind::loop, variable, opening.line};
    node.range_begin = comma == std::string::npos ? "0" : bounds.substr(0, comma);
    node.range_end = comma == std::string::npos ? bounds : bounds.substr(comma + 1);
    Nodes body = parse_until({"endfor", "elif", "else", "endif"});
    if (pos_ >= tokens_.size() || keyword(tokens_[pos_].content) != "endfor")
      fail(opening.line, "'for' is never closed by 'endfor'");
    ++pos_;
    node.branches.push_back({"", opening.line, std::move(body)});
    return node;
  }

  // Parsing and rendering recurse per open block; the bound keeps hostile input from
  // overflowing the stack (kernel templates nest a few levels).
  static constexpr int max_open_blocks = 64;

  std::string_view name_;
  std::vector<Token> tokens_;
  std::size_t pos_ = 0;
  int open_blocks_ = 0;
};

class Renderer {
 public:
  explicit Renderer(const TemplateLoader& loader) : loader_(loader) {}

  void render(std::string_view name, TemplateContext& context, std::string& out, int depth) {
    if (depth > max_include_depth)
      throw Error("render template", std::string(name) + ": includes nested too deeply (a cycle?)");
    const auto text = loader_(name);
    if (!text) throw Error("render template", "no template named '" + std::string(name) + "'");
    const Nodes nodes = Parser(name, Lexer(name, *text).run()).run();
    render_nodes(name, nodes, context, out, depth);
  }

 private:
  static constexpr int max_include_depth = 16;
  // Hostile templates fail at these bounds instead of running for hours or filling memory; a
  // kernel template renders a few hundred KiB in a few thousand loop iterations.
  static constexpr std::int64_t max_loop_iterations = std::int64_t{1} << 20;  // all loops together
  static constexpr std::size_t max_output_bytes = std::size_t{64} << 20;

  [[noreturn]] static void fail(std::string_view name, int line, const std::string& message) {
    throw Error("render template", std::string(name) + ":" + std::to_string(line) + ": " + message);
  }

  static TemplateValue evaluate(std::string_view name, int line, std::string_view expression,
                                const TemplateContext& context) {
    try {
      return evaluate_expression(expression, context);
    } catch (const std::invalid_argument& e) {
      fail(name, line, std::string(e.what()) + " in '" + std::string(expression) + "'");
    }
  }

  static std::int64_t evaluate_int(std::string_view name, int line, std::string_view expression,
                                   const TemplateContext& context) {
    const TemplateValue v = evaluate(name, line, expression, context);
    if (!std::holds_alternative<std::int64_t>(v))
      fail(name, line,
           "'" + std::string(trim(expression)) + "' is a " + type_name(v) + ", not an int");
    return std::get<std::int64_t>(v);
  }

  void render_nodes(std::string_view name, const Nodes& nodes, TemplateContext& context,
                    std::string& out, int depth) {
    for (const Node& node : nodes) {
      switch (node.kind) {
        case Node::Kind::text:
          out += node.content;
          break;
        case Node::Kind::expression:
          out += to_text(evaluate(name, node.line, node.content, context));
          break;
        case Node::Kind::conditional:
          render_conditional(name, node, context, out, depth);
          break;
        case Node::Kind::loop:
          render_loop(name, node, context, out, depth);
          break;
        case Node::Kind::include:
          render(node.content, context, out, depth + 1);
          break;
      }
      if (out.size() > max_output_bytes)
        fail(name, node.line, "renders more than " + std::to_string(max_output_bytes) + " bytes");
    }
  }

  void render_conditional(std::string_view name, const Node& node, TemplateContext& context,
                          std::string& out, int depth) {
    for (const Branch& branch : node.branches) {
      if (!branch.condition.empty()) {
        const TemplateValue v = evaluate(name, branch.line, branch.condition, context);
        if (!std::holds_alternative<bool>(v))
          fail(name, branch.line,
               "condition '" + branch.condition + "' is a " + type_name(v) + ", not a bool");
        if (!std::get<bool>(v)) continue;
      }
      render_nodes(name, branch.body, context, out, depth);
      return;
    }
  }

  void render_loop(std::string_view name, const Node& node, TemplateContext& context,
                   std::string& out, int depth) {
    const std::int64_t begin = evaluate_int(name, node.line, node.range_begin, context);
    const std::int64_t end = evaluate_int(name, node.line, node.range_end, context);
    if (context.count(node.content))
      fail(name, node.line, "loop variable '" + node.content + "' hides an existing variable");
    // Counted in unsigned arithmetic, where end - begin cannot overflow.
    const std::uint64_t count =
        end > begin ? static_cast<std::uint64_t>(end) - static_cast<std::uint64_t>(begin) : 0;
    if (count > static_cast<std::uint64_t>(max_loop_iterations - loop_iterations_))
      fail(name, node.line,
           "loops run more than " + std::to_string(max_loop_iterations) + " iterations in all");
    loop_iterations_ += static_cast<std::int64_t>(count);
    for (std::int64_t i = begin; i < end; ++i) {
      context[node.content] = i;
      render_nodes(name, node.branches.front().body, context, out, depth);
    }
    context.erase(node.content);
  }

  static std::string to_text(const TemplateValue& v) {
    if (const auto* b = std::get_if<bool>(&v)) return *b ? "1" : "0";
    if (const auto* i = std::get_if<std::int64_t>(&v)) return std::to_string(*i);
    return std::get<std::string>(v);
  }

  const TemplateLoader& loader_;
  std::int64_t loop_iterations_ = 0;  // of every loop rendered so far
};

}  // namespace

std::string render_template(std::string_view name, const TemplateLoader& loader,
                            const TemplateContext& context) {
  TemplateContext scope = context;
  std::string out;
  Renderer(loader).render(name, scope, out, 0);
  return out;
}

}  // namespace clsort::detail
