{# What onesweep's programs share: look-back status words, digit fields, the histogram kernel of
   every pass, and the look-back walk. #}
{% include "common.cl" %}
#define TILE (WG * EPT)
#define PASSES_MAX {{ max_passes }}
{% if value_bytes > 0 %}
typedef {{ value_storage }} value_t;
{% endif %}

/* Look-back status word per (tile, digit): two flag bits over a 30-bit count. Flag and count
   share one word, so a plain volatile store publishes both at once (an atomic exchange in its
   place made the u32 sort about 2% slower on the H200). */
#define STATUS_AGGREGATE 0x40000000u
#define STATUS_PREFIX 0x80000000u
#define STATUS_COUNT 0x3FFFFFFFu

inline uint pass_shift(uint begin_bit, uint pass) { return begin_bit + pass * {{ radix_bits }}; }
inline uint pass_mask(uint begin_bit, uint end_bit, uint pass) {
  const uint width = min((uint){{ radix_bits }}, end_bit - pass_shift(begin_bit, pass));
  return (1u << width) - 1u;
}

/* Exclusive scan of data[0, RADIX) in local memory by the whole work-group, in place. Every
   work-item must call it; it ends with a barrier. */
inline void scan_digits(__local uint* data, __local uint* partial) {
  const uint lid = get_local_id(0);
  const uint per_item = (RADIX + WG - 1) / WG;
  const uint first = min(lid * per_item, (uint)RADIX);
  const uint last = min(first + per_item, (uint)RADIX);
  uint sum = 0;
  for (uint d = first; d < last; ++d) sum += data[d];
  uint running = items_before(sum, partial);
  for (uint d = first; d < last; ++d) {
    const uint count = data[d];
    data[d] = running;
    running += count;
  }
  barrier(CLK_LOCAL_MEM_FENCE);
}

/* Where each pass's digit lies in an ordered key o: (o >> shifts[p]) & masks[p]. Worked out
   once per work-item, so that counting a key costs a shift, a mask and an atomic per pass
   (worked out per key, the masks took more instructions than the atomics). */
inline void digit_fields(uint begin_bit, uint end_bit, uint passes, uint* shifts, uint* masks) {
  #pragma unroll
  for (uint p = 0; p < PASSES_MAX; ++p) {
    shifts[p] = pass_shift(begin_bit, p);
    masks[p] = p < passes ? pass_mask(begin_bit, end_bit, p) : 0;
  }
}

/* Adds ordered key o's digit of every pass to counts[pass * RADIX + digit]. */
inline void count_digits(__local uint* counts, key_t o, const uint* shifts, const uint* masks,
                         uint passes) {
  #pragma unroll
  for (uint p = 0; p < PASSES_MAX; ++p)
    if (p < passes) atomic_inc(&counts[p * RADIX + ((uint)(o >> shifts[p]) & masks[p])]);
}

/* Keys a work-item loads before counting any of them, so that many loads are in flight. */
#define HISTOGRAM_BATCH 8

/* Digit counts of every pass in one read of the keys: hist[pass * RADIX + digit], which must
   be zero before. Sorts alternate between two histograms, each zeroing the other for the next
   sort (the passes of the sort before, which read it, have finished), and this sort's first
   run's look-back status, `first_status_words` words: no fill precedes a sort, and no kernel
   of its own turns counts into offsets (each pass's work-groups scan them). Where `copy` is
   set it also writes the keys and values it reads to keys_copy and values_copy: a sort of an
   odd number of passes then starts from that copy, so that its last pass ends in place and no
   copy back (a command, and a read and write of every key, each) follows it. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void histogram_all_passes(__global const key_t* keys, offset_t n, uint begin_bit, uint end_bit,
                          uint passes, uint descending, __global uint* hist,
                          __global uint* next_hist, __global uint* first_status,
                          offset_t first_status_words, uint copy, __global key_t* keys_copy
{% if value_bytes > 0 %}
                          , __global const value_t* values, __global value_t* values_copy
{% endif %}
{% if portions %}
                          , offset_t first_key /* counts keys[first_key, first_key + n) */
{% endif %}
                          ) {
{% if portions %}
  keys += first_key;
  keys_copy += first_key;
{% if value_bytes > 0 %}
  values += first_key;
  values_copy += first_key;
{% endif %}
{% endif %}
  __local uint counts[PASSES_MAX * RADIX];
  const uint lid = get_local_id(0);
  for (uint i = lid; i < passes * RADIX; i += WG) counts[i] = 0;
  const offset_t stride = get_global_size(0);
  for (offset_t i = get_global_id(0); i < first_status_words; i += stride) first_status[i] = 0;
  for (offset_t i = get_global_id(0); i < PASSES_MAX * RADIX; i += stride) next_hist[i] = 0;
  uint shifts[PASSES_MAX], masks[PASSES_MAX];
  digit_fields(begin_bit, end_bit, passes, shifts, masks);
  barrier(CLK_LOCAL_MEM_FENCE);
  offset_t i = get_global_id(0);
  for (; i < n && n - i > (HISTOGRAM_BATCH - 1) * stride; i += HISTOGRAM_BATCH * stride) {
    key_t batch[HISTOGRAM_BATCH];
    #pragma unroll
    for (uint b = 0; b < HISTOGRAM_BATCH; ++b) batch[b] = keys[i + b * stride];
    if (copy) {
{% if value_bytes > 0 %}
      /* All loads before any store: the copy may alias its source as far as the compiler
         knows, so loads between stores would wait for them. */
      value_t values_batch[HISTOGRAM_BATCH];
      #pragma unroll
      for (uint b = 0; b < HISTOGRAM_BATCH; ++b) values_batch[b] = values[i + b * stride];
      #pragma unroll
      for (uint b = 0; b < HISTOGRAM_BATCH; ++b) values_copy[i + b * stride] = values_batch[b];
{% endif %}
      #pragma unroll
      for (uint b = 0; b < HISTOGRAM_BATCH; ++b) keys_copy[i + b * stride] = batch[b];
    }
    #pragma unroll
    for (uint b = 0; b < HISTOGRAM_BATCH; ++b)
      count_digits(counts, ordered_bits(batch[b], descending), shifts, masks, passes);
  }
  for (; i < n; i += stride) {
    const key_t key = keys[i];
    if (copy) {
      keys_copy[i] = key;
{% if value_bytes > 0 %}
      values_copy[i] = values[i];
{% endif %}
    }
    count_digits(counts, ordered_bits(key, descending), shifts, masks, passes);
  }
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < passes * RADIX; i += WG) {
    if (counts[i] != 0) atomic_add(&hist[i], counts[i]);
  }
}

{% if ranking == "warp_match" %}
{% include "warp.cl" %}
{% if prefetch_tiles > 0 or prefetch_values %}
/* Asks the L2 cache for `bytes` bytes from `first`, one request per 128-byte line, without
   waiting. */
inline void prefetch_to_l2(__global const uchar* first, offset_t bytes) {
  for (offset_t i = get_local_id(0) * 128; i < bytes; i += WG * 128)
    asm volatile("prefetch.global.L2 [%0];" : : "l"((ulong)(first + i)));
}
{% endif %}
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

