// The config passes on hand-built kernels: apply-config (block sizes, reduction loops,
// unroll factors, eviction hints and the launch resolved once), grid-mapping (pid type,
// tile order, L2 group per grid loop) and thread-layout (which kernels get one), and the
// verifier's checks of their decisions. The layouts, and the hoisted and staged loads of
// persistent-loads, are checked on typed kernels in lit (Passes/thread-layout.cpp,
// Passes/persistent-loads.cpp).
#include "../config/TestKernels.h"
#include "helion/Config/Config.h"
#include "helion/Config/ConfigSpec.h"
#include "helion/IR/Printer.h"
#include "helion/Transforms/Passes.h"

#include <catch2/catch.hpp>
#include <sstream>

using namespace helion;
using namespace helion::ir;

namespace {

struct Ctx {
  std::ostringstream out;
  DiagnosticEngine diags{out};
  config::Config config;
  PassContext pass() { return PassContext{diags, &config}; }
};

/// The matmul kernel with a grid loop of one tile (over tk) before its 2-tile one.
Kernel oneTileThenTwo() {
  Kernel k = config::test::matmulKernel();
  auto first = std::make_shared<Stmt>();
  first->kind = StmtKind::For;
  first->tiles = {2};
  k.body.insert(k.body.begin(), first);
  return k;
}

bool verifies(const Kernel& k, std::string* text = nullptr) {
  std::ostringstream out;
  DiagnosticEngine diags(out);
  bool ok = verifyKernel(k, diags, "test", false);
  if (text)
    *text = out.str();
  return ok;
}

} // namespace

TEST_CASE("apply-config: fixed sizes keep their value, tunable ones take block_sizes", "[passes]") {
  Ctx c;
  c.config.blockSizes = {128};
  PassContext ctx = c.pass();
  Kernel k = applyConfig(config::test::twoPassKernel(), ctx);
  REQUIRE(k.blockSizes.size() == 2);
  CHECK(k.blockSizes[0].chosen == 16); // block_m, fixed by the source
  CHECK(k.blockSizes[0].configIndex == -1);
  CHECK(k.blockSizes[1].chosen == 128);
  CHECK(k.blockSizes[1].configIndex == 0);
  CHECK(printKernel(k).find("bs1(block_n) = 128 (block_sizes[0])") != std::string::npos);
  c.config.blockSizes = {}; // too few entries: 64, as every reader did before the pass
  Kernel d = applyConfig(config::test::twoPassKernel(), ctx);
  CHECK(d.blockSizes[1].chosen == 64);
  CHECK(verifies(d));
}

TEST_CASE("apply-config: each reduction axis persistent or looped by reduction_loops",
          "[passes]") {
  Ctx c;
  PassContext ctx = c.pass();
  CHECK(config::test::softmaxKernel().axes[0].loopChunk == -1); // not decided yet
  c.config.reductionLoops = {1024};
  Kernel looped = applyConfig(config::test::softmaxKernel(), ctx);
  CHECK(looped.axes[0].loopChunk == 1024);
  CHECK(looped.axes[0].looped());
  CHECK(printKernel(looped).find("axes: a0(%x.size(1)) looped 1024\n") != std::string::npos);
  c.config.reductionLoops = {std::nullopt};
  Kernel persistent = applyConfig(config::test::softmaxKernel(), ctx);
  CHECK(persistent.axes[0].loopChunk == 0);
  CHECK(printKernel(persistent).find("axes: a0(%x.size(1)) persistent\n") != std::string::npos);
  c.config.reductionLoops = {}; // too few entries: persistent, as the emitter read it
  CHECK(applyConfig(config::test::softmaxKernel(), ctx).axes[0].loopChunk == 0);
  CHECK(verifies(looped));
}

