{# Counting phase: per-block digit histograms, stored digit-major (hist[digit * num_blocks + block]). #}
{% include "common.cl" %}

/* counts[d] = keys of digit d among keys[0, size), for d <= mask: one work-item's block. */
inline void count_block_digits(uint* counts, __global const key_t* keys, uint size,
                               uint descending, uint shift, uint mask) {
  for (uint d = 0; d <= mask; ++d) counts[d] = 0;
  for (uint i = 0; i < size; ++i) ++counts[digit_of(keys[i], descending, shift, mask)];
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void count_digits(__global const key_t* keys, offset_t n, uint shift, uint mask, uint descending,
                  __global offset_t* hist, offset_t num_blocks) {
{% if ranking == "serial" %}
  /* One block per work-item: EPT consecutive keys counted in private memory, no barriers. */
  const offset_t block = get_global_id(0);
  if (block >= num_blocks) return;
  uint counts[RADIX];
  const offset_t begin = block * EPT;
  count_block_digits(counts, keys + begin, (uint)(min(begin + EPT, n) - begin), descending, shift,
                     mask);
  for (uint d = 0; d <= mask; ++d) hist[d * num_blocks + block] = counts[d];
{% else %}
  /* One block per work-group: WG * EPT consecutive keys, read in coalesced rounds of WG. */
  __local uint counts[RADIX];
  const uint lid = get_local_id(0);
  const offset_t block = get_group_id(0);
  for (uint d = lid; d < RADIX; d += WG) counts[d] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const offset_t begin = block * (WG * EPT);
  for (uint round = 0; round < EPT; ++round) {
    const offset_t i = begin + round * WG + lid;
    if (i < n) atomic_inc(&counts[digit_of(keys[i], descending, shift, mask)]);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d <= mask; d += WG) hist[d * num_blocks + block] = counts[d];
{% endif %}
}
