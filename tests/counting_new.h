// A test binary that links //tests:counting_new has its global operator new
// (every form) replaced by one that counts calls while counting is on, on
// any thread; operator delete frees as usual. Tests use it to show that a
// steady-state path makes no heap allocation, or that its allocations do
// not grow with the input.
//
//   graphrt::testing::NewCounter counter;   // starts at 0, counting on
//   ... code under test ...
//   EXPECT_EQ(counter.Stop(), 0);           // counting off, calls seen
//
// Only one NewCounter may be active at a time (the count is global).
#ifndef GRAPHRT_TESTS_COUNTING_NEW_H_
#define GRAPHRT_TESTS_COUNTING_NEW_H_

#include <cstdint>

namespace graphrt::testing {

class NewCounter {
 public:
  NewCounter();
  ~NewCounter();  // stops counting if Stop() was not called
  NewCounter(const NewCounter&) = delete;
  NewCounter& operator=(const NewCounter&) = delete;

  // Stops counting; returns the operator-new calls seen since construction.
  int64_t Stop();
};

}  // namespace graphrt::testing

#endif  // GRAPHRT_TESTS_COUNTING_NEW_H_
