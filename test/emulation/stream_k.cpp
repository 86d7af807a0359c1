// The last-wave split of runtime/device/helion/stream_k.cuh compiled for the CPU: over
// many tile counts, grid sizes and k-block counts, the units of all CTAs cover every
// (tile, k-block) exactly once; whole units are whole tiles, on CTA t % P; each split
// tile has exactly `pieces` partial units, in the slots firstSlot names, each slot
// used once and below P (the workspace's); piece j starts at the same k in every
// split tile; a CTA's tiles never decrease; the split never costs more (by the
// plan's model) than the whole tile; unitAt numbers the same units (CTA c's are c, c +
// P, ...); a CTA's units are its whole tiles c, c + P, .. and then at most one piece, c
// (the order of gemm_grouped.cuh's consumer loops); and the documented example holds. UnitDeal (the dynamic deal of units) in
// random orders of the CTAs' asks: every unit taken once, the counter back to 0 after
// exactly one reset, by the launch's last ask.
#include <cstdio>
#include <map>
#include <random>
#include <set>
#include <vector>
#define __device__
#define __host__
#define __forceinline__ inline
#include "helion/stream_k.cuh"
#include "expect.h"

using helion::dev::StreamK;
using helion::dev::StreamKUnit;
using helion::dev::StreamKWalk;
using helion::dev::UnitDeal;


static void check(int tiles, int ctas, int kb) {
  const StreamK s = StreamK::plan(tiles, ctas, kb, 2, true);
  std::vector<int> seen(static_cast<size_t>(tiles) * kb, 0);
  std::map<int, std::vector<int>> partial; // tile -> its pieces' slots, in walk order
  std::map<int, int> pieceK;               // piece j -> its first k-block
  std::set<int> slots;
  for (int c = 0; c < s.ctas; ++c) {
    StreamKWalk w(s, c);
    StreamKUnit u;
    int last = -1, n = 0;
    std::vector<StreamKUnit> walked;
    while (w.next(u)) {
      walked.push_back(u);
      const StreamKUnit v = s.unitAt(c + n++ * s.ctas); // unit numbers c, c + P, ...
      EXPECT(v.tile == u.tile && v.k0 == u.k0 && v.k1 == u.k1 && v.slot == u.slot,
             " T=%d P=%d kB=%d c=%d: unitAt", tiles, ctas, kb, c);
      EXPECT(u.tile >= last && u.tile < tiles, " T=%d P=%d kB=%d c=%d tile %d", tiles, ctas, kb,
             c, u.tile);
      last = u.tile;
      EXPECT(0 <= u.k0 && u.k0 <= u.k1 && u.k1 <= kb, " k [%d, %d)", u.k0, u.k1);
      for (int k = u.k0; k < u.k1; ++k)
        ++seen[static_cast<size_t>(u.tile) * kb + k];
      if (u.tile < s.dpTiles) {
        EXPECT(u.slot < 0 && u.k0 == 0 && u.k1 == kb && u.tile % s.ctas == c,
               " whole tile %d on %d", u.tile, c);
        continue;
      }
      EXPECT(u.slot >= 0 && u.slot % s.ctas == c, " piece %d on cta %d", u.slot, c);
      EXPECT(u.k1 - u.k0 >= 1, " empty piece %d", u.slot);
      EXPECT(slots.insert(u.slot).second && u.slot < s.ctas, " slot %d", u.slot);
      const int j = u.slot - s.firstSlot(u.tile);
      EXPECT(0 <= j && j < s.pieces, " slot %d of tile %d", u.slot, u.tile);
      auto [it, fresh] = pieceK.emplace(j, u.k0);
      EXPECT(it->second == u.k0, " piece %d starts at %d and %d", j, it->second, u.k0);
      partial[u.tile].push_back(u.slot);
    }
    EXPECT(c + n * s.ctas >= s.units(), " T=%d P=%d kB=%d c=%d: units past the walk", tiles,
           ctas, kb, c);
    // The order GemmGroupedSm90's consumers take (two loops, not the walk): whole tiles
    // c, c + P, .. below dpTiles, then piece c if there is one.
    std::vector<StreamKUnit> loops;
    for (int t = c; t < s.dpTiles; t += s.ctas)
      loops.push_back({t, 0, kb, -1});
    if (c < s.splitPieces())
      loops.push_back(s.unitAt(s.dpTiles + c));
    EXPECT(loops.size() == walked.size(), " T=%d P=%d kB=%d c=%d: %zu units, the walk %zu",
           tiles, ctas, kb, c, loops.size(), walked.size());
    for (size_t i = 0; i < loops.size() && i < walked.size(); ++i)
      EXPECT(loops[i].tile == walked[i].tile && loops[i].k0 == walked[i].k0 &&
                 loops[i].k1 == walked[i].k1 && loops[i].slot == walked[i].slot,
             " T=%d P=%d kB=%d c=%d: unit %zu", tiles, ctas, kb, c, i);
  }
  for (size_t i = 0; i < seen.size(); ++i)
    EXPECT(seen[i] == 1, " T=%d P=%d kB=%d: tile %zu k %zu seen %d", tiles, ctas, kb, i / kb,
           i % kb, seen[i]);
  EXPECT(static_cast<int>(partial.size()) == tiles - s.dpTiles, " %zu split tiles of %d",
         partial.size(), tiles - s.dpTiles);
  for (auto& [tile, who] : partial)
    EXPECT(static_cast<int>(who.size()) == s.pieces && s.pieces >= 2, " tile %d: %zu pieces",
           tile, who.size());
  if (s.split()) {
    EXPECT(s.dpTiles == tiles / s.ctas * s.ctas, " dpTiles %d", s.dpTiles);
    const int cost = (kb + s.pieces - 1) / s.pieces + 2 * s.pieces + 1;
    EXPECT(cost + 8 <= kb, " T=%d P=%d kB=%d: s %d costs %d", tiles, ctas, kb, s.pieces, cost);
  }
}

