// gonet: supnet.c's four subcommands, with the same output lines, written
// with Go's package net (which makes its own system calls, with or
// without cgo): test_supervised.sh runs it under cwrap, whose supervisor
// gives it socket_wrapper's network.
//
//	gonet tcp-server ADDR PORT [COUNT]
//	gonet tcp-client ADDR PORT MSG
//	gonet udp-server ADDR PORT [COUNT]
//	gonet udp-client ADDR PORT MSG
//
// A call that fails: a message naming it on stderr, exit 1; bad
// arguments: exit 2; accept's address not getpeername's: exit 3.
package main

import (
	"fmt"
	"io"
	"net"
	"os"
	"strconv"
	"syscall"
)

func die(call string, err error) {
	fmt.Fprintf(os.Stderr, "gonet: %s: %v\n", call, err)
	os.Exit(1)
}

func usage() {
	fmt.Fprintf(os.Stderr, "usage: gonet tcp-server|udp-server ADDR PORT [COUNT]\n"+
		"       gonet tcp-client|udp-client ADDR PORT MSG\n")
	os.Exit(2)
}

func number(s string, max uint64, what string) int {
	n, err := strconv.ParseUint(s, 10, 64)
	if err != nil || n > max {
		fmt.Fprintf(os.Stderr, "gonet: bad %s '%s'\n", what, s)
		os.Exit(2)
	}
	return int(n)
}

// parse returns ADDR's IP, PORT, and "4" or "6" (for "tcp4", "udp6"...):
// the socket's family is the address's, as in supnet.c.
func parse(addr, port string) (net.IP, int, string) {
	ip := net.ParseIP(addr)
	if ip == nil {
		fmt.Fprintf(os.Stderr, "gonet: bad address '%s' (numeric IPv4 or IPv6)\n", addr)
		os.Exit(2)
	}
	p := number(port, 65535, "port")
	if ip.To4() != nil {
		return ip, p, "4"
	}
	return ip, p, "6"
}

func format(ip net.IP, port int) string {
	if ip4 := ip.To4(); ip4 != nil {
		return fmt.Sprintf("%s:%d", ip4, port)
	}
	return fmt.Sprintf("[%s]:%d", ip, port)
}

func formatAddr(a net.Addr) string {
	switch a := a.(type) {
	case *net.TCPAddr:
		return format(a.IP, a.Port)
	case *net.UDPAddr:
		return format(a.IP, a.Port)
	}
	return fmt.Sprintf("(%T %v)", a, a)
}

func formatSockaddr(sa syscall.Sockaddr) string {
	switch sa := sa.(type) {
	case *syscall.SockaddrInet4:
		return format(net.IP(sa.Addr[:]), sa.Port)
	case *syscall.SockaddrInet6:
		return format(net.IP(sa.Addr[:]), sa.Port)
	}
	return fmt.Sprintf("(%T %v)", sa, sa)
}

// getpeername(2) on the connection's descriptor.
func getpeername(c *net.TCPConn) string {
	rc, err := c.SyscallConn()
	if err != nil {
		die("SyscallConn", err)
	}
	var sa syscall.Sockaddr
	var gerr error
	if err := rc.Control(func(fd uintptr) { sa, gerr = syscall.Getpeername(int(fd)) }); err != nil {
		die("Control", err)
	}
	if gerr != nil {
		die("getpeername", gerr)
	}
	return formatSockaddr(sa)
}

