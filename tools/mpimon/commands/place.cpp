// `mpimon place <dumps...>`: process placement over one host or a cluster (a hostfile), a
// rankfile mpirun accepts with that hostfile, and reordering keys.
#include <algorithm>
#include <cstdio>
#include <iostream>
#include <map>
#include <memory>
#include <numeric>
#include <optional>
#include <sstream>

#include "commands/options.h"
#include "commands/subcommand.h"
#include "exact.h"
#include "files/atomic_file.h"
#include "hostfile.h"
#include "placement.h"
#include "scotch_mapping.h"
#include "srun_layout.h"
#include "topology.h"

namespace mpimon::tools {

namespace {

namespace pl = mpimon::placement;

struct PlaceOptions {
  std::vector<std::string> inputs;
  std::string hostfile;
  std::string topology = "machine";
  std::vector<std::string> host_topologies;  // HOST=SOURCE
  std::string network;
  std::string category = "communication";  // not the MPI-IO shuffle unless asked (docs/io.md)
  int oversubscription = 1;
  std::string rankfile, scotch_rankfile, keys, host = "localhost";
  std::string slurm_hostfile;
};

// The job's traffic of the chosen category, symmetric, sparse.
pl::Affinity affinity_of(const TrafficMatrix& matrix, const Selection& selection) {
  std::vector<pl::Traffic> traffic;
  for (const Cell& c : matrix.cells(selection)) traffic.push_back({c.from, c.to, static_cast<double>(c.traffic.bytes)});
  return pl::Affinity(matrix.ranks(), std::move(traffic));
}

// "--network 4,2": hosts per switch, switches per upper switch.
std::vector<int> parse_network(const std::string& text) {
  std::vector<int> levels;
  std::stringstream in(text);
  std::string item;
  while (std::getline(in, item, ',')) {
    size_t used = 0;
    int size = 0;
    try {
      size = std::stoi(item, &used);
    } catch (const std::exception&) {
      used = 0;
    }
    if (used != item.size() || item.empty() || size < 1)
      throw std::invalid_argument(
          "--network: expected hosts per switch[,switches per upper switch,...] as positive "
          "numbers (e.g. 4 or 4,2), not '" +
          text + "'");
    levels.push_back(size);
  }
  return levels;
}

struct Machine {
  pl::Cluster cluster;
  std::vector<std::string> descriptions;  // per host: its topology, for the header
  bool one_host = true;
};

Machine cluster_from_hostfile(const PlaceOptions& o) {
  const std::vector<HostfileHost> hosts = read_hostfile(o.hostfile);
  std::map<std::string, std::string> sources;  // host -> topology source
  for (const std::string& spec : o.host_topologies) {
    const size_t equal = spec.find('=');
    const std::string host = spec.substr(0, equal);
    if (equal == std::string::npos || equal == 0 || equal + 1 == spec.size())
      throw std::invalid_argument("--host-topology: expected HOST=machine|<hwloc XML>|<synthetic>, not '" + spec + "'");
    if (std::none_of(hosts.begin(), hosts.end(), [&](const HostfileHost& h) { return h.name == host; }))
      throw std::invalid_argument("--host-topology: no host '" + host + "' in " + o.hostfile);
    sources[host] = spec.substr(equal + 1);
  }
  std::map<std::string, pl::MachineTree> loaded;  // one hwloc load per distinct source
  Machine m;
  m.one_host = false;
  m.cluster.network = parse_network(o.network.empty() ? "" : o.network);
  for (const HostfileHost& h : hosts) {
    const std::string source = sources.count(h.name) ? sources[h.name] : o.topology;
    auto it = loaded.find(source);
    if (it == loaded.end()) it = loaded.emplace(source, pl::load_topology(source)).first;
    pl::Host host{h.name, it->second.tree, h.slots.value_or(it->second.tree.leaves()), {}};
    m.cluster.hosts.push_back(std::move(host));
    m.descriptions.push_back(it->second.description);
  }
  return m;
}

Machine one_host(const PlaceOptions& o) {
  const pl::MachineTree machine = pl::load_topology(o.topology);
  Machine m;
  m.cluster.hosts.push_back({o.host, machine.tree, machine.tree.leaves() * o.oversubscription, {}});
  m.descriptions.push_back(machine.description);
  return m;
}

std::string arities_text(const pl::Tree& tree) {
  std::string text = std::to_string(tree.leaves()) + " cores";
  for (size_t i = 0; i < tree.arities.size(); ++i) text += (i ? " x " : ": ") + std::to_string(tree.arities[i]);
  return text;
}

void print_header(const Machine& m, const PlaceOptions& o, int processes, const Selection& selection) {
  const pl::Cluster& c = m.cluster;
  if (m.one_host) {
    std::cout << processes << " processes on " << m.descriptions[0] << " (" << arities_text(c.hosts[0].tree) << "), "
              << selection.name() << " bytes\n";
    return;
  }
  std::cout << processes << " processes on " << c.hosts.size() << " hosts (hostfile " << o.hostfile << ", "
            << c.capacity() << " slots; network: ";
  if (c.network.empty()) {
    std::cout << "one switch";
  } else {
    std::cout << c.network[0] << " hosts per switch";
    for (size_t l = 1; l < c.network.size(); ++l) std::cout << ", " << c.network[l] << " switches per switch";
  }
  std::cout << "), " << selection.name() << " bytes\n";
  // Hosts alike are listed together: name, slots, topology.
  std::vector<std::pair<std::string, std::vector<std::string>>> groups;
  for (size_t h = 0; h < c.hosts.size(); ++h) {
    const std::string what =
        std::to_string(c.hosts[h].slots) + " slots, " + m.descriptions[h] + " (" + arities_text(c.hosts[h].tree) + ")";
    auto it = std::find_if(groups.begin(), groups.end(), [&](const auto& g) { return g.first == what; });
    if (it == groups.end()) it = groups.insert(groups.end(), {what, {}});
    it->second.push_back(c.hosts[h].name);
  }
  for (const auto& [what, names] : groups) {
    std::cout << "  ";
    for (size_t k = 0; k < names.size() && k < 4; ++k) std::cout << (k ? ", " : "") << names[k];
    if (names.size() > 4) std::cout << ", ... (" << names.size() << " hosts)";
    std::cout << ": " << what << (names.size() > 1 ? " each" : "") << "\n";
  }
}

std::string number(double value) {
  char text[64];
  std::snprintf(text, sizeof text, "%.0f", value);
  return text;
}

// "0-3,8,10-11"
std::string ranges(const std::vector<int>& ranks) {
  std::string text;
  for (size_t k = 0; k < ranks.size();) {
    size_t end = k;
    while (end + 1 < ranks.size() && ranks[end + 1] == ranks[end] + 1) ++end;
    if (!text.empty()) text += ',';
    text += std::to_string(ranks[k]) + (end > k ? "-" + std::to_string(ranks[end]) : "");
    if (text.size() > 160 && end + 1 < ranks.size()) return text + ",...";
    k = end + 1;
  }
  return text;
}

void print_mapping(const pl::Cluster& cluster, const pl::Mapping& mapping) {
  constexpr size_t kRowsShown = 64;
  if (mapping.size() <= kRowsShown) {
    std::cout << "\nmapping (rank -> host, core):\n\n| rank | host | core |\n|---:|---|---:|\n";
    for (size_t r = 0; r < mapping.size(); ++r)
      std::cout << "| " << r << " | " << cluster.hosts[mapping[r].host].name << " | " << mapping[r].core << " |\n";
    return;
  }
  std::cout
      << "\nmapping per host (the rankfile has each rank's core):\n\n| host | ranks | processes |\n|---|---|---:|\n";
  std::vector<std::vector<int>> on_host(cluster.hosts.size());
  for (size_t r = 0; r < mapping.size(); ++r) on_host[mapping[r].host].push_back(static_cast<int>(r));
  size_t shown = 0, used = 0;
  for (size_t h = 0; h < on_host.size(); ++h) {
    if (on_host[h].empty()) continue;
    ++used;
    if (shown++ < kRowsShown)
      std::cout << "| " << cluster.hosts[h].name << " | " << ranges(on_host[h]) << " | " << on_host[h].size() << " |\n";
  }
  if (used > kRowsShown) std::cout << "| ... " << used - kRowsShown << " more hosts | | |\n";
}

// "rank <r>=<host> slot=<core>" per rank, mpirun's rankfile syntax.
std::string rankfile_text(const pl::Cluster& cluster, const pl::Mapping& mapping) {
  std::string text;
  for (size_t r = 0; r < mapping.size(); ++r)
    text += "rank " + std::to_string(r) + "=" + cluster.hosts[mapping[r].host].name +
            " slot=" + std::to_string(mapping[r].core) + "\n";
  return text;
}

int write_output(const std::string& path, const std::string& text) {
  if (FileError error; !write_file_atomically(path, text, error)) {
    std::cerr << "mpimon place: " << error.message << '\n';
    return 1;
  }
  return 0;
}

// Refuses a job larger than the machine (one host: cores x oversubscription).
void check_fits(const Machine& machine, const PlaceOptions& o, int n) {
  const pl::Cluster& cluster = machine.cluster;
  if (n <= cluster.capacity()) return;
  const std::string where = machine.one_host ? std::to_string(cluster.hosts[0].cores()) + " cores x oversubscription " +
                                                   std::to_string(o.oversubscription)
                                             : std::to_string(cluster.capacity()) + " slots of " + o.hostfile;
  throw std::invalid_argument(std::to_string(n) + " processes do not fit on " + where);
}

// The references: mpirun's by-slot order first (kept unless strictly beaten), then
// round-robin (across hosts, or across the top level of the one host's tree).
std::vector<pl::Mapping> references_of(const Machine& machine, const PlaceOptions& o, int n) {
  const pl::Cluster& cluster = machine.cluster;
  std::vector<pl::Mapping> references{pl::by_slot(cluster, n)};
  if (!machine.one_host) {
    references.push_back(pl::round_robin_by_host(cluster, n));
  } else if (o.oversubscription == 1) {
    pl::Mapping across;
    for (int leaf : pl::round_robin_placement(n, cluster.hosts[0].tree)) across.push_back({0, leaf});
    references.push_back(std::move(across));
  }
  return references;
}

// What `mpimon place` compares and chose, as the terminal shows it.
struct Placements {
  std::vector<pl::Mapping> references;
  pl::Placed ours;
  std::optional<pl::Mapping> scotch;
  std::string scotch_why_not;
};

// The comparison table (hop-bytes and the top-level cut or bytes crossing hosts), then how
// mpimon's mapping was found.
void print_comparison(const Machine& machine, const pl::Affinity& affinity, const Placements& p) {
  const pl::Cluster& cluster = machine.cluster;
  std::cout << "objective: bytes crossing hosts, then hop-bytes\n\n";
  const std::string crossing = machine.one_host ? "bytes across the top level" : "bytes crossing hosts";
  std::cout << "| placement | hop-bytes | " << crossing << " |\n|---|---:|---:|\n";
  auto row = [&](const std::string& name, const pl::Mapping& m) {
    const pl::Cost cost = pl::cost_of(affinity, cluster, m);
    double second = cost.crossing_bytes;
    if (machine.one_host) {
      pl::Placement leaves;
      for (const pl::Location& l : m) leaves.push_back(l.core);
      second = pl::top_level_cut(affinity, cluster.hosts[0].tree, leaves);
    }
    std::cout << "| " << name << " | " << number(cost.hop_bytes) << " | " << number(second) << " |\n";
  };
  row("by-slot", p.references[0]);
  if (p.references.size() > 1)
    row(machine.one_host ? "round-robin across the top level" : "round-robin by host", p.references[1]);
  if (p.scotch)
    row("Scotch", *p.scotch);
  else
    std::cout << "| Scotch | n/a | n/a |\n";
  row("mpimon", p.ours.mapping);
  std::cout << '\n';
  if (!p.scotch) std::cout << "Scotch: n/a, " << p.scotch_why_not << "\n";
  switch (p.ours.method) {
    case pl::Placed::Method::optimal:
      std::cout << "mpimon: optimal (exhaustive search, up to " << pl::kExactLimit << " processes)\n";
      break;
    case pl::Placed::Method::heuristic:
      std::cout << "mpimon: heuristic (" << (machine.one_host ? "" : "hosts by capacitated bisection, then ")
                << "each host's cores by bisection, TreeMatch and swaps)\n";
      break;
    case pl::Placed::Method::baseline:
      std::cout << "mpimon: by-slot kept (no placement found is strictly better; ranks are not permuted for no gain)\n";
      break;
  }
}

// "<rank> <key>" lines for MPI_Comm_split: new rank order = slot order (host, then core),
// the key of rank r is its position.
std::string keys_text(const pl::Mapping& mapping) {
  const int n = static_cast<int>(mapping.size());
  std::vector<int> order(n);
  std::iota(order.begin(), order.end(), 0);
  std::stable_sort(order.begin(), order.end(), [&](int a, int b) {
    const pl::Location x = mapping[a], y = mapping[b];
    return x.host != y.host ? x.host < y.host : x.core < y.core;
  });
  std::vector<int> key(n);
  for (int position = 0; position < n; ++position) key[order[position]] = position;
  std::string text = "# rank key (MPI_Comm_split(comm, 0, key, &reordered))\n";
  for (int r = 0; r < n; ++r) text += std::to_string(r) + " " + std::to_string(key[r]) + "\n";
  return text;
}

// The files asked for: the rankfile, Scotch's rankfile, the reordering keys. 0, or 1 after
// saying why on stderr.
int write_outputs(const PlaceOptions& o, const pl::Cluster& cluster, const Placements& p) {
  if (!o.rankfile.empty()) {
    if (int status = write_output(o.rankfile, rankfile_text(cluster, p.ours.mapping))) return status;
    std::cout << "\nrankfile: " << o.rankfile << " (mpirun "
              << (o.hostfile.empty() ? "" : "--hostfile " + o.hostfile + " ") << "--rankfile " << o.rankfile << ")\n";
  }
  if (!o.slurm_hostfile.empty()) {
    const pl::SrunLayout layout = pl::srun_layout(cluster, p.ours.mapping);
    if (int status = write_output(o.slurm_hostfile, layout.hostfile)) return status;
    std::cout << "\nSLURM_HOSTFILE: " << o.slurm_hostfile
              << " (inside an allocation of these hosts: SLURM_HOSTFILE=" << o.slurm_hostfile
              << " srun --distribution=arbitrary -n " << p.ours.mapping.size()
              << (layout.map_cpu.empty() ? "" : " --cpu-bind=map_cpu:" + layout.map_cpu) << " ./app)\n";
    if (layout.map_cpu.empty())
      std::cout << "no --cpu-bind: " << layout.why_no_map_cpu << "; for the cores too, mpirun inside the allocation: "
                << "mpirun --rankfile "
                << (o.rankfile.empty() ? "<file> (write it with --rankfile <file>)" : o.rankfile) << " ./app\n";
  }
  if (!o.scotch_rankfile.empty()) {
    if (!p.scotch) {
      std::cerr << "mpimon place: no Scotch rankfile: " << p.scotch_why_not << '\n';
      return 1;
    }
    if (int status = write_output(o.scotch_rankfile, rankfile_text(cluster, *p.scotch))) return status;
    std::cout << "Scotch's rankfile: " << o.scotch_rankfile << '\n';
  }
  if (!o.keys.empty()) {
    if (int status = write_output(o.keys, keys_text(p.ours.mapping))) return status;
    std::cout << "reordering keys: " << o.keys << '\n';
  }
  return 0;
}

int run_place(const PlaceOptions& o) {
  const Dumps dumps = read_inputs(o.inputs);
  const Selection selection = Selection::of(o.category);
  const pl::Affinity affinity = affinity_of(dumps.matrix, selection);
  const int n = affinity.size();
  const Machine machine = o.hostfile.empty() ? one_host(o) : cluster_from_hostfile(o);
  check_fits(machine, o, n);
  Placements p;
  p.references = references_of(machine, o, n);
  pl::PlacementOptions options;
  if (n > 4096) options.progress = [](const std::string& stage) { std::cerr << "place: " << stage << "\n"; };
  p.ours = pl::place(affinity, machine.cluster, p.references, options);
  // libscotch 7.0.3 crashed (segmentation fault) mapping 100 000 processes onto 3125 hosts,
  // and takes about 10 s for 8000: a comparison row is not worth either.
  constexpr int kScotchLimit = 10000;
  p.scotch_why_not = "not run above " + std::to_string(kScotchLimit) + " processes";
  if (n <= kScotchLimit) p.scotch = pl::scotch_placement(affinity, machine.cluster, &p.scotch_why_not);

  print_header(machine, o, n, selection);
  print_comparison(machine, affinity, p);
  print_mapping(machine.cluster, p.ours.mapping);
  return write_outputs(o, machine.cluster, p);
}

}  // namespace

Subcommand add_place_command(CLI::App& mpimon) {
  auto o = std::make_shared<PlaceOptions>();
  CLI::App* place = mpimon.add_subcommand(
      "place", "process placement from a job's traffic over one host or a cluster (hostfile), and a rankfile");
  place->add_option("dumps", o->inputs, "a job file, .prof files, folders holding them, or a dump prefix")->required();
  auto* hostfile = place->add_option(
      "--hostfile", o->hostfile,
      "the cluster, in mpirun's hostfile syntax (host slots=N ...); the rankfile is then for mpirun --hostfile F");
  place->add_option("--topology", o->topology,
                    "each host's topology: machine (this one, via hwloc), an hwloc XML file, or a synthetic "
                    "description like 'pack:2 core:4 pu:1'");
  place->add_option("--host-topology", o->host_topologies, "HOST=machine|<XML>|<synthetic>: one host's topology")
      ->needs(hostfile);
  place
      ->add_option("--network", o->network,
                   "switch levels above the hosts: hosts per switch[,switches per upper switch...], in hostfile "
                   "order (default: one switch)")
      ->needs(hostfile);
  place
      ->add_option("--category", o->category,
                   "traffic to place by: external, internal, coll, osc_sent, osc_recv, io_shuffle, osc, communication "
                   "(default: E + I + S + R, not the MPI-IO shuffle) or all (with it)")
      ->check(CLI::IsMember(Selection::names()));
  place->add_option("--oversubscribe", o->oversubscription, "processes per core (one host; with --hostfile use slots=)")
      ->check(CLI::PositiveNumber)
      ->excludes(hostfile);
  place->add_option("--rankfile", o->rankfile, "write an Open MPI rankfile for the placement");
  place->add_option("--scotch-rankfile", o->scotch_rankfile,
                    "write Scotch's mapping as a rankfile too (to compare both in reruns)");
  place
      ->add_option("--slurm-hostfile", o->slurm_hostfile,
                   "write the placement's hosts for srun --distribution=arbitrary (SLURM_HOSTFILE) and print the "
                   "srun command, with --cpu-bind=map_cpu: when every node's cores are the same list")
      ->needs(hostfile);
  place->add_option("--keys", o->keys, "write rank reordering keys (for MPI_Comm_split)");
  place->add_option("--host", o->host, "host name in the rankfile (one host)")->excludes(hostfile);
  return {place, [o] { return run_place(*o); }};
}

}  // namespace mpimon::tools