TEST_CASE("apply-config: range_unroll_factors on the inner loops, in pre-order", "[passes]") {
  Ctx c;
  c.config.rangeUnrollFactors = {3}; // the second inner loop has no entry: 0
  PassContext ctx = c.pass();
  Kernel k = applyConfig(config::test::twoPassKernel(), ctx);
  const Stmt& grid = *k.body[0];
  CHECK(grid.unroll == -1); // a grid loop takes no entry
  CHECK(grid.body[0]->unroll == 3);
  CHECK(grid.body[0]->unrollEntry == 0);
  CHECK(grid.body[1]->unroll == 0);
  CHECK(grid.body[1]->unrollEntry == -1);
  const std::string text = printKernel(k);
  CHECK(text.find("block bs1 unroll 3 = range_unroll_factors[0] {") != std::string::npos);
  CHECK(text.find("%tn2 in tile(0, 1024) block bs1 {") != std::string::npos);
  CHECK(verifies(k));
}

TEST_CASE("apply-config: load_eviction_policies on the hintable loads only", "[passes]") {
  Ctx c;
  // Load 0 is the let's x[tm, tn]; load 1, in a store, is not hintable.
  c.config.loadEvictionPolicies = {config::EvictionPolicy::Last, config::EvictionPolicy::First};
  PassContext ctx = c.pass();
  Kernel k = applyConfig(config::test::twoPassKernel(), ctx);
  const Expr& hinted = *k.body[0]->body[0]->body[0]->value;
  CHECK(hinted.eviction == Eviction::Last);
  CHECK(hinted.evictionEntry == 0);
  CHECK(k.body[0]->body[1]->body[0]->value->eviction == Eviction::None);
  CHECK(printKernel(k).find("load %x[%tm, %tn] evict_last (load_eviction_policies[0])") !=
        std::string::npos);
  CHECK(verifies(k));
  // A load two statements share stays one node (one site), hinted once.
  Kernel shared = config::test::softmaxKernel();
  auto loop = std::make_shared<Stmt>(*shared.body[0]);
  auto st = std::make_shared<Stmt>(*loop->body[1]);
  st->value = makeUnary(UnaryOp::Exp, loop->body[0]->value);
  loop->body[1] = st;
  shared.body[0] = loop;
  c.config.loadEvictionPolicies = {config::EvictionPolicy::First};
  Kernel s = applyConfig(shared, ctx);
  CHECK(s.body[0]->body[0]->value->eviction == Eviction::First);
  CHECK(s.body[0]->body[0]->value == s.body[0]->body[1]->value->operands[0]);
}

TEST_CASE("apply-config: the launch of a kernel the generic emitter prints", "[passes]") {
  Ctx c;
  c.config.numWarps = 64; // past 32 warps: 1024 threads
  c.config.maxnreg = 96;
  c.config.numSmMultiplier = 2;
  PassContext ctx = c.pass();
  Kernel k = applyConfig(config::test::softmaxKernel(), ctx);
  REQUIRE(k.launch);
  CHECK(k.launch->threads == 1024);
  CHECK(k.launch->maxnreg == 96);
  CHECK(k.launch->vectorBytes == 16); // vector_bytes 0: the widest
  CHECK(k.launch->smMultiplier == 2);
  CHECK(printKernel(k).find(
            "  launch: threads 1024, vector_bytes 16, num_sm_multiplier 2, maxnreg 96\n") !=
        std::string::npos);
  CHECK(verifies(k));
  c.config.numWarps = 4;
  c.config.vectorBytes = 8;
  c.config.maxnreg.reset();
  Kernel d = applyConfig(config::test::softmaxKernel(), ctx);
  CHECK(d.launch == Launch{128, std::nullopt, 8, 2});
  // A template plans its own launch.
  CHECK_FALSE(applyConfig(config::test::matmulKernel(), ctx).launch);
}

