// What the event catalogues (communication_events.cpp, ompi_lifecycle_events.cpp) share:
// registering an ORDERED source and an event type with the events library.
#pragma once

#include <cstddef>

#include "mpit_events_producer.h"

namespace mpimon::events {

// An ORDERED source (its events are delivered in timestamp order); returns its index.
inline int register_ordered_source(const char* name, const char* description) {
  int index = -1;
  mpimon_events_register_source(name, description, MPI_T_SOURCE_ORDERED, &index);
  return index;
}

// An event type of `source_index`: `count` elements laid out in a payload of `extent`
// bytes; `info`: its MPI_T info keys and values (nullptr: none).
inline void register_event_type(const char* name, const char* description, int bind, int source_index,
                                const mpimon_event_element* elements, int count, size_t extent,
                                const char* const* info = nullptr, int verbosity = MPI_T_VERBOSITY_USER_DETAIL) {
  mpimon_event_type_desc desc{};
  desc.name = name;
  desc.description = description;
  desc.verbosity = verbosity;
  desc.bind = bind;
  desc.source_index = source_index;
  desc.elements = elements;
  desc.num_elements = count;
  desc.payload_extent = extent;
  desc.info = info;
  int index = -1;
  mpimon_events_register_type(&desc, &index);
}

}  // namespace mpimon::events
