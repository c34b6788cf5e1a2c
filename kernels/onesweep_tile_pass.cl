{# The body of a kernel that runs one tile of an LSD pass (onesweep_pass, fused_onesweep), at the
   kernel's outermost scope, where its local arrays must be declared. The kernel provides keys_in,
   keys_out (values_in, values_out), n, shift, mask, descending, pass, run, tiles, hist,
   both_status and, with `fused`, the work-group's ticket group_ticket (tile group_ticket % tiles),
   begin_bit, end_bit, passes, next_hist, counts_passes, `counted` and, with `stages_values`,
   source_values and first_values (fused_onesweep.cl); else it draws the tile from `ticket` (with
   `resident_groups`, tile after tile until none is left). With `portions` (sorts of more keys than
   the look-back counts hold), keys_in and values_in start at key portion_begin of the sort's sort_n
   keys, and the kernel provides those, the portion's number, largest_tiles (the tiles of the
   largest portion) and carried. Each work-group counts its tile's digits and publishes the counts,
   ranks its keys stably to their slots in the tile's digit order, looks back over earlier tiles for
   its global offsets, then writes its keys (and values) in slot order so that neighbouring
   work-items write neighbouring addresses. #}
  __global const uint* digit_counts = hist + pass * RADIX;
{% if not portions %}
  const offset_t sort_n = n, portion_begin = 0; /* one launch sorts every key */
{% endif %}
  /* Runs (the passes not skipped) alternate between two status regions; each tile zeroes its
     row of the other one, which the next run uses, so no fill comes between passes. */
{% if portions %}
  const uint region_rows = largest_tiles; /* each portion's regions lie where the largest's do */
{% else %}
  const uint region_rows = tiles;
{% endif %}
  volatile __global uint* status = both_status + (offset_t)(run & 1) * region_rows * RADIX;
  volatile __global uint* next_status = both_status + (offset_t)(~run & 1) * region_rows * RADIX;
  __local uint tile_id;
{% if compact_digit_tables %}
  /* Work-item lid owns digit lid (RADIX == WG): its tile count and first slot stay in its
     registers, and the digits' scan by shuffles needs two words per warp. The host chooses this
     where the 2 KiB it saves let a tile scatter its keys while ranking. */
  __local uint partial[2 * WARPS];
{% else %}
  __local uint tile_counts[RADIX];      /* keys of each digit in this tile */
  __local uint tile_starts[RADIX];      /* the tile's first slot of each digit */
  __local uint partial[WG];
{% endif %}
  /* The pass's first slot of each digit (its exclusive scan of digit_counts), then that minus
     the tile's first slot: where the tile's slot i of the digit goes in keys_out. Sums wrap
     modulo 2^32, which holds every position. */
  __local uint global_minus_local[RADIX];
  /* The tile's keys in slot order, then its values once the keys are written out; with
     warp_match ranking that does not scatter while ranking, the warps' digit masks first. */
  __local {{ tile_storage }} tile_buffer[{{ tile_buffer_elements }}];
  __local key_t* sorted_keys = (__local key_t*)tile_buffer;
  /* Ranking's tables; after ranking, for pairs, the digit of each slot's key. Pairs reuse
     both buffers, so that their tiles are as large as keys-only tiles. */
  __local uint ranking_scratch[{{ scratch_words }}];
{% if ranking == "warp_match" and value_bytes == 0 %}
  /* Keys-only sorts: the atomics of keys past n go to a word of their lane's own, so that no
     branch (and convergence barrier) surrounds the count's and the ranking's atomics (H200,
     2^22-2^28: u32 keys 0.5-2% faster, f32 keys 1-3%; u32 + u32 so ran 8-15% slower). */
  __local uint lane_sinks[WARP];
{% endif %}
  const uint lid = get_local_id(0);
#if defined(WARP) && RADIX == WG
  /* The pass's digit count of this work-item's digit, scanned with the tile's own counts. */
  uint pass_count = digit_counts[lid];
#endif
{% if resident_groups %}
  /* Fewer work-groups than tiles: each takes tiles by ticket until none is left. Every
     work-group draws one ticket past the last tile, so the last of those draws resets the
     ticket for the next run. A work-group draws once all its work-items are done with the
     tile's local memory (the barrier after its draw). */
  const uint last_draw = tiles + (uint)get_num_groups(0) - 1;
