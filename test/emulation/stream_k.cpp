// The stream-K split of runtime/device/helion/stream_k.cuh compiled for the CPU: over
// many tile counts, grid sizes and k-block counts, the units of all CTAs cover every
// (tile, k-block) exactly once; whole units are whole tiles; each split tile's
// partial units are exactly its contributors, in slots that StreamK::slot names and
// no other unit uses; a CTA's tiles never decrease; CTAs' work differs by at most one
// k-block beyond their whole tiles; each split tile's pieces start at the same k
// as every other split tile's; and the documented example holds.
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
    EXPECT(s.dpTiles == tiles / s.ctas * s.ctas, " dpTiles %d", s.dpTiles);
    EXPECT(maxWork - minWork <= 1, " T=%d P=%d kB=%d: shares %lld..%lld", tiles, ctas, kb,
           minWork, maxWork);
    const int pieces = s.skCtas / (tiles - s.dpTiles);
    EXPECT(pieces * (tiles - s.dpTiles) == s.skCtas && pieces >= 2, " skCtas %d", s.skCtas);
    for (int c = 0; c < s.skCtas; ++c) // piece c % pieces starts at the same k in every tile
      EXPECT(s.begin(c) - (c / pieces) * static_cast<long long>(kb) ==
                 s.begin(c % pieces),
             " T=%d P=%d kB=%d: cta %d starts at %lld", tiles, ctas, kb, c, s.begin(c));
    for (long long i = 0; i < s.skIters; i += 1 + s.skIters / 97) {
      const int o = s.owner(i);
      EXPECT(s.begin(o) <= i && i < s.begin(o + 1), " owner(%lld) = %d", i, o);
    }
  }
}

int main() {
  // The example at the top of stream_k.cuh.
  const StreamK ex = StreamK::plan(10, 4, 32, 2, true);
  EXPECT(ex.split() && ex.dpTiles == 8 && ex.skIters == 64, " example plan");
  StreamKWalk w1(ex, 1);
  StreamKUnit u;
  w1.next(u);
  EXPECT(u.tile == 1 && u.slot == -1, " example unit 0");
  w1.next(u);
  EXPECT(u.tile == 5 && u.slot == -1, " example unit 1");
  w1.next(u);
  EXPECT(u.tile == 8 && u.k0 == 16 && u.k1 == 32 && u.slot == 2, " example unit 2");
  EXPECT(!w1.next(u), " example end");
  int first = 0, count = 0;
  ex.contributors(8, first, count);
  EXPECT(first == 0 && count == 2, " example contributors");
  // When it does not split: disabled, full last wave, too few k-blocks to pay.
  EXPECT(!StreamK::plan(10, 4, 32, 2, false).split(), " disabled");
  EXPECT(!StreamK::plan(8, 4, 32, 2, true).split(), " whole waves");
  EXPECT(!StreamK::plan(10, 4, 16, 2, true).split(), " (4 - 2) * 16 < 48");
  EXPECT(!StreamK::plan(10, 4, 1, 2, true).split(), " one k-block");
  const StreamK r24 = StreamK::plan(816, 132, 64, 2, true);
  EXPECT(r24.split() && r24.skCtas == 120 && r24.dpTiles == 792, " 6.18 waves: 5 pieces");
  EXPECT(!StreamK::plan(792 + 67, 132, 64, 2, true).split(), " R = 67 > P / 2");
  EXPECT(StreamK::plan(1, 132, 64, 2, true).skCtas == 8, " one tile: 8 pieces at most");
  EXPECT(!StreamK::plan(640, 132, 64, 2, true).split(), " 4.85 waves: (132 - 112) * 64 < 1584");
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
