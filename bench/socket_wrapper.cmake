# socket_wrapper benchmarks: see socket_wrapper.workloads.
cwrap_add_bench(swrap_net swrap_net.c)
