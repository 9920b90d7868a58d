# socket_wrapper with capture on (SOCKET_WRAPPER_PCAP_FILE): see
# bench/socket_wrapper_pcap.workloads.
cwrap_add_bench(swrap_pcap_bench swrap_pcap_bench.c)
