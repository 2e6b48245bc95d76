// Conformance of the MPI_T events library with MPI 4.0, as docs/events.md ("Semantics
// kept") states it; the raise cost is the benchmark's (bench/events_overhead.sh).
// One behaviour per test; suites are named after the unit under test.
#include <gtest/gtest.h>

#include <algorithm>
#include <cstring>
#include <map>
#include <set>
#include <string>
#include <thread>
#include <vector>

#include "communication_events.h"
#include "events_not_initialized.h"
#include "events_test_support.h"
#include "ompi_lifecycle_events.h"

using namespace events_test;

extern std::vector<int> g_codes_before_init;

namespace {

const MPI_Count kMaxCount = INT64_MAX;

std::string type_name(int index) {
  char name[256];
  int len = sizeof name;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, name, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  return name;
}

// Every registered source's ordering, by name.
std::map<std::string, MPI_T_source_order> sources_by_name() {
  std::map<std::string, MPI_T_source_order> sources;
  int n = 0;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_source_get_num(&n));
  for (int i = 0; i < n; ++i) {
    char name[64];
    int len = sizeof name;
    MPI_T_source_order order;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_source_get_info(i, name, &len, nullptr, nullptr, &order, nullptr, nullptr, nullptr));
    sources[name] = order;
  }
  return sources;
}

int num_types() {
  int n = -1;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_num(&n));
  return n;
}

int our_category() {
  int n = 0;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_category_get_num(&n));
  for (int i = 0; i < n; ++i) {
    char name[256];
    int len = sizeof name;
    int cvars, pvars, cats;
    if (MPI_T_category_get_info(i, name, &len, nullptr, nullptr, &cvars, &pvars, &cats) != MPI_SUCCESS) continue;
    if (std::string(name) == "mpimon_events") return i;
  }
  return -1;
}

}  // namespace

// ---- 1. NOT_INITIALIZED outside MPI_T ----

TEST(Initialization, AllTwentyFunctionsNotInitializedBeforeInit) {
  ASSERT_EQ(20u, g_codes_before_init.size());
  for (std::size_t i = 0; i < g_codes_before_init.size(); ++i)
    EXPECT_EQ(MPI_T_ERR_NOT_INITIALIZED, g_codes_before_init[i]) << "function #" << i;
}

TEST(Initialization, AllTwentyFunctionsNotInitializedAfterLastFinalize) {
  int provided;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));  // count 2
  ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());                                   // 1: still usable
  int n;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_num(&n));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());  // 0
  const std::vector<int> codes = call_all_twenty();
  ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  ASSERT_EQ(20u, codes.size());
  for (std::size_t i = 0; i < codes.size(); ++i) EXPECT_EQ(MPI_T_ERR_NOT_INITIALIZED, codes[i]) << "function #" << i;
}

// ---- The communication catalogue ----

TEST(Catalogue, ElevenTypesAndFourSourcesVisibleRightAfterInit) {
  for (const char* name :
       {MPIMON_EVENT_PML_SEND_POSTED, MPIMON_EVENT_PML_RECV_POSTED, MPIMON_EVENT_PML_SEND_COMPLETED,
        MPIMON_EVENT_PML_RECV_COMPLETED, MPIMON_EVENT_COLL_BEGIN, MPIMON_EVENT_COLL_END, MPIMON_EVENT_OSC_OP_ISSUED,
        MPIMON_EVENT_OSC_SYNC_BEGIN, MPIMON_EVENT_OSC_SYNC_END, MPIMON_EVENT_IO_ACCESS, MPIMON_EVENT_IO_FS_OPERATION}) {
    int index = -1;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_index(name, &index)) << name;
    EXPECT_EQ(name, type_name(index));
  }
  std::set<std::string> sources;
  for (const auto& [name, order] : sources_by_name()) {
    if (name.rfind("mpimon_", 0) == 0) {
      sources.insert(name);
      EXPECT_EQ(MPI_T_SOURCE_ORDERED, order) << name;
    }
  }
  EXPECT_EQ((std::set<std::string>{"mpimon_pml", "mpimon_coll", "mpimon_osc", "mpimon_io"}), sources);
}

// Open MPI main's lifecycle types (ompi_lifecycle_events.h) as main registers them
// (main: ompi/runtime/ompi_mpit_register_events.c): full names, source "ompi" (ORDERED),
// unbound, verbosity, element datatypes and displacements; and only the six we raise.
TEST(Catalogue, OpenMpiMainsLifecycleTypesHaveMainsNamesAndLayouts) {
  struct Main {
    const char* name;
    int verbosity;
    std::vector<MPI_Datatype> types;
    std::vector<MPI_Aint> displacements;
  };
  const Main expected[] = {
      {"ompi.mpi.initialization",
       MPI_T_VERBOSITY_USER_DETAIL,
       {MPI_INT32_T, MPI_INT32_T, MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T},
       {0, 4, 8, 12, 16}},
      {"ompi.mpi.finalization", MPI_T_VERBOSITY_USER_DETAIL, {MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T}, {0, 4, 8}},
      {"ompi.mpi.communicator_created", MPI_T_VERBOSITY_USER_DETAIL, {MPI_INT32_T, MPI_UINT64_T}, {0, 8}},
      {"ompi.mpi.communicator_freed", MPI_T_VERBOSITY_USER_DETAIL, {MPI_UINT64_T}, {0}},
      {"ompi.mpi.win_created",
       MPI_T_VERBOSITY_TUNER_BASIC,
       {MPI_INT64_T, MPI_INT32_T, MPI_INT32_T, MPI_UINT64_T},
       {0, 8, 12, 16}},
      {"ompi.mpi.win_freed", MPI_T_VERBOSITY_TUNER_BASIC, {MPI_INT32_T, MPI_UINT64_T}, {0, 8}},
  };
  const auto sources = sources_by_name();
  ASSERT_EQ(1u, sources.count(MPIMON_OMPI_SOURCE));
  EXPECT_EQ(MPI_T_SOURCE_ORDERED, sources.at(MPIMON_OMPI_SOURCE));
  for (const Main& e : expected) {
    int index = -1;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_index(e.name, &index)) << e.name;
    MPI_Datatype types[8];
    MPI_Aint displacements[8];
    int n = 8, bind = -1, verbosity = -1;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, nullptr, nullptr, &verbosity, types, displacements, &n, nullptr,
                                                nullptr, nullptr, nullptr, &bind));
    EXPECT_EQ(MPI_T_BIND_NO_OBJECT, bind) << e.name;
    EXPECT_EQ(e.verbosity, verbosity) << e.name;
    ASSERT_EQ(static_cast<int>(e.types.size()), n) << e.name;
    for (int i = 0; i < n; ++i) {
      EXPECT_EQ(e.types[i], types[i]) << e.name << " element " << i;
      EXPECT_EQ(e.displacements[i], displacements[i]) << e.name << " element " << i;
    }
  }
  // main's other types are not registered: nobody here would raise them.
  int index;
  for (const char* never :
       {"ompi.mpi.communicator_name_set", "ompi.mpi.errhandler_invoked", "ompi.mca.memory.patcher.released"})
    EXPECT_EQ(MPI_T_ERR_INVALID_NAME, MPI_T_event_get_index(never, &index)) << never;
  EXPECT_EQ(sizeof(mpimon_ompi_win_created_event), 24u);
  EXPECT_EQ(sizeof(mpimon_ompi_comm_created_event), 16u);
  EXPECT_EQ(sizeof(mpimon_ompi_initialization_event), 24u);
}

