//===- EmitterState.h - The CUDA emitter's private state -------------------===//
//
// Shared by EmitKernel.cpp (signature, layout, grid mapping), EmitExpr.cpp
// (elementwise expressions), EmitStmt.cpp (statements, element and inner loops),
// EmitAccess.cpp (addressing, loads), EmitStore.cpp (stores, atomic adds), EmitReduce.cpp
// (reductions) and EmitStaging.cpp (staged loads), among others. Not a public header.
//===----------------------------------------------------------------------===//
#pragma once

#include "CudaNames.h"
#include "helion/IR/LayoutIndex.h"
#include "helion/CodeGen/CudaEmitter.h"

#include <map>
#include <set>
#include <sstream>

namespace helion::codegen {

/// An axis's part in the mma layout of a kernel's dots (MmaLayout.cpp).
using ir::MmaRole;

/// One axis of the CTA's layout: a tile variable or a reduction axis.
struct LayoutAxis {
  bool isTile = true;
  int id = -1;           ///< tile id or axis id
  std::string key;       ///< "t0" / "a0": suffix of the emitted names (S_t0, th_t0, i_t0, c_t0)
  std::string size;      ///< constexpr C++ text of S
  bool inner = false;    ///< vectorized innermost axis
  bool looped = false;   ///< a reduction axis processed in chunks
  std::vector<int> after; ///< earlier axes that share a value with this one: threads go past them
  MmaRole mma = MmaRole::None; ///< a row or column axis of the mma layout: fixed threads
};

class Emitter {
public:
  /// `k` as the config passes decided it: the emitter reads no config of its own.
  Emitter(const ir::Kernel& k, const EmitOptions& o, DiagnosticEngine& d)
      : k_(k), opts_(o), diags_(d) {}
  std::optional<EmittedKernel> run();
  using AxisKey = std::pair<bool, int>; ///< (isTile, tile or axis id), before axes_ exist

private:
  // EmitKernel.cpp, Layout.cpp
  void planLayout(); ///< reads the thread-layout pass's layout into axes_ and its tables
  void planParams();
  int64_t tileBlockSize(int tile) const;
  /// The pid mapping grid-mapping chose (the same for every grid loop of a kernel).
  ir::GridMapping::Pid gridPid() const {
    return k_.body.empty() || !k_.body.front()->grid ? ir::GridMapping::Pid::Flat
                                                     : k_.body.front()->grid->pid;
  }
  /// persistent_blocked / persistent_interleaved: a program loops over tiles.
  bool persistentGrid() const {
    return gridPid() == ir::GridMapping::Pid::PersistentBlocked ||
           gridPid() == ir::GridMapping::Pid::PersistentInterleaved;
  }
  void emitSignature();
  void emitLayoutConstants();
  void emitGridLoop(const ir::Stmt& loop, int loopIndex, const std::string& pidBase);
  void emitTileDecode(const ir::GridMapping& grid);
  // EmitStaging.cpp: loads of the next tiles through shared memory (block_ptr)
  void planStaging(const ir::Stmt& loop);
  void emitStagingBuffers(int stages);
  void emitStagedIssue(const std::string& slot);
  std::string stagedSlot(const ir::Stmt& s) const; ///< this thread's slot (element loops open)
  /// `hd::Evict::first` / `last` as apply-config hinted the load, or "" (no hint).
  std::string evictionOf(const ir::Expr& load) const;

  // EmitExpr.cpp
  std::string expr(const ir::Expr& e);         ///< in the current element context
  std::string scalarExpr(const ir::Expr& e);   ///< a rank-0 value (no element context)
  /// The end of tile `t`'s range: numel of the tensor for `hl::tile(t.sizes())`.
  std::string tileEnd(int t);
  std::string computeType(const ir::ElemType& t) const;
  std::string storageType(const ir::ElemType& t) const;
  std::vector<int> axesOf(const ir::BlockType& t) const; ///< layout axis indices, ascending
  std::string elementRef(const std::string& name, const std::vector<int>& axes) const;
  std::string absCoord(int axis) const;  ///< absolute coordinate of c_<axis>
  /// absCoord's replacement for some axes while a tile's first element is printed.
  std::map<int, std::string> coordOverride_;
  /// The registers a thread may use when the kernel's launch bounds or `maxnreg` cap
  /// them (a C++ expression of the kernel body), else "" (EmitKernel.cpp).
  std::string regCap_;
  std::string inBounds(int axis) const;  ///< predicate: c_<axis> is inside the tile / extent
  std::string axisExtent(int axis) const;