#define DRAW_NEXT_TILE()                                \
  if (lid == 0) {                                       \
    tile_id = atomic_inc(ticket);                       \
    if (tile_id == last_draw) atomic_xchg(ticket, 0);   \
  }                                                     \
  barrier(CLK_LOCAL_MEM_FENCE)
  DRAW_NEXT_TILE();
  while (tile_id < tiles) {
{% else %}
  if (lid == 0) {
{% if fused %}
    tile_id = group_ticket % tiles;
{% else %}
    tile_id = atomic_inc(ticket);
    /* Every work-group has drawn its ticket once the last is drawn: the next run starts at 0. */
    if (tile_id == tiles - 1) atomic_xchg(ticket, 0);
{% endif %}
  }
{% endif %}
#if !(defined(WARP) && RADIX == WG)
  /* The pass's digit counts, scanned with the tile's own counts. */
  for (uint d = lid; d < RADIX; d += WG) global_minus_local[d] = digit_counts[d];
#endif
{% if ranking == "warp_match" %}
  /* Warp w owns tile positions [w * WARP * EPT, (w + 1) * WARP * EPT), in rounds of WARP.
     warp_slots[w * RADIX + d]: first the warp's count of digit d, then the slot of its next
     key of digit d. */
  __local uint* warp_slots = ranking_scratch;
{% if scatter_while_ranking %}
  __local uint* warp_masks = ranking_scratch + WARPS * RADIX;
{% else %}
  __local uint* warp_masks = (__local uint*)tile_buffer;
{% endif %}
  const uint warp = lid / WARP, lane = lid % WARP;
  for (uint i = lid; i < WARPS * RADIX; i += WG) warp_slots[i] = warp_masks[i] = 0;
#define POSITION(j) (tile_begin + warp * (WARP * EPT) + (j) * WARP + lane)
{% else %}
  /* Rounds of WG keys: round j holds tile positions [j * WG, (j + 1) * WG). */
#define MASK_WORDS ((WG + 31) / 32)
  __local uint* digit_masks = ranking_scratch;
  __local uint* earlier_rounds = ranking_scratch + RADIX * MASK_WORDS;
  for (uint i = lid; i < RADIX * MASK_WORDS; i += WG) digit_masks[i] = 0;
  for (uint d = lid; d < RADIX; d += WG) {
    earlier_rounds[d] = 0;
    tile_counts[d] = 0;
  }
#define POSITION(j) (tile_begin + (j) * WG + lid)
{% endif %}
{% if fused %}
  __local uint passes_counts[PASSES_MAX * RADIX]; /* with counts_passes: the tile's every pass */
  if (counts_passes)
    for (uint i = lid; i < passes * RADIX; i += WG) passes_counts[i] = 0;
{% endif %}
  barrier(CLK_LOCAL_MEM_FENCE);
  const uint tile = tile_id;
  const offset_t tile_begin = (offset_t)tile * TILE;
{% if prefetch_tiles > 0 %}
  /* The work-group that takes tile + PREFETCH comes about one tile's time later and finds its
     keys in L2, so a tile's loads wait on L2 rather than DRAM (H200, u32 at 2^28: each pass
     1,160 -> 1,133 us). Values are not prefetched: pairs ran slower with them. */
  if (tile + {{ prefetch_tiles }} < tiles) {
    const offset_t ahead = tile_begin + (offset_t){{ prefetch_tiles }} * TILE;
    prefetch_to_l2((__global const uchar*)(keys_in + ahead),
                   (min(ahead + TILE, n) - ahead) * sizeof(key_t));
  }
{% endif %}
  /* Only the last tile can be partial; the others skip every per-key compare with n. */
  const bool full_tile = tile_begin + TILE <= n;
  const uint tile_size = (uint)min((offset_t)TILE, n - tile_begin);
#define HAS_KEY(j) (full_tile || POSITION(j) < n)

  /* 1. Load every key of the tile before using any, so all loads are in flight at once. Keys
     stay in registers (the loops are unrolled). */
  key_t keys[EPT];
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) keys[j] = HAS_KEY(j) ? keys_in[POSITION(j)] : 0;
{% if stages_values %}
  /* Other tiles of pass 0 write over this tile's values once every tile is counted: each
     work-item first copies the values it will read to first_values, where values_in points, and
     reads them back itself, so no barrier orders the two. */
  if (pass == 0) {
    #pragma unroll
    for (uint j = 0; j < EPT; ++j)
      if (HAS_KEY(j)) first_values[POSITION(j)] = source_values[POSITION(j)];
  }
{% endif %}
{% if portions %}
  /* The next launch may sort a larger portion than this one: every row of the region is cleared. */
  for (uint row = tile; row < region_rows; row += tiles)
{% else %}
  const uint row = tile;
{% endif %}
    for (uint d = lid; d < RADIX; d += WG) next_status[(offset_t)row * RADIX + d] = 0;
{% if fused %}
  if (counts_passes) {
    uint shifts[PASSES_MAX], masks[PASSES_MAX];
    digit_fields(begin_bit, end_bit, passes, shifts, masks);
    #pragma unroll
    for (uint j = 0; j < EPT; ++j)
      if (HAS_KEY(j))
        count_digits(passes_counts, ordered_bits(keys[j], descending), shifts, masks, passes);
  }
{% endif %}

