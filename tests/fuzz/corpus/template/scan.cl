{# Scanning phase: exclusive prefix sums of a long array, a tile per work-group plus tile totals. #}
typedef {{ offset_type }} offset_t;

#define WG {{ work_group_size }}
#define SCAN_EPT {{ scan_elements_per_thread }}
#define TILE (WG * SCAN_EPT)

/* Exclusive scan of one tile in place; the tile's total goes to tile_sums[group]. Each work-item
   scans SCAN_EPT consecutive values serially, then the work-group scans the work-items' totals. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void scan_tiles(__global offset_t* data, offset_t length, __global offset_t* tile_sums) {
  __local offset_t partial[WG];
  const uint lid = get_local_id(0);
  const offset_t begin = get_group_id(0) * TILE + lid * SCAN_EPT;

  offset_t total = 0;
  for (uint j = 0; j < SCAN_EPT; ++j) {
    if (begin + j < length) total += data[begin + j];
  }
  partial[lid] = total;
  barrier(CLK_LOCAL_MEM_FENCE);
  /* Hillis-Steele inclusive scan over the work-items' totals (works for any WG). */
  for (uint offset = 1; offset < WG; offset <<= 1) {
    const offset_t addend = lid >= offset ? partial[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    partial[lid] += addend;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  offset_t running = partial[lid] - total;
  for (uint j = 0; j < SCAN_EPT; ++j) {
    if (begin + j < length) {
      const offset_t value = data[begin + j];
      data[begin + j] = running;
      running += value;
    }
  }
  if (lid == WG - 1) tile_sums[get_group_id(0)] = partial[WG - 1];
}

/* Adds each tile's scanned offset to its elements, completing a multi-tile scan. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void add_tile_offsets(__global offset_t* data, offset_t length,
                      __global const offset_t* tile_offsets) {
  const offset_t tile_offset = tile_offsets[get_group_id(0)];
  const offset_t begin = get_group_id(0) * TILE + get_local_id(0) * SCAN_EPT;
  for (uint j = 0; j < SCAN_EPT; ++j) {
    if (begin + j < length) data[begin + j] += tile_offset;
  }
}
