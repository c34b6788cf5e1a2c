{# Sorts held whole in one work-group's local memory, every pass there, skipping passes whose digit
   is the same for every key: single_group_sort takes a small array in one launch (with
   `bucket_rank`, passes over its top digits only, then a rank within each bucket by comparison);
   segment_rank and segment_sort (with `segments`) finish the buckets of an array that earlier
   passes ordered by its top bits (the hybrid path). #}
{% include "common.cl" %}
#define TILE (WG * EPT)
{% include "held_keys.cl" %}
/* HOLDS(j): whether the work-item holds a key in its j-th place. */
{% if ranking == "serial" %}
/* Item lid holds the consecutive positions [lid * EPT, (lid + 1) * EPT) during a pass.
   Tables: 16-bit counters per digit and item (TILE <= 65536). */
#define POSITION(j) (lid * EPT + (j))
#define HOLDS(j) (POSITION(j) < n)
#define TABLE_WORDS (RADIX * WG / 2)
{% elif ranking == "bitmask" %}
/* Item lid holds positions j * WG + lid (round j): rounds are in position order, and so are
   the items within one. Tables: each digit's next slot, then its mask of one round. */
#define POSITION(j) ((j) * WG + lid)
#define HOLDS(j) (POSITION(j) < n)
#define MASK_WORDS ((WG + 31) / 32)
#define TABLE_WORDS (RADIX * (MASK_WORDS + 1))
{% else %}
/* 32-bit slot counters, which a warp's leader advances with one local atomic, where they fit;
   else 16-bit ones (n < 65536), read and written: 4,096 pairs of 32-bit keys and values then
   fit 48 KiB beside 256 work-items' tables. */
{% if wide_slots %}
#define WARP_SLOT_T uint
{% else %}
#define WARP_SLOT_T ushort
{% endif %}
{% include "warp.cl" %}
/* Warp w holds positions [w * span, (w + 1) * span) in `rounds` rounds of WARP, as few rounds
   as n needs, so that every warp ranks a share of a small sort. Tables: each warp's mask per
   digit, each digit's first slot, then each warp's slot counter per digit. */
#define POSITION(j) (warp * (rounds * WARP) + (j) * WARP + lane)
#define HOLDS(j) ((j) < rounds && POSITION(j) < n)
#define TABLE_WORDS (WARPS * RADIX + RADIX + WARPS * RADIX * sizeof(WARP_SLOT_T) / 4)
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

/* Sorts keys[0, n) (and values) in local memory by bits [begin_bit, end_bit) of the ordered key,
   n <= TILE. `tables` holds TABLE_WORDS words, `partial` WG. Every work-item must call it, after
   the keys are in local memory (it barriers before reading them); it ends with a barrier. */
void sort_in_local(__local key_t* keys VALUES_ARG(__local value_t* values), uint n,
                   uint begin_bit, uint end_bit, uint descending, __local uint* tables,
                   __local uint* partial, __local uint* pass_is_constant) {
  const uint lid = get_local_id(0);
{% if ranking == "serial" %}
  __local ushort* counts = (__local ushort*)tables; /* counts[d * WG + item] */
{% elif ranking == "bitmask" %}
  __local uint* next_slot = tables; /* the digit's count, then the slot of its next key */
  __local uint* digit_masks = tables + RADIX;
  const uint word = lid / 32, bit = 1u << (lid % 32), below = bit - 1u;
  for (uint i = lid; i < RADIX * MASK_WORDS; i += WG) digit_masks[i] = 0;
{% else %}
  __local uint* warp_masks = tables;
  __local uint* digit_starts = tables + WARPS * RADIX;
  /* warp_slots[w * RADIX + d]: warp w's keys of digit d so far, then the slot of its first. */
  __local WARP_SLOT_T* warp_slots = (__local WARP_SLOT_T*)(digit_starts + RADIX);
  const uint warp = lid / WARP, lane = lid % WARP;
  const uint rounds = (n + WG - 1) / WG;
  const uint below = lanes_below();
  __local WARP_SLOT_T* my_slots = warp_slots + warp * RADIX;
  __local uint* my_masks = warp_masks + warp * RADIX;
  for (uint i = lid; i < WARPS * RADIX; i += WG) warp_masks[i] = 0;
{% endif %}

  for (uint shift = begin_bit; shift < end_bit; shift += {{ radix_bits }}) {
    const uint mask = (1u << min((uint){{ radix_bits }}, end_bit - shift)) - 1u;
{% if ranking == "serial" %}
    for (uint d = 0; d < RADIX; ++d) counts[d * WG + lid] = 0;
{% elif ranking == "bitmask" %}
    for (uint d = lid; d <= mask; d += WG) next_slot[d] = 0;
{% else %}
    for (uint i = lid; i < WARPS * RADIX; i += WG) warp_slots[i] = 0;
{% endif %}
    if (lid == 0) *pass_is_constant = 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    key_t k[EPT];
    /* The key's digit; after ranking, its digit << 16 | its rank among the warp's keys of that
       digit (n < 65536), so that no digit is worked out twice; then the key's slot. */
    uint slot[EPT];
{% if value_bytes > 0 %}
    value_t v[EPT];
{% endif %}
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      if (HOLDS(j)) {
        k[j] = keys[POSITION(j)];
{% if value_bytes > 0 %}
        v[j] = values[POSITION(j)];
{% endif %}
        slot[j] = digit_of(k[j], descending, shift, mask);
{% if ranking == "serial" %}
        ++counts[slot[j] * WG + lid];
{% elif ranking == "bitmask" %}
        atomic_inc(&next_slot[slot[j]]);
{% endif %}
      }
    }
{% if ranking == "warp_match" %}
    /* Per round, the lanes holding digit d set their bits in the warp's mask of d; the highest
       (the leader) advances the warp's count of d for all of them and shares the old count.
       Only the leader touches the count, so 16-bit counters take a plain read and write. */
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      if (j == rounds) break; /* the same for the whole work-group */
      const bool valid = HOLDS(j);
      const uint digit = valid ? slot[j] : 0;
      if (valid) atomic_or(&my_masks[digit], 1u << lane);
      warp_sync();
      const uint peers = valid ? my_masks[digit] : 0;
      const uint leader = 31 - clz(peers);
      const uint peers_up_to_me = popcount(peers & (below | (1u << lane)));
      const bool leads = valid && lane == leader;
      uint first = 0;
      if (leads) {
{% if wide_slots %}
        first = atomic_add(&my_slots[digit], peers_up_to_me);
{% else %}
        first = my_slots[digit];
        my_slots[digit] = (ushort)(first + peers_up_to_me);
{% endif %}
        my_masks[digit] = 0;
      }
      first = shuffle_from(first, leader);
      warp_sync();
      slot[j] = digit << 16 | (first + peers_up_to_me - 1);
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < RADIX; d += WG) {
      digit_starts[d] = warp_counts_to_offsets(warp_slots, d);
      if (digit_starts[d] == n) *pass_is_constant = 1;
    }
{% else %}
    barrier(CLK_LOCAL_MEM_FENCE);
{% endif %}
{% if ranking == "serial" %}
    SCAN_IN_PLACE(counts, RADIX * WG, RADIX, partial);
    /* Digit d's keys are [counts[d * WG], counts[(d + 1) * WG]) of the output. */
    for (uint d = lid; d <= mask; d += WG) {
      const uint end = d < mask ? counts[(d + 1) * WG] : n;
      if (end - counts[d * WG] == n) *pass_is_constant = 1;
    }
{% elif ranking == "bitmask" %}
    /* A pass whose digit is the same for every key would leave them where they are. */
    for (uint d = lid; d <= mask; d += WG)
      if (next_slot[d] == n) *pass_is_constant = 1;
{% endif %}
    barrier(CLK_LOCAL_MEM_FENCE);
    const bool skip = *pass_is_constant;
    barrier(CLK_LOCAL_MEM_FENCE); /* read by all before the next pass clears it */
    if (skip) continue;

{% if ranking == "serial" %}
    /* An item's keys of one digit take consecutive slots in its order. */
    UNROLL
    for (uint j = 0; j < EPT; ++j)
      if (HOLDS(j)) slot[j] = counts[slot[j] * WG + lid]++;
{% elif ranking == "bitmask" %}
    SCAN_IN_PLACE(next_slot, RADIX, (RADIX + WG - 1) / WG, partial);
    /* Per round, the items holding digit d set their bits in d's mask; an item's slot is d's
       next slot plus the set bits before its own; the round's last item of d advances it. */
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      const bool valid = HOLDS(j);
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
{% else %}
#if RADIX <= WG
    /* By shuffles, 2 barriers at any width (work-items past the digits add nothing). */
    const uint start = warp_exclusive_scan(lid < RADIX ? digit_starts[lid] : 0, partial);
    if (lid < RADIX) digit_starts[lid] = start;
    barrier(CLK_LOCAL_MEM_FENCE);
#else
    SCAN_IN_PLACE(digit_starts, RADIX, (RADIX + WG - 1) / WG, partial);
#endif
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      if (HOLDS(j)) {
        const uint digit = slot[j] >> 16;
        slot[j] = (slot[j] & 0xFFFFu) + digit_starts[digit] + my_slots[digit];
      }
    }
{% endif %}
    barrier(CLK_LOCAL_MEM_FENCE); /* every key is in registers before any moves */
    UNROLL
    for (uint j = 0; j < EPT; ++j) {
      if (HOLDS(j)) {
        keys[slot[j]] = k[j];
{% if value_bytes > 0 %}
        values[slot[j]] = v[j];
{% endif %}
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* The most keys of one bucket that a key is ranked among by comparison. */
#define BUCKET_LIMIT {{ bucket_limit }}

{% if segments %}
/* segment_rank ranks the compared bits, which it stores in local memory. */
#define COMPARED(key) (key)
{% else %}
/* single_group_hybrid ranks the keys of its tile, which must stay whole for its fallback. */
#define COMPARED(key) sort_bits((key), descending, begin_bit, end_bit)
{% endif %}

/* Slot of keys[p] in keys[0, size) sorted stably by COMPARED bits, where they are ordered by
   bucket (COMPARED bits >> bucket_shift): its bucket's first position plus its bucket's keys
   that sort before it. Sets *too_big if the bucket holds more than BUCKET_LIMIT keys (the slot
   is then meaningless). descending, begin_bit and end_bit are COMPARED's. */
inline uint slot_in_bucket(__local const key_t* keys, uint p, uint size, uint bucket_shift,
                           uint descending, uint begin_bit, uint end_bit,
                           __local uint* too_big) {
  const key_t mine = COMPARED(keys[p]);
  const key_t bucket = mine >> bucket_shift;
  uint before = 0, first = p, last = p + 1;
  for (; first > 0 && p - first < BUCKET_LIMIT; --first) {
    const key_t other = COMPARED(keys[first - 1]);
    if (other >> bucket_shift != bucket) break;
    before += other <= mine; /* equal keys from earlier positions stay before */
  }
  for (; last < size && last - first < BUCKET_LIMIT; ++last) {
    const key_t other = COMPARED(keys[last]);
    if (other >> bucket_shift != bucket) break;
    before += other < mine;
  }
  if (last - first >= BUCKET_LIMIT) *too_big = 1;
  return first + before;
}

{% if bucket_rank %}
/* single_group_hybrid's last step, where `rank` (the same for the work-group): tile_keys[0, n)
   are ordered by bucket (bits [rank_from_bit, end_bit) of the ordered key). Each key's slot is
   its bucket's first position plus the keys of its bucket that sort before it; keys and values
   go straight from the tile to their slots in keys_out and values_out. Returns whether it did:
   not where a bucket holds more than BUCKET_LIMIT keys. *too_big must be 0. Every work-item
   must call it, rank or not: barriers stay out of branches, which PoCL's work-item loops
   mishandle. */
bool rank_buckets_into(__global key_t* keys_out VALUES_ARG(__global value_t* values_out),
                       __local const key_t* tile_keys
                           VALUES_ARG(__local const value_t* tile_values),
                       uint n, uint begin_bit, uint end_bit, uint rank_from_bit, uint descending,
                       bool rank, __local uint* too_big) {
  const uint lid = get_local_id(0);
  uint slot[EPT];
  UNROLL
  for (uint j = 0; j < EPT; ++j)
    if (rank && j * WG + lid < n)
      slot[j] = slot_in_bucket(tile_keys, j * WG + lid, n, rank_from_bit - begin_bit, descending,
                               begin_bit, end_bit, too_big);
  barrier(CLK_LOCAL_MEM_FENCE);
  const bool ranked = rank && !*too_big;
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint p = j * WG + lid;
    if (ranked && p < n) {
      keys_out[slot[j]] = tile_keys[p];
{% if value_bytes > 0 %}
      values_out[slot[j]] = tile_values[p];
{% endif %}
    }
  }
  return ranked;
}

{% endif %}
{% if not segments %}
/* Sorts keys_in[0, n) (and values) into keys_out (which may be keys_in) by bits
   [begin_bit, end_bit) of the ordered key, n <= TILE. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void single_group_sort(__global const key_t* keys_in, __global key_t* keys_out
                       VALUES_ARG(__global const value_t* values_in)
                       VALUES_ARG(__global value_t* values_out), uint n,
                       uint begin_bit, uint end_bit, uint descending, uint rank_from_bit) {
  __local key_t tile_keys[TILE];
{% if value_bytes > 0 %}
  __local value_t tile_values[TILE];
{% endif %}
  __local uint tables[TABLE_WORDS];
  __local uint partial[WG];
  __local uint pass_is_constant;
  const uint lid = get_local_id(0);
  /* Unrolled, so that a work-item's loads are all in flight at once rather than one memory
     round trip after another. */
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid;
    if (i < n) {
      tile_keys[i] = keys_in[i];
{% if value_bytes > 0 %}
      tile_values[i] = values_in[i];
{% endif %}
    }
  }
{% if bucket_rank %}
  /* Passes over the top digits from rank_from_bit, then ranks within buckets. Where a bucket is
     too large to rank, passes over every digit after all: the top digits' passes were stable,
     so equal keys are still in their first order. */
  __local uint too_big;
  if (lid == 0) too_big = 0; /* sort_in_local's barriers order this before the rank reads it */
  sort_in_local(tile_keys VALUES_ARG(tile_values), n, rank_from_bit, end_bit, descending, tables,
                partial, &pass_is_constant);
  const bool every_bit_sorted = rank_from_bit == begin_bit;
  const bool ranked = rank_buckets_into(keys_out VALUES_ARG(values_out), tile_keys
                                        VALUES_ARG(tile_values), n, begin_bit, end_bit,
                                        rank_from_bit, descending, !every_bit_sorted, &too_big);
  sort_in_local(tile_keys VALUES_ARG(tile_values), n,
                ranked || every_bit_sorted ? end_bit : begin_bit, end_bit, descending, tables,
                partial, &pass_is_constant);
  if (ranked) return;
{% else %}
  /* rank_from_bit: unused (every pass, from begin_bit). */
  sort_in_local(tile_keys VALUES_ARG(tile_values), n, begin_bit, end_bit, descending, tables,
                partial, &pass_is_constant);
{% endif %}
  UNROLL
  for (uint j = 0; j < EPT; ++j) {
    const uint i = j * WG + lid;
    if (i < n) {
      keys_out[i] = tile_keys[i];
{% if value_bytes > 0 %}
      values_out[i] = tile_values[i];
{% endif %}
    }
  }
}

