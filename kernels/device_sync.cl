{# Work-groups that wait for one another in the device: a GPU-wide fence and a polling wait. #}
/* Orders this work-item's global writes before its later writes, and its earlier reads before
   its later reads, for every work-group of the device: OpenCL's fence, and on NVIDIA GPUs also
   PTX's GPU-wide one, which the driver's OpenCL fence need not emit. */
inline void device_fence(void) {
  mem_fence(CLK_GLOBAL_MEM_FENCE);
{% if nvidia_ptx %}
  asm volatile("membar.gl;");
{% endif %}
}

/* Returns once *count reaches `target`. On NVIDIA GPUs it polls at growing intervals (PTX
   nanosleep), so that hundreds of waiting work-groups do not crowd the cache line that the
   working ones add to. */
inline void wait_for_count(volatile __global const uint* count, uint target) {
{% if nvidia_ptx %}
  uint pause = 32;
  while (*count < target) {
    asm volatile("nanosleep.u32 %0;" : : "r"(pause));
    pause = min(2 * pause, 1024u);
  }
{% else %}
  while (*count < target) {
  }
{% endif %}
}