  // EmitReduce.cpp
  void emitReduce(const ir::Stmt& s, const ir::Expr& red, bool declare);
  /// The layout axis a reduction over dim `d` runs along; -1 for a dim of size one.
  int reducedAxis(const ir::Dim& d) const;
  /// The element loops over a reduction's output axes; a scalar output (a row of
  /// hl::grid) gets a block of its own instead, so that the locals of two reductions in
  /// one body (acc, m_all, ...) do not collide.
  void openReductionOutput(const std::vector<int>& outAxes);
  void closeReductionOutput(const std::vector<int>& outAxes);
  /// A looped reduction's loop over the chunks of `axis` (off_<axis> += S_<axis>), with
  /// the deferred values `operand` needs emitted inside it; the chunk is active until
  /// closeChunkLoop.
  void openChunkLoop(int axis, const ir::Expr& operand);
  void closeChunkLoop(int axis);
  // EmitScan.cpp
  void emitScan(const ir::Stmt& s, const ir::Expr& scan, bool declare);
  void deferLoopedScan(const ir::Stmt& s, const ir::Expr& scan, int axis, int looped);
  void emitScanRounds(const ir::Stmt& s, const ir::Expr& scan, int axis, const std::string& ident);
  // EmitArgReduce.cpp
  void emitArgReduce(const ir::Stmt& s, const ir::Expr& red, bool declare);
  /// The let the online-softmax pass paired with `maxLet` (Stmt::onlineSum) in this body.
  const ir::Stmt* onlineSumPartner(const ir::Stmt& maxLet) const;

  // EmitDot.cpp: dots the templates do not take, through shared memory (mma.sync)
  struct DotDim {
    int axis;          ///< layout axis, or -1 for a dim of size one
    std::string size;  ///< S_<axis> or 1
    std::string coord; ///< c_<axis> or 0 (inside the axis's element loop)
    std::string bound; ///< inBounds(axis) or true
  };
  DotDim dotDim(const ir::Dim& d) const;
  /// Dim i of the matrix a dot operand or result `t` holds: its last two dims (a
  /// batched dot's leading dims have no layout axis, checkDot says so).
  DotDim matDim(const ir::BlockType& t, int i) const { return dotDim(t.dims[t.rank() - 2 + i]); }
  bool checkDot(const ir::Expr& dot);
  void emitDotStaging(); ///< the BlockDot types and the staging area, at the kernel's top
  void emitDotSmem(const std::string& bytes, const std::string& what,
                   const std::vector<const ir::Expr*>& dots);
  void stageDotOperand(const ir::Expr& op, const std::string& site, const char* setter);
  void emitDot(const ir::Stmt& s, const ir::Expr& dot, bool declare);
  // MmaLayout.cpp, EmitMmaDot.cpp: dots on register fragments (the mma layout)
  struct MmaDotPlan {
    const ir::Expr* loadA = nullptr; ///< operand A copied from this load into shared memory
    const ir::Expr* loadB = nullptr;
    const ir::Stmt* letA = nullptr;  ///< the let of loadA, not emitted (or null)
    const ir::Stmt* letB = nullptr;
    bool registerA = false;          ///< A is the A fragment where it is, in registers
    const ir::Stmt* earlyLoop = nullptr; ///< its copies issued at the top of this loop
  };
  void planMmaLayout(); ///< reads the mma-layout pass's marks (MmaLayout.cpp)
  void emitMmaAxis(const LayoutAxis& a);
  void emitMmaStaging();
  void emitMmaDot(const ir::Stmt& s, const ir::Expr& dot, bool declare);
  void stageMmaLoad(const ir::Expr& op, const ir::Expr& load, const std::string& site, bool isA,
                    const std::string& buf, bool async);
  /// stride_<param>_<d> of the tensor dim that layout axis `axis` indexes in a load
  /// subscripted by `ix` ("" when none or several do).
  std::string strideOfAxis(int param, const std::vector<ir::Index>& ix, int axis) const;
  std::string dotBuffer(const ir::Expr& dot, const std::string& site) const;
  void emitPipelineCopies(const ir::Stmt& loop, const std::string& tile, const std::string& stage);
  void emitPipelinePrologue(const ir::Stmt& loop);
  void emitPipelinePrefetch(const ir::Stmt& loop);
  void emitEarlyCopies(const ir::Stmt& loop); ///< at the top of `loop`'s body
  void stageMmaRegisters(const ir::Expr& op, const std::string& site, bool isA);
  std::string elementAt(const std::string& name, const std::vector<int>& axes,
                        const std::map<int, std::string>& index) const;

