#include "nbc_summary.h"

#include <algorithm>
#include <charconv>
#include <cmath>
#include <cstdio>
#include <string_view>

#include "formats/job_format.h"  // unescape_name

namespace mpimon::tools {

namespace {

bool parse(std::string_view text, uint64_t& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size();
}
bool parse(std::string_view text, double& value) {
  const auto [end, error] = std::from_chars(text.data(), text.data() + text.size(), value);
  return error == std::errc{} && end == text.data() + text.size() && value >= 0;
}

std::string fixed(double value, int decimals) {
  char text[64];
  std::snprintf(text, sizeof text, "%.*f", decimals, value);
  return text;
}

// Adds one rank's figures of a kind: fields rank communicator kind calls waited duration
// blocked bytes before mean histogram. Nothing when a field does not parse.
bool add_followed(const JobAnnotation& a, NbcKindSummary& s) {
  uint64_t calls, waited, bytes, before, histogram[kNbcBuckets] = {};
  double duration, blocked, mean = 0;
  const bool has_mean = a.fields[9] != "-";  // "-": no call of its own to measure (a receiver)
  if (!parse(a.fields[3], calls) || !parse(a.fields[4], waited) || !parse(a.fields[5], duration) ||
      !parse(a.fields[6], blocked) || !parse(a.fields[7], bytes) || !parse(a.fields[8], before) ||
      (has_mean && !parse(a.fields[9], mean)) || calls == 0)
    return false;
  std::string_view buckets = a.fields[10];
  for (int k = 0; k < kNbcBuckets; ++k) {
    const size_t comma = buckets.find(',');
    if (!parse(buckets.substr(0, comma), histogram[k]) || (k == kNbcBuckets - 1) != (comma == std::string_view::npos))
      return false;
    buckets = comma == std::string_view::npos ? std::string_view{} : buckets.substr(comma + 1);
  }
  uint64_t measured = 0;
  for (uint64_t h : histogram) measured += h;
  if (has_mean != (measured > 0) || measured > calls) return false;
  ++s.ranks;
  s.calls += calls;
  s.waited += waited;
  s.duration += duration;
  s.blocked += blocked;
  s.bytes += bytes;
  s.before += before;
  s.overlap_sum += mean * static_cast<double>(measured);
  s.measured += measured;
  for (int k = 0; k < kNbcBuckets; ++k) s.histogram[k] += histogram[k];
  if (has_mean && mean < s.lowest_mean) {
    s.lowest_mean = mean;
    s.lowest_rank = a.fields[0];
  }
  return true;
}

}  // namespace

double NbcKindSummary::mean_overlap() const {
  return measured ? overlap_sum / static_cast<double>(measured) : std::nan("");
}

double NbcKindSummary::weighted_overlap() const {
  return bytes ? static_cast<double>(before) / static_cast<double>(bytes) : mean_overlap();
}

std::string overlap_text(double overlap, int decimals) { return std::isnan(overlap) ? "-" : fixed(overlap, decimals); }

NbcSummary summarize_nbc(const std::vector<JobAnnotation>& annotations) {
  NbcSummary summary;
  // Version 2 names the communicator by its identity; its `communicator <identity> <name>
  // <members>` line gives the name (version 1 wrote the name itself).
  std::map<std::string, std::string, std::less<>> names;
  for (const JobAnnotation& a : annotations)
    if (a.keyword == "communicator" && a.fields.size() == 3) names[a.fields[0]] = unescape_name(a.fields[1]);
  auto communicator_name = [&](const std::string& field) {
    const auto name = names.find(field);
    return name != names.end() ? name->second : unescape_name(field);
  };
  for (const JobAnnotation& a : annotations) {
    if (a.keyword == "nbc_overlap" && a.fields.size() == 11) {
      add_followed(a, summary.kinds[{communicator_name(a.fields[1]), a.fields[2]}]);  // changes nothing if malformed
    } else if (a.keyword == "nbc_overlap" && a.fields.size() == 5 && a.fields[3] == "not" &&
               a.fields[4] == "followed") {
      ++summary.kinds[{communicator_name(a.fields[1]), a.fields[2]}].not_followed_ranks;
    } else if (a.keyword == "nbc_sampling" && (a.fields.size() == 2 || a.fields.size() == 3)) {
      uint64_t every = 0, exact = 0;
      if (!parse(a.fields[1], every) || (a.fields.size() == 3 && !parse(a.fields[2], exact))) continue;
      summary.samplings.insert(a.fields.size() == 3 && exact > 0
                                   ? std::to_string(every) + " after the first " + std::to_string(exact)
                                   : std::to_string(every));
    }
  }
  // A kind whose line did not parse on any rank has neither figures nor "not followed".
  std::erase_if(summary.kinds, [](const auto& k) { return k.second.ranks == 0 && k.second.not_followed_ranks == 0; });
  return summary;
}

std::string format_nbc_summary_text(const NbcSummary& summary) {
  if (summary.kinds.empty()) return {};
  using Entry = std::pair<const std::pair<std::string, std::string>, NbcKindSummary>;
  std::vector<const Entry*> rows;
  for (const Entry& e : summary.kinds) rows.push_back(&e);
  const size_t total = rows.size();
  if (rows.size() > kMaxNbcRows) {
    std::partial_sort(rows.begin(), rows.begin() + kMaxNbcRows, rows.end(),
                      [](const Entry* a, const Entry* b) { return a->second.blocked > b->second.blocked; });
    rows.resize(kMaxNbcRows);
    std::sort(rows.begin(), rows.end(), [](const Entry* a, const Entry* b) { return a->first < b->first; });
  }
  size_t width = 12;
  for (const Entry* e : rows) width = std::max(width, e->first.first.size());
  auto pad = [](std::string text, size_t to) {
    return text.size() < to ? text + std::string(to - text.size(), ' ') : text;
  };
  std::string out = "Nonblocking collectives: overlap (the followed calls, all ranks)\n" + pad("communicator", width) +
                    "  " + pad("kind", 21) + "  ranks  calls  waited  blocked s  byte-weighted  mean overlap\n";
  for (const Entry* e : rows) {
    const NbcKindSummary& s = e->second;
    out += pad(e->first.first, width) + "  " + pad(e->first.second, 21) + "  ";
    if (s.not_followed()) {
      out += pad(std::to_string(s.not_followed_ranks), 5) + "  not followed\n";
      continue;
    }
    out += pad(std::to_string(s.ranks), 5) + "  " + pad(std::to_string(s.calls), 5) + "  " +
           pad(std::to_string(s.waited), 6) + "  " + pad(fixed(s.blocked, 6), 9) + "  " +
           pad(overlap_text(s.weighted_overlap(), 3), 13) + "  " + overlap_text(s.mean_overlap(), 3);
    if (s.not_followed_ranks > 0) out += "  (not followed on " + std::to_string(s.not_followed_ranks) + " ranks)";
    out += '\n';
  }
  if (total > rows.size())
    out += std::to_string(total - rows.size()) + " more rows not shown (the " + std::to_string(kMaxNbcRows) +
           " with the most blocked time are)\n";
  for (const std::string& n : summary.samplings)
    out += "Sampled (coll_monitoring_nbc_sampling " + n +
           "): the figures are those of the followed calls; 'not followed': no call measured\n";
  return out;
}

}  // namespace mpimon::tools