TEST_CASE("grid-mapping numbers l2_groupings over 2-tile loops, not by position", "[passes]") {
  Ctx c;
  c.config.l2Groupings = {4};
  PassContext ctx = c.pass();
  Kernel k = gridMapping(oneTileThenTwo(), ctx);
  REQUIRE(k.body[0]->grid);
  REQUIRE(k.body[1]->grid);
  CHECK(k.body[0]->grid->l2Group == 1);
  CHECK(k.body[0]->grid->l2Entry == -1);
  CHECK(k.body[0]->grid->order == std::vector<int>{2});
  CHECK(k.body[1]->grid->l2Group == 4);
  CHECK(k.body[1]->grid->l2Entry == 0);
  CHECK(k.body[1]->grid->order == std::vector<int>{0, 1});
  CHECK(printKernel(k).find("grid(flat, order [%tm, %tn], l2_group 4 = l2_groupings[0])") !=
        std::string::npos);
  CHECK(verifies(k));
}

TEST_CASE("grid-mapping applies loop_orders and pid_type", "[passes]") {
  Ctx c;
  c.config.loopOrders = {{1, 0}};
  c.config.pidType = config::PidType::PersistentBlocked;
  PassContext ctx = c.pass();
  Kernel k = gridMapping(oneTileThenTwo(), ctx);
  CHECK(k.body[1]->grid->order == std::vector<int>{1, 0});
  CHECK(k.body[1]->grid->loopOrderEntry == 0);
  CHECK(k.body[0]->grid->pid == GridMapping::Pid::PersistentBlocked);
  CHECK(k.body[1]->grid->pid == GridMapping::Pid::PersistentBlocked);
  // A loop order that is not a permutation leaves the source order.
  c.config.loopOrders = {{1, 1}};
  Kernel bad = gridMapping(oneTileThenTwo(), ctx);
  CHECK(bad.body[1]->grid->order == std::vector<int>{0, 1});
}

TEST_CASE("grid-mapping makes xyz only the single grid loop of at most 3 tiles", "[passes]") {
  Ctx c;
  c.config.pidType = config::PidType::Xyz;
  c.config.l2Groupings = {8};
  PassContext ctx = c.pass();
  Kernel single = gridMapping(config::test::matmulKernel(), ctx);
  CHECK(single.body[0]->grid->pid == GridMapping::Pid::Xyz);
  CHECK(single.body[0]->grid->l2Group == 1); // blockIdx.x/y index the tiles: no grouping
  Kernel two = gridMapping(oneTileThenTwo(), ctx);
  CHECK(two.body[0]->grid->pid == GridMapping::Pid::Flat);
  CHECK(two.body[1]->grid->pid == GridMapping::Pid::Flat);
  CHECK(two.body[1]->grid->l2Group == 8);
}

TEST_CASE("the verifier checks the decisions", "[passes][verify]") {
  Ctx c;
  PassContext ctx = c.pass();
  Kernel k = gridMapping(oneTileThenTwo(), ctx);
  std::string text;
  auto loop = std::make_shared<Stmt>(*k.body[1]);
  loop->grid->order = {0, 0};
  k.body[1] = loop;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a grid mapping whose order is not a permutation of its loop's tiles") !=
        std::string::npos);
  loop->grid->order = {0, 1};
  loop->grid->pid = GridMapping::Pid::Xyz;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("an xyz grid mapping of a kernel with several grid loops") != std::string::npos);
  loop->grid->pid = GridMapping::Pid::Flat;
  auto first = std::make_shared<Stmt>(*k.body[0]);
  first->grid->l2Group = 2;
  k.body[0] = first;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("an l2 group of 2 on a loop of 1 tiles") != std::string::npos);
  first->grid->l2Group = 1;
  // A mapping on a nested loop.
  auto inner = std::make_shared<Stmt>(*loop->body[1]);
  inner->grid = GridMapping{GridMapping::Pid::Flat, {2}, 1, -1, -1};
  loop->body[1] = inner;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a grid mapping on a nested tile loop") != std::string::npos);
  // A chosen block size below 1.
  Kernel a = config::test::matmulKernel();
  a.blockSizes[0].chosen = 0;
  CHECK_FALSE(verifies(a, &text));
  CHECK(text.find("block size 'tm' chosen as 0") != std::string::npos);
  // A negative chunk of a reduction axis.
  Kernel r = config::test::softmaxKernel();
  r.axes[0].loopChunk = -2;
  CHECK_FALSE(verifies(r, &text));
  CHECK(text.find("reduction axis a0 looped in chunks of -2") != std::string::npos);
}

