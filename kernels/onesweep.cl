{# Onesweep path: all digit histograms in one read, then one kernel per pass that ranks a tile,
   finds its global offsets from the pass's histogram and by decoupled look-back, and writes its
   keys coalesced. #}
{% include "onesweep_common.cl" %}
/* One LSD pass. Each work-group takes the next tile by ticket, counts its digits and publishes
   the counts, ranks its keys stably to their slots in the tile's digit order, looks back over
   earlier tiles for its global offsets, then writes its keys (and values) in slot order so that
   neighbouring work-items write neighbouring addresses. */
__kernel __attribute__((reqd_work_group_size(WG, 1, 1)))
void onesweep_pass(__global const key_t* keys_in, __global key_t* keys_out,
{% if value_bytes > 0 %}
                   __global const value_t* values_in, __global value_t* values_out,
{% endif %}
                   offset_t n, uint shift, uint mask, uint descending,
                   uint pass, uint run, uint tiles, __global const uint* hist,
                   volatile __global uint* both_status, __global uint* ticket
{% if portions %}
                   , offset_t sort_n, offset_t portion_begin, uint portion, uint largest_tiles,
                   __global uint* carried
{% endif %}
                   ) {
{% if portions %}
  /* A portion of a sort of more keys than the look-back counts hold: n keys from key
     portion_begin of sort_n. Launches of the portions in order make up one pass; the last tile
     of each carries its digits' counts to the next (`carried`, two rows of RADIX). */
  keys_in += portion_begin;
{% if value_bytes > 0 %}
  values_in += portion_begin;
{% endif %}
{% endif %}
{% include "onesweep_tile_pass.cl" %}
}
