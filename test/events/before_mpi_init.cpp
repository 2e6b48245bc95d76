// Checklist item 10: registrations made under MPI_T before MPI_Init receive events
// before and after MPI_Init; info objects returned before MPI_Init are usable and
// freeable with MPI_Info_* once MPI is initialised; MPI_Error_string names the new
// classes. A plain program (run as a singleton by ctest): exit 0 when everything holds.
#include <cstdio>
#include <cstring>

#include "events_test_support.h"

using namespace events_test;

namespace {

int failures = 0;
#define CHECK(cond)                                                                 \
  do {                                                                              \
    if (!(cond)) {                                                                  \
      std::fprintf(stderr, "%s:%d: check failed: %s\n", __FILE__, __LINE__, #cond); \
      ++failures;                                                                   \
    }                                                                               \
  } while (0)

}  // namespace

int main(int argc, char** argv) {
  int provided = 0;
  CHECK(MPI_T_init_thread(MPI_THREAD_MULTIPLE, &provided) == MPI_SUCCESS);

  // Before MPI_Init: the catalogue is there, a bound registration works.
  int pml = -1;
  CHECK(MPI_T_event_get_index("mpimon_pml_send_posted", &pml) == MPI_SUCCESS);
  const int t = type("ev_before_init", source("src_before_init"), MPI_T_BIND_MPI_COMM);
  MPI_Comm world = MPI_COMM_WORLD;
  Recorder r;
  MPI_T_event_registration reg = alloc(t, &world);
  CHECK(reg != nullptr);
  CHECK(MPI_T_event_register_callback(reg, MPI_T_CB_REQUIRE_NONE, MPI_INFO_NULL, &r, Recorder::callback) ==
        MPI_SUCCESS);
  raise(t, 1, MPI_T_CB_REQUIRE_NONE, world);
  CHECK(r.calls.load() == 1);
  raise(t, 2, MPI_T_CB_REQUIRE_ASYNC_SIGNAL_SAFE, world);  // buffered across MPI_Init

  static const char* const kv[] = {"unit", "bytes", nullptr};
  const int t_info = type("ev_before_init_info", source("src_before_init"), MPI_T_BIND_NO_OBJECT, "d", kv);
  MPI_Info early = MPI_INFO_NULL;
  CHECK(MPI_T_event_get_info(t_info, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &early, nullptr,
                             nullptr, nullptr) == MPI_SUCCESS);
  CHECK(early != MPI_INFO_NULL);

  CHECK(MPI_Init(&argc, &argv) == MPI_SUCCESS);

  mpimon_events_drain(MPI_T_CB_REQUIRE_NONE);
  CHECK(r.calls.load() == 2);
  raise(t, 3, MPI_T_CB_REQUIRE_NONE, world);
  CHECK(r.calls.load() == 3);
  if (r.calls.load() == 3) CHECK(r.seen[1].serial == 2 && r.seen[2].serial == 3);

  // The info made before MPI_Init works with MPI_Info_* now.
  char value[32] = "";
  int flag = 0;
  CHECK(MPI_Info_get(early, "unit", sizeof value - 1, value, &flag) == MPI_SUCCESS);
  CHECK(flag == 1 && std::strcmp(value, "bytes") == 0);
  CHECK(MPI_Info_free(&early) == MPI_SUCCESS);
  CHECK(early == MPI_INFO_NULL);
  // And one made after MPI_Init is an ordinary MPI_Info.
  MPI_Info late = MPI_INFO_NULL;
  CHECK(MPI_T_event_get_info(t_info, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, &late, nullptr,
                             nullptr, nullptr) == MPI_SUCCESS);
  int nkeys = 0;
  CHECK(MPI_Info_get_nkeys(late, &nkeys) == MPI_SUCCESS && nkeys == 1);
  CHECK(MPI_Info_free(&late) == MPI_SUCCESS);
  MPI_Info used = MPI_INFO_NULL;
  CHECK(MPI_T_event_handle_get_info(reg, &used) == MPI_SUCCESS);
  CHECK(MPI_Info_get_nkeys(used, &nkeys) == MPI_SUCCESS && nkeys == 0);
  CHECK(MPI_Info_free(&used) == MPI_SUCCESS);

  char text[MPI_MAX_ERROR_STRING];
  int len = 0;
  CHECK(MPI_Error_string(MPI_T_ERR_NOT_SUPPORTED, text, &len) == MPI_SUCCESS);
  CHECK(std::strncmp(text, "MPI_T_ERR_NOT_SUPPORTED", 23) == 0);
  CHECK(MPI_Error_string(MPI_T_ERR_INVALID_INDEX, text, &len) == MPI_SUCCESS);  // forwarded to Open MPI's
  CHECK(std::strstr(text, "MPI_T_ERR_INVALID_INDEX") != nullptr);
  int cls = -1;
  CHECK(MPI_Error_class(MPI_T_ERR_NOT_ACCESSIBLE, &cls) == MPI_SUCCESS && cls == MPI_T_ERR_NOT_ACCESSIBLE);
  CHECK(MPI_Error_class(MPI_ERR_COMM, &cls) == MPI_SUCCESS && cls == MPI_ERR_COMM);

  CHECK(MPI_T_event_handle_free(reg, nullptr, nullptr) == MPI_SUCCESS);
  CHECK(MPI_T_finalize() == MPI_SUCCESS);  // before MPI_Finalize (the reverse crashes 4.1)
  MPI_Finalize();
  if (failures == 0) std::printf("before_mpi_init: all checks passed\n");
  return failures == 0 ? 0 : 1;
}
