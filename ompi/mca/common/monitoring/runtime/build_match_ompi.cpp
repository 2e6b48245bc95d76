#include "runtime/build_match_ompi.h"

#include "runtime/ompi_glue.h"

#include <dlfcn.h>
#include <mpi.h>

#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

#include <ompi/mca/coll/coll.h>
#include <ompi/mca/pml/base/pml_base_request.h>
#include <ompi/mca/topo/topo.h>
#include <ompi/win/win.h>
#include <opal/mca/base/mca_base_var_enum.h>
#include <opal/util/info.h>

#include "runtime/build_match.h"

namespace mpimon {

namespace {

// The Open MPI structs our components embed, allocate or read fields of, with their
// sizes under our headers. Each has a class descriptor in libmpi / libopen-pal
// (OBJ_CLASS_INSTANCE: <type>_class, whose cls_sizeof is sizeof(<type>) as the library
// was compiled) on 4.1 and 5.0: the library's own word on its layout.
#define MPIMON_STRUCT(type) \
  StructSize { #type, sizeof(type) }
const StructSize kEmbedded[] = {
    MPIMON_STRUCT(opal_object_t),
    MPIMON_STRUCT(opal_list_t),
    MPIMON_STRUCT(opal_mutex_t),
    MPIMON_STRUCT(opal_info_t),
    MPIMON_STRUCT(mca_base_var_enum_t),
    MPIMON_STRUCT(ompi_communicator_t),
    MPIMON_STRUCT(ompi_group_t),
    MPIMON_STRUCT(ompi_datatype_t),
    MPIMON_STRUCT(ompi_proc_t),
    MPIMON_STRUCT(ompi_request_t),
    MPIMON_STRUCT(mca_pml_base_request_t),
    MPIMON_STRUCT(mca_coll_base_module_t),
    MPIMON_STRUCT(mca_topo_base_module_t),
    MPIMON_STRUCT(ompi_win_t),
};
#undef MPIMON_STRUCT

// A class descriptor's layout (opal/class/opal_object.h) is the same in every 4.1 and 5.0
// build, debug or not; its name field is checked before its size is believed.
const opal_class_t* loaded_class(const std::string& type) {
  const auto* cls = static_cast<const opal_class_t*>(dlsym(RTLD_DEFAULT, (type + "_class").c_str()));
  if (cls == nullptr || cls->cls_name == nullptr || type != cls->cls_name) return nullptr;
  return cls;
}

OmpiBuildFacts built_facts() {
  OmpiBuildFacts facts;
  facts.version = {MPIMON_BUILT_OMPI_MAJOR, MPIMON_BUILT_OMPI_MINOR, MPIMON_BUILT_OMPI_RELEASE};
  facts.debug = OPAL_ENABLE_DEBUG != 0;
  for (const StructSize& s : kEmbedded) facts.sizes.push_back(s);
  facts.where = MPIMON_OMPI_LOCATION;
  return facts;
}

// What the loaded library says: its version (MPI_Get_library_version, callable before
// MPI_Init), its struct sizes, and from opal_object_t's size whether it is a debug build.
std::optional<OmpiBuildFacts> loaded_facts(std::string& problem) {
  OmpiBuildFacts facts;
  char text[MPI_MAX_LIBRARY_VERSION_STRING] = {};
  int length = 0;
  MPI_Get_library_version(text, &length);
  const auto version = parse_library_version(text);
  if (!version) {
    problem = "cannot tell the loaded Open MPI's version ('" + std::string(text) + "')";
    return std::nullopt;
  }
  facts.version = *version;
  for (const StructSize& s : kEmbedded) {
    const opal_class_t* cls = loaded_class(s.name);
    facts.sizes.push_back({s.name, cls != nullptr ? cls->cls_sizeof : 0});
  }
  const opal_class_t* object = loaded_class("opal_object_t");
  if (object == nullptr) {
    problem = "the loaded Open MPI has no opal_object_t class descriptor";
    return std::nullopt;
  }
  facts.debug = debug_object_size(object->cls_sizeof);
  Dl_info where{};
  if (dladdr(object, &where) != 0 && where.dli_fname != nullptr) facts.where = std::string("from ") + where.dli_fname;
  return facts;
}

// Several of our plugins decline in the same process: the first one says it. The marker is
// in the process's environment, the one place all our plugins (separate libraries, each
// with its own copy of this file) see.
constexpr const char* kSaidMarker = "MPIMON_BUILD_MISMATCH_SAID";

void say_once(const std::string& message) {
  if (std::getenv(kSaidMarker) != nullptr) return;
  setenv(kSaidMarker, "1", 1);
  const char* rank = std::getenv("OMPI_COMM_WORLD_RANK");
  if (rank != nullptr && std::strcmp(rank, "0") != 0) return;
  const std::string line = "mpimon: " + message + "\n";
  std::fwrite(line.data(), 1, line.size(), stderr);
  std::fflush(stderr);
}

bool decide() {
  std::string problem;
  const auto loaded = loaded_facts(problem);
  if (!loaded) {
    say_once(problem + "; built for " + describe_build(built_facts()) + ": monitoring off, the job runs unmonitored");
    return false;
  }
  const auto mismatch = build_mismatch(built_facts(), *loaded);
  if (!mismatch) return true;
  say_once(*mismatch);
  return false;
}

}  // namespace

bool loaded_open_mpi_matches() {
  static const bool matches = decide();
  return matches;
}

}  // namespace mpimon
