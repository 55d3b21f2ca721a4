#include "tests/counting_new.h"

#include <atomic>
#include <cstdlib>
#include <new>

namespace {
std::atomic<bool> counting{false};
std::atomic<int64_t> news{0};

void Count() {
  if (counting.load(std::memory_order_relaxed)) {
    news.fetch_add(1, std::memory_order_relaxed);
  }
}

void* CountedNew(size_t n) {
  Count();
  void* p = std::malloc(n == 0 ? 1 : n);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}

void* CountedAlignedNew(size_t n, std::align_val_t al) {
  Count();
  const size_t a = static_cast<size_t>(al);
  const size_t rounded = (n + a - 1) / a * a;
  void* p = std::aligned_alloc(a, rounded == 0 ? a : rounded);
  if (p == nullptr) throw std::bad_alloc();
  return p;
}
}  // namespace

namespace graphrt::testing {

NewCounter::NewCounter() {
  news.store(0);
  counting.store(true);
}
NewCounter::~NewCounter() { counting.store(false); }
int64_t NewCounter::Stop() {
  counting.store(false);
  return news.load();
}

}  // namespace graphrt::testing

void* operator new(size_t n) { return CountedNew(n); }
void* operator new[](size_t n) { return CountedNew(n); }
void* operator new(size_t n, const std::nothrow_t&) noexcept {
  try {
    return CountedNew(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new[](size_t n, const std::nothrow_t&) noexcept {
  try {
    return CountedNew(n);
  } catch (...) {
    return nullptr;
  }
}
void* operator new(size_t n, std::align_val_t al) {
  return CountedAlignedNew(n, al);
}
void* operator new[](size_t n, std::align_val_t al) {
  return CountedAlignedNew(n, al);
}
void operator delete(void* p) noexcept { std::free(p); }
void operator delete[](void* p) noexcept { std::free(p); }
void operator delete(void* p, size_t) noexcept { std::free(p); }
void operator delete[](void* p, size_t) noexcept { std::free(p); }
void operator delete(void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete[](void* p, std::align_val_t) noexcept { std::free(p); }
void operator delete(void* p, size_t, std::align_val_t) noexcept {
  std::free(p);
}
void operator delete[](void* p, size_t, std::align_val_t) noexcept {
  std::free(p);
}
