/* mpimon's C++-clean stand-in for Open MPI 6.0's opal/util/count_disp_array.h, which
 * every component includes (through ompi/datatype/ompi_datatype.h) and which is C only
 * (_Static_assert, _Alignof, const void* converted implicitly). It declares the same
 * interface over the same representation (docs/open-mpi-6.md, "Headers"): an array of
 * counts (or displacements) is an intptr_t holding the array's address, its lowest bit
 * set when the elements are int, clear when they are size_t (ptrdiff_t). Coll modules
 * receive such arrays from Open MPI, so the encoding must be Open MPI's. The _Generic
 * OPAL_*_ARRAY_INIT macros are left out: nothing of ours, nor any installed header we
 * include, uses them. */
#ifndef OPAL_UTIL_COUNT_DISP_ARRAY_H
#define OPAL_UTIL_COUNT_DISP_ARRAY_H

#include <stdbool.h>
#include <stddef.h>
#include <stdint.h>

#include "opal_config.h"

typedef intptr_t opal_count_array_t;
typedef intptr_t opal_disp_array_t;
#define OPAL_COUNT_ARRAY_NULL ((opal_count_array_t)0)
#define OPAL_DISP_ARRAY_NULL ((opal_disp_array_t)0)

/* One family of functions per array kind: prefix, array type, wide element type. */
#define MPIMON_COMPAT_ARRAY_FUNCTIONS(prefix, array_t, wide_t)                                               \
  static inline void prefix##_init(array_t* array, const int* data) { *array = (intptr_t)data | 0x1; }       \
  static inline void prefix##_init_c(array_t* array, const wide_t* data) { *array = (intptr_t)data; }        \
  static inline array_t prefix##_create(const int* data) { return (intptr_t)data | 0x1; }                    \
  static inline array_t prefix##_create_c(const wide_t* data) { return (intptr_t)data; }                     \
  static inline array_t prefix##_create_with_size(const void* data, size_t size) {                           \
    return size == sizeof(int) ? prefix##_create((const int*)data) : prefix##_create_c((const wide_t*)data); \
  }                                                                                                          \
  static inline bool prefix##_is_64bit(array_t array) { return !(array & 0x1) && sizeof(wide_t) == 8; }      \
  static inline size_t prefix##_sizeof(array_t array) {                                                      \
    return prefix##_is_64bit(array) ? sizeof(wide_t) : sizeof(int);                                          \
  }                                                                                                          \
  static inline const void* prefix##_ptr(array_t array) { return (const void*)(array & ~(intptr_t)0x1); }    \
  static inline wide_t prefix##_get(array_t array, size_t i) {                                               \
    if (array & 0x1) return (wide_t)((const int*)(array & ~(intptr_t)0x1))[i];                               \
    return ((const wide_t*)array)[i];                                                                        \
  }                                                                                                          \
  static inline void prefix##_set(array_t array, size_t i, wide_t value) {                                   \
    if (array & 0x1)                                                                                         \
      ((int*)(array & ~(intptr_t)0x1))[i] = (int)value;                                                      \
    else                                                                                                     \
      ((wide_t*)array)[i] = value;                                                                           \
  }

MPIMON_COMPAT_ARRAY_FUNCTIONS(opal_count_array, opal_count_array_t, size_t)
MPIMON_COMPAT_ARRAY_FUNCTIONS(opal_disp_array, opal_disp_array_t, ptrdiff_t)
#undef MPIMON_COMPAT_ARRAY_FUNCTIONS

#define OPAL_COUNT_ARRAY_CREATE(data) opal_count_array_create_with_size((data), sizeof(*(data)))
#define OPAL_DISP_ARRAY_CREATE(data) opal_disp_array_create_with_size((data), sizeof(*(data)))

#endif