func tcpServer(addr, port string, count int) {
	ip, p, v := parse(addr, port)
	l, err := net.Listen("tcp"+v, net.JoinHostPort(ip.String(), strconv.Itoa(p)))
	if err != nil {
		die("listen", err)
	}
	fmt.Printf("listening %s\n", formatAddr(l.Addr()))
	buf := make([]byte, 65536)
	for i := 0; i < count; i++ {
		c, err := l.Accept()
		if err != nil {
			die("accept", err)
		}
		tc := c.(*net.TCPConn)
		from := formatAddr(c.RemoteAddr())
		fmt.Printf("peer %s\n", from)
		if peer := getpeername(tc); peer != from {
			fmt.Fprintf(os.Stderr, "gonet: accept() said the peer is %s, getpeername() %s\n", from, peer)
			os.Exit(3)
		}
		fmt.Printf("local %s\n", formatAddr(c.LocalAddr()))
		// (a plain loop: io.Copy would splice(2) from one socket to the other)
		for {
			n, err := c.Read(buf)
			if n > 0 {
				if _, werr := c.Write(buf[:n]); werr != nil {
					die("write", werr)
				}
			}
			if err == io.EOF {
				break
			}
			if err != nil {
				die("read", err)
			}
		}
		if err := c.Close(); err != nil {
			die("close", err)
		}
	}
	l.Close()
}

func tcpClient(addr, port, msg string) {
	ip, p, v := parse(addr, port)
	c, err := net.Dial("tcp"+v, net.JoinHostPort(ip.String(), strconv.Itoa(p)))
	if err != nil {
		die("dial", err)
	}
	tc := c.(*net.TCPConn)
	fmt.Printf("local %s\n", formatAddr(c.LocalAddr()))
	fmt.Printf("peer %s\n", formatAddr(c.RemoteAddr()))
	if _, err := c.Write([]byte(msg)); err != nil {
		die("write", err)
	}
	if err := tc.CloseWrite(); err != nil {
		die("shutdown", err)
	}
	got, err := io.ReadAll(c)
	if err != nil {
		die("read", err)
	}
	c.Close()
	os.Stdout.Write([]byte("echo " + string(got) + "\n"))
}

func udpServer(addr, port string, count int) {
	ip, p, v := parse(addr, port)
	pc, err := net.ListenPacket("udp"+v, net.JoinHostPort(ip.String(), strconv.Itoa(p)))
	if err != nil {
		die("listen", err)
	}
	fmt.Printf("listening %s\n", formatAddr(pc.LocalAddr()))
	buf := make([]byte, 65536)
	for i := 0; i < count; i++ {
		n, from, err := pc.ReadFrom(buf)
		if err != nil {
			die("recvfrom", err)
		}
		fmt.Printf("from %s\n", formatAddr(from))
		if _, err := pc.WriteTo(buf[:n], from); err != nil {
			die("sendto", err)
		}
	}
	pc.Close()
}

func udpClient(addr, port, msg string) {
	ip, p, v := parse(addr, port)
	// An unconnected socket, as Go programs make one: bound to the
	// wildcard address, port 0.
	pc, err := net.ListenPacket("udp"+v, ":0")
	if err != nil {
		die("listen", err)
	}
	if _, err := pc.WriteTo([]byte(msg), &net.UDPAddr{IP: ip, Port: p}); err != nil {
		die("sendto", err)
	}
	buf := make([]byte, 65536)
	n, from, err := pc.ReadFrom(buf)
	if err != nil {
		die("recvfrom", err)
	}
	os.Stdout.Write([]byte("reply " + string(buf[:n]) + " from " + formatAddr(from) + "\n"))
	pc.Close()
}

func main() {
	args := os.Args
	if len(args) < 4 {
		usage()
	}
	switch args[1] {
	case "tcp-server", "udp-server":
		if len(args) > 5 {
			usage()
		}
		count := 1
		if len(args) == 5 {
			count = number(args[4], 1000000, "count")
		}
		if args[1] == "tcp-server" {
			tcpServer(args[2], args[3], count)
		} else {
			udpServer(args[2], args[3], count)
		}
	case "tcp-client", "udp-client":
		if len(args) != 5 {
			usage()
		}
		if args[1] == "tcp-client" {
			tcpClient(args[2], args[3], args[4])
		} else {
			udpClient(args[2], args[3], args[4])
		}
	default:
		usage()
	}
}
