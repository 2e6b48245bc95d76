#include "hostfile.h"

#include <arpa/inet.h>
#include <algorithm>
#include <cctype>
#include <map>
#include <utility>

#include "readers/prof_reader.h"

namespace mpimon::tools {

namespace {

// Large enough for any host, small enough that counts never overflow.
constexpr long kMaxCount = 10'000'000;

enum class Kind { end, newline, equal, word, number, slots, max_slots, username, port, rank, slot, unsupported };

struct Token {
  Kind kind = Kind::end;
  std::string text;
  int line = 0;
};

Kind keyword(const std::string& w) {
  static const std::map<std::string, Kind> keywords = [] {
    std::map<std::string, Kind> k;
    for (const char* s : {"slots", "count", "cpu"}) k[s] = Kind::slots;
    for (const char* s : {"slots-max", "slots_max", "max-slots", "max_slots", "cpu-max", "cpu_max", "max-cpu",
                          "max_cpu", "count-max", "count_max", "max-count", "max_count"})
      k[s] = Kind::max_slots;
    for (const char* s : {"username", "user-name", "user_name"}) k[s] = Kind::username;
    for (const char* s : {"boards", "sockets", "sockets_per_board", "sockets-per-board", "cores", "cores_per_socket",
                          "cores-per-socket"})
      k[s] = Kind::unsupported;
    k["port"] = Kind::port;
    k["rank"] = Kind::rank;
    k["slot"] = Kind::slot;
    return k;
  }();
  auto it = keywords.find(w);
  return it == keywords.end() ? Kind::word : it->second;
}

// The tokens of Open MPI's hostfile lexer (hostfile_lex.l) that matter here. Words are the
// characters its host and string patterns take; a comment at the very end needs no newline.
class Lexer {
 public:
  Lexer(std::string_view text, const std::string& file) : text_(text), file_(file) {}

  Token next() {
    for (;;) {
      if (at_ >= text_.size()) return {Kind::end, "", line_};
      const char c = text_[at_];
      if (c == ' ' || c == '\t' || c == '\f' || c == '\v' || c == '\r') {
        ++at_;
      } else if (c == '\n') {
        ++at_;
        return {Kind::newline, "", line_++};
      } else if (c == '#' || text_.substr(at_, 2) == "//") {
        while (at_ < text_.size() && text_[at_] != '\n') ++at_;
      } else if (text_.substr(at_, 2) == "/*") {
        const int opened = line_;
        const size_t close = text_.find("*/", at_ + 2);
        if (close == std::string_view::npos) fail(opened, "expected */ closing the comment opened here");
        line_ += static_cast<int>(std::count(text_.begin() + at_, text_.begin() + close, '\n'));
        at_ = close + 2;
      } else if (c == '"') {
        const size_t close = text_.find('"', at_ + 1);
        std::string quoted(text_.substr(at_, close == std::string_view::npos ? 1 : close + 1 - at_));
        fail(line_, "expected a host name or a keyword, not the quoted string " + quoted +
                        " (mpirun refuses quoted strings in a hostfile)");
      } else if (c == '=') {
        ++at_;
        return {Kind::equal, "=", line_};
      } else if (is_word_char(c)) {
        const size_t start = at_;
        while (at_ < text_.size() && is_word_char(text_[at_])) ++at_;
        std::string w(text_.substr(start, at_ - start));
        if (std::all_of(w.begin(), w.end(), [](char d) { return std::isdigit(static_cast<unsigned char>(d)); }))
          return {Kind::number, w, line_};
        return {keyword(w), w, line_};
      } else {
        fail(line_, std::string("expected a host name, a keyword or a comment, not '") + c + "'");
      }
    }
  }

  [[noreturn]] void fail(int line, const std::string& what) const {
    throw FormatError(file_ + ":" + std::to_string(line) + ": " + what);
  }

 private:
  static bool is_word_char(char c) {
    return std::isalnum(static_cast<unsigned char>(c)) ||
           std::string_view("_-,:*@.^+").find(c) != std::string_view::npos;
  }

  std::string_view text_;
  const std::string& file_;
  size_t at_ = 0;
  int line_ = 1;
};

bool is_ip_address(const std::string& name) {
  unsigned char buffer[16];
  return inet_pton(AF_INET, name.c_str(), buffer) == 1 || inet_pton(AF_INET6, name.c_str(), buffer) == 1;
}

struct Entry {
  HostfileHost host;
  int slots = 1;             // mpirun's node->slots: 1 for a new host, +1 per repetition
  bool slots_given = false;  // mpirun's ORTE_NODE_FLAG_SLOTS_GIVEN
};

class Parser {
 public:
  Parser(std::string_view text, const std::string& file) : lexer_(text, file) {}

  std::vector<HostfileHost> run() {
    for (Token t = next(); t.kind != Kind::end; t = next()) {
      if (t.kind == Kind::newline) continue;
      if (t.kind == Kind::rank) {
        rank_line(t);
      } else if (t.kind == Kind::word || t.kind == Kind::number) {
        host_line(t);
      } else {
        lexer_.fail(t.line, "expected a host name at the start of the line, not '" + t.text + "'");
      }
    }
    std::vector<HostfileHost> hosts;
    for (const std::string& name : order_) {
      Entry& e = entries_.at(name);
      if (e.slots_given) e.host.slots = e.slots;
      hosts.push_back(e.host);
    }
    return hosts;
  }

 private:
  Token next() {
    if (pending_) return std::exchange(pending_, std::nullopt).value();
    return lexer_.next();
  }