TEST_CASE("thread-layout skips the kernels a template prints", "[passes]") {
  Ctx c;
  PassContext ctx = c.pass();
  CHECK_FALSE(threadLayout(applyConfig(config::test::matmulKernel(), ctx), ctx).threadLayout);
  Kernel k = threadLayout(applyConfig(config::test::softmaxKernel(), ctx), ctx);
  REQUIRE(k.threadLayout);
  CHECK(verifies(k));
}

TEST_CASE("the verifier checks the thread layout", "[passes][verify]") {
  Ctx c;
  PassContext ctx = c.pass();
  Kernel k = applyConfig(config::test::softmaxKernel(), ctx);
  std::string text;
  k.threadLayout = std::vector<ThreadAxis>{{false, 0, true, {}}, {true, 0, false, {0}}};
  CHECK(verifies(k));
  CHECK(printKernel(k).find("  thread_layout: a0 inner | t0(tm) after [a0]\n") !=
        std::string::npos);
  k.threadLayout = std::vector<ThreadAxis>{};
  CHECK(verifies(k));
  CHECK(printKernel(k).find("  thread_layout: none\n") != std::string::npos);
  k.threadLayout = std::vector<ThreadAxis>{{true, 0, false, {}}, {true, 0, false, {}}};
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a thread layout with tile 0 twice") != std::string::npos);
  k.threadLayout = std::vector<ThreadAxis>{{true, 0, false, {0}}};
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a thread layout whose tile 0 goes after position 0") != std::string::npos);
  k.threadLayout = std::vector<ThreadAxis>{
      {false, 0, false, {}}, {true, 0, false, {}}, {true, 5, false, {1, 0}}};
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a thread layout over tile 5, out of range") != std::string::npos);
  CHECK(text.find("goes after position 0 (not an earlier axis, or out of order)") !=
        std::string::npos);
  // A reduction axis that apply-config has not decided.
  Kernel undecided = config::test::softmaxKernel();
  undecided.threadLayout = std::vector<ThreadAxis>{{false, 0, false, {}}};
  CHECK_FALSE(verifies(undecided, &text));
  CHECK(text.find("a thread layout over axis 0, neither persistent nor looped") !=
        std::string::npos);
}

TEST_CASE("the verifier checks unroll factors, hints, launches and moved loads",
          "[passes][verify]") {
  Ctx c;
  c.config.pidType = config::PidType::PersistentBlocked;
  PassContext ctx = c.pass();
  std::string text;
  Kernel k = gridMapping(applyConfig(config::test::softmaxKernel(), ctx), ctx);
  REQUIRE(verifies(k));
  auto loop = std::make_shared<Stmt>(*k.body[0]);
  k.body[0] = loop;
  loop->unroll = 2;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("an unroll factor of 2 on a grid loop") != std::string::npos);
  loop->unroll = -1;
  loop->stages = 1;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("1 stages of staged loads") != std::string::npos);
  loop->stages = 0;
  auto let = std::make_shared<Stmt>(*loop->body[0]);
  loop->body[0] = let;
  let->hoisted = true; // a persistent loop's load: fine
  CHECK(verifies(k));
  let->hoisted = false;
  let->staged = true; // but staged in a loop without stages
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a staged statement that is not a load's let directly in a persistent grid "
                  "loop with stages") != std::string::npos);
  loop->stages = 2;
  CHECK(verifies(k));
  auto flat = std::make_shared<Stmt>(*loop);
  flat->grid->pid = GridMapping::Pid::Flat;
  k.body[0] = flat;
  CHECK_FALSE(verifies(k, &text));
  k.body[0] = loop;
  let->staged = false;
  // A hint on a node that is not a load.
  auto st = std::make_shared<Stmt>(*loop->body[1]);
  auto exp = std::make_shared<Expr>(*st->value);
  exp->eviction = Eviction::First;
  st->value = exp;
  loop->body[1] = st;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("an eviction hint on a node that is not a load") != std::string::npos);
  exp->eviction = Eviction::None;
  REQUIRE(verifies(k));
  k.launch->threads = 48;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("a launch of 48 threads") != std::string::npos);
}

