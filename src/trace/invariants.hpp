// The structure every correct trace of the production kernel has (docs/TRACE.md), checked on a
// decoded trace: the GPU test runs it on fresh traces, the CPU tests on the recorded fixture and on
// broken copies of it. Each violation is one sentence naming the CTA, the lane, the k-block.
//   per lane:   events in append order do not overlap (containers aside: a TILE holds its unit's
//               events, an epilogue its parts), and no step lasts longer than 10 s (an end before
//               its start would wrap around)
//   producer:   per tile, WAIT EMPTY then TMA issue for every k-block in order, on stage g % S
//               where g counts the lane's k-blocks from its first tile on (the ring)
//   consumers:  per tile and k-block, WAIT FULL -> WGMMA issue -> ... -> WGMMA wait -> release on
//               the stage the producer loaded it into, k-blocks in order; then exactly one
//               epilogue; the same tiles in the same order as the producer (ping-pong consumers,
//               BufferHeader::flags: consumer c every other of them from the CTA's tile c)
//   across:     a k-block's TMA issue starts before any consumer's WAIT FULL on it ends, its WGMMA
//               issue starts after that WAIT FULL ends, and the producer's WAIT EMPTY that reuses
//               the stage S k-blocks later ends after every consumer of it began releasing it
#pragma once

#include <string>
#include <vector>

#include "trace/decode.hpp"

namespace tilegemm::trace {

struct InvariantReport {
  std::vector<std::string> violations;  // at most `limit` sentences
  size_t count = 0;                     // all violations found
  uint64_t kblocks_checked = 0, tiles_checked = 0;
  bool ok() const { return count == 0; }
};

// Lanes that overflowed or never finished are skipped (their count is in the decode's problems
// and dropped); everything else is checked.
InvariantReport check_invariants(const DecodedTrace& t, size_t limit = 20);

}  // namespace tilegemm::trace
