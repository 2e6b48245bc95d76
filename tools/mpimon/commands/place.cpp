// `mpimon place <dumps...>`: process placement (TreeMatch), rankfile and reordering keys.
#include <algorithm>
#include <iomanip>
#include <iostream>
#include <memory>

#include "atomic_file.h"
#include "options.h"
#include "scotch_mapping.h"
#include "subcommand.h"
#include "topology.h"
#include "treematch.h"

namespace mpimon::tools {

namespace {

struct PlaceOptions {
  std::vector<std::string> inputs;
  std::string topology = "machine";
  std::string category = "all";
  int oversubscription = 1;
  std::string rankfile, keys, host = "localhost";
};

int run_place(const PlaceOptions& o) {
  namespace pl = mpimon::placement;
  const Dumps dumps = read_inputs(o.inputs);
  const TrafficMatrix& matrix = dumps.matrix;
  const pl::MachineTree machine = pl::load_topology(o.topology);
  const int n = matrix.ranks();
  pl::Affinity affinity(n);
  const Selection selection = Selection::of(o.category);
  for (const Cell& c : matrix.cells(selection)) affinity.add(c.from, c.to, static_cast<double>(c.traffic.bytes));
  pl::Options options;
  options.oversubscription = o.oversubscription;
  if (n > 256)
    options.progress = [](int done, int levels) {
      std::cerr << "place: level " << done << "/" << levels << " grouped\n";
    };
  const pl::Placement ours = pl::treematch(affinity, machine.tree, options);

  std::cout << n << " processes on " << machine.description << " (" << machine.tree.leaves() << " cores";
  for (size_t i = 0; i < machine.tree.arities.size(); ++i)
    std::cout << (i ? " x " : ": ") << machine.tree.arities[i];
  std::cout << "), " << selection.name() << " bytes\n\n";
  std::cout << "| placement | hop-bytes | bytes across the top level |\n|---|---:|---:|\n";
  auto row = [&](const char* name, const pl::Placement& p) {
    std::cout << "| " << name << " | " << std::fixed << std::setprecision(0)
              << pl::hop_cost(affinity, machine.tree, p) << " | " << pl::top_level_cut(affinity, machine.tree, p)
              << " |\n";
  };
  if (o.oversubscription == 1) {
    row("identity (rank i on core i)", pl::identity_placement(n));
    row("round-robin across the top level", pl::round_robin_placement(n, machine.tree));
  } else {
    row("identity (rank i on core i / oversubscription)", pl::oversubscribed_identity(n, o.oversubscription));
  }
  row("Scotch (tleaf mapping)", pl::scotch_placement(affinity, machine.tree, o.oversubscription));
  row("mpimon TreeMatch", ours);

  if (!o.rankfile.empty()) {
    std::string text;
    for (int r = 0; r < n; ++r)
      text += "rank " + std::to_string(r) + "=" + o.host + " slot=" + std::to_string(ours[r] / machine.cores_per_package) +
              ":" + std::to_string(ours[r] % machine.cores_per_package) + "\n";
    if (std::string error = write_file_atomically(o.rankfile, text); !error.empty()) {
      std::cerr << "mpimon place: " << error << '\n';
      return 1;
    }
    std::cout << "\nrankfile: " << o.rankfile << " (mpirun --rankfile " << o.rankfile << ")\n";
  }
  if (!o.keys.empty()) {
    // New rank order = core order: the key of rank r is its position among the cores used.
    std::vector<int> by_core(n);
    for (int r = 0; r < n; ++r) by_core[r] = r;
    std::stable_sort(by_core.begin(), by_core.end(), [&](int a, int b) { return ours[a] < ours[b]; });
    std::vector<int> key(n);
    for (int position = 0; position < n; ++position) key[by_core[position]] = position;
    std::string text = "# rank key (MPI_Comm_split(comm, 0, key, &reordered))\n";
    for (int r = 0; r < n; ++r) text += std::to_string(r) + " " + std::to_string(key[r]) + "\n";
    if (std::string error = write_file_atomically(o.keys, text); !error.empty()) {
      std::cerr << "mpimon place: " << error << '\n';
      return 1;
    }
    std::cout << "reordering keys: " << o.keys << '\n';
  }
  return 0;
}

}  // namespace

Subcommand add_place_command(CLI::App& mpimon) {
  auto o = std::make_shared<PlaceOptions>();
  CLI::App* place =
      mpimon.add_subcommand("place", "process placement from a job's traffic over a machine topology (TreeMatch)");
  place->add_option("dumps", o->inputs, "a job file, .prof files, folders holding them, or a dump prefix")->required();
  place->add_option("--topology", o->topology,
                    "machine (this one, via hwloc), an hwloc XML file, or a synthetic description like 'pack:2 core:4 "
                    "pu:1'");
  place->add_option("--category", o->category, "traffic to place by: external, internal, coll, osc_sent, osc_recv, osc or all (E + I + S + R)")
      ->check(CLI::IsMember(Selection::names()));
  place->add_option("--oversubscribe", o->oversubscription, "processes per core")->check(CLI::PositiveNumber);
  place->add_option("--rankfile", o->rankfile, "write an Open MPI rankfile for the placement");
  place->add_option("--keys", o->keys, "write rank reordering keys (for MPI_Comm_split)");
  place->add_option("--host", o->host, "host name in the rankfile");
  return {place, [o] { return run_place(*o); }};
}

}  // namespace mpimon::tools
