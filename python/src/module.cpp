// mpimon._mpimon: the Python bindings of the project's own readers (pybind11). Every format
// is parsed by the C++ reader the tools use (readers/, tools/mpimon/dumps.h, the event
// log reader here): no second parser in Python. What crosses into Python is columns
// (numpy arrays, one per field) and small lists; python/mpimon/ turns them into
// DataFrames and matrices. A malformed input raises mpimon.FormatError with the tools'
// message ("<file>:<line>: expected ..."), a bad argument ValueError.
#include <pybind11/pybind11.h>
#include <pybind11/stl.h>

#include "bindings.h"
#include "readers/format_error.h"

namespace py = pybind11;

PYBIND11_MODULE(_mpimon, m) {
  m.doc() = "mpimon's readers (C++), for the mpimon package: use mpimon.read_job and friends instead.";
  // A subclass of ValueError: code that catches ValueError for bad data keeps working.
  static py::exception<mpimon::FormatError> format_error(m, "FormatError", PyExc_ValueError);
  py::register_exception_translator([](std::exception_ptr p) {
    try {
      if (p) std::rethrow_exception(p);
    } catch (const mpimon::FormatError& e) {
      format_error(e.what());
    }
  });
  mpimon::python::bind_dumps(m);
  mpimon::python::bind_series(m);
  mpimon::python::bind_events(m);
}
