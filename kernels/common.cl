{# Shared pieces: storage types, the key -> ordered-bits transform and digit extraction. #}
typedef {{ key_storage }} key_t;      /* raw bits of a {{ key_type }} key; the sort moves these */
typedef {{ offset_type }} offset_t;   /* wide enough for every index and global offset */

#define RADIX {{ 1 << radix_bits }}
#define WG {{ work_group_size }}
#define EPT {{ elements_per_thread }}
#define SIGN_BIT ((key_t)1 << {{ key_bits - 1 }})
{% if key_kind == "float" %}
#define EXPONENT_ALL_ONES ((key_t){{ exponent_mask }})
{% endif %}

/* Maps a key's bits to an unsigned value whose natural order is the sort order.
   Floats: every NaN becomes all ones (last in both directions), -0.0 joins +0.0.
   Descending inverts the order of every non-NaN key. */
inline key_t ordered_bits(key_t k, uint descending) {
{% if key_kind == "unsigned" %}
  return descending ? (key_t)~k : k;
{% elif key_kind == "signed" %}
  const key_t o = (key_t)(k ^ SIGN_BIT);
  return descending ? (key_t)~o : o;
{% else %}
  const key_t magnitude = k & (key_t)~SIGN_BIT;
  /* Negative keys flip every bit, the others only the sign: selects, no branch. */
  const key_t flip = (key_t)((key_t)0 - (k >> {{ key_bits - 1 }})) | SIGN_BIT;
  const key_t o = magnitude == 0 ? SIGN_BIT : (key_t)(k ^ flip);
  return magnitude > EXPONENT_ALL_ONES ? (key_t)~(key_t)0 : (descending ? (key_t)~o : o);
{% endif %}
}

/* Bits [begin_bit, end_bit) of the ordered key, which the sort compares. */
inline key_t sort_bits(key_t k, uint descending, uint begin_bit, uint end_bit) {
  const key_t o = ordered_bits(k, descending) >> begin_bit;
  const uint width = end_bit - begin_bit;
  return width >= {{ key_bits }} ? o : (key_t)(o & (((key_t)1 << width) - 1));
}

inline uint digit_of(key_t k, uint descending, uint shift, uint mask) {
  return (uint)(ordered_bits(k, descending) >> shift) & mask;
}

/* partial[lid] = sum, then the sum of the work-items before lid by a work-group scan. Every
   work-item must call it; ends with a barrier. */
inline uint items_before(uint sum, __local uint* partial) {
  const uint lid = get_local_id(0);
  partial[lid] = sum;
  barrier(CLK_LOCAL_MEM_FENCE);
  for (uint offset = 1; offset < WG; offset <<= 1) {
    const uint addend = lid >= offset ? partial[lid - offset] : 0;
    barrier(CLK_LOCAL_MEM_FENCE);
    partial[lid] += addend;
    barrier(CLK_LOCAL_MEM_FENCE);
  }
  return partial[lid] - sum;
}
