#include "size_histograms.h"
#include "readers/job_reader.h"
#include "readers/prof_reader.h"

#include <algorithm>

namespace mpimon::tools {

namespace {

void add(Histogram& to, const uint64_t* from, const std::string& file) {
  for (int b = 0; b < kHistogramBuckets; ++b) {
    if (from[b] >= kCountLimit || to[b] + from[b] >= kCountLimit)
      throw FormatError(file + ": expected histogram counts below 2^60, found more");
    to[b] += from[b];
  }
}

// The sender's E and I lines to one peer in one .prof file (several when dumps are
// concatenated), with the sum of their histograms: each is the peer's E and I together.
struct PeerLines {
  bool external = false, internal = false;
  Histogram histogram{};
};

void add_prof(SizeHistograms& h, const ProfFile& file, const std::string& name, const Selection& selection) {
  std::map<int32_t, PeerLines> lines;
  for (const ProfLine& l : file.lines) {
    if (l.kind == 'E' || l.kind == 'I') {
      if (l.me != h.sender) continue;
      PeerLines& p = lines[l.peer];
      (l.kind == 'E' ? p.external : p.internal) = true;
      if (l.has_histogram) add(p.histogram, l.histogram.data(), name);
    } else if (l.kind == 'R') {  // a get: data from the peer it read
      if (l.peer == h.sender && selection.includes(Category::osc_recv)) h.sizes_missing = true;
    } else if (l.me == h.sender && selection.includes(l.kind == 'S' ? Category::osc_sent : Category::coll)) {
      h.sizes_missing = true;
    }
  }
  const bool want_e = selection.includes(Category::external), want_i = selection.includes(Category::internal);
  for (const auto& [peer, p] : lines) {
    if (!(want_e && p.external) && !(want_i && p.internal)) continue;  // nothing selected for this peer
    if (p.external && p.internal && want_e != want_i) {
      h.mixed_peers.insert(peer);
      continue;
    }
    add(h.per_peer[peer], p.histogram.data(), name);
  }
}

}  // namespace

SizeHistograms size_histograms(const std::vector<std::string>& files, int32_t sender, const Selection& selection,
                               const DumpLoader& load) {
  SizeHistograms h;
  h.sender = sender;
  h.selection = selection.name();
  for_each_dump(
      files, load,
      [&](std::string_view text, const std::string& name) {
        for_each_job_record(text, name, [&](const JobRecord& r) {
          if (!selection.includes(r.category) || r.counters.messages == 0) return;
          const bool transposed = r.category == Category::osc_recv;
          if ((transposed ? r.destination : r.source) != sender) return;
          add(h.per_peer[transposed ? r.source : r.destination], r.counters.histogram, name);
        });
      },
      [&](const ProfFile& file, const std::string& name) { add_prof(h, file, name, selection); });
  for (int32_t peer : h.mixed_peers) h.per_peer.erase(peer);
  return h;
}

std::string bucket_label(int bucket) {
  if (bucket == 0) return "0";
  if (bucket >= 64) return bucket == 64 ? "<16E" : "b" + std::to_string(bucket);
  uint64_t v = uint64_t{1} << bucket;
  static const char* units[] = {"", "K", "M", "G", "T", "P", "E"};
  int u = 0;
  while (v >= 1024 && v % 1024 == 0 && u < 6) v /= 1024, ++u;
  return "<" + std::to_string(v) + units[u];
}

std::string size_histogram_notes(const SizeHistograms& h) {
  std::string out;
  if (!h.mixed_peers.empty()) {
    out += "peers";
    size_t shown = 0;
    for (int32_t peer : h.mixed_peers) {
      if (shown++ == 8) {
        out += " ...";
        break;
      }
      out += (shown > 1 ? ", " : " ") + std::to_string(peer);
    }
    out +=
        ": not shown: the .prof files keep one histogram for their external and internal traffic together "
        "(--category all shows it; a job file has each)\n";
  }
  if (h.sizes_missing)
    out +=
        "one-sided and collective traffic (S, R, C lines) has no size histogram in .prof files: "
        "its sizes are in the job file\n";
  return out;
}

std::string format_size_histograms(const SizeHistograms& h) {
  const std::string notes = size_histogram_notes(h);
  if (h.per_peer.empty())
    return "rank " + std::to_string(h.sender) + " sent no message with a size histogram\n" + notes;
  int low = kHistogramBuckets, high = -1;
  for (const auto& [peer, counts] : h.per_peer)
    for (int b = 0; b < kHistogramBuckets; ++b)
      if (counts[b]) low = std::min(low, b), high = std::max(high, b);
  std::string out =
      "message sizes sent by rank " + std::to_string(h.sender) + " (" + h.selection + "), messages per size class\n";
  if (high < 0) return out + "(no message)\n" + notes;
  auto cell = [](const std::string& s) { return std::string(s.size() < 8 ? 8 - s.size() : 0, ' ') + s; };
  out += cell("to") + " |";
  for (int b = low; b <= high; ++b) out += cell(bucket_label(b));
  out += "\n";
  std::array<Total, kHistogramBuckets> total{};
  for (const auto& [peer, counts] : h.per_peer) {
    out += cell(std::to_string(peer)) + " |";
    for (int b = low; b <= high; ++b) {
      out += cell(counts[b] ? std::to_string(counts[b]) : ".");
      total[b] += counts[b];
    }
    out += "\n";
  }
  out += cell("all") + " |";
  for (int b = low; b <= high; ++b) out += cell(total_text(total[b]));
  out += "\n";
  return out + notes;
}

}  // namespace mpimon::tools
