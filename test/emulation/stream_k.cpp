// The stream-K split of runtime/device/helion/stream_k.cuh compiled for the CPU: over
// many tile counts, grid sizes and k-block counts, the units of all CTAs cover every
// (tile, k-block) exactly once; whole units are whole tiles; each split tile's
// partial units are exactly its contributors, in slots that StreamK::slot names and
// no other unit uses; a CTA's tiles never decrease; CTAs' work differs by at most one
// k-block beyond their whole tiles; and the documented example holds.
#include <cstdio>
#include <map>
#include <set>
#include <vector>
#define __device__
#define __host__
#define __forceinline__ inline
#include "helion/stream_k.cuh"

using helion::dev::StreamK;
using helion::dev::StreamKUnit;
using helion::dev::StreamKWalk;

static int bad = 0;
#define EXPECT(c, ...)                                                                         \
  do {                                                                                         \
    if (!(c) && bad++ < 20) {                                                                  \
      std::printf("FAIL %s:", #c);                                                             \
      std::printf(__VA_ARGS__);                                                                \
      std::printf("\n");                                                                       \
    }                                                                                          \
  } while (0)

static void check(int tiles, int ctas, int kb) {
  const StreamK s = StreamK::plan(tiles, ctas, kb, 2, true);
  std::vector<int> seen(static_cast<size_t>(tiles) * kb, 0);
  std::map<int, std::vector<std::pair<int, int>>> partial; // tile -> (cta, slot)
  std::set<int> slots;
  long long minWork = 1LL << 60, maxWork = 0;
  for (int c = 0; c < s.ctas; ++c) {
    StreamKWalk w(s, c);
    StreamKUnit u;
    int last = -1;
    long long work = 0;
    while (w.next(u)) {
      EXPECT(u.tile >= last && u.tile < tiles, " T=%d P=%d kB=%d c=%d tile %d", tiles, ctas, kb,
             c, u.tile);
      last = u.tile;
      EXPECT(0 <= u.k0 && u.k0 < u.k1 && u.k1 <= kb, " k [%d, %d)", u.k0, u.k1);
      for (int k = u.k0; k < u.k1; ++k)
        ++seen[static_cast<size_t>(u.tile) * kb + k];
      const bool whole = u.k0 == 0 && u.k1 == kb;
      EXPECT(whole == (u.slot < 0), " T=%d P=%d kB=%d slot %d", tiles, ctas, kb, u.slot);
      if (u.tile < s.dpTiles)
        EXPECT(whole && u.tile % s.ctas == c, " whole tile %d on %d", u.tile, c);
      else
        work += u.k1 - u.k0;
      if (!whole) {
        EXPECT(u.slot == s.slot(u.tile, c), " slot %d vs %d", u.slot, s.slot(u.tile, c));
        EXPECT(u.slot >= 2 * c && u.slot <= 2 * c + 1, " slot %d of cta %d", u.slot, c);
        EXPECT(slots.insert(u.slot).second, " slot %d twice", u.slot);
        partial[u.tile].push_back({c, u.slot});
      }
    }
    if (c >= s.skCtas) {
      EXPECT(work == 0, " cta %d past skCtas %d works", c, s.skCtas);
      continue;
    }
    minWork = work < minWork ? work : minWork;
    maxWork = work > maxWork ? work : maxWork;
  }
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT(seen[i] == 1, " T=%d P=%d kB=%d: tile %zu k %zu seen %d", tiles, ctas, kb, i / kb,
           i % kb, seen[i]);
  for (auto& [tile, who] : partial) {
    int first = 0, count = 0;
    s.contributors(tile, first, count);
    EXPECT(count == static_cast<int>(who.size()) && count >= 2, " tile %d: %d contributors, %zu",
           tile, count, who.size());
    for (int j = 0; j < static_cast<int>(who.size()); ++j)
      EXPECT(who[j].first == first + j, " tile %d contributor %d is cta %d", tile, j, who[j].first);
  }
  if (s.split()) {
    EXPECT(s.dpTiles % s.ctas == 0, " dpTiles %d", s.dpTiles);
    EXPECT(maxWork - minWork <= 1, " T=%d P=%d kB=%d: shares %lld..%lld", tiles, ctas, kb,
           minWork, maxWork);
    for (long long i = 0; i < s.skIters; i += 1 + s.skIters / 97) {
      const int o = s.owner(i);
      EXPECT(s.begin(o) <= i && i < s.begin(o + 1), " owner(%lld) = %d", i, o);
    }
  }
}

int main() {
  // The example at the top of stream_k.cuh.
  const StreamK ex = StreamK::plan(10, 4, 32, 2, true);
  EXPECT(ex.split() && ex.dpTiles == 4 && ex.skIters == 192, " example plan");
  StreamKWalk w0(ex, 0);
  StreamKUnit u;
  w0.next(u);
  EXPECT(u.tile == 0 && u.slot == -1, " example unit 0");
  w0.next(u);
  EXPECT(u.tile == 4 && u.k0 == 0 && u.k1 == 32 && u.slot == -1, " example unit 1");
  w0.next(u);
  EXPECT(u.tile == 5 && u.k0 == 0 && u.k1 == 16 && u.slot == 1, " example unit 2");
  EXPECT(!w0.next(u), " example end");
  // When it does not split: disabled, full last wave, too few k-blocks to pay.
  EXPECT(!StreamK::plan(10, 4, 32, 2, false).split(), " disabled");
  EXPECT(!StreamK::plan(8, 4, 32, 2, true).split(), " whole waves");
  EXPECT(!StreamK::plan(10, 4, 8, 2, true).split(), " (4 - 2) * 8 < 32");
  EXPECT(!StreamK::plan(10, 4, 1, 2, true).split(), " one k-block");
  EXPECT(StreamK::plan(896, 132, 64, 2, true).split(), " 6.8 waves of 64 k-blocks");
  int cases = 0;
  for (int ctas : {1, 2, 3, 7, 16, 132})
    for (int tiles = 0; tiles <= 3 * ctas + 5; tiles += 1 + tiles / 40)
      for (int kb : {1, 2, 3, 8, 17, 64}) {
        check(tiles, ctas, kb);
        ++cases;
      }
  std::printf("stream-K: %d cases, %d failures\n", cases, bad);
  return bad == 0 ? 0 : 1;
}
