// The corpus's model list (tools/corpus/models.txt) and the other
// one-name-per-line lists next to it, as the corpus tests read them.
#ifndef GRAPHRT_TESTS_CORPUS_MODEL_LIST_H_
#define GRAPHRT_TESTS_CORPUS_MODEL_LIST_H_

#include <string>
#include <vector>

namespace graphrt::testing {

// Runfiles path of the corpus's model list (a data dependency).
inline constexpr char kModelsTxt[] = "tools/corpus/models.txt";

// The first word of every line of `path` that is neither blank nor a '#'
// comment (models.txt, backend_spread.txt); empty if unreadable.
std::vector<std::string> ReadNameList(const char* path = kModelsTxt);

}  // namespace graphrt::testing

#endif  // GRAPHRT_TESTS_CORPUS_MODEL_LIST_H_