{% else %}
/* The bucket of ordered key o: its bits [bucket_shift, end_bit). */
inline key_t bucket_of(key_t k, uint descending, uint bucket_shift, uint end_bit) {
  const key_t o = ordered_bits(k, descending) >> bucket_shift;
  const uint width = end_bit - bucket_shift;
  return width >= {{ key_bits }} ? o : (key_t)(o & (((key_t)1 << width) - 1));
}

/* Whether position p of keys[0, n) starts a bucket: 0 and n do, and so does a key whose bucket
   differs from its predecessor's. */
inline bool starts_bucket(__global const key_t* keys, uint n, uint p, uint descending,
                          uint bucket_shift, uint end_bit) {
  return p == 0 || p == n ||
         bucket_of(keys[p], descending, bucket_shift, end_bit) !=
             bucket_of(keys[p - 1], descending, bucket_shift, end_bit);
}

/* found[i]: the first bucket start at or after from_i (i = 0, 1) if one lies within
   [from_i, from_i + TILE], else n + 1. Both searches share one loop: PoCL takes long to build
   each loop that holds barriers. Every work-item must call it; ends with a barrier. */
void find_bucket_starts(__global const key_t* keys, uint n, uint from0, uint from1,
                        uint descending, uint bucket_shift, uint end_bit, __local uint* found) {
  const uint lid = get_local_id(0);
  if (lid < 2) found[lid] = n + 1;
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint limit0 = min(n, from0 + TILE), limit1 = min(n, from1 + TILE);
  bool searching = true;
  for (uint offset = 0; offset <= TILE && searching; offset += WG) {
    const uint p0 = from0 + offset + lid, p1 = from1 + offset + lid;
    if (p0 <= limit0 && starts_bucket(keys, n, p0, descending, bucket_shift, end_bit))
      atomic_min(&found[0], p0);
    if (p1 <= limit1 && starts_bucket(keys, n, p1, descending, bucket_shift, end_bit))
      atomic_min(&found[1], p1);
    barrier(CLK_LOCAL_MEM_FENCE);
    searching = found[0] > n || found[1] > n;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
}

/* The hybrid path's last step, for buckets of up to BUCKET_LIMIT keys: keys_in[0, n) is
   ordered by bucket (bits [bucket_shift, end_bit) of the ordered key). Work-group g takes the
   buckets that start in [g, g + 1) * RANK_STRIDE, its range, ranks each key within its bucket
   by comparing it with the bucket's other keys (a bucket of b keys costs b local reads a key:
   no radix passes, no atomics), and writes keys and values straight to their positions in
   keys_out (which may be keys_in: every key stays within its bucket, so other work-groups
   still find the same bucket bounds). A range with a larger bucket goes to `ranges` for
   segment_sort (counts[0] of them) if it fits its TILE. A bucket larger than that (one key
   repeated: NaNs, zeros) is already in its sorted order if all its keys are equal, so each
   work-group copies the part of it within its stride through and checks that part; a part
   that holds unequal keys is counted in counts[1], and the host sorts keys_in again by the
   usual passes. */
#define RANK_STRIDE {{ rank_stride }}
#define RANK_SPAN (RANK_STRIDE + BUCKET_LIMIT)
#define RANK_ITEMS ((RANK_SPAN + WG - 1) / WG)
{% if rank_stride + bucket_limit <= 32 * work_group_size %}
#define RANK_UNROLL _Pragma("unroll")
{% else %}
#define RANK_UNROLL
{% endif %}

/* Adds [begin, end) to the list of ranges that segment_sort sorts. */
inline void list_range(__global uint* counts, __global uint* ranges, uint begin, uint end) {
  const uint at = atomic_inc(&counts[0]);
  ranges[2 * at] = begin;
  ranges[2 * at + 1] = end;
}

/* Copies keys_in[from, to) (and values) to the same positions of keys_out, part of a bucket
   larger than TILE, and sets *unequal where a key's compared bits differ from `reference`. */
inline void copy_equal_run(__global const key_t* keys_in, __global key_t* keys_out,
{% if value_bytes > 0 %}
                           __global const value_t* values_in, __global value_t* values_out,
{% endif %}
                           uint from, uint to, key_t reference, uint descending, uint begin_bit,
                           uint end_bit, __local uint* unequal) {
  for (uint p = from + get_local_id(0); p < to; p += WG) {
    const key_t k = keys_in[p];
    if (sort_bits(k, descending, begin_bit, end_bit) != reference) *unequal = 1;
    keys_out[p] = k;
{% if value_bytes > 0 %}
    values_out[p] = values_in[p];
{% endif %}
  }
}

__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segment_rank(__global const key_t* keys_in, __global key_t* keys_out,
{% if value_bytes > 0 %}
                  __global const value_t* values_in, __global value_t* values_out,
{% endif %}
                  uint n, uint begin_bit, uint end_bit, uint descending, uint bucket_shift,
                  __global uint* counts, __global uint* ranges) {
  __local key_t bits[RANK_SPAN];
  __local uint starts[2];
  __local uint too_big, unequal, last_start;
  const uint lid = get_local_id(0);
  const uint from = get_group_id(0) * RANK_STRIDE, stride_end = min(from + RANK_STRIDE, n);
  if (lid == 0) {
    too_big = 0;
    unequal = 0;
    last_start = 0;
  }
  /* The barriers in find_bucket_starts order these stores before any use. */
  find_bucket_starts(keys_in, n, from, stride_end, descending, bucket_shift, end_bit, starts);
  const uint begin = starts[0], end = starts[1];
  /* Without a bucket start in [from, from + RANK_STRIDE) no bucket starts here. */
  const bool has_buckets = begin <= n && begin < from + RANK_STRIDE;
  /* A range too large for segment_sort: only its last bucket can pass the stride, so that one
     is split off, and the buckets before it (less than a stride) are ranked here. The whole
     work-group takes the same branch, as its barrier requires. */
  const bool split = has_buckets && !(end <= n && end - begin <= TILE);
  if (split) {
    for (uint p = begin + 1 + lid; p < stride_end; p += WG)
      if (starts_bucket(keys_in, n, p, descending, bucket_shift, end_bit))
        atomic_max(&last_start, p);
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  const uint tail_start = max(last_start, begin); /* the split-off bucket's start */
  const uint rank_end = split ? tail_start : end;
  const bool fits_here = rank_end - begin <= RANK_SPAN;
  const bool tail_fits = end <= n && end - tail_start <= TILE;
  if (lid == 0) {
    if (has_buckets && !fits_here) list_range(counts, ranges, begin, rank_end);
    if (split && tail_fits) list_range(counts, ranges, tail_start, end);
  }
  /* The stride's part of a bucket larger than TILE: its first keys, of a bucket that started
     before (larger than TILE where the key TILE + 1 before its end still belongs to it), and
     its last keys, the bucket split off. */
  const uint head_end = begin <= n ? min(begin, stride_end) : stride_end;
  const bool large_head = from < head_end &&
                          (begin > n || (begin > TILE && bucket_of(keys_in[begin - TILE - 1],
                                                                   descending, bucket_shift,
                                                                   end_bit) ==
                                                             bucket_of(keys_in[from], descending,
                                                                       bucket_shift, end_bit)));
  const uint size = has_buckets && fits_here ? rank_end - begin : 0;
  /* Before the key loads, so that the copies hold no registers beside k, slot and v. */
{% if value_bytes > 0 %}
#define RUN_VALUES values_in, values_out,
{% else %}
#define RUN_VALUES
{% endif %}
  if (large_head)
    copy_equal_run(keys_in, keys_out, RUN_VALUES from, head_end,
                   sort_bits(keys_in[from - 1], descending, begin_bit, end_bit), descending,
                   begin_bit, end_bit, &unequal);
  if (split && !tail_fits)
    copy_equal_run(keys_in, keys_out, RUN_VALUES tail_start, stride_end,
                   sort_bits(keys_in[tail_start], descending, begin_bit, end_bit), descending,
                   begin_bit, end_bit, &unequal);
#undef RUN_VALUES
  key_t k[RANK_ITEMS];
  uint slot[RANK_ITEMS];
{% if value_bytes > 0 %}
  value_t v[RANK_ITEMS];
{% endif %}
  RANK_UNROLL
  for (uint j = 0; j < RANK_ITEMS; ++j) {
    const uint p = j * WG + lid;
    if (p < size) {
      k[j] = keys_in[begin + p];
{% if value_bytes > 0 %}
      v[j] = values_in[begin + p];
{% endif %}
      bits[p] = sort_bits(k[j], descending, begin_bit, end_bit);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  RANK_UNROLL
  for (uint j = 0; j < RANK_ITEMS; ++j) {
    const uint p = j * WG + lid;
    if (p < size)
      slot[j] = slot_in_bucket(bits, p, size, bucket_shift - begin_bit, descending, begin_bit,
                               end_bit, &too_big);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  if (lid == 0) {
    if (too_big) {
      if (rank_end - begin <= TILE)
        list_range(counts, ranges, begin, rank_end);
      else
        atomic_inc(&counts[1]);
    }
    if (unequal) atomic_inc(&counts[1]);
  }
  RANK_UNROLL
  for (uint j = 0; j < RANK_ITEMS; ++j) {
    if (!too_big && j * WG + lid < size) {
      keys_out[begin + slot[j]] = k[j];
{% if value_bytes > 0 %}
      values_out[begin + slot[j]] = v[j];
{% endif %}
    }
  }
}

/* Sorts, for work-group g, keys_in[ranges[2g], ranges[2g + 1]) (whole buckets, at most TILE
   keys, which segment_rank listed) by bits [begin_bit, end_bit) in local memory and writes
   them to the same positions of keys_out (which may be keys_in). */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void segment_sort(__global const key_t* keys_in, __global key_t* keys_out,
{% if value_bytes > 0 %}
                  __global const value_t* values_in, __global value_t* values_out,
{% endif %}
                  uint begin_bit, uint end_bit, uint descending, __global const uint* ranges) {
  __local key_t tile_keys[TILE];
{% if value_bytes > 0 %}
  __local value_t tile_values[TILE];
{% endif %}
  __local uint tables[TABLE_WORDS];
  __local uint partial[WG];
  __local uint flag;
  const uint lid = get_local_id(0);
  const uint begin = ranges[2 * get_group_id(0)];
  const uint size = ranges[2 * get_group_id(0) + 1] - begin;
  for (uint i = lid; i < size; i += WG) {
    tile_keys[i] = keys_in[begin + i];
{% if value_bytes > 0 %}
    tile_values[i] = values_in[begin + i];
{% endif %}
  }
  sort_in_local(tile_keys VALUES_ARG(tile_values), size, begin_bit, end_bit, descending, tables,
                partial, &flag);
  for (uint i = lid; i < size; i += WG) {
    keys_out[begin + i] = tile_keys[i];
{% if value_bytes > 0 %}
    values_out[begin + i] = tile_values[i];
{% endif %}
  }
}
{% endif %}
