// The event logger's type decoding: what MPI_T says about each event type, turned into
// the descriptions the pure part (event_log.h) formats with.
#include "logger.h"

#include <algorithm>
#include <cstring>

namespace mpimon::mel {

// ---------------------------------------------------------------------------------------
// Type information

bool classify(MPI_Datatype datatype, ValueKind& kind, size_t& size) {
  struct Entry {
    MPI_Datatype datatype;
    ValueKind kind;
    size_t size;
  };
  static const Entry table[] = {
      {MPI_CHAR, ValueKind::character, 1},
      {MPI_SIGNED_CHAR, ValueKind::signed_integer, 1},
      {MPI_UNSIGNED_CHAR, ValueKind::unsigned_integer, 1},
      {MPI_BYTE, ValueKind::unsigned_integer, 1},
      {MPI_SHORT, ValueKind::signed_integer, sizeof(short)},
      {MPI_UNSIGNED_SHORT, ValueKind::unsigned_integer, sizeof(unsigned short)},
      {MPI_INT, ValueKind::signed_integer, sizeof(int)},
      {MPI_UNSIGNED, ValueKind::unsigned_integer, sizeof(unsigned)},
      {MPI_LONG, ValueKind::signed_integer, sizeof(long)},
      {MPI_UNSIGNED_LONG, ValueKind::unsigned_integer, sizeof(unsigned long)},
      {MPI_LONG_LONG_INT, ValueKind::signed_integer, sizeof(long long)},
      {MPI_LONG_LONG, ValueKind::signed_integer, sizeof(long long)},
      {MPI_UNSIGNED_LONG_LONG, ValueKind::unsigned_integer, sizeof(unsigned long long)},
      {MPI_INT8_T, ValueKind::signed_integer, 1},
      {MPI_INT16_T, ValueKind::signed_integer, 2},
      {MPI_INT32_T, ValueKind::signed_integer, 4},
      {MPI_INT64_T, ValueKind::signed_integer, 8},
      {MPI_UINT8_T, ValueKind::unsigned_integer, 1},
      {MPI_UINT16_T, ValueKind::unsigned_integer, 2},
      {MPI_UINT32_T, ValueKind::unsigned_integer, 4},
      {MPI_UINT64_T, ValueKind::unsigned_integer, 8},
      {MPI_AINT, ValueKind::signed_integer, sizeof(MPI_Aint)},
      {MPI_OFFSET, ValueKind::signed_integer, sizeof(MPI_Offset)},
      {MPI_COUNT, ValueKind::signed_integer, sizeof(MPI_Count)},
      {MPI_FLOAT, ValueKind::floating, sizeof(float)},
      {MPI_DOUBLE, ValueKind::floating, sizeof(double)},
      {MPI_LONG_DOUBLE, ValueKind::floating, sizeof(long double)},
      {MPI_C_BOOL, ValueKind::boolean, sizeof(bool)},
  };
  for (const Entry& e : table)
    if (e.datatype == datatype) {
      kind = e.kind;
      size = e.size;
      return true;
    }
  return false;
}

std::string c_string(const std::vector<char>& buffer) {
  return std::string(buffer.data(), strnlen(buffer.data(), buffer.size()));
}

// The element names from the type's MPI_T_enum (item i names element i).
std::vector<std::string> element_names(MPI_T_enum enumtype, int count) {
  std::vector<std::string> names;
  int items = 0;
  if (enumtype != MPI_T_ENUM_NULL && MPI_T_enum_get_info(enumtype, &items, nullptr, nullptr) == MPI_SUCCESS) {
    for (int i = 0; i < items && i < count; ++i) {
      std::vector<char> name(256, '\0');
      int length = static_cast<int>(name.size());
      int value = 0;
      if (MPI_T_enum_get_item(enumtype, i, &value, name.data(), &length) != MPI_SUCCESS) break;
      names.push_back(c_string(name));
    }
  }
  for (int i = static_cast<int>(names.size()); i < count; ++i) names.push_back("element" + std::to_string(i));
  for (int i = 0; i < count; ++i)
    if (names[i].empty()) names[i] = "element" + std::to_string(i);
  return names;
}

// Everything MPI_T says about event type `index` (no info object: MPI_Info calls abort
// before MPI_Init in Open MPI 4.1; value names are read after PMPI_Init).
std::unique_ptr<TypeSlot> describe_type(int index) {
  auto slot = std::make_unique<TypeSlot>();
  slot->index = index;
  std::vector<char> name(256, '\0');
  std::vector<MPI_Datatype> datatypes(64, MPI_DATATYPE_NULL);
  std::vector<MPI_Aint> displacements(64, 0);
  for (int attempt = 0; attempt < 2; ++attempt) {
    int name_length = static_cast<int>(name.size());
    int count = static_cast<int>(datatypes.size());
    int verbosity = 0, bind = MPI_T_BIND_NO_OBJECT;
    MPI_T_enum enumtype = MPI_T_ENUM_NULL;
    if (MPI_T_event_get_info(index, name.data(), &name_length, &verbosity, datatypes.data(), displacements.data(),
                             &count, &enumtype, nullptr, nullptr, nullptr, &bind) != MPI_SUCCESS)
      return nullptr;
    if (count < 0) return nullptr;
    if (static_cast<size_t>(count) > datatypes.size() || static_cast<size_t>(name_length) > name.size()) {
      const size_t elements = std::max(datatypes.size(), static_cast<size_t>(count));
      datatypes.assign(elements, MPI_DATATYPE_NULL);
      displacements.assign(elements, 0);
      name.assign(std::max(name.size(), static_cast<size_t>(name_length) + 1), '\0');
      continue;
    }
    slot->bind = bind;
    slot->type.name = c_string(name);
    const std::vector<std::string> names = element_names(enumtype, count);
    for (size_t i = 0; i < static_cast<size_t>(count); ++i) {
      ElementType e;
      e.name = names[i];
      e.displacement = displacements[i] < 0 ? 0 : static_cast<size_t>(displacements[i]);
      classify(datatypes[i], e.kind, e.size);
      slot->displacements.push_back(e.displacement);
      slot->datatypes.push_back(datatypes[i]);
      slot->type.elements.push_back(std::move(e));
    }
    slot->buffer_size = slot->type.copy_buffer_size();
    return slot;
  }
  return nullptr;
}

// After PMPI_Init: value names from the type's info, sizes of datatypes we do not know.
// Returns the updated description (applied under the mutex by the caller) and frees the
// info.
EventType complete_type(TypeSlot& slot) {
  EventType type = slot.type;
  for (size_t i = 0; i < type.elements.size(); ++i) {
    ElementType& e = type.elements[i];
    if (e.size == 0 && slot.datatypes[i] != MPI_DATATYPE_NULL) {
      int size = 0;
      // Unknown basic types print as unsigned integers of their size (or '?').
      if (PMPI_Type_size(slot.datatypes[i], &size) == MPI_SUCCESS && size > 0 && size <= 8) {
        e.kind = ValueKind::unsigned_integer;
        e.size = static_cast<size_t>(size);
      }
    }
  }
  MPI_Info info = slot.info;
  if (info == MPI_INFO_NULL) return type;
  for (ElementType& e : type.elements) {
    const std::string key = value_names_info_key(e.name);
    int length = 0, flag = 0;
    if (PMPI_Info_get_valuelen(info, key.c_str(), &length, &flag) != MPI_SUCCESS || !flag || length <= 0) continue;
    std::vector<char> value(static_cast<size_t>(length) + 1, '\0');
    if (PMPI_Info_get(info, key.c_str(), length, value.data(), &flag) == MPI_SUCCESS && flag)
      e.value_names = split_value_names(c_string(value));
  }
  PMPI_Info_free(&slot.info);
  slot.info = MPI_INFO_NULL;
  return type;
}

// Describes the event types registered since the last call (indices only grow).
void add_new_types(Logger& g) {
  int count = 0;
  if (MPI_T_event_get_num(&count) != MPI_SUCCESS) return;
  const int known = g.types.empty() ? 0 : g.types.back()->index + 1;
  for (int i = known; i < count; ++i) {
    std::unique_ptr<TypeSlot> slot = describe_type(i);
    if (!slot) continue;
    slot->selected = g.wanted.empty() || std::find(g.wanted.begin(), g.wanted.end(), slot->type.name) != g.wanted.end();
    if (slot->selected && MPI_T_event_get_info(i, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr, nullptr,
                                               &slot->info, nullptr, nullptr, nullptr) != MPI_SUCCESS)
      slot->info = MPI_INFO_NULL;
    g.types.push_back(std::move(slot));
  }
}

}  // namespace mpimon::mel
