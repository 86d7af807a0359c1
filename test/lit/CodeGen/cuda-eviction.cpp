// REQUIRES: frontend
// load_eviction_policies: a load site with "first" / "last" reads through
// load_hint (ld.global.nc.L2::cache_hint with a createpolicy); "" keeps a plain load.
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, "load_eviction_policies": ["first", "last"]}' > %t.ev.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.ev.json --emit cuda | FileCheck %s
// RUN: echo '{"block_sizes": [1], "reduction_loops": [null], "num_warps": 8, "load_eviction_policies": ["", "last"]}' > %t.one.json
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.one.json --emit cuda | FileCheck %s --check-prefix=ONE
// RUN: %helionc compile %examples/rms_norm.cpp --config %t.ev.json --emit ptx --dtype f16 | FileCheck %s --check-prefix=PTX

// Site 0 is x (the row), site 1 the weight (Sites.h order).
// CHECK-DAG: h = load_hint<hd::Evict::last, true>(reinterpret_cast<const hvec<T_p_weight, V_a0>*>(p_weight +
// CHECK-DAG: h = load_hint<hd::Evict::first, true>(reinterpret_cast<const hvec<T_p_x, V_a0>*>(p_x +

// ONE-NOT: load_hint<hd::Evict::first
// ONE-DAG: h = load_hint<hd::Evict::last, true>(reinterpret_cast<const hvec<T_p_weight, V_a0>*>(p_weight +
// ONE-DAG: h = {{.*}}*reinterpret_cast<const hvec<T_p_x, V_a0>*>(p_x +

// PTX-DAG: createpolicy.fractional.L2::evict_first.b64
// PTX-DAG: createpolicy.fractional.L2::evict_last.b64
// PTX: ld.global.nc.L2::cache_hint.v4.u32
