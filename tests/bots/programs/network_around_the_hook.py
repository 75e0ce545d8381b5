import ctypes
import sys

PORT = 0  # the test's listener, written in by the test

# socket(2) and connect(2) straight from the C library: no audited Python socket call is made.
libc = ctypes.CDLL("libc.so.6", use_errno=True)
descriptor = libc.socket(2, 1, 0)  # AF_INET, SOCK_STREAM
# struct sockaddr_in: the family in the host's byte order, then the port and 127.0.0.1 in the network's
address = (2).to_bytes(2, sys.byteorder) + PORT.to_bytes(2, "big") + bytes([127, 0, 0, 1]) + bytes(8)
if libc.connect(descriptor, address, len(address)) != 0:
    sys.stderr.write(f"connect refused: errno {ctypes.get_errno()}\n")
    sys.exit(3)
sys.stderr.write("connected\n")
sys.exit(4)
