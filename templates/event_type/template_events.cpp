// TEMPLATE: a new event type, registered and raised (see template_events.h).
#include "event_type/template_events.h"

#include <cstddef>
#include <mutex>

#include "catalogue_registration.h"
#include "mpit_events_producer.h"

namespace {

int template_type = -1;
// The listening flag: one byte in the producer's own object, kept nonzero by the library
// while some registration of the type has a callback (mpit_events_producer.h).
unsigned char template_listened = 0;

void register_template_events() {
  const int source = mpimon::events::register_ordered_source("mpimon_template", "mpimon's event type template");
  // Elements ascending by displacement, the first at 0; the pad is no element.
  static const mpimon_event_element elements[] = {
      {"peer", MPI_INT32_T, offsetof(mpimon_template_event, peer)},
      {"bytes", MPI_UINT64_T, offsetof(mpimon_template_event, bytes)},
  };
  mpimon::events::register_event_type(MPIMON_EVENT_TEMPLATE_HAPPENED, "the template's event happened",
                                      MPI_T_BIND_NO_OBJECT, source, elements, 2, sizeof(mpimon_template_event));
  template_type = mpimon_events_find_type(MPIMON_EVENT_TEMPLATE_HAPPENED);
  mpimon_events_watch(template_type, &template_listened);
}

}  // namespace

extern "C" void mpimon_register_template_events(void) {
  static std::once_flag once;
  std::call_once(once, register_template_events);
}

extern "C" void mpimon_template_raise(int32_t peer, uint64_t bytes) {
  // The hot path when nobody listens: this load and a not-taken branch, nothing else.
  if (__builtin_expect(__atomic_load_n(&template_listened, __ATOMIC_RELAXED), 0)) {
    const mpimon_template_event payload{peer, 0, bytes};
    // MPIMON_EVENTS_NOW: the library stamps the instance. MPI_T_CB_REQUIRE_NONE: the
    // safety the raising context needs (a layer's wrapper inside an MPI call may say more).
    mpimon_events_raise(template_type, nullptr, &payload, MPIMON_EVENTS_NOW, MPI_T_CB_REQUIRE_NONE);
  }
}