TEST(Catalogue, PmlTypeDescribesItsPayload) {
  int index = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_index(MPIMON_EVENT_PML_SEND_POSTED, &index));
  MPI_Datatype types[8];
  MPI_Aint displacements[8];
  int n = 8, bind = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(index, nullptr, nullptr, nullptr, types, displacements, &n, nullptr,
                                              nullptr, nullptr, nullptr, &bind));
  EXPECT_EQ(6, n);
  EXPECT_EQ(MPI_T_BIND_MPI_COMM, bind);
  EXPECT_EQ(MPI_UINT64_T, types[4]);
  EXPECT_EQ(static_cast<MPI_Aint>(offsetof(mpimon_pml_event, bytes)), displacements[4]);
}

// ---- 2. get_info ----

TEST(EventInfo, NullOutputsAreIgnored) {
  const int t = type("ev_info_null", source("src_info"));
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  int n = 3;  // arrays NULL with a count: ignored too
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, &n, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(3, n);
  MPI_Datatype types[3];
  MPI_Aint displacements[3];  // num_elements NULL: arrays ignored (not written)
  std::fill(std::begin(types), std::end(types), MPI_DATATYPE_NULL);
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, types, displacements, nullptr, nullptr,
                                              nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_DATATYPE_NULL, types[0]);
}

TEST(EventInfo, NumElementsIsInOutAndTruncates) {
  const int t = type("ev_info_trunc", source("src_info"));
  MPI_Datatype types[3] = {MPI_DATATYPE_NULL, MPI_DATATYPE_NULL, MPI_DATATYPE_NULL};
  MPI_Aint displacements[3] = {-1, -1, -1};
  int n = 2;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, types, displacements, &n, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(3, n);  // the true count
  EXPECT_EQ(MPI_INT32_T, types[0]);
  EXPECT_EQ(MPI_DOUBLE, types[1]);
  EXPECT_EQ(MPI_DATATYPE_NULL, types[2]);  // beyond the caller's count: untouched
  EXPECT_EQ(0, displacements[0]);
  EXPECT_EQ(8, displacements[1]);
  EXPECT_EQ(-1, displacements[2]);
  n = 3;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, types, displacements, &n, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_INT64_T, types[2]);
  EXPECT_EQ(16, displacements[2]);
}

TEST(EventInfo, NameLengthInOutWithTruncation) {
  const int t = type("ev_info_name_len", source("src_info"));
  int len = 0;  // length query
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_EQ(static_cast<int>(std::strlen("ev_info_name_len")) + 1, len);
  char small[7];
  std::memset(small, 'X', sizeof small);
  len = 5;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, small, &len, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr));
  EXPECT_STREQ("ev_i", small);
  EXPECT_EQ(5, len);
  EXPECT_EQ('X', small[5]);  // nothing past the caller's length
}

TEST(EventInfo, EmptyDescriptionIsEmptyStringWithLengthOne) {
  const int t = type("ev_info_empty_desc", source("src_info"), MPI_T_BIND_NO_OBJECT, "");
  char desc[8] = "junk";
  int desc_len = sizeof desc;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              desc, &desc_len, nullptr));
  EXPECT_EQ(1, desc_len);
  EXPECT_STREQ("", desc);
  desc_len = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, &desc_len, nullptr));
  EXPECT_EQ(1, desc_len);
}

TEST(EventInfo, DescriptionLengthTruncates) {
  const int t = type("ev_info_desc_len", source("src_info"), MPI_T_BIND_NO_OBJECT, "abcdefgh");
  char desc[4];
  int desc_len = sizeof desc;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                              desc, &desc_len, nullptr));
  EXPECT_STREQ("abc", desc);
  EXPECT_EQ(4, desc_len);
}

TEST(EventInfo, InfoIsNewObjectWithDescriptorKeys) {
  static const char* const kv[] = {"mpimon_enum_kind", "put,get", "unit", "bytes", nullptr};
  const int t = type("ev_info_keys", source("src_info"), MPI_T_BIND_NO_OBJECT, "d", kv);
  MPI_Info a = MPI_INFO_NULL, b = MPI_INFO_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &a,
                                              nullptr, nullptr, nullptr));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &b,
                                              nullptr, nullptr, nullptr));
  ASSERT_NE(MPI_INFO_NULL, a);
  EXPECT_NE(a, b);  // a new object each time
  char value[64];
  EXPECT_EQ(1, mpimon_events_test_info_get(a, "mpimon_enum_kind", value, sizeof value));
  EXPECT_STREQ("put,get", value);
  EXPECT_EQ(1, mpimon_events_test_info_get(a, "unit", value, sizeof value));
  EXPECT_STREQ("bytes", value);
  EXPECT_EQ(0, mpimon_events_test_info_get(a, "missing", value, sizeof value));
  mpimon_events_test_info_free(&a);  // freeable (MPI_Info_free itself is tested after MPI_Init)
  mpimon_events_test_info_free(&b);
  EXPECT_EQ(MPI_INFO_NULL, a);
}

TEST(EventInfo, EnumTypeNamesTheElements) {
  const int t = type("ev_info_enum", source("src_info"));
  MPI_T_enum e = MPI_T_ENUM_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &e, nullptr,
                                              nullptr, nullptr, nullptr));
  ASSERT_NE(MPI_T_ENUM_NULL, e);
  int num = 0;
  char name[64];
  int len = sizeof name;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_enum_get_info(e, &num, name, &len));
  EXPECT_EQ(3, num);
  EXPECT_STREQ("ev_info_enum", name);
  const char* expected[] = {"id", "value", "serial"};
  for (int i = 0; i < 3; ++i) {
    int value = -1;
    len = sizeof name;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_enum_get_item(e, i, &value, name, &len));
    EXPECT_EQ(i, value);
    EXPECT_STREQ(expected[i], name);
  }
}

TEST(EventInfo, VerbosityAndBind) {
  const int t = type("ev_info_bind", source("src_info"), MPI_T_BIND_MPI_WIN);
  int verbosity = -1, bind = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_get_info(t, nullptr, nullptr, &verbosity, nullptr, nullptr, nullptr, nullptr,
                                              nullptr, nullptr, nullptr, &bind));
  EXPECT_EQ(MPI_T_VERBOSITY_USER_BASIC, verbosity);
  EXPECT_EQ(MPI_T_BIND_MPI_WIN, bind);
}

TEST(EventInfo, BadIndexIsInvalidIndex) {
  int n = num_types();
  int verbosity;
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_get_info(-1, nullptr, nullptr, &verbosity, nullptr, nullptr, nullptr,
                                                          nullptr, nullptr, nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_get_info(n, nullptr, nullptr, &verbosity, nullptr, nullptr, nullptr,
                                                          nullptr, nullptr, nullptr, nullptr, nullptr));
}

TEST(SourceInfo, OrderingAndAFixedClockRate) {
  const int s = source("src_unordered_info", MPI_T_SOURCE_UNORDERED);
  MPI_T_source_order order;
  MPI_Count tps1 = 0, tps2 = 0, max_ticks = 0;
  MPI_Info info = MPI_INFO_NULL;
  char desc[64];
  int desc_len = sizeof desc;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_info(s, nullptr, nullptr, desc, &desc_len, &order, &tps1, &max_ticks, &info));
  EXPECT_EQ(MPI_T_SOURCE_UNORDERED, order);
  EXPECT_STREQ("test source", desc);
  EXPECT_GT(tps1, 1000000);
  EXPECT_EQ(kMaxCount, max_ticks);
  EXPECT_NE(MPI_INFO_NULL, info);
  mpimon_events_test_info_free(&info);
  ASSERT_EQ(MPI_SUCCESS,
            MPI_T_source_get_info(s, nullptr, nullptr, nullptr, nullptr, nullptr, &tps2, nullptr, nullptr));
  EXPECT_EQ(tps1, tps2);
}

