// The one error every reader of our formats (and of the user's input files) throws: a
// malformed or unreadable file, with a message that names the file and the place.
#pragma once

#include <stdexcept>

namespace mpimon {

// A malformed file: what() reads "<source>:<line>: <what was expected>".
class FormatError : public std::runtime_error {
 public:
  using std::runtime_error::runtime_error;
};

}  // namespace mpimon
