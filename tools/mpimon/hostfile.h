// Reading mpirun's hostfile (Open MPI 4.1.4's syntax, orte/util/hostfile), accepting what
// mpirun accepts and refusing, as "<file>:<line>: expected ...", what it refuses:
//
//   # comments, // comments, /* block comments */, blank lines
//   node1 slots=4 max_slots=8      slots / count / cpu; max_slots, max-slots, slots_max, ...
//   node2                          no slots: the host's cores (mpirun counts them)
//   node2                          listed again: one slot per line (then no slots= for it)
//   user@node3.example.org port=22 username=...: user and domain dropped from the name
//   10.0.0.4 slots=2               IP addresses kept whole
//   rank 5=node4 slot=1            a rankfile line: one slot on node4
//
// Refused like mpirun: slots= twice for a host (or on a repeated host), max_slots below
// slots, negative or non-numeric counts, quoted strings, `word=` for unknown words,
// boards/sockets/cores=, relative hosts (+n0, +e), ^exclusions (4.1.4's lexer rejects
// them); and host names mpirun cannot launch on (only letters, digits, dots, hyphens).
// Stray words after a host are ignored, as mpirun does.
#pragma once

#include <optional>
#include <string>
#include <string_view>
#include <vector>

namespace mpimon::tools {

struct HostfileHost {
  std::string name;          // the node name mpirun uses (and a rankfile must use)
  std::optional<int> slots;  // not given: as many as the host has cores
  int max_slots = 0;         // 0: no limit given
  int line = 0;              // first line naming the host
};

// Hosts in the order of their first line. Throws FormatError "<file>:<line>: expected ...".
std::vector<HostfileHost> parse_hostfile(std::string_view text, const std::string& file);
std::vector<HostfileHost> read_hostfile(const std::string& path);

}  // namespace mpimon::tools