TEST(SourceInfo, ClockRateMatchesMonotonicTime) {
  MPI_Count tps = 0, t0 = 0, t1 = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_info(0, nullptr, nullptr, nullptr, nullptr, nullptr, &tps, nullptr, nullptr));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(0, &t0));
  std::this_thread::sleep_for(std::chrono::milliseconds(50));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(0, &t1));
  const double seconds = static_cast<double>(t1 - t0) / static_cast<double>(tps);
  EXPECT_GT(seconds, 0.045);
  EXPECT_LT(seconds, 0.5);
}

TEST(SourceInfo, BadIndexIsInvalidIndex) {
  int n = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_num(&n));
  MPI_T_source_order order;
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX,
            MPI_T_source_get_info(n, nullptr, nullptr, nullptr, nullptr, &order, nullptr, nullptr, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX,
            MPI_T_source_get_info(-1, nullptr, nullptr, nullptr, nullptr, &order, nullptr, nullptr, nullptr));
}

// ---- 3. Indices ----

TEST(Indices, StableAcrossInitFinalizeCycles) {
  type("ev_index_cycle", source("src_index"));
  const int n = num_types();
  std::vector<std::string> before;
  for (int i = 0; i < n; ++i) before.push_back(type_name(i));
  for (int cycle = 0; cycle < 3; ++cycle) {
    ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());
    int provided;
    ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
    ASSERT_EQ(n, num_types());
    for (int i = 0; i < n; ++i) EXPECT_EQ(before[i], type_name(i));
  }
}

TEST(Indices, NamesAreUniqueAndRoundTrip) {
  const int n = num_types();
  std::set<std::string> names;
  for (int i = 0; i < n; ++i) {
    const std::string name = type_name(i);
    EXPECT_TRUE(names.insert(name).second) << name;
    int index = -1;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_get_index(name.c_str(), &index));
    EXPECT_EQ(i, index);
  }
}

TEST(Indices, UnknownNameIsInvalidName) {
  int index;
  EXPECT_EQ(MPI_T_ERR_INVALID_NAME, MPI_T_event_get_index("no_such_event", &index));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_get_index(nullptr, &index));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_get_index(MPIMON_EVENT_COLL_BEGIN, nullptr));
}

TEST(Indices, RegisteringANameAgainReturnsItsIndex) {
  const int s = source("src_again");
  EXPECT_EQ(s, source("src_again"));
  const int t = type("ev_again", s);
  EXPECT_EQ(t, type("ev_again", s));
}

TEST(Registry, RejectsPayloadLargerThanTheRingSlot) {
  mpimon_event_type_desc desc{};
  desc.name = "ev_too_big";
  desc.description = "";
  desc.source_index = source("src_reject");
  desc.elements = payload_elements();
  desc.num_elements = 3;
  desc.payload_extent = 65;
  int index = -1;
  EXPECT_EQ(MPI_T_ERR_INVALID, mpimon_events_register_type(&desc, &index));
  EXPECT_EQ(-1, mpimon_events_find_type("ev_too_big"));
}

TEST(Registry, RejectsElementsOutsideTheExtentOrNotAscending) {
  mpimon_event_type_desc desc{};
  desc.name = "ev_bad_layout";
  desc.description = "";
  desc.source_index = source("src_reject");
  desc.elements = payload_elements();
  desc.num_elements = 3;
  desc.payload_extent = 20;  // serial (8 bytes at 16) does not fit
  int index = -1;
  EXPECT_EQ(MPI_T_ERR_INVALID, mpimon_events_register_type(&desc, &index));
  const mpimon_event_element backwards[] = {{"a", MPI_INT, 0}, {"b", MPI_DOUBLE, 8}, {"c", MPI_INT, 4}};
  desc.elements = backwards;
  desc.payload_extent = 24;
  EXPECT_EQ(MPI_T_ERR_INVALID, mpimon_events_register_type(&desc, &index));
}

// ---- 4. Callback selection ----

TEST(CallbackSelection, EveryRaiseLevelAgainstEveryRegisteredLevel) {
  const int t = type("ev_select_pairs", source("src_select"));
  for (int registered = 0; registered < 4; ++registered) {
    for (int raised = 0; raised < 4; ++raised) {
      Recorder r;
      MPI_T_event_registration reg = alloc(t);
      ASSERT_EQ(MPI_SUCCESS, MPI_T_event_register_callback(reg, static_cast<MPI_T_cb_safety>(registered), MPI_INFO_NULL,
                                                           &r, Recorder::callback));
      raise(t, 1, static_cast<MPI_T_cb_safety>(raised));
      if (registered >= raised) {
        // Invoked at once, told the context's requirement.
        ASSERT_EQ(1, r.calls.load()) << registered << " " << raised;
        EXPECT_EQ(raised, r.seen[0].safety);
      } else {
        // Too lax for the context: buffered until a point that allows it.
        EXPECT_EQ(0, r.calls.load()) << registered << " " << raised;
        mpimon_events_drain(static_cast<MPI_T_cb_safety>(registered));
        ASSERT_EQ(1, r.calls.load()) << registered << " " << raised;
        EXPECT_EQ(registered, r.seen[0].safety);
      }
      ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
    }
  }
}

