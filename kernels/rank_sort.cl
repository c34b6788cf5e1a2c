{# rank_sort: a small array sorted in one launch without radix passes. Each work-group copies the
   compared bits of all n keys into local memory and ranks its own block of keys by counting, for
   each key, the keys that sort before it; keys and values then go straight to their ranks. On
   devices where the launch's work-groups all run at once (the plan decides) several work-groups
   share the counting; since the sort is in place, each waits until every work-group has read
   its keys before it writes. #}
{% include "common.cl" %}
{% include "device_sync.cl" %}
#define TILE (WG * EPT)
{% include "held_keys.cl" %}

/* Of bits[from, to), the keys that sort before `mine`, the key at position i: smaller keys, and
   equal keys at smaller positions (the sort is stable). Positions below block_begin are all
   smaller than i and those from block_end all larger, so only the block between needs the
   position compared. */
inline uint keys_before(__local const key_t* bits, uint from, uint to, key_t mine, uint i,
                        uint block_begin, uint block_end) {
  const uint below = clamp(block_begin, from, to), above = clamp(block_end, from, to);
  uint before = 0;
  for (uint j = from; j < below; ++j) before += bits[j] <= mine;
  for (uint j = below; j < above; ++j) before += bits[j] < mine || (bits[j] == mine && j < i);
  for (uint j = above; j < to; ++j) before += bits[j] < mine;
  return before;
}

/* Sorts keys_in[0, n) (and values) into keys_out (which may be keys_in) by bits
   [begin_bit, end_bit) of the ordered key, n <= TILE.
   Work-group g owns positions [g, g + 1) * block_keys. Its work-items form WG / lanes slices of
   `lanes` items; slice s counts, for each owned key, the keys of the s-th part of the array
   before it, and the slices' counts add up in ranks. sync[0] counts the work-groups that have
   read their keys, sync[1] those that have passed the wait; the last to pass sets both back to
   zero for the next sort. Every barrier is outside branches (PoCL). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void rank_sort(__global const key_t* keys_in, __global key_t* keys_out
               VALUES_ARG(__global const value_t* values_in)
               VALUES_ARG(__global value_t* values_out), uint n,
               uint begin_bit, uint end_bit, uint descending, uint block_keys, uint lanes,
               volatile __global uint* sync) {
  __local key_t bits[TILE];
  __local uint ranks[TILE];
  const uint lid = get_local_id(0), groups = get_num_groups(0);
  const uint block_begin = get_group_id(0) * block_keys;
  const uint block_end = min(block_begin + block_keys, n);
  /* The owned keys and values wait in registers while the other work-groups read theirs. */
  key_t own_keys[EPT];
{% if value_bytes > 0 %}
  value_t own_values[EPT];
{% endif %}
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid, owned = block_begin + i;
    if (i < n) bits[i] = sort_bits(keys_in[i], descending, begin_bit, end_bit);
    if (owned < block_end) {
      own_keys[j] = keys_in[owned];
{% if value_bytes > 0 %}
      own_values[j] = values_in[owned];
{% endif %}
      ranks[i] = 0;
    }
  }
  /* The owned reads are done before any work-group may write over them (in place). */
  device_fence();
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) atomic_inc(&sync[0]);

  /* 32-bit products, so that no 64-bit integers are needed: validation keeps WG * TILE below
     2^32. */
  const uint slices = WG / lanes, slice = lid / lanes;
  const uint from = slice * n / slices, to = (slice + 1) * n / slices;
  for (uint i = block_begin + lid % lanes; i < block_end; i += lanes) {
    const uint before = keys_before(bits, from, to, bits[i], i, block_begin, block_end);
    atomic_add(&ranks[i - block_begin], before);
  }
  if (lid == 0) {
    wait_for_count(&sync[0], groups);
    if (atomic_inc(&sync[1]) == groups - 1) {
      sync[0] = 0;
      sync[1] = 0;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid;
    if (block_begin + i < block_end) {
      keys_out[ranks[i]] = own_keys[j];
{% if value_bytes > 0 %}
      values_out[ranks[i]] = own_values[j];
{% endif %}
    }
  }
}
