{# Scatter phase: stable ranking of each block's keys, then a move to their global positions. #}
{% include "common.cl" %}
{% if value_bytes > 0 %}
typedef {{ value_storage }} value_t;
{% endif %}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scatter_keys(__global const key_t* keys_in, __global key_t* keys_out,
{% if value_bytes > 0 %}
                  __global const value_t* values_in, __global value_t* values_out,
{% endif %}
                  offset_t n, uint shift, uint mask, uint descending,
                  __global const offset_t* offsets, offset_t num_blocks) {
{% if ranking == "serial" %}
  /* One block per work-item: walking its keys in order ranks them stably. They are first
     ordered by digit in local memory, where the block stays in cache, and then each digit's
     run is written out in one stretch of consecutive addresses. Writing key by key to 2^bits
     places at once was slower on PoCL (u32 keys at 2^24, 8-bit digits: 291 ms with 4K-key
     blocks written key by key, 162 ms with 64K-key blocks ordered first). */
  __local key_t all_block_keys[WG * EPT];
  __local key_t* block_keys = all_block_keys + get_local_id(0) * EPT;
{% if value_bytes > 0 %}
  __local value_t all_block_values[WG * EPT];
  __local value_t* block_values = all_block_values + get_local_id(0) * EPT;
{% endif %}
  const offset_t block = get_global_id(0);
  if (block >= num_blocks) return;
  const offset_t begin = block * EPT;
  const uint size = (uint)(min(begin + EPT, n) - begin);
  /* The block's count of each digit is the gap from its offset to the next entry of the
     digit-major scan (the last entry's runs to n): no second count of the block's keys. */
  uint counts[RADIX], next_slot[RADIX];
  const offset_t entries = (offset_t)(mask + 1) * num_blocks;
  uint running = 0;
  for (uint d = 0; d <= mask; ++d) {
    const offset_t at = (offset_t)d * num_blocks + block;
    counts[d] = (uint)((at + 1 < entries ? offsets[at + 1] : n) - offsets[at]);
    next_slot[d] = running;
    running += counts[d];
  }
  for (uint i = 0; i < size; ++i) {
    const key_t key = keys_in[begin + i];
    const uint slot = next_slot[digit_of(key, descending, shift, mask)]++;
    block_keys[slot] = key;
{% if value_bytes > 0 %}
    block_values[slot] = values_in[begin + i];
{% endif %}
  }
  for (uint d = 0; d <= mask; ++d) {
    const uint first = next_slot[d] - counts[d]; /* next_slot[d] is now the end of run d */
    __global key_t* to = keys_out + offsets[d * num_blocks + block];
    for (uint j = 0; j < counts[d]; ++j) to[j] = block_keys[first + j];
{% if value_bytes > 0 %}
    __global value_t* values_to = values_out + offsets[d * num_blocks + block];
    for (uint j = 0; j < counts[d]; ++j) values_to[j] = block_values[first + j];
{% endif %}
  }
{% else %}
  /* One block per work-group, in rounds of WG keys. Each round, every work-item sets its bit in
     its digit's bitmask; its rank among equal digits is the number of set bits below its own, so
     equal keys keep their input order without assuming any sub-group width. */
#define MASK_WORDS ((WG + 31) / 32)
  __local uint digit_masks[RADIX * MASK_WORDS];
  __local offset_t next[RADIX];
  const uint lid = get_local_id(0);
  const uint word = lid / 32;
  const uint below = (1u << (lid % 32)) - 1u;
  const offset_t block = get_group_id(0);
  for (uint i = lid; i < RADIX * MASK_WORDS; i += WG) digit_masks[i] = 0;
  for (uint d = lid; d <= mask; d += WG) next[d] = offsets[d * num_blocks + block];
  barrier(CLK_LOCAL_MEM_FENCE);

  const offset_t begin = block * (WG * EPT);
  for (uint round = 0; round < EPT; ++round) {
    const offset_t i = begin + round * WG + lid;
    const bool valid = i < n;
    key_t key = 0;
    uint digit = 0;
    if (valid) {
      key = keys_in[i];
      digit = digit_of(key, descending, shift, mask);
      atomic_or(&digit_masks[digit * MASK_WORDS + word], 1u << (lid % 32));
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    if (valid) {
      __local const uint* masks = digit_masks + digit * MASK_WORDS;
      uint rank = popcount(masks[word] & below);
      for (uint w = 0; w < word; ++w) rank += popcount(masks[w]);
      const offset_t to = next[digit] + rank;
      keys_out[to] = key;
{% if value_bytes > 0 %}
      values_out[to] = values_in[i];
{% endif %}
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d <= mask; d += WG) {
      uint in_round = 0;
      for (uint w = 0; w < MASK_WORDS; ++w) {
        in_round += popcount(digit_masks[d * MASK_WORDS + w]);
        digit_masks[d * MASK_WORDS + w] = 0;
      }
      next[d] += in_round;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
{% endif %}
}