TEST(CallbackSelection, LowestSufficientLevelIsChosen) {
  const int t = type("ev_select_lowest", source("src_select"));
  Recorder restricted, signal_safe;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_MPI_RESTRICTED, MPI_INFO_NULL, &restricted, Recorder::callback);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, MPI_INFO_NULL, &signal_safe,
                                Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE);
  raise(t, 2, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  raise(t, 3, MPI_T_CB_REQUIRE_THREAD_SAFE);
  raise(t, 4, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  EXPECT_EQ(2, restricted.calls.load());
  EXPECT_EQ(2, signal_safe.calls.load());
  EXPECT_EQ(1, restricted.seen[0].serial);
  EXPECT_EQ(2, restricted.seen[1].serial);
  EXPECT_EQ(3, signal_safe.seen[0].serial);
  EXPECT_EQ(MPI_T_CB_REQUIRE_THREAD_SAFE, signal_safe.seen[0].safety);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, NullFunctionUnregisters) {
  const int t = type("ev_select_null", source("src_select"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, nullptr));
  raise(t, 2);
  EXPECT_EQ(1, r.calls.load());
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, RegisteringAgainReplaces) {
  const int t = type("ev_select_replace", source("src_select"));
  Recorder first, second;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &first, Recorder::callback);
  raise(t, 1);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &second, Recorder::callback);
  raise(t, 2);
  EXPECT_EQ(1, first.calls.load());
  EXPECT_EQ(1, second.calls.load());
  EXPECT_EQ(2, second.seen[0].serial);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, BadSafetyLevelIsInvalid) {
  const int t = type("ev_select_bad", source("src_select"));
  MPI_T_event_registration reg = alloc(t);
  Recorder r;
  EXPECT_EQ(MPI_T_ERR_INVALID,
            MPI_T_event_register_callback(reg, static_cast<MPI_T_cb_safety>(4), MPI_INFO_NULL, &r, Recorder::callback));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_register_callback(reg, static_cast<MPI_T_cb_safety>(-1), MPI_INFO_NULL, &r,
                                                             Recorder::callback));
  MPI_Info info;
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_callback_get_info(reg, static_cast<MPI_T_cb_safety>(4), &info));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_callback_set_info(reg, static_cast<MPI_T_cb_safety>(7), MPI_INFO_NULL));
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(CallbackSelection, BufferedInstancesDeliveredByTheLibrarysOwnEntryPoints) {
  const int t = type("ev_select_entry_drain", source("src_select_entry"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  EXPECT_EQ(0, r.calls.load());
  int n;
  MPI_T_event_get_num(&n);  // a safe point
  ASSERT_EQ(1, r.calls.load());
  EXPECT_EQ(MPI_T_CB_REQUIRE_NONE, r.seen[0].safety);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// ---- 5. Drops ----

namespace {
struct DropLog {
  std::vector<std::string> log;  // "drop:<count>:<source>" / "event:<serial>" in order
  std::vector<void*> drop_user_data;
  static void event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    int64_t serial;
    MPI_T_event_read(instance, 2, &serial);
    static_cast<DropLog*>(self)->log.push_back("event:" + std::to_string(serial));
  }
};
DropLog* g_drop_log = nullptr;
void dropped(MPI_Count count, MPI_T_event_registration, int source_index, MPI_T_cb_safety, void* user_data) {
  g_drop_log->log.push_back("drop:" + std::to_string(count) + ":" + std::to_string(source_index));
  g_drop_log->drop_user_data.push_back(user_data);
}
}  // namespace

TEST(Drops, CountedWhenTheRingIsFullAndReportedBeforeTheNextEvent) {
  const int s = source("src_drops");
  const int t = type("ev_drops", s);
  DropLog d;
  g_drop_log = &d;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &d, DropLog::event);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_set_dropped_handler(reg, dropped));
  const int capacity = mpimon_events_test_ring_capacity();
  // Raised where the only callback is too lax: buffered until full, then dropped.
  for (int i = 0; i < capacity + 5; ++i) raise(t, i, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  EXPECT_TRUE(d.log.empty());
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_EQ(static_cast<std::size_t>(capacity) + 1, d.log.size());
  EXPECT_EQ("drop:5:" + std::to_string(s), d.log[0]);  // before any further event of the source
  EXPECT_EQ("event:0", d.log[1]);
  EXPECT_EQ(&d, d.drop_user_data[0]);  // the selected callback's user_data
  raise(t, 99);
  EXPECT_EQ("event:99", d.log.back());  // reported once
  MPI_T_event_handle_free(reg, nullptr, nullptr);
  g_drop_log = nullptr;
}

TEST(Drops, CountSaturatesAtTheLargestMpiCount) {
  const int t = type("ev_drops_saturate", source("src_drops_saturate"));
  DropLog d;
  g_drop_log = &d;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &d, DropLog::event);
  MPI_T_event_set_dropped_handler(reg, dropped);
  ASSERT_EQ(MPI_SUCCESS, mpimon_events_test_set_dropped(reg, kMaxCount - 2));
  const int capacity = mpimon_events_test_ring_capacity();
  for (int i = 0; i < capacity + 10; ++i) raise(t, i, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_FALSE(d.log.empty());
  EXPECT_EQ("drop:" + std::to_string(kMaxCount) + ":" + std::to_string(source("src_drops_saturate")), d.log[0]);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
  g_drop_log = nullptr;
}

TEST(Drops, SettingTheHandlerRestartsTheCountAndNullStopsIt) {
  const int t = type("ev_drops_reset", source("src_drops_reset"));
  DropLog d;
  g_drop_log = &d;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &d, DropLog::event);
  mpimon_events_test_set_dropped(reg, 3);
  MPI_T_event_set_dropped_handler(reg, nullptr);
  raise(t, 1);
  EXPECT_EQ((std::vector<std::string>{"event:1"}), d.log);
  mpimon_events_test_set_dropped(reg, 4);
  MPI_T_event_set_dropped_handler(reg, dropped);  // missed "since it was set": 0
  raise(t, 2);
  EXPECT_EQ((std::vector<std::string>{"event:1", "event:2"}), d.log);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
  g_drop_log = nullptr;
}

// One registration's backlog (callbacks only at a laxer level than the raising context
// requires) never costs another registration of the same source its instances.
TEST(Drops, AFullBacklogOfOneRegistrationCostsAnotherNothing) {
  const int s = source("src_backlog");
  const int t = type("ev_backlog", s), other = type("ev_backlog_other", s);
  DropLog lax;
  g_drop_log = &lax;
  Recorder strict_same_type, strict_other_type;
  MPI_T_event_registration a = alloc(t), b = alloc(t), c = alloc(other);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &lax, DropLog::event);
  MPI_T_event_set_dropped_handler(a, dropped);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &strict_same_type, Recorder::callback);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &strict_other_type, Recorder::callback);
  const int capacity = mpimon_events_test_ring_capacity();
  const int n = 3000;
  for (int i = 0; i < n; ++i) {
    raise(t, i, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
    raise(other, i, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  }
  ASSERT_EQ(n, strict_same_type.calls.load());
  ASSERT_EQ(n, strict_other_type.calls.load());
  for (int i = 0; i < n; ++i) {
    EXPECT_EQ(i, strict_same_type.seen[i].serial);
    EXPECT_EQ(i, strict_other_type.seen[i].serial);
  }
  EXPECT_TRUE(lax.log.empty());
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);  // a safe point for the lax callback
  ASSERT_EQ(static_cast<std::size_t>(capacity) + 1, lax.log.size());
  EXPECT_EQ("drop:" + std::to_string(n - capacity) + ":" + std::to_string(s), lax.log[0]);
  EXPECT_EQ("event:0", lax.log[1]);
  EXPECT_EQ("event:" + std::to_string(capacity - 1), lax.log.back());
  for (MPI_T_event_registration r : {a, b, c}) MPI_T_event_handle_free(r, nullptr, nullptr);
  g_drop_log = nullptr;
}

TEST(Drops, ABackloggedRegistrationGetsItsOlderInstancesFirst) {
  const int t = type("ev_backlog_order", source("src_backlog_order"));
  DropLog lax;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &lax, DropLog::event);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  raise(t, 2, MPI_T_CB_REQUIRE_THREAD_SAFE);
  EXPECT_TRUE(lax.log.empty());
  raise(t, 3, MPI_T_CB_REQUIRE_NONE);  // its context allows the callback: the backlog first
  EXPECT_EQ((std::vector<std::string>{"event:1", "event:2", "event:3"}), lax.log);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// ---- 6. Free ----

namespace {
struct FreeProbe {
  std::atomic<int> free_calls{0};
  std::atomic<int> events{0};
  std::atomic<int> events_after_free{0};
  MPI_T_cb_safety free_safety = MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE;
  static void free_cb(MPI_T_event_registration, MPI_T_cb_safety safety, void* self) {
    auto* p = static_cast<FreeProbe*>(self);
    p->free_safety = safety;
    p->free_calls.fetch_add(1);
  }
  static void event(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<FreeProbe*>(self);
    if (p->free_calls.load() != 0) p->events_after_free.fetch_add(1);
    p->events.fetch_add(1);
  }
  static void frees_itself(MPI_T_event_instance instance, MPI_T_event_registration reg, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<FreeProbe*>(self);
    p->events.fetch_add(1);
    int64_t serial = 0;
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, self, free_cb));
    EXPECT_EQ(0, p->free_calls.load());                              // not while its own callback runs
    EXPECT_EQ(MPI_SUCCESS, MPI_T_event_read(instance, 2, &serial));  // the instance is still valid
  }
};
}  // namespace

