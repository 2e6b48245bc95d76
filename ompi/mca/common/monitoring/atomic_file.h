// Output files appear whole or not at all: written to a temporary name in the same
// folder, then renamed over the final name.
#pragma once

#include <string>
#include <string_view>

namespace mpimon {

// Returns an empty string on success, otherwise why it failed ("<path>: <reason>"); on
// failure no file is left behind (neither the temporary nor a partial final file).
std::string write_file_atomically(const std::string& path, std::string_view content);

}  // namespace mpimon
