{# rank_sort: a small array sorted in one launch without radix passes. Each work-group copies the
   compared bits of all n keys into local memory and ranks its own block of keys by counting, for
   each key, the keys that sort before it; keys and values then go straight to their ranks. With
   bucket_bits > 0 each work-group first buckets all keys by the top bucket_bits of the bits that
   vary, so that a key is compared only with the keys of its bucket. On devices where the
   launch's work-groups all run at once (the plan decides) several work-groups share the
   counting of a sort in place, each waiting until every work-group has read its keys before it
   writes; sorts into other buffers spread over the compute units of any device, none waiting. #}
{% include "common.cl" %}
{% include "device_sync.cl" %}
#define TILE (WG * EPT)
{% include "held_keys.cl" %}

{% if bucket_bits == 0 %}
typedef {{ key_storage }}4 key4_t;

/* Defines name(bits, from, to, mine): of bits[from, to), the keys k for which `k OP mine`. The
   aligned middle is read four keys a load: the loop's overhead and its local loads, not the
   comparisons, set the counting's time. */
#define DEFINE_KEY_COUNT(name, OP)                                                  \
  inline uint name(__local const key_t* bits, uint from, uint to, key_t mine) {     \
    uint count = 0, j = from;                                                       \
    for (; j < to && j % 4 != 0; ++j) count += bits[j] OP mine;                     \
    for (; j + 4 <= to; j += 4) {                                                   \
      const key4_t q = *(__local const key4_t*)(bits + j);                          \
      count += (q.s0 OP mine) + (q.s1 OP mine) + (q.s2 OP mine) + (q.s3 OP mine);   \
    }                                                                               \
    for (; j < to; ++j) count += bits[j] OP mine;                                   \
    return count;                                                                   \
  }
DEFINE_KEY_COUNT(keys_not_above, <=)
DEFINE_KEY_COUNT(keys_below, <)

/* Each owned key's count takes 16 bits (validation keeps n at most 65,536), two to a word, so that
   a set holds more keys: block key k in the low half of word k and block key k + RANK_WORDS in the
   high half of word k, so that neighbouring work-items add to different words. */
#define RANK_WORDS ((TILE + 1) / 2)

inline void add_to_rank(__local uint* ranks, uint k, uint count) {
  if (k < RANK_WORDS) atomic_add(&ranks[k], count);
  else atomic_add(&ranks[k - RANK_WORDS], count << 16);
}

inline uint rank_of(__local const uint* ranks, uint k) {
  return k < RANK_WORDS ? ranks[k] & 0xFFFF : ranks[k - RANK_WORDS] >> 16;
}

/* Where slice s of the counting starts: the slices split [0, n) at multiples of four keys, so
   that keys_before reads whole aligned fours. */
inline uint slice_start(uint s, uint slices, uint n) {
  return s == slices ? n : (s * n / slices) & ~3u;
}

/* Of bits[from, to), the keys that sort before `mine`, the key at position i: smaller keys, and
   equal keys at smaller positions (the sort is stable). Positions below block_begin are all
   smaller than i and those from block_end all larger, so only the block between needs the
   position compared. */
inline uint keys_before(__local const key_t* bits, uint from, uint to, key_t mine, uint i,
                        uint block_begin, uint block_end) {
  const uint below = clamp(block_begin, from, to), above = clamp(block_end, from, to);
  uint before = keys_not_above(bits, from, below, mine) + keys_below(bits, above, to, mine);
  for (uint j = below; j < above; ++j) before += bits[j] < mine || (bits[j] == mine && j < i);
  return before;
}
{% else %}
#define BUCKETS {{ 1 << bucket_bits }}
/* Digits of the scan each work-item sums: all BUCKETS of them over the work-group. */
#define BUCKETS_PER_ITEM ((BUCKETS + WG - 1) / WG)

/* Sets the bits in which `diff` (a key's compared bits XOR the first key's) is not zero in the
   work-group's words, low word first: local atomics are 32 bits wide. */
inline void note_varying_bits(volatile __local uint* words, key_t diff) {
  if ((uint)diff != 0) atomic_or(&words[0], (uint)diff);
{% if key_bits == 64 %}
  if ((uint)(diff >> 32) != 0) atomic_or(&words[1], (uint)(diff >> 32));
{% endif %}
}

/* How far keys shift right so that their top bucket_bits varying bits are the bucket's digit. */
inline uint bucket_shift(__local const uint* words) {
{% if key_bits == 64 %}
  const uint top = words[1] != 0 ? 64 - clz(words[1]) : 32 - clz(words[0]);
{% else %}
  const uint top = 32 - clz(words[0]);
{% endif %}
  return top > {{ bucket_bits }} ? top - {{ bucket_bits }} : 0;
}

inline uint bucket_of(key_t bits, uint shift) {
  return (uint)(bits >> shift) & (BUCKETS - 1);
}

/* Turns the buckets' key counts into their first slots, in place. Every work-item must call
   it; ends with a barrier. */
inline void bucket_starts(__local uint* counts, __local uint* partial) {
  const uint first = get_local_id(0) * BUCKETS_PER_ITEM;
  uint sum = 0;
  for (uint d = first; d < min(first + BUCKETS_PER_ITEM, (uint)BUCKETS); ++d) sum += counts[d];
  uint slot = items_before(sum, partial);
  for (uint d = first; d < min(first + BUCKETS_PER_ITEM, (uint)BUCKETS); ++d) {
    const uint count = counts[d];
    counts[d] = slot;
    slot += count;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* Of the bucketed keys in slots [from, to), those that sort before `mine`, the key at position
   i: smaller keys, and equal keys at smaller positions (the sort is stable). */
inline uint bucket_keys_before(__local const key_t* bucketed, __local const ushort* origin,
                               uint from, uint to, key_t mine, uint i) {
  uint before = 0;
  for (uint e = from; e < to; ++e)
    before += bucketed[e] < mine || (bucketed[e] == mine && origin[e] < i);
  return before;
}
{% endif %}

/* Sorts keys_in[0, n) (and values) into keys_out (which may be keys_in) by bits
   [begin_bit, end_bit) of the ordered key, n <= TILE.
   Work-group g owns positions [g, g + 1) * block_keys. Its work-items form WG / lanes slices of
   `lanes` items; slice s counts, for each owned key, the keys of the s-th part of the array
   (with buckets: of the key's bucket) before it, and the slices' counts add up in ranks.
   In place (`in_place` not 0), sync[0] counts the work-groups that have read their keys, sync[1]
   those that have passed the wait; the last to pass sets both back to zero for the next sort.
   Every barrier is outside branches (PoCL). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void rank_sort(__global const key_t* keys_in, __global key_t* keys_out
               VALUES_ARG(__global const value_t* values_in)
               VALUES_ARG(__global value_t* values_out), uint n,
               uint begin_bit, uint end_bit, uint descending, uint block_keys, uint lanes,
               uint in_place, volatile __global uint* sync) {
  const uint lid = get_local_id(0), groups = get_num_groups(0);
  const uint block_begin = get_group_id(0) * block_keys;
  const uint block_end = min(block_begin + block_keys, n);
  const uint slices = WG / lanes, slice = lid / lanes;
  /* The owned keys and values wait in registers while the other work-groups read theirs. */
  key_t own_keys[EPT];
{% if value_bytes > 0 %}
  value_t own_values[EPT];
{% endif %}
{% if bucket_bits == 0 %}
  /* Aligned for keys_before's loads of four keys. */
  __local key_t bits[TILE] __attribute__((aligned(4 * sizeof(key_t))));
  __local uint ranks[RANK_WORDS];
  for (uint w = lid; w < min(block_end - block_begin, (uint)RANK_WORDS); w += WG) ranks[w] = 0;
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid, owned = block_begin + i;
    if (i < n) bits[i] = sort_bits(keys_in[i], descending, begin_bit, end_bit);
    if (owned < block_end) {
      own_keys[j] = keys_in[owned];
{% if value_bytes > 0 %}
      own_values[j] = values_in[owned];
{% endif %}
    }
  }
{% else %}
  /* Slots of keys grouped by bucket, in no particular order within a bucket, and each slot's
     position in the array: the comparison, not the slot order, keeps the sort stable. An owned
     key's rank word holds its slot in the low 16 bits, its rank (the count of keys before it)
     in the high 16. */
  __local uint ranks[TILE];
  __local key_t bucketed[TILE];
  __local ushort origin[TILE];
  __local uint buckets[BUCKETS], varying[2], partial[WG];
  key_t held[EPT];
  for (uint d = lid; d < BUCKETS; d += WG) buckets[d] = 0;
  if (lid == 0) varying[0] = varying[1] = 0;
  const key_t first = sort_bits(keys_in[0], descending, begin_bit, end_bit);
  key_t diff = 0;
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid, owned = block_begin + i;
    if (i < n) {
      held[j] = sort_bits(keys_in[i], descending, begin_bit, end_bit);
      diff |= held[j] ^ first;
    }
    if (owned < block_end) {
      own_keys[j] = keys_in[owned];
{% if value_bytes > 0 %}
      own_values[j] = values_in[owned];
{% endif %}
    }
  }
{% endif %}
  /* The owned reads are done before any work-group may write over them (in place). */
  device_fence();
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0 && in_place) atomic_inc(&sync[0]);