TEST(Free, FreeCallbackRunsOnceWhenIdle) {
  const int t = type("ev_free_idle", source("src_free"));
  FreeProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, FreeProbe::event);
  raise(t, 1);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, &p, FreeProbe::free_cb));
  EXPECT_EQ(1, p.free_calls.load());
  EXPECT_EQ(MPI_T_CB_REQUIRE_NONE, p.free_safety);
  raise(t, 2);
  EXPECT_EQ(1, p.events.load());
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_free(reg, &p, FreeProbe::free_cb));
  EXPECT_EQ(1, p.free_calls.load());
}

TEST(Free, FreedInsideItsOwnCallbackThenFreeCallbackAfterItReturns) {
  const int t = type("ev_free_own", source("src_free"));
  FreeProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &p, FreeProbe::frees_itself);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED);
  EXPECT_EQ(1, p.free_calls.load());
  EXPECT_EQ(MPI_T_CB_REQUIRE_MPI_RESTRICTED, p.free_safety);  // the delivering context
  raise(t, 2);
  EXPECT_EQ(1, p.events.load());
  EXPECT_EQ(1, p.free_calls.load());
}

TEST(Free, FreedHandleIsInvalidEverywhere) {
  const int t = type("ev_free_invalid", source("src_free"));
  MPI_T_event_registration reg = alloc(t);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
  MPI_Info info;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_get_info(reg, &info));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_set_info(reg, MPI_INFO_NULL));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE,
            MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, nullptr, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_set_dropped_handler(reg, nullptr));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_NONE, &info));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_free(nullptr, nullptr, nullptr));
}

TEST(Free, ExactlyOnceAfterTheLastDeliveryUnderConcurrentRaises) {
  const int t = type("ev_free_concurrent", source("src_free_concurrent", MPI_T_SOURCE_UNORDERED));
  for (int round = 0; round < 20; ++round) {
    FreeProbe p;
    MPI_T_event_registration reg = alloc(t);
    MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &p, FreeProbe::event);
    std::atomic<bool> stop{false};
    std::vector<std::thread> raisers;
    for (int i = 0; i < 4; ++i)
      raisers.emplace_back([&, i] {
        for (int64_t k = 0; !stop.load(); ++k)
          raise(t, k, i % 2 ? MPI_T_CB_REQUIRE_THREAD_SAFE : MPI_T_CB_REQUIRE_NONE);
      });
    while (p.events.load() < 50) std::this_thread::yield();
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, &p, FreeProbe::free_cb));
    stop = true;
    for (auto& r : raisers) r.join();
    mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
    EXPECT_EQ(1, p.free_calls.load());
    EXPECT_EQ(0, p.events_after_free.load());
  }
}

TEST(Free, FreedInsideOwnCallbackUnderConcurrentRaises) {
  const int t = type("ev_free_own_concurrent", source("src_free_own_concurrent"));
  for (int round = 0; round < 20; ++round) {
    FreeProbe p;
    MPI_T_event_registration reg = alloc(t);
    MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &p, FreeProbe::frees_itself);
    std::atomic<bool> stop{false};
    std::vector<std::thread> raisers;
    for (int i = 0; i < 4; ++i)
      raisers.emplace_back([&] {
        for (int64_t k = 0; !stop.load() && k < 100000; ++k) raise(t, k, MPI_T_CB_REQUIRE_THREAD_SAFE);
      });
    while (p.free_calls.load() == 0) std::this_thread::yield();
    stop = true;
    for (auto& r : raisers) r.join();
    EXPECT_EQ(1, p.events.load());
    EXPECT_EQ(1, p.free_calls.load());
  }
}

namespace {
// Two registrations of one type: the first one's callback frees the second.
struct FreesOther {
  MPI_T_event_registration other = nullptr;
  FreeProbe* other_probe = nullptr;
  std::atomic<int> events{0};
  static void event(MPI_T_event_instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* f = static_cast<FreesOther*>(self);
    f->events.fetch_add(1);
    if (f->other != nullptr) {
      EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(f->other, f->other_probe, FreeProbe::free_cb));
      f->other = nullptr;
    }
  }
};
}  // namespace

TEST(Free, FreedByAnEarlierRegistrationsCallbackReceivesNothingMore) {
  const int t = type("ev_free_other", source("src_free_other"));
  FreesOther first;
  FreeProbe second;
  MPI_T_event_registration a = alloc(t), b = alloc(t);
  first.other = b;
  first.other_probe = &second;
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &first, FreesOther::event);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &second, FreeProbe::event);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED);  // a (frees b), then not b
  EXPECT_EQ(1, first.events.load());
  EXPECT_EQ(0, second.events.load());
  EXPECT_EQ(1, second.free_calls.load());  // once the delivery is over
  EXPECT_EQ(MPI_T_CB_REQUIRE_MPI_RESTRICTED, second.free_safety);
  raise(t, 2);
  EXPECT_EQ(2, first.events.load());
  EXPECT_EQ(0, second.events.load());
  EXPECT_EQ(1, second.free_calls.load());
  MPI_T_event_handle_free(a, nullptr, nullptr);
}

TEST(Binding, SeveralRegistrationsOnOneObjectEachReceiveInRegistrationOrder) {
  const int t = type("ev_bind_several", source("src_bind_several"), MPI_T_BIND_MPI_COMM);
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  DropLog log;  // records "event:<serial>" per callback, in call order
  struct Tagged {
    DropLog* log;
    std::string tag;
    static void event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
      auto* t = static_cast<Tagged*>(self);
      int64_t serial = 0;
      MPI_T_event_read(instance, 2, &serial);
      t->log->log.push_back(t->tag + ":" + std::to_string(serial));
    }
  } w1{&log, "w1"}, s1{&log, "s1"}, w2{&log, "w2"};
  MPI_T_event_registration a = alloc(t, &world), b = alloc(t, &self), c = alloc(t, &world);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &w1, Tagged::event);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &s1, Tagged::event);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &w2, Tagged::event);
  raise(t, 1, MPI_T_CB_REQUIRE_MPI_RESTRICTED, world);
  raise(t, 2, MPI_T_CB_REQUIRE_MPI_RESTRICTED, self);
  EXPECT_EQ((std::vector<std::string>{"w1:1", "w2:1", "s1:2"}), log.log);
  for (MPI_T_event_registration r : {a, b, c}) MPI_T_event_handle_free(r, nullptr, nullptr);
}

// ---- 7. Binding ----

TEST(Binding, BoundRegistrationReceivesOnlyItsObjectsEvents) {
  const int t = type("ev_bind_filter", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  Recorder on_world, on_self;
  MPI_T_event_registration a = alloc(t, &world), b = alloc(t, &self);
  ASSERT_NE(nullptr, a);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &on_world, Recorder::callback);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &on_self, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, world);
  raise(t, 2, MPI_T_CB_REQUIRE_NONE, self);
  raise(t, 3, MPI_T_CB_REQUIRE_NONE, world);
  ASSERT_EQ(2, on_world.calls.load());
  ASSERT_EQ(1, on_self.calls.load());
  EXPECT_EQ(3, on_world.seen[1].serial);
  EXPECT_EQ(2, on_self.seen[0].serial);
  MPI_T_event_handle_free(a, nullptr, nullptr);
  MPI_T_event_handle_free(b, nullptr, nullptr);
}

