{# Onesweep path: all digit histograms in one read, then one kernel per pass that ranks a tile,
   finds its global offsets by decoupled look-back and writes its keys coalesced. #}
{% include "common.cl" %}
#define TILE (WG * EPT)
#define PASSES_MAX {{ max_passes }}
{% if value_bytes > 0 %}
typedef {{ value_storage }} value_t;
{% endif %}

/* Look-back status word per (tile, digit): two flag bits over a 30-bit count. */
#define STATUS_AGGREGATE 0x40000000u
#define STATUS_PREFIX 0x80000000u
#define STATUS_COUNT 0x3FFFFFFFu

inline uint pass_shift(uint begin_bit, uint pass) { return begin_bit + pass * {{ radix_bits }}; }
inline uint pass_mask(uint begin_bit, uint end_bit, uint pass) {
  const uint width = min((uint){{ radix_bits }}, end_bit - pass_shift(begin_bit, pass));
  return (1u << width) - 1u;
}

/* Exclusive scan of data[0, RADIX) in local memory by the whole work-group; returns nothing,
   leaves the total in *total. Every work-item must call it. */
inline void scan_digits(__local uint* data, __local uint* partial, __local uint* total) {
  const uint lid = get_local_id(0);
  const uint per_item = (RADIX + WG - 1) / WG;
  const uint first = min(lid * per_item, (uint)RADIX);
  const uint last = min(first + per_item, (uint)RADIX);
  uint sum = 0;
  for (uint d = first; d < last; ++d) sum += data[d];
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < WG; offset <<= 1) {
    const uint addend = lid >= offset ? partial[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    partial[lid] += addend;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  uint running = partial[lid] - sum;
  for (uint d = first; d < last; ++d) {
    const uint count = data[d];
    data[d] = running;
    running += count;
  }
  if (lid == WG - 1) *total = partial[WG - 1];
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* Digit counts of every pass in one read of the keys: hist[pass * RADIX + digit]. The buffer
   must be zeroed first. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_all_passes(__global const key_t* keys, offset_t n, uint begin_bit, uint end_bit,
                          uint passes, uint descending, __global uint* hist) {
  __local uint counts[PASSES_MAX * RADIX];
  const uint lid = get_local_id(0);
  for (uint i = lid; i < passes * RADIX; i += WG) counts[i] = 0;
  barrier(CLK_LOCAL_MEM_FENCE);
  const offset_t stride = get_global_size(0);
  for (offset_t i = get_global_id(0); i < n; i += stride) {
    const key_t o = ordered_bits(keys[i], descending);
    for (uint p = 0; p < passes; ++p) {
      const uint digit = (uint)(o >> pass_shift(begin_bit, p)) & pass_mask(begin_bit, end_bit, p);
      atomic_inc(&counts[p * RADIX + digit]);
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < passes * RADIX; i += WG) {
    if (counts[i] != 0) atomic_add(&hist[i], counts[i]);
  }
}

{% if ranking == "warp_match" %}
/* NVIDIA warp primitives (sm_70+), used only when the device reports 32-wide warps. */
#define WARP 32
#define WARPS (WG / WARP)
inline uint ballot(uint predicate) {
  uint lanes;
  asm volatile("{ .reg .pred p; setp.ne.u32 p, %1, 0; vote.sync.ballot.b32 %0, p, 0xffffffff; }"
               : "=r"(lanes)
               : "r"(predicate));
  return lanes;
}
/* The lanes whose digit equals this lane's, from one ballot per digit bit. match.any does this
   in one instruction, but with it the whole u32 sort at 2^28 took 35% longer on the H200. */
inline uint digit_peers(uint digit) {
  uint peers = 0xffffffffu;
  #pragma unroll
  for (uint bit = 0; bit < {{ radix_bits }}; ++bit) {
    const uint lanes_with_bit = ballot((digit >> bit) & 1u);
    peers &= ((digit >> bit) & 1u) ? lanes_with_bit : ~lanes_with_bit;
  }
  return peers;
}
inline uint lanes_below(void) {
  uint mask;
  asm("mov.u32 %0, %%lanemask_lt;" : "=r"(mask));
  return mask;
}
inline void warp_sync(void) { asm volatile("bar.warp.sync 0xffffffff;"); }
{% endif %}

/* Digit d's count over all tiles before `tile` (> 0): walks back until a tile that holds an
   inclusive prefix, reading LOOKBACK_WIDTH status words per round so that their latencies
   overlap (the walk is a chain of dependent L2 reads, the pass's second largest cost). */
#define LOOKBACK_WIDTH 4
inline uint exclusive_prefix(volatile __global const uint* status, uint tile, uint d) {
  uint prefix = 0;
  int t = (int)tile - 1;
  for (;;) {
    uint seen[LOOKBACK_WIDTH];
    #pragma unroll
    for (int k = 0; k < LOOKBACK_WIDTH; ++k)
      seen[k] = t - k >= 0 ? status[(offset_t)(t - k) * RADIX + d] : STATUS_PREFIX;
    #pragma unroll
    for (int k = 0; k < LOOKBACK_WIDTH; ++k) {
      if (seen[k] == 0) break; /* tile t has not published yet: read again from it */
      prefix += seen[k] & STATUS_COUNT;
      if (seen[k] & STATUS_PREFIX) return prefix;
      --t;
    }
  }
}

/* One LSD pass. Each work-group takes the next tile by ticket, ranks its keys stably, publishes
   its digit counts, looks back over earlier tiles for its global offsets, then writes its keys
   (and values) in digit order so that neighbouring work-items write neighbouring addresses. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void onesweep_pass(__global const key_t* keys_in, __global key_t* keys_out,
{% if value_bytes > 0 %}
                   __global const value_t* values_in, __global value_t* values_out,
{% endif %}
                   offset_t n, uint shift, uint mask, uint descending,
                   uint pass, uint tiles, __global const uint* all_digit_offsets,
                   volatile __global uint* all_status, __global uint* tickets) {
  __global const uint* digit_offsets = all_digit_offsets + pass * RADIX;
  volatile __global uint* status = all_status + (offset_t)pass * tiles * RADIX;
  __local uint tile_id;
  __local uint tile_counts[RADIX];      /* keys of each digit in this tile */
  __local uint partial[WG];
  __local uint total;
  __local int global_minus_local[RADIX];
  __local key_t sorted_keys[TILE];
{% if value_bytes > 0 %}
  __local value_t sorted_values[TILE];
{% endif %}
  const uint lid = get_local_id(0);
  if (lid == 0) tile_id = atomic_inc(&tickets[pass]);
  for (uint d = lid; d < RADIX; d += WG) tile_counts[d] = 0;
{% if ranking == "warp_match" %}
  /* Warp w owns tile positions [w * WARP * EPT, (w + 1) * WARP * EPT), in rounds of WARP. */
  __local uint warp_counts[WARPS * RADIX];
  const uint warp = lid / WARP, lane = lid % WARP;
  for (uint i = lid; i < WARPS * RADIX; i += WG) warp_counts[i] = 0;
#define POSITION(j) (tile_begin + warp * (WARP * EPT) + (j) * WARP + lane)
{% else %}
  /* Rounds of WG keys: round j holds tile positions [j * WG, (j + 1) * WG). */
#define MASK_WORDS ((WG + 31) / 32)
  __local uint digit_masks[RADIX * MASK_WORDS];
  __local uint earlier_rounds[RADIX];
  for (uint i = lid; i < RADIX * MASK_WORDS; i += WG) digit_masks[i] = 0;
  for (uint d = lid; d < RADIX; d += WG) earlier_rounds[d] = 0;
#define POSITION(j) (tile_begin + (j) * WG + lid)
{% endif %}
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint tile = tile_id;
  const offset_t tile_begin = (offset_t)tile * TILE;
#define DIGIT(k) digit_of((k), descending, shift, mask)

  /* 1. Load every key of the tile before using any, so all loads are in flight at once; keys
     and ranks stay in registers (the loops are unrolled), digits are recomputed when needed. */
  key_t keys[EPT];
  uint ranks[EPT];
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) keys[j] = POSITION(j) < n ? keys_in[POSITION(j)] : 0;

  /* 2. Count the tile's digits and publish them at once, so that later tiles looking back
     find this tile's aggregate without waiting for its ranking. */
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
    if (POSITION(j) < n) atomic_inc(&tile_counts[DIGIT(keys[j])]);
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint d = lid; d < RADIX; d += WG)
    atomic_xchg(status + (offset_t)tile * RADIX + d,
                (tile == 0 ? STATUS_PREFIX : STATUS_AGGREGATE) | tile_counts[d]);

  /* 3. Rank each key among the tile's keys of its digit, stably. */
{% if ranking == "warp_match" %}
  __local uint* my_counts = warp_counts + warp * RADIX;
  const uint below = lanes_below();
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) {
    const bool valid = POSITION(j) < n;
    const uint digit = valid ? DIGIT(keys[j]) : 0;
    const uint peers = digit_peers(digit) & ballot(valid); /* lanes past n match no one */
    const uint before = valid ? my_counts[digit] : 0;
    warp_sync();
    if (valid && (peers & below) == 0) my_counts[digit] = before + popcount(peers);
    warp_sync();
    ranks[j] = before + popcount(peers & below);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Per digit, earlier warps' counts become this warp's base. */
  for (uint d = lid; d < RADIX; d += WG) {
    uint running = 0;
    for (uint w = 0; w < WARPS; ++w) {
      const uint count = warp_counts[w * RADIX + d];
      warp_counts[w * RADIX + d] = running;
      running += count;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
    if (POSITION(j) < n) ranks[j] += my_counts[DIGIT(keys[j])];
{% else %}
  /* Each work-item sets its bit in its digit's bitmask; its rank is the number of set bits
     below its own plus the digit's count in earlier rounds. */
  const uint word = lid / 32;
  const uint below = (1u << (lid % 32)) - 1u;
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) {
    const bool valid = POSITION(j) < n;
    const uint digit = DIGIT(keys[j]);
    if (valid) atomic_or(&digit_masks[digit * MASK_WORDS + word], 1u << (lid % 32));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (valid) {
      __local const uint* masks = digit_masks + digit * MASK_WORDS;
      uint rank = earlier_rounds[digit] + popcount(masks[word] & below);
      for (uint w = 0; w < word; ++w) rank += popcount(masks[w]);
      ranks[j] = rank;
    }
    barrier(CLK_LOCAL_MEM_FENCE);
    for (uint d = lid; d < RADIX; d += WG) {
      for (uint w = 0; w < MASK_WORDS; ++w) {
        earlier_rounds[d] += popcount(digit_masks[d * MASK_WORDS + w]);
        digit_masks[d * MASK_WORDS + w] = 0;
      }
    }
    barrier(CLK_LOCAL_MEM_FENCE);
  }
{% endif %}

  /* 4. Sum earlier tiles' counts until one holds an inclusive prefix; publish ours. */
  for (uint d = lid; d < RADIX; d += WG) {
    if (tile == 0) {
      global_minus_local[d] = (int)digit_offsets[d];
      continue;
    }
    const uint prefix = exclusive_prefix(status, tile, d);
    atomic_xchg(status + (offset_t)tile * RADIX + d, STATUS_PREFIX | (prefix + tile_counts[d]));
    global_minus_local[d] = (int)(digit_offsets[d] + prefix);
  }
  scan_digits(tile_counts, partial, &total);  /* tile_counts now holds the tile's digit starts */
  for (uint d = lid; d < RADIX; d += WG) global_minus_local[d] -= (int)tile_counts[d];

  /* 5. Reorder the tile in local memory, then write it out in order: neighbouring work-items
     write neighbouring addresses within each digit's run. */
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) {
    if (POSITION(j) < n) {
      const uint slot = tile_counts[DIGIT(keys[j])] + ranks[j];
      sorted_keys[slot] = keys[j];
      ranks[j] = slot;
    }
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint tile_size = (uint)min((offset_t)TILE, n - tile_begin);
  for (uint i = lid; i < tile_size; i += WG) {
    const key_t key = sorted_keys[i];
    keys_out[(offset_t)(global_minus_local[DIGIT(key)] + (int)i)] = key;
  }
{% if value_bytes > 0 %}
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
    if (POSITION(j) < n) sorted_values[ranks[j]] = values_in[POSITION(j)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < tile_size; i += WG)
    values_out[(offset_t)(global_minus_local[DIGIT(sorted_keys[i])] + (int)i)] = sorted_values[i];
{% endif %}
}