TEST_CASE("template-plan stores the matmul template's parameters, or reports the rules",
          "[passes]") {
  Ctx ctx;
  Kernel mm = config::test::matmulKernel();
  ctx.config = config::ConfigSpec::fromKernel(mm).defaultConfig();
  PassContext pc = ctx.pass();
  Kernel planned = templatePlan(mm, pc);
  REQUIRE(planned.gemm);
  CHECK_FALSE(planned.flash);
  CHECK(planned.gemm->bn == 256);
  CHECK(printKernel(planned).find("template: gemm sm90 128x256 stages 4 consumers 2 persistent "
                                  "group_m 8 tma_store; sm80 128x256 stages 4") != std::string::npos);
  CHECK(verifies(planned));
  CHECK(ctx.out.str().empty());

  // A config that did not come through validate() meets the same rules, the spec's
  // ranges included, as errors at the grid loop.
  ctx.config.numWarps = 4;
  ctx.config.blockSizes[2] = 32;
  PassContext bad = ctx.pass();
  Kernel unplanned = templatePlan(mm, bad);
  CHECK_FALSE(unplanned.gemm);
  CHECK(ctx.out.str().find("config: num_warps: expected 8 or 12 for the sm90 matmul") !=
        std::string::npos);
  CHECK(ctx.out.str().find("config: block_sizes[2]: expected 64 for 'tk'") != std::string::npos);

  // A kernel no template prints gets none.
  Ctx generic;
  Kernel tiled = config::test::tiledKernel();
  generic.config = config::ConfigSpec::fromKernel(tiled).defaultConfig();
  PassContext gpc = generic.pass();
  Kernel plain = templatePlan(tiled, gpc);
  CHECK_FALSE(plain.gemm);
  CHECK_FALSE(plain.flash);
}

TEST_CASE("the verifier checks a template's parameters", "[passes][verify]") {
  std::string text;
  Kernel mm = config::test::matmulKernel();
  mm.gemm = GemmParams{};
  CHECK(verifies(mm));
  mm.gemm->consumers = 3;
  CHECK_FALSE(verifies(mm, &text));
  CHECK(text.find("matmul template parameters out of range") != std::string::npos);
  mm.gemm = GemmParams{};
  mm.flash = AttentionParams{};
  CHECK_FALSE(verifies(mm, &text));
  CHECK(text.find("both matmul and attention template parameters") != std::string::npos);

  Kernel tiled = config::test::tiledKernel(); // no dot: no template prints it
  tiled.gemm = GemmParams{};
  CHECK_FALSE(verifies(tiled, &text));
  CHECK(text.find("matmul template parameters on a kernel the matmul template does not print") !=
        std::string::npos);
}

TEST_CASE("the verifier checks online-softmax pairs", "[passes][verify]") {
  std::string text;
  Kernel k = config::test::tiledKernel(); // let %acc = 0 first in the grid loop
  auto loop = std::make_shared<Stmt>(*k.body[0]);
  auto let = std::make_shared<Stmt>(*loop->body[0]);
  let->fused = true; // no max names it, and it is no sum
  loop->body[0] = let;
  k.body[0] = loop;
  CHECK_FALSE(verifies(k, &text));
  CHECK(text.find("an online softmax pair that is not a max let and a later fused sum let") !=
        std::string::npos);
  let->fused = false;
  let->onlineSum = 0; // names itself, not a later sum
  CHECK_FALSE(verifies(k));
  let->onlineSum = -1;
  CHECK(verifies(k));
}
