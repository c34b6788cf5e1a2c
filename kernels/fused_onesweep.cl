{# Fused onesweep: every pass of a sort in one launch, after histogram_all_passes or, where every
   tile of a pass runs at once, with no kernel before it. Work-groups take tickets in order; the
   first `tiles` run the first pass, the next `tiles` the second once the first is done, and so
   on. #}
{% include "onesweep_common.cl" %}

{% include "device_sync.cl" %}

/* Digit d's count over a pass's tiles before `tile` (x) and over all `tiles` (y), once every
   tile has published its counts. The reads go COLUMN_BATCH at a time, so that their latencies
   overlap. */
#define COLUMN_BATCH 16
inline uint2 column_sums(volatile __global const uint* status, uint tiles, uint tile, uint d) {
  uint2 sums = (uint2)(0, 0);
  for (uint first = 0; first < tiles; first += COLUMN_BATCH) {
    uint seen[COLUMN_BATCH];
    #pragma unroll
    for (uint k = 0; k < COLUMN_BATCH; ++k)
      seen[k] = first + k < tiles ? status[(offset_t)(first + k) * RADIX + d] & STATUS_COUNT : 0;
    #pragma unroll
    for (uint k = 0; k < COLUMN_BATCH; ++k) {
      sums.y += seen[k];
      if (first + k < tile) sums.x += seen[k];
    }
  }
  return sums;
}

/* Sorts source_keys[0, n) (and source_values) by `passes` digits from begin_bit into the buffer
   the last pass writes, in one launch of tiles * passes work-groups. Ticket t runs pass t / tiles
   on tile t % tiles (onesweep_tile_pass.cl), after finished[pass - 1] shows every tile of the
   pass before done. Pass 0 reads the source and writes second_keys; later passes alternate
   from second_keys to first_keys and back.
   Without `resident`, histogram_all_passes has counted every pass's digits into hist, and each
   tile finds its offsets by decoupled look-back: each work-group waits only for work-groups with
   smaller tickets, which have started. With `resident` (the host sets it only where every tile of
   a pass runs at once), no kernel comes before: pass 0's tiles count every pass's digits into
   hist themselves (and zero next_hist for the next sort, as histogram_all_passes does), publish
   their own pass-0 counts and wait until every tile has (`counted`), then find their offsets from
   the published counts. Every tile of pass 0 has then loaded its keys, so pass 0 may write over
   its source; its values load later, so the program rendered with `stages_values` (for pairs in
   place with an odd number of passes) has each tile of pass 0 first copy its values to
   first_values and read them there. Later passes run as without `resident`.
   The last work-group to finish returns `finished` and `counted` to zero, as the last ticket does
   `ticket`. Every barrier is outside branches: PoCL loses work behind barriers in
   work-group-uniform branches. A constant pass runs like any other: the tile pass's early
   return would skip `finished`. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void fused_onesweep(__global const key_t* source_keys, __global key_t* first_keys,
                    __global key_t* second_keys,
{% if value_bytes > 0 %}
                    __global const value_t* source_values, __global value_t* first_values,
                    __global value_t* second_values,
{% endif %}
                    offset_t n, uint begin_bit, uint end_bit, uint passes, uint descending,
                    uint tiles, uint resident, __global uint* hist, __global uint* next_hist,
                    volatile __global uint* both_status, __global uint* ticket,
                    volatile __global uint* finished) {
  volatile __global uint* counted = finished + PASSES_MAX;
  __local uint group_ticket;
  if (get_local_id(0) == 0) {
    const uint t = atomic_inc(ticket);
    if (t == tiles * passes - 1) atomic_xchg(ticket, 0);
    group_ticket = t;
    if (t >= tiles) {
      wait_for_count(&finished[t / tiles - 1], tiles);
      device_fence();
    }
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  const uint pass = group_ticket / tiles, run = pass;
  const bool from_first = (pass & 1) == 0;
  __global const key_t* keys_in = pass == 0 ? source_keys : from_first ? first_keys : second_keys;
  __global key_t* keys_out = from_first ? second_keys : first_keys;
{% if value_bytes > 0 %}
{% if stages_values %}
  __global const value_t* values_in = from_first ? first_values : second_values; /* pass 0 too */
{% else %}
  __global const value_t* values_in =
      pass == 0 ? source_values : from_first ? first_values : second_values;
{% endif %}
  __global value_t* values_out = from_first ? second_values : first_values;
{% endif %}
  const uint shift = pass_shift(begin_bit, pass), mask = pass_mask(begin_bit, end_bit, pass);
  const bool counts_passes = resident && pass == 0;
{% include "onesweep_tile_pass.cl" %}
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    device_fence();
    const uint done_before = atomic_inc(&finished[pass]);
    if (pass == passes - 1 && done_before == tiles - 1) {
      for (uint p = 0; p < passes; ++p) finished[p] = 0;
      *counted = 0;
    }
  }
}
