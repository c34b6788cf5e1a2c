{# Small sorts in one launch: one work-group holds every key (and value) in local memory and runs
   every pass there, skipping constant-digit passes itself, so no host round trip is needed. #}
{% include "common.cl" %}
#define TILE (WG * EPT)
/* Keys a work-item holds stay in registers where there are few; a CPU's single work-item of
   thousands keeps them on its stack, and unrolling those loops only slows the build. */
{% if elements_per_thread <= 32 %}
#define UNROLL _Pragma("unroll")
{% else %}
#define UNROLL
{% endif %}
{% if value_bytes > 0 %}
typedef {{ value_storage }} value_t;
{% endif %}
{% if ranking == "serial" %}
/* Item lid holds the consecutive positions [lid * EPT, (lid + 1) * EPT) during a pass. */
#define POSITION(j) (lid * EPT + (j))
{% else %}
/* Item lid holds positions j * WG + lid (round j): rounds are in position order, and so are
   the items within one. */
#define POSITION(j) ((j) * WG + lid)
#define MASK_WORDS ((WG + 31) / 32)
{% endif %}

/* Exclusive scan of counts[0, length) in place, each item scanning a run of `per_item`
   (length = per_item * WG). Ends with a barrier. */
#define SCAN_IN_PLACE(counts, length, per_item, partial)                      \
  {                                                                           \
    const uint first = get_local_id(0) * (per_item);                          \
    const uint last = min(first + (per_item), (uint)(length));                \
    uint sum = 0;                                                             \
    for (uint i = first; i < last; ++i) sum += counts[i];                     \
    uint running = items_before(sum, partial);                                \
    for (uint i = first; i < last; ++i) {                                     \
      const uint count = counts[i];                                           \
      counts[i] = running;                                                    \
      running += count;                                                       \
    }                                                                         \
    barrier(CLK_LOCAL_MEM_FENCE);                                             \
  }

/* Sorts keys[0, n) (and values) by bits [begin_bit, end_bit) of the ordered key, n <= TILE. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void single_group_sort(__global key_t* keys,
{% if value_bytes > 0 %}
                       __global value_t* values,
{% endif %}
                       uint n, uint begin_bit, uint end_bit, uint descending) {
  __local key_t tile_keys[TILE];
{% if value_bytes > 0 %}
  __local value_t tile_values[TILE];
{% endif %}
{% if ranking == "serial" %}
  /* counts[d * WG + item]: the item's keys of digit d, then (scanned in this order, which is
     the pass's output order) the slot of its next one. 16 bits: TILE <= 65536. */
  __local ushort counts[RADIX * WG];
{% else %}
  /* next_slot[d]: the digit's count, then the slot of its next key in the pass's order. */
  __local uint next_slot[RADIX];
  __local uint digit_masks[RADIX * MASK_WORDS];
  const uint word = get_local_id(0) / 32, bit = 1u << (get_local_id(0) % 32), below = bit - 1u;
{% endif %}
  __local uint partial[WG];
  __local uint pass_is_constant;
  const uint lid = get_local_id(0);
  for (uint i = lid; i < n; i += WG) {
    tile_keys[i] = keys[i];
{% if value_bytes > 0 %}
    tile_values[i] = values[i];
{% endif %}
  }
{% if ranking != "serial" %}
  for (uint i = lid; i < RADIX * MASK_WORDS; i += WG) digit_masks[i] = 0;
{% endif %}

  for (uint shift = begin_bit; shift < end_bit; shift += {{ radix_bits }}) {
    const uint mask = (1u << min((uint){{ radix_bits }}, end_bit - shift)) - 1u;
{% if ranking == "serial" %}
    for (uint d = 0; d < RADIX; ++d) counts[d * WG + lid] = 0;
{% else %}
    for (uint d = lid; d <= mask; d += WG) next_slot[d] = 0;
{% endif %}
    if (lid == 0) pass_is_constant = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    key_t k[EPT];
    uint slot[EPT]; /* the key's digit until ranking makes it the key's slot */
{% if value_bytes > 0 %}
    value_t v[EPT];
{% endif %}
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      if (POSITION(j) < n) {
        k[j] = tile_keys[POSITION(j)];
{% if value_bytes > 0 %}
        v[j] = tile_values[POSITION(j)];
{% endif %}
        slot[j] = digit_of(k[j], descending, shift, mask);
{% if ranking == "serial" %}
        ++counts[slot[j] * WG + lid];
{% else %}
        atomic_inc(&next_slot[slot[j]]);
{% endif %}
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
{% if ranking == "serial" %}
    SCAN_IN_PLACE(counts, RADIX * WG, RADIX, partial);
    /* Digit d's keys are [counts[d * WG], counts[(d + 1) * WG]) of the output. */
    for (uint d = lid; d <= mask; d += WG) {
      const uint end = d < mask ? counts[(d + 1) * WG] : n;
      if (end - counts[d * WG] == n) pass_is_constant = 1;
    }
{% else %}
    /* A pass whose digit is the same for every key would leave them where they are. */
    for (uint d = lid; d <= mask; d += WG)
      if (next_slot[d] == n) pass_is_constant = 1;
{% endif %}
    barrier(CLK_LOCAL_MEM_FENCE);
    const bool skip = pass_is_constant;
    barrier(CLK_LOCAL_MEM_FENCE); /* read by all before the next pass clears it */
    if (skip) continue;

{% if ranking == "serial" %}
    /* An item's keys of one digit take consecutive slots in its order. */
    UNROLL
    for (uint j = 0; j < EPT; ++j)
      if (POSITION(j) < n) slot[j] = counts[slot[j] * WG + lid]++;
{% else %}
    SCAN_IN_PLACE(next_slot, RADIX, (RADIX + WG - 1) / WG, partial);
    /* Per round, the items holding digit d set their bits in d's mask; an item's slot is d's
       next slot plus the set bits before its own; the round's last item of d advances it. */
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      const bool valid = POSITION(j) < n;
      const uint digit = valid ? slot[j] : 0;
      __local uint* masks = digit_masks + digit * MASK_WORDS;
      if (valid) atomic_or(&masks[word], bit);
      barrier(CLK_LOCAL_MEM_FENCE);
      uint before = 0, after = 0;
      if (valid) {
        for (uint w = 0; w < word; ++w) before += popcount(masks[w]);
        before += popcount(masks[word] & below);
        after = popcount(masks[word] & ~(below | bit));
        for (uint w = word + 1; w < MASK_WORDS; ++w) after += popcount(masks[w]);
        slot[j] = next_slot[digit] + before;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
      if (valid && after == 0) {
        next_slot[digit] = slot[j] + 1;
        for (uint w = 0; w < MASK_WORDS; ++w) masks[w] = 0;
      }
      barrier(CLK_LOCAL_MEM_FENCE);
    }
{% endif %}
    barrier(CLK_LOCAL_MEM_FENCE); /* every key is in registers before any moves */
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      if (POSITION(j) < n) {
        tile_keys[slot[j]] = k[j];
{% if value_bytes > 0 %}
        tile_values[slot[j]] = v[j];
{% endif %}
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  for (uint i = lid; i < n; i += WG) {
    keys[i] = tile_keys[i];
{% if value_bytes > 0 %}
    values[i] = tile_values[i];
{% endif %}
  }
}
