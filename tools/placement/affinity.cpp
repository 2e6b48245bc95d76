#include "affinity.h"

#include <algorithm>
#include <stdexcept>
#include <string>

namespace mpimon::placement {

namespace {

void check_process(int p, int processes) {
  if (p < 0 || p >= processes)
    throw std::out_of_range("process " + std::to_string(p) + " outside 0.." + std::to_string(processes - 1));
}

}  // namespace

Affinity::Affinity(int processes, std::vector<Traffic> traffic) : rows_(processes) {
  // Each directed amount lands in both rows; sorting the doubled list groups a row's
  // partners, so each row is built once, already sorted and merged.
  std::vector<Traffic> both;
  both.reserve(traffic.size() * 2);
  for (const Traffic& t : traffic) {
    check_process(t.from, processes);
    check_process(t.to, processes);
    if (t.from == t.to || t.amount == 0) continue;
    both.push_back(t);
    both.push_back({t.to, t.from, t.amount});
  }
  traffic.clear();
  traffic.shrink_to_fit();
  std::sort(both.begin(), both.end(),
            [](const Traffic& a, const Traffic& b) { return a.from != b.from ? a.from < b.from : a.to < b.to; });
  for (size_t k = 0; k < both.size();) {
    const int from = both[k].from;
    size_t end = k;
    int partners = 0;
    for (int last = -1; end < both.size() && both[end].from == from; ++end)
      if (both[end].to != last) last = both[end].to, ++partners;
    std::vector<Link>& row = rows_[from];
    row.reserve(partners);
    for (; k < end; ++k) {
      if (!row.empty() && row.back().peer == both[k].to)
        row.back().weight += both[k].amount;
      else
        row.push_back({both[k].to, both[k].amount});
    }
  }
}

void Affinity::add(int i, int j, double amount) {
  check_process(i, size());
  check_process(j, size());
  if (i == j || amount == 0) return;
  auto insert = [](std::vector<Link>& row, int peer, double amount) {
    auto it = std::lower_bound(row.begin(), row.end(), peer, [](const Link& l, int p) { return l.peer < p; });
    if (it != row.end() && it->peer == peer)
      it->weight += amount;
    else
      row.insert(it, {peer, amount});
  };
  insert(rows_[i], j, amount);
  insert(rows_[j], i, amount);
}

double Affinity::at(int i, int j) const {
  const auto& row = rows_[i];
  auto it = std::lower_bound(row.begin(), row.end(), j, [](const Link& l, int p) { return l.peer < p; });
  return it != row.end() && it->peer == j ? it->weight : 0.0;
}

double Affinity::total(int i) const {
  double sum = 0;
  for (const Link& l : rows_[i]) sum += l.weight;
  return sum;
}

size_t Affinity::links() const {
  size_t n = 0;
  for (const auto& row : rows_) n += row.size();
  return n;
}

}  // namespace mpimon::placement