TEST(Binding, NullObjectForABoundTypeIsInvalidHandle) {
  const int t = type("ev_bind_null", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, nullptr, MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

TEST(Binding, UnboundTypeIgnoresTheObject) {
  const int t = type("ev_bind_unbound", source("src_bind"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t, nullptr);
  ASSERT_NE(nullptr, reg);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, &r);
  EXPECT_EQ(1, r.calls.load());
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Binding, FreedObjectStopsDeliveryEvenIfTheAddressIsReused) {
  const int t = type("ev_bind_freed", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Comm self = MPI_COMM_SELF;
  Recorder r;
  MPI_T_event_registration reg = alloc(t, &self);
  ASSERT_NE(nullptr, reg);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, self);
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, self);
  raise(t, 2, MPI_T_CB_REQUIRE_NONE, self);  // a new communicator at the same address
  EXPECT_EQ(1, r.calls.load());
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));  // still a valid handle
}

// Objects that are not live objects of the type's kind: refused, whatever they point to.
TEST(Binding, NullCommunicatorIsInvalidHandle) {
  const int t = type("ev_bind_comm_null", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Comm null = MPI_COMM_NULL;
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &null, MPI_INFO_NULL, &reg));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, MPI_COMM_NULL, MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

TEST(Binding, ObjectOfAnotherKindIsInvalidHandle) {
  const int t = type("ev_bind_other_kind", source("src_bind"), MPI_T_BIND_MPI_WIN);
  MPI_Comm world = MPI_COMM_WORLD;
  MPI_Win null = MPI_WIN_NULL;
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &world, MPI_INFO_NULL, &reg));  // a communicator
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &null, MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

TEST(Binding, AnyOtherPointerIsRefusedWithoutACrash) {
  const int t = type("ev_bind_garbage", source("src_bind"), MPI_T_BIND_MPI_COMM);
  long not_a_handle = 12345;
  MPI_T_event_registration reg = nullptr;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, &not_a_handle, MPI_INFO_NULL, &reg));
  // Not even readable memory: the library reads through the kernel, which reports it.
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_handle_alloc(t, reinterpret_cast<void*>(8), MPI_INFO_NULL, &reg));
  EXPECT_EQ(nullptr, reg);
}

// Open MPI's own monitoring tests pass the communicator, not its address.
TEST(Binding, CommunicatorPassedItselfIsAccepted) {
  const int t = type("ev_bind_by_value", source("src_bind"), MPI_T_BIND_MPI_COMM);
  Recorder r;
  MPI_T_event_registration reg = alloc(t, MPI_COMM_WORLD);
  ASSERT_NE(nullptr, reg);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, MPI_COMM_WORLD);
  raise(t, 2, MPI_T_CB_REQUIRE_NONE, MPI_COMM_SELF);
  ASSERT_EQ(1, r.calls.load());
  EXPECT_EQ(1, r.seen[0].serial);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Binding, EveryObjectHintReceivesTheEventsOfEveryObject) {
  const int t = type("ev_bind_every", source("src_bind"), MPI_T_BIND_MPI_COMM);
  MPI_Info hint = mpimon_events_test_info_make(MPIMON_EVENTS_EVERY_OBJECT, "true");
  ASSERT_NE(MPI_INFO_NULL, hint);
  Recorder r;
  MPI_T_event_registration reg = nullptr;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_alloc(t, nullptr, hint, &reg));  // no object needed
  mpimon_events_test_info_free(&hint);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  int internal = 0;  // any object, also one the tool never saw
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, MPI_COMM_WORLD);
  raise(t, 2, MPI_T_CB_REQUIRE_MPI_RESTRICTED, &internal);
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, &internal);  // not bound to it: still listening
  raise(t, 3, MPI_T_CB_REQUIRE_NONE, &internal);
  EXPECT_EQ(3, r.calls.load());
  MPI_Info used = MPI_INFO_NULL;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_get_info(reg, &used));
  char value[16] = {};
  EXPECT_EQ(1, mpimon_events_test_info_get(used, MPIMON_EVENTS_EVERY_OBJECT, value, sizeof value));
  EXPECT_STREQ("true", value);
  mpimon_events_test_info_free(&used);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// ---- 8. Instances: read / copy ----

namespace {
struct InstanceProbe {
  int read_codes[5] = {-1, -1, -1, -1, -1};
  int32_t id = 0;
  double value = 0;
  int64_t serial = 0;
  unsigned char copy[40];
  int copy_code = -1, source = -1, source_code = -1, null_buffer_code = -1;
  MPI_Count timestamp = 0;
  static void event(MPI_T_event_instance instance, MPI_T_event_registration, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<InstanceProbe*>(self);
    std::memset(p->copy, 0xEE, sizeof p->copy);  // guard bytes around and inside the payload
    p->read_codes[0] = MPI_T_event_read(instance, 0, &p->id);
    p->read_codes[1] = MPI_T_event_read(instance, 1, &p->value);
    p->read_codes[2] = MPI_T_event_read(instance, 2, &p->serial);
    int64_t scratch;
    p->read_codes[3] = MPI_T_event_read(instance, -1, &scratch);
    p->read_codes[4] = MPI_T_event_read(instance, 3, &scratch);
    p->copy_code = MPI_T_event_copy(instance, p->copy + 8);
    p->source_code = MPI_T_event_get_source(instance, &p->source);
    p->null_buffer_code = MPI_T_event_read(instance, 0, nullptr);
    MPI_T_event_get_timestamp(instance, &p->timestamp);
  }
};
}  // namespace

TEST(Instance, ReadReturnsEachElementAndRejectsBadIndices) {
  const int s = source("src_instance");
  const int t = type("ev_instance_read", s);
  InstanceProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, InstanceProbe::event);
  raise(t, 42);
  EXPECT_EQ(MPI_SUCCESS, p.read_codes[0]);
  EXPECT_EQ(MPI_SUCCESS, p.read_codes[1]);
  EXPECT_EQ(MPI_SUCCESS, p.read_codes[2]);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, p.read_codes[3]);  // -1
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, p.read_codes[4]);  // n
  EXPECT_EQ(MPI_T_ERR_INVALID, p.null_buffer_code);
  EXPECT_EQ(7, p.id);
  EXPECT_EQ(2.5, p.value);
  EXPECT_EQ(42, p.serial);
  EXPECT_EQ(MPI_SUCCESS, p.source_code);
  EXPECT_EQ(s, p.source);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Instance, CopyWritesElementsAtTheirDisplacementsAndNothingElse) {
  const int t = type("ev_instance_copy", source("src_instance"));
  InstanceProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, InstanceProbe::event);
  raise(t, 43);
  ASSERT_EQ(MPI_SUCCESS, p.copy_code);
  for (int i = 0; i < 8; ++i) EXPECT_EQ(0xEE, p.copy[i]) << "guard before, byte " << i;
  for (int i = 8 + 24; i < 40; ++i) EXPECT_EQ(0xEE, p.copy[i]) << "guard after, byte " << i;
  for (int i = 8 + 4; i < 8 + 8; ++i) EXPECT_EQ(0xEE, p.copy[i]) << "pad (not an element), byte " << i;
  Payload got;
  std::memcpy(&got, p.copy + 8, sizeof got);
  EXPECT_EQ(7, got.id);
  EXPECT_EQ(2.5, got.value);
  EXPECT_EQ(43, got.serial);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Instance, HandlesAreInvalidOutsideTheirCallback) {
  int64_t v;
  MPI_Count ts;
  int src;
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_read(nullptr, 0, &v));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_copy(nullptr, &v));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_get_timestamp(nullptr, &ts));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_get_source(nullptr, &src));
  EXPECT_EQ(MPI_T_ERR_INVALID_HANDLE, MPI_T_event_read(reinterpret_cast<MPI_T_event_instance>(&v), 0, &v));
}

