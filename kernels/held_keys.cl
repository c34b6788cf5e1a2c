{# Kernels whose work-items hold elements_per_thread keys (and values): loops over them and the
   value type. #}
/* Keys a work-item holds stay in registers where there are few; a CPU's single work-item of
   thousands keeps them on its stack, and unrolling those loops only slows the build. */
{% if elements_per_thread <= 32 %}
#define UNROLL _Pragma("unroll")
{% else %}
#define UNROLL
{% endif %}
{% if value_bytes > 0 %}
typedef {{ value_storage }} value_t;
#define VALUES_ARG(x) , x
{% else %}
#define VALUES_ARG(x)
{% endif %}
