# socket_wrapper benchmarks: see socket_wrapper.workloads.
cwrap_add_bench(swrap_net swrap_net.c)
# A SOCKET_WRAPPER_FAULTS file whose rules match nothing ({bench}/...).
configure_file(${CMAKE_CURRENT_SOURCE_DIR}/faults-nomatch.rules
               ${CMAKE_CURRENT_BINARY_DIR}/faults-nomatch.rules COPYONLY)