{% if copy_constant_passes %}
  /* A pass whose digit is the same for every key would only copy: every work-group sees so in
     the pass's digit counts and copies its tile in place, so no host round trip has to find such
     passes first (this run's status rows stay as the previous run zeroed them). GPUs only:
     PoCL 3.1 miscompiles a work-group-uniform return ahead of barriers (wrong orders and
     crashes with 2-digit passes), so elsewhere a constant pass runs like any other. */
  if (digit_counts[digit_of(keys_in[0], descending, shift, mask)] == sort_n) {
    #pragma unroll
    for (uint j = 0; j < EPT; ++j) {
      if (!HAS_KEY(j)) continue;
      keys_out[portion_begin + POSITION(j)] = keys[j];
{% if value_bytes > 0 %}
      values_out[portion_begin + POSITION(j)] = values_in[POSITION(j)];
{% endif %}
    }
{% if resident_groups %}
    DRAW_NEXT_TILE();
    continue;
{% else %}
    return;
{% endif %}
  }
{% endif %}
{% if scatter_while_ranking %}
  /* Digits are computed again where needed, and once a key is ranked its register holds its
     slot (for its value) or nothing: keys only at 256 x 24, 80 registers per work-item became
     64 when this came in, so 4 work-groups fit an SM instead of 3 (the u32 sort at 2^28 on the
     H200: 45.6 -> 48.6 Gkeys/s). */
#define DIGIT(j) digit_of(keys[j], descending, shift, mask)
{% if value_bytes > 0 %}
  uint slots[EPT];
{% endif %}
{% else %}
  /* slots[j] holds key j's digit until ranking turns it into the key's slot in the tile, so
     each digit is computed once. */
  uint slots[EPT];
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) slots[j] = digit_of(keys[j], descending, shift, mask);
#define DIGIT(j) slots[j]
{% endif %}

  /* 2. Count the tile's digits and publish the counts at once, so that later tiles looking
     back find this tile's aggregate without waiting for its ranking; then scan them. */
{% if ranking == "warp_match" %}
  __local uint* my_slots = warp_slots + warp * RADIX;
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
{% if value_bytes == 0 %}
    atomic_inc(HAS_KEY(j) ? &my_slots[DIGIT(j)] : &lane_sinks[lane]);
{% else %}
    if (HAS_KEY(j)) atomic_inc(&my_slots[DIGIT(j)]);
{% endif %}
  barrier(CLK_LOCAL_MEM_FENCE);
{% if compact_digit_tables %}
  const uint tile_count = warp_counts_to_offsets(warp_slots, lid);
{% else %}
  for (uint d = lid; d < RADIX; d += WG) tile_counts[d] = warp_counts_to_offsets(warp_slots, d);
{% endif %}
{% else %}
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
    if (HAS_KEY(j)) atomic_inc(&tile_counts[DIGIT(j)]);
  barrier(CLK_LOCAL_MEM_FENCE);
{% endif %}
{% if compact_digit_tables %}
  status[(offset_t)tile * RADIX + lid] =
      (tile == 0 ? STATUS_PREFIX : STATUS_AGGREGATE) | tile_count;
{% else %}
  for (uint d = lid; d < RADIX; d += WG) { /* same d per work-item as above: no barrier */
    tile_starts[d] = tile_counts[d];
    status[(offset_t)tile * RADIX + d] =
        (tile == 0 ? STATUS_PREFIX : STATUS_AGGREGATE) | tile_counts[d];
  }
{% endif %}
{% if fused %}
  /* With counts_passes, the tile adds its counts of every pass to hist (passes_counts is
     complete: a barrier came after the ranking's counts), and once every tile has published its
     own, the pass's digit counts are the sums of the tiles'. */
  if (counts_passes) {
    for (uint i = lid; i < passes * RADIX; i += WG)
      if (passes_counts[i] != 0) atomic_add(&hist[i], passes_counts[i]);
    for (uint i = tile * WG + lid; i < PASSES_MAX * RADIX; i += tiles * WG) next_hist[i] = 0;
  }
  barrier(CLK_GLOBAL_MEM_FENCE);
  if (counts_passes && lid == 0) {
    device_fence();
    atomic_inc(counted);
    wait_for_count(counted, tiles);
    device_fence();
  }
  barrier(CLK_GLOBAL_MEM_FENCE | CLK_LOCAL_MEM_FENCE);
  __local uint resident_prefixes[RADIX]; /* each digit's keys in the pass's earlier tiles */
  if (counts_passes) {
    for (uint d = lid; d < RADIX; d += WG) { /* same d per work-item as in step 4 */
      const uint2 sums = column_sums(status, tiles, tile, d);
      resident_prefixes[d] = sums.x;
#if defined(WARP) && RADIX == WG
      pass_count = sums.y;
#else
      global_minus_local[d] = sums.y;
#endif
    }
  }
{% endif %}
{% if compact_digit_tables %}
  const uint2 starts = warp_exclusive_scan_pair((uint2)(tile_count, pass_count), partial);
  global_minus_local[lid] = starts.y - starts.x;
{% else %}
#if defined(WARP) && RADIX == WG
  const uint2 starts = warp_exclusive_scan_pair((uint2)(tile_starts[lid], pass_count), partial);
  tile_starts[lid] = starts.x;
  global_minus_local[lid] = starts.y;
  barrier(CLK_LOCAL_MEM_FENCE);