  // A host name as mpirun keys its nodes: without "user@", and without the domain unless
  // it is an IP address.
  std::string node_name(const Token& t) {
    std::string name = t.text;
    if (name[0] == '^')
      lexer_.fail(t.line, "expected a host name, not '" + name +
                              "' (Open MPI 4.1.4's hostfile reader rejects ^ exclusions: leave the host out)");
    if (name[0] == '+')
      lexer_.fail(t.line, "expected a host name, not the relative host '" + name +
                              "' (mpirun has no prior allocation to take it from)");
    const size_t at = name.find('@');
    if (at != std::string::npos) {
      if (name.find('@', at + 1) != std::string::npos || at == 0 || at + 1 == name.size())
        lexer_.fail(t.line, "expected user@host, not '" + name + "'");
      name = name.substr(at + 1);
    }
    if (is_ip_address(name)) return name;
    const bool valid = std::all_of(name.begin(), name.end(), [](char c) {
      return std::isalnum(static_cast<unsigned char>(c)) || c == '-' || c == '.';
    });
    if (!valid || !std::isalnum(static_cast<unsigned char>(name[0])))
      lexer_.fail(t.line, "expected a host name of letters, digits, dots and hyphens, not '" + name +
                              "' (mpirun cannot launch on it)");
    return name.substr(0, name.find('.'));
  }

  // mpirun: a new host starts with one slot; naming it again adds one and fixes the count.
  Entry& mention(const std::string& name, int line) {
    auto [it, added] = entries_.try_emplace(name);
    if (added) {
      it->second.host.name = name;
      it->second.host.line = line;
      order_.push_back(name);
    } else {
      ++it->second.slots;
      it->second.slots_given = true;
    }
    return it->second;
  }

  int number_after_equal(const Token& keyword_token) {
    const Token eq = next();
    const Token value = eq.kind == Kind::equal ? next() : eq;
    if (eq.kind != Kind::equal || value.kind != Kind::number || value.text.size() > 8 ||
        std::stol(value.text) > kMaxCount)
      lexer_.fail(keyword_token.line, "expected " + keyword_token.text + "=<count from 0 to " +
                                          std::to_string(kMaxCount) + ">, not '" + keyword_token.text + eq.text +
                                          (eq.kind == Kind::equal ? value.text : "") + "'");
    return static_cast<int>(std::stol(value.text));
  }

  void host_line(const Token& first) {
    Entry& e = mention(node_name(first), first.line);
    bool got_max = false;
    for (Token t = next(); t.kind != Kind::newline && t.kind != Kind::end; t = next()) {
      switch (t.kind) {
        case Kind::slots: {
          const int slots = number_after_equal(t);
          if (e.slots_given)
            lexer_.fail(t.line, "expected one slot count for " + e.host.name +
                                    " (mpirun refuses slots= on a host listed several times or given slots= twice)");
          e.slots = slots;
          e.slots_given = true;
          if (e.host.max_slots != 0 && e.host.max_slots < slots) e.host.max_slots = slots;
          break;
        }
        case Kind::max_slots: {
          const int max = number_after_equal(t);
          if (max < e.slots)
            lexer_.fail(t.line, "expected " + t.text + " >= the host's " + std::to_string(e.slots) + " slot(s), not " +
                                    std::to_string(max));
          got_max = got_max || e.host.max_slots != max;
          e.host.max_slots = max;
          break;
        }
        case Kind::port:
          number_after_equal(t);
          break;
        case Kind::username: {
          const Token eq = next();
          const Token value = eq.kind == Kind::equal ? next() : eq;
          if (eq.kind != Kind::equal || value.kind != Kind::word || value.text.find('.') != std::string::npos)
            lexer_.fail(t.line, "expected " + t.text + "=<user name>");
          break;
        }
        case Kind::word:
        case Kind::number: {
          // mpirun ignores a stray word, but not a dotted one (a second host) nor `word=`.
          if (t.text.find('.') != std::string::npos)
            lexer_.fail(t.line, "expected one host per line, not '" + t.text + "' after " + e.host.name);
          Token after = next();
          if (after.kind == Kind::equal)
            lexer_.fail(t.line, "expected slots=, max_slots=, username= or port=, not '" + t.text + "='");
          pending_ = std::move(after);
          break;
        }
        default:
          lexer_.fail(t.line, "expected slots=, max_slots=, username= or port=, not '" + t.text + "'" +
                                  (t.kind == Kind::unsupported ? " (mpirun 4.1.4 rejects it in a hostfile)" : ""));
      }
    }
    if (got_max && !e.slots_given) {  // max_slots alone: that many slots
      e.slots = e.host.max_slots;
      e.slots_given = true;
    }
  }

  // `rank N=host slot=...`: mpirun takes one slot on the host and ignores the rest.
  void rank_line(const Token& rank) {
    Token t = next();
    while (t.kind != Kind::equal && t.kind != Kind::newline && t.kind != Kind::end) t = next();
    const Token host = t.kind == Kind::equal ? next() : t;
    if (host.kind != Kind::word && host.kind != Kind::number)
      lexer_.fail(rank.line, "expected rank <n>=<host> slot=<cores>");
    mention(node_name(host), host.line).slots_given = true;
    for (t = host; t.kind != Kind::newline && t.kind != Kind::end;) t = next();
  }

  Lexer lexer_;
  std::optional<Token> pending_;  // a token read ahead
  std::map<std::string, Entry> entries_;
  std::vector<std::string> order_;
};

}  // namespace

std::vector<HostfileHost> parse_hostfile(std::string_view text, const std::string& file) {
  std::vector<HostfileHost> hosts = Parser(text, file).run();
  if (hosts.empty()) throw FormatError(file + ": expected at least one host line");
  return hosts;
}

std::vector<HostfileHost> read_hostfile(const std::string& path) { return parse_hostfile(read_dump_text(path), path); }

}  // namespace mpimon::tools
