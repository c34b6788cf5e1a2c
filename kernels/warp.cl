{# NVIDIA warp primitives through inline PTX (sm_70+): included only with warp_match ranking,
   which the library allows only on devices that report 32-wide warps. #}
#define WARP 32
#define WARPS (WG / WARP)
/* `value` as lane `lane` holds it. */
inline uint shuffle_from(uint value, uint lane) {
  uint result;
  asm volatile("shfl.sync.idx.b32 %0, %1, %2, 0x1f, 0xffffffff;"
               : "=r"(result)
               : "r"(value), "r"(lane));
  return result;
}
inline uint lanes_below(void) {
  uint mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
inline void warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;"); }
/* `value` as lane (own lane - delta) holds it; lanes below delta get their own value. */
inline uint shuffle_up(uint value, uint delta) {
  uint result;
  asm volatile("shfl.sync.up.b32 %0, %1, %2, 0x0, 0xffffffff;"
               : "=r"(result)
               : "r"(value), "r"(delta));
  return result;
}

/* Exclusive scan of one value per work-item over the work-group, by shuffles within each warp
   and one barrier between warps: for a tile's digit counts when RADIX == WG, 2 barriers where
   scan_digits takes 18 (the u32 sort at 2^28 ran 3.6% faster on the H200). Every work-item
   must call it; the caller must barrier before warp_totals is used again. */
inline uint warp_exclusive_scan(uint value, __local uint* warp_totals) {
  const uint lane = get_local_id(0) % WARP, warp = get_local_id(0) / WARP;
  uint inclusive = value;
  #pragma unroll
  for (uint delta = 1; delta < WARP; delta <<= 1) {
    const uint lower = shuffle_up(inclusive, delta);
    if (lane >= delta) inclusive += lower;
  }
  if (lane == WARP - 1) warp_totals[warp] = inclusive;
  barrier(CLK_LOCAL_MEM_FENCE);
  uint base = 0;
  for (uint w = 0; w < warp; ++w) base += warp_totals[w];
  return base + inclusive - value;
}

/* warp_exclusive_scan of two values at once, for the price of one barrier. */
inline uint2 warp_exclusive_scan_pair(uint2 value, __local uint* warp_totals) {
  const uint lane = get_local_id(0) % WARP, warp = get_local_id(0) / WARP;
  uint2 inclusive = value;
  #pragma unroll
  for (uint delta = 1; delta < WARP; delta <<= 1) {
    const uint2 lower = (uint2)(shuffle_up(inclusive.x, delta), shuffle_up(inclusive.y, delta));
    if (lane >= delta) inclusive += lower;
  }
  if (lane == WARP - 1) {
    warp_totals[warp] = inclusive.x;
    warp_totals[WARPS + warp] = inclusive.y;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  uint2 base = (uint2)(0, 0);
  for (uint w = 0; w < warp; ++w) base += (uint2)(warp_totals[w], warp_totals[WARPS + w]);
  return base + inclusive - value;
}

/* For digit d, the warps' counts warp_slots[w * RADIX + d] become each warp's first slot within
   the digit, in warp order; returns the digit's total. The counters are WARP_SLOT_T, uint
   unless the includer chose narrower ones. */
#ifndef WARP_SLOT_T
#define WARP_SLOT_T uint
#endif
inline uint warp_counts_to_offsets(__local WARP_SLOT_T* warp_slots, uint d) {
  uint running = 0;
  for (uint w = 0; w < WARPS; ++w) {
    const uint count = warp_slots[w * RADIX + d];
    warp_slots[w * RADIX + d] = running;
    running += count;
  }
  return running;
}
