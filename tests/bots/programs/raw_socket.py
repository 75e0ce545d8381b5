# Opens a socket the audit hook does not see (creating one is no audited network event): which family
# is written in by the test. The kernel's filter must stop it before anything else happens.
import socket
import sys

FAMILY = "inet"  # inet, packet, netlink, io_uring or x32, written in by the test

sys.stdin.readline()
if FAMILY == "inet":
    opened = socket.socket(socket.AF_INET, socket.SOCK_STREAM)
elif FAMILY == "packet":
    opened = socket.socket(socket.AF_PACKET, socket.SOCK_RAW)
elif FAMILY == "netlink":
    opened = socket.socket(socket.AF_NETLINK, socket.SOCK_RAW)
elif FAMILY == "io_uring":
    import ctypes

    params = ctypes.create_string_buffer(120)
    ctypes.CDLL("libc.so.6", use_errno=True).syscall(425, 8, params)  # io_uring_setup
elif FAMILY == "x32":  # socket(AF_INET) through x86-64's other system call table
    import ctypes

    ctypes.CDLL("libc.so.6", use_errno=True).syscall(0x40000000 | 41, 2, 1, 0)
sys.stderr.write(f"opened a {FAMILY} socket\n")
sys.exit(4)