  // EmitStmt.cpp, EmitAccess.cpp (emitLoad, tensorOffset), EmitStore.cpp (emitStore,
  // emitAtomicAdd)
  void stmts(const std::vector<ir::StmtRef>& body);
  void stmt(const ir::Stmt& s);
  void emitLet(const ir::Stmt& s, bool declare);
  bool emitRandRun(const ir::Stmt& s, const ir::Expr& v, const std::vector<int>& target);
  void emitLoad(const ir::Stmt& s, const ir::Expr& load, bool declare);
  void emitLoadElements(const ir::Stmt& s, const ir::Expr& load, const std::vector<int>& axes,
                        int vec, bool storage);
  void emitStore(const ir::Stmt& s);
  void emitStoreElements(const ir::Stmt& s, const std::vector<int>& axes, int vec);
  std::string boundsWithout(const std::vector<int>& axes, int skip) const;
  void emitAtomicAdd(const ir::Stmt& s, const std::vector<int>& axes, std::string mask);
  // EmitPrivateAtomics.cpp
  std::vector<int> privateAtomicTargets() const; ///< params of the private atomic adds
  std::string privateSpan(int param) const;
  void emitPrivateCopies();  ///< before the grid loops
  void flushPrivateCopies(); ///< after them
  void emitInnerLoop(const ir::Stmt& s);
  void openElementLoops(const std::vector<int>& axes, int vectorAxis = -1);
  void closeElementLoops(const std::vector<int>& axes);
  std::string tensorOffset(int param, const std::vector<ir::Index>& ix, bool gatherAll,
                           int innerOverride = -1, const std::string& innerCoord = "");
  std::vector<int> storeAxes(const ir::Stmt& s) const;
  /// The layout axis of a subscript's last tensor dim (vectorizable when innermost), or -1.
  bool lastSubscriptIsAxis(const ir::Stmt& s, int axis) const;
  int lastSubscriptAxis(int param, const std::vector<ir::Index>& ix) const;
  int loopedAxisOf(const std::vector<int>& axes) const; ///< a looped, inactive axis or -1

  void emitDeferredFor(const ir::Expr& e, std::set<int>& emitted);
  void collectVars(const ir::Expr& e, std::vector<int>& out) const;
  void declareVar(int var, const ir::BlockType& type);
  std::string varName(int var) const;
  void lineDirective(const ir::SourceLoc& loc);

  void line(const std::string& text) { os_ << std::string(2 * indent_, ' ') << text << '\n'; }
  void error(const ir::SourceLoc& loc, const std::string& msg) { diags_.error(loc, msg); ok_ = false; }

  const ir::Kernel& k_;
  const EmitOptions& opts_;
  DiagnosticEngine& diags_;
  std::ostringstream os_;
  int indent_ = 0;
  bool ok_ = true;
  EmittedKernel out_;

  std::vector<LayoutAxis> axes_;           ///< innermost first
  /// Tile, reduction axis and tensor dim -> index in axes_ (axes_ follows
  /// Kernel::threadLayout one to one).
  ir::LayoutIndex layout_;
  std::set<int> storedParams_;
  std::set<int> assignedVars_;              ///< targets of Assign statements
  std::set<int> storageVars_;               ///< loads held in the tensor's element type
  std::map<int, const ir::Stmt*> inlined_;  ///< elementwise lets recomputed at each use
  const std::vector<ir::StmtRef>* body_ = nullptr; ///< the statement list being emitted
  size_t bodyIndex_ = 0;                    ///< ... and the statement's index in it
  std::set<const ir::Stmt*> fusedLets_;     ///< lets an earlier statement computed
  std::set<const ir::Stmt*> hoistedLets_;   ///< invariant loads emitted before the program loop
  std::vector<const ir::Stmt*> staged_;     ///< tile loads copied ahead into shared memory
  std::map<int, std::vector<int>> varAxes_;
  std::map<int, const ir::Stmt*> deferred_; ///< lets over a looped axis, by var
  std::string randStream_; ///< the hd::RandStream of the hl::rand let being printed, or empty
  std::set<int> activeChunks_;              ///< looped axes whose chunk loop is open
  std::set<int> openAxes_;                  ///< axes whose element loop is open
  std::map<int, int> vectorLane_;           ///< axis -> inside a vector group (lane var `v_<key>`)
  std::map<const ir::Expr*, int> dotSite_;  ///< general dot -> its BlockDot (D<n>)
  bool mmaLayout_ = false;                  ///< the dots run on register fragments
  std::map<AxisKey, MmaRole> mmaRole_;
  std::map<const ir::Expr*, MmaDotPlan> mmaDots_;
  std::set<const ir::Stmt*> dotOperandLets_; ///< loads their dot copies into shared memory
  const ir::Expr* pipeDot_ = nullptr;  ///< the dot whose copies run a tile ahead (cp.async)
  const ir::Stmt* pipeLoop_ = nullptr; ///< ... its loop
};

} // namespace helion::codegen
