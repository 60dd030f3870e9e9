// Checks of a Chrome-trace document shared by the trace tests: per (pid, tid) the complete events
// are properly nested (each one inside the enclosing one or after it), which is what Perfetto
// needs to stack them as slices.
#pragma once

#include <gtest/gtest.h>

#include <algorithm>
#include <map>
#include <vector>

#include <nlohmann/json.hpp>

namespace tilegemm::trace::test {

// Returns the number of complete events checked.
inline size_t expect_nested_lanes(const nlohmann::json& doc) {
  std::map<std::pair<int, int>, std::vector<const nlohmann::json*>> lanes;
  for (const nlohmann::json& e : doc["traceEvents"])
    if (e["ph"] == "X") lanes[{e["pid"].get<int>(), e["tid"].get<int>()}].push_back(&e);
  size_t n = 0;
  for (auto& [key, events] : lanes) {
    std::stable_sort(events.begin(), events.end(), [](const nlohmann::json* a, const nlohmann::json* b) {
      const double ta = (*a)["ts"], tb = (*b)["ts"];
      return ta < tb || (ta == tb && (*a)["dur"].get<double>() > (*b)["dur"].get<double>());
    });
    std::vector<double> open;  // ends of the enclosing events
    for (const nlohmann::json* e : events) {
      const double ts = (*e)["ts"], end = ts + (*e)["dur"].get<double>();
      EXPECT_GE((*e)["dur"].get<double>(), 0.0);
      while (!open.empty() && open.back() <= ts + 1e-9) open.pop_back();
      if (!open.empty()) EXPECT_LE(end, open.back() + 1e-6) << e->dump() << " overlaps its enclosing event";
      open.push_back(end);
      ++n;
    }
  }
  return n;
}

}  // namespace tilegemm::trace::test
