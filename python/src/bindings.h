// The parts of the _mpimon module (python/src/module.cpp), one per kind of input, and the
// helpers they share to hand columns to numpy.
#pragma once

#include <pybind11/numpy.h>
#include <pybind11/pybind11.h>

#include <vector>

namespace mpimon::python {

namespace py = pybind11;

void bind_dumps(py::module_& m);   // job files and .prof dumps: dumps_bindings.cpp
void bind_series(py::module_& m);  // time series: series_bindings.cpp
void bind_events(py::module_& m);  // the event logger's logs: events_bindings.cpp

// A numpy array that owns the vector's storage (moved, not copied).
template <typename T>
py::array_t<T> to_numpy(std::vector<T>&& values) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  return py::array_t<T>(static_cast<py::ssize_t>(owned->size()), owned->data(), free_when_done);
}

// A 2-D numpy array (rows x columns, row-major) owning `values`.
template <typename T>
py::array_t<T> to_numpy_2d(std::vector<T>&& values, size_t columns) {
  auto* owned = new std::vector<T>(std::move(values));
  py::capsule free_when_done(owned, [](void* p) { delete static_cast<std::vector<T>*>(p); });
  const auto rows = static_cast<py::ssize_t>(columns == 0 ? 0 : owned->size() / columns);
  return py::array_t<T>({rows, static_cast<py::ssize_t>(columns)},
                        {static_cast<py::ssize_t>(columns * sizeof(T)), static_cast<py::ssize_t>(sizeof(T))},
                        owned->data(), free_when_done);
}

}  // namespace mpimon::python