// One launch of `ctas` CTAs over `units` units with the counter: each step a random
// active CTA (one with a unit in hand) finishes its unit and asks, as the producer does.
static void checkDeal(int units, int ctas, unsigned seed) {
  const UnitDeal deal{units, ctas};
  std::mt19937 rng(seed);
  std::vector<int> taken(static_cast<size_t>(units), 0);
  std::vector<int> held; // the unit each active CTA holds
  for (int c = 0; c < ctas; ++c)
    if (int i = deal.first(c); i < units)
      held.push_back(i);
  int counter = 0, resets = 0, asks = 0;
  while (!held.empty()) {
    if (asks > units + ctas) { // a deal that never ends
      EXPECT(false, " U=%d P=%d: more than %d asks", units, ctas, units + ctas);
      return;
    }
    const size_t a = rng() % held.size();
    ++taken[static_cast<size_t>(held[a])];
    const int v = counter++; // atomicAdd(nextUnit, 1)
    ++asks;
    EXPECT(resets == 0, " U=%d P=%d: an ask after the reset", units, ctas);
    if (deal.lastAsk(v)) {
      counter = 0; // atomicExch(nextUnit, 0)
      ++resets;
    }
    if (const int i = deal.asked(v); i < units) {
      held[a] = i;
    } else {
      held[a] = held.back();
      held.pop_back();
    }
  }
  for (int i = 0; i < units; ++i)
    EXPECT(taken[static_cast<size_t>(i)] == 1, " U=%d P=%d: unit %d taken %d times", units,
           ctas, i, taken[static_cast<size_t>(i)]);
  EXPECT(asks == units && counter == 0 && resets == (units > 0 ? 1 : 0),
         " U=%d P=%d: %d asks, counter %d, %d resets", units, ctas, asks, counter, resets);
}

int main() {
  // The example at the top of stream_k.cuh.
  const StreamK ex = StreamK::plan(10, 4, 32, 2, true);
  EXPECT(ex.split() && ex.dpTiles == 8 && ex.pieces == 2, " example plan");
  StreamKWalk w1(ex, 1);
  StreamKUnit u;
  w1.next(u);
  EXPECT(u.tile == 1 && u.slot == -1, " example unit 0");
  w1.next(u);
  EXPECT(u.tile == 5 && u.slot == -1, " example unit 1");
  w1.next(u);
  EXPECT(u.tile == 8 && u.k0 == 16 && u.k1 == 32 && u.slot == 1, " example unit 2");
  EXPECT(!w1.next(u), " example end");
  // When it does not split: disabled, full last wave, too few k-blocks to pay.
  EXPECT(!StreamK::plan(10, 4, 32, 2, false).split(), " disabled");
  EXPECT(!StreamK::plan(8, 4, 32, 2, true).split(), " whole waves");
  EXPECT(!StreamK::plan(10, 4, 12, 2, true).split(), " 12 k-blocks: 6 + 5 saves 1");
  EXPECT(!StreamK::plan(10, 4, 1, 2, true).split(), " one k-block");
  // The GPU check's cases (P = 132, kB = 64): 6.18 waves -> 5 pieces; 5.45 waves
  // (R = 59) -> 2; a last wave more than half full (R = 73, 112) stays whole.
  const StreamK r24 = StreamK::plan(816, 132, 64, 2, true);
  EXPECT(r24.split() && r24.pieces == 5 && r24.splitPieces() == 120, " R = 24: %d", r24.pieces);
  EXPECT(StreamK::plan(719, 132, 64, 2, true).pieces == 2, " R = 59");
  EXPECT(!StreamK::plan(865, 132, 64, 2, true).split(), " R = 73");
  EXPECT(!StreamK::plan(640, 132, 64, 2, true).split(), " R = 112");
  EXPECT(StreamK::plan(1, 132, 64, 2, true).pieces == 5, " one tile: 5 pieces");
  int cases = 0;
  for (int ctas : {1, 2, 3, 7, 16, 132})
    for (int tiles = 0; tiles <= 3 * ctas + 5; tiles += 1 + tiles / 40)
      for (int kb : {1, 2, 3, 8, 17, 32, 64, 100}) {
        check(tiles, ctas, kb);
        ++cases;
      }
  int deals = 0;
  for (int ctas : {1, 2, 3, 7, 132})
    for (int units = 0; units <= 3 * ctas + 5; units += 1 + units / 40)
      for (unsigned seed = 0; seed < 4; ++seed, ++deals)
        checkDeal(units, ctas, seed);
  std::printf("stream-K: %d cases, %d deals, %d failures\n", cases, deals, bad);
  return bad == 0 ? 0 : 1;
}
