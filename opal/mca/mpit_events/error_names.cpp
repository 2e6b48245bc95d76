// MPI_Error_string / MPI_Error_class for the two MPI 4.0 error classes Open MPI 4.1 does
// not know. libmpi defines both as weak symbols: these win when the application links
// this library before libmpi (or preloads it); every other code goes to the PMPI ones.
#include <algorithm>
#include <cstring>

#include "mpit_events.h"

namespace {

const char* mpit_error_name(int code) {
  switch (code) {
    case MPI_T_ERR_NOT_ACCESSIBLE:
      return "MPI_T_ERR_NOT_ACCESSIBLE: the MPI_T function may not be called from this context (an event callback)";
    case MPI_T_ERR_NOT_SUPPORTED:
      return "MPI_T_ERR_NOT_SUPPORTED: the requested MPI_T functionality is not supported";
    default:
      return nullptr;
  }
}

}  // namespace

extern "C" {

int MPI_Error_string(int errorcode, char* string, int* resultlen) {
  const char* name = mpit_error_name(errorcode);
  if (name == nullptr) return PMPI_Error_string(errorcode, string, resultlen);
  if (string == nullptr || resultlen == nullptr) return MPI_ERR_ARG;
  const std::size_t n = std::min(std::strlen(name), static_cast<std::size_t>(MPI_MAX_ERROR_STRING - 1));
  std::memcpy(string, name, n);
  string[n] = '\0';
  *resultlen = static_cast<int>(n);
  return MPI_SUCCESS;
}

int MPI_Error_class(int errorcode, int* errorclass) {
  if (mpit_error_name(errorcode) == nullptr) return PMPI_Error_class(errorcode, errorclass);
  if (errorclass == nullptr) return MPI_ERR_ARG;
  *errorclass = errorcode;  // both are classes
  return MPI_SUCCESS;
}

}  // extern "C"
