#!/usr/bin/env python3
"""A process of an emulated stack for test_launcher_sockets.sh, run under
socket_wrapper (cwrap):

    sockets_stack.py ACTION...

ACTION is one of
    listen ADDRESS PORT     a TCP listener that accepts and keeps every
                            connection
    hold ADDRESS PORT       a TCP listener that never accepts
    drop ADDRESS PORT       a TCP listener that closes what it accepts
    group ADDRESS PORT      a TCP listener with SO_REUSEPORT
    bind ADDRESS PORT       a TCP socket bound, not listening
    udp ADDRESS PORT        a bound UDP socket (the broadcast address
                            too)
    quic NAME               a SOCK_SEQPACKET unix listener on the file
                            NAME of $SOCKET_WRAPPER_DIR (what
                            socket_wrapper makes of an IPPROTO_QUIC one)
    connect ADDRESS PORT    a TCP client, connected
    sendto ADDRESS PORT     a UDP client, connected
    nodump                  the process is made not dumpable (its
                            /proc/PID/fd then unreadable but to root)
then prints "ready" and sleeps until killed.
"""
import ctypes
import os
import socket
import sys
import threading
import time


def family(address):
    return socket.AF_INET6 if ":" in address else socket.AF_INET


def serve(sock, keep):
    held = []
    while True:
        conn, _ = sock.accept()
        if keep:
            held.append(conn)
        else:
            conn.close()


def main(args):
    kept = []
    while args:
        action = args.pop(0)
        if action == "nodump":
            PR_SET_DUMPABLE = 4
            libc = ctypes.CDLL(None, use_errno=True)
            if libc.prctl(PR_SET_DUMPABLE, 0, 0, 0, 0) != 0:
                raise OSError(ctypes.get_errno(), "prctl")
            continue
        if action == "quic":
            s = socket.socket(socket.AF_UNIX, socket.SOCK_SEQPACKET)
            s.bind(os.path.join(os.environ["SOCKET_WRAPPER_DIR"], args.pop(0)))
            s.listen(16)
            kept.append(s)
            continue
        address, port = args.pop(0), int(args.pop(0))
        if action in ("udp", "sendto"):
            s = socket.socket(family(address), socket.SOCK_DGRAM)
            s.setsockopt(socket.SOL_SOCKET, socket.SO_BROADCAST, 1)
        else:
            s = socket.socket(family(address), socket.SOCK_STREAM)
        if action == "group":
            s.setsockopt(socket.SOL_SOCKET, socket.SO_REUSEPORT, 1)
        if action in ("connect", "sendto"):
            s.connect((address, port))
        else:
            s.bind((address, port))
        if action in ("listen", "hold", "drop", "group"):
            s.listen(16)
        if action in ("listen", "drop", "group"):
            threading.Thread(target=serve, args=(s, action != "drop"),
                             daemon=True).start()
        kept.append(s)
    print("ready", flush=True)
    while True:
        time.sleep(3600)


if __name__ == "__main__":
    main(sys.argv[1:])
