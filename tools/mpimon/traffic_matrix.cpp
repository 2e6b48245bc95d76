#include "traffic_matrix.h"

#include <algorithm>
#include <stdexcept>

#include "readers/format_error.h"

namespace mpimon::tools {

namespace {

constexpr unsigned bit(Category c) { return 1u << static_cast<int>(c); }

bool before(const Cell& a, const Cell& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; }
bool same_pair(const Cell& a, const Cell& b) { return a.from == b.from && a.to == b.to; }

// a += b, or FormatError when the sum reaches kCountLimit.
void add_counts(Traffic& a, const Traffic& b, const char* what, const Cell& where) {
  a.messages += b.messages;  // both below 2^60: no wrap-around
  a.bytes += b.bytes;
  if (a.messages >= kCountLimit || a.bytes >= kCountLimit)
    throw FormatError(std::string("the inputs summed: expected counts below 2^60, found more for ") + what + " " +
                      std::to_string(where.from) + " -> " + std::to_string(where.to));
}

// Sorts `cells` and merges the cells of one pair; `what` names the category for the
// error when a merged count reaches kCountLimit (nullptr: no limit, for sums of
// categories, which stay below 4 x 2^60).
void sort_and_merge(std::vector<Cell>& cells, const char* what) {
  std::sort(cells.begin(), cells.end(), before);
  size_t out = 0;
  for (size_t i = 0; i < cells.size(); ++i) {
    if (out > 0 && same_pair(cells[out - 1], cells[i])) {
      Traffic& sum = cells[out - 1].traffic;
      if (what) {
        add_counts(sum, cells[i].traffic, what, cells[i]);
      } else {
        sum.messages += cells[i].traffic.messages;
        sum.bytes += cells[i].traffic.bytes;
      }
    } else {
      cells[out++] = cells[i];
    }
  }
  cells.resize(out);
  cells.shrink_to_fit();
}

}  // namespace

std::string total_text(Total v) {
  std::string digits;
  do digits.insert(digits.begin(), static_cast<char>('0' + static_cast<int>(v % 10)));
  while ((v /= 10) != 0);
  return digits;
}

Selection::Selection(Category category) : mask_(bit(category)), name_(category_name(category)) {}

Selection Selection::of(std::string_view name) {
  for (int c = 0; c < kCategoryCount; ++c)
    if (name == category_name(static_cast<Category>(c))) return Selection(static_cast<Category>(c));
  // The sums: see the header (and docs/formats.md) for why `all` leaves `coll` out.
  if (name == "osc") return Selection(bit(Category::osc_sent) | bit(Category::osc_recv), "osc");
  const unsigned communication =
      bit(Category::external) | bit(Category::internal) | bit(Category::osc_sent) | bit(Category::osc_recv);
  if (name == "communication") return Selection(communication, "communication");
  if (name == "all") return Selection(communication | bit(Category::io_shuffle), "all");
  throw std::invalid_argument("unknown category '" + std::string(name) +
                              "' (expected external, internal, coll, osc_sent, osc_recv, io_shuffle, osc, "
                              "communication or all)");
}

std::vector<std::string> Selection::names() {
  std::vector<std::string> names;
  for (int c = 0; c < kCategoryCount; ++c) names.push_back(category_name(static_cast<Category>(c)));
  names.push_back("osc");
  names.push_back("communication");
  names.push_back("all");
  return names;
}

std::string Selection::title() const {
  if (name_ == "external") return "point-to-point, application (E)";
  if (name_ == "internal") return "point-to-point, internal: collectives and protocol (I)";
  if (name_ == "coll") return "collectives, logical pattern (C)";
  if (name_ == "osc_sent") return "one-sided, sent: puts and accumulates (S)";
  if (name_ == "osc_recv") return "one-sided, received: gets, from the target read to the origin (R)";
  if (name_ == "io_shuffle") return "MPI-IO collective-buffering shuffle, the I/O library's own (F)";
  if (name_ == "osc") return "one-sided, both directions (S + R)";
  if (name_ == "communication") return "communication: all traffic but the MPI-IO shuffle (E + I + S + R)";
  return "all traffic (E + I + S + R + F; C is left out, its messages are in I)";
}

void TrafficMatrix::add(Category category, int32_t recorder, int32_t peer, Traffic traffic) {
  if (recorder < 0 || peer < 0 || recorder > kMaxRank || peer > kMaxRank)
    throw std::invalid_argument("rank out of range");  // the readers check ranks first
  const bool transposed = category == Category::osc_recv;
  cells_[static_cast<int>(category)].push_back({transposed ? peer : recorder, transposed ? recorder : peer, traffic});
  ranks_ = std::max({ranks_, recorder + 1, peer + 1});
  sorted_ = false;
}

void TrafficMatrix::cover_ranks(int32_t ranks) { ranks_ = std::max(ranks_, ranks); }

void TrafficMatrix::finish() const {
  if (sorted_) return;
  for (int c = 0; c < kCategoryCount; ++c) sort_and_merge(cells_[c], category_name(static_cast<Category>(c)));
  sorted_ = true;
}

TrafficMatrix::Mark TrafficMatrix::mark() const {
  finish();  // what came before is sorted and merged: the mark stays valid until the next add
  Mark m;
  for (int c = 0; c < kCategoryCount; ++c) m[c] = cells_[c].size();
  return m;
}

std::optional<std::pair<Category, Cell>> TrafficMatrix::repeated_since(const Mark& mark) {
  for (int c = 0; c < kCategoryCount; ++c) {
    std::vector<Cell>& v = cells_[c];
    if (mark[c] > v.size()) continue;
    std::sort(v.begin() + static_cast<ptrdiff_t>(mark[c]), v.end(), before);
    for (size_t i = mark[c] + 1; i < v.size(); ++i)
      if (same_pair(v[i - 1], v[i])) return std::pair{static_cast<Category>(c), v[i]};
  }
  return std::nullopt;
}

const std::vector<Cell>& TrafficMatrix::cells(Category category) const {
  finish();
  return cells_[static_cast<int>(category)];
}

bool TrafficMatrix::has(const Selection& selection) const {
  for (int c = 0; c < kCategoryCount; ++c)
    if (selection.includes(static_cast<Category>(c)) && has(static_cast<Category>(c))) return true;
  return false;
}

std::vector<Cell> TrafficMatrix::cells(const Selection& selection) const {
  std::vector<Cell> out;
  int included = 0;
  for (int c = 0; c < kCategoryCount; ++c) {
    if (!selection.includes(static_cast<Category>(c))) continue;
    const std::vector<Cell>& part = cells(static_cast<Category>(c));
    out.insert(out.end(), part.begin(), part.end());
    ++included;
  }
  if (included > 1) sort_and_merge(out, nullptr);
  return out;
}

Traffic TrafficMatrix::at(Category category, int32_t from, int32_t to) const {
  const std::vector<Cell>& c = cells(category);
  const Cell key{from, to, {}};
  auto it = std::lower_bound(c.begin(), c.end(), key, before);
  return it != c.end() && same_pair(*it, key) ? it->traffic : Traffic{};
}

size_t TrafficMatrix::non_zeros() const {
  size_t n = 0;
  for (int c = 0; c < kCategoryCount; ++c) n += cells(static_cast<Category>(c)).size();
  return n;
}

}  // namespace mpimon::tools
static_assert(sizeof(mpimon::tools::Cell) == 24, "cells stay compact: 24 bytes per non-zero");