TEST(Instance, TimestampIsTheObservationTime) {
  const int t = type("ev_instance_ts", source("src_instance_ts", MPI_T_SOURCE_UNORDERED));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  Payload payload{1, 0, 0, 5};
  const MPI_Count observed = mpimon_events_now() - 1000;
  mpimon_events_raise(t, nullptr, &payload, observed, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);  // buffered
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_EQ(1, r.calls.load());
  EXPECT_EQ(observed, r.seen[0].timestamp);  // a delayed delivery keeps the observation time
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// ---- 9. Timestamps ----

TEST(Timestamps, OrderedSourceMonotonicAcrossThreads) {
  const int t = type("ev_ts_ordered", source("src_ts_ordered"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  std::vector<std::thread> raisers;
  for (int i = 0; i < 4; ++i)
    raisers.emplace_back([&] {
      for (int k = 0; k < 5000; ++k) raise(t, k);
    });
  for (auto& th : raisers) th.join();
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  const std::vector<Seen> seen = r.snapshot();
  EXPECT_GT(seen.size(), 1000u);
  for (std::size_t i = 1; i < seen.size(); ++i) ASSERT_LE(seen[i - 1].timestamp, seen[i].timestamp) << "delivery " << i;
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Timestamps, SourceTimestampBadIndexIsInvalidIndex) {
  int n = 0;
  MPI_Count ts;
  MPI_T_source_get_num(&n);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_timestamp(n, &ts));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_source_get_timestamp(-1, &ts));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_source_get_timestamp(0, nullptr));
}

TEST(Timestamps, SourceWithoutOnDemandTimestampIsNotSupported) {
  const int s = source("src_ts_none", MPI_T_SOURCE_UNORDERED, MPIMON_EVENTS_SOURCE_NO_TIMESTAMP);
  MPI_Count ts;
  EXPECT_EQ(MPI_T_ERR_NOT_SUPPORTED, MPI_T_source_get_timestamp(s, &ts));
}

TEST(Timestamps, SourceTimestampFollowsTheEventClock) {
  const int s = source("src_ts_clock");
  MPI_Count a = 0, b = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(s, &a));
  const MPI_Count now = mpimon_events_now();
  ASSERT_EQ(MPI_SUCCESS, MPI_T_source_get_timestamp(s, &b));
  EXPECT_LE(a, now);
  EXPECT_LE(now, b);
}

// The producer's MPIMON_EVENTS_NOW: the library stamps the instance.
TEST(Timestamps, NowIsStampedWithTheLibraryClockWhenDelivered) {
  const int t = type("ev_ts_now", source("src_ts_now"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, Recorder::callback);
  Payload p{1, 0, 0, 1};
  const MPI_Count before = mpimon_events_now();
  mpimon_events_raise(t, nullptr, &p, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_THREAD_SAFE);
  const MPI_Count after = mpimon_events_now();
  ASSERT_EQ(1, r.calls.load());
  EXPECT_LE(before, r.seen[0].timestamp);
  EXPECT_LE(r.seen[0].timestamp, after);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Timestamps, NowIsStampedWhenQueuedNotWhenDrained) {
  const int t = type("ev_ts_now_queued", source("src_ts_now_queued", MPI_T_SOURCE_UNORDERED));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  Payload p{1, 0, 0, 1};
  const MPI_Count before = mpimon_events_now();
  mpimon_events_raise(t, nullptr, &p, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE);  // queued
  const MPI_Count after = mpimon_events_now();
  std::this_thread::sleep_for(std::chrono::milliseconds(2));
  const MPI_Count drained = mpimon_events_now();
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  ASSERT_EQ(1, r.calls.load());
  EXPECT_LE(before, r.seen[0].timestamp);
  EXPECT_LE(r.seen[0].timestamp, after);
  EXPECT_LT(r.seen[0].timestamp, drained);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

TEST(Timestamps, NowOnAnOrderedSourceMonotonicAcrossThreads) {
  const int t = type("ev_ts_now_ordered", source("src_ts_now_ordered"));
  Recorder r;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, Recorder::callback);
  const MPI_Count start = mpimon_events_now();
  std::vector<std::thread> raisers;
  for (int i = 0; i < 4; ++i)
    raisers.emplace_back([&, i] {
      Payload p{i, 0, 0, 0};
      for (int k = 0; k < 5000; ++k) {
        p.serial = k;
        mpimon_events_raise(t, nullptr, &p, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_THREAD_SAFE);
      }
    });
  for (auto& th : raisers) th.join();
  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  const MPI_Count end = mpimon_events_now();
  const std::vector<Seen> seen = r.snapshot();
  EXPECT_GT(seen.size(), 1000u);
  ASSERT_FALSE(seen.empty());
  EXPECT_LE(start, seen.front().timestamp);
  EXPECT_LE(seen.back().timestamp, end);
  for (std::size_t i = 1; i < seen.size(); ++i) ASSERT_LE(seen[i - 1].timestamp, seen[i].timestamp) << "delivery " << i;
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// ---- Inside callbacks ----

namespace {
struct AccessProbe {
  std::vector<int> codes;
  int allowed_num = -1;
  static void event(MPI_T_event_instance, MPI_T_event_registration reg, MPI_T_cb_safety, void* self) {
    auto* p = static_cast<AccessProbe*>(self);
    MPI_Info info;
    MPI_T_event_registration other;
    int n;
    p->codes = {
        MPI_T_event_handle_alloc(0, nullptr, MPI_INFO_NULL, &other),
        MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, nullptr, nullptr),
        MPI_T_event_set_dropped_handler(reg, nullptr),
        MPI_T_event_handle_get_info(reg, &info),
        MPI_T_event_get_info(0, nullptr, nullptr, &n, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                             nullptr),
        MPI_T_category_get_num_events(0, &n),
    };
    p->allowed_num = MPI_T_event_get_num(&n);
    mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);  // a no-op inside a callback
  }
};
}  // namespace

TEST(InsideCallbacks, ConfigurationFunctionsAreNotAccessible) {
  const int t = type("ev_access", source("src_access"));
  AccessProbe p;
  MPI_T_event_registration reg = alloc(t);
  MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &p, AccessProbe::event);
  raise(t, 1);
  ASSERT_EQ(6u, p.codes.size());
  for (std::size_t i = 0; i < p.codes.size(); ++i) EXPECT_EQ(MPI_T_ERR_NOT_ACCESSIBLE, p.codes[i]) << "call #" << i;
  EXPECT_EQ(MPI_SUCCESS, p.allowed_num);
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// ---- Registrations' info ----

TEST(Handles, InfoCallsOnAValidHandle) {
  const int t = type("ev_handle_info", source("src_handles"));
  MPI_T_event_registration reg = alloc(t);
  MPI_Info info = MPI_INFO_NULL;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_handle_set_info(reg, MPI_INFO_NULL));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_get_info(reg, &info));
  EXPECT_NE(MPI_INFO_NULL, info);
  mpimon_events_test_info_free(&info);
  EXPECT_EQ(MPI_SUCCESS, MPI_T_event_callback_set_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL));
  ASSERT_EQ(MPI_SUCCESS, MPI_T_event_callback_get_info(reg, MPI_T_CB_REQUIRE_THREAD_SAFE, &info));
  EXPECT_NE(MPI_INFO_NULL, info);
  mpimon_events_test_info_free(&info);
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_handle_get_info(reg, nullptr));
  MPI_T_event_handle_free(reg, nullptr, nullptr);
}

