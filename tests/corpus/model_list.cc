#include "tests/corpus/model_list.h"

#include <fstream>
#include <sstream>

namespace graphrt::testing {

std::vector<std::string> ReadNameList(const char* path) {
  std::vector<std::string> names;
  std::ifstream in(path);
  std::string line;
  while (std::getline(in, line)) {
    std::istringstream words(line);
    std::string name;
    if (!(words >> name) || name[0] == '#') continue;
    names.push_back(name);
  }
  return names;
}

}  // namespace graphrt::testing
