#include "live/pvar_handle_check.h"

#include <elf.h>
#include <link.h>
#include <sys/mman.h>
#include <unistd.h>

#include <atomic>
#include <cstdint>
#include <cstring>

#include "runtime/ompi_glue.h"

#include <mpi.h>

#include "mpit_events_producer.h"

namespace mpimon::pvars {
namespace {

using HandleAlloc = int (*)(mca_base_pvar_session_t*, int, void*, mca_base_pvar_handle_t**, int*);
HandleAlloc core_handle_alloc = nullptr;  // Open MPI's mca_base_pvar_handle_alloc

// In front of Open MPI's mca_base_pvar_handle_alloc, which reads *(void**)obj_handle. For
// variables bound to communicators, windows or files, the object is checked first; the core then
// gets the address of a variable holding the object (the standard's form) whether the
// caller passed that or the handle itself.
int checked_handle_alloc(mca_base_pvar_session_t* session, int index, void* obj_handle, mca_base_pvar_handle_t** handle,
                         int* count) {
  const mca_base_pvar_t* pvar = nullptr;
  if (obj_handle != nullptr && mca_base_pvar_get(index, &pvar) == OPAL_SUCCESS && pvar != nullptr &&
      (pvar->bind == MPI_T_BIND_MPI_COMM || pvar->bind == MPI_T_BIND_MPI_WIN || pvar->bind == MPI_T_BIND_MPI_FILE)) {
    void* object = const_cast<void*>(mpimon_mpi_object_named(pvar->bind, obj_handle));
    if (object == nullptr) return OPAL_ERR_BAD_PARAM;  // MPI_T_ERR_INVALID, as for a NULL object
    return core_handle_alloc(session, index, &object, handle, count);
  }
  return core_handle_alloc(session, index, obj_handle, handle, count);
}

#if defined(__x86_64__)

struct Search {
  uintptr_t function;     // an address inside libmpi
  void** slot = nullptr;  // libmpi's GOT entry for mca_base_pvar_handle_alloc
  uintptr_t relro_begin = 0, relro_end = 0;
};

// glibc relocates most d_ptr entries of a loaded object's dynamic section in place.
template <typename T>
T* dynamic_pointer(const dl_phdr_info* object, ElfW(Addr) value) {
  return reinterpret_cast<T*>(value < object->dlpi_addr ? object->dlpi_addr + value : value);
}

int find_slot(dl_phdr_info* object, size_t, void* data) {
  auto* search = static_cast<Search*>(data);
  const ElfW(Dyn)* dynamic = nullptr;
  bool contains = false;
  for (int i = 0; i < object->dlpi_phnum; ++i) {
    const ElfW(Phdr)& ph = object->dlpi_phdr[i];
    const uintptr_t begin = object->dlpi_addr + ph.p_vaddr;
    if (ph.p_type == PT_LOAD && search->function >= begin && search->function < begin + ph.p_memsz) contains = true;
    if (ph.p_type == PT_DYNAMIC) dynamic = reinterpret_cast<const ElfW(Dyn)*>(begin);
    if (ph.p_type == PT_GNU_RELRO) {
      search->relro_begin = begin;
      search->relro_end = begin + ph.p_memsz;
    }
  }
  if (!contains || dynamic == nullptr) return 0;
  const ElfW(Sym)* symbols = nullptr;
  const char* names = nullptr;
  const ElfW(Rela) * tables[2] = {};
  size_t sizes[2] = {};
  for (const ElfW(Dyn)* d = dynamic; d->d_tag != DT_NULL; ++d) {
    switch (d->d_tag) {
      case DT_SYMTAB:
        symbols = dynamic_pointer<const ElfW(Sym)>(object, d->d_un.d_ptr);
        break;
      case DT_STRTAB:
        names = dynamic_pointer<const char>(object, d->d_un.d_ptr);
        break;
      case DT_JMPREL:
        tables[0] = dynamic_pointer<const ElfW(Rela)>(object, d->d_un.d_ptr);
        break;
      case DT_PLTRELSZ:
        sizes[0] = d->d_un.d_val;
        break;
      case DT_RELA:
        tables[1] = dynamic_pointer<const ElfW(Rela)>(object, d->d_un.d_ptr);
        break;
      case DT_RELASZ:
        sizes[1] = d->d_un.d_val;
        break;
      default:
        break;
    }
  }
  if (symbols == nullptr || names == nullptr) return 1;
  for (int t = 0; t < 2; ++t) {
    for (size_t i = 0; tables[t] != nullptr && i < sizes[t] / sizeof(ElfW(Rela)); ++i) {
      const ElfW(Rela)& r = tables[t][i];
      const auto type = ELF64_R_TYPE(r.r_info);
      if (type != R_X86_64_JUMP_SLOT && type != R_X86_64_GLOB_DAT) continue;
      if (std::strcmp(names + symbols[ELF64_R_SYM(r.r_info)].st_name, "mca_base_pvar_handle_alloc") != 0) continue;
      search->slot = reinterpret_cast<void**>(object->dlpi_addr + r.r_offset);
      return 1;
    }
  }
  return 1;  // libmpi found, but it does not import the function
}

// Points libmpi's GOT entry for mca_base_pvar_handle_alloc (the one call site:
// MPI_T_pvar_handle_alloc) at `replacement`.
bool redirect_core_call(void* replacement) {
  Search search{reinterpret_cast<uintptr_t>(&PMPI_T_pvar_handle_alloc)};
  dl_iterate_phdr(find_slot, &search);
  if (search.slot == nullptr) return false;
  const auto address = reinterpret_cast<uintptr_t>(search.slot);
  const bool read_only = address >= search.relro_begin && address < search.relro_end;  // linked -z now
  const uintptr_t page = address & ~(static_cast<uintptr_t>(::sysconf(_SC_PAGESIZE)) - 1);
  if (read_only && ::mprotect(reinterpret_cast<void*>(page), 2 * sizeof(void*), PROT_READ | PROT_WRITE) != 0)
    return false;
  __atomic_store_n(search.slot, replacement, __ATOMIC_RELEASE);
  if (read_only) ::mprotect(reinterpret_cast<void*>(page), 2 * sizeof(void*), PROT_READ);
  return true;
}

#else
bool redirect_core_call(void*) { return false; }
#endif

}  // namespace

bool check_bound_objects() {
  static const bool installed = [] {
    core_handle_alloc = &mca_base_pvar_handle_alloc;
    return redirect_core_call(reinterpret_cast<void*>(&checked_handle_alloc));
  }();
  return installed;
}

}  // namespace mpimon::pvars