{% if bucket_bits == 0 %}
  /* 32-bit products, so that no 64-bit integers are needed: validation keeps WG * TILE below
     2^32. */
  const uint from = slice_start(slice, slices, n), to = slice_start(slice + 1, slices, n);
  for (uint i = block_begin + lid % lanes; i < block_end; i += lanes) {
    const uint before = keys_before(bits, from, to, bits[i], i, block_begin, block_end);
    add_to_rank(ranks, i - block_begin, before);
  }
{% else %}
  note_varying_bits(varying, diff);
  barrier(CLK_LOCAL_MEM_FENCE);
  /* All keys equal: each stays where it is, and no bucket needs counting. */
  const bool all_equal = varying[0] == 0 && varying[1] == 0;
  const uint shift = bucket_shift(varying);
  UNROLL
  for (uint j = 0; j < EPT; ++j)
    if (j * WG + lid < n) atomic_inc(&buckets[bucket_of(held[j], shift)]);
  barrier(CLK_LOCAL_MEM_FENCE);
  bucket_starts(buckets, partial);
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid;
    if (i < n) {
      const uint slot = atomic_inc(&buckets[bucket_of(held[j], shift)]);
      bucketed[slot] = held[j];
      origin[slot] = (ushort)i;
      if (i - block_begin < block_end - block_begin) ranks[i - block_begin] = slot;
    }
  }
  /* buckets[d] is now the end of bucket d, and so the start of bucket d + 1. */
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = block_begin + lid % lanes; i < block_end; i += lanes) {
    const key_t mine = bucketed[ranks[i - block_begin] & 0xFFFF];
    const uint d = bucket_of(mine, shift);
    const uint bucket_begin = d == 0 ? 0 : buckets[d - 1];
    const uint size = all_equal ? 0 : buckets[d] - bucket_begin;
    const uint from = bucket_begin + slice * size / slices;
    const uint to = bucket_begin + (slice + 1) * size / slices;
    uint before = slice == 0 ? (all_equal ? i : bucket_begin) : 0;
    before += bucket_keys_before(bucketed, origin, from, to, mine, i);
    atomic_add(&ranks[i - block_begin], before << 16);
  }
{% endif %}
  if (lid == 0 && in_place) {
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
{% if bucket_bits == 0 %}
      const uint rank = rank_of(ranks, i);
{% else %}
      const uint rank = ranks[i] >> 16;
{% endif %}
      keys_out[rank] = own_keys[j];
{% if value_bytes > 0 %}
      values_out[rank] = own_values[j];
{% endif %}
    }
  }
}