#else
  barrier(CLK_LOCAL_MEM_FENCE);
  scan_digits(tile_starts, partial);
  scan_digits(global_minus_local, partial);
#endif
{% endif %}

  /* 3. Rank each key among the tile's keys of its digit, stably, giving its slot in the tile. */
{% if ranking == "warp_match" %}
{% if compact_digit_tables %}
  /* Row i % RADIX of warp_slots is lid's digit, whose counts this work-item turned into offsets. */
  for (uint i = lid; i < WARPS * RADIX; i += WG) warp_slots[i] += starts.x;
{% else %}
  for (uint i = lid; i < WARPS * RADIX; i += WG) warp_slots[i] += tile_starts[i % RADIX];
{% endif %}
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Per round, the lanes holding digit d each set their bit in the warp's mask of d; the
     highest of them (the leader) claims their slots with one local atomic, shares the first
     by shuffle, and clears the mask. With 8 ballots per key instead of the masks the whole
     u32 sort at 2^28 took 14% longer on the H200, and with a read, warp barrier and write
     of the slot counter instead of the atomic and shuffle 8% longer. */
  const uint below = lanes_below();
  __local uint* my_masks = warp_masks + warp * RADIX;
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) {
    const bool valid = HAS_KEY(j);
    const uint digit = DIGIT(j);
{% if value_bytes == 0 %}
    __local uint* mask = valid ? &my_masks[digit] : &lane_sinks[lane];
    atomic_or(mask, 1u << lane);
    warp_sync();
    const uint peers = valid ? *mask : 0;
{% else %}
    if (valid) atomic_or(&my_masks[digit], 1u << lane);
    warp_sync();
    const uint peers = valid ? my_masks[digit] : 0;
{% endif %}
    const uint leader = 31 - clz(peers);
    const uint peers_up_to_me = popcount(peers & (below | (1u << lane))); /* the leader: all */
    const bool leads = valid && lane == leader;
{% if value_bytes == 0 %}
    uint first = atomic_add(leads ? &my_slots[digit] : &lane_sinks[lane], peers_up_to_me);
{% else %}
    uint first = leads ? atomic_add(&my_slots[digit], peers_up_to_me) : 0;
{% endif %}
    first = shuffle_from(first, leader);
    if (leads) my_masks[digit] = 0;
    warp_sync();
{% if scatter_while_ranking %}
    if (valid) sorted_keys[first + peers_up_to_me - 1] = keys[j];
{% if value_bytes > 0 %}
    slots[j] = first + peers_up_to_me - 1;
{% endif %}
  }
{% else %}
    slots[j] = first + peers_up_to_me - 1;
  }
  barrier(CLK_LOCAL_MEM_FENCE); /* every warp's masks are done before keys land over them */
{% endif %}
{% else %}
  /* Each work-item sets its bit in its digit's bitmask; its rank is the number of set bits
     below its own plus the digit's count in earlier rounds. */
  const uint word = lid / 32;
  const uint below = (1u << (lid % 32)) - 1u;
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) {
    const bool valid = HAS_KEY(j);
    const uint digit = DIGIT(j);
    if (valid) atomic_or(&digit_masks[digit * MASK_WORDS + word], 1u << (lid % 32));
    barrier(CLK_LOCAL_MEM_FENCE);
    if (valid) {
      __local const uint* masks = digit_masks + digit * MASK_WORDS;
      uint rank = earlier_rounds[digit] + popcount(masks[word] & below);
      for (uint w = 0; w < word; ++w) rank += popcount(masks[w]);
      slots[j] = tile_starts[digit] + rank;
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

{% if prefetch_values %}
  /* The tile's values are wanted once its keys are out: asked of L2 now, they arrive during the
     look-back (H200, 2^28: u32 + u32 8.00 -> 7.73 ms, u64 + u32 13.37 -> 13.12; on the H100
     u32 + u32 at 256 x 32 6% slower, so the tuner chooses; f32 keys ran 8.50 -> 8.76, so never
     for floats). */
  prefetch_to_l2((__global const uchar*)(values_in + tile_begin), tile_size * sizeof(value_t));
{% endif %}
  /* 4. Sum earlier tiles' counts until one holds an inclusive prefix; publish ours. */
{% if compact_digit_tables %}
  {
    const uint d = lid, count = tile_count;
{% else %}
  for (uint d = lid; d < RADIX; d += WG) {
    const uint count = tile_counts[d];
{% endif %}
    uint prefix = 0;
{% if fused %}
    if (counts_passes)
      prefix = resident_prefixes[d];
    else
{% endif %}
    if (tile > 0) {
      prefix = exclusive_prefix(status, tile, d);
      status[(offset_t)tile * RADIX + d] = STATUS_PREFIX | (prefix + count);
    }
{% if portions %}
    /* Keys of digit d in the earlier portions: the last tile of each portion carries the sum on
       to the next (two rows, so that a portion reads one while its last tile writes the other). */
    const uint in_earlier_portions = portion > 0 ? carried[(portion & 1) * RADIX + d] : 0;
    if (tile == tiles - 1) carried[(~portion & 1) * RADIX + d] = in_earlier_portions + prefix + count;
    prefix += in_earlier_portions;
{% endif %}
{% if compact_digit_tables %}
    global_minus_local[d] += prefix;
{% else %}
    global_minus_local[d] += prefix - tile_starts[d];
{% endif %}
  }

  /* 5. Reorder the tile in local memory, then write it out in slot order: neighbouring
     work-items write neighbouring addresses within each digit's run. */
{% if not scatter_while_ranking %}
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
    if (HAS_KEY(j)) sorted_keys[slots[j]] = keys[j];
{% endif %}
  barrier(CLK_LOCAL_MEM_FENCE);
{% if value_bytes > 0 %}
  __local uchar* slot_digits = (__local uchar*)ranking_scratch; /* ranking is over */
{% endif %}
  for (uint i = lid; i < tile_size; i += WG) {
    const key_t key = sorted_keys[i];
    const uint digit = digit_of(key, descending, shift, mask);
    keys_out[(offset_t)(global_minus_local[digit] + i)] = key;
{% if value_bytes > 0 %}
    slot_digits[i] = (uchar)digit;
{% endif %}
  }
{% if value_rounds > 1 %}
  /* 6. The values wait in registers and pass through the same buffer, once every key is out of
     it, in rounds of {{ round_slots }} slots, so that values wider than the keys need room for
     one round's only. */
  value_t own_values[EPT];
  #pragma unroll
  for (uint j = 0; j < EPT; ++j) own_values[j] = HAS_KEY(j) ? values_in[POSITION(j)] : 0;
  __local value_t* sorted_values = (__local value_t*)tile_buffer;
  for (uint first = 0; first < tile_size; first += {{ round_slots }}) {
    barrier(CLK_LOCAL_MEM_FENCE);
    #pragma unroll
    for (uint j = 0; j < EPT; ++j)
      if (HAS_KEY(j) && slots[j] - first < {{ round_slots }})
        sorted_values[slots[j] - first] = own_values[j];
    barrier(CLK_LOCAL_MEM_FENCE);
    const uint round_end = min(first + {{ round_slots }}, tile_size);
    for (uint i = first + lid; i < round_end; i += WG)
      values_out[(offset_t)(global_minus_local[slot_digits[i]] + i)] = sorted_values[i - first];
  }
{% elif value_bytes > 0 %}
  /* 6. The same for the values, through the same buffer once every key is out of it. */
  __local value_t* sorted_values = (__local value_t*)tile_buffer;
  barrier(CLK_LOCAL_MEM_FENCE);
  #pragma unroll
  for (uint j = 0; j < EPT; ++j)
    if (HAS_KEY(j)) sorted_values[slots[j]] = values_in[POSITION(j)];
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint i = lid; i < tile_size; i += WG)
    values_out[(offset_t)(global_minus_local[slot_digits[i]] + i)] = sorted_values[i];
{% endif %}
{% if resident_groups %}
  DRAW_NEXT_TILE();
  }
{% endif %}
