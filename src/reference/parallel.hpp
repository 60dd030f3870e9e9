// A tiny std::thread fan-out for the host references (no thread pool: each call starts and joins
// its workers; the work items here are milliseconds to seconds long).
#pragma once

#include <algorithm>
#include <atomic>
#include <cstdint>
#include <thread>
#include <vector>

namespace tilegemm::ref {

// Worker count: hardware threads, at least 1.
inline unsigned worker_count() {
  const unsigned hw = std::thread::hardware_concurrency();
  return hw == 0 ? 1 : hw;
}

// Calls body(item) for every item in [0, n_items), items handed out dynamically to the workers.
template <typename Body>
void parallel_for_items(int64_t n_items, Body&& body) {
  if (n_items <= 0) return;
  const unsigned n_workers = static_cast<unsigned>(std::min<int64_t>(worker_count(), n_items));
  if (n_workers == 1) {
    for (int64_t i = 0; i < n_items; ++i) body(i);
    return;
  }
  std::atomic<int64_t> next{0};
  auto worker = [&] {
    for (int64_t i = next.fetch_add(1); i < n_items; i = next.fetch_add(1)) body(i);
  };
  std::vector<std::thread> threads;
  threads.reserve(n_workers - 1);
  for (unsigned t = 1; t < n_workers; ++t) threads.emplace_back(worker);
  worker();
  for (auto& t : threads) t.join();
}

// Calls body(begin, end) over contiguous chunks of [0, n) of about `chunk` elements.
template <typename Body>
void parallel_for_range(int64_t n, int64_t chunk, Body&& body) {
  if (n <= 0) return;
  chunk = std::max<int64_t>(chunk, 1);
  const int64_t n_chunks = (n + chunk - 1) / chunk;
  parallel_for_items(n_chunks, [&](int64_t c) { body(c * chunk, std::min(n, (c + 1) * chunk)); });
}

}  // namespace tilegemm::ref
