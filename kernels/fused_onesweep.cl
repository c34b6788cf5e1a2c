{# Fused onesweep: after histogram_all_passes, every pass of a sort in one launch. Work-groups
   take tickets in order; the first `tiles` run the first pass, the next `tiles` the second once
   the first is done, and so on: each waits only for work-groups with smaller tickets, which have
   started, as decoupled look-back does. #}
{% include "onesweep_common.cl" %}

{% include "device_sync.cl" %}

/* Sorts first_keys[0, n) (and first_values) by `passes` digits from begin_bit in one launch of
   tiles * passes work-groups, once histogram_all_passes has counted them into hist. Ticket t
   runs pass t / tiles on tile t % tiles (onesweep_tile_pass.cl), after finished[pass - 1]
   shows every tile of the pass before done. Passes alternate from first_keys to second_keys
   and back (the host passes the histogram's copy in scratch first where the passes are odd, so
   that the last ends in place). The last work-group to finish returns `finished` to zero, as the last ticket does
   `ticket`. Every barrier is outside branches: PoCL loses work behind barriers in
   work-group-uniform branches. A constant pass runs like any other: the tile pass's early
   return would skip `finished`. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void fused_onesweep(__global key_t* first_keys, __global key_t* second_keys,
{% if value_bytes > 0 %}
                    __global value_t* first_values, __global value_t* second_values,
{% endif %}
                    offset_t n, uint begin_bit, uint end_bit, uint passes, uint descending,
                    uint tiles, __global const uint* hist, volatile __global uint* both_status,
                    __global uint* ticket, volatile __global uint* finished) {
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
  __global const key_t* keys_in = from_first ? first_keys : second_keys;
  __global key_t* keys_out = from_first ? second_keys : first_keys;
{% if value_bytes > 0 %}
  __global const value_t* values_in = from_first ? first_values : second_values;
  __global value_t* values_out = from_first ? second_values : first_values;
{% endif %}
  const uint shift = pass_shift(begin_bit, pass), mask = pass_mask(begin_bit, end_bit, pass);
{% include "onesweep_tile_pass.cl" %}
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    device_fence();
    const uint done_before = atomic_inc(&finished[pass]);
    if (pass == passes - 1 && done_before == tiles - 1)
      for (uint p = 0; p < passes; ++p) finished[p] = 0;
  }
}