// Allocation and release stay O(log n) each: 200 000 handles (each bound to one of two
// communicators) come and go far within the test's time limit; a reservation of exactly
// one more element per allocation, or a linear search per free, took minutes.
TEST(Handles, ManyHandlesAllocateAndFreeInLogarithmicTime) {
  const int t = type("ev_handles_many", source("src_handles"), MPI_T_BIND_MPI_COMM);
  MPI_Comm comms[2] = {MPI_COMM_WORLD, MPI_COMM_SELF};
  std::vector<MPI_T_event_registration> regs(200000);
  for (std::size_t i = 0; i < regs.size(); ++i)
    ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_alloc(t, &comms[i % 2], MPI_INFO_NULL, &regs[i]));
  for (MPI_T_event_registration reg : regs) ASSERT_EQ(MPI_SUCCESS, MPI_T_event_handle_free(reg, nullptr, nullptr));
}

TEST(Handles, AllocRejectsBadIndexAndNullOutput) {
  MPI_T_event_registration reg;
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_handle_alloc(-1, nullptr, MPI_INFO_NULL, &reg));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_event_handle_alloc(num_types(), nullptr, MPI_INFO_NULL, &reg));
  const int t = type("ev_handle_null_out", source("src_handles"));
  EXPECT_EQ(MPI_T_ERR_INVALID, MPI_T_event_handle_alloc(t, nullptr, MPI_INFO_NULL, nullptr));
}

// ---- Categories ----

TEST(Categories, OurCategoryListsEveryEventType) {
  const int cat = our_category();
  ASSERT_GE(cat, 0);
  int n = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_num_events(cat, &n));
  EXPECT_EQ(num_types(), n);
  std::vector<int> indices(n + 2, -7);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_events(cat, n - 1, indices.data()));
  for (int i = 0; i < n - 1; ++i) EXPECT_EQ(i, indices[i]);
  EXPECT_EQ(-7, indices[n - 1]);  // only len entries written
}

TEST(Categories, OtherCategoriesHaveNoEvents) {
  const int cat = our_category();
  int total = 0;
  MPI_T_category_get_num(&total);
  ASSERT_GT(total, 1);
  const int other = cat == 0 ? 1 : 0;
  int n = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_num_events(other, &n));
  EXPECT_EQ(0, n);
  int index = -7;
  EXPECT_EQ(MPI_SUCCESS, MPI_T_category_get_events(other, 1, &index));
  EXPECT_EQ(-7, index);
}

TEST(Categories, BadIndexIsInvalidIndex) {
  int total = 0, n;
  MPI_T_category_get_num(&total);
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_num_events(-1, &n));
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_num_events(total + 1000, &n));
  int indices[2];
  EXPECT_EQ(MPI_T_ERR_INVALID_INDEX, MPI_T_category_get_events(total + 1000, 2, indices));
}

TEST(Categories, ReappearsAfterAnMpiTFinalizeInitCycle) {
  ASSERT_GE(our_category(), 0);
  ASSERT_EQ(MPI_SUCCESS, MPI_T_finalize());
  int provided;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided));
  const int cat = our_category();
  ASSERT_GE(cat, 0);
  int n = -1;
  ASSERT_EQ(MPI_SUCCESS, MPI_T_category_get_num_events(cat, &n));
  EXPECT_EQ(num_types(), n);
}

// ---- The producer's listening flag ----

TEST(ListeningFlag, FollowsLiveRegistrationsWithCallbacks) {
  const int t = type("ev_flag", source("src_flag"), MPI_T_BIND_MPI_COMM);
  unsigned char flag = 0xFF;
  mpimon_events_watch(t, &flag);
  EXPECT_EQ(0, flag);  // synchronised at watch time
  MPI_Comm world = MPI_COMM_WORLD, self = MPI_COMM_SELF;
  Recorder r;
  MPI_T_event_registration a = alloc(t, &world), b = alloc(t, &self);
  EXPECT_EQ(0, flag);  // registrations without callbacks do not listen
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(1, flag);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, nullptr);
  EXPECT_EQ(1, flag);  // one callback left
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_THREAD_SAFE, MPI_INFO_NULL, &r, nullptr);
  EXPECT_EQ(0, flag);  // callbacks removed
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_handle_free(a, nullptr, nullptr);
  EXPECT_EQ(1, flag);  // b still listens
  mpimon_events_object_freed(MPI_T_BIND_MPI_COMM, self);
  EXPECT_EQ(0, flag);  // b's object is gone
  MPI_T_event_handle_free(b, nullptr, nullptr);
  MPI_T_event_registration c = alloc(t, &world);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(1, flag);
  MPI_T_event_handle_free(c, nullptr, nullptr);
  EXPECT_EQ(0, flag);  // handle freed
  mpimon_events_unwatch(t, &flag);
}

TEST(ListeningFlag, NotifyRunsAtWatchAndAtEveryChangeWithTheFlagAlreadySet) {
  const int t = type("ev_flag_notify", source("src_flag_notify"), MPI_T_BIND_NO_OBJECT);
  struct Seen {
    unsigned char flag = 0xFF;
    std::vector<int> values;  // the flag as each notification saw it
  } seen;
  auto changed = [](void* arg) {
    auto* s = static_cast<Seen*>(arg);
    s->values.push_back(s->flag);
  };
  mpimon_events_watch_notify(t, &seen.flag, changed, &seen);
  EXPECT_EQ(std::vector<int>({0}), seen.values);  // once at watch time
  Recorder r;
  MPI_T_event_registration a = alloc(t, nullptr), b = alloc(t, nullptr);
  MPI_T_event_register_callback(a, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  MPI_T_event_register_callback(b, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(std::vector<int>({0, 1}), seen.values);  // only the first listener is a change
  MPI_T_event_handle_free(a, nullptr, nullptr);
  EXPECT_EQ(std::vector<int>({0, 1}), seen.values);
  MPI_T_event_handle_free(b, nullptr, nullptr);
  EXPECT_EQ(std::vector<int>({0, 1, 0}), seen.values);  // the last one went
  mpimon_events_unwatch(t, &seen.flag);
  MPI_T_event_registration c = alloc(t, nullptr);
  MPI_T_event_register_callback(c, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback);
  EXPECT_EQ(3u, seen.values.size());  // unwatched: no more notifications
  MPI_T_event_handle_free(c, nullptr, nullptr);
}

// ---- Error names ----

TEST(ErrorNames, NewErrorClassesAreNamedAndClassified) {
  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  ASSERT_EQ(MPI_SUCCESS, MPI_Error_string(MPI_T_ERR_NOT_ACCESSIBLE, text, &len));
  EXPECT_EQ(0, std::string(text).rfind("MPI_T_ERR_NOT_ACCESSIBLE", 0));
  EXPECT_EQ(static_cast<int>(std::strlen(text)), len);
  ASSERT_EQ(MPI_SUCCESS, MPI_Error_string(MPI_T_ERR_NOT_SUPPORTED, text, &len));
  EXPECT_EQ(0, std::string(text).rfind("MPI_T_ERR_NOT_SUPPORTED", 0));
  int cls = -1;
  EXPECT_EQ(MPI_SUCCESS, MPI_Error_class(MPI_T_ERR_NOT_ACCESSIBLE, &cls));
  EXPECT_EQ(81, cls);
  EXPECT_EQ(MPI_SUCCESS, MPI_Error_class(MPI_T_ERR_NOT_SUPPORTED, &cls));
  EXPECT_EQ(82, cls);
  // Other codes go to Open MPI's, which abort before MPI_Init: checked in
  // before_mpi_init.cpp after MPI_Init.
}
