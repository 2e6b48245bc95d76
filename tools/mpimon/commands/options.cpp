#include "options.h"

namespace mpimon::tools {

std::vector<std::string> category_choices() {
  std::vector<std::string> names;
  for (int c = 0; c < kCategoryCount; ++c) names.push_back(category_name(static_cast<Category>(c)));
  names.push_back("all");
  return names;
}

Selection selection_of(const std::string& name) {
  Selection s;
  s.all = name == "all";
  for (int c = 0; c < kCategoryCount; ++c)
    if (name == category_name(static_cast<Category>(c))) s.category = static_cast<Category>(c);
  return s;
}

Metric metric_of(const std::string& name) {
  return name == "bytes" ? Metric::bytes : name == "average" ? Metric::average : Metric::messages;
}

FileFormat file_format_of(const std::string& name) {
  return name == "csv" ? FileFormat::csv : name == "mat" ? FileFormat::mat : FileFormat::matrix_market;
}

}  // namespace mpimon::tools
